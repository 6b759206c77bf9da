/* SPDX-License-Identifier: MIT */
/*
 * Several chips as one device (include/nandkit/array.h has the mapping).
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

#include "nand/nand_internal.h"
#include "nandkit/array.h"
#include "nandkit/error.h"

int nk_nand_array_init(struct nk_nand_array *array, struct nk_nand *const *chips, unsigned count,
                       enum nk_nand_array_mapping mapping)
{
    memset(array, 0, sizeof *array);
    if (!chips || count == 0 || count > NK_NAND_ARRAY_MAX)
        return nk_diag_set(&array->diag, -NK_EINVAL, "array of %u chips: 1..%u allowed", count,
                           NK_NAND_ARRAY_MAX);
    if (mapping != NK_NAND_ARRAY_CONCAT && mapping != NK_NAND_ARRAY_STRIPE)
        return nk_diag_set(&array->diag, -NK_EINVAL, "unknown array mapping %d", (int)mapping);
    const struct nk_nand *first = chips[0];
    bool overlap = count > 1;
    for (unsigned i = 0; i < count; i++) {
        const struct nk_nand *c = chips[i];
        if (!c || !nk_nand_is_open(c))
            return nk_diag_set(&array->diag, -NK_EINVAL, "chip %u of the array is not open", i);
        if (nk_nand_page_size(c) != nk_nand_page_size(first) ||
            nk_nand_oob_size(c) != nk_nand_oob_size(first) ||
            nk_nand_pages_per_block(c) != nk_nand_pages_per_block(first) ||
            nk_nand_blocks(c) != nk_nand_blocks(first) || c->free_bytes != first->free_bytes)
            return nk_diag_set(&array->diag, -NK_EINVAL,
                               "chip %u of the array differs from chip 0 in geometry or layout", i);
        if (c->chip.ctrl != first->chip.ctrl ||
            !(c->chip.ctrl->caps & NK_CTRL_CAP_INDEPENDENT_TARGETS) ||
            (c->chip.info.features & NK_CHIP_SMALL_PAGE))
            overlap = false;
        for (unsigned j = 0; j < i; j++)
            if (chips[j] == c || (chips[j]->chip.ctrl == c->chip.ctrl &&
                                  chips[j]->chip.chip_select == c->chip.chip_select))
                return nk_diag_set(&array->diag, -NK_EINVAL,
                                   "chips %u and %u of the array are the same chip", j, i);
        array->chips[i] = (struct nk_nand *)c;
    }
    array->count = count;
    array->mapping = mapping;
    array->overlap = overlap && mapping == NK_NAND_ARRAY_STRIPE;
    uint32_t ppb = nk_nand_pages_per_block(first), blocks = nk_nand_blocks(first);
    array->pages_per_block = mapping == NK_NAND_ARRAY_STRIPE ? ppb * count : ppb;
    array->blocks = mapping == NK_NAND_ARRAY_STRIPE ? blocks : blocks * count;
    return 0;
}

int nk_nand_array_locate(const struct nk_nand_array *array, uint32_t page, unsigned *chip,
                         uint32_t *chip_page)
{
    if (page >= nk_nand_array_pages(array))
        return -NK_EINVAL;
    const struct nk_nand *c0 = array->chips[0];
    uint32_t ppb = nk_nand_pages_per_block(c0);
    if (array->mapping == NK_NAND_ARRAY_CONCAT) {
        uint32_t chip_pages = nk_nand_pages(c0);
        *chip = page / chip_pages;
        *chip_page = page % chip_pages;
    } else {
        uint32_t block = page / array->pages_per_block, i = page % array->pages_per_block;
        *chip = i % array->count;
        *chip_page = block * ppb + i / array->count;
    }
    return 0;
}

static void nk_array_lock(struct nk_nand_array *array, bool take)
{
    for (unsigned i = 0; i < array->count; i++) {
        const struct nk_lock *lock = &array->chips[i]->lock;
        if (take && lock->lock)
            lock->lock(lock->ctx);
        else if (!take && lock->unlock)
            lock->unlock(lock->ctx);
    }
}

static int nk_array_range(struct nk_nand_array *array, uint32_t first, uint32_t count)
{
    uint32_t pages = nk_nand_array_pages(array);
    if (first > pages || count > pages - first)
        return nk_diag_set(&array->diag, -NK_EINVAL,
                           "pages %u..%u out of range: the array has %u pages", first,
                           first + count, pages);
    return 0;
}

static void nk_array_take_diag(struct nk_nand_array *array, const struct nk_nand *dev, int err)
{
    if (err)
        memcpy(array->diag.text, dev->diag.text[0] ? dev->diag.text : dev->chip.diag.text,
               sizeof array->diag.text);
}

static bool nk_array_simple_ecc(const struct nk_nand *dev, enum nk_oob_mode mode)
{
    return mode == NK_OOB_RAW || dev->ecc.placement == NK_ECC_PLACEMENT_NONE ||
           dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE;
}

/* ----- read ------------------------------------------------------------------------- */

static int nk_array_read_begin(struct nk_nand_array *array, uint32_t page)
{
    unsigned c;
    uint32_t cp;
    nk_nand_array_locate(array, page, &c, &cp);
    return nk_chip_read_begin(&array->chips[c]->chip, cp, 0);
}

static int nk_array_read_overlap(struct nk_nand_array *array, uint32_t first, uint32_t count,
                                 uint8_t *data, uint8_t *oob, enum nk_oob_mode mode,
                                 unsigned *worst)
{
    const struct nk_nand *c0 = array->chips[0];
    uint32_t ahead = count < array->count ? count : array->count;
    int result = 0;
    for (uint32_t i = 0; i < ahead; i++) {
        int err = nk_array_read_begin(array, first + i);
        if (err)
            return err;
    }
    for (uint32_t i = 0; i < count; i++) {
        unsigned c;
        uint32_t cp;
        nk_nand_array_locate(array, first + i, &c, &cp);
        struct nk_nand *dev = array->chips[c];
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
        if (i + array->count < count) {
            err = nk_array_read_begin(array, first + i + array->count);
            if (err)
                return err;
        }
    }
    return result;
}

int nk_nand_array_read_pages(struct nk_nand_array *array, uint32_t first_page, uint32_t count,
                             uint8_t *data, uint8_t *oob, enum nk_oob_mode mode)
{
    int err = nk_array_range(array, first_page, count);
    if (err)
        return err;
    const struct nk_nand *c0 = array->chips[0];
    unsigned worst = 0;
    int result = 0;
    nk_array_lock(array, true);
    for (unsigned i = 0; i < array->count; i++)
        array->chips[i]->last_bitflips = 0;
    if (array->overlap && data && count > 1 && nk_array_simple_ecc(c0, mode) &&
        !nk_check_mode(array->chips[0], mode)) {
        result = nk_array_read_overlap(array, first_page, count, data, oob, mode, &worst);
    } else {
        /* Runs of pages on one chip, each through that chip's multi-page path. */
        for (uint32_t i = 0; i < count;) {
            unsigned c, c2;
            uint32_t cp, cp2, run = 1;
            nk_nand_array_locate(array, first_page + i, &c, &cp);
            while (i + run < count &&
                   !nk_nand_array_locate(array, first_page + i + run, &c2, &cp2) && c2 == c &&
                   cp2 == cp + run)
                run++;
            struct nk_nand *dev = array->chips[c];
            int r = nk_nand_read_pages_unlocked(
                dev, cp, run, data ? data + (size_t)i * nk_nand_page_size(c0) : NULL,
                oob ? oob + (size_t)i * nk_nand_oob_stride(c0, mode) : NULL, mode);
            if (dev->last_bitflips > worst)
                worst = dev->last_bitflips;
            result = nk_nand_worse_result(result, r);
            if (result < 0 && result != -NK_EBADMSG) {
                nk_array_take_diag(array, dev, result);
                break;
            }
            i += run;
        }
    }
    for (unsigned i = 0; i < array->count; i++)
        array->chips[i]->last_bitflips = worst;
    array->last_bitflips = worst;
    nk_array_lock(array, false);
    return result;
}

unsigned nk_nand_array_last_bitflips(const struct nk_nand_array *array)
{
    return array->last_bitflips;
}

struct nk_nand *nk_nand_array_chip_of(const struct nk_nand_array *array, uint32_t page,
                                      uint32_t *chip_page)
{
    unsigned c;
    if (nk_nand_array_locate(array, page, &c, chip_page))
        return NULL;
    return array->chips[c];
}

int nk_nand_array_read_page(struct nk_nand_array *array, uint32_t page, uint8_t *data, uint8_t *oob,
                            enum nk_oob_mode mode)
{
    uint32_t chip_page;
    struct nk_nand *dev = nk_nand_array_chip_of(array, page, &chip_page);
    if (!dev)
        return nk_array_range(array, page, 1);
    int result = nk_nand_read_page(dev, chip_page, data, oob, mode);
    array->last_bitflips = nk_nand_last_bitflips(dev);
    nk_array_take_diag(array, dev, result < 0 ? result : 0);
    return result;
}

int nk_nand_array_program_page(struct nk_nand_array *array, uint32_t page, const uint8_t *data,
                               const uint8_t *oob, enum nk_oob_mode mode)
{
    uint32_t chip_page;
    struct nk_nand *dev = nk_nand_array_chip_of(array, page, &chip_page);
    if (!dev)
        return nk_array_range(array, page, 1);
    int err = nk_nand_program_page(dev, chip_page, data, oob, mode);
    nk_array_take_diag(array, dev, err);
    return err;
}

bool nk_nand_array_is_read_only(const struct nk_nand_array *array)
{
    for (unsigned i = 0; i < array->count; i++)
        if (nk_nand_is_read_only(array->chips[i]))
            return true;
    return false;
}

bool nk_nand_array_tracks_bad_blocks(const struct nk_nand_array *array)
{
    for (unsigned i = 0; i < array->count; i++)
        if (!nk_nand_tracks_bad_blocks(array->chips[i]))
            return false;
    return array->count > 0;
}

uint32_t nk_nand_array_reserved_blocks(const struct nk_nand_array *array)
{
    if (!array->count)
        return 0;
    /* Concatenated: the last chip's table blocks end the logical space
     * (the others' read as bad inside it). Striped: every chip's sit at the
     * same block numbers. */
    if (array->mapping == NK_NAND_ARRAY_CONCAT)
        return nk_nand_bbt_reserved_blocks(array->chips[array->count - 1]);
    uint32_t reserved = 0;
    for (unsigned i = 0; i < array->count; i++) {
        uint32_t r = nk_nand_bbt_reserved_blocks(array->chips[i]);
        if (r > reserved)
            reserved = r;
    }
    return reserved;
}

/* ----- program ---------------------------------------------------------------------- */

static int nk_array_program_end(struct nk_nand_array *array, unsigned c, uint32_t row)
{
    struct nk_nand *dev = array->chips[c];
    int err = nk_chip_program_end(&dev->chip, row);
    if (err == -NK_EIO)
        dev->stats.program_failures++;
    nk_array_take_diag(array, dev, err);
    return err;
}

static int nk_array_program_overlap(struct nk_nand_array *array, uint32_t first, uint32_t count,
                                    const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    uint32_t inflight[NK_NAND_ARRAY_MAX];
    bool busy[NK_NAND_ARRAY_MAX] = {false};
    const struct nk_nand *c0 = array->chips[0];
    int err = 0;
    for (uint32_t i = 0; i < count && !err; i++) {
        unsigned c;
        uint32_t cp;
        nk_nand_array_locate(array, first + i, &c, &cp);
        struct nk_nand *dev = array->chips[c];
        if (busy[c]) {
            busy[c] = false;
            err = nk_array_program_end(array, c, inflight[c]);
            if (err)
                break;
        }
        err = nk_nand_program_checks(dev, cp, mode);
        if (err) {
            nk_array_take_diag(array, dev, err);
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
    for (unsigned c = 0; c < array->count; c++) {
        if (!busy[c])
            continue;
        int e = nk_array_program_end(array, c, inflight[c]);
        if (!err)
            err = e;
    }
    return err;
}

int nk_nand_array_program_pages(struct nk_nand_array *array, uint32_t first_page, uint32_t count,
                                const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    int err = nk_array_range(array, first_page, count);
    if (err)
        return err;
    const struct nk_nand *c0 = array->chips[0];
    nk_array_lock(array, true);
    if (array->overlap && count > 1 && nk_array_simple_ecc(c0, mode)) {
        err = nk_array_program_overlap(array, first_page, count, data, oob, mode);
    } else {
        for (uint32_t i = 0; i < count && !err;) {
            unsigned c, c2;
            uint32_t cp, cp2, run = 1;
            nk_nand_array_locate(array, first_page + i, &c, &cp);
            while (i + run < count &&
                   !nk_nand_array_locate(array, first_page + i + run, &c2, &cp2) && c2 == c &&
                   cp2 == cp + run)
                run++;
            struct nk_nand *dev = array->chips[c];
            err = nk_nand_program_pages_unlocked(
                dev, cp, run, data ? data + (size_t)i * nk_nand_page_size(c0) : NULL,
                oob ? oob + (size_t)i * nk_nand_oob_stride(c0, mode) : NULL, mode);
            nk_array_take_diag(array, dev, err);
            i += run;
        }
    }
    nk_array_lock(array, false);
    return err;
}

/* ----- page move ------------------------------------------------------------------- */

int nk_nand_array_move_page(struct nk_nand_array *array, uint32_t from, uint32_t to)
{
    unsigned src_chip, dst_chip;
    uint32_t src_page, dst_page;
    if (nk_nand_array_locate(array, from, &src_chip, &src_page) ||
        nk_nand_array_locate(array, to, &dst_chip, &dst_page))
        return nk_diag_set(&array->diag, -NK_EINVAL,
                           "page move %u -> %u out of range: the array has %u pages", from, to,
                           nk_nand_array_pages(array));
    struct nk_nand *src = array->chips[src_chip], *dst = array->chips[dst_chip];
    if (src == dst) {
        int err = nk_nand_move_page(src, src_page, dst_page);
        array->last_bitflips = nk_nand_last_bitflips(src);
        nk_array_take_diag(array, src, err < 0 ? err : 0);
        return err;
    }
    /* Across chips: the data lands in the destination's page buffer and the
     * OOB in its ecc_read area, neither of which its program touches. */
    nk_array_lock(array, true);
    uint8_t *data = nk_nand_page_buf(dst), *oob = nk_nand_ecc_read(dst);
    int result = nk_nand_read_page_unlocked(src, src_page, data, oob, NK_OOB_PLACE);
    array->last_bitflips = src->last_bitflips;
    int err = result < 0 ? result : 0;
    if (err) {
        nk_array_take_diag(array, src, err);
    } else {
        err = nk_nand_program_page_unlocked(dst, dst_page, data, oob, NK_OOB_PLACE, 0);
        nk_array_take_diag(array, dst, err);
    }
    nk_array_lock(array, false);
    return err ? err : result;
}

/* ----- blocks ----------------------------------------------------------------------- */

/* Applies `op` (erase or mark bad) to logical block `block`: on the one
 * chip that holds it, or on every chip of a stripe (the first error wins). */
static int nk_array_block_op(struct nk_nand_array *array, uint32_t block,
                             int (*op)(struct nk_nand *dev, uint32_t block))
{
    if (block >= array->blocks)
        return nk_diag_set(&array->diag, -NK_EINVAL,
                           "block %u out of range: the array has %u blocks", block, array->blocks);
    uint32_t chip_blocks = nk_nand_blocks(array->chips[0]);
    if (array->mapping == NK_NAND_ARRAY_CONCAT) {
        struct nk_nand *dev = array->chips[block / chip_blocks];
        int err = op(dev, block % chip_blocks);
        nk_array_take_diag(array, dev, err);
        return err;
    }
    int result = 0;
    for (unsigned c = 0; c < array->count; c++) {
        int err = op(array->chips[c], block);
        if (err && !result) {
            result = err;
            nk_array_take_diag(array, array->chips[c], err);
        }
    }
    return result;
}

int nk_nand_array_erase_block(struct nk_nand_array *array, uint32_t block)
{
    return nk_array_block_op(array, block, nk_nand_erase_block);
}

int nk_nand_array_block_is_bad(struct nk_nand_array *array, uint32_t block)
{
    if (block >= array->blocks)
        return nk_diag_set(&array->diag, -NK_EINVAL,
                           "block %u out of range: the array has %u blocks", block, array->blocks);
    uint32_t chip_blocks = nk_nand_blocks(array->chips[0]);
    if (array->mapping == NK_NAND_ARRAY_CONCAT)
        return nk_nand_block_is_bad(array->chips[block / chip_blocks], block % chip_blocks);
    for (unsigned c = 0; c < array->count; c++) {
        int bad = nk_nand_block_is_bad(array->chips[c], block);
        if (bad)
            return bad;
    }
    return 0;
}

int nk_nand_array_block_mark_bad(struct nk_nand_array *array, uint32_t block)
{
    return nk_array_block_op(array, block, nk_nand_block_mark_bad);
}
