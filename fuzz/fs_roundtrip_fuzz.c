/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: builder -> mount -> compare, with power cuts. The input
 * describes a small tree (directories, files with data, symlinks, with
 * modes and times, pre-1970 ones included); the builder writes it onto a
 * simulated chip through one of the three layouts, optionally with a power
 * cut after a number of array operations; the chip is then mounted and
 * every object built completely before the cut is looked up and compared:
 * type, mode, times, size, file bytes, symlink target. Any crash, sanitizer
 * report, failed mount or difference is a finding.
 *
 * Geometry: 2048 + 64 bytes, 8 pages per block, 16 blocks.
 * Input: flags byte (bits 0..1 layout: linux, mkyaffs2, inband, linux;
 * bit 2 power cut), cut byte (array operations before the cut, x 2), then
 * records of 8 bytes:
 *   byte 0      type (mod 3): file, directory, symlink
 *   byte 1      parent: the (n mod (dirs + 1))-th directory built, 0 = root
 *   bytes 2..3  file size (mod 5000) or target length (mod 160)
 *   bytes 4..7  mtime, signed 32-bit (sign-extended to 64 bits)
 * File bytes and targets are derived from the record.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

#define PAGE 2048u
#define OOB 64u
#define PPB 8u
#define BLOCKS 16u
#define RECORD 8u
#define MAX_ENTRIES 64u

struct entry {
    uint8_t type;
    uint32_t parent; /* index + 1 of the parent entry, 0 = root */
    uint32_t size;
    int64_t mtime;
    uint8_t seed;
    bool complete;
    char path[MAX_ENTRIES * 8];
};

static struct entry entries[MAX_ENTRIES];
static uint32_t ids[MAX_ENTRIES];

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

static uint8_t content(const struct entry *e, uint32_t i)
{
    return (uint8_t)(e->seed + i * 7u + (i >> 8));
}

static void fill(const struct entry *e, uint8_t *buf, uint32_t from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        buf[i] = content(e, from + i);
}

static char target_char(const struct entry *e, uint32_t i)
{
    return (char)('a' + (e->seed + i) % 26u);
}

/* Builds entries[0..count); returns how many were built completely. */
static unsigned build(struct nk_part *part, enum nk_fs_layout layout, unsigned count)
{
    static uint8_t workspace[PAGE + OOB + 64];
    struct nk_fs_builder b;
    struct nk_fs_build_config bc;
    memset(&bc, 0, sizeof bc);
    bc.part = part;
    bc.layout = layout;
    if (nk_fs_build_begin(&b, &bc, workspace, sizeof workspace) != 0)
        return 0;
    unsigned done = 0;
    for (unsigned i = 0; i < count; i++) {
        struct entry *e = &entries[i];
        char name[16];
        int name_len = snprintf(name, sizeof name, "e%u", i);
        char target[NK_FS_ALIAS_MAX];
        struct nk_fs_build_entry be;
        memset(&be, 0, sizeof be);
        be.type = e->type;
        be.parent_id = e->parent ? ids[e->parent - 1] : NK_FS_OBJ_ROOT;
        be.name = name;
        be.name_len = (size_t)name_len;
        be.attr.mode = e->type == NK_FS_TYPE_DIR ? 0755u : 0644u;
        be.attr.mtime = (uint64_t)e->mtime;
        be.attr.atime = (uint64_t)e->mtime;
        be.attr.ctime = (uint64_t)e->mtime;
        if (e->type == NK_FS_TYPE_SYMLINK) {
            for (uint32_t k = 0; k < e->size; k++)
                target[k] = target_char(e, k);
            be.target = target;
            be.target_len = e->size;
        }
        if (nk_fs_build_object(&b, &be, &ids[i]) != 0)
            break;
        if (e->type == NK_FS_TYPE_FILE) {
            static uint8_t data[1000];
            int err = 0;
            for (uint32_t at = 0; !err && at < e->size; at += sizeof data) {
                uint32_t n = e->size - at < sizeof data ? e->size - at : (uint32_t)sizeof data;
                fill(e, data, at, n);
                err = nk_fs_build_data(&b, data, n);
            }
            if (err || nk_fs_build_file_end(&b) != 0)
                break;
        }
        e->complete = true;
        done++;
    }
    nk_fs_build_finish(&b, NULL);
    return done;
}

static void compare(struct nk_fs *fs, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        const struct entry *e = &entries[i];
        if (!e->complete)
            continue;
        struct nk_fs_stat st;
        if (nk_fs_lstat(fs, e->path, &st) != 0)
            abort(); /* a complete object is missing */
        /* -1 is the one time the header cannot carry: its words are all
         * ones, "unset", and read back as 0xFFFFFFFF (docs/fs-format.md). */
        int64_t want = e->mtime == -1 ? (int64_t)UINT32_MAX : e->mtime;
        if (st.type != e->type || (int64_t)st.mtime != want || (int64_t)st.atime != want)
            abort();
        if (e->type == NK_FS_TYPE_SYMLINK) {
            char target[NK_FS_ALIAS_MAX + 1];
            if (nk_fs_readlink(fs, e->path, target, sizeof target) != (int)e->size)
                abort();
            for (uint32_t k = 0; k < e->size; k++)
                if (target[k] != target_char(e, k))
                    abort();
        } else if (e->type == NK_FS_TYPE_FILE) {
            if (st.size != e->size)
                abort();
            struct nk_fs_file f;
            if (nk_fs_file_open(fs, &f, e->path, NK_FS_O_RDONLY) != 0)
                abort();
            static uint8_t got[5000], want[5000];
            if (nk_fs_file_read(&f, got, sizeof got) != (int32_t)e->size)
                abort();
            fill(e, want, 0, e->size);
            if (memcmp(got, want, e->size) != 0)
                abort(); /* different bytes */
            nk_fs_file_close(&f);
        }
    }
}

static struct nk_sim_params params;

static void open_dev(struct nk_sim *sim, enum nk_fs_layout layout, struct nk_nand *nand,
                     struct nk_part *part)
{
    static struct nk_ecc_engine ecc;
    static struct nk_oob_layout oob_layout;
    static uint32_t workspace[(PAGE + 3 * OOB) / 4 + 16];
    if (nk_fs_layout_device(layout, PAGE, OOB, &ecc, &oob_layout) != 0)
        abort();
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(sim);
    nc.chip = &params.chip;
    nc.ecc = &ecc;
    nc.layout = &oob_layout;
    nc.workspace = workspace;
    nc.workspace_size = sizeof workspace;
    if (nk_nand_open(nand, &nc) != 0 ||
        nk_part_init(part, nand, "fuzz", 0, 0, NK_PART_ALLOW_BBT_AREA) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t len)
{
    static bool ready;
    struct nk_diag why[1];
    if (!ready) {
        if (nk_sim_params_geometry(&params, PAGE, OOB, PPB, BLOCKS, why) != 0)
            abort();
        ready = true;
    }
    if (len < 2)
        return 0;
    uint8_t flags = in[0];
    enum nk_fs_layout layout =
        (flags & 3) == 3 ? NK_FS_LAYOUT_LINUX : (enum nk_fs_layout)(flags & 3);
    bool cut = (flags & 4) != 0;

    unsigned count = 0, dirs = 0;
    uint32_t dir_index[MAX_ENTRIES];
    for (size_t at = 2; at + RECORD <= len && count < MAX_ENTRIES; at += RECORD) {
        const uint8_t *r = in + at;
        struct entry *e = &entries[count];
        memset(e, 0, sizeof *e);
        e->type = r[0] % 3 == 0   ? NK_FS_TYPE_FILE
                  : r[0] % 3 == 1 ? NK_FS_TYPE_DIR
                                  : NK_FS_TYPE_SYMLINK;
        unsigned p = r[1] % (dirs + 1);
        e->parent = p ? dir_index[p - 1] + 1 : 0;
        uint32_t n = (uint32_t)(r[2] | r[3] << 8);
        e->size = e->type == NK_FS_TYPE_FILE      ? n % 5000u
                  : e->type == NK_FS_TYPE_SYMLINK ? n % (NK_FS_ALIAS_MAX + 1u)
                                                  : 0;
        e->mtime = (int32_t)((uint32_t)r[4] | (uint32_t)r[5] << 8 | (uint32_t)r[6] << 16 |
                             (uint32_t)r[7] << 24);
        e->seed = (uint8_t)(r[0] ^ r[2]);
        snprintf(e->path, sizeof e->path, "%s/e%u", e->parent ? entries[e->parent - 1].path : "",
                 count);
        if (e->type == NK_FS_TYPE_DIR)
            dir_index[dirs++] = count;
        count++;
    }

    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.seed = in[1];
    struct nk_sim *sim;
    if (nk_sim_open(&sim, &config, why) != 0)
        abort();
    struct nk_nand nand;
    struct nk_part part;
    open_dev(sim, layout, &nand, &part);
    if (cut)
        nk_sim_power_cut_after(sim, (uint64_t)in[1] * 2u);
    build(&part, layout, count);
    if (cut) {
        nk_sim_power_cut_cancel(sim);
        if (!nk_sim_powered(sim)) {
            nk_sim_power_restore(sim);
            open_dev(sim, layout, &nand, &part); /* a reboot: RESET, fresh device */
        }
        /* The object being written at the cut is not complete (its last
         * page may be torn): only earlier ones are compared. */
    }

    struct nk_fs_config fc;
    memset(&fc, 0, sizeof fc);
    fc.part = &part;
    fc.read_only = true;
    fc.allocator.alloc = heap_alloc;
    fc.allocator.free = heap_free;
    nk_fs_config_layout(&fc, layout);
    struct nk_fs fs;
    if (nk_fs_mount(&fs, &fc) != 0)
        abort(); /* whatever was built (or cut) must mount */
    compare(&fs, count);
    nk_fs_unmount(&fs);
    nk_nand_close(&nand);
    nk_sim_close(sim);
    return 0;
}
