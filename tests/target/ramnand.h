/* SPDX-License-Identifier: MIT */
/*
 * A K9F1G08U0A in RAM behind the controller interface: the chip's ID, its
 * 2048+64-byte pages, 64 pages per block and 1 024 blocks, and the commands
 * nandkit sends it (reset, read ID, read with column change and read cache,
 * program with column change and cache program, copy-back, erase, status).
 * Programming only clears bits, as on flash. A block takes RAM when it is
 * first programmed and gives it back when erased, so the whole chip fits in
 * `store` as long as fewer than `store_blocks` blocks hold data at a time.
 * For tests: bits of stored pages can be flipped, and the power can be cut
 * after a number of programs and erases (every later operation fails with
 * -NK_ENODEV and leaves the array alone, until the power comes back).
 */
#ifndef RAMNAND_H
#define RAMNAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/ctrl.h"

#define RAMNAND_PAGE 2048u
#define RAMNAND_OOB 64u
#define RAMNAND_RAW (RAMNAND_PAGE + RAMNAND_OOB)
#define RAMNAND_PAGES_PER_BLOCK 64u
#define RAMNAND_BLOCKS 1024u
#define RAMNAND_BLOCK_BYTES (RAMNAND_RAW * RAMNAND_PAGES_PER_BLOCK)

struct ramnand {
    struct nk_ctrl ctrl;
    uint8_t *store;        /* store_blocks blocks of RAMNAND_BLOCK_BYTES */
    unsigned store_blocks;
    uint16_t map[RAMNAND_BLOCKS]; /* 0: erased, holds no RAM; else slot + 1 */
    uint8_t slot_used[256];
    uint8_t reg[RAMNAND_RAW]; /* the page register */
    uint8_t cache[RAMNAND_RAW]; /* the cache register of read cache */
    uint8_t cmd, status;
    uint8_t addr[6];
    unsigned addr_count;
    uint32_t column, row, cache_row;
    bool reading_status, reading_id, programming;
    /* Test hooks. */
    long power_left;  /* programs + erases until the power goes; < 0: never */
    bool power_lost;
    uint32_t programs, erases, reads;
    /* Time spent in exec_op, from a counter the firmware gives (NULL: none). */
    uint32_t (*ticks)(void);
    uint64_t port_ticks;
};

/* Sets up the chip, every block erased, over `store`. */
void ramnand_init(struct ramnand *rn, void *store, size_t store_size);

/* Flips bit `bit` (0..7) of byte `offset` (0..2111) of page `page`. Returns
 * false when the page's block holds no data (it reads as erased). */
bool ramnand_flip(struct ramnand *rn, uint32_t page, uint32_t offset, unsigned bit);

/* Whether the page has been programmed (any byte not 0xFF). */
bool ramnand_page_written(const struct ramnand *rn, uint32_t page);

/* Blocks holding data now. */
unsigned ramnand_blocks_used(const struct ramnand *rn);

#endif
