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

/* Whether `dev` is open (nk_nand_open() succeeded, nk_nand_close() not yet). */
static inline bool nk_nand_is_open(const struct nk_nand *dev)
{
    return dev->scratch != NULL;
}

/* The device's scratch buffers, carved from the caller's workspace in the
 * order NK_NAND_WORKSPACE_SIZE() counts them: a page with its OOB
 * (page_size + oob_size bytes), then the ECC code computed over data and
 * the code as read from the OOB (oob_size bytes each). */
static inline uint8_t *nk_nand_page_buf(const struct nk_nand *dev)
{
    return (uint8_t *)dev->scratch;
}
static inline uint8_t *nk_nand_ecc_calc(const struct nk_nand *dev)
{
    return nk_nand_page_buf(dev) + dev->chip.info.page_size + dev->chip.info.oob_size;
}
static inline uint8_t *nk_nand_ecc_read(const struct nk_nand *dev)
{
    return nk_nand_ecc_calc(dev) + dev->chip.info.oob_size;
}

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

/* Argument and state checks of the page paths (0 or the error, with
 * dev->diag set), shared with the multi-page paths (multipage.c). */
int nk_check_page(struct nk_nand *dev, uint32_t page);
int nk_check_mode(struct nk_nand *dev, enum nk_oob_mode mode);
int nk_check_writable(struct nk_nand *dev, const char *what, uint32_t where);
int nk_check_not_bad(struct nk_nand *dev, uint32_t block, const char *what, unsigned flags);

/* Software ECC of a page read: corrects `data` with the code computed into
 * nk_nand_ecc_calc(dev) and the full OOB as read in `oob`; the bitflip contract. */
int nk_ecc_correct_page(struct nk_nand *dev, uint8_t *data, uint8_t *oob);

/* Hands the full OOB scratch to the caller's `oob` per mode. */
void nk_oob_out(struct nk_nand *dev, const uint8_t *scratch, uint8_t *oob, enum nk_oob_mode mode);

/* ----- multipage.c ----- */

/* OOB bytes per page in a caller's buffer for `mode`. */
uint32_t nk_nand_oob_stride(const struct nk_nand *dev, enum nk_oob_mode mode);

/* The worse of two read results (hard error, -EBADMSG, then the count). */
int nk_nand_worse_result(int a, int b);

/* Moves a loaded page out of the data register from column 0 (data, then
 * the OOB when ECC or the caller needs it) and applies software ECC. */
int nk_nand_read_out(struct nk_nand *dev, uint8_t *data, uint8_t *oob, enum nk_oob_mode mode);

/* The OOB to program with `data` (software ECC filled in) in the device's
 * scratch, the caller's `oob` for raw mode, or NULL for none. */
const uint8_t *nk_nand_oob_image(struct nk_nand *dev, const uint8_t *data, const uint8_t *oob,
                                 enum nk_oob_mode mode);

/* Transfer pieces of a page program: data and/or OOB. */
unsigned nk_nand_page_xfers(struct nk_nand *dev, const uint8_t *data, const uint8_t *oob_out,
                            struct nk_xfer x[2]);

/* The single-page program's checks: range, mode, read-only, bad block. */
int nk_nand_program_checks(struct nk_nand *dev, uint32_t page, enum nk_oob_mode mode);

int nk_nand_read_pages_unlocked(struct nk_nand *dev, uint32_t first_page, uint32_t count,
                                uint8_t *data, uint8_t *oob, enum nk_oob_mode mode);
int nk_nand_program_pages_unlocked(struct nk_nand *dev, uint32_t first_page, uint32_t count,
                                   const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode);

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
