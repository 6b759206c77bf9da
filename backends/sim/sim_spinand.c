/* SPDX-License-Identifier: MIT */
/*
 * A SPI-NAND part behind the serial controller interface: each operation
 * of nandkit/spi.h is decoded as the part decodes its opcode, on the same
 * array, physics, faults and power cuts as the parallel chip.
 *
 * Timing: an operation takes its clocks (8 per byte of each phase, divided
 * by the phase's width) at the part's clock, or lower when the operation
 * asks; PAGE READ then keeps the part busy tRD (with or without the
 * on-die ECC), PROGRAM EXECUTE tPROG, BLOCK ERASE tBERS.
 *
 * Rules the part enforces (a violation is a protocol error, counted and
 * traced, and the operation is ignored): no command but GET FEATURE and
 * RESET while OIP is set; PROGRAM EXECUTE and BLOCK ERASE need WRITE ENABLE
 * first; x4 transfers need the QE bit on parts that have one; address and
 * dummy lengths as the opcode defines them; on 2-plane parts the plane bit
 * of a cache access must match the page in the cache. Program and erase of
 * a block while the protection register locks it report P_FAIL / E_FAIL
 * (the protection bits lock the whole array: ranges are not modelled).
 */
#include <string.h>

#include "sim_internal.h"

#include "nandkit/spinand.h"

/* Protection bits that lock blocks (BP3..BP0 on Winbond, BP2..BP0 elsewhere). */
#define NK_SIM_SPINAND_BP_MASK 0x78u

void nk_sim_spinand_power_on(struct nk_sim *sim)
{
    struct nk_sim_spinand *s = &sim->spi;
    const struct nk_chip_info *c = &sim->params.chip;
    memset(s, 0, sizeof *s);
    if (!(c->features & NK_CHIP_SPI_NAND))
        return;
    s->part = nk_spinand_lookup_id(c->id, c->id_len, NK_SPINAND_ID_DUMMY);
    if (!s->part)
        s->part = nk_spinand_lookup_id(c->id, c->id_len, NK_SPINAND_ID_OPCODE);
    if (!s->part)
        return;
    s->protect = s->part->protect_default;
    s->config = s->part->config_default;
    s->loaded_row = UINT32_MAX;
    sim->on_die_ecc = (s->config & NK_SPINAND_CONFIG_ECC_EN) != 0;
}

static bool nk_sim_spinand_busy(const struct nk_sim *sim)
{
    return sim->now < sim->rdy_until;
}

static uint8_t nk_sim_spinand_status(const struct nk_sim *sim)
{
    const struct nk_sim_spinand *s = &sim->spi;
    uint8_t status = (uint8_t)(s->ecc_code << 4);
    if (nk_sim_spinand_busy(sim))
        status |= NK_SPINAND_STATUS_OIP;
    if (s->wel)
        status |= NK_SPINAND_STATUS_WEL;
    if (s->e_fail)
        status |= NK_SPINAND_STATUS_E_FAIL;
    if (s->p_fail)
        status |= NK_SPINAND_STATUS_P_FAIL;
    return status;
}

/* The part's ECC status bits (and refinement register) for a page load
 * whose worst step needed `most` corrections, or failed. */
static void nk_sim_spinand_ecc_encode(struct nk_sim *sim, bool failed, unsigned most)
{
    struct nk_sim_spinand *s = &sim->spi;
    unsigned strength = sim->params.chip.ecc_strength;
    s->ecc_code = 0;
    s->ecc_extra = 0;
    if (!sim->on_die_ecc || (!failed && most == 0))
        return;
    switch ((enum nk_spinand_ecc_status)s->part->ecc_status) {
    case NK_SPINAND_ECC_TWO_BITS:
        s->ecc_code = failed ? 2 : 1;
        break;
    case NK_SPINAND_ECC_GIGADEVICE:
        if (failed)
            s->ecc_code = 2;
        else if (most >= 8)
            s->ecc_code = 3;
        else {
            s->ecc_code = 1;
            s->ecc_extra = (uint8_t)((most > 4 ? most - 4 : 0) << 4);
        }
        break;
    case NK_SPINAND_ECC_MICRON:
        s->ecc_code = failed ? 2 : most <= 3 ? 1 : most <= 6 ? 3 : 5;
        break;
    case NK_SPINAND_ECC_MACRONIX:
        s->ecc_code = failed ? 2 : 1;
        s->ecc_extra = failed ? 0 : (uint8_t)most;
        break;
    case NK_SPINAND_ECC_KIOXIA:
        if (failed) {
            s->ecc_code = 2;
        } else {
            s->ecc_code = most >= (3u * strength + 3u) / 4u ? 3 : 1;
            s->ecc_extra = (uint8_t)(most << 4);
        }
        break;
    }
}

static void nk_sim_spinand_error(struct nk_sim *sim, const struct nk_spi_op *op, const char *what)
{
    nk_sim_protocol_error(sim, op->cmd.opcode, what);
}

/* The lines an x4 transfer needs are enabled. */
static bool nk_sim_spinand_quad_ok(struct nk_sim *sim, const struct nk_spi_op *op)
{
    const struct nk_spinand_part *part = sim->spi.part;
    if ((part->flags & NK_SPINAND_QE_BIT) && !(sim->spi.config & NK_SPINAND_CONFIG_QE)) {
        nk_sim_spinand_error(sim, op, "x4 transfer with the QE bit clear");
        return false;
    }
    return true;
}

static bool nk_sim_spinand_shape(struct nk_sim *sim, const struct nk_spi_op *op, unsigned addr,
                                 unsigned dummy_clocks, const char *what)
{
    unsigned dw = op->dummy.width ? op->dummy.width : 1;
    if (op->addr.bytes != addr || op->dummy.bytes * 8u / dw != dummy_clocks) {
        nk_sim_spinand_error(sim, op, what);
        return false;
    }
    return true;
}

static unsigned nk_sim_width(uint8_t width)
{
    return width ? width : 1u;
}

/* Column of a cache access, checking the plane bit on 2-plane parts. */
static bool nk_sim_spinand_column(struct nk_sim *sim, const struct nk_spi_op *op, uint32_t row,
                                  uint32_t *column)
{
    const struct nk_chip_info *c = &sim->params.chip;
    uint32_t value = op->addr.value & 0xffffu;
    if (c->planes > 1) {
        unsigned shift = 0;
        while ((1u << shift) < c->page_size)
            shift++;
        uint32_t plane_bit = 1u << (shift + 1);
        uint32_t plane = (value & plane_bit) ? 1u : 0u;
        value &= ~plane_bit;
        if (row != UINT32_MAX && plane != (row >> sim->ppb_shift) % c->planes) {
            nk_sim_spinand_error(sim, op, "plane bit of the column does not match the page");
            return false;
        }
    }
    *column = value;
    return true;
}

/* Continuous read (Winbond, BUF = 0): the data areas of the loaded page and
 * the pages after it, streamed while chip select stays low. Each next page
 * is read from the array (with its physics, its on-die correction and its
 * cut point) as the previous one streams out, so no tRD shows. The ECC
 * status sums up the stream: 01 some page corrected, 10 one page and 11
 * more than one uncorrectable; A9h names the last of those. */
static void nk_sim_spinand_stream(struct nk_sim *sim, const struct nk_spi_op *op)
{
    struct nk_sim_spinand *s = &sim->spi;
    const uint32_t page_size = sim->params.chip.page_size;
    uint8_t *out = op->data.in;
    bool ok = op->cmd.opcode != NK_SPINAND_READ_CACHE_QUAD_IO;
    if (!ok)
        nk_sim_spinand_error(sim, op, "EBh in continuous read mode (not modelled)");
    unsigned want = op->cmd.opcode == NK_SPINAND_READ_CACHE_X2   ? 2u
                    : op->cmd.opcode == NK_SPINAND_READ_CACHE_X4 ? 4u
                                                                 : 1u;
    unsigned dummy = op->cmd.opcode == NK_SPINAND_READ_CACHE ? NK_SPINAND_CONTINUOUS_DUMMY_03H
                                                             : NK_SPINAND_CONTINUOUS_DUMMY;
    if (ok)
        ok = nk_sim_spinand_shape(sim, op, 0, dummy * 8u,
                                  "continuous read: no column, 3 (03h) or 4 dummy bytes");
    if (ok && nk_sim_width(op->data.width) != want) {
        nk_sim_spinand_error(sim, op, "read from cache on the wrong number of lines");
        ok = false;
    }
    if (ok && want == 4)
        ok = nk_sim_spinand_quad_ok(sim, op);
    if (ok && s->loaded_row == UINT32_MAX) {
        nk_sim_spinand_error(sim, op, "continuous read without a page read");
        ok = false;
    }
    sim->counters.bytes_in += op->data.len;
    if (!ok) {
        memset(out, 0xff, op->data.len);
        return;
    }
    uint32_t row = s->loaded_row;
    unsigned failures = s->ecc_code == 2 ? 1u : 0u;
    bool corrected = s->ecc_code == 1;
    if (failures)
        s->last_failure = row;
    for (uint32_t done = 0; done < op->data.len;) {
        if (done && done % page_size == 0) {
            if (row + 1 >= sim->rows) {
                memset(out + done, 0xff, op->data.len - done);
                break;
            }
            row++;
            sim->on_die_most = 0;
            nk_sim_op_read(sim, row);
            if (!sim->powered)
                return;
            sim->rdy_until = sim->array_until = sim->now; /* loaded while streaming */
            nk_sim_spinand_ecc_encode(sim, (sim->status_bits & NK_STATUS_FAIL) != 0,
                                      sim->on_die_most);
            if (s->ecc_code == 2) {
                failures++;
                s->last_failure = row;
            }
            corrected |= s->ecc_code == 1;
        }
        uint32_t column = done % page_size, n = page_size - column;
        if (n > op->data.len - done)
            n = op->data.len - done;
        memcpy(out + done, sim->reg + column, n);
        done += n;
    }
    s->ecc_code = failures > 1 ? 3 : failures ? 2 : corrected ? 1 : 0;
    s->loaded_row = row;
}

static void nk_sim_spinand_last_failure(struct nk_sim *sim, const struct nk_spi_op *op)
{
    if (!(sim->spi.part->flags & NK_SPINAND_CONTINUOUS)) {
        sim->counters.unknown_commands++;
        nk_sim_spinand_error(sim, op, "A9h on a part without continuous read");
        return;
    }
    if (!nk_sim_spinand_shape(sim, op, 0, 8, "A9h: 1 dummy byte"))
        return;
    for (uint32_t i = 0; i < op->data.len; i++)
        op->data.in[i] = i == 0   ? (uint8_t)(sim->spi.last_failure >> 8)
                         : i == 1 ? (uint8_t)sim->spi.last_failure
                                  : 0x00;
}

static void nk_sim_spinand_read_cache(struct nk_sim *sim, const struct nk_spi_op *op)
{
    if ((sim->spi.part->flags & NK_SPINAND_CONTINUOUS) &&
        !(sim->spi.config & NK_SPINAND_CONFIG_BUF)) {
        nk_sim_spinand_stream(sim, op);
        return;
    }
    uint8_t opcode = op->cmd.opcode;
    unsigned xw = nk_sim_width(op->data.width);
    bool ok;
    if (opcode == NK_SPINAND_READ_CACHE_QUAD_IO) {
        unsigned dummy = (sim->spi.part->flags & NK_SPINAND_EBH_DUMMY_1) ? 2u : 4u;
        ok = (sim->spi.part->flags & NK_SPINAND_QUAD_IO) && nk_sim_width(op->addr.width) == 4 &&
             nk_sim_spinand_shape(sim, op, 2, dummy,
                                  "EBh: 2 address bytes on 4 lines and the part's dummy clocks") &&
             xw == 4 && nk_sim_spinand_quad_ok(sim, op);
        if (!(sim->spi.part->flags & NK_SPINAND_QUAD_IO))
            nk_sim_spinand_error(sim, op, "EBh on a part without quad I/O read");
    } else {
        unsigned want = opcode == NK_SPINAND_READ_CACHE_X2   ? 2u
                        : opcode == NK_SPINAND_READ_CACHE_X4 ? 4u
                                                             : 1u;
        ok = nk_sim_spinand_shape(sim, op, 2, 8, "read from cache: 2 address bytes, 1 dummy byte");
        if (ok && xw != want) {
            nk_sim_spinand_error(sim, op, "read from cache on the wrong number of lines");
            ok = false;
        }
        if (ok && want == 4)
            ok = nk_sim_spinand_quad_ok(sim, op);
    }
    uint32_t column = 0;
    if (ok)
        ok = nk_sim_spinand_column(sim, op, sim->spi.loaded_row, &column);
    uint8_t *out = op->data.in;
    for (uint32_t i = 0; i < op->data.len; i++) {
        uint32_t at = column + i;
        out[i] = ok && at < sim->page_bytes ? sim->reg[at] : 0xff;
    }
    sim->counters.bytes_in += op->data.len;
}

static void nk_sim_spinand_load(struct nk_sim *sim, const struct nk_spi_op *op, bool random)
{
    bool x4 =
        op->cmd.opcode == NK_SPINAND_PROGRAM_LOAD_X4 || op->cmd.opcode == NK_SPINAND_RANDOM_LOAD_X4;
    if (!nk_sim_spinand_shape(sim, op, 2, 0, "program load: 2 address bytes, no dummy"))
        return;
    if (nk_sim_width(op->data.width) != (x4 ? 4u : 1u)) {
        nk_sim_spinand_error(sim, op, "program load on the wrong number of lines");
        return;
    }
    if (x4 && (sim->spi.part->flags & NK_SPINAND_X1_LOAD)) {
        nk_sim_spinand_error(sim, op, "x4 program load on a part that has none");
        return;
    }
    if (x4 && !nk_sim_spinand_quad_ok(sim, op))
        return;
    uint32_t column;
    if (!nk_sim_spinand_column(sim, op, UINT32_MAX, &column))
        return;
    if (!random) {
        memset(sim->reg, 0xff, sim->page_bytes);
        sim->reg_lo = sim->page_bytes;
        sim->reg_hi = 0;
    }
    uint32_t len = op->data.len;
    if (column >= sim->page_bytes)
        len = 0;
    else if (len > sim->page_bytes - column)
        len = sim->page_bytes - column;
    memcpy(sim->reg + column, op->data.out, len);
    if (len) {
        if (column < sim->reg_lo)
            sim->reg_lo = column;
        if (column + len > sim->reg_hi)
            sim->reg_hi = column + len;
    }
    sim->spi.loaded_row = UINT32_MAX;
    sim->counters.bytes_out += op->data.len;
}

static bool nk_sim_spinand_locked(const struct nk_sim *sim)
{
    return (sim->spi.protect & NK_SIM_SPINAND_BP_MASK) != 0;
}

static void nk_sim_spinand_page_read(struct nk_sim *sim, const struct nk_spi_op *op)
{
    if (!nk_sim_spinand_shape(sim, op, 3, 0, "page read: 3 address bytes"))
        return;
    uint32_t row = op->addr.value & 0xffffffu;
    uint64_t start = sim->now;
    sim->on_die_most = 0;
    nk_sim_op_read(sim, row);
    if (!sim->powered)
        return;
    if (!sim->on_die_ecc && sim->spi.part->tRD_no_ecc_ns)
        sim->rdy_until = sim->array_until = start + sim->spi.part->tRD_no_ecc_ns;
    nk_sim_spinand_ecc_encode(sim, (sim->status_bits & NK_STATUS_FAIL) != 0, sim->on_die_most);
    sim->spi.loaded_row = row < sim->rows ? row : UINT32_MAX;
}

static void nk_sim_spinand_execute(struct nk_sim *sim, const struct nk_spi_op *op)
{
    if (!nk_sim_spinand_shape(sim, op, 3, 0, "program execute: 3 address bytes"))
        return;
    if (!sim->spi.wel) {
        nk_sim_spinand_error(sim, op, "program execute without write enable");
        return;
    }
    uint32_t row = op->addr.value & 0xffffffu;
    sim->spi.wel = false;
    sim->spi.p_fail = false;
    sim->spi.ecc_code = 0;
    if (nk_sim_spinand_locked(sim) || row >= sim->rows) {
        sim->spi.p_fail = true;
        sim->counters.program_fails++;
        return;
    }
    sim->addr_short = false;
    nk_sim_op_program(sim, row, false);
    sim->spi.p_fail = (sim->status_bits & NK_STATUS_FAIL) != 0;
    sim->spi.loaded_row = UINT32_MAX;
}

static void nk_sim_spinand_erase(struct nk_sim *sim, const struct nk_spi_op *op)
{
    if (!nk_sim_spinand_shape(sim, op, 3, 0, "block erase: 3 address bytes"))
        return;
    if (!sim->spi.wel) {
        nk_sim_spinand_error(sim, op, "block erase without write enable");
        return;
    }
    uint32_t row = op->addr.value & 0xffffffu;
    sim->spi.wel = false;
    sim->spi.e_fail = false;
    sim->spi.ecc_code = 0;
    if (nk_sim_spinand_locked(sim) || row >= sim->rows) {
        sim->spi.e_fail = true;
        sim->counters.erase_fails++;
        return;
    }
    nk_sim_op_erase(sim, row);
    sim->spi.e_fail = (sim->status_bits & NK_STATUS_FAIL) != 0;
}

static void nk_sim_spinand_get_feature(struct nk_sim *sim, const struct nk_spi_op *op)
{
    struct nk_sim_spinand *s = &sim->spi;
    uint8_t value = 0;
    sim->counters.ops[NK_SIM_OP_GET_FEATURES]++;
    if (!nk_sim_spinand_shape(sim, op, 1, 0, "get feature: 1 address byte"))
        return;
    switch (op->addr.value & 0xffu) {
    case NK_SPINAND_FEATURE_PROTECT:
        value = s->protect;
        break;
    case NK_SPINAND_FEATURE_CONFIG:
        value = s->config;
        break;
    case NK_SPINAND_FEATURE_STATUS:
        value = nk_sim_spinand_status(sim);
        break;
    case NK_SPINAND_FEATURE_GD_STATUS2:
    case NK_SPINAND_FEATURE_TOSHIBA_MBF: {
        uint8_t want =
            s->part->ecc_status == NK_SPINAND_ECC_GIGADEVICE ? NK_SPINAND_FEATURE_GD_STATUS2
            : s->part->ecc_status == NK_SPINAND_ECC_KIOXIA   ? NK_SPINAND_FEATURE_TOSHIBA_MBF
                                                             : 0;
        if (want == (op->addr.value & 0xffu))
            value = s->ecc_extra;
        else
            nk_sim_spinand_error(sim, op, "feature register this part does not have");
        break;
    }
    default:
        nk_sim_spinand_error(sim, op, "unknown feature register");
        break;
    }
    if (op->data.dir == NK_SPI_DATA_IN)
        for (uint32_t i = 0; i < op->data.len; i++)
            op->data.in[i] = value;
}

static void nk_sim_spinand_set_feature(struct nk_sim *sim, const struct nk_spi_op *op)
{
    struct nk_sim_spinand *s = &sim->spi;
    sim->counters.ops[NK_SIM_OP_SET_FEATURES]++;
    if (!nk_sim_spinand_shape(sim, op, 1, 0, "set feature: 1 address byte"))
        return;
    if (op->data.dir != NK_SPI_DATA_OUT || op->data.len != 1) {
        nk_sim_spinand_error(sim, op, "set feature without its one data byte");
        return;
    }
    uint8_t value = op->data.out[0];
    switch (op->addr.value & 0xffu) {
    case NK_SPINAND_FEATURE_PROTECT:
        s->protect = value;
        break;
    case NK_SPINAND_FEATURE_CONFIG:
        s->config = value;
        sim->on_die_ecc = (value & NK_SPINAND_CONFIG_ECC_EN) != 0;
        break;
    default:
        nk_sim_spinand_error(sim, op, "set feature of a read-only or unknown register");
        break;
    }
}

static void nk_sim_spinand_read_id(struct nk_sim *sim, const struct nk_spi_op *op)
{
    const struct nk_chip_info *c = &sim->params.chip;
    sim->counters.ops[NK_SIM_OP_READ_ID]++;
    unsigned skip = 0;
    bool one_byte = op->addr.bytes + op->dummy.bytes == 1;
    if (sim->spi.part->id_method == NK_SPINAND_ID_ADDR && op->addr.bytes == 1)
        skip = op->addr.value & 0x1u; /* address 01h starts at the device byte */
    for (uint32_t i = 0; i < op->data.len; i++) {
        uint8_t byte = 0x00;
        if (sim->spi.part->id_method == NK_SPINAND_ID_OPCODE) {
            unsigned at = i + (op->addr.bytes + op->dummy.bytes);
            byte = at < c->id_len ? c->id[at] : 0x00;
        } else if (one_byte) {
            unsigned at = i + skip;
            byte = at < c->id_len ? c->id[at] : 0x00;
        } else if (i == 0) {
            byte = 0xff; /* the dummy clocks: nothing driven */
        } else {
            byte = i - 1 < c->id_len ? c->id[i - 1] : 0x00;
        }
        op->data.in[i] = byte;
    }
}

static void nk_sim_spinand_ecc_register(struct nk_sim *sim, const struct nk_spi_op *op)
{
    if (sim->spi.part->ecc_status != NK_SPINAND_ECC_MACRONIX) {
        sim->counters.unknown_commands++;
        nk_sim_spinand_error(sim, op, "7Ch on a part without an ECC status register");
        return;
    }
    if (!nk_sim_spinand_shape(sim, op, 0, 8, "7Ch: 1 dummy byte"))
        return;
    for (uint32_t i = 0; i < op->data.len; i++)
        op->data.in[i] = sim->spi.ecc_extra;
}

/* Bus time of `op` at the part's clock (or the lower one the op asks). */
static uint64_t nk_sim_spinand_op_ns(const struct nk_sim *sim, const struct nk_spi_op *op)
{
    const struct nk_spinand_part *part = sim->spi.part;
    uint64_t hz = part->max_hz ? part->max_hz : 104000000u;
    if (op->cmd.opcode == NK_SPINAND_READ_CACHE && part->read_03h_max_hz)
        hz = part->read_03h_max_hz;
    if (op->max_hz && op->max_hz < hz)
        hz = op->max_hz;
    uint64_t clocks = nk_spi_op_clocks(op);
    return (clocks * 1000000000ull + hz - 1) / hz;
}

static bool nk_sim_spinand_cut_before(struct nk_sim *sim, uint64_t end)
{
    if (!sim->cut_by_time || end <= sim->cut_time)
        return false;
    nk_sim_power_fail(sim, sim->cut_time, UINT32_MAX);
    return true;
}

static void nk_sim_spinand_decode(struct nk_sim *sim, const struct nk_spi_op *op)
{
    uint8_t opcode = op->cmd.opcode;
    if (nk_sim_spinand_busy(sim) && opcode != NK_SPINAND_GET_FEATURE &&
        opcode != NK_SPINAND_RESET) {
        nk_sim_spinand_error(sim, op, "command while the part is busy (OIP)");
        if (op->data.dir == NK_SPI_DATA_IN)
            memset(op->data.in, 0xff, op->data.len);
        return;
    }
    switch (opcode) {
    case NK_SPINAND_RESET:
        sim->counters.ops[NK_SIM_OP_RESET]++;
        nk_sim_interrupt(sim, sim->now);
        sim->spi.wel = false;
        sim->spi.ecc_code = 0;
        sim->rdy_until = sim->now + sim->params.chip.timing.tRST_ns;
        break;
    case NK_SPINAND_GET_FEATURE:
        nk_sim_spinand_get_feature(sim, op);
        break;
    case NK_SPINAND_SET_FEATURE:
        nk_sim_spinand_set_feature(sim, op);
        break;
    case NK_SPINAND_READ_ID:
        nk_sim_spinand_read_id(sim, op);
        break;
    case NK_SPINAND_PAGE_READ:
        nk_sim_spinand_page_read(sim, op);
        break;
    case NK_SPINAND_READ_CACHE:
    case NK_SPINAND_READ_CACHE_FAST:
    case NK_SPINAND_READ_CACHE_X2:
    case NK_SPINAND_READ_CACHE_X4:
    case NK_SPINAND_READ_CACHE_QUAD_IO:
        nk_sim_spinand_read_cache(sim, op);
        return;
    case NK_SPINAND_PROGRAM_LOAD:
    case NK_SPINAND_PROGRAM_LOAD_X4:
        nk_sim_spinand_load(sim, op, false);
        return;
    case NK_SPINAND_RANDOM_LOAD:
    case NK_SPINAND_RANDOM_LOAD_X4:
        nk_sim_spinand_load(sim, op, true);
        return;
    case NK_SPINAND_PROGRAM_EXECUTE:
        nk_sim_spinand_execute(sim, op);
        break;
    case NK_SPINAND_BLOCK_ERASE:
        nk_sim_spinand_erase(sim, op);
        break;
    case NK_SPINAND_WRITE_ENABLE:
        sim->spi.wel = true;
        break;
    case NK_SPINAND_WRITE_DISABLE:
        sim->spi.wel = false;
        break;
    case NK_SPINAND_MX_READ_ECCSR:
        nk_sim_spinand_ecc_register(sim, op);
        return;
    case NK_SPINAND_WB_LAST_ECC_FAILURE:
        nk_sim_spinand_last_failure(sim, op);
        return;
    default:
        sim->counters.unknown_commands++;
        nk_sim_spinand_error(sim, op, "unknown opcode");
        if (op->data.dir == NK_SPI_DATA_IN)
            memset(op->data.in, 0xff, op->data.len);
        return;
    }
}

static int nk_sim_spinand_check_op(const struct nk_spi_op *op)
{
    if (!op || op->addr.bytes > NK_SPI_MAX_ADDR_BYTES || op->dummy.bytes > NK_SPI_MAX_DUMMY_BYTES)
        return -NK_EINVAL;
    if (op->data.dir == NK_SPI_DATA_IN && op->data.len && !op->data.in)
        return -NK_EINVAL;
    if (op->data.dir == NK_SPI_DATA_OUT && op->data.len && !op->data.out)
        return -NK_EINVAL;
    return 0;
}

int nk_sim_spinand_exec(void *ctx, const struct nk_spi_op *op)
{
    struct nk_sim_port *port = ctx;
    struct nk_sim *sim = port->sim;
    if (!sim->powered)
        return -NK_ENODEV;
    int err = nk_sim_spinand_check_op(op);
    if (err)
        return err;
    uint64_t ns = nk_sim_spinand_op_ns(sim, op);
    uint64_t end = sim->now + sim->pending_delay + ns;
    sim->pending_delay = 0;
    if (nk_sim_spinand_cut_before(sim, end))
        return -NK_ENODEV;
    if (op->chip_select != 0) {
        if (op->data.dir == NK_SPI_DATA_IN && op->data.len)
            memset(op->data.in, 0xff, op->data.len);
        sim->now = end;
        return 0;
    }
    sim->counters.bus_ns += ns;
    sim->now = end;
    nk_sim_settle(sim, end);
    nk_sim_spinand_decode(sim, op);
    return sim->powered ? 0 : -NK_ENODEV;
}

int nk_sim_spinand_poll(void *ctx, const struct nk_spi_poll *poll, uint8_t *status)
{
    struct nk_sim_port *port = ctx;
    struct nk_sim *sim = port->sim;
    if (!sim->powered)
        return -NK_ENODEV;
    int err = nk_sim_spinand_check_op(&poll->op);
    if (err)
        return err;
    if (poll->op.cmd.opcode != NK_SPINAND_GET_FEATURE || poll->op.data.dir != NK_SPI_DATA_IN ||
        poll->op.data.len != 1)
        return -NK_EINVAL;
    /* The polls a controller would send: back to back, the last one after
     * the busy period has ended. */
    uint64_t ns = nk_sim_spinand_op_ns(sim, &poll->op);
    uint64_t limit = (uint64_t)poll->timeout_us * 1000u;
    uint64_t start = sim->now;
    uint64_t wait = sim->rdy_until > start ? sim->rdy_until - start : 0;
    bool timed_out = poll->timeout_us && wait > limit;
    if (timed_out)
        wait = limit;
    uint64_t polls = 1 + (wait + ns - 1) / ns;
    uint64_t end = start + polls * ns;
    if (nk_sim_spinand_cut_before(sim, end))
        return -NK_ENODEV;
    sim->counters.busy_wait_ns += end - start;
    sim->counters.ops[NK_SIM_OP_GET_FEATURES] += polls;
    sim->now = end;
    nk_sim_settle(sim, end);
    uint8_t value = 0;
    struct nk_spi_op op = poll->op;
    op.data.in = &value;
    nk_sim_spinand_get_feature(sim, &op);
    sim->counters.ops[NK_SIM_OP_GET_FEATURES]--; /* counted with the polls */
    *status = value;
    if (poll->op.data.in)
        *poll->op.data.in = value;
    if ((value & poll->mask) != poll->match)
        return -NK_ETIMEDOUT;
    return sim->powered ? 0 : -NK_ENODEV;
}
