/* SPDX-License-Identifier: MIT */
/*
 * The NAND simulator (host backend, not part of the portable core).
 *
 * A cycle-level ONFI-style chip behind the controller interface: it decodes
 * command, address and data cycles as a chip does, keeps the array in memory
 * or in an image file, charges a virtual clock with datasheet timings, and
 * models NAND physics and faults (NOP limit, in-order programming, factory
 * and grown bad blocks, raw bit errors growing with wear, read disturb,
 * stuck bits, power loss with torn pages and half-erased blocks), all
 * reproducible from a seed. A controller model in front of it offers a
 * Hamming hardware ECC engine that works during the transfer, and the chip
 * can model Micron-style on-die ECC. See docs/simulator.md.
 */
#ifndef NANDKIT_SIM_H
#define NANDKIT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/chip.h"
#include "nandkit/ctrl.h"

struct nk_sim;

/* Everything that defines a simulated part. Presets fill it; any field may
 * be overridden before nk_sim_open(). */
struct nk_sim_params {
    struct nk_chip_info chip;   /* ID bytes, geometry, timings, NOP, BBM rule */
    bool onfi;                  /* answers READ ID 20h with "ONFI" and has a parameter page */
    uint8_t onfi_page[768];     /* 3 copies, built by the preset (tests may corrupt copies) */
    bool jedec;                 /* answers READ ID 40h with "JEDEC" and a JEDEC page */
    uint8_t jedec_page[1536];   /* 3 copies of 512 bytes */
};

/* Fault and physics knobs (all off / zero by default). */
struct nk_sim_faults {
    double raw_bit_error_rate;      /* per bit per read at erase count 0 */
    double wear_error_growth;       /* multiplier per 1000 erases: rber*(1+growth*ec/1000) */
    uint32_t read_disturb_reads;    /* reads of a block after which flips start appearing */
    uint32_t wear_limit;            /* erase count beyond which program/erase may FAIL (0 = never) */
    double wear_fail_probability;   /* chance per op past the limit */
    bool strict_page_order;         /* default true: pages of a block programmed in order */
    bool enforce_nop;               /* default true */
};

struct nk_sim_config {
    const char *preset;          /* preset name (see nk_sim_preset_*), or NULL with `params` */
    const struct nk_sim_params *params; /* explicit part; overrides preset when not NULL */
    const char *image_path;      /* NULL: memory; else an image file (page data then OOB) */
    bool create;                 /* create/overwrite the image as an erased chip */
    bool read_only;              /* open the image read-only (program/erase FAIL) */
    uint64_t seed;               /* every random fault derives from it */
    int factory_bad_blocks;      /* with create: count of seeded factory-bad blocks (-1 = preset default) */
    const uint32_t *factory_bad_list; /* with create: explicit list instead */
    unsigned factory_bad_list_len;
    struct nk_sim_faults faults;
    bool faults_set;             /* use `faults` (else defaults: strict order + NOP on) */
};

/* Operation kinds counted by the simulator. */
enum nk_sim_op_kind {
    NK_SIM_OP_RESET,
    NK_SIM_OP_READ_ID,
    NK_SIM_OP_READ_PARAM,
    NK_SIM_OP_READ,       /* array -> data register (page loads) */
    NK_SIM_OP_PROGRAM,
    NK_SIM_OP_CACHE_PROGRAM,
    NK_SIM_OP_ERASE,
    NK_SIM_OP_STATUS,
    NK_SIM_OP_GET_FEATURES,
    NK_SIM_OP_SET_FEATURES,
    NK_SIM_OP_KIND_COUNT
};

struct nk_sim_counters {
    uint64_t ops[NK_SIM_OP_KIND_COUNT];
    uint64_t bytes_in;        /* chip -> host */
    uint64_t bytes_out;       /* host -> chip */
    uint64_t program_fails;
    uint64_t erase_fails;
    uint64_t bitflips_injected;
    uint64_t unknown_commands;
};

/* Opens a simulated chip. Returns 0 and *sim, or a negative NK_E* value with
 * a one-line reason in `why` (may be NULL, size NK_DIAG_LEN): unknown preset,
 * bad geometry, missing image, image size not a multiple of the page+OOB
 * size (a shorter image is allowed: missing trailing blocks read as erased). */
int nk_sim_open(struct nk_sim **sim, const struct nk_sim_config *config, char *why);

/* Writes back (image mode) and frees. */
void nk_sim_close(struct nk_sim *sim);

/* The controller port of this chip (plain, R/B line, no hardware ECC). */
const struct nk_ctrl *nk_sim_ctrl(struct nk_sim *sim);

/* A port whose controller has a Hamming hardware ECC engine of `step_size`
 * (256 or 512) bytes computing during the transfer. */
const struct nk_ctrl *nk_sim_ctrl_hw_ecc(struct nk_sim *sim, unsigned step_size);

/* The virtual clock, nanoseconds since open. */
uint64_t nk_sim_time_ns(const struct nk_sim *sim);
const struct nk_clock *nk_sim_clock(struct nk_sim *sim);

/* The part as simulated. */
const struct nk_sim_params *nk_sim_params(const struct nk_sim *sim);

/* Counters and their reset. */
void nk_sim_counters(const struct nk_sim *sim, struct nk_sim_counters *counters);
void nk_sim_counters_reset(struct nk_sim *sim);

/* Presets: fills `params` for `name` (case-insensitive). 0 or -NK_ENOENT. */
int nk_sim_preset(const char *name, struct nk_sim_params *params);
/* Preset `index` name, NULL past the end. */
const char *nk_sim_preset_name(unsigned index);

#endif /* NANDKIT_SIM_H */
