/* SPDX-License-Identifier: MIT */
/*
 * Device layer: one NAND chip with its ECC engine, OOB layout, bad-block
 * state, locking and statistics, addressed by page and block number.
 *
 * Reads follow Linux's bitflip contract: a successful read returns the
 * largest number of bitflips corrected in any ECC step of the page (>= 0,
 * never negative); nk_nand_scrub_advised() tells whether that number reached
 * the device's threshold (the data is good; rewrite it elsewhere soon).
 * -NK_EBADMSG means a step was uncorrectable (the buffer holds the data as
 * read and must not be trusted). nk_nand_last_bitflips() gives the count in
 * every case. (Linux's mtd_read turns the threshold case into -EUCLEAN; that
 * dialect is not spoken here.)
 *
 * The device never allocates: the caller supplies a workspace of
 * nk_nand_workspace_size() bytes. No call blocks except on the port.
 */
#ifndef NANDKIT_NAND_H
#define NANDKIT_NAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/chip.h"
#include "nandkit/ctrl.h"
#include "nandkit/diag.h"
#include "nandkit/ecc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nk_bbt;
struct nk_nand_scratch; /* the workspace as the device lays it out (never defined) */

/* How a page operation treats the OOB (and ECC). */
enum nk_oob_mode {
    NK_OOB_PLACE, /* ECC applied; `oob` is the whole OOB as on flash (ECC bytes
                     are filled in on program and reported on read) */
    NK_OOB_AUTO,  /* ECC applied; `oob` holds only the layout's free bytes, packed */
    NK_OOB_RAW,   /* no ECC; data and the whole OOB exactly as on flash */
};

/* Counters kept by the device (monotonic; reset with nk_nand_stats_reset). */
struct nk_nand_stats {
    uint64_t page_reads;         /* read operations that moved data (with or without OOB) */
    uint64_t oob_reads;          /* OOB-only read operations */
    uint64_t page_programs;      /* program operations (any mode) */
    uint64_t block_erases;       /* erase operations */
    uint64_t bytes_read;         /* bytes moved off the chip */
    uint64_t bytes_written;      /* bytes moved onto the chip */
    uint64_t ecc_corrected_bits; /* bitflips corrected (erased steps included) */
    uint64_t ecc_corrected_steps;
    uint64_t ecc_failed_steps; /* uncorrectable steps */
    uint64_t ecc_failed_pages; /* reads that returned -NK_EBADMSG */
    uint64_t scrub_reports;    /* reads whose bitflips reached the scrub threshold */
    uint64_t program_failures; /* FAIL status on program */
    uint64_t erase_failures;   /* FAIL status on erase */
    uint64_t refused_bad;      /* operations refused because the block is bad */
    uint64_t busy_ns;          /* time spent inside device calls (needs a clock) */
};

/* An authority on bad blocks outside nandkit, e.g. the Linux kernel's table
 * behind /dev/mtdN. When given, it answers bad-block queries, is asked
 * before every erase, and records retirements (instead of markers and
 * nandkit's own table). */
struct nk_badblock_ops {
    int (*is_bad)(void *ctx, uint32_t block);   /* 1 bad, 0 good, or -NK_E* */
    int (*mark_bad)(void *ctx, uint32_t block); /* 0 or -NK_E* */
    void *ctx;
};

/* How to open a device. Zero every field you do not set: a config holding
 * only `ctrl` and a workspace identifies the chip, picks the ECC its
 * requirement asks for, and uses Linux's OOB layout for it. */
struct nk_nand_config {
    const struct nk_ctrl *ctrl; /* required */
    unsigned chip_select;
    const struct nk_chip_info *chip; /* NULL: identify through the port */
    /* NULL: chosen from the chip's requirement (nk_nand_default_ecc_name()):
     * software Hamming when it is enough, else the chip's on-die engine,
     * else software BCH with its tables in the workspace. Copied; its ctx
     * must outlive the device. "No ECC" is nk_ecc_none_init()'s engine. */
    const struct nk_ecc_engine *ecc;
    const struct nk_oob_layout *layout; /* NULL: Linux default for geometry and engine */
    /* At least nk_nand_workspace_size() bytes (explicit `ecc`) or
     * nk_nand_default_workspace_size() (ECC chosen here), at any address
     * (the device aligns what it places there: a uint8_t array will do; the
     * Cortex-M3 target test hands it an odd address and traps every
     * unaligned access); NK_NAND_WORKSPACE_SIZE() sizes one before the chip
     * is known. */
    void *workspace;
    size_t workspace_size;
    /* Accept an `ecc` weaker than the chip's requirement (the "none" engine
     * is always accepted: a deliberate choice). */
    bool force_ecc;
    /* Attach the on-flash bad-block table (nandkit/bbt.h), written from the
     * factory markers when there is none (with read_only: scanned into RAM
     * only). Its memory follows the device's in the workspace: add
     * nk_nand_bbt_workspace_size(). The last NK_BBT_MAX_BLOCKS blocks are
     * then reserved for it (partitions leave them out). */
    bool bbt;
    const struct nk_clock *clock;            /* optional: busy-time statistics */
    const struct nk_lock *lock;              /* optional: taken around every public call */
    const struct nk_badblock_ops *badblocks; /* optional: external bad-block authority */
    unsigned bitflip_threshold;              /* 0: ceil(3/4 * strength) (1 for strength 1) */
    bool read_only;                          /* refuse program/erase with -NK_EROFS */
    bool skip_reset;                         /* with `chip` given: do not RESET at open */
};

/* An open device. Fields are read-only for users; use the functions. */
struct nk_nand {
    struct nk_chip chip;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout layout;
    /* Private to the device layer: its buffers in the caller's workspace
     * (NULL while closed). */
    struct nk_nand_scratch *scratch;
    struct nk_clock clock;
    struct nk_lock lock;
    unsigned ecc_steps;      /* steps per page */
    unsigned ecc_total;      /* code bytes per page */
    unsigned free_bytes;     /* user OOB bytes per page (layout) */
    uint16_t ecc_span_start; /* OOB bytes holding all code bytes: read alone on */
    uint16_t ecc_span_len;   /* data-only reads (0 = read the whole OOB) */
    unsigned bitflip_threshold;
    unsigned last_bitflips; /* of the last read */
    bool read_only;
    struct nk_bbt *bbt;               /* bad-block table, or NULL: markers are read */
    struct nk_badblock_ops badblocks; /* external authority (is_bad NULL: none) */
    struct nk_nand_stats stats;
    struct nk_diag diag; /* last failure reason */
    struct nk_bch bch;   /* the codec when the device chose BCH itself */
};

/* Workspace bytes for pages of `page_size` + `oob_size` bytes with an ECC
 * engine the caller supplies (or Hamming chosen by the device): a constant
 * expression for static buffers sized before the chip is identified. */
#define NK_NAND_WORKSPACE_SIZE(page_size, oob_size) ((size_t)(page_size) + 3u * (size_t)(oob_size))

/* Workspace bytes a device on `info` needs with a caller-supplied engine. */
size_t nk_nand_workspace_size(const struct nk_chip_info *info);

/* Workspace bytes a device on `info` needs when nk_nand_open() chooses the
 * ECC (config.ecc NULL): nk_nand_workspace_size() plus the chosen BCH
 * engine's tables, if any. */
size_t nk_nand_default_workspace_size(const struct nk_chip_info *info);

/* Workspace bytes config.bbt adds for a chip like `info` (the table, its
 * page buffer and alignment slack). */
size_t nk_nand_bbt_workspace_size(const struct nk_chip_info *info);

/* Name of the engine nk_nand_open() picks for `info` when none is given
 * ("hamming256", "on-die", "bch4-512", ...), in `buf` (16 bytes is enough).
 * Not in a build with both NK_NO_DIAG_TEXT and NK_NO_FS (docs/porting.md). */
const char *nk_nand_default_ecc_name(const struct nk_chip_info *info, char *buf, size_t size);

/* Whether `ecc` is at least as strong as `info` requires (ONFI, JEDEC or
 * the chip table): it corrects as many bits per step as required and as
 * many per page. True when the chip states no requirement. */
bool nk_nand_ecc_meets_requirement(const struct nk_ecc_engine *ecc,
                                   const struct nk_chip_info *info);

/* Opens `dev`: identifies (or attaches) the chip, picks the ECC engine
 * when none is given, checks the engine against the chip's requirement
 * (unless config->force_ecc) and engine and layout against the geometry.
 * Returns 0, -NK_EINVAL (dev->diag names the problem: no port, workspace
 * too small, ECC weaker than the chip requires - naming both -, ECC does
 * not fit the OOB...), -NK_ENODEV (unknown chip) or a port error. */
int nk_nand_open(struct nk_nand *dev, const struct nk_nand_config *config);

/* Releases nothing (no allocation) but marks the device closed. */
void nk_nand_close(struct nk_nand *dev);

/* Geometry shortcuts. */
static inline uint32_t nk_nand_page_size(const struct nk_nand *dev)
{
    return dev->chip.info.page_size;
}
static inline uint32_t nk_nand_oob_size(const struct nk_nand *dev)
{
    return dev->chip.info.oob_size;
}
static inline uint32_t nk_nand_pages_per_block(const struct nk_nand *dev)
{
    return dev->chip.info.pages_per_block;
}
static inline uint32_t nk_nand_blocks(const struct nk_nand *dev)
{
    return dev->chip.info.blocks;
}
static inline uint32_t nk_nand_pages(const struct nk_nand *dev)
{
    return dev->chip.info.blocks * dev->chip.info.pages_per_block;
}

/* Reads page `page`. `data` (page_size bytes) and/or `oob` may be NULL; with
 * data NULL only the OOB is transferred and no ECC check is possible (the
 * free bytes are not covered by the code in the Linux layouts). In
 * NK_OOB_AUTO mode `oob` receives dev->free_bytes bytes; otherwise
 * oob_size bytes. Returns per the bitflip contract above, -NK_EINVAL for a
 * bad argument, or a port error. */
int nk_nand_read_page(struct nk_nand *dev, uint32_t page, uint8_t *data, uint8_t *oob,
                      enum nk_oob_mode mode);

/* Reads `len` bytes from column `column` of page `page`, raw (no ECC): for
 * quick looks such as a bad-block marker or tags in a known place. */
int nk_nand_read_raw_bytes(struct nk_nand *dev, uint32_t page, uint32_t column, uint8_t *buf,
                           uint32_t len);

/* Programs page `page`. With `data` and an ECC mode, the code is computed
 * and stored at the layout's ECC positions (over any ECC bytes in `oob`).
 * `oob` NULL programs 0xFF there (nothing). `data` NULL programs only the
 * OOB (no code is written, as Linux does). Returns 0, -NK_EIO (FAIL status;
 * the caller decides about the block), -NK_EROFS, -NK_EINVAL, or a port
 * error. */
int nk_nand_program_page(struct nk_nand *dev, uint32_t page, const uint8_t *data,
                         const uint8_t *oob, enum nk_oob_mode mode);

/* Erases block `block`. Returns 0, -NK_EIO on FAIL status (the block is then
 * marked bad when a BBT is attached), -NK_EROFS, -NK_EINVAL. */
int nk_nand_erase_block(struct nk_nand *dev, uint32_t block);

/* Multi-page paths: `count` consecutive pages; `data` and `oob` advance by
 * one page (data) and one OOB (mode-dependent size) each. They use the
 * chip's read cache (31h/3Fh) and cache program (15h) within each block
 * when the chip has them and the ECC is software or none, else one page at a
 * time; the contracts are the single-page ones. A read stops at the first
 * hard error and returns it, otherwise the worst bitflip result; a program
 * stops at the first error. A power cut during a cache program may lose
 * the two most recently sent pages (the one in the array is torn, the one
 * in the cache register never starts); earlier pages are programmed. */
int nk_nand_read_pages(struct nk_nand *dev, uint32_t first_page, uint32_t count, uint8_t *data,
                       uint8_t *oob, enum nk_oob_mode mode);
int nk_nand_program_pages(struct nk_nand *dev, uint32_t first_page, uint32_t count,
                          const uint8_t *data, const uint8_t *oob, enum nk_oob_mode mode);

/* Moves page `from` to page `to` for garbage collection: by copy-back when
 * the chip has it and both pages share a plane (and parity where asked),
 * after reading the page out so the ECC checks it (a corrected page is sent
 * back corrected); otherwise by read + program. Data and OOB move as they
 * are (ECC recomputed when corrected). Returns the source read's bitflip
 * result (the bitflips, >= 0) when the copy landed; -NK_EBADMSG (nothing
 * programmed), -NK_EIO (FAIL on the destination), -NK_EINVAL/-NK_EROFS, or
 * a port error. */
int nk_nand_move_page(struct nk_nand *dev, uint32_t from, uint32_t to);

/* True when nk_nand_move_page(from, to) would use copy-back. */
bool nk_nand_can_copyback(const struct nk_nand *dev, uint32_t from, uint32_t to);

/* Copy-back with new OOB bytes, for moves that rewrite the spare area (a
 * file system's tags carry the destination block's sequence number), in
 * two calls with nothing sent to the chip between them:
 * nk_nand_copyback_load() reads page `from` for copy-back (00h..35h) and
 * reads it out through the ECC into `data`/`oob` (as nk_nand_read_page(),
 * same returns; -NK_ENOTSUP when !nk_nand_has_copyback()).
 * nk_nand_copyback_program() then programs the loaded page to `to`
 * (85h + address, 10h) after a column change to the OOB with the whole new
 * OOB built from `data` and `oob` as nk_nand_program_page() builds it (new
 * free bytes, ECC bytes recomputed from the data); with `resend_data` the
 * data goes too (a corrected read-out). 0, -NK_EIO (FAIL), -NK_EINVAL when
 * the pair breaks the chip's plane or parity rule (nk_nand_can_copyback()),
 * -NK_EROFS, or a port error. */
bool nk_nand_has_copyback(const struct nk_nand *dev);
int nk_nand_copyback_load(struct nk_nand *dev, uint32_t from, uint8_t *data, uint8_t *oob,
                          enum nk_oob_mode mode);
int nk_nand_copyback_program(struct nk_nand *dev, uint32_t from, uint32_t to, const uint8_t *data,
                             const uint8_t *oob, enum nk_oob_mode mode, bool resend_data);

/* Bitflips of the last read (largest in any step), whatever it returned. */
static inline unsigned nk_nand_last_bitflips(const struct nk_nand *dev)
{
    return dev->last_bitflips;
}

/* Whether `result`, as returned by a read, is a success whose bitflips
 * reached the scrub threshold: the data is good, rewrite it elsewhere soon.
 * False for clean reads, reads below the threshold and every error. */
static inline bool nk_nand_scrub_advised(const struct nk_nand *dev, int result)
{
    return result > 0 && dev->bitflip_threshold != 0 && (unsigned)result >= dev->bitflip_threshold;
}

/* User (free) OOB bytes per page in the device's OOB layout: what an
 * NK_OOB_AUTO read or program moves. */
static inline uint32_t nk_nand_free_oob_bytes(const struct nk_nand *dev)
{
    return dev->free_bytes;
}

/* The ECC engine the device was opened with (placement NONE: no ECC). */
static inline const struct nk_ecc_engine *nk_nand_ecc(const struct nk_nand *dev)
{
    return &dev->ecc;
}

/* The device's OOB layout: which spare bytes hold the ECC code and which
 * are free (an NK_OOB_AUTO buffer packs the free ones in order). */
static inline const struct nk_oob_layout *nk_nand_oob_layout(const struct nk_nand *dev)
{
    return &dev->layout;
}

/* The chip's description (geometry, marker rule, timing, ECC requirement). */
static inline const struct nk_chip_info *nk_nand_chip_info(const struct nk_nand *dev)
{
    return &dev->chip.info;
}

/* Whether program and erase are refused with -NK_EROFS. */
static inline bool nk_nand_is_read_only(const struct nk_nand *dev)
{
    return dev->read_only;
}

/* Whether bad blocks are known without reading OOB markers: a bad-block
 * table is attached or an external authority was configured. */
static inline bool nk_nand_tracks_bad_blocks(const struct nk_nand *dev)
{
    return dev->bbt != NULL || dev->badblocks.is_bad != NULL;
}

/* Sets the scrub threshold (1..strength); 0 restores the default. */
int nk_nand_set_bitflip_threshold(struct nk_nand *dev, unsigned threshold);

/* Chooses the port's data-transfer loop. -NK_ENOTSUP when the port has no
 * choice. */
int nk_nand_set_data_loop(struct nk_nand *dev, enum nk_data_loop loop);

/* Block health. Returns 1 when bad, 0 when good, or a negative error. Asks
 * the external authority when one was configured, else the BBT when
 * attached, else reads the factory markers. */
int nk_nand_block_is_bad(struct nk_nand *dev, uint32_t block);

/* Marks `block` bad (the external authority when configured; else the BBT
 * when attached, and the marker in OOB). Marking an already bad block is a
 * no-op returning 0. */
int nk_nand_block_mark_bad(struct nk_nand *dev, uint32_t block);

/* Statistics. */
void nk_nand_stats_get(const struct nk_nand *dev, struct nk_nand_stats *stats);
void nk_nand_stats_reset(struct nk_nand *dev);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_NAND_H */
