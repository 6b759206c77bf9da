/* SPDX-License-Identifier: MIT */
/* nandkit torture: erase/program/verify cycles of chosen blocks, as nandtest and flash_torture. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

static void nk_torture_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit torture IMAGE|/dev/mtdN --destructive --blocks FIRST-LAST\n"
            "                       [--cycles N] [--markbad] [options]\n\n"
            "Wears the chosen blocks as nandtest and flash_torture do: each cycle erases a\n"
            "block, checks that it reads erased, programs every page with a pseudo-random\n"
            "pattern (seeded) through the layout's ECC, reads it back and compares. Prints\n"
            "the ECC statistics (bitflips corrected, worst page, uncorrectable pages) and the\n"
            "failures per block. Everything in the range is destroyed and the blocks are left\n"
            "erased; blocks already bad are skipped. Nothing runs without --destructive and\n"
            "an explicit --blocks range.\n\n"
            "Options:\n"
            "      --destructive       agree that the blocks' contents are destroyed\n"
            "  -b, --blocks RANGE      FIRST-LAST (inclusive), FIRST+COUNT, or one block N\n"
            "  -c, --cycles N          erase/program/verify cycles per block (default 10)\n"
            "  -m, --markbad           mark a block bad when an erase or program fails\n"
            "  -q, --quiet             no per-block lines\n"
            "  -j, --json              machine-readable output\n" NK_TOOL_IMAGE_HELP);
}

struct nk_torture_block {
    uint32_t block;
    uint32_t cycles;
    uint32_t erase_failures, program_failures, not_erased_bits, mismatched_pages;
    uint64_t corrected_bits;
    uint32_t corrected_pages, uncorrectable_pages, worst_page_bitflips;
    bool skipped_bad, marked_bad;
};

static uint64_t nk_torture_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

static unsigned nk_zero_bits(const uint8_t *buf, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++)
        n += (unsigned)__builtin_popcount((uint8_t)~buf[i]);
    return n;
}

/* Runs the cycles on one good block. Returns 0 or a hard error (port, power). */
static int nk_torture_block(struct nk_nand *nand, struct nk_torture_block *t, unsigned cycles,
                            uint64_t *rng, bool markbad)
{
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint32_t ppb = nk_nand_pages_per_block(nand);
    uint8_t *pattern = malloc(page_size), *data = malloc(page_size), *oob = malloc(oob_size);
    int hard = 0;
    for (unsigned c = 0; c < cycles && !hard; c++) {
        int err = nk_nand_erase_block(nand, t->block);
        if (err == -NK_EIO) {
            t->erase_failures++;
            break;
        }
        if (err) {
            hard = err;
            break;
        }
        for (uint32_t p = 0; p < ppb && !hard; p++) {
            err = nk_nand_read_page(nand, t->block * ppb + p, data, oob, NK_OOB_RAW);
            if (err < 0) {
                hard = err;
                break;
            }
            t->not_erased_bits += nk_zero_bits(data, page_size) + nk_zero_bits(oob, oob_size);
        }
        uint64_t cycle_seed = *rng;
        bool failed = false;
        for (uint32_t p = 0; p < ppb && !hard && !failed; p++) {
            for (uint32_t i = 0; i < page_size; i += 8) {
                uint64_t v = nk_torture_next(rng);
                memcpy(pattern + i, &v, page_size - i < 8 ? page_size - i : 8);
            }
            err = nk_nand_program_page(nand, t->block * ppb + p, pattern, NULL, NK_OOB_PLACE);
            if (err == -NK_EIO) {
                t->program_failures++;
                failed = true;
            } else if (err) {
                hard = err;
            }
        }
        if (failed || hard)
            break;
        uint64_t replay = cycle_seed;
        for (uint32_t p = 0; p < ppb && !hard; p++) {
            for (uint32_t i = 0; i < page_size; i += 8) {
                uint64_t v = nk_torture_next(&replay);
                memcpy(pattern + i, &v, page_size - i < 8 ? page_size - i : 8);
            }
            err = nk_nand_read_page(nand, t->block * ppb + p, data, NULL, NK_OOB_PLACE);
            unsigned flips = nk_nand_last_bitflips(nand);
            if (err == -NK_EBADMSG) {
                t->uncorrectable_pages++;
            } else if (err < 0) {
                hard = err;
                break;
            } else {
                if (flips) {
                    t->corrected_pages++;
                    t->corrected_bits += flips;
                }
                if (memcmp(pattern, data, page_size) != 0)
                    t->mismatched_pages++;
            }
            if (flips > t->worst_page_bitflips)
                t->worst_page_bitflips = flips;
        }
        if (!hard)
            t->cycles++;
    }
    if (!hard && (t->erase_failures || t->program_failures) && markbad) {
        if (nk_nand_block_mark_bad(nand, t->block) == 0)
            t->marked_bad = true;
    } else if (!hard && !t->erase_failures) {
        /* Leave the block erased, as the help promises. */
        int err = nk_nand_erase_block(nand, t->block);
        if (err == -NK_EIO)
            t->erase_failures++;
        else if (err)
            hard = err;
    }
    free(pattern);
    free(data);
    free(oob);
    return hard;
}

static int nk_torture_run(int argc, char **argv)
{
    enum { NK_OPT_DESTRUCTIVE = NK_OPT_FIRST_FREE };
    static const struct option options[] = {NK_TOOL_IMAGE_LONG_OPTIONS,
                                            {"destructive", no_argument, NULL, NK_OPT_DESTRUCTIVE},
                                            {"blocks", required_argument, NULL, 'b'},
                                            {"cycles", required_argument, NULL, 'c'},
                                            {"markbad", no_argument, NULL, 'm'},
                                            {"quiet", no_argument, NULL, 'q'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    struct nk_tool_image_opts opts;
    nk_tool_image_opts_init(&opts);
    bool destructive = false, have_range = false, markbad = false, quiet = false, json = false;
    uint32_t first = 0, count = 0;
    uint64_t cycles = 10;
    const char *range_text = NULL;
    int opt;
    optind = 1;
    while ((opt = nk_tool_getopt(argc, argv, "b:c:mqj", options, &opts, "torture")) > 0) {
        switch (opt) {
        case NK_OPT_DESTRUCTIVE:
            destructive = true;
            break;
        case 'b':
            if (!nk_tool_parse_block_range(optarg, &first, &count))
                return nk_tool_fail("bad --blocks '%s': expected FIRST-LAST, FIRST+COUNT or N",
                                    optarg);
            have_range = true;
            range_text = optarg;
            break;
        case 'c':
            if (!nk_tool_parse_u64(optarg, &cycles) || cycles == 0 || cycles > 10000000)
                return nk_tool_fail("bad --cycles '%s': 1 to 10000000", optarg);
            break;
        case 'm':
            markbad = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'j':
            json = true;
            break;
        default:
            return nk_tool_fail("torture: unknown option (see nandkit torture --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (optind >= argc)
        return nk_tool_fail("torture needs an IMAGE or /dev/mtdN (see nandkit torture --help)");
    opts.path = argv[optind++];
    if (optind < argc)
        return nk_tool_fail("torture: unexpected argument '%s'", argv[optind]);
    if (!have_range)
        return nk_tool_fail("torture needs --blocks FIRST-LAST: it destroys what they hold");
    if (!destructive)
        return nk_tool_fail("torture destroys blocks %s of %s: add --destructive to go ahead",
                            range_text, opts.path);

    struct nk_tool_image image;
    int status = nk_tool_flash_open(&image, &opts, quiet || json);
    if (status)
        return status;
    struct nk_nand *nand = &image.nand;
    if ((uint64_t)first + count > nk_nand_blocks(nand)) {
        nk_tool_image_close(&image);
        return nk_tool_fail("--blocks %s runs past the end: the device has %u blocks", range_text,
                            nk_nand_blocks(nand));
    }
    if (!quiet && !json)
        fprintf(stderr,
                "nandkit: torture erases and programs blocks %u-%u (bytes 0x%llx-0x%llx), "
                "%llu cycle(s) each\n",
                first, first + count - 1,
                (unsigned long long)first * nk_nand_pages_per_block(nand) * nk_nand_page_size(nand),
                (unsigned long long)(first + count) * nk_nand_pages_per_block(nand) *
                        nk_nand_page_size(nand) -
                    1,
                (unsigned long long)cycles);
    struct nk_torture_block *results = calloc(count, sizeof *results);
    uint64_t rng = opts.seed * 0x9e3779b97f4a7c15ull + 1;
    int hard = 0;
    uint32_t done = 0;
    for (uint32_t i = 0; i < count && !hard; i++) {
        struct nk_torture_block *t = &results[i];
        t->block = first + i;
        int bad = nk_nand_block_is_bad(nand, t->block);
        if (bad < 0) {
            hard = bad;
            break;
        }
        if (bad)
            t->skipped_bad = true;
        else
            hard = nk_torture_block(nand, t, (unsigned)cycles, &rng, markbad);
        done = i + 1;
        if (!quiet && !json) {
            if (t->skipped_bad)
                printf("block %u: bad, skipped\n", t->block);
            else
                printf("block %u: %u cycle(s), %u erase / %u program failure(s), %llu bitflip(s) "
                       "corrected (worst page %u), %u uncorrectable page(s), %u mismatched "
                       "page(s), %u bit(s) not erased%s\n",
                       t->block, t->cycles, t->erase_failures, t->program_failures,
                       (unsigned long long)t->corrected_bits, t->worst_page_bitflips,
                       t->uncorrectable_pages, t->mismatched_pages, t->not_erased_bits,
                       t->marked_bad ? ", marked bad" : "");
        }
    }
    struct nk_nand_stats stats;
    nk_nand_stats_get(nand, &stats);
    char why[200] = "";
    if (hard)
        snprintf(why, sizeof why, "%s", nk_tool_image_error(&image, hard));
    nk_tool_image_close(&image);

    uint32_t failing = 0;
    uint64_t corrected = 0, uncorrectable = 0, mismatched = 0;
    unsigned worst = 0;
    for (uint32_t i = 0; i < done; i++) {
        const struct nk_torture_block *t = &results[i];
        if (t->erase_failures || t->program_failures || t->uncorrectable_pages ||
            t->mismatched_pages || t->not_erased_bits)
            failing++;
        corrected += t->corrected_bits;
        uncorrectable += t->uncorrectable_pages;
        mismatched += t->mismatched_pages;
        if (t->worst_page_bitflips > worst)
            worst = t->worst_page_bitflips;
    }
    if (json) {
        printf("{\"first_block\":%u,\"blocks\":%u,\"cycles\":%llu,\"ecc\":\"%s\","
               "\"erases\":%llu,\"programs\":%llu,\"reads\":%llu,\"corrected_bits\":%llu,"
               "\"worst_page_bitflips\":%u,\"uncorrectable_pages\":%llu,"
               "\"mismatched_pages\":%llu,\"failing_blocks\":%u,\"per_block\":[",
               first, count, (unsigned long long)cycles, nand->ecc.name,
               (unsigned long long)stats.block_erases, (unsigned long long)stats.page_programs,
               (unsigned long long)stats.page_reads, (unsigned long long)corrected, worst,
               (unsigned long long)uncorrectable, (unsigned long long)mismatched, failing);
        for (uint32_t i = 0; i < done; i++) {
            const struct nk_torture_block *t = &results[i];
            printf("%s{\"block\":%u,\"bad\":%s,\"cycles\":%u,\"erase_failures\":%u,"
                   "\"program_failures\":%u,\"corrected_bits\":%llu,\"worst_page_bitflips\":%u,"
                   "\"uncorrectable_pages\":%u,\"mismatched_pages\":%u,\"not_erased_bits\":%u,"
                   "\"marked_bad\":%s}",
                   i ? "," : "", t->block, t->skipped_bad ? "true" : "false", t->cycles,
                   t->erase_failures, t->program_failures, (unsigned long long)t->corrected_bits,
                   t->worst_page_bitflips, t->uncorrectable_pages, t->mismatched_pages,
                   t->not_erased_bits, t->marked_bad ? "true" : "false");
        }
        printf("]}\n");
    } else if (!quiet) {
        printf("total: %u block(s), %llu erase(s), %llu program(s), %llu bitflip(s) corrected "
               "(worst page %u, ECC %s), %llu uncorrectable, %llu mismatched; %u block(s) "
               "failing\n",
               done, (unsigned long long)stats.block_erases,
               (unsigned long long)stats.page_programs, (unsigned long long)corrected, worst,
               nand->ecc.name, (unsigned long long)uncorrectable, (unsigned long long)mismatched,
               failing);
    }
    free(results);
    if (hard)
        return nk_tool_error("torture: %s", why);
    if (failing)
        return nk_tool_error("torture: %u block(s) failed", failing);
    return 0;
}

const struct nk_tool_command nk_cmd_torture = {
    .name = "torture",
    .summary = "erase/program/verify cycles of chosen blocks with ECC statistics (nandtest)",
    .run = nk_torture_run,
    .help = nk_torture_help,
};
