/* SPDX-License-Identifier: MIT */
/*
 * Directory listing. A handle is a cursor into the directory's child list;
 * names are read from the headers as entries are handed out.
 */
#include <string.h>

#include "fs/fs_internal.h"

int nk_fs_dir_open_unlocked(struct nk_fs *fs, struct nk_fs_dir *dir, const char *path)
{
    if (!fs || !dir || !path || !fs->mounted)
        return -NK_EINVAL;
    memset(dir, 0, sizeof *dir);
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, true, &obj);
    if (err)
        return err;
    if (!nk_fs_obj_is_dir(obj))
        return -NK_ENOTDIR;
    dir->fs = fs;
    dir->dir = obj;
    dir->next = obj->u.children;
    dir->open = true;
    dir->next_open = fs->dirs;
    fs->dirs = dir;
    return 0;
}

int nk_fs_dir_read_unlocked(struct nk_fs_dir *dir, struct nk_fs_dirent *entry)
{
    if (!dir || !dir->open || !dir->fs->mounted)
        return -NK_EBADF;
    if (!entry)
        return -NK_EINVAL;
    struct nk_fs_obj *obj = dir->next;
    if (!obj)
        return 0;
    dir->next = obj->sibling;
    dir->last = obj;
    int len = nk_fs_obj_name(dir->fs, obj, entry->name);
    if (len < 0)
        return len;
    entry->obj_id = obj->id;
    entry->type = obj->type;
    return 1;
}

int nk_fs_dir_stat_unlocked(struct nk_fs_dir *dir, struct nk_fs_stat *st)
{
    if (!dir || !dir->open || !dir->fs->mounted)
        return -NK_EBADF;
    if (!st)
        return -NK_EINVAL;
    if (!dir->last)
        return -NK_EINVAL;
    return nk_fs_obj_stat(dir->fs, dir->last, st);
}

int nk_fs_dir_rewind_unlocked(struct nk_fs_dir *dir)
{
    if (!dir || !dir->open)
        return -NK_EBADF;
    dir->next = dir->dir ? dir->dir->u.children : NULL; /* NULL: the directory was removed */
    dir->last = NULL;
    return 0;
}

int nk_fs_dir_close_unlocked(struct nk_fs_dir *dir)
{
    if (!dir || !dir->open)
        return -NK_EBADF;
    if (dir->fs && dir->fs->mounted) {
        struct nk_fs_dir **link = &dir->fs->dirs;
        while (*link && *link != dir)
            link = &(*link)->next_open;
        if (*link)
            *link = dir->next_open;
    }
    dir->open = false;
    return 0;
}
