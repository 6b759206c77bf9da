/* SPDX-License-Identifier: MIT */
/*
 * The simulator's pipelined commands and their rules, driven cycle by cycle:
 * cache program (status of the previous page, array-busy bit, one block per
 * sequence, the last page with 10h), read cache 31h/3Fh with tRCBSY,
 * copy-back within a plane, and several targets on one bus.
 */
#include <string.h>

#include "sim_ops.h"

#define K9_PAGE 2112u

static uint64_t protocol_errors(const struct nk_sim *sim)
{
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    return c.protocol_errors;
}

/* 80h row data `confirm` (10h/15h) and the wait. */
static void program_with(const struct nk_ctrl *ctrl, const struct nk_chip_info *info, uint32_t row,
                         const uint8_t *buf, uint8_t confirm)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[8];
    unsigned n = ops_address(info, 0, row, true, cycles);
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, n, 0);
    ops_out(&ops, buf, info->page_size + info->oob_size, 0);
    ops_cmd(&ops, confirm, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

/* One command and the wait. */
static void command_wait(const struct nk_ctrl *ctrl, uint8_t cmd)
{
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, cmd, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

static void read_data(const struct nk_ctrl *ctrl, uint8_t *buf, uint32_t len)
{
    struct nk_test_ops ops = {.count = 0};
    ops_in(&ops, buf, len, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

/* 00h row `confirm` (30h or 35h) and the wait. */
static void load_page(const struct nk_ctrl *ctrl, const struct nk_chip_info *info, uint32_t row,
                      uint8_t confirm)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[8];
    unsigned n = ops_address(info, 0, row, true, cycles);
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, n, 0);
    ops_cmd(&ops, confirm, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

/* 85h destination 10h and the wait: the copy-back program. */
static void copyback_to(const struct nk_ctrl *ctrl, const struct nk_chip_info *info, uint32_t row)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[8];
    unsigned n = ops_address(info, 0, row, true, cycles);
    ops_cmd(&ops, 0x85, 0);
    ops_addr(&ops, cycles, n, 0);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 7u + seed * 13u + (i >> 8));
}

static bool page_is_erased(struct nk_sim *sim, uint32_t row, uint32_t len)
{
    uint8_t buf[K9_PAGE];
    assert_int_equal(nk_sim_page_peek(sim, row, 0, buf, len), 0);
    for (uint32_t i = 0; i < len; i++)
        if (buf[i] != 0xff)
            return false;
    return true;
}

/* ----- cache program -------------------------------------------------------------- */

static void test_cache_program_status_is_the_previous_page_while_the_array_works(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[K9_PAGE];
    fill(page, sizeof page, 1);
    assert_int_equal(nk_sim_fail_inject(sim, 3, NK_SIM_FAIL_PROGRAM, false), 0);
    uint32_t row = 3 * 64;
    program_with(ctrl, info, row, page, 0x15); /* fails, but only in the array */
    uint8_t status = sim_status(ctrl);
    assert_int_equal(status & (NK_STATUS_READY | NK_STATUS_ARRAY_READY), NK_STATUS_READY);
    assert_int_equal(status & NK_STATUS_FAIL, 0); /* no previous page yet */
    program_with(ctrl, info, row + 1, page, 0x15);
    status = sim_status(ctrl);
    assert_int_equal(status & NK_STATUS_ARRAY_READY, 0);
    assert_int_equal(status & NK_STATUS_FAIL, NK_STATUS_FAIL); /* page 0 failed */
    program_with(ctrl, info, row + 2, page, 0x10);
    status = sim_status(ctrl);
    /* After 10h: every page done; FAIL is page 2, FAILC page 1. */
    assert_int_equal(status & NK_STATUS_ARRAY_READY, NK_STATUS_ARRAY_READY);
    assert_int_equal(status & (NK_STATUS_FAIL | NK_STATUS_FAIL_N1), 0);
    /* Two pages, the first failing: after 10h FAILC reports it... */
    assert_int_equal(nk_sim_fail_inject(sim, 4, NK_SIM_FAIL_PROGRAM, false), 0);
    program_with(ctrl, info, 4 * 64, page, 0x15);
    program_with(ctrl, info, 4 * 64 + 1, page, 0x10);
    status = sim_status(ctrl);
    assert_int_equal(status & (NK_STATUS_FAIL | NK_STATUS_FAIL_N1), NK_STATUS_FAIL_N1);
    /* ...and a page read that follows has a status of its own. */
    load_page(ctrl, info, 0, 0x30);
    assert_int_equal(sim_status(ctrl) & (NK_STATUS_FAIL | NK_STATUS_FAIL_N1), 0);
    nk_sim_close(sim);
}

static void test_last_page_with_10h_waits_for_every_page(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t a[K9_PAGE], b[K9_PAGE], back[K9_PAGE];
    fill(a, sizeof a, 2);
    fill(b, sizeof b, 3);
    uint64_t t0 = nk_sim_time_ns(sim);
    program_with(ctrl, info, 128, a, 0x15);
    /* 15h returns after tCBSY; the array programs on. */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 6 * 30 + K9_PAGE * 30 + 3000);
    program_with(ctrl, info, 129, b, 0x10);
    /* R/B stays low until page 129 is programmed: it starts after page 128
     * ended and moved to the data register (tCBSY). */
    uint64_t expected = 6 * 30 + K9_PAGE * 30 + 2 * (3000 + 300000);
    assert_int_equal(nk_sim_time_ns(sim) - t0, expected);
    assert_int_equal(nk_sim_page_peek(sim, 128, 0, back, K9_PAGE), 0);
    assert_memory_equal(back, a, K9_PAGE);
    assert_int_equal(nk_sim_page_peek(sim, 129, 0, back, K9_PAGE), 0);
    assert_memory_equal(back, b, K9_PAGE);
    nk_sim_close(sim);
}

static void test_cache_program_across_a_block_is_refused(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[K9_PAGE];
    fill(page, sizeof page, 4);
    program_with(ctrl, info, 5 * 64 + 63, page, 0x15);
    assert_int_equal(protocol_errors(sim), 0);
    program_with(ctrl, info, 6 * 64, page, 0x10);
    assert_int_equal(protocol_errors(sim), 1);
    assert_int_equal(sim_status(ctrl) & NK_STATUS_FAIL, NK_STATUS_FAIL);
    assert_true(page_is_erased(sim, 6 * 64, K9_PAGE));
    nk_sim_close(sim);
}

static void test_page_read_before_the_array_is_idle_is_a_protocol_error(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[K9_PAGE];
    fill(page, sizeof page, 5);
    program_with(ctrl, info, 64, page, 0x15);
    load_page(ctrl, info, 0, 0x30);
    assert_int_equal(protocol_errors(sim), 1);
    nk_sim_close(sim);
}

/* ----- read cache ----------------------------------------------------------------- */

#define MT_PAGE 2112u

static void test_read_cache_streams_pages_at_max_tr_transfer_plus_trcbsy(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    static uint8_t pages[4][MT_PAGE], back[MT_PAGE];
    for (unsigned p = 0; p < 4; p++) {
        fill(pages[p], MT_PAGE, 10 + p);
        assert_int_equal(sim_program(ctrl, info, 64 + p, 0, pages[p], MT_PAGE) & NK_STATUS_FAIL, 0);
    }
    load_page(ctrl, info, 64, 0x30);
    uint64_t t[4];
    for (unsigned p = 0; p < 4; p++) {
        command_wait(ctrl, p == 3 ? 0x3f : 0x31);
        read_data(ctrl, back, MT_PAGE);
        assert_memory_equal(back, pages[p], MT_PAGE);
        t[p] = nk_sim_time_ns(sim);
    }
    /* Steady state: the next page loaded (tR = 25 us) while the host read
     * this one (42.24 us), so a page costs 31h + tRCBSY + the transfer. */
    assert_int_equal(t[2] - t[1], 20 + 3000 + MT_PAGE * 20);
    assert_int_equal(t[3] - t[2], 20 + 3000 + MT_PAGE * 20);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_READ], 4);
    assert_int_equal(c.protocol_errors, 0);
    nk_sim_close(sim);
}

static void test_read_cache_waits_for_tr_when_the_host_is_faster(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t byte;
    load_page(ctrl, info, 64, 0x30);
    command_wait(ctrl, 0x31);
    uint64_t t0 = nk_sim_time_ns(sim);
    read_data(ctrl, &byte, 1); /* a short read: the load of page 65 is still on */
    command_wait(ctrl, 0x3f);
    /* The load started after tRCBSY of the first 31h (before t0): it ends
     * tR after that; then tRCBSY. */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 25000 + 3000);
    nk_sim_close(sim);
}

static void test_31h_on_the_last_page_of_a_block_is_a_protocol_error(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    load_page(ctrl, info, 64 + 63, 0x30);
    command_wait(ctrl, 0x31);
    assert_int_equal(protocol_errors(sim), 1);
    nk_sim_close(sim);
}

static void test_array_command_inside_a_read_cache_sequence_is_a_protocol_error(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    load_page(ctrl, info, 64, 0x30);
    command_wait(ctrl, 0x31);
    assert_int_equal(protocol_errors(sim), 0);
    load_page(ctrl, info, 200, 0x30);
    assert_int_equal(protocol_errors(sim), 1);
    nk_sim_close(sim);
}

static void test_3fh_without_a_sequence_is_a_protocol_error(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    command_wait(ctrl, 0x3f);
    assert_int_equal(protocol_errors(sim), 1);
    command_wait(ctrl, 0x31); /* nothing loaded */
    assert_int_equal(protocol_errors(sim), 2);
    nk_sim_close(sim);
}

static void test_read_cache_is_unknown_to_parts_without_it(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    load_page(ctrl, info, 0, 0x30);
    command_wait(ctrl, 0x31);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.unknown_commands, 1);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_READ], 0);
    nk_sim_close(sim);
}

/* ----- copy-back ------------------------------------------------------------------ */

static void test_copyback_moves_a_page_within_its_plane(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    static uint8_t page[MT_PAGE], back[MT_PAGE];
    fill(page, sizeof page, 20);
    uint32_t src = 2 * 64 + 5, dst = 4 * 64; /* blocks 2 and 4: the same plane */
    assert_int_equal(sim_program(ctrl, info, src, 0, page, MT_PAGE) & NK_STATUS_FAIL, 0);
    load_page(ctrl, info, src, 0x35);
    read_data(ctrl, back, MT_PAGE); /* the read-out for the ECC check */
    assert_memory_equal(back, page, MT_PAGE);
    copyback_to(ctrl, info, dst);
    assert_int_equal(sim_status(ctrl) & NK_STATUS_FAIL, 0);
    assert_int_equal(nk_sim_page_peek(sim, dst, 0, back, MT_PAGE), 0);
    assert_memory_equal(back, page, MT_PAGE);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_COPYBACK_READ], 1);
    assert_int_equal(c.ops[NK_SIM_OP_COPYBACK_PROGRAM], 1);
    assert_int_equal(c.protocol_errors, 0);
    nk_sim_close(sim);
}

static void test_copyback_across_planes_is_refused(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    static uint8_t page[MT_PAGE];
    fill(page, sizeof page, 21);
    assert_int_equal(sim_program(ctrl, info, 2 * 64, 0, page, MT_PAGE) & NK_STATUS_FAIL, 0);
    load_page(ctrl, info, 2 * 64, 0x35);
    copyback_to(ctrl, info, 3 * 64); /* odd block: the other plane */
    assert_int_equal(protocol_errors(sim), 1);
    assert_int_equal(sim_status(ctrl) & NK_STATUS_FAIL, NK_STATUS_FAIL);
    assert_true(page_is_erased(sim, 3 * 64, MT_PAGE));
    nk_sim_close(sim);
}

static void test_copyback_between_odd_and_even_pages_is_refused_where_the_part_says(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("K9F1G08U0A", &params), 0);
    params.chip.features |= NK_CHIP_COPYBACK_PARITY;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[K9_PAGE], back[K9_PAGE];
    fill(page, sizeof page, 22);
    assert_int_equal(sim_program(ctrl, info, 64, 0, page, K9_PAGE) & NK_STATUS_FAIL, 0);
    load_page(ctrl, info, 64, 0x35);
    copyback_to(ctrl, info, 129); /* even to odd */
    assert_int_equal(protocol_errors(sim), 1);
    assert_true(page_is_erased(sim, 129, K9_PAGE));
    load_page(ctrl, info, 64, 0x35);
    copyback_to(ctrl, info, 130); /* even to even */
    assert_int_equal(protocol_errors(sim), 1);
    assert_int_equal(nk_sim_page_peek(sim, 130, 0, back, K9_PAGE), 0);
    assert_memory_equal(back, page, K9_PAGE);
    nk_sim_close(sim);
}

static void test_copyback_program_without_its_read_is_a_protocol_error(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    load_page(ctrl, info, 0, 0x30); /* a plain read is no copy-back source */
    copyback_to(ctrl, info, 64);
    assert_true(protocol_errors(sim) >= 1);
    assert_true(page_is_erased(sim, 64, K9_PAGE));
    nk_sim_close(sim);
}

/* ----- several targets on one bus ------------------------------------------------- */

static int run_on(const struct nk_ctrl *ctrl, const struct nk_test_ops *ops, unsigned cs)
{
    struct nk_op op = {ops->instrs, ops->count, cs};
    return ctrl->ops->exec_op(ctrl->ctx, &op);
}

struct bus_fixture {
    struct nk_sim *sims[2];
    struct nk_sim_bus *bus;
    const struct nk_ctrl *ctrl;
    const struct nk_chip_info *info;
};

static void bus_open(struct bus_fixture *b)
{
    b->sims[0] = sim_open_preset("K9F1G08U0A", 1);
    b->sims[1] = sim_open_preset("K9F1G08U0A", 2);
    assert_int_equal(nk_sim_bus_open(&b->bus, b->sims, 2, 0), 0);
    b->ctrl = nk_sim_bus_ctrl(b->bus);
    b->info = &nk_sim_params(b->sims[0])->chip;
    assert_true(b->ctrl->caps & NK_CTRL_CAP_INDEPENDENT_TARGETS);
}

static void bus_close(struct bus_fixture *b)
{
    nk_sim_bus_close(b->bus);
    nk_sim_close(b->sims[0]);
    nk_sim_close(b->sims[1]);
}

static void test_targets_keep_their_own_busy_state(void **state)
{
    (void)state;
    struct bus_fixture b;
    bus_open(&b);
    uint8_t page[K9_PAGE], back[K9_PAGE];
    fill(page, sizeof page, 30);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[4] = {0, 0, 64, 0};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_out(&ops, page, K9_PAGE, 0);
    ops_cmd(&ops, 0x10, 0);
    uint64_t t0 = nk_sim_bus_time_ns(b.bus);
    assert_int_equal(run_on(b.ctrl, &ops, 0), 0); /* target 0 programs... */
    uint64_t confirmed = nk_sim_bus_time_ns(b.bus);
    assert_int_equal(confirmed - t0, 6 * 30 + K9_PAGE * 30);
    ops_clear(&ops);
    cycles[2] = 0;
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_cmd(&ops, 0x30, 0);
    ops_wait(&ops, 0);
    ops_in(&ops, back, K9_PAGE, 0);
    assert_int_equal(run_on(b.ctrl, &ops, 1), 0); /* ...while target 1 reads */
    assert_int_equal(nk_sim_bus_time_ns(b.bus) - confirmed, 6 * 30 + 25000 + K9_PAGE * 30);
    ops_clear(&ops);
    uint8_t status = 0;
    ops_cmd(&ops, 0x70, 0);
    ops_in(&ops, &status, 1, 0);
    assert_int_equal(run_on(b.ctrl, &ops, 0), 0);
    assert_int_equal(status & NK_STATUS_READY, 0); /* target 0 is still busy */
    ops_clear(&ops);
    ops_wait(&ops, 0);
    assert_int_equal(run_on(b.ctrl, &ops, 0), 0);
    assert_int_equal(nk_sim_bus_time_ns(b.bus) - confirmed, 300000);
    assert_int_equal(nk_sim_page_peek(b.sims[0], 64, 0, back, K9_PAGE), 0);
    assert_memory_equal(back, page, K9_PAGE);
    assert_true(page_is_erased(b.sims[1], 64, K9_PAGE));
    bus_close(&b);
}

static void test_transfers_on_the_bus_never_overlap(void **state)
{
    (void)state;
    struct bus_fixture b;
    bus_open(&b);
    uint8_t page[K9_PAGE];
    fill(page, sizeof page, 31);
    uint64_t t0 = nk_sim_bus_time_ns(b.bus);
    for (unsigned i = 0; i < 6; i++) {
        struct nk_test_ops ops = {.count = 0};
        uint8_t cycles[4] = {0, 0, (uint8_t)(i / 2), 1};
        ops_cmd(&ops, 0x80, 0);
        ops_addr(&ops, cycles, 4, 0);
        ops_out(&ops, page, K9_PAGE, 0);
        ops_cmd(&ops, 0x10, 0);
        ops_wait(&ops, 0);
        assert_int_equal(run_on(b.ctrl, &ops, i % 2), 0);
    }
    struct nk_sim_counters c0, c1;
    nk_sim_counters(b.sims[0], &c0);
    nk_sim_counters(b.sims[1], &c1);
    uint64_t elapsed = nk_sim_bus_time_ns(b.bus) - t0;
    assert_int_equal(c0.bus_ns + c1.bus_ns, 6 * (6 * 30 + K9_PAGE * 30));
    assert_true(c0.bus_ns + c1.bus_ns <= elapsed);
    bus_close(&b);
}

static void test_switching_targets_inside_an_address_is_a_protocol_error(void **state)
{
    (void)state;
    struct bus_fixture b;
    bus_open(&b);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[2] = {0, 0};
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 2, 0); /* two of four address cycles */
    assert_int_equal(run_on(b.ctrl, &ops, 0), 0);
    ops_clear(&ops);
    uint8_t status;
    ops_cmd(&ops, 0x70, 0);
    ops_in(&ops, &status, 1, 0);
    assert_int_equal(run_on(b.ctrl, &ops, 1), 0);
    assert_int_equal(protocol_errors(b.sims[0]), 1);
    assert_int_equal(protocol_errors(b.sims[1]), 0);
    bus_close(&b);
}

static void test_a_select_without_a_target_floats(void **state)
{
    (void)state;
    struct bus_fixture b;
    bus_open(&b);
    struct nk_test_ops ops = {.count = 0};
    uint8_t id[2] = {0, 0};
    ops_cmd(&ops, 0x90, 0);
    ops_addr1(&ops, 0, 0);
    ops_in(&ops, id, 2, 0);
    assert_int_equal(run_on(b.ctrl, &ops, 5), 0);
    assert_int_equal(id[0], 0xff);
    assert_int_equal(id[1], 0xff);
    assert_int_equal(run_on(b.ctrl, &ops, 1), 0);
    assert_int_equal(id[0], 0xec);
    assert_int_equal(nk_sim_bus_open(&(struct nk_sim_bus *){NULL}, b.sims, 0, 0), -NK_EINVAL);
    bus_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_program_status_is_the_previous_page_while_the_array_works),
        cmocka_unit_test(test_last_page_with_10h_waits_for_every_page),
        cmocka_unit_test(test_cache_program_across_a_block_is_refused),
        cmocka_unit_test(test_page_read_before_the_array_is_idle_is_a_protocol_error),
        cmocka_unit_test(test_read_cache_streams_pages_at_max_tr_transfer_plus_trcbsy),
        cmocka_unit_test(test_read_cache_waits_for_tr_when_the_host_is_faster),
        cmocka_unit_test(test_31h_on_the_last_page_of_a_block_is_a_protocol_error),
        cmocka_unit_test(test_array_command_inside_a_read_cache_sequence_is_a_protocol_error),
        cmocka_unit_test(test_3fh_without_a_sequence_is_a_protocol_error),
        cmocka_unit_test(test_read_cache_is_unknown_to_parts_without_it),
        cmocka_unit_test(test_copyback_moves_a_page_within_its_plane),
        cmocka_unit_test(test_copyback_across_planes_is_refused),
        cmocka_unit_test(test_copyback_between_odd_and_even_pages_is_refused_where_the_part_says),
        cmocka_unit_test(test_copyback_program_without_its_read_is_a_protocol_error),
        cmocka_unit_test(test_targets_keep_their_own_busy_state),
        cmocka_unit_test(test_transfers_on_the_bus_never_overlap),
        cmocka_unit_test(test_switching_targets_inside_an_address_is_a_protocol_error),
        cmocka_unit_test(test_a_select_without_a_target_floats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
