/* SPDX-License-Identifier: MIT */
/*
 * Page moves by copy-back that rewrite the OOB (the file system's tags
 * carry the destination block's sequence number): the device's two calls
 * cycle by cycle on the recording port; the partition's read-for-move /
 * program-moved pair bit-exact on the simulator, with its fall-backs
 * (another call in between, another plane, a corrected page); power cuts
 * through the copy-back program; the file system's garbage collection
 * moving data chunks by copy-back, bit-exact after a remount, also with a
 * power cut at every flash operation of a collection; and the cost per
 * moved page on the K9F1G08U0A's virtual clock.
 */
#include <stdio.h>
#include <string.h>

#include "fs_testdev.h"
#include "mock_ctrl.h"
#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "simdev.h"
#include "testutil.h"

static uint8_t g_data[2048], g_back[2048], g_raw[2112], g_raw2[2112];

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed * 37u + i * 11u + (i >> 8));
}

static uint64_t op_count(struct nk_sim *sim, enum nk_sim_op_kind kind)
{
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    return c.ops[kind];
}

/* ----- the device's calls on the recording port ---------------------------------------- */

static void test_copyback_load_and_program_cycle_by_cycle(void **state)
{
    (void)state;
    struct nk_mock_ctrl mock;
    nk_mock_ctrl_init(&mock, true);
    struct nk_ecc_engine none;
    nk_ecc_none_init(&none);
    struct nk_nand nand;
    static uint8_t ws[8192];
    struct nk_nand_config config = {.ctrl = &mock.ctrl,
                                    .chip = nk_chip_table_find("K9F1G08U0A"),
                                    .ecc = &none,
                                    .workspace = ws,
                                    .workspace_size = sizeof ws,
                                    .skip_reset = true};
    assert_int_equal(nk_nand_open(&nand, &config), 0);
    assert_true(nk_nand_has_copyback(&nand));
    const uint32_t free_bytes = nk_nand_free_oob_bytes(&nand);
    uint8_t oob[64], tags[64];
    nk_mock_ctrl_clear_log(&mock);
    assert_int_equal(nk_nand_copyback_load(&nand, 5, g_data, oob, NK_OOB_AUTO), 0);
    assert_string_equal(mock.log, "CMD 00|ADDR 00 00 05 00|CMD 35+100|WAIT|IN 2048|IN 64|");

    /* Unchanged data: only the OOB goes, the column set to 2048 (0x800). */
    memset(tags, 0x3c, sizeof tags);
    nk_mock_ctrl_clear_log(&mock);
    mock.out_len = 0;
    assert_int_equal(nk_nand_copyback_program(&nand, 5, 0x87, g_data, tags, NK_OOB_AUTO, false), 0);
    assert_string_equal(mock.log, "CMD 85|ADDR 00 08 87 00+70|OUT 64|CMD 10+100|WAIT|CMD 70+60|"
                                  "IN 1|");
    assert_int_equal(mock.out_len, 64);
    /* The new OOB as an ordinary program writes it: markers 0xFF, the new
     * free bytes in the layout's places. */
    assert_int_equal(mock.out_data[0], 0xff);
    assert_int_equal(mock.out_data[1], 0xff);
    unsigned tag_bytes = 0;
    for (unsigned i = 2; i < 64; i++)
        tag_bytes += mock.out_data[i] == 0x3c;
    assert_int_equal(tag_bytes, free_bytes);

    /* A corrected read-out: the data goes back too, then a column change. */
    nk_mock_ctrl_clear_log(&mock);
    mock.out_len = 0;
    assert_int_equal(nk_nand_copyback_program(&nand, 5, 0x87, g_data, tags, NK_OOB_AUTO, true), 0);
    assert_string_equal(mock.log, "CMD 85|ADDR 00 00 87 00+70|OUT 2048|OUT 64|CMD 10+100|WAIT|"
                                  "CMD 70+60|IN 1|");
    assert_int_equal(mock.out_len, 2112);

    /* FAIL status: -NK_EIO, counted. */
    mock.status = NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL;
    assert_int_equal(nk_nand_copyback_program(&nand, 5, 0x87, g_data, tags, NK_OOB_AUTO, false),
                     -NK_EIO);
    assert_int_equal(nand.stats.program_failures, 1);
}

static void test_copyback_calls_refuse_what_the_chip_does_not_allow(void **state)
{
    (void)state;
    struct nk_mock_ctrl mock;
    nk_mock_ctrl_init(&mock, true);
    struct nk_ecc_engine none;
    nk_ecc_none_init(&none);
    struct nk_nand nand;
    static uint8_t ws[8192];
    /* The MT29F2G08ABAEA interleaves its two planes by block. */
    struct nk_nand_config config = {.ctrl = &mock.ctrl,
                                    .chip = nk_chip_table_find("MT29F2G08ABAEA"),
                                    .ecc = &none,
                                    .workspace = ws,
                                    .workspace_size = sizeof ws,
                                    .skip_reset = true};
    assert_int_equal(nk_nand_open(&nand, &config), 0);
    uint8_t oob[64] = {0};
    unsigned ops = mock.ops;
    assert_int_equal(
        nk_nand_copyback_program(&nand, 2 * 64, 3 * 64, g_data, oob, NK_OOB_AUTO, false),
        -NK_EINVAL);
    assert_non_null(strstr(nand.diag.text, "plane"));
    assert_int_equal(nk_nand_copyback_load(&nand, 1u << 30, g_data, oob, NK_OOB_AUTO), -NK_EINVAL);
    assert_int_equal(mock.ops, ops); /* nothing sent */
    /* A chip without copy-back. */
    struct nk_nand plain;
    config.chip = nk_chip_table_find("TC58NVG0S3E");
    assert_int_equal(nk_nand_open(&plain, &config), 0);
    assert_false(nk_nand_has_copyback(&plain));
    assert_int_equal(nk_nand_copyback_load(&plain, 5, g_data, oob, NK_OOB_AUTO), -NK_ENOTSUP);
}

/* ----- the partition's pair on the simulator ----------------------------------------- */

struct rig {
    struct nk_test_dev d;
    struct nk_part part;
    uint32_t free_bytes;
};

static void rig_open(struct rig *r, const char *preset)
{
    memset(r, 0, sizeof *r);
    /* The MT29F2G08ABAEA asks for 4 bits per 512 bytes. */
    nk_test_dev_open(
        &r->d, preset,
        strcmp(preset, "MT29F2G08ABAEA") == 0 ? NK_TEST_ECC_BCH4 : NK_TEST_ECC_HAMMING256, NULL);
    assert_int_equal(nk_part_init(&r->part, &r->d.nand, "p", 0, 64, 0), 0);
    r->free_bytes = nk_part_free_oob_bytes(&r->part);
    for (uint32_t b = 0; b < 8; b++)
        assert_int_equal(nk_part_erase_block(&r->part, b), 0);
}

static void test_moved_page_gets_new_tags_bit_exact(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "K9F1G08U0A");
    uint8_t tags_a[64], tags_b[64], back_tags[64];
    memset(tags_a, 0xa1, sizeof tags_a);
    memset(tags_b, 0x5b, sizeof tags_b);
    fill(g_data, 2048, 1);
    assert_int_equal(nk_part_program_page(&r.part, 10, g_data, tags_a, NK_OOB_AUTO), 0);
    nk_sim_counters_reset(r.d.sim);
    struct nk_sim_counters before;
    nk_sim_counters(r.d.sim, &before);

    assert_int_equal(nk_part_read_for_move(&r.part, 10, g_back, back_tags, NK_OOB_AUTO), 0);
    assert_memory_equal(g_back, g_data, 2048);
    assert_memory_equal(back_tags, tags_a, r.free_bytes);
    assert_int_equal(nk_part_program_moved(&r.part, 10, 3 * 64, g_back, tags_b, NK_OOB_AUTO), 0);
    struct nk_sim_counters after;
    nk_sim_counters(r.d.sim, &after);
    assert_int_equal(after.ops[NK_SIM_OP_COPYBACK_READ], 1);
    assert_int_equal(after.ops[NK_SIM_OP_COPYBACK_PROGRAM], 1);
    /* The simulator counts the 35h load as a read and the copy-back
     * program as a program: one of each, nothing else. */
    assert_int_equal(after.ops[NK_SIM_OP_PROGRAM], 1);
    assert_int_equal(after.ops[NK_SIM_OP_READ], 1);
    assert_int_equal(after.bytes_out, 64); /* the new OOB only */

    /* Data as it was, the new tags, ECC bytes valid (a clean read), and
     * the whole OOB byte-identical to an ordinary program of the same. */
    assert_int_equal(nk_part_read_page(&r.part, 3 * 64, g_back, back_tags, NK_OOB_AUTO), 0);
    assert_memory_equal(g_back, g_data, 2048);
    assert_memory_equal(back_tags, tags_b, r.free_bytes);
    assert_int_equal(nk_part_program_page(&r.part, 4 * 64, g_data, tags_b, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(r.d.sim, 3 * 64, 0, g_raw, 2112), 0);
    assert_int_equal(nk_sim_page_peek(r.d.sim, 4 * 64, 0, g_raw2, 2112), 0);
    assert_memory_equal(g_raw, g_raw2, 2112);
    /* The source is untouched. */
    assert_int_equal(nk_part_read_page(&r.part, 10, g_back, back_tags, NK_OOB_AUTO), 0);
    assert_memory_equal(g_back, g_data, 2048);
    assert_memory_equal(back_tags, tags_a, r.free_bytes);
    nk_test_dev_close(&r.d);
}

static void test_a_corrected_source_is_sent_back_corrected(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "K9F1G08U0A");
    uint8_t tags[64], back_tags[64];
    memset(tags, 0x42, sizeof tags);
    fill(g_data, 2048, 2);
    assert_int_equal(nk_part_program_page(&r.part, 11, g_data, tags, NK_OOB_AUTO), 0);
    nk_test_flip_stored_bit(&r.d, 11, 8 * 700 + 3);
    nk_sim_counters_reset(r.d.sim);
    assert_int_equal(nk_part_read_for_move(&r.part, 11, g_back, back_tags, NK_OOB_AUTO), 1);
    assert_int_equal(nk_part_program_moved(&r.part, 11, 2 * 64 + 1, g_back, tags, NK_OOB_AUTO), 0);
    struct nk_sim_counters c;
    nk_sim_counters(r.d.sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_COPYBACK_PROGRAM], 1);
    assert_int_equal(c.bytes_out, 2112); /* data and OOB sent back */
    assert_int_equal(nk_sim_page_peek(r.d.sim, 2 * 64 + 1, 0, g_raw, 2048), 0);
    assert_memory_equal(g_raw, g_data, 2048); /* the stored copy has no error */
    nk_test_dev_close(&r.d);
}

static void test_copyback_falls_back_when_the_load_is_gone_or_the_plane_differs(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "MT29F2G08ABAEA");
    uint8_t tags[64], back_tags[64];
    memset(tags, 0x17, sizeof tags);
    fill(g_data, 2048, 3);
    assert_int_equal(nk_part_program_page(&r.part, 64, g_data, tags, NK_OOB_AUTO), 0);

    /* Another call in between ends the load: an ordinary program. */
    nk_sim_counters_reset(r.d.sim);
    assert_int_equal(nk_part_read_for_move(&r.part, 64, g_back, back_tags, NK_OOB_AUTO), 0);
    assert_int_equal(nk_part_read_page(&r.part, 0, g_raw, NULL, NK_OOB_AUTO), 0);
    assert_int_equal(nk_part_program_moved(&r.part, 64, 3 * 64, g_back, tags, NK_OOB_AUTO), 0);
    assert_int_equal(op_count(r.d.sim, NK_SIM_OP_COPYBACK_PROGRAM), 0);
    assert_int_equal(op_count(r.d.sim, NK_SIM_OP_PROGRAM), 1);

    /* Block 1 to block 2: other plane, an ordinary program. */
    assert_false(nk_part_can_copyback(&r.part, 64, 2 * 64));
    assert_int_equal(nk_part_read_for_move(&r.part, 64, g_back, back_tags, NK_OOB_AUTO), 0);
    assert_int_equal(nk_part_program_moved(&r.part, 64, 2 * 64, g_back, tags, NK_OOB_AUTO), 0);
    assert_int_equal(op_count(r.d.sim, NK_SIM_OP_COPYBACK_PROGRAM), 0);
    assert_int_equal(op_count(r.d.sim, NK_SIM_OP_PROGRAM), 2);

    /* Block 1 to block 5: same plane, copy-back. */
    assert_true(nk_part_can_copyback(&r.part, 64, 5 * 64));
    assert_int_equal(nk_part_read_for_move(&r.part, 64, g_back, back_tags, NK_OOB_AUTO), 0);
    assert_int_equal(nk_part_program_moved(&r.part, 64, 5 * 64, g_back, tags, NK_OOB_AUTO), 0);
    assert_int_equal(op_count(r.d.sim, NK_SIM_OP_COPYBACK_PROGRAM), 1);
    for (uint32_t page = 2 * 64; page <= 5 * 64; page += 64) {
        if (page == 4 * 64)
            continue;
        assert_int_equal(nk_part_read_page(&r.part, page, g_back, back_tags, NK_OOB_AUTO), 0);
        assert_memory_equal(g_back, g_data, 2048);
        assert_memory_equal(back_tags, tags, r.free_bytes);
    }
    /* The simulator itself refuses a cross-plane copy-back (the plane
     * rule of the datasheet): FAIL, a protocol error, nothing programmed. */
    struct nk_chip *chip = &r.d.nand.chip;
    assert_int_equal(nk_chip_copyback_read(chip, 64, 0), 0);
    assert_int_equal(nk_chip_copyback_program(chip, 6 * 64, NULL, 0), -NK_EIO);
    struct nk_sim_counters c;
    nk_sim_counters(r.d.sim, &c);
    assert_true(c.protocol_errors >= 1);
    assert_int_equal(nk_sim_page_peek(r.d.sim, 6 * 64, 0, g_raw, 2112), 0);
    for (unsigned i = 0; i < 2112; i++)
        assert_int_equal(g_raw[i], 0xff);
    nk_test_dev_close(&r.d);
}

/* Power cut at points through the copy-back program: the source always
 * reads back intact; the destination is erased, torn or complete, like an
 * ordinary program's page; after the program's end it is complete. */
static void test_power_cut_during_a_copyback_program_spares_the_source(void **state)
{
    (void)state;
    unsigned cut = 0, complete = 0, points = 0;
    for (uint64_t at = 0; at <= 340000; at += 20000, points++) {
        struct rig r;
        rig_open(&r, "K9F1G08U0A");
        uint8_t tags_a[64], tags_b[64], back_tags[64];
        memset(tags_a, 0x11, sizeof tags_a);
        memset(tags_b, 0x22, sizeof tags_b);
        fill(g_data, 2048, 4);
        assert_int_equal(nk_part_program_page(&r.part, 20, g_data, tags_a, NK_OOB_AUTO), 0);
        assert_int_equal(nk_part_read_for_move(&r.part, 20, g_back, back_tags, NK_OOB_AUTO), 0);
        nk_sim_power_cut_at_time(r.d.sim, nk_sim_time_ns(r.d.sim) + at);
        int err = nk_part_program_moved(&r.part, 20, 2 * 64 + 20, g_back, tags_b, NK_OOB_AUTO);
        nk_sim_power_cut_cancel(r.d.sim);
        if (!nk_sim_powered(r.d.sim)) {
            assert_int_equal(err, -NK_ENODEV);
            nk_sim_power_restore(r.d.sim);
            cut++;
        } else {
            assert_int_equal(err, 0);
        }
        nk_test_dev_reopen(&r.d);
        assert_int_equal(nk_part_read_page(&r.part, 20, g_back, back_tags, NK_OOB_AUTO), 0);
        assert_memory_equal(g_back, g_data, 2048);
        assert_memory_equal(back_tags, tags_a, r.free_bytes);
        int read = nk_part_read_page(&r.part, 2 * 64 + 20, g_back, back_tags, NK_OOB_AUTO);
        if (read == 0 && memcmp(g_back, g_data, 2048) == 0 &&
            memcmp(back_tags, tags_b, r.free_bytes) == 0)
            complete++;
        else
            assert_true(err != 0); /* only a cut leaves it incomplete */
        nk_test_dev_close(&r.d);
    }
    printf("  %u cut points: %u cut the copy-back, %u left the copy complete\n", points, cut,
           complete);
    assert_true(cut >= points - 3); /* the program lasts ~303 us of the 340 */
    assert_true(complete >= 1);
}

/* Virtual time per moved page on the K9F1G08U0A, through the calls the file
 * system makes: copy-back (35h load + read-out + 85h new OOB + 10h) against
 * an ordinary read + program. */
static void test_move_cost_per_page_copyback_vs_read_and_program(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, "K9F1G08U0A");
    uint8_t tags[64], back_tags[64];
    memset(tags, 0x33, sizeof tags);
    const uint32_t n = 32;
    for (uint32_t i = 0; i < n; i++) {
        fill(g_data, 2048, 10 + i);
        assert_int_equal(nk_part_program_page(&r.part, i, g_data, tags, NK_OOB_AUTO), 0);
    }
    uint64_t t0 = nk_sim_time_ns(r.d.sim);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(nk_part_read_for_move(&r.part, i, g_back, back_tags, NK_OOB_AUTO), 0);
        assert_int_equal(nk_part_program_moved(&r.part, i, 64 + i, g_back, tags, NK_OOB_AUTO), 0);
    }
    uint64_t copyback_ns = nk_sim_time_ns(r.d.sim) - t0;
    t0 = nk_sim_time_ns(r.d.sim);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(nk_part_read_page(&r.part, i, g_back, back_tags, NK_OOB_AUTO), 0);
        assert_int_equal(nk_part_program_page(&r.part, 2 * 64 + i, g_back, tags, NK_OOB_AUTO), 0);
    }
    uint64_t plain_ns = nk_sim_time_ns(r.d.sim) - t0;
    assert_int_equal(op_count(r.d.sim, NK_SIM_OP_COPYBACK_PROGRAM), n);
    for (uint32_t i = 0; i < n; i++) {
        fill(g_data, 2048, 10 + i);
        assert_int_equal(nk_part_read_page(&r.part, 64 + i, g_back, NULL, NK_OOB_AUTO), 0);
        assert_memory_equal(g_back, g_data, 2048);
    }
    printf("  K9F1G08U0A GC page move: copy-back %.1f us/page, read + program %.1f us/page\n",
           copyback_ns / 1e3 / n, plain_ns / 1e3 / n);
    /* Copy-back saves the 2048 data bytes' transfer in (2048 x tWC = 61 us)
     * and pays a 64-byte OOB transfer instead. */
    assert_true(copyback_ns + (uint64_t)n * 55000 < plain_ns);
    nk_test_dev_close(&r.d);
}

/* ----- the file system's garbage collection ----------------------------------------- */

#define FS_BLOCKS 10u

struct fs_rig {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static void fs_rig_open(struct fs_rig *r, const char *preset)
{
    memset(r, 0, sizeof *r);
    struct nk_diag why[1] = {{""}};
    r->t.layout = NK_FS_LAYOUT_LINUX;
    assert_int_equal(nk_sim_preset(preset, &r->t.params), 0);
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &r->t.params;
    sc.no_sidecar = true;
    sc.seed = 7;
    if (nk_sim_open(&r->t.sim, &sc, why))
        fail_msg("sim: %s", why->text);
    assert_int_equal(nk_fs_layout_device(NK_FS_LAYOUT_LINUX, r->t.params.chip.page_size,
                                         r->t.params.chip.oob_size, &r->t.ecc, &r->t.oob_layout),
                     0);
    size_t ws = nk_nand_workspace_size(&r->t.params.chip);
    r->t.workspace = malloc(ws);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(r->t.sim);
    nc.chip = &r->t.params.chip;
    nc.ecc = &r->t.ecc;
    nc.layout = &r->t.oob_layout;
    nc.workspace = r->t.workspace;
    nc.workspace_size = ws;
    nc.clock = nk_sim_clock(r->t.sim);
    nc.force_ecc = true;
    assert_int_equal(nk_nand_open(&r->t.nand, &nc), 0);
    assert_int_equal(nk_part_init(&r->t.part, &r->t.nand, "fs", 0, FS_BLOCKS, 0), 0);
    r->config = nk_fs_testdev_config(&r->t);
    r->config.read_only = false;
    assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
}

static void fs_rig_close(struct fs_rig *r)
{
    (void)nk_fs_unmount(&r->fs);
    nk_fs_testdev_close(&r->t);
}

#define FILES 6u
#define FILE_BYTES (96u << 10)
#define PIECE (16u << 10)

/* What every file should hold, and a scratch page for reads. */
struct model {
    uint8_t files[FILES][FILE_BYTES];
    uint8_t got[FILE_BYTES];
    uint64_t seed;
};

static void model_init(struct fs_rig *r, struct model *m)
{
    m->seed = 99;
    for (unsigned file = 0; file < FILES; file++) {
        nk_test_random(m->files[file], FILE_BYTES, 1000 + file);
        char path[16];
        snprintf(path, sizeof path, "/f%u", file);
        struct nk_fs_file f;
        assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
        assert_int_equal(nk_fs_file_write(&f, m->files[file], FILE_BYTES), (int32_t)FILE_BYTES);
        assert_int_equal(nk_fs_file_close(&f), 0);
    }
}

/* The next overwrite: a file, a piece-aligned offset and new bytes. */
static void next_overwrite(struct model *m, unsigned *file, uint32_t *offset, uint8_t *bytes)
{
    uint64_t v = nk_test_splitmix64(&m->seed);
    *file = (unsigned)(v % FILES);
    *offset = (uint32_t)((v >> 8) % (FILE_BYTES / PIECE)) * PIECE;
    nk_test_random(bytes, PIECE, v);
}

/* Overwrites one piece of a file in place (the old chunks die, the rest of
 * their blocks stays live: collections have chunks to move). Returns the
 * pwrite's result. */
static int32_t overwrite(struct fs_rig *r, unsigned file, uint32_t offset, const uint8_t *bytes)
{
    char path[16];
    snprintf(path, sizeof path, "/f%u", file);
    struct nk_fs_file f;
    int err = nk_fs_file_open(&r->fs, &f, path, NK_FS_O_WRONLY);
    if (err)
        return err;
    int32_t n = nk_fs_file_pwrite(&f, bytes, PIECE, offset);
    err = nk_fs_file_close(&f);
    return n < 0 ? n : err ? err : n;
}

static void churn(struct fs_rig *r, struct model *m, unsigned steps)
{
    static uint8_t bytes[PIECE];
    for (unsigned step = 0; step < steps; step++) {
        unsigned file;
        uint32_t offset;
        next_overwrite(m, &file, &offset, bytes);
        assert_int_equal(overwrite(r, file, offset, bytes), (int32_t)PIECE);
        memcpy(m->files[file] + offset, bytes, PIECE);
    }
}

static void check_files(struct fs_rig *r, struct model *m)
{
    for (unsigned file = 0; file < FILES; file++) {
        char path[16];
        snprintf(path, sizeof path, "/f%u", file);
        struct nk_fs_file f;
        assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_RDONLY), 0);
        assert_int_equal(nk_fs_file_read(&f, m->got, FILE_BYTES), (int32_t)FILE_BYTES);
        assert_int_equal(nk_fs_file_close(&f), 0);
        assert_memory_equal(m->got, m->files[file], FILE_BYTES);
    }
}

static void test_gc_moves_data_chunks_by_copyback_bit_exact(void **state)
{
    (void)state;
    struct model *m = calloc(1, sizeof *m);
    struct fs_rig r;
    fs_rig_open(&r, "K9F1G08U0A");
    model_init(&r, m);
    nk_sim_counters_reset(r.t.sim);
    uint64_t copied0 = r.fs.chunks_copied;
    uint64_t t0 = nk_sim_time_ns(r.t.sim);
    churn(&r, m, 200);
    uint64_t churn_ns = nk_sim_time_ns(r.t.sim) - t0;
    uint64_t copied = r.fs.chunks_copied - copied0;
    uint64_t copybacks = op_count(r.t.sim, NK_SIM_OP_COPYBACK_PROGRAM);
    printf("  K9F1G08U0A: %llu chunks copied by GC, %llu of them by copy-back; 200 overwrites of "
           "16 KiB in %.1f ms of virtual time\n",
           (unsigned long long)copied, (unsigned long long)copybacks, churn_ns / 1e6);
    assert_true(copied >= 64);
    /* Moved data chunks go by copy-back on this chip (one plane); headers
     * are rewritten, not copied. */
    assert_true(copybacks >= copied / 2);
    assert_true(copybacks <= copied);
    check_files(&r, m);
    assert_int_equal(nk_fs_unmount(&r.fs), 0);
    assert_int_equal(nk_fs_mount(&r.fs, &r.config), 0);
    check_files(&r, m);
    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(&r.fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
    fs_rig_close(&r);
    free(m);
}

/* Array operations of the reference run, by virtual time. */
struct op_times {
    uint64_t at[4096];
    unsigned count;
    bool on;
};

static void record_op(void *ctx, const struct nk_sim_event *event)
{
    struct op_times *t = ctx;
    if (!t->on || event->kind != NK_SIM_EVENT_OP || t->count >= 4096)
        return;
    switch (event->op) {
    case NK_SIM_OP_READ:
    case NK_SIM_OP_PROGRAM:
    case NK_SIM_OP_CACHE_PROGRAM:
    case NK_SIM_OP_ERASE:
    case NK_SIM_OP_COPYBACK_READ:
    case NK_SIM_OP_COPYBACK_PROGRAM:
        t->at[t->count++] = event->time_ns;
        break;
    default:
        break;
    }
}

/* A power cut at every flash operation of overwrites that collect blocks
 * (copy-back moves included): after the remount every other file reads back
 * exactly, and the one being overwritten holds either its old bytes or the
 * new ones in each chunk of the piece (a pwrite is not atomic, but no
 * chunk holds anything else). */
static void test_power_cut_at_every_operation_of_a_collection(void **state)
{
    (void)state;
    struct model *m = calloc(1, sizeof *m), *ref_model = calloc(1, sizeof *m);
    static struct op_times ref;
    static uint8_t bytes[PIECE];
    memset(&ref, 0, sizeof ref);
    const unsigned warm = 150, cut_steps = 3;
    /* Reference: the operations of `cut_steps` overwrites after the warm-up. */
    struct fs_rig r;
    fs_rig_open(&r, "K9F1G08U0A");
    model_init(&r, ref_model);
    churn(&r, ref_model, warm);
    nk_sim_trace_set(r.t.sim, record_op, &ref);
    ref.on = true;
    uint64_t cb0 = op_count(r.t.sim, NK_SIM_OP_COPYBACK_PROGRAM);
    uint64_t gc0 = r.fs.chunks_copied;
    churn(&r, ref_model, cut_steps);
    ref.on = false;
    uint64_t copybacks = op_count(r.t.sim, NK_SIM_OP_COPYBACK_PROGRAM) - cb0;
    uint64_t moved = r.fs.chunks_copied - gc0;
    fs_rig_close(&r);
    assert_true(copybacks >= 4); /* the overwrites collect, by copy-back */
    assert_true(ref.count > 20);

    unsigned tried = 0;
    for (unsigned k = 0; k < ref.count; k++, tried++) {
        fs_rig_open(&r, "K9F1G08U0A");
        model_init(&r, m);
        churn(&r, m, warm);
        /* Cut 1 us into operation k. */
        nk_sim_power_cut_at_time(r.t.sim, ref.at[k] + 1000);
        unsigned file = 0;
        uint32_t offset = 0;
        for (unsigned step = 0; step < cut_steps && nk_sim_powered(r.t.sim); step++) {
            next_overwrite(m, &file, &offset, bytes);
            if (overwrite(&r, file, offset, bytes) == (int32_t)PIECE)
                memcpy(m->files[file] + offset, bytes, PIECE);
        }
        assert_false(nk_sim_powered(r.t.sim)); /* the cut fell inside the overwrites */
        (void)nk_fs_unmount(&r.fs);
        nk_sim_power_cut_cancel(r.t.sim);
        nk_sim_power_restore(r.t.sim);
        int err = nk_fs_mount(&r.fs, &r.config);
        if (err)
            fail_msg("cut at operation %u: mount %d %s", k, err, r.fs.diag.text);
        for (unsigned f = 0; f < FILES; f++) {
            char path[16];
            snprintf(path, sizeof path, "/f%u", f);
            struct nk_fs_file h;
            if (nk_fs_file_open(&r.fs, &h, path, NK_FS_O_RDONLY) != 0)
                fail_msg("cut at operation %u: %s missing", k, path);
            int32_t n = nk_fs_file_read(&h, m->got, FILE_BYTES);
            assert_int_equal(nk_fs_file_close(&h), 0);
            assert_int_equal(n, (int32_t)FILE_BYTES);
            for (uint32_t at = 0; at < FILE_BYTES; at += 2048) {
                bool old = memcmp(m->got + at, m->files[f] + at, 2048) == 0;
                bool cut_piece = f == file && at >= offset && at < offset + PIECE;
                bool new_bytes = cut_piece && memcmp(m->got + at, bytes + (at - offset), 2048) == 0;
                if (!old && !new_bytes)
                    fail_msg("cut at operation %u: %s chunk at %u holds neither version", k, path,
                             at);
            }
        }
        fs_rig_close(&r);
    }
    printf("  %u flash operations in %u overwrites (%llu chunks moved, %llu by copy-back): a cut "
           "at each\n",
           ref.count, cut_steps, (unsigned long long)moved, (unsigned long long)copybacks);
    assert_true(tried == ref.count);
    free(m);
    free(ref_model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copyback_load_and_program_cycle_by_cycle),
        cmocka_unit_test(test_copyback_calls_refuse_what_the_chip_does_not_allow),
        cmocka_unit_test(test_moved_page_gets_new_tags_bit_exact),
        cmocka_unit_test(test_a_corrected_source_is_sent_back_corrected),
        cmocka_unit_test(test_copyback_falls_back_when_the_load_is_gone_or_the_plane_differs),
        cmocka_unit_test(test_power_cut_during_a_copyback_program_spares_the_source),
        cmocka_unit_test(test_move_cost_per_page_copyback_vs_read_and_program),
        cmocka_unit_test(test_gc_moves_data_chunks_by_copyback_bit_exact),
        cmocka_unit_test(test_power_cut_at_every_operation_of_a_collection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
