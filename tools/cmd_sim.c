/* SPDX-License-Identifier: MIT */
/* nandkit sim: create simulated chip images and list the presets. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "nandkit/error.h"
#include "save.h"
#include "tool.h"

static void tool_sim_help(FILE *out)
{
    fprintf(
        out,
        "usage: nandkit sim create IMAGE (--chip NAME | --geometry P,O,N,B)\n"
        "                          [--full] [--bad-blocks LIST | --bad-blocks-random N]\n"
        "                          [--seed S]\n"
        "       nandkit sim list\n\n"
        "create  writes an erased chip image (page data then OOB, block 0 first) plus its\n"
        "        sidecar IMAGE.nksim (erase counts, grown-bad state), with factory-bad\n"
        "        blocks marked as the datasheet says (e.g. non-0xFF at OOB byte 0 of\n"
        "        page 0 or 1 on the K9F1G08U0A). Blocks past the last written one are\n"
        "        left out of the file and read as erased, unless --full writes every\n"
        "        block: a full raw image, as nanddump --oob makes of a whole chip.\n"
        "list    prints the simulator presets.\n\n"
        "Options:\n"
        "  --chip NAME             preset to simulate\n"
        "  --geometry P,O,N,B      explicit geometry (page, OOB, pages/block, blocks)\n"
        "  --bad-blocks LIST       these blocks factory-bad: a comma list (\"5,10\", or \"7\"\n"
        "                          for block 7); default: none\n"
        "  --bad-blocks-random N   N factory-bad blocks chosen from the seed (never block 0)\n"
        "  --full                  write the whole chip as bytes (erased pages as 0xFF): a full\n"
        "                          raw image other programs can read, as nanddump --oob makes\n"
        "  --seed S                seed for the bad-block choice and faults (default 1)\n");
}

/* The block count identification reports for a preset (RESET, READ ID,
 * parameter page through the port), as `nandkit info --chip` shows it. */
static uint32_t tool_sim_identified_blocks(const char *name)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = name;
    struct nk_sim *sim;
    if (nk_sim_open(&sim, &config, NULL) != 0)
        return 0;
    size_t size = nk_nand_workspace_size(&nk_sim_params(sim)->chip);
    void *workspace = malloc(size);
    struct nk_nand nand;
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(sim);
    nc.workspace = workspace;
    nc.workspace_size = size;
    nc.read_only = true;
    struct nk_ecc_engine none; /* identification only: no ECC needed */
    nk_ecc_none_init(&none);
    nc.ecc = &none;
    nc.force_ecc = true;
    uint32_t blocks = nk_nand_open(&nand, &nc) == 0 ? nk_nand_blocks(&nand) : 0;
    free(workspace);
    nk_sim_close(sim);
    return blocks;
}

static int tool_sim_list(void)
{
    printf("%-18s %-10s %6s %5s %5s %7s  %s\n", "preset", "vendor", "page", "oob", "ppb", "blocks",
           "size");
    for (unsigned i = 0; nk_sim_preset_name(i); i++) {
        struct nk_sim_params params;
        if (nk_sim_preset(nk_sim_preset_name(i), &params) != 0)
            continue;
        const struct nk_chip_info *c = &params.chip;
        uint64_t mib = ((uint64_t)c->page_size * c->pages_per_block * c->blocks) >> 20;
        uint32_t identified = tool_sim_identified_blocks(nk_sim_preset_name(i));
        printf("%-18s %-10s %6u %5u %5u %7u  %llu MiB%s\n", nk_sim_preset_name(i), c->vendor,
               c->page_size, c->oob_size, c->pages_per_block, c->blocks, (unsigned long long)mib,
               params.onfi ? " (ONFI)" : "");
        if (identified && identified != c->blocks)
            printf("%-18s identification uses %u of the %u blocks (a power of two per LUN, as "
                   "Linux does; nandkit info --chip shows %u)\n",
                   "", identified, c->blocks, identified);
    }
    return 0;
}

/* Parses --bad-blocks LIST: block numbers separated by commas (a trailing
 * comma is allowed). */
static int tool_parse_bad_blocks(const char *text, uint32_t **list, unsigned *len)
{
    unsigned cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    *list = calloc(cap, sizeof **list);
    *len = 0;
    const char *p = text;
    if (!*p) {
        free(*list);
        *list = NULL;
        return tool_fail("bad --bad-blocks '': expected block numbers, e.g. 5,10");
    }
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 0);
        if (end == p || *p == '-' || errno || (*end && *end != ',') || v > UINT32_MAX) {
            free(*list);
            *list = NULL;
            return tool_fail("bad --bad-blocks '%s': '%.*s' is not a block number", text,
                             (int)strcspn(p, ","), p);
        }
        (*list)[(*len)++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* --full: every page of the chip as bytes (erased pages as 0xFF, not as the
 * holes the simulator's own files may keep), so that programs that read the
 * file themselves (nandwrite --oob, unyaffs, cmp) see the chip. Written to
 * IMAGE.full beside `image` and renamed over it; the sidecar stays valid. */
static int tool_sim_write_full(struct nk_sim *sim, const char *image, struct nk_diag *why)
{
    const struct nk_chip_info *c = &nk_sim_params(sim)->chip;
    uint32_t page_bytes = c->page_size + c->oob_size;
    uint32_t rows = c->blocks * c->pages_per_block;
    size_t len = strlen(image) + 8;
    char *path = malloc(len);
    uint8_t *buf = malloc(page_bytes);
    if (!path || !buf) {
        free(path);
        free(buf);
        snprintf(why->text, sizeof why->text, "out of memory");
        return -NK_ENOMEM;
    }
    snprintf(path, len, "%s.full", image);
    FILE *out = fopen(path, "wb");
    int err = out ? 0 : -NK_EIO;
    for (uint32_t row = 0; !err && row < rows; row++) {
        err = nk_sim_page_peek(sim, row, 0, buf, page_bytes);
        if (!err && fwrite(buf, 1, page_bytes, out) != page_bytes)
            err = -NK_EIO;
    }
    if (out && (fflush(out) != 0 || fsync(fileno(out)) != 0))
        err = err ? err : -NK_EIO;
    if (out && fclose(out) != 0)
        err = err ? err : -NK_EIO;
    if (!err && rename(path, image) != 0)
        err = -NK_EIO;
    if (err) {
        snprintf(why->text, sizeof why->text, "cannot write the full image: %s", strerror(errno));
        unlink(path);
    }
    free(path);
    free(buf);
    return err;
}

/* Puts the factory-bad blocks of a new chip into its image file, markers and
 * the factory's junk as the simulator models them, so that a copy of the
 * image without its sidecar still shows them: each is touched through the
 * simulator (its first byte poked back as it reads), which makes it part of
 * the file at close; the erased blocks before it become holes. */
static int tool_sim_create_write_bad(struct nk_sim *sim)
{
    const struct nk_chip_info *c = &nk_sim_params(sim)->chip;
    for (uint32_t b = 0; b < c->blocks; b++) {
        struct nk_sim_block_state state;
        int err = nk_sim_block_get(sim, b, &state);
        if (err)
            return err;
        if (!(state.flags & NK_SIM_BLOCK_FACTORY_BAD))
            continue;
        uint8_t byte;
        uint32_t row = b * c->pages_per_block;
        err = nk_sim_page_peek(sim, row, 0, &byte, 1);
        if (!err)
            err = nk_sim_page_poke(sim, row, 0, &byte, 1);
        if (err)
            return err;
    }
    return 0;
}

/* What the command line asks of sim create. */
struct tool_sim_create_args {
    struct tool_image_opts opts;
    int bad_count; /* --bad-blocks-random N; -1 with a --bad-blocks list */
    uint32_t *bad_list;
    unsigned bad_len;
    bool full;
};

/* Fills `a` (the caller frees a->bad_list). Returns 0, or the exit status
 * after a report. */
static int tool_sim_create_parse(int argc, char **argv, struct tool_sim_create_args *a)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"bad-blocks", required_argument, NULL, 'b'},
                                            {"bad-blocks-random", required_argument, NULL, 'r'},
                                            {"full", no_argument, NULL, 'F'},
                                            {NULL, 0, NULL, 0}};
    struct tool_image_opts *opts = &a->opts;
    tool_image_opts_init(opts);
    opts->create = true;
    /* --ecc and --bit-error-rate get their own refusal below. */
    opts->takes = TOOL_TAKES(TOOL_OPT_GEOMETRY) | TOOL_TAKES(TOOL_OPT_CHIP) |
                  TOOL_TAKES(TOOL_OPT_SEED) | TOOL_TAKES(TOOL_OPT_ECC) |
                  TOOL_TAKES(TOOL_OPT_BIT_ERROR_RATE);
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "", options, opts, "sim create")) > 0) {
        if (opt == 'F') {
            a->full = true;
            continue;
        }
        if (opt == 'r') {
            uint64_t n;
            if (!tool_parse_u64(optarg, &n) || n > 1000000)
                return tool_fail("bad --bad-blocks-random '%s': expected a count", optarg);
            a->bad_count = (int)n;
            continue;
        }
        free(a->bad_list);
        a->bad_list = NULL;
        int status = tool_parse_bad_blocks(optarg, &a->bad_list, &a->bad_len);
        if (status)
            return status;
    }
    if (opt < 0)
        return -opt;
    if (a->bad_list && a->bad_count > 0)
        return tool_fail("give --bad-blocks LIST or --bad-blocks-random N, not both");
    if (opts->ecc || opts->bit_error_rate > 0.0)
        return tool_fail("sim create: %s does not apply: an erased chip holds no code and "
                         "reads nothing (give it to the commands that read or write pages)",
                         opts->ecc ? "--ecc" : "--bit-error-rate");
    if (a->bad_list)
        a->bad_count = -1;
    if (optind >= argc)
        return tool_fail("sim create needs an IMAGE path");
    if (optind + 1 < argc)
        return tool_fail("sim create: unexpected argument '%s'", argv[optind + 1]);
    opts->path = argv[optind++];
    return 0;
}

/* The chip's parameters, and the bad blocks asked for checked against it.
 * Returns 0, or the exit status after a report. */
static int tool_sim_create_params(const struct tool_sim_create_args *a,
                                  struct nk_sim_params *params)
{
    int status = tool_params_from_opts(&a->opts, params);
    for (unsigned i = 0; !status && i < a->bad_len; i++) {
        if (a->bad_list[i] >= params->chip.blocks)
            status = tool_fail("--bad-blocks: block %u out of range (the chip has %u blocks)",
                               a->bad_list[i], params->chip.blocks);
    }
    if (!status && a->bad_count > 0 && (uint32_t)a->bad_count > params->chip.blocks / 2)
        status = tool_fail("--bad-blocks %d: more than half of the %u blocks", a->bad_count,
                           params->chip.blocks);
    return status;
}

/* Makes the image: beside the target and renamed over it, so that an image
 * already there stays whole until the new one is complete. Releases
 * a->bad_list. Returns 0, or the exit status after a report. */
static int tool_sim_create_make(struct tool_sim_create_args *a, struct nk_sim_params *params)
{
    const struct tool_image_opts *opts = &a->opts;
    struct tool_save save;
    int status = tool_save_begin(&save, opts->path, false);
    if (status)
        return status;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = params;
    config.image_path = save.tmp;
    config.create = true;
    config.seed = opts->seed;
    config.factory_bad_blocks = a->bad_count;
    config.factory_bad_list = a->bad_list;
    config.factory_bad_list_len = a->bad_len;
    struct nk_sim *sim;
    struct nk_diag why[1] = {{""}};
    int err = nk_sim_open(&sim, &config, why);
    free(a->bad_list);
    a->bad_list = NULL;
    if (!err && a->full)
        err = tool_sim_write_full(sim, save.tmp, why);
    else if (!err)
        err = tool_sim_create_write_bad(sim);
    if (err)
        tool_save_abort(&save);
    if (err == -NK_EINVAL) /* a part the simulator cannot model: bad input */
        return tool_fail("cannot create %s with %s %s: %s", opts->path,
                         opts->chip ? "--chip" : "--geometry",
                         opts->chip ? opts->chip : opts->geometry, why->text);
    if (err)
        return tool_error("%s", why->text[0] ? why->text : nk_strerror(err));
    err = nk_sim_close(sim);
    if (err) {
        tool_save_abort(&save);
        return tool_error("cannot write %s: %s", opts->path, nk_strerror(err));
    }
    return tool_save_commit(&save);
}

static int tool_sim_create(int argc, char **argv)
{
    struct tool_sim_create_args a;
    memset(&a, 0, sizeof a);
    struct nk_sim_params params;
    int status = tool_sim_create_parse(argc, argv, &a);
    if (!status)
        status = tool_sim_create_params(&a, &params);
    if (status) {
        free(a.bad_list);
        return status;
    }
    status = tool_sim_create_make(&a, &params);
    if (status)
        return status;
    const struct nk_chip_info *c = &params.chip;
    printf("created %s: %s %s, %u blocks of %u x (%u + %u) bytes\n", a.opts.path, c->vendor,
           c->model, c->blocks, c->pages_per_block, c->page_size, c->oob_size);
    return 0;
}

static int tool_sim_run(int argc, char **argv)
{
    if (argc < 2)
        return tool_fail("sim needs a subcommand: create or list (see nandkit sim --help)");
    if (strcmp(argv[1], "list") == 0)
        return tool_sim_list();
    if (strcmp(argv[1], "create") == 0)
        return tool_sim_create(argc - 1, argv + 1);
    return tool_fail("sim: unknown subcommand '%s' (create or list)", argv[1]);
}

const struct tool_command tool_cmd_sim = {
    .name = "sim",
    .summary = "create simulated chip images; list the simulator presets",
    .run = tool_sim_run,
    .help = tool_sim_help,
};
