/* SPDX-License-Identifier: MIT */
/*
 * Chip layer: identification and the command sequences of raw NAND.
 *
 * A `struct nk_chip` binds a controller port to one chip select and the
 * `struct nk_chip_info` that describes the part (geometry, addressing,
 * datasheet timings). The info comes from identification (READ ID, ONFI or
 * JEDEC parameter page, the legacy ID table) or is given by the caller.
 * Every function here issues operations through the port and nothing else.
 */
#ifndef NANDKIT_CHIP_H
#define NANDKIT_CHIP_H

#include <stdbool.h>
#include <stdint.h>

#include "nandkit/ctrl.h"
#include "nandkit/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Command opcodes (ONFI / common legacy set). */
enum nk_nand_cmd {
    NK_CMD_READ0 = 0x00,        /* read (1st cycle); small page: first half */
    NK_CMD_READ1 = 0x01,        /* small page: second half pointer */
    NK_CMD_RNDOUT = 0x05,       /* change read column (1st cycle) */
    NK_CMD_PAGEPROG = 0x10,     /* program confirm */
    NK_CMD_CACHEDPROG = 0x15,   /* cache program confirm */
    NK_CMD_READOOB = 0x50,      /* small page: spare area pointer */
    NK_CMD_ERASE1 = 0x60,       /* block erase setup */
    NK_CMD_STATUS = 0x70,       /* read status */
    NK_CMD_SEQIN = 0x80,        /* program setup (serial data in) */
    NK_CMD_RNDIN = 0x85,        /* change write column */
    NK_CMD_READID = 0x90,       /* read ID */
    NK_CMD_ERASE2 = 0xd0,       /* erase confirm */
    NK_CMD_PARAM = 0xec,        /* read parameter page */
    NK_CMD_GET_FEATURES = 0xee, /* get features */
    NK_CMD_SET_FEATURES = 0xef, /* set features */
    NK_CMD_RESET = 0xff,        /* reset */
    NK_CMD_READSTART = 0x30,    /* read confirm (large page) */
    NK_CMD_RNDOUTSTART = 0xe0,  /* change read column confirm */
    NK_CMD_READCACHESEQ = 0x31, /* read cache sequential: next page to the cache register */
    NK_CMD_READCACHEEND = 0x3f, /* read cache end: last page to the cache register */
    NK_CMD_COPYBACKREAD = 0x35, /* read for copy-back confirm */
};

/* Status register bits. */
#define NK_STATUS_FAIL 0x01u        /* last program/erase failed (on-die ECC: uncorrectable) */
#define NK_STATUS_FAIL_N1 0x02u     /* previous (cache) operation failed */
#define NK_STATUS_REWRITE 0x08u     /* on-die ECC (Micron): rewrite recommended */
#define NK_STATUS_ARRAY_READY 0x20u /* array idle (cache operations: I/O5, "true ready") */
#define NK_STATUS_READY 0x40u       /* array ready (not busy) */
#define NK_STATUS_WP_N 0x80u        /* not write protected */

/* Datasheet timings, in nanoseconds. The array times are the values the
 * benchmarker uses for the datasheet limit (typical, as in the eCos
 * library's benchmark); *_max_ns bound the WAIT_READY timeouts. 0 = unknown. */
struct nk_chip_timing {
    uint32_t tR_ns;     /* array to data register */
    uint32_t tPROG_ns;  /* page program */
    uint32_t tBERS_ns;  /* block erase */
    uint32_t tCBSY_ns;  /* cache program busy */
    uint32_t tRST_ns;   /* reset */
    uint32_t tRC_ns;    /* read cycle */
    uint32_t tWC_ns;    /* write cycle */
    uint32_t tADL_ns;   /* address to data loading */
    uint32_t tWB_ns;    /* WE high to busy */
    uint32_t tWHR_ns;   /* WE high to RE low (status, ID) */
    uint32_t tCCS_ns;   /* change column setup */
    uint32_t tR_max_ns; /* worst case, for timeouts */
    uint32_t tPROG_max_ns;
    uint32_t tBERS_max_ns;
    uint32_t tRCBSY_ns;     /* read cache busy (31h/3Fh), typical */
    uint32_t tCBSY_max_ns;  /* cache program busy, worst case (the previous page's tPROG) */
    uint32_t tRCBSY_max_ns; /* read cache busy, worst case */
};

/* Where the factory bad-block marker lives (nk_chip_info.bbm_pages). */
#define NK_BBM_FIRST_PAGE 0x01u
#define NK_BBM_SECOND_PAGE 0x02u
#define NK_BBM_LAST_PAGE 0x04u

/* Feature bits (nk_chip_info.features). */
#define NK_CHIP_ONFI 0x0001u          /* identified through an ONFI parameter page */
#define NK_CHIP_JEDEC 0x0002u         /* identified through a JEDEC parameter page */
#define NK_CHIP_SMALL_PAGE 0x0004u    /* 512-byte page command set (00h/01h/50h pointers) */
#define NK_CHIP_CACHE_PROGRAM 0x0008u /* 80h..15h supported */
#define NK_CHIP_GET_SET_FEATURES 0x0010u
#define NK_CHIP_ON_DIE_ECC 0x0020u /* has an internal ECC engine (Micron style) */
#define NK_CHIP_RANDOM_OUT 0x0040u /* 05h/E0h change read column */
#define NK_CHIP_BUS16 0x0080u      /* x16 data bus */
#define NK_CHIP_CACHE_READ 0x0100u /* 31h/3Fh read cache sequential/end */
#define NK_CHIP_COPYBACK 0x0200u   /* 00h..35h read for copy-back, 85h..10h copy-back program */
#define NK_CHIP_COPYBACK_PARITY 0x0400u /* copy-back only between pages of equal parity */
#define NK_CHIP_SPI_NAND 0x0800u /* serial NAND (nandkit/spinand.h): on-die ECC, cache register */

/* Everything nandkit knows about a part. */
struct nk_chip_info {
    char vendor[16];
    char model[32];
    uint8_t id[8]; /* READ ID (address 00h) bytes */
    uint8_t id_len;
    uint32_t page_size; /* data bytes per page */
    uint32_t oob_size;  /* spare bytes per page */
    uint32_t pages_per_block;
    uint32_t blocks; /* on this chip select, all LUNs */
    uint8_t luns;
    uint8_t col_cycles; /* address cycles for the column */
    uint8_t row_cycles; /* address cycles for the row (page) */
    uint8_t bits_per_cell;
    uint8_t nop;             /* partial programs allowed per page (0 = unknown) */
    uint8_t ecc_strength;    /* required correction, bits per ecc_step (0 = none/unknown) */
    uint16_t ecc_step;       /* bytes per ECC step of the requirement */
    uint8_t bbm_pages;       /* NK_BBM_* */
    uint16_t bbm_offset;     /* OOB byte of the factory marker (0 large, 5 small page) */
    uint16_t onfi_version;   /* e.g. 23 for ONFI 2.3; 0 when not ONFI */
    uint32_t features;       /* NK_CHIP_* */
    uint32_t max_bad_blocks; /* datasheet worst case per chip (0 = unknown) */
    struct nk_chip_timing timing;
    /* Planes, interleaved by block (plane = block % planes; 0 means 1).
     * Copy-back stays within one plane. */
    uint8_t planes;
};

struct nk_spinand_part;

/* State of a serial chip between the calls of one page operation (unused
 * on parallel chips). */
struct nk_spinand_state {
    const struct nk_spinand_part *part; /* vendor description, NULL: parallel */
    uint32_t row;                       /* page of the cache register / being programmed */
    uint32_t column;                    /* column of the next read-out or load */
    uint8_t status;                     /* status register after the last array operation */
    uint8_t read_width;                 /* lines of READ FROM CACHE: 1, 2 or 4 */
    uint8_t write_width;                /* lines of PROGRAM LOAD: 1 or 4 */
    bool loaded;                        /* the cache was loaded since the program began */
};

/* A chip on a controller. */
struct nk_chip {
    const struct nk_ctrl *ctrl;
    unsigned chip_select;
    struct nk_chip_info info;
    struct nk_diag diag; /* last failure reason */
    struct nk_spinand_state spi;
};

/* ----- identification ---------------------------------------------------- */

/* Binds `chip` to `ctrl`/`chip_select` and fills chip->info by RESET, READ ID
 * (read twice; a mismatch is -NK_EIO), then the ONFI parameter page, then the
 * JEDEC page, then the legacy ID table. Returns 0, -NK_ENODEV when the part
 * is unknown (chip->diag names the ID bytes), -NK_EBADMSG when a parameter
 * page is present but unrecoverable, or a port error. */
int nk_chip_identify(struct nk_chip *chip, const struct nk_ctrl *ctrl, unsigned chip_select);

/* Binds `chip` to a port with a caller-supplied description (no bus access). */
void nk_chip_attach(struct nk_chip *chip, const struct nk_ctrl *ctrl, unsigned chip_select,
                    const struct nk_chip_info *info);

/* Looks the ID bytes up in the legacy table and decodes extended ID bytes.
 * Returns 0 and fills `info`, or -NK_ENODEV. */
int nk_chip_lookup_id(const uint8_t *id, unsigned id_len, struct nk_chip_info *info);

/* The legacy table, for listing: entry `index` (0-based) or NULL past the end. */
const struct nk_chip_info *nk_chip_table_entry(unsigned index);

/* Finds a legacy table entry by model name (case-insensitive, prefix of the
 * full model allowed when unique). NULL when none. */
const struct nk_chip_info *nk_chip_table_find(const char *model);

/* ONFI CRC-16: polynomial 0x8005, MSB first, no reflection, no final XOR. */
uint16_t nk_onfi_crc16(uint16_t seed, const uint8_t *data, uint32_t len);
#define NK_ONFI_CRC_SEED 0x4f4eu

/* Bitwise majority of `copies` (3) buffers of `len` bytes into `out`. */
void nk_onfi_majority(const uint8_t *const *copies, unsigned count, uint32_t len, uint8_t *out);

/* Parses a 256-byte ONFI parameter page (CRC already checked) into `info`.
 * `ext` (may be NULL) is the extended parameter page when byte 112 is 0xFF.
 * Returns 0 or -NK_EINVAL naming the bad field in `diag`. */
int nk_onfi_parse(const uint8_t page[256], const uint8_t *ext, uint32_t ext_len,
                  struct nk_chip_info *info, struct nk_diag *diag);

/* Selects a valid parameter page out of `count` raw copies of `len` bytes
 * (CRC over bytes 0..len-3, stored LE in the last 2): the first copy with a
 * good CRC, else the bitwise majority if its CRC passes. Writes it to `out`.
 * Returns the copy index used (0..count-1), `count` for the majority vote,
 * or -NK_EBADMSG when nothing passes. */
int nk_param_page_select(const uint8_t *raw, unsigned count, uint32_t len, uint8_t *out);

/* Parses a 512-byte JEDEC parameter page (CRC checked) into `info`. */
int nk_jedec_parse(const uint8_t page[512], struct nk_chip_info *info, struct nk_diag *diag);

/* ----- command sequences --------------------------------------------------- */

/* One piece of a page transfer: `len` bytes at page column `column`. */
struct nk_xfer {
    uint32_t column;
    uint32_t len;
    uint8_t *buf; /* DATA_IN target or DATA_OUT source */
};

/* RESET (FFh) and wait tRST. On a serial chip also unlocks the block
 * protection and selects buffer read mode (as at open). */
int nk_chip_reset(struct nk_chip *chip);

/* READ ID at `address` (00h or 20h), `len` bytes. */
int nk_chip_read_id(struct nk_chip *chip, uint8_t address, uint8_t *buf, unsigned len);

/* READ PARAMETER PAGE (ECh at `address`), `len` bytes (covering copies). */
int nk_chip_read_param(struct nk_chip *chip, uint8_t address, uint8_t *buf, uint32_t len);

/* READ STATUS (70h): one status byte. */
int nk_chip_read_status(struct nk_chip *chip, uint8_t *status);

/* Polls READ STATUS until the chip and its array are both ready (I/O6 and
 * I/O5: a cache program's last page done), for at most `timeout_us` of the
 * port's clock. 0, -NK_ETIMEDOUT, -NK_EINVAL for a port without a clock,
 * or a port error. Not in NANDKIT_MULTIPAGE=OFF builds (only the cache
 * program needs it). */
int nk_chip_wait_idle(struct nk_chip *chip, uint32_t timeout_us);

/* Reads page `row`: loads the array into the data register once and moves
 * each piece out (contiguous pieces in one burst, others through random data
 * out 05h/E0h, or on small-page parts a new pointer + read). Pieces must be
 * in ascending column order. Returns 0 or a port error. */
int nk_chip_read_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                      unsigned count);

/* Programs page `row` from the pieces (random data in 85h between
 * non-contiguous pieces); `cache` uses 15h (cache program) when supported.
 * Returns 0, -NK_EIO when the status reports FAIL, or a port error. After
 * 15h the status belongs to the previous page: sequences of cache programs
 * use nk_chip_program_cache(), which hands the status back. */
int nk_chip_program_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                         unsigned count, bool cache);

/* Erases the block holding page `row`. 0 or -NK_EIO on FAIL status. */
int nk_chip_erase_block(struct nk_chip *chip, uint32_t row);

/* GET/SET FEATURES (EEh/EFh) at feature address `address`, 4 parameter bytes. */
int nk_chip_get_features(struct nk_chip *chip, uint8_t address, uint8_t params[4]);
int nk_chip_set_features(struct nk_chip *chip, uint8_t address, const uint8_t params[4]);

/* Low-level pieces, for device-layer paths that interleave ECC hooks. ----- */

/* Issues the read command and address for `row` at `column` and waits for
 * the data register (00h ... 30h, wait). */
int nk_chip_read_start(struct nk_chip *chip, uint32_t row, uint32_t column);

/* Moves `len` bytes out of the data register at the current column. */
int nk_chip_read_data(struct nk_chip *chip, uint8_t *buf, uint32_t len);

/* Returns the chip from status output to data output (00h), e.g. after
 * reading the on-die ECC status of a page load. */
int nk_chip_read_resume(struct nk_chip *chip);

/* Changes the read column (05h addr E0h). */
int nk_chip_read_column(struct nk_chip *chip, uint32_t column);

/* 80h + address: begins a program of `row` at `column`. */
int nk_chip_program_start(struct nk_chip *chip, uint32_t row, uint32_t column);

/* Moves `len` bytes into the data register at the current column. */
int nk_chip_write_data(struct nk_chip *chip, const uint8_t *buf, uint32_t len);

/* Changes the write column (85h addr). */
int nk_chip_write_column(struct nk_chip *chip, uint32_t column);

/* 10h (or 15h) + wait + status check. 0 or -NK_EIO on FAIL. */
int nk_chip_program_finish(struct nk_chip *chip, bool cache);

/* Pipelined sequences. Each needs the feature bit named; otherwise (and on
 * small-page parts) -NK_ENOTSUP. ------------------------------------------ */

/* Cache program (NK_CHIP_CACHE_PROGRAM): 80h + address + pieces + 15h, or
 * 10h when `last`, then waits for ready (15h: the cache register is free,
 * tCBSY after the previous page finished; 10h: every page is programmed)
 * and reads the status into *status without judging it: while the array is
 * busy, NK_STATUS_FAIL reports the previous page and NK_STATUS_FAIL_N1 the
 * one before; after 10h, FAIL is this page and FAIL_N1 the previous. The
 * pages of one sequence must lie in one block. Returns 0 or a port error. */
int nk_chip_program_cache(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                          unsigned count, bool last, uint8_t *status);

/* Overlapped program: 80h + address + pieces + 10h without waiting (the
 * port may use another target meanwhile); nk_chip_program_end() waits and
 * checks the status (0, -NK_EIO on FAIL, -NK_EROFS, or a port error). */
int nk_chip_program_begin(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                          unsigned count);
int nk_chip_program_end(struct nk_chip *chip, uint32_t row);

/* Overlapped read: 00h + address + 30h without waiting; nk_chip_read_wait()
 * waits for the load and leaves the chip in data output at `column`. */
int nk_chip_read_begin(struct nk_chip *chip, uint32_t row, uint32_t column);
int nk_chip_read_wait(struct nk_chip *chip);

/* Read cache (NK_CHIP_CACHE_READ), after nk_chip_read_start() of the first
 * page: 31h (3Fh when `last`) and the wait for tRCBSY (and the load behind
 * it). The next page of the sequence is then output from column 0. A
 * sequence stays within one block and ends with 3Fh. */
int nk_chip_read_cache_next(struct nk_chip *chip, bool last);

/* Copy-back (NK_CHIP_COPYBACK): 00h + address + 35h and the wait; the page
 * may then be read out (nk_chip_read_data, nk_chip_read_column) to check its
 * ECC. nk_chip_copyback_program() programs the register to `row` (85h +
 * address + optional pieces that change it + 10h) and checks the status.
 * Source and destination must share a plane (and parity where required). */
int nk_chip_copyback_read(struct nk_chip *chip, uint32_t row, uint32_t column);
int nk_chip_copyback_program(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                             unsigned count);

/* Total pages on the chip. */
static inline uint32_t nk_chip_pages(const struct nk_chip_info *info)
{
    return info->blocks * info->pages_per_block;
}

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_CHIP_H */
