/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the tags and object-header codecs on arbitrary bytes.
 * Tags: the first 28 bytes are decoded with and without the tags ECC; what
 * decodes is encoded again and must decode to the same fields (the size or
 * hard-link id of the extra packing only for the types that carry one; the ECC
 * correction must leave a clean code clean). Header: the input (padded with
 * 0xFF to 512 bytes) is decoded plainly and in-band; what decodes is
 * encoded and must decode to the same fields. Any crash, sanitizer report
 * or difference is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_codec.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"

static void tags_same(const struct nk_fs_tags *a, const struct nk_fs_tags *b)
{
    if (a->seq != b->seq || a->obj_id != b->obj_id || a->chunk_id != b->chunk_id ||
        a->extra != b->extra)
        abort();
    if (!a->extra && a->n_bytes != b->n_bytes)
        abort();
    if (a->extra && (a->extra_type != b->extra_type || a->extra_parent_id != b->extra_parent_id ||
                     a->extra_shrink != b->extra_shrink || a->extra_shadows != b->extra_shadows ||
                     ((a->extra_type == NK_FS_TYPE_FILE || a->extra_type == NK_FS_TYPE_HARDLINK) &&
                      a->extra_size_or_equiv != b->extra_size_or_equiv)))
        abort();
}

static void tags(const uint8_t *in, size_t len)
{
    uint8_t raw[NK_FS_TAGS_BYTES + NK_FS_TAGS_ECC_BYTES];
    memset(raw, 0xff, sizeof raw);
    memcpy(raw, in, len < sizeof raw ? len : sizeof raw);
    for (int with_ecc = 0; with_ecc < 2; with_ecc++) {
        struct nk_fs_tags t, again;
        int r = nk_fs_tags_decode(raw, with_ecc != 0, &t);
        if (r < 0 && (!with_ecc || r != -NK_EBADMSG))
            abort(); /* only the code may reject */
        if (r != NK_FS_TAGS_CLEAN && r != NK_FS_TAGS_CORRECTED)
            continue;
        uint8_t enc[sizeof raw];
        nk_fs_tags_encode(&t, with_ecc != 0, enc);
        if (nk_fs_tags_decode(enc, with_ecc != 0, &again) != NK_FS_TAGS_CLEAN)
            abort();
        tags_same(&t, &again);
        if (with_ecc) {
            uint8_t copy[NK_FS_TAGS_BYTES];
            memcpy(copy, enc, sizeof copy);
            if (nk_fs_tags_ecc_correct(copy, enc + NK_FS_TAGS_BYTES) != 0 ||
                memcmp(copy, enc, sizeof copy) != 0)
                abort();
        }
    }
}

static void header(const uint8_t *in, size_t len)
{
    static uint8_t chunk[NK_FS_HEADER_BYTES], enc[NK_FS_HEADER_BYTES];
    memset(chunk, 0xff, sizeof chunk);
    memcpy(chunk, in, len < sizeof chunk ? len : sizeof chunk);
    for (int inband = 0; inband < 2; inband++) {
        struct nk_fs_header h, again;
        if (nk_fs_header_decode(chunk, sizeof chunk, inband != 0, &h) != 0)
            abort();
        if (h.name_len > NK_FS_NAME_MAX || h.alias_len > NK_FS_ALIAS_MAX)
            abort();
        if (nk_fs_header_encode(&h, enc, sizeof enc) != 0)
            abort();
        if (nk_fs_header_decode(enc, sizeof enc, inband != 0, &again) != 0)
            abort();
        if (h.type != again.type || h.parent_id != again.parent_id ||
            h.name_len != again.name_len || memcmp(h.name, again.name, h.name_len) != 0 ||
            h.mode != again.mode || h.uid != again.uid || h.gid != again.gid ||
            h.rdev != again.rdev || h.atime != again.atime || h.mtime != again.mtime ||
            h.ctime != again.ctime || h.size != again.size || h.equiv_id != again.equiv_id ||
            h.alias_len != again.alias_len || memcmp(h.alias, again.alias, h.alias_len) != 0 ||
            h.shadows != again.shadows || h.shrink != again.shrink)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
    tags(in, len);
    header(in, len);
    return 0;
}
