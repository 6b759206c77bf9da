/* SPDX-License-Identifier: MIT */
/*
 * The virtual clock: datasheet timing charged per cycle, busy periods,
 * instruction delays as edge-to-edge minimums, WAIT_READY timeouts, and the
 * K9F1G08U0A figures of the eCos library's benchmark (eCosCentric's NAND
 * library, ecos-devel list, 2009): 88.54 us read, 363.54 us program,
 * 2000.12 us erase, all asserted exactly.
 */
#include <string.h>

#include "sim_ops.h"

struct fixture {
    struct nk_sim *sim;
    const struct nk_ctrl *ctrl;
    const struct nk_chip_info *info;
    uint8_t page[2112];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->sim = sim_open_preset("K9F1G08U0A", 1);
    f->ctrl = nk_sim_ctrl(f->sim);
    f->info = &nk_sim_params(f->sim)->chip;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    nk_sim_close(f->sim);
    free(f);
    return 0;
}

static void test_full_page_read_costs_88540_ns(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = nk_sim_time_ns(f->sim);
    /* 00h + 4 address cycles + 30h, tR, 2112 read cycles. */
    assert_int_equal(sim_read(f->ctrl, f->info, 64, 0, f->page, 2112), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 25000 + 6 * 30 + 2112 * 30);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 88540);
}

static void test_full_page_program_costs_363540_ns(void **state)
{
    struct fixture *f = *state;
    memset(f->page, 0x5a, sizeof f->page);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 0x40, 0};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_out(&ops, f->page, 2112, 0);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 6 * 30 + 2112 * 30 + 300000);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 363540);
}

static void test_tadl_before_data_adds_40_ns(void **state)
{
    struct fixture *f = *state;
    memset(f->page, 0x5a, sizeof f->page);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 0x41, 0};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 70); /* tADL 70 ns, first data cycle 30 ns */
    ops_out(&ops, f->page, 2112, 0);
    ops_cmd(&ops, 0x10, 100); /* tWB: hidden inside tPROG */
    ops_wait(&ops, 0);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 363540 + 40);
    struct nk_sim_counters c;
    nk_sim_counters(f->sim, &c);
    assert_int_equal(c.delay_ns, 40);
}

static void test_block_erase_costs_2000120_ns(void **state)
{
    struct fixture *f = *state;
    uint64_t t0 = nk_sim_time_ns(f->sim);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0x40, 0x00};
    ops_cmd(&ops, 0x60, 0);
    ops_addr(&ops, cycles, 2, 0);
    ops_cmd(&ops, 0xd0, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 2000120);
}

static void test_delay_shorter_than_next_cycle_costs_nothing(void **state)
{
    struct fixture *f = *state;
    struct nk_test_ops ops = {.count = 0};
    uint8_t id[5];
    ops_cmd(&ops, 0x90, 0);
    ops_addr1(&ops, 0x00, 20); /* 20 ns < tRC 30: no extra wait */
    ops_in(&ops, id, 5, 0);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 30 + 30 + 5 * 30);
}

static void test_status_read_with_twhr(void **state)
{
    struct fixture *f = *state;
    struct nk_test_ops ops = {.count = 0};
    uint8_t status;
    ops_cmd(&ops, 0x70, 60); /* tWHR 60 before a 30 ns read cycle: 30 extra */
    ops_in(&ops, &status, 1, 0);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 30 + 30 + 30);
    assert_int_equal(status, 0xe0);
}

static void test_delay_of_last_instruction_carries_to_next_op(void **state)
{
    struct fixture *f = *state;
    struct nk_test_ops ops = {.count = 0};
    uint8_t status;
    ops_cmd(&ops, 0x70, 200);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    ops_clear(&ops);
    ops_in(&ops, &status, 1, 0);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 170 + 30);
}

static void test_wait_ready_when_ready_costs_nothing(void **state)
{
    struct fixture *f = *state;
    struct nk_test_ops ops = {.count = 0};
    ops_wait(&ops, 10);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim), t0);
}

static void test_wait_ready_timeout_advances_by_timeout(void **state)
{
    struct fixture *f = *state;
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0x40, 0x00};
    ops_cmd(&ops, 0x60, 0);
    ops_addr(&ops, cycles, 2, 0);
    ops_cmd(&ops, 0xd0, 0);
    ops_wait(&ops, 500); /* 500 us of a 2 ms erase */
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(ops_run(f->ctrl, &ops), -NK_ETIMEDOUT);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 120 + 500000);
    /* Still busy: status says so; a second wait finishes the erase. */
    assert_int_equal(sim_status(f->ctrl) & NK_STATUS_READY, 0);
    ops_clear(&ops);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, 2000120);
    assert_int_equal(sim_status(f->ctrl) & NK_STATUS_READY, NK_STATUS_READY);
}

static void test_status_turns_ready_at_end_of_tR(void **state)
{
    struct fixture *f = *state;
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 0, 0};
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_cmd(&ops, 0x30, 0);
    assert_int_equal(ops_run(f->ctrl, &ops), 0);
    uint64_t confirmed = nk_sim_time_ns(f->sim);
    assert_int_equal(sim_status(f->ctrl) & NK_STATUS_READY, 0);
    assert_int_equal(nk_sim_time_advance(f->sim, 25000 - 60 - 60), 0);
    /* The status byte is latched exactly when tR ends. */
    uint8_t status = sim_status(f->ctrl);
    assert_int_equal(nk_sim_time_ns(f->sim) - confirmed, 25000);
    assert_int_equal(status & NK_STATUS_READY, NK_STATUS_READY);
}

static void test_cache_program_overlaps_transfer_with_tprog(void **state)
{
    struct fixture *f = *state;
    memset(f->page, 0x00, sizeof f->page);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    const unsigned pages = 4;
    for (unsigned p = 0; p < pages; p++) {
        struct nk_test_ops ops = {.count = 0};
        uint8_t cycles[] = {0, 0, (uint8_t)(0x80 + p), 0};
        ops_cmd(&ops, 0x80, 0);
        ops_addr(&ops, cycles, 4, 0);
        ops_out(&ops, f->page, 2112, 0);
        ops_cmd(&ops, p + 1 < pages ? 0x15 : 0x10, 0);
        ops_wait(&ops, 0);
        assert_int_equal(ops_run(f->ctrl, &ops), 0);
        if (p == 0) /* the first 15h returns after tCBSY */
            assert_int_equal(nk_sim_time_ns(f->sim) - t0, 6 * 30 + 2112 * 30 + 3000);
    }
    /* Transfers of pages 1..3 hide under the previous tPROG; each page
     * moves from the cache to the data register (tCBSY) before it programs
     * (K9F1G08U0A datasheet, "Cache Program"): one transfer plus four
     * (tCBSY + tPROG). */
    uint64_t one = 6 * 30 + 2112 * 30;
    assert_int_equal(nk_sim_time_ns(f->sim) - t0, one + 4 * (3000 + 300000));
    struct nk_sim_counters c;
    nk_sim_counters(f->sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_PROGRAM], 3);
    assert_int_equal(c.ops[NK_SIM_OP_PROGRAM], 1);
    uint8_t back[16];
    assert_int_equal(nk_sim_page_peek(f->sim, 0x83, 0, back, sizeof back), 0);
    assert_int_equal(back[0], 0x00);
}

static void test_counters_split_bus_busy_and_delay(void **state)
{
    struct fixture *f = *state;
    nk_sim_counters_reset(f->sim);
    assert_int_equal(sim_read(f->ctrl, f->info, 5, 0, f->page, 2112), 0);
    struct nk_sim_counters c;
    nk_sim_counters(f->sim, &c);
    assert_int_equal(c.bus_ns, 6 * 30 + 2112 * 30);
    assert_int_equal(c.busy_wait_ns, 25000);
    assert_int_equal(c.delay_ns, 0);
    assert_int_equal(c.bytes_in, 2112);
    assert_int_equal(c.ops[NK_SIM_OP_READ], 1);
    assert_int_equal(c.array_ops, 1);
}

static void test_clock_interface_reads_virtual_time(void **state)
{
    struct fixture *f = *state;
    const struct nk_clock *clock = nk_sim_clock(f->sim);
    assert_int_equal(nk_sim_time_advance(f->sim, 12345), 0);
    assert_int_equal(clock->now_ns(clock->ctx), nk_sim_time_ns(f->sim));
}

static void test_small_page_read_has_no_confirm(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1208U0C", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0x20, 0, 0};
    uint8_t buf[528];
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_wait(&ops, 0);
    ops_in(&ops, buf, 528, 0);
    uint64_t t0 = nk_sim_time_ns(sim);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    /* 5 cycles at tWC 50, tR 15 us, 528 read cycles at tRC 50. */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 5 * 50 + 15000 + 528 * 50);
    nk_sim_close(sim);
}

struct trace_log {
    struct nk_sim_event events[8];
    unsigned count;
};

static void trace_record(void *ctx, const struct nk_sim_event *event)
{
    struct trace_log *log = ctx;
    if (log->count < 8)
        log->events[log->count++] = *event;
}

static void test_trace_reports_operations_with_timestamps(void **state)
{
    struct fixture *f = *state;
    struct trace_log trace = {.count = 0};
    const struct nk_sim_event *log = trace.events;
    nk_sim_trace_set(f->sim, trace_record, &trace);
    uint64_t t0 = nk_sim_time_ns(f->sim);
    assert_int_equal(sim_erase(f->ctrl, f->info, 3), NK_STATUS_WP_N | NK_STATUS_READY | 0x20);
    nk_sim_trace_set(f->sim, NULL, NULL);
    assert_true(trace.count >= 1);
    assert_int_equal(log[0].kind, NK_SIM_EVENT_OP);
    assert_int_equal(log[0].op, NK_SIM_OP_ERASE);
    assert_int_equal(log[0].row, 3 * 64);
    assert_int_equal(log[0].time_ns, t0 + 120);
    assert_int_equal(log[0].busy_ns, 2000000);
    assert_string_equal(nk_sim_op_name(log[0].op), "erase");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_full_page_read_costs_88540_ns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_page_program_costs_363540_ns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tadl_before_data_adds_40_ns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_block_erase_costs_2000120_ns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delay_shorter_than_next_cycle_costs_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_status_read_with_twhr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delay_of_last_instruction_carries_to_next_op, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_wait_ready_when_ready_costs_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_ready_timeout_advances_by_timeout, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_status_turns_ready_at_end_of_tR, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_program_overlaps_transfer_with_tprog, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_counters_split_bus_busy_and_delay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_interface_reads_virtual_time, setup, teardown),
        cmocka_unit_test(test_small_page_read_has_no_confirm),
        cmocka_unit_test_setup_teardown(test_trace_reports_operations_with_timestamps, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
