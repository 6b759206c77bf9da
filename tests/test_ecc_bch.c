/* SPDX-License-Identifier: MIT */
/*
 * Software BCH: byte-identical to Linux's NAND software BCH engine on every
 * fixture record (stored and raw codes; decode return values, error
 * locations and output data), with both table sizes, plus the properties
 * the code guarantees for any data: up to t errors anywhere in data || code
 * are corrected at every strength from 1 to 32 in both fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

#include "nk_fixture_jsonl.h"
#include "nk_sha256.h"
#include "testutil.h"

struct bch_fixture {
    const char *file;
    unsigned m, t, step, ecc_bytes, ecc_bits, pad_bits;
    unsigned decode_records;
};

static const struct bch_fixture fixtures[] = {
    {"ecc/bch-m13-t4-512.jsonl", 13, 4, 512, 7, 52, 4, 61},
    {"ecc/bch-m13-t8-512.jsonl", 13, 8, 512, 13, 104, 0, 82},
    {"ecc/bch-m14-t8-1024.jsonl", 14, 8, 1024, 14, 112, 0, 82},
    {"ecc/bch-m14-t16-1024.jsonl", 14, 16, 1024, 28, 224, 0, 130},
};

/* A codec with its workspace on the heap (tests only). */
struct codec {
    struct nk_bch bch;
    void *workspace;
};

static void codec_open(struct codec *c, unsigned step, unsigned t, unsigned flags)
{
    unsigned m = step >= 1024 ? 14 : step >= 512 ? 13 : step >= 256 ? 12 : 11;
    size_t size = nk_bch_workspace_size(m, t, flags);
    assert_true(size > 0);
    c->workspace = malloc(size);
    assert_non_null(c->workspace);
    int err = nk_bch_init(&c->bch, step, t, flags, c->workspace, size);
    if (err)
        fail_msg("nk_bch_init(step %u, t %u, flags %u) = %d", step, t, flags, err);
}

static void codec_close(struct codec *c)
{
    free(c->workspace);
}

static void check_meta(const struct nk_jsonl *file, const struct bch_fixture *fx,
                       const struct nk_bch *bch)
{
    const cJSON *meta = file->records[0];
    assert_true(nk_json_is(meta, "type", "meta"));
    assert_int_equal(nk_json_int(meta, "m"), fx->m);
    assert_int_equal(nk_json_int(meta, "t"), fx->t);
    assert_int_equal(nk_json_int(meta, "step"), fx->step);
    assert_int_equal(nk_json_int(meta, "ecc_bytes"), fx->ecc_bytes);
    assert_int_equal(nk_json_int(meta, "ecc_bits"), fx->ecc_bits);
    assert_int_equal(nk_json_int(meta, "pad_bits"), fx->pad_bits);
    assert_int_equal(bch->m, fx->m);
    assert_int_equal(bch->ecc_bits, fx->ecc_bits);
    assert_int_equal(bch->ecc_bytes, fx->ecc_bytes);
    uint8_t mask[64];
    assert_int_equal(nk_json_hex(meta, "eccmask", mask, sizeof mask), fx->ecc_bytes);
    assert_memory_equal(bch->erased_mask, mask, fx->ecc_bytes);
}

static void calc_records_match(const struct bch_fixture *fx, unsigned flags)
{
    struct nk_jsonl file;
    struct codec c;
    nk_jsonl_load(&file, fx->file);
    codec_open(&c, fx->step, fx->t, flags);
    check_meta(&file, fx, &c.bch);
    unsigned checked = 0;
    for (size_t i = 1; i < file.count; i++) {
        const cJSON *r = file.records[i];
        if (!nk_json_is(r, "type", "calc"))
            continue;
        uint8_t data[1024], want[64], want_raw[64], got[64];
        assert_int_equal(nk_json_hex(r, "data", data, sizeof data), fx->step);
        assert_int_equal(nk_json_hex(r, "ecc", want, sizeof want), fx->ecc_bytes);
        assert_int_equal(nk_json_hex(r, "ecc_raw", want_raw, sizeof want_raw), fx->ecc_bytes);
        nk_bch_calculate(&c.bch, data, got);
        if (memcmp(got, want, fx->ecc_bytes) != 0)
            fail_msg("%s %s: stored code differs from Linux's", fx->file, nk_json_str(r, "id"));
        nk_bch_encode_raw(&c.bch, data, got);
        if (memcmp(got, want_raw, fx->ecc_bytes) != 0)
            fail_msg("%s %s: raw code differs from Linux's", fx->file, nk_json_str(r, "id"));
        checked++;
    }
    assert_int_equal(checked, 108);
    codec_close(&c);
    nk_jsonl_free(&file);
}

static void decode_records_match(const struct bch_fixture *fx, unsigned flags)
{
    struct nk_jsonl file;
    struct codec c;
    nk_jsonl_load(&file, fx->file);
    codec_open(&c, fx->step, fx->t, flags);
    unsigned checked = 0, failures = 0, corrected = 0, erased = 0, pad = 0;
    for (size_t i = 1; i < file.count; i++) {
        const cJSON *r = file.records[i];
        if (!nk_json_is(r, "type", "decode"))
            continue;
        const char *id = nk_json_str(r, "id");
        uint8_t data[1024], base[1024], read_ecc[64], calc_ecc[64], ours[64];
        assert_int_equal(nk_json_hex(r, "data", data, sizeof data), fx->step);
        assert_int_equal(nk_json_hex(r, "read_ecc", read_ecc, sizeof read_ecc), fx->ecc_bytes);
        assert_int_equal(nk_json_hex(r, "calc_ecc", calc_ecc, sizeof calc_ecc), fx->ecc_bytes);
        nk_json_hex(nk_jsonl_find(&file, "calc", nk_json_str(r, "base")), "data", base,
                    sizeof base);

        nk_bch_calculate(&c.bch, data, ours);
        assert_memory_equal(ours, calc_ecc, fx->ecc_bytes);

        unsigned errloc[64], want_loc[64];
        int ret = nk_bch_correct(&c.bch, data, read_ecc, calc_ecc, errloc);
        long want = nk_json_int(r, "ret");
        if (ret != want)
            fail_msg("%s %s (%s, %ld flips): ret %d, Linux %ld", fx->file, id,
                     nk_json_str(r, "case"), nk_json_int(r, "nerr"), ret, want);
        size_t nloc = nk_json_uints(r, "errloc", want_loc, 64);
        if (ret > 0) {
            assert_int_equal(nloc, (size_t)ret);
            qsort(errloc, nloc, sizeof errloc[0], nk_uint_compare);
            qsort(want_loc, nloc, sizeof want_loc[0], nk_uint_compare);
            if (memcmp(errloc, want_loc, nloc * sizeof errloc[0]) != 0)
                fail_msg("%s %s: error locations differ from Linux's", fx->file, id);
            corrected++;
        } else if (ret < 0) {
            failures++;
        }

        char digest[65];
        nk_sha256_hex(data, fx->step, digest);
        if (strcmp(digest, nk_json_str(r, "out_sha256")) != 0)
            fail_msg("%s %s: output data differs from Linux's", fx->file, id);
        assert_int_equal(memcmp(data, base, fx->step) == 0, nk_json_bool(r, "out_equals_base"));
        unsigned diff[64], want_diff[64];
        size_t nd = nk_diff_bits(data, base, fx->step, diff, 64);
        size_t nw = nk_json_uints(r, "out_diff_bits", want_diff, 64);
        assert_int_equal(nd, nw);
        assert_memory_equal(diff, want_diff, nd * sizeof diff[0]);
        erased += nk_json_is(r, "case", "erased");
        pad += nk_json_is(r, "case", "pad-only") || nk_json_is(r, "case", "pad+data");
        checked++;
    }
    assert_int_equal(checked, fx->decode_records);
    assert_int_equal(erased, 6);
    assert_true(failures >= 20); /* the t+1 cases */
    assert_true(corrected >= 6 * fx->t);
    assert_int_equal(pad, fx->pad_bits ? 3 : 0);
    codec_close(&c);
    nk_jsonl_free(&file);
}

#define FIXTURE_TESTS(idx, suffix)                                                                 \
    static void test_calc_##suffix(void **state)                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        calc_records_match(&fixtures[idx], 0);                                                     \
    }                                                                                              \
    static void test_calc_##suffix##_small_tables(void **state)                                    \
    {                                                                                              \
        (void)state;                                                                               \
        calc_records_match(&fixtures[idx], NK_BCH_SMALL_TABLES);                                   \
    }                                                                                              \
    static void test_decode_##suffix(void **state)                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        decode_records_match(&fixtures[idx], 0);                                                   \
    }                                                                                              \
    static void test_decode_##suffix##_small_tables(void **state)                                  \
    {                                                                                              \
        (void)state;                                                                               \
        decode_records_match(&fixtures[idx], NK_BCH_SMALL_TABLES);                                 \
    }                                                                                              \
    static void test_decode_##suffix##_syndrome_tables(void **state)                               \
    {                                                                                              \
        (void)state;                                                                               \
        decode_records_match(&fixtures[idx], NK_BCH_SMALL_TABLES | NK_BCH_SYNDROME_TABLES);        \
    }

FIXTURE_TESTS(0, m13_t4_512)
FIXTURE_TESTS(1, m13_t8_512)
FIXTURE_TESTS(2, m14_t8_1024)
FIXTURE_TESTS(3, m14_t16_1024)

static void test_erased_step_codes_as_ff(void **state)
{
    (void)state;
    static const unsigned steps[] = {512, 1024};
    for (unsigned s = 0; s < 2; s++)
        for (unsigned t = 1; t <= 32; t++) {
            struct codec c;
            uint8_t data[1024], ecc[64];
            codec_open(&c, steps[s], t, 0);
            memset(data, 0xff, sizeof data);
            nk_bch_calculate(&c.bch, data, ecc);
            for (unsigned i = 0; i < c.bch.ecc_bytes; i++)
                assert_int_equal(ecc[i], 0xff);
            codec_close(&c);
        }
}

/* Flips `count` distinct random bits over data || code (pad bits excluded). */
static void flip_random(uint8_t *data, uint8_t *ecc, const struct nk_bch *bch, unsigned count,
                        uint64_t *seed, unsigned *chosen)
{
    unsigned nbits = 8 * bch->step_size + bch->ecc_bits;
    unsigned drawn[64];
    for (unsigned k = 0; k < count; k++) {
        unsigned p;
        bool again;
        do {
            p = (unsigned)(nk_test_splitmix64(seed) % nbits);
            again = false;
            for (unsigned q = 0; q < k; q++)
                again |= drawn[q] == p;
        } while (again);
        drawn[k] = p;
        chosen[k] = p;
        if (p < 8 * bch->step_size) {
            data[p >> 3] ^= (uint8_t)(1u << (p & 7));
        } else {
            /* code bit q counts MSB-first; the fixture numbering is LSB-first
             * within each byte, as for data */
            unsigned q = p - 8 * bch->step_size;
            unsigned byte = q / 8, bit = 7 - q % 8;
            ecc[byte] ^= (uint8_t)(1u << bit);
            chosen[k] = 8 * bch->step_size + 8 * byte + bit;
        }
    }
}

/* Any k <= t errors, anywhere in data || code, are corrected and located. */
static void random_errors_are_corrected(unsigned step, unsigned t, unsigned flags, unsigned trials,
                                        uint64_t seed)
{
    struct codec c;
    codec_open(&c, step, t, flags);
    uint8_t clean[2048], data[2048], good[64], read[64], calc[64];
    for (unsigned trial = 0; trial < trials; trial++) {
        nk_test_random(clean, step, seed + trial);
        nk_bch_calculate(&c.bch, clean, good);
        unsigned k = 1 + trial % t, chosen[64], loc[64];
        memcpy(data, clean, step);
        memcpy(read, good, c.bch.ecc_bytes);
        flip_random(data, read, &c.bch, k, &seed, chosen);
        nk_bch_calculate(&c.bch, data, calc);
        int ret = nk_bch_correct(&c.bch, data, read, calc, loc);
        if (ret != (int)k)
            fail_msg("bch%u-%u flags %u trial %u: %u errors, ret %d", t, step, flags, trial, k,
                     ret);
        assert_memory_equal(data, clean, step);
        qsort(chosen, k, sizeof chosen[0], nk_uint_compare);
        qsort(loc, k, sizeof loc[0], nk_uint_compare);
        assert_memory_equal(chosen, loc, k * sizeof loc[0]);
    }
    codec_close(&c);
}

static void test_up_to_t_errors_corrected_every_strength_m13(void **state)
{
    (void)state;
    for (unsigned t = 1; t <= 32; t++)
        random_errors_are_corrected(512, t, 0, 3 * t + 8, 1000u * t);
}

static void test_up_to_t_errors_corrected_every_strength_m14(void **state)
{
    (void)state;
    for (unsigned t = 1; t <= 32; t++)
        random_errors_are_corrected(1024, t, 0, 3 * t + 8, 7000u * t);
}

static void test_up_to_t_errors_corrected_small_tables(void **state)
{
    (void)state;
    for (unsigned t = 1; t <= 16; t++) {
        random_errors_are_corrected(512, t, NK_BCH_SMALL_TABLES, 2 * t + 4, 300u * t);
        random_errors_are_corrected(1024, t, NK_BCH_SMALL_TABLES, 2 * t + 4, 900u * t);
    }
}

/* The middle option: small tables plus the syndrome tables costs exactly
 * the syndrome tables' t x 1280 bytes more than small tables, stays below
 * the full tables, and corrects as they do. */
static void test_syndrome_tables_beside_small_ones(void **state)
{
    (void)state;
    for (unsigned m = 13; m <= 14; m++)
        for (unsigned t = 1; t <= 16; t++) {
            size_t small = nk_bch_workspace_size(m, t, NK_BCH_SMALL_TABLES);
            size_t mid = nk_bch_workspace_size(m, t, NK_BCH_SMALL_TABLES | NK_BCH_SYNDROME_TABLES);
            assert_int_equal(mid - small, (size_t)t * 1280u);
            assert_true(mid < nk_bch_workspace_size(m, t, 0));
            /* alone, the flag changes nothing: full tables have them */
            assert_int_equal(nk_bch_workspace_size(m, t, NK_BCH_SYNDROME_TABLES),
                             nk_bch_workspace_size(m, t, 0));
        }
    for (unsigned t = 1; t <= 16; t += 3)
        random_errors_are_corrected(512, t, NK_BCH_SMALL_TABLES | NK_BCH_SYNDROME_TABLES, 2 * t + 4,
                                    700u * t);
}

static void test_many_random_decodes_bch8_512(void **state)
{
    (void)state;
    random_errors_are_corrected(512, 8, 0, 3000, 42);
    random_errors_are_corrected(512, 4, 0, 3000, 43);
}

/* Beyond t the decoder either refuses (-EBADMSG, data untouched) or lands on
 * another codeword at most t bits away; it never reports more than t. */
static void test_beyond_t_never_claims_more_than_t(void **state)
{
    (void)state;
    struct codec c;
    codec_open(&c, 512, 8, 0);
    uint64_t seed = 99;
    unsigned refused = 0;
    for (unsigned trial = 0; trial < 300; trial++) {
        uint8_t clean[512], data[512], before[512], good[64], read[64], calc[64];
        unsigned chosen[64];
        nk_test_random(clean, 512, 5000 + trial);
        nk_bch_calculate(&c.bch, clean, good);
        memcpy(data, clean, 512);
        memcpy(read, good, c.bch.ecc_bytes);
        flip_random(data, read, &c.bch, 9 + trial % 8, &seed, chosen);
        memcpy(before, data, 512);
        nk_bch_calculate(&c.bch, data, calc);
        int ret = nk_bch_correct(&c.bch, data, read, calc, NULL);
        assert_true(ret == -NK_EBADMSG || (ret >= 1 && ret <= 8));
        if (ret == -NK_EBADMSG) {
            assert_memory_equal(data, before, 512);
            refused++;
        }
    }
    assert_true(refused > 250);
    codec_close(&c);
}

static void test_small_tables_match_full_tables(void **state)
{
    (void)state;
    for (unsigned t = 1; t <= 32; t += 3) {
        struct codec full, small;
        codec_open(&full, 1024, t, 0);
        codec_open(&small, 1024, t, NK_BCH_SMALL_TABLES);
        assert_true(small.bch.tables_size < full.bch.tables_size);
        for (unsigned trial = 0; trial < 20; trial++) {
            uint8_t data[1024], a[64], b[64];
            nk_test_random(data, sizeof data, t * 100 + trial);
            nk_bch_calculate(&full.bch, data, a);
            nk_bch_calculate(&small.bch, data, b);
            assert_memory_equal(a, b, full.bch.ecc_bytes);
        }
        codec_close(&full);
        codec_close(&small);
    }
}

/* Other fields and step sizes (m = 10, 12, 13 with a tail that is not a
 * whole 16 or 8 bytes, 15): the sliced encoder agrees with the byte-wise
 * one of the small build, and random errors up to t are corrected. */
static void test_other_step_sizes(void **state)
{
    (void)state;
    static const struct {
        unsigned step, m, t;
    } cases[] = {{100, 10, 3}, {256, 12, 4},  {256, 12, 9},  {520, 13, 5},
                 {523, 13, 8}, {2048, 15, 4}, {2048, 15, 16}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned step = cases[c].step, t = cases[c].t;
        struct nk_bch full, small;
        size_t full_size = nk_bch_workspace_size(cases[c].m, t, 0);
        size_t small_size = nk_bch_workspace_size(cases[c].m, t, NK_BCH_SMALL_TABLES);
        void *a = malloc(full_size), *b = malloc(small_size);
        assert_int_equal(nk_bch_init(&full, step, t, 0, a, full_size), 0);
        assert_int_equal(nk_bch_init(&small, step, t, NK_BCH_SMALL_TABLES, b, small_size), 0);
        assert_int_equal(full.m, cases[c].m);
        uint8_t clean[2048], data[2048], good[64], other[64], read[64], calc[64];
        uint64_t seed = 31 * c + 7;
        for (unsigned trial = 0; trial < 40; trial++) {
            nk_test_random(clean, step, seed + trial);
            nk_bch_calculate(&full, clean, good);
            nk_bch_calculate(&small, clean, other);
            assert_memory_equal(good, other, full.ecc_bytes);
            unsigned k = 1 + trial % t, chosen[64];
            memcpy(data, clean, step);
            memcpy(read, good, full.ecc_bytes);
            flip_random(data, read, &full, k, &seed, chosen);
            nk_bch_calculate(&full, data, calc);
            assert_int_equal(nk_bch_correct(&full, data, read, calc, NULL), (int)k);
            assert_memory_equal(data, clean, step);
        }
        free(a);
        free(b);
    }
}

static void test_clean_step_returns_zero(void **state)
{
    (void)state;
    struct codec c;
    codec_open(&c, 512, 8, 0);
    uint8_t data[512], copy[512], ecc[64];
    nk_test_random(data, sizeof data, 1);
    memcpy(copy, data, sizeof data);
    nk_bch_calculate(&c.bch, data, ecc);
    assert_int_equal(nk_bch_correct(&c.bch, data, ecc, ecc, NULL), 0);
    assert_memory_equal(data, copy, sizeof data);
    codec_close(&c);
}

static void test_pad_bit_flips_are_not_errors(void **state)
{
    (void)state;
    struct codec c;
    codec_open(&c, 512, 4, 0); /* 52 code bits in 7 bytes: 4 pad bits */
    uint8_t data[512], ecc[64], read[64];
    nk_test_random(data, sizeof data, 2);
    nk_bch_calculate(&c.bch, data, ecc);
    assert_int_equal(ecc[6] & 0x0f, 0x0f); /* pad bits are 1 after the mask */
    memcpy(read, ecc, 7);
    read[6] ^= 0x0f;
    assert_int_equal(nk_bch_correct(&c.bch, data, read, ecc, NULL), 0);
    read[6] ^= 0x10; /* and one real code-bit error */
    assert_int_equal(nk_bch_correct(&c.bch, data, read, ecc, NULL), 1);
    codec_close(&c);
}

static void test_engine_wraps_bch(void **state)
{
    (void)state;
    struct codec c;
    struct nk_ecc_engine engine;
    codec_open(&c, 512, 8, 0);
    nk_ecc_bch_engine_init(&engine, &c.bch);
    assert_string_equal(engine.name, "bch8-512");
    assert_int_equal(engine.step_size, 512);
    assert_int_equal(engine.bytes_per_step, 13);
    assert_int_equal(engine.strength, 8);
    assert_int_equal(engine.placement, NK_ECC_PLACEMENT_SOFTWARE);
    uint8_t clean[512], data[512], good[64], bad[64];
    nk_test_random(clean, sizeof clean, 3);
    engine.ops->calculate(&engine, clean, good);
    memcpy(data, clean, sizeof data);
    data[0] ^= 1;
    data[511] ^= 0x80;
    engine.ops->calculate(&engine, data, bad);
    assert_int_equal(engine.ops->correct(&engine, data, good, bad), 2);
    assert_memory_equal(data, clean, sizeof data);
    codec_close(&c);

    codec_open(&c, 1024, 16, 0);
    nk_ecc_bch_engine_init(&engine, &c.bch);
    assert_string_equal(engine.name, "bch16-1024");
    assert_int_equal(engine.bytes_per_step, 28);
    codec_close(&c);
}

static void test_init_rejects_bad_parameters(void **state)
{
    (void)state;
    static uint64_t workspace[1 << 15];
    struct nk_bch bch;
    assert_int_equal(nk_bch_workspace_size(13, 0, 0), 0);
    assert_int_equal(nk_bch_workspace_size(13, 33, 0), 0);
    assert_int_equal(nk_bch_workspace_size(8, 4, 0), 0);
    assert_int_equal(nk_bch_workspace_size(16, 4, 0), 0);
    assert_int_equal(nk_bch_init(&bch, 512, 0, 0, workspace, sizeof workspace), -NK_EINVAL);
    assert_int_equal(nk_bch_init(&bch, 512, 33, 0, workspace, sizeof workspace), -NK_EINVAL);
    assert_int_equal(nk_bch_init(&bch, 0, 4, 0, workspace, sizeof workspace), -NK_EINVAL);
    size_t need = nk_bch_workspace_size(13, 8, 0);
    assert_true(need > 0);
    assert_int_equal(nk_bch_init(&bch, 512, 8, 0, workspace, need - 1), -NK_ENOMEM);
    /* any alignment of the workspace works */
    uint8_t *odd = (uint8_t *)workspace + 3;
    size_t small = nk_bch_workspace_size(13, 8, NK_BCH_SMALL_TABLES);
    assert_true(small < need);
    assert_int_equal(nk_bch_init(&bch, 512, 8, NK_BCH_SMALL_TABLES, odd, small), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calc_m13_t4_512),
        cmocka_unit_test(test_calc_m13_t8_512),
        cmocka_unit_test(test_calc_m14_t8_1024),
        cmocka_unit_test(test_calc_m14_t16_1024),
        cmocka_unit_test(test_calc_m13_t4_512_small_tables),
        cmocka_unit_test(test_calc_m13_t8_512_small_tables),
        cmocka_unit_test(test_calc_m14_t8_1024_small_tables),
        cmocka_unit_test(test_calc_m14_t16_1024_small_tables),
        cmocka_unit_test(test_decode_m13_t4_512),
        cmocka_unit_test(test_decode_m13_t8_512),
        cmocka_unit_test(test_decode_m14_t8_1024),
        cmocka_unit_test(test_decode_m14_t16_1024),
        cmocka_unit_test(test_decode_m13_t4_512_small_tables),
        cmocka_unit_test(test_decode_m13_t8_512_small_tables),
        cmocka_unit_test(test_decode_m14_t8_1024_small_tables),
        cmocka_unit_test(test_decode_m14_t16_1024_small_tables),
        cmocka_unit_test(test_decode_m13_t4_512_syndrome_tables),
        cmocka_unit_test(test_decode_m13_t8_512_syndrome_tables),
        cmocka_unit_test(test_decode_m14_t8_1024_syndrome_tables),
        cmocka_unit_test(test_decode_m14_t16_1024_syndrome_tables),
        cmocka_unit_test(test_syndrome_tables_beside_small_ones),
        cmocka_unit_test(test_erased_step_codes_as_ff),
        cmocka_unit_test(test_up_to_t_errors_corrected_every_strength_m13),
        cmocka_unit_test(test_up_to_t_errors_corrected_every_strength_m14),
        cmocka_unit_test(test_up_to_t_errors_corrected_small_tables),
        cmocka_unit_test(test_many_random_decodes_bch8_512),
        cmocka_unit_test(test_beyond_t_never_claims_more_than_t),
        cmocka_unit_test(test_small_tables_match_full_tables),
        cmocka_unit_test(test_other_step_sizes),
        cmocka_unit_test(test_clean_step_returns_zero),
        cmocka_unit_test(test_pad_bit_flips_are_not_errors),
        cmocka_unit_test(test_engine_wraps_bch),
        cmocka_unit_test(test_init_rejects_bad_parameters),
    };
    return cmocka_run_group_tests_name("ecc_bch", tests, NULL, NULL);
}
