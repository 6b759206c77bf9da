/* SPDX-License-Identifier: MIT */
/*
 * Linux-compatible on-flash bad-block table (see docs/bbt.md).
 *
 * RAM holds 2 bits per block (NK_BBT_* codes). Flash holds the main table
 * ("Bbt0") and its mirror ("1tbB") in two of the last NK_BBT_MAX_BLOCKS
 * blocks: pattern at OOB 8..11 and version at OOB 12 of the first page, the
 * 2-bit codes in the data area from the first page on (11 good, 00 factory
 * bad, 10 worn), block 0 in the two low bits of byte 0.
 */
#include <string.h>

#include "nand/nand_internal.h"
#include "nandkit/bbt.h"
#include "nandkit/error.h"

#define NK_BBT_PATTERN_OFFSET 8u
#define NK_BBT_VERSION_OFFSET 12u
#define NK_BBT_CHECK_OFFSET 13u /* ~version, written by nandkit (0xFF from Linux) */
#define NK_BBT_PATTERN_LEN 4u

static const uint8_t nk_bbt_main_pattern[NK_BBT_PATTERN_LEN] = {'B', 'b', 't', '0'};
static const uint8_t nk_bbt_mirror_pattern[NK_BBT_PATTERN_LEN] = {'1', 't', 'b', 'B'};

enum nk_bbt_copy { NK_BBT_MAIN, NK_BBT_MIRROR };

struct nk_bbt_copy_state {
    int32_t *block;
    uint8_t *version;
    bool *written;
    const uint8_t *pattern;
    const char *name;
};

static struct nk_bbt_copy_state nk_bbt_copy(struct nk_bbt *bbt, enum nk_bbt_copy copy)
{
    struct nk_bbt_info *info = &bbt->info;
    if (copy == NK_BBT_MAIN)
        return (struct nk_bbt_copy_state){&info->main_block, &info->main_version,
                                          &info->main_written, nk_bbt_main_pattern, "main"};
    return (struct nk_bbt_copy_state){&info->mirror_block, &info->mirror_version,
                                      &info->mirror_written, nk_bbt_mirror_pattern, "mirror"};
}

/* ----- RAM entries ---------------------------------------------------------- */

static uint32_t nk_bbt_entry_bytes(uint32_t blocks)
{
    return (blocks + 3u) / 4u;
}

static unsigned nk_bbt_get(const struct nk_bbt *bbt, uint32_t block)
{
    return (bbt->entries[block >> 2] >> ((block & 3u) * 2u)) & 3u;
}

static void nk_bbt_set(struct nk_bbt *bbt, uint32_t block, unsigned state)
{
    unsigned shift = (block & 3u) * 2u;
    uint8_t *byte = &bbt->entries[block >> 2];
    *byte = (uint8_t)((*byte & ~(3u << shift)) | (state << shift));
}

int nk_bbt_block_state(const struct nk_bbt *bbt, uint32_t block)
{
    if (block >= bbt->blocks)
        return -NK_EINVAL;
    return (int)nk_bbt_get(bbt, block);
}

size_t nk_bbt_memory_size(const struct nk_nand *dev)
{
    return NK_BBT_MEMORY_SIZE(nk_nand_page_size(dev), nk_nand_oob_size(dev), nk_nand_blocks(dev));
}

/* Flash codes for `len` bytes of table covering blocks from `first`: 11 good
 * (reserved blocks too, as Linux stores them), 10 worn, 00 factory bad. */
static void nk_bbt_encode_range(const struct nk_bbt *bbt, uint8_t *out, uint32_t len,
                                uint32_t first)
{
    memset(out, 0xff, len);
    for (uint32_t i = 0; i < len * 4u && first + i < bbt->blocks; i++) {
        unsigned shift = (i & 3u) * 2u;
        unsigned state = nk_bbt_get(bbt, first + i);
        if (state == NK_BBT_WORN)
            out[i >> 2] &= (uint8_t) ~(1u << shift);
        else if (state == NK_BBT_FACTORY_BAD)
            out[i >> 2] &= (uint8_t) ~(3u << shift);
    }
}

void nk_bbt_encode(const struct nk_bbt *bbt, uint8_t *out, uint32_t len)
{
    nk_bbt_encode_range(bbt, out, len, 0);
}

/* Decodes `len` table bytes covering blocks from `first`. */
static void nk_bbt_decode(struct nk_bbt *bbt, const uint8_t *in, uint32_t len, uint32_t first)
{
    for (uint32_t i = 0; i < len * 4u && first + i < bbt->blocks; i++) {
        unsigned code = (in[i >> 2] >> ((i & 3u) * 2u)) & 3u;
        if (code == 3u)
            continue;
        nk_bbt_set(bbt, first + i, code == 0u ? NK_BBT_FACTORY_BAD : NK_BBT_WORN);
    }
}

/* ----- flash access ----------------------------------------------------------- */

static uint32_t nk_bbt_first_reserved(const struct nk_nand *dev)
{
    uint32_t blocks = nk_nand_blocks(dev);
    return blocks > NK_BBT_MAX_BLOCKS ? blocks - NK_BBT_MAX_BLOCKS : 0;
}

/* Finds each copy's pattern among the reserved blocks, last block first.
 * A block whose bad-block marker is set is a retired table block (a failed
 * program can leave a torn pattern there) and is skipped, and so is a copy
 * whose check byte is neither ~version nor 0xFF (a table written by Linux,
 * which has no check byte): a torn program leaves bits set, so a torn
 * version byte and its complement cannot both survive. */
static int nk_bbt_search(struct nk_nand *dev, struct nk_bbt *bbt, uint32_t *marked)
{
    uint32_t page_size = nk_nand_page_size(dev);
    const struct nk_chip_info *chip = &dev->chip.info;
    bbt->info.main_block = -1;
    bbt->info.mirror_block = -1;
    *marked = 0;
    for (uint32_t b = nk_nand_blocks(dev); b-- > nk_bbt_first_reserved(dev);) {
        uint8_t oob[NK_BBT_CHECK_OFFSET + 1];
        uint32_t page = b * nk_nand_pages_per_block(dev);
        int err = nk_nand_read_raw_bytes(dev, page, page_size, oob, sizeof oob);
        if (err)
            return err;
        /* A reserved block with its marker set was retired (or is factory
         * bad): the caller keeps it bad whatever a table says. */
        bool marker_set = (chip->bbm_pages & NK_BBM_FIRST_PAGE) && chip->bbm_offset < sizeof oob &&
                          oob[chip->bbm_offset] != 0xff;
        if (marker_set)
            *marked |= 1u << (b - nk_bbt_first_reserved(dev));
        const uint8_t *mark = oob + NK_BBT_PATTERN_OFFSET;
        uint8_t version = oob[NK_BBT_VERSION_OFFSET], check = oob[NK_BBT_CHECK_OFFSET];
        unsigned expected = 0xffu - version;
        if (check != 0xffu && check != expected)
            continue;
        for (int c = NK_BBT_MAIN; c <= NK_BBT_MIRROR; c++) {
            struct nk_bbt_copy_state copy = nk_bbt_copy(bbt, (enum nk_bbt_copy)c);
            if (*copy.block >= 0 || memcmp(mark, copy.pattern, NK_BBT_PATTERN_LEN) != 0)
                continue;
            /* Retired: the marker in the OOB just read, or on the chip's
             * other marker pages. */
            int bad = marker_set;
            if (!bad && !(chip->bbm_pages & NK_BBM_FIRST_PAGE))
                bad = nk_nand_block_marker_bad(dev, b);
            if (bad < 0)
                return bad;
            if (bad)
                break;
            *copy.block = (int32_t)b;
            *copy.version = version;
        }
    }
    return 0;
}

/* Whether `len` table bytes covering blocks from `first` say what RAM says
 * (reserved counts as good). */
static bool nk_bbt_same(const struct nk_bbt *bbt, const uint8_t *in, uint32_t len, uint32_t first)
{
    for (uint32_t i = 0; i < len * 4u && first + i < bbt->blocks; i++) {
        unsigned code = (in[i >> 2] >> ((i & 3u) * 2u)) & 3u;
        unsigned on_flash = code == 3u   ? NK_BBT_GOOD
                            : code == 0u ? NK_BBT_FACTORY_BAD
                                         : NK_BBT_WORN;
        unsigned in_ram = nk_bbt_get(bbt, first + i);
        if ((in_ram == NK_BBT_RESERVED ? NK_BBT_GOOD : in_ram) != on_flash)
            return false;
    }
    return true;
}

/* Reads one copy into RAM (adding its bad blocks to those there). With
 * `differs`, sets it when the copy does not say what RAM said before.
 * Returns 0 clean, 1 read with bitflips (scrub), -NK_EBADMSG unreadable,
 * or an I/O error. */
static int nk_bbt_read_copy(struct nk_nand *dev, struct nk_bbt *bbt, enum nk_bbt_copy which,
                            bool *differs)
{
    struct nk_bbt_copy_state copy = nk_bbt_copy(bbt, which);
    uint32_t page_size = nk_nand_page_size(dev);
    uint32_t first_page = (uint32_t)*copy.block * nk_nand_pages_per_block(dev);
    uint32_t len = nk_bbt_entry_bytes(bbt->blocks);
    int bitflips = 0;
    for (uint32_t done = 0, p = 0; done < len; done += page_size, p++) {
        int r = nk_nand_read_page_unlocked(dev, first_page + p, bbt->page, NULL, NK_OOB_PLACE);
        if (r < 0)
            return r;
        if (r > 0)
            bitflips = 1;
        uint32_t chunk = len - done < page_size ? len - done : page_size;
        if (differs && !nk_bbt_same(bbt, bbt->page, chunk, done * 4u))
            *differs = true;
        nk_bbt_decode(bbt, bbt->page, chunk, done * 4u);
    }
    return bitflips;
}

/* Retires a table block that failed: RAM and marker, without a new table
 * version (the caller is writing one). */
static void nk_bbt_retire_table_block(struct nk_nand *dev, struct nk_bbt *bbt, uint32_t block)
{
    nk_bbt_set(bbt, block, NK_BBT_WORN);
    nk_nand_block_write_marker(dev, block);
}

/* The block a copy goes to: its current block while usable, else the last
 * usable reserved block not holding the other copy. */
static int32_t nk_bbt_pick_block(const struct nk_nand *dev, struct nk_bbt *bbt,
                                 enum nk_bbt_copy which)
{
    struct nk_bbt_copy_state copy = nk_bbt_copy(bbt, which);
    struct nk_bbt_copy_state other =
        nk_bbt_copy(bbt, which == NK_BBT_MAIN ? NK_BBT_MIRROR : NK_BBT_MAIN);
    if (*copy.block >= 0) {
        unsigned state = nk_bbt_get(bbt, (uint32_t)*copy.block);
        if (state == NK_BBT_GOOD || state == NK_BBT_RESERVED)
            return *copy.block;
    }
    for (uint32_t b = nk_nand_blocks(dev); b-- > nk_bbt_first_reserved(dev);) {
        unsigned state = nk_bbt_get(bbt, b);
        if (state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD)
            continue;
        if ((int32_t)b == *other.block)
            continue;
        return (int32_t)b;
    }
    return -1;
}

/* Writes one copy at its version, relocating over failing blocks. */
static int nk_bbt_write_copy(struct nk_nand *dev, struct nk_bbt *bbt, enum nk_bbt_copy which)
{
    struct nk_bbt_copy_state copy = nk_bbt_copy(bbt, which);
    *copy.written = true;
    if (bbt->dry_run)
        return 0;
    const uint32_t page_size = nk_nand_page_size(dev), oob_size = nk_nand_oob_size(dev);
    const uint32_t len = nk_bbt_entry_bytes(bbt->blocks);
    uint8_t *oob = bbt->page + page_size;
    for (;;) {
        int32_t block = nk_bbt_pick_block(dev, bbt, which);
        if (block < 0) {
            *copy.block = -1;
            return nk_diag_set(&dev->diag, -NK_ENOSPC,
                               "no usable block left among the last %u blocks for the %s "
                               "bad-block table",
                               NK_BBT_MAX_BLOCKS, copy.name);
        }
        *copy.block = block;
        int err = nk_nand_erase_block_unlocked(dev, (uint32_t)block, NK_IO_ALLOW_RESERVED);
        uint32_t first_page = (uint32_t)block * nk_nand_pages_per_block(dev);
        for (uint32_t done = 0, p = 0; !err && done < len; done += page_size, p++) {
            uint32_t chunk = len - done < page_size ? len - done : page_size;
            memset(bbt->page, 0xff, page_size);
            nk_bbt_encode_range(bbt, bbt->page, chunk, done * 4u);
            memset(oob, 0xff, oob_size);
            if (p == 0) {
                memcpy(oob + NK_BBT_PATTERN_OFFSET, copy.pattern, NK_BBT_PATTERN_LEN);
                oob[NK_BBT_VERSION_OFFSET] = *copy.version;
                oob[NK_BBT_CHECK_OFFSET] = (uint8_t)(0xffu - *copy.version);
            }
            err = nk_nand_program_page_unlocked(dev, first_page + p, bbt->page, oob, NK_OOB_PLACE,
                                                NK_IO_ALLOW_RESERVED);
        }
        if (!err)
            return 0;
        if (err != -NK_EIO)
            return err;
        nk_bbt_retire_table_block(dev, bbt, (uint32_t)block);
    }
}

/* ----- attach ------------------------------------------------------------------ */

/* Worn blocks among the table blocks. */
static uint32_t nk_bbt_reserved_worn(const struct nk_nand *dev, const struct nk_bbt *bbt)
{
    uint32_t n = 0;
    for (uint32_t b = nk_bbt_first_reserved(dev); b < bbt->blocks; b++)
        n += nk_bbt_get(bbt, b) == NK_BBT_WORN;
    return n;
}

static int nk_bbt_scan_markers(struct nk_nand *dev, struct nk_bbt *bbt)
{
    bbt->info.scanned = true;
    for (uint32_t b = 0; b < bbt->blocks; b++) {
        int bad = nk_nand_block_marker_bad(dev, b);
        if (bad < 0)
            return bad;
        if (bad)
            nk_bbt_set(bbt, b, NK_BBT_FACTORY_BAD);
    }
    return 0;
}

/* Signed 8-bit distance: > 0 when a is newer than b, across 255 -> 0. */
static int nk_bbt_newer(uint8_t a, uint8_t b)
{
    return (int8_t)(uint8_t)(a - b);
}

/* Reads every copy found into RAM, older first, so that a block either
 * copy marks bad is bad (the newer copy's code wins where both mark it):
 * entries only ever go from good to bad, so the union never loses a bad
 * block, whatever a torn version byte says. Unreadable copies are
 * invalidated. Returns 1 when a copy was read (*scrub set when one needed
 * correction), 0 when none could be, or an error. */
static int nk_bbt_read_tables(struct nk_nand *dev, struct nk_bbt *bbt, bool *scrub, bool *differ)
{
    struct nk_bbt_info *info = &bbt->info;
    enum nk_bbt_copy newer = info->main_block >= 0 && info->mirror_block >= 0 &&
                                     nk_bbt_newer(info->mirror_version, info->main_version) > 0
                                 ? NK_BBT_MIRROR
                                 : NK_BBT_MAIN;
    enum nk_bbt_copy order[2] = {newer == NK_BBT_MAIN ? NK_BBT_MIRROR : NK_BBT_MAIN, newer};
    memset(bbt->entries, 0, nk_bbt_entry_bytes(bbt->blocks));
    int read = 0;
    for (unsigned k = 0; k < 2; k++) {
        struct nk_bbt_copy_state copy = nk_bbt_copy(bbt, order[k]);
        if (*copy.block < 0)
            continue;
        int r = nk_bbt_read_copy(dev, bbt, order[k], read ? differ : NULL);
        if (r == -NK_EBADMSG) {
            *copy.block = -1;
            continue;
        }
        if (r < 0)
            return r;
        *scrub = *scrub || r > 0;
        read = 1;
    }
    return read;
}

int nk_bbt_attach(struct nk_nand *dev, struct nk_bbt *bbt, const struct nk_bbt_config *config)
{
    if (!nk_nand_is_open(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL, "device is not open");
    if (!config || !config->memory || config->memory_size < nk_bbt_memory_size(dev))
        return nk_diag_set(
            &dev->diag, -NK_EINVAL, "bad-block table memory of %zu bytes too small: need %zu",
            config && config->memory ? config->memory_size : 0, nk_bbt_memory_size(dev));
    if (nk_nand_blocks(dev) <= NK_BBT_MAX_BLOCKS)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "%u blocks leave no room for a BBT",
                           nk_nand_blocks(dev));
    uint32_t table_bytes = nk_bbt_entry_bytes(nk_nand_blocks(dev));
    uint32_t table_pages = (table_bytes + nk_nand_page_size(dev) - 1) / nk_nand_page_size(dev);
    if (table_pages > nk_nand_pages_per_block(dev))
        return nk_diag_set(&dev->diag, -NK_EINVAL,
                           "geometry %u+%u x %u pages x %u blocks: the %u-byte bad-block table "
                           "needs %u pages, a block has %u page%s of %u bytes (tables never span "
                           "blocks)",
                           nk_nand_page_size(dev), nk_nand_oob_size(dev),
                           nk_nand_pages_per_block(dev), nk_nand_blocks(dev), table_bytes,
                           table_pages, nk_nand_pages_per_block(dev),
                           nk_nand_pages_per_block(dev) == 1 ? "" : "s", nk_nand_page_size(dev));
    memset(bbt, 0, sizeof *bbt);
    size_t entry_bytes = (nk_bbt_entry_bytes(nk_nand_blocks(dev)) + 3u) & ~(size_t)3u;
    bbt->entries = config->memory;
    bbt->page = (uint8_t *)config->memory + entry_bytes;
    bbt->blocks = nk_nand_blocks(dev);
    bbt->dry_run = config->dry_run || dev->read_only;
    memset(bbt->entries, 0, entry_bytes);
    dev->bbt = NULL;

    uint32_t marked;
    int err = nk_bbt_search(dev, bbt, &marked);
    if (err)
        return err;
    struct nk_bbt_info *info = &bbt->info;
    bool any_copy = info->main_block >= 0 || info->mirror_block >= 0;
    uint8_t newest = info->main_block < 0     ? info->mirror_version
                     : info->mirror_block < 0 ? info->main_version
                     : nk_bbt_newer(info->mirror_version, info->main_version) > 0
                         ? info->mirror_version
                         : info->main_version;
    bool scrub = false, differ = false;
    int found = 0;
    if (!config->force_scan) {
        found = nk_bbt_read_tables(dev, bbt, &scrub, &differ);
        if (found < 0)
            return found;
    }

    bool write_main, write_mirror;
    if (!found) {
        /* No usable table: the factory markers are the only truth left. A new
         * table outranks any stale copy still on flash. */
        err = nk_bbt_scan_markers(dev, bbt);
        if (err)
            return err;
        info->main_version = info->mirror_version = any_copy ? (uint8_t)(newest + 1) : 1;
        write_main = write_mirror = true;
    } else {
        /* A table block retired while a copy was written at an unchanged
         * version (the other copy then missed it) still carries its marker:
         * keep it bad, and write both copies anew. */
        for (uint32_t k = 0; k < NK_BBT_MAX_BLOCKS; k++) {
            uint32_t b = nk_bbt_first_reserved(dev) + k;
            if ((marked >> k & 1u) && b < bbt->blocks && nk_bbt_get(bbt, b) == NK_BBT_GOOD) {
                nk_bbt_set(bbt, b, NK_BBT_WORN);
                differ = true;
            }
        }
        /* A copy read alone is the union; two read copies are when they
         * said the same. */
        bool main_same = info->main_block >= 0 && !differ;
        bool mirror_same = info->mirror_block >= 0 && !differ;
        uint8_t version;
        if (main_same && mirror_same) {
            /* Same contents: bring an older copy up to the newer version. */
            int diff = nk_bbt_newer(info->main_version, info->mirror_version);
            version = diff >= 0 ? info->main_version : info->mirror_version;
            write_main = diff < 0 || scrub;
            write_mirror = diff > 0 || scrub;
        } else if ((main_same && info->mirror_block < 0 && newest == info->main_version) ||
                   (mirror_same && info->main_block < 0 && newest == info->mirror_version)) {
            /* One good copy, the other missing: rewrite the missing one. */
            version = newest;
            write_main = info->main_block < 0 || scrub;
            write_mirror = info->mirror_block < 0 || scrub;
        } else {
            /* The copies disagree (or one was torn, unreadable or stale): the
             * union read above becomes a new version of both, so that no two
             * copies ever share a version with different contents. */
            version = (uint8_t)(newest + 1);
            write_main = write_mirror = true;
        }
        info->main_version = info->mirror_version = version;
        info->scrubbed = scrub;
    }

    /* The table's blocks are reserved before writing so that the device
     * refuses ordinary programs there from now on. */
    for (uint32_t b = nk_bbt_first_reserved(dev); b < bbt->blocks; b++) {
        if (nk_bbt_get(bbt, b) == NK_BBT_GOOD)
            nk_bbt_set(bbt, b, NK_BBT_RESERVED);
    }
    /* A table block retired while writing changes the table: a copy
     * written before (or not rewritten) would then share its version with
     * different contents, so both go out again at the next version. At
     * most NK_BBT_MAX_BLOCKS retirements can happen. */
    for (unsigned round = 0; round <= NK_BBT_MAX_BLOCKS && (write_main || write_mirror); round++) {
        uint32_t worn_before = nk_bbt_reserved_worn(dev, bbt);
        if (write_main)
            err = nk_bbt_write_copy(dev, bbt, NK_BBT_MAIN);
        if (!err && write_mirror)
            err = nk_bbt_write_copy(dev, bbt, NK_BBT_MIRROR);
        if (err)
            return err;
        if (bbt->dry_run || nk_bbt_reserved_worn(dev, bbt) == worn_before)
            break;
        info->main_version = info->mirror_version = (uint8_t)(info->main_version + 1);
        write_main = write_mirror = true;
    }

    for (uint32_t b = 0; b < bbt->blocks; b++) {
        unsigned state = nk_bbt_get(bbt, b);
        info->factory_bad += state == NK_BBT_FACTORY_BAD;
        info->worn += state == NK_BBT_WORN;
    }
    dev->bbt = bbt;
    return 0;
}

void nk_bbt_detach(struct nk_nand *dev)
{
    dev->bbt = NULL;
}

int nk_bbt_mark_worn_unlocked(struct nk_nand *dev, uint32_t block)
{
    struct nk_bbt *bbt = dev->bbt;
    if (!bbt)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "no bad-block table attached");
    if (block >= bbt->blocks)
        return nk_diag_set(&dev->diag, -NK_EINVAL, "block %u out of range: device has %u blocks",
                           block, bbt->blocks);
    unsigned state = nk_bbt_get(bbt, block);
    if (state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD)
        return 0;
    nk_bbt_set(bbt, block, NK_BBT_WORN);
    bbt->info.worn++;
    if (bbt->dry_run)
        return 0;
    nk_nand_block_write_marker(dev, block);

    /* A table block going bad only needs the tables moved; any other block
     * needs a new version of both. */
    bbt->info.main_version++;
    bbt->info.mirror_version++;
    if (bbt->info.main_block == (int32_t)block)
        bbt->info.main_block = -1;
    if (bbt->info.mirror_block == (int32_t)block)
        bbt->info.mirror_block = -1;
    int err = 0, err2 = 0;
    for (unsigned round = 0; round <= NK_BBT_MAX_BLOCKS; round++) {
        uint32_t worn_before = nk_bbt_reserved_worn(dev, bbt);
        err = nk_bbt_write_copy(dev, bbt, NK_BBT_MAIN);
        err2 = nk_bbt_write_copy(dev, bbt, NK_BBT_MIRROR);
        if (err || err2 || nk_bbt_reserved_worn(dev, bbt) == worn_before)
            break;
        /* A table block retired meanwhile: both copies again, one newer. */
        bbt->info.main_version++;
        bbt->info.mirror_version++;
    }
    return err ? err : err2;
}

int nk_bbt_mark_worn(struct nk_nand *dev, uint32_t block)
{
    if (dev->lock.lock)
        dev->lock.lock(dev->lock.ctx);
    int err = nk_bbt_mark_worn_unlocked(dev, block);
    if (dev->lock.unlock)
        dev->lock.unlock(dev->lock.ctx);
    return err;
}
