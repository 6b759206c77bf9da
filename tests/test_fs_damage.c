/* SPDX-License-Identifier: MIT */
/*
 * Pages whose tags cannot be decoded never turn into silent zeros or
 * silently missing data: the mount counts them (nk_fs_damaged()), stat
 * flags the objects that may have lost chunks, and reading a hole of a
 * damaged file system fails with -NK_EIO. The image is built by the builder
 * in the linux layout, where the tags sit outside the data ECC, and two
 * bits of one data chunk's tags are flipped.
 */
#include <string.h>

#include "fs/fs_codec.h"
#include "fs_testdev.h"
#include "testutil.h"

#define PAGE 2048u
#define OOB 64u
#define PPB 16u
#define BLOCKS 16u

static uint8_t data_of(uint32_t i)
{
    return (uint8_t)(i * 13u + (i >> 11));
}

/* Root: "big" (3 chunks + 100 bytes), "small" (1 chunk). */
static void build(struct nk_fs_testdev *d)
{
    struct nk_diag why[1];
    assert_int_equal(nk_fs_testdev_open(d, PAGE, OOB, PPB, BLOCKS, NK_FS_LAYOUT_LINUX, NULL, why),
                     0);
    static uint8_t workspace[PAGE + OOB];
    struct nk_fs_builder b;
    struct nk_fs_build_config bc;
    memset(&bc, 0, sizeof bc);
    bc.part = &d->part;
    bc.layout = NK_FS_LAYOUT_LINUX;
    assert_int_equal(nk_fs_build_begin(&b, &bc, workspace, sizeof workspace), 0);
    const char *names[2] = {"big", "small"};
    uint32_t sizes[2] = {3 * PAGE + 100, 500};
    for (int f = 0; f < 2; f++) {
        struct nk_fs_build_entry e;
        memset(&e, 0, sizeof e);
        e.type = NK_FS_TYPE_FILE;
        e.parent_id = NK_FS_OBJ_ROOT;
        e.name = names[f];
        e.name_len = strlen(names[f]);
        e.attr.mode = 0644;
        assert_int_equal(nk_fs_build_object(&b, &e, NULL), 0);
        static uint8_t buf[4 * PAGE];
        for (uint32_t i = 0; i < sizes[f]; i++)
            buf[i] = data_of(i);
        assert_int_equal(nk_fs_build_data(&b, buf, sizes[f]), 0);
        assert_int_equal(nk_fs_build_file_end(&b), 0);
    }
    assert_int_equal(nk_fs_build_finish(&b, NULL), 0);
}

/* Partition page holding data chunk `chunk_id` of the object named by the
 * tags (found by scanning the raw tags). */
static uint32_t find_chunk(struct nk_fs_testdev *d, uint32_t chunk_id, uint32_t *obj_id)
{
    for (uint32_t p = 0; p < PPB * BLOCKS; p++) {
        uint8_t raw[28];
        assert_int_equal(nk_sim_page_peek(d->sim, p, PAGE + 2, raw, sizeof raw), 0);
        struct nk_fs_tags t;
        if (nk_fs_tags_decode(raw, true, &t) == NK_FS_TAGS_CLEAN && !t.extra &&
            t.chunk_id == chunk_id && t.obj_id == *obj_id)
            return p;
    }
    fail_msg("chunk %u of object %u not found", chunk_id, *obj_id);
    return 0;
}

static void flip_two_tag_bits(struct nk_fs_testdev *d, uint32_t page)
{
    uint8_t raw[2];
    assert_int_equal(nk_sim_page_peek(d->sim, page, PAGE + 2 + 4, raw, 2), 0);
    raw[0] ^= 0x01; /* object id, low byte */
    raw[1] ^= 0x10;
    assert_int_equal(nk_sim_page_poke(d->sim, page, PAGE + 2 + 4, raw, 2), 0);
}

static void test_undecodable_tags_make_the_hole_an_error_not_zeros(void **state)
{
    (void)state;
    struct nk_fs_testdev d;
    build(&d);
    struct nk_fs_config config = nk_fs_testdev_config(&d);
    struct nk_fs fs;
    assert_int_equal(nk_fs_mount(&fs, &config), 0);
    assert_int_equal(nk_fs_damaged(&fs), 0);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&fs, "/big", &st), 0);
    assert_false(st.at_risk);
    uint32_t big = st.obj_id;
    nk_fs_unmount(&fs);

    /* Chunk 2 of "big": its tags cannot be decoded any more. */
    flip_two_tag_bits(&d, find_chunk(&d, 2, &big));
    assert_int_equal(nk_fs_mount(&fs, &config), 0);
    assert_int_equal(nk_fs_damaged(&fs), 1);
    assert_int_equal(fs.stats.tags_uncorrectable, 1);
    assert_int_equal(nk_fs_stat(&fs, "/big", &st), 0);
    assert_true(st.at_risk);
    assert_int_equal(st.size, 3 * PAGE + 100);
    assert_int_equal(nk_fs_stat(&fs, "/small", &st), 0);
    assert_false(st.at_risk); /* complete: nothing of it can be missing */

    struct nk_fs_file f;
    static uint8_t buf[4 * PAGE];
    assert_int_equal(nk_fs_file_open(&fs, &f, "/big", NK_FS_O_RDONLY), 0);
    /* The first chunk reads; the read stops where the lost chunk starts. */
    assert_int_equal(nk_fs_file_read(&f, buf, sizeof buf), PAGE);
    for (uint32_t i = 0; i < PAGE; i++)
        assert_int_equal(buf[i], data_of(i));
    assert_int_equal(nk_fs_file_read(&f, buf, sizeof buf), -NK_EIO);
    assert_int_equal(nk_fs_file_pread(&f, buf, 10, PAGE + 5), -NK_EIO);
    /* Past the hole the data is there. */
    assert_int_equal(nk_fs_file_pread(&f, buf, 100, 3 * PAGE), 100);
    assert_int_equal(buf[0], data_of(3 * PAGE));
    nk_fs_file_close(&f);

    assert_int_equal(nk_fs_file_open(&fs, &f, "/small", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_file_read(&f, buf, sizeof buf), 500);
    nk_fs_file_close(&f);
    nk_fs_unmount(&fs);
    nk_fs_testdev_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undecodable_tags_make_the_hole_an_error_not_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
