/* SPDX-License-Identifier: MIT */
/*
 * Sequential figures: the multi-page paths measured in virtual device time
 * (the simulator's clock; ECC none, data and the whole OOB moved, so the
 * figures compare with limits over the same bytes; library CPU time is not
 * included). Limits, with b = page + OOB bytes, c = command and address
 * cycles of the operation:
 *   single-page read     tR + (c + b) tRC           (the eCos library's)
 *   single-page program  (c + b) tWC + tPROG
 *   cache program        max(tPROG, (c + b) tWC) + tCBSY
 *   read cache           max(tR, tWC + b tRC) + tRCBSY
 *   copy-back move       tR + (c + b) tRC + c tWC + tPROG (read out for ECC)
 *   read + program move  single-page read + single-page program
 *   two chips, read      max(c tWC + b tRC, (tR + c tWC + b tRC) / 2): the bus
 *   two chips, program   max((c + b) tWC, ((c + b) tWC + tPROG) / 2)
 *   copy-back, new OOB   tR + (c + b) tRC + (c + oob) tWC + tPROG
 * The file-system rows write a 1 MiB file by 64 KiB writes on a fresh
 * file system (Linux layout: Hamming ECC and tags in the OOB) and read it
 * back by 64 KiB reads, per data page, block erases and summary pages
 * included; on one chip and on two striped chips on one bus, the same
 * bytes of flash.
 */
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"
#include "seqbench.h"

struct nk_seq_chip {
    struct nk_sim *sim;
    struct nk_nand nand;
    void *ws;
};

static int nk_seq_open(struct nk_seq_chip *c, const char *preset, uint64_t seed,
                       const struct nk_ctrl *ctrl, unsigned chip_select, struct nk_diag *why)
{
    struct nk_nand_config nc;
    struct nk_ecc_engine ecc;
    nk_ecc_none_init(&ecc);
    memset(&nc, 0, sizeof nc);
    nc.ctrl = ctrl ? ctrl : nk_sim_ctrl(c->sim);
    nc.chip_select = chip_select;
    nc.chip = &nk_sim_params(c->sim)->chip;
    nc.ecc = &ecc;
    nc.workspace_size = nk_nand_workspace_size(nc.chip);
    c->ws = malloc(nc.workspace_size);
    nc.workspace = c->ws;
    if (!c->ws) {
        snprintf(why->text, sizeof why->text, "out of memory");
        return -NK_ENOMEM;
    }
    (void)preset;
    (void)seed;
    int err = nk_nand_open(&c->nand, &nc);
    if (err)
        snprintf(why->text, sizeof why->text, "%s", c->nand.diag.text);
    return err;
}

static int nk_seq_sim(struct nk_seq_chip *c, const char *preset, uint64_t seed, struct nk_diag *why)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = preset;
    config.seed = seed;
    config.factory_bad_blocks = 0;
    return nk_sim_open(&c->sim, &config, why);
}

static void nk_seq_close(struct nk_seq_chip *c)
{
    free(c->ws);
    nk_sim_close(c->sim);
}

static void nk_seq_fill(uint8_t *buf, size_t len, uint64_t seed)
{
    uint64_t x = seed | 1u;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
}

static void nk_seq_add(struct nk_seq_result *r, const char *config, const char *op,
                       const char *method, double measured, double single, double pipelined)
{
    if (r->count >= NK_SEQ_MAX_ROWS)
        return;
    struct nk_seq_row *row = &r->rows[r->count++];
    snprintf(row->config, sizeof row->config, "%s", config);
    snprintf(row->op, sizeof row->op, "%s", op);
    snprintf(row->method, sizeof row->method, "%s", method);
    row->measured_us = measured;
    row->single_us = single;
    row->pipelined_us = pipelined;
}

struct nk_seq_limits {
    double read_cycles, program_cycles, bytes, rc, wc, tR, tPROG, tCBSY, tRCBSY;
    double single_read, single_program;
};

static void nk_seq_limits(const struct nk_chip_info *info, struct nk_seq_limits *l)
{
    const struct nk_chip_timing *t = &info->timing;
    bool small = (info->features & NK_CHIP_SMALL_PAGE) != 0;
    unsigned addr = info->col_cycles + info->row_cycles;
    l->read_cycles = (small ? 1u : 2u) + addr;
    l->program_cycles = (small ? 3u : 2u) + addr;
    l->bytes = info->page_size + info->oob_size;
    l->rc = t->tRC_ns / 1e3;
    l->wc = t->tWC_ns / 1e3;
    l->tR = t->tR_ns / 1e3;
    l->tPROG = t->tPROG_ns / 1e3;
    l->tCBSY = t->tCBSY_ns / 1e3;
    l->tRCBSY = t->tRCBSY_ns / 1e3;
    l->single_read = l->tR + (l->read_cycles + l->bytes) * l->rc;
    l->single_program = (l->program_cycles + l->bytes) * l->wc + l->tPROG;
}

static double nk_max(double a, double b)
{
    return a > b ? a : b;
}

/* One chip: sequential program and read of one block, page moves. */
static int nk_seq_one_chip(const char *preset, uint64_t seed, struct nk_seq_result *r,
                           uint8_t *data, uint8_t *oob, uint8_t *back, uint8_t *back_oob,
                           struct nk_diag *why)
{
    struct nk_seq_chip c;
    memset(&c, 0, sizeof c);
    int err = nk_seq_sim(&c, preset, seed, why);
    if (!err)
        err = nk_seq_open(&c, preset, seed, NULL, 0, why);
    if (err) {
        if (c.sim)
            nk_seq_close(&c);
        return err;
    }
    const struct nk_chip_info *info = &c.nand.chip.info;
    struct nk_seq_limits l;
    nk_seq_limits(info, &l);
    uint32_t ppb = info->pages_per_block;
    unsigned planes = info->planes ? info->planes : 1u;
    uint32_t src = 2, dst = 2 + planes; /* same plane: copy-back allowed */
    const char *config = "1 chip";
    bool cache_prog =
        (info->features & NK_CHIP_CACHE_PROGRAM) && !(info->features & NK_CHIP_SMALL_PAGE);
    bool cache_read =
        (info->features & NK_CHIP_CACHE_READ) && !(info->features & NK_CHIP_SMALL_PAGE);

    uint64_t t0 = nk_sim_time_ns(c.sim);
    err = nk_nand_erase_block(&c.nand, src);
    uint64_t t1 = nk_sim_time_ns(c.sim);
    if (!err)
        err = nk_nand_program_pages(&c.nand, src * ppb, ppb, data, oob, NK_OOB_PLACE);
    uint64_t t2 = nk_sim_time_ns(c.sim);
    (void)t0;
    if (!err)
        nk_seq_add(r, config, "program", cache_prog ? "cache program" : "page at a time",
                   (double)(t2 - t1) / 1e3 / ppb, l.single_program,
                   cache_prog ? nk_max(l.tPROG, (l.program_cycles + l.bytes) * l.wc) + l.tCBSY : 0);
    int rr = err ? err : nk_nand_read_pages(&c.nand, src * ppb, ppb, back, back_oob, NK_OOB_PLACE);
    uint64_t t3 = nk_sim_time_ns(c.sim);
    if (rr < 0 && !err)
        err = rr;
    if (!err && (memcmp(back, data, (size_t)ppb * info->page_size) != 0 ||
                 memcmp(back_oob, oob, (size_t)ppb * info->oob_size) != 0)) {
        snprintf(why->text, sizeof why->text,
                 "%s: sequential read-back differs from what was written", preset);
        err = -NK_EIO;
    }
    if (!err)
        nk_seq_add(r, config, "read", cache_read ? "read cache" : "page at a time",
                   (double)(t3 - t2) / 1e3 / ppb, l.single_read,
                   cache_read ? nk_max(l.tR, l.wc + l.bytes * l.rc) + l.tRCBSY : 0);

    /* Page moves: copy-back (where the chip has it) and read + program. */
    if (!err)
        err = nk_nand_erase_block(&c.nand, dst);
    bool copyback = !err && nk_nand_can_copyback(&c.nand, src * ppb, dst * ppb);
    uint64_t t4 = nk_sim_time_ns(c.sim);
    for (uint32_t i = 0; i < ppb && !err && copyback; i++) {
        int m = nk_nand_move_page(&c.nand, src * ppb + i, dst * ppb + i);
        if (m < 0)
            err = m;
    }
    uint64_t t5 = nk_sim_time_ns(c.sim);
    if (!err && copyback)
        nk_seq_add(r, config, "page move", "copy-back + read-out", (double)(t5 - t4) / 1e3 / ppb,
                   l.single_read + l.single_program,
                   l.tR + (l.read_cycles + l.bytes) * l.rc + l.program_cycles * l.wc + l.tPROG);
    /* The file system's move: copy-back with new OOB bytes (its tags carry
     * the destination block's sequence number). */
    if (!err && copyback)
        err = nk_nand_erase_block(&c.nand, dst);
    uint64_t t4b = nk_sim_time_ns(c.sim);
    for (uint32_t i = 0; i < ppb && !err && copyback; i++) {
        int m = nk_nand_copyback_load(&c.nand, src * ppb + i, back, back_oob, NK_OOB_PLACE);
        back_oob[info->bbm_offset + 2] ^= 0x5a; /* a new tag byte */
        if (m >= 0)
            m = nk_nand_copyback_program(&c.nand, src * ppb + i, dst * ppb + i, back, back_oob,
                                         NK_OOB_PLACE, m > 0);
        if (m < 0)
            err = m;
    }
    uint64_t t5b = nk_sim_time_ns(c.sim);
    if (!err && copyback)
        nk_seq_add(r, config, "page move", "copy-back, new OOB", (double)(t5b - t4b) / 1e3 / ppb,
                   l.single_read + l.single_program,
                   l.tR + (l.read_cycles + l.bytes) * l.rc +
                       (l.program_cycles + info->oob_size) * l.wc + l.tPROG);
    if (!err)
        err = nk_nand_erase_block(&c.nand, dst);
    uint64_t t6 = nk_sim_time_ns(c.sim);
    for (uint32_t i = 0; i < ppb && !err; i++) {
        int m = nk_nand_read_page(&c.nand, src * ppb + i, back, back_oob, NK_OOB_PLACE);
        if (m < 0)
            err = m;
        else
            err = nk_nand_program_page(&c.nand, dst * ppb + i, back, back_oob, NK_OOB_PLACE);
    }
    uint64_t t7 = nk_sim_time_ns(c.sim);
    if (!err)
        nk_seq_add(r, config, "page move", "read + program", (double)(t7 - t6) / 1e3 / ppb,
                   l.single_read + l.single_program, 0);
    if (err && !why->text[0])
        snprintf(why->text, sizeof why->text, "%.24s: %.120s", preset,
                 c.nand.diag.text[0] ? c.nand.diag.text : nk_strerror(err));
    nk_seq_close(&c);
    return err;
}

/* Two chips on one bus, striped: interleaved program and read. */
static int nk_seq_two_chips(const char *preset, uint64_t seed, struct nk_seq_result *r,
                            uint8_t *data, uint8_t *oob, uint8_t *back, uint8_t *back_oob,
                            struct nk_diag *why)
{
    struct nk_seq_chip c[2];
    memset(c, 0, sizeof c);
    struct nk_sim_bus *bus = NULL;
    int err = nk_seq_sim(&c[0], preset, seed, why);
    if (!err)
        err = nk_seq_sim(&c[1], preset, seed + 1, why);
    if (!err) {
        struct nk_sim *sims[2] = {c[0].sim, c[1].sim};
        err = nk_sim_bus_open(&bus, sims, 2, 0);
    }
    for (unsigned i = 0; i < 2 && !err; i++)
        err = nk_seq_open(&c[i], preset, seed, nk_sim_bus_ctrl(bus), i, why);
    struct nk_part part;
    struct nk_nand *chips[2] = {&c[0].nand, &c[1].nand};
    if (!err)
        err = nk_part_init_chips(&part, chips, 2, NK_PART_STRIPE, "seq", 0, 0, 0);
    if (!err) {
        const struct nk_chip_info *info = &c[0].nand.chip.info;
        struct nk_seq_limits l;
        nk_seq_limits(info, &l);
        uint32_t block = 2, pages = nk_part_pages_per_block(&part);
        bool overlap = part.chips.overlap;
        const char *method = overlap ? "interleaved" : "chip after chip";
        err = nk_part_erase_block(&part, block);
        uint64_t t1 = nk_sim_bus_time_ns(bus);
        if (!err)
            err = nk_part_program_pages(&part, block * pages, pages, data, oob, NK_OOB_PLACE);
        uint64_t t2 = nk_sim_bus_time_ns(bus);
        double program_xfer = (l.program_cycles + l.bytes) * l.wc;
        if (!err)
            nk_seq_add(r, "2 chips", "program", method, (double)(t2 - t1) / 1e3 / pages,
                       l.single_program,
                       overlap ? nk_max(program_xfer, (program_xfer + l.tPROG) / 2) : 0);
        int rr =
            err ? err
                : nk_part_read_pages(&part, block * pages, pages, back, back_oob, NK_OOB_PLACE);
        uint64_t t3 = nk_sim_bus_time_ns(bus);
        if (rr < 0 && !err)
            err = rr;
        if (!err && (memcmp(back, data, (size_t)pages * info->page_size) != 0 ||
                     memcmp(back_oob, oob, (size_t)pages * info->oob_size) != 0)) {
            snprintf(why->text, sizeof why->text,
                     "%s: striped read-back differs from what was written", preset);
            err = -NK_EIO;
        }
        double read_bus = l.read_cycles * l.wc + l.bytes * l.rc;
        if (!err)
            nk_seq_add(r, "2 chips", "read", method, (double)(t3 - t2) / 1e3 / pages, l.single_read,
                       overlap ? nk_max(read_bus, (l.tR + read_bus) / 2) : 0);
        if (err && !why->text[0])
            snprintf(why->text, sizeof why->text, "%.24s: %.120s", preset,
                     nk_part_diag(&part)->text[0] ? nk_part_diag(&part)->text : nk_strerror(err));
    }
    nk_sim_bus_close(bus);
    for (unsigned i = 0; i < 2; i++)
        if (c[i].sim)
            nk_seq_close(&c[i]);
    return err;
}

/* ----- the file system's sequential figures ---------------------------------------- */

#define NK_SEQ_FS_FILE (1u << 20)
#define NK_SEQ_FS_IO (64u << 10)
#define NK_SEQ_FS_CHIP_BLOCKS 32u

static void *nk_seq_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void nk_seq_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

/* Writes and reads the file on `part`; the times through *_ns. */
static int nk_seq_fs_run(struct nk_part *part, struct nk_sim_bus *bus, const uint8_t *data,
                         uint8_t *back, uint64_t *write_ns, uint64_t *read_ns, struct nk_diag *why)
{
    struct nk_fs_config config;
    memset(&config, 0, sizeof config);
    config.part = part;
    config.allocator.alloc = nk_seq_alloc;
    config.allocator.free = nk_seq_free;
    nk_fs_config_layout(&config, NK_FS_LAYOUT_LINUX);
    struct nk_fs *fs = calloc(1, sizeof *fs);
    if (!fs) {
        snprintf(why->text, sizeof why->text, "out of memory");
        return -NK_ENOMEM;
    }
    int err = nk_fs_format(&config, NK_FS_LAYOUT_LINUX);
    if (!err)
        err = nk_fs_mount(fs, &config);
    if (err) {
        snprintf(why->text, sizeof why->text, "file system: %s", nk_strerror(err));
        free(fs);
        return err;
    }
    struct nk_fs_file f;
    uint64_t t0 = nk_sim_bus_time_ns(bus);
    err = nk_fs_file_open(fs, &f, "/seq", NK_FS_O_WRONLY | NK_FS_O_CREAT);
    for (uint32_t done = 0; !err && done < NK_SEQ_FS_FILE; done += NK_SEQ_FS_IO)
        if (nk_fs_file_write(&f, data + done, NK_SEQ_FS_IO) != (int32_t)NK_SEQ_FS_IO)
            err = -NK_EIO;
    if (!err)
        err = nk_fs_file_close(&f);
    uint64_t t1 = nk_sim_bus_time_ns(bus);
    if (!err)
        err = nk_fs_file_open(fs, &f, "/seq", NK_FS_O_RDONLY);
    for (uint32_t done = 0; !err && done < NK_SEQ_FS_FILE; done += NK_SEQ_FS_IO)
        if (nk_fs_file_read(&f, back + done, NK_SEQ_FS_IO) != (int32_t)NK_SEQ_FS_IO)
            err = -NK_EIO;
    if (!err)
        err = nk_fs_file_close(&f);
    uint64_t t2 = nk_sim_bus_time_ns(bus);
    if (!err && memcmp(back, data, NK_SEQ_FS_FILE) != 0)
        err = -NK_EIO;
    if (err)
        snprintf(why->text, sizeof why->text, "file system: %.120s",
                 fs->diag.text[0] ? fs->diag.text : nk_strerror(err));
    (void)nk_fs_unmount(fs);
    free(fs);
    *write_ns = t1 - t0;
    *read_ns = t2 - t1;
    return err;
}

/* The file system on one chip and on two striped chips of `preset`. The
 * rows are left out (0 returned) on small-page parts (16 OOB bytes cannot
 * hold YAFFS2's packed tags2 beside the ECC) and where the Linux layout
 * does not fit the geometry. */
static int nk_seq_fs(const char *preset, uint64_t seed, struct nk_seq_result *r,
                     struct nk_diag *why)
{
    struct nk_sim_params params;
    int err = nk_sim_preset(preset, &params);
    if (err)
        return 0;
    const struct nk_chip_info *info = &params.chip;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout layout;
    if ((info->features & NK_CHIP_SMALL_PAGE) ||
        nk_fs_layout_device(NK_FS_LAYOUT_LINUX, info->page_size, info->oob_size, &ecc, &layout))
        return 0;
    struct nk_seq_limits l;
    nk_seq_limits(info, &l);
    uint8_t *data = malloc(NK_SEQ_FS_FILE), *back = malloc(NK_SEQ_FS_FILE);
    if (!data || !back) {
        free(data);
        free(back);
        snprintf(why->text, sizeof why->text, "out of memory");
        return -NK_ENOMEM;
    }
    nk_seq_fill(data, NK_SEQ_FS_FILE, seed + 3);
    const double pages = (double)NK_SEQ_FS_FILE / info->page_size;
    bool small = (info->features & NK_CHIP_SMALL_PAGE) != 0;
    bool cache_prog = !small && (info->features & NK_CHIP_CACHE_PROGRAM);
    bool cache_read = !small && (info->features & NK_CHIP_CACHE_READ);
    for (unsigned chips = 1; chips <= 2 && !err; chips++) {
        struct nk_sim *sims[2] = {NULL, NULL};
        struct nk_sim_bus *bus = NULL;
        struct nk_nand nand[2];
        void *ws[2] = {NULL, NULL};
        struct nk_part part;
        memset(nand, 0, sizeof nand);
        for (unsigned c = 0; c < chips && !err; c++) {
            struct nk_sim_config sc;
            memset(&sc, 0, sizeof sc);
            sc.params = &params;
            sc.seed = seed + c;
            sc.no_sidecar = true;
            err = nk_sim_open(&sims[c], &sc, why);
        }
        if (!err)
            err = nk_sim_bus_open(&bus, sims, chips, 0);
        for (unsigned c = 0; c < chips && !err; c++) {
            struct nk_nand_config nc;
            memset(&nc, 0, sizeof nc);
            nc.ctrl = nk_sim_bus_ctrl(bus);
            nc.chip_select = c;
            nc.chip = info;
            nc.ecc = &ecc;
            nc.layout = &layout;
            nc.force_ecc = true; /* the layout's ECC, whatever the part asks: time is the subject */
            nc.workspace_size = nk_nand_workspace_size(info);
            ws[c] = malloc(nc.workspace_size);
            nc.workspace = ws[c];
            err = ws[c] ? nk_nand_open(&nand[c], &nc) : -NK_ENOMEM;
            if (err)
                snprintf(why->text, sizeof why->text, "%s", nand[c].diag.text);
        }
        if (!err && chips == 1) {
            err = nk_part_init(&part, &nand[0], "seq", 0, NK_SEQ_FS_CHIP_BLOCKS, 0);
        } else if (!err) {
            struct nk_nand *devs[2] = {&nand[0], &nand[1]};
            err = nk_part_init_chips(&part, devs, 2, NK_PART_STRIPE, "seq", 0,
                                     NK_SEQ_FS_CHIP_BLOCKS / 2, 0);
        }
        uint64_t write_ns = 0, read_ns = 0;
        if (!err)
            err = nk_seq_fs_run(&part, bus, data, back, &write_ns, &read_ns, why);
        if (!err) {
            const char *config = chips == 1 ? "1 chip" : "2 chips";
            bool overlap = chips == 2 && part.chips.overlap;
            double program_xfer = (l.program_cycles + l.bytes) * l.wc;
            double read_bus = l.read_cycles * l.wc + l.bytes * l.rc;
            double program_limit = overlap ? nk_max(program_xfer, (program_xfer + l.tPROG) / 2)
                                   : cache_prog && chips == 1
                                       ? nk_max(l.tPROG, program_xfer) + l.tCBSY
                                       : 0;
            double read_limit = overlap ? nk_max(read_bus, (l.tR + read_bus) / 2)
                                : cache_read && chips == 1
                                    ? nk_max(l.tR, l.wc + l.bytes * l.rc) + l.tRCBSY
                                    : 0;
            nk_seq_add(r, config, "fs write", "64 KiB writes", (double)write_ns / 1e3 / pages,
                       l.single_program, program_limit);
            nk_seq_add(r, config, "fs read", "64 KiB reads", (double)read_ns / 1e3 / pages,
                       l.single_read, read_limit);
        }
        if (err && !why->text[0])
            snprintf(why->text, sizeof why->text, "%.24s: %s", preset, nk_strerror(err));
        nk_sim_bus_close(bus);
        for (unsigned c = 0; c < chips; c++) {
            free(ws[c]);
            if (sims[c])
                nk_sim_close(sims[c]);
        }
    }
    free(data);
    free(back);
    return err;
}

int nk_seq_bench_run(const char *preset, uint64_t seed, struct nk_seq_result *result,
                     struct nk_diag *why)
{
    memset(result, 0, sizeof *result);
    why->text[0] = '\0';
    struct nk_sim_params params;
    int err = nk_sim_preset(preset, &params);
    if (err) {
        snprintf(why->text, sizeof why->text, "unknown preset '%s'", preset);
        return err;
    }
    const struct nk_chip_info *info = &params.chip;
    snprintf(result->chip, sizeof result->chip, "%s", info->model);
    bool small = (info->features & NK_CHIP_SMALL_PAGE) != 0;
    snprintf(result->commands, sizeof result->commands, "%s%s%s%s",
             !small && (info->features & NK_CHIP_CACHE_PROGRAM) ? "80h..15h" : "",
             !small && (info->features & NK_CHIP_CACHE_READ) ? " 31h/3Fh" : "",
             !small && (info->features & NK_CHIP_COPYBACK) ? " 00h..35h+85h..10h" : "",
             small ? "none (small page)" : "");
    /* Two blocks of the striped device: 2 * pages_per_block pages. */
    size_t pages = 2u * info->pages_per_block;
    uint8_t *data = malloc(pages * info->page_size), *oob = malloc(pages * info->oob_size);
    uint8_t *back = malloc(pages * info->page_size), *back_oob = malloc(pages * info->oob_size);
    if (!data || !oob || !back || !back_oob) {
        snprintf(why->text, sizeof why->text, "out of memory");
        err = -NK_ENOMEM;
    } else {
        nk_seq_fill(data, pages * info->page_size, seed);
        nk_seq_fill(oob, pages * info->oob_size, seed + 7);
        for (size_t p = 0; p < pages; p++)
            oob[p * info->oob_size + info->bbm_offset] = 0xff; /* keep the block good */
        err = nk_seq_one_chip(preset, seed, result, data, oob, back, back_oob, why);
        if (!err)
            err = nk_seq_two_chips(preset, seed, result, data, oob, back, back_oob, why);
        if (!err)
            err = nk_seq_fs(preset, seed, result, why);
    }
    free(data);
    free(oob);
    free(back);
    free(back_oob);
    return err;
}

void nk_seq_bench_print(FILE *out, const struct nk_seq_result *results, unsigned count)
{
    fprintf(out, "sequential, per page (virtual device time; limits from the datasheet):\n");
    fprintf(out, "%-16s %-8s %-10s %-21s %10s %10s %8s %10s %8s\n", "chip", "config", "op",
            "method", "measured", "single", "x", "pipelined", "x");
    for (unsigned i = 0; i < count; i++) {
        const struct nk_seq_result *r = &results[i];
        for (unsigned j = 0; j < r->count; j++) {
            const struct nk_seq_row *row = &r->rows[j];
            fprintf(out, "%-16s %-8s %-10s %-21s %8.1fus %8.1fus %8.3f", j ? "" : r->chip,
                    row->config, row->op, row->method, row->measured_us, row->single_us,
                    row->measured_us / row->single_us);
            if (row->pipelined_us > 0)
                fprintf(out, " %8.1fus %8.3f\n", row->pipelined_us,
                        row->measured_us / row->pipelined_us);
            else
                fprintf(out, " %10s %8s\n", "-", "-");
        }
        fprintf(out, "%-16s pipelined commands: %s\n", "", r->commands);
    }
}

void nk_seq_bench_print_json(FILE *out, const struct nk_seq_result *results, unsigned count)
{
    fprintf(out,
            "{\"tool\":\"nandkit bench\",\"format\":%d,\"benchmark\":\"sequential\","
            "\"time\":\"virtual device time per page; host CPU excluded\",\"chips\":[",
            NK_BENCH_JSON_FORMAT);
    for (unsigned i = 0; i < count; i++) {
        const struct nk_seq_result *r = &results[i];
        fprintf(out, "%s{\"chip\":\"%s\",\"commands\":\"%s\",\"rows\":[", i ? "," : "", r->chip,
                r->commands);
        for (unsigned j = 0; j < r->count; j++) {
            const struct nk_seq_row *row = &r->rows[j];
            fprintf(out,
                    "%s{\"config\":\"%s\",\"op\":\"%s\",\"method\":\"%s\",\"measured_us\":%.2f,"
                    "\"single_us\":%.2f,\"pipelined_us\":",
                    j ? "," : "", row->config, row->op, row->method, row->measured_us,
                    row->single_us);
            if (row->pipelined_us > 0)
                fprintf(out, "%.2f}", row->pipelined_us);
            else
                fputs("null}", out);
        }
        fputs("]}", out);
    }
    fputs("]}\n", out);
}

int nk_seq_bench_report(FILE *out, const char *preset, uint64_t seed, bool json,
                        struct nk_diag *why)
{
    struct nk_seq_result *results = calloc(64, sizeof *results);
    if (!results) {
        snprintf(why->text, sizeof why->text, "out of memory");
        return -NK_ENOMEM;
    }
    unsigned count = 0;
    int err = 0;
    for (unsigned i = 0; !err && count < 64; i++) {
        const char *name = preset ? (i == 0 ? preset : NULL) : nk_sim_preset_name(i);
        if (!name)
            break;
        struct nk_sim_params part;
        if (!preset && nk_sim_preset(name, &part) == 0 && (part.chip.features & NK_CHIP_SPI_NAND))
            continue; /* page at a time on SPI-NAND, and the multi-target bus is parallel */
        err = nk_seq_bench_run(name, seed, &results[count], why);
        if (!err)
            count++;
    }
    if (!err && json)
        nk_seq_bench_print_json(out, results, count);
    else if (!err)
        nk_seq_bench_print(out, results, count);
    free(results);
    return err;
}
