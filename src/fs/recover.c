/* SPDX-License-Identifier: MIT */
/*
 * After a power cut: what a read-write mount writes again (docs/fs-design.md
 * 7.5). The last written page of a partly written block may be weak (read
 * whole now, fade later): its live chunk is moved while it reads. A torn
 * page YAFFS2 would still take (it reads tags only) is superseded by what
 * this mount chose instead. Junk blocks are erased.
 */
#include <string.h>

#include "fs/fs_internal.h"

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
        return tags.chunk_id == 0 && obj->header_page != NK_FS_NONE && obj->header_page != page
                   ? nk_fs_header_rewrite(fs, obj)
                   : 0;
    uint32_t live = nk_fs_map_get(fs, obj, tags.chunk_id);
    if (live == page)
        return 0;
    if (live != NK_FS_NONE) {
        int err = nk_fs_move_page(fs, live, 0);
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
    if (obj->header_page == NK_FS_NONE)
        return 0;
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    int err = nk_fs_header_load(fs, obj, edit);
    if (!err) {
        edit->hdr.shrink = true;
        err = nk_fs_header_store(fs, obj, edit);
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
    if (obj->header_page == NK_FS_NONE || obj->header_page == page)
        return false;
    uint32_t here = page / fs->pages_per_block, there = obj->header_page / fs->pages_per_block;
    return fs->block_info[there].seq < fs->block_info[here].seq ||
           (there == here && obj->header_page < page);
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
    err = nk_fs_move_page(fs, page, suspect ? NK_FS_MOVE_SUSPECT : 0);
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
    return nk_fs_supersede_torn(fs, page);
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
        int err = nk_fs_block_erase(fs, b);
        if (err)
            return err;
    }
    return 0;
}
