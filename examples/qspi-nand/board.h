/* SPDX-License-Identifier: MIT */
/*
 * What the application (app.c) needs from a board with a SPI-NAND part on
 * the STM32 QUADSPI controller: the serial port (qspi_port.c) and time.
 * The start-up code and the linker script are the Cortex-M4 example's
 * (../cortex-m4/startup.c, stm32f4.ld), whose time functions these are.
 */
#ifndef BOARD_H
#define BOARD_H

#include <stdint.h>

#include "nandkit/ctrl.h"

/* Sets up the QUADSPI controller (clock, pins, prescaler); returns the port. */
const struct nk_ctrl *board_nand_port(void);

/* Time from the DWT cycle counter at BOARD_CPU_HZ (STM32F446 at its
 * 180 MHz maximum; QUADSPI runs from the same AHB clock). */
#define BOARD_CPU_HZ 180000000u
void board_delay_us(uint32_t us);
uint32_t board_cycles(void);
static inline uint32_t board_us_since(uint32_t start_cycles)
{
    return (board_cycles() - start_cycles) / (BOARD_CPU_HZ / 1000000u);
}

#endif /* BOARD_H */
