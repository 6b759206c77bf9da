/* SPDX-License-Identifier: MIT */
/*
 * Multi-page paths: sequential reads and programs of consecutive pages and
 * the page move of garbage collection, using the fastest sequence the chip
 * allows, with the single-page path's contracts.
 *
 *   reads    read cache (31h/3Fh) within each block when the chip has it and
 *            the ECC is software or none; continuous read over the whole
 *            range on a SPI-NAND part that has it (Winbond's BUF = 0) when
 *            only data is asked for with its on-die ECC; otherwise one page
 *            at a time.
 *   programs cache program (80h..15h, the last page of each block with
 *            10h) when the chip has it and the ECC is software or none;
 *            otherwise one page at a time.
 *   moves    copy-back (00h..35h, read-out and ECC check, 85h..10h) when the
 *            chip has it and source and destination share a plane (and
 *            parity where the chip asks); otherwise read + program.
 *
 * Bitflip contract: a multi-page read returns the worst page result (a hard
 * error first, then -NK_EBADMSG, then the largest count) and stops
 * at the first hard error; nk_nand_last_bitflips() is the largest count of
 * any page. Bad-block rules: every page is checked (range, read-only,
 * bad or reserved block) before it is sent, as on the single-page path.
 *
 * Power cuts during a cache program (docs/chip.md has the timeline): the
 * chip programs page N while page N+1 waits in the cache register, and a
 * 15h returns once page N has started. A cut therefore leaves every page
 * before the one in the array fully programmed, the page in the array
 * torn (partly programmed: it reads with bitflips or as uncorrectable), and
 * the page in the cache register and all later ones untouched (erased):
 * at most two pages of the call are lost, the two most recently sent,
 * where the single-page path loses at most one. When the call returns 0
 * every page is programmed.
 */
#include <string.h>

#include "nand/nand_internal.h"
#include "nandkit/error.h"
#include "nandkit/spinand.h"

/* ----- lock and clock ----------------------------------------------------------- */

static uint64_t nk_mp_begin(struct nk_nand *dev)
{
    if (dev->lock.lock)
        dev->lock.lock(dev->lock.ctx);
    return dev->clock.now_ns ? dev->clock.now_ns(dev->clock.ctx) : 0;
}

static int nk_mp_end(struct nk_nand *dev, uint64_t start_ns, int result)
{
    if (dev->clock.now_ns)
        dev->stats.busy_ns += dev->clock.now_ns(dev->clock.ctx) - start_ns;
    if (dev->lock.unlock)
        dev->lock.unlock(dev->lock.ctx);
    return result;
}

/* ----- shared pieces ---------------------------------------------------------------- */

uint32_t nk_nand_oob_stride(const struct nk_nand *dev, enum nk_oob_mode mode)
{
    return mode == NK_OOB_AUTO ? dev->free_bytes : nk_nand_oob_size(dev);
}

int nk_nand_worse_result(int a, int b)
{
    if (a < 0 && a != -NK_EBADMSG)
        return a;
    if (b < 0 && b != -NK_EBADMSG)
        return b;
    if (a == -NK_EBADMSG || b == -NK_EBADMSG)
        return -NK_EBADMSG;
    return a > b ? a : b;
}

static bool nk_mp_hard_error(int result)
{
    return result < 0 && result != -NK_EBADMSG;
}

/* The ECC the pipelined paths handle themselves: none, software, or raw
 * access. Controller engines and on-die ECC take the single-page path. */
static bool nk_mp_ecc_simple(const struct nk_nand *dev, enum nk_oob_mode mode)
{
    return mode == NK_OOB_RAW || dev->ecc.placement == NK_ECC_PLACEMENT_NONE ||
           dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE;
}

static uint8_t *nk_mp_data(const struct nk_nand *dev, uint8_t *data, uint32_t i)
{
    return data ? data + (size_t)i * nk_nand_page_size(dev) : NULL;
}

static uint8_t *nk_mp_oob(const struct nk_nand *dev, uint8_t *oob, uint32_t i,
                          enum nk_oob_mode mode)
{
    return oob ? oob + (size_t)i * nk_nand_oob_stride(dev, mode) : NULL;
}

int nk_nand_read_out(struct nk_nand *dev, uint8_t *data, uint8_t *oob, enum nk_oob_mode mode)
{
    const uint32_t page_size = nk_nand_page_size(dev), oob_size = nk_nand_oob_size(dev);
    uint8_t *scratch = nk_nand_page_buf(dev) + page_size;
    bool use_ecc = mode != NK_OOB_RAW && dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE;
    uint8_t *oob_target = mode == NK_OOB_RAW ? oob : scratch;
    bool want_oob = use_ecc || oob;
    dev->last_bitflips = 0;
    int err = nk_chip_read_data(&dev->chip, data, page_size);
    if (!err && want_oob)
        err = nk_chip_read_data(&dev->chip, oob_target, oob_size);
    if (err)
        return err;
    dev->stats.page_reads++;
    dev->stats.bytes_read += page_size + (want_oob ? oob_size : 0);
    int result = 0;
    if (use_ecc) {
        for (unsigned step = 0; step < dev->ecc_steps; step++)
            dev->ecc.ops->calculate(&dev->ecc, data + (size_t)step * dev->ecc.step_size,
                                    nk_nand_ecc_calc(dev) + step * dev->ecc.bytes_per_step);
        result = nk_ecc_correct_page(dev, data, scratch);
    }
    if (mode != NK_OOB_RAW)
        nk_oob_out(dev, scratch, oob, mode);
    return result;
}

const uint8_t *nk_nand_oob_image(struct nk_nand *dev, const uint8_t *data, const uint8_t *oob,
                                 enum nk_oob_mode mode)
{
    const uint32_t oob_size = nk_nand_oob_size(dev);
    uint8_t *scratch = nk_nand_page_buf(dev) + nk_nand_page_size(dev);
    bool use_ecc = mode != NK_OOB_RAW && data && dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE;
    if (mode == NK_OOB_RAW || (!oob && !use_ecc))
        return oob;
    if (mode == NK_OOB_AUTO) {
        memset(scratch, 0xff, oob_size);
        if (oob)
            nk_oob_free_set(&dev->layout, scratch, oob, 0, dev->free_bytes);
    } else if (oob) {
        if (oob != scratch)
            memcpy(scratch, oob, oob_size);
    } else {
        memset(scratch, 0xff, oob_size);
    }
    if (use_ecc) {
        for (unsigned step = 0; step < dev->ecc_steps; step++)
            dev->ecc.ops->calculate(&dev->ecc, data + (size_t)step * dev->ecc.step_size,
                                    nk_nand_ecc_calc(dev) + step * dev->ecc.bytes_per_step);
        nk_oob_ecc_set(&dev->layout, scratch, nk_nand_ecc_calc(dev), dev->ecc_total);
    }
    return scratch;
}

unsigned nk_nand_page_xfers(struct nk_nand *dev, const uint8_t *data, const uint8_t *oob_out,
                            struct nk_xfer x[2])
{
    unsigned count = 0;
    const uint32_t page_size = nk_nand_page_size(dev);
    if (data)
        x[count++] = (struct nk_xfer){0, page_size, (uint8_t *)data};
    if (oob_out)
        x[count++] = (struct nk_xfer){page_size, nk_nand_oob_size(dev), (uint8_t *)oob_out};
    return count;
}

int nk_nand_program_checks(struct nk_nand *dev, uint32_t page, enum nk_oob_mode mode)
{
    int err = nk_check_page(dev, page);
    if (!err)
        err = nk_check_mode(dev, mode);
    if (!err)
        err = nk_check_writable(dev, "program of page", page);
    if (!err)
        err = nk_check_not_bad(dev, page / nk_nand_pages_per_block(dev), "program", 0);
    return err;
}

/* A FAIL status of `page`: the single-page path's accounting. */
static int nk_mp_program_failed(struct nk_nand *dev, uint32_t page, uint8_t status)
{
    dev->stats.program_failures++;
    return nk_diag_set(&dev->diag, -NK_EIO, "program of page %u failed (status 0x%02x)", page,
                       status);
}

/* Waits until the array is idle (I/O5) after a cache program was cut short
 * by a failure, so the next command finds the chip idle: on the port's
 * clock when it has one; an R/B port without one counts polls at the
 * chip's cycle times. */
static int nk_mp_drain(struct nk_nand *dev)
{
    const struct nk_chip_timing *t = &dev->chip.info.timing;
    uint32_t tprog_max_ns = t->tPROG_max_ns ? t->tPROG_max_ns : 2000000u;
    const struct nk_ctrl *ctrl = dev->chip.ctrl;
    if (ctrl->ops->clock_ticks && ctrl->clock_mhz) {
        int err = nk_chip_wait_idle(&dev->chip, 2u * (tprog_max_ns / 1000u) + 2u);
        if (err)
            memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
        return err;
    }
    uint32_t poll_ns = (t->tWC_ns ? t->tWC_ns : 100u) + (t->tWHR_ns ? t->tWHR_ns : 120u) +
                       (t->tRC_ns ? t->tRC_ns : 100u);
    uint64_t limit = (uint64_t)tprog_max_ns * 2u / poll_ns + 2u;
    for (uint64_t n = 0; n < limit; n++) {
        uint8_t status;
        int err = nk_chip_read_status(&dev->chip, &status);
        if (err)
            return err;
        if ((status & NK_STATUS_ARRAY_READY) && (status & NK_STATUS_READY))
            return 0;
    }
    return nk_diag_set(&dev->diag, -NK_ETIMEDOUT, "array still busy after a cache program");
}

/* ----- reads ------------------------------------------------------------------------ */

/* Pages [first, first + count) of one block through the read cache. */
static int nk_mp_read_cache_run(struct nk_nand *dev, uint32_t first, uint32_t count, uint8_t *data,
                                uint8_t *oob, enum nk_oob_mode mode, unsigned *worst)
{
    int result = nk_chip_read_start(&dev->chip, first, 0);
    for (uint32_t i = 0; i < count && !nk_mp_hard_error(result); i++) {
        int err = nk_chip_read_cache_next(&dev->chip, i + 1 == count);
        if (err)
            return err;
        int r = nk_nand_read_out(dev, nk_mp_data(dev, data, i), nk_mp_oob(dev, oob, i, mode), mode);
        if (dev->last_bitflips > *worst)
            *worst = dev->last_bitflips;
        result = nk_nand_worse_result(result, r);
    }
    return result;
}

#ifndef NK_NO_SPINAND
/* Whether a read of `count` pages streams through the part's continuous
 * read: data only (the stream carries no OOB), the on-die ECC deciding. */
static bool nk_mp_continuous(const struct nk_nand *dev, uint32_t count, const uint8_t *data,
                             const uint8_t *oob, enum nk_oob_mode mode)
{
    const struct nk_spinand_part *part = nk_chip_spinand_part(&dev->chip);
    return count >= 2 && data && !oob && mode != NK_OOB_RAW && nk_chip_is_serial(&dev->chip) &&
           part && (part->flags & NK_SPINAND_CONTINUOUS) &&
           dev->ecc.placement == NK_ECC_PLACEMENT_ON_DIE;
}

/* Pages [first, first + count) in one continuous stream, with the
 * single-page path's accounting: a page read and its bytes per page, the
 * part's summed-up ECC outcome for the whole range. */
static int nk_mp_read_continuous(struct nk_nand *dev, uint32_t first, uint32_t count, uint8_t *data)
{
    int result = nk_spinand_read_continuous(&dev->chip, first, count, data);
    if (result < 0 && result != -NK_EBADMSG) {
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
        return result;
    }
    dev->stats.page_reads += count;
    dev->stats.bytes_read += (uint64_t)count * nk_nand_page_size(dev);
    if (result == -NK_EBADMSG) {
        dev->stats.ecc_failed_steps++;
        dev->stats.ecc_failed_pages++;
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
        dev->last_bitflips = 0;
        return result;
    }
    if (result > 0) {
        dev->stats.ecc_corrected_bits += (unsigned)result;
        dev->stats.ecc_corrected_steps++;
        if (dev->bitflip_threshold && (unsigned)result >= dev->bitflip_threshold)
            dev->stats.scrub_reports++;
    }
    dev->last_bitflips = (unsigned)result;
    return result;
}
#endif

int nk_nand_read_pages_unlocked(struct nk_nand *dev, uint32_t first_page, uint32_t count,
                                uint8_t *data, uint8_t *oob, enum nk_oob_mode mode)
{
    int result = 0;
    unsigned worst = 0;
    const uint32_t ppb = nk_nand_pages_per_block(dev);
    bool cache = data && (dev->chip.info.features & NK_CHIP_CACHE_READ) &&
                 !(dev->chip.info.features & NK_CHIP_SMALL_PAGE) && nk_mp_ecc_simple(dev, mode);
    int err = count ? nk_check_page(dev, first_page) : 0;
    if (!err && count)
        err = nk_check_page(dev, first_page + count - 1);
    if (!err && count && first_page + count - 1 < first_page)
        err = nk_diag_set(&dev->diag, -NK_EINVAL, "page range wraps around");
    if (!err)
        err = nk_check_mode(dev, mode);
    if (err)
        return err;
#ifndef NK_NO_SPINAND
    if (nk_mp_continuous(dev, count, data, oob, mode))
        return nk_mp_read_continuous(dev, first_page, count, data);
#endif
    for (uint32_t i = 0; i < count && !nk_mp_hard_error(result);) {
        uint32_t page = first_page + i;
        uint32_t run = ppb - page % ppb;
        if (run > count - i)
            run = count - i;
        int r;
        if (cache && run >= 2) {
            r = nk_mp_read_cache_run(dev, page, run, nk_mp_data(dev, data, i),
                                     nk_mp_oob(dev, oob, i, mode), mode, &worst);
        } else {
            run = 1;
            r = nk_nand_read_page_unlocked(dev, page, nk_mp_data(dev, data, i),
                                           nk_mp_oob(dev, oob, i, mode), mode);
            if (dev->last_bitflips > worst)
                worst = dev->last_bitflips;
        }
        result = nk_nand_worse_result(result, r);
        i += run;
    }
    dev->last_bitflips = worst;
    return result;
}

int nk_nand_read_pages(struct nk_nand *dev, uint32_t first_page, uint32_t count, uint8_t *data,
                       uint8_t *oob, enum nk_oob_mode mode)
{
    uint64_t start = nk_mp_begin(dev);
    return nk_mp_end(dev, start,
                     nk_nand_read_pages_unlocked(dev, first_page, count, data, oob, mode));
}

/* ----- programs --------------------------------------------------------------------- */

/* Pages [first, first + count) of one block through the cache program. */
static int nk_mp_program_cache_run(struct nk_nand *dev, uint32_t first, uint32_t count,
                                   const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    /* One block: its checks hold for every page of the run, and none is
     * sent when they fail. */
    int err = nk_nand_program_checks(dev, first, mode);
    if (!err)
        err = nk_nand_program_checks(dev, first + count - 1, mode);
    if (err)
        return err;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t page = first + i;
        bool last = i + 1 == count;
        const uint8_t *page_data = nk_mp_data(dev, (uint8_t *)data, i);
        const uint8_t *oob_out =
            nk_nand_oob_image(dev, page_data, nk_mp_oob(dev, (uint8_t *)oob, i, mode), mode);
        struct nk_xfer x[2];
        unsigned n = nk_nand_page_xfers(dev, page_data, oob_out, x);
        uint8_t status;
        dev->stats.page_programs++;
        err = nk_chip_program_cache(&dev->chip, page, x, n, last, &status);
        if (err)
            return err;
        dev->stats.bytes_written +=
            (page_data ? nk_nand_page_size(dev) : 0) + (oob_out ? nk_nand_oob_size(dev) : 0);
        if (!(status & NK_STATUS_WP_N))
            return nk_diag_set(&dev->diag, -NK_EROFS,
                               "program of page %u refused: chip is write protected", page);
        if (!last && i > 0 && (status & NK_STATUS_FAIL)) {
            int drain = nk_mp_drain(dev);
            return drain ? drain : nk_mp_program_failed(dev, page - 1, status);
        }
        if (last && (status & NK_STATUS_FAIL_N1) && i > 0)
            return nk_mp_program_failed(dev, page - 1, status);
        if (last && (status & NK_STATUS_FAIL))
            return nk_mp_program_failed(dev, page, status);
    }
    return 0;
}

int nk_nand_program_pages_unlocked(struct nk_nand *dev, uint32_t first_page, uint32_t count,
                                   const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    const uint32_t ppb = nk_nand_pages_per_block(dev);
    /* The whole range first: a call that cannot finish sends nothing. */
    int err = count ? nk_check_page(dev, first_page) : 0;
    if (!err && count)
        err = nk_check_page(dev, first_page + count - 1);
    if (!err && count && first_page + count - 1 < first_page)
        err = nk_diag_set(&dev->diag, -NK_EINVAL, "page range wraps around");
    if (err)
        return err;
    bool cache = (dev->chip.info.features & NK_CHIP_CACHE_PROGRAM) &&
                 !(dev->chip.info.features & NK_CHIP_SMALL_PAGE) && nk_mp_ecc_simple(dev, mode) &&
                 (data || oob);
    for (uint32_t i = 0; i < count;) {
        uint32_t page = first_page + i;
        uint32_t run = ppb ? ppb - page % ppb : 1;
        if (run > count - i)
            run = count - i;
        if (cache && run >= 2) {
            err = nk_mp_program_cache_run(dev, page, run, nk_mp_data(dev, (uint8_t *)data, i),
                                          nk_mp_oob(dev, (uint8_t *)oob, i, mode), mode);
        } else {
            run = 1;
            err = nk_nand_program_page_unlocked(dev, page, nk_mp_data(dev, (uint8_t *)data, i),
                                                nk_mp_oob(dev, (uint8_t *)oob, i, mode), mode, 0);
        }
        if (err)
            return err;
        i += run;
    }
    return 0;
}

int nk_nand_program_pages(struct nk_nand *dev, uint32_t first_page, uint32_t count,
                          const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode)
{
    uint64_t start = nk_mp_begin(dev);
    return nk_mp_end(dev, start,
                     nk_nand_program_pages_unlocked(dev, first_page, count, data, oob, mode));
}

/* ----- page move -------------------------------------------------------------------- */

bool nk_nand_can_copyback(const struct nk_nand *dev, uint32_t from, uint32_t to)
{
    const struct nk_chip_info *info = &dev->chip.info;
    if (!(info->features & NK_CHIP_COPYBACK) || (info->features & NK_CHIP_SMALL_PAGE))
        return false;
    if (dev->ecc.placement != NK_ECC_PLACEMENT_SOFTWARE &&
        dev->ecc.placement != NK_ECC_PLACEMENT_NONE)
        return false;
    unsigned planes = info->planes ? info->planes : 1u;
    uint32_t ppb = info->pages_per_block;
    if ((from / ppb) % planes != (to / ppb) % planes)
        return false;
    if ((info->features & NK_CHIP_COPYBACK_PARITY) && ((from ^ to) & 1u))
        return false;
    return true;
}

static int nk_mp_move_page(struct nk_nand *dev, uint32_t from, uint32_t to)
{
    int err = nk_check_page(dev, from);
    if (!err)
        err = nk_nand_program_checks(dev, to, NK_OOB_PLACE);
    if (err)
        return err;
    const uint32_t page_size = nk_nand_page_size(dev), oob_size = nk_nand_oob_size(dev);
    uint8_t *data = nk_nand_page_buf(dev), *scratch = nk_nand_page_buf(dev) + page_size;
    if (!nk_nand_can_copyback(dev, from, to)) {
        /* Read + program through the device's own buffers: the OOB moves to
         * ecc_read, which a program does not touch. */
        int result = nk_nand_read_page_unlocked(dev, from, data, scratch, NK_OOB_PLACE);
        if (result < 0)
            return result;
        unsigned bitflips = dev->last_bitflips;
        memcpy(nk_nand_ecc_read(dev), scratch, oob_size);
        err = nk_nand_program_page_unlocked(dev, to, data, nk_nand_ecc_read(dev), NK_OOB_PLACE, 0);
        dev->last_bitflips = bitflips;
        return err ? err : result;
    }
    err = nk_chip_copyback_read(&dev->chip, from, 0);
    if (err)
        return err;
    /* Read the page out so the ECC checks it before it is copied. */
    int result = nk_nand_read_out(dev, data, scratch, NK_OOB_PLACE);
    if (result < 0)
        return result;
    struct nk_xfer x[2];
    unsigned n = 0;
    if (dev->last_bitflips > 0) {
        /* Corrected: the register still holds the errors, send the fix. */
        const uint8_t *oob_out = nk_nand_oob_image(dev, data, scratch, NK_OOB_PLACE);
        n = nk_nand_page_xfers(dev, data, oob_out, x);
    }
    dev->stats.page_programs++;
    dev->stats.bytes_written += n ? page_size + oob_size : 0;
    err = nk_chip_copyback_program(&dev->chip, to, x, n);
    if (err == -NK_EIO) {
        dev->stats.program_failures++;
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
    }
    return err ? err : result;
}

int nk_nand_move_page(struct nk_nand *dev, uint32_t from, uint32_t to)
{
    uint64_t start = nk_mp_begin(dev);
    return nk_mp_end(dev, start, nk_mp_move_page(dev, from, to));
}

/* ----- copy-back with a new OOB ------------------------------------------------------- */

bool nk_nand_has_copyback(const struct nk_nand *dev)
{
    const struct nk_chip_info *info = &dev->chip.info;
    return (info->features & NK_CHIP_COPYBACK) && !(info->features & NK_CHIP_SMALL_PAGE) &&
           (dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE ||
            dev->ecc.placement == NK_ECC_PLACEMENT_NONE);
}

static int nk_mp_copyback_load(struct nk_nand *dev, uint32_t from, uint8_t *data, uint8_t *oob,
                               enum nk_oob_mode mode)
{
    if (!nk_nand_has_copyback(dev))
        return nk_diag_set(&dev->diag, -NK_ENOTSUP,
                           "no copy-back: the chip lacks it or the ECC is not software");
    int err = nk_check_page(dev, from);
    if (!err)
        err = nk_check_mode(dev, mode);
    if (!err && !data)
        err = nk_diag_set(&dev->diag, -NK_EINVAL, "a copy-back load reads the data out");
    if (err)
        return err;
    err = nk_chip_copyback_read(&dev->chip, from, 0);
    if (err)
        return err;
    return nk_nand_read_out(dev, data, oob, mode);
}

int nk_nand_copyback_load(struct nk_nand *dev, uint32_t from, uint8_t *data, uint8_t *oob,
                          enum nk_oob_mode mode)
{
    uint64_t start = nk_mp_begin(dev);
    return nk_mp_end(dev, start, nk_mp_copyback_load(dev, from, data, oob, mode));
}

static int nk_mp_copyback_program(struct nk_nand *dev, uint32_t from, uint32_t to,
                                  const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode,
                                  bool resend_data)
{
    int err = nk_check_page(dev, from);
    if (!err)
        err = nk_nand_program_checks(dev, to, mode);
    if (!err && !data)
        err = nk_diag_set(&dev->diag, -NK_EINVAL, "a copy-back program needs the page's data");
    if (!err && !nk_nand_can_copyback(dev, from, to))
        err = nk_diag_set(&dev->diag, -NK_EINVAL,
                          "copy-back from page %u to page %u not allowed (plane or parity)", from,
                          to);
    if (err)
        return err;
    const uint32_t page_size = nk_nand_page_size(dev), oob_size = nk_nand_oob_size(dev);
    /* The whole new OOB, its ECC bytes computed from the data: the same
     * bytes an ordinary program of this page would write. */
    const uint8_t *oob_out = nk_nand_oob_image(dev, data, oob, mode);
    struct nk_xfer x[2];
    unsigned n = 0;
    if (resend_data)
        x[n++] = (struct nk_xfer){0, page_size, (uint8_t *)data};
    if (oob_out)
        x[n++] = (struct nk_xfer){page_size, oob_size, (uint8_t *)oob_out};
    dev->stats.page_programs++;
    err = nk_chip_copyback_program(&dev->chip, to, x, n);
    if (!err || err == -NK_EIO)
        dev->stats.bytes_written += (resend_data ? page_size : 0) + (oob_out ? oob_size : 0);
    if (err == -NK_EIO) {
        dev->stats.program_failures++;
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
    }
    return err;
}

int nk_nand_copyback_program(struct nk_nand *dev, uint32_t from, uint32_t to, const uint8_t *data,
                             const uint8_t *oob, enum nk_oob_mode mode, bool resend_data)
{
    uint64_t start = nk_mp_begin(dev);
    return nk_mp_end(dev, start,
                     nk_mp_copyback_program(dev, from, to, data, oob, mode, resend_data));
}
