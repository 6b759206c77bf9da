/* SPDX-License-Identifier: MIT */
/*
 * What the mtd-utils style commands (read, write, erase, torture) share:
 * byte sizes with KiB/MiB/GiB suffixes, block ranges, a progress line on
 * long runs, and output files written whole (temporary file + fsync +
 * rename) so a failed run leaves the old file intact.
 */
#ifndef TOOL_FLASHIO_H
#define TOOL_FLASHIO_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A byte count or offset as mtd-utils takes it: decimal, 0x hex or 0 octal,
 * with an optional binary suffix KiB, MiB, GiB (also K, M, G, k). Returns
 * false on junk or overflow. */
bool tool_parse_size(const char *text, uint64_t *value);

/* A block range "FIRST-LAST" (inclusive) or "FIRST+COUNT" or one block "N".
 * Returns false on junk or an empty range. */
bool tool_parse_block_range(const char *text, uint32_t *first, uint32_t *count);

/* A progress line on stderr ("read  42% (1.2 MiB of 3.0 MiB)"), redrawn at
 * most once per percent. Off unless `on`. */
struct tool_progress {
    bool on;
    bool drawn;
    const char *what;
    uint64_t total;
    int last_percent;
};

void tool_progress_start(struct tool_progress *progress, bool on, const char *what, uint64_t total);
void tool_progress_update(struct tool_progress *progress, uint64_t done);
/* Ends the line (when one was drawn). */
void tool_progress_end(struct tool_progress *progress);

/* An output file written beside its final name and renamed into place. */
struct tool_outfile {
    FILE *file;
    char *final_path; /* NULL: stdout */
    char *temp_path;
    bool special; /* a device or FIFO, written in place */
};

/* Opens `path` for writing (NULL or "-": stdout). Returns 0, or prints one
 * line and returns exit status 1. */
int tool_outfile_open(struct tool_outfile *out, const char *path);

/* Flushes, fsyncs and renames into place when `keep`, else removes the
 * temporary file. Returns 0, or prints one line and returns 1. */
int tool_outfile_close(struct tool_outfile *out, bool keep);

struct tool_image;
struct tool_image_opts;

/* What read, write, erase and torture take alike besides the image options:
 * --progress, -q/--quiet and -j/--json. */
struct tool_flash_flags {
    bool progress; /* default: stderr is a terminal; off with --quiet */
    bool quiet, json;
};

#define TOOL_OPT_PROGRESS 1900 /* getopt value of a --progress without a short form */

/* A command's own options: returns 0 when `opt` was taken, 2 after a
 * one-line report of a bad value, -1 when `opt` is not one of them. */
typedef int (*tool_flash_option_fn)(void *ctx, int opt, const char *arg);

/* The option and argument parse of read, write, erase and torture: fills
 * `opts` (initialised here) and `flags` (--progress under
 * TOOL_OPT_PROGRESS or `progress_short`, -q, -j), hands every other
 * option to `fn`, then takes exactly `count` positional arguments into
 * `args` (`needs` names them in the message); the first is the
 * IMAGE|/dev/mtdN (opts->path). Returns 0, or the exit status after one
 * line. */
struct tool_flash_parse {
    const char *command;
    const char *shortopts;
    const struct option *options;
    int progress_short; /* 'p', or 0 when -p means something else */
    tool_flash_option_fn fn;
    void *ctx;
    unsigned count;
    const char *needs;
    bool reads_only; /* the command never writes: write-only options are refused */
};

int tool_flash_parse(int argc, char **argv, const struct tool_flash_parse *parse,
                     struct tool_image_opts *opts, struct tool_flash_flags *flags,
                     const char **args);

/* "bad --start 'X': ..." parse of a byte offset. Returns 0 or 2. */
int tool_parse_start(const char *arg, uint64_t *start);

/* Opens IMAGE or /dev/mtdN for read, write, erase or torture. An image file
 * without a sidecar (a dump made elsewhere) is opened without one, so that
 * nothing is created beside it; one shorter than the chip gets a warning on
 * stderr saying what that usually means (unless `quiet`). Returns 0 or an
 * exit status after one line. */
int tool_flash_open(struct tool_image *image, struct tool_image_opts *opts, bool quiet);

/* The warning above, for any command that opened an image file: prints it
 * when the file at `path` holds fewer bytes than `chip_bytes` and has no
 * sidecar. Returns true when it warned. */
bool tool_warn_short_image(const char *path, uint64_t chip_bytes, uint32_t block_bytes);

struct nk_bbt;

/* What tool_known_bad_attach() attached. */
enum {
    TOOL_KNOWN_BAD_NONE = 0,  /* nothing: the device's own rules apply */
    TOOL_KNOWN_BAD_TABLE,     /* a Linux bad-block table found on flash */
    TOOL_KNOWN_BAD_SIMULATOR, /* the markers, confirmed by the simulator's sidecar */
};

/* Lets the device know the bad blocks of a simulated image before a file
 * system is read or built on it: a Linux bad-block table on flash is
 * attached (for real when `writable`, so a block retired meanwhile is
 * recorded; else read only), and for a layout with tags at OOB 0 (mkyaffs2,
 * where markers mean nothing to the file system) the factory markers are
 * attached read only when the simulator's sidecar (`sidecar`) confirms
 * every one. `bbt` and *memory (freed by the caller, after
 * nk_bbt_detach()) hold the table. Returns TOOL_KNOWN_BAD_*, or minus an
 * exit status after one line. */
int tool_known_bad_attach(struct tool_image *image, bool tags_at_oob0, bool sidecar, bool writable,
                          struct nk_bbt *bbt, void **memory);

/* Formats `bytes` as "12.5 MiB" / "3 KiB" / "100 B" into `buf`. */
const char *tool_format_bytes(uint64_t bytes, char *buf, size_t size);

#endif
