/* SPDX-License-Identifier: MIT */
/*
 * Controller interface ("board glue"): the one thing a port implements.
 *
 * The chip layer describes every NAND operation as data: a short list of
 * instructions (command byte, address bytes, data out, data in, wait for
 * ready). A port executes the list on its bus, however its hardware does
 * it: GPIO bit-banging, a memory-mapped NAND controller, a Linux driver, or
 * the simulator. Optional hooks expose a hardware ECC engine, the R/B line
 * and alternative data-transfer loops. A port is a struct of function
 * pointers plus a context pointer; nandkit keeps no global state.
 *
 * See docs/controller.md for the full contract and a porting walk-through.
 */
#ifndef NANDKIT_CTRL_H
#define NANDKIT_CTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/spi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most address cycles any operation sends (2 column + 3 row + spare). */
#define NK_MAX_ADDR_CYCLES 6

/* Most instructions in one operation. */
#define NK_MAX_INSTRS 16

enum nk_instr_type {
    NK_INSTR_CMD,        /* one command cycle (CLE high) */
    NK_INSTR_ADDR,       /* 1..NK_MAX_ADDR_CYCLES address cycles (ALE high) */
    NK_INSTR_DATA_OUT,   /* host -> chip: write cycles, one per byte */
    NK_INSTR_DATA_IN,    /* chip -> host: read cycles, one per byte */
    NK_INSTR_WAIT_READY, /* wait until the chip is ready (R/B high) */
};

/* Flags of a data instruction. */
#define NK_INSTR_FORCE_8BIT 0x01u /* transfer byte-wide even on x16 parts (IDs, params) */

/* One step of an operation. `delay_ns` is the minimum time the port must
 * leave between the latching edge of this instruction's last cycle and the
 * latching edge of the next instruction's first cycle (tADL, tWHR, tCCS...);
 * 0 means "back to back". */
struct nk_instr {
    enum nk_instr_type type;
    uint32_t delay_ns;
    union {
        uint8_t cmd;
        struct {
            uint8_t cycles[NK_MAX_ADDR_CYCLES];
            uint8_t count;
        } addr;
        struct {
            uint8_t *buf;
            uint32_t len;
            uint8_t flags;
        } in;
        struct {
            const uint8_t *buf;
            uint32_t len;
            uint8_t flags;
        } out;
        struct {
            uint32_t timeout_us;
        } wait;
    } u;
};

/* An operation: instructions executed in order with chip enable held low. */
struct nk_op {
    const struct nk_instr *instrs;
    unsigned count;
    unsigned chip_select;
};

/* Data-transfer loop a port uses for DATA_IN/DATA_OUT, selectable at run
 * time so the benchmarker can compare them. */
enum nk_data_loop {
    NK_DATA_LOOP_BYTE,     /* one bus access per byte, a plain loop */
    NK_DATA_LOOP_UNROLLED, /* unrolled and/or word-wide accesses */
};

enum nk_ecc_direction {
    NK_ECC_DIR_READ,
    NK_ECC_DIR_WRITE,
};

/* Capability bits of a port (struct nk_ctrl.caps). */
/* WAIT_READY watches R/B; else the chip layer polls status, bounded in time
 * by the port's clock (struct nk_ctrl_ops.clock_ticks, struct nk_ctrl.clock_mhz). */
#define NK_CTRL_CAP_RB_LINE 0x01u
#define NK_CTRL_CAP_HW_ECC 0x02u     /* ecc_enable/ecc_read_code are implemented */
#define NK_CTRL_CAP_DATA_LOOPS 0x04u /* set_data_loop is implemented */
/* Targets (chip selects) are independent: each has its own R/B line, so a
 * WAIT_READY waits for the selected target only, and an operation on one
 * target may run while another is busy. Without it a port still works with
 * several targets (nandkit then finishes one before using the next). */
#define NK_CTRL_CAP_INDEPENDENT_TARGETS 0x08u
/* A serial (SPI/QSPI) port: exec_spi is implemented instead of exec_op and
 * struct nk_ctrl.spi says what the bus can do (nandkit/spi.h). */
#define NK_CTRL_CAP_SERIAL 0x10u

enum nk_hw_ecc_algo {
    NK_HW_ECC_NONE,
    NK_HW_ECC_HAMMING, /* Linux-compatible 3-byte Hamming per step */
    NK_HW_ECC_OTHER,   /* vendor code: the port must provide ecc_correct */
};

/* What a controller's hardware ECC engine computes. */
struct nk_ctrl_ecc_info {
    enum nk_hw_ecc_algo algo;
    uint16_t step_size;     /* bytes covered by one code (256 or 512 for Hamming) */
    uint8_t bytes_per_step; /* code bytes the engine produces per step */
    uint8_t strength;       /* bits it can correct per step */
    bool sm_order;          /* Hamming codes in SmartMedia byte order */
};

struct nk_ctrl_ops {
    /* Required. Executes `op` on the bus. Returns 0, -NK_ETIMEDOUT when a
     * WAIT_READY instruction timed out, -NK_ENODEV when the bus or
     * controller fails or nothing answers (power lost), -NK_EINVAL for a
     * malformed operation. Never -NK_EIO from an operation that programs or
     * erases: the device layer reserves it there for the chip's FAIL status
     * and retires the block on it (a port backed by an OS driver may return
     * -NK_EIO for a read the driver failed). Must not fail merely
     * because the chip answered something unexpected: status interpretation
     * is the chip layer's job. */
    int (*exec_op)(void *ctx, const struct nk_op *op);

    /* Optional (NK_CTRL_CAP_DATA_LOOPS). Chooses the loop used by later
     * data instructions. Returns 0 or -NK_ENOTSUP. */
    int (*set_data_loop)(void *ctx, enum nk_data_loop loop);

    /* Optional (NK_CTRL_CAP_HW_ECC). Resets the engine and arms it for the
     * next `step_size` bytes transferred in direction `dir`. */
    int (*ecc_enable)(void *ctx, enum nk_ecc_direction dir);

    /* Optional (NK_CTRL_CAP_HW_ECC). Copies the code the engine computed over
     * the step just transferred into `code` (bytes_per_step bytes). */
    int (*ecc_read_code)(void *ctx, uint8_t *code);

    /* Optional. Corrects one step with the engine's algorithm; same contract
     * as struct nk_ecc_ops.correct. When NULL and algo is Hamming, nandkit's
     * software Hamming corrector is used with the read and computed codes. */
    int (*ecc_correct)(void *ctx, uint8_t *data, const uint8_t *read_ecc, const uint8_t *calc_ecc);

    /* Serial ports (NK_CTRL_CAP_SERIAL): required instead of exec_op.
     * Executes one serial operation (nandkit/spi.h) with chip select held
     * low for its phases. Same returns as exec_op. */
    int (*exec_spi)(void *ctx, const struct nk_spi_op *op);

    /* Serial ports, optional: repeats poll->op until the status byte it reads
     * matches, as a controller's automatic polling mode does, and stores the
     * last status in *status. 0, -NK_ETIMEDOUT, or a bus error. When NULL
     * the chip layer polls with exec_spi. */
    int (*poll_spi)(void *ctx, const struct nk_spi_poll *poll, uint8_t *status);

    /* Required when the chip layer polls status (no NK_CTRL_CAP_RB_LINE, or a
     * serial port without poll_spi), else optional: a free-running counter
     * of struct nk_ctrl.clock_mhz ticks per microsecond (a cycle counter, a
     * timer), wrapping at 2^32. A status-polling loop ends once the timeout
     * has passed on it, however long each poll takes; only differences of
     * reads less than one wrap apart are used. Without it such a port is
     * refused (-NK_EINVAL) at its first wait. An R/B port polls once too, to
     * drain a cache program cut short; without a clock that wait counts
     * polls at the chip's cycle times. */
    uint32_t (*clock_ticks)(void *ctx);
};

/* A controller port. The struct is owned by the port; nandkit only reads it. */
struct nk_ctrl {
    const struct nk_ctrl_ops *ops;
    void *ctx;                   /* handed to every op */
    uint32_t caps;               /* NK_CTRL_CAP_* */
    struct nk_ctrl_ecc_info ecc; /* valid when caps has NK_CTRL_CAP_HW_ECC */
    struct nk_spi_caps spi;      /* valid when caps has NK_CTRL_CAP_SERIAL */
    uint32_t clock_mhz;          /* ops->clock_ticks per microsecond (0: no clock) */
};

/* A time source (nanoseconds, monotonic). Used for statistics and by the
 * benchmarker; the simulator provides its virtual clock through it. */
struct nk_clock {
    uint64_t (*now_ns)(void *ctx);
    void *ctx;
};

/* Optional mutual exclusion around every public device call (an RTOS mutex,
 * a pthread mutex, or nothing). */
struct nk_lock {
    void (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    void *ctx;
};

/* Helpers that build instructions (no side effects). */
static inline struct nk_instr nk_instr_cmd(uint8_t cmd, uint32_t delay_ns)
{
    struct nk_instr i;
    i.type = NK_INSTR_CMD;
    i.delay_ns = delay_ns;
    i.u.cmd = cmd;
    return i;
}

static inline struct nk_instr nk_instr_data_in(uint8_t *buf, uint32_t len, uint32_t delay_ns)
{
    struct nk_instr i;
    i.type = NK_INSTR_DATA_IN;
    i.delay_ns = delay_ns;
    i.u.in.buf = buf;
    i.u.in.len = len;
    i.u.in.flags = 0;
    return i;
}

static inline struct nk_instr nk_instr_data_out(const uint8_t *buf, uint32_t len, uint32_t delay_ns)
{
    struct nk_instr i;
    i.type = NK_INSTR_DATA_OUT;
    i.delay_ns = delay_ns;
    i.u.out.buf = buf;
    i.u.out.len = len;
    i.u.out.flags = 0;
    return i;
}

static inline struct nk_instr nk_instr_wait_ready(uint32_t timeout_us)
{
    struct nk_instr i;
    i.type = NK_INSTR_WAIT_READY;
    i.delay_ns = 0;
    i.u.wait.timeout_us = timeout_us;
    return i;
}

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_CTRL_H */
