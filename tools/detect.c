/* SPDX-License-Identifier: MIT */
/*
 * The geometry of a YAFFS2 image file that came without one, read from the
 * image itself as `unyaffs -d` does: each page+OOB size the presets know
 * (and a few common others) that divides the file is tried, and the one
 * whose pages carry valid YAFFS2 tags where --layout puts them wins. The
 * pages per block follow from the sequence numbers: every page of a block
 * carries its block's number, and a block is written from page 0 on.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"

#define TOOL_DETECT_MAX_PAGES 4096u /* pages examined: enough for 16 blocks of 256 */
#define TOOL_DETECT_TAGS 16u        /* packed tags, docs/fs-format.md section 2 */
#define TOOL_DETECT_TAGS_ECC 12u    /* their code, section 3 */

static uint32_t tool_detect_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned tool_detect_parity(uint8_t b, uint8_t mask)
{
    return (unsigned)__builtin_popcount((unsigned)(b & mask)) & 1u;
}

/* True when the 12 bytes after the tags are their YAFFS2 code, unchanged. */
static bool tool_detect_tags_code_ok(const uint8_t *tags)
{
    uint8_t column = 0;
    uint32_t line = 0, prime = 0;
    for (uint32_t i = 0; i < TOOL_DETECT_TAGS; i++) {
        uint8_t b = tags[i];
        column ^= (uint8_t)(tool_detect_parity(b, 0xf0) << 5 | tool_detect_parity(b, 0x0f) << 4 |
                            tool_detect_parity(b, 0xcc) << 3 | tool_detect_parity(b, 0x33) << 2 |
                            tool_detect_parity(b, 0xaa) << 1 | tool_detect_parity(b, 0x55));
        if (tool_detect_parity(b, 0xff)) {
            line ^= i;
            prime ^= ~i;
        }
    }
    return tags[16] == column && tool_detect_get32(tags + 20) == line &&
           tool_detect_get32(tags + 24) == prime;
}

enum tool_detect_page { TOOL_DETECT_ERASED, TOOL_DETECT_VALID, TOOL_DETECT_INVALID };

/* Judges the tags of one page: erased, plausible YAFFS2 tags, or not tags. */
static enum tool_detect_page tool_detect_judge(const uint8_t *tags, bool with_code,
                                               uint32_t data_bytes, uint32_t *sequence)
{
    uint32_t seq = tool_detect_get32(tags), obj = tool_detect_get32(tags + 4),
             chunk = tool_detect_get32(tags + 8), bytes = tool_detect_get32(tags + 12);
    *sequence = seq;
    bool zero = true; /* a hole in a sparse image: erased bytes to the simulator */
    for (uint32_t i = 0; i < TOOL_DETECT_TAGS + (with_code ? TOOL_DETECT_TAGS_ECC : 0); i++)
        zero &= tags[i] == 0;
    if (seq == 0xffffffffu || zero) {
        *sequence = 0xffffffffu;
        return TOOL_DETECT_ERASED;
    }
    bool seq_ok = seq == 0x21u || (seq >= 0x1000u && seq <= 0xefffff00u);
    bool extra = (chunk & 0x80000000u) != 0;
    uint32_t id = extra ? obj & 0x0fffffffu : obj;
    bool chunk_ok = extra || chunk <= 0x0fffffffu;
    bool bytes_ok = extra || chunk == 0 || bytes <= data_bytes;
    if (!seq_ok || id == 0 || id > 0x3ffffu || !chunk_ok || !bytes_ok)
        return TOOL_DETECT_INVALID;
    if (with_code && !tool_detect_tags_code_ok(tags))
        return TOOL_DETECT_INVALID;
    return TOOL_DETECT_VALID;
}

/* Where `layout` puts the tags of a page of `page`+`oob` bytes. */
static uint32_t tool_detect_tags_offset(enum nk_fs_layout layout, uint32_t page, bool *with_code)
{
    *with_code = layout != NK_FS_LAYOUT_INBAND;
    if (layout == NK_FS_LAYOUT_INBAND)
        return page - TOOL_DETECT_TAGS;
    if (layout == NK_FS_LAYOUT_MKYAFFS2)
        return page;
    return page + 2; /* Linux's large-page layouts: free OOB bytes from byte 2 */
}

/* The largest pages-per-block count (32..512, dividing `pages`) under which
 * every block is written from its page 0 on, one sequence number per block. */
static uint32_t tool_detect_pages_per_block(const uint32_t *seq, uint32_t examined, uint64_t pages)
{
    for (uint32_t ppb = 512; ppb >= 32; ppb /= 2) {
        if (pages % ppb != 0)
            continue;
        bool consistent = true;
        for (uint32_t first = 0; consistent && first < examined; first += ppb) {
            bool ended = false;
            for (uint32_t p = first; p < first + ppb && p < examined; p++) {
                if (seq[p] == 0xffffffffu)
                    ended = true;
                else if (ended || seq[p] != seq[first])
                    consistent = false;
            }
        }
        if (consistent)
            return ppb;
    }
    return 0;
}

/* Examines the image as pages of `page`+`oob` bytes. Returns true when they
 * carry tags (at least one page, and nearly no page with something else
 * where the tags go), with the pages per block in *ppb. */
static bool tool_detect_try(int fd, uint64_t size, uint32_t page, uint32_t oob,
                            enum nk_fs_layout layout, uint32_t *ppb)
{
    uint64_t page_bytes = (uint64_t)page + oob;
    if (size == 0 || size % page_bytes != 0)
        return false;
    if (layout != NK_FS_LAYOUT_INBAND && oob < TOOL_DETECT_TAGS + TOOL_DETECT_TAGS_ECC + 2)
        return false;
    uint64_t pages = size / page_bytes;
    uint32_t examined = pages < TOOL_DETECT_MAX_PAGES ? (uint32_t)pages : TOOL_DETECT_MAX_PAGES;
    uint32_t *seq = malloc(examined * sizeof *seq);
    if (!seq)
        return false;
    bool with_code;
    uint32_t offset = tool_detect_tags_offset(layout, page, &with_code);
    uint32_t data_bytes = layout == NK_FS_LAYOUT_INBAND ? page - TOOL_DETECT_TAGS : page;
    uint32_t valid = 0, invalid = 0;
    for (uint32_t p = 0; p < examined; p++) {
        uint8_t tags[TOOL_DETECT_TAGS + TOOL_DETECT_TAGS_ECC];
        if (pread(fd, tags, sizeof tags, (off_t)(p * page_bytes + offset)) != (ssize_t)sizeof tags)
            memset(tags, 0xff, sizeof tags);
        switch (tool_detect_judge(tags, with_code, data_bytes, &seq[p])) {
        case TOOL_DETECT_VALID:
            valid++;
            break;
        case TOOL_DETECT_INVALID:
            invalid++;
            seq[p] = 0; /* belongs to no block */
            break;
        case TOOL_DETECT_ERASED:
            break;
        }
    }
    /* A few torn or flipped pages may fail; a wrong size fails nearly all. */
    bool found = valid > 0 && invalid * 16 <= valid;
    *ppb = found ? tool_detect_pages_per_block(seq, examined, pages) : 0;
    free(seq);
    return found && *ppb != 0;
}

/* The page+OOB sizes tried: every preset's, then common others. */
static unsigned tool_detect_candidates(uint32_t (*sizes)[2], unsigned max)
{
    static const uint32_t common[][2] = {{2048, 64},  {2048, 128}, {4096, 128},
                                         {4096, 224}, {4096, 256}, {8192, 448}};
    unsigned n = 0;
    for (unsigned i = 0; nk_sim_preset_name(i) && n < max; i++) {
        struct nk_sim_params params;
        if (nk_sim_preset(nk_sim_preset_name(i), &params) != 0)
            continue;
        sizes[n][0] = params.chip.page_size;
        sizes[n][1] = params.chip.oob_size;
        n++;
    }
    for (unsigned i = 0; i < sizeof common / sizeof common[0] && n < max; i++) {
        sizes[n][0] = common[i][0];
        sizes[n][1] = common[i][1];
        n++;
    }
    return n;
}

int tool_detect_geometry(const char *path, enum nk_fs_layout layout, struct tool_geometry *found)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    uint32_t sizes[64][2];
    unsigned count = tool_detect_candidates(sizes, 64);
    unsigned matches = 0;
    for (unsigned i = 0; i < count; i++) {
        bool seen = false;
        for (unsigned j = 0; j < i; j++)
            seen |= sizes[j][0] == sizes[i][0] && sizes[j][1] == sizes[i][1];
        uint32_t ppb;
        if (seen ||
            !tool_detect_try(fd, (uint64_t)st.st_size, sizes[i][0], sizes[i][1], layout, &ppb))
            continue;
        if (matches == 0) {
            found->page_size = sizes[i][0];
            found->oob_size = sizes[i][1];
            found->pages_per_block = ppb;
            found->blocks =
                (uint32_t)((uint64_t)st.st_size / (((uint64_t)sizes[i][0] + sizes[i][1]) * ppb));
        }
        matches++;
    }
    close(fd);
    return matches == 1 ? 0 : -1; /* none, or ambiguous: the user must say */
}
