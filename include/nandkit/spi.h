/* SPDX-License-Identifier: MIT */
/*
 * Controller interface for serial memories (SPI, dual and quad SPI).
 *
 * A serial operation has up to four phases sent with chip select held low:
 * a command byte, 0..4 address bytes, 0..4 dummy bytes and a data transfer
 * in or out. Each phase names the number of lines it uses (1, 2 or 4), as
 * Linux's spi_mem_op does: READ FROM CACHE x4 (6Bh) is command and address
 * on one line and data on four; quad I/O (EBh) puts address and dummy on
 * four lines too. A dummy phase counts bytes at its own width, so one dummy
 * byte is 8 clocks on one line and 2 clocks on four.
 *
 * A port implements struct nk_ctrl_ops.exec_spi (nandkit/ctrl.h) and may
 * report the widths and the clock it supports in struct nk_ctrl.spi; the
 * chip layer then never asks for more. See docs/controller.md.
 */
#ifndef NANDKIT_SPI_H
#define NANDKIT_SPI_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Direction of the data phase. */
enum nk_spi_dir {
    NK_SPI_DATA_NONE,
    NK_SPI_DATA_IN,  /* memory -> host */
    NK_SPI_DATA_OUT, /* host -> memory */
};

/* Most address and dummy bytes of one operation. */
#define NK_SPI_MAX_ADDR_BYTES 4
#define NK_SPI_MAX_DUMMY_BYTES 4

/* One serial operation. A phase with 0 bytes (or data length 0) is absent;
 * a width of 0 in a present phase means 1. */
struct nk_spi_op {
    struct {
        uint8_t opcode;
        uint8_t width;
    } cmd;
    struct {
        uint8_t bytes; /* 0..NK_SPI_MAX_ADDR_BYTES, sent MSB first */
        uint8_t width;
        uint32_t value;
    } addr;
    struct {
        uint8_t bytes; /* 0..NK_SPI_MAX_DUMMY_BYTES */
        uint8_t width;
    } dummy;
    struct {
        enum nk_spi_dir dir;
        uint8_t width;
        uint32_t len;
        uint8_t *in;        /* NK_SPI_DATA_IN target */
        const uint8_t *out; /* NK_SPI_DATA_OUT source */
    } data;
    /* Highest clock this command allows on the part (0: no limit beyond
     * the port's own); a port runs the operation at or below it. */
    uint32_t max_hz;
    unsigned chip_select;
};

/* Bus widths a port supports (struct nk_spi_caps.widths). */
#define NK_SPI_WIDTH_1 0x01u
#define NK_SPI_WIDTH_2 0x02u
#define NK_SPI_WIDTH_4 0x04u

/* What a serial port can do: zeroed means single line only, clock unknown. */
struct nk_spi_caps {
    uint8_t widths; /* NK_SPI_WIDTH_* for any phase; 0 = NK_SPI_WIDTH_1 */
    uint32_t max_hz;
};

/* Status polling a port may do itself (struct nk_ctrl_ops.poll_spi): what to
 * send, and when to stop. */
struct nk_spi_poll {
    struct nk_spi_op op; /* a one-byte read of the status (GET FEATURE C0h) */
    uint8_t mask;        /* stop when (status & mask) == match */
    uint8_t match;
    uint32_t timeout_us;
};

/* Clocks an operation takes on the bus: 8 per byte of each phase divided by
 * its width. */
static inline uint32_t nk_spi_op_clocks(const struct nk_spi_op *op)
{
    uint32_t cw = op->cmd.width ? op->cmd.width : 1u;
    uint32_t aw = op->addr.width ? op->addr.width : 1u;
    uint32_t dw = op->dummy.width ? op->dummy.width : 1u;
    uint32_t xw = op->data.width ? op->data.width : 1u;
    uint32_t clocks = 8u / cw + op->addr.bytes * 8u / aw + op->dummy.bytes * 8u / dw;
    if (op->data.dir != NK_SPI_DATA_NONE)
        clocks += (op->data.len * 8u + xw - 1u) / xw;
    return clocks;
}

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_SPI_H */
