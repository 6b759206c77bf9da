/* SPDX-License-Identifier: MIT */
/*
 * Per-file chunk maps: data chunk id -> page.
 *
 * A radix tree whose leaves hold 16 entries packed at fs->map_bits bits each
 * (page + 1, 0 = no chunk) and whose inner nodes hold 8 children: a leaf
 * covers 16 chunks, a tree of height h covers 16 x 8^h. A file of one chunk
 * keeps its page inline in the object. Entries are as narrow as the
 * partition allows, so a MiB of file data costs about 1 KiB of RAM on a
 * 2 KiB-page device (docs/fs-design.md).
 */
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_LEAF_SHIFT 4u
#define NK_FS_LEAF_ENTRIES (1u << NK_FS_LEAF_SHIFT)
#define NK_FS_NODE_SHIFT 3u
#define NK_FS_NODE_CHILDREN (1u << NK_FS_NODE_SHIFT)

size_t nk_fs_map_leaf_bytes(const struct nk_fs *fs)
{
    return (NK_FS_LEAF_ENTRIES * fs->map_bits + 31u) / 32u * 4u;
}

size_t nk_fs_map_node_bytes(void)
{
    return NK_FS_NODE_CHILDREN * sizeof(void *);
}

/* Chunk indices (chunk id - 1) a tree of `height` covers. */
static uint64_t nk_fs_map_capacity(unsigned height)
{
    return (uint64_t)NK_FS_LEAF_ENTRIES << (NK_FS_NODE_SHIFT * height);
}

static uint32_t nk_fs_leaf_get(const struct nk_fs *fs, const uint32_t *leaf, unsigned slot)
{
    unsigned bits = fs->map_bits;
    uint32_t pos = slot * bits;
    uint32_t word = pos / 32u, shift = pos % 32u;
    uint64_t value = leaf[word] >> shift;
    if (shift + bits > 32u)
        value |= (uint64_t)leaf[word + 1] << (32u - shift);
    uint64_t mask = bits >= 32u ? 0xffffffffu : ((1u << bits) - 1u);
    return (uint32_t)(value & mask);
}

static void nk_fs_leaf_put(const struct nk_fs *fs, uint32_t *leaf, unsigned slot, uint32_t value)
{
    unsigned bits = fs->map_bits;
    uint32_t pos = slot * bits;
    uint32_t word = pos / 32u, shift = pos % 32u;
    uint64_t mask = (bits >= 32u ? 0xffffffffull : ((1ull << bits) - 1u)) << shift;
    uint64_t pair = leaf[word];
    if (shift + bits > 32u)
        pair |= (uint64_t)leaf[word + 1] << 32;
    pair = (pair & ~mask) | ((uint64_t)value << shift & mask);
    leaf[word] = (uint32_t)pair;
    if (shift + bits > 32u)
        leaf[word + 1] = (uint32_t)(pair >> 32);
}

uint32_t nk_fs_map_get(const struct nk_fs *fs, const struct nk_fs_obj *obj, uint32_t chunk_id)
{
    if (chunk_id == 0 || obj->map_height == NK_FS_MAP_EMPTY)
        return NK_FS_NONE;
    if (obj->map_height == NK_FS_MAP_INLINE)
        return chunk_id == 1 ? obj->u.inline_page : NK_FS_NONE;
    uint32_t index = chunk_id - 1;
    if (index >= nk_fs_map_capacity(obj->map_height))
        return NK_FS_NONE;
    void *node = obj->u.map_root;
    for (unsigned level = obj->map_height; level > 0 && node; level--) {
        unsigned child = (index >> (NK_FS_LEAF_SHIFT + NK_FS_NODE_SHIFT * (level - 1))) &
                         (NK_FS_NODE_CHILDREN - 1);
        node = ((void **)node)[child];
    }
    if (!node)
        return NK_FS_NONE;
    uint32_t value = nk_fs_leaf_get(fs, node, index & (NK_FS_LEAF_ENTRIES - 1));
    return value ? value - 1 : NK_FS_NONE;
}

static void *nk_fs_map_new_leaf(struct nk_fs *fs)
{
    size_t bytes = nk_fs_map_leaf_bytes(fs);
    void *leaf = nk_fs_mem_alloc(fs, bytes);
    if (leaf)
        memset(leaf, 0, bytes);
    return leaf;
}

static void *nk_fs_map_new_node(struct nk_fs *fs)
{
    void **node = nk_fs_mem_alloc(fs, nk_fs_map_node_bytes());
    if (node) {
        for (unsigned i = 0; i < NK_FS_NODE_CHILDREN; i++)
            node[i] = NULL;
    }
    return node;
}

/* Clears chunk `chunk_id` (no allocation: the path exists or there is
 * nothing to clear). */
static void nk_fs_map_clear(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t chunk_id)
{
    if (obj->map_height == NK_FS_MAP_EMPTY)
        return;
    if (obj->map_height == NK_FS_MAP_INLINE) {
        if (chunk_id == 1)
            obj->map_height = NK_FS_MAP_EMPTY;
        return;
    }
    uint32_t index = chunk_id - 1;
    if (index >= nk_fs_map_capacity(obj->map_height))
        return;
    void *node = obj->u.map_root;
    for (unsigned level = obj->map_height; level > 0 && node; level--) {
        unsigned child = (index >> (NK_FS_LEAF_SHIFT + NK_FS_NODE_SHIFT * (level - 1))) &
                         (NK_FS_NODE_CHILDREN - 1);
        node = ((void **)node)[child];
    }
    if (node)
        nk_fs_leaf_put(fs, node, index & (NK_FS_LEAF_ENTRIES - 1), 0);
}

int nk_fs_map_set(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t chunk_id, uint32_t page)
{
    if (chunk_id == 0 || chunk_id > NK_FS_CHUNK_ID_MAX)
        return -NK_EINVAL;
    if (page == NK_FS_NONE) {
        nk_fs_map_clear(fs, obj, chunk_id);
        return 0;
    }
    if (page >= fs->pages)
        return -NK_EINVAL;
    if (obj->map_height == NK_FS_MAP_EMPTY && chunk_id == 1) {
        obj->map_height = NK_FS_MAP_INLINE;
        obj->u.inline_page = page;
        return 0;
    }
    if (obj->map_height == NK_FS_MAP_INLINE && chunk_id == 1) {
        obj->u.inline_page = page;
        return 0;
    }
    if (obj->map_height == NK_FS_MAP_EMPTY || obj->map_height == NK_FS_MAP_INLINE) {
        uint32_t *leaf = nk_fs_map_new_leaf(fs);
        if (!leaf)
            return -NK_ENOMEM;
        if (obj->map_height == NK_FS_MAP_INLINE)
            nk_fs_leaf_put(fs, leaf, 0, obj->u.inline_page + 1);
        obj->u.map_root = leaf;
        obj->map_height = 0;
    }
    uint32_t index = chunk_id - 1;
    while (index >= nk_fs_map_capacity(obj->map_height)) {
        void **node = nk_fs_map_new_node(fs);
        if (!node)
            return -NK_ENOMEM;
        node[0] = obj->u.map_root;
        obj->u.map_root = node;
        obj->map_height++;
    }
    void **link = &obj->u.map_root;
    for (unsigned level = obj->map_height; level > 0; level--) {
        void **node = *link;
        unsigned child = (index >> (NK_FS_LEAF_SHIFT + NK_FS_NODE_SHIFT * (level - 1))) &
                         (NK_FS_NODE_CHILDREN - 1);
        if (!node[child]) {
            node[child] = level > 1 ? nk_fs_map_new_node(fs) : nk_fs_map_new_leaf(fs);
            if (!node[child])
                return -NK_ENOMEM; /* the empty path above stays: harmless */
        }
        link = &node[child];
    }
    nk_fs_leaf_put(fs, *link, index & (NK_FS_LEAF_ENTRIES - 1), page + 1);
    return 0;
}

static void nk_fs_map_free_node(struct nk_fs *fs, void *node, unsigned level)
{
    if (!node)
        return;
    if (level == 0) {
        nk_fs_mem_free(fs, node, nk_fs_map_leaf_bytes(fs));
        return;
    }
    void **children = node;
    for (unsigned i = 0; i < NK_FS_NODE_CHILDREN; i++)
        nk_fs_map_free_node(fs, children[i], level - 1);
    nk_fs_mem_free(fs, node, nk_fs_map_node_bytes());
}

void nk_fs_map_free(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    if (obj->map_height <= NK_FS_MAP_MAX_HEIGHT)
        nk_fs_map_free_node(fs, obj->u.map_root, obj->map_height);
    obj->map_height = NK_FS_MAP_EMPTY;
    obj->u.map_root = NULL;
}

static int nk_fs_map_walk_node(const struct nk_fs *fs, const void *node, unsigned level,
                               uint32_t base, nk_fs_map_fn fn, void *ctx)
{
    if (!node)
        return 0;
    if (level == 0) {
        for (unsigned slot = 0; slot < NK_FS_LEAF_ENTRIES; slot++) {
            uint32_t value = nk_fs_leaf_get(fs, node, slot);
            if (value) {
                int stop = fn(ctx, base + slot + 1, value - 1);
                if (stop)
                    return stop;
            }
        }
        return 0;
    }
    void *const *children = node;
    uint32_t span = (uint32_t)nk_fs_map_capacity(level - 1);
    for (unsigned i = 0; i < NK_FS_NODE_CHILDREN; i++) {
        int stop = nk_fs_map_walk_node(fs, children[i], level - 1, base + i * span, fn, ctx);
        if (stop)
            return stop;
    }
    return 0;
}

int nk_fs_map_walk(const struct nk_fs *fs, const struct nk_fs_obj *obj, nk_fs_map_fn fn, void *ctx)
{
    if (obj->map_height == NK_FS_MAP_EMPTY)
        return 0;
    if (obj->map_height == NK_FS_MAP_INLINE)
        return fn(ctx, 1, obj->u.inline_page);
    return nk_fs_map_walk_node(fs, obj->u.map_root, obj->map_height, 0, fn, ctx);
}
