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

static void nk_erase_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit erase IMAGE|/dev/mtdN START COUNT [options]\n\n"
            "Erases COUNT blocks from byte offset START on, as flash_erase does: START must be\n"
            "block aligned (decimal, 0x hex, or KiB/MiB/GiB), COUNT is a number of blocks and\n"
            "0 means every block to the end of the device (the range is always given: there\n"
            "is no default). Bad blocks are skipped and reported. A block whose erase fails is\n"
            "marked bad and the exit status is 1.\n\n"
            "Options:\n"
            "  -p, --progress          a progress line on stderr (default: when it is a terminal)\n"
            "  -q, --quiet             no progress line, notes or summary\n"
            "  -j, --json              a JSON summary on stdout\n" NK_TOOL_IMAGE_HELP);
}

static int nk_erase_run(int argc, char **argv)
{
    static const struct option options[] = {NK_TOOL_IMAGE_LONG_OPTIONS,
                                            {"progress", no_argument, NULL, 'p'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    struct nk_tool_image_opts opts;
    nk_tool_image_opts_init(&opts);
    bool quiet = false, json = false, progress_on = isatty(STDERR_FILENO);
    int opt;
    optind = 1;
    while ((opt = nk_tool_getopt(argc, argv, "pqj", options, &opts, "erase")) > 0) {
        switch (opt) {
        case 'p':
            progress_on = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'j':
            json = true;
            break;
        default:
            return nk_tool_fail("erase: unknown option (see nandkit erase --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (argc - optind < 3)
        return nk_tool_fail("erase needs IMAGE|/dev/mtdN, START and COUNT (COUNT 0 = to the end; "
                            "see nandkit erase --help)");
    opts.path = argv[optind++];
    const char *start_text = argv[optind++], *count_text = argv[optind++];
    if (optind < argc)
        return nk_tool_fail("erase: unexpected argument '%s'", argv[optind]);
    uint64_t start, count;
    if (!nk_tool_parse_size(start_text, &start))
        return nk_tool_fail("bad START '%s': expected a byte offset (e.g. 0x20000, 1MiB)",
                            start_text);
    if (!nk_tool_parse_u64(count_text, &count))
        return nk_tool_fail("bad COUNT '%s': expected a number of blocks (0 = to the end)",
                            count_text);
    if (quiet)
        progress_on = false;

    struct nk_tool_image image;
    int status = nk_tool_flash_open(&image, &opts, quiet);
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
        nk_tool_image_close(&image);
        return nk_tool_fail("%s", bad_input);
    }

    uint32_t erased = 0, skipped = 0, failed = 0;
    const char *failure = NULL;
    struct nk_tool_progress progress;
    nk_tool_progress_start(&progress, progress_on, "erase", count * block_bytes);
    for (uint32_t i = 0; i < count && !failure; i++) {
        uint32_t block = first + i;
        int bad = nk_nand_block_is_bad(nand, block);
        if (bad < 0) {
            snprintf(why, sizeof why, "checking block %u: %s", block,
                     nk_tool_image_error(&image, bad));
            failure = why;
            break;
        }
        if (bad) {
            skipped++;
            if (!quiet && !json) {
                nk_tool_progress_end(&progress);
                fprintf(stderr, "nandkit: block %u (0x%llx) is bad: skipped\n", block,
                        (unsigned long long)block * block_bytes);
            }
        } else {
            int err = nk_nand_erase_block(nand, block);
            if (err == -NK_EIO) {
                failed++;
                nk_nand_block_mark_bad(nand, block);
                if (!quiet && !json) {
                    nk_tool_progress_end(&progress);
                    fprintf(stderr, "nandkit: erasing block %u failed: marked bad\n", block);
                }
            } else if (err) {
                snprintf(why, sizeof why, "erasing block %u: %s", block,
                         nk_tool_image_error(&image, err));
                failure = why;
                break;
            } else {
                erased++;
            }
        }
        nk_tool_progress_update(&progress, (uint64_t)(i + 1) * block_bytes);
    }
    nk_tool_progress_end(&progress);
    nk_tool_image_close(&image);
    if (failure)
        return nk_tool_error("erase: %s", failure);
    if (json)
        printf("{\"first_block\":%u,\"blocks\":%llu,\"erased\":%u,\"bad_skipped\":%u,"
               "\"failed\":%u}\n",
               first, (unsigned long long)count, erased, skipped, failed);
    else if (!quiet)
        fprintf(stderr,
                "nandkit: erased %u of %llu blocks from block %u (0x%llx): %u bad "
                "skipped, %u failed\n",
                erased, (unsigned long long)count, first, (unsigned long long)start, skipped,
                failed);
    if (failed)
        return nk_tool_error("erase: %u block(s) failed to erase and were marked bad", failed);
    return 0;
}

const struct nk_tool_command nk_cmd_erase = {
    .name = "erase",
    .summary = "erase a range of blocks, skipping bad ones (flash_erase)",
    .run = nk_erase_run,
    .help = nk_erase_help,
};
