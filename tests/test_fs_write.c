/* SPDX-License-Identifier: MIT */
/*
 * The writable file system, one behaviour per test: a read-only mount
 * refuses every write and writes nothing; what is written is YAFFS2 as the
 * scan reads it (fresh sequence numbers, extra-packed headers, zeroed
 * chunk tails, valid block summaries that give the same tree as page-by-page
 * tags); error codes; unlink of an open file; fill to ENOSPC exactly as
 * statfs predicts and churn back 20 times; program and erase failures
 * retire blocks and lose nothing; bitflips at the threshold move the data;
 * an uncorrectable page fails only its own reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_codec.h"
#include "fs_testdev.h"
#include "testutil.h"

struct w {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static struct w *w_open(enum nk_fs_layout layout, uint32_t page, uint32_t oob, uint32_t ppb,
                        uint32_t blocks)
{
    struct w *w = calloc(1, sizeof *w);
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&w->t, page, oob, ppb, blocks, layout, NULL, why))
        fail_msg("device: %s", why->text);
    w->config = nk_fs_testdev_config(&w->t);
    w->config.read_only = false;
    assert_int_equal(nk_fs_format(&w->config, layout), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    return w;
}

static void w_remount(struct w *w, bool read_only)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    struct nk_fs_config c = w->config;
    c.read_only = read_only;
    int err = nk_fs_mount(&w->fs, &c);
    if (err)
        fail_msg("mount: %d %s", err, w->fs.diag.text);
}

static void w_close(struct w *w)
{
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    nk_fs_testdev_close(&w->t);
    free(w);
}

static void pattern(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 11));
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
    assert_int_equal(nk_fs_file_open(fs, &f, path, NK_FS_O_RDONLY), 0);
    uint8_t *buf = malloc(len + 16);
    assert_int_equal(nk_fs_file_read(&f, buf, len + 16), (int32_t)len);
    assert_memory_equal(buf, data, len);
    free(buf);
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static uint64_t sim_writes(struct w *w)
{
    struct nk_sim_counters c;
    nk_sim_counters(w->t.sim, &c);
    return c.ops[NK_SIM_OP_PROGRAM] + c.ops[NK_SIM_OP_CACHE_PROGRAM] + c.ops[NK_SIM_OP_ERASE];
}

/* The newest page holding data chunk `chunk_id` of the file at `path`. */
static uint32_t chunk_page(struct w *w, const char *path, uint32_t chunk_id)
{
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&w->fs, path, &st), 0);
    const uint32_t page_size = w->t.params.chip.page_size;
    uint8_t *buf = malloc(page_size);
    uint8_t oob[256];
    uint32_t best = NK_FS_NONE, best_seq = 0;
    for (uint32_t p = 0; p < nk_part_pages(&w->t.part); p++) {
        int err = nk_part_read_page(&w->t.part, p, buf, oob, NK_OOB_AUTO);
        if (err < 0)
            continue;
        struct nk_fs_tags tags;
        int s = w->config.tags_place == NK_FS_TAGS_INBAND
                    ? nk_fs_tags_decode(buf + page_size - 16, false, &tags)
                    : nk_fs_tags_decode(oob, !w->config.no_tags_ecc, &tags);
        if (s < 0 || s == NK_FS_TAGS_UNWRITTEN || tags.obj_id != st.ino ||
            tags.chunk_id != chunk_id)
            continue;
        if (best == NK_FS_NONE || tags.seq >= best_seq) {
            best = p;
            best_seq = tags.seq;
        }
    }
    free(buf);
    assert_true(best != NK_FS_NONE);
    return best;
}

/* ----- read-only ------------------------------------------------------------------------ */

static void test_a_read_only_mount_refuses_every_write_and_writes_nothing(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    uint8_t data[3000];
    pattern(data, sizeof data, 1);
    assert_int_equal(nk_fs_mkdir(&w->fs, "/d", 0755), 0);
    put(&w->fs, "/d/f", data, sizeof data);
    w_remount(w, true);
    uint64_t before = sim_writes(w);
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/d/f", NK_FS_O_WRONLY), -NK_EROFS);
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/d/g", NK_FS_O_RDONLY | NK_FS_O_CREAT),
                     -NK_EROFS);
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/d/f", NK_FS_O_RDONLY | NK_FS_O_TRUNC),
                     -NK_EROFS);
    assert_int_equal(nk_fs_mkdir(&w->fs, "/e", 0755), -NK_EROFS);
    assert_int_equal(nk_fs_rmdir(&w->fs, "/d"), -NK_ENOTEMPTY); /* looked at first */
    assert_int_equal(nk_fs_unlink(&w->fs, "/d/f"), -NK_EROFS);
    assert_int_equal(nk_fs_rename(&w->fs, "/d/f", "/g"), -NK_EROFS);
    assert_int_equal(nk_fs_link(&w->fs, "/d/f", "/g"), -NK_EROFS);
    assert_int_equal(nk_fs_symlink(&w->fs, "x", "/g"), -NK_EROFS);
    assert_int_equal(nk_fs_chmod(&w->fs, "/d/f", 0600), -NK_EROFS);
    assert_int_equal(nk_fs_chown(&w->fs, "/d/f", 1, 1), -NK_EROFS);
    assert_int_equal(nk_fs_utimes(&w->fs, "/d/f", 1, 1), -NK_EROFS);
    assert_int_equal(nk_fs_mknod(&w->fs, "/n", NK_FS_S_IFIFO | 0600, 0), -NK_EROFS);
    assert_int_equal(nk_fs_file_open(&w->fs, &f, "/d/f", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_file_write(&f, data, 10), -NK_EROFS);
    assert_int_equal(nk_fs_file_truncate(&f, 0), -NK_EROFS);
    assert_int_equal(nk_fs_file_fsync(&f), 0);
    assert_int_equal(nk_fs_file_close(&f), 0);
    assert_int_equal(nk_fs_sync(&w->fs), 0);
    struct nk_fs_statfs st;
    assert_int_equal(nk_fs_statfs(&w->fs, &st), 0);
    assert_true(st.read_only);
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    assert_int_equal(sim_writes(w), before);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    expect_file(&w->fs, "/d/f", data, sizeof data);
    w_close(w);
}

/* ----- the format ------------------------------------------------------------------------- */

struct seen {
    uint32_t max_seq, min_seq;
    uint32_t headers_extra, headers_plain, data_chunks, summaries;
    uint32_t checkpoint; /* pages of nandkit's checkpoint (sequence 0x21) */
};

static void scan_tags(struct w *w, struct seen *s)
{
    memset(s, 0, sizeof *s);
    s->min_seq = 0xffffffffu;
    const uint32_t page_size = w->t.params.chip.page_size;
    uint8_t *buf = malloc(page_size);
    uint8_t oob[256];
    for (uint32_t p = 0; p < nk_part_pages(&w->t.part); p++) {
        int err = nk_part_read_page(&w->t.part, p, buf, oob, NK_OOB_AUTO);
        if (err < 0)
            continue;
        struct nk_fs_tags tags;
        int st = w->config.tags_place == NK_FS_TAGS_INBAND
                     ? nk_fs_tags_decode(buf + page_size - 16, false, &tags)
                     : nk_fs_tags_decode(oob, !w->config.no_tags_ecc, &tags);
        if (st < 0 || st == NK_FS_TAGS_UNWRITTEN)
            continue;
        if (tags.seq == NK_FS_SEQ_CHECKPOINT) {
            assert_int_equal(tags.obj_id, NK_FS_OBJ_CHECKPOINT);
            s->checkpoint++;
            continue;
        }
        if (tags.seq > s->max_seq)
            s->max_seq = tags.seq;
        if (tags.seq < s->min_seq)
            s->min_seq = tags.seq;
        if (tags.obj_id == NK_FS_OBJ_SUMMARY)
            s->summaries++;
        else if (tags.chunk_id == 0)
            tags.extra ? s->headers_extra++ : s->headers_plain++;
        else
            s->data_chunks++;
    }
    free(buf);
}

static void format_case(enum nk_fs_layout layout, uint32_t page, uint32_t oob)
{
    struct w *w = w_open(layout, page, oob, 64, 24);
    /* The first unmount writes a checkpoint; the mounts here scan (what
     * they see is the point). */
    w->config.no_checkpoint = true;
    const uint32_t chunk = w->fs.chunk_bytes;
    uint8_t *data = malloc(200 * 1024);
    pattern(data, 200 * 1024, 3);
    /* Enough to fill several blocks, so summaries are written. */
    char path[32];
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof path, "/f%d", i);
        put(&w->fs, path, data, 50000 + (size_t)i * 1000);
    }
    /* A file whose last chunk is short: its tail must be zeros on flash. */
    put(&w->fs, "/short", data, chunk + 5);
    w_remount(w, true);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&w->fs, "/short", &st), 0);
    struct seen s;
    scan_tags(w, &s);
    assert_true(s.min_seq >= NK_FS_SEQ_LOWEST);
    assert_true(s.checkpoint > 0); /* left by the unmount, marked as YAFFS2 marks its own */
    assert_true(s.headers_extra > 12);
    /* Only the format's root header is plain, in the mkyaffs2 layout (built
     * as mkyaffs2image writes it); the writer packs every header. */
    assert_true(s.headers_plain <= (layout == NK_FS_LAYOUT_MKYAFFS2 ? 1u : 0u));
    assert_true(s.summaries > 0);
    assert_true(w->fs.stats.blocks_from_summary > 0);
    assert_int_equal(w->fs.stats.headers_read, 0); /* everything from the tags */
    /* Page-by-page tags give the same tree as the summaries. */
    uint32_t objects = w->fs.stats.objects, live = w->fs.stats.chunks_live;
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    struct nk_fs_config c = w->config;
    c.read_only = true;
    c.no_summaries = true;
    assert_int_equal(nk_fs_mount(&w->fs, &c), 0);
    assert_int_equal(w->fs.stats.blocks_from_summary, 0);
    assert_int_equal(w->fs.stats.objects, objects);
    assert_int_equal(w->fs.stats.chunks_live, live);
    for (int i = 0; i < 12; i++) {
        snprintf(path, sizeof path, "/f%d", i);
        expect_file(&w->fs, path, data, 50000 + (size_t)i * 1000);
    }
    /* The short chunk as stored: n_bytes 5, then zeros to the end. */
    uint32_t pg = chunk_page(w, "/short", 2);
    uint8_t *raw = malloc(w->t.params.chip.page_size);
    uint8_t oobb[256];
    int err = nk_part_read_page(&w->t.part, pg, raw, oobb, NK_OOB_AUTO);
    assert_true(err >= 0);
    assert_memory_equal(raw, data + chunk, 5);
    for (uint32_t i = 5; i < chunk; i++)
        assert_int_equal(raw[i], 0);
    struct nk_fs_tags tags;
    if (w->config.tags_place == NK_FS_TAGS_INBAND)
        nk_fs_tags_decode(raw + w->t.params.chip.page_size - 16, false, &tags);
    else
        nk_fs_tags_decode(oobb, !w->config.no_tags_ecc, &tags);
    assert_int_equal(tags.chunk_id, 2);
    assert_int_equal(tags.n_bytes, 5);
    free(raw);
    /* A writer after this one continues with higher sequence numbers. */
    uint32_t highest = s.max_seq;
    assert_int_equal(nk_fs_unmount(&w->fs), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    assert_int_equal(nk_fs_mkdir(&w->fs, "/later", 0700), 0);
    w_remount(w, true);
    scan_tags(w, &s);
    assert_true(s.max_seq > highest);
    free(data);
    w_close(w);
}

static void test_what_is_written_is_yaffs2_linux_2k(void **state)
{
    (void)state;
    format_case(NK_FS_LAYOUT_LINUX, 2048, 64);
}

static void test_what_is_written_is_yaffs2_linux_4k(void **state)
{
    (void)state;
    format_case(NK_FS_LAYOUT_LINUX, 4096, 128);
}

static void test_what_is_written_is_yaffs2_inband_2k(void **state)
{
    (void)state;
    format_case(NK_FS_LAYOUT_INBAND, 2048, 64);
}

static void test_what_is_written_is_yaffs2_inband_4k(void **state)
{
    (void)state;
    format_case(NK_FS_LAYOUT_INBAND, 4096, 128);
}

static void test_what_is_written_is_yaffs2_mkyaffs2_2k(void **state)
{
    (void)state;
    format_case(NK_FS_LAYOUT_MKYAFFS2, 2048, 64);
}

/* ----- errors ------------------------------------------------------------------------------ */

static void test_errors_are_the_posix_ones(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    struct nk_fs_file f;
    uint8_t data[100];
    pattern(data, sizeof data, 2);
    assert_int_equal(nk_fs_mkdir(fs, "/d", 0755), 0);
    assert_int_equal(nk_fs_mkdir(fs, "/d", 0755), -NK_EEXIST);
    assert_int_equal(nk_fs_mkdir(fs, "/lost+found", 0755), -NK_EEXIST);
    assert_int_equal(nk_fs_mkdir(fs, "/", 0755), -NK_EEXIST);
    assert_int_equal(nk_fs_mkdir(fs, "/x/y", 0755), -NK_ENOENT);
    put(fs, "/d/f", data, sizeof data);
    assert_int_equal(nk_fs_mkdir(fs, "/d/f/g", 0755), -NK_ENOTDIR);
    assert_int_equal(nk_fs_file_open(fs, &f, "/d", NK_FS_O_WRONLY), -NK_EISDIR);
    assert_int_equal(nk_fs_file_open(fs, &f, "/d/f", NK_FS_O_CREAT | NK_FS_O_EXCL), -NK_EEXIST);
    assert_int_equal(nk_fs_file_open(fs, &f, "/d/none", NK_FS_O_RDONLY), -NK_ENOENT);
    assert_int_equal(nk_fs_file_open(fs, &f, "/d/f", 0x8000), -NK_EINVAL);
    char longname[300];
    memset(longname, 'n', sizeof longname);
    longname[0] = '/';
    longname[257] = '\0';
    assert_int_equal(nk_fs_mkdir(fs, longname, 0755), -NK_ENAMETOOLONG);
    assert_int_equal(nk_fs_file_open(fs, &f, longname, NK_FS_O_CREAT | NK_FS_O_WRONLY),
                     -NK_ENAMETOOLONG);
    longname[256] = '\0'; /* 255 bytes: fits */
    assert_int_equal(nk_fs_mkdir(fs, longname, 0755), 0);
    assert_int_equal(nk_fs_rmdir(fs, "/d"), -NK_ENOTEMPTY);
    assert_int_equal(nk_fs_rmdir(fs, "/d/f"), -NK_ENOTDIR);
    assert_int_equal(nk_fs_rmdir(fs, "/"), -NK_EBUSY);
    assert_int_equal(nk_fs_rmdir(fs, "/lost+found"), -NK_EBUSY);
    assert_int_equal(nk_fs_unlink(fs, "/d"), -NK_EISDIR);
    assert_int_equal(nk_fs_unlink(fs, "/d/none"), -NK_ENOENT);
    assert_int_equal(nk_fs_mkdir(fs, "/d/sub", 0755), 0);
    assert_int_equal(nk_fs_rename(fs, "/d", "/d/sub/x"), -NK_EINVAL);
    assert_int_equal(nk_fs_rename(fs, "/d", "/d/sub"), -NK_EINVAL);
    assert_int_equal(nk_fs_rename(fs, "/d/f", "/d/sub"), -NK_EISDIR);
    assert_int_equal(nk_fs_mkdir(fs, "/e", 0755), 0);
    assert_int_equal(nk_fs_rename(fs, "/e", "/d/f"), -NK_ENOTDIR);
    assert_int_equal(nk_fs_rename(fs, "/e", "/d"), -NK_ENOTEMPTY);
    assert_int_equal(nk_fs_rename(fs, "/lost+found", "/lf"), -NK_EBUSY);
    assert_int_equal(nk_fs_rename(fs, "/e", "/lost+found"), -NK_EBUSY);
    assert_int_equal(nk_fs_link(fs, "/d", "/dl"), -NK_EPERM);
    assert_int_equal(nk_fs_link(fs, "/d/f", "/e"), -NK_EEXIST);
    assert_int_equal(nk_fs_symlink(fs, "", "/s"), -NK_ENOENT);
    char target[200];
    memset(target, 't', sizeof target);
    target[160] = '\0';
    assert_int_equal(nk_fs_symlink(fs, target, "/s"), -NK_ENAMETOOLONG);
    target[159] = '\0';
    assert_int_equal(nk_fs_symlink(fs, target, "/s"), 0);
    assert_int_equal(nk_fs_mknod(fs, "/dev", NK_FS_S_IFCHR | 0600, 0x10000), -NK_EOVERFLOW);
    assert_int_equal(nk_fs_mknod(fs, "/dev", NK_FS_S_IFREG | 0600, 1), -NK_EINVAL);
    assert_int_equal(nk_fs_mknod(fs, "/dev", NK_FS_S_IFCHR | 0600, (4u << 8) | 64u), 0);
    assert_int_equal(nk_fs_chmod(fs, "/d/f", 010000), -NK_EINVAL);
    /* Handle modes. */
    assert_int_equal(nk_fs_file_open(fs, &f, "/d/f", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_file_write(&f, data, 1), -NK_EBADF);
    assert_int_equal(nk_fs_file_truncate(&f, 0), -NK_EBADF);
    assert_int_equal(nk_fs_file_close(&f), 0);
    assert_int_equal(nk_fs_file_close(&f), -NK_EBADF);
    assert_int_equal(nk_fs_file_open(fs, &f, "/d/f", NK_FS_O_WRONLY), 0);
    uint8_t back[10];
    assert_int_equal(nk_fs_file_read(&f, back, sizeof back), -NK_EBADF);
    assert_int_equal(nk_fs_file_pwrite(&f, data, 1, (uint64_t)NK_FS_CHUNK_ID_MAX * 2048),
                     -NK_EFBIG);
    assert_int_equal(nk_fs_file_close(&f), 0);
    /* Everything that succeeded is there after a remount. */
    w_remount(w, false);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(fs, "/dev", &st), 0);
    assert_int_equal(st.mode, NK_FS_S_IFCHR | 0600);
    assert_int_equal(st.rdev, (4u << 8) | 64u);
    assert_int_equal(nk_fs_lstat(fs, "/s", &st), 0);
    assert_int_equal(st.size, 159);
    assert_int_equal(nk_fs_stat(fs, longname, &st), 0);
    expect_file(fs, "/d/f", data, sizeof data);
    w_close(w);
}

static void test_attributes_and_links_survive_a_remount(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_INBAND, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    uint8_t data[5000];
    pattern(data, sizeof data, 5);
    put(fs, "/f", data, sizeof data);
    assert_int_equal(nk_fs_chmod(fs, "/f", 0604), 0);
    assert_int_equal(nk_fs_chown(fs, "/f", 1000, NK_FS_NONE), 0);
    assert_int_equal(nk_fs_chown(fs, "/f", NK_FS_NONE, 50), 0);
    assert_int_equal(nk_fs_utimes(fs, "/f", 1700000000u, 5000000000ull), 0);
    assert_int_equal(nk_fs_chmod(fs, "/", 0711), 0);
    assert_int_equal(nk_fs_link(fs, "/f", "/g"), 0);
    assert_int_equal(nk_fs_link(fs, "/g", "/h"), 0);
    /* Renaming one name onto another of the same file does nothing. */
    assert_int_equal(nk_fs_rename(fs, "/g", "/h"), 0);
    w_remount(w, false);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(fs, "/h", &st), 0);
    assert_int_equal(st.mode, NK_FS_S_IFREG | 0604);
    assert_int_equal(st.uid, 1000);
    assert_int_equal(st.gid, 50);
    assert_int_equal(st.atime, 1700000000u);
    assert_int_equal(st.mtime, 5000000000ull);
    assert_int_equal(st.nlink, 3);
    assert_int_equal(nk_fs_stat(fs, "/", &st), 0);
    assert_int_equal(st.mode, NK_FS_S_IFDIR | 0711);
    /* Unlinking the file's own name: a link takes over, the data stays. */
    assert_int_equal(nk_fs_unlink(fs, "/f"), 0);
    assert_int_equal(nk_fs_stat(fs, "/f", &st), -NK_ENOENT);
    assert_int_equal(nk_fs_stat(fs, "/g", &st), 0);
    assert_int_equal(st.nlink, 2);
    w_remount(w, false);
    expect_file(fs, "/g", data, sizeof data);
    expect_file(fs, "/h", data, sizeof data);
    assert_int_equal(nk_fs_stat(fs, "/h", &st), 0);
    assert_int_equal(st.nlink, 2);
    w_close(w);
}

/* Header edits live in two slots of the mounted fs: every call gives back
 * what it took (a missing give leaves the depth above 0), and the nested
 * case (a file's own name unlinked while links remain: two edits, then the
 * link's deletion) fits in the two. */
static void test_every_call_gives_back_its_header_edits(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    uint8_t data[3000];
    pattern(data, sizeof data, 11);
    assert_int_equal(fs->edit_depth, 0);
    put(fs, "/f", data, sizeof data);
    assert_int_equal(fs->edit_depth, 0);
    assert_int_equal(nk_fs_mkdir(fs, "/d", 0755), 0);
    assert_int_equal(nk_fs_symlink(fs, "/f", "/s"), 0);
    assert_int_equal(nk_fs_mknod(fs, "/n", NK_FS_S_IFIFO | 0600, 0), 0);
    assert_int_equal(nk_fs_chmod(fs, "/f", 0600), 0);
    assert_int_equal(nk_fs_chown(fs, "/f", 7, 8), 0);
    assert_int_equal(nk_fs_utimes(fs, "/f", 10, 20), 0);
    assert_int_equal(fs->edit_depth, 0);
    assert_int_equal(nk_fs_link(fs, "/f", "/g"), 0);
    assert_int_equal(nk_fs_link(fs, "/f", "/h"), 0);
    assert_int_equal(fs->edit_depth, 0);
    /* Two edits at once, then the deletion of the link. */
    assert_int_equal(nk_fs_unlink(fs, "/f"), 0);
    assert_int_equal(fs->edit_depth, 0);
    /* A rename onto a name of a file that has links. */
    put(fs, "/e", data, 100);
    assert_int_equal(nk_fs_rename(fs, "/e", "/g"), 0);
    assert_int_equal(fs->edit_depth, 0);
    expect_file(fs, "/g", data, 100);
    expect_file(fs, "/h", data, sizeof data);
    struct nk_fs_file file;
    assert_int_equal(nk_fs_file_open(fs, &file, "/h", NK_FS_O_RDWR), 0);
    assert_int_equal(nk_fs_file_truncate(&file, 1000), 0);
    assert_int_equal(nk_fs_file_write(&file, data, 10), 10);
    assert_int_equal(nk_fs_file_fsync(&file), 0);
    assert_int_equal(nk_fs_unlink(fs, "/h"), 0);
    assert_int_equal(fs->edit_depth, 0);
    assert_int_equal(nk_fs_file_close(&file), 0);
    assert_int_equal(nk_fs_rmdir(fs, "/d"), 0);
    assert_int_equal(nk_fs_sync(fs), 0);
    assert_int_equal(fs->edit_depth, 0);
    /* Failing calls give back too. */
    assert_int_equal(nk_fs_rename(fs, "/g", "/nodir/x"), -NK_ENOENT);
    assert_int_equal(nk_fs_chmod(fs, "/missing", 0600), -NK_ENOENT);
    assert_int_equal(fs->edit_depth, 0);
    w_remount(w, false);
    expect_file(fs, "/g", data, 100);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(fs, "/h", &st), -NK_ENOENT);
    assert_int_equal(nk_fs_stat(fs, "/g", &st), 0);
    assert_int_equal(st.nlink, 1);
    w_close(w);
}

/* ----- open files --------------------------------------------------------------------------- */

static void test_an_unlinked_open_file_keeps_its_data_until_the_last_close(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    uint8_t data[30000], back[30000];
    pattern(data, sizeof data, 9);
    put(fs, "/f", data, sizeof data);
    struct nk_fs_statfs before, during, after;
    assert_int_equal(nk_fs_statfs(fs, &before), 0);
    struct nk_fs_file a, b;
    assert_int_equal(nk_fs_file_open(fs, &a, "/f", NK_FS_O_RDWR), 0);
    assert_int_equal(nk_fs_file_open(fs, &b, "/f", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_unlink(fs, "/f"), 0);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(fs, "/f", &st), -NK_ENOENT);
    /* A new file may take the name meanwhile. */
    put(fs, "/f", data, 10);
    assert_int_equal(nk_fs_file_pwrite(&a, "XYZ", 3, 100), 3);
    memcpy(data + 100, "XYZ", 3);
    assert_int_equal(nk_fs_file_pread(&b, back, sizeof back, 0), (int32_t)sizeof back);
    assert_memory_equal(back, data, sizeof back);
    assert_int_equal(nk_fs_file_close(&a), 0);
    assert_int_equal(nk_fs_statfs(fs, &during), 0);
    assert_true(during.bytes_live >= before.bytes_live);
    assert_int_equal(nk_fs_file_pread(&b, back, sizeof back, 0), (int32_t)sizeof back);
    assert_memory_equal(back, data, sizeof back);
    assert_int_equal(nk_fs_file_close(&b), 0);
    assert_int_equal(nk_fs_statfs(fs, &after), 0);
    assert_true(after.bytes_live + sizeof data <= during.bytes_live);
    w_remount(w, false);
    expect_file(fs, "/f", data, 10);
    w_close(w);
}

static void test_an_open_unlinked_file_is_gone_after_a_power_cut(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    uint8_t data[9000];
    pattern(data, sizeof data, 4);
    put(fs, "/f", data, sizeof data);
    struct nk_fs_file a;
    assert_int_equal(nk_fs_file_open(fs, &a, "/f", NK_FS_O_RDWR), 0);
    assert_int_equal(nk_fs_unlink(fs, "/f"), 0);
    assert_int_equal(nk_fs_file_write(&a, data, 100), 100);
    assert_int_equal(nk_fs_file_fsync(&a), 0);
    nk_sim_power_cut_now(w->t.sim);
    nk_fs_unmount(&w->fs); /* fails: no power */
    nk_sim_power_restore(w->t.sim);
    assert_int_equal(nk_fs_mount(fs, &w->config), 0);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(fs, "/f", &st), -NK_ENOENT);
    assert_int_equal(fs->stats.files, 0);
    w_close(w);
}

static void test_directory_handles_survive_removals(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    assert_int_equal(nk_fs_mkdir(fs, "/d", 0755), 0);
    assert_int_equal(nk_fs_mkdir(fs, "/d/a", 0755), 0);
    assert_int_equal(nk_fs_mkdir(fs, "/d/b", 0755), 0);
    assert_int_equal(nk_fs_mkdir(fs, "/d/c", 0755), 0);
    struct nk_fs_dir d;
    struct nk_fs_dirent e;
    assert_int_equal(nk_fs_dir_open(fs, &d, "/d"), 0);
    assert_int_equal(nk_fs_dir_read(&d, &e), 1);
    /* Remove every entry while the handle is between them. */
    assert_int_equal(nk_fs_rmdir(fs, "/d/a"), 0);
    assert_int_equal(nk_fs_rmdir(fs, "/d/b"), 0);
    assert_int_equal(nk_fs_rmdir(fs, "/d/c"), 0);
    assert_int_equal(nk_fs_dir_read(&d, &e), 0);
    assert_int_equal(nk_fs_dir_stat(&d, &(struct nk_fs_stat){0}), -NK_EINVAL);
    assert_int_equal(nk_fs_rmdir(fs, "/d"), 0);
    assert_int_equal(nk_fs_dir_rewind(&d), 0);
    assert_int_equal(nk_fs_dir_read(&d, &e), 0);
    assert_int_equal(nk_fs_dir_close(&d), 0);
    w_close(w);
}

/* ----- space ------------------------------------------------------------------------------- */

/* Fills the file system with files of `size` bytes until ENOSPC; checks
 * that statfs predicted it to the chunk. Returns how many were written. */
static int fill(struct w *w, uint32_t size, int first, const uint8_t *data)
{
    struct nk_fs *fs = &w->fs;
    const uint32_t chunk = fs->chunk_bytes;
    const uint32_t per_file = 1 + (size + chunk - 1) / chunk; /* header + data */
    int n = 0;
    for (;;) {
        struct nk_fs_statfs st;
        assert_int_equal(nk_fs_statfs(fs, &st), 0);
        uint64_t avail = st.bytes_avail / chunk;
        char path[32];
        snprintf(path, sizeof path, "/f%d", first + n);
        struct nk_fs_file f;
        int err = nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT);
        if (avail == 0) {
            assert_int_equal(err, -NK_ENOSPC);
            return n;
        }
        assert_int_equal(err, 0);
        int32_t got = nk_fs_file_write(&f, data, size);
        int cerr = nk_fs_file_close(&f);
        if (avail >= per_file) {
            if (got != (int32_t)size || cerr != 0)
                fail_msg("statfs said %llu chunks free, a %u-chunk file failed: %d %d",
                         (unsigned long long)avail, per_file, got, cerr);
        } else {
            /* Less than a file: the write ends short, exactly at the space. */
            assert_int_equal(got, (int32_t)((avail - 1) * chunk));
            assert_int_equal(nk_fs_unlink(fs, path), 0);
            return n;
        }
        n++;
    }
}

static void churn(enum nk_fs_layout layout, uint32_t page, uint32_t oob)
{
    struct w *w = w_open(layout, page, oob, 64, 24);
    struct nk_fs *fs = &w->fs;
    const uint32_t size = 3 * fs->chunk_bytes + 100;
    uint8_t *data = malloc(size);
    int first = 0, live = 0;
    /* Files still there, by number. */
    int *alive = calloc(16384, sizeof *alive);
    for (int round = 0; round < 20; round++) {
        pattern(data, size, (unsigned)round);
        int n = fill(w, size, first, data);
        assert_true(n > 0 || round > 0);
        for (int i = first; i < first + n; i++)
            alive[i] = round + 1;
        live += n;
        first += n;
        /* Remove about two thirds, scattered: then all must work again. */
        for (int i = 0; i < first; i++) {
            if (alive[i] && (i * 7 + round) % 3 != 0) {
                char path[32];
                snprintf(path, sizeof path, "/f%d", i);
                assert_int_equal(nk_fs_unlink(fs, path), 0);
                alive[i] = 0;
                live--;
            }
        }
        if (round % 5 == 4)
            w_remount(w, false);
        assert_true(first < 16000);
    }
    struct nk_fs_statfs st;
    assert_int_equal(nk_fs_statfs(fs, &st), 0);
    /* Every surviving file reads back. */
    w_remount(w, false);
    for (int i = 0; i < first; i++) {
        if (!alive[i])
            continue;
        char path[32];
        snprintf(path, sizeof path, "/f%d", i);
        pattern(data, size, (unsigned)alive[i] - 1);
        expect_file(fs, path, data, size);
    }
    uint32_t emin = UINT32_MAX, emax = 0;
    uint64_t esum = 0;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        struct nk_sim_block_state bs;
        assert_int_equal(nk_sim_block_get(w->t.sim, b, &bs), 0);
        emin = bs.erase_count < emin ? bs.erase_count : emin;
        emax = bs.erase_count > emax ? bs.erase_count : emax;
        esum += bs.erase_count;
    }
    struct nk_fs_check_result cr;
    assert_int_equal(nk_fs_check(fs, &cr), 0);
    assert_int_equal(cr.problem_total, 0);
    printf("  %s %u+%u: 20 fills to ENOSPC, %d files written, %d kept; erase counts of the "
           "chip's blocks %u..%u (mean %.1f)\n",
           nk_fs_layout_name(layout), (unsigned)page, (unsigned)oob, first, live, (unsigned)emin,
           (unsigned)emax, (double)esum / fs->blocks);
    (void)st;
    free(alive);
    free(data);
    w_close(w);
}

static void test_fill_to_enospc_and_back_20_times_linux(void **state)
{
    (void)state;
    churn(NK_FS_LAYOUT_LINUX, 2048, 64);
}

static void test_fill_to_enospc_and_back_20_times_inband_4k(void **state)
{
    (void)state;
    churn(NK_FS_LAYOUT_INBAND, 4096, 128);
}

/* The same churn with the flash failing: read noise on every page read (one
 * bit in a few reads, sometimes two in one Hamming step), and blocks that
 * start failing their programs or erases (5 of 64, 8 %) as the rounds go. */
static void test_fill_and_churn_with_failing_blocks_and_read_noise(void **state)
{
    (void)state;
    struct w *w = calloc(1, sizeof *w);
    struct nk_diag why[1] = {{""}};
    w->t.layout = NK_FS_LAYOUT_LINUX;
    assert_int_equal(nk_sim_params_geometry(&w->t.params, 2048, 64, 64, 64, why), 0);
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &w->t.params;
    sc.seed = 99;
    sc.faults_set = true;
    sc.faults.strict_page_order = true;
    sc.faults.enforce_nop = true;
    sc.faults.raw_bit_error_rate = 2e-6;
    assert_int_equal(nk_sim_open(&w->t.sim, &sc, why), 0);
    assert_int_equal(nk_fs_testdev_attach(&w->t, why), 0);
    w->config = nk_fs_testdev_config(&w->t);
    w->config.read_only = false;
    assert_int_equal(nk_fs_format(&w->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&w->fs, &w->config), 0);
    struct nk_fs *fs = &w->fs;
    const uint32_t size = 2 * fs->chunk_bytes + 700;
    uint8_t *data = malloc(size);
    int *alive = calloc(20000, sizeof *alive);
    int first = 0;
    unsigned injected = 0;
    for (int round = 0; round < 20; round++) {
        if (round % 4 == 1 && injected < 5) {
            /* A block that holds data starts failing. */
            uint32_t b = (uint32_t)(round * 13 + 5) % fs->blocks;
            nk_sim_fail_inject(w->t.sim, b,
                               round % 8 == 1 ? NK_SIM_FAIL_PROGRAM : NK_SIM_FAIL_ERASE, true);
            injected++;
        }
        pattern(data, size, (unsigned)round);
        for (;;) {
            char path[32];
            snprintf(path, sizeof path, "/f%d", first);
            struct nk_fs_file f;
            int err = nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT);
            if (err == -NK_ENOSPC)
                break;
            assert_int_equal(err, 0);
            int32_t got = nk_fs_file_write(&f, data, size);
            int cerr = nk_fs_file_close(&f);
            if (got != (int32_t)size || cerr) {
                assert_true(got == -NK_ENOSPC || got >= 0);
                assert_int_equal(nk_fs_unlink(fs, path), 0);
                break;
            }
            alive[first++] = round + 1;
            assert_true(first < 20000);
        }
        for (int i = 0; i < first; i++) {
            if (alive[i] && (i * 7 + round) % 3 != 0) {
                char path[32];
                snprintf(path, sizeof path, "/f%d", i);
                assert_int_equal(nk_fs_unlink(fs, path), 0);
                alive[i] = 0;
            }
        }
        if (round % 5 == 4)
            w_remount(w, false);
        for (int i = 0; i < first; i++) {
            if (!alive[i])
                continue;
            char path[32];
            snprintf(path, sizeof path, "/f%d", i);
            pattern(data, size, (unsigned)alive[i] - 1);
            expect_file(fs, path, data, size);
        }
    }
    struct nk_fs_statfs st;
    assert_int_equal(nk_fs_statfs(fs, &st), 0);
    struct nk_sim_counters c;
    nk_sim_counters(w->t.sim, &c);
    w_remount(w, false);
    assert_true(fs->stats.blocks_bad >= 3);
    printf("  20 rounds on 64 blocks, %u failing blocks injected: %d files written, %u bad at the "
           "end, %llu bit errors injected, %llu corrected reads since the last mount\n",
           injected, first, (unsigned)fs->stats.blocks_bad, (unsigned long long)c.bitflips_injected,
           (unsigned long long)st.reads_corrected);
    free(alive);
    free(data);
    w_close(w);
}

/* ----- faults ---------------------------------------------------------------------------- */

static void test_program_and_erase_failures_retire_blocks_and_lose_nothing(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 24);
    struct nk_fs *fs = &w->fs;
    uint8_t *data = malloc(40000);
    unsigned failed = 0;
    for (int i = 0; i < 40; i++) {
        /* Make the block being written fail its next program, and another
         * block its next erase. */
        if (i % 4 == 1 && fs->alloc_block != NK_FS_NONE) {
            nk_sim_fail_inject(w->t.sim, fs->alloc_block, NK_SIM_FAIL_PROGRAM, false);
            failed++;
        }
        if (i % 8 == 3)
            nk_sim_fail_inject(w->t.sim, (uint32_t)(i * 5) % fs->blocks, NK_SIM_FAIL_ERASE, true);
        char path[32];
        snprintf(path, sizeof path, "/f%d", i % 10);
        pattern(data, 40000, (unsigned)i);
        put(fs, path, data, 20000 + (size_t)(i % 10) * 1000);
    }
    struct nk_fs_statfs st;
    assert_int_equal(nk_fs_statfs(fs, &st), 0);
    assert_true(st.blocks_retired >= 2);
    w_remount(w, false);
    printf("  retired %u, bad at mount %u\n", (unsigned)st.blocks_retired,
           (unsigned)fs->stats.blocks_bad);
    assert_true(fs->stats.blocks_bad >= 2); /* the markers were written */
    for (int i = 30; i < 40; i++) {
        char path[32];
        snprintf(path, sizeof path, "/f%d", i % 10);
        pattern(data, 40000, (unsigned)i);
        expect_file(fs, path, data, 20000 + (size_t)(i % 10) * 1000);
    }
    printf("  %u program failures injected, %u blocks retired\n", failed,
           (unsigned)st.blocks_retired);
    free(data);
    w_close(w);
}

static void test_an_uncorrectable_page_fails_only_its_reads_and_fsck_names_it(void **state)
{
    (void)state;
    struct w *w = w_open(NK_FS_LAYOUT_LINUX, 2048, 64, 64, 16);
    struct nk_fs *fs = &w->fs;
    uint8_t data[6000];
    pattern(data, sizeof data, 1);
    put(fs, "/bad", data, sizeof data);
    put(fs, "/good", data, sizeof data);
    struct nk_fs_file f;
    uint32_t page = chunk_page(w, "/bad", 2);
    /* Two flipped bits in one 256-byte step: beyond the Hamming code. */
    uint8_t raw[4];
    uint32_t row = page; /* partition starts at block 0 */
    assert_int_equal(nk_sim_page_peek(w->t.sim, row, 10, raw, 4), 0);
    raw[0] ^= 0x01;
    raw[3] ^= 0x08;
    assert_int_equal(nk_sim_page_poke(w->t.sim, row, 10, raw, 4), 0);
    w_remount(w, false);
    uint8_t back[6000];
    assert_int_equal(nk_fs_file_open(fs, &f, "/bad", NK_FS_O_RDONLY), 0);
    assert_int_equal(nk_fs_file_read(&f, back, 100), 100); /* chunk 1 is fine */
    assert_int_equal(nk_fs_file_pread(&f, back, 100, 2048), -NK_EIO);
    assert_int_equal(nk_fs_file_close(&f), 0);
    expect_file(fs, "/good", data, sizeof data);
    assert_int_equal(nk_fs_mkdir(fs, "/still-writable", 0755), 0);
    struct nk_fs_check_result r;
    assert_int_equal(nk_fs_check(fs, &r), 0);
    assert_int_equal(r.problems[NK_FS_PROBLEM_DATA_ECC], 1);
    w_close(w);
}

static void test_device_numbers_beyond_old_encode_dev_are_refused_by_the_builder(void **state)
{
    (void)state;
    struct nk_fs_testdev t;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(nk_fs_testdev_open(&t, 2048, 64, 64, 8, NK_FS_LAYOUT_LINUX, NULL, why), 0);
    size_t size = nk_fs_build_workspace_size(&t.part);
    void *ws = malloc(size);
    struct nk_fs_builder *b = malloc(sizeof *b);
    struct nk_fs_build_config bc = {.part = &t.part, .layout = NK_FS_LAYOUT_LINUX};
    assert_int_equal(nk_fs_build_begin(b, &bc, ws, size), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_SPECIAL,
                                  .parent_id = NK_FS_OBJ_ROOT,
                                  .name = "nvme",
                                  .name_len = 4,
                                  .attr = {.mode = NK_FS_S_IFBLK | 0600, .rdev = (259u << 8) | 1u}};
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EOVERFLOW);
    assert_non_null(strstr(b->diag.text, "old_encode_dev"));
    e.attr.rdev = (255u << 8) | 255u; /* the largest that fits */
    assert_int_equal(nk_fs_build_object(b, &e, NULL), 0);
    assert_int_equal(nk_fs_build_finish(b, NULL), 0);
    free(b);
    free(ws);
    nk_fs_testdev_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_read_only_mount_refuses_every_write_and_writes_nothing),
        cmocka_unit_test(test_what_is_written_is_yaffs2_linux_2k),
        cmocka_unit_test(test_what_is_written_is_yaffs2_linux_4k),
        cmocka_unit_test(test_what_is_written_is_yaffs2_inband_2k),
        cmocka_unit_test(test_what_is_written_is_yaffs2_inband_4k),
        cmocka_unit_test(test_what_is_written_is_yaffs2_mkyaffs2_2k),
        cmocka_unit_test(test_errors_are_the_posix_ones),
        cmocka_unit_test(test_attributes_and_links_survive_a_remount),
        cmocka_unit_test(test_every_call_gives_back_its_header_edits),
        cmocka_unit_test(test_an_unlinked_open_file_keeps_its_data_until_the_last_close),
        cmocka_unit_test(test_an_open_unlinked_file_is_gone_after_a_power_cut),
        cmocka_unit_test(test_directory_handles_survive_removals),
        cmocka_unit_test(test_fill_to_enospc_and_back_20_times_linux),
        cmocka_unit_test(test_fill_to_enospc_and_back_20_times_inband_4k),
        cmocka_unit_test(test_fill_and_churn_with_failing_blocks_and_read_noise),
        cmocka_unit_test(test_program_and_erase_failures_retire_blocks_and_lose_nothing),
        cmocka_unit_test(test_an_uncorrectable_page_fails_only_its_reads_and_fsck_names_it),
        cmocka_unit_test(test_device_numbers_beyond_old_encode_dev_are_refused_by_the_builder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
