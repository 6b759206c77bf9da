/*
 * bench_yaffs2: YAFFS2 Direct on nandkit's simulated chip, through the
 * workloads of `nandkit bench --fs` (bench/lib/fs_bench.c; docs/bench.md
 * defines them), so that the YAFFS2 column of that benchmark can be
 * measured instead of taken on trust.
 *
 * The chip is the simulator's K9F1G08U0A preset (2048 + 64 bytes, 64 pages
 * per block, 1024 blocks), brought up as bench --fs brings it up for
 * nandkit: nk_nand with the Hamming ECC of the Linux layout and a flash
 * bad-block table (its last four blocks), so YAFFS2 has the other 1020.
 * YAFFS2's packed tags2 (with their own ECC, 28 bytes) go in the OOB's free
 * bytes from byte 2, the data code at 40..63: docs/fs-format.md's linux
 * layout. YAFFS2 runs with a 10-chunk cache, 5 reserved blocks, block
 * summaries and the checkpoint on.
 *
 * Time is the simulator's virtual clock (bus cycles, tR, tPROG, tBERS; host
 * CPU excluded) and operations are counted by the simulator's trace, as in
 * bench --fs. This program's NAND driver is its own (the interoperability
 * tests' tests/interop/ydrv.c works on an image file); the OS glue is the
 * interoperability tests' (tests/interop/yglue.c), whose allocation counter
 * gives the RAM figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/sim.h"

#include "yportenv.h" /* YAFFS2 Direct's types, before its other headers */

#include "yaffs_guts.h"
#include "yaffs_packedtags2.h"
#include "yaffsfs.h"

#include "nkfsbench.h"
#include "yglue.h"

/* In direct/yaffsfs.c beside yaffs_add_device(), not in its header. */
void yaffs_remove_device(struct yaffs_dev *dev);

#define FILLS 3
#define IO_SIZES 4
#define MNT "/y"

static const uint32_t io_sizes[IO_SIZES] = {512, 2048, 16384, 131072};
static const uint32_t fills[FILLS] = {50, 75, 88};

/* ----- the simulated chip as YAFFS2's NAND driver ------------------------------------ */

struct ysim {
    struct nk_sim *sim;
    struct nk_sim_params params;
    struct nk_nand nand;
    void *workspace;
    uint32_t page, oob, ppb, blocks; /* blocks given to YAFFS2 */
    uint32_t free_bytes;             /* OOB bytes the layout leaves free */
    int frozen;                      /* power lost: nothing reaches the flash */
    struct nk_fs_bench_reads reads;  /* from the trace */
    uint64_t failed;                 /* operations the device refused */
    uint8_t oobbuf[256];
};

static struct ysim chip;
static struct yaffs_dev dev;
static int checks_failed;
static int do_checks;
static uint64_t refused; /* device refusals over every chip */

static void check(int ok, const char *what)
{
    if (!ok) {
        checks_failed++;
        fprintf(stderr, "bench_yaffs2: check failed: %s\n", what);
    }
}

static int drv_write(struct yaffs_dev *d, int nand_chunk, const u8 *data, int data_len,
                     const u8 *tags, int tags_len)
{
    struct ysim *c = d->driver_context;
    if (c->frozen)
        return YAFFS_OK;
    if (nand_chunk < 0 || (uint32_t)tags_len > c->free_bytes ||
        (data && (uint32_t)data_len != c->page))
        return YAFFS_FAIL;
    memset(c->oobbuf, 0xFF, c->free_bytes);
    if (tags && tags_len > 0)
        memcpy(c->oobbuf, tags, (size_t)tags_len);
    int err = nk_nand_program_page(&c->nand, (uint32_t)nand_chunk, data, c->oobbuf, NK_OOB_AUTO);
    if (err) {
        c->failed++;
        return YAFFS_FAIL;
    }
    return YAFFS_OK;
}

static int drv_read(struct yaffs_dev *d, int nand_chunk, u8 *data, int data_len, u8 *tags,
                    int tags_len, enum yaffs_ecc_result *ecc_result)
{
    struct ysim *c = d->driver_context;
    *ecc_result = YAFFS_ECC_RESULT_NO_ERROR;
    if (nand_chunk < 0 || (uint32_t)tags_len > c->free_bytes ||
        (data && (uint32_t)data_len != c->page))
        return YAFFS_FAIL;
    int r = nk_nand_read_page(&c->nand, (uint32_t)nand_chunk, data, tags ? c->oobbuf : NULL,
                              NK_OOB_AUTO);
    if (tags && tags_len > 0)
        memcpy(tags, c->oobbuf, (size_t)tags_len);
    if (r == -NK_EBADMSG) {
        *ecc_result = YAFFS_ECC_RESULT_UNFIXED;
        return YAFFS_FAIL;
    }
    if (r < 0) {
        c->failed++;
        return YAFFS_FAIL;
    }
    if (r > 0)
        *ecc_result = YAFFS_ECC_RESULT_FIXED;
    return YAFFS_OK;
}

static int drv_erase(struct yaffs_dev *d, int block)
{
    struct ysim *c = d->driver_context;
    if (c->frozen)
        return YAFFS_OK;
    if (block < 0 || (uint32_t)block >= c->blocks)
        return YAFFS_FAIL;
    if (nk_nand_erase_block(&c->nand, (uint32_t)block) != 0) {
        c->failed++;
        return YAFFS_FAIL;
    }
    return YAFFS_OK;
}

static int drv_mark_bad(struct yaffs_dev *d, int block)
{
    struct ysim *c = d->driver_context;
    if (c->frozen)
        return YAFFS_OK;
    return nk_nand_block_mark_bad(&c->nand, (uint32_t)block) == 0 ? YAFFS_OK : YAFFS_FAIL;
}

/* Asked of the bad-block table in RAM, as Linux's MTD answers it. */
static int drv_check_bad(struct yaffs_dev *d, int block)
{
    struct ysim *c = d->driver_context;
    if (block < 0 || (uint32_t)block >= c->blocks)
        return YAFFS_FAIL;
    return nk_nand_block_is_bad(&c->nand, (uint32_t)block) == 0 ? YAFFS_OK : YAFFS_FAIL;
}

static void chip_close(void)
{
    refused += chip.failed;
    if (chip.sim)
        nk_sim_close(chip.sim);
    free(chip.workspace);
    memset(&chip, 0, sizeof chip);
}

/* A fresh erased chip (`blocks` 0: the preset's) under YAFFS2, mounted. */
static int chip_open(const char *preset, uint32_t blocks, uint64_t seed)
{
    memset(&chip, 0, sizeof chip);
    struct nk_diag why;
    memset(&why, 0, sizeof why);
    if (nk_sim_preset(preset, &chip.params) != 0) {
        fprintf(stderr, "bench_yaffs2: unknown chip '%s'\n", preset);
        return -1;
    }
    if (blocks)
        chip.params.chip.blocks = blocks;
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &chip.params;
    sc.seed = seed;
    sc.factory_bad_blocks = 0;
    if (nk_sim_open(&chip.sim, &sc, &why) != 0) {
        fprintf(stderr, "bench_yaffs2: simulator: %s\n", why.text);
        return -1;
    }
    nk_sim_trace_set(chip.sim, nk_fs_bench_count_reads, &chip.reads);
    const struct nk_chip_info *info = &chip.params.chip;
    size_t ws = nk_nand_default_workspace_size(info) + nk_nand_bbt_workspace_size(info);
    chip.workspace = malloc(ws);
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(chip.sim),
                                .chip = info,
                                .workspace = chip.workspace,
                                .workspace_size = chip.workspace ? ws : 0,
                                .clock = nk_sim_clock(chip.sim),
                                .bbt = true};
    int err = nk_nand_open(&chip.nand, &nc);
    if (err) {
        fprintf(stderr, "bench_yaffs2: device: %s\n", chip.nand.diag.text);
        chip_close();
        return -1;
    }
    chip.page = info->page_size;
    chip.reads.page_size = chip.page;
    chip.oob = info->oob_size;
    chip.ppb = info->pages_per_block;
    chip.blocks = info->blocks > 4 ? info->blocks - 4 : info->blocks; /* the table's four */
    chip.free_bytes = nk_nand_free_oob_bytes(&chip.nand);
    if (chip.free_bytes > sizeof chip.oobbuf ||
        chip.free_bytes < sizeof(struct yaffs_packed_tags2)) {
        fprintf(stderr, "bench_yaffs2: %u free OOB bytes cannot hold YAFFS2's %zu-byte tags\n",
                chip.free_bytes, sizeof(struct yaffs_packed_tags2));
        chip_close();
        return -1;
    }

    /* The device is set up afresh for every chip (taken off YAFFS2's list
     * first: yaffs_add_device() fills in its callbacks only for a device
     * not on the list). */
    if (dev.dev_list.next)
        yaffs_remove_device(&dev);
    memset(&dev, 0, sizeof dev);
    struct yaffs_param *p = &dev.param;
    p->name = MNT;
    p->total_bytes_per_chunk = chip.page;
    p->spare_bytes_per_chunk = chip.oob;
    p->chunks_per_block = chip.ppb;
    p->start_block = 0;
    p->end_block = chip.blocks - 1;
    p->n_reserved_blocks = 5;
    p->n_caches = 10;
    p->is_yaffs2 = 1;
    p->inband_tags = 0;
    p->no_tags_ecc = 0;
    p->disable_summary = 0;
    p->skip_checkpt_rd = 0;
    p->skip_checkpt_wr = 0;
    p->enable_xattr = 1;
    p->stored_endian = 1;
    dev.drv.drv_write_chunk_fn = drv_write;
    dev.drv.drv_read_chunk_fn = drv_read;
    dev.drv.drv_erase_fn = drv_erase;
    dev.drv.drv_mark_bad_fn = drv_mark_bad;
    dev.drv.drv_check_bad_fn = drv_check_bad;
    dev.driver_context = &chip;
    yaffs_add_device(&dev);
    yglue_malloc_reset_peak();
    if (yaffs_mount(MNT) != 0) {
        fprintf(stderr, "bench_yaffs2: yaffs_mount: error %d\n", yglue_last_error());
        chip_close();
        return -1;
    }
    return 0;
}

static void chip_done(void)
{
    if (dev.is_mounted)
        yaffs_unmount2(MNT, 1);
    chip_close();
}

static void ops_now(struct nk_fs_bench_ops *o)
{
    nk_fs_bench_ops_now(chip.sim, &chip.reads, o);
}

static int write_file(const char *path, uint64_t bytes, uint32_t io, const uint8_t *data)
{
    int fd = yaffs_open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        fprintf(stderr, "bench_yaffs2: open %s: error %d\n", path, yglue_last_error());
        return -1;
    }
    for (uint64_t done = 0; done < bytes;) {
        uint32_t n = bytes - done < io ? (uint32_t)(bytes - done) : io;
        if (yaffs_write(fd, nk_fs_bench_piece(data, done), n) != (int)n) {
            fprintf(stderr, "bench_yaffs2: write %s at %llu: error %d\n", path,
                    (unsigned long long)done, yglue_last_error());
            yaffs_close(fd);
            return -1;
        }
        done += n;
    }
    if (yaffs_close(fd) != 0) {
        fprintf(stderr, "bench_yaffs2: close %s: error %d\n", path, yglue_last_error());
        return -1;
    }
    return 0;
}

/* Reads `path` whole in `io` pieces; 1 when it holds what write_file wrote
 * with `bytes` and `io` from `data`. */
static int read_file(const char *path, uint64_t bytes, uint32_t io, const uint8_t *data)
{
    int fd = yaffs_open(path, O_RDONLY, 0);
    if (fd < 0)
        return 0;
    uint8_t *buf = malloc(io);
    uint64_t got = 0;
    int same = buf != NULL;
    for (int n = 1; buf && n > 0;) {
        n = yaffs_read(fd, buf, io);
        if (n < 0) {
            same = 0;
            break;
        }
        /* Pieces were written `io` at a time, so a read of `io` meets one. */
        if (n > 0 && memcmp(buf, nk_fs_bench_piece(data, got), (size_t)n) != 0)
            same = 0;
        got += (uint64_t)(n > 0 ? n : 0);
    }
    free(buf);
    yaffs_close(fd);
    return same && got == bytes;
}

/* ----- workloads --------------------------------------------------------------------- */

struct seq {
    uint32_t io_size;
    uint64_t bytes, chunks;
    struct nk_fs_bench_ops write, read;
    double write_kBps, read_kBps, programs_per_chunk, reads_per_chunk;
    int read_back;
};

struct overwrite {
    uint32_t fill_percent;
    uint64_t file_bytes, overwrites, user_chunks, gc_copies, gc_blocks;
    struct nk_fs_bench_ops ops;
    double wa, kBps;
};

struct result {
    const char *chip;
    int small;
    uint64_t seed;
    uint32_t blocks, page, ppb;
    double raw_program_us, raw_read_us, raw_write_kBps, raw_read_kBps;
    struct seq seq[IO_SIZES];
    uint32_t files, file_bytes;
    struct nk_fs_bench_ops small_ops;
    double small_programs, small_reads, small_us, small_kBps;
    int small_read_back;
    struct overwrite ow[FILLS];
    uint64_t mount_big_bytes;
    struct nk_fs_bench_ops mount_clean, mount_crash;
    int mount_read_back;
    uint64_t ram_state_now, ram_state_peak, ram_big_bytes, ram_big_now, ram_big_peak;
    uint32_t erase_min, erase_max;
    double erase_mean, erase_stddev;
    int ran_overwrite;
};

static uint32_t blocks_of(const struct result *r)
{
    return r->small ? 128 : 0;
}

/* One block programmed and read a page at a time (data + OOB with ECC). */
static int bench_raw(struct result *r, const uint8_t *data)
{
    if (chip_open(r->chip, blocks_of(r), r->seed) != 0)
        return -1;
    yaffs_unmount2(MNT, 1);
    uint8_t *buf = malloc((size_t)chip.page + chip.oob);
    uint32_t block = 1, ppb = chip.ppb;
    int err = nk_nand_erase_block(&chip.nand, block);
    uint64_t t0 = nk_sim_time_ns(chip.sim);
    for (uint32_t p = 0; p < ppb && !err; p++)
        err = nk_nand_program_page(&chip.nand, block * ppb + p, data, NULL, NK_OOB_AUTO);
    uint64_t t1 = nk_sim_time_ns(chip.sim);
    for (uint32_t p = 0; p < ppb && err >= 0; p++)
        err = nk_nand_read_page(&chip.nand, block * ppb + p, buf, buf + chip.page, NK_OOB_AUTO);
    uint64_t t2 = nk_sim_time_ns(chip.sim);
    uint32_t page = chip.page;
    free(buf);
    chip_done();
    if (err < 0)
        return -1;
    r->raw_program_us = (double)(t1 - t0) / ppb / 1000.0;
    r->raw_read_us = (double)(t2 - t1) / ppb / 1000.0;
    r->raw_write_kBps = nk_fs_bench_kBps((uint64_t)page * ppb, t1 - t0);
    r->raw_read_kBps = nk_fs_bench_kBps((uint64_t)page * ppb, t2 - t1);
    return 0;
}

static int bench_seq(struct result *r, const uint8_t *data)
{
    uint64_t bytes = r->small ? (1u << 20) : (16u << 20);
    for (unsigned i = 0; i < IO_SIZES; i++) {
        struct seq *s = &r->seq[i];
        s->io_size = io_sizes[i];
        s->bytes = bytes;
        if (chip_open(r->chip, blocks_of(r), r->seed) != 0)
            return -1;
        r->blocks = chip.blocks;
        r->page = chip.page;
        r->ppb = chip.ppb;
        s->chunks = (bytes + chip.page - 1) / chip.page;
        struct nk_fs_bench_ops a, b;
        ops_now(&a);
        int err = write_file(MNT "/seq", bytes, s->io_size, data);
        ops_now(&b);
        nk_fs_bench_ops_delta(&s->write, &a, &b);
        if (!err)
            s->read_back = read_file(MNT "/seq", bytes, s->io_size, data);
        ops_now(&a);
        nk_fs_bench_ops_delta(&s->read, &b, &a);
        chip_done();
        if (err)
            return -1;
        s->write_kBps = nk_fs_bench_kBps(bytes, s->write.time_ns);
        s->read_kBps = nk_fs_bench_kBps(bytes, s->read.time_ns);
        s->programs_per_chunk = (double)s->write.programs / (double)s->chunks;
        s->reads_per_chunk = (double)s->read.page_reads / (double)s->chunks;
    }
    return 0;
}

static int small_files(uint32_t count, uint32_t size, const uint8_t *data)
{
    for (uint32_t i = 0; i < count; i++) {
        char path[40];
        snprintf(path, sizeof path, MNT "/dir/f%05u", (unsigned)i);
        if (write_file(path, size, size, data + i) != 0)
            return -1;
    }
    return 0;
}

static int small_files_read_back(uint32_t count, uint32_t size, const uint8_t *data)
{
    int same = 1;
    for (uint32_t i = 0; i < count; i++) {
        char path[40];
        snprintf(path, sizeof path, MNT "/dir/f%05u", (unsigned)i);
        same &= read_file(path, size, size, data + i);
    }
    return same;
}

static int bench_small(struct result *r, const uint8_t *data)
{
    r->files = r->small ? 100 : 1000;
    r->file_bytes = 1024;
    if (chip_open(r->chip, blocks_of(r), r->seed) != 0)
        return -1;
    int err = yaffs_mkdir(MNT "/dir", 0755);
    struct nk_fs_bench_ops a, b;
    ops_now(&a);
    if (!err)
        err = small_files(r->files, r->file_bytes, data);
    ops_now(&b);
    if (!err)
        r->small_read_back = small_files_read_back(r->files, r->file_bytes, data);
    chip_done();
    if (err)
        return -1;
    nk_fs_bench_ops_delta(&r->small_ops, &a, &b);
    r->small_programs = (double)r->small_ops.programs / r->files;
    r->small_reads = (double)r->small_ops.page_reads / r->files;
    r->small_us = (double)r->small_ops.time_ns / 1000.0 / r->files;
    r->small_kBps = nk_fs_bench_kBps((uint64_t)r->files * r->file_bytes, r->small_ops.time_ns);
    return 0;
}

static int bench_overwrite(struct result *r, const uint8_t *data)
{
    r->ran_overwrite = 1;
    for (unsigned i = 0; i < FILLS; i++) {
        struct overwrite *o = &r->ow[i];
        o->fill_percent = fills[i];
        if (chip_open(r->chip, blocks_of(r), r->seed) != 0)
            return -1;
        o->file_bytes = (uint64_t)yaffs_freespace(MNT) * o->fill_percent / 100 / 4096 * 4096;
        int err = write_file(MNT "/rand", o->file_bytes, 128 * 1024, data);
        int fd = err ? -1 : yaffs_open(MNT "/rand", O_RDWR, 0);
        if (fd < 0)
            err = -1;
        uint64_t blocks4k = o->file_bytes / 4096;
        uint64_t warm = blocks4k / 2, measured = blocks4k;
        uint64_t x = r->seed * 0x2545f4914f6cdd1dull + i + 1;
        struct nk_fs_bench_ops a, b;
        uint32_t copies0 = 0, gc0 = 0;
        ops_now(&a);
        for (uint64_t k = 0; !err && k < warm + measured; k++) {
            if (k == warm) {
                err = yaffs_fsync(fd);
                ops_now(&a);
                copies0 = dev.n_gc_copies;
                gc0 = dev.n_gc_blocks;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t at = (x % blocks4k) * 4096;
            if (yaffs_pwrite(fd, data + (k % 64) * 64, 4096, (Y_LOFF_T)at) != 4096) {
                fprintf(stderr, "bench_yaffs2: pwrite at %llu (%u %% full): error %d\n",
                        (unsigned long long)at, o->fill_percent, yglue_last_error());
                err = -1;
            }
        }
        if (fd >= 0 && yaffs_close(fd) != 0)
            err = -1;
        if (err) {
            chip_done();
            return -1;
        }
        ops_now(&b);
        nk_fs_bench_ops_delta(&o->ops, &a, &b);
        o->overwrites = measured;
        o->user_chunks = measured * 4096 / chip.page;
        o->wa = (double)o->ops.programs / (double)o->user_chunks;
        o->kBps = nk_fs_bench_kBps(measured * 4096, o->ops.time_ns);
        o->gc_copies = dev.n_gc_copies - copies0;
        o->gc_blocks = dev.n_gc_blocks - gc0;
        if (i == FILLS - 1) {
            double sum = 0, sq = 0;
            r->erase_min = UINT32_MAX;
            r->erase_max = 0;
            for (uint32_t blk = 0; blk < chip.blocks; blk++) {
                struct nk_sim_block_state bs;
                nk_sim_block_get(chip.sim, blk, &bs);
                r->erase_min = bs.erase_count < r->erase_min ? bs.erase_count : r->erase_min;
                r->erase_max = bs.erase_count > r->erase_max ? bs.erase_count : r->erase_max;
                sum += bs.erase_count;
                sq += (double)bs.erase_count * bs.erase_count;
            }
            r->erase_mean = sum / chip.blocks;
            double var = sq / chip.blocks - r->erase_mean * r->erase_mean;
            r->erase_stddev = var > 0 ? sqrt(var) : 0;
        }
        chip_done();
    }
    return 0;
}

/* Mount of the small files + a big file after a crash and after a clean
 * unmount. The files are closed and YAFFS2's cache flushed (yaffs_sync
 * without its checkpoint: with one written just before the cut, the mount
 * after the crash would read that checkpoint rather than scan). */
static int bench_mount(struct result *r, const uint8_t *data)
{
    r->mount_big_bytes = r->small ? (1u << 20) : (16u << 20);
    if (chip_open(r->chip, blocks_of(r), r->seed) != 0)
        return -1;
    int err = yaffs_mkdir(MNT "/dir", 0755);
    if (!err)
        err = small_files(r->files, r->file_bytes, data);
    if (!err)
        err = write_file(MNT "/big", r->mount_big_bytes, 128 * 1024, data);
    if (!err)
        err = yaffs_sync_files(MNT);
    if (err) {
        chip_done();
        return -1;
    }
    /* Power lost with the file system mounted: the flash stays as it is
     * and the unmount only frees YAFFS2's RAM. */
    chip.frozen = 1;
    yaffs_unmount2(MNT, 1);
    chip.frozen = 0;
    struct nk_fs_bench_ops a, b;
    for (int pass = 0; pass < 2 && !err; pass++) {
        if (pass == 1)
            yglue_malloc_reset_peak();
        ops_now(&a);
        err = yaffs_mount(MNT);
        ops_now(&b);
        if (err) {
            fprintf(stderr, "bench_yaffs2: mount: error %d\n", yglue_last_error());
            break;
        }
        nk_fs_bench_ops_delta(pass == 0 ? &r->mount_crash : &r->mount_clean, &a, &b);
        if (pass == 0) {
            r->mount_read_back = small_files_read_back(r->files, r->file_bytes, data) &&
                                 read_file(MNT "/big", r->mount_big_bytes, 128 * 1024, data);
        } else {
            unsigned now, peak;
            yaffsfs_get_malloc_values(&now, &peak);
            r->ram_state_now = now;
            r->ram_state_peak = peak;
            r->mount_read_back &= small_files_read_back(r->files, r->file_bytes, data) &&
                                  read_file(MNT "/big", r->mount_big_bytes, 128 * 1024, data);
        }
        err = yaffs_unmount2(MNT, 0);
    }
    chip_done();
    return err ? -1 : 0;
}

static int bench_ram_big(struct result *r, const uint8_t *data)
{
    r->ram_big_bytes = r->small ? (8u << 20) : (100u << 20);
    if (chip_open(r->chip, blocks_of(r), r->seed) != 0)
        return -1;
    int err = write_file(MNT "/big", r->ram_big_bytes, 128 * 1024, data);
    if (!err) {
        unsigned now, peak;
        yaffsfs_get_malloc_values(&now, &peak);
        r->ram_big_now = now;
        r->ram_big_peak = peak;
    }
    chip_done();
    return err;
}

/* ----- output ------------------------------------------------------------------------ */

static void print_table(const struct result *r)
{
    printf("YAFFS2 Direct on the simulated %s (%u-byte chunks x %u per block, %u blocks for "
           "YAFFS2 of the chip's %u, the rest its bad-block table), virtual device time, host CPU "
           "excluded%s\n",
           r->chip, r->page, r->ppb, r->blocks, r->blocks + 4,
           r->small ? "; REDUCED SIZES (--small): not comparable" : "");
    printf("tags in OOB (packed tags2 at byte 2, linux layout), 10-chunk cache, summaries and "
           "checkpoint on\n\n");
    printf("raw single page: program %.2f us (%.0f kB/s), read %.2f us (%.0f kB/s)\n\n",
           r->raw_program_us, r->raw_write_kBps, r->raw_read_us, r->raw_read_kBps);
    printf("sequential %llu-byte file on an erased array:\n", (unsigned long long)r->seq[0].bytes);
    printf("  %-8s %10s %7s %9s %10s %7s %9s\n", "io size", "write kB/s", "% raw", "prog/chk",
           "read kB/s", "% raw", "reads/chk");
    for (unsigned i = 0; i < IO_SIZES; i++) {
        const struct seq *s = &r->seq[i];
        printf("  %-8u %10.0f %6.1f%% %9.4f %10.0f %6.2f%% %9.4f\n", s->io_size, s->write_kBps,
               100.0 * s->write_kBps / r->raw_write_kBps, s->programs_per_chunk, s->read_kBps,
               100.0 * s->read_kBps / r->raw_read_kBps, s->reads_per_chunk);
    }
    printf("\n%u files of %u bytes in one directory:\n", r->files, r->file_bytes);
    printf("  programs/file %.2f, page reads/file %.2f, OOB reads/file %.2f, erases %llu\n",
           r->small_programs, r->small_reads, (double)r->small_ops.oob_reads / r->files,
           (unsigned long long)r->small_ops.erases);
    printf("  %.0f us/file, %.0f kB/s of payload\n", r->small_us, r->small_kBps);
    if (r->ran_overwrite) {
        printf("\nrandom aligned 4 KiB overwrites (the file's size rewritten, after a warm-up of "
               "half of it):\n");
        printf("  %-5s %12s %10s %8s %10s %10s %9s\n", "fill", "file bytes", "overwrites", "WA",
               "kB/s", "gc copies", "gc blocks");
        for (unsigned i = 0; i < FILLS; i++) {
            const struct overwrite *o = &r->ow[i];
            printf("  %3u %% %12llu %10llu %8.2f %10.0f %10llu %9llu\n", o->fill_percent,
                   (unsigned long long)o->file_bytes, (unsigned long long)o->overwrites, o->wa,
                   o->kBps, (unsigned long long)o->gc_copies, (unsigned long long)o->gc_blocks);
        }
    }
    printf("\nmount of %u small files + a %llu-byte file:\n", r->files,
           (unsigned long long)r->mount_big_bytes);
    printf("  after a clean unmount %.2f ms (checkpoint; page reads %llu, OOB reads %llu)\n",
           nk_fs_bench_ms(r->mount_clean.time_ns), (unsigned long long)r->mount_clean.page_reads,
           (unsigned long long)r->mount_clean.oob_reads);
    printf("  after a crash         %.2f ms (scan with summaries; page reads %llu, OOB reads "
           "%llu, programs %llu)\n",
           nk_fs_bench_ms(r->mount_crash.time_ns), (unsigned long long)r->mount_crash.page_reads,
           (unsigned long long)r->mount_crash.oob_reads,
           (unsigned long long)r->mount_crash.programs);
    printf("\nRAM (YAFFS2's allocations through the OS glue, %u-bit host; struct yaffs_dev, %zu "
           "bytes, not included):\n",
           (unsigned)(sizeof(void *) * 8), sizeof(struct yaffs_dev));
    printf("  that state: %.1f KB now, %.1f KB peak\n", r->ram_state_now / 1000.0,
           r->ram_state_peak / 1000.0);
    printf("  one %llu-byte file: %.1f KB now, %.1f KB peak\n",
           (unsigned long long)r->ram_big_bytes, r->ram_big_now / 1000.0, r->ram_big_peak / 1000.0);
    if (r->ran_overwrite)
        printf("\nerase counts after the %u %% churn: min %u, max %u, mean %.2f, stddev %.2f\n",
               r->ow[FILLS - 1].fill_percent, r->erase_min, r->erase_max, r->erase_mean,
               r->erase_stddev);
}

static void json_ops(const char *key, const struct nk_fs_bench_ops *o)
{
    nk_fs_bench_json_ops(stdout, key, o);
}

static void print_json(const struct result *r)
{
    printf("{\n  \"tool\": \"bench_yaffs2\",\n  \"benchmark\": \"fs\",\n  \"fs\": \"YAFFS2 "
           "Direct\",\n  \"chip\": \"%s\",\n  \"small\": %s,\n  \"seed\": %llu,\n",
           r->chip, r->small ? "true" : "false", (unsigned long long)r->seed);
    printf("  \"geometry\": {\"page_size\": %u, \"chunk_bytes\": %u, \"pages_per_block\": %u, "
           "\"blocks\": %u},\n",
           r->page, r->page, r->ppb, r->blocks);
    printf("  \"config\": {\"tags\": \"packed tags2 in OOB, linux layout\", \"caches\": 10, "
           "\"reserved_blocks\": 5, \"summaries\": true, \"checkpoint\": true},\n");
    printf("  \"time\": \"virtual device time; host CPU excluded\",\n");
    printf("  \"raw\": {\"program_us\": %.3f, \"read_us\": %.3f, \"write_kBps\": %.1f, "
           "\"read_kBps\": %.1f},\n",
           r->raw_program_us, r->raw_read_us, r->raw_write_kBps, r->raw_read_kBps);
    printf("  \"sequential\": [");
    for (unsigned i = 0; i < IO_SIZES; i++) {
        const struct seq *s = &r->seq[i];
        printf("%s\n    {\"io_size\": %u, \"bytes\": %llu, \"chunks\": %llu, \"write_kBps\": "
               "%.1f, \"read_kBps\": %.1f, \"programs_per_chunk\": %.4f, \"reads_per_chunk\": "
               "%.4f, \"read_back_equal\": %s, ",
               i ? "," : "", s->io_size, (unsigned long long)s->bytes,
               (unsigned long long)s->chunks, s->write_kBps, s->read_kBps, s->programs_per_chunk,
               s->reads_per_chunk, s->read_back ? "true" : "false");
        json_ops("write", &s->write);
        printf(", ");
        json_ops("read", &s->read);
        printf("}");
    }
    printf("\n  ],\n");
    printf("  \"small_files\": {\"files\": %u, \"file_bytes\": %u, \"programs_per_file\": %.3f, "
           "\"page_reads_per_file\": %.3f, \"us_per_file\": %.1f, \"kBps\": %.1f, "
           "\"read_back_equal\": %s, ",
           r->files, r->file_bytes, r->small_programs, r->small_reads, r->small_us, r->small_kBps,
           r->small_read_back ? "true" : "false");
    json_ops("ops", &r->small_ops);
    printf("},\n  \"overwrite\": [");
    for (unsigned i = 0; r->ran_overwrite && i < FILLS; i++) {
        const struct overwrite *o = &r->ow[i];
        printf("%s\n    {\"fill_percent\": %u, \"file_bytes\": %llu, \"overwrites\": %llu, "
               "\"user_chunks\": %llu, \"write_amplification\": %.3f, \"kBps\": %.1f, "
               "\"gc_copies\": %llu, \"gc_blocks\": %llu, ",
               i ? "," : "", o->fill_percent, (unsigned long long)o->file_bytes,
               (unsigned long long)o->overwrites, (unsigned long long)o->user_chunks, o->wa,
               o->kBps, (unsigned long long)o->gc_copies, (unsigned long long)o->gc_blocks);
        json_ops("ops", &o->ops);
        printf("}");
    }
    printf("\n  ],\n  \"mount\": {\"files\": %u, \"big_bytes\": %llu, \"clean_ms\": %.3f, "
           "\"crash_ms\": %.3f, \"read_back_equal\": %s, ",
           r->files, (unsigned long long)r->mount_big_bytes, nk_fs_bench_ms(r->mount_clean.time_ns),
           nk_fs_bench_ms(r->mount_crash.time_ns), r->mount_read_back ? "true" : "false");
    json_ops("clean", &r->mount_clean);
    printf(", ");
    json_ops("crash", &r->mount_crash);
    printf("},\n");
    printf("  \"ram\": {\"host_bits\": %u, \"what\": \"YAFFS2's allocations, struct yaffs_dev "
           "not included\", \"yaffs_dev_bytes\": %zu, \"state_now\": %llu, \"state_peak\": %llu, "
           "\"big_file_bytes\": %llu, \"big_now\": %llu, \"big_peak\": %llu}",
           (unsigned)(sizeof(void *) * 8), sizeof(struct yaffs_dev),
           (unsigned long long)r->ram_state_now, (unsigned long long)r->ram_state_peak,
           (unsigned long long)r->ram_big_bytes, (unsigned long long)r->ram_big_now,
           (unsigned long long)r->ram_big_peak);
    if (r->ran_overwrite)
        printf(",\n  \"erase_counts\": {\"after_fill_percent\": %u, \"min\": %u, \"max\": %u, "
               "\"mean\": %.3f, \"stddev\": %.3f}",
               r->ow[FILLS - 1].fill_percent, r->erase_min, r->erase_max, r->erase_mean,
               r->erase_stddev);
    printf("\n}\n");
}

/* What the counts must be whatever the timing: every file read back equal,
 * and no more programs than one per chunk plus YAFFS2's own headers and
 * summaries (a 16 MiB file fills 130 blocks: one summary each, and an
 * object header per close) - nor fewer than one per chunk. */
static void run_checks(const struct result *r)
{
    char what[160];
    for (unsigned i = 0; i < IO_SIZES; i++) {
        const struct seq *s = &r->seq[i];
        snprintf(what, sizeof what, "sequential %u-byte writes: the file reads back equal",
                 s->io_size);
        check(s->read_back, what);
        snprintf(what, sizeof what,
                 "sequential %u-byte writes: %.4f programs per chunk, not within 1 .. 1.1",
                 s->io_size, s->programs_per_chunk);
        check(s->programs_per_chunk >= 1.0 && s->programs_per_chunk <= 1.1, what);
        snprintf(what, sizeof what, "sequential %u-byte reads: %.4f page reads per chunk < 1",
                 s->io_size, s->reads_per_chunk);
        check(s->reads_per_chunk >= 1.0, what);
    }
    check(r->small_read_back, "small files: every file reads back equal");
    snprintf(what, sizeof what, "small files: %.2f programs per file, not within 1 .. 8",
             r->small_programs);
    check(r->small_programs >= 1.0 && r->small_programs <= 8.0, what);
    check(r->mount_read_back, "mount: every file reads back equal after both mounts");
    check(r->mount_crash.time_ns > 0 && r->mount_clean.time_ns > 0,
          "mount: both mounts read the flash");
    for (unsigned i = 0; r->ran_overwrite && i < FILLS; i++) {
        snprintf(what, sizeof what, "overwrite at %u %%: write amplification %.3f below 1",
                 r->ow[i].fill_percent, r->ow[i].wa);
        check(r->ow[i].wa >= 1.0, what);
    }
    check(refused == 0, "no operation refused by the device");
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_yaffs2 [--chip NAME] [--small] [--seed N] [--no-overwrite] [--json] "
            "[--check]\n"
            "YAFFS2 Direct on the simulated chip (default K9F1G08U0A) through the workloads of\n"
            "`nandkit bench --fs`; virtual device time, host CPU excluded (docs/bench.md).\n"
            "  --chip NAME     simulator preset (default K9F1G08U0A)\n"
            "  --seed N        seed of the test data and overwrite offsets (default 1)\n"
            "  --json          the figures as JSON instead of a table\n"
            "  --small         reduced sizes (128 blocks, 1 MiB, 100 files): not comparable\n"
            "  --no-overwrite  leave out the random-overwrite runs (the longest)\n"
            "  --check         exit 1 unless every file reads back equal and the operation\n"
            "                  counts are within what the chip can do (never the timing)\n");
}

int main(int argc, char **argv)
{
    struct result r;
    memset(&r, 0, sizeof r);
    r.chip = "K9F1G08U0A";
    r.seed = 1;
    int json = 0, overwrite = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--small")) {
            r.small = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--check")) {
            do_checks = 1;
        } else if (!strcmp(a, "--no-overwrite")) {
            overwrite = 0;
        } else if (!strcmp(a, "--chip") && i + 1 < argc) {
            r.chip = argv[++i];
        } else if (!strcmp(a, "--seed") && i + 1 < argc) {
            char *end;
            r.seed = strtoull(argv[++i], &end, 0);
            if (*end || !*argv[i]) {
                fprintf(stderr, "bench_yaffs2: --seed '%s' is not a number\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "bench_yaffs2: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    uint8_t *data = malloc(2u << 20);
    if (!data)
        return 1;
    nk_fs_bench_fill(data, 2u << 20, r.seed);
    int err = bench_raw(&r, data);
    if (!err)
        err = bench_seq(&r, data);
    if (!err)
        err = bench_small(&r, data);
    if (!err && overwrite)
        err = bench_overwrite(&r, data);
    if (!err)
        err = bench_mount(&r, data);
    if (!err)
        err = bench_ram_big(&r, data);
    free(data);
    if (err) {
        fprintf(stderr, "bench_yaffs2: a workload failed (above)\n");
        return 1;
    }
    if (json)
        print_json(&r);
    else
        print_table(&r);
    fflush(stdout);
    if (do_checks) {
        run_checks(&r);
        if (checks_failed)
            return 1;
        fprintf(stderr, "bench_yaffs2: checks passed\n");
    }
    return 0;
}
