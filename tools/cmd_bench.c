/* SPDX-License-Identifier: MIT */
/* nandkit bench: page-level benchmark beside the datasheet limit. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "flashio.h"
#include "image.h"
#include "lock.h"
#include "nandkit/error.h"
#include "nandkit/spinand.h"
#include "nkbench.h"
#include "save.h"
#include "seqbench.h"
#include "tool.h"

enum tool_bench_ecc {
    TOOL_ECC_MODE_NONE,
    TOOL_ECC_MODE_HAMMING,
    TOOL_ECC_MODE_BCH4,
    TOOL_ECC_MODE_BCH8,
    TOOL_ECC_MODE_HW,
    TOOL_ECC_MODE_COUNT
};

static const char *const tool_ecc_mode_names[TOOL_ECC_MODE_COUNT] = {"none", "hamming", "bch4",
                                                                     "bch8", "hw"};

static void tool_bench_help(FILE *out)
{
    fprintf(
        out,
        "usage: nandkit bench [--chip NAME] [--ecc MODE] [--loop byte|unrolled] [options]\n"
        "       nandkit bench IMAGE (--chip NAME | --geometry P,O,N,B) [options]\n"
        "       nandkit bench /dev/mtdN [--mtd-ecc kernel|nandkit] [options]\n\n"
        "Measures page read (data+OOB, data only, OOB only), page program, block erase and\n"
        "whole-block read/write through the device API (ECC, checks and locking included)\n"
        "and prints each figure (median, p99, min; the mean as an extra) beside the limit:\n"
        "read = tR + (cycles + bytes) x tRC, program = (cycles + bytes) x tWC + tPROG,\n"
        "erase = tBERS + cycles x tWC. On the simulator a figure is virtual device time\n"
        "plus the measured host CPU time of the library path (the simulator's own\n"
        "bookkeeping excluded); the breakdown shows array busy, bus transfer, ECC CPU and\n"
        "other CPU. On /dev/mtdN it is wall time. Each figure is the median over its\n"
        "operations, with p99 and min beside it (the mean only as a labelled extra), and\n"
        "the limit is computed from the timing the chip runs (the preset's typical values;\n"
        "the limit at the datasheet's maximum tR/tPROG/tBERS is printed too).\n\n"
        "The benchmark erases and writes the blocks it uses. On a simulated chip in memory\n"
        "that harms nothing; on an IMAGE or /dev/mtdN it runs only with --destructive and\n"
        "an explicit --blocks range, and says which blocks it will erase.\n\n"
        "Options:\n"
        "  --chip NAME             simulator preset (default K9F1G08U0A)\n"
        "  --ecc MODE              none, hamming (Linux software Hamming, 256-byte steps;\n"
        "                          default), bch4, bch8 (Linux software BCH, 512-byte\n"
        "                          steps) or hw (the simulated controller's Hamming engine,\n"
        "                          512-byte steps, computing during the transfer)\n"
        "                          (a SPI-NAND part without --ecc: its on-die engine)\n"
        "  --bus 1|2|4             SPI-NAND: data lines of reads and program loads\n"
        "                          (2: reads only; default the widest, 4)\n"
        "  --loop byte|unrolled    the port's data-transfer loop (default unrolled)\n"
        "  --unroll                same as --loop unrolled\n"
        "  --compare               every ECC mode x both loops, with the speedups\n"
        "  --count N               page operations per figure (default 256)\n"
        "  --block-count N         block operations per figure (default 8)\n"
        "  --first-block N         first block the benchmark may use (memory chips; default 0)\n"
        "      --blocks RANGE      blocks it may erase and write: FIRST-LAST or FIRST+COUNT\n"
        "      --destructive       agree that an IMAGE's or device's blocks in --blocks are\n"
        "                          destroyed\n"
        "  -j, --json              JSON instead of the table (schema: docs/bench.md)\n"
        "  --svg FILE              also draw the figures as an SVG chart\n"
        "  --sequential            only the sequential (multi-page) figures, device and file\n"
        "                          system, on one chip and on two, beside the single-page\n"
        "                          and pipelined limits: --chip NAME, or every preset (the\n"
        "                          table also ends with those of its chip)\n"
        "  --seed S                seed of the test data and simulated faults\n"
        "  --wait                  wait while another nandkit command uses IMAGE\n"
        "  --no-progress           no progress line on stderr\n"
        "  --fs                    the file-system benchmark instead (docs/bench.md): with\n"
        "                          --chip (default K9F1G08U0A), --json, --svg, --seed,\n"
        "                          --no-progress\n"
        "  --fs-small              --fs with reduced sizes, for a quick check\n"
        "  --geometry P,O,N,B      geometry of IMAGE (instead of --chip)\n"
        "  --mtd-ecc kernel|nandkit  /dev/mtdN: the kernel's ECC (default) or raw + nandkit's\n"
        "                          (with /dev/mtdN, --chip NAME gives the datasheet timing\n"
        "                          for the limits; without it only the figures are shown;\n"
        "                          for a SPI-NAND part the limits are at --bus lines,\n"
        "                          default 1, as the kernel's width is not visible)\n");
}

struct tool_bench_options {
    struct tool_image_opts image;
    enum tool_bench_ecc ecc;
    bool ecc_given;
    enum nk_data_loop loop;
    bool compare, json, sequential;
    const char *svg;
    unsigned count, block_count;
    uint32_t first_block;
    uint32_t block_limit; /* 0 = to the end (memory chips) */
    bool destructive, blocks_given;
    bool progress;
    int fs;       /* --fs: 1, --fs-small: 2 */
    unsigned bus; /* --bus: SPI-NAND data lines (0: the widest) */
};

/* Opens the simulator the options describe (the image locked: the
 * benchmark writes it). Returns 0 or the exit status after a report. */
static int tool_bench_sim_open(const struct tool_bench_options *o, struct nk_sim_params *params,
                               struct nk_sim **sim)
{
    int status = tool_params_from_opts(&o->image, params);
    if (!status)
        status = tool_lock(o->image.path, true); /* the benchmark writes the image */
    if (status)
        return status;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = params;
    config.image_path = o->image.path;
    config.seed = o->image.seed;
    config.factory_bad_blocks = o->image.path ? 0 : -1;
    config.measure_host_time = true;
    if (o->image.path) {
        /* A dump made elsewhere gets no sidecar created beside it. */
        char sidecar[4096];
        config.no_sidecar = nk_sim_sidecar_path(o->image.path, sidecar, sizeof sidecar) &&
                            access(sidecar, F_OK) != 0;
    }
    struct nk_diag why[1] = {{""}};
    int err = nk_sim_open(sim, &config, why);
    if (err)
        return tool_fail("%s", why->text[0] ? why->text : nk_strerror(err));
    return 0;
}

/* The software engine of `mode` (or, for hw, the controller's) in `ecc`;
 * BCH's workspace in *bch_ws, for the caller to free. Returns 0 or a
 * negative error. */
static int tool_bench_ecc_init(enum tool_bench_ecc mode, const struct nk_ctrl *ctrl,
                               struct nk_ecc_engine *ecc, struct nk_bch *bch, void **bch_ws)
{
    int err = 0;
    switch (mode) {
    case TOOL_ECC_MODE_NONE:
        nk_ecc_none_init(ecc);
        break;
    case TOOL_ECC_MODE_HAMMING:
        err = nk_ecc_hamming_init(ecc, 256, false);
        break;
    case TOOL_ECC_MODE_BCH4:
    case TOOL_ECC_MODE_BCH8: {
        unsigned t = mode == TOOL_ECC_MODE_BCH4 ? 4 : 8;
        size_t size = nk_bch_workspace_size(13, t, 0);
        *bch_ws = malloc(size);
        err = nk_bch_init(bch, 512, t, 0, *bch_ws, size);
        if (!err)
            nk_ecc_bch_engine_init(ecc, bch);
        break;
    }
    case TOOL_ECC_MODE_HW:
    default:
        err = nk_ecc_hw_init(ecc, ctrl);
        break;
    }
    return err;
}

/* Runs the benchmark on the opened device, labelled `label`, into
 * `result`. Returns 0 or the exit status after a report. */
static int tool_bench_sim_measure(const struct tool_bench_options *o, struct nk_nand *nand,
                                  struct nk_sim *sim, const char *label,
                                  struct nk_bench_result *result)
{
    struct nk_bench_config bc;
    memset(&bc, 0, sizeof bc);
    bc.nand = nand;
    bc.sim = sim;
    bc.clock = NK_BENCH_CLOCK_SIM;
    bc.count = o->count;
    bc.block_count = o->block_count;
    bc.first_block = o->first_block;
    bc.block_limit = nk_nand_blocks(nand) > 4 + o->first_block
                         ? nk_nand_blocks(nand) - 4 - o->first_block
                         : 0; /* leave the BBT area alone */
    if (o->blocks_given)
        bc.block_limit = o->block_limit;
    bc.timing = &nk_sim_params(sim)->chip.timing; /* what the simulator runs */
    bc.seed = o->image.seed;
    bc.progress = o->progress;
    bc.label = label;
    struct nk_diag why[1] = {{""}};
    int err = nk_bench_run(&bc, result, why);
    return err ? tool_error("benchmark failed: %s", why->text) : 0;
}

/* One benchmark run on a freshly opened simulator. */
static int tool_bench_sim_run(const struct tool_bench_options *o, enum tool_bench_ecc mode,
                              enum nk_data_loop loop, struct nk_bench_result *result)
{
    struct nk_sim_params params;
    struct nk_sim *sim;
    int status = tool_bench_sim_open(o, &params, &sim);
    if (status)
        return status;
    const struct nk_ctrl *ctrl =
        mode == TOOL_ECC_MODE_HW ? nk_sim_ctrl_hw_ecc(sim, 512) : nk_sim_ctrl(sim);
    bool spi = (params.chip.features & NK_CHIP_SPI_NAND) != 0;
    if (!ctrl) {
        nk_sim_close(sim);
        return tool_fail("--ecc hw: %s has no controller ECC engine in front of it",
                         params.chip.model);
    }
    if (o->bus && !spi) {
        nk_sim_close(sim);
        return tool_fail("--bus %u: %s is not a SPI-NAND part", o->bus, params.chip.model);
    }
    bool on_die = spi && !o->ecc_given; /* the part's own engine, as a board runs it */
    struct nk_ecc_engine ecc;
    struct nk_bch bch;
    void *bch_ws = NULL;
    int err = tool_bench_ecc_init(mode, ctrl, &ecc, &bch, &bch_ws);
    size_t ws_size = nk_nand_workspace_size(&nk_sim_params(sim)->chip);
    void *ws = malloc(ws_size);
    struct nk_nand nand;
    if (!err) {
        struct nk_nand_config nc;
        memset(&nc, 0, sizeof nc);
        nc.ctrl = ctrl;
        nc.ecc = on_die ? NULL : &ecc;
        nc.force_ecc = true; /* the engine is what is measured, whatever the chip requires */
        nc.workspace = ws;
        nc.workspace_size = ws_size;
        err = nk_nand_open(&nand, &nc);
        if (err)
            status = tool_fail("%s", nand.diag.text[0] ? nand.diag.text : nk_strerror(err));
        else if (nk_nand_set_data_loop(&nand, loop) != 0)
            status = tool_error("the simulated controller refused the data loop");
        else if (o->bus && nk_spinand_set_bus_width(&nand.chip, o->bus) != 0)
            status = tool_fail("--bus %u: %s", o->bus, nand.chip.diag.text);
    } else {
        status = tool_fail("ECC mode %s does not fit this chip", tool_ecc_mode_names[mode]);
    }
    if (!status) {
        const char *ecc_name = on_die ? "on-die" : tool_ecc_mode_names[mode];
        const char *loop_name = loop == NK_DATA_LOOP_BYTE ? "byte" : "unrolled";
        char label[48];
        snprintf(label, sizeof label, "%s/%s", ecc_name, loop_name);
        status = tool_bench_sim_measure(o, &nand, sim, label, result);
        snprintf(result->loop, sizeof result->loop, "%s", loop_name);
        snprintf(result->ecc, sizeof result->ecc, "%s", ecc_name);
    }
    free(ws);
    free(bch_ws);
    nk_sim_close(sim);
    return status;
}

static int tool_bench_mtd_run(const struct tool_bench_options *o, struct nk_bench_result *result)
{
    if (o->ecc_given)
        return tool_fail("--ecc applies to the simulator; on %s use --mtd-ecc kernel|nandkit",
                         o->image.path);
    if (o->compare)
        return tool_fail("--compare needs the simulator (its controller models the ECC "
                         "and loop variants)");
    /* --chip names the part behind the device, for the datasheet limits. */
    struct nk_sim_params part;
    if (o->image.chip && nk_sim_preset(o->image.chip, &part) != 0)
        return tool_fail("unknown chip '%s' (run `nandkit sim list` for the presets)",
                         o->image.chip);
    struct tool_image_opts opts = o->image;
    opts.chip = NULL;
    struct tool_image image;
    int status = tool_image_open(&image, &opts);
    if (status)
        return status;
    /* A SPI-NAND part: the kernel drives the serial bus, its limits are the
     * serial ones at --bus lines (the kernel's width is not visible here). */
    const struct nk_spinand_part *serial =
        o->image.chip ? nk_spinand_table_find(o->image.chip) : NULL;
    if (o->bus && !serial) {
        tool_image_close(&image);
        return tool_fail("--bus %u on %s: name the SPI-NAND part behind it with --chip", o->bus,
                         o->image.path);
    }
    if (o->image.chip)
        image.nand.chip.info.timing = part.chip.timing;
    struct nk_bench_config bc;
    memset(&bc, 0, sizeof bc);
    bc.serial_part = serial;
    bc.serial_width = o->bus ? o->bus : 1;
    bc.nand = &image.nand;
    bc.clock = NK_BENCH_CLOCK_WALL;
    bc.count = o->count;
    bc.block_count = o->block_count;
    bc.first_block = o->first_block;
    bc.block_limit = o->block_limit;
    bc.seed = o->image.seed;
    bc.progress = o->progress;
    bc.label = o->image.path;
    struct nk_diag why[1] = {{""}};
    int err = nk_bench_run(&bc, result, why);
    if (err)
        status = tool_error("benchmark failed: %s", why->text);
    snprintf(result->loop, sizeof result->loop, "%s", "n/a");
    tool_image_close(&image);
    return status;
}

/* One option of bench's own (`arg` its argument). Returns 0, or the exit
 * status after a report. */
static int tool_bench_option(struct tool_bench_options *o, int opt, const char *arg,
                             const char **range_text)
{
    uint64_t v;
    switch (opt) {
    case 'e': {
        bool found = false;
        for (int m = 0; m < TOOL_ECC_MODE_COUNT; m++) {
            if (strcasecmp(arg, tool_ecc_mode_names[m]) == 0) {
                o->ecc = (enum tool_bench_ecc)m;
                found = true;
            }
        }
        if (!found)
            return tool_fail("unknown --ecc '%s' (none, hamming, bch4, bch8 or hw)", arg);
        o->ecc_given = true;
        return 0;
    }
    case 'l':
        if (strcmp(arg, "byte") == 0)
            o->loop = NK_DATA_LOOP_BYTE;
        else if (strcmp(arg, "unrolled") == 0)
            o->loop = NK_DATA_LOOP_UNROLLED;
        else
            return tool_fail("unknown --loop '%s' (byte or unrolled)", arg);
        return 0;
    case 'u':
        o->loop = NK_DATA_LOOP_UNROLLED;
        return 0;
    case 'c':
        o->compare = true;
        return 0;
    case 'n':
        if (!tool_parse_u64(arg, &v) || v == 0 || v > 1000000)
            return tool_fail("bad --count '%s': 1 to 1000000 operations", arg);
        o->count = (unsigned)v;
        return 0;
    case 'b':
        if (!tool_parse_u64(arg, &v) || v == 0 || v > 100000)
            return tool_fail("bad --block-count '%s': 1 to 100000 operations", arg);
        o->block_count = (unsigned)v;
        return 0;
    case 'f':
        if (!tool_parse_u64(arg, &v) || v > UINT32_MAX)
            return tool_fail("bad --first-block '%s': a block number", arg);
        o->first_block = (uint32_t)v;
        return 0;
    case 'j':
        o->json = true;
        return 0;
    case 's':
        o->svg = arg;
        return 0;
    case 'q':
        o->progress = false;
        return 0;
    case 'B':
        if (!tool_parse_block_range(arg, &o->first_block, &o->block_limit))
            return tool_fail("bad --blocks '%s': expected FIRST-LAST or FIRST+COUNT", arg);
        o->blocks_given = true;
        *range_text = arg;
        return 0;
    case 'D':
        o->destructive = true;
        return 0;
    case 'S':
        o->sequential = true;
        return 0;
    case 'W':
        if (!tool_parse_u64(arg, &v) || (v != 1 && v != 2 && v != 4))
            return tool_fail("bad --bus '%s': 1, 2 or 4 lines", arg);
        o->bus = (unsigned)v;
        return 0;
    case 'F':
    case 'G':
        o->fs = opt == 'G' ? 2 : 1;
        return 0;
    default:
        return tool_fail("bench: unknown option (see nandkit bench --help)");
    }
}

/* What the options mean together: refusals, the default chip, and what an
 * IMAGE run is about to do, said on stderr. Returns 0, or the exit status
 * after a report. */
static int tool_bench_check(struct tool_bench_options *o, const char *range_text)
{
    if (o->sequential && (o->image.path || o->image.geometry))
        return tool_fail("--sequential runs on the simulator presets: give --chip NAME or none");
    struct nk_sim_params preset;
    if (o->sequential && o->image.chip && nk_sim_preset(o->image.chip, &preset) != 0)
        return tool_fail("unknown --chip '%s' (nandkit sim list names the presets)", o->image.chip);
    if (o->sequential)
        return 0;
    if (!o->image.path && !o->image.chip && !o->image.geometry)
        o->image.chip = "K9F1G08U0A";
    if (!o->image.path && o->image.geometry)
        return tool_fail("--geometry describes an IMAGE; give one, or use --chip NAME");
    if (o->image.path && !o->blocks_given)
        return tool_fail("bench erases and writes blocks of %s: name them with --blocks "
                         "FIRST-LAST (and add --destructive)",
                         o->image.path);
    if (o->image.path && !o->destructive)
        return tool_fail("bench would erase and write blocks %s of %s: add --destructive to go "
                         "ahead",
                         range_text, o->image.path);
    if (o->image.path && o->compare && !tool_path_is_mtd(o->image.path))
        fprintf(
            stderr,
            "nandkit: bench --compare runs every ECC x loop configuration over blocks %s of %s\n",
            range_text, o->image.path);
    if (o->image.path)
        fprintf(stderr,
                "nandkit: bench erases and writes blocks %s of %s (their contents are "
                "lost)\n",
                range_text, o->image.path);
    return 0;
}

static int tool_bench_parse(int argc, char **argv, struct tool_bench_options *o)
{
    /* bench's own --ecc (modes it compares) comes first: getopt_long takes
     * the first exact match, so it shadows the image options' --ecc. */
    static const struct option options[] = {{"ecc", required_argument, NULL, 'e'},
                                            TOOL_IMAGE_LONG_OPTIONS,
                                            {"loop", required_argument, NULL, 'l'},
                                            {"unroll", no_argument, NULL, 'u'},
                                            {"compare", no_argument, NULL, 'c'},
                                            {"count", required_argument, NULL, 'n'},
                                            {"block-count", required_argument, NULL, 'b'},
                                            {"first-block", required_argument, NULL, 'f'},
                                            {"json", no_argument, NULL, 'j'},
                                            {"svg", required_argument, NULL, 's'},
                                            {"no-progress", no_argument, NULL, 'q'},
                                            {"blocks", required_argument, NULL, 'B'},
                                            {"destructive", no_argument, NULL, 'D'},
                                            {"sequential", no_argument, NULL, 'S'},
                                            {"fs", no_argument, NULL, 'F'},
                                            {"fs-small", no_argument, NULL, 'G'},
                                            {"bus", required_argument, NULL, 'W'},
                                            {NULL, 0, NULL, 0}};
    tool_image_opts_init(&o->image);
    o->image.takes = TOOL_TAKES(TOOL_OPT_GEOMETRY) | TOOL_TAKES(TOOL_OPT_CHIP) |
                     TOOL_TAKES(TOOL_OPT_SEED) | TOOL_TAKES(TOOL_OPT_MTD_ECC) |
                     TOOL_TAKES(TOOL_OPT_WAIT);
    o->ecc = TOOL_ECC_MODE_HAMMING;
    o->loop = NK_DATA_LOOP_UNROLLED;
    o->count = 256;
    o->block_count = 8;
    o->progress = isatty(STDERR_FILENO);
    int opt;
    optind = 1;
    const char *range_text = NULL;
    while ((opt = tool_getopt(argc, argv, "j", options, &o->image, "bench")) > 0) {
        int status = tool_bench_option(o, opt, optarg, &range_text);
        if (status)
            return status;
    }
    if (opt < 0)
        return -opt;
    if (optind < argc)
        o->image.path = argv[optind++];
    if (optind < argc)
        return tool_fail("bench: unexpected argument '%s'", argv[optind]);
    return tool_bench_check(o, range_text);
}

/* The page benchmark: one configuration on /dev/mtdN or the simulator,
 * or with --compare every ECC x loop one on the simulator, into `results`
 * (*count of them). Returns 0 or the exit status after a report. */
static int tool_bench_measure(const struct tool_bench_options *o, struct nk_bench_result *results,
                              unsigned *count)
{
    int status = 0;
    *count = 0;
    if (tool_path_is_mtd(o->image.path)) {
        *count = 1;
        return tool_bench_mtd_run(o, &results[0]);
    }
    if (!o->compare) {
        *count = 1;
        return tool_bench_sim_run(o, o->ecc, o->loop, &results[0]);
    }
    for (int m = 0; m < TOOL_ECC_MODE_COUNT && !status; m++) {
        for (int l = 0; l < 2 && !status; l++) {
            enum nk_data_loop loop = l ? NK_DATA_LOOP_UNROLLED : NK_DATA_LOOP_BYTE;
            status = tool_bench_sim_run(o, (enum tool_bench_ecc)m, loop, &results[(*count)++]);
        }
    }
    /* The first configuration once more: how far two runs of the same
     * thing drift apart (host caches, frequency) is noise too, so each
     * figure's noise is at least half that drift. */
    struct nk_bench_result repeat;
    if (!status)
        status = tool_bench_sim_run(o, (enum tool_bench_ecc)0, NK_DATA_LOOP_BYTE, &repeat);
    for (int op = 0; !status && op < NK_BENCH_OP_COUNT; op++) {
        double drift = results[0].ops[op].median_us - repeat.ops[op].median_us;
        drift = drift < 0 ? -drift : drift;
        for (unsigned r = 0; r < *count; r++)
            if (results[r].ops[op].noise_us < drift / 2)
                results[r].ops[op].noise_us = drift / 2;
    }
    return status;
}

/* The figures as JSON, a comparison or a table (with, for a parallel
 * preset, the sequential paths after it), and with --svg the chart.
 * Returns 0 or the exit status after a report. */
static int tool_bench_report(const struct tool_bench_options *o,
                             const struct nk_bench_result *results, unsigned count,
                             const struct nk_spinand_part *spi_part)
{
    if (o->json)
        nk_bench_print_json(stdout, results, count);
    else if (o->compare)
        nk_bench_print_compare(stdout, results, count);
    else
        nk_bench_print_table(stdout, results, count);
    if (!o->json && !o->compare && !o->image.path && o->image.chip && !spi_part) {
        struct nk_diag why[1] = {{""}};
        fputc('\n', stdout);
        if (nk_seq_bench_report(stdout, o->image.chip, o->image.seed, false, why) != 0)
            return tool_error("benchmark failed: %s", why->text);
    }
    if (o->svg) {
        /* Drawn in memory, then written as a whole (temporary file, rename). */
        char *svg = NULL;
        size_t svg_len = 0;
        FILE *f = open_memstream(&svg, &svg_len);
        if (!f)
            return tool_error("cannot write --svg '%s': out of memory", o->svg);
        nk_bench_write_svg(f, results, count);
        int status_svg = fclose(f) != 0 ? tool_error("cannot write --svg '%s'", o->svg)
                                        : tool_write_file("--svg ", o->svg, svg, svg_len);
        free(svg);
        if (status_svg)
            return status_svg;
    }
    return 0;
}

static int tool_bench_cmd(int argc, char **argv)
{
    struct tool_bench_options o;
    memset(&o, 0, sizeof o);
    int status = tool_bench_parse(argc, argv, &o);
    if (status)
        return status;
    if (o.fs)
        return tool_bench_fs(&o.image, o.fs == 2, o.json, o.svg, o.progress);

    const struct nk_spinand_part *spi_part =
        o.image.chip ? nk_spinand_table_find(o.image.chip) : NULL;
    if (o.sequential && spi_part)
        return tool_fail("--sequential: the multi-page paths are page at a time on SPI-NAND "
                         "(%s); run the page benchmark",
                         spi_part->info.model);
    if (o.sequential) {
        struct nk_diag why[1] = {{""}};
        if (nk_seq_bench_report(stdout, o.image.chip, o.image.seed, o.json, why) != 0)
            return tool_error("benchmark failed: %s", why->text);
        return 0;
    }
    struct nk_bench_result results[2 * TOOL_ECC_MODE_COUNT];
    unsigned count;
    status = tool_bench_measure(&o, results, &count);
    if (status)
        return status;
    return tool_bench_report(&o, results, count, spi_part);
}

const struct tool_command tool_cmd_bench = {
    .name = "bench",
    .summary = "page read/program/erase timing beside the datasheet limit",
    .run = tool_bench_cmd,
    .help = tool_bench_help,
};
