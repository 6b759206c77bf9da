/* SPDX-License-Identifier: MIT */
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lock.h"
#include "nandkit/error.h"
#include "tool.h"

void tool_image_opts_init(struct tool_image_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->layout = NK_FS_LAYOUT_LINUX;
    opts->seed = 1;
    opts->power_cut_after = -1;
}

int tool_image_option(struct tool_image_opts *opts, int opt, const char *arg)
{
    uint64_t value;
    switch (opt) {
    case TOOL_OPT_GEOMETRY:
        opts->geometry = arg;
        return 1;
    case TOOL_OPT_CHIP:
        opts->chip = arg;
        return 1;
    case TOOL_OPT_LAYOUT:
        if (nk_fs_layout_parse(arg, &opts->layout) != 0)
            return tool_fail("unknown layout '%s' (use linux, mkyaffs2 or inband)", arg);
        opts->layout_given = true;
        return 1;
    case TOOL_OPT_ECC:
        opts->ecc = arg;
        return 1;
    case TOOL_OPT_BIT_ERROR_RATE: {
        char *end;
        errno = 0;
        double rate = strtod(arg, &end);
        if (end == arg || *end || errno || !(rate >= 0.0 && rate <= 0.01))
            return tool_fail("bad --bit-error-rate '%s': a probability from 0 to 0.01", arg);
        opts->bit_error_rate = rate;
        return 1;
    }
    case TOOL_OPT_WAIT:
        tool_lock_set_wait(true);
        return 1;
    case TOOL_OPT_FORCE:
        tool_lock_set_force(true);
        return 1;
    case TOOL_OPT_FORCE_ECC:
        opts->force_ecc = true;
        return 1;
    case TOOL_OPT_SEED:
        if (!tool_parse_u64(arg, &value))
            return tool_fail("bad --seed '%s': expected an unsigned number", arg);
        opts->seed = value;
        return 1;
    case TOOL_OPT_MTD_ECC:
        if (strcmp(arg, "kernel") == 0)
            opts->mtd_raw = false;
        else if (strcmp(arg, "nandkit") == 0)
            opts->mtd_raw = true;
        else
            return tool_fail("unknown --mtd-ecc '%s' (use kernel or nandkit)", arg);
        opts->mtd_ecc_given = true;
        return 1;
    case TOOL_OPT_POWER_CUT:
        if (!tool_parse_u64(arg, &value) || value > INT64_MAX)
            return tool_fail("bad --power-cut-after '%s': expected an operation count", arg);
        opts->power_cut_after = (int64_t)value;
        return 1;
    default:
        return 0;
    }
}

int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *options,
                struct tool_image_opts *opts, const char *command)
{
    /* A leading ':' makes getopt report a missing value as ':' and stay
     * quiet: one line of our own instead of getopt's. */
    char quiet[32];
    snprintf(quiet, sizeof quiet, ":%s", shortopts);
    for (;;) {
        int opt = getopt_long(argc, argv, quiet, options, NULL);
        if (opt == -1)
            return 0;
        if (opt == '?' || opt == ':') {
            const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
            if (opt == ':')
                return -tool_fail("%s: option '%s' needs a value (see nandkit %s --help)", command,
                                  arg, command);
            return -tool_fail("%s: unknown option '%s' (see nandkit %s --help)", command, arg,
                              command);
        }
        if (opt >= TOOL_OPT_GEOMETRY && opt < TOOL_OPT_FIRST_FREE && opts->takes &&
            !(opts->takes & TOOL_TAKES(opt))) {
            const char *name = "?";
            for (const struct option *o = options; o->name; o++)
                if (o->val == opt)
                    name = o->name;
            return -tool_fail("%s: --%s does not apply to this command (see nandkit %s --help)",
                              command, name, command);
        }
        if (opts->reads_only && (opt == TOOL_OPT_POWER_CUT || opt == TOOL_OPT_FORCE))
            return -tool_fail("%s: %s does not apply: %s only reads the image (see nandkit %s "
                              "--help)",
                              command, opt == TOOL_OPT_POWER_CUT ? "--power-cut-after" : "--force",
                              command, command);
        int handled = tool_image_option(opts, opt, optarg);
        if (handled == 2)
            return -2;
        if (!handled)
            return opt;
    }
}

static bool tool_power_of_two(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* Parses "PAGE,OOB,PPB[,BLOCKS]" into the chip info (blocks 0 = unknown). */
static int tool_parse_geometry(const char *text, struct nk_chip_info *info)
{
    uint64_t values[4] = {0, 0, 0, 0};
    unsigned n = 0;
    const char *p = text;
    while (*p && n < 4) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || errno || (*end && *end != ','))
            return tool_fail("bad --geometry '%s': expected PAGE,OOB,PAGES_PER_BLOCK[,BLOCKS]",
                             text);
        values[n++] = v;
        p = *end ? end + 1 : end;
    }
    if (*p || n < 3 || p[-1] == ',') /* a trailing comma is a missing value */
        return tool_fail("bad --geometry '%s': expected PAGE,OOB,PAGES_PER_BLOCK[,BLOCKS]", text);
    if (!tool_power_of_two(values[0]) || values[0] < 256 || values[0] > 65536)
        return tool_fail("bad --geometry page size %llu: a power of two from 256 to 65536",
                         (unsigned long long)values[0]);
    if (values[1] == 0 || values[1] > 4096 || values[1] >= values[0])
        return tool_fail("bad --geometry OOB size %llu: 1 to 4096 and below the page size",
                         (unsigned long long)values[1]);
    if (!tool_power_of_two(values[2]) || values[2] > 4096)
        return tool_fail("bad --geometry pages per block %llu: a power of two up to 4096",
                         (unsigned long long)values[2]);
    if (n == 4 && (values[3] == 0 || values[3] > (1u << 24)))
        return tool_fail("bad --geometry block count %llu: 1 to 16777216",
                         (unsigned long long)values[3]);
    info->page_size = (uint32_t)values[0];
    info->oob_size = (uint32_t)values[1];
    info->pages_per_block = (uint32_t)values[2];
    info->blocks = (uint32_t)values[3];
    return 0;
}

static uint8_t tool_cycles_for(uint64_t count)
{
    uint8_t cycles = 1;
    while (count > 256) {
        count = (count + 255) / 256;
        cycles++;
    }
    return cycles;
}

/* No --chip, no --geometry: the sidecar's part (0 or minus an exit status),
 * or for a reader the geometry detected from the image into `geometry`
 * (returns 1). */
static int tool_geometry_from_image(const struct tool_image_opts *opts,
                                    struct nk_sim_params *params, char *geometry, size_t size)
{
    const char *shown = opts->name ? opts->name : opts->path;
    if (opts->path && !opts->create && access(opts->path, F_OK) != 0 && errno == ENOENT)
        return -tool_not_found("cannot open image '%s': %s", shown, strerror(ENOENT));
    char sidecar[4096];
    if (opts->path && !opts->no_sidecar &&
        nk_sim_sidecar_path(opts->path, sidecar, sizeof sidecar) && access(sidecar, F_OK) == 0) {
        struct nk_diag why[1] = {{""}};
        if (nk_sim_sidecar_part(opts->path, params, why) != 0)
            return -tool_fail("%s: %s", shown, why->text[0] ? why->text : "unreadable sidecar");
        return 0;
    }
    struct tool_geometry g;
    bool found =
        opts->path && !opts->create && tool_detect_geometry(opts->path, opts->layout, &g) == 0;
    if (found && opts->read_only) {
        snprintf(geometry, size, "%u,%u,%u,%u", g.page_size, g.oob_size, g.pages_per_block,
                 g.blocks);
        fprintf(stderr,
                "nandkit: %s: no --geometry or --chip: detected %u+%u-byte pages, %u pages "
                "per block, %u block%s from its %s-layout tags (--geometry %s)\n",
                shown, g.page_size, g.oob_size, g.pages_per_block, g.blocks,
                g.blocks == 1 ? "" : "s", nk_fs_layout_name(opts->layout), geometry);
        return 1;
    }
    if (found)
        return -tool_fail("%s has no sidecar to say its geometry; its tags look like "
                          "--geometry %u,%u,%u: give that (or --chip NAME) to write it",
                          shown, g.page_size, g.oob_size, g.pages_per_block);
    return -tool_fail("%s needs --geometry PAGE,OOB,PAGES_PER_BLOCK[,BLOCKS] or --chip NAME%s",
                      shown ? shown : "this command",
                      opts->path && !opts->create
                          ? " (it has no sidecar, and no YAFFS2 tags where its --layout puts them)"
                          : "");
}

int tool_params_from_opts(const struct tool_image_opts *opts, struct nk_sim_params *params)
{
    const char *shown = opts->name ? opts->name : opts->path;
    memset(params, 0, sizeof *params);
    if (opts->chip) {
        if (nk_sim_preset(opts->chip, params) != 0)
            return tool_fail("unknown chip '%s' (run `nandkit sim list` for the presets)",
                             opts->chip);
        if (opts->geometry)
            return tool_fail("give --chip or --geometry, not both");
        return 0;
    }
    char detected[96];
    const char *geometry = opts->geometry;
    if (!geometry) {
        int status = tool_geometry_from_image(opts, params, detected, sizeof detected);
        if (status <= 0)
            return -status;
        geometry = detected;
    }

    /* An explicit geometry borrows the K9F1G08U0A's timing and ID. */
    if (nk_sim_preset("K9F1G08U0A", params) != 0)
        return tool_error("internal: K9F1G08U0A preset missing");
    struct nk_chip_info *info = &params->chip;
    int status = tool_parse_geometry(geometry, info);
    if (status)
        return status;
    uint64_t page_bytes = (uint64_t)info->page_size + info->oob_size;
    uint64_t block_bytes = page_bytes * info->pages_per_block;
    if (opts->path && !opts->create) {
        struct stat st;
        if (stat(opts->path, &st) != 0)
            return errno == ENOENT
                       ? tool_not_found("cannot open image '%s': %s", shown, strerror(errno))
                       : tool_fail("cannot open image '%s': %s", shown, strerror(errno));
        if (st.st_size == 0 && info->blocks == 0)
            return tool_fail("image '%s' is empty (a fresh sparse image): give the block "
                             "count, --geometry %s,BLOCKS, or --chip NAME",
                             shown, geometry);
        if ((uint64_t)st.st_size % page_bytes != 0)
            return tool_fail("image '%s' is %llu bytes, not a multiple of the %llu-byte "
                             "page+OOB size of --geometry %s (wrong geometry?)",
                             shown, (unsigned long long)st.st_size, (unsigned long long)page_bytes,
                             geometry);
        uint64_t blocks = ((uint64_t)st.st_size + block_bytes - 1) / block_bytes;
        if (info->blocks == 0)
            info->blocks = (uint32_t)blocks;
        else if (blocks > info->blocks)
            return tool_fail("image '%s' holds %llu blocks, more than the %u of --geometry %s",
                             shown, (unsigned long long)blocks, info->blocks, geometry);
    }
    if (info->blocks == 0)
        return tool_fail("--geometry %s needs a block count here (PAGE,OOB,PPB,BLOCKS)", geometry);
    info->col_cycles = tool_cycles_for(page_bytes);
    info->row_cycles = tool_cycles_for((uint64_t)info->blocks * info->pages_per_block);
    if (info->page_size <= 512) {
        info->features = NK_CHIP_SMALL_PAGE;
        info->col_cycles = 1;
        info->bbm_offset = 5;
    } else {
        info->features = NK_CHIP_RANDOM_OUT | NK_CHIP_CACHE_PROGRAM;
        info->bbm_offset = 0;
    }
    info->bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE;
    nk_format(info->vendor, sizeof info->vendor, "generic");
    nk_format(info->model, sizeof info->model, "%ux%u+%u", info->blocks * info->pages_per_block,
              info->page_size, info->oob_size);
    params->onfi = false;
    params->jedec = false;
    return 0;
}

/* The engine --ecc names on this chip: a software engine by name, or the
 * chip's on-die engine, or the simulated controller's Hamming engine. */
static int tool_named_ecc(struct tool_image *image, const char *name)
{
    const struct nk_chip_info *info = &image->params.chip;
    if (strcmp(name, "on-die") == 0) {
        if (!(info->features & NK_CHIP_ON_DIE_ECC))
            return tool_fail("--ecc on-die: %s has no on-die ECC", info->model);
        nk_ecc_on_die_init(&image->ecc, info->ecc_step ? info->ecc_step : 512u,
                           info->ecc_strength ? info->ecc_strength : 4u);
        return 0;
    }
    if (strcmp(name, "hw") == 0) {
        const struct nk_ctrl *ctrl = nk_sim_ctrl_hw_ecc(image->sim, 512);
        if (!ctrl || nk_ecc_hw_init(&image->ecc, ctrl) != 0)
            return tool_fail("--ecc hw: the simulated controller has no ECC engine here");
        return 0;
    }
    int status = tool_ecc_by_name(&image->ecc_named, name, "--ecc");
    if (status)
        return status;
    image->ecc = image->ecc_named.engine;
    return 0;
}

/* ECC engine and OOB layout: --ecc's engine with Linux's default OOB layout
 * for it, mkyaffs2's fixed mapping, or (no --ecc) none at all here: the
 * device then picks the engine the chip requires and Linux's layout for
 * it. An engine weaker than the chip requires is refused naming both. */
static int tool_setup_layout(struct tool_image *image, const struct tool_image_opts *opts,
                             bool *chosen_by_device)
{
    const struct nk_chip_info *info = &image->params.chip;
    *chosen_by_device = false;
    if (image->layout == NK_FS_LAYOUT_MKYAFFS2) {
        if (opts->ecc && strcmp(opts->ecc, "none") != 0)
            return tool_fail("--ecc %s: the mkyaffs2 layout has no data ECC (its tags take "
                             "OOB bytes 0-27); use --layout linux or inband",
                             opts->ecc);
        if (nk_fs_layout_device(image->layout, info->page_size, info->oob_size, &image->ecc,
                                &image->oob_layout) != 0)
            return tool_fail("--layout mkyaffs2 does not fit a %u+%u page", info->page_size,
                             info->oob_size);
        return 0;
    }
    if (!opts->ecc) {
        *chosen_by_device = true;
        return 0;
    }
    int status = tool_named_ecc(image, opts->ecc);
    if (status)
        return status;
    if (image->ecc.placement == NK_ECC_PLACEMENT_NONE || image->ecc.step_size == 0 ||
        info->page_size % image->ecc.step_size == 0) {
        if (nk_oob_layout_default(&image->oob_layout, info->page_size, info->oob_size,
                                  &image->ecc) == 0)
            status = 0;
        else
            status = -1;
    } else {
        status = -1;
    }
    if (status)
        return tool_fail("--ecc %s does not fit a %u+%u page: %u code bytes per %u-byte step "
                         "and Linux's OOB layout has no room for them",
                         opts->ecc, info->page_size, info->oob_size,
                         (unsigned)image->ecc.bytes_per_step, (unsigned)image->ecc.step_size);
    bool weaker = image->ecc.placement == NK_ECC_PLACEMENT_NONE
                      ? info->ecc_strength != 0
                      : !nk_nand_ecc_meets_requirement(&image->ecc, info);
    if (!opts->force_ecc && weaker) {
        char have[64];
        if (image->ecc.placement == NK_ECC_PLACEMENT_NONE)
            snprintf(have, sizeof have, "no ECC");
        else
            snprintf(have, sizeof have, "'%s', %u bit(s) per %u bytes", image->ecc.name,
                     (unsigned)image->ecc.strength, (unsigned)image->ecc.step_size);
        return tool_fail("--ecc %s (%s) is weaker than the %u bit(s) per %u bytes %s "
                         "requires: give --force-ecc to use it anyway",
                         opts->ecc, have, info->ecc_strength,
                         info->ecc_step ? info->ecc_step : 512u, info->model);
    }
    return 0;
}

int tool_image_open(struct tool_image *image, const struct tool_image_opts *opts)
{
    memset(image, 0, sizeof *image);
    image->layout = opts->layout;
    if (tool_path_is_mtd(opts->path) && opts->ecc)
        return tool_fail("--ecc %s: %s uses the kernel's ECC engine and layout (--mtd-ecc "
                         "nandkit reads raw with its twin); --ecc is for image files",
                         opts->ecc, opts->path);
    if (opts->mtd_ecc_given && !tool_path_is_mtd(opts->path))
        return tool_fail("--mtd-ecc does not apply to %s: it chooses the ECC of /dev/mtdN "
                         "(give --ecc for an image file)",
                         opts->path ? opts->path : "a simulated chip");
    if (tool_path_is_mtd(opts->path) && opts->bit_error_rate > 0.0)
        return tool_fail("--bit-error-rate is for simulated chips, not %s", opts->path);
    /* Readers share the image, a writer has it alone, until the command ends. */
    int status = tool_lock(opts->path, !opts->read_only);
    if (status)
        return status;
    if (tool_path_is_mtd(opts->path))
        return tool_image_open_mtd(image, opts);
    struct stat st;
    if (opts->path && stat(opts->path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
        return tool_fail("%s is a %s device, not an MTD one: nandkit works on image files and "
                         "on /dev/mtdN (the MTD character devices)",
                         opts->path, S_ISCHR(st.st_mode) ? "character" : "block");
    status = tool_params_from_opts(opts, &image->params);
    if (status)
        return status;
    /* A symlink to the image: its sidecar is the one beside the image. */
    struct stat link;
    char *real_path = opts->path && lstat(opts->path, &link) == 0 && S_ISLNK(link.st_mode)
                          ? realpath(opts->path, NULL)
                          : NULL;

    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &image->params;
    config.image_path = real_path ? real_path : opts->path;
    config.read_only = opts->read_only;
    config.seed = opts->seed;
    config.factory_bad_blocks = 0;
    config.no_sidecar = opts->no_sidecar;
    config.write_through = opts->write_through;
    struct nk_diag why[1] = {{""}};
    int err = nk_sim_open(&image->sim, &config, why);
    free(real_path);
    if (err)
        return tool_fail("%s", why->text[0] ? why->text : nk_strerror(err));
    if (opts->bit_error_rate > 0.0) {
        struct nk_sim_faults faults;
        nk_sim_faults_get(image->sim, &faults);
        faults.raw_bit_error_rate = opts->bit_error_rate;
        nk_sim_faults_set(image->sim, &faults);
    }
    image->power_cut_after = opts->power_cut_after;
    if (opts->power_cut_after >= 0)
        nk_sim_power_cut_after(image->sim, (uint64_t)opts->power_cut_after);

    bool chosen_by_device = false;
    status = tool_setup_layout(image, opts, &chosen_by_device);
    if (status) {
        tool_image_close(image);
        return status;
    }
    size_t workspace_size = chosen_by_device ? nk_nand_default_workspace_size(&image->params.chip)
                                             : nk_nand_workspace_size(&image->params.chip);
    image->workspace = malloc(workspace_size);
    struct nk_nand_config nand_config;
    memset(&nand_config, 0, sizeof nand_config);
    nand_config.ctrl = image->ecc.placement == NK_ECC_PLACEMENT_CONTROLLER
                           ? image->ecc.ctrl
                           : nk_sim_ctrl(image->sim);
    nand_config.chip = &image->params.chip;
    nand_config.ecc = chosen_by_device ? NULL : &image->ecc;
    nand_config.layout = chosen_by_device ? NULL : &image->oob_layout;
    nand_config.workspace = image->workspace;
    nand_config.workspace_size = workspace_size;
    nand_config.clock = nk_sim_clock(image->sim);
    nand_config.read_only = opts->read_only;
    nand_config.force_ecc = opts->force_ecc;
    err = nk_nand_open(&image->nand, &nand_config);
    if (!err && chosen_by_device) {
        image->ecc = image->nand.ecc;
        image->oob_layout = image->nand.layout;
    }
    if (!err)
        err = nk_part_init(&image->part, &image->nand, "image", 0, 0,
                           opts->read_only ? NK_PART_READ_ONLY : 0);
    if (err) {
        int code =
            tool_fail("%s", image->nand.diag.text[0] ? image->nand.diag.text : nk_strerror(err));
        tool_image_close(image);
        return code;
    }
    return 0;
}

int tool_image_check_tags(const struct tool_image *image)
{
    unsigned need = nk_fs_layout_oob_bytes(image->layout);
    unsigned have = nk_part_free_oob_bytes(&image->part);
    if (need <= have)
        return 0;
    const struct nk_ecc_engine *ecc = nk_nand_ecc(&image->nand);
    return tool_fail("--layout %s needs %u free OOB bytes per page for the YAFFS2 tags, but "
                     "ECC '%s' in Linux's layout leaves %u of the %u-byte OOB: use --layout "
                     "inband (tags in the page data, covered by the ECC)",
                     nk_fs_layout_name(image->layout), need, ecc->name ? ecc->name : "none", have,
                     nk_nand_oob_size(&image->nand));
}

const char *tool_image_error(struct tool_image *image, int err)
{
    if (image->sim && !nk_sim_powered(image->sim)) {
        snprintf(image->why, sizeof image->why,
                 "power cut at flash operation %lld, as --power-cut-after asked: the image "
                 "holds what the chip would",
                 (long long)image->power_cut_after);
        return image->why;
    }
    if (image->nand.diag.text[0])
        return image->nand.diag.text;
    return nk_strerror(err);
}

void tool_image_close(struct tool_image *image)
{
    tool_image_close_mtd(image);
    if (image->sim)
        nk_sim_close(image->sim);
    free(image->workspace);
    tool_ecc_free(&image->ecc_named);
    image->sim = NULL;
    image->workspace = NULL;
}

int tool_image_check_sidecar(const char *path, const struct nk_sim_params *params,
                             bool *has_sidecar)
{
    char sidecar[4096];
    *has_sidecar = false;
    if (!path || !nk_sim_sidecar_path(path, sidecar, sizeof sidecar) || access(sidecar, F_OK) != 0)
        return 0;
    *has_sidecar = true;
    struct nk_sim_params side;
    struct nk_diag why[1] = {{""}};
    if (nk_sim_sidecar_part(path, &side, why) != 0)
        return tool_fail("%s", why->text[0] ? why->text : "unreadable sidecar");
    const struct nk_chip_info *a = &params->chip, *b = &side.chip;
    if (a->page_size == b->page_size && a->oob_size == b->oob_size &&
        a->pages_per_block == b->pages_per_block && a->blocks == b->blocks)
        return 0;
    return tool_fail("the geometry given (%u+%u bytes x %u pages x %u blocks) disagrees with "
                     "%s, whose sidecar %s describes %u+%u x %u x %u: nothing written",
                     a->page_size, a->oob_size, a->pages_per_block, a->blocks, path, sidecar,
                     b->page_size, b->oob_size, b->pages_per_block, b->blocks);
}

void tool_hexdump(FILE *out, const uint8_t *data, uint32_t len, uint32_t base)
{
    for (uint32_t row = 0; row < len; row += 16) {
        fprintf(out, "%06x ", base + row);
        for (uint32_t i = 0; i < 16; i++) {
            if (row + i < len)
                fprintf(out, " %02x", data[row + i]);
            else
                fputs("   ", out);
        }
        fputs("  |", out);
        for (uint32_t i = 0; i < 16 && row + i < len; i++) {
            uint8_t c = data[row + i];
            fputc(c >= 0x20 && c < 0x7f ? c : '.', out);
        }
        fputs("|\n", out);
    }
}
