/* SPDX-License-Identifier: MIT */
/*
 * Presets and explicit geometries: every preset is a consistent part that
 * the chip layer identifies (legacy table, ONFI or JEDEC) with the geometry
 * the simulator uses; parameter pages are built from the description with
 * valid CRCs (the large part's matches Micron's page fixture); corrupted
 * copies exercise the chip layer's recovery; bad geometries are refused
 * with a reason.
 */
#include <string.h>

#include "nandkit/chip.h"
#include "sim_ops.h"

static void test_every_preset_is_consistent(void **state)
{
    (void)state;
    unsigned count = 0;
    for (unsigned i = 0; nk_sim_preset_name(i); i++, count++) {
        struct nk_sim_params params;
        assert_int_equal(nk_sim_preset(nk_sim_preset_name(i), &params), 0);
        struct nk_diag why[1] = {{""}};
        if (nk_sim_params_check(&params, why))
            fail_msg("%s: %s", nk_sim_preset_name(i), why->text);
        const struct nk_chip_info *c = &params.chip;
        assert_string_equal(c->model, nk_sim_preset_name(i));
        assert_int_equal(c->bits_per_cell, 1);
        assert_true(c->nop >= 1);
        assert_true(c->ecc_strength >= 1);
        assert_true(c->bbm_pages != 0);
        assert_true(c->max_bad_blocks > 0);
        assert_true(c->timing.tR_ns && c->timing.tPROG_ns && c->timing.tBERS_ns);
        assert_true(c->timing.tRC_ns && c->timing.tWC_ns && c->timing.tRST_ns);
        assert_true(c->timing.tR_max_ns >= c->timing.tR_ns);
        assert_true(c->timing.tPROG_max_ns >= c->timing.tPROG_ns);
        assert_true(c->timing.tBERS_max_ns >= c->timing.tBERS_ns);
        assert_int_equal(params.onfi, (c->features & NK_CHIP_ONFI) != 0);
    }
    assert_true(count >= 8);
}

static void test_preset_names_are_case_insensitive(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("k9f1g08u0a", &params), 0);
    assert_string_equal(params.chip.model, "K9F1G08U0A");
    assert_int_equal(nk_sim_preset("K9F1G08", &params), -NK_ENOENT);
    assert_int_equal(nk_sim_preset("nonsense", &params), -NK_ENOENT);
    assert_null(nk_sim_preset_name(1000));
}

static void test_k9f1g08u0a_preset(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("K9F1G08U0A", &params), 0);
    const struct nk_chip_info *c = &params.chip;
    const uint8_t id[] = {0xec, 0xf1, 0x00, 0x95, 0x40};
    assert_memory_equal(c->id, id, 5);
    assert_int_equal(c->page_size, 2048);
    assert_int_equal(c->oob_size, 64);
    assert_int_equal(c->pages_per_block, 64);
    assert_int_equal(c->blocks, 1024);
    assert_int_equal(c->col_cycles, 2);
    assert_int_equal(c->row_cycles, 2);
    assert_int_equal(c->nop, 4);
    assert_int_equal(c->bbm_pages, NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE);
    assert_int_equal(c->bbm_offset, 0);
    assert_int_equal(c->max_bad_blocks, 20);
    assert_int_equal(c->timing.tR_ns, 25000);
    assert_int_equal(c->timing.tPROG_ns, 300000);
    assert_int_equal(c->timing.tBERS_ns, 2000000);
    assert_int_equal(c->timing.tRC_ns, 30);
    assert_int_equal(c->timing.tWC_ns, 30);
    assert_int_equal(c->timing.tADL_ns, 70);
    assert_int_equal(c->timing.tWB_ns, 100);
    assert_int_equal(c->timing.tWHR_ns, 60);
    assert_int_equal(c->timing.tRST_ns, 5000);
    assert_int_equal(c->timing.tCBSY_ns, 3000);
}

static void test_chip_layer_identifies_every_preset(void **state)
{
    (void)state;
    for (unsigned i = 0; nk_sim_preset_name(i); i++) {
        struct nk_sim *sim = sim_open_preset(nk_sim_preset_name(i), 1);
        const struct nk_chip_info *want = &nk_sim_params(sim)->chip;
        for (unsigned rb = 0; rb < 2; rb++) {
            struct nk_chip chip;
            const struct nk_ctrl *ctrl = rb ? nk_sim_ctrl(sim) : nk_sim_ctrl_no_rb(sim);
            int err = nk_chip_identify(&chip, ctrl, 0);
            if (err)
                fail_msg("%s: %s", want->model, chip.diag.text);
            const struct nk_chip_info *got = &chip.info;
            assert_memory_equal(got->id, want->id, want->id_len);
            assert_int_equal(got->page_size, want->page_size);
            assert_int_equal(got->oob_size, want->oob_size);
            assert_int_equal(got->pages_per_block, want->pages_per_block);
            /* Like Linux, the chip layer rounds an ONFI block count down to a
             * power of two (MT29F32G08ABCDB: 1048 -> 1024). */
            uint32_t pow2 = 1;
            while (pow2 * 2 <= want->blocks)
                pow2 *= 2;
            if (got->blocks != want->blocks)
                assert_int_equal(got->blocks, pow2);
            assert_int_equal(got->col_cycles, want->col_cycles);
            assert_int_equal(got->row_cycles, want->row_cycles);
            assert_int_equal(got->nop, want->nop);
            assert_int_equal(got->ecc_strength, want->ecc_strength);
            assert_int_equal(got->ecc_step, want->ecc_step);
            assert_int_equal(got->features & (NK_CHIP_ONFI | NK_CHIP_JEDEC | NK_CHIP_SMALL_PAGE),
                             want->features & (NK_CHIP_ONFI | NK_CHIP_JEDEC | NK_CHIP_SMALL_PAGE));
        }
        struct nk_sim_counters c;
        nk_sim_counters(sim, &c);
        assert_int_equal(c.protocol_errors, 0);
        assert_int_equal(c.unknown_commands, 0);
        nk_sim_close(sim);
    }
}

static int identify_with(struct nk_sim_params *params, struct nk_chip *chip)
{
    struct nk_sim_config config = {.params = params};
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    int err = nk_chip_identify(chip, nk_sim_ctrl(sim), 0);
    nk_sim_close(sim);
    return err;
}

static void test_first_onfi_copy_bad_second_used(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F2G08ABAEA", &params), 0);
    params.onfi_page[81] ^= 0x10; /* page size 2048 -> 6144 in copy 0 */
    struct nk_chip chip;
    assert_int_equal(identify_with(&params, &chip), 0);
    assert_int_equal(chip.info.page_size, 2048);
}

static void test_all_onfi_copies_bad_in_different_bits_vote_recovers(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F2G08ABAEA", &params), 0);
    params.onfi_page[81] ^= 0x10;
    params.onfi_page[256 + 92] ^= 0x01;
    params.onfi_page[512 + 200] ^= 0x80;
    struct nk_chip chip;
    assert_int_equal(identify_with(&params, &chip), 0);
    assert_int_equal(chip.info.page_size, 2048);
    assert_int_equal(chip.info.pages_per_block, 64);
}

static void test_all_onfi_copies_bad_alike_is_an_error(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F2G08ABAEA", &params), 0);
    for (unsigned copy = 0; copy < 3; copy++)
        params.onfi_page[256 * copy + 81] ^= 0x10;
    struct nk_chip chip;
    assert_int_equal(identify_with(&params, &chip), -NK_EBADMSG);
    assert_non_null(strstr(chip.diag.text, "ONFI"));
}

static const uint8_t *onfi_copy(const struct nk_sim_params *params)
{
    return params->onfi_page;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_onfi_page_fields_follow_the_part(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F2G08ABAEA", &params), 0);
    const uint8_t *p = onfi_copy(&params);
    assert_memory_equal(p, "ONFI", 4);
    assert_int_equal(p[4] | p[5] << 8, 0x0002); /* ONFI 1.0 */
    assert_memory_equal(p + 32, "MICRON      ", 12);
    assert_memory_equal(p + 44, "MT29F2G08ABAEA      ", 20);
    assert_int_equal(p[64], 0x2c);
    assert_int_equal(le32(p + 80), 2048);
    assert_int_equal(p[84] | p[85] << 8, 64);
    assert_int_equal(le32(p + 92), 64);
    assert_int_equal(le32(p + 96), 2048);
    assert_int_equal(p[100], 1);
    assert_int_equal(p[101], 0x23);
    assert_int_equal(p[102], 1);
    assert_int_equal(p[110], 4);
    assert_int_equal(p[112], 4);
    assert_int_equal(p[129] | p[130] << 8, 0x003f); /* tRC 20 ns: modes 0..5 */
    assert_int_equal(p[133] | p[134] << 8, 600);    /* tPROG max, us */
    assert_int_equal(p[135] | p[136] << 8, 3000);
    assert_int_equal(p[137] | p[138] << 8, 25);
    assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, p, 254), p[254] | p[255] << 8);
    /* Rebuilt after a change, the page follows. */
    params.chip.blocks = 4096;
    nk_sim_params_build_pages(&params);
    assert_int_equal(le32(p + 96), 4096);
    assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, p, 254), p[254] | p[255] << 8);
}

static void test_large_part_matches_micron_page_fixture(void **state)
{
    (void)state;
    uint8_t fixture[256];
    uint8_t *text = nk_test_read_file(nk_test_fixture("onfi/micron-MT29F32G08ABCDBJ4.hex"), NULL);
    size_t n = 0;
    for (char *line = strtok((char *)text, "\n"); line; line = strtok(NULL, "\n"))
        n += (size_t)nk_test_unhex(line, fixture + n, sizeof fixture - n);
    free(text);
    assert_int_equal(n, 256);
    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("MT29F32G08ABCDB", &params), 0);
    const uint8_t *p = onfi_copy(&params);
    /* Memory organisation, ECC byte and array timings as Micron's page. */
    assert_memory_equal(p + 80, fixture + 80, 6);   /* page, spare */
    assert_memory_equal(p + 92, fixture + 92, 11);  /* ppb, blocks, LUNs, cycles, bpc */
    assert_int_equal(p[103], fixture[103]);         /* bad blocks per LUN */
    assert_int_equal(p[110], fixture[110]);         /* NOP */
    assert_int_equal(p[112], fixture[112]);         /* 0xff: see extended page */
    assert_memory_equal(p + 129, fixture + 129, 2); /* timing modes */
    assert_memory_equal(p + 133, fixture + 133, 8); /* tPROG, tBERS, tR, tCCS */
    assert_int_equal(p[12] | p[13] << 8, 3);        /* 48-byte extended page */
    assert_int_equal(params.onfi_ext_len, 48);
    const uint8_t *e = params.onfi_ext_page;
    assert_memory_equal(e + 2, "EPPS", 4);
    assert_int_equal(e[32], 24);
    assert_int_equal(e[33], 10);
    uint64_t bytes =
        (uint64_t)params.chip.page_size * params.chip.pages_per_block * params.chip.blocks;
    assert_true(bytes >= (4ull << 30));
    assert_true(params.chip.page_size >= 8192);
}

static void test_geometry_params_make_an_identifiable_onfi_part(void **state)
{
    (void)state;
    struct nk_sim_params params;
    struct nk_diag why[1];
    assert_int_equal(nk_sim_params_geometry(&params, 4096, 128, 64, 512, why), 0);
    assert_true(params.onfi);
    assert_int_equal(params.chip.timing.tR_ns, 25000);
    struct nk_chip chip;
    assert_int_equal(identify_with(&params, &chip), 0);
    assert_int_equal(chip.info.page_size, 4096);
    assert_int_equal(chip.info.oob_size, 128);
    assert_int_equal(chip.info.blocks, 512);
    /* Small pages use the 512-byte command set. */
    assert_int_equal(nk_sim_params_geometry(&params, 512, 16, 32, 1024, why), 0);
    assert_true(params.chip.features & NK_CHIP_SMALL_PAGE);
    assert_int_equal(params.chip.col_cycles, 1);
    assert_int_equal(params.chip.bbm_offset, 5);
}

static void expect_bad_geometry(uint32_t page, uint32_t oob, uint32_t ppb, uint32_t blocks,
                                const char *needle)
{
    struct nk_sim_params params;
    struct nk_diag why[1] = {{""}};
    assert_int_equal(nk_sim_params_geometry(&params, page, oob, ppb, blocks, why), -NK_EINVAL);
    if (!strstr(why->text, needle))
        fail_msg("reason '%s' does not name '%s'", why->text, needle);
}

static void test_bad_geometries_are_refused_with_a_reason(void **state)
{
    (void)state;
    expect_bad_geometry(0, 64, 64, 1024, "page size 0");
    expect_bad_geometry(2000, 64, 64, 1024, "page size 2000");
    expect_bad_geometry(1u << 20, 64, 64, 1024, "page size");
    expect_bad_geometry(2048, 2048, 64, 1024, "OOB size 2048");
    expect_bad_geometry(2048, 64, 0, 1024, "pages per block 0");
    expect_bad_geometry(2048, 64, 48, 1024, "pages per block 48");
    expect_bad_geometry(2048, 64, 64, 0, "block count 0");
    expect_bad_geometry(2048, 64, 64, 1u << 24, "block count");
}

static void test_open_refuses_unknown_preset_and_bad_params(void **state)
{
    (void)state;
    struct nk_sim *sim = (struct nk_sim *)1;
    struct nk_diag why[1] = {{""}};
    struct nk_sim_config config = {.preset = "K9XYZ"};
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_ENOENT);
    assert_null(sim);
    assert_non_null(strstr(why->text, "unknown chip 'K9XYZ'"));
    assert_non_null(strstr(why->text, "K9F1G08U0A"));

    struct nk_sim_params params;
    assert_int_equal(nk_sim_preset("K9F1G08U0A", &params), 0);
    params.chip.row_cycles = 1; /* cannot reach 65536 pages */
    config.preset = NULL;
    config.params = &params;
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EINVAL);
    assert_non_null(strstr(why->text, "row cycles"));
    params.chip.row_cycles = 2;
    params.chip.bbm_offset = 64;
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EINVAL);
    assert_non_null(strstr(why->text, "marker"));

    memset(&config, 0, sizeof config);
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EINVAL);
    assert_non_null(strstr(why->text, "no chip"));
}

static void test_chip_layer_timing_on_k9f1g08u0a(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    struct nk_chip chip;
    nk_chip_attach(&chip, nk_sim_ctrl(sim), 0, &nk_sim_params(sim)->chip);
    uint8_t data[2048], oob[64];
    memset(data, 0x5a, sizeof data);
    memset(oob, 0xff, sizeof oob);
    struct nk_xfer xfers[] = {{0, 2048, data}, {2048, 64, oob}};
    uint64_t t0 = nk_sim_time_ns(sim);
    assert_int_equal(nk_chip_read_page(&chip, 64, xfers, 2), 0);
    assert_int_equal(nk_sim_time_ns(sim) - t0, 88540);
    t0 = nk_sim_time_ns(sim);
    assert_int_equal(nk_chip_program_page(&chip, 64, xfers, 2, false), 0);
    /* + tADL (40 extra) and the status read after ready (70h, tWHR, 1 byte). */
    assert_int_equal(nk_sim_time_ns(sim) - t0, 363540 + 40 + 90);
    t0 = nk_sim_time_ns(sim);
    assert_int_equal(nk_chip_erase_block(&chip, 64), 0);
    assert_int_equal(nk_sim_time_ns(sim) - t0, 2000120 + 90);
    nk_sim_close(sim);
}

/* One source: every datasheet model of the chip layer is a preset whose
 * description is that table entry, byte for byte. */
static void test_presets_take_the_chip_layers_datasheet_entries(void **state)
{
    (void)state;
    unsigned models = 0;
    for (unsigned i = 0; nk_chip_table_entry(i); i++) {
        const struct nk_chip_info *info = nk_chip_table_entry(i);
        struct nk_sim_params params;
        assert_int_equal(nk_sim_preset(info->model, &params), 0);
        assert_memory_equal(&params.chip, info, sizeof *info);
        assert_int_equal(params.onfi, info->onfi_version != 0);
        models++;
    }
    assert_true(models >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_preset_is_consistent),
        cmocka_unit_test(test_presets_take_the_chip_layers_datasheet_entries),
        cmocka_unit_test(test_preset_names_are_case_insensitive),
        cmocka_unit_test(test_k9f1g08u0a_preset),
        cmocka_unit_test(test_chip_layer_identifies_every_preset),
        cmocka_unit_test(test_first_onfi_copy_bad_second_used),
        cmocka_unit_test(test_all_onfi_copies_bad_in_different_bits_vote_recovers),
        cmocka_unit_test(test_all_onfi_copies_bad_alike_is_an_error),
        cmocka_unit_test(test_onfi_page_fields_follow_the_part),
        cmocka_unit_test(test_large_part_matches_micron_page_fixture),
        cmocka_unit_test(test_geometry_params_make_an_identifiable_onfi_part),
        cmocka_unit_test(test_bad_geometries_are_refused_with_a_reason),
        cmocka_unit_test(test_open_refuses_unknown_preset_and_bad_params),
        cmocka_unit_test(test_chip_layer_timing_on_k9f1g08u0a),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
