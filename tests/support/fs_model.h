/* SPDX-License-Identifier: MIT */
/*
 * A reference model of the file system for model-based and power-cut
 * tests: a tree of names (files, directories, symlinks, hard links sharing
 * an inode) with file contents in RAM, the expected result of every
 * operation, and a full comparison of the model with a mounted nk_fs.
 * Header-only, no cmocka: check functions return a description of the
 * first difference (empty when none).
 */
#ifndef NK_FS_MODEL_H
#define NK_FS_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/fs.h"

#define M_NODES 96
#define M_INODES 96
#define M_PATH 256

struct m_inode {
    bool used;
    uint8_t *data;
    uint32_t size, cap;
    uint32_t nlink;
    uint32_t mode;
    uint32_t uid, gid;
    uint64_t mtime;
    int opens;
    bool xset; /* extended attribute "user.m" set, to xval[0 .. xlen) */
    uint8_t xlen, xval[40];
};

struct m_node {
    bool used;
    int parent;
    char name[12];
    uint8_t type; /* NK_FS_TYPE_FILE (a name of an inode), _DIR, _SYMLINK */
    int inode;
    char target[48];
    uint32_t mode;
    uint32_t uid, gid; /* directories */
    uint64_t mtime;    /* directories */
    bool xset;         /* directories: as m_inode's */
    uint8_t xlen, xval[40];
};

struct model {
    struct m_node n[M_NODES];
    struct m_inode in[M_INODES];
    bool xattrs; /* a step set an attribute: checks read "user.m" of every object */
};

static inline void m_init(struct model *m)
{
    for (int i = 0; i < M_INODES; i++)
        free(m->in[i].data);
    memset(m, 0, sizeof *m);
    m->n[0] = (struct m_node){.used = true, .parent = 0, .type = NK_FS_TYPE_DIR, .mode = 0755};
    m->n[1] = (struct m_node){.used = true, .parent = 0, .type = NK_FS_TYPE_DIR, .mode = 0700};
    strcpy(m->n[1].name, "lost+found");
}

static inline void m_copy(struct model *dst, const struct model *src)
{
    for (int i = 0; i < M_INODES; i++)
        free(dst->in[i].data);
    *dst = *src;
    for (int i = 0; i < M_INODES; i++) {
        if (src->in[i].data) {
            dst->in[i].data = malloc(src->in[i].cap);
            memcpy(dst->in[i].data, src->in[i].data, src->in[i].cap);
        }
    }
}

static inline void m_free(struct model *m)
{
    for (int i = 0; i < M_INODES; i++)
        free(m->in[i].data);
    memset(m, 0, sizeof *m);
}

static inline void m_path(const struct model *m, int node, char *out)
{
    if (node == 0) {
        strcpy(out, "/");
        return;
    }
    char tmp[M_PATH];
    m_path(m, m->n[node].parent, tmp);
    size_t len = strlen(tmp);
    if (len > 1 && len < M_PATH - 1)
        tmp[len++] = '/';
    size_t name_len = strlen(m->n[node].name);
    if (len + name_len >= M_PATH)
        name_len = M_PATH - 1 - len;
    memcpy(out, tmp, len);
    memcpy(out + len, m->n[node].name, name_len);
    out[len + name_len] = '\0';
}

static inline int m_child(const struct model *m, int dir, const char *name)
{
    for (int i = 1; i < M_NODES; i++)
        if (m->n[i].used && m->n[i].parent == dir && i != dir && strcmp(m->n[i].name, name) == 0)
            return i;
    return -1;
}

static inline int m_children(const struct model *m, int dir)
{
    int count = 0;
    for (int i = 1; i < M_NODES; i++)
        count += m->n[i].used && m->n[i].parent == dir && i != dir;
    return count;
}

static inline int m_new_node(struct model *m)
{
    for (int i = 2; i < M_NODES; i++)
        if (!m->n[i].used)
            return i;
    return -1;
}

static inline int m_new_inode(struct model *m)
{
    for (int i = 0; i < M_INODES; i++)
        if (!m->in[i].used)
            return i;
    return -1;
}

static inline void m_inode_put(struct model *m, int ino)
{
    struct m_inode *in = &m->in[ino];
    if (in->nlink == 0 && in->opens == 0) {
        free(in->data);
        memset(in, 0, sizeof *in);
    }
}

static inline void m_resize(struct m_inode *in, uint32_t size)
{
    if (size > in->cap) {
        uint32_t cap = size + size / 2 + 64;
        in->data = realloc(in->data, cap);
        memset(in->data + in->cap, 0, cap - in->cap);
        in->cap = cap;
    }
    if (size < in->size)
        memset(in->data + size, 0, in->size - size);
    in->size = size;
}

static inline void m_write(struct m_inode *in, uint32_t off, const uint8_t *buf, uint32_t len)
{
    if (!len)
        return; /* an empty file has no buffer to offset */
    if (off + len > in->size)
        m_resize(in, off + len);
    memcpy(in->data + off, buf, len);
}

static inline bool m_under(const struct model *m, int node, int anc)
{
    for (int depth = 0; depth < M_NODES; depth++) {
        if (node == anc)
            return true;
        if (node == 0)
            return false;
        node = m->n[node].parent;
    }
    return false;
}

/* Removes name `i` from the model. */
static inline void m_unlink(struct model *m, int i)
{
    struct m_node *n = &m->n[i];
    if (n->type == NK_FS_TYPE_FILE) {
        m->in[n->inode].nlink--;
        m_inode_put(m, n->inode);
    }
    memset(n, 0, sizeof *n);
}

/* ----- comparing with the file system -------------------------------------------------- */

/* "user.m" of `path` is what the model says (absent when `set` is false). */
static inline int m_check_xattr(struct nk_fs *fs, const char *path, bool set, const uint8_t *val,
                                uint8_t len, char *why, size_t why_size)
{
    uint8_t got[64];
    int n = nk_fs_getxattr(fs, path, "user.m", got, sizeof got);
    if (set ? (n != len || memcmp(got, val, len) != 0) : n != -NK_ENODATA) {
        snprintf(why, why_size, "%s: xattr user.m: %d bytes, expected %d", path, n,
                 set ? (int)len : -NK_ENODATA);
        return -1;
    }
    return 0;
}

static inline int m_check_node(const struct model *m, struct nk_fs *fs, int i, uint8_t *buf,
                               char *why, size_t why_size)
{
    char path[M_PATH];
    m_path(m, i, path);
    const struct m_node *n = &m->n[i];
    struct nk_fs_stat st;
    int err = nk_fs_lstat(fs, path, &st);
    if (err) {
        snprintf(why, why_size, "%s: lstat %d", path, err);
        return -1;
    }
    if (n->type == NK_FS_TYPE_DIR) {
        if ((st.mode & NK_FS_S_IFMT) != NK_FS_S_IFDIR) {
            snprintf(why, why_size, "%s: not a directory (mode %o)", path, (unsigned)st.mode);
            return -1;
        }
        if (i > 1 && (st.mode & 07777) != n->mode) {
            snprintf(why, why_size, "%s: mode %o, expected %o", path, (unsigned)(st.mode & 07777),
                     (unsigned)n->mode);
            return -1;
        }
        if (i > 1 && (st.uid != n->uid || st.gid != n->gid || st.mtime != n->mtime)) {
            snprintf(why, why_size, "%s: owner %u:%u mtime %llu, expected %u:%u %llu", path,
                     (unsigned)st.uid, (unsigned)st.gid, (unsigned long long)st.mtime,
                     (unsigned)n->uid, (unsigned)n->gid, (unsigned long long)n->mtime);
            return -1;
        }
        if (i > 1 && m->xattrs &&
            m_check_xattr(fs, path, n->xset, n->xval, n->xlen, why, why_size))
            return -1;
        struct nk_fs_dir d;
        if (nk_fs_dir_open(fs, &d, path)) {
            snprintf(why, why_size, "%s: opendir", path);
            return -1;
        }
        struct nk_fs_dirent e;
        int count = 0, r;
        while ((r = nk_fs_dir_read(&d, &e)) == 1) {
            count++;
            if (m_child(m, i, e.name) < 0) {
                snprintf(why, why_size, "%s: unexpected entry '%s'", path, e.name);
                nk_fs_dir_close(&d);
                return -1;
            }
        }
        nk_fs_dir_close(&d);
        if (r < 0 || count != m_children(m, i)) {
            snprintf(why, why_size, "%s: %d entries (rc %d), expected %d", path, count, r,
                     m_children(m, i));
            return -1;
        }
        return 0;
    }
    if (n->type == NK_FS_TYPE_SYMLINK) {
        char target[NK_FS_ALIAS_MAX + 1];
        int len = nk_fs_readlink(fs, path, target, sizeof target);
        if (len < 0 || strcmp(target, n->target) != 0) {
            snprintf(why, why_size, "%s: symlink %d '%s', expected '%s'", path, len,
                     len >= 0 ? target : "", n->target);
            return -1;
        }
        return 0;
    }
    const struct m_inode *in = &m->in[n->inode];
    if (m->xattrs && m_check_xattr(fs, path, in->xset, in->xval, in->xlen, why, why_size))
        return -1;
    if (st.uid != in->uid || st.gid != in->gid || st.mtime != in->mtime) {
        snprintf(why, why_size, "%s: owner %u:%u mtime %llu, expected %u:%u %llu", path,
                 (unsigned)st.uid, (unsigned)st.gid, (unsigned long long)st.mtime,
                 (unsigned)in->uid, (unsigned)in->gid, (unsigned long long)in->mtime);
        return -1;
    }
    if ((st.mode & NK_FS_S_IFMT) != NK_FS_S_IFREG || st.size != in->size || st.nlink != in->nlink ||
        (st.mode & 07777) != in->mode) {
        snprintf(why, why_size, "%s: mode %o size %llu nlink %u, expected %o %u %u", path,
                 (unsigned)st.mode, (unsigned long long)st.size, (unsigned)st.nlink,
                 (unsigned)in->mode, (unsigned)in->size, (unsigned)in->nlink);
        return -1;
    }
    struct nk_fs_file f;
    err = nk_fs_file_open(fs, &f, path, NK_FS_O_RDONLY);
    if (err) {
        snprintf(why, why_size, "%s: open %d", path, err);
        return -1;
    }
    int32_t got = nk_fs_file_read(&f, buf, in->size + 1);
    nk_fs_file_close(&f);
    if (got != (int32_t)in->size || (in->size && memcmp(buf, in->data, in->size) != 0)) {
        uint32_t at = 0;
        while (got > 0 && at < (uint32_t)got && at < in->size && buf[at] == in->data[at])
            at++;
        snprintf(why, why_size, "%s: read %d bytes, expected %u; first difference at %u", path,
                 (int)got, (unsigned)in->size, (unsigned)at);
        return -1;
    }
    return 0;
}

/* Compares every name of the model with `fs` (and that the fs has no other
 * names). Returns 0, or -1 with `why` filled. */
static inline int m_check(const struct model *m, struct nk_fs *fs, char *why, size_t why_size)
{
    static uint8_t buf[1u << 20];
    uint32_t ino_of[M_INODES] = {0}; /* the fs's inode number of each model inode */
    for (int i = 0; i < M_NODES; i++) {
        if (m->n[i].used && m_check_node(m, fs, i, buf, why, why_size))
            return -1;
        if (!m->n[i].used || m->n[i].type != NK_FS_TYPE_FILE)
            continue;
        /* Hard links: every name of one inode has one inode number, and
         * names of different inodes have different ones. */
        char path[M_PATH];
        m_path(m, i, path);
        struct nk_fs_stat st;
        nk_fs_lstat(fs, path, &st);
        int ino = m->n[i].inode;
        for (int j = 0; j < M_INODES; j++) {
            if (j != ino && ino_of[j] == st.ino) {
                snprintf(why, why_size, "%s: inode %u is another file's", path, (unsigned)st.ino);
                return -1;
            }
        }
        if (ino_of[ino] && ino_of[ino] != st.ino) {
            snprintf(why, why_size, "%s: inode %u, its other names %u", path, (unsigned)st.ino,
                     (unsigned)ino_of[ino]);
            return -1;
        }
        ino_of[ino] = st.ino;
    }
    why[0] = '\0';
    return 0;
}

#endif
