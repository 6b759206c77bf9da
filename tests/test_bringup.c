/* SPDX-License-Identifier: MIT */
/*
 * The short bring-up path, as docs/controller.md and docs/fs-design.md show
 * it: from a port (the simulator's exec_op) to a mounted file system in
 * three library calls on zero-initialised configs, memory from static
 * buffers. The image is written beforehand by the builder, as a factory
 * would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nandkit/bbt.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

/* Sized before the chip is known: for pages up to 2048 + 64 bytes. */
static uint8_t workspace[NK_NAND_WORKSPACE_SIZE(2048, 64)] __attribute__((aligned(8)));
static uint64_t fs_pool[64 * 1024 / 8];

static const char greeting[] = "hello from a three-call mount\n";

/* What a factory would have written: /etc/motd. */
static void build_image(const struct nk_ctrl *port)
{
    struct nk_nand dev;
    struct nk_nand_config nc = {
        .ctrl = port, .workspace = workspace, .workspace_size = sizeof workspace};
    assert_int_equal(nk_nand_open(&dev, &nc), 0);
    struct nk_part part;
    assert_int_equal(nk_part_init(&part, &dev, "fs", 0, 0, 0), 0);
    static uint8_t build_ws[2048 + 64];
    static struct nk_fs_builder b;
    struct nk_fs_build_config bc = {.part = &part};
    assert_int_equal(nk_fs_build_begin(&b, &bc, build_ws, sizeof build_ws), 0);
    uint32_t etc;
    struct nk_fs_build_entry dir = {.type = NK_FS_TYPE_DIR,
                                    .parent_id = NK_FS_OBJ_ROOT,
                                    .name = "etc",
                                    .name_len = 3,
                                    .attr = {.mode = 0755}};
    assert_int_equal(nk_fs_build_object(&b, &dir, &etc), 0);
    struct nk_fs_build_entry file = {.type = NK_FS_TYPE_FILE,
                                     .parent_id = etc,
                                     .name = "motd",
                                     .name_len = 4,
                                     .attr = {.mode = 0644}};
    assert_int_equal(nk_fs_build_object(&b, &file, NULL), 0);
    assert_int_equal(nk_fs_build_data(&b, greeting, sizeof greeting - 1), 0);
    assert_int_equal(nk_fs_build_file_end(&b), 0);
    assert_int_equal(nk_fs_build_finish(&b, NULL), 0);
    nk_nand_close(&dev);
}

static void test_port_to_mounted_file_system_in_three_calls(void **state)
{
    (void)state;
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "K9F1G08U0A", .seed = 1};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    const struct nk_ctrl *port = nk_sim_ctrl(sim);
    build_image(port);

    /* The three calls. */
    struct nk_nand dev;
    struct nk_part part;
    struct nk_fs fs;
    struct nk_nand_config nand_config = {
        .ctrl = port, .workspace = workspace, .workspace_size = sizeof workspace};
    assert_int_equal(nk_nand_open(&dev, &nand_config), 0);
    assert_int_equal(nk_part_init(&part, &dev, "fs", 0, 0, 0), 0);
    struct nk_fs_config fs_config = {.part = &part, .pool = fs_pool, .pool_size = sizeof fs_pool};
    assert_int_equal(nk_fs_mount(&fs, &fs_config), 0);

    /* The chip was identified and its requirement chose the ECC. */
    assert_string_equal(dev.chip.info.model, "K9F1G08U0A");
    assert_string_equal(nk_part_ecc_name(&part), "hamming256");
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&fs, &f, "/etc/motd", NK_FS_O_RDONLY), 0);
    char buf[64] = "";
    assert_int_equal(nk_fs_file_read(&f, buf, sizeof buf), (int32_t)(sizeof greeting - 1));
    assert_string_equal(buf, greeting);
    assert_int_equal(nk_fs_file_close(&f), 0);
    struct nk_fs_statfs st;
    assert_int_equal(nk_fs_statfs(&fs, &st), 0);
    assert_false(st.read_only); /* a zeroed config mounts read-write */
    assert_int_equal(nk_fs_mkdir(&fs, "/var", 0755), 0);
    assert_int_equal(nk_fs_unmount(&fs), 0);
    nk_nand_close(&dev);
    nk_sim_close(sim);
}

static void test_three_calls_on_a_chip_that_needs_bch(void **state)
{
    (void)state;
    /* 4 bits per 512 bytes on 4096 + 224: the device picks BCH and keeps
     * its tables in the workspace, sized by the chip. */
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "MT29F8G08ABABA", .seed = 1};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    size_t size = nk_nand_default_workspace_size(info);
    assert_true(size > nk_nand_workspace_size(info));
    void *ws = test_malloc(size);
    struct nk_nand dev;
    struct nk_part part;
    struct nk_fs fs;
    struct nk_nand_config nand_config = {
        .ctrl = nk_sim_ctrl(sim), .workspace = ws, .workspace_size = size};
    assert_int_equal(nk_nand_open(&dev, &nand_config), 0);
    assert_string_equal(nk_part_ecc_name(&(struct nk_part){.dev = &dev}), "bch4-512");
    assert_int_equal(nk_part_init(&part, &dev, "fs", 0, 0, 0), 0);
    size_t pool_size = 4u << 20; /* a 1 GiB chip: the per-block tables dominate */
    void *pool = test_malloc(pool_size);
    struct nk_fs_config fs_config = {.part = &part, .pool = pool, .pool_size = pool_size};
    int err = nk_fs_mount(&fs, &fs_config);
    if (err)
        fail_msg("mount: %d %s", err, fs.diag.text);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&fs, "/lost+found", &st), 0);
    assert_int_equal(nk_fs_unmount(&fs), 0);
    /* One byte short of the size: refused, naming the need. */
    nk_nand_close(&dev);
    nand_config.workspace_size = size - 1;
    assert_int_equal(nk_nand_open(&dev, &nand_config), -NK_EINVAL);
    assert_non_null(strstr(dev.diag.text, "nk_nand_default_workspace_size"));
    test_free(ws);
    test_free(pool);
    nk_sim_close(sim);
}

static void test_three_calls_with_the_bad_block_table_built_then_attached(void **state)
{
    (void)state;
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "K9F1G08U0A", .seed = 3, .factory_bad_blocks = -1};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    size_t size = NK_NAND_WORKSPACE_SIZE(2048, 64) + nk_nand_bbt_workspace_size(info);
    void *ws = test_malloc(size);
    struct nk_nand_config nand_config = {
        .ctrl = nk_sim_ctrl(sim), .workspace = ws, .workspace_size = size, .bbt = true};
    for (int boot = 0; boot < 2; boot++) {
        struct nk_nand dev;
        struct nk_part part;
        struct nk_fs fs;
        int err = nk_nand_open(&dev, &nand_config);
        if (err)
            fail_msg("open: %d %s", err, dev.diag.text);
        assert_true(nk_nand_tracks_bad_blocks(&dev));
        /* First boot: no table on flash, the markers are scanned and both
         * copies written; second boot: the table is found. */
        assert_int_equal(dev.bbt->info.scanned, boot == 0);
        assert_true(dev.bbt->info.main_block >= 0 && dev.bbt->info.mirror_block >= 0);
        assert_true(dev.bbt->info.factory_bad > 0);
        assert_int_equal(nk_part_init(&part, &dev, "fs", 0, 0, 0), 0);
        assert_int_equal(part.block_count, info->blocks - NK_BBT_MAX_BLOCKS);
        struct nk_fs_config fs_config = {
            .part = &part, .pool = fs_pool, .pool_size = sizeof fs_pool};
        assert_int_equal(nk_fs_mount(&fs, &fs_config), 0);
        uint32_t bad_in_part = 0;
        for (uint32_t b = 0; b < part.block_count; b++)
            bad_in_part += nk_bbt_block_state(dev.bbt, b) == NK_BBT_FACTORY_BAD;
        struct nk_fs_statfs st;
        assert_int_equal(nk_fs_statfs(&fs, &st), 0);
        assert_int_equal(st.blocks_bad, bad_in_part);
        assert_int_equal(nk_fs_unmount(&fs), 0);
        nk_nand_close(&dev);
    }
    /* Too small by one byte: refused, naming the sizing function. */
    struct nk_nand dev;
    nand_config.workspace_size = size - 1;
    assert_int_equal(nk_nand_open(&dev, &nand_config), -NK_EINVAL);
    assert_non_null(strstr(dev.diag.text, "nk_nand_bbt_workspace_size"));
    test_free(ws);
    nk_sim_close(sim);
}

/* ----- the mount checks the device against the layout ----- */

struct rig {
    struct nk_sim *sim;
    struct nk_nand dev;
    struct nk_part part;
};

/* K9F1G08U0A (2048 + 64, markers at OOB byte 0) in memory, opened with
 * `ecc` and `layout` (NULL: the defaults), one partition over it. */
static void rig_open(struct rig *r, const struct nk_ecc_engine *ecc,
                     const struct nk_oob_layout *layout)
{
    struct nk_sim_config sc = {.preset = "K9F1G08U0A", .seed = 1};
    assert_int_equal(nk_sim_open(&r->sim, &sc, NULL), 0);
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(r->sim),
                                .ecc = ecc,
                                .layout = layout,
                                .workspace = workspace,
                                .workspace_size = sizeof workspace};
    int err = nk_nand_open(&r->dev, &nc);
    if (err)
        fail_msg("open: %d %s", err, r->dev.diag.text);
    assert_int_equal(nk_part_init(&r->part, &r->dev, "fs", 0, 0, 0), 0);
}

static void rig_close(struct rig *r)
{
    nk_nand_close(&r->dev);
    nk_sim_close(r->sim);
}

/* Mounts `layout` on `part` (read-write); the mount's message goes to `why`. */
static int mount_as(struct nk_part *part, enum nk_fs_layout layout, struct nk_diag *why)
{
    static struct nk_fs fs;
    static uint64_t pool[256 * 1024 / 8]; /* up to 16 KiB pages */
    struct nk_fs_config config = {.part = part, .pool = pool, .pool_size = sizeof pool};
    nk_fs_config_layout(&config, layout);
    int err = nk_fs_mount(&fs, &config);
    *why = fs.diag;
    if (!err)
        assert_int_equal(nk_fs_unmount(&fs), 0);
    return err;
}

/* The mount of `layout` on `part` is refused with exactly `message`. */
static void expect_refused(struct nk_part *part, enum nk_fs_layout layout, const char *message)
{
    struct nk_diag why;
    assert_int_equal(mount_as(part, layout, &why), -NK_EINVAL);
    assert_string_equal(why.text, message);
}

/* Formats `layout` on `part`, then mounts it. */
static void expect_carried(struct nk_part *part, enum nk_fs_layout layout)
{
    struct nk_fs_config config = {.part = part, .pool = fs_pool, .pool_size = sizeof fs_pool};
    nk_fs_config_layout(&config, layout);
    assert_int_equal(nk_fs_format(&config, layout), 0);
    struct nk_diag why;
    int err = mount_as(part, layout, &why);
    if (err)
        fail_msg("mount %s: %d %s", nk_fs_layout_name(layout), err, why.text);
}

static void test_mount_refuses_an_ecc_that_leaves_too_few_free_oob_bytes_naming_both(void **state)
{
    (void)state;
    /* BCH8 over 512-byte steps on a 64-byte OOB: 4 x 13 code bytes leave
     * 10 free bytes after the marker; the Linux layout's tags need 28. */
    size_t tables = nk_bch_workspace_size(13, 8, 0);
    void *bch_ws = test_malloc(tables);
    struct nk_bch bch;
    assert_int_equal(nk_bch_init(&bch, 512, 8, 0, bch_ws, tables), 0);
    struct nk_ecc_engine ecc;
    nk_ecc_bch_engine_init(&ecc, &bch);
    struct rig r;
    rig_open(&r, &ecc, NULL);
    assert_int_equal(nk_part_free_oob_bytes(&r.part), 10);
    const char *expected = "layout linux needs 28 free OOB bytes for its tags; device has 10 "
                           "(bch8-512 on 64-byte OOB)";
    expect_refused(&r.part, NK_FS_LAYOUT_LINUX, expected);
    /* The builder (and so nk_fs_format) asks the same question. */
    static uint8_t build_ws[2048 + 64];
    static struct nk_fs_builder b;
    struct nk_fs_build_config bc = {.part = &r.part, .layout = NK_FS_LAYOUT_LINUX};
    assert_int_equal(nk_fs_build_begin(&b, &bc, build_ws, sizeof build_ws), -NK_EINVAL);
    assert_string_equal(b.diag.text, expected);
    /* The in-band layout keeps its tags in the page: that device carries it. */
    expect_carried(&r.part, NK_FS_LAYOUT_INBAND);
    rig_close(&r);
    test_free(bch_ws);
}

static void test_mount_refuses_mkyaffs2_on_a_device_with_the_linux_oob_layout(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r, NULL, NULL); /* Hamming, free OOB from byte 2 */
    expect_refused(&r.part, NK_FS_LAYOUT_MKYAFFS2,
                   "layout mkyaffs2 keeps its tags in OOB bytes 0-27; device's free OOB bytes "
                   "start at byte 2 (hamming256 on 64-byte OOB)");
    expect_carried(&r.part, NK_FS_LAYOUT_LINUX);
    rig_close(&r);
}

static void test_mount_refuses_linux_tags_over_the_bad_block_marker(void **state)
{
    (void)state;
    /* Opened as the mkyaffs2 layout asks: no ECC, every OOB byte free. */
    struct nk_ecc_engine ecc;
    struct nk_oob_layout layout;
    assert_int_equal(nk_fs_layout_device(NK_FS_LAYOUT_MKYAFFS2, 2048, 64, &ecc, &layout), 0);
    struct rig r;
    rig_open(&r, &ecc, &layout);
    expect_refused(&r.part, NK_FS_LAYOUT_LINUX,
                   "layout linux keeps OOB byte 0 for the bad-block marker; device has it free "
                   "for tags (none on 64-byte OOB)");
    expect_carried(&r.part, NK_FS_LAYOUT_MKYAFFS2);
    rig_close(&r);
}

static void test_mount_refuses_mkyaffs2_on_a_device_that_checks_a_data_code(void **state)
{
    (void)state;
    /* Tags could sit at OOB 0..27 (free 0..39), but the device expects a
     * Hamming code at 40..63 that mkyaffs2 images never carry. */
    struct nk_ecc_engine ecc;
    assert_int_equal(nk_ecc_hamming_init(&ecc, 256, false), 0);
    struct nk_oob_layout layout = {
        .ecc = {{40, 24}}, .ecc_count = 1, .free = {{0, 40}}, .free_count = 1};
    struct rig r;
    rig_open(&r, &ecc, &layout);
    expect_refused(&r.part, NK_FS_LAYOUT_MKYAFFS2,
                   "layout mkyaffs2 stores no data ECC code; device checks one (hamming256 on "
                   "64-byte OOB): open it without ECC");
    rig_close(&r);
}

static void
test_the_default_device_of_every_large_page_preset_carries_the_linux_layout(void **state)
{
    (void)state;
    unsigned large = 0, small = 0;
    for (unsigned i = 0; nk_sim_preset_name(i); i++) {
        struct nk_sim *sim;
        struct nk_sim_config sc = {.preset = nk_sim_preset_name(i), .seed = 1};
        assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
        const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
        size_t size = nk_nand_default_workspace_size(info);
        void *ws = test_malloc(size);
        struct nk_nand dev;
        struct nk_part part;
        struct nk_nand_config nc = {
            .ctrl = nk_sim_ctrl(sim), .workspace = ws, .workspace_size = size};
        assert_int_equal(nk_nand_open(&dev, &nc), 0);
        assert_int_equal(nk_part_init(&part, &dev, "fs", 0, 16, 0), 0);
        struct nk_diag why;
        int err = mount_as(&part, NK_FS_LAYOUT_LINUX, &why);
        if (info->page_size > 512 && nk_nand_free_oob_bytes(&dev) < 28) {
            /* W25N01GV: Linux's layout leaves 24 free bytes (6 in each
             * 16-byte section), too few for tags with their ECC; Linux's
             * YAFFS2 refuses it too. */
            assert_int_equal(err, -NK_EINVAL);
        } else if (info->page_size > 512) {
            if (err)
                fail_msg("%s: %d %s", sc.preset, err, why.text);
            large++;
        } else {
            /* 512 + 16 with Hamming: 8 free bytes (and pages too small for
             * in-band tags: YAFFS2 wants large pages). */
            assert_int_equal(err, -NK_EINVAL);
            assert_string_equal(why.text, "layout linux needs 28 free OOB bytes for its tags; "
                                          "device has 8 (hamming256 on 16-byte OOB)");
            small++;
        }
        nk_nand_close(&dev);
        test_free(ws);
        nk_sim_close(sim);
    }
    assert_true(large >= 7);
    assert_int_equal(small, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_to_mounted_file_system_in_three_calls),
        cmocka_unit_test(test_three_calls_on_a_chip_that_needs_bch),
        cmocka_unit_test(test_three_calls_with_the_bad_block_table_built_then_attached),
        cmocka_unit_test(test_mount_refuses_an_ecc_that_leaves_too_few_free_oob_bytes_naming_both),
        cmocka_unit_test(test_mount_refuses_mkyaffs2_on_a_device_with_the_linux_oob_layout),
        cmocka_unit_test(test_mount_refuses_linux_tags_over_the_bad_block_marker),
        cmocka_unit_test(test_mount_refuses_mkyaffs2_on_a_device_that_checks_a_data_code),
        cmocka_unit_test(
            test_the_default_device_of_every_large_page_preset_carries_the_linux_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
