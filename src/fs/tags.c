/* SPDX-License-Identifier: MIT */
/*
 * Packed tags2 and the YAFFS tags ECC (docs/fs-format.md, "Tags").
 *
 * The tags ECC is a Hamming code over the 16 tag bytes: a 6-bit column
 * parity (which bit of a byte) and a line parity with its complement (which
 * byte). One flipped bit shows up as exactly one bit in each column-parity
 * pair and as complementary line parities, which names the bit to correct.
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_EXTRA_HEADER 0x80000000u
#define NK_FS_EXTRA_SHRINK 0x40000000u
#define NK_FS_EXTRA_SHADOWS 0x20000000u
#define NK_FS_EXTRA_FLAGS 0xf0000000u
#define NK_FS_EXTRA_TYPE_SHIFT 28

static unsigned nk_fs_parity8(uint8_t b)
{
    b ^= (uint8_t)(b >> 4);
    b ^= (uint8_t)(b >> 2);
    b ^= (uint8_t)(b >> 1);
    return b & 1u;
}

static unsigned nk_fs_popcount32(uint32_t v)
{
    unsigned n = 0;
    while (v) {
        v &= v - 1;
        n++;
    }
    return n;
}

/* Bits 5..0: parities of bits 4-7, 0-3, {2,3,6,7}, {0,1,4,5}, {1,3,5,7},
 * {0,2,4,6} of `b`. */
static uint8_t nk_fs_column_parity(uint8_t b)
{
    return (uint8_t)(nk_fs_parity8(b & 0xf0) << 5 | nk_fs_parity8(b & 0x0f) << 4 |
                     nk_fs_parity8(b & 0xcc) << 3 | nk_fs_parity8(b & 0x33) << 2 |
                     nk_fs_parity8(b & 0xaa) << 1 | nk_fs_parity8(b & 0x55));
}

struct nk_fs_tags_code {
    uint8_t column;
    uint32_t line, line_prime;
};

static void nk_fs_tags_code_calc(const uint8_t *tags, struct nk_fs_tags_code *code)
{
    code->column = 0;
    code->line = 0;
    code->line_prime = 0;
    for (uint32_t i = 0; i < NK_FS_TAGS_BYTES; i++) {
        code->column ^= nk_fs_column_parity(tags[i]);
        if (nk_fs_parity8(tags[i])) {
            code->line ^= i;
            code->line_prime ^= ~i;
        }
    }
}

void nk_fs_tags_ecc_calc(const uint8_t tags[NK_FS_TAGS_BYTES], uint8_t ecc[NK_FS_TAGS_ECC_BYTES])
{
    struct nk_fs_tags_code code;
    nk_fs_tags_code_calc(tags, &code);
    ecc[0] = code.column;
    ecc[1] = ecc[2] = ecc[3] = 0;
    nk_fs_put_le32(ecc + 4, code.line);
    nk_fs_put_le32(ecc + 8, code.line_prime);
}

int nk_fs_tags_ecc_correct(uint8_t tags[NK_FS_TAGS_BYTES], const uint8_t ecc[NK_FS_TAGS_ECC_BYTES])
{
    struct nk_fs_tags_code code;
    nk_fs_tags_code_calc(tags, &code);
    uint32_t d_column = (uint32_t)(ecc[0] ^ code.column);
    uint32_t d_line = nk_fs_get_le32(ecc + 4) ^ code.line;
    uint32_t d_prime = nk_fs_get_le32(ecc + 8) ^ code.line_prime;
    if (!d_column && !d_line && !d_prime)
        return 0;

    /* One data bit: one bit of each column pair, complementary lines. */
    if ((d_column & 0xc0u) == 0 && ((d_column ^ (d_column >> 1)) & 0x15u) == 0x15u &&
        (d_line ^ d_prime) == 0xffffffffu && d_line < NK_FS_TAGS_BYTES) {
        unsigned bit =
            ((d_column >> 5) & 1u) << 2 | ((d_column >> 3) & 1u) << 1 | ((d_column >> 1) & 1u);
        tags[d_line] ^= (uint8_t)(1u << bit);
        return 1;
    }
    /* One bit of the code itself: the tags are fine. */
    if (nk_fs_popcount32(d_column) + nk_fs_popcount32(d_line) + nk_fs_popcount32(d_prime) == 1)
        return 1;
    return -NK_EBADMSG;
}

int nk_fs_tags_unpack(const uint8_t raw[NK_FS_TAGS_BYTES], struct nk_fs_tags *tags)
{
    memset(tags, 0, sizeof *tags);
    tags->seq = nk_fs_get_le32(raw);
    uint32_t obj = nk_fs_get_le32(raw + 4);
    uint32_t chunk = nk_fs_get_le32(raw + 8);
    uint32_t n_bytes = nk_fs_get_le32(raw + 12);
    if (tags->seq == NK_FS_SEQ_UNWRITTEN)
        return NK_FS_TAGS_UNWRITTEN;
    if (chunk & NK_FS_EXTRA_HEADER) {
        tags->extra = true;
        tags->obj_id = obj & ~NK_FS_EXTRA_FLAGS;
        tags->chunk_id = 0;
        tags->n_bytes = 0;
        tags->extra_type = (uint8_t)(obj >> NK_FS_EXTRA_TYPE_SHIFT);
        tags->extra_parent_id = chunk & ~NK_FS_EXTRA_FLAGS;
        tags->extra_shrink = (chunk & NK_FS_EXTRA_SHRINK) != 0;
        tags->extra_shadows = (chunk & NK_FS_EXTRA_SHADOWS) != 0;
        tags->extra_size_or_equiv = n_bytes;
    } else {
        /* Left whole: a plain id with type bits set is out of range and
         * the scan rejects it, as YAFFS2 does. */
        tags->obj_id = obj;
        tags->chunk_id = chunk;
        tags->n_bytes = n_bytes;
    }
    return NK_FS_TAGS_CLEAN;
}

/* At most one zero bit in `len` bytes: an erased area with a bitflip. */
static bool nk_fs_nearly_erased(const uint8_t *raw, size_t len)
{
    unsigned zeros = 0;
    for (size_t i = 0; i < len && zeros <= 1; i++)
        zeros += nk_fs_popcount32((uint8_t)~raw[i]);
    return zeros <= 1;
}

int nk_fs_tags_decode(const uint8_t *raw, bool with_ecc, struct nk_fs_tags *tags)
{
    uint8_t local[NK_FS_TAGS_BYTES];
    memcpy(local, raw, sizeof local);
    if (nk_fs_get_le32(local) == NK_FS_SEQ_UNWRITTEN ||
        nk_fs_nearly_erased(raw, with_ecc ? NK_FS_TAGS_BYTES + NK_FS_TAGS_ECC_BYTES
                                          : NK_FS_TAGS_BYTES)) {
        memset(tags, 0, sizeof *tags);
        tags->seq = NK_FS_SEQ_UNWRITTEN;
        return NK_FS_TAGS_UNWRITTEN;
    }
    int status = NK_FS_TAGS_CLEAN;
    if (with_ecc) {
        int ecc = nk_fs_tags_ecc_correct(local, raw + NK_FS_TAGS_BYTES);
        if (ecc < 0) {
            memset(tags, 0, sizeof *tags);
            return ecc;
        }
        if (ecc > 0)
            status = NK_FS_TAGS_CORRECTED;
    }
    if (nk_fs_tags_unpack(local, tags) == NK_FS_TAGS_UNWRITTEN)
        return NK_FS_TAGS_UNWRITTEN; /* the correction made it all ones */
    return status;
}

void nk_fs_tags_encode(const struct nk_fs_tags *tags, bool with_ecc, uint8_t *raw)
{
    uint32_t obj = tags->obj_id;
    uint32_t chunk = tags->chunk_id;
    uint32_t n_bytes = tags->n_bytes;
    if (tags->extra && tags->chunk_id == 0) {
        chunk = NK_FS_EXTRA_HEADER | (tags->extra_parent_id & ~NK_FS_EXTRA_FLAGS);
        if (tags->extra_shrink)
            chunk |= NK_FS_EXTRA_SHRINK;
        if (tags->extra_shadows)
            chunk |= NK_FS_EXTRA_SHADOWS;
        obj = (obj & ~NK_FS_EXTRA_FLAGS) | (uint32_t)tags->extra_type << NK_FS_EXTRA_TYPE_SHIFT;
        n_bytes = (tags->extra_type == NK_FS_TYPE_FILE || tags->extra_type == NK_FS_TYPE_HARDLINK)
                      ? tags->extra_size_or_equiv
                      : 0;
    }
    nk_fs_put_le32(raw, tags->seq);
    nk_fs_put_le32(raw + 4, obj);
    nk_fs_put_le32(raw + 8, chunk);
    nk_fs_put_le32(raw + 12, n_bytes);
    if (with_ecc)
        nk_fs_tags_ecc_calc(raw, raw + NK_FS_TAGS_BYTES);
}
