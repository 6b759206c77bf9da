/* SPDX-License-Identifier: MIT */
/*
 * A serial port for a SPI-NAND part on the STM32 QUADSPI controller
 * (STM32F446, RM0390 chapter "Quad-SPI interface"; the F7, L4 and H7
 * QUADSPI has the same registers) in indirect mode: the CPU writes the
 * operation's shape into CCR (instruction, address, alternate bytes, dummy
 * cycles and data, each phase with its number of lines), its length into
 * DLR and its address into AR, and moves the data through DR while the
 * controller drives the clock and chip select. nandkit's serial operation
 * (nandkit/spi.h) maps onto it phase for phase:
 *
 *   command    CCR.INSTRUCTION, IMODE = its lines
 *   address    AR, ADMODE = its lines, ADSIZE = its bytes - 1
 *   dummy      CCR.DCYC clocks (bytes x 8 / lines); DCYC holds 31 at most,
 *              so a longer dummy phase (continuous read's 32 clocks) sends
 *              its first byte as an alternate byte (ABMODE, ABSIZE 8 bits)
 *   data       DLR = bytes - 1, DMODE = its lines, FMODE indirect read or
 *              write, the bytes through DR
 *
 * The transfer starts when the last register it needs is written (CCR
 * without address or read data, AR with an address, DR when writing data),
 * and ends when SR.TCF is set. Status polling runs in the controller's
 * automatic polling mode (FMODE = 10: it repeats GET FEATURE C0h every PIR
 * clocks until (status & PSMKR) == PSMAR, then stops, APMS). The clock is
 * HCLK / (PRESCALER + 1); an operation that allows less (op->max_hz) runs
 * with a larger prescaler. Chip select 0 is bank 1 (BK1_NCS), 1 is bank 2.
 *
 * Pins (CLK, NCS, IO0..IO3 as alternate function 9 or 10, very high speed)
 * and the HCLK are the board's: set them in board_nand_port() for yours.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "nandkit/error.h"
#include "nandkit/spi.h"

/* QUADSPI registers (RM0390, STM32F446: base 0xA0001000). */
#define QUADSPI_BASE 0xA0001000u
#define QUADSPI_CR (*(volatile uint32_t *)(QUADSPI_BASE + 0x00u))
#define QUADSPI_DCR (*(volatile uint32_t *)(QUADSPI_BASE + 0x04u))
#define QUADSPI_SR (*(volatile uint32_t *)(QUADSPI_BASE + 0x08u))
#define QUADSPI_FCR (*(volatile uint32_t *)(QUADSPI_BASE + 0x0Cu))
#define QUADSPI_DLR (*(volatile uint32_t *)(QUADSPI_BASE + 0x10u))
#define QUADSPI_CCR (*(volatile uint32_t *)(QUADSPI_BASE + 0x14u))
#define QUADSPI_AR (*(volatile uint32_t *)(QUADSPI_BASE + 0x18u))
#define QUADSPI_ABR (*(volatile uint32_t *)(QUADSPI_BASE + 0x1Cu))
#define QUADSPI_DR8 (*(volatile uint8_t *)(QUADSPI_BASE + 0x20u)) /* byte access: one byte */
#define QUADSPI_PSMKR (*(volatile uint32_t *)(QUADSPI_BASE + 0x24u))
#define QUADSPI_PSMAR (*(volatile uint32_t *)(QUADSPI_BASE + 0x28u))
#define QUADSPI_PIR (*(volatile uint32_t *)(QUADSPI_BASE + 0x2Cu))

#define CR_EN (1u << 0)
#define CR_ABORT (1u << 1)
#define CR_SSHIFT (1u << 4) /* sample half a clock later (high clock rates) */
#define CR_FSEL (1u << 7)   /* bank 2 */
#define CR_FTHRES(n) ((uint32_t)(n) << 8)
#define CR_APMS (1u << 22) /* automatic polling stops at the match */
#define CR_PMM (1u << 23)  /* polling match: OR of the masked bits (0: AND) */
#define CR_PRESCALER_SHIFT 24
#define CR_PRESCALER_MASK (0xFFu << CR_PRESCALER_SHIFT)

#define DCR_CSHT(n) ((uint32_t)(n) << 8)   /* chip select high n + 1 clocks between operations */
#define DCR_FSIZE(n) ((uint32_t)(n) << 16) /* 2^(n + 1) bytes (memory-mapped mode only) */

#define SR_TEF (1u << 0)
#define SR_TCF (1u << 1)
#define SR_FTF (1u << 2)
#define SR_SMF (1u << 3)
#define SR_BUSY (1u << 5)

#define FCR_CTEF (1u << 0)
#define FCR_CTCF (1u << 1)
#define FCR_CSMF (1u << 3)

#define CCR_INSTRUCTION(op) ((uint32_t)(op))
#define CCR_IMODE(m) ((uint32_t)(m) << 8)
#define CCR_ADMODE(m) ((uint32_t)(m) << 10)
#define CCR_ADSIZE(n) ((uint32_t)(n) << 12)
#define CCR_ABMODE(m) ((uint32_t)(m) << 14)
#define CCR_ABSIZE(n) ((uint32_t)(n) << 16)
#define CCR_DCYC(n) ((uint32_t)(n) << 18)
#define CCR_DMODE(m) ((uint32_t)(m) << 24)
#define CCR_FMODE_WRITE (0u << 26)
#define CCR_FMODE_READ (1u << 26)
#define CCR_FMODE_POLL (2u << 26)
#define CCR_DCYC_MAX 31u

/* RCC: the QUADSPI clock (AHB3ENR.QSPIEN). */
#define RCC_AHB3ENR (*(volatile uint32_t *)(0x40023800u + 0x38u))
#define RCC_AHB3ENR_QSPIEN (1u << 1)

/* The fastest clock: HCLK / 2 (prescaler 1), 90 MHz at 180 MHz. */
#define QSPI_PRESCALER_MIN 1u
/* A transfer the controller has not finished in this long is a dead bus. */
#define QSPI_TRANSFER_TIMEOUT_US 100000u

struct qspi_port {
    uint32_t prescaler; /* the one CR holds */
};

/* IMODE/ADMODE/ABMODE/DMODE code of a phase on `width` lines (0 = 1). */
static uint32_t qspi_lines(uint8_t width)
{
    return width == 4 ? 3u : width == 2 ? 2u : 1u;
}

static unsigned qspi_width(uint8_t width)
{
    return width ? width : 1u;
}

/* Waits for `flags` in SR (or the controller idle when `flags` is 0). */
static int qspi_wait(uint32_t flags)
{
    uint32_t start = board_cycles();
    for (;;) {
        uint32_t sr = QUADSPI_SR;
        if (sr & SR_TEF)
            return -NK_ENODEV; /* a transfer error: nothing sane on the bus */
        if (flags ? (sr & flags) != 0 : (sr & SR_BUSY) == 0)
            return 0;
        if (board_us_since(start) >= QSPI_TRANSFER_TIMEOUT_US)
            return -NK_ENODEV;
    }
}

/* Stops whatever runs and leaves the controller idle. */
static void qspi_abort(void)
{
    QUADSPI_CR |= CR_ABORT;
    while (QUADSPI_CR & CR_ABORT) {
    }
    QUADSPI_FCR = FCR_CTEF | FCR_CTCF | FCR_CSMF;
}

/* Selects the bank and a clock at or below `max_hz` (0: the fastest).
 * Both may change only while the controller is idle. */
static int qspi_setup(struct qspi_port *port, const struct nk_spi_op *op)
{
    if (op->chip_select > 1)
        return -NK_EINVAL;
    uint32_t prescaler = QSPI_PRESCALER_MIN;
    if (op->max_hz) {
        uint32_t div = (BOARD_CPU_HZ + op->max_hz - 1u) / op->max_hz;
        if (div > 256u)
            return -NK_EINVAL;
        if (div - 1u > prescaler)
            prescaler = div - 1u;
    }
    int err = qspi_wait(0);
    if (err)
        return err;
    uint32_t cr = QUADSPI_CR & ~(CR_PRESCALER_MASK | CR_FSEL);
    cr |= prescaler << CR_PRESCALER_SHIFT;
    if (op->chip_select == 1)
        cr |= CR_FSEL;
    QUADSPI_CR = cr;
    port->prescaler = prescaler;
    return 0;
}

/* CCR for `op` without FMODE; the alternate byte that carries part of a
 * dummy phase too long for DCYC goes to ABR. */
static int qspi_ccr(const struct nk_spi_op *op, uint32_t *ccr)
{
    if (op->addr.bytes > NK_SPI_MAX_ADDR_BYTES || op->dummy.bytes > NK_SPI_MAX_DUMMY_BYTES)
        return -NK_EINVAL;
    uint32_t value = CCR_INSTRUCTION(op->cmd.opcode) | CCR_IMODE(qspi_lines(op->cmd.width));
    if (op->addr.bytes)
        value |= CCR_ADMODE(qspi_lines(op->addr.width)) | CCR_ADSIZE(op->addr.bytes - 1u);
    unsigned dummy_width = qspi_width(op->dummy.width);
    uint32_t dummy_clocks = op->dummy.bytes * 8u / dummy_width;
    if (dummy_clocks > CCR_DCYC_MAX) {
        /* One dummy byte as an alternate byte, the rest as dummy cycles. */
        value |= CCR_ABMODE(qspi_lines(op->dummy.width)) | CCR_ABSIZE(0u);
        QUADSPI_ABR = 0xFFu;
        dummy_clocks -= 8u / dummy_width;
    }
    value |= CCR_DCYC(dummy_clocks);
    if (op->data.dir != NK_SPI_DATA_NONE && op->data.len)
        value |= CCR_DMODE(qspi_lines(op->data.width));
    *ccr = value;
    return 0;
}

static int qspi_exec_spi(void *ctx, const struct nk_spi_op *op)
{
    struct qspi_port *port = ctx;
    uint32_t ccr;
    int err = qspi_setup(port, op);
    if (!err)
        err = qspi_ccr(op, &ccr);
    if (err)
        return err;
    bool has_data = op->data.dir != NK_SPI_DATA_NONE && op->data.len;
    bool reading = has_data && op->data.dir == NK_SPI_DATA_IN;
    QUADSPI_FCR = FCR_CTEF | FCR_CTCF;
    if (has_data)
        QUADSPI_DLR = op->data.len - 1u;
    /* Starts here when neither an address nor data to write follows. */
    QUADSPI_CCR = ccr | (reading ? CCR_FMODE_READ : CCR_FMODE_WRITE);
    if (op->addr.bytes)
        QUADSPI_AR = op->addr.value; /* starts here when no data to write follows */
    if (has_data && reading) {
        for (uint32_t n = 0; !err && n < op->data.len; n++) {
            err = qspi_wait(SR_FTF | SR_TCF);
            if (!err)
                op->data.in[n] = QUADSPI_DR8;
        }
    } else if (has_data) {
        for (uint32_t n = 0; !err && n < op->data.len; n++) {
            err = qspi_wait(SR_FTF);
            if (!err)
                QUADSPI_DR8 = op->data.out[n];
        }
    }
    if (!err)
        err = qspi_wait(SR_TCF);
    if (err) {
        qspi_abort();
        return err;
    }
    QUADSPI_FCR = FCR_CTCF;
    return 0;
}

/* The status polling in the controller: GET FEATURE C0h every 16 clocks
 * until the masked status matches; the last status read stays in DR. */
static int qspi_poll_spi(void *ctx, const struct nk_spi_poll *poll, uint8_t *status)
{
    struct qspi_port *port = ctx;
    const struct nk_spi_op *op = &poll->op;
    uint32_t ccr;
    int err = qspi_setup(port, op);
    if (!err)
        err = qspi_ccr(op, &ccr);
    if (err)
        return err;
    if (op->data.dir != NK_SPI_DATA_IN || op->data.len != 1)
        return -NK_EINVAL;
    QUADSPI_FCR = FCR_CTEF | FCR_CTCF | FCR_CSMF;
    QUADSPI_PSMKR = poll->mask;
    QUADSPI_PSMAR = poll->match;
    QUADSPI_PIR = 16u;
    QUADSPI_CR = (QUADSPI_CR & ~CR_PMM) | CR_APMS;
    QUADSPI_DLR = 0u; /* one status byte */
    QUADSPI_CCR = ccr | CCR_FMODE_POLL;
    if (op->addr.bytes)
        QUADSPI_AR = op->addr.value;
    uint32_t start = board_cycles();
    while (!(QUADSPI_SR & SR_SMF)) {
        if (poll->timeout_us && board_us_since(start) >= poll->timeout_us) {
            qspi_abort();
            *status = QUADSPI_DR8;
            return -NK_ETIMEDOUT;
        }
    }
    *status = QUADSPI_DR8;
    if (op->data.in)
        *op->data.in = *status;
    QUADSPI_FCR = FCR_CSMF;
    return qspi_wait(0);
}

static const struct nk_ctrl_ops qspi_ops = {
    .exec_spi = qspi_exec_spi,
    .poll_spi = qspi_poll_spi,
};

static struct qspi_port qspi;
static const struct nk_ctrl qspi_ctrl = {
    .ops = &qspi_ops,
    .ctx = &qspi,
    .caps = NK_CTRL_CAP_SERIAL,
    .spi = {.widths = NK_SPI_WIDTH_1 | NK_SPI_WIDTH_2 | NK_SPI_WIDTH_4,
            .max_hz = BOARD_CPU_HZ / (QSPI_PRESCALER_MIN + 1u)},
};

const struct nk_ctrl *board_nand_port(void)
{
    /* The clock to the controller; pins (alternate function 9/10, very high
     * speed, IO2/IO3 pulled up so /WP and /HOLD stay high on one line) go here. */
    RCC_AHB3ENR |= RCC_AHB3ENR_QSPIEN;
    /* Mode 0, chip select high for 6 clocks between operations (the parts'
     * tSHSL is 10..50 ns), the largest address space (indirect mode ignores it). */
    QUADSPI_DCR = DCR_CSHT(5u) | DCR_FSIZE(31u);
    QUADSPI_CR =
        ((uint32_t)QSPI_PRESCALER_MIN << CR_PRESCALER_SHIFT) | CR_FTHRES(0u) | CR_SSHIFT | CR_EN;
    qspi.prescaler = QSPI_PRESCALER_MIN;
    return &qspi_ctrl;
}
