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

static void tool_torture_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit torture IMAGE|/dev/mtdN --destructive --blocks FIRST-LAST\n"
            "                       [--cycles N] [--markbad] [options]\n\n"
            "Wears the chosen blocks as nandtest and flash_torture do: each cycle erases a\n"
            "block, checks that it reads erased, programs every page with a pseudo-random\n"
            "pattern (seeded) through the ECC, reads it back (data and whole OOB) and\n"
            "compares. Prints the ECC statistics and the failures per block: bits corrected\n"
            "(every step's, as the device counts them), the worst page (most bits in one\n"
            "step), uncorrectable pages and steps, pages that read back different, bits not\n"
            "erased after an erase, and flipped bits in the OOB bytes no ECC covers. On a\n"
            "simulated chip it also prints how many bits the simulator flipped in the pages\n"
            "torture read (--bit-error-rate), to set the statistics against. Everything in\n"
            "the range is destroyed and the blocks are left erased (or, with --keep, as they\n"
            "were); blocks already bad are skipped. Nothing runs without --destructive and\n"
            "an explicit --blocks range.\n\n"
            "Options:\n"
            "      --destructive       agree that the blocks' contents are destroyed\n"
            "  -b, --blocks RANGE      FIRST-LAST (inclusive), FIRST+COUNT, or one block N\n"
            "  -c, --cycles N          erase/program/verify cycles per block (default 10)\n"
            "  -r, --reads N           read and check every page N times per cycle (default 1),\n"
            "                          as nandtest -r: more reads, more work for the ECC\n"
            "  -k, --keep              put each block's contents back afterwards, as nandtest\n"
            "                          -k: pages are read through the ECC first (data and\n"
            "                          the whole OOB), and after the cycles programmed back\n"
            "                          with their OOB bytes; pages that were erased stay\n"
            "                          erased (nandtest writes them as 0xFF)\n"
            "  -m, --markbad           mark a block bad when an erase or program fails\n"
            "  -q, --quiet             no per-block lines\n"
            "  -j, --json              machine-readable output\n" TOOL_IMAGE_HELP);
}

struct tool_torture_block {
    uint32_t block;
    uint32_t cycles;
    uint32_t erase_failures, program_failures, not_erased_bits, mismatched_pages;
    uint64_t corrected_bits, oob_bits, injected_bits;
    uint32_t corrected_pages, uncorrectable_pages, uncorrectable_steps, worst_page_bitflips;
    uint32_t kept_pages, kept_uncorrectable;
    bool skipped_bad, marked_bad, restore_failed;
};

/* What one block's run needs besides the block. */
struct tool_torture_ctx {
    struct nk_nand *nand;
    struct nk_sim *sim; /* NULL on /dev/mtdN: no injected-flip count */
    unsigned cycles, reads;
    uint64_t *rng;
    bool markbad, keep;
    const bool *ecc_byte; /* oob_size entries: true where the layout stores ECC code */
};

static uint64_t tool_torture_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

static unsigned tool_zero_bits(const uint8_t *buf, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++)
        n += (unsigned)__builtin_popcount((uint8_t)~buf[i]);
    return n;
}

static void tool_torture_fill(uint8_t *pattern, uint32_t page_size, uint64_t *rng)
{
    for (uint32_t i = 0; i < page_size; i += 8) {
        uint64_t v = tool_torture_next(rng);
        memcpy(pattern + i, &v, page_size - i < 8 ? page_size - i : 8);
    }
}

static uint64_t tool_torture_injected(const struct tool_torture_ctx *x)
{
    if (!x->sim)
        return 0;
    struct nk_sim_counters c;
    nk_sim_counters(x->sim, &c);
    return c.bitflips_injected;
}

/* Reads one page through the ECC with its whole OOB and folds the outcome
 * into `t`: bits corrected (all steps, as the device counts them), the
 * worst step, uncorrectable steps, mismatches against `pattern`, and flips
 * in the OOB bytes that hold no code (programmed 0xFF; no ECC covers them).
 * Returns 0 or a hard error. */
static int tool_torture_verify(const struct tool_torture_ctx *x, struct tool_torture_block *t,
                               uint32_t page, const uint8_t *pattern, uint8_t *data, uint8_t *oob)
{
    struct nk_nand *nand = x->nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    struct nk_nand_stats before, after;
    nk_nand_stats_get(nand, &before);
    uint64_t injected = tool_torture_injected(x);
    int err = nk_nand_read_page(nand, page, data, oob, NK_OOB_PLACE);
    t->injected_bits += tool_torture_injected(x) - injected;
    nk_nand_stats_get(nand, &after);
    unsigned flips = nk_nand_last_bitflips(nand);
    uint64_t bits = after.ecc_corrected_bits - before.ecc_corrected_bits;
    t->corrected_bits += bits;
    t->uncorrectable_steps += (uint32_t)(after.ecc_failed_steps - before.ecc_failed_steps);
    if (err == -NK_EBADMSG)
        t->uncorrectable_pages++;
    else if (err < 0)
        return err;
    else if (memcmp(pattern, data, page_size) != 0)
        t->mismatched_pages++;
    if (bits)
        t->corrected_pages++;
    for (uint32_t i = 0; i < oob_size; i++)
        if (!x->ecc_byte[i])
            t->oob_bits += tool_zero_bits(oob + i, 1);
    if (flips > t->worst_page_bitflips)
        t->worst_page_bitflips = flips;
    return 0;
}

/* --keep: the block's pages through the ECC (data and the whole OOB as on
 * flash) into `saved`; which pages were erased goes into `erased`. */
static int tool_torture_save(const struct tool_torture_ctx *x, struct tool_torture_block *t,
                             uint8_t *saved, bool *erased)
{
    struct nk_nand *nand = x->nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint32_t ppb = nk_nand_pages_per_block(nand), record = page_size + oob_size;
    for (uint32_t p = 0; p < ppb; p++) {
        uint8_t *rec = saved + (size_t)p * record;
        int err = nk_nand_read_page(nand, t->block * ppb + p, rec, rec + page_size, NK_OOB_PLACE);
        if (err == -NK_EBADMSG)
            t->kept_uncorrectable++;
        else if (err < 0)
            return err;
        erased[p] = tool_zero_bits(rec, record) == 0;
    }
    return 0;
}

/* --keep: erases the block and programs the saved pages back (erased ones
 * stay erased; the ECC code is computed again, the other OOB bytes are
 * restored). */
static int tool_torture_restore(const struct tool_torture_ctx *x, struct tool_torture_block *t,
                                const uint8_t *saved, const bool *erased)
{
    struct nk_nand *nand = x->nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint32_t ppb = nk_nand_pages_per_block(nand), record = page_size + oob_size;
    int err = nk_nand_erase_block(nand, t->block);
    for (uint32_t p = 0; p < ppb && !err; p++) {
        if (erased[p])
            continue;
        const uint8_t *rec = saved + (size_t)p * record;
        err = nk_nand_program_page(nand, t->block * ppb + p, rec, rec + page_size, NK_OOB_PLACE);
        if (!err)
            t->kept_pages++;
    }
    if (err == -NK_EIO) {
        t->restore_failed = true;
        return 0;
    }
    return err;
}

/* Runs the cycles on one good block. Returns 0 or a hard error (port, power). */
static int tool_torture_block(const struct tool_torture_ctx *x, struct tool_torture_block *t)
{
    struct nk_nand *nand = x->nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint32_t ppb = nk_nand_pages_per_block(nand);
    uint8_t *pattern = malloc(page_size), *data = malloc(page_size), *oob = malloc(oob_size);
    uint8_t *saved = x->keep ? malloc((size_t)(page_size + oob_size) * ppb) : NULL;
    bool *erased = x->keep ? calloc(ppb, sizeof *erased) : NULL;
    int hard = 0;
    if (x->keep)
        hard = tool_torture_save(x, t, saved, erased);
    for (unsigned c = 0; c < x->cycles && !hard; c++) {
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
            uint64_t injected = tool_torture_injected(x);
            err = nk_nand_read_page(nand, t->block * ppb + p, data, oob, NK_OOB_RAW);
            t->injected_bits += tool_torture_injected(x) - injected;
            if (err < 0) {
                hard = err;
                break;
            }
            t->not_erased_bits += tool_zero_bits(data, page_size) + tool_zero_bits(oob, oob_size);
        }
        uint64_t cycle_seed = *x->rng;
        bool failed = false;
        for (uint32_t p = 0; p < ppb && !hard && !failed; p++) {
            tool_torture_fill(pattern, page_size, x->rng);
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
        for (unsigned r = 0; r < x->reads && !hard; r++) {
            uint64_t replay = cycle_seed;
            for (uint32_t p = 0; p < ppb && !hard; p++) {
                tool_torture_fill(pattern, page_size, &replay);
                hard = tool_torture_verify(x, t, t->block * ppb + p, pattern, data, oob);
            }
        }
        if (!hard)
            t->cycles++;
    }
    if (!hard && (t->erase_failures || t->program_failures) && x->markbad) {
        if (nk_nand_block_mark_bad(nand, t->block) == 0)
            t->marked_bad = true;
    } else if (!hard && !t->erase_failures && x->keep) {
        hard = tool_torture_restore(x, t, saved, erased);
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
    free(saved);
    free(erased);
    return hard;
}

static void tool_torture_print_block(const struct tool_torture_block *t)
{
    if (t->skipped_bad) {
        printf("block %u: bad, skipped\n", t->block);
        return;
    }
    printf("block %u: %u cycle(s), %u erase / %u program failure(s), %llu bitflip(s) corrected "
           "(worst page %u), %u uncorrectable page(s) (%u step(s)), %u mismatched page(s), %u "
           "bit(s) not erased, %llu OOB bit(s) outside the ECC flipped%s%s\n",
           t->block, t->cycles, t->erase_failures, t->program_failures,
           (unsigned long long)t->corrected_bits, t->worst_page_bitflips, t->uncorrectable_pages,
           t->uncorrectable_steps, t->mismatched_pages, t->not_erased_bits,
           (unsigned long long)t->oob_bits, t->marked_bad ? ", marked bad" : "",
           t->restore_failed ? ", restoring its contents FAILED" : "");
}

enum { TOOL_OPT_DESTRUCTIVE = TOOL_OPT_FIRST_FREE };

/* torture's own options. */
struct tool_torture_args {
    bool destructive, have_range, markbad, keep;
    uint32_t first, count;
    uint64_t cycles, reads;
    const char *range_text;
};

static int tool_torture_option(void *ctx, int opt, const char *arg)
{
    struct tool_torture_args *a = ctx;
    switch (opt) {
    case TOOL_OPT_DESTRUCTIVE:
        a->destructive = true;
        return 0;
    case 'b':
        if (!tool_parse_block_range(arg, &a->first, &a->count))
            return tool_fail("bad --blocks '%s': expected FIRST-LAST, FIRST+COUNT or N", arg);
        a->have_range = true;
        a->range_text = arg;
        return 0;
    case 'c':
        if (!tool_parse_u64(arg, &a->cycles) || a->cycles == 0 || a->cycles > 10000000)
            return tool_fail("bad --cycles '%s': 1 to 10000000", arg);
        return 0;
    case 'r':
        if (!tool_parse_u64(arg, &a->reads) || a->reads == 0 || a->reads > 1000000)
            return tool_fail("bad --reads '%s': 1 to 1000000", arg);
        return 0;
    case 'k':
        a->keep = true;
        return 0;
    case 'm':
        a->markbad = true;
        return 0;
    default:
        return -1;
    }
}

/* One torture run, from the command line to the totals. */
struct tool_torture_job {
    struct tool_torture_args a;
    struct tool_flash_flags f;
    struct tool_image_opts opts;
    struct tool_image image; /* closed after the blocks; its ECC name is reported */
    struct tool_torture_block *results;
    uint32_t done; /* blocks tortured (or skipped as bad) */
    struct nk_nand_stats stats;
    int hard; /* a hard error (port, power) that stopped the run */
    char why[200];
    bool simulated;
};

/* The sums over the blocks done, for the total line. */
struct tool_torture_totals {
    uint32_t failing, kept, restore_failed;
    uint64_t corrected, uncorrectable, steps, mismatched, oob_bits;
    uint64_t injected, not_erased;
    unsigned worst;
};

/* Fills j->a, j->f and j->opts. Returns 0, or the exit status after a
 * report. */
static int tool_torture_parse(int argc, char **argv, struct tool_torture_job *j)
{
    static const struct option options[] = {
        TOOL_IMAGE_LONG_OPTIONS,
        {"destructive", no_argument, NULL, TOOL_OPT_DESTRUCTIVE},
        {"blocks", required_argument, NULL, 'b'},
        {"cycles", required_argument, NULL, 'c'},
        {"reads", required_argument, NULL, 'r'},
        {"keep", no_argument, NULL, 'k'},
        {"markbad", no_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0}};
    j->a.cycles = 10;
    j->a.reads = 1;
    const struct tool_flash_parse parse = {
        "torture", "b:c:r:kmqj", options, 0, tool_torture_option, &j->a, 1, "an IMAGE or /dev/mtdN",
        false};
    const char *args[1];
    int status = tool_flash_parse(argc, argv, &parse, &j->opts, &j->f, args);
    if (status)
        return status;
    if (!j->a.have_range)
        return tool_fail("torture needs --blocks FIRST-LAST: it destroys what they hold");
    if (!j->a.destructive)
        return tool_fail("torture %s blocks %s of %s: add --destructive to go ahead",
                         j->a.keep ? "wears (and, with --keep, rewrites)" : "destroys",
                         j->a.range_text, j->opts.path);
    return 0;
}

/* Opens the device, checks the range and says what is about to happen.
 * Returns 0 with the image open, or the exit status with it closed. */
static int tool_torture_open(struct tool_torture_job *j)
{
    const struct tool_torture_args *a = &j->a;
    int status = tool_flash_open(&j->image, &j->opts, j->f.quiet || j->f.json);
    if (status)
        return status;
    struct nk_nand *nand = &j->image.nand;
    if ((uint64_t)a->first + a->count > nk_nand_blocks(nand)) {
        tool_image_close(&j->image);
        return tool_fail("--blocks %s runs past the end: the device has %u blocks", a->range_text,
                         nk_nand_blocks(nand));
    }
    if (!j->f.quiet && !j->f.json)
        fprintf(stderr,
                "nandkit: torture erases and programs blocks %u-%u (bytes 0x%llx-0x%llx), "
                "%llu cycle(s) each, %llu read(s) per cycle%s\n",
                a->first, a->first + a->count - 1,
                (unsigned long long)a->first * nk_nand_pages_per_block(nand) *
                    nk_nand_page_size(nand),
                (unsigned long long)(a->first + a->count) * nk_nand_pages_per_block(nand) *
                        nk_nand_page_size(nand) -
                    1,
                (unsigned long long)a->cycles, (unsigned long long)a->reads,
                a->keep ? "; their contents are put back" : "");
    return 0;
}

/* The torture itself: every block of the range in turn (bad ones
 * skipped), each printed when done unless --quiet or --json; then the
 * image is closed. A hard error stops it, in j->hard and j->why. */
static void tool_torture_blocks(struct tool_torture_job *j)
{
    const struct tool_torture_args *a = &j->a;
    struct nk_nand *nand = &j->image.nand;
    uint32_t oob_size = nk_nand_oob_size(nand);
    bool *ecc_byte = calloc(oob_size, sizeof *ecc_byte);
    const struct nk_oob_layout *layout = &nand->layout;
    for (unsigned r = 0; r < layout->ecc_count; r++)
        for (unsigned i = 0; i < layout->ecc[r].length; i++)
            if (layout->ecc[r].offset + i < oob_size)
                ecc_byte[layout->ecc[r].offset + i] = true;
    j->results = calloc(a->count, sizeof *j->results);
    uint64_t rng = j->opts.seed * 0x9e3779b97f4a7c15ull + 1;
    struct tool_torture_ctx x = {
        nand,    j->image.sim, (unsigned)a->cycles, (unsigned)a->reads, &rng, a->markbad,
        a->keep, ecc_byte};
    for (uint32_t i = 0; i < a->count && !j->hard; i++) {
        struct tool_torture_block *t = &j->results[i];
        t->block = a->first + i;
        int bad = nk_nand_block_is_bad(nand, t->block);
        if (bad < 0) {
            j->hard = bad;
            break;
        }
        if (bad)
            t->skipped_bad = true;
        else
            j->hard = tool_torture_block(&x, t);
        j->done = i + 1;
        if (!j->f.quiet && !j->f.json)
            tool_torture_print_block(t);
    }
    free(ecc_byte);
    nk_nand_stats_get(nand, &j->stats);
    if (j->hard)
        snprintf(j->why, sizeof j->why, "%s", tool_image_error(&j->image, j->hard));
    j->simulated = j->image.sim != NULL;
    tool_image_close(&j->image);
}

static void tool_torture_sum(const struct tool_torture_job *j, struct tool_torture_totals *sum)
{
    memset(sum, 0, sizeof *sum);
    for (uint32_t i = 0; i < j->done; i++) {
        const struct tool_torture_block *t = &j->results[i];
        if (t->erase_failures || t->program_failures || t->uncorrectable_pages ||
            t->mismatched_pages || t->not_erased_bits || t->restore_failed)
            sum->failing++;
        sum->corrected += t->corrected_bits;
        sum->uncorrectable += t->uncorrectable_pages;
        sum->steps += t->uncorrectable_steps;
        sum->mismatched += t->mismatched_pages;
        sum->oob_bits += t->oob_bits;
        sum->injected += t->injected_bits;
        sum->not_erased += t->not_erased_bits;
        sum->kept += t->kept_pages;
        sum->restore_failed += t->restore_failed;
        if (t->worst_page_bitflips > sum->worst)
            sum->worst = t->worst_page_bitflips;
    }
}

static void tool_torture_report_json(const struct tool_torture_job *j,
                                     const struct tool_torture_totals *sum)
{
    const struct tool_torture_args *a = &j->a;
    const struct nk_nand *nand = &j->image.nand;
    char injected_text[32] = "null";
    if (j->simulated)
        snprintf(injected_text, sizeof injected_text, "%llu", (unsigned long long)sum->injected);
    printf("{\"first_block\":%u,\"blocks\":%u,\"cycles\":%llu,\"reads\":%llu,\"ecc\":\"%s\","
           "\"erases\":%llu,\"programs\":%llu,\"page_reads\":%llu,\"corrected_bits\":%llu,"
           "\"worst_page_bitflips\":%u,\"uncorrectable_pages\":%llu,"
           "\"uncorrectable_steps\":%llu,\"mismatched_pages\":%llu,\"not_erased_bits\":%llu,"
           "\"oob_bits_outside_ecc\":%llu,\"injected_bitflips\":%s,\"kept\":%s,"
           "\"kept_pages\":%u,\"failing_blocks\":%u,\"per_block\":[",
           a->first, a->count, (unsigned long long)a->cycles, (unsigned long long)a->reads,
           nand->ecc.name ? nand->ecc.name : "none", (unsigned long long)j->stats.block_erases,
           (unsigned long long)j->stats.page_programs, (unsigned long long)j->stats.page_reads,
           (unsigned long long)sum->corrected, sum->worst, (unsigned long long)sum->uncorrectable,
           (unsigned long long)sum->steps, (unsigned long long)sum->mismatched,
           (unsigned long long)sum->not_erased, (unsigned long long)sum->oob_bits, injected_text,
           a->keep ? "true" : "false", sum->kept, sum->failing);
    for (uint32_t i = 0; i < j->done; i++) {
        const struct tool_torture_block *t = &j->results[i];
        printf("%s{\"block\":%u,\"bad\":%s,\"cycles\":%u,\"erase_failures\":%u,"
               "\"program_failures\":%u,\"corrected_bits\":%llu,\"worst_page_bitflips\":%u,"
               "\"uncorrectable_pages\":%u,\"uncorrectable_steps\":%u,"
               "\"mismatched_pages\":%u,\"not_erased_bits\":%u,\"oob_bits_outside_ecc\":%llu,"
               "\"marked_bad\":%s,\"restore_failed\":%s}",
               i ? "," : "", t->block, t->skipped_bad ? "true" : "false", t->cycles,
               t->erase_failures, t->program_failures, (unsigned long long)t->corrected_bits,
               t->worst_page_bitflips, t->uncorrectable_pages, t->uncorrectable_steps,
               t->mismatched_pages, t->not_erased_bits, (unsigned long long)t->oob_bits,
               t->marked_bad ? "true" : "false", t->restore_failed ? "true" : "false");
    }
    printf("]}\n");
}

static void tool_torture_report_text(const struct tool_torture_job *j,
                                     const struct tool_torture_totals *sum)
{
    const struct nk_nand *nand = &j->image.nand;
    printf("total: %u block(s), %llu erase(s), %llu program(s), %llu bitflip(s) corrected "
           "(worst page %u, ECC %s), %llu uncorrectable page(s) (%llu step(s)), %llu "
           "mismatched; %u block(s) failing",
           j->done, (unsigned long long)j->stats.block_erases,
           (unsigned long long)j->stats.page_programs, (unsigned long long)sum->corrected,
           sum->worst, nand->ecc.name ? nand->ecc.name : "none",
           (unsigned long long)sum->uncorrectable, (unsigned long long)sum->steps,
           (unsigned long long)sum->mismatched, sum->failing);
    if (j->simulated)
        printf("; the simulator flipped %llu bit(s) in the pages torture read",
               (unsigned long long)sum->injected);
    if (j->a.keep)
        printf("; %u page(s) put back", sum->kept);
    printf("\n");
}

static int tool_torture_run(int argc, char **argv)
{
    struct tool_torture_job j;
    memset(&j, 0, sizeof j);
    int status = tool_torture_parse(argc, argv, &j);
    if (!status)
        status = tool_torture_open(&j);
    if (status)
        return status;
    tool_torture_blocks(&j);
    struct tool_torture_totals sum;
    tool_torture_sum(&j, &sum);
    if (j.f.json)
        tool_torture_report_json(&j, &sum);
    else if (!j.f.quiet)
        tool_torture_report_text(&j, &sum);
    free(j.results);
    if (j.hard)
        return tool_error("torture: %s", j.why);
    if (sum.restore_failed)
        return tool_error("torture: the contents of %u block(s) could not be put back",
                          sum.restore_failed);
    if (sum.failing)
        return tool_error("torture: %u block(s) failed", sum.failing);
    return 0;
}

const struct tool_command tool_cmd_torture = {
    .name = "torture",
    .summary = "erase/program/verify cycles of chosen blocks with ECC statistics (nandtest)",
    .run = tool_torture_run,
    .help = tool_torture_help,
};
