/* SPDX-License-Identifier: MIT */
/*
 * Software BCH, byte-compatible with Linux's NAND software BCH engine
 * (nand_ecc_sw_bch_calculate/correct over lib/bch with its defaults).
 *
 * Code: binary BCH over GF(2^m) with Linux's default primitive polynomial
 * for m (0x201b for m=13, 0x402b for m=14), generator g(x) = lcm of the
 * minimal polynomials of alpha^1..alpha^2t. The data bytes are the message
 * polynomial, first byte's most significant bit highest; the code is the
 * remainder data(x) x^deg(g) mod g(x), stored most significant bit first and
 * left-justified (the unused low "pad" bits of the last byte are 0), then
 * XORed with the erased mask ~code(0xFF...) so that an erased step's code
 * is all 0xFF.
 *
 * Encoder: the remainder lives left-justified in W 64-bit words. Eight data
 * bytes at a time are XORed into the top word, and the eight bytes of the
 * result index eight 256-entry tables ("slicing by 8") whose entries are the
 * byte's contribution to the remainder 64 bits later. The small build keeps
 * only the last table and goes a byte at a time.
 *
 * Decoder: a step whose stored and computed codes agree (pad bits aside) is
 * clean after one compare. Otherwise the odd syndromes S_j = r(alpha^j) of
 * the code difference r(x) are found by reducing r modulo the minimal
 * polynomial of alpha^j with a byte-wise table and evaluating the m-bit
 * remainder with two table lookups; even ones are squares. Berlekamp-Massey
 * (Berlekamp's binary form, the same recurrence as lib/bch so that even
 * beyond-t patterns give the same verdict) yields the error locator, whose
 * roots come from bch_roots.c. See docs/ecc.md.
 */
#include <string.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

#include "ecc/bch_internal.h"

/* Linux's default primitive polynomials for m = 9..15 (lib/bch.c). */
static const uint16_t nk_bch_primitive[NK_BCH_M_MAX - NK_BCH_M_MIN + 1] = {
    0x211, 0x409, 0x805, 0x1053, 0x201b, 0x402b, 0x8003,
};

static size_t nk_align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Checks (m, t) and reports the code's 64-bit word count; false when this
 * implementation does not support them. Every odd j < 2t must have its own
 * cyclotomic coset of full size m, so that deg g = m t and each syndrome
 * S_j has a degree-m minimal polynomial. */
static bool nk_bch_params(unsigned m, unsigned t, unsigned *words)
{
    if (m < NK_BCH_M_MIN || m > NK_BCH_M_MAX || t < 1 || t > NK_BCH_T_MAX)
        return false;
    if (m * t > 8u * NK_ECC_MAX_BYTES_PER_STEP)
        return false;
    unsigned n = (1u << m) - 1u;
    for (unsigned j = 1; j < 2 * t; j += 2) {
        unsigned e = j;
        for (unsigned k = 1; k <= m; k++) {
            e = (2u * e) % n;
            if (e == j && k < m)
                return false; /* coset smaller than m */
            if ((e & 1u) && e < 2 * t && e != j)
                return false; /* two odd j share a coset */
        }
    }
    *words = (m * t + 63u) / 64u;
    return true;
}

/* Encoder tables: 16 slices for one-word codes (16 bytes a round), 8 for
 * longer ones (the larger tables would not stay in a 32-48 KiB L1 cache),
 * 1 (byte at a time) with small tables. */
static unsigned nk_bch_slices(unsigned words, unsigned flags)
{
    if (flags & NK_BCH_SMALL_TABLES)
        return 1;
    return words == 1 ? 16u : 8u;
}

/* Two-word codes (t <= 9 at m = 13, t <= 9 at m = 14) are latency bound on
 * one register: with full tables they are fed as two lanes. */
static bool nk_bch_two_lanes(unsigned words, unsigned flags)
{
    return words == 2 && !(flags & NK_BCH_SMALL_TABLES);
}

/* The syndrome tables: with full tables, or asked for beside small ones. */
static bool nk_bch_syndrome_tables(unsigned flags)
{
    return !(flags & NK_BCH_SMALL_TABLES) || (flags & NK_BCH_SYNDROME_TABLES);
}

size_t nk_bch_workspace_size(unsigned m, unsigned t, unsigned flags)
{
    unsigned words;
    if (!nk_bch_params(m, t, &words))
        return 0;
    size_t n = ((size_t)1 << m) - 1u;
    size_t slices = nk_bch_slices(words, flags);
    size_t size = 8u; /* slack to align the caller's pointer */
    size += nk_align8(sizeof(struct nk_bch_tables));
    size += slices * 256u * words * sizeof(uint64_t);
    size += nk_align8(2u * n * sizeof(uint16_t));
    size += nk_align8((n + 1u) * sizeof(uint16_t));
    if (nk_bch_syndrome_tables(flags))
        size += nk_align8((size_t)t * (256u + NK_BCH_SYNDROME_EVAL_ENTRIES) * sizeof(uint16_t));
    if (nk_bch_two_lanes(words, flags))
        size += (size_t)((m * t + 7u) / 8u) * 256u * 2u * sizeof(uint64_t);
    return size;
}

/* ----- encoder ------------------------------------------------------------- */

static inline uint64_t nk_load_be64(const uint8_t *p)
{
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
           (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
           (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

/* Complete unrolling of the short fixed loops below keeps the register in
 * CPU registers; gcc -O2 would otherwise leave them rolled. */
#if defined(__GNUC__)
#define NK_UNROLL _Pragma("GCC unroll 8")
#else
#define NK_UNROLL
#endif
/* An empty asm that "changes" x: the compiler must keep x as computed, so
 * it cannot re-associate the XOR tree below into one long chain. */
#if defined(__GNUC__)
#define NK_OPAQUE(x) __asm__("" : "+r"(x))
#else
#define NK_OPAQUE(x) ((void)0)
#endif

/* Two code words as one value: where the compiler has GNU vector types and
 * the target vector registers (SSE2 on x86-64, NEON), a two-word table entry
 * is one 16-byte load and XOR. Elsewhere (Cortex-M) plain words. */
#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__))
#define NK_BCH_VECTORS 1
typedef uint64_t nk_bch_v2 __attribute__((vector_size(16)));

static NK_ALWAYS_INLINE nk_bch_v2 nk_bch_load2(const uint64_t *p)
{
    nk_bch_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
#else
#define NK_BCH_VECTORS 0
#endif

/* Index of word w of byte b's entry within a slice of a W-word table. Two-
 * word tables are byte-major (a byte's two words adjacent: one vector load
 * in the two-lane encoder), the others word-major (each word's column one
 * indexed load with a fixed offset). */
static NK_ALWAYS_INLINE size_t nk_bch_at(size_t b, unsigned w, unsigned W)
{
    return W == 2 ? b * 2u + w : (size_t)w * 256u + b;
}

/* Feeds `len` message bytes into the remainder register (W words, W a
 * compile-time constant at each expansion). */
/* The eight bytes of a 64-bit chunk, top byte first, as table indexes. */
struct nk_bch_bytes {
    size_t b[8];
};

static NK_ALWAYS_INLINE struct nk_bch_bytes nk_bch_split(uint64_t v)
{
    struct nk_bch_bytes x;
    x.b[0] = (size_t)(v >> 56);
    x.b[1] = (size_t)(v >> 48) & 0xffu;
    x.b[2] = (size_t)(v >> 40) & 0xffu;
    x.b[3] = (size_t)(v >> 32) & 0xffu;
    x.b[4] = (size_t)(v >> 24) & 0xffu;
    x.b[5] = (size_t)(v >> 16) & 0xffu;
    x.b[6] = (size_t)(v >> 8) & 0xffu;
    x.b[7] = (size_t)v & 0xffu;
    return x;
}

/* The XOR of the entries the eight bytes select in eight consecutive slices
 * starting at `tab`, word w. A balanced tree: the next round waits on this
 * result, so its dependency chain is kept short. */
static NK_ALWAYS_INLINE uint64_t nk_bch_slices8(const uint64_t *tab, const struct nk_bch_bytes *x,
                                                unsigned w, const unsigned W)
{
    const size_t slice = 256u * W;
    uint64_t x01 = tab[nk_bch_at(x->b[0], w, W)] ^ tab[slice + nk_bch_at(x->b[1], w, W)];
    uint64_t x23 = tab[2 * slice + nk_bch_at(x->b[2], w, W)] ^
                   tab[3 * slice + nk_bch_at(x->b[3], w, W)];
    uint64_t x45 = tab[4 * slice + nk_bch_at(x->b[4], w, W)] ^
                   tab[5 * slice + nk_bch_at(x->b[5], w, W)];
    uint64_t x67 = tab[6 * slice + nk_bch_at(x->b[6], w, W)] ^
                   tab[7 * slice + nk_bch_at(x->b[7], w, W)];
    if (w == 0) {
        /* only the top word feeds the next round's lookups */
        NK_OPAQUE(x01);
        NK_OPAQUE(x23);
        NK_OPAQUE(x45);
        NK_OPAQUE(x67);
    }
    return (x01 ^ x23) ^ (x45 ^ x67);
}

static NK_ALWAYS_INLINE void nk_bch_feed_w(const struct nk_bch_tables *tb, uint64_t *state,
                                           const uint8_t *data, size_t len, const unsigned W)
{
    uint64_t r[NK_BCH_WORDS_MAX] = {0};
    size_t i = 0;
    if (W < 1 || W > NK_BCH_WORDS_MAX)
        return; /* never: tells the compiler the bounds */
    NK_UNROLL
    for (unsigned w = 0; w < W; w++)
        r[w] = state[w];
    const size_t slice = 256u * W;
    if (W == 1 && tb->slices == 16) {
        /* A one-word remainder (t <= 4) is consumed whole by the first 8
         * bytes of a 16-byte round; the other 8 bytes' lookups do not wait
         * on it, so a round costs the latency of an 8-byte one. */
        const uint64_t *tab = tb->encode;
        for (; i + 16 <= len; i += 16) {
            struct nk_bch_bytes x0 = nk_bch_split(r[0] ^ nk_load_be64(data + i));
            struct nk_bch_bytes x1 = nk_bch_split(nk_load_be64(data + i + 8));
            r[0] = nk_bch_slices8(tab, &x0, 0, 1) ^ nk_bch_slices8(tab + 8 * slice, &x1, 0, 1);
        }
    }
    if (tb->slices >= 8) {
        const uint64_t *tab = tb->encode + (tb->slices - 8u) * slice;
        for (; i + 8 <= len; i += 8) {
            struct nk_bch_bytes x = nk_bch_split(r[0] ^ nk_load_be64(data + i));
            NK_UNROLL
            for (unsigned w = 0; w < W; w++)
                r[w] = nk_bch_slices8(tab, &x, w, W) ^ (w + 1 < W ? r[w + 1] : 0);
        }
    }
    const uint64_t *last = tb->encode + (size_t)(tb->slices - 1u) * slice;
    for (; i < len; i++) {
        unsigned v = (unsigned)(r[0] >> 56) ^ data[i];
        NK_UNROLL
        for (unsigned w = 0; w + 1 < W; w++)
            r[w] = r[w] << 8 | r[w + 1] >> 56;
        r[W - 1] <<= 8;
        const uint64_t *e = last + nk_bch_at(v, 0, W);
        NK_UNROLL
        for (unsigned w = 0; w < W; w++)
            r[w] ^= e[nk_bch_at(0, w, W)];
    }
    NK_UNROLL
    for (unsigned w = 0; w < W; w++)
        state[w] = r[w];
}

/* Codes up to 256 bits (t <= 19 at m = 13 or 14) get a copy of the loop
 * specialised for their word count; longer ones share the generic one. */
static void nk_bch_feed_long(const struct nk_bch_tables *tb, uint64_t *state, const uint8_t *data,
                             size_t len)
{
    nk_bch_feed_w(tb, state, data, len, tb->words);
}

static void nk_bch_feed(const struct nk_bch_tables *tb, uint64_t *state, const uint8_t *data,
                        size_t len)
{
    switch (tb->words) {
    case 1:
        nk_bch_feed_w(tb, state, data, len, 1);
        break;
    case 2:
        nk_bch_feed_w(tb, state, data, len, 2);
        break;
    case 3:
        nk_bch_feed_w(tb, state, data, len, 3);
        break;
    case 4:
        nk_bch_feed_w(tb, state, data, len, 4);
        break;
    default:
        nk_bch_feed_long(tb, state, data, len);
        break;
    }
}

/* Feeds the two halves of a step as independent two-word lanes (their
 * dependency chains overlap) and moves lane A's remainder past half B with
 * one table lookup per remainder byte. Each 16-byte table entry (both words
 * of a byte's contribution) is one vector XOR where NK_BCH_VECTORS. */
#if NK_BCH_VECTORS
static NK_ALWAYS_INLINE nk_bch_v2 nk_bch_entry2(const uint64_t *tab, size_t slice, size_t b)
{
    return nk_bch_load2(tab + (slice * 256u + b) * 2u);
}

/* The XOR of the entries the eight bytes of v select in eight slices, as a
 * balanced tree (the next round waits on it). */
static NK_ALWAYS_INLINE nk_bch_v2 nk_bch_round2(const uint64_t *tab, uint64_t v)
{
    nk_bch_v2 x01 = nk_bch_entry2(tab, 0, (size_t)(v >> 56)) ^
                    nk_bch_entry2(tab, 1, (size_t)(v >> 48) & 0xffu);
    nk_bch_v2 x23 = nk_bch_entry2(tab, 2, (size_t)(v >> 40) & 0xffu) ^
                    nk_bch_entry2(tab, 3, (size_t)(v >> 32) & 0xffu);
    nk_bch_v2 x45 = nk_bch_entry2(tab, 4, (size_t)(v >> 24) & 0xffu) ^
                    nk_bch_entry2(tab, 5, (size_t)(v >> 16) & 0xffu);
    nk_bch_v2 x67 = nk_bch_entry2(tab, 6, (size_t)(v >> 8) & 0xffu) ^
                    nk_bch_entry2(tab, 7, (size_t)v & 0xffu);
    return (x01 ^ x23) ^ (x45 ^ x67);
}

static void nk_bch_feed_two_lanes(const struct nk_bch_tables *tb, uint64_t *state,
                                  const uint8_t *data, unsigned ecc_bytes)
{
    const uint64_t *tab = tb->encode + (tb->slices - 8u) * 256u * 2u;
    const uint8_t *a = data, *b = data + tb->half;
    nk_bch_v2 ra = {0, 0}, rb = {0, 0};
    for (size_t i = 0; i < tb->half; i += 8) {
        uint64_t va = ra[0] ^ nk_load_be64(a + i), vb = rb[0] ^ nk_load_be64(b + i);
        nk_bch_v2 sa = {ra[1], 0}, sb = {rb[1], 0};
        ra = nk_bch_round2(tab, va) ^ sa;
        rb = nk_bch_round2(tab, vb) ^ sb;
    }
    uint64_t a0 = ra[0], a1 = ra[1];
    for (unsigned j = 0; j < ecc_bytes; j++) {
        unsigned v = (unsigned)((j < 8 ? a0 >> (56 - 8 * j) : a1 >> (56 - 8 * (j - 8))) & 0xffu);
        rb ^= nk_bch_load2(tb->combine + ((size_t)j * 256u + v) * 2u);
    }
    state[0] = rb[0];
    state[1] = rb[1];
}
#else
static void nk_bch_feed_two_lanes(const struct nk_bch_tables *tb, uint64_t *state,
                                  const uint8_t *data, unsigned ecc_bytes)
{
    const uint64_t *tab = tb->encode + (tb->slices - 8u) * 256u * 2u;
    const uint8_t *a = data, *b = data + tb->half;
    uint64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    for (size_t i = 0; i < tb->half; i += 8) {
        struct nk_bch_bytes xa = nk_bch_split(a0 ^ nk_load_be64(a + i));
        struct nk_bch_bytes xb = nk_bch_split(b0 ^ nk_load_be64(b + i));
        a0 = nk_bch_slices8(tab, &xa, 0, 2) ^ a1;
        b0 = nk_bch_slices8(tab, &xb, 0, 2) ^ b1;
        a1 = nk_bch_slices8(tab, &xa, 1, 2);
        b1 = nk_bch_slices8(tab, &xb, 1, 2);
    }
    for (unsigned j = 0; j < ecc_bytes; j++) {
        unsigned v = (unsigned)((j < 8 ? a0 >> (56 - 8 * j) : a1 >> (56 - 8 * (j - 8))) & 0xffu);
        const uint64_t *e = tb->combine + ((size_t)j * 256u + v) * 2u;
        b0 ^= e[0];
        b1 ^= e[1];
    }
    state[0] = b0;
    state[1] = b1;
}
#endif

/* The register's top `bytes` bytes, most significant first. */
static void nk_bch_store(const uint64_t *reg, uint8_t *out, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        out[i] = (uint8_t)(reg[i / 8] >> (56 - 8 * (i % 8)));
}

/* The code register of one step, unmasked. */
static void nk_bch_encode_reg(const struct nk_bch *bch, const uint8_t *data, uint64_t *reg)
{
    const struct nk_bch_tables *tb = nk_bch_tables(bch);
    if (tb->combine)
        nk_bch_feed_two_lanes(tb, reg, data, bch->ecc_bytes);
    else
        nk_bch_feed(tb, reg, data, bch->step_size);
}

void nk_bch_encode_raw(const struct nk_bch *bch, const uint8_t *data, uint8_t *ecc)
{
    uint64_t reg[NK_BCH_WORDS_MAX] = {0};
    nk_bch_encode_reg(bch, data, reg);
    nk_bch_store(reg, ecc, bch->ecc_bytes);
}

void nk_bch_calculate(const struct nk_bch *bch, const uint8_t *data, uint8_t *ecc)
{
    uint64_t reg[NK_BCH_WORDS_MAX] = {0};
    nk_bch_encode_reg(bch, data, reg);
    /* The erased mask is applied in the register, a word at a time (the
     * mask array is NK_ECC_MAX_BYTES_PER_STEP long, so whole words of it
     * can be read); then only the code's bytes are stored. */
    unsigned bytes = bch->ecc_bytes, full = bytes / 8u, i = 0;
    for (unsigned w = 0; w < (bytes + 7u) / 8u; w++)
        reg[w] ^= nk_load_be64(bch->erased_mask + 8u * w);
    for (unsigned w = 0; w < full; w++) {
        uint64_t v = reg[w];
        for (unsigned k = 0; k < 8; k++)
            ecc[8u * w + k] = (uint8_t)(v >> (56 - 8 * k));
    }
    for (i = 8u * full; i < bytes; i++)
        ecc[i] = (uint8_t)(reg[i / 8] >> (56 - 8 * (i % 8)));
}

/* ----- construction -------------------------------------------------------- */

/* The minimal polynomial of alpha^j (degree m, binary coefficients) as a
 * bit mask: bit i is the coefficient of x^i. */
static uint32_t nk_bch_minimal_poly(const struct nk_bch_tables *gf, unsigned j)
{
    uint16_t poly[NK_BCH_M_MAX + 1] = {1};
    unsigned deg = 0, e = j % gf->n;
    for (unsigned k = 0; k < gf->m; k++) {
        unsigned root = gf->exp[e];
        /* poly *= (x + root) */
        poly[deg + 1] = 0;
        for (unsigned i = deg + 1; i > 0; i--)
            poly[i] = (uint16_t)(poly[i - 1] ^ nk_gf_mul(gf, poly[i], root));
        poly[0] = (uint16_t)nk_gf_mul(gf, poly[0], root);
        deg++;
        e = (2u * e) % gf->n;
    }
    uint32_t bits = 0;
    for (unsigned i = 0; i <= deg; i++)
        bits |= (uint32_t)(poly[i] & 1u) << i; /* coefficients are 0 or 1 */
    return bits;
}

/* g(x) *= p(x), both binary; g as bits in 64-bit words (bit i = x^i). */
static void nk_poly2_mul(uint64_t *g, unsigned *g_deg, uint32_t p, unsigned p_deg)
{
    uint64_t out[NK_BCH_WORDS_MAX + 1] = {0};
    for (unsigned i = 0; i <= p_deg; i++) {
        if (!(p >> i & 1u))
            continue;
        for (unsigned w = 0; w <= NK_BCH_WORDS_MAX; w++) {
            /* out ^= g << i */
            uint64_t lo = g[w] << i;
            uint64_t hi = (i && w + 1 <= NK_BCH_WORDS_MAX) ? g[w] >> (64 - i) : 0;
            out[w] ^= lo;
            if (w + 1 <= NK_BCH_WORDS_MAX)
                out[w + 1] ^= hi;
        }
    }
    memcpy(g, out, sizeof out);
    *g_deg += p_deg;
}

/* Shifts a left-justified W-word register left by one bit; returns the bit
 * shifted out. */
static unsigned nk_reg_shl1(uint64_t *reg, unsigned words)
{
    unsigned out = (unsigned)(reg[0] >> 63);
    for (unsigned w = 0; w + 1 < words; w++)
        reg[w] = reg[w] << 1 | reg[w + 1] >> 63;
    reg[words - 1] <<= 1;
    return out;
}

static void nk_bch_build_gf(struct nk_bch_tables *tb, uint16_t *exp, uint16_t *log, unsigned poly,
                            bool *primitive)
{
    unsigned n = tb->n, x = 1;
    *primitive = true;
    for (unsigned i = 0; i < n; i++) {
        if (i && x == 1)
            *primitive = false; /* period shorter than n */
        exp[i] = (uint16_t)x;
        exp[i + n] = (uint16_t)x;
        log[x] = (uint16_t)i;
        x <<= 1;
        if (x >> tb->m)
            x ^= poly;
    }
    if (x != 1)
        *primitive = false;
    log[0] = (uint16_t)NK_LOG_ZERO;
}

static void nk_bch_build_encoder(struct nk_bch_tables *tb, uint64_t *table, const uint64_t *g,
                                 unsigned ecc_bits)
{
    unsigned words = tb->words;
    uint64_t reg[NK_BCH_WORDS_MAX] = {0}, base[NK_BCH_WORDS_MAX];

    /* x^L mod g = the low L coefficients of g, left-justified: coefficient
     * of x^i at bit L-1-i from the top. */
    for (unsigned i = 0; i < ecc_bits; i++)
        if (g[i / 64] >> (i % 64) & 1u) {
            unsigned q = ecc_bits - 1u - i;
            reg[q / 64] |= (uint64_t)1 << (63 - q % 64);
        }
    memcpy(base, reg, sizeof base);
    /* Slice s maps a byte that is d = slices-1-s bytes from the end of the
     * round to b(x) x^(8d + L): its single-bit entries are x^(L + j) mod g
     * for j = 8d + bit; every other entry is the XOR of those. */
    for (unsigned j = 0; j < 8u * tb->slices; j++) {
        uint64_t *slice = table + (size_t)(tb->slices - 1u - j / 8u) * 256u * words;
        for (unsigned w = 0; w < words; w++)
            slice[nk_bch_at(1u << (j % 8u), w, words)] = reg[w];
        if (nk_reg_shl1(reg, words))
            for (unsigned w = 0; w < words; w++)
                reg[w] ^= base[w];
    }
    for (unsigned s = 0; s < tb->slices; s++) {
        uint64_t *slice = table + (size_t)s * 256u * words;
        for (unsigned w = 0; w < words; w++)
            slice[nk_bch_at(0, w, words)] = 0;
        for (unsigned b = 3; b < 256; b++) {
            if (!(b & (b - 1u)))
                continue; /* single bits are set above */
            unsigned low = b & (0u - b);
            for (unsigned w = 0; w < words; w++)
                slice[nk_bch_at(b, w, words)] =
                    slice[nk_bch_at(b & (b - 1u), w, words)] ^ slice[nk_bch_at(low, w, words)];
        }
    }
}

static void nk_bch_build_syndromes(struct nk_bch_tables *tb, uint16_t *divide, uint16_t *eval,
                                   unsigned t)
{
    unsigned m = tb->m, n = tb->n;
    for (unsigned i = 0; i < t; i++) {
        unsigned j = 2 * i + 1;
        uint32_t mj = nk_bch_minimal_poly(tb, j);
        uint16_t *div = divide + (size_t)i * 256u;
        uint16_t *ev = eval + (size_t)i * NK_BCH_SYNDROME_EVAL_ENTRIES;
        /* rows: x^(m+b) mod m_j for b = 0..7 */
        uint32_t rows[8], cur = mj & ((1u << m) - 1u);
        for (unsigned b = 0; b < 8; b++) {
            rows[b] = cur;
            cur <<= 1;
            if (cur >> m & 1u)
                cur ^= mj;
        }
        div[0] = 0;
        for (unsigned h = 1; h < 256; h++) {
            unsigned low = 0;
            while (!(h >> low & 1u))
                low++;
            div[h] = (uint16_t)(div[h & (h - 1u)] ^ rows[low]);
        }
        /* v(alpha^j) alpha^(-j pad): bit b of v stands for alpha^(j (b - pad)) */
        unsigned shift = (unsigned)(((unsigned long)j * tb->pad_bits) % n);
        uint16_t basis[NK_BCH_M_MAX];
        for (unsigned b = 0; b < m; b++)
            basis[b] = (uint16_t)nk_gf_pow(tb, (unsigned long)j * b + n - shift);
        for (unsigned part = 0; part < 2; part++) {
            uint16_t *out = ev + (part ? 256u : 0u);
            unsigned first = part ? 8u : 0u, count = part ? m - 8u : 8u;
            out[0] = 0;
            for (unsigned v = 1; v < (1u << count); v++) {
                unsigned low = 0;
                while (!(v >> low & 1u))
                    low++;
                out[v] = (uint16_t)(out[v & (v - 1u)] ^ basis[first + low]);
            }
        }
    }
}

static void nk_bch_build_quadratic(struct nk_bch_tables *tb)
{
    /* w: an element of trace 1 (exists: the trace is onto GF(2)). */
    unsigned w = 0;
    for (unsigned k = 0; k < tb->m && !w; k++)
        if (nk_gf_trace(tb, tb->exp[k]))
            w = tb->exp[k];
    unsigned target[NK_BCH_M_MAX];
    for (unsigned k = 0; k < tb->m; k++) {
        target[k] = tb->exp[k];
        if (nk_gf_trace(tb, target[k]))
            target[k] ^= w;
        tb->quadratic[k] = 0;
    }
    /* z^2 + z takes each trace-0 value twice; one pass over the field. */
    for (unsigned z = 2; z <= tb->n; z++) {
        unsigned value = nk_gf_sqr(tb, z) ^ z;
        for (unsigned k = 0; k < tb->m; k++)
            if (value == target[k] && !tb->quadratic[k])
                tb->quadratic[k] = (uint16_t)z;
    }
}

/* combine[j][b]: register byte j holding b, fed `half` zero bytes. */
static void nk_bch_build_combine(struct nk_bch_tables *tb, uint64_t *combine, unsigned half,
                                 unsigned ecc_bytes)
{
    static const uint8_t zeros[64];
    for (unsigned j = 0; j < ecc_bytes; j++) {
        for (unsigned v = 0; v < 256; v++) {
            uint64_t reg[NK_BCH_WORDS_MAX] = {0};
            reg[j / 8] = (uint64_t)v << (56 - 8 * (j % 8));
            for (unsigned done = 0; done < half; done += sizeof zeros)
                nk_bch_feed(tb, reg, zeros,
                            half - done < sizeof zeros ? half - done : sizeof zeros);
            combine[((size_t)j * 256u + v) * 2u] = reg[0];
            combine[((size_t)j * 256u + v) * 2u + 1u] = reg[1];
        }
    }
    tb->combine = combine;
    tb->half = half;
}

static unsigned nk_fls(unsigned v)
{
    unsigned bits = 0;
    while (v) {
        bits++;
        v >>= 1;
    }
    return bits;
}

int nk_bch_init(struct nk_bch *bch, unsigned step_size, unsigned t, unsigned flags, void *workspace,
                size_t size)
{
    unsigned m = nk_fls(1u + 8u * step_size);
    unsigned words;
    if (step_size == 0 || !nk_bch_params(m, t, &words))
        return -NK_EINVAL;
    unsigned n = (1u << m) - 1u;
    if (8u * step_size + m * t > n)
        return -NK_EINVAL;
    size_t need = nk_bch_workspace_size(m, t, flags);
    if (!workspace || size < need)
        return -NK_ENOMEM;

    /* Carve the workspace: the tables struct, then the arrays. */
    uint8_t *base = (uint8_t *)workspace;
    base += (8u - ((uintptr_t)base & 7u)) & 7u;
    struct nk_bch_tables *tb = (struct nk_bch_tables *)(void *)base;
    uint8_t *cursor = base + nk_align8(sizeof *tb);
    memset(tb, 0, sizeof *tb);
    tb->m = m;
    tb->n = n;
    tb->words = words;
    tb->slices = nk_bch_slices(words, flags);

    uint64_t *encode = (uint64_t *)(void *)cursor;
    cursor += (size_t)tb->slices * 256u * words * sizeof(uint64_t);
    uint16_t *exp = (uint16_t *)(void *)cursor;
    cursor += nk_align8(2u * (size_t)n * sizeof(uint16_t));
    uint16_t *log = (uint16_t *)(void *)cursor;
    cursor += nk_align8(((size_t)n + 1u) * sizeof(uint16_t));
    uint16_t *divide = NULL, *eval = NULL;
    if (nk_bch_syndrome_tables(flags)) {
        divide = (uint16_t *)(void *)cursor;
        eval = divide + (size_t)t * 256u;
        cursor += nk_align8((size_t)t * (256u + NK_BCH_SYNDROME_EVAL_ENTRIES) * sizeof(uint16_t));
    }
    uint64_t *combine = NULL;
    if (nk_bch_two_lanes(words, flags) && step_size % 16u == 0)
        combine = (uint64_t *)(void *)cursor;

    bool primitive;
    tb->exp = exp;
    tb->log = log;
    nk_bch_build_gf(tb, exp, log, nk_bch_primitive[m - NK_BCH_M_MIN], &primitive);
    if (!primitive)
        return -NK_EINVAL;

    /* g = product of the minimal polynomials of alpha^j, odd j < 2t. */
    uint64_t g[NK_BCH_WORDS_MAX + 1] = {1};
    unsigned g_deg = 0;
    for (unsigned j = 1; j < 2 * t; j += 2)
        nk_poly2_mul(g, &g_deg, nk_bch_minimal_poly(tb, j), m);

    memset(bch, 0, sizeof *bch);
    bch->m = m;
    bch->t = t;
    bch->step_size = step_size;
    bch->ecc_bits = g_deg;
    bch->ecc_bytes = (g_deg + 7u) / 8u;
    bch->tables = tb;
    bch->tables_size = need;
    bch->flags = flags;
    tb->pad_bits = 8u * bch->ecc_bytes - g_deg;

    nk_bch_build_encoder(tb, encode, g, g_deg);
    tb->encode = encode;
    if (divide) {
        nk_bch_build_syndromes(tb, divide, eval, t);
        tb->syndrome_divide = divide;
        tb->syndrome_eval = eval;
    }
    nk_bch_build_quadratic(tb);
    if (combine)
        nk_bch_build_combine(tb, combine, step_size / 2u, bch->ecc_bytes);

    /* The erased mask: an all-0xFF step must code as all 0xFF. */
    uint8_t ones[64], raw[NK_ECC_MAX_BYTES_PER_STEP];
    uint64_t reg[NK_BCH_WORDS_MAX] = {0};
    memset(ones, 0xff, sizeof ones);
    for (unsigned done = 0; done < step_size; done += 64)
        nk_bch_feed(tb, reg, ones, step_size - done < 64 ? step_size - done : 64);
    nk_bch_store(reg, raw, bch->ecc_bytes);
    for (unsigned i = 0; i < bch->ecc_bytes; i++)
        bch->erased_mask[i] = (uint8_t)~raw[i];

    unsigned len = 0;
    char *name = bch->name;
    const char *prefix = "bch";
    while (*prefix)
        name[len++] = *prefix++;
    char digits[12];
    unsigned nd = 0;
    for (unsigned v = t; v; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd)
        name[len++] = digits[--nd];
    name[len++] = '-';
    for (unsigned v = step_size; v; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd && len + 1 < sizeof bch->name)
        name[len++] = digits[--nd];
    name[len] = 0;
    return 0;
}

/* ----- decoder ------------------------------------------------------------- */

/* Odd syndromes S_j, j = 2i+1, of the code difference `diff` (ecc_bytes
 * bytes, pad bits already cleared), into syn[2i]; even ones are squares. */
/* Out of line (as the locator): their arrays stay off the root finder's stack. */
static NK_NOINLINE void nk_bch_syndromes(const struct nk_bch *bch, const uint8_t *diff,
                                         uint16_t *syn)
{
    const struct nk_bch_tables *tb = nk_bch_tables(bch);
    unsigned t = bch->t, m = tb->m;
    if (tb->syndrome_divide) {
        unsigned mask = (1u << m) - 1u, shift = m - 8u;
        unsigned i = 0;
        /* four syndromes at a time share each byte's load and the loop */
        for (; i + 4 <= t; i += 4) {
            const uint16_t *div0 = tb->syndrome_divide + (size_t)i * 256u;
            const uint16_t *div1 = div0 + 256, *div2 = div0 + 512, *div3 = div0 + 768;
            unsigned r0 = 0, r1 = 0, r2 = 0, r3 = 0;
            for (unsigned q = 0; q < bch->ecc_bytes; q++) {
                unsigned byte = diff[q];
                r0 = ((r0 << 8) & mask) ^ div0[r0 >> shift] ^ byte;
                r1 = ((r1 << 8) & mask) ^ div1[r1 >> shift] ^ byte;
                r2 = ((r2 << 8) & mask) ^ div2[r2 >> shift] ^ byte;
                r3 = ((r3 << 8) & mask) ^ div3[r3 >> shift] ^ byte;
            }
            const uint16_t *ev = tb->syndrome_eval + (size_t)i * NK_BCH_SYNDROME_EVAL_ENTRIES;
            syn[2 * i] = (uint16_t)(ev[r0 & 0xffu] ^ ev[256u + (r0 >> 8)]);
            ev += NK_BCH_SYNDROME_EVAL_ENTRIES;
            syn[2 * i + 2] = (uint16_t)(ev[r1 & 0xffu] ^ ev[256u + (r1 >> 8)]);
            ev += NK_BCH_SYNDROME_EVAL_ENTRIES;
            syn[2 * i + 4] = (uint16_t)(ev[r2 & 0xffu] ^ ev[256u + (r2 >> 8)]);
            ev += NK_BCH_SYNDROME_EVAL_ENTRIES;
            syn[2 * i + 6] = (uint16_t)(ev[r3 & 0xffu] ^ ev[256u + (r3 >> 8)]);
        }
        for (; i < t; i++) {
            const uint16_t *div = tb->syndrome_divide + (size_t)i * 256u;
            const uint16_t *ev = tb->syndrome_eval + (size_t)i * NK_BCH_SYNDROME_EVAL_ENTRIES;
            unsigned rem = 0;
            for (unsigned q = 0; q < bch->ecc_bytes; q++)
                rem = ((rem << 8) & mask) ^ div[rem >> shift] ^ diff[q];
            syn[2 * i] = (uint16_t)(ev[rem & 0xffu] ^ ev[256u + (rem >> 8)]);
        }
    } else {
        /* Small tables: add alpha^(i j) for every set bit at power i. */
        unsigned n = tb->n;
        for (unsigned i = 0; i < t; i++)
            syn[2 * i] = 0;
        for (unsigned q = 0; q < bch->ecc_bits; q++) {
            if (!(diff[q / 8] >> (7 - q % 8) & 1u))
                continue;
            unsigned power = bch->ecc_bits - 1u - q;
            unsigned e = power % n, step = (2u * power) % n;
            for (unsigned i = 0; i < t; i++) {
                syn[2 * i] ^= tb->exp[e];
                e += step;
                if (e >= n)
                    e -= n;
            }
        }
    }
    for (unsigned i = 0; 2 * i + 1 < 2 * t; i++)
        syn[2 * i + 1] = (uint16_t)nk_gf_sqr(tb, syn[i]);
}

/* Room for the locator while Berlekamp-Massey runs: its degree stays below
 * 2t + 2, and an update adds at most 2t + 1 to the previous degree. */
#define NK_BCH_LOCATOR_MAX (4 * NK_BCH_T_MAX + 4)

/* Berlekamp's binary Berlekamp-Massey: the error locator
 * elp(x) = prod (1 + X_k x) from the 2t syndromes, in t steps that skip the
 * even discrepancies (always zero for binary codes). The degree bookkeeping
 * follows lib/bch so that beyond-t patterns are judged the same way.
 * Returns the locator's degree, or -1 when it exceeds t. */
static NK_NOINLINE int nk_bch_locator(const struct nk_bch_tables *gf, const uint16_t *syn,
                                      unsigned t, uint16_t *elp)
{
    /* Two buffers, each zero above its polynomial's degree: the locator and
     * the previous one. When the degree grows, the new locator is written
     * over the previous one and the buffers swap roles (no copies). Indices
     * stay below 3t: an update adds at most 2t - 1 to a degree <= t. */
    uint16_t other[NK_BCH_LOCATOR_MAX], slog[2 * NK_BCH_T_MAX];
    uint16_t *cur = elp, *prev = other;
    const uint16_t *log = gf->log, *exp = gf->exp;
    unsigned deg = 0, prev_deg = 0;
    int prev_step = -1;
    unsigned prev_dlog = 0, d = syn[0]; /* the previous discrepancy starts at 1 */
    unsigned n = gf->n;

    memset(cur, 0, (3 * t + 1) * sizeof cur[0]);
    memset(prev, 0, (3 * t + 1) * sizeof prev[0]);
    cur[0] = 1;
    prev[0] = 1;
    for (unsigned j = 0; j < 2 * t; j++)
        slog[j] = log[syn[j]];

    for (unsigned i = 0; i < t && deg <= t; i++) {
        if (d) {
            /* elp += d / prev_d x^k prev */
            unsigned k = 2 * i - (unsigned)prev_step;
            unsigned dlog = log[d];
            unsigned l = dlog + n - prev_dlog;
            if (l >= n)
                l -= n;
            const uint16_t *e = exp + l;
            unsigned grown = prev_deg + k;
            if (grown > deg) {
                /* prev = cur + alpha^l x^k prev, from the top down (each
                 * prev[j - k] is read before it is overwritten) */
                for (unsigned j = grown; j >= k; j--) {
                    unsigned p = prev[j - k];
                    prev[j] = (uint16_t)(cur[j] ^ (p ? e[log[p]] : 0u));
                    if (j == 0)
                        break;
                }
                for (unsigned j = 0; j < k; j++)
                    prev[j] = cur[j];
                uint16_t *swap = cur;
                cur = prev;
                prev = swap;
                prev_deg = deg;
                deg = grown;
                prev_dlog = dlog;
                prev_step = (int)(2 * i);
            } else {
                for (unsigned j = 0; j <= prev_deg; j++) {
                    unsigned p = prev[j];
                    if (p)
                        cur[j + k] ^= e[log[p]];
                }
            }
        }
        if (i + 1 < t) {
            /* next odd discrepancy: S(2i+3) + sum elp_j S(2i+3-j) */
            d = syn[2 * i + 2];
            const uint16_t *sl = slog + 2 * i + 2;
            for (unsigned j = 1; j <= deg && j <= 2 * i + 2; j++) {
                unsigned c = cur[j], s = sl[-(int)j];
                if (c && s != NK_LOG_ZERO)
                    d ^= exp[log[c] + s];
            }
        }
    }
    if (deg > t)
        return -1;
    if (cur != elp)
        for (unsigned j = 0; j <= deg; j++)
            elp[j] = cur[j];
    return (int)deg;
}

/* The full decode of a step whose codes differ, kept out of line so the
 * clean path below stays a short compare. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int
nk_bch_decode(const struct nk_bch *bch, uint8_t *data, const uint8_t *read_ecc,
              const uint8_t *calc_ecc, unsigned *errloc)
{
    const struct nk_bch_tables *tb = nk_bch_tables(bch);
    /* The arrays live in nested blocks so that the compiler can share their
     * stack: only the locator and its roots are alive during the root
     * finder, the deepest call of a read. */
    uint16_t elp[NK_BCH_LOCATOR_MAX];
    int deg;
    {
        uint16_t syn[2 * NK_BCH_T_MAX];
        {
            uint8_t diff[NK_ECC_MAX_BYTES_PER_STEP];
            unsigned last = bch->ecc_bytes - 1u;
            for (unsigned i = 0; i < last; i++)
                diff[i] = (uint8_t)(read_ecc[i] ^ calc_ecc[i]);
            diff[last] = (uint8_t)((read_ecc[last] ^ calc_ecc[last]) & (0xffu << tb->pad_bits));
            nk_bch_syndromes(bch, diff, syn);
        }
        deg = nk_bch_locator(tb, syn, bch->t, elp);
    }
    if (deg < 0)
        return -NK_EBADMSG;
    if (deg == 0)
        return 0; /* the difference is a codeword remainder: nothing to fix */
    uint16_t roots[NK_BCH_T_MAX];
    if (nk_bch_find_roots(tb, elp, (unsigned)deg, roots) != (unsigned)deg)
        return -NK_EBADMSG;

    /* Root r = 1/X with X = alpha^power; power counts from the last code
     * bit. Every location must lie inside data || code. Each root is
     * replaced by its bit number (below the code length, 2^m - 1 < 2^15). */
    unsigned nbits = 8u * bch->step_size + bch->ecc_bits;
    uint16_t *bits = roots;
    for (int i = 0; i < deg; i++) {
        if (!roots[i])
            return -NK_EBADMSG; /* cannot happen: the locator's constant is 1 */
        unsigned l = tb->log[roots[i]];
        unsigned power = l ? tb->n - l : 0u;
        if (power >= nbits)
            return -NK_EBADMSG;
        unsigned from_start = nbits - 1u - power;
        bits[i] = (uint16_t)((from_start & ~7u) | (7u - (from_start & 7u)));
    }
    for (int i = 0; i < deg; i++) {
        if (bits[i] < 8u * bch->step_size)
            data[bits[i] >> 3] ^= (uint8_t)(1u << (bits[i] & 7u));
        if (errloc)
            errloc[i] = bits[i];
    }
    return deg;
}

int nk_bch_correct(const struct nk_bch *bch, uint8_t *data, const uint8_t *read_ecc,
                   const uint8_t *calc_ecc, unsigned *errloc)
{
    /* Clean step: one compare, a word at a time. Pad bits carry no
     * information, so flips there are not errors. */
    unsigned last = bch->ecc_bytes - 1u, i = 0;
    uint64_t any = 0;
    for (; i + 8 <= last; i += 8) {
        uint64_t a, b;
        memcpy(&a, read_ecc + i, 8);
        memcpy(&b, calc_ecc + i, 8);
        any |= a ^ b;
    }
    for (; i < last; i++)
        any |= (uint64_t)(read_ecc[i] ^ calc_ecc[i]);
    any |= (uint64_t)((unsigned)(read_ecc[last] ^ calc_ecc[last]) &
                      (0xffu << nk_bch_tables(bch)->pad_bits));
    if (!any)
        return 0;
    return nk_bch_decode(bch, data, read_ecc, calc_ecc, errloc);
}

/* ----- engine --------------------------------------------------------------- */

static void nk_bch_engine_calculate(const struct nk_ecc_engine *engine, const uint8_t *data,
                                    uint8_t *ecc)
{
    nk_bch_calculate((const struct nk_bch *)engine->ctx, data, ecc);
}

static int nk_bch_engine_correct(const struct nk_ecc_engine *engine, uint8_t *data,
                                 const uint8_t *read_ecc, const uint8_t *calc_ecc)
{
    return nk_bch_correct((const struct nk_bch *)engine->ctx, data, read_ecc, calc_ecc, NULL);
}

static const struct nk_ecc_ops nk_bch_ops = {
    .calculate = nk_bch_engine_calculate,
    .correct = nk_bch_engine_correct,
};

void nk_ecc_bch_engine_init(struct nk_ecc_engine *engine, struct nk_bch *bch)
{
    memset(engine, 0, sizeof *engine);
    engine->ops = &nk_bch_ops;
    engine->ctx = bch;
    engine->name = bch->name;
    engine->step_size = (uint16_t)bch->step_size;
    engine->bytes_per_step = (uint8_t)bch->ecc_bytes;
    engine->strength = (uint8_t)bch->t;
    engine->placement = NK_ECC_PLACEMENT_SOFTWARE;
}
