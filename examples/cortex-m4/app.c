/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal application shared by both ports: identify the chip, open
 * the device with Hamming ECC (the controller's when the port has it,
 * software otherwise), attach the Linux-compatible bad-block table, split
 * the chip into two partitions and read the first good page of the second.
 * Everything is static: no heap, no OS.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "nandkit/bbt.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"

/* Sized for the largest chip this board carries: 2048+64-byte pages, 1024
 * blocks (K9F1G08U0A): nk_nand_workspace_size() and nk_bbt_memory_size()
 * give what a chip needs; nk_nand_open() and nk_bbt_attach() refuse less. */
#define PAGE_BYTES (2048u + 64u)
static uint32_t nand_workspace[(2048u + 3u * 64u) / 4u];
static uint32_t bbt_memory[(1024u / 4u + PAGE_BYTES) / 4u];
static uint8_t page[2048];
static uint8_t oob[64];

static struct nk_nand nand;
static struct nk_bbt bbt;
static struct nk_part boot_part, data_part;

/* Where a debugger looks: the result of each step (0 = fine). */
volatile int nand_status[5];

int main(void)
{
    const struct nk_ctrl *port = board_nand_port();

    struct nk_ecc_engine ecc;
    if (nk_ecc_hw_init(&ecc, port) != 0)
        nk_ecc_hamming_init(&ecc, 512, false);

    struct nk_nand_config config;
    memset(&config, 0, sizeof config);
    config.ctrl = port;
    config.ecc = &ecc;
    config.workspace = nand_workspace;
    config.workspace_size = sizeof nand_workspace;
    nand_status[0] = nk_nand_open(&nand, &config); /* identifies the chip */
    if (nand_status[0])
        for (;;) {
        }

    struct nk_bbt_config bbt_config;
    memset(&bbt_config, 0, sizeof bbt_config);
    bbt_config.memory = bbt_memory;
    bbt_config.memory_size = sizeof bbt_memory;
    nand_status[1] = nk_bbt_attach(&nand, &bbt, &bbt_config);

    /* 4 blocks of boot loader, the rest (up to the table's blocks) data. */
    nand_status[2] = nk_part_init(&boot_part, &nand, "boot", 0, 4, NK_PART_READ_ONLY);
    nand_status[3] = nk_part_init(&data_part, &nand, "data", 4, 0, 0);

    uint32_t blocks = data_part.block_count;
    uint32_t ppb = nand.chip.info.pages_per_block;
    nand_status[4] = -NK_ENOSPC;
    for (uint32_t b = 0; b < blocks; b++) {
        if (nk_part_block_is_bad(&data_part, b) != 0)
            continue;
        nand_status[4] = nk_part_read_page(&data_part, b * ppb, page, oob, NK_OOB_PLACE);
        break;
    }
    for (;;) {
    }
}
