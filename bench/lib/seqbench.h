/* SPDX-License-Identifier: MIT */
/*
 * Sequential (multi-page) figures of `nandkit bench`: per-page time of the
 * multi-page paths on the simulator, beside the single-page datasheet limit
 * and the pipelined limit the datasheet allows for the configuration (one
 * chip with cache program / read cache / copy-back; two chips interleaved
 * on one bus), and the file system's sequential write and read on one chip
 * and on two. docs/bench.md gives the formulas.
 */
#ifndef NK_SEQBENCH_H
#define NK_SEQBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nkbench.h"

#define NK_SEQ_MAX_ROWS 16

struct nk_seq_row {
    char config[16];     /* "1 chip", "2 chips" */
    char op[24];         /* "program", "read", "page move", "fs write", "fs read" */
    char method[32];     /* the sequence the path used */
    double measured_us;  /* per page, virtual device time */
    double single_us;    /* single-page datasheet limit */
    double pipelined_us; /* pipelined datasheet limit (0: no pipelined sequence) */
};

struct nk_seq_result {
    char chip[32];
    char commands[80]; /* pipelined commands the preset supports */
    unsigned count;
    struct nk_seq_row rows[NK_SEQ_MAX_ROWS];
};

/* Runs the sequential figures for simulator preset `preset` (one block per
 * figure). Returns 0 or a negative NK_E* with a one-line reason in `why`. */
int nk_seq_bench_run(const char *preset, uint64_t seed, struct nk_seq_result *result,
                     struct nk_diag *why);

/* Prints the figures of `count` presets as a table. */
void nk_seq_bench_print(FILE *out, const struct nk_seq_result *results, unsigned count);

/* The same as one JSON document of the `nandkit bench` family
 * (docs/bench.md): "benchmark": "sequential". */
void nk_seq_bench_print_json(FILE *out, const struct nk_seq_result *results, unsigned count);

/* Runs and prints the figures of `preset`, or of every preset when NULL,
 * as a table or (json) a JSON document. */
int nk_seq_bench_report(FILE *out, const char *preset, uint64_t seed, bool json,
                        struct nk_diag *why);

#endif
