/* SPDX-License-Identifier: MIT */
/*
 * Factory bad-block markers: reading them by the manufacturer's rule and
 * writing them when a block is retired.
 */
#include <string.h>

#include "nand/nand_internal.h"
#include "nandkit/error.h"

/* The pages of `block` that carry the marker, by the chip's rule. Returns
 * the count (at most 3). */
static unsigned nk_marker_pages(const struct nk_nand *dev, uint32_t block, uint32_t pages[3])
{
    const struct nk_chip_info *info = &dev->chip.info;
    uint32_t first = block * info->pages_per_block;
    unsigned n = 0;
    uint8_t rule = info->bbm_pages ? info->bbm_pages : NK_BBM_FIRST_PAGE;
    if (rule & NK_BBM_FIRST_PAGE)
        pages[n++] = first;
    if ((rule & NK_BBM_SECOND_PAGE) && info->pages_per_block > 1)
        pages[n++] = first + 1;
    if (rule & NK_BBM_LAST_PAGE)
        pages[n++] = first + info->pages_per_block - 1;
    return n;
}

int nk_nand_block_marker_bad(struct nk_nand *dev, uint32_t block)
{
    uint32_t pages[3];
    unsigned n = nk_marker_pages(dev, block, pages);
    uint32_t column = dev->chip.info.page_size + dev->chip.info.bbm_offset;
    unsigned width = (dev->chip.info.features & NK_CHIP_BUS16) ? 2u : 1u;
    for (unsigned i = 0; i < n; i++) {
        uint8_t marker[2];
        int err = nk_nand_read_raw_bytes(dev, pages[i], column, marker, width);
        if (err)
            return err;
        for (unsigned k = 0; k < width; k++) {
            if (marker[k] != 0xff)
                return 1;
        }
    }
    return 0;
}

int nk_nand_block_is_bad(struct nk_nand *dev, uint32_t block)
{
    if (!nk_nand_is_open(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL, "device is not open");
    if (block >= nk_nand_blocks(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL, "block %u out of range: device has %u blocks",
                           block, nk_nand_blocks(dev));
    if (dev->badblocks.is_bad)
        return dev->badblocks.is_bad(dev->badblocks.ctx, block);
    if (dev->bbt)
        return nk_bbt_block_state(dev->bbt, block) != NK_BBT_GOOD;
    return nk_nand_block_marker_bad(dev, block);
}

int nk_nand_block_write_marker(struct nk_nand *dev, uint32_t block)
{
    uint32_t pages[3];
    unsigned n = nk_marker_pages(dev, block, pages);
    const uint32_t oob_size = dev->chip.info.oob_size;
    uint8_t *oob = nk_nand_ecc_read(dev); /* oob_size bytes of scratch not in use here */
    int result = -NK_EIO;
    memset(oob, 0xff, oob_size);
    oob[dev->chip.info.bbm_offset] = 0x00;
    if (dev->chip.info.features & NK_CHIP_BUS16)
        oob[dev->chip.info.bbm_offset + 1] = 0x00;
    for (unsigned i = 0; i < n; i++) {
        struct nk_xfer x = {dev->chip.info.page_size, oob_size, oob};
        /* A retired block may refuse programs: any one marker that sticks is
         * enough, as every reader checks all marker pages. */
        if (nk_chip_program_page(&dev->chip, pages[i], &x, 1, false) == 0)
            result = 0;
        dev->stats.page_programs++;
        dev->stats.bytes_written += oob_size;
    }
    if (result)
        return nk_diag_set(&dev->diag, result, "could not write a bad-block marker in block %u",
                           block);
    return 0;
}

int nk_nand_block_mark_bad(struct nk_nand *dev, uint32_t block)
{
    if (dev->badblocks.mark_bad && block < nk_nand_blocks(dev)) {
        int bad = dev->badblocks.is_bad ? dev->badblocks.is_bad(dev->badblocks.ctx, block) : 0;
        if (bad)
            return bad < 0 ? bad : 0;
        if (dev->read_only)
            return nk_diag_set(&dev->diag, -NK_EROFS, "marking block %u bad refused: read-only",
                               block);
        return dev->badblocks.mark_bad(dev->badblocks.ctx, block);
    }
    if (dev->bbt && block < nk_nand_blocks(dev))
        return nk_bbt_mark_worn(dev, block);
    int bad = nk_nand_block_is_bad(dev, block);
    if (bad < 0)
        return bad;
    if (bad)
        return 0;
    if (dev->read_only)
        return nk_diag_set(&dev->diag, -NK_EROFS, "marking block %u bad refused: read-only", block);
    return nk_nand_block_write_marker(dev, block);
}

uint32_t nk_nand_bbt_reserved_blocks(const struct nk_nand *dev)
{
    return dev->bbt ? NK_BBT_RESERVED_BLOCKS : 0;
}
