/* SPDX-License-Identifier: MIT */
/*
 * Linux MTD backend: a /dev/mtdN character device presented as a NAND chip
 * behind nandkit's controller interface (host code, Linux only).
 *
 * The port decodes the instruction lists the chip layer emits (00h-addr-30h
 * page load, 05h/E0h and 85h column changes, 80h-addr-data-10h program,
 * 60h-addr-D0h erase, 70h status, FFh reset) and carries them out with the
 * MTD ioctls: a page load becomes one MEMREAD (data and OOB together), a
 * program one MEMWRITE, an erase one MEMERASE64. `nk_mtd_chip_info()`
 * describes the device from MEMGETINFO and sysfs, so nk_nand_open() attaches
 * without READ ID (pass it as nk_nand_config.chip with skip_reset).
 *
 * Two modes:
 *  - NK_MTD_MODE_RAW: the kernel's ECC is bypassed (MTD_OPS_RAW and
 *    MTD_FILE_MODE_RAW); nandkit's own engine computes and checks the code.
 *  - NK_MTD_MODE_KERNEL_ECC: the kernel corrects. The port reports the
 *    outcome of each page load the way an on-die ECC chip does: the status
 *    read after the load has FAIL (0x01) when a step was uncorrectable and
 *    REWRITE (0x08) when the largest bitflip count in a step reached the
 *    threshold. Open the device with nk_mtd_ecc_engine()'s on-die engine.
 *
 * The kernel's per-read figures come from MEMREAD's ecc_stats (Linux 6.0+);
 * on older kernels the port falls back to pread() + MEMREADOOB64 and
 * compares ECCGETSTATS before and after each load (a plain pread() reports
 * an uncorrectable page as success). See docs/linux-mtd.md.
 */
#ifndef NANDKIT_MTD_H
#define NANDKIT_MTD_H

#include <stdbool.h>
#include <stdint.h>

#include "nandkit/chip.h"
#include "nandkit/ctrl.h"
#include "nandkit/diag.h"
#include "nandkit/ecc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nk_mtd;

enum nk_mtd_mode {
    NK_MTD_MODE_KERNEL_ECC, /* the kernel's ECC engine corrects; nandkit sees on-die ECC */
    NK_MTD_MODE_RAW,        /* no kernel ECC: data and OOB exactly as on flash */
};

/* How to open. Zero every field you do not set. */
struct nk_mtd_config {
    const char *path; /* "/dev/mtdN" (required) */
    enum nk_mtd_mode mode;
    bool read_only;             /* open O_RDONLY: program/erase report write protection */
    bool legacy_io;             /* never use MEMREAD: pread + MEMREADOOB64 + ECCGETSTATS */
    unsigned bitflip_threshold; /* kernel-ECC mode: bitflips that set REWRITE; 0 = the
                                   kernel's own (sysfs bitflip_threshold) */
};

/* What the kernel's ECC of the device is, from sysfs and ECCGETLAYOUT. */
struct nk_mtd_ecc_info {
    unsigned strength;          /* bits per step (0 = none / unknown) */
    unsigned step_size;         /* bytes per step */
    unsigned bytes_per_step;    /* code bytes per step (from the layout) */
    unsigned bitflip_threshold; /* the kernel's scrub threshold */
    bool layout_from_kernel;    /* layout came from ECCGETLAYOUT, not the Linux default */
    struct nk_oob_layout layout;
};

/* Kernel figures of the last page load (kernel-ECC mode; zero in raw mode). */
struct nk_mtd_read_stats {
    uint32_t corrected_bitflips;   /* over all steps of the page */
    uint32_t uncorrectable_errors; /* steps the kernel could not correct */
    uint32_t max_bitflips;         /* largest count in any step (legacy I/O: the sum) */
};

/* Operation counts of the port (ioctl level). */
struct nk_mtd_counters {
    uint64_t page_loads; /* MEMREAD / pread+MEMREADOOB64 of one page */
    uint64_t oob_loads;  /* OOB-only loads */
    uint64_t programs;   /* MEMWRITE */
    uint64_t erases;     /* MEMERASE64 */
    uint64_t failed_ops; /* loads/programs/erases the kernel refused */
};

/* Opens the device and fills its description. Returns 0 and sets *mtd
 * (allocated; free with nk_mtd_close), or -NK_ENODEV (not an MTD NAND
 * device), -NK_EINVAL (bad config), -NK_EPERM / -NK_EIO (open or ioctl
 * refused) with a one-line reason in `why` (may be NULL). */
int nk_mtd_open(struct nk_mtd **mtd, const struct nk_mtd_config *config, struct nk_diag *why);

/* Closes the descriptor and frees everything. NULL is allowed. */
void nk_mtd_close(struct nk_mtd *mtd);

/* The controller port; valid until nk_mtd_close(). */
const struct nk_ctrl *nk_mtd_ctrl(struct nk_mtd *mtd);

/* Geometry from MEMGETINFO, presented as a large-page part with
 * NK_CHIP_ON_DIE_ECC in kernel-ECC mode; vendor "linux-mtd", model = the
 * MTD name. No READ ID data (id_len 0), no timings (all 0). */
const struct nk_chip_info *nk_mtd_chip_info(const struct nk_mtd *mtd);

/* Kernel-ECC mode: with `raw`, page data and OOB move as on flash
 * (MTD_OPS_RAW, the file in MTD_FILE_MODE_RAW), bypassing the kernel's ECC
 * both ways, until called again without it; nothing to do in raw mode.
 * Returns 0 or a negative error (the kernel refused the file mode). */
int nk_mtd_set_raw_io(struct nk_mtd *mtd, bool raw);

/* The mode the device was opened in. */
enum nk_mtd_mode nk_mtd_mode(const struct nk_mtd *mtd);

/* The kernel's ECC and OOB layout. */
const struct nk_mtd_ecc_info *nk_mtd_ecc_info(const struct nk_mtd *mtd);

/* Fills the engine and layout to open a device with: kernel-ECC mode, an
 * on-die engine of the kernel's strength and step; raw mode, nandkit's
 * software engine equal to the kernel's (Hamming for strength 1, BCH
 * otherwise; its tables belong to `mtd`). The layout is the kernel's.
 * Returns 0, or -NK_ENOTSUP when raw mode meets a kernel ECC nandkit has
 * no software twin for (the engine is then "none"), with the reason in
 * `why` (may be NULL). */
int nk_mtd_ecc_engine(struct nk_mtd *mtd, struct nk_ecc_engine *engine,
                      struct nk_oob_layout *layout, struct nk_diag *why);

/* A wall clock (CLOCK_MONOTONIC) for busy-time statistics and benchmarks. */
const struct nk_clock *nk_mtd_clock(struct nk_mtd *mtd);

/* The kernel's bad-block view (MEMGETBADBLOCK): 1 bad, 0 good, or a
 * negative error. */
int nk_mtd_block_is_bad(struct nk_mtd *mtd, uint32_t block);

/* Marks `block` bad through the kernel (MEMSETBADBLOCK: its BBT and/or
 * marker, per the driver). 0, -NK_EROFS when opened read-only, or -NK_EIO. */
int nk_mtd_block_mark_bad(struct nk_mtd *mtd, uint32_t block);

/* Kernel figures of the last page load. */
void nk_mtd_last_read_stats(const struct nk_mtd *mtd, struct nk_mtd_read_stats *stats);

/* True when reads go through pread + MEMREADOOB64 + ECCGETSTATS. */
bool nk_mtd_uses_legacy_io(const struct nk_mtd *mtd);

/* Port operation counts since open. */
void nk_mtd_counters_get(const struct nk_mtd *mtd, struct nk_mtd_counters *counters);

/* True when `path` names an MTD character device by its name ("/dev/mtd*"),
 * so tools can dispatch without touching the file. */
bool nk_mtd_path_is_mtd(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_MTD_H */
