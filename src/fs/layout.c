/* SPDX-License-Identifier: MIT */
/*
 * The layouts by name, the tags placement each sets in a configuration, and
 * the check that a device's OOB layout can carry that placement
 * (docs/fs-format.md, "Layouts").
 */
#include <string.h>

#include "fs/fs_internal.h"

void nk_fs_config_layout(struct nk_fs_config *config, enum nk_fs_layout layout)
{
    if (!config)
        return;
    config->tags_offset = 0;
    config->no_tags_ecc = false;
    switch (layout) {
    case NK_FS_LAYOUT_MKYAFFS2:
        /* Tags from OOB byte 0, where a marker would be: no markers. */
        config->tags_place = NK_FS_TAGS_OOB;
        config->no_bad_block_markers = true;
        break;
    case NK_FS_LAYOUT_INBAND:
        config->tags_place = NK_FS_TAGS_INBAND;
        config->no_bad_block_markers = false;
        break;
    case NK_FS_LAYOUT_LINUX:
    default:
        config->tags_place = NK_FS_TAGS_OOB;
        config->no_bad_block_markers = false;
        break;
    }
}

static const char *const nk_fs_layout_names[] = {"linux", "mkyaffs2", "inband"};

int nk_fs_layout_parse(const char *name, enum nk_fs_layout *layout)
{
    if (!name || !layout)
        return -NK_EINVAL;
    for (unsigned i = 0; name && i < sizeof nk_fs_layout_names / sizeof nk_fs_layout_names[0];
         i++) {
        if (strcmp(name, nk_fs_layout_names[i]) == 0) {
            *layout = (enum nk_fs_layout)i;
            return 0;
        }
    }
    return -NK_EINVAL;
}

const char *nk_fs_layout_name(enum nk_fs_layout layout)
{
    unsigned i = (unsigned)layout;
    return i < sizeof nk_fs_layout_names / sizeof nk_fs_layout_names[0] ? nk_fs_layout_names[i]
                                                                        : "?";
}

/* The raw OOB byte holding byte `packed` of the free (auto-placed) bytes,
 * or -1 past their end. */
static int nk_fs_free_byte_at(const struct nk_oob_layout *oob, unsigned packed)
{
    for (unsigned r = 0; r < oob->free_count; r++) {
        if (packed < oob->free[r].length)
            return (int)(oob->free[r].offset + packed);
        packed -= oob->free[r].length;
    }
    return -1;
}

int nk_fs_check_device(const struct nk_fs_config *placement, const struct nk_part *part,
                       struct nk_diag *diag)
{
    if (placement->tags_place != NK_FS_TAGS_OOB)
        return 0; /* in-band tags ask nothing of the OOB */
    const struct nk_chip_info *info = nk_part_chip_info(part);
    const struct nk_oob_layout *oob = nk_part_oob_layout(part);
    bool markers = !placement->no_bad_block_markers;
    const char *layout = nk_fs_layout_name(markers ? NK_FS_LAYOUT_LINUX : NK_FS_LAYOUT_MKYAFFS2);
    const char *ecc = nk_part_ecc_name(part) ? nk_part_ecc_name(part) : "unnamed ECC";
    unsigned oob_size = info->oob_size;
    unsigned first = placement->tags_offset;
    unsigned end = first + NK_FS_TAGS_BYTES + (placement->no_tags_ecc ? 0u : NK_FS_TAGS_ECC_BYTES);
    unsigned free_bytes = nk_part_free_oob_bytes(part);
    if (end > free_bytes)
        return nk_diag_set(diag, -NK_EINVAL,
                           "layout %s needs %u free OOB bytes for its tags; device has %u (%s on "
                           "%u-byte OOB)",
                           layout, end, free_bytes, ecc, oob_size);
    for (unsigned i = first; i < end; i++) {
        int at = nk_fs_free_byte_at(oob, i);
        if (markers && at == (int)info->bbm_offset)
            return nk_diag_set(diag, -NK_EINVAL,
                               "layout %s keeps OOB byte %u for the bad-block marker; device has "
                               "it free for tags (%s on %u-byte OOB)",
                               layout, (unsigned)info->bbm_offset, ecc, oob_size);
        /* mkyaffs2 images hold their tags at fixed OOB bytes, as written. */
        if (!markers && at != (int)i)
            return nk_diag_set(diag, -NK_EINVAL,
                               "layout %s keeps its tags in OOB bytes %u-%u; device's free OOB "
                               "bytes start at byte %d (%s on %u-byte OOB)",
                               layout, first, end - 1, nk_fs_free_byte_at(oob, 0), ecc, oob_size);
    }
    enum nk_ecc_placement where = nk_part_ecc_placement(part);
    if (!markers && (where == NK_ECC_PLACEMENT_SOFTWARE || where == NK_ECC_PLACEMENT_CONTROLLER))
        return nk_diag_set(diag, -NK_EINVAL,
                           "layout %s stores no data ECC code; device checks one (%s on %u-byte "
                           "OOB): open it without ECC",
                           layout, ecc, oob_size);
    return 0;
}
