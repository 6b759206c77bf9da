/* SPDX-License-Identifier: MIT */
/*
 * Command sequences of raw NAND, expressed as instruction lists for the port.
 *
 * Large-page parts use 00h-addr-30h reads with 05h/E0h random data out and
 * 80h-addr-data-10h programs with 85h random data in. Small-page parts
 * (NK_CHIP_SMALL_PAGE) select the half or spare area with a pointer command
 * (00h/01h/50h), take one column cycle and need no read confirm.
 *
 * When the port has no R/B line the chip layer polls the status register
 * instead of emitting WAIT_READY, and after a read returns the chip to data
 * output with 00h.
 */
#include <string.h>

#include "chip/chip_internal.h"

#include "nandkit/error.h"

/* ONFI timing mode 0: safe before the part is known. */
static const struct nk_chip_timing nk_timing_mode0 = {
    .tR_ns = 25000,
    .tPROG_ns = 700000,
    .tBERS_ns = 3000000,
    .tCBSY_ns = 700000,
    .tRST_ns = 1000000,
    .tRC_ns = 100,
    .tWC_ns = 100,
    .tADL_ns = 200,
    .tWB_ns = 200,
    .tWHR_ns = 120,
    .tCCS_ns = 500,
    .tR_max_ns = 200000,
    .tPROG_max_ns = 2000000,
    .tBERS_max_ns = 10000000,
};

const struct nk_chip_timing *nk_chip_timing_defaults(void)
{
    return &nk_timing_mode0;
}

/* A timing value, falling back to mode 0 when the part does not say. */
#define NK_T(chip, field)                                                                          \
    ((chip)->info.timing.field ? (chip)->info.timing.field : nk_timing_mode0.field)

/* Change-column setup: legacy datasheets give no tCCS and ask for tWHR
 * between E0h and the first read cycle instead. */
static uint32_t nk_tccs(const struct nk_chip *chip)
{
    if (chip->info.timing.tCCS_ns)
        return chip->info.timing.tCCS_ns;
    return NK_T(chip, tWHR_ns);
}

/* Timeout for a busy period: the datasheet maximum, else 10x typical, in µs
 * (at least 1 ms so a slow port never trips on rounding). */
static uint32_t nk_timeout_us(uint32_t max_ns, uint32_t typ_ns)
{
    /* 32-bit arithmetic (no 64-bit division on a small core): 10x typical
     * in µs is typ_ns / 100; neither sum can pass UINT32_MAX. */
    return (max_ns ? max_ns / 1000u : typ_ns / 100u) + 1000u;
}

/* ----- instruction list builder ------------------------------------------- */

struct nk_oplist {
    struct nk_instr instrs[NK_MAX_INSTRS];
    unsigned count;
};

static void nk_op_add(struct nk_oplist *ops, struct nk_instr instr)
{
    ops->instrs[ops->count++] = instr;
}

static void nk_op_cmd(struct nk_oplist *ops, uint8_t cmd, uint32_t delay_ns)
{
    nk_op_add(ops, nk_instr_cmd(cmd, delay_ns));
}

static void nk_op_addr(struct nk_oplist *ops, const uint8_t *cycles, unsigned count,
                       uint32_t delay_ns)
{
    struct nk_instr *i = &ops->instrs[ops->count++];
    i->type = NK_INSTR_ADDR;
    i->delay_ns = delay_ns;
    memcpy(i->u.addr.cycles, cycles, count);
    i->u.addr.count = (uint8_t)count;
}

static int nk_op_exec(struct nk_chip *chip, const struct nk_oplist *ops)
{
    struct nk_op op = {ops->instrs, ops->count, chip->chip_select};
    return chip->ctrl->ops->exec_op(chip->ctrl->ctx, &op);
}

/* A short fixed sequence: only its own instructions on the stack, not a
 * whole list. */
static int nk_exec_list(struct nk_chip *chip, const struct nk_instr *instrs, unsigned count)
{
    struct nk_op op = {instrs, count, chip->chip_select};
    return chip->ctrl->ops->exec_op(chip->ctrl->ctx, &op);
}

static int nk_exec_one(struct nk_chip *chip, const struct nk_instr *instr)
{
    return nk_exec_list(chip, instr, 1);
}

static bool nk_has_rb(const struct nk_chip *chip)
{
    return (chip->ctrl->caps & NK_CTRL_CAP_RB_LINE) != 0;
}

static int nk_poll_ready(struct nk_chip *chip, uint32_t timeout_us, uint8_t *status)
{
    return nk_chip_poll(chip, timeout_us, NK_STATUS_READY, NK_STATUS_READY, status);
}

#ifndef NK_NO_MULTIPAGE
int nk_chip_wait_idle(struct nk_chip *chip, uint32_t timeout_us)
{
    uint8_t status;
    uint8_t idle = NK_STATUS_READY | NK_STATUS_ARRAY_READY;
    return nk_chip_poll(chip, timeout_us, idle, idle, &status);
}
#endif

/* Adds the wait for a busy period: WAIT_READY with an R/B line; otherwise
 * nothing (the caller polls after executing). */
static void nk_op_wait(struct nk_chip *chip, struct nk_oplist *ops, uint32_t timeout_us)
{
    if (nk_has_rb(chip))
        nk_op_add(ops, nk_instr_wait_ready(timeout_us));
}

/* Executes `ops` that end in a busy period, then (no R/B line) polls status.
 * `status` receives the status when it was read (polling), else 0xff. */
static int nk_exec_busy(struct nk_chip *chip, const struct nk_oplist *ops, uint32_t timeout_us,
                        uint8_t *status)
{
    int err = nk_op_exec(chip, ops);
    *status = 0xff;
    if (err == -NK_ETIMEDOUT)
        return nk_diag_set(&chip->diag, err, "chip still busy after %u us", timeout_us);
    if (err)
        return err;
    if (!nk_has_rb(chip))
        return nk_poll_ready(chip, timeout_us, status);
    return 0;
}

/* ----- addressing ------------------------------------------------------------ */

static bool nk_small_page(const struct nk_chip *chip)
{
    return (chip->info.features & NK_CHIP_SMALL_PAGE) != 0;
}

/* Column cycles then row cycles. Returns the cycle count. */
static unsigned nk_addr_cycles(const struct nk_chip *chip, uint32_t row, uint32_t column,
                               bool with_column, uint8_t *cycles)
{
    unsigned n = 0;
    if (with_column) {
        uint32_t col = column;
        if (chip->info.features & NK_CHIP_BUS16)
            col >>= 1;
        for (unsigned k = 0; k < chip->info.col_cycles; k++)
            cycles[n++] = (uint8_t)(col >> (8 * k));
    }
    for (unsigned k = 0; k < chip->info.row_cycles; k++)
        cycles[n++] = (uint8_t)(row >> (8 * k));
    return n;
}

/* Small page: the pointer command that selects `column`, and the column
 * byte within the selected area. */
static uint8_t nk_small_pointer(const struct nk_chip *chip, uint32_t column, uint32_t *in_area)
{
    uint32_t half = chip->info.page_size / 2;
    if (column >= chip->info.page_size) {
        *in_area = column - chip->info.page_size;
        return NK_CMD_READOOB;
    }
    if (chip->info.page_size > 256 && column >= half) {
        *in_area = column - half;
        return NK_CMD_READ1;
    }
    *in_area = column;
    return NK_CMD_READ0;
}

/* Adds a change-column sequence: `first` + column cycles (+ `last` when not
 * zero), with the delay the chip needs before the data that follows. */
static void nk_op_column(struct nk_chip *chip, struct nk_oplist *ops, uint8_t first, uint8_t last,
                         uint32_t column)
{
    uint8_t cycles[NK_MAX_ADDR_CYCLES];
    unsigned n = nk_addr_cycles(chip, 0, column, true, cycles) - chip->info.row_cycles;
    nk_op_cmd(ops, first, 0);
    if (last) {
        nk_op_addr(ops, cycles, n, 0);
        nk_op_cmd(ops, last, nk_tccs(chip));
    } else {
        nk_op_addr(ops, cycles, n, NK_T(chip, tADL_ns));
    }
}

/* ----- simple commands --------------------------------------------------------- */

int nk_chip_reset(struct nk_chip *chip)
{
    NK_SERIAL(chip, nk_spinand_reset(chip));
    struct nk_oplist ops = {.count = 0};
    uint32_t timeout = nk_timeout_us(0, NK_T(chip, tRST_ns));
    uint8_t status;
    nk_op_cmd(&ops, NK_CMD_RESET, NK_T(chip, tWB_ns));
    nk_op_wait(chip, &ops, timeout);
    return nk_exec_busy(chip, &ops, timeout, &status);
}

int nk_chip_read_id(struct nk_chip *chip, uint8_t address, uint8_t *buf, unsigned len)
{
    NK_SERIAL(chip, nk_spinand_read_id(chip, address, buf, len));
    struct nk_instr instrs[3] = {nk_instr_cmd(NK_CMD_READID, 0), nk_instr_cmd(0, 0),
                                 nk_instr_data_in(buf, len, 0)};
    instrs[1].type = NK_INSTR_ADDR;
    instrs[1].delay_ns = NK_T(chip, tWHR_ns);
    instrs[1].u.addr.cycles[0] = address;
    instrs[1].u.addr.count = 1;
    instrs[2].u.in.flags = NK_INSTR_FORCE_8BIT;
    return nk_exec_list(chip, instrs, 3);
}

/* Size knob NK_NO_PARAM_PAGES: READ PARAMETER PAGE and GET FEATURES serve only
 * the parameter-page identification (onfi.c, identify.c). */
#ifndef NK_NO_PARAM_PAGES
/* `cmd` + one address cycle, a busy period, then `len` bytes out: the shape
 * of READ PARAMETER PAGE and GET FEATURES. */
static int nk_chip_busy_read(struct nk_chip *chip, uint8_t cmd, uint8_t address,
                             uint32_t timeout_us, uint8_t *buf, uint32_t len)
{
    struct nk_oplist ops = {.count = 0};
    uint8_t status;
    nk_op_cmd(&ops, cmd, 0);
    nk_op_addr(&ops, &address, 1, NK_T(chip, tWB_ns));
    nk_op_wait(chip, &ops, timeout_us);
    int err = nk_exec_busy(chip, &ops, timeout_us, &status);
    if (err)
        return err;
    ops.count = 0;
    if (!nk_has_rb(chip))
        nk_op_cmd(&ops, NK_CMD_READ0, 0);
    struct nk_instr in = nk_instr_data_in(buf, len, 0);
    in.u.in.flags = NK_INSTR_FORCE_8BIT;
    nk_op_add(&ops, in);
    return nk_op_exec(chip, &ops);
}

int nk_chip_read_param(struct nk_chip *chip, uint8_t address, uint8_t *buf, uint32_t len)
{
    return nk_chip_busy_read(chip, NK_CMD_PARAM, address,
                             nk_timeout_us(NK_T(chip, tR_max_ns), NK_T(chip, tR_ns)), buf, len);
}

#endif

int nk_chip_read_status(struct nk_chip *chip, uint8_t *status)
{
    NK_SERIAL(chip, nk_spinand_read_status(chip, status));
    struct nk_instr instrs[2] = {nk_instr_cmd(NK_CMD_STATUS, NK_T(chip, tWHR_ns)),
                                 nk_instr_data_in(status, 1, 0)};
    instrs[1].u.in.flags = NK_INSTR_FORCE_8BIT;
    return nk_exec_list(chip, instrs, 2);
}

#ifndef NK_NO_PARAM_PAGES
int nk_chip_get_features(struct nk_chip *chip, uint8_t address, uint8_t params[4])
{
    return nk_chip_busy_read(chip, NK_CMD_GET_FEATURES, address,
                             nk_timeout_us(0, NK_T(chip, tR_ns)), params, 4);
}

#endif

int nk_chip_set_features(struct nk_chip *chip, uint8_t address, const uint8_t params[4])
{
    NK_SERIAL(chip, nk_spinand_set_feature(chip, address, params[0]));
    struct nk_oplist ops = {.count = 0};
    uint32_t timeout = nk_timeout_us(0, NK_T(chip, tR_ns));
    uint8_t status;
    nk_op_cmd(&ops, NK_CMD_SET_FEATURES, 0);
    nk_op_addr(&ops, &address, 1, NK_T(chip, tADL_ns));
    struct nk_instr out = nk_instr_data_out(params, 4, NK_T(chip, tWB_ns));
    out.u.out.flags = NK_INSTR_FORCE_8BIT;
    nk_op_add(&ops, out);
    nk_op_wait(chip, &ops, timeout);
    return nk_exec_busy(chip, &ops, timeout, &status);
}

/* ----- read ------------------------------------------------------------------ */

/* Small page: adds the pointer command that selects `column`'s area. Fills
 * `cycles` with the address of `row` and `column` (small page: the column
 * within the area) and returns the cycle count. */
static unsigned nk_op_pointer(struct nk_chip *chip, struct nk_oplist *ops, uint32_t row,
                              uint32_t column, uint8_t *cycles)
{
    if (nk_small_page(chip)) {
        uint32_t in_area;
        nk_op_cmd(ops, nk_small_pointer(chip, column, &in_area), 0);
        column = in_area;
    }
    return nk_addr_cycles(chip, row, column, true, cycles);
}

/* Adds the command and address cycles that load `row` and point at `column`
 * (small page: pointer + address; large page: 00h + address + 30h). */
static void nk_op_read_setup(struct nk_chip *chip, struct nk_oplist *ops, uint32_t row,
                             uint32_t column)
{
    uint8_t cycles[NK_MAX_ADDR_CYCLES];
    bool small = nk_small_page(chip);
    unsigned n = nk_op_pointer(chip, ops, row, column, cycles);
    if (!small)
        nk_op_cmd(ops, NK_CMD_READ0, 0);
    nk_op_addr(ops, cycles, n, small ? NK_T(chip, tWB_ns) : 0);
    if (!small)
        nk_op_cmd(ops, NK_CMD_READSTART, NK_T(chip, tWB_ns));
}

int nk_chip_read_start(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    NK_SERIAL(chip, nk_spinand_read_start(chip, row, column));
    struct nk_oplist ops = {.count = 0};
    uint32_t timeout = nk_timeout_us(NK_T(chip, tR_max_ns), NK_T(chip, tR_ns));
    uint8_t status;
    nk_op_read_setup(chip, &ops, row, column);
    nk_op_wait(chip, &ops, timeout);
    int err = nk_exec_busy(chip, &ops, timeout, &status);
    if (err || nk_has_rb(chip))
        return err;
    ops.count = 0;
    nk_op_cmd(&ops, NK_CMD_READ0, 0); /* leave status mode: data output again */
    return nk_op_exec(chip, &ops);
}

int nk_chip_read_data(struct nk_chip *chip, uint8_t *buf, uint32_t len)
{
    NK_SERIAL(chip, nk_spinand_read_data(chip, buf, len));
    struct nk_instr in = nk_instr_data_in(buf, len, 0);
    return nk_exec_one(chip, &in);
}

int nk_chip_read_resume(struct nk_chip *chip)
{
    NK_SERIAL(chip, 0);
    struct nk_instr cmd = nk_instr_cmd(NK_CMD_READ0, 0);
    return nk_exec_one(chip, &cmd);
}

/* A change-column alone: 05h..E0h (read) or 85h (program); `what` names it. */
static int nk_chip_column(struct nk_chip *chip, uint8_t first, uint8_t last, uint32_t column,
                          const char *what)
{
    if (nk_small_page(chip))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "small-page part has no random data %s", what);
    struct nk_oplist ops = {.count = 0};
    nk_op_column(chip, &ops, first, last, column);
    return nk_op_exec(chip, &ops);
}

int nk_chip_read_column(struct nk_chip *chip, uint32_t column)
{
    NK_SERIAL(chip, nk_spinand_read_column(chip, column));
    return nk_chip_column(chip, NK_CMD_RNDOUT, NK_CMD_RNDOUTSTART, column, "out (05h)");
}

int nk_chip_read_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                      unsigned count)
{
    NK_SERIAL(chip, nk_spinand_read_page(chip, row, xfers, count));
    if (count == 0)
        return 0;
    bool small = nk_small_page(chip);
    bool rb = nk_has_rb(chip);
    uint32_t timeout = nk_timeout_us(NK_T(chip, tR_max_ns), NK_T(chip, tR_ns));
    struct nk_oplist ops = {.count = 0};
    uint8_t status;

    nk_op_read_setup(chip, &ops, row, xfers[0].column);
    nk_op_wait(chip, &ops, timeout);
    if (!rb) {
        int err = nk_exec_busy(chip, &ops, timeout, &status);
        if (err)
            return err;
        ops.count = 0;
        nk_op_cmd(&ops, NK_CMD_READ0, 0);
    }

    uint32_t column = xfers[0].column;
    for (unsigned i = 0; i < count; i++) {
        const struct nk_xfer *x = &xfers[i];
        if (x->column != column) {
            if (small) {
                /* No random data out: reload the page at the new column. */
                int err = nk_op_exec(chip, &ops);
                if (err)
                    return err;
                return nk_chip_read_page(chip, row, x, count - i);
            }
            if (ops.count + 4 > NK_MAX_INSTRS) {
                int err = nk_op_exec(chip, &ops);
                if (err)
                    return err;
                ops.count = 0;
            }
            nk_op_column(chip, &ops, NK_CMD_RNDOUT, NK_CMD_RNDOUTSTART, x->column);
        }
        if (ops.count + 1 > NK_MAX_INSTRS) {
            int err = nk_op_exec(chip, &ops);
            if (err)
                return err;
            ops.count = 0;
        }
        nk_op_add(&ops, nk_instr_data_in(x->buf, x->len, 0));
        column = x->column + x->len;
    }
    int err = nk_op_exec(chip, &ops);
    if (err == -NK_ETIMEDOUT)
        return nk_diag_set(&chip->diag, err, "read of page %u: chip still busy after %u us", row,
                           timeout);
    return err;
}

/* ----- program ------------------------------------------------------------------ */

/* Adds 80h + address (small page: pointer command first). */
static void nk_op_program_setup(struct nk_chip *chip, struct nk_oplist *ops, uint32_t row,
                                uint32_t column)
{
    uint8_t cycles[NK_MAX_ADDR_CYCLES];
    unsigned n = nk_op_pointer(chip, ops, row, column, cycles);
    nk_op_cmd(ops, NK_CMD_SEQIN, 0);
    nk_op_addr(ops, cycles, n, NK_T(chip, tADL_ns));
}

static int nk_check_status(struct nk_chip *chip, uint8_t status, const char *what, uint32_t row)
{
    if (status & NK_STATUS_FAIL)
        return nk_diag_set(&chip->diag, -NK_EIO, "%s of page %u failed (status 0x%02x)", what, row,
                           status);
    if (!(status & NK_STATUS_WP_N))
        return nk_diag_set(&chip->diag, -NK_EROFS,
                           "%s of page %u refused: chip is write protected (status 0x%02x)", what,
                           row, status);
    return 0;
}

/* Waits (status polling or R/B) and checks the status of a program/erase. */
static int nk_finish_busy(struct nk_chip *chip, struct nk_oplist *ops, uint32_t timeout_us,
                          const char *what, uint32_t row)
{
    uint8_t status;
    int err = nk_exec_busy(chip, ops, timeout_us, &status);
    if (err)
        return err;
    if (nk_has_rb(chip)) {
        err = nk_chip_read_status(chip, &status);
        if (err)
            return err;
    }
    return nk_check_status(chip, status, what, row);
}

int nk_chip_program_start(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    NK_SERIAL(chip, nk_spinand_program_start(chip, row, column));
    struct nk_oplist ops = {.count = 0};
    nk_op_program_setup(chip, &ops, row, column);
    return nk_op_exec(chip, &ops);
}

int nk_chip_write_data(struct nk_chip *chip, const uint8_t *buf, uint32_t len)
{
    NK_SERIAL(chip, nk_spinand_write_data(chip, buf, len));
    struct nk_instr out = nk_instr_data_out(buf, len, 0);
    return nk_exec_one(chip, &out);
}

int nk_chip_write_column(struct nk_chip *chip, uint32_t column)
{
    NK_SERIAL(chip, nk_spinand_write_column(chip, column));
    return nk_chip_column(chip, NK_CMD_RNDIN, 0, column, "in (85h)");
}

static uint8_t nk_program_confirm(const struct nk_chip *chip, bool cache)
{
    return cache && (chip->info.features & NK_CHIP_CACHE_PROGRAM) ? NK_CMD_CACHEDPROG
                                                                  : NK_CMD_PAGEPROG;
}

static uint32_t nk_program_timeout(const struct nk_chip *chip)
{
    return nk_timeout_us(NK_T(chip, tPROG_max_ns), NK_T(chip, tPROG_ns));
}

int nk_chip_program_finish(struct nk_chip *chip, bool cache)
{
    NK_SERIAL(chip, nk_spinand_program_finish(chip));
    struct nk_oplist ops = {.count = 0};
    uint32_t timeout = nk_program_timeout(chip);
    nk_op_cmd(&ops, nk_program_confirm(chip, cache), NK_T(chip, tWB_ns));
    nk_op_wait(chip, &ops, timeout);
    return nk_finish_busy(chip, &ops, timeout, "program", 0);
}

int nk_chip_program_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                         unsigned count, bool cache)
{
    NK_SERIAL(chip, nk_spinand_program_page(chip, row, xfers, count));
    if (count == 0)
        return 0;
    bool small = nk_small_page(chip);
    uint32_t timeout = nk_program_timeout(chip);
    struct nk_oplist ops = {.count = 0};

    nk_op_program_setup(chip, &ops, row, xfers[0].column);
    uint32_t column = xfers[0].column;
    for (unsigned i = 0; i < count; i++) {
        const struct nk_xfer *x = &xfers[i];
        if (x->column != column) {
            if (small)
                return nk_diag_set(&chip->diag, -NK_ENOTSUP,
                                   "small-page program needs contiguous data (column %u after %u)",
                                   x->column, column);
            if (ops.count + 3 > NK_MAX_INSTRS) {
                int err = nk_op_exec(chip, &ops);
                if (err)
                    return err;
                ops.count = 0;
            }
            nk_op_column(chip, &ops, NK_CMD_RNDIN, 0, x->column);
        }
        if (ops.count + 3 > NK_MAX_INSTRS) {
            int err = nk_op_exec(chip, &ops);
            if (err)
                return err;
            ops.count = 0;
        }
        nk_op_add(&ops, nk_instr_data_out(x->buf, x->len, 0));
        column = x->column + x->len;
    }
    nk_op_cmd(&ops, nk_program_confirm(chip, cache), NK_T(chip, tWB_ns));
    nk_op_wait(chip, &ops, timeout);
    return nk_finish_busy(chip, &ops, timeout, "program", row);
}

/* ----- erase -------------------------------------------------------------------- */

int nk_chip_erase_block(struct nk_chip *chip, uint32_t row)
{
    NK_SERIAL(chip, nk_spinand_erase_block(chip, row));
    struct nk_oplist ops = {.count = 0};
    uint8_t cycles[NK_MAX_ADDR_CYCLES];
    uint32_t timeout = nk_timeout_us(NK_T(chip, tBERS_max_ns), NK_T(chip, tBERS_ns));
    unsigned n = nk_addr_cycles(chip, row, 0, false, cycles);
    nk_op_cmd(&ops, NK_CMD_ERASE1, 0);
    nk_op_addr(&ops, cycles, n, 0);
    nk_op_cmd(&ops, NK_CMD_ERASE2, NK_T(chip, tWB_ns));
    nk_op_wait(chip, &ops, timeout);
    int err = nk_finish_busy(chip, &ops, timeout, "erase", row);
    if (err == -NK_EIO)
        return nk_diag_set(&chip->diag, err, "erase of block %u failed",
                           row / (chip->info.pages_per_block ? chip->info.pages_per_block : 1));
    return err;
}

void nk_chip_attach(struct nk_chip *chip, const struct nk_ctrl *ctrl, unsigned chip_select,
                    const struct nk_chip_info *info)
{
    chip->ctrl = ctrl;
    chip->chip_select = chip_select;
    chip->info = *info;
    nk_diag_clear(&chip->diag);
#ifndef NK_NO_SPINAND
    memset(&chip->spi, 0, sizeof chip->spi);
    if (nk_chip_is_serial(chip))
        nk_spinand_attach(chip);
#endif
}

/* Size knob NK_NO_MULTIPAGE (docs/porting.md): the sequences below serve only
 * the multi-page paths, page moves and chip arrays. */
#ifndef NK_NO_MULTIPAGE
/* ----- pipelined sequences: cache program, read cache, copy-back, overlap ------------ */

/* Adds `setup` (80h, or 85h for copy-back) + full address, then the pieces
 * (85h + column between non-contiguous ones), then `confirm`; executes what
 * does not fit as it goes. The last batch is left in `ops`. */
static int nk_op_program_body(struct nk_chip *chip, struct nk_oplist *ops, uint8_t setup,
                              uint32_t row, const struct nk_xfer *xfers, unsigned count,
                              uint8_t confirm)
{
    uint8_t cycles[NK_MAX_ADDR_CYCLES];
    uint32_t column = count ? xfers[0].column : 0;
    unsigned n = nk_addr_cycles(chip, row, column, true, cycles);
    nk_op_cmd(ops, setup, 0);
    nk_op_addr(ops, cycles, n, count ? NK_T(chip, tADL_ns) : 0);
    for (unsigned i = 0; i < count; i++) {
        const struct nk_xfer *x = &xfers[i];
        if (ops->count + 4 > NK_MAX_INSTRS) {
            int err = nk_op_exec(chip, ops);
            if (err)
                return err;
            ops->count = 0;
        }
        if (x->column != column)
            nk_op_column(chip, ops, NK_CMD_RNDIN, 0, x->column);
        nk_op_add(ops, nk_instr_data_out(x->buf, x->len, 0));
        column = x->column + x->len;
    }
    if (ops->count + 2 > NK_MAX_INSTRS) {
        int err = nk_op_exec(chip, ops);
        if (err)
            return err;
        ops->count = 0;
    }
    nk_op_cmd(ops, confirm, NK_T(chip, tWB_ns));
    return 0;
}

static int nk_large_page_only(struct nk_chip *chip, const char *what)
{
    if (nk_small_page(chip))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "small-page part has no %s", what);
    return 0;
}

/* Waits for ready (R/B or polling) and reads the status. */
static int nk_wait_and_status(struct nk_chip *chip, struct nk_oplist *ops, uint32_t timeout_us,
                              uint8_t *status)
{
    nk_op_wait(chip, ops, timeout_us);
    int err = nk_exec_busy(chip, ops, timeout_us, status);
    if (!err && nk_has_rb(chip))
        err = nk_chip_read_status(chip, status);
    return err;
}

int nk_chip_program_cache(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                          unsigned count, bool last, uint8_t *status)
{
    int err = nk_large_page_only(chip, "cache program");
    if (err)
        return err;
    if (!(chip->info.features & NK_CHIP_CACHE_PROGRAM))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "chip has no cache program (15h)");
    struct nk_oplist ops = {.count = 0};
    uint8_t confirm = last ? NK_CMD_PAGEPROG : NK_CMD_CACHEDPROG;
    err = nk_op_program_body(chip, &ops, NK_CMD_SEQIN, row, xfers, count, confirm);
    if (err)
        return err;
    /* 15h waits for the cache register, which waits for the previous page:
     * bound it by tCBSY max, else by tPROG max. With 10h the chip is busy
     * until this page and the one before it are programmed. */
    uint32_t max =
        chip->info.timing.tCBSY_max_ns ? chip->info.timing.tCBSY_max_ns : NK_T(chip, tPROG_max_ns);
    uint32_t timeout =
        nk_timeout_us(last ? 2u * NK_T(chip, tPROG_max_ns) : max, NK_T(chip, tPROG_ns));
    return nk_wait_and_status(chip, &ops, timeout, status);
}

int nk_chip_program_begin(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                          unsigned count)
{
    NK_SERIAL(chip, nk_spinand_program_begin(chip, row, xfers, count));
    int err = nk_large_page_only(chip, "overlapped program");
    if (err)
        return err;
    struct nk_oplist ops = {.count = 0};
    err = nk_op_program_body(chip, &ops, NK_CMD_SEQIN, row, xfers, count, NK_CMD_PAGEPROG);
    return err ? err : nk_op_exec(chip, &ops);
}

int nk_chip_program_end(struct nk_chip *chip, uint32_t row)
{
    NK_SERIAL(chip, nk_spinand_program_end(chip, row));
    struct nk_oplist ops = {.count = 0};
    uint8_t status;
    int err = nk_wait_and_status(chip, &ops, nk_program_timeout(chip), &status);
    return err ? err : nk_check_status(chip, status, "program", row);
}

int nk_chip_read_begin(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    NK_SERIAL(chip, nk_spinand_read_begin(chip, row, column));
    int err = nk_large_page_only(chip, "overlapped read");
    if (err)
        return err;
    struct nk_oplist ops = {.count = 0};
    nk_op_read_setup(chip, &ops, row, column);
    return nk_op_exec(chip, &ops);
}

/* Waits for a page load and puts the chip back into data output. */
static int nk_read_wait_timeout(struct nk_chip *chip, uint32_t timeout_us)
{
    struct nk_oplist ops = {.count = 0};
    uint8_t status;
    nk_op_wait(chip, &ops, timeout_us);
    int err = nk_exec_busy(chip, &ops, timeout_us, &status);
    if (err || nk_has_rb(chip))
        return err;
    return nk_chip_read_resume(chip);
}

int nk_chip_read_wait(struct nk_chip *chip)
{
    NK_SERIAL(chip, nk_spinand_read_wait(chip));
    return nk_read_wait_timeout(chip, nk_timeout_us(NK_T(chip, tR_max_ns), NK_T(chip, tR_ns)));
}

int nk_chip_read_cache_next(struct nk_chip *chip, bool last)
{
    if (!(chip->info.features & NK_CHIP_CACHE_READ) || nk_small_page(chip))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "chip has no read cache (31h/3Fh)");
    struct nk_oplist ops = {.count = 0};
    nk_op_cmd(&ops, last ? NK_CMD_READCACHEEND : NK_CMD_READCACHESEQ, NK_T(chip, tWB_ns));
    /* The wait covers the load of the page behind it (tR) plus tRCBSY. */
    uint32_t max =
        chip->info.timing.tRCBSY_max_ns ? chip->info.timing.tRCBSY_max_ns : NK_T(chip, tR_max_ns);
    int err = nk_op_exec(chip, &ops);
    if (err)
        return err;
    return nk_read_wait_timeout(chip,
                                nk_timeout_us(max + NK_T(chip, tR_max_ns), NK_T(chip, tR_ns)));
}

int nk_chip_copyback_read(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    if (!(chip->info.features & NK_CHIP_COPYBACK) || nk_small_page(chip))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "chip has no copy-back (00h..35h)");
    struct nk_oplist ops = {.count = 0};
    uint8_t cycles[NK_MAX_ADDR_CYCLES];
    unsigned n = nk_addr_cycles(chip, row, column, true, cycles);
    nk_op_cmd(&ops, NK_CMD_READ0, 0);
    nk_op_addr(&ops, cycles, n, 0);
    nk_op_cmd(&ops, NK_CMD_COPYBACKREAD, NK_T(chip, tWB_ns));
    int err = nk_op_exec(chip, &ops);
    return err ? err : nk_chip_read_wait(chip);
}

int nk_chip_copyback_program(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                             unsigned count)
{
    if (!(chip->info.features & NK_CHIP_COPYBACK) || nk_small_page(chip))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "chip has no copy-back program (85h..10h)");
    struct nk_oplist ops = {.count = 0};
    int err = nk_op_program_body(chip, &ops, NK_CMD_RNDIN, row, xfers, count, NK_CMD_PAGEPROG);
    if (err)
        return err;
    nk_op_wait(chip, &ops, nk_program_timeout(chip));
    return nk_finish_busy(chip, &ops, nk_program_timeout(chip), "copy-back program", row);
}
#endif
