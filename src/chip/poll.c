/* SPDX-License-Identifier: MIT */
/*
 * Time bounds for status polling. A port without an R/B line (or a serial
 * port without poll_spi) leaves the wait for ready to the chip layer, which
 * reads the status until it says ready. The wait ends once the timeout has
 * passed on the port's clock (struct nk_ctrl_ops.clock_ticks at
 * struct nk_ctrl.clock_mhz), however long one poll takes on that bus: a
 * count of polls would stretch the bound on a slow bus and cut it short on
 * a fast one.
 *
 * The timeout becomes ticks once (clock_mhz ticks per microsecond); each
 * look takes the ticks since the previous one off what remains, so a 32-bit counter that wraps
 * during the wait (25 s at 168 MHz, 4.3 s of the simulator's nanoseconds) does no harm, and nothing
 * needs 64-bit arithmetic.
 */
#include "chip/chip_internal.h"

#include "nandkit/error.h"

/* One status byte: READ STATUS, or GET FEATURE C0h on a serial part. */
static int nk_poll_read(struct nk_chip *chip, uint8_t *status)
{
#ifndef NK_NO_SPINAND
    if (nk_chip_is_serial(chip))
        return nk_spinand_get_feature(chip, NK_SPINAND_FEATURE_STATUS, status);
#endif
    return nk_chip_read_status(chip, status);
}

int nk_chip_poll(struct nk_chip *chip, uint32_t timeout_us, uint8_t mask, uint8_t ready,
                 uint8_t *status)
{
    const struct nk_ctrl *ctrl = chip->ctrl;
    uint32_t (*ticks)(void *ctx) = ctrl->ops->clock_ticks;
    if (!ticks || !ctrl->clock_mhz)
        return nk_diag_set(&chip->diag, -NK_EINVAL,
                           "port polls status but has no clock (clock_ticks, clock_mhz): "
                           "its wait for ready has no time bound");
    uint64_t limit = (uint64_t)timeout_us * ctrl->clock_mhz;
    uint32_t remaining = limit > UINT32_MAX ? UINT32_MAX : (uint32_t)limit;
    uint32_t last = ticks(ctrl->ctx);
    for (;;) {
        /* Time is read before the status, so a chip that turns ready just
         * as the timeout passes counts as ready. */
        uint32_t now = ticks(ctrl->ctx);
        bool late = now - last >= remaining;
        remaining -= late ? remaining : now - last;
        last = now;
        int err = nk_poll_read(chip, status);
        if (err)
            return err;
        if ((*status & mask) == ready)
            return 0;
        if (late)
            return nk_diag_set(&chip->diag, -NK_ETIMEDOUT,
                               "chip still busy (status 0x%02x) after %u us", *status, timeout_us);
    }
}
