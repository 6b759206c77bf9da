/* SPDX-License-Identifier: MIT */
/*
 * The chip's command state machine: command, address and data cycles in,
 * bytes out, as a NAND die decodes them.
 *
 * While busy (R/B low) the chip only accepts READ STATUS (70h) and RESET
 * (FFh); every other cycle is ignored and counted as a protocol error, as is
 * a confirm without its setup (30h without 00h+address, 10h without 80h...),
 * an address cycle with no command waiting for one, or data with nowhere to
 * go. Unknown opcodes are ignored and counted. Nothing here can fail the
 * host: a confused sequence shows up as wrong data, FAIL status and counters.
 */
#include <string.h>

#include "sim_internal.h"

static bool nk_sim_busy(const struct nk_sim *sim)
{
    return sim->now < sim->rdy_until;
}

uint8_t nk_sim_chip_status(const struct nk_sim *sim, uint64_t t)
{
    uint8_t status = (sim->write_protect || sim->read_only) ? 0 : NK_STATUS_WP_N;
    uint8_t bits = sim->status_bits;
    if (sim->cache_status) {
        /* Cache program: while the array is busy, FAIL reports the previous
         * page (the one that finished) and FAILC the one before; once the
         * array is idle, FAIL is the last page and FAILC the previous. */
        uint8_t history = t >= sim->array_until ? sim->fail_history : sim->fail_history >> 1;
        bits =
            (uint8_t)((history & 1u ? NK_STATUS_FAIL : 0) | (history & 2u ? NK_STATUS_FAIL_N1 : 0));
    }
    if (t >= sim->rdy_until)
        status |= NK_STATUS_READY | bits;
    if (t >= sim->array_until)
        status |= NK_STATUS_ARRAY_READY; /* I/O5: the array is idle too */
    return status;
}

void nk_sim_chip_power_on(struct nk_sim *sim)
{
    sim->state = NK_SIM_S_IDLE;
    sim->addr_count = 0;
    sim->addr_expected = 0;
    sim->read_valid = false;
    sim->resume_ok = false;
    sim->pointer = 0;
    sim->status_bits = 0;
    sim->rdy_until = sim->now;
    sim->array_until = sim->now;
    sim->pending_delay = 0;
    sim->on_die_ecc = false;
    memset(sim->features, 0, sizeof sim->features);
    memset(sim->reg, 0xff, sim->page_bytes);
    sim->reg_lo = sim->page_bytes;
    sim->reg_hi = 0;
    sim->cache_status = false;
    sim->cache_seq = false;
    sim->fail_history = 0;
    sim->cache_block = UINT32_MAX;
    sim->cache_read_next = UINT32_MAX;
    sim->copyback_row = UINT32_MAX;
    nk_sim_spinand_power_on(sim);
}

/* Column of the collected address (small page: plus the 00h/01h/50h area). */
static uint32_t nk_sim_parse_column(const struct nk_sim *sim)
{
    uint32_t column = sim->addr[0];
    if (sim->params.chip.col_cycles > 1)
        column |= (uint32_t)sim->addr[1] << 8;
    if (sim->small_page) {
        if (sim->pointer == 1)
            column += 256;
        else if (sim->pointer == 2)
            column += sim->params.chip.page_size;
    }
    return column;
}

static uint32_t nk_sim_parse_row(const struct nk_sim *sim, unsigned first)
{
    uint32_t row = 0;
    for (unsigned i = 0; i < sim->params.chip.row_cycles; i++)
        row |= (uint32_t)sim->addr[first + i] << (8 * i);
    return row;
}

static void nk_sim_expect_address(struct nk_sim *sim, enum nk_sim_state state, uint8_t cmd,
                                  unsigned cycles)
{
    sim->state = state;
    sim->first_cmd = cmd;
    sim->addr_count = 0;
    sim->addr_expected = cycles;
    sim->addr_short = false;
}

static void nk_sim_output(struct nk_sim *sim, const uint8_t *buf, uint32_t len, uint32_t column,
                          bool wrap)
{
    sim->state = NK_SIM_S_OUTPUT;
    sim->out_buf = buf;
    sim->out_len = len;
    sim->column = column;
    sim->out_wrap = wrap;
}

static void nk_sim_count_op(struct nk_sim *sim, enum nk_sim_op_kind kind, uint32_t row,
                            uint32_t column, uint32_t busy_ns)
{
    sim->counters.ops[kind]++;
    nk_sim_emit(sim, NK_SIM_EVENT_OP, kind, row, column, busy_ns, 0, NULL);
}

/* The page read (00h-address-30h, or the last address cycle on small page). */
static void nk_sim_start_read(struct nk_sim *sim)
{
    unsigned cols = sim->params.chip.col_cycles;
    uint32_t column = nk_sim_parse_column(sim);
    uint32_t row = nk_sim_parse_row(sim, cols);
    sim->column = column;
    sim->copyback_row = UINT32_MAX;
    sim->cache_status = false; /* a read's status is its own */
    nk_sim_op_read(sim, row);
    if (!sim->powered)
        return;
    nk_sim_output(sim, sim->reg, sim->page_bytes, column, false);
    sim->read_valid = true;
    sim->read_row = row;
    if (sim->small_page && sim->pointer == 1)
        sim->pointer = 0; /* 01h points at the second half for one operation only */
}

static void nk_sim_cmd_reset(struct nk_sim *sim)
{
    /* A reset aborts a busy program or erase where it stands. */
    nk_sim_settle(sim, sim->now);
    if (sim->pending.active)
        nk_sim_interrupt(sim, sim->now);
    uint32_t busy = sim->params.chip.timing.tRST_ns;
    sim->state = NK_SIM_S_IDLE;
    sim->addr_count = 0;
    sim->read_valid = false;
    sim->resume_ok = false;
    sim->pointer = 0;
    sim->status_bits = 0;
    sim->cache_status = false;
    sim->cache_seq = false;
    sim->cache_read_next = UINT32_MAX;
    sim->copyback_row = UINT32_MAX;
    sim->rdy_until = sim->now + busy;
    sim->array_until = sim->rdy_until;
    nk_sim_count_op(sim, NK_SIM_OP_RESET, UINT32_MAX, 0, busy);
}

static void nk_sim_unknown(struct nk_sim *sim, uint8_t cmd)
{
    sim->counters.unknown_commands++;
    nk_sim_emit(sim, NK_SIM_EVENT_PROTOCOL, NK_SIM_OP_KIND_COUNT, UINT32_MAX, 0, 0, cmd,
                "unknown command");
}

/* A command that needs the array (page read, program, erase) while a read
 * cache sequence is open or a cache program is still programming: the
 * datasheets require 3Fh, or the array to be idle, first. */
static void nk_sim_check_array_free(struct nk_sim *sim, uint8_t cmd)
{
    if (sim->cache_read_next != UINT32_MAX) {
        nk_sim_protocol_error(sim, cmd, "array command inside a read cache sequence (no 3Fh)");
        sim->cache_read_next = UINT32_MAX;
        sim->array_until = sim->rdy_until;
    } else if (sim->now < sim->array_until && cmd != NK_CMD_PAGEPROG && cmd != NK_CMD_CACHEDPROG) {
        nk_sim_protocol_error(sim, cmd, "array command while the array is still busy");
    }
}

/* 10h/15h after 80h (or 85h after 35h): the cache program and copy-back
 * rules, then the program. */
static void nk_sim_confirm_program(struct nk_sim *sim, uint8_t cmd)
{
    bool cache = cmd == NK_CMD_CACHEDPROG;
    uint32_t row = sim->prog_row;
    uint32_t block = row == UINT32_MAX ? UINT32_MAX : row >> sim->ppb_shift;
    bool copyback = sim->first_cmd == NK_CMD_RNDIN;
    nk_sim_check_array_free(sim, cmd);
    if (copyback && !nk_sim_copyback_allowed(sim, row))
        sim->addr_short = true; /* refused: FAIL */
    if (sim->cache_seq && block != sim->cache_block) {
        nk_sim_protocol_error(sim, cmd, "cache program across a block");
        sim->addr_short = true;
    }
    bool in_sequence = cache || sim->cache_seq;
    if (!in_sequence)
        sim->fail_history = 0;
    nk_sim_op_program(sim, row, cache);
    if (!sim->powered)
        return;
    sim->fail_history =
        (uint8_t)(((sim->fail_history << 1) | (sim->pending.fail != NK_SIM_FAIL_NONE ? 1u : 0u)) &
                  7u);
    sim->cache_status = in_sequence;
    sim->cache_block = cache ? block : UINT32_MAX;
    if (copyback) {
        sim->counters.ops[NK_SIM_OP_COPYBACK_PROGRAM]++;
        sim->copyback_row = UINT32_MAX;
    }
}

void nk_sim_chip_cmd(struct nk_sim *sim, uint8_t cmd)
{
    const struct nk_chip_info *c = &sim->params.chip;
    if (nk_sim_busy(sim) && cmd != NK_CMD_STATUS && cmd != NK_CMD_RESET) {
        nk_sim_protocol_error(sim, cmd, "command while busy");
        return;
    }
    bool small = sim->small_page;
    switch (cmd) {
    case NK_CMD_RESET:
        nk_sim_cmd_reset(sim);
        return;
    case NK_CMD_STATUS:
        if (sim->state != NK_SIM_S_STATUS)
            sim->status_return = sim->state;
        sim->state = NK_SIM_S_STATUS;
        sim->counters.ops[NK_SIM_OP_STATUS]++;
        return;
    case NK_CMD_READ0: {
        /* After 70h during a read, a bare 00h resumes data output. */
        bool resume = sim->state == NK_SIM_S_STATUS && sim->status_return == NK_SIM_S_OUTPUT;
        if (small)
            sim->pointer = 0;
        nk_sim_expect_address(sim, NK_SIM_S_READ_ADDR, cmd, c->col_cycles + c->row_cycles);
        sim->resume_ok = resume;
        return;
    }
    case NK_CMD_READ1:
    case NK_CMD_READOOB:
        if (!small)
            break;
        sim->pointer = cmd == NK_CMD_READ1 ? 1 : 2;
        nk_sim_expect_address(sim, NK_SIM_S_READ_ADDR, cmd, c->col_cycles + c->row_cycles);
        sim->resume_ok = false;
        return;
    case NK_CMD_READSTART:
        if (small)
            break;
        if (sim->state != NK_SIM_S_READ_ADDR || sim->addr_count < sim->addr_expected) {
            nk_sim_protocol_error(sim, cmd,
                                  sim->state == NK_SIM_S_READ_ADDR ? "30h after a short address"
                                                                   : "30h without 00h");
            sim->state = NK_SIM_S_IDLE;
            return;
        }
        nk_sim_check_array_free(sim, cmd);
        nk_sim_start_read(sim);
        return;
    case NK_CMD_COPYBACKREAD:
        if (small || !(c->features & NK_CHIP_COPYBACK))
            break;
        if (sim->state != NK_SIM_S_READ_ADDR || sim->addr_count < sim->addr_expected) {
            nk_sim_protocol_error(sim, cmd, "35h without 00h and a full address");
            sim->state = NK_SIM_S_IDLE;
            return;
        }
        nk_sim_check_array_free(sim, cmd);
        nk_sim_start_read(sim);
        if (sim->powered && sim->read_valid) {
            sim->copyback_row = sim->read_row;
            sim->counters.ops[NK_SIM_OP_COPYBACK_READ]++;
        }
        return;
    case NK_CMD_READCACHESEQ:
    case NK_CMD_READCACHEEND:
        if (small || !(c->features & NK_CHIP_CACHE_READ))
            break;
        nk_sim_cache_read(sim, cmd == NK_CMD_READCACHEEND);
        return;
    case NK_CMD_RNDOUT:
        if (small)
            break;
        if (!sim->read_valid) {
            nk_sim_protocol_error(sim, cmd, "05h without a page in the register");
            return;
        }
        nk_sim_expect_address(sim, NK_SIM_S_RNDOUT_ADDR, cmd, c->col_cycles);
        return;
    case NK_CMD_RNDOUTSTART:
        if (small)
            break;
        if (sim->state != NK_SIM_S_RNDOUT_ADDR || sim->addr_count < sim->addr_expected) {
            nk_sim_protocol_error(sim, cmd, "E0h without 05h and a column");
            return;
        }
        if (sim->read_row == UINT32_MAX)
            nk_sim_output(sim, sim->param_buf, sim->param_len, nk_sim_parse_column(sim), true);
        else
            nk_sim_output(sim, sim->reg, sim->page_bytes, nk_sim_parse_column(sim), false);
        nk_sim_count_op(sim, NK_SIM_OP_RANDOM_OUT, sim->read_row, sim->column, 0);
        return;
    case NK_CMD_SEQIN:
        if (sim->cache_read_next != UINT32_MAX)
            nk_sim_check_array_free(sim, cmd);
        sim->copyback_row = UINT32_MAX;
        nk_sim_expect_address(sim, NK_SIM_S_PROG_ADDR, cmd, c->col_cycles + c->row_cycles);
        memset(sim->reg, 0xff, sim->page_bytes);
        sim->reg_lo = sim->page_bytes;
        sim->reg_hi = 0;
        sim->read_valid = false;
        return;
    case NK_CMD_RNDIN:
        if (small)
            break;
        if (sim->state != NK_SIM_S_PROG_DATA && sim->copyback_row != UINT32_MAX &&
            (c->features & NK_CHIP_COPYBACK) && sim->state != NK_SIM_S_PROG_ADDR) {
            /* Copy-back program: the register keeps the loaded page. */
            nk_sim_expect_address(sim, NK_SIM_S_PROG_ADDR, cmd, c->col_cycles + c->row_cycles);
            sim->reg_lo = 0;
            sim->reg_hi = sim->page_bytes;
            return;
        }
        if (sim->state != NK_SIM_S_PROG_DATA) {
            nk_sim_protocol_error(sim, cmd, "85h outside a program");
            return;
        }
        sim->state = NK_SIM_S_RNDIN_ADDR;
        sim->addr_count = 0;
        sim->addr_expected = c->col_cycles;
        return;
    case NK_CMD_PAGEPROG:
    case NK_CMD_CACHEDPROG: {
        bool cache = cmd == NK_CMD_CACHEDPROG;
        if (cache && !(c->features & NK_CHIP_CACHE_PROGRAM))
            break;
        if (sim->state != NK_SIM_S_PROG_DATA && sim->state != NK_SIM_S_PROG_ADDR) {
            nk_sim_protocol_error(sim, cmd, cache ? "15h without 80h" : "10h without 80h");
            return;
        }
        if (sim->state == NK_SIM_S_PROG_ADDR && sim->addr_count < sim->addr_expected) {
            /* Confirm after a short address: the chip refuses (FAIL). */
            nk_sim_protocol_error(sim, cmd, "program confirm after a short address");
            sim->addr_short = true;
        }
        sim->state = NK_SIM_S_IDLE;
        nk_sim_confirm_program(sim, cmd);
        if (small)
            sim->pointer = sim->pointer == 1 ? 0 : sim->pointer;
        return;
    }
    case NK_CMD_ERASE1:
        nk_sim_expect_address(sim, NK_SIM_S_ERASE_ADDR, cmd, c->row_cycles);
        sim->read_valid = false;
        return;
    case NK_CMD_ERASE2:
        if (sim->state != NK_SIM_S_ERASE_ADDR || sim->addr_count < sim->addr_expected) {
            nk_sim_protocol_error(sim, cmd,
                                  sim->state == NK_SIM_S_ERASE_ADDR ? "D0h after a short address"
                                                                    : "D0h without 60h");
            sim->state = NK_SIM_S_IDLE;
            return;
        }
        sim->state = NK_SIM_S_IDLE;
        nk_sim_check_array_free(sim, cmd);
        sim->cache_status = false;
        sim->copyback_row = UINT32_MAX;
        nk_sim_op_erase(sim, nk_sim_parse_row(sim, 0));
        return;
    case NK_CMD_READID:
        nk_sim_expect_address(sim, NK_SIM_S_ID_ADDR, cmd, 1);
        return;
    case NK_CMD_PARAM:
        if (!sim->params.onfi && !sim->params.jedec)
            break;
        nk_sim_expect_address(sim, NK_SIM_S_PARAM_ADDR, cmd, 1);
        sim->read_valid = false;
        return;
    case NK_CMD_GET_FEATURES:
    case NK_CMD_SET_FEATURES:
        if (!(c->features & NK_CHIP_GET_SET_FEATURES))
            break;
        nk_sim_expect_address(
            sim, cmd == NK_CMD_GET_FEATURES ? NK_SIM_S_GETFEAT_ADDR : NK_SIM_S_SETFEAT_ADDR, cmd,
            1);
        return;
    default:
        break;
    }
    nk_sim_unknown(sim, cmd);
}

/* SET FEATURES landed: store, and act on the ones the chip implements. */
static void nk_sim_apply_feature(struct nk_sim *sim)
{
    uint8_t address = sim->feature_addr;
    if (address == 0x90 && (sim->params.chip.features & NK_CHIP_ON_DIE_ECC))
        sim->on_die_ecc = (sim->features[address][0] & 0x08u) != 0;
    uint32_t busy = sim->params.tFEAT_ns;
    sim->rdy_until = sim->now + busy;
    sim->state = NK_SIM_S_IDLE;
    nk_sim_count_op(sim, NK_SIM_OP_SET_FEATURES, UINT32_MAX, address, busy);
}

static void nk_sim_address_complete(struct nk_sim *sim)
{
    const struct nk_sim_params *p = &sim->params;
    switch (sim->state) {
    case NK_SIM_S_READ_ADDR:
        if (sim->small_page)
            nk_sim_start_read(sim); /* no confirm: the read starts now */
        return;
    case NK_SIM_S_PROG_ADDR:
        sim->in_column = nk_sim_parse_column(sim);
        sim->prog_row = nk_sim_parse_row(sim, p->chip.col_cycles);
        sim->state = NK_SIM_S_PROG_DATA;
        return;
    case NK_SIM_S_RNDIN_ADDR:
        sim->in_column = nk_sim_parse_column(sim);
        sim->state = NK_SIM_S_PROG_DATA;
        nk_sim_count_op(sim, NK_SIM_OP_RANDOM_IN, sim->prog_row, sim->in_column, 0);
        return;
    case NK_SIM_S_ID_ADDR: {
        uint8_t address = sim->addr[0];
        uint32_t len;
        bool wrap = true;
        if (address == 0x20 && p->onfi) {
            memcpy(sim->small_buf, "ONFI", 4);
            len = 4;
            wrap = false;
        } else if (address == 0x40 && p->jedec) {
            memcpy(sim->small_buf, "JEDEC", 5);
            len = 5;
            wrap = false;
        } else {
            /* Legacy parts ignore the address; the ID repeats cyclically. */
            len = p->chip.id_len ? p->chip.id_len : 1;
            memcpy(sim->small_buf, p->chip.id, sizeof p->chip.id);
        }
        nk_sim_output(sim, sim->small_buf, len, 0, wrap);
        nk_sim_count_op(sim, NK_SIM_OP_READ_ID, UINT32_MAX, address, 0);
        return;
    }
    case NK_SIM_S_PARAM_ADDR: {
        uint8_t address = sim->addr[0];
        const uint8_t *buf = NULL;
        uint32_t len = 0;
        if (address == 0x00 && p->onfi) {
            buf = sim->onfi_buf;
            len = sim->onfi_len;
        } else if (address == 0x40 && p->jedec) {
            buf = sim->jedec_buf;
            len = sim->jedec_len;
        }
        if (!buf) {
            nk_sim_protocol_error(sim, address, "ECh at an address without a parameter page");
            sim->state = NK_SIM_S_IDLE;
            return;
        }
        uint32_t busy = p->chip.timing.tR_ns;
        sim->rdy_until = sim->now + busy;
        nk_sim_output(sim, buf, len, 0, true);
        sim->read_valid = true; /* 05h/E0h may move around in it */
        sim->read_row = UINT32_MAX;
        sim->param_buf = buf; /* 05h/E0h move inside the parameter area */
        sim->param_len = len;
        nk_sim_count_op(sim, NK_SIM_OP_READ_PARAM, UINT32_MAX, address, busy);
        return;
    }
    case NK_SIM_S_GETFEAT_ADDR: {
        uint8_t address = sim->addr[0];
        memcpy(sim->small_buf, sim->features[address], 4);
        uint32_t busy = p->tFEAT_ns;
        sim->rdy_until = sim->now + busy;
        nk_sim_output(sim, sim->small_buf, 4, 0, false);
        nk_sim_count_op(sim, NK_SIM_OP_GET_FEATURES, UINT32_MAX, address, busy);
        return;
    }
    case NK_SIM_S_SETFEAT_ADDR:
        sim->feature_addr = sim->addr[0];
        sim->feature_count = 0;
        sim->state = NK_SIM_S_SETFEAT_DATA;
        return;
    default:
        return; /* erase, random data out: wait for the confirm */
    }
}

void nk_sim_chip_addr(struct nk_sim *sim, uint8_t cycle)
{
    if (nk_sim_busy(sim)) {
        nk_sim_protocol_error(sim, cycle, "address cycle while busy");
        return;
    }
    switch (sim->state) {
    case NK_SIM_S_READ_ADDR:
    case NK_SIM_S_RNDOUT_ADDR:
    case NK_SIM_S_PROG_ADDR:
    case NK_SIM_S_RNDIN_ADDR:
    case NK_SIM_S_ERASE_ADDR:
    case NK_SIM_S_ID_ADDR:
    case NK_SIM_S_PARAM_ADDR:
    case NK_SIM_S_GETFEAT_ADDR:
    case NK_SIM_S_SETFEAT_ADDR:
        if (sim->addr_count >= sim->addr_expected) {
            nk_sim_protocol_error(sim, cycle, "extra address cycle");
            return;
        }
        sim->resume_ok = false;
        sim->addr[sim->addr_count++] = cycle;
        if (sim->addr_count == sim->addr_expected)
            nk_sim_address_complete(sim);
        return;
    default:
        nk_sim_protocol_error(sim, cycle, "address cycle without a command");
        return;
    }
}

/* ----- data in (host -> chip) ----------------------------------------------- */

static void nk_sim_write_slow(struct nk_sim *sim, const uint8_t *buf, uint32_t len, uint64_t t,
                              uint32_t cycle)
{
    sim->now = t;
    if (nk_sim_busy(sim)) {
        nk_sim_protocol_error(sim, buf[0], "data in while busy");
        return;
    }
    switch (sim->state) {
    case NK_SIM_S_PROG_ADDR:
        /* Data before the address was complete: a program that must fail. */
        nk_sim_protocol_error(sim, buf[0], "data in after a short address");
        sim->addr_short = true;
        sim->in_column = 0;
        sim->prog_row = UINT32_MAX;
        sim->state = NK_SIM_S_PROG_DATA;
        break;
    case NK_SIM_S_PROG_DATA:
        break;
    case NK_SIM_S_SETFEAT_DATA:
        for (uint32_t i = 0; i < len && sim->state == NK_SIM_S_SETFEAT_DATA; i++) {
            sim->features[sim->feature_addr][sim->feature_count++] = buf[i];
            if (sim->feature_count == 4) {
                sim->now = t + (uint64_t)i * cycle; /* busy from the fourth byte */
                nk_sim_apply_feature(sim);
            }
        }
        return;
    default:
        nk_sim_protocol_error(sim, buf[0], "data in without 80h");
        return;
    }
    uint32_t column = sim->in_column;
    if (column >= sim->page_bytes || len > sim->page_bytes - column) {
        nk_sim_protocol_error(sim, buf[0], "data in past the end of the page");
        len = column >= sim->page_bytes ? 0 : sim->page_bytes - column;
        if (!len)
            return;
    }
    memcpy(sim->reg + column, buf, len);
    if (column < sim->reg_lo)
        sim->reg_lo = column;
    if (column + len > sim->reg_hi)
        sim->reg_hi = column + len;
    sim->in_column = column + len;
}

void nk_sim_chip_write(struct nk_sim *sim, const uint8_t *buf, uint32_t len, uint64_t t,
                       uint32_t cycle)
{
    sim->counters.bytes_out += len;
    if (len)
        nk_sim_write_slow(sim, buf, len, t, cycle);
}

void nk_sim_chip_write_byte(struct nk_sim *sim, uint8_t byte)
{
    sim->counters.bytes_out++;
    uint32_t column = sim->in_column;
    if (sim->state == NK_SIM_S_PROG_DATA && column < sim->page_bytes && !nk_sim_busy(sim)) {
        sim->reg[column] = byte;
        if (column < sim->reg_lo)
            sim->reg_lo = column;
        if (column >= sim->reg_hi)
            sim->reg_hi = column + 1;
        sim->in_column = column + 1;
        return;
    }
    nk_sim_write_slow(sim, &byte, 1, sim->now, 0);
}

/* ----- data out (chip -> host) ----------------------------------------------- */

static uint8_t nk_sim_garbage(struct nk_sim *sim)
{
    return (uint8_t)nk_sim_rng_next(&sim->rng_garbage);
}

static void nk_sim_read_slow(struct nk_sim *sim, uint8_t *buf, uint32_t len, uint64_t t,
                             uint32_t cycle)
{
    if (sim->state == NK_SIM_S_READ_ADDR && sim->resume_ok && sim->addr_count == 0) {
        sim->state = NK_SIM_S_OUTPUT; /* 00h after 70h: back to the page */
        sim->resume_ok = false;
    }
    switch (sim->state) {
    case NK_SIM_S_STATUS:
        for (uint32_t i = 0; i < len; i++)
            buf[i] = nk_sim_chip_status(sim, t + (uint64_t)i * cycle);
        return;
    case NK_SIM_S_OUTPUT: {
        uint32_t i = 0;
        /* Bytes clocked out before the chip is ready are not data. */
        if (t < sim->rdy_until) {
            nk_sim_protocol_error(sim, 0, "data out while busy");
            while (i < len && t + (uint64_t)i * cycle < sim->rdy_until)
                buf[i++] = nk_sim_garbage(sim);
        }
        uint32_t column = sim->column;
        while (i < len) {
            if (column < sim->out_len) {
                uint32_t n = sim->out_len - column;
                if (n > len - i)
                    n = len - i;
                memcpy(buf + i, sim->out_buf + column, n);
                i += n;
                column += n;
            } else if (sim->out_wrap && sim->out_len) {
                column = 0;
            } else {
                /* Past the last column the bus reads high. */
                memset(buf + i, 0xff, len - i);
                column += len - i;
                i = len;
            }
        }
        sim->column = column;
        return;
    }
    default:
        nk_sim_protocol_error(sim, 0, "data out with nothing to output");
        for (uint32_t i = 0; i < len; i++)
            buf[i] = nk_sim_garbage(sim);
        return;
    }
}

void nk_sim_chip_read(struct nk_sim *sim, uint8_t *buf, uint32_t len, uint64_t t, uint32_t cycle)
{
    sim->counters.bytes_in += len;
    if (len)
        nk_sim_read_slow(sim, buf, len, t, cycle);
}

uint8_t nk_sim_chip_read_byte(struct nk_sim *sim, uint64_t t)
{
    sim->counters.bytes_in++;
    uint32_t column = sim->column;
    if (sim->state == NK_SIM_S_OUTPUT && column < sim->out_len && t >= sim->rdy_until) {
        sim->column = column + 1;
        return sim->out_buf[column];
    }
    uint8_t byte;
    nk_sim_read_slow(sim, &byte, 1, t, 0);
    return byte;
}
