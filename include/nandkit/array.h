/* SPDX-License-Identifier: MIT */
/*
 * Several chips as one device: a striped or concatenated array of open
 * devices (struct nk_nand), one per chip select, presenting one page and
 * block address space to the layers above.
 *
 * Mapping (docs/chip.md, "Several chips"), with n chips of B blocks of P
 * pages each:
 *   concatenated  logical block b is block b % B of chip b / B; pages keep
 *                 their order (P pages per logical block).
 *   striped       logical block b is block b of every chip (n * P pages per
 *                 logical block); logical page i of the block is page i / n
 *                 of chip i % n. Consecutive pages alternate between chips,
 *                 so a sequential transfer keeps every chip busy, and each
 *                 chip still programs its block in page order.
 * A logical block is bad when any of its chip blocks is.
 *
 * Multi-page reads and programs overlap the chips when their port has
 * NK_CTRL_CAP_INDEPENDENT_TARGETS (one chip's tR/tPROG runs while another
 * transfers); otherwise they run chip after chip. No allocation; the array
 * holds pointers to the caller's devices, which must outlive it and must not
 * be used directly while the array is in use. A partition (and with it the
 * file system) sits on an array through nk_part_init_array().
 */
#ifndef NANDKIT_ARRAY_H
#define NANDKIT_ARRAY_H

#include <stdbool.h>
#include <stdint.h>

#include "nandkit/nand.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NK_NAND_ARRAY_MAX 8

enum nk_nand_array_mapping {
    NK_NAND_ARRAY_CONCAT,
    NK_NAND_ARRAY_STRIPE,
};

struct nk_nand_array {
    struct nk_nand *chips[NK_NAND_ARRAY_MAX];
    unsigned count;
    enum nk_nand_array_mapping mapping;
    uint32_t pages_per_block; /* logical */
    uint32_t blocks;          /* logical */
    bool overlap;             /* the port lets the chips work at once */
    unsigned last_bitflips;   /* of the last read through the array */
    struct nk_diag diag;
};

/* Builds the array over `count` open devices of identical geometry and OOB
 * mode support. Returns 0 or -NK_EINVAL (diag names the mismatch). */
int nk_nand_array_init(struct nk_nand_array *array, struct nk_nand *const *chips, unsigned count,
                       enum nk_nand_array_mapping mapping);

static inline uint32_t nk_nand_array_pages(const struct nk_nand_array *array)
{
    return array->blocks * array->pages_per_block;
}

/* Chip index and chip page of logical page `page`. -NK_EINVAL past the end. */
int nk_nand_array_locate(const struct nk_nand_array *array, uint32_t page, unsigned *chip,
                         uint32_t *chip_page);

/* The device calls over the logical space, with their contracts. */
int nk_nand_array_read_pages(struct nk_nand_array *array, uint32_t first_page, uint32_t count,
                             uint8_t *data, uint8_t *oob, enum nk_oob_mode mode);
int nk_nand_array_program_pages(struct nk_nand_array *array, uint32_t first_page, uint32_t count,
                                const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode);
int nk_nand_array_read_page(struct nk_nand_array *array, uint32_t page, uint8_t *data, uint8_t *oob,
                            enum nk_oob_mode mode);
int nk_nand_array_program_page(struct nk_nand_array *array, uint32_t page, const uint8_t *data,
                               const uint8_t *oob, enum nk_oob_mode mode);
/* Erases logical block `block`: its block on every chip (striped) or on its
 * one chip (concatenated); on a striped array every chip block is erased
 * even when one fails, and the first error is returned. */
int nk_nand_array_erase_block(struct nk_nand_array *array, uint32_t block);
/* 1 bad, 0 good, or a negative error. A chip's bad-block-table blocks read
 * as bad (on a concatenated array they sit inside the logical space). */
int nk_nand_array_block_is_bad(struct nk_nand_array *array, uint32_t block);
/* Marks logical block `block` bad: on a striped array its block on every
 * chip (a logical block is only ever used whole), so the mark survives
 * whichever chip is asked. 0 or the first error. */
int nk_nand_array_block_mark_bad(struct nk_nand_array *array, uint32_t block);

/* Blocks at the end of the logical space reserved for the chips'
 * bad-block tables (0 without tables). */
uint32_t nk_nand_array_reserved_blocks(const struct nk_nand_array *array);

/* The chip holding logical page `page` and the page on it (NULL past the
 * end): for calls that must reach one chip, such as a copy-back pair. */
struct nk_nand *nk_nand_array_chip_of(const struct nk_nand_array *array, uint32_t page,
                                      uint32_t *chip_page);

/* Whether program and erase are refused on any chip; whether every chip
 * knows its bad blocks without reading markers. */
bool nk_nand_array_is_read_only(const struct nk_nand_array *array);
bool nk_nand_array_tracks_bad_blocks(const struct nk_nand_array *array);

/* Moves logical page `from` to `to` for garbage collection: within one chip
 * through nk_nand_move_page() (copy-back where the chip allows), across
 * chips by read + program through the devices' own buffers. Same returns
 * as nk_nand_move_page(). */
int nk_nand_array_move_page(struct nk_nand_array *array, uint32_t from, uint32_t to);

/* Largest bitflip count of any page of the last read through the array
 * (single page, multi-page or the source of a move). */
unsigned nk_nand_array_last_bitflips(const struct nk_nand_array *array);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_ARRAY_H */
