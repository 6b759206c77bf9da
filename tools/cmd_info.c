/* SPDX-License-Identifier: MIT */
/* nandkit info: what a chip or image is (identification, geometry, timing). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "flashio.h"
#include "image.h"
#include "nandkit/bbt.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "tool.h"

static void tool_info_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit info --chip NAME [--json]\n"
            "       nandkit info IMAGE [--geometry P,O,N[,B] | --chip NAME] [--json]\n"
            "       nandkit info /dev/mtdN [--json]\n\n"
            "Identifies a simulated chip through the controller interface (RESET, READ ID,\n"
            "ONFI/JEDEC parameter page or the legacy ID table) and prints its geometry, IDs,\n"
            "ONFI data, timings and factory-bad blocks. With IMAGE and --geometry, reports\n"
            "only what the file says: geometry, how much of it is present or erased, bad-block\n"
            "markers, bad-block tables and a guess at the YAFFS2 layout (no ID or timing: an\n"
            "image carries none). IMAGE with --chip describes it as that preset. Only reads.\n\n"
            "Options:\n" TOOL_IMAGE_HELP_READ
            "  --json                  machine-readable output\n");
}

static const struct {
    uint32_t bit;
    const char *name;
} tool_feature_names[] = {
    {NK_CHIP_ONFI, "onfi"},
    {NK_CHIP_JEDEC, "jedec"},
    {NK_CHIP_SMALL_PAGE, "small-page"},
    {NK_CHIP_CACHE_PROGRAM, "cache-program"},
    {NK_CHIP_GET_SET_FEATURES, "get-set-features"},
    {NK_CHIP_ON_DIE_ECC, "on-die-ecc"},
    {NK_CHIP_RANDOM_OUT, "random-data-out"},
    {NK_CHIP_BUS16, "x16"},
};

/* Prints the names of the feature bits, each wrapped in `quote`. */
static void tool_info_features(uint32_t features, const char *sep, const char *quote)
{
    bool first = true;
    for (size_t i = 0; i < sizeof tool_feature_names / sizeof tool_feature_names[0]; i++) {
        if (features & tool_feature_names[i].bit) {
            printf("%s%s%s%s", first ? "" : sep, quote, tool_feature_names[i].name, quote);
            first = false;
        }
    }
}

/* The datasheet limits the eCos library's benchmark used (ecos-devel, 2009), in ns. */
static void tool_info_limits(const struct nk_chip_info *info, double limits[3])
{
    const struct nk_chip_timing *t = &info->timing;
    unsigned cycles = 2u + info->col_cycles + info->row_cycles;
    uint32_t bytes = info->page_size + info->oob_size;
    limits[0] = t->tR_ns + (double)(cycles + bytes) * t->tRC_ns;
    limits[1] = (double)(cycles + bytes) * t->tWC_ns + t->tPROG_ns;
    limits[2] = t->tBERS_ns + (double)(2u + info->row_cycles) * t->tWC_ns;
}

/* Bad blocks as the BBT says (read in a dry run: nothing is written), or as
 * the factory markers say when there is no table. */
static int tool_info_count_bad(struct nk_nand *nand, uint32_t *bad)
{
    *bad = 0;
    if (nk_nand_blocks(nand) <= NK_BBT_MAX_BLOCKS) {
        /* No room for a table: the factory markers are all there is. */
        for (uint32_t b = 0; b < nk_nand_blocks(nand); b++) {
            int state = nk_nand_block_is_bad(nand, b);
            if (state < 0)
                return state;
            *bad += (uint32_t)state;
        }
        return 0;
    }
    struct nk_bbt bbt;
    memset(&bbt, 0, sizeof bbt);
    struct nk_bbt_config config;
    memset(&config, 0, sizeof config);
    config.dry_run = true;
    config.memory_size = nk_bbt_memory_size(nand);
    config.memory = malloc(config.memory_size);
    if (!config.memory)
        return -NK_ENOMEM;
    int err = nk_bbt_attach(nand, &bbt, &config);
    if (!err) {
        *bad = bbt.info.factory_bad + bbt.info.worn;
        nk_bbt_detach(nand);
    }
    free(config.memory);
    return err;
}

static void tool_info_print_text(const struct nk_chip_info *info, uint32_t bad)
{
    const struct nk_chip_timing *t = &info->timing;
    uint64_t size = (uint64_t)info->page_size * info->pages_per_block * info->blocks;
    printf("chip          %s %s\n", info->vendor, info->model);
    printf("id            ");
    for (unsigned i = 0; i < info->id_len; i++)
        printf("%s%02x", i ? " " : "", info->id[i]);
    printf("\n");
    if (info->onfi_version)
        printf("onfi          %u.%u\n", info->onfi_version / 10, info->onfi_version % 10);
    else
        printf("onfi          no\n");
    printf("geometry      %u + %u bytes/page, %u pages/block, %u blocks, %u LUN(s)\n",
           info->page_size, info->oob_size, info->pages_per_block, info->blocks,
           info->luns ? info->luns : 1);
    printf("size          %llu MiB data + %llu KiB OOB\n", (unsigned long long)(size >> 20),
           (unsigned long long)((uint64_t)info->oob_size * info->pages_per_block * info->blocks >>
                                10));
    printf("addressing    %u column + %u row cycles, %s, %u bit(s)/cell, NOP %u\n",
           info->col_cycles, info->row_cycles, info->features & NK_CHIP_BUS16 ? "x16" : "x8",
           info->bits_per_cell, info->nop);
    if (info->ecc_strength)
        printf("ecc required  %u bit(s) per %u bytes\n", info->ecc_strength, info->ecc_step);
    else
        printf("ecc required  not stated\n");
    char ecc_name[16];
    printf("ecc default   %s (the engine the device picks when none is given)\n",
           nk_nand_default_ecc_name(info, ecc_name, sizeof ecc_name));
    const char *pages = "page 0";
    if ((info->bbm_pages & NK_BBM_SECOND_PAGE) && (info->bbm_pages & NK_BBM_LAST_PAGE))
        pages = "pages 0, 1 and the last";
    else if (info->bbm_pages & NK_BBM_SECOND_PAGE)
        pages = "pages 0 and 1";
    else if (info->bbm_pages == NK_BBM_LAST_PAGE)
        pages = "the last page";
    printf("bad blocks    %u found; factory marker at OOB byte %u of %s\n", bad, info->bbm_offset,
           pages);
    if (info->max_bad_blocks)
        printf("              datasheet allows up to %u\n", info->max_bad_blocks);
    printf("timing        tR %.1f us, tPROG %.1f us, tBERS %.1f us, tCBSY %.1f us, tRST %.1f us\n",
           t->tR_ns / 1e3, t->tPROG_ns / 1e3, t->tBERS_ns / 1e3, t->tCBSY_ns / 1e3,
           t->tRST_ns / 1e3);
    printf("              tRC %u ns, tWC %u ns, tADL %u ns, tWB %u ns, tWHR %u ns, tCCS %u ns\n",
           t->tRC_ns, t->tWC_ns, t->tADL_ns, t->tWB_ns, t->tWHR_ns, t->tCCS_ns);
    printf("              max: tR %.1f us, tPROG %.1f us, tBERS %.1f us\n", t->tR_max_ns / 1e3,
           t->tPROG_max_ns / 1e3, t->tBERS_max_ns / 1e3);
    double limits[3];
    tool_info_limits(info, limits);
    printf("limit         page read %.1f us, page program %.1f us, block erase %.1f us\n",
           limits[0] / 1e3, limits[1] / 1e3, limits[2] / 1e3);
    printf("features      ");
    tool_info_features(info->features, ", ", "");
    printf("\n");
}

static void tool_info_print_json(const struct nk_chip_info *info, uint32_t bad)
{
    const struct nk_chip_timing *t = &info->timing;
    double limits[3];
    tool_info_limits(info, limits);
    printf("{\"vendor\":\"%s\",\"model\":\"%s\",\"id\":\"", info->vendor, info->model);
    for (unsigned i = 0; i < info->id_len; i++)
        printf("%02x", info->id[i]);
    printf("\",\"onfi_version\":%u,\"page_size\":%u,\"oob_size\":%u,\"pages_per_block\":%u,"
           "\"blocks\":%u,\"luns\":%u,\"col_cycles\":%u,\"row_cycles\":%u,\"bits_per_cell\":%u,"
           "\"nop\":%u,\"ecc_strength\":%u,\"ecc_step\":%u,\"bad_blocks\":%u,"
           "\"bbm_offset\":%u,\"bbm_pages\":%u,",
           info->onfi_version, info->page_size, info->oob_size, info->pages_per_block, info->blocks,
           info->luns, info->col_cycles, info->row_cycles, info->bits_per_cell, info->nop,
           info->ecc_strength, info->ecc_step, bad, info->bbm_offset, info->bbm_pages);
    printf("\"timing_ns\":{\"tR\":%u,\"tPROG\":%u,\"tBERS\":%u,\"tCBSY\":%u,\"tRST\":%u,\"tRC\":%u,"
           "\"tWC\":%u,\"tADL\":%u,\"tWB\":%u,\"tWHR\":%u,\"tCCS\":%u},",
           t->tR_ns, t->tPROG_ns, t->tBERS_ns, t->tCBSY_ns, t->tRST_ns, t->tRC_ns, t->tWC_ns,
           t->tADL_ns, t->tWB_ns, t->tWHR_ns, t->tCCS_ns);
    printf("\"limit_us\":{\"page_read\":%.2f,\"page_program\":%.2f,\"block_erase\":%.2f},",
           limits[0] / 1e3, limits[1] / 1e3, limits[2] / 1e3);
    printf("\"features\":[");
    tool_info_features(info->features, ",", "\"");
    printf("]}\n");
}

/* ----- an image without --chip: what the file itself says ------------------ */

/* Reads a little-endian u32. */
static uint32_t tool_info_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* YAFFS2 packed tags: a block sequence number in range, an object id below
 * 2^18 (the top 4 bits may carry the type of a header), and either a data
 * chunk of at most a page or a header (chunk id bit 31). Random data passes
 * about once in a thousand pages. */
static bool tool_info_tags_at(const uint8_t *p, uint32_t page_size)
{
    uint32_t seq = tool_info_le32(p), obj = tool_info_le32(p + 4) & 0x0fffffffu;
    uint32_t chunk = tool_info_le32(p + 8), bytes = tool_info_le32(p + 12);
    if (seq < NK_FS_SEQ_LOWEST || seq > NK_FS_SEQ_HIGHEST || obj == 0 || obj >= (1u << 18))
        return false;
    return (chunk & 0x80000000u) || bytes <= page_size;
}

struct tool_info_scan {
    uint32_t present_blocks; /* blocks the file holds */
    uint32_t erased_blocks;  /* of those, first page all 0xFF */
    uint32_t marked_bad;     /* non-0xFF marker byte in a marker page */
    uint32_t first_marked[8];
    uint32_t sampled; /* programmed first pages looked at */
    uint32_t tags_linux, tags_mkyaffs2, tags_inband;
    int bbt_main, bbt_mirror; /* block of "Bbt0" / "1tbB", -1 none */
    uint8_t bbt_main_version, bbt_mirror_version;
};

static int tool_info_scan_image(struct nk_nand *nand, uint64_t file_size,
                                struct tool_info_scan *scan)
{
    const struct nk_chip_info *info = &nand->chip.info;
    uint32_t page_size = info->page_size, oob_size = info->oob_size, ppb = info->pages_per_block;
    uint64_t block_bytes = (uint64_t)(page_size + oob_size) * ppb;
    memset(scan, 0, sizeof *scan);
    scan->bbt_main = scan->bbt_mirror = -1;
    scan->present_blocks = (uint32_t)((file_size + block_bytes - 1) / block_bytes);
    if (scan->present_blocks > info->blocks)
        scan->present_blocks = info->blocks;
    uint8_t *data = malloc(page_size), *oob = malloc(oob_size);
    int err = 0;
    /* Every block, also past the file's end: a sidecar may know bad blocks there. */
    for (uint32_t b = 0; b < info->blocks && !err; b++) {
        err = nk_nand_read_page(nand, b * ppb, data, oob, NK_OOB_RAW);
        if (err < 0)
            break;
        err = 0;
        bool erased = true;
        for (uint32_t i = 0; i < page_size && erased; i++)
            erased = data[i] == 0xff;
        for (uint32_t i = 0; i < oob_size && erased; i++)
            erased = oob[i] == 0xff;
        if (erased) {
            scan->erased_blocks++;
            continue;
        }
        uint8_t marker2 = 0xff;
        if (info->bbm_pages & NK_BBM_SECOND_PAGE)
            nk_nand_read_raw_bytes(nand, b * ppb + 1, page_size + info->bbm_offset, &marker2, 1);
        if (oob[info->bbm_offset] != 0xff || marker2 != 0xff) {
            if (scan->marked_bad < 8)
                scan->first_marked[scan->marked_bad] = b;
            scan->marked_bad++;
        }
        if (oob_size >= 12 && memcmp(oob + 8, "Bbt0", 4) == 0) {
            scan->bbt_main = (int)b;
            scan->bbt_main_version = oob[12];
            continue;
        }
        if (oob_size >= 12 && memcmp(oob + 8, "1tbB", 4) == 0) {
            scan->bbt_mirror = (int)b;
            scan->bbt_mirror_version = oob[12];
            continue;
        }
        scan->sampled++;
        if (oob_size >= 18 && tool_info_tags_at(oob + 2, page_size))
            scan->tags_linux++;
        if (oob_size >= 16 && tool_info_tags_at(oob, page_size))
            scan->tags_mkyaffs2++;
        if (tool_info_tags_at(data + page_size - 16, page_size))
            scan->tags_inband++;
    }
    free(data);
    free(oob);
    return err;
}

static const char *tool_info_layout_guess(const struct tool_info_scan *scan, uint32_t *hits)
{
    *hits = 0;
    if (!scan->sampled)
        return NULL;
    const char *name = NULL;
    if (scan->tags_linux > *hits) {
        *hits = scan->tags_linux;
        name = nk_fs_layout_name(NK_FS_LAYOUT_LINUX);
    }
    if (scan->tags_mkyaffs2 > *hits) {
        *hits = scan->tags_mkyaffs2;
        name = nk_fs_layout_name(NK_FS_LAYOUT_MKYAFFS2);
    }
    if (scan->tags_inband > *hits) {
        *hits = scan->tags_inband;
        name = nk_fs_layout_name(NK_FS_LAYOUT_INBAND);
    }
    return *hits * 2 > scan->sampled ? name : NULL;
}

/* What `info IMAGE --geometry` found, for its report. */
struct tool_info_image_report {
    const char *path;
    uint64_t file_size, chip_bytes;
    struct nk_chip_info info;
    struct tool_info_scan scan;
    const char *layout; /* the layout guess, or NULL */
    uint32_t hits;      /* first pages with that layout's tags */
    const char *marker_pages;
    bool markers_meaningless;
};

static void tool_info_image_json(const struct tool_info_image_report *r)
{
    printf("{\"image\":\"%s\",\"bytes\":%llu,\"chip_bytes\":%llu,\"page_size\":%u,"
           "\"oob_size\":%u,\"pages_per_block\":%u,\"blocks\":%u,\"blocks_present\":%u,"
           "\"blocks_erased\":%u,\"identified\":false,\"bbm_offset\":%u,"
           "\"marked_bad\":%u,\"markers_meaningful\":%s,\"bbt_main_block\":%d,"
           "\"bbt_mirror_block\":%d,\"layout_guess\":",
           r->path, (unsigned long long)r->file_size, (unsigned long long)r->chip_bytes,
           r->info.page_size, r->info.oob_size, r->info.pages_per_block, r->info.blocks,
           r->scan.present_blocks, r->scan.erased_blocks, r->info.bbm_offset, r->scan.marked_bad,
           r->markers_meaningless ? "false" : "true", r->scan.bbt_main, r->scan.bbt_mirror);
    if (r->layout)
        printf("\"%s\"", r->layout);
    else
        printf("null");
    printf(",\"pages_sampled\":%u,\"pages_with_tags\":%u}\n", r->scan.sampled, r->hits);
}

static void tool_info_image_text(const struct tool_info_image_report *r)
{
    printf("image         %s: %llu bytes, %u of %u blocks present%s\n", r->path,
           (unsigned long long)r->file_size, r->scan.present_blocks, r->info.blocks,
           r->file_size < r->chip_bytes ? " (the rest reads as erased)" : "");
    printf("geometry      %u + %u bytes/page, %u pages/block, %u blocks (as --geometry says)\n",
           r->info.page_size, r->info.oob_size, r->info.pages_per_block, r->info.blocks);
    printf("chip          not identified: an image file carries no ID, parameter page or timing "
           "(--chip NAME adds a preset's)\n");
    printf("erased        %u of the %u blocks\n", r->scan.erased_blocks, r->info.blocks);
    printf("bad blocks    %u found (a non-0xFF byte at OOB %u of %s)", r->scan.marked_bad,
           r->info.bbm_offset, r->marker_pages);
    for (uint32_t i = 0; i < r->scan.marked_bad && i < 8; i++)
        printf("%s%u", i ? ", " : ": ", r->scan.first_marked[i]);
    printf("%s\n", r->scan.marked_bad > 8 ? ", ..." : "");
    if (r->markers_meaningless)
        printf("              (the mkyaffs2 layout keeps tags at OOB 0: these are not bad-block "
               "markers)\n");
    printf("bbt           ");
    if (r->scan.bbt_main >= 0 || r->scan.bbt_mirror >= 0) {
        if (r->scan.bbt_main >= 0)
            printf("main \"Bbt0\" in block %d (version %u)", r->scan.bbt_main,
                   r->scan.bbt_main_version);
        if (r->scan.bbt_mirror >= 0)
            printf("%smirror \"1tbB\" in block %d (version %u)", r->scan.bbt_main >= 0 ? ", " : "",
                   r->scan.bbt_mirror, r->scan.bbt_mirror_version);
        printf("\n");
    } else {
        printf("none found\n");
    }
    if (r->layout)
        printf("layout guess  %s (YAFFS2 tags found in %u of %u programmed blocks' first pages)\n",
               r->layout, r->hits, r->scan.sampled);
    else if (r->scan.sampled)
        printf("layout guess  none: no YAFFS2 tags in most of the %u programmed blocks' first "
               "pages (raw data?)\n",
               r->scan.sampled);
    else
        printf("layout guess  none: nothing programmed\n");
}

/* `info IMAGE --geometry`: geometry, fill, markers, tables, a layout guess;
 * no ID, ONFI data or timing, which an image file does not carry. */
static int tool_info_image_only(struct tool_image_opts *opts, bool json)
{
    struct tool_image image;
    int status = tool_flash_open(&image, opts, json);
    if (status)
        return status;
    struct tool_info_image_report r;
    memset(&r, 0, sizeof r);
    r.path = opts->path;
    struct stat st;
    r.file_size = stat(opts->path, &st) == 0 ? (uint64_t)st.st_size : 0;
    int err = tool_info_scan_image(&image.nand, r.file_size, &r.scan);
    r.info = image.nand.chip.info;
    tool_image_close(&image);
    if (err)
        return tool_error("reading %s failed: %s", opts->path, nk_strerror(err));
    r.layout = tool_info_layout_guess(&r.scan, &r.hits);
    r.chip_bytes =
        (uint64_t)(r.info.page_size + r.info.oob_size) * r.info.pages_per_block * r.info.blocks;
    r.marker_pages = r.info.bbm_pages & NK_BBM_SECOND_PAGE ? "pages 0 and 1" : "page 0";
    r.markers_meaningless =
        r.layout && strcmp(r.layout, nk_fs_layout_name(NK_FS_LAYOUT_MKYAFFS2)) == 0;
    if (json)
        tool_info_image_json(&r);
    else
        tool_info_image_text(&r);
    return 0;
}

/* Fills `opts` and `json`. Returns 0, or the exit status after a report. */
static int tool_info_parse(int argc, char **argv, struct tool_image_opts *opts, bool *json)
{
    static const struct option options[] = {
        TOOL_IMAGE_LONG_OPTIONS, {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    tool_image_opts_init(opts);
    opts->reads_only = true;
    opts->read_only = true;
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "", options, opts, "info")) > 0) {
        if (opt == 'j')
            *json = true;
        else
            return tool_fail("info: unknown option (see nandkit info --help)");
    }
    if (opt < 0)
        return -opt;
    if (optind < argc)
        opts->path = argv[optind++];
    if (optind < argc)
        return tool_fail("info: unexpected argument '%s'", argv[optind]);
    if (!opts->path && !opts->chip)
        return tool_fail("info needs --chip NAME or an IMAGE (see nandkit info --help)");
    return 0;
}

/* A preset in memory, identified through the port as on a board: what it
 * says in `info`, its bad blocks and the blocks the part really has.
 * Returns 0, or the exit status after a report. */
static int tool_info_identify_preset(const struct tool_image_opts *opts, struct nk_chip_info *info,
                                     uint32_t *bad, uint32_t *physical_blocks)
{
    struct nk_sim_config config;
    struct nk_sim *sim;
    struct nk_diag why[1] = {{""}};
    memset(&config, 0, sizeof config);
    config.preset = opts->chip;
    config.seed = opts->seed;
    config.factory_bad_blocks = -1;
    int err = nk_sim_open(&sim, &config, why);
    if (err)
        return tool_fail("%s", why->text[0] ? why->text : nk_strerror(err));
    size_t ws_size = nk_nand_default_workspace_size(&nk_sim_params(sim)->chip);
    void *ws = malloc(ws_size);
    struct nk_nand nand;
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(sim);
    nc.workspace = ws;
    nc.workspace_size = ws_size;
    nc.read_only = true;
    err = nk_nand_open(&nand, &nc);
    if (!err)
        err = tool_info_count_bad(&nand, bad);
    int status = 0;
    if (err) {
        status = tool_error("identification failed: %s",
                            nand.diag.text[0] ? nand.diag.text : nk_strerror(err));
    } else {
        *info = nand.chip.info;
        *physical_blocks = nk_sim_params(sim)->chip.blocks;
    }
    free(ws);
    nk_sim_close(sim);
    return status;
}

/* An image with --chip, or /dev/mtdN: what the device says of itself and
 * its bad blocks. Returns 0, or the exit status after a report. */
static int tool_info_identify_image(struct tool_image_opts *opts, struct nk_chip_info *info,
                                    uint32_t *bad)
{
    struct tool_image image;
    int status = tool_image_open(&image, opts);
    if (status)
        return status;
    int err = tool_info_count_bad(&image.nand, bad);
    *info = image.nand.chip.info;
    tool_image_close(&image);
    if (err)
        return tool_error("reading bad-block markers failed: %s", nk_strerror(err));
    return 0;
}

static int tool_info_run(int argc, char **argv)
{
    struct tool_image_opts opts;
    bool json = false;
    int status = tool_info_parse(argc, argv, &opts, &json);
    if (status)
        return status;
    if (opts.path && !opts.chip && !tool_path_is_mtd(opts.path))
        return tool_info_image_only(&opts, json);

    struct nk_chip_info info;
    uint32_t bad = 0;
    uint32_t physical_blocks = 0;
    if (!opts.path)
        status = tool_info_identify_preset(&opts, &info, &bad, &physical_blocks);
    else
        status = tool_info_identify_image(&opts, &info, &bad);
    if (status)
        return status;
    if (json) {
        tool_info_print_json(&info, bad);
    } else {
        tool_info_print_text(&info, bad);
        if (physical_blocks > info.blocks)
            printf("note          the part has %u blocks; identification uses %u (a power of two "
                   "per LUN, as Linux does)\n",
                   physical_blocks, info.blocks);
    }
    return 0;
}

const struct tool_command tool_cmd_info = {
    .name = "info",
    .summary = "identify a chip or describe an image (geometry, IDs, ONFI, timing)",
    .run = tool_info_run,
    .help = tool_info_help,
};
