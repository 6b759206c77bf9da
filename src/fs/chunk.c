/* SPDX-License-Identifier: MIT */
/*
 * The one writer of the on-flash format, shared by the image builder
 * (build.c) and the mounted file system (write.c): where the tags go in
 * each layout, how a header's tags are packed, the block summary's bytes,
 * and the device calls that write. docs/fs-format.md describes the bytes.
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_MKYAFFS2_HEADER_BYTES 0xffffu /* n_bytes of mkyaffs2image headers */
#define NK_FS_EXTRA_SIZE_LIMIT 0x80000000u  /* file sizes the extra tags can carry */

/* ----- device access ----------------------------------------------------------------- */

int nk_fs_io_program(struct nk_part *part, uint32_t page, const uint8_t *data, const uint8_t *oob)
{
    return nk_part_program_page(part, page, data, oob, NK_OOB_AUTO);
}

int nk_fs_io_erase(struct nk_part *part, uint32_t block)
{
    return nk_part_erase_block(part, block);
}

int nk_fs_io_is_bad(struct nk_part *part, uint32_t block)
{
    return nk_part_block_is_bad(part, block);
}

int nk_fs_io_mark_bad(struct nk_part *part, uint32_t block)
{
    return nk_part_block_mark_bad(part, block);
}

bool nk_fs_io_tracks_bad_blocks(const struct nk_part *part)
{
    return nk_part_tracks_bad_blocks(part);
}

bool nk_fs_io_read_only(const struct nk_part *part)
{
    return nk_part_is_read_only(part);
}

/* ----- tags and headers ---------------------------------------------------------------- */

void nk_fs_chunk_place(const struct nk_fs_config *placement, uint32_t page_size, uint32_t oob_free,
                       const struct nk_fs_tags *tags, uint8_t *page, uint8_t *oob)
{
    if (oob && oob_free)
        memset(oob, 0xff, oob_free);
    if (placement->tags_place == NK_FS_TAGS_INBAND)
        nk_fs_tags_encode(tags, false, page + page_size - NK_FS_TAGS_BYTES);
    else
        nk_fs_tags_encode(tags, !placement->no_tags_ecc, oob + placement->tags_offset);
}

void nk_fs_chunk_header_tags(const struct nk_fs_header *hdr, uint32_t obj_id, bool plain,
                             struct nk_fs_tags *tags)
{
    memset(tags, 0, sizeof *tags);
    tags->obj_id = obj_id;
    if (plain) {
        tags->n_bytes = NK_FS_MKYAFFS2_HEADER_BYTES;
    } else if (hdr->type == NK_FS_TYPE_FILE && hdr->size >= NK_FS_EXTRA_SIZE_LIMIT) {
        tags->n_bytes = 0; /* the size does not fit the tags: readers read the header */
    } else {
        tags->extra = true;
        tags->extra_type = (uint8_t)hdr->type;
        tags->extra_parent_id = hdr->parent_id;
        tags->extra_shrink = hdr->shrink;
        tags->extra_shadows = hdr->shadows != 0;
        if (hdr->type == NK_FS_TYPE_FILE)
            tags->extra_size_or_equiv = (uint32_t)hdr->size;
        else if (hdr->type == NK_FS_TYPE_HARDLINK)
            tags->extra_size_or_equiv = hdr->equiv_id;
    }
}

/* ----- page check word ------------------------------------------------------------------ */

/* CRC-32 (IEEE, reflected), four bits at a time: a 64-byte table. */
uint32_t nk_fs_crc32(uint32_t crc, const uint8_t *p, size_t len)
{
    static const uint32_t nibble[16] = {0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
                                        0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
                                        0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
                                        0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu};
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ nibble[crc & 15u];
        crc = (crc >> 4) ^ nibble[crc & 15u];
    }
    return ~crc;
}

void nk_fs_check_stamp(const uint8_t *data, uint32_t data_bytes, uint8_t *check)
{
    nk_fs_put_le32(check, nk_fs_crc32(0, data, data_bytes));
}

bool nk_fs_check_fails(const uint8_t *data, uint32_t data_bytes, const uint8_t *check)
{
    if ((check[0] & check[1] & check[2] & check[3]) == 0xff)
        return false; /* none: a page of mkyaffs2image or of the image builder */
    return nk_fs_get_le32(check) != nk_fs_crc32(0, data, data_bytes);
}

/* ----- block summaries ------------------------------------------------------------------ */

uint32_t nk_fs_summary_chunks(uint32_t pages_per_block, uint32_t chunk_bytes)
{
    if (chunk_bytes <= NK_FS_SUMMARY_HEADER)
        return 0;
    uint32_t bytes = pages_per_block * NK_FS_SUMMARY_ENTRY;
    uint32_t chunks = (bytes + chunk_bytes - 1) / (chunk_bytes - NK_FS_SUMMARY_HEADER);
    return (chunks >= 1 && chunks < pages_per_block && chunks < 256) ? chunks : 0;
}

void nk_fs_summary_entry(const struct nk_fs_tags *tags, uint8_t entry[12])
{
    uint8_t raw[NK_FS_TAGS_BYTES];
    nk_fs_tags_encode(tags, false, raw);
    memcpy(entry, raw + 4, NK_FS_SUMMARY_ENTRY);
}

void nk_fs_summary_chunk(uint32_t index, const uint8_t *entries, uint32_t covered,
                         uint32_t chunk_bytes, uint32_t block, uint32_t seq, uint8_t *page,
                         struct nk_fs_tags *tags)
{
    const uint32_t per_chunk = chunk_bytes - NK_FS_SUMMARY_HEADER;
    const uint32_t total = covered * NK_FS_SUMMARY_ENTRY;
    uint32_t offset = index * per_chunk;
    uint32_t len = offset < total ? total - offset : 0;
    if (len > per_chunk)
        len = per_chunk;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < total; i++)
        sum += entries[i];
    memset(page, 0xff, chunk_bytes);
    nk_fs_put_le32(page, NK_FS_SUMMARY_VERSION);
    /* YAFFS2 numbers the blocks of a partition starting at block 0 from 1. */
    nk_fs_put_le32(page + 4, block + 1);
    nk_fs_put_le32(page + 8, seq);
    nk_fs_put_le32(page + 12, sum);
    if (len)
        memcpy(page + NK_FS_SUMMARY_HEADER, entries + offset, len);
    memset(tags, 0, sizeof *tags);
    tags->seq = seq;
    tags->obj_id = NK_FS_OBJ_SUMMARY;
    tags->chunk_id = index + 1;
    tags->n_bytes = NK_FS_SUMMARY_HEADER + len;
}
