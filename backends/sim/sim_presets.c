/* SPDX-License-Identifier: MIT */
/*
 * Simulated parts: the preset table, explicit geometries, the check that a
 * part description makes sense, and the ONFI / JEDEC parameter pages built
 * from the description (so a changed part answers with matching pages).
 *
 * Datasheet figures: array times are typical values (what the benchmarker
 * calls the datasheet limit), *_max_ns the worst case written into the
 * parameter pages and used for timeouts.
 */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "sim_internal.h"

#include "nandkit/spinand.h"

/* A preset: a part of the chip layer's datasheet table (src/chip/id_table.c,
 * found by name), or a simulator-only part described here, plus what only
 * the simulator needs. */
struct nk_sim_preset_entry {
    const char *name;
    const struct nk_chip_info *sim_only; /* NULL: the chip layer's table entry `name` */
    bool jedec;                          /* answers with a JEDEC parameter page */
    uint32_t default_bad_blocks;         /* factory-bad blocks a fresh simulated chip has */
};

#define NK_US 1000u
#define NK_MS 1000000u

/* A simulator-only part that identifies through a JEDEC parameter page (no
 * ONFI), for the chip layer's JEDEC path. */
static const struct nk_chip_info nk_sim_jedec_2g = {
    .vendor = "Samsung",
    .model = "NKSIM-JEDEC-2G",
    .id = {0xec, 0xda, 0x10, 0x95, 0x46},
    .id_len = 5,
    .page_size = 2048,
    .oob_size = 64,
    .pages_per_block = 64,
    .blocks = 2048,
    .luns = 1,
    .col_cycles = 2,
    .row_cycles = 3,
    .bits_per_cell = 1,
    .nop = 4,
    .ecc_strength = 4,
    .ecc_step = 512,
    .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
    .features = NK_CHIP_JEDEC | NK_CHIP_CACHE_PROGRAM | NK_CHIP_RANDOM_OUT,
    .max_bad_blocks = 40,
    .timing = {.tR_ns = 25 * NK_US,
               .tPROG_ns = 250 * NK_US,
               .tBERS_ns = 2 * NK_MS,
               .tCBSY_ns = 3 * NK_US,
               .tRST_ns = 5 * NK_US,
               .tRC_ns = 25,
               .tWC_ns = 25,
               .tADL_ns = 100,
               .tWB_ns = 100,
               .tWHR_ns = 60,
               .tCCS_ns = 100,
               .tR_max_ns = 25 * NK_US,
               .tPROG_max_ns = 700 * NK_US,
               .tBERS_max_ns = 5 * NK_MS},
};

/* A generic 64 GiB part, not a real one (no datasheet): the geometry of a
 * large SLC die, 4096+256 bytes x 256 pages x 65536 blocks (69.8 GB with
 * the OOB), identified through ONFI, with the K9F1G08U0A's timing (as
 * nk_sim_params_geometry() gives). It is there to run a part whose array
 * does not fit in memory: the simulator holds only what was written. */
static const struct nk_chip_info nk_sim_generic_64g = {
    .vendor = "nandkit",
    .model = "NKSIM-GENERIC-64G",
    .id = {0x00, 0xd7}, /* no JEDEC manufacturer: identified through ONFI */
    .id_len = 2,
    .page_size = 4096,
    .oob_size = 256,
    .pages_per_block = 256,
    .blocks = 65536,
    .luns = 1,
    .col_cycles = 2,
    .row_cycles = 3,
    .bits_per_cell = 1,
    .nop = 4,
    .ecc_strength = 8,
    .ecc_step = 512,
    .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
    .onfi_version = 10,
    .features =
        NK_CHIP_ONFI | NK_CHIP_CACHE_PROGRAM | NK_CHIP_GET_SET_FEATURES | NK_CHIP_RANDOM_OUT,
    .max_bad_blocks = 1310, /* 2 %, as nk_sim_params_geometry() allows */
    .timing = {.tR_ns = 25 * NK_US,
               .tPROG_ns = 300 * NK_US,
               .tBERS_ns = 2 * NK_MS,
               .tCBSY_ns = 3 * NK_US,
               .tRST_ns = 5 * NK_US,
               .tRC_ns = 30,
               .tWC_ns = 30,
               .tADL_ns = 70,
               .tWB_ns = 100,
               .tWHR_ns = 60,
               .tR_max_ns = 25 * NK_US,
               .tPROG_max_ns = 700 * NK_US,
               .tBERS_max_ns = 3 * NK_MS,
               .tCBSY_max_ns = 700 * NK_US},
};

static const struct nk_sim_preset_entry nk_sim_presets[] = {
    /* The chip of the eCos library's benchmark (ecos-devel, 2009). */
    {"K9F1G08U0A", NULL, false, 4},
    {"K9F2G08U0B", NULL, false, 8},
    {"K9F1208U0C", NULL, false, 16},    /* small page: 00h/01h/50h pointers, no 30h */
    {"MT29F2G08ABAEA", NULL, false, 8}, /* ONFI 1.0, on-die ECC (4 bits / 512 bytes) */
    {"TC58NVG0S3E", NULL, false, 4},
    {"HY27UF081G2A", NULL, false, 4},
    {"MT29F8G08ABABA", NULL, false, 8},
    {"MT29F32G08ABCDB", NULL, false, 8},
    {"NKSIM-JEDEC-2G", &nk_sim_jedec_2g, true, 8},
    {"NKSIM-GENERIC-64G", &nk_sim_generic_64g, false, 40},
};

#define NK_SIM_PRESET_COUNT (sizeof nk_sim_presets / sizeof nk_sim_presets[0])

static bool nk_sim_name_equal(const char *a, const char *b)
{
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
        a++;
        b++;
    }
    return *a == *b;
}

static void nk_sim_copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int nk_sim_preset(const char *name, struct nk_sim_params *params)
{
    if (!name || !params)
        return -NK_EINVAL;
    for (size_t i = 0; i < NK_SIM_PRESET_COUNT; i++) {
        const struct nk_sim_preset_entry *e = &nk_sim_presets[i];
        if (!nk_sim_name_equal(name, e->name))
            continue;
        const struct nk_chip_info *info = e->sim_only ? e->sim_only : nk_chip_table_find(e->name);
        if (!info || !nk_sim_name_equal(info->model, e->name))
            return -NK_ENOENT; /* the chip layer was built without this model */
        memset(params, 0, sizeof *params);
        params->chip = *info;
        params->onfi = info->onfi_version != 0;
        params->jedec = e->jedec;
        params->tFEAT_ns = 1000;
        params->default_bad_blocks = e->default_bad_blocks;
        nk_sim_params_build_pages(params);
        return 0;
    }
    /* SPI-NAND parts: the chip layer's table. */
    const struct nk_spinand_part *part = nk_spinand_table_find(name);
    if (part) {
        memset(params, 0, sizeof *params);
        params->chip = part->info;
        params->tFEAT_ns = 1000;
        params->default_bad_blocks = part->info.max_bad_blocks / 4;
        return 0;
    }
    return -NK_ENOENT;
}

const char *nk_sim_preset_name(unsigned index)
{
    if (index < NK_SIM_PRESET_COUNT)
        return nk_sim_presets[index].name;
    const struct nk_spinand_part *part = nk_spinand_table_entry(index - NK_SIM_PRESET_COUNT);
    return part ? part->info.model : NULL;
}

static unsigned nk_sim_cycles_for(uint64_t count)
{
    unsigned cycles = 1;
    while (cycles < 4 && count > (1ull << (8 * cycles)))
        cycles++;
    return cycles;
}

int nk_sim_params_geometry(struct nk_sim_params *params, uint32_t page_size, uint32_t oob_size,
                           uint32_t pages_per_block, uint32_t blocks, struct nk_diag *why)
{
    if (!params)
        return -NK_EINVAL;
    memset(params, 0, sizeof *params);
    struct nk_chip_info *c = &params->chip;
    bool small = page_size <= 512;
    nk_sim_copy_text(c->vendor, sizeof c->vendor, "nandkit");
    nk_format(c->model, sizeof c->model, "GEOMETRY-%u+%ux%u", page_size, oob_size, pages_per_block);
    c->id[0] = 0x00; /* no JEDEC manufacturer: identify through ONFI */
    c->id[1] = small ? 0x76 : 0xf1;
    c->id_len = 2;
    c->page_size = page_size;
    c->oob_size = oob_size;
    c->pages_per_block = pages_per_block;
    c->blocks = blocks;
    c->luns = 1;
    c->col_cycles = small ? 1 : 2;
    c->row_cycles = (uint8_t)nk_sim_cycles_for((uint64_t)pages_per_block * blocks);
    if (c->row_cycles < 2)
        c->row_cycles = 2;
    c->bits_per_cell = 1;
    c->nop = small ? 2 : 4;
    c->ecc_strength = (uint64_t)oob_size * 32 > page_size ? 4 : 1;
    c->ecc_step = 512;
    c->bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE;
    c->bbm_offset = small && oob_size > 5 ? 5 : 0;
    c->onfi_version = small ? 0 : 10;
    c->features = small ? NK_CHIP_SMALL_PAGE
                        : NK_CHIP_ONFI | NK_CHIP_CACHE_PROGRAM | NK_CHIP_GET_SET_FEATURES |
                              NK_CHIP_RANDOM_OUT;
    c->max_bad_blocks = blocks / 50;
    /* The reference chip's timing (first preset, from the chip table). */
    const struct nk_chip_info *reference = nk_chip_table_find(nk_sim_presets[0].name);
    if (reference)
        c->timing = reference->timing;
    if (small)
        c->timing.tCBSY_ns = 0;
    params->onfi = !small;
    params->tFEAT_ns = 1000;
    int err = nk_sim_params_check(params, why);
    if (err)
        return err;
    nk_sim_params_build_pages(params);
    return 0;
}

static bool nk_sim_power_of_two(uint64_t v)
{
    return v && !(v & (v - 1));
}

int nk_sim_params_check(const struct nk_sim_params *params, struct nk_diag *why)
{
    if (!params)
        return nk_diag_set(why, -NK_EINVAL, "no part description");
    const struct nk_chip_info *c = &params->chip;
    if (!nk_sim_power_of_two(c->page_size) || c->page_size < 256 || c->page_size > 65536)
        return nk_diag_set(why, -NK_EINVAL,
                           "bad geometry: page size %u is not a power of two in 256..65536",
                           c->page_size);
    if (c->oob_size > c->page_size / 2)
        return nk_diag_set(why, -NK_EINVAL,
                           "bad geometry: OOB size %u is more than half the page size %u",
                           c->oob_size, c->page_size);
    if (!nk_sim_power_of_two(c->pages_per_block) || c->pages_per_block > 4096)
        return nk_diag_set(why, -NK_EINVAL,
                           "bad geometry: pages per block %u is not a power of two in 1..4096",
                           c->pages_per_block);
    if (c->blocks == 0 || c->blocks > (1u << 20))
        return nk_diag_set(why, -NK_EINVAL, "bad geometry: block count %u is not in 1..1048576",
                           c->blocks);
    uint64_t rows = (uint64_t)c->pages_per_block * c->blocks;
    if (rows > UINT32_MAX)
        return nk_diag_set(why, -NK_EINVAL, "bad geometry: %llu pages is too many",
                           (unsigned long long)rows);
    bool small = (c->features & NK_CHIP_SMALL_PAGE) != 0;
    if (small && c->page_size != 256 && c->page_size != 512)
        return nk_diag_set(
            why, -NK_EINVAL,
            "bad geometry: small-page command set needs 256 or 512-byte pages, not %u",
            c->page_size);
    if (c->col_cycles < 1 || c->col_cycles > 2 || c->row_cycles < 1 || c->row_cycles > 4)
        return nk_diag_set(why, -NK_EINVAL, "bad address cycles: %u column + %u row", c->col_cycles,
                           c->row_cycles);
    uint64_t columns = small ? 256 : (uint64_t)c->page_size + c->oob_size;
    if (columns > (1ull << (8 * c->col_cycles)))
        return nk_diag_set(why, -NK_EINVAL,
                           "bad address cycles: %u column cycles cannot reach column %llu",
                           c->col_cycles, (unsigned long long)(columns - 1));
    if (c->row_cycles < 4 && rows > (1ull << (8 * c->row_cycles)))
        return nk_diag_set(why, -NK_EINVAL,
                           "bad address cycles: %u row cycles cannot reach page %llu",
                           c->row_cycles, (unsigned long long)(rows - 1));
    if (c->oob_size && c->bbm_offset >= c->oob_size)
        return nk_diag_set(why, -NK_EINVAL, "bad-block marker offset %u is outside the %u-byte OOB",
                           c->bbm_offset, c->oob_size);
    if (c->bits_per_cell > 1)
        return nk_diag_set(why, -NK_EINVAL, "%u bits per cell: only SLC is simulated",
                           c->bits_per_cell);
    if (c->features & NK_CHIP_BUS16)
        return nk_diag_set(why, -NK_EINVAL, "x16 bus is not simulated");
    if ((c->features & NK_CHIP_ON_DIE_ECC) &&
        (c->ecc_strength == 0 || c->ecc_step == 0 || c->page_size % c->ecc_step ||
         c->page_size / c->ecc_step > NK_SIM_MAX_ECC_STEPS))
        return nk_diag_set(why, -NK_EINVAL,
                           "on-die ECC needs a strength and a step dividing the page");
    if (params->onfi_ext_len > NK_SIM_ONFI_EXT_MAX || params->onfi_ext_len % 16)
        return nk_diag_set(why, -NK_EINVAL, "extended parameter page length %u is not 16..64 by 16",
                           params->onfi_ext_len);
    return 0;
}

/* ----- page builders ------------------------------------------------ */

static void nk_sim_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void nk_sim_put32(uint8_t *p, uint32_t v)
{
    nk_sim_put16(p, v);
    nk_sim_put16(p + 2, v >> 16);
}

static void nk_sim_put_text(uint8_t *p, size_t width, const char *text)
{
    memset(p, ' ', width);
    for (size_t i = 0; i < width && text[i]; i++)
        p[i] = (uint8_t)toupper((unsigned char)text[i]);
}

/* ONFI asynchronous timing modes 0..5 by their minimum cycle time. */
static uint16_t nk_sim_timing_modes(uint32_t cycle_ns)
{
    static const uint16_t mode_cycle_ns[] = {100, 50, 35, 30, 25, 20};
    uint16_t modes = 0;
    for (unsigned m = 0; m < 6; m++)
        if (cycle_ns == 0 || mode_cycle_ns[m] >= cycle_ns)
            modes |= (uint16_t)(1u << m);
    return modes;
}

static uint32_t nk_sim_us(uint32_t ns)
{
    uint32_t us = (ns + 999) / 1000;
    return us > 0xffff ? 0xffff : us;
}

static unsigned nk_sim_log2(uint32_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

static void nk_sim_build_onfi(struct nk_sim_params *params)
{
    const struct nk_chip_info *c = &params->chip;
    uint8_t page[256];
    memset(page, 0, sizeof page);
    memcpy(page, "ONFI", 4);
    /* Revision: one bit per version supported, 1.0 (bit 1) up to ours. */
    static const uint16_t versions[] = {10, 20, 21, 22, 23, 30, 31, 32, 40};
    uint16_t revision = 0;
    for (unsigned i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (versions[i] <= (c->onfi_version ? c->onfi_version : 10))
            revision |= (uint16_t)(1u << (i + 1));
    nk_sim_put16(page + 4, revision);
    /* A requirement beyond one byte or not per 512 bytes goes to the
     * extended parameter page (ONFI 2.1+). */
    bool ext =
        c->ecc_strength && (c->ecc_step != 512 || c->ecc_strength >= 0xff) && c->onfi_version >= 21;
    uint16_t features = 0;
    if (ext)
        features |= 1u << 7;
    nk_sim_put16(page + 6, features);
    uint16_t optional = 0;
    if (c->features & NK_CHIP_CACHE_PROGRAM)
        optional |= 1u << 0;
    if (c->features & NK_CHIP_GET_SET_FEATURES)
        optional |= 1u << 2;
    nk_sim_put16(page + 8, optional);
    if (ext) {
        nk_sim_put16(page + 12, 3); /* 48 bytes, in 16-byte units */
        page[14] = NK_SIM_ONFI_COPIES;
    }
    nk_sim_put_text(page + 32, 12, c->vendor);
    nk_sim_put_text(page + 44, 20, c->model);
    page[64] = c->id[0];
    nk_sim_put32(page + 80, c->page_size);
    nk_sim_put16(page + 84, c->oob_size);
    if (c->nop > 1) {
        nk_sim_put32(page + 86, c->page_size / c->nop);
        nk_sim_put16(page + 90, c->oob_size / c->nop);
    }
    nk_sim_put32(page + 92, c->pages_per_block);
    nk_sim_put32(page + 96, c->blocks / (c->luns ? c->luns : 1));
    page[100] = c->luns ? c->luns : 1;
    page[101] = (uint8_t)(c->col_cycles << 4 | c->row_cycles);
    page[102] = c->bits_per_cell ? c->bits_per_cell : 1;
    nk_sim_put16(page + 103, c->max_bad_blocks);
    page[105] = 1; /* endurance 1 x 10^5 */
    page[106] = 5;
    page[107] = 1; /* block 0 guaranteed */
    page[110] = c->nop;
    if (ext)
        page[112] = 0xff;
    else if (c->ecc_step == 512 || c->ecc_strength == 0)
        page[112] = c->ecc_strength;
    else /* ONFI 1.x cannot say "per 1024": scale to 512 bytes */
        page[112] = (uint8_t)((c->ecc_strength * 512u + c->ecc_step - 1) / c->ecc_step);
    page[128] = 10; /* pin capacitance, pF */
    uint16_t modes = nk_sim_timing_modes(c->timing.tRC_ns > c->timing.tWC_ns ? c->timing.tRC_ns
                                                                             : c->timing.tWC_ns);
    nk_sim_put16(page + 129, modes);
    nk_sim_put16(page + 131, (c->features & NK_CHIP_CACHE_PROGRAM) ? modes : 0);
    nk_sim_put16(page + 133,
                 nk_sim_us(c->timing.tPROG_max_ns ? c->timing.tPROG_max_ns : c->timing.tPROG_ns));
    nk_sim_put16(page + 135,
                 nk_sim_us(c->timing.tBERS_max_ns ? c->timing.tBERS_max_ns : c->timing.tBERS_ns));
    nk_sim_put16(page + 137,
                 nk_sim_us(c->timing.tR_max_ns ? c->timing.tR_max_ns : c->timing.tR_ns));
    nk_sim_put16(page + 139, c->timing.tCCS_ns);
    nk_sim_put16(page + 164, 1); /* vendor revision */
    nk_sim_put16(page + 254, nk_onfi_crc16(NK_ONFI_CRC_SEED, page, 254));
    for (unsigned i = 0; i < NK_SIM_ONFI_COPIES; i++)
        memcpy(params->onfi_page + 256 * i, page, 256);

    params->onfi_ext_len = 0;
    memset(params->onfi_ext_page, 0, sizeof params->onfi_ext_page);
    if (ext) {
        uint8_t e[48];
        memset(e, 0, sizeof e);
        memcpy(e + 2, "EPPS", 4);
        e[16] = 2; /* section 0: ECC information, one 16-byte unit */
        e[17] = 1;
        e[32] = c->ecc_strength;
        e[33] = (uint8_t)nk_sim_log2(c->ecc_step);
        nk_sim_put16(e + 34, c->max_bad_blocks);
        e[36] = 1; /* endurance 1 x 10^5 */
        e[37] = 5;
        nk_sim_put16(e, nk_onfi_crc16(NK_ONFI_CRC_SEED, e + 2, sizeof e - 2));
        params->onfi_ext_len = sizeof e;
        for (unsigned i = 0; i < NK_SIM_ONFI_COPIES; i++)
            memcpy(params->onfi_ext_page + sizeof e * i, e, sizeof e);
    }
}

static void nk_sim_build_jedec(struct nk_sim_params *params)
{
    const struct nk_chip_info *c = &params->chip;
    uint8_t page[512];
    memset(page, 0, sizeof page);
    memcpy(page, "JESD", 4);
    nk_sim_put16(page + 4, 1u << 2); /* JESD230 1.0 */
    if (c->features & NK_CHIP_CACHE_PROGRAM)
        page[8] |= 1u << 0;
    page[13] = 3; /* parameter pages */
    nk_sim_put_text(page + 32, 12, c->vendor);
    nk_sim_put_text(page + 44, 20, c->model);
    page[64] = c->id[0];
    nk_sim_put32(page + 80, c->page_size);
    nk_sim_put16(page + 84, c->oob_size);
    nk_sim_put32(page + 92, c->pages_per_block);
    nk_sim_put32(page + 96, c->blocks / (c->luns ? c->luns : 1));
    page[100] = c->luns ? c->luns : 1;
    page[101] = (uint8_t)(c->col_cycles << 4 | c->row_cycles);
    page[102] = c->bits_per_cell ? c->bits_per_cell : 1;
    page[103] = c->nop;
    nk_sim_put16(page + 144, nk_sim_timing_modes(c->timing.tRC_ns));
    nk_sim_put16(page + 153,
                 nk_sim_us(c->timing.tPROG_max_ns ? c->timing.tPROG_max_ns : c->timing.tPROG_ns));
    nk_sim_put16(page + 155,
                 nk_sim_us(c->timing.tBERS_max_ns ? c->timing.tBERS_max_ns : c->timing.tBERS_ns));
    nk_sim_put16(page + 157,
                 nk_sim_us(c->timing.tR_max_ns ? c->timing.tR_max_ns : c->timing.tR_ns));
    nk_sim_put16(page + 161, c->timing.tCCS_ns);
    nk_sim_put16(page + 170, c->timing.tADL_ns);
    page[208] = 1;
    /* ECC information block 0. */
    page[211] = c->ecc_strength;
    page[212] = (uint8_t)nk_sim_log2(c->ecc_step ? c->ecc_step : 512);
    nk_sim_put16(page + 213, c->max_bad_blocks);
    page[215] = 1;
    page[216] = 5;
    nk_sim_put16(page + 510, nk_onfi_crc16(NK_ONFI_CRC_SEED, page, 510));
    for (unsigned i = 0; i < 3; i++)
        memcpy(params->jedec_page + 512 * i, page, 512);
}

void nk_sim_params_build_pages(struct nk_sim_params *params)
{
    memset(params->onfi_page, 0, sizeof params->onfi_page);
    memset(params->jedec_page, 0, sizeof params->jedec_page);
    if (params->onfi)
        nk_sim_build_onfi(params);
    else {
        params->onfi_ext_len = 0;
        memset(params->onfi_ext_page, 0, sizeof params->onfi_ext_page);
    }
    if (params->jedec)
        nk_sim_build_jedec(params);
}
