/* SPDX-License-Identifier: MIT */
/*
 * The file-system benchmark behind `nandkit bench --fs`: workloads through
 * the nk_fs API on a simulated chip, measured in virtual device time (the
 * simulator's clock: bus cycles and array busy time; host CPU excluded) and
 * in flash operations counted by the simulator, beside the figures of
 * YAFFS2 Direct measured on the same chip model (docs/bench.md).
 */
#ifndef NK_FS_BENCH_H
#define NK_FS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nandkit/diag.h"

#define NK_FS_BENCH_IO_SIZES 4 /* write()/read() sizes of the sequential run */
#define NK_FS_BENCH_FILLS 3    /* random-overwrite fill levels */

struct nk_fs_bench_config {
    const char *chip;     /* simulator preset (K9F1G08U0A) */
    const char *big_chip; /* preset for the 100 MiB file when `chip` cannot hold it */
    bool small;           /* reduced sizes for a quick check: figures not comparable */
    uint64_t seed;
    bool progress; /* one progress line on stderr */
};

/* Flash operations counted by the simulator during one measurement. */
struct nk_fs_bench_ops {
    uint64_t programs;   /* page programs (cache programs included) */
    uint64_t page_reads; /* reads that transfer page data */
    uint64_t oob_reads;  /* reads of the spare area only */
    uint64_t erases;
    uint64_t time_ns; /* virtual device time */
};

struct nk_fs_bench_seq {
    uint32_t io_size;
    uint64_t bytes, chunks; /* file bytes, data chunks they fill */
    struct nk_fs_bench_ops write, read;
    double write_kBps, read_kBps; /* 1 kB = 1000 bytes */
    double programs_per_chunk, reads_per_chunk;
};

struct nk_fs_bench_overwrite {
    uint32_t fill_percent;
    uint64_t file_bytes, overwrites, user_chunks;
    struct nk_fs_bench_ops ops;
    double write_amplification; /* programs / user data chunks */
    double kBps;
    uint64_t gc_copies, gc_blocks;
};

struct nk_fs_bench_result {
    char chip[32];
    bool small;
    uint32_t page_size, chunk_bytes, pages_per_block, blocks;
    double raw_write_kBps, raw_read_kBps; /* one page at a time, data + OOB, ECC CPU excluded */
    double raw_program_us, raw_read_us;
    struct nk_fs_bench_seq seq[NK_FS_BENCH_IO_SIZES];
    uint32_t files, file_bytes; /* the many-small-files run */
    struct nk_fs_bench_ops small_ops;
    double small_programs_per_file, small_page_reads_per_file, small_us_per_file, small_kBps;
    struct nk_fs_bench_overwrite overwrite[NK_FS_BENCH_FILLS];
    /* Mount of `files` small files + one `mount_big_bytes` file. */
    uint64_t mount_big_bytes;
    struct nk_fs_bench_ops mount_clean, mount_crash;
    uint64_t ram_state_now, ram_state_peak; /* bytes, after mounting that state */
    char ram_big_chip[32];
    uint64_t ram_big_file_bytes, ram_big_now, ram_big_peak;
    /* Erase counts of every block of the file system's partition (from the
     * simulator) after the fullest overwrite run. */
    uint32_t erase_min, erase_max;
    double erase_mean, erase_stddev;
};

/* Runs every workload. Returns 0, or a negative NK_E* value with one line in
 * `why` (may be NULL). Takes seconds of host time (minutes at full
 * size); the figures do not depend on it. */
int nk_fs_bench_run(const struct nk_fs_bench_config *config, struct nk_fs_bench_result *result,
                    struct nk_diag *why);

void nk_fs_bench_print_table(FILE *out, const struct nk_fs_bench_result *result);
void nk_fs_bench_print_json(FILE *out, const struct nk_fs_bench_result *result);
/* A bar chart (kB/s, nandkit beside YAFFS2) with axes and units. */
void nk_fs_bench_write_svg(FILE *out, const struct nk_fs_bench_result *result);

/* ----- shared with bench_yaffs2 (bench/yaffs2/), the YAFFS2 column's source ----- */

struct nk_sim;
struct nk_sim_event;

/* Reads counted from the simulator's trace: a read starting at column
 * `page_size` or later moves the OOB only. */
struct nk_fs_bench_reads {
    uint32_t page_size;
    uint64_t page_reads, oob_reads;
};

/* The trace callback (nk_sim_trace_set) that counts them; `ctx` is a
 * struct nk_fs_bench_reads. */
void nk_fs_bench_count_reads(void *ctx, const struct nk_sim_event *event);

/* The counters now: the simulator's programs (cache programs included),
 * erases and clock, and the trace's reads. */
void nk_fs_bench_ops_now(struct nk_sim *sim, const struct nk_fs_bench_reads *reads,
                         struct nk_fs_bench_ops *ops);

/* `d` = `after` - `before`, field by field. */
void nk_fs_bench_ops_delta(struct nk_fs_bench_ops *d, const struct nk_fs_bench_ops *before,
                           const struct nk_fs_bench_ops *after);

/* kB/s (1 kB = 1000 bytes) of `bytes` in `ns` of virtual time; 0 for no time. */
double nk_fs_bench_kBps(uint64_t bytes, uint64_t ns);
double nk_fs_bench_ms(uint64_t ns);

/* The test data: `len` bytes of xorshift noise from `seed`. */
void nk_fs_bench_fill(uint8_t *buf, size_t len, uint64_t seed);

/* Where the piece of a file at byte `done` comes from in the test data (at
 * least 1 MiB of it): every file is written and checked by this rule. */
const uint8_t *nk_fs_bench_piece(const uint8_t *data, uint64_t done);

/* `"key": {"programs": ..., "time_ns": ...}` (docs/bench.md). */
void nk_fs_bench_json_ops(FILE *out, const char *key, const struct nk_fs_bench_ops *o);

#endif
