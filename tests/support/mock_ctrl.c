/* SPDX-License-Identifier: MIT */
#include "mock_ctrl.h"

#include <stdio.h>
#include <string.h>

#include "nandkit/chip.h"

static void nk_mock_log(struct nk_mock_ctrl *mock, const char *text)
{
    size_t n = strlen(text);
    if (mock->log_len + n + 1 < sizeof mock->log) {
        memcpy(mock->log + mock->log_len, text, n + 1);
        mock->log_len += n;
    }
}

static void nk_mock_log_delay(struct nk_mock_ctrl *mock, uint32_t delay_ns)
{
    char buf[32];
    if (delay_ns) {
        snprintf(buf, sizeof buf, "+%u", delay_ns);
        nk_mock_log(mock, buf);
    }
    nk_mock_log(mock, "|");
}

static int nk_mock_exec(void *ctx, const struct nk_op *op)
{
    struct nk_mock_ctrl *mock = ctx;
    char buf[64];
    mock->ops++;
    mock->clock_us++;
    if (mock->fail_with)
        return mock->fail_with;
    if (op->chip_select != 0) {
        snprintf(buf, sizeof buf, "CS%u|", op->chip_select);
        nk_mock_log(mock, buf);
    }
    for (unsigned i = 0; i < op->count; i++) {
        const struct nk_instr *in = &op->instrs[i];
        switch (in->type) {
        case NK_INSTR_CMD:
            snprintf(buf, sizeof buf, "CMD %02x", in->u.cmd);
            mock->last_cmd = in->u.cmd;
            break;
        case NK_INSTR_ADDR: {
            size_t n = (size_t)snprintf(buf, sizeof buf, "ADDR");
            for (unsigned k = 0; k < in->u.addr.count; k++)
                n += (size_t)snprintf(buf + n, sizeof buf - n, " %02x", in->u.addr.cycles[k]);
            break;
        }
        case NK_INSTR_DATA_IN:
            snprintf(buf, sizeof buf, "IN %u", in->u.in.len);
            for (uint32_t k = 0; k < in->u.in.len; k++) {
                if (mock->last_cmd == NK_CMD_STATUS) {
                    if (mock->busy_polls) {
                        mock->busy_polls--;
                        in->u.in.buf[k] = (uint8_t)(mock->status & ~NK_STATUS_READY);
                    } else {
                        in->u.in.buf[k] = mock->status;
                    }
                } else if (mock->in_data && mock->in_pos < mock->in_len) {
                    in->u.in.buf[k] = mock->in_data[mock->in_pos++];
                } else {
                    in->u.in.buf[k] = 0xa5;
                }
            }
            break;
        case NK_INSTR_DATA_OUT:
            snprintf(buf, sizeof buf, "OUT %u", in->u.out.len);
            for (uint32_t k = 0; k < in->u.out.len && mock->out_len < sizeof mock->out_data; k++)
                mock->out_data[mock->out_len++] = in->u.out.buf[k];
            break;
        case NK_INSTR_WAIT_READY:
            snprintf(buf, sizeof buf, "WAIT");
            break;
        }
        nk_mock_log(mock, buf);
        nk_mock_log_delay(mock, in->delay_ns);
    }
    return 0;
}

static uint32_t nk_mock_clock_ticks(void *ctx)
{
    const struct nk_mock_ctrl *mock = ctx;
    return mock->clock_us;
}

static const struct nk_ctrl_ops nk_mock_ops = {
    .exec_op = nk_mock_exec,
    .clock_ticks = nk_mock_clock_ticks,
};

void nk_mock_ctrl_init(struct nk_mock_ctrl *mock, bool rb_line)
{
    memset(mock, 0, sizeof *mock);
    mock->ctrl.ops = &nk_mock_ops;
    mock->ctrl.ctx = mock;
    mock->ctrl.caps = rb_line ? NK_CTRL_CAP_RB_LINE : 0;
    mock->ctrl.clock_mhz = 1;
    mock->status = NK_STATUS_READY | NK_STATUS_WP_N;
}

void nk_mock_ctrl_clear_log(struct nk_mock_ctrl *mock)
{
    mock->log[0] = '\0';
    mock->log_len = 0;
    mock->out_len = 0;
}
