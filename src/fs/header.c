/* SPDX-License-Identifier: MIT */
/*
 * The object header codec (docs/fs-format.md, "Object header").
 *
 * A header is the first 512 bytes of an object's chunk 0. Writers fill the
 * fields they do not set with 0xFF (mkyaffs2image leaves most of them so),
 * so an all-ones word means "not set" wherever the format has an optional
 * field: the 64-bit time and size words, the shadow and shrink fields.
 */
#include <string.h>

#include "fs/fs_internal.h"

enum {
    NK_FS_HEADER_TYPE = 0,
    NK_FS_HEADER_PARENT = 4,
    NK_FS_HEADER_UNUSED_SUM = 8,
    NK_FS_HEADER_NAME = 10,
    NK_FS_HEADER_NAME_FIELD = 256,
    NK_FS_HEADER_MODE = 268,
    NK_FS_HEADER_UID = 272,
    NK_FS_HEADER_GID = 276,
    NK_FS_HEADER_ATIME = 280,
    NK_FS_HEADER_MTIME = 284,
    NK_FS_HEADER_CTIME = 288,
    NK_FS_HEADER_SIZE_LOW = 292,
    NK_FS_HEADER_EQUIV = 296,
    NK_FS_HEADER_ALIAS = 300,
    NK_FS_HEADER_ALIAS_FIELD = 160,
    NK_FS_HEADER_RDEV = 460,
    NK_FS_HEADER_CTIME64 = 464,
    NK_FS_HEADER_ATIME64 = 472,
    NK_FS_HEADER_MTIME64 = 480,
    NK_FS_HEADER_INBAND_SHADOWS = 488,
    NK_FS_HEADER_INBAND_SHRINK = 492,
    NK_FS_HEADER_SIZE_HIGH = 496,
    NK_FS_HEADER_RESERVED = 500,
    NK_FS_HEADER_SHADOWS = 504,
    NK_FS_HEADER_SHRINK = 508,
};

#define NK_FS_UNSET 0xffffffffu

static uint16_t nk_fs_field_len(const uint8_t *p, uint16_t field, uint16_t max)
{
    uint16_t n = 0;
    while (n < field && p[n])
        n++;
    return n > max ? max : n;
}

/* A time: the two-word field when its high word is set, else the 32-bit
 * one. A two-word field of zeros is treated as unset too: writers that do
 * not know the 64-bit fields zero them. A high word of 0xFFFFFFFF is the
 * sign extension of a time before 1970 when the low word is negative as a
 * 32-bit value and repeats the 32-bit field (writers of the 64-bit words
 * write both); a field left all ones (mkyaffs2image) stays unset. */
static uint64_t nk_fs_time_get(const uint8_t *chunk, unsigned field32, unsigned field64)
{
    uint32_t low = nk_fs_get_le32(chunk + field64);
    uint32_t high = nk_fs_get_le32(chunk + field64 + 4);
    uint32_t t32 = nk_fs_get_le32(chunk + field32);
    if (high != NK_FS_UNSET && (high | low) != 0)
        return (uint64_t)high << 32 | low;
    if (high == NK_FS_UNSET && low != NK_FS_UNSET && (low & 0x80000000u) && low == t32)
        return (uint64_t)high << 32 | low;
    return t32;
}

int nk_fs_header_decode(const uint8_t *chunk, size_t len, bool inband, struct nk_fs_header *hdr)
{
    if (!chunk || len < NK_FS_HEADER_BYTES)
        return -NK_EINVAL;
    memset(hdr, 0, sizeof *hdr);
    hdr->type = nk_fs_get_le32(chunk + NK_FS_HEADER_TYPE);
    hdr->parent_id = nk_fs_get_le32(chunk + NK_FS_HEADER_PARENT);
    hdr->name = chunk + NK_FS_HEADER_NAME;
    hdr->name_len = nk_fs_field_len(hdr->name, NK_FS_HEADER_NAME_FIELD, NK_FS_NAME_MAX);
    hdr->mode = nk_fs_get_le32(chunk + NK_FS_HEADER_MODE);
    hdr->uid = nk_fs_get_le32(chunk + NK_FS_HEADER_UID);
    hdr->gid = nk_fs_get_le32(chunk + NK_FS_HEADER_GID);
    hdr->atime = nk_fs_time_get(chunk, NK_FS_HEADER_ATIME, NK_FS_HEADER_ATIME64);
    hdr->mtime = nk_fs_time_get(chunk, NK_FS_HEADER_MTIME, NK_FS_HEADER_MTIME64);
    hdr->ctime = nk_fs_time_get(chunk, NK_FS_HEADER_CTIME, NK_FS_HEADER_CTIME64);
    uint32_t size_low = nk_fs_get_le32(chunk + NK_FS_HEADER_SIZE_LOW);
    uint32_t size_high = nk_fs_get_le32(chunk + NK_FS_HEADER_SIZE_HIGH);
    hdr->size = size_high == NK_FS_UNSET ? size_low : ((uint64_t)size_high << 32 | size_low);
    hdr->equiv_id = nk_fs_get_le32(chunk + NK_FS_HEADER_EQUIV);
    hdr->alias = chunk + NK_FS_HEADER_ALIAS;
    hdr->alias_len = nk_fs_field_len(hdr->alias, NK_FS_HEADER_ALIAS_FIELD, NK_FS_ALIAS_MAX);
    hdr->rdev = nk_fs_get_le32(chunk + NK_FS_HEADER_RDEV);
    /* With in-band tags on small pages the last header words can be
     * overwritten by the tags, so YAFFS2 reads the in-band copies there. */
    uint32_t shadows =
        nk_fs_get_le32(chunk + (inband ? NK_FS_HEADER_INBAND_SHADOWS : NK_FS_HEADER_SHADOWS));
    uint32_t shrink =
        nk_fs_get_le32(chunk + (inband ? NK_FS_HEADER_INBAND_SHRINK : NK_FS_HEADER_SHRINK));
    /* The field is a signed int in YAFFS2: only positive values shadow. */
    hdr->shadows = (shadows != 0 && shadows < 0x80000000u) ? shadows : 0;
    hdr->shrink = shrink != 0 && shrink != NK_FS_UNSET;
    return 0;
}

static void nk_fs_time_put(uint8_t *chunk, unsigned field32, unsigned field64, uint64_t t)
{
    nk_fs_put_le32(chunk + field32, (uint32_t)t);
    nk_fs_put_le32(chunk + field64, (uint32_t)t);
    nk_fs_put_le32(chunk + field64 + 4, (uint32_t)(t >> 32));
}

int nk_fs_header_encode(const struct nk_fs_header *hdr, uint8_t *chunk, size_t len)
{
    if (!chunk || len < NK_FS_HEADER_BYTES || hdr->name_len > NK_FS_NAME_MAX ||
        hdr->alias_len > NK_FS_ALIAS_MAX || (hdr->name_len && !hdr->name) ||
        (hdr->alias_len && !hdr->alias))
        return -NK_EINVAL;
    memset(chunk, 0xff, len);
    nk_fs_put_le32(chunk + NK_FS_HEADER_TYPE, hdr->type);
    nk_fs_put_le32(chunk + NK_FS_HEADER_PARENT, hdr->parent_id);
    memset(chunk + NK_FS_HEADER_NAME, 0, NK_FS_HEADER_NAME_FIELD);
    if (hdr->name_len)
        memcpy(chunk + NK_FS_HEADER_NAME, hdr->name, hdr->name_len);
    nk_fs_put_le32(chunk + NK_FS_HEADER_MODE, hdr->mode);
    nk_fs_put_le32(chunk + NK_FS_HEADER_UID, hdr->uid);
    nk_fs_put_le32(chunk + NK_FS_HEADER_GID, hdr->gid);
    nk_fs_time_put(chunk, NK_FS_HEADER_ATIME, NK_FS_HEADER_ATIME64, hdr->atime);
    nk_fs_time_put(chunk, NK_FS_HEADER_MTIME, NK_FS_HEADER_MTIME64, hdr->mtime);
    nk_fs_time_put(chunk, NK_FS_HEADER_CTIME, NK_FS_HEADER_CTIME64, hdr->ctime);
    nk_fs_put_le32(chunk + NK_FS_HEADER_SIZE_LOW, (uint32_t)hdr->size);
    nk_fs_put_le32(chunk + NK_FS_HEADER_SIZE_HIGH, (uint32_t)(hdr->size >> 32));
    nk_fs_put_le32(chunk + NK_FS_HEADER_EQUIV, hdr->equiv_id);
    memset(chunk + NK_FS_HEADER_ALIAS, 0, NK_FS_HEADER_ALIAS_FIELD);
    if (hdr->alias_len)
        memcpy(chunk + NK_FS_HEADER_ALIAS, hdr->alias, hdr->alias_len);
    nk_fs_put_le32(chunk + NK_FS_HEADER_RDEV, hdr->rdev);
    nk_fs_put_le32(chunk + NK_FS_HEADER_SHADOWS, hdr->shadows);
    nk_fs_put_le32(chunk + NK_FS_HEADER_INBAND_SHADOWS, hdr->shadows);
    nk_fs_put_le32(chunk + NK_FS_HEADER_SHRINK, hdr->shrink ? 1u : 0u);
    nk_fs_put_le32(chunk + NK_FS_HEADER_INBAND_SHRINK, hdr->shrink ? 1u : 0u);
    return 0;
}
