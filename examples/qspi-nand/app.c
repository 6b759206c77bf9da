/* SPDX-License-Identifier: MIT */
/*
 * A bare-metal application on a SPI-NAND part behind the QUADSPI port: the
 * device identifies the part from its ID bytes (any part of the chip
 * layer's table: Winbond, GigaDevice, Micron, Macronix, Kioxia), unlocks
 * its blocks, takes its on-die ECC and vendor OOB layout, and reads on
 * four lines; a boot loader's image is read from the read-only boot
 * partition in one sequential call (a continuous read on parts that have
 * one, W25N01GV); the file system mounts the data partition from a static
 * pool. Bad blocks are found by their factory markers (OOB byte 0 of page
 * 0), as Linux's spinand finds them: no table is written to the flash.
 * Everything is static: no heap, no OS.
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"

/* Sized for the largest part this board may carry: 2048+128-byte pages
 * (nk_nand_open() refuses less, naming the size it needs). */
#define WORKSPACE_BYTES NK_NAND_WORKSPACE_SIZE(2048u, 128u)
static uint32_t nand_workspace[(WORKSPACE_BYTES + 3u) / 4u];
#ifndef NK_NO_FS
static uint64_t fs_pool[48 * 1024 / 8];
static struct nk_fs fs;
#endif

/* The boot loader's first pages. */
#define BOOT_PAGES 4u
static uint32_t boot_image[BOOT_PAGES * 2048u / 4u];

static struct nk_nand nand;
static struct nk_part boot_part, data_part;

/* Where a debugger looks: the result of each step (0 = fine; the boot
 * read's bitflips, >= 0, are fine too). */
volatile int nand_status[4];

static int app_nand_start(void)
{
    struct nk_nand_config config = {
        .ctrl = board_nand_port(),
        .workspace = nand_workspace,
        .workspace_size = sizeof nand_workspace,
    };
    for (unsigned i = 0; i < 4; i++)
        nand_status[i] = 0;
    nand_status[0] = nk_nand_open(&nand, &config); /* identify, unlock, on-die ECC */
    if (nand_status[0])
        return nand_status[0];
    nand_status[1] = nk_part_init(&boot_part, &nand, "boot", 0, 4, NK_PART_READ_ONLY);
    if (!nand_status[1])
        nand_status[1] = nk_part_init(&data_part, &nand, "data", 4, 0, 0);
    if (nand_status[1])
        return nand_status[1];
    if (nk_nand_page_size(&nand) * BOOT_PAGES <= sizeof boot_image)
        nand_status[2] =
            nk_nand_read_pages(&nand, 0, BOOT_PAGES, (uint8_t *)boot_image, NULL, NK_OOB_PLACE);
#ifndef NK_NO_FS
    /* Tags in the free OOB bytes; a part with fewer than the 28 bytes of
     * tags and their code (W25N01GV: 24) keeps them in the page instead. */
    struct nk_fs_config fs_config = {
        .part = &data_part, .pool = fs_pool, .pool_size = sizeof fs_pool};
    nk_fs_config_layout(&fs_config, nk_nand_free_oob_bytes(&nand) < 28u ? NK_FS_LAYOUT_INBAND
                                                                        : NK_FS_LAYOUT_LINUX);
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
