/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal application shared by both ports: from the port to a
 * mounted file system in three calls. The device identifies the chip,
 * takes the controller's ECC when the port has one (else the engine the
 * chip's requirement asks for) and attaches the Linux-compatible bad-block
 * table, building it on first boot; the file system mounts the data
 * partition from a static pool. A read-only boot partition sits in front.
 * Everything is static: no heap, no OS.
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "nandkit/bbt.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"

/* Sized for the largest chip this board carries, 2048+64-byte pages and
 * 1024 blocks (K9F1G08U0A): the device's buffers plus its bad-block table
 * (nk_nand_workspace_size() + nk_nand_bbt_workspace_size() give an
 * identified chip's need; nk_nand_open() refuses less, naming the size). */
#define WORKSPACE_BYTES                                                                            \
    (NK_NAND_WORKSPACE_SIZE(2048u, 64u) + NK_BBT_WORKSPACE_SIZE(2048u, 64u, 1024u))
static uint32_t nand_workspace[(WORKSPACE_BYTES + 3u) / 4u];
#ifndef NK_NO_FS /* NANDKIT_FS=OFF (scripts/size-report.sh): the device only */
/* The file system's RAM (docs/fs-design.md, section 1: per MiB of flash). */
static uint64_t fs_pool[48 * 1024 / 8];
static struct nk_fs fs;
#endif

static struct nk_nand nand;
static struct nk_part boot_part, data_part;

/* Where a debugger looks: the result of each step (0 = fine). */
volatile int nand_status[4];

/* The three calls. Each result also lands in nand_status[]; returns 0 when
 * the data partition is mounted, else the first failure. */
static int app_nand_start(void)
{
    const struct nk_ctrl *port = board_nand_port();
    struct nk_ecc_engine hw_ecc;
    struct nk_nand_config config = {
        .ctrl = port,
        .ecc = nk_ecc_hw_init(&hw_ecc, port) == 0 ? &hw_ecc : NULL,
        .workspace = nand_workspace,
        .workspace_size = sizeof nand_workspace,
        .bbt = true,
    };
    for (unsigned i = 0; i < 4; i++)
        nand_status[i] = 0;
    nand_status[0] = nk_nand_open(&nand, &config); /* 1: identify, ECC, bad-block table */
    if (nand_status[0])
        return nand_status[0];
    /* 2: 4 blocks of boot loader, the rest (up to the table's blocks) data. */
    nand_status[1] = nk_part_init(&boot_part, &nand, "boot", 0, 4, NK_PART_READ_ONLY);
    nand_status[2] = nk_part_init(&data_part, &nand, "data", 4, 0, 0);
    if (nand_status[1] || nand_status[2])
        return nand_status[1] ? nand_status[1] : nand_status[2];
        /* 3: mount, read-write. */
#ifndef NK_NO_FS
    struct nk_fs_config fs_config = {
        .part = &data_part, .pool = fs_pool, .pool_size = sizeof fs_pool};
    nand_status[3] = nk_fs_mount(&fs, &fs_config);
#endif
    return nand_status[3];
}

int main(void)
{
    app_nand_start();
    for (;;) {
    }
}
