/* SPDX-License-Identifier: MIT */
/*
 * The benchmarker's structure, not its speed: the datasheet-limit
 * arithmetic for several presets, that simulated figures decompose into the
 * virtual device time, the JSON schema, and refusing a chip without timing.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "nandkit/error.h"
#include "nkbench.h"
#include "simdev.h"
#include "testutil.h"

static void limits_of(const char *preset, double limits[NK_BENCH_OP_COUNT])
{
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset(preset, &params), 0);
    assert_true(nk_bench_limits(&params.chip, limits));
}

static void test_limits_reproduce_the_ecos_library_figures(void **state)
{
    (void)state;
    double l[NK_BENCH_OP_COUNT];
    limits_of("K9F1G08U0A", l);
    /* tR + (6 + 2112) x tRC; (6 + 2112) x tWC + tPROG; tBERS + 4 x tWC */
    assert_float_equal(l[NK_BENCH_PAGE_READ], 88.54, 1e-9);
    assert_float_equal(l[NK_BENCH_PAGE_PROGRAM], 363.54, 1e-9);
    assert_float_equal(l[NK_BENCH_BLOCK_ERASE], 2000.12, 1e-9);
    assert_float_equal(l[NK_BENCH_PAGE_READ_DATA], 25 + (6 + 2048) * 0.03, 1e-9);
    assert_float_equal(l[NK_BENCH_PAGE_READ_OOB], 25 + (6 + 64) * 0.03, 1e-9);
    assert_float_equal(l[NK_BENCH_BLOCK_READ], 64 * 88.54, 1e-6);
    assert_float_equal(l[NK_BENCH_BLOCK_WRITE], 2000.12 + 64 * 363.54, 1e-6);
}

static void test_limits_follow_address_cycles_and_page_kind(void **state)
{
    (void)state;
    double l[NK_BENCH_OP_COUNT];
    limits_of("K9F2G08U0B", l); /* 3 row cycles: 7 cycles, tRC = tWC = 25 ns */
    assert_float_equal(l[NK_BENCH_PAGE_READ], 25 + (7 + 2112) * 0.025, 1e-9);
    assert_float_equal(l[NK_BENCH_PAGE_PROGRAM], (7 + 2112) * 0.025 + 200, 1e-9);
    assert_float_equal(l[NK_BENCH_BLOCK_ERASE], 1500 + 5 * 0.025, 1e-9);
    limits_of("K9F1208U0C", l); /* small page: pointer + 1 column + 3 row, no 30h */
    assert_float_equal(l[NK_BENCH_PAGE_READ], 15 + (5 + 528) * 0.05, 1e-9);
    assert_float_equal(l[NK_BENCH_PAGE_PROGRAM], (7 + 528) * 0.05 + 200, 1e-9);
    assert_float_equal(l[NK_BENCH_BLOCK_ERASE], 2000 + 5 * 0.05, 1e-9);
    limits_of("MT29F2G08ABAEA", l);
    assert_float_equal(l[NK_BENCH_PAGE_READ], 25 + (7 + 2112) * 0.02, 1e-9);
    assert_float_equal(l[NK_BENCH_BLOCK_ERASE], 700 + 5 * 0.02, 1e-9);
}

static int run(struct nk_test_dev *d, struct nk_bench_result *result, struct nk_diag *why)
{
    struct nk_bench_config config;
    memset(&config, 0, sizeof config);
    config.nand = &d->nand;
    config.sim = d->sim;
    config.clock = NK_BENCH_CLOCK_SIM;
    config.count = 16;
    config.block_count = 2;
    config.seed = 3;
    return nk_bench_run(&config, result, why);
}

static void test_simulated_figures_are_device_time_plus_cpu(void **state)
{
    (void)state;
    struct nk_test_dev d;
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.measure_host_time = true;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_HAMMING256, &sc);
    struct nk_bench_result r;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(run(&d, &r, why), 0);
    const struct nk_bench_stat *read = &r.ops[NK_BENCH_PAGE_READ];
    assert_int_equal(read->count, 16);
    assert_float_equal(read->array_us, 25.0, 1e-9); /* tR */
    assert_float_equal(read->bus_us, 63.54, 1e-9);  /* 2118 cycles of 30 ns */
    assert_true(read->median_us >= 88.54);
    /* The breakdown splits the median, the figure itself. */
    assert_float_equal(read->median_us,
                       read->array_us + read->bus_us + read->ecc_cpu_us + read->other_cpu_us, 1e-6);
    assert_true(read->min_us <= read->median_us && read->median_us <= read->p99_us &&
                read->p99_us <= read->max_us);
    assert_true(read->min_us <= read->avg_us && read->avg_us <= read->max_us);
    const struct nk_bench_stat *program = &r.ops[NK_BENCH_PAGE_PROGRAM];
    assert_float_equal(program->array_us, 300.0, 1e-9);
    /* 2118 cycles, the tADL extra (40 ns) and the status read (70h, tWHR, 1 byte) */
    assert_float_equal(program->bus_us, 63.54 + 0.04 + 0.09, 1e-9);
    assert_float_equal(r.ops[NK_BENCH_BLOCK_ERASE].array_us, 2000.0, 1e-9);
    assert_true(r.ecc_page_read_us > 0.0);
    assert_int_equal(r.ops[NK_BENCH_BLOCK_WRITE].count, 2);
    nk_test_dev_close(&d);
}

static void test_json_has_the_documented_keys(void **state)
{
    (void)state;
    struct nk_test_dev d;
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.measure_host_time = true;
    nk_test_dev_open(&d, "K9F1G08U0A", NK_TEST_ECC_NONE, &sc);
    struct nk_bench_result r;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(run(&d, &r, why), 0);
    snprintf(r.loop, sizeof r.loop, "unrolled");
    char *text = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&text, &size);
    nk_bench_print_json(mem, &r, 1);
    fclose(mem);
    cJSON *json = cJSON_Parse(text);
    assert_non_null(json);
    assert_string_equal(cJSON_GetObjectItem(json, "chip")->valuestring, "K9F1G08U0A");
    assert_string_equal(cJSON_GetObjectItem(json, "ecc")->valuestring, "none");
    assert_string_equal(cJSON_GetObjectItem(json, "loop")->valuestring, "unrolled");
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(json, "fs")));
    const cJSON *ops = cJSON_GetObjectItem(json, "ops");
    const char *names[] = {"page_read",   "page_read_data", "page_read_oob", "page_program",
                           "block_erase", "block_read",     "block_write"};
    for (unsigned i = 0; i < 7; i++) {
        const cJSON *op = cJSON_GetObjectItem(ops, names[i]);
        assert_non_null(op);
        const char *keys[] = {"median_us",    "p99_us",    "min_us",    "max_us",
                              "mean_us",      "stddev_us", "noise_us",  "limit_us",
                              "limit_max_us", "ratio",     "ratio_max", "count"};
        for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++)
            assert_true(cJSON_IsNumber(cJSON_GetObjectItem(op, keys[k])));
        assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(op, "breakdown_us"), "array"));
    }
    assert_float_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(ops, "page_read"), "limit_us")->valuedouble, 88.54,
        1e-4);
    cJSON_Delete(json);
    free(text);

    /* The --compare form lists runs, each with the same shape. */
    struct nk_bench_result pair[2] = {r, r};
    snprintf(pair[1].loop, sizeof pair[1].loop, "byte");
    mem = open_memstream(&text, &size);
    nk_bench_print_json(mem, pair, 2);
    fclose(mem);
    json = cJSON_Parse(text);
    assert_non_null(json);
    const cJSON *runs = cJSON_GetObjectItem(json, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), 2);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 1), "loop")->valuestring,
                        "byte");
    cJSON_Delete(json);
    free(text);
    nk_test_dev_close(&d);
}

static void test_the_maximum_limit_uses_the_datasheet_maximum_times(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F32G08ABCDB", &params), 0);
    double typical[NK_BENCH_OP_COUNT], worst[NK_BENCH_OP_COUNT];
    assert_true(nk_bench_limits(&params.chip, typical));
    assert_true(nk_bench_limits_max(&params.chip, worst));
    const struct nk_chip_timing *t = &params.chip.timing;
    assert_true(t->tR_max_ns > t->tR_ns);
    assert_float_equal(worst[NK_BENCH_PAGE_READ] - typical[NK_BENCH_PAGE_READ],
                       (t->tR_max_ns - t->tR_ns) / 1e3, 1e-3);
    assert_float_equal(worst[NK_BENCH_BLOCK_ERASE] - typical[NK_BENCH_BLOCK_ERASE],
                       (t->tBERS_max_ns - t->tBERS_ns) / 1e3, 1e-3);
}

static void test_differences_within_the_noise_are_not_attributed(void **state)
{
    (void)state;
    struct nk_bench_stat a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.median_us = 89.00;
    a.noise_us = 0.02;
    b.median_us = 89.03;
    b.noise_us = 0.02;
    assert_false(nk_bench_differs(&a, &b)); /* 0.03 <= 0.04 */
    b.median_us = 89.05;
    assert_true(nk_bench_differs(&a, &b));
    assert_true(nk_bench_differs(&b, &a));
}

static void test_a_chip_without_timing_is_refused_by_name(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("K9F1G08U0A", &params), 0);
    /* An ID no model entry knows: identification finds the geometry from the
     * extended ID but no datasheet timing. */
    memset(&params.chip.timing, 0, sizeof params.chip.timing);
    static const uint8_t id[5] = {0x98, 0xf1, 0x80, 0x15, 0x00};
    memcpy(params.chip.id, id, sizeof id);
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &params;
    struct nk_test_dev d;
    nk_test_dev_open(&d, NULL, NK_TEST_ECC_NONE, &sc);
    struct nk_bench_result r;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(run(&d, &r, why), -NK_EINVAL);
    assert_non_null(strstr(why->text, "NAND 128MiB (ID 98 f1) has no datasheet timing"));
    double l[NK_BENCH_OP_COUNT];
    assert_false(nk_bench_limits(&d.nand.chip.info, l));
    nk_test_dev_close(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_reproduce_the_ecos_library_figures),
        cmocka_unit_test(test_limits_follow_address_cycles_and_page_kind),
        cmocka_unit_test(test_simulated_figures_are_device_time_plus_cpu),
        cmocka_unit_test(test_json_has_the_documented_keys),
        cmocka_unit_test(test_a_chip_without_timing_is_refused_by_name),
        cmocka_unit_test(test_the_maximum_limit_uses_the_datasheet_maximum_times),
        cmocka_unit_test(test_differences_within_the_noise_are_not_attributed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
