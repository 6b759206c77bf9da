/* SPDX-License-Identifier: MIT */
/*
 * On-die ECC of SPI-NAND parts: each vendor's status encoding turned into
 * the bitflip contract (corrected count >= 0, or -NK_EBADMSG), and each
 * vendor's OOB layout (Linux's ooblayout for the part, so a file system's
 * tags land where Linux's would). The tables are in docs/chip.md.
 */
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/spinand.h"

uint8_t nk_spinand_ecc_extra_register(enum nk_spinand_ecc_status scheme, uint8_t status)
{
    unsigned code = (status >> 4) & 0x3u;
    switch (scheme) {
    case NK_SPINAND_ECC_GIGADEVICE:
        return code == 1 ? NK_SPINAND_FEATURE_GD_STATUS2 : 0;
    case NK_SPINAND_ECC_MACRONIX:
        return code == 1 ? NK_SPINAND_MX_READ_ECCSR : 0;
    case NK_SPINAND_ECC_KIOXIA:
        return code == 1 || code == 3 ? NK_SPINAND_FEATURE_TOSHIBA_MBF : 0;
    default:
        return 0;
    }
}

/* A count a part reported in a vendor register, bounded by the strength:
 * 0 or more than the strength is not a count the part may report, so the
 * strength (the upper bound) is taken. */
static int nk_spinand_reported_count(unsigned count, unsigned strength)
{
    return count == 0 || count > strength ? (int)strength : (int)count;
}

int nk_spinand_ecc_decode(enum nk_spinand_ecc_status scheme, uint8_t status, uint8_t extra,
                          unsigned strength)
{
    unsigned two = (status >> 4) & 0x3u;
    unsigned three = (status >> 4) & 0x7u;
    switch (scheme) {
    case NK_SPINAND_ECC_TWO_BITS:
        if (two == 0)
            return 0;
        if (two == 1)
            return (int)strength;
        return -NK_EBADMSG; /* 11: uncorrectable in several pages (continuous read) */
    case NK_SPINAND_ECC_GIGADEVICE:
        if (two == 0)
            return 0;
        if (two == 1) /* 4 + STATUS2 bits 5:4; 1..4 flips all read as 4 */
            return 4 + (int)((extra >> 4) & 0x3u);
        if (two == 3)
            return 8;
        return -NK_EBADMSG;
    case NK_SPINAND_ECC_MICRON:
        switch (three) {
        case 0:
            return 0;
        case 1:
            return 3;
        case 3:
            return 6;
        case 5:
            return 8;
        case 2:
            return -NK_EBADMSG;
        default:
            return -NK_EIO;
        }
    case NK_SPINAND_ECC_MACRONIX:
        if (two == 0)
            return 0;
        if (two == 1)
            return nk_spinand_reported_count(extra & 0x0fu, strength);
        return two == 2 ? -NK_EBADMSG : -NK_EIO;
    case NK_SPINAND_ECC_KIOXIA:
        if (two == 0)
            return 0;
        if (two == 2)
            return -NK_EBADMSG;
        return nk_spinand_reported_count((extra >> 4) & 0x0fu, strength);
    }
    return -NK_EIO;
}

static void nk_region(struct nk_oob_region *r, unsigned offset, unsigned length)
{
    r->offset = (uint16_t)offset;
    r->length = (uint16_t)length;
}

void nk_spinand_oob_layout(const struct nk_spinand_part *part, struct nk_oob_layout *layout)
{
    unsigned oob = part->info.oob_size;
    memset(layout, 0, sizeof *layout);
    switch (part->layout) {
    case NK_SPINAND_LAYOUT_WINBOND:
        for (unsigned s = 0; s < 4 && s < NK_OOB_MAX_REGIONS; s++) {
            nk_region(&layout->free[s], 16 * s + 2, 6);
            nk_region(&layout->ecc[s], 16 * s + 8, 8);
        }
        layout->free_count = 4;
        layout->ecc_count = 4;
        break;
    case NK_SPINAND_LAYOUT_GIGADEVICE:
        nk_region(&layout->free[0], 1, oob / 2 - 1);
        nk_region(&layout->ecc[0], oob / 2, oob / 2);
        layout->free_count = layout->ecc_count = 1;
        break;
    case NK_SPINAND_LAYOUT_HALVES:
        nk_region(&layout->free[0], 2, oob / 2 - 2);
        nk_region(&layout->ecc[0], oob / 2, oob / 2);
        layout->free_count = layout->ecc_count = 1;
        break;
    default: /* NK_SPINAND_LAYOUT_ALL_FREE */
        nk_region(&layout->free[0], 2, oob - 2);
        layout->free_count = 1;
        break;
    }
}

void nk_spinand_ecc_engine_init(const struct nk_spinand_part *part, struct nk_ecc_engine *engine)
{
    nk_ecc_on_die_init(engine, part->info.ecc_step, part->info.ecc_strength);
}
