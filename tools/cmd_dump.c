/* SPDX-License-Identifier: MIT */
/* nandkit dump: one page of an image in hex, with its ECC status. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsimage.h"
#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

static void tool_dump_help(FILE *out)
{
    fprintf(out, "usage: nandkit dump IMAGE --page N [--geometry P,O,N[,B] | --chip NAME]\n"
                 "                    [--layout L] [--raw] [--json]\n\n"
                 "Prints page N of the image: data and OOB in hex as stored, then the result of\n"
                 "reading it through the layout's ECC (clean, bitflips corrected, uncorrectable,\n"
                 "or no ECC for mkyaffs2), then the page's YAFFS2 tags where --layout puts them,\n"
                 "decoded: sequence number, object, chunk, byte count, the extra header fields,\n"
                 "what the page is, and the tags ECC status. A page of a bad block is shown as\n"
                 "stored, with \"block N is bad\" instead of an ECC verdict on its junk.\n\n"
                 "Options:\n" TOOL_IMAGE_HELP_READ
                 "  --page N                page number (0 = block 0, page 0)\n"
                 "  --raw                   skip the ECC check\n"
                 "  -j, --json              machine-readable output (data and OOB in hex)\n");
}

/* One dump: the page asked for, as stored and as the ECC reads it. */
struct tool_dump_job {
    struct tool_image_opts opts;
    uint64_t page;
    bool raw, json;
    struct tool_image image;
    uint32_t page_size, oob_size, ppb, block;
    uint8_t *data, *oob; /* the page as stored */
    int bad;             /* 1 when the page's block is bad */
    char verdict[160];   /* the ECC line; empty when not checked */
    const char *verdict_key;
    unsigned flips;
};

/* Fills the command-line fields of `d`. Returns 0, or the exit status
 * after a report. */
static int tool_dump_parse(int argc, char **argv, struct tool_dump_job *d)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"page", required_argument, NULL, 'p'},
                                            {"raw", no_argument, NULL, 'r'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    tool_image_opts_init(&d->opts);
    d->opts.reads_only = true;
    d->opts.read_only = true;
    bool have_page = false;
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "j", options, &d->opts, "dump")) > 0) {
        if (opt == 'p') {
            if (!tool_parse_u64(optarg, &d->page))
                return tool_fail("bad --page '%s': expected a page number", optarg);
            have_page = true;
        } else if (opt == 'r') {
            d->raw = true;
        } else if (opt == 'j') {
            d->json = true;
        } else {
            return tool_fail("dump: unknown option (see nandkit dump --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (optind >= argc)
        return tool_fail("dump needs an IMAGE (see nandkit dump --help)");
    d->opts.path = argv[optind++];
    if (optind < argc)
        return tool_fail("dump: unexpected argument '%s'", argv[optind]);
    if (!have_page)
        return tool_fail("dump needs --page N");
    return 0;
}

/* Reads the page as stored into d->data and d->oob. Returns 0 with the
 * image open, or the exit status with it closed. */
static int tool_dump_read(struct tool_dump_job *d)
{
    int status = tool_image_open(&d->image, &d->opts);
    if (status)
        return status;
    struct nk_nand *nand = &d->image.nand;
    uint32_t pages = nk_nand_pages(nand);
    if (d->page >= pages) {
        tool_image_close(&d->image);
        return tool_fail("--page %llu out of range: the image has %u pages (0..%u)",
                         (unsigned long long)d->page, pages, pages - 1);
    }
    d->page_size = nk_nand_page_size(nand);
    d->oob_size = nk_nand_oob_size(nand);
    d->ppb = nk_nand_pages_per_block(nand);
    d->block = (uint32_t)(d->page / d->ppb);
    d->data = malloc(d->page_size);
    d->oob = malloc(d->oob_size);
    int err = nk_nand_read_page(nand, (uint32_t)d->page, d->data, d->oob, NK_OOB_RAW);
    if (err < 0) {
        free(d->data);
        free(d->oob);
        tool_image_close(&d->image);
        return tool_error("reading page %llu failed: %s", (unsigned long long)d->page,
                          nk_strerror(err));
    }
    return 0;
}

/* The ECC verdict on the page (unless --raw or its block is bad), into
 * d->verdict, d->verdict_key and d->flips. */
static void tool_dump_check(struct tool_dump_job *d)
{
    struct nk_nand *nand = &d->image.nand;
    char *verdict = d->verdict;
    size_t size = sizeof d->verdict;
    /* Markers mean nothing where the layout keeps tags at OOB 0. */
    d->bad = d->image.layout == NK_FS_LAYOUT_MKYAFFS2 ? 0 : nk_nand_block_is_bad(nand, d->block);
    d->verdict_key = "not-checked";
    if (d->bad == 1) {
        snprintf(verdict, size, "not checked: block %u is bad (what it holds is not data)",
                 d->block);
        d->verdict_key = "bad-block";
        return;
    }
    if (d->raw)
        return;
    if (nand->ecc.placement == NK_ECC_PLACEMENT_NONE) {
        snprintf(verdict, size, "none (layout has no data ECC)");
        d->verdict_key = "none";
        return;
    }
    uint8_t *check = malloc(d->page_size);
    int err = nk_nand_read_page(nand, (uint32_t)d->page, check, NULL, NK_OOB_PLACE);
    free(check);
    d->flips = nk_nand_last_bitflips(nand);
    if (err == -NK_EBADMSG) {
        snprintf(verdict, size, "%s, uncorrectable", nand->ecc.name);
        d->verdict_key = "uncorrectable";
    } else if (err > 0 && nk_nand_scrub_advised(nand, err)) {
        snprintf(verdict, size, "%s, %d bitflip(s) corrected (at scrub threshold)", nand->ecc.name,
                 err);
        d->verdict_key = "corrected";
    } else if (err > 0) {
        snprintf(verdict, size, "%s, %d bitflip(s) corrected", nand->ecc.name, err);
        d->verdict_key = "corrected";
    } else if (err == 0) {
        snprintf(verdict, size, "%s, clean", nand->ecc.name);
        d->verdict_key = "clean";
    } else {
        snprintf(verdict, size, "read failed: %s", nk_strerror(err));
        d->verdict_key = "error";
    }
}

static void tool_dump_report_json(const struct tool_dump_job *d)
{
    const struct nk_nand *nand = &d->image.nand;
    printf("{\"page\":%llu,\"block\":%u,\"page_in_block\":%llu,\"bad_block\":%s,"
           "\"ecc\":{\"engine\":\"%s\",\"status\":\"%s\",\"bitflips\":%u},\"data\":\"",
           (unsigned long long)d->page, d->block, (unsigned long long)(d->page % d->ppb),
           d->bad == 1 ? "true" : "false", nand->ecc.name ? nand->ecc.name : "none", d->verdict_key,
           d->flips);
    for (uint32_t i = 0; i < d->page_size; i++)
        printf("%02x", d->data[i]);
    printf("\",\"oob\":\"");
    for (uint32_t i = 0; i < d->oob_size; i++)
        printf("%02x", d->oob[i]);
    printf("\"}\n");
}

/* The hex of data and OOB, the ECC line and the page's YAFFS2 tags
 * decoded (not with --raw, nor in a bad block's junk). */
static void tool_dump_report_text(struct tool_dump_job *d)
{
    printf("page %llu (block %u, page %llu of %u)\n", (unsigned long long)d->page, d->block,
           (unsigned long long)(d->page % d->ppb), d->ppb);
    printf("data (%u bytes):\n", d->page_size);
    tool_hexdump(stdout, d->data, d->page_size, 0);
    printf("oob (%u bytes):\n", d->oob_size);
    tool_hexdump(stdout, d->oob, d->oob_size, d->page_size);
    if (d->verdict[0])
        printf("ecc: %s\n", d->verdict);
    if (d->raw || d->bad == 1)
        return;
    struct nk_fs_config fs_config;
    memset(&fs_config, 0, sizeof fs_config);
    fs_config.part = &d->image.part;
    fs_config.allocator = tool_heap_allocator();
    enum nk_fs_layout layout = d->image.layout;
    nk_fs_config_layout(&fs_config, layout);
    char text[1024];
    if (nk_fs_page_describe(&fs_config, (uint32_t)d->page, text, sizeof text) >= 0)
        printf("yaffs2 (--layout %s):\n%s", nk_fs_layout_name(layout), text);
}

static int tool_dump_run(int argc, char **argv)
{
    struct tool_dump_job d;
    memset(&d, 0, sizeof d);
    int status = tool_dump_parse(argc, argv, &d);
    if (!status)
        status = tool_dump_read(&d);
    if (status)
        return status;
    tool_dump_check(&d);
    if (d.json)
        tool_dump_report_json(&d);
    else
        tool_dump_report_text(&d);
    free(d.data);
    free(d.oob);
    tool_image_close(&d.image);
    return 0;
}

const struct tool_command tool_cmd_dump = {
    .name = "dump",
    .summary = "hex of one page (data and OOB) with its ECC status",
    .run = tool_dump_run,
    .help = tool_dump_help,
};
