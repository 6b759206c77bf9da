/* SPDX-License-Identifier: MIT */
/* Device-layer internals shared between its files. */
#ifndef NK_NAND_INTERNAL_H
#define NK_NAND_INTERNAL_H

#include "nandkit/bbt.h"
#include "nandkit/nand.h"

/* ONFI feature address of array operation mode (Micron on-die ECC enable). */
#define NK_FEATURE_ARRAY_OPERATION 0x90u

/* Blocks searched for the on-flash BBT at the end of each chip (Linux). */
#define NK_BBT_RESERVED_BLOCKS 4u

/* Flags of the unlocked workers. */
#define NK_IO_ALLOW_RESERVED 0x1u /* the BBT code writing its own blocks */

/* The workers behind the public calls, without lock and clock; for code
 * inside the device layer that already holds the lock. */
int nk_nand_read_page_unlocked(struct nk_nand *dev, uint32_t page, uint8_t *data, uint8_t *oob,
                               enum nk_oob_mode mode);
int nk_nand_program_page_unlocked(struct nk_nand *dev, uint32_t page, const uint8_t *data,
                                  const uint8_t *oob, enum nk_oob_mode mode, unsigned flags);
int nk_nand_erase_block_unlocked(struct nk_nand *dev, uint32_t block, unsigned flags);

/* Builds the on-flash image of a table: `len` data bytes (blocks/4 rounded
 * up, padded with 0xFF to `len`) from the RAM entries, as Linux stores them
 * (reserved blocks as good). */
void nk_bbt_encode(const struct nk_bbt *bbt, uint8_t *out, uint32_t len);

/* nk_bbt_mark_worn() without the device lock. */
int nk_bbt_mark_worn_unlocked(struct nk_nand *dev, uint32_t block);

/* Reads the factory markers of `block`: 1 bad, 0 good, or an error. */
int nk_nand_block_marker_bad(struct nk_nand *dev, uint32_t block);

/* Writes 0x00 markers on every marker page of `block` (raw OOB program).
 * 0 when at least one stuck. */
int nk_nand_block_write_marker(struct nk_nand *dev, uint32_t block);

/* Blocks at the end of the device reserved for the BBT (0 without one). */
uint32_t nk_nand_bbt_reserved_blocks(const struct nk_nand *dev);

#endif
