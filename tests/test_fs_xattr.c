/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes: set, get, list and remove with getxattr(2)'s flags
 * and errors; the list kept by every other header write (chmod, chown,
 * utimes, rename, truncate, a file's close, collection copies) and by
 * remounts from the checkpoint and by scan; the record bytes after the
 * 512-byte header as YAFFS2's name-value store lays them out; the builder's
 * lists; and a power cut at every operation of a change, which must leave
 * the old list or the new one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_internal.h"
#include "fs_testdev.h"
#include "testutil.h"

struct w {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static struct w *w_open_layout(uint32_t page, uint32_t oob, enum nk_fs_layout layout)
{
    struct w *w = calloc(1, sizeof *w);
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&w->t, page, oob, 64, 32, layout, NULL, why))
        fail_msg("device: %s", why->text);
    w->config = nk_fs_testdev_config(&w->t);
    w->config.read_only = false;
    assert_int_equal(nk_fs_format(&w->config, layout), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    return w;
}

static struct w *w_open(void)
{
    return w_open_layout(2048, 64, NK_FS_LAYOUT_LINUX);
}

static void w_remount(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    assert_int_equal(w->fs.stats.from_checkpoint, 1);
}

/* Ends the mount as a power cut would: nothing more reaches the flash (the
 * unmount's writes fail), its RAM is given back. */
static void w_drop(struct w *w)
{
    if (nk_sim_powered(w->t.sim))
        nk_sim_power_cut_now(w->t.sim);
    (void)nk_fs_unmount(&w->fs);
    nk_sim_power_cut_cancel(w->t.sim);
    nk_sim_power_restore(w->t.sim);
}

/* Writes a file, then forgets the mount without unmounting (no checkpoint
 * is valid after a write): the next mount scans. */
static void w_rescan(struct w *w)
{
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/.rescan", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    assert_int_equal(nk_fs_file_write(&f, "r", 1), 1);
    assert_int_equal(nk_fs_file_close(&f), 0);
    w_drop(w);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    assert_int_equal(w->fs.stats.from_checkpoint, 0);
}

static void w_close(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    nk_fs_testdev_close(&w->t);
    free(w);
}

static void put(struct w *w, const char *path, const char *text)
{
    struct nk_fs_file f;
    assert_int_equal(
        nk_fs_file_open(&w->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC), 0);
    assert_int_equal(nk_fs_file_write(&f, text, strlen(text)), (int32_t)strlen(text));
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void set(struct w *w, const char *path, const char *name, const char *value)
{
    int err = nk_fs_setxattr(&w->fs, path, name, value, strlen(value), 0);
    if (err)
        fail_msg("setxattr %s %s: %d", path, name, err);
}

/* Asserts that `name` of `path` is `value`. */
static void expect(struct w *w, const char *path, const char *name, const char *value)
{
    char buf[2048];
    int n = nk_fs_getxattr(&w->fs, path, name, buf, sizeof buf);
    if (n < 0)
        fail_msg("getxattr %s %s: %d", path, name, n);
    assert_int_equal(n, (int)strlen(value));
    assert_memory_equal(buf, value, (size_t)n);
}

static void expect_list(struct w *w, const char *path, const char *names, size_t len)
{
    char buf[2048];
    int n = nk_fs_listxattr(&w->fs, path, buf, sizeof buf);
    assert_int_equal(n, (int)len);
    if (len)
        assert_memory_equal(buf, names, len);
}

static void test_set_get_list_remove(void **state)
{
    (void)state;
    struct w *w = w_open();
    put(w, "/f", "data");
    expect_list(w, "/f", "", 0);
    char buf[64];
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.a", buf, sizeof buf), -NK_ENODATA);
    set(w, "/f", "user.a", "alpha");
    set(w, "/f", "security.selinux", "system_u:object_r:etc_t:s0");
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.empty", "", 0, 0), 0);
    expect(w, "/f", "user.a", "alpha");
    expect(w, "/f", "security.selinux", "system_u:object_r:etc_t:s0");
    expect(w, "/f", "user.empty", "");
    static const char names[] = "user.a\0security.selinux\0user.empty";
    expect_list(w, "/f", names, sizeof names);
    /* Size queries, and buffers one byte short. */
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.a", NULL, 0), 5);
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.a", buf, 4), -NK_ERANGE);
    assert_int_equal(nk_fs_listxattr(&w->fs, "/f", NULL, 0), (int)sizeof names);
    assert_int_equal(nk_fs_listxattr(&w->fs, "/f", buf, sizeof names - 1), -NK_ERANGE);
    /* Flags. */
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.a", "x", 1, NK_FS_XATTR_CREATE),
                     -NK_EEXIST);
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.b", "x", 1, NK_FS_XATTR_REPLACE),
                     -NK_ENODATA);
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.a", "x", 1, 3), -NK_EINVAL);
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.a", "beta", 4, NK_FS_XATTR_REPLACE), 0);
    expect(w, "/f", "user.a", "beta");
    /* A replaced value moves to the end of the list. */
    static const char names2[] = "security.selinux\0user.empty\0user.a";
    expect_list(w, "/f", names2, sizeof names2);
    /* Names. */
    char long_name[NK_FS_XATTR_NAME_MAX + 2];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", long_name, "v", 1, 0), -NK_ERANGE);
    long_name[NK_FS_XATTR_NAME_MAX] = 0;
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", long_name, "v", 1, 0), 0);
    expect(w, "/f", long_name, "v");
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "", "v", 1, 0), -NK_EINVAL);
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user", buf, sizeof buf), -NK_ENODATA);
    /* Remove. */
    assert_int_equal(nk_fs_removexattr(&w->fs, "/f", "user.empty"), 0);
    assert_int_equal(nk_fs_removexattr(&w->fs, "/f", "user.empty"), -NK_ENODATA);
    assert_int_equal(nk_fs_removexattr(&w->fs, "/f", long_name), 0);
    static const char names3[] = "security.selinux\0user.a";
    expect_list(w, "/f", names3, sizeof names3);
    assert_int_equal(nk_fs_getxattr(&w->fs, "/missing", "user.a", buf, sizeof buf), -NK_ENOENT);
    /* The data is untouched by all of it. */
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_lstat(&w->fs, "/f", &st), 0);
    assert_int_equal(st.size, 4);
    w_remount(w);
    expect_list(w, "/f", names3, sizeof names3);
    w_close(w);
}

/* The names and values of one object share chunk bytes - 512. */
static void test_room_is_the_header_chunk(void **state)
{
    (void)state;
    struct w *w = w_open();
    put(w, "/f", "x");
    static char big[2048];
    memset(big, 'v', sizeof big);
    /* 2048 - 512 = 1536 bytes: a record of 4 + 7 + 1524 = 1535 fits, as it
     * ends before the area does; one byte more does not. */
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.b", big, 1525, 0), -NK_ENOSPC);
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.b", big, 1524, 0), 0);
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.c", "1", 1, 0), -NK_ENOSPC);
    /* A failed change leaves the list as it was. */
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.b", NULL, 0), 1524);
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.c", NULL, 0), -NK_ENODATA);
    /* Replacing the one value with a smaller one frees the room. */
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.b", big, 100, 0), 0);
    set(w, "/f", "user.c", "1");
    w_remount(w);
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.b", NULL, 0), 100);
    expect(w, "/f", "user.c", "1");
    w_close(w);
}

/* Every header write that is not the attribute change keeps the list. */
static void test_other_header_writes_keep_them(void **state)
{
    (void)state;
    struct w *w = w_open();
    assert_int_equal(nk_fs_mkdir(&w->fs, "/d", 0755), 0);
    put(w, "/d/f", "some data");
    set(w, "/d/f", "user.k", "kept");
    set(w, "/d", "user.dir", "of a directory");
    set(w, "/", "user.root", "of the root");
    assert_int_equal(nk_fs_symlink(&w->fs, "/d/f", "/s"), 0);
    set(w, "/s", "user.link", "the symlink's own");
    assert_int_equal(nk_fs_getxattr(&w->fs, "/d/f", "user.link", NULL, 0), -NK_ENODATA);

    assert_int_equal(nk_fs_chmod(&w->fs, "/d/f", 0600), 0);
    assert_int_equal(nk_fs_chown(&w->fs, "/d/f", 7, 8), 0);
    assert_int_equal(nk_fs_utimes(&w->fs, "/d/f", 1000, 2000), 0);
    assert_int_equal(nk_fs_rename(&w->fs, "/d/f", "/d/g"), 0);
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/d/g", NK_FS_O_WRONLY), 0);
    assert_int_equal(nk_fs_file_truncate(&f, 3), 0);
    assert_int_equal(nk_fs_file_close(&f), 0);
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/d/g", NK_FS_O_WRONLY | NK_FS_O_APPEND), 0);
    assert_int_equal(nk_fs_file_write(&f, "more", 4), 4);
    assert_int_equal(nk_fs_file_close(&f), 0);
    assert_int_equal(nk_fs_chmod(&w->fs, "/d", 0700), 0);
    assert_int_equal(nk_fs_rename(&w->fs, "/d", "/e"), 0);
    /* A hard link reads and writes its file's list. */
    assert_int_equal(nk_fs_link(&w->fs, "/e/g", "/hl"), 0);
    expect(w, "/hl", "user.k", "kept");
    set(w, "/hl", "user.via", "the link");
    expect(w, "/e/g", "user.via", "the link");

    for (int pass = 0; pass < 3; pass++) {
        expect(w, "/e/g", "user.k", "kept");
        expect(w, "/e/g", "user.via", "the link");
        expect(w, "/e", "user.dir", "of a directory");
        expect(w, "/", "user.root", "of the root");
        expect(w, "/s", "user.link", "the symlink's own");
        struct nk_fs_stat st;
        assert_int_equal(nk_fs_lstat(&w->fs, "/e/g", &st), 0);
        assert_int_equal(st.size, 7);
        assert_int_equal(st.mode & 07777, 0600);
        assert_int_equal(st.uid, 7);
        if (pass == 0)
            w_remount(w);
        else if (pass == 1)
            w_rescan(w);
    }
    /* The file's own name removed: the link's file keeps its list. */
    assert_int_equal(nk_fs_unlink(&w->fs, "/e/g"), 0);
    expect(w, "/hl", "user.k", "kept");
    w_rescan(w);
    expect(w, "/hl", "user.k", "kept");
    /* Deleted, a name made again is a new object, without attributes. */
    assert_int_equal(nk_fs_unlink(&w->fs, "/hl"), 0);
    put(w, "/hl", "new");
    expect_list(w, "/hl", "", 0);
    w_close(w);
}

static uint32_t hdr_page_of(struct w *w, const char *path)
{
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_lstat(&w->fs, path, &st), 0);
    return nk_fs_obj_find(&w->fs, st.ino)->header_page;
}

static void write_file(struct w *w, const char *path, size_t len, int seed)
{
    static uint8_t chunk[4096];
    struct nk_fs_file f;
    assert_int_equal(
        nk_fs_file_open(&w->fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC), 0);
    memset(chunk, seed, sizeof chunk);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < sizeof chunk ? len - done : sizeof chunk;
        int32_t put = nk_fs_file_write(&f, chunk, n);
        if (put <= 0)
            fail_msg("write %s at %zu: %d", path, done, (int)put);
        done += (size_t)put;
    }
    assert_int_equal(nk_fs_file_close(&f), 0);
}

/* Collection copies a header with its list: the headers of files with
 * attributes share blocks with data that dies, on a device kept full by a
 * static file, so the collector must move them. */
static void test_collection_keeps_them(void **state)
{
    (void)state;
    struct w *w = w_open();
    write_file(w, "/static", 2u << 20, 1);
    char name[32];
    uint32_t before[8];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "/x%d", i);
        put(w, name, "x");
        char value[64];
        snprintf(value, sizeof value, "value of %d", i);
        set(w, name, "user.n", value);
        before[i] = hdr_page_of(w, name);
        snprintf(name, sizeof name, "/dies%d", i);
        write_file(w, name, 60000, i);
    }
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "/dies%d", i);
        assert_int_equal(nk_fs_unlink(&w->fs, name), 0);
    }
    for (int round = 0; round < 100; round++)
        write_file(w, "/churn", 256u << 10, round);
    struct nk_fs_statfs sf;
    assert_int_equal(nk_fs_statfs(&w->fs, &sf), 0);
    unsigned moved = 0;
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "/x%d", i);
        moved += hdr_page_of(w, name) != before[i];
    }
    printf("    %llu collections, %llu chunks copied, %u of 8 headers moved\n",
           (unsigned long long)sf.blocks_collected, (unsigned long long)sf.chunks_copied, moved);
    assert_true(moved >= 4);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 8; i++) {
            snprintf(name, sizeof name, "/x%d", i);
            char value[64];
            snprintf(value, sizeof value, "value of %d", i);
            expect(w, name, "user.n", value);
        }
        w_rescan(w);
    }
    w_close(w);
}

static void test_read_only_and_errors(void **state)
{
    (void)state;
    struct w *w = w_open();
    put(w, "/f", "x");
    set(w, "/f", "user.a", "1");
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    struct nk_fs_config ro = w->config;
    ro.read_only = true;
    assert_int_equal(nk_fs_mount(&w->fs, &ro), 0);
    expect(w, "/f", "user.a", "1");
    assert_int_equal(nk_fs_setxattr(&w->fs, "/f", "user.b", "2", 1, 0), -NK_EROFS);
    assert_int_equal(nk_fs_removexattr(&w->fs, "/f", "user.a"), -NK_EROFS);
    assert_int_equal(nk_fs_getxattr(&w->fs, "/f", "user.a", NULL, 1), -NK_EINVAL);
    assert_int_equal(nk_fs_getxattr(NULL, "/f", "user.a", NULL, 0), -NK_EINVAL);
    w_close(w);
}

/* The bytes as YAFFS2's name-value store lays them out. */
static void test_record_bytes(void **state)
{
    (void)state;
    uint8_t area[64];
    memset(area, 0xee, sizeof area);
    size_t used = 0;
    assert_int_equal(nk_fs_xattr_pack(area, sizeof area, &used, "user.a", "xyz", 3), 0);
    assert_int_equal(used, 4 + 7 + 3);
    static const uint8_t want[] = {14, 0, 0, 0, 'u', 's', 'e', 'r', '.', 'a', 0, 'x', 'y', 'z',
                                   0xff, 0xff, 0xff, 0xff};
    assert_memory_equal(area, want, sizeof want);
    assert_int_equal(nk_fs_xattr_pack(area, sizeof area, &used, "user.a", "q", 1), -NK_EEXIST);
    assert_int_equal(nk_fs_xattr_pack(area, sizeof area, &used, "b", "", 0), 0);
    assert_int_equal(used, 14 + 6);
    /* 64 bytes: a record must end before the area does. */
    static const char v[64] = {0};
    assert_int_equal(nk_fs_xattr_pack(area, sizeof area, &used, "c", v, 64 - 20 - 6), -NK_ENOSPC);
    assert_int_equal(nk_fs_xattr_pack(area, sizeof area, &used, "c", v, 64 - 20 - 7), 0);
    assert_int_equal(used, 63);

    /* On flash: the header chunk of a file carries them after byte 512. */
    struct w *w = w_open();
    put(w, "/f", "x");
    set(w, "/f", "user.a", "xyz");
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_lstat(&w->fs, "/f", &st), 0);
    uint32_t page = nk_fs_obj_find(&w->fs, st.ino)->header_page;
    static uint8_t data[2048];
    assert_true(nk_part_read_page(&w->t.part, page, data, NULL, NK_OOB_AUTO) >= 0);
    assert_memory_equal(data + 512, want, sizeof want);
    assert_int_equal(nk_fs_removexattr(&w->fs, "/f", "user.a"), 0);
    page = nk_fs_obj_find(&w->fs, st.ino)->header_page;
    assert_true(nk_part_read_page(&w->t.part, page, data, NULL, NK_OOB_AUTO) >= 0);
    for (int i = 512; i < 2048; i++)
        assert_int_equal(data[i], 0xff);
    w_close(w);
}

/* Lists a builder writes, read by a mount, in each layout. */
static void test_builder_lists(void **state)
{
    (void)state;
    static const enum nk_fs_layout layouts[] = {NK_FS_LAYOUT_LINUX, NK_FS_LAYOUT_MKYAFFS2,
                                                NK_FS_LAYOUT_INBAND};
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
        struct nk_fs_testdev t;
        struct nk_diag why[1] = {{""}};
        if (nk_fs_testdev_open(&t, 2048, 64, 64, 32, layouts[l], NULL, why))
            fail_msg("device: %s", why->text);
        size_t ws = nk_fs_build_workspace_size(&t.part);
        void *workspace = malloc(ws);
        struct nk_fs_builder b;
        struct nk_fs_build_config bc = {.part = &t.part, .layout = layouts[l]};
        assert_int_equal(nk_fs_build_begin(&b, &bc, workspace, ws), 0);
        size_t room = nk_fs_build_xattr_room(&b);
        assert_int_equal(room, layouts[l] == NK_FS_LAYOUT_INBAND ? 2048 - 16 - 512 : 2048 - 512);
        uint8_t list[2048];
        size_t used = 0;
        assert_int_equal(nk_fs_xattr_pack(list, room, &used, "user.f", "file", 4), 0);
        assert_int_equal(nk_fs_xattr_pack(list, room, &used, "security.selinux", "lbl", 3), 0);
        struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                      .parent_id = NK_FS_OBJ_ROOT,
                                      .name = "f",
                                      .name_len = 1,
                                      .attr = {.mode = 0644},
                                      .size = 5,
                                      .xattrs = list,
                                      .xattrs_len = used};
        uint32_t id;
        assert_int_equal(nk_fs_build_object(&b, &e, &id), 0);
        assert_int_equal(nk_fs_build_data(&b, "hello", 5), 0);
        assert_int_equal(nk_fs_build_file_end(&b), 0);
        uint8_t dlist[64];
        size_t dused = 0;
        assert_int_equal(nk_fs_xattr_pack(dlist, room, &dused, "user.d", "dir", 3), 0);
        struct nk_fs_build_entry d = {.type = NK_FS_TYPE_DIR,
                                      .parent_id = NK_FS_OBJ_ROOT,
                                      .name = "d",
                                      .name_len = 1,
                                      .attr = {.mode = 0755},
                                      .xattrs = dlist,
                                      .xattrs_len = dused};
        assert_int_equal(nk_fs_build_object(&b, &d, NULL), 0);
        /* Not a list: refused, and the build goes on. */
        struct nk_fs_build_entry bad = d;
        bad.name = "bad";
        bad.name_len = 3;
        bad.xattrs_len = dused - 1;
        assert_int_equal(nk_fs_build_object(&b, &bad, NULL), -NK_EINVAL);
        assert_int_equal(nk_fs_build_finish(&b, NULL), 0);
        free(workspace);

        struct nk_fs fs;
        struct nk_fs_config config = nk_fs_testdev_config(&t);
        assert_int_equal(nk_fs_mount(&fs, &config), 0);
        char buf[64];
        assert_int_equal(nk_fs_getxattr(&fs, "/f", "user.f", buf, sizeof buf), 4);
        assert_memory_equal(buf, "file", 4);
        assert_int_equal(nk_fs_getxattr(&fs, "/f", "security.selinux", buf, sizeof buf), 3);
        assert_int_equal(nk_fs_getxattr(&fs, "/d", "user.d", buf, sizeof buf), 3);
        assert_int_equal(nk_fs_lstat(&fs, "/bad", &(struct nk_fs_stat){0}), -NK_ENOENT);
        assert_int_equal(nk_fs_unmount(&fs), 0);
        nk_fs_testdev_close(&t);
    }
}

/* A power cut at every operation of a change: afterwards the list is the
 * old one or the new one, whole, and a change and a remount work. */
static void test_power_cut_in_a_change(void **state)
{
    (void)state;
    static const char *const ops[] = {"replace", "add", "remove"};
    unsigned points = 0, olds = 0, news = 0;
    for (unsigned op = 0; op < 3; op++) {
        uint64_t total = 0;
        for (uint64_t cut = 0;; cut++) {
            struct w *w = w_open();
            put(w, "/f", "payload");
            set(w, "/f", "user.keep", "always there");
            set(w, "/f", "user.v", "old value");
            /* Some collections before the change, so it may run one. */
            for (int i = 0; i < 40; i++)
                set(w, "/f", "user.churn", i % 2 ? "odd" : "even");
            struct nk_sim_counters c0, c1;
            nk_sim_counters(w->t.sim, &c0);
            if (total)
                nk_sim_power_cut_after(w->t.sim, cut);
            int err;
            if (op == 0)
                err = nk_fs_setxattr(&w->fs, "/f", "user.v", "the new value", 13, 0);
            else if (op == 1)
                err = nk_fs_setxattr(&w->fs, "/f", "user.w", "added", 5, 0);
            else
                err = nk_fs_removexattr(&w->fs, "/f", "user.v");
            if (!total) {
                assert_int_equal(err, 0);
                nk_sim_counters(w->t.sim, &c1);
                total = c1.array_ops - c0.array_ops;
                assert_true(total > 0);
                w_close(w);
                cut = (uint64_t)-1;
                continue;
            }
            w_drop(w);
            assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
            char buf[64];
            expect(w, "/f", "user.keep", "always there");
            expect(w, "/f", "user.churn", "odd");
            bool is_new;
            if (op == 0) {
                int n = nk_fs_getxattr(&w->fs, "/f", "user.v", buf, sizeof buf);
                is_new = n == 13 && memcmp(buf, "the new value", 13) == 0;
                if (!is_new)
                    expect(w, "/f", "user.v", "old value");
            } else if (op == 1) {
                int n = nk_fs_getxattr(&w->fs, "/f", "user.w", buf, sizeof buf);
                is_new = n == 5 && memcmp(buf, "added", 5) == 0;
                if (!is_new)
                    assert_int_equal(n, -NK_ENODATA);
                expect(w, "/f", "user.v", "old value");
            } else {
                int n = nk_fs_getxattr(&w->fs, "/f", "user.v", buf, sizeof buf);
                is_new = n == -NK_ENODATA;
                if (!is_new)
                    expect(w, "/f", "user.v", "old value");
            }
            if (err == 0)
                assert_true(is_new); /* a change that returned 0 is on flash */
            news += is_new;
            olds += !is_new;
            points++;
            set(w, "/f", "user.after", "written after the cut");
            w_remount(w);
            expect(w, "/f", "user.after", "written after the cut");
            w_close(w);
            if (cut + 1 >= total)
                break;
        }
        printf("    %s: %llu cut points\n", ops[op], (unsigned long long)total);
    }
    printf("    %u cuts: %u left the old list, %u the new one\n", points, olds, news);
    assert_true(olds > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get_list_remove),
        cmocka_unit_test(test_room_is_the_header_chunk),
        cmocka_unit_test(test_other_header_writes_keep_them),
        cmocka_unit_test(test_collection_keeps_them),
        cmocka_unit_test(test_read_only_and_errors),
        cmocka_unit_test(test_record_bytes),
        cmocka_unit_test(test_builder_lists),
        cmocka_unit_test(test_power_cut_in_a_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
