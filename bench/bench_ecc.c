/* SPDX-License-Identifier: MIT */
/*
 * ECC speed: nanoseconds per step, per 512 bytes, and MB/s for each software
 * scheme, calculate and correct (clean, 1 error, t errors), as medians over
 * many timed batches, plus the BCH table sizes. Figures only: nothing here
 * passes or fails.
 *
 *   bench_ecc [--runs N] [--batch N]      the table
 *   bench_ecc --calls N --scheme S --op O run one operation N times, untimed,
 *                                         for valgrind --tool=callgrind; the
 *                                         instructions per operation are
 *                                         (count(N) - count(0)) / N. See
 *                                         bench/ecc_callgrind.sh.
 *
 * Ops: calc, clean (correct with matching codes), correct1, correctT (t
 * errors in the data), flip1 and flipT (the error injection the correct ops
 * do before each call, done twice so the data stays clean: half of it is
 * subtracted from the correct figures).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

#define NK_BENCH_PATTERNS 64
#define NK_BENCH_MAX_STEP 1024

struct scheme {
    const char *name;
    unsigned step, t; /* t = 0: Hamming */
    bool sm_order;
};

/* Linux's figures beside these: bench_ecc_linux (bench/ecc-linux/). */
static const struct scheme schemes[] = {
    {"hamming256", 256, 0, false}, {"hamming512", 512, 0, false}, {"hamming512-sm", 512, 0, true},
    {"bch4-512", 512, 4, false},   {"bch8-512", 512, 8, false},   {"bch8-1024", 1024, 8, false},
    {"bch16-1024", 1024, 16, false},
};

#define NK_SCHEME_COUNT (sizeof schemes / sizeof schemes[0])

/* A ready-to-run scheme: the engine, clean data and its code, and error
 * patterns with the codes of the corrupted data. */
struct rig {
    const struct scheme *scheme;
    struct nk_ecc_engine engine;
    struct nk_bch bch;
    void *workspace;
    unsigned strength;
    uint8_t data[NK_BENCH_MAX_STEP];
    uint8_t good[NK_ECC_MAX_BYTES_PER_STEP];
    unsigned flips[NK_BENCH_PATTERNS][32]; /* bit positions in the data */
    uint8_t calc_one[NK_BENCH_PATTERNS][NK_ECC_MAX_BYTES_PER_STEP];
    uint8_t calc_t[NK_BENCH_PATTERNS][NK_ECC_MAX_BYTES_PER_STEP];
};

static uint64_t nk_bench_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void flip(uint8_t *data, const unsigned *bits, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        data[bits[i] >> 3] ^= (uint8_t)(1u << (bits[i] & 7));
}

static int rig_open(struct rig *rig, const struct scheme *s)
{
    memset(rig, 0, sizeof *rig);
    rig->scheme = s;
    if (s->t == 0) {
        if (nk_ecc_hamming_init(&rig->engine, s->step, s->sm_order))
            return -1;
    } else {
        unsigned m = s->step >= 1024 ? 14 : 13;
        size_t size = nk_bch_workspace_size(m, s->t, 0);
        rig->workspace = malloc(size);
        if (!rig->workspace || nk_bch_init(&rig->bch, s->step, s->t, 0, rig->workspace, size))
            return -1;
        nk_ecc_bch_engine_init(&rig->engine, &rig->bch);
    }
    rig->strength = rig->engine.strength;
    uint64_t seed = 0x6e616e646b6974ull; /* fixed: the figures must be comparable */
    for (unsigned i = 0; i < s->step; i++)
        rig->data[i] = (uint8_t)nk_bench_next(&seed);
    rig->engine.ops->calculate(&rig->engine, rig->data, rig->good);
    for (unsigned p = 0; p < NK_BENCH_PATTERNS; p++) {
        for (unsigned k = 0; k < rig->strength; k++) {
            unsigned bit;
            bool again;
            do {
                bit = (unsigned)(nk_bench_next(&seed) % (8u * s->step));
                again = false;
                for (unsigned q = 0; q < k; q++)
                    again |= rig->flips[p][q] == bit;
            } while (again);
            rig->flips[p][k] = bit;
        }
        uint8_t copy[NK_BENCH_MAX_STEP];
        memcpy(copy, rig->data, s->step);
        flip(copy, rig->flips[p], 1);
        rig->engine.ops->calculate(&rig->engine, copy, rig->calc_one[p]);
        memcpy(copy, rig->data, s->step);
        flip(copy, rig->flips[p], rig->strength);
        rig->engine.ops->calculate(&rig->engine, copy, rig->calc_t[p]);
    }
    return 0;
}

static void rig_close(struct rig *rig)
{
    free(rig->workspace);
}

enum op { OP_CALC, OP_CLEAN, OP_CORRECT1, OP_CORRECT_T, OP_FLIP1, OP_FLIP_T, OP_COUNT };

static const char *const op_names[OP_COUNT] = {"calc",     "clean", "correct1",
                                               "correctT", "flip1", "flipT"};

/* The algorithms are called directly (as bench_ecc_linux calls Linux's),
 * not through the engine's function pointers. */
static void rig_calculate(struct rig *rig, uint8_t *code)
{
    const struct scheme *s = rig->scheme;
    if (s->t == 0)
        nk_hamming_calculate(rig->data, s->step, s->sm_order, code);
    else
        nk_bch_calculate(&rig->bch, rig->data, code);
}

static int rig_correct(struct rig *rig, const uint8_t *calc)
{
    const struct scheme *s = rig->scheme;
    if (s->t == 0)
        return nk_hamming_correct(rig->data, s->step, s->sm_order, rig->good, calc);
    return nk_bch_correct(&rig->bch, rig->data, rig->good, calc, NULL);
}

/* Runs `op` `calls` times; returns a checksum so nothing is optimised away
 * and a wrong correction shows (the data must come back clean). One loop
 * per op keeps the harness's own cost per call to a few instructions. */
static unsigned run_op(struct rig *rig, enum op op, unsigned long calls)
{
    uint8_t code[NK_ECC_MAX_BYTES_PER_STEP];
    unsigned sum = 0, p = 0, t = rig->strength;
    switch (op) {
    case OP_CALC:
        for (unsigned long i = 0; i < calls; i++) {
            rig_calculate(rig, code);
            sum += code[0];
        }
        break;
    case OP_CLEAN:
        for (unsigned long i = 0; i < calls; i++)
            sum += (unsigned)rig_correct(rig, rig->good);
        break;
    case OP_CORRECT1:
    case OP_CORRECT_T:
        for (unsigned long i = 0; i < calls; i++) {
            unsigned count = op == OP_CORRECT1 ? 1 : t;
            flip(rig->data, rig->flips[p], count);
            sum +=
                (unsigned)rig_correct(rig, op == OP_CORRECT1 ? rig->calc_one[p] : rig->calc_t[p]);
            p = (p + 1) % NK_BENCH_PATTERNS;
        }
        break;
    case OP_FLIP1:
    case OP_FLIP_T:
        for (unsigned long i = 0; i < calls; i++) {
            unsigned count = op == OP_FLIP1 ? 1 : t;
            const uint8_t *calc = op == OP_FLIP1 ? rig->calc_one[p] : rig->calc_t[p];
            flip(rig->data, rig->flips[p], count);
            flip(rig->data, rig->flips[p], count);
            sum += rig->data[0] + calc[0];
            p = (p + 1) % NK_BENCH_PATTERNS;
        }
        break;
    default:
        break;
    }
    return sum;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median nanoseconds per call over `runs` batches of `batch` calls. */
static double time_op(struct rig *rig, enum op op, unsigned runs, unsigned batch,
                      unsigned *checksum)
{
    double samples[1001];
    if (runs > 1001)
        runs = 1001;
    *checksum += run_op(rig, op, batch); /* warm caches and tables */
    for (unsigned r = 0; r < runs; r++) {
        double start = now_ns();
        *checksum += run_op(rig, op, batch);
        samples[r] = (now_ns() - start) / batch;
    }
    qsort(samples, runs, sizeof samples[0], compare_double);
    return samples[runs / 2];
}

static void print_row(const char *scheme, const char *op, double ns_step, unsigned step)
{
    double ns_512 = ns_step * 512.0 / step;
    double mbs = step / ns_step * 1e3; /* bytes per ns = GB/s; x1000 = MB/s */
    printf("%-14s %-9s %10.1f %10.1f %10.0f\n", scheme, op, ns_step, ns_512, mbs);
}

static int table_mode(unsigned runs, unsigned batch)
{
    unsigned checksum = 0;
    printf("ECC speed: median of %u batches of %u calls; MB/s of data (Linux's beside these: "
           "bench_ecc_linux)\n\n",
           runs, batch);
    printf("%-14s %-9s %10s %10s %10s\n", "scheme", "op", "ns/step", "ns/512B", "MB/s");
    for (unsigned i = 0; i < NK_SCHEME_COUNT; i++) {
        const struct scheme *s = &schemes[i];
        struct rig *rig = malloc(sizeof *rig);
        if (!rig || rig_open(rig, s)) {
            fprintf(stderr, "bench_ecc: cannot set up %s\n", s->name);
            free(rig);
            return 1;
        }
        double calc = time_op(rig, OP_CALC, runs, batch, &checksum);
        double clean = time_op(rig, OP_CLEAN, runs, batch, &checksum);
        double flip1 = time_op(rig, OP_FLIP1, runs, batch, &checksum) / 2;
        double one = time_op(rig, OP_CORRECT1, runs, batch, &checksum) - flip1;
        print_row(s->name, "calc", calc, s->step);
        print_row(s->name, "clean", clean, s->step);
        print_row(s->name, "correct1", one, s->step);
        if (rig->strength > 1) {
            double flip_t = time_op(rig, OP_FLIP_T, runs, batch, &checksum) / 2;
            double many = time_op(rig, OP_CORRECT_T, runs, batch, &checksum) - flip_t;
            char label[16];
            snprintf(label, sizeof label, "correct%u", rig->strength);
            print_row(s->name, label, many, s->step);
        }
        rig_close(rig);
        free(rig);
    }

    printf("\nBCH workspace (bytes): full tables / NK_BCH_SMALL_TABLES / small with "
           "NK_BCH_SYNDROME_TABLES\n");
    static const unsigned ts[] = {4, 8, 16, 24, 32};
    for (unsigned m = 13; m <= 14; m++)
        for (unsigned i = 0; i < sizeof ts / sizeof ts[0]; i++)
            printf("  m=%u t=%-2u %8zu / %8zu / %8zu\n", m, ts[i],
                   nk_bch_workspace_size(m, ts[i], 0),
                   nk_bch_workspace_size(m, ts[i], NK_BCH_SMALL_TABLES),
                   nk_bch_workspace_size(m, ts[i], NK_BCH_SMALL_TABLES | NK_BCH_SYNDROME_TABLES));
    printf("(checksum %u)\n", checksum);
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_ecc [--runs N] [--batch N]\n"
                 "       bench_ecc --calls N --scheme S --op O   (for callgrind)\n"
                 "schemes:");
    for (unsigned i = 0; i < NK_SCHEME_COUNT; i++)
        fprintf(out, " %s", schemes[i].name);
    fprintf(out, "\nops:");
    for (unsigned i = 0; i < OP_COUNT; i++)
        fprintf(out, " %s", op_names[i]);
    fprintf(out, "\n");
}

int main(int argc, char **argv)
{
    unsigned runs = 51, batch = 2000;
    long calls = -1;
    const char *scheme_name = NULL, *op_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--runs") == 0 && value) {
            runs = (unsigned)strtoul(value, NULL, 0);
            i++;
        } else if (strcmp(arg, "--batch") == 0 && value) {
            batch = (unsigned)strtoul(value, NULL, 0);
            i++;
        } else if (strcmp(arg, "--calls") == 0 && value) {
            calls = strtol(value, NULL, 0);
            i++;
        } else if (strcmp(arg, "--scheme") == 0 && value) {
            scheme_name = value;
            i++;
        } else if (strcmp(arg, "--op") == 0 && value) {
            op_name = value;
            i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (runs == 0 || batch == 0) {
        fprintf(stderr, "bench_ecc: --runs and --batch must be positive\n");
        return 2;
    }
    if (calls < 0)
        return table_mode(runs, batch);

    const struct scheme *s = NULL;
    for (unsigned i = 0; i < NK_SCHEME_COUNT; i++)
        if (scheme_name && strcmp(scheme_name, schemes[i].name) == 0)
            s = &schemes[i];
    int op = -1;
    for (int i = 0; i < OP_COUNT; i++)
        if (op_name && strcmp(op_name, op_names[i]) == 0)
            op = i;
    if (!s || op < 0) {
        usage(stderr);
        return 2;
    }
    struct rig *rig = malloc(sizeof *rig);
    if (!rig || rig_open(rig, s)) {
        fprintf(stderr, "bench_ecc: cannot set up %s\n", s->name);
        return 1;
    }
    unsigned sum = run_op(rig, (enum op)op, (unsigned long)calls);
    printf("%s %s x%ld: checksum %u\n", s->name, op_names[op], calls, sum);
    rig_close(rig);
    free(rig);
    return 0;
}
