/* SPDX-License-Identifier: MIT */
/*
 * The file system on two simulated K9F1G08U0A chips on one bus, through a
 * partition over a striped or concatenated array: files bit-exact, also
 * after a remount, fsck clean, each chip's factory-bad blocks kept out;
 * sequential writes and reads faster than on one chip on the virtual clock
 * (the chips interleave); and a power cut at every flash operation of a
 * pipelined write leaving what the documentation promises (nothing fsync'd
 * lost, the rest of the file a prefix of what was written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"
#include "testutil.h"

#define CHIP_BLOCKS 1024u
#define FS_CHIP_BLOCKS 96u /* chip blocks the file system covers, in every configuration */
#define BIG_IO (64u << 10)

struct rig {
    unsigned chips;
    enum nk_part_mapping mapping;
    struct nk_sim *sims[2];
    struct nk_sim_bus *bus;
    struct nk_sim_params params;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout layout;
    struct nk_nand nand[2];
    void *ws[2];
    struct nk_part part;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static void *rig_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void rig_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

/* `bad[c]` (may be UINT32_MAX) is a factory-bad block of chip c; with
 * `bbt` every chip keeps a bad-block table (its last 4 blocks). */
static struct rig *rig_open_devices(unsigned chips, enum nk_part_mapping mapping,
                                    const uint32_t bad[2], bool bbt)
{
    struct rig *r = calloc(1, sizeof *r);
    r->chips = chips;
    r->mapping = mapping;
    assert_int_equal(nk_sim_preset("K9F1G08U0A", &r->params), 0);
    for (unsigned c = 0; c < chips; c++) {
        struct nk_sim_config sc;
        memset(&sc, 0, sizeof sc);
        sc.params = &r->params;
        sc.no_sidecar = true;
        sc.seed = 11 + c;
        if (bad && bad[c] != UINT32_MAX) {
            sc.factory_bad_list = &bad[c];
            sc.factory_bad_list_len = 1;
        }
        assert_int_equal(nk_sim_open(&r->sims[c], &sc, NULL), 0);
    }
    assert_int_equal(nk_sim_bus_open(&r->bus, r->sims, chips, 0), 0);
    assert_int_equal(nk_fs_layout_device(NK_FS_LAYOUT_LINUX, r->params.chip.page_size,
                                         r->params.chip.oob_size, &r->ecc, &r->layout),
                     0);
    for (unsigned c = 0; c < chips; c++) {
        struct nk_nand_config nc;
        memset(&nc, 0, sizeof nc);
        nc.ctrl = nk_sim_bus_ctrl(r->bus);
        nc.chip_select = c;
        nc.chip = &r->params.chip;
        nc.ecc = &r->ecc;
        nc.layout = &r->layout;
        nc.workspace_size = nk_nand_workspace_size(&r->params.chip) +
                            (bbt ? nk_nand_bbt_workspace_size(&r->params.chip) : 0);
        r->ws[c] = malloc(nc.workspace_size);
        nc.workspace = r->ws[c];
        nc.clock = nk_sim_bus_clock(r->bus);
        nc.bbt = bbt;
        assert_int_equal(nk_nand_open(&r->nand[c], &nc), 0);
    }
    return r;
}

static struct rig *rig_open(unsigned chips, enum nk_part_mapping mapping, const uint32_t bad[2])
{
    struct rig *r = rig_open_devices(chips, mapping, bad, false);
    if (chips == 1) {
        assert_int_equal(nk_part_init(&r->part, &r->nand[0], "fs", 0, FS_CHIP_BLOCKS, 0), 0);
    } else {
        struct nk_nand *devs[2] = {&r->nand[0], &r->nand[1]};
        if (mapping == NK_PART_STRIPE)
            assert_int_equal(nk_part_init_chips(&r->part, devs, chips, mapping, "fs", 0,
                                                FS_CHIP_BLOCKS / chips, 0),
                             0);
        else /* across the boundary between the chips */
            assert_int_equal(nk_part_init_chips(&r->part, devs, chips, mapping, "fs",
                                                CHIP_BLOCKS - 8, FS_CHIP_BLOCKS, 0),
                             0);
    }
    memset(&r->config, 0, sizeof r->config);
    r->config.part = &r->part;
    r->config.allocator.alloc = rig_alloc;
    r->config.allocator.free = rig_free;
    nk_fs_config_layout(&r->config, NK_FS_LAYOUT_LINUX);
    assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    return r;
}

static void rig_close(struct rig *r)
{
    (void)nk_fs_unmount(&r->fs);
    nk_sim_bus_close(r->bus);
    for (unsigned c = 0; c < r->chips; c++) {
        nk_sim_close(r->sims[c]);
        free(r->ws[c]);
    }
    free(r);
}

static uint64_t now(struct rig *r)
{
    return nk_sim_bus_time_ns(r->bus);
}

static uint64_t ops(struct rig *r, unsigned chip, enum nk_sim_op_kind kind)
{
    struct nk_sim_counters c;
    nk_sim_counters(r->sims[chip], &c);
    return c.ops[kind];
}

static void pattern(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 11) + (i >> 17));
}

static uint64_t write_file(struct rig *r, const char *path, const uint8_t *data, size_t len,
                           size_t piece)
{
    struct nk_fs_file f;
    uint64_t t0 = now(r);
    assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    for (size_t done = 0; done < len; done += piece) {
        size_t n = len - done < piece ? len - done : piece;
        assert_int_equal(nk_fs_file_write(&f, data + done, n), (int32_t)n);
    }
    assert_int_equal(nk_fs_file_close(&f), 0);
    return now(r) - t0;
}

static uint64_t read_file(struct rig *r, const char *path, const uint8_t *want, size_t len,
                          size_t piece)
{
    uint8_t *got = malloc(len + 1);
    struct nk_fs_file f;
    r->fs.cached_page = NK_FS_NONE;
    uint64_t t0 = now(r);
    assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_RDONLY), 0);
    for (size_t done = 0; done < len; done += piece) {
        size_t n = len - done < piece ? len - done : piece;
        assert_int_equal(nk_fs_file_read(&f, got + done, n), (int32_t)n);
    }
    assert_int_equal(nk_fs_file_read(&f, got + len, 1), 0); /* nothing past the end */
    assert_int_equal(nk_fs_file_close(&f), 0);
    uint64_t t = now(r) - t0;
    assert_memory_equal(got, want, len);
    free(got);
    return t;
}

/* The partition's view of an array: logical blocks and pages, each page on
 * its chip, bounds and the chips' bad-block-table blocks kept out. */
static void test_partition_on_an_array_maps_and_checks(void **state)
{
    (void)state;
    struct rig *r = rig_open_devices(2, NK_PART_STRIPE, NULL, false);
    struct nk_nand *devs[2] = {&r->nand[0], &r->nand[1]};
    struct nk_part p, q;
    assert_int_equal(nk_part_init_chips(&p, devs, 2, NK_PART_STRIPE, "p", 1020, 0, 0), 0);
    assert_int_equal(p.block_count, 4);
    assert_int_equal(nk_part_pages(&p), 4 * 128);
    assert_int_equal(nk_part_page_size(&p), 2048);
    assert_int_equal(nk_part_init_chips(&q, devs, 2, NK_PART_STRIPE, "q", 1024, 1, 0), -NK_EINVAL);
    assert_non_null(strstr(nk_part_diag(&p)->text, "'q'"));
    assert_int_equal(nk_part_init_chips(&q, devs, 2, NK_PART_STRIPE, "q", 1000, 21, 0), 0);
    assert_int_equal(nk_part_check_overlap(&p, &q), -NK_EINVAL);
    assert_int_equal(nk_part_init_chips(&q, devs, 2, NK_PART_STRIPE, "q", 1000, 20, 0), 0);
    assert_int_equal(nk_part_check_overlap(&p, &q), 0);
    /* Partition page 128 + 5: logical block 1021, page 5: chip 1, page 2. */
    uint8_t data[2048], raw[2048], tags[64];
    pattern(data, sizeof data, 9);
    memset(tags, 0x6c, sizeof tags);
    assert_int_equal(nk_part_erase_block(&p, 1), 0);
    assert_int_equal(nk_part_program_page(&p, 128 + 5, data, tags, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(r->sims[1], 1021 * 64 + 2, 0, raw, 2048), 0);
    assert_memory_equal(raw, data, 2048);
    assert_int_equal(nk_part_read_page(&p, 128 + 5, raw, NULL, NK_OOB_AUTO), 0);
    assert_memory_equal(raw, data, 2048);
    assert_int_equal(nk_part_read_page(&p, 4 * 128, raw, NULL, NK_OOB_AUTO), -NK_EINVAL);
    /* Marking a striped block bad marks it on every chip. */
    assert_int_equal(nk_part_block_mark_bad(&p, 2), 0);
    assert_int_equal(nk_nand_block_is_bad(&r->nand[0], 1022), 1);
    assert_int_equal(nk_nand_block_is_bad(&r->nand[1], 1022), 1);
    assert_int_equal(nk_part_block_is_bad(&p, 2), 1);
    assert_int_equal(nk_part_block_is_bad(&p, 3), 0);
    /* Read-only partition: refused before anything is sent. */
    q.read_only = true;
    assert_int_equal(nk_part_erase_block(&q, 0), -NK_EROFS);
    rig_close(r);

    /* With bad-block tables: striped, the last 4 logical blocks are the
     * chips' tables; concatenated, chip 0's table blocks read as bad inside
     * the space and chip 1's end it. */
    r = rig_open_devices(2, NK_PART_STRIPE, NULL, true);
    devs[0] = &r->nand[0];
    devs[1] = &r->nand[1];
    assert_int_equal(nk_part_init_chips(&p, devs, 2, NK_PART_STRIPE, "p", 1000, 0, 0), 0);
    assert_int_equal(p.block_count, 20);
    assert_true(nk_part_tracks_bad_blocks(&p));
    assert_int_equal(nk_part_init_chips(&p, devs, 2, NK_PART_STRIPE, "p", 1000, 21, 0), -NK_EINVAL);
    assert_non_null(strstr(nk_part_diag(&p)->text, "BBT area"));
    assert_int_equal(nk_part_init_chips(&p, devs, 2, NK_PART_CONCAT, "p", 1000, 0, 0), 0);
    assert_int_equal(p.block_count, 2048 - 4 - 1000);
    assert_int_equal(nk_part_block_is_bad(&p, 19), 0);
    for (uint32_t b = 20; b < 24; b++)
        assert_int_equal(nk_part_block_is_bad(&p, b), 1); /* chip 0's table */
    assert_int_equal(nk_part_block_is_bad(&p, 24), 0);
    rig_close(r);
}

/* One chip through nk_part_init_chips() is nk_part_init(): the chip's own
 * blocks and pages, each page where the device puts it. Partitions that
 * share a chip under different layouts are refused as overlapping; those
 * on different chips never overlap. */
static void test_one_chip_partition_is_the_device_and_layouts_do_not_mix(void **state)
{
    (void)state;
    struct rig *r = rig_open_devices(2, NK_PART_STRIPE, NULL, false);
    struct nk_nand *devs[2] = {&r->nand[0], &r->nand[1]};
    struct nk_part one, plain, both, other;
    assert_int_equal(nk_part_init_chips(&one, devs, 1, NK_PART_STRIPE, "one", 10, 4, 0), 0);
    assert_int_equal(nk_part_init(&plain, &r->nand[0], "plain", 10, 4, 0), 0);
    assert_int_equal(nk_part_pages_per_block(&one), nk_part_pages_per_block(&plain));
    assert_int_equal(nk_part_pages(&one), 4 * 64);
    uint8_t data[2048], raw[2048];
    pattern(data, sizeof data, 5);
    assert_int_equal(nk_part_erase_block(&one, 1), 0);
    assert_int_equal(nk_part_program_page(&one, 64 + 3, data, NULL, NK_OOB_AUTO), 0);
    assert_int_equal(nk_sim_page_peek(r->sims[0], 11 * 64 + 3, 0, raw, 2048), 0);
    assert_memory_equal(raw, data, 2048);
    assert_int_equal(nk_part_read_page(&plain, 64 + 3, raw, NULL, NK_OOB_AUTO), 0);
    assert_memory_equal(raw, data, 2048);
    assert_int_equal(nk_part_check_overlap(&one, &plain), -NK_EINVAL); /* same blocks */
    assert_int_equal(nk_part_init_chips(&both, devs, 2, NK_PART_STRIPE, "both", 100, 4, 0), 0);
    assert_int_equal(nk_part_check_overlap(&one, &both), -NK_EINVAL);
    assert_non_null(strstr(nk_part_diag(&one)->text, "different layouts"));
    assert_int_equal(nk_part_init_chips(&other, devs + 1, 1, NK_PART_CONCAT, "other", 10, 4, 0), 0);
    assert_int_equal(nk_part_check_overlap(&one, &other), 0);
    /* Bad chip lists. */
    assert_int_equal(nk_part_init_chips(&other, devs, 0, NK_PART_STRIPE, "none", 0, 0, 0),
                     -NK_EINVAL);
    struct nk_nand *twice[2] = {&r->nand[1], &r->nand[1]};
    assert_int_equal(nk_part_init_chips(&other, twice, 2, NK_PART_STRIPE, "twice", 0, 0, 0),
                     -NK_EINVAL);
    assert_non_null(strstr(r->nand[1].diag.text, "same chip"));
    rig_close(r);
}

/* Three files written in large and small pieces, read back, remounted,
 * read back, checked. */
static void exercise(struct rig *r, unsigned expect_bad)
{
    const size_t big = 1u << 20, mid = 300u << 10, small = 100;
    uint8_t *a = malloc(big), *b = malloc(mid), *c = malloc(small);
    pattern(a, big, 1);
    pattern(b, mid, 2);
    pattern(c, small, 3);
    assert_int_equal(nk_fs_mkdir(&r->fs, "/d", 0755), 0);
    write_file(r, "/d/big", a, big, BIG_IO);
    write_file(r, "/mid", b, mid, 2048);
    write_file(r, "/d/small", c, small, small);
    /* Both chips carry data (programs of either kind: large writes go out
     * mostly as cache programs). */
    for (unsigned chip = 0; chip < r->chips; chip++)
        assert_true(ops(r, chip, NK_SIM_OP_PROGRAM) + ops(r, chip, NK_SIM_OP_CACHE_PROGRAM) > 64);
    read_file(r, "/d/big", a, big, BIG_IO);
    read_file(r, "/mid", b, mid, 2048);
    read_file(r, "/d/small", c, small, small);
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    assert_int_equal(r->fs.stats.blocks_bad, expect_bad);
    read_file(r, "/d/big", a, big, 2048);
    read_file(r, "/mid", b, mid, BIG_IO);
    read_file(r, "/d/small", c, small, small);
    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(&r->fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
    assert_true(check.objects_checked >= 4);
    free(a);
    free(b);
    free(c);
}

static void test_fs_on_two_striped_chips_keeps_each_chips_bad_blocks_out(void **state)
{
    (void)state;
    /* Chip 0's block 3 and chip 1's block 7: logical blocks 3 and 7 are bad. */
    const uint32_t bad[2] = {3, 7};
    struct rig *r = rig_open(2, NK_PART_STRIPE, bad);
    assert_int_equal(nk_part_pages_per_block(&r->part), 128);
    assert_int_equal(nk_part_block_is_bad(&r->part, 3), 1);
    assert_int_equal(nk_part_block_is_bad(&r->part, 7), 1);
    assert_int_equal(nk_part_block_is_bad(&r->part, 4), 0);
    exercise(r, 2);
    /* Nothing was programmed in the bad blocks' partners on the other chip. */
    uint8_t raw[2112];
    for (uint32_t page = 0; page < 64; page++) {
        assert_int_equal(nk_sim_page_peek(r->sims[1], 3 * 64 + page, 0, raw, 2048), 0);
        for (unsigned i = 0; i < 2048; i++)
            assert_int_equal(raw[i], 0xff);
        assert_int_equal(nk_sim_page_peek(r->sims[0], 7 * 64 + page, 0, raw, 2048), 0);
        for (unsigned i = 0; i < 2048; i++)
            assert_int_equal(raw[i], 0xff);
    }
    rig_close(r);
}

static void test_fs_on_two_concatenated_chips_across_the_boundary(void **state)
{
    (void)state;
    /* The partition is chip 0's last 8 blocks and chip 1's first 88 (the
     * files need more than 8 blocks); chip 1's block 2 (partition block 10)
     * is bad. */
    const uint32_t bad[2] = {UINT32_MAX, 2};
    struct rig *r = rig_open(2, NK_PART_CONCAT, bad);
    assert_int_equal(nk_part_pages_per_block(&r->part), 64);
    assert_int_equal(nk_part_block_is_bad(&r->part, 10), 1);
    assert_int_equal(nk_part_block_is_bad(&r->part, 9), 0);
    exercise(r, 1);
    rig_close(r);
}

/* The fs's sequential figures on one chip and on two striped chips, same
 * bytes of flash, on the bus's virtual clock. */
static void test_two_chips_write_and_read_faster_than_one(void **state)
{
    (void)state;
    const size_t len = 4u << 20;
    const uint32_t pages = (uint32_t)(len / 2048);
    uint8_t *data = malloc(len);
    pattern(data, len, 5);
    uint64_t w[3], rd[3];
    for (unsigned chips = 1; chips <= 2; chips++) {
        struct rig *r = rig_open(chips, NK_PART_STRIPE, NULL);
        w[chips] = write_file(r, "/f", data, len, BIG_IO);
        rd[chips] = read_file(r, "/f", data, len, BIG_IO);
        printf("  K9F1G08U0A x%u: fs write %.1f kB/s (%.1f us/page), read %.1f kB/s (%.1f "
               "us/page), 4 MiB by 64 KiB\n",
               chips, (double)len / 1024.0 / (w[chips] / 1e9), w[chips] / 1e3 / pages,
               (double)len / 1024.0 / (rd[chips] / 1e9), rd[chips] / 1e3 / pages);
        rig_close(r);
    }
    /* Two chips interleave tPROG and tR behind each other's transfers. */
    assert_true(w[2] * 4 < w[1] * 3);
    assert_true(rd[2] * 10 < rd[1] * 9);
    /* Below the single-chip, single-page program limit (363.5 us) by far. */
    assert_true(w[2] / pages < 260000);
    free(data);
}

/* Overwrites in place on a small striped partition until garbage collection
 * has moved many chunks: moves within a chip go by copy-back with new tags,
 * moves between the chips by read + program; every byte stays right. */
static void test_garbage_collection_on_two_chips_bit_exact(void **state)
{
    (void)state;
    struct rig *r = rig_open(2, NK_PART_STRIPE, NULL);
    /* A partition of 10 logical blocks (2.5 MiB) instead of the rig's. */
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    struct nk_nand *devs[2] = {&r->nand[0], &r->nand[1]};
    assert_int_equal(nk_part_init_chips(&r->part, devs, 2, NK_PART_STRIPE, "gc", 20, 10, 0), 0);
    assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    enum { FILES = 4, FILE_BYTES = 256u << 10, PIECE = 16u << 10 };
    static uint8_t files[FILES][FILE_BYTES], got[FILE_BYTES], piece[PIECE];
    for (unsigned i = 0; i < FILES; i++) {
        char path[8];
        snprintf(path, sizeof path, "/g%u", i);
        nk_test_random(files[i], FILE_BYTES, 50 + i);
        write_file(r, path, files[i], FILE_BYTES, BIG_IO);
    }
    uint64_t seed = 3, copied0 = r->fs.chunks_copied;
    for (unsigned step = 0; step < 160; step++) {
        uint64_t v = nk_test_splitmix64(&seed);
        unsigned i = (unsigned)(v % FILES);
        uint32_t offset = (uint32_t)((v >> 8) % (FILE_BYTES / PIECE)) * PIECE;
        nk_test_random(piece, PIECE, v);
        char path[8];
        snprintf(path, sizeof path, "/g%u", i);
        struct nk_fs_file f;
        assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_WRONLY), 0);
        assert_int_equal(nk_fs_file_pwrite(&f, piece, PIECE, offset), (int32_t)PIECE);
        assert_int_equal(nk_fs_file_close(&f), 0);
        memcpy(files[i] + offset, piece, PIECE);
    }
    uint64_t copied = r->fs.chunks_copied - copied0;
    uint64_t copybacks =
        ops(r, 0, NK_SIM_OP_COPYBACK_PROGRAM) + ops(r, 1, NK_SIM_OP_COPYBACK_PROGRAM);
    printf("  two chips: %llu chunks moved by GC, %llu by copy-back (the rest across chips)\n",
           (unsigned long long)copied, (unsigned long long)copybacks);
    assert_true(copied >= 64);
    assert_true(ops(r, 0, NK_SIM_OP_COPYBACK_PROGRAM) > 0);
    assert_true(ops(r, 1, NK_SIM_OP_COPYBACK_PROGRAM) > 0);
    assert_true(copybacks < copied);
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < FILES; i++) {
            char path[8];
            snprintf(path, sizeof path, "/g%u", i);
            struct nk_fs_file f;
            assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_RDONLY), 0);
            assert_int_equal(nk_fs_file_read(&f, got, FILE_BYTES), (int32_t)FILE_BYTES);
            assert_int_equal(nk_fs_file_close(&f), 0);
            assert_memory_equal(got, files[i], FILE_BYTES);
        }
        assert_int_equal(nk_fs_unmount(&r->fs), 0);
        assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    }
    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(&r->fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
    rig_close(r);
}

/* ----- power cuts ------------------------------------------------------------------- */

struct op_times {
    uint64_t at[2048];
    unsigned count;
    bool on;
};

static void record_op(void *ctx, const struct nk_sim_event *event)
{
    struct op_times *t = ctx;
    if (!t->on || event->kind != NK_SIM_EVENT_OP || t->count >= 2048)
        return;
    if (event->op == NK_SIM_OP_READ || event->op == NK_SIM_OP_PROGRAM ||
        event->op == NK_SIM_OP_CACHE_PROGRAM || event->op == NK_SIM_OP_ERASE)
        t->at[t->count++] = event->time_ns;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_power_cut_at_every_operation_of_an_interleaved_fs_write(void **state)
{
    (void)state;
    const size_t first = 128u << 10, second = 128u << 10;
    uint8_t *data = malloc(first + second), *got = malloc(first + second);
    pattern(data, first + second, 7);
    static struct op_times ref;
    memset(&ref, 0, sizeof ref);
    /* Reference run: the flash operations of the second write, on both chips. */
    struct rig *r = rig_open(2, NK_PART_STRIPE, NULL);
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&r->fs, &f, "/f", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    assert_int_equal(nk_fs_file_write(&f, data, first), (int32_t)first);
    assert_int_equal(nk_fs_file_fsync(&f), 0);
    for (unsigned c = 0; c < 2; c++)
        nk_sim_trace_set(r->sims[c], record_op, &ref);
    ref.on = true;
    for (size_t done = 0; done < second; done += BIG_IO)
        assert_int_equal(nk_fs_file_write(&f, data + first + done, BIG_IO), (int32_t)BIG_IO);
    assert_int_equal(nk_fs_file_close(&f), 0);
    ref.on = false;
    rig_close(r);
    qsort(ref.at, ref.count, sizeof ref.at[0], cmp_u64);
    assert_true(ref.count >= second / 2048);

    unsigned cuts = 0;
    for (unsigned k = 0; k < ref.count; k++) {
        r = rig_open(2, NK_PART_STRIPE, NULL);
        assert_int_equal(nk_fs_file_open(&r->fs, &f, "/f", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
        assert_int_equal(nk_fs_file_write(&f, data, first), (int32_t)first);
        assert_int_equal(nk_fs_file_fsync(&f), 0);
        /* The board loses power 1 us into operation k: both chips at once. */
        for (unsigned c = 0; c < 2; c++)
            nk_sim_power_cut_at_time(r->sims[c], ref.at[k] + 1000);
        for (size_t done = 0; done < second; done += BIG_IO)
            if (nk_fs_file_write(&f, data + first + done, BIG_IO) < 0)
                break;
        (void)nk_fs_file_close(&f);
        (void)nk_fs_unmount(&r->fs);
        uint64_t t = now(r);
        bool cut = false;
        for (unsigned c = 0; c < 2; c++) {
            if (nk_sim_time_ns(r->sims[c]) < t)
                (void)nk_sim_time_advance(r->sims[c], t - nk_sim_time_ns(r->sims[c]));
            cut |= !nk_sim_powered(r->sims[c]);
            nk_sim_power_cut_cancel(r->sims[c]);
            if (!nk_sim_powered(r->sims[c]))
                nk_sim_power_restore(r->sims[c]);
        }
        assert_true(cut);
        cuts++;
        int err = nk_fs_mount(&r->fs, &r->config);
        if (err)
            fail_msg("cut at operation %u: mount %d %s", k, err, r->fs.diag.text);
        assert_int_equal(nk_fs_file_open(&r->fs, &f, "/f", NK_FS_O_RDONLY), 0);
        int32_t n = nk_fs_file_read(&f, got, first + second);
        assert_int_equal(nk_fs_file_close(&f), 0);
        if (n < (int32_t)first)
            fail_msg("cut at operation %u: %d bytes left of %zu fsynced", k, n, first);
        assert_memory_equal(got, data, (size_t)n);
        struct nk_fs_check_result check;
        assert_int_equal(nk_fs_check(&r->fs, &check), 0);
        rig_close(r);
    }
    printf("  %u flash operations in the write on two chips: a cut at each, nothing fsynced "
           "lost\n",
           cuts);
    free(data);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_on_an_array_maps_and_checks),
        cmocka_unit_test(test_one_chip_partition_is_the_device_and_layouts_do_not_mix),
        cmocka_unit_test(test_fs_on_two_striped_chips_keeps_each_chips_bad_blocks_out),
        cmocka_unit_test(test_fs_on_two_concatenated_chips_across_the_boundary),
        cmocka_unit_test(test_two_chips_write_and_read_faster_than_one),
        cmocka_unit_test(test_garbage_collection_on_two_chips_bit_exact),
        cmocka_unit_test(test_power_cut_at_every_operation_of_an_interleaved_fs_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
