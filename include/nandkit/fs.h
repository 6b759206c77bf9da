/* SPDX-License-Identifier: MIT */
/*
 * The file system: YAFFS2's on-flash format on a partition.
 *
 * nandkit mounts devices and images written by YAFFS2 (Linux, YAFFS Direct,
 * mkyaffs2image) by scanning the tags of every block, newest block first,
 * and resolving each object's newest header and data chunks as YAFFS2 does
 * (docs/fs-format.md). The RAM it keeps is small and accounted for
 * (docs/fs-design.md): the caller supplies an allocator, or a buffer the
 * file system carves itself (config.pool). The core never calls malloc.
 *
 * Mounts are read-write unless config.read_only is set: open/read/write/
 * pwrite/lseek/ftruncate/fsync/close, stat/lstat/fstat, opendir/readdir,
 * readlink, mkdir/rmdir/unlink/rename/link/symlink/chmod/chown/utimes,
 * get/set/list/removexattr, statfs and sync. nk_fs_format() writes an empty
 * file system. This header is what an application needs; nandkit/fs_tools.h
 * adds what tools use: layouts by name, the structure check (fsck), page
 * descriptions, pools as allocators and the builder (nk_fs_build_*, what
 * `nandkit mkimage` uses). The builder and the mounted writer lay chunks
 * out through one writer (src/fs/chunk.c), so what they write cannot drift.
 *
 * What is durable when (docs/fs-design.md, "Writing"): every namespace
 * operation (create, mkdir, rmdir, unlink, rename, link, symlink, chmod,
 * chown, utimes, setxattr, removexattr, ftruncate) is on flash, atomically,
 * when it returns 0.
 * File data goes through a one-chunk write buffer per mounted file system
 * and is on flash, with the file's size, after nk_fs_file_fsync(),
 * nk_fs_file_close() or nk_fs_sync(). A power cut in the middle of unsynced
 * writes leaves each file at a prefix of what was written (whole chunks in
 * the order they were flushed), never garbage.
 *
 * Errors are negative NK_E* values (nandkit/error.h). Data that fails the
 * ECC is never returned: the read fails with -NK_EIO and the file system
 * stays usable. A corrupted image never crashes or hangs a mount: every value
 * read from flash is bounds-checked, parent chains are checked for cycles,
 * and absurd sizes are clamped.
 *
 * The file system is not thread-safe by itself; serialise calls on one
 * `struct nk_fs` (the device's lock only covers device calls).
 */
#ifndef NANDKIT_FS_H
#define NANDKIT_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/diag.h"
#include "nandkit/ecc.h"
#include "nandkit/part.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----- limits and constants -------------------------------------------------------- */

#define NK_FS_NAME_MAX 255  /* bytes in a name (YAFFS2 stores up to 255) */
#define NK_FS_ALIAS_MAX 159 /* bytes in a symlink target */
#define NK_FS_SYMLOOP_MAX 8 /* symlinks followed in one path lookup */
#define NK_FS_NONE 0xffffffffu

/* Object types, numbered as YAFFS2 stores them. */
enum nk_fs_type {
    NK_FS_TYPE_UNKNOWN = 0,
    NK_FS_TYPE_FILE = 1,
    NK_FS_TYPE_SYMLINK = 2,
    NK_FS_TYPE_DIR = 3,
    NK_FS_TYPE_HARDLINK = 4,
    NK_FS_TYPE_SPECIAL = 5, /* device node, FIFO or socket: see the mode */
};

/* Reserved object ids. */
#define NK_FS_OBJ_ROOT 1u
#define NK_FS_OBJ_LOST_FOUND 2u
#define NK_FS_OBJ_UNLINKED 3u /* pseudo-directory: parent of unlinked objects */
#define NK_FS_OBJ_DELETED 4u  /* pseudo-directory: parent of deleted objects */
#define NK_FS_OBJ_SUMMARY 0x10u
#define NK_FS_OBJ_CHECKPOINT 0x20u
#define NK_FS_OBJ_FIRST_USER 0x100u /* ordinary objects have ids from here */
#define NK_FS_OBJ_MAX 0x3ffffu      /* YAFFS2 never allocates a higher id */

/* Sequence numbers. */
#define NK_FS_SEQ_CHECKPOINT 0x21u
#define NK_FS_SEQ_LOWEST 0x1000u
#define NK_FS_SEQ_HIGHEST 0xefffff00u
#define NK_FS_SEQ_UNWRITTEN 0xffffffffu

#define NK_FS_CHUNK_ID_MAX 0x0fffffffu /* highest data chunk id */

/* st_mode type bits as YAFFS2 stores them (Linux values). */
#define NK_FS_S_IFMT 0170000u
#define NK_FS_S_IFSOCK 0140000u
#define NK_FS_S_IFLNK 0120000u
#define NK_FS_S_IFREG 0100000u
#define NK_FS_S_IFBLK 0060000u
#define NK_FS_S_IFDIR 0040000u
#define NK_FS_S_IFCHR 0020000u
#define NK_FS_S_IFIFO 0010000u

/* ----- memory -------------------------------------------------------------------------- */

/* Where the file system gets its RAM. alloc returns `size` bytes aligned to
 * 8, or NULL when exhausted (the operation then fails with -NK_ENOMEM and
 * the file system stays consistent); free takes back a block with the size
 * it was asked for. */
struct nk_fs_allocator {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *ptr, size_t size);
    void *ctx;
};

/* A static pool: carves a caller-supplied buffer. Freed blocks go on a free
 * list per size and are reused for the same size (the file system allocates
 * a handful of fixed sizes). Fields are private. */
#define NK_FS_POOL_CLASSES 64 /* exact-size lists for blocks up to 512 bytes */
struct nk_fs_pool {
    uint8_t *next, *end;
    void *small[NK_FS_POOL_CLASSES];
    void *large;
    size_t in_use, peak;
};

/* ----- configuration and mount ------------------------------------------------------ */

/* Where the tags live. */
enum nk_fs_tags_place {
    NK_FS_TAGS_OOB = 0,    /* in the OOB free bytes (MTD auto-placement) */
    NK_FS_TAGS_INBAND = 1, /* in the last 16 bytes of the page data, no tags ECC */
};

/* The three layouts nandkit knows (docs/fs-format.md, "Layouts"). */
enum nk_fs_layout {
    NK_FS_LAYOUT_LINUX = 0,    /* tags+ECC at OOB 2..29, Linux Hamming data ECC */
    NK_FS_LAYOUT_MKYAFFS2 = 1, /* tags+ECC at OOB 0..27, no data ECC, no markers */
    NK_FS_LAYOUT_INBAND = 2,   /* tags in the page data, Linux Hamming over it */
};

/* Anomalies met by mount and by nk_fs_check(). */
enum nk_fs_problem_kind {
    NK_FS_PROBLEM_TAGS_ECC = 0,      /* tags uncorrectable: chunk ignored */
    NK_FS_PROBLEM_TAGS_INVALID,      /* impossible tag values or wrong sequence: ignored */
    NK_FS_PROBLEM_TORN_CHUNK,        /* last page of a block failed data ECC: ignored */
    NK_FS_PROBLEM_BLOCK_SEQUENCE,    /* block sequence number out of range: block ignored */
    NK_FS_PROBLEM_HEADER_UNREADABLE, /* object header failed data ECC */
    NK_FS_PROBLEM_HEADER_INVALID,    /* object header with an unknown type or bad name */
    NK_FS_PROBLEM_DANGLING_CHUNK,    /* data chunk of an object that is not a live file */
    NK_FS_PROBLEM_ORPHAN,            /* parent missing, not a directory, or a cycle */
    NK_FS_PROBLEM_DANGLING_HARDLINK, /* hard link to a missing or non-file object */
    NK_FS_PROBLEM_DUPLICATE_NAME,    /* two live entries with one name in a directory */
    NK_FS_PROBLEM_DATA_ECC,          /* a live chunk failed data ECC (read gives EIO) */
    NK_FS_PROBLEM_CHUNK_MISMATCH,    /* a live chunk's tags no longer name its owner */
    NK_FS_PROBLEM_HEADER_STALE,      /* a newer header of the object lost its tags (EIO) */
    NK_FS_PROBLEM_CHUNK_STALE,       /* a newer copy of one of its chunks may have lost its tags */
    NK_FS_PROBLEM_KIND_COUNT
};

struct nk_fs_problem {
    enum nk_fs_problem_kind kind;
    uint32_t block;    /* partition block, NK_FS_NONE when not about one */
    uint32_t page;     /* partition page, NK_FS_NONE when not about one */
    uint32_t obj_id;   /* 0 when not about an object */
    uint32_t chunk_id; /* data chunk id, 0 for headers */
    uint32_t other;    /* kind-specific: parent id, second object id, sequence... */
};

/* Called for every problem found (may be NULL). Must not call back into the
 * file system. */
typedef void (*nk_fs_report_fn)(void *ctx, const struct nk_fs_problem *problem);

/* How to mount. Zero every field you do not set; nk_fs_config_layout()
 * fills the layout-dependent ones. */
/* The time a file system stamps on the objects it changes: seconds since
 * 1970-01-01 UTC (a host's time(), an RTOS's calendar clock). */
struct nk_fs_clock {
    uint64_t (*now_s)(void *ctx);
    void *ctx;
};

struct nk_fs_config {
    struct nk_part *part; /* required; opened with the layout's ECC and OOB layout */
    /* Memory: an allocator, or else a static buffer the mount carves with a
     * pool kept inside struct nk_fs (nk_fs_pool_init() on `pool`). One of
     * the two is required; see docs/fs-design.md for the RAM per MiB. */
    struct nk_fs_allocator allocator;
    void *pool;
    size_t pool_size;
    enum nk_fs_tags_place tags_place;
    uint16_t tags_offset;      /* OOB tags: offset within the free (auto-placed) OOB bytes */
    bool no_tags_ecc;          /* OOB tags: 16 bytes without the 12-byte code */
    bool no_bad_block_markers; /* OOB byte 0 is tag data (mkyaffs2): never read markers */
    bool no_summaries;         /* ignore block summaries: read every page's tags (the writer
                                  still writes them) */
    /* false (zero): read-write (read-only on a read-only partition); true:
     * every write is refused with -NK_EROFS and nothing is ever written. */
    bool read_only;
    uint32_t reserve_blocks; /* erased blocks kept back for garbage collection and
                                deletions (0 = 3; at least 2 are kept) */
    bool gc_greedy;          /* collect the block with the most dead chunks into the one open block:
                                no age term, no hot/cold separation, no wear levelling (for comparison;
                                the default is cost-benefit by age with collection copies kept in a
                                second open block, docs/fs-design.md section 7.6) */
    uint32_t object_buckets; /* object hash buckets, power of two; 0 = from the size */
    bool no_checkpoint;      /* mount by scanning even when a checkpoint is on flash, and write
                                none at unmount (docs/fs-design.md section 8) */
    nk_fs_report_fn report;  /* optional problem callback */
    void *report_ctx;
    /* Optional clock (now_s NULL: none). With one, times follow POSIX: a
     * create sets atime, mtime and ctime; a data change or truncate sets the
     * file's mtime and ctime (written with its header at fsync or close, and
     * reported by stat meanwhile); adding or removing an entry sets the
     * directory's mtime and ctime; chmod, chown, utimes, link and rename set
     * the object's ctime. Without one, times stay as given (0 for new objects,
     * utimes' values otherwise). */
    struct nk_fs_clock clock;
    /* Optional mutual exclusion (lock NULL: none): every public call on the
     * mounted file system, its files and directory handles holds it, so
     * threads can share one struct nk_fs. It must not be recursive-only:
     * the file system never takes it twice. Handles are not shared: one
     * struct nk_fs_file or nk_fs_dir belongs to one thread at a time. */
    struct nk_lock lock;
};

/* Fills the tags placement and marker rule of `config` for `layout`. */
void nk_fs_config_layout(struct nk_fs_config *config, enum nk_fs_layout layout);

/* What the mount scan saw. */
struct nk_fs_mount_stats {
    uint32_t blocks_bad, blocks_empty, blocks_checkpoint, blocks_in_use, blocks_bad_sequence;
    uint32_t blocks_from_summary; /* tags taken from a block summary */
    uint32_t pages_tags_read;     /* tags read from flash (OOB, or page for in-band) */
    uint32_t headers_read;        /* object headers read during the scan */
    uint32_t chunks_seen;         /* written chunks met (summaries and stale included) */
    uint32_t chunks_live;         /* data and header chunks in the mounted tree */
    uint32_t tags_corrected, tags_uncorrectable, tags_invalid, torn_chunks;
    /* The tree the mount found, fixed until the next mount: every object
     * but the root and lost+found (statfs's `objects` counts those and
     * follows later changes), and how many of them are of each type. */
    uint32_t objects, files, dirs, symlinks, hardlinks, specials, orphans;
    uint32_t highest_seq;
    uint32_t from_checkpoint;  /* 1: the state came from nandkit's checkpoint, no scan */
    uint32_t checkpoint_pages; /* checkpoint pages read */
};

struct nk_fs_obj;
struct nk_fs_block;

/* A mounted file system. Fields are private; use the functions. */
struct nk_fs {
    struct nk_part *part;
    struct nk_fs_config config;
    uint32_t page_size, oob_free, chunk_bytes, pages_per_block, blocks, pages;
    uint8_t map_bits; /* bits per chunk-map entry */
    uint8_t summary_chunks;
    /* The page check word the writer puts in the OOB where it has room
     * (docs/fs-design.md 7.5): its offset in the free OOB bytes, and the
     * page bytes it covers (the chunk; with in-band tags the whole page),
     * 0 = none. Without a data ECC every read checks it; with one, only the
     * reads that decide whether a page a power cut may have torn is whole. */
    uint16_t data_check;
    uint32_t check_bytes;
    bool check_every_read; /* no data ECC: the word is the only check */
    bool check_suspect;    /* the read in progress is of such a page */
    /* Pages a power cut may have torn that read whole at the scan and failed
     * at the recovery after it: the mount scans again without them (each
     * read as torn), and the recovery writes what that scan chose. */
    uint32_t cut_pages[4];
    uint8_t cut_count;
    uint8_t *page_buf; /* page_size bytes */
    uint8_t *oob_buf;  /* oob_free bytes */
    uint32_t cached_page;
    struct nk_fs_block *block_info;
    uint32_t *chunk_bits;
    struct nk_fs_obj **buckets;
    uint32_t bucket_mask;
    struct nk_fs_obj *root, *lost_found;
    uint32_t object_count;
    /* The hard links naming one file, counted once and then kept as links
     * come and go (stat's nlink without a walk of every object); 0 when none. */
    uint32_t links_file, links_count;
    uint64_t free_chunks;
    struct nk_fs_mount_stats stats;
    uint32_t problems[NK_FS_PROBLEM_KIND_COUNT]; /* met by the mount */
    uint64_t ecc_corrected_reads, ecc_failed_reads;
    size_t ram_bytes, ram_peak;
    struct nk_fs_pool pool; /* over config.pool when no allocator was given */
    bool mounted;
    struct nk_diag diag; /* reason for the last failure */
    /* Writing (src/fs/write.c) and collecting (src/fs/gc.c). */
    bool writable;
    uint32_t alloc_block; /* allocation block, NK_FS_NONE when none */
    uint32_t alloc_page;  /* next page in it */
    /* The allocation block a clean unmount left partly written: the first
     * block this mount opens continues it (NK_FS_NONE when none). */
    uint32_t resume_block;
    /* Hot/cold separation (docs/fs-design.md 7.6): collection copies go to a
     * second open block whose sequence number lies below the allocation
     * block's, taken from a gap of numbers kept when that block opened. */
    uint32_t cold_block, cold_page; /* NK_FS_NONE when none */
    uint32_t gap_next, gap_end;     /* sequence numbers left for cold blocks */
    bool gap_valid;                 /* the gap lies above every closed block */
    uint8_t *cold_sum;              /* summary entries of the cold block */
    uint32_t next_seq, next_obj;
    uint32_t reserve;       /* erased blocks kept back */
    uint32_t erased_blocks; /* erased (or to be re-erased) blocks ready for allocation */
    uint64_t live_chunks;   /* live header and data chunks */
    uint64_t usable_chunks; /* good blocks x (pages - summary pages), less stuck blocks */
    /* Objects with chunks in blocks that hold an unreadable live chunk (never
     * erased): their deletion headers are carried forward by collections, so
     * those blocks need not stay the oldest (docs/fs-design.md 7.7). */
    uint32_t *stuck_ids;
    uint32_t stuck_count, stuck_capacity;
    uint8_t *wbuf; /* the write buffer: one chunk */
    struct nk_fs_obj *wbuf_obj;
    uint32_t wbuf_chunk;
    bool wbuf_dirty;
    uint8_t edit_depth;           /* header edits taken from `edits` */
    uint8_t *sum_buf;             /* summary entries of the allocation block (12 B per page) */
    uint8_t *copy_buf;            /* one page for GC copies and headers */
    struct nk_fs_header_edit *edits; /* headers being edited, taken last-in first-out */
    struct nk_fs_dir *dirs;       /* open directory handles */
    /* The collector's one state between calls: collections since the last
     * one chosen by age (every NK_FS_WEAR_INTERVAL-th takes the oldest
     * block). How a collection moves a page is passed as arguments. */
    uint32_t gc_rotate;
    uint32_t wear_moves; /* collections chosen by static wear levelling */
    uint64_t chunks_programmed, chunks_copied, blocks_collected, erases;
    uint32_t blocks_retired;
    bool checkpoint_valid; /* a checkpoint of this state is on flash (src/fs/checkpoint.c) */
};

/* Mounts the file system on config->part by scanning it. A config holding
 * only `part` and `pool` (or `allocator`) mounts the Linux layout (tags in
 * the OOB free bytes with their ECC), read-write. The partition must be open
 * with the ECC engine and OOB layout of the image's layout (see
 * nk_fs_layout_device()). A read-only mount writes nothing. A read-write
 * mount may write a few chunks (collecting a block first when there is no
 * room): the chunk in the last written page of each of the two newest
 * partly written blocks (the two blocks a writer keeps open), and the live
 * chunk in the last page of any other partly written block, is written
 * again (a power cut may have left that page weak). Blocks a scan finds partly written are never
 * written again; after a clean unmount (a mount from nandkit's checkpoint) the newest block goes
 * on being written where the last mount stopped. Erased blocks are erased once more before their first use, in case a power cut
 * interrupted their last erase. A read-only partition (or device) always
 * mounts read-only, as Linux mounts a write-protected device; statfs says
 * so. The device is checked against the layout first: too few free OOB
 * bytes for the tags (an ECC code that fills the OOB), linux tags over the
 * bad-block marker, mkyaffs2 tags away from OOB byte 0 or a data ECC code
 * that mkyaffs2 images do not carry are refused with -NK_EINVAL, fs->diag
 * naming the layout's need and the device's ECC and OOB size. Returns 0,
 * -NK_EINVAL (bad config, geometry or device; fs->diag says which),
 * -NK_ENOMEM (allocator or pool exhausted), or a
 * device error other than ECC (ECC failures are handled: the chunk is
 * skipped and reported). */
int nk_fs_mount(struct nk_fs *fs, const struct nk_fs_config *config);

/* The reason for the last failure on the way from a port to a mounted file
 * system and after it, wherever the layer that failed left it: fs->diag
 * (nk_fs_mount() and every file-system call), else the device's
 * (nk_nand_open(), nk_part_init() and the device errors under the file
 * system: `dev`'s, or the mounted partition's device or array), else `why`
 * (calls made before their object exists: nk_sim_open(), nk_mtd_open()).
 * Any argument may be NULL; `fs` and `dev` must be zeroed (`= {0}`) or have
 * been passed to nk_fs_mount() / nk_nand_open(). Returns "" when none says
 * anything; never NULL. */
const char *nk_fs_last_error(const struct nk_fs *fs, const struct nk_nand *dev,
                             const struct nk_diag *why);

/* Pages the mount found written but could not decode the tags of (tags ECC
 * failed, or in-band tags in a page failing the data ECC). Which object such
 * a page belonged to cannot be known, so with any of them the file system is
 * damaged: objects may be missing or older than written, files with holes
 * may have lost data (nk_fs_stat.at_risk, and reading a hole is -NK_EIO).
 * 0 for an undamaged file system. */
uint32_t nk_fs_damaged(const struct nk_fs *fs);

/* Flushes the write buffer and every open file's size (as nk_fs_sync()),
 * writes a checkpoint of the mounted state (unless config.no_checkpoint,
 * read-only, or one is on flash already) so that the next mount need not
 * scan, then releases all memory back to the allocator. Open handles become
 * invalid. Returns 0, -NK_EINVAL when not mounted, or the flush's or the
 * checkpoint's device error (the memory is released anyway). */
int nk_fs_unmount(struct nk_fs *fs);

/* Makes everything written so far durable: the write buffer and the size of
 * every file written since its last header. Returns 0, -NK_ENOSPC or -NK_EIO
 * (0 on a read-only mount: nothing to do). */
int nk_fs_sync(struct nk_fs *fs);

/* nk_fs_sync(), then writes a checkpoint as nk_fs_unmount() does, and stays
 * mounted: a mount after a power cut from here on reads the checkpoint
 * instead of scanning, until the next write, which erases the checkpoint
 * before it programs anything (docs/fs-design.md section 8). Returns 0 or
 * the sync's or the checkpoint's error. */
int nk_fs_checkpoint(struct nk_fs *fs);

/* Writes an empty file system on config->part (every good block erased,
 * then the root's header), as a build of an empty tree does, then a
 * checkpoint saying that the other blocks are cleanly erased (a mount then
 * does not erase them again before their first use; not written with
 * config->no_checkpoint or when the memory for a mount is missing). The partition
 * must be open as for nk_fs_mount(). The builder and one page of workspace
 * come from config->allocator, or from config->pool, and go back before it
 * returns. Returns 0, -NK_EINVAL, -NK_EROFS, -NK_ENOSPC (no good block),
 * -NK_ENOMEM, or a device error. */
int nk_fs_format(const struct nk_fs_config *config, enum nk_fs_layout layout);

/* Bytes of RAM the mounted file system holds now and at most, from the
 * allocator (the struct nk_fs itself not included). */
void nk_fs_ram_usage(const struct nk_fs *fs, size_t *now, size_t *peak);

/* Bytes of config.pool a mount needs on a partition of `blocks` blocks of
 * `pages_per_block` pages of `page_size` + `oob_size` bytes holding
 * `objects` objects (files, directories, symlinks, hard links, special
 * files; deleted ones whose blocks are not yet collected count too) with
 * `data_bytes` of file data, read-write or read-only: docs/fs-design.md's
 * cost formula plus the mount's temporaries and the pool's rounding, with
 * the chunk maps of files without holes at their largest (scattered by
 * overwrites), so a pool of this size mounts such a file system and keeps
 * working as its files are rewritten (tests/test_fs_sizing.c). With an
 * allocator instead of a pool, nk_fs_ram_usage() gives the peak. Returns 0
 * for an impossible geometry. */
size_t nk_fs_pool_bytes(uint32_t page_size, uint32_t oob_size, uint32_t pages_per_block,
                        uint32_t blocks, uint32_t objects, uint64_t data_bytes, bool read_write);

struct nk_fs_statfs {
    uint32_t chunk_bytes; /* file bytes per chunk */
    uint32_t chunks_per_block;
    uint32_t blocks, blocks_bad, blocks_empty;
    uint64_t bytes_total; /* good blocks x chunks x chunk_bytes */
    uint64_t bytes_free;  /* unwritten chunks x chunk_bytes */
    uint64_t bytes_live;  /* live chunks x chunk_bytes */
    uint32_t objects; /* objects held in RAM now: the root and lost+found included, as are
                         files unlinked while open (fs->stats.objects: what the mount found,
                         without those two) */
    uint32_t name_max;
    uint64_t reads_corrected; /* page reads since mount that needed bitflip correction */
    uint64_t reads_failed;    /* page reads since mount that were uncorrectable (EIO) */
    bool read_only;
    /* Writing (0 on a read-only mount). bytes_avail is what writes can still
     * use: chunks that are neither live nor held back (the reserve blocks and
     * the block summaries' pages) x chunk_bytes. A write of that many new
     * bytes succeeds; one more chunk gives -NK_ENOSPC. */
    uint64_t bytes_avail;
    uint32_t blocks_erased;        /* erased blocks ready for allocation */
    uint32_t blocks_retired;       /* blocks retired since mount (program/erase failure) */
    uint32_t erase_min, erase_max; /* per-block erase counts: from the checkpoint when the
                                      mount read one, else seen since mount */
    uint64_t erase_sum;            /* those counts added up over the good blocks */
    uint64_t chunks_programmed;    /* all programs since mount (data, headers, summaries, GC) */
    uint64_t chunks_copied;        /* by garbage collection */
    uint64_t blocks_collected;     /* garbage collections */
    uint64_t blocks_erased_count;  /* erases since mount */
};

/* Fills `st`. Returns 0. */
int nk_fs_statfs(struct nk_fs *fs, struct nk_fs_statfs *st);

/* ----- metadata ----------------------------------------------------------------------- */

struct nk_fs_stat {
    uint32_t obj_id; /* the object the name refers to (the hard-link object for a link) */
    uint32_t ino;    /* the inode: obj_id, or the target file's id for a hard link */
    uint8_t type;    /* enum nk_fs_type of obj_id (NK_FS_TYPE_HARDLINK for links) */
    uint32_t mode;   /* st_mode, type bits included (the target's for a link) */
    uint32_t uid, gid, nlink, rdev;
    uint64_t size; /* files: bytes; symlinks: target length; others 0 */
    uint64_t atime, mtime, ctime;
    bool has_header; /* false for the built-in root and lost+found without one */
    /* The mount met pages whose tags could not be decoded (nk_fs_damaged())
     * and this object may have lost some of them: a file with a hole below
     * its size, or an object found without a header. */
    bool at_risk;
};

/* Stats `path` (absolute or from the root), following symlinks. Returns 0,
 * -NK_ENOENT, -NK_ENOTDIR, -NK_ELOOP, -NK_ENAMETOOLONG, -NK_EIO (a header
 * failed ECC). */
int nk_fs_stat(struct nk_fs *fs, const char *path, struct nk_fs_stat *st);

/* As nk_fs_stat() without following a final symlink. */
int nk_fs_lstat(struct nk_fs *fs, const char *path, struct nk_fs_stat *st);

/* Copies the target of symlink `path` into `buf` (`size` bytes, NUL added
 * when it fits). Returns the target length, -NK_EINVAL when not a symlink,
 * -NK_ERANGE when `size` cannot hold the target and its NUL, or a lookup
 * error. */
int nk_fs_readlink(struct nk_fs *fs, const char *path, char *buf, size_t size);

/* ----- files ----------------------------------------------------------------------------- */

#define NK_FS_O_RDONLY 0x0u
#define NK_FS_O_WRONLY 0x1u
#define NK_FS_O_RDWR 0x2u
#define NK_FS_O_ACCMODE 0x3u
#define NK_FS_O_CREAT 0x40u
#define NK_FS_O_EXCL 0x80u
#define NK_FS_O_TRUNC 0x200u
#define NK_FS_O_APPEND 0x400u

#define NK_FS_SEEK_SET 0
#define NK_FS_SEEK_CUR 1
#define NK_FS_SEEK_END 2

/* An open file: caller-owned, no allocation. Fields are private. */
struct nk_fs_file {
    struct nk_fs *fs;
    struct nk_fs_obj *obj;   /* the file object (a hard link's target) */
    struct nk_fs_obj *named; /* the object the path named */
    uint64_t pos;
    uint32_t flags;
    bool open;
};

/* Opens `path` (following symlinks and hard links) into `file`.
 * NK_FS_O_RDONLY, _WRONLY or _RDWR, plus: _CREAT creates a regular file
 * (mode 0644, root-owned, times from config.clock or 0: set them with
 * nk_fs_chmod() and friends)
 * when the name is missing; _EXCL with _CREAT fails with -NK_EEXIST when it
 * exists (a dangling symlink included); _TRUNC cuts a file opened for
 * writing to 0 bytes; _APPEND makes every write go to the end of the file.
 * Returns 0, -NK_EISDIR (a directory, for writing or with _CREAT),
 * -NK_ENOENT, -NK_EEXIST, -NK_EROFS (writing on a read-only mount),
 * -NK_EINVAL (not a regular file, or bad flags), -NK_EILSEQ (a hard link
 * without a target), -NK_EMFILE (255 handles on one file), -NK_ENOSPC, or a
 * lookup error. */
int nk_fs_file_open(struct nk_fs *fs, struct nk_fs_file *file, const char *path, uint32_t flags);

/* As nk_fs_file_open() with the mode (permission bits) of a created file. */
int nk_fs_file_open_mode(struct nk_fs *fs, struct nk_fs_file *file, const char *path,
                         uint32_t flags, uint32_t mode);

/* Writes `len` bytes (capped at INT32_MAX) at the position (the end with
 * O_APPEND) and advances it. Data passes through the write buffer: full
 * chunks go to flash as they fill, a partial one when the writer moves to
 * another chunk, on fsync/close/sync. Writing past the end leaves a hole
 * (reads as zeros, takes no flash). Returns the bytes written (all of them,
 * or those written before -NK_ENOSPC/-NK_EIO struck: then a positive short
 * count), -NK_EBADF (not open for writing), -NK_ENOSPC, -NK_EFBIG, -NK_EIO. */
int32_t nk_fs_file_write(struct nk_fs_file *file, const void *buf, size_t len);

/* As nk_fs_file_write() at `offset`, without using or moving the position
 * (O_APPEND ignored, as Linux pwrite() does not). */
int32_t nk_fs_file_pwrite(struct nk_fs_file *file, const void *buf, size_t len, uint64_t offset);

/* Sets the file's size: shorter drops the data beyond (atomic: a shrink
 * header), longer leaves a hole. Returns 0, -NK_EBADF (not open for
 * writing), -NK_EFBIG, -NK_ENOSPC, -NK_EIO. */
int nk_fs_file_truncate(struct nk_fs_file *file, uint64_t size);

/* Makes the file's data and size durable. Returns 0, -NK_EBADF, -NK_ENOSPC,
 * -NK_EIO. */
int nk_fs_file_fsync(struct nk_fs_file *file);

/* Reads up to `len` bytes (capped at INT32_MAX) at the file position and
 * advances it. Returns bytes read (0 at end of file), -NK_EIO when a chunk
 * failed ECC or no longer holds the expected data (position unchanged),
 * -NK_EBADF. Holes and bytes past a chunk's valid length read as zeros,
 * except on a damaged file system (nk_fs_damaged()): there a hole may be a
 * chunk whose tags were lost, and reading it is -NK_EIO. A read that reaches
 * such a chunk or hole after some bytes returns those bytes first, as
 * read(2) does; the next read fails. */
int32_t nk_fs_file_read(struct nk_fs_file *file, void *buf, size_t len);

/* As nk_fs_file_read() at `offset`, without using or moving the position. */
int32_t nk_fs_file_pread(struct nk_fs_file *file, void *buf, size_t len, uint64_t offset);

/* Moves the position (NK_FS_SEEK_*). Returns the new position, -NK_EINVAL
 * (bad whence, or a negative result), -NK_EBADF. */
int64_t nk_fs_file_seek(struct nk_fs_file *file, int64_t offset, int whence);

/* Stats the open file (as nk_fs_stat() of the name it was opened by). */
int nk_fs_file_stat(struct nk_fs_file *file, struct nk_fs_stat *st);

/* Closes `file`, first making what it wrote durable (as fsync). The last
 * close of a file unlinked while open frees it. Returns 0, -NK_EBADF, or
 * the flush's error (the handle is closed anyway). */
int nk_fs_file_close(struct nk_fs_file *file);

/* ----- changing the tree ------------------------------------------------------------ */

/* Every call below is atomic across a power cut: after it, the tree is the
 * one before the call or the one after it (docs/fs-design.md says which
 * header sequences make it so), and it is durable when the call returns 0.
 * On a read-only mount each returns -NK_EROFS and writes nothing. Paths are
 * looked up as for nk_fs_stat(); a final symlink is not followed. Common
 * errors: -NK_ENOENT, -NK_ENOTDIR, -NK_ENAMETOOLONG (a name of more than
 * NK_FS_NAME_MAX bytes), -NK_EROFS, -NK_ENOSPC, -NK_EIO, -NK_ENOMEM. */

/* Creates directory `path` with permission bits `mode`. -NK_EEXIST. */
int nk_fs_mkdir(struct nk_fs *fs, const char *path, uint32_t mode);

/* Removes empty directory `path`. -NK_ENOTEMPTY, -NK_ENOTDIR, -NK_EBUSY
 * (the root or lost+found). */
int nk_fs_rmdir(struct nk_fs *fs, const char *path);

/* Removes the name `path` (not a directory: -NK_EISDIR). A file open
 * elsewhere keeps its data until its last handle closes (a power cut before
 * that removes it). When the name is a file's own and hard links to it
 * exist, the file takes over one link's name (as YAFFS2 does). */
int nk_fs_unlink(struct nk_fs *fs, const char *path);

/* Renames `from` to `to`, replacing an existing file, symlink or special,
 * or an empty directory, at `to` (rename over). -NK_EISDIR (file over a
 * directory), -NK_ENOTDIR (directory over a non-directory), -NK_ENOTEMPTY,
 * -NK_EINVAL (a directory into its own subtree, or "." / ".."), -NK_EBUSY
 * (the root or lost+found). Renaming a name onto itself, or onto another
 * name of the same file, does nothing and returns 0. */
int nk_fs_rename(struct nk_fs *fs, const char *from, const char *to);

/* Makes `path` a hard link to the file `existing` (symlinks in `existing`
 * followed). -NK_EEXIST, -NK_EPERM (a directory or special), -NK_EMLINK
 * (65535 links). */
int nk_fs_link(struct nk_fs *fs, const char *existing, const char *path);

/* Creates symlink `path` pointing at `target` (1..NK_FS_ALIAS_MAX bytes,
 * stored verbatim). -NK_EEXIST, -NK_ENAMETOOLONG. */
int nk_fs_symlink(struct nk_fs *fs, const char *target, const char *path);

/* Creates a device node, FIFO or socket: `mode` carries NK_FS_S_IFCHR,
 * _IFBLK, _IFIFO or _IFSOCK; `rdev` is the device number as Linux YAFFS2
 * stores it (old_encode_dev: major < 256, minor < 256, (major << 8) |
 * minor; -NK_EOVERFLOW beyond). -NK_EEXIST, -NK_EINVAL. */
int nk_fs_mknod(struct nk_fs *fs, const char *path, uint32_t mode, uint32_t rdev);

/* Sets the permission bits (07777) of `path` (symlinks followed). */
int nk_fs_chmod(struct nk_fs *fs, const char *path, uint32_t mode);

/* Sets owner and group of `path` (symlinks followed); NK_FS_NONE keeps one. */
int nk_fs_chown(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid);

/* Sets access and modification times (seconds) of `path` (symlinks
 * followed); the change time becomes the clock's time (config.clock), or
 * max(ctime, mtime) without a clock. */
int nk_fs_utimes(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime);

/* As nk_fs_chown() and nk_fs_utimes(), but a final symlink is changed
 * itself (lchown(2), utimensat(2) with AT_SYMLINK_NOFOLLOW). */
int nk_fs_lchown(struct nk_fs *fs, const char *path, uint32_t uid, uint32_t gid);
int nk_fs_lutimes(struct nk_fs *fs, const char *path, uint64_t atime, uint64_t mtime);

/* ----- extended attributes ------------------------------------------------------------ */

/* Extended attributes live where YAFFS2 (and Linux YAFFS2's SELinux labels)
 * keep them: in the object's header chunk after the 512 header bytes, so an
 * object has chunk bytes - 512 for all of its names and values together
 * (1 536 B with 2 KiB pages; none with in-band tags on 512-byte pages:
 * -NK_ENOTSUP). Names are 1..NK_FS_XATTR_NAME_MAX bytes, any bytes but NUL
 * (the namespaces "user.", "security."... are the caller's convention).
 * These calls act on `path` itself when it is a symlink (lgetxattr(2) and
 * friends), on the file when it is a hard link. A change is one header
 * written: a power cut leaves the old list or the new one. Every other
 * header write (chmod, rename, truncate, collection) keeps the list. */
#define NK_FS_XATTR_NAME_MAX 255
#define NK_FS_XATTR_CREATE 1  /* setxattr: fail with -NK_EEXIST when the name exists */
#define NK_FS_XATTR_REPLACE 2 /* setxattr: fail with -NK_ENODATA when it does not */

/* Copies the value of `name` into `value` (`size` bytes). Returns its length
 * (with `size` 0: only the length), -NK_ENODATA (no such attribute),
 * -NK_ERANGE (`size` too small, or the name too long), -NK_EINVAL, -NK_EIO,
 * or a lookup error. */
int nk_fs_getxattr(struct nk_fs *fs, const char *path, const char *name, void *value,
                   size_t size);

/* Sets `name` to `size` bytes of `value` (`flags`: 0 or one of
 * NK_FS_XATTR_CREATE / _REPLACE). Returns 0, -NK_EEXIST, -NK_ENODATA,
 * -NK_ENOSPC (the names and values of the object would not fit its header
 * chunk, or the device is full), -NK_EROFS, -NK_ERANGE (name too long),
 * -NK_EINVAL, -NK_ENOTSUP, -NK_EIO. */
int nk_fs_setxattr(struct nk_fs *fs, const char *path, const char *name, const void *value,
                   size_t size, int flags);

/* Copies the names, each NUL-terminated, into `list` (`size` bytes). Returns
 * their total length (with `size` 0: only the length; 0 when there are
 * none), -NK_ERANGE (`size` too small), -NK_EINVAL, -NK_EIO. */
int nk_fs_listxattr(struct nk_fs *fs, const char *path, char *list, size_t size);

/* Removes `name`. Returns 0, -NK_ENODATA, -NK_EROFS, -NK_ENOSPC, -NK_EIO. */
int nk_fs_removexattr(struct nk_fs *fs, const char *path, const char *name);

/* ----- directories -------------------------------------------------------------------- */

struct nk_fs_dir {
    struct nk_fs *fs;
    struct nk_fs_obj *dir;
    struct nk_fs_obj *next;
    struct nk_fs_obj *last;      /* the entry nk_fs_dir_read() returned last */
    struct nk_fs_dir *next_open; /* the file system's list of open handles */
    bool open;
};

struct nk_fs_dirent {
    char name[NK_FS_NAME_MAX + 1]; /* NUL-terminated */
    uint32_t obj_id;
    uint8_t type; /* enum nk_fs_type of the entry's object */
};

/* Opens directory `path` (following symlinks). The handle stays valid while
 * entries come and go: an entry removed or renamed away is skipped, one
 * added may or may not be listed. Close every handle before unmounting.
 * Returns 0, -NK_ENOTDIR, or a lookup error. */
int nk_fs_dir_open(struct nk_fs *fs, struct nk_fs_dir *dir, const char *path);

/* Reads the next entry ("." and ".." are not listed). Returns 1 with
 * `entry` filled, 0 at the end, -NK_EIO when this entry's header failed ECC
 * (the entry is skipped: the next call continues), -NK_EBADF. */
int nk_fs_dir_read(struct nk_fs_dir *dir, struct nk_fs_dirent *entry);

/* Stats the entry nk_fs_dir_read() returned last, as nk_fs_lstat() of its
 * path would but without a lookup (O(1) instead of O(entries)). Returns 0,
 * -NK_EINVAL when no entry was read, -NK_EIO, -NK_EBADF. */
int nk_fs_dir_stat(struct nk_fs_dir *dir, struct nk_fs_stat *st);

/* Restarts the listing. */
int nk_fs_dir_rewind(struct nk_fs_dir *dir);

int nk_fs_dir_close(struct nk_fs_dir *dir);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_FS_H */
