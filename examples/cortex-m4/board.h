/* SPDX-License-Identifier: MIT */
/*
 * What the application (app.c) needs from a board: one NAND controller port.
 * fmc_port.c and gpio_port.c each provide it; the linker script and
 * startup.c are shared.
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#include "nandkit/ctrl.h"

/* Sets up clocks, pins and the controller; returns the port. */
const struct nk_ctrl *board_nand_port(void);

/* Time from the Cortex-M4's DWT cycle counter (startup.c starts it), at
 * BOARD_CPU_HZ: a busy-wait of at least `us` microseconds, and the
 * microseconds since an earlier board_time_us() (wraps after 2^32 cycles,
 * 25 s at 168 MHz: longer than any NAND wait). Ports measure WAIT_READY's
 * timeout with it, in time rather than in loop iterations. */
#define BOARD_CPU_HZ 168000000u
void board_delay_us(uint32_t us);
uint32_t board_cycles(void);
static inline uint32_t board_us_since(uint32_t start_cycles)
{
    return (board_cycles() - start_cycles) / (BOARD_CPU_HZ / 1000000u);
}

#endif /* BOARD_H */
