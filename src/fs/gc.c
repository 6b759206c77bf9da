/* SPDX-License-Identifier: MIT */
/*
 * The garbage collector: which block to collect (the victim policy, static
 * wear levelling), moving a block's live chunks out of it, and making room
 * before a write (docs/fs-design.md 7.6).
 *
 * Whether a page is still current is asked of the RAM tables each time
 * (live bits, chunk maps, header pages); how a chunk moves (a collection's
 * copy to the cold block, or a recovery's to the allocation block; by
 * copy-back or not) is passed down as arguments, never left in the fs.
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_WEAR_INTERVAL 16u /* every n-th collection takes the oldest block */
#define NK_FS_WEAR_SPREAD 8u    /* erase-count spread that moves the least-worn block's data */

/* ----- the victim ------------------------------------------------------------------------- */

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

/* Whether the open cold block is older than block `b`: it can hold copies
 * of data that b's headers cut off (the allocation block is always the
 * newest, rule (a)). */
static bool nk_fs_cold_below(const struct nk_fs *fs, uint32_t b)
{
    return fs->cold_block != NK_FS_NONE && fs->block_info[fs->cold_block].written > 0 &&
           fs->block_info[fs->cold_block].seq < fs->block_info[b].seq;
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
     * block can hold such data (YAFFS2's rule), the open cold block
     * included. */
    return !(info->flags & NK_FS_BLK_KEEP) || (b == oldest && !nk_fs_cold_below(fs, b));
}

uint64_t nk_fs_free_pages(const struct nk_fs *fs)
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
uint32_t nk_fs_pick_victim(struct nk_fs *fs, bool *urgent, bool wear_ok, bool *wear)
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
        /* The oldest block keeps deletions while the open cold block is
         * older still: the cold block goes first (nk_fs_collect closes it),
         * its copies into a block above both. */
        if ((fs->block_info[oldest].flags & NK_FS_BLK_KEEP) && nk_fs_cold_below(fs, oldest) &&
            fs->block_info[fs->cold_block].live <= nk_fs_free_pages(fs))
            return fs->cold_block;
        return oldest;
    }
    return best;
}

/* ----- moving a page ---------------------------------------------------------------------- */

/* Copies data chunk `tags` read from `page` (now in fs->copy_buf) when it
 * is its file's live copy; `cold`: a collection's copy. */
static int nk_fs_copy_data(struct nk_fs *fs, uint32_t page, const struct nk_fs_tags *tags,
                           bool cold)
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
    bool copy_back = valid >= tags->n_bytes && fs->config.tags_place == NK_FS_TAGS_OOB;
    int64_t at = nk_fs_put_moved(fs, &t, fs->copy_buf, cold, copy_back ? page : NK_FS_NONE);
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
    return obj && obj->header_page == page ? obj : NULL;
}

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

int nk_fs_move_page(struct nk_fs *fs, uint32_t page, unsigned how)
{
    const bool suspect = how & NK_FS_MOVE_SUSPECT;
    bool live = nk_fs_page_live(fs, page);
    if (!live && !suspect && !nk_fs_carries_deletion(fs, page))
        return 0;
    if (fs->cached_page == page)
        fs->cached_page = NK_FS_NONE;
    /* Read by copy-back load where the chip has one. */
    fs->check_suspect = suspect; /* copied only when it is whole, check word included */
    int err = nk_fs_page_read_for_move(fs, page, fs->copy_buf);
    fs->check_suspect = false;
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
        return live ? nk_fs_copy_data(fs, page, &tags, how & NK_FS_MOVE_COLD) : 0;
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
            int64_t at =
                nk_fs_put_moved(fs, &tags, fs->copy_buf, how & NK_FS_MOVE_COLD, NK_FS_NONE);
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
        err = nk_fs_header_write(fs, obj, &hdr, NULL, how & NK_FS_MOVE_COLD);
    }
    if (!err)
        fs->chunks_copied++;
    return err;
}

/* ----- collecting -------------------------------------------------------------------------- */

/* Moves every live chunk of `victim`; then erases it, or retires it. */
int nk_fs_collect(struct nk_fs *fs, uint32_t victim)
{
    struct nk_fs_block *info = &fs->block_info[victim];
    const uint32_t base = victim * fs->pages_per_block;
    /* Rule (b) (write.c, "allocation"): copies must be newer than their
     * originals. */
    if (fs->cold_block != NK_FS_NONE &&
        (victim == fs->cold_block || fs->block_info[fs->cold_block].seq < info->seq))
        nk_fs_close_early(fs, true);
    /* The block a clean unmount left open is not gone on with once it is
     * the victim: its copies would go into it, to be copied again. */
    if (victim == fs->resume_block)
        fs->resume_block = NK_FS_NONE;
    int err = 0;
    bool stuck = false;
    for (uint32_t p = 0; p < fs->pages_per_block && !err; p++) {
        err = nk_fs_move_page(fs, base + p, NK_FS_MOVE_COLD);
        if (err == 1) {
            /* A live chunk that cannot be read stays where it is: its
             * reads fail with EIO and fsck names its file. Everything
             * else moves. */
            stuck = true;
            err = 0;
        }
    }
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
    return nk_fs_block_erase(fs, victim);
}

int nk_fs_make_room(struct nk_fs *fs, uint32_t pages, uint32_t new_live, bool deleting)
{
    if (!fs->mounted)
        return -NK_EINVAL;
    if (!fs->writable)
        return -NK_EROFS;
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
