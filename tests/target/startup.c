/* SPDX-License-Identifier: MIT */
/*
 * Start-up of the test firmware for the MPS2 boards QEMU models (AN385:
 * Cortex-M3, AN386: Cortex-M4): vector table, .data/.bss set-up, faults
 * reported over semihosting, the tick counter and stack painting.
 */
#include <stdint.h>

#include "target.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _sstack, _estack;
int main(void);
void Reset_Handler(void);
void Fault_Handler(void);

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023

/* CMSDK APB timer 0 of the MPS2 FPGA images: a 32-bit down counter at the
 * 25 MHz peripheral clock. */
#define TIMER0_CTRL (*(volatile uint32_t *)0x40000000u)
#define TIMER0_VALUE (*(volatile uint32_t *)0x40000004u)
#define TIMER0_RELOAD (*(volatile uint32_t *)0x40000008u)
/* Configuration and Control Register: UNALIGN_TRP faults every unaligned
 * word or halfword access, as a Cortex-M0/M0+ does. */
#define SCB_CCR (*(volatile uint32_t *)0xE000ED14u)
#define CCR_UNALIGN_TRP (1u << 3)

#define STACK_PATTERN 0x5AC3A55Cu

static int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void target_puts(const char *s)
{
    semihost(SYS_WRITE0, s);
}

void target_put_uint(uint64_t v)
{
    char buf[24];
    char *p = buf + sizeof buf - 1;
    *p = 0;
    do {
        *--p = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    target_puts(p);
}

_Noreturn void target_exit(int status)
{
    semihost(SYS_EXIT, (const void *)(uintptr_t)(status ? ADP_STOPPED_RUN_TIME_ERROR
                                                        : ADP_STOPPED_APPLICATION_EXIT));
    for (;;) {
    }
}

uint32_t target_ticks(void)
{
    return ~TIMER0_VALUE;
}

void target_spin(uint32_t n)
{
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}

__attribute__((noinline)) void target_stack_paint(void)
{
    uintptr_t sp = TARGET_SP();
    for (volatile uint32_t *p = &_sstack; (uintptr_t)p < sp - 16u; p++)
        *p = STACK_PATTERN;
}

uintptr_t target_stack_low(void)
{
    const uint32_t *p = &_sstack;
    while ((uintptr_t)p < (uintptr_t)&_estack && *p == STACK_PATTERN)
        p++;
    return (uintptr_t)p;
}

uintptr_t target_stack_top(void)
{
    return (uintptr_t)&_estack;
}

/* Configurable Fault Status Register (UNALIGNED is bit 24) and the fault's
 * stacked PC. */
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)

void fault_report(const uint32_t *frame);
void fault_report(const uint32_t *frame)
{
    target_puts("FAIL: fault, CFSR ");
    target_put_uint(SCB_CFSR);
    target_puts((SCB_CFSR >> 24) & 1u ? " (unaligned access)" : "");
    target_puts(", pc ");
    target_put_uint(frame[6]);
    target_puts(" (decimal; arm-none-eabi-addr2line -e the .elf)\n");
    target_exit(1);
}

__attribute__((naked)) void Fault_Handler(void)
{
    __asm__ volatile("mrs r0, msp\n\tb fault_report");
}

void Reset_Handler(void)
{
    const uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (uint32_t *dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
#ifdef TARGET_ALIGNMENT_TRAP
    SCB_CCR |= CCR_UNALIGN_TRP;
#endif
    TIMER0_RELOAD = 0xFFFFFFFFu;
    TIMER0_VALUE = 0xFFFFFFFFu;
    TIMER0_CTRL = 1u; /* enable, no interrupt */
    target_exit(main());
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack,
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
};
