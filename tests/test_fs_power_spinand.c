/* SPDX-License-Identifier: MIT */
/*
 * The power-cut campaign of test_fs_power.c on a SPI-NAND preset
 * (GD5F1GQ4UB, on-die ECC, GigaDevice's free-OOB layout, 64 pages per
 * block, cut to 16 blocks): the same mixed workload of every step kind,
 * replayed from scratch with the power cut at every NK_FS_POWER_STRIDE-th
 * array operation (CI: 9), a second cut during or after the recovery
 * mount, and the same checks against the model (every finished step
 * exactly there, the step in progress atomic or a prefix, reads that never
 * fail or lie, the same tree two virtual seconds later, fsck finding only a
 * cut's traces, a write after the recovery).
 *
 * The campaign is test_fs_power.c's, included here with its device opener
 * replaced by one that opens the preset (the simulator's torn programs and
 * interrupted erases drawn from the same seeds); its main is renamed and not
 * run. The environment knobs of test_fs_power.c apply (NK_FS_POWER_STRIDE,
 * NK_FS_POWER_STEPS, NK_FS_POWER_SEEDS, NK_FS_POWER_SEED, NK_FS_POWER_CUT,
 * NK_FS_POWER_DEBUG); not NK_FS_POWER_TRACE, whose tracer would take the
 * place of the reset at power restore below.
 */
#include "fs_testdev.h"
#include "testutil.h"

/* The preset the campaign runs on (set by each test). */
static const char *g_preset;

/* The power comes back at the part's power-up defaults: blocks locked,
 * QE clear. The board's boot after a power loss opens the device again,
 * which resets the part and unlocks it; here the campaign keeps its device,
 * so the restore does the reset the open would. */
static void reset_at_power_restore(void *ctx, const struct nk_sim_event *e)
{
    struct nk_fs_testdev *d = ctx;
    if (e->kind == NK_SIM_EVENT_POWER_RESTORE && nk_chip_reset(&d->nand.chip) != 0)
        fail_msg("reset after the power came back: %s", d->nand.chip.diag.text);
}

/* In place of nk_fs_testdev_open_seeded() in the campaign: `blocks` blocks
 * of the preset, faults drawn from `seed`; the geometry is the preset's. */
static int open_spinand_seeded(struct nk_fs_testdev *d, uint32_t page_size, uint32_t oob_size,
                               uint32_t pages_per_block, uint32_t blocks, enum nk_fs_layout layout,
                               uint64_t seed, struct nk_diag *why)
{
    (void)page_size;
    (void)oob_size;
    (void)pages_per_block;
    memset(d, 0, sizeof *d);
    d->layout = layout;
    int err = nk_sim_preset(g_preset, &d->params);
    if (err) {
        nk_format(why->text, sizeof why->text, "no preset %s", g_preset);
        return err;
    }
    d->params.chip.blocks = blocks;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &d->params;
    config.seed = seed;
    err = nk_sim_open(&d->sim, &config, why);
    if (err)
        return err;
    size_t ws = nk_nand_default_workspace_size(&d->params.chip);
    d->workspace = malloc(ws);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(d->sim);
    nc.chip = &d->params.chip; /* the cut geometry (the ID names the full part) */
    nc.workspace = d->workspace;
    nc.workspace_size = ws;
    err = nk_fs_testdev_open_device(d, &nc, why);
    if (!err)
        nk_sim_trace_set(d->sim, reset_at_power_restore, d);
    return err;
}

#define nk_fs_testdev_open_seeded open_spinand_seeded
#define main test_fs_power_main
#include "test_fs_power.c"
#undef main
#undef nk_fs_testdev_open_seeded

static void test_power_cuts_linux_gd5f1gq4ub(void **state)
{
    (void)state;
    g_preset = "GD5F1GQ4UB";
    campaign(NK_FS_LAYOUT_LINUX, 2048, 128);
    g_preset = NULL;
}

/* Each step in a mount of its own, as the CLI runs commands. */
static void test_power_cuts_mount_each_linux_gd5f1gq4ub(void **state)
{
    (void)state;
    g_preset = "GD5F1GQ4UB";
    campaign_mount_each(NK_FS_LAYOUT_LINUX, 2048, 128);
    g_preset = NULL;
}

/* A nearly full device of 16 blocks (2 MiB): most writes collect first. */
static void test_power_cuts_nearly_full_linux_gd5f1gq4ub(void **state)
{
    (void)state;
    g_preset = "GD5F1GQ4UB";
    g_data_limit = 1300000;
    g_file_max = 200000;
    campaign(NK_FS_LAYOUT_LINUX, 2048, 128);
    g_preset = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_power_cuts_linux_gd5f1gq4ub, reset_globals),
        cmocka_unit_test_setup(test_power_cuts_mount_each_linux_gd5f1gq4ub, reset_globals),
        cmocka_unit_test_setup(test_power_cuts_nearly_full_linux_gd5f1gq4ub, reset_globals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
