/* SPDX-License-Identifier: MIT */
/*
 * Memory: the accounting wrapper every file-system allocation goes through,
 * and the static pool allocator for systems without a heap.
 *
 * The pool carves its buffer from the bottom. Blocks of up to 512 bytes go
 * back on an exact-size free list (the file system uses a handful of fixed
 * sizes: objects, chunk-map leaves and nodes), larger ones on a list searched
 * for the same size. Nothing is split or merged: a freed block serves the
 * next request of its size, which is how the file system reuses memory (a
 * remount asks for the same sizes again).
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_POOL_ALIGN 8u
#define NK_FS_POOL_SMALL_MAX (NK_FS_POOL_CLASSES * NK_FS_POOL_ALIGN)

struct nk_fs_pool_free {
    struct nk_fs_pool_free *next;
    size_t size;
};

static size_t nk_fs_pool_round(size_t size)
{
    if (size < sizeof(struct nk_fs_pool_free))
        size = sizeof(struct nk_fs_pool_free);
    return (size + NK_FS_POOL_ALIGN - 1) & ~(size_t)(NK_FS_POOL_ALIGN - 1);
}

void nk_fs_pool_init(struct nk_fs_pool *pool, void *buffer, size_t size)
{
    if (!pool)
        return;
    memset(pool, 0, sizeof *pool);
    uintptr_t start = (uintptr_t)buffer;
    uintptr_t aligned = (start + NK_FS_POOL_ALIGN - 1) & ~(uintptr_t)(NK_FS_POOL_ALIGN - 1);
    if (!buffer || aligned - start >= size)
        return;
    pool->next = (uint8_t *)buffer + (aligned - start);
    pool->end = (uint8_t *)buffer + size;
}

static void *nk_fs_pool_alloc(void *ctx, size_t size)
{
    struct nk_fs_pool *pool = ctx;
    size = nk_fs_pool_round(size);
    void *block = NULL;
    if (size <= NK_FS_POOL_SMALL_MAX) {
        unsigned cls = (unsigned)(size / NK_FS_POOL_ALIGN) - 1u;
        if (pool->small[cls]) {
            struct nk_fs_pool_free *node = pool->small[cls];
            pool->small[cls] = node->next;
            block = node;
        }
    } else {
        struct nk_fs_pool_free **link = (struct nk_fs_pool_free **)&pool->large;
        for (; *link; link = &(*link)->next) {
            if ((*link)->size == size) {
                struct nk_fs_pool_free *node = *link;
                *link = node->next;
                block = node;
                break;
            }
        }
    }
    if (!block) {
        if (!pool->next || (size_t)(pool->end - pool->next) < size)
            return NULL;
        block = pool->next;
        pool->next += size;
    }
    pool->in_use += size;
    if (pool->in_use > pool->peak)
        pool->peak = pool->in_use;
    return block;
}

static void nk_fs_pool_free(void *ctx, void *ptr, size_t size)
{
    struct nk_fs_pool *pool = ctx;
    if (!ptr)
        return;
    size = nk_fs_pool_round(size);
    struct nk_fs_pool_free *node = ptr;
    if (size <= NK_FS_POOL_SMALL_MAX) {
        unsigned cls = (unsigned)(size / NK_FS_POOL_ALIGN) - 1u;
        node->next = pool->small[cls];
        pool->small[cls] = node;
    } else {
        node->size = size;
        node->next = pool->large;
        pool->large = node;
    }
    pool->in_use -= size <= pool->in_use ? size : pool->in_use;
}

struct nk_fs_allocator nk_fs_pool_allocator(struct nk_fs_pool *pool)
{
    struct nk_fs_allocator allocator = {nk_fs_pool_alloc, nk_fs_pool_free, pool};
    return allocator;
}

void *nk_fs_mem_alloc(struct nk_fs *fs, size_t size)
{
    void *ptr = fs->config.allocator.alloc(fs->config.allocator.ctx, size);
    if (!ptr)
        return NULL;
    fs->ram_bytes += size;
    if (fs->ram_bytes > fs->ram_peak)
        fs->ram_peak = fs->ram_bytes;
    return ptr;
}

void nk_fs_mem_free(struct nk_fs *fs, void *ptr, size_t size)
{
    if (!ptr)
        return;
    fs->config.allocator.free(fs->config.allocator.ctx, ptr, size);
    fs->ram_bytes -= size;
}
