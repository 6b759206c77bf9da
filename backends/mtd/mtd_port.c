/* SPDX-License-Identifier: MIT */
/*
 * The MTD controller port: behaves like a large-page NAND chip on top of
 * the MTD ioctls.
 *
 * The chip layer's instruction lists are decoded into the commands they
 * carry. A page load (00h-addr-30h) only records the page: the first data
 * read after it fetches what is asked for in one ioctl (data and OOB
 * together, or the OOB alone), so an OOB-only read never makes the kernel
 * run its ECC over the data. A program collects DATA_OUT into the page
 * register from 80h on and writes what was filled (data, OOB or both) at
 * 10h with one MEMWRITE. An erase is one MEMERASE64.
 *
 * Results come back through the status register, as from a chip: FAIL for
 * a refused program or erase (the kernel's -EIO), WP# low when the kernel
 * refuses writing at all (read-only open), and after a page load in
 * kernel-ECC mode FAIL for an uncorrectable step and REWRITE when a step
 * needed `threshold` or more corrections.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mtd_internal.h"
#include "nandkit/chip.h"
#include "nandkit/error.h"

static uint8_t nk_mtd_status_idle(const struct nk_mtd *mtd)
{
    return (uint8_t)(NK_STATUS_READY | (mtd->read_only ? 0u : NK_STATUS_WP_N));
}

void nk_mtd_port_reset(struct nk_mtd *mtd)
{
    mtd->output = NK_MTD_OUT_DATA;
    mtd->pending = NK_MTD_PENDING_NONE;
    mtd->status = nk_mtd_status_idle(mtd);
    mtd->column = 0;
    mtd->row = 0;
    mtd->loaded = false;
    mtd->data_valid = false;
    mtd->oob_valid = false;
    mtd->programming = false;
}

static uint64_t nk_mtd_page_offset(const struct nk_mtd *mtd, uint32_t row)
{
    return (uint64_t)row * mtd->info.writesize;
}

static uint32_t nk_mtd_register_size(const struct nk_mtd *mtd)
{
    return mtd->info.writesize + mtd->info.oobsize;
}

/* ----- page load ----------------------------------------------------------------- */

/* Status after a load in kernel-ECC mode, from the kernel's figures. */
static void nk_mtd_load_status(struct nk_mtd *mtd)
{
    mtd->status = nk_mtd_status_idle(mtd);
    if (nk_mtd_transfers_raw(mtd))
        return;
    if (mtd->last.uncorrectable_errors)
        mtd->status |= NK_STATUS_FAIL;
    else if (mtd->last.max_bitflips && mtd->last.max_bitflips >= mtd->threshold)
        mtd->status |= NK_STATUS_REWRITE;
}

/* pread + MEMREADOOB64, with ECCGETSTATS around it in kernel-ECC mode. */
static int nk_mtd_fetch_page_legacy(struct nk_mtd *mtd)
{
    uint64_t offset = nk_mtd_page_offset(mtd, mtd->row);
    struct mtd_ecc_stats before, after;
    bool kernel_ecc = !nk_mtd_transfers_raw(mtd);
    if (kernel_ecc && ioctl(mtd->fd, ECCGETSTATS, &before) != 0)
        return nk_diag_set(&mtd->diag, -NK_EIO, "ECCGETSTATS: %s", strerror(errno));
    ssize_t got = pread(mtd->fd, mtd->reg, mtd->info.writesize, (off_t)offset);
    if (got != (ssize_t)mtd->info.writesize)
        return nk_diag_set(&mtd->diag, -NK_EIO, "read of page %u: %s", mtd->row,
                           got < 0 ? strerror(errno) : "short read");
    struct mtd_oob_buf64 oob = {.start = offset,
                                .length = mtd->info.oobsize,
                                .usr_ptr = (uint64_t)(uintptr_t)(mtd->reg + mtd->info.writesize)};
    if (ioctl(mtd->fd, MEMREADOOB64, &oob) != 0)
        return nk_diag_set(&mtd->diag, -NK_EIO, "MEMREADOOB64 of page %u: %s", mtd->row,
                           strerror(errno));
    if (kernel_ecc) {
        if (ioctl(mtd->fd, ECCGETSTATS, &after) != 0)
            return nk_diag_set(&mtd->diag, -NK_EIO, "ECCGETSTATS: %s", strerror(errno));
        mtd->last.corrected_bitflips = after.corrected - before.corrected;
        mtd->last.uncorrectable_errors = after.failed - before.failed;
        /* Only the page total is known: it bounds the largest step. */
        mtd->last.max_bitflips = mtd->last.corrected_bitflips;
    }
    return 0;
}

/* One MEMREAD of data and OOB; the kernel's figures come with it. */
static int nk_mtd_fetch_page(struct nk_mtd *mtd)
{
    memset(&mtd->last, 0, sizeof mtd->last);
    mtd->counters.page_loads++;
    int err;
    if (mtd->legacy_io) {
        err = nk_mtd_fetch_page_legacy(mtd);
    } else {
        struct mtd_read_req req;
        memset(&req, 0, sizeof req);
        req.start = nk_mtd_page_offset(mtd, mtd->row);
        req.len = mtd->info.writesize;
        req.ooblen = mtd->info.oobsize;
        req.usr_data = (uint64_t)(uintptr_t)mtd->reg;
        req.usr_oob = (uint64_t)(uintptr_t)(mtd->reg + mtd->info.writesize);
        req.mode = nk_mtd_transfers_raw(mtd) ? MTD_OPS_RAW : MTD_OPS_PLACE_OOB;
        err = 0;
        if (ioctl(mtd->fd, MEMREAD, &req) != 0) {
            if (errno == ENOTTY || errno == EOPNOTSUPP) {
                /* A kernel before 6.0: no MEMREAD. */
                mtd->legacy_io = true;
                err = nk_mtd_fetch_page_legacy(mtd);
            } else if (errno != EUCLEAN && errno != EBADMSG) {
                err = nk_diag_set(&mtd->diag, -NK_EIO, "MEMREAD of page %u: %s", mtd->row,
                                  strerror(errno));
            }
        }
        if (!err && !mtd->legacy_io) {
            mtd->last.corrected_bitflips = req.ecc_stats.corrected_bitflips;
            mtd->last.uncorrectable_errors = req.ecc_stats.uncorrectable_errors;
            mtd->last.max_bitflips = req.ecc_stats.max_bitflips;
        }
    }
    if (err) {
        mtd->counters.failed_ops++;
        return err;
    }
    mtd->data_valid = true;
    mtd->oob_valid = true;
    nk_mtd_load_status(mtd);
    return 0;
}

/* The OOB alone: no ECC runs over it (Linux layouts leave it uncovered). */
static int nk_mtd_fetch_oob(struct nk_mtd *mtd)
{
    memset(&mtd->last, 0, sizeof mtd->last);
    mtd->counters.oob_loads++;
    struct mtd_oob_buf64 oob = {.start = nk_mtd_page_offset(mtd, mtd->row),
                                .length = mtd->info.oobsize,
                                .usr_ptr = (uint64_t)(uintptr_t)(mtd->reg + mtd->info.writesize)};
    if (ioctl(mtd->fd, MEMREADOOB64, &oob) != 0) {
        mtd->counters.failed_ops++;
        return nk_diag_set(&mtd->diag, -NK_EIO, "MEMREADOOB64 of page %u: %s", mtd->row,
                           strerror(errno));
    }
    mtd->oob_valid = true;
    mtd->status = nk_mtd_status_idle(mtd);
    return 0;
}

/* ----- program and erase ---------------------------------------------------------- */

/* Status for a program/erase the kernel refused with `error`. */
static uint8_t nk_mtd_refused_status(const struct nk_mtd *mtd, int error)
{
    if (error == EPERM || error == EACCES || error == EROFS || error == EBADF)
        return NK_STATUS_READY; /* WP# low: "write protected" */
    return (uint8_t)(nk_mtd_status_idle(mtd) | NK_STATUS_FAIL);
}

static void nk_mtd_program(struct nk_mtd *mtd)
{
    uint32_t page = mtd->info.writesize;
    bool data = mtd->touched_lo < page;
    bool oob = mtd->touched_hi > page;
    mtd->programming = false;
    mtd->loaded = false;
    mtd->data_valid = false;
    mtd->oob_valid = false;
    if (mtd->read_only) {
        mtd->status = nk_mtd_refused_status(mtd, EROFS);
        return;
    }
    mtd->status = nk_mtd_status_idle(mtd);
    if (!data && !oob)
        return; /* nothing was transferred: the array is left alone */
    struct mtd_write_req req;
    memset(&req, 0, sizeof req);
    req.start = nk_mtd_page_offset(mtd, mtd->row);
    if (data) {
        req.len = page;
        req.usr_data = (uint64_t)(uintptr_t)mtd->reg;
    }
    if (oob) {
        req.ooblen = mtd->info.oobsize;
        req.usr_oob = (uint64_t)(uintptr_t)(mtd->reg + page);
    }
    req.mode = nk_mtd_transfers_raw(mtd) ? MTD_OPS_RAW : MTD_OPS_PLACE_OOB;
    mtd->counters.programs++;
    if (ioctl(mtd->fd, MEMWRITE, &req) != 0) {
        int error = errno;
        mtd->counters.failed_ops++;
        mtd->status = nk_mtd_refused_status(mtd, error);
        nk_diag_set(&mtd->diag, -NK_EIO, "MEMWRITE of page %u: %s", mtd->row, strerror(error));
    }
}

static void nk_mtd_erase(struct nk_mtd *mtd)
{
    uint32_t block = mtd->row / mtd->chip.pages_per_block;
    mtd->loaded = false;
    mtd->data_valid = false;
    mtd->oob_valid = false;
    if (mtd->read_only) {
        mtd->status = nk_mtd_refused_status(mtd, EROFS);
        return;
    }
    mtd->status = nk_mtd_status_idle(mtd);
    struct erase_info_user64 erase = {.start = (uint64_t)block * mtd->info.erasesize,
                                      .length = mtd->info.erasesize};
    mtd->counters.erases++;
    if (ioctl(mtd->fd, MEMERASE64, &erase) != 0) {
        int error = errno;
        mtd->counters.failed_ops++;
        mtd->status = nk_mtd_refused_status(mtd, error);
        nk_diag_set(&mtd->diag, -NK_EIO, "MEMERASE64 of block %u: %s", block, strerror(error));
    }
}

/* ----- instruction decoding --------------------------------------------------------- */

static void nk_mtd_command(struct nk_mtd *mtd, uint8_t cmd)
{
    switch (cmd) {
    case NK_CMD_READ0:
        /* Starts a read, or (after a status read) returns to data output. */
        mtd->pending = NK_MTD_PENDING_READ;
        mtd->output = NK_MTD_OUT_DATA;
        break;
    case NK_CMD_READSTART:
        if (mtd->pending == NK_MTD_PENDING_READ) {
            mtd->loaded = true;
            mtd->data_valid = false;
            mtd->oob_valid = false;
            mtd->programming = false;
            mtd->status = nk_mtd_status_idle(mtd);
            memset(&mtd->last, 0, sizeof mtd->last);
        }
        mtd->pending = NK_MTD_PENDING_NONE;
        mtd->output = NK_MTD_OUT_DATA;
        break;
    case NK_CMD_RNDOUT:
        mtd->pending = NK_MTD_PENDING_READ_COL;
        break;
    case NK_CMD_RNDOUTSTART:
        mtd->pending = NK_MTD_PENDING_NONE;
        mtd->output = NK_MTD_OUT_DATA;
        break;
    case NK_CMD_SEQIN:
        mtd->pending = NK_MTD_PENDING_PROGRAM;
        mtd->programming = true;
        mtd->loaded = false;
        mtd->data_valid = false;
        mtd->oob_valid = false;
        mtd->touched_lo = UINT32_MAX;
        mtd->touched_hi = 0;
        memset(mtd->reg, 0xff, nk_mtd_register_size(mtd));
        break;
    case NK_CMD_RNDIN:
        mtd->pending = NK_MTD_PENDING_WRITE_COL;
        break;
    case NK_CMD_PAGEPROG:
    case NK_CMD_CACHEDPROG:
        if (mtd->programming)
            nk_mtd_program(mtd);
        mtd->pending = NK_MTD_PENDING_NONE;
        break;
    case NK_CMD_ERASE1:
        mtd->pending = NK_MTD_PENDING_ERASE;
        break;
    case NK_CMD_ERASE2:
        if (mtd->pending == NK_MTD_PENDING_ERASE)
            nk_mtd_erase(mtd);
        mtd->pending = NK_MTD_PENDING_NONE;
        break;
    case NK_CMD_STATUS:
        mtd->output = NK_MTD_OUT_STATUS;
        break;
    case NK_CMD_RESET:
        nk_mtd_port_reset(mtd);
        break;
    case NK_CMD_READID:
    case NK_CMD_PARAM:
    case NK_CMD_GET_FEATURES:
        /* No ID, no parameter page, no features behind an MTD device. */
        mtd->pending = NK_MTD_PENDING_OTHER;
        mtd->output = NK_MTD_OUT_ZEROES;
        break;
    case NK_CMD_SET_FEATURES:
        mtd->pending = NK_MTD_PENDING_OTHER;
        mtd->programming = false; /* its parameter bytes are not page data */
        break;
    default:
        /* A chip ignores commands it does not know. */
        mtd->pending = NK_MTD_PENDING_NONE;
        break;
    }
}

static uint32_t nk_mtd_le(const uint8_t *cycles, unsigned count)
{
    uint32_t value = 0;
    for (unsigned k = 0; k < count && k < 4; k++)
        value |= (uint32_t)cycles[k] << (8 * k);
    return value;
}

static void nk_mtd_address(struct nk_mtd *mtd, const uint8_t *cycles, unsigned count)
{
    unsigned col = mtd->chip.col_cycles;
    switch (mtd->pending) {
    case NK_MTD_PENDING_READ:
    case NK_MTD_PENDING_PROGRAM:
        mtd->column = nk_mtd_le(cycles, count < col ? count : col);
        mtd->row = count > col ? nk_mtd_le(cycles + col, count - col) : 0;
        break;
    case NK_MTD_PENDING_READ_COL:
    case NK_MTD_PENDING_WRITE_COL:
        mtd->column = nk_mtd_le(cycles, count);
        break;
    case NK_MTD_PENDING_ERASE:
        mtd->row = nk_mtd_le(cycles, count);
        break;
    default:
        break;
    }
}

static int nk_mtd_data_in(struct nk_mtd *mtd, uint8_t *buf, uint32_t len)
{
    if (mtd->output == NK_MTD_OUT_STATUS) {
        memset(buf, mtd->status, len);
        return 0;
    }
    if (mtd->output == NK_MTD_OUT_ZEROES) {
        memset(buf, 0, len);
        return 0;
    }
    uint32_t size = nk_mtd_register_size(mtd);
    if (mtd->loaded && len) {
        int err = 0;
        if (mtd->column < mtd->info.writesize && !mtd->data_valid)
            err = nk_mtd_fetch_page(mtd);
        else if (mtd->column >= mtd->info.writesize && !mtd->oob_valid)
            err = nk_mtd_fetch_oob(mtd);
        if (err)
            return err;
    }
    /* Past the end of the register a chip returns junk; 0xFF here. */
    uint32_t inside = mtd->column < size ? size - mtd->column : 0;
    uint32_t n = len < inside ? len : inside;
    if (n)
        memcpy(buf, mtd->reg + mtd->column, n);
    if (n < len)
        memset(buf + n, 0xff, len - n);
    mtd->column += len;
    return 0;
}

static void nk_mtd_data_out(struct nk_mtd *mtd, const uint8_t *buf, uint32_t len)
{
    if (!mtd->programming)
        return; /* SET FEATURES parameters and the like */
    uint32_t size = nk_mtd_register_size(mtd);
    uint32_t inside = mtd->column < size ? size - mtd->column : 0;
    uint32_t n = len < inside ? len : inside;
    if (n) {
        memcpy(mtd->reg + mtd->column, buf, n);
        if (mtd->column < mtd->touched_lo)
            mtd->touched_lo = mtd->column;
        if (mtd->column + n > mtd->touched_hi)
            mtd->touched_hi = mtd->column + n;
    }
    mtd->column += len;
}

static int nk_mtd_exec_op(void *ctx, const struct nk_op *op)
{
    struct nk_mtd *mtd = ctx;
    if (op->chip_select != 0)
        return nk_diag_set(&mtd->diag, -NK_EIO, "an MTD device has one chip select, not %u",
                           op->chip_select);
    for (unsigned i = 0; i < op->count; i++) {
        const struct nk_instr *instr = &op->instrs[i];
        switch (instr->type) {
        case NK_INSTR_CMD:
            nk_mtd_command(mtd, instr->u.cmd);
            break;
        case NK_INSTR_ADDR:
            nk_mtd_address(mtd, instr->u.addr.cycles, instr->u.addr.count);
            break;
        case NK_INSTR_DATA_IN: {
            int err = nk_mtd_data_in(mtd, instr->u.in.buf, instr->u.in.len);
            if (err)
                return err;
            break;
        }
        case NK_INSTR_DATA_OUT:
            nk_mtd_data_out(mtd, instr->u.out.buf, instr->u.out.len);
            break;
        case NK_INSTR_WAIT_READY:
            break; /* every ioctl has completed when it returns */
        }
    }
    return 0;
}

const struct nk_ctrl_ops nk_mtd_ctrl_ops = {
    .exec_op = nk_mtd_exec_op,
};
