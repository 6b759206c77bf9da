/* SPDX-License-Identifier: MIT */
/* A K9F1G08U0A in RAM behind the controller interface (ramnand.h). */
#include "ramnand.h"

#include <string.h>

#include "nandkit/chip.h"
#include "nandkit/error.h"

#define STATUS_READY 0x40u
#define STATUS_NOT_PROTECTED 0x80u

static const uint8_t ramnand_id[5] = {0xec, 0xf1, 0x00, 0x95, 0x40};

static uint8_t *page_at(const struct ramnand *rn, uint32_t page)
{
    uint32_t block = page / RAMNAND_PAGES_PER_BLOCK;
    if (block >= RAMNAND_BLOCKS || !rn->map[block])
        return NULL;
    return rn->store + (size_t)(rn->map[block] - 1u) * RAMNAND_BLOCK_BYTES +
           (size_t)(page % RAMNAND_PAGES_PER_BLOCK) * RAMNAND_RAW;
}

static void load_page(const struct ramnand *rn, uint32_t page, uint8_t *reg)
{
    const uint8_t *src = page_at(rn, page);
    if (src)
        memcpy(reg, src, RAMNAND_RAW);
    else
        memset(reg, 0xff, RAMNAND_RAW);
}

/* Programs the register into `page`, `len` bytes of it (a cut: fewer).
 * False when no block of RAM is left (the store is too small). */
static bool program_page(struct ramnand *rn, uint32_t page, uint32_t len)
{
    uint32_t block = page / RAMNAND_PAGES_PER_BLOCK;
    if (block >= RAMNAND_BLOCKS)
        return true; /* beyond the chip: the row address wraps on a real part; ignored */
    if (!rn->map[block]) {
        unsigned slot = 0;
        while (slot < rn->store_blocks && rn->slot_used[slot])
            slot++;
        if (slot == rn->store_blocks)
            return false;
        rn->slot_used[slot] = 1;
        rn->map[block] = (uint16_t)(slot + 1u);
        memset(rn->store + (size_t)slot * RAMNAND_BLOCK_BYTES, 0xff, RAMNAND_BLOCK_BYTES);
    }
    uint8_t *dst = page_at(rn, page);
    for (uint32_t i = 0; i < len; i++)
        dst[i] &= rn->reg[i];
    rn->programs++;
    return true;
}

static void erase_block(struct ramnand *rn, uint32_t block)
{
    if (block < RAMNAND_BLOCKS && rn->map[block]) {
        rn->slot_used[rn->map[block] - 1u] = 0;
        rn->map[block] = 0;
    }
    rn->erases++;
}

/* Whether the power holds for one more program or erase. */
static bool power_holds(struct ramnand *rn)
{
    if (rn->power_left < 0)
        return true;
    if (rn->power_left == 0) {
        rn->power_lost = true;
        return false;
    }
    rn->power_left--;
    return true;
}

static uint32_t row_of(const struct ramnand *rn, unsigned first)
{
    return (uint32_t)rn->addr[first] | (uint32_t)rn->addr[first + 1] << 8;
}

static int do_cmd(struct ramnand *rn, uint8_t cmd)
{
    switch (cmd) {
    case NK_CMD_RESET:
        rn->programming = false;
        rn->reading_status = rn->reading_id = false;
        rn->status = STATUS_READY | STATUS_NOT_PROTECTED;
        break;
    case NK_CMD_READID:
    case NK_CMD_READ0:
    case NK_CMD_SEQIN:
    case NK_CMD_RNDIN:
    case NK_CMD_RNDOUT:
    case NK_CMD_ERASE1:
        if (cmd == NK_CMD_SEQIN)
            memset(rn->reg, 0xff, sizeof rn->reg); /* 85h (copy-back, column change) keeps it */
        if (cmd == NK_CMD_SEQIN || cmd == NK_CMD_RNDIN)
            rn->programming = true;
        rn->reading_status = false;
        rn->reading_id = cmd == NK_CMD_READID;
        rn->addr_count = 0;
        break;
    case NK_CMD_STATUS:
        rn->reading_status = true;
        break;
    case NK_CMD_READSTART:
    case NK_CMD_COPYBACKREAD:
        rn->row = row_of(rn, 2);
        rn->column = (uint32_t)rn->addr[0] | (uint32_t)rn->addr[1] << 8;
        load_page(rn, rn->row, rn->reg);
        rn->reads++;
        break;
    case NK_CMD_RNDOUTSTART:
        break;
    case NK_CMD_PAGEPROG:
    case NK_CMD_CACHEDPROG:
        if (!rn->programming)
            return -NK_EINVAL;
        rn->programming = false;
        if (!power_holds(rn)) {
            program_page(rn, rn->row, RAMNAND_RAW / 2u); /* torn: half the cells */
            return -NK_ENODEV;
        }
        if (!program_page(rn, rn->row, RAMNAND_RAW))
            return -NK_ENODEV;
        break;
    case NK_CMD_ERASE2:
        if (!power_holds(rn))
            return -NK_ENODEV;
        erase_block(rn, row_of(rn, 0) / RAMNAND_PAGES_PER_BLOCK);
        break;
    default:
        return -NK_EINVAL;
    }
    rn->cmd = cmd;
    return 0;
}

static void do_addr(struct ramnand *rn, const uint8_t *cycles, unsigned count)
{
    for (unsigned i = 0; i < count && rn->addr_count < sizeof rn->addr; i++)
        rn->addr[rn->addr_count++] = cycles[i];
    if (rn->cmd == NK_CMD_RNDOUT || rn->cmd == NK_CMD_RNDIN || rn->cmd == NK_CMD_SEQIN) {
        if (rn->addr_count >= 2)
            rn->column = (uint32_t)rn->addr[0] | (uint32_t)rn->addr[1] << 8;
        if (rn->addr_count >= 4 && rn->cmd != NK_CMD_RNDOUT)
            rn->row = row_of(rn, 2);
    }
}

static int ramnand_exec_op(void *ctx, const struct nk_op *op)
{
    struct ramnand *rn = ctx;
    uint32_t t0 = rn->ticks ? rn->ticks() : 0;
    int err = 0;
    if (rn->power_lost)
        err = -NK_ENODEV;
    else if (op->chip_select != 0)
        err = -NK_EINVAL;
    for (unsigned i = 0; !err && i < op->count; i++) {
        const struct nk_instr *in = &op->instrs[i];
        switch (in->type) {
        case NK_INSTR_CMD:
            err = do_cmd(rn, in->u.cmd);
            break;
        case NK_INSTR_ADDR:
            do_addr(rn, in->u.addr.cycles, in->u.addr.count);
            break;
        case NK_INSTR_DATA_OUT: {
            uint32_t n = in->u.out.len;
            if (rn->column >= RAMNAND_RAW)
                break;
            if (n > RAMNAND_RAW - rn->column)
                n = RAMNAND_RAW - rn->column;
            memcpy(rn->reg + rn->column, in->u.out.buf, n);
            rn->column += n;
            break;
        }
        case NK_INSTR_DATA_IN: {
            uint8_t *buf = in->u.in.buf;
            uint32_t len = in->u.in.len;
            if (rn->reading_status) {
                memset(buf, rn->status, len);
            } else if (rn->reading_id) {
                /* Address 00h: the ID; 20h/40h (ONFI, JEDEC signatures): nothing. */
                for (uint32_t n = 0; n < len; n++)
                    buf[n] = rn->addr[0] == 0 && n < sizeof ramnand_id ? ramnand_id[n] : 0;
            } else {
                for (uint32_t n = 0; n < len; n++, rn->column++)
                    buf[n] = rn->column < RAMNAND_RAW ? rn->reg[rn->column] : 0xff;
            }
            break;
        }
        case NK_INSTR_WAIT_READY:
            break; /* every operation completes at once */
        default:
            err = -NK_EINVAL;
        }
    }
    if (rn->ticks)
        rn->port_ticks += (uint32_t)(rn->ticks() - t0);
    return err;
}

static const struct nk_ctrl_ops ramnand_ops = {.exec_op = ramnand_exec_op};

void ramnand_init(struct ramnand *rn, void *store, size_t store_size)
{
    memset(rn, 0, sizeof *rn);
    rn->ctrl.ops = &ramnand_ops;
    rn->ctrl.ctx = rn;
    rn->ctrl.caps = NK_CTRL_CAP_RB_LINE;
    rn->store = store;
    rn->store_blocks = (unsigned)(store_size / RAMNAND_BLOCK_BYTES);
    if (rn->store_blocks > sizeof rn->slot_used)
        rn->store_blocks = sizeof rn->slot_used;
    rn->status = STATUS_READY | STATUS_NOT_PROTECTED;
    rn->power_left = -1;
}

bool ramnand_flip(struct ramnand *rn, uint32_t page, uint32_t offset, unsigned bit)
{
    uint8_t *p = page_at(rn, page);
    if (!p || offset >= RAMNAND_RAW)
        return false;
    p[offset] ^= (uint8_t)(1u << (bit & 7u));
    return true;
}

bool ramnand_page_written(const struct ramnand *rn, uint32_t page)
{
    const uint8_t *p = page_at(rn, page);
    if (!p)
        return false;
    for (uint32_t i = 0; i < RAMNAND_RAW; i++)
        if (p[i] != 0xff)
            return true;
    return false;
}

unsigned ramnand_blocks_used(const struct ramnand *rn)
{
    unsigned n = 0;
    for (unsigned i = 0; i < rn->store_blocks; i++)
        n += rn->slot_used[i];
    return n;
}
