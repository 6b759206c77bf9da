/* SPDX-License-Identifier: MIT */
/*
 * Internals of the software BCH codec shared by bch.c (tables, encoder,
 * syndromes, Berlekamp-Massey) and bch_roots.c (the root finder).
 */
#ifndef NK_ECC_BCH_INTERNAL_H
#define NK_ECC_BCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/ecc.h"

#if defined(__GNUC__)
#define NK_ALWAYS_INLINE inline __attribute__((always_inline))
#define NK_NOINLINE __attribute__((noinline))
#else
#define NK_ALWAYS_INLINE inline
#define NK_NOINLINE
#endif

/* Limits of this implementation. */
#define NK_BCH_M_MIN 9
#define NK_BCH_M_MAX 15
/* Largest strength; sizes the decoder's stack (docs/ecc.md). 8 unless the
 * build asks for more (-DNK_BCH_T_MAX=32, as CMake's host builds do): the
 * 2 560-byte stack budget of docs/porting.md holds at 8, not at 32. */
#ifndef NK_BCH_T_MAX
#define NK_BCH_T_MAX 8
#endif
/* Coefficient arrays of the root finder, in whole 8-lane blocks. */
#define NK_BCH_LANES_MAX ((NK_BCH_T_MAX + 7) & ~7)
#define NK_BCH_WORDS_MAX 8 /* 64-bit words of the largest code: 512 bits */

/* Everything nk_bch_init() builds, at the start of the caller's workspace;
 * the arrays follow it in the same workspace. */
struct nk_bch_tables {
    const uint16_t *exp; /* alpha^i for 0 <= i < 2N, so exp[log a + log b] needs no mod */
    const uint16_t *log; /* log[a] for 1 <= a <= N; log[0] = NK_LOG_ZERO */
    /* Encoder: `slices` tables (16, 8 or 1); slice s maps byte b to
     * b(x) * x^(8 * (slices - 1 - s) + ecc_bits) mod g(x), left-justified in
     * `words` 64-bit words, stored as encode[(s * words + w) * 256 + b] so
     * that each word is one indexed load, except two-word tables:
     * encode[(s * 256 + b) * 2 + w], a byte's two words adjacent (one vector
     * load; see nk_bch_at() in bch.c). The last 8 slices are the
     * slicing-by-8 tables, the last one the byte-at-a-time table. */
    const uint64_t *encode;
    /* Two-lane encoding of two-word codes (full tables only, else NULL): the
     * step's halves are fed as independent lanes and the first lane's
     * remainder is moved past the second half by combine[(j * 256 + b) * 2
     * + w] = (byte b at register byte j) * x^(8 * half) mod g(x). */
    const uint64_t *combine;
    unsigned half; /* bytes in each lane */
    /* Syndromes (full tables only), per odd j = 2i+1: `syndrome_divide`
     * [i][h] = h(x) * x^m mod m_j(x) for the top 8 bits h of a remainder, and
     * `syndrome_eval`[i] maps a remainder v(x) (low 8 bits, then the rest)
     * to v(alpha^j) * alpha^(-j*pad_bits). NULL in the small build unless
     * NK_BCH_SYNDROME_TABLES. */
    const uint16_t *syndrome_divide;
    const uint16_t *syndrome_eval;
    /* quadratic[k]: z with z^2 + z = alpha^k (+ w when Tr(alpha^k) = 1, w a
     * fixed element of trace 1), so that z^2 + z = c is solved by XORing the
     * entries of c's set bits whenever Tr(c) = 0. */
    uint16_t quadratic[NK_BCH_M_MAX];
    unsigned m;
    unsigned n; /* 2^m - 1 */
    unsigned words;
    unsigned slices;
    unsigned pad_bits;
};

/* log[0]: a marker above any real logarithm (< 2^15), so log-form code can
 * spot a zero coefficient by its top bit. Never index exp[] with it. */
#define NK_LOG_ZERO 0xffffu

#define NK_BCH_SYNDROME_EVAL_ENTRIES 384 /* 256 for bits 0..7, 128 for bits 8..14 */

static inline const struct nk_bch_tables *nk_bch_tables(const struct nk_bch *bch)
{
    return (const struct nk_bch_tables *)bch->tables;
}

/* Field arithmetic over GF(2^m) through the log/antilog tables. */
static inline unsigned nk_gf_mul(const struct nk_bch_tables *gf, unsigned a, unsigned b)
{
    return (a && b) ? gf->exp[gf->log[a] + gf->log[b]] : 0u;
}

/* a / b for b != 0. */
static inline unsigned nk_gf_div(const struct nk_bch_tables *gf, unsigned a, unsigned b)
{
    return a ? gf->exp[gf->log[a] + gf->n - gf->log[b]] : 0u;
}

static inline unsigned nk_gf_inv(const struct nk_bch_tables *gf, unsigned a)
{
    return gf->exp[gf->n - gf->log[a]];
}

static inline unsigned nk_gf_sqr(const struct nk_bch_tables *gf, unsigned a)
{
    return a ? gf->exp[2u * gf->log[a]] : 0u;
}

/* alpha^e for any e (reduced mod N). */
static inline unsigned nk_gf_pow(const struct nk_bch_tables *gf, unsigned long e)
{
    return gf->exp[e % gf->n];
}

/* Trace of a to GF(2): a + a^2 + a^4 + ... + a^(2^(m-1)). */
unsigned nk_gf_trace(const struct nk_bch_tables *gf, unsigned a);

/* Finds the roots of the polynomial poly[0] + poly[1] x + ... + poly[deg]
 * x^deg (poly[deg] != 0, poly[0] != 0) in GF(2^m), stores them in roots[]
 * and returns their number when the polynomial splits into `deg` distinct
 * linear factors; otherwise returns a smaller count (the caller treats any
 * count other than deg as uncorrectable). */
unsigned nk_bch_find_roots(const struct nk_bch_tables *gf, const uint16_t *poly, unsigned deg,
                           uint16_t *roots);

#endif
