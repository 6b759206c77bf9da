/* SPDX-License-Identifier: MIT */
/* Device-layer internals shared between its files. */
#ifndef NK_NAND_INTERNAL_H
#define NK_NAND_INTERNAL_H

#include "nandkit/nand.h"

/* ONFI feature address of array operation mode (Micron on-die ECC enable). */
#define NK_FEATURE_ARRAY_OPERATION 0x90u

/* Blocks searched for the on-flash BBT at the end of each chip (Linux). */
#define NK_BBT_RESERVED_BLOCKS 4u

/* Reads the factory markers of `block`: 1 bad, 0 good, or an error. */
int nk_nand_block_marker_bad(struct nk_nand *dev, uint32_t block);

/* Writes 0x00 markers on every marker page of `block` (raw OOB program).
 * 0 when at least one stuck. */
int nk_nand_block_write_marker(struct nk_nand *dev, uint32_t block);

/* Blocks at the end of the device reserved for the BBT (0 without one). */
uint32_t nk_nand_bbt_reserved_blocks(const struct nk_nand *dev);

#endif
