/* SPDX-License-Identifier: MIT */
/*
 * File-system internals shared between the files of src/fs/.
 *
 * The RAM model (docs/fs-design.md): one `struct nk_fs_obj` per live object
 * in a hash table keyed by object id; directories hold a singly linked list
 * of their children; a file holds a chunk map (chunk id -> page) packed at
 * fs->map_bits bits per entry; one `struct nk_fs_block` per block and one bit
 * per page. Names, modes, times and symlink targets stay on flash and are
 * read on demand through the one-page cache fs->page_buf.
 */
#ifndef NK_FS_INTERNAL_H
#define NK_FS_INTERNAL_H

#include "fs/fs_codec.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"

/* ----- little-endian fields -------------------------------------------------------- */

static inline uint32_t nk_fs_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void nk_fs_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ----- blocks ------------------------------------------------------------------------ */

enum nk_fs_block_state {
    NK_FS_BLOCK_UNKNOWN = 0,
    NK_FS_BLOCK_BAD,        /* marker or BBT: never touched */
    NK_FS_BLOCK_EMPTY,      /* first page unwritten */
    NK_FS_BLOCK_CHECKPOINT, /* YAFFS checkpoint data: skipped */
    NK_FS_BLOCK_IN_USE,     /* holds file-system chunks */
    NK_FS_BLOCK_JUNK,       /* written, but no usable sequence number */
    NK_FS_BLOCK_ERASED,     /* erased by this mount: ready for allocation */
};

/* Block flags (nk_fs_block.flags). */
#define NK_FS_BLK_KEEP                                                                             \
    0x01u /* holds a shrink, deletion or shadowing header: collected only when it is the oldest    \
             block in use */
#define NK_FS_BLK_SCRUB 0x02u  /* live data to move soon (bitflips, or possibly cut) */
#define NK_FS_BLK_RETIRE 0x04u /* a program failed: move its live data, then mark it bad */
#define NK_FS_BLK_STUCK 0x08u  /* a live chunk cannot be read: never collected */
#define NK_FS_BLK_CLOSED 0x10u /* no more pages are written into it */
#define NK_FS_BLK_LISTED                                                                           \
    0x20u /* stuck, and the objects of its chunks are in stuck_ids: it no longer holds the         \
             oldest-block rule back */
#define NK_FS_BLK_LOST_TAGS                                                                        \
    0x40u /* scan: a page whose tags failed and whose data reads as a header */

/* Per-block RAM: 12 bytes. */
struct nk_fs_block {
    uint32_t seq;
    uint16_t live;    /* live chunks (headers and data) */
    uint16_t written; /* pages written (first unwritten page) */
    uint16_t erases;  /* erases seen since mount (saturating) */
    uint8_t state;    /* enum nk_fs_block_state */
    uint8_t flags;    /* NK_FS_BLK_* */
};

/* ----- objects ----------------------------------------------------------------------- */

/* Object flags. */
#define NK_FS_OBJ_VALID 0x01u    /* its newest header has been seen */
#define NK_FS_OBJ_DEAD 0x02u     /* deleted, unlinked or shadowed: freed after the scan */
#define NK_FS_OBJ_HASHED 0x04u   /* name_hash holds the hash of its name */
#define NK_FS_OBJ_ORPHAN 0x08u   /* moved into lost+found */
#define NK_FS_OBJ_LINKED 0x10u   /* a file with hard links to it */
#define NK_FS_OBJ_WALKING 0x20u  /* resolve: on the parent walk in progress */
#define NK_FS_OBJ_ROOTED 0x40u   /* resolve: its parent chain reaches the root */
#define NK_FS_OBJ_DANGLING 0x80u /* a hard link without a usable target */

/* Chunk-map shapes (nk_fs_obj.map_height). */
#define NK_FS_MAP_EMPTY 0xffu  /* no data chunk */
#define NK_FS_MAP_INLINE 0xfeu /* only chunk 1, its page in u.inline_page */
/* 0..NK_FS_MAP_MAX_HEIGHT: a tree rooted at u.map_root */

struct nk_fs_obj {
    struct nk_fs_obj *hash_next; /* same hash bucket */
    struct nk_fs_obj *sibling;   /* next child of the same directory */
    union {
        void *map_root;             /* files: chunk map tree */
        uint32_t inline_page;       /* files: page of chunk 1 (NK_FS_MAP_INLINE) */
        struct nk_fs_obj *children; /* directories */
        uint32_t equiv_id;          /* hard links: target object id */
    } u;
    uint64_t size; /* files: bytes (while scanning without a header: extent seen) */
    uint32_t id;
    uint32_t parent_id;
    uint32_t header_page;     /* page of the newest header, NK_FS_NONE without one */
    uint32_t shrink_limit; /* scan: older data chunks above this id are dead */
    uint16_t name_hash;
    uint8_t type;       /* enum nk_fs_type; UNKNOWN until a header says */
    uint8_t flags;      /* NK_FS_OBJ_* */
    uint8_t map_height; /* NK_FS_MAP_* or tree height */
    uint8_t opens;      /* open file handles */
    uint8_t wflags;     /* NK_FS_W_* */
};

/* Write-side object flags (nk_fs_obj.wflags). */
#define NK_FS_W_HEADER_DIRTY 0x01u /* size changed since its newest header */
#define NK_FS_W_UNLINKED 0x02u  /* unlinked while open: freed on the last close */
#define NK_FS_W_SIZE_IN_DATA                                                                       \
    0x04u /* the newest data chunk ends at the size: a mount                                       \
             reads the size from it, no header needed */
#define NK_FS_W_SHADOWED                                                                           \
    0x08u /* scan: a newer header renamed over it; resolve keeps it only when hard links still     \
             lead to it */
#define NK_FS_W_DISPLACED                                                                          \
    0x10u /* a file whose own name was renamed over while hard links to it remain: reachable only  \
             through them, in no directory, until a read-write mount gives it a link's name */
#define NK_FS_W_TOUCHED                                                                            \
    0x20u /* data changed since its newest header (with a clock): the next header stamps mtime     \
             and ctime, and stat reports the clock's time meanwhile */
#define NK_FS_W_STALE                                                                              \
    0x40u /* a header newer than its newest one lost its tags: what it is now is unknown (opens    \
             give EIO) until a new header of it is written */

/* ----- memory (memory.c) ---------------------------------------------------------------- */

void *nk_fs_mem_alloc(struct nk_fs *fs, size_t size);
void nk_fs_mem_free(struct nk_fs *fs, void *ptr, size_t size);

/* ----- chunk maps (chunkmap.c) ------------------------------------------------------------ */

#define NK_FS_MAP_MAX_HEIGHT 8

/* Page of data chunk `chunk_id` of `obj`, or NK_FS_NONE. */
uint32_t nk_fs_map_get(const struct nk_fs *fs, const struct nk_fs_obj *obj, uint32_t chunk_id);

/* Sets chunk `chunk_id` (1..NK_FS_CHUNK_ID_MAX) to `page` (NK_FS_NONE
 * clears it). 0 or -NK_ENOMEM (the map is unchanged): a leaf whose chunks
 * stop forming few runs takes the packed form. */
int nk_fs_map_set(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t chunk_id, uint32_t page);

/* Frees the whole map. */
void nk_fs_map_free(struct nk_fs *fs, struct nk_fs_obj *obj);

/* Drops every chunk above `keep` (a truncation), never allocating. */
void nk_fs_map_cut(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t keep);

/* Calls `fn` for every mapped chunk in increasing chunk id order; stops and
 * returns the first non-zero value it returns. */
typedef int (*nk_fs_map_fn)(void *ctx, uint32_t chunk_id, uint32_t page);
int nk_fs_map_walk(const struct nk_fs *fs, const struct nk_fs_obj *obj, nk_fs_map_fn fn, void *ctx);

/* Bytes of RAM a map node of each kind takes (for the design figures):
 * a packed leaf, a run leaf, an inner node. */
size_t nk_fs_map_leaf_bytes(const struct nk_fs *fs);
size_t nk_fs_map_run_leaf_bytes(void);
size_t nk_fs_map_node_bytes(void);

/* ----- objects (object.c) ------------------------------------------------------------------ */

struct nk_fs_obj *nk_fs_obj_find(const struct nk_fs *fs, uint32_t id);

/* Finds `id` or creates it (type UNKNOWN, no header). NULL on -NK_ENOMEM. */
struct nk_fs_obj *nk_fs_obj_get(struct nk_fs *fs, uint32_t id);

/* Unhooks `obj` from the hash table and frees it with its map. */
void nk_fs_obj_free(struct nk_fs *fs, struct nk_fs_obj *obj);
/* Keep the hard-link count stat caches (fs->links_file) as a link comes or goes. */
void nk_fs_links_added(struct nk_fs *fs, const struct nk_fs_obj *link);
void nk_fs_links_forget(struct nk_fs *fs, const struct nk_fs_obj *link);

/* Frees every object. */
void nk_fs_obj_free_all(struct nk_fs *fs);

/* Whether a file handle may write. */
bool nk_fs_file_writable(const struct nk_fs_file *file);

/* Iterates every object: start with NULL, returns NULL after the last. */
struct nk_fs_obj *nk_fs_obj_next(const struct nk_fs *fs, const struct nk_fs_obj *obj,
                                 uint32_t *bucket);

/* 16-bit hash of a name. */
uint16_t nk_fs_name_hash(const uint8_t *name, size_t len);

/* Whether `obj` is a directory (root and lost+found included). */
bool nk_fs_obj_is_dir(const struct nk_fs_obj *obj);

/* Whether a stored name is one readdir can hand out and a path can reach. */
bool nk_fs_name_usable(const uint8_t *name, size_t len);

/* The name of `obj` into `name` (NK_FS_NAME_MAX + 1 bytes, NUL-terminated):
 * from its header, or "objN" without one. Sets its name hash. Returns the
 * length or -NK_EIO when the header failed ECC. */
int nk_fs_obj_name(struct nk_fs *fs, struct nk_fs_obj *obj, char *name);

/* Sets the name hash of `obj` from its decoded header. */
void nk_fs_obj_hash_header(struct nk_fs_obj *obj, const struct nk_fs_header *hdr);

/* Whether `obj` is named `name` (`len` bytes): 1 or 0, or -NK_EIO when its
 * header failed ECC. Uses and sets the name hash. */
int nk_fs_obj_name_equals(struct nk_fs *fs, struct nk_fs_obj *obj, const char *name, size_t len);

/* Reads the newest header of `obj` (through the page cache) into `hdr`,
 * whose pointers then refer to fs->page_buf. Returns 0, -NK_ENOENT when the
 * object has no header, -NK_EIO on ECC failure or a header that no longer
 * belongs to the object. */
int nk_fs_obj_header(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header *hdr);
/* The same read without the decoding: the header chunk is in fs->page_buf. */
int nk_fs_obj_header_load(struct nk_fs *fs, const struct nk_fs_obj *obj);

/* The file a hard link leads to (or `obj` itself), NULL when dangling. */
struct nk_fs_obj *nk_fs_obj_target(const struct nk_fs *fs, struct nk_fs_obj *obj);

/* The clock's time into *now; false without a clock (config.clock). */
bool nk_fs_now(const struct nk_fs *fs, uint64_t *now);

/* Fills `st` for `obj`. */
int nk_fs_obj_stat(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_stat *st);

/* On a damaged file system: whether `obj` may have lost chunks (a file with
 * a hole below its size, or an object without a header). */
bool nk_fs_obj_at_risk(const struct nk_fs *fs, const struct nk_fs_obj *obj);

/* ----- page reads and the page cache (page.c) ----------------------------------------------- */

/* Reads `page` with ECC, its data into `data` and its free OOB bytes into
 * fs->oob_buf, counting corrected and failed reads. Returns 0 (corrected
 * bitflips included), -NK_EIO when uncorrectable, or a device error.
 * Invalidates the page cache. */
int nk_fs_page_read(struct nk_fs *fs, uint32_t page, uint8_t *data);

/* As nk_fs_page_read(), by the device's copy-back load where it has one:
 * the page that nk_fs_put_moved() then programs by copy-back. */
int nk_fs_page_read_for_move(struct nk_fs *fs, uint32_t page, uint8_t *data);

/* nk_fs_page_read() into fs->page_buf, or nothing when it is cached. */
int nk_fs_page_load(struct nk_fs *fs, uint32_t page);

/* Decodes the tags of the page just read into fs->page_buf / fs->oob_buf. */
int nk_fs_tags_from_buffers(const struct nk_fs *fs, struct nk_fs_tags *tags);

/* Reads the tags of `page`: an nk_fs_tags_status, -NK_EBADMSG when they
 * are unusable, or a device error. */
int nk_fs_read_tags(struct nk_fs *fs, uint32_t page, struct nk_fs_tags *tags);

/* ----- device checks (mount.c) ---------------------------------------------------------------- */

/* Checks that `part`'s device can carry the tags `placement` describes:
 * enough free OOB bytes (as its ECC engine and OOB layout leave), tags clear
 * of the bad-block marker when markers are read (linux), tags at their
 * fixed OOB bytes and no data ECC code when they are not (mkyaffs2).
 * Returns 0, or -NK_EINVAL with a message in `diag` naming the layout's
 * need and the device's ECC and OOB size. */
int nk_fs_check_device(const struct nk_fs_config *placement, const struct nk_part *part,
                       struct nk_diag *diag);

/* ----- the one writer of the format (chunk.c) -------------------------------------------- */

/* Device access of the file system and the builder: every program, erase and
 * bad-block call goes through these, so the device layer's interface is used
 * in one place. */
int nk_fs_io_program(struct nk_part *part, uint32_t page, const uint8_t *data, const uint8_t *oob);
int nk_fs_io_erase(struct nk_part *part, uint32_t block);
int nk_fs_io_is_bad(struct nk_part *part, uint32_t block);
int nk_fs_io_mark_bad(struct nk_part *part, uint32_t block);
bool nk_fs_io_tracks_bad_blocks(const struct nk_part *part); /* a table or an outside authority */
bool nk_fs_io_read_only(const struct nk_part *part);

/* Places `tags` for `placement`: in-band into the last 16 bytes of `page`
 * (page_size bytes), else into `oob` (oob_free bytes, set to 0xFF first)
 * at the tags offset, with the tags ECC unless the layout has none. */
void nk_fs_chunk_place(const struct nk_fs_config *placement, uint32_t page_size, uint32_t oob_free,
                       const struct nk_fs_tags *tags, uint8_t *page, uint8_t *oob);

/* The page check word of layouts without a data ECC (fs->data_check): a
 * CRC-32 of the page's data bytes in 4 OOB bytes after the tags, which
 * YAFFS2 and mkyaffs2image leave unused (0xFF). A torn program lands part
 * of the page's bits, tags maybe all of theirs; the word then disagrees.
 * nk_fs_check_fails() is false when the word is absent (all 0xFF). */
void nk_fs_check_stamp(const uint8_t *data, uint32_t data_bytes, uint8_t *check);
bool nk_fs_check_fails(const uint8_t *data, uint32_t data_bytes, const uint8_t *check);

/* The tags of a header chunk: extra packing (type, parent, shrink, shadow
 * bits, size or link target) unless `plain` (as mkyaffs2image writes) or a
 * file of 2^31 bytes or more. */
void nk_fs_chunk_header_tags(const struct nk_fs_header *hdr, uint32_t obj_id, bool plain,
                             struct nk_fs_tags *tags);

/* Summary chunks per block (0 when the geometry has no room), as YAFFS2. */
uint32_t nk_fs_summary_chunks(uint32_t pages_per_block, uint32_t chunk_bytes);

/* Appends `tags` (words 4..15, extra packing included) as summary entry. */
void nk_fs_summary_entry(const struct nk_fs_tags *tags, uint8_t entry[12]);

/* Fills summary chunk `index` (data in `page`, its tags in *tags) for
 * `covered` entries at `entries`, block `block` and sequence `seq`. */
void nk_fs_summary_chunk(uint32_t index, const uint8_t *entries, uint32_t covered,
                         uint32_t chunk_bytes, uint32_t block, uint32_t seq, uint8_t *page,
                         struct nk_fs_tags *tags);

/* ----- writing (write.c, gc.c, recover.c, file_write.c, tree.c) ------------------------------- */

/* Erased blocks a write never takes below (collections and deletions may). */
#define NK_FS_MIN_RESERVE 2u

/* Pages of a block that hold chunks (the rest hold its summary). */
static inline uint32_t nk_fs_data_pages(const struct nk_fs *fs)
{
    return fs->pages_per_block - fs->summary_chunks;
}

/* Whether `page` holds a live chunk. */
static inline bool nk_fs_page_live(const struct nk_fs *fs, uint32_t page)
{
    return (fs->chunk_bits[page / 32] >> (page % 32)) & 1u;
}

/* Sets up the writer after a read-write mount's scan (no flash access). */
int nk_fs_write_init(struct nk_fs *fs);
void nk_fs_write_release(struct nk_fs *fs);

/* After a read-write mount: writes again the chunk in the last page of every
 * partly written block (a power cut may have left it weak). 0, an error,
 * or NK_FS_RESCAN: a page the scan took as whole failed to read; it is in
 * nk_fs.cut_pages, and the mount must scan again without it. */
int nk_fs_write_recover(struct nk_fs *fs);
#define NK_FS_RESCAN 2

/* Whether `page` is one of nk_fs.cut_pages (read as torn by the scan). */
bool nk_fs_page_was_cut(const struct nk_fs *fs, uint32_t page);

/* Lists the objects of the chunks in stuck block `block` (see struct
 * nk_fs.stuck_ids) and takes its pages out of the usable space. 0 or a
 * device error; a full list leaves the block unlisted. */
int nk_fs_list_stuck(struct nk_fs *fs, uint32_t block);

/* Whether object `obj_id` has chunks in a listed stuck block. */
bool nk_fs_stuck_has(const struct nk_fs *fs, uint32_t obj_id);

/* Gives every displaced file (NK_FS_W_DISPLACED) the name of one of its hard
 * links, as the rename that displaced it would have done next. 0 or an
 * error (-NK_ENOSPC leaves them displaced: still right in RAM). */
int nk_fs_settle_displaced(struct nk_fs *fs);

/* Before a write: erases checkpoint blocks on the first one, moves data off
 * failing or suspect blocks, and collects garbage until `pages` programs fit
 * (with `new_live` more live chunks; `deleting` may use the reserve).
 * Returns 0, -NK_EROFS, -NK_ENOSPC or a device error. */
int nk_fs_make_room(struct nk_fs *fs, uint32_t pages, uint32_t new_live, bool deleting);

/* The block the collector would take next, or NK_FS_NONE (the policy:
 * src/fs/gc.c, docs/fs-design.md 7.6). `urgent`: a block to retire or
 * scrub; `wear`: a static wear-levelling move (only when `wear_ok`). */
uint32_t nk_fs_pick_victim(struct nk_fs *fs, bool *urgent, bool wear_ok, bool *wear);

/* Collects block `victim` now: moves its live chunks, then erases (or
 * retires) it. The victim policy calls it; tests call it to choose a victim
 * themselves. It must not be the allocation block; the cold block is closed
 * first. */
int nk_fs_collect(struct nk_fs *fs, uint32_t victim);

/* How nk_fs_move_page() moves a page. */
#define NK_FS_MOVE_SUSPECT 0x1u /* a power cut may have torn it: read with its check word */
#define NK_FS_MOVE_COLD 0x2u    /* a collection's copy: to the cold block (7.6) */

/* Copies the chunk at `page` when it is live: a data chunk as it is (cut to
 * the file's size), a header as a fresh header of its object; a deletion
 * header an object with chunks in a stuck block needs is written again.
 * With NK_FS_MOVE_SUSPECT a deletion header (of an object no longer in RAM)
 * is copied too, as it is. Returns 0, 1 when the page cannot be read (it
 * stays), or an error. */
int nk_fs_move_page(struct nk_fs *fs, uint32_t page, unsigned how);

/* Pages that can be programmed without collecting (the cold block's are
 * for copies only). */
uint64_t nk_fs_free_pages(const struct nk_fs *fs);

/* Programs the chunk in `page` (page_size bytes: chunk data, room for
 * in-band tags) with `tags` into the next free page of the allocation
 * block. Returns the page or a negative error. */
int64_t nk_fs_put_chunk(struct nk_fs *fs, struct nk_fs_tags *tags, uint8_t *page);

/* As nk_fs_put_chunk() for a chunk moved out of another page: with `copy`
 * (a collection's copy) into the cold block where the policy keeps one;
 * by copy-back from page `copy_back_from` (just read with
 * nk_fs_page_read_for_move(), data and tags unchanged) unless that is
 * NK_FS_NONE. */
int64_t nk_fs_put_moved(struct nk_fs *fs, struct nk_fs_tags *tags, uint8_t *page, bool copy,
                        uint32_t copy_back_from);

/* Closes the open block (`cold`: the cold block) before it is full (no
 * summary: a mount reads it page by page; its unwritten pages count as dead
 * until it is collected). An open block with nothing written goes back to
 * the erased ones. */
void nk_fs_close_early(struct nk_fs *fs, bool cold);

/* Takes `block` out of service: the bad-block layer marks it (marker and
 * table); with `erase_first` it is erased before (a failed program). */
void nk_fs_retire(struct nk_fs *fs, uint32_t block, bool erase_first);

/* Block summaries (docs/fs-format.md): the version word, the bytes before
 * the entries in each summary chunk, and the bytes of one entry. */
#define NK_FS_SUMMARY_VERSION 1u
#define NK_FS_SUMMARY_HEADER 16u
#define NK_FS_SUMMARY_ENTRY 12u

/* Sequential writes: at most NK_FS_RUN_PAGES whole chunks whose OOB bytes
 * fit in NK_FS_RUN_OOB go to flash in one multi-page program (cache
 * program where the chip has it). */
#define NK_FS_RUN_PAGES 8u
#define NK_FS_RUN_OOB 512u

/* fs->oob_buf holds one page's free OOB bytes, or a whole run's (page i's
 * at i * oob_free), so no run keeps its OOB bytes on the stack. */
static inline size_t nk_fs_oob_buf_bytes(const struct nk_fs *fs)
{
    if (fs->oob_free == 0)
        return 1;
    uint32_t pages = NK_FS_RUN_OOB / fs->oob_free;
    if (pages > NK_FS_RUN_PAGES)
        pages = NK_FS_RUN_PAGES;
    return (size_t)(pages ? pages : 1u) * fs->oob_free;
}

/* Writes whole data chunks `first_chunk`.. of `obj` from `data` (at most
 * `count`) to consecutive pages of the allocation block with one
 * multi-page program, and maps them. Returns the number written (the
 * chunks are on flash when it returns), 0 when the single-chunk path must
 * be taken (in-band tags, fewer than two pages left in the block, a failed
 * block), or a negative error. */
int nk_fs_put_run(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t first_chunk,
                  const uint8_t *data, uint32_t count);

/* Live-chunk accounting. */
void nk_fs_live_set(struct nk_fs *fs, uint32_t page);
void nk_fs_live_clear(struct nk_fs *fs, uint32_t page);

/* A change of an object's header attributes (tree.c): the fields flagged,
 * and with `xattr` a change to its attribute list. */
struct nk_fs_xattr_change;
struct nk_fs_attr_change {
    bool mode, owner, times;
    bool no_follow; /* a final symlink is changed itself */
    uint32_t mode_bits, uid, gid;
    uint64_t atime, mtime;
    const struct nk_fs_xattr_change *xattr;
};
/* Writes `path`'s header (its file's, for a hard link) with `c` applied and
 * the clock's ctime. Returns 0, a lookup error, -NK_EROFS, -NK_ENOTSUP (an
 * attribute change without room after the header), or the write's. */
int nk_fs_set_attr(struct nk_fs *fs, const char *path, const struct nk_fs_attr_change *c);

/* ----- extended attributes (xattr.c) ----- */

/* A change to an attribute list: set `name` to `value` (`size` bytes), or
 * remove it when `value` is NULL. */
struct nk_fs_xattr_change {
    const char *name;
    size_t name_len;
    const void *value;
    size_t size;
    int flags; /* NK_FS_XATTR_CREATE, NK_FS_XATTR_REPLACE */
};
/* Checks an attribute name: -NK_EINVAL (empty), -NK_ERANGE (too long). */
int nk_fs_xattr_name_check(const char *name, size_t *name_len);
/* Whether `len` bytes are records and nothing else (a builder's list). */
bool nk_fs_xattr_whole(const uint8_t *list, size_t len);
/* Bytes the list at `area` (`len` bytes) holds. */
size_t nk_fs_xattr_used(const uint8_t *area, size_t len);
/* Applies `c` to the list: 0, -NK_ENODATA, -NK_EEXIST, -NK_ENOSPC. */
int nk_fs_xattr_apply(uint8_t *area, size_t len, const struct nk_fs_xattr_change *c);
/* getxattr(2)/listxattr(2) on a list: the value's or the names' length
 * (with `size` 0 only the length), -NK_ENODATA, -NK_ERANGE. */
int nk_fs_xattr_get(const uint8_t *area, size_t len, const char *name, size_t name_len,
                    void *value, size_t size);
int nk_fs_xattr_list(const uint8_t *area, size_t len, char *list, size_t size);
/* Copies the list of `obj`'s newest header into `page` (a header chunk being
 * written): 0 (also when it has none) or the read's error. */
int nk_fs_xattr_keep(struct nk_fs *fs, struct nk_fs_obj *obj, uint8_t *page);

/* Writes object `obj`'s header (its current header edited by `edit`, or
 * built from scratch). */
struct nk_fs_header_edit {
    struct nk_fs_header hdr;
    uint8_t name[NK_FS_NAME_MAX];
    uint8_t alias[NK_FS_ALIAS_MAX];
    bool was_shrink;      /* the loaded header's shrink flag (cleared in hdr) */
    uint32_t was_shadows; /* the loaded header's shadowed id (cleared in hdr) */
    const struct nk_fs_xattr_change *xattr; /* applied to the attribute list, or NULL */
};
/* Edits live in the mounted fs, not on the stack (each is 576 B): a call
 * takes one, and gives it back on every return path, last taken first
 * given. Unlinking a name of a file with hard links holds two, nothing
 * holds more. Take returns NULL when every slot is held (or the mount is
 * read-only); give of anything but the last one taken is ignored and
 * leaves the depth, so a test sees the imbalance. */
#define NK_FS_EDIT_SLOTS 2
struct nk_fs_header_edit *nk_fs_edit_take(struct nk_fs *fs);
void nk_fs_edit_give(struct nk_fs *fs, struct nk_fs_header_edit *edit);
int nk_fs_header_load(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header_edit *edit);
int nk_fs_header_store(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header_edit *edit);
/* Writes `obj`'s header again as it is (size and attributes from RAM). */
int nk_fs_header_rewrite(struct nk_fs *fs, struct nk_fs_obj *obj);
/* Writes `hdr` as `obj`'s new header (type, parent, size and link filled in
 * from `obj`); with `copy`, as a collection's copy (nk_fs_put_moved()). Its
 * name and alias may point into the fs's read page (fs->page_buf): the
 * header is encoded before anything else is read. */
int nk_fs_header_write(struct nk_fs *fs, struct nk_fs_obj *obj, struct nk_fs_header *hdr,
                       const struct nk_fs_xattr_change *xattr, bool copy);

/* The write buffer: flush makes room first; program writes it as it is
 * (the collector's own use: it makes no room). */
int nk_fs_wbuf_flush(struct nk_fs *fs);
int nk_fs_wbuf_program(struct nk_fs *fs);
void nk_fs_wbuf_drop(struct nk_fs *fs, struct nk_fs_obj *obj);

/* The last close of a file unlinked while open: its deletion header, then
 * its RAM. */
int nk_fs_delete_unlinked(struct nk_fs *fs, struct nk_fs_obj *obj);

/* Frees an object's flash and RAM (not its header). */
void nk_fs_obj_forget(struct nk_fs *fs, struct nk_fs_obj *obj);

/* Removes `obj` from its parent's child list (fixing open directory
 * handles) / adds it to `parent`'s. */
void nk_fs_dir_unhook(struct nk_fs *fs, struct nk_fs_obj *obj);
void nk_fs_dir_hook(struct nk_fs *fs, struct nk_fs_obj *parent, struct nk_fs_obj *obj);

/* Where a new name goes: its directory (looked up, symlinks followed) and
 * the last component of the path. */
struct nk_fs_where {
    struct nk_fs_obj *dir;
    const char *name;
    size_t len;
    bool slash; /* the path ended in '/' */
};
int nk_fs_where(struct nk_fs *fs, const char *path, struct nk_fs_where *w);

/* ----- times (tree.c) ------------------------------------------------------------------- */

/* An entry of `dir` came or went: its mtime and ctime become the clock's
 * time (a header written unless it says that time already). Nothing without
 * a clock. Best effort: the change it follows is done and durable, so a
 * failure here (no room) leaves the old times and is not reported. */
void nk_fs_dir_touch(struct nk_fs *fs, struct nk_fs_obj *dir);

/* What to create. */
struct nk_fs_new {
    uint8_t type;
    uint32_t mode; /* permission bits (specials: with their type bits) */
    const char *alias;
    size_t alias_len;
    uint32_t equiv_id;
    uint32_t rdev;
};

/* Creates the object `n` at `w` (the name must be free): one header. */
int nk_fs_create(struct nk_fs *fs, const struct nk_fs_where *w, const struct nk_fs_new *n,
                 struct nk_fs_obj **out);

/* ----- scan and resolve (scan.c, resolve.c) ----------------------------------------------- */

/* The scan; blocks below `surveyed` were surveyed already (by the search
 * for a checkpoint). */
int nk_fs_scan(struct nk_fs *fs, uint32_t surveyed);

/* Step 1 of the scan for one block: its state from its marker and first
 * readable tags. 0 or a device error. */
int nk_fs_survey_block(struct nk_fs *fs, uint32_t block);

/* Reports a problem to the configured callback (scan.c); the mount's
 * tally counts it too while mounting. */
void nk_fs_report(struct nk_fs *fs, enum nk_fs_problem_kind kind, uint32_t page, uint32_t obj_id,
                  uint32_t chunk_id, uint32_t other);

/* Empties the mount's tables (objects, block states, live bits, counts) as
 * a fresh mount has them: root and lost+found only. 0 or -NK_ENOMEM. */
int nk_fs_tables_reset(struct nk_fs *fs);

/* ----- checkpoint (checkpoint.c) ------------------------------------------------------------ */

/* Blocks one checkpoint may take; a bigger state is not checkpointed. */
#define NK_FS_CHECKPOINT_MAX_BLOCKS 16u

/* Loads the state from nandkit's checkpoint instead of scanning. Returns 1
 * when loaded (resolve follows as after a scan), 0 when there is none or
 * anything about it is in doubt: the scan follows, and *surveyed says how
 * many blocks from 0 the search surveyed already (all of them when there
 * is no checkpoint; 0 after a doubtful one, whose reading reset the
 * tables). Or a device error. */
int nk_fs_checkpoint_load(struct nk_fs *fs, uint32_t *surveyed);

/* Writes the mounted state as a checkpoint into erased blocks (after
 * erasing any other checkpoint blocks). Writes nothing when read-only,
 * disabled, already on flash, too big or without room. 0 or a device
 * error. The caller has synced. */
int nk_fs_checkpoint_write(struct nk_fs *fs);

/* After nk_fs_format()'s build: mounts `fs` on the fresh file system,
 * records the unwritten blocks as cleanly erased, writes a checkpoint and
 * releases everything (mount.c). 0 or an error. */
int nk_fs_format_checkpoint(struct nk_fs *fs, const struct nk_fs_config *config);

/* Erases every checkpoint block (the invalidation; write.c). */
int nk_fs_erase_checkpoints(struct nk_fs *fs);

/* Erases `block` (nothing live in it): it is then ERASED, or retired (an
 * erase failure). 0 or a device error other than an erase failure
 * (write.c). */
int nk_fs_block_erase(struct nk_fs *fs, uint32_t block);
int nk_fs_resolve(struct nk_fs *fs);

/* ----- paths (path.c) ------------------------------------------------------------------------ */

/* Looks `path` up. With `follow`, a final symlink is followed. Returns 0 and
 * *out, or a negative error. */
int nk_fs_path_lookup(struct nk_fs *fs, const char *path, bool follow, struct nk_fs_obj **out);

/* As nk_fs_path_lookup() of the first `len` bytes of `path`, following a
 * final symlink. */
int nk_fs_path_lookup_len(struct nk_fs *fs, const char *path, size_t len, struct nk_fs_obj **out);

/* The child of `dir` named `name` (`len` bytes), NULL when none; *err is
 * -NK_EIO when a child's header could not be read and nothing matched, else 0. */
struct nk_fs_obj *nk_fs_dir_child(struct nk_fs *fs, struct nk_fs_obj *dir, const char *name,
                                  size_t len, int *err);

/* ----- public entry points without the lock (entry.c wraps each) -------------------------- */

/* config.lock of `fs` (none for NULL), and taking and giving it. */
const struct nk_lock *nk_fs_lock_of(const struct nk_fs *fs);
void nk_fs_lock_take(const struct nk_lock *lock);
void nk_fs_lock_give(const struct nk_lock *lock);

int nk_fs_mount_unlocked(struct nk_fs *fs, const struct nk_fs_config *config);
uint32_t nk_fs_damaged_unlocked(const struct nk_fs *fs);
int nk_fs_unmount_unlocked(struct nk_fs *fs);
int nk_fs_sync_unlocked(struct nk_fs *fs);
int nk_fs_checkpoint_unlocked(struct nk_fs *fs);
void nk_fs_ram_usage_unlocked(const struct nk_fs *fs, size_t *now, size_t *peak);
int nk_fs_statfs_unlocked(struct nk_fs *fs, struct nk_fs_statfs *st);
int nk_fs_stat_unlocked(struct nk_fs *fs, const char *path, struct nk_fs_stat *st);
int nk_fs_lstat_unlocked(struct nk_fs *fs, const char *path, struct nk_fs_stat *st);
int nk_fs_readlink_unlocked(struct nk_fs *fs, const char *path, char *buf, size_t size);
int nk_fs_file_open_unlocked(struct nk_fs *fs, struct nk_fs_file *file, const char *path,
                             uint32_t flags);
int nk_fs_file_open_mode_unlocked(struct nk_fs *fs, struct nk_fs_file *file, const char *path,
                                  uint32_t flags, uint32_t mode);
int32_t nk_fs_file_write_unlocked(struct nk_fs_file *file, const void *buf, size_t len);
int32_t nk_fs_file_pwrite_unlocked(struct nk_fs_file *file, const void *buf, size_t len,
                                   uint64_t offset);
int nk_fs_file_truncate_unlocked(struct nk_fs_file *file, uint64_t size);
int nk_fs_file_fsync_unlocked(struct nk_fs_file *file);
int32_t nk_fs_file_read_unlocked(struct nk_fs_file *file, void *buf, size_t len);
int32_t nk_fs_file_pread_unlocked(struct nk_fs_file *file, void *buf, size_t len, uint64_t offset);
int64_t nk_fs_file_seek_unlocked(struct nk_fs_file *file, int64_t offset, int whence);
int nk_fs_file_stat_unlocked(struct nk_fs_file *file, struct nk_fs_stat *st);
int nk_fs_file_close_unlocked(struct nk_fs_file *file);
int nk_fs_mkdir_unlocked(struct nk_fs *fs, const char *path, uint32_t mode);
int nk_fs_rmdir_unlocked(struct nk_fs *fs, const char *path);
int nk_fs_unlink_unlocked(struct nk_fs *fs, const char *path);
int nk_fs_rename_unlocked(struct nk_fs *fs, const char *from, const char *to);
int nk_fs_link_unlocked(struct nk_fs *fs, const char *existing, const char *path);
int nk_fs_symlink_unlocked(struct nk_fs *fs, const char *target, const char *path);
int nk_fs_mknod_unlocked(struct nk_fs *fs, const char *path, uint32_t mode, uint32_t rdev);
int nk_fs_chmod_unlocked(struct nk_fs *fs, const char *path, uint32_t mode);
int nk_fs_chown_unlocked(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid);
int nk_fs_utimes_unlocked(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime);
int nk_fs_lchown_unlocked(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid);
int nk_fs_lutimes_unlocked(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime);
int nk_fs_getxattr_unlocked(struct nk_fs *fs, const char *path, const char *name, void *value,
                            size_t size);
int nk_fs_setxattr_unlocked(struct nk_fs *fs, const char *path, const char *name,
                            const void *value, size_t size, int flags);
int nk_fs_listxattr_unlocked(struct nk_fs *fs, const char *path, char *list, size_t size);
int nk_fs_removexattr_unlocked(struct nk_fs *fs, const char *path, const char *name);
int nk_fs_dir_open_unlocked(struct nk_fs *fs, struct nk_fs_dir *dir, const char *path);
int nk_fs_dir_read_unlocked(struct nk_fs_dir *dir, struct nk_fs_dirent *entry);
int nk_fs_dir_stat_unlocked(struct nk_fs_dir *dir, struct nk_fs_stat *st);
int nk_fs_dir_rewind_unlocked(struct nk_fs_dir *dir);
int nk_fs_dir_close_unlocked(struct nk_fs_dir *dir);
int nk_fs_check_unlocked(struct nk_fs *fs, struct nk_fs_check_result *result);

#endif /* NK_FS_INTERNAL_H */
