/* SPDX-License-Identifier: MIT */
/*
 * /dev/mtdN as the thing a command works on: the Linux MTD backend's port,
 * opened as a device with the kernel's ECC (on-die style) or, with
 * --mtd-ecc nandkit, raw with nandkit's twin of the kernel's ECC, and the
 * kernel's OOB layout either way.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "image.h"
#include "nandkit/error.h"
#include "tool.h"

#ifdef NANDKIT_HAVE_MTD
#include "nandkit/mtd.h"
#endif

/* The character-device major number Linux gives every /dev/mtdN
 * (MTD_CHAR_MAJOR in include/uapi/linux/major.h). */
#define TOOL_MTD_CHAR_MAJOR 90

bool tool_path_is_mtd(const char *path)
{
    if (!path)
        return false;
    if (strncmp(path, "/dev/mtd", 8) == 0)
        return true;
    /* Another name for one (a udev link such as /dev/mtd/by-name/X). */
    struct stat st;
    return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == TOOL_MTD_CHAR_MAJOR;
}

#ifdef NANDKIT_HAVE_MTD

static int tool_mtd_is_bad(void *ctx, uint32_t block)
{
    return nk_mtd_block_is_bad(ctx, block);
}

static int tool_mtd_mark_bad(void *ctx, uint32_t block)
{
    return nk_mtd_block_mark_bad(ctx, block);
}

int tool_image_open_mtd(struct tool_image *image, const struct tool_image_opts *opts)
{
    if (opts->chip || opts->geometry)
        return tool_fail("%s describes itself: drop --chip/--geometry", opts->path);
    if (opts->power_cut_after >= 0)
        return tool_fail("--power-cut-after needs the simulator, not %s", opts->path);
    struct nk_mtd_config config;
    memset(&config, 0, sizeof config);
    config.path = opts->path;
    config.mode = opts->mtd_raw ? NK_MTD_MODE_RAW : NK_MTD_MODE_KERNEL_ECC;
    config.read_only = opts->read_only;
    struct nk_diag why[1] = {{""}};
    int err = nk_mtd_open(&image->mtd, &config, why);
    if (err)
        return tool_fail("%s", why->text[0] ? why->text : nk_strerror(err));

    const struct nk_chip_info *info = nk_mtd_chip_info(image->mtd);
    image->params.chip = *info;
    err = nk_mtd_ecc_engine(image->mtd, &image->ecc, &image->oob_layout, why);
    if (err) {
        int code = tool_fail("%s: %s", opts->path, why->text[0] ? why->text : nk_strerror(err));
        tool_image_close(image);
        return code;
    }
    size_t workspace_size = nk_nand_workspace_size(info);
    image->workspace = malloc(workspace_size);
    struct nk_nand_config nand_config;
    memset(&nand_config, 0, sizeof nand_config);
    nand_config.ctrl = nk_mtd_ctrl(image->mtd);
    nand_config.chip = info;
    nand_config.skip_reset = true;
    nand_config.ecc = &image->ecc;
    nand_config.layout = &image->oob_layout;
    nand_config.workspace = image->workspace;
    nand_config.workspace_size = image->workspace ? workspace_size : 0;
    nand_config.clock = nk_mtd_clock(image->mtd);
    nand_config.read_only = opts->read_only;
    /* The kernel keeps the bad-block state of an MTD device: ask it. */
    image->badblocks.is_bad = tool_mtd_is_bad;
    image->badblocks.mark_bad = tool_mtd_mark_bad;
    image->badblocks.ctx = image->mtd;
    nand_config.badblocks = &image->badblocks;
    err = nk_nand_open(&image->nand, &nand_config);
    if (!err)
        err = nk_part_init(&image->part, &image->nand, "mtd", 0, 0,
                           opts->read_only ? NK_PART_READ_ONLY : 0);
    if (err) {
        int code = tool_fail("%s: %s", opts->path,
                             image->nand.diag.text[0] ? image->nand.diag.text : nk_strerror(err));
        tool_image_close(image);
        return code;
    }
    return 0;
}

int tool_image_raw_io(struct tool_image *image)
{
    if (!image->mtd)
        return 0;
    int err = nk_mtd_set_raw_io(image->mtd, true);
    return err ? tool_error("--noecc: the kernel refused raw access: %s", nk_strerror(err)) : 0;
}

void tool_image_close_mtd(struct tool_image *image)
{
    nk_mtd_close(image->mtd);
    image->mtd = NULL;
}

#else /* !NANDKIT_HAVE_MTD */

static int tool_mtd_is_bad(void *ctx, uint32_t block)
{
    return nk_mtd_block_is_bad(ctx, block);
}

static int tool_mtd_mark_bad(void *ctx, uint32_t block)
{
    return nk_mtd_block_mark_bad(ctx, block);
}

int tool_image_open_mtd(struct tool_image *image, const struct tool_image_opts *opts)
{
    (void)image;
    return tool_fail("%s: this nandkit was built without the Linux MTD backend", opts->path);
}

int tool_image_raw_io(struct tool_image *image)
{
    (void)image;
    return 0;
}

void tool_image_close_mtd(struct tool_image *image)
{
    (void)image;
}

#endif
