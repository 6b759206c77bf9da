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

static int tool_read_run(int argc, char **argv)
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
    struct tool_read_args r = {.bb = TOOL_BB_SKIP};
    const struct tool_flash_parse parse = {
        "read", "s:l:f:onpqj", options, 0, tool_read_option, &r, 1, "an IMAGE or /dev/mtdN", true};
    struct tool_image_opts opts;
    struct tool_flash_flags f;
    const char *args[1];
    int status = tool_flash_parse(argc, argv, &parse, &opts, &f, args);
    if (status)
        return status;
    opts.read_only = true;
    uint64_t start = r.start, length = r.length;
    bool have_length = r.have_length, with_oob = r.with_oob, noecc = r.noecc;
    const char *file = r.file;
    enum tool_read_bb bb = r.bb;
    bool quiet = f.quiet, json = f.json;
    if (json && (!file || strcmp(file, "-") == 0))
        return tool_fail("read --json prints a summary on stdout: give the data a --file");
    struct tool_image image;
    status = tool_flash_open(&image, &opts, quiet);
    if (status)
        return status;
    if (noecc) {
        status = tool_image_raw_io(&image);
        if (status) {
            tool_image_close(&image);
            return status;
        }
    }
    struct nk_nand *nand = &image.nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint32_t ppb = nk_nand_pages_per_block(nand), pages = nk_nand_pages(nand);
    uint64_t device_bytes = (uint64_t)pages * page_size;
    if (start % page_size) {
        tool_image_close(&image);
        return tool_fail("--start 0x%llx is not page aligned (pages are %u bytes)",
                         (unsigned long long)start, page_size);
    }
    if (start >= device_bytes) {
        tool_image_close(&image);
        return tool_fail("--start 0x%llx is past the end of the device (0x%llx bytes)",
                         (unsigned long long)start, (unsigned long long)device_bytes);
    }
    if (!have_length)
        length = device_bytes - start;
    uint64_t want_pages = (length + page_size - 1) / page_size;
    if (have_length && length % page_size && !quiet)
        fprintf(stderr, "nandkit: --length %llu rounded up to %llu pages\n",
                (unsigned long long)length, (unsigned long long)want_pages);
    if (bb != TOOL_BB_SKIP && start / page_size + want_pages > pages) {
        /* As nanddump: a range past the end is read to the end. */
        want_pages = pages - start / page_size;
        if (!quiet)
            fprintf(stderr,
                    "nandkit: --start 0x%llx + --length 0x%llx runs past the end of the device: "
                    "read to its end (0x%llx bytes)\n",
                    (unsigned long long)start, (unsigned long long)length,
                    (unsigned long long)device_bytes);
    }

    struct tool_outfile out;
    status = tool_outfile_open(&out, file);
    if (status) {
        tool_image_close(&image);
        return status;
    }
    uint8_t *data = malloc(page_size), *oob = malloc(oob_size);
    struct tool_read_summary sum;
    memset(&sum, 0, sizeof sum);
    struct tool_progress progress;
    tool_progress_start(&progress, f.progress, "read", want_pages * page_size);
    enum nk_oob_mode mode = noecc ? NK_OOB_RAW : NK_OOB_PLACE;
    const char *failure = NULL;
    char why[200];
    uint32_t page = (uint32_t)(start / page_size);
    uint64_t done = 0;
    int32_t checked_block = -1;
    bool block_bad = false;
    while (done < want_pages && !failure) {
        if (page >= pages) {
            sum.truncated = true;
            break;
        }
        uint32_t block = page / ppb;
        if ((int32_t)block != checked_block) {
            int bad = nk_nand_block_is_bad(nand, block);
            if (bad < 0) {
                snprintf(why, sizeof why, "checking block %u: %s", block,
                         tool_image_error(&image, bad));
                failure = why;
                break;
            }
            checked_block = (int32_t)block;
            block_bad = bad == 1;
            if (block_bad) {
                sum.bad_blocks++;
                if (!quiet && !json) {
                    tool_progress_end(&progress);
                    fprintf(stderr, "nandkit: block %u (0x%llx) is bad: %s\n", block,
                            (unsigned long long)block * ppb * page_size,
                            bb == TOOL_BB_SKIP  ? "skipped"
                            : bb == TOOL_BB_PAD ? "written as 0xFF"
                                                : "read as it is");
                }
            }
        }
        if (block_bad && bb == TOOL_BB_SKIP) {
            page = (block + 1) * ppb;
            continue;
        }
        if (block_bad && bb == TOOL_BB_PAD) {
            memset(data, 0xff, page_size);
            memset(oob, 0xff, oob_size);
            sum.pages_padded++;
        } else {
            int err = nk_nand_read_page(nand, page, data, with_oob ? oob : NULL, mode);
            if (err == -NK_EBADMSG) {
                if (!sum.failed_pages)
                    sum.first_failed_page = page;
                sum.failed_pages++;
            } else if (err > 0) {
                sum.corrected_pages++;
                sum.corrected_bits += nk_nand_last_bitflips(nand);
            } else if (err < 0) {
                snprintf(why, sizeof why, "reading page %u (0x%llx): %s", page,
                         (unsigned long long)page * page_size, tool_image_error(&image, err));
                failure = why;
                break;
            }
            sum.pages_read++;
        }
        if (fwrite(data, 1, page_size, out.file) != page_size ||
            (with_oob && fwrite(oob, 1, oob_size, out.file) != oob_size)) {
            snprintf(why, sizeof why, "writing %s failed", file ? file : "standard output");
            failure = why;
            break;
        }
        sum.bytes_out += page_size + (with_oob ? oob_size : 0);
        done++;
        page++;
        tool_progress_update(&progress, done * page_size);
    }
    tool_progress_end(&progress);
    free(data);
    free(oob);
    tool_image_close(&image);
    status = tool_outfile_close(&out, !failure);
    if (failure)
        return tool_error("read: %s", failure);
    if (status)
        return status;

    if (json) {
        printf("{\"start\":%llu,\"pages\":%llu,\"pages_read\":%llu,\"pages_padded\":%llu,"
               "\"bytes_written\":%llu,\"oob\":%s,\"ecc\":%s,\"bb\":\"%s\",\"bad_blocks\":%u,"
               "\"corrected_bits\":%llu,\"corrected_pages\":%llu,\"uncorrectable_pages\":%llu,"
               "\"truncated\":%s}\n",
               (unsigned long long)start, (unsigned long long)done,
               (unsigned long long)sum.pages_read, (unsigned long long)sum.pages_padded,
               (unsigned long long)sum.bytes_out, with_oob ? "true" : "false",
               noecc ? "false" : "true", tool_read_bb_names[bb], sum.bad_blocks,
               (unsigned long long)sum.corrected_bits, (unsigned long long)sum.corrected_pages,
               (unsigned long long)sum.failed_pages, sum.truncated ? "true" : "false");
    } else if (!quiet) {
        char a[32];
        fprintf(stderr,
                "nandkit: read %llu pages (%s) from 0x%llx: %u bad block(s) %s, %llu bitflip(s) "
                "corrected, %llu page(s) uncorrectable\n",
                (unsigned long long)done, tool_format_bytes(sum.bytes_out, a, sizeof a),
                (unsigned long long)start, sum.bad_blocks,
                bb == TOOL_BB_SKIP  ? "skipped"
                : bb == TOOL_BB_PAD ? "padded"
                                    : "dumped",
                (unsigned long long)sum.corrected_bits, (unsigned long long)sum.failed_pages);
    }
    if (sum.truncated && !quiet)
        fprintf(stderr, "nandkit: the device ended after %llu of %llu pages (bad blocks skipped)\n",
                (unsigned long long)done, (unsigned long long)want_pages);
    if (sum.failed_pages)
        return tool_error("read: %llu page(s) uncorrectable, the first page %u (0x%llx); "
                          "written as read",
                          (unsigned long long)sum.failed_pages, sum.first_failed_page,
                          (unsigned long long)sum.first_failed_page * page_size);
    return 0;
}

const struct tool_command tool_cmd_read = {
    .name = "read",
    .summary = "copy a range of pages to a file (nanddump)",
    .run = tool_read_run,
    .help = tool_read_help,
};
