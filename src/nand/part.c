/* SPDX-License-Identifier: MIT */
/*
 * Partitions: bounds-checked, partition-relative views of their chips (one
 * device or several, src/nand/array_internal.h). Every call goes to the
 * chip that holds the page: on one chip, straight to the device.
 */
#include "nandkit/part.h"
#include "nand/array_internal.h"
#include "nand/nand_internal.h"
#include "nandkit/error.h"

/* The range checks stay out of line, one copy for every call: the minimal
 * core's size budget (docs/porting.md) has no room for one per caller. */
#if defined(__GNUC__)
#define NK_PART_NOINLINE __attribute__((noinline))
#else
#define NK_PART_NOINLINE
#endif

/* Where the partition's messages go: its first chip's diag. */
static struct nk_diag *nk_part_diag_out(struct nk_part *part)
{
    return &part->dev->diag;
}

/* Describes the range on the chips already in part->chips. */
static int nk_part_describe(struct nk_part *part, const char *name, uint32_t first_block,
                            uint32_t block_count, unsigned flags)
{
    part->dev = part->chips.dev[0];
    struct nk_diag *diag = nk_part_diag_out(part);
    uint32_t blocks = part->chips.blocks;
    uint32_t reserved = nk_part_chips_reserved_blocks(&part->chips);
    const char *label = name ? name : "(unnamed)";
    uint32_t limit = (flags & NK_PART_ALLOW_BBT_AREA) ? blocks : blocks - reserved;
    if (first_block >= limit)
        return nk_diag_set(diag, -NK_EINVAL,
                           "partition '%s' starts at block %u, beyond the last usable block %u",
                           label, first_block, limit ? limit - 1 : 0);
    if (block_count == 0)
        block_count = limit - first_block;
    if (block_count > limit - first_block)
        return nk_diag_set(diag, -NK_EINVAL,
                           "partition '%s' (blocks %u..%u) overlaps %s (usable blocks end at %u)",
                           label, first_block, first_block + block_count - 1,
                           limit < blocks ? "the BBT area" : "the end of the device", limit - 1);
    part->name = name;
    part->first_block = first_block;
    part->block_count = block_count;
    part->read_only = (flags & NK_PART_READ_ONLY) != 0;
    part->move_loaded = false;
    return 0;
}

int nk_part_init(struct nk_part *part, struct nk_nand *dev, const char *name, uint32_t first_block,
                 uint32_t block_count, unsigned flags)
{
    nk_part_chips_init_one(&part->chips, dev);
    return nk_part_describe(part, name, first_block, block_count, flags);
}

/* Size knob NK_NO_MULTIPAGE (docs/porting.md): partitions on one chip. */
#ifndef NK_NO_MULTIPAGE
int nk_part_init_chips(struct nk_part *part, struct nk_nand *const *chips, unsigned count,
                       enum nk_part_mapping mapping, const char *name, uint32_t first_block,
                       uint32_t block_count, unsigned flags)
{
    int err = nk_part_chips_init(&part->chips, chips, count, mapping);
    if (err)
        return err;
    return nk_part_describe(part, name, first_block, block_count, flags);
}
#endif

int nk_part_check_overlap(const struct nk_part *part, const struct nk_part *other)
{
    int same = nk_part_chips_compare(&part->chips, &other->chips);
    if (same == 0)
        return 0;
    struct nk_diag *diag = nk_part_diag_out((struct nk_part *)part);
    if (same < 0)
        return nk_diag_set(diag, -NK_EINVAL,
                           "partitions '%s' and '%s' share a chip under different layouts",
                           part->name ? part->name : "?", other->name ? other->name : "?");
    uint32_t a_end = part->first_block + part->block_count;
    uint32_t b_end = other->first_block + other->block_count;
    if (part->first_block < b_end && other->first_block < a_end)
        return nk_diag_set(diag, -NK_EINVAL,
                           "partitions '%s' (blocks %u..%u) and '%s' (blocks %u..%u) overlap",
                           part->name ? part->name : "?", part->first_block, a_end - 1,
                           other->name ? other->name : "?", other->first_block, b_end - 1);
    return 0;
}

NK_PART_NOINLINE static int nk_part_check_page(struct nk_part *part, uint32_t page)
{
    if (page >= nk_part_pages(part))
        return nk_diag_set(nk_part_diag_out(part), -NK_EINVAL,
                           "page %u out of range: partition '%s' has %u pages", page,
                           part->name ? part->name : "?", nk_part_pages(part));
    return 0;
}

NK_PART_NOINLINE static int nk_part_check_block(struct nk_part *part, uint32_t block)
{
    if (block >= part->block_count)
        return nk_diag_set(nk_part_diag_out(part), -NK_EINVAL,
                           "block %u out of range: partition '%s' has %u blocks", block,
                           part->name ? part->name : "?", part->block_count);
    return 0;
}

static int nk_part_check_writable(struct nk_part *part)
{
    if (part->read_only)
        return nk_diag_set(nk_part_diag_out(part), -NK_EROFS, "partition '%s' is read-only",
                           part->name ? part->name : "?");
    return 0;
}

static uint32_t nk_part_first_page(const struct nk_part *part)
{
    return part->first_block * nk_part_pages_per_block(part);
}

int nk_part_read_page(struct nk_part *part, uint32_t page, uint8_t *data, uint8_t *oob,
                      enum nk_oob_mode mode)
{
    part->move_loaded = false;
    int err = nk_part_check_page(part, page);
    if (err)
        return err;
    uint32_t chip_page;
    struct nk_nand *dev =
        nk_part_chips_dev(&part->chips, page + nk_part_first_page(part), &chip_page);
    int result = nk_nand_read_page(dev, chip_page, data, oob, mode);
    part->chips.last_bitflips = nk_nand_last_bitflips(dev);
    nk_part_chips_take_diag(&part->chips, dev, result < 0 ? result : 0);
    return result;
}

int nk_part_program_page(struct nk_part *part, uint32_t page, const uint8_t *data,
                         const uint8_t *oob, enum nk_oob_mode mode)
{
    part->move_loaded = false;
    int err = nk_part_check_page(part, page);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    uint32_t chip_page;
    struct nk_nand *dev =
        nk_part_chips_dev(&part->chips, page + nk_part_first_page(part), &chip_page);
    err = nk_nand_program_page(dev, chip_page, data, oob, mode);
    nk_part_chips_take_diag(&part->chips, dev, err);
    return err;
}

int nk_part_erase_block(struct nk_part *part, uint32_t block)
{
    part->move_loaded = false;
    int err = nk_part_check_block(part, block);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_part_chips_erase_block(&part->chips, part->first_block + block);
}

int nk_part_block_is_bad(struct nk_part *part, uint32_t block)
{
    part->move_loaded = false; /* may read the markers */
    int err = nk_part_check_block(part, block);
    if (err)
        return err;
    return nk_part_chips_block_is_bad(&part->chips, part->first_block + block);
}

int nk_part_block_mark_bad(struct nk_part *part, uint32_t block)
{
    part->move_loaded = false;
    int err = nk_part_check_block(part, block);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_part_chips_block_mark_bad(&part->chips, part->first_block + block);
}

/* Size knob NK_NO_MULTIPAGE (docs/porting.md): no multi-page paths, page
 * moves or copy-back. */
#ifndef NK_NO_MULTIPAGE
static int nk_part_check_range(struct nk_part *part, uint32_t first_page, uint32_t count)
{
    uint32_t pages = nk_part_pages(part);
    if (count == 0 || first_page >= pages || count > pages - first_page)
        return nk_diag_set(nk_part_diag_out(part), -NK_EINVAL,
                           "pages %u..+%u out of range: partition '%s' has %u pages", first_page,
                           count, part->name ? part->name : "?", pages);
    return 0;
}

int nk_part_read_pages(struct nk_part *part, uint32_t first_page, uint32_t count, uint8_t *data,
                       uint8_t *oob, enum nk_oob_mode mode)
{
    part->move_loaded = false;
    int err = nk_part_check_range(part, first_page, count);
    if (err)
        return err;
    return nk_part_chips_read_pages(&part->chips, first_page + nk_part_first_page(part), count,
                                    data, oob, mode);
}

int nk_part_program_pages(struct nk_part *part, uint32_t first_page, uint32_t count,
                          const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    part->move_loaded = false;
    int err = nk_part_check_range(part, first_page, count);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_part_chips_program_pages(&part->chips, first_page + nk_part_first_page(part), count,
                                       data, oob, mode);
}

int nk_part_move_page(struct nk_part *part, uint32_t from, uint32_t to)
{
    part->move_loaded = false;
    int err = nk_part_check_page(part, from);
    if (!err)
        err = nk_part_check_page(part, to);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    uint32_t base = nk_part_first_page(part);
    return nk_part_chips_move_page(&part->chips, base + from, base + to);
}

/* The chip holding partition page `page` (already checked) and the page on
 * it. */
static struct nk_nand *nk_part_chip(const struct nk_part *part, uint32_t page, uint32_t *chip_page)
{
    return nk_part_chips_dev(&part->chips, page + nk_part_first_page(part), chip_page);
}

bool nk_part_can_copyback(const struct nk_part *part, uint32_t from, uint32_t to)
{
    uint32_t pages = nk_part_pages(part);
    if (from >= pages || to >= pages)
        return false;
    uint32_t from_chip, to_chip;
    struct nk_nand *a = nk_part_chip(part, from, &from_chip);
    struct nk_nand *b = nk_part_chip(part, to, &to_chip);
    return a && a == b && nk_nand_can_copyback(a, from_chip, to_chip);
}

int nk_part_read_for_move(struct nk_part *part, uint32_t page, uint8_t *data, uint8_t *oob,
                          enum nk_oob_mode mode)
{
    part->move_loaded = false;
    uint32_t chip_page;
    struct nk_nand *dev = NULL;
    if (page < nk_part_pages(part) && data && mode != NK_OOB_RAW)
        dev = nk_part_chip(part, page, &chip_page);
    if (!dev || !nk_nand_has_copyback(dev))
        return nk_part_read_page(part, page, data, oob, mode);
    int result = nk_nand_copyback_load(dev, chip_page, data, oob, mode);
    part->chips.last_bitflips = nk_nand_last_bitflips(dev);
    nk_part_chips_take_diag(&part->chips, dev, result < 0 ? result : 0);
    if (result >= 0) {
        part->move_loaded = true;
        part->move_corrected = result > 0;
        part->move_page = page;
    }
    return result;
}

int nk_part_program_moved(struct nk_part *part, uint32_t from, uint32_t to, const uint8_t *data,
                          const uint8_t *oob, enum nk_oob_mode mode)
{
    bool loaded = part->move_loaded && part->move_page == from;
    bool corrected = part->move_corrected;
    part->move_loaded = false;
    if (!loaded || !data || !nk_part_can_copyback(part, from, to) || part->read_only)
        return nk_part_program_page(part, to, data, oob, mode);
    uint32_t from_chip, to_chip;
    struct nk_nand *dev = nk_part_chip(part, from, &from_chip);
    (void)nk_part_chip(part, to, &to_chip);
    int err = nk_nand_copyback_program(dev, from_chip, to_chip, data, oob, mode, corrected);
    nk_part_chips_take_diag(&part->chips, dev, err);
    return err;
}
#endif
