/* SPDX-License-Identifier: MIT */
/* Chip-layer internals shared between its files. */
#ifndef NK_CHIP_INTERNAL_H
#define NK_CHIP_INTERNAL_H

#include "nandkit/chip.h"

/* ONFI timing mode 0, used before a part is known and for missing values. */
const struct nk_chip_timing *nk_chip_timing_defaults(void);

/* Fills the asynchronous cycle timings of ONFI timing mode `mode` (0..5). */
void nk_onfi_timing_mode(unsigned mode, struct nk_chip_timing *timing);

/* Copies `len` bytes of a space-padded ASCII field into `out` (size
 * `out_size`), trimming trailing spaces and replacing non-printables. */
void nk_chip_copy_ascii(char *out, unsigned out_size, const uint8_t *field, unsigned len);

/* Manufacturer name for a JEDEC manufacturer ID byte ("unknown" if none). */
const char *nk_chip_vendor_name(uint8_t manufacturer_id);

/* Sets bbm_pages/bbm_offset from the manufacturer's factory-marker rule. */
void nk_chip_apply_bbm_rule(struct nk_chip_info *info);

/* Does a parameter page of `len` bytes pass its CRC (over bytes 0..len-3,
 * stored LE in the last 2)? */
bool nk_param_crc_ok(const uint8_t *page, uint32_t len);

/* Index of the highest set bit of `v` (0 for 0 and 1). */
static inline unsigned nk_chip_log2(uint32_t v)
{
    unsigned n = 0;
    while (v >>= 1)
        n++;
    return n;
}

/* Completes `info` from the legacy model table when its ID matches a known
 * model (typical array timings, bad-block rule); returns true on a match. */
bool nk_chip_table_refine(struct nk_chip_info *info);

#endif
