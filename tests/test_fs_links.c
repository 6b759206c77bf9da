/* SPDX-License-Identifier: MIT */
/*
 * Hard links across remounts, as the interoperability tests against YAFFS2
 * Direct exercise them: a link in another directory than its file stays
 * reachable when the file's own name is unlinked after a remount (the link
 * takes over the file), in RAM at once and after the next mount, in every
 * layout; and a hard link never names a missing object on flash. stat's
 * link count follows links as they come and go (two files at a time, so the
 * count kept for one file is left and taken up again), and agrees with a
 * fresh mount.
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

static void expect_nlink(struct nk_fs *fs, const char *path, uint32_t want)
{
    struct nk_fs_stat st;
    int err = nk_fs_lstat(fs, path, &st);
    if (err)
        fail_msg("lstat %s: %d", path, err);
    if (st.nlink != want)
        fail_msg("%s: nlink %u, want %u", path, (unsigned)st.nlink, (unsigned)want);
}

static void test_the_link_count_follows_links_as_they_come_and_go(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64);
    struct nk_fs *fs = &w->fs;
    const uint8_t data[] = "both";
    put(fs, "/x", data, sizeof data);
    put(fs, "/y", data, sizeof data);
    char path[32];
    for (unsigned i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "/x%u", i);
        assert_int_equal(nk_fs_link(fs, "/x", path), 0);
        expect_nlink(fs, "/x", i + 2);
        snprintf(path, sizeof path, "/y%u", i);
        assert_int_equal(nk_fs_link(fs, "/y", path), 0);
        expect_nlink(fs, path, i + 2);
    }
    assert_int_equal(nk_fs_unlink(fs, "/x0"), 0);
    expect_nlink(fs, "/x", 6);
    expect_nlink(fs, "/y", 7);
    assert_int_equal(nk_fs_rename(fs, "/x1", "/y1"), 0); /* a link of /x over one of /y */
    expect_nlink(fs, "/y", 6);
    expect_nlink(fs, "/x", 6);
    assert_int_equal(nk_fs_rename(fs, "/x2", "/x3"), 0); /* the same file: nothing changes */
    expect_nlink(fs, "/x2", 6);
    assert_int_equal(nk_fs_unlink(fs, "/x2"), 0);
    expect_nlink(fs, "/x", 5);
    assert_int_equal(nk_fs_unlink(fs, "/y"), 0); /* the file's own name goes */
    expect_nlink(fs, "/y0", 5);
    assert_int_equal(nk_fs_link(fs, "/y0", "/y6"), 0);
    expect_nlink(fs, "/y5", 6);
    w_remount(w);
    expect_nlink(fs, "/x", 5);
    expect_nlink(fs, "/y0", 6);
    assert_int_equal(nk_fs_unlink(fs, "/x3"), 0);
    expect_nlink(fs, "/y1", 4);
    for (unsigned i = 10; i < 14; i++) { /* one file's links in a row, then away again */
        snprintf(path, sizeof path, "/x%u", i);
        assert_int_equal(nk_fs_link(fs, "/x", path), 0);
        expect_nlink(fs, "/x", i - 5);
    }
    for (unsigned i = 10; i < 14; i++) {
        snprintf(path, sizeof path, "/x%u", i);
        assert_int_equal(nk_fs_unlink(fs, path), 0);
        expect_nlink(fs, "/x", 17 - i);
    }
    w_remount(w);
    expect_nlink(fs, "/x4", 4);
    w_close(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_link_in_another_directory_takes_over_after_a_remount),
        cmocka_unit_test(test_the_link_count_follows_links_as_they_come_and_go),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
