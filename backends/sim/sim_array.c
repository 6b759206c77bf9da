/* SPDX-License-Identifier: MIT */
/*
 * The array's storage: per-block bookkeeping for every block, a page table
 * only for blocks that were written, a buffer only for the pages that were
 * (lazy: an erased page or block costs nothing), and the image file behind
 * them.
 *
 * A block's content is, in order of precedence: its resident copy (a page
 * without a buffer reads all 0xFF); all 0xFF
 * when erased since the last load; the image file when the page lies inside
 * it; otherwise "virtual" content (0xFF, or a factory-bad block's marker and
 * junk). Reads of non-resident pages go to the file page by page, so
 * scanning a large image does not load it. The file holds exactly the first
 * file_size / (page + OOB) pages of the array; it grows only when a block
 * past its end is written, filling the gap with what those pages hold.
 * See docs/image-format.md for the file and the sidecar.
 */
#define _FILE_OFFSET_BITS 64
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_internal.h"

/* docs/simulator.md and nk_sim_memory promise 32 bytes per block. */
_Static_assert(sizeof(struct nk_sim_block) <= 32, "per-block record grew past 32 bytes");

/* ----- sidecar layout -------------------------------------------------------- */

#define NK_SIDECAR_MAGIC "NKSIMCAR"
#define NK_SIDECAR_VERSION 2u
#define NK_SIDECAR_HEADER 80u
#define NK_SIDECAR_RECORD 16u
#define NK_SIDECAR_WEAK 32u /* weak-page entry before its mask */

static void nk_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t nk_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void nk_put64(uint8_t *p, uint64_t v)
{
    nk_put32(p, (uint32_t)v);
    nk_put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t nk_get64(const uint8_t *p)
{
    return (uint64_t)nk_get32(p) | (uint64_t)nk_get32(p + 4) << 32;
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32()), a nibble at a time. */
static uint32_t nk_crc32(uint32_t crc, const uint8_t *data, size_t len)
{
    static const uint32_t table[16] = {
        0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
        0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
        0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
    };
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= data[i];
        crc = (crc >> 4) ^ table[crc & 15u];
        crc = (crc >> 4) ^ table[crc & 15u];
    }
    return ~crc;
}

/* ----- file helpers ---------------------------------------------------------- */

static int nk_pread_full(int fd, uint8_t *buf, size_t len, uint64_t offset)
{
    while (len) {
        ssize_t n = pread(fd, buf, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -NK_EIO;
        buf += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

static int nk_pwrite_full(int fd, const uint8_t *buf, size_t len, uint64_t offset)
{
    while (len) {
        ssize_t n = pwrite(fd, buf, len, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -NK_EIO;
        buf += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

static bool nk_all_ff(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0xff && memcmp(p, p + 1, n - 1) == 0);
}

/* A hole in the image file stands for erased bytes: what a sparse file holds
 * where nothing was ever written reads as 0xFF, not as the zeros the file
 * system returns. `buf` holds the file's [offset, offset + len). */
static void nk_sim_file_holes_erased(const struct nk_sim *sim, uint8_t *buf, size_t len,
                                     uint64_t offset)
{
    if (!sim->file_sparse)
        return;
    uint64_t pos = offset, end = offset + len;
    while (pos < end) {
        off_t hole = lseek(sim->fd, (off_t)pos, SEEK_HOLE);
        if (hole < 0 || (uint64_t)hole >= end)
            return;
        off_t data = lseek(sim->fd, hole, SEEK_DATA);
        uint64_t stop = data < 0 || (uint64_t)data > end ? end : (uint64_t)data;
        memset(buf + ((uint64_t)hole - offset), 0xff, (size_t)(stop - (uint64_t)hole));
        pos = stop;
    }
}

static int nk_sim_file_read(const struct nk_sim *sim, uint8_t *buf, size_t len, uint64_t offset)
{
    int err = nk_pread_full(sim->fd, buf, len, offset);
    if (!err)
        nk_sim_file_holes_erased(sim, buf, len, offset);
    return err;
}

/* ----- resident pages ------------------------------------------------------ */

uint8_t *nk_sim_block_page_writable(struct nk_sim *sim, struct nk_sim_block *b, uint32_t page)
{
    if (b->pages[page])
        return b->pages[page];
    uint8_t *data = malloc(sim->page_bytes);
    if (!data)
        return NULL;
    memset(data, 0xff, sim->page_bytes);
    b->pages[page] = data;
    sim->resident_pages++;
    return data;
}

void nk_sim_block_page_release(struct nk_sim *sim, struct nk_sim_block *b, uint32_t page)
{
    if (!b->pages[page])
        return;
    free(b->pages[page]);
    b->pages[page] = NULL;
    sim->resident_pages--;
}

/* Frees a resident block's pages and page table: it is no longer resident. */
static void nk_sim_block_drop(struct nk_sim *sim, struct nk_sim_block *b)
{
    if (!b->pages)
        return;
    for (uint32_t page = 0; page < sim->params.chip.pages_per_block; page++)
        nk_sim_block_page_release(sim, b, page);
    free(b->pages);
    b->pages = NULL;
    sim->resident_blocks--;
}

/* True when no page of a resident block holds anything but 0xFF. */
static bool nk_sim_block_all_erased(const struct nk_sim *sim, const struct nk_sim_block *b)
{
    for (uint32_t page = 0; page < sim->params.chip.pages_per_block; page++)
        if (b->pages[page] && !nk_all_ff(b->pages[page], sim->page_bytes))
            return false;
    return true;
}

/* ----- content --------------------------------------------------------------- */

void nk_sim_array_virtual_page(const struct nk_sim *sim, uint32_t row, uint8_t *dst)
{
    const struct nk_chip_info *c = &sim->params.chip;
    const struct nk_sim_block *b = &sim->blocks[row >> sim->ppb_shift];
    if (!(b->flags & NK_SIM_BLOCK_FACTORY_BAD)) {
        memset(dst, 0xff, sim->page_bytes);
        return;
    }
    /* Factory-bad: whatever the factory test left, with the marker. */
    for (uint32_t i = 0; i < sim->page_bytes; i += 8) {
        uint64_t h = nk_sim_hash(sim->seed, 0xbadb10cull + row, i);
        uint32_t n = sim->page_bytes - i < 8 ? sim->page_bytes - i : 8;
        memcpy(dst + i, &h, n);
    }
    uint32_t page = row & (c->pages_per_block - 1);
    bool marked = ((c->bbm_pages & NK_BBM_FIRST_PAGE) && page == 0) ||
                  ((c->bbm_pages & NK_BBM_SECOND_PAGE) && page == 1) ||
                  ((c->bbm_pages & NK_BBM_LAST_PAGE) && page == c->pages_per_block - 1);
    if (marked && c->oob_size)
        dst[c->page_size + c->bbm_offset] = 0x00;
}

static bool nk_sim_row_in_file(const struct nk_sim *sim, uint32_t row)
{
    return sim->fd >= 0 && ((uint64_t)row + 1) * sim->page_bytes <= sim->file_size;
}

int nk_sim_array_load(struct nk_sim *sim, uint32_t row, uint8_t *dst)
{
    const struct nk_sim_block *b = &sim->blocks[row >> sim->ppb_shift];
    if (b->pages) {
        const uint8_t *page = nk_sim_block_page(b, row & (sim->params.chip.pages_per_block - 1));
        if (page)
            memcpy(dst, page, sim->page_bytes);
        else
            memset(dst, 0xff, sim->page_bytes);
        return 0;
    }
    if (b->flags & NK_SIM_BLK_ERASED) {
        memset(dst, 0xff, sim->page_bytes);
        return 0;
    }
    if (nk_sim_row_in_file(sim, row)) {
        int err = nk_sim_file_read(sim, dst, sim->page_bytes, (uint64_t)row * sim->page_bytes);
        if (err)
            memset(dst, 0xff, sim->page_bytes);
        return err;
    }
    nk_sim_array_virtual_page(sim, row, dst);
    return 0;
}

/* With write-through the file always holds a clean block, so memory can be
 * bounded: past this many resident blocks, a clean one is dropped (it reads
 * back from the file, as a block first loaded from an image does). */
#define NK_SIM_WRITE_THROUGH_RESIDENT 64u

static void nk_sim_array_evict(struct nk_sim *sim, uint32_t keep)
{
    uint32_t blocks = sim->params.chip.blocks;
    for (uint32_t n = 0; n < blocks && sim->resident_blocks >= NK_SIM_WRITE_THROUGH_RESIDENT; n++) {
        uint32_t i = sim->evict_hand;
        sim->evict_hand = i + 1 < blocks ? i + 1 : 0;
        struct nk_sim_block *b = &sim->blocks[i];
        if (i == keep || !b->pages || (b->flags & (NK_SIM_BLK_DIRTY | NK_SIM_BLK_STALE)))
            continue;
        nk_sim_block_drop(sim, b);
    }
}

/* The pages of a block first made resident: from the file where it holds
 * them, the rest virtual. A page that is not all 0xFF gets a buffer, counts
 * as one partial program and advances the order. 0, -NK_ENOMEM or -NK_EIO. */
static int nk_sim_block_load(struct nk_sim *sim, uint32_t block)
{
    struct nk_sim_block *b = &sim->blocks[block];
    uint32_t ppb = sim->params.chip.pages_per_block, first = block << sim->ppb_shift;
    uint32_t in_file = 0;
    while (in_file < ppb && nk_sim_row_in_file(sim, first + in_file))
        in_file++;
    /* The file's pages in one read, into a buffer as long as the block's
     * part in the file, freed before return. */
    uint8_t *file = NULL;
    if (in_file) {
        file = malloc((size_t)in_file * sim->page_bytes);
        if (!file)
            return -NK_ENOMEM;
        if (nk_sim_file_read(sim, file, (size_t)in_file * sim->page_bytes,
                             (uint64_t)first * sim->page_bytes)) {
            free(file);
            return -NK_EIO;
        }
    }
    uint8_t *nop = nk_sim_block_nop(sim, b);
    bool virtual_content = (b->flags & NK_SIM_BLOCK_FACTORY_BAD) != 0;
    int err = 0;
    for (uint32_t page = 0; page < ppb && !err; page++) {
        const uint8_t *src = page < in_file ? file + (size_t)page * sim->page_bytes : NULL;
        if (src ? nk_all_ff(src, sim->page_bytes) : !virtual_content)
            continue; /* erased: no buffer */
        uint8_t *dst = nk_sim_block_page_writable(sim, b, page);
        if (!dst) {
            err = -NK_ENOMEM;
            break;
        }
        if (src)
            memcpy(dst, src, sim->page_bytes);
        else
            nk_sim_array_virtual_page(sim, first + page, dst);
        nop[page] = 1;
        b->next_page = page + 1;
    }
    free(file);
    return err;
}

uint8_t **nk_sim_array_materialize(struct nk_sim *sim, uint32_t block)
{
    struct nk_sim_block *b = &sim->blocks[block];
    if (b->pages)
        return b->pages;
    if (sim->write_through && sim->fd >= 0 && !sim->read_only &&
        sim->resident_blocks >= NK_SIM_WRITE_THROUGH_RESIDENT)
        nk_sim_array_evict(sim, block);
    /* Every page pointer NULL (erased), every NOP count 0. */
    b->pages = calloc(1, (size_t)nk_sim_table_bytes(sim));
    if (!b->pages)
        return NULL;
    sim->resident_blocks++;
    uint32_t first = block << sim->ppb_shift;
    bool plain = (b->flags & NK_SIM_BLK_ERASED) ||
                 (!(b->flags & NK_SIM_BLOCK_FACTORY_BAD) && !nk_sim_row_in_file(sim, first));
    b->next_page = 0;
    if (!plain && nk_sim_block_load(sim, block)) {
        nk_sim_block_drop(sim, b);
        return NULL;
    }
    if (b->flags & NK_SIM_BLK_STALE)
        b->flags |= NK_SIM_BLK_DIRTY; /* the file still holds pre-erase data */
    b->flags &= (uint16_t) ~(NK_SIM_BLK_ERASED | NK_SIM_BLK_STALE);
    return b->pages;
}

/* ----- writing the image ------------------------------------------------------ */

/* Extends the file to `end` with erased bytes, as a hole where the file
 * system keeps one: 0xFF written only up to and from its block boundaries.
 * Where it does not (no hole comes back), the bytes are written. */
static int nk_sim_file_extend_erased(struct nk_sim *sim, uint64_t end)
{
    const uint64_t align = 65536; /* a multiple of every file system's block size */
    uint64_t start = sim->file_size;
    uint64_t head = (start + align - 1) / align * align, tail = end / align * align;
    if (head < tail && !sim->no_holes) {
        if (ftruncate(sim->fd, (off_t)tail))
            return -NK_EIO;
        off_t hole = lseek(sim->fd, (off_t)head, SEEK_HOLE);
        if (hole >= 0 && (uint64_t)hole == head) {
            sim->file_sparse = true;
        } else {
            sim->no_holes = true;
            if (ftruncate(sim->fd, (off_t)start))
                return -NK_EIO;
            head = tail = end;
        }
    } else {
        head = tail = end;
    }
    uint8_t ones[4096];
    memset(ones, 0xff, sizeof ones);
    for (uint64_t pos = start; pos < end;) {
        if (pos == head && head < tail)
            pos = tail;
        uint64_t limit = pos < head ? head : end;
        size_t n = limit - pos < sizeof ones ? (size_t)(limit - pos) : sizeof ones;
        if (n == 0)
            break;
        if (nk_pwrite_full(sim->fd, ones, n, pos))
            return -NK_EIO;
        pos += n;
    }
    sim->file_size = end;
    return 0;
}

/* Extends the file to `offset` (page aligned) with what the pages hold:
 * runs of erased pages as holes (nk_sim_file_extend_erased), others as
 * bytes. */
static int nk_sim_file_fill_to(struct nk_sim *sim, uint64_t offset)
{
    const uint32_t chunk_pages = 64;
    uint8_t *buf = malloc((size_t)chunk_pages * sim->page_bytes);
    if (!buf)
        return -NK_ENOMEM;
    int err = 0;
    while (!err && sim->file_size < offset) {
        uint32_t row = (uint32_t)(sim->file_size / sim->page_bytes);
        /* Whole blocks with no content of their own are erased. */
        uint32_t block = row >> sim->ppb_shift;
        uint64_t block_end = (uint64_t)(block + 1) * sim->block_bytes;
        const struct nk_sim_block *b = &sim->blocks[block];
        if (!b->pages && !(b->flags & NK_SIM_BLOCK_FACTORY_BAD)) {
            uint64_t end = block_end;
            while (end < offset) {
                const struct nk_sim_block *next = &sim->blocks[end / sim->block_bytes];
                if (next->pages || (next->flags & NK_SIM_BLOCK_FACTORY_BAD))
                    break;
                end += sim->block_bytes;
            }
            err = nk_sim_file_extend_erased(sim, end < offset ? end : offset);
            continue;
        }
        uint32_t n = 0;
        while (!err && n < chunk_pages &&
               sim->file_size + (uint64_t)(n + 1) * sim->page_bytes <= offset) {
            err = nk_sim_array_load(sim, row + n, buf + (size_t)n * sim->page_bytes);
            n++;
        }
        if (!err)
            err = nk_pwrite_full(sim->fd, buf, (size_t)n * sim->page_bytes, sim->file_size);
        if (!err)
            sim->file_size += (uint64_t)n * sim->page_bytes;
    }
    free(buf);
    return err;
}

static int nk_sim_file_write(struct nk_sim *sim, uint64_t offset, const uint8_t *data, size_t len)
{
    if (offset > sim->file_size) {
        int err = nk_sim_file_fill_to(sim, offset);
        if (err)
            return err;
    }
    int err = nk_pwrite_full(sim->fd, data, len, offset);
    if (!err && offset + len > sim->file_size)
        sim->file_size = offset + len;
    return err;
}

/* Writes every page of a resident block to the file, an erased one as
 * 0xFF bytes. */
static int nk_sim_block_write_pages(struct nk_sim *sim, const struct nk_sim_block *b,
                                    uint64_t offset)
{
    int err = 0;
    for (uint32_t page = 0; page < sim->params.chip.pages_per_block && !err; page++) {
        const uint8_t *data = nk_sim_block_page(b, page);
        err = nk_sim_file_write(sim, offset + (uint64_t)page * sim->page_bytes,
                                data ? data : sim->erased_page, sim->page_bytes);
    }
    return err;
}

/* Overwrites `len` bytes of the file from `offset` (inside it) with 0xFF. */
static int nk_sim_file_write_erased(struct nk_sim *sim, uint64_t offset, uint64_t len)
{
    while (len) {
        size_t n = len < sim->page_bytes ? (size_t)len : sim->page_bytes;
        if (nk_pwrite_full(sim->fd, sim->erased_page, n, offset))
            return -NK_EIO;
        offset += n;
        len -= n;
    }
    return 0;
}

/* Brings the file copy of `block` up to date. */
static int nk_sim_block_write(struct nk_sim *sim, uint32_t block)
{
    struct nk_sim_block *b = &sim->blocks[block];
    uint64_t offset = (uint64_t)block * sim->block_bytes;
    int err = 0;
    if (b->pages && (b->flags & NK_SIM_BLK_DIRTY)) {
        /* Past the end, an erased block needs no bytes: it reads erased. */
        if (offset < sim->file_size || (b->flags & NK_SIM_BLOCK_FACTORY_BAD) ||
            !nk_sim_block_all_erased(sim, b))
            err = nk_sim_block_write_pages(sim, b, offset);
    } else if (!b->pages && (b->flags & NK_SIM_BLK_STALE) && offset < sim->file_size) {
        uint64_t len = sim->file_size - offset;
        err =
            nk_sim_file_write_erased(sim, offset, len < sim->block_bytes ? len : sim->block_bytes);
    }
    if (!err)
        b->flags &= (uint16_t) ~(NK_SIM_BLK_DIRTY | NK_SIM_BLK_STALE);
    return err;
}

void nk_sim_array_touched(struct nk_sim *sim, uint32_t block, uint32_t page, bool whole_block)
{
    if (sim->fd < 0 || sim->read_only)
        return;
    struct nk_sim_block *b = &sim->blocks[block];
    b->flags |= NK_SIM_BLK_DIRTY;
    if (!sim->write_through)
        return;
    if (whole_block || !b->pages) {
        nk_sim_block_write(sim, block);
        return;
    }
    /* One page: the rest of a write-through block is already on file. */
    uint32_t row = block << sim->ppb_shift | page;
    const uint8_t *data = nk_sim_block_page(b, page);
    if (nk_sim_file_write(sim, (uint64_t)row * sim->page_bytes, data ? data : sim->erased_page,
                          sim->page_bytes) == 0)
        b->flags &= (uint16_t)~NK_SIM_BLK_DIRTY;
}

void nk_sim_array_erased(struct nk_sim *sim, uint32_t block)
{
    struct nk_sim_block *b = &sim->blocks[block];
    /* Its pages, page table and NOP counts go: an erased block costs
     * nothing. What the file holds of it is now old (STALE below). */
    nk_sim_block_drop(sim, b);
    b->flags &= (uint16_t)~NK_SIM_BLK_DIRTY;
    b->flags |= NK_SIM_BLK_ERASED;
    if (sim->fd >= 0 && !sim->read_only && (uint64_t)block * sim->block_bytes < sim->file_size) {
        b->flags |= NK_SIM_BLK_STALE;
        if (sim->write_through)
            nk_sim_block_write(sim, block);
    }
}

/* ----- sidecar --------------------------------------------------------------- */

static size_t nk_sidecar_size(uint32_t blocks, uint32_t weak_pages, uint32_t page_bytes)
{
    return NK_SIDECAR_HEADER + (size_t)blocks * NK_SIDECAR_RECORD +
           (size_t)weak_pages * (NK_SIDECAR_WEAK + page_bytes) + 4;
}

static int nk_sim_sidecar_write(struct nk_sim *sim, struct nk_diag *why)
{
    const struct nk_chip_info *c = &sim->params.chip;
    size_t size = nk_sidecar_size(c->blocks, sim->weak_count, sim->page_bytes);
    uint8_t *buf = calloc(1, size);
    if (!buf)
        return nk_diag_set(why, -NK_ENOMEM, "out of memory for the sidecar");
    memcpy(buf, NK_SIDECAR_MAGIC, 8);
    nk_put32(buf + 8, NK_SIDECAR_VERSION);
    nk_put32(buf + 12, NK_SIDECAR_HEADER);
    nk_put32(buf + 16, c->page_size);
    nk_put32(buf + 20, c->oob_size);
    nk_put32(buf + 24, c->pages_per_block);
    nk_put32(buf + 28, c->blocks);
    nk_put32(buf + 32, (uint32_t)sim->seed);
    nk_put32(buf + 36, (uint32_t)(sim->seed >> 32));
    nk_put32(buf + 40, NK_SIDECAR_RECORD);
    nk_put32(buf + 44, sim->weak_count);
    memcpy(buf + 48, c->model, strnlen(c->model, 31));
    for (uint32_t i = 0; i < c->blocks; i++) {
        const struct nk_sim_block *b = &sim->blocks[i];
        uint8_t *r = buf + NK_SIDECAR_HEADER + (size_t)i * NK_SIDECAR_RECORD;
        nk_put32(r, b->erase_count);
        nk_put32(r + 4, b->reads);
        r[8] = (uint8_t)(b->flags & NK_SIM_BLK_PUBLIC);
        r[10] = b->unstable_fraction;
        nk_put32(r + 12, b->unstable_salt);
    }
    uint8_t *e = buf + NK_SIDECAR_HEADER + (size_t)c->blocks * NK_SIDECAR_RECORD;
    for (uint32_t i = 0; i < sim->weak_count; i++) {
        const struct nk_sim_weak_page *w = &sim->weak[i];
        nk_put32(e, w->row);
        nk_put32(e + 4, w->reads);
        e[8] = (uint8_t)w->progress;
        e[9] = (uint8_t)(w->progress >> 8);
        nk_put64(e + 16, w->salt);
        nk_put64(e + 24, nk_sim_weak_age(sim, w));
        memcpy(e + NK_SIDECAR_WEAK, w->mask, sim->page_bytes);
        e += NK_SIDECAR_WEAK + sim->page_bytes;
    }
    nk_put32(buf + size - 4, nk_crc32(0, buf, size - 4));

    char path[4096], tmp[4096 + 8];
    int err = 0;
    if (!nk_sim_sidecar_path(sim->image_path, path, sizeof path)) {
        free(buf);
        return nk_diag_set(why, -NK_EINVAL, "image path too long");
    }
    nk_format(tmp, sizeof tmp, "%s.tmp", path);
    /* Written whole and made durable before it replaces the old one. A
     * FIFO or device in the way fails instead of blocking. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct stat st;
    if (fd < 0)
        err = nk_diag_set(why, -NK_EIO, "cannot write sidecar %s: %s", tmp, strerror(errno));
    else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
        err = nk_diag_set(why, -NK_EIO, "cannot write sidecar %s: not a regular file", tmp);
    else if (nk_pwrite_full(fd, buf, size, 0) || fsync(fd))
        err = nk_diag_set(why, -NK_EIO, "cannot write sidecar %s: %s", tmp, strerror(errno));
    if (fd >= 0 && close(fd) && !err)
        err = nk_diag_set(why, -NK_EIO, "cannot write sidecar %s: %s", tmp, strerror(errno));
    if (err && fd >= 0)
        unlink(tmp);
    if (!err && rename(tmp, path))
        err = nk_diag_set(why, -NK_EIO, "cannot rename sidecar to %s: %s", path, strerror(errno));
    free(buf);
    return err;
}

/* Reads a whole sidecar. Returns 0 and a malloc'd buffer, 1 when there is
 * none, or an error. The path is opened without blocking (a FIFO must not
 * hang the open) and must name a regular file of exactly the size its
 * header announces before more than the header is read. */
static int nk_sidecar_read(const char *image_path, uint8_t **out, size_t *out_size,
                           struct nk_diag *why)
{
    char path[4096];
    if (!nk_sim_sidecar_path(image_path, path, sizeof path))
        return nk_diag_set(why, -NK_EINVAL, "image path too long");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT
                   ? 1
                   : nk_diag_set(why, -NK_EIO, "cannot open sidecar %s: %s", path, strerror(errno));
    int err = 0;
    uint8_t *buf = NULL;
    uint8_t header[NK_SIDECAR_HEADER];
    struct stat st;
    size_t size = 0;
    if (fstat(fd, &st)) {
        err = nk_diag_set(why, -NK_EIO, "cannot stat sidecar %s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        err = nk_diag_set(why, -NK_EINVAL, "sidecar %s is not a regular file", path);
        goto out;
    }
    if (st.st_size < (off_t)(NK_SIDECAR_HEADER + 4) ||
        nk_pread_full(fd, header, sizeof header, 0)) {
        err = nk_diag_set(why, -NK_EILSEQ, "sidecar %s is truncated", path);
        goto out;
    }
    uint32_t version = memcmp(header, NK_SIDECAR_MAGIC, 8) ? 0 : nk_get32(header + 8);
    if ((version != 1 && version != NK_SIDECAR_VERSION) ||
        nk_get32(header + 12) != NK_SIDECAR_HEADER || nk_get32(header + 40) != NK_SIDECAR_RECORD ||
        (version == 1 && nk_get32(header + 44))) {
        err = nk_diag_set(why, -NK_EILSEQ, "%s is not a nandkit sidecar (version 1 or 2)", path);
        goto out;
    }
    /* The size the header announces, checked against the file's without
     * overflow before anything of that size is allocated. */
    uint64_t rest = (uint64_t)st.st_size - NK_SIDECAR_HEADER - 4;
    uint64_t records = (uint64_t)nk_get32(header + 28) * NK_SIDECAR_RECORD;
    uint64_t weak_entry =
        (uint64_t)NK_SIDECAR_WEAK + nk_get32(header + 16) + (uint64_t)nk_get32(header + 20);
    if (records > rest || (rest - records) % weak_entry ||
        (rest - records) / weak_entry != nk_get32(header + 44) || (uint64_t)st.st_size > SIZE_MAX) {
        err = nk_diag_set(why, -NK_EILSEQ, "sidecar %s is corrupt (size or CRC)", path);
        goto out;
    }
    size = (size_t)st.st_size;
    buf = malloc(size);
    if (!buf) {
        err = nk_diag_set(why, -NK_ENOMEM, "out of memory for sidecar %s", path);
        goto out;
    }
    if (nk_pread_full(fd, buf, size, 0)) {
        err = nk_diag_set(why, -NK_EIO, "cannot read sidecar %s", path);
        goto out;
    }
    if (nk_get32(buf + size - 4) != nk_crc32(0, buf, size - 4)) {
        err = nk_diag_set(why, -NK_EILSEQ, "sidecar %s is corrupt (size or CRC)", path);
        goto out;
    }
out:
    close(fd);
    if (err) {
        free(buf);
        return err;
    }
    *out = buf;
    *out_size = size;
    return 0;
}

int nk_sim_sidecar_part(const char *image_path, struct nk_sim_params *params, struct nk_diag *why)
{
    uint8_t *buf;
    size_t size;
    int err = nk_sidecar_read(image_path, &buf, &size, why);
    if (err == 1)
        return nk_diag_set(why, -NK_EINVAL,
                           "image %s has no sidecar: give the chip (preset) or the geometry",
                           image_path);
    if (err)
        return err;
    char model[33];
    memcpy(model, buf + 48, 32);
    model[32] = '\0';
    uint32_t page = nk_get32(buf + 16), oob = nk_get32(buf + 20), ppb = nk_get32(buf + 24),
             blocks = nk_get32(buf + 28);
    free(buf);
    if (nk_sim_preset(model, params) == 0 && params->chip.page_size == page &&
        params->chip.oob_size == oob && params->chip.pages_per_block == ppb &&
        params->chip.blocks == blocks)
        return 0;
    return nk_sim_params_geometry(params, page, oob, ppb, blocks, why);
}

static int nk_sim_sidecar_load(struct nk_sim *sim, struct nk_diag *why)
{
    uint8_t *buf;
    size_t size;
    int err = nk_sidecar_read(sim->image_path, &buf, &size, why);
    if (err == 1)
        return 0; /* none: a plain image, every block as good as its data */
    if (err)
        return err;
    const struct nk_chip_info *c = &sim->params.chip;
    if (nk_get32(buf + 16) != c->page_size || nk_get32(buf + 20) != c->oob_size ||
        nk_get32(buf + 24) != c->pages_per_block || nk_get32(buf + 28) != c->blocks) {
        err = nk_diag_set(
            why, -NK_EINVAL,
            "sidecar of %s describes %u+%u bytes x %u pages x %u blocks, not %u+%u x %u x %u",
            sim->image_path, nk_get32(buf + 16), nk_get32(buf + 20), nk_get32(buf + 24),
            nk_get32(buf + 28), c->page_size, c->oob_size, c->pages_per_block, c->blocks);
        free(buf);
        return err;
    }
    for (uint32_t i = 0; i < c->blocks; i++) {
        struct nk_sim_block *b = &sim->blocks[i];
        const uint8_t *r = buf + NK_SIDECAR_HEADER + (size_t)i * NK_SIDECAR_RECORD;
        b->erase_count = nk_get32(r);
        b->reads = nk_get32(r + 4);
        b->flags = r[8] & NK_SIM_BLK_PUBLIC & ~NK_SIM_BLOCK_WEAK_PAGES;
        b->unstable_fraction = r[10];
        b->unstable_salt = nk_get32(r + 12);
    }
    const uint8_t *e = buf + NK_SIDECAR_HEADER + (size_t)c->blocks * NK_SIDECAR_RECORD;
    for (uint32_t i = nk_get32(buf + 44); i > 0; i--, e += NK_SIDECAR_WEAK + sim->page_bytes) {
        uint32_t row = nk_get32(e);
        if (row >= sim->rows || nk_sim_weak_find(sim, row)) {
            free(buf);
            return nk_diag_set(why, -NK_EILSEQ,
                               "sidecar of %s names weak page %u twice or "
                               "past the chip",
                               sim->image_path, row);
        }
        struct nk_sim_weak_page *w = nk_sim_weak_add(sim, row);
        if (!w) {
            free(buf);
            return nk_diag_set(why, -NK_ENOMEM, "out of memory for the sidecar's weak pages");
        }
        w->reads = nk_get32(e + 4);
        w->progress = (uint16_t)(e[8] | e[9] << 8);
        w->salt = nk_get64(e + 16);
        w->age_base_ns = nk_get64(e + 24);
        w->born_ns = sim->now;
        memcpy(w->mask, e + NK_SIDECAR_WEAK, sim->page_bytes);
    }
    free(buf);
    return 0;
}

/* ----- set-up ------------------------------------------------------------------ */

static int nk_sim_factory_bad(struct nk_sim *sim, const struct nk_sim_config *config,
                              struct nk_diag *why)
{
    uint32_t blocks = sim->params.chip.blocks;
    if (config->factory_bad_list) {
        for (unsigned i = 0; i < config->factory_bad_list_len; i++) {
            uint32_t block = config->factory_bad_list[i];
            if (block >= blocks)
                return nk_diag_set(why, -NK_EINVAL,
                                   "factory-bad block %u is beyond the chip's %u blocks", block,
                                   blocks);
            sim->blocks[block].flags |= NK_SIM_BLOCK_FACTORY_BAD;
        }
        return 0;
    }
    long count = config->factory_bad_blocks;
    if (count < 0)
        count = sim->params.default_bad_blocks;
    if (count == 0)
        return 0;
    if ((unsigned long)count >= blocks)
        return nk_diag_set(why, -NK_EINVAL, "%ld factory-bad blocks do not fit in %u blocks", count,
                           blocks);
    /* Block 0 is guaranteed good, as datasheets promise. */
    uint64_t rng = nk_sim_hash(sim->seed, 0xfac70badull, 0);
    for (long chosen = 0; chosen < count;) {
        uint32_t block = 1 + (uint32_t)(nk_sim_rng_next(&rng) % (blocks - 1));
        if (sim->blocks[block].flags & NK_SIM_BLOCK_FACTORY_BAD)
            continue;
        sim->blocks[block].flags |= NK_SIM_BLOCK_FACTORY_BAD;
        chosen++;
    }
    return 0;
}

static int nk_sim_image_open(struct nk_sim *sim, const struct nk_sim_config *config,
                             struct nk_diag *why)
{
    const char *path = config->image_path;
    uint64_t chip_bytes = (uint64_t)sim->rows * sim->page_bytes;
    sim->image_path = strdup(path);
    if (!sim->image_path)
        return nk_diag_set(why, -NK_ENOMEM, "out of memory");
    if (config->create) {
        if (config->read_only)
            return nk_diag_set(why, -NK_EINVAL, "cannot create image %s read-only", path);
        sim->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (sim->fd < 0)
            return nk_diag_set(why, -NK_EIO, "cannot create image %s: %s", path, strerror(errno));
        sim->file_size = 0;
        int err = nk_sim_factory_bad(sim, config, why);
        if (!err && config->full_image)
            err = nk_sim_file_fill_to(sim, chip_bytes);
        if (err)
            return err == -NK_EIO
                       ? nk_diag_set(why, err, "cannot write image %s: %s", path, strerror(errno))
                       : err;
        if (!sim->no_sidecar)
            return nk_sim_sidecar_write(sim, why);
        return 0;
    }
    sim->fd = open(path, config->read_only ? O_RDONLY : O_RDWR);
    if (sim->fd < 0) {
        if (errno == ENOENT)
            return nk_diag_set(why, -NK_ENOENT, "image %s: no such file", path);
        return nk_diag_set(why, -NK_EIO, "cannot open image %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(sim->fd, &st))
        return nk_diag_set(why, -NK_EIO, "cannot stat image %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return nk_diag_set(why, -NK_EINVAL, "image %s is not a regular file", path);
    uint64_t size = (uint64_t)st.st_size;
    if (size % sim->page_bytes)
        return nk_diag_set(why, -NK_EINVAL,
                           "image %s: size %llu is not a multiple of the page+OOB size %u (%u+%u)",
                           path, (unsigned long long)size, sim->page_bytes,
                           sim->params.chip.page_size, sim->params.chip.oob_size);
    if (size > chip_bytes)
        return nk_diag_set(why, -NK_EINVAL, "image %s: %llu bytes is larger than the chip (%llu)",
                           path, (unsigned long long)size, (unsigned long long)chip_bytes);
    sim->file_size = size;
    sim->file_size_opened = size;
    sim->file_sparse = (uint64_t)st.st_blocks * 512u < size;
    if (sim->no_sidecar)
        return 0;
    return nk_sim_sidecar_load(sim, why);
}

int nk_sim_array_init(struct nk_sim *sim, const struct nk_sim_config *config, struct nk_diag *why)
{
    sim->blocks = calloc(sim->params.chip.blocks, sizeof *sim->blocks);
    if (!sim->blocks)
        return nk_diag_set(why, -NK_ENOMEM, "out of memory for %u blocks", sim->params.chip.blocks);
    if (!config->image_path)
        return nk_sim_factory_bad(sim, config, why);
    return nk_sim_image_open(sim, config, why);
}

void nk_sim_array_free(struct nk_sim *sim)
{
    nk_sim_weak_free(sim);
    if (sim->blocks) {
        for (uint32_t i = 0; i < sim->params.chip.blocks; i++)
            nk_sim_block_drop(sim, &sim->blocks[i]);
        free(sim->blocks);
        sim->blocks = NULL;
    }
    if (sim->fd >= 0)
        close(sim->fd);
    sim->fd = -1;
    free(sim->image_path);
    sim->image_path = NULL;
    sim->resident_blocks = 0;
}

int nk_sim_array_sync(struct nk_sim *sim, struct nk_diag *why)
{
    if (sim->fd < 0 || sim->read_only)
        return 0;
    int err = 0;
    for (uint32_t i = 0; i < sim->params.chip.blocks && !err; i++)
        if (sim->blocks[i].flags & (NK_SIM_BLK_DIRTY | NK_SIM_BLK_STALE))
            err = nk_sim_block_write(sim, i);
    /* Write-through grows the file a page at a time; like a write back of
     * whole blocks, it ends with the last block written. */
    if (!err && sim->file_size > sim->file_size_opened && sim->file_size % sim->block_bytes)
        err = nk_sim_file_fill_to(sim, sim->file_size + sim->block_bytes -
                                           sim->file_size % sim->block_bytes);
    if (!err && fsync(sim->fd))
        err = -NK_EIO;
    if (err)
        return nk_diag_set(why, err, "cannot write image %s: %s", sim->image_path,
                           err == -NK_EIO ? strerror(errno) : nk_strerror(err));
    if (!sim->no_sidecar)
        err = nk_sim_sidecar_write(sim, why);
    return err;
}

/* ----- direct access -------------------------------------------------------- */

int nk_sim_page_peek(struct nk_sim *sim, uint32_t row, uint32_t column, uint8_t *buf, uint32_t len)
{
    if (row >= sim->rows || column > sim->page_bytes || len > sim->page_bytes - column)
        return -NK_EINVAL;
    const struct nk_sim_block *b = &sim->blocks[row >> sim->ppb_shift];
    if (b->pages) {
        const uint8_t *page = nk_sim_block_page(b, row & (sim->params.chip.pages_per_block - 1));
        if (page)
            memcpy(buf, page + column, len);
        else
            memset(buf, 0xff, len);
        return 0;
    }
    int err = nk_sim_array_load(sim, row, sim->scratch);
    memcpy(buf, sim->scratch + column, len);
    return err;
}

int nk_sim_page_poke(struct nk_sim *sim, uint32_t row, uint32_t column, const uint8_t *buf,
                     uint32_t len)
{
    if (row >= sim->rows || column > sim->page_bytes || len > sim->page_bytes - column)
        return -NK_EINVAL;
    if (sim->read_only)
        return -NK_EROFS;
    uint32_t block = row >> sim->ppb_shift;
    if (!nk_sim_array_materialize(sim, block))
        return -NK_ENOMEM;
    uint32_t page = row & (sim->params.chip.pages_per_block - 1);
    uint8_t *dst = nk_sim_block_page_writable(sim, &sim->blocks[block], page);
    if (!dst)
        return -NK_ENOMEM;
    memcpy(dst + column, buf, len);
    nk_sim_array_touched(sim, block, page, false);
    return 0;
}
