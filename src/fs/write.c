/* SPDX-License-Identifier: MIT */
/*
 * The writer's flash management: the allocation and cold blocks, block
 * summaries, erasing and retiring, and what happens when a program fails
 * (docs/fs-design.md, "Writing"). The collector that frees blocks is
 * gc.c; what a read-write mount writes again after a power cut, recover.c.
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
#define NK_FS_PROGRAM_RETRIES 4u
#define NK_FS_COLD_GAP 8u /* sequence numbers kept below each allocation block for cold blocks */

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
void nk_fs_retire(struct nk_fs *fs, uint32_t block, bool erase_first)
{
    if (erase_first) {
        fs->cached_page = NK_FS_NONE;
        (void)nk_fs_io_erase(fs->part, block);
    }
    if (!fs->config.no_bad_block_markers || nk_fs_io_tracks_bad_blocks(fs->part))
        (void)nk_fs_io_mark_bad(fs->part, block);
    nk_fs_block_gone(fs, block);
}

int nk_fs_block_erase(struct nk_fs *fs, uint32_t block)
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

void nk_fs_close_early(struct nk_fs *fs, bool cold)
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
            int err = nk_fs_block_erase(fs, block);
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

/* Programs one page of the open block, by copy-back from page
 * `copy_back_from` unless that is NK_FS_NONE. 0, -NK_EIO (program failure:
 * the block is given up), or a device error. */
static int nk_fs_program(struct nk_fs *fs, bool cold, const struct nk_fs_tags *tags, uint8_t *page,
                         uint32_t copy_back_from)
{
    uint8_t *oob = fs->copy_buf + fs->page_size;
    nk_fs_chunk_place(&fs->config, fs->page_size, fs->oob_free, tags, page, oob);
    if (fs->check_bytes)
        nk_fs_check_stamp(page, fs->check_bytes, oob + fs->data_check);
    uint32_t block = *nk_fs_open_of(fs, cold);
    uint32_t *next = nk_fs_next_page_of(fs, cold);
    uint32_t at = block * fs->pages_per_block + *next;
    /* A moved copy of an unchanged page goes by copy-back where the chip allows. */
    int err = copy_back_from != NK_FS_NONE
                  ? nk_part_program_moved(fs->part, copy_back_from, at, page,
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
        err = nk_fs_program(fs, cold, &tags, fs->copy_buf, NK_FS_NONE);
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

/* Where the next chunk goes: the cold block for a collection's copy (the
 * allocation block when no cold block can open: a copy is newest there). */
static bool nk_fs_want_cold(const struct nk_fs *fs, bool copy)
{
    if (!copy || !nk_fs_separating(fs))
        return false;
    if (fs->cold_block != NK_FS_NONE)
        return true;
    return fs->erased_blocks > 1; /* one stays for the allocation block */
}

int64_t nk_fs_put_chunk(struct nk_fs *fs, struct nk_fs_tags *tags, uint8_t *page)
{
    return nk_fs_put_moved(fs, tags, page, false, NK_FS_NONE);
}

int64_t nk_fs_put_moved(struct nk_fs *fs, struct nk_fs_tags *tags, uint8_t *page, bool copy,
                        uint32_t copy_back_from)
{
    for (uint32_t attempt = 0; attempt < NK_FS_PROGRAM_RETRIES; attempt++) {
        bool cold = nk_fs_want_cold(fs, copy);
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
        /* Copy-back on the first try only: a retry sends the data in `page`. */
        int err = nk_fs_program(fs, cold, tags, page, attempt == 0 ? copy_back_from : NK_FS_NONE);
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

int nk_fs_erase_checkpoints(struct nk_fs *fs)
{
    fs->checkpoint_valid = false;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        if (fs->block_info[b].state == NK_FS_BLOCK_CHECKPOINT) {
            int err = nk_fs_block_erase(fs, b);
            if (err)
                return err;
        }
    }
    fs->stats.blocks_checkpoint = 0;
    return 0;
}
