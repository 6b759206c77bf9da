/* SPDX-License-Identifier: MIT */
/* nandkit erase: erase a range of blocks, skipping bad ones, as flash_erase does. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_erase_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit erase IMAGE|/dev/mtdN START COUNT [-N] [options]\n\n"
            "Erases COUNT blocks from byte offset START on, as flash_erase does: START must be\n"
            "block aligned (decimal, 0x hex, or KiB/MiB/GiB), COUNT is a number of blocks and\n"
            "0 means every block to the end of the device (the range is always given: there\n"
            "is no default). Bad blocks are skipped and reported. A block whose erase fails is\n"
            "marked bad and the exit status is 1.\n\n"
            "Options:\n"
            "  -N, --noskipbad         erase bad blocks too (as flash_erase -N): a factory-bad\n"
            "                          block loses its marker. Where a bad-block table or the\n"
            "                          kernel refuses the erase, the block is reported failed\n"
            "      --jffs2             refused: nandkit does not write JFFS2 cleanmarkers\n"
            "                          (flash_erase -j; -j here is --json)\n"
            "  -u, --unlock            refused: images and simulated chips have no block\n"
            "                          locks (on /dev/mtdN use flash_unlock)\n"
            "  -p, --progress          a progress line on stderr (default: when it is a terminal)\n"
            "  -q, --quiet             no progress line, notes or summary\n"
            "  -j, --json              a JSON summary on stdout\n" TOOL_IMAGE_HELP);
}

enum { TOOL_OPT_JFFS2 = TOOL_OPT_FIRST_FREE };

static int tool_erase_option(void *ctx, int opt, const char *arg)
{
    (void)arg;
    bool *noskipbad = ctx;
    switch (opt) {
    case 'N':
        *noskipbad = true;
        return 0;
    case TOOL_OPT_JFFS2:
        return tool_fail("erase --jffs2: not supported: nandkit does not write JFFS2 "
                         "cleanmarkers");
    case 'u':
        return tool_fail("erase --unlock: not supported: image files and simulated chips "
                         "have no block locks (on /dev/mtdN use flash_unlock)");
    default:
        return -1;
    }
}

/* One erase, from the command line to the counts it reports. */
struct tool_erase_job {
    bool noskipbad;
    struct tool_flash_flags f;
    struct tool_image_opts opts;
    uint64_t start, count; /* START in bytes; COUNT blocks (0 until settled: to the end) */
    struct tool_image image;
    uint64_t block_bytes;
    uint32_t first; /* START's block */
    uint32_t erased, skipped, failed, bad_erased;
    struct tool_progress progress;
    char why[200];
};

/* Fills the command-line fields of `e`. Returns 0, or the exit status
 * after a report. */
static int tool_erase_parse(int argc, char **argv, struct tool_erase_job *e)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"noskipbad", no_argument, NULL, 'N'},
                                            {"jffs2", no_argument, NULL, TOOL_OPT_JFFS2},
                                            {"unlock", no_argument, NULL, 'u'},
                                            {"progress", no_argument, NULL, 'p'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    const struct tool_flash_parse parse = {
        "erase",
        "Nupqj",
        options,
        'p',
        tool_erase_option,
        &e->noskipbad,
        3,
        "IMAGE|/dev/mtdN, START and COUNT (COUNT 0 = to the end)",
        false};
    const char *args[3];
    int status = tool_flash_parse(argc, argv, &parse, &e->opts, &e->f, args);
    if (status)
        return status;
    const char *start_text = args[1], *count_text = args[2];
    if (!tool_parse_size(start_text, &e->start))
        return tool_fail("bad START '%s': expected a byte offset (e.g. 0x20000, 1MiB)", start_text);
    if (!tool_parse_u64(count_text, &e->count))
        return tool_fail("bad COUNT '%s': expected a number of blocks (0 = to the end)",
                         count_text);
    return 0;
}

/* Opens the device and checks the range against it (COUNT 0 becomes the
 * blocks to the end). Returns 0 with the image open, or the exit status
 * with it closed. */
static int tool_erase_open(struct tool_erase_job *e)
{
    int status = tool_flash_open(&e->image, &e->opts, e->f.quiet);
    if (status)
        return status;
    struct nk_nand *nand = &e->image.nand;
    e->block_bytes = (uint64_t)nk_nand_page_size(nand) * nk_nand_pages_per_block(nand);
    uint64_t start = e->start, block_bytes = e->block_bytes;
    uint32_t blocks = nk_nand_blocks(nand);
    const char *bad_input = NULL;
    if (start % block_bytes) {
        snprintf(e->why, sizeof e->why,
                 "START 0x%llx is not block aligned (blocks are 0x%llx bytes)",
                 (unsigned long long)start, (unsigned long long)block_bytes);
        bad_input = e->why;
    } else if (start / block_bytes >= blocks) {
        snprintf(e->why, sizeof e->why, "START 0x%llx is past the end of the device (%u blocks)",
                 (unsigned long long)start, blocks);
        bad_input = e->why;
    }
    e->first = (uint32_t)(start / block_bytes);
    if (!bad_input && e->count == 0)
        e->count = blocks - e->first;
    if (!bad_input && e->count > blocks - e->first) {
        snprintf(e->why, sizeof e->why, "COUNT %llu from block %u runs past the end (%u blocks)",
                 (unsigned long long)e->count, e->first, blocks);
        bad_input = e->why;
    }
    if (bad_input) {
        tool_image_close(&e->image);
        return tool_fail("%s", bad_input);
    }
    return 0;
}

/* A note on stderr about one block (unless --quiet or --json), after
 * ending the progress line. */
static void tool_erase_note(struct tool_erase_job *e, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void tool_erase_note(struct tool_erase_job *e, const char *format, ...)
{
    if (e->f.quiet || e->f.json)
        return;
    tool_progress_end(&e->progress);
    va_list ap;
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
}

/* Erases one block (a bad one only with --noskipbad); a failed erase marks
 * a good block bad. Returns NULL, or the failure (in e->why). */
static const char *tool_erase_one(struct tool_erase_job *e, uint32_t block)
{
    struct nk_nand *nand = &e->image.nand;
    int bad = nk_nand_block_is_bad(nand, block);
    if (bad < 0) {
        snprintf(e->why, sizeof e->why, "checking block %u: %s", block,
                 tool_image_error(&e->image, bad));
        return e->why;
    }
    if (bad && !e->noskipbad) {
        e->skipped++;
        tool_erase_note(e, "nandkit: block %u (0x%llx) is bad: skipped\n", block,
                        (unsigned long long)block * e->block_bytes);
        return NULL;
    }
    int err = nk_nand_erase_block(nand, block);
    if (err == -NK_EIO && bad) {
        e->failed++;
        tool_erase_note(e, "nandkit: erasing bad block %u failed: %s\n", block,
                        tool_image_error(&e->image, err));
    } else if (err == -NK_EIO) {
        e->failed++;
        nk_nand_block_mark_bad(nand, block);
        tool_erase_note(e, "nandkit: erasing block %u failed: marked bad\n", block);
    } else if (err) {
        snprintf(e->why, sizeof e->why, "erasing block %u: %s", block,
                 tool_image_error(&e->image, err));
        return e->why;
    } else {
        e->erased++;
        if (bad) {
            e->bad_erased++;
            tool_erase_note(e,
                            "nandkit: block %u (0x%llx) was bad and is erased (--noskipbad): "
                            "its marker is gone\n",
                            block, (unsigned long long)block * e->block_bytes);
        }
    }
    return NULL;
}

/* The erase itself: the range block by block. Returns NULL, or the failure
 * that stopped it. */
static const char *tool_erase_blocks(struct tool_erase_job *e)
{
    const char *failure = NULL;
    tool_progress_start(&e->progress, e->f.progress, "erase", e->count * e->block_bytes);
    for (uint32_t i = 0; i < e->count && !failure; i++) {
        failure = tool_erase_one(e, e->first + i);
        if (failure)
            break;
        tool_progress_update(&e->progress, (uint64_t)(i + 1) * e->block_bytes);
    }
    tool_progress_end(&e->progress);
    return failure;
}

/* The summary (JSON on stdout, or a line on stderr unless --quiet) and the
 * exit status: 1 when a block failed to erase. */
static int tool_erase_report(const struct tool_erase_job *e)
{
    if (e->f.json)
        printf("{\"first_block\":%u,\"blocks\":%llu,\"erased\":%u,\"bad_skipped\":%u,"
               "\"bad_erased\":%u,\"failed\":%u}\n",
               e->first, (unsigned long long)e->count, e->erased, e->skipped, e->bad_erased,
               e->failed);
    else if (!e->f.quiet)
        fprintf(stderr,
                "nandkit: erased %u of %llu blocks from block %u (0x%llx): %u bad "
                "skipped, %u failed\n",
                e->erased, (unsigned long long)e->count, e->first, (unsigned long long)e->start,
                e->skipped, e->failed);
    if (e->failed)
        return tool_error("erase: %u block(s) failed to erase%s", e->failed,
                          e->noskipbad ? "" : " and were marked bad");
    return 0;
}

static int tool_erase_run(int argc, char **argv)
{
    struct tool_erase_job e;
    memset(&e, 0, sizeof e);
    int status = tool_erase_parse(argc, argv, &e);
    if (!status)
        status = tool_erase_open(&e);
    if (status)
        return status;
    const char *failure = tool_erase_blocks(&e);
    tool_image_close(&e.image);
    if (failure)
        return tool_error("erase: %s", failure);
    return tool_erase_report(&e);
}

const struct tool_command tool_cmd_erase = {
    .name = "erase",
    .summary = "erase a range of blocks, skipping bad ones (flash_erase)",
    .run = tool_erase_run,
    .help = tool_erase_help,
};
