/* SPDX-License-Identifier: MIT */
/*
 * What the array does: page loads with raw bit errors, stuck bits, unstable
 * bits and read disturb; programs that only clear bits, within the NOP
 * limit and in page order; erases; failures by injection and by wear;
 * on-die ECC; and the outcome of an operation cut short by a reset or a
 * power loss (a torn page, a partly erased block, weak cells that give way
 * later: docs/simulator.md, "Weak cells").
 *
 * A program or erase is decided at its confirm cycle (FAIL or not) and lands
 * in the array when its busy time has passed (nk_sim_settle) or, cut short,
 * in part (nk_sim_interrupt). Every random choice comes from a stream or a
 * hash derived from the seed, so runs are reproducible.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* Bits whose hash lane lies this close above the erase progress read
 * unstably after an interrupted erase (out of 256). */
#define NK_SIM_WEAK_BAND 24u

/* Weak cells. Every cell of a program (or an erase) crosses the read level
 * during the first NK_SIM_LAND_END/256 of the busy time, at the moment its
 * hash lane gives; the rest of the busy time only adds margin. A program
 * cut at progress g (in lanes, up to 256 * 256 / NK_SIM_LAND_END) leaves
 * the cells whose lane L < g programmed, and those with g - L below
 * NK_SIM_WEAK_MARGIN weak: a weak cell with margin m loses its charge
 * (reads 1) once the page's stress, reads / weak_reads + age / weak_time,
 * reaches 1 + m / NK_SIM_WEAK_MARGIN. An erase cut after NK_SIM_LAND_END
 * leaves the block erased but weak, with margin m = f - NK_SIM_LAND_END
 * (0..63): every later program of one of its pages also clears the cells
 * meant to stay 1 whose lane is below 2 + (64 - m) / 2. */
#define NK_SIM_LAND_END 192u
#define NK_SIM_WEAK_MARGIN 96u
#define NK_SIM_WEAK_READS 8u
#define NK_SIM_WEAK_TIME_NS 1000000000ull

static unsigned nk_sim_fraction256(struct nk_sim *sim)
{
    return (unsigned)(nk_sim_rng_double(&sim->rng_cut) * 256.0);
}

/* ----- the pieces every array operation shares --------------------------- */

/* Waits (virtually) for the array, lands what finished, counts the op.
 * Returns false when power fails before the operation starts. */
static bool nk_sim_array_start(struct nk_sim *sim, uint64_t *start)
{
    uint64_t t = sim->now > sim->array_until ? sim->now : sim->array_until;
    if (sim->cut_by_time && sim->cut_time < t) {
        nk_sim_power_fail(sim, sim->cut_time > sim->now ? sim->cut_time : sim->now, UINT32_MAX);
        return false;
    }
    nk_sim_settle(sim, t);
    sim->array_op_serial++;
    sim->counters.array_ops++;
    *start = t;
    return true;
}

static bool nk_sim_cut_here(const struct nk_sim *sim)
{
    return sim->cut_by_ops && sim->array_op_serial == sim->cut_op;
}

/* FAIL for this operation; FAILC (bit 1) is the previous page's FAIL
 * during a cache program sequence, else 0. */
static void nk_sim_set_status(struct nk_sim *sim, bool fail, bool cache_sequence)
{
    uint8_t previous = (uint8_t)(sim->status_bits & NK_STATUS_FAIL);
    sim->status_bits = (uint8_t)((fail ? NK_STATUS_FAIL : 0) |
                                 (cache_sequence && previous ? NK_STATUS_FAIL_N1 : 0));
}

/* ----- program --------------------------------------------------------------- */

static bool nk_sim_page_all_ff(const struct nk_sim *sim, const uint8_t *page)
{
    return page[0] == 0xff && memcmp(page, sim->erased_page, sim->page_bytes) == 0;
}

/* dst &= src, a word at a time (the program's only work per byte). */
static void nk_sim_and_bytes(uint8_t *dst, const uint8_t *src, uint32_t len)
{
    uint32_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t a, b;
        memcpy(&a, dst + i, 8);
        memcpy(&b, src + i, 8);
        a &= b;
        memcpy(dst + i, &a, 8);
    }
    for (; i < len; i++)
        dst[i] &= src[i];
}

void nk_sim_apply_partial_program(struct nk_sim *sim, uint8_t *dst, const uint8_t *data,
                                  uint32_t lo, uint32_t hi, uint32_t row, unsigned f256,
                                  uint64_t salt)
{
    (void)sim;
    for (uint32_t i = lo; i < hi; i++) {
        uint8_t transitions = (uint8_t)(dst[i] & ~data[i]);
        if (!transitions)
            continue;
        uint64_t h = nk_sim_hash(salt, row, i);
        uint8_t land = 0;
        for (unsigned bit = 0; bit < 8; bit++)
            if ((transitions >> bit & 1u) && ((h >> (8 * bit)) & 0xffu) < f256)
                land |= (uint8_t)(1u << bit);
        dst[i] &= (uint8_t)~land;
    }
}

/* ----- weak cells ------------------------------------------------------------- */

struct nk_sim_weak_page *nk_sim_weak_find(const struct nk_sim *sim, uint32_t row)
{
    if (!(sim->blocks[row >> sim->ppb_shift].flags & NK_SIM_BLOCK_WEAK_PAGES))
        return NULL;
    for (uint32_t i = 0; i < sim->weak_count; i++)
        if (sim->weak[i].row == row)
            return &sim->weak[i];
    return NULL;
}

struct nk_sim_weak_page *nk_sim_weak_add(struct nk_sim *sim, uint32_t row)
{
    if (sim->weak_count == sim->weak_cap) {
        uint32_t cap = sim->weak_cap ? sim->weak_cap * 2 : 8;
        struct nk_sim_weak_page *grown = realloc(sim->weak, cap * sizeof *grown);
        if (!grown)
            return NULL;
        sim->weak = grown;
        sim->weak_cap = cap;
    }
    uint8_t *mask = calloc(1, sim->page_bytes);
    if (!mask)
        return NULL;
    struct nk_sim_weak_page *w = &sim->weak[sim->weak_count++];
    memset(w, 0, sizeof *w);
    w->row = row;
    w->mask = mask;
    w->born_ns = sim->now;
    sim->blocks[row >> sim->ppb_shift].flags |= NK_SIM_BLOCK_WEAK_PAGES;
    return w;
}

void nk_sim_weak_drop_block(struct nk_sim *sim, uint32_t block)
{
    struct nk_sim_block *b = &sim->blocks[block];
    if (!(b->flags & NK_SIM_BLOCK_WEAK_PAGES))
        return;
    b->flags &= (uint16_t)~NK_SIM_BLOCK_WEAK_PAGES;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < sim->weak_count; i++) {
        if (sim->weak[i].row >> sim->ppb_shift == block)
            free(sim->weak[i].mask);
        else
            sim->weak[kept++] = sim->weak[i];
    }
    sim->weak_count = kept;
}

void nk_sim_weak_free(struct nk_sim *sim)
{
    for (uint32_t i = 0; i < sim->weak_count; i++)
        free(sim->weak[i].mask);
    free(sim->weak);
    sim->weak = NULL;
    sim->weak_count = sim->weak_cap = 0;
}

uint64_t nk_sim_weak_age(const struct nk_sim *sim, const struct nk_sim_weak_page *w)
{
    return w->age_base_ns + (sim->now > w->born_ns ? sim->now - w->born_ns : 0);
}

static double nk_sim_weak_stress(const struct nk_sim *sim, const struct nk_sim_weak_page *w)
{
    uint32_t reads = sim->faults.weak_reads ? sim->faults.weak_reads : NK_SIM_WEAK_READS;
    uint64_t time = sim->faults.weak_time_ns ? sim->faults.weak_time_ns : NK_SIM_WEAK_TIME_NS;
    return (double)w->reads / reads + (double)nk_sim_weak_age(sim, w) / (double)time;
}

/* Weak cells of `w` that have lost their charge; with `buf`, they read 1. */
static uint32_t nk_sim_weak_failing(const struct nk_sim *sim, const struct nk_sim_weak_page *w,
                                    uint8_t *buf)
{
    double stress = nk_sim_weak_stress(sim, w);
    if (stress < 1.0)
        return 0; /* even a cell with no margin holds until then */
    double reach = (stress - 1.0) * NK_SIM_WEAK_MARGIN; /* margin that gives way */
    uint32_t count = 0;
    for (uint32_t i = 0; i < sim->page_bytes; i++) {
        uint8_t mask = w->mask[i];
        if (!mask)
            continue;
        uint64_t h = nk_sim_hash(w->salt, w->row, i);
        for (unsigned bit = 0; bit < 8; bit++) {
            if (!(mask >> bit & 1u))
                continue;
            unsigned lane = (unsigned)(h >> (8 * bit)) & 0xffu;
            unsigned margin = w->progress > lane ? w->progress - lane : 0;
            if ((double)margin <= reach) {
                count++;
                if (buf)
                    buf[i] |= (uint8_t)(1u << bit);
            }
        }
    }
    return count;
}

/* A program cut at landing progress `g`: lands the transitions whose lane is
 * below g and records those with little margin as weak cells of `row`. */
static void nk_sim_weak_program(struct nk_sim *sim, uint8_t *dst, const uint8_t *data, uint32_t lo,
                                uint32_t hi, uint32_t row, unsigned g, uint64_t salt)
{
    struct nk_sim_weak_page *w = nk_sim_weak_find(sim, row);
    bool out_of_memory = false;
    for (uint32_t i = lo; i < hi; i++) {
        uint8_t transitions = (uint8_t)(dst[i] & ~data[i]);
        if (!transitions)
            continue;
        uint64_t h = nk_sim_hash(salt, row, i);
        uint8_t land = 0, weak = 0;
        for (unsigned bit = 0; bit < 8; bit++) {
            if (!(transitions >> bit & 1u))
                continue;
            unsigned lane = (unsigned)(h >> (8 * bit)) & 0xffu;
            if (lane >= g)
                continue;
            land |= (uint8_t)(1u << bit);
            if (g - lane < NK_SIM_WEAK_MARGIN)
                weak |= (uint8_t)(1u << bit);
        }
        dst[i] &= (uint8_t)~land;
        if (weak && !w && !out_of_memory) {
            w = nk_sim_weak_add(sim, row);
            out_of_memory = w == NULL; /* then the landed cells stay strong */
        }
        if (weak && w)
            w->mask[i] |= weak;
    }
    if (!w)
        return;
    /* A second cut of the same page keeps the earlier weak cells and
     * restarts the clock of the whole page. */
    w->salt = salt;
    w->progress = (uint16_t)g;
    w->reads = 0;
    w->age_base_ns = 0;
    w->born_ns = sim->now;
}

/* A program into a weakly erased block: cells meant to stay 1 whose lane is
 * below the block's weakness read 0 (persistently). */
static void nk_sim_weak_erase_disturb(struct nk_sim *sim, const struct nk_sim_block *b,
                                      uint32_t row, uint8_t *dst)
{
    unsigned margin = b->unstable_fraction < 64 ? b->unstable_fraction : 63;
    unsigned threshold = 2 + (64 - margin) / 2;
    for (uint32_t i = 0; i < sim->page_bytes; i++) {
        uint8_t ones = dst[i];
        if (!ones)
            continue;
        uint64_t h = nk_sim_hash(b->unstable_salt, row, i);
        uint8_t flip = 0;
        for (unsigned bit = 0; bit < 8; bit++)
            if ((ones >> bit & 1u) && ((h >> (8 * bit)) & 0xffu) < threshold)
                flip |= (uint8_t)(1u << bit);
        if (flip) {
            dst[i] &= (uint8_t)~flip;
            sim->counters.bitflips_injected += (unsigned)__builtin_popcount(flip);
        }
    }
}

int nk_sim_page_weak(const struct nk_sim *sim, uint32_t row, struct nk_sim_weak_state *state)
{
    if (row >= sim->rows || !state)
        return -NK_EINVAL;
    const struct nk_sim_weak_page *w = nk_sim_weak_find(sim, row);
    if (!w)
        return -NK_ENOENT;
    state->weak_bits = 0;
    for (uint32_t i = 0; i < sim->page_bytes; i++)
        state->weak_bits += (uint32_t)__builtin_popcount(w->mask[i]);
    state->failing_bits = nk_sim_weak_failing(sim, w, NULL);
    state->reads = w->reads;
    state->age_ns = nk_sim_weak_age(sim, w);
    return 0;
}

static int nk_sim_decide_program(struct nk_sim *sim, uint32_t row, unsigned *fail_f256)
{
    const struct nk_chip_info *c = &sim->params.chip;
    if (row >= sim->rows) {
        nk_sim_protocol_error(sim, NK_CMD_PAGEPROG, "program of a page beyond the chip");
        return NK_SIM_FAIL_REFUSED;
    }
    if (sim->addr_short || sim->write_protect || sim->read_only)
        return NK_SIM_FAIL_REFUSED;
    uint32_t block = row >> sim->ppb_shift, page = row & (c->pages_per_block - 1);
    struct nk_sim_block *b = &sim->blocks[block];
    if (b->flags & NK_SIM_BLOCK_FACTORY_BAD)
        return NK_SIM_FAIL_REFUSED;
    if (!nk_sim_array_materialize(sim, block)) {
        nk_sim_protocol_error(sim, NK_CMD_PAGEPROG, "simulator out of memory");
        return NK_SIM_FAIL_REFUSED;
    }
    uint8_t *nop = nk_sim_block_nop(sim, b);
    if (sim->faults.enforce_nop && c->nop && nop[page] >= c->nop) {
        sim->counters.nop_violations++;
        return NK_SIM_FAIL_REFUSED;
    }
    if (sim->faults.strict_page_order && page + 1 < b->next_page) {
        sim->counters.order_violations++;
        return NK_SIM_FAIL_REFUSED;
    }
    bool fail = false;
    if (b->fail_once & NK_SIM_FAIL_PROGRAM) {
        b->fail_once &= (uint8_t)~NK_SIM_FAIL_PROGRAM;
        fail = true;
    } else if (b->flags & NK_SIM_BLOCK_FAIL_PROGRAM) {
        fail = true;
    } else if (sim->faults.wear_limit && b->erase_count >= sim->faults.wear_limit &&
               nk_sim_rng_double(&sim->rng_fault) < sim->faults.wear_fail_probability) {
        fail = true;
    }
    if (!fail)
        return NK_SIM_FAIL_NONE;
    *fail_f256 = (unsigned)(nk_sim_rng_double(&sim->rng_fault) * 256.0);
    return NK_SIM_FAIL_PARTIAL;
}

static void nk_sim_commit_program(struct nk_sim *sim, unsigned f256)
{
    struct nk_sim_pending *p = &sim->pending;
    if (p->fail == NK_SIM_FAIL_REFUSED)
        return;
    uint32_t block = p->row >> sim->ppb_shift;
    uint32_t page = p->row & (sim->params.chip.pages_per_block - 1);
    struct nk_sim_block *b = &sim->blocks[block];
    if (!nk_sim_array_materialize(sim, block))
        return;
    uint8_t *dst = nk_sim_block_page_writable(sim, b, page);
    if (!dst)
        return;
    bool cut = f256 < 256 && !sim->faults.weak_cells_off;
    if (p->fail == NK_SIM_FAIL_PARTIAL && p->fail_f256 < f256) {
        f256 = p->fail_f256;
        cut = false;
    }
    if (f256 >= 256) {
        nk_sim_and_bytes(dst + p->lo, sim->page_buf + p->lo, p->hi > p->lo ? p->hi - p->lo : 0);
        /* Cells programmed to completion again are weak no longer. */
        struct nk_sim_weak_page *w = nk_sim_weak_find(sim, p->row);
        for (uint32_t i = p->lo; w && i < p->hi; i++)
            w->mask[i] &= sim->page_buf[i];
    } else {
        uint64_t salt = nk_sim_hash(sim->seed, 0x70726f67ull, sim->array_op_serial);
        if (cut)
            nk_sim_weak_program(sim, dst, sim->page_buf, p->lo, p->hi, p->row,
                                f256 * 256 / NK_SIM_LAND_END, salt);
        else
            nk_sim_apply_partial_program(sim, dst, sim->page_buf, p->lo, p->hi, p->row, f256, salt);
    }
    if (b->flags & NK_SIM_BLOCK_WEAK_ERASE)
        nk_sim_weak_erase_disturb(sim, b, p->row, dst);
    if (nk_sim_page_all_ff(sim, dst))
        nk_sim_block_page_release(sim, b, page); /* still erased: it needs no buffer */
    uint8_t *nop = nk_sim_block_nop(sim, b);
    if (nop[page] < 255)
        nop[page]++;
    if (page + 1 > b->next_page)
        b->next_page = page + 1;
    nk_sim_array_touched(sim, block, page, false);
}

void nk_sim_op_program(struct nk_sim *sim, uint32_t row, bool cache)
{
    uint64_t start;
    if (!nk_sim_array_start(sim, &start))
        return;
    const struct nk_chip_timing *t = &sim->params.chip.timing;
    enum nk_sim_op_kind kind = cache ? NK_SIM_OP_CACHE_PROGRAM : NK_SIM_OP_PROGRAM;
    unsigned fail_f256 = 256;
    int fail = nk_sim_decide_program(sim, row, &fail_f256);
    struct nk_sim_pending *p = &sim->pending;
    /* In a cache program sequence the page first moves from the cache to
     * the data register (tCBSY, once the previous page has finished), and
     * only then programs: back to back, pages take tPROG + tCBSY each. */
    uint64_t program_start = (cache || sim->cache_seq) ? start + t->tCBSY_ns : start;
    p->active = true;
    p->erase = false;
    p->row = row;
    p->start = program_start;
    p->end = program_start + t->tPROG_ns;
    p->fail = fail;
    p->fail_f256 = fail_f256;
    p->lo = sim->reg_lo;
    p->hi = sim->reg_hi;
    uint8_t *swap = sim->page_buf;
    sim->page_buf = sim->reg;
    sim->reg = swap;
    sim->reg_lo = sim->page_bytes;
    sim->reg_hi = 0;
    sim->array_until = p->end;
    sim->rdy_until = cache && t->tCBSY_ns ? start + t->tCBSY_ns : p->end;
    nk_sim_set_status(sim, fail != NK_SIM_FAIL_NONE, cache || sim->cache_seq);
    sim->cache_seq = cache;
    if (fail != NK_SIM_FAIL_NONE)
        sim->counters.program_fails++;
    sim->counters.ops[kind]++;
    nk_sim_emit(sim, NK_SIM_EVENT_OP, kind, row, p->lo < p->hi ? p->lo : 0,
                (uint32_t)(sim->rdy_until - sim->now), 0, NULL);
    if (nk_sim_cut_here(sim))
        nk_sim_power_fail(sim, p->start + (t->tPROG_ns * (uint64_t)nk_sim_fraction256(sim)) / 256,
                          row);
}

/* ----- erase ----------------------------------------------------------------- */

/* Erases the zero bits of a block whose hash lane is below f256; with
 * `unstable`, the block remembers the point so bits just above it read
 * unstably until the next erase. */
static void nk_sim_partial_erase(struct nk_sim *sim, uint32_t block, unsigned f256, uint64_t salt,
                                 bool unstable)
{
    struct nk_sim_block *b = &sim->blocks[block];
    if (!b->pages && (b->flags & NK_SIM_BLK_ERASED))
        return; /* nothing programmed: nothing to half-erase */
    if (!nk_sim_array_materialize(sim, block))
        return;
    uint32_t ppb = sim->params.chip.pages_per_block;
    for (uint32_t page = 0; page < ppb; page++) {
        uint8_t *dst = b->pages[page];
        if (!dst)
            continue; /* erased already */
        uint32_t row = block << sim->ppb_shift | page;
        for (uint32_t i = 0; i < sim->page_bytes; i++) {
            uint8_t zeros = (uint8_t)~dst[i];
            if (!zeros)
                continue;
            uint64_t h = nk_sim_hash(salt, row, i);
            for (unsigned bit = 0; bit < 8; bit++)
                if ((zeros >> bit & 1u) && ((h >> (8 * bit)) & 0xffu) < f256)
                    dst[i] |= (uint8_t)(1u << bit);
        }
        if (nk_sim_page_all_ff(sim, dst))
            nk_sim_block_page_release(sim, b, page);
    }
    memset(nk_sim_block_nop(sim, b), 0, ppb);
    b->next_page = 0;
    if (unstable) {
        b->flags |= NK_SIM_BLOCK_UNSTABLE;
        b->unstable_salt = (uint32_t)salt;
        b->unstable_fraction = (uint8_t)(f256 > 255 ? 255 : f256);
    }
    nk_sim_array_touched(sim, block, 0, true);
}

static uint64_t nk_sim_unstable_salt(const struct nk_sim *sim, uint32_t block)
{
    /* 32 bits so that the sidecar can keep it. */
    return (uint32_t)nk_sim_hash(sim->seed, block, sim->blocks[block].erase_count);
}

static void nk_sim_commit_erase(struct nk_sim *sim, unsigned f256, bool torn)
{
    struct nk_sim_pending *p = &sim->pending;
    if (p->fail == NK_SIM_FAIL_REFUSED)
        return;
    uint32_t block = p->row >> sim->ppb_shift;
    struct nk_sim_block *b = &sim->blocks[block];
    if (p->fail == NK_SIM_FAIL_PARTIAL && p->fail_f256 < f256) {
        f256 = p->fail_f256;
        torn = false;
    }
    nk_sim_weak_drop_block(sim, block);
    b->flags &= (uint16_t)~NK_SIM_BLOCK_WEAK_ERASE;
    bool weak = false;
    unsigned margin = 0;
    if (torn && !sim->faults.weak_cells_off) {
        if (f256 >= NK_SIM_LAND_END) {
            weak = true; /* every cell reads erased, some with too little margin */
            margin = f256 - NK_SIM_LAND_END;
            f256 = 256;
        } else {
            f256 = f256 * 256 / NK_SIM_LAND_END;
        }
    }
    if (f256 >= 256) {
        nk_sim_array_erased(sim, block);
        b->next_page = 0;
        b->reads = 0;
        b->flags &= (uint16_t)~NK_SIM_BLOCK_UNSTABLE;
        if (weak) {
            b->flags |= NK_SIM_BLOCK_WEAK_ERASE;
            b->unstable_fraction = (uint8_t)margin;
            b->unstable_salt =
                (uint32_t)nk_sim_hash(nk_sim_unstable_salt(sim, block), 0x7765616bull, 0);
        }
        return;
    }
    b->reads = 0;
    if (torn) {
        nk_sim_partial_erase(sim, block, f256, nk_sim_unstable_salt(sim, block), true);
    } else {
        b->flags &= (uint16_t)~NK_SIM_BLOCK_UNSTABLE;
        nk_sim_partial_erase(sim, block, f256, nk_sim_hash(sim->seed, 0x65726173ull, block), false);
    }
}

static int nk_sim_decide_erase(struct nk_sim *sim, uint32_t row, unsigned *fail_f256)
{
    if (row >= sim->rows) {
        nk_sim_protocol_error(sim, NK_CMD_ERASE2, "erase of a block beyond the chip");
        return NK_SIM_FAIL_REFUSED;
    }
    if (sim->write_protect || sim->read_only)
        return NK_SIM_FAIL_REFUSED;
    struct nk_sim_block *b = &sim->blocks[row >> sim->ppb_shift];
    if (b->flags & NK_SIM_BLOCK_FACTORY_BAD)
        return NK_SIM_FAIL_REFUSED; /* markers stay */
    bool worn_now = sim->faults.wear_limit && b->erase_count >= sim->faults.wear_limit &&
                    !(b->flags & NK_SIM_BLOCK_WORN) &&
                    nk_sim_rng_double(&sim->rng_fault) < sim->faults.wear_fail_probability;
    b->erase_count++;
    bool fail = false;
    if (b->fail_once & NK_SIM_FAIL_ERASE) {
        b->fail_once &= (uint8_t)~NK_SIM_FAIL_ERASE;
        fail = true;
    } else if (b->flags & (NK_SIM_BLOCK_FAIL_ERASE | NK_SIM_BLOCK_WORN)) {
        fail = true;
    } else if (worn_now) {
        b->flags |= NK_SIM_BLOCK_WORN;
        fail = true;
    }
    if (!fail)
        return NK_SIM_FAIL_NONE;
    *fail_f256 = (unsigned)(nk_sim_rng_double(&sim->rng_fault) * 256.0);
    return NK_SIM_FAIL_PARTIAL;
}

void nk_sim_op_erase(struct nk_sim *sim, uint32_t row)
{
    uint64_t start;
    if (!nk_sim_array_start(sim, &start))
        return;
    uint32_t tBERS = sim->params.chip.timing.tBERS_ns;
    uint32_t first = row & ~(sim->params.chip.pages_per_block - 1);
    unsigned fail_f256 = 256;
    int fail = nk_sim_decide_erase(sim, row, &fail_f256);
    struct nk_sim_pending *p = &sim->pending;
    p->active = true;
    p->erase = true;
    p->row = first;
    p->start = start;
    p->end = start + tBERS;
    p->fail = fail;
    p->fail_f256 = fail_f256;
    sim->rdy_until = sim->array_until = p->end;
    sim->read_valid = false;
    nk_sim_set_status(sim, fail != NK_SIM_FAIL_NONE, false);
    sim->cache_seq = false;
    if (fail != NK_SIM_FAIL_NONE)
        sim->counters.erase_fails++;
    sim->counters.ops[NK_SIM_OP_ERASE]++;
    nk_sim_emit(sim, NK_SIM_EVENT_OP, NK_SIM_OP_ERASE, first, 0,
                (uint32_t)(sim->rdy_until - sim->now), 0, NULL);
    if (nk_sim_cut_here(sim))
        nk_sim_power_fail(sim, start + (tBERS * (uint64_t)nk_sim_fraction256(sim)) / 256, first);
}

/* ----- landing, interrupting, power ----------------------------------------- */

void nk_sim_settle(struct nk_sim *sim, uint64_t t)
{
    struct nk_sim_pending *p = &sim->pending;
    if (!p->active || t < p->end)
        return;
    p->active = false;
    if (p->erase)
        nk_sim_commit_erase(sim, 256, false);
    else
        nk_sim_commit_program(sim, 256);
}

void nk_sim_interrupt(struct nk_sim *sim, uint64_t t)
{
    struct nk_sim_pending *p = &sim->pending;
    if (!p->active)
        return;
    if (t >= p->end) {
        nk_sim_settle(sim, t);
        return;
    }
    p->active = false;
    uint64_t done = t > p->start ? t - p->start : 0;
    unsigned f256 = (unsigned)(done * 256 / (p->end - p->start));
    if (p->erase)
        nk_sim_commit_erase(sim, f256, true);
    else
        nk_sim_commit_program(sim, f256);
    sim->rdy_until = sim->array_until = t;
}

void nk_sim_power_fail(struct nk_sim *sim, uint64_t t, uint32_t row)
{
    if (t < sim->now)
        t = sim->now;
    nk_sim_settle(sim, t);
    if (sim->pending.active) {
        if (row == UINT32_MAX)
            row = sim->pending.row;
        nk_sim_interrupt(sim, t);
    }
    sim->now = t;
    sim->powered = false;
    sim->cut_by_ops = false;
    sim->cut_by_time = false;
    sim->state = NK_SIM_S_IDLE;
    sim->read_valid = false;
    sim->rdy_until = sim->array_until = t;
    nk_sim_emit(sim, NK_SIM_EVENT_POWER_CUT, NK_SIM_OP_KIND_COUNT, row, 0, 0, 0, "power cut");
}

/* ----- read ------------------------------------------------------------------ */

/* Bits of an interrupted erase that sit at the edge read differently on
 * every read. */
static void nk_sim_unstable_bits(struct nk_sim *sim, const struct nk_sim_block *b, uint32_t row,
                                 uint8_t *buf)
{
    unsigned limit = b->unstable_fraction + NK_SIM_WEAK_BAND;
    for (uint32_t i = 0; i < sim->page_bytes; i++) {
        uint8_t zeros = (uint8_t)~buf[i];
        if (!zeros)
            continue;
        uint64_t h = nk_sim_hash(b->unstable_salt, row, i);
        uint8_t weak = 0;
        for (unsigned bit = 0; bit < 8; bit++)
            if ((zeros >> bit & 1u) && ((h >> (8 * bit)) & 0xffu) <= limit)
                weak |= (uint8_t)(1u << bit);
        if (weak) {
            uint8_t random = (uint8_t)nk_sim_rng_next(&sim->rng_unstable);
            buf[i] = (uint8_t)((buf[i] & ~weak) | (random & weak));
        }
    }
}

/* Raw bit errors of one page read, positions into sim->flip_pos. Returns
 * how many were listed; errors beyond the list are applied to `buf` at once
 * and reported through *overflow. */
static uint32_t nk_sim_raw_errors(struct nk_sim *sim, const struct nk_sim_block *b, uint8_t *buf,
                                  bool *overflow)
{
    double rate = sim->faults.raw_bit_error_rate;
    if (rate <= 0.0)
        return 0;
    rate *= 1.0 + sim->faults.wear_error_growth * (double)b->erase_count / 1000.0;
    uint64_t bits = (uint64_t)sim->page_bytes * 8;
    uint32_t count = 0;
    double log_keep = rate >= 1.0 ? -INFINITY : log1p(-rate);
    uint64_t pos = 0;
    for (;;) {
        if (rate < 1.0) {
            double u = nk_sim_rng_double(&sim->rng_bits);
            if (u <= 0.0)
                continue;
            double gap = floor(log(u) / log_keep);
            if (gap >= (double)bits)
                break;
            pos += (uint64_t)gap;
        }
        if (pos >= bits)
            break;
        if (count < NK_SIM_FLIP_MAX) {
            sim->flip_pos[count++] = (uint32_t)pos;
        } else {
            buf[pos >> 3] ^= (uint8_t)(1u << (pos & 7));
            *overflow = true;
        }
        sim->counters.bitflips_injected++;
        pos++;
    }
    return count;
}

static unsigned nk_sim_step_of(const struct nk_sim *sim, uint32_t bit, unsigned steps)
{
    const struct nk_chip_info *c = &sim->params.chip;
    uint32_t byte = bit >> 3;
    if (byte < c->page_size)
        return byte / c->ecc_step;
    uint32_t share = c->oob_size / steps;
    unsigned step = share ? (byte - c->page_size) / share : steps - 1;
    return step < steps ? step : steps - 1;
}

static void nk_sim_flip(uint8_t *buf, uint32_t bit)
{
    buf[bit >> 3] ^= (uint8_t)(1u << (bit & 7));
}

/* Raw errors and stuck bits, through the on-die ECC when it is enabled. */
static void nk_sim_read_errors(struct nk_sim *sim, const struct nk_sim_block *b, uint32_t row,
                               uint8_t *buf)
{
    bool overflow = false;
    uint32_t flips = nk_sim_raw_errors(sim, b, buf, &overflow);
    /* Stuck bits that disagree with the stored value join the flips. */
    uint32_t listed = flips;
    if (b->flags & NK_SIM_BLK_STUCK) {
        for (uint32_t i = 0; i < sim->stuck_count; i++) {
            const struct nk_sim_stuck *s = &sim->stuck[i];
            if (s->row != row)
                continue;
            bool stored = (buf[s->bit >> 3] >> (s->bit & 7)) & 1u;
            if (stored == s->value)
                continue;
            if (listed < NK_SIM_FLIP_MAX) {
                sim->flip_pos[listed++] = s->bit;
            } else {
                nk_sim_flip(buf, s->bit);
                overflow = true;
            }
        }
    }
    if (!listed && !overflow) {
        if (sim->on_die_ecc)
            sim->status_bits &= (uint8_t) ~(NK_STATUS_FAIL | NK_STATUS_REWRITE);
        return;
    }
    if (!sim->on_die_ecc) {
        for (uint32_t i = 0; i < listed; i++)
            nk_sim_flip(buf, sim->flip_pos[i]);
        return;
    }
    const struct nk_chip_info *c = &sim->params.chip;
    unsigned steps = c->page_size / c->ecc_step;
    uint16_t counts[NK_SIM_MAX_ECC_STEPS];
    memset(counts, 0, sizeof counts);
    for (uint32_t i = 0; i < listed; i++) {
        unsigned step = nk_sim_step_of(sim, sim->flip_pos[i], steps);
        if (counts[step] < UINT16_MAX)
            counts[step]++;
    }
    bool uncorrectable = overflow;
    unsigned most = 0;
    for (unsigned s = 0; s < steps; s++) {
        if (counts[s] > c->ecc_strength)
            uncorrectable = true;
        else if (counts[s] > most)
            most = counts[s];
    }
    for (uint32_t i = 0; i < listed; i++) {
        unsigned step = nk_sim_step_of(sim, sim->flip_pos[i], steps);
        if (counts[step] > c->ecc_strength)
            nk_sim_flip(buf, sim->flip_pos[i]);
        else
            sim->counters.on_die_corrected++;
    }
    sim->on_die_most = most;
    unsigned threshold = sim->params.on_die_ecc_threshold;
    if (!threshold)
        threshold = (3u * c->ecc_strength + 3) / 4;
    uint8_t bits = 0;
    if (uncorrectable)
        bits |= NK_STATUS_FAIL;
    else if (most && most >= threshold)
        bits |= NK_STATUS_REWRITE;
    sim->status_bits = bits;
}

static void nk_sim_read_disturb(struct nk_sim *sim, uint32_t block, uint32_t page)
{
    struct nk_sim_block *b = &sim->blocks[block];
    uint32_t ppb = sim->params.chip.pages_per_block;
    if (!sim->faults.read_disturb_reads || b->reads <= sim->faults.read_disturb_reads || ppb < 2)
        return;
    double rate = sim->faults.read_disturb_rate > 0.0 ? sim->faults.read_disturb_rate : 1.0;
    unsigned n = (unsigned)rate;
    if (nk_sim_rng_double(&sim->rng_fault) < rate - n)
        n++;
    for (unsigned k = 0; k < n; k++) {
        uint32_t other = (uint32_t)(nk_sim_rng_next(&sim->rng_fault) % (ppb - 1));
        if (other >= page)
            other++;
        uint32_t bit = (uint32_t)(nk_sim_rng_next(&sim->rng_fault) % (sim->page_bytes * 8u));
        if (!nk_sim_array_materialize(sim, block))
            return;
        uint8_t *dst = nk_sim_block_page_writable(sim, b, other);
        if (!dst)
            return;
        uint8_t mask = (uint8_t)(1u << (bit & 7));
        if (dst[bit >> 3] & mask) {
            dst[bit >> 3] &= (uint8_t)~mask;
            sim->counters.bitflips_injected++;
            nk_sim_array_touched(sim, block, other, false);
        }
    }
}

void nk_sim_op_read(struct nk_sim *sim, uint32_t row)
{
    uint64_t start;
    if (!nk_sim_array_start(sim, &start))
        return;
    uint32_t tR = sim->params.chip.timing.tR_ns;
    sim->rdy_until = sim->array_until = start + tR;
    sim->status_bits = 0;
    sim->counters.ops[NK_SIM_OP_READ]++;
    if (nk_sim_cut_here(sim)) {
        nk_sim_power_fail(sim, start + (tR * (uint64_t)nk_sim_fraction256(sim)) / 256, row);
        return;
    }
    if (row >= sim->rows) {
        nk_sim_protocol_error(sim, NK_CMD_READSTART, "read of a page beyond the chip");
        memset(sim->reg, 0xff, sim->page_bytes);
    } else {
        uint32_t block = row >> sim->ppb_shift;
        uint32_t page = row & (sim->params.chip.pages_per_block - 1);
        struct nk_sim_block *b = &sim->blocks[block];
        nk_sim_array_load(sim, row, sim->reg);
        b->reads++;
        struct nk_sim_weak_page *w = nk_sim_weak_find(sim, row);
        if (w) {
            nk_sim_weak_failing(sim, w, sim->reg);
            w->reads++;
        }
        if (b->flags & NK_SIM_BLOCK_UNSTABLE)
            nk_sim_unstable_bits(sim, b, row, sim->reg);
        nk_sim_read_errors(sim, b, row, sim->reg);
        nk_sim_read_disturb(sim, block, page);
    }
    nk_sim_emit(sim, NK_SIM_EVENT_OP, NK_SIM_OP_READ, row, sim->column,
                (uint32_t)(sim->rdy_until - sim->now), 0, NULL);
}
