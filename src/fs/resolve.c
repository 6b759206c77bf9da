/* SPDX-License-Identifier: MIT */
/*
 * After the scan: drop what is dead, find a home for what lost its parent,
 * link hard links to their files, build the directory lists, and mark the
 * live chunks.
 */
#include <string.h>

#include "fs/fs_internal.h"

static void nk_fs_drop_dead(struct nk_fs *fs)
{
    for (uint32_t b = 0; b <= fs->bucket_mask; b++) {
        struct nk_fs_obj *obj = fs->buckets[b];
        while (obj) {
            struct nk_fs_obj *next = obj->hash_next;
            bool builtin = obj == fs->root || obj == fs->lost_found;
            if (!builtin && (obj->flags & NK_FS_OBJ_DEAD))
                nk_fs_obj_free(fs, obj);
            else if (!builtin && !(obj->flags & NK_FS_OBJ_VALID) &&
                     obj->map_height == NK_FS_MAP_EMPTY)
                nk_fs_obj_free(fs, obj);
            obj = next;
        }
    }
}

/* Data without any header: a file YAFFS2 would show in lost+found. */
static void nk_fs_adopt_headerless(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    obj->type = NK_FS_TYPE_FILE;
    obj->parent_id = NK_FS_OBJ_LOST_FOUND;
    obj->flags |= NK_FS_OBJ_VALID | NK_FS_OBJ_ORPHAN;
    nk_fs_obj_hash_header(obj, NULL);
    nk_fs_report(fs, NK_FS_PROBLEM_DANGLING_CHUNK, nk_fs_map_get(fs, obj, 1), obj->id, 0, 0);
}

static void nk_fs_link_hardlinks(struct nk_fs *fs)
{
    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (obj->type != NK_FS_TYPE_HARDLINK)
            continue;
        struct nk_fs_obj *target = nk_fs_obj_find(fs, obj->u.equiv_id);
        bool gone = target && (target->wflags & NK_FS_W_SHADOWED) &&
                    !(target->flags & NK_FS_OBJ_VALID);
        if (target && target->type == NK_FS_TYPE_FILE && !gone) {
            target->flags |= NK_FS_OBJ_LINKED;
        } else {
            obj->flags |= NK_FS_OBJ_DANGLING;
            nk_fs_report(fs, NK_FS_PROBLEM_DANGLING_HARDLINK, obj->header_page, obj->id, 0,
                         obj->u.equiv_id);
        }
    }
}

/* Objects renamed over: a file that hard links lead to is displaced (it
 * lives on through them, in no directory); everything else is dead. */
static void nk_fs_settle_shadowed(struct nk_fs *fs)
{
    for (uint32_t b = 0; b <= fs->bucket_mask; b++) {
        struct nk_fs_obj *obj = fs->buckets[b];
        while (obj) {
            struct nk_fs_obj *next = obj->hash_next;
            if (obj->wflags & NK_FS_W_SHADOWED) {
                obj->wflags &= (uint8_t)~NK_FS_W_SHADOWED;
                if ((obj->flags & NK_FS_OBJ_VALID) && obj->type == NK_FS_TYPE_FILE &&
                    (obj->flags & NK_FS_OBJ_LINKED))
                    obj->wflags |= NK_FS_W_DISPLACED;
                else
                    nk_fs_obj_free(fs, obj);
            }
            obj = next;
        }
    }
}

/* The directory `obj` hangs from, or NULL when there is none to hang from. */
static struct nk_fs_obj *nk_fs_parent_of(const struct nk_fs *fs, const struct nk_fs_obj *obj)
{
    struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
    if (!parent || !nk_fs_obj_is_dir(parent))
        return NULL;
    return parent;
}

static void nk_fs_make_orphan(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    nk_fs_report(fs, NK_FS_PROBLEM_ORPHAN, obj->header_page, obj->id, 0, obj->parent_id);
    obj->parent_id = NK_FS_OBJ_LOST_FOUND;
    obj->flags |= NK_FS_OBJ_ORPHAN;
}

static void nk_fs_mark_rooted(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    while (obj && !(obj->flags & NK_FS_OBJ_ROOTED)) {
        obj->flags = (uint8_t)((obj->flags & ~NK_FS_OBJ_WALKING) | NK_FS_OBJ_ROOTED);
        obj = nk_fs_obj_find(fs, obj->parent_id);
    }
}

/* Makes sure the parent chain of `obj` reaches the root. A chain that ends
 * at a missing or non-directory parent, or runs in a circle, is cut at the
 * object where it breaks, which moves into lost+found: only the minimum
 * moves, and its children come along under it. O(chain) with the marks, so
 * O(objects) over all calls. */
static void nk_fs_root_chain(struct nk_fs *fs, struct nk_fs_obj *obj)
{
    struct nk_fs_obj *cur = obj, *cycle = NULL;
    while (!(cur->flags & NK_FS_OBJ_ROOTED)) {
        if (cur->flags & NK_FS_OBJ_WALKING) {
            /* A cycle closes here: cut it at `cur`; the rest of the circle
             * then hangs from it. */
            cycle = nk_fs_obj_find(fs, cur->parent_id);
            nk_fs_make_orphan(fs, cur);
            break;
        }
        cur->flags |= NK_FS_OBJ_WALKING;
        struct nk_fs_obj *parent = nk_fs_parent_of(fs, cur);
        if (!parent) {
            nk_fs_make_orphan(fs, cur);
            break;
        }
        cur = parent;
    }
    /* Every object walked now leads to the root. */
    nk_fs_mark_rooted(fs, obj);
    nk_fs_mark_rooted(fs, cycle);
}

static int nk_fs_mark_chunk(void *ctx, uint32_t chunk_id, uint32_t page)
{
    struct nk_fs *fs = ctx;
    (void)chunk_id;
    fs->chunk_bits[page / 32] |= 1u << (page % 32);
    return 0;
}

static void nk_fs_count(struct nk_fs *fs, const struct nk_fs_obj *obj)
{
    fs->stats.objects++;
    switch (obj->type) {
    case NK_FS_TYPE_FILE:
        fs->stats.files++;
        break;
    case NK_FS_TYPE_DIR:
        fs->stats.dirs++;
        break;
    case NK_FS_TYPE_SYMLINK:
        fs->stats.symlinks++;
        break;
    case NK_FS_TYPE_HARDLINK:
        fs->stats.hardlinks++;
        break;
    default:
        fs->stats.specials++;
        break;
    }
    if (obj->flags & NK_FS_OBJ_ORPHAN)
        fs->stats.orphans++;
}

int nk_fs_resolve(struct nk_fs *fs)
{
    nk_fs_drop_dead(fs);

    uint32_t bucket = 0;
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        obj->shrink_limit = 0; /* scan-only */
        if (obj == fs->root || obj == fs->lost_found)
            continue;
        if (!(obj->flags & NK_FS_OBJ_VALID) && !(obj->wflags & NK_FS_W_SHADOWED))
            nk_fs_adopt_headerless(fs, obj);
        if (obj->type == NK_FS_TYPE_UNKNOWN)
            obj->type = NK_FS_TYPE_FILE;
    }
    fs->root->type = fs->lost_found->type = NK_FS_TYPE_DIR;
    fs->root->parent_id = NK_FS_OBJ_ROOT;
    fs->lost_found->parent_id = NK_FS_OBJ_ROOT;
    fs->root->u.children = NULL;
    fs->lost_found->u.children = NULL;
    fs->root->flags |= NK_FS_OBJ_ROOTED | NK_FS_OBJ_HASHED;
    fs->lost_found->flags |= NK_FS_OBJ_ROOTED;

    nk_fs_link_hardlinks(fs);
    nk_fs_settle_shadowed(fs);

    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (obj->wflags & NK_FS_W_DISPLACED)
            obj->flags |= NK_FS_OBJ_ROOTED; /* in no directory */
        else
            nk_fs_root_chain(fs, obj);
    }

    /* Directory lists, live chunks, counts. */
    for (struct nk_fs_obj *obj = nk_fs_obj_next(fs, NULL, &bucket); obj;
         obj = nk_fs_obj_next(fs, obj, &bucket)) {
        if (obj != fs->root && !(obj->wflags & NK_FS_W_DISPLACED)) {
            struct nk_fs_obj *parent = nk_fs_obj_find(fs, obj->parent_id);
            obj->sibling = parent->u.children;
            parent->u.children = obj;
        }
        if (obj->header_page != NK_FS_NONE)
            nk_fs_mark_chunk(fs, 0, obj->header_page);
        if (obj->type == NK_FS_TYPE_FILE)
            nk_fs_map_walk(fs, obj, nk_fs_mark_chunk, fs);
        if (obj != fs->root && obj != fs->lost_found)
            nk_fs_count(fs, obj);
    }
    for (uint32_t b = 0; b < fs->blocks; b++) {
        uint32_t live = 0;
        for (uint32_t p = b * fs->pages_per_block; p < (b + 1) * fs->pages_per_block; p++)
            live += (fs->chunk_bits[p / 32] >> (p % 32)) & 1u;
        fs->block_info[b].live = (uint16_t)live;
        fs->stats.chunks_live += live;
    }
    return 0;
}
