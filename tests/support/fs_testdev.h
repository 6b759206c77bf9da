/* SPDX-License-Identifier: MIT */
/*
 * A simulated device for file-system tests and fuzzing: a chip of any
 * geometry with the K9F1G08U0A's timing, in memory or over an image file,
 * opened through the real device layer with the ECC engine and OOB layout a
 * YAFFS2 layout needs, and one partition over all of it. Header-only and
 * free of cmocka so the fuzz target can use it too.
 */
#ifndef NK_FS_TESTDEV_H
#define NK_FS_TESTDEV_H

#include <stdlib.h>
#include <string.h>

#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

struct nk_fs_testdev {
    struct nk_sim *sim;
    struct nk_sim_params params;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout oob_layout;
    struct nk_nand nand;
    struct nk_part part;
    enum nk_fs_layout layout;
    void *workspace;
};

/* Opens the device of `nc` (its workspace set) over d->sim and a partition
 * over every block. Returns 0 or a negative error with the reason in `why`. */
static inline int nk_fs_testdev_open_device(struct nk_fs_testdev *d, struct nk_nand_config *nc,
                                            struct nk_diag *why)
{
    nc->clock = nk_sim_clock(d->sim);
    int err = nk_nand_open(&d->nand, nc);
    if (!err)
        err = nk_part_init(&d->part, &d->nand, "fs", 0, 0, NK_PART_ALLOW_BBT_AREA);
    if (err)
        nk_format(why->text, sizeof why->text, "%s", d->nand.diag.text);
    return err;
}

/* Opens the device over d->sim (already open on d->params) with d->layout's
 * ECC and OOB layout, and a partition over every block. Returns 0 or a
 * negative error with the reason in `why`. */
static inline int nk_fs_testdev_attach(struct nk_fs_testdev *d, struct nk_diag *why)
{
    uint32_t page_size = d->params.chip.page_size, oob_size = d->params.chip.oob_size;
    enum nk_fs_layout layout = d->layout;
    int err = nk_fs_layout_device(layout, page_size, oob_size, &d->ecc, &d->oob_layout);
    if (err) {
        nk_format(why->text, sizeof why->text, "layout %s does not fit %u+%u",
                  nk_fs_layout_name(layout), (unsigned)page_size, (unsigned)oob_size);
        return err;
    }
    size_t ws = nk_nand_workspace_size(&d->params.chip);
    d->workspace = malloc(ws);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(d->sim);
    nc.chip = &d->params.chip;
    nc.ecc = &d->ecc;
    nc.layout = &d->oob_layout;
    nc.workspace = d->workspace;
    nc.workspace_size = ws;
    return nk_fs_testdev_open_device(d, &nc, why);
}

/* Opens an erased chip of that geometry in memory, its faults (torn
 * programs, weak cells) drawn from `seed`, with the device `layout` needs.
 * Returns 0 or a negative error with the reason in `why`. */
static inline int nk_fs_testdev_open_seeded(struct nk_fs_testdev *d, uint32_t page_size,
                                            uint32_t oob_size, uint32_t pages_per_block,
                                            uint32_t blocks, enum nk_fs_layout layout,
                                            uint64_t seed, struct nk_diag *why)
{
    memset(d, 0, sizeof *d);
    d->layout = layout;
    int err = nk_sim_params_geometry(&d->params, page_size, oob_size, pages_per_block, blocks, why);
    if (err)
        return err;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &d->params;
    config.seed = seed;
    err = nk_sim_open(&d->sim, &config, why);
    if (err)
        return err;
    return nk_fs_testdev_attach(d, why);
}

/* Opens the device: `image_path` NULL for an erased chip in memory, else
 * that image read-only (missing trailing blocks read as erased). Returns 0
 * or a negative error with the reason in `why`. */
static inline int nk_fs_testdev_open(struct nk_fs_testdev *d, uint32_t page_size, uint32_t oob_size,
                                     uint32_t pages_per_block, uint32_t blocks,
                                     enum nk_fs_layout layout, const char *image_path,
                                     struct nk_diag *why)
{
    memset(d, 0, sizeof *d);
    d->layout = layout;
    int err = nk_sim_params_geometry(&d->params, page_size, oob_size, pages_per_block, blocks, why);
    if (err)
        return err;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &d->params;
    config.image_path = image_path;
    config.read_only = image_path != NULL;
    config.no_sidecar = true;
    config.seed = 1;
    err = nk_sim_open(&d->sim, &config, why);
    if (err)
        return err;
    return nk_fs_testdev_attach(d, why);
}

/* Opens simulated `preset` cut to `blocks` blocks as the device its
 * identification chooses (default ECC and OOB layout: a SPI-NAND part's
 * on-die engine and vendor layout) for file-system `layout`. */
static inline int nk_fs_testdev_open_preset(struct nk_fs_testdev *d, const char *preset,
                                            uint32_t blocks, enum nk_fs_layout layout,
                                            struct nk_diag *why)
{
    memset(d, 0, sizeof *d);
    d->layout = layout;
    int err = nk_sim_preset(preset, &d->params);
    if (err)
        return err;
    d->params.chip.blocks = blocks;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &d->params;
    config.seed = 1;
    err = nk_sim_open(&d->sim, &config, why);
    if (err)
        return err;
    size_t ws = nk_nand_default_workspace_size(&d->params.chip);
    d->workspace = malloc(ws);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(d->sim);
    nc.chip = &d->params.chip; /* the cut geometry (the ID names the full part) */
    nc.workspace = d->workspace;
    nc.workspace_size = ws;
    return nk_fs_testdev_open_device(d, &nc, why);
}

static inline void nk_fs_testdev_close(struct nk_fs_testdev *d)
{
    nk_sim_close(d->sim);
    free(d->workspace);
    memset(d, 0, sizeof *d);
}

static inline void *nk_fs_testdev_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static inline void nk_fs_testdev_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

/* A mount configuration for `d` with a malloc allocator. */
static inline struct nk_fs_config nk_fs_testdev_config(struct nk_fs_testdev *d)
{
    struct nk_fs_config config;
    memset(&config, 0, sizeof config);
    config.part = &d->part;
    config.allocator.alloc = nk_fs_testdev_alloc;
    config.allocator.free = nk_fs_testdev_free;
    config.read_only = true;
    nk_fs_config_layout(&config, d->layout);
    return config;
}

#endif
