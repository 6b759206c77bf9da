/*
 * A file-backed NAND for YAFFS2 Direct (yaffs_driver), laid out as nandkit's
 * layouts are defined in docs/fs-format.md section 4. The image is a raw
 * nandkit image (docs/image-format.md): pages of data + OOB from row 0, pages
 * past the end of the file erased; bad blocks come from the sidecar
 * (IMAGE.nksim), from the markers in the linux and inband layouts, and from a
 * Linux flash bad-block table in the last four blocks.
 */
#ifndef YDRV_H
#define YDRV_H

#include <stdint.h>

enum ydrv_layout { YDRV_LINUX, YDRV_MKYAFFS2, YDRV_INBAND };

/* How a program cut by power loss lands: the first `cut_data` bytes of the
 * page data, and the OOB's tags all, none or alone (without their ECC). */
enum ydrv_cut_oob { YDRV_CUT_OOB_ALL, YDRV_CUT_OOB_NONE, YDRV_CUT_OOB_TAGS };

struct ydrv {
    const char *path;
    enum ydrv_layout layout;
    uint32_t page, oob, ppb, blocks;
    uint8_t *flash;      /* blocks * ppb * (page + oob) bytes */
    uint8_t *bad;        /* one per block: 0 good, 1 bad, 2 reserved for the table */
    uint8_t *erased;     /* one per block: erased here (the sidecar's cut state goes) */
    uint64_t ops;        /* programs and erases so far */
    uint64_t cut_at;     /* 0: never; else the op (1-based) that power is lost in */
    uint32_t cut_data;   /* bytes of data a cut program lands (erase: half the block) */
    enum ydrv_cut_oob cut_oob;
    int cut;             /* power was lost: the flash is frozen */
    const char *running; /* the operation under way (printed at a cut), or NULL */
    uint64_t programs, erases, ecc_fixed, ecc_failed;
};

int ydrv_open(struct ydrv *d, const char *path, enum ydrv_layout layout, uint32_t page,
              uint32_t oob, uint32_t ppb, uint32_t blocks);
/* Writes the flash back to the image file (whole, every page). */
int ydrv_save(const struct ydrv *d);
void ydrv_close(struct ydrv *d);

struct yaffs_dev;
/* Fills dev's param and driver for this flash (checkpoint on or off). */
void ydrv_install(struct ydrv *d, struct yaffs_dev *dev, const char *name, int checkpoint);

#endif
