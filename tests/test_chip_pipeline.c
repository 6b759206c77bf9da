/* SPDX-License-Identifier: MIT */
/*
 * Pipelined chip-layer sequences (cache program, read cache, copy-back,
 * overlapped program and read), asserted cycle by cycle on the recording
 * port. Log format: CMD xx | ADDR xx.. | OUT n | IN n | WAIT, "+N" = delay_ns,
 * "CSn|" before an operation on chip select n.
 */
#include <string.h>

#include "mock_ctrl.h"
#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "testutil.h"

struct fixture {
    struct nk_mock_ctrl mock;
    struct nk_chip chip;
    uint8_t data[2048], oob[64];
};

static struct fixture *setup_chip(const char *model, bool rb_line, unsigned chip_select)
{
    struct fixture *f = calloc(1, sizeof *f);
    nk_mock_ctrl_init(&f->mock, rb_line);
    const struct nk_chip_info *info = nk_chip_table_find(model);
    assert_non_null(info);
    nk_chip_attach(&f->chip, &f->mock.ctrl, chip_select, info);
    return f;
}

static void test_cache_program_is_80_addr_data_15_wait_status(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 0);
    struct nk_xfer x[2] = {{0, 2048, f->data}, {2048, 64, f->oob}};
    uint8_t status = 0;
    f->mock.status = NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL;
    assert_int_equal(nk_chip_program_cache(&f->chip, 5, x, 2, false, &status), 0);
    assert_string_equal(
        f->mock.log, "CMD 80|ADDR 00 00 05 00+70|OUT 2048|OUT 64|CMD 15+100|WAIT|CMD 70+60|IN 1|");
    /* The status is handed back, not judged: FAIL belongs to the previous page. */
    assert_int_equal(status, NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL);
    free(f);
}

static void test_last_cache_page_confirms_with_10(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 0);
    struct nk_xfer x = {0, 2048, f->data};
    uint8_t status = 0;
    assert_int_equal(nk_chip_program_cache(&f->chip, 0x41, &x, 1, true, &status), 0);
    assert_string_equal(f->mock.log,
                        "CMD 80|ADDR 00 00 41 00+70|OUT 2048|CMD 10+100|WAIT|CMD 70+60|"
                        "IN 1|");
    free(f);
}

static void test_cache_program_without_rb_polls_the_cache_ready_bit(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", false, 0);
    struct nk_xfer x = {0, 2048, f->data};
    uint8_t status = 0;
    f->mock.busy_polls = 1;
    assert_int_equal(nk_chip_program_cache(&f->chip, 2, &x, 1, false, &status), 0);
    assert_string_equal(f->mock.log, "CMD 80|ADDR 00 00 02 00+70|OUT 2048|CMD 15+100|CMD 70+60|"
                                     "IN 1|CMD 70+60|IN 1|");
    assert_int_equal(status & NK_STATUS_READY, NK_STATUS_READY);
    free(f);
}

static void test_cache_program_needs_the_feature(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1208U0C", true, 0);
    struct nk_xfer x = {0, 512, f->data};
    uint8_t status;
    assert_int_equal(nk_chip_program_cache(&f->chip, 2, &x, 1, false, &status), -NK_ENOTSUP);
    assert_int_equal(f->mock.ops, 0);
    free(f);
}

static void test_overlapped_program_sends_10_and_returns(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 1);
    struct nk_xfer x[2] = {{0, 2048, f->data}, {2048, 64, f->oob}};
    assert_int_equal(nk_chip_program_begin(&f->chip, 3, x, 2), 0);
    assert_string_equal(f->mock.log, "CS1|CMD 80|ADDR 00 00 03 00+70|OUT 2048|OUT 64|CMD 10+100|");
    nk_mock_ctrl_clear_log(&f->mock);
    assert_int_equal(nk_chip_program_end(&f->chip, 3), 0);
    assert_string_equal(f->mock.log, "CS1|WAIT|CS1|CMD 70+60|IN 1|");
    free(f);
}

static void test_overlapped_program_end_reports_fail(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 0);
    f->mock.status = NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL;
    assert_int_equal(nk_chip_program_end(&f->chip, 9), -NK_EIO);
    assert_non_null(strstr(f->chip.diag.text, "page 9"));
    free(f);
}

static void test_overlapped_read_begins_then_waits(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 1);
    assert_int_equal(nk_chip_read_begin(&f->chip, 0x105, 0), 0);
    assert_string_equal(f->mock.log, "CS1|CMD 00|ADDR 00 00 05 01|CMD 30+100|");
    nk_mock_ctrl_clear_log(&f->mock);
    assert_int_equal(nk_chip_read_wait(&f->chip), 0);
    assert_string_equal(f->mock.log, "CS1|WAIT|");
    free(f);
}

static void test_overlapped_read_without_rb_polls_then_returns_to_data(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", false, 0);
    assert_int_equal(nk_chip_read_begin(&f->chip, 1, 0), 0);
    f->mock.busy_polls = 2;
    nk_mock_ctrl_clear_log(&f->mock);
    assert_int_equal(nk_chip_read_wait(&f->chip), 0);
    assert_string_equal(f->mock.log, "CMD 70+60|IN 1|CMD 70+60|IN 1|CMD 70+60|IN 1|CMD 00|");
    free(f);
}

static void test_read_cache_is_31_then_3f_each_with_a_wait(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("MT29F2G08ABAEA", true, 0);
    assert_int_equal(nk_chip_read_start(&f->chip, 64, 0), 0);
    assert_int_equal(nk_chip_read_cache_next(&f->chip, false), 0);
    assert_int_equal(nk_chip_read_data(&f->chip, f->data, 2048), 0);
    assert_int_equal(nk_chip_read_cache_next(&f->chip, true), 0);
    assert_int_equal(nk_chip_read_data(&f->chip, f->data, 2048), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 00 40 00 00|CMD 30+100|WAIT|CMD 31+100|WAIT|"
                                     "IN 2048|CMD 3f+100|WAIT|IN 2048|");
    free(f);
}

static void test_read_cache_without_rb_returns_to_data_output(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("MT29F2G08ABAEA", false, 0);
    assert_int_equal(nk_chip_read_cache_next(&f->chip, false), 0);
    assert_string_equal(f->mock.log, "CMD 31+100|CMD 70+60|IN 1|CMD 00|");
    free(f);
}

static void test_read_cache_needs_the_feature(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 0);
    assert_int_equal(nk_chip_read_cache_next(&f->chip, false), -NK_ENOTSUP);
    assert_int_equal(f->mock.ops, 0);
    free(f);
}

static void test_copyback_is_00_addr_35_then_85_addr_10(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("MT29F2G08ABAEA", true, 0);
    assert_int_equal(nk_chip_copyback_read(&f->chip, 5, 0), 0);
    assert_int_equal(nk_chip_read_data(&f->chip, f->data, 2048), 0);
    assert_int_equal(nk_chip_copyback_program(&f->chip, 0x87, NULL, 0), 0);
    assert_string_equal(f->mock.log, "CMD 00|ADDR 00 00 05 00 00|CMD 35+100|WAIT|IN 2048|"
                                     "CMD 85|ADDR 00 00 87 00 00|CMD 10+100|WAIT|CMD 70+60|IN 1|");
    free(f);
}

static void test_copyback_program_may_change_pieces(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 0);
    uint8_t a[4] = {1, 2, 3, 4}, b[2] = {5, 6};
    struct nk_xfer x[2] = {{100, 4, a}, {2050, 2, b}};
    assert_int_equal(nk_chip_copyback_program(&f->chip, 7, x, 2), 0);
    assert_string_equal(f->mock.log, "CMD 85|ADDR 64 00 07 00+70|OUT 4|CMD 85|ADDR 02 08+70|OUT 2|"
                                     "CMD 10+100|WAIT|CMD 70+60|IN 1|");
    assert_int_equal(f->mock.out_len, 6);
    free(f);
}

static void test_copyback_program_fail_is_eio(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("K9F1G08U0A", true, 0);
    f->mock.status = NK_STATUS_READY | NK_STATUS_WP_N | NK_STATUS_FAIL;
    assert_int_equal(nk_chip_copyback_program(&f->chip, 7, NULL, 0), -NK_EIO);
    free(f);
}

static void test_copyback_needs_the_feature(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("TC58NVG0S3E", true, 0);
    assert_int_equal(nk_chip_copyback_read(&f->chip, 5, 0), -NK_ENOTSUP);
    assert_int_equal(nk_chip_copyback_program(&f->chip, 5, NULL, 0), -NK_ENOTSUP);
    assert_int_equal(f->mock.ops, 0);
    free(f);
}

static void test_pipelined_sequences_pass_port_errors(void **state)
{
    (void)state;
    struct fixture *f = setup_chip("MT29F2G08ABAEA", true, 0);
    struct nk_xfer x = {0, 2048, f->data};
    uint8_t status;
    f->mock.fail_with = -NK_ENODEV;
    assert_int_equal(nk_chip_program_cache(&f->chip, 1, &x, 1, false, &status), -NK_ENODEV);
    assert_int_equal(nk_chip_program_begin(&f->chip, 1, &x, 1), -NK_ENODEV);
    assert_int_equal(nk_chip_read_begin(&f->chip, 1, 0), -NK_ENODEV);
    assert_int_equal(nk_chip_read_cache_next(&f->chip, true), -NK_ENODEV);
    assert_int_equal(nk_chip_copyback_read(&f->chip, 1, 0), -NK_ENODEV);
    assert_int_equal(nk_chip_copyback_program(&f->chip, 1, NULL, 0), -NK_ENODEV);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_program_is_80_addr_data_15_wait_status),
        cmocka_unit_test(test_last_cache_page_confirms_with_10),
        cmocka_unit_test(test_cache_program_without_rb_polls_the_cache_ready_bit),
        cmocka_unit_test(test_cache_program_needs_the_feature),
        cmocka_unit_test(test_overlapped_program_sends_10_and_returns),
        cmocka_unit_test(test_overlapped_program_end_reports_fail),
        cmocka_unit_test(test_overlapped_read_begins_then_waits),
        cmocka_unit_test(test_overlapped_read_without_rb_polls_then_returns_to_data),
        cmocka_unit_test(test_read_cache_is_31_then_3f_each_with_a_wait),
        cmocka_unit_test(test_read_cache_without_rb_returns_to_data_output),
        cmocka_unit_test(test_read_cache_needs_the_feature),
        cmocka_unit_test(test_copyback_is_00_addr_35_then_85_addr_10),
        cmocka_unit_test(test_copyback_program_may_change_pieces),
        cmocka_unit_test(test_copyback_program_fail_is_eio),
        cmocka_unit_test(test_copyback_needs_the_feature),
        cmocka_unit_test(test_pipelined_sequences_pass_port_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
