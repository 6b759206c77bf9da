/* SPDX-License-Identifier: MIT */
/*
 * A port for a NAND chip wired to plain GPIO pins ("bit-bang"): the CPU
 * drives every bus cycle itself. D0..D7 on PE0..PE7 (switched between
 * output and input per direction), CLE PB0, ALE PB1, nWE PB2, nRE PB3,
 * nCE PB4 (outputs), R/B PB5 (input, pull-up). The chip latches commands,
 * addresses and written data on the rising edge of nWE, and drives read
 * data after the falling edge of nRE (tREA). No hardware ECC: the
 * application falls back to nandkit's software Hamming.
 *
 * Register addresses follow RM0090 (STM32F4 GPIO); any MCU with a set/reset
 * register works the same way. Slow (a few hundred kB/s) but needs nothing
 * but pins: useful for bring-up and for parts without a NAND controller.
 */
#include <stdint.h>

#include "board.h"
#include "nandkit/error.h"

#define GPIOB_BASE 0x40020400u
#define GPIOE_BASE 0x40021000u
#define GPIO_MODER(base) (*(volatile uint32_t *)((base) + 0x00u))
#define GPIO_IDR(base) (*(volatile uint32_t *)((base) + 0x10u))
#define GPIO_ODR(base) (*(volatile uint32_t *)((base) + 0x14u))
#define GPIO_BSRR(base) (*(volatile uint32_t *)((base) + 0x18u))

#define PIN_CLE (1u << 0)
#define PIN_ALE (1u << 1)
#define PIN_NWE (1u << 2)
#define PIN_NRE (1u << 3)
#define PIN_NCE (1u << 4)
#define PIN_RB (1u << 5)

#define SET(pins) (GPIO_BSRR(GPIOB_BASE) = (pins))
#define CLEAR(pins) (GPIO_BSRR(GPIOB_BASE) = (pins) << 16)

/* PE0..PE7 as outputs (MODER 01 each) or inputs (00). */
static void bus_output(void)
{
    GPIO_MODER(GPIOE_BASE) = (GPIO_MODER(GPIOE_BASE) & ~0xFFFFu) | 0x5555u;
}

static void bus_input(void)
{
    GPIO_MODER(GPIOE_BASE) &= ~0xFFFFu;
}

/* One write cycle: data on the bus, nWE low, nWE high (the latching edge).
 * At a few MHz of GPIO toggling tWP/tWH/tDS are met without delays. */
static void write_cycle(uint8_t value)
{
    GPIO_ODR(GPIOE_BASE) = (GPIO_ODR(GPIOE_BASE) & ~0xFFu) | value;
    CLEAR(PIN_NWE);
    SET(PIN_NWE);
}

static uint8_t read_cycle(void)
{
    CLEAR(PIN_NRE);
    __asm volatile("nop\n nop\n nop\n nop"); /* tREA (20 ns) */
    uint8_t value = (uint8_t)GPIO_IDR(GPIOE_BASE);
    SET(PIN_NRE);
    return value;
}

static int wait_ready(uint32_t timeout_us)
{
    board_delay_us(1); /* tWB: R/B falls up to 100 ns after the command */
    uint32_t start = board_cycles();
    while (!(GPIO_IDR(GPIOB_BASE) & PIN_RB))
        if (board_us_since(start) >= timeout_us)
            return (GPIO_IDR(GPIOB_BASE) & PIN_RB) ? 0 : -NK_ETIMEDOUT;
    return 0;
}

static int gpio_exec_op(void *ctx, const struct nk_op *op)
{
    (void)ctx;
    if (op->chip_select != 0)
        return -NK_EINVAL;
    int err = 0;
    CLEAR(PIN_NCE);
    for (unsigned i = 0; i < op->count && !err; i++) {
        const struct nk_instr *in = &op->instrs[i];
        switch (in->type) {
        case NK_INSTR_CMD:
            bus_output();
            SET(PIN_CLE);
            write_cycle(in->u.cmd);
            CLEAR(PIN_CLE);
            break;
        case NK_INSTR_ADDR:
            bus_output();
            SET(PIN_ALE);
            for (unsigned c = 0; c < in->u.addr.count; c++)
                write_cycle(in->u.addr.cycles[c]);
            CLEAR(PIN_ALE);
            break;
        case NK_INSTR_DATA_OUT:
            bus_output();
            for (uint32_t n = 0; n < in->u.out.len; n++)
                write_cycle(in->u.out.buf[n]);
            break;
        case NK_INSTR_DATA_IN:
            bus_input();
            for (uint32_t n = 0; n < in->u.in.len; n++)
                in->u.in.buf[n] = read_cycle();
            break;
        case NK_INSTR_WAIT_READY:
            err = wait_ready(in->u.wait.timeout_us);
            break;
        default:
            err = -NK_EINVAL;
            break;
        }
        if (in->delay_ns)
            board_delay_us((in->delay_ns + 999u) / 1000u);
    }
    SET(PIN_NCE);
    bus_input();
    return err;
}

/* The DWT cycle counter. With R/B left unwired, drop NK_CTRL_CAP_RB_LINE:
 * the chip layer then polls the status register and ends that wait after
 * the timeout on this clock (docs/controller.md, "Ports without R/B"). */
static uint32_t gpio_clock_ticks(void *ctx)
{
    (void)ctx;
    return board_cycles();
}

static const struct nk_ctrl_ops gpio_ops = {.exec_op = gpio_exec_op,
                                            .clock_ticks = gpio_clock_ticks};
static const struct nk_ctrl gpio_ctrl = {
    .ops = &gpio_ops, .caps = NK_CTRL_CAP_RB_LINE, .clock_mhz = BOARD_CPU_HZ / 1000000u};

const struct nk_ctrl *board_nand_port(void)
{
    /* Clocks for GPIOB/GPIOE (RCC AHB1ENR) go here. Idle levels first:
     * nCE, nWE, nRE high; CLE, ALE low; then PB0..PB4 as outputs. */
    SET(PIN_NCE | PIN_NWE | PIN_NRE);
    CLEAR(PIN_CLE | PIN_ALE);
    GPIO_MODER(GPIOB_BASE) = (GPIO_MODER(GPIOB_BASE) & ~0xFFFu) | 0x155u;
    bus_input();
    return &gpio_ctrl;
}
