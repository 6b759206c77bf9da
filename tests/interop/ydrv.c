/*
 * The file-backed NAND behind YAFFS2 Direct in the interoperability tests
 * (ydrv.h). Written for nandkit from docs/fs-format.md and
 * docs/image-format.md; the data ECC is nandkit's Linux Hamming
 * (nk_hamming_calculate, checked against Linux's own vectors in
 * tests/fixtures/ecc), 256-byte steps in Linux's byte order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nandkit/ecc.h"

#include "yportenv.h"
#include "yaffs_guts.h"

#include "ydrv.h"

#define ROW_BYTES(d) ((size_t)(d)->page + (d)->oob)

static uint8_t *row_ptr(const struct ydrv *d, uint64_t row)
{
    return d->flash + row * ROW_BYTES(d);
}

/* Linux's large-page Hamming layout: the code at OOB 40 (64-byte OOB) or 80
 * (128-byte OOB), 3 bytes per 256-byte step; the free bytes start at 2. */
static uint32_t ecc_offset(const struct ydrv *d)
{
    return d->oob >= 128 ? 80 : 40;
}

static uint32_t tags_offset(const struct ydrv *d)
{
    return d->layout == YDRV_MKYAFFS2 ? 0 : 2;
}

static int has_data_ecc(const struct ydrv *d)
{
    return d->layout != YDRV_MKYAFFS2;
}

static int has_markers(const struct ydrv *d)
{
    return d->layout != YDRV_MKYAFFS2;
}

static void read_sidecar(struct ydrv *d)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.nksim", d->path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    uint8_t head[80];
    if (fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, "NKSIMCAR", 8) == 0) {
        uint32_t blocks = (uint32_t)head[28] | (uint32_t)head[29] << 8 |
                          (uint32_t)head[30] << 16 | (uint32_t)head[31] << 24;
        for (uint32_t b = 0; b < blocks && b < d->blocks; b++) {
            uint8_t rec[16];
            if (fread(rec, 1, sizeof rec, f) != sizeof rec)
                break;
            if (rec[8] & 0x03) /* FACTORY_BAD, WORN */
                d->bad[b] = 1;
        }
    }
    fclose(f);
}

/* A Linux flash bad-block table (docs/bbt.md): its blocks are reserved, and
 * its entries name the bad blocks. */
static void read_bbt(struct ydrv *d)
{
    for (uint32_t b = d->blocks >= 4 ? d->blocks - 4 : 0; b < d->blocks; b++) {
        const uint8_t *p = row_ptr(d, (uint64_t)b * d->ppb);
        const uint8_t *oob = p + d->page;
        if (memcmp(oob + 8, "Bbt0", 4) != 0 && memcmp(oob + 8, "1tbB", 4) != 0)
            continue;
        for (uint32_t k = 0; k < d->blocks; k++) {
            unsigned bits = (p[k / 4] >> (2 * (k % 4))) & 3;
            if (bits != 3 && d->bad[k] == 0)
                d->bad[k] = 1;
        }
        for (uint32_t r = d->blocks >= 4 ? d->blocks - 4 : 0; r < d->blocks; r++)
            if (d->bad[r] == 0)
                d->bad[r] = 2;
        return;
    }
}

int ydrv_open(struct ydrv *d, const char *path, enum ydrv_layout layout, uint32_t page,
              uint32_t oob, uint32_t ppb, uint32_t blocks)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    d->layout = layout;
    d->page = page;
    d->oob = oob;
    d->ppb = ppb;
    d->blocks = blocks;
    size_t size = (size_t)blocks * ppb * ROW_BYTES(d);
    d->flash = malloc(size);
    d->bad = calloc(blocks, 1);
    d->erased = calloc(blocks, 1);
    if (!d->flash || !d->bad || !d->erased)
        return -ENOMEM;
    memset(d->flash, 0xFF, size);
    int fd = open(path, O_RDONLY);
    if (fd < 0 && errno != ENOENT)
        return -errno;
    if (fd >= 0) {
        /* Holes read as erased, as the simulator reads them. */
        off_t end = lseek(fd, 0, SEEK_END);
        off_t pos = 0;
        while (pos < end && (size_t)pos < size) {
            off_t data = lseek(fd, pos, SEEK_DATA);
            if (data < 0)
                break;
            off_t hole = lseek(fd, data, SEEK_HOLE);
            if (hole < 0)
                hole = end;
            if ((size_t)hole > size)
                hole = (off_t)size;
            if (pread(fd, d->flash + data, (size_t)(hole - data), data) != hole - data) {
                close(fd);
                return -EIO;
            }
            pos = hole;
        }
        close(fd);
    }
    read_sidecar(d);
    read_bbt(d);
    /* In the mkyaffs2 layout the sidecar stands for the bad-block table a
     * reader must have (no markers): the table's last four blocks stay out
     * of the file system, as nandkit keeps them (mkimage says so). */
    int known_bad = 0;
    for (uint32_t b = 0; b < blocks; b++)
        known_bad |= d->bad[b] == 1;
    if (layout == YDRV_MKYAFFS2 && known_bad)
        for (uint32_t b = blocks >= 4 ? blocks - 4 : 0; b < blocks; b++)
            if (d->bad[b] == 0)
                d->bad[b] = 2;
    return 0;
}

static uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A block erased here is what a completed erase leaves (docs/image-format.md,
 * sidecar flags): its cut-program and cut-erase state goes (UNSTABLE,
 * WEAK_ERASE, WEAK_PAGES and its weak-page entries), its erase count grows.
 * The sidecar is rewritten whole with a new CRC. */
static int save_sidecar(const struct ydrv *d)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s.nksim", d->path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *in = malloc((size_t)size), *out = malloc((size_t)size);
    if (!in || !out || fread(in, 1, (size_t)size, f) != (size_t)size || size < 84 ||
        memcmp(in, "NKSIMCAR", 8) != 0) {
        fclose(f);
        free(in);
        free(out);
        return -EIO;
    }
    fclose(f);
    uint32_t blocks = get32(in + 28), weak = get32(in + 44);
    uint32_t entry = 32 + d->page + d->oob;
    size_t head = 80 + 16 * (size_t)blocks;
    if (blocks != d->blocks || head + (size_t)weak * entry + 4 != (size_t)size) {
        free(in);
        free(out);
        return -EIO;
    }
    memcpy(out, in, head);
    for (uint32_t b = 0; b < blocks; b++) {
        uint8_t *rec = out + 80 + 16 * (size_t)b;
        if (!d->erased[b])
            continue;
        put32(rec, get32(rec) + 1);
        put32(rec + 4, 0);
        rec[8] &= (uint8_t)~0x70; /* UNSTABLE, WEAK_ERASE, WEAK_PAGES */
        rec[10] = 0;
        put32(rec + 12, 0);
    }
    size_t at = head;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < weak; i++) {
        const uint8_t *e = in + head + (size_t)i * entry;
        if (d->erased[get32(e) / d->ppb])
            continue;
        memcpy(out + at, e, entry);
        at += entry;
        kept++;
    }
    put32(out + 44, kept);
    put32(out + at, crc32_ieee(out, at));
    at += 4;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    int err = f && fwrite(out, 1, at, f) == at ? 0 : -EIO;
    if (f && fclose(f) != 0)
        err = -EIO;
    if (!err && rename(tmp, path) != 0)
        err = -errno;
    free(in);
    free(out);
    return err;
}

int ydrv_save(const struct ydrv *d)
{
    int serr = save_sidecar(d);
    if (serr)
        return serr;
    int fd = open(d->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -errno;
    size_t size = (size_t)d->blocks * d->ppb * ROW_BYTES(d);
    ssize_t n = write(fd, d->flash, size);
    int err = n == (ssize_t)size ? 0 : -EIO;
    if (close(fd) != 0)
        err = -EIO;
    return err;
}

void ydrv_close(struct ydrv *d)
{
    free(d->flash);
    free(d->bad);
    free(d->erased);
    d->flash = NULL;
    d->bad = NULL;
    d->erased = NULL;
}

static struct ydrv *drv_of(struct yaffs_dev *dev)
{
    return dev->driver_context;
}

/* Power is lost in this operation: the flash keeps what landed, the image
 * is written out and the program stops (exit status 3). */
static void power_lost(struct ydrv *d, const char *what, uint64_t where)
{
    d->cut = 1;
    int err = ydrv_save(d);
    printf("power cut in op %llu (%s %llu), during: %s\n", (unsigned long long)d->ops, what,
           (unsigned long long)where, d->running ? d->running : "mount or unmount");
    fflush(stdout);
    exit(err ? 1 : 3);
}

static void program(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] &= src[i];
}

static int drv_write(struct yaffs_dev *dev, int nand_chunk, const u8 *data, int data_len,
                     const u8 *tags, int tags_len)
{
    struct ydrv *d = drv_of(dev);
    if (nand_chunk < 0 || (uint64_t)nand_chunk >= (uint64_t)d->blocks * d->ppb ||
        (uint32_t)data_len != d->page || (uint32_t)tags_len > d->oob)
        return YAFFS_FAIL;
    if (d->bad[nand_chunk / d->ppb])
        return YAFFS_FAIL;
    uint8_t *row = row_ptr(d, (uint64_t)nand_chunk);
    uint8_t *oob = malloc(d->oob);
    if (!oob)
        return YAFFS_FAIL;
    memset(oob, 0xFF, d->oob);
    if (tags && tags_len > 0)
        memcpy(oob + tags_offset(d), tags, (size_t)tags_len);
    if (has_data_ecc(d))
        for (uint32_t s = 0; s < d->page / 256; s++)
            nk_hamming_calculate(data + 256 * s, 256, false, oob + ecc_offset(d) + 3 * s);
    d->ops++;
    d->programs++;
    if (d->cut_at && d->ops == d->cut_at) {
        program(row, data, d->cut_data < d->page ? d->cut_data : d->page);
        if (d->cut_oob == YDRV_CUT_OOB_ALL)
            program(row + d->page, oob, d->oob);
        else if (d->cut_oob == YDRV_CUT_OOB_TAGS)
            program(row + d->page + tags_offset(d), oob + tags_offset(d), (size_t)tags_len);
        free(oob);
        power_lost(d, "program of page", (uint64_t)nand_chunk);
    }
    program(row, data, d->page);
    program(row + d->page, oob, d->oob);
    free(oob);
    return YAFFS_OK;
}

static int drv_read(struct yaffs_dev *dev, int nand_chunk, u8 *data, int data_len, u8 *tags,
                    int tags_len, enum yaffs_ecc_result *ecc_result)
{
    struct ydrv *d = drv_of(dev);
    *ecc_result = YAFFS_ECC_RESULT_NO_ERROR;
    if (nand_chunk < 0 || (uint64_t)nand_chunk >= (uint64_t)d->blocks * d->ppb ||
        (uint32_t)tags_len > d->oob)
        return YAFFS_FAIL;
    const uint8_t *row = row_ptr(d, (uint64_t)nand_chunk);
    if (tags && tags_len > 0)
        memcpy(tags, row + d->page + tags_offset(d), (size_t)tags_len);
    if (!data)
        return YAFFS_OK;
    uint32_t n = (uint32_t)data_len < d->page ? (uint32_t)data_len : d->page;
    memcpy(data, row, n);
    if (!has_data_ecc(d) || n != d->page)
        return YAFFS_OK;
    for (uint32_t s = 0; s < d->page / 256; s++) {
        uint8_t calc[3];
        nk_hamming_calculate(data + 256 * s, 256, false, calc);
        int r = nk_hamming_correct(data + 256 * s, 256, false,
                                   row + d->page + ecc_offset(d) + 3 * s, calc);
        if (r < 0) {
            *ecc_result = YAFFS_ECC_RESULT_UNFIXED;
        } else if (r > 0 && *ecc_result == YAFFS_ECC_RESULT_NO_ERROR) {
            *ecc_result = YAFFS_ECC_RESULT_FIXED;
        }
    }
    if (*ecc_result == YAFFS_ECC_RESULT_UNFIXED) {
        d->ecc_failed++;
        return YAFFS_FAIL;
    }
    if (*ecc_result == YAFFS_ECC_RESULT_FIXED)
        d->ecc_fixed++;
    return YAFFS_OK;
}

static int drv_erase(struct yaffs_dev *dev, int block)
{
    struct ydrv *d = drv_of(dev);
    if (block < 0 || (uint32_t)block >= d->blocks || d->bad[block])
        return YAFFS_FAIL;
    uint8_t *p = row_ptr(d, (uint64_t)block * d->ppb);
    size_t bytes = (size_t)d->ppb * ROW_BYTES(d);
    d->ops++;
    d->erases++;
    if (d->cut_at && d->ops == d->cut_at) {
        memset(p, 0xFF, bytes / 2); /* half an erase: the first half of the pages */
        power_lost(d, "erase of block", (uint64_t)block);
    }
    memset(p, 0xFF, bytes);
    d->erased[block] = 1;
    return YAFFS_OK;
}

static int drv_mark_bad(struct yaffs_dev *dev, int block)
{
    struct ydrv *d = drv_of(dev);
    if (block < 0 || (uint32_t)block >= d->blocks)
        return YAFFS_FAIL;
    d->bad[block] = 1;
    if (has_markers(d)) {
        row_ptr(d, (uint64_t)block * d->ppb)[d->page] = 0;
        row_ptr(d, (uint64_t)block * d->ppb + 1)[d->page] = 0;
    }
    return YAFFS_OK;
}

static int drv_check_bad(struct yaffs_dev *dev, int block)
{
    struct ydrv *d = drv_of(dev);
    if (block < 0 || (uint32_t)block >= d->blocks || d->bad[block])
        return YAFFS_FAIL;
    if (has_markers(d) && (row_ptr(d, (uint64_t)block * d->ppb)[d->page] != 0xFF ||
                           row_ptr(d, (uint64_t)block * d->ppb + 1)[d->page] != 0xFF))
        return YAFFS_FAIL;
    return YAFFS_OK;
}

void ydrv_install(struct ydrv *d, struct yaffs_dev *dev, const char *name, int checkpoint)
{
    memset(dev, 0, sizeof *dev);
    struct yaffs_param *p = &dev->param;
    p->name = name;
    p->total_bytes_per_chunk = d->page;
    p->spare_bytes_per_chunk = d->oob;
    p->chunks_per_block = d->ppb;
    p->start_block = 0;
    p->end_block = d->blocks - 1;
    p->n_reserved_blocks = 5;
    p->n_caches = 10;
    p->is_yaffs2 = 1;
    p->inband_tags = d->layout == YDRV_INBAND;
    p->no_tags_ecc = 0;
    p->skip_checkpt_rd = !checkpoint;
    p->skip_checkpt_wr = !checkpoint;
    p->enable_xattr = 1;
    p->stored_endian = 1;
    dev->drv.drv_write_chunk_fn = drv_write;
    dev->drv.drv_read_chunk_fn = drv_read;
    dev->drv.drv_erase_fn = drv_erase;
    dev->drv.drv_mark_bad_fn = drv_mark_bad;
    dev->drv.drv_check_bad_fn = drv_check_bad;
    dev->driver_context = d;
}
