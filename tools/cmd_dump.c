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

static int tool_dump_run(int argc, char **argv)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"page", required_argument, NULL, 'p'},
                                            {"raw", no_argument, NULL, 'r'},
                                            {"json", no_argument, NULL, 'j'},
                                            {NULL, 0, NULL, 0}};
    struct tool_image_opts opts;
    tool_image_opts_init(&opts);
    opts.reads_only = true;
    opts.read_only = true;
    uint64_t page = 0;
    bool have_page = false, raw = false, json = false;
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "j", options, &opts, "dump")) > 0) {
        if (opt == 'p') {
            if (!tool_parse_u64(optarg, &page))
                return tool_fail("bad --page '%s': expected a page number", optarg);
            have_page = true;
        } else if (opt == 'r') {
            raw = true;
        } else if (opt == 'j') {
            json = true;
        } else {
            return tool_fail("dump: unknown option (see nandkit dump --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (optind >= argc)
        return tool_fail("dump needs an IMAGE (see nandkit dump --help)");
    opts.path = argv[optind++];
    if (optind < argc)
        return tool_fail("dump: unexpected argument '%s'", argv[optind]);
    if (!have_page)
        return tool_fail("dump needs --page N");

    struct tool_image image;
    int status = tool_image_open(&image, &opts);
    if (status)
        return status;
    struct nk_nand *nand = &image.nand;
    uint32_t pages = nk_nand_pages(nand);
    if (page >= pages) {
        tool_image_close(&image);
        return tool_fail("--page %llu out of range: the image has %u pages (0..%u)",
                         (unsigned long long)page, pages, pages - 1);
    }
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint8_t *data = malloc(page_size), *oob = malloc(oob_size);
    int err = nk_nand_read_page(nand, (uint32_t)page, data, oob, NK_OOB_RAW);
    if (err < 0) {
        free(data);
        free(oob);
        tool_image_close(&image);
        return tool_error("reading page %llu failed: %s", (unsigned long long)page,
                          nk_strerror(err));
    }
    uint32_t ppb = nk_nand_pages_per_block(nand);
    uint32_t block = (uint32_t)(page / ppb);
    /* Markers mean nothing where the layout keeps tags at OOB 0. */
    int bad = image.layout == NK_FS_LAYOUT_MKYAFFS2 ? 0 : nk_nand_block_is_bad(nand, block);
    char verdict[160] = "";
    const char *verdict_key = "not-checked";
    unsigned flips = 0;
    if (bad == 1) {
        snprintf(verdict, sizeof verdict,
                 "not checked: block %u is bad (what it holds is not data)", block);
        verdict_key = "bad-block";
    } else if (!raw) {
        if (nand->ecc.placement == NK_ECC_PLACEMENT_NONE) {
            snprintf(verdict, sizeof verdict, "none (layout has no data ECC)");
            verdict_key = "none";
        } else {
            uint8_t *check = malloc(page_size);
            err = nk_nand_read_page(nand, (uint32_t)page, check, NULL, NK_OOB_PLACE);
            free(check);
            flips = nk_nand_last_bitflips(nand);
            if (err == -NK_EBADMSG) {
                snprintf(verdict, sizeof verdict, "%s, uncorrectable", nand->ecc.name);
                verdict_key = "uncorrectable";
            } else if (err > 0 && nk_nand_scrub_advised(nand, err)) {
                snprintf(verdict, sizeof verdict,
                         "%s, %d bitflip(s) corrected (at scrub threshold)", nand->ecc.name, err);
                verdict_key = "corrected";
            } else if (err > 0) {
                snprintf(verdict, sizeof verdict, "%s, %d bitflip(s) corrected", nand->ecc.name,
                         err);
                verdict_key = "corrected";
            } else if (err == 0) {
                snprintf(verdict, sizeof verdict, "%s, clean", nand->ecc.name);
                verdict_key = "clean";
            } else {
                snprintf(verdict, sizeof verdict, "read failed: %s", nk_strerror(err));
                verdict_key = "error";
            }
        }
    }
    if (json) {
        printf("{\"page\":%llu,\"block\":%u,\"page_in_block\":%llu,\"bad_block\":%s,"
               "\"ecc\":{\"engine\":\"%s\",\"status\":\"%s\",\"bitflips\":%u},\"data\":\"",
               (unsigned long long)page, block, (unsigned long long)(page % ppb),
               bad == 1 ? "true" : "false", nand->ecc.name ? nand->ecc.name : "none", verdict_key,
               flips);
        for (uint32_t i = 0; i < page_size; i++)
            printf("%02x", data[i]);
        printf("\",\"oob\":\"");
        for (uint32_t i = 0; i < oob_size; i++)
            printf("%02x", oob[i]);
        printf("\"}\n");
        free(data);
        free(oob);
        tool_image_close(&image);
        return 0;
    }
    printf("page %llu (block %u, page %llu of %u)\n", (unsigned long long)page, block,
           (unsigned long long)(page % ppb), ppb);
    printf("data (%u bytes):\n", page_size);
    tool_hexdump(stdout, data, page_size, 0);
    printf("oob (%u bytes):\n", oob_size);
    tool_hexdump(stdout, oob, oob_size, page_size);
    if (verdict[0])
        printf("ecc: %s\n", verdict);
    if (bad == 1)
        raw = true; /* no tags to decode in junk */
    if (!raw) {
        struct nk_fs_config fs_config;
        memset(&fs_config, 0, sizeof fs_config);
        fs_config.part = &image.part;
        fs_config.allocator = tool_heap_allocator();
        enum nk_fs_layout layout = image.layout;
        nk_fs_config_layout(&fs_config, layout);
        char text[1024];
        if (nk_fs_page_describe(&fs_config, (uint32_t)page, text, sizeof text) >= 0)
            printf("yaffs2 (--layout %s):\n%s", nk_fs_layout_name(layout), text);
    }
    free(data);
    free(oob);
    tool_image_close(&image);
    return 0;
}

const struct tool_command tool_cmd_dump = {
    .name = "dump",
    .summary = "hex of one page (data and OOB) with its ECC status",
    .run = tool_dump_run,
    .help = tool_dump_help,
};
