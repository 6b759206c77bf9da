/* SPDX-License-Identifier: MIT */
/*
 * OOB layouts: the byte positions of Linux's default layouts (small page,
 * large page legacy Hamming, large page BCH), custom tables, the choice of
 * default per engine, and the free-byte packing of MTD auto-placement.
 *
 * Layouts are compared as maps with one character per OOB byte: 'E' code,
 * 'F' free, '.' neither (bad-block marker bytes and reserved bytes).
 */
#include <stdio.h>
#include <string.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

#include "testutil.h"

static void layout_map(const struct nk_oob_layout *layout, unsigned oob_size, char *map)
{
    memset(map, '.', oob_size);
    map[oob_size] = 0;
    for (unsigned r = 0; r < layout->ecc_count; r++)
        for (unsigned b = 0; b < layout->ecc[r].length; b++)
            map[layout->ecc[r].offset + b] = 'E';
    for (unsigned r = 0; r < layout->free_count; r++)
        for (unsigned b = 0; b < layout->free[r].length; b++)
            map[layout->free[r].offset + b] = 'F';
}

/* `spec` is a run-length description: "2. 38F 24E" = 2 x '.', 38 x 'F'... */
static void expect_map(const struct nk_oob_layout *layout, unsigned oob_size, const char *spec)
{
    char want[1024], got[1024];
    unsigned n = 0;
    const char *p = spec;
    while (*p) {
        unsigned count = 0;
        while (*p >= '0' && *p <= '9')
            count = count * 10 + (unsigned)(*p++ - '0');
        char c = *p++;
        while (count--)
            want[n++] = c;
        while (*p == ' ')
            p++;
    }
    want[n] = 0;
    assert_int_equal(n, oob_size);
    layout_map(layout, oob_size, got);
    if (strcmp(got, want) != 0)
        fail_msg("layout\n got  %s\n want %s", got, want);
}

static void test_small_page_16(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    assert_int_equal(nk_oob_layout_small_page(&l, 16), 0);
    /* ECC 0-3 and 6-7, byte 4 reserved, marker at 5, free 8-15 */
    expect_map(&l, 16, "4E 2. 2E 8F");
    assert_int_equal(nk_oob_free_bytes(&l), 8);
    assert_int_equal(nk_oob_layout_check(&l, 16, 6), 0);
    assert_int_equal(nk_oob_layout_check(&l, 16, 7), -NK_EINVAL);
}

static void test_small_page_8(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    assert_int_equal(nk_oob_layout_small_page(&l, 8), 0);
    expect_map(&l, 8, "3E 2F 1. 2F");
    assert_int_equal(nk_oob_layout_small_page(&l, 64), -NK_EINVAL);
}

static void test_large_hamming_64(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    /* 2048-byte page, Hamming-256: 8 steps x 3 bytes at 40..63 */
    assert_int_equal(nk_oob_layout_large_hamming(&l, 64, 24), 0);
    expect_map(&l, 64, "2. 38F 24E");
    assert_int_equal(l.ecc[0].offset, 40);
    /* Hamming-512: 4 x 3 at 40..51, and Linux's second free section after */
    assert_int_equal(nk_oob_layout_large_hamming(&l, 64, 12), 0);
    expect_map(&l, 64, "2. 38F 12E 12F");
    assert_int_equal(nk_oob_layout_large_hamming(&l, 64, 25), -NK_EINVAL);
}

static void test_large_hamming_128(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    /* 4096-byte page, Hamming-256: 16 x 3 at 80..127 */
    assert_int_equal(nk_oob_layout_large_hamming(&l, 128, 48), 0);
    expect_map(&l, 128, "2. 78F 48E");
    assert_int_equal(nk_oob_free_bytes(&l), 78);
}

static void test_large_bch_code_at_the_end(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    /* bch4-512 on 2048+64: 4 x 7 = 28 bytes at 36..63 */
    assert_int_equal(nk_oob_layout_large(&l, 64, 28), 0);
    expect_map(&l, 64, "2. 34F 28E");
    /* bch8-512 on 2048+64: 4 x 13 = 52 bytes at 12..63 */
    assert_int_equal(nk_oob_layout_large(&l, 64, 52), 0);
    expect_map(&l, 64, "2. 10F 52E");
    /* bch8-512 on 4096+224: 8 x 13 = 104 bytes at 120..223 */
    assert_int_equal(nk_oob_layout_large(&l, 224, 104), 0);
    expect_map(&l, 224, "2. 118F 104E");
    assert_int_equal(nk_oob_layout_large(&l, 64, 63), -NK_EINVAL);
}

static void test_all_free(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    assert_int_equal(nk_oob_layout_all_free(&l, 64, 0), 0); /* mkyaffs2: tags at 0 */
    expect_map(&l, 64, "64F");
    assert_int_equal(nk_oob_layout_all_free(&l, 64, 2), 0);
    expect_map(&l, 64, "2. 62F");
    assert_int_equal(nk_oob_layout_all_free(&l, 64, 64), -NK_EINVAL);
}

static void test_default_per_engine(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    struct nk_ecc_engine none, hamming256, hamming512, on_die, bch_engine;
    nk_ecc_none_init(&none);
    assert_int_equal(nk_ecc_hamming_init(&hamming256, 256, false), 0);
    assert_int_equal(nk_ecc_hamming_init(&hamming512, 512, false), 0);
    nk_ecc_on_die_init(&on_die, 512, 4);

    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, &hamming256), 0);
    expect_map(&l, 64, "2. 38F 24E");
    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, &hamming512), 0);
    expect_map(&l, 64, "2. 38F 12E 12F");
    assert_int_equal(nk_oob_layout_default(&l, 4096, 128, &hamming256), 0);
    expect_map(&l, 128, "2. 78F 48E");
    assert_int_equal(nk_oob_layout_default(&l, 512, 16, &hamming256), 0);
    expect_map(&l, 16, "4E 2. 2E 8F");
    assert_int_equal(nk_oob_layout_default(&l, 256, 8, &hamming256), 0);
    expect_map(&l, 8, "3E 2F 1. 2F");
    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, &none), 0);
    expect_map(&l, 64, "2. 62F");
    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, NULL), 0);
    expect_map(&l, 64, "2. 62F");
    assert_int_equal(nk_oob_layout_default(&l, 512, 16, &none), 0);
    expect_map(&l, 16, "8. 8F");
    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, &on_die), 0);
    expect_map(&l, 64, "2. 62F");

    static uint64_t workspace[20000];
    struct nk_bch bch;
    assert_int_equal(nk_bch_init(&bch, 512, 8, 0, workspace, sizeof workspace), 0);
    nk_ecc_bch_engine_init(&bch_engine, &bch);
    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, &bch_engine), 0);
    expect_map(&l, 64, "2. 10F 52E");
    /* Linux wants an explicit layout for BCH on small pages: a code there
     * would cover the bad-block marker at byte 5. */
    assert_int_equal(nk_oob_layout_default(&l, 512, 16, &bch_engine), -NK_EINVAL);
}

static void test_check_rejects_bad_tables(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    memset(&l, 0, sizeof l);
    l.ecc[0] = (struct nk_oob_region){40, 24};
    l.ecc_count = 1;
    l.free[0] = (struct nk_oob_region){2, 38};
    l.free_count = 1;
    assert_int_equal(nk_oob_layout_check(&l, 64, 24), 0);
    assert_int_equal(nk_oob_layout_check(&l, 64, 25), -NK_EINVAL); /* too little code room */
    assert_int_equal(nk_oob_layout_check(&l, 63, 24), -NK_EINVAL); /* past the OOB */
    l.free[0] = (struct nk_oob_region){2, 39};                     /* overlaps the code */
    assert_int_equal(nk_oob_layout_check(&l, 64, 24), -NK_EINVAL);
    l.free[0] = (struct nk_oob_region){2, 10};
    l.free[1] = (struct nk_oob_region){11, 4}; /* free overlapping free */
    l.free_count = 2;
    assert_int_equal(nk_oob_layout_check(&l, 64, 24), -NK_EINVAL);
}

/* A custom layout (e.g. a controller's): regions in any order, packing in
 * table order. */
static void test_custom_table_packing(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    memset(&l, 0, sizeof l);
    l.ecc[0] = (struct nk_oob_region){8, 4};
    l.ecc[1] = (struct nk_oob_region){24, 4};
    l.ecc_count = 2;
    l.free[0] = (struct nk_oob_region){16, 4};
    l.free[1] = (struct nk_oob_region){2, 6};
    l.free_count = 2;
    assert_int_equal(nk_oob_layout_check(&l, 32, 8), 0);
    assert_int_equal(nk_oob_free_bytes(&l), 10);

    uint8_t oob[32], user[10], back[10];
    memset(oob, 0xee, sizeof oob);
    for (unsigned i = 0; i < 10; i++)
        user[i] = (uint8_t)(0xa0 + i);
    nk_oob_free_set(&l, oob, user, 0, 10);
    static const uint8_t want_free[32] = {
        0xee, 0xee, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xee, 0xee, 0xee,
        0xee, 0xee, 0xee, 0xee, 0xee, 0xa0, 0xa1, 0xa2, 0xa3, 0xee, 0xee,
        0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee, 0xee,
    };
    assert_memory_equal(oob, want_free, 32);
    nk_oob_free_get(&l, oob, back, 0, 10);
    assert_memory_equal(back, user, 10);

    uint8_t code[8] = {1, 2, 3, 4, 5, 6, 7, 8}, code_back[8];
    nk_oob_ecc_set(&l, oob, code, 8);
    assert_memory_equal(oob + 8, code, 4);
    assert_memory_equal(oob + 24, code + 4, 4);
    nk_oob_ecc_get(&l, oob, code_back, 8);
    assert_memory_equal(code_back, code, 8);
    assert_memory_equal(oob + 16, user, 4); /* the code did not touch free bytes */
}

/* MTD auto-placement: user byte k goes to the k-th free byte in region
 * order, whatever offset and length the access uses. */
static void test_free_bytes_pack_in_order_at_any_offset(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    assert_int_equal(nk_oob_layout_large_hamming(&l, 64, 12), 0); /* free 2..39, 52..63 */
    unsigned positions[64], count = 0;
    for (unsigned b = 2; b < 40; b++)
        positions[count++] = b;
    for (unsigned b = 52; b < 64; b++)
        positions[count++] = b;
    assert_int_equal(nk_oob_free_bytes(&l), count);

    for (unsigned offset = 0; offset < count; offset++)
        for (unsigned len = 0; offset + len <= count; len += 7) {
            uint8_t oob[64], user[64], back[64];
            memset(oob, 0x11, sizeof oob);
            for (unsigned i = 0; i < len; i++)
                user[i] = (uint8_t)(offset + i + 100);
            nk_oob_free_set(&l, oob, user, offset, len);
            for (unsigned b = 0; b < 64; b++) {
                uint8_t want = 0x11;
                for (unsigned k = offset; k < offset + len; k++)
                    if (positions[k] == b)
                        want = (uint8_t)(k + 100);
                assert_int_equal(oob[b], want);
            }
            nk_oob_free_get(&l, oob, back, offset, len);
            assert_memory_equal(back, user, len);
        }
}

/* The YAFFS2 default of SPEC.md: packed tags at OOB 2..29 with the legacy
 * Hamming layout of a 2048+64 page. */
static void test_yaffs_tags_land_at_2_to_29(void **state)
{
    (void)state;
    struct nk_oob_layout l;
    struct nk_ecc_engine hamming;
    assert_int_equal(nk_ecc_hamming_init(&hamming, 256, false), 0);
    assert_int_equal(nk_oob_layout_default(&l, 2048, 64, &hamming), 0);
    uint8_t oob[64], tags[28];
    memset(oob, 0xff, sizeof oob);
    for (unsigned i = 0; i < 28; i++)
        tags[i] = (uint8_t)i;
    nk_oob_free_set(&l, oob, tags, 0, 28);
    assert_memory_equal(oob + 2, tags, 28);
    assert_int_equal(oob[1], 0xff);
    assert_int_equal(oob[30], 0xff);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_page_16),
        cmocka_unit_test(test_small_page_8),
        cmocka_unit_test(test_large_hamming_64),
        cmocka_unit_test(test_large_hamming_128),
        cmocka_unit_test(test_large_bch_code_at_the_end),
        cmocka_unit_test(test_all_free),
        cmocka_unit_test(test_default_per_engine),
        cmocka_unit_test(test_check_rejects_bad_tables),
        cmocka_unit_test(test_custom_table_packing),
        cmocka_unit_test(test_free_bytes_pack_in_order_at_any_offset),
        cmocka_unit_test(test_yaffs_tags_land_at_2_to_29),
    };
    return cmocka_run_group_tests_name("ecc_layout", tests, NULL, NULL);
}
