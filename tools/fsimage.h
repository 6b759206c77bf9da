/* SPDX-License-Identifier: MIT */
/*
 * The file-system commands' shared step: open an image read-only per the
 * image options, mount its YAFFS2 file system with the --layout placement,
 * and turn a mount that finds nothing sensible into a one-line "wrong
 * --layout or --geometry?" error.
 */
#ifndef TOOL_FSIMAGE_H
#define TOOL_FSIMAGE_H

#include <stdio.h>

#include "image.h"
#include "nandkit/bbt.h"
#include "nandkit/fs.h"

#define TOOL_FS_TAG_PROBLEMS 16

struct tool_fs {
    struct tool_image image;
    struct nk_fs fs;
    struct nk_fs_config config;
    const char *layout_name;
    bool mounted;
    /* The bad blocks the device knows besides its markers (a table, or the
     * simulator's sidecar for tags at OOB 0): tool_known_bad_attach(). */
    struct nk_bbt bbt;
    void *bbt_memory;
    /* The caller's report callback, and the pages whose tags the mount
     * could not use (to tell torn pages from a wrong layout). */
    nk_fs_report_fn report;
    void *report_ctx;
    uint32_t tag_problem_pages[TOOL_FS_TAG_PROBLEMS];
    uint32_t tag_problems;
    uint32_t problems; /* every problem the mount reported */
};

/* An allocator over malloc/free. */
struct nk_fs_allocator tool_heap_allocator(void);

/* The host's time() as the file system's clock: what the commands that
 * change an image (and mount) stamp on what they create and change. */
struct nk_fs_clock tool_host_clock(void);

/* One line on stderr when `layout` cannot catch flipped data bits (the
 * mkyaffs2 layout has no data ECC); nothing for the others. */
void tool_layout_note(enum nk_fs_layout layout);

/* One line on stderr when the data ECC is 1-bit Hamming, which may
 * miscorrect 3 flips in a step. Said where an image is built (mkimage) or
 * checked (fsck), not on every read, so errors stay one line. */
void tool_ecc_note(const struct nk_part *part);

/* A file system with pages whose tags could not be decoded (nk_fs_damaged())
 * is never read silently: tool_at_risk() names one object that may have
 * lost data (stat's at_risk) on stderr; tool_fs_damage() prints the one
 * summary line and returns 1 when the image is damaged (else 0, nothing
 * printed); tool_fs_list_at_risk() prints "at risk: PATH" for every such
 * object in the tree to `out` and returns how many. */
void tool_at_risk(const char *path);
int tool_fs_damage(struct tool_fs *t);
unsigned tool_fs_list_at_risk(struct tool_fs *t, FILE *out);

/* Refuses (one line, exit status 2) an image most of whose first written
 * pages fail the data ECC it is read with while another of Linux's engines
 * reads them all, naming that one (tools/ecc_probe.c). 0 otherwise. */
int tool_ecc_probe(struct tool_image *image, const struct tool_image_opts *opts);

/* Opens `opts` (forced read-only) and mounts. `report` (may be NULL) gets
 * every problem the mount meets. Returns 0, or prints one line naming the
 * problem and returns the exit status (2 for bad input). */
int tool_fs_open(struct tool_fs *t, struct tool_image_opts *opts, nk_fs_report_fn report,
                 void *report_ctx);

/* As tool_fs_open() (same checks, on a read-only mount first), then
 * mounts read-write: the image or device must be writable. */
int tool_fs_open_writable(struct tool_fs *t, struct tool_image_opts *opts);

/* As tool_fs_open() or, with `writable`, tool_fs_open_writable(),
 * with `lock` as the file system's lock hook (config.lock), for threads
 * that share the mount (nandkit mount). */
int tool_fs_open_shared(struct tool_fs *t, struct tool_image_opts *opts, bool writable,
                        const struct nk_lock *lock);

void tool_fs_close(struct tool_fs *t);

/* What a read-write mount does to an image after a power cut, and nothing
 * else (tools/cmd_fswrite.c): mounts `opts` read-write (its recovery runs),
 * unmounts and saves, as the writing commands do. Returns 0 or the exit
 * status after one line. */
int tool_fs_recover(struct tool_image_opts *opts);

/* "drwxr-xr-x"-style rendering of an st_mode into `out` (11 bytes). */
void tool_mode_string(uint32_t mode, char out[11]);

/* Prints `s` as a JSON string (quotes included); a byte XX that is not part
 * of valid UTF-8 comes out as \uDCXX, a lone surrogate no text can produce
 * (Python reads it back with errors="surrogateescape"). */
void tool_json_string(FILE *out, const char *s);

/* Joins a directory path and a name ("/" + "a" = "/a"). Returns false when
 * the result did not fit in `size` (it is then cut short: never use it). */
bool tool_path_join(char *out, size_t size, const char *dir, const char *name);

/* The same, in a malloc'd string of the length it needs; NULL without memory. */
char *tool_path_dup(const char *dir, const char *name);

#endif
