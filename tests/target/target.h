/* SPDX-License-Identifier: MIT */
/*
 * What the test firmware's start-up file gives it: semihosting output and
 * exit (ARM semihosting: BKPT 0xAB; qemu-system-arm -semihosting), a free
 * running 32-bit tick counter (the MPS2 board's CMSDK timer 0), and stack
 * painting for high-water measurements.
 */
#ifndef TARGET_H
#define TARGET_H

#include <stddef.h>
#include <stdint.h>

void target_puts(const char *s);              /* no newline added */
void target_put_uint(uint64_t v);             /* decimal */
_Noreturn void target_exit(int status);       /* 0: success; else failure */
uint32_t target_ticks(void);                  /* counts up */
/* Executes `n` iterations of a two-instruction loop (2n instructions). */
void target_spin(uint32_t n);

/* The stack pointer of the caller, read in place. */
#define TARGET_SP()                                                                               \
    ({                                                                                             \
        uintptr_t sp_;                                                                             \
        __asm__ volatile("mov %0, sp" : "=r"(sp_));                                               \
        sp_;                                                                                       \
    })

/* Fills the unused stack below the caller's frame with a pattern. */
void target_stack_paint(void);
/* Lowest stack address written since the paint. */
uintptr_t target_stack_low(void);
/* The top of the stack (the initial stack pointer). */
uintptr_t target_stack_top(void);

#endif
