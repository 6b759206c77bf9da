/* SPDX-License-Identifier: MIT */
/*
 * nandkit's software ECC beside Linux's, in one binary: Linux's lib/bch.c,
 * ecc-sw-hamming.c and ecc-sw-bch.c are extracted from Debian's
 * linux-source package at build time and compiled in user space over the
 * shim headers in shim/ (bench/CMakeLists.txt). Three implementations run
 * side by side:
 *
 *   nandkit  the default build (64-bit Hamming, full BCH tables)
 *   small    the Cortex-M knobs: bytewise Hamming (NK_HAMMING_SMALL, a copy
 *            of src/ecc/hamming.c compiled into this program) and
 *            NK_BCH_SMALL_TABLES
 *   small+syn  the same with NK_BCH_SYNDROME_TABLES (the middle option;
 *            its Hamming is the bytewise one)
 *   linux    ecc_sw_hamming_calculate/correct, nand_ecc_sw_bch_calculate/
 *            correct
 *
 * What it does, in this order:
 *   1. checks: byte equality of the codes over many inputs (all-0xFF and
 *      all-0x00 steps first), identical return values and data for every
 *      error count up to t (errors in data and code), and the verdicts
 *      beyond t, which it reports (the only assert beyond t: a count that
 *      nandkit returns always leaves a codeword). Any mismatch up to t exits
 *      with status 1.
 *   2. instructions per operation: callgrind (the program runs itself under
 *      valgrind, collecting only inside the library entry points) when
 *      valgrind is found, else a note that they were not measured;
 *   3. nanoseconds per operation: medians of timed batches.
 * Timing and instruction counts never change the exit status.
 *
 *   bench_ecc_linux [--inputs N] [--patterns N] [--beyond N] [--calls N]
 *                   [--runs N] [--batch N] [--no-instructions] [--no-time]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

#include <linux/bch.h>
#include <linux/mtd/nand-ecc-sw-bch.h>
#include <linux/mtd/nand-ecc-sw-hamming.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define NK_HAVE_CALLGRIND 1
#endif
#endif
#ifndef NK_HAVE_CALLGRIND
#define NK_HAVE_CALLGRIND 0
#endif

#ifndef NK_LINUX_VERSION
#define NK_LINUX_VERSION "6.1"
#endif
#ifndef NK_BENCH_CFLAGS
#define NK_BENCH_CFLAGS ""
#endif

/* The bytewise Hamming of the small build, compiled from src/ecc/hamming.c
 * with NK_HAMMING_SMALL under these names. */
void nk_small_hamming_calculate(const uint8_t *data, unsigned step_size, bool sm_order,
                                uint8_t ecc[3]);
int nk_small_hamming_correct(uint8_t *data, unsigned step_size, bool sm_order,
                             const uint8_t read_ecc[3], const uint8_t calc_ecc[3]);

/* Entry points callgrind collects inside (nothing else counts). */
static const char *const measured[] = {
    "nk_hamming_calculate",     "nk_hamming_correct",         "nk_small_hamming_calculate",
    "nk_small_hamming_correct", "nk_bch_calculate",           "nk_bch_correct",
    "ecc_sw_hamming_calculate", "ecc_sw_hamming_correct",     "nand_ecc_sw_bch_calculate",
    "nand_ecc_sw_bch_correct",
};

enum impl { NK, SMALL, MID, LNX, IMPLS };
static const char *const impl_names[IMPLS] = {"nandkit", "small", "small+syn", "linux"};

struct scheme {
    const char *name;
    unsigned step, t; /* t = 0: Hamming */
    bool sm_order;
};

static const struct scheme schemes[] = {
    {"hamming256", 256, 0, false}, {"hamming256-sm", 256, 0, true},
    {"hamming512", 512, 0, false}, {"hamming512-sm", 512, 0, true},
    {"bch4-512", 512, 4, false},   {"bch8-512", 512, 8, false},
    {"bch8-1024", 1024, 8, false}, {"bch16-1024", 1024, 16, false},
};
#define NSCHEMES (sizeof schemes / sizeof schemes[0])

#define MAX_STEP 1024
#define MAX_CODE 64
#define PATTERNS 64

struct rig {
    const struct scheme *s;
    unsigned t;         /* strength: 1 for Hamming */
    unsigned code_len;  /* code bytes */
    unsigned code_bits; /* meaningful code bits (pad bits excluded) */
    struct nk_bch bch, bch_small, bch_mid;
    void *ws, *ws_small, *ws_mid;
    struct nand_device nand; /* Linux's engine */
};

static uint64_t rng_state = 0x6e616e646b6974ull;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rig_open(struct rig *r, const struct scheme *s)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->nand.mtd.writesize = 4096;
    r->nand.mtd.oobsize = s->t == 0 ? 128 : 224; /* sizes the engines accept */
    if (s->t == 0) {
        r->t = 1;
        r->code_len = 3;
        r->code_bits = 24;
        r->nand.ecc.user_conf.step_size = s->step;
        if (nand_ecc_sw_hamming_init_ctx(&r->nand))
            return -1;
        ((struct nand_ecc_sw_hamming_conf *)r->nand.ecc.ctx.priv)->sm_order = s->sm_order;
        return 0;
    }
    unsigned m = s->step >= 1024 ? 14 : 13;
    size_t size = nk_bch_workspace_size(m, s->t, 0);
    size_t small = nk_bch_workspace_size(m, s->t, NK_BCH_SMALL_TABLES);
    const unsigned mid_flags = NK_BCH_SMALL_TABLES | NK_BCH_SYNDROME_TABLES;
    size_t mid = nk_bch_workspace_size(m, s->t, mid_flags);
    r->ws = malloc(size);
    r->ws_small = malloc(small);
    r->ws_mid = malloc(mid);
    if (!r->ws || !r->ws_small || !r->ws_mid ||
        nk_bch_init(&r->bch, s->step, s->t, 0, r->ws, size) ||
        nk_bch_init(&r->bch_small, s->step, s->t, NK_BCH_SMALL_TABLES, r->ws_small, small) ||
        nk_bch_init(&r->bch_mid, s->step, s->t, mid_flags, r->ws_mid, mid))
        return -1;
    r->t = s->t;
    r->code_len = r->bch.ecc_bytes;
    r->code_bits = r->bch.ecc_bits;
    r->nand.ecc.user_conf.step_size = s->step;
    r->nand.ecc.user_conf.strength = s->t;
    if (nand_ecc_sw_bch_init_ctx(&r->nand))
        return -1;
    return 0;
}

static void rig_close(struct rig *r)
{
    if (r->s->t == 0)
        nand_ecc_sw_hamming_cleanup_ctx(&r->nand);
    else
        nand_ecc_sw_bch_cleanup_ctx(&r->nand);
    free(r->ws);
    free(r->ws_small);
    free(r->ws_mid);
}

static void calc(struct rig *r, enum impl which, const uint8_t *data, uint8_t *code)
{
    const struct scheme *s = r->s;
    switch (which) {
    case NK:
        if (s->t == 0)
            nk_hamming_calculate(data, s->step, s->sm_order, code);
        else
            nk_bch_calculate(&r->bch, data, code);
        break;
    case SMALL:
    case MID:
        if (s->t == 0)
            nk_small_hamming_calculate(data, s->step, s->sm_order, code);
        else
            nk_bch_calculate(which == MID ? &r->bch_mid : &r->bch_small, data, code);
        break;
    default:
        if (s->t == 0)
            ecc_sw_hamming_calculate(data, s->step, code, s->sm_order);
        else
            nand_ecc_sw_bch_calculate(&r->nand, data, code);
        break;
    }
}

/* errloc (BCH only, may be NULL): the positions the decoder reported. */
static int correct(struct rig *r, enum impl which, uint8_t *data, uint8_t *read_ecc,
                   uint8_t *calc_ecc, unsigned *errloc)
{
    const struct scheme *s = r->s;
    int ret;
    switch (which) {
    case NK:
        if (s->t == 0)
            return nk_hamming_correct(data, s->step, s->sm_order, read_ecc, calc_ecc);
        return nk_bch_correct(&r->bch, data, read_ecc, calc_ecc, errloc);
    case SMALL:
    case MID:
        if (s->t == 0)
            return nk_small_hamming_correct(data, s->step, s->sm_order, read_ecc, calc_ecc);
        return nk_bch_correct(which == MID ? &r->bch_mid : &r->bch_small, data, read_ecc,
                              calc_ecc, errloc);
    default:
        if (s->t == 0)
            return ecc_sw_hamming_correct(data, read_ecc, calc_ecc, s->step, s->sm_order);
        ret = nand_ecc_sw_bch_correct(&r->nand, data, read_ecc, calc_ecc);
        if (errloc && ret > 0)
            memcpy(errloc, ((struct nand_ecc_sw_bch_conf *)r->nand.ecc.ctx.priv)->errloc,
                   (size_t)ret * sizeof *errloc);
        return ret;
    }
}

/* ----- checks -------------------------------------------------------------- */

static void random_step(uint8_t *data, unsigned len, unsigned index)
{
    if (index == 0 || index == 1) {
        memset(data, index == 0 ? 0xff : 0x00, len);
        return;
    }
    for (unsigned i = 0; i < len; i += 8) {
        uint64_t v = rng();
        memcpy(data + i, &v, 8);
    }
    if (index % 4 == 2) /* mostly erased: a few zero bits in 0xFF */
        for (unsigned i = 0; i < len; i++)
            data[i] = (uint8_t)(data[i] | 0xf7u) & (uint8_t)(0xffu ^ (rng() % 61 == 0));
}

/* Flips bit `p` of data||code: data bits as errloc numbers them (byte p>>3,
 * mask 1 << (p & 7)), code bits most significant first. */
static void flip_bit(uint8_t *data, uint8_t *code, unsigned step, unsigned p)
{
    if (p < 8 * step)
        data[p >> 3] ^= (uint8_t)(1u << (p & 7));
    else {
        unsigned q = p - 8 * step;
        code[q / 8] ^= (uint8_t)(0x80u >> (q % 8));
    }
}

static unsigned popcount8(unsigned v)
{
    return (unsigned)__builtin_popcount(v & 0xffu);
}

static int check_codes(struct rig *r, unsigned inputs, unsigned long *compared)
{
    uint8_t data[MAX_STEP], code[IMPLS][MAX_CODE];
    for (unsigned i = 0; i < inputs; i++) {
        random_step(data, r->s->step, i);
        for (int k = 0; k < IMPLS; k++)
            calc(r, (enum impl)k, data, code[k]);
        for (int k = 0; k < LNX; k++)
            if (memcmp(code[k], code[LNX], r->code_len)) {
                printf("MISMATCH %s %s: input %u (%s) codes differ from Linux's\n", r->s->name,
                       impl_names[k], i, i == 0 ? "all 0xFF" : i == 1 ? "all 0x00" : "random");
                return 1;
            }
        (*compared)++;
    }
    return 0;
}

struct beyond {
    unsigned long patterns, same, both_refuse, nk_refuses, linux_refuses, differ;
    unsigned long linux_noncodeword, nk_noncodeword;
    unsigned linux_dist_min, linux_dist_max;
};

/* Distance between (data, code) as read and the codeword a decoder's output
 * re-encodes to; 0 when the output is not decoded. Also says whether the
 * output (data plus the code bits it reported) is a codeword. */
static unsigned reencoded_distance(struct rig *r, const uint8_t *read_data, const uint8_t *out,
                                   const uint8_t *read_code, const unsigned *errloc, int count,
                                   bool *codeword)
{
    uint8_t re[MAX_CODE], fixed[MAX_CODE];
    unsigned step = r->s->step, dist = 0;
    calc(r, NK, out, re);
    memcpy(fixed, read_code, r->code_len);
    for (int i = 0; i < count; i++)
        if (errloc[i] >= 8 * step) {
            unsigned q = errloc[i] - 8 * step; /* errloc numbering: byte q>>3, LSB-first */
            fixed[q >> 3] ^= (uint8_t)(1u << (q & 7));
        }
    unsigned pad = 8 * r->code_len - r->code_bits;
    *codeword = true;
    for (unsigned i = 0; i < r->code_len; i++) {
        unsigned mask = i + 1 == r->code_len ? (0xffu << pad) & 0xffu : 0xffu;
        dist += popcount8((unsigned)(re[i] ^ read_code[i]) & mask);
        if ((re[i] ^ fixed[i]) & mask)
            *codeword = false;
    }
    for (unsigned i = 0; i < step; i++)
        dist += popcount8(read_data[i] ^ out[i]);
    return dist;
}

static int check_corrections(struct rig *r, unsigned patterns, unsigned beyond_patterns,
                             unsigned long *checked, struct beyond *b)
{
    const struct scheme *s = r->s;
    unsigned step = s->step, nbits = 8 * step + r->code_bits;
    uint8_t data[MAX_STEP], stored[MAX_CODE];
    uint8_t rd[MAX_STEP], rcode[MAX_CODE], ccode[MAX_CODE];
    uint8_t out[IMPLS][MAX_STEP];
    unsigned pos[40], errloc[IMPLS][64];
    int ret[IMPLS];
    unsigned tmax = r->t + (s->t == 0 ? 2 : 2); /* two counts beyond t */
    b->linux_dist_min = ~0u;
    for (unsigned k = 1; k <= tmax; k++) {
        unsigned count = k <= r->t ? patterns : beyond_patterns;
        for (unsigned p = 0; p < count; p++) {
            random_step(data, step, p);
            calc(r, NK, data, stored);
            memcpy(rd, data, step);
            memcpy(rcode, stored, r->code_len);
            for (unsigned e = 0; e < k; e++) {
                bool again;
                do {
                    pos[e] = (unsigned)(rng() % nbits);
                    if (s->t && p % 2 == 0) /* half the patterns: data errors only */
                        pos[e] = (unsigned)(rng() % (8 * step));
                    again = false;
                    for (unsigned q = 0; q < e; q++)
                        again |= pos[q] == pos[e];
                } while (again);
                flip_bit(rd, rcode, step, pos[e]);
            }
            calc(r, NK, rd, ccode);
            for (int m = 0; m < IMPLS; m++) {
                uint8_t rc[MAX_CODE], cc[MAX_CODE];
                memcpy(out[m], rd, step);
                memcpy(rc, rcode, r->code_len);
                memcpy(cc, ccode, r->code_len);
                ret[m] = correct(r, (enum impl)m, out[m], rc, cc, s->t ? errloc[m] : NULL);
                if (ret[m] < 0)
                    ret[m] = -1;
            }
            if (k <= r->t) {
                (*checked)++;
                for (int m = 0; m < IMPLS; m++) {
                    bool ok = ret[m] == ret[LNX] && !memcmp(out[m], out[LNX], step);
                    /* Hamming: a code-bit error counts 1 and leaves the data */
                    bool right = ret[m] == (int)k && !memcmp(out[m], data, step);
                    if (!ok || !right) {
                        printf("MISMATCH %s %s: %u errors, pattern %u: returned %d (Linux %d), "
                               "data %s\n",
                               s->name, impl_names[m], k, p, ret[m], ret[LNX],
                               memcmp(out[m], data, step) ? "wrong" : "right");
                        return 1;
                    }
                }
                continue;
            }
            b->patterns++;
            if (s->t == 0) {
                /* Hamming's rules are Linux's exactly: the same verdict and
                 * the same (possibly wrong) "correction" beyond one error. */
                for (int m = 0; m < LNX; m++)
                    if (ret[m] != ret[LNX] || memcmp(out[m], out[LNX], step)) {
                        printf("MISMATCH %s %s: %u errors, pattern %u: returned %d, Linux %d\n",
                               s->name, impl_names[m], k, p, ret[m], ret[LNX]);
                        return 1;
                    }
                b->same++;
                continue;
            }
            for (int m = 0; m < LNX; m++) {
                bool codeword = true;
                if (ret[m] >= 0)
                    reencoded_distance(r, rd, out[m], rcode, errloc[m], ret[m], &codeword);
                if (!codeword) {
                    b->nk_noncodeword++;
                    printf("FAIL %s %s: %u errors, pattern %u: returned %d with a result that "
                           "is not a codeword\n",
                           s->name, impl_names[m], k, p, ret[m]);
                    return 1;
                }
            }
            for (int m = SMALL; m < LNX; m++)
                if (ret[m] != ret[NK] || memcmp(out[m], out[NK], step)) {
                    printf("MISMATCH %s: %s and full tables differ beyond t (%d, %d)\n", s->name,
                           impl_names[m], ret[m], ret[NK]);
                    return 1;
                }
            if (ret[LNX] >= 0) {
                bool codeword;
                unsigned d =
                    reencoded_distance(r, rd, out[LNX], rcode, errloc[LNX], ret[LNX], &codeword);
                if (!codeword || d > r->t) {
                    b->linux_noncodeword++;
                    if (d < b->linux_dist_min)
                        b->linux_dist_min = d;
                    if (d > b->linux_dist_max)
                        b->linux_dist_max = d;
                }
            }
            if (ret[NK] == ret[LNX] && !memcmp(out[NK], out[LNX], step))
                ret[NK] < 0 ? b->both_refuse++ : b->same++;
            else if (ret[NK] < 0)
                b->nk_refuses++;
            else if (ret[LNX] < 0)
                b->linux_refuses++;
            else
                b->differ++;
        }
    }
    return 0;
}

static int run_checks(unsigned inputs, unsigned patterns, unsigned beyond_patterns)
{
    printf("Checks: codes over %u inputs per scheme (all-0xFF, all-0x00, mostly-0xFF and "
           "random steps); %u patterns per error count up to t (errors in data and code); "
           "%u per count for t+1 and t+2\n\n",
           inputs, patterns, beyond_patterns);
    printf("%-14s %10s %12s  %s\n", "scheme", "codes", "corrections", "beyond t (t+1, t+2)");
    int status = 0;
    for (unsigned i = 0; i < NSCHEMES; i++) {
        struct rig r;
        if (rig_open(&r, &schemes[i])) {
            printf("FAIL %s: cannot set up\n", schemes[i].name);
            return 1;
        }
        unsigned long codes = 0, checked = 0;
        struct beyond b;
        memset(&b, 0, sizeof b);
        if (check_codes(&r, inputs, &codes) ||
            check_corrections(&r, patterns, beyond_patterns, &checked, &b)) {
            status = 1;
        } else if (schemes[i].t == 0) {
            printf("%-14s %10lu %12lu  %lu patterns: nandkit (both builds) = Linux in every "
                   "one\n",
                   schemes[i].name, codes, checked, b.patterns);
        } else {
            printf("%-14s %10lu %12lu  %lu patterns: same result %lu, both refuse %lu, only "
                   "nandkit refuses %lu, only Linux refuses %lu, other %lu\n",
                   schemes[i].name, codes, checked, b.patterns, b.same, b.both_refuse,
                   b.nk_refuses, b.linux_refuses, b.differ);
            if (b.linux_noncodeword)
                printf("%-14s %10s %12s  Linux returned a count with a result that is no "
                       "codeword within t in %lu (re-encoded, %u..%u bits from what was read)\n",
                       "", "", "", b.linux_noncodeword, b.linux_dist_min, b.linux_dist_max);
        }
        rig_close(&r);
        if (status)
            return status;
    }
    printf("\nok: the codes are byte-identical and every correction up to t is the same\n");
    return 0;
}

/* ----- operations for timing and counting --------------------------------- */

enum op { OP_CALC, OP_CLEAN, OP_FIX1, OP_FIXHALF, OP_FIXT, OPS };
static const char *const op_names[OPS] = {"calculate", "correct 0", "correct 1", "correct t/2",
                                          "correct t"};

struct bench_rig {
    struct rig r;
    uint8_t data[MAX_STEP], good[MAX_CODE];
    unsigned flips[PATTERNS][32];
    uint8_t calc_k[OPS][PATTERNS][MAX_CODE]; /* codes of the corrupted data */
};

static unsigned op_errors(const struct bench_rig *br, enum op op)
{
    switch (op) {
    case OP_FIX1:
        return 1;
    case OP_FIXHALF:
        return br->r.t / 2;
    case OP_FIXT:
        return br->r.t;
    default:
        return 0;
    }
}

static bool op_applies(const struct bench_rig *br, enum op op)
{
    if (br->r.s->t == 0)
        return op <= OP_FIX1;
    return op != OP_FIXHALF || br->r.t >= 4;
}

static void flip_data(uint8_t *data, const unsigned *bits, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        data[bits[i] >> 3] ^= (uint8_t)(1u << (bits[i] & 7));
}

static int bench_open(struct bench_rig *br, const struct scheme *s)
{
    if (rig_open(&br->r, s))
        return -1;
    uint64_t saved = rng_state;
    rng_state = 0x62656e6368ull; /* fixed data and patterns: comparable figures */
    for (unsigned i = 0; i < s->step; i++)
        br->data[i] = (uint8_t)rng();
    calc(&br->r, NK, br->data, br->good);
    for (unsigned p = 0; p < PATTERNS; p++) {
        for (unsigned k = 0; k < br->r.t; k++) {
            bool again;
            do {
                br->flips[p][k] = (unsigned)(rng() % (8u * s->step));
                again = false;
                for (unsigned q = 0; q < k; q++)
                    again |= br->flips[p][q] == br->flips[p][k];
            } while (again);
        }
        for (int op = OP_FIX1; op < OPS; op++) {
            uint8_t copy[MAX_STEP];
            memcpy(copy, br->data, s->step);
            flip_data(copy, br->flips[p], op_errors(br, (enum op)op));
            calc(&br->r, NK, copy, br->calc_k[op][p]);
        }
    }
    rng_state = saved;
    return 0;
}

/* Runs `op` `calls` times with implementation `which`; with `flip_only`
 * only the error injection (done twice, so the data stays clean). Returns
 * a checksum that also catches a wrong correction (data not restored). */
static unsigned run_op(struct bench_rig *br, enum impl which, enum op op, unsigned long calls,
                       bool flip_only)
{
    uint8_t code[MAX_CODE];
    unsigned sum = 0, p = 0, n = op_errors(br, op);
    if (op == OP_CALC) {
        for (unsigned long i = 0; i < calls; i++) {
            calc(&br->r, which, br->data, code);
            sum += code[0];
        }
        return sum;
    }
    for (unsigned long i = 0; i < calls; i++) {
        uint8_t *calc_code = op == OP_CLEAN ? br->good : br->calc_k[op][p];
        flip_data(br->data, br->flips[p], n);
        if (flip_only)
            flip_data(br->data, br->flips[p], n);
        else
            sum += (unsigned)correct(&br->r, which, br->data, br->good, calc_code, NULL);
        p = (p + 1) % PATTERNS;
    }
    return sum;
}

/* ----- instructions (callgrind) ------------------------------------------- */

static double instr[NSCHEMES][OPS][IMPLS];

/* Under valgrind: every (scheme, op, impl) as its own dump. */
static int callgrind_child(unsigned long calls)
{
#if NK_HAVE_CALLGRIND
    for (unsigned i = 0; i < NSCHEMES; i++) {
        struct bench_rig *br = malloc(sizeof *br);
        if (!br || bench_open(br, &schemes[i]))
            return 1;
        for (int op = 0; op < OPS; op++) {
            if (!op_applies(br, (enum op)op))
                continue;
            for (int k = 0; k < IMPLS; k++) {
                char label[64];
                snprintf(label, sizeof label, "nk:%u:%d:%d:%lu", i, op, k, calls);
                CALLGRIND_ZERO_STATS;
                run_op(br, (enum impl)k, (enum op)op, calls, false);
                CALLGRIND_DUMP_STATS_AT(label);
            }
        }
        rig_close(&br->r);
        free(br);
    }
    return 0;
#else
    (void)calls;
    return 1;
#endif
}

static bool run_callgrind(const char *self, unsigned long calls)
{
    char dir[] = "nk-ecc-callgrind-XXXXXX"; /* in the working directory, removed after */
    if (!NK_HAVE_CALLGRIND || !mkdtemp(dir))
        return false;
    char out[128], calls_text[32];
    snprintf(out, sizeof out, "--callgrind-out-file=%s/cg.out", dir);
    snprintf(calls_text, sizeof calls_text, "%lu", calls);
    const char *argv[32];
    char toggles[sizeof measured / sizeof measured[0]][64];
    unsigned argc = 0;
    argv[argc++] = "valgrind";
    argv[argc++] = "--tool=callgrind";
    argv[argc++] = "--collect-atstart=no";
    argv[argc++] = "--quiet";
    argv[argc++] = out;
    for (unsigned i = 0; i < sizeof measured / sizeof measured[0]; i++) {
        snprintf(toggles[i], sizeof toggles[i], "--toggle-collect=%s", measured[i]);
        argv[argc++] = toggles[i];
    }
    argv[argc++] = self;
    argv[argc++] = "--callgrind-child";
    argv[argc++] = calls_text;
    argv[argc] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execvp("valgrind", (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0;
    /* Each dump is cg.out.N with "desc: Trigger: Client Request: LABEL" and
     * "summary:" or "totals:" giving the instructions since the last dump. */
    unsigned found = 0;
    for (unsigned n = 1; ok && n <= NSCHEMES * OPS * IMPLS; n++) {
        char path[160], line[256];
        snprintf(path, sizeof path, "%s/cg.out.%u", dir, n);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        unsigned si = 0, calls_seen = 0;
        int op = -1, k = -1;
        unsigned long long total = 0;
        bool have_total = false;
        while (fgets(line, sizeof line, f)) {
            const char *at = strstr(line, "Client Request: nk:");
            if (at && sscanf(at, "Client Request: nk:%u:%d:%d:%u", &si, &op, &k, &calls_seen) != 4)
                op = -1;
            if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) {
                total = strtoull(strchr(line, ':') + 1, NULL, 10);
                have_total = true;
            }
        }
        fclose(f);
        remove(path);
        if (op >= 0 && op < OPS && k >= 0 && k < IMPLS && si < NSCHEMES && have_total &&
            calls_seen) {
            instr[si][op][k] = (double)total / calls_seen;
            found++;
        }
    }
    char path[160];
    snprintf(path, sizeof path, "%s/cg.out", dir);
    remove(path);
    rmdir(dir);
    return ok && found > 0;
}

/* ----- time ---------------------------------------------------------------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned checksum;

static double time_op(struct bench_rig *br, enum impl which, enum op op, unsigned runs,
                      unsigned batch, bool flip_only)
{
    double samples[201];
    if (runs > 201)
        runs = 201;
    checksum += run_op(br, which, op, batch, flip_only);
    for (unsigned i = 0; i < runs; i++) {
        double start = now_ns();
        checksum += run_op(br, which, op, batch, flip_only);
        samples[i] = (now_ns() - start) / batch;
    }
    qsort(samples, runs, sizeof samples[0], cmp_double);
    return samples[runs / 2];
}

static double ns[NSCHEMES][OPS][IMPLS];

static int run_times(unsigned runs, unsigned batch)
{
    for (unsigned i = 0; i < NSCHEMES; i++) {
        struct bench_rig *br = malloc(sizeof *br);
        if (!br || bench_open(br, &schemes[i]))
            return 1;
        for (int op = 0; op < OPS; op++) {
            if (!op_applies(br, (enum op)op))
                continue;
            double inject = op == OP_CALC ? 0 : time_op(br, NK, (enum op)op, runs, batch, true) / 2;
            for (int k = 0; k < IMPLS; k++) {
                double v = time_op(br, (enum impl)k, (enum op)op, runs, batch, false) - inject;
                ns[i][op][k] = v > 0 ? v : 0;
            }
        }
        rig_close(&br->r);
        free(br);
    }
    return 0;
}

/* ----- report -------------------------------------------------------------- */

static void machine(char *out, size_t size)
{
    snprintf(out, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) {
            const char *v = strchr(line, ':');
            if (v) {
                v += 2;
                snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
            }
            break;
        }
    fclose(f);
}

static void print_table(const char *title, double (*v)[OPS][IMPLS], const char *unit)
{
    printf("\n%s\n", title);
    printf("%-14s %-12s %9s %9s %9s %9s %9s %9s %9s\n", "scheme", "operation", "nandkit", "small",
           "small+syn", "linux", "linux/nk", "linux/sm", "linux/s+s");
    for (unsigned i = 0; i < NSCHEMES; i++) {
        for (int op = 0; op < OPS; op++) {
            if (v[i][op][LNX] <= 0 && v[i][op][NK] <= 0)
                continue;
            char label[24];
            unsigned t = schemes[i].t ? schemes[i].t : 1;
            if (op >= OP_FIX1)
                snprintf(label, sizeof label, "correct %u",
                         op == OP_FIX1 ? 1 : op == OP_FIXHALF ? t / 2 : t);
            else
                snprintf(label, sizeof label, "%s", op_names[op]);
            int digits = unit[0] == 'i' ? 0 : 1;
            printf("%-14s %-12s %9.*f %9.*f %9.*f %9.*f", schemes[i].name, label, digits,
                   v[i][op][NK], digits, v[i][op][SMALL], digits, v[i][op][MID], digits,
                   v[i][op][LNX]);
            for (int k = NK; k < LNX; k++)
                printf(" %8.2fx", v[i][op][k] > 0 ? v[i][op][LNX] / v[i][op][k] : 0);
            printf("\n");
        }
    }
}

int main(int argc, char **argv)
{
    unsigned inputs = 20000, patterns = 2000, beyond_patterns = 5000, runs = 21, batch = 500;
    unsigned long calls = 256;
    bool instructions = true, times = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long n = v ? strtoul(v, NULL, 0) : 0;
        if (!strcmp(a, "--callgrind-child") && v)
            return callgrind_child(n);
        if (!strcmp(a, "--no-instructions"))
            instructions = false;
        else if (!strcmp(a, "--no-time"))
            times = false;
        else if (v && n && !strcmp(a, "--inputs"))
            inputs = (unsigned)n, i++;
        else if (v && n && !strcmp(a, "--patterns"))
            patterns = (unsigned)n, i++;
        else if (v && !strcmp(a, "--beyond"))
            beyond_patterns = (unsigned)n, i++;
        else if (v && n && !strcmp(a, "--calls"))
            calls = n, i++;
        else if (v && n && !strcmp(a, "--runs"))
            runs = (unsigned)n, i++;
        else if (v && n && !strcmp(a, "--batch"))
            batch = (unsigned)n, i++;
        else {
            fprintf(stderr,
                    "bench_ecc_linux: bad argument '%s'\nusage: bench_ecc_linux [--inputs N] "
                    "[--patterns N] [--beyond N] [--calls N] [--runs N] [--batch N] "
                    "[--no-instructions] [--no-time]\n",
                    a);
            return 2;
        }
    }
    char cpu[128];
    machine(cpu, sizeof cpu);
    printf("nandkit software ECC beside Linux %s (lib/bch.c, ecc-sw-hamming.c, ecc-sw-bch.c "
           "built in user space)\ncompiler: %s, flags: %s\nmachine: %s, %ld CPUs online\n\n",
           NK_LINUX_VERSION, __VERSION__, NK_BENCH_CFLAGS, cpu, sysconf(_SC_NPROCESSORS_ONLN));
    if (run_checks(inputs, patterns, beyond_patterns))
        return 1;

    if (instructions) {
        char self[512];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len > 0) {
            self[len] = 0;
            if (run_callgrind(self, calls)) {
                char title[160];
                snprintf(title, sizeof title,
                         "Instructions per step (callgrind, inside the library entry points, "
                         "mean over %lu calls)",
                         calls);
                print_table(title, instr, "i");
            } else
                printf("\nInstructions: not measured (valgrind with callgrind not found or "
                       "failed)\n");
        }
    }
    if (times) {
        if (run_times(runs, batch))
            return 1;
        char title[160];
        snprintf(title, sizeof title,
                 "Nanoseconds per step (median of %u batches of %u calls; error injection "
                 "subtracted)",
                 runs, batch);
        print_table(title, ns, "ns");
        printf("(checksum %u)\n", checksum);
    }
    return 0;
}
