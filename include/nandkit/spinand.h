/* SPDX-License-Identifier: MIT */
/*
 * SPI-NAND chip layer: serial NAND (Winbond W25N, GigaDevice GD5F, Micron
 * MT29F..01, Macronix MX35LF, Kioxia TC58CV...) behind the serial
 * controller interface (nandkit/spi.h).
 *
 * A SPI-NAND part is the same array of pages and blocks as a parallel one,
 * reached through a cache register: PAGE READ (13h) loads a page into it,
 * READ FROM CACHE (03h/0Bh/3Bh/6Bh/EBh) moves bytes out; PROGRAM LOAD
 * (02h/32h) and RANDOM LOAD (84h/34h) fill it, PROGRAM EXECUTE (10h)
 * programs it; BLOCK ERASE (D8h) erases. Each array operation ends when
 * the status register (GET FEATURE C0h) shows OIP clear; program and erase
 * need WRITE ENABLE (06h) first. The part corrects bit errors itself
 * (on-die ECC) and reports the outcome in status bits whose meaning each
 * vendor defines.
 *
 * The chip layer's ordinary entry points (nandkit/chip.h) serve a chip
 * identified here: nk_chip_identify() on a port with NK_CTRL_CAP_SERIAL
 * reads the SPI-NAND ID, and nk_chip_read_page(), nk_chip_program_page(),
 * nk_chip_erase_block()... speak the serial command set. The device layer
 * (nandkit/nand.h) and everything above it need no change.
 */
#ifndef NANDKIT_SPINAND_H
#define NANDKIT_SPINAND_H

#include <stdbool.h>
#include <stdint.h>

#include "nandkit/chip.h"
#include "nandkit/ecc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opcodes of the common SPI-NAND command set. */
enum nk_spinand_cmd {
    NK_SPINAND_RESET = 0xff,
    NK_SPINAND_GET_FEATURE = 0x0f,
    NK_SPINAND_SET_FEATURE = 0x1f,
    NK_SPINAND_READ_ID = 0x9f,
    NK_SPINAND_PAGE_READ = 0x13,          /* array -> cache register, 3 row bytes */
    NK_SPINAND_READ_CACHE = 0x03,         /* 2 column bytes, 1 dummy byte, x1 */
    NK_SPINAND_READ_CACHE_FAST = 0x0b,    /* as 03h, at the full clock */
    NK_SPINAND_READ_CACHE_X2 = 0x3b,      /* data on 2 lines */
    NK_SPINAND_READ_CACHE_X4 = 0x6b,      /* data on 4 lines */
    NK_SPINAND_READ_CACHE_QUAD_IO = 0xeb, /* address, dummy and data on 4 lines */
    NK_SPINAND_PROGRAM_LOAD = 0x02,       /* cache := 0xFF, then data at the column */
    NK_SPINAND_PROGRAM_LOAD_X4 = 0x32,
    NK_SPINAND_RANDOM_LOAD = 0x84, /* data at the column, the rest kept */
    NK_SPINAND_RANDOM_LOAD_X4 = 0x34,
    NK_SPINAND_PROGRAM_EXECUTE = 0x10, /* cache -> array, 3 row bytes */
    NK_SPINAND_BLOCK_ERASE = 0xd8,     /* 3 row bytes */
    NK_SPINAND_WRITE_ENABLE = 0x06,
    NK_SPINAND_WRITE_DISABLE = 0x04,
    NK_SPINAND_MX_READ_ECCSR = 0x7c,       /* Macronix: ECC status register, 1 dummy byte */
    NK_SPINAND_WB_LAST_ECC_FAILURE = 0xa9, /* Winbond: last page that failed, 1 dummy byte */
};

/* Dummy bytes of a read from cache in continuous mode (Winbond BUF = 0):
 * no column address; 03h takes 3 dummy bytes, 0Bh/3Bh/6Bh take 4. */
#define NK_SPINAND_CONTINUOUS_DUMMY_03H 3u
#define NK_SPINAND_CONTINUOUS_DUMMY 4u

/* Feature (register) addresses. */
#define NK_SPINAND_FEATURE_PROTECT 0xa0u     /* block protection */
#define NK_SPINAND_FEATURE_CONFIG 0xb0u      /* configuration */
#define NK_SPINAND_FEATURE_STATUS 0xc0u      /* status */
#define NK_SPINAND_FEATURE_GD_STATUS2 0xf0u  /* GigaDevice: ECC refinement bits 5:4 */
#define NK_SPINAND_FEATURE_TOSHIBA_MBF 0x30u /* Kioxia: most bitflips of any sector, bits 7:4 */

/* Configuration register bits. */
#define NK_SPINAND_CONFIG_OTP_EN 0x40u
#define NK_SPINAND_CONFIG_ECC_EN 0x10u
#define NK_SPINAND_CONFIG_BUF 0x08u /* Winbond: buffer read mode (0: continuous read) */
#define NK_SPINAND_CONFIG_QE 0x01u  /* GigaDevice, Macronix: quad enable */

/* Status register bits. */
#define NK_SPINAND_STATUS_OIP 0x01u      /* operation in progress */
#define NK_SPINAND_STATUS_WEL 0x02u      /* write enable latch */
#define NK_SPINAND_STATUS_E_FAIL 0x04u   /* last erase failed */
#define NK_SPINAND_STATUS_P_FAIL 0x08u   /* last program failed */
#define NK_SPINAND_STATUS_ECC_MASK 0x70u /* ECC bits: 5:4, or 6:4 on some parts */

/* How READ ID is sent (vendors differ on the byte after 9Fh). */
enum nk_spinand_id_method {
    NK_SPINAND_ID_DUMMY,  /* 9Fh, one dummy byte, then the ID */
    NK_SPINAND_ID_ADDR,   /* 9Fh, address byte 00h, then the ID */
    NK_SPINAND_ID_OPCODE, /* 9Fh, then the ID at once */
};

/* How a part reports what its ECC did (docs/chip.md has the tables). */
enum nk_spinand_ecc_status {
    /* Status bits 5:4: 00 clean, 01 corrected (no count: the strength is
     * reported), 10 uncorrectable (Winbond W25N01GV). */
    NK_SPINAND_ECC_TWO_BITS,
    /* Bits 5:4 as above, 11 = 8 corrected; 01 refined by STATUS2 (F0h)
     * bits 5:4 into 4..7 (GigaDevice GD5FxGQ4UExxG). */
    NK_SPINAND_ECC_GIGADEVICE,
    /* Bits 6:4: 000 clean, 001 1-3, 011 4-6, 101 7-8 corrected, 010
     * uncorrectable (Micron). The upper bound of each range is reported. */
    NK_SPINAND_ECC_MICRON,
    /* Bits 5:4 as the two-bit scheme; 01 refined by the ECC status
     * register (7Ch) bits 3:0, the count (Macronix). */
    NK_SPINAND_ECC_MACRONIX,
    /* Bits 5:4: 01 and 11 corrected, refined by feature 30h bits 7:4, the
     * most bitflips of any sector (Kioxia). */
    NK_SPINAND_ECC_KIOXIA,
};

/* Free-OOB layout families (Linux's per-vendor ooblayout). */
enum nk_spinand_layout {
    NK_SPINAND_LAYOUT_WINBOND,    /* per 16 bytes: free 2-7, ECC 8-15 */
    NK_SPINAND_LAYOUT_GIGADEVICE, /* free 1-63, ECC 64-127 */
    NK_SPINAND_LAYOUT_HALVES,     /* free 2 .. oob/2-1, ECC the second half (Micron, Kioxia) */
    NK_SPINAND_LAYOUT_ALL_FREE,   /* free 2 .. end, no ECC bytes visible (Macronix) */
};

/* Part flags (struct nk_spinand_part.flags). */
#define NK_SPINAND_QUAD_IO 0x01u     /* has EBh quad I/O read */
#define NK_SPINAND_QE_BIT 0x02u      /* x4 commands need the configuration's QE bit */
#define NK_SPINAND_CONTINUOUS 0x04u  /* continuous read when the BUF bit is 0 (Winbond) */
#define NK_SPINAND_X1_LOAD 0x08u     /* program loads on one line only (no 32h/34h) */
#define NK_SPINAND_EBH_DUMMY_1 0x10u /* EBh takes one dummy byte (2 clocks), not two */

/* One SPI-NAND part: the chip description plus what the serial command
 * set leaves to each vendor. info.id holds the manufacturer byte then the
 * device bytes as READ ID returns them; info.timing.tR_ns is tRD with the
 * on-die ECC on. One table serves the chip layer and the simulator. */
struct nk_spinand_part {
    struct nk_chip_info info;
    uint8_t id_method;        /* enum nk_spinand_id_method */
    uint8_t ecc_status;       /* enum nk_spinand_ecc_status */
    uint8_t layout;           /* enum nk_spinand_layout */
    uint8_t flags;            /* NK_SPINAND_* */
    uint8_t protect_default;  /* protection register at power-up (all locked) */
    uint8_t config_default;   /* configuration register at power-up */
    uint32_t max_hz;          /* fastest clock of the read-from-cache commands */
    uint32_t read_03h_max_hz; /* READ FROM CACHE 03h limit (0: max_hz) */
    uint32_t tRD_no_ecc_ns;   /* page read with the on-die ECC off */
    const char *datasheet;    /* the document the figures come from */
};

/* ----- the table ------------------------------------------------------------ */

/* Entry `index` (0-based), NULL past the end. */
const struct nk_spinand_part *nk_spinand_table_entry(unsigned index);

/* The entry whose model is `model` (case-insensitive), NULL when none. */
const struct nk_spinand_part *nk_spinand_table_find(const char *model);

/* The entry whose ID bytes start `id` (`len` bytes read after 9Fh with the
 * entry's own method; `id` may have more bytes). NULL when none. */
const struct nk_spinand_part *nk_spinand_lookup_id(const uint8_t *id, unsigned len,
                                                   enum nk_spinand_id_method method);

/* ----- chip operations (also reached through nandkit/chip.h) ------------------ */

/* Whether `chip` is bound to a serial port. */
static inline bool nk_chip_is_serial(const struct nk_chip *chip)
{
#ifdef NK_NO_SPINAND
    (void)chip;
    return false;
#else
    return chip->ctrl && (chip->ctrl->caps & NK_CTRL_CAP_SERIAL) != 0;
#endif
}

/* The vendor description of a serial chip, NULL for a parallel one. */
static inline const struct nk_spinand_part *nk_chip_spinand_part(const struct nk_chip *chip)
{
    return chip->spi.part;
}

/* GET FEATURE / SET FEATURE of register `address`. 0 or a port error. */
int nk_spinand_get_feature(struct nk_chip *chip, uint8_t address, uint8_t *value);
int nk_spinand_set_feature(struct nk_chip *chip, uint8_t address, uint8_t value);

/* Continuous read (parts with NK_SPINAND_CONTINUOUS): `pages` pages from
 * page `row` on, their data areas only (no OOB), back to back into `buf`
 * (pages x page size bytes) with one PAGE READ and one read from cache
 * while chip select stays low: the part loads each next page while the
 * current one streams out, so only the first page costs tRD. The mode bit
 * (BUF = 0) is set for the call and cleared after it. The ECC status after
 * the stream sums up every page: the bitflip contract of the worst page
 * (the strength where any page was corrected) or -NK_EBADMSG when any page
 * was uncorrectable (the diagnostic names the last such page, from A9h).
 * -NK_ENOTSUP on a part without continuous read. */
int nk_spinand_read_continuous(struct nk_chip *chip, uint32_t row, uint32_t pages, uint8_t *buf);

/* Turns the on-die ECC on or off (configuration ECC_EN). */
int nk_spinand_ecc_enable(struct nk_chip *chip, bool on);

/* Chooses the data width of reads and program loads: 1, 2 (reads only;
 * loads stay on 1 line) or 4 lines. Quad sets the QE bit on parts that
 * need it. -NK_EINVAL for another width, -NK_ENOTSUP when the port or the
 * part lacks it. Identification picks the widest both support. */
int nk_spinand_set_bus_width(struct nk_chip *chip, unsigned width);

/* The outcome of the on-die ECC for the last PAGE READ, per the part's
 * status encoding: bitflips corrected (>= 0; the range's upper bound where
 * the part reports a range) or -NK_EBADMSG; may read a vendor register. */
int nk_spinand_ecc_result(struct nk_chip *chip);

/* Decodes a status byte (and, where the part refines it, the vendor
 * register `extra`: STATUS2, ECCSR or the bitflip register) into the
 * bitflip contract for a part of `strength` bits: >= 0 corrected,
 * -NK_EBADMSG uncorrectable, -NK_EIO for a reserved code. Pure. */
int nk_spinand_ecc_decode(enum nk_spinand_ecc_status scheme, uint8_t status, uint8_t extra,
                          unsigned strength);

/* Whether the decode of `status` under `scheme` needs the vendor register,
 * and which: 0 none, else the feature address, or NK_SPINAND_MX_READ_ECCSR. */
uint8_t nk_spinand_ecc_extra_register(enum nk_spinand_ecc_status scheme, uint8_t status);

/* The vendor's free-OOB layout for `part` (ECC regions as the part keeps
 * them, free regions the file system may use). */
void nk_spinand_oob_layout(const struct nk_spinand_part *part, struct nk_oob_layout *layout);

/* Fills `engine` as the part's on-die engine ("on-die", the part's
 * strength per step). */
void nk_spinand_ecc_engine_init(const struct nk_spinand_part *part, struct nk_ecc_engine *engine);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_SPINAND_H */
