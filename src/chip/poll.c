/* SPDX-License-Identifier: MIT */
/*
 * Time bounds for status polling. A port without an R/B line (or a serial
 * port without poll_spi) leaves the wait for ready to the chip layer, which
 * reads the status until it says ready. The wait ends once the timeout has
 * passed on the port's clock (struct nk_ctrl_ops.clock_ticks at
 * struct nk_ctrl.clock_hz), however long one poll takes on that bus: a
 * count of polls would stretch the bound on a slow bus and cut it short on
 * a fast one.
 *
 * Ticks are summed poll to poll, so a 32-bit counter that wraps during the
 * wait (25 s at 168 MHz, 4.3 s of the simulator's nanoseconds) does no
 * harm, and the comparison needs only multiplications (no 64-bit division
 * on a small core).
 */
#include "chip/chip_internal.h"

#include "nandkit/error.h"

/* A port with an R/B line and no clock polls only to drain a cache program
 * cut short; that one wait is bounded by polls at the chip's cycle times. */
static uint32_t nk_poll_count(const struct nk_chip *chip, uint32_t timeout_us)
{
    const struct nk_chip_timing *t = &chip->info.timing;
    const struct nk_chip_timing *mode0 = nk_chip_timing_defaults();
    uint32_t poll_ns = (t->tWC_ns ? t->tWC_ns : mode0->tWC_ns) +
                       (t->tWHR_ns ? t->tWHR_ns : mode0->tWHR_ns) +
                       (t->tRC_ns ? t->tRC_ns : mode0->tRC_ns);
    /* timeout_us * 1000 / poll_ns + 2 without 64-bit division, saturating. */
    uint32_t whole = timeout_us / poll_ns;
    if (whole > (UINT32_MAX - 2000u) / 1000u)
        return UINT32_MAX;
    return whole * 1000u + timeout_us % poll_ns * 1000u / poll_ns + 2u;
}

static bool nk_poll_has_clock(const struct nk_chip *chip)
{
    return chip->ctrl->ops->clock_ticks && chip->ctrl->clock_hz;
}

int nk_poll_timer_start(struct nk_chip *chip, struct nk_poll_timer *timer, uint32_t timeout_us)
{
    const struct nk_ctrl *ctrl = chip->ctrl;
    timer->elapsed = 0;
    timer->timeout_us = timeout_us;
    if (!nk_poll_has_clock(chip)) {
        if (!(ctrl->caps & NK_CTRL_CAP_RB_LINE))
            return nk_diag_set(&chip->diag, -NK_EINVAL,
                               "port polls status but has no clock (clock_ticks, clock_hz): "
                               "its wait for ready has no time bound");
        timer->limit = nk_poll_count(chip, timeout_us);
        timer->last = 0;
        return 0;
    }
    timer->limit = (uint64_t)timeout_us * ctrl->clock_hz;
    timer->last = ctrl->ops->clock_ticks(ctrl->ctx);
    return 0;
}

bool nk_poll_timer_expired(struct nk_chip *chip, struct nk_poll_timer *timer)
{
    const struct nk_ctrl *ctrl = chip->ctrl;
    if (!nk_poll_has_clock(chip))
        return ++timer->elapsed >= timer->limit;
    uint32_t now = ctrl->ops->clock_ticks(ctrl->ctx);
    timer->elapsed += (uint32_t)(now - timer->last);
    timer->last = now;
    /* elapsed / clock_hz seconds >= timeout_us / 10^6 seconds */
    return timer->elapsed * 1000000u >= timer->limit;
}
