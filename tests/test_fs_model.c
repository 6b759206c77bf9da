/* SPDX-License-Identifier: MIT */
/*
 * Model-based random test of the writable file system: long random
 * sequences of every operation (create, write, pwrite, append, truncate
 * both ways, unlink also of an open file, mkdir, rmdir, rename of files and
 * directories also over existing names, link, symlink, chmod, fsync, and
 * remount), each checked against an in-memory model: the return code after
 * every operation, and the whole tree (names, types, sizes, link counts,
 * modes, every byte) after every step. Every layout, 2 KiB and 4 KiB pages,
 * on a small device so garbage collection runs all the time.
 *
 * The CI slice runs a few thousand operations per layout. NK_FS_MODEL_OPS
 * and NK_FS_MODEL_SEEDS in the environment scale it up for long local runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_model.h"
#include "fs_testdev.h"
#include "testutil.h"

struct rig {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
    struct model m;
    uint64_t rng;
    /* One open handle (-1 inode when closed). */
    struct nk_fs_file file;
    int file_inode;
    uint64_t ops, remounts;
    uint64_t programs, collections, erases; /* over all mounts */
};

static void rig_tally(struct rig *r)
{
    struct nk_fs_statfs st;
    nk_fs_statfs(&r->fs, &st);
    r->programs += st.chunks_programmed;
    r->collections += st.blocks_collected;
    r->erases += st.blocks_erased_count;
}

static uint32_t rnd(struct rig *r, uint32_t n)
{
    r->rng ^= r->rng << 13;
    r->rng ^= r->rng >> 7;
    r->rng ^= r->rng << 17;
    return n ? (uint32_t)(r->rng % n) : 0;
}

static const char *const names[] = {"a", "b", "c", "d", "e", "f"};

/* The whole tree is compared after every n-th step (and every remount); 1
 * in CI. Long local runs may set NK_FS_MODEL_CHECK_EVERY. */
static uint64_t g_check_every = 1;

static void rig_mount(struct rig *r)
{
    int err = nk_fs_mount(&r->fs, &r->config);
    if (err)
        fail_msg("mount: %d %s", err, r->fs.diag.text);
}

/* A simulated preset to run on instead of a bare geometry (NULL: geometry). */
static const char *g_preset;

static void rig_open(struct rig *r, enum nk_fs_layout layout, uint32_t page, uint32_t oob,
                     uint32_t blocks, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    struct nk_diag why[1] = {{""}};
    int err = g_preset ? nk_fs_testdev_open_preset(&r->t, g_preset, blocks, layout, why)
                       : nk_fs_testdev_open(&r->t, page, oob, 64, blocks, layout, NULL, why);
    if (err)
        fail_msg("device: %s", why->text);
    r->config = nk_fs_testdev_config(&r->t);
    r->config.read_only = false;
    assert_int_equal(nk_fs_format(&r->config, layout), 0);
    rig_mount(r);
    m_init(&r->m);
    r->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    r->file_inode = -1;
}

static void rig_close(struct rig *r)
{
    if (r->file_inode >= 0)
        nk_fs_file_close(&r->file);
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    nk_fs_testdev_close(&r->t);
    m_free(&r->m);
}

static void check(struct rig *r, const char *what)
{
    char why[512];
    if (m_check(&r->m, &r->fs, why, sizeof why))
        fail_msg("after op %llu (%s): %s", (unsigned long long)r->ops, what, why);
}

static void expect(struct rig *r, const char *what, const char *path, int got, int want)
{
    if (got != want)
        fail_msg("op %llu %s %s: returned %d, model says %d", (unsigned long long)r->ops, what,
                 path, got, want);
}

/* A random node: any (with dirs included when `dirs`). */
static int pick_node(struct rig *r, bool dirs)
{
    int candidates[M_NODES], count = 0;
    for (int i = 2; i < M_NODES; i++)
        if (r->m.n[i].used && (dirs || r->m.n[i].type != NK_FS_TYPE_DIR))
            candidates[count++] = i;
    return count ? candidates[rnd(r, count)] : -1;
}

static int pick_dir(struct rig *r)
{
    int candidates[M_NODES], count = 0;
    for (int i = 0; i < M_NODES; i++)
        if (r->m.n[i].used && r->m.n[i].type == NK_FS_TYPE_DIR)
            candidates[count++] = i;
    return candidates[rnd(r, count)];
}

/* A random path (parent dir + name), existing or not. */
static void pick_place(struct rig *r, int *dir, const char **name, char *path)
{
    *dir = pick_dir(r);
    *name = names[rnd(r, sizeof names / sizeof names[0])];
    m_path(&r->m, *dir, path);
    size_t len = strlen(path);
    if (len > 1)
        path[len++] = '/';
    strcpy(path + len, *name);
}

static uint32_t data_budget(struct rig *r)
{
    uint64_t total = 0;
    for (int i = 0; i < M_INODES; i++)
        total += r->m.in[i].used ? r->m.in[i].size : 0;
    struct nk_fs_statfs st;
    nk_fs_statfs(&r->fs, &st);
    /* Keep the model's data under a third of the space (and 400 KB, so the
     * check after every step stays quick): ENOSPC never decides here. */
    uint64_t limit = st.bytes_total / 3 < 400000 ? st.bytes_total / 3 : 400000;
    return total >= limit ? 0 : (uint32_t)(limit - total);
}

static void fill(struct rig *r, uint8_t *buf, uint32_t len)
{
    uint8_t v = (uint8_t)rnd(r, 256);
    for (uint32_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(v + i * 7 + (i >> 8));
}

static void op_create(struct rig *r)
{
    int dir;
    const char *name;
    char path[M_PATH];
    pick_place(r, &dir, &name, path);
    int existing = m_child(&r->m, dir, name);
    bool excl = rnd(r, 2);
    uint32_t flags = NK_FS_O_WRONLY | NK_FS_O_CREAT | (excl ? NK_FS_O_EXCL : 0) | NK_FS_O_TRUNC;
    uint32_t mode = 0600 + rnd(r, 2) * 044;
    int want = 0;
    if (existing >= 0) {
        const struct m_node *n = &r->m.n[existing];
        if (excl)
            want = -NK_EEXIST;
        else if (n->type == NK_FS_TYPE_DIR)
            want = -NK_EISDIR;
        else if (n->type == NK_FS_TYPE_SYMLINK)
            want = 99; /* resolved by the fs: not modelled, skip */
    }
    if (want == 99)
        return;
    int node = existing >= 0 ? existing : m_new_node(&r->m);
    int ino = existing >= 0 ? r->m.n[existing].inode : m_new_inode(&r->m);
    if (node < 0 || ino < 0)
        return;
    struct nk_fs_file f;
    int err = nk_fs_file_open_mode(&r->fs, &f, path, flags, mode);
    expect(r, "create", path, err, want);
    if (err)
        return;
    if (existing < 0) {
        r->m.n[node] =
            (struct m_node){.used = true, .parent = dir, .type = NK_FS_TYPE_FILE, .inode = ino};
        strcpy(r->m.n[node].name, name);
        r->m.in[ino] = (struct m_inode){.used = true, .nlink = 1, .mode = mode};
    } else {
        m_resize(&r->m.in[ino], 0);
    }
    uint32_t budget = data_budget(r);
    uint32_t len = rnd(r, 3) == 0 ? rnd(r, 64) : rnd(r, 14000);
    if (len > budget)
        len = 0;
    static uint8_t buf[65536];
    fill(r, buf, len);
    uint32_t done = 0;
    while (done < len) {
        uint32_t piece = 1 + rnd(r, 9000);
        if (piece > len - done)
            piece = len - done;
        int32_t n = nk_fs_file_write(&f, buf + done, piece);
        expect(r, "write", path, n, (int)piece);
        done += piece;
    }
    m_write(&r->m.in[ino], 0, buf, len);
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void op_pwrite(struct rig *r)
{
    int node = pick_node(r, false);
    if (node < 0 || r->m.n[node].type != NK_FS_TYPE_FILE)
        return;
    char path[M_PATH];
    m_path(&r->m, node, path);
    struct m_inode *in = &r->m.in[r->m.n[node].inode];
    struct nk_fs_file f;
    bool append = rnd(r, 4) == 0;
    assert_int_equal(
        nk_fs_file_open(&r->fs, &f, path, NK_FS_O_RDWR | (append ? NK_FS_O_APPEND : 0)), 0);
    uint32_t budget = data_budget(r);
    int rounds = 1 + rnd(r, 4);
    static uint8_t buf[20000];
    for (int k = 0; k < rounds; k++) {
        uint32_t off = append ? in->size : rnd(r, in->size + 5000);
        uint32_t len = 1 + rnd(r, rnd(r, 2) ? 300 : 12000);
        if (off + len > in->size && off + len - in->size > budget)
            break;
        fill(r, buf, len);
        int32_t n = append ? nk_fs_file_write(&f, buf, len) : nk_fs_file_pwrite(&f, buf, len, off);
        expect(r, "pwrite", path, n, (int)len);
        m_write(in, off, buf, len);
        if (rnd(r, 3) == 0) {
            /* Read back through the same handle (the write buffer's copy). */
            static uint8_t back[20000];
            uint32_t at = rnd(r, in->size);
            uint32_t want = in->size - at < sizeof back ? in->size - at : sizeof back;
            int32_t got = nk_fs_file_pread(&f, back, want, at);
            expect(r, "pread", path, got, (int)want);
            if (want && memcmp(back, in->data + at, want))
                fail_msg("op %llu: pread through the writing handle differs",
                         (unsigned long long)r->ops);
        }
    }
    if (rnd(r, 2)) {
        int err = nk_fs_file_fsync(&f);
        if (err) {
            struct nk_fs_statfs st;
            nk_fs_statfs(&r->fs, &st);
            fail_msg("op %llu: fsync %d (%s); avail %llu free %llu live %llu erased %u",
                     (unsigned long long)r->ops, err, r->fs.diag.text,
                     (unsigned long long)st.bytes_avail, (unsigned long long)st.bytes_free,
                     (unsigned long long)st.bytes_live, (unsigned)st.blocks_erased);
        }
    }
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void op_truncate(struct rig *r)
{
    int node = pick_node(r, false);
    if (node < 0 || r->m.n[node].type != NK_FS_TYPE_FILE)
        return;
    char path[M_PATH];
    m_path(&r->m, node, path);
    struct m_inode *in = &r->m.in[r->m.n[node].inode];
    uint32_t size = rnd(r, 2) ? rnd(r, in->size + 1) : in->size + rnd(r, 20000);
    if (size > in->size && size - in->size > data_budget(r))
        return;
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&r->fs, &f, path, NK_FS_O_WRONLY), 0);
    assert_int_equal(nk_fs_file_truncate(&f, size), 0);
    m_resize(in, size);
    assert_int_equal(nk_fs_file_close(&f), 0);
}

static void op_unlink(struct rig *r)
{
    int node = pick_node(r, true);
    if (node < 0)
        return;
    char path[M_PATH];
    m_path(&r->m, node, path);
    int err = nk_fs_unlink(&r->fs, path);
    int want = r->m.n[node].type == NK_FS_TYPE_DIR ? -NK_EISDIR : 0;
    expect(r, "unlink", path, err, want);
    if (!err)
        m_unlink(&r->m, node);
}

static void op_mkdir(struct rig *r)
{
    int dir;
    const char *name;
    char path[M_PATH];
    pick_place(r, &dir, &name, path);
    int existing = m_child(&r->m, dir, name);
    int node = m_new_node(&r->m);
    if (node < 0)
        return;
    uint32_t mode = rnd(r, 2) ? 0755 : 0700;
    int err = nk_fs_mkdir(&r->fs, path, mode);
    expect(r, "mkdir", path, err, existing >= 0 ? -NK_EEXIST : 0);
    if (err)
        return;
    r->m.n[node] =
        (struct m_node){.used = true, .parent = dir, .type = NK_FS_TYPE_DIR, .mode = mode};
    strcpy(r->m.n[node].name, name);
}

static void op_rmdir(struct rig *r)
{
    int node = pick_node(r, true);
    if (node < 0)
        return;
    char path[M_PATH];
    m_path(&r->m, node, path);
    int want = r->m.n[node].type != NK_FS_TYPE_DIR ? -NK_ENOTDIR
               : m_children(&r->m, node)           ? -NK_ENOTEMPTY
                                                   : 0;
    int err = nk_fs_rmdir(&r->fs, path);
    expect(r, "rmdir", path, err, want);
    if (!err)
        m_unlink(&r->m, node);
}

static void op_rename(struct rig *r)
{
    int src = pick_node(r, true);
    if (src < 0)
        return;
    int dir;
    const char *name;
    char from[M_PATH], to[M_PATH];
    m_path(&r->m, src, from);
    pick_place(r, &dir, &name, to);
    struct model *m = &r->m;
    int dst = m_child(m, dir, name);
    bool src_dir = m->n[src].type == NK_FS_TYPE_DIR;
    int want = 0;
    if (src_dir && m_under(m, dir, src))
        want = -NK_EINVAL;
    else if (dst == src)
        want = 0;
    else if (dst >= 0) {
        bool dst_dir = m->n[dst].type == NK_FS_TYPE_DIR;
        if (dst == 1)
            want = -NK_EBUSY;
        else if (src_dir && !dst_dir)
            want = -NK_ENOTDIR;
        else if (!src_dir && dst_dir)
            want = -NK_EISDIR;
        else if (dst_dir && m_children(m, dst))
            want = -NK_ENOTEMPTY;
    }
    int err = nk_fs_rename(&r->fs, from, to);
    expect(r, "rename", from, err, want);
    if (err || dst == src)
        return;
    if (dst >= 0) {
        if (m->n[dst].type == NK_FS_TYPE_FILE && m->n[src].type == NK_FS_TYPE_FILE &&
            m->n[dst].inode == m->n[src].inode)
            return; /* two names of one file: nothing happens */
        m_unlink(m, dst);
    }
    m->n[src].parent = dir;
    strcpy(m->n[src].name, name);
}

static void op_link(struct rig *r)
{
    int src = pick_node(r, false);
    if (src < 0 || r->m.n[src].type != NK_FS_TYPE_FILE)
        return;
    int dir;
    const char *name;
    char from[M_PATH], to[M_PATH];
    m_path(&r->m, src, from);
    pick_place(r, &dir, &name, to);
    int existing = m_child(&r->m, dir, name);
    int node = m_new_node(&r->m);
    if (node < 0)
        return;
    int err = nk_fs_link(&r->fs, from, to);
    expect(r, "link", to, err, existing >= 0 ? -NK_EEXIST : 0);
    if (err)
        return;
    r->m.n[node] = r->m.n[src];
    r->m.n[node].parent = dir;
    strcpy(r->m.n[node].name, name);
    r->m.in[r->m.n[src].inode].nlink++;
}

static void op_symlink(struct rig *r)
{
    int dir;
    const char *name;
    char path[M_PATH];
    pick_place(r, &dir, &name, path);
    int existing = m_child(&r->m, dir, name);
    int node = m_new_node(&r->m);
    if (node < 0)
        return;
    char target[48];
    snprintf(target, sizeof target, "../%s/x%u", names[rnd(r, 6)], rnd(r, 1000));
    int err = nk_fs_symlink(&r->fs, target, path);
    expect(r, "symlink", path, err, existing >= 0 ? -NK_EEXIST : 0);
    if (err)
        return;
    r->m.n[node] = (struct m_node){.used = true, .parent = dir, .type = NK_FS_TYPE_SYMLINK};
    strcpy(r->m.n[node].name, name);
    strcpy(r->m.n[node].target, target);
}

static void op_chmod(struct rig *r)
{
    int node = pick_node(r, true);
    if (node < 0 || r->m.n[node].type == NK_FS_TYPE_SYMLINK)
        return;
    char path[M_PATH];
    m_path(&r->m, node, path);
    uint32_t mode = rnd(r, 01000);
    assert_int_equal(nk_fs_chmod(&r->fs, path, mode), 0);
    if (r->m.n[node].type == NK_FS_TYPE_DIR)
        r->m.n[node].mode = mode;
    else
        r->m.in[r->m.n[node].inode].mode = mode;
}

/* The open handle: open a file, write through it, unlink it while open,
 * read it back, close it. */
static void op_handle(struct rig *r)
{
    struct model *m = &r->m;
    if (r->file_inode < 0) {
        int node = pick_node(r, false);
        if (node < 0 || m->n[node].type != NK_FS_TYPE_FILE)
            return;
        char path[M_PATH];
        m_path(m, node, path);
        assert_int_equal(nk_fs_file_open(&r->fs, &r->file, path, NK_FS_O_RDWR), 0);
        r->file_inode = m->n[node].inode;
        m->in[r->file_inode].opens++;
        return;
    }
    struct m_inode *in = &m->in[r->file_inode];
    switch (rnd(r, 4)) {
    case 0: {
        static uint8_t buf[5000];
        uint32_t len = 1 + rnd(r, sizeof buf);
        uint32_t off = rnd(r, in->size + 100);
        if (off + len > in->size && off + len - in->size > data_budget(r))
            return;
        fill(r, buf, len);
        expect(r, "handle pwrite", "", nk_fs_file_pwrite(&r->file, buf, len, off), (int)len);
        m_write(in, off, buf, len);
        break;
    }
    case 1: {
        /* Unlink one of its names (the data stays while the handle is open). */
        for (int i = 2; i < M_NODES; i++) {
            if (m->n[i].used && m->n[i].type == NK_FS_TYPE_FILE && m->n[i].inode == r->file_inode) {
                char path[M_PATH];
                m_path(m, i, path);
                assert_int_equal(nk_fs_unlink(&r->fs, path), 0);
                m_unlink(m, i);
                break;
            }
        }
        break;
    }
    case 2: {
        static uint8_t back[70000];
        uint32_t want = in->size < sizeof back ? in->size : sizeof back;
        int32_t got = nk_fs_file_pread(&r->file, back, want, 0);
        expect(r, "handle pread", "", got, (int)want);
        if (want && memcmp(back, in->data, want))
            fail_msg("op %llu: data through the open handle differs", (unsigned long long)r->ops);
        break;
    }
    default:
        assert_int_equal(nk_fs_file_close(&r->file), 0);
        in->opens--;
        m_inode_put(m, r->file_inode);
        r->file_inode = -1;
        break;
    }
}

static void op_remount(struct rig *r)
{
    if (r->file_inode >= 0) {
        assert_int_equal(nk_fs_file_close(&r->file), 0);
        r->m.in[r->file_inode].opens--;
        m_inode_put(&r->m, r->file_inode);
        r->file_inode = -1;
    }
    rig_tally(r);
    assert_int_equal(nk_fs_unmount(&r->fs), 0);
    rig_mount(r);
    r->remounts++;
    /* A read-only look in between must see the same tree. */
    if (rnd(r, 4) == 0) {
        assert_int_equal(nk_fs_unmount(&r->fs), 0);
        struct nk_fs_config ro = r->config;
        ro.read_only = true;
        assert_int_equal(nk_fs_mount(&r->fs, &ro), 0);
        check(r, "read-only remount");
        assert_int_equal(nk_fs_mkdir(&r->fs, "/never", 0755), -NK_EROFS);
        assert_int_equal(nk_fs_unmount(&r->fs), 0);
        rig_mount(r);
    }
}

static void run(enum nk_fs_layout layout, uint32_t page, uint32_t oob, uint32_t blocks,
                uint64_t seed, uint64_t ops)
{
    struct rig *r = calloc(1, sizeof *r);
    rig_open(r, layout, page, oob, blocks, seed);
    static const char *const op_names[] = {"create",  "pwrite", "truncate", "unlink",
                                           "mkdir",   "rmdir",  "rename",   "link",
                                           "symlink", "chmod",  "handle",   "remount"};
    for (r->ops = 0; r->ops < ops; r->ops++) {
        uint32_t pick = rnd(r, 100);
        unsigned op = pick < 16   ? 0
                      : pick < 32 ? 1
                      : pick < 38 ? 2
                      : pick < 48 ? 3
                      : pick < 56 ? 4
                      : pick < 61 ? 5
                      : pick < 73 ? 6
                      : pick < 78 ? 7
                      : pick < 82 ? 8
                      : pick < 86 ? 9
                      : pick < 97 ? 10
                                  : 11;
        switch (op) {
        case 0:
            op_create(r);
            break;
        case 1:
            op_pwrite(r);
            break;
        case 2:
            op_truncate(r);
            break;
        case 3:
            op_unlink(r);
            break;
        case 4:
            op_mkdir(r);
            break;
        case 5:
            op_rmdir(r);
            break;
        case 6:
            op_rename(r);
            break;
        case 7:
            op_link(r);
            break;
        case 8:
            op_symlink(r);
            break;
        case 9:
            op_chmod(r);
            break;
        case 10:
            op_handle(r);
            break;
        default:
            op_remount(r);
            break;
        }
        if (r->ops % g_check_every == 0 || op == 11)
            check(r, op_names[op]);
    }
    check(r, "end");
    /* The structure check finds nothing wrong with what was written. */
    struct nk_fs_check_result cr;
    assert_int_equal(nk_fs_check(&r->fs, &cr), 0);
    if (cr.problem_total)
        fail_msg("fsck after %llu ops: %u problems", (unsigned long long)r->ops,
                 (unsigned)cr.problem_total);
    rig_tally(r);
    printf("  %s %u+%u seed %llu: %llu ops, %llu remounts, %llu programs, %llu collections, "
           "%llu erases\n",
           nk_fs_layout_name(layout), (unsigned)page, (unsigned)oob, (unsigned long long)seed,
           (unsigned long long)ops, (unsigned long long)r->remounts,
           (unsigned long long)r->programs, (unsigned long long)r->collections,
           (unsigned long long)r->erases);
    /* The run must have exercised the collector. */
    if (ops >= 1000)
        assert_true(r->collections > 0);
    rig_close(r);
    free(r);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : def;
}

static void run_layout(enum nk_fs_layout layout, uint32_t page, uint32_t oob)
{
    uint64_t ops = env_u64("NK_FS_MODEL_OPS", 1500);
    uint64_t seeds = env_u64("NK_FS_MODEL_SEEDS", 1);
    uint64_t first = env_u64("NK_FS_MODEL_SEED", 1);
    g_check_every = env_u64("NK_FS_MODEL_CHECK_EVERY", 1);
    if (g_check_every == 0)
        g_check_every = 1;
    for (uint64_t s = first; s < first + seeds; s++)
        run(layout, page, oob, 24, s, ops);
}

static void test_model_linux_2k(void **state)
{
    (void)state;
    run_layout(NK_FS_LAYOUT_LINUX, 2048, 64);
}

static void test_model_linux_4k(void **state)
{
    (void)state;
    run_layout(NK_FS_LAYOUT_LINUX, 4096, 128);
}

static void test_model_mkyaffs2_2k(void **state)
{
    (void)state;
    run_layout(NK_FS_LAYOUT_MKYAFFS2, 2048, 64);
}

static void test_model_inband_2k(void **state)
{
    (void)state;
    run_layout(NK_FS_LAYOUT_INBAND, 2048, 64);
}

static void test_model_inband_4k(void **state)
{
    (void)state;
    run_layout(NK_FS_LAYOUT_INBAND, 4096, 128);
}

/* SPI-NAND: GigaDevice's on-die ECC and free-OOB layout under Linux's tags. */
static void test_model_linux_spinand_gd5f1gq4ub(void **state)
{
    (void)state;
    g_preset = "GD5F1GQ4UB";
    run_layout(NK_FS_LAYOUT_LINUX, 2048, 128);
    g_preset = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_linux_2k),
        cmocka_unit_test(test_model_linux_4k),
        cmocka_unit_test(test_model_mkyaffs2_2k),
        cmocka_unit_test(test_model_inband_2k),
        cmocka_unit_test(test_model_inband_4k),
        cmocka_unit_test(test_model_linux_spinand_gd5f1gq4ub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
