/* SPDX-License-Identifier: MIT */
/*
 * Identification: RESET, READ ID (twice), then the ONFI parameter page, the
 * JEDEC parameter page, or the legacy ID table, in that order.
 *
 * Stack use: two copies of a parameter page at a time (2 x 512 bytes for
 * JEDEC), only during identification.
 */
#include <string.h>

#include "chip/chip_internal.h"
#include "nandkit/error.h"

#define NK_ONFI_PAGE 256u
#define NK_JEDEC_PAGE 512u
#define NK_PARAM_COPIES 3u

/* Number of meaningful ID bytes: chips repeat their ID after its end. */
static uint8_t nk_id_length(const uint8_t *id, unsigned len)
{
    for (unsigned period = 2; period < len; period++) {
        bool repeats = true;
        for (unsigned i = period; i < len && repeats; i++)
            repeats = id[i] == id[i - period];
        if (repeats)
            return (uint8_t)period;
    }
    return (uint8_t)len;
}

/* Size knob NK_NO_PARAM_PAGES (docs/porting.md): no ONFI/JEDEC parameter
 * pages, identification by the legacy READ ID table alone. */
#ifndef NK_NO_PARAM_PAGES
/* Reads the parameter page at `address` (copies of `len` bytes) into `page`:
 * the first of the three copies whose CRC holds, else their bitwise majority
 * when its CRC holds, as nk_param_page_select() picks from all three. Two
 * copies are held at a time (`page` and `scratch`); the third is voted in
 * piece by piece as it streams. Returns 0, an I/O error, or -NK_EBADMSG. */
static int nk_read_param_page(struct nk_chip *chip, uint8_t address, uint32_t len, uint8_t *page,
                              uint8_t *scratch)
{
    int err = nk_chip_read_param(chip, address, page, len);
    if (err || nk_param_crc_ok(page, len))
        return err;
    err = nk_chip_read_data(chip, scratch, len);
    if (err)
        return err;
    if (!nk_param_crc_ok(scratch, len)) {
        for (uint32_t at = 0; at < len; at += 32) {
            uint8_t third[32];
            uint32_t n = len - at < sizeof third ? len - at : (uint32_t)sizeof third;
            err = nk_chip_read_data(chip, third, n);
            if (err)
                return err;
            const uint8_t *copies[3] = {page + at, scratch + at, third};
            nk_onfi_majority(copies, NK_PARAM_COPIES, n, page + at); /* bytewise: in place */
            memcpy(scratch + at, third, n);
        }
        if (!nk_param_crc_ok(scratch, len))
            return nk_param_crc_ok(page, len) ? 0 : -NK_EBADMSG;
    }
    memcpy(page, scratch, len);
    return 0;
}

static int nk_identify_onfi(struct nk_chip *chip)
{
    uint8_t page[NK_ONFI_PAGE], ext[NK_ONFI_PAGE];
    int err = nk_read_param_page(chip, 0x00, NK_ONFI_PAGE, page, ext);
    if (err == -NK_EBADMSG)
        return nk_diag_set(&chip->diag, err,
                           "ONFI parameter page unreadable: all 3 copies fail the CRC and the "
                           "bitwise majority vote does not recover it");
    if (err)
        return err;

    /* ONFI 2.1+: an extended parameter page follows the copies when the ECC
     * requirement byte says so. Read it through a small window. */
    uint32_t ext_len = (uint32_t)(page[12] | page[13] << 8) * 16u;
    unsigned copies = page[14] >= NK_PARAM_COPIES ? page[14] : NK_PARAM_COPIES;
    bool have_ext = false;
    if (page[112] == 0xff && ext_len >= 48 && ext_len <= sizeof ext) {
        err = nk_chip_read_param(chip, 0x00, ext, NK_ONFI_PAGE);
        for (unsigned c = 1; !err && c < copies; c++)
            err = nk_chip_read_data(chip, ext, NK_ONFI_PAGE);
        for (unsigned c = 0; !err && c < NK_PARAM_COPIES && !have_ext; c++) {
            err = nk_chip_read_data(chip, ext, ext_len);
            have_ext = !err && memcmp(ext + 2, "EPPS", 4) == 0 &&
                       nk_onfi_crc16(NK_ONFI_CRC_SEED, ext + 2, ext_len - 2) ==
                           (uint16_t)(ext[0] | ext[1] << 8);
        }
        if (err)
            return err;
    }
    return nk_onfi_parse(page, have_ext ? ext : NULL, have_ext ? ext_len : 0, &chip->info,
                         &chip->diag);
}

static int nk_identify_jedec(struct nk_chip *chip)
{
    uint8_t page[NK_JEDEC_PAGE], scratch[NK_JEDEC_PAGE];
    int err = nk_read_param_page(chip, 0x40, NK_JEDEC_PAGE, page, scratch);
    if (err == -NK_EBADMSG)
        return nk_diag_set(&chip->diag, err,
                           "JEDEC parameter page unreadable: all 3 copies fail the CRC and the "
                           "bitwise majority vote does not recover it");
    if (err)
        return err;
    return nk_jedec_parse(page, &chip->info, &chip->diag);
}

/* ONFI, else JEDEC: 1 when a parameter page identified the chip, 0 when the
 * chip has neither signature, a negative error otherwise. */
static int nk_identify_param_page(struct nk_chip *chip)
{
    uint8_t signature[5];
    int err = nk_chip_read_id(chip, 0x20, signature, 4);
    if (err)
        return err;
    if (memcmp(signature, "ONFI", 4) == 0) {
        err = nk_identify_onfi(chip);
        return err ? err : 1;
    }
    err = nk_chip_read_id(chip, 0x40, signature, 5);
    if (err)
        return err;
    if (memcmp(signature, "JEDEC", 5) == 0) {
        err = nk_identify_jedec(chip);
        return err ? err : 1;
    }
    return 0;
}
#endif

int nk_chip_identify(struct nk_chip *chip, const struct nk_ctrl *ctrl, unsigned chip_select)
{
    chip->ctrl = ctrl;
    chip->chip_select = chip_select;
    memset(&chip->info, 0, sizeof chip->info);
    chip->info.timing = *nk_chip_timing_defaults();
    nk_diag_clear(&chip->diag);
#ifndef NK_NO_SPINAND
    memset(&chip->spi, 0, sizeof chip->spi);
#endif
    NK_SERIAL(chip, ctrl->ops ? nk_spinand_identify(chip) : -NK_EINVAL);
    if (!ctrl || !ctrl->ops || !ctrl->ops->exec_op)
        return nk_diag_set(&chip->diag, -NK_EINVAL, "controller port has no exec_op");

    int err = nk_chip_reset(chip);
    if (err)
        return err;

    uint8_t id[8], again[8];
    err = nk_chip_read_id(chip, 0x00, id, sizeof id);
    if (!err)
        err = nk_chip_read_id(chip, 0x00, again, sizeof again);
    if (err)
        return err;
    if (memcmp(id, again, sizeof id) != 0)
        return nk_diag_set(&chip->diag, -NK_EIO,
                           "READ ID unstable: %02x %02x then %02x %02x (check the bus)", id[0],
                           id[1], again[0], again[1]);
    if ((id[0] == 0x00 || id[0] == 0xff) && id[1] == id[0])
        return nk_diag_set(&chip->diag, -NK_ENODEV, "no chip answers READ ID (reads %02x %02x)",
                           id[0], id[1]);

#ifndef NK_NO_PARAM_PAGES
    int found = nk_identify_param_page(chip);
    if (found < 0)
        return found;
#else
    const int found = 0;
#endif
    if (!found) {
        err = nk_chip_lookup_id(id, nk_id_length(id, sizeof id), &chip->info);
        if (err)
            return nk_diag_set(&chip->diag, err,
                               "unknown NAND: ID %02x %02x %02x %02x %02x (manufacturer %s)", id[0],
                               id[1], id[2], id[3], id[4], nk_chip_vendor_name(id[0]));
        return 0;
    }

    memcpy(chip->info.id, id, sizeof id);
    chip->info.id_len = nk_id_length(id, sizeof id);
    nk_chip_apply_bbm_rule(&chip->info);
    nk_chip_table_refine(&chip->info);
    return 0;
}
