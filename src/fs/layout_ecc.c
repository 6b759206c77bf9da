/* SPDX-License-Identifier: MIT */
/*
 * How each YAFFS2 layout maps onto the device layer: which ECC engine and
 * OOB layout the partition must be opened with (docs/fs-format.md,
 * "Layouts"). Kept apart from layout.c, which every mount links, so that a
 * file system opened on an already configured device does not pull in the
 * ECC engines.
 */
#include "fs/fs_internal.h"

int nk_fs_layout_device(enum nk_fs_layout layout, uint32_t page_size, uint32_t oob_size,
                        struct nk_ecc_engine *engine, struct nk_oob_layout *oob_layout)
{
    switch (layout) {
    case NK_FS_LAYOUT_MKYAFFS2:
        nk_ecc_none_init(engine);
        return nk_oob_layout_all_free(oob_layout, oob_size, 0);
    case NK_FS_LAYOUT_LINUX:
    case NK_FS_LAYOUT_INBAND: {
        if (page_size < 512 || page_size % 256 != 0)
            return -NK_EINVAL;
        int err = nk_ecc_hamming_init(engine, 256, false);
        if (err)
            return err;
        /* Linux's default layout for the engine: the large-page Hamming
         * layout on large pages, the small-page one around the marker. */
        return nk_oob_layout_default(oob_layout, page_size, oob_size, engine);
    }
    default:
        return -NK_EINVAL;
    }
}

unsigned nk_fs_layout_oob_bytes(enum nk_fs_layout layout)
{
    /* Packed tags and their code in the free OOB bytes; in-band tags take
     * none. */
    return layout == NK_FS_LAYOUT_INBAND ? 0u : NK_FS_TAGS_BYTES + NK_FS_TAGS_ECC_BYTES;
}
