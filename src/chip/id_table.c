/* SPDX-License-Identifier: MIT */
/*
 * Legacy identification: parts that predate parameter pages are recognised
 * by their READ ID bytes. Two tables: known models with datasheet data
 * (typical array timings, bad-block rule), and generic device codes whose
 * geometry comes from the extended ID byte as most vendors encode it.
 */
#include <string.h>

#include "chip/chip_internal.h"
#include "nandkit/error.h"

#define NK_US 1000u
#define NK_MS 1000000u

/* Datasheet models. Timings: array times typical (the benchmark limit),
 * *_max for timeouts; cycle times as the datasheet minimums. */
/* Size knob NK_CHIP_MODELS_CHOSEN (docs/porting.md): only the models whose
 * NK_CHIP_MODEL_<name> is defined, and no generic device codes. */
static const struct nk_chip_info nk_chip_models[] = {
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_K9F1G08U0A)
    {
        .vendor = "Samsung",
        .model = "K9F1G08U0A",
        .id = {0xec, 0xf1, 0x00, 0x95, 0x40},
        .id_len = 5,
        .page_size = 2048,
        .oob_size = 64,
        .pages_per_block = 64,
        .blocks = 1024,
        .luns = 1,
        .col_cycles = 2,
        .row_cycles = 2,
        .bits_per_cell = 1,
        .nop = 4,
        .ecc_strength = 1,
        .ecc_step = 512,
        .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
        .bbm_offset = 0,
        .features = NK_CHIP_CACHE_PROGRAM | NK_CHIP_RANDOM_OUT | NK_CHIP_COPYBACK,
        .max_bad_blocks = 20,
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
                   .tCCS_ns = 0,
                   .tR_max_ns = 25 * NK_US,
                   .tPROG_max_ns = 700 * NK_US,
                   .tBERS_max_ns = 3 * NK_MS,
                   /* Not confirmed from a datasheet page (docs/chip.md): taken
                    * as tPROG max, the wait for the previous page. */
                   .tCBSY_max_ns = 700 * NK_US},
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_K9F2G08U0B)
    {
        .vendor = "Samsung",
        .model = "K9F2G08U0B",
        .id = {0xec, 0xda, 0x10, 0x95, 0x44},
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
        .ecc_strength = 1,
        .ecc_step = 512,
        .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
        .bbm_offset = 0,
        .features = NK_CHIP_CACHE_PROGRAM | NK_CHIP_RANDOM_OUT,
        .max_bad_blocks = 40,
        .timing = {.tR_ns = 25 * NK_US,
                   .tPROG_ns = 200 * NK_US,
                   .tBERS_ns = 1500 * NK_US,
                   .tCBSY_ns = 3 * NK_US,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 25,
                   .tWC_ns = 25,
                   .tADL_ns = 100,
                   .tWB_ns = 100,
                   .tWHR_ns = 60,
                   .tCCS_ns = 0,
                   .tR_max_ns = 25 * NK_US,
                   .tPROG_max_ns = 700 * NK_US,
                   .tBERS_max_ns = 10 * NK_MS},
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_K9F1208U0C)
    {
        .vendor = "Samsung",
        .model = "K9F1208U0C",
        .id = {0xec, 0x76, 0x5a, 0x3f},
        .id_len = 4,
        .page_size = 512,
        .oob_size = 16,
        .pages_per_block = 32,
        .blocks = 4096,
        .luns = 1,
        .col_cycles = 1,
        .row_cycles = 3,
        .bits_per_cell = 1,
        .nop = 1,
        .ecc_strength = 1,
        .ecc_step = 512,
        .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
        .bbm_offset = 5,
        .features = NK_CHIP_SMALL_PAGE,
        .max_bad_blocks = 80,
        .timing = {.tR_ns = 15 * NK_US,
                   .tPROG_ns = 200 * NK_US,
                   .tBERS_ns = 2 * NK_MS,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 50,
                   .tWC_ns = 50,
                   .tADL_ns = 100,
                   .tWB_ns = 100,
                   .tWHR_ns = 60,
                   .tR_max_ns = 15 * NK_US,
                   .tPROG_max_ns = 500 * NK_US,
                   .tBERS_max_ns = 3 * NK_MS},
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_MT29F2G08ABAEA)
    {
        .vendor = "Micron",
        .model = "MT29F2G08ABAEA",
        .id = {0x2c, 0xda, 0x90, 0x95, 0x06},
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
        .bbm_pages = NK_BBM_FIRST_PAGE,
        .bbm_offset = 0,
        .onfi_version = 10,
        .features = NK_CHIP_ONFI | NK_CHIP_CACHE_PROGRAM | NK_CHIP_RANDOM_OUT |
                    NK_CHIP_GET_SET_FEATURES | NK_CHIP_ON_DIE_ECC | NK_CHIP_CACHE_READ |
                    NK_CHIP_COPYBACK,
        .max_bad_blocks = 40,
        .timing = {.tR_ns = 25 * NK_US,
                   .tPROG_ns = 200 * NK_US,
                   .tBERS_ns = 700 * NK_US,
                   .tCBSY_ns = 3 * NK_US,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 20,
                   .tWC_ns = 20,
                   .tADL_ns = 70,
                   .tWB_ns = 100,
                   .tWHR_ns = 60,
                   .tCCS_ns = 100,
                   .tR_max_ns = 25 * NK_US,
                   .tPROG_max_ns = 600 * NK_US,
                   .tBERS_max_ns = 3 * NK_MS,
                   /* The three below are not confirmed from a datasheet page
                    * (docs/chip.md): recalled from the MT29F2G08ABAEA's AC
                    * characteristics; the maxima serve only as timeouts. */
                   .tRCBSY_ns = 3 * NK_US,
                   .tCBSY_max_ns = 600 * NK_US,
                   .tRCBSY_max_ns = 25 * NK_US},
        .planes = 2,
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_TC58NVG0S3E)
    {
        .vendor = "Toshiba",
        .model = "TC58NVG0S3E",
        .id = {0x98, 0xd1, 0x90, 0x15, 0x76},
        .id_len = 5,
        .page_size = 2048,
        .oob_size = 64,
        .pages_per_block = 64,
        .blocks = 1024,
        .luns = 1,
        .col_cycles = 2,
        .row_cycles = 2,
        .bits_per_cell = 1,
        .nop = 4,
        .ecc_strength = 1,
        .ecc_step = 512,
        .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
        .bbm_offset = 0,
        .features = NK_CHIP_CACHE_PROGRAM | NK_CHIP_RANDOM_OUT,
        .max_bad_blocks = 20,
        .timing = {.tR_ns = 25 * NK_US,
                   .tPROG_ns = 300 * NK_US,
                   .tBERS_ns = 3 * NK_MS,
                   .tCBSY_ns = 3 * NK_US,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 25,
                   .tWC_ns = 25,
                   .tADL_ns = 70,
                   .tWB_ns = 100,
                   .tWHR_ns = 60,
                   .tR_max_ns = 25 * NK_US,
                   .tPROG_max_ns = 700 * NK_US,
                   .tBERS_max_ns = 5 * NK_MS},
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_HY27UF081G2A)
    {
        .vendor = "Hynix",
        .model = "HY27UF081G2A",
        .id = {0xad, 0xf1, 0x80, 0x1d},
        .id_len = 4,
        .page_size = 2048,
        .oob_size = 64,
        .pages_per_block = 64,
        .blocks = 1024,
        .luns = 1,
        .col_cycles = 2,
        .row_cycles = 2,
        .bits_per_cell = 1,
        .nop = 4,
        .ecc_strength = 1,
        .ecc_step = 512,
        .bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE,
        .bbm_offset = 0,
        .features = NK_CHIP_CACHE_PROGRAM | NK_CHIP_RANDOM_OUT,
        .max_bad_blocks = 20,
        .timing = {.tR_ns = 25 * NK_US,
                   .tPROG_ns = 200 * NK_US,
                   .tBERS_ns = 2 * NK_MS,
                   .tCBSY_ns = 3 * NK_US,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 30,
                   .tWC_ns = 30,
                   .tADL_ns = 100,
                   .tWB_ns = 100,
                   .tWHR_ns = 60,
                   .tR_max_ns = 25 * NK_US,
                   .tPROG_max_ns = 700 * NK_US,
                   .tBERS_max_ns = 3 * NK_MS},
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_MT29F8G08ABABA)
    /* Micron MT29F8G08ABABA: 4 KiB pages, ONFI 2.0. */
    {
        .vendor = "Micron",
        .model = "MT29F8G08ABABA",
        .id = {0x2c, 0x38, 0x00, 0x26, 0x85},
        .id_len = 5,
        .page_size = 4096,
        .oob_size = 224,
        .pages_per_block = 128,
        .blocks = 2048,
        .luns = 1,
        .col_cycles = 2,
        .row_cycles = 3,
        .bits_per_cell = 1,
        .nop = 4,
        .ecc_strength = 4,
        .ecc_step = 512,
        .bbm_pages = NK_BBM_FIRST_PAGE,
        .onfi_version = 20,
        .features =
            NK_CHIP_ONFI | NK_CHIP_CACHE_PROGRAM | NK_CHIP_GET_SET_FEATURES | NK_CHIP_RANDOM_OUT,
        .max_bad_blocks = 40,
        .timing = {.tR_ns = 25 * NK_US,
                   .tPROG_ns = 250 * NK_US,
                   .tBERS_ns = 2 * NK_MS,
                   .tCBSY_ns = 3 * NK_US,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 20,
                   .tWC_ns = 20,
                   .tADL_ns = 70,
                   .tWB_ns = 100,
                   .tWHR_ns = 60,
                   .tCCS_ns = 100,
                   .tR_max_ns = 25 * NK_US,
                   .tPROG_max_ns = 600 * NK_US,
                   .tBERS_max_ns = 3 * NK_MS},
    },
#endif
#if !defined(NK_CHIP_MODELS_CHOSEN) || defined(NK_CHIP_MODEL_MT29F32G08ABCDB)
    /* Micron MT29F32G08ABCDB: 16 KiB pages, 1048 blocks (4.4 GB of data), ONFI 3.0
     * with the ECC requirement (24 bits / 1024 bytes) in the extended parameter page. */
    {
        .vendor = "Micron",
        .model = "MT29F32G08ABCDB",
        .id = {0x2c, 0x44, 0x44, 0x4b, 0xa9},
        .id_len = 5,
        .page_size = 16384,
        .oob_size = 1216,
        .pages_per_block = 256,
        .blocks = 1048,
        .luns = 1,
        .col_cycles = 2,
        .row_cycles = 3,
        .bits_per_cell = 1,
        .nop = 2,
        .ecc_strength = 24,
        .ecc_step = 1024,
        .bbm_pages = NK_BBM_FIRST_PAGE,
        .onfi_version = 30,
        .features =
            NK_CHIP_ONFI | NK_CHIP_CACHE_PROGRAM | NK_CHIP_GET_SET_FEATURES | NK_CHIP_RANDOM_OUT,
        .max_bad_blocks = 49,
        .timing = {.tR_ns = 35 * NK_US,
                   .tPROG_ns = 350 * NK_US,
                   .tBERS_ns = 3 * NK_MS,
                   .tCBSY_ns = 3 * NK_US,
                   .tRST_ns = 5 * NK_US,
                   .tRC_ns = 20,
                   .tWC_ns = 20,
                   .tADL_ns = 70,
                   .tWB_ns = 100,
                   .tWHR_ns = 80,
                   .tCCS_ns = 200,
                   .tR_max_ns = 45 * NK_US,
                   .tPROG_max_ns = 660 * NK_US,
                   .tBERS_max_ns = 8 * NK_MS},
    },
#endif
};

#define NK_MODEL_COUNT (sizeof nk_chip_models / sizeof nk_chip_models[0])

#ifndef NK_CHIP_MODELS_CHOSEN
/* Generic device codes (byte 2 of READ ID), 3.3 V and 1.8 V x8 parts. */
struct nk_device_code {
    uint8_t code;
    uint16_t size_mib;
    uint16_t page_size; /* 0: large page, geometry from the extended ID */
    uint16_t block_kib; /* small page only */
};

static const struct nk_device_code nk_device_codes[] = {
    {0x73, 16, 512, 16},  {0x75, 32, 512, 16}, {0x76, 64, 512, 16}, {0x79, 128, 512, 16},
    {0x71, 256, 512, 16}, {0x35, 32, 512, 16}, {0x36, 64, 512, 16}, {0x78, 128, 512, 16},
    {0xa1, 128, 0, 0},    {0xf1, 128, 0, 0},   {0xd1, 128, 0, 0},   {0xaa, 256, 0, 0},
    {0xda, 256, 0, 0},    {0xac, 512, 0, 0},   {0xdc, 512, 0, 0},   {0xa3, 1024, 0, 0},
    {0xd3, 1024, 0, 0},   {0xa5, 2048, 0, 0},  {0xd5, 2048, 0, 0},  {0xd7, 4096, 0, 0},
    {0xde, 8192, 0, 0},   {0x48, 2048, 0, 0},  {0x68, 4096, 0, 0},  {0x88, 8192, 0, 0},
};
#endif

/* Needed for the generic device codes and for messages only. */
#if !defined(NK_CHIP_MODELS_CHOSEN) || !defined(NK_NO_DIAG_TEXT)
/* Manufacturer ids in one byte each and their names one after another, each
 * ended by a NUL: no pointer per entry. */
static const uint8_t nk_vendor_ids[] = {0x01, 0x04, 0x07, 0x20, 0x2c, 0x8f, 0x98,
                                        0xad, 0xc2, 0xc8, 0xec, 0xef, 0x9b, 0x92};
static const char nk_vendor_names[] = "AMD/Spansion\0Fujitsu\0Renesas\0ST Micro\0Micron\0"
                                      "National\0Toshiba\0Hynix\0Macronix\0ESMT\0Samsung\0"
                                      "Winbond\0ATO\0EON";

const char *nk_chip_vendor_name(uint8_t manufacturer_id)
{
    const char *name = nk_vendor_names;
    for (unsigned i = 0; i < sizeof nk_vendor_ids; i++) {
        if (nk_vendor_ids[i] == manufacturer_id)
            return name;
        while (*name++)
            ;
    }
    return "unknown";
}
#endif

const struct nk_chip_info *nk_chip_table_entry(unsigned index)
{
    return index < NK_MODEL_COUNT ? &nk_chip_models[index] : NULL;
}

static char nk_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Length of the common case-insensitive prefix, or -1 when `name` is not a
 * prefix of `model`. */
static int nk_name_prefix(const char *name, const char *model)
{
    int n = 0;
    while (name[n]) {
        if (nk_lower(name[n]) != nk_lower(model[n]))
            return -1;
        n++;
    }
    return n;
}

const struct nk_chip_info *nk_chip_table_find(const char *model)
{
    const struct nk_chip_info *found = NULL;
    unsigned matches = 0;
    if (!model || !*model)
        return NULL;
    for (unsigned i = 0; i < NK_MODEL_COUNT; i++) {
        int n = nk_name_prefix(model, nk_chip_models[i].model);
        if (n < 0)
            continue;
        if (nk_chip_models[i].model[n] == '\0')
            return &nk_chip_models[i];
        found = &nk_chip_models[i];
        matches++;
    }
    return matches == 1 ? found : NULL;
}

/* Is `prefix` (prefix_len bytes) a prefix of the read ID? */
static bool nk_id_matches(const uint8_t *id, unsigned id_len, const uint8_t *prefix,
                          unsigned prefix_len)
{
    return id_len >= prefix_len && memcmp(id, prefix, prefix_len) == 0;
}

static const struct nk_chip_info *nk_model_by_id(const uint8_t *id, unsigned id_len)
{
    for (unsigned i = 0; i < NK_MODEL_COUNT; i++) {
        if (nk_id_matches(id, id_len, nk_chip_models[i].id, nk_chip_models[i].id_len))
            return &nk_chip_models[i];
    }
    return NULL;
}

/* Needed after a parameter page only. */
#ifndef NK_NO_PARAM_PAGES
bool nk_chip_table_refine(struct nk_chip_info *info)
{
    const struct nk_chip_info *model = nk_model_by_id(info->id, info->id_len);
    if (!model)
        return false;
    /* Parameter pages give maxima only; the datasheet's typical array times
     * are what the benchmark compares against. */
    info->timing = model->timing;
    if (!info->model[0])
        memcpy(info->model, model->model, sizeof info->model);
    info->bbm_pages = model->bbm_pages;
    info->bbm_offset = model->bbm_offset;
    info->features |= model->features & (NK_CHIP_ON_DIE_ECC | NK_CHIP_CACHE_PROGRAM |
                                         NK_CHIP_CACHE_READ | NK_CHIP_COPYBACK);
    if (!info->planes)
        info->planes = model->planes;
    if (!info->max_bad_blocks)
        info->max_bad_blocks = model->max_bad_blocks;
    return true;
}
#endif

/* Needed after a parameter page and for the generic device codes. */
#if !defined(NK_NO_PARAM_PAGES) || !defined(NK_CHIP_MODELS_CHOSEN)
/* The manufacturer's factory bad-block rule: which pages and which OOB byte
 * carry the marker (Samsung, Hynix, Toshiba, Macronix SLC: pages 0 and 1;
 * Samsung and Hynix MLC: the last page; everyone else: page 0; byte 0 on
 * large-page parts, byte 5 on small-page parts). */
void nk_chip_apply_bbm_rule(struct nk_chip_info *info)
{
    uint8_t maker = info->id[0];
    bool mlc = info->bits_per_cell > 1;
    info->bbm_offset = (info->features & NK_CHIP_SMALL_PAGE) ? 5 : 0;
    if ((maker == 0xec || maker == 0xad) && mlc)
        info->bbm_pages = NK_BBM_LAST_PAGE;
    else if (!mlc && (maker == 0xec || maker == 0xad || maker == 0x98 || maker == 0xc2))
        info->bbm_pages = NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE;
    else
        info->bbm_pages = NK_BBM_FIRST_PAGE;
}
#endif

#ifndef NK_CHIP_MODELS_CHOSEN
/* Row cycles needed to address `pages` pages. */
static uint8_t nk_row_cycles_for(uint32_t pages)
{
    return (uint8_t)(nk_chip_log2(pages - 1) / 8 + 1);
}
#endif

int nk_chip_lookup_id(const uint8_t *id, unsigned id_len, struct nk_chip_info *info)
{
    if (id_len < 2)
        return -NK_ENODEV;
    const struct nk_chip_info *model = nk_model_by_id(id, id_len);
    if (model) {
        *info = *model;
        memcpy(info->id, id, id_len < sizeof info->id ? id_len : sizeof info->id);
        info->id_len = (uint8_t)(id_len < sizeof info->id ? id_len : sizeof info->id);
        return 0;
    }
#ifdef NK_CHIP_MODELS_CHOSEN
    return -NK_ENODEV;
#else
    const struct nk_device_code *code = NULL;
    for (unsigned i = 0; i < sizeof nk_device_codes / sizeof nk_device_codes[0]; i++) {
        if (nk_device_codes[i].code == id[1])
            code = &nk_device_codes[i];
    }
    if (!code)
        return -NK_ENODEV;

    memset(info, 0, sizeof *info);
    memcpy(info->id, id, id_len < sizeof info->id ? id_len : sizeof info->id);
    info->id_len = (uint8_t)(id_len < sizeof info->id ? id_len : sizeof info->id);
    const char *vendor = nk_chip_vendor_name(id[0]);
    for (unsigned i = 0; vendor[i] && i + 1 < sizeof info->vendor; i++)
        info->vendor[i] = vendor[i];
    uint64_t size = (uint64_t)code->size_mib << 20;
    info->bits_per_cell = 1;
    info->luns = 1;
    if (code->page_size) {
        info->page_size = code->page_size;
        info->oob_size = code->page_size / 32;
        info->pages_per_block = (uint32_t)code->block_kib * 1024u / code->page_size;
        info->col_cycles = 1;
        info->features = NK_CHIP_SMALL_PAGE;
        info->bbm_offset = 5;
        info->nop = 1;
    } else {
        if (id_len < 4)
            return -NK_ENODEV;
        uint8_t ext = id[3];
        info->page_size = 1024u << (ext & 0x03);
        info->oob_size = (8u << ((ext >> 2) & 0x01)) * (info->page_size / 512u);
        info->pages_per_block = ((64u * 1024u) << ((ext >> 4) & 0x03)) / info->page_size;
        if (ext & 0x40)
            info->features |= NK_CHIP_BUS16;
        info->bits_per_cell = (uint8_t)(1 + ((id[2] >> 2) & 0x03));
        info->col_cycles = 2;
        info->features |= NK_CHIP_RANDOM_OUT;
        info->nop = info->bits_per_cell > 1 ? 1 : 4;
    }
    uint64_t block_bytes = (uint64_t)info->page_size * info->pages_per_block;
    info->blocks = (uint32_t)(size / block_bytes);
    info->row_cycles = nk_row_cycles_for(info->blocks * info->pages_per_block);
    nk_chip_apply_bbm_rule(info);
#ifdef NK_HAVE_FORMAT /* size knobs: without the formatter the model name stays empty */
    nk_format(info->model, sizeof info->model, "NAND %uMiB (ID %02x %02x)", code->size_mib, id[0],
              id[1]);
#endif
    return 0;
#endif
}
