/* SPDX-License-Identifier: MIT */
/*
 * Power loss: cut at array operation N or at virtual time T. An interrupted
 * program leaves a torn page (a subset of its 1->0 transitions), an
 * interrupted erase a partly erased block whose bits read unstably until
 * the next erase; the port refuses every operation until power returns;
 * everything is reproducible from the seed. A reset during a program
 * aborts it the same way.
 */
#include <string.h>

#include "sim_ops.h"

static struct nk_sim *open_seeded(uint64_t seed)
{
    return sim_open_preset("K9F1G08U0A", seed);
}

/* Bits set in `got` but clear in `before` (impossible for a program), and
 * intended transitions that did / did not land. */
struct torn {
    unsigned impossible, landed, missing;
};

static struct torn classify(const uint8_t *before, const uint8_t *data, const uint8_t *got,
                            size_t len)
{
    struct torn t = {0, 0, 0};
    for (size_t i = 0; i < len; i++) {
        uint8_t intended = (uint8_t)(before[i] & ~data[i]); /* 1 -> 0 transitions */
        t.impossible += (unsigned)__builtin_popcount((unsigned)(got[i] & ~before[i]));
        t.impossible += (unsigned)__builtin_popcount((unsigned)(~got[i] & before[i] & data[i]));
        t.landed += (unsigned)__builtin_popcount((unsigned)(intended & ~got[i]));
        t.missing += (unsigned)__builtin_popcount((unsigned)(intended & got[i]));
    }
    return t;
}

static void test_cut_after_n_operations_tears_the_next_program(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(21);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t before[2112], data[2112], got[2112];
    nk_test_random(before, sizeof before, 1);
    nk_test_random(data, sizeof data, 2);
    assert_int_equal(sim_program(ctrl, info, 0, 0, before, sizeof before), 0xe0);
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, before, sizeof before), 0);
    nk_sim_power_cut_after(sim, 0); /* the very next array operation */
    assert_int_equal(sim_program(ctrl, info, 0, 0, data, sizeof data), -NK_ENODEV);
    assert_false(nk_sim_powered(sim));
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, got, sizeof got), 0);
    struct torn t = classify(before, data, got, sizeof got);
    assert_int_equal(t.impossible, 0);
    assert_true(t.landed > 0);
    /* Cut before the end: some transitions missing, or (cut in the last
     * quarter of tPROG) all landed but some of them weak. */
    struct nk_sim_weak_state weak;
    assert_true(t.missing > 0 || (nk_sim_page_weak(sim, 0, &weak) == 0 && weak.weak_bits > 0));
    nk_sim_close(sim);
}

static void test_no_operation_until_power_returns(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    nk_sim_power_cut_now(sim);
    uint8_t buf[16];
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x70, 0);
    assert_int_equal(ops_run(ctrl, &ops), -NK_ENODEV);
    assert_int_equal(sim_read(ctrl, info, 0, 0, buf, sizeof buf), -NK_ENODEV);
    assert_int_equal(ops_run(nk_sim_ctrl_no_rb(sim), &ops), -NK_ENODEV);
    nk_sim_power_restore(sim);
    assert_true(nk_sim_powered(sim));
    assert_int_equal(sim_status(ctrl), 0xe0);
    assert_int_equal(sim_read(ctrl, info, 0, 0, buf, sizeof buf), 0);
    nk_sim_close(sim);
}

static void test_operations_before_the_cut_complete(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(4);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[2112], got[2112];
    memset(data, 0x00, sizeof data);
    nk_sim_power_cut_after(sim, 3);
    for (uint32_t p = 0; p < 3; p++)
        assert_int_equal(sim_program(ctrl, info, p, 0, data, sizeof data), 0xe0);
    assert_int_equal(sim_program(ctrl, info, 3, 0, data, sizeof data), -NK_ENODEV);
    for (uint32_t p = 0; p < 3; p++) {
        assert_int_equal(nk_sim_page_peek(sim, p, 0, got, sizeof got), 0);
        assert_memory_equal(got, data, sizeof data);
    }
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.array_ops, 4);
    nk_sim_close(sim);
}

static void test_torn_page_is_reproducible_from_the_seed(void **state)
{
    (void)state;
    uint8_t data[2112], a[2112], b[2112], c[2112];
    memset(data, 0x00, sizeof data);
    uint8_t *out[3] = {a, b, c};
    const uint64_t seeds[3] = {77, 77, 78};
    for (unsigned i = 0; i < 3; i++) {
        struct nk_sim *sim = open_seeded(seeds[i]);
        nk_sim_power_cut_after(sim, 0);
        assert_int_equal(
            sim_program(nk_sim_ctrl(sim), &nk_sim_params(sim)->chip, 5, 0, data, sizeof data),
            -NK_ENODEV);
        assert_int_equal(nk_sim_page_peek(sim, 5, 0, out[i], sizeof data), 0);
        nk_sim_close(sim);
    }
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
}

/* Cells cross the read level during the first three quarters of tPROG, so
 * a cut half way lands about 2/3 of the transitions; with weak cells off,
 * the landed share is the elapsed share of tPROG. */
static void cut_half_way(bool weak_cells_off, unsigned lo_percent, unsigned hi_percent)
{
    struct nk_sim_config config = {.preset = "K9F1G08U0A", .seed = 9, .faults_set = true};
    config.faults.strict_page_order = true;
    config.faults.enforce_nop = true;
    config.faults.weak_cells_off = weak_cells_off;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t data[2112], ff[2112], got[2112];
    memset(data, 0x00, sizeof data);
    memset(ff, 0xff, sizeof ff);
    /* The program's busy time starts 63540 ns in; cut half way through tPROG. */
    uint64_t start = nk_sim_time_ns(sim) + 6 * 30 + 2112 * 30;
    nk_sim_power_cut_at_time(sim, start + 150000);
    assert_int_equal(sim_program(ctrl, &nk_sim_params(sim)->chip, 0, 0, data, sizeof data),
                     -NK_ENODEV);
    assert_int_equal(nk_sim_time_ns(sim), start + 150000);
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, got, sizeof got), 0);
    struct torn t = classify(ff, data, got, sizeof got);
    assert_int_equal(t.impossible, 0);
    assert_in_range(t.landed, 2112 * 8 * lo_percent / 100, 2112 * 8 * hi_percent / 100);
    struct nk_sim_weak_state weak;
    assert_int_equal(nk_sim_page_weak(sim, 0, &weak), weak_cells_off ? -NK_ENOENT : 0);
    nk_sim_close(sim);
}

static void test_cut_at_time_tears_in_proportion(void **state)
{
    (void)state;
    cut_half_way(false, 60, 72);
    cut_half_way(true, 40, 60);
}

static void test_cut_at_time_during_transfer_changes_nothing(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(9);
    uint8_t data[2112], got[2112], ff[2112];
    memset(data, 0x00, sizeof data);
    memset(ff, 0xff, sizeof ff);
    nk_sim_power_cut_at_time(sim, nk_sim_time_ns(sim) + 1000);
    assert_int_equal(
        sim_program(nk_sim_ctrl(sim), &nk_sim_params(sim)->chip, 0, 0, data, sizeof data),
        -NK_ENODEV);
    assert_false(nk_sim_powered(sim));
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, got, sizeof got), 0);
    assert_memory_equal(got, ff, sizeof ff);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.array_ops, 0);
    nk_sim_close(sim);
}

static void test_cut_during_idle_time(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(9);
    nk_sim_power_cut_at_time(sim, 5000);
    assert_int_equal(nk_sim_time_advance(sim, 4000), 0);
    assert_true(nk_sim_powered(sim));
    assert_int_equal(nk_sim_time_advance(sim, 4000), -NK_ENODEV);
    assert_false(nk_sim_powered(sim));
    assert_int_equal(nk_sim_time_ns(sim), 5000);
    nk_sim_close(sim);
}

static unsigned unstable_reads(struct nk_sim *sim, uint32_t row, unsigned reads)
{
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t first[2112], again[2112];
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, row, 0, first, sizeof first), 0);
    unsigned differing = 0;
    for (unsigned i = 0; i < reads; i++) {
        assert_int_equal(sim_read(nk_sim_ctrl(sim), info, row, 0, again, sizeof again), 0);
        if (memcmp(first, again, sizeof first))
            differing++;
    }
    return differing;
}

static void test_interrupted_erase_leaves_unstable_bits(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(31);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t zeros[2112], got[2112], ff[2112];
    memset(zeros, 0x00, sizeof zeros);
    memset(ff, 0xff, sizeof ff);
    for (uint32_t p = 0; p < 4; p++)
        assert_int_equal(sim_program(ctrl, info, 64 * 6 + p, 0, zeros, sizeof zeros), 0xe0);
    /* Cut a third of the way into tBERS. */
    uint64_t start = nk_sim_time_ns(sim) + 4 * 30;
    nk_sim_power_cut_at_time(sim, start + 2000000 / 3);
    assert_int_equal(sim_erase(ctrl, info, 6), -NK_ENODEV);
    nk_sim_power_restore(sim);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 6, &block), 0);
    assert_true(block.flags & NK_SIM_BLOCK_UNSTABLE);
    /* Partly erased: some bits back to 1, not all. */
    assert_int_equal(nk_sim_page_peek(sim, 64 * 6, 0, got, sizeof got), 0);
    assert_memory_not_equal(got, zeros, sizeof got);
    assert_memory_not_equal(got, ff, sizeof got);
    /* The same page reads differently from read to read. */
    assert_true(unstable_reads(sim, 64 * 6, 5) >= 4);
    /* A page erased before the cut stays stable and erased. */
    assert_int_equal(unstable_reads(sim, 64 * 6 + 10, 5), 0);
    /* A complete erase ends it. */
    assert_int_equal(sim_erase(ctrl, info, 6), 0xe0);
    assert_int_equal(nk_sim_block_get(sim, 6, &block), 0);
    assert_false(block.flags & NK_SIM_BLOCK_UNSTABLE);
    assert_int_equal(unstable_reads(sim, 64 * 6, 5), 0);
    assert_int_equal(sim_read(ctrl, info, 64 * 6, 0, got, sizeof got), 0);
    assert_memory_equal(got, ff, sizeof ff);
    assert_int_equal(block.erase_count, 2);
    nk_sim_close(sim);
}

static void test_interrupted_erase_is_reproducible_from_the_seed(void **state)
{
    (void)state;
    uint8_t zeros[2112], a[2112], b[2112], c[2112];
    memset(zeros, 0x00, sizeof zeros);
    uint8_t *out[3] = {a, b, c};
    const uint64_t seeds[3] = {5, 5, 6};
    for (unsigned i = 0; i < 3; i++) {
        struct nk_sim *sim = open_seeded(seeds[i]);
        const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
        assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 0, 0, zeros, sizeof zeros), 0xe0);
        nk_sim_power_cut_after(sim, 0);
        assert_int_equal(sim_erase(nk_sim_ctrl(sim), info, 0), -NK_ENODEV);
        nk_sim_power_restore(sim);
        /* Two reads: the unstable bits also follow the seed. */
        assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 0, 0, out[i], sizeof zeros), 0);
        assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 0, 0, out[i], sizeof zeros), 0);
        nk_sim_close(sim);
    }
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
}

static void test_cut_read_leaves_the_array_alone(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(2);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[64], got[64];
    memset(data, 0x42, sizeof data);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 0, 0, data, sizeof data), 0xe0);
    nk_sim_power_cut_after(sim, 0);
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 0, 0, got, sizeof got), -NK_ENODEV);
    nk_sim_power_restore(sim);
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 0, 0, got, sizeof got), 0);
    assert_memory_equal(got, data, sizeof data);
    nk_sim_close(sim);
}

static void test_power_restore_resets_features(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t p[4] = {0x08, 0, 0, 0}, got[4];
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xef, 0);
    ops_addr1(&ops, 0x90, 70);
    ops_out(&ops, p, 4, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    nk_sim_power_cut_now(sim);
    nk_sim_power_restore(sim);
    ops_clear(&ops);
    ops_cmd(&ops, 0xee, 0);
    ops_addr1(&ops, 0x90, 0);
    ops_wait(&ops, 0);
    ops_in(&ops, got, 4, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(got[0], 0x00);
    nk_sim_close(sim);
}

static void test_reset_during_program_aborts_it(void **state)
{
    (void)state;
    struct nk_sim *sim = open_seeded(3);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t data[2112], got[2112], ff[2112];
    memset(data, 0x00, sizeof data);
    memset(ff, 0xff, sizeof ff);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 0, 0};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_out(&ops, data, sizeof data, 0);
    ops_cmd(&ops, 0x10, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(nk_sim_time_advance(sim, 100000), 0); /* a third of tPROG */
    ops_clear(&ops);
    ops_cmd(&ops, 0xff, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, got, sizeof got), 0);
    struct torn t = classify(ff, data, got, sizeof got);
    assert_int_equal(t.impossible, 0);
    assert_in_range(t.landed, 2112 * 8 / 5, 2112 * 8 / 2);
    nk_sim_close(sim);
}

/* A small script of array operations; power is cut at every position in
 * turn, and what landed is always a prefix plus one torn operation. */
static void test_cut_at_every_operation_of_a_script(void **state)
{
    (void)state;
    uint8_t data[2112], got[2112], ff[2112];
    memset(data, 0x00, sizeof data);
    memset(ff, 0xff, sizeof ff);
    const unsigned steps = 6; /* program pages 0..4, then erase block 0 */
    for (unsigned cut = 0; cut <= steps; cut++) {
        struct nk_sim *sim = open_seeded(1000 + cut);
        const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
        const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
        nk_sim_power_cut_after(sim, cut);
        unsigned done = 0;
        int err = 0;
        for (; done < steps && !err; done++) {
            err = done < 5 ? sim_program(ctrl, info, done, 0, data, sizeof data)
                           : sim_erase(ctrl, info, 0);
            if (err >= 0)
                err = 0;
        }
        if (cut < steps) {
            assert_int_equal(err, -NK_ENODEV);
            assert_int_equal(done, cut + 1);
        } else {
            assert_int_equal(err, 0);
            assert_true(nk_sim_powered(sim));
        }
        for (uint32_t p = 0; p < 5 && cut < 5; p++) {
            assert_int_equal(nk_sim_page_peek(sim, p, 0, got, sizeof got), 0);
            if (p < cut)
                assert_memory_equal(got, data, sizeof data);
            else if (p > cut)
                assert_memory_equal(got, ff, sizeof ff);
            else
                assert_int_equal(classify(ff, data, got, sizeof got).impossible, 0);
        }
        nk_sim_close(sim);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_after_n_operations_tears_the_next_program),
        cmocka_unit_test(test_no_operation_until_power_returns),
        cmocka_unit_test(test_operations_before_the_cut_complete),
        cmocka_unit_test(test_torn_page_is_reproducible_from_the_seed),
        cmocka_unit_test(test_cut_at_time_tears_in_proportion),
        cmocka_unit_test(test_cut_at_time_during_transfer_changes_nothing),
        cmocka_unit_test(test_cut_during_idle_time),
        cmocka_unit_test(test_interrupted_erase_leaves_unstable_bits),
        cmocka_unit_test(test_interrupted_erase_is_reproducible_from_the_seed),
        cmocka_unit_test(test_cut_read_leaves_the_array_alone),
        cmocka_unit_test(test_power_restore_resets_features),
        cmocka_unit_test(test_reset_during_program_aborts_it),
        cmocka_unit_test(test_cut_at_every_operation_of_a_script),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
