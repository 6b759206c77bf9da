/* SPDX-License-Identifier: MIT */
/*
 * ONFI and JEDEC parameter pages: CRC, copy selection with bitwise majority
 * vote, and decoding into struct nk_chip_info. Byte offsets follow the ONFI
 * 1.0-4.x and JESD230 parameter page definitions (see docs/chip.md).
 */
#include <string.h>

#include "chip/chip_internal.h"
#include "nandkit/error.h"

uint16_t nk_onfi_crc16(uint16_t seed, const uint8_t *data, uint32_t len)
{
    uint16_t crc = seed;
    for (uint32_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(data[i] << 8);
        for (int bit = 0; bit < 8; bit++)
            crc = (uint16_t)(crc & 0x8000u ? ((unsigned)crc << 1) ^ 0x8005u : (unsigned)crc << 1);
    }
    return crc;
}

void nk_onfi_majority(const uint8_t *const *copies, unsigned count, uint32_t len, uint8_t *out)
{
    for (uint32_t i = 0; i < len; i++) {
        uint8_t result = 0;
        for (unsigned bit = 0; bit < 8; bit++) {
            unsigned ones = 0;
            for (unsigned c = 0; c < count; c++)
                ones += (copies[c][i] >> bit) & 1u;
            if (2 * ones > count)
                result |= (uint8_t)(1u << bit);
        }
        out[i] = result;
    }
}

static uint16_t nk_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t nk_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool nk_param_crc_ok(const uint8_t *page, uint32_t len)
{
    return nk_onfi_crc16(NK_ONFI_CRC_SEED, page, len - 2) == nk_le16(page + len - 2);
}

int nk_param_page_select(const uint8_t *raw, unsigned count, uint32_t len, uint8_t *out)
{
    for (unsigned c = 0; c < count; c++) {
        if (nk_param_crc_ok(raw + (size_t)c * len, len)) {
            memcpy(out, raw + (size_t)c * len, len);
            return (int)c;
        }
    }
    if (count >= 3) {
        const uint8_t *copies[3] = {raw, raw + len, raw + 2 * (size_t)len};
        nk_onfi_majority(copies, 3, len, out);
        if (nk_param_crc_ok(out, len))
            return (int)count;
    }
    return -NK_EBADMSG;
}

void nk_chip_copy_ascii(char *out, unsigned out_size, const uint8_t *field, unsigned len)
{
    unsigned n = len < out_size - 1 ? len : out_size - 1;
    for (unsigned i = 0; i < n; i++)
        out[i] = field[i] >= 0x20 && field[i] < 0x7f ? (char)field[i] : '?';
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\0'))
        n--;
    out[n] = '\0';
}

/* ONFI asynchronous SDR timing modes 0..5, cycle parameters in ns. */
void nk_onfi_timing_mode(unsigned mode, struct nk_chip_timing *timing)
{
    static const uint16_t cycle[6] = {100, 50, 35, 30, 25, 20};
    static const uint16_t whr[6] = {120, 80, 80, 60, 60, 60};
    static const uint16_t wb[6] = {200, 100, 100, 100, 100, 100};
    if (mode > 5)
        mode = 5;
    timing->tRC_ns = cycle[mode];
    timing->tWC_ns = cycle[mode];
    timing->tWHR_ns = whr[mode];
    timing->tWB_ns = wb[mode];
    timing->tADL_ns = mode == 0 ? 200 : 70;
}

static bool nk_is_power_of_two(uint32_t v)
{
    return v && !(v & (v - 1));
}

/* The array times of a parameter page (little-endian microseconds, maxima
 * only): they stand in for the typical values until the model table
 * refines them. */
static void nk_param_array_times(struct nk_chip_timing *t, const uint8_t *prog, const uint8_t *bers,
                                 const uint8_t *read)
{
    t->tPROG_max_ns = (uint32_t)nk_le16(prog) * 1000u;
    t->tBERS_max_ns = (uint32_t)nk_le16(bers) * 1000u;
    t->tR_max_ns = (uint32_t)nk_le16(read) * 1000u;
    t->tPROG_ns = t->tPROG_max_ns;
    t->tBERS_ns = t->tBERS_max_ns;
    t->tR_ns = t->tR_max_ns;
    t->tRST_ns = 1000000;
    t->tCBSY_ns = t->tPROG_ns;
}

/* Bytes of address needed to count `n` values (n >= 1). */
static unsigned nk_param_cycles_for(uint64_t n)
{
    unsigned cycles = 1;
    while (cycles < 8 && n > (1ull << (8 * cycles)))
        cycles++;
    return cycles;
}

/* Geometry sanity shared by ONFI and JEDEC decoding: every field must be
 * one the rest of the stack can address. `blocks` is blocks per LUN x LUNs
 * computed without wrapping. */
static int nk_param_check_geometry(struct nk_chip_info *info, uint64_t blocks, struct nk_diag *diag,
                                   const char *what)
{
    if (!nk_is_power_of_two(info->page_size) || info->page_size < 256 || info->page_size > 65536)
        return nk_diag_set(diag, -NK_EINVAL, "%s page: bad page size %u", what, info->page_size);
    if (info->oob_size == 0 || info->oob_size > 4096 || info->oob_size > info->page_size)
        return nk_diag_set(diag, -NK_EINVAL,
                           "%s page: bad spare size %u (1..4096 and at most the page size %u)",
                           what, info->oob_size, info->page_size);
    if (!nk_is_power_of_two(info->pages_per_block) || info->pages_per_block > 4096)
        return nk_diag_set(diag, -NK_EINVAL, "%s page: bad pages per block %u", what,
                           info->pages_per_block);
    if (blocks == 0 || info->luns == 0)
        return nk_diag_set(diag, -NK_EINVAL, "%s page: no blocks (%llu blocks, %u LUNs)", what,
                           (unsigned long long)blocks, info->luns);
    uint64_t pages = blocks * info->pages_per_block;
    if (pages > UINT32_MAX)
        return nk_diag_set(diag, -NK_EINVAL,
                           "%s page: %llu blocks of %u pages exceed 2^32 pages (32-bit rows)", what,
                           (unsigned long long)blocks, info->pages_per_block);
    info->blocks = (uint32_t)blocks;
    if (info->bits_per_cell == 0 || info->bits_per_cell > 8)
        return nk_diag_set(diag, -NK_EINVAL, "%s page: bad bits per cell %u (1..8)", what,
                           info->bits_per_cell);
    /* A column addresses page + spare bytes (words on a x16 bus). */
    uint32_t columns =
        (info->page_size + info->oob_size) >> (info->features & NK_CHIP_BUS16 ? 1 : 0);
    unsigned col_needed = nk_param_cycles_for(columns);
    if (info->col_cycles < col_needed || info->col_cycles > 4)
        return nk_diag_set(diag, -NK_EINVAL,
                           "%s page: %u column cycles cannot address %u + %u bytes (%u..4 needed)",
                           what, info->col_cycles, info->page_size, info->oob_size, col_needed);
    unsigned row_needed = nk_param_cycles_for(pages);
    if (info->row_cycles < row_needed || info->row_cycles > 4)
        return nk_diag_set(diag, -NK_EINVAL,
                           "%s page: %u row cycles cannot address %llu pages (%u..4 needed)", what,
                           info->row_cycles, (unsigned long long)pages, row_needed);
    if (info->col_cycles + info->row_cycles > NK_MAX_ADDR_CYCLES)
        return nk_diag_set(diag, -NK_EINVAL, "%s page: bad address cycles (%u column, %u row)",
                           what, info->col_cycles, info->row_cycles);
    return 0;
}

/* Reads the ECC section of an ONFI extended parameter page ("EPPS"). */
static void nk_onfi_parse_ext(const uint8_t *ext, uint32_t ext_len, struct nk_chip_info *info)
{
    if (!ext || ext_len < 48 || memcmp(ext + 2, "EPPS", 4) != 0)
        return;
    if (nk_onfi_crc16(NK_ONFI_CRC_SEED, ext + 2, ext_len - 2) != nk_le16(ext))
        return;
    uint32_t offset = 32;
    for (unsigned s = 0; s < 8; s++) {
        uint8_t type = ext[16 + 2 * s];
        uint32_t length = (uint32_t)ext[17 + 2 * s] * 16u;
        if (type == 0 || offset + length > ext_len)
            break;
        if (type == 2 && length >= 2) {
            info->ecc_strength = ext[offset];
            info->ecc_step = ext[offset + 1] < 16 ? (uint16_t)(1u << ext[offset + 1]) : 0;
            return;
        }
        offset += length;
    }
}

int nk_onfi_parse(const uint8_t page[256], const uint8_t *ext, uint32_t ext_len,
                  struct nk_chip_info *info, struct nk_diag *diag)
{
    if (memcmp(page, "ONFI", 4) != 0)
        return nk_diag_set(diag, -NK_EINVAL, "parameter page lacks the ONFI signature");
    uint16_t revision = nk_le16(page + 4);
    static const uint8_t versions[] = {0, 10, 20, 21, 22, 23, 30, 31, 32, 40, 41, 42, 43, 44, 45};
    info->onfi_version = 0;
    for (unsigned bit = 1; bit < sizeof versions; bit++) {
        if (revision & (1u << bit))
            info->onfi_version = versions[bit];
    }
    if (!info->onfi_version)
        return nk_diag_set(diag, -NK_EINVAL, "ONFI revision field 0x%04x names no version",
                           revision);

    uint16_t features = nk_le16(page + 6);
    uint16_t optional = nk_le16(page + 8);
    nk_chip_copy_ascii(info->vendor, sizeof info->vendor, page + 32, 12);
    nk_chip_copy_ascii(info->model, sizeof info->model, page + 44, 20);
    info->page_size = nk_le32(page + 80);
    info->oob_size = nk_le16(page + 84);
    info->pages_per_block = nk_le32(page + 92);
    uint32_t blocks_per_lun = nk_le32(page + 96);
    /* Linux truncates a non-power-of-two block count per LUN. */
    if (blocks_per_lun && !nk_is_power_of_two(blocks_per_lun))
        blocks_per_lun = 1u << nk_chip_log2(blocks_per_lun);
    info->luns = page[100];
    uint64_t blocks = (uint64_t)blocks_per_lun * info->luns;
    info->blocks = 0; /* set by the geometry check once it fits */
    info->row_cycles = page[101] & 0x0f;
    info->col_cycles = page[101] >> 4;
    info->bits_per_cell = page[102];
    info->max_bad_blocks = (uint32_t)nk_le16(page + 103) * info->luns;
    info->nop = page[110];
    if (page[112] == 0xff) {
        info->ecc_strength = 0;
        info->ecc_step = 0;
        nk_onfi_parse_ext(ext, ext_len, info);
    } else {
        info->ecc_strength = page[112];
        info->ecc_step = page[112] ? 512 : 0;
    }

    struct nk_chip_timing *t = &info->timing;
    uint16_t modes = nk_le16(page + 129);
    nk_onfi_timing_mode(modes ? nk_chip_log2(modes & 0x3f) : 0, t);
    nk_param_array_times(t, page + 133, page + 135, page + 137);
    t->tCCS_ns = nk_le16(page + 139);

    info->features |= NK_CHIP_ONFI | NK_CHIP_RANDOM_OUT;
    if (features & 0x01)
        info->features |= NK_CHIP_BUS16;
    if (optional & 0x01)
        info->features |= NK_CHIP_CACHE_PROGRAM;
    if (optional & 0x02)
        info->features |= NK_CHIP_CACHE_READ;
    if (optional & 0x04)
        info->features |= NK_CHIP_GET_SET_FEATURES;
    if (optional & 0x10)
        info->features |= NK_CHIP_COPYBACK;
    info->bbm_pages = NK_BBM_FIRST_PAGE;
    info->bbm_offset = 0;
    return nk_param_check_geometry(info, blocks, diag, "ONFI parameter");
}

int nk_jedec_parse(const uint8_t page[512], struct nk_chip_info *info, struct nk_diag *diag)
{
    if (memcmp(page, "JESD", 4) != 0)
        return nk_diag_set(diag, -NK_EINVAL, "parameter page lacks the JESD signature");
    uint16_t revision = nk_le16(page + 4);
    if (!(revision & 0x06))
        return nk_diag_set(diag, -NK_EINVAL, "JEDEC revision field 0x%04x names no version",
                           revision);
    uint16_t features = nk_le16(page + 6);
    nk_chip_copy_ascii(info->vendor, sizeof info->vendor, page + 32, 12);
    nk_chip_copy_ascii(info->model, sizeof info->model, page + 44, 20);
    info->page_size = nk_le32(page + 80);
    info->oob_size = nk_le16(page + 84);
    info->pages_per_block = nk_le32(page + 92);
    info->luns = page[100];
    uint64_t blocks = (uint64_t)nk_le32(page + 96) * info->luns;
    info->blocks = 0; /* set by the geometry check once it fits */
    info->row_cycles = page[101] & 0x0f;
    info->col_cycles = page[101] >> 4;
    info->bits_per_cell = page[102];
    info->nop = page[103];
    struct nk_chip_timing *t = &info->timing;
    uint16_t speed = nk_le16(page + 144);
    nk_onfi_timing_mode(speed ? nk_chip_log2(speed & 0x3f) : 0, t);
    nk_param_array_times(t, page + 153, page + 155, page + 157);
    t->tCCS_ns = nk_le16(page + 161);
    if (nk_le16(page + 170))
        t->tADL_ns = nk_le16(page + 170);
    const uint8_t *ecc = page + 211; /* first ECC information block */
    info->ecc_strength = ecc[0];
    info->ecc_step = ecc[1] && ecc[1] < 16 ? (uint16_t)(1u << ecc[1]) : 0;
    info->max_bad_blocks = (uint32_t)nk_le16(ecc + 2) * info->luns;
    info->features |= NK_CHIP_JEDEC | NK_CHIP_RANDOM_OUT;
    if (features & 0x01)
        info->features |= NK_CHIP_BUS16;
    info->bbm_pages = NK_BBM_FIRST_PAGE;
    info->bbm_offset = 0;
    return nk_param_check_geometry(info, blocks, diag, "JEDEC parameter");
}
