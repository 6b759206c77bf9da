/* SPDX-License-Identifier: MIT */
/*
 * Mount and unmount, configuration, statfs.
 */
#include <string.h>

#include "fs/fs_internal.h"

/* Bits to store page + 1 for every page of the partition. */
static uint8_t nk_fs_bits_for(uint32_t pages)
{
    uint8_t bits = 1;
    while (bits < 32 && (pages >> bits) != 0)
        bits++;
    return bits;
}

static int nk_fs_setup_geometry(struct nk_fs *fs)
{
    const struct nk_fs_config *config = &fs->config;
    struct nk_part *part = config->part;
    fs->part = part;
    fs->page_size = nk_part_page_size(part);
    fs->pages_per_block = nk_part_pages_per_block(part);
    fs->blocks = part->block_count;
    fs->oob_free = nk_part_free_oob_bytes(part);
    if (fs->pages_per_block == 0 || fs->pages_per_block > 0xffffu || fs->blocks == 0 ||
        (uint64_t)fs->blocks * fs->pages_per_block > 0xfffffffeu)
        return nk_diag_set(&fs->diag, -NK_EINVAL, "unusable geometry: %u blocks of %u pages",
                           (unsigned)fs->blocks, (unsigned)fs->pages_per_block);
    fs->pages = fs->blocks * fs->pages_per_block;

    fs->data_check = 0;
    fs->check_bytes = 0;
    fs->check_every_read = false;
    if (config->tags_place == NK_FS_TAGS_INBAND) {
        fs->chunk_bytes = fs->page_size - NK_FS_TAGS_BYTES;
        /* The tags are data, so a torn page's ECC is all that shows it; a
         * 1-bit Hamming code may "correct" three flipped bits into a wrong
         * fourth, tags included. YAFFS2 leaves the OOB unused here: the
         * check word, over the whole page, goes to its first free bytes. */
        if (fs->oob_free >= 4u)
            fs->check_bytes = fs->page_size;
        fs->check_every_read = nk_part_ecc_placement(part) == NK_ECC_PLACEMENT_NONE;
    } else if (config->tags_place == NK_FS_TAGS_OOB) {
        fs->chunk_bytes = fs->page_size;
        int err = nk_fs_check_device(config, part, &fs->diag);
        if (err)
            return err;
        unsigned need = NK_FS_TAGS_BYTES + (config->no_tags_ecc ? 0u : NK_FS_TAGS_ECC_BYTES);
        /* A torn page can carry good tags: without a data ECC nothing else
         * shows it, and a 1-bit Hamming code may take 3 or more flipped
         * bits in one step for one and "correct" them. The writer adds a
         * check word after the tags when the OOB has room. */
        if ((unsigned)config->tags_offset + need + 4u <= fs->oob_free) {
            fs->data_check = (uint16_t)(config->tags_offset + need);
            fs->check_bytes = fs->chunk_bytes;
        }
        fs->check_every_read = nk_part_ecc_placement(part) == NK_ECC_PLACEMENT_NONE;
    } else {
        return nk_diag_set(&fs->diag, -NK_EINVAL, "unknown tags placement %d",
                           (int)config->tags_place);
    }
    if (fs->page_size < NK_FS_HEADER_BYTES + NK_FS_TAGS_BYTES)
        return nk_diag_set(&fs->diag, -NK_EINVAL,
                           "%u-byte pages are too small for YAFFS2 object headers",
                           (unsigned)fs->page_size);
    fs->map_bits = nk_fs_bits_for(fs->pages);

    /* Block summaries as YAFFS2 sizes them: the tags of all but the last n
     * chunks, in n chunks that each start with a 16-byte header. */
    fs->summary_chunks = (uint8_t)nk_fs_summary_chunks(fs->pages_per_block, fs->chunk_bytes);
    return 0;
}

static void nk_fs_release(struct nk_fs *fs)
{
    nk_fs_write_release(fs);
    fs->dirs = NULL;
    nk_fs_obj_free_all(fs);
    nk_fs_mem_free(fs, fs->buckets, ((size_t)fs->bucket_mask + 1) * sizeof *fs->buckets);
    fs->buckets = NULL;
    nk_fs_mem_free(fs, fs->chunk_bits, ((size_t)fs->pages + 31) / 32 * sizeof(uint32_t));
    fs->chunk_bits = NULL;
    nk_fs_mem_free(fs, fs->block_info, (size_t)fs->blocks * sizeof *fs->block_info);
    fs->block_info = NULL;
    nk_fs_mem_free(fs, fs->oob_buf, nk_fs_oob_buf_bytes(fs));
    fs->oob_buf = NULL;
    nk_fs_mem_free(fs, fs->page_buf, fs->page_size);
    fs->page_buf = NULL;
    fs->root = fs->lost_found = NULL;
    fs->mounted = false;
}

/* About one bucket per block, within 32..4096: a few objects per chain on a
 * typical image, at one pointer per block. */
static uint32_t nk_fs_default_buckets(uint32_t blocks)
{
    uint32_t count = 32;
    while (count < blocks && count < 4096)
        count <<= 1;
    return count;
}

static uint32_t nk_fs_bucket_count(const struct nk_fs *fs)
{
    uint32_t wanted = fs->config.object_buckets;
    if (wanted && (wanted & (wanted - 1)) == 0 && wanted <= (1u << 20))
        return wanted;
    return nk_fs_default_buckets(fs->blocks);
}

static int nk_fs_init_tables(struct nk_fs *fs)
{
    memset(fs->block_info, 0, (size_t)fs->blocks * sizeof *fs->block_info);
    memset(fs->chunk_bits, 0, ((size_t)fs->pages + 31) / 32 * sizeof(uint32_t));
    fs->root = nk_fs_obj_get(fs, NK_FS_OBJ_ROOT);
    fs->lost_found = nk_fs_obj_get(fs, NK_FS_OBJ_LOST_FOUND);
    if (!fs->root || !fs->lost_found)
        return nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory for the root directory");
    fs->root->type = fs->lost_found->type = NK_FS_TYPE_DIR;
    fs->root->parent_id = NK_FS_OBJ_ROOT;
    fs->lost_found->parent_id = NK_FS_OBJ_ROOT;
    return 0;
}

int nk_fs_tables_reset(struct nk_fs *fs)
{
    nk_fs_obj_free_all(fs);
    fs->root = fs->lost_found = NULL;
    memset(&fs->stats, 0, sizeof fs->stats);
    memset(fs->problems, 0, sizeof fs->problems);
    fs->free_chunks = 0;
    fs->next_obj = 0;
    fs->cached_page = NK_FS_NONE;
    return nk_fs_init_tables(fs);
}

static int nk_fs_alloc_tables(struct nk_fs *fs)
{
    fs->page_buf = nk_fs_mem_alloc(fs, fs->page_size);
    fs->oob_buf = nk_fs_mem_alloc(fs, nk_fs_oob_buf_bytes(fs));
    fs->block_info = nk_fs_mem_alloc(fs, (size_t)fs->blocks * sizeof *fs->block_info);
    fs->chunk_bits = nk_fs_mem_alloc(fs, ((size_t)fs->pages + 31) / 32 * sizeof(uint32_t));
    uint32_t buckets = nk_fs_bucket_count(fs);
    fs->buckets = nk_fs_mem_alloc(fs, (size_t)buckets * sizeof *fs->buckets);
    if (fs->buckets) {
        /* Emptied at once: a failed mount frees through the table. */
        fs->bucket_mask = buckets - 1;
        for (uint32_t b = 0; b < buckets; b++)
            fs->buckets[b] = NULL;
    }
    if (!fs->page_buf || !fs->oob_buf || !fs->block_info || !fs->chunk_bits || !fs->buckets)
        return nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory for the file-system tables");
    return nk_fs_init_tables(fs);
}

/* Adds to an out-of-memory reason what a pool for this partition needs,
 * with the objects met so far (at least that much); in place. Never
 * inlined: its frame stays off the mount's deepest chain. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void nk_fs_note_pool_need(struct nk_fs *fs, const struct nk_fs_config *config)
{
#ifndef NK_NO_DIAG_TEXT
    if (!fs->diag.text[0])
        nk_diag_set(&fs->diag, -NK_ENOMEM, "out of memory");
    uint32_t objects = fs->object_count > 2 ? fs->object_count - 2 : 0;
    size_t need = nk_fs_pool_bytes(fs->page_size, nk_nand_oob_size(config->part->dev),
                                   fs->pages_per_block, fs->blocks, objects, 0,
                                   !config->read_only && !nk_fs_io_read_only(config->part));
    size_t len = strlen(fs->diag.text);
    if (config->allocator.alloc)
        nk_format(fs->diag.text + len, sizeof fs->diag.text - len,
                  ": a pool would need at least %zu B (nk_fs_pool_bytes())", need);
    else
        nk_format(fs->diag.text + len, sizeof fs->diag.text - len,
                  ": the pool has %zu B, at least %zu B needed (nk_fs_pool_bytes())",
                  config->pool_size, need);
#else
    (void)fs;
    (void)config;
#endif
}

/* The mount up to the writer's set-up: the tables, from the checkpoint or
 * the scan. On failure everything is released. */
static int nk_fs_mount_tables(struct nk_fs *fs, const struct nk_fs_config *config,
                              const uint32_t *cut_pages, uint8_t cut_count)
{
    memset(fs, 0, sizeof *fs);
    fs->cached_page = NK_FS_NONE;
    if (cut_count)
        memcpy(fs->cut_pages, cut_pages, cut_count * sizeof *cut_pages);
    fs->cut_count = cut_count;
    if (!config || !config->part)
        return nk_diag_set(&fs->diag, -NK_EINVAL, "no partition given");
    fs->config = *config;
    if (!config->allocator.alloc && config->pool && config->pool_size) {
        nk_fs_pool_init(&fs->pool, config->pool, config->pool_size);
        fs->config.allocator = nk_fs_pool_allocator(&fs->pool);
    }
    if (!fs->config.allocator.alloc || !fs->config.allocator.free)
        return nk_diag_set(&fs->diag, -NK_EINVAL, "no memory given: set pool or allocator");
    int err = nk_fs_setup_geometry(fs);
    if (!err)
        err = nk_fs_alloc_tables(fs);
    if (!err) {
        /* nandkit's checkpoint, when there is one beyond doubt; else the scan. */
        uint32_t surveyed = 0;
        int loaded = config->no_checkpoint ? 0 : nk_fs_checkpoint_load(fs, &surveyed);
        if (loaded < 0)
            err = nk_diag_set(&fs->diag, loaded, "reading the checkpoint failed: %s",
                              nk_strerror(loaded));
        else if (!loaded)
            err = nk_fs_scan(fs, surveyed);
    }
    if (!err)
        err = nk_fs_resolve(fs);
    /* A read-only partition mounts read-only, as Linux mounts a
     * write-protected device: every write then gives -NK_EROFS. */
    if (!err && !config->read_only && !nk_fs_io_read_only(config->part))
        err = nk_fs_write_init(fs);
    if (err == -NK_ENOMEM)
        nk_fs_note_pool_need(fs, config);
    if (err) {
        if (!fs->diag.text[0])
            nk_diag_set(&fs->diag, err, "mount failed: %s", nk_strerror(err));
        nk_fs_release(fs);
        return err;
    }
    return 0;
}

int nk_fs_mount_unlocked(struct nk_fs *fs, const struct nk_fs_config *config)
{
    if (!fs)
        return -NK_EINVAL;
    int err = nk_fs_mount_tables(fs, config, NULL, 0);
    if (err)
        return err;
    fs->mounted = true;
    if (fs->writable) {
        err = nk_fs_write_recover(fs);
        /* A recovery that finds faded a page the scan took asks for the
         * scan again, without that page (nk_fs_write_recover()); each time
         * with one page more, so a few times at most. */
        while (err == NK_FS_RESCAN) {
            uint32_t cut_pages[sizeof fs->cut_pages / sizeof fs->cut_pages[0]];
            uint8_t cut_count = fs->cut_count;
            memcpy(cut_pages, fs->cut_pages, sizeof cut_pages);
            nk_fs_release(fs);
            err = nk_fs_mount_tables(fs, config, cut_pages, cut_count);
            if (err)
                return err;
            fs->mounted = true;
            err = nk_fs_write_recover(fs);
        }
        if (!err)
            err = nk_fs_settle_displaced(fs);
        if (err == -NK_ENOSPC)
            err = 0; /* displaced files stay reachable through their links */
        if (err) {
            nk_diag_set(&fs->diag, err, "rewriting the chunks a power cut may have left weak: %s",
                        nk_strerror(err));
            nk_fs_release(fs);
            return err;
        }
    }
    return 0;
}

int nk_fs_unmount_unlocked(struct nk_fs *fs)
{
    if (!fs)
        return -NK_EINVAL;
    if (!fs->mounted)
        return -NK_EINVAL;
    int err = nk_fs_sync_unlocked(fs);
    if (!err)
        err = nk_fs_checkpoint_write(fs);
    nk_fs_release(fs);
    return err;
}

int nk_fs_checkpoint_unlocked(struct nk_fs *fs)
{
    if (!fs || !fs->mounted)
        return -NK_EINVAL;
    int err = nk_fs_sync_unlocked(fs);
    if (!err)
        err = nk_fs_checkpoint_write(fs);
    return err;
}

int nk_fs_format_checkpoint(struct nk_fs *fs, const struct nk_fs_config *config)
{
    /* The builder has just erased every good block: the blocks it left
     * unwritten are cleanly erased, which the checkpoint records. No
     * recovery rewrite: nothing was cut. */
    int err = nk_fs_mount_tables(fs, config, NULL, 0);
    if (err)
        return err;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        struct nk_fs_block *info = &fs->block_info[b];
        if (info->state == NK_FS_BLOCK_EMPTY)
            info->state = NK_FS_BLOCK_ERASED;
        if (info->state != NK_FS_BLOCK_BAD)
            info->erases = 1; /* counts start at the format, its erase included */
    }
    fs->mounted = true;
    err = nk_fs_checkpoint_write(fs);
    nk_fs_release(fs);
    return err;
}

/* One allocation as the pool carves it (src/fs/memory.c): at least two
 * pointers, a multiple of 8 bytes. */
static size_t nk_fs_pool_block(size_t size)
{
    if (size < 2 * sizeof(void *))
        size = 2 * sizeof(void *);
    return (size + 7u) & ~(size_t)7u;
}

size_t nk_fs_pool_bytes(uint32_t page_size, uint32_t oob_size, uint32_t pages_per_block,
                        uint32_t blocks, uint32_t objects, uint64_t data_bytes, bool read_write)
{
    if (!page_size || page_size <= NK_FS_TAGS_BYTES || !pages_per_block || !blocks)
        return 0;
    size_t pages = (size_t)pages_per_block * blocks;
    /* The tables of every mount (nk_fs_alloc_tables()); the OOB buffer at
     * its largest, as if every OOB byte were free. */
    size_t oob = (size_t)oob_size * NK_FS_RUN_PAGES;
    if (oob > NK_FS_RUN_OOB)
        oob = oob_size > NK_FS_RUN_OOB ? oob_size : NK_FS_RUN_OOB;
    size_t summary = nk_fs_pool_block((size_t)pages_per_block * NK_FS_SUMMARY_ENTRY);
    size_t bytes = 8u /* the buffer's alignment */ + nk_fs_pool_block(page_size) +
                   nk_fs_pool_block(oob) + nk_fs_pool_block(blocks * sizeof(struct nk_fs_block)) +
                   nk_fs_pool_block((pages + 31u) / 32u * sizeof(uint32_t)) +
                   nk_fs_pool_block(nk_fs_default_buckets(blocks) * sizeof(void *));
    /* The scan's temporaries: the blocks in use in order, one block's tags
     * and its summary (the summary's block serves the writer after). */
    bytes += nk_fs_pool_block(blocks * sizeof(uint32_t)) +
             nk_fs_pool_block(pages_per_block * (sizeof(struct nk_fs_tags) + 8u)) + summary;
    /* The root, lost+found and every other object. */
    bytes += ((size_t)objects + 2u) * nk_fs_pool_block(sizeof(struct nk_fs_obj));
    /* Chunk maps (files without holes), chunks as small as the in-band
     * layout's: per 64 chunks a leaf in the larger, packed form (random
     * overwrites) and 1.5 nodes, more than the 8-way trees over those
     * leaves hold; per object the run leaf of a file's last chunks. */
    uint64_t chunks = data_bytes / (page_size - NK_FS_TAGS_BYTES);
    uint8_t bits = nk_fs_bits_for((uint32_t)pages);
    bytes += (size_t)(chunks / 64u + 1u) * nk_fs_pool_block((64u * bits + 31u) / 32u * 4u) +
             (size_t)(chunks * 3u / 128u + 1u) * nk_fs_pool_block(nk_fs_map_node_bytes()) +
             (size_t)objects * nk_fs_pool_block(nk_fs_map_run_leaf_bytes());
    /* The writer's buffers (nk_fs_write_init()). */
    if (read_write)
        bytes += nk_fs_pool_block(page_size) + nk_fs_pool_block((size_t)page_size + oob_size + 1u) +
                 summary + NK_FS_EDIT_SLOTS * nk_fs_pool_block(sizeof(struct nk_fs_header_edit)) +
                 nk_fs_pool_block(2u * pages_per_block * sizeof(uint32_t));
    return bytes;
}

const char *nk_fs_last_error(const struct nk_fs *fs, const struct nk_nand *dev,
                             const struct nk_diag *why)
{
    if (fs && fs->diag.text[0])
        return fs->diag.text;
    if (fs && fs->part) {
        const struct nk_diag *under = nk_part_diag(fs->part);
        if (under->text[0])
            return under->text;
    }
    if (dev && dev->diag.text[0])
        return dev->diag.text;
    return why ? why->text : "";
}

void nk_fs_ram_usage_unlocked(const struct nk_fs *fs, size_t *now, size_t *peak)
{
    if (!fs) {
        if (now)
            *now = 0;
        if (peak)
            *peak = 0;
        return;
    }
    if (now)
        *now = fs->ram_bytes;
    if (peak)
        *peak = fs->ram_peak;
}

int nk_fs_statfs_unlocked(struct nk_fs *fs, struct nk_fs_statfs *st)
{
    if (!fs || !st)
        return -NK_EINVAL;
    memset(st, 0, sizeof *st);
    if (!fs->mounted)
        return -NK_EINVAL;
    st->chunk_bytes = fs->chunk_bytes;
    st->chunks_per_block = fs->pages_per_block;
    st->blocks = fs->blocks;
    st->blocks_bad = fs->stats.blocks_bad;
    st->blocks_empty = fs->stats.blocks_empty;
    uint64_t good = fs->blocks - fs->stats.blocks_bad;
    st->bytes_total = good * fs->pages_per_block * fs->chunk_bytes;
    st->bytes_free = fs->free_chunks * fs->chunk_bytes;
    st->bytes_live = (uint64_t)fs->stats.chunks_live * fs->chunk_bytes;
    st->objects = fs->object_count;
    st->name_max = NK_FS_NAME_MAX;
    st->reads_corrected = fs->ecc_corrected_reads;
    st->reads_failed = fs->ecc_failed_reads;
    st->read_only = !fs->writable;
    if (!fs->writable)
        return 0;
    uint32_t per_block = fs->pages_per_block - fs->summary_chunks;
    uint64_t held = fs->live_chunks + (uint64_t)fs->reserve * per_block;
    st->bytes_avail = held < fs->usable_chunks ? (fs->usable_chunks - held) * fs->chunk_bytes : 0;
    uint64_t unwritten = (uint64_t)fs->erased_blocks * per_block;
    if (fs->alloc_block != NK_FS_NONE)
        unwritten += per_block - fs->alloc_page;
    if (fs->cold_block != NK_FS_NONE)
        unwritten += per_block - fs->cold_page;
    st->bytes_free = unwritten * fs->chunk_bytes;
    st->bytes_live = fs->live_chunks * fs->chunk_bytes;
    st->blocks_bad = fs->stats.blocks_bad;
    st->blocks_erased = fs->erased_blocks;
    st->blocks_retired = fs->blocks_retired;
    st->erase_min = 0xffffffffu;
    for (uint32_t b = 0; b < fs->blocks; b++) {
        const struct nk_fs_block *info = &fs->block_info[b];
        if (info->state == NK_FS_BLOCK_BAD)
            continue;
        if (info->erases < st->erase_min)
            st->erase_min = info->erases;
        if (info->erases > st->erase_max)
            st->erase_max = info->erases;
        st->erase_sum += info->erases;
    }
    if (st->erase_min == 0xffffffffu)
        st->erase_min = 0;
    st->chunks_programmed = fs->chunks_programmed;
    st->chunks_copied = fs->chunks_copied;
    st->blocks_collected = fs->blocks_collected;
    st->blocks_erased_count = fs->erases;
    return 0;
}
