/* SPDX-License-Identifier: MIT */
/*
 * The engines that are glue: "none", on-die, the controller's hardware
 * engine (over a scripted port and over the simulator's Hamming engine),
 * and Linux's erased-step rule, including the path a read takes when an
 * erased BCH step has more flips than the code corrects.
 */
#include <stdlib.h>
#include <string.h>

#include "nandkit/chip.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"

#include "testutil.h"

/* ----- a scripted controller ------------------------------------------------ */

struct fake_port {
    uint8_t code[8];      /* what ecc_read_code hands out */
    int read_code_result; /* 0 or an error */
    int enables, reads, corrects;
    int correct_result;
};

static int fake_exec(void *ctx, const struct nk_op *op)
{
    (void)ctx;
    (void)op;
    return 0;
}

static int fake_enable(void *ctx, enum nk_ecc_direction dir)
{
    (void)dir;
    ((struct fake_port *)ctx)->enables++;
    return 0;
}

static int fake_read_code(void *ctx, uint8_t *code)
{
    struct fake_port *port = ctx;
    port->reads++;
    memcpy(code, port->code, 3);
    return port->read_code_result;
}

static int fake_correct(void *ctx, uint8_t *data, const uint8_t *read_ecc, const uint8_t *calc_ecc)
{
    (void)data;
    (void)read_ecc;
    (void)calc_ecc;
    struct fake_port *port = ctx;
    port->corrects++;
    return port->correct_result;
}

static const struct nk_ctrl_ops fake_ops = {
    .exec_op = fake_exec, .ecc_enable = fake_enable, .ecc_read_code = fake_read_code};
static const struct nk_ctrl_ops fake_ops_with_correct = {.exec_op = fake_exec,
                                                         .ecc_enable = fake_enable,
                                                         .ecc_read_code = fake_read_code,
                                                         .ecc_correct = fake_correct};

static struct nk_ctrl fake_ctrl(struct fake_port *port, const struct nk_ctrl_ops *ops,
                                enum nk_hw_ecc_algo algo, unsigned step, bool sm_order)
{
    struct nk_ctrl ctrl;
    memset(&ctrl, 0, sizeof ctrl);
    ctrl.ops = ops;
    ctrl.ctx = port;
    ctrl.caps = NK_CTRL_CAP_HW_ECC;
    ctrl.ecc.algo = algo;
    ctrl.ecc.step_size = (uint16_t)step;
    ctrl.ecc.bytes_per_step = 3;
    ctrl.ecc.strength = 1;
    ctrl.ecc.sm_order = sm_order;
    return ctrl;
}

static void test_none_engine(void **state)
{
    (void)state;
    struct nk_ecc_engine engine;
    memset(&engine, 0x5a, sizeof engine);
    nk_ecc_none_init(&engine);
    assert_null(engine.ops);
    assert_string_equal(engine.name, "none");
    assert_int_equal(engine.placement, NK_ECC_PLACEMENT_NONE);
    assert_int_equal(engine.strength, 0);
    assert_int_equal(engine.bytes_per_step, 0);
}

static void test_on_die_engine(void **state)
{
    (void)state;
    struct nk_ecc_engine engine;
    nk_ecc_on_die_init(&engine, 512, 4);
    assert_string_equal(engine.name, "on-die");
    assert_int_equal(engine.placement, NK_ECC_PLACEMENT_ON_DIE);
    assert_int_equal(engine.step_size, 512);
    assert_int_equal(engine.strength, 4);
    assert_int_equal(engine.bytes_per_step, 0); /* nothing in the OOB */
}

static void test_hw_engine_refuses_ports_without_an_engine(void **state)
{
    (void)state;
    struct fake_port port = {.read_code_result = 0};
    struct nk_ecc_engine engine;
    assert_int_equal(nk_ecc_hw_init(&engine, NULL), -NK_ENOTSUP);
    struct nk_ctrl ctrl = fake_ctrl(&port, &fake_ops, NK_HW_ECC_HAMMING, 512, false);
    ctrl.caps = 0;
    assert_int_equal(nk_ecc_hw_init(&engine, &ctrl), -NK_ENOTSUP);
    /* a vendor code nandkit cannot correct without the port's corrector */
    ctrl = fake_ctrl(&port, &fake_ops, NK_HW_ECC_OTHER, 512, false);
    assert_int_equal(nk_ecc_hw_init(&engine, &ctrl), -NK_ENOTSUP);
    ctrl = fake_ctrl(&port, &fake_ops_with_correct, NK_HW_ECC_OTHER, 512, false);
    assert_int_equal(nk_ecc_hw_init(&engine, &ctrl), 0);
}

/* calculate() reads the code the controller computed (the data pointer is
 * not looked at); correct() falls back to software Hamming. */
static void test_hw_hamming_engine_reads_code_and_corrects_in_software(void **state)
{
    (void)state;
    for (unsigned variant = 0; variant < 4; variant++) {
        unsigned step = variant & 1 ? 512 : 256;
        bool sm = variant >= 2;
        struct fake_port port = {.read_code_result = 0};
        struct nk_ctrl ctrl = fake_ctrl(&port, &fake_ops, NK_HW_ECC_HAMMING, step, sm);
        struct nk_ecc_engine engine;
        assert_int_equal(nk_ecc_hw_init(&engine, &ctrl), 0);
        assert_int_equal(engine.placement, NK_ECC_PLACEMENT_CONTROLLER);
        assert_int_equal(engine.step_size, step);
        assert_int_equal(engine.bytes_per_step, 3);
        assert_int_equal(engine.strength, 1);
        assert_ptr_equal(engine.ctrl, &ctrl);

        uint8_t clean[512], data[512], good[3], bad[3], got[3];
        nk_test_random(clean, step, 40 + variant);
        nk_hamming_calculate(clean, step, sm, good);
        memcpy(port.code, good, 3);
        engine.ops->calculate(&engine, NULL, got);
        assert_memory_equal(got, good, 3);
        assert_int_equal(port.reads, 1);

        memcpy(data, clean, step);
        data[step - 1] ^= 0x40;
        nk_hamming_calculate(data, step, sm, bad);
        assert_int_equal(engine.ops->correct(&engine, data, good, bad), 1);
        assert_memory_equal(data, clean, step);
    }
}

static void test_hw_engine_read_code_failure_gives_a_code_that_never_matches(void **state)
{
    (void)state;
    struct fake_port port = {.read_code_result = -NK_EIO, .code = {0xff, 0xff, 0xff}};
    struct nk_ctrl ctrl = fake_ctrl(&port, &fake_ops, NK_HW_ECC_HAMMING, 512, false);
    struct nk_ecc_engine engine;
    uint8_t code[3];
    assert_int_equal(nk_ecc_hw_init(&engine, &ctrl), 0);
    engine.ops->calculate(&engine, NULL, code);
    assert_int_equal(code[0] | code[1] | code[2], 0);
}

static void test_hw_engine_uses_the_ports_corrector(void **state)
{
    (void)state;
    struct fake_port port = {.correct_result = 3};
    struct nk_ctrl ctrl = fake_ctrl(&port, &fake_ops_with_correct, NK_HW_ECC_HAMMING, 512, false);
    struct nk_ecc_engine engine;
    uint8_t data[512] = {0}, a[3] = {1, 2, 3}, b[3] = {1, 2, 3};
    assert_int_equal(nk_ecc_hw_init(&engine, &ctrl), 0);
    assert_int_equal(engine.ops->correct(&engine, data, a, b), 3);
    assert_int_equal(port.corrects, 1);
}

/* ----- the simulator's hardware Hamming engine ------------------------------ */

/* Programs a page through the simulator's ECC-capable port with the engine
 * armed per step (as the device layer does), reads it back the same way,
 * and checks every code the controller produced against software Hamming,
 * then corrects a flipped bit with the stored codes. */
static void hw_engine_through_simulator(unsigned step, bool sm_order)
{
    struct nk_sim_config config = {.preset = "K9F1G08U0A", .seed = 1};
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    const struct nk_ctrl *ctrl =
        nk_sim_ctrl_port(sim, sm_order ? NK_SIM_PORT_ECC_SM_ORDER : 0, step);
    assert_non_null(ctrl);
    struct nk_chip chip;
    assert_int_equal(nk_chip_identify(&chip, ctrl, 0), 0);
    struct nk_ecc_engine engine;
    assert_int_equal(nk_ecc_hw_init(&engine, ctrl), 0);
    assert_int_equal(engine.step_size, step);

    enum { PAGE = 2048 };
    uint8_t page[PAGE], back[PAGE], codes[PAGE / 256][3], read_codes[PAGE / 256][3];
    unsigned steps = PAGE / step;
    nk_test_random(page, PAGE, step + sm_order);
    uint32_t row = 64 * 3 + 5;

    assert_int_equal(nk_chip_program_start(&chip, row, 0), 0);
    for (unsigned s = 0; s < steps; s++) {
        assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_WRITE), 0);
        assert_int_equal(nk_chip_write_data(&chip, page + s * step, step), 0);
        engine.ops->calculate(&engine, page + s * step, codes[s]);
        uint8_t want[3];
        nk_hamming_calculate(page + s * step, step, sm_order, want);
        assert_memory_equal(codes[s], want, 3);
    }
    assert_int_equal(nk_chip_program_finish(&chip, false), 0);

    assert_int_equal(nk_chip_read_start(&chip, row, 0), 0);
    for (unsigned s = 0; s < steps; s++) {
        assert_int_equal(ctrl->ops->ecc_enable(ctrl->ctx, NK_ECC_DIR_READ), 0);
        assert_int_equal(nk_chip_read_data(&chip, back + s * step, step), 0);
        engine.ops->calculate(&engine, back + s * step, read_codes[s]);
        assert_memory_equal(read_codes[s], codes[s], 3);
        assert_int_equal(engine.ops->correct(&engine, back + s * step, codes[s], read_codes[s]), 0);
    }
    assert_memory_equal(back, page, PAGE);

    /* A bit flipped after the transfer: the stored code puts it right. */
    back[step + 17] ^= 0x04;
    uint8_t calc[3];
    nk_hamming_calculate(back + step, step, sm_order, calc);
    assert_int_equal(engine.ops->correct(&engine, back + step, codes[1], calc), 1);
    assert_memory_equal(back, page, PAGE);
    nk_sim_close(sim);
}

static void test_hw_engine_over_simulated_controller_256(void **state)
{
    (void)state;
    hw_engine_through_simulator(256, false);
}

static void test_hw_engine_over_simulated_controller_512(void **state)
{
    (void)state;
    hw_engine_through_simulator(512, false);
}

static void test_hw_engine_over_simulated_controller_512_sm_order(void **state)
{
    (void)state;
    hw_engine_through_simulator(512, true);
}

/* ----- erased steps ---------------------------------------------------------- */

static unsigned zero_bits(const uint8_t *buf, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++)
        for (unsigned b = 0; b < 8; b++)
            n += !(buf[i] >> b & 1u);
    return n;
}

/* Up to `max` zero bits anywhere in data and code: the step reads as
 * erased (all 0xFF) and the count is returned; one more and it is
 * uncorrectable with both buffers untouched. Every split between data and
 * code is tried. */
static void test_erased_rule_counts_code_bytes_too(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (unsigned max = 0; max <= 16; max++)
        for (unsigned zeros = 0; zeros <= max + 1; zeros++)
            for (unsigned in_code = 0; in_code <= zeros && in_code <= 8 * 13; in_code++) {
                uint8_t data[512], ecc[13], data_copy[512], ecc_copy[13];
                memset(data, 0xff, sizeof data);
                memset(ecc, 0xff, sizeof ecc);
                for (unsigned k = 0; k < zeros; k++) {
                    uint8_t *buf = k < in_code ? ecc : data;
                    size_t len = k < in_code ? sizeof ecc : sizeof data;
                    unsigned bit;
                    do
                        bit = (unsigned)(nk_test_splitmix64(&seed) % (8 * len));
                    while (!(buf[bit / 8] >> (bit % 8) & 1u));
                    buf[bit / 8] &= (uint8_t) ~(1u << (bit % 8));
                }
                assert_int_equal(zero_bits(data, sizeof data) + zero_bits(ecc, sizeof ecc), zeros);
                memcpy(data_copy, data, sizeof data);
                memcpy(ecc_copy, ecc, sizeof ecc);
                int ret = nk_ecc_check_erased(data, sizeof data, ecc, sizeof ecc, max);
                if (zeros <= max) {
                    assert_int_equal(ret, (int)zeros);
                    assert_int_equal(zero_bits(data, sizeof data), 0);
                    assert_int_equal(zero_bits(ecc, sizeof ecc), 0);
                } else {
                    assert_int_equal(ret, -NK_EBADMSG);
                    assert_memory_equal(data, data_copy, sizeof data);
                    assert_memory_equal(ecc, ecc_copy, sizeof ecc);
                }
            }
}

static void test_written_data_is_not_erased(void **state)
{
    (void)state;
    uint8_t data[512], ecc[13];
    nk_test_random(data, sizeof data, 9);
    memset(ecc, 0xff, sizeof ecc);
    assert_int_equal(nk_ecc_check_erased(data, sizeof data, ecc, sizeof ecc, 8), -NK_EBADMSG);
}

/* The read path for an erased BCH step (Linux's nand_check_erased_ecc_chunk
 * after a failed correct): with up to t flips the code itself corrects
 * (erased = valid codeword thanks to the mask); beyond t correct fails, and
 * the erased rule with threshold t decides. */
static void test_erased_bch_step_with_flips(void **state)
{
    (void)state;
    size_t size = nk_bch_workspace_size(13, 8, 0);
    void *workspace = malloc(size);
    struct nk_bch bch;
    assert_int_equal(nk_bch_init(&bch, 512, 8, 0, workspace, size), 0);
    uint64_t seed = 777;
    for (unsigned flips = 0; flips <= 12; flips++) {
        uint8_t data[512], read_ecc[13], calc[13];
        memset(data, 0xff, sizeof data);
        memset(read_ecc, 0xff, sizeof read_ecc);
        for (unsigned k = 0; k < flips; k++) {
            unsigned bit;
            do
                bit = (unsigned)(nk_test_splitmix64(&seed) % (8 * 512));
            while (!(data[bit / 8] >> (bit % 8) & 1u));
            data[bit / 8] &= (uint8_t) ~(1u << (bit % 8));
        }
        nk_bch_calculate(&bch, data, calc);
        int ret = nk_bch_correct(&bch, data, read_ecc, calc, NULL);
        if (flips <= 8) {
            assert_int_equal(ret, (int)flips);
        } else {
            assert_int_equal(ret, -NK_EBADMSG);
            ret = nk_ecc_check_erased(data, sizeof data, read_ecc, sizeof read_ecc, 8);
            assert_int_equal(ret, -NK_EBADMSG);
        }
        if (ret >= 0)
            assert_int_equal(zero_bits(data, sizeof data), 0);
    }
    free(workspace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none_engine),
        cmocka_unit_test(test_on_die_engine),
        cmocka_unit_test(test_hw_engine_refuses_ports_without_an_engine),
        cmocka_unit_test(test_hw_hamming_engine_reads_code_and_corrects_in_software),
        cmocka_unit_test(test_hw_engine_read_code_failure_gives_a_code_that_never_matches),
        cmocka_unit_test(test_hw_engine_uses_the_ports_corrector),
        cmocka_unit_test(test_hw_engine_over_simulated_controller_256),
        cmocka_unit_test(test_hw_engine_over_simulated_controller_512),
        cmocka_unit_test(test_hw_engine_over_simulated_controller_512_sm_order),
        cmocka_unit_test(test_erased_rule_counts_code_bytes_too),
        cmocka_unit_test(test_written_data_is_not_erased),
        cmocka_unit_test(test_erased_bch_step_with_flips),
    };
    return cmocka_run_group_tests_name("ecc_engine", tests, NULL, NULL);
}
