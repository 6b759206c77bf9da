/* SPDX-License-Identifier: MIT */
/*
 * The writer's flash management: the allocation block, block summaries,
 * erasing, garbage collection with its victim policy, wear, and what
 * happens when the flash fails (docs/fs-design.md, "Writing").
 *
 * Pages are written strictly in order into one allocation block at a time;
 * each block gets the next sequence number, and its last pages hold the
 * summary of the others' tags in YAFFS2's format. Free blocks are erased
 * blocks. A block that the mount found erased is erased once more before
 * its first use (its last erase may have been cut), and a block the mount
 * found partly written is never written again: its live chunks are moved
 * and it is erased.
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_DEFAULT_RESERVE 3u
#define NK_FS_MIN_RESERVE 2u
#define NK_FS_WEAR_INTERVAL 16u /* every n-th collection takes the oldest block */
#define NK_FS_WEAR_SPREAD 8u    /* erase-count spread that moves the least-worn block's data */
#define NK_FS_PROGRAM_RETRIES 4u
#define NK_FS_COLD_GAP 8u /* sequence numbers kept below each allocation block for cold blocks */

static uint32_t nk_fs_data_pages(const struct nk_fs *fs)
{
    return fs->pages_per_block - fs->summary_chunks;
}

static bool nk_fs_page_live(const struct nk_fs *fs, uint32_t page)
{
    return (fs->chunk_bits[page / 32] >> (page % 32)) & 1u;
}

void nk_fs_live_set(struct nk_fs *fs, uint32_t page)
{
    if (nk_fs_page_live(fs, page))
        return;
    fs->chunk_bits[page / 32] |= 1u << (page % 32);
    fs->block_info[page / fs->pages_per_block].live++;
    fs->live_chunks++;
}

void nk_fs_live_clear(struct nk_fs *fs, uint32_t page)
{
    if (page >= fs->pages || !nk_fs_page_live(fs, page))
        return;
    fs->chunk_bits[page / 32] &= ~(1u << (page % 32));
    fs->block_info[page / fs->pages_per_block].live--;
    fs->live_chunks--;
}

void nk_fs_note_scrub(struct nk_fs *fs, uint32_t page)
{
    if (fs->writable && page < fs->pages)
        fs->block_info[page / fs->pages_per_block].flags |= NK_FS_BLK_SCRUB;
}

/* ----- set-up ------------------------------------------------------------------------- */

/* The block a mount from a checkpoint may go on writing: the newest block
 * in use, when it is partly written and holds nothing to move. A
 * checkpoint is written after the last program has completed and stops
 * being valid at the next program, so that block's written pages are whole
 * and the rest is cleanly erased; being the newest, what is written there
 * next is the newest chunk of all. After a scan nothing says the last
 * program was whole: every partly written block stays closed. */
static uint32_t nk_fs_resumable(const struct nk_fs *fs)
{
    uint32_t newest = NK_FS_NONE;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state == NK_FS_BLOCK_IN_USE &&
            (newest == NK_FS_NONE || info->seq > fs->block_info[newest].seq))
            newest = b;
    }
    if (newest == NK_FS_NONE)
        return NK_FS_NONE;
    const struct nk_fs_block *info = &fs->block_info[newest];
    const uint8_t unsafe = NK_FS_BLK_SCRUB | NK_FS_BLK_RETIRE | NK_FS_BLK_STUCK |
                           NK_FS_BLK_LISTED | NK_FS_BLK_LOST_TAGS;
    if (info->written == 0 || info->written >= nk_fs_data_pages(fs) || (info->flags & unsafe) ||
        info->seq >= fs->next_seq)
        return NK_FS_NONE;
    return newest;
}

int nk_fs_write_init(struct nk_fs *fs)
{
    uint32_t per_block = nk_fs_data_pages(fs);
    size_t sum_bytes = (size_t)fs->pages_per_block * NK_FS_SUMMARY_ENTRY;
    fs->wbuf = nk_fs_mem_alloc(fs, fs->page_size);
    fs->copy_buf = nk_fs_mem_alloc(fs, (size_t)fs->page_size + fs->oob_free + 1);
    fs->sum_buf = nk_fs_mem_alloc(fs, sum_bytes);
    fs->cold_sum = nk_fs_mem_alloc(fs, sum_bytes);
    fs->edits = nk_fs_mem_alloc(fs, NK_FS_EDIT_SLOTS * sizeof *fs->edits);
    fs->edit_depth = 0;
    fs->stuck_capacity = 2u * fs->pages_per_block;
    fs->stuck_count = 0;
    fs->stuck_ids = nk_fs_mem_alloc(fs, (size_t)fs->stuck_capacity * sizeof *fs->stuck_ids);
    if (!fs->wbuf || !fs->copy_buf || !fs->sum_buf || !fs->cold_sum || !fs->edits ||
        !fs->stuck_ids)
        return nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory for the write buffers");
    fs->writable = true;
    fs->alloc_block = NK_FS_NONE;
    fs->cold_block = NK_FS_NONE;
    fs->gap_valid = false;
    fs->gc_cold = false;
    fs->next_seq =
        fs->stats.highest_seq >= NK_FS_SEQ_LOWEST ? fs->stats.highest_seq + 1 : NK_FS_SEQ_LOWEST;
    if (fs->next_obj < NK_FS_OBJ_FIRST_USER)
        fs->next_obj = NK_FS_OBJ_FIRST_USER;
    fs->reserve = fs->config.reserve_blocks ? fs->config.reserve_blocks : NK_FS_DEFAULT_RESERVE;
    if (fs->reserve < NK_FS_MIN_RESERVE)
        fs->reserve = NK_FS_MIN_RESERVE;
    fs->live_chunks = 0;
    fs->usable_chunks = 0;
    fs->erased_blocks = 0;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        struct nk_fs_block *info = &fs->block_info[b];
        fs->live_chunks += info->live;
        if (info->state == NK_FS_BLOCK_BAD)
            continue;
        fs->usable_chunks += per_block;
        if (info->state == NK_FS_BLOCK_EMPTY || info->state == NK_FS_BLOCK_ERASED)
            fs->erased_blocks++; /* ERASED: a checkpoint says its erase completed */
        else
            info->flags |= NK_FS_BLK_CLOSED; /* partly written ones too: never written again */
    }
    for (uint32_t b = 0; b < fs->blocks; b++) {
        int err = (fs->block_info[b].flags & NK_FS_BLK_STUCK) ? nk_fs_list_stuck(fs, b) : 0;
        if (err)
            return err;
    }
    fs->resume_block = fs->stats.from_checkpoint ? nk_fs_resumable(fs) : NK_FS_NONE;
    return 0;
}

bool nk_fs_stuck_has(const struct nk_fs *fs, uint32_t obj_id)
{
    for (uint32_t i = 0; i < fs->stuck_count; i++)
        if (fs->stuck_ids[i] == obj_id)
            return true;
    return false;
}

int nk_fs_list_stuck(struct nk_fs *fs, uint32_t block)
{
    struct nk_fs_block *info = &fs->block_info[block];
    if (info->flags & NK_FS_BLK_LISTED)
        return 0;
    uint32_t kept = fs->stuck_count;
    for (uint32_t p = 0; p < info->written; p++) {
        struct nk_fs_tags tags;
        int status = nk_fs_read_tags(fs, block * fs->pages_per_block + p, &tags);
        if (status == -NK_EBADMSG || status == NK_FS_TAGS_UNWRITTEN)
            continue; /* nothing a mount could take from it */
        if (status < 0)
            return status;
        if (tags.obj_id < NK_FS_OBJ_FIRST_USER || tags.obj_id > NK_FS_OBJ_MAX)
            continue;
        const struct nk_fs_obj *obj = nk_fs_obj_find(fs, tags.obj_id);
        if (obj && obj->type == NK_FS_TYPE_FILE && tags.chunk_id > 0 &&
            (uint64_t)(tags.chunk_id - 1) * fs->chunk_bytes < obj->size &&
            nk_fs_map_get(fs, obj, tags.chunk_id) == NK_FS_NONE) {
            /* An old chunk in a hole of a live file: only the shrink header
             * that made the hole keeps it dead, and only the oldest-block
             * rule keeps that header. The block goes on holding it back. */
            fs->stuck_count = kept;
            return 0;
        }
        if (nk_fs_stuck_has(fs, tags.obj_id))
            continue;
        if (fs->stuck_count == fs->stuck_capacity) {
            /* No room: the block keeps holding the oldest-block rule back. */
            fs->stuck_count = kept;
            return 0;
        }
        fs->stuck_ids[fs->stuck_count++] = tags.obj_id;
    }
    info->flags |= NK_FS_BLK_LISTED;
    /* Never erased again: its pages are not space a write can use. */
    uint32_t lost = nk_fs_data_pages(fs) - (info->live < nk_fs_data_pages(fs) ? info->live : 0u);
    fs->usable_chunks = fs->usable_chunks > lost ? fs->usable_chunks - lost : 0;
    return 0;
}

void nk_fs_write_release(struct nk_fs *fs)
{
    nk_fs_mem_free(fs, fs->edits, NK_FS_EDIT_SLOTS * sizeof *fs->edits);
    fs->edits = NULL;
    nk_fs_mem_free(fs, fs->stuck_ids, (size_t)fs->stuck_capacity * sizeof *fs->stuck_ids);
    fs->stuck_ids = NULL;
    fs->stuck_count = 0;
    nk_fs_mem_free(fs, fs->cold_sum, (size_t)fs->pages_per_block * NK_FS_SUMMARY_ENTRY);
    nk_fs_mem_free(fs, fs->sum_buf, (size_t)fs->pages_per_block * NK_FS_SUMMARY_ENTRY);
    nk_fs_mem_free(fs, fs->copy_buf, (size_t)fs->page_size + fs->oob_free + 1);
    nk_fs_mem_free(fs, fs->wbuf, fs->page_size);
    fs->cold_sum = fs->sum_buf = fs->copy_buf = fs->wbuf = NULL;
    fs->writable = false;
}

/* ----- erasing and retiring -------------------------------------------------------------- */

static void nk_fs_block_gone(struct nk_fs *fs, uint32_t block)
{
    struct nk_fs_block *info = &fs->block_info[block];
    if (info->state == NK_FS_BLOCK_EMPTY || info->state == NK_FS_BLOCK_ERASED)
        fs->erased_blocks--;
    if (info->state != NK_FS_BLOCK_BAD)
        fs->usable_chunks -= nk_fs_data_pages(fs);
    info->state = NK_FS_BLOCK_BAD;
    info->flags = 0;
    fs->blocks_retired++;
    fs->stats.blocks_bad++;
}

/* Takes `block` out of service: the bad-block layer marks it (marker and
 * table). A block that failed a program is erased first (as YAFFS2 does),
 * so that the marker lands on an erased page and no stale chunk of it is
 * read again. Without markers (mkyaffs2) and without a table it is only
 * left alone until the next mount. */
static void nk_fs_retire(struct nk_fs *fs, uint32_t block, bool erase_first)
{
    if (erase_first) {
        fs->cached_page = NK_FS_NONE;
        (void)nk_fs_io_erase(fs->part, block);
    }
    if (!fs->config.no_bad_block_markers || nk_fs_io_tracks_bad_blocks(fs->part))
        (void)nk_fs_io_mark_bad(fs->part, block);
    nk_fs_block_gone(fs, block);
}

/* Erases `block` (no live data in it). 0, or a device error other than
 * an erase failure (which retires the block and returns 0). */
static int nk_fs_erase(struct nk_fs *fs, uint32_t block)
{
    struct nk_fs_block *info = &fs->block_info[block];
    fs->cached_page = NK_FS_NONE;
    int err = nk_fs_io_erase(fs->part, block);
    fs->erases++;
    if (info->erases < 0xffffu)
        info->erases++;
    if (err == -NK_EIO) {
        nk_fs_retire(fs, block, false);
        return 0;
    }
    if (err)
        return err;
    if (info->state != NK_FS_BLOCK_EMPTY && info->state != NK_FS_BLOCK_ERASED)
        fs->erased_blocks++;
    info->state = NK_FS_BLOCK_ERASED;
    info->seq = 0;
    info->written = 0;
    info->flags = 0;
    return 0;
}

/* ----- allocation ------------------------------------------------------------------------- */

/* Two blocks may be open: the allocation block (hot: everything but
 * collection copies) and the cold block (what a collection copies). The
 * mount takes, of two copies of a chunk, the one in the block with the
 * higher sequence number, so the numbers are handed out such that
 *
 *   (a) the allocation block's number is above every other block's: a
 *       write there is the newest chunk of all, as with one open block;
 *   (b) a cold block's number is above that of every block closed when it
 *       opened, and a collection never copies out of a block numbered above
 *       the cold block (the cold block is closed first): a copy is newer
 *       than its original, and older only than what the allocation block
 *       holds, which is newer than the original too.
 *
 * Each allocation block opens NK_FS_COLD_GAP numbers above the highest
 * used, the gap below it left for cold blocks. A cold block needing a
 * number when the gap is used up (or belongs to an allocation block
 * already closed) opens a fresh gap above everything, closing the
 * allocation block first (partly written: its unwritten pages count as
 * dead). tests/test_fs_write.c checks the rule against a mount after
 * every collection. */

static uint32_t *nk_fs_open_of(struct nk_fs *fs, bool cold)
{
    return cold ? &fs->cold_block : &fs->alloc_block;
}

static uint32_t *nk_fs_next_page_of(struct nk_fs *fs, bool cold)
{
    return cold ? &fs->cold_page : &fs->alloc_page;
}

static uint8_t *nk_fs_sum_of(struct nk_fs *fs, bool cold)
{
    return cold ? fs->cold_sum : fs->sum_buf;
}

/* Whether collections copy into the cold block (the default policy). */
static bool nk_fs_separating(const struct nk_fs *fs)
{
    return !fs->config.gc_greedy;
}

/* The erased block to write next: the least worn for written data, the
 * most worn for a cold block (copied data is rewritten least: it lets a
 * worn block rest). */
static uint32_t nk_fs_pick_erased(const struct nk_fs *fs, bool cold)
{
    uint32_t best = NK_FS_NONE;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state != NK_FS_BLOCK_EMPTY && info->state != NK_FS_BLOCK_ERASED)
            continue;
        if (best == NK_FS_NONE || (cold ? info->erases > fs->block_info[best].erases
                                        : info->erases < fs->block_info[best].erases))
            best = b;
    }
    return best;
}

/* Closes an open block before it is full (no summary: a mount reads it page
 * by page; its unwritten pages count as dead until it is collected). An
 * open block with nothing written goes back to the erased ones. */
static void nk_fs_close_early(struct nk_fs *fs, bool cold)
{
    uint32_t *open = nk_fs_open_of(fs, cold);
    if (*open == NK_FS_NONE)
        return;
    struct nk_fs_block *info = &fs->block_info[*open];
    if (info->written == 0) {
        info->state = NK_FS_BLOCK_ERASED;
        info->seq = 0;
        info->flags = 0;
        fs->erased_blocks++;
    } else {
        info->flags |= NK_FS_BLK_CLOSED;
    }
    *open = NK_FS_NONE;
    if (!cold)
        fs->gap_valid = false;
}

/* Keeps NK_FS_COLD_GAP sequence numbers above every block for cold blocks. */
static void nk_fs_new_gap(struct nk_fs *fs)
{
    fs->gap_next = fs->next_seq;
    fs->gap_end = fs->next_seq + NK_FS_COLD_GAP;
    fs->next_seq = fs->gap_end;
    fs->gap_valid = true;
}

/* Opens `block`, the one nk_fs_resumable() chose, as the allocation block
 * at its first unwritten page, when it is still the newest block in use and
 * the tags of its written pages read back (the summary at its close needs
 * them). Returns true when it is open. */
static bool nk_fs_resume(struct nk_fs *fs, uint32_t block)
{
    struct nk_fs_block *info = &fs->block_info[block];
    if (info->state != NK_FS_BLOCK_IN_USE || info->seq + 1u != fs->next_seq ||
        info->written >= nk_fs_data_pages(fs))
        return false;
    uint8_t *sum = fs->sum_buf;
    memset(sum, 0, (size_t)fs->pages_per_block * NK_FS_SUMMARY_ENTRY);
    for (uint32_t p = 0; p < info->written; p++) {
        struct nk_fs_tags tags;
        int status = nk_fs_read_tags(fs, block * fs->pages_per_block + p, &tags);
        if (status <= 0 || tags.seq != info->seq)
            return false; /* unreadable: the block stays closed */
        nk_fs_summary_entry(&tags, sum + (size_t)p * NK_FS_SUMMARY_ENTRY);
    }
    info->flags &= (uint8_t)~NK_FS_BLK_CLOSED;
    fs->alloc_block = block;
    fs->alloc_page = info->written;
    return true;
}

static int nk_fs_open_block(struct nk_fs *fs, bool cold)
{
    if (fs->stats.blocks_checkpoint) {
        /* Every write erases the checkpoint first (nk_fs_make_room());
         * this keeps it so for any path to a first program. */
        int err = nk_fs_erase_checkpoints(fs);
        if (err)
            return err;
    }
    /* Only the first block a mount opens may be the one it resumes: a cold
     * block opens a gap of sequence numbers above it. */
    uint32_t resume = fs->resume_block;
    fs->resume_block = NK_FS_NONE;
    if (!cold && resume != NK_FS_NONE && nk_fs_resume(fs, resume))
        return 0;
    for (;;) {
        uint32_t block = nk_fs_pick_erased(fs, cold);
        if (block == NK_FS_NONE)
            return nk_diag_set(&fs->diag, -NK_ENOSPC, "no erased block left");
        struct nk_fs_block *info = &fs->block_info[block];
        if (info->state == NK_FS_BLOCK_EMPTY) {
            /* Found erased by the mount: its last erase may have been cut. */
            int err = nk_fs_erase(fs, block);
            if (err)
                return err;
            if (info->state != NK_FS_BLOCK_ERASED)
                continue; /* retired */
        }
        if (fs->next_seq > NK_FS_SEQ_HIGHEST - NK_FS_COLD_GAP - 1u)
            return nk_diag_set(&fs->diag, -NK_ENOSPC, "sequence numbers exhausted");
        uint32_t seq;
        if (cold) {
            if (!fs->gap_valid || fs->gap_next >= fs->gap_end) {
                nk_fs_close_early(fs, false); /* (a): it would be below the new gap */
                nk_fs_new_gap(fs);
            }
            seq = fs->gap_next++;
        } else {
            if (nk_fs_separating(fs) && !fs->gap_valid)
                nk_fs_new_gap(fs);
            seq = fs->next_seq++;
        }
        info->state = NK_FS_BLOCK_IN_USE;
        info->seq = seq;
        info->written = 0;
        info->flags = 0;
        info->live = 0;
        fs->erased_blocks--;
        *nk_fs_open_of(fs, cold) = block;
        *nk_fs_next_page_of(fs, cold) = 0;
        memset(nk_fs_sum_of(fs, cold), 0, (size_t)fs->pages_per_block * NK_FS_SUMMARY_ENTRY);
        return 0;
    }
}

/* Programs one page of the open block. 0, -NK_EIO (program failure: the
 * block is given up), or a device error. */
static int nk_fs_program(struct nk_fs *fs, bool cold, const struct nk_fs_tags *tags, uint8_t *page)
{
    uint8_t *oob = fs->copy_buf + fs->page_size;
    nk_fs_chunk_place(&fs->config, fs->page_size, fs->oob_free, tags, page, oob);
    if (fs->check_bytes)
        nk_fs_check_stamp(page, fs->check_bytes, oob + fs->data_check);
    uint32_t block = *nk_fs_open_of(fs, cold);
    uint32_t *next = nk_fs_next_page_of(fs, cold);
    uint32_t at = block * fs->pages_per_block + *next;
    /* A GC copy of an unchanged page goes by copy-back where the chip allows. */
    bool moved = fs->move_pending;
    fs->move_pending = false;
    int err = moved ? nk_part_program_moved(fs->part, fs->move_from, at, page,
                                            fs->oob_free ? oob : NULL, NK_OOB_AUTO)
                    : nk_fs_io_program(fs->part, at, page, fs->oob_free ? oob : NULL);
    fs->chunks_programmed++;
    fs->block_info[block].written = (uint16_t)(*next + 1);
    (*next)++;
    return err;
}

/* Writes the summary into the last pages of the full open block and closes
 * it. */
static int nk_fs_close_block(struct nk_fs *fs, bool cold)
{
    uint32_t block = *nk_fs_open_of(fs, cold);
    struct nk_fs_block *info = &fs->block_info[block];
    uint32_t covered = nk_fs_data_pages(fs);
    int err = 0;
    for (uint32_t i = 0; i < fs->summary_chunks && !err; i++) {
        struct nk_fs_tags tags;
        nk_fs_summary_chunk(i, nk_fs_sum_of(fs, cold), covered, fs->chunk_bytes, block, info->seq,
                            fs->copy_buf, &tags);
        err = nk_fs_program(fs, cold, &tags, fs->copy_buf);
    }
    if (err == -NK_EIO) {
        info->flags |= NK_FS_BLK_RETIRE;
        err = 0;
    }
    /* Closed even when the device failed otherwise (power gone): its data
     * pages are full, and a block without its summary is read page by
     * page. A later call must not program past its end. */
    info->flags |= NK_FS_BLK_CLOSED;
    *nk_fs_open_of(fs, cold) = NK_FS_NONE;
    if (!cold)
        fs->gap_valid = false;
    return err;
}

/* Where the next chunk goes: the cold block while a collection copies (the
 * allocation block when no cold block can open: a copy is newest there). */
static bool nk_fs_want_cold(struct nk_fs *fs)
{
    if (!fs->gc_cold || !nk_fs_separating(fs))
        return false;
    if (fs->cold_block != NK_FS_NONE)
        return true;
    return fs->erased_blocks > 1; /* one stays for the allocation block */
}

int64_t nk_fs_put_chunk(struct nk_fs *fs, struct nk_fs_tags *tags, uint8_t *page)
{
    for (uint32_t attempt = 0; attempt < NK_FS_PROGRAM_RETRIES; attempt++) {
        bool cold = nk_fs_want_cold(fs);
        uint32_t *open = nk_fs_open_of(fs, cold);
        if (*open == NK_FS_NONE) {
            int err = nk_fs_open_block(fs, cold);
            if (err)
                return err;
        }
        uint32_t block = *open;
        uint32_t *next = nk_fs_next_page_of(fs, cold);
        struct nk_fs_block *info = &fs->block_info[block];
        tags->seq = info->seq;
        uint32_t at = block * fs->pages_per_block + *next;
        uint32_t index = *next;
        int err = nk_fs_program(fs, cold, tags, page);
        if (err == -NK_EIO) {
            /* The block failed: what it holds moves before it is retired;
             * the chunk goes to a fresh block. */
            info->flags |= NK_FS_BLK_RETIRE | NK_FS_BLK_CLOSED;
            *open = NK_FS_NONE;
            if (!cold)
                fs->gap_valid = false;
            continue;
        }
        if (err)
            return err;
        nk_fs_summary_entry(tags, nk_fs_sum_of(fs, cold) + (size_t)index * NK_FS_SUMMARY_ENTRY);
        if (tags->chunk_id == 0 && tags->extra &&
            (tags->extra_shrink || tags->extra_shadows ||
             tags->extra_parent_id == NK_FS_OBJ_UNLINKED ||
             tags->extra_parent_id == NK_FS_OBJ_DELETED))
            info->flags |= NK_FS_BLK_KEEP;
        else if (tags->chunk_id == 0 && !tags->extra)
            info->flags |= NK_FS_BLK_KEEP; /* a plain header: its flags are not in the tags */
        if (*next >= nk_fs_data_pages(fs)) {
            err = nk_fs_close_block(fs, cold);
            if (err)
                return err;
        }
        return at;
    }
    return nk_diag_set(&fs->diag, -NK_EIO, "%u blocks in a row failed to program",
                       (unsigned)NK_FS_PROGRAM_RETRIES);
}

int nk_fs_put_run(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t first_chunk,
                  const uint8_t *data, uint32_t count)
{
    if (fs->config.tags_place != NK_FS_TAGS_OOB || fs->oob_free == 0 ||
        fs->chunk_bytes != fs->page_size)
        return 0;
    uint32_t limit = NK_FS_RUN_OOB / fs->oob_free;
    if (count > limit)
        count = limit;
    if (count > NK_FS_RUN_PAGES)
        count = NK_FS_RUN_PAGES;
    uint32_t new_live = 0;
    for (uint32_t i = 0; i < count; i++)
        if (nk_fs_map_get(fs, obj, first_chunk + i) == NK_FS_NONE)
            new_live++;
    int err = nk_fs_make_room(fs, count, new_live, false);
    if (err == -NK_ENOSPC)
        return 0; /* chunk by chunk, the write ends exactly at the space */
    if (err)
        return err;
    if (fs->alloc_block == NK_FS_NONE) {
        err = nk_fs_open_block(fs, false);
        if (err)
            return err;
    }
    uint32_t room = nk_fs_data_pages(fs) - fs->alloc_page;
    if (count > room)
        count = room;
    if (count < 2)
        return 0; /* one page: the write buffer's path */
    uint32_t block = fs->alloc_block;
    struct nk_fs_block *info = &fs->block_info[block];
    uint32_t at = block * fs->pages_per_block + fs->alloc_page;
    uint8_t *oob = fs->oob_buf;
    fs->cached_page = NK_FS_NONE; /* oob_buf changes */
    struct nk_fs_tags tags[NK_FS_RUN_PAGES];
    for (uint32_t i = 0; i < count; i++) {
        memset(&tags[i], 0, sizeof tags[i]);
        tags[i].obj_id = obj->id;
        tags[i].chunk_id = first_chunk + i;
        tags[i].n_bytes = fs->chunk_bytes;
        tags[i].seq = info->seq;
        nk_fs_chunk_place(&fs->config, fs->page_size, fs->oob_free, &tags[i], NULL,
                          oob + (size_t)i * fs->oob_free);
        if (fs->check_bytes)
            nk_fs_check_stamp(data + (size_t)i * fs->page_size, fs->check_bytes,
                              oob + (size_t)i * fs->oob_free + fs->data_check);
    }
    /* Returns once the last page (sent with 10h) is programmed: a power cut
     * before that loses at most the two pages last sent, none reported
     * written yet; the block's last written page is then the torn one, as
     * after a cut single-page program. */
    err = nk_part_program_pages(fs->part, at, count, data, oob, NK_OOB_AUTO);
    fs->chunks_programmed += count;
    info->written = (uint16_t)(fs->alloc_page + count);
    if (err == -NK_EIO) {
        /* The block failed: it is given up, the chunks go the single-page
         * way to a fresh block. */
        fs->alloc_page += count;
        info->flags |= NK_FS_BLK_RETIRE | NK_FS_BLK_CLOSED;
        fs->alloc_block = NK_FS_NONE;
        fs->gap_valid = false;
        return 0;
    }
    if (err)
        return err;
    for (uint32_t i = 0; i < count; i++) {
        nk_fs_summary_entry(&tags[i],
                            fs->sum_buf + (size_t)(fs->alloc_page + i) * NK_FS_SUMMARY_ENTRY);
        uint32_t old = nk_fs_map_get(fs, obj, first_chunk + i);
        err = nk_fs_map_set(fs, obj, first_chunk + i, at + i);
        if (err)
            return err;
        if (old != NK_FS_NONE)
            nk_fs_live_clear(fs, old);
        nk_fs_live_set(fs, at + i);
    }
    fs->alloc_page += count;
    if (fs->alloc_page >= nk_fs_data_pages(fs)) {
        err = nk_fs_close_block(fs, false);
        if (err)
            return err;
    }
    return (int)count;
}

/* ----- garbage collection ------------------------------------------------------------------ */

/* Lowest sequence number among blocks in use. */
static uint32_t nk_fs_oldest(const struct nk_fs *fs)
{
    uint32_t best = NK_FS_NONE;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state != NK_FS_BLOCK_IN_USE || b == fs->alloc_block || b == fs->cold_block ||
            (info->flags & NK_FS_BLK_LISTED))
            continue;
        if (best == NK_FS_NONE || info->seq < fs->block_info[best].seq)
            best = b;
    }
    return best;
}

static bool nk_fs_collectable(const struct nk_fs *fs, uint32_t b, uint32_t oldest)
{
    const struct nk_fs_block *info = &fs->block_info[b];
    if (b == fs->alloc_block || b == fs->cold_block || (info->flags & NK_FS_BLK_STUCK))
        return false;
    if (info->state == NK_FS_BLOCK_CHECKPOINT || info->state == NK_FS_BLOCK_JUNK)
        return true;
    if (info->state != NK_FS_BLOCK_IN_USE)
        return false;
    /* A block whose headers cut off older data goes only when no older
     * block can hold such data (YAFFS2's rule). */
    return !(info->flags & NK_FS_BLK_KEEP) || b == oldest;
}

/* Pages that can be programmed without collecting (the cold block's are
 * for copies only). */
static uint64_t nk_fs_free_pages(const struct nk_fs *fs)
{
    uint64_t free = (uint64_t)fs->erased_blocks * nk_fs_data_pages(fs);
    if (fs->alloc_block != NK_FS_NONE)
        free += nk_fs_data_pages(fs) - fs->alloc_page;
    return free;
}

/* The victim: blocks to retire or scrub first; then junk; then the best
 * cost-benefit score (dead space weighted by age: (1 - u) * age / (1 + u),
 * u the live fraction) among blocks with dead chunks; every
 * NK_FS_WEAR_INTERVAL-th collection, or when nothing else frees space, the
 * oldest block (static wear levelling, and the way KEEP blocks come free). */
static uint32_t nk_fs_pick_victim(struct nk_fs *fs, bool *urgent, bool wear_ok, bool *wear)
{
    uint32_t oldest = nk_fs_oldest(fs);
    *urgent = false;
    *wear = false;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state == NK_FS_BLOCK_IN_USE && nk_fs_collectable(fs, b, oldest) &&
            (info->flags & (NK_FS_BLK_RETIRE | NK_FS_BLK_SCRUB)) &&
            info->live <= nk_fs_free_pages(fs)) {
            *urgent = true;
            return b;
        }
    }
    uint32_t best = NK_FS_NONE;
    uint64_t best_score = 0;
    const uint32_t per_block = nk_fs_data_pages(fs);
    /* A victim's live chunks must fit where copies can go: with no erased
     * block left, only a block with nothing live can be collected (erased
     * at once), never one whose copies would find no page. */
    uint64_t room = nk_fs_free_pages(fs);
    if (fs->cold_block != NK_FS_NONE)
        room += per_block - fs->cold_page;
    uint32_t most_erases = 0, youngest = NK_FS_NONE;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state != NK_FS_BLOCK_BAD && info->erases > most_erases)
            most_erases = info->erases;
        if (!nk_fs_collectable(fs, b, oldest))
            continue;
        if (info->state == NK_FS_BLOCK_IN_USE && info->live > room)
            continue;
        if (info->state == NK_FS_BLOCK_IN_USE &&
            (youngest == NK_FS_NONE || info->erases < fs->block_info[youngest].erases))
            youngest = b;
        if (info->state != NK_FS_BLOCK_IN_USE)
            return b; /* junk or checkpoint: nothing to copy */
        if (info->live >= per_block)
            continue;
        uint64_t dead = per_block - info->live;
        uint64_t age = fs->next_seq - info->seq;
        uint64_t score = fs->config.gc_greedy
                             ? dead
                             : (dead * 1024u * (age + fs->blocks)) / (per_block + info->live);
        if (best == NK_FS_NONE || score > best_score) {
            best = b;
            best_score = score;
        }
    }
    /* Static wear levelling: data sitting on a block erased far less than
     * the most worn one is cold; it moves (to the most worn erased block,
     * as a cold block), and the young block goes back to the erased ones. */
    if (wear_ok && !fs->config.gc_greedy && youngest != NK_FS_NONE &&
        most_erases - fs->block_info[youngest].erases >= NK_FS_WEAR_SPREAD) {
        *wear = true;
        return youngest;
    }
    if (oldest != NK_FS_NONE && fs->block_info[oldest].live <= room &&
        (best == NK_FS_NONE || (!fs->config.gc_greedy && ++fs->gc_rotate >= NK_FS_WEAR_INTERVAL))) {
        fs->gc_rotate = 0;
        return oldest;
    }
    return best;
}

static int nk_fs_gc_copy_data(struct nk_fs *fs, uint32_t page, const struct nk_fs_tags *tags)
{
    struct nk_fs_obj *obj = nk_fs_obj_find(fs, tags->obj_id);
    if (!obj || nk_fs_map_get(fs, obj, tags->chunk_id) != page) {
        nk_fs_live_clear(fs, page); /* not the live copy after all */
        return 0;
    }
    if (fs->wbuf_dirty && fs->wbuf_obj == obj && fs->wbuf_chunk == tags->chunk_id) {
        /* A newer version waits in the write buffer, and the file's size
         * already counts it: that version moves. The old one, copied newer
         * than the file's header, would give a mount after a cut its bytes
         * up to that size. */
        return nk_fs_wbuf_program(fs);
    }
    struct nk_fs_tags t = *tags;
    t.extra = false;
    /* After a truncate inside this chunk its old bytes past the end are
     * still on flash: the copy, newer than the truncating header, must not
     * carry them (a newer chunk's length extends the file at the next
     * mount). */
    uint64_t start = (uint64_t)(tags->chunk_id - 1) * fs->chunk_bytes;
    uint64_t valid = obj->size > start ? obj->size - start : 0;
    if (valid < t.n_bytes) {
        t.n_bytes = (uint32_t)valid;
        memset(fs->copy_buf + valid, 0, fs->chunk_bytes - (uint32_t)valid);
    }
    /* Data unchanged and tags in the OOB: copy-back may carry the page. */
    fs->move_pending = valid >= tags->n_bytes && fs->config.tags_place == NK_FS_TAGS_OOB;
    fs->move_from = page;
    int64_t at = nk_fs_put_chunk(fs, &t, fs->copy_buf);
    fs->move_pending = false;
    if (at < 0)
        return (int)at;
    int err = nk_fs_map_set(fs, obj, tags->chunk_id, (uint32_t)at);
    if (err)
        return err;
    nk_fs_live_clear(fs, page);
    nk_fs_live_set(fs, (uint32_t)at);
    fs->chunks_copied++;
    return 0;
}

static struct nk_fs_obj *nk_fs_header_owner(struct nk_fs *fs, uint32_t page,
                                            const struct nk_fs_tags *tags)
{
    struct nk_fs_obj *obj = nk_fs_obj_find(fs, tags->obj_id);
    return obj && obj->hdr_page == page ? obj : NULL;
}

/* Copies the chunk at `page` to the allocation block when it is live: a
 * data chunk as it is (cut to the file's size), a header as a fresh header
 * of its object. With `suspect`, a deletion header (of an object no longer
 * in RAM) is copied too, as it is. Returns 0, 1 when the page cannot be
 * read (it stays), or an error. */
/* Whether the page, not live, holds a deletion header of an object listed
 * as having chunks in a stuck block: the deletion must outlive that block,
 * so every collection writes it again (a deletion header is never live).
 * Read only while a stuck block exists. */
static bool nk_fs_carries_deletion(struct nk_fs *fs, uint32_t page)
{
    if (fs->stuck_count == 0)
        return false;
    struct nk_fs_tags tags;
    int status = nk_fs_read_tags(fs, page, &tags);
    return status > 0 && tags.chunk_id == 0 && tags.extra &&
           (tags.extra_parent_id == NK_FS_OBJ_DELETED ||
            tags.extra_parent_id == NK_FS_OBJ_UNLINKED) &&
           nk_fs_stuck_has(fs, tags.obj_id) && !nk_fs_obj_find(fs, tags.obj_id);
}

static int nk_fs_move_page(struct nk_fs *fs, uint32_t page, bool suspect)
{
    bool live = nk_fs_page_live(fs, page);
    if (!live && !suspect && !nk_fs_carries_deletion(fs, page))
        return 0;
    if (fs->cached_page == page)
        fs->cached_page = NK_FS_NONE;
    fs->move_pending = true; /* read by copy-back load where the chip has one */
    fs->move_from = page;
    fs->check_suspect = suspect; /* copied only when it is whole, check word included */
    int err = nk_fs_page_read(fs, page, fs->copy_buf);
    fs->check_suspect = false;
    fs->move_pending = false;
    if (err == -NK_EIO)
        return 1;
    if (err)
        return err;
    struct nk_fs_tags tags;
    int status =
        fs->config.tags_place == NK_FS_TAGS_INBAND
            ? nk_fs_tags_decode(fs->copy_buf + fs->page_size - NK_FS_TAGS_BYTES, false, &tags)
            : nk_fs_tags_decode(fs->oob_buf + fs->config.tags_offset, !fs->config.no_tags_ecc,
                                &tags);
    if (status < 0 || status == NK_FS_TAGS_UNWRITTEN)
        return live ? 1 : 0;
    if (tags.chunk_id != 0)
        return live ? nk_fs_gc_copy_data(fs, page, &tags) : 0;
    struct nk_fs_obj *obj = nk_fs_header_owner(fs, page, &tags);
    if (!obj) {
        nk_fs_live_clear(fs, page);
        if ((suspect || nk_fs_stuck_has(fs, tags.obj_id)) && tags.extra &&
            !nk_fs_obj_find(fs, tags.obj_id) &&
            (tags.extra_parent_id == NK_FS_OBJ_DELETED ||
             tags.extra_parent_id == NK_FS_OBJ_UNLINKED)) {
            /* A deletion that may have been cut: written again, so that it
             * cannot fade away under a later mount. Likewise one whose
             * object has chunks in a stuck block, which is never erased:
             * the deletion must outlive it. */
            int64_t at = nk_fs_put_chunk(fs, &tags, fs->copy_buf);
            if (at < 0)
                return (int)at;
        }
        return 0;
    }
    if (!live)
        return 0;
    /* A header moves as a fresh header with the size the file has now (its
     * data is all on flash first: a copied header newer than appended data
     * must not cut that data off). */
    if (fs->wbuf_dirty && fs->wbuf_obj == obj)
        err = nk_fs_wbuf_program(fs);
    /* Decoded in place (name and alias stay in the read page): no copy of
     * the header on the stack of a collection that a mount can start. */
    struct nk_fs_header hdr;
    if (!err) {
        /* Read again, so checked again: a weak page can read whole once and
         * wrong the next time, and a wrong read its ECC lets through must
         * not become a fresh header with a valid ECC. */
        fs->check_suspect = true;
        err = nk_fs_obj_header(fs, obj, &hdr);
        fs->check_suspect = false;
        if (err == -NK_EIO)
            return 1; /* read once, then not again: a fading page stays where it is */
    }
    if (!err) {
        /* A shadow whose object lives on would kill it in a copy newer
         * than its header; one whose object is gone, or displaced (the
         * rename's second header not yet written), must go on shadowing. */
        const struct nk_fs_obj *shadowed = hdr.shadows ? nk_fs_obj_find(fs, hdr.shadows) : NULL;
        if (shadowed && !(shadowed->wflags & NK_FS_W_DISPLACED))
            hdr.shadows = 0;
        err = nk_fs_hdr_write(fs, obj, &hdr, NULL);
    }
    if (!err)
        fs->chunks_copied++;
    return err;
}

/* Moves every live chunk of `victim`; then erases it, or retires it. */
int nk_fs_collect(struct nk_fs *fs, uint32_t victim)
{
    struct nk_fs_block *info = &fs->block_info[victim];
    const uint32_t base = victim * fs->pages_per_block;
    /* Rule (b) above: copies must be newer than their originals. */
    if (fs->cold_block != NK_FS_NONE && fs->block_info[fs->cold_block].seq < info->seq)
        nk_fs_close_early(fs, true);
    fs->in_gc = true;
    fs->gc_cold = true;
    int err = 0;
    bool stuck = false;
    for (uint32_t p = 0; p < fs->pages_per_block && !err; p++) {
        err = nk_fs_move_page(fs, base + p, false);
        if (err == 1) {
            /* A live chunk that cannot be read stays where it is: its
             * reads fail with EIO and fsck names its file. Everything
             * else moves. */
            stuck = true;
            err = 0;
        }
    }
    fs->in_gc = false;
    fs->gc_cold = false;
    if (err)
        return err;
    if (stuck) {
        info->flags |= NK_FS_BLK_STUCK;
        info->flags &= (uint8_t) ~(NK_FS_BLK_SCRUB | NK_FS_BLK_RETIRE);
        return nk_fs_list_stuck(fs, victim);
    }
    fs->blocks_collected++;
    if (info->flags & NK_FS_BLK_RETIRE) {
        nk_fs_retire(fs, victim, true);
        return 0;
    }
    return nk_fs_erase(fs, victim);
}

/* A torn page at `page` whose tags still read: the mount left its chunk
 * out, but YAFFS2 scans tags only and would take it (its data failing the
 * ECC) as its object's newest chunk. What nandkit chose instead is written
 * on flash, newer, in a form YAFFS2 honours: the object's header again for
 * a torn header (a deletion header for an object the mount did not keep);
 * for a torn data chunk the live copy of that chunk again, zeros for a hole
 * within the size, or a shrink header at the size beyond it. */
static int nk_fs_supersede_torn(struct nk_fs *fs, uint32_t page)
{
    struct nk_fs_tags tags;
    int status = nk_fs_read_tags(fs, page, &tags);
    if (status < 0 || status == NK_FS_TAGS_UNWRITTEN || tags.obj_id < NK_FS_OBJ_FIRST_USER)
        return status < 0 && status != -NK_EBADMSG ? status : 0;
    struct nk_fs_obj *obj = nk_fs_obj_find(fs, tags.obj_id);
    if (!obj) {
        struct nk_fs_header hdr = {.type = tags.extra ? tags.extra_type : NK_FS_TYPE_FILE,
                                   .parent_id = NK_FS_OBJ_DELETED,
                                   .shrink = true};
        if (hdr.type < NK_FS_TYPE_FILE || hdr.type > NK_FS_TYPE_SPECIAL)
            hdr.type = NK_FS_TYPE_FILE;
        uint8_t *buf = fs->copy_buf;
        memset(buf, 0xff, fs->page_size);
        int err = nk_fs_header_encode(&hdr, buf, NK_FS_HEADER_BYTES);
        if (err)
            return err;
        struct nk_fs_tags t;
        nk_fs_chunk_header_tags(&hdr, tags.obj_id, false, &t);
        int64_t at = nk_fs_put_chunk(fs, &t, buf);
        return at < 0 ? (int)at : 0;
    }
    /* A page the mount took as live, now failing (it faded since), is not
     * one the mount left out: it stays, as any unreadable live chunk. */
    if (tags.chunk_id == 0 || obj->type != NK_FS_TYPE_FILE)
        return tags.chunk_id == 0 && obj->hdr_page != NK_FS_NONE && obj->hdr_page != page
                   ? nk_fs_hdr_rewrite(fs, obj)
                   : 0;
    uint32_t live = nk_fs_map_get(fs, obj, tags.chunk_id);
    if (live == page)
        return 0;
    if (live != NK_FS_NONE) {
        int err = nk_fs_move_page(fs, live, false);
        return err < 0 ? err : 0;
    }
    uint64_t start = (uint64_t)(tags.chunk_id - 1) * fs->chunk_bytes;
    if (start < obj->size) {
        uint64_t left = obj->size - start;
        struct nk_fs_tags t = {.obj_id = obj->id, .chunk_id = tags.chunk_id};
        t.n_bytes = left < fs->chunk_bytes ? (uint32_t)left : fs->chunk_bytes;
        memset(fs->copy_buf, 0, fs->page_size);
        int64_t at = nk_fs_put_chunk(fs, &t, fs->copy_buf);
        if (at < 0)
            return (int)at;
        nk_fs_live_set(fs, (uint32_t)at);
        return nk_fs_map_set(fs, obj, tags.chunk_id, (uint32_t)at);
    }
    if (obj->hdr_page == NK_FS_NONE)
        return 0;
    struct nk_fs_hdr_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    int err = nk_fs_hdr_load(fs, obj, edit);
    if (!err) {
        edit->hdr.shrink = true;
        err = nk_fs_hdr_store(fs, obj, edit);
    }
    nk_fs_edit_give(fs, edit);
    return err;
}

/* Whether the header at `page`, the last written page of one of the two
 * newest blocks, is one this mount left out (its tags read, its content did
 * not make a header: the data of a cut page that landed as erased bytes
 * passes an ECC) that YAFFS2, reading tags only, would take as its object's
 * newest. */
static bool nk_fs_header_left_out(struct nk_fs *fs, uint32_t page)
{
    struct nk_fs_tags tags;
    int status = nk_fs_read_tags(fs, page, &tags);
    if (status <= 0 || tags.chunk_id != 0 || tags.obj_id < NK_FS_OBJ_FIRST_USER ||
        tags.obj_id > NK_FS_OBJ_MAX)
        return false;
    const struct nk_fs_obj *obj = nk_fs_obj_find(fs, tags.obj_id);
    if (!obj)
        return tags.extra && tags.extra_parent_id != NK_FS_OBJ_DELETED &&
               tags.extra_parent_id != NK_FS_OBJ_UNLINKED;
    if (obj->hdr_page == NK_FS_NONE || obj->hdr_page == page)
        return false;
    uint32_t here = page / fs->pages_per_block, there = obj->hdr_page / fs->pages_per_block;
    return fs->block_info[there].seq < fs->block_info[here].seq ||
           (there == here && obj->hdr_page < page);
}

/* The chunk in the last written page of `block` is written again (see
 * nk_fs_write_recover()). */
static int nk_fs_recover_block(struct nk_fs *fs, uint32_t block, bool suspect)
{
    const struct nk_fs_block *info = &fs->block_info[block];
    if (info->state != NK_FS_BLOCK_IN_USE || info->written == 0)
        return 0; /* collected meanwhile */
    uint32_t page = block * fs->pages_per_block + info->written - 1u;
    if ((!suspect && !nk_fs_page_live(fs, page)) || nk_fs_page_was_cut(fs, page))
        return 0;
    if (suspect && nk_fs_page_live(fs, page) &&
        fs->cut_count < sizeof fs->cut_pages / sizeof fs->cut_pages[0]) {
        /* Read first, before a collection makes room: it may erase the
         * older copy of what this page holds, the one the mount must fall
         * back to when the page turns out torn. */
        fs->check_suspect = true;
        int read = nk_fs_page_read(fs, page, fs->copy_buf);
        fs->check_suspect = false;
        if (read == -NK_EIO) {
            fs->cut_pages[fs->cut_count++] = page;
            return NK_FS_RESCAN;
        }
        if (read < 0)
            return read;
    }
    /* The copy goes first where there is room: a collection now could
     * erase that older copy too while this page fades. */
    int err = nk_fs_free_pages(fs) > 0 ? 0 : nk_fs_make_room(fs, 1, 0, true);
    if (err == -NK_ENOSPC) {
        /* No room: the block is moved by the first call that writes. */
        fs->block_info[block].flags |= NK_FS_BLK_SCRUB;
        return 0;
    }
    if (err)
        return err;
    fs->in_gc = true;
    err = nk_fs_move_page(fs, page, suspect);
    if (err == 1 && suspect && nk_fs_page_live(fs, page) &&
        fs->cut_count < sizeof fs->cut_pages / sizeof fs->cut_pages[0]) {
        /* The scan read this page whole and took it; it fails now. A page a
         * power cut may have torn that reads once and not again was torn:
         * what it held is not kept (the mount scans again with it read as
         * torn), never left as a live chunk that fails every read. */
        fs->cut_pages[fs->cut_count++] = page;
        err = NK_FS_RESCAN;
    } else if (err == 1 || (err == 0 && suspect && !nk_fs_page_live(fs, page) &&
                            nk_fs_header_left_out(fs, page))) {
        err = nk_fs_supersede_torn(fs, page);
    }
    fs->in_gc = false;
    return err < 0 || err == NK_FS_RESCAN ? err : 0;
}

/* A page the previous scan of this mount took and the recovery then found
 * faded (nk_fs_recover_block()): this scan read it as torn, and what it
 * chose instead is written, newer, for YAFFS2 (which reads the page's tags
 * only). */
static int nk_fs_supersede_cut(struct nk_fs *fs, uint32_t page)
{
    int err = nk_fs_make_room(fs, 1, 0, true);
    if (err)
        return err;
    fs->in_gc = true;
    err = nk_fs_supersede_torn(fs, page);
    fs->in_gc = false;
    return err;
}

int nk_fs_write_recover(struct nk_fs *fs)
{
    /* The two newest partly written blocks can hold a page a power cut
     * interrupted: the allocation block (the newest) and the cold block,
     * which is above every other partly written block (older ones were
     * handled by the mount after their own cut, unless that mount was cut:
     * see below). That last page can
     * read clean now and fade after a few reads or a second: the chunk in
     * it is written again now, while it still reads; the block itself is
     * collected later. */
    /* A checkpoint means YAFFS2 stopped cleanly: no page was cut. */
    if (fs->stats.blocks_checkpoint)
        return 0;
    for (unsigned i = 0; i < fs->cut_count; i++) {
        int err = nk_fs_supersede_cut(fs, fs->cut_pages[i]);
        if (err)
            return err;
    }
    uint32_t newest[2] = {NK_FS_NONE, NK_FS_NONE};
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state != NK_FS_BLOCK_IN_USE || info->written == 0 ||
            info->written >= fs->pages_per_block)
            continue;
        if (newest[0] == NK_FS_NONE || info->seq > fs->block_info[newest[0]].seq) {
            newest[1] = newest[0];
            newest[0] = b;
        } else if (newest[1] == NK_FS_NONE || info->seq > fs->block_info[newest[1]].seq) {
            newest[1] = b;
        }
    }
    for (unsigned i = 0; i < 2; i++) {
        if (newest[i] == NK_FS_NONE)
            break;
        int err = nk_fs_recover_block(fs, newest[i], true);
        if (err)
            return err;
    }
    /* A mount cut during its own recovery leaves the older weak page below
     * the blocks that recovery opened: the live chunk in the last page of
     * every other partly written block is written again too (once: the
     * copy supersedes it). */
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (b == newest[0] || b == newest[1] || info->state != NK_FS_BLOCK_IN_USE ||
            info->written == 0 || info->written >= fs->pages_per_block)
            continue;
        int err = nk_fs_recover_block(fs, b, false);
        if (err)
            return err;
    }
    /* Junk (an erase cut short, a lone torn page: no usable sequence
     * number) holds nothing: erased now, so that after this mount no trace
     * of the cut is left for fsck to report. */
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state != NK_FS_BLOCK_JUNK || (info->flags & NK_FS_BLK_STUCK))
            continue;
        int err = nk_fs_erase(fs, b);
        if (err)
            return err;
    }
    return 0;
}

int nk_fs_block_erase(struct nk_fs *fs, uint32_t block)
{
    return nk_fs_erase(fs, block);
}

int nk_fs_erase_checkpoints(struct nk_fs *fs)
{
    fs->ckpt_valid = false;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        if (fs->block_info[b].state == NK_FS_BLOCK_CHECKPOINT) {
            int err = nk_fs_erase(fs, b);
            if (err)
                return err;
        }
    }
    fs->stats.blocks_checkpoint = 0;
    return 0;
}

int nk_fs_make_room(struct nk_fs *fs, uint32_t pages, uint32_t new_live, bool deleting)
{
    if (!fs->mounted)
        return -NK_EINVAL;
    if (!fs->writable)
        return -NK_EROFS;
    if (fs->in_gc)
        return 0;
    int err = 0;
    if (fs->stats.blocks_checkpoint) {
        /* A checkpoint (YAFFS2's or nandkit's) describes the tree before
         * this write: it must go first, as YAFFS2 does, before anything
         * else is programmed. */
        err = nk_fs_erase_checkpoints(fs);
        if (err)
            return err;
    }
    const uint32_t per_block = nk_fs_data_pages(fs);
    uint64_t held = (uint64_t)fs->reserve * per_block;
    if (!deleting && fs->live_chunks + new_live + held > fs->usable_chunks)
        return nk_diag_set(&fs->diag, -NK_ENOSPC, "no space left");
    /* A collection needs a block's worth of room to copy into; writes
     * other than deletions leave the reserve for collections. */
    uint64_t want = (uint64_t)pages + per_block + (deleting ? 0u : per_block);
    if (fs->cold_block != NK_FS_NONE && fs->erased_blocks < NK_FS_MIN_RESERVE)
        nk_fs_close_early(fs, true); /* its pages become collectable for everything */
    uint32_t rounds = 2 * fs->blocks + 8;
    bool passive_done = false;
    bool wear_ok = true; /* one wear-levelling move per call: it frees no space */
    for (;;) {
        bool urgent = false;
        bool short_of_space = nk_fs_free_pages(fs) < want;
        /* Below the reserve one collection per call; below the minimum as
         * many as it takes (each mount of its own opens blocks: a run of
         * them must not use the last erased block). */
        bool low = fs->erased_blocks < fs->reserve &&
                   (!passive_done || fs->erased_blocks < NK_FS_MIN_RESERVE);
        bool wear = false;
        uint32_t victim = nk_fs_pick_victim(fs, &urgent, wear_ok, &wear);
        if (victim == NK_FS_NONE || (!short_of_space && !low && !urgent) || rounds-- == 0) {
            if (short_of_space && nk_fs_free_pages(fs) < pages)
                return nk_diag_set(&fs->diag, -NK_ENOSPC, "no space left");
            return 0;
        }
        if (!short_of_space && !urgent)
            passive_done = true; /* one collection per call while space is not short */
        if (wear) {
            fs->wear_moves++;
            wear_ok = false;
        }
        err = nk_fs_collect(fs, victim);
        if (err)
            return err;
    }
}
