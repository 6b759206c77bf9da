/* SPDX-License-Identifier: MIT */
/*
 * Several targets (chip enables) on one bus.
 *
 * Each target is a complete simulated chip with its own clock, busy state
 * and R/B line. The bus keeps the one clock that matters to the host: an
 * operation on target k first brings k's clock up to the bus time (landing
 * whatever k finished meanwhile), runs there, and leaves the bus at k's new
 * time. Because the host issues one operation at a time and every cycle
 * advances the bus clock, two transfers never overlap, while one target's
 * array time (tR, tPROG, tBERS) runs on in the background as the host talks
 * to another: the overlap a multi-chip board gets from separate chip
 * enables and R/B lines.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

struct nk_sim_bus {
    struct nk_ctrl ctrl;
    struct nk_clock clock;
    struct nk_sim *targets[NK_SIM_BUS_MAX_TARGETS];
    void *ports[NK_SIM_BUS_MAX_TARGETS];
    unsigned count;
    unsigned last; /* target of the latest operation; count: none */
    uint64_t now;
};

/* A target between a command and its last address cycle owns the bus. */
static bool nk_sim_bus_owned(const struct nk_sim *sim)
{
    switch (sim->state) {
    case NK_SIM_S_READ_ADDR:
    case NK_SIM_S_RNDOUT_ADDR:
    case NK_SIM_S_PROG_ADDR:
    case NK_SIM_S_RNDIN_ADDR:
    case NK_SIM_S_ERASE_ADDR:
    case NK_SIM_S_ID_ADDR:
    case NK_SIM_S_PARAM_ADDR:
    case NK_SIM_S_GETFEAT_ADDR:
    case NK_SIM_S_SETFEAT_ADDR:
        return sim->addr_count < sim->addr_expected && !sim->resume_ok;
    default:
        return false;
    }
}

/* No target at this select: time passes, reads float high. */
static int nk_sim_bus_floating(struct nk_sim_bus *bus, const struct nk_op *op)
{
    const struct nk_chip_timing *t = &bus->targets[0]->params.chip.timing;
    for (unsigned i = 0; i < op->count; i++) {
        const struct nk_instr *instr = &op->instrs[i];
        switch (instr->type) {
        case NK_INSTR_CMD:
            bus->now += t->tWC_ns;
            break;
        case NK_INSTR_ADDR:
            bus->now += (uint64_t)instr->u.addr.count * t->tWC_ns;
            break;
        case NK_INSTR_DATA_OUT:
            bus->now += (uint64_t)instr->u.out.len * t->tWC_ns;
            break;
        case NK_INSTR_DATA_IN:
            if (instr->u.in.len && instr->u.in.buf)
                memset(instr->u.in.buf, 0xff, instr->u.in.len);
            bus->now += (uint64_t)instr->u.in.len * t->tRC_ns;
            break;
        case NK_INSTR_WAIT_READY:
            break;
        }
    }
    return 0;
}

static int nk_sim_bus_exec_op(void *ctx, const struct nk_op *op)
{
    struct nk_sim_bus *bus = ctx;
    if (!op || (op->count && !op->instrs))
        return -NK_EINVAL;
    if (op->chip_select >= bus->count)
        return nk_sim_bus_floating(bus, op);
    unsigned k = op->chip_select;
    struct nk_sim *sim = bus->targets[k];
    if (bus->last != k && bus->last < bus->count) {
        struct nk_sim *owner = bus->targets[bus->last];
        if (nk_sim_bus_owned(owner)) {
            nk_sim_protocol_error(owner, owner->first_cmd,
                                  "another target selected before the address was complete");
            owner->state = NK_SIM_S_IDLE;
        }
        /* A delay after the other target's last cycle (tWB...) is its own. */
        sim->pending_delay = 0;
    }
    if (sim->now < bus->now) {
        if (sim->powered) {
            int err = nk_sim_time_advance(sim, bus->now - sim->now);
            if (err && !sim->powered) {
                bus->now = sim->now > bus->now ? sim->now : bus->now;
                return err;
            }
        } else {
            sim->now = bus->now;
        }
    }
    struct nk_op local = *op;
    local.chip_select = 0;
    int err = nk_sim_port_exec_op(bus->ports[k], &local);
    if (sim->now > bus->now)
        bus->now = sim->now;
    bus->last = k;
    return err;
}

static uint64_t nk_sim_bus_now(void *ctx)
{
    const struct nk_sim_bus *bus = ctx;
    return bus->now;
}

static uint32_t nk_sim_bus_clock_ticks(void *ctx)
{
    const struct nk_sim_bus *bus = ctx;
    return (uint32_t)bus->now;
}

static const struct nk_ctrl_ops nk_sim_bus_ops = {
    .exec_op = nk_sim_bus_exec_op,
    .clock_ticks = nk_sim_bus_clock_ticks,
};

int nk_sim_bus_open(struct nk_sim_bus **out, struct nk_sim *const *targets, unsigned count,
                    unsigned flags)
{
    *out = NULL;
    if (!targets || count == 0 || count > NK_SIM_BUS_MAX_TARGETS)
        return -NK_EINVAL;
    struct nk_sim_bus *bus = calloc(1, sizeof *bus);
    if (!bus)
        return -NK_ENOMEM;
    for (unsigned i = 0; i < count; i++) {
        if (!targets[i] || targets[i]->spi.part) { /* a SPI-NAND part is no parallel target */
            free(bus);
            return -NK_EINVAL;
        }
        const struct nk_ctrl *port =
            nk_sim_port_setup(targets[i], flags & NK_SIM_PORT_NO_RB, 0, NULL);
        bus->targets[i] = targets[i];
        bus->ports[i] = port->ctx;
        if (targets[i]->now > bus->now)
            bus->now = targets[i]->now;
    }
    bus->count = count;
    bus->last = count;
    bus->ctrl.ops = &nk_sim_bus_ops;
    bus->ctrl.ctx = bus;
    bus->ctrl.caps = NK_CTRL_CAP_INDEPENDENT_TARGETS;
    bus->ctrl.clock_mhz = 1000;
    if (!(flags & NK_SIM_PORT_NO_RB))
        bus->ctrl.caps |= NK_CTRL_CAP_RB_LINE;
    bus->clock.now_ns = nk_sim_bus_now;
    bus->clock.ctx = bus;
    *out = bus;
    return 0;
}

void nk_sim_bus_close(struct nk_sim_bus *bus)
{
    free(bus);
}

const struct nk_ctrl *nk_sim_bus_ctrl(struct nk_sim_bus *bus)
{
    return &bus->ctrl;
}

uint64_t nk_sim_bus_time_ns(const struct nk_sim_bus *bus)
{
    return bus->now;
}

const struct nk_clock *nk_sim_bus_clock(struct nk_sim_bus *bus)
{
    return &bus->clock;
}
