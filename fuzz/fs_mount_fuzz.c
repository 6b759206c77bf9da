/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: builds a small YAFFS2 image from the input, page by page
 * through the device layer on the simulator, then mounts it, walks the whole
 * tree (readdir, stat, lstat, readlink, open, read, pread, lookups of every
 * name), runs the structure check and unmounts. Any crash, hang, sanitizer
 * report, leak of file-system RAM, or broken invariant is a finding.
 *
 * Geometry: 2048 + 64 bytes, 8 pages per block, 8 blocks (64 pages).
 * Input: one flags byte, then records:
 *   byte 0      page index (mod 64)
 *   byte 1      bits 0..6: data length / 16 (0..127 -> 0..2032 bytes);
 *               bit 7: program raw (no ECC computed: the data ECC is junk;
 *               OOB bytes 0 and 1, the bad-block marker, take data byte 0)
 *   bytes 2..29 the 28 tag bytes (OOB free bytes 0..27, or for in-band the
 *               first 16 become the last 16 bytes of the page)
 *   then        the data bytes; the rest of the page stays 0xFF
 * Flags: bits 0..1 layout (linux, mkyaffs2, inband, linux), bit 2 no
 * summaries, bit 3 mount from a static pool of 24 KiB instead of the heap,
 * bit 4 checkpoint mode, bit 5 (with bit 4) recompute the checkpoint's CRC.
 *
 * Checkpoint mode: page indexes are taken mod 48 (the last two blocks stay
 * erased), the image is mounted read-write and unmounted, which
 * writes nandkit's checkpoint of whatever the mount made of it; then the
 * checkpoint stream is corrupted: the input's last byte n (mod 16) gives n
 * triples before it (offset low, offset high, XOR mask) applied to the
 * stream's bytes; with bit 5 its CRC is then made to match again, so the
 * record checks are reached. The pages are written back with valid ECC and
 * tags (erase, program), and the usual read-only mount and walk follow,
 * then a read-write mount that makes a directory (the first write erases
 * the checkpoint) and unmounts.
 * Records are programmed in page order (the last record for a page wins),
 * as NAND requires. fuzz/seeds/ holds seeds made from the fixtures by
 * fuzz/make_seeds.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fs_codec.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

#define PAGE 2048u
#define OOB 64u
#define PPB 8u
#define BLOCKS 8u
#define PAGES (PPB * BLOCKS)
#define RECORD_HEAD 30u

struct fuzz_dev {
    struct nk_ecc_engine ecc;
    struct nk_oob_layout layout;
    struct nk_nand nand;
    struct nk_part part;
    uint8_t workspace[PAGE + 3 * OOB];
};

static struct nk_sim *sim;
static struct nk_sim_params params;
static struct fuzz_dev devs[3];

static void setup(void)
{
    struct nk_diag why[1];
    if (nk_sim_params_geometry(&params, PAGE, OOB, PPB, BLOCKS, why) != 0)
        abort();
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.seed = 1;
    if (nk_sim_open(&sim, &config, why) != 0)
        abort();
    for (unsigned l = 0; l < 3; l++) {
        struct fuzz_dev *d = &devs[l];
        if (nk_fs_layout_device((enum nk_fs_layout)l, PAGE, OOB, &d->ecc, &d->layout) != 0)
            abort();
        struct nk_nand_config nc;
        memset(&nc, 0, sizeof nc);
        nc.ctrl = nk_sim_ctrl(sim);
        nc.chip = &params.chip;
        nc.ecc = &d->ecc;
        nc.layout = &d->layout;
        nc.workspace = d->workspace;
        nc.workspace_size = sizeof d->workspace;
        nc.skip_reset = l > 0;
        if (nk_nand_open(&d->nand, &nc) != 0 ||
            nk_part_init(&d->part, &d->nand, "fuzz", 0, 0, NK_PART_ALLOW_BBT_AREA) != 0)
            abort();
    }
}

/* ----- a heap allocator that keeps count ------------------------------------------ */

static size_t heap_in_use;

static void *heap_alloc(void *ctx, size_t size)
{
    (void)ctx;
    if (heap_in_use + size > (64u << 20))
        return NULL; /* a mount that wants this much is a finding elsewhere */
    heap_in_use += size;
    return malloc(size);
}

static void heap_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    heap_in_use -= size;
    free(ptr);
}

/* ----- building the image ------------------------------------------------------------ */

static void build(struct fuzz_dev *d, enum nk_fs_layout layout, const uint8_t *in, size_t len,
                  uint32_t pages)
{
    static const uint8_t *record_of[PAGES];
    static size_t record_len[PAGES];
    memset(record_of, 0, sizeof record_of);
    while (len >= RECORD_HEAD) {
        uint32_t data_len = (uint32_t)(in[1] & 0x7f) * 16u;
        size_t take = RECORD_HEAD + data_len;
        if (take > len) {
            take = len;
        }
        record_of[in[0] % pages] = in;
        record_len[in[0] % pages] = take;
        in += take;
        len -= take;
    }
    for (uint32_t b = 0; b < BLOCKS; b++)
        nk_part_erase_block(&d->part, b);
    static uint8_t data[PAGE], oob[OOB];
    for (uint32_t p = 0; p < PAGES; p++) {
        const uint8_t *r = record_of[p];
        if (!r)
            continue;
        memset(data, 0xff, sizeof data);
        memset(oob, 0xff, sizeof oob);
        size_t data_len = record_len[p] - RECORD_HEAD;
        memcpy(data, r + RECORD_HEAD, data_len);
        bool raw = (r[1] & 0x80) != 0;
        if (layout == NK_FS_LAYOUT_INBAND)
            memcpy(data + PAGE - 16, r + 2, 16);
        if (raw) {
            /* The OOB as on flash: the 28 bytes where the layout's free
             * region starts, ECC bytes left erased. */
            uint32_t at = layout == NK_FS_LAYOUT_MKYAFFS2 ? 0 : 2;
            if (layout != NK_FS_LAYOUT_INBAND)
                memcpy(oob + at, r + 2, 28);
            if (layout != NK_FS_LAYOUT_MKYAFFS2 && data_len > 0)
                oob[0] = oob[1] = data[0];
            nk_part_program_page(&d->part, p, data, oob, NK_OOB_RAW);
        } else {
            if (layout != NK_FS_LAYOUT_INBAND)
                memcpy(oob, r + 2, 28);
            nk_part_program_page(&d->part, p, data, oob, NK_OOB_AUTO);
        }
    }
}

/* ----- corrupting the checkpoint ------------------------------------------------------ */

/* The checkpoint's pages (blocks whose first page has checkpoint tags, in
 * order), their data and OOB read back, changed, and programmed again. */
static void corrupt_checkpoint(struct fuzz_dev *d, enum nk_fs_layout layout, const uint8_t *corr,
                               unsigned triples, bool fix_crc)
{
    static uint8_t pages[PAGES][PAGE], oobs[PAGES][OOB];
    static uint32_t rows[PAGES];
    uint32_t n = 0;
    const uint32_t chunk = layout == NK_FS_LAYOUT_INBAND ? PAGE - 16 : PAGE;
    for (uint32_t b = 0; b < BLOCKS; b++) {
        for (uint32_t p = 0; p < PPB; p++) {
            uint32_t row = b * PPB + p;
            int err = nk_part_read_page(&d->part, row, pages[n], oobs[n], NK_OOB_AUTO);
            if (err < 0 && err != -NK_EUCLEAN)
                break;
            struct nk_fs_tags tags;
            const uint8_t *raw = layout == NK_FS_LAYOUT_INBAND ? pages[n] + PAGE - 16 : oobs[n];
            int st = nk_fs_tags_decode(raw, layout != NK_FS_LAYOUT_INBAND, &tags);
            if (st <= 0 || tags.seq != NK_FS_SEQ_CHECKPOINT)
                break;
            rows[n++] = row;
        }
    }
    if (n == 0)
        return;
    uint32_t total = (uint32_t)pages[0][8] | (uint32_t)pages[0][9] << 8 |
                     (uint32_t)pages[0][10] << 16 | (uint32_t)pages[0][11] << 24;
    if (total > n * chunk)
        total = n * chunk;
    for (unsigned i = 0; i < triples && total; i++) {
        uint32_t at = ((uint32_t)corr[3 * i] | (uint32_t)corr[3 * i + 1] << 8) % total;
        pages[at / chunk][at % chunk] ^= corr[3 * i + 2];
    }
    if (fix_crc && total >= 4) {
        uint32_t crc = 0;
        for (uint32_t at = 0; at < total - 4; at += chunk) {
            uint32_t len = total - 4 - at < chunk ? total - 4 - at : chunk;
            crc = nk_fs_crc32(crc, pages[at / chunk], len);
        }
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t at = total - 4 + k;
            pages[at / chunk][at % chunk] = (uint8_t)(crc >> (8 * k));
        }
    }
    uint32_t last_block = NK_FS_NONE;
    for (uint32_t i = 0; i < n; i++) {
        if (rows[i] / PPB != last_block) {
            last_block = rows[i] / PPB;
            nk_part_erase_block(&d->part, last_block);
        }
        nk_part_program_page(&d->part, rows[i], pages[i], oobs[i], NK_OOB_AUTO);
    }
}

/* ----- walking the tree ---------------------------------------------------------------- */

static unsigned entries_seen;

static void walk(struct nk_fs *fs, const char *path, unsigned depth)
{
    if (depth > 40 || entries_seen > 400)
        return;
    struct nk_fs_dir dir;
    if (nk_fs_dir_open(fs, &dir, path) != 0)
        return;
    struct nk_fs_dirent e;
    int r;
    while ((r = nk_fs_dir_read(&dir, &e)) != 0 && entries_seen <= 400) {
        if (r < 0)
            continue;
        entries_seen++;
        struct nk_fs_stat dst;
        nk_fs_dir_stat(&dir, &dst);
        if (strlen(e.name) > NK_FS_NAME_MAX || strchr(e.name, '/') || e.name[0] == '\0')
            abort(); /* readdir must only hand out names a path can reach */
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") ? path : "", e.name);
        struct nk_fs_stat st, lst;
        /* (With duplicate names the lookup may find the other object.) */
        int ls = nk_fs_lstat(fs, child, &lst);
        nk_fs_stat(fs, child, &st);
        char target[NK_FS_ALIAS_MAX + 1];
        int t = nk_fs_readlink(fs, child, target, sizeof target);
        if (t >= 0 && (size_t)t != strlen(target))
            abort();
        struct nk_fs_file f;
        if (nk_fs_file_open(fs, &f, child, NK_FS_O_RDONLY) == 0) {
            static uint8_t buf[8192];
            struct nk_fs_stat fst;
            nk_fs_file_stat(&f, &fst);
            int32_t n = nk_fs_file_read(&f, buf, sizeof buf);
            if (n > (int32_t)sizeof buf || (n >= 0 && (uint64_t)n > fst.size))
                abort();
            if (fst.size > 100)
                nk_fs_file_pread(&f, buf, 200, fst.size - 100);
            nk_fs_file_seek(&f, -5, NK_FS_SEEK_END);
            nk_fs_file_read(&f, buf, 10);
            nk_fs_file_close(&f);
        }
        if (ls == 0 && lst.type == NK_FS_TYPE_DIR)
            walk(fs, child, depth + 1);
    }
    nk_fs_dir_close(&dir);
}

static void report(void *ctx, const struct nk_fs_problem *p)
{
    char line[256];
    nk_fs_problem_format(p, line, sizeof line);
    (void)ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
    if (!sim)
        setup();
    if (len < 1)
        return 0;
    uint8_t flags = in[0];
    enum nk_fs_layout layout =
        (flags & 3) == 3 ? NK_FS_LAYOUT_LINUX : (enum nk_fs_layout)(flags & 3);
    struct fuzz_dev *d = &devs[layout];
    const uint8_t *corr = NULL;
    unsigned triples = 0;
    size_t records = len - 1;
    if (flags & 16) {
        triples = in[len - 1] % 16u;
        if (len < 2 + 3u * triples)
            triples = 0;
        records = len - 1 - (len >= 2 ? 1 + 3u * triples : 0);
        corr = in + 1 + records;
    }
    /* Checkpoint mode keeps the last two blocks erased: room for one. */
    build(d, layout, in + 1, records, (flags & 16) ? PAGES - 2 * PPB : PAGES);

    struct nk_fs_config config;
    memset(&config, 0, sizeof config);
    config.part = &d->part;
    config.read_only = true;
    config.no_summaries = (flags & 4) != 0;
    config.report = report;
    nk_fs_config_layout(&config, layout);
    static uint64_t pool_buffer[3 * 1024];
    struct nk_fs_pool pool;
    if (flags & 8) {
        nk_fs_pool_init(&pool, pool_buffer, sizeof pool_buffer);
        config.allocator = nk_fs_pool_allocator(&pool);
    } else {
        config.allocator.alloc = heap_alloc;
        config.allocator.free = heap_free;
    }

    if (flags & 16) {
        /* Checkpoint mode: a read-write mount and unmount write one. */
        struct nk_fs_config rw = config;
        rw.read_only = false;
        rw.allocator.alloc = heap_alloc;
        rw.allocator.free = heap_free;
        struct nk_fs wfs;
        if (nk_fs_mount(&wfs, &rw) != 0) {
            if (wfs.ram_bytes != 0)
                abort();
            return 0;
        }
        nk_fs_unmount(&wfs);
        if (wfs.ram_bytes != 0 || heap_in_use != 0)
            abort();
        corrupt_checkpoint(d, layout, corr, triples, (flags & 32) != 0);
    }

    for (uint32_t p = 0; p < 3; p++) {
        static char text[1024];
        nk_fs_page_describe(&config, (uint32_t)(in[len - 1 - p % len] % PAGES), text, sizeof text);
    }

    struct nk_fs fs;
    int err = nk_fs_mount(&fs, &config);
    if (err) {
        if (fs.ram_bytes != 0)
            abort(); /* a failed mount gives everything back */
        return 0;
    }
    entries_seen = 0;
    walk(&fs, "/", 0);
    struct nk_fs_stat st;
    nk_fs_stat(&fs, "/lost+found/../lost+found/./x", &st);
    struct nk_fs_statfs sf;
    nk_fs_statfs(&fs, &sf);
    struct nk_fs_check_result check;
    nk_fs_check(&fs, &check);
    nk_fs_unmount(&fs);
    if (fs.ram_bytes != 0 || heap_in_use != 0)
        abort();
    if (flags & 16) {
        /* The first write after a checkpoint mount erases it first. */
        config.read_only = false;
        config.allocator.alloc = heap_alloc;
        config.allocator.free = heap_free;
        if (nk_fs_mount(&fs, &config) == 0) {
            nk_fs_mkdir(&fs, "/ckpt-fuzz", 0755);
            nk_fs_unmount(&fs);
        }
        if (fs.ram_bytes != 0 || heap_in_use != 0)
            abort();
    }
    return 0;
}
