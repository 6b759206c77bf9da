/* SPDX-License-Identifier: MIT */
/*
 * The bad-block table on the simulator: factory scan, Linux byte layout,
 * reading without a scan, mirror recovery, version wrap, relocation,
 * ENOSPC, scrub, runtime retirement, dry run, refusal of bad and reserved
 * blocks, and partitions.
 */
#include <string.h>

#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "nandkit/part.h"
#include "simdev.h"
#include "testutil.h"

#define PAGE 2048u
#define PPB 64u
#define BLOCKS 1024u

struct table {
    struct nk_bbt bbt;
    void *memory;
};

static int attach(struct nk_test_dev *d, struct table *t, bool dry_run, bool force_scan)
{
    struct nk_bbt_config config;
    memset(&config, 0, sizeof config);
    config.memory_size = nk_bbt_memory_size(&d->nand);
    if (!t->memory)
        t->memory = malloc(config.memory_size);
    config.memory = t->memory;
    config.dry_run = dry_run;
    config.force_scan = force_scan;
    return nk_bbt_attach(&d->nand, &t->bbt, &config);
}

static void detach(struct nk_test_dev *d, struct table *t)
{
    nk_bbt_detach(&d->nand);
    free(t->memory);
    t->memory = NULL;
}

/* A K9F1G08U0A with the given factory-bad blocks (or a seeded ~2 %). */
static void open_chip(struct nk_test_dev *d, const uint32_t *bad, unsigned count, int random_bad)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.seed = 42;
    config.factory_bad_list = bad;
    config.factory_bad_list_len = count;
    config.factory_bad_blocks = random_bad;
    nk_test_dev_open(d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, &config);
}

static void peek(struct nk_test_dev *d, uint32_t block, uint32_t column, uint8_t *buf, uint32_t len)
{
    assert_int_equal(nk_sim_page_peek(d->sim, block * PPB, column, buf, len), 0);
}

static void test_first_scan_finds_the_marked_blocks_and_writes_both_tables(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 20); /* ~2 % of 1024, seeded */
    uint32_t marked[BLOCKS], n_marked = 0;
    for (uint32_t b = 0; b < BLOCKS; b++) {
        struct nk_sim_block_state s;
        assert_int_equal(nk_sim_block_get(d.sim, b, &s), 0);
        if (s.flags & NK_SIM_BLOCK_FACTORY_BAD)
            marked[n_marked++] = b;
    }
    assert_int_equal(n_marked, 20);

    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    const struct nk_bbt_info *info = &t.bbt.info;
    assert_true(info->scanned);
    assert_true(info->main_written && info->mirror_written);
    assert_int_equal(info->factory_bad, 20);
    for (uint32_t i = 0, b = 0; b < BLOCKS; b++) {
        bool is_marked = i < n_marked && marked[i] == b;
        if (is_marked)
            i++;
        int state_now = nk_bbt_block_state(&t.bbt, b);
        if (is_marked)
            assert_int_equal(state_now, NK_BBT_FACTORY_BAD);
        else
            assert_int_not_equal(state_now, NK_BBT_FACTORY_BAD);
    }
    /* The tables went to the last usable blocks, distinct, patterns in OOB. */
    assert_true(info->main_block >= (int32_t)(BLOCKS - 4));
    assert_true(info->mirror_block >= (int32_t)(BLOCKS - 4));
    assert_int_not_equal(info->main_block, info->mirror_block);
    uint8_t mark[5];
    peek(&d, (uint32_t)info->main_block, PAGE + 8, mark, 5);
    assert_memory_equal(mark, "Bbt0\x01", 5);
    peek(&d, (uint32_t)info->mirror_block, PAGE + 8, mark, 5);
    assert_memory_equal(mark, "1tbB\x01", 5);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_table_bytes_follow_the_documented_linux_layout(void **state)
{
    (void)state;
    /* docs/bbt.md, worked example: block 5 factory bad, block 10 worn. */
    static const uint32_t bad[] = {5};
    struct nk_test_dev d;
    open_chip(&d, bad, 1, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 10), 0);

    uint8_t expected[PAGE];
    memset(expected, 0xff, sizeof expected);
    expected[1] = 0xf3; /* block 5 = 00 in bits 3..2 */
    expected[2] = 0xef; /* block 10 = 10 in bits 5..4 */
    uint8_t page[PAGE + 64];
    for (int copy = 0; copy < 2; copy++) {
        int32_t block = copy ? t.bbt.info.mirror_block : t.bbt.info.main_block;
        peek(&d, (uint32_t)block, 0, page, sizeof page);
        assert_memory_equal(page, expected, PAGE);
        for (unsigned i = 0; i < 8; i++)
            assert_int_equal(page[PAGE + i], 0xff);
        assert_memory_equal(page + PAGE + 8, copy ? "1tbB" : "Bbt0", 4);
        assert_int_equal(page[PAGE + 12], 2);    /* version 1, +1 for the new worn block */
        assert_int_equal(page[PAGE + 13], 0xfd); /* check byte: 0xFF - version */
        for (unsigned i = 14; i < 40; i++)
            assert_int_equal(page[PAGE + i], 0xff);
    }
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_second_attach_reads_the_table_without_scanning(void **state)
{
    (void)state;
    static const uint32_t bad[] = {3, 500};
    struct nk_test_dev d;
    open_chip(&d, bad, 2, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    detach(&d, &t);

    nk_test_dev_reopen(&d);
    nk_nand_stats_reset(&d.nand);
    struct nk_sim_counters before;
    nk_sim_counters(d.sim, &before);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_false(t.bbt.info.scanned);
    assert_false(t.bbt.info.main_written || t.bbt.info.mirror_written);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 3), NK_BBT_FACTORY_BAD);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 500), NK_BBT_FACTORY_BAD);
    /* Four pattern probes and both copies' table page (read to check they
     * agree): no marker scan, no writes. */
    assert_int_equal(d.nand.stats.oob_reads, 4);
    assert_int_equal(d.nand.stats.page_reads, 2);
    struct nk_sim_counters after;
    nk_sim_counters(d.sim, &after);
    assert_int_equal(after.ops[NK_SIM_OP_READ] - before.ops[NK_SIM_OP_READ], 6);
    assert_int_equal(after.ops[NK_SIM_OP_PROGRAM], before.ops[NK_SIM_OP_PROGRAM]);
    assert_int_equal(after.ops[NK_SIM_OP_ERASE], before.ops[NK_SIM_OP_ERASE]);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

/* Damages the data of a table copy beyond what ECC can correct: two flips
 * in one Hamming step are always detected (three might be miscorrected). */
static void corrupt_table(struct nk_test_dev *d, int32_t block)
{
    nk_test_flip_stored_bit(d, (uint32_t)block * PPB, 1);
    nk_test_flip_stored_bit(d, (uint32_t)block * PPB, 8 * 2 + 5);
}

static void test_uncorrectable_main_falls_back_to_mirror_and_is_rewritten(void **state)
{
    (void)state;
    static const uint32_t bad[] = {77};
    struct nk_test_dev d;
    open_chip(&d, bad, 1, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    int32_t main_block = t.bbt.info.main_block;
    detach(&d, &t);
    corrupt_table(&d, main_block);

    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_false(t.bbt.info.scanned);
    assert_true(t.bbt.info.main_written);
    assert_false(t.bbt.info.mirror_written);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 77), NK_BBT_FACTORY_BAD);
    uint8_t page[PAGE];
    peek(&d, (uint32_t)t.bbt.info.main_block, 0, page, PAGE);
    assert_int_equal(page[19], 0xf3); /* block 77 = 4 * 19 + 1: 00 in bits 3..2 of byte 19 */
    assert_int_equal(page[0], 0xff);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_both_tables_unreadable_means_a_new_scan(void **state)
{
    (void)state;
    static const uint32_t bad[] = {12};
    struct nk_test_dev d;
    open_chip(&d, bad, 1, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    int32_t main_block = t.bbt.info.main_block, mirror_block = t.bbt.info.mirror_block;
    detach(&d, &t);
    corrupt_table(&d, main_block);
    corrupt_table(&d, mirror_block);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_true(t.bbt.info.scanned);
    assert_int_equal(t.bbt.info.main_version, 2); /* above the unreadable copies */
    assert_int_equal(nk_bbt_block_state(&t.bbt, 12), NK_BBT_FACTORY_BAD);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

/* Rewrites a table copy on flash: version, and block 7 worn or good (the
 * Hamming code of the changed step recomputed so the copy reads clean). */
static void forge_copy(struct nk_test_dev *d, int32_t block, uint8_t version, bool block7_worn)
{
    uint8_t page[PAGE + 64];
    peek(d, (uint32_t)block, 0, page, sizeof page);
    page[1] = block7_worn ? 0xbf : 0xff; /* block 7 = bits 7..6 of byte 1: 10 worn */
    page[PAGE + 12] = version;
    page[PAGE + 13] = (uint8_t)(0xffu - version); /* the check byte nandkit writes */
    uint8_t code[3];
    nk_hamming_calculate(page, 256, false, code);
    memcpy(page + PAGE + 40, code, 3);
    assert_int_equal(nk_sim_page_poke(d->sim, (uint32_t)block * PPB, 0, page, sizeof page), 0);
}

static void test_versions_wrap_from_255_to_0(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    int32_t main_block = t.bbt.info.main_block, mirror_block = t.bbt.info.mirror_block;
    detach(&d, &t);

    /* Main at 0, the mirror at 255, same contents: 0 is the newer version,
     * so the mirror is rewritten at it. */
    forge_copy(&d, main_block, 0, true);
    forge_copy(&d, mirror_block, 255, true);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 7), NK_BBT_WORN);
    assert_false(t.bbt.info.main_written);
    assert_true(t.bbt.info.mirror_written);
    uint8_t mark[5];
    peek(&d, (uint32_t)t.bbt.info.mirror_block, PAGE + 8, mark, 5);
    assert_memory_equal(mark, "1tbB\x00", 5);
    detach(&d, &t);

    /* The other way round: the mirror at 0 beats the main at 255. */
    forge_copy(&d, main_block, 255, true);
    forge_copy(&d, mirror_block, 0, true);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 7), NK_BBT_WORN);
    assert_true(t.bbt.info.main_written);
    assert_false(t.bbt.info.mirror_written);
    peek(&d, (uint32_t)t.bbt.info.main_block, PAGE + 8, mark, 5);
    assert_memory_equal(mark, "Bbt0\x00", 5);
    detach(&d, &t);

    /* Different contents: the newer main at 0 says block 7 is good, the
     * older mirror says worn. Entries only go from good to bad, so the
     * block stays worn and both copies get version 1. */
    forge_copy(&d, main_block, 0, false);
    forge_copy(&d, mirror_block, 255, true);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 7), NK_BBT_WORN);
    assert_true(t.bbt.info.main_written && t.bbt.info.mirror_written);
    assert_int_equal(t.bbt.info.main_version, 1);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_failing_table_block_is_retired_and_the_table_moves(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    assert_int_equal(nk_sim_fail_inject(d.sim, BLOCKS - 1, NK_SIM_FAIL_ERASE, true), 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(t.bbt.info.main_block, BLOCKS - 2);
    assert_int_equal(t.bbt.info.mirror_block, BLOCKS - 3);
    assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 1), NK_BBT_WORN);
    /* Its marker says bad too, and the tables on flash record it as worn. */
    uint8_t marker;
    peek(&d, BLOCKS - 1, PAGE, &marker, 1);
    assert_int_equal(marker, 0x00);
    uint8_t page[PAGE];
    peek(&d, BLOCKS - 2, 0, page, PAGE);
    assert_int_equal(page[255] >> 6, 2); /* block 1023: bits 7..6 of byte 255 = 10 */
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_program_failure_in_a_table_block_also_relocates(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    assert_int_equal(nk_sim_fail_inject(d.sim, BLOCKS - 2, NK_SIM_FAIL_PROGRAM, true), 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(t.bbt.info.main_block, BLOCKS - 1);
    assert_int_equal(t.bbt.info.mirror_block, BLOCKS - 3);
    assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 2), NK_BBT_WORN);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

/* A no-ECC K9F1G08U0A with the given factory-bad blocks. */
static void open_chip_no_ecc(struct nk_test_dev *d)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.seed = 42;
    nk_test_dev_open(d, "K9F1G08U0A", NK_TEST_ECC_NONE, &config);
}

static void check_retired_table_block_stays_retired(enum nk_test_ecc ecc, uint64_t seed)
{
    struct nk_test_dev d;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.seed = seed;
    static const uint32_t factory_bad[] = {BLOCKS - 1};
    config.factory_bad_list = factory_bad;
    config.factory_bad_list_len = 1;
    nk_test_dev_open(&d, "K9F1G08U0A", ecc, &config);
    /* Main goes to BLOCKS - 2; the mirror's first block, BLOCKS - 3, fails
     * one program: the half-programmed page may keep a torn mirror pattern
     * and version, then the block is retired. */
    assert_int_equal(nk_sim_fail_inject(d.sim, BLOCKS - 3, NK_SIM_FAIL_PROGRAM, false), 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 3), NK_BBT_WORN);
    int32_t mirror = t.bbt.info.mirror_block;
    assert_int_equal(mirror, BLOCKS - 4);
    /* A block marked worn later is kept too. */
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 17), 0);
    detach(&d, &t);
    /* What a torn program can leave in the retired block whatever the seed:
     * the mirror pattern with a version byte that outranks the real one
     * (wrap-safe compare), over data that reads as "all good". */
    static const uint8_t torn[5] = {'1', 't', 'b', 'B', 0x7f};
    uint8_t ones[PAGE];
    memset(ones, 0xff, sizeof ones);
    assert_int_equal(nk_sim_page_poke(d.sim, (BLOCKS - 3) * PPB, 0, ones, PAGE), 0);
    assert_int_equal(nk_sim_page_poke(d.sim, (BLOCKS - 3) * PPB, PAGE + 8, torn, 5), 0);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(attach(&d, &t, false, false), 0);
        assert_false(t.bbt.info.scanned);
        assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 1), NK_BBT_FACTORY_BAD);
        assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 3), NK_BBT_WORN);
        assert_int_equal(nk_bbt_block_state(&t.bbt, 17), NK_BBT_WORN);
        assert_int_equal(t.bbt.info.main_block, BLOCKS - 2);
        assert_int_equal(t.bbt.info.mirror_block, mirror);
        assert_int_equal(t.bbt.info.main_version, t.bbt.info.mirror_version);
        detach(&d, &t);
    }
    nk_test_dev_close(&d);
}

static void test_retired_table_block_is_never_read_as_a_table_without_ecc(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 16; seed++)
        check_retired_table_block_stays_retired(NK_TEST_ECC_NONE, seed);
}

static void test_retired_table_block_is_never_read_as_a_table_with_ecc(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 16; seed++)
        check_retired_table_block_stays_retired(NK_TEST_ECC_HAMMING256, seed);
}

static void test_copies_with_one_version_and_different_contents_are_merged(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip_no_ecc(&d);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    uint8_t version = t.bbt.info.main_version;
    detach(&d, &t);
    /* The mirror alone says block 5 is worn (bits 11..10 of byte 1 = 10),
     * at the same version as the main table. */
    uint8_t byte;
    peek(&d, BLOCKS - 2, 1, &byte, 1);
    byte = (uint8_t)(byte & ~0x04u);
    assert_int_equal(nk_sim_page_poke(d.sim, (BLOCKS - 2) * PPB, 1, &byte, 1), 0);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 5), NK_BBT_WORN); /* never lose a bad block */
    assert_true(t.bbt.info.main_written && t.bbt.info.mirror_written);
    assert_int_equal(t.bbt.info.main_version, (uint8_t)(version + 1));
    detach(&d, &t);
    /* Both copies now agree. */
    uint8_t main_page[PAGE], mirror_page[PAGE];
    peek(&d, BLOCKS - 1, 0, main_page, PAGE);
    peek(&d, BLOCKS - 2, 0, mirror_page, PAGE);
    assert_memory_equal(main_page, mirror_page, PAGE);
    nk_test_dev_close(&d);
}

static void test_torn_version_byte_does_not_outrank_the_real_table(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip_no_ecc(&d);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 9), 0);
    detach(&d, &t);
    /* A power cut while the mirror was rewritten: its first page holds the
     * pattern, a torn version byte (more ones than written: 0x7f outranks
     * the real version) and data still all ones ("all good"). */
    uint8_t ones[PAGE + 64];
    memset(ones, 0xff, sizeof ones);
    assert_int_equal(nk_sim_page_poke(d.sim, (BLOCKS - 2) * PPB, 0, ones, PAGE + 64), 0);
    uint8_t oob[5] = {'1', 't', 'b', 'B', 0x7f};
    assert_int_equal(nk_sim_page_poke(d.sim, (BLOCKS - 2) * PPB, PAGE + 8, oob, 5), 0);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 9), NK_BBT_WORN);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void open_geometry(struct nk_test_dev *d, struct nk_sim_params *params, uint32_t page,
                          uint32_t oob, uint32_t ppb, uint32_t blocks)
{
    assert_int_equal(nk_sim_params_geometry(params, page, oob, ppb, blocks, NULL), 0);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = params;
    config.seed = 3;
    nk_test_dev_open(d, NULL, NK_TEST_ECC_NONE, &config);
    /* Small-page parts identify through the ID table: give the device the
     * simulated geometry instead. */
    nk_nand_close(&d->nand);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = d->ctrl;
    nc.chip = &params->chip;
    nc.ecc = &d->ecc;
    nc.workspace = d->workspace;
    nc.workspace_size = nk_nand_workspace_size(&params->chip);
    assert_int_equal(nk_nand_open(&d->nand, &nc), 0);
}

static void test_table_larger_than_a_block_is_refused_naming_the_geometry(void **state)
{
    (void)state;
    /* 4096 blocks need 1024 table bytes: two 512-byte pages, but a block
     * has one. Refused before anything is written, never spilled. */
    struct nk_sim_params params;
    struct nk_test_dev d;
    open_geometry(&d, &params, 512, 16, 1, 4096);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "1024-byte bad-block table"));
    assert_non_null(strstr(d.nand.diag.text, "a block has 1 page of 512 bytes"));
    assert_null(d.nand.bbt);
    struct nk_sim_counters c;
    nk_sim_counters(d.sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_PROGRAM] + c.ops[NK_SIM_OP_ERASE], 0);
    free(t.memory);
    t.memory = NULL;
    nk_test_dev_close(&d);
}

static void test_table_of_several_pages_fits_its_block_and_stays_stable(void **state)
{
    (void)state;
    /* The same chip with 2 pages per block: the 1024-byte table takes both
     * pages of its block; no bad block on the chip. */
    struct nk_sim_params params;
    struct nk_test_dev d;
    open_geometry(&d, &params, 512, 16, 2, 4096);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(t.bbt.info.main_block, 4095);
    assert_int_equal(t.bbt.info.mirror_block, 4094);
    assert_int_equal(t.bbt.info.worn + t.bbt.info.factory_bad, 0);
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 4000), 0); /* in the second page */
    detach(&d, &t);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(attach(&d, &t, false, false), 0);
        assert_false(t.bbt.info.scanned);
        assert_false(t.bbt.info.main_written || t.bbt.info.mirror_written);
        assert_int_equal(t.bbt.info.main_block, 4095);
        assert_int_equal(t.bbt.info.mirror_block, 4094);
        assert_int_equal(t.bbt.info.worn, 1);
        assert_int_equal(nk_bbt_block_state(&t.bbt, 4000), NK_BBT_WORN);
        detach(&d, &t);
    }
    nk_test_dev_close(&d);
}

static void test_table_block_retired_while_writing_is_in_both_copies(void **state)
{
    (void)state;
    /* The main table goes out first; then the mirror's first block fails
     * to erase and is retired. The main copy must record that too, at the
     * same new version as the mirror: no two copies of one version differ. */
    struct nk_test_dev d;
    open_chip_no_ecc(&d);
    assert_int_equal(nk_sim_fail_inject(d.sim, BLOCKS - 2, NK_SIM_FAIL_ERASE, false), 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 2), NK_BBT_WORN);
    int32_t main_block = t.bbt.info.main_block, mirror_block = t.bbt.info.mirror_block;
    assert_int_equal(t.bbt.info.main_version, t.bbt.info.mirror_version);
    uint8_t main_page[PAGE], mirror_page[PAGE];
    peek(&d, (uint32_t)main_block, 0, main_page, PAGE);
    peek(&d, (uint32_t)mirror_block, 0, mirror_page, PAGE);
    assert_memory_equal(main_page, mirror_page, PAGE);
    assert_int_equal((main_page[(BLOCKS - 2) / 4] >> (((BLOCKS - 2) % 4) * 2)) & 3u, 2); /* worn */
    detach(&d, &t);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, BLOCKS - 2), NK_BBT_WORN);
    assert_false(t.bbt.info.main_written || t.bbt.info.mirror_written);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_no_usable_table_block_is_a_clear_enospc(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    for (uint32_t b = BLOCKS - 4; b < BLOCKS; b++)
        assert_int_equal(nk_sim_fail_inject(d.sim, b, NK_SIM_FAIL_ERASE, true), 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), -NK_ENOSPC);
    assert_non_null(strstr(d.nand.diag.text, "no usable block left among the last 4"));
    assert_null(d.nand.bbt);
    free(t.memory);
    nk_test_dev_close(&d);
}

static void test_bitflip_in_a_table_rewrites_both_copies(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    int32_t main_block = t.bbt.info.main_block;
    detach(&d, &t);
    nk_test_flip_stored_bit(&d, (uint32_t)main_block * PPB, 100 * 8 + 4);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_true(t.bbt.info.scrubbed);
    assert_true(t.bbt.info.main_written && t.bbt.info.mirror_written);
    uint8_t byte;
    peek(&d, (uint32_t)t.bbt.info.main_block, 100, &byte, 1);
    assert_int_equal(byte, 0xff); /* the flip is gone from flash */
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_erase_failure_in_use_is_recorded_worn_in_both_tables(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_sim_fail_inject(d.sim, 100, NK_SIM_FAIL_ERASE, true), 0);
    assert_int_equal(nk_nand_erase_block(&d.nand, 100), -NK_EIO);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 100), NK_BBT_WORN);
    assert_int_equal(nk_nand_block_is_bad(&d.nand, 100), 1);
    uint8_t page[PAGE];
    for (int copy = 0; copy < 2; copy++) {
        peek(&d, (uint32_t)(copy ? t.bbt.info.mirror_block : t.bbt.info.main_block), 0, page, PAGE);
        assert_int_equal(page[25], 0xfe); /* block 100 = bits 1..0 of byte 25 = 10 */
    }
    /* Programs and erases of it are refused from now on, without touching it. */
    struct nk_sim_counters before, after;
    nk_sim_counters(d.sim, &before);
    assert_int_equal(nk_nand_erase_block(&d.nand, 100), -NK_EIO);
    assert_int_equal(nk_nand_program_page(&d.nand, 100 * PPB, page, NULL, NK_OOB_PLACE), -NK_EIO);
    assert_non_null(strstr(d.nand.diag.text, "block 100 is bad"));
    nk_sim_counters(d.sim, &after);
    assert_int_equal(after.ops[NK_SIM_OP_ERASE], before.ops[NK_SIM_OP_ERASE]);
    assert_int_equal(after.ops[NK_SIM_OP_PROGRAM], before.ops[NK_SIM_OP_PROGRAM]);
    assert_int_equal(d.nand.stats.refused_bad, 2);
    /* A new attach sees it from the table. */
    detach(&d, &t);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 100), NK_BBT_WORN);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_marking_a_bad_block_again_is_a_no_op(void **state)
{
    (void)state;
    static const uint32_t bad[] = {9};
    struct nk_test_dev d;
    open_chip(&d, bad, 1, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_nand_block_mark_bad(&d.nand, 50), 0);
    uint8_t version = t.bbt.info.main_version;
    struct nk_sim_counters before, after;
    nk_sim_counters(d.sim, &before);
    assert_int_equal(nk_nand_block_mark_bad(&d.nand, 50), 0);
    assert_int_equal(nk_nand_block_mark_bad(&d.nand, 9), 0);
    nk_sim_counters(d.sim, &after);
    assert_int_equal(after.ops[NK_SIM_OP_PROGRAM], before.ops[NK_SIM_OP_PROGRAM]);
    assert_int_equal(after.ops[NK_SIM_OP_ERASE], before.ops[NK_SIM_OP_ERASE]);
    assert_int_equal(t.bbt.info.main_version, version);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 9), NK_BBT_FACTORY_BAD);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_dry_run_writes_nothing(void **state)
{
    (void)state;
    static const uint32_t bad[] = {1, 2, 3};
    struct nk_test_dev d;
    open_chip(&d, bad, 3, 0);
    struct nk_sim_counters before, after;
    nk_sim_counters(d.sim, &before);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, true, false), 0);
    assert_true(t.bbt.info.scanned);
    assert_true(t.bbt.info.main_written && t.bbt.info.mirror_written); /* would write */
    assert_int_equal(t.bbt.info.factory_bad, 3);
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 40), 0);
    nk_sim_counters(d.sim, &after);
    assert_int_equal(after.ops[NK_SIM_OP_PROGRAM], before.ops[NK_SIM_OP_PROGRAM]);
    assert_int_equal(after.ops[NK_SIM_OP_ERASE], before.ops[NK_SIM_OP_ERASE]);
    uint8_t mark[4];
    peek(&d, BLOCKS - 1, PAGE + 8, mark, 4);
    assert_memory_equal(mark, "\xff\xff\xff\xff", 4);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_reserved_blocks_are_refused_by_ordinary_writes(void **state)
{
    (void)state;
    struct nk_test_dev d;
    open_chip(&d, NULL, 0, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    for (uint32_t b = BLOCKS - 4; b < BLOCKS; b++) {
        assert_int_equal(nk_nand_erase_block(&d.nand, b), -NK_EIO);
        assert_non_null(strstr(d.nand.diag.text, "reserved for the bad-block table"));
    }
    uint8_t data[PAGE] = {0};
    assert_int_equal(
        nk_nand_program_page(&d.nand, (BLOCKS - 1) * PPB + 5, data, NULL, NK_OOB_PLACE), -NK_EIO);
    assert_int_equal(nk_nand_erase_block(&d.nand, BLOCKS - 5), 0);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_force_scan_rebuilds_from_markers(void **state)
{
    (void)state;
    static const uint32_t bad[] = {30};
    struct nk_test_dev d;
    open_chip(&d, bad, 1, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 31), 0);
    uint8_t version = t.bbt.info.main_version;
    detach(&d, &t);
    nk_test_dev_reopen(&d);
    assert_int_equal(attach(&d, &t, false, true), 0);
    assert_true(t.bbt.info.scanned);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 30), NK_BBT_FACTORY_BAD);
    /* The worn block's marker was written, so a scan finds it as marked. */
    assert_int_equal(nk_bbt_block_state(&t.bbt, 31), NK_BBT_FACTORY_BAD);
    assert_int_equal(t.bbt.info.main_version, (uint8_t)(version + 1));
    detach(&d, &t);
    nk_test_dev_close(&d);
}

static void test_partitions_are_relative_and_bounded(void **state)
{
    (void)state;
    static const uint32_t bad[] = {105};
    struct nk_test_dev d;
    open_chip(&d, bad, 1, 0);
    struct table t = {0};
    assert_int_equal(attach(&d, &t, false, false), 0);

    struct nk_part boot, fs, all, bad_range;
    assert_int_equal(nk_part_init(&boot, &d.nand, "boot", 0, 100, NK_PART_READ_ONLY), 0);
    assert_int_equal(nk_part_init(&fs, &d.nand, "fs", 100, 0, 0), 0);
    assert_int_equal(fs.block_count, BLOCKS - 4 - 100);
    assert_int_equal(nk_part_init(&bad_range, &d.nand, "big", 1000, 30, 0), -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "the BBT area"));
    assert_int_equal(nk_part_init(&all, &d.nand, "all", 0, BLOCKS, NK_PART_ALLOW_BBT_AREA), 0);
    assert_int_equal(nk_part_init(&bad_range, &d.nand, "past", BLOCKS, 1, NK_PART_ALLOW_BBT_AREA),
                     -NK_EINVAL);
    assert_int_equal(nk_part_check_overlap(&boot, &fs), 0);
    assert_int_equal(nk_part_check_overlap(&boot, &all), -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "overlap"));

    uint8_t data[PAGE], back[PAGE];
    nk_test_random(data, PAGE, 5);
    assert_int_equal(nk_part_erase_block(&fs, 1), 0);
    assert_int_equal(nk_part_program_page(&fs, PPB + 3, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_page(&d.nand, 101 * PPB + 3, back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(back, data, PAGE);
    assert_int_equal(nk_part_read_page(&fs, nk_part_pages(&fs), back, NULL, NK_OOB_PLACE),
                     -NK_EINVAL);
    assert_non_null(strstr(d.nand.diag.text, "partition 'fs'"));
    assert_int_equal(nk_part_erase_block(&fs, fs.block_count), -NK_EINVAL);
    assert_int_equal(nk_part_erase_block(&boot, 0), -NK_EROFS);
    assert_int_equal(nk_part_program_page(&boot, 0, data, NULL, NK_OOB_PLACE), -NK_EROFS);
    assert_int_equal(nk_part_block_is_bad(&fs, 5), 1);
    assert_int_equal(nk_part_block_is_bad(&fs, 4), 0);
    assert_int_equal(nk_part_block_mark_bad(&fs, 6), 0);
    assert_int_equal(nk_bbt_block_state(&t.bbt, 106), NK_BBT_WORN);
    detach(&d, &t);
    nk_test_dev_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_scan_finds_the_marked_blocks_and_writes_both_tables),
        cmocka_unit_test(test_table_bytes_follow_the_documented_linux_layout),
        cmocka_unit_test(test_second_attach_reads_the_table_without_scanning),
        cmocka_unit_test(test_uncorrectable_main_falls_back_to_mirror_and_is_rewritten),
        cmocka_unit_test(test_both_tables_unreadable_means_a_new_scan),
        cmocka_unit_test(test_versions_wrap_from_255_to_0),
        cmocka_unit_test(test_failing_table_block_is_retired_and_the_table_moves),
        cmocka_unit_test(test_program_failure_in_a_table_block_also_relocates),
        cmocka_unit_test(test_retired_table_block_is_never_read_as_a_table_without_ecc),
        cmocka_unit_test(test_retired_table_block_is_never_read_as_a_table_with_ecc),
        cmocka_unit_test(test_copies_with_one_version_and_different_contents_are_merged),
        cmocka_unit_test(test_torn_version_byte_does_not_outrank_the_real_table),
        cmocka_unit_test(test_table_larger_than_a_block_is_refused_naming_the_geometry),
        cmocka_unit_test(test_table_of_several_pages_fits_its_block_and_stays_stable),
        cmocka_unit_test(test_table_block_retired_while_writing_is_in_both_copies),
        cmocka_unit_test(test_no_usable_table_block_is_a_clear_enospc),
        cmocka_unit_test(test_bitflip_in_a_table_rewrites_both_copies),
        cmocka_unit_test(test_erase_failure_in_use_is_recorded_worn_in_both_tables),
        cmocka_unit_test(test_marking_a_bad_block_again_is_a_no_op),
        cmocka_unit_test(test_dry_run_writes_nothing),
        cmocka_unit_test(test_reserved_blocks_are_refused_by_ordinary_writes),
        cmocka_unit_test(test_force_scan_rebuilds_from_markers),
        cmocka_unit_test(test_partitions_are_relative_and_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
