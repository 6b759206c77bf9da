/* SPDX-License-Identifier: MIT */
/*
 * Sizing a mount's memory and reading its reasons: nk_fs_pool_bytes()
 * against the real pool (a pool of exactly that size mounts and writes, a
 * clearly smaller one fails naming the bytes needed), nk_fs_last_error()
 * over a bring-up failing at each step, and what the two object counts
 * (the mount's stats, statfs) count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fs_testdev.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

#define PAGE 2048u
#define OOB 64u
#define PAGES_PER_BLOCK 64u
#define BLOCKS 256u
#define SMALL_FILES 150u
#define BIG_FILE_BYTES (3u << 20)

static void open_device(struct nk_fs_testdev *d)
{
    struct nk_diag why[1] = {{""}};
    int err = nk_fs_testdev_open_seeded(d, PAGE, OOB, PAGES_PER_BLOCK, BLOCKS, NK_FS_LAYOUT_LINUX,
                                        1, why);
    if (err)
        fail_msg("device: %s", why->text);
}

static struct nk_fs_config pool_config(struct nk_fs_testdev *d, void *pool, size_t size)
{
    struct nk_fs_config c = nk_fs_testdev_config(d);
    c.allocator.alloc = NULL;
    c.allocator.free = NULL;
    c.read_only = false;
    c.pool = pool;
    c.pool_size = size;
    return c;
}

static void write_file(struct nk_fs *fs, const char *path, uint32_t bytes, uint8_t seed)
{
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
    uint8_t buf[4096];
    for (uint32_t done = 0; done < bytes;) {
        uint32_t n = bytes - done < sizeof buf ? bytes - done : (uint32_t)sizeof buf;
        for (uint32_t i = 0; i < n; i++)
            buf[i] = (uint8_t)(seed + done + i);
        assert_int_equal(nk_fs_file_write(&f, buf, n), (int32_t)n);
        done += n;
    }
    assert_int_equal(nk_fs_file_close(&f), 0);
}

/* Formats d and writes /d (a directory), SMALL_FILES files of 1000 bytes
 * in it and /big; returns the objects and file bytes written. */
static void fill(struct nk_fs_testdev *d, uint32_t *objects, uint64_t *data)
{
    struct nk_fs_config c = nk_fs_testdev_config(d);
    c.read_only = false;
    assert_int_equal(nk_fs_format(&c, NK_FS_LAYOUT_LINUX), 0);
    struct nk_fs fs;
    assert_int_equal(nk_fs_mount(&fs, &c), 0);
    assert_int_equal(nk_fs_mkdir(&fs, "/d", 0755), 0);
    char path[64];
    for (unsigned i = 0; i < SMALL_FILES; i++) {
        snprintf(path, sizeof path, "/d/f%u", i);
        write_file(&fs, path, 1000, (uint8_t)i);
    }
    write_file(&fs, "/big", BIG_FILE_BYTES, 7);
    assert_int_equal(nk_fs_unmount(&fs), 0);
    *objects = 1 + SMALL_FILES + 1;
    *data = (uint64_t)SMALL_FILES * 1000 + BIG_FILE_BYTES;
}

/* Where the pool's carving reached: what the mount really needed. */
static size_t pool_used(const struct nk_fs *fs, const void *pool)
{
    return (size_t)(fs->pool.next - (const uint8_t *)pool);
}

static void mount_in_exact_pool(bool no_checkpoint)
{
    struct nk_fs_testdev d;
    open_device(&d);
    uint32_t objects;
    uint64_t data;
    fill(&d, &objects, &data);
    size_t need = nk_fs_pool_bytes(PAGE, OOB, PAGES_PER_BLOCK, BLOCKS, objects, data, true);
    assert_true(need > 0);
    void *pool = malloc(need);

    struct nk_fs fs;
    struct nk_fs_config c = pool_config(&d, pool, need);
    c.no_checkpoint = no_checkpoint;
    int err = nk_fs_mount(&fs, &c);
    if (err)
        fail_msg("a pool of nk_fs_pool_bytes() = %zu B: %s", need, fs.diag.text);
    size_t used = pool_used(&fs, pool);
    print_message("pool: %zu B computed, %zu B carved by the mount (%s)\n", need, used,
                  no_checkpoint ? "scan" : "checkpoint");
    /* The figure is an upper bound, not a wild one. */
    assert_true(used <= need);
    assert_true(need <= used + used / 2);
    /* The writer works in it: rewrite a small file and append to the big
     * one, sync, remount from the same pool. */
    write_file(&fs, "/d/f0", 1000, 99);
    struct nk_fs_file f;
    assert_int_equal(nk_fs_file_open(&fs, &f, "/big", NK_FS_O_WRONLY | NK_FS_O_APPEND), 0);
    static const uint8_t more[3000];
    assert_int_equal(nk_fs_file_write(&f, more, sizeof more), (int32_t)sizeof more);
    assert_int_equal(nk_fs_file_close(&f), 0);
    /* Scattered by overwrites, the maps take their larger form. */
    assert_int_equal(nk_fs_file_open(&fs, &f, "/big", NK_FS_O_WRONLY), 0);
    uint32_t x = 12345;
    for (unsigned i = 0; i < 600; i++) {
        x = x * 1103515245u + 12345u;
        uint64_t at = (uint64_t)(x >> 8) % (BIG_FILE_BYTES / PAGE) * PAGE;
        assert_int_equal(nk_fs_file_pwrite(&f, more, 100, at), 100);
    }
    assert_int_equal(nk_fs_file_close(&f), 0);
    print_message("after overwrites: %zu B carved\n", pool_used(&fs, pool));
    assert_int_equal(nk_fs_unmount(&fs), 0);
    data += sizeof more;
    need = nk_fs_pool_bytes(PAGE, OOB, PAGES_PER_BLOCK, BLOCKS, objects, data, true);
    pool = realloc(pool, need);
    c = pool_config(&d, pool, need);
    c.no_checkpoint = no_checkpoint;
    err = nk_fs_mount(&fs, &c);
    if (err)
        fail_msg("remount in %zu B: %s", need, fs.diag.text);
    struct nk_fs_stat st;
    assert_int_equal(nk_fs_stat(&fs, "/big", &st), 0);
    assert_int_equal(st.size, BIG_FILE_BYTES + sizeof more);
    assert_int_equal(nk_fs_unmount(&fs), 0);

    /* Read-only needs less: no write buffers. */
    size_t ro = nk_fs_pool_bytes(PAGE, OOB, PAGES_PER_BLOCK, BLOCKS, objects, data, false);
    assert_true(ro < need);
    c = pool_config(&d, pool, ro);
    c.read_only = true;
    c.no_checkpoint = no_checkpoint;
    assert_int_equal(nk_fs_mount(&fs, &c), 0);
    assert_int_equal(nk_fs_unmount(&fs), 0);

    /* Clearly smaller: refused, the reason naming the pool and the need. */
    c = pool_config(&d, pool, need / 2);
    c.no_checkpoint = no_checkpoint;
    assert_int_equal(nk_fs_mount(&fs, &c), -NK_ENOMEM);
    char expect[64];
    snprintf(expect, sizeof expect, "the pool has %zu B, at least ", need / 2);
    if (!strstr(fs.diag.text, expect) || !strstr(fs.diag.text, "nk_fs_pool_bytes()"))
        fail_msg("reason: %s", fs.diag.text);
    free(pool);
    nk_fs_testdev_close(&d);
}

static void test_a_pool_of_the_computed_size_mounts_from_the_scan(void **state)
{
    (void)state;
    mount_in_exact_pool(true);
}

static void test_a_pool_of_the_computed_size_mounts_from_the_checkpoint(void **state)
{
    (void)state;
    mount_in_exact_pool(false);
}

/* An 8 KiB pool cannot hold the tables of 256 blocks: the reason names the
 * bytes a pool needs before any object, which nk_fs_pool_bytes() gives
 * for an empty file system. */
static void test_a_pool_too_small_for_the_tables_names_the_bytes_needed(void **state)
{
    (void)state;
    struct nk_fs_testdev d;
    open_device(&d);
    struct nk_fs_config c = nk_fs_testdev_config(&d);
    c.read_only = false;
    assert_int_equal(nk_fs_format(&c, NK_FS_LAYOUT_LINUX), 0);
    static uint64_t pool[8192 / 8];
    c = pool_config(&d, pool, sizeof pool);
    struct nk_fs fs;
    assert_int_equal(nk_fs_mount(&fs, &c), -NK_ENOMEM);
    char expect[128];
    snprintf(expect, sizeof expect,
             "out of memory for the file-system tables: the pool has 8192 B, at least %zu B "
             "needed (nk_fs_pool_bytes())",
             nk_fs_pool_bytes(PAGE, OOB, PAGES_PER_BLOCK, BLOCKS, 0, 0, true));
    assert_string_equal(fs.diag.text, expect);
    assert_string_equal(nk_fs_last_error(&fs, &d.nand, NULL), expect);
    nk_fs_testdev_close(&d);
}

static void test_pool_bytes_refuses_an_impossible_geometry(void **state)
{
    (void)state;
    assert_int_equal(nk_fs_pool_bytes(0, 64, 64, 256, 1, 0, true), 0);
    assert_int_equal(nk_fs_pool_bytes(2048, 64, 0, 256, 1, 0, true), 0);
    assert_int_equal(nk_fs_pool_bytes(2048, 64, 64, 0, 1, 0, true), 0);
    /* More objects and more data never need less. */
    size_t base = nk_fs_pool_bytes(2048, 64, 64, 1024, 100, 1u << 20, true);
    assert_true(nk_fs_pool_bytes(2048, 64, 64, 1024, 101, 1u << 20, true) > base);
    assert_true(nk_fs_pool_bytes(2048, 64, 64, 1024, 100, 2u << 20, true) > base);
}

/* ----- one place for the reason --------------------------------------------------------- */

static uint8_t workspace[NK_NAND_WORKSPACE_SIZE(2048, 64)];

static void test_last_error_follows_the_step_that_failed(void **state)
{
    (void)state;
    /* The simulator (before its object exists): `why`. */
    struct nk_diag why[1] = {{""}};
    struct nk_sim *sim = NULL;
    struct nk_sim_config sc = {.preset = "NO-SUCH-CHIP", .seed = 1};
    struct nk_nand dev = {0};
    struct nk_fs fs = {0};
    assert_true(nk_sim_open(&sim, &sc, why) < 0);
    assert_true(why->text[0] != '\0');
    assert_string_equal(nk_fs_last_error(&fs, &dev, why), why->text);

    sc.preset = "K9F1G08U0A";
    assert_int_equal(nk_sim_open(&sim, &sc, why), 0);
    /* The device: no workspace. */
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(sim)};
    assert_int_equal(nk_nand_open(&dev, &nc), -NK_EINVAL);
    assert_true(dev.diag.text[0] != '\0');
    assert_string_equal(nk_fs_last_error(&fs, &dev, why), dev.diag.text);

    /* A successful open leaves nothing to report. */
    nc.workspace = workspace;
    nc.workspace_size = sizeof workspace;
    assert_int_equal(nk_nand_open(&dev, &nc), 0);
    assert_string_equal(nk_fs_last_error(&fs, &dev, why), "");

    /* The partition: a range beyond the device, reported by the device. */
    struct nk_part part;
    assert_int_equal(nk_part_init(&part, &dev, "fs", 5000, 10, 0), -NK_EINVAL);
    assert_non_null(strstr(nk_fs_last_error(&fs, &dev, why), "5000"));
    assert_int_equal(nk_part_init(&part, &dev, "fs", 0, 0, 0), 0);

    /* The mount: an erased chip with no memory given. */
    struct nk_fs_config fc = {.part = &part};
    assert_int_equal(nk_fs_mount(&fs, &fc), -NK_EINVAL);
    assert_string_equal(nk_fs_last_error(&fs, &dev, why), fs.diag.text);
    assert_non_null(strstr(fs.diag.text, "pool"));
    /* With the file system alone: the device under its partition. */
    assert_string_equal(nk_fs_last_error(NULL, NULL, NULL), "");
    nk_nand_close(&dev);
    nk_sim_close(sim);
}

/* ----- the two object counts ------------------------------------------------------------ */

/* fs.stats.objects is what the mount found: every object but the root and
 * lost+found, fixed at mount. statfs.objects is the objects in RAM now:
 * the root and lost+found included, and it follows creations. */
static void test_mount_stats_and_statfs_count_objects_as_documented(void **state)
{
    (void)state;
    struct nk_fs_testdev d;
    open_device(&d);
    struct nk_fs_config c = nk_fs_testdev_config(&d);
    c.read_only = false;
    assert_int_equal(nk_fs_format(&c, NK_FS_LAYOUT_LINUX), 0);
    struct nk_fs fs;
    assert_int_equal(nk_fs_mount(&fs, &c), 0);
    assert_int_equal(nk_fs_mkdir(&fs, "/etc", 0755), 0);
    write_file(&fs, "/etc/motd", 10, 1);
    assert_int_equal(nk_fs_unmount(&fs), 0);

    c.no_checkpoint = true; /* the scan counts */
    assert_int_equal(nk_fs_mount(&fs, &c), 0);
    struct nk_fs_statfs sf;
    assert_int_equal(nk_fs_statfs(&fs, &sf), 0);
    assert_int_equal(fs.stats.objects, 2);
    assert_int_equal(fs.stats.dirs, 1);
    assert_int_equal(fs.stats.files, 1);
    assert_int_equal(sf.objects, 2 + 2);
    write_file(&fs, "/etc/issue", 10, 2);
    assert_int_equal(nk_fs_statfs(&fs, &sf), 0);
    assert_int_equal(sf.objects, 3 + 2);
    assert_int_equal(fs.stats.objects, 2);
    assert_int_equal(nk_fs_unmount(&fs), 0);
    nk_fs_testdev_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_pool_of_the_computed_size_mounts_from_the_scan),
        cmocka_unit_test(test_a_pool_of_the_computed_size_mounts_from_the_checkpoint),
        cmocka_unit_test(test_a_pool_too_small_for_the_tables_names_the_bytes_needed),
        cmocka_unit_test(test_pool_bytes_refuses_an_impossible_geometry),
        cmocka_unit_test(test_last_error_follows_the_step_that_failed),
        cmocka_unit_test(test_mount_stats_and_statfs_count_objects_as_documented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
