/* SPDX-License-Identifier: MIT */
/*
 * Per-file chunk maps: data chunk id -> page.
 *
 * A radix tree whose inner nodes hold 8 children and whose leaves cover 64
 * chunks each, in one of two forms:
 *
 * - a run leaf (32 bytes): up to NK_FS_RUNS runs of chunks on consecutive
 *   pages (or holes), each a first slot and the page of that slot. A file
 *   written sequentially fills its blocks page after page, so 64 of its
 *   chunks are two or three runs (a block boundary, a header in between);
 * - a packed leaf: 64 entries of fs->map_bits bits each (page + 1, 0 = no
 *   chunk), for chunks that no longer form few runs (random overwrites).
 *
 * A leaf is a run leaf whenever its chunks fit in NK_FS_RUNS runs; a packed
 * leaf goes back to runs when a write makes them fit again (a collection
 * copying a file's chunks in order). The form is the low bit of the pointer
 * to the leaf (allocations are at least 4-byte aligned). A file of one chunk
 * keeps its page inline in the object. RAM: 32 B per 64 chunks written in
 * order (128 KiB of 2 KiB chunks), map_bits x 8 B per 64 chunks otherwise,
 * plus 64 B [32 B] per 8 leaves (docs/fs-design.md section 1).
 */
#include <stdint.h>
#include <string.h>

#include "fs/fs_internal.h"

#define NK_FS_LEAF_SHIFT 6u
#define NK_FS_LEAF_ENTRIES (1u << NK_FS_LEAF_SHIFT)
#define NK_FS_NODE_SHIFT 3u
#define NK_FS_NODE_CHILDREN (1u << NK_FS_NODE_SHIFT)
#define NK_FS_RUNS 6u
#define NK_FS_RUN_TAG ((uintptr_t)1u)

/* A run leaf: run i covers slots start[i] .. start[i + 1] - 1 (the last one
 * up to `end`); slot s of it holds page[i] - 1 + (s - start[i]), or no chunk
 * when page[i] is 0. Slots from `end` on hold no chunk. */
struct nk_fs_runs {
    uint32_t page[NK_FS_RUNS];
    uint8_t start[NK_FS_RUNS];
    uint8_t count;
    uint8_t end;
};

size_t nk_fs_map_leaf_bytes(const struct nk_fs *fs)
{
    return (NK_FS_LEAF_ENTRIES * fs->map_bits + 31u) / 32u * 4u;
}

size_t nk_fs_map_run_leaf_bytes(void)
{
    return sizeof(struct nk_fs_runs);
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

static bool nk_fs_is_runs(const void *leaf)
{
    return ((uintptr_t)leaf & NK_FS_RUN_TAG) != 0;
}

static struct nk_fs_runs *nk_fs_runs_of(const void *leaf)
{
    return (struct nk_fs_runs *)((uintptr_t)leaf & ~NK_FS_RUN_TAG);
}

static uint32_t nk_fs_packed_get(const struct nk_fs *fs, const uint32_t *leaf, unsigned slot)
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

static void nk_fs_packed_put(const struct nk_fs *fs, uint32_t *leaf, unsigned slot, uint32_t value)
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

static uint32_t nk_fs_runs_get(const struct nk_fs_runs *runs, unsigned slot)
{
    if (slot >= runs->end)
        return 0;
    unsigned i = runs->count;
    while (i > 0 && runs->start[i - 1] > slot)
        i--;
    if (i == 0 || runs->page[i - 1] == 0)
        return 0;
    return runs->page[i - 1] + (slot - runs->start[i - 1]);
}

/* Entry `slot` of a leaf of either form: page + 1, 0 for no chunk. */
static uint32_t nk_fs_leaf_get(const struct nk_fs *fs, const void *leaf, unsigned slot)
{
    if (nk_fs_is_runs(leaf))
        return nk_fs_runs_get(nk_fs_runs_of(leaf), slot);
    return nk_fs_packed_get(fs, leaf, slot);
}

/* Encodes the entries of `leaf`, with `slot` set to `value`, as runs into
 * `out`. Returns false when they need more than NK_FS_RUNS runs. */
static bool nk_fs_runs_encode(const struct nk_fs *fs, const void *leaf, unsigned slot,
                              uint32_t value, struct nk_fs_runs *out)
{
    uint32_t page[NK_FS_RUNS + 1];
    uint8_t start[NK_FS_RUNS + 1];
    uint32_t prev = 0;
    unsigned count = 0, end = 0;
    for (unsigned s = 0; s < NK_FS_LEAF_ENTRIES; s++) {
        uint32_t v = s == slot ? value : nk_fs_leaf_get(fs, leaf, s);
        bool continues = s > 0 && (v == 0 ? prev == 0 : prev != 0 && v == prev + 1);
        if (!continues) {
            if (count == NK_FS_RUNS + 1)
                return false;
            start[count] = (uint8_t)s;
            page[count] = v;
            count++;
        }
        if (v)
            end = s + 1;
        prev = v;
    }
    /* A run wholly past the last chunk (a trailing hole) is dropped. */
    while (count > 0 && start[count - 1] >= end)
        count--;
    if (count > NK_FS_RUNS)
        return false;
    memset(out, 0, sizeof *out);
    memcpy(out->page, page, count * sizeof page[0]);
    memcpy(out->start, start, count);
    out->count = (uint8_t)count;
    out->end = (uint8_t)end;
    return true;
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

static void nk_fs_leaf_free(struct nk_fs *fs, void *leaf)
{
    if (nk_fs_is_runs(leaf))
        nk_fs_mem_free(fs, nk_fs_runs_of(leaf), sizeof(struct nk_fs_runs));
    else
        nk_fs_mem_free(fs, leaf, nk_fs_map_leaf_bytes(fs));
}

/* A run leaf holding `runs`, NULL on -NK_ENOMEM. */
static void *nk_fs_runs_new(struct nk_fs *fs, const struct nk_fs_runs *runs)
{
    struct nk_fs_runs *leaf = nk_fs_mem_alloc(fs, sizeof *leaf);
    if (!leaf)
        return NULL;
    *leaf = *runs;
    return (void *)((uintptr_t)leaf | NK_FS_RUN_TAG);
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

/* Sets entry `slot` of the leaf at `*link` to `value` (page + 1 or 0),
 * changing its form when needed. 0 or -NK_ENOMEM (the leaf is unchanged). */
static int nk_fs_leaf_set(struct nk_fs *fs, void **link, unsigned slot, uint32_t value)
{
    void *leaf = *link;
    if (nk_fs_leaf_get(fs, leaf, slot) == value)
        return 0;
    if (nk_fs_is_runs(leaf)) {
        /* The common case of sequential writes: the last run grows by one. */
        struct nk_fs_runs *r = nk_fs_runs_of(leaf);
        if (value && slot == r->end && r->count > 0 && r->page[r->count - 1] != 0 &&
            r->page[r->count - 1] + (slot - r->start[r->count - 1]) == value) {
            r->end++;
            return 0;
        }
    }
    struct nk_fs_runs runs;
    bool fits = nk_fs_runs_encode(fs, leaf, slot, value, &runs);
    if (nk_fs_is_runs(leaf)) {
        if (fits) {
            *nk_fs_runs_of(leaf) = runs;
            return 0;
        }
        /* Too many runs: the packed form. */
        uint32_t *packed = nk_fs_mem_alloc(fs, nk_fs_map_leaf_bytes(fs));
        if (!packed)
            return -NK_ENOMEM;
        memset(packed, 0, nk_fs_map_leaf_bytes(fs));
        for (unsigned s = 0; s < NK_FS_LEAF_ENTRIES; s++)
            nk_fs_packed_put(fs, packed, s, s == slot ? value : nk_fs_leaf_get(fs, leaf, s));
        nk_fs_leaf_free(fs, leaf);
        *link = packed;
        return 0;
    }
    if (fits) {
        /* Few runs again: the small form, when memory allows. */
        void *small = nk_fs_runs_new(fs, &runs);
        if (small) {
            nk_fs_leaf_free(fs, leaf);
            *link = small;
            return 0;
        }
    }
    nk_fs_packed_put(fs, leaf, slot, value);
    return 0;
}

int nk_fs_map_set(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t chunk_id, uint32_t page)
{
    if (chunk_id == 0 || chunk_id > NK_FS_CHUNK_ID_MAX)
        return -NK_EINVAL;
    if (page != NK_FS_NONE && page >= fs->pages)
        return -NK_EINVAL;
    if (page == NK_FS_NONE && nk_fs_map_get(fs, obj, chunk_id) == NK_FS_NONE)
        return 0;
    if (obj->map_height == NK_FS_MAP_INLINE && chunk_id == 1) {
        if (page == NK_FS_NONE)
            obj->map_height = NK_FS_MAP_EMPTY;
        else
            obj->u.inline_page = page;
        return 0;
    }
    if (obj->map_height == NK_FS_MAP_EMPTY && chunk_id == 1) {
        obj->map_height = NK_FS_MAP_INLINE;
        obj->u.inline_page = page;
        return 0;
    }
    if (obj->map_height == NK_FS_MAP_EMPTY || obj->map_height == NK_FS_MAP_INLINE) {
        struct nk_fs_runs runs;
        memset(&runs, 0, sizeof runs);
        if (obj->map_height == NK_FS_MAP_INLINE) {
            runs.page[0] = obj->u.inline_page + 1;
            runs.count = 1;
            runs.end = 1;
        }
        void *leaf = nk_fs_runs_new(fs, &runs);
        if (!leaf)
            return -NK_ENOMEM;
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
            if (level > 1) {
                node[child] = nk_fs_map_new_node(fs);
            } else {
                struct nk_fs_runs empty;
                memset(&empty, 0, sizeof empty);
                node[child] = nk_fs_runs_new(fs, &empty);
            }
            if (!node[child])
                return -NK_ENOMEM; /* the empty path above stays: harmless */
        }
        link = &node[child];
    }
    return nk_fs_leaf_set(fs, link, index & (NK_FS_LEAF_ENTRIES - 1),
                          page == NK_FS_NONE ? 0 : page + 1);
}

static void nk_fs_map_free_node(struct nk_fs *fs, void *node, unsigned level)
{
    if (!node)
        return;
    if (level == 0) {
        nk_fs_leaf_free(fs, node);
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

/* Drops every entry at chunk index `keep` and above below `*link` (a tree
 * of `level` covering indices from `base`), freeing what becomes empty.
 * Never allocates: a run leaf only loses runs, a packed leaf is cleared. */
static void nk_fs_map_cut_node(struct nk_fs *fs, void **link, unsigned level, uint64_t base,
                               uint64_t keep)
{
    void *node = *link;
    if (!node)
        return;
    if (base >= keep) {
        nk_fs_map_free_node(fs, node, level);
        *link = NULL;
        return;
    }
    if (level == 0) {
        uint64_t from = keep - base;
        if (from >= NK_FS_LEAF_ENTRIES)
            return;
        if (nk_fs_is_runs(node)) {
            struct nk_fs_runs *runs = nk_fs_runs_of(node);
            if (runs->end > from)
                runs->end = (uint8_t)from;
            /* Trailing runs of holes go; `end` stays one past the last chunk. */
            while (runs->count > 0 && (runs->start[runs->count - 1] >= runs->end ||
                                       runs->page[runs->count - 1] == 0)) {
                if (runs->start[runs->count - 1] < runs->end)
                    runs->end = runs->start[runs->count - 1];
                runs->count--;
            }
        } else {
            for (uint32_t s = (uint32_t)from; s < NK_FS_LEAF_ENTRIES; s++)
                nk_fs_packed_put(fs, node, s, 0);
        }
        return;
    }
    void **children = node;
    uint64_t span = nk_fs_map_capacity(level - 1);
    for (unsigned i = 0; i < NK_FS_NODE_CHILDREN; i++)
        nk_fs_map_cut_node(fs, &children[i], level - 1, base + i * span, keep);
}

void nk_fs_map_cut(struct nk_fs *fs, struct nk_fs_obj *obj, uint32_t keep)
{
    if (obj->map_height == NK_FS_MAP_EMPTY)
        return;
    if (keep == 0) {
        nk_fs_map_free(fs, obj);
        return;
    }
    if (obj->map_height == NK_FS_MAP_INLINE)
        return; /* only chunk 1, kept */
    nk_fs_map_cut_node(fs, &obj->u.map_root, obj->map_height, 0, keep);
}

static int nk_fs_map_walk_node(const struct nk_fs *fs, const void *node, unsigned level,
                               uint32_t base, nk_fs_map_fn fn, void *ctx)
{
    if (!node)
        return 0;
    if (level == 0) {
        if (nk_fs_is_runs(node)) {
            const struct nk_fs_runs *runs = nk_fs_runs_of(node);
            for (unsigned i = 0; i < runs->count; i++) {
                if (runs->page[i] == 0)
                    continue;
                unsigned last = i + 1 < runs->count ? runs->start[i + 1] : runs->end;
                for (unsigned s = runs->start[i]; s < last; s++) {
                    int stop = fn(ctx, base + s + 1, runs->page[i] - 1 + (s - runs->start[i]));
                    if (stop)
                        return stop;
                }
            }
            return 0;
        }
        for (unsigned slot = 0; slot < NK_FS_LEAF_ENTRIES; slot++) {
            uint32_t value = nk_fs_packed_get(fs, node, slot);
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
