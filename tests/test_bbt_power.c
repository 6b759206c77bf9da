/* SPDX-License-Identifier: MIT */
/*
 * Power cuts at every flash operation of a bad-block-table workload: the
 * first attach (scan, both tables written) followed by two retirements.
 * After each cut and a "reboot", attaching again must succeed, every
 * factory-bad block must still be known bad, every retirement that had
 * returned before the cut must be remembered, and no other block may be
 * reported bad.
 */
#include <string.h>

#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "simdev.h"
#include "testutil.h"

/* Enough factory-bad blocks that a torn table page holds many intended
 * 1 -> 0 transitions (a mostly-0xFF table would tear harmlessly). */
#define FACTORY_BAD 64
static uint32_t factory_bad[FACTORY_BAD];
static const uint32_t retire[] = {1001, 1002};

static bool is_factory_bad(uint32_t block)
{
    for (unsigned i = 0; i < FACTORY_BAD; i++) {
        if (factory_bad[i] == block)
            return true;
    }
    return false;
}

static void open_chip(struct nk_test_dev *d, uint64_t seed)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.seed = seed;
    config.factory_bad_list = factory_bad;
    config.factory_bad_list_len = FACTORY_BAD;
    nk_test_dev_open(d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, &config);
}

static uint64_t array_ops(struct nk_test_dev *d)
{
    struct nk_sim_counters c;
    nk_sim_counters(d->sim, &c);
    return c.array_ops;
}

/* Runs the workload until the first failure; returns how many retirements
 * completed (-1 when the attach itself failed). */
static int workload(struct nk_test_dev *d, struct nk_bbt *bbt, void *memory)
{
    struct nk_bbt_config config;
    memset(&config, 0, sizeof config);
    config.memory = memory;
    config.memory_size = nk_bbt_memory_size(&d->nand);
    if (nk_bbt_attach(&d->nand, bbt, &config) != 0)
        return -1;
    int done = 0;
    for (unsigned i = 0; i < 2; i++) {
        if (nk_bbt_mark_worn(&d->nand, retire[i]) != 0)
            break;
        done++;
    }
    return done;
}

static void test_power_cut_at_every_operation_keeps_the_table_consistent(void **state)
{
    (void)state;
    for (unsigned i = 0; i < FACTORY_BAD; i++)
        factory_bad[i] = 3 + 15 * i; /* 3 .. 948, every code position in a byte */
    struct nk_test_dev d;
    struct nk_bbt bbt;
    open_chip(&d, 7);
    void *memory = malloc(nk_bbt_memory_size(&d.nand));
    uint64_t before = array_ops(&d);
    assert_int_equal(workload(&d, &bbt, memory), 2);
    uint64_t total = array_ops(&d) - before;
    nk_test_dev_close(&d);
    assert_true(total > 1024); /* the scan alone reads markers of every block */

    /* The point inside the cut operation comes from the seed: one seed per
     * cut gives early cuts (torn pages, partly erased blocks) and late ones
     * (every bit landed but weak, blocks that read erased but are weak). */
    unsigned cuts = 0, weak_cuts = 0;
    static int state_after[1024];
    for (uint64_t n = 0; n < total; n++) {
        open_chip(&d, 7 + n);
        nk_sim_power_cut_after(d.sim, n);
        int completed = workload(&d, &bbt, memory);
        assert_false(nk_sim_powered(d.sim));
        cuts++;
        for (uint32_t b = 0; b < 1024; b++) {
            struct nk_sim_block_state bs;
            assert_int_equal(nk_sim_block_get(d.sim, b, &bs), 0);
            if (bs.flags & (NK_SIM_BLOCK_WEAK_PAGES | NK_SIM_BLOCK_WEAK_ERASE)) {
                weak_cuts++;
                break;
            }
        }
        nk_bbt_detach(&d.nand);
        nk_sim_power_restore(d.sim);
        nk_test_dev_reopen(&d);

        struct nk_bbt after;
        struct nk_bbt_config config;
        memset(&config, 0, sizeof config);
        config.memory = memory;
        config.memory_size = nk_bbt_memory_size(&d.nand);
        int err = nk_bbt_attach(&d.nand, &after, &config);
        if (err)
            fail_msg("cut at op %llu: attach after reboot failed: %d %s", (unsigned long long)n,
                     err, d.nand.diag.text);
        for (uint32_t b = 0; b < 1024; b++) {
            int s = nk_bbt_block_state(&after, b);
            bool is_factory = is_factory_bad(b);
            bool is_retired = b == retire[0] || b == retire[1];
            if (is_factory && s != NK_BBT_FACTORY_BAD && s != NK_BBT_WORN)
                fail_msg("cut at op %llu: factory-bad block %u forgotten", (unsigned long long)n,
                         b);
            if (!is_factory && !is_retired && (s == NK_BBT_WORN || s == NK_BBT_FACTORY_BAD))
                fail_msg("cut at op %llu: good block %u reported bad", (unsigned long long)n, b);
        }
        for (int i = 0; i < completed; i++) {
            int s = nk_bbt_block_state(&after, retire[i]);
            if (s != NK_BBT_WORN && s != NK_BBT_FACTORY_BAD)
                fail_msg("cut at op %llu: retirement of block %u returned 0 but was lost",
                         (unsigned long long)n, retire[i]);
        }
        /* And the repaired tables survive later reboots unchanged, also
         * after any weak cell left by the cut has lost its charge (with the
         * simulator's default weak_reads of 8, every weak cell has given
         * way by a page's 16th read). */
        for (uint32_t b = 0; b < 1024; b++)
            state_after[b] = nk_bbt_block_state(&after, b);
        for (unsigned boot = 2; boot < 26; boot++) {
            nk_bbt_detach(&d.nand);
            nk_test_dev_reopen(&d);
            struct nk_bbt again;
            err = nk_bbt_attach(&d.nand, &again, &config);
            if (err)
                fail_msg("cut at op %llu: attach at reboot %u failed: %d %s", (unsigned long long)n,
                         boot, err, d.nand.diag.text);
            assert_false(again.info.scanned);
            for (uint32_t b = 0; b < 1024; b++) {
                if (nk_bbt_block_state(&again, b) != state_after[b])
                    fail_msg("cut at op %llu: block %u changed state at reboot %u",
                             (unsigned long long)n, b, boot);
            }
        }
        nk_bbt_detach(&d.nand);
        nk_test_dev_close(&d);
    }
    free(memory);
    assert_int_equal(cuts, total);
    /* Late cuts happened, so weak cells were exercised. */
    assert_true(weak_cuts > 0);
    print_message("%u cuts, %u of them left weak cells\n", cuts, weak_cuts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_power_cut_at_every_operation_keeps_the_table_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
