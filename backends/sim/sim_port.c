/* SPDX-License-Identifier: MIT */
/*
 * The controller side: exec_op over the chip, the virtual clock, the data
 * loops, and the bytes the hardware ECC engine sees.
 *
 * Timing rules (docs/simulator.md has the worked example):
 *   - a CMD cycle and each ADDR cycle cost tWC; DATA_OUT tWC per byte;
 *     DATA_IN tRC per byte;
 *   - a busy period starts at the end of the confirm cycle; WAIT_READY
 *     advances the clock to its end (or by its timeout, -NK_ETIMEDOUT);
 *   - an instruction's delay_ns is an edge-to-edge minimum to the next
 *     instruction's first cycle, so the extra wait is
 *     max(0, delay_ns - that cycle's duration); a delay on the last
 *     instruction carries over to the next operation.
 * The hardware ECC engine's hooks are in sim_hwecc.c.
 * Only one chip sits on the bus, at chip select 0; other selects float
 * (reads return 0xff, nothing else happens).
 */
#include <string.h>
#include <time.h>

#include "sim_internal.h"

#include "nandkit/spinand.h"

uint64_t nk_sim_host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t nk_sim_host_clock(struct nk_sim *sim)
{
    sim->counters.clock_reads++;
    return nk_sim_host_ns();
}

/* The CPU side of a data transfer: a byte loop (one access per byte, as a
 * plain loop over an 8-bit data register) or an unrolled loop of 32-bit
 * register accesses. This is board-glue code, not simulator bookkeeping:
 * its host time is kept out of counters.host_ns (and reported in
 * counters.loop_ns) so that a benchmark counts it as part of the library
 * path (see docs/bench.md). `to_reg` moves buf into the register window. */
static void nk_sim_port_loop(struct nk_sim_port *port, uint8_t *buf, uint32_t len, bool to_reg)
{
    struct nk_sim *sim = port->sim;
    uint64_t start = sim->measure_host_time ? nk_sim_host_clock(sim) : 0;
    if (port->loop == NK_DATA_LOOP_BYTE) {
        volatile uint8_t *reg = port->window;
        if (to_reg) {
            for (uint32_t i = 0; i < len; i++)
                reg[i] = buf[i];
        } else {
            for (uint32_t i = 0; i < len; i++)
                buf[i] = reg[i];
        }
    } else {
        volatile uint32_t *reg = (volatile uint32_t *)(void *)port->window;
        uint32_t words = len / 4, w = 0;
        for (; w + 8 <= words; w += 8) {
            uint32_t v[8];
            if (to_reg) {
                memcpy(v, buf + 4 * w, sizeof v);
                reg[w] = v[0], reg[w + 1] = v[1], reg[w + 2] = v[2], reg[w + 3] = v[3];
                reg[w + 4] = v[4], reg[w + 5] = v[5], reg[w + 6] = v[6], reg[w + 7] = v[7];
            } else {
                v[0] = reg[w], v[1] = reg[w + 1], v[2] = reg[w + 2], v[3] = reg[w + 3];
                v[4] = reg[w + 4], v[5] = reg[w + 5], v[6] = reg[w + 6], v[7] = reg[w + 7];
                memcpy(buf + 4 * w, v, sizeof v);
            }
        }
        volatile uint8_t *tail = port->window;
        for (uint32_t i = 4 * w; i < len; i++) {
            if (to_reg)
                tail[i] = buf[i];
            else
                buf[i] = tail[i];
        }
    }
    if (sim->measure_host_time)
        sim->loop_ns += nk_sim_host_clock(sim) - start;
}

/* Power fails if the clock would pass the scheduled cut. Returns true when
 * it did (the instruction does not happen). */
static bool nk_sim_cut_before(struct nk_sim *sim, uint64_t end)
{
    if (!sim->cut_by_time || end <= sim->cut_time)
        return false;
    nk_sim_power_fail(sim, sim->cut_time, UINT32_MAX);
    return true;
}

int nk_sim_time_advance(struct nk_sim *sim, uint64_t ns)
{
    if (!sim->powered) {
        sim->now += ns;
        return -NK_ENODEV;
    }
    if (nk_sim_cut_before(sim, sim->now + ns))
        return -NK_ENODEV;
    sim->now += ns;
    nk_sim_settle(sim, sim->now);
    return 0;
}

/* The hardware engine sees the bytes of the armed step as they pass. */
static void nk_sim_ecc_capture(struct nk_sim_port *port, enum nk_ecc_direction dir,
                               const uint8_t *buf, uint32_t len)
{
    if (!port->ecc_armed || port->ecc_dir != dir || port->ecc_count >= port->ecc_step)
        return;
    uint32_t n = port->ecc_step - port->ecc_count;
    if (n > len)
        n = len;
    memcpy(port->ecc_buf + port->ecc_count, buf, n);
    port->ecc_count += n;
}

static int nk_sim_instr(struct nk_sim_port *port, const struct nk_instr *instr)
{
    struct nk_sim *sim = port->sim;
    const struct nk_chip_timing *t = &sim->params.chip.timing;
    uint32_t first; /* duration of the instruction's first cycle */
    switch (instr->type) {
    case NK_INSTR_CMD:
        first = t->tWC_ns;
        break;
    case NK_INSTR_ADDR:
        first = instr->u.addr.count ? t->tWC_ns : 0;
        break;
    case NK_INSTR_DATA_OUT:
        first = instr->u.out.len ? t->tWC_ns : 0;
        break;
    case NK_INSTR_DATA_IN:
        first = instr->u.in.len ? t->tRC_ns : 0;
        break;
    case NK_INSTR_WAIT_READY:
        first = 0;
        break;
    default:
        return -NK_EINVAL;
    }
    uint64_t extra = sim->pending_delay > first ? sim->pending_delay - first : 0;
    uint64_t start = sim->now + extra;
    sim->pending_delay = instr->delay_ns;
    if (instr->type != NK_INSTR_WAIT_READY)
        sim->counters.delay_ns += extra;

    switch (instr->type) {
    case NK_INSTR_CMD: {
        uint64_t end = start + t->tWC_ns;
        if (nk_sim_cut_before(sim, end))
            return -NK_ENODEV;
        sim->now = end;
        sim->counters.bus_ns += t->tWC_ns;
        nk_sim_settle(sim, end);
        nk_sim_chip_cmd(sim, instr->u.cmd);
        break;
    }
    case NK_INSTR_ADDR: {
        unsigned count = instr->u.addr.count;
        if (count > NK_MAX_ADDR_CYCLES)
            return -NK_EINVAL;
        uint64_t end = start + (uint64_t)count * t->tWC_ns;
        if (nk_sim_cut_before(sim, end))
            return -NK_ENODEV;
        sim->now = start;
        sim->counters.bus_ns += end - start;
        for (unsigned i = 0; i < count && sim->powered; i++) {
            sim->now += t->tWC_ns;
            nk_sim_settle(sim, sim->now);
            nk_sim_chip_addr(sim, instr->u.addr.cycles[i]);
        }
        break;
    }
    case NK_INSTR_DATA_OUT: {
        uint32_t len = instr->u.out.len;
        const uint8_t *buf = instr->u.out.buf;
        uint64_t end = start + (uint64_t)len * t->tWC_ns;
        if (nk_sim_cut_before(sim, end))
            return -NK_ENODEV;
        if (len && !buf)
            return -NK_EINVAL;
        uint64_t first_byte = start + t->tWC_ns;
        nk_sim_settle(sim, first_byte);
        for (uint32_t done = 0; done < len;) {
            uint32_t piece = len - done < NK_SIM_WINDOW ? len - done : NK_SIM_WINDOW;
            nk_sim_port_loop(port, (uint8_t *)buf + done, piece, true);
            nk_sim_chip_write(sim, port->window, piece, first_byte + (uint64_t)done * t->tWC_ns,
                              t->tWC_ns);
            done += piece;
        }
        nk_sim_ecc_capture(port, NK_ECC_DIR_WRITE, buf, len);
        sim->now = end;
        sim->counters.bus_ns += end - start;
        break;
    }
    case NK_INSTR_DATA_IN: {
        uint32_t len = instr->u.in.len;
        uint8_t *buf = instr->u.in.buf;
        uint64_t end = start + (uint64_t)len * t->tRC_ns;
        if (nk_sim_cut_before(sim, end))
            return -NK_ENODEV;
        if (len && !buf)
            return -NK_EINVAL;
        uint64_t first_byte = start + t->tRC_ns;
        sim->now = first_byte;
        nk_sim_settle(sim, first_byte);
        for (uint32_t done = 0; done < len;) {
            uint32_t piece = len - done < NK_SIM_WINDOW ? len - done : NK_SIM_WINDOW;
            nk_sim_chip_read(sim, port->window, piece, first_byte + (uint64_t)done * t->tRC_ns,
                             t->tRC_ns);
            nk_sim_port_loop(port, buf + done, piece, false);
            done += piece;
        }
        nk_sim_ecc_capture(port, NK_ECC_DIR_READ, buf, len);
        sim->now = end;
        sim->counters.bus_ns += end - start;
        break;
    }
    case NK_INSTR_WAIT_READY: {
        if (port->flags & NK_SIM_PORT_NO_RB)
            return -NK_ENOTSUP;
        uint64_t ready = sim->rdy_until > start ? sim->rdy_until : start;
        uint64_t limit = (uint64_t)instr->u.wait.timeout_us * 1000u;
        bool timed_out = instr->u.wait.timeout_us && ready - start > limit;
        uint64_t end = timed_out ? start + limit : ready;
        if (nk_sim_cut_before(sim, end))
            return -NK_ENODEV;
        /* A delay before the wait (tWB) overlaps the busy period. */
        uint64_t busy_end = sim->rdy_until < end ? sim->rdy_until : end;
        uint64_t busy = busy_end > sim->now ? busy_end - sim->now : 0;
        sim->counters.busy_wait_ns += busy;
        sim->counters.delay_ns += end - sim->now - busy;
        sim->now = end;
        nk_sim_settle(sim, end);
        if (timed_out)
            return -NK_ETIMEDOUT;
        break;
    }
    }
    return sim->powered ? 0 : -NK_ENODEV;
}

/* Chip selects other than 0: nothing answers; time still passes. */
static int nk_sim_floating(struct nk_sim *sim, const struct nk_op *op)
{
    const struct nk_chip_timing *t = &sim->params.chip.timing;
    for (unsigned i = 0; i < op->count; i++) {
        const struct nk_instr *instr = &op->instrs[i];
        switch (instr->type) {
        case NK_INSTR_CMD:
            sim->now += t->tWC_ns;
            break;
        case NK_INSTR_ADDR:
            sim->now += (uint64_t)instr->u.addr.count * t->tWC_ns;
            break;
        case NK_INSTR_DATA_OUT:
            sim->now += (uint64_t)instr->u.out.len * t->tWC_ns;
            break;
        case NK_INSTR_DATA_IN:
            if (instr->u.in.len && instr->u.in.buf)
                memset(instr->u.in.buf, 0xff, instr->u.in.len);
            sim->now += (uint64_t)instr->u.in.len * t->tRC_ns;
            break;
        case NK_INSTR_WAIT_READY:
            break;
        }
    }
    return 0;
}

int nk_sim_port_exec_op(void *ctx, const struct nk_op *op)
{
    struct nk_sim_port *port = ctx;
    struct nk_sim *sim = port->sim;
    if (!sim->powered)
        return -NK_ENODEV;
    if (!op || (op->count && !op->instrs))
        return -NK_EINVAL;
    uint64_t host_start = sim->measure_host_time ? nk_sim_host_clock(sim) : 0;
    int err = 0;
    if (op->chip_select != 0) {
        err = nk_sim_floating(sim, op);
    } else {
        for (unsigned i = 0; i < op->count && !err; i++)
            err = nk_sim_instr(port, &op->instrs[i]);
    }
    if (sim->measure_host_time) {
        uint64_t spent = nk_sim_host_clock(sim) - host_start;
        sim->counters.host_ns += spent > sim->loop_ns ? spent - sim->loop_ns : 0;
        sim->counters.loop_ns += sim->loop_ns;
        sim->loop_ns = 0;
    }
    return err;
}

int nk_sim_port_set_data_loop(void *ctx, enum nk_data_loop loop)
{
    struct nk_sim_port *port = ctx;
    if (loop != NK_DATA_LOOP_BYTE && loop != NK_DATA_LOOP_UNROLLED)
        return -NK_ENOTSUP;
    port->loop = loop;
    return 0;
}

uint32_t nk_sim_port_clock_ticks(void *ctx)
{
    const struct nk_sim_port *port = ctx;
    return (uint32_t)port->sim->now;
}

static const struct nk_ctrl_ops nk_sim_ops = {
    .exec_op = nk_sim_port_exec_op,
    .set_data_loop = nk_sim_port_set_data_loop,
    .clock_ticks = nk_sim_port_clock_ticks,
};

/* The data loop is accepted (the benchmark sets it) but the serial port
 * moves its data by one copy whatever it is. */
static const struct nk_ctrl_ops nk_sim_spinand_ops = {
    .exec_spi = nk_sim_spinand_exec,
    .poll_spi = nk_sim_spinand_poll,
    .set_data_loop = nk_sim_port_set_data_loop,
    .clock_ticks = nk_sim_port_clock_ticks,
};

static unsigned nk_sim_port_index(unsigned flags, unsigned ecc_step)
{
    unsigned engine = ecc_step == 256 ? 1 : ecc_step == 512 ? 2 : 0;
    return (flags & NK_SIM_PORT_NO_RB ? 6u : 0u) + engine * 2u +
           (flags & NK_SIM_PORT_ECC_SM_ORDER ? 1u : 0u);
}

void nk_sim_ports_init(struct nk_sim *sim)
{
    for (unsigned i = 0; i < NK_SIM_PORT_COUNT; i++) {
        struct nk_sim_port *port = &sim->ports[i];
        memset(port, 0, sizeof *port);
        port->sim = sim;
        port->loop = NK_DATA_LOOP_UNROLLED;
    }
}

const struct nk_ctrl *nk_sim_port_setup(struct nk_sim *sim, unsigned flags, unsigned ecc_step,
                                        const struct nk_ctrl_ops *ecc_ops)
{
    if (sim->spi.part && ecc_step)
        return NULL; /* a SPI-NAND part has no controller ECC in front of it */
    struct nk_sim_port *port = &sim->ports[nk_sim_port_index(flags, ecc_step)];
    if (!port->ready) {
        port->flags = flags;
        port->ecc_step = ecc_step;
        port->ctrl.ctx = port;
        port->ctrl.ops = ecc_step ? ecc_ops : &nk_sim_ops;
        port->ctrl.caps = NK_CTRL_CAP_DATA_LOOPS;
        port->ctrl.clock_mhz = 1000;
        if (!(flags & NK_SIM_PORT_NO_RB))
            port->ctrl.caps |= NK_CTRL_CAP_RB_LINE;
        if (ecc_step) {
            port->ctrl.caps |= NK_CTRL_CAP_HW_ECC;
            port->ctrl.ecc.algo = NK_HW_ECC_HAMMING;
            port->ctrl.ecc.step_size = (uint16_t)ecc_step;
            port->ctrl.ecc.bytes_per_step = 3;
            port->ctrl.ecc.strength = 1;
            port->ctrl.ecc.sm_order = (flags & NK_SIM_PORT_ECC_SM_ORDER) != 0;
        }
        if (sim->spi.part && !ecc_step) {
            /* A SPI-NAND part: the serial port, every width, the part's clock. */
            port->ctrl.ops = &nk_sim_spinand_ops;
            port->ctrl.caps = NK_CTRL_CAP_SERIAL | NK_CTRL_CAP_DATA_LOOPS;
            port->ctrl.spi.widths = NK_SPI_WIDTH_1 | NK_SPI_WIDTH_2 | NK_SPI_WIDTH_4;
            port->ctrl.spi.max_hz = sim->spi.part->max_hz;
        }
        port->ready = true;
    }
    return &port->ctrl;
}

const struct nk_ctrl *nk_sim_ctrl(struct nk_sim *sim)
{
    return nk_sim_port_setup(sim, 0, 0, NULL);
}

const struct nk_ctrl *nk_sim_ctrl_no_rb(struct nk_sim *sim)
{
    return nk_sim_port_setup(sim, NK_SIM_PORT_NO_RB, 0, NULL);
}
