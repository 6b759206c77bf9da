/* SPDX-License-Identifier: MIT */
/*
 * The engines that are glue rather than codes: no ECC, a controller's
 * hardware engine, on-die ECC; and Linux's rule for erased steps.
 */
#include <string.h>

#include "nandkit/ecc.h"
#include "nandkit/error.h"

void nk_ecc_none_init(struct nk_ecc_engine *engine)
{
    memset(engine, 0, sizeof *engine);
    engine->name = "none";
    engine->placement = NK_ECC_PLACEMENT_NONE;
}

/* The controller computed the code during the transfer: fetch it. */
static void nk_ecc_hw_calculate(const struct nk_ecc_engine *engine, const uint8_t *data,
                                uint8_t *ecc)
{
    (void)data;
    const struct nk_ctrl *ctrl = engine->ctrl;
    if (ctrl->ops->ecc_read_code(ctrl->ctx, ecc) != 0)
        memset(ecc, 0, engine->bytes_per_step); /* never matches a good code: forces a check */
}

static int nk_ecc_hw_correct(const struct nk_ecc_engine *engine, uint8_t *data,
                             const uint8_t *read_ecc, const uint8_t *calc_ecc)
{
    const struct nk_ctrl *ctrl = engine->ctrl;
    if (ctrl->ops->ecc_correct)
        return ctrl->ops->ecc_correct(ctrl->ctx, data, read_ecc, calc_ecc);
    return nk_hamming_correct(data, engine->step_size, ctrl->ecc.sm_order, read_ecc, calc_ecc);
}

static const struct nk_ecc_ops nk_ecc_hw_ops = {
    .calculate = nk_ecc_hw_calculate,
    .correct = nk_ecc_hw_correct,
};

int nk_ecc_hw_init(struct nk_ecc_engine *engine, const struct nk_ctrl *ctrl)
{
    memset(engine, 0, sizeof *engine);
    if (!ctrl || !(ctrl->caps & NK_CTRL_CAP_HW_ECC) || !ctrl->ops->ecc_enable ||
        !ctrl->ops->ecc_read_code)
        return -NK_ENOTSUP;
    const struct nk_ctrl_ecc_info *info = &ctrl->ecc;
    if (info->algo == NK_HW_ECC_NONE || info->step_size == 0 || info->bytes_per_step == 0 ||
        info->bytes_per_step > NK_ECC_MAX_BYTES_PER_STEP)
        return -NK_ENOTSUP;
    if (info->algo != NK_HW_ECC_HAMMING && !ctrl->ops->ecc_correct)
        return -NK_ENOTSUP; /* nandkit cannot correct a vendor code itself */
    engine->ops = &nk_ecc_hw_ops;
    engine->name = "hw";
    engine->step_size = info->step_size;
    engine->bytes_per_step = info->bytes_per_step;
    engine->strength = info->strength ? info->strength : 1;
    engine->placement = NK_ECC_PLACEMENT_CONTROLLER;
    engine->ctrl = ctrl;
    return 0;
}

void nk_ecc_on_die_init(struct nk_ecc_engine *engine, unsigned step_size, unsigned strength)
{
    memset(engine, 0, sizeof *engine);
    engine->name = "on-die";
    engine->step_size = (uint16_t)step_size;
    engine->strength = (uint8_t)strength;
    engine->placement = NK_ECC_PLACEMENT_ON_DIE;
}

/* Zero bits in `len` bytes, stopping once `limit` is exceeded. */
static unsigned nk_count_zero_bits(const uint8_t *buf, uint32_t len, unsigned limit)
{
    unsigned zeros = 0;
    for (uint32_t i = 0; i < len && zeros <= limit; i++) {
        uint8_t v = (uint8_t)~buf[i];
        while (v) {
            v &= (uint8_t)(v - 1);
            zeros++;
        }
    }
    return zeros;
}

int nk_ecc_check_erased(uint8_t *data, uint32_t data_len, uint8_t *ecc, uint32_t ecc_len,
                        unsigned max_zero_bits)
{
    unsigned zeros = nk_count_zero_bits(data, data_len, max_zero_bits);
    if (zeros > max_zero_bits)
        return -NK_EBADMSG;
    zeros += nk_count_zero_bits(ecc, ecc_len, max_zero_bits - zeros);
    if (zeros > max_zero_bits)
        return -NK_EBADMSG;
    memset(data, 0xff, data_len);
    memset(ecc, 0xff, ecc_len);
    return (int)zeros;
}
