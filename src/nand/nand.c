/* SPDX-License-Identifier: MIT */
/*
 * Device layer: page read/program and block erase with ECC, OOB layouts,
 * bad-block checks, locking and statistics on top of the chip layer.
 *
 * Software ECC reads move data and OOB in one burst and then check each
 * step; a controller engine is armed before each step's transfer and its
 * code read back after it; on-die ECC is reported through the status
 * register after the page load. Every public entry point is a thin wrapper
 * (lock, busy-time clock) around a static worker.
 */
#include <string.h>

#include "nand/nand_internal.h"
#include "nandkit/error.h"
#include "nandkit/spinand.h"

size_t nk_nand_workspace_size(const struct nk_chip_info *info)
{
    return NK_NAND_WORKSPACE_SIZE(info->page_size, info->oob_size);
}

/* ----- ECC choice and requirement ------------------------------------------------- */

/* The chip's requirement: `strength` bits per `step` bytes (0: none given). */
struct nk_ecc_need {
    unsigned strength, step;
};

static struct nk_ecc_need nk_ecc_need_of(const struct nk_chip_info *info)
{
    struct nk_ecc_need need = {info->ecc_strength, info->ecc_step ? info->ecc_step : 512u};
    return need;
}

/* Strong enough: as many bits per step, and as many per page (a 1-bit/256
 * engine meets 1 bit/512; 4 bits/512 does not meet 8 bits/1024 per step). */
static bool nk_ecc_strong_enough(unsigned strength, unsigned step, struct nk_ecc_need need,
                                 uint32_t page_size)
{
    if (need.strength == 0)
        return true;
    if (strength == 0 || step == 0)
        return false;
    uint64_t have = (uint64_t)page_size * strength / step;
    uint64_t want = (uint64_t)page_size * need.strength / need.step;
    return strength >= need.strength && have >= want;
}

bool nk_nand_ecc_meets_requirement(const struct nk_ecc_engine *ecc, const struct nk_chip_info *info)
{
    return nk_ecc_strong_enough(ecc->strength, ecc->step_size, nk_ecc_need_of(info),
                                info->page_size);
}

/* What nk_nand_open() picks for a chip when the caller gives no engine. */
enum nk_ecc_kind { NK_ECC_KIND_HAMMING, NK_ECC_KIND_ON_DIE, NK_ECC_KIND_BCH };

struct nk_ecc_plan {
    enum nk_ecc_kind kind;
    unsigned step, strength; /* BCH and on-die */
};

static struct nk_ecc_plan nk_ecc_plan_for(const struct nk_chip_info *info)
{
    struct nk_ecc_need need = nk_ecc_need_of(info);
    struct nk_ecc_plan plan = {NK_ECC_KIND_HAMMING, 256, 1};
#ifndef NK_NO_SPINAND
    if (info->features & NK_CHIP_SPI_NAND) {
        /* SPI-NAND: the part's own engine, as Linux's spinand uses it. */
        plan.kind = NK_ECC_KIND_ON_DIE;
        plan.step = need.step;
        plan.strength = need.strength;
        return plan;
    }
#endif
    if (nk_ecc_strong_enough(1, 256, need, info->page_size) && info->page_size % 256 == 0)
        return plan;
    if (info->features & NK_CHIP_ON_DIE_ECC) {
        plan.kind = NK_ECC_KIND_ON_DIE;
        plan.step = need.step;
        plan.strength = need.strength;
        return plan;
    }
    /* BCH on the required step, capped at 1024 bytes (m = 14) with the
     * strength scaled up to keep the per-page figure. */
    plan.kind = NK_ECC_KIND_BCH;
    plan.step = need.step < 512 ? 512 : need.step > 1024 ? 1024 : need.step;
    plan.strength = (need.strength * plan.step + need.step - 1) / need.step;
    if (plan.strength < need.strength)
        plan.strength = need.strength;
    return plan;
}

/* Bytes of BCH tables the plan needs; 0 when none (or no BCH in this
 * build, NK_NO_BCH: then a chip that needs BCH is refused). */
static size_t nk_ecc_plan_tables(const struct nk_ecc_plan *plan)
{
    if (plan->kind != NK_ECC_KIND_BCH)
        return 0;
#ifdef NK_NO_BCH
    return 0;
#else
    unsigned m = plan->step > 512 ? 14 : 13;
    return nk_bch_workspace_size(m, plan->strength, NK_BCH_SMALL_TABLES);
#endif
}

size_t nk_nand_default_workspace_size(const struct nk_chip_info *info)
{
    struct nk_ecc_plan plan = nk_ecc_plan_for(info);
    return nk_nand_workspace_size(info) + nk_ecc_plan_tables(&plan);
}

#ifdef NK_HAVE_FORMAT /* size knobs (docs/porting.md): no formatter, no name */
const char *nk_nand_default_ecc_name(const struct nk_chip_info *info, char *buf, size_t size)
{
    struct nk_ecc_plan plan = nk_ecc_plan_for(info);
    if (plan.kind == NK_ECC_KIND_HAMMING)
        nk_format(buf, size, "hamming256");
    else if (plan.kind == NK_ECC_KIND_ON_DIE)
        nk_format(buf, size, "on-die");
    else
        nk_format(buf, size, "bch%u-%u", plan.strength, plan.step);
    return buf;
}
#endif

/* Fills dev->ecc with the planned engine; BCH tables go after the device's
 * buffers in the workspace. */
static int nk_nand_choose_ecc(struct nk_nand *dev, const struct nk_nand_config *config)
{
    const struct nk_chip_info *info = &dev->chip.info;
    struct nk_ecc_plan plan = nk_ecc_plan_for(info);
    if (plan.kind == NK_ECC_KIND_HAMMING)
        return nk_ecc_hamming_init(&dev->ecc, 256, false);
    if (plan.kind == NK_ECC_KIND_ON_DIE) {
        nk_ecc_on_die_init(&dev->ecc, plan.step, plan.strength);
        return 0;
    }
    size_t base = nk_nand_workspace_size(info);
    size_t tables = nk_ecc_plan_tables(&plan);
    if (tables == 0)
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "%s requires %u-bit ECC per %u bytes: no BCH code in this build "
                           "reaches it",
                           info->model, info->ecc_strength, nk_ecc_need_of(info).step);
    if (config->workspace_size < base + tables)
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "workspace of %zu bytes too small: %s with BCH%u over %u-byte steps "
                           "needs %zu (nk_nand_default_workspace_size)",
                           config->workspace_size, info->model, plan.strength, plan.step,
                           base + tables);
#ifdef NK_NO_BCH
    return -NK_EINVAL; /* not reached: no tables without BCH */
#else
    int err = nk_bch_init(&dev->bch, plan.step, plan.strength, NK_BCH_SMALL_TABLES,
                          (uint8_t *)config->workspace + base, tables);
    if (err)
        return nk_diag_set(&dev->diag, err, "BCH%u over %u-byte steps: cannot set up",
                           plan.strength, plan.step);
    nk_ecc_bch_engine_init(&dev->ecc, &dev->bch);
    return 0;
#endif
}

/* Refuses an engine weaker than the chip requires, naming both. The "none"
 * engine is a deliberate choice (raw access, a format without data ECC such
 * as mkyaffs2's, ECC done above the device) and passes, as Linux lets a
 * board choose no ECC. */
static int nk_nand_check_requirement(struct nk_nand *dev, const struct nk_nand_config *config)
{
    const struct nk_chip_info *info = &dev->chip.info;
    if (config->force_ecc || dev->ecc.placement == NK_ECC_PLACEMENT_NONE ||
        nk_nand_ecc_meets_requirement(&dev->ecc, info))
        return 0;
    return nk_diag_set(&dev->diag, -NK_EINVAL,
                       "ECC '%s' (%u bit(s) per %u bytes) is weaker than the %u bit(s) per %u "
                       "bytes %s requires (force_ecc accepts it)",
                       dev->ecc.name ? dev->ecc.name : "?", dev->ecc.strength, dev->ecc.step_size,
                       info->ecc_strength, nk_ecc_need_of(info).step, info->model);
}

/* ----- wrappers: lock and clock ------------------------------------------------ */

struct nk_call {
    uint64_t start_ns;
};

static void nk_call_begin(struct nk_nand *dev, struct nk_call *call)
{
    if (dev->lock.lock)
        dev->lock.lock(dev->lock.ctx);
    call->start_ns = dev->clock.now_ns ? dev->clock.now_ns(dev->clock.ctx) : 0;
}

static int nk_call_end(struct nk_nand *dev, struct nk_call *call, int result)
{
    if (dev->clock.now_ns)
        dev->stats.busy_ns += dev->clock.now_ns(dev->clock.ctx) - call->start_ns;
    if (dev->lock.unlock)
        dev->lock.unlock(dev->lock.ctx);
    return result;
}

/* ----- open ---------------------------------------------------------------------- */

static unsigned nk_default_threshold(unsigned strength)
{
    return strength ? (3u * strength + 3u) / 4u : 0u;
}

/* The OOB byte range that holds every code byte, worth reading alone when
 * the caller does not want the OOB and the span leaves bytes out. */
static void nk_nand_ecc_span(struct nk_nand *dev)
{
    unsigned start = nk_nand_oob_size(dev), end = 0;
    for (unsigned r = 0; r < dev->layout.ecc_count; r++) {
        const struct nk_oob_region *region = &dev->layout.ecc[r];
        if (!region->length)
            continue;
        if (region->offset < start)
            start = region->offset;
        if ((unsigned)region->offset + region->length > end)
            end = (unsigned)region->offset + region->length;
    }
    dev->ecc_span_start = 0;
    dev->ecc_span_len = 0;
    /* A change-column costs about six cycles: skip fewer bytes than that
     * and the full OOB is cheaper. */
    if (dev->ecc_total && end > start && nk_nand_oob_size(dev) - (end - start) > 8) {
        dev->ecc_span_start = (uint16_t)start;
        dev->ecc_span_len = (uint16_t)(end - start);
    }
}

static int nk_nand_setup_ecc(struct nk_nand *dev, const struct nk_nand_config *config)
{
    const struct nk_chip_info *info = &dev->chip.info;
    if (config->ecc) {
        dev->ecc = *config->ecc;
    } else {
        int err = nk_nand_choose_ecc(dev, config);
        if (err)
            return err;
    }
    int err = nk_nand_check_requirement(dev, config);
    if (err)
        return err;

    dev->ecc_steps = 0;
    dev->ecc_total = 0;
    if (dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE ||
        dev->ecc.placement == NK_ECC_PLACEMENT_CONTROLLER) {
        if (!dev->ecc.ops || !dev->ecc.ops->calculate || !dev->ecc.ops->correct)
            return nk_diag_set(&dev->diag, -NK_EINVAL, "ECC engine '%s' has no operations",
                               dev->ecc.name ? dev->ecc.name : "?");
        if (dev->ecc.step_size == 0 || info->page_size % dev->ecc.step_size != 0)
            return nk_diag_set(&dev->diag, -NK_EINVAL,
                               "ECC step of %u bytes does not divide the %u-byte page",
                               dev->ecc.step_size, info->page_size);
        if (dev->ecc.bytes_per_step > NK_ECC_MAX_BYTES_PER_STEP)
            return nk_diag_set(&dev->diag, -NK_EINVAL, "ECC engine '%s': %u code bytes per step",
                               dev->ecc.name, dev->ecc.bytes_per_step);
        dev->ecc_steps = info->page_size / dev->ecc.step_size;
        dev->ecc_total = dev->ecc_steps * dev->ecc.bytes_per_step;
        if (dev->ecc_total > info->oob_size)
            return nk_diag_set(&dev->diag, -NK_EINVAL,
                               "ECC '%s' needs %u OOB bytes per page; the chip has %u",
                               dev->ecc.name, dev->ecc_total, info->oob_size);
        if (dev->ecc.placement == NK_ECC_PLACEMENT_CONTROLLER &&
            (!dev->ecc.ctrl || !dev->ecc.ctrl->ops->ecc_enable))
            return nk_diag_set(&dev->diag, -NK_EINVAL,
                               "controller ECC engine without an ecc_enable hook");
    } else if (dev->ecc.placement == NK_ECC_PLACEMENT_ON_DIE) {
        if (!(info->features & NK_CHIP_ON_DIE_ECC))
            return nk_diag_set(&dev->diag, -NK_ENOTSUP, "%s has no on-die ECC", info->model);
        uint8_t enable[4] = {0x08, 0, 0, 0};
#ifndef NK_NO_SPINAND
        if (nk_chip_is_serial(&dev->chip))
            err = nk_spinand_ecc_enable(&dev->chip, true);
        else
#endif
            err = nk_chip_set_features(&dev->chip, NK_FEATURE_ARRAY_OPERATION, enable);
        if (err)
            return err;
    }
#ifndef NK_NO_SPINAND
    /* A serial part corrects on its own unless told not to: any other
     * engine (or none) sees the array as it is. */
    if (nk_chip_is_serial(&dev->chip) && dev->ecc.placement != NK_ECC_PLACEMENT_ON_DIE) {
        err = nk_spinand_ecc_enable(&dev->chip, false);
        if (err)
            return err;
    }
#endif

    if (config->layout) {
        dev->layout = *config->layout;
#ifndef NK_NO_SPINAND
    } else if (nk_chip_is_serial(&dev->chip) && nk_chip_spinand_part(&dev->chip) &&
               dev->ecc.placement == NK_ECC_PLACEMENT_ON_DIE) {
        nk_spinand_oob_layout(nk_chip_spinand_part(&dev->chip), &dev->layout);
#endif
    } else {
        err = nk_oob_layout_default(&dev->layout, info->page_size, info->oob_size, &dev->ecc);
        if (err)
            return nk_diag_set(&dev->diag, err,
                               "no default OOB layout for %u-byte OOB with %u ECC bytes",
                               info->oob_size, dev->ecc_total);
    }
    if (nk_oob_layout_check(&dev->layout, info->oob_size, dev->ecc_total))
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "OOB layout does not fit a %u-byte OOB with %u ECC bytes",
                           info->oob_size, dev->ecc_total);
    dev->free_bytes = nk_oob_free_bytes(&dev->layout);
    nk_nand_ecc_span(dev);
    dev->bitflip_threshold = config->bitflip_threshold;
    if (!dev->bitflip_threshold || dev->bitflip_threshold > dev->ecc.strength)
        dev->bitflip_threshold = nk_default_threshold(dev->ecc.strength);
    return 0;
}

/* NK_BBT_WORKSPACE_SIZE() reserves 8 bytes to align the struct. */
_Static_assert(_Alignof(struct nk_bbt) <= 8, "struct nk_bbt needs more alignment slack");

size_t nk_nand_bbt_workspace_size(const struct nk_chip_info *info)
{
    return NK_BBT_WORKSPACE_SIZE(info->page_size, info->oob_size, info->blocks);
}

/* config->bbt: the table and its memory from the workspace, after the
 * device's buffers and any BCH tables the device chose. */
static int nk_nand_attach_own_bbt(struct nk_nand *dev, const struct nk_nand_config *config)
{
    const struct nk_chip_info *info = &dev->chip.info;
    size_t used = nk_nand_workspace_size(info);
    if (!config->ecc) {
        struct nk_ecc_plan plan = nk_ecc_plan_for(info);
        used += nk_ecc_plan_tables(&plan);
    }
    size_t need = used + nk_nand_bbt_workspace_size(info);
    if (config->workspace_size < need)
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "workspace of %zu bytes too small for the device and its bad-block "
                           "table: %s needs %zu (nk_nand_bbt_workspace_size)",
                           config->workspace_size, info->model, need);
    uintptr_t at = (uintptr_t)config->workspace + used;
    uintptr_t align = _Alignof(struct nk_bbt);
    at = (at + align - 1) & ~(align - 1);
    struct nk_bbt *bbt = (struct nk_bbt *)at;
    uint8_t *memory = (uint8_t *)(bbt + 1);
    struct nk_bbt_config bbt_config;
    memset(&bbt_config, 0, sizeof bbt_config);
    bbt_config.memory = memory;
    bbt_config.memory_size =
        (size_t)((uint8_t *)config->workspace + config->workspace_size - memory);
    return nk_bbt_attach(dev, bbt, &bbt_config);
}

int nk_nand_open(struct nk_nand *dev, const struct nk_nand_config *config)
{
    memset(dev, 0, sizeof *dev);
#ifdef NK_NO_SPINAND
    if (!config || !config->ctrl || !config->ctrl->ops || !config->ctrl->ops->exec_op)
#else
    if (!config || !config->ctrl || !config->ctrl->ops ||
        !((config->ctrl->caps & NK_CTRL_CAP_SERIAL) ? config->ctrl->ops->exec_spi != NULL
                                                    : config->ctrl->ops->exec_op != NULL))
#endif
        return nk_diag_set(&dev->diag, -NK_EINVAL, "no controller port (exec_op/exec_spi) given");

    int err;
    if (config->chip) {
        nk_chip_attach(&dev->chip, config->ctrl, config->chip_select, config->chip);
        err = config->skip_reset ? 0 : nk_chip_reset(&dev->chip);
    } else {
        err = nk_chip_identify(&dev->chip, config->ctrl, config->chip_select);
    }
    if (err) {
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
        if (!dev->diag.text[0])
            nk_diag_set(&dev->diag, err, "chip did not answer: %s", nk_strerror(err));
        return err;
    }

    const struct nk_chip_info *info = &dev->chip.info;
    if (info->page_size == 0 || info->oob_size == 0 || info->pages_per_block == 0 ||
        info->blocks == 0)
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "chip geometry incomplete (page %u, OOB %u, %u pages/block, %u blocks)",
                           info->page_size, info->oob_size, info->pages_per_block, info->blocks);

    size_t need = nk_nand_workspace_size(info);
    if (!config->workspace || config->workspace_size < need)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "workspace of %zu bytes too small: %s needs %zu",
                           config->workspace ? config->workspace_size : 0, info->model, need);
    dev->scratch = config->workspace; /* laid out by nk_nand_page_buf() and the others */
    if (config->clock)
        dev->clock = *config->clock;
    if (config->lock)
        dev->lock = *config->lock;
    if (config->badblocks)
        dev->badblocks = *config->badblocks;
    dev->read_only = config->read_only;

    err = nk_nand_setup_ecc(dev, config);
    if (!err && config->bbt)
        err = nk_nand_attach_own_bbt(dev, config);
    return err;
}

void nk_nand_close(struct nk_nand *dev)
{
    dev->scratch = NULL;
}

/* ----- argument checks ------------------------------------------------------------ */

int nk_check_page(struct nk_nand *dev, uint32_t page)
{
    if (!nk_nand_is_open(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL, "device is not open");
    uint32_t pages = nk_nand_pages(dev);
    if (page >= pages)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "page %u out of range: device has %u pages",
                           page, pages);
    return 0;
}

static int nk_check_block(struct nk_nand *dev, uint32_t block)
{
    if (!nk_nand_is_open(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL, "device is not open");
    if (block >= nk_nand_blocks(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL, "block %u out of range: device has %u blocks",
                           block, nk_nand_blocks(dev));
    return 0;
}

int nk_check_writable(struct nk_nand *dev, const char *what, uint32_t where)
{
    if (dev->read_only)
        return nk_diag_set(&dev->diag, -NK_EROFS, "%s %u refused: device opened read-only", what,
                           where);
    return 0;
}

int nk_check_mode(struct nk_nand *dev, enum nk_oob_mode mode)
{
    if (mode != NK_OOB_PLACE && mode != NK_OOB_AUTO && mode != NK_OOB_RAW)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "unknown OOB mode %d", (int)mode);
    return 0;
}

/* Refuses program/erase on a block the bad-block table knows as bad, and
 * on the table's own blocks unless the table code itself is writing. */
int nk_check_not_bad(struct nk_nand *dev, uint32_t block, const char *what, unsigned flags)
{
    if (!dev->bbt)
        return 0;
    int state = nk_bbt_block_state(dev->bbt, block);
    if (state == NK_BBT_GOOD || (state == NK_BBT_RESERVED && (flags & NK_IO_ALLOW_RESERVED)))
        return 0;
    dev->stats.refused_bad++;
    if (state == NK_BBT_RESERVED)
        return nk_diag_set(&dev->diag, -NK_EIO,
                           "%s refused: block %u is reserved for the bad-block table", what, block);
    return nk_diag_set(&dev->diag, -NK_EIO, "%s refused: block %u is bad (%s)", what, block,
                       state == NK_BBT_WORN ? "worn" : "factory-marked");
}

/* ----- ECC --------------------------------------------------------------------------- */

/* Folds one step's outcome into the page result. */
static void nk_account_step(struct nk_nand *dev, int corrected, unsigned *max_bitflips,
                            bool *failed)
{
    if (corrected < 0) {
        dev->stats.ecc_failed_steps++;
        *failed = true;
        return;
    }
    if (corrected > 0) {
        dev->stats.ecc_corrected_bits += (unsigned)corrected;
        dev->stats.ecc_corrected_steps++;
        if ((unsigned)corrected > *max_bitflips)
            *max_bitflips = (unsigned)corrected;
    }
}

/* The page result per the bitflip contract. */
static int nk_read_result(struct nk_nand *dev, unsigned max_bitflips, bool failed)
{
    dev->last_bitflips = max_bitflips;
    if (failed) {
        dev->stats.ecc_failed_pages++;
        return -NK_EBADMSG;
    }
    if (dev->bitflip_threshold && max_bitflips >= dev->bitflip_threshold)
        dev->stats.scrub_reports++;
    return (int)max_bitflips;
}

/* Checks and corrects every step of `data` given the code computed over it
 * (nk_nand_ecc_calc(dev)) and the OOB as read (`oob`, full size). Erased steps with
 * few enough bitflips are cleaned to 0xFF. */
int nk_ecc_correct_page(struct nk_nand *dev, uint8_t *data, uint8_t *oob)
{
    const struct nk_ecc_engine *ecc = &dev->ecc;
    unsigned bytes = ecc->bytes_per_step;
    unsigned max_bitflips = 0;
    bool failed = false;
    bool ecc_changed = false;

    nk_oob_ecc_get(&dev->layout, oob, nk_nand_ecc_read(dev), dev->ecc_total);
    for (unsigned step = 0; step < dev->ecc_steps; step++) {
        uint8_t *chunk = data + (size_t)step * ecc->step_size;
        uint8_t *read_ecc = nk_nand_ecc_read(dev) + step * bytes;
        const uint8_t *calc_ecc = nk_nand_ecc_calc(dev) + step * bytes;
        if (memcmp(read_ecc, calc_ecc, bytes) == 0)
            continue; /* clean: the common case costs one compare */
        int corrected = ecc->ops->correct(ecc, chunk, read_ecc, calc_ecc);
        if (corrected == -NK_EBADMSG) {
            corrected = nk_ecc_check_erased(chunk, ecc->step_size, read_ecc, bytes, ecc->strength);
            ecc_changed |= corrected >= 0;
        }
        nk_account_step(dev, corrected, &max_bitflips, &failed);
    }
    if (ecc_changed)
        nk_oob_ecc_set(&dev->layout, oob, nk_nand_ecc_read(dev), dev->ecc_total);
    return nk_read_result(dev, max_bitflips, failed);
}

/* On-die ECC: the page load's status tells the outcome; the bitflip count
 * itself is not reported, so "rewrite recommended" counts as the threshold. */
static int nk_on_die_result(struct nk_nand *dev)
{
    unsigned bitflips = 0;
    bool failed;
#ifndef NK_NO_SPINAND
    if (nk_chip_is_serial(&dev->chip)) {
        /* SPI-NAND: the part's own encoding of the page load's outcome. */
        int result = nk_spinand_ecc_result(&dev->chip);
        if (result < 0 && result != -NK_EBADMSG)
            return result;
        failed = result == -NK_EBADMSG;
        if (result > 0) {
            bitflips = (unsigned)result;
            dev->stats.ecc_corrected_bits += bitflips;
            dev->stats.ecc_corrected_steps++;
        }
    } else
#endif
    {
        uint8_t status;
        int err = nk_chip_read_status(&dev->chip, &status);
        if (!err)
            err = nk_chip_read_resume(&dev->chip);
        if (err)
            return err;
        failed = (status & NK_STATUS_FAIL) != 0;
        if (!failed && (status & NK_STATUS_REWRITE)) {
            bitflips = dev->bitflip_threshold ? dev->bitflip_threshold : 1;
            dev->stats.ecc_corrected_bits += bitflips;
            dev->stats.ecc_corrected_steps++;
        }
    }
    if (failed)
        dev->stats.ecc_failed_steps++;
    return nk_read_result(dev, bitflips, failed);
}

/* ----- read ----------------------------------------------------------------------------- */

/* Hands the OOB scratch (full, as corrected) to the caller per mode. */
void nk_oob_out(struct nk_nand *dev, const uint8_t *scratch, uint8_t *oob, enum nk_oob_mode mode)
{
    if (!oob)
        return;
    if (mode == NK_OOB_AUTO)
        nk_oob_free_get(&dev->layout, scratch, oob, 0, dev->free_bytes);
    else
        memcpy(oob, scratch, nk_nand_oob_size(dev));
}

static int nk_read_controller_ecc(struct nk_nand *dev, uint32_t page, uint8_t *data,
                                  uint8_t *scratch)
{
    const struct nk_ctrl *ctrl = dev->ecc.ctrl;
    int err = nk_chip_read_start(&dev->chip, page, 0);
    for (unsigned step = 0; !err && step < dev->ecc_steps; step++) {
        err = ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_READ);
        if (!err)
            err = nk_chip_read_data(&dev->chip, data + (size_t)step * dev->ecc.step_size,
                                    dev->ecc.step_size);
        if (!err)
            dev->ecc.ops->calculate(&dev->ecc, NULL,
                                    nk_nand_ecc_calc(dev) + step * dev->ecc.bytes_per_step);
    }
    if (!err)
        err = nk_chip_read_data(&dev->chip, scratch, nk_nand_oob_size(dev));
    return err;
}

int nk_nand_read_page_unlocked(struct nk_nand *dev, uint32_t page, uint8_t *data, uint8_t *oob,
                               enum nk_oob_mode mode)
{
    int err = nk_check_page(dev, page);
    if (!err)
        err = nk_check_mode(dev, mode);
    if (err)
        return err;
    const uint32_t page_size = nk_nand_page_size(dev);
    uint32_t oob_size = nk_nand_oob_size(dev);
    uint8_t *scratch = nk_nand_page_buf(dev) + page_size;
    dev->last_bitflips = 0;

    if (!data) {
        /* OOB only: no code covers it, so no ECC check (as Linux). */
        struct nk_xfer x = {page_size, oob_size, mode == NK_OOB_RAW ? oob : scratch};
        if (!oob)
            return 0;
        err = nk_chip_read_page(&dev->chip, page, &x, 1);
        if (err)
            return err;
        dev->stats.oob_reads++;
        dev->stats.bytes_read += oob_size;
        if (mode != NK_OOB_RAW)
            nk_oob_out(dev, scratch, oob, mode);
        return 0;
    }

    dev->stats.page_reads++;
    bool use_ecc = mode != NK_OOB_RAW && dev->ecc.placement != NK_ECC_PLACEMENT_NONE;
    if (!use_ecc || dev->ecc.placement == NK_ECC_PLACEMENT_ON_DIE) {
        /* Raw, no engine, or the chip corrects: one burst. OOB is skipped when
         * nobody wants it. */
        uint8_t *oob_target = mode == NK_OOB_RAW ? oob : scratch;
        struct nk_xfer x[2] = {{0, page_size, data}, {page_size, oob_size, oob_target}};
        unsigned count = oob ? 2 : 1;
        err = nk_chip_read_page(&dev->chip, page, x, count);
        if (err)
            return err;
        dev->stats.bytes_read += page_size + (oob ? oob_size : 0);
        int result = 0;
        if (use_ecc)
            result = nk_on_die_result(dev);
        if (mode != NK_OOB_RAW)
            nk_oob_out(dev, scratch, oob, mode);
        return result;
    }

    if (dev->ecc.placement == NK_ECC_PLACEMENT_CONTROLLER) {
        err = nk_read_controller_ecc(dev, page, data, scratch);
        if (err)
            return err;
    } else {
        /* Without a caller for the OOB only the code bytes need to move: one
         * change-column (a few cycles) instead of the free bytes. */
        struct nk_xfer x[2] = {{0, page_size, data}, {page_size, oob_size, scratch}};
        if (!oob && dev->ecc_span_len && (dev->chip.info.features & NK_CHIP_RANDOM_OUT)) {
            x[1].column = page_size + dev->ecc_span_start;
            x[1].len = dev->ecc_span_len;
            x[1].buf = scratch + dev->ecc_span_start;
        }
        err = nk_chip_read_page(&dev->chip, page, x, 2);
        if (err)
            return err;
        oob_size = x[1].len;
        for (unsigned step = 0; step < dev->ecc_steps; step++)
            dev->ecc.ops->calculate(&dev->ecc, data + (size_t)step * dev->ecc.step_size,
                                    nk_nand_ecc_calc(dev) + step * dev->ecc.bytes_per_step);
    }
    dev->stats.bytes_read += page_size + oob_size;
    int result = nk_ecc_correct_page(dev, data, scratch);
    nk_oob_out(dev, scratch, oob, mode);
    return result;
}

int nk_nand_read_page(struct nk_nand *dev, uint32_t page, uint8_t *data, uint8_t *oob,
                      enum nk_oob_mode mode)
{
    struct nk_call call;
    nk_call_begin(dev, &call);
    return nk_call_end(dev, &call, nk_nand_read_page_unlocked(dev, page, data, oob, mode));
}

int nk_nand_read_raw_bytes(struct nk_nand *dev, uint32_t page, uint32_t column, uint8_t *buf,
                           uint32_t len)
{
    struct nk_call call;
    nk_call_begin(dev, &call);
    int err = nk_check_page(dev, page);
    uint32_t total = nk_nand_page_size(dev) + nk_nand_oob_size(dev);
    if (!err && (column > total || len > total - column))
        err = nk_diag_set(&dev->diag, -NK_EINVAL,
                          "bytes %u..%u out of range: a page with OOB has %u bytes", column,
                          column + len, total);
    if (!err && len) {
        struct nk_xfer x = {column, len, buf};
        err = nk_chip_read_page(&dev->chip, page, &x, 1);
        if (!err) {
            dev->stats.oob_reads++;
            dev->stats.bytes_read += len;
        }
    }
    return nk_call_end(dev, &call, err);
}

/* ----- program ----------------------------------------------------------------------------- */

static int nk_program_controller_ecc(struct nk_nand *dev, uint32_t page, const uint8_t *data,
                                     uint8_t *scratch)
{
    const struct nk_ctrl *ctrl = dev->ecc.ctrl;
    int err = nk_chip_program_start(&dev->chip, page, 0);
    for (unsigned step = 0; !err && step < dev->ecc_steps; step++) {
        err = ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_WRITE);
        if (!err)
            err = nk_chip_write_data(&dev->chip, data + (size_t)step * dev->ecc.step_size,
                                     dev->ecc.step_size);
        if (!err)
            dev->ecc.ops->calculate(&dev->ecc, NULL,
                                    nk_nand_ecc_calc(dev) + step * dev->ecc.bytes_per_step);
    }
    if (err)
        return err;
    nk_oob_ecc_set(&dev->layout, scratch, nk_nand_ecc_calc(dev), dev->ecc_total);
    err = nk_chip_write_data(&dev->chip, scratch, nk_nand_oob_size(dev));
    if (!err)
        err = nk_chip_program_finish(&dev->chip, false);
    return err;
}

int nk_nand_program_page_unlocked(struct nk_nand *dev, uint32_t page, const uint8_t *data,
                                  const uint8_t *oob, enum nk_oob_mode mode, unsigned flags)
{
    int err = nk_check_page(dev, page);
    if (!err)
        err = nk_check_mode(dev, mode);
    if (!err)
        err = nk_check_writable(dev, "program of page", page);
    if (!err)
        err = nk_check_not_bad(dev, page / nk_nand_pages_per_block(dev), "program", flags);
    if (err)
        return err;
    if (!data && !oob)
        return 0;

    const uint32_t page_size = nk_nand_page_size(dev), oob_size = nk_nand_oob_size(dev);
    uint8_t *scratch = nk_nand_page_buf(dev) + page_size;
    bool use_ecc = mode != NK_OOB_RAW && data &&
                   (dev->ecc.placement == NK_ECC_PLACEMENT_SOFTWARE ||
                    dev->ecc.placement == NK_ECC_PLACEMENT_CONTROLLER);

    /* Assemble the OOB image unless the caller's buffer goes out as is. */
    const uint8_t *oob_out = oob;
    if (mode != NK_OOB_RAW && (oob || use_ecc)) {
        if (mode == NK_OOB_AUTO) {
            memset(scratch, 0xff, oob_size);
            if (oob)
                nk_oob_free_set(&dev->layout, scratch, oob, 0, dev->free_bytes);
        } else if (oob) {
            memcpy(scratch, oob, oob_size);
        } else {
            memset(scratch, 0xff, oob_size);
        }
        oob_out = scratch;
    }

    dev->stats.page_programs++;
    if (use_ecc && dev->ecc.placement == NK_ECC_PLACEMENT_CONTROLLER) {
        err = nk_program_controller_ecc(dev, page, data, scratch);
    } else {
        if (use_ecc) {
            for (unsigned step = 0; step < dev->ecc_steps; step++)
                dev->ecc.ops->calculate(&dev->ecc, data + (size_t)step * dev->ecc.step_size,
                                        nk_nand_ecc_calc(dev) + step * dev->ecc.bytes_per_step);
            nk_oob_ecc_set(&dev->layout, scratch, nk_nand_ecc_calc(dev), dev->ecc_total);
        }
        struct nk_xfer x[2];
        unsigned count = 0;
        if (data)
            x[count++] = (struct nk_xfer){0, page_size, (uint8_t *)data};
        if (oob_out)
            x[count++] = (struct nk_xfer){page_size, oob_size, (uint8_t *)oob_out};
        err = nk_chip_program_page(&dev->chip, page, x, count, false);
    }
    dev->stats.bytes_written += (data ? page_size : 0) + (oob_out ? oob_size : 0);
    if (err == -NK_EIO) {
        dev->stats.program_failures++;
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
    }
    return err;
}

int nk_nand_program_page(struct nk_nand *dev, uint32_t page, const uint8_t *data,
                         const uint8_t *oob, enum nk_oob_mode mode)
{
    struct nk_call call;
    nk_call_begin(dev, &call);
    return nk_call_end(dev, &call, nk_nand_program_page_unlocked(dev, page, data, oob, mode, 0));
}

/* ----- erase ---------------------------------------------------------------------------------- */

int nk_nand_erase_block_unlocked(struct nk_nand *dev, uint32_t block, unsigned flags)
{
    int err = nk_check_block(dev, block);
    if (!err)
        err = nk_check_writable(dev, "erase of block", block);
    if (!err)
        err = nk_check_not_bad(dev, block, "erase", flags);
    if (!err && dev->badblocks.is_bad) {
        int bad = dev->badblocks.is_bad(dev->badblocks.ctx, block);
        if (bad > 0) {
            dev->stats.refused_bad++;
            err = nk_diag_set(&dev->diag, -NK_EIO, "erase refused: block %u is bad", block);
        } else if (bad < 0) {
            err = bad;
        }
    }
    if (err)
        return err;
    dev->stats.block_erases++;
    err = nk_chip_erase_block(&dev->chip, block * nk_nand_pages_per_block(dev));
    if (err == -NK_EIO) {
        dev->stats.erase_failures++;
        memcpy(dev->diag.text, dev->chip.diag.text, sizeof dev->diag.text);
        /* A block that cannot be erased is retired for good (the table's own
         * blocks are handled by the table code, which relocates them). */
        if (dev->badblocks.mark_bad)
            dev->badblocks.mark_bad(dev->badblocks.ctx, block);
        else if (dev->bbt && !(flags & NK_IO_ALLOW_RESERVED))
            nk_bbt_mark_worn_unlocked(dev, block);
    }
    return err;
}

int nk_nand_erase_block(struct nk_nand *dev, uint32_t block)
{
    struct nk_call call;
    nk_call_begin(dev, &call);
    return nk_call_end(dev, &call, nk_nand_erase_block_unlocked(dev, block, 0));
}

/* ----- settings and statistics
 * ---------------------------------------------------------------------- */

int nk_nand_set_bitflip_threshold(struct nk_nand *dev, unsigned threshold)
{
    if (threshold > dev->ecc.strength)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "bitflip threshold %u above the ECC strength %u",
                           threshold, dev->ecc.strength);
    dev->bitflip_threshold = threshold ? threshold : nk_default_threshold(dev->ecc.strength);
    return 0;
}

int nk_nand_set_data_loop(struct nk_nand *dev, enum nk_data_loop loop)
{
    const struct nk_ctrl *ctrl = dev->chip.ctrl;
    if (!(ctrl->caps & NK_CTRL_CAP_DATA_LOOPS) || !ctrl->ops->set_data_loop)
        return nk_diag_set(&dev->diag, -NK_ENOTSUP, "controller port has one data loop only");
    return ctrl->ops->set_data_loop(ctrl->ctx, loop);
}

void nk_nand_stats_get(const struct nk_nand *dev, struct nk_nand_stats *stats)
{
    *stats = dev->stats;
}

void nk_nand_stats_reset(struct nk_nand *dev)
{
    memset(&dev->stats, 0, sizeof dev->stats);
}
