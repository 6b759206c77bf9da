/* SPDX-License-Identifier: MIT */
/*
 * The file system's on-flash codecs: packed tags2 with their ECC, and the
 * object header. Internal to the file system (and its tests, through the
 * private include directory); users read files through nandkit/fs.h.
 * Format: docs/fs-format.md.
 */
#ifndef NK_FS_CODEC_H
#define NK_FS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/fs.h"

/* ----- format codecs: tags --------------------------------------------------------- */

#define NK_FS_TAGS_BYTES 16     /* packed tags */
#define NK_FS_TAGS_ECC_BYTES 12 /* YAFFS Hamming code over them */

/* Packed tags2 as nandkit sees them. The "extra" header fields are filled
 * only when the chunk is an object header written with the extra packing. */
struct nk_fs_tags {
    uint32_t seq;      /* block sequence number */
    uint32_t obj_id;   /* low 28 bits of the stored object id */
    uint32_t chunk_id; /* 0: object header; k >= 1: data chunk k */
    uint32_t n_bytes;  /* data chunks: valid bytes; plain headers: as stored */
    bool extra;        /* header with extra packing: the fields below are valid */
    bool extra_shrink;
    bool extra_shadows;           /* the header shadows an object (id in the header) */
    uint8_t extra_type;           /* enum nk_fs_type */
    uint32_t extra_parent_id;     /* 28 bits */
    uint32_t extra_size_or_equiv; /* file size (< 2^31) or hard-link target id */
};

/* What decoding found. */
enum nk_fs_tags_status {
    NK_FS_TAGS_UNWRITTEN = 0, /* sequence 0xFFFFFFFF (erased page) */
    NK_FS_TAGS_CLEAN = 1,     /* tags ECC matched (or no tags ECC) */
    NK_FS_TAGS_CORRECTED = 2, /* one bit corrected (or the code itself was hit) */
};

/* Computes the 12-byte YAFFS tags ECC of 16 packed tag bytes: column parity
 * at 0, three zero padding bytes, line parity at 4..7 and line parity prime
 * at 8..11 (little-endian). */
void nk_fs_tags_ecc_calc(const uint8_t tags[NK_FS_TAGS_BYTES], uint8_t ecc[NK_FS_TAGS_ECC_BYTES]);

/* Checks `tags` against the stored code `ecc` (padding ignored) and corrects
 * a single flipped tag bit in place. Returns 0 clean, 1 corrected (a tag bit
 * or the code), -NK_EBADMSG uncorrectable. */
int nk_fs_tags_ecc_correct(uint8_t tags[NK_FS_TAGS_BYTES], const uint8_t ecc[NK_FS_TAGS_ECC_BYTES]);

/* Decodes 16 packed tag bytes (already ECC-checked). Returns
 * NK_FS_TAGS_UNWRITTEN or NK_FS_TAGS_CLEAN; never fails. */
int nk_fs_tags_unpack(const uint8_t raw[NK_FS_TAGS_BYTES], struct nk_fs_tags *tags);

/* Decodes tags as stored in the OOB: 16 bytes, followed by the 12-byte code
 * when `with_ecc`. `raw` is not modified. Returns an nk_fs_tags_status or
 * -NK_EBADMSG when the code shows more than one flipped bit. */
int nk_fs_tags_decode(const uint8_t *raw, bool with_ecc, struct nk_fs_tags *tags);

/* Packs `tags` (extra packing when tags->extra and chunk_id 0) into 16
 * bytes, plus the 12-byte code when `with_ecc` (28 bytes in all). */
void nk_fs_tags_encode(const struct nk_fs_tags *tags, bool with_ecc, uint8_t *raw);

/* ----- format codecs: object header ------------------------------------------------ */

#define NK_FS_HEADER_BYTES 512

/* A decoded object header. `name` and `alias` point into the chunk buffer
 * given to nk_fs_header_decode() and stay valid as long as it does. */
struct nk_fs_header {
    uint32_t type; /* enum nk_fs_type as stored (may be out of range) */
    uint32_t parent_id;
    const uint8_t *name; /* not NUL-terminated */
    uint16_t name_len;   /* 0..255 */
    uint32_t mode;       /* full st_mode as stored */
    uint32_t uid, gid, rdev;
    uint64_t atime, mtime, ctime; /* seconds; 64-bit when the header has them */
    uint64_t size;                /* files */
    uint32_t equiv_id;            /* hard links */
    const uint8_t *alias;         /* symlinks; not NUL-terminated */
    uint16_t alias_len;           /* 0..159 */
    uint32_t shadows;             /* id of the object this header shadows, 0 when none */
    bool shrink;                  /* written by a truncate or to start a hole */
};

/* Decodes the header in the first NK_FS_HEADER_BYTES of `chunk` (`len`
 * bytes, at least NK_FS_HEADER_BYTES). `inband` selects the in-band copies
 * of the shadow and shrink fields, as YAFFS2 does with in-band tags. Unset
 * (0xFF) words read as "not set". Returns 0 or -NK_EINVAL for a short
 * buffer; the contents are never rejected (callers judge the type). */
int nk_fs_header_decode(const uint8_t *chunk, size_t len, bool inband, struct nk_fs_header *hdr);

/* Writes `hdr` as YAFFS2 does into `chunk` (`len` >= NK_FS_HEADER_BYTES):
 * 0xFF everywhere first, then every field, 64-bit time and size words
 * included, and both copies of the shadow and shrink fields. Returns 0 or
 * -NK_EINVAL (short buffer, name or alias too long). */
int nk_fs_header_encode(const struct nk_fs_header *hdr, uint8_t *chunk, size_t len);

/* CRC-32 (IEEE 802.3, reflected) of `len` bytes at `p`, continuing `crc`
 * (0 to start): the checkpoint's check and the page check word of the
 * mkyaffs2 layout. */
uint32_t nk_fs_crc32(uint32_t crc, const uint8_t *p, size_t len);

#endif
