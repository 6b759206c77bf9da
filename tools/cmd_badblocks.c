/* SPDX-License-Identifier: MIT */
/* nandkit badblocks: the bad-block table of an image, and retiring blocks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "save.h"
#include "tool.h"

static void tool_badblocks_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit badblocks IMAGE|/dev/mtdN [--geometry P,O,N[,B] | --chip NAME]\n"
            "                         [--scan] [--write-bbt] [--mark BLOCK] [--json]\n\n"
            "Reads the Linux-compatible bad-block table (main \"Bbt0\" and mirror \"1tbB\" in the\n"
            "last 4 blocks); when there is none, scans the factory markers. Lists every bad\n"
            "block (factory or worn) and where the tables are. By default it only looks:\n"
            "nothing is written to the image or device, and no sidecar is created. With\n"
            "--write-bbt it writes the tables when they are missing (or rebuilt by --scan),\n"
            "and says which blocks it wrote.\n\n"
            "On /dev/mtdN the kernel keeps the bad-block state (and, with an on-flash table,\n"
            "its own table in the last blocks): --mark BLOCK asks the kernel to retire the\n"
            "block (MEMSETBADBLOCK: it writes the marker and updates its table), nandkit\n"
            "writes no table there, and the list is read as by default, writing nothing\n"
            "(--write-bbt adds nothing to --mark, and alone it is refused).\n\n"
            "Options:\n" TOOL_IMAGE_HELP
            "  --scan                  ignore the tables on flash; rebuild them from the markers\n"
            "  -w, --write-bbt         write the tables (into the last good blocks of the last 4)\n"
            "  --dry-run               change nothing on flash (the default; kept for scripts)\n"
            "  --mark BLOCK            retire BLOCK (marker + new table version; needs\n"
            "                          --write-bbt on an image file)\n"
            "  -j, --json              machine-readable output\n");
}

static const char *tool_state_name(int state)
{
    switch (state) {
    case NK_BBT_WORN:
        return "worn";
    case NK_BBT_FACTORY_BAD:
        return "factory";
    case NK_BBT_RESERVED:
        return "reserved";
    default:
        return "good";
    }
}

/* /dev/mtdN: --mark through the kernel (MEMSETBADBLOCK), which writes the
 * marker and its own table, in blocks nandkit never writes. Returns 0 or
 * an exit status after one line. */
static int tool_badblocks_mtd_mark(struct tool_image_opts *opts, uint64_t block, bool json)
{
    struct tool_image_opts writable = *opts;
    writable.read_only = false;
    struct tool_image image;
    int status = tool_flash_open(&image, &writable, json);
    if (status)
        return status;
    uint32_t blocks = nk_nand_blocks(&image.nand);
    if (block >= blocks)
        status = tool_fail("--mark %llu out of range: %s has %u blocks", (unsigned long long)block,
                           opts->path, blocks);
    int err = status ? 0 : nk_nand_block_mark_bad(&image.nand, (uint32_t)block);
    if (err)
        status = tool_error("--mark %llu: the kernel refused (MEMSETBADBLOCK): %s",
                            (unsigned long long)block, tool_image_error(&image, err));
    else if (!status && !json)
        printf("marked       block %llu bad through the kernel (MEMSETBADBLOCK)\n",
               (unsigned long long)block);
    tool_image_close(&image);
    return status;
}

/* Closes the simulator (its last write back checked) and puts the copy in
 * place of `target`. Returns 0 or the exit status after one line. */
static int tool_badblocks_save(struct tool_image *image, struct tool_save *save, const char *target)
{
    int err = nk_sim_close(image->sim);
    image->sim = NULL;
    if (err)
        return tool_error("writing %s failed: %s", target, nk_strerror(err));
    return tool_save_commit(save);
}

/* What the command line asks of badblocks. */
struct tool_badblocks_args {
    struct tool_image_opts opts;
    struct nk_bbt_config config; /* force_scan from --scan; dry_run unless --write-bbt */
    bool json, mark, write_bbt, dry_run_given;
    uint64_t mark_block;
};

/* Fills `a`. Returns 0, or the exit status after a report. */
static int tool_badblocks_parse(int argc, char **argv, struct tool_badblocks_args *a)
{
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"scan", no_argument, NULL, 's'},
                                            {"dry-run", no_argument, NULL, 'n'},
                                            {"mark", required_argument, NULL, 'm'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"write-bbt", no_argument, NULL, 'w'},
                                            {NULL, 0, NULL, 0}};
    tool_image_opts_init(&a->opts);
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "wj", options, &a->opts, "badblocks")) > 0) {
        switch (opt) {
        case 's':
            a->config.force_scan = true;
            break;
        case 'n':
            a->dry_run_given = true;
            break;
        case 'w':
            a->write_bbt = true;
            break;
        case 'm':
            if (!tool_parse_u64(optarg, &a->mark_block))
                return tool_fail("bad --mark '%s': expected a block number", optarg);
            a->mark = true;
            break;
        case 'j':
            a->json = true;
            break;
        default:
            return tool_fail("badblocks: unknown option (see nandkit badblocks --help)");
        }
    }
    if (opt < 0)
        return -opt;
    if (optind >= argc)
        return tool_fail("badblocks needs an IMAGE (see nandkit badblocks --help)");
    a->opts.path = argv[optind++];
    if (optind < argc)
        return tool_fail("badblocks: unexpected argument '%s'", argv[optind]);
    if (a->write_bbt && a->dry_run_given)
        return tool_fail("badblocks: --write-bbt and --dry-run contradict each other");
    return 0;
}

/* The kernel keeps the bad-block state of /dev/mtdN: a block is retired
 * through it, and nandkit writes no table there; what is left is the list,
 * read as by default. Returns 0 or the exit status after a report. */
static int tool_badblocks_mtd(struct tool_badblocks_args *a)
{
    if (a->write_bbt && !a->mark)
        return tool_fail("--write-bbt: the kernel keeps the bad-block table of %s; "
                         "nandkit writes none there (--mark BLOCK retires a block "
                         "through the kernel)",
                         a->opts.path);
    if (a->mark) {
        int status = tool_badblocks_mtd_mark(&a->opts, a->mark_block, a->json);
        if (status)
            return status;
    }
    a->mark = a->write_bbt = false;
    return 0;
}

/* Opens the device. An image file to change is changed in a copy beside
 * it, renamed over it at the end; the real file is opened first,
 * read-only, to check the input. Returns 0 with `image` open, or the exit
 * status with nothing left open. */
static int tool_badblocks_open(struct tool_badblocks_args *a, struct tool_image *image,
                               struct tool_save *save)
{
    struct tool_image_opts *opts = &a->opts;
    if (!opts->read_only && !tool_path_is_mtd(opts->path)) {
        struct tool_image_opts check = *opts;
        check.read_only = true;
        int status = tool_flash_open(image, &check, a->json);
        if (status)
            return status;
        tool_image_close(image);
        status = tool_save_begin(save, opts->path, true);
        if (status)
            return status;
        opts->path = save->tmp;
    }
    int status = tool_flash_open(image, opts, a->json || save->tmp);
    if (status) {
        tool_save_abort(save);
        return status;
    }
    struct nk_nand *nand = &image->nand;
    if (a->mark && a->mark_block >= nk_nand_blocks(nand)) {
        tool_image_close(image);
        tool_save_abort(save);
        return tool_fail("--mark %llu out of range: the device has %u blocks",
                         (unsigned long long)a->mark_block, nk_nand_blocks(nand));
    }
    return 0;
}

/* Reads (or scans for) the table, retires --mark's block and, without
 * dry_run, writes the image back. Returns 0 or the exit status after a
 * report; the caller releases config.memory, the image and the copy. */
static int tool_badblocks_update(struct tool_badblocks_args *a, struct tool_image *image,
                                 struct tool_save *save, const char *target, struct nk_bbt *bbt)
{
    struct nk_nand *nand = &image->nand;
    struct nk_bbt_config *config = &a->config;
    config->memory_size = nk_bbt_memory_size(nand);
    config->memory = malloc(config->memory_size);
    int err = nk_bbt_attach(nand, bbt, config);
    if (!err && a->mark)
        err = nk_bbt_mark_worn(nand, (uint32_t)a->mark_block);
    /* The tables are on the image only once written back: say "wrote" only then. */
    struct nk_diag why[1] = {{""}};
    bool power_cut = image->sim && !nk_sim_powered(image->sim);
    const char *failure = err ? tool_image_error(image, err) : NULL;
    if ((!err || power_cut) && image->sim && !config->dry_run && nk_sim_sync(image->sim, why) != 0)
        return tool_error("writing %s failed: %s", target, why->text);
    if (!err)
        return 0;
    /* -EINVAL: a geometry the table cannot serve, or a block out of range. */
    int code = err == -NK_EINVAL ? tool_fail("bad-block table: %s", failure)
                                 : tool_error("bad-block table: %s", failure);
    /* A simulated power cut leaves what the chip would hold, as asked. */
    if (power_cut && save->tmp && tool_badblocks_save(image, save, target))
        code = 1;
    return code;
}

static void tool_badblocks_report_json(const struct tool_badblocks_args *a, struct nk_nand *nand,
                                       const struct nk_bbt *bbt)
{
    const struct nk_bbt_info *info = &bbt->info;
    printf("{\"blocks\":%u,\"main_block\":%d,\"main_version\":%u,\"mirror_block\":%d,"
           "\"mirror_version\":%u,\"scanned\":%s,\"main_written\":%s,\"mirror_written\":%s,"
           "\"dry_run\":%s,\"bad\":[",
           nk_nand_blocks(nand), info->main_block, info->main_version, info->mirror_block,
           info->mirror_version, info->scanned ? "true" : "false",
           info->main_written ? "true" : "false", info->mirror_written ? "true" : "false",
           a->config.dry_run ? "true" : "false");
    bool first = true;
    for (uint32_t b = 0; b < nk_nand_blocks(nand); b++) {
        int state = nk_bbt_block_state(bbt, b);
        if (state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD) {
            printf("%s{\"block\":%u,\"kind\":\"%s\"}", first ? "" : ",", b, tool_state_name(state));
            first = false;
        }
    }
    printf("]}\n");
}

static void tool_badblocks_report_text(const struct tool_badblocks_args *a, struct nk_nand *nand,
                                       const struct nk_bbt *bbt)
{
    const struct nk_bbt_info *info = &bbt->info;
    bool dry_run = a->config.dry_run;
    printf("main table   ");
    if (info->main_block >= 0)
        printf("block %d, version %u%s\n", info->main_block, info->main_version,
               info->main_written ? (dry_run ? " (would write)" : " (written)") : "");
    else
        printf("none\n");
    printf("mirror table ");
    if (info->mirror_block >= 0)
        printf("block %d, version %u%s\n", info->mirror_block, info->mirror_version,
               info->mirror_written ? (dry_run ? " (would write)" : " (written)") : "");
    else
        printf("none\n");
    if (info->scanned && dry_run)
        printf("source       factory-marker scan (tables not written: add --write-bbt)\n");
    else if (info->scanned)
        printf("source       factory-marker scan (wrote both tables)\n");
    else
        printf("source       table on flash%s\n", info->scrubbed ? " (scrubbed)" : "");
    unsigned count = 0;
    for (uint32_t b = 0; b < nk_nand_blocks(nand); b++) {
        int state = nk_bbt_block_state(bbt, b);
        if (state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD) {
            printf("bad block    %u (%s)\n", b, tool_state_name(state));
            count++;
        }
    }
    printf("total        %u bad of %u blocks (%u factory, %u worn)\n", count, nk_nand_blocks(nand),
           info->factory_bad, info->worn);
}

static int tool_badblocks_run(int argc, char **argv)
{
    struct tool_badblocks_args a;
    memset(&a, 0, sizeof a);
    int status = tool_badblocks_parse(argc, argv, &a);
    if (!status && tool_path_is_mtd(a.opts.path))
        status = tool_badblocks_mtd(&a);
    if (status)
        return status;
    if (a.mark && !a.write_bbt)
        return tool_fail("--mark %llu writes the bad-block table: add --write-bbt",
                         (unsigned long long)a.mark_block);
    a.config.dry_run = !a.write_bbt;
    a.opts.read_only = a.config.dry_run;

    struct tool_image image;
    struct tool_save save;
    memset(&save, 0, sizeof save);
    const char *target = a.opts.path;
    status = tool_badblocks_open(&a, &image, &save);
    if (status)
        return status;
    struct nk_bbt bbt;
    status = tool_badblocks_update(&a, &image, &save, target, &bbt);
    if (!status && a.json)
        tool_badblocks_report_json(&a, &image.nand, &bbt);
    else if (!status)
        tool_badblocks_report_text(&a, &image.nand, &bbt);
    free(a.config.memory);
    if (!status && save.tmp)
        status = tool_badblocks_save(&image, &save, target);
    tool_image_close(&image);
    tool_save_abort(&save);
    return status;
}

const struct tool_command tool_cmd_badblocks = {
    .name = "badblocks",
    .summary = "list bad blocks, read/write the Linux-compatible BBT, retire a block",
    .run = tool_badblocks_run,
    .help = tool_badblocks_help,
};
