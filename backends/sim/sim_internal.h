/* SPDX-License-Identifier: MIT */
/*
 * Simulator internals shared by its files:
 *   sim.c          open/close, configuration, public knobs
 *   sim_port.c     controller ports: exec_op, the virtual clock, data loops
 *   sim_hwecc.c    the controller's Hamming hardware ECC engine
 *   sim_chip.c     the command state machine (cycles in, bytes out)
 *   sim_cache.c    read cache (31h/3Fh) and the copy-back rules
 *   sim_bus.c      several targets (chip enables) on one bus
 *   sim_array.c    lazy page storage, image file and sidecar
 *   sim_physics.c  program/erase/read physics, faults, power loss
 *   sim_presets.c  presets and parameter-page builders
 */
#ifndef NK_SIM_INTERNAL_H
#define NK_SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "nandkit/diag.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"

/* Most read errors of one page read that are tracked one by one. */
#define NK_SIM_FLIP_MAX 4096u

/* Most on-die ECC steps per page the simulator tracks. */
#define NK_SIM_MAX_ECC_STEPS 128u

/* Ports per sim: {R/B, no R/B} x {no engine, 256, 512} x {default, SM order}. */
#define NK_SIM_PORT_COUNT 12

/* Bytes the data-register window holds; longer transfers go in pieces. */
#define NK_SIM_WINDOW 4096u

struct nk_sim_port {
    struct nk_ctrl ctrl;
    struct nk_sim *sim;
    unsigned flags;    /* NK_SIM_PORT_* */
    unsigned ecc_step; /* 0, 256, 512 */
    enum nk_data_loop loop;
    bool ecc_armed;
    enum nk_ecc_direction ecc_dir;
    uint32_t ecc_count; /* bytes captured of the armed step */
    uint8_t ecc_buf[512];
    bool ready; /* initialised */
    /* The controller's data register as the CPU sees it: the chip model fills
     * it (bookkeeping) and the port's loop moves it (board-glue code). */
    _Alignas(8) uint8_t window[NK_SIM_WINDOW];
};

/* Where the command state machine is. */
enum nk_sim_state {
    NK_SIM_S_IDLE,
    NK_SIM_S_READ_ADDR,    /* 00h/01h/50h: address cycles, then 30h (large page) */
    NK_SIM_S_RNDOUT_ADDR,  /* 05h: column cycles, then E0h */
    NK_SIM_S_PROG_ADDR,    /* 80h: address cycles */
    NK_SIM_S_PROG_DATA,    /* data in; 85h, 10h, 15h */
    NK_SIM_S_RNDIN_ADDR,   /* 85h: column cycles, then data */
    NK_SIM_S_ERASE_ADDR,   /* 60h: row cycles, then D0h */
    NK_SIM_S_ID_ADDR,      /* 90h: one address cycle */
    NK_SIM_S_PARAM_ADDR,   /* ECh: one address cycle */
    NK_SIM_S_GETFEAT_ADDR, /* EEh: one address cycle */
    NK_SIM_S_SETFEAT_ADDR, /* EFh: one address cycle */
    NK_SIM_S_SETFEAT_DATA, /* EFh: four parameter bytes */
    NK_SIM_S_OUTPUT,       /* data out of out_buf */
    NK_SIM_S_STATUS,       /* data out = status register */
};

/* Internal block flags above the public NK_SIM_BLOCK_* byte. */
#define NK_SIM_BLK_PUBLIC 0x00ffu
#define NK_SIM_BLK_ERASED 0x0100u /* not resident and erased (ignore file/virtual content) */
#define NK_SIM_BLK_DIRTY 0x0200u  /* resident and differs from the image file */
#define NK_SIM_BLK_STALE 0x0400u  /* erased while not resident: file copy is old */
#define NK_SIM_BLK_STUCK 0x0800u  /* has stuck bits */

/* A resident block: one pointer per page, NULL while the page is erased (it
 * reads all 0xFF and costs nothing), else page_bytes of its own; then the
 * NOP count of each page. One allocation of nk_sim_table_bytes(). */
struct nk_sim_block {
    uint8_t **pages; /* resident: the page table above; NULL: not resident */
    uint32_t erase_count;
    uint32_t reads; /* page reads since the last erase */
    uint32_t next_page;
    uint32_t unstable_salt;
    uint16_t flags;
    uint8_t unstable_fraction; /* erase progress when interrupted, /256 */
    uint8_t fail_once;         /* NK_SIM_FAIL_* armed once */
};

struct nk_sim_stuck {
    uint32_t row;
    uint32_t bit;
    bool value;
};

/* A page whose program was interrupted: the cells it programmed with too
 * little margin (`mask`) lose their charge as the page is read and ages. */
struct nk_sim_weak_page {
    uint32_t row;
    uint32_t reads;       /* reads of the page since the cut */
    uint16_t progress;    /* landing progress at the cut, /256 of the landing phase */
    uint64_t salt;        /* lanes of the cut program (nk_sim_hash(salt, row, byte)) */
    uint64_t age_base_ns; /* age when this open began tracking it */
    uint64_t born_ns;     /* virtual time this open began tracking it */
    uint8_t *mask;        /* page_bytes: the weak cells */
};

/* A program or erase whose array effect lands when its busy time ends. */
struct nk_sim_pending {
    bool active;
    bool erase;
    uint32_t row;        /* program: page row; erase: first row of the block */
    uint64_t start, end; /* virtual time */
    int fail;            /* NK_SIM_FAIL_NONE / _REFUSED / _PARTIAL */
    unsigned fail_f256;  /* _PARTIAL: how much of it lands, /256 */
    uint32_t lo, hi;     /* program: columns written [lo, hi) */
};

#define NK_SIM_FAIL_NONE 0
#define NK_SIM_FAIL_REFUSED 1 /* FAIL, array untouched */
#define NK_SIM_FAIL_PARTIAL 2 /* FAIL, a random part applied */

/* SPI-NAND registers (sim_spinand.c); part NULL on a parallel chip. */
struct nk_spinand_part;
struct nk_sim_spinand {
    const struct nk_spinand_part *part;
    uint8_t protect;       /* feature A0h */
    uint8_t config;        /* feature B0h */
    bool wel;              /* write enable latch */
    bool p_fail, e_fail;   /* status bits of the last program / erase */
    uint8_t ecc_code;      /* status bits 6:4 of the last page read */
    uint8_t ecc_extra;     /* the vendor register refining them (F0h, 7Ch, 30h) */
    uint32_t loaded_row;   /* page the cache holds from a PAGE READ, UINT32_MAX: none */
    uint32_t last_failure; /* last page a continuous read could not correct (A9h) */
};

struct nk_sim {
    struct nk_sim_params params;
    struct nk_sim_faults faults;
    uint64_t seed;

    /* Geometry, derived. */
    uint32_t page_bytes;  /* page + OOB */
    uint32_t ppb_shift;   /* log2(pages_per_block) */
    uint32_t rows;        /* total pages */
    uint64_t block_bytes; /* pages_per_block * page_bytes */
    bool small_page;

    /* Array. */
    struct nk_sim_block *blocks;
    uint32_t resident_blocks;
    uint64_t resident_pages; /* page buffers held by resident blocks */
    uint32_t evict_hand;     /* write-through: where the search for a block to drop resumes */
    struct nk_sim_stuck *stuck;
    uint32_t stuck_count, stuck_cap;
    struct nk_sim_weak_page *weak;
    uint32_t weak_count, weak_cap;

    /* Image file. */
    int fd; /* -1 in memory mode */
    uint64_t file_size;
    uint64_t file_size_opened; /* as found at open: the file grows in whole blocks past it */
    bool file_sparse;          /* the file may have holes: they read as erased */
    bool no_holes;             /* its file system keeps no holes: erased bytes are written */
    bool read_only;
    bool write_through;
    bool no_sidecar;
    char *image_path;
    char preset_name[32];

    /* Registers. */
    uint8_t *reg;            /* data (cache) register, page_bytes */
    uint8_t *page_buf;       /* array-side page buffer of a pending program */
    uint8_t *scratch;        /* page_bytes of scratch */
    uint8_t *erased_page;    /* page_bytes of 0xFF (never changed): what an erased page holds */
    uint32_t reg_lo, reg_hi; /* columns written since 80h */

    /* Command state machine. */
    enum nk_sim_state state;
    enum nk_sim_state status_return; /* state a 00h after 70h resumes */
    uint8_t addr[8];
    unsigned addr_count, addr_expected;
    uint8_t first_cmd;  /* command that started the sequence */
    bool addr_short;    /* a data cycle arrived before the address was complete */
    uint32_t column;    /* read column (output) */
    uint32_t in_column; /* program column (input) */
    uint32_t prog_row;
    bool read_valid;   /* register holds a page loaded by a read (or a parameter page) */
    bool resume_ok;    /* 00h after 70h: a data cycle resumes output */
    bool cache_seq;    /* the last program was a cache program (15h) */
    uint32_t read_row; /* page in the register; UINT32_MAX: parameter page */
    uint8_t pointer;   /* small page: 0 = 00h, 1 = 01h, 2 = 50h */
    const uint8_t *out_buf;
    uint32_t out_len;
    bool out_wrap;
    uint8_t small_buf[8];     /* ID / signature / feature bytes being output */
    const uint8_t *param_buf; /* the parameter area being read (ONFI or JEDEC) */
    uint32_t param_len;
    uint8_t *onfi_buf, *jedec_buf;
    uint32_t onfi_len, jedec_len;
    uint8_t feature_addr;
    unsigned feature_count;
    uint8_t features[256][4];
    bool on_die_ecc;
    unsigned on_die_most; /* corrections in the worst step of the last page read */
    bool write_protect;
    struct nk_sim_spinand spi;

    /* Cache program, read cache and copy-back (sim_cache.c). */
    uint32_t cache_block;     /* block of the cache program sequence under way */
    uint8_t fail_history;     /* FAIL of the latest programs of a cache sequence, bit 0 newest */
    bool cache_status;        /* status bits 0/1 follow the cache program rules */
    uint32_t cache_read_next; /* read cache: row loading into the data register (UINT32_MAX) */
    uint32_t copyback_row;    /* row loaded by 00h..35h, UINT32_MAX: none */

    /* Status and busy. */
    uint8_t status_bits;  /* FAIL, FAIL_N1, REWRITE */
    uint64_t rdy_until;   /* R/B (status bit 6) */
    uint64_t array_until; /* array busy (status bit 5) */
    struct nk_sim_pending pending;

    /* Clock. */
    uint64_t now;
    uint32_t pending_delay; /* delay_ns of the last instruction */
    struct nk_clock clock;

    /* Power. */
    bool powered;
    uint64_t array_op_serial; /* array operations since open (never reset) */
    bool cut_by_ops, cut_by_time;
    uint64_t cut_op; /* array op number (1-based) that is interrupted */
    uint64_t cut_time;

    /* Randomness: independent streams so one fault does not shift another. */
    uint64_t rng_bits, rng_fault, rng_cut, rng_unstable, rng_garbage;

    uint32_t *flip_pos; /* NK_SIM_FLIP_MAX read-error positions of one page read */

    struct nk_sim_counters counters;
    nk_sim_trace_fn trace;
    void *trace_ctx;
    bool measure_host_time;
    uint64_t loop_ns; /* port data-loop host time of the exec_op under way */

    struct nk_sim_port ports[NK_SIM_PORT_COUNT];
};

/* ----- sim.c ----- */
uint64_t nk_sim_rng_next(uint64_t *state);
double nk_sim_rng_double(uint64_t *state);
uint64_t nk_sim_hash(uint64_t a, uint64_t b, uint64_t c);
void nk_sim_emit(struct nk_sim *sim, enum nk_sim_event_kind kind, enum nk_sim_op_kind op,
                 uint32_t row, uint32_t column, uint32_t busy_ns, uint8_t byte, const char *what);
void nk_sim_protocol_error(struct nk_sim *sim, uint8_t byte, const char *what);

/* ----- sim_cache.c ----- */
/* 31h (`last` false) or 3Fh: the next page of a read cache sequence. */
void nk_sim_cache_read(struct nk_sim *sim, bool last);
/* Checks a copy-back destination against the source (plane, parity);
 * returns false (protocol error reported) when the chip must refuse it. */
bool nk_sim_copyback_allowed(struct nk_sim *sim, uint32_t row);

/* ----- sim_port.c ----- */
void nk_sim_ports_init(struct nk_sim *sim);
int nk_sim_port_exec_op(void *ctx, const struct nk_op *op);
int nk_sim_port_set_data_loop(void *ctx, enum nk_data_loop loop);
/* The port's clock: the virtual clock's nanoseconds, low 32 bits. */
uint32_t nk_sim_port_clock_ticks(void *ctx);
/* The port for (flags, ecc_step), set up on first use; `ecc_ops` are the
 * hooks of an engine port (ecc_step != 0). */
const struct nk_ctrl *nk_sim_port_setup(struct nk_sim *sim, unsigned flags, unsigned ecc_step,
                                        const struct nk_ctrl_ops *ecc_ops);
uint64_t nk_sim_host_ns(void);
/* nk_sim_host_ns() for measure_host_time, counted in counters.clock_reads. */
uint64_t nk_sim_host_clock(struct nk_sim *sim);

/* ----- sim_chip.c ----- */
/* Registers, state and features as at power-on. */
void nk_sim_chip_power_on(struct nk_sim *sim);
void nk_sim_chip_cmd(struct nk_sim *sim, uint8_t cmd);
void nk_sim_chip_addr(struct nk_sim *sim, uint8_t cycle);
/* Host -> chip: one byte latched at sim->now / a burst whose first byte is
 * latched at `t` and each next one `cycle` later. */
void nk_sim_chip_write_byte(struct nk_sim *sim, uint8_t byte);
void nk_sim_chip_write(struct nk_sim *sim, const uint8_t *buf, uint32_t len, uint64_t t,
                       uint32_t cycle);
/* Chip -> host: one byte at virtual time `t` / a burst whose first byte is
 * latched at `t` and each next one `cycle` later. */
uint8_t nk_sim_chip_read_byte(struct nk_sim *sim, uint64_t t);
void nk_sim_chip_read(struct nk_sim *sim, uint8_t *buf, uint32_t len, uint64_t t, uint32_t cycle);
uint8_t nk_sim_chip_status(const struct nk_sim *sim, uint64_t t);

/* ----- sim_spinand.c ----- */
/* Registers as at power-on (nothing for a parallel part). */
void nk_sim_spinand_power_on(struct nk_sim *sim);
int nk_sim_spinand_exec(void *ctx, const struct nk_spi_op *op);
int nk_sim_spinand_poll(void *ctx, const struct nk_spi_poll *poll, uint8_t *status);

/* ----- sim_array.c ----- */
int nk_sim_array_init(struct nk_sim *sim, const struct nk_sim_config *config, struct nk_diag *why);
void nk_sim_array_free(struct nk_sim *sim);
/* Stored content of page `row` into `dst` (page_bytes). */
int nk_sim_array_load(struct nk_sim *sim, uint32_t row, uint8_t *dst);
/* Makes a block resident; returns its page table or NULL (ENOMEM / I/O). */
uint8_t **nk_sim_array_materialize(struct nk_sim *sim, uint32_t block);
/* Block data changed: mark dirty and write through when configured. */
void nk_sim_array_touched(struct nk_sim *sim, uint32_t block, uint32_t page, bool whole_block);
/* Block erased (content all 0xFF): its pages are freed. */
void nk_sim_array_erased(struct nk_sim *sim, uint32_t block);
/* Virtual content of a never-written page (0xFF, or a factory-bad pattern). */
void nk_sim_array_virtual_page(const struct nk_sim *sim, uint32_t row, uint8_t *dst);
int nk_sim_array_sync(struct nk_sim *sim, struct nk_diag *why);

/* Bytes of a resident block's page table (pointers and NOP counts). */
static inline uint64_t nk_sim_table_bytes(const struct nk_sim *sim)
{
    return (uint64_t)sim->params.chip.pages_per_block * (sizeof(uint8_t *) + 1u);
}

/* Stored bytes of `page` of a resident block; NULL while it is erased. */
static inline const uint8_t *nk_sim_block_page(const struct nk_sim_block *b, uint32_t page)
{
    return b->pages[page];
}

/* Stored bytes of `page` of a resident block, to change: an erased page
 * gets its own page_bytes of 0xFF first. NULL when out of memory. */
uint8_t *nk_sim_block_page_writable(struct nk_sim *sim, struct nk_sim_block *b, uint32_t page);

/* Frees `page` of a resident block: it reads erased from now on. */
void nk_sim_block_page_release(struct nk_sim *sim, struct nk_sim_block *b, uint32_t page);

static inline uint8_t *nk_sim_block_nop(const struct nk_sim *sim, const struct nk_sim_block *b)
{
    return (uint8_t *)(b->pages + sim->params.chip.pages_per_block);
}

/* ----- sim_physics.c ----- */
/* Array operations, called by the state machine at the confirm cycle. */
void nk_sim_op_read(struct nk_sim *sim, uint32_t row);
void nk_sim_op_program(struct nk_sim *sim, uint32_t row, bool cache);
void nk_sim_op_erase(struct nk_sim *sim, uint32_t row);
/* Lands a pending program/erase whose busy time ended by `t`. */
void nk_sim_settle(struct nk_sim *sim, uint64_t t);
/* Interrupts a pending program/erase at virtual time `t` (reset, power). */
void nk_sim_interrupt(struct nk_sim *sim, uint64_t t);
/* Power lost at virtual time `t`. */
void nk_sim_power_fail(struct nk_sim *sim, uint64_t t, uint32_t row);
/* Weakly programmed pages: the record of `row` (NULL when none), a new
 * record (mask zeroed; NULL when out of memory), and dropping every record
 * of `block` (erase). */
struct nk_sim_weak_page *nk_sim_weak_find(const struct nk_sim *sim, uint32_t row);
struct nk_sim_weak_page *nk_sim_weak_add(struct nk_sim *sim, uint32_t row);
void nk_sim_weak_drop_block(struct nk_sim *sim, uint32_t block);
void nk_sim_weak_free(struct nk_sim *sim);
/* Virtual time since the cut of `w`. */
uint64_t nk_sim_weak_age(const struct nk_sim *sim, const struct nk_sim_weak_page *w);
/* Applies a fraction `f256`/256 of a page program: each intended 1->0
 * transition lands when its hash lane is below f256. */
void nk_sim_apply_partial_program(struct nk_sim *sim, uint8_t *dst, const uint8_t *data,
                                  uint32_t lo, uint32_t hi, uint32_t row, unsigned f256,
                                  uint64_t salt);

#endif /* NK_SIM_INTERNAL_H */
