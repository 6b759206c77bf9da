/* SPDX-License-Identifier: MIT */
/* nandkit sim: create simulated chip images and list the presets. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "nandkit/error.h"
#include "save.h"
#include "tool.h"

static void nk_sim_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit sim create IMAGE (--chip NAME | --geometry P,O,N,B)\n"
            "                          [--bad-blocks N|LIST] [--seed S]\n"
            "       nandkit sim list\n\n"
            "create  writes an erased chip image (page data then OOB, block 0 first) plus its\n"
            "        sidecar IMAGE.nksim (erase counts, grown-bad state), with factory-bad\n"
            "        blocks marked as the datasheet says (e.g. non-0xFF at OOB byte 0 of\n"
            "        page 0 or 1 on the K9F1G08U0A). Blocks past the last written one are\n"
            "        left out of the file and read as erased.\n"
            "list    prints the simulator presets.\n\n"
            "Options:\n"
            "  --chip NAME             preset to simulate\n"
            "  --geometry P,O,N,B      explicit geometry (page, OOB, pages/block, blocks)\n"
            "  --bad-blocks N|LIST     N random factory-bad blocks (seeded), or a comma list\n"
            "                          of block numbers (\"5,10\"; one block: \"7,\")\n"
            "                          default: none\n"
            "  --seed S                seed for the bad-block choice and faults (default 1)\n");
}

static int nk_sim_list(void)
{
    printf("%-16s %-10s %6s %5s %5s %7s  %s\n", "preset", "vendor", "page", "oob", "ppb", "blocks",
           "size");
    for (unsigned i = 0; nk_sim_preset_name(i); i++) {
        struct nk_sim_params params;
        if (nk_sim_preset(nk_sim_preset_name(i), &params) != 0)
            continue;
        const struct nk_chip_info *c = &params.chip;
        uint64_t mib = ((uint64_t)c->page_size * c->pages_per_block * c->blocks) >> 20;
        printf("%-16s %-10s %6u %5u %5u %7u  %llu MiB%s\n", nk_sim_preset_name(i), c->vendor,
               c->page_size, c->oob_size, c->pages_per_block, c->blocks, (unsigned long long)mib,
               params.onfi ? " (ONFI)" : "");
    }
    return 0;
}

/* Parses --bad-blocks: a count, or a list with at least one comma. */
static int nk_parse_bad_blocks(const char *text, int *count, uint32_t **list, unsigned *len)
{
    if (!strchr(text, ',')) {
        uint64_t n;
        if (!nk_tool_parse_u64(text, &n) || n > 1000000)
            return nk_tool_fail("bad --bad-blocks '%s': expected a count or a comma list", text);
        *count = (int)n;
        return 0;
    }
    unsigned cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    *list = calloc(cap, sizeof **list);
    *len = 0;
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 0);
        if (end == p || errno || (*end && *end != ',') || v > UINT32_MAX) {
            free(*list);
            *list = NULL;
            return nk_tool_fail("bad --bad-blocks '%s': '%.*s' is not a block number", text,
                                (int)strcspn(p, ","), p);
        }
        (*list)[(*len)++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    *count = -1;
    return 0;
}

static int nk_sim_create(int argc, char **argv)
{
    static const struct option options[] = {NK_TOOL_IMAGE_LONG_OPTIONS,
                                            {"bad-blocks", required_argument, NULL, 'b'},
                                            {NULL, 0, NULL, 0}};
    struct nk_tool_image_opts opts;
    nk_tool_image_opts_init(&opts);
    opts.create = true;
    int bad_count = 0;
    uint32_t *bad_list = NULL;
    unsigned bad_len = 0;
    int opt;
    optind = 1;
    while ((opt = nk_tool_getopt(argc, argv, "", options, &opts, "sim create")) > 0) {
        free(bad_list);
        bad_list = NULL;
        int status = nk_parse_bad_blocks(optarg, &bad_count, &bad_list, &bad_len);
        if (status) {
            free(bad_list);
            return status;
        }
    }
    if (opt < 0) {
        free(bad_list);
        return -opt;
    }
    if (optind >= argc || optind + 1 < argc) {
        free(bad_list);
        if (optind >= argc)
            return nk_tool_fail("sim create needs an IMAGE path");
        return nk_tool_fail("sim create: unexpected argument '%s'", argv[optind + 1]);
    }
    opts.path = argv[optind++];

    struct nk_sim_params params;
    int status = nk_tool_params_from_opts(&opts, &params);
    for (unsigned i = 0; !status && i < bad_len; i++) {
        if (bad_list[i] >= params.chip.blocks)
            status = nk_tool_fail("--bad-blocks: block %u out of range (the chip has %u blocks)",
                                  bad_list[i], params.chip.blocks);
    }
    if (!status && bad_count > 0 && (uint32_t)bad_count > params.chip.blocks / 2)
        status = nk_tool_fail("--bad-blocks %d: more than half of the %u blocks", bad_count,
                              params.chip.blocks);
    if (status) {
        free(bad_list);
        return status;
    }

    /* Made beside the target and renamed over it: an image already there
     * stays whole until the new one is complete. */
    struct nk_tool_save save;
    status = nk_tool_save_begin(&save, opts.path, false);
    if (status) {
        free(bad_list);
        return status;
    }
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.image_path = save.tmp;
    config.create = true;
    config.seed = opts.seed;
    config.factory_bad_blocks = bad_count;
    config.factory_bad_list = bad_list;
    config.factory_bad_list_len = bad_len;
    struct nk_sim *sim;
    struct nk_diag why[1] = {{""}};
    int err = nk_sim_open(&sim, &config, why);
    free(bad_list);
    if (err)
        nk_tool_save_abort(&save);
    if (err == -NK_EINVAL) /* a part the simulator cannot model: bad input */
        return nk_tool_fail("cannot create %s with %s %s: %s", opts.path,
                            opts.chip ? "--chip" : "--geometry",
                            opts.chip ? opts.chip : opts.geometry, why->text);
    if (err)
        return nk_tool_error("%s", why->text[0] ? why->text : nk_strerror(err));
    err = nk_sim_close(sim);
    if (err) {
        nk_tool_save_abort(&save);
        return nk_tool_error("cannot write %s: %s", opts.path, nk_strerror(err));
    }
    status = nk_tool_save_commit(&save);
    if (status)
        return status;
    const struct nk_chip_info *c = &params.chip;
    printf("created %s: %s %s, %u blocks of %u x (%u + %u) bytes\n", opts.path, c->vendor, c->model,
           c->blocks, c->pages_per_block, c->page_size, c->oob_size);
    return 0;
}

static int nk_sim_run(int argc, char **argv)
{
    if (argc < 2)
        return nk_tool_fail("sim needs a subcommand: create or list (see nandkit sim --help)");
    if (strcmp(argv[1], "list") == 0)
        return nk_sim_list();
    if (strcmp(argv[1], "create") == 0)
        return nk_sim_create(argc - 1, argv + 1);
    return nk_tool_fail("sim: unknown subcommand '%s' (create or list)", argv[1]);
}

const struct nk_tool_command nk_cmd_sim = {
    .name = "sim",
    .summary = "create simulated chip images; list the simulator presets",
    .run = nk_sim_run,
    .help = nk_sim_help,
};
