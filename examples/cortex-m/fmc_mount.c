/* SPDX-License-Identifier: MIT */
/*
 * Bare-metal bring-up on a Cortex-M: a port over a memory-mapped NAND
 * controller (an STM32F4-style FSMC NAND bank: data at the bank's base,
 * the command latch where address line A16 is high, the address latch
 * where A17 is high) and the three calls from that port to a mounted file
 * system, with every byte of memory in static buffers. Built with the core
 * by the Cortex-M check (and on the host, where it is compiled, not run).
 *
 * The board's part is the FSMC timing registers (set for the chip's tWC,
 * tRC, tWP... before nandkit runs) and the three addresses below.
 */
#include <stddef.h>
#include <stdint.h>

#include "nandkit/ctrl.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"

/* FSMC bank 2 (NAND) common memory space, CLE on A16, ALE on A17. */
#define BOARD_NAND_DATA 0x70000000u
#define BOARD_NAND_CMD (BOARD_NAND_DATA | (1u << 16))
#define BOARD_NAND_ADDR (BOARD_NAND_DATA | (1u << 17))

/* Core clock, for the short delays between instructions (tWHR, tADL). */
#define BOARD_CPU_HZ 168000000u

struct board_nand {
    volatile uint8_t *data, *cmd, *addr;
};

/* Busy-waits at least `ns` nanoseconds (a loop is at least one cycle per
 * iteration; rounding up keeps it a lower bound). */
static void board_delay_ns(uint32_t ns)
{
    uint32_t cycles = (uint32_t)(((uint64_t)ns * BOARD_CPU_HZ + 999999999u) / 1000000000u);
    for (volatile uint32_t i = 0; i < cycles; i++) {
    }
}

/* The one function a port implements: executes the instruction list. No
 * R/B line is wired, so the chip layer polls the status register and never
 * emits WAIT_READY. */
static int board_exec_op(void *ctx, const struct nk_op *op)
{
    struct board_nand *bus = ctx;
    for (unsigned i = 0; i < op->count; i++) {
        const struct nk_instr *in = &op->instrs[i];
        switch (in->type) {
        case NK_INSTR_CMD:
            *bus->cmd = in->u.cmd;
            break;
        case NK_INSTR_ADDR:
            for (unsigned c = 0; c < in->u.addr.count; c++)
                *bus->addr = in->u.addr.cycles[c];
            break;
        case NK_INSTR_DATA_OUT:
            for (uint32_t b = 0; b < in->u.out.len; b++)
                *bus->data = in->u.out.buf[b];
            break;
        case NK_INSTR_DATA_IN:
            for (uint32_t b = 0; b < in->u.in.len; b++)
                in->u.in.buf[b] = *bus->data;
            break;
        default:
            return -NK_EINVAL; /* WAIT_READY: not without an R/B line */
        }
        if (in->delay_ns)
            board_delay_ns(in->delay_ns);
    }
    return 0;
}

static const struct nk_ctrl_ops board_nand_ops = {.exec_op = board_exec_op};

/* Static memory: the device's workspace for chips up to 2048 + 64 bytes
 * per page (a 4-bit part choosing BCH needs nk_nand_default_workspace_size()
 * more), and the file system's pool (docs/fs-design.md: RAM per MiB). */
static uint8_t board_workspace[NK_NAND_WORKSPACE_SIZE(2048, 64)] __attribute__((aligned(4)));
static uint64_t board_fs_pool[64 * 1024 / 8];

static struct board_nand board_bus;
static struct nk_ctrl board_port;
static struct nk_nand board_dev;
static struct nk_part board_part;

/* Brings the flash up and mounts its file system into `fs`. Returns 0 or a
 * negative NK_E* value; `why` (may be NULL) receives the reason's text. */
int board_fs_mount(struct nk_fs *fs, const char **why);

int board_fs_mount(struct nk_fs *fs, const char **why)
{
    board_bus.data = (volatile uint8_t *)BOARD_NAND_DATA;
    board_bus.cmd = (volatile uint8_t *)BOARD_NAND_CMD;
    board_bus.addr = (volatile uint8_t *)BOARD_NAND_ADDR;
    board_port.ops = &board_nand_ops;
    board_port.ctx = &board_bus;

    struct nk_nand_config nand_config = {.ctrl = &board_port,
                                         .workspace = board_workspace,
                                         .workspace_size = sizeof board_workspace};
    int err = nk_nand_open(&board_dev, &nand_config);
    if (!err)
        err = nk_part_init(&board_part, &board_dev, "fs", 0, 0, 0);
    if (err) {
        if (why)
            *why = board_dev.diag.text;
        return err;
    }
    struct nk_fs_config fs_config = {
        .part = &board_part, .pool = board_fs_pool, .pool_size = sizeof board_fs_pool};
    err = nk_fs_mount(fs, &fs_config);
    if (err && why)
        *why = fs->diag.text;
    return err;
}
