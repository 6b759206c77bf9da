/* SPDX-License-Identifier: MIT */
/*
 * Device layer on the simulator: argument checks, raw/ECC/auto OOB modes,
 * the bitflip contract (threshold, scrub, uncorrectable, erased steps),
 * FAIL status, read-only, statistics, locking, controller and on-die ECC.
 */
#include <string.h>

#include "mock_ctrl.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "simdev.h"
#include "testutil.h"

#define PAGE 2048u
#define OOB 64u

static void fill(uint8_t *buf, size_t len, uint64_t seed)
{
    nk_test_random(buf, len, seed);
}

static void test_open_identifies_the_chip_through_the_port(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    assert_string_equal(d.nand.chip.info.model, "K9F1G08U0A");
    assert_int_equal(nk_nand_pages(&d.nand), 65536);
    assert_int_equal(d.nand.ecc_steps, 8);
    assert_int_equal(d.nand.ecc_total, 24);
    assert_int_equal(d.nand.free_bytes, 38);
    assert_int_equal(d.nand.bitflip_threshold, 1);
    nk_test_dev_close(&d);
}

static void test_out_of_range_arguments_name_the_value(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE];
    assert_int_equal(nk_nand_read_page(&d.nand, 65536, data, NULL, NK_OOB_PLACE), -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "page 65536 out of range"));
    assert_non_null(strstr(d.nand.diag.text, "65536 pages"));
    assert_int_equal(nk_nand_erase_block(&d.nand, 1024), -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "block 1024"));
    assert_int_equal(nk_nand_read_page(&d.nand, 0, data, NULL, (enum nk_oob_mode)7), -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "OOB mode 7"));
    assert_int_equal(nk_nand_read_raw_bytes(&d.nand, 0, 2100, data, 20), -NK_EINVAL);
    assert_int_equal(nk_nand_set_bitflip_threshold(&d.nand, 2), -NK_EINVAL);
    nk_test_dev_close(&d);
}

static void test_workspace_too_small_is_refused_with_sizes(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_NONE, NULL);
    struct nk_nand nand;
    uint8_t small[100];
    struct nk_nand_config config = {
        .ctrl = nk_sim_ctrl(d.sim), .workspace = small, .workspace_size = sizeof small};
    assert_int_equal(nk_nand_open(&nand, &config), -NK_EINVAL);
    assert_non_null(strstr(nand.diag.text, "100 bytes too small"));
    assert_non_null(strstr(nand.diag.text, "needs 2240"));
    struct nk_nand_config no_port = {.workspace = small};
    assert_int_equal(nk_nand_open(&nand, &no_port), -NK_EINVAL);
    nk_test_dev_close(&d);
}

static void test_ecc_that_does_not_fit_the_oob_is_refused(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1208U0C", NK_TEST_ECC_NONE, NULL);
    struct nk_bch bch;
    size_t size = nk_bch_workspace_size(13, 16, 0);
    void *ws = malloc(size);
    assert_int_equal(nk_bch_init(&bch, 512, 16, 0, ws, size), 0);
    struct nk_ecc_engine ecc;
    nk_ecc_bch_engine_init(&ecc, &bch);
    struct nk_nand nand;
    struct nk_nand_config config = {
        .ctrl = nk_sim_ctrl(d.sim), .ecc = &ecc, .workspace = d.workspace, .workspace_size = 1024};
    assert_int_equal(nk_nand_open(&nand, &config), -NK_EINVAL);
    assert_non_null(strstr(nand.diag.text, "needs 26 OOB bytes"));
    free(ws);
    nk_test_dev_close(&d);
}

static void test_raw_program_and_read_move_bytes_unchanged(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE], oob[OOB], back[PAGE], back_oob[OOB], stored[PAGE + OOB];
    fill(data, PAGE, 1);
    fill(oob, OOB, 2);
    assert_int_equal(nk_nand_program_page(&d.nand, 70, data, oob, NK_OOB_RAW), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 70, 0, stored, PAGE + OOB), 0);
    assert_memory_equal(stored, data, PAGE);
    assert_memory_equal(stored + PAGE, oob, OOB);
    assert_int_equal(nk_nand_read_page(&d.nand, 70, back, back_oob, NK_OOB_RAW), 0);
    assert_memory_equal(back, data, PAGE);
    assert_memory_equal(back_oob, oob, OOB);
    nk_test_dev_close(&d);
}

static void test_hamming_codes_land_at_oob_40_to_63(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE], stored[OOB];
    fill(data, PAGE, 3);
    assert_int_equal(nk_nand_program_page(&d.nand, 5, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 5, PAGE, stored, OOB), 0);
    for (unsigned step = 0; step < 8; step++) {
        uint8_t code[3];
        nk_hamming_calculate(data + 256 * step, 256, false, code);
        assert_memory_equal(stored + 40 + 3 * step, code, 3);
    }
    for (unsigned i = 0; i < 40; i++)
        assert_int_equal(stored[i], 0xff);
    uint8_t back[PAGE];
    assert_int_equal(nk_nand_read_page(&d.nand, 5, back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(back, data, PAGE);
    nk_test_dev_close(&d);
}

static void test_auto_mode_packs_user_bytes_into_free_oob(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE], user[38], stored[OOB], back[38], back_data[PAGE];
    fill(data, PAGE, 4);
    fill(user, sizeof user, 5);
    assert_int_equal(nk_nand_program_page(&d.nand, 9, data, user, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 9, PAGE, stored, OOB), 0);
    assert_int_equal(stored[0], 0xff);
    assert_int_equal(stored[1], 0xff);
    assert_memory_equal(stored + 2, user, 38);
    assert_int_equal(nk_nand_read_page(&d.nand, 9, back_data, back, NK_OOB_AUTO), 0);
    assert_memory_equal(back, user, 38);
    memset(back, 0, sizeof back);
    assert_int_equal(nk_nand_read_page(&d.nand, 9, NULL, back, NK_OOB_AUTO), 0);
    assert_memory_equal(back, user, 38);
    nk_test_dev_close(&d);
}

static void test_oob_only_program_writes_no_ecc(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t user[38], stored[PAGE + OOB];
    fill(user, sizeof user, 6);
    assert_int_equal(nk_nand_program_page(&d.nand, 11, NULL, user, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 11, 0, stored, PAGE + OOB), 0);
    for (unsigned i = 0; i < PAGE; i++)
        assert_int_equal(stored[i], 0xff);
    for (unsigned i = 40; i < OOB; i++)
        assert_int_equal(stored[PAGE + i], 0xff);
    assert_memory_equal(stored + PAGE + 2, user, 38);
    nk_test_dev_close(&d);
}

static void test_one_bitflip_is_corrected_and_at_threshold_for_hamming(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE], back[PAGE];
    fill(data, PAGE, 7);
    assert_int_equal(nk_nand_program_page(&d.nand, 20, data, NULL, NK_OOB_PLACE), 0);
    nk_test_flip_stored_bit(&d, 20, 1000 * 8 + 3);
    int r = nk_nand_read_page(&d.nand, 20, back, NULL, NK_OOB_PLACE);
    assert_int_equal(r, 1);
    assert_true(nk_nand_scrub_advised(&d.nand, r));
    assert_memory_equal(back, data, PAGE);
    assert_int_equal(nk_nand_last_bitflips(&d.nand), 1);
    assert_int_equal(d.nand.stats.ecc_corrected_bits, 1);
    assert_int_equal(d.nand.stats.scrub_reports, 1);
    nk_test_dev_close(&d);
}

static void test_two_bitflips_in_a_hamming_step_are_uncorrectable(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE], back[PAGE];
    fill(data, PAGE, 8);
    assert_int_equal(nk_nand_program_page(&d.nand, 21, data, NULL, NK_OOB_PLACE), 0);
    nk_test_flip_stored_bit(&d, 21, 300 * 8 + 1);
    nk_test_flip_stored_bit(&d, 21, 400 * 8 + 6);
    assert_int_equal(nk_nand_read_page(&d.nand, 21, back, NULL, NK_OOB_PLACE), -NK_EBADMSG);
    assert_int_equal(d.nand.stats.ecc_failed_pages, 1);
    assert_int_equal(d.nand.stats.ecc_failed_steps, 1);
    nk_test_dev_close(&d);
}

/* Flips `count` distinct bits of step `step` (512-byte steps) of page `row`. */
static void flip_in_step(struct nk_test_dev *d, uint32_t row, unsigned step, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        nk_test_flip_stored_bit(d, row, step * 512 * 8 + 37 * i + 5);
}

static void test_bch8_threshold_boundary(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_BCH8, NULL);
    assert_int_equal(d.nand.bitflip_threshold, 6); /* ceil(3/4 * 8) */
    uint8_t data[PAGE], back[PAGE];
    fill(data, PAGE, 9);
    for (unsigned flips = 0; flips <= 9; flips++) {
        uint32_t row = 64 + flips;
        assert_int_equal(nk_nand_program_page(&d.nand, row, data, NULL, NK_OOB_PLACE), 0);
        flip_in_step(&d, row, 1, flips);
        if (flips >= 1)
            nk_test_flip_stored_bit(&d, row, 3 * 512 * 8 + 11); /* one more in another step */
        int r = nk_nand_read_page(&d.nand, row, back, NULL, NK_OOB_PLACE);
        if (flips < 6) {
            assert_int_equal(r, flips);
            assert_false(nk_nand_scrub_advised(&d.nand, r));
        } else if (flips <= 8) {
            assert_int_equal(r, flips);
            assert_true(nk_nand_scrub_advised(&d.nand, r));
            assert_int_equal(nk_nand_last_bitflips(&d.nand), flips);
        } else {
            assert_int_equal(r, -NK_EBADMSG);
            continue;
        }
        assert_memory_equal(back, data, PAGE);
    }
    assert_int_equal(nk_nand_set_bitflip_threshold(&d.nand, 3), 0);
    assert_int_equal(nk_nand_program_page(&d.nand, 200, data, NULL, NK_OOB_PLACE), 0);
    flip_in_step(&d, 200, 0, 3);
    int low = nk_nand_read_page(&d.nand, 200, back, NULL, NK_OOB_PLACE);
    assert_int_equal(low, 3);
    assert_true(nk_nand_scrub_advised(&d.nand, low));
    assert_int_equal(nk_nand_set_bitflip_threshold(&d.nand, 9), -NK_EINVAL);
    nk_test_dev_close(&d);
}

static void test_erased_step_with_flips_reads_as_erased(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_BCH8, NULL);
    uint8_t back[PAGE], oob[OOB];
    /* 5 zero bits in the data of step 0 and 3 in its ECC bytes: 8 = strength. */
    flip_in_step(&d, 300, 0, 5);
    unsigned ecc_first = d.nand.layout.ecc[0].offset;
    for (unsigned i = 0; i < 3; i++)
        nk_test_flip_stored_bit(&d, 300, (PAGE + ecc_first + i) * 8 + i);
    int r = nk_nand_read_page(&d.nand, 300, back, oob, NK_OOB_PLACE);
    assert_int_equal(r, 8);
    assert_true(nk_nand_scrub_advised(&d.nand, r));
    assert_int_equal(nk_nand_last_bitflips(&d.nand), 8);
    for (unsigned i = 0; i < PAGE; i++)
        assert_int_equal(back[i], 0xff);

    /* One more zero bit: beyond the strength, uncorrectable. */
    flip_in_step(&d, 301, 0, 9);
    assert_int_equal(nk_nand_read_page(&d.nand, 301, back, NULL, NK_OOB_PLACE), -NK_EBADMSG);

    /* A few flips in an erased page stay below the threshold. */
    flip_in_step(&d, 302, 2, 2);
    assert_int_equal(nk_nand_read_page(&d.nand, 302, back, NULL, NK_OOB_PLACE), 2);
    nk_test_dev_close(&d);
}

static void test_erased_page_reads_clean_with_every_engine(void **state)
{
    (void)state;
    static const enum nk_test_ecc engines[] = {NK_TEST_ECC_NONE,       NK_TEST_ECC_HAMMING256,
                                               NK_TEST_ECC_HAMMING512, NK_TEST_ECC_BCH4,
                                               NK_TEST_ECC_BCH8,       NK_TEST_ECC_HW512};
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
        struct nk_test_dev d;
        nk_test_dev_open(&d, "K9F1G08U0A", engines[e], NULL);
        uint8_t back[PAGE];
        assert_int_equal(nk_nand_read_page(&d.nand, 1234, back, NULL, NK_OOB_PLACE), 0);
        for (unsigned i = 0; i < PAGE; i++)
            assert_int_equal(back[i], 0xff);
        nk_test_dev_close(&d);
    }
}

static void test_program_fail_status_is_eio_and_counted(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint8_t data[PAGE];
    fill(data, PAGE, 10);
    assert_int_equal(nk_sim_fail_inject(d.sim, 3, NK_SIM_FAIL_PROGRAM, false), 0);
    assert_int_equal(nk_nand_program_page(&d.nand, 3 * 64, data, NULL, NK_OOB_PLACE), -NK_EIO);
    assert_int_equal(d.nand.stats.program_failures, 1);
    assert_non_null(strstr(d.nand.diag.text, "failed"));
    assert_int_equal(nk_sim_fail_inject(d.sim, 4, NK_SIM_FAIL_ERASE, false), 0);
    assert_int_equal(nk_nand_erase_block(&d.nand, 4), -NK_EIO);
    assert_int_equal(d.nand.stats.erase_failures, 1);
    assert_non_null(strstr(d.nand.diag.text, "block 4"));
    nk_test_dev_close(&d);
}

static void test_read_only_device_refuses_program_and_erase(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_NONE, NULL);
    struct nk_nand nand;
    struct nk_nand_config config = {.ctrl = nk_sim_ctrl(d.sim),
                                    .workspace = d.workspace,
                                    .workspace_size = 4096,
                                    .read_only = true};
    assert_int_equal(nk_nand_open(&nand, &config), 0);
    uint8_t data[PAGE] = {0};
    assert_int_equal(nk_nand_program_page(&nand, 0, data, NULL, NK_OOB_RAW), -NK_EROFS);
    assert_int_equal(nk_nand_erase_block(&nand, 0), -NK_EROFS);
    assert_non_null(strstr(nand.diag.text, "read-only"));
    struct nk_sim_counters counters;
    nk_sim_counters(d.sim, &counters);
    assert_int_equal(counters.ops[NK_SIM_OP_PROGRAM], 0);
    assert_int_equal(counters.ops[NK_SIM_OP_ERASE], 0);
    nk_test_dev_close(&d);
}

static void test_statistics_count_operations_and_busy_time(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    nk_nand_stats_reset(&d.nand);
    uint64_t t0 = nk_sim_time_ns(d.sim);
    uint8_t data[PAGE], oob[OOB];
    fill(data, PAGE, 11);
    assert_int_equal(nk_nand_erase_block(&d.nand, 2), 0);
    assert_int_equal(nk_nand_program_page(&d.nand, 128, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_page(&d.nand, 128, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_page(&d.nand, 128, NULL, oob, NK_OOB_RAW), 0);
    struct nk_nand_stats s;
    nk_nand_stats_get(&d.nand, &s);
    assert_int_equal(s.block_erases, 1);
    assert_int_equal(s.page_programs, 1);
    assert_int_equal(s.page_reads, 1);
    assert_int_equal(s.oob_reads, 1);
    assert_int_equal(s.bytes_written, PAGE + OOB);
    /* A data-only read moves the code bytes (OOB 40..63) but not the free ones. */
    assert_int_equal(s.bytes_read, PAGE + 24 + OOB);
    assert_int_equal(s.busy_ns, nk_sim_time_ns(d.sim) - t0);
    assert_true(s.busy_ns > 2000000 + 300000 + 25000 * 2);
    nk_test_dev_close(&d);
}

struct lock_count {
    int locks, unlocks, depth, max_depth;
};

static void count_lock(void *ctx)
{
    struct lock_count *c = ctx;
    c->locks++;
    if (++c->depth > c->max_depth)
        c->max_depth = c->depth;
}

static void count_unlock(void *ctx)
{
    struct lock_count *c = ctx;
    c->unlocks++;
    c->depth--;
}

static void test_lock_hooks_wrap_every_call(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_NONE, NULL);
    struct lock_count count = {0, 0, 0, 0};
    struct nk_lock lock = {count_lock, count_unlock, &count};
    struct nk_nand nand;
    struct nk_nand_config config = {.ctrl = nk_sim_ctrl(d.sim),
                                    .workspace = d.workspace,
                                    .workspace_size = 4096,
                                    .lock = &lock};
    assert_int_equal(nk_nand_open(&nand, &config), 0);
    uint8_t data[PAGE] = {0};
    nk_nand_read_page(&nand, 0, data, NULL, NK_OOB_RAW);
    nk_nand_program_page(&nand, 0, data, NULL, NK_OOB_RAW);
    nk_nand_erase_block(&nand, 0);
    nk_nand_read_page(&nand, 99999999, data, NULL, NK_OOB_RAW); /* error path too */
    assert_int_equal(count.locks, 4);
    assert_int_equal(count.unlocks, 4);
    assert_int_equal(count.max_depth, 1);
    nk_test_dev_close(&d);
}

static void test_controller_engine_computes_linux_hamming_during_transfer(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HW512, NULL);
    assert_int_equal(d.nand.ecc.placement, NK_ECC_PLACEMENT_CONTROLLER);
    assert_int_equal(d.nand.ecc_total, 12);
    uint8_t data[PAGE], stored[OOB], back[PAGE];
    fill(data, PAGE, 12);
    assert_int_equal(nk_nand_program_page(&d.nand, 40, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 40, PAGE, stored, OOB), 0);
    for (unsigned step = 0; step < 4; step++) {
        uint8_t code[3];
        nk_hamming_calculate(data + 512 * step, 512, false, code);
        assert_memory_equal(stored + 40 + 3 * step, code, 3);
    }
    nk_test_flip_stored_bit(&d, 40, 1500 * 8 + 2);
    int r = nk_nand_read_page(&d.nand, 40, back, NULL, NK_OOB_PLACE);
    assert_int_equal(r, 1);
    assert_true(nk_nand_scrub_advised(&d.nand, r));
    assert_memory_equal(back, data, PAGE);
    nk_test_dev_close(&d);
}

static void test_on_die_ecc_reports_through_status(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "MT29F2G08ABAEA", NK_TEST_ECC_ON_DIE, NULL);
    assert_int_equal(d.nand.ecc.placement, NK_ECC_PLACEMENT_ON_DIE);
    uint8_t data[PAGE], back[PAGE];
    fill(data, PAGE, 13);
    assert_int_equal(nk_nand_program_page(&d.nand, 64, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_page(&d.nand, 64, back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(back, data, PAGE);
    /* Bits that read wrong (stuck against the stored value) are what the
     * chip's engine sees as errors. Within strength (4 per 512) they are
     * corrected inside the chip; 3 reach the threshold (rewrite recommended). */
    for (unsigned i = 0; i < 3; i++) {
        uint32_t bit = 100 * 8 + 9 * i;
        bool stored = (data[bit / 8] >> (bit % 8)) & 1u;
        assert_int_equal(nk_sim_stuck_bit_add(d.sim, 64, bit, !stored), 0);
    }
    int r = nk_nand_read_page(&d.nand, 64, back, NULL, NK_OOB_PLACE);
    assert_int_equal(r, (int)d.nand.bitflip_threshold);
    assert_true(nk_nand_scrub_advised(&d.nand, r));
    assert_memory_equal(back, data, PAGE);
    /* Beyond: uncorrectable. */
    for (unsigned i = 0; i < 3; i++) {
        uint32_t bit = 200 * 8 + 9 * i;
        bool stored = (data[bit / 8] >> (bit % 8)) & 1u;
        assert_int_equal(nk_sim_stuck_bit_add(d.sim, 64, bit, !stored), 0);
    }
    assert_int_equal(nk_nand_read_page(&d.nand, 64, back, NULL, NK_OOB_PLACE), -NK_EBADMSG);
    assert_int_equal(d.nand.stats.ecc_failed_pages, 1);
    nk_test_dev_close(&d);
}

static void test_on_die_ecc_on_a_chip_without_it_is_refused(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_NONE, NULL);
    struct nk_ecc_engine ecc;
    nk_ecc_on_die_init(&ecc, 512, 4);
    struct nk_nand nand;
    struct nk_nand_config config = {
        .ctrl = nk_sim_ctrl(d.sim), .ecc = &ecc, .workspace = d.workspace, .workspace_size = 4096};
    assert_int_equal(nk_nand_open(&nand, &config), -NK_ENOTSUP);
    assert_non_null(strstr(nand.diag.text, "no on-die ECC"));
    nk_test_dev_close(&d);
}

static void test_multi_page_helpers_report_the_worst_page(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_BCH8, NULL);
    uint8_t *data = malloc(4 * PAGE), *back = malloc(4 * PAGE);
    fill(data, 4 * PAGE, 14);
    assert_int_equal(nk_nand_program_pages(&d.nand, 256, 4, data, NULL, NK_OOB_PLACE), 0);
    flip_in_step(&d, 257, 0, 2);
    flip_in_step(&d, 258, 3, 4);
    assert_int_equal(nk_nand_read_pages(&d.nand, 256, 4, back, NULL, NK_OOB_PLACE), 4);
    assert_memory_equal(back, data, 4 * PAGE);
    flip_in_step(&d, 259, 1, 9);
    assert_int_equal(nk_nand_read_pages(&d.nand, 256, 4, back, NULL, NK_OOB_PLACE), -NK_EBADMSG);
    free(data);
    free(back);
    nk_test_dev_close(&d);
}

static void test_status_polling_port_works_without_rb_line(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    struct nk_nand nand;
    struct nk_nand_config config = {.ctrl = nk_sim_ctrl_no_rb(d.sim),
                                    .ecc = &d.ecc,
                                    .workspace = d.workspace,
                                    .workspace_size = 4096};
    assert_int_equal(nk_nand_open(&nand, &config), 0);
    uint8_t data[PAGE], back[PAGE];
    fill(data, PAGE, 15);
    assert_int_equal(nk_nand_erase_block(&nand, 7), 0);
    assert_int_equal(nk_nand_program_page(&nand, 7 * 64, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_page(&nand, 7 * 64, back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(back, data, PAGE);
    struct nk_sim_counters counters;
    nk_sim_counters(d.sim, &counters);
    assert_true(counters.ops[NK_SIM_OP_STATUS] >= 3);
    nk_test_dev_close(&d);
}

static void test_data_loop_is_selectable_only_where_the_port_has_one(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_NONE, NULL);
    assert_int_equal(nk_nand_set_data_loop(&d.nand, NK_DATA_LOOP_UNROLLED), 0);
    uint8_t data[PAGE], back[PAGE];
    fill(data, PAGE, 16);
    assert_int_equal(nk_nand_program_page(&d.nand, 1, data, NULL, NK_OOB_RAW), 0);
    assert_int_equal(nk_nand_set_data_loop(&d.nand, NK_DATA_LOOP_BYTE), 0);
    assert_int_equal(nk_nand_read_page(&d.nand, 1, back, NULL, NK_OOB_RAW), 0);
    assert_memory_equal(back, data, PAGE);
    nk_test_dev_close(&d);

    struct nk_mock_ctrl mock;
    nk_mock_ctrl_init(&mock, true);
    struct nk_nand nand;
    uint8_t ws[4096];
    struct nk_nand_config config = {.ctrl = &mock.ctrl,
                                    .chip = nk_chip_table_find("K9F1G08U0A"),
                                    .workspace = ws,
                                    .workspace_size = sizeof ws};
    assert_int_equal(nk_nand_open(&nand, &config), 0);
    assert_int_equal(nk_nand_set_data_loop(&nand, NK_DATA_LOOP_UNROLLED), -NK_ENOTSUP);
}

static void test_small_page_chip_with_hamming(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1208U0C", NK_TEST_ECC_HAMMING256, NULL);
    assert_int_equal(d.nand.free_bytes, 8);
    uint8_t data[512], user[8], back[512], back_user[8], stored[16];
    fill(data, sizeof data, 17);
    fill(user, sizeof user, 18);
    assert_int_equal(nk_nand_program_page(&d.nand, 33, data, user, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 33, 512, stored, 16), 0);
    uint8_t code[3];
    nk_hamming_calculate(data, 256, false, code);
    assert_memory_equal(stored, code, 3);
    nk_hamming_calculate(data + 256, 256, false, code);
    assert_int_equal(stored[3], code[0]);
    assert_int_equal(stored[6], code[1]);
    assert_int_equal(stored[7], code[2]);
    assert_int_equal(stored[5], 0xff); /* the marker byte stays good */
    assert_memory_equal(stored + 8, user, 8);
    assert_int_equal(nk_nand_read_page(&d.nand, 33, back, back_user, NK_OOB_AUTO), 0);
    assert_memory_equal(back, data, sizeof data);
    assert_memory_equal(back_user, user, sizeof user);
    nk_test_dev_close(&d);
}

/* Opens the simulated preset `name` through the port with `ecc` (NULL: the
 * device chooses) into `nand`; returns nk_nand_open()'s result. */
static int open_preset(struct nk_sim **sim, struct nk_nand *nand, void **ws, const char *name,
                       const struct nk_ecc_engine *ecc, bool force_ecc)
{
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.preset = name;
    sc.seed = 1;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(nk_sim_open(sim, &sc, why), 0);
    const struct nk_chip_info *info = &nk_sim_params(*sim)->chip;
    size_t size = ecc ? nk_nand_workspace_size(info) : nk_nand_default_workspace_size(info);
    *ws = malloc(size);
    assert_non_null(*ws);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(*sim);
    nc.ecc = ecc;
    nc.force_ecc = force_ecc;
    nc.workspace = *ws;
    nc.workspace_size = size;
    return nk_nand_open(nand, &nc);
}

static void close_preset(struct nk_sim *sim, struct nk_nand *nand, void *ws)
{
    nk_nand_close(nand);
    nk_sim_close(sim);
    free(ws);
}

static void test_ecc_weaker_than_the_chip_requires_is_refused_naming_both(void **state)
{
    (void)state;
    struct nk_ecc_engine hamming;
    assert_int_equal(nk_ecc_hamming_init(&hamming, 256, false), 0);
    struct nk_sim *sim;
    struct nk_nand nand;
    void *ws;
    /* 4 bits per 512 bytes required; Hamming corrects 1 per 256. */
    assert_int_equal(open_preset(&sim, &nand, &ws, "MT29F8G08ABABA", &hamming, false), -NK_EINVAL);
    assert_non_null(strstr(nand.diag.text, "'hamming256' (1 bit(s) per 256 bytes)"));
    assert_non_null(strstr(nand.diag.text, "4 bit(s) per 512 bytes MT29F8G08ABABA requires"));
    close_preset(sim, &nand, ws);
    /* Forced, it opens with the weaker engine. */
    assert_int_equal(open_preset(&sim, &nand, &ws, "MT29F8G08ABABA", &hamming, true), 0);
    assert_string_equal(nk_nand_ecc(&nand)->name, "hamming256");
    close_preset(sim, &nand, ws);
}

static void test_default_ecc_meets_the_requirement_of_every_preset(void **state)
{
    (void)state;
    unsigned opened = 0;
    for (unsigned i = 0; nk_sim_preset_name(i); i++) {
        const char *name = nk_sim_preset_name(i);
        struct nk_sim *sim;
        struct nk_nand nand;
        void *ws;
        int err = open_preset(&sim, &nand, &ws, name, NULL, false);
        if (err)
            fail_msg("%s: %d %s", name, err, nand.diag.text);
        const struct nk_chip_info *info = &nand.chip.info;
        const struct nk_ecc_engine *ecc = nk_nand_ecc(&nand);
        assert_true(nk_nand_ecc_meets_requirement(ecc, info));
        assert_true(ecc->strength >= info->ecc_strength);
        char expected[16];
        assert_string_equal(ecc->name, nk_nand_default_ecc_name(info, expected, sizeof expected));
        /* And it corrects: one flipped bit in a programmed page comes back. */
        uint32_t page_size = nk_nand_page_size(&nand);
        uint8_t *data = malloc(page_size), *back = malloc(page_size);
        fill(data, page_size, i + 1);
        assert_int_equal(nk_nand_program_page(&nand, 3, data, NULL, NK_OOB_PLACE), 0);
        bool on_die = ecc->placement == NK_ECC_PLACEMENT_ON_DIE;
        if (on_die) { /* the chip's engine corrects bits that read wrong */
            assert_int_equal(nk_sim_stuck_bit_add(sim, 3, 100 * 8 + 1, !(data[100] & 0x02)), 0);
        } else {
            uint8_t byte;
            assert_int_equal(nk_sim_page_peek(sim, 3, 100, &byte, 1), 0);
            byte ^= 0x02;
            assert_int_equal(nk_sim_page_poke(sim, 3, 100, &byte, 1), 0);
        }
        int r = nk_nand_read_page(&nand, 3, back, NULL, NK_OOB_PLACE);
        if (info->features & NK_CHIP_SPI_NAND) /* the part reports a count, or its bound */
            assert_true(nk_nand_last_bitflips(&nand) >= 1u);
        else
            assert_int_equal(nk_nand_last_bitflips(&nand), on_die ? 0u : 1u);
        assert_true(r >= 0);
        assert_memory_equal(back, data, page_size);
        free(data);
        free(back);
        close_preset(sim, &nand, ws);
        opened++;
    }
    assert_true(opened >= 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_identifies_the_chip_through_the_port),
        cmocka_unit_test(test_out_of_range_arguments_name_the_value),
        cmocka_unit_test(test_workspace_too_small_is_refused_with_sizes),
        cmocka_unit_test(test_ecc_that_does_not_fit_the_oob_is_refused),
        cmocka_unit_test(test_raw_program_and_read_move_bytes_unchanged),
        cmocka_unit_test(test_hamming_codes_land_at_oob_40_to_63),
        cmocka_unit_test(test_auto_mode_packs_user_bytes_into_free_oob),
        cmocka_unit_test(test_oob_only_program_writes_no_ecc),
        cmocka_unit_test(test_one_bitflip_is_corrected_and_at_threshold_for_hamming),
        cmocka_unit_test(test_two_bitflips_in_a_hamming_step_are_uncorrectable),
        cmocka_unit_test(test_bch8_threshold_boundary),
        cmocka_unit_test(test_erased_step_with_flips_reads_as_erased),
        cmocka_unit_test(test_erased_page_reads_clean_with_every_engine),
        cmocka_unit_test(test_program_fail_status_is_eio_and_counted),
        cmocka_unit_test(test_read_only_device_refuses_program_and_erase),
        cmocka_unit_test(test_statistics_count_operations_and_busy_time),
        cmocka_unit_test(test_lock_hooks_wrap_every_call),
        cmocka_unit_test(test_controller_engine_computes_linux_hamming_during_transfer),
        cmocka_unit_test(test_on_die_ecc_reports_through_status),
        cmocka_unit_test(test_on_die_ecc_on_a_chip_without_it_is_refused),
        cmocka_unit_test(test_multi_page_helpers_report_the_worst_page),
        cmocka_unit_test(test_status_polling_port_works_without_rb_line),
        cmocka_unit_test(test_data_loop_is_selectable_only_where_the_port_has_one),
        cmocka_unit_test(test_small_page_chip_with_hamming),
        cmocka_unit_test(test_ecc_weaker_than_the_chip_requires_is_refused_naming_both),
        cmocka_unit_test(test_default_ecc_meets_the_requirement_of_every_preset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
