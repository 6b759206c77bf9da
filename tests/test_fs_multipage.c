/* SPDX-License-Identifier: MIT */
/*
 * The file system's sequential reads and writes through the multi-page
 * path, on simulated presets: a multi-MiB file written in large pieces goes
 * to flash by cache program (the simulator counts 15h sequences) faster per
 * page, on the virtual clock, than the same file written one chunk at a
 * time and faster than the chip's single-page limit; read back in large
 * pieces it uses the read cache where the chip has one; the data is
 * bit-exact, also after a remount; and a power cut during a multi-page
 * write never takes what an fsync reported durable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_testdev.h"
#include "testutil.h"

#define FS_BLOCKS 96u         /* 12 MiB of the chip for the file system */
#define FILE_BYTES (4u << 20) /* the file: 2048 chunks */
#define BIG_IO (64u << 10)    /* a large read or write */

struct rig {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static struct rig *rig_open(const char *preset)
{
    struct rig *r = calloc(1, sizeof *r);
    struct nk_diag why[1] = {{""}};
    r->t.layout = NK_FS_LAYOUT_LINUX;
    if (nk_sim_preset(preset, &r->t.params))
        fail_msg("no preset %s", preset);
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &r->t.params;
    sc.no_sidecar = true;
    sc.seed = 1;
    if (nk_sim_open(&r->t.sim, &sc, why))
        fail_msg("sim: %s", why->text);
    /* The Linux layout's Hamming code on every preset (the MT29F2G08ABAEA
     * asks for 4 bits per 512 bytes; the simulator adds no bit errors
     * here): the throughput is the subject. */
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
    if (nk_nand_open(&r->t.nand, &nc))
        fail_msg("device: %s", r->t.nand.diag.text);
    assert_int_equal(nk_part_init(&r->t.part, &r->t.nand, "fs", 0, FS_BLOCKS, 0), 0);
    r->config = nk_fs_testdev_config(&r->t);
    r->config.read_only = false;
    assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    return r;
}

static void rig_close(struct rig *r)
{
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    nk_fs_testdev_close(&r->t);
    free(r);
}

static void pattern(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 11) + (i >> 17));
}

static uint64_t ops(struct rig *r, enum nk_sim_op_kind kind)
{
    struct nk_sim_counters c;
    nk_sim_counters(r->t.sim, &c);
    return c.ops[kind];
}

/* Writes `data` to `path` in pieces of `piece` bytes and closes it;
 * returns the virtual time it took. */
static uint64_t write_file(struct rig *r, const char *path, const uint8_t *data, size_t len,
                           size_t piece)
{
    struct nk_fs_file f;
    uint64_t t0 = nk_sim_time_ns(r->t.sim);
    assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    for (size_t done = 0; done < len; done += piece)
        assert_int_equal(nk_fs_file_write(&f, data + done, piece), (int32_t)piece);
    assert_int_equal(nk_fs_file_close(&f), 0);
    return nk_sim_time_ns(r->t.sim) - t0;
}

/* Reads `path` in pieces of `piece` bytes, checks it against `want`;
 * returns the virtual time it took. */
static uint64_t read_file(struct rig *r, const char *path, const uint8_t *want, size_t len,
                          size_t piece)
{
    uint8_t *got = malloc(len);
    struct nk_fs_file f;
    r->fs.cached_page = NK_FS_NONE;
    uint64_t t0 = nk_sim_time_ns(r->t.sim);
    assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_RDONLY), 0);
    for (size_t done = 0; done < len; done += piece)
        assert_int_equal(nk_fs_file_read(&f, got + done, piece), (int32_t)piece);
    assert_int_equal(nk_fs_file_close(&f), 0);
    uint64_t t = nk_sim_time_ns(r->t.sim) - t0;
    assert_memory_equal(got, want, len);
    free(got);
    return t;
}

static double kbps(uint64_t ns)
{
    return (double)FILE_BYTES / 1024.0 / ((double)ns / 1e9);
}

/* One preset: the file written and read in large pieces and chunk by
 * chunk, on fresh file systems. Returns the four times through *_ns. */
static void run_preset(const char *preset, bool read_cache)
{
    uint8_t *data = malloc(FILE_BYTES);
    pattern(data, FILE_BYTES, 1);
    const uint32_t pages = FILE_BYTES / 2048u;
    const uint64_t single_program_ns = 363500; /* K9F1G08U0A page at a time (docs/bench.md) */

    /* Chunk by chunk: the single-page path, no 15h. */
    struct rig *r = rig_open(preset);
    nk_sim_counters_reset(r->t.sim);
    uint64_t w_single = write_file(r, "/f", data, FILE_BYTES, 2048);
    assert_int_equal(ops(r, NK_SIM_OP_CACHE_PROGRAM), 0);
    uint64_t r_single = read_file(r, "/f", data, FILE_BYTES, 2048);
    assert_int_equal(ops(r, NK_SIM_OP_CACHE_READ), 0);
    rig_close(r);

    /* Large pieces: cache program, and read cache where the chip has it. */
    r = rig_open(preset);
    nk_sim_counters_reset(r->t.sim);
    uint64_t w_multi = write_file(r, "/f", data, FILE_BYTES, BIG_IO);
    uint64_t cached = ops(r, NK_SIM_OP_CACHE_PROGRAM);
    /* Every run of 8 pages but its last page goes with 15h. */
    assert_true(cached >= (uint64_t)pages * 7 / 8 - 64);
    nk_sim_counters_reset(r->t.sim);
    uint64_t r_multi = read_file(r, "/f", data, FILE_BYTES, BIG_IO);
    if (read_cache)
        assert_true(ops(r, NK_SIM_OP_CACHE_READ) >= (uint64_t)pages * 7 / 8 - 64);
    else
        assert_int_equal(ops(r, NK_SIM_OP_CACHE_READ), 0);
    assert_true(ops(r, NK_SIM_OP_READ) <= pages + 16); /* no page read twice */

    /* The multi-page path is faster per page on the virtual clock. */
    assert_true(w_multi < w_single);
    if (read_cache)
        assert_true(r_multi < r_single);
    if (strcmp(preset, "K9F1G08U0A") == 0) {
        /* Below the chip's single-page program limit, erases and headers
         * included; the chunk-by-chunk write is above it. */
        assert_true(w_multi / pages < single_program_ns);
        assert_true(w_single / pages > single_program_ns);
    }
    printf("  %s, %u KiB file: write %.1f kB/s by %u KiB pieces (%.1f us/page), %.1f kB/s chunk "
           "by chunk (%.1f us/page); read %.1f kB/s by %u KiB pieces (%.1f us/page), %.1f kB/s "
           "chunk by chunk (%.1f us/page)\n",
           preset, FILE_BYTES >> 10, kbps(w_multi), BIG_IO >> 10, w_multi / 1e3 / pages,
           kbps(w_single), w_single / 1e3 / pages, kbps(r_multi), BIG_IO >> 10,
           r_multi / 1e3 / pages, kbps(r_single), r_single / 1e3 / pages);

    /* Bit-exact after a remount, read both ways. */
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    read_file(r, "/f", data, FILE_BYTES, BIG_IO);
    read_file(r, "/f", data, FILE_BYTES, 2048);
    rig_close(r);
    free(data);
}

static void test_k9f1g08u0a_writes_by_cache_program(void **state)
{
    (void)state;
    run_preset("K9F1G08U0A", false);
}

static void test_mt29f2g08abaea_reads_by_read_cache(void **state)
{
    (void)state;
    run_preset("MT29F2G08ABAEA", true);
}

/* Power cuts at many points of a multi-page write that follows an fsync:
 * the fsynced bytes always survive, and what the file holds beyond them
 * is a prefix of what was written. */
static void test_a_cut_during_a_cache_program_never_takes_fsynced_data(void **state)
{
    (void)state;
    const size_t first = 256u << 10, second = 512u << 10;
    uint8_t *data = malloc(first + second);
    uint8_t *got = malloc(first + second);
    pattern(data, first + second, 3);
    unsigned cuts = 0, in_cache_program = 0;
    for (unsigned point = 0; point < 24; point++) {
        struct rig *r = rig_open("K9F1G08U0A");
        struct nk_fs_file f;
        assert_int_equal(nk_fs_file_open(&r->fs, &f, "/f", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
        assert_int_equal(nk_fs_file_write(&f, data, first), (int32_t)first);
        assert_int_equal(nk_fs_file_fsync(&f), 0);
        /* Cut somewhere in the next 256 pages' worth of programming. */
        uint64_t now = nk_sim_time_ns(r->t.sim);
        uint64_t at = now + 1000 + (uint64_t)point * 3210017u;
        nk_sim_power_cut_at_time(r->t.sim, at);
        uint64_t cp0 = ops(r, NK_SIM_OP_CACHE_PROGRAM);
        for (size_t done = 0; done < second; done += BIG_IO)
            if (nk_fs_file_write(&f, data + first + done, BIG_IO) < 0)
                break;
        bool cut = !nk_sim_powered(r->t.sim);
        if (cut) {
            cuts++;
            if (ops(r, NK_SIM_OP_CACHE_PROGRAM) > cp0)
                in_cache_program++;
        }
        (void)nk_fs_file_close(&f);
        (void)nk_fs_unmount(&r->fs);
        nk_sim_power_cut_cancel(r->t.sim);
        if (!nk_sim_powered(r->t.sim))
            nk_sim_power_restore(r->t.sim);
        int err = nk_fs_mount(&r->fs, &r->config);
        if (err)
            fail_msg("cut %u: mount %d %s", point, err, r->fs.diag.text);
        assert_int_equal(nk_fs_file_open(&r->fs, &f, "/f", NK_FS_O_RDONLY), 0);
        int32_t n = nk_fs_file_read(&f, got, first + second);
        assert_int_equal(nk_fs_file_close(&f), 0);
        if (n < (int32_t)first)
            fail_msg("cut %u: %d bytes left of %zu fsynced", point, n, first);
        assert_memory_equal(got, data, (size_t)n);
        rig_close(r);
    }
    printf("  %u of 24 cut points fell in the write, %u after its first 15h\n", cuts,
           in_cache_program);
    assert_true(cuts >= 20);
    assert_true(in_cache_program >= 18);
    free(data);
    free(got);
}

/* The partition's multi-page calls: relative to the partition, the whole
 * range checked before anything is sent, read-only refused, the data
 * bit-exact through cache program and copy-back. */
static void test_partition_multi_page_calls(void **state)
{
    (void)state;
    struct rig *r = rig_open("K9F1G08U0A");
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    struct nk_part part;
    assert_int_equal(nk_part_init(&part, &r->t.nand, "p", 100, 4, 0), 0);
    const uint32_t ppb = 64, oob = nk_part_free_oob_bytes(&part);
    uint8_t *data = malloc(3 * 2048), *got = malloc(3 * 2048);
    uint8_t *o = malloc(3 * oob), *og = malloc(3 * oob);
    pattern(data, 3 * 2048, 9);
    memset(o, 0x5a, 3 * oob);
    assert_int_equal(nk_part_erase_block(&part, 1), 0);
    nk_sim_counters_reset(r->t.sim);
    /* Out of range: nothing sent. */
    assert_int_equal(nk_part_program_pages(&part, 4 * ppb - 2, 3, data, o, NK_OOB_AUTO),
                     -NK_EINVAL);
    assert_int_equal(nk_part_read_pages(&part, 4 * ppb, 1, got, og, NK_OOB_AUTO), -NK_EINVAL);
    assert_int_equal(nk_part_read_pages(&part, 0, 0, got, og, NK_OOB_AUTO), -NK_EINVAL);
    assert_int_equal(nk_part_move_page(&part, 0, 4 * ppb), -NK_EINVAL);
    assert_false(nk_part_can_copyback(&part, 4 * ppb, 0));
    assert_int_equal(
        ops(r, NK_SIM_OP_PROGRAM) + ops(r, NK_SIM_OP_CACHE_PROGRAM) + ops(r, NK_SIM_OP_READ), 0);
    /* In range: partition page ppb + 5 is device page (100 + 1) * ppb + 5. */
    assert_int_equal(nk_part_program_pages(&part, ppb + 5, 3, data, o, NK_OOB_AUTO), 0);
    assert_int_equal(ops(r, NK_SIM_OP_CACHE_PROGRAM), 2);
    assert_int_equal(nk_nand_read_page(&r->t.nand, 101 * ppb + 6, got, NULL, NK_OOB_AUTO), 0);
    assert_memory_equal(got, data + 2048, 2048);
    assert_int_equal(nk_part_read_pages(&part, ppb + 5, 3, got, og, NK_OOB_AUTO), 0);
    assert_memory_equal(got, data, 3 * 2048);
    assert_memory_equal(og, o, 3 * oob);
    /* Copy-back within the plane, data and OOB as they were. */
    assert_true(nk_part_can_copyback(&part, ppb + 5, ppb + 9));
    assert_int_equal(nk_part_move_page(&part, ppb + 5, ppb + 9), 0);
    assert_true(ops(r, NK_SIM_OP_COPYBACK_PROGRAM) == 1);
    assert_int_equal(nk_part_read_pages(&part, ppb + 9, 1, got, og, NK_OOB_AUTO), 0);
    assert_memory_equal(got, data, 2048);
    assert_memory_equal(og, o, oob);
    /* Read-only: refused before anything is sent. */
    part.read_only = true;
    assert_int_equal(nk_part_program_pages(&part, 2 * ppb, 2, data, o, NK_OOB_AUTO), -NK_EROFS);
    assert_int_equal(nk_part_move_page(&part, ppb + 5, ppb + 20), -NK_EROFS);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    rig_close(r);
    free(data);
    free(got);
    free(o);
    free(og);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_multi_page_calls),
        cmocka_unit_test(test_k9f1g08u0a_writes_by_cache_program),
        cmocka_unit_test(test_mt29f2g08abaea_reads_by_read_cache),
        cmocka_unit_test(test_a_cut_during_a_cache_program_never_takes_fsynced_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
