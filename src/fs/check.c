/* SPDX-License-Identifier: MIT */
/*
 * The structure check behind `nandkit fsck`: everything mount could not see
 * without reading more (names, header contents, duplicate names, the data
 * ECC of every live chunk), added to what mount reported.
 */
#include <string.h>

#include "fs/fs_internal.h"

struct nk_fs_checker {
    struct nk_fs *fs;
    struct nk_fs_check_result *result;
    const struct nk_fs_obj *obj;
    int error; /* a device error other than ECC */
};

static void nk_fs_check_report(struct nk_fs_checker *c, enum nk_fs_problem_kind kind, uint32_t page,
                               uint32_t obj_id, uint32_t chunk_id, uint32_t other)
{
    c->result->problems[kind]++;
    nk_fs_report(c->fs, kind, page, obj_id, chunk_id, other);
}

/* Reads `page` afresh (not from the cache) and tallies its ECC outcome.
 * Returns 0, -NK_EIO (reported by the caller) or a device error. */
static int nk_fs_check_read(struct nk_fs_checker *c, uint32_t page)
{
    struct nk_fs *fs = c->fs;
    fs->cached_page = NK_FS_NONE;
    uint64_t corrected_before = fs->ecc_corrected_reads;
    fs->check_suspect = true; /* a page check word must agree too */
    int err = nk_fs_page_load(fs, page);
    fs->check_suspect = false;
    c->result->chunks_read++;
    if (!err && fs->ecc_corrected_reads != corrected_before) {
        c->result->chunks_corrected++;
        c->result->bitflips_corrected += nk_part_last_bitflips(fs->part);
    }
    return err;
}

static int nk_fs_check_data_chunk(void *ctx, uint32_t chunk_id, uint32_t page)
{
    struct nk_fs_checker *c = ctx;
    int err = nk_fs_check_read(c, page);
    if (err == -NK_EIO) {
        nk_fs_check_report(c, NK_FS_PROBLEM_DATA_ECC, page, c->obj->id, chunk_id, 0);
        return 0;
    }
    if (err) {
        c->error = err;
        return 1;
    }
    struct nk_fs_tags tags;
    int status = nk_fs_tags_from_buffers(c->fs, &tags);
    if (status >= 0 &&
        (status == NK_FS_TAGS_UNWRITTEN || tags.obj_id != c->obj->id || tags.chunk_id != chunk_id))
        nk_fs_check_report(c, NK_FS_PROBLEM_CHUNK_MISMATCH, page, c->obj->id, chunk_id,
                           tags.obj_id);
    return 0;
}

static bool nk_fs_check_name_ok(const struct nk_fs_header *hdr)
{
    if (hdr->name_len == 0)
        return false;
    if (hdr->name[0] == '.' && (hdr->name_len == 1 || (hdr->name_len == 2 && hdr->name[1] == '.')))
        return false;
    return memchr(hdr->name, '/', hdr->name_len) == NULL;
}

static void nk_fs_check_header(struct nk_fs_checker *c, struct nk_fs_obj *obj)
{
    struct nk_fs *fs = c->fs;
    int err = nk_fs_check_read(c, obj->header_page);
    if (err == -NK_EIO) {
        nk_fs_check_report(c, NK_FS_PROBLEM_HEADER_UNREADABLE, obj->header_page, obj->id, 0, 0);
        return;
    }
    if (err) {
        c->error = err;
        return;
    }
    struct nk_fs_header hdr;
    err = nk_fs_obj_header(fs, obj, &hdr);
    if (err) {
        nk_fs_check_report(c, NK_FS_PROBLEM_CHUNK_MISMATCH, obj->header_page, obj->id, 0, 0);
        return;
    }
    bool builtin = obj == fs->root || obj == fs->lost_found;
    if (builtin)
        return;
    nk_fs_obj_hash_header(obj, &hdr);
    if (!nk_fs_check_name_ok(&hdr))
        nk_fs_check_report(c, NK_FS_PROBLEM_HEADER_INVALID, obj->header_page, obj->id, 0, 1);
    else if (hdr.type != obj->type)
        nk_fs_check_report(c, NK_FS_PROBLEM_HEADER_INVALID, obj->header_page, obj->id, 0, 2);
    else if (obj->type == NK_FS_TYPE_FILE && hdr.size > obj->size)
        nk_fs_check_report(c, NK_FS_PROBLEM_HEADER_INVALID, obj->header_page, obj->id, 0, 3);
}

static void nk_fs_sift_by_hash(struct nk_fs_obj **v, uint32_t root, uint32_t n)
{
    for (;;) {
        uint32_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && v[child]->name_hash < v[child + 1]->name_hash)
            child++;
        if (v[root]->name_hash >= v[child]->name_hash)
            return;
        struct nk_fs_obj *t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

/* Compares the names of `a` and `b` (one copied, one in the page cache). */
static void nk_fs_check_pair(struct nk_fs_checker *c, struct nk_fs_obj *a, struct nk_fs_obj *b)
{
    char name[NK_FS_NAME_MAX + 1];
    int len = nk_fs_obj_name(c->fs, a, name);
    if (len >= 0 && nk_fs_obj_name_equals(c->fs, b, name, (size_t)len) > 0)
        nk_fs_check_report(c, NK_FS_PROBLEM_DUPLICATE_NAME, b->header_page, b->id, 0, a->id);
}

/* Runs of equal hashes longer than this are only compared neighbour to
 * neighbour: crafted collisions must not make the check quadratic. */
#define NK_FS_CHECK_RUN_MAX 64u

/* Two children of one directory with the same name: the children sorted by
 * their 16-bit name hash (heap sort, in a temporary array), then names
 * compared only within runs of equal hashes. O(n log n) per directory. */
static void nk_fs_check_duplicates(struct nk_fs_checker *c, struct nk_fs_obj *dir)
{
    uint32_t n = 0;
    for (struct nk_fs_obj *o = dir->u.children; o; o = o->sibling)
        n++;
    if (n < 2)
        return;
    struct nk_fs_obj **v = nk_fs_mem_alloc(c->fs, (size_t)n * sizeof *v);
    if (!v) {
        c->error = -NK_ENOMEM;
        return;
    }
    uint32_t i = 0;
    for (struct nk_fs_obj *o = dir->u.children; o; o = o->sibling)
        v[i++] = o;
    for (i = n / 2; i-- > 0;)
        nk_fs_sift_by_hash(v, i, n);
    for (uint32_t end = n; end > 1; end--) {
        struct nk_fs_obj *t = v[0];
        v[0] = v[end - 1];
        v[end - 1] = t;
        nk_fs_sift_by_hash(v, 0, end - 1);
    }
    for (uint32_t start = 0; start < n && !c->error;) {
        uint32_t end = start + 1;
        while (end < n && v[end]->name_hash == v[start]->name_hash)
            end++;
        for (uint32_t a = start; a < end; a++) {
            uint32_t last = end - start <= NK_FS_CHECK_RUN_MAX ? end : (a + 2 < end ? a + 2 : end);
            for (uint32_t b = a + 1; b < last; b++)
                nk_fs_check_pair(c, v[a], v[b]);
        }
        start = end;
    }
    nk_fs_mem_free(c->fs, v, (size_t)n * sizeof *v);
}

int nk_fs_check_unlocked(struct nk_fs *fs, struct nk_fs_check_result *result)
{
    if (!fs || !result || !fs->mounted)
        return -NK_EINVAL;
    memset(result, 0, sizeof *result);
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    struct nk_fs_checker c = {fs, result, NULL, 0};
    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj && !c.error;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        result->objects_checked++;
        c.obj = obj;
        if (obj->header_page != NK_FS_NONE)
            nk_fs_check_header(&c, obj);
        else if (obj != fs->root && obj != fs->lost_found)
            nk_fs_obj_hash_header(obj, NULL);
        if (obj->type == NK_FS_TYPE_FILE && !c.error)
            nk_fs_map_walk(fs, obj, nk_fs_check_data_chunk, &c);
    }
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj && !c.error;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (nk_fs_obj_is_dir(obj))
            nk_fs_check_duplicates(&c, obj);
    }
    for (unsigned k = 0; k < NK_FS_PROBLEM_KIND_COUNT; k++) {
        result->problems[k] += fs->problems[k];
        result->problem_total += result->problems[k];
    }
    return c.error;
}

static const char *const nk_fs_problem_names[NK_FS_PROBLEM_KIND_COUNT] = {
    [NK_FS_PROBLEM_TAGS_ECC] = "tags-ecc",
    [NK_FS_PROBLEM_TAGS_INVALID] = "tags-invalid",
    [NK_FS_PROBLEM_TORN_CHUNK] = "torn-chunk",
    [NK_FS_PROBLEM_BLOCK_SEQUENCE] = "block-sequence",
    [NK_FS_PROBLEM_HEADER_UNREADABLE] = "header-unreadable",
    [NK_FS_PROBLEM_HEADER_INVALID] = "header-invalid",
    [NK_FS_PROBLEM_DANGLING_CHUNK] = "dangling-chunk",
    [NK_FS_PROBLEM_ORPHAN] = "orphan",
    [NK_FS_PROBLEM_DANGLING_HARDLINK] = "dangling-hardlink",
    [NK_FS_PROBLEM_DUPLICATE_NAME] = "duplicate-name",
    [NK_FS_PROBLEM_DATA_ECC] = "data-ecc",
    [NK_FS_PROBLEM_CHUNK_MISMATCH] = "chunk-mismatch",
    [NK_FS_PROBLEM_HEADER_STALE] = "header-stale",
    [NK_FS_PROBLEM_CHUNK_STALE] = "chunk-stale",
};

const char *nk_fs_problem_name(enum nk_fs_problem_kind kind)
{
    return (unsigned)kind < NK_FS_PROBLEM_KIND_COUNT ? nk_fs_problem_names[kind] : "unknown";
}

static const char *const nk_fs_header_faults[] = {"", "unusable name", "type differs from tags",
                                                  "file size beyond what YAFFS2 can address"};

size_t nk_fs_problem_format(const struct nk_fs_problem *p, char *buf, size_t size)
{
    if (!p || !buf || !size)
        return 0;
    /* uint32_t is unsigned long on some targets: print through unsigned. */
    const unsigned obj = p->obj_id, chunk = p->chunk_id, other = p->other;
    char where[48] = "";
    if (p->page != NK_FS_NONE)
        nk_format(where, sizeof where, " at block %u page %u", (unsigned)p->block,
                  (unsigned)p->page);
    const char *name = nk_fs_problem_name(p->kind);
    switch (p->kind) {
    case NK_FS_PROBLEM_TAGS_ECC:
        return nk_format(buf, size, "%s%s: tags uncorrectable, chunk ignored", name, where);
    case NK_FS_PROBLEM_TAGS_INVALID:
        return nk_format(buf, size,
                         "%s%s: tags obj %u chunk %u seq 0x%x impossible or from another block, "
                         "chunk ignored",
                         name, where, obj, chunk, other);
    case NK_FS_PROBLEM_TORN_CHUNK:
        return nk_format(buf, size,
                         "%s%s: last written page failed data ECC (torn program), obj %u chunk "
                         "%u ignored",
                         name, where, obj, chunk);
    case NK_FS_PROBLEM_BLOCK_SEQUENCE:
        return nk_format(buf, size, "%s%s: sequence number 0x%x out of range, block ignored", name,
                         where, other);
    case NK_FS_PROBLEM_HEADER_UNREADABLE:
        return nk_format(buf, size, "%s%s: header of obj %u failed data ECC", name, where, obj);
    case NK_FS_PROBLEM_HEADER_INVALID:
        return nk_format(buf, size, "%s%s: header of obj %u: %s", name, where, obj,
                         other < 4 && other > 0 ? nk_fs_header_faults[other]
                                                : "unknown object type");
    case NK_FS_PROBLEM_DANGLING_CHUNK:
        return nk_format(buf, size, "%s%s: data of obj %u without a live file header%s", name,
                         where, obj, other == 0 ? " (kept as lost+found/obj<id>)" : " (dropped)");
    case NK_FS_PROBLEM_ORPHAN:
        return nk_format(buf, size, "%s%s: obj %u has no usable parent %u, moved to lost+found",
                         name, where, obj, other);
    case NK_FS_PROBLEM_DANGLING_HARDLINK:
        return nk_format(buf, size, "%s%s: hard link obj %u points to missing or non-file obj %u",
                         name, where, obj, other);
    case NK_FS_PROBLEM_DUPLICATE_NAME:
        return nk_format(buf, size, "%s%s: obj %u has the same name as obj %u in its directory",
                         name, where, obj, other);
    case NK_FS_PROBLEM_DATA_ECC:
        return nk_format(buf, size, "%s%s: chunk %u of obj %u uncorrectable (reads give EIO)", name,
                         where, chunk, obj);
    case NK_FS_PROBLEM_CHUNK_MISMATCH:
        return nk_format(buf, size, "%s%s: page no longer holds chunk %u of obj %u", name, where,
                         chunk, obj);
    case NK_FS_PROBLEM_HEADER_STALE:
        return nk_format(buf, size,
                         "%s%s: a newer header of obj %u (page %u) lost its tags: its newest state "
                         "is unknown, access gives EIO",
                         name, where, obj, other);
    case NK_FS_PROBLEM_CHUNK_STALE:
        return nk_format(buf, size,
                         "%s%s: a page that lost its tags (page %u) may be a newer chunk %u of obj "
                         "%u: its newest state is unknown, access gives EIO",
                         name, where, other, chunk, obj);
    default:
        return nk_format(buf, size, "%s%s", name, where);
    }
}

int nk_fs_check(struct nk_fs *fs, struct nk_fs_check_result *result)
{
    const struct nk_lock *lock = nk_fs_lock_of(fs);
    nk_fs_lock_take(lock);
    int ret = nk_fs_check_unlocked(fs, result);
    nk_fs_lock_give(lock);
    return ret;
}
