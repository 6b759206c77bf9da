/* SPDX-License-Identifier: MIT */
/*
 * Page reads of the mounted file system: a page through the ECC (with the
 * page check word where the layout has one, and retries of an
 * uncorrectable read), the one-page cache fs->page_buf that headers,
 * partial chunk reads and the scan go through, and a page's tags.
 */
#include <string.h>

#include "fs/fs_internal.h"

/* Marks the block of `page`, read with bitflips at the device's threshold,
 * for scrubbing: a writer moves its data soon. */
static void nk_fs_note_scrub(struct nk_fs *fs, uint32_t page)
{
    if (fs->writable && page < fs->pages)
        fs->block_info[page / fs->pages_per_block].flags |= NK_FS_BLK_SCRUB;
}

/* One read (`for_move`: by copy-back load where the chip has one); a page
 * whose check word disagrees reads as uncorrectable. */
static int nk_fs_page_read_checked(struct nk_fs *fs, uint32_t page, uint8_t *data, bool for_move)
{
    int err = for_move ? nk_part_read_for_move(fs->part, page, data, fs->oob_buf, NK_OOB_AUTO)
                       : nk_part_read_page(fs->part, page, data, fs->oob_buf, NK_OOB_AUTO);
    if (err >= 0 && fs->check_bytes && (fs->check_every_read || fs->check_suspect) &&
        nk_fs_check_fails(data, fs->check_bytes, fs->oob_buf + fs->data_check))
        return -NK_EBADMSG;
    return err;
}

static int nk_fs_page_read_as(struct nk_fs *fs, uint32_t page, uint8_t *data, bool for_move)
{
    fs->cached_page = NK_FS_NONE; /* oob_buf (and maybe page_buf) change */
    int err = nk_fs_page_read_checked(fs, page, data, for_move);
    /* Read noise is transient: an uncorrectable read is tried twice more
     * before the data is given up for lost. */
    for (unsigned retry = 0; err == -NK_EBADMSG && retry < 2; retry++)
        err = nk_fs_page_read_checked(fs, page, data, for_move);
    if (err == -NK_EBADMSG) {
        fs->ecc_failed_reads++;
        return -NK_EIO;
    }
    if (err < 0)
        return err;
    if (err != 0)
        fs->ecc_corrected_reads++;
    if (nk_part_scrub_advised(fs->part, err))
        nk_fs_note_scrub(fs, page); /* at the device's threshold: move the data */
    return 0;
}

int nk_fs_page_read(struct nk_fs *fs, uint32_t page, uint8_t *data)
{
    return nk_fs_page_read_as(fs, page, data, false);
}

int nk_fs_page_read_for_move(struct nk_fs *fs, uint32_t page, uint8_t *data)
{
    return nk_fs_page_read_as(fs, page, data, true);
}

int nk_fs_page_load(struct nk_fs *fs, uint32_t page)
{
    if (page == fs->cached_page)
        return 0;
    int err = nk_fs_page_read(fs, page, fs->page_buf);
    if (!err)
        fs->cached_page = page;
    return err;
}

int nk_fs_tags_from_buffers(const struct nk_fs *fs, struct nk_fs_tags *tags)
{
    if (fs->config.tags_place == NK_FS_TAGS_INBAND)
        return nk_fs_tags_decode(fs->page_buf + fs->page_size - NK_FS_TAGS_BYTES, false, tags);
    return nk_fs_tags_decode(fs->oob_buf + fs->config.tags_offset, !fs->config.no_tags_ecc, tags);
}

/* Reads the tags of `page` into `tags`. Returns an nk_fs_tags_status,
 * -NK_EBADMSG when they are unusable, or a device error. */
int nk_fs_read_tags(struct nk_fs *fs, uint32_t page, struct nk_fs_tags *tags)
{
    int err;
    fs->stats.pages_tags_read++;
    if (fs->config.tags_place == NK_FS_TAGS_INBAND) {
        /* The tags are data: read the page through the ECC. */
        fs->cached_page = NK_FS_NONE;
        err = nk_part_read_page(fs->part, page, fs->page_buf, NULL, NK_OOB_AUTO);
        for (unsigned retry = 0; err == -NK_EBADMSG && retry < 2; retry++)
            err = nk_part_read_page(fs->part, page, fs->page_buf, NULL, NK_OOB_AUTO);
        if (err == -NK_EBADMSG) {
            memset(tags, 0, sizeof *tags);
            return -NK_EBADMSG;
        }
        if (err < 0)
            return err;
        fs->cached_page = page;
        return nk_fs_tags_decode(fs->page_buf + fs->page_size - NK_FS_TAGS_BYTES, false, tags);
    }
    fs->cached_page = NK_FS_NONE; /* oob_buf is about to hold another page's OOB */
    /* Tags that fail their own code are read twice more: read noise is
     * transient, and a chunk whose tags are given up is lost to the mount. */
    for (unsigned attempt = 0;; attempt++) {
        err = nk_part_read_page(fs->part, page, NULL, fs->oob_buf, NK_OOB_AUTO);
        if (err < 0)
            return err;
        int status =
            nk_fs_tags_decode(fs->oob_buf + fs->config.tags_offset, !fs->config.no_tags_ecc, tags);
        if (status != -NK_EBADMSG || attempt == 2)
            return status;
    }
}
