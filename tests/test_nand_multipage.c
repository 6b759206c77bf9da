/* SPDX-License-Identifier: MIT */
/*
 * The device layer's multi-page paths on the simulator: cache program and
 * read cache with bit-exact data and the single-page contracts (bitflips,
 * FAIL status, checks), power cuts at every point of a pipelined write with
 * the documented outcome, page moves by copy-back with the ECC check, and
 * the striped and concatenated multi-chip device.
 */
#include <string.h>

#include "nand/array_internal.h" /* the chips' mapping, tested directly */
#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "simdev.h"
#include "testutil.h"

static uint8_t g_data[130 * 2048], g_oob[130 * 64], g_back[130 * 2048], g_back_oob[130 * 64];

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
    uint32_t x = 0x9e3779b9u * (seed + 1);
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        buf[i] = (uint8_t)x;
    }
}

static struct nk_sim_counters counters(struct nk_sim *sim)
{
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    return c;
}

static bool raw_page_erased(struct nk_sim *sim, uint32_t row, uint32_t len)
{
    static uint8_t buf[2112];
    assert_int_equal(nk_sim_page_peek(sim, row, 0, buf, len), 0);
    for (uint32_t i = 0; i < len; i++)
        if (buf[i] != 0xff)
            return false;
    return true;
}

/* ----- program and read ----------------------------------------------------------- */

static void test_program_pages_uses_cache_program_per_block_bit_exact(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint32_t free_bytes = d.nand.free_bytes, count = 70, first = 60;
    fill(g_data, (size_t)count * 2048, 1);
    fill(g_oob, (size_t)count * free_bytes, 2);
    assert_int_equal(nk_nand_program_pages(&d.nand, first, count, g_data, g_oob, NK_OOB_AUTO), 0);
    struct nk_sim_counters c = counters(d.sim);
    /* Pages 60..63, 64..127 and 128..129: each block's run ends with 10h. */
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_PROGRAM], 3 + 63 + 1);
    assert_int_equal(c.ops[NK_SIM_OP_PROGRAM], 3);
    assert_int_equal(c.protocol_errors, 0);
    assert_int_equal(d.nand.stats.page_programs, count);
    memset(g_back, 0, sizeof g_back);
    assert_int_equal(nk_nand_read_pages(&d.nand, first, count, g_back, g_back_oob, NK_OOB_AUTO), 0);
    assert_memory_equal(g_back, g_data, (size_t)count * 2048);
    assert_memory_equal(g_back_oob, g_oob, (size_t)count * free_bytes);
    /* And the single-page path reads the same bytes. */
    assert_int_equal(nk_nand_read_page(&d.nand, first + 5, g_back, NULL, NK_OOB_AUTO), 0);
    assert_memory_equal(g_back, g_data + 5 * 2048, 2048);
    nk_test_dev_close(&d);
}

static void test_read_pages_uses_read_cache_with_the_bitflip_contract(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "MT29F2G08ABAEA", NK_TEST_ECC_BCH4, NULL);
    assert_true(d.nand.chip.info.features & NK_CHIP_CACHE_READ);
    uint32_t first = 64, count = 10;
    fill(g_data, (size_t)count * 2048, 3);
    assert_int_equal(nk_nand_program_pages(&d.nand, first, count, g_data, NULL, NK_OOB_PLACE), 0);
    nk_test_flip_stored_bit(&d, first + 3, 100);
    for (unsigned b = 0; b < 6; b++) /* more than BCH4 corrects, in one step */
        nk_test_flip_stored_bit(&d, first + 5, 2048 * 8 / 4 + b * 9);
    nk_sim_counters_reset(d.sim);
    int r = nk_nand_read_pages(&d.nand, first, count, g_back, NULL, NK_OOB_PLACE);
    assert_int_equal(r, -NK_EBADMSG);
    assert_int_equal(nk_nand_last_bitflips(&d.nand), 1);
    struct nk_sim_counters c = counters(d.sim);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_READ], count);
    assert_int_equal(c.protocol_errors, 0);
    /* Every page but the uncorrectable one is right, the flipped one corrected. */
    for (uint32_t p = 0; p < count; p++)
        if (p != 5)
            assert_memory_equal(g_back + p * 2048, g_data + p * 2048, 2048);
    /* Without the bad page: the worst count, below the threshold. */
    assert_int_equal(nk_nand_read_pages(&d.nand, first, 5, g_back, NULL, NK_OOB_PLACE), 1);
    assert_int_equal(d.nand.stats.ecc_failed_pages, 1);
    nk_test_dev_close(&d);
}

static void test_read_pages_on_a_part_without_read_cache_reads_page_by_page(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    fill(g_data, 4 * 2048, 4);
    assert_int_equal(nk_nand_program_pages(&d.nand, 8, 4, g_data, NULL, NK_OOB_PLACE), 0);
    nk_sim_counters_reset(d.sim);
    assert_int_equal(nk_nand_read_pages(&d.nand, 8, 4, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data, 4 * 2048);
    struct nk_sim_counters c = counters(d.sim);
    assert_int_equal(c.ops[NK_SIM_OP_READ], 4);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_READ], 0);
    nk_test_dev_close(&d);
}

static void test_program_failure_in_a_cache_sequence_names_the_page(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    assert_int_equal(nk_sim_fail_inject(d.sim, 5, NK_SIM_FAIL_PROGRAM, false), 0);
    fill(g_data, 8 * 2048, 5);
    assert_int_equal(nk_nand_program_pages(&d.nand, 5 * 64, 8, g_data, NULL, NK_OOB_PLACE),
                     -NK_EIO);
    assert_non_null(strstr(d.nand.diag.text, "page 320"));
    assert_int_equal(d.nand.stats.program_failures, 1);
    /* The chip was left idle: the next operation is clean. */
    assert_int_equal(nk_nand_erase_block(&d.nand, 6), 0);
    assert_int_equal(counters(d.sim).protocol_errors, 0);
    nk_test_dev_close(&d);
}

static void test_failure_of_the_page_before_the_last_is_reported_after_10h(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    fill(g_data, 2 * 2048, 6);
    /* Two pages: 15h then 10h; the first fails and shows as FAILC. */
    assert_int_equal(nk_sim_fail_inject(d.sim, 7, NK_SIM_FAIL_PROGRAM, false), 0);
    assert_int_equal(nk_nand_program_pages(&d.nand, 7 * 64, 2, g_data, NULL, NK_OOB_PLACE),
                     -NK_EIO);
    assert_non_null(strstr(d.nand.diag.text, "page 448"));
    nk_test_dev_close(&d);
}

static void test_program_pages_checks_before_sending(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    uint32_t last = nk_nand_pages(&d.nand) - 2;
    fill(g_data, 4 * 2048, 7);
    assert_int_equal(nk_nand_program_pages(&d.nand, last, 4, g_data, NULL, NK_OOB_PLACE),
                     -NK_EINVAL);
    assert_true(raw_page_erased(d.sim, last, 2112));
    d.nand.read_only = true;
    assert_int_equal(nk_nand_program_pages(&d.nand, 64, 4, g_data, NULL, NK_OOB_PLACE), -NK_EROFS);
    assert_true(raw_page_erased(d.sim, 64, 2112));
    nk_test_dev_close(&d);
}

static void test_program_pages_refuses_a_block_the_table_knows_as_bad(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    struct nk_bbt bbt;
    struct nk_bbt_config config;
    memset(&config, 0, sizeof config);
    config.memory_size = nk_bbt_memory_size(&d.nand);
    config.memory = malloc(config.memory_size);
    assert_int_equal(nk_bbt_attach(&d.nand, &bbt, &config), 0);
    assert_int_equal(nk_bbt_mark_worn(&d.nand, 9), 0);
    fill(g_data, 8 * 2048, 17);
    nk_sim_counters_reset(d.sim);
    /* Pages 8*64-4 .. 8*64+3: the run in block 8 lands, block 9 is refused. */
    assert_int_equal(nk_nand_program_pages(&d.nand, 9 * 64 - 4, 8, g_data, NULL, NK_OOB_PLACE),
                     -NK_EIO);
    assert_non_null(strstr(d.nand.diag.text, "block 9 is bad"));
    struct nk_sim_counters c = counters(d.sim);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_PROGRAM] + c.ops[NK_SIM_OP_PROGRAM], 4);
    assert_int_equal(d.nand.stats.refused_bad, 1);
    assert_int_equal(nk_nand_read_pages(&d.nand, 9 * 64 - 4, 4, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data, 4 * 2048);
    nk_bbt_detach(&d.nand);
    free(config.memory);
    nk_test_dev_close(&d);
}

/* ----- power cuts ----------------------------------------------------------------- */

/* The documented outcome of a cut during a pipelined write of `count` pages
 * from `first`: a prefix of complete pages, at most one torn page, and only
 * erased pages after it. Returns the number of complete pages. */
static uint32_t check_cut_outcome(struct nk_test_dev *d, uint32_t first, uint32_t count)
{
    uint32_t complete = 0;
    while (complete < count) {
        int r = nk_nand_read_page(&d->nand, first + complete, g_back, NULL, NK_OOB_PLACE);
        if (r != 0 || memcmp(g_back, g_data + (size_t)complete * 2048, 2048) != 0)
            break;
        complete++;
    }
    for (uint32_t p = complete + 1; p < count; p++)
        if (!raw_page_erased(d->sim, first + p, 2112))
            fail_msg("page %u of %u written after an incomplete page %u", p, count, complete);
    return complete;
}

static void test_power_cut_at_every_array_operation_of_a_cache_program(void **state)
{
    (void)state;
    const uint32_t count = 6, first = 3 * 64;
    fill(g_data, count * 2048, 8);
    for (uint32_t k = 0; k < count; k++) {
        struct nk_test_dev d;
        nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
        nk_sim_power_cut_after(d.sim, k); /* page k's program is cut */
        assert_int_equal(nk_nand_program_pages(&d.nand, first, count, g_data, NULL, NK_OOB_PLACE),
                         -NK_ENODEV);
        nk_sim_power_restore(d.sim);
        nk_test_dev_reopen(&d);
        uint32_t complete = check_cut_outcome(&d, first, count);
        /* Every page before the cut one is programmed; it and the rest are not. */
        assert_true(complete == k || complete == k + 1);
        if (k + 1 < count)
            assert_true(raw_page_erased(d.sim, first + k + 1, 2112));
        nk_test_dev_close(&d);
    }
}

static void test_power_cut_at_any_time_loses_at_most_the_two_last_pages_sent(void **state)
{
    (void)state;
    const uint32_t count = 6, first = 3 * 64;
    fill(g_data, count * 2048, 9);
    /* The whole write takes about 64 us + 6 x 303 us: cut every 25 us. */
    unsigned cuts = 0, runs = 0;
    for (uint64_t at = 1000; at < 1950000; at += 25000, runs++) {
        struct nk_test_dev d;
        nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
        uint64_t t0 = nk_sim_time_ns(d.sim);
        nk_sim_power_cut_at_time(d.sim, t0 + at);
        int err = nk_nand_program_pages(&d.nand, first, count, g_data, NULL, NK_OOB_PLACE);
        uint64_t sent = d.nand.stats.page_programs;
        nk_sim_power_cut_cancel(d.sim); /* a cut after the write is none */
        nk_sim_power_restore(d.sim);
        nk_test_dev_reopen(&d);
        uint32_t complete = check_cut_outcome(&d, first, count);
        if (err == 0) {
            assert_int_equal(complete, count);
        } else {
            assert_int_equal(err, -NK_ENODEV);
            /* Lost: at most the page in the array and the one in the cache. */
            assert_true(complete + 2 >= sent);
            cuts++;
        }
        nk_test_dev_close(&d);
    }
    assert_true(cuts + 3 >= runs); /* nearly every point falls inside the write */
}

/* ----- page move ------------------------------------------------------------------ */

static void test_move_page_by_copyback_sends_back_a_corrected_page(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "MT29F2G08ABAEA", NK_TEST_ECC_BCH4, NULL);
    uint32_t src = 2 * 64, dst = 4 * 64;
    fill(g_data, 2 * 2048, 10);
    fill(g_oob, 2 * 64, 11);
    for (unsigned p = 0; p < 2; p++)
        g_oob[p * 64] = 0xff;
    assert_int_equal(nk_nand_program_pages(&d.nand, src, 2, g_data, g_oob, NK_OOB_AUTO), 0);
    assert_true(nk_nand_can_copyback(&d.nand, src, dst));
    nk_sim_counters_reset(d.sim);
    uint64_t written = d.nand.stats.bytes_written;
    assert_int_equal(nk_nand_move_page(&d.nand, src, dst), 0); /* clean: nothing re-sent */
    assert_int_equal(d.nand.stats.bytes_written, written);
    nk_test_flip_stored_bit(&d, src + 1, 77);
    assert_int_equal(nk_nand_move_page(&d.nand, src + 1, dst + 1), 1);
    assert_true(d.nand.stats.bytes_written > written);
    struct nk_sim_counters c = counters(d.sim);
    assert_int_equal(c.ops[NK_SIM_OP_COPYBACK_READ], 2);
    assert_int_equal(c.ops[NK_SIM_OP_COPYBACK_PROGRAM], 2);
    assert_int_equal(c.protocol_errors, 0);
    assert_int_equal(nk_nand_read_pages(&d.nand, dst, 2, g_back, g_back_oob, NK_OOB_AUTO), 0);
    assert_memory_equal(g_back, g_data, 2 * 2048);
    assert_memory_equal(g_back_oob, g_oob, 2 * d.nand.free_bytes);
    nk_test_dev_close(&d);
}

static void test_move_page_across_planes_reads_and_programs(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "MT29F2G08ABAEA", NK_TEST_ECC_BCH4, NULL);
    uint32_t src = 2 * 64, dst = 3 * 64;
    fill(g_data, 2048, 12);
    assert_int_equal(nk_nand_program_page(&d.nand, src, g_data, NULL, NK_OOB_PLACE), 0);
    assert_false(nk_nand_can_copyback(&d.nand, src, dst));
    nk_sim_counters_reset(d.sim);
    assert_int_equal(nk_nand_move_page(&d.nand, src, dst), 0);
    assert_int_equal(counters(d.sim).ops[NK_SIM_OP_COPYBACK_READ], 0);
    assert_int_equal(nk_nand_read_page(&d.nand, dst, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data, 2048);
    nk_test_dev_close(&d);
}

static void test_move_page_refuses_an_uncorrectable_source(void **state)
{
    (void)state;
    struct nk_test_dev d;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    fill(g_data, 2048, 13);
    assert_int_equal(nk_nand_program_page(&d.nand, 64, g_data, NULL, NK_OOB_PLACE), 0);
    nk_test_flip_stored_bit(&d, 64, 8);
    nk_test_flip_stored_bit(&d, 64, 9); /* two in one Hamming step */
    assert_int_equal(nk_nand_move_page(&d.nand, 64, 128), -NK_EBADMSG);
    assert_true(raw_page_erased(d.sim, 128, 2112));
    nk_test_dev_close(&d);
}

/* ----- several chips ---------------------------------------------------------------- */

struct two_chips {
    struct nk_sim *sims[2];
    struct nk_sim_bus *bus;
    struct nk_ctrl serial_ctrl; /* the bus port without independent targets */
    struct nk_nand nand[2];
    struct nk_ecc_engine ecc;
    void *ws[2];
    struct nk_part part; /* over both chips, the whole logical space */
};

static void two_chips_open_flags(struct two_chips *t, const char *preset, bool overlap,
                                 enum nk_part_mapping mapping, unsigned port_flags)
{
    memset(t, 0, sizeof *t);
    for (unsigned i = 0; i < 2; i++) {
        struct nk_sim_config config;
        memset(&config, 0, sizeof config);
        config.preset = preset;
        config.seed = 40 + i;
        assert_int_equal(nk_sim_open(&t->sims[i], &config, NULL), 0);
    }
    assert_int_equal(nk_sim_bus_open(&t->bus, t->sims, 2, port_flags), 0);
    const struct nk_ctrl *ctrl = nk_sim_bus_ctrl(t->bus);
    t->serial_ctrl = *ctrl;
    t->serial_ctrl.caps &= ~NK_CTRL_CAP_INDEPENDENT_TARGETS;
    assert_int_equal(nk_ecc_hamming_init(&t->ecc, 256, false), 0);
    for (unsigned i = 0; i < 2; i++) {
        struct nk_nand_config nc;
        memset(&nc, 0, sizeof nc);
        nc.ctrl = overlap ? ctrl : &t->serial_ctrl;
        nc.chip_select = i;
        nc.ecc = &t->ecc;
        nc.workspace_size = nk_nand_workspace_size(&nk_sim_params(t->sims[i])->chip);
        t->ws[i] = malloc(nc.workspace_size);
        nc.workspace = t->ws[i];
        assert_int_equal(nk_nand_open(&t->nand[i], &nc), 0);
    }
    struct nk_nand *chips[2] = {&t->nand[0], &t->nand[1]};
    assert_int_equal(nk_part_init_chips(&t->part, chips, 2, mapping, "array", 0, 0, 0), 0);
}

static void two_chips_open(struct two_chips *t, const char *preset, bool overlap,
                           enum nk_part_mapping mapping)
{
    two_chips_open_flags(t, preset, overlap, mapping, 0);
}

static void two_chips_close(struct two_chips *t)
{
    nk_sim_bus_close(t->bus);
    for (unsigned i = 0; i < 2; i++) {
        free(t->ws[i]);
        nk_sim_close(t->sims[i]);
    }
}

static void test_striped_mapping_alternates_chips_within_a_block(void **state)
{
    (void)state;
    struct two_chips t;
    two_chips_open(&t, "K9F1G08U0A", true, NK_PART_STRIPE);
    assert_int_equal(nk_part_pages_per_block(&t.part), 128);
    assert_int_equal(t.part.chips.blocks, 1024);
    unsigned chip;
    uint32_t page;
    assert_int_equal(nk_part_chips_locate(&t.part.chips, 128 * 3 + 5, &chip, &page), 0);
    assert_int_equal(chip, 1);
    assert_int_equal(page, 64 * 3 + 2);
    assert_int_equal(nk_part_chips_locate(&t.part.chips, 128 * 3 + 6, &chip, &page), 0);
    assert_int_equal(chip, 0);
    assert_int_equal(page, 64 * 3 + 3);
    assert_int_equal(nk_part_chips_locate(&t.part.chips, 128 * 1024, &chip, &page), -NK_EINVAL);
    two_chips_close(&t);
}

static void test_concatenated_mapping_puts_chip_one_after_chip_zero(void **state)
{
    (void)state;
    struct two_chips t;
    two_chips_open(&t, "K9F1G08U0A", true, NK_PART_CONCAT);
    assert_int_equal(nk_part_pages_per_block(&t.part), 64);
    assert_int_equal(t.part.chips.blocks, 2048);
    unsigned chip;
    uint32_t page;
    assert_int_equal(nk_part_chips_locate(&t.part.chips, 65536 + 70, &chip, &page), 0);
    assert_int_equal(chip, 1);
    assert_int_equal(page, 70);
    /* A run across the chip boundary lands on both, bit-exact. */
    fill(g_data, 8 * 2048, 14);
    assert_int_equal(nk_part_erase_block(&t.part, 1023), 0);
    assert_int_equal(nk_part_erase_block(&t.part, 1024), 0);
    assert_int_equal(nk_part_program_pages(&t.part, 65536 - 4, 8, g_data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_part_read_pages(&t.part, 65536 - 4, 8, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data, 8 * 2048);
    assert_false(raw_page_erased(t.sims[1], 0, 2048));
    assert_false(raw_page_erased(t.sims[0], 65535, 2048));
    two_chips_close(&t);
}

static void run_striped_transfer(struct two_chips *t, uint64_t *program_ns, uint64_t *read_ns)
{
    uint32_t pages = nk_part_pages_per_block(&t->part);
    fill(g_data, (size_t)pages * 2048, 15);
    fill(g_oob, (size_t)pages * t->nand[0].free_bytes, 16);
    assert_int_equal(nk_part_erase_block(&t->part, 2), 0);
    uint64_t t0 = nk_sim_bus_time_ns(t->bus);
    assert_int_equal(nk_part_program_pages(&t->part, 2 * pages, pages, g_data, g_oob, NK_OOB_AUTO),
                     0);
    uint64_t t1 = nk_sim_bus_time_ns(t->bus);
    assert_int_equal(
        nk_part_read_pages(&t->part, 2 * pages, pages, g_back, g_back_oob, NK_OOB_AUTO), 0);
    uint64_t t2 = nk_sim_bus_time_ns(t->bus);
    assert_memory_equal(g_back, g_data, (size_t)pages * 2048);
    assert_memory_equal(g_back_oob, g_oob, (size_t)pages * t->nand[0].free_bytes);
    /* Chip 1 holds the odd pages, in its own page order. */
    assert_int_equal(nk_nand_read_page(&t->nand[1], 2 * 64 + 3, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data + 7 * 2048, 2048);
    *program_ns = t1 - t0;
    *read_ns = t2 - t1;
}

static void test_striped_transfers_overlap_the_chips_bit_exact(void **state)
{
    (void)state;
    struct two_chips overlapped, serial;
    uint64_t program_fast, read_fast, program_slow, read_slow;
    two_chips_open(&overlapped, "K9F1G08U0A", true, NK_PART_STRIPE);
    assert_true(overlapped.part.chips.overlap);
    run_striped_transfer(&overlapped, &program_fast, &read_fast);
    assert_int_equal(counters(overlapped.sims[0]).protocol_errors, 0);
    assert_int_equal(counters(overlapped.sims[1]).protocol_errors, 0);
    two_chips_close(&overlapped);
    /* A port without independent targets works too, one chip after the other. */
    two_chips_open(&serial, "K9F1G08U0A", false, NK_PART_STRIPE);
    assert_false(serial.part.chips.overlap);
    run_striped_transfer(&serial, &program_slow, &read_slow);
    two_chips_close(&serial);
    /* Virtual time: overlap halves the program time and hides tR. */
    assert_true(program_fast * 10 < program_slow * 6);
    assert_true(read_fast * 10 < read_slow * 8);
}

static void test_every_path_works_on_ports_without_rb_lines(void **state)
{
    (void)state;
    /* One chip: read cache and cache program by status polling. */
    struct nk_sim *sim;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "MT29F2G08ABAEA";
    config.seed = 3;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    struct nk_ecc_engine ecc;
    assert_int_equal(nk_ecc_hamming_init(&ecc, 256, false), 0);
    struct nk_nand nand;
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl_no_rb(sim);
    nc.ecc = &ecc;
    nc.force_ecc = true; /* software ECC on the paths under test, weaker than the chip asks */
    nc.workspace_size = nk_nand_workspace_size(&nk_sim_params(sim)->chip);
    void *ws = malloc(nc.workspace_size);
    nc.workspace = ws;
    assert_int_equal(nk_nand_open(&nand, &nc), 0);
    fill(g_data, 10 * 2048, 18);
    assert_int_equal(nk_nand_program_pages(&nand, 64 + 60, 10, g_data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_pages(&nand, 64 + 60, 10, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data, 10 * 2048);
    assert_int_equal(nk_nand_move_page(&nand, 64 + 61, 3 * 64 + 1), 0);
    assert_int_equal(nk_nand_read_page(&nand, 3 * 64 + 1, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data + 2048, 2048);
    struct nk_sim_counters c = counters(sim);
    assert_int_equal(c.ops[NK_SIM_OP_CACHE_READ], 10);
    assert_int_equal(c.ops[NK_SIM_OP_COPYBACK_PROGRAM], 1);
    assert_int_equal(c.protocol_errors, 0);
    free(ws);
    nk_sim_close(sim);
    /* Two chips, overlapped, by polling each target's status. */
    struct two_chips t;
    uint64_t program_ns, read_ns;
    two_chips_open_flags(&t, "K9F1G08U0A", true, NK_PART_STRIPE, NK_SIM_PORT_NO_RB);
    assert_true(t.part.chips.overlap);
    run_striped_transfer(&t, &program_ns, &read_ns);
    assert_int_equal(counters(t.sims[0]).protocol_errors, 0);
    assert_int_equal(counters(t.sims[1]).protocol_errors, 0);
    two_chips_close(&t);
}

static void test_array_moves_pages_within_and_across_chips(void **state)
{
    (void)state;
    struct two_chips t;
    two_chips_open(&t, "K9F1G08U0A", true, NK_PART_STRIPE);
    fill(g_data, 4 * 2048, 19);
    assert_int_equal(nk_part_program_pages(&t.part, 128 * 2, 4, g_data, NULL, NK_OOB_PLACE), 0);
    /* Logical 256 is chip 0 page 128; 384 chip 0 page 192; 385 chip 1 page 192. */
    assert_int_equal(nk_part_move_page(&t.part, 128 * 2, 128 * 3), 0);
    assert_int_equal(counters(t.sims[0]).ops[NK_SIM_OP_COPYBACK_PROGRAM], 1);
    assert_int_equal(nk_part_move_page(&t.part, 128 * 2 + 2, 128 * 3 + 1), 0);
    assert_int_equal(nk_part_read_pages(&t.part, 128 * 3, 2, g_back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(g_back, g_data, 2048);
    assert_memory_equal(g_back + 2048, g_data + 2 * 2048, 2048);
    assert_int_equal(nk_part_move_page(&t.part, 0, 128 * 1024), -NK_EINVAL);
    two_chips_close(&t);
}

static void test_power_cut_during_an_interleaved_write_loses_one_page_per_chip_at_most(void **state)
{
    (void)state;
    const uint32_t count = 12, first = 2 * 128;
    fill(g_data, count * 2048, 20);
    /* The write takes about 12 x 182 us: cut every 40 us through it. */
    unsigned cuts = 0, runs = 0;
    for (uint64_t at = 500; at < 2300000; at += 40000, runs++) {
        struct two_chips t;
        two_chips_open(&t, "K9F1G08U0A", true, NK_PART_STRIPE);
        uint64_t t0 = nk_sim_bus_time_ns(t.bus);
        for (unsigned i = 0; i < 2; i++)
            nk_sim_power_cut_at_time(t.sims[i], t0 + at);
        int err = nk_part_program_pages(&t.part, first, count, g_data, NULL, NK_OOB_PLACE);
        uint64_t now = nk_sim_bus_time_ns(t.bus);
        uint64_t sent = t.nand[0].stats.page_programs + t.nand[1].stats.page_programs;
        /* The board lost power: both chips, at the same moment. */
        for (unsigned i = 0; i < 2; i++) {
            if (nk_sim_time_ns(t.sims[i]) < now)
                (void)nk_sim_time_advance(t.sims[i], now - nk_sim_time_ns(t.sims[i]));
            nk_sim_power_cut_cancel(t.sims[i]);
            nk_sim_power_restore(t.sims[i]);
        }
        uint32_t complete = 0;
        for (unsigned c = 0; c < 2; c++) {
            bool broken = false;
            for (uint32_t i = c; i < count; i += 2) {
                unsigned chip;
                uint32_t page;
                assert_int_equal(nk_part_chips_locate(&t.part.chips, first + i, &chip, &page), 0);
                assert_int_equal(chip, c);
                if (broken) {
                    assert_true(raw_page_erased(t.sims[c], page, 2112));
                    continue;
                }
                assert_int_equal(nk_sim_page_peek(t.sims[c], page, 0, g_back, 2048), 0);
                if (memcmp(g_back, g_data + (size_t)i * 2048, 2048) == 0)
                    complete++;
                else
                    broken = true; /* the chip's one torn page; after it, nothing */
            }
        }
        if (err == 0) {
            assert_int_equal(complete, count);
        } else {
            assert_int_equal(err, -NK_ENODEV);
            assert_true(complete + 2 >= sent);
            cuts++;
        }
        two_chips_close(&t);
    }
    assert_true(cuts + 3 >= runs); /* nearly every point falls inside the write */
}

static void test_array_refuses_mismatched_chips(void **state)
{
    (void)state;
    struct nk_test_dev a, b;
    nk_test_dev_open(&a, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, NULL);
    nk_test_dev_open(&b, "K9F2G08U0B", NK_TEST_ECC_HAMMING256, NULL);
    struct nk_nand *chips[2] = {&a.nand, &b.nand};
    struct nk_part part;
    assert_int_equal(nk_part_init_chips(&part, chips, 2, NK_PART_STRIPE, "p", 0, 0, 0), -NK_EINVAL);
    assert_non_null(strstr(a.nand.diag.text, "chip 1"));
    nk_test_dev_close(&a);
    nk_test_dev_close(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_pages_uses_cache_program_per_block_bit_exact),
        cmocka_unit_test(test_read_pages_uses_read_cache_with_the_bitflip_contract),
        cmocka_unit_test(test_read_pages_on_a_part_without_read_cache_reads_page_by_page),
        cmocka_unit_test(test_program_failure_in_a_cache_sequence_names_the_page),
        cmocka_unit_test(test_failure_of_the_page_before_the_last_is_reported_after_10h),
        cmocka_unit_test(test_program_pages_checks_before_sending),
        cmocka_unit_test(test_program_pages_refuses_a_block_the_table_knows_as_bad),
        cmocka_unit_test(test_power_cut_at_every_array_operation_of_a_cache_program),
        cmocka_unit_test(test_power_cut_at_any_time_loses_at_most_the_two_last_pages_sent),
        cmocka_unit_test(test_move_page_by_copyback_sends_back_a_corrected_page),
        cmocka_unit_test(test_move_page_across_planes_reads_and_programs),
        cmocka_unit_test(test_move_page_refuses_an_uncorrectable_source),
        cmocka_unit_test(test_striped_mapping_alternates_chips_within_a_block),
        cmocka_unit_test(test_concatenated_mapping_puts_chip_one_after_chip_zero),
        cmocka_unit_test(test_striped_transfers_overlap_the_chips_bit_exact),
        cmocka_unit_test(test_every_path_works_on_ports_without_rb_lines),
        cmocka_unit_test(test_array_moves_pages_within_and_across_chips),
        cmocka_unit_test(
            test_power_cut_during_an_interleaved_write_loses_one_page_per_chip_at_most),
        cmocka_unit_test(test_array_refuses_mismatched_chips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
