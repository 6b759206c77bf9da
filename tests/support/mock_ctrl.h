/* SPDX-License-Identifier: MIT */
/*
 * A recording controller port for chip-layer tests: every instruction it
 * executes is appended to a text log ("CMD 00|ADDR 00 00 05 00|CMD 30+100|
 * WAIT|IN 2048|"; an operation on a chip select other than 0 starts with
 * "CS1|"), DATA_IN is served from a script, and status reads return
 * a programmable value, so tests assert exact command sequences.
 */
#ifndef NK_MOCK_CTRL_H
#define NK_MOCK_CTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/ctrl.h"

struct nk_mock_ctrl {
    struct nk_ctrl ctrl;
    char log[16384];
    size_t log_len;
    uint8_t last_cmd;
    uint8_t status;         /* answered to DATA_IN after 70h */
    unsigned busy_polls;    /* status reads that report busy before ready */
    const uint8_t *in_data; /* DATA_IN source after other commands; NULL: 0xA5 */
    size_t in_len;
    size_t in_pos;
    uint8_t out_data[8192]; /* DATA_OUT bytes since init/clear, concatenated */
    size_t out_len;
    int fail_with;     /* non-zero: exec_op returns it */
    unsigned ops;      /* exec_op calls */
    uint32_t clock_us; /* the port's clock (clock_mhz 1): one tick per exec_op */
};

void nk_mock_ctrl_init(struct nk_mock_ctrl *mock, bool rb_line);
void nk_mock_ctrl_clear_log(struct nk_mock_ctrl *mock);

#endif
