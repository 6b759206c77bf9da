/* SPDX-License-Identifier: MIT */
/*
 * Roots of the BCH error-locator polynomial, without a Chien search.
 *
 * A decode with v errors yields a locator of degree v whose roots are the
 * inverses of the error locations. Rather than evaluating it at every bit
 * position (a Chien search: thousands of evaluations per step), the roots
 * are found algebraically:
 *
 *  - degree 1: one division;
 *  - degree 2: the substitution x = (b/a) y turns it into y^2 + y = c, whose
 *    solution is linear in c and read from an m-entry table;
 *  - degrees 3 and 4: turned into an affine polynomial z^4 + b z^2 + c z = d
 *    (degree 3 by multiplying with (x + a), degree 4 by a shift that removes
 *    the linear term and an inversion). Its left side is GF(2)-linear in z,
 *    so the roots are the solutions of an m x m linear system over GF(2),
 *    solved by elimination on m-bit words;
 *  - degree 5 and up: the Berlekamp trace algorithm. With P_i = x^(2^i) mod f
 *    (m squarings modulo f, through a precomputed table of x^(2i) mod f),
 *    x^(2^m) = x mod f proves that f splits into distinct linear factors
 *    (otherwise the step is uncorrectable and we stop early). Then
 *    gcd(f, Tr(alpha^k x) mod f), Tr(alpha^k x) = sum alpha^(k 2^i) P_i,
 *    separates the roots by the trace of alpha^k r, k = 0, 1, ..., until
 *    every factor has degree 4 or less and falls to the cases above.
 *
 * The polynomial's roots are exact field elements; whether each maps to a
 * bit inside the step is the caller's business.
 */
#include <string.h>

#include "ecc/bch_internal.h"

/* (at least one 8-lane block) */
#define NK_POLY_MAX (2 * NK_BCH_T_MAX + 2 < 8 ? 8 : 2 * NK_BCH_T_MAX + 2)

unsigned nk_gf_trace(const struct nk_bch_tables *gf, unsigned a)
{
    unsigned sum = a, power = a;
    for (unsigned i = 1; i < gf->m; i++) {
        power = nk_gf_sqr(gf, power);
        sum ^= power;
    }
    return sum; /* 0 or 1 */
}

/* sqrt(a) = a^(2^(m-1)); in logs, half of log a modulo N (N is odd). */
static unsigned nk_gf_sqrt(const struct nk_bch_tables *gf, unsigned a)
{
    if (!a)
        return 0;
    unsigned l = gf->log[a];
    return gf->exp[(l & 1u) ? (l + gf->n) / 2u : l / 2u];
}

/* Index of the highest set bit of v != 0. */
static inline unsigned nk_highest_bit(unsigned v)
{
#if defined(__GNUC__)
    return 31u - (unsigned)__builtin_clz(v);
#else
    unsigned bit = 0;
    while (v >>= 1)
        bit++;
    return bit;
#endif
}

/* ----- degrees 1 and 2 ----------------------------------------------------- */

static unsigned nk_roots_deg1(const struct nk_bch_tables *gf, const uint16_t *p, uint16_t *roots)
{
    roots[0] = (uint16_t)nk_gf_div(gf, p[0], p[1]);
    return 1;
}

/* Solves y^2 + y = c; returns false when it has no solution (Tr(c) = 1). */
static bool nk_solve_quadratic(const struct nk_bch_tables *gf, unsigned c, unsigned *y)
{
    unsigned z = 0;
    for (unsigned k = 0, bits = c; bits; k++, bits >>= 1)
        if (bits & 1u)
            z ^= gf->quadratic[k];
    if ((nk_gf_sqr(gf, z) ^ z) != c)
        return false;
    *y = z;
    return true;
}

static unsigned nk_roots_deg2(const struct nk_bch_tables *gf, const uint16_t *p, uint16_t *roots)
{
    /* p2 x^2 + p1 x + p0 with x = (p1/p2) y: y^2 + y = p0 p2 / p1^2. A zero
     * p1 means a double root: not a valid error pattern. */
    if (!p[1])
        return 0;
    unsigned scale = nk_gf_div(gf, p[1], p[2]);
    unsigned c = nk_gf_div(gf, nk_gf_mul(gf, p[0], p[2]), nk_gf_sqr(gf, p[1]));
    unsigned y;
    if (!nk_solve_quadratic(gf, c, &y))
        return 0;
    roots[0] = (uint16_t)nk_gf_mul(gf, scale, y);
    roots[1] = (uint16_t)nk_gf_mul(gf, scale, y ^ 1u);
    return 2;
}

/* ----- affine quartics ----------------------------------------------------- */

/* Solves z^4 + b z^2 + c z = d over GF(2^m). The map is GF(2)-linear, so
 * its images of the basis alpha^0..alpha^(m-1) are reduced to an XOR basis
 * (remembering which inputs made each), giving the kernel and one particular
 * solution. Stores the solutions only when there are exactly four (a quartic
 * with four distinct roots) and returns how many there are (0 when none). */
static unsigned nk_solve_affine4(const struct nk_bch_tables *gf, unsigned b, unsigned c, unsigned d,
                                 unsigned solutions[4])
{
    /* Each row packs an image (high 16 bits) with the inputs that made it
     * (low 16 bits), so one XOR reduces both; basis[z] holds the row whose
     * leading zero count is z (image top bit 31 - z; 16 entries, z < 16). */
    uint32_t basis[16];
    uint32_t kernel[2];
    unsigned kernel_count = 0;
    unsigned m = gf->m;
    const uint16_t *exp_b = gf->exp + (b ? gf->log[b] : 0);
    const uint16_t *exp_c = gf->exp + (c ? gf->log[c] : 0);
    unsigned mask_b = b ? 0xffffu : 0u, mask_c = c ? 0xffffu : 0u;
    for (unsigned k = 0; k < 16; k++)
        basis[k] = 0;

    for (unsigned i = 0; i < m; i++) {
        unsigned image = gf->exp[4 * i] ^ (exp_b[2 * i] & mask_b) ^ (exp_c[i] & mask_c);
        uint32_t row = (uint32_t)image << 16 | 1u << i;
        for (;;) {
            if (row < 0x10000u) {
                if (kernel_count == 2)
                    return 0; /* more than four solutions: not a quartic's */
                kernel[kernel_count++] = row;
                break;
            }
            unsigned z = 31u - nk_highest_bit(row);
            uint32_t pivot = basis[z];
            if (!pivot) {
                basis[z] = row;
                break;
            }
            row ^= pivot;
        }
    }

    uint32_t row = (uint32_t)d << 16;
    while (row >= 0x10000u) {
        uint32_t pivot = basis[31u - nk_highest_bit(row)];
        if (!pivot)
            return 0; /* d is not in the image: no solution */
        row ^= pivot;
    }
    if (kernel_count != 2)
        return 1u << kernel_count;
    /* The input bits are the coordinates on the polynomial basis, i.e. the
     * field element itself. */
    unsigned particular = row & 0xffffu, k0 = kernel[0] & 0xffffu, k1 = kernel[1] & 0xffffu;
    solutions[0] = particular;
    solutions[1] = particular ^ k0;
    solutions[2] = particular ^ k1;
    solutions[3] = particular ^ k0 ^ k1;
    return 4;
}

static unsigned nk_roots_deg3(const struct nk_bch_tables *gf, const uint16_t *p, uint16_t *roots)
{
    /* Monic x^3 + a x^2 + b x + c times (x + a) is the affine quartic
     * x^4 + (a^2 + b) x^2 + (ab + c) x + ac; its roots are ours plus a. */
    unsigned a = nk_gf_div(gf, p[2], p[3]);
    unsigned b = nk_gf_div(gf, p[1], p[3]);
    unsigned c = nk_gf_div(gf, p[0], p[3]);
    unsigned z[4];
    if (nk_solve_affine4(gf, nk_gf_sqr(gf, a) ^ b, nk_gf_mul(gf, a, b) ^ c, nk_gf_mul(gf, a, c),
                         z) != 4)
        return 0;
    unsigned n = 0;
    for (unsigned i = 0; i < 4; i++)
        if (z[i] != a)
            roots[n++] = (uint16_t)z[i];
    return n == 3 ? 3u : 0u;
}

static unsigned nk_roots_deg4(const struct nk_bch_tables *gf, const uint16_t *p, uint16_t *roots)
{
    unsigned a = nk_gf_div(gf, p[3], p[4]);
    unsigned b = nk_gf_div(gf, p[2], p[4]);
    unsigned c = nk_gf_div(gf, p[1], p[4]);
    unsigned d = nk_gf_div(gf, p[0], p[4]);
    unsigned z[4];

    if (!a) {
        /* Already affine: x^4 + b x^2 + c x = d. */
        if (nk_solve_affine4(gf, b, c, d, z) != 4)
            return 0;
        for (unsigned i = 0; i < 4; i++)
            roots[i] = (uint16_t)z[i];
        return 4;
    }
    /* x = y + e with e^2 = c/a removes the linear term:
     * y^4 + a y^3 + (ae + b) y^2 + f(e). Then z = 1/y turns it into the
     * affine z^4 + (ae + b)/f(e) z^2 + a/f(e) z = 1/f(e). f(e) = 0 would
     * make y = 0 a double root. */
    unsigned e = nk_gf_sqrt(gf, nk_gf_div(gf, c, a));
    unsigned e2 = nk_gf_sqr(gf, e);
    unsigned fe = nk_gf_sqr(gf, e2) ^ nk_gf_mul(gf, a, nk_gf_mul(gf, e2, e)) ^
                  nk_gf_mul(gf, b, e2) ^ nk_gf_mul(gf, c, e) ^ d;
    if (!fe)
        return 0;
    unsigned big_b = nk_gf_mul(gf, a, e) ^ b;
    if (nk_solve_affine4(gf, nk_gf_div(gf, big_b, fe), nk_gf_div(gf, a, fe), nk_gf_inv(gf, fe),
                         z) != 4)
        return 0;
    for (unsigned i = 0; i < 4; i++)
        roots[i] = (uint16_t)(nk_gf_inv(gf, z[i]) ^ e); /* z != 0: the right side is not 0 */
    return 4;
}

static unsigned nk_roots_small(const struct nk_bch_tables *gf, const uint16_t *p, unsigned deg,
                               uint16_t *roots)
{
    switch (deg) {
    case 1:
        return nk_roots_deg1(gf, p, roots);
    case 2:
        return nk_roots_deg2(gf, p, roots);
    case 3:
        return nk_roots_deg3(gf, p, roots);
    case 4:
        return nk_roots_deg4(gf, p, roots);
    default:
        return 0;
    }
}

/* ----- polynomial helpers for the trace algorithm -------------------------- */

/* A polynomial over GF(2^m): c[0..deg]; the zero polynomial has deg 0 and
 * c[0] = 0. */
struct nk_poly {
    unsigned deg;
    uint16_t c[NK_POLY_MAX];
};

static void nk_poly_trim(struct nk_poly *p)
{
    while (p->deg > 0 && !p->c[p->deg])
        p->deg--;
}

static bool nk_poly_is_zero(const struct nk_poly *p)
{
    return p->deg == 0 && !p->c[0];
}

/* Logs of c[0..deg) (NK_LOG_ZERO for a zero); true when there is a zero. */
static NK_ALWAYS_INLINE bool nk_poly_logs(const struct nk_bch_tables *gf, const uint16_t *c,
                                          unsigned deg, uint16_t *out)
{
    const uint16_t *log = gf->log;
    unsigned marks = 0;
    for (unsigned j = 0; j < deg; j++) {
        out[j] = log[c[j]];
        marks |= out[j];
    }
    return (marks & 0x8000u) != 0;
}

/* c[0..deg) += alpha^l * (the polynomial with logs blog[0..deg)). */
static NK_ALWAYS_INLINE void nk_poly_addmul(const struct nk_bch_tables *gf, uint16_t *c,
                                            const uint16_t *blog, unsigned deg, unsigned l,
                                            bool has_zero)
{
    const uint16_t *exp = gf->exp + l;
    if (!has_zero) {
        for (unsigned j = 0; j < deg; j++)
            c[j] ^= exp[blog[j]];
    } else {
        for (unsigned j = 0; j < deg; j++)
            if (blog[j] != NK_LOG_ZERO)
                c[j] ^= exp[blog[j]];
    }
}

/* Log of top / lead, from the log of 1 / lead. */
static NK_ALWAYS_INLINE unsigned nk_log_quot(const struct nk_bch_tables *gf, unsigned top,
                                             unsigned inv_log)
{
    unsigned l = gf->log[top] + inv_log;
    return l >= gf->n ? l - gf->n : l;
}

/* a = a mod b, b not zero. */
static void nk_poly_mod(const struct nk_bch_tables *gf, struct nk_poly *a, const struct nk_poly *b)
{
    unsigned bd = b->deg;
    if (a->deg < bd)
        return;
    if (bd == 0) {
        a->deg = 0;
        a->c[0] = 0;
        return;
    }
    uint16_t blog[NK_POLY_MAX];
    bool has_zero = nk_poly_logs(gf, b->c, bd, blog);
    unsigned inv_log = gf->n - gf->log[b->c[bd]];
    for (unsigned k = a->deg; k >= bd; k--) {
        unsigned top = a->c[k];
        if (top)
            nk_poly_addmul(gf, a->c + (k - bd), blog, bd, nk_log_quot(gf, top, inv_log), has_zero);
    }
    a->deg = bd - 1;
    nk_poly_trim(a);
}

/* q = a / b (exact division expected, deg b >= 1); a is destroyed. */
static NK_NOINLINE void nk_poly_div(const struct nk_bch_tables *gf, struct nk_poly *a,
                                    const struct nk_poly *b, struct nk_poly *q)
{
    unsigned bd = b->deg;
    uint16_t blog[NK_POLY_MAX];
    bool has_zero = nk_poly_logs(gf, b->c, bd, blog);
    unsigned inv_log = gf->n - gf->log[b->c[bd]];
    q->deg = a->deg - bd;
    for (unsigned k = a->deg; k >= bd; k--) {
        unsigned top = a->c[k], coef = 0;
        if (top) {
            unsigned l = nk_log_quot(gf, top, inv_log);
            coef = gf->exp[l];
            nk_poly_addmul(gf, a->c + (k - bd), blog, bd, l, has_zero);
        }
        q->c[k - bd] = (uint16_t)coef;
    }
}

static void nk_poly_make_monic(const struct nk_bch_tables *gf, struct nk_poly *p)
{
    unsigned lead = p->c[p->deg];
    if (lead == 1)
        return;
    unsigned inv_log = gf->n - gf->log[lead];
    for (unsigned j = 0; j < p->deg; j++)
        if (p->c[j])
            p->c[j] = gf->exp[nk_log_quot(gf, p->c[j], inv_log)];
    p->c[p->deg] = 1;
}

/* gcd(a, b), made monic; works in place on both and returns whichever of
 * them holds the result. Out of line, like the division and the trace: their
 * work arrays stay off the stack of the splitting recursion. */
static NK_NOINLINE struct nk_poly *nk_poly_gcd(const struct nk_bch_tables *gf, struct nk_poly *a,
                                               struct nk_poly *b)
{
    while (!nk_poly_is_zero(b)) {
        nk_poly_mod(gf, a, b);
        struct nk_poly *t = a;
        a = b;
        b = t;
    }
    nk_poly_make_monic(gf, a);
    return a;
}

/* ----- Berlekamp trace algorithm ------------------------------------------- */

/* Polynomials modulo f of degree v are kept as v coefficient logs, with
 * NK_LOG_ZERO for a zero coefficient and a flag telling whether there is
 * any (rare: 1 in 2^m per coefficient), so the common loops need no test. */
struct nk_logpoly {
    uint16_t log[NK_BCH_LANES_MAX];
    bool has_zero;
};

struct nk_bta {
    const struct nk_bch_tables *gf;
    unsigned deg;      /* v = deg f */
    unsigned half;     /* ceil(v/2): x^(2i) needs reducing from i = half on */
    const uint16_t *f; /* monic f, f[v] = 1 (read while preparing only) */
    struct nk_logpoly square[NK_BCH_T_MAX / 2 + 1]; /* x^(2i) mod f, i >= half */
    struct nk_logpoly power[NK_BCH_M_MAX + 1];      /* x^(2^i) mod f */
    /* Tr(x) mod f = sum of power[1..m] (power[m] = power[0] = x), summed
     * by the squarings as they go */
    uint16_t trace0[NK_BCH_LANES_MAX];
};

/* Coefficient arrays are processed in blocks of 8 lanes so the hot loops
 * run unrolled; lanes at and above v hold log 0 and collect junk that
 * nothing reads. */
static inline unsigned nk_lanes(unsigned v)
{
    return (v + 7u) & ~7u;
}

/* out = logs of acc[0..v); acc's padding lanes are overwritten. */
static NK_ALWAYS_INLINE void nk_logpoly_from(const struct nk_bch_tables *gf, struct nk_logpoly *out,
                                             uint16_t *acc, unsigned v)
{
    const uint16_t *log = gf->log;
    unsigned lanes = nk_lanes(v), marks = 0;
    for (unsigned j = v; j < lanes; j++)
        acc[j] = 1; /* log 1 = 0 */
    for (unsigned j = 0; j < lanes; j += 8) {
        uint16_t *o = out->log + j;
        const uint16_t *a = acc + j;
        o[0] = log[a[0]];
        o[1] = log[a[1]];
        o[2] = log[a[2]];
        o[3] = log[a[3]];
        o[4] = log[a[4]];
        o[5] = log[a[5]];
        o[6] = log[a[6]];
        o[7] = log[a[7]];
        marks |= (unsigned)(o[0] | o[1] | o[2] | o[3] | o[4] | o[5] | o[6] | o[7]);
    }
    /* log[0] = NK_LOG_ZERO is the only value with bit 15 set */
    out->has_zero = (marks & 0x8000u) != 0;
}

/* acc += alpha^l * p (p in log form), over whole 8-lane blocks. */
static NK_ALWAYS_INLINE void nk_logpoly_addmul(const struct nk_bch_tables *gf, uint16_t *acc,
                                               const struct nk_logpoly *p, unsigned l, unsigned v)
{
    const uint16_t *exp = gf->exp + l;
    const uint16_t *log = p->log;
    if (!p->has_zero) {
        for (unsigned j = 0; j < nk_lanes(v); j += 8) {
            acc[j] ^= exp[log[j]];
            acc[j + 1] ^= exp[log[j + 1]];
            acc[j + 2] ^= exp[log[j + 2]];
            acc[j + 3] ^= exp[log[j + 3]];
            acc[j + 4] ^= exp[log[j + 4]];
            acc[j + 5] ^= exp[log[j + 5]];
            acc[j + 6] ^= exp[log[j + 6]];
            acc[j + 7] ^= exp[log[j + 7]];
        }
    } else {
        for (unsigned j = 0; j < v; j++)
            if (log[j] != NK_LOG_ZERO)
                acc[j] ^= exp[log[j]];
    }
}

static inline void nk_lanes_clear(uint16_t *acc, unsigned v)
{
    for (unsigned j = 0; j < nk_lanes(v); j += 8) {
        acc[j] = acc[j + 1] = acc[j + 2] = acc[j + 3] = 0;
        acc[j + 4] = acc[j + 5] = acc[j + 6] = acc[j + 7] = 0;
    }
}

/* Lanes of one 8-lane block, held in locals so that the compiler keeps them
 * in registers across the rows of a squaring. */
struct nk_lanes8 {
    unsigned a0, a1, a2, a3, a4, a5, a6, a7;
};

/* l8 += alpha^l * p[0..8) (p in log form, no zero coefficient). */
static NK_ALWAYS_INLINE void nk_lanes8_addmul(struct nk_lanes8 *l8, const uint16_t *exp,
                                              const uint16_t *log)
{
    l8->a0 ^= exp[log[0]];
    l8->a1 ^= exp[log[1]];
    l8->a2 ^= exp[log[2]];
    l8->a3 ^= exp[log[3]];
    l8->a4 ^= exp[log[4]];
    l8->a5 ^= exp[log[5]];
    l8->a6 ^= exp[log[6]];
    l8->a7 ^= exp[log[7]];
}

/* power[i + 1] = power[i]^2 mod f for i < m: squares each coefficient (the
 * Frobenius map has no cross terms) and folds the even powers at or above v
 * back with the table. The values (before their logs are taken) are also
 * summed into trace0, so that the sum of the powers x^(2^i) -- the trace of
 * x -- comes for free. */
static NK_NOINLINE void nk_bta_powers(struct nk_bta *bta)
{
    const struct nk_bch_tables *gf = bta->gf;
    unsigned v = bta->deg, n = gf->n, half = bta->half;
    const uint16_t *exp = gf->exp;
    uint16_t *sum = bta->trace0;
    for (unsigned j = 0; j < v; j++)
        sum[j] = 0;
    unsigned first = 0;
    if (v <= 8) {
        /* 5 <= v <= 8: x^2 and x^4 are below f's degree and x^8 = x^(2*4)
         * mod f is a table of its own (4 >= half): no squaring needed. */
        for (unsigned i = 1; i <= 2; i++) {
            struct nk_logpoly *p = &bta->power[i];
            for (unsigned j = 0; j < 8; j++)
                p->log[j] = (uint16_t)(j == (1u << i) || j >= v ? 0u : NK_LOG_ZERO);
            p->has_zero = true;
            sum[1u << i] = 1;
        }
        bta->power[3] = bta->square[4 - half];
        for (unsigned j = 0; j < v; j++) {
            unsigned l = bta->power[3].log[j];
            if (l != NK_LOG_ZERO)
                sum[j] ^= exp[l];
        }
        first = 3;
    }
    for (unsigned step = first; step < gf->m; step++) {
        const struct nk_logpoly *in = &bta->power[step];
        struct nk_logpoly *out = &bta->power[step + 1];
        uint16_t acc[NK_BCH_LANES_MAX];
        if (v <= 8) {
            /* One block (t <= 8, the common case): the lanes stay in registers. */
            struct nk_lanes8 r = {0, 0, 0, 0, 0, 0, 0, 0};
            unsigned l;
            /* x^(2i) for i < half lands on lane 2i < v: lanes 0, 2, 4, 6 */
            if ((l = in->log[0]) != NK_LOG_ZERO)
                r.a0 = exp[2u * l];
            if ((l = in->log[1]) != NK_LOG_ZERO)
                r.a2 = exp[2u * l];
            if ((l = in->log[2]) != NK_LOG_ZERO)
                r.a4 = exp[2u * l];
            if (half > 3 && (l = in->log[3]) != NK_LOG_ZERO)
                r.a6 = exp[2u * l];
            for (unsigned i = half; i < v; i++) {
                l = in->log[i];
                if (l == NK_LOG_ZERO)
                    continue;
                l *= 2u;
                if (l >= n)
                    l -= n;
                const struct nk_logpoly *q = &bta->square[i - half];
                if (!q->has_zero) {
                    nk_lanes8_addmul(&r, exp + l, q->log);
                } else {
                    for (unsigned j = 0; j < v; j++)
                        if (q->log[j] != NK_LOG_ZERO)
                            acc[j] = exp[l + q->log[j]];
                        else
                            acc[j] = 0;
                    r.a0 ^= acc[0];
                    r.a1 ^= acc[1];
                    r.a2 ^= acc[2];
                    r.a3 ^= acc[3];
                    r.a4 ^= acc[4];
                    r.a5 ^= v > 5 ? acc[5] : 0u;
                    r.a6 ^= v > 6 ? acc[6] : 0u;
                    r.a7 ^= v > 7 ? acc[7] : 0u;
                }
            }
            /* lanes at and above v: value 1 (log 0), never a zero's marker */
            if (v < 8) {
                r.a7 = 1;
                if (v < 7) {
                    r.a6 = 1;
                    if (v < 6)
                        r.a5 = 1;
                }
            }
            sum[0] ^= (uint16_t)r.a0;
            sum[1] ^= (uint16_t)r.a1;
            sum[2] ^= (uint16_t)r.a2;
            sum[3] ^= (uint16_t)r.a3;
            sum[4] ^= (uint16_t)r.a4;
            sum[5] ^= (uint16_t)r.a5;
            sum[6] ^= (uint16_t)r.a6;
            sum[7] ^= (uint16_t)r.a7;
            const uint16_t *log = gf->log;
            uint16_t *o = out->log;
            o[0] = log[r.a0];
            o[1] = log[r.a1];
            o[2] = log[r.a2];
            o[3] = log[r.a3];
            o[4] = log[r.a4];
            o[5] = log[r.a5];
            o[6] = log[r.a6];
            o[7] = log[r.a7];
            unsigned marks = (unsigned)(o[0] | o[1] | o[2] | o[3] | o[4] | o[5] | o[6] | o[7]);
            out->has_zero = (marks & 0x8000u) != 0;
            continue;
        } else {
            nk_lanes_clear(acc, v);
            for (unsigned i = 0; i < half; i++) {
                unsigned l = in->log[i];
                if (l != NK_LOG_ZERO)
                    acc[2 * i] ^= exp[2u * l];
            }
            for (unsigned i = half; i < v; i++) {
                unsigned l = in->log[i];
                if (l == NK_LOG_ZERO)
                    continue;
                l *= 2u;
                if (l >= n)
                    l -= n;
                nk_logpoly_addmul(gf, acc, &bta->square[i - half], l, v);
            }
        }
        for (unsigned j = 0; j < v; j++)
            sum[j] ^= acc[j];
        nk_logpoly_from(gf, out, acc, v);
    }
}

/* square[i - half] = x^(2i) mod f for half <= i < v, from x^v = f - x^v
 * (f monic) by repeated multiplication by x, in log form. */
static NK_NOINLINE void nk_bta_prepare(struct nk_bta *bta)
{
    const struct nk_bch_tables *gf = bta->gf;
    unsigned v = bta->deg;
    uint16_t cur[NK_BCH_LANES_MAX]; /* x^k mod f, starting at k = v */
    struct nk_logpoly flog = {{0}, false}; /* (filled below; the compiler cannot tell) */
    for (unsigned j = 0; j < v; j++)
        cur[j] = bta->f[j];
    nk_logpoly_from(gf, &flog, cur, v);
    bta->half = (v + 1) / 2;
    for (unsigned k = v;; k++) {
        /* (nk_logpoly_from only overwrites lanes at and above v) */
        if (!(k & 1u) && k / 2 >= bta->half)
            nk_logpoly_from(gf, &bta->square[k / 2 - bta->half], cur, v);
        if (k == 2 * v - 2)
            break;
        /* times x: shift up, fold the x^v term back with f */
        unsigned top = cur[v - 1];
        for (unsigned j = v - 1; j > 0; j--)
            cur[j] = cur[j - 1];
        cur[0] = 0;
        if (top)
            nk_logpoly_addmul(gf, cur, &flog, gf->log[top], v);
    }
}

/* out = Tr(alpha^k x) mod f, as a polynomial. Computed when asked (m
 * multiply-adds of a few lanes): no cache of traces on the stack. */
static NK_NOINLINE void nk_bta_trace(const struct nk_bta *bta, unsigned k, struct nk_poly *out)
{
    const struct nk_bch_tables *gf = bta->gf;
    unsigned v = bta->deg;
    out->deg = v - 1;
    if (k == 0) {
        memcpy(out->c, bta->trace0, v * sizeof bta->trace0[0]);
    } else if (NK_BCH_LANES_MAX == 8 || v <= 8) {
        /* x, x^2 and x^4 are monomials (v >= 5): alpha^(k 2^i) on lane 2^i */
        unsigned e = k, n = gf->n; /* log of alpha^(k 2^i) */
        struct nk_lanes8 r = {0, 0, 0, 0, 0, 0, 0, 0};
        r.a1 = gf->exp[e];
        e = 2 * e >= n ? 2 * e - n : 2 * e;
        r.a2 = gf->exp[e];
        e = 2 * e >= n ? 2 * e - n : 2 * e;
        r.a4 = gf->exp[e];
        e = 2 * e >= n ? 2 * e - n : 2 * e;
        for (unsigned i = 3; i < gf->m; i++) {
            const struct nk_logpoly *p = &bta->power[i];
            if (!p->has_zero) {
                nk_lanes8_addmul(&r, gf->exp + e, p->log);
            } else {
                uint16_t t[8] = {0};
                for (unsigned j = 0; j < v; j++)
                    if (p->log[j] != NK_LOG_ZERO)
                        t[j] = gf->exp[e + p->log[j]];
                r.a0 ^= t[0];
                r.a1 ^= t[1];
                r.a2 ^= t[2];
                r.a3 ^= t[3];
                r.a4 ^= t[4];
                r.a5 ^= t[5];
                r.a6 ^= t[6];
                r.a7 ^= t[7];
            }
            e *= 2u;
            if (e >= gf->n)
                e -= gf->n;
        }
        uint16_t *c = out->c;
        c[0] = (uint16_t)r.a0;
        c[1] = (uint16_t)r.a1;
        c[2] = (uint16_t)r.a2;
        c[3] = (uint16_t)r.a3;
        c[4] = (uint16_t)r.a4;
        c[5] = (uint16_t)r.a5;
        c[6] = (uint16_t)r.a6;
        c[7] = (uint16_t)r.a7;
    }
#if NK_BCH_LANES_MAX > 8 /* (with one block, v <= 8 always) */
    else {
        uint16_t t[NK_BCH_LANES_MAX];
        nk_lanes_clear(t, v);
        unsigned e = k; /* log of alpha^(k 2^i) */
        for (unsigned i = 0; i < gf->m; i++) {
            nk_logpoly_addmul(gf, t, &bta->power[i], e, v);
            e *= 2u;
            if (e >= gf->n)
                e -= gf->n;
        }
        memcpy(out->c, t, v * sizeof t[0]);
    }
#endif
    nk_poly_trim(out);
}

/* Roots of g, a monic factor of f, trying traces from alpha^k up; g is the
 * caller's and is used up. Each split recurses into the smaller factor (in
 * place: no copy per frame) and loops on the larger, so the recursion is at
 * most log2(t / 4) + 1 frames deep (the stack bound that
 * scripts/stack-report.sh checks). */
static unsigned nk_bta_split(const struct nk_bta *bta, struct nk_poly *g, unsigned k,
                             uint16_t *roots)
{
    const struct nk_bch_tables *gf = bta->gf;
    unsigned total = 0;
    while (g->deg > 4) {
        if (k >= gf->m)
            return total; /* cannot happen for distinct roots in the field */
        struct nk_poly a, b, q;
        nk_bta_trace(bta, k, &b);
        if (g->deg < bta->deg)
            nk_poly_mod(gf, &b, g);
        a = *g;
        struct nk_poly *h = nk_poly_gcd(gf, &a, &b);
        k++;
        if (h->deg == 0 || h->deg == g->deg)
            continue; /* alpha^(k-1) gives every root the same trace */
        struct nk_poly *dividend = h == &a ? &b : &a; /* the one h is not in */
        *dividend = *g;
        nk_poly_div(gf, dividend, h, &q);
        bool factor_smaller = h->deg <= q.deg;
        struct nk_poly *smaller = factor_smaller ? h : &q;
        unsigned want = smaller->deg;
        unsigned found = nk_bta_split(bta, smaller, k, roots + total);
        total += found;
        if (found != want)
            return total;
        *g = factor_smaller ? q : *h; /* the larger factor, untouched */
    }
    return total + (g->deg ? nk_roots_small(gf, g->c, g->deg, roots + total) : 0);
}

static unsigned nk_roots_bta(const struct nk_bch_tables *gf, const uint16_t *poly, unsigned deg,
                             uint16_t *roots)
{
    struct nk_poly f; /* monic; the splitting below uses it up */
    f.deg = deg;
    for (unsigned j = 0; j <= deg; j++)
        f.c[j] = (uint16_t)nk_gf_div(gf, poly[j], poly[deg]);
    struct nk_bta bta;
    bta.gf = gf;
    bta.deg = deg;
    bta.f = f.c;
    nk_bta_prepare(&bta);

    /* x^(2^i) mod f for i = 0..m; f splits into distinct linear factors
     * exactly when x^(2^m) = x mod f. */
    for (unsigned j = 0; j < nk_lanes(deg); j++) /* x: logs 0 for lane 1 and the padding */
        bta.power[0].log[j] = (uint16_t)(j == 1 || j >= deg ? 0u : NK_LOG_ZERO);
    bta.power[0].has_zero = true;
    nk_bta_powers(&bta);
    if (memcmp(bta.power[gf->m].log, bta.power[0].log, deg * sizeof f.c[0]) != 0)
        return 0;
    return nk_bta_split(&bta, &f, 0, roots);
}

unsigned nk_bch_find_roots(const struct nk_bch_tables *gf, const uint16_t *poly, unsigned deg,
                           uint16_t *roots)
{
    if (deg == 0 || !poly[deg] || !poly[0])
        return 0;
    if (deg <= 4)
        return nk_roots_small(gf, poly, deg, roots);
    return nk_roots_bta(gf, poly, deg, roots);
}
