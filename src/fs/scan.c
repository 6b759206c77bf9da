/* SPDX-License-Identifier: MIT */
/*
 * Mount scan: from the tags on flash to the newest version of every object
 * and data chunk (docs/fs-format.md, "Resolving the newest state").
 *
 * 1. Survey: each block's state from its bad-block marker and the tags of
 *    its first page (empty, checkpoint, in use with a sequence number).
 * 2. Order the blocks in use by sequence number.
 * 3. Walk them newest first, and each block's written pages last first, so
 *    that the first version of a chunk met is the newest: older duplicates,
 *    data cut off by a later truncate (shrink header) or deletion, and every
 *    chunk of a shadowed object are dropped as they are met. A block's tags
 *    come from its summary when it has a valid one, else from each page.
 *
 * Only headers whose tags lack the "extra" packing, and headers that shadow
 * another object, are read during the scan; everything else comes from the
 * tags alone.
 */
#include <string.h>

#include "fs/fs_internal.h"

enum nk_fs_page_state {
    NK_FS_PAGE_UNWRITTEN = 0,
    NK_FS_PAGE_OK,
    NK_FS_PAGE_BAD,      /* tags unusable (reported) */
    NK_FS_PAGE_SUMMARY,  /* a summary chunk: not file-system data */
    NK_FS_PAGE_TAGS_BAD, /* tags unreadable, not yet classified (torn or damaged) */
};

struct nk_fs_page_tags {
    struct nk_fs_tags tags;
    uint8_t state;
};

struct nk_fs_scan {
    uint32_t *order; /* blocks in use, sorted by (sequence, block) */
    uint32_t count;
    struct nk_fs_page_tags *pages; /* one block's pages */
    uint8_t *summary;              /* one block's summary entries */
    size_t summary_bytes;
};

/* What a header says, from its tags or from the header itself. */
struct nk_fs_header_info {
    uint8_t type;
    uint32_t parent_id;
    uint64_t size;
    uint32_t equiv_id;
    uint32_t shadows;
    bool shrink;
};

/* ----- problems ------------------------------------------------------------------ */

/* What the scan (and after it resolve and fsck) finds wrong goes to the
 * configured callback. */
void nk_fs_report(struct nk_fs *fs, enum nk_fs_problem_kind kind, uint32_t page, uint32_t obj_id,
                  uint32_t chunk_id, uint32_t other)
{
    /* Mount's tally; nk_fs_check() counts its own. */
    if ((unsigned)kind < NK_FS_PROBLEM_KIND_COUNT && !fs->mounted)
        fs->problems[kind]++;
    if (!fs->config.report)
        return;
    struct nk_fs_problem problem = {
        .kind = kind,
        .block = page == NK_FS_NONE ? NK_FS_NONE : page / fs->pages_per_block,
        .page = page,
        .obj_id = obj_id,
        .chunk_id = chunk_id,
        .other = other,
    };
    fs->config.report(fs->config.report_ctx, &problem);
}

/* ----- 1. survey ------------------------------------------------------------------- */

int nk_fs_survey_block(struct nk_fs *fs, uint32_t block)
{
    struct nk_fs_block *info = &fs->block_info[block];
    /* Without markers (mkyaffs2) a bad-block table or the kernel still knows. */
    if (!fs->config.no_bad_block_markers || nk_fs_io_tracks_bad_blocks(fs->part)) {
        int bad = nk_part_block_is_bad(fs->part, block);
        if (bad < 0)
            return bad;
        if (bad) {
            info->state = NK_FS_BLOCK_BAD;
            fs->stats.blocks_bad++;
            return 0;
        }
    }
    uint32_t base = block * fs->pages_per_block;
    uint32_t p = 0;
    for (; p < fs->pages_per_block; p++) {
        struct nk_fs_tags tags;
        int status = nk_fs_read_tags(fs, base + p, &tags);
        if (status == -NK_EBADMSG) {
            continue; /* the first readable page tells the sequence */
        }
        if (status < 0)
            return status;
        if (status == NK_FS_TAGS_UNWRITTEN) {
            if (p == 0) {
                info->state = NK_FS_BLOCK_EMPTY;
                fs->stats.blocks_empty++;
                fs->free_chunks += fs->pages_per_block;
                return 0;
            }
            break;
        }
        info->seq = tags.seq;
        if (tags.seq == NK_FS_SEQ_CHECKPOINT) {
            info->state = NK_FS_BLOCK_CHECKPOINT;
            fs->stats.blocks_checkpoint++;
        } else if (tags.seq >= NK_FS_SEQ_LOWEST && tags.seq <= NK_FS_SEQ_HIGHEST) {
            info->state = NK_FS_BLOCK_IN_USE;
            fs->stats.blocks_in_use++;
            if (tags.seq > fs->stats.highest_seq)
                fs->stats.highest_seq = tags.seq;
        } else {
            info->state = NK_FS_BLOCK_JUNK;
            fs->stats.blocks_bad_sequence++;
            nk_fs_report(fs, NK_FS_PROBLEM_BLOCK_SEQUENCE, base + p, 0, 0, tags.seq);
        }
        return 0;
    }
    /* Written, but no page has readable tags. */
    info->state = NK_FS_BLOCK_JUNK;
    fs->stats.blocks_bad_sequence++;
    /* Only the first page written (a program cut by power loss), or no
     * page readable at all: what an erase cut by power loss leaves (writers
     * erase a block only after moving what it held). Nothing in it was
     * live: reported as what it is (tags failing their code), counted as
     * torn, not as damage. */
    (void)p;
    fs->stats.torn_chunks++;
    nk_fs_report(fs, NK_FS_PROBLEM_TAGS_ECC, base, 0, 0, 0);
    return 0;
}

/* ----- 2. order -------------------------------------------------------------------- */

static bool nk_fs_block_before(const struct nk_fs *fs, uint32_t a, uint32_t b)
{
    uint32_t sa = fs->block_info[a].seq, sb = fs->block_info[b].seq;
    return sa != sb ? sa < sb : a < b;
}

static void nk_fs_sift_down(const struct nk_fs *fs, uint32_t *v, uint32_t root, uint32_t n)
{
    for (;;) {
        uint32_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && nk_fs_block_before(fs, v[child], v[child + 1]))
            child++;
        if (!nk_fs_block_before(fs, v[root], v[child]))
            return;
        uint32_t t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

/* Heap sort: no recursion, no extra memory, O(n log n) on any input. */
static void nk_fs_sort_blocks(const struct nk_fs *fs, uint32_t *v, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        nk_fs_sift_down(fs, v, i, n);
    for (uint32_t end = n; end > 1; end--) {
        uint32_t t = v[0];
        v[0] = v[end - 1];
        v[end - 1] = t;
        nk_fs_sift_down(fs, v, 0, end - 1);
    }
}

/* ----- 3. resolving chunks ------------------------------------------------------------ */

/* Chunks a file of `size` bytes spans: data chunks with a higher id lie
 * wholly beyond it. */
static uint32_t nk_fs_chunks_for(const struct nk_fs *fs, uint64_t size)
{
    uint64_t chunks = (size + fs->chunk_bytes - 1) / fs->chunk_bytes;
    return chunks >= NK_FS_NONE ? NK_FS_NONE - 1 : (uint32_t)chunks;
}

static uint64_t nk_fs_max_file_size(const struct nk_fs *fs)
{
    return (uint64_t)NK_FS_CHUNK_ID_MAX * fs->chunk_bytes;
}

static void nk_fs_data_chunk(struct nk_fs *fs, struct nk_fs_obj *obj, const struct nk_fs_tags *tags,
                             uint32_t page, int *err)
{
    if (obj->flags & NK_FS_OBJ_DEAD)
        return;
    if ((obj->flags & NK_FS_OBJ_VALID) && obj->type != NK_FS_TYPE_FILE)
        return; /* stale data of an earlier life of this id */
    if (tags->chunk_id > obj->shrink_limit)
        return; /* cut off by a newer truncate or deletion */
    if (nk_fs_map_get(fs, obj, tags->chunk_id) != NK_FS_NONE)
        return; /* an older copy: the newer one is in the map */
    *err = nk_fs_map_set(fs, obj, tags->chunk_id, page);
    if (*err)
        return;
    if (!(obj->flags & NK_FS_OBJ_VALID)) {
        /* Newer than any header seen: the data itself says how long the
         * file is (written after its last header). */
        uint64_t end = (uint64_t)(tags->chunk_id - 1) * fs->chunk_bytes + tags->n_bytes;
        if (end > obj->size)
            obj->size = end;
    }
}

/* Fills `info` for the header at `page` from `tags`, reading the header when
 * the tags do not carry enough. Returns 0, 1 when the header must be skipped
 * (unreadable or invalid; reported), or a device error. */
static int nk_fs_header_info(struct nk_fs *fs, struct nk_fs_obj *obj, const struct nk_fs_tags *tags,
                             uint32_t page, bool need_shadows, struct nk_fs_header_info *info)
{
    memset(info, 0, sizeof *info);
    if (tags->extra && !(need_shadows && tags->extra_shadows)) {
        info->type = tags->extra_type;
        info->parent_id = tags->extra_parent_id;
        info->shrink = tags->extra_shrink;
        if (info->type == NK_FS_TYPE_FILE)
            info->size = tags->extra_size_or_equiv;
        else if (info->type == NK_FS_TYPE_HARDLINK)
            info->equiv_id = tags->extra_size_or_equiv;
    } else {
        int err = nk_fs_page_load(fs, page);
        if (err == -NK_EIO) {
            nk_fs_report(fs, NK_FS_PROBLEM_HEADER_UNREADABLE, page, obj->id, 0, 0);
            return 1;
        }
        if (err)
            return err;
        fs->stats.headers_read++;
        struct nk_fs_header hdr;
        nk_fs_header_decode(fs->page_buf, fs->chunk_bytes,
                            fs->config.tags_place == NK_FS_TAGS_INBAND, &hdr);
        info->type = hdr.type > 0xff ? 0 : (uint8_t)hdr.type;
        info->parent_id = hdr.parent_id;
        info->size = hdr.size;
        info->equiv_id = hdr.equiv_id;
        info->shadows = hdr.shadows;
        info->shrink = hdr.shrink;
        if (!(obj->flags & NK_FS_OBJ_VALID))
            nk_fs_obj_hash_header(obj, &hdr);
    }
    if (info->type < NK_FS_TYPE_FILE || info->type > NK_FS_TYPE_SPECIAL) {
        nk_fs_report(fs, NK_FS_PROBLEM_HEADER_INVALID, page, obj->id, 0, info->type);
        return 1;
    }
    if (info->size > nk_fs_max_file_size(fs))
        info->size = nk_fs_max_file_size(fs);
    return 0;
}

/* Object `id` was renamed over (shadowed) by a newer header: unless
 * something newer of it was seen already, it is gone with all its older
 * chunks — or, when it is a file that hard links still lead to, it lives on
 * through them (the rename's second header, which gives it a link's name,
 * was cut off). Which of the two is known only after the scan (resolve), so
 * its older header and chunks are still taken. */
static int nk_fs_shadow(struct nk_fs *fs, uint32_t id)
{
    if (id < NK_FS_OBJ_FIRST_USER || id > NK_FS_OBJ_MAX || nk_fs_obj_find(fs, id))
        return 0;
    if (id >= fs->next_obj)
        fs->next_obj = id + 1;
    struct nk_fs_obj *obj = nk_fs_obj_get(fs, id);
    if (!obj)
        return -NK_ENOMEM;
    obj->wflags |= NK_FS_W_SHADOWED;
    return 0;
}

static int nk_fs_header_chunk(struct nk_fs *fs, struct nk_fs_obj *obj,
                              const struct nk_fs_tags *tags, uint32_t page)
{
    struct nk_fs_header_info info;
    if (obj->flags & NK_FS_OBJ_VALID) {
        /* An older header: it only matters when it truncated or deleted the
         * file, which makes older data beyond its size dead. */
        if (obj->type != NK_FS_TYPE_FILE || (tags->extra && tags->extra_type != NK_FS_TYPE_FILE))
            return 0;
        int skip = nk_fs_header_info(fs, obj, tags, page, false, &info);
        if (skip)
            return skip < 0 ? skip : 0;
        if (info.type != NK_FS_TYPE_FILE)
            return 0;
        uint64_t size = info.size;
        if (info.parent_id == NK_FS_OBJ_UNLINKED || info.parent_id == NK_FS_OBJ_DELETED) {
            size = 0;
            info.shrink = true;
        }
        if (info.shrink) {
            uint32_t limit = nk_fs_chunks_for(fs, size);
            if (limit < obj->shrink_limit)
                obj->shrink_limit = limit;
        }
        return 0;
    }

    int skip = nk_fs_header_info(fs, obj, tags, page, true, &info);
    if (skip)
        return skip < 0 ? skip : 0;
    obj->flags |= NK_FS_OBJ_VALID;
    obj->header_page = page;
    if (info.type != NK_FS_TYPE_FILE && obj->map_height != NK_FS_MAP_EMPTY) {
        /* Data newer than a header saying this is not a file. */
        nk_fs_report(fs, NK_FS_PROBLEM_DANGLING_CHUNK, page, obj->id, 0, info.type);
        nk_fs_map_free(fs, obj);
    }
    obj->type = info.type;
    obj->parent_id = info.parent_id;
    if (info.shadows && info.shadows != obj->id) {
        int err = nk_fs_shadow(fs, info.shadows);
        if (err)
            return err;
    }
    if (info.parent_id == NK_FS_OBJ_UNLINKED || info.parent_id == NK_FS_OBJ_DELETED) {
        obj->flags |= NK_FS_OBJ_DEAD;
        obj->shrink_limit = 0;
    }
    switch (obj->type) {
    case NK_FS_TYPE_FILE: {
        /* The size is the header's, or more when newer data says so. */
        if (info.size > obj->size)
            obj->size = info.size;
        uint32_t limit = nk_fs_chunks_for(fs, info.size);
        if (limit < obj->shrink_limit)
            obj->shrink_limit = limit;
        break;
    }
    case NK_FS_TYPE_HARDLINK:
        obj->size = 0;
        obj->u.equiv_id = info.equiv_id;
        break;
    default:
        obj->size = 0;
        obj->u.children = NULL;
        break;
    }
    return 0;
}

/* Root and lost+found exist without headers; a header of theirs only says
 * where their attributes are. */
static void nk_fs_builtin_header(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t page)
{
    if (!(obj->flags & NK_FS_OBJ_VALID)) {
        obj->flags |= NK_FS_OBJ_VALID;
        obj->header_page = page;
    }
    (void)fs;
}

static bool nk_fs_tags_valid(const struct nk_fs *fs, const struct nk_fs_tags *tags, uint32_t seq)
{
    if (tags->seq != seq || tags->obj_id == 0 || tags->obj_id > NK_FS_OBJ_MAX)
        return false;
    if (tags->chunk_id == 0)
        return !tags->extra ||
               (tags->extra_type >= NK_FS_TYPE_FILE && tags->extra_type <= NK_FS_TYPE_SPECIAL);
    return tags->chunk_id <= NK_FS_CHUNK_ID_MAX && tags->n_bytes <= fs->chunk_bytes;
}

static int nk_fs_scan_chunk(struct nk_fs *fs, uint32_t seq, uint32_t page,
                            const struct nk_fs_tags *tags)
{

    fs->stats.chunks_seen++;
    if (tags->obj_id == NK_FS_OBJ_SUMMARY && tags->seq == seq)
        return 0; /* a summary chunk of a block read page by page */
    if (!nk_fs_tags_valid(fs, tags, seq)) {
        fs->stats.tags_invalid++;
        nk_fs_report(fs, NK_FS_PROBLEM_TAGS_INVALID, page, tags->obj_id, tags->chunk_id, tags->seq);
        return 0;
    }
    if (tags->obj_id == NK_FS_OBJ_ROOT || tags->obj_id == NK_FS_OBJ_LOST_FOUND) {
        if (tags->chunk_id == 0)
            nk_fs_builtin_header(fs, tags->obj_id == NK_FS_OBJ_ROOT ? fs->root : fs->lost_found,
                                 page);
        else
            nk_fs_report(fs, NK_FS_PROBLEM_DANGLING_CHUNK, page, tags->obj_id, tags->chunk_id,
                         NK_FS_TYPE_DIR);
        return 0;
    }
    if (tags->obj_id < NK_FS_OBJ_FIRST_USER) {
        /* Reserved ids other than the summary's are never written. */
        fs->stats.tags_invalid++;
        nk_fs_report(fs, NK_FS_PROBLEM_TAGS_INVALID, page, tags->obj_id, tags->chunk_id, tags->seq);
        return 0;
    }
    struct nk_fs_obj *obj = nk_fs_obj_get(fs, tags->obj_id);
    if (!obj)
        return nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory for objects (%u so far)",
                           (unsigned)fs->object_count);
    if (tags->obj_id >= fs->next_obj)
        fs->next_obj = tags->obj_id + 1; /* ids of the dead too: never reused */
    if (tags->chunk_id == 0) {
        /* Headers that cut off older data (shrink, deletion, shadow) keep
         * their block until no older block is left (the writer's rule);
         * plain headers carry no flags in their tags, so they count too. */
        if (!tags->extra || tags->extra_shrink || tags->extra_shadows ||
            tags->extra_parent_id == NK_FS_OBJ_UNLINKED ||
            tags->extra_parent_id == NK_FS_OBJ_DELETED)
            fs->block_info[page / fs->pages_per_block].flags |= NK_FS_BLK_KEEP;
        return nk_fs_header_chunk(fs, obj, tags, page);
    }
    int err = 0;
    nk_fs_data_chunk(fs, obj, tags, page, &err);
    if (err)
        return nk_diag_set(&fs->diag, err, "out of memory for chunk maps");
    return 0;
}

/* Takes the tags of block `block` from its summary. Returns 1 when used, 0
 * when the block has no valid summary, or a device error. */
static int nk_fs_read_summary(struct nk_fs *fs, struct nk_fs_scan *scan, uint32_t block)
{
    const uint32_t seq = fs->block_info[block].seq;
    const uint32_t base = block * fs->pages_per_block;
    const uint32_t covered = fs->pages_per_block - fs->summary_chunks;
    const uint32_t per_chunk = fs->chunk_bytes - NK_FS_SUMMARY_HEADER;
    const uint32_t total = covered * NK_FS_SUMMARY_ENTRY;
    uint32_t offset = 0, header_sum = 0;

    for (uint32_t i = 0; i < fs->summary_chunks; i++) {
        uint32_t page = base + covered + i;
        int err = nk_fs_page_load(fs, page);
        if (err == -NK_EIO)
            return 0;
        if (err)
            return err;
        struct nk_fs_tags tags;
        int status = nk_fs_tags_from_buffers(fs, &tags);
        uint32_t this_tx = total - offset < per_chunk ? total - offset : per_chunk;
        if (status < 0 || status == NK_FS_TAGS_UNWRITTEN || tags.extra || tags.seq != seq ||
            tags.obj_id != NK_FS_OBJ_SUMMARY || tags.chunk_id != i + 1 ||
            tags.n_bytes != this_tx + NK_FS_SUMMARY_HEADER)
            return 0;
        const uint8_t *head = fs->page_buf;
        uint32_t numbered = nk_fs_get_le32(head + 4);
        /* YAFFS2 numbers blocks from 1 when its partition starts at block 0. */
        if (nk_fs_get_le32(head) != NK_FS_SUMMARY_VERSION ||
            (numbered != block && numbered != block + 1) || nk_fs_get_le32(head + 8) != seq)
            return 0;
        header_sum = nk_fs_get_le32(head + 12);
        memcpy(scan->summary + offset, head + NK_FS_SUMMARY_HEADER, this_tx);
        offset += this_tx;
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < total; i++)
        sum += scan->summary[i];
    if (sum != header_sum)
        return 0;

    for (uint32_t p = 0; p < covered; p++) {
        const uint8_t *entry = scan->summary + p * NK_FS_SUMMARY_ENTRY;
        struct nk_fs_page_tags *pt = &scan->pages[p];
        if (nk_fs_get_le32(entry) == 0) {
            /* YAFFS2 leaves entries it lost (a remount mid-block) zero:
             * those pages' tags are on the page. */
            int status = nk_fs_read_tags(fs, base + p, &pt->tags);
            if (status < 0 && status != -NK_EBADMSG)
                return status;
            if (status == -NK_EBADMSG) {
                pt->state = NK_FS_PAGE_BAD;
                fs->stats.tags_uncorrectable++;
                nk_fs_report(fs, NK_FS_PROBLEM_TAGS_ECC, base + p, 0, 0, 0);
            } else {
                pt->state = status == NK_FS_TAGS_UNWRITTEN ? NK_FS_PAGE_UNWRITTEN : NK_FS_PAGE_OK;
                fs->stats.tags_corrected += status == NK_FS_TAGS_CORRECTED;
            }
            continue;
        }
        uint8_t packed[NK_FS_TAGS_BYTES];
        nk_fs_put_le32(packed, seq);
        memcpy(packed + 4, entry, NK_FS_SUMMARY_ENTRY);
        nk_fs_tags_unpack(packed, &pt->tags);
        pt->state = NK_FS_PAGE_OK;
    }
    for (uint32_t p = covered; p < fs->pages_per_block; p++)
        scan->pages[p].state = NK_FS_PAGE_SUMMARY;
    return 1;
}

static bool nk_fs_all_ff(const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        if (p[i] != 0xff)
            return false;
    return true;
}

/* Whether the last written page of a block can be checked for a torn
 * program beyond its tags: the tags are in the OOB and the data has an ECC
 * or a check word; or the tags are in the page (read through its ECC
 * already) and it has a check word. */
static bool nk_fs_can_check_torn(const struct nk_fs *fs)
{
    if (fs->config.tags_place == NK_FS_TAGS_INBAND)
        return fs->check_bytes != 0;
    return nk_part_ecc_placement(fs->part) != NK_ECC_PLACEMENT_NONE || fs->check_bytes;
}

/* Whether `page`, whose tags failed their code, still reads whole through
 * its data ECC and check word (where it has one; without a data ECC only a
 * present word proves it): then it was not torn. 1 (the page in page_buf),
 * 0, or a device error. */
static int nk_fs_lost_page_whole(struct nk_fs *fs, uint32_t page)
{
    if (fs->config.tags_place == NK_FS_TAGS_INBAND || !nk_fs_can_check_torn(fs))
        return 0; /* in-band tags fail with their data: nothing is left to read */
    fs->check_suspect = true;
    fs->cached_page = NK_FS_NONE;
    int err = nk_fs_page_load(fs, page);
    fs->check_suspect = false;
    if (err == -NK_EIO)
        return 0;
    if (err)
        return err;
    if (nk_part_ecc_placement(fs->part) == NK_ECC_PLACEMENT_NONE) {
        const uint8_t *w = fs->oob_buf + fs->data_check;
        if ((w[0] & w[1] & w[2] & w[3]) == 0xff)
            return 0; /* no word, no ECC: nothing proves the page whole */
    }
    return 1;
}

/* Whether page_buf holds an object header (a known type, a usable name);
 * then its parent, the object it shadows and its name (NK_FS_NAME_MAX
 * bytes at `name`, when given). A leaf of its own: the decoded header stays
 * off the stack of the reads. */
__attribute__((noinline)) static bool nk_fs_buf_header(const struct nk_fs *fs, uint32_t *parent,
                                                       uint32_t *shadows, uint8_t *name,
                                                       size_t *len)
{
    struct nk_fs_header h;
    nk_fs_header_decode(fs->page_buf, fs->chunk_bytes, false, &h);
    if (h.type < NK_FS_TYPE_FILE || h.type > NK_FS_TYPE_SPECIAL ||
        !nk_fs_name_usable(h.name, h.name_len))
        return false;
    if (name) {
        *parent = h.parent_id;
        *shadows = h.shadows;
        *len = h.name_len;
        memcpy(name, h.name, h.name_len);
    }
    return true;
}

/* Whether the header in page_buf has name `name` of `len` bytes. */
__attribute__((noinline)) static bool nk_fs_buf_header_named(const struct nk_fs *fs,
                                                             const uint8_t *name, size_t len)
{
    struct nk_fs_header h;
    nk_fs_header_decode(fs->page_buf, fs->chunk_bytes, false, &h);
    return h.name_len == len && memcmp(h.name, name, len) == 0;
}

/* For `page`, whose tags failed their code: 1 when it reads whole and holds
 * an object header, 2 when it reads whole and holds anything else (a data
 * chunk): a newer state of an object the mount cannot name. 0 when it does
 * not read whole. */
static int nk_fs_lost_tags_kind(struct nk_fs *fs, uint32_t page)
{
    int whole = nk_fs_lost_page_whole(fs, page);
    if (whole <= 0)
        return whole;
    return nk_fs_buf_header(fs, NULL, NULL, NULL, NULL) ? 1 : 2;
}

/* Whether the chunk at page `a` was written before the one at page `b`. */
static bool nk_fs_page_older(const struct nk_fs *fs, uint32_t a, uint32_t b)
{
    uint32_t block_a = a / fs->pages_per_block, block_b = b / fs->pages_per_block;
    if (block_a == block_b)
        return a < b;
    return fs->block_info[block_a].seq < fs->block_info[block_b].seq;
}

/* `obj` may have a newer state in the header at `page`, which lost its
 * tags: when its own newest header is older, it is stale. Neither block is
 * collected while it is (a copy of its older header would look newer to the
 * next scan than the lost one). */
static void nk_fs_stale_if_older(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t page)
{
    if (!obj || obj->id < NK_FS_OBJ_FIRST_USER || !(obj->flags & NK_FS_OBJ_VALID) ||
        (obj->flags & NK_FS_OBJ_DEAD) || (obj->wflags & NK_FS_W_STALE) ||
        obj->header_page == NK_FS_NONE || !nk_fs_page_older(fs, obj->header_page, page))
        return;
    obj->wflags |= NK_FS_W_STALE;
    fs->block_info[obj->header_page / fs->pages_per_block].flags |= NK_FS_BLK_STUCK;
    fs->block_info[page / fs->pages_per_block].flags |= NK_FS_BLK_STUCK;
    nk_fs_report(fs, NK_FS_PROBLEM_HEADER_STALE, obj->header_page, obj->id, 0, page);
}

/* Whether `tags` may be the true tags of the data chunk at `page`, whose
 * tags failed their code: of the page's block, of a live file, within its
 * size (or just past it, newer than its header: an append whose size only
 * its data told), and newer than the copy the mount took (or than none). */
static struct nk_fs_obj *nk_fs_lost_chunk_owner(struct nk_fs *fs, uint32_t page,
                                                const struct nk_fs_tags *tags)
{
    if (tags->seq != fs->block_info[page / fs->pages_per_block].seq || tags->chunk_id == 0 ||
        tags->n_bytes == 0 || tags->n_bytes > fs->chunk_bytes)
        return NULL;
    struct nk_fs_obj *obj = nk_fs_obj_find(fs, tags->obj_id);
    if (!obj || obj->id < NK_FS_OBJ_FIRST_USER || obj->type != NK_FS_TYPE_FILE ||
        !(obj->flags & NK_FS_OBJ_VALID) || (obj->flags & NK_FS_OBJ_DEAD) ||
        (obj->wflags & NK_FS_W_STALE))
        return NULL;
    uint64_t start = (uint64_t)(tags->chunk_id - 1) * fs->chunk_bytes;
    if (start > obj->size || (start == obj->size && obj->header_page != NK_FS_NONE &&
                              !nk_fs_page_older(fs, obj->header_page, page)))
        return NULL;
    /* A hole within the size reads as an error already on a damaged file
     * system (file.c): only an older copy would be read in its place. */
    uint32_t current = nk_fs_map_get(fs, obj, tags->chunk_id);
    if (current == NK_FS_NONE)
        return start == obj->size ? obj : NULL;
    return nk_fs_page_older(fs, current, page) ? obj : NULL;
}

/* A data chunk that lost its tags (read whole, so not torn) names no file:
 * the file may read an older copy of that chunk in its place. The tags it
 * had are within the two flipped bits the code detects: each tags one bit
 * away that the code then corrects, and that fit (nk_fs_lost_chunk_owner),
 * names a file whose newest state is unknown. It is stale, as for a lost
 * header: reported by name, EIO on access, removable. */
static void nk_fs_settle_lost_chunk(struct nk_fs *fs, uint32_t page, const uint8_t *raw)
{
    uint8_t try[NK_FS_TAGS_BYTES + NK_FS_TAGS_ECC_BYTES];
    for (unsigned bit = 0; bit < 8u * sizeof try; bit++) {
        memcpy(try, raw, sizeof try);
        try[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        struct nk_fs_tags tags;
        if (nk_fs_tags_decode(try, true, &tags) <= 0)
            continue;
        struct nk_fs_obj *obj = nk_fs_lost_chunk_owner(fs, page, &tags);
        if (!obj)
            continue;
        uint32_t current = nk_fs_map_get(fs, obj, tags.chunk_id);
        obj->wflags |= NK_FS_W_STALE;
        if (current != NK_FS_NONE)
            fs->block_info[current / fs->pages_per_block].flags |= NK_FS_BLK_STUCK;
        fs->block_info[page / fs->pages_per_block].flags |= NK_FS_BLK_STUCK;
        nk_fs_report(fs, NK_FS_PROBLEM_CHUNK_STALE, current, obj->id, tags.chunk_id, page);
    }
}

/* A header that lost its tags names no object; it may be a newer state of
 * the one its unchecked tags name, of the one it shadows, and of the one
 * with its parent and name. `name` holds NK_FS_NAME_MAX bytes. */
static int nk_fs_settle_lost_page(struct nk_fs *fs, uint32_t page, bool last, uint8_t *name)
{
    struct nk_fs_tags raw;
    int status = nk_fs_read_tags(fs, page, &raw);
    if (status != -NK_EBADMSG)
        return status < 0 ? status : 0;
    uint8_t stored[NK_FS_TAGS_BYTES + NK_FS_TAGS_ECC_BYTES];
    memcpy(stored, fs->oob_buf + fs->config.tags_offset, sizeof stored);
    nk_fs_tags_decode(stored, false, &raw); /* a hint only */
    uint32_t raw_id = raw.obj_id, parent = 0, shadows = 0;
    size_t len = 0;
    int whole = nk_fs_lost_page_whole(fs, page);
    if (whole <= 0)
        return whole;
    if (!nk_fs_buf_header(fs, &parent, &shadows, name, &len)) {
        if (!last) /* the last page of its block may be a cut program's */
            nk_fs_settle_lost_chunk(fs, page, stored);
        return 0;
    }
    nk_fs_stale_if_older(fs, nk_fs_obj_find(fs, raw_id), page);
    if (shadows)
        nk_fs_stale_if_older(fs, nk_fs_obj_find(fs, shadows), page);
    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (!(obj->flags & NK_FS_OBJ_VALID) || obj->parent_id != parent ||
            obj->header_page == NK_FS_NONE || (obj->wflags & NK_FS_W_STALE))
            continue;
        int err = nk_fs_page_load(fs, obj->header_page);
        if (err && err != -NK_EIO)
            return err;
        if (!err && nk_fs_buf_header_named(fs, name, len))
            nk_fs_stale_if_older(fs, obj, page);
    }
    return 0;
}

/* After the scan: the objects the headers that lost their tags may be newer
 * states of (docs/fs-design.md 7.7, "Tags lost"). */
__attribute__((noinline)) static int nk_fs_settle_lost_tags(struct nk_fs *fs)
{
    uint8_t *name = NULL;
    int err = 0;
    for (uint32_t b = 0; b < fs->blocks && !err; b++) {
        struct nk_fs_block *info = &fs->block_info[b];
        if (!(info->flags & NK_FS_BLK_LOST_TAGS))
            continue;
        info->flags &= (uint8_t)~NK_FS_BLK_LOST_TAGS;
        if (!name && !(name = nk_fs_mem_alloc(fs, NK_FS_NAME_MAX)))
            return nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory for a header's name");
        for (uint32_t p = 0; p < info->written && !err; p++)
            err = nk_fs_settle_lost_page(fs, b * fs->pages_per_block + p, p + 1 == info->written,
                                         name);
    }
    if (name)
        nk_fs_mem_free(fs, name, NK_FS_NAME_MAX);
    return err;
}

bool nk_fs_page_was_cut(const struct nk_fs *fs, uint32_t page)
{
    for (unsigned i = 0; i < fs->cut_count; i++)
        if (fs->cut_pages[i] == page)
            return true;
    return false;
}

/* Whether a block read page by page is what an erase cut by power loss
 * leaves rather than written data: writers program a block's pages in
 * order, so in a block they wrote only the last written page can be torn,
 * and every page with readable tags carries the block's sequence number. An
 * interrupted erase leaves most pages unreadable and the few that decode
 * random (the survey's sequence number came from one of them). So: at least
 * two unreadable pages before the last one, and fewer pages agreeing with
 * the sequence number than unreadable ones; or, in a block of two or more
 * written pages, not one readable page (a program cut short tears only the
 * page it programs). A written block damaged that badly is unusable either
 * way. */
static bool nk_fs_erase_was_cut(const struct nk_fs_scan *scan, uint32_t written, uint32_t seq)
{
    uint32_t bad = 0, agree = 0, readable = 0;
    for (uint32_t p = 0; p < written; p++) {
        const struct nk_fs_page_tags *pt = &scan->pages[p];
        if (pt->state == NK_FS_PAGE_TAGS_BAD && p + 1 < written)
            bad++;
        else if (pt->state == NK_FS_PAGE_OK && pt->tags.seq == seq)
            agree++;
        readable += pt->state == NK_FS_PAGE_OK;
    }
    return (bad >= 2 && agree < bad) || (written >= 2 && readable == 0);
}

static int nk_fs_scan_block(struct nk_fs *fs, struct nk_fs_scan *scan, uint32_t block)
{
    struct nk_fs_block *info = &fs->block_info[block];
    const uint32_t base = block * fs->pages_per_block;
    uint32_t written = 0;
    int used = 0;

    if (fs->summary_chunks && !fs->config.no_summaries) {
        used = nk_fs_read_summary(fs, scan, block);
        if (used < 0)
            return used;
        if (used) {
            written = fs->pages_per_block;
            fs->stats.blocks_from_summary++;
        }
    }
    if (!used) {
        for (uint32_t p = 0; p < fs->pages_per_block; p++) {
            struct nk_fs_page_tags *pt = &scan->pages[p];
            int status = nk_fs_read_tags(fs, base + p, &pt->tags);
            if (status < 0 && status != -NK_EBADMSG)
                return status;
            if (status == NK_FS_TAGS_UNWRITTEN)
                break;
            written = p + 1;
            if (status == -NK_EBADMSG) {
                pt->state = NK_FS_PAGE_TAGS_BAD; /* counted below: torn or damaged */
                continue;
            }
            pt->state = NK_FS_PAGE_OK;
            fs->stats.tags_corrected += status == NK_FS_TAGS_CORRECTED;
        }
        if (nk_fs_erase_was_cut(scan, written, info->seq)) {
            /* What an erase cut by power loss leaves (the survey took the
             * sequence number from a page that decoded by chance): its
             * live data had been moved before the erase began. Junk, counted
             * as torn, not as damage; collected later. */
            info->state = NK_FS_BLOCK_JUNK;
            info->written = (uint16_t)written;
            fs->stats.blocks_in_use--;
            fs->stats.blocks_bad_sequence++;
            fs->stats.torn_chunks++;
            nk_fs_report(fs, NK_FS_PROBLEM_TAGS_ECC, base, 0, 0, 0);
            return 0;
        }
        for (uint32_t p = 0; p < written; p++) {
            if (scan->pages[p].state != NK_FS_PAGE_TAGS_BAD)
                continue;
            scan->pages[p].state = NK_FS_PAGE_BAD;
            int lost = nk_fs_lost_tags_kind(fs, base + p);
            if (lost < 0)
                return lost;
            if (lost == 1 || (lost == 2 && p != written - 1)) {
                /* Whole, so not torn: the newer state of some object. */
                info->flags |= NK_FS_BLK_LOST_TAGS;
                fs->stats.tags_uncorrectable++;
                nk_fs_report(fs, NK_FS_PROBLEM_TAGS_ECC, base + p, 0, 0, 0);
            } else if (p == written - 1) {
                /* The last written page of the block, nothing after it: a
                 * program cut by power loss (its tags went with its data).
                 * Nothing it held was complete, so nothing is lost: reported
                 * as tags failing their code, counted as torn, not damage. */
                fs->stats.torn_chunks++;
                nk_fs_report(fs, NK_FS_PROBLEM_TAGS_ECC, base + p, 0, 0, 0);
            } else {
                fs->stats.tags_uncorrectable++;
                nk_fs_report(fs, NK_FS_PROBLEM_TAGS_ECC, base + p, 0, 0, 0);
            }
        }
        /* Power lost while programming leaves the last written page torn:
         * its tags may look fine while its data is not. */
        struct nk_fs_page_tags *last = written ? &scan->pages[written - 1] : NULL;
        if (last && last->state == NK_FS_PAGE_OK &&
            (nk_fs_can_check_torn(fs) || nk_fs_page_was_cut(fs, base + written - 1))) {
            int err = -NK_EIO; /* a page the recovery found faded: torn */
            if (!nk_fs_page_was_cut(fs, base + written - 1)) {
                fs->check_suspect = true; /* the check word too, where the page has one */
                fs->cached_page = NK_FS_NONE; /* in-band tags left the page cached */
                err = nk_fs_page_load(fs, base + written - 1);
                fs->check_suspect = false;
            }
            /* A header is never all 0xFF (its type word would be): its tags
             * landed and its data did not, which its ECC (all 0xFF too)
             * cannot tell. */
            if (!err && last->tags.chunk_id == 0 && nk_fs_all_ff(fs->page_buf, fs->chunk_bytes))
                err = -NK_EIO;
            if (err == -NK_EIO) {
                last->state = NK_FS_PAGE_BAD;
                fs->stats.torn_chunks++;
                nk_fs_report(fs, NK_FS_PROBLEM_TORN_CHUNK, base + written - 1, last->tags.obj_id,
                             last->tags.chunk_id, 0);
            } else if (err) {
                return err;
            }
        }
    }
    info->written = (uint16_t)written;
    fs->free_chunks += fs->pages_per_block - written;

    for (uint32_t p = written; p-- > 0;) {
        if (scan->pages[p].state != NK_FS_PAGE_OK)
            continue;
        int err = nk_fs_scan_chunk(fs, info->seq, base + p, &scan->pages[p].tags);
        if (err)
            return err;
    }
    return 0;
}

int nk_fs_scan(struct nk_fs *fs, uint32_t surveyed)
{
    struct nk_fs_scan scan;
    memset(&scan, 0, sizeof scan);
    int err = 0;
    for (uint32_t b = surveyed; b < fs->blocks && !err; b++)
        err = nk_fs_survey_block(fs, b);
    if (err)
        return nk_diag_set(&fs->diag, err, "reading block states failed: %s", nk_strerror(err));

    size_t order_bytes =
        (size_t)(fs->stats.blocks_in_use ? fs->stats.blocks_in_use : 1) * sizeof *scan.order;
    size_t pages_bytes = (size_t)fs->pages_per_block * sizeof *scan.pages;
    scan.summary_bytes = (size_t)fs->pages_per_block * NK_FS_SUMMARY_ENTRY;
    scan.order = nk_fs_mem_alloc(fs, order_bytes);
    scan.pages = nk_fs_mem_alloc(fs, pages_bytes);
    scan.summary = nk_fs_mem_alloc(fs, scan.summary_bytes);
    if (!scan.order || !scan.pages || !scan.summary) {
        err = nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory for the scan");
        goto out;
    }
    for (uint32_t b = 0; b < fs->blocks; b++) {
        if (fs->block_info[b].state == NK_FS_BLOCK_IN_USE)
            scan.order[scan.count++] = b;
    }
    nk_fs_sort_blocks(fs, scan.order, scan.count);
    for (uint32_t i = scan.count; i-- > 0 && !err;) {
        memset(scan.pages, 0, pages_bytes);
        err = nk_fs_scan_block(fs, &scan, scan.order[i]);
    }
    if (!err)
        err = nk_fs_settle_lost_tags(fs);
    /* The highest sequence number in use, without blocks found to be an
     * interrupted erase (theirs was read from a page decoding by chance). */
    fs->stats.highest_seq = 0;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state == NK_FS_BLOCK_IN_USE && info->seq > fs->stats.highest_seq)
            fs->stats.highest_seq = info->seq;
    }
    if (err && !fs->diag.text[0])
        nk_diag_set(&fs->diag, err, "scan failed: %s", nk_strerror(err));
out:
    nk_fs_mem_free(fs, scan.summary, scan.summary_bytes);
    nk_fs_mem_free(fs, scan.pages, pages_bytes);
    nk_fs_mem_free(fs, scan.order, order_bytes);
    return err;
}
