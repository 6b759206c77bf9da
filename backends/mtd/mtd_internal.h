/* SPDX-License-Identifier: MIT */
/* Linux MTD backend internals shared between its files. */
#ifndef NK_MTD_INTERNAL_H
#define NK_MTD_INTERNAL_H

#include <mtd/mtd-user.h>
#include <stdbool.h>
#include <stdint.h>

#include "nandkit/ctrl.h"
#include "nandkit/diag.h"
#include "nandkit/ecc.h"
#include "nandkit/mtd.h"

/* What DATA_IN returns after the last command. */
enum nk_mtd_output {
    NK_MTD_OUT_DATA,   /* the page register at the current column */
    NK_MTD_OUT_STATUS, /* the status byte */
    NK_MTD_OUT_ZEROES, /* READ ID, parameter page, get features: nothing to report */
};

/* The command whose address (or confirm) the port is waiting for. */
enum nk_mtd_pending {
    NK_MTD_PENDING_NONE,
    NK_MTD_PENDING_READ,      /* 00h: address, then 30h */
    NK_MTD_PENDING_READ_COL,  /* 05h: column, then E0h */
    NK_MTD_PENDING_PROGRAM,   /* 80h: address, then data */
    NK_MTD_PENDING_WRITE_COL, /* 85h: column, then data */
    NK_MTD_PENDING_ERASE,     /* 60h: row, then D0h */
    NK_MTD_PENDING_OTHER,     /* 90h/ECh/EEh/EFh: one address byte, ignored */
};

struct nk_mtd {
    int fd;
    unsigned index; /* N of /dev/mtdN, for sysfs (-1u when unknown) */
    enum nk_mtd_mode mode;
    bool raw_io; /* kernel-ECC mode, for now: pages move raw (nk_mtd_set_raw_io) */
    bool read_only;
    bool legacy_io;
    struct mtd_info_user info;
    struct nk_chip_info chip;
    struct nk_mtd_ecc_info ecc;
    struct nk_ctrl ctrl;
    struct nk_clock clock;
    unsigned threshold; /* REWRITE at this many bitflips in a step */

    /* The chip-like state the port keeps between operations. */
    enum nk_mtd_output output;
    enum nk_mtd_pending pending;
    uint8_t status;
    uint32_t column;     /* next byte of the page register */
    uint32_t row;        /* page of the last address */
    uint8_t *reg;        /* page register: page + OOB bytes */
    bool loaded;         /* a page load (30h) happened; fetched lazily */
    bool data_valid;     /* reg holds the page's data and OOB */
    bool oob_valid;      /* reg holds the page's OOB */
    bool programming;    /* between 80h and 10h */
    uint32_t touched_lo; /* byte range DATA_OUT filled since 80h */
    uint32_t touched_hi;

    struct nk_mtd_read_stats last;
    struct nk_mtd_counters counters;
    struct nk_diag diag;

    /* Raw mode's software twin of the kernel's BCH. */
    struct nk_bch bch;
    void *bch_workspace;
};

/* The port's operations (mtd_port.c). */
extern const struct nk_ctrl_ops nk_mtd_ctrl_ops;

/* Whether page transfers bypass the kernel's ECC (MTD_OPS_RAW): raw mode,
 * or kernel-ECC mode switched by nk_mtd_set_raw_io(). */
static inline bool nk_mtd_transfers_raw(const struct nk_mtd *mtd)
{
    return mtd->mode == NK_MTD_MODE_RAW || mtd->raw_io;
}

/* Resets the chip-like state (as after FFh). */
void nk_mtd_port_reset(struct nk_mtd *mtd);

#endif
