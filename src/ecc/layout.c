/* SPDX-License-Identifier: MIT */
/*
 * OOB layouts: which spare bytes hold ECC and which are free, with the
 * defaults Linux MTD uses, and the packing of free bytes that MTD calls
 * auto-placement (see docs/ecc.md).
 */
#include <string.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

static void nk_layout_clear(struct nk_oob_layout *layout)
{
    memset(layout, 0, sizeof *layout);
}

static void nk_layout_add(struct nk_oob_region *regions, uint8_t *count, unsigned offset,
                          unsigned length)
{
    if (length == 0 || *count >= NK_OOB_MAX_REGIONS)
        return;
    regions[*count].offset = (uint16_t)offset;
    regions[*count].length = (uint16_t)length;
    (*count)++;
}

int nk_oob_layout_small_page(struct nk_oob_layout *layout, unsigned oob_size)
{
    nk_layout_clear(layout);
    if (oob_size == 16) {
        /* ECC 0-3 and 6-7; byte 5 is the bad-block marker, 4 is left alone. */
        nk_layout_add(layout->ecc, &layout->ecc_count, 0, 4);
        nk_layout_add(layout->ecc, &layout->ecc_count, 6, 2);
        nk_layout_add(layout->free, &layout->free_count, 8, 8);
        return 0;
    }
    if (oob_size == 8) {
        /* 256-byte pages: ECC 0-2, marker 5, free 3-4 and 6-7. */
        nk_layout_add(layout->ecc, &layout->ecc_count, 0, 3);
        nk_layout_add(layout->free, &layout->free_count, 3, 2);
        nk_layout_add(layout->free, &layout->free_count, 6, 2);
        return 0;
    }
    return -NK_EINVAL;
}

int nk_oob_layout_large_hamming(struct nk_oob_layout *layout, unsigned oob_size, unsigned ecc_total)
{
    nk_layout_clear(layout);
    unsigned offset;
    if (oob_size == 64)
        offset = 40;
    else if (oob_size == 128)
        offset = 80;
    else
        return nk_oob_layout_large(layout, oob_size, ecc_total);
    if (offset + ecc_total > oob_size)
        return -NK_EINVAL;
    nk_layout_add(layout->ecc, &layout->ecc_count, offset, ecc_total);
    /* Linux's two free sections: before the code and after it (the second
     * is empty when the code reaches the end, e.g. 8 x 3 bytes at 40). */
    nk_layout_add(layout->free, &layout->free_count, 2, offset - 2);
    nk_layout_add(layout->free, &layout->free_count, offset + ecc_total,
                  oob_size - offset - ecc_total);
    return 0;
}

int nk_oob_layout_large(struct nk_oob_layout *layout, unsigned oob_size, unsigned ecc_total)
{
    nk_layout_clear(layout);
    if (ecc_total + 2 > oob_size)
        return -NK_EINVAL;
    nk_layout_add(layout->ecc, &layout->ecc_count, oob_size - ecc_total, ecc_total);
    nk_layout_add(layout->free, &layout->free_count, 2, oob_size - ecc_total - 2);
    return 0;
}

int nk_oob_layout_all_free(struct nk_oob_layout *layout, unsigned oob_size, unsigned first_free)
{
    nk_layout_clear(layout);
    if (first_free >= oob_size)
        return -NK_EINVAL;
    nk_layout_add(layout->free, &layout->free_count, first_free, oob_size - first_free);
    return 0;
}

int nk_oob_layout_default(struct nk_oob_layout *layout, unsigned page_size, unsigned oob_size,
                          const struct nk_ecc_engine *engine)
{
    unsigned ecc_total = 0;
    bool has_code = engine && (engine->placement == NK_ECC_PLACEMENT_SOFTWARE ||
                               engine->placement == NK_ECC_PLACEMENT_CONTROLLER);
    if (has_code && engine->step_size)
        ecc_total = page_size / engine->step_size * engine->bytes_per_step;
    if (!has_code) {
        /* No code: small pages keep Linux's free bytes, large pages free
         * everything after the two marker bytes. */
        if (page_size <= 512 && nk_oob_layout_small_page(layout, oob_size) == 0) {
            layout->ecc_count = 0;
            return 0;
        }
        return nk_oob_layout_all_free(layout, oob_size, 2);
    }
    if (oob_size == 16 || oob_size == 8) {
        /* Small pages: Linux places at most 6 code bytes around the marker
         * at byte 5 and wants an explicit layout for anything larger. */
        if (ecc_total > (oob_size == 16 ? 6u : 3u))
            return -NK_EINVAL;
        int err = nk_oob_layout_small_page(layout, oob_size);
        if (!err && ecc_total < 6 && oob_size == 16) {
            /* Fewer code bytes than the layout reserves: trim the regions. */
            layout->ecc[0].length = (uint16_t)(ecc_total < 4 ? ecc_total : 4);
            layout->ecc[1].length = (uint16_t)(ecc_total > 4 ? ecc_total - 4 : 0);
            if (!layout->ecc[1].length)
                layout->ecc_count = 1;
        }
        return err;
    }
    bool hamming = engine->bytes_per_step == 3 && engine->strength == 1 &&
                   (engine->step_size == 256 || engine->step_size == 512);
    if (hamming)
        return nk_oob_layout_large_hamming(layout, oob_size, ecc_total);
    return nk_oob_layout_large(layout, oob_size, ecc_total);
}

/* Region `i` of the ECC regions followed by the free ones. */
static const struct nk_oob_region *nk_region(const struct nk_oob_layout *layout, unsigned i)
{
    return i < layout->ecc_count ? &layout->ecc[i] : &layout->free[i - layout->ecc_count];
}

int nk_oob_layout_check(const struct nk_oob_layout *layout, unsigned oob_size, unsigned ecc_total)
{
    /* Every pair of regions compared (at most 2 x NK_OOB_MAX_REGIONS): no
     * bitmap of the OOB on the stack. */
    unsigned ecc_bytes = 0;
    if (oob_size > 4096 || layout->ecc_count > NK_OOB_MAX_REGIONS ||
        layout->free_count > NK_OOB_MAX_REGIONS)
        return -NK_EINVAL;
    unsigned count = (unsigned)layout->ecc_count + layout->free_count;
    for (unsigned i = 0; i < count; i++) {
        const struct nk_oob_region *a = nk_region(layout, i);
        unsigned end = (unsigned)a->offset + a->length;
        if (end > oob_size)
            return -NK_EINVAL;
        for (unsigned j = 0; j < i; j++) {
            const struct nk_oob_region *b = nk_region(layout, j);
            if (a->length && b->length && a->offset < (unsigned)b->offset + b->length &&
                b->offset < end)
                return -NK_EINVAL;
        }
        if (i < layout->ecc_count)
            ecc_bytes += a->length;
    }
    return ecc_bytes >= ecc_total ? 0 : -NK_EINVAL;
}

unsigned nk_oob_free_bytes(const struct nk_oob_layout *layout)
{
    unsigned total = 0;
    for (unsigned r = 0; r < layout->free_count; r++)
        total += layout->free[r].length;
    return total;
}

/* Walks `len` bytes from logical offset `offset` over `regions`, copying
 * between the OOB and the packed buffer in the direction given. */
static void nk_oob_walk(const struct nk_oob_region *regions, unsigned count, uint8_t *oob,
                        uint8_t *packed, unsigned offset, unsigned len, bool to_oob)
{
    unsigned skip = offset;
    for (unsigned r = 0; r < count && len; r++) {
        unsigned length = regions[r].length;
        if (skip >= length) {
            skip -= length;
            continue;
        }
        unsigned n = length - skip;
        if (n > len)
            n = len;
        uint8_t *place = oob + regions[r].offset + skip;
        if (to_oob)
            memcpy(place, packed, n);
        else
            memcpy(packed, place, n);
        packed += n;
        len -= n;
        skip = 0;
    }
}

void nk_oob_free_get(const struct nk_oob_layout *layout, const uint8_t *oob, uint8_t *user,
                     unsigned offset, unsigned len)
{
    nk_oob_walk(layout->free, layout->free_count, (uint8_t *)oob, user, offset, len, false);
}

void nk_oob_free_set(const struct nk_oob_layout *layout, uint8_t *oob, const uint8_t *user,
                     unsigned offset, unsigned len)
{
    nk_oob_walk(layout->free, layout->free_count, oob, (uint8_t *)user, offset, len, true);
}

void nk_oob_ecc_get(const struct nk_oob_layout *layout, const uint8_t *oob, uint8_t *ecc,
                    unsigned len)
{
    nk_oob_walk(layout->ecc, layout->ecc_count, (uint8_t *)oob, ecc, 0, len, false);
}

void nk_oob_ecc_set(const struct nk_oob_layout *layout, uint8_t *oob, const uint8_t *ecc,
                    unsigned len)
{
    nk_oob_walk(layout->ecc, layout->ecc_count, oob, (uint8_t *)ecc, 0, len, true);
}
