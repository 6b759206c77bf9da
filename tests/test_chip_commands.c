/* SPDX-License-Identifier: MIT */
/*
 * Chip-layer command sequences, asserted cycle by cycle on a recording port.
 * Log format: CMD xx | ADDR xx.. | OUT n | IN n | WAIT, "+N" = delay_ns.
 */
#include <string.h>

#include "mock_ctrl.h"
#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "testutil.h"

struct fixture {
    struct nk_mock_ctrl mock;
    struct nk_chip chip;
};

static struct fixture *setup_chip(const char *model, bool rb_line)
{
    struct fixture *f = calloc(1, sizeof *f);
    nk_mock_ctrl_init(&f->mock, rb_line);
    const struct nk_chip_info *info = nk_chip_table_find(model);
    assert_non_null(info);
    nk_chip_attach(&f->chip, &f->mock.ctrl, 0, info);
    return f;
}

static void test_large_page_read_is_00_addr_30_wait_data(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t data[2048], oob[64];
    struct nk_xfer x[2] = {{0, 2048, data}, {2048, 64, oob}};
    assert_int_equal(nk_chip_read_page(&f->chip, 5, x, 2), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 00 05 00|CMD 30+100|WAIT|IN 2048|IN 64|");
    assert_int_equal(f->mock.ops, 1);
    free(f);
}

static void test_oob_only_read_addresses_column_2048(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t oob[64];
    struct nk_xfer x = {2048, 64, oob};
    assert_int_equal(nk_chip_read_page(&f->chip, 0x1234, &x, 1), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 08 34 12|CMD 30+100|WAIT|IN 64|");
    free(f);
}

static void test_gap_between_pieces_uses_random_data_out(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t a[512], b[64];
    struct nk_xfer x[2] = {{0, 512, a}, {2048, 64, b}};
    assert_int_equal(nk_chip_read_page(&f->chip, 1, x, 2), 0);
    assert_string_equal(f->mock.log,
                        "CMD 00|ADDR 00 00 01 00|CMD 30+100|WAIT|IN 512|CMD 05|ADDR 00 08|"
                        "CMD e0+60|IN 64|");
    free(f);
}

static void test_three_row_cycles_on_2gbit_part(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F2G08U0B", true);
    uint8_t data[16];
    struct nk_xfer x = {0x10, 16, data};
    assert_int_equal(nk_chip_read_page(&f->chip, 0x01ffff, &x, 1), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 10 00 ff ff 01|CMD 30+100|WAIT|IN 16|");
    free(f);
}

static void test_read_without_rb_line_polls_status_then_returns_to_data(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", false);
    f->mock.busy_polls = 2;
    uint8_t data[2048];
    struct nk_xfer x = {0, 2048, data};
    assert_int_equal(nk_chip_read_page(&f->chip, 2, &x, 1), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 00 02 00|CMD 30+100|CMD 70+60|IN 1|"
                                     "CMD 70+60|IN 1|CMD 70+60|IN 1|CMD 00|IN 2048|");
    free(f);
}

static void test_status_polling_gives_up_with_timeout(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", false);
    f->mock.busy_polls = 1000000000u;
    assert_int_equal(nk_chip_erase_block(&f->chip, 64), -NK_ETIMEDOUT);
    assert_non_null(strstr(f->chip.diag.text, "busy"));
    free(f);
}

static void test_program_is_80_addr_data_10_wait_status(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t data[2048], oob[64];
    memset(data, 0x3c, sizeof data);
    memset(oob, 0xff, sizeof oob);
    struct nk_xfer x[2] = {{0, 2048, data}, {2048, 64, oob}};
    assert_int_equal(nk_chip_program_page(&f->chip, 5, x, 2, false), 0);
    assert_string_equal(f->mock.log, "CMD 80|ADDR 00 00 05 00+70|OUT 2048|OUT 64|CMD 10+100|"
                                     "WAIT|CMD 70+60|IN 1|");
    assert_int_equal(f->mock.out_len, 2112);
    assert_int_equal(f->mock.out_data[0], 0x3c);
    assert_int_equal(f->mock.out_data[2111], 0xff);
    free(f);
}

static void test_program_gap_uses_random_data_in(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t a[512] = {0}, b[4] = {0};
    struct nk_xfer x[2] = {{0, 512, a}, {2048 + 2, 4, b}};
    assert_int_equal(nk_chip_program_page(&f->chip, 7, x, 2, false), 0);
    assert_string_equal(f->mock.log, "CMD 80|ADDR 00 00 07 00+70|OUT 512|CMD 85|ADDR 02 08+70|"
                                     "OUT 4|CMD 10+100|WAIT|CMD 70+60|IN 1|");
    free(f);
}

static void test_cache_program_confirms_with_15(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t data[2048] = {0};
    struct nk_xfer x = {0, 2048, data};
    assert_int_equal(nk_chip_program_page(&f->chip, 8, &x, 1, true), 0);
    assert_non_null(strstr(f->mock.log, "|CMD 15+100|WAIT|"));
    free(f);
}

static void test_program_fail_status_is_eio(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    f->mock.status = NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL;
    uint8_t data[2048] = {0};
    struct nk_xfer x = {0, 2048, data};
    assert_int_equal(nk_chip_program_page(&f->chip, 9, &x, 1, false), -NK_EIO);
    assert_non_null(strstr(f->chip.diag.text, "page 9"));
    free(f);
}

static void test_write_protected_status_is_erofs(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    f->mock.status = NK_STATUS_READY;
    assert_int_equal(nk_chip_erase_block(&f->chip, 0), -NK_EROFS);
    free(f);
}

static void test_erase_is_60_row_d0_wait_status(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    assert_int_equal(nk_chip_erase_block(&f->chip, 64 * 3), 0);
    assert_string_equal(f->mock.log, "CMD 60|ADDR c0 00|CMD d0+100|WAIT|CMD 70+60|IN 1|");
    free(f);
}

static void test_erase_fail_names_the_block(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    f->mock.status = NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL;
    assert_int_equal(nk_chip_erase_block(&f->chip, 64 * 3), -NK_EIO);
    assert_non_null(strstr(f->chip.diag.text, "block 3"));
    free(f);
}

static void test_small_page_read_uses_pointer_commands(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1208U0C", true);
    uint8_t data[512], oob[16];
    struct nk_xfer x[2] = {{0, 512, data}, {512, 16, oob}};
    assert_int_equal(nk_chip_read_page(&f->chip, 3, x, 2), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 03 00 00+100|WAIT|IN 512|IN 16|");

    nk_mock_ctrl_clear_log(&f->mock);
    struct nk_xfer spare = {512 + 5, 1, oob};
    assert_int_equal(nk_chip_read_page(&f->chip, 32, &spare, 1), 0);
    assert_string_equal(f->mock.log, "CMD 50|ADDR 05 20 00 00+100|WAIT|IN 1|");

    nk_mock_ctrl_clear_log(&f->mock);
    struct nk_xfer second_half = {300, 4, oob};
    assert_int_equal(nk_chip_read_page(&f->chip, 1, &second_half, 1), 0);
    assert_string_equal(f->mock.log, "CMD 01|ADDR 2c 01 00 00+100|WAIT|IN 4|");
    free(f);
}

static void test_small_page_gap_reloads_the_page(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1208U0C", true);
    uint8_t a[16], b[16];
    struct nk_xfer x[2] = {{0, 16, a}, {512, 16, b}};
    assert_int_equal(nk_chip_read_page(&f->chip, 3, x, 2), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 03 00 00+100|WAIT|IN 16|"
                                     "CMD 50|ADDR 00 03 00 00+100|WAIT|IN 16|");
    free(f);
}

static void test_small_page_program_sets_pointer_first(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1208U0C", true);
    uint8_t oob[16] = {0};
    struct nk_xfer x = {512, 16, oob};
    assert_int_equal(nk_chip_program_page(&f->chip, 4, &x, 1, false), 0);
    assert_string_equal(f->mock.log, "CMD 50|CMD 80|ADDR 00 04 00 00+100|OUT 16|CMD 10+100|"
                                     "WAIT|CMD 70+60|IN 1|");
    free(f);
}

static void test_small_page_has_no_random_data_out(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1208U0C", true);
    assert_int_equal(nk_chip_read_column(&f->chip, 10), -NK_ENOTSUP);
    assert_int_equal(nk_chip_write_column(&f->chip, 10), -NK_ENOTSUP);
    free(f);
}

static void test_get_and_set_features(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("MT29F2G08ABAEA", true);
    uint8_t params[4] = {0x08, 0, 0, 0};
    assert_int_equal(nk_chip_set_features(&f->chip, 0x90, params), 0);
    assert_string_equal(f->mock.log, "CMD ef|ADDR 90+70|OUT 4+100|WAIT|");
    assert_memory_equal(f->mock.out_data, params, 4);
    nk_mock_ctrl_clear_log(&f->mock);
    assert_int_equal(nk_chip_get_features(&f->chip, 0x90, params), 0);
    assert_string_equal(f->mock.log, "CMD ee|ADDR 90+100|WAIT|IN 4|");
    free(f);
}

static void test_reset_id_status_and_parameter_page(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t id[5], status, param[256];
    assert_int_equal(nk_chip_reset(&f->chip), 0);
    assert_int_equal(nk_chip_read_id(&f->chip, 0x20, id, 4), 0);
    assert_int_equal(nk_chip_read_status(&f->chip, &status), 0);
    assert_int_equal(nk_chip_read_param(&f->chip, 0x00, param, sizeof param), 0);
    assert_string_equal(f->mock.log, "CMD ff+100|WAIT|CMD 90|ADDR 20+60|IN 4|CMD 70+60|IN 1|"
                                     "CMD ec|ADDR 00+100|WAIT|IN 256|");
    assert_int_equal(status, NK_STATUS_READY | NK_STATUS_WP_N);
    free(f);
}

static void test_low_level_pieces_compose_a_page_program(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_int_equal(nk_chip_program_start(&f->chip, 3, 0), 0);
    assert_int_equal(nk_chip_write_data(&f->chip, data, 8), 0);
    assert_int_equal(nk_chip_write_column(&f->chip, 2048), 0);
    assert_int_equal(nk_chip_write_data(&f->chip, data, 2), 0);
    assert_int_equal(nk_chip_program_finish(&f->chip, false), 0);
    assert_int_equal(nk_chip_read_start(&f->chip, 3, 0), 0);
    assert_int_equal(nk_chip_read_data(&f->chip, data, 8), 0);
    assert_int_equal(nk_chip_read_column(&f->chip, 2048), 0);
    assert_string_equal(f->mock.log,
                        "CMD 80|ADDR 00 00 03 00+70|OUT 8|CMD 85|ADDR 00 08+70|OUT 2|CMD 10+100|"
                        "WAIT|CMD 70+60|IN 1|CMD 00|ADDR 00 00 03 00|CMD 30+100|WAIT|IN 8|"
                        "CMD 05|ADDR 00 08|CMD e0+60|");
    free(f);
}

static void test_port_errors_propagate(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true);
    f->mock.fail_with = -NK_ETIMEDOUT;
    uint8_t data[16];
    struct nk_xfer x = {0, 16, data};
    assert_int_equal(nk_chip_read_page(&f->chip, 1, &x, 1), -NK_ETIMEDOUT);
    assert_non_null(strstr(f->chip.diag.text, "page 1"));
    f->mock.fail_with = -NK_EIO;
    assert_int_equal(nk_chip_erase_block(&f->chip, 0), -NK_EIO);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_page_read_is_00_addr_30_wait_data),
        cmocka_unit_test(test_oob_only_read_addresses_column_2048),
        cmocka_unit_test(test_gap_between_pieces_uses_random_data_out),
        cmocka_unit_test(test_three_row_cycles_on_2gbit_part),
        cmocka_unit_test(test_read_without_rb_line_polls_status_then_returns_to_data),
        cmocka_unit_test(test_status_polling_gives_up_with_timeout),
        cmocka_unit_test(test_program_is_80_addr_data_10_wait_status),
        cmocka_unit_test(test_program_gap_uses_random_data_in),
        cmocka_unit_test(test_cache_program_confirms_with_15),
        cmocka_unit_test(test_program_fail_status_is_eio),
        cmocka_unit_test(test_write_protected_status_is_erofs),
        cmocka_unit_test(test_erase_is_60_row_d0_wait_status),
        cmocka_unit_test(test_erase_fail_names_the_block),
        cmocka_unit_test(test_small_page_read_uses_pointer_commands),
        cmocka_unit_test(test_small_page_gap_reloads_the_page),
        cmocka_unit_test(test_small_page_program_sets_pointer_first),
        cmocka_unit_test(test_small_page_has_no_random_data_out),
        cmocka_unit_test(test_get_and_set_features),
        cmocka_unit_test(test_reset_id_status_and_parameter_page),
        cmocka_unit_test(test_low_level_pieces_compose_a_page_program),
        cmocka_unit_test(test_port_errors_propagate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
