/* SPDX-License-Identifier: MIT */
/*
 * Partitions: bounds-checked, partition-relative views of a device.
 */
#include "nandkit/part.h"

#include "nand/nand_internal.h"
#include "nandkit/error.h"

/* First block of the BBT area (the device's end when there is none). */
static uint32_t nk_part_bbt_start(const struct nk_nand *dev)
{
    return nk_nand_blocks(dev) - nk_nand_bbt_reserved_blocks(dev);
}

int nk_part_init(struct nk_part *part, struct nk_nand *dev, const char *name, uint32_t first_block,
                 uint32_t block_count, unsigned flags)
{
    const char *label = name ? name : "(unnamed)";
    uint32_t blocks = nk_nand_blocks(dev);
    uint32_t limit = (flags & NK_PART_ALLOW_BBT_AREA) ? blocks : nk_part_bbt_start(dev);
    if (first_block >= limit)
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "partition '%s' starts at block %u, beyond the last usable block %u",
                           label, first_block, limit ? limit - 1 : 0);
    if (block_count == 0)
        block_count = limit - first_block;
    if (block_count > limit - first_block)
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "partition '%s' (blocks %u..%u) overlaps %s (usable blocks end at %u)",
                           label, first_block, first_block + block_count - 1,
                           limit < blocks ? "the BBT area" : "the end of the device", limit - 1);
    part->dev = dev;
    part->name = name;
    part->first_block = first_block;
    part->block_count = block_count;
    part->read_only = (flags & NK_PART_READ_ONLY) != 0;
    return 0;
}

int nk_part_check_overlap(const struct nk_part *part, const struct nk_part *other)
{
    if (part->dev != other->dev)
        return 0;
    uint32_t a_end = part->first_block + part->block_count;
    uint32_t b_end = other->first_block + other->block_count;
    if (part->first_block < b_end && other->first_block < a_end)
        return nk_diag_set(&part->dev->diag, -NK_EINVAL,
                           "partitions '%s' (blocks %u..%u) and '%s' (blocks %u..%u) overlap",
                           part->name ? part->name : "?", part->first_block, a_end - 1,
                           other->name ? other->name : "?", other->first_block, b_end - 1);
    return 0;
}

static int nk_part_check_page(struct nk_part *part, uint32_t page)
{
    if (page >= nk_part_pages(part))
        return nk_diag_set(&part->dev->diag, -NK_EINVAL,
                           "page %u out of range: partition '%s' has %u pages", page,
                           part->name ? part->name : "?", nk_part_pages(part));
    return 0;
}

static int nk_part_check_block(struct nk_part *part, uint32_t block)
{
    if (block >= part->block_count)
        return nk_diag_set(&part->dev->diag, -NK_EINVAL,
                           "block %u out of range: partition '%s' has %u blocks", block,
                           part->name ? part->name : "?", part->block_count);
    return 0;
}

static int nk_part_check_writable(struct nk_part *part)
{
    if (part->read_only)
        return nk_diag_set(&part->dev->diag, -NK_EROFS, "partition '%s' is read-only",
                           part->name ? part->name : "?");
    return 0;
}

static uint32_t nk_part_first_page(const struct nk_part *part)
{
    return part->first_block * part->dev->chip.info.pages_per_block;
}

int nk_part_read_page(struct nk_part *part, uint32_t page, uint8_t *data, uint8_t *oob,
                      enum nk_oob_mode mode)
{
    int err = nk_part_check_page(part, page);
    if (err)
        return err;
    return nk_nand_read_page(part->dev, nk_part_first_page(part) + page, data, oob, mode);
}

int nk_part_program_page(struct nk_part *part, uint32_t page, const uint8_t *data,
                         const uint8_t *oob, enum nk_oob_mode mode)
{
    int err = nk_part_check_page(part, page);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_nand_program_page(part->dev, nk_part_first_page(part) + page, data, oob, mode);
}

int nk_part_erase_block(struct nk_part *part, uint32_t block)
{
    int err = nk_part_check_block(part, block);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_nand_erase_block(part->dev, part->first_block + block);
}

int nk_part_block_is_bad(struct nk_part *part, uint32_t block)
{
    int err = nk_part_check_block(part, block);
    if (err)
        return err;
    return nk_nand_block_is_bad(part->dev, part->first_block + block);
}

int nk_part_block_mark_bad(struct nk_part *part, uint32_t block)
{
    int err = nk_part_check_block(part, block);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_nand_block_mark_bad(part->dev, part->first_block + block);
}

/* Size knob NK_NO_MULTIPAGE (docs/porting.md): no multi-page paths, page
 * moves or copy-back. */
#ifndef NK_NO_MULTIPAGE
static int nk_part_check_range(struct nk_part *part, uint32_t first_page, uint32_t count)
{
    uint32_t pages = nk_part_pages(part);
    if (count == 0 || first_page >= pages || count > pages - first_page)
        return nk_diag_set(&part->dev->diag, -NK_EINVAL,
                           "pages %u..+%u out of range: partition '%s' has %u pages", first_page,
                           count, part->name ? part->name : "?", pages);
    return 0;
}

int nk_part_read_pages(struct nk_part *part, uint32_t first_page, uint32_t count, uint8_t *data,
                       uint8_t *oob, enum nk_oob_mode mode)
{
    int err = nk_part_check_range(part, first_page, count);
    if (err)
        return err;
    return nk_nand_read_pages(part->dev, nk_part_first_page(part) + first_page, count, data, oob,
                              mode);
}

int nk_part_program_pages(struct nk_part *part, uint32_t first_page, uint32_t count,
                          const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    int err = nk_part_check_range(part, first_page, count);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    return nk_nand_program_pages(part->dev, nk_part_first_page(part) + first_page, count, data, oob,
                                 mode);
}

int nk_part_move_page(struct nk_part *part, uint32_t from, uint32_t to)
{
    int err = nk_part_check_page(part, from);
    if (!err)
        err = nk_part_check_page(part, to);
    if (!err)
        err = nk_part_check_writable(part);
    if (err)
        return err;
    uint32_t base = nk_part_first_page(part);
    return nk_nand_move_page(part->dev, base + from, base + to);
}

bool nk_part_can_copyback(const struct nk_part *part, uint32_t from, uint32_t to)
{
    uint32_t pages = nk_part_pages(part);
    if (from >= pages || to >= pages)
        return false;
    uint32_t base = nk_part_first_page(part);
    return nk_nand_can_copyback(part->dev, base + from, base + to);
}
#endif
