/* SPDX-License-Identifier: MIT */
/*
 * Objects: the hash table keyed by object id, names, headers on demand, and
 * stat. Only what the tree needs stays in RAM (type, parent, size, where the
 * newest header is); names, modes, owners and times are read from the header
 * when asked for, through the one-page cache.
 */
#include <string.h>

#include "fs/fs_internal.h"

static uint32_t nk_fs_bucket(const struct nk_fs *fs, uint32_t id)
{
    /* Ids are handed out densely, so the low bits spread well. */
    return (id ^ (id >> 11)) & fs->bucket_mask;
}

struct nk_fs_obj *nk_fs_obj_find(const struct nk_fs *fs, uint32_t id)
{
    if (!fs->buckets)
        return NULL;
    for (struct nk_fs_obj *obj = fs->buckets[nk_fs_bucket(fs, id)]; obj; obj = obj->hash_next) {
        if (obj->id == id)
            return obj;
    }
    return NULL;
}

struct nk_fs_obj *nk_fs_obj_get(struct nk_fs *fs, uint32_t id)
{
    struct nk_fs_obj *obj = nk_fs_obj_find(fs, id);
    if (obj)
        return obj;
    obj = nk_fs_mem_alloc(fs, sizeof *obj);
    if (!obj)
        return NULL;
    memset(obj, 0, sizeof *obj);
    obj->id = id;
    obj->header_page = NK_FS_NONE;
    obj->shrink_limit = NK_FS_NONE;
    obj->map_height = NK_FS_MAP_EMPTY;
    uint32_t bucket = nk_fs_bucket(fs, id);
    obj->hash_next = fs->buckets[bucket];
    fs->buckets[bucket] = obj;
    fs->object_count++;
    return obj;
}

void nk_fs_obj_free(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    struct nk_fs_obj **link = &fs->buckets[nk_fs_bucket(fs, obj->id)];
    while (*link && *link != obj)
        link = &(*link)->hash_next;
    if (*link)
        *link = obj->hash_next;
    if (obj->id == fs->links_file)
        fs->links_file = 0;
    else if (obj->type == NK_FS_TYPE_HARDLINK && fs->links_file)
        nk_fs_links_forget(fs, obj);
    if (obj->type == NK_FS_TYPE_FILE || obj->type == NK_FS_TYPE_UNKNOWN)
        nk_fs_map_free(fs, obj);
    nk_fs_mem_free(fs, obj, sizeof *obj);
    fs->object_count--;
}

void nk_fs_obj_free_all(struct nk_fs *fs)
{
    if (!fs->buckets)
        return;
    for (uint32_t b = 0; b <= fs->bucket_mask; b++) {
        while (fs->buckets[b])
            nk_fs_obj_free(fs, fs->buckets[b]);
    }
}

struct nk_fs_obj *nk_fs_obj_next(const struct nk_fs *fs, const struct nk_fs_obj *obj,
                                 uint32_t *bucket)
{
    if (!fs->buckets)
        return NULL;
    if (obj && obj->hash_next)
        return obj->hash_next;
    uint32_t b = obj ? *bucket + 1 : 0;
    for (; b <= fs->bucket_mask; b++) {
        if (fs->buckets[b]) {
            *bucket = b;
            return fs->buckets[b];
        }
    }
    *bucket = b;
    return NULL;
}

uint16_t nk_fs_name_hash(const uint8_t *name, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ name[i]) * 16777619u;
    return (uint16_t)(h ^ (h >> 16));
}

bool nk_fs_obj_is_dir(const struct nk_fs_obj *obj)
{
    return obj->type == NK_FS_TYPE_DIR || obj->id == NK_FS_OBJ_ROOT ||
           obj->id == NK_FS_OBJ_LOST_FOUND;
}

int nk_fs_obj_header_load(struct nk_fs *fs, const struct nk_fs_obj *obj)
{
    if (obj->header_page == NK_FS_NONE)
        return -NK_ENOENT;
    int err = nk_fs_page_load(fs, obj->header_page);
    if (err)
        return err;
    struct nk_fs_tags tags;
    int status = nk_fs_tags_from_buffers(fs, &tags);
    /* Tags that fail their own ECC on a page whose data passed are let
     * through (the scan vouched for the page); tags that decode to another
     * owner mean the page changed under us. */
    if (status >= 0 &&
        (status == NK_FS_TAGS_UNWRITTEN || tags.obj_id != obj->id || tags.chunk_id != 0))
        return -NK_EIO;
    return 0;
}

int nk_fs_obj_header(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header *hdr)
{
    int err = nk_fs_obj_header_load(fs, obj);
    if (err)
        return err;
    return nk_fs_header_decode(fs->page_buf, fs->chunk_bytes,
                               fs->config.tags_place == NK_FS_TAGS_INBAND, hdr);
}

bool nk_fs_name_usable(const uint8_t *name, size_t len)
{
    if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (name[i] == '/')
            return false;
    }
    return true;
}

/* The name `obj` goes by, given its header (NULL without one): the stored
 * name, or YAFFS2's fallback "objN" when there is none or when it is one no
 * path could reach. */
static size_t nk_fs_obj_name_of(const struct nk_fs_obj *obj, const struct nk_fs_header *hdr,
                                char *name)
{
    if (hdr && nk_fs_name_usable(hdr->name, hdr->name_len)) {
        memcpy(name, hdr->name, hdr->name_len);
        name[hdr->name_len] = '\0';
        return hdr->name_len;
    }
    return nk_format(name, 16, "obj%u", (unsigned)obj->id); /* fits: ids have 18 bits */
}

void nk_fs_obj_hash_header(struct nk_fs_obj *obj, const struct nk_fs_header *hdr)
{
    if (hdr && nk_fs_name_usable(hdr->name, hdr->name_len)) {
        obj->name_hash = nk_fs_name_hash(hdr->name, hdr->name_len);
    } else {
        char name[16];
        size_t len = nk_fs_obj_name_of(obj, NULL, name);
        obj->name_hash = nk_fs_name_hash((const uint8_t *)name, len);
    }
    obj->flags |= NK_FS_OBJ_HASHED;
}

int nk_fs_obj_name(struct nk_fs *fs, struct nk_fs_obj *obj, char *name)
{
    size_t len;
    if (obj->id == NK_FS_OBJ_ROOT) {
        name[0] = '\0';
        len = 0;
    } else if (obj->id == NK_FS_OBJ_LOST_FOUND) {
        memcpy(name, "lost+found", 11);
        len = 10;
    } else {
        struct nk_fs_header hdr;
        int err = nk_fs_obj_header(fs, obj, &hdr);
        if (err && err != -NK_ENOENT)
            return err;
        len = nk_fs_obj_name_of(obj, err ? NULL : &hdr, name);
    }
    obj->name_hash = nk_fs_name_hash((const uint8_t *)name, len);
    obj->flags |= NK_FS_OBJ_HASHED;
    return (int)len;
}

int nk_fs_obj_name_equals(struct nk_fs *fs, struct nk_fs_obj *obj, const char *name, size_t len)
{
    uint16_t hash = nk_fs_name_hash((const uint8_t *)name, len);
    if ((obj->flags & NK_FS_OBJ_HASHED) && obj->name_hash != hash)
        return 0;
    if (obj->id == NK_FS_OBJ_ROOT || obj->id == NK_FS_OBJ_LOST_FOUND ||
        obj->header_page == NK_FS_NONE) {
        char own[16];
        int own_len = nk_fs_obj_name(fs, obj, own);
        return own_len >= 0 && (size_t)own_len == len && memcmp(own, name, len) == 0;
    }
    /* Compare in the page cache: no copy of the name. */
    struct nk_fs_header hdr;
    int err = nk_fs_obj_header(fs, obj, &hdr);
    if (err)
        return err;
    nk_fs_obj_hash_header(obj, &hdr);
    if (!nk_fs_name_usable(hdr.name, hdr.name_len)) {
        char own[16];
        size_t own_len = nk_fs_obj_name_of(obj, NULL, own);
        return own_len == len && memcmp(own, name, len) == 0;
    }
    return hdr.name_len == len && memcmp(hdr.name, name, len) == 0;
}

struct nk_fs_obj *nk_fs_obj_target(const struct nk_fs *fs, struct nk_fs_obj *obj)
{
    if (obj->type != NK_FS_TYPE_HARDLINK)
        return obj;
    if (obj->flags & NK_FS_OBJ_DANGLING)
        return NULL;
    struct nk_fs_obj *target = nk_fs_obj_find(fs, obj->u.equiv_id);
    if (!target || target->type != NK_FS_TYPE_FILE || (target->flags & NK_FS_OBJ_DEAD))
        return NULL;
    return target;
}

static uint32_t nk_fs_type_bits(const struct nk_fs_obj *obj, uint32_t stored_mode)
{
    if (nk_fs_obj_is_dir(obj))
        return NK_FS_S_IFDIR;
    switch (obj->type) {
    case NK_FS_TYPE_FILE:
    case NK_FS_TYPE_HARDLINK:
        return NK_FS_S_IFREG;
    case NK_FS_TYPE_SYMLINK:
        return NK_FS_S_IFLNK;
    default:
        return stored_mode & NK_FS_S_IFMT;
    }
}

static bool nk_fs_links_to(const struct nk_fs_obj *link, uint32_t file_id)
{
    return link->type == NK_FS_TYPE_HARDLINK && !(link->flags & NK_FS_OBJ_DANGLING) &&
           link->u.equiv_id == file_id;
}

void nk_fs_links_forget(struct nk_fs *fs, const struct nk_fs_obj *link)
{
    if (fs->links_file && nk_fs_links_to(link, fs->links_file))
        fs->links_count--;
}

void nk_fs_links_added(struct nk_fs *fs, const struct nk_fs_obj *link)
{
    if (fs->links_file && nk_fs_links_to(link, fs->links_file))
        fs->links_count++;
}

static uint32_t nk_fs_link_count(struct nk_fs *fs, const struct nk_fs_obj *file)
{
    uint32_t links = (file->wflags & NK_FS_W_DISPLACED) ? 0 : 1, bucket = 0;
    if (!(file->flags & NK_FS_OBJ_LINKED))
        return links;
    if (fs->links_file != file->id) {
        uint32_t count = 0;
        for (const struct nk_fs_obj *o = nk_fs_obj_next(fs, NULL, &bucket); o;
             o = nk_fs_obj_next(fs, o, &bucket))
            count += nk_fs_links_to(o, file->id);
        fs->links_file = file->id;
        fs->links_count = count;
    }
    return links + fs->links_count;
}

bool nk_fs_now(const struct nk_fs *fs, uint64_t *now)
{
    if (!fs->config.clock.now_s)
        return false;
    *now = fs->config.clock.now_s(fs->config.clock.ctx);
    return true;
}

int nk_fs_obj_stat(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_stat *st)
{
    memset(st, 0, sizeof *st);
    struct nk_fs_obj *src = nk_fs_obj_target(fs, obj);
    if (!src)
        src = obj; /* a dangling hard link shows itself */
    st->obj_id = obj->id;
    st->ino = src->id;
    st->type =
        obj->type == NK_FS_TYPE_UNKNOWN && nk_fs_obj_is_dir(obj) ? NK_FS_TYPE_DIR : obj->type;
    st->nlink = 1;
    st->has_header = src->header_page != NK_FS_NONE;

    uint32_t mode;
    if (st->has_header) {
        struct nk_fs_header hdr;
        int err = nk_fs_obj_header(fs, src, &hdr);
        if (err)
            return err;
        mode = hdr.mode;
        st->uid = hdr.uid;
        st->gid = hdr.gid;
        st->rdev = hdr.rdev;
        st->atime = hdr.atime;
        st->mtime = hdr.mtime;
        st->ctime = hdr.ctime;
        uint64_t now;
        if ((src->wflags & NK_FS_W_TOUCHED) && nk_fs_now(fs, &now))
            st->mtime = st->ctime = now; /* stamped by its next header */
        if (src->type == NK_FS_TYPE_SYMLINK)
            st->size = hdr.alias_len;
    } else if (src->id == NK_FS_OBJ_LOST_FOUND) {
        mode = 0700;
    } else if (src->id == NK_FS_OBJ_ROOT) {
        mode = 0755;
    } else {
        mode = 0600; /* data found without a header */
    }
    st->mode = (mode & ~NK_FS_S_IFMT) | nk_fs_type_bits(src, mode);
    st->mode &= NK_FS_S_IFMT | 07777u;
    if (src->type == NK_FS_TYPE_FILE) {
        st->size = src->size;
        st->nlink = nk_fs_link_count(fs, src);
    }
    if (nk_fs_damaged_unlocked(fs))
        st->at_risk = nk_fs_obj_at_risk(fs, src);
    return 0;
}

uint32_t nk_fs_damaged_unlocked(const struct nk_fs *fs)
{
    if (!fs)
        return 0;
    return fs->stats.tags_uncorrectable;
}

bool nk_fs_obj_at_risk(const struct nk_fs *fs, const struct nk_fs_obj *obj)
{
    if (obj->wflags & NK_FS_W_STALE)
        return true;
    if (obj->header_page == NK_FS_NONE)
        return obj->id != NK_FS_OBJ_ROOT && obj->id != NK_FS_OBJ_LOST_FOUND;
    if (obj->type != NK_FS_TYPE_FILE)
        return false;
    /* O(chunks of the file): only ever run on a damaged file system. */
    uint64_t chunks = (obj->size + fs->chunk_bytes - 1) / fs->chunk_bytes;
    for (uint64_t k = 1; k <= chunks && k <= NK_FS_CHUNK_ID_MAX; k++) {
        if (nk_fs_map_get(fs, obj, (uint32_t)k) == NK_FS_NONE)
            return true;
    }
    return false;
}
