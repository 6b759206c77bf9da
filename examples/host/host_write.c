/* SPDX-License-Identifier: MIT */
/*
 * Writing through the file system, as littlefs's first example does: bring
 * the stack up on a simulated K9F1G08U0A (128 MiB, in memory), mount -
 * formatting first when the mount finds no file system - then mkdir, write
 * a file, fsync it, rename it, unmount, mount again, read it back and
 * print statfs. The pool is a static buffer checked against
 * nk_fs_pool_bytes(); every failure is printed with nk_fs_last_error().
 * Exits 0 when the file read back is the one written, 1 otherwise.
 *
 * usage: host_write
 *
 * A board replaces the simulator by its own struct nk_ctrl (docs/porting.md);
 * everything from nk_nand_open() on stays the same.
 */
#include <stdio.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

static uint8_t workspace[NK_NAND_WORKSPACE_SIZE(2048, 64)];
static uint64_t pool[64 * 1024 / 8]; /* 8-byte aligned */

static const char text[] = "boot count and settings, written by host_write\n";

static int fail(const char *what, int err, const char *why)
{
    fprintf(stderr, "host_write: %s: %s%s%s\n", what, nk_strerror(err), why[0] ? ": " : "", why);
    return 1;
}

int main(void)
{
    /* The port: a simulated chip. */
    struct nk_diag why[1] = {{""}};
    struct nk_sim *sim = NULL;
    struct nk_sim_config sim_config = {.preset = "K9F1G08U0A", .seed = 1};
    struct nk_nand nand = {0};
    struct nk_part part = {0};
    struct nk_fs fs = {0};
    int err = nk_sim_open(&sim, &sim_config, why);
    if (err)
        return fail("simulator", err, nk_fs_last_error(NULL, NULL, why));

    /* Bring-up: the device (identified; the chip's ECC requirement picks
     * the engine), one partition over it. */
    struct nk_nand_config nand_config = {
        .ctrl = nk_sim_ctrl(sim), .workspace = workspace, .workspace_size = sizeof workspace};
    err = nk_nand_open(&nand, &nand_config);
    if (!err)
        err = nk_part_init(&part, &nand, "data", 0, 0, 0);
    if (err)
        return fail("device", err, nk_fs_last_error(NULL, &nand, why));

    /* The memory: what this partition needs for a few objects and 64 KiB
     * of data, read-write. */
    size_t need = nk_fs_pool_bytes(nk_part_page_size(&part), nk_nand_oob_size(&nand),
                                   nk_part_pages_per_block(&part), part.block_count, 16, 64 * 1024,
                                   true);
    if (need > sizeof pool) {
        fprintf(stderr, "host_write: the pool holds %zu B, the partition needs %zu B\n",
                sizeof pool, need);
        return 1;
    }
    struct nk_fs_config fs_config = {.part = &part, .pool = pool, .pool_size = sizeof pool};

    /* Mount; format when there is no file system to mount. */
    err = nk_fs_mount(&fs, &fs_config);
    if (err) {
        printf("no file system to mount (%s): formatting\n", nk_fs_last_error(&fs, &nand, why));
        err = nk_fs_format(&fs_config, NK_FS_LAYOUT_LINUX);
        if (err) /* the format keeps no reason of its own: the device's, if any */
            return fail("format", err, nk_fs_last_error(NULL, &nand, why));
        err = nk_fs_mount(&fs, &fs_config);
    }
    if (err)
        return fail("mount", err, nk_fs_last_error(&fs, &nand, why));

    /* mkdir, write, fsync, rename. */
    struct nk_fs_file file;
    err = nk_fs_mkdir(&fs, "/etc", 0755);
    if (err && err != -NK_EEXIST)
        return fail("mkdir /etc", err, nk_fs_last_error(&fs, &nand, why));
    err = nk_fs_file_open(&fs, &file, "/etc/config.new",
                          NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC);
    if (err)
        return fail("open /etc/config.new", err, nk_fs_last_error(&fs, &nand, why));
    int32_t written = nk_fs_file_write(&file, text, sizeof text - 1);
    if (written != (int32_t)(sizeof text - 1))
        return fail("write", written < 0 ? written : -NK_EIO, nk_fs_last_error(&fs, &nand, why));
    err = nk_fs_file_fsync(&file);
    if (!err)
        err = nk_fs_file_close(&file);
    if (!err)
        err = nk_fs_rename(&fs, "/etc/config.new", "/etc/config");
    if (err)
        return fail("fsync, close, rename", err, nk_fs_last_error(&fs, &nand, why));

    /* Unmount (a checkpoint makes the next mount quick), mount again. */
    err = nk_fs_unmount(&fs);
    if (!err)
        err = nk_fs_mount(&fs, &fs_config);
    if (err)
        return fail("remount", err, nk_fs_last_error(&fs, &nand, why));

    /* Read it back. */
    char back[128] = "";
    err = nk_fs_file_open(&fs, &file, "/etc/config", NK_FS_O_RDONLY);
    if (err)
        return fail("open /etc/config", err, nk_fs_last_error(&fs, &nand, why));
    int32_t n = nk_fs_file_read(&file, back, sizeof back - 1);
    nk_fs_file_close(&file);
    if (n != (int32_t)(sizeof text - 1) || memcmp(back, text, sizeof text - 1) != 0) {
        fprintf(stderr, "host_write: /etc/config reads back %d bytes, not the %zu written\n", n,
                sizeof text - 1);
        return 1;
    }
    struct nk_fs_stat st;
    if (nk_fs_stat(&fs, "/etc/config.new", &st) != -NK_ENOENT) {
        fprintf(stderr, "host_write: /etc/config.new is still there after the rename\n");
        return 1;
    }
    printf("/etc/config: %d bytes read back: %s", n, back);

    struct nk_fs_statfs sf;
    nk_fs_statfs(&fs, &sf);
    size_t ram_now, ram_peak;
    nk_fs_ram_usage(&fs, &ram_now, &ram_peak);
    printf("statfs: %llu of %llu bytes free for writing, %u objects in RAM (root and lost+found "
           "included), %u bad blocks\n",
           (unsigned long long)sf.bytes_avail, (unsigned long long)sf.bytes_total, sf.objects,
           sf.blocks_bad);
    printf("memory: pool %zu B (nk_fs_pool_bytes: %zu B), %zu B in use, peak %zu B\n",
           sizeof pool, need, ram_now, ram_peak);

    err = nk_fs_unmount(&fs);
    nk_nand_close(&nand);
    nk_sim_close(sim);
    return err ? fail("unmount", err, "") : 0;
}
