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

/* Microseconds busy-wait (SysTick or DWT cycle counter on a real board). */
void board_delay_us(uint32_t us);

#endif /* BOARD_H */
