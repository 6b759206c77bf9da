/* SPDX-License-Identifier: MIT */
/*
 * Changing the tree: creating objects, unlink, rmdir, rename, links,
 * attributes, sync and format. Every change is one header written (or a
 * header that shadows, then the deletion it makes atomic), in the same
 * sequences YAFFS2 uses, so the mount scan resolves a cut at any page to
 * the tree before or after the call (docs/fs-design.md, "Writing").
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_LINK_MAX 65535u

/* ----- headers -------------------------------------------------------------------------- */

struct nk_fs_header_edit *nk_fs_edit_take(struct nk_fs *fs)
{
    if (!fs->edits || fs->edit_depth >= NK_FS_EDIT_SLOTS)
        return NULL;
    return &fs->edits[fs->edit_depth++];
}

void nk_fs_edit_give(struct nk_fs *fs, struct nk_fs_header_edit *edit)
{
    if (fs->edit_depth && edit == &fs->edits[fs->edit_depth - 1])
        fs->edit_depth--;
}

int nk_fs_header_load(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header_edit *edit)
{
    memset(edit, 0, sizeof *edit);
    edit->hdr.name = edit->name;
    edit->hdr.alias = edit->alias;
    if (obj->header_page == NK_FS_NONE) {
        /* Root and lost+found exist without a header: YAFFS2's defaults. */
        edit->hdr.type = NK_FS_TYPE_DIR;
        if (obj->id == NK_FS_OBJ_LOST_FOUND) {
            edit->hdr.parent_id = NK_FS_OBJ_ROOT;
            memcpy(edit->name, "lost+found", 10);
            edit->hdr.name_len = 10;
            edit->hdr.mode = NK_FS_S_IFDIR | 0700u;
        } else {
            edit->hdr.mode = NK_FS_S_IFDIR | 0755u;
        }
        return 0;
    }
    struct nk_fs_header hdr;
    int err = nk_fs_obj_header(fs, obj, &hdr);
    if (err)
        return err;
    edit->hdr = hdr;
    edit->hdr.name = edit->name;
    edit->hdr.alias = edit->alias;
    memcpy(edit->name, hdr.name, hdr.name_len);
    memcpy(edit->alias, hdr.alias, hdr.alias_len);
    edit->was_shrink = hdr.shrink;
    edit->was_shadows = hdr.shadows;
    edit->hdr.shrink = false;
    edit->hdr.shadows = 0;
    return 0;
}

int nk_fs_header_store(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header_edit *edit)
{
    return nk_fs_header_write(fs, obj, &edit->hdr, edit->xattr, false);
}

int nk_fs_header_rewrite(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    int err = nk_fs_header_load(fs, obj, edit);
    if (!err)
        err = nk_fs_header_store(fs, obj, edit);
    nk_fs_edit_give(fs, edit);
    return err;
}

int nk_fs_header_write(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header *hdr,
                       const struct nk_fs_xattr_change *xattr, bool copy)
{
    if (obj->wflags & NK_FS_W_STALE) {
        /* Its newest state is unknown: it can only be removed. */
        if (obj->parent_id != NK_FS_OBJ_DELETED && obj->parent_id != NK_FS_OBJ_UNLINKED)
            return -NK_EIO;
        obj->wflags &= (uint8_t)~NK_FS_W_STALE;
    }
    hdr->type = obj->type;
    if (obj->id == NK_FS_OBJ_ROOT)
        hdr->parent_id = 0; /* as YAFFS2 writes the root */
    else
        hdr->parent_id = obj->parent_id;
    hdr->size = obj->type == NK_FS_TYPE_FILE ? obj->size : 0;
    hdr->equiv_id = obj->type == NK_FS_TYPE_HARDLINK ? obj->u.equiv_id : 0;
    if (obj->type == NK_FS_TYPE_FILE && hdr->size == 0 &&
        (hdr->parent_id == NK_FS_OBJ_DELETED || hdr->parent_id == NK_FS_OBJ_UNLINKED))
        hdr->shrink = true;
    uint64_t now;
    if ((obj->wflags & NK_FS_W_TOUCHED) && nk_fs_now(fs, &now))
        hdr->mtime = hdr->ctime = now;
    uint8_t *page = fs->copy_buf;
    memset(page, 0xff, fs->page_size);
    const bool room = fs->chunk_bytes > NK_FS_HEADER_BYTES;
    int err = nk_fs_header_encode(hdr, page, room ? NK_FS_HEADER_BYTES : fs->chunk_bytes);
    if (err)
        return err;
    /* The extended attributes stay, except with a deletion. The header is
     * encoded first: its name may be in the page this reads. */
    if (room && hdr->parent_id != NK_FS_OBJ_DELETED && hdr->parent_id != NK_FS_OBJ_UNLINKED) {
        err = nk_fs_xattr_keep(fs, obj, page);
        if (!err && xattr)
            err = nk_fs_xattr_apply(page + NK_FS_HEADER_BYTES,
                                    fs->chunk_bytes - NK_FS_HEADER_BYTES, xattr);
        if (err)
            return err;
    }
    struct nk_fs_tags tags;
    nk_fs_chunk_header_tags(hdr, obj->id, false, &tags);
    int64_t at = copy ? nk_fs_put_moved(fs, &tags, page, true, NK_FS_NONE)
                      : nk_fs_put_chunk(fs, &tags, page);
    if (at < 0)
        return (int)at;
    if (obj->header_page != NK_FS_NONE)
        nk_fs_live_clear(fs, obj->header_page);
    obj->header_page = (uint32_t)at;
    if (hdr->parent_id != NK_FS_OBJ_DELETED)
        nk_fs_live_set(fs, (uint32_t)at);
    obj->wflags &= (uint8_t) ~(NK_FS_W_HEADER_DIRTY | NK_FS_W_SIZE_IN_DATA | NK_FS_W_TOUCHED);
    obj->flags |= NK_FS_OBJ_VALID;
    return 0;
}

/* ----- times ------------------------------------------------------------------------------ */

/* Sets `obj`'s ctime (and with `modified` its mtime) to the clock's time in
 * a header of its own, unless it says that time already. Returns 0 (also
 * without a clock) or the write's error. */
static int nk_fs_stamp(struct nk_fs *fs, struct nk_fs_obj *obj, bool modified)
{
    uint64_t now;
    if (!obj || !nk_fs_now(fs, &now))
        return 0;
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    int err = nk_fs_header_load(fs, obj, edit);
    if (!err && (edit->hdr.ctime != now || (modified && edit->hdr.mtime != now))) {
        err = nk_fs_make_room(fs, 1, obj->header_page == NK_FS_NONE ? 1 : 0, false);
        edit->hdr.ctime = now;
        if (modified)
            edit->hdr.mtime = now;
        if (!err)
            err = nk_fs_header_store(fs, obj, edit);
    }
    nk_fs_edit_give(fs, edit);
    return err;
}

void nk_fs_dir_touch(struct nk_fs *fs, struct nk_fs_obj *dir)
{
    if (dir && nk_fs_obj_is_dir(dir))
        (void)nk_fs_stamp(fs, dir, true);
}

/* ----- directories in RAM ---------------------------------------------------------------- */

void nk_fs_dir_unhook(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
    for (struct nk_fs_dir *d = fs->dirs; d; d = d->next_open) {
        if (d->next == obj)
            d->next = obj->sibling;
        if (d->last == obj)
            d->last = NULL;
        if (d->dir == obj) {
            d->dir = NULL;
            d->next = NULL;
        }
    }
    if (!parent || !nk_fs_obj_is_dir(parent))
        return;
    struct nk_fs_obj **link = &parent->u.children;
    while (*link && *link != obj)
        link = &(*link)->sibling;
    if (*link)
        *link = obj->sibling;
    obj->sibling = NULL;
}

void nk_fs_dir_hook(struct nk_fs *fs, struct nk_fs_obj *parent, struct nk_fs_obj *obj)
{
    (void)fs;
    obj->parent_id = parent->id;
    obj->sibling = parent->u.children;
    parent->u.children = obj;
}

static int nk_fs_forget_chunk(void *ctx, uint32_t chunk_id, uint32_t page)
{
    (void)chunk_id;
    nk_fs_live_clear(ctx, page);
    return 0;
}

void nk_fs_obj_forget(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    nk_fs_wbuf_drop(fs, obj);
    if (obj->type == NK_FS_TYPE_FILE)
        nk_fs_map_walk(fs, obj, nk_fs_forget_chunk, fs);
    if (obj->header_page != NK_FS_NONE)
        nk_fs_live_clear(fs, obj->header_page);
    nk_fs_obj_free(fs, obj);
}

/* ----- paths ----------------------------------------------------------------------------- */

int nk_fs_where(struct nk_fs *fs, const char *path, struct nk_fs_where *w)
{
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    if (!path || !path[0])
        return -NK_ENOENT;
    size_t end = strlen(path);
    w->slash = false;
    while (end > 0 && path[end - 1] == '/') {
        end--;
        w->slash = true;
    }
    if (end == 0)
        return -NK_EBUSY; /* the root itself */
    size_t begin = end;
    while (begin > 0 && path[begin - 1] != '/')
        begin--;
    w->name = path + begin;
    w->len = end - begin;
    if (w->len > NK_FS_NAME_MAX)
        return -NK_ENAMETOOLONG;
    if ((w->len == 1 && w->name[0] == '.') ||
        (w->len == 2 && w->name[0] == '.' && w->name[1] == '.'))
        return -NK_EINVAL;
    if (begin == 0) {
        w->dir = fs->root;
        return 0;
    }
    struct nk_fs_obj *dir;
    int err = nk_fs_path_lookup_len(fs, path, begin, &dir);
    if (err)
        return err;
    if (!nk_fs_obj_is_dir(dir))
        return -NK_ENOTDIR;
    w->dir = dir;
    return 0;
}

static bool nk_fs_builtin(const struct nk_fs *fs, const struct nk_fs_obj *obj)
{
    return obj == fs->root || obj == fs->lost_found;
}

/* ----- creating ---------------------------------------------------------------------------- */

static int nk_fs_new_id(struct nk_fs *fs, uint32_t *id)
{
    if (fs->next_obj <= NK_FS_OBJ_MAX) {
        *id = fs->next_obj++;
        return 0;
    }
    /* Ids ran out at the top: reuse one no live object has. */
    for (uint32_t i = NK_FS_OBJ_FIRST_USER; i <= NK_FS_OBJ_MAX; i++) {
        if (!nk_fs_obj_find(fs, i)) {
            *id = i;
            return 0;
        }
    }
    return -NK_ENOSPC;
}

static uint32_t nk_fs_type_mode(uint8_t type)
{
    switch (type) {
    case NK_FS_TYPE_FILE:
    case NK_FS_TYPE_HARDLINK:
        return NK_FS_S_IFREG;
    case NK_FS_TYPE_DIR:
        return NK_FS_S_IFDIR;
    case NK_FS_TYPE_SYMLINK:
        return NK_FS_S_IFLNK;
    default:
        return 0;
    }
}

int nk_fs_create(struct nk_fs *fs, const struct nk_fs_where *w, const struct nk_fs_new *n,
                 struct nk_fs_obj **out)
{
    int err;
    if (nk_fs_dir_child(fs, w->dir, w->name, w->len, &err))
        return -NK_EEXIST;
    if (err)
        return err;
    if (memchr(w->name, '\0', w->len))
        return -NK_EINVAL;
    err = nk_fs_make_room(fs, 1, 1, false);
    if (err)
        return err;
    uint32_t id;
    err = nk_fs_new_id(fs, &id);
    if (err)
        return err;
    struct nk_fs_obj *obj = nk_fs_obj_get(fs, id);
    if (!obj)
        return -NK_ENOMEM;
    obj->type = n->type;
    obj->parent_id = w->dir->id;
    obj->flags |= NK_FS_OBJ_VALID | NK_FS_OBJ_ROOTED;
    obj->name_hash = nk_fs_name_hash((const uint8_t *)w->name, w->len);
    obj->flags |= NK_FS_OBJ_HASHED;
    if (n->type == NK_FS_TYPE_HARDLINK) {
        obj->u.equiv_id = n->equiv_id;
        nk_fs_links_added(fs, obj);
    } else if (n->type == NK_FS_TYPE_DIR)
        obj->u.children = NULL;

    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit) {
        nk_fs_obj_free(fs, obj);
        return -NK_ENOMEM;
    }
    memset(edit, 0, sizeof *edit);
    edit->hdr.name = edit->name;
    edit->hdr.alias = edit->alias;
    memcpy(edit->name, w->name, w->len);
    edit->hdr.name_len = (uint16_t)w->len;
    edit->hdr.mode =
        n->type == NK_FS_TYPE_SPECIAL ? n->mode : (n->mode & 07777u) | nk_fs_type_mode(n->type);
    if (n->type == NK_FS_TYPE_SYMLINK)
        edit->hdr.mode = NK_FS_S_IFLNK | 0777u;
    edit->hdr.rdev = n->rdev;
    if (n->alias_len) {
        memcpy(edit->alias, n->alias, n->alias_len);
        edit->hdr.alias_len = (uint16_t)n->alias_len;
    }
    uint64_t now;
    if (nk_fs_now(fs, &now))
        edit->hdr.atime = edit->hdr.mtime = edit->hdr.ctime = now;
    err = nk_fs_header_store(fs, obj, edit);
    nk_fs_edit_give(fs, edit);
    if (err) {
        nk_fs_obj_free(fs, obj);
        return err;
    }
    nk_fs_dir_hook(fs, w->dir, obj);
    if (n->type == NK_FS_TYPE_HARDLINK) {
        struct nk_fs_obj *target = nk_fs_obj_find(fs, n->equiv_id);
        if (target) {
            target->flags |= NK_FS_OBJ_LINKED;
            (void)nk_fs_stamp(fs, target, false); /* its link count changed */
        }
    }
    nk_fs_dir_touch(fs, w->dir);
    if (out)
        *out = obj;
    return 0;
}

/* Where a new object named `path` goes: as nk_fs_where(), an existing
 * built-in name is -NK_EEXIST, and a read-only mount -NK_EROFS. */
static int nk_fs_where_new(struct nk_fs *fs, const char *path, struct nk_fs_where *w)
{
    int err = nk_fs_where(fs, path, w);
    if (err == -NK_EBUSY)
        return -NK_EEXIST;
    if (err)
        return err;
    return fs->writable ? 0 : -NK_EROFS;
}

int nk_fs_mkdir_unlocked(struct nk_fs *fs, const char *path, uint32_t mode)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_where w;
    int err = nk_fs_where_new(fs, path, &w);
    if (err)
        return err;
    struct nk_fs_new n = {.type = NK_FS_TYPE_DIR, .mode = mode};
    return nk_fs_create(fs, &w, &n, NULL);
}

int nk_fs_symlink_unlocked(struct nk_fs *fs, const char *target, const char *path)
{
    if (!fs || !target || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_where w;
    int err = nk_fs_where_new(fs, path, &w);
    if (err)
        return err;
    if (!target || !target[0])
        return -NK_ENOENT;
    size_t len = strlen(target);
    if (len > NK_FS_ALIAS_MAX)
        return -NK_ENAMETOOLONG;
    if (w.slash)
        return -NK_ENOENT;
    struct nk_fs_new n = {.type = NK_FS_TYPE_SYMLINK, .alias = target, .alias_len = len};
    return nk_fs_create(fs, &w, &n, NULL);
}

int nk_fs_mknod_unlocked(struct nk_fs *fs, const char *path, uint32_t mode, uint32_t rdev)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_where w;
    int err = nk_fs_where_new(fs, path, &w);
    if (err)
        return err;
    uint32_t format = mode & NK_FS_S_IFMT;
    if ((format != NK_FS_S_IFCHR && format != NK_FS_S_IFBLK && format != NK_FS_S_IFIFO &&
         format != NK_FS_S_IFSOCK) ||
        (mode & ~(NK_FS_S_IFMT | 07777u)))
        return -NK_EINVAL;
    if (rdev > 0xffffu)
        return -NK_EOVERFLOW; /* old_encode_dev holds 8-bit major and minor */
    struct nk_fs_new n = {.type = NK_FS_TYPE_SPECIAL, .mode = mode, .rdev = rdev};
    return nk_fs_create(fs, &w, &n, NULL);
}

int nk_fs_link_unlocked(struct nk_fs *fs, const char *existing, const char *path)
{
    if (!fs || !existing || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, existing, true, &obj);
    if (err)
        return err;
    struct nk_fs_where w;
    err = nk_fs_where_new(fs, path, &w);
    if (err)
        return err;
    struct nk_fs_obj *target = nk_fs_obj_target(fs, obj);
    if (!target || target->type != NK_FS_TYPE_FILE)
        return -NK_EPERM;
    struct nk_fs_stat st;
    err = nk_fs_obj_stat(fs, target, &st);
    if (err)
        return err;
    if (st.nlink >= NK_FS_LINK_MAX)
        return -NK_EMLINK;
    struct nk_fs_new n = {.type = NK_FS_TYPE_HARDLINK, .mode = st.mode, .equiv_id = target->id};
    return nk_fs_create(fs, &w, &n, NULL);
}

/* ----- removing ---------------------------------------------------------------------------- */

/* A hard link naming `file`, or NULL. */
static struct nk_fs_obj *nk_fs_any_link(const struct nk_fs *fs, const struct nk_fs_obj *file)
{
    uint32_t bucket = 0;
    if (!(file->flags & NK_FS_OBJ_LINKED))
        return NULL;
    for (struct nk_fs_obj *o = nk_fs_obj_next(fs, NULL, &bucket); o;
         o = nk_fs_obj_next(fs, o, &bucket)) {
        if (o->type == NK_FS_TYPE_HARDLINK && !(o->flags & NK_FS_OBJ_DANGLING) &&
            o->u.equiv_id == file->id && !(o->wflags & NK_FS_W_UNLINKED))
            return o;
    }
    return NULL;
}

/* Deletes `obj` (already unhooked from its directory): a header in the
 * deleted directory, or in the unlinked one while a handle holds it. */
static int nk_fs_delete(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    int err = nk_fs_header_load(fs, obj, edit);
    if (err) {
        nk_fs_edit_give(fs, edit);
        return err;
    }
    bool open = obj->type == NK_FS_TYPE_FILE && obj->opens > 0;
    if (!open)
        obj->wflags &= (uint8_t)~NK_FS_W_UNLINKED;
    uint32_t old_parent = obj->parent_id;
    uint64_t old_size = obj->size;
    obj->parent_id = open ? NK_FS_OBJ_UNLINKED : NK_FS_OBJ_DELETED;
    if (!open && obj->type == NK_FS_TYPE_FILE)
        obj->size = 0;
    /* Every deletion is a shrink header, as YAFFS2 writes it: its scan flags
     * the block from that bit alone and collects unflagged blocks first. */
    edit->hdr.shrink = !open;
    err = nk_fs_header_store(fs, obj, edit);
    nk_fs_edit_give(fs, edit);
    if (err) {
        obj->parent_id = old_parent;
        obj->size = old_size;
        return err;
    }
    if (open) {
        obj->wflags |= NK_FS_W_UNLINKED;
        return 0;
    }
    obj->header_page = NK_FS_NONE; /* the deletion header is not live */
    nk_fs_obj_forget(fs, obj);
    return 0;
}

int nk_fs_delete_unlinked(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    int err = nk_fs_make_room(fs, 1, 0, true);
    if (!err)
        err = nk_fs_delete(fs, obj);
    if (err) {
        /* Not on flash: a mount still drops it (its header says unlinked),
         * but the RAM goes now. */
        nk_fs_obj_forget(fs, obj);
    }
    return err;
}

/* `file` takes over the name of its hard link `link` (its header with the
 * link's name and parent, shadowing the link object), then the link object
 * is deleted: YAFFS2's way, and atomic through the shadow. `file` may be in
 * a directory or displaced (in none). */
static int nk_fs_take_link_name(struct nk_fs *fs, struct nk_fs_obj *file, struct nk_fs_obj *link)
{
    struct nk_fs_header_edit *own = nk_fs_edit_take(fs);
    struct nk_fs_header_edit *theirs = nk_fs_edit_take(fs);
    int err = own && theirs ? 0 : -NK_ENOMEM;
    if (!err)
        err = nk_fs_header_load(fs, link, theirs);
    if (!err)
        err = nk_fs_header_load(fs, file, own);
    if (!err) {
        memcpy(own->name, theirs->name, theirs->hdr.name_len);
        own->hdr.name_len = theirs->hdr.name_len;
        own->hdr.shadows = link->id;
        uint64_t now;
        if (nk_fs_now(fs, &now))
            own->hdr.ctime = now; /* one link fewer */
    }
    if (theirs)
        nk_fs_edit_give(fs, theirs);
    if (err) {
        if (own)
            nk_fs_edit_give(fs, own);
        return err;
    }
    uint32_t old_parent = file->parent_id;
    struct nk_fs_obj *link_dir = nk_fs_obj_find(fs, link->parent_id);
    file->parent_id = link->parent_id;
    err = nk_fs_header_store(fs, file, own);
    nk_fs_edit_give(fs, own);
    file->parent_id = old_parent;
    if (err)
        return err;
    if (!(file->wflags & NK_FS_W_DISPLACED))
        nk_fs_dir_unhook(fs, file);
    file->wflags &= (uint8_t)~NK_FS_W_DISPLACED;
    nk_fs_dir_unhook(fs, link);
    nk_fs_dir_hook(fs, link_dir, file);
    /* The link's hash only when it has one (a mount hashes lazily): a
     * stale hash under the HASHED flag hides the name. */
    file->name_hash = link->name_hash;
    file->flags = (uint8_t)((file->flags & ~NK_FS_OBJ_HASHED) | (link->flags & NK_FS_OBJ_HASHED));
    err = nk_fs_delete(fs, link);
    if (!nk_fs_any_link(fs, file))
        file->flags &= (uint8_t)~NK_FS_OBJ_LINKED;
    return err;
}

int nk_fs_settle_displaced(struct nk_fs *fs)
{
    for (;;) {
        struct nk_fs_obj *file = NULL, *link = NULL;
        uint32_t bucket = 0;
        for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj && !file;
             obj = nk_fs_obj_next(fs, obj, &bucket)) {
            if ((obj->wflags & NK_FS_W_DISPLACED) && (link = nk_fs_any_link(fs, obj)) != NULL)
                file = obj;
        }
        if (!file)
            return 0;
        int err = nk_fs_make_room(fs, 2, 0, true);
        if (!err)
            err = nk_fs_take_link_name(fs, file, link);
        if (err)
            return err;
    }
}

/* Removes the name `obj` (in its directory). */
static int nk_fs_remove_name(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    int err;
    if (obj->type == NK_FS_TYPE_FILE) {
        struct nk_fs_obj *link = nk_fs_any_link(fs, obj);
        if (link)
            return nk_fs_take_link_name(fs, obj, link);
    }
    nk_fs_dir_unhook(fs, obj);
    err = nk_fs_delete(fs, obj);
    if (err) {
        struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
        if (parent)
            nk_fs_dir_hook(fs, parent, obj);
    }
    return err;
}

/* True when the last component of `path` is "." or "..": a name that
 * refers to a directory by its place, not one that can be removed or
 * renamed (POSIX: EINVAL). */
static bool nk_fs_names_by_dot(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    size_t n = len - start;
    return (n == 1 && path[start] == '.') || (n == 2 && path[start] == '.' && path[start + 1] == '.');
}

int nk_fs_unlink_unlocked(struct nk_fs *fs, const char *path)
{
    if (!fs || !path)
        return -NK_EINVAL;
    if (nk_fs_names_by_dot(path))
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, false, &obj);
    if (err)
        return err;
    if (nk_fs_obj_is_dir(obj))
        return -NK_EISDIR;
    if (!fs->writable)
        return -NK_EROFS;
    err = nk_fs_make_room(fs, 3, 0, true);
    if (err)
        return err;
    struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
    err = nk_fs_remove_name(fs, obj);
    if (!err)
        nk_fs_dir_touch(fs, parent);
    return err;
}

int nk_fs_rmdir_unlocked(struct nk_fs *fs, const char *path)
{
    if (!fs || !path || nk_fs_names_by_dot(path))
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, false, &obj);
    if (err)
        return err;
    if (!nk_fs_obj_is_dir(obj))
        return -NK_ENOTDIR;
    if (nk_fs_builtin(fs, obj))
        return -NK_EBUSY;
    if (obj->u.children)
        return -NK_ENOTEMPTY;
    if (!fs->writable)
        return -NK_EROFS;
    err = nk_fs_make_room(fs, 1, 0, true);
    if (err)
        return err;
    struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
    err = nk_fs_remove_name(fs, obj);
    if (!err)
        nk_fs_dir_touch(fs, parent);
    return err;
}

/* ----- rename ------------------------------------------------------------------------------ */

static bool nk_fs_is_under(struct nk_fs *fs, struct nk_fs_obj *dir, const struct nk_fs_obj *anc)
{
    for (uint32_t depth = 0; dir && depth <= fs->object_count; depth++) {
        if (dir == anc)
            return true;
        if (dir == fs->root)
            return false;
        dir = nk_fs_obj_find(fs, dir->parent_id);
    }
    return false;
}

int nk_fs_rename_unlocked(struct nk_fs *fs, const char *from, const char *to)
{
    if (!fs || !from || !to || nk_fs_names_by_dot(from) || nk_fs_names_by_dot(to))
        return -NK_EINVAL;
    struct nk_fs_obj *src;
    int err = nk_fs_path_lookup(fs, from, false, &src);
    if (err)
        return err;
    struct nk_fs_where w;
    err = nk_fs_where(fs, to, &w);
    if (err)
        return err;
    if (nk_fs_builtin(fs, src))
        return -NK_EBUSY;
    bool src_dir = nk_fs_obj_is_dir(src);
    if (w.slash && !src_dir)
        return -NK_ENOTDIR;
    if (src_dir && nk_fs_is_under(fs, w.dir, src))
        return -NK_EINVAL;
    struct nk_fs_obj *dst = nk_fs_dir_child(fs, w.dir, w.name, w.len, &err);
    if (!dst && err)
        return err;
    if (dst == src)
        return 0;
    if (dst) {
        if (nk_fs_builtin(fs, dst))
            return -NK_EBUSY;
        bool dst_dir = nk_fs_obj_is_dir(dst);
        if (src_dir && !dst_dir)
            return -NK_ENOTDIR;
        if (!src_dir && dst_dir)
            return -NK_EISDIR;
        if (dst_dir && dst->u.children)
            return -NK_ENOTEMPTY;
        struct nk_fs_obj *a = nk_fs_obj_target(fs, src), *b = nk_fs_obj_target(fs, dst);
        if (a && a == b)
            return 0; /* two names of one file: POSIX does nothing */
    }
    if (!fs->writable)
        return -NK_EROFS;
    if (memchr(w.name, '\0', w.len))
        return -NK_EINVAL;
    err = nk_fs_make_room(fs, 4, 0, true);
    if (err)
        return err;
    /* A replaced file that hard links lead to lives on under a link's
     * name: the rename's header shadows it (the commit), then it takes a
     * link's name. A mount between the two finds it displaced and reachable
     * through its links, and a read-write mount writes the second header. */
    bool displace = dst && dst->type == NK_FS_TYPE_FILE && nk_fs_any_link(fs, dst);
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    err = nk_fs_header_load(fs, src, edit);
    if (err) {
        nk_fs_edit_give(fs, edit);
        return err;
    }
    memcpy(edit->name, w.name, w.len);
    edit->hdr.name_len = (uint16_t)w.len;
    edit->hdr.shadows = dst ? dst->id : 0;
    uint64_t now;
    if (nk_fs_now(fs, &now))
        edit->hdr.ctime = now;
    uint32_t old_parent = src->parent_id;
    struct nk_fs_obj *from_dir = nk_fs_obj_find(fs, old_parent);
    src->parent_id = w.dir->id;
    err = nk_fs_header_store(fs, src, edit);
    nk_fs_edit_give(fs, edit);
    src->parent_id = old_parent;
    if (err)
        return err;
    nk_fs_dir_unhook(fs, src);
    nk_fs_dir_hook(fs, w.dir, src);
    src->name_hash = nk_fs_name_hash((const uint8_t *)w.name, w.len);
    src->flags |= NK_FS_OBJ_HASHED;
    if (dst) {
        nk_fs_dir_unhook(fs, dst);
        if (displace) {
            dst->wflags |= NK_FS_W_DISPLACED;
            err = nk_fs_take_link_name(fs, dst, nk_fs_any_link(fs, dst));
        } else {
            err = nk_fs_delete(fs, dst);
        }
    }
    if (!err) {
        nk_fs_dir_touch(fs, from_dir);
        if (w.dir != from_dir)
            nk_fs_dir_touch(fs, w.dir);
    }
    return err;
}

/* ----- attributes ---------------------------------------------------------------------------- */

int nk_fs_set_attr(struct nk_fs *fs, const char *path, const struct nk_fs_attr_change *c)
{
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, !c->no_follow, &obj);
    if (err)
        return err;
    if (!fs->writable)
        return -NK_EROFS;
    struct nk_fs_obj *target = nk_fs_obj_target(fs, obj);
    if (target)
        obj = target;
    if (c->xattr && fs->chunk_bytes <= NK_FS_HEADER_BYTES)
        return -NK_ENOTSUP; /* no room after the header */
    err = nk_fs_make_room(fs, 1, obj->header_page == NK_FS_NONE ? 1 : 0, false);
    if (err)
        return err;
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    err = nk_fs_header_load(fs, obj, edit);
    if (!err) {
        if (c->mode)
            edit->hdr.mode = (edit->hdr.mode & NK_FS_S_IFMT) | (c->mode_bits & 07777u);
        if (c->owner) {
            if (c->uid != NK_FS_NONE)
                edit->hdr.uid = c->uid;
            if (c->gid != NK_FS_NONE)
                edit->hdr.gid = c->gid;
        }
        if (c->times) {
            edit->hdr.atime = c->atime;
            edit->hdr.mtime = c->mtime;
            if (edit->hdr.ctime < c->mtime)
                edit->hdr.ctime = c->mtime;
            obj->wflags &= (uint8_t)~NK_FS_W_TOUCHED; /* the times given win */
        }
        uint64_t now;
        if (nk_fs_now(fs, &now))
            edit->hdr.ctime = now;
        edit->xattr = c->xattr;
        err = nk_fs_header_store(fs, obj, edit);
    }
    nk_fs_edit_give(fs, edit);
    return err;
}

int nk_fs_chmod_unlocked(struct nk_fs *fs, const char *path, uint32_t mode)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    if (mode & ~07777u)
        return -NK_EINVAL;
    struct nk_fs_attr_change c = {.mode = true, .mode_bits = mode};
    return nk_fs_set_attr(fs, path, &c);
}

int nk_fs_chown_unlocked(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_attr_change c = {.owner = true, .uid = uid, .gid = gid};
    return nk_fs_set_attr(fs, path, &c);
}

int nk_fs_utimes_unlocked(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_attr_change c = {.times = true, .atime = atime, .mtime = mtime};
    return nk_fs_set_attr(fs, path, &c);
}

int nk_fs_lchown_unlocked(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_attr_change c = {.owner = true, .no_follow = true, .uid = uid, .gid = gid};
    return nk_fs_set_attr(fs, path, &c);
}

int nk_fs_lutimes_unlocked(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime)
{
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_attr_change c = {.times = true, .no_follow = true, .atime = atime, .mtime = mtime};
    return nk_fs_set_attr(fs, path, &c);
}

/* ----- sync and format ------------------------------------------------------------------------ */

int nk_fs_sync_unlocked(struct nk_fs *fs)
{
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    if (!fs->writable)
        return 0;
    int err = nk_fs_wbuf_flush(fs);
    if (err)
        return err;
    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if ((obj->wflags & NK_FS_W_HEADER_DIRTY) && (obj->wflags & NK_FS_W_SIZE_IN_DATA))
            obj->wflags &= (uint8_t)~NK_FS_W_HEADER_DIRTY; /* the data says the size */
        if (!(obj->wflags & (NK_FS_W_HEADER_DIRTY | NK_FS_W_TOUCHED)))
            continue;
        err = nk_fs_make_room(fs, 1, 0, false);
        if (!err)
            err = nk_fs_header_rewrite(fs, obj);
        if (err)
            return err;
    }
    return 0;
}
