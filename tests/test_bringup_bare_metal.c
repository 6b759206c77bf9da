/* SPDX-License-Identifier: MIT */
/*
 * The Cortex-M4 example's application (examples/cortex-m4/app.c), compiled
 * for the host with the simulator as its board's port: the same three calls
 * over the same static workspace and static file-system pool that the
 * firmware images link, run on a chip instead of only linked. The firmware
 * itself is built for the Cortex-M4 by CI (.ci/run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nandkit/sim.h"

static const struct nk_ctrl *board_port;

/* The application's own main() (reset handler, endless loop) is not run. */
#define main app_firmware_main
#include "../examples/cortex-m4/app.c"
#undef main

const struct nk_ctrl *board_nand_port(void)
{
    return board_port;
}

void board_delay_us(uint32_t us)
{
    (void)us;
}

static void test_the_firmware_mounts_from_its_static_pool_and_keeps_files_across_boots(void **state)
{
    (void)state;
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "K9F1G08U0A", .seed = 5, .factory_bad_blocks = -1};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    board_port = nk_sim_ctrl(sim);
    for (int boot = 0; boot < 2; boot++) {
        int err = app_nand_start();
        if (err)
            fail_msg("boot %d: %d %d %d %d: %s %s", boot, nand_status[0], nand_status[1],
                     nand_status[2], nand_status[3], nand.diag.text, fs.diag.text);
        /* First boot builds the bad-block table, the second finds it. */
        assert_int_equal(nand.bbt->info.scanned, boot == 0);
        assert_string_equal(nk_part_ecc_name(&data_part), "hamming256");
        struct nk_fs_statfs st;
        assert_int_equal(nk_fs_statfs(&fs, &st), 0);
        assert_false(st.read_only);
        if (boot == 0) {
            assert_int_equal(nk_fs_mkdir(&fs, "/log", 0755), 0);
        } else {
            struct nk_fs_stat dir;
            assert_int_equal(nk_fs_stat(&fs, "/log", &dir), 0);
            assert_int_equal(dir.type, NK_FS_TYPE_DIR);
        }
        assert_int_equal(nk_fs_unmount(&fs), 0);
        nk_nand_close(&nand);
    }
    nk_sim_close(sim);
}

static void test_the_firmware_takes_the_controllers_ecc_when_the_port_has_one(void **state)
{
    (void)state;
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "K9F1G08U0A", .seed = 6};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    board_port = nk_sim_ctrl_hw_ecc(sim, 256);
    int err = app_nand_start();
    if (err)
        fail_msg("%d %d %d %d: %s %s", nand_status[0], nand_status[1], nand_status[2],
                 nand_status[3], nand.diag.text, fs.diag.text);
    assert_int_equal(nk_part_ecc_placement(&data_part), NK_ECC_PLACEMENT_CONTROLLER);
    assert_int_equal(nk_fs_unmount(&fs), 0);
    nk_nand_close(&nand);
    nk_sim_close(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_the_firmware_mounts_from_its_static_pool_and_keeps_files_across_boots),
        cmocka_unit_test(test_the_firmware_takes_the_controllers_ecc_when_the_port_has_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
