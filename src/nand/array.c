/* SPDX-License-Identifier: MIT */
/*
 * Two chips or more under a partition (src/nand/array_internal.h has the
 * mapping; one chip needs nothing here, and NANDKIT_MULTIPAGE=OFF leaves
 * the file out).
 *
 * Overlap on a striped array: a program sends page i to chip i % n with 10h
 * and moves on without waiting; it waits for a chip (and checks its status)
 * only when the chip's next page is due, so with two chips one programs
 * while the other's page crosses the bus. A read starts the page load on
 * every chip ahead (00h..30h), then takes each page out as its chip becomes
 * ready and starts that chip's next load at once: the bus carries data all
 * the time and the tR of one chip hides behind the other's transfer.
 */
#include <string.h>

#include "nand/array_internal.h"
#include "nand/nand_internal.h"
#include "nandkit/error.h"

/* Checks chip `i` against chip 0 and the chips before it. */
static int nk_array_check_chip(struct nk_part_chips *chips, struct nk_nand *const *devs, unsigned i,
                               struct nk_diag *diag)
{
    const struct nk_nand *first = devs[0], *c = devs[i];
    if (!c || !nk_nand_is_open(c))
        return nk_diag_set(diag, -NK_EINVAL, "chip %u of the partition is not open", i);
    if (nk_nand_page_size(c) != nk_nand_page_size(first) ||
        nk_nand_oob_size(c) != nk_nand_oob_size(first) ||
        nk_nand_pages_per_block(c) != nk_nand_pages_per_block(first) ||
        nk_nand_blocks(c) != nk_nand_blocks(first) || c->free_bytes != first->free_bytes)
        return nk_diag_set(diag, -NK_EINVAL,
                           "chip %u of the partition differs from chip 0 in geometry or layout", i);
    if (c->chip.ctrl != first->chip.ctrl ||
        !(c->chip.ctrl->caps & NK_CTRL_CAP_INDEPENDENT_TARGETS) ||
        (c->chip.info.features & NK_CHIP_SMALL_PAGE))
        chips->overlap = false;
    for (unsigned j = 0; j < i; j++)
        if (devs[j] == c || (devs[j]->chip.ctrl == c->chip.ctrl &&
                             devs[j]->chip.chip_select == c->chip.chip_select))
            return nk_diag_set(diag, -NK_EINVAL,
                               "chips %u and %u of the partition are the same chip", j, i);
    chips->dev[i] = devs[i];
    return 0;
}

/* Checks the count, the mapping and every chip; fills chips->dev. */
static int nk_array_check_chips(struct nk_part_chips *chips, struct nk_nand *const *devs,
                                unsigned count, enum nk_part_mapping mapping)
{
    struct nk_diag *diag = &devs[0]->diag;
    if (count > NK_PART_CHIPS_MAX)
        return nk_diag_set(diag, -NK_EINVAL, "partition over %u chips: 1..%u allowed", count,
                           NK_PART_CHIPS_MAX);
    if (mapping != NK_PART_CONCAT && mapping != NK_PART_STRIPE)
        return nk_diag_set(diag, -NK_EINVAL, "unknown chip mapping %d", (int)mapping);
    chips->overlap = count > 1 && mapping == NK_PART_STRIPE;
    for (unsigned i = 0; i < count; i++) {
        int err = nk_array_check_chip(chips, devs, i, diag);
        if (err)
            return err;
    }
    return 0;
}

int nk_part_chips_init(struct nk_part_chips *chips, struct nk_nand *const *devs, unsigned count,
                       enum nk_part_mapping mapping)
{
    memset(chips, 0, sizeof *chips);
    if (!devs || count == 0 || !devs[0])
        return -NK_EINVAL;
    int err = nk_array_check_chips(chips, devs, count, mapping);
    if (err)
        return err;
    chips->count = (uint8_t)count;
    chips->mapping = (uint8_t)mapping;
    uint32_t ppb = nk_nand_pages_per_block(devs[0]), blocks = nk_nand_blocks(devs[0]);
    chips->pages_per_block = mapping == NK_PART_STRIPE ? ppb * count : ppb;
    chips->blocks = mapping == NK_PART_STRIPE ? blocks : blocks * count;
    return 0;
}

uint32_t nk_part_chips_reserved_blocks(const struct nk_part_chips *chips)
{
    /* Concatenated: the last chip's table blocks end the logical space
     * (the others' read as bad inside it). Striped: every chip's sit at the
     * same block numbers. */
    if (chips->mapping == NK_PART_CONCAT)
        return nk_nand_bbt_reserved_blocks(chips->dev[chips->count - 1]);
    uint32_t reserved = 0;
    for (unsigned i = 0; i < chips->count; i++) {
        uint32_t r = nk_nand_bbt_reserved_blocks(chips->dev[i]);
        if (r > reserved)
            reserved = r;
    }
    return reserved;
}

static bool nk_array_has_chip(const struct nk_part_chips *chips, const struct nk_nand *dev)
{
    for (unsigned i = 0; i < chips->count; i++)
        if (chips->dev[i] == dev)
            return true;
    return false;
}

int nk_part_chips_compare(const struct nk_part_chips *a, const struct nk_part_chips *b)
{
    bool shared = false;
    for (unsigned i = 0; i < b->count && !shared; i++)
        shared = nk_array_has_chip(a, b->dev[i]);
    if (!shared)
        return 0;
    if (a->count != b->count || a->mapping != b->mapping)
        return -1;
    for (unsigned i = 0; i < a->count; i++)
        if (a->dev[i] != b->dev[i])
            return -1;
    return 1;
}

/* ----- blocks ----------------------------------------------------------------------- */

/* Applies `op` (erase or mark bad) to logical block `block`: on the one
 * chip that holds it, or on every chip of a stripe (the first error wins). */
static int nk_array_block_op(struct nk_part_chips *chips, uint32_t block,
                             int (*op)(struct nk_nand *dev, uint32_t block))
{
    uint32_t chip_blocks = nk_nand_blocks(chips->dev[0]);
    if (chips->mapping == NK_PART_CONCAT) {
        struct nk_nand *dev = chips->dev[block / chip_blocks];
        int err = op(dev, block % chip_blocks);
        nk_part_chips_take_diag(chips, dev, err);
        return err;
    }
    int result = 0;
    for (unsigned c = 0; c < chips->count; c++) {
        int err = op(chips->dev[c], block);
        if (err && !result) {
            result = err;
            nk_part_chips_take_diag(chips, chips->dev[c], err);
        }
    }
    return result;
}

int nk_array_erase_block(struct nk_part_chips *chips, uint32_t block)
{
    return nk_array_block_op(chips, block, nk_nand_erase_block);
}

int nk_array_block_mark_bad(struct nk_part_chips *chips, uint32_t block)
{
    return nk_array_block_op(chips, block, nk_nand_block_mark_bad);
}

int nk_array_block_is_bad(struct nk_part_chips *chips, uint32_t block)
{
    uint32_t chip_blocks = nk_nand_blocks(chips->dev[0]);
    if (chips->mapping == NK_PART_CONCAT)
        return nk_nand_block_is_bad(chips->dev[block / chip_blocks], block % chip_blocks);
    for (unsigned c = 0; c < chips->count; c++) {
        int bad = nk_nand_block_is_bad(chips->dev[c], block);
        if (bad)
            return bad;
    }
    return 0;
}

/* ----- mapping ---------------------------------------------------------------------- */

int nk_part_chips_locate(const struct nk_part_chips *chips, uint32_t page, unsigned *chip,
                         uint32_t *chip_page)
{
    if (page >= nk_part_chips_pages(chips))
        return -NK_EINVAL;
    const struct nk_nand *c0 = chips->dev[0];
    if (chips->mapping == NK_PART_CONCAT) {
        uint32_t chip_pages = nk_nand_pages(c0);
        *chip = page / chip_pages;
        *chip_page = page % chip_pages;
    } else {
        uint32_t ppb = nk_nand_pages_per_block(c0);
        uint32_t block = page / chips->pages_per_block, i = page % chips->pages_per_block;
        *chip = i % chips->count;
        *chip_page = block * ppb + i / chips->count;
    }
    return 0;
}

struct nk_nand *nk_array_chip_of(const struct nk_part_chips *chips, uint32_t page,
                                 uint32_t *chip_page)
{
    unsigned c = 0;
    (void)nk_part_chips_locate(chips, page, &c, chip_page);
    return chips->dev[c];
}

void nk_array_take_diag(struct nk_part_chips *chips, const struct nk_nand *dev)
{
    chips->dev[0]->diag = dev->diag.text[0] ? dev->diag : dev->chip.diag;
}

/* Pages from chip page `chip_page` on that chip that follow each other in
 * the logical space too, at most `left`: to the chip's end when
 * concatenated, one when striped. */
static uint32_t nk_array_run(const struct nk_part_chips *chips, uint32_t chip_page, uint32_t left)
{
    if (chips->mapping == NK_PART_STRIPE)
        return 1;
    uint32_t to_end = nk_nand_pages(chips->dev[0]) - chip_page;
    return left < to_end ? left : to_end;
}

static void nk_array_lock(struct nk_part_chips *chips, bool take)
{
    for (unsigned i = 0; i < chips->count; i++) {
        const struct nk_lock *lock = &chips->dev[i]->lock;
        if (take && lock->lock)
            lock->lock(lock->ctx);
        else if (!take && lock->unlock)
            lock->unlock(lock->ctx);
    }
}

static bool nk_array_simple_ecc(const struct nk_nand *dev, enum nk_oob_mode mode)
{
    return mode == NK_OOB_RAW || dev->ecc.placement == NK_ECC_PLACEMENT_NONE ||
           dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE;
}

/* ----- read ------------------------------------------------------------------------- */

static int nk_array_read_begin(struct nk_part_chips *chips, uint32_t page)
{
    uint32_t cp;
    struct nk_nand *dev = nk_part_chips_dev(chips, page, &cp);
    return nk_chip_read_begin(&dev->chip, cp, 0);
}

static int nk_array_read_overlap(struct nk_part_chips *chips, uint32_t first, uint32_t count,
                                 uint8_t *data, uint8_t *oob, enum nk_oob_mode mode,
                                 unsigned *worst)
{
    const struct nk_nand *c0 = chips->dev[0];
    uint32_t ahead = count < chips->count ? count : chips->count;
    int result = 0;
    for (uint32_t i = 0; i < ahead; i++) {
        int err = nk_array_read_begin(chips, first + i);
        if (err)
            return err;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t cp;
        struct nk_nand *dev = nk_part_chips_dev(chips, first + i, &cp);
        int err = nk_chip_read_wait(&dev->chip);
        if (err)
            return err;
        int r = nk_nand_read_out(dev, data + (size_t)i * nk_nand_page_size(c0),
                                 oob ? oob + (size_t)i * nk_nand_oob_stride(c0, mode) : NULL, mode);
        if (dev->last_bitflips > *worst)
            *worst = dev->last_bitflips;
        result = nk_nand_worse_result(result, r);
        if (result < 0 && result != -NK_EBADMSG)
            return result;
        if (i + chips->count < count) {
            err = nk_array_read_begin(chips, first + i + chips->count);
            if (err)
                return err;
        }
    }
    return result;
}

/* Overlapped on a striped array whose port allows it; the chips' locks are
 * held throughout and every chip's last bitflips become the worst. */
static int nk_array_read_overlapped(struct nk_part_chips *chips, uint32_t first_page,
                                    uint32_t count, uint8_t *data, uint8_t *oob,
                                    enum nk_oob_mode mode)
{
    unsigned worst = 0;
    nk_array_lock(chips, true);
    for (unsigned i = 0; i < chips->count; i++)
        chips->dev[i]->last_bitflips = 0;
    int result = nk_array_read_overlap(chips, first_page, count, data, oob, mode, &worst);
    for (unsigned i = 0; i < chips->count; i++)
        chips->dev[i]->last_bitflips = worst;
    chips->last_bitflips = worst;
    nk_array_lock(chips, false);
    return result;
}

int nk_array_read_pages(struct nk_part_chips *chips, uint32_t first_page, uint32_t count,
                        uint8_t *data, uint8_t *oob, enum nk_oob_mode mode)
{
    const struct nk_nand *c0 = chips->dev[0];
    if (chips->overlap && data && count > 1 && nk_array_simple_ecc(c0, mode) &&
        !nk_check_mode(chips->dev[0], mode))
        return nk_array_read_overlapped(chips, first_page, count, data, oob, mode);
    /* Runs of pages on one chip, each through that chip's multi-page path. */
    unsigned worst = 0;
    int result = 0;
    for (uint32_t i = 0; i < count;) {
        uint32_t cp;
        struct nk_nand *dev = nk_part_chips_dev(chips, first_page + i, &cp);
        uint32_t run = nk_array_run(chips, cp, count - i);
        int r =
            nk_nand_read_pages(dev, cp, run, data ? data + (size_t)i * nk_nand_page_size(c0) : NULL,
                               oob ? oob + (size_t)i * nk_nand_oob_stride(c0, mode) : NULL, mode);
        if (dev->last_bitflips > worst)
            worst = dev->last_bitflips;
        result = nk_nand_worse_result(result, r);
        if (result < 0 && result != -NK_EBADMSG) {
            nk_part_chips_take_diag(chips, dev, result);
            break;
        }
        i += run;
    }
    chips->last_bitflips = worst;
    return result;
}

/* ----- program ---------------------------------------------------------------------- */

static int nk_array_program_end(struct nk_part_chips *chips, unsigned c, uint32_t row)
{
    struct nk_nand *dev = chips->dev[c];
    int err = nk_chip_program_end(&dev->chip, row);
    if (err == -NK_EIO)
        dev->stats.program_failures++;
    nk_part_chips_take_diag(chips, dev, err);
    return err;
}

static int nk_array_program_overlap(struct nk_part_chips *chips, uint32_t first, uint32_t count,
                                    const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    uint32_t inflight[NK_PART_CHIPS_MAX];
    bool busy[NK_PART_CHIPS_MAX] = {false};
    const struct nk_nand *c0 = chips->dev[0];
    int err = 0;
    for (uint32_t i = 0; i < count && !err; i++) {
        unsigned c = 0;
        uint32_t cp;
        (void)nk_part_chips_locate(chips, first + i, &c, &cp);
        struct nk_nand *dev = chips->dev[c];
        if (busy[c]) {
            busy[c] = false;
            err = nk_array_program_end(chips, c, inflight[c]);
            if (err)
                break;
        }
        err = nk_nand_program_checks(dev, cp, mode);
        if (err) {
            nk_part_chips_take_diag(chips, dev, err);
            break;
        }
        const uint8_t *page_data = data ? data + (size_t)i * nk_nand_page_size(c0) : NULL;
        const uint8_t *page_oob = oob ? oob + (size_t)i * nk_nand_oob_stride(c0, mode) : NULL;
        const uint8_t *oob_out = nk_nand_oob_image(dev, page_data, page_oob, mode);
        struct nk_xfer x[2];
        unsigned n = nk_nand_page_xfers(dev, page_data, oob_out, x);
        if (!n)
            continue;
        dev->stats.page_programs++;
        err = nk_chip_program_begin(&dev->chip, cp, x, n);
        if (err)
            break;
        dev->stats.bytes_written +=
            (page_data ? nk_nand_page_size(c0) : 0) + (oob_out ? nk_nand_oob_size(c0) : 0);
        busy[c] = true;
        inflight[c] = cp;
    }
    /* Every started page is waited for, whatever happened since. */
    for (unsigned c = 0; c < chips->count; c++) {
        if (!busy[c])
            continue;
        int e = nk_array_program_end(chips, c, inflight[c]);
        if (!err)
            err = e;
    }
    return err;
}

int nk_array_program_pages(struct nk_part_chips *chips, uint32_t first_page, uint32_t count,
                           const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    const struct nk_nand *c0 = chips->dev[0];
    int err = 0;
    if (chips->overlap && count > 1 && nk_array_simple_ecc(c0, mode)) {
        nk_array_lock(chips, true);
        err = nk_array_program_overlap(chips, first_page, count, data, oob, mode);
        nk_array_lock(chips, false);
        return err;
    }
    for (uint32_t i = 0; i < count && !err;) {
        uint32_t cp;
        struct nk_nand *dev = nk_part_chips_dev(chips, first_page + i, &cp);
        uint32_t run = nk_array_run(chips, cp, count - i);
        err = nk_nand_program_pages(
            dev, cp, run, data ? data + (size_t)i * nk_nand_page_size(c0) : NULL,
            oob ? oob + (size_t)i * nk_nand_oob_stride(c0, mode) : NULL, mode);
        nk_part_chips_take_diag(chips, dev, err);
        i += run;
    }
    return err;
}

/* ----- page move ------------------------------------------------------------------- */

/* Across chips: the data lands in the destination's page buffer and the
 * OOB in its ecc_read area, neither of which its program touches. */
static int nk_array_move_across(struct nk_part_chips *chips, struct nk_nand *src, uint32_t src_page,
                                struct nk_nand *dst, uint32_t dst_page)
{
    nk_array_lock(chips, true);
    uint8_t *data = nk_nand_page_buf(dst), *oob = nk_nand_ecc_read(dst);
    int result = nk_nand_read_page_unlocked(src, src_page, data, oob, NK_OOB_PLACE);
    chips->last_bitflips = src->last_bitflips;
    int err = result < 0 ? result : 0;
    if (err) {
        nk_part_chips_take_diag(chips, src, err);
    } else {
        err = nk_nand_program_page_unlocked(dst, dst_page, data, oob, NK_OOB_PLACE, 0);
        nk_part_chips_take_diag(chips, dst, err);
    }
    nk_array_lock(chips, false);
    return err ? err : result;
}

int nk_array_move_page(struct nk_part_chips *chips, uint32_t from, uint32_t to)
{
    uint32_t src_page, dst_page;
    struct nk_nand *src = nk_part_chips_dev(chips, from, &src_page);
    struct nk_nand *dst = nk_part_chips_dev(chips, to, &dst_page);
    if (src != dst)
        return nk_array_move_across(chips, src, src_page, dst, dst_page);
    int err = nk_nand_move_page(src, src_page, dst_page);
    chips->last_bitflips = nk_nand_last_bitflips(src);
    nk_part_chips_take_diag(chips, src, err < 0 ? err : 0);
    return err;
}
