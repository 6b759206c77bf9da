/* SPDX-License-Identifier: MIT */
/*
 * The SPI-NAND parts nandkit knows: ID bytes, geometry, ECC requirement,
 * status encoding, OOB layout and datasheet timings. The simulator's
 * presets come from this table too (one fact, one place). docs/chip.md
 * lists the documents the figures come from.
 */
#include <string.h>

#include "nandkit/spinand.h"

#define NK_US 1000u
#define NK_MS 1000000u
#define NK_MHZ 1000000u

/* Fields every SPI-NAND part here shares: SLC, 2 column and 3 row address
 * bytes (as PAGE READ and READ FROM CACHE send them), the factory marker at
 * OOB byte 0 of the first page of a block, partial programs per page.
 * tRC/tWC are one byte on one line at the part's clock. */
#define NK_SPINAND_COMMON                                                                          \
    .luns = 1, .col_cycles = 2, .row_cycles = 3, .bits_per_cell = 1, .nop = 4, .ecc_step = 512,    \
    .bbm_pages = NK_BBM_FIRST_PAGE, .bbm_offset = 0,                                               \
    .features = NK_CHIP_SPI_NAND | NK_CHIP_ON_DIE_ECC

static const struct nk_spinand_part nk_spinand_parts[] = {
    {
        .info = {.vendor = "Winbond",
                 .model = "W25N01GV",
                 .id = {0xef, 0xaa, 0x21},
                 .id_len = 3,
                 .page_size = 2048,
                 .oob_size = 64,
                 .pages_per_block = 64,
                 .blocks = 1024,
                 .ecc_strength = 1,
                 .max_bad_blocks = 20,
                 NK_SPINAND_COMMON,
                 .timing = {.tR_ns = 60 * NK_US,
                            .tR_max_ns = 60 * NK_US,
                            .tPROG_ns = 250 * NK_US,
                            .tPROG_max_ns = 700 * NK_US,
                            .tBERS_ns = 2 * NK_MS,
                            .tBERS_max_ns = 10 * NK_MS,
                            .tRST_ns = 500 * NK_US,
                            .tRC_ns = 77,
                            .tWC_ns = 77}},
        .id_method = NK_SPINAND_ID_DUMMY,
        .ecc_status = NK_SPINAND_ECC_TWO_BITS,
        .layout = NK_SPINAND_LAYOUT_WINBOND,
        .flags = NK_SPINAND_QUAD_IO | NK_SPINAND_CONTINUOUS,
        .protect_default = 0x7c, /* BP3..BP0 and TB set: all blocks locked */
        .config_default = NK_SPINAND_CONFIG_ECC_EN | NK_SPINAND_CONFIG_BUF,
        .max_hz = 104 * NK_MHZ,
        .tRD_no_ecc_ns = 25 * NK_US,
        .datasheet = "Winbond W25N01GV datasheet",
    },
    {
        .info = {.vendor = "GigaDevice",
                 .model = "GD5F1GQ4UB",
                 .id = {0xc8, 0xd1},
                 .id_len = 2,
                 .page_size = 2048,
                 .oob_size = 128,
                 .pages_per_block = 64,
                 .blocks = 1024,
                 .ecc_strength = 8,
                 .max_bad_blocks = 20,
                 NK_SPINAND_COMMON,
                 .timing = {.tR_ns = 120 * NK_US,
                            .tR_max_ns = 120 * NK_US,
                            .tPROG_ns = 400 * NK_US,
                            .tPROG_max_ns = 700 * NK_US,
                            .tBERS_ns = 3 * NK_MS,
                            .tBERS_max_ns = 10 * NK_MS,
                            .tRST_ns = 500 * NK_US,
                            .tRC_ns = 75,
                            .tWC_ns = 75}},
        .id_method = NK_SPINAND_ID_ADDR,
        .ecc_status = NK_SPINAND_ECC_GIGADEVICE,
        .layout = NK_SPINAND_LAYOUT_GIGADEVICE,
        .flags = NK_SPINAND_QUAD_IO | NK_SPINAND_QE_BIT | NK_SPINAND_EBH_DUMMY_1,
        .protect_default = 0x38, /* BP2..BP0 set */
        .config_default = NK_SPINAND_CONFIG_ECC_EN,
        .max_hz = 108 * NK_MHZ,
        .tRD_no_ecc_ns = 80 * NK_US,
        /* The A version's timings (GD5F1GQ4UAYIG); the B version's datasheet
         * confirms only tPROG (docs/chip.md). */
        .datasheet = "GigaDevice GD5F1GQ4UAYIG (A version) and GD5FxGQ4xBxIG datasheets",
    },
    {
        .info = {.vendor = "Micron",
                 .model = "MT29F1G01ABAFD",
                 .id = {0x2c, 0x14},
                 .id_len = 2,
                 .page_size = 2048,
                 .oob_size = 128,
                 .pages_per_block = 64,
                 .blocks = 1024,
                 .ecc_strength = 8,
                 .max_bad_blocks = 20,
                 NK_SPINAND_COMMON,
                 /* Features list of m78a_1gb_3v_nand_spi.pdf Rev. H 02/22: page read
                  * 70 us max (25 us with the on-die ECC off), program 220 us typical
                  * with the ECC on, erase 2 ms typical; the maxima are not from it. */
                 .timing = {.tR_ns = 70 * NK_US,
                            .tR_max_ns = 70 * NK_US,
                            .tPROG_ns = 220 * NK_US,
                            .tPROG_max_ns = 600 * NK_US,
                            .tBERS_ns = 2 * NK_MS,
                            .tBERS_max_ns = 10 * NK_MS,
                            .tRST_ns = 1250 * NK_US,
                            .tRC_ns = 61,
                            .tWC_ns = 61}},
        .id_method = NK_SPINAND_ID_DUMMY,
        .ecc_status = NK_SPINAND_ECC_MICRON,
        .layout = NK_SPINAND_LAYOUT_HALVES,
        .flags = NK_SPINAND_QUAD_IO,
        .protect_default = 0x38,
        .config_default = NK_SPINAND_CONFIG_ECC_EN,
        .max_hz = 133 * NK_MHZ,
        .tRD_no_ecc_ns = 25 * NK_US,
        .datasheet = "Micron MT29F1G01ABAFD datasheet (m78a_1gb_3v_nand_spi.pdf Rev. H 02/22)",
    },
    {
        .info = {.vendor = "Macronix",
                 .model = "MX35LF1GE4AB",
                 .id = {0xc2, 0x12},
                 .id_len = 2,
                 .page_size = 2048,
                 .oob_size = 64,
                 .pages_per_block = 64,
                 .blocks = 1024,
                 .ecc_strength = 4,
                 .max_bad_blocks = 20,
                 NK_SPINAND_COMMON,
                 .timing = {.tR_ns = 45 * NK_US,
                            .tR_max_ns = 45 * NK_US,
                            .tPROG_ns = 320 * NK_US,
                            .tPROG_max_ns = 600 * NK_US,
                            .tBERS_ns = 1 * NK_MS,
                            .tBERS_max_ns = 4 * NK_MS,
                            .tRST_ns = 500 * NK_US,
                            .tRC_ns = 77,
                            .tWC_ns = 77}},
        .id_method = NK_SPINAND_ID_DUMMY,
        .ecc_status = NK_SPINAND_ECC_MACRONIX,
        .layout = NK_SPINAND_LAYOUT_ALL_FREE,
        .flags = NK_SPINAND_QE_BIT,
        .protect_default = 0x38,
        .config_default = NK_SPINAND_CONFIG_ECC_EN,
        .max_hz = 104 * NK_MHZ,
        .tRD_no_ecc_ns = 25 * NK_US,
        .datasheet = "Macronix MX35LF1GE4AB datasheet",
    },
    {
        .info = {.vendor = "Kioxia",
                 .model = "TC58CVG0S3HRAIG",
                 .id = {0x98, 0xc2},
                 .id_len = 2,
                 .page_size = 2048,
                 .oob_size = 128,
                 .pages_per_block = 64,
                 .blocks = 1024,
                 .ecc_strength = 8,
                 .max_bad_blocks = 20,
                 NK_SPINAND_COMMON,
                 .timing = {.tR_ns = 40 * NK_US,
                            .tR_max_ns = 40 * NK_US,
                            .tPROG_ns = 330 * NK_US,
                            .tPROG_max_ns = 600 * NK_US,
                            .tBERS_ns = 2500 * NK_US,
                            .tBERS_max_ns = 7 * NK_MS,
                            .tRST_ns = 500 * NK_US,
                            .tRC_ns = 77,
                            .tWC_ns = 77}},
        .id_method = NK_SPINAND_ID_DUMMY,
        .ecc_status = NK_SPINAND_ECC_KIOXIA,
        .layout = NK_SPINAND_LAYOUT_HALVES,
        .flags = NK_SPINAND_X1_LOAD, /* first generation: no quad program load */
        .protect_default = 0x38,
        .config_default = NK_SPINAND_CONFIG_ECC_EN,
        .max_hz = 104 * NK_MHZ,
        .tRD_no_ecc_ns = 25 * NK_US,
        .datasheet = "Kioxia TC58CVG0S3HRAIG technical data sheet Rev. 2.0 (2019-10-01)",
    },
    {
        /* 2 Gbit, two planes: the plane is bit 12 of the column address. */
        .info = {.vendor = "Micron",
                 .model = "MT29F2G01ABAGD",
                 .id = {0x2c, 0x24},
                 .id_len = 2,
                 .page_size = 2048,
                 .oob_size = 128,
                 .pages_per_block = 64,
                 .blocks = 2048,
                 .ecc_strength = 8,
                 .max_bad_blocks = 40,
                 .planes = 2,
                 NK_SPINAND_COMMON,
                 .timing = {.tR_ns = 115 * NK_US,
                            .tR_max_ns = 115 * NK_US,
                            .tPROG_ns = 220 * NK_US,
                            .tPROG_max_ns = 600 * NK_US,
                            .tBERS_ns = 2 * NK_MS,
                            .tBERS_max_ns = 10 * NK_MS,
                            .tRST_ns = 1250 * NK_US,
                            .tRC_ns = 61,
                            .tWC_ns = 61}},
        .id_method = NK_SPINAND_ID_DUMMY,
        .ecc_status = NK_SPINAND_ECC_MICRON,
        .layout = NK_SPINAND_LAYOUT_HALVES,
        .flags = NK_SPINAND_QUAD_IO,
        .protect_default = 0x38,
        .config_default = NK_SPINAND_CONFIG_ECC_EN,
        .max_hz = 133 * NK_MHZ,
        .tRD_no_ecc_ns = 45 * NK_US,
        .datasheet = "Micron MT29F2G01ABAGD (M79A) datasheet",
    },
};

#define NK_SPINAND_PART_COUNT (sizeof nk_spinand_parts / sizeof nk_spinand_parts[0])

const struct nk_spinand_part *nk_spinand_table_entry(unsigned index)
{
    return index < NK_SPINAND_PART_COUNT ? &nk_spinand_parts[index] : NULL;
}

/* ASCII lower case (no locale: the core does not use ctype). */
static char nk_spinand_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

const struct nk_spinand_part *nk_spinand_table_find(const char *model)
{
    for (unsigned i = 0; model && i < NK_SPINAND_PART_COUNT; i++) {
        const char *a = model, *b = nk_spinand_parts[i].info.model;
        while (*a && *b && nk_spinand_lower(*a) == nk_spinand_lower(*b))
            a++, b++;
        if (!*a && !*b)
            return &nk_spinand_parts[i];
    }
    return NULL;
}

const struct nk_spinand_part *nk_spinand_lookup_id(const uint8_t *id, unsigned len,
                                                   enum nk_spinand_id_method method)
{
    for (unsigned i = 0; i < NK_SPINAND_PART_COUNT; i++) {
        const struct nk_spinand_part *p = &nk_spinand_parts[i];
        /* After 9Fh a dummy byte and an address byte 00h are the same clocks on the
         * wire: one read serves both methods. */
        bool one_byte = p->id_method != NK_SPINAND_ID_OPCODE;
        if (one_byte == (method != NK_SPINAND_ID_OPCODE) && p->info.id_len <= len &&
            memcmp(p->info.id, id, p->info.id_len) == 0)
            return p;
    }
    return NULL;
}
