/* SPDX-License-Identifier: MIT */
/*
 * Reading files: open, read, pread, seek, fstat, close.
 *
 * A read walks the chunk map: a missing chunk is a hole (zeros; -NK_EIO on
 * a damaged file system, where it may be a chunk whose tags were lost); a present
 * one is read through the ECC and its tags checked against the owner and
 * chunk id the map expects, so a page that changed under the map is an
 * error, never someone else's data. Bytes past a chunk's valid count read
 * as zeros. Whole aligned chunks go straight into the caller's buffer.
 */
#include <string.h>

#include "fs/fs_internal.h"

static bool nk_fs_file_ok(const struct nk_fs_file *file)
{
    return file && file->open && file->fs && file->fs->mounted;
}

/* Copies bytes [offset, offset + len) of data chunk `chunk_id` at `page`
 * into `dst`. */
static int nk_fs_chunk_read(struct nk_fs *fs, const struct nk_fs_obj *obj, uint32_t chunk_id,
                            uint32_t page, uint32_t offset, uint8_t *dst, uint32_t len)
{
    bool direct = offset == 0 && len == fs->chunk_bytes && fs->config.tags_place == NK_FS_TAGS_OOB;
    int err = direct ? nk_fs_page_read(fs, page, dst) : nk_fs_page_load(fs, page);
    if (err)
        return err;
    struct nk_fs_tags tags;
    int status = nk_fs_tags_from_buffers(fs, &tags);
    uint32_t valid = fs->chunk_bytes;
    if (status >= 0) {
        if (status == NK_FS_TAGS_UNWRITTEN || tags.obj_id != obj->id || tags.chunk_id != chunk_id)
            return -NK_EIO;
        if (tags.n_bytes < valid)
            valid = tags.n_bytes;
    }
    /* Tags failing their own ECC on a page whose data passed: the scan
     * vouched for the page, and the data ECC for its bytes. */
    if (direct) {
        if (valid < len)
            memset(dst + valid, 0, len - valid);
        return 0;
    }
    uint32_t end = offset + len;
    uint32_t copy_end = end < valid ? end : valid;
    if (copy_end > offset)
        memcpy(dst, fs->page_buf + offset, copy_end - offset);
    else
        copy_end = offset;
    if (end > copy_end)
        memset(dst + (copy_end - offset), 0, end - copy_end);
    return 0;
}

/* Sequential reads: whole chunks that sit in consecutive pages are read
 * with one multi-page device call (read cache where the chip has it), at
 * most NK_FS_RUN_PAGES at a time so their OOB bytes fit on the stack. */

/* Number of whole chunks from chunk index `index` (0-based) at `page` that
 * follow each other on flash, within the `room` bytes left to read. */
static uint32_t nk_fs_run_length(struct nk_fs *fs, const struct nk_fs_obj *obj, uint64_t index,
                                 uint32_t page, size_t room)
{
    if (fs->config.tags_place != NK_FS_TAGS_OOB || fs->oob_free == 0)
        return 1;
    uint32_t limit = NK_FS_RUN_OOB / fs->oob_free;
    if (limit > NK_FS_RUN_PAGES)
        limit = NK_FS_RUN_PAGES;
    uint32_t n = 1;
    while (n < limit && (size_t)(n + 1) * fs->chunk_bytes <= room &&
           index + n < NK_FS_CHUNK_ID_MAX && page + n < fs->pages) {
        uint32_t chunk = (uint32_t)(index + n) + 1;
        if (fs->wbuf_obj == obj && fs->wbuf_chunk == chunk)
            break;
        if (nk_fs_map_get(fs, obj, chunk) != page + n)
            break;
        n++;
    }
    return n;
}

/* Reads `count` whole chunks from chunk index `index` at consecutive pages
 * from `page` into `dst`. Returns 0, 1 when the caller should read them one
 * at a time instead (a read error: the single-chunk path retries, counts
 * and reports), or -NK_EIO when a page's tags name another chunk. */
static int nk_fs_run_read(struct nk_fs *fs, const struct nk_fs_obj *obj, uint64_t index,
                          uint32_t page, uint32_t count, uint8_t *dst)
{
    fs->cached_page = NK_FS_NONE; /* oob_buf changes */
    int err = nk_part_read_pages(fs->part, page, count, dst, fs->oob_buf, NK_OOB_AUTO);
    if (err < 0 || nk_part_scrub_advised(fs->part, err))
        return 1; /* the single-chunk path finds the page to retry or scrub */
    if (err > 0)
        fs->ecc_corrected_reads++;
    for (uint32_t i = 0; i < count; i++) {
        /* Page i's bytes to the front (pages before i are done with). */
        if (i)
            memmove(fs->oob_buf, fs->oob_buf + (size_t)i * fs->oob_free, fs->oob_free);
        struct nk_fs_tags tags;
        int status = nk_fs_tags_from_buffers(fs, &tags);
        uint32_t valid = fs->chunk_bytes;
        if (status >= 0) {
            if (status == NK_FS_TAGS_UNWRITTEN || tags.obj_id != obj->id ||
                tags.chunk_id != (uint32_t)(index + i) + 1)
                return -NK_EIO;
            if (tags.n_bytes < valid)
                valid = tags.n_bytes;
        }
        uint8_t *chunk = dst + (size_t)i * fs->chunk_bytes;
        if (fs->check_bytes && fs->check_every_read &&
            nk_fs_check_fails(chunk, fs->check_bytes, fs->oob_buf + fs->data_check))
            return 1; /* as an uncorrectable read: the single-chunk path */
        if (valid < fs->chunk_bytes)
            memset(chunk + valid, 0, fs->chunk_bytes - valid);
    }
    return 0;
}

static int32_t nk_fs_read_at(struct nk_fs_file *file, uint8_t *buf, size_t len, uint64_t offset)
{
    struct nk_fs *fs = file->fs;
    const struct nk_fs_obj *obj = file->obj;
    if (offset >= obj->size || len == 0)
        return 0;
    if (len > INT32_MAX)
        len = INT32_MAX;
    if (len > obj->size - offset)
        len = (size_t)(obj->size - offset);
    size_t done = 0;
    while (done < len) {
        uint32_t run = 0;
        int err = 0;
        uint64_t pos = offset + done;
        uint64_t index = pos / fs->chunk_bytes;
        uint32_t in_chunk = (uint32_t)(pos % fs->chunk_bytes);
        uint32_t n = fs->chunk_bytes - in_chunk;
        if (n > len - done)
            n = (uint32_t)(len - done);
        uint32_t page =
            index < NK_FS_CHUNK_ID_MAX ? nk_fs_map_get(fs, obj, (uint32_t)index + 1) : NK_FS_NONE;
        if (fs->wbuf_obj == obj && fs->wbuf_chunk == index + 1) {
            memcpy(buf + done, fs->wbuf + in_chunk, n); /* the write buffer's newer copy */
        } else if (page == NK_FS_NONE && nk_fs_damaged_unlocked(fs)) {
            /* Maybe a chunk whose tags were lost: never zeros in its place. */
            return done ? (int32_t)done : -NK_EIO;
        } else if (page == NK_FS_NONE) {
            memset(buf + done, 0, n);
        } else if (in_chunk == 0 && n == fs->chunk_bytes &&
                   (run = nk_fs_run_length(fs, obj, index, page, len - done)) > 1 &&
                   (err = nk_fs_run_read(fs, obj, index, page, run, buf + done)) <= 0) {
            if (err)
                return done ? (int32_t)done : err; /* the bytes before it first, as read(2) */
            n = run * fs->chunk_bytes;
        } else {
            err = nk_fs_chunk_read(fs, obj, (uint32_t)index + 1, page, in_chunk, buf + done, n);
            if (err)
                return done ? (int32_t)done : err;
        }
        done += n;
    }
    return (int32_t)done;
}

int32_t nk_fs_file_pread_unlocked(struct nk_fs_file *file, void *buf, size_t len, uint64_t offset)
{
    if (!nk_fs_file_ok(file))
        return -NK_EBADF;
    if ((file->flags & NK_FS_O_ACCMODE) == NK_FS_O_WRONLY)
        return -NK_EBADF;
    if (!buf && len)
        return -NK_EINVAL;
    return nk_fs_read_at(file, buf, len, offset);
}

int32_t nk_fs_file_read_unlocked(struct nk_fs_file *file, void *buf, size_t len)
{
    int32_t n = nk_fs_file_pread_unlocked(file, buf, len, file ? file->pos : 0);
    if (n > 0)
        file->pos += (uint64_t)n;
    return n;
}

int64_t nk_fs_file_seek_unlocked(struct nk_fs_file *file, int64_t offset, int whence)
{
    if (!nk_fs_file_ok(file))
        return -NK_EBADF;
    int64_t base;
    switch (whence) {
    case NK_FS_SEEK_SET:
        base = 0;
        break;
    case NK_FS_SEEK_CUR:
        base = (int64_t)file->pos;
        break;
    case NK_FS_SEEK_END:
        base = (int64_t)file->obj->size;
        break;
    default:
        return -NK_EINVAL;
    }
    if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0)
        return -NK_EINVAL;
    file->pos = (uint64_t)(base + offset);
    return (int64_t)file->pos;
}

int nk_fs_file_stat_unlocked(struct nk_fs_file *file, struct nk_fs_stat *st)
{
    if (!nk_fs_file_ok(file))
        return -NK_EBADF;
    if (!st)
        return -NK_EINVAL;
    return nk_fs_obj_stat(file->fs, file->named, st);
}

int nk_fs_file_close_unlocked(struct nk_fs_file *file)
{
    if (!file || !file->open)
        return -NK_EBADF;
    struct nk_fs *fs = file->fs;
    struct nk_fs_obj *obj = file->obj;
    int err = 0;
    if (fs && fs->mounted) {
        if ((file->flags & NK_FS_O_ACCMODE) != NK_FS_O_RDONLY)
            err = nk_fs_file_fsync_unlocked(file);
        if (obj->opens)
            obj->opens--;
        if (obj->opens == 0 && (obj->wflags & NK_FS_W_UNLINKED)) {
            /* Unlinked to deleted, as YAFFS2 does: a header newer than every
             * chunk the file wrote (or the collector moved) while open, so
             * none of them can come back once the unlinked header is gone. */
            int derr = nk_fs_delete_unlinked(fs, obj);
            if (!err)
                err = derr;
        }
    }
    file->open = false;
    file->obj = file->named = NULL;
    return err;
}
