/* SPDX-License-Identifier: MIT */
/*
 * The page-level benchmarker behind `nandkit bench`: measures page read,
 * program, block erase and whole-block transfers through the public device
 * API, beside the datasheet limit, with a breakdown of where the time goes;
 * prints a table, JSON (docs/bench.md) or an SVG chart.
 */
#ifndef NK_BENCH_H
#define NK_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nandkit/nand.h"
#include "nandkit/sim.h"

/* The format of every `nandkit bench --json` document (page, compare,
 * sequential, fs: one family with "tool", "format" and "benchmark" at the
 * top; docs/bench.md). */
#define NK_BENCH_JSON_FORMAT 3

enum nk_bench_op {
    NK_BENCH_PAGE_READ,      /* data + OOB, with ECC */
    NK_BENCH_PAGE_READ_DATA, /* data only, with ECC */
    NK_BENCH_PAGE_READ_OOB,  /* OOB only */
    NK_BENCH_PAGE_PROGRAM,   /* data + OOB, with ECC */
    NK_BENCH_BLOCK_ERASE,
    NK_BENCH_BLOCK_READ,  /* every page of a block, data + OOB */
    NK_BENCH_BLOCK_WRITE, /* erase + program every page of a block */
    NK_BENCH_OP_COUNT
};

/* JSON key and table label of an op. */
const char *nk_bench_op_key(enum nk_bench_op op);
const char *nk_bench_op_label(enum nk_bench_op op);

/* One figure: statistics of the measured time per operation and where the
 * median went. Times in microseconds. The median is the figure: a host
 * hiccup during a few operations moves the mean, not the median. */
struct nk_bench_stat {
    unsigned count;
    double median_us, p99_us, min_us, max_us;
    double avg_us, stddev_us; /* the mean and its deviation: an extra, labelled as such */
    double noise_us;          /* half the interquartile range: how far one operation
                                 typically strays; differences between two runs
                                 smaller than their noises added are not attributed */
    double limit_us;          /* datasheet limit at the timing the chip runs (typical; 0 = none) */
    double limit_max_us;      /* the same at the datasheet's maximum tR/tPROG/tBERS */
    double array_us;          /* chip busy time (tR, tPROG, tBERS) per operation */
    double bus_us;            /* bus transfer + command/address cycles + delays per operation */
    double ecc_cpu_us;        /* ECC CPU time (calibrated: engine alone) */
    double other_cpu_us;      /* the rest of the median: library CPU incl. the port's data loop */
};

/* Where the device comes from, for the timing method. */
enum nk_bench_clock {
    NK_BENCH_CLOCK_SIM,  /* virtual device time + measured library CPU time */
    NK_BENCH_CLOCK_WALL, /* wall time (real hardware, /dev/mtdN) */
};

struct nk_spinand_part;

struct nk_bench_config {
    struct nk_nand *nand;
    struct nk_sim *sim; /* NK_BENCH_CLOCK_SIM: the simulator behind `nand` */
    enum nk_bench_clock clock;
    unsigned count;       /* page operations per page figure (>= 1) */
    unsigned block_count; /* operations per block figure (>= 1) */
    uint32_t first_block; /* blocks the benchmark may erase and write */
    uint32_t block_limit; /* how many from first_block (0 = to the end) */
    uint64_t seed;        /* test data */
    bool progress;        /* a progress line on stderr for runs over a second */
    /* Datasheet timing for the limits: the timing the simulator runs (its
     * preset's typical values), NULL = the identified chip's. */
    const struct nk_chip_timing *timing;
    /* The SPI-NAND part behind a device that does not show it (a Linux MTD
     * device: the kernel speaks the serial protocol): the limits are the
     * part's serial ones at `serial_width` data lines (0: 1) and its clock.
     * NULL: the device's own chip decides. */
    const struct nk_spinand_part *serial_part;
    unsigned serial_width;
    const char *label; /* for the progress line */
};

struct nk_bench_result {
    char chip[48];
    char ecc[24];
    char loop[12];
    char clock[8];              /* "sim" or "wall" */
    double ecc_page_read_us;    /* calibrated ECC CPU per page, read path */
    double ecc_page_program_us; /* calibrated ECC CPU per page, program path */
    struct nk_bench_stat ops[NK_BENCH_OP_COUNT];
    /* The data of one block read in sequence on a part with continuous
     * read (count 0 on other parts): page at a time (PAGE READ, tRD and a
     * read from cache per page, nk_nand_read_page) and in one continuous
     * stream (nk_nand_read_pages). Limits as in docs/bench.md. */
    struct nk_bench_stat seq_paged, seq_continuous;
};

/* The eCos library's datasheet limits (ecos-devel benchmark, 2009) for `info`, in microseconds:
 * read = tR + (cycles + bytes) x tRC, program = (cycles + bytes) x tWC +
 * tPROG, erase = tBERS + cycles x tWC, with cycles = command + address
 * cycles + confirm. Returns false when the chip has no timing data. */
bool nk_bench_limits(const struct nk_chip_info *info, double limits[NK_BENCH_OP_COUNT]);

/* The same limits at the datasheet's maximum array times (tR_max, tPROG_max,
 * tBERS_max; a missing maximum counts as the typical value). */
bool nk_bench_limits_max(const struct nk_chip_info *info, double limits[NK_BENCH_OP_COUNT]);

/* True when `a` and `b` (the same op of two runs) differ by more than their
 * measured noise. */
bool nk_bench_differs(const struct nk_bench_stat *a, const struct nk_bench_stat *b);

/* Runs every figure. Returns 0, or a negative NK_E* after writing a one-line
 * reason to `why`: no timing data, no usable block, an
 * I/O error. */
int nk_bench_run(const struct nk_bench_config *config, struct nk_bench_result *result,
                 struct nk_diag *why);

/* Output. `results` holds one run, or the matrix of --compare. */
void nk_bench_print_table(FILE *out, const struct nk_bench_result *results, unsigned count);
void nk_bench_print_compare(FILE *out, const struct nk_bench_result *results, unsigned count);
void nk_bench_print_json(FILE *out, const struct nk_bench_result *results, unsigned count);
void nk_bench_write_svg(FILE *out, const struct nk_bench_result *results, unsigned count);

#endif
