/* SPDX-License-Identifier: MIT */
/*
 * Building a fresh file system (docs/fs-format.md, "Building an image").
 *
 * The builder lays objects out the way a YAFFS2 scan reads them back without
 * surprises: every good block is erased first, then chunks go out strictly in
 * page order, one block after the other, each block with the next sequence
 * number. A directory's header precedes its children; a file's data chunks
 * precede its header, which carries the final size (the newest header of an
 * object decides its size, and older data below that size is live), so a
 * build cut short never shows a file longer than the data written for it.
 * The mkyaffs2 layout follows mkyaffs2image instead (header, with the size
 * given up front, then the data), because readers such as unyaffs expect it.
 *
 * The only memory is one page of workspace (chunk data and OOB) and the
 * builder struct: the open file's name and attributes wait there while its
 * data streams through the page buffer.
 */
#include <string.h>

#include "fs/fs_internal.h"

static const char *const nk_fs_build_type_names[] = {"unknown",   "file",      "symlink",
                                                     "directory", "hard link", "special"};

static const char *nk_fs_build_type_name(uint8_t type)
{
    return type <= NK_FS_TYPE_SPECIAL ? nk_fs_build_type_names[type] : "invalid";
}

static void nk_fs_build_progress(struct nk_fs_builder *b)
{
    if (b->config.progress)
        b->config.progress(b->config.progress_ctx, &b->stats);
}

/* Records `err` as the error that stopped the build and returns it. */
static int nk_fs_build_stop(struct nk_fs_builder *b, int err)
{
    if (!b->failed)
        b->failed = err;
    return err;
}

/* Whether bad-block state can be asked at all: the mkyaffs2 layout's OOB
 * byte 0 is tag data, so only a table or an external authority knows. */
static bool nk_fs_build_knows_bad_blocks(const struct nk_fs_builder *b)
{
    return !b->placement.no_bad_block_markers || nk_part_tracks_bad_blocks(b->part);
}

static int nk_fs_build_block_is_bad(struct nk_fs_builder *b, uint32_t block)
{
    if (!nk_fs_build_knows_bad_blocks(b))
        return 0;
    int bad = nk_fs_io_is_bad(b->part, block);
    if (bad < 0)
        return nk_fs_build_stop(b, nk_diag_set(&b->diag, bad,
                                               "cannot tell whether block %u is bad: %s",
                                               (unsigned)block, nk_strerror(bad)));
    return bad;
}

/* Takes a block that failed an erase or program out of service. */
static int nk_fs_build_retire(struct nk_fs_builder *b, uint32_t block, const char *what)
{
    if (!nk_fs_build_knows_bad_blocks(b))
        return nk_fs_build_stop(
            b, nk_diag_set(&b->diag, -NK_EIO,
                           "block %u failed to %s and the %s layout has no bad-block markers to "
                           "retire it (the linux layout has)",
                           (unsigned)block, what, nk_fs_layout_name(b->config.layout)));
    int err = nk_fs_io_mark_bad(b->part, block);
    if (err)
        return nk_fs_build_stop(b, nk_diag_set(&b->diag, err,
                                               "block %u failed to %s and could not be marked "
                                               "bad: %s",
                                               (unsigned)block, what, nk_strerror(err)));
    b->stats.blocks_retired++;
    b->stats.chunks_capacity -= b->pages_per_block;
    return 0;
}

/* ----- geometry and start ------------------------------------------------------------ */

size_t nk_fs_build_workspace_size(const struct nk_part *part)
{
    return (size_t)nk_part_page_size(part) + nk_part_free_oob_bytes(part);
}

static int nk_fs_build_setup(struct nk_fs_builder *b, void *workspace, size_t size)
{
    b->page_size = nk_part_page_size(b->part);
    b->pages_per_block = nk_part_pages_per_block(b->part);
    b->oob_free = nk_part_free_oob_bytes(b->part);
    uint32_t blocks = b->part->block_count;
    if (b->pages_per_block == 0 || blocks == 0 ||
        (uint64_t)blocks * b->pages_per_block > 0xfffffffeu)
        return nk_diag_set(&b->diag, -NK_EINVAL, "unusable geometry: %u blocks of %u pages",
                           (unsigned)blocks, (unsigned)b->pages_per_block);
    if (b->page_size < NK_FS_HEADER_BYTES + NK_FS_TAGS_BYTES)
        return nk_diag_set(&b->diag, -NK_EINVAL,
                           "%u-byte pages are too small for YAFFS2 object headers",
                           (unsigned)b->page_size);
    if (b->placement.tags_place == NK_FS_TAGS_INBAND) {
        b->chunk_bytes = b->page_size - NK_FS_TAGS_BYTES;
    } else {
        b->chunk_bytes = b->page_size;
        int err = nk_fs_check_device(&b->placement, b->part, &b->diag);
        if (err)
            return err;
    }
    size_t need = nk_fs_build_workspace_size(b->part);
    if (!workspace || size < need)
        return nk_diag_set(&b->diag, -NK_EINVAL, "workspace of %zu bytes: the builder needs %zu",
                           workspace ? size : (size_t)0, need);
    b->page_buf = workspace;
    b->oob_buf = b->page_buf + b->page_size;
    return 0;
}

int nk_fs_build_begin(struct nk_fs_builder *b, const struct nk_fs_build_config *config,
                      void *workspace, size_t size)
{
    if (!b)
        return -NK_EINVAL;
    memset(b, 0, sizeof *b);
    b->block = NK_FS_NONE;
    b->next_seq = NK_FS_SEQ_LOWEST;
    b->next_obj = NK_FS_OBJ_FIRST_USER;
    if (!config || !config->part)
        return nk_fs_build_stop(b, nk_diag_set(&b->diag, -NK_EINVAL, "no partition given"));
    if ((unsigned)config->layout > NK_FS_LAYOUT_INBAND)
        return nk_fs_build_stop(
            b, nk_diag_set(&b->diag, -NK_EINVAL, "unknown layout %d", (int)config->layout));
    b->config = *config;
    b->part = config->part;
    if (nk_part_is_read_only(b->part))
        return nk_fs_build_stop(b, nk_diag_set(&b->diag, -NK_EROFS, "partition '%s' is read-only",
                                               b->part->name ? b->part->name : "?"));
    nk_fs_config_layout(&b->placement, config->layout);
    b->placement.part = b->part;
    int err = nk_fs_build_setup(b, workspace, size);
    if (err)
        return nk_fs_build_stop(b, err);

    b->stats.chunk_bytes = b->chunk_bytes;
    b->stats.pages_per_block = b->pages_per_block;
    b->stats.blocks = b->part->block_count;
    for (uint32_t block = 0; block < b->part->block_count; block++) {
        int bad = nk_fs_build_block_is_bad(b, block);
        if (bad < 0)
            return bad;
        if (bad)
            b->stats.blocks_bad++;
    }
    uint32_t good = b->stats.blocks - b->stats.blocks_bad;
    b->stats.chunks_capacity = (uint64_t)good * b->pages_per_block;
    if (good == 0)
        return nk_fs_build_stop(
            b, nk_diag_set(&b->diag, -NK_ENOSPC, "all %u blocks of partition '%s' are bad",
                           (unsigned)b->stats.blocks, b->part->name ? b->part->name : "?"));
    return 0;
}

uint64_t nk_fs_build_chunks(const struct nk_fs_builder *b, uint8_t type, uint64_t size)
{
    if (type != NK_FS_TYPE_FILE || b->chunk_bytes == 0)
        return 1;
    return 1 + (size + b->chunk_bytes - 1) / b->chunk_bytes;
}

void nk_fs_build_stats_get(const struct nk_fs_builder *b, struct nk_fs_build_stats *stats)
{
    *stats = b->stats;
}

/* ----- erasing and writing chunks ----------------------------------------------------- */

/* Erases every good block once, before the first chunk is written: nothing
 * of an earlier file system (whose sequence numbers may be higher than
 * ours) can survive to be read as newer than the tree being built. */
static int nk_fs_build_erase_all(struct nk_fs_builder *b)
{
    b->erased = true;
    for (uint32_t block = 0; block < b->part->block_count; block++) {
        int bad = nk_fs_build_block_is_bad(b, block);
        if (bad < 0)
            return bad;
        if (bad)
            continue;
        int err = nk_fs_io_erase(b->part, block);
        if (err == -NK_EIO) {
            err = nk_fs_build_retire(b, block, "erase");
            if (err)
                return err;
        } else if (err) {
            return nk_fs_build_stop(b, nk_diag_set(&b->diag, err, "erasing block %u failed: %s",
                                                   (unsigned)block, nk_strerror(err)));
        } else {
            b->stats.blocks_erased++;
        }
        nk_fs_build_progress(b);
    }
    return 0;
}

/* Checks that the build can write: not stopped, erased. */
static int nk_fs_build_ready(struct nk_fs_builder *b)
{
    if (b->failed)
        return b->failed;
    if (!b->erased)
        return nk_fs_build_erase_all(b);
    return 0;
}

/* Opens the next good block with the next sequence number. */
static int nk_fs_build_next_block(struct nk_fs_builder *b)
{
    uint32_t block = b->block == NK_FS_NONE ? 0 : b->block + 1;
    for (; block < b->part->block_count; block++) {
        int bad = nk_fs_build_block_is_bad(b, block);
        if (bad < 0)
            return bad;
        if (bad)
            continue;
        b->block = block;
        b->page = 0;
        b->stats.last_seq = b->next_seq++;
        if (!b->stats.first_seq)
            b->stats.first_seq = b->stats.last_seq;
        b->stats.blocks_used++;
        nk_fs_build_progress(b);
        return 0;
    }
    b->block = b->part->block_count;
    return nk_fs_build_stop(
        b, nk_diag_set(&b->diag, -NK_ENOSPC,
                       "no space left: the %u good blocks (%llu chunks of %u bytes) are full "
                       "after %llu chunks",
                       (unsigned)(b->stats.blocks - b->stats.blocks_bad - b->stats.blocks_retired),
                       (unsigned long long)b->stats.chunks_capacity, (unsigned)b->chunk_bytes,
                       (unsigned long long)b->stats.chunks_written));
}

/* Programs the chunk in page_buf (chunk_bytes of data) with `tags` into the
 * next free page. */
static int nk_fs_build_put_chunk(struct nk_fs_builder *b, struct nk_fs_tags *tags)
{
    if (b->block == NK_FS_NONE || b->page >= b->pages_per_block) {
        int err = nk_fs_build_next_block(b);
        if (err)
            return err;
    }
    tags->seq = b->stats.last_seq;
    nk_fs_chunk_place(&b->placement, b->page_size, b->oob_free, tags, b->page_buf, b->oob_buf);
    uint32_t page = b->block * b->pages_per_block + b->page;
    int err = nk_fs_io_program(b->part, page, b->page_buf, b->oob_free ? b->oob_buf : NULL);
    if (err == -NK_EIO) {
        err = nk_fs_build_retire(b, b->block, "program");
        if (err)
            return err;
        return nk_fs_build_stop(
            b, nk_diag_set(&b->diag, -NK_EIO,
                           "programming page %u failed: block %u is marked bad and the build "
                           "stopped (the image is incomplete)",
                           (unsigned)page, (unsigned)b->block));
    }
    if (err < 0)
        return nk_fs_build_stop(b, nk_diag_set(&b->diag, err, "programming page %u failed: %s",
                                               (unsigned)page, nk_strerror(err)));
    b->page++;
    b->stats.chunks_written++;
    return 0;
}

/* Writes `hdr` as object `obj_id`'s header chunk: extra-packed tags in the
 * linux and inband layouts, plain ones as mkyaffs2image writes in its own. */
static int nk_fs_build_put_header(struct nk_fs_builder *b, uint32_t obj_id,
                                  const struct nk_fs_header *hdr, const uint8_t *xattrs,
                                  size_t xattrs_len)
{
    int err = nk_fs_header_encode(hdr, b->page_buf, b->chunk_bytes);
    if (err)
        return nk_diag_set(&b->diag, err, "object %u: header does not encode", (unsigned)obj_id);
    if (xattrs_len)
        memcpy(b->page_buf + NK_FS_HEADER_BYTES, xattrs, xattrs_len);
    struct nk_fs_tags tags;
    nk_fs_chunk_header_tags(hdr, obj_id, b->config.layout == NK_FS_LAYOUT_MKYAFFS2, &tags);
    err = nk_fs_build_put_chunk(b, &tags);
    if (!err)
        b->stats.header_chunks++;
    return err;
}

/* ----- objects ------------------------------------------------------------------------ */

static bool nk_fs_build_id_given(const struct nk_fs_builder *b, uint32_t id)
{
    return id >= NK_FS_OBJ_FIRST_USER && id < b->next_obj;
}

/* `mode` in octal with a leading 0, for messages (nk_diag has no %o). */
struct nk_fs_build_octal {
    char text[16];
};

static struct nk_fs_build_octal nk_fs_build_octal(uint32_t mode)
{
    struct nk_fs_build_octal octal;
    char digits[12];
    unsigned n = 0;
    do {
        digits[n++] = (char)('0' + (mode & 7u));
        mode >>= 3;
    } while (mode);
    unsigned i = 0;
    octal.text[i++] = '0';
    while (n)
        octal.text[i++] = digits[--n];
    octal.text[i] = '\0';
    return octal;
}

/* The st_mode to store: type bits added when absent, checked when given. */
static int nk_fs_build_mode(struct nk_fs_builder *b, uint8_t type, uint32_t mode, uint32_t *out)
{
    uint32_t format = mode & NK_FS_S_IFMT;
    uint32_t want = 0;
    switch (type) {
    case NK_FS_TYPE_FILE:
    case NK_FS_TYPE_HARDLINK:
        want = NK_FS_S_IFREG;
        break;
    case NK_FS_TYPE_DIR:
        want = NK_FS_S_IFDIR;
        break;
    case NK_FS_TYPE_SYMLINK:
        want = NK_FS_S_IFLNK;
        break;
    default:
        break;
    }
    if (mode & ~(NK_FS_S_IFMT | 07777u))
        return nk_diag_set(&b->diag, -NK_EINVAL, "mode %s has bits outside st_mode",
                           nk_fs_build_octal(mode).text);
    if (type == NK_FS_TYPE_SPECIAL) {
        if (format != NK_FS_S_IFCHR && format != NK_FS_S_IFBLK && format != NK_FS_S_IFIFO &&
            format != NK_FS_S_IFSOCK)
            return nk_diag_set(&b->diag, -NK_EINVAL,
                               "a special object needs the type bits of a device, FIFO or "
                               "socket in its mode (%s)",
                               nk_fs_build_octal(mode).text);
    } else if (format == 0) {
        mode |= want;
    } else if (format != want) {
        return nk_diag_set(&b->diag, -NK_EINVAL, "mode %s does not have the type bits of a %s",
                           nk_fs_build_octal(mode).text, nk_fs_build_type_name(type));
    }
    *out = mode;
    return 0;
}

/* `name` (`len` bytes, not NUL-terminated) as a short C string for
 * messages: at most 48 bytes, "..." when cut. */
struct nk_fs_build_label {
    char text[52];
};

static struct nk_fs_build_label nk_fs_build_label(const char *name, size_t len)
{
    struct nk_fs_build_label label;
    size_t n = 0;
    for (; name && n < len && n < 48 && name[n]; n++)
        label.text[n] = name[n];
    if (n < len && name && name[n])
        for (unsigned i = 0; i < 3; i++)
            label.text[n++] = '.';
    label.text[n] = '\0';
    return label;
}

static int nk_fs_build_check_name(struct nk_fs_builder *b, const char *name, size_t len)
{
    if (len > NK_FS_NAME_MAX)
        return nk_diag_set(&b->diag, -NK_ENAMETOOLONG, "a name of %zu bytes: at most %u fit", len,
                           (unsigned)NK_FS_NAME_MAX);
    if (len == 0 || !name)
        return nk_diag_set(&b->diag, -NK_EINVAL, "an empty name");
    if (memchr(name, '/', len) || memchr(name, '\0', len))
        return nk_diag_set(&b->diag, -NK_EINVAL, "name '%s' contains '/' or NUL",
                           nk_fs_build_label(name, len).text);
    if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return nk_diag_set(&b->diag, -NK_EINVAL, "'%s' cannot be a name",
                           name[0] == '.' && len == 1 ? "." : "..");
    return 0;
}

static int nk_fs_build_check_entry(struct nk_fs_builder *b, const struct nk_fs_build_entry *e,
                                   uint32_t *mode)
{
    if (e->type < NK_FS_TYPE_FILE || e->type > NK_FS_TYPE_SPECIAL)
        return nk_diag_set(&b->diag, -NK_EINVAL, "unknown object type %u", (unsigned)e->type);
    int err = nk_fs_build_check_name(b, e->name, e->name_len);
    if (err)
        return err;
    struct nk_fs_build_label label = nk_fs_build_label(e->name, e->name_len);
    if (e->parent_id != NK_FS_OBJ_ROOT && e->parent_id != NK_FS_OBJ_LOST_FOUND &&
        !nk_fs_build_id_given(b, e->parent_id))
        return nk_diag_set(&b->diag, -NK_EINVAL, "'%s': parent %u was never built", label.text,
                           (unsigned)e->parent_id);
    if (e->type == NK_FS_TYPE_SYMLINK) {
        if (e->target_len > NK_FS_ALIAS_MAX)
            return nk_diag_set(&b->diag, -NK_ENAMETOOLONG,
                               "'%s': symlink target of %zu bytes, at most %u fit", label.text,
                               e->target_len, (unsigned)NK_FS_ALIAS_MAX);
        if (e->target_len && (!e->target || memchr(e->target, '\0', e->target_len)))
            return nk_diag_set(&b->diag, -NK_EINVAL, "'%s': symlink target contains NUL",
                               label.text);
    }
    if (e->type == NK_FS_TYPE_SPECIAL && e->attr.rdev > 0xffffu)
        return nk_diag_set(&b->diag, -NK_EOVERFLOW,
                           "'%s': device number 0x%x (major %u, minor %u) does not fit the 16 bits "
                           "Linux YAFFS2 stores (old_encode_dev: major and minor below 256)",
                           label.text, (unsigned)e->attr.rdev, (unsigned)(e->attr.rdev >> 8),
                           (unsigned)(e->attr.rdev & 0xffu));
    if (e->xattrs_len &&
        (!e->xattrs || e->type == NK_FS_TYPE_HARDLINK || e->xattrs_len >= nk_fs_build_xattr_room(b) ||
         !nk_fs_xattr_whole(e->xattrs, e->xattrs_len)))
        return nk_diag_set(&b->diag, -NK_EINVAL,
                           "'%s': %zu bytes of extended attributes that are not a list of "
                           "records shorter than %zu bytes%s",
                           label.text, e->xattrs_len, nk_fs_build_xattr_room(b),
                           e->type == NK_FS_TYPE_HARDLINK ? " (a hard link has its file's)" : "");
    if (e->type == NK_FS_TYPE_HARDLINK && !nk_fs_build_id_given(b, e->equiv_id))
        return nk_diag_set(&b->diag, -NK_EINVAL, "'%s': hard link to %u, which was never built",
                           label.text, (unsigned)e->equiv_id);
    return nk_fs_build_mode(b, e->type, e->attr.mode, mode);
}

static void nk_fs_build_fill_header(struct nk_fs_header *hdr, uint8_t type, uint32_t parent_id,
                                    const uint8_t *name, size_t name_len, uint32_t mode,
                                    const struct nk_fs_build_attr *attr)
{
    memset(hdr, 0, sizeof *hdr);
    hdr->type = type;
    hdr->parent_id = parent_id;
    hdr->name = name;
    hdr->name_len = (uint16_t)name_len;
    hdr->mode = mode;
    hdr->uid = attr->uid;
    hdr->gid = attr->gid;
    hdr->rdev = type == NK_FS_TYPE_SPECIAL ? attr->rdev : 0;
    hdr->atime = attr->atime;
    hdr->mtime = attr->mtime;
    hdr->ctime = attr->ctime;
}

static int nk_fs_build_not_open(struct nk_fs_builder *b)
{
    if (b->file_open)
        return nk_diag_set(&b->diag, -NK_EINVAL,
                           "file %u is still open: end it with nk_fs_build_file_end() first",
                           (unsigned)b->file_id);
    return 0;
}

int nk_fs_build_builtin(struct nk_fs_builder *b, uint32_t obj_id,
                        const struct nk_fs_build_attr *attr)
{
    if (!b)
        return -NK_EINVAL;
    if (b->failed)
        return b->failed;
    int err = nk_fs_build_not_open(b);
    if (err)
        return err;
    if (obj_id != NK_FS_OBJ_ROOT && obj_id != NK_FS_OBJ_LOST_FOUND)
        return nk_diag_set(&b->diag, -NK_EINVAL,
                           "object %u is not a built-in directory (root 1, lost+found 2)",
                           (unsigned)obj_id);
    uint32_t mode = 0;
    err = nk_fs_build_mode(b, NK_FS_TYPE_DIR, attr->mode, &mode);
    if (err)
        return err;
    err = nk_fs_build_ready(b);
    if (err)
        return err;
    /* As YAFFS2 writes them: the root with parent 0 and no name,
     * lost+found under the root by its name. */
    static const char lost_found[] = "lost+found";
    struct nk_fs_header hdr;
    if (obj_id == NK_FS_OBJ_ROOT)
        nk_fs_build_fill_header(&hdr, NK_FS_TYPE_DIR, 0, NULL, 0, mode, attr);
    else
        nk_fs_build_fill_header(&hdr, NK_FS_TYPE_DIR, NK_FS_OBJ_ROOT, (const uint8_t *)lost_found,
                                sizeof lost_found - 1, mode, attr);
    return nk_fs_build_put_header(b, obj_id, &hdr, NULL, 0);
}

int nk_fs_build_object(struct nk_fs_builder *b, const struct nk_fs_build_entry *entry,
                       uint32_t *obj_id)
{
    if (!b)
        return -NK_EINVAL;
    if (b->failed)
        return b->failed;
    if (!entry)
        return nk_diag_set(&b->diag, -NK_EINVAL, "no entry given");
    int err = nk_fs_build_not_open(b);
    if (err)
        return err;
    uint32_t mode = 0;
    err = nk_fs_build_check_entry(b, entry, &mode);
    if (err)
        return err;
    if (b->next_obj > NK_FS_OBJ_MAX)
        return nk_fs_build_stop(b,
                                nk_diag_set(&b->diag, -NK_ENOSPC,
                                            "object ids exhausted: YAFFS2 ids end at 0x%x "
                                            "(%u objects built)",
                                            (unsigned)NK_FS_OBJ_MAX, (unsigned)b->stats.objects));
    err = nk_fs_build_ready(b);
    if (err)
        return err;

    uint32_t id = b->next_obj++;
    b->stats.last_obj_id = id;
    b->stats.objects++;
    if (obj_id)
        *obj_id = id;
    switch (entry->type) {
    case NK_FS_TYPE_FILE:
        b->stats.files++;
        b->file_open = true;
        b->file_id = id;
        b->file_parent = entry->parent_id;
        b->file_next_chunk = 1;
        b->file_fill = 0;
        b->file_size = 0;
        b->file_attr = entry->attr;
        b->file_attr.mode = mode;
        b->file_name_len = (uint16_t)entry->name_len;
        memcpy(b->file_name, entry->name, entry->name_len);
        b->file_header_first = b->config.layout == NK_FS_LAYOUT_MKYAFFS2;
        b->file_declared = entry->size;
        b->file_xattrs = entry->xattrs;
        b->file_xattrs_len = entry->xattrs_len;
        if (!b->file_header_first)
            return 0;
        /* mkyaffs2image's order: the header (with the size) first. */
        struct nk_fs_header file_header;
        nk_fs_build_fill_header(&file_header, NK_FS_TYPE_FILE, b->file_parent, b->file_name,
                                b->file_name_len, mode, &b->file_attr);
        file_header.size = entry->size;
        return nk_fs_build_put_header(b, id, &file_header, entry->xattrs, entry->xattrs_len);
    case NK_FS_TYPE_DIR:
        b->stats.dirs++;
        break;
    case NK_FS_TYPE_SYMLINK:
        b->stats.symlinks++;
        break;
    case NK_FS_TYPE_HARDLINK:
        b->stats.hardlinks++;
        break;
    default:
        b->stats.specials++;
        break;
    }
    struct nk_fs_header hdr;
    nk_fs_build_fill_header(&hdr, entry->type, entry->parent_id, (const uint8_t *)entry->name,
                            entry->name_len, mode, &entry->attr);
    if (entry->type == NK_FS_TYPE_SYMLINK) {
        hdr.alias = (const uint8_t *)entry->target;
        hdr.alias_len = (uint16_t)entry->target_len;
    } else if (entry->type == NK_FS_TYPE_HARDLINK) {
        hdr.equiv_id = entry->equiv_id;
    }
    return nk_fs_build_put_header(b, id, &hdr, entry->xattrs, entry->xattrs_len);
}

/* ----- file data ---------------------------------------------------------------------- */

/* Writes the open file's pending bytes (page_buf[0 .. file_fill)) as its
 * next data chunk. The rest of a short last chunk is zeros: YAFFS2 reads
 * whole chunks, and a YAFFS2 that extends the file must find zeros there. */
static int nk_fs_build_flush_data(struct nk_fs_builder *b)
{
    memset(b->page_buf + b->file_fill, 0, b->chunk_bytes - b->file_fill);
    struct nk_fs_tags tags;
    memset(&tags, 0, sizeof tags);
    tags.obj_id = b->file_id;
    tags.chunk_id = b->file_next_chunk;
    tags.n_bytes = b->file_fill;
    int err = nk_fs_build_put_chunk(b, &tags);
    if (err)
        return err;
    b->stats.data_chunks++;
    b->stats.data_bytes += b->file_fill;
    b->file_next_chunk++;
    b->file_fill = 0;
    return 0;
}

static int nk_fs_build_file_check(struct nk_fs_builder *b)
{
    if (b->failed)
        return b->failed;
    if (!b->file_open)
        return nk_diag_set(&b->diag, -NK_EINVAL, "no file is open");
    return 0;
}

int nk_fs_build_data(struct nk_fs_builder *b, const void *data, size_t len)
{
    if (!b || (!data && len))
        return -NK_EINVAL;
    int err = nk_fs_build_file_check(b);
    if (err)
        return err;
    if (len && !data)
        return nk_diag_set(&b->diag, -NK_EINVAL, "no data given");
    const uint8_t *p = data;
    while (len) {
        if (b->file_fill == 0 && b->file_next_chunk > NK_FS_CHUNK_ID_MAX)
            return nk_fs_build_stop(
                b, nk_diag_set(&b->diag, -NK_EFBIG,
                               "file %u: %llu bytes reach the highest chunk id YAFFS2 has",
                               (unsigned)b->file_id, (unsigned long long)b->file_size));
        size_t room = b->chunk_bytes - b->file_fill;
        size_t n = len < room ? len : room;
        memcpy(b->page_buf + b->file_fill, p, n);
        b->file_fill += (uint32_t)n;
        b->file_size += n;
        p += n;
        len -= n;
        if (b->file_fill == b->chunk_bytes) {
            err = nk_fs_build_flush_data(b);
            if (err)
                return err;
        }
    }
    return 0;
}

int nk_fs_build_file_end(struct nk_fs_builder *b)
{
    if (!b)
        return -NK_EINVAL;
    int err = nk_fs_build_file_check(b);
    if (err)
        return err;
    if (b->file_fill) {
        err = nk_fs_build_flush_data(b);
        if (err)
            return err;
    }
    if (b->file_header_first) {
        if (b->file_size != b->file_declared)
            return nk_fs_build_stop(
                b, nk_diag_set(&b->diag, -NK_EINVAL,
                               "file %u: %llu bytes of data, but its header (written first) "
                               "says %llu",
                               (unsigned)b->file_id, (unsigned long long)b->file_size,
                               (unsigned long long)b->file_declared));
        b->file_open = false;
        return 0;
    }
    struct nk_fs_header hdr;
    nk_fs_build_fill_header(&hdr, NK_FS_TYPE_FILE, b->file_parent, b->file_name, b->file_name_len,
                            b->file_attr.mode, &b->file_attr);
    hdr.size = b->file_size;
    err = nk_fs_build_put_header(b, b->file_id, &hdr, b->file_xattrs, b->file_xattrs_len);
    if (err)
        return err;
    b->file_open = false;
    return 0;
}

size_t nk_fs_build_xattr_room(const struct nk_fs_builder *b)
{
    return b && b->chunk_bytes > NK_FS_HEADER_BYTES ? b->chunk_bytes - NK_FS_HEADER_BYTES : 0;
}

int nk_fs_build_finish(struct nk_fs_builder *b, struct nk_fs_build_stats *stats)
{
    if (!b)
        return -NK_EINVAL;
    int err = b->failed;
    if (!err)
        err = nk_fs_build_not_open(b);
    if (!err)
        err = nk_fs_build_ready(b);
    if (stats)
        *stats = b->stats;
    return err;
}
