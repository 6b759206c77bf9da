/* SPDX-License-Identifier: MIT */
/*
 * The simulated controller's Hamming hardware engine: after ecc_enable it
 * computes the Linux Hamming code over exactly the next step of bytes moved
 * in the armed direction, during the transfer and at no virtual time; the
 * codes match Linux's (fixtures made by ecc_sw_hamming_calculate()) in both
 * directions, both step sizes, both byte orders and both data loops.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "nandkit/ecc.h"
#include "sim_ops.h"

struct vector {
    uint8_t data[512];
    uint8_t ecc[3];
};

/* The first `max` calc records of a fixture file. */
static unsigned load_vectors(const char *file, struct vector *out, unsigned max)
{
    uint8_t *text = nk_test_read_file(nk_test_fixture(file), NULL);
    unsigned n = 0;
    for (char *line = strtok((char *)text, "\n"); line && n < max; line = strtok(NULL, "\n")) {
        cJSON *rec = cJSON_Parse(line);
        assert_non_null(rec);
        const cJSON *type = cJSON_GetObjectItem(rec, "type");
        if (cJSON_IsString(type) && strcmp(type->valuestring, "calc") == 0) {
            memset(out[n].data, 0, sizeof out[n].data);
            assert_true(nk_test_unhex(cJSON_GetObjectItem(rec, "data")->valuestring, out[n].data,
                                      sizeof out[n].data) > 0);
            assert_int_equal(
                nk_test_unhex(cJSON_GetObjectItem(rec, "ecc")->valuestring, out[n].ecc, 3), 3);
            n++;
        }
        cJSON_Delete(rec);
    }
    free(text);
    return n;
}

static void hw_program_step(const struct nk_ctrl *ctrl, uint32_t row, const uint8_t *data,
                            unsigned step, uint8_t code[3])
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, (uint8_t)row, (uint8_t)(row >> 8)};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 70);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_WRITE), 0);
    ops_clear(&ops);
    ops_out(&ops, data, step, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(ctrl->ops->ecc_read_code(ctrl->ctx, code), 0);
    ops_clear(&ops);
    ops_cmd(&ops, 0x10, 100);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
}

static void hw_read_step(const struct nk_ctrl *ctrl, uint32_t row, uint8_t *data, unsigned step,
                         uint8_t code[3])
{
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, (uint8_t)row, (uint8_t)(row >> 8)};
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_cmd(&ops, 0x30, 100);
    ops_wait(&ops, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_READ), 0);
    ops_clear(&ops);
    ops_in(&ops, data, step, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(ctrl->ops->ecc_read_code(ctrl->ctx, code), 0);
}

static void check_fixture(const char *file, unsigned step, bool sm_order, enum nk_data_loop loop)
{
    struct vector *v = malloc(24 * sizeof *v);
    unsigned n = load_vectors(file, v, 24);
    assert_int_equal(n, 24);
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl =
        nk_sim_ctrl_port(sim, sm_order ? NK_SIM_PORT_ECC_SM_ORDER : 0, step);
    assert_non_null(ctrl);
    assert_int_equal(ctrl->ops->set_data_loop(ctrl->ctx, loop), 0);
    for (unsigned i = 0; i < n; i++) {
        uint8_t code[3], back[512];
        hw_program_step(ctrl, i, v[i].data, step, code);
        assert_memory_equal(code, v[i].ecc, 3);
        hw_read_step(ctrl, i, back, step, code);
        assert_memory_equal(back, v[i].data, step);
        assert_memory_equal(code, v[i].ecc, 3);
    }
    nk_sim_close(sim);
    free(v);
}

static void test_codes_match_linux_256(void **state)
{
    (void)state;
    check_fixture("ecc/hamming-256-linux.jsonl", 256, false, NK_DATA_LOOP_UNROLLED);
}

static void test_codes_match_linux_512(void **state)
{
    (void)state;
    check_fixture("ecc/hamming-512-linux.jsonl", 512, false, NK_DATA_LOOP_UNROLLED);
}

static void test_codes_match_smartmedia_order(void **state)
{
    (void)state;
    check_fixture("ecc/hamming-256-sm.jsonl", 256, true, NK_DATA_LOOP_UNROLLED);
    check_fixture("ecc/hamming-512-sm.jsonl", 512, true, NK_DATA_LOOP_UNROLLED);
}

static void test_codes_match_with_the_byte_loop(void **state)
{
    (void)state;
    check_fixture("ecc/hamming-512-linux.jsonl", 512, false, NK_DATA_LOOP_BYTE);
}

static void test_engine_covers_exactly_the_next_step(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl_hw_ecc(sim, 256);
    uint8_t page[2048], code[3], expect[3];
    nk_test_random(page, sizeof page, 9);
    struct nk_test_ops ops = {.count = 0};
    uint8_t cycles[] = {0, 0, 0, 0};
    ops_cmd(&ops, 0x80, 0);
    ops_addr(&ops, cycles, 4, 70);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    /* One 2048-byte burst after arming: the code covers bytes 0..255. */
    assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_WRITE), 0);
    ops_clear(&ops);
    ops_out(&ops, page, 1000, 0);
    ops_out(&ops, page + 1000, 1048, 0);
    uint64_t t0 = nk_sim_time_ns(sim);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    /* tADL (70 - 30) carried from the address op, the bytes, nothing for the engine. */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 40 + 2048 * 30);
    assert_int_equal(ctrl->ops->ecc_read_code(ctrl->ctx, code), 0);
    nk_hamming_calculate(page, 256, false, expect);
    assert_memory_equal(code, expect, 3);
    /* Re-armed mid-page: the next 256 bytes moved; split bursts are fine. */
    assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_READ), 0);
    ops_clear(&ops);
    ops_cmd(&ops, 0x10, 0);
    ops_wait(&ops, 0);
    ops_cmd(&ops, 0x00, 0);
    ops_addr(&ops, cycles, 4, 0);
    ops_cmd(&ops, 0x30, 0);
    ops_wait(&ops, 0);
    uint8_t back[300];
    ops_in(&ops, back, 100, 0);
    ops_in(&ops, back + 100, 200, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(ctrl->ops->ecc_read_code(ctrl->ctx, code), 0);
    assert_memory_equal(back, page, 300);
    assert_memory_equal(code, expect, 3);
    nk_sim_close(sim);
}

static void test_engine_without_a_full_step_has_no_code(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl_hw_ecc(sim, 512);
    uint8_t code[3], buf[100];
    assert_int_equal(ctrl->ops->ecc_read_code(ctrl->ctx, code), -NK_EPROTO);
    assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_READ), 0);
    /* Bytes in the other direction do not count. */
    struct nk_test_ops ops = {.count = 0};
    memset(buf, 0, sizeof buf);
    ops_cmd(&ops, 0x80, 0);
    ops_out(&ops, buf, sizeof buf, 0);
    assert_int_equal(ops_run(ctrl, &ops), 0);
    assert_int_equal(ctrl->ops->ecc_read_code(ctrl->ctx, code), -NK_EPROTO);
    /* A port without an engine refuses. */
    const struct nk_ctrl *plain = nk_sim_ctrl(sim);
    assert_null(plain->ops->ecc_enable);
    assert_false(plain->caps & NK_CTRL_CAP_HW_ECC);
    nk_sim_close(sim);
}

static void test_engine_ports_describe_themselves(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    const struct nk_ctrl *ctrl = nk_sim_ctrl_hw_ecc(sim, 512);
    assert_true(ctrl->caps & NK_CTRL_CAP_HW_ECC);
    assert_true(ctrl->caps & NK_CTRL_CAP_RB_LINE);
    assert_int_equal(ctrl->ecc.algo, NK_HW_ECC_HAMMING);
    assert_int_equal(ctrl->ecc.step_size, 512);
    assert_int_equal(ctrl->ecc.bytes_per_step, 3);
    assert_int_equal(ctrl->ecc.strength, 1);
    assert_false(ctrl->ecc.sm_order);
    assert_null(nk_sim_ctrl_hw_ecc(sim, 1024));
    const struct nk_ctrl *sm =
        nk_sim_ctrl_port(sim, NK_SIM_PORT_NO_RB | NK_SIM_PORT_ECC_SM_ORDER, 256);
    assert_true(sm->ecc.sm_order);
    assert_false(sm->caps & NK_CTRL_CAP_RB_LINE);
    assert_null(nk_sim_ctrl_port(sim, NK_SIM_PORT_ECC_SM_ORDER, 0));
    /* The same port twice is the same object; all drive one chip. */
    assert_ptr_equal(nk_sim_ctrl_hw_ecc(sim, 512), ctrl);
    nk_sim_close(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_match_linux_256),
        cmocka_unit_test(test_codes_match_linux_512),
        cmocka_unit_test(test_codes_match_smartmedia_order),
        cmocka_unit_test(test_codes_match_with_the_byte_loop),
        cmocka_unit_test(test_engine_covers_exactly_the_next_step),
        cmocka_unit_test(test_engine_without_a_full_step_has_no_code),
        cmocka_unit_test(test_engine_ports_describe_themselves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
