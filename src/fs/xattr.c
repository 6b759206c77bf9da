/* SPDX-License-Identifier: MIT */
/*
 * Extended attributes, where YAFFS2 keeps them: in the object's header
 * chunk, after the 512 header bytes, as a list of records (docs/fs-format.md,
 * "Extended attributes"). A record is a 32-bit little-endian length (the
 * whole record's), the name with its NUL, then the value. The list ends at
 * the first length that is not a record: 4 or less (0xFFFFFFFF where the
 * page was never programmed, 0 where YAFFS2 cleared a removed record's
 * bytes), one that reaches the end of the area, or one whose name has no
 * NUL. A header write carries the list of the header it replaces, so a
 * chmod, rename, truncate or collection copy keeps the attributes.
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_XATTR_LEN_BYTES 4u

/* The length of the record at `pos`, or 0 when the list ends there. */
static size_t nk_fs_xattr_record(const uint8_t *area, size_t len, size_t pos)
{
    if (len < NK_FS_XATTR_LEN_BYTES || pos >= len - NK_FS_XATTR_LEN_BYTES)
        return 0;
    uint32_t size = nk_fs_get_le32(area + pos);
    /* YAFFS2 reads the length as a signed word and needs the record to end
     * before the area does. */
    if (size <= NK_FS_XATTR_LEN_BYTES || size >= 0x80000000u || size >= len - pos)
        return 0;
    if (!memchr(area + pos + NK_FS_XATTR_LEN_BYTES, 0, size - NK_FS_XATTR_LEN_BYTES))
        return 0;
    return size;
}

size_t nk_fs_xattr_used(const uint8_t *area, size_t len)
{
    size_t pos = 0, size;
    while ((size = nk_fs_xattr_record(area, len, pos)) != 0)
        pos += size;
    return pos;
}

bool nk_fs_xattr_whole(const uint8_t *list, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        if (len - pos <= NK_FS_XATTR_LEN_BYTES)
            return false;
        uint32_t size = nk_fs_get_le32(list + pos);
        if (size <= NK_FS_XATTR_LEN_BYTES || size > len - pos ||
            !memchr(list + pos + NK_FS_XATTR_LEN_BYTES, 0, size - NK_FS_XATTR_LEN_BYTES))
            return false;
        pos += size;
    }
    return true;
}

/* Finds record `name`: its position, and its length in `*size`. -NK_ENODATA. */
static int nk_fs_xattr_find(const uint8_t *area, size_t len, const char *name, size_t name_len,
                            size_t *at, size_t *size)
{
    size_t pos = 0, rec;
    while ((rec = nk_fs_xattr_record(area, len, pos)) != 0) {
        const uint8_t *n = area + pos + NK_FS_XATTR_LEN_BYTES;
        if (rec > NK_FS_XATTR_LEN_BYTES + name_len && n[name_len] == 0 &&
            memcmp(n, name, name_len) == 0) {
            *at = pos;
            *size = rec;
            return 0;
        }
        pos += rec;
    }
    return -NK_ENODATA;
}

int nk_fs_xattr_name_check(const char *name, size_t *name_len)
{
    if (!name || !name[0])
        return -NK_EINVAL;
    size_t n = strlen(name);
    if (n > NK_FS_XATTR_NAME_MAX)
        return -NK_ERANGE;
    *name_len = n;
    return 0;
}

/* Removes the record at `at` (`size` bytes) from a list of `used` bytes; the
 * bytes it frees read as unprogrammed. */
static void nk_fs_xattr_cut(uint8_t *area, size_t used, size_t at, size_t size)
{
    memmove(area + at, area + at + size, used - at - size);
    memset(area + used - size, 0xff, size);
}

/* Appends a record at `used` (room checked by the caller) and ends the list
 * after it, in case the bytes there were once something else. */
static void nk_fs_xattr_put(uint8_t *area, size_t len, size_t used, const char *name,
                            size_t name_len, const void *value, size_t size)
{
    size_t rec = NK_FS_XATTR_LEN_BYTES + name_len + 1 + size;
    nk_fs_put_le32(area + used, (uint32_t)rec);
    memcpy(area + used + NK_FS_XATTR_LEN_BYTES, name, name_len);
    area[used + NK_FS_XATTR_LEN_BYTES + name_len] = 0;
    if (size)
        memcpy(area + used + NK_FS_XATTR_LEN_BYTES + name_len + 1, value, size);
    size_t end = used + rec;
    size_t tail = len - end < NK_FS_XATTR_LEN_BYTES ? len - end : NK_FS_XATTR_LEN_BYTES;
    memset(area + end, 0xff, tail);
}

int nk_fs_xattr_apply(uint8_t *area, size_t len, const struct nk_fs_xattr_change *c)
{
    size_t at = 0, old = 0;
    bool exists = nk_fs_xattr_find(area, len, c->name, c->name_len, &at, &old) == 0;
    if (!c->value) {
        if (!exists)
            return -NK_ENODATA;
        nk_fs_xattr_cut(area, nk_fs_xattr_used(area, len), at, old);
        return 0;
    }
    if ((c->flags & NK_FS_XATTR_CREATE) && exists)
        return -NK_EEXIST;
    if ((c->flags & NK_FS_XATTR_REPLACE) && !exists)
        return -NK_ENODATA;
    size_t used = nk_fs_xattr_used(area, len);
    size_t rec = NK_FS_XATTR_LEN_BYTES + c->name_len + 1 + c->size;
    if (c->size >= len || used - old + rec >= len)
        return -NK_ENOSPC; /* a record must end before the area does */
    if (exists) {
        nk_fs_xattr_cut(area, used, at, old);
        used -= old;
    }
    nk_fs_xattr_put(area, len, used, c->name, c->name_len, c->value, c->size);
    return 0;
}

int nk_fs_xattr_get(const uint8_t *area, size_t len, const char *name, size_t name_len,
                    void *value, size_t size)
{
    size_t at, rec;
    int err = nk_fs_xattr_find(area, len, name, name_len, &at, &rec);
    if (err)
        return err;
    size_t skip = NK_FS_XATTR_LEN_BYTES + name_len + 1;
    size_t n = rec - skip;
    if (size == 0)
        return (int)n;
    if (n > size)
        return -NK_ERANGE;
    memcpy(value, area + at + skip, n);
    return (int)n;
}

int nk_fs_xattr_list(const uint8_t *area, size_t len, char *list, size_t size)
{
    size_t pos = 0, rec, total = 0;
    while ((rec = nk_fs_xattr_record(area, len, pos)) != 0) {
        const char *n = (const char *)area + pos + NK_FS_XATTR_LEN_BYTES;
        size_t n_len = strlen(n) + 1; /* the record holds a NUL */
        if (size) {
            if (total + n_len > size)
                return -NK_ERANGE;
            memcpy(list + total, n, n_len);
        }
        total += n_len;
        pos += rec;
    }
    return (int)total;
}

int nk_fs_xattr_pack(uint8_t *area, size_t area_size, size_t *used, const char *name,
                     const void *value, size_t size)
{
    size_t name_len;
    int err = nk_fs_xattr_name_check(name, &name_len);
    if (err)
        return err;
    if (!area || !used || *used >= area_size || (size && !value) ||
        (*used && nk_fs_xattr_used(area, area_size) != *used))
        return -NK_EINVAL; /* not a list this function built */
    size_t at, old;
    if (*used && nk_fs_xattr_find(area, area_size, name, name_len, &at, &old) == 0)
        return -NK_EEXIST;
    size_t rec = NK_FS_XATTR_LEN_BYTES + name_len + 1 + size;
    if (size >= area_size || *used + rec >= area_size)
        return -NK_ENOSPC;
    nk_fs_xattr_put(area, area_size, *used, name, name_len, value, size);
    *used += rec;
    return 0;
}

/* ----- on a mounted file system -------------------------------------------------------- */

/* The attribute list of `obj`'s newest header, in fs->page_buf: its bytes
 * and length (0: none, the header has no room or `obj` no header). */
static int nk_fs_xattr_area(struct nk_fs *fs, struct nk_fs_obj *obj, const uint8_t **area,
                            size_t *len)
{
    *area = NULL;
    *len = 0;
    if (obj->header_page == NK_FS_NONE || fs->chunk_bytes <= NK_FS_HEADER_BYTES)
        return 0;
    if (obj->wflags & NK_FS_W_STALE)
        return -NK_EIO;
    int err = nk_fs_obj_header_load(fs, obj);
    if (err)
        return err;
    *area = fs->page_buf + NK_FS_HEADER_BYTES;
    *len = fs->chunk_bytes - NK_FS_HEADER_BYTES;
    return 0;
}

int nk_fs_xattr_keep(struct nk_fs *fs, struct nk_fs_obj *obj, uint8_t *page)
{
    const uint8_t *area;
    size_t len;
    int err = nk_fs_xattr_area(fs, obj, &area, &len);
    if (err || !len)
        return err;
    size_t used = nk_fs_xattr_used(area, len);
    if (used)
        memcpy(page + NK_FS_HEADER_BYTES, area, used);
    return 0;
}

/* The object whose header holds `path`'s attributes: a final symlink is
 * itself, a hard link is its file. */
static int nk_fs_xattr_owner(struct nk_fs *fs, const char *path, struct nk_fs_obj **out)
{
    struct nk_fs_obj *obj;
    int err = nk_fs_path_lookup(fs, path, false, &obj);
    if (err)
        return err;
    struct nk_fs_obj *target = nk_fs_obj_target(fs, obj);
    *out = target ? target : obj;
    return 0;
}

int nk_fs_getxattr_unlocked(struct nk_fs *fs, const char *path, const char *name, void *value,
                            size_t size)
{
    size_t name_len;
    if (!fs || !path || !fs->mounted || (size && !value))
        return -NK_EINVAL;
    int err = nk_fs_xattr_name_check(name, &name_len);
    struct nk_fs_obj *obj;
    if (!err)
        err = nk_fs_xattr_owner(fs, path, &obj);
    const uint8_t *area;
    size_t len;
    if (!err)
        err = nk_fs_xattr_area(fs, obj, &area, &len);
    if (err)
        return err;
    return len ? nk_fs_xattr_get(area, len, name, name_len, value, size) : -NK_ENODATA;
}

int nk_fs_listxattr_unlocked(struct nk_fs *fs, const char *path, char *list, size_t size)
{
    if (!fs || !path || !fs->mounted || (size && !list))
        return -NK_EINVAL;
    struct nk_fs_obj *obj;
    int err = nk_fs_xattr_owner(fs, path, &obj);
    const uint8_t *area;
    size_t len;
    if (!err)
        err = nk_fs_xattr_area(fs, obj, &area, &len);
    if (err)
        return err;
    return len ? nk_fs_xattr_list(area, len, list, size) : 0;
}

int nk_fs_setxattr_unlocked(struct nk_fs *fs, const char *path, const char *name,
                            const void *value, size_t size, int flags)
{
    struct nk_fs_xattr_change c = {.value = value ? value : "", .size = size, .flags = flags};
    if (!fs || !path || !fs->mounted || (size && !value) ||
        (flags & ~(NK_FS_XATTR_CREATE | NK_FS_XATTR_REPLACE)) ||
        flags == (NK_FS_XATTR_CREATE | NK_FS_XATTR_REPLACE))
        return -NK_EINVAL;
    int err = nk_fs_xattr_name_check(name, &c.name_len);
    if (err)
        return err;
    c.name = name;
    struct nk_fs_attr_change change = {.no_follow = true, .xattr = &c};
    return nk_fs_set_attr(fs, path, &change);
}

int nk_fs_removexattr_unlocked(struct nk_fs *fs, const char *path, const char *name)
{
    struct nk_fs_xattr_change c = {.value = NULL};
    if (!fs || !path || !fs->mounted)
        return -NK_EINVAL;
    int err = nk_fs_xattr_name_check(name, &c.name_len);
    if (err)
        return err;
    c.name = name;
    struct nk_fs_attr_change change = {.no_follow = true, .xattr = &c};
    return nk_fs_set_attr(fs, path, &change);
}
