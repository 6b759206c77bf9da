/* SPDX-License-Identifier: MIT */
/*
 * Hard links across remounts, as the interoperability tests against YAFFS2
 * Direct exercise them: a link in another directory than its file stays
 * reachable when the file's own name is unlinked after a remount (the link
 * takes over the file), in RAM at once and after the next mount, in every
 * layout; and a hard link never names a missing object on flash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_testdev.h"
#include "testutil.h"

struct w {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static struct w *w_open(enum nk_fs_layout layout, uint32_t page, uint32_t oob)
{
    struct w *w = calloc(1, sizeof *w);
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&w->t, page, oob, 64, 24, layout, NULL, why))
        fail_msg("device: %s", why->text);
    w->config = nk_fs_testdev_config(&w->t);
    w->config.read_only = false;
    assert_int_equal(nk_fs_format(&w->config, layout), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    return w;
}

static void w_remount(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    int err = nk_fs_mount(&w->fs, &w->config);
    if (err)
        fail_msg("mount: %d %s", err, w->fs.diag.text);
}

static void w_close(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    nk_fs_testdev_close(&w->t);
    free(w);
}

static void put(struct nk_fs *fs, const char *path, const uint8_t *data, size_t len)
{
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC),
                     0);
    assert_int_equal(nk_fs_file_write(&f, data, len), (int32_t)len);
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void expect_file(struct nk_fs *fs, const char *path, const uint8_t *data, size_t len)
{
    struct nk_fs_file f;
    int err = nk_fs_file_open(fs, &f, path, NK_FS_O_RDONLY);
    if (err)
        fail_msg("open %s: %d", path, err);
    uint8_t *buf = malloc(len + 1);
    assert_int_equal(nk_fs_file_read(&f, buf, len + 1), (int32_t)len);
    assert_memory_equal(buf, data, len);
    free(buf);
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void link_in_another_directory(enum nk_fs_layout layout, uint32_t page, uint32_t oob)
{
    struct w *w = w_open(layout, page, oob);
    struct nk_fs *fs = &w->fs;
    uint8_t data[3000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13u + 5u);
    assert_int_equal(nk_fs_mkdir(fs, "/a", 0755), 0);
    assert_int_equal(nk_fs_mkdir(fs, "/b", 0755), 0);
    put(fs, "/a/orig", data, sizeof data);
    assert_int_equal(nk_fs_link(fs, "/a/orig", "/b/hl"), 0);
    w_remount(w);
    assert_int_equal(nk_fs_unlink(fs, "/a/orig"), 0);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_lstat(fs, "/a/orig", &st), -NK_ENOENT);
    int err = nk_fs_lstat(fs, "/b/hl", &st);
    if (err)
        fail_msg("%s: lstat /b/hl after the unlink of /a/orig: %d", nk_fs_layout_name(layout),
                 err);
    assert_int_equal(st.nlink, 1);
    assert_int_equal(st.size, sizeof data);
    expect_file(fs, "/b/hl", data, sizeof data);
    w_remount(w);
    assert_int_equal(nk_fs_lstat(fs, "/b/hl", &st), 0);
    assert_int_equal(st.nlink, 1);
    expect_file(fs, "/b/hl", data, sizeof data);
    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
    w_close(w);
}

static void test_a_link_in_another_directory_takes_over_after_a_remount(void **state)
{
    (void)state;
    link_in_another_directory(NK_FS_LAYOUT_LINUX, 2048, 64);
    link_in_another_directory(NK_FS_LAYOUT_LINUX, 4096, 128);
    link_in_another_directory(NK_FS_LAYOUT_MKYAFFS2, 2048, 64);
    link_in_another_directory(NK_FS_LAYOUT_INBAND, 2048, 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_link_in_another_directory_takes_over_after_a_remount),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
