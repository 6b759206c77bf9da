/* SPDX-License-Identifier: MIT */
/*
 * Decoded tags of one page, for `nandkit dump`.
 */
#include <string.h>

#include "fs/fs_internal.h"

static const char *nk_fs_type_name(unsigned type)
{
    static const char *const names[] = {"unknown", "file", "symlink", "dir", "hardlink", "special"};
    return type < sizeof names / sizeof names[0] ? names[type] : "invalid";
}

struct nk_fs_text {
    char *buf;
    size_t size, len;
};

static void nk_fs_text_add(struct nk_fs_text *t, const char *line)
{
    size_t n = strlen(line);
    if (t->len + n + 1 < t->size) {
        memcpy(t->buf + t->len, line, n);
        t->len += n;
        t->buf[t->len++] = '\n';
        t->buf[t->len] = '\0';
    }
}

static void nk_fs_describe_tags(struct nk_fs_text *t, int status, const struct nk_fs_tags *tags,
                                uint32_t chunk_bytes)
{
    char line[200];
    /* uint32_t is unsigned long on some targets: print through unsigned. */
    const unsigned seq = tags->seq, obj = tags->obj_id, chunk = tags->chunk_id,
                   n_bytes = tags->n_bytes, parent = tags->extra_parent_id,
                   extra = tags->extra_size_or_equiv;
    if (status == -NK_EBADMSG) {
        nk_fs_text_add(t, "tags: uncorrectable (tags ECC shows more than one flipped bit)");
        return;
    }
    if (status == NK_FS_TAGS_UNWRITTEN) {
        nk_fs_text_add(t, "tags: unwritten (sequence 0xffffffff): an erased page");
        return;
    }
    nk_format(line, sizeof line, "tags: seq 0x%x obj %u chunk %u n_bytes %u%s", seq, obj, chunk,
              n_bytes, status == NK_FS_TAGS_CORRECTED ? " (tags ECC corrected one bit)" : "");
    nk_fs_text_add(t, line);
    if (seq == NK_FS_SEQ_CHECKPOINT) {
        nk_fs_text_add(t, "meaning: checkpoint data (YAFFS2's, or nandkit's, which its mount "
                          "reads; a scan skips both)");
        return;
    }
    if (tags->extra) {
        nk_format(line, sizeof line,
                  "meaning: object header (extra tags): %s, parent %u, %s %u%s%s",
                  nk_fs_type_name(tags->extra_type), parent,
                  tags->extra_type == NK_FS_TYPE_HARDLINK ? "target" : "size", extra,
                  tags->extra_shrink ? ", shrink" : "",
                  tags->extra_shadows ? ", shadows another object" : "");
    } else if (obj == NK_FS_OBJ_SUMMARY) {
        nk_format(line, sizeof line, "meaning: block summary chunk %u (%u bytes)", chunk, n_bytes);
    } else if (chunk == 0) {
        nk_format(line, sizeof line, "meaning: object header of obj %u (plain tags: read the page)",
                  obj);
    } else {
        unsigned long long first = (unsigned long long)(chunk - 1) * chunk_bytes;
        nk_format(line, sizeof line, "meaning: data of obj %u, file bytes %llu..%llu", obj, first,
                  first + (n_bytes ? n_bytes : 1) - 1);
    }
    nk_fs_text_add(t, line);
}

int nk_fs_page_describe(const struct nk_fs_config *config, uint32_t page, char *buf, size_t size)
{
    if (!config || !config->part || !config->allocator.alloc || !buf || size == 0)
        return -NK_EINVAL;
    struct nk_part *part = config->part;
    uint32_t page_size = nk_part_page_size(part);
    uint32_t oob_free = nk_part_free_oob_bytes(part);
    uint32_t free_bytes = oob_free ? oob_free : 1;
    bool inband = config->tags_place == NK_FS_TAGS_INBAND;
    unsigned tag_len = NK_FS_TAGS_BYTES + (config->no_tags_ecc ? 0u : NK_FS_TAGS_ECC_BYTES);
    if (!inband && config->tags_offset + tag_len > oob_free)
        return -NK_EINVAL;
    uint8_t *data = config->allocator.alloc(config->allocator.ctx, page_size);
    uint8_t *oob = config->allocator.alloc(config->allocator.ctx, free_bytes);
    struct nk_fs_text t = {buf, size, 0};
    buf[0] = '\0';
    int result = -NK_ENOMEM;
    if (data && oob) {
        int read = nk_part_read_page(config->part, page, data, oob, NK_OOB_AUTO);
        char line[160];
        if (read < 0 && read != -NK_EBADMSG) {
            result = read;
            goto out;
        }
        struct nk_fs_tags tags;
        int status =
            inband ? nk_fs_tags_decode(data + page_size - NK_FS_TAGS_BYTES, false, &tags)
                   : nk_fs_tags_decode(oob + config->tags_offset, !config->no_tags_ecc, &tags);
        nk_fs_describe_tags(&t, status, &tags, inband ? page_size - NK_FS_TAGS_BYTES : page_size);
        if (nk_part_ecc_placement(part) == NK_ECC_PLACEMENT_NONE)
            nk_format(line, sizeof line, "data ECC: none in this layout");
        else if (read == -NK_EBADMSG)
            nk_format(line, sizeof line, "data ECC (%s): uncorrectable%s", nk_part_ecc_name(part),
                      inband ? ": the in-band tags above are not trustworthy" : "");
        else
            nk_format(line, sizeof line, "data ECC (%s): %u bitflip(s) corrected%s",
                      nk_part_ecc_name(part), nk_part_last_bitflips(part),
                      nk_part_scrub_advised(part, read) ? ", scrub advised" : "");
        nk_fs_text_add(&t, line);
        result = (int)t.len;
    }
out:
    if (oob)
        config->allocator.free(config->allocator.ctx, oob, free_bytes);
    if (data)
        config->allocator.free(config->allocator.ctx, data, page_size);
    return result;
}
