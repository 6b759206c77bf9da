/* SPDX-License-Identifier: MIT */
/* nandkit write: a file onto an image or /dev/mtdN, skipping bad blocks, as nandwrite does. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_write_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit write IMAGE|/dev/mtdN INPUT [-s START] [--pad] [--oob|--onlyoob]\n"
            "                     [--noecc] [--markbad] [-N] [-k] [-b N] [options]\n\n"
            "Programs INPUT into the device from byte START on, as nandwrite does: page by\n"
            "page, skipping bad blocks (the data goes on in the next good block). It does not\n"
            "erase: erase the range first (nandkit erase). INPUT holds page data, or with --oob\n"
            "page data then OOB for each page (a raw image, e.g. from nandkit read --oob or\n"
            "nanddump --oob). Pages are written through the layout's ECC (the ECC bytes of the\n"
            "OOB are computed) unless --noecc, which writes every byte as given. START is in\n"
            "bytes (decimal, 0x hex, or KiB/MiB/GiB) and must be page aligned. INPUT - reads\n"
            "standard input (to its end, before the first program).\n\n"
            "Options:\n"
            "  -s, --start OFFSET      where to start (default 0)\n"
            "  -p, --pad               pad a short last page with 0xFF (else INPUT must be a\n"
            "                          whole number of pages)\n"
            "  -o, --oob               INPUT carries the OOB of each page\n"
            "  -O, --onlyoob           INPUT carries page data and OOB as with --oob, but only\n"
            "                          the OOB is programmed (no data, no ECC code: as Linux\n"
            "                          writes an OOB alone)\n"
            "  -N, --noskipbad         write into bad blocks too, instead of skipping them\n"
            "                          (image files only)\n"
            "  -k, --skip-all-ffs      leave pages that are all 0xFF (data, and OOB with --oob)\n"
            "                          unprogrammed: they stay erased, free for a later write\n"
            "  -b, --blockalign N      1, 2 or 4: skip bad blocks in groups of N blocks aligned\n"
            "                          to N (a bad block skips its whole group), as nandwrite\n"
            "                          for devices that pair erase blocks\n"
            "  -n, --noecc             raw program, no ECC\n"
            "  -m, --markbad           a block that fails to program is marked bad and its data\n"
            "                          goes to the next good block (else the write stops)\n"
            "      --progress          a progress line on stderr (default: when it is a terminal)\n"
            "  -q, --quiet             no progress line, notes or summary\n"
            "  -j, --json              a JSON summary on stdout\n" TOOL_IMAGE_HELP);
}

static bool tool_write_all_ff(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != 0xff)
            return false;
    return true;
}

/* Opens INPUT: a regular file, or "-" for standard input (a pipe as
 * nandwrite reads it), copied first into an unnamed temporary file so that
 * its size is known before anything is programmed. A FIFO or device named
 * as INPUT is refused without blocking. Returns 0 or an exit status. */
static int tool_write_open_input(const char *path, FILE **out)
{
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT
                       ? tool_not_found("cannot open INPUT '%s': %s", path, strerror(errno))
                       : tool_fail("cannot open INPUT '%s': %s", path, strerror(errno));
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            return tool_fail("INPUT '%s' is not a regular file (give - to read standard "
                             "input)",
                             path);
        }
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        *out = fdopen(fd, "rb");
        if (!*out) {
            close(fd);
            return tool_error("cannot open INPUT '%s': %s", path, strerror(errno));
        }
        return 0;
    }
    FILE *copy = tmpfile();
    if (!copy)
        return tool_error("cannot buffer standard input: %s", strerror(errno));
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) {
        if (fwrite(buf, 1, n, copy) != n) {
            int e = errno;
            fclose(copy);
            return tool_error("cannot buffer standard input: %s", strerror(e));
        }
    }
    if (ferror(stdin) || fflush(copy) != 0 || fseek(copy, 0, SEEK_SET) != 0) {
        fclose(copy);
        return tool_error("reading standard input failed");
    }
    *out = copy;
    return 0;
}

/* write's own options. */
struct tool_write_args {
    uint64_t start, align;
    bool pad, with_oob, only_oob, noecc, markbad, noskipbad, skip_ffs;
};

static int tool_write_option(void *ctx, int opt, const char *arg)
{
    struct tool_write_args *a = ctx;
    switch (opt) {
    case 's':
        return tool_parse_start(arg, &a->start);
    case 'p':
        a->pad = true;
        return 0;
    case 'o':
        a->with_oob = true;
        return 0;
    case 'O':
        a->with_oob = a->only_oob = true;
        return 0;
    case 'n':
        a->noecc = true;
        return 0;
    case 'm':
        a->markbad = true;
        return 0;
    case 'N':
        a->noskipbad = true;
        return 0;
    case 'k':
        a->skip_ffs = true;
        return 0;
    case 'b':
        if (!tool_parse_u64(arg, &a->align) || (a->align != 1 && a->align != 2 && a->align != 4))
            return tool_fail("bad --blockalign '%s': 1, 2 or 4", arg);
        return 0;
    default:
        return -1;
    }
}

/* One write, from the command line to the counts it reports. */
struct tool_write_job {
    struct tool_write_args a;
    struct tool_flash_flags f;
    struct tool_image_opts opts;
    const char *input_path;
    FILE *input;
    uint64_t input_size;
    struct tool_image image;
    uint32_t page_size, oob_size, ppb, blocks, record;
    /* Where the next block of input goes, and what happened so far. */
    uint32_t block, first_page;
    uint64_t total_pages, pages_written;
    uint32_t skipped_bad, marked_bad, skipped_ffs;
    struct tool_progress progress;
    struct nk_nand_stats stats;
    char why[240];
};

/* Fills w->a, w->f, w->opts and w->input_path. Returns 0 or the exit
 * status after a report. */
static int tool_write_parse(int argc, char **argv, struct tool_write_job *w)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"start", required_argument, NULL, 's'},
                                            {"pad", no_argument, NULL, 'p'},
                                            {"oob", no_argument, NULL, 'o'},
                                            {"onlyoob", no_argument, NULL, 'O'},
                                            {"noecc", no_argument, NULL, 'n'},
                                            {"markbad", no_argument, NULL, 'm'},
                                            {"noskipbad", no_argument, NULL, 'N'},
                                            {"skip-all-ffs", no_argument, NULL, 'k'},
                                            {"blockalign", required_argument, NULL, 'b'},
                                            {"progress", no_argument, NULL, TOOL_OPT_PROGRESS},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    w->a.align = 1;
    const struct tool_flash_parse parse = {"write",
                                           "s:poOnmNkb:qj",
                                           options,
                                           0,
                                           tool_write_option,
                                           &w->a,
                                           2,
                                           "IMAGE|/dev/mtdN and INPUT",
                                           false};
    const char *args[2];
    int status = tool_flash_parse(argc, argv, &parse, &w->opts, &w->f, args);
    if (status)
        return status;
    w->input_path = args[1];
    if (w->a.noskipbad && w->a.align > 1)
        return tool_fail("--blockalign %llu skips bad blocks in groups: it does not go with "
                         "--noskipbad",
                         (unsigned long long)w->a.align);
    return 0;
}

/* Why INPUT cannot go at --start on this device, in w->why, or NULL. */
static const char *tool_write_check_fit(struct tool_write_job *w)
{
    struct nk_nand *nand = &w->image.nand;
    uint64_t start = w->a.start, input_size = w->input_size;
    uint32_t page_size = w->page_size, record = w->record;
    uint64_t device_bytes = (uint64_t)nk_nand_pages(nand) * page_size;
    char *why = w->why;
    size_t size = sizeof w->why;
    if (start % page_size) {
        snprintf(why, size, "--start 0x%llx is not page aligned (pages are %u bytes)",
                 (unsigned long long)start, page_size);
    } else if (start >= device_bytes) {
        snprintf(why, size, "--start 0x%llx is past the end of the device (0x%llx bytes)",
                 (unsigned long long)start, (unsigned long long)device_bytes);
    } else if (input_size == 0) {
        snprintf(why, size, "INPUT '%s' is empty", w->input_path);
    } else if (input_size % record && !w->a.pad) {
        snprintf(why, size, "INPUT '%s' is %llu bytes, not a whole number of %u-byte %s: add --pad",
                 w->input_path, (unsigned long long)input_size, record,
                 w->a.with_oob ? "page+OOB records" : "pages");
    } else if ((input_size + record - 1) / record >
               (uint64_t)nk_nand_pages(nand) - start / page_size) {
        snprintf(why, size, "INPUT '%s' holds %llu pages; only %llu fit after --start 0x%llx",
                 w->input_path, (unsigned long long)((input_size + record - 1) / record),
                 (unsigned long long)(nk_nand_pages(nand) - start / page_size),
                 (unsigned long long)start);
    } else {
        return NULL;
    }
    return why;
}

/* Opens INPUT and the device and checks that one fits the other. Returns
 * 0 with both open, or the exit status with neither. */
static int tool_write_open(struct tool_write_job *w)
{
    int status_in = tool_write_open_input(w->input_path, &w->input);
    if (status_in)
        return status_in;
    struct stat st;
    if (fstat(fileno(w->input), &st) != 0) {
        fclose(w->input);
        return tool_error("cannot stat INPUT '%s': %s", w->input_path, strerror(errno));
    }
    w->input_size = (uint64_t)st.st_size;
    int status = tool_flash_open(&w->image, &w->opts, w->f.quiet);
    if (status) {
        fclose(w->input);
        return status;
    }
    if (w->a.noskipbad && w->image.mtd)
        status = tool_fail("--noskipbad: %s reports the blocks of the kernel's own bad-block "
                           "table as bad, and nandkit never programs those",
                           w->opts.path);
    else if (w->a.noecc)
        status = tool_image_raw_io(&w->image);
    if (!status) {
        struct nk_nand *nand = &w->image.nand;
        w->page_size = nk_nand_page_size(nand);
        w->oob_size = nk_nand_oob_size(nand);
        w->ppb = nk_nand_pages_per_block(nand);
        w->blocks = nk_nand_blocks(nand);
        w->record = w->page_size + (w->a.with_oob ? w->oob_size : 0);
        const char *bad_input = tool_write_check_fit(w);
        if (bad_input)
            status = tool_fail("%s", bad_input);
    }
    if (status) {
        fclose(w->input);
        tool_image_close(&w->image);
    }
    return status;
}

/* Whether the block (or with --blockalign N its N-aligned group) at
 * w->block is bad; skips past it when it is. Returns 1 (skipped), 0 (good)
 * or, with the failure in w->why, -1. */
static int tool_write_skip_bad(struct tool_write_job *w)
{
    uint32_t align = (uint32_t)w->a.align, block = w->block;
    /* nandwrite's rule: with --blockalign N a bad block anywhere in the
     * N-aligned group skips the whole group. */
    uint32_t group = block - block % align;
    int bad = 0;
    uint32_t bad_block = block;
    for (uint32_t g = group; !w->a.noskipbad && g < group + align && g < w->blocks && !bad; g++) {
        bad = nk_nand_block_is_bad(&w->image.nand, g);
        bad_block = g;
    }
    if (bad < 0) {
        snprintf(w->why, sizeof w->why, "checking block %u: %s", bad_block,
                 tool_image_error(&w->image, bad));
        return -1;
    }
    if (!bad)
        return 0;
    uint32_t next = group + align;
    w->skipped_bad += next - block;
    if (!w->f.quiet && !w->f.json) {
        uint32_t ppb = w->ppb, page_size = w->page_size;
        tool_progress_end(&w->progress);
        if (align > 1)
            fprintf(stderr,
                    "nandkit: block %u (0x%llx) is bad: blocks %u-%u skipped "
                    "(--blockalign %u)\n",
                    bad_block, (unsigned long long)bad_block * ppb * page_size, block, next - 1,
                    align);
        else
            fprintf(stderr, "nandkit: block %u (0x%llx) is bad: skipped\n", block,
                    (unsigned long long)block * ppb * page_size);
    }
    w->block = next;
    w->first_page = 0;
    return 1;
}

/* Programs the n records of `buf` into the next good block, from
 * w->first_page on; a block that fails is marked bad with --markbad and the
 * records go to the next. Returns NULL, or the failure (in w->why). */
static const char *tool_write_place(struct tool_write_job *w, const uint8_t *buf, uint32_t n)
{
    struct nk_nand *nand = &w->image.nand;
    uint32_t ppb = w->ppb, page_size = w->page_size, record = w->record;
    enum nk_oob_mode mode = w->a.noecc ? NK_OOB_RAW : NK_OOB_PLACE;
    for (;;) {
        if (w->block >= w->blocks) {
            snprintf(w->why, sizeof w->why,
                     "the device ended (bad blocks skipped) with %llu of %llu pages written",
                     (unsigned long long)w->pages_written, (unsigned long long)w->total_pages);
            return w->why;
        }
        int skipped = tool_write_skip_bad(w);
        if (skipped < 0)
            return w->why;
        if (skipped)
            continue;
        uint32_t block = w->block, first_page = w->first_page;
        int err = 0;
        uint32_t i;
        uint32_t ffs = 0;
        for (i = 0; i < n && !err; i++) {
            const uint8_t *rec = buf + (size_t)i * record;
            if (w->a.skip_ffs && tool_write_all_ff(rec, record)) {
                ffs++;
                continue;
            }
            err =
                nk_nand_program_page(nand, block * ppb + first_page + i, w->a.only_oob ? NULL : rec,
                                     w->a.with_oob ? rec + page_size : NULL, mode);
        }
        if (!err) {
            w->skipped_ffs += ffs;
            return NULL;
        }
        uint32_t failed_page = block * ppb + first_page + i - 1;
        if (err == -NK_EIO && w->a.markbad) {
            int merr = nk_nand_block_mark_bad(nand, block);
            if (merr) {
                snprintf(w->why, sizeof w->why, "marking block %u bad: %s", block,
                         tool_image_error(&w->image, merr));
                return w->why;
            }
            w->marked_bad++;
            if (!w->f.quiet && !w->f.json)
                fprintf(stderr,
                        "nandkit: programming page %u failed: block %u marked bad, "
                        "its data goes to the next good block\n",
                        failed_page, block);
            w->block++;
            w->first_page = 0;
            continue;
        }
        snprintf(w->why, sizeof w->why, "programming page %u (0x%llx) failed: %s%s", failed_page,
                 (unsigned long long)failed_page * page_size, tool_image_error(&w->image, err),
                 err == -NK_EIO ? " (was the range erased? see nandkit erase; --markbad "
                                  "retires a failing block)"
                                : "");
        return w->why;
    }
}

/* The write itself: one block of input at a time, so that a block that
 * fails can be written again into the next good one. Returns NULL, or the
 * failure (in w->why). */
static const char *tool_write_pages(struct tool_write_job *w)
{
    uint32_t ppb = w->ppb, page_size = w->page_size, record = w->record;
    uint8_t *buf = malloc((size_t)record * ppb);
    w->total_pages = (w->input_size + record - 1) / record;
    w->block = (uint32_t)(w->a.start / page_size / ppb);
    w->first_page = (uint32_t)(w->a.start / page_size % ppb);
    const char *failure = NULL;
    tool_progress_start(&w->progress, w->f.progress, "write", w->total_pages * page_size);
    while (w->pages_written < w->total_pages && !failure) {
        uint32_t n = ppb - w->first_page;
        if (n > w->total_pages - w->pages_written)
            n = (uint32_t)(w->total_pages - w->pages_written);
        size_t want = (size_t)n * record;
        memset(buf, 0xff, want);
        size_t got = fread(buf, 1, want, w->input);
        if (got < want && ferror(w->input)) {
            snprintf(w->why, sizeof w->why, "reading INPUT '%s' failed", w->input_path);
            failure = w->why;
            break;
        }
        failure = tool_write_place(w, buf, n);
        if (failure)
            break;
        w->pages_written += n;
        w->block++;
        w->first_page = 0;
        tool_progress_update(&w->progress, w->pages_written * page_size);
    }
    tool_progress_end(&w->progress);
    nk_nand_stats_get(&w->image.nand, &w->stats);
    free(buf);
    return failure;
}

/* The summary: one JSON object with --json, else a line on stderr unless
 * --quiet. */
static void tool_write_report(const struct tool_write_job *w)
{
    uint64_t start = w->a.start, input_size = w->input_size;
    uint64_t pages = w->pages_written - w->skipped_ffs;
    bool padded = input_size % w->record != 0;
    if (w->f.json) {
        printf("{\"start\":%llu,\"pages_written\":%llu,\"input_bytes\":%llu,\"oob\":%s,"
               "\"only_oob\":%s,\"ecc\":%s,\"padded\":%s,\"bad_blocks_skipped\":%u,"
               "\"blocks_marked_bad\":%u,\"all_ff_pages_skipped\":%u,\"programs\":%llu}\n",
               (unsigned long long)start, (unsigned long long)pages, (unsigned long long)input_size,
               w->a.with_oob ? "true" : "false", w->a.only_oob ? "true" : "false",
               w->a.noecc || w->a.only_oob ? "false" : "true", padded ? "true" : "false",
               w->skipped_bad, w->marked_bad, w->skipped_ffs,
               (unsigned long long)w->stats.page_programs);
    } else if (!w->f.quiet) {
        char note[64] = "";
        if (w->a.skip_ffs)
            snprintf(note, sizeof note, ", %u all-0xFF page(s) left erased", w->skipped_ffs);
        fprintf(stderr,
                "nandkit: wrote %llu pages from 0x%llx%s: %u bad block(s) skipped, %u "
                "marked bad%s\n",
                (unsigned long long)pages, (unsigned long long)start,
                padded ? " (last page padded with 0xFF)" : "", w->skipped_bad, w->marked_bad, note);
    }
}

static int tool_write_run(int argc, char **argv)
{
    struct tool_write_job w;
    memset(&w, 0, sizeof w);
    int status = tool_write_parse(argc, argv, &w);
    if (!status)
        status = tool_write_open(&w);
    if (status)
        return status;
    const char *failure = tool_write_pages(&w);
    fclose(w.input);
    tool_image_close(&w.image);
    if (failure)
        return tool_error("write: %s", failure);
    tool_write_report(&w);
    return 0;
}

const struct tool_command tool_cmd_write = {
    .name = "write",
    .summary = "program a file into pages, skipping bad blocks (nandwrite)",
    .run = tool_write_run,
    .help = tool_write_help,
};
