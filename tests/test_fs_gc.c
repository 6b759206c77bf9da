/* SPDX-License-Identifier: MIT */
/*
 * Garbage collection and wear (docs/fs-design.md section 7.6):
 *
 * - the sequence-number rule of hot/cold separation: while a file's hot
 *   chunks are overwritten and collections copy its cold ones into the
 *   second open block, a read-only mount of the flash as it is after every
 *   call (the writer still mounted) reads exactly what was written — a
 *   copy numbered above later writes would bring old bytes back;
 * - the victim policy against greedy on skewed overwrites (90/10 and 80/20
 *   at 75 % and 88 % fill): programs counted by the simulator;
 * - static wear levelling: a large cold file and a small hot one keep the
 *   erase counts within a bound that greedy (no levelling) exceeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_internal.h"
#include "fs_testdev.h"
#include "testutil.h"

struct g {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static struct g *g_open(uint32_t blocks, bool greedy)
{
    struct g *g = calloc(1, sizeof *g);
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&g->t, 2048, 64, 64, blocks, NK_FS_LAYOUT_LINUX, NULL, why))
        fail_msg("device: %s", why->text);
    g->config = nk_fs_testdev_config(&g->t);
    g->config.read_only = false;
    g->config.gc_greedy = greedy;
    assert_int_equal(nk_fs_format(&g->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&g->fs, &g->config), 0);
    return g;
}

static void g_close(struct g *g)
{
    assert_int_equal(nk_fs_unmount(&g->fs), 0);
    nk_fs_testdev_close(&g->t);
    free(g);
}

static uint64_t g_programs(struct g *g)
{
    struct nk_sim_counters c;
    nk_sim_counters(g->t.sim, &c);
    /* Copy-back programs (a collection copy may go by copy-back) are among
     * NK_SIM_OP_PROGRAM already. */
    return c.ops[NK_SIM_OP_PROGRAM] + c.ops[NK_SIM_OP_CACHE_PROGRAM];
}

static uint64_t next_rand(uint64_t *rng)
{
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    return *rng >> 33;
}

/* Fills `buf` (2048 bytes) with the content of chunk `chunk` at version
 * `version`. */
static void stamp(uint8_t *buf, uint32_t chunk, uint32_t version)
{
    for (uint32_t i = 0; i < 2048; i++)
        buf[i] = (uint8_t)(chunk * 31u + version * 7u + i / 16u);
    memcpy(buf, &chunk, 4);
    memcpy(buf + 4, &version, 4);
}

/* Mounts the flash read-only beside the writer and checks every chunk of
 * /f against the versions written. */
static void check_beside(struct g *g, const uint32_t *version, uint32_t chunks, uint64_t step)
{
    struct nk_fs *ro = calloc(1, sizeof *ro);
    struct nk_fs_config c = g->config;
    c.read_only = true;
    assert_int_equal(nk_fs_mount(ro, &c), 0);
    struct nk_fs_file h;
    assert_int_equal(nk_fs_file_open(ro, &h, "/f", NK_FS_O_RDONLY), 0);
    uint8_t got[2048], want[2048];
    for (uint32_t k = 0; k < chunks; k++) {
        assert_int_equal(nk_fs_file_pread(&h, got, 2048, (uint64_t)k * 2048), 2048);
        stamp(want, k, version[k]);
        if (memcmp(got, want, 2048) != 0) {
            uint32_t seen_chunk, seen_version;
            memcpy(&seen_chunk, got, 4);
            memcpy(&seen_version, got + 4, 4);
            fail_msg("after step %llu: chunk %u reads version %u (chunk %u), written %u",
                     (unsigned long long)step, (unsigned)k, (unsigned)seen_version,
                     (unsigned)seen_chunk, (unsigned)version[k]);
        }
    }
    assert_int_equal(nk_fs_file_close(&h), 0);
    assert_int_equal(nk_fs_unmount(ro), 0);
    free(ro);
}

/* Hot chunks overwritten, cold ones copied by collections into the cold
 * block: after every synced overwrite (and the collections it caused) a
 * mount of the flash as it is reads each chunk's newest version. */
static void test_copies_never_outrank_later_writes(void **state)
{
    (void)state;
    struct g *g = g_open(24, false);
    struct nk_fs *fs = &g->fs;
    const uint32_t chunks = 17 * 63; /* ~80 % of the space */
    uint32_t *version = calloc(chunks, sizeof *version);
    uint8_t buf[2048];
    struct nk_fs_file h;
    assert_int_equal(nk_fs_file_open(fs, &h, "/f", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    for (uint32_t k = 0; k < chunks; k++) {
        stamp(buf, k, 0);
        assert_int_equal(nk_fs_file_write(&h, buf, 2048), 2048);
    }
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    uint64_t rng = 99;
    uint32_t cold_used = 0, copied_before = 0;
    for (uint64_t step = 0; step < 2500; step++) {
        uint64_t r = next_rand(&rng);
        /* 9 in 10 overwrites hit the first 60 chunks; the rest anywhere. */
        uint32_t k = (uint32_t)(r % 10 < 9 ? (r / 10) % 60 : (r / 10) % chunks);
        version[k]++;
        stamp(buf, k, version[k]);
        assert_int_equal(nk_fs_file_pwrite(&h, buf, 2048, (uint64_t)k * 2048), 2048);
        assert_int_equal(nk_fs_file_fsync(&h), 0);
        if (fs->cold_block != NK_FS_NONE)
            cold_used++;
        if (step % 3 == 0 || fs->chunks_copied != copied_before)
            check_beside(g, version, chunks, step);
        copied_before = (uint32_t)fs->chunks_copied;
    }
    /* The separation was at work: collections copied, into the cold block,
     * while written chunks went to the allocation block above it. */
    printf("  %llu chunks copied, cold block open after %u of 2500 steps\n",
           (unsigned long long)fs->chunks_copied, (unsigned)cold_used);
    assert_true(fs->chunks_copied > 800);
    assert_true(cold_used > 1500);
    assert_int_equal(nk_fs_file_close(&h), 0);
    free(version);
    g_close(g);
}

/* Appends chunks to /g until the allocation block is no longer `block`. */
static void fill_until_closed(struct nk_fs *fs, struct nk_fs_file *g, uint32_t block)
{
    uint8_t buf[2048];
    memset(buf, 0x5a, sizeof buf);
    while (fs->alloc_block == block)
        assert_int_equal(nk_fs_file_write(g, buf, 2048), 2048);
    assert_int_equal(nk_fs_file_fsync(g), 0);
}

/* Rule (b) of the separation, made to matter: the cold block opens, a chunk
 * is written (v1) into the allocation block above it, that block closes,
 * the chunk is written again (v2) into the next one, and that block is
 * collected while the cold block is still open below the block holding v1.
 * A copy of v2 into that cold block would lose to v1 at the next mount. */
static void test_copy_out_of_a_newer_block_goes_above_it(void **state)
{
    (void)state;
    struct g *g = g_open(64, false);
    struct nk_fs *fs = &g->fs;
    uint8_t buf[2048];
    struct nk_fs_file f, h;
    uint32_t version[1] = {0};
    assert_int_equal(nk_fs_file_open(fs, &f, "/f", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    stamp(buf, 0, 0);
    assert_int_equal(nk_fs_file_write(&f, buf, 2048), 2048);
    assert_int_equal(nk_fs_file_fsync(&f), 0);
    assert_int_equal(nk_fs_file_open(fs, &h, "/g", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    fill_until_closed(fs, &h, fs->alloc_block);
    fill_until_closed(fs, &h, fs->alloc_block);
    /* The cold block opens: a closed block with live data is collected. */
    struct nk_fs_obj *gobj = nk_fs_obj_find(fs, NK_FS_OBJ_FIRST_USER + 1);
    assert_non_null(gobj);
    uint32_t b0 = nk_fs_map_get(fs, gobj, 1) / fs->pages_per_block;
    assert_int_not_equal(b0, fs->alloc_block);
    memset(buf, 0x33, sizeof buf); /* one dead chunk in it: the copies leave the cold block open */
    assert_int_equal(nk_fs_file_pwrite(&h, buf, 2048, 0), 2048);
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    assert_int_not_equal(b0, fs->alloc_block);
    assert_int_equal(nk_fs_collect(fs, b0), 0);
    assert_int_not_equal(fs->cold_block, NK_FS_NONE);
    uint32_t cold = fs->cold_block;
    /* v1 above the cold block, then its block closes. */
    version[0] = 1;
    stamp(buf, 0, 1);
    assert_int_equal(nk_fs_file_pwrite(&f, buf, 2048, 0), 2048);
    assert_int_equal(nk_fs_file_fsync(&f), 0);
    uint32_t b1 = fs->alloc_block;
    assert_true(fs->block_info[b1].seq > fs->block_info[cold].seq);
    fill_until_closed(fs, &h, b1);
    /* v2 into the next allocation block, which closes too. */
    version[0] = 2;
    stamp(buf, 0, 2);
    assert_int_equal(nk_fs_file_pwrite(&f, buf, 2048, 0), 2048);
    assert_int_equal(nk_fs_file_fsync(&f), 0);
    uint32_t b2 = fs->alloc_block;
    assert_int_not_equal(b2, b1);
    fill_until_closed(fs, &h, b2);
    assert_int_equal(fs->block_info[b1].state, NK_FS_BLOCK_IN_USE); /* v1 is still on flash */
    /* Collecting b2 moves v2; the cold block then is not the one below b1. */
    assert_int_equal(nk_fs_collect(fs, b2), 0);
    check_beside(g, version, 1, 0);
    struct nk_fs_obj *fobj = nk_fs_obj_find(fs, NK_FS_OBJ_FIRST_USER);
    assert_non_null(fobj);
    uint32_t at = nk_fs_map_get(fs, fobj, 1) / fs->pages_per_block;
    assert_true(fs->block_info[at].seq > fs->block_info[b1].seq);
    assert_int_equal(nk_fs_file_close(&h), 0);
    assert_int_equal(nk_fs_file_close(&f), 0);
    g_close(g);
}

/* Mounts the flash read-only beside the writer: /f must be gone, and
 * nothing of it may come back in /lost+found. */
static void check_gone_beside(struct g *g, uint32_t round)
{
    struct nk_fs *ro = calloc(1, sizeof *ro);
    struct nk_fs_config c = g->config;
    c.read_only = true;
    assert_int_equal(nk_fs_mount(ro, &c), 0);
    struct nk_fs_stat st;
    if (nk_fs_stat(ro, "/f", &st) != -NK_ENOENT)
        fail_msg("after collection %u: the deleted /f is back", (unsigned)round);
    struct nk_fs_dir d;
    struct nk_fs_dirent e;
    assert_int_equal(nk_fs_dir_open(ro, &d, "/lost+found"), 0);
    if (nk_fs_dir_read(&d, &e) != 0)
        fail_msg("after collection %u: /lost+found/%s came back", (unsigned)round, e.name);
    assert_int_equal(nk_fs_dir_close(&d), 0);
    assert_int_equal(nk_fs_unmount(ro), 0);
    free(ro);
}

/* A deletion header must outlive every older copy of its file's data, the
 * one in the open cold block included: /f's chunk is copied into the cold
 * block, written again above it, and /f deleted; the block with the
 * deletion is then the oldest closed block, with the cold block (older)
 * still open. Taking the victims the policy names, one at a time, a mount
 * after each must never see /f again. */
static void test_a_deletion_outlives_the_open_cold_block(void **state)
{
    (void)state;
    struct g *g = g_open(64, false);
    struct nk_fs *fs = &g->fs;
    uint8_t buf[2048];
    struct nk_fs_file f, h;
    assert_int_equal(nk_fs_file_open(fs, &f, "/f", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    stamp(buf, 0, 0);
    assert_int_equal(nk_fs_file_write(&f, buf, 2048), 2048);
    assert_int_equal(nk_fs_file_fsync(&f), 0);
    assert_int_equal(nk_fs_file_open(fs, &h, "/g", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    uint32_t b0 = fs->alloc_block;
    fill_until_closed(fs, &h, b0);
    memset(buf, 0x33, sizeof buf); /* one dead chunk in b0: the copies leave the cold block open */
    assert_int_equal(nk_fs_file_pwrite(&h, buf, 2048, 0), 2048);
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    assert_int_equal(nk_fs_collect(fs, b0), 0);
    uint32_t cold = fs->cold_block;
    assert_int_not_equal(cold, NK_FS_NONE);
    struct nk_fs_obj *fobj = nk_fs_obj_find(fs, NK_FS_OBJ_FIRST_USER);
    assert_non_null(fobj);
    assert_int_equal(nk_fs_map_get(fs, fobj, 1) / fs->pages_per_block, cold);
    /* Written again above the cold block, then deleted there. */
    stamp(buf, 0, 1);
    assert_int_equal(nk_fs_file_pwrite(&f, buf, 2048, 0), 2048);
    assert_int_equal(nk_fs_file_close(&f), 0);
    uint32_t k = fs->alloc_block;
    assert_true(fs->block_info[k].seq > fs->block_info[cold].seq);
    assert_int_equal(nk_fs_unlink(fs, "/f"), 0);
    assert_int_equal(fs->alloc_block, k);
    fill_until_closed(fs, &h, k);
    assert_int_equal(fs->cold_block, cold);
    check_gone_beside(g, 0);
    uint32_t round = 0;
    while (fs->block_info[k].state == NK_FS_BLOCK_IN_USE && round < 8) {
        bool urgent = false, wear = false;
        uint32_t victim = nk_fs_pick_victim(fs, &urgent, false, &wear);
        if (victim == NK_FS_NONE)
            break;
        assert_int_equal(nk_fs_collect(fs, victim), 0);
        check_gone_beside(g, ++round);
    }
    /* Not vacuous: the block with the deletion was collected. */
    assert_int_not_equal(fs->block_info[k].state, NK_FS_BLOCK_IN_USE);
    assert_int_equal(nk_fs_file_close(&h), 0);
    g_close(g);
}

/* Programs (as counted by the simulator) per 2 KiB chunk written by random
 * aligned 4 KiB overwrites where `hot_pct` % of them hit the first
 * (100 - hot_pct) % of a file filling `fill` % of the space. */
static double skewed_wa(unsigned fill, unsigned hot_pct, bool greedy, uint64_t *programs)
{
    struct g *g = g_open(128, greedy);
    struct nk_fs *fs = &g->fs;
    static uint8_t buf[4096];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 13 + 5);
    struct nk_fs_statfs st;
    assert_int_equal(nk_fs_statfs(fs, &st), 0);
    uint64_t size = st.bytes_avail * fill / 100 / 4096 * 4096;
    uint64_t units = size / 4096, hot = units * (100 - hot_pct) / 100;
    struct nk_fs_file h;
    assert_int_equal(nk_fs_file_open(fs, &h, "/r", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    for (uint64_t done = 0; done < size; done += 4096)
        assert_int_equal(nk_fs_file_write(&h, buf, 4096), 4096);
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    uint64_t rng = 777;
    /* Warm-up (not counted): the cold data settles. */
    for (uint64_t i = 0; i < 3 * units; i++) {
        uint64_t r = next_rand(&rng);
        uint64_t at = r % 100 < hot_pct ? (r / 100) % hot : hot + (r / 100) % (units - hot);
        assert_int_equal(nk_fs_file_pwrite(&h, buf, 4096, at * 4096), 4096);
    }
    uint64_t before = g_programs(g), writes = 6 * units;
    for (uint64_t i = 0; i < writes; i++) {
        uint64_t r = next_rand(&rng);
        uint64_t at = r % 100 < hot_pct ? (r / 100) % hot : hot + (r / 100) % (units - hot);
        assert_int_equal(nk_fs_file_pwrite(&h, buf, 4096, at * 4096), 4096);
    }
    assert_int_equal(nk_fs_file_close(&h), 0);
    *programs = g_programs(g) - before;
    g_close(g);
    return (double)*programs / (double)(writes * 2);
}

static void test_skewed_overwrites_beat_greedy(void **state)
{
    (void)state;
    static const unsigned fills[] = {75, 88};
    static const unsigned hots[] = {90, 80};
    for (unsigned f = 0; f < 2; f++) {
        for (unsigned k = 0; k < 2; k++) {
            uint64_t p_default, p_greedy;
            double wa_default = skewed_wa(fills[f], hots[k], false, &p_default);
            double wa_greedy = skewed_wa(fills[f], hots[k], true, &p_greedy);
            printf("  %u/%u at %u %% fill: write amplification %.2f default, %.2f greedy "
                   "(%llu / %llu programs)\n",
                   hots[k], 100 - hots[k], fills[f], wa_default, wa_greedy,
                   (unsigned long long)p_default, (unsigned long long)p_greedy);
            /* Measured: 43 % fewer programs than greedy at 90/10, 12 to 16 %
             * at 80/20; asserted with room: 30 % and 8 %. */
            assert_true(wa_default >= 1.0);
            assert_true(p_default * 100 <= p_greedy * (hots[k] == 90 ? 70u : 92u));
        }
    }
}

/* Spread (max - min) of the chip's own erase counts over the partition. */
static uint32_t chip_spread(struct g *g, uint32_t *max_out)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t b = 0; b < g->fs.blocks; b++) {
        struct nk_sim_block_state bs;
        nk_sim_block_get(g->t.sim, b, &bs);
        lo = bs.erase_count < lo ? bs.erase_count : lo;
        hi = bs.erase_count > hi ? bs.erase_count : hi;
    }
    if (max_out)
        *max_out = hi;
    return hi - lo;
}

/* A large cold file and a small hot one rewritten over and over: the
 * erase-count spread stays within the documented bound (wear levelling
 * moves the cold data off young blocks once the spread reaches 8); greedy,
 * which does no static levelling, lets it grow with the churn. */
static uint32_t wear_run(bool greedy, uint32_t *worst, uint32_t *max_erases, uint32_t *moves)
{
    struct g *g = g_open(24, greedy);
    struct nk_fs *fs = &g->fs;
    uint8_t buf[2048];
    memset(buf, 0xc3, sizeof buf);
    struct nk_fs_file cold, hot;
    assert_int_equal(nk_fs_file_open(fs, &cold, "/cold", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    for (uint32_t k = 0; k < 13 * 63; k++)
        assert_int_equal(nk_fs_file_write(&cold, buf, 2048), 2048);
    assert_int_equal(nk_fs_file_close(&cold), 0);
    assert_int_equal(nk_fs_file_open(fs, &hot, "/hot", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    *worst = 0;
    for (uint32_t cycle = 0; cycle < 3000; cycle++) {
        buf[0] = (uint8_t)cycle;
        for (uint32_t k = 0; k < 8; k++)
            assert_int_equal(nk_fs_file_pwrite(&hot, buf, 2048, (uint64_t)k * 2048), 2048);
        assert_int_equal(nk_fs_file_fsync(&hot), 0);
        uint32_t spread = chip_spread(g, NULL);
        if (cycle >= 100 && spread > *worst)
            *worst = spread;
    }
    assert_int_equal(nk_fs_file_close(&hot), 0);
    uint32_t spread = chip_spread(g, max_erases);
    *moves = fs->wear_moves;
    /* The cold file survived the moves. */
    assert_int_equal(nk_fs_file_open(fs, &cold, "/cold", NK_FS_O_RDONLY), 0);
    uint8_t got[2048];
    for (uint32_t k = 0; k < 13 * 63; k++) {
        assert_int_equal(nk_fs_file_read(&cold, got, 2048), 2048);
        assert_int_equal(got[1], 0xc3);
    }
    assert_int_equal(nk_fs_file_close(&cold), 0);
    g_close(g);
    return spread;
}

static void test_static_wear_levelling_bounds_the_spread(void **state)
{
    (void)state;
    uint32_t worst_default, worst_greedy, max_default, max_greedy, moves_default, moves_greedy;
    uint32_t spread_default = wear_run(false, &worst_default, &max_default, &moves_default);
    uint32_t spread_greedy = wear_run(true, &worst_greedy, &max_greedy, &moves_greedy);
    printf("  erase-count spread after 3000 cycles: %u default (worst %u, max %u erases, %u "
           "levelling moves), %u greedy (worst %u, max %u erases)\n",
           (unsigned)spread_default, (unsigned)worst_default, (unsigned)max_default,
           (unsigned)moves_default, (unsigned)spread_greedy, (unsigned)worst_greedy,
           (unsigned)max_greedy);
    /* The documented bound: 8 (the trigger) + 4. */
    assert_true(worst_default <= 12);
    assert_true(moves_default > 0);
    /* Without static levelling the cold blocks keep their single erase. */
    assert_true(worst_greedy > 24);
    assert_int_equal(moves_greedy, 0);
}

/* The chunk map of a file written in order is runs (32 B per 64 chunks);
 * random overwrites turn leaves packed, and a rewrite in order brings them
 * back; every byte reads back throughout. */
static void test_chunk_map_runs(void **state)
{
    (void)state;
    struct g *g = g_open(256, false);
    struct nk_fs *fs = &g->fs;
    const uint32_t chunks = 12288; /* 24 MiB */
    size_t before, after, peak;
    uint8_t buf[2048];
    struct nk_fs_file h;
    nk_fs_ram_usage(fs, &before, &peak);
    assert_int_equal(nk_fs_file_open(fs, &h, "/f", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    for (uint32_t k = 0; k < chunks; k++) {
        stamp(buf, k, 0);
        assert_int_equal(nk_fs_file_write(&h, buf, 2048), 2048);
    }
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    nk_fs_ram_usage(fs, &after, &peak);
    size_t in_order = after - before;
    /* 192 run leaves of 32 B and 28 inner nodes: 7.9 KB on a 64-bit host;
     * packed 15-bit entries alone would take 23 KB. */
    size_t runs_bound = (size_t)chunks / 64 * 32 + 28 * nk_fs_map_node_bytes() + 64;
    assert_true(in_order <= runs_bound);
    uint32_t *version = calloc(chunks, sizeof *version);
    uint64_t rng = 5;
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t k = (uint32_t)(next_rand(&rng) % chunks);
        version[k]++;
        stamp(buf, k, version[k]);
        assert_int_equal(nk_fs_file_pwrite(&h, buf, 2048, (uint64_t)k * 2048), 2048);
    }
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    size_t scattered;
    nk_fs_ram_usage(fs, &scattered, &peak);
    scattered -= before;
    uint8_t got[2048];
    for (uint32_t k = 0; k < chunks; k++) {
        stamp(buf, k, version[k]);
        assert_int_equal(nk_fs_file_pread(&h, got, 2048, (uint64_t)k * 2048), 2048);
        assert_memory_equal(got, buf, 2048);
    }
    /* Rewritten in order: runs again. */
    assert_int_equal(nk_fs_file_seek(&h, 0, NK_FS_SEEK_SET), 0);
    for (uint32_t k = 0; k < chunks; k++) {
        stamp(buf, k, version[k] + 1);
        assert_int_equal(nk_fs_file_write(&h, buf, 2048), 2048);
    }
    assert_int_equal(nk_fs_file_fsync(&h), 0);
    size_t again;
    nk_fs_ram_usage(fs, &again, &peak);
    again -= before;
    for (uint32_t k = 0; k < chunks; k += 7) {
        stamp(buf, k, version[k] + 1);
        assert_int_equal(nk_fs_file_pread(&h, got, 2048, (uint64_t)k * 2048), 2048);
        assert_memory_equal(got, buf, 2048);
    }
    printf("  chunk map of a 24 MiB file: %zu B written in order, %zu B after 3000 random "
           "overwrites, %zu B rewritten in order\n",
           in_order, scattered, again);
    assert_true(scattered > in_order);
    assert_true(again <= runs_bound);
    /* A truncation inside a run leaf keeps what is below it. */
    assert_int_equal(nk_fs_file_truncate(&h, 100 * 2048 + 5), 0);
    stamp(buf, 99, version[99] + 1);
    assert_int_equal(nk_fs_file_pread(&h, got, 2048, 99 * 2048), 2048);
    assert_memory_equal(got, buf, 2048);
    assert_int_equal(nk_fs_file_pread(&h, got, 2048, 100 * 2048), 5);
    assert_int_equal(nk_fs_file_close(&h), 0);
    free(version);
    g_close(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copies_never_outrank_later_writes),
        cmocka_unit_test(test_copy_out_of_a_newer_block_goes_above_it),
        cmocka_unit_test(test_a_deletion_outlives_the_open_cold_block),
        cmocka_unit_test(test_skewed_overwrites_beat_greedy),
        cmocka_unit_test(test_static_wear_levelling_bounds_the_spread),
        cmocka_unit_test(test_chunk_map_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
