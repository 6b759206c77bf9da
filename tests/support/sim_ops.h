/* SPDX-License-Identifier: MIT */
/*
 * Hand-built instruction lists for the simulator tests: the tests drive the
 * chip cycle by cycle through its port, without the chip layer, so that
 * command sequences and timing are asserted exactly. Header-only.
 */
#ifndef NK_SIM_OPS_H
#define NK_SIM_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "nandkit/ctrl.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"
#include "testutil.h"

struct nk_test_ops {
    struct nk_instr instrs[NK_MAX_INSTRS];
    unsigned count;
};

static inline void ops_clear(struct nk_test_ops *ops)
{
    ops->count = 0;
}

static inline void ops_cmd(struct nk_test_ops *ops, uint8_t cmd, uint32_t delay_ns)
{
    ops->instrs[ops->count++] = nk_instr_cmd(cmd, delay_ns);
}

static inline void ops_addr(struct nk_test_ops *ops, const uint8_t *cycles, unsigned count,
                            uint32_t delay_ns)
{
    struct nk_instr *i = &ops->instrs[ops->count++];
    memset(i, 0, sizeof *i);
    i->type = NK_INSTR_ADDR;
    i->delay_ns = delay_ns;
    memcpy(i->u.addr.cycles, cycles, count);
    i->u.addr.count = (uint8_t)count;
}

static inline void ops_addr1(struct nk_test_ops *ops, uint8_t cycle, uint32_t delay_ns)
{
    ops_addr(ops, &cycle, 1, delay_ns);
}

static inline void ops_out(struct nk_test_ops *ops, const uint8_t *buf, uint32_t len,
                           uint32_t delay_ns)
{
    ops->instrs[ops->count++] = nk_instr_data_out(buf, len, delay_ns);
}

static inline void ops_in(struct nk_test_ops *ops, uint8_t *buf, uint32_t len, uint32_t delay_ns)
{
    ops->instrs[ops->count++] = nk_instr_data_in(buf, len, delay_ns);
}

static inline void ops_wait(struct nk_test_ops *ops, uint32_t timeout_us)
{
    ops->instrs[ops->count++] = nk_instr_wait_ready(timeout_us);
}

static inline int ops_run(const struct nk_ctrl *ctrl, const struct nk_test_ops *ops)
{
    struct nk_op op = {ops->instrs, ops->count, 0};
    return ctrl->ops->exec_op(ctrl->ctx, &op);
}

/* Column then row cycles as the part wants them. */
static inline unsigned ops_address(const struct nk_chip_info *info, uint32_t column, uint32_t row,
                                   bool with_column, uint8_t *cycles)
{
    unsigned n = 0;
    if (with_column)
        for (unsigned k = 0; k < info->col_cycles; k++)
            cycles[n++] = (uint8_t)(column >> (8 * k));
    for (unsigned k = 0; k < info->row_cycles; k++)
        cycles[n++] = (uint8_t)(row >> (8 * k));
    return n;
}

/* 70h, one status byte. */
static inline uint8_t sim_status(const struct nk_ctrl *ctrl)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t status = 0;
    ops_cmd(&ops, 0x70, 0);
    ops_in(&ops, &status, 1, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    return status;
}

/* Large page: 00h addr 30h, wait, `len` bytes from `column`. */
static inline int sim_read(const struct nk_ctrl *ctrl, const struct nk_chip_info *info,
                           uint32_t row, uint32_t column, uint8_t *buf, uint32_t len)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[8];
    unsigned n = ops_address(info, column, row, true, cycles);
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, n, 0);
    ops_cmd(&ops, 0x30, 0);
    ops_wait(&ops, 0);
    ops_in(&ops, buf, len, 0);
    return ops_run(ctrl, &ops);
}

/* Large page: 80h addr data 10h, wait; returns the status byte (or a
 * negative port error). */
static inline int sim_program(const struct nk_ctrl *ctrl, const struct nk_chip_info *info,
                              uint32_t row, uint32_t column, const uint8_t *buf, uint32_t len)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[8];
    unsigned n = ops_address(info, column, row, true, cycles);
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, n, 0);
    ops_out(&ops, buf, len, 0);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    int err = ops_run(ctrl, &ops);
    return err ? err : sim_status(ctrl);
}

/* 60h row D0h, wait; returns the status byte (or a port error). */
static inline int sim_erase(const struct nk_ctrl *ctrl, const struct nk_chip_info *info,
                            uint32_t block)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[8];
    unsigned n = ops_address(info, 0, block * info->pages_per_block, false, cycles);
    ops_cmd(&ops, 0x60, 0);
    ops_addr(&ops, cycles, n, 0);
    ops_cmd(&ops, 0xd0, 0);
    ops_wait(&ops, 0);
    int err = ops_run(ctrl, &ops);
    return err ? err : sim_status(ctrl);
}

/* A memory-backed sim of a preset with default faults. */
static inline struct nk_sim *sim_open_preset(const char *preset, uint64_t seed)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = preset;
    config.seed = seed;
    struct nk_sim *sim = NULL;
    struct nk_diag why[1];
    int err = nk_sim_open(&sim, &config, why);
    if (err)
        fail_msg("nk_sim_open(%s): %s", preset, why->text);
    return sim;
}

#endif
