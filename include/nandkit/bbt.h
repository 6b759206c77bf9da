/* SPDX-License-Identifier: MIT */
/*
 * Bad-block table: Linux MTD compatible, on flash and in RAM.
 *
 * On flash (docs/bbt.md): a main table marked "Bbt0" and a mirror marked
 * "1tbB" at OOB bytes 8..11 of the first page of a block among the last 4
 * blocks of the chip, version byte at OOB 12, 2 bits per block in the data
 * area (11 good, 00 factory bad, 01/10 worn), block 0 in the low bits.
 * Versions compare wrap-safe. With no table on flash the factory markers
 * are scanned once (never erasing anything first) and both tables written.
 *
 * Attaching a table to a device makes the device consult it: bad and
 * reserved (table) blocks are refused by ordinary program/erase, and an
 * erase that fails marks the block worn in both tables and by marker.
 */
#ifndef NANDKIT_BBT_H
#define NANDKIT_BBT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/nand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks at the end of the chip searched for and holding the tables. */
#define NK_BBT_MAX_BLOCKS 4

/* A block's state in the table. */
enum nk_bbt_state {
    NK_BBT_GOOD = 0,
    NK_BBT_WORN = 1,        /* went bad in use (erase/program failure) */
    NK_BBT_RESERVED = 2,    /* one of the table blocks: not for ordinary use */
    NK_BBT_FACTORY_BAD = 3, /* marked bad by the manufacturer */
};

/* Where the tables are and what attaching did. */
struct nk_bbt_info {
    int32_t main_block; /* -1 when none */
    uint8_t main_version;
    int32_t mirror_block; /* -1 when none */
    uint8_t mirror_version;
    bool scanned;      /* factory markers were scanned (no usable table) */
    bool main_written; /* the main table was (or, in a dry run, would be) written */
    bool mirror_written;
    bool scrubbed;        /* a table read with bitflips and was rewritten */
    uint32_t factory_bad; /* counts over the whole chip */
    uint32_t worn;
};

/* How to attach. Zero every field you do not set. */
struct nk_bbt_config {
    void *memory; /* nk_bbt_memory_size() bytes (4-byte aligned) */
    size_t memory_size;
    bool dry_run;    /* read and scan only: never program or erase */
    bool force_scan; /* ignore tables on flash; scan the markers (then write, unless dry) */
};

struct nk_bbt {
    uint8_t *entries; /* 2 bits per block, NK_BBT_* values */
    uint8_t *page;    /* page_size + oob_size bytes of I/O buffer */
    uint32_t blocks;
    bool dry_run;
    struct nk_bbt_info info;
};

/* Bytes of memory a table needs for `blocks` blocks of `page_size` +
 * `oob_size`-byte pages: its entries (2 bits a block, rounded up to 4
 * bytes) and one page with its OOB. A constant expression, for static
 * buffers sized before the chip is identified. */
#define NK_BBT_MEMORY_SIZE(page_size, oob_size, blocks)                                            \
    (((((size_t)(blocks) + 3u) / 4u + 3u) & ~(size_t)3u) + (size_t)(page_size) + (size_t)(oob_size))

/* Bytes nk_nand_config.bbt adds to the device's workspace for such a chip:
 * the struct nk_bbt (with up to 8 bytes of alignment) and its memory.
 * nk_nand_bbt_workspace_size() gives the same for an identified chip. */
#define NK_BBT_WORKSPACE_SIZE(page_size, oob_size, blocks)                                         \
    (8u + sizeof(struct nk_bbt) + NK_BBT_MEMORY_SIZE(page_size, oob_size, blocks))

/* Bytes of memory a table for `dev` needs: NK_BBT_MEMORY_SIZE() of its chip. */
size_t nk_bbt_memory_size(const struct nk_nand *dev);

/* Finds and reads the tables (or scans the markers and writes both tables),
 * repairs a missing, older or unreadable copy, scrubs a copy read with
 * bitflips, marks the table blocks reserved, and attaches `bbt` to `dev`.
 * Returns 0, -NK_ENOSPC when no reserved block could take a table
 * (dev->diag says so), -NK_EINVAL for bad memory, or an I/O error. */
int nk_bbt_attach(struct nk_nand *dev, struct nk_bbt *bbt, const struct nk_bbt_config *config);

/* Detaches the table from the device (nothing is written). */
void nk_bbt_detach(struct nk_nand *dev);

/* State of `block` (NK_BBT_*), or -NK_EINVAL out of range. */
int nk_bbt_block_state(const struct nk_bbt *bbt, uint32_t block);

/* Marks `block` worn: RAM, the factory-style marker in its OOB, and a new
 * version of both tables. Marking a bad block again is a no-op (0). In a dry
 * run only RAM changes. */
int nk_bbt_mark_worn(struct nk_nand *dev, uint32_t block);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_BBT_H */
