/* SPDX-License-Identifier: MIT */
/*
 * A port for a memory-mapped NAND controller in the style of the STM32
 * FMC/FSMC (NAND bank 3 of an STM32F4): the controller turns CPU accesses
 * into bus cycles. A write to the command window is a CLE cycle, to the
 * address window an ALE cycle, a read or write of the data window a data
 * cycle; the controller drives CE, WE and RE and applies the set-up/hold
 * times programmed into its timing registers. R/B is wired to a GPIO input
 * and polled. The controller's Hamming engine computes a 3-byte code over
 * each 512-byte step as the data passes (ecc_enable/ecc_read_code), and
 * fmc_ecc_correct() corrects with it.
 *
 * Addresses and bits follow RM0090 (STM32F405/407); check them against your
 * part's reference manual, and program the pins (alternate function 12) and
 * FMC timings (PCR/PMEM/PATT from the chip's tWC, tRC, tWP, tREA...) in
 * board_nand_port() before use.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "nandkit/error.h"

/* NAND bank 3 common memory space: A16 drives CLE, A17 drives ALE. */
#define NAND_BASE 0x80000000u
#define NAND_DATA (*(volatile uint8_t *)(NAND_BASE))
#define NAND_CMD (*(volatile uint8_t *)(NAND_BASE + 0x00010000u))
#define NAND_ADDR (*(volatile uint8_t *)(NAND_BASE + 0x00020000u))

/* FSMC bank 3 registers. */
#define FSMC_BASE 0xA0000000u
#define FSMC_PCR3 (*(volatile uint32_t *)(FSMC_BASE + 0x80u))
#define FSMC_SR3 (*(volatile uint32_t *)(FSMC_BASE + 0x84u))
#define FSMC_PMEM3 (*(volatile uint32_t *)(FSMC_BASE + 0x88u))
#define FSMC_PATT3 (*(volatile uint32_t *)(FSMC_BASE + 0x8Cu))
#define FSMC_ECCR3 (*(volatile uint32_t *)(FSMC_BASE + 0x94u))
#define PCR_PBKEN (1u << 2)      /* bank enable */
#define PCR_PTYP_NAND (1u << 3)  /* memory type NAND */
#define PCR_ECCEN (1u << 6)      /* ECC engine enable (clearing it resets the code) */
#define PCR_ECCPS_512 (3u << 17) /* ECC page size: 512 bytes */
#define SR_FEMPT (1u << 6)       /* write FIFO empty: the code covers all bytes */

/* R/B on PD6 (input, pull-up): high = ready. */
#define GPIOD_IDR (*(volatile uint32_t *)(0x40020C00u + 0x10u))
#define RB_PIN (1u << 6)

struct fmc_port {
    uint32_t unused;
};

static bool fmc_ready(void)
{
    return (GPIOD_IDR & RB_PIN) != 0;
}

static int fmc_wait_ready(uint32_t timeout_us)
{
    /* R/B falls up to tWB (100 ns) after the command: the first poll must
     * not see "ready" from before it. */
    board_delay_us(1);
    uint32_t start = board_cycles();
    while (!fmc_ready())
        if (board_us_since(start) >= timeout_us)
            return fmc_ready() ? 0 : -NK_ETIMEDOUT; /* ready just as time ran out counts */
    return 0;
}

static void fmc_delay_ns(uint32_t ns)
{
    if (ns)
        board_delay_us((ns + 999u) / 1000u);
}

static int fmc_exec_op(void *ctx, const struct nk_op *op)
{
    (void)ctx;
    if (op->chip_select != 0)
        return -NK_EINVAL; /* one chip on this board: bank 3's NCE3 */
    for (unsigned i = 0; i < op->count; i++) {
        const struct nk_instr *in = &op->instrs[i];
        switch (in->type) {
        case NK_INSTR_CMD:
            NAND_CMD = in->u.cmd;
            break;
        case NK_INSTR_ADDR:
            for (unsigned c = 0; c < in->u.addr.count; c++)
                NAND_ADDR = in->u.addr.cycles[c];
            break;
        case NK_INSTR_DATA_OUT:
            for (uint32_t n = 0; n < in->u.out.len; n++)
                NAND_DATA = in->u.out.buf[n];
            break;
        case NK_INSTR_DATA_IN:
            for (uint32_t n = 0; n < in->u.in.len; n++)
                in->u.in.buf[n] = NAND_DATA;
            break;
        case NK_INSTR_WAIT_READY: {
            int err = fmc_wait_ready(in->u.wait.timeout_us);
            if (err)
                return err;
            break;
        }
        default:
            return -NK_EINVAL;
        }
        fmc_delay_ns(in->delay_ns);
    }
    return 0;
}

/* The hardware ECC hooks: nandkit arms the engine before each 512-byte step
 * and reads the code after it. */
static int fmc_ecc_enable(void *ctx, enum nk_ecc_direction dir)
{
    (void)ctx;
    (void)dir;
    FSMC_PCR3 &= ~PCR_ECCEN; /* resets the code */
    FSMC_PCR3 |= PCR_ECCEN;
    return 0;
}

static int fmc_ecc_read_code(void *ctx, uint8_t *code)
{
    (void)ctx;
    while (!(FSMC_SR3 & SR_FEMPT)) {
    }
    uint32_t ecc = FSMC_ECCR3;
    code[0] = (uint8_t)ecc;
    code[1] = (uint8_t)(ecc >> 8);
    code[2] = (uint8_t)(ecc >> 16);
    FSMC_PCR3 &= ~PCR_ECCEN;
    return 0;
}

/* Single-bit correction with the controller's 24-bit code (512-byte step):
 * 12 bit pairs, each (even, odd) = (P', P) line/column parities. A syndrome
 * with exactly one bit of every pair set locates one flipped data bit (the
 * odd bits give its bit address: 3 bits in the byte, then 9 of the byte);
 * a single set bit is a flip in the code itself. */
static int fmc_ecc_correct(void *ctx, uint8_t *data, const uint8_t *read_ecc,
                           const uint8_t *calc_ecc)
{
    (void)ctx;
    uint32_t syndrome = 0;
    for (unsigned i = 0; i < 3; i++)
        syndrome |= (uint32_t)(read_ecc[i] ^ calc_ecc[i]) << (8 * i);
    if (!syndrome)
        return 0;
    if ((syndrome & (syndrome - 1)) == 0)
        return 1; /* one bit of the code flipped; the data is right */
    uint32_t position = 0;
    for (unsigned pair = 0; pair < 12; pair++) {
        uint32_t bits = (syndrome >> (2 * pair)) & 3u;
        if (bits != 1u && bits != 2u)
            return -NK_EBADMSG;
        position |= (bits >> 1) << pair;
    }
    data[position >> 3] ^= (uint8_t)(1u << (position & 7u));
    return 1;
}

/* The DWT cycle counter: bounds the chip layer's status polling on a board
 * without R/B wired (then drop NK_CTRL_CAP_RB_LINE), and the drain after a
 * cache program cut short. */
static uint32_t fmc_clock_ticks(void *ctx)
{
    (void)ctx;
    return board_cycles();
}

static const struct nk_ctrl_ops fmc_ops = {
    .exec_op = fmc_exec_op,
    .clock_ticks = fmc_clock_ticks,
    .ecc_enable = fmc_ecc_enable,
    .ecc_read_code = fmc_ecc_read_code,
    .ecc_correct = fmc_ecc_correct,
};

static struct fmc_port fmc;
static const struct nk_ctrl fmc_ctrl = {
    .ops = &fmc_ops,
    .ctx = &fmc,
    .caps = NK_CTRL_CAP_RB_LINE | NK_CTRL_CAP_HW_ECC,
    .clock_mhz = BOARD_CPU_HZ / 1000000u,
    .ecc = {.algo = NK_HW_ECC_OTHER, .step_size = 512, .bytes_per_step = 3, .strength = 1},
};

const struct nk_ctrl *board_nand_port(void)
{
    /* Clock, pins (PD0/1/4/5/7/11/12/14/15, PE7..10 as FMC) and timings go
     * here; the values below are a conservative start for a 168 MHz HCLK. */
    FSMC_PMEM3 = 0x0F0F0F0Fu;
    FSMC_PATT3 = 0x0F0F0F0Fu;
    FSMC_PCR3 = PCR_PTYP_NAND | PCR_ECCPS_512 | PCR_PBKEN;
    return &fmc_ctrl;
}
