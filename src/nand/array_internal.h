/* SPDX-License-Identifier: MIT */
/*
 * The chips under a partition (struct nk_part_chips, include/nandkit/part.h)
 * as one page and block address space. Private to src/nand: users put
 * several chips together through nk_part_init_chips() and reach them only
 * through the nk_part_* calls. A one-chip partition is an array of one:
 * its pages and blocks are the chip's, and every call below goes straight
 * to the device.
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
 * transfers); otherwise they run chip after chip, each run through the
 * chip's own multi-page path. Messages: a chip's failure is in its own
 * diag and, on several chips, copied to the first chip's (the partition's).
 */
#ifndef NK_ARRAY_INTERNAL_H
#define NK_ARRAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "nand/nand_internal.h"
#include "nandkit/part.h"

/* Fills `chips` for one device: its pages and blocks as they are. */
static inline void nk_part_chips_init_one(struct nk_part_chips *chips, struct nk_nand *dev)
{
    chips->dev[0] = dev;
    chips->count = 1;
    chips->mapping = NK_PART_CONCAT;
    chips->overlap = false;
    chips->last_bitflips = 0;
    chips->pages_per_block = nk_nand_pages_per_block(dev);
    chips->blocks = nk_nand_blocks(dev);
}

#ifndef NK_NO_MULTIPAGE
/* Fills `chips` for `count` open devices of identical geometry and OOB
 * layout. Returns 0 or -NK_EINVAL (the first chip's diag names the
 * mismatch; no diag when there is no first chip). */
int nk_part_chips_init(struct nk_part_chips *chips, struct nk_nand *const *devs, unsigned count,
                       enum nk_part_mapping mapping);
#endif

static inline uint32_t nk_part_chips_pages(const struct nk_part_chips *chips)
{
    return chips->blocks * chips->pages_per_block;
}

/* Chip index and chip page of logical page `page`. -NK_EINVAL past the end. */
int nk_part_chips_locate(const struct nk_part_chips *chips, uint32_t page, unsigned *chip,
                         uint32_t *chip_page);

#ifndef NK_NO_MULTIPAGE
/* Out of line, for two chips or more: the chip of logical page `page` (in
 * range) and the page on it; a failing chip's message copied to the first
 * chip's diag. */
struct nk_nand *nk_array_chip_of(const struct nk_part_chips *chips, uint32_t page,
                                 uint32_t *chip_page);
void nk_array_take_diag(struct nk_part_chips *chips, const struct nk_nand *dev);
#endif

/* The chip holding logical page `page` (in range: the caller checked it)
 * and the page on it; one chip answers without arithmetic. */
static inline struct nk_nand *nk_part_chips_dev(const struct nk_part_chips *chips, uint32_t page,
                                                uint32_t *chip_page)
{
#ifndef NK_NO_MULTIPAGE
    if (chips->count > 1)
        return nk_array_chip_of(chips, page, chip_page);
#endif
    *chip_page = page;
    return chips->dev[0];
}

/* Copies `dev`'s message (on `err`) to the first chip's diag, where the
 * partition's messages are; nothing to do on one chip. */
static inline void nk_part_chips_take_diag(struct nk_part_chips *chips, const struct nk_nand *dev,
                                           int err)
{
#ifndef NK_NO_MULTIPAGE
    if (err && dev != chips->dev[0])
        nk_array_take_diag(chips, dev);
#else
    (void)chips;
    (void)dev;
    (void)err;
#endif
}

/* Blocks at the end of the logical space reserved for the chips'
 * bad-block tables (0 without tables), and how two chip lists relate: 0
 * no chip in common, 1 the same chips in the same mapping (one logical
 * space), -1 a chip in common under different layouts. */
#ifndef NK_NO_MULTIPAGE
uint32_t nk_part_chips_reserved_blocks(const struct nk_part_chips *chips);
int nk_part_chips_compare(const struct nk_part_chips *a, const struct nk_part_chips *b);
#else
static inline uint32_t nk_part_chips_reserved_blocks(const struct nk_part_chips *chips)
{
    return nk_nand_bbt_reserved_blocks(chips->dev[0]);
}
static inline int nk_part_chips_compare(const struct nk_part_chips *a,
                                        const struct nk_part_chips *b)
{
    return a->dev[0] == b->dev[0];
}
#endif

#ifndef NK_NO_MULTIPAGE
/* The workers for two chips or more, behind the calls below. */
int nk_array_erase_block(struct nk_part_chips *chips, uint32_t block);
int nk_array_block_mark_bad(struct nk_part_chips *chips, uint32_t block);
int nk_array_block_is_bad(struct nk_part_chips *chips, uint32_t block);
int nk_array_read_pages(struct nk_part_chips *chips, uint32_t first_page, uint32_t count,
                        uint8_t *data, uint8_t *oob, enum nk_oob_mode mode);
int nk_array_program_pages(struct nk_part_chips *chips, uint32_t first_page, uint32_t count,
                           const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode);
int nk_array_move_page(struct nk_part_chips *chips, uint32_t from, uint32_t to);
#endif

/* Logical block `block` (in range): erase it (its block on every chip of a
 * stripe even when one fails; the first error), mark it bad (on every chip
 * of a stripe, so the mark survives whichever chip is asked; 0 or the first
 * error), or ask whether it is bad (1 bad, 0 good, or a negative error; a
 * chip's bad-block-table blocks read as bad). One chip: the device call. */
static inline int nk_part_chips_erase_block(struct nk_part_chips *chips, uint32_t block)
{
#ifndef NK_NO_MULTIPAGE
    if (chips->count > 1)
        return nk_array_erase_block(chips, block);
#endif
    return nk_nand_erase_block(chips->dev[0], block);
}

static inline int nk_part_chips_block_mark_bad(struct nk_part_chips *chips, uint32_t block)
{
#ifndef NK_NO_MULTIPAGE
    if (chips->count > 1)
        return nk_array_block_mark_bad(chips, block);
#endif
    return nk_nand_block_mark_bad(chips->dev[0], block);
}

static inline int nk_part_chips_block_is_bad(struct nk_part_chips *chips, uint32_t block)
{
#ifndef NK_NO_MULTIPAGE
    if (chips->count > 1)
        return nk_array_block_is_bad(chips, block);
#endif
    return nk_nand_block_is_bad(chips->dev[0], block);
}

#ifndef NK_NO_MULTIPAGE
/* The device multi-page calls over the logical range [first_page, +count)
 * (in range), with their contracts; the largest bitflip count of any page
 * read lands in chips->last_bitflips. One chip: the device call. */
static inline int nk_part_chips_read_pages(struct nk_part_chips *chips, uint32_t first_page,
                                           uint32_t count, uint8_t *data, uint8_t *oob,
                                           enum nk_oob_mode mode)
{
    if (chips->count > 1)
        return nk_array_read_pages(chips, first_page, count, data, oob, mode);
    int result = nk_nand_read_pages(chips->dev[0], first_page, count, data, oob, mode);
    chips->last_bitflips = nk_nand_last_bitflips(chips->dev[0]);
    return result;
}

static inline int nk_part_chips_program_pages(struct nk_part_chips *chips, uint32_t first_page,
                                              uint32_t count, const uint8_t *data,
                                              const uint8_t *oob, enum nk_oob_mode mode)
{
    if (chips->count > 1)
        return nk_array_program_pages(chips, first_page, count, data, oob, mode);
    return nk_nand_program_pages(chips->dev[0], first_page, count, data, oob, mode);
}

/* Moves logical page `from` to `to` (in range): within one chip through
 * nk_nand_move_page() (copy-back where the chip allows), across chips by
 * read + program through the devices' own buffers. Same returns as
 * nk_nand_move_page(). */
static inline int nk_part_chips_move_page(struct nk_part_chips *chips, uint32_t from, uint32_t to)
{
    if (chips->count > 1)
        return nk_array_move_page(chips, from, to);
    int result = nk_nand_move_page(chips->dev[0], from, to);
    chips->last_bitflips = nk_nand_last_bitflips(chips->dev[0]);
    return result;
}
#endif

#endif /* NK_ARRAY_INTERNAL_H */
