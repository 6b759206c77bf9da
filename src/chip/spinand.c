/* SPDX-License-Identifier: MIT */
/*
 * SPI-NAND command sequences as serial operations (nandkit/spi.h).
 *
 * A page read is PAGE READ (13h) + status polling until OIP clears, then
 * READ FROM CACHE at each piece's column. A program is WRITE ENABLE, then
 * PROGRAM LOAD (which sets the whole cache register to FFh) for the first
 * piece and RANDOM LOAD for the others, then PROGRAM EXECUTE (10h) and the
 * polling; P_FAIL is -NK_EIO. An erase is WRITE ENABLE, BLOCK ERASE (D8h),
 * polling; E_FAIL is -NK_EIO. On 2-plane parts the column address carries
 * the plane of the block (the bit above the page's column bits).
 *
 * The chip layer's public functions (commands.c) come here when the chip
 * sits on a serial port.
 */
#include <string.h>

#include "chip/chip_internal.h"
#include "nandkit/error.h"
#include "nandkit/spinand.h"

static void nk_spi_op_init(struct nk_spi_op *op, const struct nk_chip *chip, uint8_t opcode)
{
    memset(op, 0, sizeof *op);
    op->cmd.opcode = opcode;
    op->cmd.width = 1;
    op->chip_select = chip->chip_select;
    const struct nk_spinand_part *part = chip->spi.part;
    op->max_hz = part ? part->max_hz : 0;
}

static void nk_spi_op_addr(struct nk_spi_op *op, uint8_t bytes, uint32_t value, uint8_t width)
{
    op->addr.bytes = bytes;
    op->addr.value = value;
    op->addr.width = width;
}

static int nk_spinand_exec(struct nk_chip *chip, const struct nk_spi_op *op)
{
    return chip->ctrl->ops->exec_spi(chip->ctrl->ctx, op);
}

static int nk_spinand_simple(struct nk_chip *chip, uint8_t opcode)
{
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, opcode);
    return nk_spinand_exec(chip, &op);
}

int nk_spinand_get_feature(struct nk_chip *chip, uint8_t address, uint8_t *value)
{
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_GET_FEATURE);
    nk_spi_op_addr(&op, 1, address, 1);
    op.data.dir = NK_SPI_DATA_IN;
    op.data.width = 1;
    op.data.len = 1;
    op.data.in = value;
    return nk_spinand_exec(chip, &op);
}

int nk_spinand_set_feature(struct nk_chip *chip, uint8_t address, uint8_t value)
{
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_SET_FEATURE);
    nk_spi_op_addr(&op, 1, address, 1);
    op.data.dir = NK_SPI_DATA_OUT;
    op.data.width = 1;
    op.data.len = 1;
    op.data.out = &value;
    return nk_spinand_exec(chip, &op);
}

/* Polls the status until OIP clears; the last status goes to chip->spi.status. */
static int nk_spinand_wait(struct nk_chip *chip, uint32_t timeout_ns)
{
    uint32_t timeout_us = timeout_ns / 1000u + 1000u;
    uint8_t status = NK_SPINAND_STATUS_OIP;
    const struct nk_ctrl_ops *ops = chip->ctrl->ops;
    int err;
    if (ops->poll_spi) {
        struct nk_spi_poll poll;
        nk_spi_op_init(&poll.op, chip, NK_SPINAND_GET_FEATURE);
        nk_spi_op_addr(&poll.op, 1, NK_SPINAND_FEATURE_STATUS, 1);
        poll.op.data.dir = NK_SPI_DATA_IN;
        poll.op.data.width = 1;
        poll.op.data.len = 1;
        poll.op.data.in = &status;
        poll.mask = NK_SPINAND_STATUS_OIP;
        poll.match = 0;
        poll.timeout_us = timeout_us;
        err = ops->poll_spi(chip->ctrl->ctx, &poll, &status);
    } else {
        err = nk_chip_poll(chip, timeout_us, NK_SPINAND_STATUS_OIP, 0, &status);
    }
    chip->spi.status = status;
    if (err == -NK_ETIMEDOUT)
        return nk_diag_set(&chip->diag, err, "SPI-NAND still busy (status %02x) after %u us",
                           status, timeout_us);
    return err;
}

/* Column address of `column` in the page `row`: on 2-plane parts with the
 * plane bit of the block above the column bits. */
static uint32_t nk_spinand_column(const struct nk_chip *chip, uint32_t row, uint32_t column)
{
    const struct nk_chip_info *info = &chip->info;
    if (info->planes > 1 && info->pages_per_block) {
        uint32_t plane = (row / info->pages_per_block) % info->planes;
        column |= plane << (nk_chip_log2(info->page_size) + 1u);
    }
    return column;
}

/* ----- reset, ID, init ------------------------------------------------------- */

static int nk_spinand_prepare(struct nk_chip *chip)
{
    const struct nk_spinand_part *part = chip->spi.part;
    int err = nk_spinand_set_feature(chip, NK_SPINAND_FEATURE_PROTECT, 0x00);
    if (err || !part)
        return err;
    uint8_t config;
    err = nk_spinand_get_feature(chip, NK_SPINAND_FEATURE_CONFIG, &config);
    if (err)
        return err;
    uint8_t want = config;
    if (part->flags & NK_SPINAND_CONTINUOUS)
        want |= NK_SPINAND_CONFIG_BUF; /* page-at-a-time reads */
    if (part->flags & NK_SPINAND_QE_BIT) {
        if (chip->spi.read_width == 4 || chip->spi.write_width == 4)
            want |= NK_SPINAND_CONFIG_QE;
        else
            want &= (uint8_t)~NK_SPINAND_CONFIG_QE;
    }
    return want == config ? 0 : nk_spinand_set_feature(chip, NK_SPINAND_FEATURE_CONFIG, want);
}

int nk_spinand_reset(struct nk_chip *chip)
{
    int err = nk_spinand_simple(chip, NK_SPINAND_RESET);
    if (!err)
        err = nk_spinand_wait(chip, chip->info.timing.tRST_ns ? chip->info.timing.tRST_ns
                                                              : 1250u * 1000u);
    if (!err)
        err = nk_spinand_prepare(chip);
    return err;
}

int nk_spinand_read_id(struct nk_chip *chip, uint8_t address, uint8_t *buf, unsigned len)
{
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_READ_ID);
    nk_spi_op_addr(&op, 1, address, 1);
    op.data.dir = NK_SPI_DATA_IN;
    op.data.width = 1;
    op.data.len = len;
    op.data.in = buf;
    return nk_spinand_exec(chip, &op);
}

/* The widest data width both the port and the part support. */
static unsigned nk_spinand_widest(const struct nk_chip *chip)
{
    uint8_t widths = chip->ctrl->spi.widths ? chip->ctrl->spi.widths : NK_SPI_WIDTH_1;
    if (widths & NK_SPI_WIDTH_4)
        return 4;
    return widths & NK_SPI_WIDTH_2 ? 2 : 1;
}

/* Sets the read width and the load width that goes with it (4 lines when
 * the part has x4 program loads, else 1). */
static void nk_spinand_widths(struct nk_chip *chip, unsigned width)
{
    const struct nk_spinand_part *part = chip->spi.part;
    bool x4_load = width == 4 && !(part && (part->flags & NK_SPINAND_X1_LOAD));
    chip->spi.read_width = (uint8_t)width;
    chip->spi.write_width = (uint8_t)(x4_load ? 4 : 1);
}

static void nk_spinand_bind(struct nk_chip *chip, const struct nk_spinand_part *part)
{
    memset(&chip->spi, 0, sizeof chip->spi);
    chip->spi.part = part;
    nk_spinand_widths(chip, nk_spinand_widest(chip));
}

void nk_spinand_attach(struct nk_chip *chip)
{
    nk_spinand_bind(chip,
                    nk_spinand_lookup_id(chip->info.id, chip->info.id_len, NK_SPINAND_ID_DUMMY));
}

int nk_spinand_identify(struct nk_chip *chip)
{
    memset(&chip->spi, 0, sizeof chip->spi);
    if (!chip->ctrl->ops->exec_spi)
        return nk_diag_set(&chip->diag, -NK_EINVAL, "serial port has no exec_spi");
    chip->info.timing.tRST_ns = 1250u * 1000u; /* the slowest part here */
    int err = nk_spinand_simple(chip, NK_SPINAND_RESET);
    if (!err)
        err = nk_spinand_wait(chip, chip->info.timing.tRST_ns);
    uint8_t id[4], again[4];
    if (!err)
        err = nk_spinand_read_id(chip, 0x00, id, sizeof id);
    if (!err)
        err = nk_spinand_read_id(chip, 0x00, again, sizeof again);
    if (err)
        return err;
    if (memcmp(id, again, sizeof id) != 0)
        return nk_diag_set(&chip->diag, -NK_EIO,
                           "SPI-NAND READ ID unstable: %02x %02x then %02x %02x (check the bus)",
                           id[0], id[1], again[0], again[1]);
    const struct nk_spinand_part *part = nk_spinand_lookup_id(id, sizeof id, NK_SPINAND_ID_DUMMY);
    if (!part) {
        uint8_t raw[4];
        struct nk_spi_op op;
        nk_spi_op_init(&op, chip, NK_SPINAND_READ_ID);
        op.data.dir = NK_SPI_DATA_IN;
        op.data.width = 1;
        op.data.len = sizeof raw;
        op.data.in = raw;
        err = nk_spinand_exec(chip, &op);
        if (err)
            return err;
        part = nk_spinand_lookup_id(raw, sizeof raw, NK_SPINAND_ID_OPCODE);
    }
    if (!part)
        return nk_diag_set(&chip->diag, -NK_ENODEV,
                           "unknown SPI-NAND: READ ID answers %02x %02x %02x %02x", id[0], id[1],
                           id[2], id[3]);
    chip->info = part->info;
    nk_spinand_bind(chip, part);
    return nk_spinand_prepare(chip);
}

int nk_spinand_set_bus_width(struct nk_chip *chip, unsigned width)
{
    if (width != 1 && width != 2 && width != 4)
        return nk_diag_set(&chip->diag, -NK_EINVAL, "bus width %u: 1, 2 or 4 lines", width);
    uint8_t widths = chip->ctrl->spi.widths ? chip->ctrl->spi.widths : NK_SPI_WIDTH_1;
    if (!(widths & (uint8_t)width))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "the port has no %u-line transfers", width);
    nk_spinand_widths(chip, width);
    return nk_spinand_prepare(chip);
}

int nk_spinand_ecc_enable(struct nk_chip *chip, bool on)
{
    uint8_t config;
    int err = nk_spinand_get_feature(chip, NK_SPINAND_FEATURE_CONFIG, &config);
    if (err)
        return err;
    uint8_t want = on ? (uint8_t)(config | NK_SPINAND_CONFIG_ECC_EN)
                      : (uint8_t)(config & ~NK_SPINAND_CONFIG_ECC_EN);
    return want == config ? 0 : nk_spinand_set_feature(chip, NK_SPINAND_FEATURE_CONFIG, want);
}

int nk_spinand_read_status(struct nk_chip *chip, uint8_t *status)
{
    uint8_t s;
    int err = nk_spinand_get_feature(chip, NK_SPINAND_FEATURE_STATUS, &s);
    if (err)
        return err;
    /* In the parallel status's terms, for callers that only look there. */
    *status = NK_STATUS_WP_N;
    if (!(s & NK_SPINAND_STATUS_OIP))
        *status |= NK_STATUS_READY | NK_STATUS_ARRAY_READY;
    if (s & (NK_SPINAND_STATUS_E_FAIL | NK_SPINAND_STATUS_P_FAIL))
        *status |= NK_STATUS_FAIL;
    return 0;
}

/* ----- read ------------------------------------------------------------------ */

int nk_spinand_read_begin(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_PAGE_READ);
    nk_spi_op_addr(&op, 3, row, 1);
    chip->spi.row = row;
    chip->spi.column = column;
    return nk_spinand_exec(chip, &op);
}

int nk_spinand_read_wait(struct nk_chip *chip)
{
    const struct nk_chip_timing *t = &chip->info.timing;
    return nk_spinand_wait(chip, t->tR_max_ns ? t->tR_max_ns : t->tR_ns);
}

int nk_spinand_read_start(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    int err = nk_spinand_read_begin(chip, row, column);
    return err ? err : nk_spinand_read_wait(chip);
}

int nk_spinand_read_data(struct nk_chip *chip, uint8_t *buf, uint32_t len)
{
    const struct nk_spinand_part *part = chip->spi.part;
    unsigned width = chip->spi.read_width ? chip->spi.read_width : 1;
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_READ_CACHE_FAST);
    nk_spi_op_addr(&op, 2, nk_spinand_column(chip, chip->spi.row, chip->spi.column), 1);
    op.dummy.bytes = 1;
    op.dummy.width = 1;
    if (width == 2) {
        op.cmd.opcode = NK_SPINAND_READ_CACHE_X2;
    } else if (width == 4 && part && (part->flags & NK_SPINAND_QUAD_IO)) {
        op.cmd.opcode = NK_SPINAND_READ_CACHE_QUAD_IO;
        op.addr.width = 4;
        op.dummy.bytes = (part->flags & NK_SPINAND_EBH_DUMMY_1) ? 1 : 2; /* 2 or 4 clocks */
        op.dummy.width = 4;
    } else if (width == 4) {
        op.cmd.opcode = NK_SPINAND_READ_CACHE_X4;
    }
    op.data.dir = NK_SPI_DATA_IN;
    op.data.width = (uint8_t)width;
    op.data.len = len;
    op.data.in = buf;
    chip->spi.column += len;
    return nk_spinand_exec(chip, &op);
}

int nk_spinand_read_column(struct nk_chip *chip, uint32_t column)
{
    chip->spi.column = column;
    return 0;
}

/* The read from cache of a continuous stream: no column, the mode's dummy
 * bytes on one line, the data on the read width (6Bh for four lines: EBh's
 * continuous form is not used). */
static int nk_spinand_stream(struct nk_chip *chip, uint8_t *buf, uint32_t len)
{
    unsigned width = chip->spi.read_width ? chip->spi.read_width : 1;
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip,
                   width == 4   ? NK_SPINAND_READ_CACHE_X4
                   : width == 2 ? NK_SPINAND_READ_CACHE_X2
                                : NK_SPINAND_READ_CACHE_FAST);
    op.dummy.bytes = NK_SPINAND_CONTINUOUS_DUMMY;
    op.dummy.width = 1;
    op.data.dir = NK_SPI_DATA_IN;
    op.data.width = (uint8_t)width;
    op.data.len = len;
    op.data.in = buf;
    return nk_spinand_exec(chip, &op);
}

/* Names the last page the part could not correct (A9h, 16-bit address). */
static void nk_spinand_name_failure(struct nk_chip *chip, uint32_t row, uint32_t pages)
{
    uint8_t page[2] = {0, 0};
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_WB_LAST_ECC_FAILURE);
    op.dummy.bytes = 1;
    op.dummy.width = 1;
    op.data.dir = NK_SPI_DATA_IN;
    op.data.width = 1;
    op.data.len = sizeof page;
    op.data.in = page;
    if (nk_spinand_exec(chip, &op) == 0)
        nk_diag_set(&chip->diag, -NK_EBADMSG,
                    "continuous read of pages %u..%u: page %u uncorrectable (the last such page)",
                    row, row + pages - 1, (unsigned)page[0] << 8 | page[1]);
}

int nk_spinand_read_continuous(struct nk_chip *chip, uint32_t row, uint32_t pages, uint8_t *buf)
{
    const struct nk_spinand_part *part = chip->spi.part;
    if (!part || !(part->flags & NK_SPINAND_CONTINUOUS))
        return nk_diag_set(&chip->diag, -NK_ENOTSUP, "%s has no continuous read",
                           part ? part->info.model : "this part");
    if (pages == 0)
        return 0;
    uint8_t config;
    int err = nk_spinand_get_feature(chip, NK_SPINAND_FEATURE_CONFIG, &config);
    if (err)
        return err;
    err = nk_spinand_set_feature(chip, NK_SPINAND_FEATURE_CONFIG,
                                 (uint8_t)(config & ~NK_SPINAND_CONFIG_BUF));
    if (!err)
        err = nk_spinand_read_start(chip, row, 0);
    if (!err)
        err = nk_spinand_stream(chip, buf, pages * chip->info.page_size);
    /* The status after the stream holds every page's outcome. */
    if (!err)
        err = nk_spinand_get_feature(chip, NK_SPINAND_FEATURE_STATUS, &chip->spi.status);
    int result = err ? err : nk_spinand_ecc_result(chip);
    if (result == -NK_EBADMSG)
        nk_spinand_name_failure(chip, row, pages);
    /* Back to page-at-a-time reads (the rest of the layer expects them). */
    int restore = err == -NK_ENODEV
                      ? 0
                      : nk_spinand_set_feature(chip, NK_SPINAND_FEATURE_CONFIG,
                                               (uint8_t)(config | NK_SPINAND_CONFIG_BUF));
    chip->spi.row = row + pages - 1;
    return result < 0 && result != -NK_EBADMSG ? result : restore ? restore : result;
}

int nk_spinand_read_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                         unsigned count)
{
    if (count == 0)
        return 0;
    int err = nk_spinand_read_start(chip, row, xfers[0].column);
    for (unsigned i = 0; !err && i < count; i++) {
        chip->spi.column = xfers[i].column;
        err = nk_spinand_read_data(chip, xfers[i].buf, xfers[i].len);
    }
    return err;
}

/* ----- program and erase ------------------------------------------------------- */

int nk_spinand_program_start(struct nk_chip *chip, uint32_t row, uint32_t column)
{
    chip->spi.row = row;
    chip->spi.column = column;
    chip->spi.loaded = false;
    return nk_spinand_simple(chip, NK_SPINAND_WRITE_ENABLE);
}

int nk_spinand_write_data(struct nk_chip *chip, const uint8_t *buf, uint32_t len)
{
    bool x4 = chip->spi.write_width == 4;
    uint8_t opcode = chip->spi.loaded ? (x4 ? NK_SPINAND_RANDOM_LOAD_X4 : NK_SPINAND_RANDOM_LOAD)
                                      : (x4 ? NK_SPINAND_PROGRAM_LOAD_X4 : NK_SPINAND_PROGRAM_LOAD);
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, opcode);
    nk_spi_op_addr(&op, 2, nk_spinand_column(chip, chip->spi.row, chip->spi.column), 1);
    op.data.dir = NK_SPI_DATA_OUT;
    op.data.width = x4 ? 4 : 1;
    op.data.len = len;
    op.data.out = buf;
    chip->spi.loaded = true;
    chip->spi.column += len;
    return nk_spinand_exec(chip, &op);
}

int nk_spinand_write_column(struct nk_chip *chip, uint32_t column)
{
    chip->spi.column = column;
    return 0;
}

/* PROGRAM EXECUTE of the page begun, without the wait. */
static int nk_spinand_execute(struct nk_chip *chip)
{
    struct nk_spi_op op;
    nk_spi_op_init(&op, chip, NK_SPINAND_PROGRAM_EXECUTE);
    nk_spi_op_addr(&op, 3, chip->spi.row, 1);
    return nk_spinand_exec(chip, &op);
}

int nk_spinand_program_end(struct nk_chip *chip, uint32_t row)
{
    const struct nk_chip_timing *t = &chip->info.timing;
    int err = nk_spinand_wait(chip, t->tPROG_max_ns ? t->tPROG_max_ns : 10u * t->tPROG_ns);
    if (err)
        return err;
    if (chip->spi.status & NK_SPINAND_STATUS_P_FAIL)
        return nk_diag_set(&chip->diag, -NK_EIO, "program of page %u failed (status %02x)", row,
                           chip->spi.status);
    return 0;
}

int nk_spinand_program_finish(struct nk_chip *chip)
{
    int err = nk_spinand_execute(chip);
    return err ? err : nk_spinand_program_end(chip, chip->spi.row);
}

int nk_spinand_program_begin(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                             unsigned count)
{
    int err = nk_spinand_program_start(chip, row, count ? xfers[0].column : 0);
    for (unsigned i = 0; !err && i < count; i++) {
        chip->spi.column = xfers[i].column;
        err = nk_spinand_write_data(chip, xfers[i].buf, xfers[i].len);
    }
    return err ? err : nk_spinand_execute(chip);
}

int nk_spinand_program_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                            unsigned count)
{
    if (count == 0)
        return 0;
    int err = nk_spinand_program_begin(chip, row, xfers, count);
    return err ? err : nk_spinand_program_end(chip, row);
}

int nk_spinand_erase_block(struct nk_chip *chip, uint32_t row)
{
    const struct nk_chip_timing *t = &chip->info.timing;
    int err = nk_spinand_simple(chip, NK_SPINAND_WRITE_ENABLE);
    if (!err) {
        struct nk_spi_op op;
        nk_spi_op_init(&op, chip, NK_SPINAND_BLOCK_ERASE);
        nk_spi_op_addr(&op, 3, row, 1);
        err = nk_spinand_exec(chip, &op);
    }
    if (!err)
        err = nk_spinand_wait(chip, t->tBERS_max_ns ? t->tBERS_max_ns : 10u * t->tBERS_ns);
    if (err)
        return err;
    if (chip->spi.status & NK_SPINAND_STATUS_E_FAIL)
        return nk_diag_set(&chip->diag, -NK_EIO, "erase of block %u failed (status %02x)",
                           row / (chip->info.pages_per_block ? chip->info.pages_per_block : 1),
                           chip->spi.status);
    return 0;
}

/* ----- on-die ECC outcome ---------------------------------------------------- */

int nk_spinand_ecc_result(struct nk_chip *chip)
{
    const struct nk_spinand_part *part = chip->spi.part;
    if (!part)
        return 0;
    enum nk_spinand_ecc_status scheme = (enum nk_spinand_ecc_status)part->ecc_status;
    uint8_t status = chip->spi.status, extra = 0;
    uint8_t reg = nk_spinand_ecc_extra_register(scheme, status);
    int err = 0;
    if (reg == NK_SPINAND_MX_READ_ECCSR) {
        struct nk_spi_op op;
        nk_spi_op_init(&op, chip, NK_SPINAND_MX_READ_ECCSR);
        op.dummy.bytes = 1;
        op.dummy.width = 1;
        op.data.dir = NK_SPI_DATA_IN;
        op.data.width = 1;
        op.data.len = 1;
        op.data.in = &extra;
        err = nk_spinand_exec(chip, &op);
    } else if (reg) {
        err = nk_spinand_get_feature(chip, reg, &extra);
    }
    if (err)
        return err;
    int result = nk_spinand_ecc_decode(scheme, status, extra, part->info.ecc_strength);
    if (result == -NK_EIO)
        return nk_diag_set(&chip->diag, -NK_EIO, "%s: reserved ECC status %02x", part->info.model,
                           status);
    return result;
}
