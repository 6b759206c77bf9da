/* SPDX-License-Identifier: MIT */
/*
 * Minimal Cortex-M4 start-up: the vector table (reset and faults only), a
 * reset handler that copies .data, zeroes .bss, starts the DWT cycle counter
 * and calls main(), and the board's time (board.h). A real project uses its
 * vendor's start-up file instead.
 */
#include <stdint.h>

#include "board.h"

/* DWT cycle counter (ARMv7-M debug unit): DEMCR.TRCENA, DWT_CTRL.CYCCNTENA. */
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

uint32_t board_cycles(void)
{
    return DWT_CYCCNT;
}

void board_delay_us(uint32_t us)
{
    uint32_t start = board_cycles();
    while (board_us_since(start) < us) {
    }
}

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);
void Reset_Handler(void);
void Default_Handler(void);

void Default_Handler(void)
{
    for (;;) {
    }
}

void Reset_Handler(void)
{
    const uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (uint32_t *dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
    DEMCR |= 1u << 24;
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u;
    main();
    for (;;) {
    }
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack, /* initial stack pointer */
    Reset_Handler,
    Default_Handler, /* NMI */
    Default_Handler, /* HardFault */
    Default_Handler, /* MemManage */
    Default_Handler, /* BusFault */
    Default_Handler, /* UsageFault */
};
