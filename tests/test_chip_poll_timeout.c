/* SPDX-License-Identifier: MIT */
/*
 * Status polling on ports without an R/B line ends after the stated timeout
 * of the port's clock, however long one status read takes on that bus.
 *
 * A wrapper port stands between the chip layer and the simulator's port: it
 * makes every status read slow (the virtual clock advances by `extra_ns`
 * after it, as on a bus behind a slow bridge) and, when `never_ready` is
 * set, answers every status read with the chip still busy. A bound counted
 * in polls runs for polls x (bus time + extra_ns): the count the chip layer
 * used to derive from the K9F1G08U0A's cycle times (4 ms / 120 ns = 33,335
 * polls) took 670 ms of virtual time with 20 µs status reads, 167 times
 * the 4 ms erase timeout. Only virtual time is measured; host time decides
 * nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"
#include "nandkit/spinand.h"
#include "sim_ops.h"

#define SLOW_STATUS_NS 20000u

struct slow_port {
    struct nk_ctrl ctrl;
    struct nk_sim *sim;
    const struct nk_ctrl *inner;
    uint64_t extra_ns; /* virtual time added after each status read */
    bool never_ready;  /* status reads say busy */
    unsigned status_reads;
};

/* Parallel: an operation that is CMD 70h followed by one DATA_IN. */
static bool is_status_read(const struct nk_op *op)
{
    return op->count == 2 && op->instrs[0].type == NK_INSTR_CMD &&
           op->instrs[0].u.cmd == NK_CMD_STATUS && op->instrs[1].type == NK_INSTR_DATA_IN;
}

static int slow_exec_op(void *ctx, const struct nk_op *op)
{
    struct slow_port *p = ctx;
    int err = p->inner->ops->exec_op(p->inner->ctx, op);
    if (err || !is_status_read(op))
        return err;
    p->status_reads++;
    if (p->never_ready)
        op->instrs[1].u.in.buf[0] &= (uint8_t) ~(NK_STATUS_READY | NK_STATUS_ARRAY_READY);
    return nk_sim_time_advance(p->sim, p->extra_ns);
}

static int slow_exec_spi(void *ctx, const struct nk_spi_op *op)
{
    struct slow_port *p = ctx;
    int err = p->inner->ops->exec_spi(p->inner->ctx, op);
    bool status =
        op->cmd.opcode == NK_SPINAND_GET_FEATURE && op->addr.value == NK_SPINAND_FEATURE_STATUS;
    if (err || !status)
        return err;
    p->status_reads++;
    if (p->never_ready)
        op->data.in[0] |= NK_SPINAND_STATUS_OIP;
    return nk_sim_time_advance(p->sim, p->extra_ns);
}

static uint32_t slow_clock_ticks(void *ctx)
{
    const struct slow_port *p = ctx;
    return (uint32_t)nk_sim_time_ns(p->sim);
}

/* exec_spi without poll_spi: the chip layer polls itself. */
static const struct nk_ctrl_ops slow_ops = {
    .exec_op = slow_exec_op,
    .exec_spi = slow_exec_spi,
    .clock_ticks = slow_clock_ticks,
};

static void slow_port_open(struct slow_port *p, const char *preset)
{
    memset(p, 0, sizeof *p);
    p->sim = sim_open_preset(preset, 3);
    p->inner = nk_sim_ctrl_no_rb(p->sim);
    p->ctrl.ops = &slow_ops;
    p->ctrl.ctx = p;
    p->ctrl.caps = p->inner->caps & ~NK_CTRL_CAP_RB_LINE;
    p->ctrl.spi = p->inner->spi;
    p->ctrl.clock_mhz = 1000;
}

/* The port, and a chip identified through it at the bus's own pace. */
static void slow_chip_open(struct slow_port *p, struct nk_chip *chip, const char *preset)
{
    slow_port_open(p, preset);
    assert_int_equal(nk_chip_identify(chip, &p->ctrl, 0), 0);
}

/* The timeout the chip layer names in its message ("... after N us"). */
static uint64_t stated_timeout_ns(const struct nk_chip *chip)
{
    const char *after = strstr(chip->diag.text, "after ");
    assert_non_null(after);
    unsigned us = 0;
    assert_int_equal(sscanf(after, "after %u us", &us), 1);
    return (uint64_t)us * 1000u;
}

/* The wait ends within two status reads past the timeout (the one during
 * which time ran out, and the last): never before it, and not after many
 * more. `poll_ns` is one status read's time. */
static void assert_ended_at_timeout(uint64_t elapsed_ns, uint64_t timeout_ns, uint64_t poll_ns)
{
    assert_true(elapsed_ns >= timeout_ns);
    assert_true(elapsed_ns <= timeout_ns + 2 * poll_ns);
}

static void test_slow_status_reads_of_a_chip_never_ready_end_at_the_erase_timeout(void **state)
{
    (void)state;
    struct slow_port p;
    struct nk_chip chip;
    slow_chip_open(&p, &chip, "K9F1G08U0A");
    p.extra_ns = SLOW_STATUS_NS;
    p.never_ready = true;
    p.status_reads = 0;
    uint64_t t0 = nk_sim_time_ns(p.sim);
    assert_int_equal(nk_chip_erase_block(&chip, 64), -NK_ETIMEDOUT);
    uint64_t elapsed = nk_sim_time_ns(p.sim) - t0;
    uint64_t timeout = stated_timeout_ns(&chip);
    assert_true(timeout >= chip.info.timing.tBERS_max_ns);
    assert_ended_at_timeout(elapsed, timeout, SLOW_STATUS_NS + 1000u);
    /* Each read took 20 µs: the count follows from the time, not the reverse. */
    assert_in_range(p.status_reads, timeout / (SLOW_STATUS_NS + 1000u),
                    timeout / SLOW_STATUS_NS + 2);
    nk_sim_close(p.sim);
}

static void test_fast_status_reads_of_a_chip_never_ready_end_at_the_read_timeout(void **state)
{
    (void)state;
    struct slow_port p;
    struct nk_chip chip;
    slow_chip_open(&p, &chip, "K9F1G08U0A");
    p.never_ready = true;
    uint8_t data[64];
    struct nk_xfer x = {0, sizeof data, data};
    uint64_t t0 = nk_sim_time_ns(p.sim);
    assert_int_equal(nk_chip_read_page(&chip, 5, &x, 1), -NK_ETIMEDOUT);
    uint64_t elapsed = nk_sim_time_ns(p.sim) - t0;
    uint64_t timeout = stated_timeout_ns(&chip);
    assert_ended_at_timeout(elapsed, timeout, 1000u);
    nk_sim_close(p.sim);
}

static void test_slow_status_reads_still_see_the_chip_become_ready(void **state)
{
    (void)state;
    struct slow_port p;
    struct nk_chip chip;
    slow_chip_open(&p, &chip, "K9F1G08U0A");
    p.extra_ns = SLOW_STATUS_NS;
    uint64_t t0 = nk_sim_time_ns(p.sim);
    assert_int_equal(nk_chip_erase_block(&chip, 64), 0);
    uint64_t elapsed = nk_sim_time_ns(p.sim) - t0;
    /* Ready at tBERS (2 ms); seen by the first status read after it. */
    assert_in_range(elapsed, chip.info.timing.tBERS_ns,
                    chip.info.timing.tBERS_ns + 2 * SLOW_STATUS_NS);
    nk_sim_close(p.sim);
}

static void test_spinand_polling_without_poll_spi_ends_at_the_timeout(void **state)
{
    (void)state;
    struct slow_port p;
    struct nk_chip chip;
    slow_chip_open(&p, &chip, "MX35LF1GE4AB");
    assert_true(p.ctrl.caps & NK_CTRL_CAP_SERIAL);
    p.extra_ns = SLOW_STATUS_NS;
    p.never_ready = true;
    uint64_t t0 = nk_sim_time_ns(p.sim);
    assert_int_equal(nk_chip_erase_block(&chip, 0), -NK_ETIMEDOUT);
    uint64_t elapsed = nk_sim_time_ns(p.sim) - t0;
    assert_ended_at_timeout(elapsed, stated_timeout_ns(&chip), SLOW_STATUS_NS + 1000u);
    nk_sim_close(p.sim);
}

static void test_a_port_that_polls_status_without_a_clock_is_refused(void **state)
{
    (void)state;
    struct slow_port p;
    slow_port_open(&p, "K9F1G08U0A");
    p.ctrl.clock_mhz = 0;
    struct nk_chip chip;
    assert_int_equal(nk_chip_identify(&chip, &p.ctrl, 0), -NK_EINVAL);
    assert_non_null(strstr(chip.diag.text, "no clock"));
    assert_int_equal(p.status_reads, 0);
    nk_sim_close(p.sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slow_status_reads_of_a_chip_never_ready_end_at_the_erase_timeout),
        cmocka_unit_test(test_fast_status_reads_of_a_chip_never_ready_end_at_the_read_timeout),
        cmocka_unit_test(test_slow_status_reads_still_see_the_chip_become_ready),
        cmocka_unit_test(test_spinand_polling_without_poll_spi_ends_at_the_timeout),
        cmocka_unit_test(test_a_port_that_polls_status_without_a_clock_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
