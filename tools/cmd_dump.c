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

static void nk_dump_help(FILE *out)
{
    fprintf(out, "usage: nandkit dump IMAGE --page N (--geometry P,O,N[,B] | --chip NAME)\n"
                 "                    [--layout L] [--raw]\n\n"
                 "Prints page N of the image: data and OOB in hex as stored, then the result of\n"
                 "reading it through the layout's ECC (clean, bitflips corrected, uncorrectable,\n"
                 "or no ECC for mkyaffs2), then the page's YAFFS2 tags where --layout puts them,\n"
                 "decoded: sequence number, object, chunk, byte count, the extra header fields,\n"
                 "what the page is, and the tags ECC status.\n\n"
                 "Options:\n" NK_TOOL_IMAGE_HELP
                 "  --page N                page number (0 = block 0, page 0)\n"
                 "  --raw                   skip the ECC check\n");
}

static int nk_dump_run(int argc, char **argv)
{
    static const struct option options[] = {NK_TOOL_IMAGE_LONG_OPTIONS,
                                            {"page", required_argument, NULL, 'p'},
                                            {"raw", no_argument, NULL, 'r'},
                                            {NULL, 0, NULL, 0}};
    struct nk_tool_image_opts opts;
    nk_tool_image_opts_init(&opts);
    opts.read_only = true;
    uint64_t page = 0;
    bool have_page = false, raw = false;
    int opt;
    optind = 1;
    while ((opt = nk_tool_getopt(argc, argv, "", options, &opts, "dump")) > 0) {
        if (opt == 'p') {
            if (!nk_tool_parse_u64(optarg, &page))
                return nk_tool_fail("bad --page '%s': expected a page number", optarg);
            have_page = true;
        } else if (opt == 'r') {
            raw = true;
        } else {
            return nk_tool_fail("dump: unknown option (see nandkit dump --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (optind >= argc)
        return nk_tool_fail("dump needs an IMAGE (see nandkit dump --help)");
    opts.path = argv[optind++];
    if (optind < argc)
        return nk_tool_fail("dump: unexpected argument '%s'", argv[optind]);
    if (!have_page)
        return nk_tool_fail("dump needs --page N");

    struct nk_tool_image image;
    int status = nk_tool_image_open(&image, &opts);
    if (status)
        return status;
    struct nk_nand *nand = &image.nand;
    uint32_t pages = nk_nand_pages(nand);
    if (page >= pages) {
        nk_tool_image_close(&image);
        return nk_tool_fail("--page %llu out of range: the image has %u pages (0..%u)",
                            (unsigned long long)page, pages, pages - 1);
    }
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint8_t *data = malloc(page_size), *oob = malloc(oob_size);
    int err = nk_nand_read_page(nand, (uint32_t)page, data, oob, NK_OOB_RAW);
    if (err < 0) {
        free(data);
        free(oob);
        nk_tool_image_close(&image);
        return nk_tool_error("reading page %llu failed: %s", (unsigned long long)page,
                             nk_strerror(err));
    }
    uint32_t ppb = nk_nand_pages_per_block(nand);
    printf("page %llu (block %llu, page %llu of %u)\n", (unsigned long long)page,
           (unsigned long long)(page / ppb), (unsigned long long)(page % ppb), ppb);
    printf("data (%u bytes):\n", page_size);
    nk_tool_hexdump(stdout, data, page_size, 0);
    printf("oob (%u bytes):\n", oob_size);
    nk_tool_hexdump(stdout, oob, oob_size, page_size);

    if (!raw) {
        if (nand->ecc.placement == NK_ECC_PLACEMENT_NONE) {
            printf("ecc: none (layout has no data ECC)\n");
        } else {
            err = nk_nand_read_page(nand, (uint32_t)page, data, NULL, NK_OOB_PLACE);
            if (err == -NK_EBADMSG)
                printf("ecc: %s, uncorrectable\n", nand->ecc.name);
            else if (nk_nand_scrub_advised(nand, err))
                printf("ecc: %s, %d bitflip(s) corrected (at scrub threshold)\n", nand->ecc.name,
                       err);
            else if (err > 0)
                printf("ecc: %s, %d bitflip(s) corrected\n", nand->ecc.name, err);
            else if (err == 0)
                printf("ecc: %s, clean\n", nand->ecc.name);
            else
                printf("ecc: read failed: %s\n", nk_strerror(err));
        }
    }
    if (!raw) {
        struct nk_fs_config fs_config;
        memset(&fs_config, 0, sizeof fs_config);
        fs_config.part = &image.part;
        fs_config.allocator = nk_tool_heap_allocator();
        enum nk_fs_layout layout = image.layout;
        nk_fs_config_layout(&fs_config, layout);
        char text[1024];
        if (nk_fs_page_describe(&fs_config, (uint32_t)page, text, sizeof text) >= 0)
            printf("yaffs2 (--layout %s):\n%s", nk_fs_layout_name(layout), text);
    }
    free(data);
    free(oob);
    nk_tool_image_close(&image);
    return 0;
}

const struct nk_tool_command nk_cmd_dump = {
    .name = "dump",
    .summary = "hex of one page (data and OOB) with its ECC status",
    .run = nk_dump_run,
    .help = nk_dump_help,
};
