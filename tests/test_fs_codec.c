/* SPDX-License-Identifier: MIT */
/*
 * The file system's pure codecs: packed tags2 with the extra header packing,
 * the YAFFS tags ECC (single-bit correction, double-bit detection), the
 * object header (unset fields, 64-bit times and sizes, in-band copies), and
 * the static pool allocator.
 */
#include <string.h>

#include "fs/fs_codec.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "testutil.h"

/* linux-2k-nockpt, page 8, OOB 2..29: a file header with extra packing
 * (docs/fs-format.md, section 9). */
static const uint8_t fixture_tags[28] = {0x00, 0x11, 0x00, 0x00, 0x6c, 0x02, 0x00, 0x10, 0x06, 0x01,
                                         0x00, 0x80, 0x34, 0x79, 0x52, 0x00, 0x1a, 0x54, 0x8b, 0x40,
                                         0x0f, 0x00, 0x00, 0x00, 0xf0, 0xff, 0xff, 0xff};

static void test_tags_ecc_matches_a_yaffs_written_page(void **state)
{
    (void)state;
    uint8_t ecc[12];
    nk_fs_tags_ecc_calc(fixture_tags, ecc);
    assert_int_equal(ecc[0], fixture_tags[16]);
    /* Padding (17..19) is not part of the code: YAFFS leaves garbage there. */
    assert_memory_equal(ecc + 4, fixture_tags + 20, 8);
    uint8_t tags[16];
    memcpy(tags, fixture_tags, 16);
    assert_int_equal(nk_fs_tags_ecc_correct(tags, fixture_tags + 16), 0);
}

static void test_extra_packed_header_tags_decode_to_type_parent_and_size(void **state)
{
    (void)state;
    struct nk_fs_tags t;
    assert_int_equal(nk_fs_tags_decode(fixture_tags, true, &t), NK_FS_TAGS_CLEAN);
    assert_int_equal(t.seq, 0x1100);
    assert_true(t.extra);
    assert_int_equal(t.obj_id, 620);
    assert_int_equal(t.chunk_id, 0);
    assert_int_equal(t.extra_type, NK_FS_TYPE_FILE);
    assert_int_equal(t.extra_parent_id, 262);
    assert_false(t.extra_shrink);
    assert_false(t.extra_shadows);
    assert_int_equal(t.extra_size_or_equiv, 5404980);
}

static void test_every_single_bit_flip_in_the_tags_is_corrected(void **state)
{
    (void)state;
    for (unsigned bit = 0; bit < 16 * 8; bit++) {
        uint8_t raw[28];
        memcpy(raw, fixture_tags, sizeof raw);
        raw[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        struct nk_fs_tags t;
        assert_int_equal(nk_fs_tags_decode(raw, true, &t), NK_FS_TAGS_CORRECTED);
        assert_int_equal(t.obj_id, 620);
        assert_int_equal(t.extra_parent_id, 262);
        assert_int_equal(t.extra_size_or_equiv, 5404980);
        assert_int_equal(t.seq, 0x1100);
    }
}

static void test_a_single_flip_in_the_code_leaves_the_tags_usable(void **state)
{
    (void)state;
    const unsigned code_bytes[] = {16, 20, 21, 22, 23, 24, 25, 26, 27};
    for (unsigned i = 0; i < sizeof code_bytes / sizeof code_bytes[0]; i++) {
        for (unsigned bit = 0; bit < 8; bit++) {
            if (code_bytes[i] == 16 && bit >= 6)
                continue; /* bits 6 and 7 of the column parity are always zero */
            uint8_t raw[28];
            memcpy(raw, fixture_tags, sizeof raw);
            raw[code_bytes[i]] ^= (uint8_t)(1u << bit);
            struct nk_fs_tags t;
            assert_int_equal(nk_fs_tags_decode(raw, true, &t), NK_FS_TAGS_CORRECTED);
            assert_int_equal(t.obj_id, 620);
        }
    }
}

static void test_padding_bytes_are_ignored(void **state)
{
    (void)state;
    uint8_t raw[28];
    memcpy(raw, fixture_tags, sizeof raw);
    raw[17] = 0x00;
    raw[18] = 0xff;
    raw[19] = 0x5a;
    struct nk_fs_tags t;
    assert_int_equal(nk_fs_tags_decode(raw, true, &t), NK_FS_TAGS_CLEAN);
}

static void test_every_double_bit_flip_in_the_tags_is_detected(void **state)
{
    (void)state;
    unsigned pairs = 0;
    for (unsigned a = 0; a < 128; a++) {
        for (unsigned b = a + 1; b < 128; b++) {
            uint8_t raw[28];
            memcpy(raw, fixture_tags, sizeof raw);
            raw[a / 8] ^= (uint8_t)(1u << (a % 8));
            raw[b / 8] ^= (uint8_t)(1u << (b % 8));
            struct nk_fs_tags t;
            int status = nk_fs_tags_decode(raw, true, &t);
            /* Flipping the sequence word to all ones reads as unwritten,
             * which is also never taken as data. */
            if (status != NK_FS_TAGS_UNWRITTEN)
                assert_int_equal(status, -NK_EBADMSG);
            pairs++;
        }
    }
    assert_int_equal(pairs, 128 * 127 / 2);
}

static void test_erased_tags_read_as_unwritten_even_with_a_bitflip(void **state)
{
    (void)state;
    uint8_t raw[28];
    memset(raw, 0xff, sizeof raw);
    struct nk_fs_tags t;
    assert_int_equal(nk_fs_tags_decode(raw, true, &t), NK_FS_TAGS_UNWRITTEN);
    raw[3] = 0xef; /* one flipped bit in the sequence number */
    assert_int_equal(nk_fs_tags_decode(raw, true, &t), NK_FS_TAGS_UNWRITTEN);
    raw[9] = 0xfe; /* two: no longer an erased page */
    assert_int_equal(nk_fs_tags_decode(raw, true, &t), -NK_EBADMSG);
}

static void test_encode_then_decode_round_trips_data_and_header_tags(void **state)
{
    (void)state;
    struct nk_fs_tags in = {.seq = 0x1234, .obj_id = 0x3ffff, .chunk_id = 77, .n_bytes = 2048};
    uint8_t raw[28];
    nk_fs_tags_encode(&in, true, raw);
    struct nk_fs_tags out;
    assert_int_equal(nk_fs_tags_decode(raw, true, &out), NK_FS_TAGS_CLEAN);
    assert_int_equal(out.seq, 0x1234);
    assert_int_equal(out.obj_id, 0x3ffff);
    assert_int_equal(out.chunk_id, 77);
    assert_int_equal(out.n_bytes, 2048);
    assert_false(out.extra);

    struct nk_fs_tags hdr = {.seq = 0x1000,
                             .obj_id = 300,
                             .extra = true,
                             .extra_type = NK_FS_TYPE_HARDLINK,
                             .extra_parent_id = 257,
                             .extra_shrink = true,
                             .extra_shadows = true,
                             .extra_size_or_equiv = 299};
    nk_fs_tags_encode(&hdr, false, raw);
    /* The extra flags live in the chunk-id word, the type in the id's top. */
    assert_int_equal(raw[11], 0x80 | 0x40 | 0x20);
    assert_int_equal(raw[7], 0x40);
    assert_int_equal(nk_fs_tags_decode(raw, false, &out), NK_FS_TAGS_CLEAN);
    assert_true(out.extra);
    assert_int_equal(out.chunk_id, 0);
    assert_int_equal(out.obj_id, 300);
    assert_int_equal(out.extra_type, NK_FS_TYPE_HARDLINK);
    assert_int_equal(out.extra_parent_id, 257);
    assert_true(out.extra_shrink);
    assert_true(out.extra_shadows);
    assert_int_equal(out.extra_size_or_equiv, 299);
}

static void test_plain_header_tags_keep_the_whole_object_id(void **state)
{
    (void)state;
    /* mkyaffs2image header: chunk 0, n_bytes 0xFFFF, no extra packing. */
    uint8_t raw[16] = {0x00, 0x10, 0, 0, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    struct nk_fs_tags t;
    assert_int_equal(nk_fs_tags_unpack(raw, &t), NK_FS_TAGS_CLEAN);
    assert_false(t.extra);
    assert_int_equal(t.obj_id, 257);
    assert_int_equal(t.chunk_id, 0);
    assert_int_equal(t.n_bytes, 0xffff);
    /* Type bits without the extra flag stay in the id, making it invalid. */
    raw[7] = 0x30;
    nk_fs_tags_unpack(raw, &t);
    assert_int_equal(t.obj_id, 0x30000101u);
}

/* ----- object header --------------------------------------------------------------- */

static void test_header_round_trips_every_field(void **state)
{
    (void)state;
    const char *name = "r\xc3\xa9sum\xc3\xa9.txt";
    const char *alias = "../../data/big/blob3m.bin";
    struct nk_fs_header in = {
        .type = NK_FS_TYPE_FILE,
        .parent_id = 260,
        .name = (const uint8_t *)name,
        .name_len = (uint16_t)strlen(name),
        .mode = 0100644,
        .uid = 1000,
        .gid = 100,
        .rdev = 7,
        .atime = 1704283358,
        .mtime = 0x1000000aaull, /* beyond 2^32: needs the 64-bit field */
        .ctime = 4102444800ull,  /* 2100 */
        .size = 0x123456789ull,
        .equiv_id = 0,
        .alias = (const uint8_t *)alias,
        .alias_len = (uint16_t)strlen(alias),
        .shadows = 512,
        .shrink = true,
    };
    uint8_t chunk[2048];
    assert_int_equal(nk_fs_header_encode(&in, chunk, sizeof chunk), 0);
    struct nk_fs_header out;
    assert_int_equal(nk_fs_header_decode(chunk, sizeof chunk, false, &out), 0);
    assert_int_equal(out.type, NK_FS_TYPE_FILE);
    assert_int_equal(out.parent_id, 260);
    assert_int_equal(out.name_len, strlen(name));
    assert_memory_equal(out.name, name, out.name_len);
    assert_int_equal(out.mode, 0100644);
    assert_int_equal(out.uid, 1000);
    assert_int_equal(out.gid, 100);
    assert_int_equal(out.rdev, 7);
    assert_int_equal(out.atime, 1704283358);
    assert_int_equal(out.mtime, 0x1000000aaull);
    assert_int_equal(out.ctime, 4102444800ull);
    assert_int_equal(out.size, 0x123456789ull);
    assert_int_equal(out.alias_len, strlen(alias));
    assert_memory_equal(out.alias, alias, out.alias_len);
    assert_int_equal(out.shadows, 512);
    assert_true(out.shrink);
    /* The in-band copies say the same. */
    assert_int_equal(nk_fs_header_decode(chunk, sizeof chunk, true, &out), 0);
    assert_int_equal(out.shadows, 512);
    assert_true(out.shrink);
    /* The fields sit where the format says. */
    assert_int_equal(chunk[268], 0xa4);
    assert_int_equal(chunk[269], 0x81);
    assert_int_equal(chunk[300], '.');
    assert_int_equal(chunk[484], 0x01); /* mtime high word */
}

static void test_all_ones_fields_mean_not_set(void **state)
{
    (void)state;
    /* A mkyaffs2image hard-link header: type, parent, name, target only. */
    uint8_t chunk[512];
    memset(chunk, 0xff, sizeof chunk);
    chunk[0] = NK_FS_TYPE_HARDLINK;
    memset(chunk + 1, 0, 3);
    chunk[4] = 0xef;
    chunk[5] = 0x01;
    memset(chunk + 6, 0, 2);
    memset(chunk + 10, 0, 256);
    memcpy(chunk + 10, "busybox", 7);
    chunk[296] = 0xf0;
    chunk[297] = 0x01;
    chunk[298] = chunk[299] = 0;
    struct nk_fs_header h;
    assert_int_equal(nk_fs_header_decode(chunk, sizeof chunk, false, &h), 0);
    assert_int_equal(h.type, NK_FS_TYPE_HARDLINK);
    assert_int_equal(h.parent_id, 0x1ef);
    assert_int_equal(h.name_len, 7);
    assert_int_equal(h.equiv_id, 0x1f0);
    assert_int_equal(h.shadows, 0);         /* 0xFFFFFFFF shadows nothing */
    assert_false(h.shrink);                 /* 0xFFFFFFFF is not a shrink */
    assert_int_equal(h.size, 0xffffffffu);  /* high word unset: the low word alone */
    assert_int_equal(h.mtime, 0xffffffffu); /* 64-bit field unset: the 32-bit one */
}

static void test_times_before_1970_survive_a_header_round_trip(void **state)
{
    (void)state;
    /* 1960-05-30: the 64-bit field holds the sign extension, high word
     * 0xFFFFFFFF, which must not read as "unset". */
    const int64_t before = -302486400;
    struct nk_fs_header in = {.type = NK_FS_TYPE_FILE, .parent_id = 1, .mode = 0100644};
    in.mtime = (uint64_t)before;
    in.atime = (uint64_t)(int64_t)-1000000000000; /* beyond 32 bits, negative */
    in.ctime = (uint64_t)(int64_t)INT32_MIN;
    uint8_t chunk[512];
    assert_int_equal(nk_fs_header_encode(&in, chunk, sizeof chunk), 0);
    struct nk_fs_header out;
    assert_int_equal(nk_fs_header_decode(chunk, sizeof chunk, false, &out), 0);
    assert_true((int64_t)out.mtime == before);
    assert_true((int64_t)out.atime == -1000000000000);
    assert_true((int64_t)out.ctime == INT32_MIN);
    /* A 64-bit field left all ones by mkyaffs2image still means unset,
     * whatever the 32-bit word says. */
    memset(chunk + 480, 0xff, 8);
    chunk[284] = 0x00;
    chunk[285] = 0x00;
    chunk[286] = 0x00;
    chunk[287] = 0xee;
    assert_int_equal(nk_fs_header_decode(chunk, sizeof chunk, false, &out), 0);
    assert_int_equal(out.mtime, 0xee000000u);
}

static void test_names_and_targets_stop_at_their_field(void **state)
{
    (void)state;
    uint8_t chunk[512];
    memset(chunk, 'a', sizeof chunk); /* no NUL anywhere */
    struct nk_fs_header h;
    assert_int_equal(nk_fs_header_decode(chunk, sizeof chunk, false, &h), 0);
    assert_int_equal(h.name_len, NK_FS_NAME_MAX);
    assert_int_equal(h.alias_len, NK_FS_ALIAS_MAX);
    assert_int_equal(nk_fs_header_decode(chunk, 511, false, &h), -NK_EINVAL);
}

static void test_header_encode_refuses_overlong_names(void **state)
{
    (void)state;
    char name[300];
    memset(name, 'x', sizeof name);
    struct nk_fs_header h = {.type = 1, .name = (const uint8_t *)name, .name_len = 256};
    uint8_t chunk[512];
    assert_int_equal(nk_fs_header_encode(&h, chunk, sizeof chunk), -NK_EINVAL);
    h.name_len = 255;
    assert_int_equal(nk_fs_header_encode(&h, chunk, sizeof chunk), 0);
    assert_int_equal(chunk[10 + 254], 'x');
    assert_int_equal(chunk[10 + 255], 0);
}

/* ----- pool allocator --------------------------------------------------------------- */

static void test_pool_reuses_freed_blocks_of_the_same_size(void **state)
{
    (void)state;
    static uint64_t buffer[512];
    struct nk_fs_pool pool;
    nk_fs_pool_init(&pool, buffer, sizeof buffer);
    struct nk_fs_allocator a = nk_fs_pool_allocator(&pool);
    void *p = a.alloc(a.ctx, 56);
    void *q = a.alloc(a.ctx, 2048);
    assert_non_null(p);
    assert_non_null(q);
    assert_int_equal((uintptr_t)p % 8, 0);
    assert_int_equal(pool.in_use, 56 + 2048);
    a.free(a.ctx, p, 56);
    a.free(a.ctx, q, 2048);
    assert_int_equal(pool.in_use, 0);
    assert_ptr_equal(a.alloc(a.ctx, 56), p);
    assert_ptr_equal(a.alloc(a.ctx, 2048), q);
    assert_int_equal(pool.peak, 56 + 2048);
}

static void test_pool_reports_exhaustion_with_null(void **state)
{
    (void)state;
    static uint64_t buffer[16];
    struct nk_fs_pool pool;
    nk_fs_pool_init(&pool, buffer, sizeof buffer);
    struct nk_fs_allocator a = nk_fs_pool_allocator(&pool);
    assert_non_null(a.alloc(a.ctx, 100));
    assert_null(a.alloc(a.ctx, 100));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags_ecc_matches_a_yaffs_written_page),
        cmocka_unit_test(test_extra_packed_header_tags_decode_to_type_parent_and_size),
        cmocka_unit_test(test_every_single_bit_flip_in_the_tags_is_corrected),
        cmocka_unit_test(test_a_single_flip_in_the_code_leaves_the_tags_usable),
        cmocka_unit_test(test_padding_bytes_are_ignored),
        cmocka_unit_test(test_every_double_bit_flip_in_the_tags_is_detected),
        cmocka_unit_test(test_erased_tags_read_as_unwritten_even_with_a_bitflip),
        cmocka_unit_test(test_encode_then_decode_round_trips_data_and_header_tags),
        cmocka_unit_test(test_plain_header_tags_keep_the_whole_object_id),
        cmocka_unit_test(test_header_round_trips_every_field),
        cmocka_unit_test(test_all_ones_fields_mean_not_set),
        cmocka_unit_test(test_times_before_1970_survive_a_header_round_trip),
        cmocka_unit_test(test_names_and_targets_stop_at_their_field),
        cmocka_unit_test(test_header_encode_refuses_overlong_names),
        cmocka_unit_test(test_pool_reuses_freed_blocks_of_the_same_size),
        cmocka_unit_test(test_pool_reports_exhaustion_with_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
