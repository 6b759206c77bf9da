/* SPDX-License-Identifier: MIT */
/*
 * Opening the thing a command works on: a simulated preset chip in memory
 * (--chip NAME), or an image file (IMAGE with --geometry or --chip), as a
 * ready device with the ECC engine and OOB layout that --layout names, and
 * a partition over its usable blocks.
 */
#ifndef TOOL_IMAGE_H
#define TOOL_IMAGE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nandkit/ecc.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

/* What the user asked for on the command line. */
struct tool_image_opts {
    const char *path;         /* image file, or NULL for a memory chip */
    const char *name;         /* the image as the user named it, for messages, when `path`
                                 is a temporary copy of it (NULL: `path`) */
    const char *chip;         /* --chip NAME */
    const char *geometry;     /* --geometry PAGE,OOB,PPB[,BLOCKS] */
    enum nk_fs_layout layout; /* --layout (docs/fs-format.md, "Layouts") */
    bool layout_given;
    const char *ecc; /* --ecc NAME, NULL: the engine the core picks for the chip */
    bool force_ecc;  /* --force-ecc: accept ECC weaker than the chip requires */
    uint64_t seed;
    double bit_error_rate; /* --bit-error-rate: simulator's raw bit errors per bit read */
    bool read_only;
    bool create;             /* create an erased image (sim create) */
    int64_t power_cut_after; /* --power-cut-after N, -1 = never */
    bool mtd_raw;            /* --mtd-ecc nandkit: raw MTD access, nandkit's ECC */
    bool no_sidecar;         /* image files: neither read nor write IMAGE.nksim */
    bool write_through;      /* image files: every program and erase goes to the file at
                                once; memory stays bounded (large builds) */
    bool reads_only;         /* set before tool_getopt(): the command never writes, so
                                --power-cut-after and --force are refused */
    unsigned takes;          /* set before tool_getopt(): the shared options the command
                                takes (TOOL_TAKES() bits), the others refused; 0 = all */
    bool mtd_ecc_given;      /* --mtd-ecc was given: refused unless the path is /dev/mtdN */
};

/* Long options every image command accepts; getopt_long returns these. */
enum {
    TOOL_OPT_GEOMETRY = 1000,
    TOOL_OPT_CHIP,
    TOOL_OPT_LAYOUT,
    TOOL_OPT_SEED,
    TOOL_OPT_POWER_CUT,
    TOOL_OPT_MTD_ECC,
    TOOL_OPT_FORCE_ECC,
    TOOL_OPT_ECC,
    TOOL_OPT_BIT_ERROR_RATE,
    TOOL_OPT_WAIT,
    TOOL_OPT_FORCE,
    TOOL_OPT_FIRST_FREE /* commands number their own options from here */
};

/* The bit of shared option `opt` (TOOL_OPT_GEOMETRY ...) in tool_image_opts.takes. */
#define TOOL_TAKES(opt) (1u << ((opt)-TOOL_OPT_GEOMETRY))

#define TOOL_IMAGE_LONG_OPTIONS                                                                    \
    {"geometry", required_argument, NULL, TOOL_OPT_GEOMETRY},                                      \
        {"chip", required_argument, NULL, TOOL_OPT_CHIP},                                          \
        {"layout", required_argument, NULL, TOOL_OPT_LAYOUT},                                      \
        {"seed", required_argument, NULL, TOOL_OPT_SEED},                                          \
        {"mtd-ecc", required_argument, NULL, TOOL_OPT_MTD_ECC},                                    \
        {"force-ecc", no_argument, NULL, TOOL_OPT_FORCE_ECC},                                      \
        {"ecc", required_argument, NULL, TOOL_OPT_ECC},                                            \
        {"bit-error-rate", required_argument, NULL, TOOL_OPT_BIT_ERROR_RATE},                      \
        {"wait", no_argument, NULL, TOOL_OPT_WAIT}, {"force", no_argument, NULL, TOOL_OPT_FORCE},  \
    {                                                                                              \
        "power-cut-after", required_argument, NULL, TOOL_OPT_POWER_CUT                             \
    }

/* Help text for the options above: TOOL_IMAGE_HELP_READ for a command
 * that only reads (tool_image_opts.reads_only), TOOL_IMAGE_HELP with
 * the options of a command that writes. */
#define TOOL_IMAGE_HELP_READ                                                                       \
    "  --chip NAME             a simulator preset (nandkit sim list) for geometry and timing\n"    \
    "  --geometry P,O,N[,B]    page bytes, OOB bytes, pages per block[, blocks]\n"                 \
    "                          (blocks default to the image size). With neither: the\n"            \
    "                          image's sidecar (IMAGE.nksim) says, else a command that\n"          \
    "                          reads detects it from the image's tags (said on stderr)\n"          \
    "  --layout L              linux (default), mkyaffs2 or inband\n"                              \
    "  --ecc E                 data ECC: none, hamming (256-byte steps), hamming512,\n"            \
    "                          bchT or bchT-512, bchT-1024 (T = 1..32; bch4, bch8 ...),\n"         \
    "                          on-die (chips with on-die ECC) or hw (the simulated\n"              \
    "                          controller's engine); OOB bytes as Linux lays them out.\n"          \
    "                          Default: the engine the chip's requirement calls for\n"             \
    "                          (nandkit info --chip NAME shows it)\n"                              \
    "  --force-ecc             use --ecc even when weaker than the chip requires\n"                \
    "  --seed S                seed of every simulated fault (default 1)\n"                        \
    "  --mtd-ecc kernel|nandkit  /dev/mtdN only: the kernel corrects (default), or raw\n"          \
    "                          access with nandkit's twin of the kernel's ECC\n"                   \
    "  --wait                  wait while another nandkit command uses the image (else\n"          \
    "                          refused with exit status 5: writers lock it exclusively,\n"         \
    "                          readers shared)\n"

#define TOOL_IMAGE_HELP                                                                            \
    TOOL_IMAGE_HELP_READ                                                                           \
    "  --power-cut-after N     lose power after N flash operations (simulated chips; put,\n"       \
    "                          rm, mkdir, mv and chmod count from the end of their mount)\n"       \
    "  --force                 write an image file even when its mode says read-only\n"            \
    "                          (refused otherwise, root included)\n"

void tool_image_opts_init(struct tool_image_opts *opts);

/* getopt_long() for a command that takes the shared image options: handles
 * those itself, and reports an unknown option or a missing argument in one
 * line naming it and `command`. Returns the next command-specific option
 * (> 0), 0 after the last option, or minus the exit status after a report.
 * Set optind = 1 before the first call. */
int tool_getopt(int argc, char **argv, const char *shortopts, const struct option *options,
                struct tool_image_opts *opts, const char *command);

/* Handles one of the shared options. Returns 1 when handled, 0 when `opt` is
 * not one of them, or 2 after printing a one-line error for a bad value. */
int tool_image_option(struct tool_image_opts *opts, int opt, const char *arg);

/* An ECC engine chosen by name, with the BCH codec and tables it owns. */
struct tool_ecc {
    struct nk_ecc_engine engine;
    struct nk_bch bch;
    void *workspace;
    size_t workspace_size;
};

/* Sets up the software engine `name` names (none, hamming, hamming256,
 * hamming512, hamming256-sm, hamming512-sm, bchT, bchT-512, bchT-1024);
 * `what` names the option in messages. Returns 0 or 2 after one line. */
int tool_ecc_by_name(struct tool_ecc *e, const char *name, const char *what);

/* Frees what tool_ecc_by_name() allocated. */
void tool_ecc_free(struct tool_ecc *e);

struct nk_mtd;

/* An open image or chip. */
struct tool_image {
    struct nk_sim *sim;
    struct nk_mtd *mtd; /* /dev/mtdN instead of the simulator */
    struct nk_sim_params params;
    struct nk_nand nand;
    struct nk_part part;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout oob_layout;
    struct tool_ecc ecc_named; /* --ecc NAME's engine */
    enum nk_fs_layout layout;
    void *workspace;
    struct nk_badblock_ops badblocks; /* /dev/mtdN: the kernel's view */
    int64_t power_cut_after;          /* as asked, -1 = never */
    char why[160];
};

/* Opens per `opts`. Returns 0, or prints one line naming the problem
 * (unknown chip, bad geometry, missing file, size mismatch) and returns the
 * exit status (2 for bad input, 1 for I/O failures). */
int tool_image_open(struct tool_image *image, const struct tool_image_opts *opts);

/* For the file-system commands: refuses (one line, exit status 2) an open
 * image whose OOB layout leaves fewer free bytes than --layout's tags need
 * (nk_fs_layout_oob_bytes()), naming both counts and suggesting --layout
 * inband. Returns 0 when they fit. */
int tool_image_check_tags(const struct tool_image *image);

/* Writes back and frees. */
void tool_image_close(struct tool_image *image);

/* Why an operation on `image` failed with `err`, in words: the scheduled
 * power cut when the simulated chip lost power, else the device's reason,
 * else the error's name. Valid until the next call on `image`. */
const char *tool_image_error(struct tool_image *image, int err);

/* /dev/mtdN (tools/image_mtd.c). True when `path` names an MTD device. */
bool tool_path_is_mtd(const char *path);

/* Opens the MTD device `opts->path` as the image, as tool_image_open(). */
int tool_image_open_mtd(struct tool_image *image, const struct tool_image_opts *opts);

/* --noecc on /dev/mtdN: pages move raw (MTD_OPS_RAW) in every --mtd-ecc
 * mode, the kernel's ECC bypassed; nothing for image files. Returns 0, or
 * prints one line and returns exit status 1. */
int tool_image_raw_io(struct tool_image *image);

/* Closes what tool_image_open_mtd() opened (nothing when image->mtd is NULL). */
void tool_image_close_mtd(struct tool_image *image);

/* A geometry read from an image file (tools/detect.c). */
struct tool_geometry {
    uint32_t page_size, oob_size, pages_per_block, blocks;
};

/* Reads the geometry of the YAFFS2 image file `path` from its pages, as
 * `unyaffs -d` does: the page+OOB size whose pages carry valid tags where
 * `layout` puts them, and the pages per block their sequence numbers
 * imply. Returns 0, or -1 when no size (or more than one) fits. */
int tool_detect_geometry(const char *path, enum nk_fs_layout layout, struct tool_geometry *found);

/* Fills `params` from --chip or --geometry (plus the image size for a missing
 * block count); with neither, from the image's sidecar, or (for a command
 * that only reads) from the image itself, saying on stderr what was
 * detected. Returns 0 or an exit status after printing the problem. */
int tool_params_from_opts(const struct tool_image_opts *opts, struct nk_sim_params *params);

/* Before a command writes the image file `path` with `params` (from --chip or
 * --geometry): refuses (one line naming the image, exit status 2) a
 * geometry that disagrees with the image's sidecar. Sets *has_sidecar.
 * Returns 0 when they agree or there is no sidecar. */
int tool_image_check_sidecar(const char *path, const struct nk_sim_params *params,
                             bool *has_sidecar);

/* Prints `len` bytes as a hex dump with offsets starting at `base`. */
void tool_hexdump(FILE *out, const uint8_t *data, uint32_t len, uint32_t base);

#endif
