/* SPDX-License-Identifier: MIT */
/*
 * The sequential figures against their datasheet limits, in virtual device
 * time (the simulator's clock, the same on every machine): the pipelined
 * paths must come within the stated factor of the pipelined limit and beat
 * the single-page limit.
 */
#include <string.h>

#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "seqbench.h"
#include "testutil.h"

static const struct nk_seq_row *find(const struct nk_seq_result *r, const char *config,
                                     const char *op, const char *method)
{
    for (unsigned i = 0; i < r->count; i++)
        if (!strcmp(r->rows[i].config, config) && !strcmp(r->rows[i].op, op) &&
            !strcmp(r->rows[i].method, method))
            return &r->rows[i];
    fail_msg("no figure %s / %s / %s", config, op, method);
    return NULL;
}

static void test_k9f1g08u0a_beats_the_single_page_limits(void **state)
{
    (void)state;
    struct nk_seq_result r;
    struct nk_diag why[1];
    assert_int_equal(nk_seq_bench_run("K9F1G08U0A", 1, &r, why), 0);
    const struct nk_seq_row *program = find(&r, "1 chip", "program", "cache program");
    /* max(tPROG, transfer) + tCBSY = 300 + 3 us. */
    assert_true(program->pipelined_us > 302.9 && program->pipelined_us < 303.1);
    assert_true(program->measured_us <= 1.01 * program->pipelined_us);
    assert_true(program->measured_us < program->single_us);
    const struct nk_seq_row *read2 = find(&r, "2 chips", "read", "interleaved");
    /* The bus: 6 cycles + 2112 bytes at 30 ns. */
    assert_true(read2->pipelined_us > 63.5 && read2->pipelined_us < 63.6);
    assert_true(read2->measured_us <= 1.02 * read2->pipelined_us);
    const struct nk_seq_row *program2 = find(&r, "2 chips", "program", "interleaved");
    assert_true(program2->pipelined_us > 181.7 && program2->pipelined_us < 181.8);
    assert_true(program2->measured_us <= 1.02 * program2->pipelined_us);
    const struct nk_seq_row *copyback = find(&r, "1 chip", "page move", "copy-back + read-out");
    const struct nk_seq_row *plain = find(&r, "1 chip", "page move", "read + program");
    assert_true(copyback->measured_us < plain->measured_us);
    assert_true(copyback->measured_us <= 1.01 * copyback->pipelined_us);
    /* The file system's move: copy-back with a new OOB costs one 64-byte
     * transfer more than a plain copy-back, far less than read + program. */
    const struct nk_seq_row *retag = find(&r, "1 chip", "page move", "copy-back, new OOB");
    assert_true(retag->pipelined_us > 390.5 && retag->pipelined_us < 390.7);
    assert_true(retag->measured_us <= 1.01 * retag->pipelined_us);
    assert_true(retag->measured_us + 55 < plain->measured_us);
}

/* The file system's sequential figures: on two striped chips faster than
 * on one (the array interleaves the fs's multi-page runs), and below the
 * single-page limits. */
static void test_fs_on_two_chips_beats_one_chip(void **state)
{
    (void)state;
    struct nk_seq_result r;
    struct nk_diag why[1];
    assert_int_equal(nk_seq_bench_run("K9F1G08U0A", 1, &r, why), 0);
    const struct nk_seq_row *w1 = find(&r, "1 chip", "fs write", "64 KiB writes");
    const struct nk_seq_row *w2 = find(&r, "2 chips", "fs write", "64 KiB writes");
    const struct nk_seq_row *r1 = find(&r, "1 chip", "fs read", "64 KiB reads");
    const struct nk_seq_row *r2 = find(&r, "2 chips", "fs read", "64 KiB reads");
    assert_true(w2->measured_us * 4 < w1->measured_us * 3);
    assert_true(r2->measured_us * 10 < r1->measured_us * 9);
    assert_true(w1->measured_us < w1->single_us);
    assert_true(w2->measured_us < 0.7 * w2->single_us);
    assert_true(r2->measured_us < 0.8 * r2->single_us);
    /* Limits: the same as the device-level rows. */
    assert_true(w2->pipelined_us > 181.7 && w2->pipelined_us < 181.8);
    assert_true(r2->pipelined_us > 63.5 && r2->pipelined_us < 63.6);
}

static void test_read_cache_preset_streams_within_two_percent(void **state)
{
    (void)state;
    struct nk_seq_result r;
    struct nk_diag why[1];
    assert_int_equal(nk_seq_bench_run("MT29F2G08ABAEA", 1, &r, why), 0);
    const struct nk_seq_row *read = find(&r, "1 chip", "read", "read cache");
    /* max(tR 25, 31h + 2112 x 20 ns) + tRCBSY 3 us. */
    assert_true(read->pipelined_us > 45.2 && read->pipelined_us < 45.3);
    assert_true(read->measured_us <= 1.02 * read->pipelined_us);
    assert_true(read->measured_us < read->single_us);
    assert_non_null(strstr(r.commands, "31h/3Fh"));
}

static void test_small_page_part_has_no_pipelined_figure(void **state)
{
    (void)state;
    struct nk_seq_result r;
    struct nk_diag why[1];
    assert_int_equal(nk_seq_bench_run("K9F1208U0C", 1, &r, why), 0);
    for (unsigned i = 0; i < r.count; i++)
        assert_true(r.rows[i].pipelined_us == 0);
    assert_int_equal(nk_seq_bench_run("NOPE", 1, &r, why), -NK_ENOENT);
    assert_non_null(strstr(why->text, "NOPE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_k9f1g08u0a_beats_the_single_page_limits),
        cmocka_unit_test(test_read_cache_preset_streams_within_two_percent),
        cmocka_unit_test(test_fs_on_two_chips_beats_one_chip),
        cmocka_unit_test(test_small_page_part_has_no_pipelined_figure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
