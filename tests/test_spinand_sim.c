/* SPDX-License-Identifier: MIT */
/*
 * SPI-NAND parts in the simulator through the device layer: each preset
 * identified with its on-die engine and vendor layout; bit errors corrected
 * up to the part's strength and reported through each vendor's status
 * encoding, uncorrectable beyond; block protection at power-up; protocol
 * errors for wrong sequences; power cuts; page read and program time
 * against the SPI limit at 1 and 4 lines (virtual time, deterministic).
 */
#include <stdlib.h>
#include <string.h>

#include "nandkit/error.h"
#include "nandkit/nand.h"
#include "nandkit/sim.h"
#include "nandkit/spinand.h"
#include "testutil.h"

struct rig {
    struct nk_sim *sim;
    struct nk_nand nand;
    void *ws;
};

static int rig_open(struct rig *r, const char *preset, const struct nk_ecc_engine *ecc)
{
    memset(r, 0, sizeof *r);
    struct nk_sim_config sc = {.preset = preset, .seed = 7};
    struct nk_diag why;
    int err = nk_sim_open(&r->sim, &sc, &why);
    if (err)
        fail_msg("%s: %s", preset, why.text);
    size_t size = nk_nand_default_workspace_size(&nk_sim_params(r->sim)->chip);
    r->ws = malloc(size);
    struct nk_nand_config nc = {.ctrl = nk_sim_ctrl(r->sim),
                                .ecc = ecc,
                                .workspace = r->ws,
                                .workspace_size = size,
                                .clock = nk_sim_clock(r->sim)};
    return nk_nand_open(&r->nand, &nc);
}

static void rig_close(struct rig *r)
{
    nk_nand_close(&r->nand);
    nk_sim_close(r->sim);
    free(r->ws);
}

static void fill(uint8_t *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(i * 31u + seed * 7u + 1u);
}

static void test_every_spinand_preset_opens_with_its_engine_and_layout(void **state)
{
    (void)state;
    unsigned parts = 0;
    for (unsigned k = 0; nk_spinand_table_entry(k); k++, parts++) {
        const struct nk_spinand_part *part = nk_spinand_table_entry(k);
        struct rig r;
        int err = rig_open(&r, part->info.model, NULL);
        if (err)
            fail_msg("%s: %d %s", part->info.model, err, r.nand.diag.text);
        const struct nk_chip_info *info = nk_nand_chip_info(&r.nand);
        assert_string_equal(info->model, part->info.model);
        assert_memory_equal(info->id, part->info.id, part->info.id_len);
        const struct nk_ecc_engine *ecc = nk_nand_ecc(&r.nand);
        assert_int_equal(ecc->placement, NK_ECC_PLACEMENT_ON_DIE);
        assert_string_equal(ecc->name, "on-die");
        assert_int_equal(ecc->strength, part->info.ecc_strength);
        struct nk_oob_layout layout;
        nk_spinand_oob_layout(part, &layout);
        assert_int_equal(nk_nand_free_oob_bytes(&r.nand), nk_oob_free_bytes(&layout));
        assert_memory_equal(nk_nand_oob_layout(&r.nand), &layout, sizeof layout);
        /* A round trip with the free bytes. */
        uint8_t *data = malloc(info->page_size), *back = malloc(info->page_size);
        uint8_t tags[64], tags_back[64];
        fill(data, info->page_size, k);
        fill(tags, sizeof tags, k + 100);
        assert_int_equal(nk_nand_erase_block(&r.nand, 1), 0);
        uint32_t page = info->pages_per_block;
        assert_int_equal(nk_nand_program_page(&r.nand, page, data, tags, NK_OOB_AUTO), 0);
        assert_int_equal(nk_nand_read_page(&r.nand, page, back, tags_back, NK_OOB_AUTO), 0);
        assert_memory_equal(back, data, info->page_size);
        assert_memory_equal(tags_back, tags, nk_nand_free_oob_bytes(&r.nand));
        free(data);
        free(back);
        rig_close(&r);
    }
    assert_int_equal(parts, 6);
}

/* Reads page 2 with `flips` wrong bits in its first ECC step. */
static int read_with_flips(struct rig *r, unsigned flips, uint8_t *data, uint8_t *back)
{
    nk_sim_stuck_bits_clear(r->sim);
    for (unsigned i = 0; i < flips; i++) {
        uint32_t bit = 8u * (10u + 37u * i) + (i % 8u);
        bool stored = (data[bit / 8] >> (bit % 8)) & 1u;
        assert_int_equal(nk_sim_stuck_bit_add(r->sim, 2, bit, !stored), 0);
    }
    return nk_nand_read_page(&r->nand, 2, back, NULL, NK_OOB_PLACE);
}

static void test_bitflips_are_reported_through_each_vendor_encoding(void **state)
{
    (void)state;
    static const struct {
        const char *model;
        unsigned flips;
        int result;
    } cases[] = {
        /* Winbond: 01 means "corrected", the strength (1) is reported. */
        {"W25N01GV", 0, 0},
        {"W25N01GV", 1, 1},
        {"W25N01GV", 2, -NK_EBADMSG},
        /* GigaDevice: 1..4 all read 4, then 5, 6, 7 from STATUS2, 8 from 11. */
        {"GD5F1GQ4UB", 1, 4},
        {"GD5F1GQ4UB", 4, 4},
        {"GD5F1GQ4UB", 6, 6},
        {"GD5F1GQ4UB", 8, 8},
        {"GD5F1GQ4UB", 9, -NK_EBADMSG},
        /* Micron: the upper bound of 1-3, 4-6, 7-8. */
        {"MT29F1G01ABAFD", 1, 3},
        {"MT29F1G01ABAFD", 5, 6},
        {"MT29F1G01ABAFD", 7, 8},
        {"MT29F1G01ABAFD", 9, -NK_EBADMSG},
        /* Macronix: the count from 7Ch. */
        {"MX35LF1GE4AB", 1, 1},
        {"MX35LF1GE4AB", 3, 3},
        {"MX35LF1GE4AB", 4, 4},
        {"MX35LF1GE4AB", 5, -NK_EBADMSG},
        /* Kioxia: the count from feature 30h. */
        {"TC58CVG0S3HRAIG", 2, 2},
        {"TC58CVG0S3HRAIG", 8, 8},
        {"TC58CVG0S3HRAIG", 9, -NK_EBADMSG},
        {"MT29F2G01ABAGD", 2, 3},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rig r;
        assert_int_equal(rig_open(&r, cases[i].model, NULL), 0);
        uint32_t page_size = nk_nand_page_size(&r.nand);
        uint8_t *data = malloc(page_size), *back = malloc(page_size);
        fill(data, page_size, i);
        assert_int_equal(nk_nand_program_page(&r.nand, 2, data, NULL, NK_OOB_PLACE), 0);
        int got = read_with_flips(&r, cases[i].flips, data, back);
        if (got != cases[i].result)
            fail_msg("%s with %u flips: %d, expected %d", cases[i].model, cases[i].flips, got,
                     cases[i].result);
        if (got >= 0)
            assert_memory_equal(back, data, page_size);
        else /* beyond the strength the data comes back with its flips */
            assert_memory_not_equal(back, data, page_size);
        free(data);
        free(back);
        rig_close(&r);
    }
}

static void test_without_the_on_die_engine_the_array_reads_as_it_is(void **state)
{
    (void)state;
    struct nk_ecc_engine none;
    nk_ecc_none_init(&none);
    struct rig r;
    assert_int_equal(rig_open(&r, "MT29F1G01ABAFD", &none), 0);
    uint8_t data[2048], back[2048];
    fill(data, sizeof data, 3);
    assert_int_equal(nk_nand_program_page(&r.nand, 2, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(read_with_flips(&r, 1, data, back), 0);
    assert_int_equal(back[10] ^ data[10], 0x01); /* the flip stays */
    rig_close(&r);
}

static void test_blocks_are_locked_at_power_up_until_the_chip_layer_unlocks(void **state)
{
    (void)state;
    struct nk_sim *sim;
    struct nk_sim_config sc = {.preset = "W25N01GV", .seed = 1};
    assert_int_equal(nk_sim_open(&sim, &sc, NULL), 0);
    const struct nk_spinand_part *part = nk_spinand_table_find("W25N01GV");
    struct nk_chip chip;
    nk_chip_attach(&chip, nk_sim_ctrl(sim), 0, &part->info); /* no reset: still locked */
    uint8_t data[16];
    memset(data, 0x00, sizeof data);
    struct nk_xfer x = {0, sizeof data, data};
    assert_int_equal(nk_chip_program_page(&chip, 64, &x, 1, false), -NK_EIO);
    assert_int_equal(nk_chip_erase_block(&chip, 64), -NK_EIO);
    uint8_t byte;
    assert_int_equal(nk_sim_page_peek(sim, 64, 0, &byte, 1), 0);
    assert_int_equal(byte, 0xff);
    assert_int_equal(nk_chip_reset(&chip), 0); /* RESET, then protection 00h */
    assert_int_equal(nk_chip_program_page(&chip, 64, &x, 1, false), 0);
    assert_int_equal(nk_sim_page_peek(sim, 64, 0, &byte, 1), 0);
    assert_int_equal(byte, 0x00);
    nk_sim_close(sim);
}

static void exec_simple(const struct nk_ctrl *ctrl, uint8_t opcode, uint8_t addr_bytes,
                        uint32_t addr)
{
    struct nk_spi_op op;
    memset(&op, 0, sizeof op);
    op.cmd.opcode = opcode;
    op.addr.bytes = addr_bytes;
    op.addr.value = addr;
    assert_int_equal(ctrl->ops->exec_spi(ctrl->ctx, &op), 0);
}

static void test_wrong_sequences_are_protocol_errors(void **state)
{
    (void)state;
    struct rig r;
    assert_int_equal(rig_open(&r, "GD5F1GQ4UB", NULL), 0);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(r.sim);
    struct nk_sim_counters before, after;
    nk_sim_counters(r.sim, &before);

    /* PROGRAM EXECUTE without WRITE ENABLE: ignored. */
    exec_simple(ctrl, NK_SPINAND_PROGRAM_EXECUTE, 3, 5);
    nk_sim_counters(r.sim, &after);
    assert_int_equal(after.protocol_errors, before.protocol_errors + 1);
    assert_int_equal(after.ops[NK_SIM_OP_PROGRAM], before.ops[NK_SIM_OP_PROGRAM]);

    /* READ FROM CACHE while the page read is still busy. */
    exec_simple(ctrl, NK_SPINAND_PAGE_READ, 3, 5);
    uint8_t buf[4];
    struct nk_spi_op op;
    memset(&op, 0, sizeof op);
    op.cmd.opcode = NK_SPINAND_READ_CACHE_FAST;
    op.addr.bytes = 2;
    op.dummy.bytes = 1;
    op.data.dir = NK_SPI_DATA_IN;
    op.data.len = sizeof buf;
    op.data.in = buf;
    assert_int_equal(ctrl->ops->exec_spi(ctrl->ctx, &op), 0);
    nk_sim_counters(r.sim, &after);
    assert_int_equal(after.protocol_errors, before.protocol_errors + 2);

    /* x4 data with the QE bit clear. */
    assert_int_equal(nk_sim_time_advance(r.sim, 1000000), 0);
    assert_int_equal(nk_spinand_set_bus_width(&r.nand.chip, 1), 0);
    op.cmd.opcode = NK_SPINAND_READ_CACHE_X4;
    op.data.width = 4;
    assert_int_equal(ctrl->ops->exec_spi(ctrl->ctx, &op), 0);
    nk_sim_counters(r.sim, &after);
    assert_int_equal(after.protocol_errors, before.protocol_errors + 3);

    /* An opcode the part does not know. */
    exec_simple(ctrl, 0x7c, 0, 0);
    nk_sim_counters(r.sim, &after);
    assert_int_equal(after.unknown_commands, before.unknown_commands + 1);
    rig_close(&r);
}

static void test_two_plane_cache_access_with_the_wrong_plane_bit_is_refused(void **state)
{
    (void)state;
    struct rig r;
    assert_int_equal(rig_open(&r, "MT29F2G01ABAGD", NULL), 0);
    uint8_t data[2048], back[2048];
    fill(data, sizeof data, 9);
    uint32_t page = 3 * 64; /* block 3: plane 1 */
    assert_int_equal(nk_nand_program_page(&r.nand, page, data, NULL, NK_OOB_PLACE), 0);
    assert_int_equal(nk_nand_read_page(&r.nand, page, back, NULL, NK_OOB_PLACE), 0);
    assert_memory_equal(back, data, sizeof data);
    struct nk_sim_counters c;
    nk_sim_counters(r.sim, &c);
    assert_int_equal(c.protocol_errors, 0);
    /* The same read with plane bit 0. */
    const struct nk_ctrl *ctrl = nk_sim_ctrl(r.sim);
    exec_simple(ctrl, NK_SPINAND_PAGE_READ, 3, page);
    assert_int_equal(nk_sim_time_advance(r.sim, 1000000), 0);
    uint8_t buf[4];
    struct nk_spi_op op;
    memset(&op, 0, sizeof op);
    op.cmd.opcode = NK_SPINAND_READ_CACHE_FAST;
    op.addr.bytes = 2;
    op.dummy.bytes = 1;
    op.data.dir = NK_SPI_DATA_IN;
    op.data.len = sizeof buf;
    op.data.in = buf;
    assert_int_equal(ctrl->ops->exec_spi(ctrl->ctx, &op), 0);
    nk_sim_counters(r.sim, &c);
    assert_int_equal(c.protocol_errors, 1);
    rig_close(&r);
}

static void test_a_power_cut_during_program_then_protection_is_back(void **state)
{
    (void)state;
    struct rig r;
    assert_int_equal(rig_open(&r, "W25N01GV", NULL), 0);
    uint8_t data[2048];
    fill(data, sizeof data, 4);
    nk_sim_power_cut_after(r.sim, 0);
    assert_int_equal(nk_nand_program_page(&r.nand, 0, data, NULL, NK_OOB_PLACE), -NK_ENODEV);
    assert_false(nk_sim_powered(r.sim));
    nk_sim_power_restore(r.sim);
    struct nk_sim_counters c;
    nk_sim_counters(r.sim, &c);
    /* The registers are as at power-up: locked. Opening again unlocks. */
    nk_nand_close(&r.nand);
    size_t size = nk_nand_default_workspace_size(&nk_sim_params(r.sim)->chip);
    struct nk_nand_config nc = {
        .ctrl = nk_sim_ctrl(r.sim), .workspace = r.ws, .workspace_size = size};
    assert_int_equal(nk_nand_open(&r.nand, &nc), 0);
    assert_int_equal(nk_nand_erase_block(&r.nand, 0), 0);
    assert_int_equal(nk_nand_program_page(&r.nand, 0, data, NULL, NK_OOB_PLACE), 0);
    rig_close(&r);
}

/* ----- time against the SPI limit ----------------------------------------------- */

/* ns for `clocks` at `hz`. */
static double clocks_ns(double clocks, double hz)
{
    return clocks * 1e9 / hz;
}

static void check_near_limit(const char *what, uint64_t measured, double limit)
{
    double ratio = (double)measured / limit;
    print_message("  %s: %.2f us, limit %.2f us (%.2f %%)\n", what, measured / 1000.0,
                  limit / 1000.0, (ratio - 1.0) * 100.0);
    assert_true((double)measured >= limit);
    assert_true(ratio < 1.02);
}

static void test_page_read_and_program_are_within_2_percent_of_the_spi_limit(void **state)
{
    (void)state;
    static const unsigned widths[] = {1, 4};
    for (unsigned w = 0; w < 2; w++) {
        unsigned width = widths[w];
        struct rig r;
        assert_int_equal(rig_open(&r, "W25N01GV", NULL), 0);
        const struct nk_spinand_part *part = nk_spinand_table_find("W25N01GV");
        assert_int_equal(nk_spinand_set_bus_width(&r.nand.chip, width), 0);
        double hz = part->max_hz;
        double bytes = 2048 + 64;
        uint8_t data[2048], oob[64], back[2048];
        fill(data, sizeof data, w);
        memset(oob, 0xff, sizeof oob);

        /* Program: WRITE ENABLE (8 clocks), PROGRAM LOAD (command + 2
         * address bytes, then the page on `width` lines), PROGRAM EXECUTE
         * (32), then tPROG. */
        uint64_t t0 = nk_sim_time_ns(r.sim);
        assert_int_equal(nk_nand_program_page(&r.nand, 0, data, oob, NK_OOB_PLACE), 0);
        uint64_t program = nk_sim_time_ns(r.sim) - t0;
        double program_limit =
            part->info.timing.tPROG_ns + clocks_ns(8 + 24 + bytes * 8 / width + 32, hz);
        check_near_limit(width == 1 ? "program x1" : "program x4", program, program_limit);

        /* Read: PAGE READ (32 clocks), tRD, READ FROM CACHE (x1: 0Bh with
         * 2 address bytes and 8 dummy clocks; x4: EBh with address on four
         * lines, 4 clocks, and 4 dummy clocks), then the page. */
        t0 = nk_sim_time_ns(r.sim);
        assert_int_equal(nk_nand_read_page(&r.nand, 0, back, oob, NK_OOB_PLACE), 0);
        uint64_t read = nk_sim_time_ns(r.sim) - t0;
        double header = width == 1 ? 8 + 16 + 8 : 8 + 4 + 4;
        double read_limit =
            part->info.timing.tR_ns + clocks_ns(32 + header + bytes * 8 / width, hz);
        check_near_limit(width == 1 ? "read x1" : "read x4", read, read_limit);
        assert_memory_equal(back, data, sizeof data);
        rig_close(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_spinand_preset_opens_with_its_engine_and_layout),
        cmocka_unit_test(test_bitflips_are_reported_through_each_vendor_encoding),
        cmocka_unit_test(test_without_the_on_die_engine_the_array_reads_as_it_is),
        cmocka_unit_test(test_blocks_are_locked_at_power_up_until_the_chip_layer_unlocks),
        cmocka_unit_test(test_wrong_sequences_are_protocol_errors),
        cmocka_unit_test(test_two_plane_cache_access_with_the_wrong_plane_bit_is_refused),
        cmocka_unit_test(test_a_power_cut_during_program_then_protection_is_back),
        cmocka_unit_test(test_page_read_and_program_are_within_2_percent_of_the_spi_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
