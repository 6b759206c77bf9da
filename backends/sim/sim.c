/* SPDX-License-Identifier: MIT */
/*
 * Simulator lifetime and public knobs: open (part, faults, ports, array),
 * close, counters, trace, power schedule, fault injection, inspection.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* ----- randomness ------------------------------------------------------------ */

/* splitmix64: one 64-bit state per stream, good enough statistically and
 * trivially reproducible. */
uint64_t nk_sim_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double nk_sim_rng_double(uint64_t *state)
{
    return (double)(nk_sim_rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t nk_sim_mix(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return z ^ (z >> 33);
}

uint64_t nk_sim_hash(uint64_t a, uint64_t b, uint64_t c)
{
    return nk_sim_mix(
        a ^ nk_sim_mix((b + 0x632be59bd9b4e019ull) ^ nk_sim_mix(c + 0x9e3779b97f4a7c15ull)));
}

/* ----- events ---------------------------------------------------------------- */

void nk_sim_emit(struct nk_sim *sim, enum nk_sim_event_kind kind, enum nk_sim_op_kind op,
                 uint32_t row, uint32_t column, uint32_t busy_ns, uint8_t byte, const char *what)
{
    if (!sim->trace)
        return;
    struct nk_sim_event event = {
        .kind = kind,
        .op = op,
        .time_ns = sim->now,
        .busy_ns = busy_ns,
        .row = row,
        .column = column,
        .status = nk_sim_chip_status(sim, sim->now + busy_ns),
        .byte = byte,
        .what = what,
    };
    sim->trace(sim->trace_ctx, &event);
}

void nk_sim_protocol_error(struct nk_sim *sim, uint8_t byte, const char *what)
{
    sim->counters.protocol_errors++;
    nk_sim_emit(sim, NK_SIM_EVENT_PROTOCOL, NK_SIM_OP_KIND_COUNT, UINT32_MAX, 0, 0, byte, what);
}

/* ----- open / close ---------------------------------------------------------- */

static bool nk_sim_all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static uint64_t nk_sim_clock_now(void *ctx)
{
    return ((const struct nk_sim *)ctx)->now;
}

/* Builds the byte streams the parameter-page reads answer with. */
static int nk_sim_build_param_buffers(struct nk_sim *sim)
{
    const struct nk_sim_params *p = &sim->params;
    if (p->onfi) {
        sim->onfi_len = 768 + NK_SIM_ONFI_COPIES * (uint32_t)p->onfi_ext_len;
        sim->onfi_buf = malloc(sim->onfi_len);
        if (!sim->onfi_buf)
            return -NK_ENOMEM;
        memcpy(sim->onfi_buf, p->onfi_page, 768);
        memcpy(sim->onfi_buf + 768, p->onfi_ext_page, NK_SIM_ONFI_COPIES * (size_t)p->onfi_ext_len);
    }
    if (p->jedec) {
        sim->jedec_len = sizeof p->jedec_page;
        sim->jedec_buf = malloc(sim->jedec_len);
        if (!sim->jedec_buf)
            return -NK_ENOMEM;
        memcpy(sim->jedec_buf, p->jedec_page, sim->jedec_len);
    }
    return 0;
}

static int nk_sim_resolve_part(const struct nk_sim_config *config, struct nk_sim_params *params,
                               struct nk_diag *why)
{
    if (config->params) {
        *params = *config->params;
        return 0;
    }
    if (config->preset) {
        if (nk_sim_preset(config->preset, params) == 0)
            return 0;
        char names[NK_DIAG_LEN];
        size_t len = 0;
        names[0] = '\0';
        for (unsigned i = 0; nk_sim_preset_name(i); i++)
            len += nk_format(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                             nk_sim_preset_name(i));
        return nk_diag_set(why, -NK_ENOENT, "unknown chip '%s' (known: %s)", config->preset, names);
    }
    if (config->image_path && !config->create && !config->no_sidecar)
        return nk_sim_sidecar_part(config->image_path, params, why);
    return nk_diag_set(why, -NK_EINVAL, "no chip given: name a preset or a geometry");
}

int nk_sim_open(struct nk_sim **out, const struct nk_sim_config *config, struct nk_diag *why)
{
    if (why)
        why->text[0] = '\0';
    if (!out || !config)
        return nk_diag_set(why, -NK_EINVAL, "no configuration");
    *out = NULL;
    struct nk_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return nk_diag_set(why, -NK_ENOMEM, "out of memory");
    sim->fd = -1;
    int err = nk_sim_resolve_part(config, &sim->params, why);
    if (err)
        goto fail;
    err = nk_sim_params_check(&sim->params, why);
    if (err)
        goto fail;
    struct nk_sim_params *p = &sim->params;
    if (p->onfi && nk_sim_all_zero(p->onfi_page, sizeof p->onfi_page))
        nk_sim_params_build_pages(p);
    if (p->jedec && nk_sim_all_zero(p->jedec_page, sizeof p->jedec_page))
        nk_sim_params_build_pages(p);
    if (!p->tFEAT_ns)
        p->tFEAT_ns = 1000;

    const struct nk_chip_info *c = &p->chip;
    sim->seed = config->seed;
    sim->page_bytes = c->page_size + c->oob_size;
    while ((1u << sim->ppb_shift) < c->pages_per_block)
        sim->ppb_shift++;
    sim->rows = c->pages_per_block * c->blocks;
    sim->block_bytes = (uint64_t)c->pages_per_block * sim->page_bytes;
    sim->small_page = (c->features & NK_CHIP_SMALL_PAGE) != 0;
    if (config->faults_set) {
        sim->faults = config->faults;
    } else {
        memset(&sim->faults, 0, sizeof sim->faults);
        sim->faults.strict_page_order = true;
        sim->faults.enforce_nop = true;
    }
    sim->trace = config->trace;
    sim->trace_ctx = config->trace_ctx;
    sim->measure_host_time = config->measure_host_time;
    sim->read_only = config->read_only;
    sim->write_through = config->write_through;
    sim->no_sidecar = config->no_sidecar;
    sim->rng_bits = nk_sim_hash(config->seed, 1, 0);
    sim->rng_fault = nk_sim_hash(config->seed, 2, 0);
    sim->rng_cut = nk_sim_hash(config->seed, 3, 0);
    sim->rng_unstable = nk_sim_hash(config->seed, 4, 0);
    sim->rng_garbage = nk_sim_hash(config->seed, 5, 0);
    sim->clock.now_ns = nk_sim_clock_now;
    sim->clock.ctx = sim;

    sim->reg = malloc(sim->page_bytes);
    sim->page_buf = malloc(sim->page_bytes);
    sim->scratch = malloc(sim->page_bytes);
    sim->erased_page = malloc(sim->page_bytes);
    sim->flip_pos = malloc(NK_SIM_FLIP_MAX * sizeof *sim->flip_pos);
    if (!sim->reg || !sim->page_buf || !sim->scratch || !sim->erased_page || !sim->flip_pos) {
        err = nk_diag_set(why, -NK_ENOMEM, "out of memory for %u-byte page registers",
                          sim->page_bytes);
        goto fail;
    }
    memset(sim->reg, 0xff, sim->page_bytes);
    memset(sim->erased_page, 0xff, sim->page_bytes);
    err = nk_sim_build_param_buffers(sim);
    if (err) {
        nk_diag_set(why, err, "out of memory");
        goto fail;
    }
    err = nk_sim_array_init(sim, config, why);
    if (err)
        goto fail;
    nk_sim_ports_init(sim);
    sim->powered = true;
    nk_sim_chip_power_on(sim);
    *out = sim;
    return 0;
fail:
    nk_sim_array_free(sim);
    free(sim->onfi_buf);
    free(sim->jedec_buf);
    free(sim->flip_pos);
    free(sim->erased_page);
    free(sim->scratch);
    free(sim->page_buf);
    free(sim->reg);
    free(sim);
    return err;
}

int nk_sim_close(struct nk_sim *sim)
{
    if (!sim)
        return 0;
    if (sim->pending.active)
        nk_sim_settle(sim, sim->pending.end);
    int err = nk_sim_array_sync(sim, NULL);
    nk_sim_array_free(sim);
    free(sim->stuck);
    free(sim->onfi_buf);
    free(sim->jedec_buf);
    free(sim->flip_pos);
    free(sim->erased_page);
    free(sim->scratch);
    free(sim->page_buf);
    free(sim->reg);
    free(sim);
    return err;
}

int nk_sim_sync(struct nk_sim *sim, struct nk_diag *why)
{
    if (why)
        why->text[0] = '\0';
    return nk_sim_array_sync(sim, why);
}

/* ----- clock, part, counters, trace ----------------------------------------- */

uint64_t nk_sim_time_ns(const struct nk_sim *sim)
{
    return sim->now;
}

const struct nk_clock *nk_sim_clock(struct nk_sim *sim)
{
    return &sim->clock;
}

const struct nk_sim_params *nk_sim_params(const struct nk_sim *sim)
{
    return &sim->params;
}

void nk_sim_counters(const struct nk_sim *sim, struct nk_sim_counters *counters)
{
    *counters = sim->counters;
}

void nk_sim_counters_reset(struct nk_sim *sim)
{
    memset(&sim->counters, 0, sizeof sim->counters);
}

void nk_sim_trace_set(struct nk_sim *sim, nk_sim_trace_fn trace, void *ctx)
{
    sim->trace = trace;
    sim->trace_ctx = ctx;
}

const char *nk_sim_op_name(enum nk_sim_op_kind kind)
{
    static const char *const names[NK_SIM_OP_KIND_COUNT] = {
        "reset",         "read-id",   "read-param", "read",          "program",
        "cache-program", "erase",     "status",     "get-features",  "set-features",
        "random-out",    "random-in", "cache-read", "copyback-read", "copyback-program",
    };
    return (unsigned)kind < NK_SIM_OP_KIND_COUNT ? names[kind] : "?";
}

/* ----- power ------------------------------------------------------------------ */

void nk_sim_power_cut_after(struct nk_sim *sim, uint64_t ops)
{
    sim->cut_by_ops = true;
    sim->cut_by_time = false;
    sim->cut_op = sim->array_op_serial + ops + 1;
}

void nk_sim_power_cut_at_time(struct nk_sim *sim, uint64_t time_ns)
{
    sim->cut_by_time = true;
    sim->cut_by_ops = false;
    sim->cut_time = time_ns;
}

void nk_sim_power_cut_cancel(struct nk_sim *sim)
{
    sim->cut_by_ops = false;
    sim->cut_by_time = false;
}

void nk_sim_power_cut_now(struct nk_sim *sim)
{
    if (sim->powered)
        nk_sim_power_fail(sim, sim->now, UINT32_MAX);
}

bool nk_sim_powered(const struct nk_sim *sim)
{
    return sim->powered;
}

void nk_sim_power_restore(struct nk_sim *sim)
{
    if (sim->powered)
        return;
    sim->powered = true;
    nk_sim_chip_power_on(sim);
    nk_sim_emit(sim, NK_SIM_EVENT_POWER_RESTORE, NK_SIM_OP_KIND_COUNT, UINT32_MAX, 0, 0, 0,
                "power restored");
}

/* ----- faults ------------------------------------------------------------------ */

void nk_sim_faults_get(const struct nk_sim *sim, struct nk_sim_faults *faults)
{
    *faults = sim->faults;
}

void nk_sim_faults_set(struct nk_sim *sim, const struct nk_sim_faults *faults)
{
    sim->faults = *faults;
}

int nk_sim_fail_inject(struct nk_sim *sim, uint32_t block, unsigned what, bool permanent)
{
    if (block >= sim->params.chip.blocks || !what ||
        (what & ~(NK_SIM_FAIL_PROGRAM | NK_SIM_FAIL_ERASE)))
        return -NK_EINVAL;
    struct nk_sim_block *b = &sim->blocks[block];
    if (permanent) {
        if (what & NK_SIM_FAIL_PROGRAM)
            b->flags |= NK_SIM_BLOCK_FAIL_PROGRAM;
        if (what & NK_SIM_FAIL_ERASE)
            b->flags |= NK_SIM_BLOCK_FAIL_ERASE;
    } else {
        b->fail_once |= (uint8_t)what;
    }
    return 0;
}

int nk_sim_fail_clear(struct nk_sim *sim, uint32_t block)
{
    if (block >= sim->params.chip.blocks)
        return -NK_EINVAL;
    struct nk_sim_block *b = &sim->blocks[block];
    b->flags &=
        (uint16_t) ~(NK_SIM_BLOCK_FAIL_PROGRAM | NK_SIM_BLOCK_FAIL_ERASE | NK_SIM_BLOCK_WORN);
    b->fail_once = 0;
    return 0;
}

int nk_sim_stuck_bit_add(struct nk_sim *sim, uint32_t row, uint32_t bit, bool value)
{
    if (row >= sim->rows || bit >= sim->page_bytes * 8u)
        return -NK_EINVAL;
    for (uint32_t i = 0; i < sim->stuck_count; i++) {
        if (sim->stuck[i].row == row && sim->stuck[i].bit == bit) {
            sim->stuck[i].value = value;
            return 0;
        }
    }
    if (sim->stuck_count == sim->stuck_cap) {
        uint32_t cap = sim->stuck_cap ? sim->stuck_cap * 2 : 16;
        struct nk_sim_stuck *grown = realloc(sim->stuck, cap * sizeof *grown);
        if (!grown)
            return -NK_ENOMEM;
        sim->stuck = grown;
        sim->stuck_cap = cap;
    }
    sim->stuck[sim->stuck_count++] = (struct nk_sim_stuck){row, bit, value};
    sim->blocks[row >> sim->ppb_shift].flags |= NK_SIM_BLK_STUCK;
    return 0;
}

void nk_sim_stuck_bits_clear(struct nk_sim *sim)
{
    for (uint32_t i = 0; i < sim->stuck_count; i++)
        sim->blocks[sim->stuck[i].row >> sim->ppb_shift].flags &= (uint16_t)~NK_SIM_BLK_STUCK;
    sim->stuck_count = 0;
}

void nk_sim_write_protect(struct nk_sim *sim, bool protect)
{
    sim->write_protect = protect;
}

/* ----- inspection -------------------------------------------------------------- */

int nk_sim_block_get(const struct nk_sim *sim, uint32_t block, struct nk_sim_block_state *state)
{
    if (block >= sim->params.chip.blocks || !state)
        return -NK_EINVAL;
    const struct nk_sim_block *b = &sim->blocks[block];
    state->erase_count = b->erase_count;
    state->reads_since_erase = b->reads;
    state->flags = b->flags & NK_SIM_BLK_PUBLIC;
    state->next_page = b->pages || (b->flags & NK_SIM_BLK_ERASED) ? b->next_page : 0;
    state->resident = b->pages != NULL;
    return 0;
}

int nk_sim_block_set_erase_count(struct nk_sim *sim, uint32_t block, uint32_t erase_count)
{
    if (block >= sim->params.chip.blocks)
        return -NK_EINVAL;
    sim->blocks[block].erase_count = erase_count;
    return 0;
}

void nk_sim_memory_get(const struct nk_sim *sim, struct nk_sim_memory *memory)
{
    memory->resident_blocks = sim->resident_blocks;
    memory->resident_pages = sim->resident_pages;
    memory->resident_bytes = (uint64_t)sim->resident_blocks * nk_sim_table_bytes(sim) +
                             sim->resident_pages * sim->page_bytes;
    /* What nk_sim_open() allocated: the sim, its block records, four page
     * registers, the read-error list, the parameter pages, the path. */
    memory->fixed_bytes = sizeof *sim + (uint64_t)sim->params.chip.blocks * sizeof *sim->blocks +
                          4u * (uint64_t)sim->page_bytes + NK_SIM_FLIP_MAX * sizeof *sim->flip_pos +
                          sim->onfi_len + sim->jedec_len +
                          (sim->image_path ? strlen(sim->image_path) + 1 : 0);
    memory->fault_bytes = (uint64_t)sim->weak_cap * sizeof *sim->weak +
                          (uint64_t)sim->weak_count * sim->page_bytes +
                          (uint64_t)sim->stuck_cap * sizeof *sim->stuck;
    memory->total_bytes = memory->fixed_bytes + memory->resident_bytes + memory->fault_bytes;
}

char *nk_sim_sidecar_path(const char *image_path, char *buf, size_t size)
{
    size_t n = strlen(image_path);
    if (n + sizeof ".nksim" > size)
        return NULL;
    memcpy(buf, image_path, n);
    memcpy(buf + n, ".nksim", sizeof ".nksim");
    return buf;
}
