/* SPDX-License-Identifier: MIT */
/*
 * The clock hook (config.clock): with a clock, times follow POSIX — a
 * create sets atime, mtime and ctime; a data change or truncate sets mtime
 * and ctime; an entry added or removed sets the directory's mtime and ctime;
 * chmod, chown, utimes, link and rename set ctime. The times survive a
 * remount. Without a clock, times stay as given (0 for a new object). A
 * fake clock the test moves by hand decides every expected value.
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
    uint64_t now; /* the fake clock */
};

static uint64_t fake_now(void *ctx)
{
    return ((struct w *)ctx)->now;
}

static struct w *w_open(bool with_clock)
{
    struct w *w = calloc(1, sizeof *w);
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&w->t, 2048, 64, 64, 32, NK_FS_LAYOUT_LINUX, NULL, why))
        fail_msg("device: %s", why->text);
    w->config = nk_fs_testdev_config(&w->t);
    w->config.read_only = false;
    assert_int_equal(nk_fs_format(&w->config, NK_FS_LAYOUT_LINUX), 0);
    if (with_clock)
        w->config.clock = (struct nk_fs_clock){fake_now, w};
    w->now = 1700000000u;
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    return w;
}

static void w_remount(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
}

static void w_close(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    nk_fs_testdev_close(&w->t);
    free(w);
}

static struct nk_fs_stat st_of(struct w *w, const char *path)
{
    struct nk_fs_stat st;
    int err = nk_fs_lstat(&w->fs, path, &st);
    if (err)
        fail_msg("lstat %s: %d", path, err);
    return st;
}

#define EXPECT_TIMES(w, path, a, m, c)                                                             \
    do {                                                                                           \
        struct nk_fs_stat st_ = st_of(w, path);                                                    \
        assert_int_equal(st_.atime, (a));                                                          \
        assert_int_equal(st_.mtime, (m));                                                          \
        assert_int_equal(st_.ctime, (c));                                                          \
    } while (0)

static void put(struct w *w, const char *path, const char *text)
{
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    assert_int_equal(nk_fs_file_write(&f, text, strlen(text)), (int32_t)strlen(text));
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void test_a_create_sets_all_three_times_and_the_parents_mtime_and_ctime(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    assert_int_equal(nk_fs_mkdir(&w->fs, "/d", 0755), 0);
    EXPECT_TIMES(w, "/d", t0, t0, t0);
    w->now = t0 + 10;
    put(w, "/d/f", "x");
    EXPECT_TIMES(w, "/d/f", t0 + 10, t0 + 10, t0 + 10);
    EXPECT_TIMES(w, "/d", t0, t0 + 10, t0 + 10);
    w->now = t0 + 20;
    assert_int_equal(nk_fs_symlink(&w->fs, "f", "/d/s"), 0);
    EXPECT_TIMES(w, "/d/s", t0 + 20, t0 + 20, t0 + 20);
    EXPECT_TIMES(w, "/d", t0, t0 + 20, t0 + 20);
    w_remount(w);
    EXPECT_TIMES(w, "/d", t0, t0 + 20, t0 + 20);
    EXPECT_TIMES(w, "/d/f", t0 + 10, t0 + 10, t0 + 10);
    w_close(w);
}

static void test_a_write_sets_mtime_and_ctime_at_once_and_on_flash_at_close(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    put(w, "/f", "hello");
    w->now = t0 + 5;
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/f", NK_FS_O_RDWR), 0);
    assert_int_equal(nk_fs_file_pwrite(&f, "J", 1, 0), 1); /* same size: data only */
    EXPECT_TIMES(w, "/f", t0, t0 + 5, t0 + 5);
    w->now = t0 + 7;
    assert_int_equal(nk_fs_file_close(&f), 0);
    EXPECT_TIMES(w, "/f", t0, t0 + 7, t0 + 7); /* stamped by the header close wrote */
    w->now = t0 + 100;
    w_remount(w);
    EXPECT_TIMES(w, "/f", t0, t0 + 7, t0 + 7);
    /* Reading changes nothing on flash (no atime updates: see docs). */
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/f", NK_FS_O_RDONLY), 0);
    char buf[8];
    assert_int_equal(nk_fs_file_read(&f, buf, sizeof buf), 5);
    assert_int_equal(nk_fs_file_close(&f), 0);
    EXPECT_TIMES(w, "/f", t0, t0 + 7, t0 + 7);
    w_close(w);
}

static void test_a_truncate_sets_mtime_and_ctime(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    put(w, "/f", "some bytes");
    w->now = t0 + 3;
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/f", NK_FS_O_RDWR), 0);
    assert_int_equal(nk_fs_file_truncate(&f, 4), 0);
    EXPECT_TIMES(w, "/f", t0, t0 + 3, t0 + 3);
    w->now = t0 + 4;
    assert_int_equal(nk_fs_file_close(&f), 0);
    EXPECT_TIMES(w, "/f", t0, t0 + 3, t0 + 3); /* nothing written since */
    w->now = t0 + 9;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/f", NK_FS_O_WRONLY | NK_FS_O_TRUNC), 0);
    assert_int_equal(nk_fs_file_close(&f), 0);
    EXPECT_TIMES(w, "/f", t0, t0 + 9, t0 + 9);
    w_remount(w);
    EXPECT_TIMES(w, "/f", t0, t0 + 9, t0 + 9);
    w_close(w);
}

static void test_removing_an_entry_sets_the_parents_mtime_and_ctime(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    assert_int_equal(nk_fs_mkdir(&w->fs, "/d", 0755), 0);
    assert_int_equal(nk_fs_mkdir(&w->fs, "/d/sub", 0755), 0);
    put(w, "/d/f", "x");
    w->now = t0 + 30;
    assert_int_equal(nk_fs_unlink(&w->fs, "/d/f"), 0);
    EXPECT_TIMES(w, "/d", t0, t0 + 30, t0 + 30);
    w->now = t0 + 40;
    assert_int_equal(nk_fs_rmdir(&w->fs, "/d/sub"), 0);
    EXPECT_TIMES(w, "/d", t0, t0 + 40, t0 + 40);
    EXPECT_TIMES(w, "/", 0, t0, t0); /* the root's header written by the first mkdir */
    w_remount(w);
    EXPECT_TIMES(w, "/d", t0, t0 + 40, t0 + 40);
    w_close(w);
}

static void test_chmod_chown_utimes_link_and_rename_set_ctime(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    assert_int_equal(nk_fs_mkdir(&w->fs, "/a", 0755), 0);
    assert_int_equal(nk_fs_mkdir(&w->fs, "/b", 0755), 0);
    put(w, "/a/f", "x");
    w->now = t0 + 1;
    assert_int_equal(nk_fs_chmod(&w->fs, "/a/f", 0600), 0);
    EXPECT_TIMES(w, "/a/f", t0, t0, t0 + 1);
    w->now = t0 + 2;
    assert_int_equal(nk_fs_chown(&w->fs, "/a/f", 7, 8), 0);
    EXPECT_TIMES(w, "/a/f", t0, t0, t0 + 2);
    w->now = t0 + 3;
    assert_int_equal(nk_fs_utimes(&w->fs, "/a/f", 111, 222), 0);
    EXPECT_TIMES(w, "/a/f", 111, 222, t0 + 3);
    w->now = t0 + 4;
    assert_int_equal(nk_fs_link(&w->fs, "/a/f", "/b/l"), 0);
    EXPECT_TIMES(w, "/a/f", 111, 222, t0 + 4);
    EXPECT_TIMES(w, "/b", t0, t0 + 4, t0 + 4);
    EXPECT_TIMES(w, "/a", t0, t0, t0);
    w->now = t0 + 5;
    assert_int_equal(nk_fs_rename(&w->fs, "/a/f", "/b/g"), 0);
    EXPECT_TIMES(w, "/b/g", 111, 222, t0 + 5);
    EXPECT_TIMES(w, "/a", t0, t0 + 5, t0 + 5);
    EXPECT_TIMES(w, "/b", t0, t0 + 5, t0 + 5);
    w_remount(w);
    EXPECT_TIMES(w, "/b/g", 111, 222, t0 + 5);
    EXPECT_TIMES(w, "/a", t0, t0 + 5, t0 + 5);
    w_close(w);
}

static void test_times_given_after_a_write_win_over_the_clock(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/f", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    assert_int_equal(nk_fs_file_write(&f, "abc", 3), 3);
    w->now = t0 + 50;
    /* cp -a and rsync set the source's times on the open file, then close. */
    assert_int_equal(nk_fs_utimes(&w->fs, "/f", 1000, 2000), 0);
    assert_int_equal(nk_fs_file_close(&f), 0);
    EXPECT_TIMES(w, "/f", 1000, 2000, t0 + 50);
    w_remount(w);
    EXPECT_TIMES(w, "/f", 1000, 2000, t0 + 50);
    w_close(w);
}

static void test_lutimes_and_lchown_change_the_symlink_not_its_target(void **state)
{
    (void)state;
    struct w *w = w_open(true);
    const uint64_t t0 = w->now;
    put(w, "/f", "x");
    assert_int_equal(nk_fs_symlink(&w->fs, "f", "/s"), 0);
    w->now = t0 + 8;
    assert_int_equal(nk_fs_lutimes(&w->fs, "/s", 30, 40), 0);
    assert_int_equal(nk_fs_lchown(&w->fs, "/s", 5, 6), 0);
    EXPECT_TIMES(w, "/s", 30, 40, t0 + 8);
    EXPECT_TIMES(w, "/f", t0, t0, t0);
    struct nk_fs_stat st = st_of(w, "/s");
    assert_int_equal(st.uid, 5);
    assert_int_equal(st_of(w, "/f").uid, 0);
    w_remount(w);
    EXPECT_TIMES(w, "/s", 30, 40, t0 + 8);
    w_close(w);
}

static void test_without_a_clock_times_stay_as_given(void **state)
{
    (void)state;
    struct w *w = w_open(false);
    assert_int_equal(nk_fs_mkdir(&w->fs, "/d", 0755), 0);
    put(w, "/d/f", "x");
    EXPECT_TIMES(w, "/d", 0, 0, 0);
    EXPECT_TIMES(w, "/d/f", 0, 0, 0);
    assert_int_equal(nk_fs_utimes(&w->fs, "/d/f", 5, 9), 0);
    assert_int_equal(nk_fs_chmod(&w->fs, "/d/f", 0600), 0);
    put(w, "/d/f", "more");
    EXPECT_TIMES(w, "/d/f", 5, 9, 9);
    w_remount(w);
    EXPECT_TIMES(w, "/d/f", 5, 9, 9);
    w_close(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_create_sets_all_three_times_and_the_parents_mtime_and_ctime),
        cmocka_unit_test(test_a_write_sets_mtime_and_ctime_at_once_and_on_flash_at_close),
        cmocka_unit_test(test_a_truncate_sets_mtime_and_ctime),
        cmocka_unit_test(test_removing_an_entry_sets_the_parents_mtime_and_ctime),
        cmocka_unit_test(test_chmod_chown_utimes_link_and_rename_set_ctime),
        cmocka_unit_test(test_times_given_after_a_write_win_over_the_clock),
        cmocka_unit_test(test_lutimes_and_lchown_change_the_symlink_not_its_target),
        cmocka_unit_test(test_without_a_clock_times_stay_as_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
