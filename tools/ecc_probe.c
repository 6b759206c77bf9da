/* SPDX-License-Identifier: MIT */
/*
 * "Which ECC was this image written with?" When most written pages of an
 * image fail the data ECC the command reads them with, the engine does not
 * match the image (a Hamming image read with BCH, 256-byte steps read as
 * 512). The first written pages are read raw and decoded with each engine
 * nandkit knows, in Linux's OOB layout for it, so that the error can name
 * the one that reads them clean instead of an I/O error on every file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

#define TOOL_PROBE_PAGES 16u /* written pages sampled */

/* The raw pages sampled: the first written ones. */
struct tool_probe_sample {
    uint32_t page_size, oob_size, count;
    uint8_t *pages; /* count x (page_size + oob_size) */
};

static bool tool_probe_all_ff(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != 0xff)
            return false;
    return true;
}

static int tool_probe_sample_read(struct nk_nand *nand, uint32_t first_page,
                                  struct tool_probe_sample *s)
{
    s->page_size = nk_nand_page_size(nand);
    s->oob_size = nk_nand_oob_size(nand);
    s->count = 0;
    size_t raw = (size_t)s->page_size + s->oob_size;
    s->pages = malloc(raw * TOOL_PROBE_PAGES);
    if (!s->pages)
        return -NK_ENOMEM;
    uint32_t limit = first_page + 8 * nk_nand_pages_per_block(nand);
    for (uint32_t page = first_page; page < limit && page < nk_nand_pages(nand); page++) {
        uint8_t *p = s->pages + raw * s->count;
        if (nk_nand_read_page(nand, page, p, p + s->page_size, NK_OOB_RAW) < 0)
            continue;
        if (tool_probe_all_ff(p, raw)) { /* a block is written from page 0 on: skip the rest */
            page |= nk_nand_pages_per_block(nand) - 1;
            continue;
        }
        if (++s->count == TOOL_PROBE_PAGES)
            break;
    }
    return 0;
}

/* Pages of the sample with a step `engine` cannot correct (in Linux's OOB
 * layout for it), or -1 when the engine does not fit the page. */
static int tool_probe_failures(const struct tool_probe_sample *s,
                               const struct nk_ecc_engine *engine)
{
    struct nk_oob_layout layout;
    if (!engine->ops || engine->step_size == 0 || s->page_size % engine->step_size != 0 ||
        nk_oob_layout_default(&layout, s->page_size, s->oob_size, engine) != 0)
        return -1;
    unsigned steps = s->page_size / engine->step_size, bytes = engine->bytes_per_step;
    size_t raw = (size_t)s->page_size + s->oob_size;
    uint8_t *data = malloc(s->page_size), *codes = malloc((size_t)steps * bytes);
    int failures = data && codes ? 0 : -1;
    for (uint32_t i = 0; failures >= 0 && i < s->count; i++) {
        const uint8_t *p = s->pages + raw * i;
        memcpy(data, p, s->page_size);
        nk_oob_ecc_get(&layout, p + s->page_size, codes, steps * bytes);
        bool uncorrectable = false;
        for (unsigned step = 0; step < steps && !uncorrectable; step++) {
            uint8_t calc[NK_ECC_MAX_BYTES_PER_STEP];
            uint8_t *chunk = data + (size_t)step * engine->step_size;
            engine->ops->calculate(engine, chunk, calc);
            uncorrectable =
                engine->ops->correct(engine, chunk, codes + (size_t)step * bytes, calc) < 0;
        }
        failures += uncorrectable;
    }
    free(data);
    free(codes);
    return failures;
}

/* The engines tried, Linux's software ones. */
static const char *const tool_probe_engines[] = {
    "hamming256", "hamming512", "hamming256-sm", "hamming512-sm", "bch1",      "bch2",
    "bch4",       "bch8",       "bch12",         "bch16",         "bch24",     "bch4-1024",
    "bch8-1024",  "bch12-1024", "bch16-1024",    "bch24-1024",    "bch32-1024"};

/* The first engine other than `current` that reads every sampled page. */
static const char *tool_probe_find(const struct tool_probe_sample *s, const char *current)
{
    for (size_t i = 0; i < sizeof tool_probe_engines / sizeof tool_probe_engines[0]; i++) {
        if (current && strcmp(current, tool_probe_engines[i]) == 0)
            continue;
        struct tool_ecc e;
        memset(&e, 0, sizeof e);
        if (tool_ecc_by_name(&e, tool_probe_engines[i], "--ecc") != 0)
            continue;
        int failures = tool_probe_failures(s, &e.engine);
        tool_ecc_free(&e);
        if (failures == 0)
            return tool_probe_engines[i];
    }
    return NULL;
}

int tool_ecc_probe(struct tool_image *image, const struct tool_image_opts *opts)
{
    const struct nk_ecc_engine *engine = nk_nand_ecc(&image->nand);
    if (!engine || !engine->ops || image->mtd)
        return 0; /* no data ECC to mismatch, or the kernel's */
    struct tool_probe_sample s;
    uint32_t first = image->part.first_block * nk_nand_pages_per_block(&image->nand);
    if (tool_probe_sample_read(&image->nand, first, &s) != 0)
        return tool_error("out of memory");
    int failures = tool_probe_failures(&s, engine);
    int status = 0;
    /* Most pages failing is the wrong engine when another reads them all;
     * when none does it is damage (a cut erase, torn pages), which the
     * mount's problem list names. */
    const char *match = failures >= 2 && (uint32_t)failures * 2 > s.count
                            ? tool_probe_find(&s, engine->name)
                            : NULL;
    if (match) {
        const char *shown = opts->name ? opts->name : opts->path;
        char given[96];
        if (opts->ecc)
            snprintf(given, sizeof given, "--ecc %s", opts->ecc);
        else
            snprintf(given, sizeof given, "the chip's default");
        status = tool_fail("%s: the data ECC does not match: %d of the first %u written pages "
                           "fail %s (%s); they read clean with --ecc %s: give that",
                           shown, failures, s.count, engine->name, given, match);
    }
    free(s.pages);
    return status;
}
