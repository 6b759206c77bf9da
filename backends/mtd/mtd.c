/* SPDX-License-Identifier: MIT */
/*
 * Linux MTD backend: opening /dev/mtdN, describing it as a chip, the
 * kernel's ECC and OOB layout, and the kernel's bad-block view.
 *
 * The port itself (instruction decoding and the read/program/erase ioctls)
 * lives in mtd_port.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "mtd_internal.h"
#include "nandkit/error.h"

/* Character-device major of MTD (Documentation/admin-guide/devices.txt). */
#define NK_MTD_CHAR_MAJOR 90u

static int nk_mtd_errno(int error)
{
    switch (error) {
    case EPERM:
    case EACCES:
        return -NK_EPERM;
    case ENOENT:
        return -NK_ENOENT;
    case ENODEV:
    case ENXIO:
    case ENOTTY:
        return -NK_ENODEV;
    case EROFS:
        return -NK_EROFS;
    case EINVAL:
        return -NK_EINVAL;
    default:
        return -NK_EIO;
    }
}

/* Writes a one-line reason into `why` (may be NULL) and returns `err`. */
static int nk_mtd_fail(struct nk_diag *why, int err, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int nk_mtd_fail(struct nk_diag *why, int err, const char *format, ...)
{
    if (why) {
        va_list args;
        va_start(args, format);
        vsnprintf(why->text, sizeof why->text, format, args);
        va_end(args);
    }
    return err;
}

bool nk_mtd_path_is_mtd(const char *path)
{
    return path && strncmp(path, "/dev/mtd", 8) == 0;
}

/* ----- sysfs -------------------------------------------------------------------- */

/* Reads /sys/class/mtd/mtdN/<attr> into `buf` (trailing newline dropped).
 * Returns false when absent. */
static bool nk_mtd_sysfs_read(const struct nk_mtd *mtd, const char *attr, char *buf, size_t size)
{
    if (mtd->index == -1u || size == 0)
        return false;
    char path[96];
    snprintf(path, sizeof path, "/sys/class/mtd/mtd%u/%s", mtd->index, attr);
    FILE *file = fopen(path, "r");
    if (!file)
        return false;
    bool ok = fgets(buf, (int)size, file) != NULL;
    fclose(file);
    if (ok) {
        size_t len = strlen(buf);
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
            buf[--len] = '\0';
    }
    return ok;
}

static bool nk_mtd_sysfs_u64(const struct nk_mtd *mtd, const char *attr, uint64_t *value)
{
    char buf[32];
    if (!nk_mtd_sysfs_read(mtd, attr, buf, sizeof buf))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (errno || end == buf)
        return false;
    *value = v;
    return true;
}

/* ----- description ---------------------------------------------------------------- */

static uint8_t nk_mtd_cycles_for(uint64_t count)
{
    uint8_t cycles = 1;
    while (count > 256) {
        count = (count + 255) / 256;
        cycles++;
    }
    return cycles;
}

static int nk_mtd_describe(struct nk_mtd *mtd, const char *path, struct nk_diag *why)
{
    struct mtd_info_user *info = &mtd->info;
    if (info->type != MTD_NANDFLASH && info->type != MTD_MLCNANDFLASH)
        return nk_mtd_fail(why, -NK_ENODEV, "%s is not NAND flash (MTD type %u)", path,
                           (unsigned)info->type);
    if (info->writesize == 0 || info->oobsize == 0 || info->erasesize % info->writesize)
        return nk_mtd_fail(why, -NK_ENODEV,
                           "%s: unusable geometry (page %u, OOB %u, erase block %u bytes)", path,
                           info->writesize, info->oobsize, info->erasesize);
    uint64_t size = info->size;
    uint64_t sysfs_size;
    if (nk_mtd_sysfs_u64(mtd, "size", &sysfs_size) && sysfs_size > size)
        size = sysfs_size; /* MEMGETINFO's size is 32-bit */

    struct nk_chip_info *chip = &mtd->chip;
    memset(chip, 0, sizeof *chip);
    snprintf(chip->vendor, sizeof chip->vendor, "linux-mtd");
    char name[64];
    if (!nk_mtd_sysfs_read(mtd, "name", name, sizeof name))
        snprintf(name, sizeof name, "%s", path);
    snprintf(chip->model, sizeof chip->model, "%.31s", name);
    chip->page_size = info->writesize;
    chip->oob_size = info->oobsize;
    chip->pages_per_block = info->erasesize / info->writesize;
    chip->blocks = (uint32_t)(size / info->erasesize);
    chip->luns = 1;
    /* Every device is presented with the large-page command set, whatever
     * its page size: the port decodes that set only. */
    chip->col_cycles = nk_mtd_cycles_for((uint64_t)info->writesize + info->oobsize);
    chip->row_cycles = nk_mtd_cycles_for((uint64_t)chip->blocks * chip->pages_per_block);
    if (chip->col_cycles < 2)
        chip->col_cycles = 2;
    chip->bits_per_cell = info->type == MTD_MLCNANDFLASH ? 2 : 1;
    chip->ecc_strength = (uint8_t)mtd->ecc.strength;
    chip->ecc_step = (uint16_t)mtd->ecc.step_size;
    /* Linux's rule for most SLC vendors; small pages keep the marker at 5. */
    chip->bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE;
    chip->bbm_offset = info->writesize <= 512 ? 5 : 0;
    chip->features = NK_CHIP_RANDOM_OUT;
    if (mtd->mode == NK_MTD_MODE_KERNEL_ECC)
        chip->features |= NK_CHIP_ON_DIE_ECC;
    if (chip->blocks == 0)
        return nk_mtd_fail(why, -NK_ENODEV, "%s: smaller than one erase block", path);
    return 0;
}

/* Code bytes per step of the kernel's software engines, for a device whose
 * layout the kernel does not report. */
static unsigned nk_mtd_default_code_bytes(unsigned strength, unsigned step_size)
{
    if (strength == 1)
        return 3; /* Hamming */
    unsigned m = 0;
    for (unsigned bits = 1u + 8u * step_size; bits; bits >>= 1)
        m++;
    return (m * strength + 7u) / 8u;
}

/* The kernel's ECC: strength and step from sysfs, layout from ECCGETLAYOUT
 * (deprecated but still answered for layouts that fit its struct), else
 * Linux's default layout for the geometry. */
static void nk_mtd_describe_ecc(struct nk_mtd *mtd)
{
    struct nk_mtd_ecc_info *ecc = &mtd->ecc;
    uint64_t value;
    memset(ecc, 0, sizeof *ecc);
    if (nk_mtd_sysfs_u64(mtd, "ecc_strength", &value))
        ecc->strength = (unsigned)value;
    if (nk_mtd_sysfs_u64(mtd, "ecc_step_size", &value))
        ecc->step_size = (unsigned)value;
    if (nk_mtd_sysfs_u64(mtd, "bitflip_threshold", &value))
        ecc->bitflip_threshold = (unsigned)value;
    if (!ecc->bitflip_threshold && ecc->strength)
        ecc->bitflip_threshold = (3u * ecc->strength + 3u) / 4u;

    unsigned oob = mtd->info.oobsize, page = mtd->info.writesize;
    struct nand_ecclayout_user user;
    memset(&user, 0, sizeof user);
    if (ioctl(mtd->fd, ECCGETLAYOUT, &user) == 0 && user.eccbytes <= MTD_MAX_ECCPOS_ENTRIES) {
        struct nk_oob_layout *layout = &ecc->layout;
        memset(layout, 0, sizeof *layout);
        /* eccpos lists single bytes: merge runs into regions. */
        bool ok = true;
        for (unsigned i = 0; i < user.eccbytes && ok; i++) {
            unsigned pos = user.eccpos[i];
            struct nk_oob_region *last =
                layout->ecc_count ? &layout->ecc[layout->ecc_count - 1] : NULL;
            if (last && last->offset + last->length == pos) {
                last->length++;
            } else if (layout->ecc_count < NK_OOB_MAX_REGIONS) {
                layout->ecc[layout->ecc_count++] = (struct nk_oob_region){(uint16_t)pos, 1};
            } else {
                ok = false;
            }
        }
        for (unsigned i = 0; i < MTD_MAX_OOBFREE_ENTRIES && i < NK_OOB_MAX_REGIONS; i++) {
            if (user.oobfree[i].length == 0)
                break;
            layout->free[layout->free_count++] = (struct nk_oob_region){
                (uint16_t)user.oobfree[i].offset, (uint16_t)user.oobfree[i].length};
        }
        unsigned steps = ecc->step_size ? page / ecc->step_size : 0;
        if (ok && nk_oob_layout_check(layout, oob, user.eccbytes) == 0) {
            ecc->layout_from_kernel = true;
            ecc->bytes_per_step = steps ? user.eccbytes / steps : 0;
            return;
        }
    }

    unsigned steps = ecc->step_size ? page / ecc->step_size : 0;
    ecc->bytes_per_step =
        ecc->strength && steps ? nk_mtd_default_code_bytes(ecc->strength, ecc->step_size) : 0;
    unsigned total = steps * ecc->bytes_per_step;
    int err;
    if (page <= 512)
        err = nk_oob_layout_small_page(&ecc->layout, oob);
    else if (ecc->strength == 1)
        err = nk_oob_layout_large_hamming(&ecc->layout, oob, total);
    else if (total)
        err = nk_oob_layout_large(&ecc->layout, oob, total);
    else
        err = nk_oob_layout_all_free(&ecc->layout, oob, 2);
    if (err)
        nk_oob_layout_all_free(&ecc->layout, oob, 2);
}

/* ----- clock ------------------------------------------------------------------------ */

static uint64_t nk_mtd_now_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ----- open / close ------------------------------------------------------------------- */

int nk_mtd_open(struct nk_mtd **result, const struct nk_mtd_config *config, struct nk_diag *why)
{
    if (why)
        why->text[0] = '\0';
    *result = NULL;
    if (!config || !config->path)
        return nk_mtd_fail(why, -NK_EINVAL, "no MTD device path given");
    if (config->mode != NK_MTD_MODE_RAW && config->mode != NK_MTD_MODE_KERNEL_ECC)
        return nk_mtd_fail(why, -NK_EINVAL, "%s: unknown mode %d", config->path, (int)config->mode);

    struct nk_mtd *mtd = calloc(1, sizeof *mtd);
    if (!mtd)
        return nk_mtd_fail(why, -NK_ENOMEM, "%s: out of memory", config->path);
    mtd->mode = config->mode;
    mtd->read_only = config->read_only;
    mtd->legacy_io = config->legacy_io;
    mtd->index = -1u;
    mtd->fd = open(config->path, (config->read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    int err;
    if (mtd->fd < 0) {
        err = nk_mtd_fail(why, nk_mtd_errno(errno), "cannot open %s: %s", config->path,
                          strerror(errno));
        goto fail;
    }
    struct stat st;
    if (fstat(mtd->fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
        err = nk_mtd_fail(why, -NK_ENODEV, "%s is not a character device", config->path);
        goto fail;
    }
    if (major(st.st_rdev) == NK_MTD_CHAR_MAJOR)
        mtd->index = minor(st.st_rdev) / 2u;
    if (ioctl(mtd->fd, MEMGETINFO, &mtd->info) != 0) {
        err = nk_mtd_fail(why, -NK_ENODEV, "%s: MEMGETINFO failed: %s (not an MTD device?)",
                          config->path, strerror(errno));
        goto fail;
    }
    if (mtd->mode == NK_MTD_MODE_RAW &&
        ioctl(mtd->fd, MTDFILEMODE, (unsigned long)MTD_FILE_MODE_RAW) != 0) {
        err = nk_mtd_fail(why, nk_mtd_errno(errno), "%s: MTDFILEMODE raw refused: %s", config->path,
                          strerror(errno));
        goto fail;
    }
    nk_mtd_describe_ecc(mtd);
    err = nk_mtd_describe(mtd, config->path, why);
    if (err)
        goto fail;
    mtd->threshold =
        config->bitflip_threshold ? config->bitflip_threshold : mtd->ecc.bitflip_threshold;
    if (!mtd->threshold)
        mtd->threshold = 1;

    mtd->reg = malloc((size_t)mtd->info.writesize + mtd->info.oobsize);
    if (!mtd->reg) {
        err = nk_mtd_fail(why, -NK_ENOMEM, "%s: out of memory", config->path);
        goto fail;
    }
    mtd->ctrl.ops = &nk_mtd_ctrl_ops;
    mtd->ctrl.ctx = mtd;
    mtd->ctrl.caps = NK_CTRL_CAP_RB_LINE; /* every ioctl completes before it returns */
    mtd->clock.now_ns = nk_mtd_now_ns;
    mtd->clock.ctx = mtd;
    nk_mtd_port_reset(mtd);
    *result = mtd;
    return 0;

fail:
    nk_mtd_close(mtd);
    return err;
}

void nk_mtd_close(struct nk_mtd *mtd)
{
    if (!mtd)
        return;
    if (mtd->fd >= 0)
        close(mtd->fd);
    free(mtd->reg);
    free(mtd->bch_workspace);
    free(mtd);
}

/* ----- accessors ---------------------------------------------------------------------- */

const struct nk_ctrl *nk_mtd_ctrl(struct nk_mtd *mtd)
{
    return &mtd->ctrl;
}

const struct nk_chip_info *nk_mtd_chip_info(const struct nk_mtd *mtd)
{
    return &mtd->chip;
}

enum nk_mtd_mode nk_mtd_mode(const struct nk_mtd *mtd)
{
    return mtd->mode;
}

const struct nk_mtd_ecc_info *nk_mtd_ecc_info(const struct nk_mtd *mtd)
{
    return &mtd->ecc;
}

const struct nk_clock *nk_mtd_clock(struct nk_mtd *mtd)
{
    return &mtd->clock;
}

void nk_mtd_last_read_stats(const struct nk_mtd *mtd, struct nk_mtd_read_stats *stats)
{
    *stats = mtd->last;
}

bool nk_mtd_uses_legacy_io(const struct nk_mtd *mtd)
{
    return mtd->legacy_io;
}

void nk_mtd_counters_get(const struct nk_mtd *mtd, struct nk_mtd_counters *counters)
{
    *counters = mtd->counters;
}

int nk_mtd_ecc_engine(struct nk_mtd *mtd, struct nk_ecc_engine *engine,
                      struct nk_oob_layout *layout, struct nk_diag *why)
{
    const struct nk_mtd_ecc_info *ecc = &mtd->ecc;
    *layout = ecc->layout;
    if (mtd->mode == NK_MTD_MODE_KERNEL_ECC) {
        nk_ecc_on_die_init(engine, ecc->step_size ? ecc->step_size : mtd->info.writesize,
                           ecc->strength);
        /* The device layer's on-die path carries the kernel's verdict, but
         * the chip does not correct itself: name who does. */
        engine->name = "kernel";
        return 0;
    }
    nk_ecc_none_init(engine);
    if (ecc->strength == 0)
        return 0;
    if (ecc->strength == 1 && ecc->bytes_per_step == 3)
        return nk_ecc_hamming_init(engine, ecc->step_size, false) ? -NK_ENOTSUP : 0;
    free(mtd->bch_workspace);
    mtd->bch_workspace = NULL;
    unsigned m = 0;
    for (unsigned bits = 1u + 8u * ecc->step_size; bits; bits >>= 1)
        m++;
    size_t size = nk_bch_workspace_size(m, ecc->strength, 0);
    if (size == 0)
        return nk_diag_set(why, -NK_ENOTSUP, "no software BCH for t=%u over %u bytes",
                           ecc->strength, ecc->step_size);
    mtd->bch_workspace = malloc(size);
    if (!mtd->bch_workspace)
        return -NK_ENOMEM;
    int err = nk_bch_init(&mtd->bch, ecc->step_size, ecc->strength, 0, mtd->bch_workspace, size);
    if (err)
        return nk_diag_set(why, -NK_ENOTSUP, "no software BCH for t=%u over %u bytes",
                           ecc->strength, ecc->step_size);
    if (mtd->bch.ecc_bytes != ecc->bytes_per_step)
        return nk_diag_set(why, -NK_ENOTSUP,
                           "kernel stores %u ECC bytes per step; BCH t=%u needs %u: not a software "
                           "engine nandkit can stand in for (an on-die ECC, as on SPI-NAND, or a "
                           "controller's): use the kernel's ECC",
                           ecc->bytes_per_step, ecc->strength, mtd->bch.ecc_bytes);
    nk_ecc_bch_engine_init(engine, &mtd->bch);
    return 0;
}

int nk_mtd_set_raw_io(struct nk_mtd *mtd, bool raw)
{
    if (mtd->mode == NK_MTD_MODE_RAW)
        return 0;
    /* The file mode covers what read()/MEMREADOOB64 do on older kernels;
     * MEMREAD and MEMWRITE take MTD_OPS_RAW per request. */
    unsigned long file_mode = raw ? MTD_FILE_MODE_RAW : MTD_FILE_MODE_NORMAL;
    if (ioctl(mtd->fd, MTDFILEMODE, file_mode) != 0)
        return nk_mtd_errno(errno);
    mtd->raw_io = raw;
    nk_mtd_port_reset(mtd);
    return 0;
}

/* ----- bad blocks ----------------------------------------------------------------------- */

int nk_mtd_block_is_bad(struct nk_mtd *mtd, uint32_t block)
{
    if (block >= mtd->chip.blocks)
        return -NK_EINVAL;
    long long offset = (long long)block * mtd->info.erasesize;
    int ret = ioctl(mtd->fd, MEMGETBADBLOCK, &offset);
    if (ret < 0) {
        if (errno == EOPNOTSUPP)
            return 0; /* the device has no bad blocks at all */
        return nk_mtd_errno(errno);
    }
    return ret > 0;
}

int nk_mtd_block_mark_bad(struct nk_mtd *mtd, uint32_t block)
{
    if (block >= mtd->chip.blocks)
        return -NK_EINVAL;
    if (mtd->read_only)
        return -NK_EROFS;
    long long offset = (long long)block * mtd->info.erasesize;
    if (ioctl(mtd->fd, MEMSETBADBLOCK, &offset) != 0)
        return nk_mtd_errno(errno);
    return 0;
}
