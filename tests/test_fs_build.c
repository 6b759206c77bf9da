/* SPDX-License-Identifier: MIT */
/*
 * The file-system builder (nk_fs_build_*), one behaviour per test, on the
 * simulated chip: every object kind and the file sizes around a chunk
 * boundary read back through nk_fs with every attribute and byte, in every
 * layout on 2 KiB and 4 KiB pages; the on-flash choices (sequence numbers,
 * object ids, header packing); factory-bad and failing blocks; running out
 * of space; a partition that does not start at block 0; an earlier file
 * system replaced; argument errors that write nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_codec.h"
#include "fs_testdev.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"
#include "testutil.h"

/* ----- a device with a chosen geometry, faults and partition ------------------------------ */

struct dev {
    struct nk_fs_testdev t;
    void *build_ws;
    struct nk_fs_builder builder;
    struct nk_fs fs;
    bool mounted;
};

static struct dev *dev_open(uint32_t page, uint32_t oob, uint32_t blocks, enum nk_fs_layout layout,
                            const uint32_t *bad, unsigned bad_count)
{
    struct dev *d = calloc(1, sizeof *d);
    struct nk_diag why[1] = {{""}};
    d->t.layout = layout;
    if (nk_sim_params_geometry(&d->t.params, page, oob, 64, blocks, why))
        fail_msg("geometry: %s", why->text);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &d->t.params;
    config.seed = 7;
    config.factory_bad_list = bad;
    config.factory_bad_list_len = bad_count;
    config.factory_bad_blocks = bad ? -1 : 0;
    if (nk_sim_open(&d->t.sim, &config, why))
        fail_msg("sim: %s", why->text);
    if (nk_fs_testdev_attach(&d->t, why))
        fail_msg("device: %s", why->text);
    d->build_ws = malloc(nk_fs_build_workspace_size(&d->t.part));
    return d;
}

static void dev_unmount(struct dev *d)
{
    if (d->mounted)
        assert_int_equal(nk_fs_unmount(&d->fs), 0);
    d->mounted = false;
}

static void dev_close(struct dev *d)
{
    dev_unmount(d);
    nk_fs_testdev_close(&d->t);
    free(d->build_ws);
    free(d);
}

static void *heap_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void heap_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static void dev_mount(struct dev *d)
{
    dev_unmount(d);
    struct nk_fs_config config;
    memset(&config, 0, sizeof config);
    config.part = &d->t.part;
    config.allocator.alloc = heap_alloc;
    config.allocator.free = heap_free;
    config.read_only = true;
    config.no_summaries = true;
    nk_fs_config_layout(&config, d->t.layout);
    int err = nk_fs_mount(&d->fs, &config);
    if (err)
        fail_msg("mount: %d %s", err, d->fs.diag.text);
    d->mounted = true;
    assert_int_equal(d->fs.stats.tags_uncorrectable, 0);
    assert_int_equal(d->fs.stats.tags_invalid, 0);
    assert_int_equal(d->fs.stats.torn_chunks, 0);
    assert_int_equal(d->fs.stats.orphans, 0);
}

static int build_begin(struct dev *d)
{
    struct nk_fs_build_config config;
    memset(&config, 0, sizeof config);
    config.part = &d->t.part;
    config.layout = d->t.layout;
    return nk_fs_build_begin(&d->builder, &config, d->build_ws,
                             nk_fs_build_workspace_size(&d->t.part));
}

static uint32_t chunk_bytes(const struct dev *d)
{
    return d->t.layout == NK_FS_LAYOUT_INBAND ? nk_nand_page_size(&d->t.nand) - 16
                                              : nk_nand_page_size(&d->t.nand);
}

/* ----- file contents: byte i of a file with `seed` ------------------------------------------ */

static uint8_t content_byte(uint32_t seed, uint64_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)seed * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    return (uint8_t)(h >> 24);
}

static void content_fill(uint32_t seed, uint64_t offset, uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = content_byte(seed, offset + i);
}

/* Streams a file of `size` bytes in pieces of `piece` bytes. */
static int stream_file(struct nk_fs_builder *b, uint32_t seed, uint64_t size, size_t piece)
{
    uint8_t *buf = malloc(piece);
    int err = 0;
    for (uint64_t done = 0; done < size && !err; done += piece) {
        size_t n = size - done < piece ? (size_t)(size - done) : piece;
        content_fill(seed, done, buf, n);
        err = nk_fs_build_data(b, buf, n);
    }
    free(buf);
    return err;
}

/* ----- a tree to build and check -------------------------------------------------------------- */

#define MAX_WANT 40

struct want {
    char path[300];
    uint8_t type;
    uint32_t mode; /* as stored and stat'ed, type bits included */
    uint32_t uid, gid, rdev;
    uint64_t atime, mtime, ctime;
    uint64_t size; /* files */
    uint32_t seed; /* files */
    size_t piece;  /* files: bytes per nk_fs_build_data() call */
    char target[NK_FS_ALIAS_MAX + 1];
    int link_to;     /* hard links: index of the file */
    uint32_t obj_id; /* filled by the build */
    uint32_t nlink;
};

struct tree {
    struct want w[MAX_WANT];
    int count;
    struct nk_fs_build_attr root;
};

static struct want *tree_add(struct tree *t, const char *path, uint8_t type, uint32_t mode)
{
    assert_true(t->count < MAX_WANT);
    struct want *w = &t->w[t->count++];
    memset(w, 0, sizeof *w);
    snprintf(w->path, sizeof w->path, "%s", path);
    w->type = type;
    w->mode = mode;
    w->uid = 1000 + (uint32_t)t->count;
    w->gid = 2000 + (uint32_t)t->count;
    w->atime = 1600000000u + (uint64_t)t->count * 11;
    w->mtime = 1500000000u + (uint64_t)t->count * 13;
    w->ctime = 1700000000u + (uint64_t)t->count * 17;
    w->link_to = -1;
    w->nlink = 1;
    return w;
}

static struct want *tree_file(struct tree *t, const char *path, uint64_t size, size_t piece)
{
    struct want *w = tree_add(t, path, NK_FS_TYPE_FILE, 0100644);
    w->size = size;
    w->seed = (uint32_t)t->count * 7919u;
    w->piece = piece;
    return w;
}

/* Every object kind, file sizes around the chunk size D, odd modes, a
 * 255-byte name, a 159-byte symlink target, a 3-name hard-link group,
 * times beyond 2^32. */
static void tree_full(struct tree *t, uint32_t d)
{
    memset(t, 0, sizeof *t);
    t->root = (struct nk_fs_build_attr){
        .mode = 0755, .uid = 5, .gid = 6, .atime = 11, .mtime = 12, .ctime = 13};
    tree_add(t, "/dir", NK_FS_TYPE_DIR, 040755);
    tree_add(t, "/dir/sub", NK_FS_TYPE_DIR, 040700);
    tree_add(t, "/sticky", NK_FS_TYPE_DIR, 041777);
    tree_add(t, "/empty", NK_FS_TYPE_DIR, 040555);
    tree_file(t, "/dir/size0", 0, 1000);
    tree_file(t, "/dir/size1", 1, 1000);
    tree_file(t, "/dir/d-1", d - 1, 1000);
    tree_file(t, "/dir/d", d, d);
    tree_file(t, "/dir/d+1", d + 1, 1);
    tree_file(t, "/dir/sub/many", 37ull * d + 123, 4096 + 3);
    struct want *w = tree_file(t, "/secret", 5000, 333);
    w->mode = 0100600;
    w = tree_file(t, "/setuid", 2 * d, 65536);
    w->mode = 0104755;
    w->mtime = 0x1f0000000ull; /* needs the 64-bit time words */
    int linked = t->count;
    w = tree_file(t, "/dir/linked", 3 * d + 7, 999);
    w->nlink = 3;
    w = tree_add(t, "/link1", NK_FS_TYPE_HARDLINK, 0100644);
    w->link_to = linked;
    w = tree_add(t, "/dir/sub/link2", NK_FS_TYPE_HARDLINK, 0100644);
    w->link_to = linked;
    w = tree_add(t, "/rel", NK_FS_TYPE_SYMLINK, 0120777);
    snprintf(w->target, sizeof w->target, "dir/d");
    w = tree_add(t, "/long-target", NK_FS_TYPE_SYMLINK, 0120777);
    memset(w->target, 'x', NK_FS_ALIAS_MAX);
    w->target[0] = '/';
    w = tree_add(t, "/dangling", NK_FS_TYPE_SYMLINK, 0120777);
    snprintf(w->target, sizeof w->target, "../nowhere");
    w = tree_add(t, "/chr", NK_FS_TYPE_SPECIAL, 020620);
    w->rdev = (4u << 8) | 64u;
    w = tree_add(t, "/blk", NK_FS_TYPE_SPECIAL, 060660);
    w->rdev = (8u << 8) | 1u;
    tree_add(t, "/fifo", NK_FS_TYPE_SPECIAL, 010644);
    tree_add(t, "/sock", NK_FS_TYPE_SPECIAL, 0140755);
    w = tree_file(t, "/dir/", 100, 100);
    memset(w->path + 5, 'n', NK_FS_NAME_MAX); /* a 255-byte name */
    w->path[5 + NK_FS_NAME_MAX] = '\0';
    tree_file(t, "/dir/caf\xc3\xa9-\xe6\x97\xa5\xe8\xa8\x98", 10, 10);
}

static int tree_index(const struct tree *t, const char *path)
{
    for (int i = 0; i < t->count; i++) {
        if (strcmp(t->w[i].path, path) == 0)
            return i;
    }
    return -1;
}

/* Parent object id of `path`. */
static uint32_t tree_parent(const struct tree *t, const char *path)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    *slash = '\0';
    if (dir[0] == '\0')
        return NK_FS_OBJ_ROOT;
    int i = tree_index(t, dir);
    assert_true(i >= 0);
    return t->w[i].obj_id;
}

static void tree_build(struct dev *d, struct tree *t)
{
    struct nk_fs_builder *b = &d->builder;
    assert_int_equal(nk_fs_build_builtin(b, NK_FS_OBJ_ROOT, &t->root), 0);
    for (int i = 0; i < t->count; i++) {
        struct want *w = &t->w[i];
        const char *name = strrchr(w->path, '/') + 1;
        struct nk_fs_build_entry e = {
            .type = w->type,
            .parent_id = tree_parent(t, w->path),
            .name = name,
            .name_len = strlen(name),
            .attr = {.mode = w->mode & 07777u,
                     .uid = w->uid,
                     .gid = w->gid,
                     .rdev = w->rdev,
                     .atime = w->atime,
                     .mtime = w->mtime,
                     .ctime = w->ctime},
            .target = w->target,
            .target_len = strlen(w->target),
            .size = w->size,
        };
        if (w->type == NK_FS_TYPE_SPECIAL)
            e.attr.mode = w->mode; /* the kind of special is in the type bits */
        if (w->type == NK_FS_TYPE_HARDLINK) {
            const struct want *f = &t->w[w->link_to];
            e.equiv_id = f->obj_id;
            e.attr = (struct nk_fs_build_attr){.mode = f->mode,
                                               .uid = f->uid,
                                               .gid = f->gid,
                                               .atime = f->atime,
                                               .mtime = f->mtime,
                                               .ctime = f->ctime};
        }
        int err = nk_fs_build_object(b, &e, &w->obj_id);
        if (err)
            fail_msg("building %s: %d %s", w->path, err, b->diag.text);
        if (w->type == NK_FS_TYPE_FILE) {
            assert_int_equal(stream_file(b, w->seed, w->size, w->piece), 0);
            assert_int_equal(nk_fs_build_file_end(b), 0);
        }
    }
}

static uint32_t tree_children(const struct tree *t, const char *dir)
{
    uint32_t n = 0;
    size_t len = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
    for (int i = 0; i < t->count; i++) {
        const char *p = t->w[i].path;
        if (strncmp(p, dir, len) == 0 && p[len] == '/' && !strchr(p + len + 1, '/'))
            n++;
    }
    return n;
}

static void check_dir_count(struct dev *d, const char *path, uint32_t want)
{
    struct nk_fs_dir dir;
    assert_int_equal(nk_fs_dir_open(&d->fs, &dir, path), 0);
    struct nk_fs_dirent e;
    uint32_t n = 0;
    int r;
    while ((r = nk_fs_dir_read(&dir, &e)) > 0)
        n++;
    assert_int_equal(r, 0);
    nk_fs_dir_close(&dir);
    assert_int_equal(n, want);
}

static void check_file_bytes(struct dev *d, const char *path, const struct want *w)
{
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&d->fs, &f, path, NK_FS_O_RDONLY), 0);
    uint8_t *got = malloc(w->size + 1);
    uint8_t *want = malloc(w->size + 1);
    int32_t n = nk_fs_file_pread(&f, got, w->size + 1, 0);
    if (n != (int32_t)w->size)
        fail_msg("%s: read %d bytes of %llu", path, n, (unsigned long long)w->size);
    content_fill(w->seed, 0, want, w->size);
    assert_memory_equal(got, want, w->size);
    free(got);
    free(want);
    nk_fs_file_close(&f);
}

static void tree_check(struct dev *d, const struct tree *t)
{
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_lstat(&d->fs, "/", &st), 0);
    assert_int_equal(st.mode, 040000 | t->root.mode);
    assert_int_equal(st.uid, t->root.uid);
    assert_int_equal(st.mtime, t->root.mtime);
    check_dir_count(d, "/", tree_children(t, "/") + 1); /* lost+found */
    for (int i = 0; i < t->count; i++) {
        const struct want *w = &t->w[i];
        const struct want *f = w->type == NK_FS_TYPE_HARDLINK ? &t->w[w->link_to] : w;
        int err = nk_fs_lstat(&d->fs, w->path, &st);
        if (err)
            fail_msg("lstat %s: %d", w->path, err);
        assert_int_equal(st.type, w->type);
        assert_int_equal(st.obj_id, w->obj_id);
        assert_int_equal(st.ino, f->obj_id);
        assert_int_equal(st.mode, f->mode);
        assert_int_equal(st.uid, f->uid);
        assert_int_equal(st.gid, f->gid);
        assert_int_equal(st.atime, f->atime);
        assert_int_equal(st.mtime, f->mtime);
        assert_int_equal(st.ctime, f->ctime);
        assert_int_equal(st.rdev, f->rdev);
        assert_int_equal(st.nlink, f->nlink);
        switch (f->type) {
        case NK_FS_TYPE_FILE:
            assert_int_equal(st.size, f->size);
            check_file_bytes(d, w->path, f);
            break;
        case NK_FS_TYPE_SYMLINK: {
            char target[NK_FS_ALIAS_MAX + 1];
            assert_int_equal(nk_fs_readlink(&d->fs, w->path, target, sizeof target),
                             (int)strlen(w->target));
            assert_string_equal(target, w->target);
            break;
        }
        case NK_FS_TYPE_DIR:
            check_dir_count(d, w->path, tree_children(t, w->path));
            break;
        default:
            break;
        }
    }
    struct nk_fs_check_result check;
    assert_int_equal(nk_fs_check(&d->fs, &check), 0);
    assert_int_equal(check.problem_total, 0);
}

/* ----- every kind, size and layout ------------------------------------------------------------ */

static void build_and_read_back(uint32_t page, uint32_t oob, enum nk_fs_layout layout)
{
    struct dev *d = dev_open(page, oob, 64, layout, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct tree *t = malloc(sizeof *t);
    tree_full(t, chunk_bytes(d));
    tree_build(d, t);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), 0);
    assert_int_equal(stats.objects, (uint32_t)t->count);
    assert_int_equal(stats.hardlinks, 2);
    assert_int_equal(stats.specials, 4);
    assert_int_equal(stats.chunk_bytes, chunk_bytes(d));
    assert_int_equal(stats.blocks_erased, 64);
    assert_int_equal(stats.chunks_written, stats.header_chunks + stats.data_chunks);
    /* One header per object plus the root's; data as nk_fs_build_chunks()
     * predicts. */
    uint64_t predicted = 1;
    for (int i = 0; i < t->count; i++)
        predicted += nk_fs_build_chunks(&d->builder, t->w[i].type, t->w[i].size);
    assert_int_equal(stats.chunks_written, predicted);
    dev_mount(d);
    tree_check(d, t);
    assert_int_equal(d->fs.stats.objects, (uint32_t)t->count);
    free(t);
    dev_close(d);
}

static void test_every_kind_reads_back_linux_2k(void **state)
{
    (void)state;
    build_and_read_back(2048, 64, NK_FS_LAYOUT_LINUX);
}

static void test_every_kind_reads_back_linux_4k(void **state)
{
    (void)state;
    build_and_read_back(4096, 128, NK_FS_LAYOUT_LINUX);
}

static void test_every_kind_reads_back_mkyaffs2_2k(void **state)
{
    (void)state;
    build_and_read_back(2048, 64, NK_FS_LAYOUT_MKYAFFS2);
}

static void test_every_kind_reads_back_mkyaffs2_4k(void **state)
{
    (void)state;
    build_and_read_back(4096, 128, NK_FS_LAYOUT_MKYAFFS2);
}

static void test_every_kind_reads_back_inband_2k(void **state)
{
    (void)state;
    build_and_read_back(2048, 64, NK_FS_LAYOUT_INBAND);
}

static void test_every_kind_reads_back_inband_4k(void **state)
{
    (void)state;
    build_and_read_back(4096, 128, NK_FS_LAYOUT_INBAND);
}

/* ----- byte-level choices --------------------------------------------------------------------- */

/* Tags of partition page `page` as stored for the device's layout. */
static void read_tags(struct dev *d, uint32_t page, struct nk_fs_tags *tags, uint8_t *oob_out)
{
    uint32_t size = nk_nand_page_size(&d->t.nand);
    uint8_t *data = malloc(size);
    uint8_t oob[256];
    assert_true(nk_part_read_page(&d->t.part, page, data, oob, NK_OOB_AUTO) >= 0);
    int status = d->t.layout == NK_FS_LAYOUT_INBAND
                     ? nk_fs_tags_decode(data + size - 16, false, tags)
                     : nk_fs_tags_decode(oob, true, tags);
    assert_true(status == NK_FS_TAGS_CLEAN || status == NK_FS_TAGS_UNWRITTEN);
    if (oob_out)
        memcpy(oob_out, oob, sizeof oob);
    free(data);
}

static void test_blocks_take_sequence_numbers_from_0x1000_and_objects_ids_from_0x100(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644}};
    uint32_t id;
    assert_int_equal(nk_fs_build_object(&d->builder, &e, &id), 0);
    assert_int_equal(id, 0x100);
    /* 130 data chunks: blocks 0, 1 and 2, then the header. */
    assert_int_equal(stream_file(&d->builder, 1, 130 * 2048, 2048), 0);
    assert_int_equal(nk_fs_build_file_end(&d->builder), 0);
    e = (struct nk_fs_build_entry){
        .type = NK_FS_TYPE_DIR, .parent_id = 1, .name = "d", .name_len = 1, .attr = {.mode = 0755}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, &id), 0);
    assert_int_equal(id, 0x101);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), 0);
    assert_int_equal(stats.first_seq, 0x1000);
    assert_int_equal(stats.last_seq, 0x1002);
    assert_int_equal(stats.blocks_used, 3);
    assert_int_equal(stats.last_obj_id, 0x101);

    struct nk_fs_tags tags;
    uint8_t oob[256];
    for (uint32_t block = 0; block < 3; block++) {
        read_tags(d, block * 64, &tags, NULL);
        assert_int_equal(tags.seq, 0x1000 + block);
    }
    /* Data chunks in order, the header after them, extra-packed. */
    read_tags(d, 0, &tags, NULL);
    assert_int_equal(tags.obj_id, 0x100);
    assert_int_equal(tags.chunk_id, 1);
    assert_int_equal(tags.n_bytes, 2048);
    read_tags(d, 130, &tags, oob);
    assert_true(tags.extra);
    assert_int_equal(tags.obj_id, 0x100);
    assert_int_equal(tags.extra_type, NK_FS_TYPE_FILE);
    assert_int_equal(tags.extra_parent_id, NK_FS_OBJ_ROOT);
    assert_int_equal(tags.extra_size_or_equiv, 130 * 2048);
    read_tags(d, 131, &tags, NULL);
    assert_true(tags.extra);
    assert_int_equal(tags.extra_type, NK_FS_TYPE_DIR);
    read_tags(d, 132, &tags, NULL);
    assert_int_equal(tags.seq, NK_FS_SEQ_UNWRITTEN);
    /* Free OOB bytes past the 28 of the tags stay erased. */
    for (unsigned i = 28; i < d->t.nand.free_bytes; i++)
        assert_int_equal(oob[i], 0xff);
    dev_close(d);
}

static void test_mkyaffs2_headers_are_plain_as_mkyaffs2image_writes_them(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_MKYAFFS2, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_DIR,
                                  .parent_id = 1,
                                  .name = "etc",
                                  .name_len = 3,
                                  .attr = {.mode = 0755}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    uint8_t raw[2048 + 64];
    assert_int_equal(nk_nand_read_page(&d->t.nand, 0, raw, raw + 2048, NK_OOB_RAW), 0);
    struct nk_fs_tags tags;
    assert_int_equal(nk_fs_tags_decode(raw + 2048, true, &tags), NK_FS_TAGS_CLEAN);
    assert_false(tags.extra);
    assert_int_equal(tags.obj_id, 0x100);
    assert_int_equal(tags.chunk_id, 0);
    assert_int_equal(tags.n_bytes, 0xffff);
    for (unsigned i = 28; i < 64; i++)
        assert_int_equal(raw[2048 + i], 0xff);
    struct nk_fs_header hdr;
    assert_int_equal(nk_fs_header_decode(raw, 2048, false, &hdr), 0);
    assert_int_equal(hdr.type, NK_FS_TYPE_DIR);
    assert_int_equal(hdr.parent_id, 1);
    assert_int_equal(hdr.mode, 040755);
    assert_int_equal(hdr.name_len, 3);
    assert_memory_equal(hdr.name, "etc", 3);
    dev_close(d);
}

static void test_mkyaffs2_files_have_their_header_before_their_data(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_MKYAFFS2, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644},
                                  .size = 5000};
    uint32_t id;
    assert_int_equal(nk_fs_build_object(&d->builder, &e, &id), 0);
    assert_int_equal(stream_file(&d->builder, 3, 5000, 1000), 0);
    assert_int_equal(nk_fs_build_file_end(&d->builder), 0);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    /* page 0: the header, with the size; pages 1..3: data chunks 1..3 */
    struct nk_fs_tags tags;
    read_tags(d, 0, &tags, NULL);
    assert_int_equal(tags.obj_id, id);
    assert_int_equal(tags.chunk_id, 0);
    uint8_t raw[2048 + 64];
    assert_int_equal(nk_nand_read_page(&d->t.nand, 0, raw, raw + 2048, NK_OOB_RAW), 0);
    struct nk_fs_header hdr;
    assert_int_equal(nk_fs_header_decode(raw, 2048, false, &hdr), 0);
    assert_int_equal(hdr.type, NK_FS_TYPE_FILE);
    assert_int_equal(hdr.size, 5000);
    for (uint32_t page = 1; page <= 3; page++) {
        read_tags(d, page, &tags, NULL);
        assert_int_equal(tags.obj_id, id);
        assert_int_equal(tags.chunk_id, page);
    }
    read_tags(d, 3, &tags, NULL);
    assert_int_equal(tags.n_bytes, 5000 - 2 * 2048);
    dev_close(d);
}

static void test_mkyaffs2_data_must_match_the_size_given_first(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_MKYAFFS2, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644},
                                  .size = 100};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(stream_file(&d->builder, 3, 99, 99), 0);
    assert_int_equal(nk_fs_build_file_end(&d->builder), -NK_EINVAL);
    assert_non_null(strstr(d->builder.diag.text, "99 bytes of data"));
    dev_close(d);
}

static void test_inband_tags_sit_in_the_last_16_bytes_of_the_page(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_INBAND, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(stream_file(&d->builder, 3, 2033, 2033), 0);
    assert_int_equal(nk_fs_build_file_end(&d->builder), 0);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    struct nk_fs_tags tags;
    read_tags(d, 0, &tags, NULL);
    assert_int_equal(tags.chunk_id, 1);
    assert_int_equal(tags.n_bytes, 2032);
    read_tags(d, 1, &tags, NULL);
    assert_int_equal(tags.chunk_id, 2);
    assert_int_equal(tags.n_bytes, 1);
    read_tags(d, 2, &tags, NULL);
    assert_true(tags.extra);
    assert_int_equal(tags.extra_size_or_equiv, 2033);
    dev_close(d);
}

/* ----- bad blocks, failures, space --------------------------------------------------------------
 */

static void build_small_tree(struct dev *d, struct tree *t)
{
    memset(t, 0, sizeof *t);
    t->root.mode = 0755;
    tree_add(t, "/a", NK_FS_TYPE_DIR, 040755);
    tree_file(t, "/a/big", 300ull * 2048 + 5, 7000); /* five blocks */
    tree_file(t, "/small", 10, 10);
    tree_build(d, t);
}

static void test_factory_bad_blocks_are_skipped_and_keep_their_markers(void **state)
{
    (void)state;
    static const uint32_t bad[] = {1, 3};
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, bad, 2);
    assert_int_equal(build_begin(d), 0);
    assert_int_equal(d->builder.stats.blocks_bad, 2);
    assert_int_equal(d->builder.stats.chunks_capacity, 14 * 64);
    struct tree t;
    build_small_tree(d, &t);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), 0);
    assert_int_equal(stats.blocks_erased, 14);
    assert_int_equal(stats.blocks_used, 5);
    for (unsigned i = 0; i < 2; i++) {
        uint8_t marker;
        assert_int_equal(nk_sim_page_peek(d->t.sim, bad[i] * 64, 2048, &marker, 1), 0);
        assert_int_not_equal(marker, 0xff);
        assert_int_equal(nk_part_block_is_bad(&d->t.part, bad[i]), 1);
    }
    /* Block 2 holds the second block's chunks: sequence 0x1001. */
    struct nk_fs_tags tags;
    read_tags(d, 2 * 64, &tags, NULL);
    assert_int_equal(tags.seq, 0x1001);
    dev_mount(d);
    assert_int_equal(d->fs.stats.blocks_bad, 2);
    tree_check(d, &t);
    dev_close(d);
}

static void test_an_erase_failure_retires_the_block_and_the_build_goes_on(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, NULL, 0);
    assert_int_equal(nk_sim_fail_inject(d->t.sim, 2, NK_SIM_FAIL_ERASE, false), 0);
    assert_int_equal(build_begin(d), 0);
    assert_int_equal(d->builder.stats.chunks_capacity, 16 * 64);
    struct tree t;
    build_small_tree(d, &t);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), 0);
    assert_int_equal(stats.blocks_retired, 1);
    assert_int_equal(stats.blocks_erased, 15);
    assert_int_equal(stats.chunks_capacity, 15 * 64);
    assert_int_equal(nk_part_block_is_bad(&d->t.part, 2), 1);
    struct nk_fs_tags tags;
    read_tags(d, 3 * 64, &tags, NULL);
    assert_int_equal(tags.seq, 0x1002); /* blocks 0, 1, then 3 */
    dev_mount(d);
    assert_int_equal(d->fs.stats.blocks_bad, 1);
    tree_check(d, &t);
    dev_close(d);
}

static void test_an_erase_failure_stops_a_mkyaffs2_build(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_MKYAFFS2, NULL, 0);
    assert_int_equal(nk_sim_fail_inject(d->t.sim, 4, NK_SIM_FAIL_ERASE, false), 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {
        .type = NK_FS_TYPE_DIR, .parent_id = 1, .name = "d", .name_len = 1, .attr = {.mode = 0755}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), -NK_EIO);
    assert_non_null(strstr(d->builder.diag.text, "block 4"));
    assert_non_null(strstr(d->builder.diag.text, "no bad-block markers"));
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), -NK_EIO);
    dev_close(d);
}

static void test_a_program_failure_marks_the_block_bad_and_stops_with_eio(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, NULL, 0);
    assert_int_equal(nk_sim_fail_inject(d->t.sim, 1, NK_SIM_FAIL_PROGRAM, false), 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(stream_file(&d->builder, 9, 100 * 2048, 2048), -NK_EIO);
    assert_non_null(strstr(d->builder.diag.text, "block 1 is marked bad"));
    /* Stopped for good. */
    assert_int_equal(nk_fs_build_data(&d->builder, "x", 1), -NK_EIO);
    assert_int_equal(nk_fs_build_file_end(&d->builder), -NK_EIO);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), -NK_EIO);
    assert_int_equal(stats.blocks_retired, 1);
    assert_int_equal(stats.chunks_written, 64);
    assert_int_equal(nk_part_block_is_bad(&d->t.part, 1), 1);
    dev_close(d);
}

static void test_a_tree_too_big_fails_with_enospc_naming_the_space(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, NULL, 0);
    struct nk_part small;
    assert_int_equal(nk_part_init(&small, &d->t.nand, "small", 0, 2, 0), 0);
    d->t.part = small;
    assert_int_equal(build_begin(d), 0);
    /* What a caller checks before writing anything. */
    uint64_t need = nk_fs_build_chunks(&d->builder, NK_FS_TYPE_FILE, 128 * 2048);
    assert_int_equal(need, 129);
    assert_true(need > d->builder.stats.chunks_capacity);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(stream_file(&d->builder, 9, 128 * 2048, 2048), 0); /* exactly full */
    assert_int_equal(nk_fs_build_file_end(&d->builder), -NK_ENOSPC);
    assert_non_null(strstr(d->builder.diag.text, "2 good blocks (128 chunks of 2048 bytes)"));
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), -NK_ENOSPC);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), -NK_ENOSPC);
    dev_close(d);
}

static void test_a_partition_not_at_block_0_is_built_within_its_blocks(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, NULL, 0);
    /* Something outside the partition that must survive. */
    uint8_t page[2048], oob[64];
    memset(page, 0x5a, sizeof page);
    memset(oob, 0xff, sizeof oob);
    assert_int_equal(nk_part_program_page(&d->t.part, 2 * 64, page, oob, NK_OOB_AUTO), 0);
    assert_int_equal(nk_part_program_page(&d->t.part, 12 * 64, page, oob, NK_OOB_AUTO), 0);
    struct nk_part whole = d->t.part;
    assert_int_equal(nk_part_init(&d->t.part, &d->t.nand, "fs", 3, 9, 0), 0);
    assert_int_equal(build_begin(d), 0);
    assert_int_equal(d->builder.stats.blocks, 9);
    struct tree t;
    build_small_tree(d, &t);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), 0);
    assert_int_equal(stats.blocks_erased, 9);
    uint8_t back[2048];
    assert_true(nk_part_read_page(&whole, 2 * 64, back, NULL, NK_OOB_AUTO) >= 0);
    assert_memory_equal(back, page, sizeof page);
    assert_true(nk_part_read_page(&whole, 12 * 64, back, NULL, NK_OOB_AUTO) >= 0);
    assert_memory_equal(back, page, sizeof page);
    /* Partition block 0 is device block 3 and carries sequence 0x1000. */
    uint8_t raw[64];
    assert_int_equal(nk_sim_page_peek(d->t.sim, 3 * 64, 2048, raw, sizeof raw), 0);
    struct nk_fs_tags tags;
    assert_int_equal(nk_fs_tags_decode(raw + 2, true, &tags), NK_FS_TAGS_CLEAN);
    assert_int_equal(tags.seq, 0x1000);
    dev_mount(d);
    tree_check(d, &t);
    dev_close(d);
}

static void test_an_earlier_file_system_is_erased_away(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 16, NK_FS_LAYOUT_LINUX, NULL, 0);
    struct tree *t = malloc(sizeof *t);
    assert_int_equal(build_begin(d), 0);
    build_small_tree(d, t);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    /* The second build uses fewer blocks, with lower sequence numbers than
     * the first build's last blocks. */
    assert_int_equal(build_begin(d), 0);
    memset(t, 0, sizeof *t);
    t->root.mode = 0700;
    tree_file(t, "/only", 4000, 4000);
    tree_build(d, t);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    dev_mount(d);
    tree_check(d, t);
    assert_int_equal(d->fs.stats.objects, 1);
    assert_int_equal(d->fs.stats.blocks_in_use, 1);
    free(t);
    dev_close(d);
}

static void test_an_empty_build_leaves_an_erased_file_system(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_LINUX, NULL, 0);
    uint8_t page[2048];
    memset(page, 0, sizeof page);
    assert_int_equal(nk_part_program_page(&d->t.part, 70, page, NULL, NK_OOB_AUTO), 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_stats stats;
    assert_int_equal(nk_fs_build_finish(&d->builder, &stats), 0);
    assert_int_equal(stats.blocks_erased, 8);
    assert_int_equal(stats.chunks_written, 0);
    dev_mount(d);
    assert_int_equal(d->fs.stats.blocks_empty, 8);
    assert_int_equal(d->fs.stats.objects, 0);
    check_dir_count(d, "/", 1);
    dev_close(d);
}

static void test_lost_found_takes_children_and_attributes(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_LINUX, NULL, 0);
    assert_int_equal(build_begin(d), 0);
    struct nk_fs_build_attr attr = {.mode = 0750, .uid = 3, .gid = 4, .mtime = 1234567};
    assert_int_equal(nk_fs_build_builtin(&d->builder, NK_FS_OBJ_LOST_FOUND, &attr), 0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = NK_FS_OBJ_LOST_FOUND,
                                  .name = "found",
                                  .name_len = 5,
                                  .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(nk_fs_build_data(&d->builder, "hello", 5), 0);
    assert_int_equal(nk_fs_build_file_end(&d->builder), 0);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    dev_mount(d);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_lstat(&d->fs, "/lost+found", &st), 0);
    assert_int_equal(st.mode, 040750);
    assert_int_equal(st.uid, 3);
    assert_int_equal(st.mtime, 1234567);
    assert_int_equal(nk_fs_lstat(&d->fs, "/lost+found/found", &st), 0);
    assert_int_equal(st.size, 5);
    check_dir_count(d, "/", 1);
    dev_close(d);
}

/* ----- argument errors ----------------------------------------------------------------------- */

static void test_bad_entries_are_refused_and_write_nothing(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_LINUX, NULL, 0);
    struct nk_fs_builder *b = &d->builder;
    assert_int_equal(build_begin(d), 0);
    char long_name[NK_FS_NAME_MAX + 1];
    memset(long_name, 'a', sizeof long_name);
    char long_target[NK_FS_ALIAS_MAX + 1];
    memset(long_target, 't', sizeof long_target);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = long_name,
                                  .name_len = sizeof long_name,
                                  .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_ENAMETOOLONG);
    assert_non_null(strstr(b->diag.text, "256 bytes"));
    e.name_len = NK_FS_NAME_MAX; /* 255 fits */
    e.type = NK_FS_TYPE_DIR;
    e.attr.mode = 0755;
    e.name = "a/b";
    e.name_len = 3;
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.name = "..";
    e.name_len = 2;
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.name_len = 0;
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.name = "x";
    e.name_len = 1;
    e.parent_id = 0x100; /* never given out */
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.parent_id = 1;
    e.attr.mode = 0100755; /* a file's type bits on a directory */
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.type = NK_FS_TYPE_SPECIAL;
    e.attr.mode = 0644; /* no device, FIFO or socket bits */
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.type = NK_FS_TYPE_SYMLINK;
    e.attr.mode = 0777;
    e.target = long_target;
    e.target_len = sizeof long_target;
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_ENAMETOOLONG);
    assert_non_null(strstr(b->diag.text, "160 bytes"));
    e.type = NK_FS_TYPE_HARDLINK;
    e.equiv_id = 0x100;
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    e.type = 9;
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    assert_int_equal(nk_fs_build_data(b, "x", 1), -NK_EINVAL);
    assert_int_equal(nk_fs_build_file_end(b), -NK_EINVAL);
    assert_int_equal(nk_fs_build_builtin(b, 0x100, &e.attr), -NK_EINVAL);
    /* Nothing written, nothing erased, ids untouched. */
    assert_int_equal(b->stats.blocks_erased, 0);
    assert_int_equal(b->stats.chunks_written, 0);

    e = (struct nk_fs_build_entry){.type = NK_FS_TYPE_FILE,
                                   .parent_id = 1,
                                   .name = long_name,
                                   .name_len = NK_FS_NAME_MAX,
                                   .attr = {.mode = 0644}};
    uint32_t id;
    assert_int_equal(nk_fs_build_object(b, &e, &id), 0);
    assert_int_equal(id, 0x100);
    /* Another object while the file is open. */
    assert_int_equal(nk_fs_build_object(b, &e, NULL), -NK_EINVAL);
    assert_int_equal(nk_fs_build_finish(b, NULL), -NK_EINVAL);
    assert_int_equal(nk_fs_build_file_end(b), 0);
    assert_int_equal(nk_fs_build_finish(b, NULL), 0);
    dev_mount(d);
    check_dir_count(d, "/", 2);
    dev_close(d);
}

static void test_begin_refuses_a_short_workspace_and_a_read_only_partition(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_LINUX, NULL, 0);
    assert_int_equal(nk_fs_build_workspace_size(&d->t.part), 2048 + d->t.nand.free_bytes);
    struct nk_fs_build_config config = {.part = &d->t.part, .layout = NK_FS_LAYOUT_LINUX};
    assert_int_equal(nk_fs_build_begin(&d->builder, &config, d->build_ws, 2048), -NK_EINVAL);
    assert_non_null(strstr(d->builder.diag.text, "workspace"));
    config.layout = (enum nk_fs_layout)7;
    assert_int_equal(nk_fs_build_begin(&d->builder, &config, d->build_ws, 4096), -NK_EINVAL);
    struct nk_part ro;
    assert_int_equal(nk_part_init(&ro, &d->t.nand, "ro", 0, 8, NK_PART_READ_ONLY), 0);
    config.part = &ro;
    config.layout = NK_FS_LAYOUT_LINUX;
    assert_int_equal(nk_fs_build_begin(&d->builder, &config, d->build_ws, 4096), -NK_EROFS);
    /* A failed begin leaves a builder that refuses everything. */
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), -NK_EROFS);
    dev_close(d);
}

static void count_progress(void *ctx, const struct nk_fs_build_stats *stats)
{
    unsigned *calls = ctx;
    (*calls)++;
    assert_true(stats->blocks_erased + stats->blocks_used > 0);
}

static void test_progress_is_reported_per_block(void **state)
{
    (void)state;
    struct dev *d = dev_open(2048, 64, 8, NK_FS_LAYOUT_LINUX, NULL, 0);
    unsigned calls = 0;
    struct nk_fs_build_config config = {.part = &d->t.part,
                                        .layout = NK_FS_LAYOUT_LINUX,
                                        .progress = count_progress,
                                        .progress_ctx = &calls};
    assert_int_equal(nk_fs_build_begin(&d->builder, &config, d->build_ws,
                                       nk_fs_build_workspace_size(&d->t.part)),
                     0);
    struct nk_fs_build_entry e = {.type = NK_FS_TYPE_FILE,
                                  .parent_id = 1,
                                  .name = "f",
                                  .name_len = 1,
                                  .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(&d->builder, &e, NULL), 0);
    assert_int_equal(stream_file(&d->builder, 2, 100 * 2048, 8192), 0);
    assert_int_equal(nk_fs_build_file_end(&d->builder), 0);
    assert_int_equal(nk_fs_build_finish(&d->builder, NULL), 0);
    assert_int_equal(calls, 8 + 2); /* 8 erased, 2 opened */
    dev_close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_reads_back_linux_2k),
        cmocka_unit_test(test_every_kind_reads_back_linux_4k),
        cmocka_unit_test(test_every_kind_reads_back_mkyaffs2_2k),
        cmocka_unit_test(test_every_kind_reads_back_mkyaffs2_4k),
        cmocka_unit_test(test_every_kind_reads_back_inband_2k),
        cmocka_unit_test(test_every_kind_reads_back_inband_4k),
        cmocka_unit_test(test_blocks_take_sequence_numbers_from_0x1000_and_objects_ids_from_0x100),
        cmocka_unit_test(test_mkyaffs2_headers_are_plain_as_mkyaffs2image_writes_them),
        cmocka_unit_test(test_mkyaffs2_files_have_their_header_before_their_data),
        cmocka_unit_test(test_mkyaffs2_data_must_match_the_size_given_first),
        cmocka_unit_test(test_inband_tags_sit_in_the_last_16_bytes_of_the_page),
        cmocka_unit_test(test_factory_bad_blocks_are_skipped_and_keep_their_markers),
        cmocka_unit_test(test_an_erase_failure_retires_the_block_and_the_build_goes_on),
        cmocka_unit_test(test_an_erase_failure_stops_a_mkyaffs2_build),
        cmocka_unit_test(test_a_program_failure_marks_the_block_bad_and_stops_with_eio),
        cmocka_unit_test(test_a_tree_too_big_fails_with_enospc_naming_the_space),
        cmocka_unit_test(test_a_partition_not_at_block_0_is_built_within_its_blocks),
        cmocka_unit_test(test_an_earlier_file_system_is_erased_away),
        cmocka_unit_test(test_an_empty_build_leaves_an_erased_file_system),
        cmocka_unit_test(test_lost_found_takes_children_and_attributes),
        cmocka_unit_test(test_bad_entries_are_refused_and_write_nothing),
        cmocka_unit_test(test_begin_refuses_a_short_workspace_and_a_read_only_partition),
        cmocka_unit_test(test_progress_is_reported_per_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
