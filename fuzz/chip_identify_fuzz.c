/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: chip identification through the simulator. A simulated
 * part (one of five presets: ONFI, ONFI with an extended parameter page,
 * JEDEC, legacy ID table, small page) answers READ ID and READ PARAMETER
 * PAGE with its parameter pages edited by the input; nk_chip_identify()
 * decodes them, and when it accepts the part, the chip layer reads,
 * programs and erases with the decoded geometry (first and last rows), so
 * every field the parsers let through reaches the address-cycle code. The
 * parsers are also called directly on the edited first copy. Any crash or
 * sanitizer report is a finding.
 *
 * Input: one flags byte, then edits of 3 bytes (offset low, offset high,
 * value) applied to the parameter-page area: ONFI 3 x 256 bytes followed by
 * the extended page copies, or JEDEC 3 x 512 bytes.
 * Flags: bits 0..2 preset (mod 5); bit 3 recompute every copy's CRC after
 * the edits (so the parsers see the edited fields); bit 4 copy the edited
 * first copy over the other two.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"

static const char *const presets[] = {"MT29F2G08ABAEA", "MT29F32G08ABCDB", "NKSIM-JEDEC-2G",
                                      "K9F1G08U0A", "K9F1208U0C"};

static void put_crc(uint8_t *page, uint32_t len)
{
    uint16_t crc = nk_onfi_crc16(NK_ONFI_CRC_SEED, page, len - 2);
    page[len - 2] = (uint8_t)crc;
    page[len - 1] = (uint8_t)(crc >> 8);
}

/* The extended parameter page keeps its CRC in front. */
static void put_ext_crc(uint8_t *ext, uint32_t len)
{
    uint16_t crc = nk_onfi_crc16(NK_ONFI_CRC_SEED, ext + 2, len - 2);
    ext[0] = (uint8_t)crc;
    ext[1] = (uint8_t)(crc >> 8);
}

static void exercise(struct nk_chip *chip)
{
    static uint8_t buf[4096];
    const struct nk_chip_info *i = &chip->info;
    uint64_t pages = (uint64_t)i->blocks * i->pages_per_block;
    if (pages == 0)
        return;
    uint32_t last = (uint32_t)(pages - 1 > UINT32_MAX ? UINT32_MAX : pages - 1);
    uint32_t len = i->page_size < sizeof buf ? i->page_size : (uint32_t)sizeof buf;
    struct nk_xfer x[2] = {{0, len / 2, buf}, {i->page_size, 8, buf + len / 2}};
    nk_chip_read_page(chip, 0, x, 2);
    nk_chip_read_page(chip, last, x, 1);
    memset(buf, 0x5a, sizeof buf);
    nk_chip_program_page(chip, i->pages_per_block, x, 2, false);
    nk_chip_erase_block(chip, last);
    uint8_t features[4];
    nk_chip_get_features(chip, 0x01, features);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
    if (len < 1)
        return 0;
    uint8_t flags = in[0];
    static struct nk_sim_params params;
    if (nk_sim_preset(presets[(flags & 7) % 5], &params) != 0)
        abort();

    bool jedec = params.jedec;
    uint8_t *area = jedec ? params.jedec_page : params.onfi_page;
    uint32_t copy_len = jedec ? 512u : 256u;
    uint32_t area_len = 3 * copy_len;
    uint32_t ext_len = params.onfi_ext_len;
    uint32_t total = jedec ? area_len : area_len + 3 * ext_len;
    for (size_t k = 1; k + 3 <= len; k += 3) {
        uint32_t at = (uint32_t)(in[k] | in[k + 1] << 8) % total;
        if (at < area_len)
            area[at] = in[k + 2];
        else
            params.onfi_ext_page[at - area_len] = in[k + 2];
    }
    if (flags & 0x10) {
        memcpy(area + copy_len, area, copy_len);
        memcpy(area + 2 * copy_len, area, copy_len);
    }
    if (flags & 0x08) {
        for (unsigned c = 0; c < 3; c++)
            put_crc(area + c * copy_len, copy_len);
        for (unsigned c = 0; !jedec && ext_len >= 16 && c < 3; c++)
            put_ext_crc(params.onfi_ext_page + c * ext_len, ext_len);
    }

    /* The parsers on their own (they are handed CRC-checked pages). */
    struct nk_chip_info info;
    struct nk_diag diag;
    memset(&info, 0, sizeof info);
    if (jedec)
        nk_jedec_parse(area, &info, &diag);
    else
        nk_onfi_parse(area, ext_len ? params.onfi_ext_page : NULL, ext_len, &info, &diag);

    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.seed = 1;
    config.factory_bad_blocks = 0;
    struct nk_sim *sim;
    struct nk_diag why[1];
    if (nk_sim_open(&sim, &config, why) != 0)
        abort(); /* the preset's geometry is unchanged: it must open */
    struct nk_chip chip;
    if (nk_chip_identify(&chip, nk_sim_ctrl(sim), 0) == 0)
        exercise(&chip);
    nk_sim_close(sim);
    return 0;
}
