/* SPDX-License-Identifier: MIT */
/*
 * Continuous read (Winbond W25N01GV, BUF = 0): the chip layer's operations
 * on a recording port (the mode bit cleared, one PAGE READ, one read from
 * cache without a column and with 4 dummy bytes, the summed-up status, A9h
 * when a page failed, the mode bit set again); then in the simulator
 * through the device layer's multi-page read: the bytes of every page,
 * across a block boundary, the ECC outcome of a stream (corrected,
 * uncorrectable in one page and in two, the last one named), and the time
 * against the streaming limit at 1 and 4 lines (virtual time); the
 * benchmark's continuous and page-at-a-time figures for one block.
 */
#include <stdlib.h>
#include <string.h>

#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/sim.h"
#include "nandkit/spinand.h"
#include "nkbench.h"
#include "testutil.h"

/* ----- the recording port ----------------------------------------------------------- */

#define REC_MAX 32

struct rec_op {
    uint8_t opcode;
    uint8_t addr_bytes;
    uint32_t addr;
    unsigned dummy_clocks;
    enum nk_spi_dir dir;
    uint8_t data_width;
    uint32_t len;
    uint8_t first_out;
};

struct rec_port {
    struct nk_ctrl ctrl;
    const uint8_t *id;
    unsigned id_len;
    uint8_t status, config;
    uint8_t failed_page[2]; /* answered to A9h */
    struct rec_op ops[REC_MAX];
    unsigned count;
    uint32_t clock_us; /* the port's clock (1 MHz): one tick per operation */
};

static int rec_exec(void *ctx, const struct nk_spi_op *op)
{
    struct rec_port *p = ctx;
    p->clock_us++;
    if (p->count < REC_MAX) {
        struct rec_op *r = &p->ops[p->count++];
        unsigned dw = op->dummy.width ? op->dummy.width : 1;
        r->opcode = op->cmd.opcode;
        r->addr_bytes = op->addr.bytes;
        r->addr = op->addr.value;
        r->dummy_clocks = op->dummy.bytes * 8u / dw;
        r->dir = op->data.dir;
        r->data_width = op->data.width ? op->data.width : 1;
        r->len = op->data.len;
        r->first_out = op->data.dir == NK_SPI_DATA_OUT && op->data.len ? op->data.out[0] : 0;
    }
    if (op->cmd.opcode == NK_SPINAND_SET_FEATURE && op->addr.value == NK_SPINAND_FEATURE_CONFIG)
        p->config = op->data.out[0];
    if (op->data.dir != NK_SPI_DATA_IN)
        return 0;
    memset(op->data.in, 0, op->data.len);
    if (op->cmd.opcode == NK_SPINAND_READ_ID)
        memcpy(op->data.in, p->id, p->id_len < op->data.len ? p->id_len : op->data.len);
    else if (op->cmd.opcode == NK_SPINAND_GET_FEATURE)
        op->data.in[0] = op->addr.value == NK_SPINAND_FEATURE_STATUS   ? p->status
                         : op->addr.value == NK_SPINAND_FEATURE_CONFIG ? p->config
                                                                       : 0;
    else if (op->cmd.opcode == NK_SPINAND_WB_LAST_ECC_FAILURE)
        memcpy(op->data.in, p->failed_page, op->data.len < 2 ? op->data.len : 2);
    return 0;
}

static uint32_t rec_clock_ticks(void *ctx)
{
    const struct rec_port *p = ctx;
    return p->clock_us;
}

static const struct nk_ctrl_ops rec_ops = {.exec_spi = rec_exec, .clock_ticks = rec_clock_ticks};

static void rec_open(struct rec_port *p, struct nk_chip *chip, const char *model, uint8_t widths)
{
    memset(p, 0, sizeof *p);
    const struct nk_spinand_part *part = nk_spinand_table_find(model);
    assert_non_null(part);
    p->ctrl.ops = &rec_ops;
    p->ctrl.ctx = p;
    p->ctrl.caps = NK_CTRL_CAP_SERIAL;
    p->ctrl.clock_mhz = 1;
    p->ctrl.spi.widths = widths;
    p->id = part->info.id;
    p->id_len = part->info.id_len;
    p->config = part->config_default;
    assert_int_equal(nk_chip_identify(chip, &p->ctrl, 0), 0);
    p->count = 0;
}

static void assert_op(const struct rec_op *r, uint8_t opcode, uint8_t addr_bytes, uint32_t addr,
                      unsigned dummy_clocks, enum nk_spi_dir dir, uint32_t len, uint8_t width)
{
    if (r->opcode != opcode)
        fail_msg("opcode %02x, expected %02x", r->opcode, opcode);
    assert_int_equal(r->addr_bytes, addr_bytes);
    if (addr_bytes)
        assert_int_equal(r->addr, addr);
    assert_int_equal(r->dummy_clocks, dummy_clocks);
    assert_int_equal(r->dir, dir);
    if (dir != NK_SPI_DATA_NONE) {
        assert_int_equal(r->len, len);
        assert_int_equal(r->data_width, width);
    }
}

/* The operations of one continuous read of `pages` pages from `row`, up to
 * the stream's status read; returns the index after it. */
static unsigned assert_stream(const struct rec_port *p, uint32_t row, uint32_t pages,
                              uint8_t opcode, uint8_t width)
{
    uint8_t with_buf = nk_spinand_table_find("W25N01GV")->config_default;
    assert_op(&p->ops[0], NK_SPINAND_GET_FEATURE, 1, NK_SPINAND_FEATURE_CONFIG, 0, NK_SPI_DATA_IN,
              1, 1);
    assert_op(&p->ops[1], NK_SPINAND_SET_FEATURE, 1, NK_SPINAND_FEATURE_CONFIG, 0, NK_SPI_DATA_OUT,
              1, 1);
    assert_int_equal(p->ops[1].first_out, with_buf & ~NK_SPINAND_CONFIG_BUF);
    assert_op(&p->ops[2], NK_SPINAND_PAGE_READ, 3, row, 0, NK_SPI_DATA_NONE, 0, 1);
    assert_op(&p->ops[3], NK_SPINAND_GET_FEATURE, 1, NK_SPINAND_FEATURE_STATUS, 0, NK_SPI_DATA_IN,
              1, 1);
    /* No column address: the stream starts at byte 0 of the page. */
    assert_op(&p->ops[4], opcode, 0, 0, 32, NK_SPI_DATA_IN, pages * 2048u, width);
    assert_op(&p->ops[5], NK_SPINAND_GET_FEATURE, 1, NK_SPINAND_FEATURE_STATUS, 0, NK_SPI_DATA_IN,
              1, 1);
    return 6;
}

static void assert_buf_set_again(const struct rec_op *r)
{
    uint8_t with_buf = nk_spinand_table_find("W25N01GV")->config_default;
    assert_op(r, NK_SPINAND_SET_FEATURE, 1, NK_SPINAND_FEATURE_CONFIG, 0, NK_SPI_DATA_OUT, 1, 1);
    assert_int_equal(r->first_out, with_buf);
}

static void test_continuous_read_is_buf_0_page_read_one_stream_then_buf_1(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    static uint8_t buf[4 * 2048];
    rec_open(&p, &chip, "W25N01GV", NK_SPI_WIDTH_1);
    assert_int_equal(nk_spinand_read_continuous(&chip, 0x0123, 4, buf), 0);
    unsigned i = assert_stream(&p, 0x0123, 4, NK_SPINAND_READ_CACHE_FAST, 1);
    assert_buf_set_again(&p.ops[i]);
    assert_int_equal(p.count, i + 1);
}

static void test_continuous_read_on_four_lines_is_6bh_with_one_line_dummies(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    static uint8_t buf[3 * 2048];
    rec_open(&p, &chip, "W25N01GV", NK_SPI_WIDTH_1 | NK_SPI_WIDTH_4);
    assert_int_equal(nk_spinand_read_continuous(&chip, 64, 3, buf), 0);
    unsigned i = assert_stream(&p, 64, 3, NK_SPINAND_READ_CACHE_X4, 4);
    assert_buf_set_again(&p.ops[i]);
}

static void test_an_uncorrectable_stream_reads_the_failed_page_from_a9h(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    static uint8_t buf[8 * 2048];
    rec_open(&p, &chip, "W25N01GV", NK_SPI_WIDTH_1);
    p.status = 3u << 4; /* 11: uncorrectable in more than one page */
    p.failed_page[0] = 0x01;
    p.failed_page[1] = 0x05;
    assert_int_equal(nk_spinand_read_continuous(&chip, 0x100, 8, buf), -NK_EBADMSG);
    unsigned i = assert_stream(&p, 0x100, 8, NK_SPINAND_READ_CACHE_FAST, 1);
    assert_op(&p.ops[i], NK_SPINAND_WB_LAST_ECC_FAILURE, 0, 0, 8, NK_SPI_DATA_IN, 2, 1);
    assert_buf_set_again(&p.ops[i + 1]);
    assert_non_null(strstr(chip.diag.text, "page 261"));

    /* 01: some page corrected; Winbond gives no count, the strength is reported. */
    p.count = 0;
    p.status = 1u << 4;
    assert_int_equal(nk_spinand_read_continuous(&chip, 0x100, 8, buf), 1);
    i = assert_stream(&p, 0x100, 8, NK_SPINAND_READ_CACHE_FAST, 1);
    assert_buf_set_again(&p.ops[i]);
}

static void test_a_part_without_continuous_read_is_enotsup_and_sends_nothing(void **state)
{
    (void)state;
    struct rec_port p;
    struct nk_chip chip;
    static uint8_t buf[2 * 2048];
    rec_open(&p, &chip, "GD5F1GQ4UB", NK_SPI_WIDTH_1);
    assert_int_equal(nk_spinand_read_continuous(&chip, 0, 2, buf), -NK_ENOTSUP);
    assert_int_equal(p.count, 0);
}

/* ----- the simulated part ------------------------------------------------------------ */

struct rig {
    struct nk_sim *sim;
    struct nk_nand nand;
    void *ws;
};

static void rig_open(struct rig *r)
{
    memset(r, 0, sizeof *r);
    struct nk_sim_config sc = {.preset = "W25N01GV", .seed = 3, .measure_host_time = true};
    struct nk_diag why;
    if (nk_sim_open(&r->sim, &sc, &why))
        fail_msg("W25N01GV: %s", why.text);
    size_t size = nk_nand_default_workspace_size(&nk_sim_params(r->sim)->chip);
    r->ws = malloc(size);
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(r->sim),
                                .workspace = r->ws,
                                .workspace_size = size,
                                .clock = nk_sim_clock(r->sim)};
    assert_int_equal(nk_nand_open(&r->nand, &nc), 0);
}

static void rig_close(struct rig *r)
{
    nk_nand_close(&r->nand);
    nk_sim_close(r->sim);
    free(r->ws);
}

#define FIRST 60u /* the stream crosses from block 0 into block 1 */
#define PAGES 8u

static uint8_t g_data[PAGES * 2048], g_back[PAGES * 2048];

static void program_pages(struct rig *r)
{
    for (size_t i = 0; i < sizeof g_data; i++)
        g_data[i] = (uint8_t)(i * 131u + (i >> 11) * 17u + 5u);
    for (uint32_t i = 0; i < PAGES; i++)
        assert_int_equal(
            nk_nand_program_page(&r->nand, FIRST + i, g_data + i * 2048u, NULL, NK_OOB_PLACE), 0);
}

/* Sets `flips` stuck bits in page `row` against what it holds. */
static void flip(struct rig *r, uint32_t row, unsigned flips)
{
    const uint8_t *page = g_data + (row - FIRST) * 2048u;
    for (unsigned i = 0; i < flips; i++) {
        uint32_t bit = 8u * (100u + 37u * i) + (i % 8u); /* one 512-byte step */
        bool stored = (page[bit / 8] >> (bit % 8)) & 1u;
        assert_int_equal(nk_sim_stuck_bit_add(r->sim, row, bit, !stored), 0);
    }
}

static void test_read_pages_streams_every_page_across_a_block_boundary(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    program_pages(&r);
    struct nk_sim_counters c0, c1;
    nk_sim_counters(r.sim, &c0);
    assert_int_equal(nk_nand_read_pages(&r.nand, FIRST, PAGES, g_back, NULL, NK_OOB_PLACE), 0);
    nk_sim_counters(r.sim, &c1);
    assert_memory_equal(g_back, g_data, sizeof g_data);
    /* Every page came from the array, with one PAGE READ. */
    assert_int_equal(c1.ops[NK_SIM_OP_READ] - c0.ops[NK_SIM_OP_READ], PAGES);
    assert_int_equal(c1.protocol_errors, c0.protocol_errors);
    /* Page-at-a-time reads afterwards: BUF is set again. */
    uint8_t page[2048], oob[64];
    assert_int_equal(nk_nand_read_page(&r.nand, FIRST + 1, page, oob, NK_OOB_PLACE), 0);
    assert_memory_equal(page, g_data + 2048, sizeof page);
    rig_close(&r);
}

static void test_a_stream_reports_the_worst_page_and_names_the_last_failure(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    program_pages(&r);
    /* One bit in one page: corrected, the strength reported, data right. */
    flip(&r, FIRST + 3, 1);
    assert_int_equal(nk_nand_read_pages(&r.nand, FIRST, PAGES, g_back, NULL, NK_OOB_PLACE), 1);
    assert_memory_equal(g_back, g_data, sizeof g_data);
    /* Two bits in page 65: beyond the 1-bit strength, the page named. */
    flip(&r, FIRST + 5, 2);
    assert_int_equal(nk_nand_read_pages(&r.nand, FIRST, PAGES, g_back, NULL, NK_OOB_PLACE),
                     -NK_EBADMSG);
    assert_non_null(strstr(r.nand.diag.text, "page 65 "));
    assert_memory_equal(g_back, g_data, 5 * 2048); /* the pages before it are intact */
    /* And in page 67 too: status 11, the last one named. */
    flip(&r, FIRST + 7, 2);
    assert_int_equal(nk_nand_read_pages(&r.nand, FIRST, PAGES, g_back, NULL, NK_OOB_PLACE),
                     -NK_EBADMSG);
    assert_non_null(strstr(r.nand.diag.text, "page 67 "));
    rig_close(&r);
}

static void test_a_stream_is_within_2_percent_of_the_streaming_limit(void **state)
{
    (void)state;
    static const unsigned widths[] = {1, 4};
    for (unsigned w = 0; w < 2; w++) {
        struct rig r;
        rig_open(&r);
        const struct nk_spinand_part *part = nk_spinand_table_find("W25N01GV");
        assert_int_equal(nk_spinand_set_bus_width(&r.nand.chip, widths[w]), 0);
        program_pages(&r);
        uint64_t t0 = nk_sim_time_ns(r.sim);
        assert_int_equal(nk_nand_read_pages(&r.nand, FIRST, PAGES, g_back, NULL, NK_OOB_PLACE), 0);
        uint64_t took = nk_sim_time_ns(r.sim) - t0;
        /* tRD once, then the command, 32 dummy clocks and every page's
         * 2048 bytes on `width` lines. */
        double limit = part->info.timing.tR_ns +
                       (8.0 + 32.0 + PAGES * 2048.0 * 8.0 / widths[w]) * 1e9 / part->max_hz;
        double ratio = (double)took / limit;
        print_message("  %u pages x%u: %.2f us, limit %.2f us (%.2f %%)\n", PAGES, widths[w],
                      took / 1000.0, limit / 1000.0, (ratio - 1.0) * 100.0);
        assert_true((double)took >= limit);
        assert_true(ratio < 1.02);
        assert_memory_equal(g_back, g_data, sizeof g_data);
        rig_close(&r);
    }
}

/* The device time of a figure (what the simulator charged, no host CPU). */
static double device_us(const struct nk_bench_stat *s)
{
    return s->array_us + s->bus_us;
}

static void test_bench_measures_continuous_against_page_at_a_time_reads(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    struct nk_bench_config config;
    memset(&config, 0, sizeof config);
    config.nand = &r.nand;
    config.sim = r.sim;
    config.clock = NK_BENCH_CLOCK_SIM;
    config.count = 4;
    config.block_count = 2;
    config.seed = 3;
    struct nk_bench_result result;
    struct nk_diag why[1] = {{""}};
    if (nk_bench_run(&config, &result, why))
        fail_msg("bench: %s", why->text);
    const struct nk_bench_stat *paged = &result.seq_paged, *stream = &result.seq_continuous;
    assert_int_equal(paged->count, 2);
    assert_int_equal(stream->count, 2);
    /* Four lines at 104 MHz: tRD once, 40 clocks, 64 data areas. */
    assert_float_equal(stream->limit_us, 60.0 + (40.0 + 64 * 2048 * 8 / 4.0) / 104.0, 1e-6);
    assert_float_equal(paged->limit_us, 64 * result.ops[NK_BENCH_PAGE_READ_DATA].limit_us, 1e-6);
    print_message("  block of 64 pages: page at a time %.2f us device time (limit %.2f), "
                  "continuous %.2f us (limit %.2f)\n",
                  device_us(paged), paged->limit_us, device_us(stream), stream->limit_us);
    assert_true(device_us(stream) >= stream->limit_us);
    assert_true(device_us(stream) < 1.02 * stream->limit_us);
    assert_true(device_us(paged) >= paged->limit_us);
    assert_true(device_us(stream) < 0.45 * device_us(paged));
    rig_close(&r);

    /* A part without continuous read has no such figures. */
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "GD5F1GQ4UB", .seed = 3, .measure_host_time = true};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    size_t size = nk_nand_default_workspace_size(&nk_sim_params(sim)->chip);
    void *ws = malloc(size);
    struct nk_nand nand;
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(sim),
                                .workspace = ws,
                                .workspace_size = size,
                                .clock = nk_sim_clock(sim)};
    assert_int_equal(nk_nand_open(&nand, &nc), 0);
    config.nand = &nand;
    config.sim = sim;
    assert_int_equal(nk_bench_run(&config, &result, why), 0);
    assert_int_equal(result.seq_paged.count, 0);
    assert_int_equal(result.seq_continuous.count, 0);
    nk_nand_close(&nand);
    nk_sim_close(sim);
    free(ws);
}

/* A device that hides the part (a Linux MTD device) takes the serial
 * limits from the part named to the benchmark. */
static void test_bench_limits_of_a_named_part_behind_a_device_that_hides_it(void **state)
{
    (void)state;
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "K9F1G08U0A", .seed = 3};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    size_t size = nk_nand_default_workspace_size(&nk_sim_params(sim)->chip);
    void *ws = malloc(size);
    struct nk_nand nand;
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(sim),
                                .workspace = ws,
                                .workspace_size = size,
                                .clock = nk_sim_clock(sim)};
    assert_int_equal(nk_nand_open(&nand, &nc), 0);
    const struct nk_spinand_part *part = nk_spinand_table_find("W25N01GV");
    struct nk_bench_config config;
    memset(&config, 0, sizeof config);
    config.nand = &nand;
    config.sim = sim;
    config.clock = NK_BENCH_CLOCK_SIM;
    config.count = 2;
    config.block_count = 1;
    config.seed = 3;
    config.timing = &part->info.timing;
    config.serial_part = part;
    config.serial_width = 4;
    struct nk_bench_result result;
    struct nk_diag why[1] = {{""}};
    if (nk_bench_run(&config, &result, why))
        fail_msg("bench: %s", why->text);
    /* tRD + (13h 32 + EBh 16 clocks + 2112 bytes on 4 lines) at 104 MHz. */
    assert_float_equal(result.ops[NK_BENCH_PAGE_READ].limit_us,
                       60.0 + (32.0 + 16.0 + 2112 * 8 / 4.0) / 104.0, 1e-6);
    /* tPROG + (06h 8 + 32h 24 + 2112 bytes on 4 lines + 10h 32). */
    assert_float_equal(result.ops[NK_BENCH_PAGE_PROGRAM].limit_us,
                       250.0 + (8.0 + 24.0 + 2112 * 8 / 4.0 + 32.0) / 104.0, 1e-6);
    nk_nand_close(&nand);
    nk_sim_close(sim);
    free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_continuous_read_is_buf_0_page_read_one_stream_then_buf_1),
        cmocka_unit_test(test_continuous_read_on_four_lines_is_6bh_with_one_line_dummies),
        cmocka_unit_test(test_an_uncorrectable_stream_reads_the_failed_page_from_a9h),
        cmocka_unit_test(test_a_part_without_continuous_read_is_enotsup_and_sends_nothing),
        cmocka_unit_test(test_read_pages_streams_every_page_across_a_block_boundary),
        cmocka_unit_test(test_a_stream_reports_the_worst_page_and_names_the_last_failure),
        cmocka_unit_test(test_a_stream_is_within_2_percent_of_the_streaming_limit),
        cmocka_unit_test(test_bench_measures_continuous_against_page_at_a_time_reads),
        cmocka_unit_test(test_bench_limits_of_a_named_part_behind_a_device_that_hides_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
