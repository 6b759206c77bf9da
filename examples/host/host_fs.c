/* SPDX-License-Identifier: MIT */
/*
 * The simulator as a port, up to a mounted file system: a YAFFS2 image file
 * (Linux layout, 2048+64-byte pages, 64 pages per block) behind a simulated
 * chip; then three calls - the device (identified, ECC from the chip's
 * requirement), one partition over the whole chip, a read-only mount - and
 * the root directory is listed and one file read to stdout.
 *
 * usage: host_fs IMAGE [PATH]    (PATH: default the first regular file listed)
 *
 * A board replaces nk_sim_ctrl() by its own struct nk_ctrl (docs/porting.md);
 * everything after nk_nand_open() stays the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

#define PAGE_SIZE 2048u
#define OOB_SIZE 64u
#define PAGES_PER_BLOCK 64u

static void *heap_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void heap_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static int fail(const char *what, int err, const char *why)
{
    fprintf(stderr, "host_fs: %s: %s%s%s\n", what, nk_strerror(err), why && *why ? ": " : "",
            why ? why : "");
    return 1;
}

/* Lists directory `path` and its subdirectories, one level deep, at most
 * 8 entries per directory. */
static int list_tree(struct nk_fs *fs, const char *path, int depth, char *first_file, size_t size)
{
    struct nk_fs_dir dir;
    int err = nk_fs_dir_open(fs, &dir, path);
    if (err)
        return err;
    struct nk_fs_dirent entry;
    unsigned shown = 0;
    while ((err = nk_fs_dir_read(&dir, &entry)) != 0) {
        if (err < 0)
            continue; /* a header failed ECC: that entry is skipped */
        if (++shown > 8) {
            printf("%*s...\n", 2 * depth, "");
            break;
        }
        char child[1024];
        snprintf(child, sizeof child, "%s%s%s", path, depth ? "/" : "", entry.name);
        printf("%*s%s%s\n", 2 * depth, "", entry.name, entry.type == NK_FS_TYPE_DIR ? "/" : "");
        if (!first_file[0] && entry.type == NK_FS_TYPE_FILE)
            snprintf(first_file, size, "%s", child);
        if (entry.type == NK_FS_TYPE_DIR && depth < 1)
            list_tree(fs, child, depth + 1, first_file, size);
    }
    return nk_fs_dir_close(&dir);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: host_fs IMAGE [PATH]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "host_fs: cannot open image '%s'\n", argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fclose(f);
    uint32_t block_bytes = (PAGE_SIZE + OOB_SIZE) * PAGES_PER_BLOCK;
    uint32_t blocks = (uint32_t)((unsigned long)bytes / block_bytes);

    /* 1. The port: a simulated chip over the image, read-only. */
    struct nk_diag why[1] = {{""}};
    struct nk_sim_params params;
    int err = nk_sim_params_geometry(&params, PAGE_SIZE, OOB_SIZE, PAGES_PER_BLOCK, blocks, why);
    if (err)
        return fail("geometry", err, why->text);
    struct nk_sim_config sim_config;
    memset(&sim_config, 0, sizeof sim_config);
    sim_config.params = &params;
    sim_config.image_path = argv[1];
    sim_config.read_only = true;
    sim_config.no_sidecar = true;
    struct nk_sim *sim;
    err = nk_sim_open(&sim, &sim_config, why);
    if (err)
        return fail("simulator", err, why->text);

    /* 2-4. Three calls on zeroed configs: the device identifies the chip
     * and lets its ECC requirement choose the engine (Hamming over 256-byte
     * steps here: the Linux layout's), a partition over every block, and
     * the mount (the Linux layout by default; read-only here because the
     * device is). */
    static uint8_t workspace[NK_NAND_WORKSPACE_SIZE(PAGE_SIZE, OOB_SIZE)];
    struct nk_nand nand;
    struct nk_nand_config nand_config;
    memset(&nand_config, 0, sizeof nand_config); /* zero: the documented defaults */
    nand_config.ctrl = nk_sim_ctrl(sim);
    nand_config.workspace = workspace;
    nand_config.workspace_size = sizeof workspace;
    nand_config.read_only = true;
    err = nk_nand_open(&nand, &nand_config);
    if (err)
        return fail("device", err, nand.diag.text);
    struct nk_part part;
    err = nk_part_init(&part, &nand, "rootfs", 0, 0, 0);
    if (err)
        return fail("partition", err, nand.diag.text);
    struct nk_fs fs;
    struct nk_fs_config fs_config;
    memset(&fs_config, 0, sizeof fs_config);
    fs_config.part = &part;
    fs_config.allocator.alloc = heap_alloc;
    fs_config.allocator.free = heap_free;
    err = nk_fs_mount(&fs, &fs_config);
    if (err)
        return fail("mount", err, fs.diag.text);

    /* 5. List the tree; remember the first regular file. */
    char first_file[1024] = "";
    err = list_tree(&fs, "/", 0, first_file, sizeof first_file);
    if (err)
        return fail("listing", err, fs.diag.text);

    /* 6. Read one file to stdout. */
    const char *path = argc == 3 ? argv[2] : first_file;
    if (!path[0]) {
        fprintf(stderr, "host_fs: no regular file in /\n");
        return 1;
    }
    struct nk_fs_file file;
    err = nk_fs_file_open(&fs, &file, path, NK_FS_O_RDONLY);
    if (err)
        return fail(path, err, fs.diag.text);
    printf("--- %s\n", path);
    char buf[512];
    int32_t n;
    while ((n = nk_fs_file_read(&file, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, stdout);
    nk_fs_file_close(&file);

    nk_fs_unmount(&fs);
    nk_nand_close(&nand);
    nk_sim_close(sim);
    return n < 0 ? fail(path, n, NULL) : 0;
}
