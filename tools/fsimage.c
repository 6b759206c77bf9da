/* SPDX-License-Identifier: MIT */
#include "fsimage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "flashio.h"
#include "nandkit/error.h"
#include "tool.h"

void tool_layout_note(enum nk_fs_layout layout)
{
    if (layout == NK_FS_LAYOUT_MKYAFFS2)
        fprintf(stderr, "nandkit: note: the mkyaffs2 layout has no data ECC: a flipped bit in "
                        "file data is returned as read, unnoticed\n");
}

void tool_ecc_note(const struct nk_part *part)
{
    const char *name = nk_part_ecc_name(part);
    if (nk_nand_ecc(part->dev)->strength == 1 && name && strncmp(name, "hamming", 7) == 0)
        fprintf(stderr,
                "nandkit: note: %s corrects 1 flipped bit per step and detects 2; 3 or more in "
                "one step may be miscorrected unnoticed\n",
                name);
}

void tool_at_risk(const char *path)
{
    fprintf(stderr,
            "nandkit: %s: may have lost data (the image has pages whose tags could not be "
            "decoded)\n",
            path);
}

int tool_fs_damage(struct tool_fs *t)
{
    uint32_t n = nk_fs_damaged(&t->fs);
    if (!n)
        return 0;
    fprintf(stderr,
            "nandkit: the image has %u page%s whose tags could not be decoded: objects may be "
            "missing, files incomplete or older than written (nandkit fsck names them)\n",
            (unsigned)n, n == 1 ? "" : "s");
    return 1;
}

static unsigned tool_walk_at_risk(struct nk_fs *fs, const char *dir_path, FILE *out, unsigned depth)
{
    struct nk_fs_dir dir;
    if (depth > 4096 || nk_fs_dir_open(fs, &dir, dir_path) != 0)
        return 0;
    unsigned count = 0;
    struct nk_fs_dirent e;
    int r;
    while ((r = nk_fs_dir_read(&dir, &e)) != 0) {
        if (r < 0)
            continue;
        struct nk_fs_stat st;
        if (nk_fs_dir_stat(&dir, &st) != 0)
            continue;
        size_t len = strlen(dir_path) + strlen(e.name) + 2;
        char *path = malloc(len);
        if (!path)
            break;
        snprintf(path, len, "%s/%s", strcmp(dir_path, "/") ? dir_path : "", e.name);
        if (st.at_risk) {
            fprintf(out, "at risk: %s\n", path);
            count++;
        }
        if (st.type == NK_FS_TYPE_DIR)
            count += tool_walk_at_risk(fs, path, out, depth + 1);
        free(path);
    }
    nk_fs_dir_close(&dir);
    return count;
}

unsigned tool_fs_list_at_risk(struct tool_fs *t, FILE *out)
{
    return nk_fs_damaged(&t->fs) ? tool_walk_at_risk(&t->fs, "/", out, 0) : 0;
}

static void *tool_heap_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void tool_heap_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

struct nk_fs_allocator tool_heap_allocator(void)
{
    struct nk_fs_allocator allocator = {tool_heap_alloc, tool_heap_free, NULL};
    return allocator;
}

/* Whether any page 0 of the device holds data: tells an image whose tags
 * are where this layout does not look from an erased one. */
static bool tool_has_data(struct tool_fs *t)
{
    struct nk_nand *nand = &t->image.nand;
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint8_t *buf = malloc((size_t)page_size + oob_size);
    bool found = false;
    for (uint32_t b = 0; buf && b < t->image.part.block_count && !found; b++) {
        uint32_t page = (t->image.part.first_block + b) * nk_nand_pages_per_block(nand);
        if (nk_nand_read_page(nand, page, buf, buf + page_size, NK_OOB_RAW) < 0)
            continue;
        for (uint32_t i = 0; i < page_size + oob_size && !found; i++)
            found = buf[i] != 0xff;
    }
    free(buf);
    return found;
}

static void tool_fs_report(void *ctx, const struct nk_fs_problem *problem)
{
    struct tool_fs *t = ctx;
    t->problems++;
    if (problem->kind == NK_FS_PROBLEM_TAGS_ECC || problem->kind == NK_FS_PROBLEM_TAGS_INVALID ||
        problem->kind == NK_FS_PROBLEM_TORN_CHUNK) {
        if (t->tag_problems < TOOL_FS_TAG_PROBLEMS)
            t->tag_problem_pages[t->tag_problems] = problem->page;
        t->tag_problems++;
    }
    if (t->report)
        t->report(t->report_ctx, problem);
}

/* True when every page whose tags the mount could not use is the last
 * written page of its block (the next one erased): what a program cut short
 * by power loss leaves, not what a wrong layout gives. */
static bool tool_problems_are_torn(struct tool_fs *t)
{
    if (t->tag_problems == 0 || t->tag_problems > TOOL_FS_TAG_PROBLEMS)
        return false;
    struct nk_nand *nand = &t->image.nand;
    uint32_t ppb = nk_nand_pages_per_block(nand);
    uint32_t page_size = nk_nand_page_size(nand), oob_size = nk_nand_oob_size(nand);
    uint8_t *buf = malloc((size_t)page_size + oob_size);
    bool torn = buf != NULL;
    for (uint32_t i = 0; torn && i < t->tag_problems; i++) {
        uint32_t page = t->image.part.first_block * ppb + t->tag_problem_pages[i];
        if ((page + 1) % ppb == 0)
            continue; /* the block's last page */
        if (nk_nand_read_page(nand, page + 1, buf, buf + page_size, NK_OOB_RAW) < 0) {
            torn = false;
            break;
        }
        for (uint32_t b = 0; b < page_size + oob_size && torn; b++)
            torn = buf[b] == 0xff;
    }
    free(buf);
    return torn;
}

static int tool_report_torn(struct tool_fs *t)
{
    uint32_t ppb = nk_nand_pages_per_block(&t->image.nand);
    uint32_t page = t->tag_problem_pages[0];
    return tool_error("page %u (block %u, page %u)%s cut short while being programmed "
                      "(power loss): %u torn page%s at the end of %s block%s and no other "
                      "YAFFS2 data",
                      page, page / ppb, page % ppb,
                      t->tag_problems > 1 ? " and others were" : " was", t->tag_problems,
                      t->tag_problems > 1 ? "s" : "", t->tag_problems > 1 ? "their" : "its",
                      t->tag_problems > 1 ? "s" : "");
}

static int tool_check_layout(struct tool_fs *t, const struct tool_image_opts *opts,
                             const struct nk_fs_mount_stats *s);

/* A mount that "worked" but found no file system where one should be. */
static int tool_check_plausible(struct tool_fs *t, const struct tool_image_opts *opts)
{
    const struct nk_fs_mount_stats *s = &t->fs.stats;
    /* Torn pages at the write frontier are damage to name, not a sign of a
     * wrong layout: with other data the problem list names them, alone
     * they are the error. */
    /* A few raw reads; under a scheduled power cut only when the mount saw
     * trouble, so that a clean mount's operation count stays as it was. */
    bool suspect = t->problems >= 2 || s->blocks_bad_sequence > 0 || s->tags_uncorrectable >= 2;
    int status = suspect || opts->power_cut_after < 0 ? tool_ecc_probe(&t->image, opts) : 0;
    if (status)
        return status;
    if (tool_problems_are_torn(t))
        return s->chunks_live == 0 ? tool_report_torn(t) : 0;
    return tool_check_layout(t, opts, s);
}

static int tool_check_layout(struct tool_fs *t, const struct tool_image_opts *opts,
                             const struct nk_fs_mount_stats *s)
{
    const char *what = opts->geometry ? opts->geometry : opts->chip;
    const char *flag = opts->geometry ? "--geometry" : "--chip";
    uint32_t blocks = t->fs.blocks;
    if (s->blocks_in_use == 0 && s->blocks_bad > 0 && s->blocks_bad + s->blocks_empty == blocks &&
        s->blocks_bad > blocks / 2)
        return tool_fail("%u of %u blocks look bad (marker bytes set) and none holds YAFFS2 "
                         "data with --layout %s and %s %s: wrong %s, or an image without "
                         "markers (--layout mkyaffs2)?",
                         (unsigned)s->blocks_bad, (unsigned)blocks, t->layout_name, flag, what,
                         flag);
    if (s->blocks_bad_sequence > s->blocks_in_use)
        return tool_fail("%u of %u written blocks have no usable YAFFS2 tags with --layout %s "
                         "and %s %s: wrong --layout or %s?",
                         (unsigned)s->blocks_bad_sequence,
                         (unsigned)(s->blocks_bad_sequence + s->blocks_in_use), t->layout_name,
                         flag, what, flag);
    uint32_t bad_tags = s->tags_uncorrectable + s->tags_invalid;
    if (s->blocks_in_use > 0 && bad_tags > s->chunks_seen / 2)
        return tool_fail("%u of %u chunks have unreadable or impossible tags with --layout %s "
                         "and %s %s: wrong --layout or %s?",
                         (unsigned)bad_tags, (unsigned)(s->chunks_seen + bad_tags), t->layout_name,
                         flag, what, flag);
    if (s->blocks_in_use == 0 && s->blocks_checkpoint == 0 && tool_has_data(t))
        return tool_fail("the image holds data but no YAFFS2 tags where --layout %s puts them "
                         "(%s %s): wrong --layout or %s?",
                         t->layout_name, flag, what, flag);
    return 0;
}

/* Closes the image and frees the bad-block table attached to it. */
static void tool_fs_drop_image(struct tool_fs *t)
{
    if (t->image.nand.bbt)
        nk_bbt_detach(&t->image.nand);
    tool_image_close(&t->image);
    free(t->bbt_memory);
    t->bbt_memory = NULL;
}

/* Opens the image for a mount: its tags checked, a short image warned
 * about, and the bad blocks the device knows attached. Returns 0, or the
 * exit status with the image closed. */
static int tool_fs_open_image(struct tool_fs *t, struct tool_image_opts *opts, bool writable)
{
    /* A change's --power-cut-after N counts the flash operations of the
     * change itself: armed once the read-write mount is done (a mount
     * alone reads every block's tags, about two thousand operations). */
    int64_t power_cut_after = opts->power_cut_after;
    if (writable)
        opts->power_cut_after = -1;
    int status = tool_image_open(&t->image, opts);
    opts->power_cut_after = power_cut_after;
    if (status)
        return status;
    status = tool_image_check_tags(&t->image);
    if (status) {
        tool_image_close(&t->image);
        return status;
    }
    const struct nk_chip_info *info = &t->image.params.chip;
    uint64_t block_bytes = ((uint64_t)info->page_size + info->oob_size) * info->pages_per_block;
    /* An image shorter than the chip, even one that ends inside a block,
     * reads as docs/image-format.md says: pages past its end are erased.
     * One that ends inside a block (never nandkit's own output) and has no
     * sidecar gets a warning saying what that usually means. */
    struct stat st;
    if (opts->path && stat(opts->path, &st) == 0 && (uint64_t)st.st_size % block_bytes)
        tool_warn_short_image(opts->path, block_bytes * info->blocks, (uint32_t)block_bytes);
    /* Readers and writers use what the device knows of its bad blocks, as
     * mkimage does: in the mkyaffs2 layout OOB byte 0 holds tags, so only a
     * table or the simulator's sidecar can tell. */
    char sidecar[4096];
    struct stat sidecar_st;
    bool has_sidecar = opts->path && !opts->no_sidecar &&
                       (size_t)snprintf(sidecar, sizeof sidecar, "%s.nksim", opts->path) <
                           sizeof sidecar &&
                       stat(sidecar, &sidecar_st) == 0;
    int known = tool_known_bad_attach(&t->image, t->image.layout == NK_FS_LAYOUT_MKYAFFS2,
                                      has_sidecar, writable, &t->bbt, &t->bbt_memory);
    if (known < 0) {
        free(t->bbt_memory);
        t->bbt_memory = NULL;
        tool_image_close(&t->image);
        return -known;
    }
    return 0;
}

/* The first mount, read-only whatever comes next: a wrong --layout or
 * --geometry is refused before anything is written. Returns 0, or the
 * exit status with the image dropped. */
static int tool_fs_mount_read_only(struct tool_fs *t, nk_fs_report_fn report, void *report_ctx)
{
    t->config.part = &t->image.part;
    t->config.allocator = tool_heap_allocator();
    t->config.clock = tool_host_clock();
    t->config.read_only = true;
    t->report = report;
    t->report_ctx = report_ctx;
    t->config.report = tool_fs_report;
    t->config.report_ctx = t;
    nk_fs_config_layout(&t->config, t->image.layout);
    int err = nk_fs_mount(&t->fs, &t->config);
    if (!err) {
        t->mounted = true;
        return 0;
    }
    int status;
    if (err == -NK_EINVAL)
        status = tool_fail("cannot mount with --layout %s: %s", t->layout_name, t->fs.diag.text);
    else if (t->image.sim && !nk_sim_powered(t->image.sim))
        status = tool_error("mount failed: %s", tool_image_error(&t->image, err));
    else
        status =
            tool_error("mount failed: %s", t->fs.diag.text[0] ? t->fs.diag.text : nk_strerror(err));
    tool_fs_drop_image(t);
    return status;
}

/* Mounts again read-write and arms --power-cut-after. Returns 0, or the
 * exit status with the image dropped. */
static int tool_fs_mount_writable(struct tool_fs *t, int64_t power_cut_after)
{
    nk_fs_unmount(&t->fs);
    t->mounted = false;
    t->config.read_only = false;
    int err = nk_fs_mount(&t->fs, &t->config);
    if (err) {
        int status =
            tool_error("read-write mount failed: %s", t->image.sim && !nk_sim_powered(t->image.sim)
                                                          ? tool_image_error(&t->image, err)
                                                      : t->fs.diag.text[0] ? t->fs.diag.text
                                                                           : nk_strerror(err));
        tool_fs_drop_image(t);
        return status;
    }
    t->mounted = true;
    t->image.power_cut_after = power_cut_after;
    if (power_cut_after >= 0 && t->image.sim)
        nk_sim_power_cut_after(t->image.sim, (uint64_t)power_cut_after);
    return 0;
}

static int tool_fs_open_as(struct tool_fs *t, struct tool_image_opts *opts, nk_fs_report_fn report,
                           void *report_ctx, bool writable, const struct nk_lock *lock)
{
    memset(t, 0, sizeof *t);
    if (lock)
        t->config.lock = *lock;
    opts->read_only = !writable;
    int status = tool_fs_open_image(t, opts, writable);
    if (status)
        return status;
    t->layout_name = nk_fs_layout_name(t->image.layout);
    status = tool_fs_mount_read_only(t, report, report_ctx);
    if (status)
        return status;
    status = tool_check_plausible(t, opts);
    if (status) {
        tool_fs_close(t);
        return status;
    }
    tool_layout_note(t->image.layout);
    if (!writable)
        return 0;
    return tool_fs_mount_writable(t, opts->power_cut_after);
}

int tool_fs_open(struct tool_fs *t, struct tool_image_opts *opts, nk_fs_report_fn report,
                 void *report_ctx)
{
    return tool_fs_open_as(t, opts, report, report_ctx, false, NULL);
}

int tool_fs_open_writable(struct tool_fs *t, struct tool_image_opts *opts)
{
    return tool_fs_open_as(t, opts, NULL, NULL, true, NULL);
}

int tool_fs_open_shared(struct tool_fs *t, struct tool_image_opts *opts, bool writable,
                        const struct nk_lock *lock)
{
    return tool_fs_open_as(t, opts, NULL, NULL, writable, lock);
}

void tool_fs_close(struct tool_fs *t)
{
    if (t->mounted)
        nk_fs_unmount(&t->fs);
    t->mounted = false;
    tool_fs_drop_image(t);
}

static uint64_t tool_host_now(void *ctx)
{
    (void)ctx;
    time_t now = time(NULL);
    return now > 0 ? (uint64_t)now : 0;
}

struct nk_fs_clock tool_host_clock(void)
{
    return (struct nk_fs_clock){tool_host_now, NULL};
}

void tool_mode_string(uint32_t mode, char out[11])
{
    static const char types[] = "?pc?d?b?-?l?s???";
    out[0] = types[(mode >> 12) & 0xf];
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[1 + i] = (mode & (0400u >> i)) ? rwx[i] : '-';
    if (mode & 04000u)
        out[3] = (mode & 0100u) ? 's' : 'S';
    if (mode & 02000u)
        out[6] = (mode & 0010u) ? 's' : 'S';
    if (mode & 01000u)
        out[9] = (mode & 0001u) ? 't' : 'T';
    out[10] = '\0';
}

/* Length of the valid UTF-8 sequence at `s`, 0 when invalid. */
static size_t tool_utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        n = 2;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void tool_json_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p++);
        } else if (*p < 0x20) {
            fprintf(out, "\\u%04x", *p++);
        } else {
            size_t n = tool_utf8_len(p);
            if (n == 0) {
                /* A byte that is not UTF-8 as a lone low surrogate, U+DC80..U+DCFF
                 * (as Python's surrogateescape): no valid text gives one, so
                 * the byte comes back unambiguously. */
                fprintf(out, "\\u%04x", 0xdc00u | *p++);
            } else {
                fwrite(p, 1, n, out);
                p += n;
            }
        }
    }
    fputc('"', out);
}

bool tool_path_join(char *out, size_t size, const char *dir, const char *name)
{
    size_t len = strlen(dir);
    int n = len && dir[len - 1] == '/' ? snprintf(out, size, "%s%s", dir, name)
                                       : snprintf(out, size, "%s/%s", dir, name);
    return n >= 0 && (size_t)n < size;
}

char *tool_path_dup(const char *dir, const char *name)
{
    size_t len = strlen(dir) + 1 + strlen(name) + 1;
    char *out = malloc(len);
    if (out)
        tool_path_join(out, len, dir, name);
    return out;
}
