/* SPDX-License-Identifier: MIT */
/*
 * Path lookup, stat and readlink.
 *
 * Paths are absolute (a leading '/' is optional: there is no current
 * directory). "." and ".." are understood; symlinks are followed in the
 * middle of a path always and at its end when asked, at most
 * NK_FS_SYMLOOP_MAX of them per lookup. A directory's children are compared
 * by a 16-bit name hash first; a header is read only on a hash match (or
 * the first time a name is needed).
 */
#include <string.h>

#include "fs/fs_internal.h"

static struct nk_fs_obj *nk_fs_parent_dir(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    if (obj == fs->root)
        return obj;
    struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
    return parent ? parent : fs->root;
}

struct nk_fs_obj *nk_fs_dir_child(struct nk_fs *fs, struct nk_fs_obj *dir, const char *name,
                                  size_t len, int *err)
{
    *err = 0;
    for (struct nk_fs_obj *child = dir->u.children; child; child = child->sibling) {
        int same = nk_fs_obj_name_equals(fs, child, name, len);
        if (same > 0)
            return child;
        if (same < 0)
            *err = same;
    }
    return NULL;
}

/* Resolves `path` (`len` bytes) from `start`. */
static int nk_fs_walk(struct nk_fs *fs, struct nk_fs_obj *start, const char *path, size_t len,
                      bool follow_last, unsigned *links, struct nk_fs_obj **out)
{
    struct nk_fs_obj *cur = start;
    size_t i = 0;
    if (len > 0 && path[0] == '/')
        cur = fs->root;
    for (;;) {
        while (i < len && path[i] == '/')
            i++;
        if (i == len) {
            *out = cur;
            return 0;
        }
        size_t begin = i;
        while (i < len && path[i] != '/')
            i++;
        const char *name = path + begin;
        size_t name_len = i - begin;
        size_t after = i;
        while (after < len && path[after] == '/')
            after++;
        bool last = after == len;
        bool trailing_slash = last && i < len;

        if (!nk_fs_obj_is_dir(cur))
            return -NK_ENOTDIR;
        if (name_len == 1 && name[0] == '.')
            continue;
        if (name_len == 2 && name[0] == '.' && name[1] == '.') {
            cur = nk_fs_parent_dir(fs, cur);
            continue;
        }
        if (name_len > NK_FS_NAME_MAX)
            return -NK_ENAMETOOLONG;
        int err;
        struct nk_fs_obj *child = nk_fs_dir_child(fs, cur, name, name_len, &err);
        if (!child)
            return err ? err : -NK_ENOENT;
        if (child->type == NK_FS_TYPE_SYMLINK && (!last || follow_last || trailing_slash)) {
            if (++*links > NK_FS_SYMLOOP_MAX)
                return -NK_ELOOP;
            struct nk_fs_header hdr;
            err = nk_fs_obj_header(fs, child, &hdr);
            if (err)
                return err;
            char target[NK_FS_ALIAS_MAX + 1];
            size_t target_len = hdr.alias_len;
            memcpy(target, hdr.alias, target_len);
            if (target_len == 0)
                return -NK_ENOENT;
            err = nk_fs_walk(fs, cur, target, target_len, true, links, &child);
            if (err)
                return err;
        }
        cur = child;
        if (last) {
            if (trailing_slash && !nk_fs_obj_is_dir(cur))
                return -NK_ENOTDIR;
            *out = cur;
            return 0;
        }
    }
}

int nk_fs_path_lookup(struct nk_fs *fs, const char *path, bool follow, struct nk_fs_obj **out)
{
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    if (!path || !path[0])
        return -NK_ENOENT;
    unsigned links = 0;
    return nk_fs_walk(fs, fs->root, path, strlen(path), follow, &links, out);
}

int nk_fs_path_lookup_len(struct nk_fs *fs, const char *path, size_t len, struct nk_fs_obj **out)
{
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    unsigned links = 0;
    return nk_fs_walk(fs, fs->root, path, len, true, &links, out);
}

int nk_fs_stat_unlocked(struct nk_fs *fs, const char *path, struct nk_fs_stat *st)
{
    if (!fs || !path || !st || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, true, &obj);
    if (err)
        return err;
    return nk_fs_obj_stat(fs, obj, st);
}

int nk_fs_lstat_unlocked(struct nk_fs *fs, const char *path, struct nk_fs_stat *st)
{
    if (!fs || !path || !st || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, false, &obj);
    if (err)
        return err;
    return nk_fs_obj_stat(fs, obj, st);
}

int nk_fs_readlink_unlocked(struct nk_fs *fs, const char *path, char *buf, size_t size)
{
    if (!fs || !path || !buf || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, false, &obj);
    if (err)
        return err;
    if (obj->type != NK_FS_TYPE_SYMLINK)
        return -NK_EINVAL;
    if (obj->wflags & NK_FS_W_STALE)
        return -NK_EIO;
    struct nk_fs_header hdr;
    err = nk_fs_obj_header(fs, obj, &hdr);
    if (err)
        return err;
    if (!buf || size < (size_t)hdr.alias_len + 1)
        return -NK_ERANGE;
    memcpy(buf, hdr.alias, hdr.alias_len);
    buf[hdr.alias_len] = '\0';
    return hdr.alias_len;
}
