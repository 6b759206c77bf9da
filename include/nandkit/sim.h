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
 *
 * Cost: every call is O(1) or O(bytes moved) except where noted; memory is
 * O(blocks) bookkeeping plus only the pages that were written (lazy).
 * A `struct nk_sim` is not thread-safe; use one per thread or lock around it.
 */
#ifndef NANDKIT_SIM_H
#define NANDKIT_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nandkit/chip.h"
#include "nandkit/ctrl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct nk_sim;

/* Largest parameter-page areas the simulator answers. */
#define NK_SIM_ONFI_COPIES 3
#define NK_SIM_ONFI_EXT_MAX 64 /* bytes of one extended parameter page copy */

/* Everything that defines a simulated part. Presets fill it; any field may
 * be overridden before nk_sim_open() (then call nk_sim_params_build_pages()
 * so the parameter pages describe the changed part). */
struct nk_sim_params {
    struct nk_chip_info chip; /* ID bytes, geometry, timings, NOP, BBM rule */
    bool onfi;                /* answers READ ID 20h with "ONFI" and has a parameter page */
    uint8_t onfi_page[768];   /* 3 copies, built by the preset (tests may corrupt copies) */
    bool jedec;               /* answers READ ID 40h with "JEDEC" and a JEDEC page */
    uint8_t jedec_page[1536]; /* 3 copies of 512 bytes */
    /* Extended parameter page (ONFI 2.1+, when byte 112 is 0xFF): one copy of
     * `onfi_ext_len` bytes (multiple of 16, 0 = none); 3 copies follow the
     * parameter pages on the bus. */
    uint16_t onfi_ext_len;
    uint8_t onfi_ext_page[NK_SIM_ONFI_COPIES * NK_SIM_ONFI_EXT_MAX];
    /* On-die ECC (chip.features has NK_CHIP_ON_DIE_ECC): corrects up to
     * chip.ecc_strength bits per chip.ecc_step bytes when enabled by SET
     * FEATURES 90h bit 3; the status after a read reports FAIL when a step
     * was uncorrectable and REWRITE (08h) when a step needed at least this
     * many corrections (0 = ceil(3/4 strength)). */
    uint8_t on_die_ecc_threshold;
    uint32_t tFEAT_ns;           /* GET/SET FEATURES busy time (0 = 1 us) */
    uint32_t default_bad_blocks; /* factory-bad count used when config asks for -1 */
};

/* Fault and physics knobs (all off / zero by default, but for weak cells:
 * on unless weak_cells_off). */
struct nk_sim_faults {
    double raw_bit_error_rate;    /* per bit per page read at erase count 0 */
    double wear_error_growth;     /* multiplier per 1000 erases: rber*(1+growth*ec/1000) */
    uint32_t read_disturb_reads;  /* reads of a block after which flips start appearing (0 = off) */
    uint32_t wear_limit;          /* erase count from which program/erase may FAIL (0 = never) */
    double wear_fail_probability; /* chance per op past the limit */
    bool strict_page_order;       /* default true: pages of a block programmed in order */
    bool enforce_nop;             /* default true */
    /* Expected persistent 1->0 flips per page read once a block is past
     * read_disturb_reads (each in a random other page of the block);
     * 0 means 1.0. */
    double read_disturb_rate;
    /* Weak cells (docs/simulator.md, "Weak cells"): a program or an erase
     * interrupted by a power cut or a reset leaves cells with too little
     * margin. On unless weak_cells_off; zero fields take their defaults. */
    bool weak_cells_off;   /* old model: a cut program lands a fraction of its bits,
                              stable forever; a cut erase is never complete */
    uint32_t weak_reads;   /* reads of a cut page that make its weakest cells
                              lose their charge (0 = 8) */
    uint64_t weak_time_ns; /* virtual time after the cut that does the same (0 = 1 s) */
};

/* Trace events (optional callback, see nk_sim_trace_set()). */
enum nk_sim_event_kind {
    NK_SIM_EVENT_OP,            /* a chip operation started (see `op`) */
    NK_SIM_EVENT_PROTOCOL,      /* an unknown or out-of-sequence cycle, ignored */
    NK_SIM_EVENT_POWER_CUT,     /* power lost; `row` = interrupted row or ~0 */
    NK_SIM_EVENT_POWER_RESTORE, /* power back */
};

struct nk_sim_event;
typedef void (*nk_sim_trace_fn)(void *ctx, const struct nk_sim_event *event);

struct nk_sim_config {
    const char *preset; /* preset name (see nk_sim_preset_*), or NULL with `params` */
    const struct nk_sim_params *params; /* explicit part; overrides preset when not NULL */
    const char *image_path;             /* NULL: memory; else an image file (page data then OOB) */
    bool create;    /* create/overwrite the image as an erased chip (memory mode always is new) */
    bool read_only; /* open the image read-only (program/erase FAIL) */
    uint64_t seed;  /* every random fault derives from it */
    /* A new chip's factory-bad blocks (memory mode, or an image with `create`;
     * an existing image keeps its sidecar's): `factory_bad_blocks` blocks
     * drawn from the seed (-1 = params.default_bad_blocks, never block 0), or
     * exactly the blocks of `factory_bad_list` when it is not NULL. */
    int factory_bad_blocks;
    const uint32_t *factory_bad_list;
    unsigned factory_bad_list_len;
    struct nk_sim_faults faults;
    bool faults_set; /* use `faults` (else defaults: strict order + NOP on) */
    /* Image mode only. */
    bool write_through; /* write each program/erase to the file at once (else on sync/close) */
    bool full_image;    /* with create: write the whole erased chip (else the file starts
                           empty and grows only as blocks are written) */
    bool no_sidecar;    /* neither read nor write IMAGE.nksim */
    /* Diagnostics. */
    nk_sim_trace_fn trace; /* called for every event (may be NULL) */
    void *trace_ctx;
    bool measure_host_time; /* accumulate host wall time spent inside the simulator
                               (counters.host_ns; two clock reads per exec_op) */
};

/* Operation kinds counted by the simulator. */
enum nk_sim_op_kind {
    NK_SIM_OP_RESET,
    NK_SIM_OP_READ_ID,
    NK_SIM_OP_READ_PARAM,
    NK_SIM_OP_READ, /* array -> data register (page loads) */
    NK_SIM_OP_PROGRAM,
    NK_SIM_OP_CACHE_PROGRAM,
    NK_SIM_OP_ERASE,
    NK_SIM_OP_STATUS,
    NK_SIM_OP_GET_FEATURES,
    NK_SIM_OP_SET_FEATURES,
    NK_SIM_OP_RANDOM_OUT,       /* 05h-E0h change read column */
    NK_SIM_OP_RANDOM_IN,        /* 85h change write column */
    NK_SIM_OP_CACHE_READ,       /* 31h/3Fh: next page to the cache register */
    NK_SIM_OP_COPYBACK_READ,    /* 00h..35h: page load for a copy-back */
    NK_SIM_OP_COPYBACK_PROGRAM, /* 85h..10h: program of the loaded page (also counted in
                                   NK_SIM_OP_PROGRAM: a program, whatever loaded its data) */
    NK_SIM_OP_KIND_COUNT
};

struct nk_sim_counters {
    uint64_t ops[NK_SIM_OP_KIND_COUNT];
    uint64_t bytes_in;  /* chip -> host */
    uint64_t bytes_out; /* host -> chip */
    uint64_t program_fails;
    uint64_t erase_fails;
    uint64_t bitflips_injected;
    uint64_t unknown_commands;
    uint64_t protocol_errors;  /* out-of-sequence cycles, short addresses, reads while busy */
    uint64_t nop_violations;   /* programs refused by the NOP limit */
    uint64_t order_violations; /* programs refused by strict page order */
    uint64_t on_die_corrected; /* bits the on-die ECC corrected */
    uint64_t array_ops;        /* reads + programs + cache programs + erases (power-cut count) */
    uint64_t bus_ns;           /* virtual time in command/address/data cycles */
    uint64_t busy_wait_ns;     /* virtual time spent in WAIT_READY until ready */
    uint64_t delay_ns;         /* virtual time added by instruction delays (tADL, tWHR...) */
    uint64_t host_ns;     /* host time inside the simulator's bookkeeping (measure_host_time) */
    uint64_t loop_ns;     /* host time in the port's data loops: board-glue code, not
                             included in host_ns (measure_host_time) */
    uint64_t clock_reads; /* host clock reads made for these measurements: their cost
                             (about 20 ns each) is measurement overhead, not library time */
};

/* One trace event. Pointers inside are valid during the callback only. */
struct nk_sim_event {
    enum nk_sim_event_kind kind;
    enum nk_sim_op_kind op; /* NK_SIM_EVENT_OP */
    uint64_t time_ns;       /* virtual time of the event (end of the confirm cycle) */
    uint32_t busy_ns;       /* busy time the operation charges (0 when none) */
    uint32_t row;           /* page row (block * pages_per_block + page) */
    uint32_t column;        /* column of a read/program/random access */
    uint8_t status;         /* status register as the operation will leave it */
    uint8_t byte;           /* the cycle's byte (NK_SIM_EVENT_PROTOCOL) */
    const char *what;       /* constant text, e.g. "10h without 80h" */
};

/* ----- lifetime ------------------------------------------------------------ */

/* Opens a simulated chip. Returns 0 and *sim, or a negative NK_E* value with
 * a one-line reason in `why` (may be NULL): unknown preset,
 * bad geometry, missing image, image size not a multiple of the page+OOB
 * size (a shorter image is allowed: missing trailing blocks read as erased).
 * With an image and neither preset nor params, the part is taken from the
 * image's sidecar. Allocates O(blocks) bookkeeping (32 bytes a block); page data
 * when a page is first written (nk_sim_memory_get()). */
int nk_sim_open(struct nk_sim **sim, const struct nk_sim_config *config, struct nk_diag *why);

/* Writes back (image mode), makes the image durable (fsync) and frees,
 * even when writing fails. A pending program/erase completes first, as it
 * would on a chip that keeps power. Returns 0, or the error of the write
 * back (-NK_EIO, -NK_ENOMEM); NULL is ignored (0). */
int nk_sim_close(struct nk_sim *sim);

/* Image mode: writes every changed block, fsyncs the image, and writes the
 * sidecar now. Returns 0 or -NK_EIO (with the reason in `why`, may be
 * NULL); memory mode: 0. */
int nk_sim_sync(struct nk_sim *sim, struct nk_diag *why);

/* ----- controller ports ---------------------------------------------------- */

/* The controller port of this chip (plain, R/B line, no hardware ECC). For a
 * SPI-NAND part (chip.features NK_CHIP_SPI_NAND) every port is the serial
 * port (NK_CTRL_CAP_SERIAL, widths 1/2/4, the part's clock) and the
 * hardware-ECC variants are NULL. */
const struct nk_ctrl *nk_sim_ctrl(struct nk_sim *sim);

/* A port without an R/B line: WAIT_READY is refused with -NK_ENOTSUP and the
 * chip layer must poll the status register. Every port's clock_ticks (at
 * clock_mhz 1000) is the virtual clock's nanoseconds, which bound that
 * polling in time. */
const struct nk_ctrl *nk_sim_ctrl_no_rb(struct nk_sim *sim);

/* A port whose controller has a Hamming hardware ECC engine of `step_size`
 * (256 or 512) bytes computing during the transfer. NULL for another size. */
const struct nk_ctrl *nk_sim_ctrl_hw_ecc(struct nk_sim *sim, unsigned step_size);

/* Port flags for nk_sim_ctrl_port(). */
#define NK_SIM_PORT_NO_RB 0x01u        /* no R/B line */
#define NK_SIM_PORT_ECC_SM_ORDER 0x02u /* hardware Hamming in SmartMedia byte order */

/* Any port variant: `flags` NK_SIM_PORT_*, `ecc_step` 0 (no engine), 256 or
 * 512. Every port of one sim drives the same chip; each keeps its own data
 * loop and engine state. NULL on a bad combination. */
const struct nk_ctrl *nk_sim_ctrl_port(struct nk_sim *sim, unsigned flags, unsigned ecc_step);

/* ----- several targets on one bus ----------------------------------------- */

/* Up to this many targets (chip enables) share one simulated bus. */
#define NK_SIM_BUS_MAX_TARGETS 8

struct nk_sim_bus;

/* Puts `count` open simulators on one bus as targets 0..count-1 (chip select
 * = target index). Each target keeps its own busy state and R/B line (the
 * port has NK_CTRL_CAP_INDEPENDENT_TARGETS; `flags` NK_SIM_PORT_NO_RB makes
 * the port poll instead); the bus has one clock and carries one cycle at a
 * time, so transfers to two targets never overlap. Switching targets while
 * one is between a command and its last address cycle is a protocol error
 * of that target. The sims stay owned by the caller and must outlive the
 * bus. Returns 0, -NK_EINVAL (count 0 or too many, or a SPI-NAND part: the
 * bus is a parallel one) or -NK_ENOMEM. */
int nk_sim_bus_open(struct nk_sim_bus **bus, struct nk_sim *const *targets, unsigned count,
                    unsigned flags);
void nk_sim_bus_close(struct nk_sim_bus *bus);

/* The bus port: op->chip_select picks the target; other selects float. */
const struct nk_ctrl *nk_sim_bus_ctrl(struct nk_sim_bus *bus);

/* The bus clock (virtual ns): the time of the latest cycle on any target. */
uint64_t nk_sim_bus_time_ns(const struct nk_sim_bus *bus);
const struct nk_clock *nk_sim_bus_clock(struct nk_sim_bus *bus);

/* ----- virtual time --------------------------------------------------------- */

/* The virtual clock, nanoseconds since open. */
uint64_t nk_sim_time_ns(const struct nk_sim *sim);
const struct nk_clock *nk_sim_clock(struct nk_sim *sim);

/* Lets `ns` of idle time pass (a busy chip finishes meanwhile; a power cut
 * scheduled in that interval happens). Returns 0 or -NK_ENODEV on that cut. */
int nk_sim_time_advance(struct nk_sim *sim, uint64_t ns);

/* ----- the part ------------------------------------------------------------- */

/* The part as simulated. */
const struct nk_sim_params *nk_sim_params(const struct nk_sim *sim);

/* Presets: fills `params` for `name` (case-insensitive). 0 or -NK_ENOENT. */
int nk_sim_preset(const char *name, struct nk_sim_params *params);
/* Preset `index` name, NULL past the end. */
const char *nk_sim_preset_name(unsigned index);

/* Fills `params` for an explicit geometry with K9F1G08U0A-like timing: a
 * small-page part (512-byte command set) when page_size <= 512, else an ONFI
 * large-page part (so identification works). Returns 0 or -NK_EINVAL with
 * the reason in `why` (may be NULL). */
int nk_sim_params_geometry(struct nk_sim_params *params, uint32_t page_size, uint32_t oob_size,
                           uint32_t pages_per_block, uint32_t blocks, struct nk_diag *why);

/* Checks a part description: geometry (power-of-two page and block sizes,
 * sane limits), address cycles that reach every page and column, marker
 * position inside the OOB. 0 or -NK_EINVAL naming the bad value in `why`. */
int nk_sim_params_check(const struct nk_sim_params *params, struct nk_diag *why);

/* Rebuilds the ONFI parameter page copies (and extended page) and the
 * JEDEC page copies from params->chip, with valid CRCs. */
void nk_sim_params_build_pages(struct nk_sim_params *params);

/* ----- counters and trace -------------------------------------------------- */

/* Counters and their reset. */
void nk_sim_counters(const struct nk_sim *sim, struct nk_sim_counters *counters);
void nk_sim_counters_reset(struct nk_sim *sim);

/* Installs (or with NULL removes) the trace callback. */
void nk_sim_trace_set(struct nk_sim *sim, nk_sim_trace_fn trace, void *ctx);

/* Short name of an operation kind ("read", "program"...). */
const char *nk_sim_op_name(enum nk_sim_op_kind kind);

/* ----- power ----------------------------------------------------------------- */

/* Power is lost during an array operation (read, program, cache program or
 * erase, counted from now): `ops` more of them complete, the next one is
 * interrupted at a point drawn from the seed. Replaces any earlier schedule. */
void nk_sim_power_cut_after(struct nk_sim *sim, uint64_t ops);

/* Power is lost when the virtual clock reaches `time_ns` (absolute); an
 * operation busy at that instant is interrupted at that point. */
void nk_sim_power_cut_at_time(struct nk_sim *sim, uint64_t time_ns);

/* Cancels a scheduled cut. */
void nk_sim_power_cut_cancel(struct nk_sim *sim);

/* Loses power now (a busy operation is interrupted where the clock is). */
void nk_sim_power_cut_now(struct nk_sim *sim);

/* True while powered. After a cut every exec_op returns -NK_ENODEV. */
bool nk_sim_powered(const struct nk_sim *sim);

/* Powers the chip up again as after a reboot: registers and features lost,
 * the array as the cut left it, the clock continuing. */
void nk_sim_power_restore(struct nk_sim *sim);

/* ----- faults ---------------------------------------------------------------- */

/* Current fault knobs, and replacing them at run time. */
void nk_sim_faults_get(const struct nk_sim *sim, struct nk_sim_faults *faults);
void nk_sim_faults_set(struct nk_sim *sim, const struct nk_sim_faults *faults);

/* What nk_sim_fail_inject() makes fail. */
#define NK_SIM_FAIL_PROGRAM 0x01u
#define NK_SIM_FAIL_ERASE 0x02u

/* Makes the next program and/or erase of `block` report FAIL (once), or
 * every one from now on (permanent: a grown bad block, kept in the sidecar).
 * A failed program applies a random part of its data, a failed erase leaves
 * the block partly erased. 0 or -NK_EINVAL for a bad block number. */
int nk_sim_fail_inject(struct nk_sim *sim, uint32_t block, unsigned what, bool permanent);

/* Removes injected failures (and the worn-out state) of `block`. */
int nk_sim_fail_clear(struct nk_sim *sim, uint32_t block);

/* Makes bit `bit` (0 .. 8*(page+OOB)-1, byte-major, LSB = bit 0) of page
 * `row` read as `value` from now on, whatever is stored. 0, -NK_EINVAL, or
 * -NK_ENOMEM. */
int nk_sim_stuck_bit_add(struct nk_sim *sim, uint32_t row, uint32_t bit, bool value);
void nk_sim_stuck_bits_clear(struct nk_sim *sim);

/* Drives WP# (true = protected: program and erase FAIL, status bit 7 low). */
void nk_sim_write_protect(struct nk_sim *sim, bool protect);

/* ----- direct array access (tests, tools) ----------------------------------- */

/* Copies stored bytes of page `row` from `column` (no bit errors, no time,
 * nothing counted). 0 or -NK_EINVAL when out of range. */
int nk_sim_page_peek(struct nk_sim *sim, uint32_t row, uint32_t column, uint8_t *buf, uint32_t len);

/* Overwrites stored bytes of page `row` (bits may go 0->1; NOP and order
 * bookkeeping untouched). 0, -NK_EINVAL, -NK_EROFS, -NK_ENOMEM. */
int nk_sim_page_poke(struct nk_sim *sim, uint32_t row, uint32_t column, const uint8_t *buf,
                     uint32_t len);

/* Block state flags (struct nk_sim_block_state.flags). */
#define NK_SIM_BLOCK_FACTORY_BAD 0x01u  /* marked at manufacture */
#define NK_SIM_BLOCK_WORN 0x02u         /* an erase failed from wear: grown bad */
#define NK_SIM_BLOCK_FAIL_PROGRAM 0x04u /* injected: programs fail permanently */
#define NK_SIM_BLOCK_FAIL_ERASE 0x08u   /* injected: erases fail permanently */
#define NK_SIM_BLOCK_UNSTABLE 0x10u     /* erase interrupted: some bits read unstably */
#define NK_SIM_BLOCK_WEAK_ERASE 0x20u   /* erase cut late: reads erased, programs flip bits */
#define NK_SIM_BLOCK_WEAK_PAGES 0x40u   /* holds a page whose program was cut (weak cells) */

struct nk_sim_block_state {
    uint32_t erase_count;
    uint32_t reads_since_erase;
    uint32_t flags;     /* NK_SIM_BLOCK_* */
    uint32_t next_page; /* lowest page strict order still allows */
    bool resident;      /* has a page table: written since its last erase */
};

/* State of `block`. 0 or -NK_EINVAL. */
int nk_sim_block_get(const struct nk_sim *sim, uint32_t block, struct nk_sim_block_state *state);

/* Weak cells of a page whose program was interrupted. */
struct nk_sim_weak_state {
    uint32_t weak_bits;    /* programmed cells with too little margin */
    uint32_t failing_bits; /* of those, the ones that read 1 now (charge lost) */
    uint32_t reads;        /* reads of the page since the cut */
    uint64_t age_ns;       /* virtual time since the cut (kept across reopen) */
};

/* Weak-cell state of page `row`: 0, -NK_ENOENT when its last program was not
 * cut (or the block was erased since), -NK_EINVAL out of range. */
int nk_sim_page_weak(const struct nk_sim *sim, uint32_t row, struct nk_sim_weak_state *state);

/* Sets the erase count of `block` (to age a chip quickly). 0 or -NK_EINVAL. */
int nk_sim_block_set_erase_count(struct nk_sim *sim, uint32_t block, uint32_t erase_count);

/* Memory the simulator holds, counted exactly as it allocates it (the C
 * library adds its own few bytes per allocation). Data grows with what is
 * written, never with the size of the part:
 *   resident_bytes = resident_blocks x pages_per_block x (sizeof(void *) + 1)
 *                  + resident_pages x (page_size + oob_size)
 *   fixed_bytes   <= blocks x 32 + 4 x (page_size + oob_size) + 128 KiB
 * An erased page or block holds nothing; erasing a block frees its pages. */
struct nk_sim_memory {
    uint32_t resident_blocks; /* blocks with a page table (written since their last erase) */
    uint64_t resident_pages;  /* pages with a buffer: programmed, poked or disturbed since
                                 their block's last erase (a program that leaves a page all
                                 0xFF keeps none) */
    uint64_t resident_bytes;  /* page tables and page buffers (formula above) */
    uint64_t fixed_bytes;     /* allocated at open: per-block records, registers, ports */
    uint64_t fault_bytes;     /* weak-page records and stuck bits */
    uint64_t total_bytes;     /* fixed_bytes + resident_bytes + fault_bytes */
};

/* Fills `memory` (above). O(1); nothing is allocated. */
void nk_sim_memory_get(const struct nk_sim *sim, struct nk_sim_memory *memory);

/* Path of the sidecar of `image_path` ("IMAGE.nksim") into `buf` of `size`
 * bytes. Returns buf, or NULL when it does not fit. */
char *nk_sim_sidecar_path(const char *image_path, char *buf, size_t size);

/* The part the sidecar of `image_path` describes, into `params` (what
 * nk_sim_open() uses without a preset or params). Returns 0, or a negative
 * error with the reason in `why` (no sidecar: -NK_EINVAL). */
int nk_sim_sidecar_part(const char *image_path, struct nk_sim_params *params, struct nk_diag *why);

#ifdef __cplusplus
}
#endif

#endif /* NANDKIT_SIM_H */
