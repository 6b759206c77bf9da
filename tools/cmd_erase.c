/* SPDX-License-Identifier: MIT */
/* nandkit erase: erase a range of blocks, skipping bad ones, as flash_erase does. */
#include <getopt.h>
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

static int tool_erase_run(int argc, char **argv)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"noskipbad", no_argument, NULL, 'N'},
                                            {"jffs2", no_argument, NULL, TOOL_OPT_JFFS2},
                                            {"unlock", no_argument, NULL, 'u'},
                                            {"progress", no_argument, NULL, 'p'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    bool noskipbad = false;
    const struct tool_flash_parse parse = {
        "erase",
        "Nupqj",
        options,
        'p',
        tool_erase_option,
        &noskipbad,
        3,
        "IMAGE|/dev/mtdN, START and COUNT (COUNT 0 = to the end)",
        false};
    struct tool_image_opts opts;
    struct tool_flash_flags f;
    const char *args[3];
    int status = tool_flash_parse(argc, argv, &parse, &opts, &f, args);
    if (status)
        return status;
    const char *start_text = args[1], *count_text = args[2];
    uint64_t start, count;
    if (!tool_parse_size(start_text, &start))
        return tool_fail("bad START '%s': expected a byte offset (e.g. 0x20000, 1MiB)", start_text);
    if (!tool_parse_u64(count_text, &count))
        return tool_fail("bad COUNT '%s': expected a number of blocks (0 = to the end)",
                         count_text);
    bool quiet = f.quiet, json = f.json;

    struct tool_image image;
    status = tool_flash_open(&image, &opts, quiet);
    if (status)
        return status;
    struct nk_nand *nand = &image.nand;
    uint64_t block_bytes = (uint64_t)nk_nand_page_size(nand) * nk_nand_pages_per_block(nand);
    uint32_t blocks = nk_nand_blocks(nand);
    const char *bad_input = NULL;
    char why[200];
    if (start % block_bytes) {
        snprintf(why, sizeof why, "START 0x%llx is not block aligned (blocks are 0x%llx bytes)",
                 (unsigned long long)start, (unsigned long long)block_bytes);
        bad_input = why;
    } else if (start / block_bytes >= blocks) {
        snprintf(why, sizeof why, "START 0x%llx is past the end of the device (%u blocks)",
                 (unsigned long long)start, blocks);
        bad_input = why;
    }
    uint32_t first = (uint32_t)(start / block_bytes);
    if (!bad_input && count == 0)
        count = blocks - first;
    if (!bad_input && count > blocks - first) {
        snprintf(why, sizeof why, "COUNT %llu from block %u runs past the end (%u blocks)",
                 (unsigned long long)count, first, blocks);
        bad_input = why;
    }
    if (bad_input) {
        tool_image_close(&image);
        return tool_fail("%s", bad_input);
    }

    uint32_t erased = 0, skipped = 0, failed = 0, bad_erased = 0;
    const char *failure = NULL;
    struct tool_progress progress;
    tool_progress_start(&progress, f.progress, "erase", count * block_bytes);
    for (uint32_t i = 0; i < count && !failure; i++) {
        uint32_t block = first + i;
        int bad = nk_nand_block_is_bad(nand, block);
        if (bad < 0) {
            snprintf(why, sizeof why, "checking block %u: %s", block,
                     tool_image_error(&image, bad));
            failure = why;
            break;
        }
        if (bad && !noskipbad) {
            skipped++;
            if (!quiet && !json) {
                tool_progress_end(&progress);
                fprintf(stderr, "nandkit: block %u (0x%llx) is bad: skipped\n", block,
                        (unsigned long long)block * block_bytes);
            }
        } else {
            int err = nk_nand_erase_block(nand, block);
            if (err == -NK_EIO && bad) {
                failed++;
                if (!quiet && !json) {
                    tool_progress_end(&progress);
                    fprintf(stderr, "nandkit: erasing bad block %u failed: %s\n", block,
                            tool_image_error(&image, err));
                }
            } else if (err == -NK_EIO) {
                failed++;
                nk_nand_block_mark_bad(nand, block);
                if (!quiet && !json) {
                    tool_progress_end(&progress);
                    fprintf(stderr, "nandkit: erasing block %u failed: marked bad\n", block);
                }
            } else if (err) {
                snprintf(why, sizeof why, "erasing block %u: %s", block,
                         tool_image_error(&image, err));
                failure = why;
                break;
            } else {
                erased++;
                if (bad) {
                    bad_erased++;
                    if (!quiet && !json) {
                        tool_progress_end(&progress);
                        fprintf(stderr,
                                "nandkit: block %u (0x%llx) was bad and is erased (--noskipbad): "
                                "its marker is gone\n",
                                block, (unsigned long long)block * block_bytes);
                    }
                }
            }
        }
        tool_progress_update(&progress, (uint64_t)(i + 1) * block_bytes);
    }
    tool_progress_end(&progress);
    tool_image_close(&image);
    if (failure)
        return tool_error("erase: %s", failure);
    if (json)
        printf("{\"first_block\":%u,\"blocks\":%llu,\"erased\":%u,\"bad_skipped\":%u,"
               "\"bad_erased\":%u,\"failed\":%u}\n",
               first, (unsigned long long)count, erased, skipped, bad_erased, failed);
    else if (!quiet)
        fprintf(stderr,
                "nandkit: erased %u of %llu blocks from block %u (0x%llx): %u bad "
                "skipped, %u failed\n",
                erased, (unsigned long long)count, first, (unsigned long long)start, skipped,
                failed);
    if (failed)
        return tool_error("erase: %u block(s) failed to erase%s", failed,
                          noskipbad ? "" : " and were marked bad");
    return 0;
}

const struct tool_command tool_cmd_erase = {
    .name = "erase",
    .summary = "erase a range of blocks, skipping bad ones (flash_erase)",
    .run = tool_erase_run,
    .help = tool_erase_help,
};
