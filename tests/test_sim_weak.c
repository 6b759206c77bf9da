/* SPDX-License-Identifier: MIT */
/*
 * Weak cells after a power cut late in an operation. A program cut in the
 * last quarter of tPROG lands every intended bit, so the page reads clean,
 * but some cells hold too little charge: after enough reads or enough
 * virtual time they read 1 again, beyond what the ECC corrects. An erase cut
 * in the last quarter of tBERS leaves a block that reads erased, but the
 * next program of it clears bits that were meant to stay 1. A complete
 * erase ends both; everything follows the seed, survives closing and
 * reopening the image, and `faults.weak_cells_off` restores the old model.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim_ops.h"
#include "simdev.h"

#define PAGE_BYTES 2112u
#define TPROG_NS 300000u
#define TBERS_NS 2000000u

static char image_path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(image_path, sizeof image_path, "%s/test_sim_weak_%d.img", NK_BINARY_DIR,
             (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char sidecar[300];
    unlink(image_path);
    unlink(nk_sim_sidecar_path(image_path, sidecar, sizeof sidecar));
    return 0;
}

static struct nk_sim *open_sim(uint64_t seed, bool weak_cells_off, const char *image, bool create)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = image && !create ? NULL : "K9F1G08U0A";
    config.seed = seed;
    config.image_path = image;
    config.create = create;
    config.faults_set = true;
    config.faults.strict_page_order = true;
    config.faults.enforce_nop = true;
    config.faults.weak_cells_off = weak_cells_off;
    struct nk_sim *sim = NULL;
    struct nk_diag why[1];
    if (nk_sim_open(&sim, &config, why))
        fail_msg("nk_sim_open: %s", why->text);
    return sim;
}

static const struct nk_chip_info *chip(struct nk_sim *sim)
{
    return &nk_sim_params(sim)->chip;
}

/* Programs `data` into `row` and cuts the power `percent` % into tPROG
 * (the busy time starts after 80h, 4 address cycles, the data and 10h). */
static void program_cut(struct nk_sim *sim, uint32_t row, const uint8_t *data, unsigned percent)
{
    uint64_t start = nk_sim_time_ns(sim) + 6 * 30 + PAGE_BYTES * 30;
    nk_sim_power_cut_at_time(sim, start + (uint64_t)TPROG_NS * percent / 100);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), row, 0, data, PAGE_BYTES),
                     -NK_ENODEV);
    nk_sim_power_restore(sim);
}

/* Erases `block` and cuts the power `percent` % into tBERS. */
static void erase_cut(struct nk_sim *sim, uint32_t block, unsigned percent)
{
    uint64_t start = nk_sim_time_ns(sim) + 4 * 30;
    nk_sim_power_cut_at_time(sim, start + (uint64_t)TBERS_NS * percent / 100);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), chip(sim), block), -NK_ENODEV);
    nk_sim_power_restore(sim);
}

static void read_page(struct nk_sim *sim, uint32_t row, uint8_t *got)
{
    assert_int_equal(sim_read(nk_sim_ctrl(sim), chip(sim), row, 0, got, PAGE_BYTES), 0);
}

/* Bits of `got` that differ from `want`: in all, meant 0 but read 1
 * (charge lost), and the most in any 512-byte step of the data area. */
struct flips {
    unsigned total, rose, worst_step;
};

static struct flips count_flips(const uint8_t *want, const uint8_t *got)
{
    struct flips f = {0, 0, 0};
    unsigned step = 0;
    for (unsigned i = 0; i < PAGE_BYTES; i++) {
        if (i % 512 == 0)
            step = 0;
        unsigned n = (unsigned)__builtin_popcount((unsigned)(want[i] ^ got[i]));
        f.total += n;
        f.rose += (unsigned)__builtin_popcount((unsigned)(got[i] & ~want[i]));
        if (i < 2048) {
            step += n;
            if (step > f.worst_step)
                f.worst_step = step;
        }
    }
    return f;
}

static unsigned least_step(const uint8_t *want, const uint8_t *got)
{
    unsigned least = ~0u;
    for (unsigned s = 0; s < 4; s++) {
        unsigned n = 0;
        for (unsigned i = s * 512; i < (s + 1) * 512; i++)
            n += (unsigned)__builtin_popcount((unsigned)(want[i] ^ got[i]));
        if (n < least)
            least = n;
    }
    return least;
}

static void test_late_program_cut_reads_clean_then_loses_bits_with_reads(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(11, false, NULL, false);
    uint8_t data[PAGE_BYTES], got[PAGE_BYTES];
    nk_test_random(data, sizeof data, 3);
    program_cut(sim, 7, data, 90);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 0, &block), 0);
    assert_true(block.flags & NK_SIM_BLOCK_WEAK_PAGES);
    struct nk_sim_weak_state weak;
    assert_int_equal(nk_sim_page_weak(sim, 7, &weak), 0);
    assert_true(weak.weak_bits > 500);
    /* Every intended bit landed: the first twelve reads are exact. */
    for (unsigned r = 0; r < 12; r++) {
        read_page(sim, 7, got);
        assert_memory_equal(got, data, sizeof data);
    }
    /* The default weak_reads is 8; the cut at 90 % leaves margins that give
     * way between 1.5 and 2 times that: by the 17th read all of them have. */
    for (unsigned r = 12; r < 17; r++)
        read_page(sim, 7, got);
    read_page(sim, 7, got);
    struct flips f = count_flips(data, got);
    assert_int_equal(f.rose, f.total);      /* only charge lost: 0 -> 1 */
    assert_true(least_step(data, got) > 8); /* beyond BCH-8 in every step */
    assert_int_equal(nk_sim_page_weak(sim, 7, &weak), 0);
    assert_int_equal(weak.reads, 18);
    assert_int_equal(weak.failing_bits, weak.weak_bits);
    assert_int_equal(f.total, weak.weak_bits);
    /* Lost charge stays lost. */
    uint8_t again[PAGE_BYTES];
    read_page(sim, 7, again);
    assert_memory_equal(again, got, sizeof got);
    /* Neighbours programmed in full are untouched. */
    assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 8, 0, data, PAGE_BYTES), 0xe0);
    for (unsigned r = 0; r < 30; r++)
        read_page(sim, 8, got);
    assert_memory_equal(got, data, sizeof data);
    assert_int_equal(nk_sim_page_weak(sim, 8, &weak), -NK_ENOENT);
    nk_sim_close(sim);
}

static void test_late_program_cut_loses_bits_with_time(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(12, false, NULL, false);
    uint8_t data[PAGE_BYTES], got[PAGE_BYTES];
    nk_test_random(data, sizeof data, 4);
    program_cut(sim, 64 + 3, data, 90);
    read_page(sim, 64 + 3, got);
    assert_memory_equal(got, data, sizeof data);
    /* 1.2 s of idle time (weak_time_ns default 1 s) plus one read: stress
     * 1.325, so cells with margin up to 0.325 * 96 = 31 lanes give way. */
    assert_int_equal(nk_sim_time_advance(sim, 1200000000ull), 0);
    read_page(sim, 64 + 3, got);
    struct flips partial = count_flips(data, got);
    assert_true(partial.total == 0); /* a 90 % cut leaves every margin above 31 */
    /* Another second: stress above 2, every weak cell has given way. */
    assert_int_equal(nk_sim_time_advance(sim, 1000000000ull), 0);
    read_page(sim, 64 + 3, got);
    struct flips f = count_flips(data, got);
    assert_int_equal(f.rose, f.total);
    assert_true(least_step(data, got) > 8);
    struct nk_sim_weak_state weak;
    assert_int_equal(nk_sim_page_weak(sim, 64 + 3, &weak), 0);
    assert_true(weak.age_ns >= 2200000000ull);
    nk_sim_close(sim);
}

/* Knobs: weak_reads and weak_time_ns set how soon the cells give way. */
static void test_decay_knobs(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(13, false, NULL, false);
    struct nk_sim_faults faults;
    nk_sim_faults_get(sim, &faults);
    faults.weak_reads = 2;
    faults.weak_time_ns = 1000000000000ull; /* 1000 s: time plays no part */
    nk_sim_faults_set(sim, &faults);
    uint8_t data[PAGE_BYTES], got[PAGE_BYTES];
    nk_test_random(data, sizeof data, 5);
    program_cut(sim, 0, data, 90);
    read_page(sim, 0, got);
    read_page(sim, 0, got);
    read_page(sim, 0, got); /* stress 1.0 here: margins 50..96 all hold */
    assert_memory_equal(got, data, sizeof data);
    for (unsigned r = 3; r <= 4; r++)
        read_page(sim, 0, got); /* stress 2.0 at the fifth read: all give way */
    assert_true(least_step(data, got) > 8);
    nk_sim_close(sim);
}

static void test_weak_cells_off_keeps_the_old_model(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(11, true, NULL, false);
    uint8_t data[PAGE_BYTES], first[PAGE_BYTES], got[PAGE_BYTES], ff[PAGE_BYTES];
    nk_test_random(data, sizeof data, 3);
    memset(ff, 0xff, sizeof ff);
    program_cut(sim, 7, data, 90);
    struct nk_sim_weak_state weak;
    assert_int_equal(nk_sim_page_weak(sim, 7, &weak), -NK_ENOENT);
    /* The old model: the last 10 % of the transitions are missing, and the
     * page never changes after that. */
    read_page(sim, 7, first);
    struct flips f = count_flips(data, first);
    assert_int_equal(f.rose, f.total);
    assert_true(f.total > 300 && f.total < 1500);
    for (unsigned r = 0; r < 40; r++)
        read_page(sim, 7, got);
    assert_int_equal(nk_sim_time_advance(sim, 5000000000ull), 0);
    read_page(sim, 7, got);
    assert_memory_equal(got, first, sizeof got);
    /* A late erase cut does not complete: programmed bits remain. */
    erase_cut(sim, 0, 95);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 0, &block), 0);
    assert_false(block.flags & NK_SIM_BLOCK_WEAK_ERASE);
    assert_true(block.flags & NK_SIM_BLOCK_UNSTABLE);
    assert_int_equal(nk_sim_page_peek(sim, 7, 0, got, sizeof got), 0);
    assert_memory_not_equal(got, ff, sizeof got);
    nk_sim_close(sim);
}

static void test_late_erase_cut_reads_erased_but_programs_flip(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(21, false, NULL, false);
    uint8_t zeros[PAGE_BYTES], ff[PAGE_BYTES], data[PAGE_BYTES], got[PAGE_BYTES];
    memset(zeros, 0x00, sizeof zeros);
    memset(ff, 0xff, sizeof ff);
    nk_test_random(data, sizeof data, 6);
    for (uint32_t p = 0; p < 64; p++)
        assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 64 * 2 + p, 0, zeros, PAGE_BYTES),
                         0xe0);
    erase_cut(sim, 2, 90);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 2, &block), 0);
    assert_true(block.flags & NK_SIM_BLOCK_WEAK_ERASE);
    assert_false(block.flags & NK_SIM_BLOCK_UNSTABLE);
    assert_int_equal(block.next_page, 0);
    /* Every page reads erased, read after read: nothing tells it apart. */
    for (uint32_t p = 0; p < 64; p++) {
        read_page(sim, 64 * 2 + p, got);
        assert_memory_equal(got, ff, sizeof ff);
        read_page(sim, 64 * 2 + p, got);
        assert_memory_equal(got, ff, sizeof ff);
    }
    /* A program succeeds (status E0h) but cells meant to stay 1 read 0. */
    assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 64 * 2, 0, data, PAGE_BYTES), 0xe0);
    read_page(sim, 64 * 2, got);
    struct flips f = count_flips(data, got);
    assert_int_equal(f.rose, 0); /* only 1 -> 0 */
    assert_true(least_step(data, got) > 8);
    /* The flips are stored: every read shows the same. */
    uint8_t again[PAGE_BYTES];
    read_page(sim, 64 * 2, again);
    assert_memory_equal(again, got, sizeof got);
    /* An OOB-only program flips data-area bits too (program disturb). */
    uint8_t tag[16];
    memset(tag, 0x5a, sizeof tag);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 64 * 2 + 1, 2048, tag, sizeof tag),
                     0xe0);
    read_page(sim, 64 * 2 + 1, got);
    assert_memory_not_equal(got, ff, 2048);
    /* A complete erase makes the block whole again. */
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), chip(sim), 2), 0xe0);
    assert_int_equal(nk_sim_block_get(sim, 2, &block), 0);
    assert_false(block.flags & NK_SIM_BLOCK_WEAK_ERASE);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 64 * 2, 0, data, PAGE_BYTES), 0xe0);
    read_page(sim, 64 * 2, got);
    assert_memory_equal(got, data, sizeof data);
    nk_sim_close(sim);
}

/* The later in tBERS the cut, the fewer cells are weak. */
static void test_weak_erase_depends_on_how_late(void **state)
{
    (void)state;
    unsigned flips[2];
    const unsigned percent[2] = {77, 99};
    for (unsigned i = 0; i < 2; i++) {
        struct nk_sim *sim = open_sim(22, false, NULL, false);
        uint8_t zeros[PAGE_BYTES], ff[PAGE_BYTES], got[PAGE_BYTES];
        memset(zeros, 0x00, sizeof zeros);
        memset(ff, 0xff, sizeof ff);
        assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 0, 0, zeros, PAGE_BYTES), 0xe0);
        erase_cut(sim, 0, percent[i]);
        assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 1, 0, ff, PAGE_BYTES), 0xe0);
        read_page(sim, 1, got);
        flips[i] = count_flips(ff, got).total;
        nk_sim_close(sim);
    }
    /* 77 %: margin 5 of 64, threshold 31/256 of the cells; 99 %: margin 61,
     * threshold 3/256 (still about 200 flips in a page that stays 0xFF). */
    assert_true(flips[0] > 1500 && flips[0] < 2600);
    assert_true(flips[1] > 100 && flips[1] < 330);
}

/* A program cut early is torn and weak; an erase cut early is partly erased
 * and unstable, as before. */
static void test_early_cuts_tear_and_weaken(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(23, false, NULL, false);
    uint8_t data[PAGE_BYTES], got[PAGE_BYTES];
    nk_test_random(data, sizeof data, 8);
    program_cut(sim, 0, data, 30);
    read_page(sim, 0, got);
    struct flips f = count_flips(data, got);
    assert_true(f.total > 0); /* torn at once */
    struct nk_sim_weak_state weak;
    assert_int_equal(nk_sim_page_weak(sim, 0, &weak), 0);
    assert_true(weak.weak_bits > 0);
    for (unsigned r = 0; r < 20; r++)
        read_page(sim, 0, got);
    assert_true(count_flips(data, got).total > f.total); /* and it gets worse */
    erase_cut(sim, 0, 30);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 0, &block), 0);
    assert_true(block.flags & NK_SIM_BLOCK_UNSTABLE);
    assert_false(block.flags & (NK_SIM_BLOCK_WEAK_ERASE | NK_SIM_BLOCK_WEAK_PAGES));
    assert_int_equal(nk_sim_page_weak(sim, 0, &weak), -NK_ENOENT);
    nk_sim_close(sim);
}

static void test_erase_ends_weak_pages(void **state)
{
    (void)state;
    struct nk_sim *sim = open_sim(24, false, NULL, false);
    uint8_t data[PAGE_BYTES], got[PAGE_BYTES];
    nk_test_random(data, sizeof data, 9);
    program_cut(sim, 64 * 5 + 2, data, 85);
    struct nk_sim_weak_state weak;
    assert_int_equal(nk_sim_page_weak(sim, 64 * 5 + 2, &weak), 0);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), chip(sim), 5), 0xe0);
    assert_int_equal(nk_sim_page_weak(sim, 64 * 5 + 2, &weak), -NK_ENOENT);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 5, &block), 0);
    assert_false(block.flags & NK_SIM_BLOCK_WEAK_PAGES);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 64 * 5 + 2, 0, data, PAGE_BYTES),
                     0xe0);
    for (unsigned r = 0; r < 30; r++)
        read_page(sim, 64 * 5 + 2, got);
    assert_memory_equal(got, data, sizeof data);
    nk_sim_close(sim);
}

/* The same seed gives the same weak cells and the same flips; another seed
 * other ones. */
static void test_weak_cells_follow_the_seed(void **state)
{
    (void)state;
    uint8_t decayed[3][PAGE_BYTES], flipped[3][PAGE_BYTES];
    const uint64_t seeds[3] = {40, 40, 41};
    uint8_t data[PAGE_BYTES], ff[PAGE_BYTES];
    nk_test_random(data, sizeof data, 10);
    memset(ff, 0xff, sizeof ff);
    for (unsigned i = 0; i < 3; i++) {
        struct nk_sim *sim = open_sim(seeds[i], false, NULL, false);
        program_cut(sim, 0, data, 80);
        for (unsigned r = 0; r < 14; r++)
            read_page(sim, 0, decayed[i]); /* some of the weak cells have given way */
        erase_cut(sim, 1, 90);
        assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 64, 0, ff, PAGE_BYTES), 0xe0);
        read_page(sim, 64, flipped[i]);
        nk_sim_close(sim);
    }
    assert_memory_not_equal(decayed[0], data, PAGE_BYTES);
    assert_memory_equal(decayed[0], decayed[1], PAGE_BYTES);
    assert_memory_not_equal(decayed[0], decayed[2], PAGE_BYTES);
    assert_memory_not_equal(flipped[0], ff, PAGE_BYTES);
    assert_memory_equal(flipped[0], flipped[1], PAGE_BYTES);
    assert_memory_not_equal(flipped[0], flipped[2], PAGE_BYTES);
}

/* A cut image reopened by another program behaves as if it had stayed open:
 * the weak pages (with their reads and age) and the weakly erased block are
 * in the sidecar. The reference is the same script in one open. */
static void test_weak_state_survives_reopen(void **state)
{
    (void)state;
    uint8_t data[PAGE_BYTES], ff[PAGE_BYTES], zeros[PAGE_BYTES];
    nk_test_random(data, sizeof data, 12);
    memset(ff, 0xff, sizeof ff);
    memset(zeros, 0, sizeof zeros);
    uint8_t by_reads[2][PAGE_BYTES], by_time[2][PAGE_BYTES], flipped[2][PAGE_BYTES];
    for (unsigned reopen = 0; reopen < 2; reopen++) {
        struct nk_sim *sim = open_sim(50, false, image_path, true);
        program_cut(sim, 3, data, 90);
        program_cut(sim, 64 + 3, data, 90);
        assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 128, 0, zeros, PAGE_BYTES), 0xe0);
        erase_cut(sim, 2, 90);
        uint8_t got[PAGE_BYTES];
        for (unsigned r = 0; r < 10; r++)
            read_page(sim, 3, got);
        assert_memory_equal(got, data, sizeof data);
        read_page(sim, 64 + 3, got);
        assert_int_equal(nk_sim_time_advance(sim, 1000000000ull), 0);
        if (reopen) {
            nk_sim_close(sim);
            sim = open_sim(999, false, image_path, false); /* part from the sidecar */
            struct nk_sim_weak_state weak;
            assert_int_equal(nk_sim_page_weak(sim, 3, &weak), 0);
            assert_int_equal(weak.reads, 10);
            assert_int_equal(nk_sim_page_weak(sim, 64 + 3, &weak), 0);
            assert_true(weak.age_ns >= 1000000000ull);
            struct nk_sim_block_state block;
            assert_int_equal(nk_sim_block_get(sim, 2, &block), 0);
            assert_true(block.flags & NK_SIM_BLOCK_WEAK_ERASE);
            assert_int_equal(nk_sim_block_get(sim, 0, &block), 0);
            assert_true(block.flags & NK_SIM_BLOCK_WEAK_PAGES);
        }
        for (unsigned r = 10; r < 18; r++)
            read_page(sim, 3, by_reads[reopen]);
        assert_int_equal(nk_sim_time_advance(sim, 1000000000ull), 0);
        read_page(sim, 64 + 3, by_time[reopen]);
        assert_int_equal(sim_program(nk_sim_ctrl(sim), chip(sim), 128, 0, ff, PAGE_BYTES), 0xe0);
        read_page(sim, 128, flipped[reopen]);
        nk_sim_close(sim);
    }
    assert_true(least_step(data, by_reads[0]) > 8);
    assert_memory_equal(by_reads[0], by_reads[1], PAGE_BYTES);
    assert_true(least_step(data, by_time[0]) > 8);
    assert_memory_equal(by_time[0], by_time[1], PAGE_BYTES);
    assert_memory_not_equal(flipped[0], ff, PAGE_BYTES);
    assert_memory_equal(flipped[0], flipped[1], PAGE_BYTES);
}

static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (unsigned k = 0; k < 8; k++)
            crc = crc & 1u ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return ~crc;
}

static long read_sidecar(uint8_t *buf, size_t size)
{
    char path[300];
    FILE *f = fopen(nk_sim_sidecar_path(image_path, path, sizeof path), "rb");
    assert_non_null(f);
    long n = (long)fread(buf, 1, size, f);
    fclose(f);
    return n;
}

/* The sidecar grows by one entry (32 bytes and a page+OOB mask) per weak
 * page, and a version-1 sidecar (no entries) still opens. */
static void test_sidecar_sizes_and_version_1(void **state)
{
    (void)state;
    static uint8_t buf[65536];
    struct nk_sim *sim = open_sim(60, false, image_path, true);
    assert_int_equal(nk_sim_block_set_erase_count(sim, 3, 5), 0);
    nk_sim_close(sim);
    assert_int_equal(read_sidecar(buf, sizeof buf), 16468);
    assert_int_equal(buf[8], 2);

    sim = open_sim(60, false, image_path, false);
    uint8_t data[PAGE_BYTES];
    nk_test_random(data, sizeof data, 14);
    program_cut(sim, 64 * 4, data, 90);
    program_cut(sim, 64 * 7 + 1, data, 90);
    nk_sim_close(sim);
    assert_int_equal(read_sidecar(buf, sizeof buf), 16468 + 2 * (32 + PAGE_BYTES));
    assert_int_equal(buf[44], 2);

    /* Rewrite it as version 1 without the entries. */
    sim = open_sim(60, false, image_path, false);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), chip(sim), 4), 0xe0);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), chip(sim), 7), 0xe0);
    nk_sim_close(sim);
    assert_int_equal(read_sidecar(buf, sizeof buf), 16468);
    buf[8] = 1;
    uint32_t crc = crc32_ieee(buf, 16464);
    for (unsigned i = 0; i < 4; i++)
        buf[16464 + i] = (uint8_t)(crc >> (8 * i));
    char path[300];
    FILE *f = fopen(nk_sim_sidecar_path(image_path, path, sizeof path), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, 16468, f), 16468);
    fclose(f);
    sim = open_sim(60, false, image_path, false);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 3, &block), 0);
    assert_int_equal(block.erase_count, 5);
    nk_sim_close(sim);
    /* A version-1 sidecar that claims weak pages is refused. */
    buf[44] = 1;
    crc = crc32_ieee(buf, 16464);
    for (unsigned i = 0; i < 4; i++)
        buf[16464 + i] = (uint8_t)(crc >> (8 * i));
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, 16468, f), 16468);
    fclose(f);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.image_path = image_path;
    struct nk_diag why[1];
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EILSEQ);
}

/* Through the device layer with BCH-4: the late-cut page is read as good at
 * first, and later as uncorrectable. */
static void test_late_cut_page_becomes_uncorrectable_through_the_ecc(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_BCH4, NULL);
    uint8_t data[2048], raw[PAGE_BYTES], got[2048];
    nk_test_random(data, sizeof data, 13);
    /* The page with its code, as the device layer writes it. */
    assert_int_equal(nk_nand_program_page(&d.nand, 64 * 9, data, NULL, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(d.sim, 64 * 9, 0, raw, sizeof raw), 0);
    /* The same bytes into another page, cut at 95 % of tPROG. */
    program_cut(d.sim, 64 * 10, raw, 95);
    assert_int_equal(nk_nand_read_page(&d.nand, 64 * 10, got, NULL, NK_OOB_AUTO), 0);
    assert_memory_equal(got, data, sizeof data);
    int result = 0;
    for (unsigned r = 0; r < 20 && result >= 0; r++)
        result = nk_nand_read_page(&d.nand, 64 * 10, got, NULL, NK_OOB_AUTO);
    assert_int_equal(result, -NK_EBADMSG);
    nk_test_dev_close(&d);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_late_program_cut_reads_clean_then_loses_bits_with_reads),
        T(test_late_program_cut_loses_bits_with_time),
        T(test_decay_knobs),
        T(test_weak_cells_off_keeps_the_old_model),
        T(test_late_erase_cut_reads_erased_but_programs_flip),
        T(test_weak_erase_depends_on_how_late),
        T(test_early_cuts_tear_and_weaken),
        T(test_erase_ends_weak_pages),
        T(test_weak_cells_follow_the_seed),
        T(test_weak_state_survives_reopen),
        T(test_sidecar_sizes_and_version_1),
        T(test_late_cut_page_becomes_uncorrectable_through_the_ecc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
