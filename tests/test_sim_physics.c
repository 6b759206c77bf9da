/* SPDX-License-Identifier: MIT */
/*
 * NAND physics, one rule per test: erased reads 0xFF; programming only
 * clears bits; the NOP limit; in-order programming; factory-bad blocks with
 * their markers; grown bad blocks by injection and by wear; raw bit errors
 * growing with wear; read disturb; stuck bits; on-die ECC; write protect.
 */
#include <string.h>

#include "sim_ops.h"

struct fixture {
    struct nk_sim *sim;
    const struct nk_ctrl *ctrl;
    const struct nk_chip_info *info;
};

static struct nk_sim *open_with(const char *preset, const struct nk_sim_faults *faults,
                                uint64_t seed)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = preset;
    config.seed = seed;
    if (faults) {
        config.faults = *faults;
        config.faults_set = true;
    }
    struct nk_sim *sim;
    struct nk_diag why[1];
    if (nk_sim_open(&sim, &config, why))
        fail_msg("%s", why->text);
    return sim;
}

static struct nk_sim_faults default_faults(void)
{
    struct nk_sim_faults faults;
    memset(&faults, 0, sizeof faults);
    faults.strict_page_order = true;
    faults.enforce_nop = true;
    return faults;
}

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

static unsigned popcount_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++)
        n += (unsigned)__builtin_popcount((unsigned)(a[i] ^ b[i]));
    return n;
}

static void test_erased_pages_read_ff(void **state)
{
    struct fixture *f = *state;
    uint8_t page[2112], ff[2112];
    memset(ff, 0xff, sizeof ff);
    const uint32_t rows[] = {0, 1, 12345, 1024 * 64 - 1};
    for (unsigned i = 0; i < 4; i++) {
        memset(page, 0, sizeof page);
        assert_int_equal(sim_read(f->ctrl, f->info, rows[i], 0, page, sizeof page), 0);
        assert_memory_equal(page, ff, sizeof ff);
    }
}

static void test_program_only_clears_bits(void **state)
{
    struct fixture *f = *state;
    uint8_t a[16], b[16], back[16];
    memset(a, 0xf0, sizeof a);
    memset(b, 0x3c, sizeof b);
    assert_int_equal(sim_program(f->ctrl, f->info, 10, 0, a, sizeof a), 0xe0);
    assert_int_equal(sim_program(f->ctrl, f->info, 10, 0, b, sizeof b), 0xe0);
    assert_int_equal(sim_read(f->ctrl, f->info, 10, 0, back, sizeof back), 0);
    for (unsigned i = 0; i < sizeof back; i++)
        assert_int_equal(back[i], 0x30); /* 0xf0 & 0x3c */
    /* Programming ones changes nothing. */
    memset(a, 0xff, sizeof a);
    assert_int_equal(sim_program(f->ctrl, f->info, 10, 0, a, sizeof a), 0xe0);
    assert_int_equal(sim_read(f->ctrl, f->info, 10, 0, back, sizeof back), 0);
    assert_int_equal(back[0], 0x30);
}

static void test_nop_limit_fails_the_extra_partial_program(void **state)
{
    struct fixture *f = *state;
    uint8_t byte, back[8];
    for (unsigned i = 0; i < 4; i++) { /* NOP 4: four partial programs */
        byte = (uint8_t) ~(1u << i);
        assert_int_equal(sim_program(f->ctrl, f->info, 20, i, &byte, 1), 0xe0);
    }
    byte = 0x00;
    assert_int_equal(sim_program(f->ctrl, f->info, 20, 4, &byte, 1), 0xe1);
    assert_int_equal(nk_sim_page_peek(f->sim, 20, 0, back, 8), 0);
    const uint8_t expected[8] = {0xfe, 0xfd, 0xfb, 0xf7, 0xff, 0xff, 0xff, 0xff};
    assert_memory_equal(back, expected, 8); /* the refused program changed nothing */
    struct nk_sim_counters c;
    nk_sim_counters(f->sim, &c);
    assert_int_equal(c.nop_violations, 1);
    assert_int_equal(c.program_fails, 1);
    /* After an erase the page takes programs again. */
    assert_int_equal(sim_erase(f->ctrl, f->info, 0), 0xe0);
    assert_int_equal(sim_program(f->ctrl, f->info, 20, 4, &byte, 1), 0xe0);
}

static void test_nop_not_enforced_when_disabled(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.enforce_nop = false;
    struct nk_sim *sim = open_with("K9F1208U0C", &faults, 1); /* NOP 1 */
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t byte = 0x0f;
    struct nk_test_ops ops = {.count = 0};
    for (unsigned i = 0; i < 3; i++) {
        uint8_t cycles[] = {(uint8_t)i, 0, 0, 0};
        ops_clear(&ops);
        ops_cmd(&ops, 0x00, 0);
        ops_cmd(&ops, 0x80, 0);
        ops_addr(&ops, cycles, 4, 0);
        ops_out(&ops, &byte, 1, 0);
        ops_cmd(&ops, 0x10, 0);
        ops_wait(&ops, 0);
        assert_int_equal(ops_run(nk_sim_ctrl(sim), &ops), 0);
        assert_int_equal(sim_status(nk_sim_ctrl(sim)), 0xe0);
    }
    (void)info;
    nk_sim_close(sim);
}

static void test_pages_must_be_programmed_in_order(void **state)
{
    struct fixture *f = *state;
    uint8_t data[4] = {0, 0, 0, 0};
    assert_int_equal(sim_program(f->ctrl, f->info, 64 + 5, 0, data, 4), 0xe0);
    assert_int_equal(sim_program(f->ctrl, f->info, 64 + 3, 0, data, 4), 0xe1);
    /* The same page again (a partial program) and later pages are fine. */
    assert_int_equal(sim_program(f->ctrl, f->info, 64 + 5, 8, data, 4), 0xe0);
    assert_int_equal(sim_program(f->ctrl, f->info, 64 + 9, 0, data, 4), 0xe0);
    struct nk_sim_counters c;
    nk_sim_counters(f->sim, &c);
    assert_int_equal(c.order_violations, 1);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(f->sim, 1, &block), 0);
    assert_int_equal(block.next_page, 10);
    uint8_t back[4];
    assert_int_equal(nk_sim_page_peek(f->sim, 64 + 3, 0, back, 4), 0);
    assert_int_equal(back[0], 0xff);
}

static void test_page_order_not_enforced_when_disabled(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.strict_page_order = false;
    struct nk_sim *sim = open_with("K9F1G08U0A", &faults, 1);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[4] = {0};
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 63, 0, data, 4), 0xe0);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 0, 0, data, 4), 0xe0);
    nk_sim_close(sim);
}

static struct nk_sim *open_bad(const char *preset, int count, const uint32_t *list, unsigned len,
                               uint64_t seed)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = preset;
    config.seed = seed;
    config.factory_bad_blocks = count;
    config.factory_bad_list = list;
    config.factory_bad_list_len = len;
    struct nk_sim *sim;
    struct nk_diag why[1];
    if (nk_sim_open(&sim, &config, why))
        fail_msg("%s", why->text);
    return sim;
}

static unsigned factory_bad_set(struct nk_sim *sim, uint32_t *out, unsigned cap)
{
    unsigned n = 0;
    for (uint32_t b = 0; b < nk_sim_params(sim)->chip.blocks; b++) {
        struct nk_sim_block_state state;
        assert_int_equal(nk_sim_block_get(sim, b, &state), 0);
        if (state.flags & NK_SIM_BLOCK_FACTORY_BAD) {
            if (n < cap)
                out[n] = b;
            n++;
        }
    }
    return n;
}

static void test_factory_bad_blocks_carry_the_datasheet_marker(void **state)
{
    (void)state;
    struct nk_sim *sim = open_bad("K9F1G08U0A", 10, NULL, 0, 42);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint32_t bad[16];
    assert_int_equal(factory_bad_set(sim, bad, 16), 10);
    for (unsigned i = 0; i < 10; i++) {
        assert_int_not_equal(bad[i], 0); /* block 0 is guaranteed good */
        /* Non-0xFF at column 2048 (OOB byte 0) of page 0 and page 1. */
        uint8_t marker[2];
        assert_int_equal(sim_read(ctrl, info, bad[i] * 64, 2048, marker, 1), 0);
        assert_int_equal(sim_read(ctrl, info, bad[i] * 64 + 1, 2048, marker + 1, 1), 0);
        assert_int_not_equal(marker[0], 0xff);
        assert_int_not_equal(marker[1], 0xff);
    }
    /* Good blocks read erased at the marker. */
    uint8_t marker;
    assert_int_equal(sim_read(ctrl, info, 0, 2048, &marker, 1), 0);
    assert_int_equal(marker, 0xff);
    nk_sim_close(sim);
}

static void test_factory_bad_blocks_small_page_marker_at_oob_5(void **state)
{
    (void)state;
    const uint32_t list[] = {7, 100};
    struct nk_sim *sim = open_bad("K9F1208U0C", 0, list, 2, 1);
    uint8_t oob[16];
    assert_int_equal(nk_sim_page_peek(sim, 7 * 32, 512, oob, 16), 0);
    assert_int_equal(oob[5], 0x00);
    assert_int_equal(nk_sim_page_peek(sim, 100 * 32 + 1, 512, oob, 16), 0);
    assert_int_equal(oob[5], 0x00);
    uint32_t bad[4];
    assert_int_equal(factory_bad_set(sim, bad, 4), 2);
    nk_sim_close(sim);
}

static void test_factory_bad_block_erase_fails_and_keeps_markers(void **state)
{
    (void)state;
    const uint32_t list[] = {5};
    struct nk_sim *sim = open_bad("K9F1G08U0A", 0, list, 1, 1);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t before[2112], after[2112];
    assert_int_equal(nk_sim_page_peek(sim, 5 * 64, 0, before, sizeof before), 0);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), info, 5), 0xe1);
    uint8_t zero[4] = {0};
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 5 * 64 + 2, 0, zero, 4), 0xe1);
    assert_int_equal(nk_sim_page_peek(sim, 5 * 64, 0, after, sizeof after), 0);
    assert_memory_equal(before, after, sizeof before);
    assert_int_equal(after[2048], 0x00);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.erase_fails, 1);
    nk_sim_close(sim);
}

static void test_factory_bad_set_follows_the_seed(void **state)
{
    (void)state;
    uint32_t a[20], b[20], c[20];
    struct nk_sim *s1 = open_bad("K9F1G08U0A", 20, NULL, 0, 7);
    struct nk_sim *s2 = open_bad("K9F1G08U0A", 20, NULL, 0, 7);
    struct nk_sim *s3 = open_bad("K9F1G08U0A", 20, NULL, 0, 8);
    assert_int_equal(factory_bad_set(s1, a, 20), 20);
    assert_int_equal(factory_bad_set(s2, b, 20), 20);
    assert_int_equal(factory_bad_set(s3, c, 20), 20);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    nk_sim_close(s1);
    nk_sim_close(s2);
    nk_sim_close(s3);
    /* -1 asks for the preset's default count. */
    struct nk_sim *s4 = open_bad("K9F1G08U0A", -1, NULL, 0, 7);
    assert_int_equal(factory_bad_set(s4, a, 20), nk_sim_params(s4)->default_bad_blocks);
    nk_sim_close(s4);
}

static void test_factory_bad_list_out_of_range_is_refused(void **state)
{
    (void)state;
    const uint32_t list[] = {1024};
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "K9F1G08U0A";
    config.factory_bad_list = list;
    config.factory_bad_list_len = 1;
    struct nk_sim *sim;
    struct nk_diag why[1];
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EINVAL);
    assert_non_null(strstr(why->text, "block 1024"));
    config.factory_bad_list = NULL;
    config.factory_bad_blocks = 1024;
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EINVAL);
}

static void test_injected_program_failure_once(void **state)
{
    struct fixture *f = *state;
    uint8_t data[2112], back[2112], ff[2112];
    memset(data, 0x00, sizeof data);
    memset(ff, 0xff, sizeof ff);
    assert_int_equal(nk_sim_fail_inject(f->sim, 3, NK_SIM_FAIL_PROGRAM, false), 0);
    assert_int_equal(sim_program(f->ctrl, f->info, 3 * 64, 0, data, sizeof data), 0xe1);
    /* A failed program lands in part: some bits, not all. */
    assert_int_equal(nk_sim_page_peek(f->sim, 3 * 64, 0, back, sizeof back), 0);
    unsigned programmed = popcount_diff(back, ff, sizeof back);
    assert_true(programmed < 2112 * 8);
    assert_int_equal(sim_program(f->ctrl, f->info, 3 * 64 + 1, 0, data, sizeof data), 0xe0);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(f->sim, 3, &block), 0);
    assert_int_equal(block.flags, 0);
}

static void test_injected_permanent_erase_failure_is_a_grown_bad_block(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(nk_sim_fail_inject(f->sim, 9, NK_SIM_FAIL_ERASE, true), 0);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(sim_erase(f->ctrl, f->info, 9), 0xe1);
    assert_int_equal(sim_erase(f->ctrl, f->info, 10), 0xe0);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(f->sim, 9, &block), 0);
    assert_int_equal(block.flags, NK_SIM_BLOCK_FAIL_ERASE);
    assert_int_equal(block.erase_count, 3);
    assert_int_equal(nk_sim_fail_clear(f->sim, 9), 0);
    assert_int_equal(sim_erase(f->ctrl, f->info, 9), 0xe0);
    assert_int_equal(nk_sim_fail_inject(f->sim, 5000, NK_SIM_FAIL_ERASE, true), -NK_EINVAL);
    assert_int_equal(nk_sim_fail_inject(f->sim, 1, 0x80, true), -NK_EINVAL);
}

static void test_wear_out_fails_erase_past_the_limit(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.wear_limit = 10;
    faults.wear_fail_probability = 1.0;
    struct nk_sim *sim = open_with("K9F1G08U0A", &faults, 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(sim_erase(ctrl, info, 2), 0xe0);
    assert_int_equal(sim_erase(ctrl, info, 2), 0xe1);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 2, &block), 0);
    assert_true(block.flags & NK_SIM_BLOCK_WORN);
    /* Worn stays worn, even when the odds would spare it. */
    faults.wear_fail_probability = 0.0;
    nk_sim_faults_set(sim, &faults);
    assert_int_equal(sim_erase(ctrl, info, 2), 0xe1);
    /* Programs past the limit fail with the wear probability. */
    faults.wear_fail_probability = 1.0;
    nk_sim_faults_set(sim, &faults);
    assert_int_equal(nk_sim_block_set_erase_count(sim, 3, 50), 0);
    uint8_t zero = 0;
    assert_int_equal(sim_program(ctrl, info, 3 * 64, 0, &zero, 1), 0xe1);
    assert_int_equal(sim_program(ctrl, info, 4 * 64, 0, &zero, 1), 0xe0);
    nk_sim_close(sim);
}

static unsigned flips_over_reads(struct nk_sim *sim, uint32_t row, unsigned reads)
{
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[2112], ff[2112];
    memset(ff, 0xff, sizeof ff);
    unsigned flips = 0;
    for (unsigned i = 0; i < reads; i++) {
        assert_int_equal(sim_read(ctrl, info, row, 0, page, sizeof page), 0);
        flips += popcount_diff(page, ff, sizeof page);
    }
    return flips;
}

static void test_raw_bit_errors_at_the_configured_rate(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.raw_bit_error_rate = 1e-4;
    struct nk_sim *sim = open_with("K9F1G08U0A", &faults, 3);
    /* 16896 bits x 1e-4 = 1.69 flips per read; 500 reads ~ 845. */
    unsigned flips = flips_over_reads(sim, 0, 500);
    assert_in_range(flips, 700, 1000);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.bitflips_injected, flips);
    /* The errors are on the read path only: the array is still erased. */
    uint8_t stored[2112], ff[2112];
    memset(ff, 0xff, sizeof ff);
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, stored, sizeof stored), 0);
    assert_memory_equal(stored, ff, sizeof ff);
    nk_sim_close(sim);
}

static void test_raw_bit_errors_grow_with_erase_count(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.raw_bit_error_rate = 1e-4;
    faults.wear_error_growth = 1.0; /* x(1 + ec/1000) */
    struct nk_sim *sim = open_with("K9F1G08U0A", &faults, 3);
    assert_int_equal(nk_sim_block_set_erase_count(sim, 1, 4000), 0);
    unsigned young = flips_over_reads(sim, 0, 300);
    unsigned old = flips_over_reads(sim, 64, 300);
    /* Expected 507 vs 2534. */
    assert_in_range(young, 400, 620);
    assert_in_range(old, 2250, 2800);
    nk_sim_close(sim);
}

static void test_raw_bit_errors_are_reproducible_from_the_seed(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.raw_bit_error_rate = 1e-3;
    uint8_t a[2112], b[2112], c[2112];
    struct nk_sim *s1 = open_with("K9F1G08U0A", &faults, 99);
    struct nk_sim *s2 = open_with("K9F1G08U0A", &faults, 99);
    struct nk_sim *s3 = open_with("K9F1G08U0A", &faults, 100);
    const struct nk_chip_info *info = &nk_sim_params(s1)->chip;
    assert_int_equal(sim_read(nk_sim_ctrl(s1), info, 7, 0, a, sizeof a), 0);
    assert_int_equal(sim_read(nk_sim_ctrl(s2), info, 7, 0, b, sizeof b), 0);
    assert_int_equal(sim_read(nk_sim_ctrl(s3), info, 7, 0, c, sizeof c), 0);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    nk_sim_close(s1);
    nk_sim_close(s2);
    nk_sim_close(s3);
}

static void test_read_disturb_flips_other_pages_of_the_block(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.read_disturb_reads = 100;
    struct nk_sim *sim = open_with("K9F1G08U0A", &faults, 5);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[2112], ff[2112];
    memset(ff, 0xff, sizeof ff);
    for (unsigned i = 0; i < 150; i++)
        assert_int_equal(sim_read(ctrl, info, 64 * 4 + 10, 0, page, sizeof page), 0);
    /* 50 reads past the threshold: one persistent 1->0 flip each, in the
     * other pages of block 4. */
    unsigned disturbed = 0;
    for (uint32_t p = 0; p < 64; p++) {
        assert_int_equal(nk_sim_page_peek(sim, 64 * 4 + p, 0, page, sizeof page), 0);
        unsigned d = popcount_diff(page, ff, sizeof page);
        if (p == 10)
            assert_int_equal(d, 0);
        disturbed += d;
    }
    assert_int_equal(disturbed, 50);
    assert_int_equal(nk_sim_page_peek(sim, 64 * 5, 0, page, sizeof page), 0);
    assert_memory_equal(page, ff, sizeof ff);
    /* An erase heals the block and restarts the count. */
    assert_int_equal(sim_erase(ctrl, info, 4), 0xe0);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 4, &block), 0);
    assert_int_equal(block.reads_since_erase, 0);
    nk_sim_close(sim);
}

static void test_stuck_bits_read_their_value(void **state)
{
    struct fixture *f = *state;
    uint8_t page[2112];
    assert_int_equal(nk_sim_stuck_bit_add(f->sim, 30, 8 * 100 + 3, false), 0);
    assert_int_equal(sim_read(f->ctrl, f->info, 30, 0, page, sizeof page), 0);
    assert_int_equal(page[100], 0xf7);
    uint8_t zeros[2112];
    memset(zeros, 0x00, sizeof zeros);
    assert_int_equal(nk_sim_stuck_bit_add(f->sim, 31, 8 * 2050 + 0, true), 0);
    assert_int_equal(sim_program(f->ctrl, f->info, 31, 0, zeros, sizeof zeros), 0xe0);
    assert_int_equal(sim_read(f->ctrl, f->info, 31, 0, page, sizeof page), 0);
    assert_int_equal(page[2050], 0x01);
    assert_int_equal(page[2049], 0x00);
    nk_sim_stuck_bits_clear(f->sim);
    assert_int_equal(sim_read(f->ctrl, f->info, 30, 0, page, sizeof page), 0);
    assert_int_equal(page[100], 0xff);
    assert_int_equal(nk_sim_stuck_bit_add(f->sim, 30, 2112 * 8, true), -NK_EINVAL);
}

static void set_feature(const struct nk_ctrl *ctrl, uint8_t address, uint8_t p1)
{
    uint8_t params[4] = {p1, 0, 0, 0};
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xef, 0);
    ops_addr1(&ops, address, 70);
    ops_out(&ops, params, 4, 100);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

static void test_on_die_ecc_corrects_and_reports(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[2112], ff[2112];
    memset(ff, 0xff, sizeof ff);
    /* Step 0 (bytes 0..511): 2 stuck bits; step 1: 3; step 2: 5. */
    for (unsigned i = 0; i < 2; i++)
        assert_int_equal(nk_sim_stuck_bit_add(sim, 0, 8 * (10 + i), false), 0);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(nk_sim_stuck_bit_add(sim, 1, 8 * (600 + i), false), 0);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(nk_sim_stuck_bit_add(sim, 2, 8 * (1100 + i), false), 0);
    /* Off: the errors show. */
    assert_int_equal(sim_read(ctrl, info, 0, 0, page, sizeof page), 0);
    assert_int_equal(popcount_diff(page, ff, sizeof page), 2);
    set_feature(ctrl, 0x90, 0x08);
    /* 2 <= 4 corrected, below the threshold 3: clean status. */
    assert_int_equal(sim_read(ctrl, info, 0, 0, page, sizeof page), 0);
    assert_memory_equal(page, ff, sizeof ff);
    assert_int_equal(sim_status(ctrl) & (NK_STATUS_FAIL | NK_STATUS_REWRITE), 0);
    /* 3 corrected: rewrite recommended. */
    assert_int_equal(sim_read(ctrl, info, 1, 0, page, sizeof page), 0);
    assert_memory_equal(page, ff, sizeof ff);
    assert_int_equal(sim_status(ctrl) & (NK_STATUS_FAIL | NK_STATUS_REWRITE), NK_STATUS_REWRITE);
    /* 5 > 4: uncorrectable, data as read. */
    assert_int_equal(sim_read(ctrl, info, 2, 0, page, sizeof page), 0);
    assert_int_equal(popcount_diff(page, ff, sizeof page), 5);
    assert_int_equal(sim_status(ctrl) & (NK_STATUS_FAIL | NK_STATUS_REWRITE), NK_STATUS_FAIL);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.on_die_corrected, 5);
    /* Disabled again: raw errors. */
    set_feature(ctrl, 0x90, 0x00);
    assert_int_equal(sim_read(ctrl, info, 1, 0, page, sizeof page), 0);
    assert_int_equal(popcount_diff(page, ff, sizeof page), 3);
    nk_sim_close(sim);
}

static void test_on_die_ecc_corrects_raw_bit_errors(void **state)
{
    (void)state;
    struct nk_sim_faults faults = default_faults();
    faults.raw_bit_error_rate = 6e-5; /* ~0.25 per 512-byte step: never 5 */
    struct nk_sim *sim = open_with("MT29F2G08ABAEA", &faults, 12);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    set_feature(ctrl, 0x90, 0x08);
    uint8_t page[2112], ff[2112];
    memset(ff, 0xff, sizeof ff);
    for (unsigned i = 0; i < 100; i++) {
        assert_int_equal(sim_read(ctrl, info, 0, 0, page, sizeof page), 0);
        assert_memory_equal(page, ff, sizeof ff);
    }
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_true(c.bitflips_injected > 50); /* ~101 expected */
    assert_int_equal(c.on_die_corrected, c.bitflips_injected);
    nk_sim_close(sim);
}

static void test_write_protect_refuses_program_and_erase(void **state)
{
    struct fixture *f = *state;
    uint8_t zero = 0;
    nk_sim_write_protect(f->sim, true);
    assert_int_equal(sim_program(f->ctrl, f->info, 0, 0, &zero, 1), 0x61);
    assert_int_equal(sim_erase(f->ctrl, f->info, 0), 0x61);
    nk_sim_write_protect(f->sim, false);
    uint8_t back;
    assert_int_equal(nk_sim_page_peek(f->sim, 0, 0, &back, 1), 0);
    assert_int_equal(back, 0xff);
    assert_int_equal(sim_program(f->ctrl, f->info, 0, 0, &zero, 1), 0xe0);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_erased_pages_read_ff),
        T(test_program_only_clears_bits),
        T(test_nop_limit_fails_the_extra_partial_program),
        cmocka_unit_test(test_nop_not_enforced_when_disabled),
        T(test_pages_must_be_programmed_in_order),
        cmocka_unit_test(test_page_order_not_enforced_when_disabled),
        cmocka_unit_test(test_factory_bad_blocks_carry_the_datasheet_marker),
        cmocka_unit_test(test_factory_bad_blocks_small_page_marker_at_oob_5),
        cmocka_unit_test(test_factory_bad_block_erase_fails_and_keeps_markers),
        cmocka_unit_test(test_factory_bad_set_follows_the_seed),
        cmocka_unit_test(test_factory_bad_list_out_of_range_is_refused),
        T(test_injected_program_failure_once),
        T(test_injected_permanent_erase_failure_is_a_grown_bad_block),
        cmocka_unit_test(test_wear_out_fails_erase_past_the_limit),
        cmocka_unit_test(test_raw_bit_errors_at_the_configured_rate),
        cmocka_unit_test(test_raw_bit_errors_grow_with_erase_count),
        cmocka_unit_test(test_raw_bit_errors_are_reproducible_from_the_seed),
        cmocka_unit_test(test_read_disturb_flips_other_pages_of_the_block),
        T(test_stuck_bits_read_their_value),
        cmocka_unit_test(test_on_die_ecc_corrects_and_reports),
        cmocka_unit_test(test_on_die_ecc_corrects_raw_bit_errors),
        T(test_write_protect_refuses_program_and_erase),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
