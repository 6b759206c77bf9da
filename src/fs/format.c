/* SPDX-License-Identifier: MIT */
/*
 * nk_fs_format(): an empty file system, written by the image builder (the
 * root alone) and followed by the checkpoint of the erased partition; with
 * NANDKIT_FS_BUILDER=OFF, by erasing every block and a mount's first write.
 */
#include <string.h>

#include "fs/fs_internal.h"

#ifdef NK_NO_FS_BUILDER
/* nk_fs_format() without the image builder (NANDKIT_FS_BUILDER=OFF): every
 * good block erased here (one that fails is marked bad, where the layout has
 * markers), the checkpoint of the erased partition, then a mount writes the
 * root's header (a chmod of "/" to the builder's 0755) and its unmount the
 * checkpoint: the same tree as the builder's format. */
static int nk_fs_format_erase(const struct nk_fs_config *config, enum nk_fs_layout layout,
                              struct nk_fs_allocator allocator)
{
    struct nk_fs_config mc = *config;
    nk_fs_config_layout(&mc, layout);
    mc.allocator = allocator;
    mc.read_only = false;
    struct nk_part *part = config->part;
    if (nk_fs_io_read_only(part))
        return -NK_EROFS;
    uint32_t good = 0;
    for (uint32_t block = 0; block < part->block_count; block++) {
        int bad = mc.no_bad_block_markers ? 0 : nk_fs_io_is_bad(part, block);
        if (bad < 0)
            return bad;
        if (bad)
            continue;
        int err = nk_fs_io_erase(part, block);
        if (err == -NK_EIO && !mc.no_bad_block_markers)
            err = nk_fs_io_mark_bad(part, block);
        else if (!err)
            good++;
        if (err)
            return err;
    }
    if (!good)
        return -NK_ENOSPC;
    struct nk_fs *fs = allocator.alloc(allocator.ctx, sizeof *fs);
    if (!fs)
        return -NK_ENOMEM;
    int err = config->no_checkpoint ? 0 : nk_fs_format_checkpoint(fs, &mc);
    if (!err)
        err = nk_fs_mount(fs, &mc);
    if (!err) {
        err = nk_fs_chmod(fs, "/", 0755u);
        int unmounted = nk_fs_unmount(fs);
        if (!err)
            err = unmounted;
    }
    allocator.free(allocator.ctx, fs, sizeof *fs);
    return err;
}
#endif

int nk_fs_format(const struct nk_fs_config *config, enum nk_fs_layout layout)
{
    if (!config || !config->part)
        return -NK_EINVAL;
    struct nk_fs_build_config bc;
    memset(&bc, 0, sizeof bc);
    bc.part = config->part;
    bc.layout = layout;
    /* Memory as a mount takes it: the allocator, or else the pool (nothing
     * is mounted on it while formatting). */
    struct nk_fs_allocator allocator = config->allocator;
    struct nk_fs_pool pool;
    if (!allocator.alloc && config->pool && config->pool_size) {
        nk_fs_pool_init(&pool, config->pool, config->pool_size);
        allocator = nk_fs_pool_allocator(&pool);
    }
    if (!allocator.alloc || !allocator.free)
        return -NK_EINVAL;
#ifdef NK_NO_FS_BUILDER
    return nk_fs_format_erase(config, layout, allocator);
#else
    size_t need = nk_fs_build_workspace_size(config->part);
    void *ws = allocator.alloc(allocator.ctx, need);
    if (!ws)
        return -NK_ENOMEM;
    struct nk_fs_builder *b = allocator.alloc(allocator.ctx, sizeof *b);
    if (!b) {
        allocator.free(allocator.ctx, ws, need);
        return -NK_ENOMEM;
    }
    int err = nk_fs_build_begin(b, &bc, ws, need);
    struct nk_fs_build_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.mode = NK_FS_S_IFDIR | 0755u;
    if (!err)
        err = nk_fs_build_builtin(b, NK_FS_OBJ_ROOT, &attr);
    if (!err)
        err = nk_fs_build_finish(b, NULL);
    allocator.free(allocator.ctx, b, sizeof *b);
    allocator.free(allocator.ctx, ws, need);
    if (err || config->no_checkpoint)
        return err;
    /* A checkpoint saying the other blocks are cleanly erased; the mount
     * behind it draws from the same memory (without it: no checkpoint). */
    struct nk_fs_format_mount {
        struct nk_fs fs;
        struct nk_fs_config config; /* allocated too: off the deepest stack chain */
    } *m = allocator.alloc(allocator.ctx, sizeof *m);
    if (!m)
        return 0;
    m->config = *config;
    nk_fs_config_layout(&m->config, layout);
    m->config.allocator = allocator;
    m->config.read_only = false;
    err = nk_fs_format_checkpoint(&m->fs, &m->config);
    allocator.free(allocator.ctx, m, sizeof *m);
    return err == -NK_ENOMEM ? 0 : err;
#endif
}
