/* SPDX-License-Identifier: MIT */
/*
 * The simulated controller's Hamming hardware ECC engine (as on the S3C2410
 * or the STM32 FSMC): once armed, it takes the next step_size bytes moved in
 * the armed direction as they cross the bus (sim_port.c captures them) and
 * yields Linux's 3-byte Hamming code over them. It costs no virtual time;
 * its host time is the simulator's, not the library's.
 *
 * Kept apart from sim_port.c so that a program using only the plain ports
 * does not need the core's Hamming code.
 */
#include <string.h>

#include "nandkit/ecc.h"
#include "sim_internal.h"

static int nk_sim_ecc_enable(void *ctx, enum nk_ecc_direction dir)
{
    struct nk_sim_port *port = ctx;
    if (!port->ecc_step)
        return -NK_ENOTSUP;
    port->ecc_armed = true;
    port->ecc_dir = dir;
    port->ecc_count = 0;
    return 0;
}

static int nk_sim_ecc_read_code(void *ctx, uint8_t *code)
{
    struct nk_sim_port *port = ctx;
    if (!port->ecc_step)
        return -NK_ENOTSUP;
    /* The engine computes over a whole step; one not transferred yet has
     * no code. */
    if (!port->ecc_armed || port->ecc_count < port->ecc_step)
        return -NK_EPROTO;
    uint64_t host_start = port->sim->measure_host_time ? nk_sim_host_clock(port->sim) : 0;
    nk_hamming_calculate(port->ecc_buf, port->ecc_step,
                         (port->flags & NK_SIM_PORT_ECC_SM_ORDER) != 0, code);
    port->ecc_armed = false;
    if (port->sim->measure_host_time)
        port->sim->counters.host_ns += nk_sim_host_clock(port->sim) - host_start;
    return 0;
}

static const struct nk_ctrl_ops nk_sim_ecc_ops = {
    .exec_op = nk_sim_port_exec_op,
    .set_data_loop = nk_sim_port_set_data_loop,
    .ecc_enable = nk_sim_ecc_enable,
    .ecc_read_code = nk_sim_ecc_read_code,
    .clock_ticks = nk_sim_port_clock_ticks,
};

const struct nk_ctrl *nk_sim_ctrl_port(struct nk_sim *sim, unsigned flags, unsigned ecc_step)
{
    if (flags & ~(NK_SIM_PORT_NO_RB | NK_SIM_PORT_ECC_SM_ORDER))
        return NULL;
    if (ecc_step != 0 && ecc_step != 256 && ecc_step != 512)
        return NULL;
    if (!ecc_step && (flags & NK_SIM_PORT_ECC_SM_ORDER))
        return NULL;
    return nk_sim_port_setup(sim, flags, ecc_step, &nk_sim_ecc_ops);
}

const struct nk_ctrl *nk_sim_ctrl_hw_ecc(struct nk_sim *sim, unsigned step_size)
{
    if (step_size != 256 && step_size != 512)
        return NULL;
    return nk_sim_port_setup(sim, 0, step_size, &nk_sim_ecc_ops);
}
