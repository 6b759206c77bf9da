/* SPDX-License-Identifier: MIT */
/*
 * ECC: engines behind one interface, OOB layouts, and the erased-step check.
 *
 * An engine protects a page in steps of `step_size` bytes; each step has
 * `bytes_per_step` code bytes stored in the OOB at the layout's ECC
 * positions, in step order. The device layer calls calculate() on program
 * and calculate()+correct() on read; raw access bypasses the engine.
 *
 * Engines: none, software Hamming (Linux-compatible, 256/512-byte steps,
 * default and SmartMedia byte order), software BCH (Linux-compatible,
 * GF(2^13)/GF(2^14)), a controller's hardware engine, and on-die ECC.
 * See docs/ecc.md.
 */
#ifndef NANDKIT_ECC_H
#define NANDKIT_ECC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/ctrl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the code is computed. */
enum nk_ecc_placement {
    NK_ECC_PLACEMENT_NONE,       /* no ECC */
    NK_ECC_PLACEMENT_SOFTWARE,   /* by the CPU, over the buffer */
    NK_ECC_PLACEMENT_CONTROLLER, /* by the controller during the transfer */
    NK_ECC_PLACEMENT_ON_DIE,     /* by the chip itself; nothing in the OOB */
};

struct nk_ecc_engine;

struct nk_ecc_ops {
    /* Computes the stored code bytes of one step of `data`
     * (engine->step_size bytes) into `ecc` (engine->bytes_per_step). For a
     * controller engine, reads the code the controller computed during the
     * transfer that just happened (data may then be ignored). */
    void (*calculate)(const struct nk_ecc_engine *engine, const uint8_t *data, uint8_t *ecc);

    /* Corrects one step in place, given the code read from flash and the code
     * computed over the data as read. Returns the number of bits corrected
     * (0 = clean; errors in the code bytes count), or -NK_EBADMSG when the
     * step is uncorrectable (data then left as read). */
    int (*correct)(const struct nk_ecc_engine *engine, uint8_t *data, const uint8_t *read_ecc,
                   const uint8_t *calc_ecc);
};

/* An ECC engine. Filled by one of the nk_ecc_*_init() functions below; the
 * struct and whatever `ctx` points to are owned by the caller. */
struct nk_ecc_engine {
    const struct nk_ecc_ops *ops; /* NULL for the "none" and on-die engines */
    void *ctx;                    /* engine state (e.g. struct nk_bch *) */
    const char *name;             /* "none", "hamming256", "bch8-512", "hw", "on-die" */
    uint16_t step_size;           /* data bytes per step */
    uint8_t bytes_per_step;       /* code bytes per step */
    uint8_t strength;             /* correctable bits per step */
    enum nk_ecc_placement placement;
    const struct nk_ctrl *ctrl; /* controller engines: the port */
};

/* Largest code of any engine here, bytes per step (BCH t=16..32, m=14). */
#define NK_ECC_MAX_BYTES_PER_STEP 64

/* ----- the "none" engine --------------------------------------------------- */

/* Fills `engine` as "no ECC": placement NONE, strength 0. */
void nk_ecc_none_init(struct nk_ecc_engine *engine);

/* ----- software Hamming ---------------------------------------------------- */

/* Computes the 3-byte Linux Hamming code of a 256- or 512-byte block, in
 * Linux's default byte order or (sm_order) SmartMedia order. Byte-identical
 * to Linux's ecc_sw_hamming_calculate(). */
void nk_hamming_calculate(const uint8_t *data, unsigned step_size, bool sm_order, uint8_t ecc[3]);

/* Corrects one step as Linux's ecc_sw_hamming_correct() does: 0 clean,
 * 1 corrected (a data bit, or an error in the code itself), -NK_EBADMSG
 * uncorrectable. */
int nk_hamming_correct(uint8_t *data, unsigned step_size, bool sm_order, const uint8_t read_ecc[3],
                       const uint8_t calc_ecc[3]);

/* Fills `engine` as software Hamming with 256- or 512-byte steps. Returns 0
 * or -NK_EINVAL for another step size. */
int nk_ecc_hamming_init(struct nk_ecc_engine *engine, unsigned step_size, bool sm_order);

/* ----- software BCH -------------------------------------------------------- */

/* A BCH codec over GF(2^m) correcting t bits, with Linux's default primitive
 * polynomial for m and Linux's NAND engine conventions (MSB-first,
 * left-justified code, XOR with the erased-page mask). Its tables live in a
 * caller-supplied workspace; see nk_bch_workspace_size(). Opaque beyond the
 * fields documented here. */
struct nk_bch {
    unsigned m;         /* field degree: 13 (512-byte steps) or 14 (1024) */
    unsigned t;         /* correctable bits */
    unsigned step_size; /* data bytes per step */
    unsigned ecc_bits;  /* m * t (the generator's degree) */
    unsigned ecc_bytes; /* ceil(ecc_bits / 8) */
    uint8_t erased_mask[NK_ECC_MAX_BYTES_PER_STEP]; /* ~encode(0xFF...) */
    void *tables;                                   /* in the workspace */
    size_t tables_size;
    unsigned flags; /* NK_BCH_* chosen at init */
    char name[16];  /* "bch8-512": the engine's name */
};

/* Table-size choice for nk_bch_init(). */
#define NK_BCH_SMALL_TABLES 0x1u /* byte-at-a-time encoder, bit-serial syndromes; less RAM, slower */
/* With NK_BCH_SMALL_TABLES: keep the syndrome tables (t x 1280 bytes), which
 * bring a correction back to the full tables' speed (docs/ecc.md). */
#define NK_BCH_SYNDROME_TABLES 0x2u

/* Bytes of workspace nk_bch_init() needs for (m, t, flags); 0 when the
 * parameters are unsupported. E.g. m=13 t=8: 145528 (53368 with
 * NK_BCH_SMALL_TABLES); docs/ecc.md lists the others. */
size_t nk_bch_workspace_size(unsigned m, unsigned t, unsigned flags);

/* Sets up a codec for `step_size` data bytes (as Linux: m = fls(1 +
 * 8*step_size), so 13 for 512..1023-byte steps, 14 for 1024..2047; m from 9
 * to 15 is accepted) and strength t (1..32 within the field's limit) using
 * `workspace` (`size` bytes, any alignment). Returns 0, -NK_EINVAL for
 * unsupported m/t/step, or -NK_ENOMEM when `size` is too small. */
int nk_bch_init(struct nk_bch *bch, unsigned step_size, unsigned t, unsigned flags, void *workspace,
                size_t size);

/* Stored (masked) code of one step: what Linux's nand_ecc_sw_bch_calculate()
 * writes. `ecc` receives bch->ecc_bytes bytes. */
void nk_bch_calculate(const struct nk_bch *bch, const uint8_t *data, uint8_t *ecc);

/* Plain encode without the erased-page mask (Linux's bch_encode()). */
void nk_bch_encode_raw(const struct nk_bch *bch, const uint8_t *data, uint8_t *ecc);

/* Corrects one step in place from the stored code and the code computed over
 * the data as read (both masked). Returns bits corrected (errors in the code
 * bytes count, pad bits do not) or -NK_EBADMSG. Matches Linux's
 * nand_ecc_sw_bch_correct() return values. When `errloc` is not NULL it
 * receives the corrected bit positions over data||ecc (bit p = byte p>>3,
 * mask 1<<(p&7)); it must hold t entries. */
int nk_bch_correct(const struct nk_bch *bch, uint8_t *data, const uint8_t *read_ecc,
                   const uint8_t *calc_ecc, unsigned *errloc);

/* Fills `engine` as software BCH over an initialised codec. */
void nk_ecc_bch_engine_init(struct nk_ecc_engine *engine, struct nk_bch *bch);

/* ----- controller and on-die engines --------------------------------------- */

/* Fills `engine` to use the port's hardware engine (NK_CTRL_CAP_HW_ECC).
 * Returns 0 or -NK_ENOTSUP when the port has none. */
int nk_ecc_hw_init(struct nk_ecc_engine *engine, const struct nk_ctrl *ctrl);

/* Fills `engine` as on-die ECC of `strength` bits per `step_size` bytes
 * (the chip corrects internally; status reports the outcome). */
void nk_ecc_on_die_init(struct nk_ecc_engine *engine, unsigned step_size, unsigned strength);

/* ----- erased steps -------------------------------------------------------- */

/* Linux's rule for a step that failed to decode: when data and code
 * together hold at most `max_zero_bits` zero bits, the step is an erased
 * step with bitflips: sets data (and code) to 0xFF and returns the number of
 * zero bits found; otherwise returns -NK_EBADMSG and leaves both alone. */
int nk_ecc_check_erased(uint8_t *data, uint32_t data_len, uint8_t *ecc, uint32_t ecc_len,
                        unsigned max_zero_bits);

/* ----- OOB layouts --------------------------------------------------------- */

#define NK_OOB_MAX_REGIONS 8

struct nk_oob_region {
    uint16_t offset;
    uint16_t length;
};

/* Which OOB bytes hold ECC and which are free for the user, like Linux's
 * mtd_ooblayout. ECC bytes are filled in region order, step after step. */
struct nk_oob_layout {
    struct nk_oob_region ecc[NK_OOB_MAX_REGIONS];
    uint8_t ecc_count;
    struct nk_oob_region free[NK_OOB_MAX_REGIONS];
    uint8_t free_count;
};

/* Linux's small-page layout (16-byte OOB): ECC 0-3 and 6-7, marker 5,
 * free 8-15. 8-byte OOB: ECC 0-2, free 3-7 (minus marker). */
int nk_oob_layout_small_page(struct nk_oob_layout *layout, unsigned oob_size);

/* Linux's large-page legacy Hamming layout: `ecc_total` code bytes from 40
 * (64-byte OOB) or 80 (128-byte OOB); free from 2 up to the code and after
 * it (other OOB sizes: as nk_oob_layout_large). Returns 0 or -NK_EINVAL
 * when the code does not fit. */
int nk_oob_layout_large_hamming(struct nk_oob_layout *layout, unsigned oob_size,
                                unsigned ecc_total);

/* Linux's large-page layout for BCH and others: ECC in the last `ecc_total`
 * bytes, free from 2 up to the ECC. */
int nk_oob_layout_large(struct nk_oob_layout *layout, unsigned oob_size, unsigned ecc_total);

/* No ECC bytes, every OOB byte from `first_free` free (e.g. 0 for the
 * mkyaffs2 layout, 2 to keep the marker bytes). */
int nk_oob_layout_all_free(struct nk_oob_layout *layout, unsigned oob_size, unsigned first_free);

/* The Linux default layout for a page geometry and engine (small page,
 * large-page Hamming, or large-page BCH/other; no code in the OOB: small
 * page free 8-15, else all free from 2). -NK_EINVAL when a small-page OOB
 * cannot hold the code (Linux wants an explicit layout there). */
int nk_oob_layout_default(struct nk_oob_layout *layout, unsigned page_size, unsigned oob_size,
                          const struct nk_ecc_engine *engine);

/* Checks that regions lie within `oob_size`, do not overlap each other, and
 * that the ECC regions hold `ecc_total` bytes or more. 0 or -NK_EINVAL. */
int nk_oob_layout_check(const struct nk_oob_layout *layout, unsigned oob_size, unsigned ecc_total);

/* Number of free (user) bytes. */
unsigned nk_oob_free_bytes(const struct nk_oob_layout *layout);

/* Copies `len` user bytes starting at user offset `offset` out of / into a
 * full OOB buffer through the free regions (MTD auto-placement). */
void nk_oob_free_get(const struct nk_oob_layout *layout, const uint8_t *oob, uint8_t *user,
                     unsigned offset, unsigned len);
void nk_oob_free_set(const struct nk_oob_layout *layout, uint8_t *oob, const uint8_t *user,
                     unsigned offset, unsigned len);

/* Copies `len` ECC bytes out of / into a full OOB buffer through the ECC
 * regions. */
void nk_oob_ecc_get(const struct nk_oob_layout *layout, const uint8_t *oob, uint8_t *ecc,
                    unsigned len);
void nk_oob_ecc_set(const struct nk_oob_layout *layout, uint8_t *oob, const uint8_t *ecc,
                    unsigned len);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_ECC_H */
