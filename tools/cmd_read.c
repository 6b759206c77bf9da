/* SPDX-License-Identifier: MIT */
/* nandkit read: a range of an image or /dev/mtdN to a file, as nanddump does. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_read_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit read IMAGE|/dev/mtdN [-s START] [-l LENGTH] [-f FILE] [--oob]\n"
            "                    [--noecc] [--bb=skipbad|dumpbad|padbad] [options]\n\n"
            "Copies pages of the device to FILE (default: standard output), as nanddump does:\n"
            "each page's data, followed by its OOB with --oob. START and LENGTH are bytes of\n"
            "page data (decimal, 0x hex, or with a KiB/MiB/GiB suffix); START must be page\n"
            "aligned and LENGTH is rounded up to whole pages. Pages are read through the\n"
            "layout's ECC (corrected data, the OOB as on flash) unless --noecc. A page whose\n"
            "ECC fails is written as read and counted; the exit status is then 1. Only reads:\n"
            "nothing is written to the device or beside an image.\n\n"
            "Bad blocks (--bb):\n"
            "  skipbad   leave them out; LENGTH counts good data only (default, as nanddump)\n"
            "  padbad    write 0xFF in their place, so offsets in FILE match the device\n"
            "  dumpbad   read them like any other block\n\n"
            "Options:\n"
            "  -s, --start OFFSET      first byte (default 0)\n"
            "  -l, --length BYTES      how much page data (default, or 0: to the end; with\n"
            "                          padbad or dumpbad a range past the end stops there,\n"
            "                          as nanddump)\n"
            "  -f, --file FILE         output file, replaced whole when the read succeeds\n"
            "  -o, --oob               each page's OOB after its data\n"
            "  -n, --noecc             raw pages, no ECC correction\n"
            "      --bb METHOD         skipbad, padbad or dumpbad\n"
            "      --progress          a progress line on stderr (default: when it is a terminal;\n"
            "                          -p is nanddump's --prettyprint, which read refuses: use\n"
            "                          dump --page N for a hex view)\n"
            "  -q, --quiet             no progress line, warning or summary\n"
            "  -j, --json              a JSON summary on stdout (needs "
            "--file)\n" TOOL_IMAGE_HELP_READ);
}

enum tool_read_bb { TOOL_BB_SKIP, TOOL_BB_PAD, TOOL_BB_DUMP };
static const char *const tool_read_bb_names[] = {"skipbad", "padbad", "dumpbad"};

struct tool_read_summary {
    uint64_t pages_read, pages_padded, bytes_out;
    uint32_t bad_blocks; /* bad blocks met */
    uint64_t corrected_bits, corrected_pages, failed_pages;
    uint32_t first_failed_page;
    bool truncated; /* skipbad ran out of device before LENGTH */
};

/* read's own options. */
struct tool_read_args {
    uint64_t start, length;
    bool have_length, with_oob, noecc;
    const char *file;
    enum tool_read_bb bb;
};

static int tool_read_option(void *ctx, int opt, const char *arg)
{
    struct tool_read_args *a = ctx;
    switch (opt) {
    case 's':
        return tool_parse_start(arg, &a->start);
    case 'l':
        if (!tool_parse_size(arg, &a->length))
            return tool_fail("bad --length '%s': expected bytes (e.g. 4096, 2MiB)", arg);
        a->have_length = a->length != 0; /* 0: to the end, as nanddump */
        return 0;
    case 'f':
        a->file = arg;
        return 0;
    case 'o':
        a->with_oob = true;
        return 0;
    case 'n':
        a->noecc = true;
        return 0;
    case 'b':
        for (unsigned i = 0; i < sizeof tool_read_bb_names / sizeof tool_read_bb_names[0]; i++) {
            if (strcmp(arg, tool_read_bb_names[i]) == 0) {
                a->bb = (enum tool_read_bb)i;
                return 0;
            }
        }
        return tool_fail("unknown --bb '%s' (skipbad, padbad or dumpbad)", arg);
    case 'p':
        return tool_fail("read: -p/--prettyprint (nanddump's hex listing) is not supported: "
                         "read writes binary; `nandkit dump IMAGE --page N` prints a page as "
                         "hex, and --progress shows progress");
    default:
        return -1;
    }
}

/* One read, from the command line to the summary. */
struct tool_read_job {
    struct tool_read_args a;
    struct tool_flash_flags f;
    struct tool_image_opts opts;
    struct tool_image image;
    uint32_t page_size, oob_size, ppb, pages;
    uint64_t want_pages;   /* pages asked for, after rounding and clipping */
    uint64_t done;         /* pages written out */
    int32_t checked_block; /* the block whose badness block_bad holds, or -1 */
    bool block_bad;
    struct tool_read_summary sum;
    struct tool_progress progress;
    char why[200];
};

/* Fills r->a, r->f and r->opts. Returns 0 or the exit status after a
 * report. */
static int tool_read_parse(int argc, char **argv, struct tool_read_job *r)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"start", required_argument, NULL, 's'},
                                            {"length", required_argument, NULL, 'l'},
                                            {"file", required_argument, NULL, 'f'},
                                            {"oob", no_argument, NULL, 'o'},
                                            {"noecc", no_argument, NULL, 'n'},
                                            {"bb", required_argument, NULL, 'b'},
                                            {"progress", no_argument, NULL, TOOL_OPT_PROGRESS},
                                            {"prettyprint", no_argument, NULL, 'p'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    r->a.bb = TOOL_BB_SKIP;
    const struct tool_flash_parse parse = {"read", "s:l:f:onpqj",           options,
                                           0,      tool_read_option,        &r->a,
                                           1,      "an IMAGE or /dev/mtdN", true};
    const char *args[1];
    int status = tool_flash_parse(argc, argv, &parse, &r->opts, &r->f, args);
    if (status)
        return status;
    r->opts.read_only = true;
    if (r->f.json && (!r->a.file || strcmp(r->a.file, "-") == 0))
        return tool_fail("read --json prints a summary on stdout: give the data a --file");
    return 0;
}

/* Opens the device and settles the range: START checked, LENGTH rounded up
 * to pages and, except with skipbad, clipped at the end (each said on
 * stderr). Returns 0 with the image open, or the exit status with it
 * closed. */
static int tool_read_open(struct tool_read_job *r)
{
    int status = tool_flash_open(&r->image, &r->opts, r->f.quiet);
    if (status)
        return status;
    if (r->a.noecc) {
        status = tool_image_raw_io(&r->image);
        if (status) {
            tool_image_close(&r->image);
            return status;
        }
    }
    struct nk_nand *nand = &r->image.nand;
    r->page_size = nk_nand_page_size(nand);
    r->oob_size = nk_nand_oob_size(nand);
    r->ppb = nk_nand_pages_per_block(nand);
    r->pages = nk_nand_pages(nand);
    uint32_t page_size = r->page_size, pages = r->pages;
    uint64_t start = r->a.start, length = r->a.length;
    uint64_t device_bytes = (uint64_t)pages * page_size;
    if (start % page_size) {
        tool_image_close(&r->image);
        return tool_fail("--start 0x%llx is not page aligned (pages are %u bytes)",
                         (unsigned long long)start, page_size);
    }
    if (start >= device_bytes) {
        tool_image_close(&r->image);
        return tool_fail("--start 0x%llx is past the end of the device (0x%llx bytes)",
                         (unsigned long long)start, (unsigned long long)device_bytes);
    }
    if (!r->a.have_length)
        length = device_bytes - start;
    r->want_pages = (length + page_size - 1) / page_size;
    if (r->a.have_length && length % page_size && !r->f.quiet)
        fprintf(stderr, "nandkit: --length %llu rounded up to %llu pages\n",
                (unsigned long long)length, (unsigned long long)r->want_pages);
    if (r->a.bb != TOOL_BB_SKIP && start / page_size + r->want_pages > pages) {
        /* As nanddump: a range past the end is read to the end. */
        r->want_pages = pages - start / page_size;
        if (!r->f.quiet)
            fprintf(stderr,
                    "nandkit: --start 0x%llx + --length 0x%llx runs past the end of the device: "
                    "read to its end (0x%llx bytes)\n",
                    (unsigned long long)start, (unsigned long long)length,
                    (unsigned long long)device_bytes);
    }
    return 0;
}

/* Learns (once per block) whether `block` is bad, saying so on stderr.
 * Returns NULL, or the failure (in r->why). */
static const char *tool_read_check_block(struct tool_read_job *r, uint32_t block)
{
    if ((int32_t)block == r->checked_block)
        return NULL;
    int bad = nk_nand_block_is_bad(&r->image.nand, block);
    if (bad < 0) {
        snprintf(r->why, sizeof r->why, "checking block %u: %s", block,
                 tool_image_error(&r->image, bad));
        return r->why;
    }
    r->checked_block = (int32_t)block;
    r->block_bad = bad == 1;
    if (r->block_bad) {
        r->sum.bad_blocks++;
        if (!r->f.quiet && !r->f.json) {
            tool_progress_end(&r->progress);
            fprintf(stderr, "nandkit: block %u (0x%llx) is bad: %s\n", block,
                    (unsigned long long)block * r->ppb * r->page_size,
                    r->a.bb == TOOL_BB_SKIP  ? "skipped"
                    : r->a.bb == TOOL_BB_PAD ? "written as 0xFF"
                                             : "read as it is");
        }
    }
    return NULL;
}

/* Reads `page` into data/oob (0xFF for a bad block with padbad), counting
 * what ECC said. Returns NULL, or the failure (in r->why). */
static const char *tool_read_one(struct tool_read_job *r, uint32_t page, uint8_t *data,
                                 uint8_t *oob)
{
    struct nk_nand *nand = &r->image.nand;
    if (r->block_bad && r->a.bb == TOOL_BB_PAD) {
        memset(data, 0xff, r->page_size);
        memset(oob, 0xff, r->oob_size);
        r->sum.pages_padded++;
        return NULL;
    }
    enum nk_oob_mode mode = r->a.noecc ? NK_OOB_RAW : NK_OOB_PLACE;
    int err = nk_nand_read_page(nand, page, data, r->a.with_oob ? oob : NULL, mode);
    if (err == -NK_EBADMSG) {
        if (!r->sum.failed_pages)
            r->sum.first_failed_page = page;
        r->sum.failed_pages++;
    } else if (err > 0) {
        r->sum.corrected_pages++;
        r->sum.corrected_bits += nk_nand_last_bitflips(nand);
    } else if (err < 0) {
        snprintf(r->why, sizeof r->why, "reading page %u (0x%llx): %s", page,
                 (unsigned long long)page * r->page_size, tool_image_error(&r->image, err));
        return r->why;
    }
    r->sum.pages_read++;
    return NULL;
}

/* The read itself: r->want_pages pages from --start into `out`, bad blocks
 * as --bb says. Returns NULL, or the failure (in r->why). */
static const char *tool_read_pages(struct tool_read_job *r, FILE *out)
{
    uint32_t page_size = r->page_size, oob_size = r->oob_size;
    bool with_oob = r->a.with_oob;
    uint8_t *data = malloc(page_size), *oob = malloc(oob_size);
    tool_progress_start(&r->progress, r->f.progress, "read", r->want_pages * page_size);
    const char *failure = NULL;
    uint32_t page = (uint32_t)(r->a.start / page_size);
    r->checked_block = -1;
    while (r->done < r->want_pages && !failure) {
        if (page >= r->pages) {
            r->sum.truncated = true;
            break;
        }
        uint32_t block = page / r->ppb;
        failure = tool_read_check_block(r, block);
        if (failure)
            break;
        if (r->block_bad && r->a.bb == TOOL_BB_SKIP) {
            page = (block + 1) * r->ppb;
            continue;
        }
        failure = tool_read_one(r, page, data, oob);
        if (failure)
            break;
        if (fwrite(data, 1, page_size, out) != page_size ||
            (with_oob && fwrite(oob, 1, oob_size, out) != oob_size)) {
            snprintf(r->why, sizeof r->why, "writing %s failed",
                     r->a.file ? r->a.file : "standard output");
            failure = r->why;
            break;
        }
        r->sum.bytes_out += page_size + (with_oob ? oob_size : 0);
        r->done++;
        page++;
        tool_progress_update(&r->progress, r->done * page_size);
    }
    tool_progress_end(&r->progress);
    free(data);
    free(oob);
    return failure;
}

/* The summary (JSON on stdout with --json, else a line on stderr unless
 * --quiet) and the exit status: 1 when a page was uncorrectable. */
static int tool_read_report(const struct tool_read_job *r)
{
    const struct tool_read_summary *sum = &r->sum;
    enum tool_read_bb bb = r->a.bb;
    uint64_t start = r->a.start;
    if (r->f.json) {
        printf("{\"start\":%llu,\"pages\":%llu,\"pages_read\":%llu,\"pages_padded\":%llu,"
               "\"bytes_written\":%llu,\"oob\":%s,\"ecc\":%s,\"bb\":\"%s\",\"bad_blocks\":%u,"
               "\"corrected_bits\":%llu,\"corrected_pages\":%llu,\"uncorrectable_pages\":%llu,"
               "\"truncated\":%s}\n",
               (unsigned long long)start, (unsigned long long)r->done,
               (unsigned long long)sum->pages_read, (unsigned long long)sum->pages_padded,
               (unsigned long long)sum->bytes_out, r->a.with_oob ? "true" : "false",
               r->a.noecc ? "false" : "true", tool_read_bb_names[bb], sum->bad_blocks,
               (unsigned long long)sum->corrected_bits, (unsigned long long)sum->corrected_pages,
               (unsigned long long)sum->failed_pages, sum->truncated ? "true" : "false");
    } else if (!r->f.quiet) {
        char a[32];
        fprintf(stderr,
                "nandkit: read %llu pages (%s) from 0x%llx: %u bad block(s) %s, %llu bitflip(s) "
                "corrected, %llu page(s) uncorrectable\n",
                (unsigned long long)r->done, tool_format_bytes(sum->bytes_out, a, sizeof a),
                (unsigned long long)start, sum->bad_blocks,
                bb == TOOL_BB_SKIP  ? "skipped"
                : bb == TOOL_BB_PAD ? "padded"
                                    : "dumped",
                (unsigned long long)sum->corrected_bits, (unsigned long long)sum->failed_pages);
    }
    if (sum->truncated && !r->f.quiet)
        fprintf(stderr, "nandkit: the device ended after %llu of %llu pages (bad blocks skipped)\n",
                (unsigned long long)r->done, (unsigned long long)r->want_pages);
    if (sum->failed_pages)
        return tool_error("read: %llu page(s) uncorrectable, the first page %u (0x%llx); "
                          "written as read",
                          (unsigned long long)sum->failed_pages, sum->first_failed_page,
                          (unsigned long long)sum->first_failed_page * r->page_size);
    return 0;
}

static int tool_read_run(int argc, char **argv)
{
    struct tool_read_job r;
    memset(&r, 0, sizeof r);
    int status = tool_read_parse(argc, argv, &r);
    if (!status)
        status = tool_read_open(&r);
    if (status)
        return status;
    struct tool_outfile out;
    status = tool_outfile_open(&out, r.a.file);
    if (status) {
        tool_image_close(&r.image);
        return status;
    }
    const char *failure = tool_read_pages(&r, out.file);
    tool_image_close(&r.image);
    status = tool_outfile_close(&out, !failure);
    if (failure)
        return tool_error("read: %s", failure);
    if (status)
        return status;
    return tool_read_report(&r);
}

const struct tool_command tool_cmd_read = {
    .name = "read",
    .summary = "copy a range of pages to a file (nanddump)",
    .run = tool_read_run,
    .help = tool_read_help,
};
