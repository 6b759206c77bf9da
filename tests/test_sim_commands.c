/* SPDX-License-Identifier: MIT */
/*
 * The chip's command sequences, cycle by cycle: READ ID (00h/20h/40h),
 * parameter pages, RESET, READ with random data out, PROGRAM with random
 * data in, ERASE, GET/SET FEATURES, the small-page pointer commands, status
 * polling without R/B, the two data loops, and what the chip does with
 * unknown and out-of-sequence cycles (ignores and counts them).
 */
#include <string.h>

#include "nandkit/chip.h"
#include "sim_ops.h"

static uint64_t protocol_errors(struct nk_sim *sim)
{
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    return c.protocol_errors;
}

static void read_id(const struct nk_ctrl *ctrl, uint8_t address, uint8_t *buf, unsigned len)
{
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x90, 0);
    ops_addr1(&ops, address, 60);
    ops_in(&ops, buf, len, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

static int read_param(const struct nk_ctrl *ctrl, uint8_t address, uint8_t *buf, uint32_t len)
{
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xec, 0);
    ops_addr1(&ops, address, 100);
    ops_wait(&ops, 0);
    ops_in(&ops, buf, len, 0);
    return ops_run(ctrl, &ops);
}

static void test_read_id_repeats_the_id_bytes(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    uint8_t id[8];
    read_id(nk_sim_ctrl(sim), 0x00, id, sizeof id);
    const uint8_t expected[] = {0xec, 0xf1, 0x00, 0x95, 0x40, 0xec, 0xf1, 0x00};
    assert_memory_equal(id, expected, sizeof expected);
    /* A legacy part has no ONFI signature at 20h. */
    read_id(nk_sim_ctrl(sim), 0x20, id, 4);
    assert_memory_not_equal(id, "ONFI", 4);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_READ_ID], 2);
    nk_sim_close(sim);
}

static void test_read_id_20h_gives_onfi_signature(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("mt29f2g08abaea", 1);
    uint8_t id[5];
    read_id(nk_sim_ctrl(sim), 0x20, id, 4);
    assert_memory_equal(id, "ONFI", 4);
    read_id(nk_sim_ctrl(sim), 0x00, id, 5);
    const uint8_t expected[] = {0x2c, 0xda, 0x90, 0x95, 0x06};
    assert_memory_equal(id, expected, 5);
    nk_sim_close(sim);
}

static void test_read_id_40h_gives_jedec_signature(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("NKSIM-JEDEC-2G", 1);
    uint8_t id[5];
    read_id(nk_sim_ctrl(sim), 0x40, id, 5);
    assert_memory_equal(id, "JEDEC", 5);
    uint8_t page[1536];
    assert_int_equal(read_param(nk_sim_ctrl(sim), 0x40, page, sizeof page), 0);
    assert_memory_equal(page, "JESD", 4);
    assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, page, 510), page[510] | page[511] << 8);
    assert_memory_equal(page, page + 512, 512);
    assert_memory_equal(page, page + 1024, 512);
    nk_sim_close(sim);
}

static void test_parameter_page_has_three_valid_copies(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    uint8_t page[768 + 256];
    uint64_t t0 = nk_sim_time_ns(sim);
    assert_int_equal(read_param(nk_sim_ctrl(sim), 0x00, page, sizeof page), 0);
    /* ECh, address (tWB 100 hidden in busy), tR, bytes at tRC 20. */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 20 + 20 + 25000 + sizeof page * 20);
    for (unsigned copy = 0; copy < 3; copy++) {
        const uint8_t *p = page + 256 * copy;
        assert_memory_equal(p, "ONFI", 4);
        assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, p, 254), p[254] | p[255] << 8);
        assert_memory_equal(p, page, 256);
    }
    /* Reading on wraps around to the first copy. */
    assert_memory_equal(page + 768, page, 256);
    nk_sim_close(sim);
}

static void test_corrupted_copy_is_served_as_corrupted(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F2G08ABAEA", &params), 0);
    params.onfi_page[80] ^= 0x01;        /* copy 0: page size field */
    params.onfi_page[256 + 100] ^= 0x80; /* copy 1: LUN count */
    struct nk_sim_config config = {.params = &params};
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    uint8_t page[768];
    assert_int_equal(read_param(nk_sim_ctrl(sim), 0x00, page, sizeof page), 0);
    assert_int_not_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, page, 254), page[254] | page[255] << 8);
    assert_int_not_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, page + 256, 254),
                         page[510] | page[511] << 8);
    assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, page + 512, 254), page[766] | page[767] << 8);
    nk_sim_close(sim);
}

static void test_parameter_page_random_data_out_and_ext_page(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F32G08ABCDB", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t page[256];
    assert_int_equal(read_param(ctrl, 0x00, page, sizeof page), 0);
    assert_int_equal(page[112], 0xff); /* ECC requirement in the extended page */
    uint32_t ext_len = (uint32_t)(page[12] | page[13] << 8) * 16;
    assert_int_equal(ext_len, 48);
    /* 05h/E0h to the extended page right after the three copies. */
    struct nk_test_ops ops = {.count = 0};
    uint8_t col[] = {0x00, 0x03};
    uint8_t ext[48];
    ops_cmd(&ops, 0x05, 0);
    ops_addr(&ops, col, 2, 0);
    ops_cmd(&ops, 0xe0, 200);
    ops_in(&ops, ext, sizeof ext, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_memory_equal(ext + 2, "EPPS", 4);
    assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, ext + 2, 46), ext[0] | ext[1] << 8);
    assert_int_equal(ext[16], 2); /* ECC section */
    assert_int_equal(ext[32], 24);
    assert_int_equal(ext[33], 10); /* per 1024 bytes */
    nk_sim_close(sim);
}

static void test_parameter_page_absent_on_legacy_part(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xec, 0);
    ops_addr1(&ops, 0x00, 0);
    assert_int_equal(ops_run(nk_sim_ctrl(sim), &ops), 0);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.unknown_commands, 1);
    assert_int_equal(c.protocol_errors, 1); /* the orphan address cycle */
    assert_int_equal(c.ops[NK_SIM_OP_READ_PARAM], 0);
    nk_sim_close(sim);
}

static void test_reset_is_busy_for_trst(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xff, 100);
    ops_wait(&ops, 0);
    uint64_t t0 = nk_sim_time_ns(sim);
    assert_int_equal(ops_run(nk_sim_ctrl(sim), &ops), 0);
    assert_int_equal(nk_sim_time_ns(sim) - t0, 30 + 5000);
    assert_int_equal(sim_status(nk_sim_ctrl(sim)), 0xe0);
    nk_sim_close(sim);
}

static void test_program_read_and_random_data_out(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[2112], back[2112];
    nk_test_random(data, sizeof data, 7);
    assert_int_equal(sim_program(ctrl, info, 130, 0, data, sizeof data), 0xe0);
    assert_int_equal(sim_read(ctrl, info, 130, 0, back, sizeof back), 0);
    assert_memory_equal(back, data, sizeof data);
    /* Random data out: jump to the OOB, then back into the data. */
    struct nk_test_ops ops = {.count = 0};
    uint8_t oob_col[] = {0x00, 0x08}, mid_col[] = {0x10, 0x00};
    uint8_t oob[64], mid[16];
    ops_cmd(&ops, 0x05, 0);
    ops_addr(&ops, oob_col, 2, 0);
    ops_cmd(&ops, 0xe0, 60);
    ops_in(&ops, oob, sizeof oob, 0);
    ops_cmd(&ops, 0x05, 0);
    ops_addr(&ops, mid_col, 2, 0);
    ops_cmd(&ops, 0xe0, 60);
    ops_in(&ops, mid, sizeof mid, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_memory_equal(oob, data + 2048, 64);
    assert_memory_equal(mid, data + 16, 16);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_RANDOM_OUT], 2);
    assert_int_equal(c.ops[NK_SIM_OP_READ], 1);
    nk_sim_close(sim);
}

static void test_read_from_a_column_and_past_the_end(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[2112], back[80];
    memset(data, 0x00, sizeof data);
    assert_int_equal(sim_program(ctrl, info, 0, 0, data, sizeof data), 0xe0);
    assert_int_equal(sim_read(ctrl, info, 0, 2100, back, sizeof back), 0);
    uint8_t expected[80];
    memset(expected, 0x00, 12);
    memset(expected + 12, 0xff, 68); /* past the last column the bus reads high */
    assert_memory_equal(back, expected, sizeof expected);
    nk_sim_close(sim);
}

static void test_program_with_random_data_in(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t head[100], oob[8];
    memset(head, 0x11, sizeof head);
    memset(oob, 0x22, sizeof oob);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 9, 0}, oob_col[] = {0x02, 0x08};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 70);
    ops_out(&ops, head, sizeof head, 0);
    ops_cmd(&ops, 0x85, 0);
    ops_addr(&ops, oob_col, 2, 70);
    ops_out(&ops, oob, sizeof oob, 0);
    ops_cmd(&ops, 0x10, 100);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    uint8_t page[2112];
    assert_int_equal(nk_sim_page_peek(sim, 9, 0, page, sizeof page), 0);
    assert_memory_equal(page, head, sizeof head);
    assert_int_equal(page[100], 0xff);
    assert_int_equal(page[2049], 0xff);
    assert_memory_equal(page + 2050, oob, sizeof oob);
    assert_int_equal(page[2058], 0xff);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_RANDOM_IN], 1);
    assert_int_equal(c.ops[NK_SIM_OP_PROGRAM], 1);
    nk_sim_close(sim);
}

static void test_erase_returns_pages_to_ff(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[2112], back[2112], ff[2112];
    memset(data, 0x0f, sizeof data);
    memset(ff, 0xff, sizeof ff);
    assert_int_equal(sim_program(ctrl, info, 64 * 7 + 3, 0, data, sizeof data), 0xe0);
    assert_int_equal(sim_erase(ctrl, info, 7), 0xe0);
    assert_int_equal(sim_read(ctrl, info, 64 * 7 + 3, 0, back, sizeof back), 0);
    assert_memory_equal(back, ff, sizeof ff);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 7, &block), 0);
    assert_int_equal(block.erase_count, 1);
    nk_sim_close(sim);
}

static void test_set_and_get_features(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F2G08ABAEA", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t set[4] = {0x05, 0, 0, 0}, got[4] = {0xaa, 0xaa, 0xaa, 0xaa};
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xef, 0);
    ops_addr1(&ops, 0x01, 70);
    ops_out(&ops, set, 4, 100);
    ops_wait(&ops, 0);
    uint64_t t0 = nk_sim_time_ns(sim);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    /* EFh, address, tADL 70 (50 extra), 4 bytes, tFEAT 1 us. */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 20 + 20 + 50 + 4 * 20 + 1000);
    ops_clear(&ops);
    ops_cmd(&ops, 0xee, 0);
    ops_addr1(&ops, 0x01, 100);
    ops_wait(&ops, 0);
    ops_in(&ops, got, 4, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_memory_equal(got, set, 4);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_SET_FEATURES], 1);
    assert_int_equal(c.ops[NK_SIM_OP_GET_FEATURES], 1);
    nk_sim_close(sim);
}

static void test_features_unknown_on_legacy_part(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0xee, 0);
    assert_int_equal(ops_run(nk_sim_ctrl(sim), &ops), 0);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.unknown_commands, 1);
    nk_sim_close(sim);
}

/* Small page: one column cycle, 00h/01h/50h select the area, no 30h. */
static int small_read(const struct nk_ctrl *ctrl, uint8_t pointer, uint8_t column, uint32_t row,
                      uint8_t *buf, uint32_t len)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {column, (uint8_t)row, (uint8_t)(row >> 8), (uint8_t)(row >> 16)};
    ops_cmd(&ops, pointer, 0);
    ops_addr(&ops, cycles, 4, 100);
    ops_wait(&ops, 0);
    ops_in(&ops, buf, len, 0);
    return ops_run(ctrl, &ops);
}

static int small_program(const struct nk_ctrl *ctrl, uint8_t pointer, uint8_t column, uint32_t row,
                         const uint8_t *buf, uint32_t len)
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {column, (uint8_t)row, (uint8_t)(row >> 8), (uint8_t)(row >> 16)};
    ops_cmd(&ops, pointer, 0);
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_out(&ops, buf, len, 0);
    ops_cmd(&ops, 0x10, 100);
    ops_wait(&ops, 0);
    int err = ops_run(ctrl, &ops);
    return err ? err : sim_status(ctrl);
}

static void test_small_page_pointers(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1208U0C", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t page[528], back[528];
    nk_test_random(page, sizeof page, 5);
    const uint32_t row = 0x12345 & (4096 * 32 - 1);
    assert_int_equal(small_program(ctrl, 0x00, 0, row, page, 528), 0xe0);
    /* 00h from column 0: the whole 528 bytes. */
    assert_int_equal(small_read(ctrl, 0x00, 0, row, back, 528), 0);
    assert_memory_equal(back, page, 528);
    /* 01h + column 4 starts at byte 260; 50h + column 5 at the marker. */
    assert_int_equal(small_read(ctrl, 0x01, 4, row, back, 4), 0);
    assert_memory_equal(back, page + 260, 4);
    assert_int_equal(small_read(ctrl, 0x50, 5, row, back, 11), 0);
    assert_memory_equal(back, page + 517, 11);
    /* Programs through 01h and 50h land in the second half and the spare. */
    uint8_t half[256], spare[16];
    memset(half, 0x22, sizeof half);
    memset(spare, 0x33, sizeof spare);
    assert_int_equal(small_program(ctrl, 0x01, 0, row + 1, half, 256), 0xe0);
    assert_int_equal(small_program(ctrl, 0x50, 0, row + 2, spare, 16), 0xe0);
    assert_int_equal(nk_sim_page_peek(sim, row + 1, 0, back, 528), 0);
    assert_int_equal(back[255], 0xff);
    assert_memory_equal(back + 256, half, 256);
    assert_int_equal(back[512], 0xff);
    assert_int_equal(nk_sim_page_peek(sim, row + 2, 0, back, 528), 0);
    assert_int_equal(back[511], 0xff);
    assert_memory_equal(back + 512, spare, 16);
    nk_sim_close(sim);
}

static void test_small_page_01h_lasts_one_operation(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1208U0C", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t data[256], back[8];
    memset(data, 0x44, sizeof data);
    assert_int_equal(small_program(ctrl, 0x00, 0, 32, data, 256), 0xe0);
    assert_int_equal(small_read(ctrl, 0x01, 0, 32, back, 8), 0);
    assert_int_equal(back[0], 0xff); /* second half: erased */
    /* A program without a pointer command after 01h starts at column 0 of
     * the first half again. */
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 64, 0, 0};
    uint8_t zero = 0x00;
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_out(&ops, &zero, 1, 0);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    uint8_t page[528];
    assert_int_equal(nk_sim_page_peek(sim, 64, 0, page, sizeof page), 0);
    assert_int_equal(page[0], 0x00);
    assert_int_equal(page[256], 0xff);
    nk_sim_close(sim);
}

static void test_small_page_has_no_30h_or_05h(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1208U0C", 1);
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x30, 0);
    ops_cmd(&ops, 0x05, 0);
    ops_cmd(&ops, 0x15, 0);
    assert_int_equal(ops_run(nk_sim_ctrl(sim), &ops), 0);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.unknown_commands, 3);
    nk_sim_close(sim);
}

static void test_status_polling_without_rb_line(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl_no_rb(sim);
    assert_false(ctrl->caps & NK_CTRL_CAP_RB_LINE);
    uint8_t data[2112], back[2112];
    nk_test_random(data, sizeof data, 3);
    /* WAIT_READY has no line to watch. */
    struct nk_test_ops ops = {.count = 0};
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), -NK_ENOTSUP);
    /* Program, polling status until ready. */
    uint8_t cycles[] = {0, 0, 1, 0};
    ops_clear(&ops);
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 70);
    ops_out(&ops, data, sizeof data, 0);
    ops_cmd(&ops, 0x10, 100);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    unsigned polls = 0;
    uint8_t status;
    do {
        status = sim_status(ctrl);
        polls++;
    } while (!(status & NK_STATUS_READY));
    assert_true(polls > 1000); /* 300 us / 60 ns per poll */
    assert_int_equal(status, 0xe0);
    /* Read: poll, then 00h to return to data output. */
    ops_clear(&ops);
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_cmd(&ops, 0x30, 100);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    while (!(sim_status(ctrl) & NK_STATUS_READY))
        ;
    ops_clear(&ops);
    ops_cmd(&ops, 0x00, 0);
    ops_in(&ops, back, sizeof back, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_memory_equal(back, data, sizeof data);
    nk_sim_close(sim);
}

static void test_byte_loop_and_unrolled_loop_agree(void **state)
{
    (void)state;
    struct nk_sim *a = sim_open_preset("K9F1G08U0A", 1);
    struct nk_sim *b = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ca = nk_sim_ctrl(a), *cb = nk_sim_ctrl(b);
    assert_true(ca->caps & NK_CTRL_CAP_DATA_LOOPS);
    assert_int_equal(ca->ops->set_data_loop(ca->ctx, NK_DATA_LOOP_BYTE), 0);
    assert_int_equal(cb->ops->set_data_loop(cb->ctx, NK_DATA_LOOP_UNROLLED), 0);
    const struct nk_chip_info *info = &nk_sim_params(a)->chip;
    uint8_t data[2112], ra[2112], rb[2112];
    nk_test_random(data, sizeof data, 11);
    assert_int_equal(sim_program(ca, info, 2, 0, data, sizeof data), 0xe0);
    assert_int_equal(sim_program(cb, info, 2, 0, data, sizeof data), 0xe0);
    assert_int_equal(sim_read(ca, info, 2, 0, ra, sizeof ra), 0);
    assert_int_equal(sim_read(cb, info, 2, 0, rb, sizeof rb), 0);
    assert_memory_equal(ra, data, sizeof data);
    assert_memory_equal(rb, data, sizeof data);
    assert_int_equal(nk_sim_time_ns(a), nk_sim_time_ns(b));
    struct nk_sim_counters c;
    nk_sim_counters(a, &c);
    assert_int_equal(c.bytes_in, 2112 + 1); /* the page and one status byte */
    assert_int_equal(c.bytes_out, 2112);
    nk_sim_close(a);
    nk_sim_close(b);
}

static void test_other_chip_selects_float(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    struct nk_test_ops ops = {.count = 0};
    uint8_t id[4];
    ops_cmd(&ops, 0x90, 0);
    ops_addr1(&ops, 0x00, 0);
    ops_in(&ops, id, 4, 0);
    struct nk_op op = {ops.instrs, ops.count, 1};
    assert_int_equal(ctrl->ops->exec_op(ctrl->ctx, &op), 0);
    const uint8_t ff[4] = {0xff, 0xff, 0xff, 0xff};
    assert_memory_equal(id, ff, 4);
    nk_sim_close(sim);
}

static void test_out_of_sequence_confirms_are_ignored(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t col[] = {0, 0};
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x30, 0); /* no 00h */
    ops_cmd(&ops, 0x10, 0); /* no 80h */
    ops_cmd(&ops, 0x15, 0); /* no 80h */
    ops_cmd(&ops, 0xd0, 0); /* no 60h */
    ops_cmd(&ops, 0xe0, 0); /* no 05h */
    ops_cmd(&ops, 0x05, 0); /* no page in the register */
    ops_cmd(&ops, 0x85, 0); /* no program */
    ops_addr(&ops, col, 2, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(protocol_errors(sim), 9); /* 7 commands, 2 orphan address cycles */
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.array_ops, 0);
    assert_int_equal(sim_status(ctrl), 0xe0); /* nothing failed, nothing busy */
    nk_sim_close(sim);
}

static void test_unknown_command_is_counted_and_ignored(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x42, 0);
    ops_cmd(&ops, 0x9f, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.unknown_commands, 2);
    /* The chip still works. */
    uint8_t id[2];
    read_id(ctrl, 0, id, 2);
    assert_int_equal(id[0], 0xec);
    nk_sim_close(sim);
}

static void test_data_without_a_command_is_ignored(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t buf[16];
    memset(buf, 0, sizeof buf);
    struct nk_test_ops ops = {.count = 0};
    ops_out(&ops, buf, sizeof buf, 0);
    ops_in(&ops, buf, sizeof buf, 0);
    ops_addr1(&ops, 0x00, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(protocol_errors(sim), 3);
    uint8_t page[2112];
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, page, 16), 0);
    assert_int_equal(page[0], 0xff);
    nk_sim_close(sim);
}

static void test_commands_while_busy_are_ignored(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t cycles[] = {0, 0, 0, 0}, zero[4] = {0};
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x60, 0);
    ops_addr(&ops, cycles + 2, 2, 0);
    ops_cmd(&ops, 0xd0, 0);
    /* During tBERS: a program attempt is ignored whole. */
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_out(&ops, zero, 4, 0);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(protocol_errors(sim), 7); /* 80h, 4 address cycles, data, 10h */
    struct nk_sim_counters c;
    nk_sim_counters(sim, &c);
    assert_int_equal(c.ops[NK_SIM_OP_PROGRAM], 0);
    assert_int_equal(c.ops[NK_SIM_OP_ERASE], 1);
    uint8_t page[4];
    assert_int_equal(nk_sim_page_peek(sim, 0, 0, page, 4), 0);
    assert_int_equal(page[0], 0xff);
    nk_sim_close(sim);
}

static void test_data_out_before_ready_is_not_the_data(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[64], back[64];
    memset(data, 0x3c, sizeof data);
    assert_int_equal(sim_program(ctrl, info, 4, 0, data, sizeof data), 0xe0);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 4, 0};
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_cmd(&ops, 0x30, 0);
    ops_in(&ops, back, sizeof back, 0); /* forgot WAIT_READY */
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_memory_not_equal(back, data, sizeof data);
    assert_int_equal(protocol_errors(sim), 1);
    nk_sim_close(sim);
}

static void test_short_address_program_fails(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    uint8_t cycles[] = {0, 0}, data[4] = {0};
    struct nk_test_ops ops = {.count = 0};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 2, 0); /* row cycles missing */
    ops_out(&ops, data, 4, 0);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(sim_status(ctrl), 0xe1);
    assert_true(protocol_errors(sim) >= 1);
    nk_sim_close(sim);
}

static void test_extra_address_cycle_is_ignored(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[8], back[8];
    memset(data, 0x12, sizeof data);
    assert_int_equal(sim_program(ctrl, info, 3, 0, data, sizeof data), 0xe0);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 3, 0, 0x77};
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 5, 0);
    ops_cmd(&ops, 0x30, 0);
    ops_wait(&ops, 0);
    ops_in(&ops, back, sizeof back, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_memory_equal(back, data, sizeof data);
    assert_int_equal(protocol_errors(sim), 1);
    nk_sim_close(sim);
}

static void test_out_of_range_page_program_and_erase_fail(void **state)
{
    (void)state;
    /* 3 row cycles can address past the chip's 131072 pages. */
    struct nk_sim *sim = sim_open_preset("K9F2G08U0B", 1);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[4] = {0};
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 2048 * 64 + 5, 0, data, 4), 0xe1);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), info, 3000), 0xe1);
    assert_int_equal(protocol_errors(sim), 2);
    nk_sim_close(sim);
}

/* Random cycles, in and out of sequence, on every kind of part: the chip
 * never crashes and the port only ever reports what its contract allows. */
static void test_random_cycles_never_break_the_chip(void **state)
{
    (void)state;
    static const uint8_t commands[] = {0x00, 0x01, 0x05, 0x10, 0x15, 0x30, 0x50, 0x60, 0x70,
                                       0x80, 0x85, 0x90, 0xd0, 0xe0, 0xec, 0xee, 0xef, 0xff};
    static const char *const presets[] = {"K9F1G08U0A", "K9F1208U0C", "MT29F2G08ABAEA",
                                          "NKSIM-JEDEC-2G"};
    uint64_t rng = 12345;
    uint8_t buf[2300];
    for (unsigned p = 0; p < 4; p++) {
        struct nk_sim_faults faults;
        memset(&faults, 0, sizeof faults);
        faults.strict_page_order = true;
        faults.enforce_nop = true;
        faults.raw_bit_error_rate = 1e-4;
        faults.read_disturb_reads = 50;
        struct nk_sim_config config = {.preset = presets[p],
                                       .seed = p,
                                       .faults = faults,
                                       .faults_set = true,
                                       .factory_bad_blocks = 5};
        struct nk_sim *sim;
        assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
        const struct nk_ctrl *ports[] = {nk_sim_ctrl(sim), nk_sim_ctrl_no_rb(sim)};
        for (unsigned round = 0; round < 4000; round++) {
            struct nk_test_ops ops = {.count = 0};
            unsigned n = 1 + (unsigned)(nk_test_splitmix64(&rng) % 8);
            for (unsigned k = 0; k < n; k++) {
                uint64_t r = nk_test_splitmix64(&rng);
                uint32_t delay = (uint32_t)(r >> 40) % 200;
                switch (r % 6) {
                case 0:
                case 1:
                    ops_cmd(&ops,
                            (r >> 8) % 4 ? commands[(r >> 16) % sizeof commands]
                                         : (uint8_t)(r >> 24),
                            delay);
                    break;
                case 2: {
                    uint8_t cycles[6];
                    for (unsigned c = 0; c < 6; c++)
                        cycles[c] = (uint8_t)(r >> (8 * c + 8)) & ((r >> 5) & 1 ? 0x03 : 0xff);
                    ops_addr(&ops, cycles, 1 + (unsigned)((r >> 3) % 6), delay);
                    break;
                }
                case 3:
                    ops_out(&ops, buf, (r >> 20) % 16 ? (uint32_t)(r >> 8) % 64 : 2300, delay);
                    break;
                case 4:
                    ops_in(&ops, buf, (r >> 20) % 16 ? (uint32_t)(r >> 8) % 64 : 2300, delay);
                    break;
                default:
                    ops_wait(&ops, (uint32_t)(r >> 8) % 3000);
                    break;
                }
            }
            const struct nk_ctrl *ctrl = ports[nk_test_splitmix64(&rng) % 2];
            int err = ops_run(ctrl, &ops);
            assert_true(err == 0 || err == -NK_ETIMEDOUT || err == -NK_ENOTSUP || err == -NK_ENODEV);
            if (err == -NK_ENODEV) {
                assert_false(nk_sim_powered(sim));
                nk_sim_power_restore(sim);
            }
            uint64_t r = nk_test_splitmix64(&rng);
            if (r % 500 == 0)
                nk_sim_power_cut_after(sim, (r >> 8) % 4);
        }
        struct nk_sim_counters c;
        nk_sim_counters(sim, &c);
        assert_true(c.protocol_errors + c.unknown_commands > 0);
        nk_sim_close(sim);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_id_repeats_the_id_bytes),
        cmocka_unit_test(test_read_id_20h_gives_onfi_signature),
        cmocka_unit_test(test_read_id_40h_gives_jedec_signature),
        cmocka_unit_test(test_parameter_page_has_three_valid_copies),
        cmocka_unit_test(test_corrupted_copy_is_served_as_corrupted),
        cmocka_unit_test(test_parameter_page_random_data_out_and_ext_page),
        cmocka_unit_test(test_parameter_page_absent_on_legacy_part),
        cmocka_unit_test(test_reset_is_busy_for_trst),
        cmocka_unit_test(test_program_read_and_random_data_out),
        cmocka_unit_test(test_read_from_a_column_and_past_the_end),
        cmocka_unit_test(test_program_with_random_data_in),
        cmocka_unit_test(test_erase_returns_pages_to_ff),
        cmocka_unit_test(test_set_and_get_features),
        cmocka_unit_test(test_features_unknown_on_legacy_part),
        cmocka_unit_test(test_small_page_pointers),
        cmocka_unit_test(test_small_page_01h_lasts_one_operation),
        cmocka_unit_test(test_small_page_has_no_30h_or_05h),
        cmocka_unit_test(test_status_polling_without_rb_line),
        cmocka_unit_test(test_byte_loop_and_unrolled_loop_agree),
        cmocka_unit_test(test_other_chip_selects_float),
        cmocka_unit_test(test_out_of_sequence_confirms_are_ignored),
        cmocka_unit_test(test_unknown_command_is_counted_and_ignored),
        cmocka_unit_test(test_data_without_a_command_is_ignored),
        cmocka_unit_test(test_commands_while_busy_are_ignored),
        cmocka_unit_test(test_data_out_before_ready_is_not_the_data),
        cmocka_unit_test(test_short_address_program_fails),
        cmocka_unit_test(test_extra_address_cycle_is_ignored),
        cmocka_unit_test(test_out_of_range_page_program_and_erase_fail),
        cmocka_unit_test(test_random_cycles_never_break_the_chip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
