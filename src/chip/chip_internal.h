/* SPDX-License-Identifier: MIT */
/* Chip-layer internals shared between its files. */
#ifndef NK_CHIP_INTERNAL_H
#define NK_CHIP_INTERNAL_H

#include "nandkit/chip.h"

/* ONFI timing mode 0, used before a part is known and for missing values. */
const struct nk_chip_timing *nk_chip_timing_defaults(void);

/* Fills the asynchronous cycle timings of ONFI timing mode `mode` (0..5). */
void nk_onfi_timing_mode(unsigned mode, struct nk_chip_timing *timing);

/* Copies `len` bytes of a space-padded ASCII field into `out` (size
 * `out_size`), trimming trailing spaces and replacing non-printables. */
void nk_chip_copy_ascii(char *out, unsigned out_size, const uint8_t *field, unsigned len);

/* Manufacturer name for a JEDEC manufacturer ID byte ("unknown" if none). */
const char *nk_chip_vendor_name(uint8_t manufacturer_id);

/* Sets bbm_pages/bbm_offset from the manufacturer's factory-marker rule. */
void nk_chip_apply_bbm_rule(struct nk_chip_info *info);

/* Does a parameter page of `len` bytes pass its CRC (over bytes 0..len-3,
 * stored LE in the last 2)? */
bool nk_param_crc_ok(const uint8_t *page, uint32_t len);

/* Index of the highest set bit of `v` (0 for 0 and 1). */
static inline unsigned nk_chip_log2(uint32_t v)
{
    unsigned n = 0;
    while (v >>= 1)
        n++;
    return n;
}

/* Completes `info` from the legacy model table when its ID matches a known
 * model (typical array timings, bad-block rule); returns true on a match. */
bool nk_chip_table_refine(struct nk_chip_info *info);

/* ----- status polling bounded in time (poll.c) ----- */

/* Reads the status (READ STATUS; GET FEATURE C0h on a serial part) until
 * (status & mask) == ready, for at most `timeout_us` of the port's clock
 * (ops->clock_ticks at clock_mhz), whatever one read costs on the bus; the
 * last status goes to *status. 0, -NK_ETIMEDOUT, -NK_EINVAL for a port
 * without R/B line and without a clock, or a port error. */
int nk_chip_poll(struct nk_chip *chip, uint32_t timeout_us, uint8_t mask, uint8_t ready,
                 uint8_t *status);

/* ----- SPI-NAND (spinand.c), reached from the public functions ----- */
#ifndef NK_NO_SPINAND
#include "nandkit/spinand.h"
int nk_spinand_identify(struct nk_chip *chip);
void nk_spinand_attach(struct nk_chip *chip);
int nk_spinand_reset(struct nk_chip *chip);
int nk_spinand_read_id(struct nk_chip *chip, uint8_t address, uint8_t *buf, unsigned len);
int nk_spinand_read_status(struct nk_chip *chip, uint8_t *status);
int nk_spinand_read_begin(struct nk_chip *chip, uint32_t row, uint32_t column);
int nk_spinand_read_wait(struct nk_chip *chip);
int nk_spinand_read_start(struct nk_chip *chip, uint32_t row, uint32_t column);
int nk_spinand_read_data(struct nk_chip *chip, uint8_t *buf, uint32_t len);
int nk_spinand_read_column(struct nk_chip *chip, uint32_t column);
int nk_spinand_read_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                         unsigned count);
int nk_spinand_program_start(struct nk_chip *chip, uint32_t row, uint32_t column);
int nk_spinand_write_data(struct nk_chip *chip, const uint8_t *buf, uint32_t len);
int nk_spinand_write_column(struct nk_chip *chip, uint32_t column);
int nk_spinand_program_finish(struct nk_chip *chip);
int nk_spinand_program_begin(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                             unsigned count);
int nk_spinand_program_end(struct nk_chip *chip, uint32_t row);
int nk_spinand_program_page(struct nk_chip *chip, uint32_t row, const struct nk_xfer *xfers,
                            unsigned count);
int nk_spinand_erase_block(struct nk_chip *chip, uint32_t row);
/* Returns from the calling public function with the serial call's result
 * when `chip` is on a serial port. */
#define NK_SERIAL(chip, call)                                                                      \
    do {                                                                                           \
        if (nk_chip_is_serial(chip))                                                               \
            return call;                                                                           \
    } while (0)
#else
#define NK_SERIAL(chip, call) ((void)0)
#endif

#endif
