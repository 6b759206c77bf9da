/* SPDX-License-Identifier: MIT */
/*
 * The file-system benchmark: each workload runs on a freshly formatted
 * simulated chip (memory mode, no factory-bad blocks) through the nk_fs API.
 * Time is the simulator's virtual clock, which advances only with bus cycles
 * and array busy time: host CPU (ECC, the file system's own code) is
 * excluded, as it is in the YAFFS2 figures compared with. Operations are
 * counted by the simulator's trace, so "programs per chunk" and "reads per
 * file" come from what reached the chip.
 */
#include "nkbench.h"
#include "nkfsbench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

/* YAFFS2 Direct's figures on the same chip model (K9F1G08U0A timing: page
 * read 88.54 us, OOB read 27.10 us, program 363.54 us, erase 2000.12 us,
 * CPU excluded; 2 KiB chunks, 64 per block, 1024 blocks, tags in OOB,
 * 10-chunk cache, summaries and checkpoint on). They are the reference
 * figures of the product specification, built in as constants: no run of
 * this benchmark measures them (NK_FS_BENCH_YAFFS2_SOURCE says so in the
 * output). bench/yaffs2/bench_yaffs2 measures them, YAFFS2 Direct on the
 * simulated chip: every figure within 1.2 % (docs/bench.md). */
#define NK_FS_BENCH_YAFFS2_SOURCE                                                                  \
    "YAFFS2 Direct's reference figures on the K9F1G08U0A timing model, from the product "          \
    "specification, reproduced by bench_yaffs2; built in as constants, not measured by this run "  \
    "(docs/bench.md)"
#define YAFFS2_SEQ_WRITE_KBPS 5501.0
#define YAFFS2_SEQ_READ_KBPS 23128.0
#define YAFFS2_SEQ_PROGRAMS_PER_CHUNK (8325.0 / 8192.0)
#define YAFFS2_SMALL_PROGRAMS 4.06
#define YAFFS2_SMALL_READS 2.1
#define YAFFS2_SMALL_US 1665.0
#define YAFFS2_SMALL_KBPS 615.0
static const double yaffs2_wa[NK_FS_BENCH_FILLS] = {1.43, 2.36, 4.43};
static const double yaffs2_overwrite_kBps[NK_FS_BENCH_FILLS] = {2975.0, 1799.0, 959.0};
#define YAFFS2_MOUNT_CLEAN_MS 12.3
#define YAFFS2_MOUNT_CRASH_MS 74.5
#define YAFFS2_RAM_STATE_KB 385.0
#define YAFFS2_RAM_BIG_KB 312.0

static const uint32_t nk_io_sizes[NK_FS_BENCH_IO_SIZES] = {512, 2048, 16384, 131072};
static const uint32_t nk_fills[NK_FS_BENCH_FILLS] = {50, 75, 88};

/* One simulated chip with a mounted file system. */
struct nk_env {
    struct nk_sim *sim;
    struct nk_sim_params params;
    struct nk_nand nand;
    struct nk_part part;
    void *workspace; /* the device's, its ECC tables' and its bad-block table's */
    struct nk_fs fs;
    struct nk_fs_config config;
    bool mounted;
    struct nk_fs_bench_reads reads; /* from the trace */
    uint32_t page_size;
};

static void *nk_env_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void nk_env_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static void nk_env_close(struct nk_env *env)
{
    if (env->mounted)
        nk_fs_unmount(&env->fs);
    if (env->sim)
        nk_sim_close(env->sim);
    free(env->workspace);
    memset(env, 0, sizeof *env);
}

/* A fresh chip, formatted and mounted read-write. */
static int nk_env_open(struct nk_env *env, const char *chip, uint32_t blocks, uint64_t seed,
                       struct nk_diag *why)
{
    memset(env, 0, sizeof *env);
    if (nk_sim_preset(chip, &env->params) != 0)
        return nk_diag_set(why, -NK_EINVAL, "unknown chip '%s'", chip);
    if (blocks)
        env->params.chip.blocks = blocks;
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &env->params;
    sc.seed = seed;
    sc.factory_bad_blocks = 0;
    int err = nk_sim_open(&env->sim, &sc, why);
    if (err)
        return err;
    env->page_size = env->params.chip.page_size;
    env->reads.page_size = env->page_size;
    nk_sim_trace_set(env->sim, nk_fs_bench_count_reads, &env->reads);
    /* Brought up as a board would: the ECC the chip's requirement asks for
     * (Hamming with the Linux layout on the 1-bit parts) and a bad-block
     * table, as Linux keeps one, so the mount asks it instead of reading
     * every block's markers. */
    const struct nk_chip_info *info = &env->params.chip;
    size_t ws = nk_nand_default_workspace_size(info) + nk_nand_bbt_workspace_size(info);
    env->workspace = malloc(ws);
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(env->sim),
                                .chip = info,
                                .workspace = env->workspace,
                                .workspace_size = env->workspace ? ws : 0,
                                .clock = nk_sim_clock(env->sim),
                                .bbt = true};
    err = nk_nand_open(&env->nand, &nc);
    if (!err)
        err = nk_part_init(&env->part, &env->nand, "fs", 0, 0, 0);
    if (err) {
        nk_diag_set(why, err, "device: %s", env->nand.diag.text);
        nk_env_close(env);
        return err;
    }
    env->config.part = &env->part;
    env->config.allocator.alloc = nk_env_alloc;
    env->config.allocator.free = nk_env_free;
    nk_fs_config_layout(&env->config, NK_FS_LAYOUT_LINUX);
    err = nk_fs_format(&env->config, NK_FS_LAYOUT_LINUX);
    if (!err)
        err = nk_fs_mount(&env->fs, &env->config);
    if (err) {
        nk_diag_set(why, err, "format/mount: %s",
                    env->fs.diag.text[0] ? env->fs.diag.text : nk_strerror(err));
        nk_env_close(env);
        return err;
    }
    env->mounted = true;
    return 0;
}

/* The operation counters now. */
static void nk_env_ops(struct nk_env *env, struct nk_fs_bench_ops *ops)
{
    nk_fs_bench_ops_now(env->sim, &env->reads, ops);
}

static int nk_fs_fail(struct nk_env *env, const char *what, int err, struct nk_diag *why)
{
    return nk_diag_set(why, err < 0 ? err : -NK_EIO, "%s: %s", what,
                       env->fs.diag.text[0] ? env->fs.diag.text : nk_strerror(err));
}

/* Writes `bytes` to a new file `path` in `io` pieces and closes it. */
static int nk_write_file(struct nk_env *env, const char *path, uint64_t bytes, uint32_t io,
                         const uint8_t *data, struct nk_diag *why)
{
    struct nk_fs_file f;
    int err = nk_fs_file_open(&env->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC);
    if (err)
        return nk_fs_fail(env, path, err, why);
    for (uint64_t done = 0; done < bytes;) {
        uint32_t n = bytes - done < io ? (uint32_t)(bytes - done) : io;
        int32_t w = nk_fs_file_write(&f, nk_fs_bench_piece(data, done), n);
        if (w != (int32_t)n) {
            nk_fs_file_close(&f);
            return nk_fs_fail(env, path, w < 0 ? w : -NK_ENOSPC, why);
        }
        done += n;
    }
    err = nk_fs_file_close(&f);
    return err ? nk_fs_fail(env, path, err, why) : 0;
}

static void nk_progress(const struct nk_fs_bench_config *config, const char *what)
{
    if (config->progress)
        fprintf(stderr, "\rbench --fs: %-40s", what);
}

static int nk_bench_raw(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                        struct nk_diag *why)
{
    struct nk_env env;
    int err = nk_env_open(&env, config->chip, r->small ? 128 : 0, config->seed, why);
    if (err)
        return err;
    r->page_size = env.fs.page_size;
    r->chunk_bytes = env.fs.chunk_bytes;
    r->pages_per_block = env.fs.pages_per_block;
    r->blocks = env.fs.blocks;
    nk_fs_unmount(&env.fs);
    env.mounted = false;
    uint8_t *data = malloc((size_t)env.page_size + env.params.chip.oob_size);
    nk_fs_bench_fill(data, env.page_size, config->seed);
    uint32_t ppb = env.params.chip.pages_per_block;
    uint32_t block = 1;
    err = nk_nand_erase_block(&env.nand, block);
    uint64_t t0 = nk_sim_time_ns(env.sim);
    for (uint32_t p = 0; p < ppb && !err; p++)
        err = nk_nand_program_page(&env.nand, block * ppb + p, data, NULL, NK_OOB_AUTO);
    uint64_t t1 = nk_sim_time_ns(env.sim);
    for (uint32_t p = 0; p < ppb && err >= 0; p++)
        err =
            nk_nand_read_page(&env.nand, block * ppb + p, data, data + env.page_size, NK_OOB_AUTO);
    uint64_t t2 = nk_sim_time_ns(env.sim);
    free(data);
    nk_env_close(&env);
    if (err < 0)
        return nk_diag_set(why, err, "raw page timing: %s", nk_strerror(err));
    r->raw_program_us = (double)(t1 - t0) / ppb / 1000.0;
    r->raw_read_us = (double)(t2 - t1) / ppb / 1000.0;
    r->raw_write_kBps = nk_fs_bench_kBps((uint64_t)r->page_size * ppb, t1 - t0);
    r->raw_read_kBps = nk_fs_bench_kBps((uint64_t)r->page_size * ppb, t2 - t1);
    return 0;
}

static int nk_bench_seq(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                        uint8_t *data, struct nk_diag *why)
{
    uint64_t bytes = r->small ? (1u << 20) : (16u << 20);
    for (unsigned i = 0; i < NK_FS_BENCH_IO_SIZES; i++) {
        struct nk_fs_bench_seq *s = &r->seq[i];
        s->io_size = nk_io_sizes[i];
        s->bytes = bytes;
        char what[64];
        snprintf(what, sizeof what, "sequential, %u-byte writes", s->io_size);
        nk_progress(config, what);
        struct nk_env env;
        int err = nk_env_open(&env, config->chip, r->small ? 128 : 0, config->seed, why);
        if (err)
            return err;
        s->chunks = (bytes + env.fs.chunk_bytes - 1) / env.fs.chunk_bytes;
        struct nk_fs_bench_ops a, b;
        nk_env_ops(&env, &a);
        err = nk_write_file(&env, "/seq", bytes, s->io_size, data, why);
        nk_env_ops(&env, &b);
        nk_fs_bench_ops_delta(&s->write, &a, &b);
        if (!err) {
            struct nk_fs_file f;
            err = nk_fs_file_open(&env.fs, &f, "/seq", NK_FS_O_RDONLY);
            uint8_t *buf = malloc(s->io_size);
            uint64_t got = 0;
            for (int32_t n = 1; !err && n > 0;) {
                n = nk_fs_file_read(&f, buf, s->io_size);
                if (n < 0)
                    err = n;
                got += n > 0 ? (uint64_t)n : 0;
            }
            free(buf);
            nk_fs_file_close(&f);
            if (!err && got != bytes)
                err = -NK_EIO;
            if (err)
                err = nk_fs_fail(&env, "sequential read", err, why);
        }
        nk_env_ops(&env, &a);
        nk_fs_bench_ops_delta(&s->read, &b, &a);
        nk_env_close(&env);
        if (err)
            return err;
        s->write_kBps = nk_fs_bench_kBps(bytes, s->write.time_ns);
        s->read_kBps = nk_fs_bench_kBps(bytes, s->read.time_ns);
        s->programs_per_chunk = (double)s->write.programs / (double)s->chunks;
        s->reads_per_chunk = (double)s->read.page_reads / (double)s->chunks;
    }
    return 0;
}

/* `count` files of `size` bytes in /dir (which exists). */
static int nk_small_files(struct nk_env *env, uint32_t count, uint32_t size, const uint8_t *data,
                          struct nk_diag *why)
{
    int err = 0;
    for (uint32_t i = 0; i < count && !err; i++) {
        char path[32];
        snprintf(path, sizeof path, "/dir/f%05u", (unsigned)i);
        err = nk_write_file(env, path, size, size, data + i, why);
    }
    return err;
}

static int nk_bench_small(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                          uint8_t *data, struct nk_diag *why)
{
    nk_progress(config, "small files");
    r->files = r->small ? 100 : 1000;
    r->file_bytes = 1024;
    struct nk_env env;
    int err = nk_env_open(&env, config->chip, r->small ? 128 : 0, config->seed, why);
    if (err)
        return err;
    /* The directory exists before the clock starts. */
    struct nk_fs_bench_ops a, b;
    err = nk_fs_mkdir(&env.fs, "/dir", 0755);
    if (err)
        err = nk_fs_fail(&env, "mkdir /dir", err, why);
    nk_env_ops(&env, &a);
    if (!err)
        err = nk_small_files(&env, r->files, r->file_bytes, data, why);
    nk_env_ops(&env, &b);
    nk_env_close(&env);
    if (err)
        return err;
    nk_fs_bench_ops_delta(&r->small_ops, &a, &b);
    r->small_programs_per_file = (double)r->small_ops.programs / r->files;
    r->small_page_reads_per_file = (double)r->small_ops.page_reads / r->files;
    r->small_us_per_file = (double)r->small_ops.time_ns / 1000.0 / r->files;
    r->small_kBps = nk_fs_bench_kBps((uint64_t)r->files * r->file_bytes, r->small_ops.time_ns);
    return 0;
}

static int nk_bench_overwrite(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                              uint8_t *data, struct nk_diag *why)
{
    for (unsigned i = 0; i < NK_FS_BENCH_FILLS; i++) {
        struct nk_fs_bench_overwrite *o = &r->overwrite[i];
        o->fill_percent = nk_fills[i];
        char what[64];
        snprintf(what, sizeof what, "random 4 KiB overwrites, %u %% full", o->fill_percent);
        nk_progress(config, what);
        struct nk_env env;
        int err = nk_env_open(&env, config->chip, r->small ? 128 : 0, config->seed, why);
        if (err)
            return err;
        struct nk_fs_statfs st;
        nk_fs_statfs(&env.fs, &st);
        o->file_bytes = st.bytes_avail * o->fill_percent / 100 / 4096 * 4096;
        err = nk_write_file(&env, "/rand", o->file_bytes, 128 * 1024, data, why);
        struct nk_fs_file f;
        if (!err)
            err = nk_fs_file_open(&env.fs, &f, "/rand", NK_FS_O_RDWR);
        uint64_t blocks4k = o->file_bytes / 4096;
        /* Half the file's size rewritten to reach a steady state, then the
         * file's size once more, measured. */
        uint64_t warm = blocks4k / 2, measured = blocks4k;
        uint64_t x = config->seed * 0x2545f4914f6cdd1dull + i + 1;
        struct nk_fs_bench_ops a, b;
        struct nk_fs_statfs s0, s1;
        nk_env_ops(&env, &a);
        nk_fs_statfs(&env.fs, &s0);
        for (uint64_t k = 0; !err && k < warm + measured; k++) {
            if (k == warm) {
                err = nk_fs_file_fsync(&f);
                nk_env_ops(&env, &a);
                nk_fs_statfs(&env.fs, &s0);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t at = (x % blocks4k) * 4096;
            int32_t n = nk_fs_file_pwrite(&f, data + (k % 64) * 64, 4096, at);
            if (n != 4096)
                err = n < 0 ? n : -NK_ENOSPC;
        }
        if (!err)
            err = nk_fs_file_close(&f);
        if (err) {
            err = nk_fs_fail(&env, "random overwrite", err, why);
            nk_env_close(&env);
            return err;
        }
        nk_env_ops(&env, &b);
        nk_fs_statfs(&env.fs, &s1);
        nk_fs_bench_ops_delta(&o->ops, &a, &b);
        o->overwrites = measured;
        o->user_chunks = measured * 4096 / r->chunk_bytes;
        o->write_amplification = (double)o->ops.programs / (double)o->user_chunks;
        o->kBps = nk_fs_bench_kBps(measured * 4096, o->ops.time_ns);
        o->gc_copies = s1.chunks_copied - s0.chunks_copied;
        o->gc_blocks = s1.blocks_collected - s0.blocks_collected;
        if (i == NK_FS_BENCH_FILLS - 1) {
            /* Erase-count spread over the file system's blocks after this churn. */
            uint32_t blocks = env.part.block_count;
            double sum = 0, sq = 0;
            r->erase_min = UINT32_MAX;
            r->erase_max = 0;
            for (uint32_t blk = 0; blk < blocks; blk++) {
                struct nk_sim_block_state bs;
                nk_sim_block_get(env.sim, env.part.first_block + blk, &bs);
                r->erase_min = bs.erase_count < r->erase_min ? bs.erase_count : r->erase_min;
                r->erase_max = bs.erase_count > r->erase_max ? bs.erase_count : r->erase_max;
                sum += bs.erase_count;
                sq += (double)bs.erase_count * bs.erase_count;
            }
            r->erase_mean = sum / blocks;
            double var = sq / blocks - r->erase_mean * r->erase_mean;
            r->erase_stddev = var > 0 ? sqrt(var) : 0;
        }
        nk_env_close(&env);
    }
    return 0;
}

/* Mount of `files` small files + a big file, after a clean unmount and
 * after a crash; RAM held for that state. */
static int nk_bench_mount(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                          uint8_t *data, struct nk_diag *why)
{
    nk_progress(config, "mount");
    r->mount_big_bytes = r->small ? (1u << 20) : (16u << 20);
    struct nk_env env;
    int err = nk_env_open(&env, config->chip, r->small ? 128 : 0, config->seed, why);
    if (err)
        return err;
    err = nk_fs_mkdir(&env.fs, "/dir", 0755);
    if (err)
        err = nk_fs_fail(&env, "mkdir /dir", err, why);
    if (!err)
        err = nk_small_files(&env, r->files, r->file_bytes, data, why);
    if (!err)
        err = nk_write_file(&env, "/big", r->mount_big_bytes, 128 * 1024, data, why);
    if (!err)
        err = nk_fs_sync(&env.fs);
    if (err) {
        nk_env_close(&env);
        return err;
    }
    /* Crash: power lost with the file system mounted. */
    nk_sim_power_cut_now(env.sim);
    nk_fs_unmount(&env.fs); /* frees the RAM; nothing is left to write */
    env.mounted = false;
    nk_sim_power_restore(env.sim);
    struct nk_fs_bench_ops a, b;
    for (int pass = 0; pass < 2 && !err; pass++) {
        nk_env_ops(&env, &a);
        err = nk_fs_mount(&env.fs, &env.config);
        nk_env_ops(&env, &b);
        if (err) {
            err = nk_fs_fail(&env, "mount", err, why);
            break;
        }
        env.mounted = true;
        nk_fs_bench_ops_delta(pass == 0 ? &r->mount_crash : &r->mount_clean, &a, &b);
        if (pass == 1) {
            size_t now, peak;
            nk_fs_ram_usage(&env.fs, &now, &peak);
            r->ram_state_now = now;
            r->ram_state_peak = peak;
        }
        err = nk_fs_unmount(&env.fs);
        env.mounted = false;
    }
    nk_env_close(&env);
    return err;
}

/* RAM after writing one 100 MiB file (8 MiB when small). */
static int nk_bench_ram_big(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                            uint8_t *data, struct nk_diag *why)
{
    nk_progress(config, "one big file");
    r->ram_big_file_bytes = r->small ? (8u << 20) : (100u << 20);
    const char *chip = config->chip;
    struct nk_env env;
    int err = nk_env_open(&env, chip, r->small ? 128 : 0, config->seed, why);
    if (err)
        return err;
    struct nk_fs_statfs st;
    nk_fs_statfs(&env.fs, &st);
    if (st.bytes_avail < r->ram_big_file_bytes && config->big_chip) {
        nk_env_close(&env);
        chip = config->big_chip;
        err = nk_env_open(&env, chip, 0, config->seed, why);
        if (err)
            return err;
    }
    snprintf(r->ram_big_chip, sizeof r->ram_big_chip, "%s", chip);
    err = nk_write_file(&env, "/big", r->ram_big_file_bytes, 128 * 1024, data, why);
    if (!err) {
        size_t now, peak;
        nk_fs_ram_usage(&env.fs, &now, &peak);
        r->ram_big_now = now;
        r->ram_big_peak = peak;
    }
    nk_env_close(&env);
    return err;
}

int nk_fs_bench_run(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *r,
                    struct nk_diag *why)
{
    memset(r, 0, sizeof *r);
    r->small = config->small;
    snprintf(r->chip, sizeof r->chip, "%s", config->chip);
    /* Test data: 1 MiB of noise, written from varying offsets. */
    uint8_t *data = malloc(2u << 20);
    if (!data) {
        return nk_diag_set(why, -NK_ENOMEM, "out of memory");
    }
    nk_fs_bench_fill(data, 2u << 20, config->seed);
    int err = nk_bench_raw(config, r, why);
    if (!err)
        err = nk_bench_seq(config, r, data, why);
    if (!err)
        err = nk_bench_small(config, r, data, why);
    if (!err)
        err = nk_bench_overwrite(config, r, data, why);
    if (!err)
        err = nk_bench_mount(config, r, data, why);
    if (!err)
        err = nk_bench_ram_big(config, r, data, why);
    if (config->progress)
        fprintf(stderr, "\r%-60s\r", "");
    free(data);
    return err;
}

/* ----- output ---------------------------------------------------------------------- */

/* nandkit's figure beside YAFFS2's: within 0.5 % is the same. */
static const char *nk_versus(double nandkit, double yaffs2, bool higher_is_better)
{
    if (fabs(nandkit - yaffs2) <= 0.005 * fabs(yaffs2))
        return "same";
    return (nandkit > yaffs2) == higher_is_better ? "better" : "worse";
}

static const char *nk_goal(double value, double goal)
{
    return value <= goal ? "meets the 1/3 goal" : "misses the 1/3 goal";
}

void nk_fs_bench_print_table(FILE *out, const struct nk_fs_bench_result *r)
{
    fprintf(out,
            "File system on the simulated %s (%u-byte pages, %u-byte chunks x %u per block, %u "
            "blocks), "
            "virtual device time, host CPU excluded%s\n",
            r->chip, r->page_size, r->chunk_bytes, r->pages_per_block, r->blocks,
            r->small ? "; REDUCED SIZES (--fs-small): not comparable" : "");
    fprintf(out,
            "Compared with: %s; 2 KiB chunks, 64 per block, 1024 blocks, tags in OOB, "
            "10-chunk cache, summaries and checkpoint on, CPU excluded.\n\n",
            NK_FS_BENCH_YAFFS2_SOURCE);
    fprintf(out, "raw single page: program %.2f us (%.0f kB/s), read %.2f us (%.0f kB/s)\n\n",
            r->raw_program_us, r->raw_write_kBps, r->raw_read_us, r->raw_read_kBps);
    fprintf(out, "sequential %llu-byte file on an erased array:\n",
            (unsigned long long)r->seq[0].bytes);
    fprintf(out,
            "  %-8s %10s %7s %9s %10s %7s %9s   YAFFS2: write %.0f kB/s, %.3f prog/chunk, "
            "read %.0f kB/s\n",
            "io size", "write kB/s", "% raw", "prog/chk", "read kB/s", "% raw", "reads/chk",
            YAFFS2_SEQ_WRITE_KBPS, YAFFS2_SEQ_PROGRAMS_PER_CHUNK, YAFFS2_SEQ_READ_KBPS);
    for (unsigned i = 0; i < NK_FS_BENCH_IO_SIZES; i++) {
        const struct nk_fs_bench_seq *s = &r->seq[i];
        fprintf(out, "  %-8u %10.0f %6.1f%% %9.4f %10.0f %6.1f%% %9.4f   write %s, read %s\n",
                s->io_size, s->write_kBps, 100.0 * s->write_kBps / r->raw_write_kBps,
                s->programs_per_chunk, s->read_kBps, 100.0 * s->read_kBps / r->raw_read_kBps,
                s->reads_per_chunk, nk_versus(s->write_kBps, YAFFS2_SEQ_WRITE_KBPS, true),
                nk_versus(s->read_kBps, YAFFS2_SEQ_READ_KBPS, true));
    }
    fprintf(out, "\n%u files of %u bytes in one directory:\n", r->files, r->file_bytes);
    fprintf(out,
            "  programs/file %.2f (YAFFS2 %.2f), page reads/file %.2f (YAFFS2 %.1f), "
            "OOB reads/file %.2f, erases %llu\n",
            r->small_programs_per_file, YAFFS2_SMALL_PROGRAMS, r->small_page_reads_per_file,
            YAFFS2_SMALL_READS, (double)r->small_ops.oob_reads / r->files,
            (unsigned long long)r->small_ops.erases);
    fprintf(out, "  %.0f us/file (YAFFS2 %.0f), %.0f kB/s of payload (YAFFS2 %.0f): %s\n",
            r->small_us_per_file, YAFFS2_SMALL_US, r->small_kBps, YAFFS2_SMALL_KBPS,
            nk_versus(r->small_kBps, YAFFS2_SMALL_KBPS, true));
    fprintf(out, "\nrandom aligned 4 KiB overwrites (the file's size rewritten, after a warm-up "
                 "of half of it):\n");
    fprintf(out, "  %-5s %12s %10s %8s %8s %10s %8s\n", "fill", "file bytes", "overwrites", "WA",
            "YAFFS2", "kB/s", "YAFFS2");
    for (unsigned i = 0; i < NK_FS_BENCH_FILLS; i++) {
        const struct nk_fs_bench_overwrite *o = &r->overwrite[i];
        fprintf(out, "  %3u %% %12llu %10llu %8.2f %8.2f %10.0f %8.0f   WA %s, speed %s\n",
                o->fill_percent, (unsigned long long)o->file_bytes,
                (unsigned long long)o->overwrites, o->write_amplification, yaffs2_wa[i], o->kBps,
                yaffs2_overwrite_kBps[i], nk_versus(o->write_amplification, yaffs2_wa[i], false),
                nk_versus(o->kBps, yaffs2_overwrite_kBps[i], true));
    }
    fprintf(out, "\nmount of %u small files + a %llu-byte file:\n", r->files,
            (unsigned long long)r->mount_big_bytes);
    fprintf(out, "  after a clean unmount %.2f ms (YAFFS2 %.1f, checkpoint): %s\n",
            nk_fs_bench_ms(r->mount_clean.time_ns), YAFFS2_MOUNT_CLEAN_MS,
            nk_versus(nk_fs_bench_ms(r->mount_clean.time_ns), YAFFS2_MOUNT_CLEAN_MS, false));
    fprintf(out, "  after a crash         %.2f ms (YAFFS2 %.1f, scan with summaries): %s\n",
            nk_fs_bench_ms(r->mount_crash.time_ns), YAFFS2_MOUNT_CRASH_MS,
            nk_versus(nk_fs_bench_ms(r->mount_crash.time_ns), YAFFS2_MOUNT_CRASH_MS, false));
    fprintf(out, "  (page reads %llu, OOB reads %llu, programs %llu after the crash)\n",
            (unsigned long long)r->mount_crash.page_reads,
            (unsigned long long)r->mount_crash.oob_reads,
            (unsigned long long)r->mount_crash.programs);
    fprintf(out, "\nRAM (nk_fs_ram_usage, 64-bit host):\n");
    fprintf(out, "  that state: %.1f KB now, %.1f KB peak (YAFFS2 %.0f KB; goal <= %.0f): %s\n",
            r->ram_state_now / 1000.0, r->ram_state_peak / 1000.0, YAFFS2_RAM_STATE_KB,
            YAFFS2_RAM_STATE_KB / 3, nk_goal(r->ram_state_peak / 1000.0, YAFFS2_RAM_STATE_KB / 3));
    fprintf(out,
            "  one %llu-byte file on %s: %.1f KB now, %.1f KB peak (YAFFS2 %.0f KB; goal <= %.0f): "
            "%s\n",
            (unsigned long long)r->ram_big_file_bytes, r->ram_big_chip, r->ram_big_now / 1000.0,
            r->ram_big_peak / 1000.0, YAFFS2_RAM_BIG_KB, YAFFS2_RAM_BIG_KB / 3,
            nk_goal(r->ram_big_peak / 1000.0, YAFFS2_RAM_BIG_KB / 3));
    fprintf(out, "\nerase counts after the %u %% churn: min %u, max %u, mean %.2f, stddev %.2f\n",
            r->overwrite[NK_FS_BENCH_FILLS - 1].fill_percent, r->erase_min, r->erase_max,
            r->erase_mean, r->erase_stddev);
}

void nk_fs_bench_print_json(FILE *out, const struct nk_fs_bench_result *r)
{
    fprintf(out,
            "{\n  \"tool\": \"nandkit bench\",\n  \"format\": %d,\n  \"benchmark\": \"fs\",\n  "
            "\"chip\": \"%s\",\n  \"small\": %s,\n",
            NK_BENCH_JSON_FORMAT, r->chip, r->small ? "true" : "false");
    fprintf(out,
            "  \"geometry\": {\"page_size\": %u, \"chunk_bytes\": %u, \"pages_per_block\": %u, "
            "\"blocks\": %u},\n",
            r->page_size, r->chunk_bytes, r->pages_per_block, r->blocks);
    fprintf(out, "  \"time\": \"virtual device time; host CPU excluded\",\n");
    fprintf(out,
            "  \"raw\": {\"program_us\": %.3f, \"read_us\": %.3f, \"write_kBps\": %.1f, "
            "\"read_kBps\": %.1f},\n",
            r->raw_program_us, r->raw_read_us, r->raw_write_kBps, r->raw_read_kBps);
    fprintf(out, "  \"sequential\": [");
    for (unsigned i = 0; i < NK_FS_BENCH_IO_SIZES; i++) {
        const struct nk_fs_bench_seq *s = &r->seq[i];
        fprintf(out,
                "%s\n    {\"io_size\": %u, \"bytes\": %llu, \"chunks\": %llu, \"write_kBps\": "
                "%.1f, \"read_kBps\": %.1f, \"programs_per_chunk\": %.4f, \"reads_per_chunk\": "
                "%.4f, ",
                i ? "," : "", s->io_size, (unsigned long long)s->bytes,
                (unsigned long long)s->chunks, s->write_kBps, s->read_kBps, s->programs_per_chunk,
                s->reads_per_chunk);
        nk_fs_bench_json_ops(out, "write", &s->write);
        fprintf(out, ", ");
        nk_fs_bench_json_ops(out, "read", &s->read);
        fprintf(out, "}");
    }
    fprintf(out, "\n  ],\n");
    fprintf(out,
            "  \"small_files\": {\"files\": %u, \"file_bytes\": %u, \"programs_per_file\": %.3f, "
            "\"page_reads_per_file\": %.3f, \"us_per_file\": %.1f, \"kBps\": %.1f, ",
            r->files, r->file_bytes, r->small_programs_per_file, r->small_page_reads_per_file,
            r->small_us_per_file, r->small_kBps);
    nk_fs_bench_json_ops(out, "ops", &r->small_ops);
    fprintf(out, "},\n  \"overwrite\": [");
    for (unsigned i = 0; i < NK_FS_BENCH_FILLS; i++) {
        const struct nk_fs_bench_overwrite *o = &r->overwrite[i];
        fprintf(out,
                "%s\n    {\"fill_percent\": %u, \"file_bytes\": %llu, \"overwrites\": %llu, "
                "\"user_chunks\": %llu, \"write_amplification\": %.3f, \"kBps\": %.1f, "
                "\"gc_copies\": %llu, \"gc_blocks\": %llu, ",
                i ? "," : "", o->fill_percent, (unsigned long long)o->file_bytes,
                (unsigned long long)o->overwrites, (unsigned long long)o->user_chunks,
                o->write_amplification, o->kBps, (unsigned long long)o->gc_copies,
                (unsigned long long)o->gc_blocks);
        nk_fs_bench_json_ops(out, "ops", &o->ops);
        fprintf(out, "}");
    }
    fprintf(out,
            "\n  ],\n  \"mount\": {\"files\": %u, \"big_bytes\": %llu, \"clean_ms\": %.3f, "
            "\"crash_ms\": %.3f, ",
            r->files, (unsigned long long)r->mount_big_bytes,
            nk_fs_bench_ms(r->mount_clean.time_ns), nk_fs_bench_ms(r->mount_crash.time_ns));
    nk_fs_bench_json_ops(out, "clean", &r->mount_clean);
    fprintf(out, ", ");
    nk_fs_bench_json_ops(out, "crash", &r->mount_crash);
    fprintf(out, "},\n");
    fprintf(out,
            "  \"ram\": {\"host_bits\": %u, \"state_now\": %llu, \"state_peak\": %llu, "
            "\"big_file_bytes\": %llu, \"big_chip\": \"%s\", \"big_now\": %llu, \"big_peak\": "
            "%llu},\n",
            (unsigned)(sizeof(void *) * 8), (unsigned long long)r->ram_state_now,
            (unsigned long long)r->ram_state_peak, (unsigned long long)r->ram_big_file_bytes,
            r->ram_big_chip, (unsigned long long)r->ram_big_now,
            (unsigned long long)r->ram_big_peak);
    fprintf(out,
            "  \"erase_counts\": {\"after_fill_percent\": %u, \"min\": %u, \"max\": %u, "
            "\"mean\": %.3f, \"stddev\": %.3f},\n",
            r->overwrite[NK_FS_BENCH_FILLS - 1].fill_percent, r->erase_min, r->erase_max,
            r->erase_mean, r->erase_stddev);
    fprintf(out,
            "  \"yaffs2\": {\"source\": \"" NK_FS_BENCH_YAFFS2_SOURCE
            "\", \"measured_by_this_run\": false, "
            "\"seq_write_kBps\": %.0f, \"seq_read_kBps\": %.0f, \"seq_programs_per_chunk\": %.4f, "
            "\"small_programs_per_file\": %.2f, \"small_page_reads_per_file\": %.1f, "
            "\"small_us_per_file\": %.0f, \"small_kBps\": %.0f, \"overwrite_wa\": [%.2f, %.2f, "
            "%.2f], \"overwrite_kBps\": [%.0f, %.0f, %.0f], \"mount_clean_ms\": %.1f, "
            "\"mount_crash_ms\": %.1f, \"ram_state_KB\": %.0f, \"ram_big_KB\": %.0f}\n}\n",
            YAFFS2_SEQ_WRITE_KBPS, YAFFS2_SEQ_READ_KBPS, YAFFS2_SEQ_PROGRAMS_PER_CHUNK,
            YAFFS2_SMALL_PROGRAMS, YAFFS2_SMALL_READS, YAFFS2_SMALL_US, YAFFS2_SMALL_KBPS,
            yaffs2_wa[0], yaffs2_wa[1], yaffs2_wa[2], yaffs2_overwrite_kBps[0],
            yaffs2_overwrite_kBps[1], yaffs2_overwrite_kBps[2], YAFFS2_MOUNT_CLEAN_MS,
            YAFFS2_MOUNT_CRASH_MS, YAFFS2_RAM_STATE_KB, YAFFS2_RAM_BIG_KB);
}

/* One group of bars: nandkit and YAFFS2 side by side. */
struct nk_svg_bar {
    char label[40];
    double nandkit, yaffs2;
};

void nk_fs_bench_write_svg(FILE *out, const struct nk_fs_bench_result *r)
{
    struct nk_svg_bar bars[NK_FS_BENCH_IO_SIZES * 2 + 1 + NK_FS_BENCH_FILLS];
    unsigned n = 0;
    for (unsigned i = 0; i < NK_FS_BENCH_IO_SIZES; i++) {
        snprintf(bars[n].label, sizeof bars[n].label, "write %u B", r->seq[i].io_size);
        bars[n].nandkit = r->seq[i].write_kBps;
        bars[n++].yaffs2 = YAFFS2_SEQ_WRITE_KBPS;
    }
    for (unsigned i = 0; i < NK_FS_BENCH_IO_SIZES; i++) {
        snprintf(bars[n].label, sizeof bars[n].label, "read %u B", r->seq[i].io_size);
        bars[n].nandkit = r->seq[i].read_kBps;
        bars[n++].yaffs2 = YAFFS2_SEQ_READ_KBPS;
    }
    snprintf(bars[n].label, sizeof bars[n].label, "1 KiB files");
    bars[n].nandkit = r->small_kBps;
    bars[n++].yaffs2 = YAFFS2_SMALL_KBPS;
    for (unsigned i = 0; i < NK_FS_BENCH_FILLS; i++) {
        snprintf(bars[n].label, sizeof bars[n].label, "4 KiB rand %u%%",
                 r->overwrite[i].fill_percent);
        bars[n].nandkit = r->overwrite[i].kBps;
        bars[n++].yaffs2 = yaffs2_overwrite_kBps[i];
    }
    /* A log axis over whole decades: the small-file and overwrite figures,
     * a twentieth of the sequential ones, stay readable beside them. */
    double max = r->raw_read_kBps, min = r->raw_write_kBps;
    for (unsigned i = 0; i < n; i++) {
        max = fmax(max, fmax(bars[i].nandkit, bars[i].yaffs2));
        if (bars[i].nandkit > 0)
            min = fmin(min, bars[i].nandkit);
        min = fmin(min, bars[i].yaffs2);
    }
    double lo = floor(log10(min > 0 ? min : 1)), hi = ceil(log10(max > 0 ? max : 10));
    if (hi <= lo)
        hi = lo + 1;
    const int left = 70, plot_w = 60 * (int)n, plot_h = 300, top_y = 40;
#define NK_SVG_Y(v)                                                                                \
    ((v) > 0 ? top_y + plot_h - (log10(v) - lo) / (hi - lo) * plot_h : top_y + plot_h)
    const int width = left + plot_w + 170, height = top_y + plot_h + 110;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n",
            width, height);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(out,
            "<text x=\"%d\" y=\"20\" font-size=\"14\">nandkit file system vs YAFFS2 Direct, "
            "simulated %s (virtual device time, CPU excluded)%s</text>\n",
            left, r->chip, r->small ? " - reduced sizes" : "");
    for (double decade = lo; decade < hi + 0.5; decade++) {
        for (int m = 1; m <= 5; m = m == 1 ? 2 : m + 3) { /* 1, 2, 5 per decade */
            double v = (double)m * pow(10, decade);
            if (log10(v) > hi + 1e-9)
                break;
            double y = NK_SVG_Y(v);
            fprintf(out,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>"
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
                    left, y, left + plot_w, y, m == 1 ? "#bbb" : "#eee", left - 5, y + 4, v);
        }
    }
    fprintf(out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n"
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
            left, top_y, left, top_y + plot_h, left, top_y + plot_h, left + plot_w, top_y + plot_h);
    fprintf(out,
            "<text x=\"15\" y=\"%d\" transform=\"rotate(-90 15 %d)\" text-anchor=\"middle\">"
            "throughput (kB/s, 1 kB = 1000 bytes; log scale)</text>\n",
            top_y + plot_h / 2, top_y + plot_h / 2);
    for (unsigned i = 0; i < n; i++) {
        int x = left + 60 * (int)i + 8;
        double yn = NK_SVG_Y(bars[i].nandkit), yy = NK_SVG_Y(bars[i].yaffs2);
        fprintf(out,
                "<rect x=\"%d\" y=\"%.1f\" width=\"20\" height=\"%.1f\" fill=\"#2a6fb0\"/>"
                "<rect x=\"%d\" y=\"%.1f\" width=\"20\" height=\"%.1f\" fill=\"#e08a2c\"/>\n",
                x, yn, top_y + plot_h - yn, x + 22, yy, top_y + plot_h - yy);
        fprintf(out,
                "<text x=\"%d\" y=\"%.1f\" font-size=\"8\" text-anchor=\"middle\">%.0f</text>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"8\" text-anchor=\"middle\">%.0f</text>\n",
                x + 10, yn - 3, bars[i].nandkit, x + 32, yy - 3, bars[i].yaffs2);
        fprintf(out, "<text x=\"%d\" y=\"%d\" transform=\"rotate(45 %d %d)\">%s</text>\n", x,
                top_y + plot_h + 14, x, top_y + plot_h + 14, bars[i].label);
    }
    double raw_y = NK_SVG_Y(r->raw_write_kBps), rawr_y = NK_SVG_Y(r->raw_read_kBps);
    fprintf(out,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#2a2\" "
            "stroke-dasharray=\"4 3\"/>\n<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
            "stroke=\"#a22\" stroke-dasharray=\"4 3\"/>\n",
            left, raw_y, left + plot_w, raw_y, left, rawr_y, left + plot_w, rawr_y);
    int lx = left + plot_w + 15;
    fprintf(out,
            "<rect x=\"%d\" y=\"50\" width=\"12\" height=\"12\" fill=\"#2a6fb0\"/>"
            "<text x=\"%d\" y=\"60\">nandkit</text>\n"
            "<rect x=\"%d\" y=\"70\" width=\"12\" height=\"12\" fill=\"#e08a2c\"/>"
            "<text x=\"%d\" y=\"80\">YAFFS2 Direct</text>\n"
            "<line x1=\"%d\" y1=\"96\" x2=\"%d\" y2=\"96\" stroke=\"#2a2\" "
            "stroke-dasharray=\"4 3\"/><text x=\"%d\" y=\"100\">raw page write</text>\n"
            "<line x1=\"%d\" y1=\"116\" x2=\"%d\" y2=\"116\" stroke=\"#a22\" "
            "stroke-dasharray=\"4 3\"/><text x=\"%d\" y=\"120\">raw page read</text>\n",
            lx, lx + 18, lx, lx + 18, lx, lx + 12, lx + 18, lx, lx + 12, lx + 18);
    fprintf(out,
            "<text x=\"%d\" y=\"140\" font-size=\"9\">YAFFS2: reference figures,</text>"
            "<text x=\"%d\" y=\"151\" font-size=\"9\">not measured by this run</text>\n",
            lx, lx);
    fprintf(out, "</svg>\n");
#undef NK_SVG_Y
}
