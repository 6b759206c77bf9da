/* SPDX-License-Identifier: MIT */
/*
 * Cases found outside the project's own campaign, each kept as a test of
 * the behaviour that failed (docs/fs-design.md, "What the campaign covers"):
 *
 *  - a rename over the own name of a file that has hard links, cut at every
 *    array operation: the tree is the one before or the one after, never the
 *    name missing (the rename used to move the file onto a link's name
 *    first, then rename);
 *  - the same for `nandkit put`'s way of replacing a file: a temporary file,
 *    written and closed, renamed over the name;
 *  - every public entry point refuses NULL arguments with -NK_EINVAL;
 *  - a path ending in "." or ".." is not a name to remove or rename.
 *
 * After each cut: a read-write mount works, fsck finds no damage, a write
 * works, and a read-only mount afterwards shows the same tree.
 */
#include <stdio.h>
#include <string.h>

#include "fs/fs_internal.h"
#include "fs_testdev.h"
#include "testutil.h"

struct rig {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static void rig_open(struct rig *r, enum nk_fs_layout layout, uint32_t page, uint32_t oob,
                     uint64_t seed)
{
    struct nk_diag why[1] = {{""}};
    memset(r, 0, sizeof *r);
    if (nk_fs_testdev_open_seeded(&r->t, page, oob, 16, 16, layout, seed, why))
        fail_msg("device: %s", why->text);
    r->config = nk_fs_testdev_config(&r->t);
    r->config.read_only = false;
}

static void put_file(struct nk_fs *fs, const char *path, const char *text)
{
    struct nk_fs_file f;
    assert_int_equal(
        nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC), 0);
    assert_int_equal(nk_fs_file_write(&f, text, strlen(text)), (int32_t)strlen(text));
    assert_int_equal(nk_fs_file_close(&f), 0);
}

/* The content of `path`, or NULL when it does not exist (failing the test
 * on any other error). */
static const char *read_file(struct nk_fs *fs, const char *path, char *buf, size_t size)
{
    struct nk_fs_file f;
    int err = nk_fs_file_open(fs, &f, path, NK_FS_O_RDONLY);
    if (err == -NK_ENOENT)
        return NULL;
    if (err)
        fail_msg("%s: open %d", path, err);
    int32_t got = nk_fs_file_read(&f, buf, size - 1);
    nk_fs_file_close(&f);
    if (got < 0)
        fail_msg("%s: read %d", path, (int)got);
    buf[got] = '\0';
    return buf;
}

static unsigned count_entries(struct nk_fs *fs, const char *dir)
{
    struct nk_fs_dir d;
    struct nk_fs_dirent e;
    unsigned n = 0;
    assert_int_equal(nk_fs_dir_open(fs, &d, dir), 0);
    while (nk_fs_dir_read(&d, &e) == 1) {
        if (getenv("NK_ADVERSARY_DEBUG"))
            printf("    %s/%s\n", dir, e.name);
        n++;
    }
    nk_fs_dir_close(&d);
    return n;
}

enum replace_kind { REPLACE_RENAME, REPLACE_PUT };

/* The tree before: /d/hl_a "old" with a hard link /hl_b, and /y "new".
 * After: /d/hl_a "new", /hl_b "old" (one link), no /y. Returns true for the
 * state after the replacement, false for the one before. */
static bool check_state(struct nk_fs *fs, enum replace_kind kind, uint64_t cut, unsigned extra)
{
    char a[64], b[64], y[64];
    const char *hl_a = read_file(fs, "/d/hl_a", a, sizeof a);
    const char *hl_b = read_file(fs, "/hl_b", b, sizeof b);
    const char *src = read_file(fs, kind == REPLACE_RENAME ? "/y" : "/d/.hl_a.tmp", y, sizeof y);
    if (!hl_a || !hl_b)
        fail_msg("cut %llu: /d/hl_a %s, /hl_b %s", (unsigned long long)cut,
                 hl_a ? hl_a : "missing", hl_b ? hl_b : "missing");
    assert_string_equal(hl_b, "old contents");
    struct nk_fs_stat sa, sb;
    assert_int_equal(nk_fs_stat(fs, "/d/hl_a", &sa), 0);
    assert_int_equal(nk_fs_stat(fs, "/hl_b", &sb), 0);
    bool after = strcmp(hl_a, "new contents") == 0;
    if (!after) {
        assert_string_equal(hl_a, "old contents");
        assert_int_equal(sa.ino, sb.ino);
        assert_int_equal(sb.nlink, 2);
        if (kind == REPLACE_RENAME) {
            if (!src)
                fail_msg("cut %llu: /y missing while /d/hl_a is old", (unsigned long long)cut);
            assert_string_equal(src, "new contents");
        }
    } else {
        if (src)
            fail_msg("cut %llu: the source still exists after the rename",
                     (unsigned long long)cut);
        assert_true(sa.ino != sb.ino);
        assert_int_equal(sa.nlink, 1);
        assert_int_equal(sb.nlink, 1);
    }
    /* No other name appeared, none vanished. */
    unsigned root = count_entries(fs, "/"), d = count_entries(fs, "/d");
    /* lost+found, d, hl_b, and y unless it was renamed */
    unsigned want_root = 3 + extra + (kind == REPLACE_PUT || !after ? 1 : 0);
    if (root != want_root || (d != 1 && !(kind == REPLACE_PUT && !after && d == 2)))
        fail_msg("cut %llu: %u entries in /, %u in /d (%s)", (unsigned long long)cut, root, d,
                 after ? "after" : "before");
    return after;
}

static void setup_tree(struct rig *r, enum nk_fs_layout layout)
{
    assert_int_equal(nk_fs_format(&r->config, layout), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    assert_int_equal(nk_fs_mkdir(&r->fs, "/d", 0755), 0);
    put_file(&r->fs, "/d/hl_a", "old contents");
    assert_int_equal(nk_fs_link(&r->fs, "/d/hl_a", "/hl_b"), 0);
    put_file(&r->fs, "/y", "new contents");
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
}

/* One command as the CLI runs it: mount, the replacement, unmount. */
static int replace(struct rig *r, enum replace_kind kind)
{
    int err = nk_fs_mount(&r->fs, &r->config);
    if (err)
        return err;
    if (kind == REPLACE_PUT) {
        struct nk_fs_file f;
        err = nk_fs_file_open(&r->fs, &f, "/d/.hl_a.tmp",
                              NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC);
        if (!err) {
            int32_t n = nk_fs_file_write(&f, "new contents", 12);
            err = n < 0 ? (int)n : 0;
            int cerr = nk_fs_file_close(&f);
            if (!err)
                err = cerr;
        }
        if (!err)
            err = nk_fs_rename(&r->fs, "/d/.hl_a.tmp", "/d/hl_a");
    } else {
        err = nk_fs_rename(&r->fs, "/y", "/d/hl_a");
    }
    int uerr = nk_fs_unmount(&r->fs);
    return err ? err : uerr;
}

static void replace_campaign(enum nk_fs_layout layout, uint32_t page, uint32_t oob,
                             enum replace_kind kind)
{
    /* The clean run: how many array operations the command takes. */
    struct rig *r = calloc(1, sizeof *r);
    rig_open(r, layout, page, oob, 1);
    setup_tree(r, layout);
    struct nk_sim_counters c0, c1;
    nk_sim_counters(r->t.sim, &c0);
    assert_int_equal(replace(r, kind), 0);
    nk_sim_counters(r->t.sim, &c1);
    uint64_t total = c1.array_ops - c0.array_ops;
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    assert_true(check_state(&r->fs, kind, total, 0));
    nk_fs_unmount(&r->fs);
    nk_fs_testdev_close(&r->t);

    unsigned before = 0, after = 0;
    for (uint64_t cut = 0; cut < total; cut++) {
        rig_open(r, layout, page, oob, 1000 + cut);
        setup_tree(r, layout);
        nk_sim_power_cut_after(r->t.sim, cut);
        int err = replace(r, kind);
        nk_sim_power_cut_cancel(r->t.sim);
        if (nk_sim_powered(r->t.sim)) {
            assert_int_equal(err, 0); /* the cut fell after the last operation */
            nk_fs_testdev_close(&r->t);
            continue;
        }
        if (r->fs.mounted)
            nk_fs_unmount(&r->fs); /* releases: the device is gone */
        nk_sim_power_restore(r->t.sim);
        err = nk_fs_mount(&r->fs, &r->config);
        if (err)
            fail_msg("cut %llu: read-write mount failed %d: %s", (unsigned long long)cut, err,
                     r->fs.diag.text);
        bool is_after = check_state(&r->fs, kind, cut, 0);
        struct nk_fs_check_result result;
        assert_int_equal(nk_fs_check(&r->fs, &result), 0);
        unsigned damage = 0;
        for (int k = NK_FS_PROBLEM_HEADER_UNREADABLE; k < NK_FS_PROBLEM_KIND_COUNT; k++)
            damage += result.problems[k];
        if (damage)
            fail_msg("cut %llu: fsck finds %u problems beyond the traces of a cut",
                     (unsigned long long)cut, damage);
        assert_int_equal(nk_fs_mkdir(&r->fs, "/written", 0700), 0);
        assert_int_equal(nk_fs_unmount(&r->fs), 0);
        struct nk_fs_config ro = r->config;
        ro.read_only = true;
        assert_int_equal(nk_fs_mount(&r->fs, &ro), 0);
        assert_true(check_state(&r->fs, kind, cut, 1) == is_after);
        nk_fs_unmount(&r->fs);
        if (is_after)
            after++;
        else
            before++;
        nk_fs_testdev_close(&r->t);
    }
    printf("  %s %u+%u %s: %llu cut points, %u before, %u after\n", nk_fs_layout_name(layout),
           (unsigned)page, (unsigned)oob, kind == REPLACE_PUT ? "put" : "rename",
           (unsigned long long)total, before, after);
    assert_true(before > 0 && after > 0);
    free(r);
}

static void test_rename_over_hard_linked_name_is_atomic(void **state)
{
    (void)state;
    replace_campaign(NK_FS_LAYOUT_LINUX, 2048, 64, REPLACE_RENAME);
    replace_campaign(NK_FS_LAYOUT_MKYAFFS2, 2048, 64, REPLACE_RENAME);
    replace_campaign(NK_FS_LAYOUT_INBAND, 4096, 128, REPLACE_RENAME);
}

static void test_put_over_hard_linked_name_is_atomic(void **state)
{
    (void)state;
    replace_campaign(NK_FS_LAYOUT_LINUX, 2048, 64, REPLACE_PUT);
    replace_campaign(NK_FS_LAYOUT_MKYAFFS2, 2048, 64, REPLACE_PUT);
    replace_campaign(NK_FS_LAYOUT_INBAND, 2048, 64, REPLACE_PUT);
}

/* After a rename over a hard-linked name, collections copy the rename's
 * header many times; the replaced file must survive every copy. */
static void test_hard_linked_file_survives_collection_of_the_rename(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    rig_open(r, NK_FS_LAYOUT_LINUX, 2048, 64, 7);
    setup_tree(r, NK_FS_LAYOUT_LINUX);
    assert_int_equal(replace(r, REPLACE_RENAME), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    static uint8_t data[6000];
    uint64_t collected = 0;
    struct nk_fs_statfs st;
    for (unsigned i = 0; i < 300; i++) {
        memset(data, (int)i, sizeof data);
        struct nk_fs_file f;
        assert_int_equal(
            nk_fs_file_open(&r->fs, &f, "/churn", NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC),
            0);
        assert_int_equal(nk_fs_file_write(&f, data, sizeof data), (int32_t)sizeof data);
        assert_int_equal(nk_fs_file_close(&f), 0);
        if (i % 50 == 49) {
            assert_int_equal(nk_fs_statfs(&r->fs, &st), 0);
            collected += st.blocks_collected;
            assert_int_equal(nk_fs_unmount(&r->fs), 0);
            struct nk_fs_config scan = r->config;
            scan.no_checkpoint = true;
            assert_int_equal(nk_fs_mount(&r->fs, &scan), 0);
        }
    }
    assert_true(collected > 16);
    nk_fs_unmount(&r->fs);
    struct nk_fs_config scan = r->config;
    scan.no_checkpoint = true;
    scan.read_only = true;
    assert_int_equal(nk_fs_mount(&r->fs, &scan), 0);
    char buf[64];
    assert_non_null(read_file(&r->fs, "/hl_b", buf, sizeof buf));
    assert_string_equal(buf, "old contents");
    assert_non_null(read_file(&r->fs, "/d/hl_a", buf, sizeof buf));
    assert_string_equal(buf, "new contents");
    nk_fs_unmount(&r->fs);
    nk_fs_testdev_close(&r->t);
    free(r);
}

/* Every public entry point validates its pointers before it uses them: a
 * NULL gives -NK_EINVAL (-NK_EBADF for a file or directory handle, nothing
 * for the calls that return no error), never undefined behaviour. */
static void test_null_arguments_are_refused(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    rig_open(r, NK_FS_LAYOUT_LINUX, 2048, 64, 3);
    setup_tree(r, NK_FS_LAYOUT_LINUX);
    struct nk_fs *fs = &r->fs;
    struct nk_fs_stat st;
    struct nk_fs_statfs sfs;
    struct nk_fs_file f;
    struct nk_fs_dir d;
    struct nk_fs_dirent e;
    struct nk_fs_check_result cr;
    char buf[64];
    const int inval = -NK_EINVAL;

    assert_int_equal(nk_fs_mount(NULL, &r->config), inval);
    assert_int_equal(nk_fs_mount(fs, NULL), inval);
    assert_int_equal(nk_fs_format(NULL, NK_FS_LAYOUT_LINUX), inval);
    assert_int_equal(nk_fs_unmount(NULL), inval);
    assert_int_equal(nk_fs_sync(NULL), inval);
    assert_int_equal(nk_fs_checkpoint(NULL), inval);
    assert_int_equal(nk_fs_statfs(NULL, &sfs), inval);
    assert_int_equal(nk_fs_check(NULL, &cr), inval);
    assert_int_equal(nk_fs_damaged(NULL), 0);
    nk_fs_ram_usage(NULL, NULL, NULL);
    assert_int_equal(nk_fs_layout_parse(NULL, NULL), inval);
    assert_int_equal(nk_fs_page_describe(NULL, 0, buf, sizeof buf), inval);
    assert_int_equal(nk_fs_problem_format(NULL, buf, sizeof buf), 0);
    nk_fs_config_layout(NULL, NK_FS_LAYOUT_LINUX);
    nk_fs_pool_init(NULL, NULL, 0);
    assert_int_equal(nk_fs_build_begin(NULL, NULL, NULL, 0), inval);
    assert_int_equal(nk_fs_build_data(NULL, NULL, 0), inval);
    assert_int_equal(nk_fs_build_file_end(NULL), inval);
    assert_int_equal(nk_fs_build_finish(NULL, NULL), inval);
    assert_int_equal(nk_fs_build_object(NULL, NULL, NULL), inval);
    assert_int_equal(nk_fs_build_builtin(NULL, 1, NULL), inval);

    assert_int_equal(nk_fs_mount(fs, &r->config), 0);
    assert_int_equal(nk_fs_statfs(fs, NULL), inval);
    assert_int_equal(nk_fs_check(fs, NULL), inval);
    assert_int_equal(nk_fs_stat(NULL, "/y", &st), inval);
    assert_int_equal(nk_fs_stat(fs, NULL, &st), inval);
    assert_int_equal(nk_fs_stat(fs, "/y", NULL), inval);
    assert_int_equal(nk_fs_lstat(fs, NULL, &st), inval);
    assert_int_equal(nk_fs_lstat(fs, "/y", NULL), inval);
    assert_int_equal(nk_fs_readlink(NULL, "/y", buf, sizeof buf), inval);
    assert_int_equal(nk_fs_readlink(fs, NULL, buf, sizeof buf), inval);
    assert_int_equal(nk_fs_readlink(fs, "/y", NULL, sizeof buf), inval);
    assert_int_equal(nk_fs_file_open(NULL, &f, "/y", NK_FS_O_RDONLY), inval);
    assert_int_equal(nk_fs_file_open(fs, NULL, "/y", NK_FS_O_RDONLY), inval);
    assert_int_equal(nk_fs_file_open(fs, &f, NULL, NK_FS_O_RDONLY), inval);
    assert_int_equal(nk_fs_file_open_mode(fs, &f, NULL, NK_FS_O_RDONLY, 0644), inval);
    assert_int_equal(nk_fs_file_write(NULL, buf, 1), -NK_EBADF);
    assert_int_equal(nk_fs_file_pwrite(NULL, buf, 1, 0), -NK_EBADF);
    assert_int_equal(nk_fs_file_read(NULL, buf, 1), -NK_EBADF);
    assert_int_equal(nk_fs_file_pread(NULL, buf, 1, 0), -NK_EBADF);
    assert_int_equal(nk_fs_file_truncate(NULL, 0), -NK_EBADF);
    assert_int_equal(nk_fs_file_fsync(NULL), -NK_EBADF);
    assert_int_equal(nk_fs_file_seek(NULL, 0, 0), -NK_EBADF);
    assert_int_equal(nk_fs_file_stat(NULL, &st), -NK_EBADF);
    assert_int_equal(nk_fs_file_close(NULL), -NK_EBADF);
    assert_int_equal(nk_fs_file_open(fs, &f, "/y", NK_FS_O_RDWR), 0);
    assert_int_equal(nk_fs_file_write(&f, NULL, 1), inval);
    assert_int_equal(nk_fs_file_pwrite(&f, NULL, 1, 0), inval);
    assert_int_equal(nk_fs_file_read(&f, NULL, 1), inval);
    assert_int_equal(nk_fs_file_pread(&f, NULL, 1, 0), inval);
    assert_int_equal(nk_fs_file_stat(&f, NULL), inval);
    assert_int_equal(nk_fs_file_close(&f), 0);
    assert_int_equal(nk_fs_mkdir(NULL, "/n", 0755), inval);
    assert_int_equal(nk_fs_mkdir(fs, NULL, 0755), inval);
    assert_int_equal(nk_fs_rmdir(fs, NULL), inval);
    assert_int_equal(nk_fs_unlink(fs, NULL), inval);
    assert_int_equal(nk_fs_rename(fs, NULL, "/n"), inval);
    assert_int_equal(nk_fs_rename(fs, "/y", NULL), inval);
    assert_int_equal(nk_fs_link(NULL, "/y", "/n"), inval);
    assert_int_equal(nk_fs_link(fs, NULL, "/n"), inval);
    assert_int_equal(nk_fs_link(fs, "/y", NULL), inval);
    assert_int_equal(nk_fs_symlink(fs, NULL, "/n"), inval);
    assert_int_equal(nk_fs_symlink(fs, "/y", NULL), inval);
    assert_int_equal(nk_fs_mknod(fs, NULL, 0644, 0), inval);
    assert_int_equal(nk_fs_chmod(fs, NULL, 0644), inval);
    assert_int_equal(nk_fs_chown(fs, NULL, 0, 0), inval);
    assert_int_equal(nk_fs_utimes(fs, NULL, 0, 0), inval);
    assert_int_equal(nk_fs_dir_open(NULL, &d, "/"), inval);
    assert_int_equal(nk_fs_dir_open(fs, NULL, "/"), inval);
    assert_int_equal(nk_fs_dir_open(fs, &d, NULL), inval);
    assert_int_equal(nk_fs_dir_read(NULL, &e), -NK_EBADF);
    assert_int_equal(nk_fs_dir_stat(NULL, &st), -NK_EBADF);
    assert_int_equal(nk_fs_dir_rewind(NULL), -NK_EBADF);
    assert_int_equal(nk_fs_dir_close(NULL), -NK_EBADF);
    assert_int_equal(nk_fs_dir_open(fs, &d, "/"), 0);
    assert_int_equal(nk_fs_dir_read(&d, NULL), inval);
    assert_int_equal(nk_fs_dir_stat(&d, NULL), inval);
    assert_int_equal(nk_fs_dir_close(&d), 0);
    /* The tree is untouched. */
    char text[64];
    assert_non_null(read_file(fs, "/y", text, sizeof text));
    assert_string_equal(text, "new contents");
    assert_int_equal(nk_fs_unmount(fs), 0);
    /* Calls on a file system that is not mounted (zeroed) are refused too. */
    struct nk_fs idle;
    memset(&idle, 0, sizeof idle);
    assert_int_equal(nk_fs_stat(&idle, "/y", &st), inval);
    assert_int_equal(nk_fs_mkdir(&idle, "/n", 0755), inval);
    assert_int_equal(nk_fs_file_open(&idle, &f, "/y", NK_FS_O_RDONLY), inval);
    assert_int_equal(nk_fs_dir_open(&idle, &d, "/"), inval);
    assert_int_equal(nk_fs_sync(&idle), inval);
    nk_fs_testdev_close(&r->t);
    free(r);
}

/* A path whose last component is "." or ".." names a directory by its
 * place: it cannot be removed or renamed (POSIX: EINVAL). */
static void test_dot_names_are_not_removed_or_renamed(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    rig_open(r, NK_FS_LAYOUT_LINUX, 2048, 64, 4);
    setup_tree(r, NK_FS_LAYOUT_LINUX);
    struct nk_fs *fs = &r->fs;
    assert_int_equal(nk_fs_mount(fs, &r->config), 0);
    assert_int_equal(nk_fs_mkdir(fs, "/d/sub", 0755), 0);
    assert_int_equal(nk_fs_rmdir(fs, "/d/sub/."), -NK_EINVAL);
    assert_int_equal(nk_fs_rmdir(fs, "/d/sub/.."), -NK_EINVAL);
    assert_int_equal(nk_fs_unlink(fs, "/d/sub/."), -NK_EINVAL);
    assert_int_equal(nk_fs_rename(fs, "/d/sub/.", "/e"), -NK_EINVAL);
    assert_int_equal(nk_fs_rename(fs, "/d/.", "/e"), -NK_EINVAL);
    assert_int_equal(nk_fs_rename(fs, "/y", "/d/sub/."), -NK_EINVAL);
    assert_int_equal(nk_fs_rename(fs, "/y", "/d/.."), -NK_EINVAL);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(fs, "/d/sub", &st), 0);
    assert_int_equal(nk_fs_stat(fs, "/y", &st), 0);
    assert_int_equal(nk_fs_rmdir(fs, "/d/sub/"), 0); /* a trailing slash is fine */
    assert_int_equal(nk_fs_unmount(fs), 0);
    nk_fs_testdev_close(&r->t);
    free(r);
}

/* A header whose program a cut tore so that three bits of one 256-byte
 * step stayed 1: the 1-bit Hamming code takes that for one flipped bit and
 * "corrects" it into wrong bytes with good tags. The mount must not take it
 * as the file's newest header (the chmod it carried never returned), and
 * the read-write recovery must not write it back with a fresh, valid ECC. */
static void test_miscorrected_torn_header_is_not_taken(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    rig_open(r, NK_FS_LAYOUT_LINUX, 2048, 64, 9);
    r->config.no_checkpoint = true; /* mounts scan, as after a cut */
    assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    put_file(&r->fs, "/f", "the file");
    assert_int_equal(nk_fs_chmod(&r->fs, "/f", 0600), 0);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), 0);
    uint32_t page = nk_fs_obj_find(&r->fs, st.obj_id)->header_page;
    assert_int_equal(nk_fs_unmount(&r->fs), 0);

    /* Three bits that were to be programmed to 0 and stayed 1, chosen so
     * that the Hamming code reports one corrected bit. */
    uint8_t want[2048], got[2048], oob[64];
    uint32_t row = page; /* the partition starts at block 0 */
    assert_int_equal(nk_sim_page_peek(r->t.sim, row, 0, want, sizeof want), 0);
    uint32_t zeros[256 * 8], nz = 0;
    for (uint32_t bit = 0; bit < 256 * 8; bit++)
        if (!(want[bit / 8] & (1u << (bit % 8))))
            zeros[nz++] = bit;
    assert_true(nz > 100);
    uint64_t rng = 12345;
    bool found = false;
    uint8_t torn[2048];
    for (unsigned attempt = 0; attempt < 200000 && !found; attempt++) {
        memcpy(torn, want, sizeof torn);
        for (unsigned k = 0; k < 3; k++) {
            uint32_t bit = zeros[nk_test_splitmix64(&rng) % nz];
            torn[bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
        assert_int_equal(nk_sim_page_poke(r->t.sim, row, 0, torn, sizeof torn), 0);
        int err = nk_part_read_page(&r->t.part, page, got, oob, NK_OOB_AUTO);
        found = err >= 0 && memcmp(got, want, sizeof got) != 0;
    }
    assert_true(found);

    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), 0);
    assert_int_equal(st.mode & 07777, 0644); /* the chmod before the cut: not done */
    char buf[64];
    assert_non_null(read_file(&r->fs, "/f", buf, sizeof buf));
    assert_string_equal(buf, "the file");
    assert_int_equal(count_entries(&r->fs, "/"), 2); /* lost+found and f */
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    /* Mounted again after the recovery: still the header before. */
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), 0);
    assert_int_equal(st.mode & 07777, 0644);
    struct nk_fs_check_result cr;
    assert_int_equal(nk_fs_check(&r->fs, &cr), 0);
    for (int k = NK_FS_PROBLEM_HEADER_UNREADABLE; k < NK_FS_PROBLEM_KIND_COUNT; k++)
        assert_int_equal(cr.problems[k], 0);
    nk_fs_unmount(&r->fs);
    nk_fs_testdev_close(&r->t);
    free(r);
}

/* Flips `count` bits of the tags of the header at `page` (linux layout:
 * the tags sit at OOB 2..29), past what their 1-bit code corrects. */
static void damage_tags(struct rig *r, uint32_t page, const unsigned *bytes, unsigned count)
{
    uint8_t oob[64];
    assert_int_equal(nk_sim_page_peek(r->t.sim, page, 2048, oob, sizeof oob), 0);
    for (unsigned i = 0; i < count; i++)
        oob[2 + bytes[i]] ^= 0x04;
    assert_int_equal(nk_sim_page_poke(r->t.sim, page, 2048, oob, sizeof oob), 0);
    struct nk_fs_tags tags;
    uint8_t data[2048], free_oob[64];
    assert_true(nk_part_read_page(&r->t.part, page, data, free_oob, NK_OOB_AUTO) >= 0);
    assert_int_equal(nk_fs_tags_decode(free_oob, true, &tags), -NK_EBADMSG);
}

static int open_status(struct nk_fs *fs, const char *path)
{
    struct nk_fs_file f;
    int err = nk_fs_file_open(fs, &f, path, NK_FS_O_RDONLY);
    if (err == 0)
        nk_fs_file_close(&f);
    return err;
}

/* The newest header of a file loses its tags (two flipped bits) on an image
 * mounted by scan. The older header must not silently stand in for it (it
 * did: a chmod was undone, a file replaced by put came back old, fsck named
 * no file, and the next write made it for good): the file is reported stale
 * by id, opening it gives EIO, an unrelated write and a remount change
 * nothing, and removing it works. Once a chmod with the bits in the object
 * id (found by parent and name), once a replacement with the bits elsewhere
 * (found by the tags' id). */
static void test_header_with_lost_tags_is_not_rolled_back(void **state)
{
    (void)state;
    for (int replace = 0; replace < 2; replace++) {
        struct rig *r = calloc(1, sizeof *r);
        rig_open(r, NK_FS_LAYOUT_LINUX, 2048, 64, 21);
        r->config.no_checkpoint = true; /* mounts scan, as after a cut */
        assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
        assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
        put_file(&r->fs, "/f", "old contents");
        if (replace) {
            put_file(&r->fs, "/.f.tmp", "new contents");
            assert_int_equal(nk_fs_rename(&r->fs, "/.f.tmp", "/f"), 0);
        } else {
            assert_int_equal(nk_fs_chmod(&r->fs, "/f", 0600), 0);
        }
        struct nk_fs_stat st;
        assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), 0);
        uint32_t page = nk_fs_obj_find(&r->fs, st.obj_id)->header_page;
        assert_int_equal(nk_fs_unmount(&r->fs), 0);
        static const unsigned in_id[] = {4, 6}, elsewhere[] = {0, 9};
        damage_tags(r, page, replace ? elsewhere : in_id, 2);

        /* The replacement deleted the old file after its rename header: that
         * deletion stands, and the new file shows under its older name. */
        const char *name = replace ? "/.f.tmp" : "/f";
        assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
        assert_int_equal(r->fs.problems[NK_FS_PROBLEM_HEADER_STALE], 1);
        assert_int_equal(nk_fs_stat(&r->fs, name, &st), 0);
        assert_true(st.at_risk);
        assert_int_equal(open_status(&r->fs, name), -NK_EIO);
        if (replace)
            assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), -NK_ENOENT);
        assert_int_equal(nk_fs_chmod(&r->fs, name, 0644), -NK_EIO); /* its state is unknown */
        assert_int_equal(nk_fs_mkdir(&r->fs, "/other", 0755), 0); /* unrelated: works */
        assert_int_equal(nk_fs_unmount(&r->fs), 0);

        assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
        assert_int_equal(open_status(&r->fs, name), -NK_EIO); /* not made good by the write */
        struct nk_fs_check_result cr;
        assert_int_equal(nk_fs_check(&r->fs, &cr), 0);
        assert_int_equal(cr.problems[NK_FS_PROBLEM_HEADER_STALE], 1);
        assert_int_equal(nk_fs_unlink(&r->fs, name), 0);
        assert_int_equal(nk_fs_unmount(&r->fs), 0);

        assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
        assert_int_equal(nk_fs_stat(&r->fs, name, &st), -NK_ENOENT);
        assert_int_equal(r->fs.problems[NK_FS_PROBLEM_HEADER_STALE], 0);
        assert_int_equal(nk_fs_stat(&r->fs, "/other", &st), 0);
        nk_fs_unmount(&r->fs);
        nk_fs_testdev_close(&r->t);
        free(r);
    }
}

/* Writes `len` bytes of `byte` at `offset` of `path` (created when absent). */
static void pwrite_bytes(struct nk_fs *fs, const char *path, uint64_t offset, uint8_t byte,
                         uint32_t len)
{
    static uint8_t buf[4096];
    memset(buf, byte, len);
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(fs, &f, path, NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
    assert_int_equal(nk_fs_file_pwrite(&f, buf, len, offset), (int32_t)len);
    assert_int_equal(nk_fs_file_close(&f), 0);
}

/* The newest copy of a data chunk loses its tags (two flipped bits) on an
 * image mounted by scan. The file must not silently read the older copy
 * (or, for an append, lose its end): it is reported stale by id, opening it
 * gives EIO, the other files read as written, an unrelated write and a
 * remount change nothing, and removing it works. Over an overwrite and an
 * append, with the bits in the object id, in the sequence number and chunk
 * id, and in the byte count and the code. (The last written page of a
 * block is taken for a cut program, whose older state stands: a write
 * follows.) */
static void test_chunk_with_lost_tags_is_not_rolled_back(void **state)
{
    (void)state;
    static const unsigned bits[3][2] = {{4, 6}, {0, 9}, {13, 20}};
    for (int append = 0; append < 2; append++) {
        for (unsigned b = 0; b < 3; b++) {
            struct rig *r = calloc(1, sizeof *r);
            rig_open(r, NK_FS_LAYOUT_LINUX, 2048, 64, 31);
            r->config.no_checkpoint = true; /* mounts scan, as after a cut */
            assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
            assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
            pwrite_bytes(&r->fs, "/f", 0, 'a', 4096);
            put_file(&r->fs, "/g", "another file");
            if (append)
                pwrite_bytes(&r->fs, "/f", 4096, 'b', 2048);
            else
                pwrite_bytes(&r->fs, "/f", 2048, 'b', 2048);
            put_file(&r->fs, "/h", "written after"); /* the chunk is not its block's last page */
            struct nk_fs_stat st;
            assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), 0);
            uint32_t page = nk_fs_map_get(&r->fs, nk_fs_obj_find(&r->fs, st.obj_id), append ? 3 : 2);
            assert_int_equal(nk_fs_unmount(&r->fs), 0);
            damage_tags(r, page, bits[b], 2);

            assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
            assert_int_equal(r->fs.problems[NK_FS_PROBLEM_CHUNK_STALE], 1);
            assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), 0);
            assert_true(st.at_risk);
            assert_int_equal(open_status(&r->fs, "/f"), -NK_EIO);
            char text[64];
            assert_string_equal(read_file(&r->fs, "/g", text, sizeof text), "another file");
            assert_int_equal(nk_fs_mkdir(&r->fs, "/other", 0755), 0); /* unrelated: works */
            assert_int_equal(nk_fs_unmount(&r->fs), 0);

            assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
            assert_int_equal(open_status(&r->fs, "/f"), -NK_EIO); /* not made good by the write */
            struct nk_fs_check_result cr;
            assert_int_equal(nk_fs_check(&r->fs, &cr), 0);
            assert_int_equal(cr.problems[NK_FS_PROBLEM_CHUNK_STALE], 1);
            assert_int_equal(nk_fs_unlink(&r->fs, "/f"), 0);
            assert_int_equal(nk_fs_unmount(&r->fs), 0);

            assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
            assert_int_equal(nk_fs_stat(&r->fs, "/f", &st), -NK_ENOENT);
            assert_int_equal(r->fs.problems[NK_FS_PROBLEM_CHUNK_STALE], 0);
            assert_string_equal(read_file(&r->fs, "/g", text, sizeof text), "another file");
            nk_fs_unmount(&r->fs);
            nk_fs_testdev_close(&r->t);
            free(r);
        }
    }
}

/* One uncorrectable chunk in a small file must not stop the collector: its
 * block keeps the unreadable chunk (reads of it fail, fsck names it), every
 * other chunk moves, and the blocks with deletion headers newer than it are
 * collected as usual — without a deleted file coming back. It used to stall:
 * the stuck block stayed the oldest, and blocks holding deletions wait for
 * that, so the 9th rewrite of a 500 KB file on 16 blocks found no erased
 * block. */
static void test_one_bad_chunk_does_not_stall_collection(void **state)
{
    (void)state;
    struct rig *r = calloc(1, sizeof *r);
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open_seeded(&r->t, 2048, 64, 64, 16, NK_FS_LAYOUT_LINUX, 5, why))
        fail_msg("device: %s", why->text);
    r->config = nk_fs_testdev_config(&r->t);
    r->config.read_only = false;
    assert_int_equal(nk_fs_format(&r->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
    static uint8_t small[10240], big[500000];
    nk_test_random(small, sizeof small, 1);
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&r->fs, &f, "/small", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    assert_int_equal(nk_fs_file_write(&f, small, sizeof small), (int32_t)sizeof small);
    assert_int_equal(nk_fs_file_close(&f), 0);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&r->fs, "/small", &st), 0);
    uint32_t bad_page = nk_fs_map_get(&r->fs, nk_fs_obj_find(&r->fs, st.obj_id), 2);
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    /* Two flipped bits in one 256-byte step: uncorrectable. */
    uint8_t byte;
    assert_int_equal(nk_sim_page_peek(r->t.sim, bad_page, 10, &byte, 1), 0);
    byte ^= 0x03;
    assert_int_equal(nk_sim_page_poke(r->t.sim, bad_page, 10, &byte, 1), 0);

    for (unsigned round = 0; round < 20; round++) {
        /* As `nandkit put` does it, each in a mount of its own. */
        assert_int_equal(nk_fs_mount(&r->fs, &r->config), 0);
        nk_test_random(big, sizeof big, 100 + round);
        assert_int_equal(
            nk_fs_file_open(&r->fs, &f, "/.big.tmp", NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
        int32_t n = nk_fs_file_write(&f, big, sizeof big);
        if (n != (int32_t)sizeof big)
            fail_msg("round %u: write %d (%s)", round, (int)n, r->fs.diag.text);
        assert_int_equal(nk_fs_file_close(&f), 0);
        assert_int_equal(nk_fs_rename(&r->fs, "/.big.tmp", "/big"), 0);
        char name[16];
        snprintf(name, sizeof name, "/gone%u", round);
        put_file(&r->fs, name, "deleted");
        assert_int_equal(nk_fs_unlink(&r->fs, name), 0);
        assert_int_equal(nk_fs_unmount(&r->fs), 0);
    }
    /* A scan (no checkpoint) sees what is on flash: no deleted file is back,
     * /big is the last one, /small reads up to its bad chunk. */
    struct nk_fs_config scan = r->config;
    scan.no_checkpoint = true;
    scan.read_only = true;
    assert_int_equal(nk_fs_mount(&r->fs, &scan), 0);
    assert_int_equal(count_entries(&r->fs, "/"), 3); /* lost+found, small, big */
    static uint8_t got[500001];
    assert_int_equal(nk_fs_file_open(&r->fs, &f, "/big", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_file_read(&f, got, sizeof got), (int32_t)sizeof big);
    nk_fs_file_close(&f);
    assert_memory_equal(got, big, sizeof big);
    assert_int_equal(nk_fs_file_open(&r->fs, &f, "/small", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_file_read(&f, got, sizeof small), 2048); /* up to the bad chunk */
    assert_int_equal(nk_fs_file_read(&f, got, 100), -NK_EIO);
    nk_fs_file_close(&f);
    struct nk_fs_check_result cr;
    assert_int_equal(nk_fs_check(&r->fs, &cr), 0);
    assert_int_equal(cr.problems[NK_FS_PROBLEM_DATA_ECC], 1);
    nk_fs_unmount(&r->fs);
    nk_fs_testdev_close(&r->t);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rename_over_hard_linked_name_is_atomic),
        cmocka_unit_test(test_put_over_hard_linked_name_is_atomic),
        cmocka_unit_test(test_hard_linked_file_survives_collection_of_the_rename),
        cmocka_unit_test(test_null_arguments_are_refused),
        cmocka_unit_test(test_dot_names_are_not_removed_or_renamed),
        cmocka_unit_test(test_miscorrected_torn_header_is_not_taken),
        cmocka_unit_test(test_one_bad_chunk_does_not_stall_collection),
        cmocka_unit_test(test_header_with_lost_tags_is_not_rolled_back),
        cmocka_unit_test(test_chunk_with_lost_tags_is_not_rolled_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
