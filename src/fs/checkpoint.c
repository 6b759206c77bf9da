/* SPDX-License-Identifier: MIT */
/*
 * nandkit's checkpoint (docs/fs-format.md section 12, docs/fs-design.md
 * section 8): the mounted state written at a clean unmount, by
 * nk_fs_checkpoint() and after nk_fs_format(), so that the next mount skips
 * the scan. It lives in blocks marked as YAFFS2 marks its checkpoint blocks
 * (sequence number NK_FS_SEQ_CHECKPOINT in every page's tags), but its
 * first bytes fail YAFFS2's validity check, so YAFFS2 scans instead.
 *
 * The stream (little-endian):
 *   header       NK_FS_CHECKPOINT_HEADER bytes: magic, version, geometry, counts,
 *                sequence numbers, the checkpoint's own blocks
 *   blocks       NK_FS_CHECKPOINT_BLOCK_REC bytes per partition block
 *   objects      NK_FS_CHECKPOINT_OBJ_REC bytes each, a file's map runs after it
 *                (NK_FS_CHECKPOINT_RUN_REC bytes each: chunk, page, count)
 *   CRC-32       of everything before it
 *
 * The rule that keeps it safe: while a checkpoint is on flash nothing else
 * is programmed or erased. The first write after the mount erases it first
 * (nk_fs_make_room()), and a new one is written only after the old one is
 * erased. A mount that doubts anything scans.
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_CHECKPOINT_MAGIC 0x50434b4eu /* "NKCP" */
#define NK_FS_CHECKPOINT_VERSION 1u
#define NK_FS_CHECKPOINT_HEADER 128u
#define NK_FS_CHECKPOINT_BLOCK_REC 12u
#define NK_FS_CHECKPOINT_OBJ_REC 32u
#define NK_FS_CHECKPOINT_RUN_REC 12u
/* Erases a checkpoint block may be ahead of the least worn. */
#define NK_FS_CHECKPOINT_WEAR_SLACK 16u

/* ----- the stream over checkpoint pages ------------------------------------------------ */

struct nk_fs_checkpoint_io {
    struct nk_fs *fs;
    uint32_t blocks[NK_FS_CHECKPOINT_MAX_BLOCKS];
    uint32_t block_count;
    uint32_t total;  /* stream bytes */
    uint32_t done;   /* stream bytes through so far */
    uint32_t page;   /* index of the current page in the stream */
    uint32_t fill;   /* bytes of the current page used */
    uint32_t filled; /* reading: bytes the current page holds */
    uint32_t crc;
    uint8_t *buf; /* the current page's data */
    int err;      /* first error; writing stops there */
};

static uint32_t nk_fs_checkpoint_page_addr(const struct nk_fs_checkpoint_io *io, uint32_t index)
{
    const struct nk_fs *fs = io->fs;
    return io->blocks[index / fs->pages_per_block] * fs->pages_per_block +
           index % fs->pages_per_block;
}

static void nk_fs_checkpoint_tags(const struct nk_fs_checkpoint_io *io, uint32_t n_bytes,
                                  struct nk_fs_tags *tags)
{
    memset(tags, 0, sizeof *tags);
    tags->seq = NK_FS_SEQ_CHECKPOINT;
    tags->obj_id = NK_FS_OBJ_CHECKPOINT;
    tags->chunk_id = io->page + 1;
    tags->n_bytes = n_bytes;
}

/* Programs the current page (`fill` bytes, the rest 0xFF). */
static void nk_fs_checkpoint_flush(struct nk_fs_checkpoint_io *io)
{
    struct nk_fs *fs = io->fs;
    if (io->err || io->fill == 0)
        return;
    memset(io->buf + io->fill, 0xff, fs->page_size - io->fill);
    struct nk_fs_tags tags;
    nk_fs_checkpoint_tags(io, io->fill, &tags);
    uint8_t *oob = io->buf + fs->page_size;
    nk_fs_chunk_place(&fs->config, fs->page_size, fs->oob_free, &tags, io->buf, oob);
    /* The check word too: an erase of this block cut short can leave tags
     * that decode as a data chunk's, which the word then gives away. */
    if (fs->check_bytes)
        nk_fs_check_stamp(io->buf, fs->check_bytes, oob + fs->data_check);
    io->err = nk_fs_io_program(fs->part, nk_fs_checkpoint_page_addr(io, io->page), io->buf,
                               fs->oob_free ? oob : NULL);
    fs->chunks_programmed++;
    io->page++;
    io->fill = 0;
}

static void nk_fs_checkpoint_put(struct nk_fs_checkpoint_io *io, const uint8_t *p, uint32_t len)
{
    io->crc = nk_fs_crc32(io->crc, p, len);
    while (len && !io->err) {
        uint32_t n = io->fs->chunk_bytes - io->fill;
        if (n > len)
            n = len;
        memcpy(io->buf + io->fill, p, n);
        io->fill += n;
        io->done += n;
        p += n;
        len -= n;
        if (io->fill == io->fs->chunk_bytes)
            nk_fs_checkpoint_flush(io);
    }
}

/* Reads the next stream page. 0, 1 when it is not what the checkpoint
 * wrote (the mount scans), or a device error. The first page also gives
 * the stream's length. */
static int nk_fs_checkpoint_next_page(struct nk_fs_checkpoint_io *io)
{
    struct nk_fs *fs = io->fs;
    if (io->page >= io->block_count * fs->pages_per_block)
        return 1;
    int err = nk_fs_page_read(fs, nk_fs_checkpoint_page_addr(io, io->page), fs->page_buf);
    if (err == -NK_EIO)
        return 1;
    if (err)
        return err;
    struct nk_fs_tags tags;
    int status = nk_fs_tags_from_buffers(fs, &tags);
    if (status < 0 || status == NK_FS_TAGS_UNWRITTEN || tags.seq != NK_FS_SEQ_CHECKPOINT ||
        tags.obj_id != NK_FS_OBJ_CHECKPOINT || tags.chunk_id != io->page + 1 || tags.extra)
        return 1;
    if (io->page == 0) {
        if (tags.n_bytes < NK_FS_CHECKPOINT_HEADER || tags.n_bytes > fs->chunk_bytes)
            return 1;
        io->total = nk_fs_get_le32(io->buf + 8);
        if (io->total < NK_FS_CHECKPOINT_HEADER + 4u)
            return 1;
    }
    uint32_t left = io->total - io->done;
    uint32_t want = left < fs->chunk_bytes ? left : fs->chunk_bytes;
    if (tags.n_bytes != want)
        return 1;
    io->page++;
    io->fill = 0;
    io->filled = want;
    return 0;
}

/* Reads `len` stream bytes into `p`. 0, 1 (not a valid stream) or a device
 * error. */
static int nk_fs_checkpoint_get(struct nk_fs_checkpoint_io *io, uint8_t *p, uint32_t len)
{
    if (len > io->total - io->done)
        return 1;
    while (len) {
        if (io->fill == io->filled) {
            int err = nk_fs_checkpoint_next_page(io);
            if (err)
                return err;
        }
        uint32_t n = io->filled - io->fill;
        if (n > len)
            n = len;
        memcpy(p, io->buf + io->fill, n);
        io->crc = nk_fs_crc32(io->crc, p, n);
        io->fill += n;
        io->done += n;
        p += n;
        len -= n;
    }
    return 0;
}

/* ----- sizing ---------------------------------------------------------------------------- */

/* Whether `obj` goes into the checkpoint: everything a scan would keep. */
static bool nk_fs_checkpoint_keeps(const struct nk_fs_obj *obj)
{
    return !(obj->wflags & NK_FS_W_UNLINKED) && !(obj->flags & NK_FS_OBJ_DEAD) &&
           obj->parent_id != NK_FS_OBJ_UNLINKED && obj->parent_id != NK_FS_OBJ_DELETED;
}

struct nk_fs_checkpoint_runs {
    struct nk_fs_checkpoint_io *io; /* NULL: count only */
    uint32_t runs;
    uint32_t chunk, page, count; /* the run being built */
};

static void nk_fs_checkpoint_run_out(struct nk_fs_checkpoint_runs *r)
{
    if (!r->count)
        return;
    r->runs++;
    if (r->io) {
        uint8_t rec[NK_FS_CHECKPOINT_RUN_REC];
        nk_fs_put_le32(rec, r->chunk);
        nk_fs_put_le32(rec + 4, r->page);
        nk_fs_put_le32(rec + 8, r->count);
        nk_fs_checkpoint_put(r->io, rec, sizeof rec);
    }
    r->count = 0;
}

static int nk_fs_checkpoint_run_fn(void *ctx, uint32_t chunk_id, uint32_t page)
{
    struct nk_fs_checkpoint_runs *r = ctx;
    if (r->count && chunk_id == r->chunk + r->count && page == r->page + r->count) {
        r->count++;
        return 0;
    }
    nk_fs_checkpoint_run_out(r);
    r->chunk = chunk_id;
    r->page = page;
    r->count = 1;
    return 0;
}

static uint32_t nk_fs_checkpoint_file_runs(struct nk_fs *fs, struct nk_fs_obj *obj,
                                           struct nk_fs_checkpoint_io *io)
{
    struct nk_fs_checkpoint_runs r = {.io = io};
    if (obj->type == NK_FS_TYPE_FILE) {
        nk_fs_map_walk(fs, obj, nk_fs_checkpoint_run_fn, &r);
        nk_fs_checkpoint_run_out(&r);
    }
    return r.runs;
}

/* ----- writing ------------------------------------------------------------------------------ */

/* The erased blocks the checkpoint goes to: the lowest-numbered ones (the
 * mount looks for the checkpoint from block 0), among those at most
 * NK_FS_CHECKPOINT_WEAR_SLACK erases ahead of the least worn erased block. */
static int nk_fs_checkpoint_pick(struct nk_fs *fs, struct nk_fs_checkpoint_io *io, uint32_t count)
{
    uint32_t least = 0xffffffffu;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if ((info->state == NK_FS_BLOCK_EMPTY || info->state == NK_FS_BLOCK_ERASED) &&
            info->erases < least)
            least = info->erases;
    }
    io->block_count = 0;
    for (uint32_t b = 0; b < fs->blocks && io->block_count < count; b++) {
        struct nk_fs_block *info = &fs->block_info[b];
        if (info->state != NK_FS_BLOCK_EMPTY && info->state != NK_FS_BLOCK_ERASED)
            continue;
        if (info->erases > least + NK_FS_CHECKPOINT_WEAR_SLACK)
            continue;
        if (info->state == NK_FS_BLOCK_EMPTY) {
            /* Found erased by a mount: its last erase may have been cut. */
            int err = nk_fs_block_erase(fs, b);
            if (err)
                return err;
            if (info->state != NK_FS_BLOCK_ERASED)
                continue; /* retired */
        }
        io->blocks[io->block_count++] = b;
    }
    return io->block_count == count ? 0 : 1;
}

static void nk_fs_checkpoint_put_header(struct nk_fs_checkpoint_io *io, uint32_t objects,
                                        uint32_t runs)
{
    struct nk_fs *fs = io->fs;
    uint8_t h[NK_FS_CHECKPOINT_HEADER];
    memset(h, 0, sizeof h);
    uint32_t highest = 0;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state == NK_FS_BLOCK_IN_USE && info->seq > highest)
            highest = info->seq;
    }
    nk_fs_put_le32(h, NK_FS_CHECKPOINT_MAGIC);
    nk_fs_put_le32(h + 4, NK_FS_CHECKPOINT_VERSION);
    nk_fs_put_le32(h + 8, io->total);
    nk_fs_put_le32(h + 12, fs->blocks);
    nk_fs_put_le32(h + 16, fs->pages_per_block);
    nk_fs_put_le32(h + 20, fs->page_size);
    nk_fs_put_le32(h + 24, fs->chunk_bytes);
    nk_fs_put_le32(h + 28, (uint32_t)fs->config.tags_place | (uint32_t)fs->config.tags_offset << 8 |
                               (uint32_t)fs->config.no_tags_ecc << 24 |
                               (uint32_t)fs->config.no_bad_block_markers << 25);
    nk_fs_put_le32(h + 32, highest);
    nk_fs_put_le32(h + 36, fs->next_seq);
    nk_fs_put_le32(h + 40, fs->next_obj);
    nk_fs_put_le32(h + 44, objects);
    nk_fs_put_le32(h + 48, runs);
    nk_fs_put_le32(h + 52, io->block_count);
    for (uint32_t i = 0; i < NK_FS_CHECKPOINT_MAX_BLOCKS; i++)
        nk_fs_put_le32(h + 64 + 4 * i, i < io->block_count ? io->blocks[i] : NK_FS_NONE);
    nk_fs_checkpoint_put(io, h, sizeof h);
}

static void nk_fs_checkpoint_put_blocks(struct nk_fs_checkpoint_io *io)
{
    struct nk_fs *fs = io->fs;
    for (uint32_t b = 0; b < fs->blocks && !io->err; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        uint8_t rec[NK_FS_CHECKPOINT_BLOCK_REC];
        memset(rec, 0, sizeof rec);
        nk_fs_put_le32(rec, info->seq);
        rec[4] = (uint8_t)info->written;
        rec[5] = (uint8_t)(info->written >> 8);
        rec[6] = (uint8_t)info->erases;
        rec[7] = (uint8_t)(info->erases >> 8);
        rec[8] = info->state;
        rec[9] = (uint8_t)(info->flags &
                           (NK_FS_BLK_KEEP | NK_FS_BLK_SCRUB | NK_FS_BLK_RETIRE | NK_FS_BLK_STUCK));
        nk_fs_checkpoint_put(io, rec, sizeof rec);
    }
}

static void nk_fs_checkpoint_put_objects(struct nk_fs_checkpoint_io *io)
{
    struct nk_fs *fs = io->fs;
    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj && !io->err;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (!nk_fs_checkpoint_keeps(obj))
            continue;
        uint8_t rec[NK_FS_CHECKPOINT_OBJ_REC];
        memset(rec, 0, sizeof rec);
        nk_fs_put_le32(rec, obj->id);
        nk_fs_put_le32(rec + 4, obj->parent_id);
        nk_fs_put_le32(rec + 8, obj->header_page);
        rec[12] = obj->type;
        rec[13] = (uint8_t)(obj->flags & NK_FS_OBJ_ORPHAN);
        nk_fs_put_le32(rec + 16, (uint32_t)obj->size);
        nk_fs_put_le32(rec + 20, (uint32_t)(obj->size >> 32));
        uint32_t extra = 0;
        if (obj->type == NK_FS_TYPE_HARDLINK)
            extra = obj->u.equiv_id;
        else if (obj->type == NK_FS_TYPE_FILE)
            extra = nk_fs_checkpoint_file_runs(fs, obj, NULL);
        nk_fs_put_le32(rec + 24, extra);
        nk_fs_checkpoint_put(io, rec, sizeof rec);
        if (obj->type == NK_FS_TYPE_FILE)
            (void)nk_fs_checkpoint_file_runs(fs, obj, io);
    }
}

int nk_fs_checkpoint_write(struct nk_fs *fs)
{
    if (!fs->mounted || !fs->writable || fs->config.no_checkpoint || fs->checkpoint_valid)
        return 0;
    /* Checkpoint blocks that are not this state (YAFFS2's, or one cut
     * short) go first: only one checkpoint is ever on flash. */
    int err = nk_fs_erase_checkpoints(fs);
    if (err)
        return err;
    uint32_t objects = 0, runs = 0;
    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (obj->wflags & (NK_FS_W_DISPLACED | NK_FS_W_STALE))
            return 0; /* in no directory, or of an unknown state: only a scan finds that again */
        if (!nk_fs_checkpoint_keeps(obj))
            continue;
        objects++;
        runs += nk_fs_checkpoint_file_runs(fs, obj, NULL);
    }
    uint64_t total = NK_FS_CHECKPOINT_HEADER + (uint64_t)fs->blocks * NK_FS_CHECKPOINT_BLOCK_REC +
                     (uint64_t)objects * NK_FS_CHECKPOINT_OBJ_REC +
                     (uint64_t)runs * NK_FS_CHECKPOINT_RUN_REC + 4u;
    uint64_t pages = (total + fs->chunk_bytes - 1) / fs->chunk_bytes;
    uint64_t blocks = (pages + fs->pages_per_block - 1) / fs->pages_per_block;
    if (blocks > NK_FS_CHECKPOINT_MAX_BLOCKS)
        return 0; /* too big: the next mount scans */

    struct nk_fs_checkpoint_io io;
    memset(&io, 0, sizeof io);
    io.fs = fs;
    io.total = (uint32_t)total;
    io.buf = fs->copy_buf;
    err = nk_fs_checkpoint_pick(fs, &io, (uint32_t)blocks);
    if (err)
        return err < 0 ? err : 0; /* no room: the next mount scans */
    for (uint32_t i = 0; i < io.block_count; i++) {
        struct nk_fs_block *info = &fs->block_info[io.blocks[i]];
        info->state = NK_FS_BLOCK_CHECKPOINT;
        info->seq = NK_FS_SEQ_CHECKPOINT;
        info->flags = 0;
        info->written = 0;
        fs->erased_blocks--;
    }
    fs->stats.blocks_checkpoint = io.block_count;
    fs->cached_page = NK_FS_NONE;

    nk_fs_checkpoint_put_header(&io, objects, runs);
    nk_fs_checkpoint_put_blocks(&io);
    nk_fs_checkpoint_put_objects(&io);
    uint8_t crc[4];
    nk_fs_put_le32(crc, io.crc);
    nk_fs_checkpoint_put(&io, crc, sizeof crc);
    nk_fs_checkpoint_flush(&io);
    for (uint32_t i = 0; i < io.block_count; i++) {
        struct nk_fs_block *info = &fs->block_info[io.blocks[i]];
        uint32_t used = io.page - i * fs->pages_per_block;
        info->written = (uint16_t)(used < fs->pages_per_block ? used : fs->pages_per_block);
    }
    if (io.err == -NK_EIO) {
        /* A program failed: no checkpoint; the blocks are erased (or
         * retired) before the next write. */
        return 0;
    }
    if (io.err)
        return io.err;
    if (io.done != io.total)
        return 0;
    fs->checkpoint_valid = true;
    return 0;
}

/* ----- reading ------------------------------------------------------------------------------- */

/* Surveys blocks from 0 up (the scan's step 1, whose results the scan
 * keeps when there is no checkpoint) until the first checkpoint block.
 * Returns 1 and *head when its page 0 starts a nandkit checkpoint, 0 when
 * there is none or the first is not ours (*surveyed: blocks surveyed), or
 * a device error. */
static int nk_fs_checkpoint_find(struct nk_fs *fs, uint32_t *head, uint32_t *surveyed)
{
    for (uint32_t b = 0; b < fs->blocks; b++) {
        int err = nk_fs_survey_block(fs, b);
        if (err)
            return err;
        *surveyed = b + 1;
        if (fs->block_info[b].state != NK_FS_BLOCK_CHECKPOINT)
            continue;
        struct nk_fs_tags tags;
        int status = nk_fs_read_tags(fs, b * fs->pages_per_block, &tags);
        if (status < 0 && status != -NK_EBADMSG)
            return status;
        if (status <= 0 || tags.seq != NK_FS_SEQ_CHECKPOINT ||
            tags.obj_id != NK_FS_OBJ_CHECKPOINT || tags.chunk_id != 1 || tags.extra)
            return 0; /* not the start of ours: the scan goes on from here */
        *head = b;
        return 1;
    }
    return 0;
}

/* Whether the record `rec` of a block before the checkpoint agrees with
 * what the survey saw on flash. */
static bool nk_fs_checkpoint_agrees(const struct nk_fs_block *seen, const struct nk_fs_block *rec)
{
    switch (seen->state) {
    case NK_FS_BLOCK_BAD:
        return rec->state == NK_FS_BLOCK_BAD;
    case NK_FS_BLOCK_EMPTY:
        /* Junk (what a cut erase or program left) may read erased later:
         * still junk, erased before any use. */
        return rec->state == NK_FS_BLOCK_EMPTY || rec->state == NK_FS_BLOCK_ERASED ||
               rec->state == NK_FS_BLOCK_JUNK || rec->state == NK_FS_BLOCK_BAD;
    case NK_FS_BLOCK_IN_USE:
        return rec->state == NK_FS_BLOCK_BAD ||
               ((rec->state == NK_FS_BLOCK_IN_USE || rec->state == NK_FS_BLOCK_JUNK) &&
                rec->seq == seen->seq);
    case NK_FS_BLOCK_JUNK:
        /* No readable tags, or an impossible sequence number. */
        return rec->state == NK_FS_BLOCK_IN_USE || rec->state == NK_FS_BLOCK_JUNK ||
               rec->state == NK_FS_BLOCK_BAD;
    default:
        return false;
    }
}

static int nk_fs_checkpoint_header(struct nk_fs_checkpoint_io *io, uint32_t head, uint32_t *objects,
                                   uint32_t *runs)
{
    struct nk_fs *fs = io->fs;
    uint8_t h[NK_FS_CHECKPOINT_HEADER];
    /* The first page says how long the stream is. */
    io->blocks[0] = head;
    io->block_count = 1;
    int err = nk_fs_checkpoint_next_page(io);
    if (err)
        return err;
    uint32_t total = io->total;
    err = nk_fs_checkpoint_get(io, h, sizeof h);
    if (err)
        return err;
    uint32_t layout = (uint32_t)fs->config.tags_place | (uint32_t)fs->config.tags_offset << 8 |
                      (uint32_t)fs->config.no_tags_ecc << 24 |
                      (uint32_t)fs->config.no_bad_block_markers << 25;
    uint32_t count = nk_fs_get_le32(h + 52);
    uint64_t pages = ((uint64_t)total + fs->chunk_bytes - 1) / fs->chunk_bytes;
    if (nk_fs_get_le32(h) != NK_FS_CHECKPOINT_MAGIC ||
        nk_fs_get_le32(h + 4) != NK_FS_CHECKPOINT_VERSION || nk_fs_get_le32(h + 12) != fs->blocks ||
        nk_fs_get_le32(h + 16) != fs->pages_per_block || nk_fs_get_le32(h + 20) != fs->page_size ||
        nk_fs_get_le32(h + 24) != fs->chunk_bytes || nk_fs_get_le32(h + 28) != layout ||
        count == 0 || count > NK_FS_CHECKPOINT_MAX_BLOCKS || total < NK_FS_CHECKPOINT_HEADER + 4u ||
        (pages + fs->pages_per_block - 1) / fs->pages_per_block != count)
        return 1;
    /* Blocks in increasing order from the one found: whatever a search
     * finds first is the start. */
    for (uint32_t i = 0; i < NK_FS_CHECKPOINT_MAX_BLOCKS; i++) {
        uint32_t b = nk_fs_get_le32(h + 64 + 4 * i);
        if (i >= count) {
            if (b != NK_FS_NONE)
                return 1;
            continue;
        }
        if (b >= fs->blocks || (i == 0 && b != head) || (i > 0 && b <= io->blocks[i - 1]))
            return 1;
        io->blocks[i] = b;
    }
    io->block_count = count;
    uint32_t highest = nk_fs_get_le32(h + 32), next_seq = nk_fs_get_le32(h + 36);
    uint32_t next_obj = nk_fs_get_le32(h + 40);
    if (next_seq < NK_FS_SEQ_LOWEST || next_seq - 1u > NK_FS_SEQ_HIGHEST ||
        (highest && (highest < NK_FS_SEQ_LOWEST || highest >= next_seq)) ||
        next_obj < NK_FS_OBJ_FIRST_USER || next_obj - 1u > NK_FS_OBJ_MAX)
        return 1;
    fs->stats.highest_seq = next_seq - 1u;
    fs->next_obj = next_obj;
    *objects = nk_fs_get_le32(h + 44);
    *runs = nk_fs_get_le32(h + 48);
    uint64_t need = NK_FS_CHECKPOINT_HEADER + (uint64_t)fs->blocks * NK_FS_CHECKPOINT_BLOCK_REC +
                    (uint64_t)*objects * NK_FS_CHECKPOINT_OBJ_REC +
                    (uint64_t)*runs * NK_FS_CHECKPOINT_RUN_REC + 4u;
    if (need != total)
        return 1;
    fs->stats.highest_seq = highest > next_seq - 1u ? highest : next_seq - 1u;
    return 0;
}

static int nk_fs_checkpoint_blocks(struct nk_fs_checkpoint_io *io, uint32_t head)
{
    struct nk_fs *fs = io->fs;
    uint32_t own = 0;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        uint8_t rec[NK_FS_CHECKPOINT_BLOCK_REC];
        int err = nk_fs_checkpoint_get(io, rec, sizeof rec);
        if (err)
            return err;
        struct nk_fs_block r;
        memset(&r, 0, sizeof r);
        r.seq = nk_fs_get_le32(rec);
        r.written = (uint16_t)(rec[4] | rec[5] << 8);
        r.erases = (uint16_t)(rec[6] | rec[7] << 8);
        r.state = rec[8];
        r.flags = rec[9];
        if (rec[10] || rec[11] || r.written > fs->pages_per_block ||
            (r.flags & ~(NK_FS_BLK_KEEP | NK_FS_BLK_SCRUB | NK_FS_BLK_RETIRE | NK_FS_BLK_STUCK)))
            return 1;
        bool listed = false;
        for (uint32_t i = 0; i < io->block_count; i++)
            listed |= io->blocks[i] == b;
        switch (r.state) {
        case NK_FS_BLOCK_CHECKPOINT:
            if (!listed)
                return 1;
            own++;
            break;
        case NK_FS_BLOCK_IN_USE:
            if (r.seq < NK_FS_SEQ_LOWEST || r.seq > fs->stats.highest_seq || r.written == 0)
                return 1;
            break;
        case NK_FS_BLOCK_BAD:
        case NK_FS_BLOCK_EMPTY:
        case NK_FS_BLOCK_ERASED:
            if (r.written)
                return 1;
            break;
        case NK_FS_BLOCK_JUNK:
            break;
        default:
            return 1;
        }
        if (listed && r.state != NK_FS_BLOCK_CHECKPOINT)
            return 1;
        if (b < head && !nk_fs_checkpoint_agrees(&fs->block_info[b], &r))
            return 1; /* the flash says otherwise: doubt */
        fs->block_info[b] = r;
        switch (r.state) {
        case NK_FS_BLOCK_BAD:
            fs->stats.blocks_bad++;
            break;
        case NK_FS_BLOCK_EMPTY:
        case NK_FS_BLOCK_ERASED:
            fs->stats.blocks_empty++;
            fs->free_chunks += fs->pages_per_block;
            break;
        case NK_FS_BLOCK_CHECKPOINT:
            fs->stats.blocks_checkpoint++;
            break;
        case NK_FS_BLOCK_IN_USE:
            fs->stats.blocks_in_use++;
            fs->free_chunks += fs->pages_per_block - r.written;
            break;
        default:
            fs->stats.blocks_bad_sequence++;
            break;
        }
    }
    return own == io->block_count ? 0 : 1;
}

static bool nk_fs_checkpoint_page_ok(const struct nk_fs *fs, uint32_t page)
{
    return page < fs->pages &&
           fs->block_info[page / fs->pages_per_block].state == NK_FS_BLOCK_IN_USE &&
           page % fs->pages_per_block < fs->block_info[page / fs->pages_per_block].written;
}

static int nk_fs_checkpoint_objects(struct nk_fs_checkpoint_io *io, uint32_t objects, uint32_t runs)
{
    struct nk_fs *fs = io->fs;
    uint32_t runs_seen = 0;
    unsigned builtins = 0; /* bit 0: root seen, bit 1: lost+found seen */
    for (uint32_t i = 0; i < objects; i++) {
        uint8_t rec[NK_FS_CHECKPOINT_OBJ_REC];
        int err = nk_fs_checkpoint_get(io, rec, sizeof rec);
        if (err)
            return err;
        uint32_t id = nk_fs_get_le32(rec), parent = nk_fs_get_le32(rec + 4);
        uint32_t hdr = nk_fs_get_le32(rec + 8);
        uint8_t type = rec[12], flags = rec[13];
        uint64_t size = nk_fs_get_le32(rec + 16) | (uint64_t)nk_fs_get_le32(rec + 20) << 32;
        uint32_t extra = nk_fs_get_le32(rec + 24);
        if (id == 0 || id > NK_FS_OBJ_MAX || id >= fs->next_obj ||
            (id >= 3 && id < NK_FS_OBJ_FIRST_USER) || type < NK_FS_TYPE_FILE ||
            type > NK_FS_TYPE_SPECIAL || (flags & ~NK_FS_OBJ_ORPHAN) || rec[14] || rec[15] ||
            (hdr != NK_FS_NONE && !nk_fs_checkpoint_page_ok(fs, hdr)) || parent == 0 ||
            parent > NK_FS_OBJ_MAX || parent == NK_FS_OBJ_UNLINKED || parent == NK_FS_OBJ_DELETED ||
            (type != NK_FS_TYPE_FILE && size) ||
            size > (uint64_t)NK_FS_CHUNK_ID_MAX * fs->chunk_bytes ||
            (type != NK_FS_TYPE_FILE && type != NK_FS_TYPE_HARDLINK && extra) ||
            nk_fs_get_le32(rec + 28))
            return 1;
        struct nk_fs_obj *obj;
        if (id == NK_FS_OBJ_ROOT || id == NK_FS_OBJ_LOST_FOUND) {
            obj = id == NK_FS_OBJ_ROOT ? fs->root : fs->lost_found;
            if (type != NK_FS_TYPE_DIR || (builtins & id) || flags || size || extra)
                return 1;
            builtins |= id;
            if (hdr != NK_FS_NONE) {
                obj->flags |= NK_FS_OBJ_VALID; /* as the scan marks a builtin with a header */
                obj->header_page = hdr;
            }
            continue;
        }
        if (hdr == NK_FS_NONE || nk_fs_obj_find(fs, id))
            return 1;
        obj = nk_fs_obj_get(fs, id);
        if (!obj)
            return -NK_ENOMEM;
        obj->flags = (uint8_t)(NK_FS_OBJ_VALID | flags);
        obj->type = type;
        obj->parent_id = parent;
        obj->header_page = hdr;
        obj->size = size;
        if (type == NK_FS_TYPE_HARDLINK)
            obj->u.equiv_id = extra;
        if (type != NK_FS_TYPE_FILE)
            continue;
        if (extra > runs - runs_seen)
            return 1;
        runs_seen += extra;
        uint32_t last = 0;
        for (uint32_t r = 0; r < extra; r++) {
            uint8_t run[NK_FS_CHECKPOINT_RUN_REC];
            err = nk_fs_checkpoint_get(io, run, sizeof run);
            if (err)
                return err;
            uint32_t chunk = nk_fs_get_le32(run), page = nk_fs_get_le32(run + 4);
            uint32_t count = nk_fs_get_le32(run + 8);
            if (count == 0 || chunk <= last || chunk > NK_FS_CHUNK_ID_MAX ||
                count > NK_FS_CHUNK_ID_MAX - chunk + 1 || page >= fs->pages ||
                count > fs->pages - page)
                return 1;
            for (uint32_t k = 0; k < count; k++) {
                if (!nk_fs_checkpoint_page_ok(fs, page + k))
                    return 1;
                err = nk_fs_map_set(fs, obj, chunk + k, page + k);
                if (err)
                    return err;
            }
            last = chunk + count - 1;
        }
    }
    return runs_seen == runs && builtins == 3u ? 0 : 1;
}

int nk_fs_checkpoint_load(struct nk_fs *fs, uint32_t *surveyed)
{
    uint32_t head = 0;
    *surveyed = 0;
    int err = nk_fs_checkpoint_find(fs, &head, surveyed);
    if (err <= 0)
        return err; /* none: the scan goes on with what the search surveyed */
    /* The records replace what the survey counted. */
    memset(&fs->stats, 0, sizeof fs->stats);
    fs->free_chunks = 0;
    struct nk_fs_checkpoint_io io;
    memset(&io, 0, sizeof io);
    io.fs = fs;
    io.buf = fs->page_buf;
    uint32_t objects = 0, runs = 0;
    err = nk_fs_checkpoint_header(&io, head, &objects, &runs);
    if (!err)
        err = nk_fs_checkpoint_blocks(&io, head);
    if (!err)
        err = nk_fs_checkpoint_objects(&io, objects, runs);
    if (!err) {
        uint32_t crc = io.crc;
        uint8_t stored[4];
        err = nk_fs_checkpoint_get(&io, stored, sizeof stored);
        if (!err && (nk_fs_get_le32(stored) != crc || io.done != io.total))
            err = 1;
    }
    fs->cached_page = NK_FS_NONE;
    if (err == 0) {
        fs->stats.from_checkpoint = 1;
        fs->stats.checkpoint_pages = io.page;
        fs->checkpoint_valid = true;
        return 1;
    }
    if (err < 0 && err != -NK_ENOMEM)
        return err; /* a device error: the mount fails as a scan would */
    /* Anything in doubt: start again from nothing and scan everything. */
    *surveyed = 0;
    return nk_fs_tables_reset(fs);
}
