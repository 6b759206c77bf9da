/* SPDX-License-Identifier: MIT */
/*
 * The file system's tools side: what `nandkit`, the benchmarks and the tests
 * use beside the application calls of nandkit/fs.h. Layouts by name and the
 * device set-up each needs; the structure check (fsck) and its problems; a
 * page's tags described in text; a static pool as an allocator; and the
 * builder that writes a fresh file system from a tree (mkimage).
 *
 * An application that mounts, reads and writes files needs nandkit/fs.h
 * only.
 */
#ifndef NANDKIT_FS_TOOLS_H
#define NANDKIT_FS_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/ecc.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----- layouts ------------------------------------------------------------------------- */

/* Parses "linux", "mkyaffs2" or "inband". 0 or -NK_EINVAL. */
int nk_fs_layout_parse(const char *name, enum nk_fs_layout *layout);

/* The layout's name. */
const char *nk_fs_layout_name(enum nk_fs_layout layout);

/* The ECC engine and OOB layout a device needs to carry `layout` on pages
 * of `page_size` + `oob_size` bytes (software Hamming, 256-byte steps, Linux
 * byte order, Linux large-page layout; or none with every OOB byte free for
 * mkyaffs2). Returns 0 or -NK_EINVAL when the geometry cannot hold it. */
int nk_fs_layout_device(enum nk_fs_layout layout, uint32_t page_size, uint32_t oob_size,
                        struct nk_ecc_engine *engine, struct nk_oob_layout *oob_layout);

/* Free (auto-placed) OOB bytes `layout` needs per page for its tags: 28
 * for linux and mkyaffs2 (16 bytes of tags + 12 of their code), 0 for
 * inband. A device whose OOB layout leaves fewer (e.g. BCH-8 on a 2048+64
 * page: 52 code bytes, 10 free) cannot carry it; mount and the builder
 * refuse it with -NK_EINVAL, and the in-band layout still fits. */
unsigned nk_fs_layout_oob_bytes(enum nk_fs_layout layout);

/* ----- pools --------------------------------------------------------------------------- */

/* Sets up `pool` over `buffer` (`size` bytes; any alignment). */
void nk_fs_pool_init(struct nk_fs_pool *pool, void *buffer, size_t size);

/* An allocator drawing from `pool`. */
struct nk_fs_allocator nk_fs_pool_allocator(struct nk_fs_pool *pool);

/* ----- checking ------------------------------------------------------------------------ */

struct nk_fs_check_result {
    uint32_t problems[NK_FS_PROBLEM_KIND_COUNT]; /* mount's and the check's */
    uint32_t problem_total;
    uint32_t objects_checked;
    uint32_t chunks_read;
    uint32_t chunks_corrected; /* live chunks read with corrected bitflips */
    uint64_t bitflips_corrected;
};

/* Checks the mounted structure: reads every live header (names, types,
 * duplicates in a directory) and every live data chunk through the ECC,
 * and adds the problems mount met. Every problem goes to config.report.
 * Returns 0 (see result->problem_total) or a device error other than ECC. */
int nk_fs_check(struct nk_fs *fs, struct nk_fs_check_result *result);

/* A short constant name for a problem kind ("tags-ecc", "orphan", ...). */
const char *nk_fs_problem_name(enum nk_fs_problem_kind kind);

/* One line describing `problem` into `buf`. Returns the length. */
size_t nk_fs_problem_format(const struct nk_fs_problem *problem, char *buf, size_t size);

/* ----- inspection --------------------------------------------------------------------- */

/* Describes the tags of partition page `page` in lines of text (placement
 * per `config`, of which part, allocator, tags_place, tags_offset and
 * no_tags_ecc are used; no mount needed): sequence, object, chunk, bytes,
 * extra header fields, what they mean, the tags ECC status and the data ECC
 * status. Returns the length written, or -NK_EINVAL / -NK_ENOMEM / a device
 * error. */
int nk_fs_page_describe(const struct nk_fs_config *config, uint32_t page, char *buf, size_t size);

/* ----- building a file system (mkimage) ------------------------------------------------ */

/* A builder writes a fresh file system onto a partition, as mkyaffs2image
 * does for a host tree: every good block is erased, then objects go out one
 * after the other, each chunk in the next page, each block with the next
 * sequence number from NK_FS_SEQ_LOWEST, object ids from NK_FS_OBJ_FIRST_USER
 * (docs/fs-format.md, "Building an image"). It needs no allocator: one page of
 * caller workspace and the builder struct itself; file data is streamed a
 * chunk at a time, so a file of any size passes through.
 *
 * Order of calls: nk_fs_build_begin(); any number of nk_fs_build_builtin()
 * and nk_fs_build_object() (a file's object is followed by its data through
 * nk_fs_build_data() and closed by nk_fs_build_file_end()); then
 * nk_fs_build_finish(). The first call that writes erases the partition.
 *
 * Errors: argument errors (-NK_EINVAL, -NK_ENAMETOOLONG) write nothing and
 * leave the builder usable. Any other failure (-NK_ENOSPC, -NK_EFBIG,
 * -NK_EIO, a device error) stops the build: every later call returns the
 * same error, and the partition holds a partial tree that mounts but is
 * incomplete. b->diag names the cause. A block that fails to erase is marked
 * bad and left out; a program failure marks its block bad and stops the build
 * with -NK_EIO (the chunks already in that block are lost with it). With the
 * mkyaffs2 layout, which has no bad-block markers, an erase failure stops the
 * build too: a reader could not tell the block apart. */

/* Attributes of an object as the header stores them. */
struct nk_fs_build_attr {
    uint32_t mode; /* st_mode: permission bits; the type bits may be 0 (taken from the
                      object type) and must match it otherwise. Specials: required
                      (NK_FS_S_IFCHR, _IFBLK, _IFIFO or _IFSOCK) */
    uint32_t uid, gid;
    uint32_t rdev;                /* specials: device number as Linux YAFFS2 stores it,
                                     old_encode_dev ((major << 8) | minor, both below 256);
                                     larger values are refused with -NK_EOVERFLOW */
    uint64_t atime, mtime, ctime; /* seconds since 1970 (64-bit words written too) */
};

/* One object to build. */
struct nk_fs_build_entry {
    uint8_t type;       /* enum nk_fs_type: FILE, DIR, SYMLINK, HARDLINK or SPECIAL */
    uint32_t parent_id; /* NK_FS_OBJ_ROOT, NK_FS_OBJ_LOST_FOUND, or a directory built before
                           (the builder keeps no table: it checks only that the id was given
                           out; that it is a directory, and that names are unique in it, is
                           the caller's part) */
    const char *name;   /* `name_len` bytes, no NUL or '/', not "." or ".." */
    size_t name_len;    /* 1..NK_FS_NAME_MAX: stored whole, never truncated */
    struct nk_fs_build_attr attr;
    const char *target; /* symlinks: `target_len` bytes (0..NK_FS_ALIAS_MAX), no NUL */
    size_t target_len;
    uint32_t equiv_id;     /* hard links: a file built before (same rule as parent_id) */
    uint64_t size;         /* files, mkyaffs2 layout: the size its data will have. The header
                              then precedes the data, as mkyaffs2image writes it (and unyaffs
                              expects); the data must come to exactly this size. Other layouts
                              write the header after the data, with the size counted. */
    const uint8_t *xattrs; /* extended attributes as nk_fs_xattr_pack() lays them out, or
                              NULL; `xattrs_len` below nk_fs_build_xattr_room(). A file's
                              must stay valid until nk_fs_build_file_end() */
    size_t xattrs_len;
};

/* What a build did (so far). */
struct nk_fs_build_stats {
    uint32_t chunk_bytes;     /* file bytes per chunk (page size, or page size - 16 in-band) */
    uint32_t pages_per_block; /* chunks per block */
    uint32_t blocks;          /* in the partition */
    uint32_t blocks_bad;      /* bad when the build began: skipped, never erased */
    uint32_t blocks_retired;  /* failed to erase (or program) during the build: marked bad */
    uint32_t blocks_erased;   /* good blocks erased */
    uint32_t blocks_used;     /* blocks written, each with its own sequence number */
    uint64_t chunks_capacity; /* chunks of the good blocks (retired ones deducted) */
    uint64_t chunks_written;  /* header and data chunks */
    uint64_t header_chunks, data_chunks;
    uint64_t data_bytes; /* file bytes written */
    uint32_t objects;    /* objects built (built-in headers not counted) */
    uint32_t files, dirs, symlinks, hardlinks, specials;
    uint32_t first_seq, last_seq; /* sequence numbers given to blocks (0 when none) */
    uint32_t last_obj_id;         /* highest object id given out (0 when none) */
};

/* Called after every block erased and every block opened for writing. Must
 * not call back into the builder. */
typedef void (*nk_fs_build_progress_fn)(void *ctx, const struct nk_fs_build_stats *stats);

/* How to build. Zero every field you do not set. */
struct nk_fs_build_config {
    struct nk_part *part;     /* required, writable; opened with the layout's ECC engine and OOB
                                 layout (nk_fs_layout_device(), or a /dev/mtdN backend's own) */
    enum nk_fs_layout layout; /* tags placement and header packing */
    nk_fs_build_progress_fn progress; /* optional */
    void *progress_ctx;
};

/* A build in progress. Fields are private; use the functions. */
struct nk_fs_builder {
    struct nk_part *part;
    struct nk_fs_build_config config;
    struct nk_fs_config placement; /* tags placement of the layout */
    uint8_t *page_buf;             /* page_size bytes of workspace */
    uint8_t *oob_buf;              /* the device's free OOB bytes */
    uint32_t page_size, oob_free, chunk_bytes, pages_per_block;
    uint32_t block;    /* block being written, NK_FS_NONE before the first */
    uint32_t page;     /* next page in it */
    uint32_t next_seq; /* sequence number of the next block */
    uint32_t next_obj; /* next object id */
    bool erased;       /* the erase pass has run */
    int failed;        /* 0, or the error that stopped the build */
    /* The file being streamed (header written by nk_fs_build_file_end()). */
    bool file_open;
    uint32_t file_id, file_parent, file_next_chunk, file_fill;
    uint64_t file_size;
    bool file_header_first; /* mkyaffs2: header written at open ... */
    uint64_t file_declared; /* ... with this size */
    struct nk_fs_build_attr file_attr;
    const uint8_t *file_xattrs; /* the entry's, written with the header */
    size_t file_xattrs_len;
    uint16_t file_name_len;
    uint8_t file_name[NK_FS_NAME_MAX];
    struct nk_fs_build_stats stats;
    struct nk_diag diag; /* reason for the last failure */
};

/* Workspace bytes a builder on `part` needs: one page plus its OOB. */
size_t nk_fs_build_workspace_size(const struct nk_part *part);

/* Starts a build on config->part with `workspace` (`size` bytes, any
 * alignment; owned by the builder until the build ends). Asks the device
 * which blocks are bad (the mkyaffs2 layout asks only a bad-block table or
 * external authority: its OOB byte 0 is tag data) and writes nothing yet, so
 * the caller can compare nk_fs_build_chunks() of its tree with the
 * capacity in b->stats first. Returns 0, -NK_EINVAL (b->diag names the
 * problem: geometry, layout, workspace), -NK_EROFS, -NK_ENOSPC (no good
 * block), or a device error. O(blocks). */
int nk_fs_build_begin(struct nk_fs_builder *b, const struct nk_fs_build_config *config,
                      void *workspace, size_t size);

/* Chunks an object of `type` (and `size` bytes, for a file) takes: its
 * header plus ceil(size / chunk_bytes) data chunks. */
uint64_t nk_fs_build_chunks(const struct nk_fs_builder *b, uint8_t type, uint64_t size);

/* Writes a header for the built-in directory `obj_id` (NK_FS_OBJ_ROOT or
 * NK_FS_OBJ_LOST_FOUND), which exist without one: it gives them attributes
 * (mode, owner, times), as YAFFS2 does for the root. Optional. Returns 0,
 * -NK_EINVAL, or a build-stopping error (see above). */
int nk_fs_build_builtin(struct nk_fs_builder *b, uint32_t obj_id,
                        const struct nk_fs_build_attr *attr);

/* Builds `entry` and returns its new id in *obj_id (may be NULL).
 * Directories, symlinks, hard links and specials are written at once (one
 * header chunk). A file is opened: its data follows through
 * nk_fs_build_data() and its header, with the final size, is written by
 * nk_fs_build_file_end() (mkyaffs2 layout: the header, with entry->size, is
 * written here, before the data). Returns 0, -NK_EINVAL (bad entry, or a file still
 * open; b->diag says which), -NK_ENAMETOOLONG (name or target too long),
 * -NK_EOVERFLOW (a device number Linux YAFFS2 cannot store),
 * -NK_ENOSPC (no space, or object ids exhausted), or a build-stopping error. */
int nk_fs_build_object(struct nk_fs_builder *b, const struct nk_fs_build_entry *entry,
                       uint32_t *obj_id);

/* Appends `len` bytes to the open file; full chunks are written as they
 * fill. Returns 0, -NK_EINVAL (no file open), -NK_EFBIG (beyond the
 * highest chunk id), -NK_ENOSPC, or a build-stopping error. */
int nk_fs_build_data(struct nk_fs_builder *b, const void *data, size_t len);

/* Bytes a header chunk of this build has for extended attributes (chunk
 * bytes - 512, or 0): a list must be shorter. */
size_t nk_fs_build_xattr_room(const struct nk_fs_builder *b);

/* Appends attribute `name` = `size` bytes of `value` to the list at `area`
 * (`area_size` bytes, of which `*used` are used; start at 0), as the header
 * stores it, and adds its length to `*used`. Returns 0, -NK_EEXIST (name
 * already in the list), -NK_ENOSPC (the list would not be shorter than
 * `area_size`), -NK_ERANGE (name too long), -NK_EINVAL. */
int nk_fs_xattr_pack(uint8_t *area, size_t area_size, size_t *used, const char *name,
                     const void *value, size_t size);

/* Closes the open file: writes its last partial chunk and its header with
 * the size of all the data given. Returns 0, -NK_EINVAL (no file open), or
 * a build-stopping error. */
int nk_fs_build_file_end(struct nk_fs_builder *b);

/* Ends the build: erases the partition if nothing was written yet (an empty
 * file system), and fills `stats` (may be NULL). Returns 0, -NK_EINVAL (a
 * file still open), or the error that stopped the build. */
int nk_fs_build_finish(struct nk_fs_builder *b, struct nk_fs_build_stats *stats);

/* What the build has done so far (for progress reports). */
void nk_fs_build_stats_get(const struct nk_fs_builder *b, struct nk_fs_build_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_FS_TOOLS_H */
