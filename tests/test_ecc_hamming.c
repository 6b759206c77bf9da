/* SPDX-License-Identifier: MIT */
/*
 * Software Hamming: byte-identical to Linux's ecc_sw_hamming_calculate() and
 * ecc_sw_hamming_correct() on every fixture record, plus the properties the
 * code guarantees for any data (single-bit errors anywhere are repaired,
 * double errors detected, the erased step codes as FF FF FF).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

#include "nk_fixture_jsonl.h"
#include "nk_sha256.h"
#include "testutil.h"

struct hamming_fixture {
    const char *file;
    unsigned step;
    bool sm_order;
};

static const struct hamming_fixture fixtures[] = {
    {"ecc/hamming-256-linux.jsonl", 256, false},
    {"ecc/hamming-256-sm.jsonl", 256, true},
    {"ecc/hamming-512-linux.jsonl", 512, false},
    {"ecc/hamming-512-sm.jsonl", 512, true},
};

static void check_meta(const struct nk_jsonl *file, const struct hamming_fixture *fx)
{
    const cJSON *meta = file->records[0];
    assert_true(nk_json_is(meta, "type", "meta"));
    assert_true(nk_json_is(meta, "scheme", "hamming"));
    assert_int_equal(nk_json_int(meta, "step"), fx->step);
    assert_int_equal(nk_json_bool(meta, "sm_order"), fx->sm_order);
    assert_int_equal(nk_json_int(meta, "ecc_bytes"), 3);
}

/* Every calc record: our code equals Linux's, bytes for bytes. */
static void calc_records_match(const struct hamming_fixture *fx)
{
    struct nk_jsonl file;
    nk_jsonl_load(&file, fx->file);
    check_meta(&file, fx);
    unsigned checked = 0;
    for (size_t i = 1; i < file.count; i++) {
        const cJSON *r = file.records[i];
        if (!nk_json_is(r, "type", "calc"))
            continue;
        uint8_t data[512], want[3], got[3];
        assert_int_equal(nk_json_hex(r, "data", data, sizeof data), fx->step);
        assert_int_equal(nk_json_hex(r, "ecc", want, sizeof want), 3);
        nk_hamming_calculate(data, fx->step, fx->sm_order, got);
        if (memcmp(got, want, 3) != 0)
            fail_msg("%s %s: ecc %02x%02x%02x, Linux %02x%02x%02x", fx->file, nk_json_str(r, "id"),
                     got[0], got[1], got[2], want[0], want[1], want[2]);
        checked++;
    }
    /* 200 random + ff + 00 + idx + 55aa + one bit-N and clr-N per sampled bit */
    assert_int_equal(checked, 220);
    nk_jsonl_free(&file);
}

/* Every correct record: same return value, same data afterwards (digest and
 * differing bits against the clean base), and our code of the corrupted data
 * equals the calc_ecc Linux passed in. */
static void correct_records_match(const struct hamming_fixture *fx)
{
    struct nk_jsonl file;
    nk_jsonl_load(&file, fx->file);
    unsigned checked = 0, by_ret[3] = {0};
    for (size_t i = 1; i < file.count; i++) {
        const cJSON *r = file.records[i];
        if (!nk_json_is(r, "type", "correct"))
            continue;
        const char *id = nk_json_str(r, "id");
        uint8_t data[512], base[512], read_ecc[3], calc_ecc[3], ours[3];
        assert_int_equal(nk_json_hex(r, "data", data, sizeof data), fx->step);
        assert_int_equal(nk_json_hex(r, "read_ecc", read_ecc, 3), 3);
        assert_int_equal(nk_json_hex(r, "calc_ecc", calc_ecc, 3), 3);
        const cJSON *b = nk_jsonl_find(&file, "calc", nk_json_str(r, "base"));
        nk_json_hex(b, "data", base, sizeof base);

        nk_hamming_calculate(data, fx->step, fx->sm_order, ours);
        assert_memory_equal(ours, calc_ecc, 3);

        int ret = nk_hamming_correct(data, fx->step, fx->sm_order, read_ecc, calc_ecc);
        long want = nk_json_int(r, "ret");
        if (ret != want)
            fail_msg("%s %s (%s): ret %d, Linux %ld", fx->file, id, nk_json_str(r, "case"), ret,
                     want);

        char digest[65];
        nk_sha256_hex(data, fx->step, digest);
        if (strcmp(digest, nk_json_str(r, "out_sha256")) != 0)
            fail_msg("%s %s: output data differs from Linux's", fx->file, id);
        assert_int_equal(memcmp(data, base, fx->step) == 0, nk_json_bool(r, "out_equals_base"));
        unsigned diff[32], want_diff[32];
        size_t nd = nk_diff_bits(data, base, fx->step, diff, 32);
        size_t nw = nk_json_uints(r, "out_diff_bits", want_diff, 32);
        assert_int_equal(nd, nw);
        assert_memory_equal(diff, want_diff, nd * sizeof diff[0]);
        by_ret[ret == 0 ? 0 : ret == 1 ? 1 : 2]++;
        checked++;
    }
    assert_int_equal(checked, 164);
    /* Each outcome occurs, so a decoder stuck on one answer cannot pass. */
    assert_true(by_ret[0] > 0 && by_ret[1] > 0 && by_ret[2] > 0);
    nk_jsonl_free(&file);
}

static void test_calc_256_linux(void **state)
{
    (void)state;
    calc_records_match(&fixtures[0]);
}

static void test_calc_256_sm(void **state)
{
    (void)state;
    calc_records_match(&fixtures[1]);
}

static void test_calc_512_linux(void **state)
{
    (void)state;
    calc_records_match(&fixtures[2]);
}

static void test_calc_512_sm(void **state)
{
    (void)state;
    calc_records_match(&fixtures[3]);
}

static void test_correct_256_linux(void **state)
{
    (void)state;
    correct_records_match(&fixtures[0]);
}

static void test_correct_256_sm(void **state)
{
    (void)state;
    correct_records_match(&fixtures[1]);
}

static void test_correct_512_linux(void **state)
{
    (void)state;
    correct_records_match(&fixtures[2]);
}

static void test_correct_512_sm(void **state)
{
    (void)state;
    correct_records_match(&fixtures[3]);
}

static void test_erased_step_codes_as_ff(void **state)
{
    (void)state;
    uint8_t data[512], ecc[3];
    memset(data, 0xff, sizeof data);
    for (unsigned f = 0; f < 4; f++) {
        nk_hamming_calculate(data, fixtures[f].step, fixtures[f].sm_order, ecc);
        assert_int_equal(ecc[0], 0xff);
        assert_int_equal(ecc[1], 0xff);
        assert_int_equal(ecc[2], 0xff);
    }
}

/* Any single data-bit error, at every position, is put right (ret 1). */
static void test_every_single_data_error_is_corrected(void **state)
{
    (void)state;
    for (unsigned f = 0; f < 4; f++) {
        const struct hamming_fixture *fx = &fixtures[f];
        uint8_t clean[512], data[512], good[3], bad[3];
        nk_test_random(clean, fx->step, 0x5eed0000u + f);
        nk_hamming_calculate(clean, fx->step, fx->sm_order, good);
        for (unsigned bit = 0; bit < 8 * fx->step; bit++) {
            memcpy(data, clean, fx->step);
            data[bit >> 3] ^= (uint8_t)(1u << (bit & 7));
            nk_hamming_calculate(data, fx->step, fx->sm_order, bad);
            assert_int_equal(nk_hamming_correct(data, fx->step, fx->sm_order, good, bad), 1);
            assert_memory_equal(data, clean, fx->step);
        }
    }
}

/* A flip in the stored code (any of its 24 bits) leaves the data alone and
 * reports one corrected bit. */
static void test_every_single_code_error_is_recognised(void **state)
{
    (void)state;
    for (unsigned f = 0; f < 4; f++) {
        const struct hamming_fixture *fx = &fixtures[f];
        uint8_t clean[512], data[512], good[3], read[3];
        nk_test_random(clean, fx->step, 0xc0de0000u + f);
        nk_hamming_calculate(clean, fx->step, fx->sm_order, good);
        for (unsigned bit = 0; bit < 24; bit++) {
            memcpy(data, clean, fx->step);
            memcpy(read, good, 3);
            read[bit >> 3] ^= (uint8_t)(1u << (bit & 7));
            assert_int_equal(nk_hamming_correct(data, fx->step, fx->sm_order, read, good), 1);
            assert_memory_equal(data, clean, fx->step);
        }
    }
}

/* Two data-bit errors are never "corrected": always -EBADMSG, data as read. */
static void test_double_data_errors_are_detected(void **state)
{
    (void)state;
    uint64_t seed = 0xd0b1e;
    for (unsigned f = 0; f < 4; f++) {
        const struct hamming_fixture *fx = &fixtures[f];
        uint8_t clean[512], data[512], read_copy[512], good[3], bad[3];
        nk_test_random(clean, fx->step, seed + f);
        nk_hamming_calculate(clean, fx->step, fx->sm_order, good);
        for (unsigned trial = 0; trial < 2000; trial++) {
            unsigned a = (unsigned)(nk_test_splitmix64(&seed) % (8 * fx->step));
            unsigned b = (unsigned)(nk_test_splitmix64(&seed) % (8 * fx->step));
            if (a == b)
                continue;
            memcpy(data, clean, fx->step);
            data[a >> 3] ^= (uint8_t)(1u << (a & 7));
            data[b >> 3] ^= (uint8_t)(1u << (b & 7));
            memcpy(read_copy, data, fx->step);
            nk_hamming_calculate(data, fx->step, fx->sm_order, bad);
            assert_int_equal(nk_hamming_correct(data, fx->step, fx->sm_order, good, bad),
                             -NK_EBADMSG);
            assert_memory_equal(data, read_copy, fx->step);
        }
    }
}

static void test_engine_wraps_hamming(void **state)
{
    (void)state;
    static const char *const names[] = {"hamming256", "hamming256-sm", "hamming512",
                                        "hamming512-sm"};
    for (unsigned f = 0; f < 4; f++) {
        const struct hamming_fixture *fx = &fixtures[f];
        struct nk_ecc_engine engine;
        assert_int_equal(nk_ecc_hamming_init(&engine, fx->step, fx->sm_order), 0);
        assert_string_equal(engine.name, names[f]);
        assert_int_equal(engine.step_size, fx->step);
        assert_int_equal(engine.bytes_per_step, 3);
        assert_int_equal(engine.strength, 1);
        assert_int_equal(engine.placement, NK_ECC_PLACEMENT_SOFTWARE);
        assert_non_null(engine.ops);

        uint8_t data[512], clean[512], direct[3], via[3], bad[3];
        nk_test_random(clean, fx->step, 77 + f);
        nk_hamming_calculate(clean, fx->step, fx->sm_order, direct);
        engine.ops->calculate(&engine, clean, via);
        assert_memory_equal(direct, via, 3);

        memcpy(data, clean, fx->step);
        data[100] ^= 0x10;
        engine.ops->calculate(&engine, data, bad);
        assert_int_equal(engine.ops->correct(&engine, data, via, bad), 1);
        assert_memory_equal(data, clean, fx->step);
    }
}

static void test_engine_rejects_other_step_sizes(void **state)
{
    (void)state;
    struct nk_ecc_engine engine;
    assert_int_equal(nk_ecc_hamming_init(&engine, 1024, false), -NK_EINVAL);
    assert_int_equal(nk_ecc_hamming_init(&engine, 128, true), -NK_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calc_256_linux),
        cmocka_unit_test(test_calc_256_sm),
        cmocka_unit_test(test_calc_512_linux),
        cmocka_unit_test(test_calc_512_sm),
        cmocka_unit_test(test_correct_256_linux),
        cmocka_unit_test(test_correct_256_sm),
        cmocka_unit_test(test_correct_512_linux),
        cmocka_unit_test(test_correct_512_sm),
        cmocka_unit_test(test_erased_step_codes_as_ff),
        cmocka_unit_test(test_every_single_data_error_is_corrected),
        cmocka_unit_test(test_every_single_code_error_is_recognised),
        cmocka_unit_test(test_double_data_errors_are_detected),
        cmocka_unit_test(test_engine_wraps_hamming),
        cmocka_unit_test(test_engine_rejects_other_step_sizes),
    };
    return cmocka_run_group_tests_name("ecc_hamming", tests, NULL, NULL);
}
