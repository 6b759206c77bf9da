/* SPDX-License-Identifier: MIT */
/*
 * Read cache sequential/end (31h/3Fh) and the copy-back rules.
 *
 * Read cache (ONFI; Micron MT29F2G08ABAEA datasheet, "READ PAGE CACHE
 * SEQUENTIAL"): after 00h-address-30h has loaded page N, 31h moves it to
 * the cache register in tRCBSY and starts loading page N+1 into the data
 * register in the background; the host reads page N from the cache register
 * while the array works. The next 31h waits for that load, moves N+1 to the
 * cache register (tRCBSY) and starts N+2; 3Fh does the same without starting
 * another load and ends the sequence. A sequence stays within a block: 31h
 * on the last page of a block is a protocol error. A page read, program or
 * erase inside an open sequence is one too (the datasheets ask for 3Fh
 * first).
 *
 * Copy-back (Samsung K9F1G08U0A datasheet, "Copy-Back Program"; Micron
 * "READ FOR INTERNAL DATA MOVE"): 00h-address-35h loads a page; the host
 * may read it out (for an ECC check) and change columns with 85h; then
 * 85h-address-[data]-10h programs the register to the destination. The
 * destination must be in the source's plane (planes interleaved by block)
 * and, on parts flagged NK_CHIP_COPYBACK_PARITY, of the same page parity.
 */
#include "sim_internal.h"

static void nk_sim_cache_output(struct nk_sim *sim, uint32_t row)
{
    sim->state = NK_SIM_S_OUTPUT;
    sim->out_buf = sim->reg;
    sim->out_len = sim->page_bytes;
    sim->column = 0;
    sim->out_wrap = false;
    sim->read_valid = true;
    sim->read_row = row;
}

/* Starts the background load of the page after `row`, unless it is in the
 * next block or the sequence ends. */
static void nk_sim_cache_read_ahead(struct nk_sim *sim, uint32_t row, bool last, uint8_t cmd)
{
    uint32_t next = row + 1;
    sim->cache_read_next = UINT32_MAX;
    sim->array_until = sim->rdy_until;
    if (last)
        return;
    if ((next >> sim->ppb_shift) != (row >> sim->ppb_shift) || next >= sim->rows) {
        nk_sim_protocol_error(sim, cmd, "31h on the last page of a block");
        return;
    }
    sim->cache_read_next = next;
    sim->array_until = sim->rdy_until + sim->params.chip.timing.tR_ns;
}

void nk_sim_cache_read(struct nk_sim *sim, bool last)
{
    uint8_t cmd = last ? NK_CMD_READCACHEEND : NK_CMD_READCACHESEQ;
    const struct nk_chip_timing *t = &sim->params.chip.timing;
    if (sim->cache_read_next == UINT32_MAX) {
        if (last || !sim->read_valid || sim->read_row == UINT32_MAX ||
            sim->state == NK_SIM_S_PROG_DATA) {
            nk_sim_protocol_error(sim, cmd,
                                  last ? "3Fh without a read cache sequence"
                                       : "31h without a page loaded by 00h..30h");
            return;
        }
        /* First 31h: the page 30h loaded goes to the cache register. */
        uint32_t row = sim->read_row;
        uint64_t start = sim->now > sim->array_until ? sim->now : sim->array_until;
        sim->rdy_until = start + t->tRCBSY_ns;
        sim->copyback_row = UINT32_MAX;
        nk_sim_cache_output(sim, row);
        nk_sim_cache_read_ahead(sim, row, false, cmd);
    } else {
        uint32_t row = sim->cache_read_next;
        sim->cache_status = false;
        nk_sim_op_read(sim, row); /* waits for the load, applies the read physics */
        if (!sim->powered)
            return;
        sim->rdy_until = sim->rdy_until - t->tR_ns + t->tRCBSY_ns;
        nk_sim_cache_output(sim, row);
        nk_sim_cache_read_ahead(sim, row, last, cmd);
    }
    sim->counters.ops[NK_SIM_OP_CACHE_READ]++;
    nk_sim_emit(sim, NK_SIM_EVENT_OP, NK_SIM_OP_CACHE_READ, sim->read_row, 0,
                (uint32_t)(sim->rdy_until - sim->now), 0, NULL);
}

bool nk_sim_copyback_allowed(struct nk_sim *sim, uint32_t row)
{
    uint32_t source = sim->copyback_row;
    unsigned planes = sim->params.chip.planes ? sim->params.chip.planes : 1u;
    if (source == UINT32_MAX) {
        nk_sim_protocol_error(sim, NK_CMD_PAGEPROG, "copy-back program without 00h..35h");
        return false;
    }
    if (row == UINT32_MAX || row >= sim->rows)
        return true; /* the program itself reports it */
    if ((source >> sim->ppb_shift) % planes != (row >> sim->ppb_shift) % planes) {
        nk_sim_protocol_error(sim, NK_CMD_PAGEPROG, "copy-back across planes");
        return false;
    }
    if ((sim->params.chip.features & NK_CHIP_COPYBACK_PARITY) && ((source ^ row) & 1u)) {
        nk_sim_protocol_error(sim, NK_CMD_PAGEPROG, "copy-back between odd and even pages");
        return false;
    }
    return true;
}
