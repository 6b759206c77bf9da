/* SPDX-License-Identifier: MIT */
/*
 * Page-level measurements through the public device API.
 *
 * On the simulator a figure is the virtual device time of the operation
 * (command/address/data cycles, array busy) plus the host time spent in the
 * library path: the whole call minus the time the simulator reports for its
 * own bookkeeping (chip model, physics, hardware ECC engine). The port's
 * data loops are board-glue code and count as library time. ECC CPU is
 * calibrated by running the engine alone over the same pages.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "nandkit/spinand.h"
#include "nkbench.h"

static const char *const nk_op_keys[NK_BENCH_OP_COUNT] = {
    "page_read",   "page_read_data", "page_read_oob", "page_program",
    "block_erase", "block_read",     "block_write",
};

static const char *const nk_op_labels[NK_BENCH_OP_COUNT] = {
    "page read (data+OOB)", "page read (data)", "page read (OOB)", "page program",
    "block erase",          "block read",       "block write",
};

const char *nk_bench_op_key(enum nk_bench_op op)
{
    return nk_op_keys[op];
}

const char *nk_bench_op_label(enum nk_bench_op op)
{
    return nk_op_labels[op];
}

bool nk_bench_limits(const struct nk_chip_info *info, double limits[NK_BENCH_OP_COUNT])
{
    const struct nk_chip_timing *t = &info->timing;
    if (!t->tR_ns || !t->tPROG_ns || !t->tBERS_ns || !t->tRC_ns || !t->tWC_ns)
        return false;
    bool small = (info->features & NK_CHIP_SMALL_PAGE) != 0;
    unsigned addr = info->col_cycles + info->row_cycles;
    unsigned read_cycles = (small ? 1u : 2u) + addr;    /* 00h [..30h] */
    unsigned program_cycles = (small ? 3u : 2u) + addr; /* [pointer] 80h .. 10h */
    unsigned erase_cycles = 2u + info->row_cycles;      /* 60h .. D0h */
    double rc = t->tRC_ns / 1e3, wc = t->tWC_ns / 1e3;
    limits[NK_BENCH_PAGE_READ] =
        t->tR_ns / 1e3 + (read_cycles + info->page_size + info->oob_size) * rc;
    limits[NK_BENCH_PAGE_READ_DATA] = t->tR_ns / 1e3 + (read_cycles + info->page_size) * rc;
    limits[NK_BENCH_PAGE_READ_OOB] = t->tR_ns / 1e3 + (read_cycles + info->oob_size) * rc;
    limits[NK_BENCH_PAGE_PROGRAM] =
        (program_cycles + info->page_size + info->oob_size) * wc + t->tPROG_ns / 1e3;
    limits[NK_BENCH_BLOCK_ERASE] = t->tBERS_ns / 1e3 + erase_cycles * wc;
    limits[NK_BENCH_BLOCK_READ] = info->pages_per_block * limits[NK_BENCH_PAGE_READ];
    limits[NK_BENCH_BLOCK_WRITE] =
        limits[NK_BENCH_BLOCK_ERASE] + info->pages_per_block * limits[NK_BENCH_PAGE_PROGRAM];
    return true;
}

/* A SPI-NAND part's limits (docs/bench.md): the array time plus the clocks of
 * the serial operations at `hz`, data on `read_width` / `write_width` lines:
 * read = tRD + (13h: 32 + READ FROM CACHE: 32 (x4 quad I/O: 12 + its 2 or 4 dummy
 * clocks) + bytes*8/width)
 * clocks; program = tPROG + (06h: 8 + load: 24 + bytes*8/width + 10h: 32);
 * erase = tBERS + (06h: 8 + D8h: 32). */
static void nk_bench_spi_limits(const struct nk_chip_info *info, unsigned read_width,
                                unsigned write_width, unsigned quad_io_dummy, double hz,
                                double limits[NK_BENCH_OP_COUNT])
{
    const struct nk_chip_timing *t = &info->timing;
    double us_per_clock = 1e6 / hz;
    double header = read_width == 4 && quad_io_dummy ? 12.0 + quad_io_dummy : 32.0;
    double page = info->page_size, oob = info->oob_size;
    double tR = t->tR_ns / 1e3, tPROG = t->tPROG_ns / 1e3;
    limits[NK_BENCH_PAGE_READ] = tR + (32 + header + (page + oob) * 8 / read_width) * us_per_clock;
    limits[NK_BENCH_PAGE_READ_DATA] = tR + (32 + header + page * 8 / read_width) * us_per_clock;
    limits[NK_BENCH_PAGE_READ_OOB] = tR + (32 + header + oob * 8 / read_width) * us_per_clock;
    limits[NK_BENCH_PAGE_PROGRAM] =
        tPROG + (8 + 24 + (page + oob) * 8 / write_width + 32) * us_per_clock;
    limits[NK_BENCH_BLOCK_ERASE] = t->tBERS_ns / 1e3 + (8 + 32) * us_per_clock;
    limits[NK_BENCH_BLOCK_READ] = info->pages_per_block * limits[NK_BENCH_PAGE_READ];
    limits[NK_BENCH_BLOCK_WRITE] =
        limits[NK_BENCH_BLOCK_ERASE] + info->pages_per_block * limits[NK_BENCH_PAGE_PROGRAM];
}

/* Continuous read of `pages` pages' data at `hz` on `width` lines (docs/bench.md):
 * tRD once, then 0Bh/3Bh/6Bh with 4 dummy bytes (40 clocks) and the data
 * areas back to back. */
static double nk_bench_continuous_limit(const struct nk_chip_info *info, uint32_t pages,
                                        unsigned width, double hz)
{
    return info->timing.tR_ns / 1e3 +
           (8.0 + 32.0 + (double)pages * info->page_size * 8.0 / width) * 1e6 / hz;
}

/* The limits of `chip` with `timing`: the serial ones for a SPI-NAND part at
 * its current widths and clock. */
static bool nk_bench_chip_limits(const struct nk_chip *chip, const struct nk_chip_info *timing,
                                 bool worst, double limits[NK_BENCH_OP_COUNT])
{
    const struct nk_spinand_part *part = nk_chip_spinand_part(chip);
    if (!nk_chip_is_serial(chip) || !part || !part->max_hz)
        return worst ? nk_bench_limits_max(timing, limits) : nk_bench_limits(timing, limits);
    struct nk_chip_info at = *timing;
    if (worst) {
        if (at.timing.tR_max_ns > at.timing.tR_ns)
            at.timing.tR_ns = at.timing.tR_max_ns;
        if (at.timing.tPROG_max_ns > at.timing.tPROG_ns)
            at.timing.tPROG_ns = at.timing.tPROG_max_ns;
        if (at.timing.tBERS_max_ns > at.timing.tBERS_ns)
            at.timing.tBERS_ns = at.timing.tBERS_max_ns;
    }
    nk_bench_spi_limits(&at, chip->spi.read_width ? chip->spi.read_width : 1,
                        chip->spi.write_width ? chip->spi.write_width : 1,
                        !(part->flags & NK_SPINAND_QUAD_IO)      ? 0u
                        : (part->flags & NK_SPINAND_EBH_DUMMY_1) ? 2u
                                                                 : 4u,
                        part->max_hz, limits);
    return true;
}

bool nk_bench_limits_max(const struct nk_chip_info *info, double limits[NK_BENCH_OP_COUNT])
{
    struct nk_chip_info worst = *info;
    struct nk_chip_timing *t = &worst.timing;
    if (t->tR_max_ns > t->tR_ns)
        t->tR_ns = t->tR_max_ns;
    if (t->tPROG_max_ns > t->tPROG_ns)
        t->tPROG_ns = t->tPROG_max_ns;
    if (t->tBERS_max_ns > t->tBERS_ns)
        t->tBERS_ns = t->tBERS_max_ns;
    return nk_bench_limits(&worst, limits);
}

bool nk_bench_differs(const struct nk_bench_stat *a, const struct nk_bench_stat *b)
{
    return fabs(a->median_us - b->median_us) > a->noise_us + b->noise_us;
}

/* ----- timing ------------------------------------------------------------------ */

static uint64_t nk_host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct nk_probe {
    uint64_t host;
    uint64_t clock_reads; /* the simulator's measurement clock reads */
    uint64_t sim_host;
    uint64_t virt;
    uint64_t busy;
    uint64_t bus;
};

struct nk_accum {
    unsigned n, cap;
    double *samples; /* each operation's time, us (cap entries) */
    double mean, m2, min, max;
    double array_sum, bus_sum, virt_sum;
};

struct nk_run {
    const struct nk_bench_config *config;
    struct nk_nand *nand;
    uint8_t *data; /* block of page data (ppb pages) */
    uint8_t *oob;  /* block of OOB */
    uint8_t *back; /* read buffer, one page */
    uint8_t *back_oob;
    uint8_t *back_block; /* a block of page data, for the sequential reads */
    uint32_t *blocks;    /* usable blocks */
    uint32_t block_count;
    uint64_t started;
    uint64_t last_progress;
    bool progress_shown;
    double clock_read_ns;
    struct nk_diag *why;
};

static void nk_probe_take(const struct nk_run *run, struct nk_probe *p, bool end)
{
    struct nk_sim_counters c;
    bool sim = run->config->clock == NK_BENCH_CLOCK_SIM;
    if (end)
        p->host = nk_host_ns();
    if (sim) {
        nk_sim_counters(run->config->sim, &c);
        p->sim_host = c.host_ns;
        p->clock_reads = c.clock_reads;
        p->busy = c.busy_wait_ns;
        p->bus = c.bus_ns + c.delay_ns;
        p->virt = nk_sim_time_ns(run->config->sim);
    } else {
        p->sim_host = p->busy = p->bus = p->virt = p->clock_reads = 0;
    }
    if (!end)
        p->host = nk_host_ns();
}

/* Host cost of one clock read (median), measured once per run: the
 * simulator's and the probe's own clock reads are measurement overhead. */
static double nk_clock_read_ns(void)
{
    enum { BATCHES = 9, READS = 2000 };
    double per[BATCHES];
    for (unsigned b = 0; b < BATCHES; b++) {
        uint64_t t0 = nk_host_ns();
        for (unsigned i = 0; i < READS; i++)
            (void)nk_host_ns();
        per[b] = (double)(nk_host_ns() - t0) / (READS + 1);
    }
    for (unsigned i = 1; i < BATCHES; i++) {
        for (unsigned j = i; j > 0 && per[j - 1] > per[j]; j--) {
            double t = per[j];
            per[j] = per[j - 1];
            per[j - 1] = t;
        }
    }
    return per[BATCHES / 2];
}

static void nk_accum_add(struct nk_accum *a, const struct nk_probe *p0, const struct nk_probe *p1,
                         enum nk_bench_clock clock, double clock_read_ns)
{
    double host = (double)(p1->host - p0->host);
    double total, cpu;
    if (clock == NK_BENCH_CLOCK_SIM) {
        double bookkeeping = (double)(p1->sim_host - p0->sim_host) +
                             (double)(p1->clock_reads - p0->clock_reads + 1) * clock_read_ns;
        /* Not clamped at zero: the subtraction is noisy both ways, and
         * clamping each sample would bias the median. */
        cpu = host - bookkeeping;
        total = (double)(p1->virt - p0->virt) + cpu;
        a->array_sum += (double)(p1->busy - p0->busy);
        a->virt_sum += (double)(p1->virt - p0->virt);
        a->bus_sum += (double)(p1->bus - p0->bus);
    } else {
        cpu = 0.0;
        total = host;
    }
    total /= 1e3;
    if (a->n < a->cap)
        a->samples[a->n] = total;
    a->n++;
    double delta = total - a->mean;
    a->mean += delta / a->n;
    a->m2 += delta * (total - a->mean);
    if (a->n == 1 || total < a->min)
        a->min = total;
    if (a->n == 1 || total > a->max)
        a->max = total;
}

static int nk_compare_doubles(const void *a, const void *b);

/* Quantile `q` (0..1) of the sorted `v` (n >= 1), interpolated between ranks. */
static double nk_quantile(const double *v, unsigned n, double q)
{
    double pos = q * (n - 1);
    unsigned lo = (unsigned)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

static void nk_accum_finish(struct nk_accum *a, struct nk_bench_stat *s, double ecc_cpu,
                            bool breakdown)
{
    s->count = a->n;
    s->avg_us = a->mean;
    s->min_us = a->min;
    s->max_us = a->max;
    s->stddev_us = a->n > 1 ? sqrt(a->m2 / (a->n - 1)) : 0.0;
    if (!a->n)
        return;
    unsigned n = a->n < a->cap ? a->n : a->cap;
    qsort(a->samples, n, sizeof a->samples[0], nk_compare_doubles);
    s->median_us = nk_quantile(a->samples, n, 0.5);
    s->p99_us = nk_quantile(a->samples, n, 0.99);
    s->noise_us = (nk_quantile(a->samples, n, 0.75) - nk_quantile(a->samples, n, 0.25)) / 2;
    if (!breakdown)
        return;
    /* No operation takes less than its device time: a quantile below it is
     * the noise of subtracting the simulator's bookkeeping, so it is raised. */
    double device = a->virt_sum / a->n / 1e3;
    s->median_us = fmax(s->median_us, device);
    s->p99_us = fmax(s->p99_us, device);
    s->min_us = fmax(s->min_us, device);
    s->array_us = a->array_sum / a->n / 1e3;
    s->bus_us = a->bus_sum / a->n / 1e3;
    /* The CPU share of the median: what the device time does not explain. */
    double cpu = s->median_us - s->array_us - s->bus_us;
    if (cpu < 0)
        cpu = 0;
    s->ecc_cpu_us = ecc_cpu < cpu ? ecc_cpu : cpu;
    s->other_cpu_us = cpu - s->ecc_cpu_us;
}

static void nk_progress(struct nk_run *run, const char *what, unsigned done, unsigned total)
{
    if (!run->config->progress)
        return;
    uint64_t now = nk_host_ns();
    if (now - run->started < 1000000000ull || now - run->last_progress < 100000000ull)
        return;
    run->last_progress = now;
    run->progress_shown = true;
    fprintf(stderr, "\rbench: %s%s%s %u/%u   ", run->config->label ? run->config->label : "",
            run->config->label ? ": " : "", what, done, total);
    fflush(stderr);
}

/* ----- the operations ------------------------------------------------------------ */

static int nk_fail(struct nk_run *run, int err, const char *what, uint32_t where)
{
    nk_format(run->why->text, sizeof run->why->text, "%s %u failed: %s%s%s", what, where,
              nk_strerror(err), run->nand->diag.text[0] ? " - " : "", run->nand->diag.text);
    return err;
}

static bool nk_read_ok(int r)
{
    return r >= 0;
}

/* Erases block `b` and programs every page with the prepared data. */
static int nk_fill_block(struct nk_run *run, uint32_t block)
{
    struct nk_nand *nand = run->nand;
    uint32_t ppb = nk_nand_pages_per_block(nand);
    int err = nk_nand_erase_block(nand, block);
    if (err)
        return nk_fail(run, err, "erase of block", block);
    for (uint32_t p = 0; p < ppb; p++) {
        err = nk_nand_program_page(
            nand, block * ppb + p, run->data + (size_t)p * nk_nand_page_size(nand),
            run->oob + (size_t)p * nk_nand_free_oob_bytes(nand), NK_OOB_AUTO);
        if (err)
            return nk_fail(run, err, "program of page", block * ppb + p);
    }
    return 0;
}

static int nk_bench_programs(struct nk_run *run, struct nk_accum *acc)
{
    struct nk_nand *nand = run->nand;
    uint32_t ppb = nk_nand_pages_per_block(nand), page_size = nk_nand_page_size(nand);
    unsigned count = run->config->count;
    for (unsigned i = 0; i < count; i++) {
        uint32_t slot = i % (run->block_count * ppb);
        uint32_t block = run->blocks[slot / ppb], p = slot % ppb;
        if (p == 0) {
            int err = nk_nand_erase_block(nand, block);
            if (err)
                return nk_fail(run, err, "erase of block", block);
        }
        struct nk_probe p0, p1;
        nk_probe_take(run, &p0, false);
        int err =
            nk_nand_program_page(nand, block * ppb + p, run->data + (size_t)p * page_size,
                                 run->oob + (size_t)p * nk_nand_free_oob_bytes(nand), NK_OOB_AUTO);
        nk_probe_take(run, &p1, true);
        if (err)
            return nk_fail(run, err, "program of page", block * ppb + p);
        nk_accum_add(acc, &p0, &p1, run->config->clock, run->clock_read_ns);
        nk_progress(run, "page program", i + 1, count);
    }
    return 0;
}

static int nk_bench_reads(struct nk_run *run, enum nk_bench_op op, struct nk_accum *acc)
{
    struct nk_nand *nand = run->nand;
    uint32_t ppb = nk_nand_pages_per_block(nand);
    unsigned count = run->config->count;
    for (unsigned i = 0; i < count; i++) {
        uint32_t page = run->blocks[0] * ppb + i % ppb;
        uint8_t *data = op == NK_BENCH_PAGE_READ_OOB ? NULL : run->back;
        uint8_t *oob = op == NK_BENCH_PAGE_READ_DATA ? NULL : run->back_oob;
        struct nk_probe p0, p1;
        nk_probe_take(run, &p0, false);
        int r = nk_nand_read_page(nand, page, data, oob, NK_OOB_PLACE);
        nk_probe_take(run, &p1, true);
        if (!nk_read_ok(r))
            return nk_fail(run, r, "read of page", page);
        nk_accum_add(acc, &p0, &p1, run->config->clock, run->clock_read_ns);
        nk_progress(run, nk_op_labels[op], i + 1, count);
    }
    return 0;
}

static int nk_bench_blocks(struct nk_run *run, struct nk_accum *erase, struct nk_accum *write,
                           struct nk_accum *read)
{
    struct nk_nand *nand = run->nand;
    uint32_t ppb = nk_nand_pages_per_block(nand), page_size = nk_nand_page_size(nand);
    unsigned count = run->config->block_count;
    for (unsigned i = 0; i < count; i++) {
        uint32_t block = run->blocks[i % run->block_count];
        struct nk_probe p0, p1;
        nk_probe_take(run, &p0, false);
        int err = nk_nand_erase_block(nand, block);
        nk_probe_take(run, &p1, true);
        if (err)
            return nk_fail(run, err, "erase of block", block);
        nk_accum_add(erase, &p0, &p1, run->config->clock, run->clock_read_ns);

        nk_probe_take(run, &p0, false);
        err = nk_nand_erase_block(nand, block);
        for (uint32_t p = 0; !err && p < ppb; p++)
            err = nk_nand_program_page(nand, block * ppb + p, run->data + (size_t)p * page_size,
                                       run->oob + (size_t)p * nk_nand_free_oob_bytes(nand),
                                       NK_OOB_AUTO);
        nk_probe_take(run, &p1, true);
        if (err)
            return nk_fail(run, err, "write of block", block);
        nk_accum_add(write, &p0, &p1, run->config->clock, run->clock_read_ns);

        nk_probe_take(run, &p0, false);
        for (uint32_t p = 0; !err && p < ppb; p++) {
            int r =
                nk_nand_read_page(nand, block * ppb + p, run->back, run->back_oob, NK_OOB_PLACE);
            if (!nk_read_ok(r))
                err = r;
        }
        nk_probe_take(run, &p1, true);
        if (err)
            return nk_fail(run, err, "read of block", block);
        nk_accum_add(read, &p0, &p1, run->config->clock, run->clock_read_ns);
        nk_progress(run, "block erase/write/read", i + 1, count);
    }
    return 0;
}

/* Whether the device reads sequential data through the part's continuous
 * read (nk_nand_read_pages: data only, the on-die ECC). */
static bool nk_bench_has_continuous(const struct nk_nand *nand)
{
    const struct nk_spinand_part *part = nk_chip_spinand_part(&nand->chip);
    return nk_chip_is_serial(&nand->chip) && part && (part->flags & NK_SPINAND_CONTINUOUS) &&
           nk_nand_ecc(nand)->placement == NK_ECC_PLACEMENT_ON_DIE;
}

/* One block's data (written by nk_bench_blocks) read page at a time, then
 * in one continuous stream, `count` times each; both must match. */
static int nk_bench_sequential(struct nk_run *run, struct nk_accum *paged,
                               struct nk_accum *continuous)
{
    struct nk_nand *nand = run->nand;
    uint32_t ppb = nk_nand_pages_per_block(nand), page_size = nk_nand_page_size(nand);
    unsigned count = run->config->block_count;
    for (unsigned i = 0; i < count; i++) {
        uint32_t block = run->blocks[i % run->block_count];
        struct nk_probe p0, p1;
        int err = 0;
        nk_probe_take(run, &p0, false);
        for (uint32_t p = 0; !err && p < ppb; p++) {
            int r = nk_nand_read_page(nand, block * ppb + p,
                                      run->back_block + (size_t)p * page_size, NULL, NK_OOB_PLACE);
            if (!nk_read_ok(r))
                err = r;
        }
        nk_probe_take(run, &p1, true);
        if (err)
            return nk_fail(run, err, "page-at-a-time read of block", block);
        nk_accum_add(paged, &p0, &p1, run->config->clock, run->clock_read_ns);
        if (memcmp(run->back_block, run->data, (size_t)ppb * page_size) != 0)
            return nk_fail(run, -NK_EIO, "page-at-a-time read back other data from block", block);

        memset(run->back_block, 0, (size_t)ppb * page_size);
        nk_probe_take(run, &p0, false);
        int r = nk_nand_read_pages(nand, block * ppb, ppb, run->back_block, NULL, NK_OOB_PLACE);
        nk_probe_take(run, &p1, true);
        if (!nk_read_ok(r))
            return nk_fail(run, r, "continuous read of block", block);
        nk_accum_add(continuous, &p0, &p1, run->config->clock, run->clock_read_ns);
        if (memcmp(run->back_block, run->data, (size_t)ppb * page_size) != 0)
            return nk_fail(run, -NK_EIO, "continuous read back other data from block", block);
        nk_progress(run, "sequential reads", i + 1, count);
    }
    return 0;
}

/* ----- ECC calibration --------------------------------------------------------------- */

static int nk_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median over batches of the engine's CPU per page on the benchmark data:
 * calculate every step (program), plus the compare with the stored code
 * (read, clean page). */
static void nk_calibrate_ecc(struct nk_run *run, struct nk_bench_result *result)
{
    const struct nk_ecc_engine *ecc = &run->nand->ecc;
    result->ecc_page_read_us = result->ecc_page_program_us = 0.0;
    if (ecc->placement != NK_ECC_PLACEMENT_SOFTWARE || !ecc->ops)
        return;
    uint32_t page_size = nk_nand_page_size(run->nand), ppb = nk_nand_pages_per_block(run->nand);
    unsigned steps = page_size / ecc->step_size, bytes = ecc->bytes_per_step;
    uint8_t *codes = malloc((size_t)steps * bytes), *stored = malloc((size_t)steps * bytes);
    enum { BATCHES = 9, PAGES = 64 };
    double program[BATCHES], read[BATCHES];
    volatile unsigned sink = 0;
    for (unsigned b = 0; b < BATCHES; b++) {
        uint64_t t0 = nk_host_ns();
        for (unsigned p = 0; p < PAGES; p++) {
            const uint8_t *page = run->data + (size_t)(p % ppb) * page_size;
            for (unsigned s = 0; s < steps; s++)
                ecc->ops->calculate(ecc, page + (size_t)s * ecc->step_size, codes + s * bytes);
        }
        uint64_t t1 = nk_host_ns();
        memcpy(stored, codes, (size_t)steps * bytes);
        for (unsigned p = 0; p < PAGES; p++) {
            const uint8_t *page = run->data + (size_t)(p % ppb) * page_size;
            for (unsigned s = 0; s < steps; s++) {
                ecc->ops->calculate(ecc, page + (size_t)s * ecc->step_size, codes + s * bytes);
                sink += memcmp(codes + s * bytes, stored + s * bytes, bytes) != 0;
            }
        }
        uint64_t t2 = nk_host_ns();
        program[b] = (double)(t1 - t0) / PAGES / 1e3;
        read[b] = (double)(t2 - t1) / PAGES / 1e3;
    }
    (void)sink;
    qsort(program, BATCHES, sizeof program[0], nk_compare_doubles);
    qsort(read, BATCHES, sizeof read[0], nk_compare_doubles);
    result->ecc_page_program_us = program[BATCHES / 2];
    result->ecc_page_read_us = read[BATCHES / 2];
    free(codes);
    free(stored);
}

/* ----- driver ----------------------------------------------------------------------- */

static void nk_fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < len; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        buf[i] = (uint8_t)(state >> 24);
    }
}

static int nk_pick_blocks(struct nk_run *run)
{
    const struct nk_bench_config *config = run->config;
    uint32_t total = nk_nand_blocks(run->nand);
    uint32_t end = config->block_limit ? config->first_block + config->block_limit : total;
    if (end > total)
        end = total;
    uint32_t want = config->block_count > 2 ? config->block_count : 2;
    uint32_t ppb = nk_nand_pages_per_block(run->nand);
    uint32_t for_programs = (config->count + ppb - 1) / ppb;
    if (for_programs > want)
        want = for_programs;
    run->blocks = calloc(want, sizeof *run->blocks);
    run->block_count = 0;
    for (uint32_t b = config->first_block; b < end && run->block_count < want; b++) {
        int bad = nk_nand_block_is_bad(run->nand, b);
        if (bad < 0)
            return nk_fail(run, bad, "bad-block check of block", b);
        if (!bad)
            run->blocks[run->block_count++] = b;
    }
    if (run->block_count == 0) {
        nk_format(run->why->text, sizeof run->why->text,
                  "no good block to benchmark in blocks %u..%u", config->first_block,
                  end ? end - 1 : 0);
        return -NK_ENOSPC;
    }
    return 0;
}

int nk_bench_run(const struct nk_bench_config *config, struct nk_bench_result *result,
                 struct nk_diag *why)
{
    memset(result, 0, sizeof *result);
    struct nk_nand *nand = config->nand;
    const struct nk_chip_info *info = &nand->chip.info;
    double limits[NK_BENCH_OP_COUNT] = {0}, limits_max[NK_BENCH_OP_COUNT] = {0};
    struct nk_chip_info datasheet = *info;
    if (config->timing)
        datasheet.timing = *config->timing;
    bool have_limits;
    if (config->serial_part && config->serial_part->max_hz) {
        /* The part's serial limits, at its clock and the width given. */
        unsigned width = config->serial_width ? config->serial_width : 1;
        const struct nk_spinand_part *part = config->serial_part;
        unsigned quad_io_dummy = !(part->flags & NK_SPINAND_QUAD_IO)      ? 0u
                                 : (part->flags & NK_SPINAND_EBH_DUMMY_1) ? 2u
                                                                          : 4u;
        unsigned write_width = width == 4 && !(part->flags & NK_SPINAND_X1_LOAD) ? 4u : 1u;
        struct nk_chip_info worst = datasheet;
        if (worst.timing.tR_max_ns > worst.timing.tR_ns)
            worst.timing.tR_ns = worst.timing.tR_max_ns;
        if (worst.timing.tPROG_max_ns > worst.timing.tPROG_ns)
            worst.timing.tPROG_ns = worst.timing.tPROG_max_ns;
        if (worst.timing.tBERS_max_ns > worst.timing.tBERS_ns)
            worst.timing.tBERS_ns = worst.timing.tBERS_max_ns;
        nk_bench_spi_limits(&datasheet, width, write_width, quad_io_dummy, part->max_hz, limits);
        nk_bench_spi_limits(&worst, width, write_width, quad_io_dummy, part->max_hz, limits_max);
        have_limits = true;
    } else {
        have_limits = nk_bench_chip_limits(&nand->chip, &datasheet, false, limits);
        if (have_limits)
            nk_bench_chip_limits(&nand->chip, &datasheet, true, limits_max);
    }
    if (!have_limits && config->clock == NK_BENCH_CLOCK_WALL) {
        /* Real hardware is worth timing even without a datasheet to compare. */
        memset(limits, 0, sizeof limits);
    } else if (!have_limits) {
        nk_format(why->text, sizeof why->text,
                  "%s has no datasheet timing (tR, tPROG, tBERS, tRC, tWC): no limit to "
                  "compare against",
                  info->model[0] ? info->model : "the chip");
        return -NK_EINVAL;
    }
    if (config->clock == NK_BENCH_CLOCK_SIM && !config->sim) {
        nk_format(why->text, sizeof why->text, "simulated timing needs the simulator");
        return -NK_EINVAL;
    }
    nk_format(result->chip, sizeof result->chip, "%s", info->model);
    nk_format(result->ecc, sizeof result->ecc, "%s", nand->ecc.name ? nand->ecc.name : "none");
    nk_format(result->clock, sizeof result->clock, "%s",
              config->clock == NK_BENCH_CLOCK_SIM ? "sim" : "wall");

    struct nk_run run;
    memset(&run, 0, sizeof run);
    run.config = config;
    run.nand = nand;
    run.why = why;
    run.started = run.last_progress = nk_host_ns();
    run.clock_read_ns = config->clock == NK_BENCH_CLOCK_SIM ? nk_clock_read_ns() : 0.0;
    uint32_t ppb = nk_nand_pages_per_block(nand), page_size = nk_nand_page_size(nand);
    run.data = malloc((size_t)ppb * page_size);
    run.oob =
        malloc((size_t)ppb * (nk_nand_free_oob_bytes(nand) ? nk_nand_free_oob_bytes(nand) : 1));
    run.back = malloc(page_size);
    run.back_oob = malloc(nk_nand_oob_size(nand));
    nk_fill_random(run.data, (size_t)ppb * page_size, config->seed);
    nk_fill_random(run.oob, (size_t)ppb * nk_nand_free_oob_bytes(nand), config->seed + 1);

    struct nk_accum acc[NK_BENCH_OP_COUNT];
    memset(acc, 0, sizeof acc);
    int err = 0;
    for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
        acc[op].cap = op >= NK_BENCH_BLOCK_ERASE ? config->block_count : config->count;
        acc[op].samples = malloc((acc[op].cap ? acc[op].cap : 1) * sizeof(double));
        if (!acc[op].samples)
            err = -NK_ENOMEM;
    }
    if (err)
        nk_format(why->text, sizeof why->text, "out of memory for the samples");
    if (!err)
        err = nk_pick_blocks(&run);
    if (!err)
        err = nk_bench_programs(&run, &acc[NK_BENCH_PAGE_PROGRAM]);
    if (!err)
        err = nk_fill_block(&run, run.blocks[0]);
    for (int op = NK_BENCH_PAGE_READ; !err && op <= NK_BENCH_PAGE_READ_OOB; op++)
        err = nk_bench_reads(&run, (enum nk_bench_op)op, &acc[op]);
    if (!err)
        err = nk_bench_blocks(&run, &acc[NK_BENCH_BLOCK_ERASE], &acc[NK_BENCH_BLOCK_WRITE],
                              &acc[NK_BENCH_BLOCK_READ]);
    struct nk_accum seq[2];
    memset(seq, 0, sizeof seq);
    if (!err && nk_bench_has_continuous(nand)) {
        run.back_block = malloc((size_t)ppb * page_size);
        for (int k = 0; k < 2; k++) {
            seq[k].cap = config->block_count;
            seq[k].samples = malloc((seq[k].cap ? seq[k].cap : 1) * sizeof(double));
            if (!seq[k].samples)
                err = -NK_ENOMEM;
        }
        if (!run.back_block)
            err = -NK_ENOMEM;
        if (err)
            nk_format(why->text, sizeof why->text, "out of memory for the sequential reads");
        else
            err = nk_bench_sequential(&run, &seq[0], &seq[1]);
    }
    if (!err)
        nk_calibrate_ecc(&run, result);
    if (run.progress_shown)
        fprintf(stderr, "\r%60s\r", "");

    double ecc_cpu[NK_BENCH_OP_COUNT] = {0};
    ecc_cpu[NK_BENCH_PAGE_READ] = ecc_cpu[NK_BENCH_PAGE_READ_DATA] = result->ecc_page_read_us;
    ecc_cpu[NK_BENCH_PAGE_PROGRAM] = result->ecc_page_program_us;
    ecc_cpu[NK_BENCH_BLOCK_READ] = ppb * result->ecc_page_read_us;
    ecc_cpu[NK_BENCH_BLOCK_WRITE] = ppb * result->ecc_page_program_us;
    for (int op = 0; op < NK_BENCH_OP_COUNT; op++) {
        if (acc[op].samples)
            nk_accum_finish(&acc[op], &result->ops[op], ecc_cpu[op],
                            config->clock == NK_BENCH_CLOCK_SIM);
        result->ops[op].limit_us = limits[op];
        result->ops[op].limit_max_us = limits_max[op];
        free(acc[op].samples);
    }
    if (seq[0].samples) {
        unsigned width = nand->chip.spi.read_width ? nand->chip.spi.read_width : 1;
        const struct nk_spinand_part *part = nk_chip_spinand_part(&nand->chip);
        nk_accum_finish(&seq[0], &result->seq_paged, 0.0, config->clock == NK_BENCH_CLOCK_SIM);
        nk_accum_finish(&seq[1], &result->seq_continuous, 0.0, config->clock == NK_BENCH_CLOCK_SIM);
        result->seq_paged.limit_us = ppb * limits[NK_BENCH_PAGE_READ_DATA];
        result->seq_paged.limit_max_us = ppb * limits_max[NK_BENCH_PAGE_READ_DATA];
        result->seq_continuous.limit_us =
            nk_bench_continuous_limit(&datasheet, ppb, width, part->max_hz);
        struct nk_chip_info worst = datasheet;
        if (worst.timing.tR_max_ns > worst.timing.tR_ns)
            worst.timing.tR_ns = worst.timing.tR_max_ns;
        result->seq_continuous.limit_max_us =
            nk_bench_continuous_limit(&worst, ppb, width, part->max_hz);
    }
    free(seq[0].samples);
    free(seq[1].samples);
    free(run.back_block);
    free(run.data);
    free(run.oob);
    free(run.back);
    free(run.back_oob);
    free(run.blocks);
    return err;
}
