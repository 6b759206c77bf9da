/* SPDX-License-Identifier: MIT */
/*
 * Writing files: the write buffer, write/pwrite, truncate, fsync.
 *
 * The write buffer holds one chunk of one file (page size bytes, allocated
 * at mount). A write copies into it; the chunk is programmed when it is
 * full, when a write or read moves to another chunk, and on fsync, close,
 * sync and unmount. A partial chunk already on flash is read into the
 * buffer first (read-modify-write). The size in the file's header is
 * brought up to date by fsync, close, sync and unmount; until then a mount
 * after a power cut takes the size from the data chunks found, so a cut
 * leaves a prefix of what was written. Bytes of a chunk past the end of the
 * file are always written as zeros.
 */
#include <string.h>

#include "fs/fs_internal.h"

static uint64_t nk_fs_max_size(const struct nk_fs *fs)
{
    return (uint64_t)NK_FS_CHUNK_ID_MAX * fs->chunk_bytes;
}

void nk_fs_wbuf_drop(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    if (fs->wbuf_obj == obj) {
        fs->wbuf_obj = NULL;
        fs->wbuf_dirty = false;
    }
}

int nk_fs_wbuf_program(struct nk_fs *fs)
{
    if (!fs->wbuf_dirty || !fs->wbuf_obj)
        return 0;
    struct nk_fs_obj *obj = fs->wbuf_obj;
    uint64_t start = (uint64_t)(fs->wbuf_chunk - 1) * fs->chunk_bytes;
    if (obj->size <= start) {
        fs->wbuf_dirty = false; /* cut off by a truncate meanwhile */
        return 0;
    }
    uint64_t valid = obj->size - start;
    uint32_t n = valid < fs->chunk_bytes ? (uint32_t)valid : fs->chunk_bytes;
    memset(fs->wbuf + n, 0, fs->chunk_bytes - n);
    struct nk_fs_tags tags;
    memset(&tags, 0, sizeof tags);
    tags.obj_id = obj->id;
    tags.chunk_id = fs->wbuf_chunk;
    tags.n_bytes = n;
    /* Written data, also when a collection programs it: the allocation block. */
    int64_t at = nk_fs_put_chunk(fs, &tags, fs->wbuf);
    if (at < 0)
        return (int)at;
    uint32_t old = nk_fs_map_get(fs, obj, fs->wbuf_chunk);
    int err = nk_fs_map_set(fs, obj, fs->wbuf_chunk, (uint32_t)at);
    if (err)
        return err;
    if (old != NK_FS_NONE)
        nk_fs_live_clear(fs, old);
    nk_fs_live_set(fs, (uint32_t)at);
    fs->wbuf_dirty = false;
    /* A chunk newer than the file's header that ends at its size tells a
     * mount the size (fs-format.md section 7): no header needed for it. */
    if (start + n == obj->size)
        obj->wflags |= NK_FS_W_SIZE_IN_DATA;
    return 0;
}

int nk_fs_wbuf_flush(struct nk_fs *fs)
{
    if (!fs->wbuf_dirty || !fs->wbuf_obj)
        return 0;
    bool is_new = nk_fs_map_get(fs, fs->wbuf_obj, fs->wbuf_chunk) == NK_FS_NONE;
    int err = nk_fs_make_room(fs, 1, is_new ? 1u : 0u, false);
    if (err)
        return err;
    return nk_fs_wbuf_program(fs); /* nothing when the collection wrote it */
}

/* Brings chunk `chunk` of `obj` into the write buffer (zeros where it has
 * no data, and past the end of the file). *stale is set when the copy on
 * flash holds bytes past the end of the file (left by a truncate). */
static int nk_fs_wbuf_load(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t chunk, bool whole,
                           bool *stale)
{
    *stale = false;
    if (fs->wbuf_obj == obj && fs->wbuf_chunk == chunk)
        return 0;
    int err = nk_fs_wbuf_flush(fs);
    if (err)
        return err;
    fs->wbuf_obj = NULL;
    uint32_t page = nk_fs_map_get(fs, obj, chunk);
    uint64_t start = (uint64_t)(chunk - 1) * fs->chunk_bytes;
    uint32_t eof = obj->size <= start                     ? 0
                   : obj->size - start >= fs->chunk_bytes ? fs->chunk_bytes
                                                          : (uint32_t)(obj->size - start);
    if (whole || page == NK_FS_NONE) {
        memset(fs->wbuf, 0, fs->chunk_bytes);
    } else {
        err = nk_fs_page_read(fs, page, fs->wbuf);
        if (err)
            return err;
        struct nk_fs_tags tags;
        int status =
            fs->config.tags_place == NK_FS_TAGS_INBAND
                ? nk_fs_tags_decode(fs->wbuf + fs->page_size - NK_FS_TAGS_BYTES, false, &tags)
                : nk_fs_tags_decode(fs->oob_buf + fs->config.tags_offset, !fs->config.no_tags_ecc,
                                    &tags);
        uint32_t valid = fs->chunk_bytes;
        if (status >= 0) {
            if (status == NK_FS_TAGS_UNWRITTEN || tags.obj_id != obj->id || tags.chunk_id != chunk)
                return -NK_EIO;
            if (tags.n_bytes < valid)
                valid = tags.n_bytes;
        }
        if (valid < fs->chunk_bytes)
            memset(fs->wbuf + valid, 0, fs->chunk_bytes - valid);
        if (valid > eof) {
            *stale = true;
            memset(fs->wbuf + eof, 0, fs->chunk_bytes - eof);
        }
    }
    fs->wbuf_obj = obj;
    fs->wbuf_chunk = chunk;
    fs->wbuf_dirty = false;
    return 0;
}

/* Before the file grows from its current size: a partial last chunk on
 * flash must not carry old bytes past the end into the grown file. */
static int nk_fs_grow_prepare(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    uint32_t in_chunk = (uint32_t)(obj->size % fs->chunk_bytes);
    if (in_chunk == 0)
        return 0;
    uint32_t chunk = (uint32_t)(obj->size / fs->chunk_bytes) + 1;
    if (nk_fs_map_get(fs, obj, chunk) == NK_FS_NONE)
        return 0;
    bool stale;
    int err = nk_fs_wbuf_load(fs, obj, chunk, false, &stale);
    if (err)
        return err;
    if (stale)
        fs->wbuf_dirty = true;
    return 0;
}

bool nk_fs_file_writable(const struct nk_fs_file *file)
{
    return file && file->open && file->fs && file->fs->mounted && file->fs->writable &&
           (file->flags & NK_FS_O_ACCMODE) != NK_FS_O_RDONLY;
}

static int32_t nk_fs_write_at(struct nk_fs_file *file, const uint8_t *buf, size_t len,
                              uint64_t offset)
{
    struct nk_fs *fs = file->fs;
    struct nk_fs_obj *obj = file->obj;
    if (len > INT32_MAX)
        len = INT32_MAX;
    if (len == 0)
        return 0;
    if (offset >= nk_fs_max_size(fs) || len > nk_fs_max_size(fs) - offset)
        return -NK_EFBIG;
    int err = 0;
    if (offset + len > obj->size)
        err = nk_fs_grow_prepare(fs, obj);
    size_t done = 0;
    while (!err && done < len) {
        uint64_t pos = offset + done;
        uint32_t chunk = (uint32_t)(pos / fs->chunk_bytes) + 1;
        uint32_t in = (uint32_t)(pos % fs->chunk_bytes);
        uint32_t n = fs->chunk_bytes - in;
        if (n > len - done)
            n = (uint32_t)(len - done);
        if (in == 0 && len - done >= 2 * (size_t)fs->chunk_bytes) {
            /* Whole chunks in a row: past the write buffer, one multi-page
             * program (nk_fs_put_run()). */
            err = nk_fs_wbuf_flush(fs);
            if (err)
                break;
            if (fs->wbuf_obj == obj)
                fs->wbuf_obj = NULL; /* clean; may hold an older copy of a chunk */
            int put = nk_fs_put_run(fs, obj, chunk, buf + done,
                                    (uint32_t)((len - done) / fs->chunk_bytes));
            if (put < 0) {
                err = put;
                break;
            }
            if (put > 0) {
                uint64_t end = pos + (uint64_t)put * fs->chunk_bytes;
                if (end > obj->size) {
                    obj->size = end;
                    obj->wflags |= NK_FS_W_HEADER_DIRTY;
                }
                if (end == obj->size)
                    obj->wflags |= NK_FS_W_SIZE_IN_DATA;
                done += (size_t)put * fs->chunk_bytes;
                continue;
            }
        }
        bool stale;
        err = nk_fs_wbuf_load(fs, obj, chunk, in == 0 && n == fs->chunk_bytes, &stale);
        if (err)
            break;
        memcpy(fs->wbuf + in, buf + done, n);
        fs->wbuf_dirty = true;
        if (pos + n > obj->size) {
            obj->size = pos + n;
            obj->wflags |= NK_FS_W_HEADER_DIRTY;
            obj->wflags &= (uint8_t)~NK_FS_W_SIZE_IN_DATA;
        }
        done += n;
        if (in + n == fs->chunk_bytes) {
            err = nk_fs_wbuf_flush(fs);
            if (err) {
                /* The chunk did not reach flash: the write stops before it. */
                nk_fs_wbuf_drop(fs, obj);
                done -= n;
                if (obj->size > pos)
                    obj->size = pos > offset ? pos : obj->size;
            }
        }
    }
    uint64_t now;
    if (done > 0 && nk_fs_now(fs, &now))
        obj->wflags |= NK_FS_W_TOUCHED;
    if (done > 0)
        return (int32_t)done;
    return err;
}

int32_t nk_fs_file_pwrite_unlocked(struct nk_fs_file *file, const void *buf, size_t len,
                                   uint64_t offset)
{
    if (!nk_fs_file_writable(file)) {
        if (file && file->open && file->fs && file->fs->mounted && !file->fs->writable)
            return -NK_EROFS;
        return -NK_EBADF;
    }
    if (!buf && len)
        return -NK_EINVAL;
    return nk_fs_write_at(file, buf, len, offset);
}

int32_t nk_fs_file_write_unlocked(struct nk_fs_file *file, const void *buf, size_t len)
{
    if (!nk_fs_file_writable(file))
        return nk_fs_file_pwrite_unlocked(file, buf, len, 0);
    uint64_t at = (file->flags & NK_FS_O_APPEND) ? file->obj->size : file->pos;
    int32_t n = nk_fs_file_pwrite_unlocked(file, buf, len, at);
    if (n > 0)
        file->pos = at + (uint64_t)n;
    return n;
}

static int nk_fs_truncate_obj(struct nk_fs *fs, struct nk_fs_obj *obj, uint64_t size);

struct nk_fs_cut {
    struct nk_fs *fs;
    uint32_t keep; /* chunks kept */
};

static int nk_fs_cut_chunk(void *ctx, uint32_t chunk_id, uint32_t page)
{
    struct nk_fs_cut *cut = ctx;
    if (chunk_id > cut->keep)
        nk_fs_live_clear(cut->fs, page);
    return 0;
}

static int nk_fs_truncate_obj(struct nk_fs *fs, struct nk_fs_obj *obj, uint64_t size)
{
    if (size > nk_fs_max_size(fs))
        return -NK_EFBIG;
    int err;
    if (size == obj->size && !(obj->wflags & NK_FS_W_HEADER_DIRTY))
        return 0;
    if (fs->wbuf_obj == obj) {
        err = nk_fs_wbuf_flush(fs);
        if (err)
            return err;
        nk_fs_wbuf_drop(fs, obj);
    }
    if (size > obj->size) {
        err = nk_fs_make_room(fs, 3, 1, false);
        if (!err)
            err = nk_fs_grow_prepare(fs, obj);
        if (!err)
            err = nk_fs_wbuf_flush(fs);
        if (err)
            return err;
        nk_fs_wbuf_drop(fs, obj);
    } else {
        err = nk_fs_make_room(fs, 1, 0, true);
        if (err)
            return err;
    }
    bool shrink = size < obj->size;
    uint64_t old = obj->size;
    struct nk_fs_header_edit *edit = nk_fs_edit_take(fs);
    if (!edit)
        return -NK_ENOMEM;
    err = nk_fs_header_load(fs, obj, edit);
    if (err) {
        nk_fs_edit_give(fs, edit);
        return err;
    }
    obj->size = size;
    edit->hdr.shrink = shrink;
    uint64_t now;
    if (size != old && nk_fs_now(fs, &now))
        obj->wflags |= NK_FS_W_TOUCHED;
    err = nk_fs_header_store(fs, obj, edit);
    nk_fs_edit_give(fs, edit);
    if (err) {
        obj->size = old;
        return err;
    }
    if (shrink) {
        struct nk_fs_cut cut = {fs, (uint32_t)((size + fs->chunk_bytes - 1) / fs->chunk_bytes)};
        nk_fs_map_walk(fs, obj, nk_fs_cut_chunk, &cut);
        nk_fs_map_cut(fs, obj, cut.keep);
    }
    return 0;
}

int nk_fs_file_truncate_unlocked(struct nk_fs_file *file, uint64_t size)
{
    if (!nk_fs_file_writable(file))
        return file && file->open && file->fs && !file->fs->writable ? -NK_EROFS : -NK_EBADF;
    return nk_fs_truncate_obj(file->fs, file->obj, size);
}

int nk_fs_file_fsync_unlocked(struct nk_fs_file *file)
{
    if (!file || !file->open || !file->fs || !file->fs->mounted)
        return -NK_EBADF;
    struct nk_fs *fs = file->fs;
    if (!fs->writable)
        return 0;
    struct nk_fs_obj *obj = file->obj;
    int err = 0;
    if (fs->wbuf_obj == obj)
        err = nk_fs_wbuf_flush(fs);
    if (!err && (obj->wflags & NK_FS_W_HEADER_DIRTY) && (obj->wflags & NK_FS_W_SIZE_IN_DATA))
        obj->wflags &= (uint8_t)~NK_FS_W_HEADER_DIRTY; /* the data says the size */
    if (!err && (obj->wflags & (NK_FS_W_HEADER_DIRTY | NK_FS_W_TOUCHED))) {
        err = nk_fs_make_room(fs, 1, 0, false);
        if (!err)
            err = nk_fs_header_rewrite(fs, obj);
    }
    return err;
}

int nk_fs_file_open_mode_unlocked(struct nk_fs *fs, struct nk_fs_file *file, const char *path,
                                  uint32_t flags, uint32_t mode)
{
    if (!file || !path)
        return -NK_EINVAL;
    memset(file, 0, sizeof *file);
    const uint32_t known =
        NK_FS_O_ACCMODE | NK_FS_O_CREAT | NK_FS_O_EXCL | NK_FS_O_TRUNC | NK_FS_O_APPEND;
    if ((flags & ~known) || (flags & NK_FS_O_ACCMODE) == NK_FS_O_ACCMODE || (mode & ~07777u))
        return -NK_EINVAL;
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    bool writing = (flags & NK_FS_O_ACCMODE) != NK_FS_O_RDONLY;
    if (!fs->writable && (writing || (flags & (NK_FS_O_CREAT | NK_FS_O_TRUNC))))
        return -NK_EROFS;
    struct nk_fs_obj *obj;
    int err;
    if ((flags & NK_FS_O_CREAT) && (flags & NK_FS_O_EXCL)) {
        /* Any existing name counts, a symlink (dangling or not) included. */
        err = nk_fs_path_lookup(fs, path, false, &obj);
        if (err == 0)
            return -NK_EEXIST;
    }
    err = nk_fs_path_lookup(fs, path, true, &obj);
    if (err == -NK_ENOENT && (flags & NK_FS_O_CREAT)) {
        struct nk_fs_obj *link;
        if (nk_fs_path_lookup(fs, path, false, &link) == 0)
            return (flags & NK_FS_O_EXCL) ? -NK_EEXIST : -NK_ENOENT; /* dangling symlink */
        struct nk_fs_where w;
        err = nk_fs_where(fs, path, &w);
        if (err)
            return err;
        if (w.slash)
            return -NK_EISDIR;
        struct nk_fs_new n = {.type = NK_FS_TYPE_FILE, .mode = mode};
        err = nk_fs_create(fs, &w, &n, &obj);
        if (err)
            return err;
    } else if (err) {
        return err;
    }
    if (nk_fs_obj_is_dir(obj))
        return -NK_EISDIR;
    struct nk_fs_obj *target = nk_fs_obj_target(fs, obj);
    if (!target)
        return -NK_EILSEQ;
    if (target->type != NK_FS_TYPE_FILE)
        return -NK_EINVAL;
    if ((obj->wflags | target->wflags) & NK_FS_W_STALE)
        return -NK_EIO; /* a newer header of it lost its tags: fsck names it */
    if (target->opens == 0xff)
        return -NK_EMFILE;
    if (writing && (flags & NK_FS_O_TRUNC) && target->size) {
        err = nk_fs_truncate_obj(fs, target, 0);
        if (err)
            return err;
    }
    file->fs = fs;
    file->obj = target;
    file->named = obj;
    file->flags = flags;
    file->open = true;
    target->opens++;
    return 0;
}

int nk_fs_file_open_unlocked(struct nk_fs *fs, struct nk_fs_file *file, const char *path,
                             uint32_t flags)
{
    return nk_fs_file_open_mode_unlocked(fs, file, path, flags, 0644u);
}
