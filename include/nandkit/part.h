/* SPDX-License-Identifier: MIT */
/*
 * Partitions: named block ranges of a device, addressed relative to their
 * first block. Every call checks its bounds against the partition and
 * forwards to the device layer (ECC, bad-block checks and statistics
 * included). The file system runs on a partition.
 *
 * A partition sits on its chips: one device (nk_part_init()) or several of
 * identical geometry as one address space (nk_part_init_chips()), striped
 * (a block spans every chip) or concatenated; every call goes to the chip
 * that holds the page. Above the device layer, the partition is the one
 * page and block interface to several chips. Geometry accessors answer for
 * the partition's (logical) space; the chips share page size, OOB layout
 * and ECC.
 */
#ifndef NANDKIT_PART_H
#define NANDKIT_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "nandkit/nand.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chips a partition may span. */
#define NK_PART_CHIPS_MAX 8

/* How several chips combine (docs/chip.md, "Several chips"). */
enum nk_part_mapping {
    NK_PART_CONCAT, /* chip 1's blocks follow chip 0's */
    NK_PART_STRIPE, /* logical block b is block b of every chip, pages alternating */
};

/* The chips under a partition and their combined geometry: filled by
 * nk_part_init*() and kept by the partition calls; callers only read it
 * (through the accessors below where there is one). */
struct nk_part_chips {
    struct nk_nand *dev[NK_PART_CHIPS_MAX]; /* the caller's open devices */
    uint32_t pages_per_block;               /* logical */
    uint32_t blocks;                        /* logical */
    unsigned last_bitflips;                 /* of the partition's last read */
    uint8_t count;
    uint8_t mapping; /* enum nk_part_mapping */
    bool overlap;    /* multi-page transfers keep the chips busy at once */
};

struct nk_part {
    struct nk_nand *dev; /* the first (or only) chip: its diag has the partition's messages */
    struct nk_part_chips chips;
    const char *name;     /* not copied; may be NULL */
    uint32_t first_block; /* logical */
    uint32_t block_count;
    bool read_only;
    /* The page nk_part_read_for_move() left in its chip's page register
     * (valid until any other call of this partition). */
    bool move_loaded;
    bool move_corrected;
    uint32_t move_page;
};

/* Flags of nk_part_init(). */
#define NK_PART_READ_ONLY 0x1u
#define NK_PART_ALLOW_BBT_AREA 0x2u /* may cover the blocks reserved for the BBT */

/* Describes `block_count` blocks from `first_block` of `dev` (block_count 0
 * = to the end of the device, BBT area excluded). Returns 0 or -NK_EINVAL
 * (dev->diag names the range) when the range leaves the device or overlaps
 * the BBT area without NK_PART_ALLOW_BBT_AREA. */
int nk_part_init(struct nk_part *part, struct nk_nand *dev, const char *name, uint32_t first_block,
                 uint32_t block_count, unsigned flags);

/* The same over `count` (1..NK_PART_CHIPS_MAX) open devices of identical
 * geometry and OOB layout, one per chip select, combined by `mapping`:
 * blocks are then logical blocks (block_count 0 = to the end, the chips'
 * BBT area excluded). The devices must outlive the partition and must not
 * be used directly while it is in use; the list is copied. Returns 0 or
 * -NK_EINVAL (the first chip's diag names the mismatch or the range; no
 * message without a first chip). Not
 * in NANDKIT_MULTIPAGE=OFF builds (partitions on one chip only). */
int nk_part_init_chips(struct nk_part *part, struct nk_nand *const *chips, unsigned count,
                       enum nk_part_mapping mapping, const char *name, uint32_t first_block,
                       uint32_t block_count, unsigned flags);

/* The partition's last message (a range or mode error of its own, or the
 * failing chip's): the first chip's diag. */
static inline const struct nk_diag *nk_part_diag(const struct nk_part *part)
{
    return &part->dev->diag;
}

/* Checks that `other` and `part` do not overlap: 0 or -NK_EINVAL. Partitions
 * on the same chips in the same mapping overlap when their block ranges do;
 * on chips they share under different mappings, always. */
int nk_part_check_overlap(const struct nk_part *part, const struct nk_part *other);

/* Geometry of the partition's chips: data bytes per page, pages per
 * (logical) block. */
static inline uint32_t nk_part_page_size(const struct nk_part *part)
{
    return nk_nand_page_size(part->dev);
}
static inline uint32_t nk_part_pages_per_block(const struct nk_part *part)
{
    return part->chips.pages_per_block;
}

/* Pages in the partition. */
static inline uint32_t nk_part_pages(const struct nk_part *part)
{
    return part->block_count * nk_part_pages_per_block(part);
}

/* User OOB bytes per page (what an NK_OOB_AUTO read or program moves). */
static inline uint32_t nk_part_free_oob_bytes(const struct nk_part *part)
{
    return nk_nand_free_oob_bytes(part->dev);
}

/* Where the device's ECC code lives (NK_ECC_PLACEMENT_NONE: no data ECC),
 * and the engine's name for messages. */
static inline enum nk_ecc_placement nk_part_ecc_placement(const struct nk_part *part)
{
    return nk_nand_ecc(part->dev)->placement;
}
static inline const char *nk_part_ecc_name(const struct nk_part *part)
{
    return nk_nand_ecc(part->dev)->name;
}

/* The device's OOB layout and chip description (see nk_nand_oob_layout()
 * and nk_nand_chip_info()): for checking that a format fits the device. */
static inline const struct nk_oob_layout *nk_part_oob_layout(const struct nk_part *part)
{
    return nk_nand_oob_layout(part->dev);
}
static inline const struct nk_chip_info *nk_part_chip_info(const struct nk_part *part)
{
    return nk_nand_chip_info(part->dev);
}

/* Whether program and erase are refused (the partition or its device is
 * read-only). */
static inline bool nk_part_is_read_only(const struct nk_part *part)
{
    if (part->read_only)
        return true;
    for (unsigned i = 0; i < part->chips.count; i++)
        if (nk_nand_is_read_only(part->chips.dev[i]))
            return true;
    return false;
}

/* Whether bad blocks are known without reading OOB markers (a bad-block
 * table or an external authority behind the device). */
static inline bool nk_part_tracks_bad_blocks(const struct nk_part *part)
{
    for (unsigned i = 0; i < part->chips.count; i++)
        if (!nk_nand_tracks_bad_blocks(part->chips.dev[i]))
            return false;
    return part->chips.count > 0;
}

/* Bitflips of the partition's last read (on several chips the largest of
 * any page it read), and whether a read `result` reached
 * the scrub threshold (see nk_nand_scrub_advised()). */
static inline unsigned nk_part_last_bitflips(const struct nk_part *part)
{
    return part->chips.last_bitflips;
}
static inline bool nk_part_scrub_advised(const struct nk_part *part, int result)
{
    return nk_nand_scrub_advised(part->dev, result);
}

/* As the nk_nand_* calls, with `page`/`block` relative to the partition;
 * -NK_EINVAL when out of range, -NK_EROFS on a read-only partition. */
int nk_part_read_page(struct nk_part *part, uint32_t page, uint8_t *data, uint8_t *oob,
                      enum nk_oob_mode mode);
int nk_part_program_page(struct nk_part *part, uint32_t page, const uint8_t *data,
                         const uint8_t *oob, enum nk_oob_mode mode);
int nk_part_erase_block(struct nk_part *part, uint32_t block);
int nk_part_block_is_bad(struct nk_part *part, uint32_t block);
int nk_part_block_mark_bad(struct nk_part *part, uint32_t block);

/* Multi-page paths (see nk_nand_read_pages() and nk_nand_program_pages()):
 * `count` consecutive pages from partition page `first_page`, the whole
 * range checked against the partition before anything is sent. Reads
 * return the first hard error, else the worst bitflip result (the
 * corrected bitflips, >= 0; nk_part_scrub_advised() says whether it reached
 * the scrub threshold); a program returns 0 or the first error. A power cut during a
 * multi-page program may lose the two most recently sent pages; after a 0
 * return every page is programmed. */
int nk_part_read_pages(struct nk_part *part, uint32_t first_page, uint32_t count, uint8_t *data,
                       uint8_t *oob, enum nk_oob_mode mode);
int nk_part_program_pages(struct nk_part *part, uint32_t first_page, uint32_t count,
                          const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode);

/* Moves partition page `from` to `to` as nk_nand_move_page() does
 * (copy-back after an ECC-checked read-out when the chip allows it). */
int nk_part_move_page(struct nk_part *part, uint32_t from, uint32_t to);

/* True when nk_part_move_page(part, from, to) would use copy-back (false
 * when either page is out of range). */
bool nk_part_can_copyback(const struct nk_part *part, uint32_t from, uint32_t to);

/* A move that rewrites the OOB (new tags), in two calls:
 * nk_part_read_for_move() reads page `page` as nk_part_read_page() does
 * (same returns) but, when the chip has copy-back, by 00h..35h, leaving the
 * page in the chip's page register. nk_part_program_moved() then programs
 * `data` + `oob` (the page read, unchanged, with the new OOB bytes) to
 * page `to`: by copy-back program (85h, column change to the OOB, new OOB
 * bytes, 10h; the data as well when the read corrected bitflips) when
 * `from` is still loaded and the pair shares a chip and plane (and parity
 * where the chip asks), otherwise by an ordinary program. Returns as
 * nk_part_program_page(). Any other call of the partition in between
 * (erase, program, read) ends the load; calls that reach the chip through
 * another partition or the device in between are the caller's error. */
int nk_part_read_for_move(struct nk_part *part, uint32_t page, uint8_t *data, uint8_t *oob,
                          enum nk_oob_mode mode);
int nk_part_program_moved(struct nk_part *part, uint32_t from, uint32_t to, const uint8_t *data,
                          const uint8_t *oob, enum nk_oob_mode mode);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_PART_H */
