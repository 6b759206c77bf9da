/* SPDX-License-Identifier: MIT */
/*
 * ONFI/JEDEC parameter pages against the Linux-made fixtures: the CRC, the
 * bitwise majority vote, field decoding, and identification through a port
 * with corrupted copies.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "mock_ctrl.h"
#include "nandkit/chip.h"
#include "nandkit/error.h"
#include "nandkit/sim.h"
#include "testutil.h"

static cJSON *read_json(const char *relative)
{
    uint8_t *text = nk_test_read_file(nk_test_fixture(relative), NULL);
    cJSON *json = cJSON_Parse((const char *)text);
    free(text);
    assert_non_null(json);
    return json;
}

static unsigned json_uint(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    assert_non_null(item);
    if (cJSON_IsString(item))
        return (unsigned)strtoul(item->valuestring, NULL, 0);
    return (unsigned)item->valuedouble;
}

/* A fixture .hex page (16 hex bytes per line). */
static size_t read_hex_page(const char *relative, uint8_t *out, size_t cap)
{
    uint8_t *text = nk_test_read_file(nk_test_fixture(relative), NULL);
    size_t n = 0;
    for (char *line = strtok((char *)text, "\n"); line; line = strtok(NULL, "\n")) {
        long got = nk_test_unhex(line, out + n, cap - n);
        assert_true(got > 0);
        n += (size_t)got;
    }
    free(text);
    return n;
}

static void test_crc16_matches_linux_vectors(void **state)
{
    (void)state;
    uint8_t *text = nk_test_read_file(nk_test_fixture("onfi/crc-vectors.jsonl"), NULL);
    unsigned checked = 0;
    for (char *line = strtok((char *)text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *rec = cJSON_Parse(line);
        assert_non_null(rec);
        uint8_t data[1024];
        const char *hex = cJSON_GetObjectItem(rec, "data")->valuestring;
        long len = nk_test_unhex(hex, data, sizeof data);
        assert_int_equal(len, json_uint(rec, "len"));
        uint16_t crc = nk_onfi_crc16((uint16_t)json_uint(rec, "seed"), data, (uint32_t)len);
        assert_int_equal(crc, json_uint(rec, "crc"));
        checked++;
        cJSON_Delete(rec);
    }
    free(text);
    assert_true(checked >= 8);
}

static void test_majority_vote_matches_linux(void **state)
{
    (void)state;
    uint8_t *text = nk_test_read_file(nk_test_fixture("onfi/majority-vote.jsonl"), NULL);
    unsigned cases = 0;
    for (char *line = strtok((char *)text, "\n"); line; line = strtok(NULL, "\n")) {
        cJSON *rec = cJSON_Parse(line);
        uint8_t raw[3 * 256], expected[256], out[256], selected[256];
        assert_int_equal(nk_test_unhex(cJSON_GetObjectItem(rec, "copy0")->valuestring, raw, 256),
                         256);
        assert_int_equal(
            nk_test_unhex(cJSON_GetObjectItem(rec, "copy1")->valuestring, raw + 256, 256), 256);
        assert_int_equal(
            nk_test_unhex(cJSON_GetObjectItem(rec, "copy2")->valuestring, raw + 512, 256), 256);
        assert_int_equal(
            nk_test_unhex(cJSON_GetObjectItem(rec, "majority")->valuestring, expected, 256), 256);
        const uint8_t *copies[3] = {raw, raw + 256, raw + 512};
        nk_onfi_majority(copies, 3, 256, out);
        assert_memory_equal(out, expected, 256);
        int used = nk_param_page_select(raw, 3, 256, selected);
        if (cJSON_IsTrue(cJSON_GetObjectItem(rec, "majority_crc_ok"))) {
            assert_int_equal(used, 3);
            assert_memory_equal(selected, expected, 256);
        } else {
            assert_int_equal(used, -NK_EBADMSG);
        }
        cases++;
        cJSON_Delete(rec);
    }
    free(text);
    assert_int_equal(cases, 3);
}

static void test_fixture_pages_decode_as_documented(void **state)
{
    (void)state;
    cJSON *pages = read_json("onfi/pages.json");
    unsigned count = 0;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, pages)
    {
        char path[256];
        uint8_t page[256], ext[256];
        snprintf(path, sizeof path, "onfi/%s", cJSON_GetObjectItem(entry, "file")->valuestring);
        assert_int_equal(read_hex_page(path, page, sizeof page), 256);
        const cJSON *d = cJSON_GetObjectItem(entry, "decoded");
        assert_int_equal(nk_onfi_crc16(NK_ONFI_CRC_SEED, page, 254), json_uint(d, "crc_stored"));

        size_t ext_len = 0;
        const cJSON *ext_file = cJSON_GetObjectItem(entry, "ext_param_page_file");
        if (ext_file) {
            snprintf(path, sizeof path, "onfi/%s", ext_file->valuestring);
            ext_len = read_hex_page(path, ext, sizeof ext);
        }
        struct nk_chip_info info;
        struct nk_diag diag;
        memset(&info, 0, sizeof info);
        assert_int_equal(nk_onfi_parse(page, ext_len ? ext : NULL, (uint32_t)ext_len, &info, &diag),
                         0);
        assert_string_equal(info.vendor, cJSON_GetObjectItem(d, "manufacturer")->valuestring);
        assert_string_equal(info.model, cJSON_GetObjectItem(d, "model")->valuestring);
        assert_int_equal(info.page_size, json_uint(d, "byte_per_page"));
        assert_int_equal(info.oob_size, json_uint(d, "spare_bytes_per_page"));
        assert_int_equal(info.pages_per_block, json_uint(d, "pages_per_block"));
        unsigned blocks_per_lun = json_uint(d, "blocks_per_lun");
        unsigned pow2 = 1;
        while (pow2 * 2 <= blocks_per_lun)
            pow2 *= 2; /* Linux truncates to a power of two */
        assert_int_equal(info.blocks, pow2 * json_uint(d, "lun_count"));
        assert_int_equal(info.luns, json_uint(d, "lun_count"));
        unsigned cycles = json_uint(d, "addr_cycles");
        assert_int_equal(info.row_cycles, cycles & 15);
        assert_int_equal(info.col_cycles, cycles >> 4);
        assert_int_equal(info.bits_per_cell, json_uint(d, "bits_per_cell"));
        assert_int_equal(info.timing.tPROG_max_ns, json_uint(d, "t_prog_us") * 1000);
        assert_int_equal(info.timing.tBERS_max_ns, json_uint(d, "t_bers_us") * 1000);
        assert_int_equal(info.timing.tR_max_ns, json_uint(d, "t_r_us") * 1000);
        assert_int_equal(info.timing.tCCS_ns, json_uint(d, "t_ccs_ns"));
        assert_true(info.features & NK_CHIP_ONFI);
        if (json_uint(d, "ecc_bits") == 0xff) {
            const cJSON *e = cJSON_GetObjectItem(entry, "ext_decoded");
            assert_non_null(e);
            assert_int_equal(info.ecc_strength, 24);
            assert_int_equal(info.ecc_step, 1024);
        } else {
            assert_int_equal(info.ecc_strength, json_uint(d, "ecc_bits"));
            assert_int_equal(info.ecc_step, 512);
        }
        count++;
    }
    cJSON_Delete(pages);
    assert_int_equal(count, 5);
}

/* Identification script: ID twice, "ONFI", then three parameter copies. */
struct script {
    uint8_t bytes[8 + 8 + 4 + 3 * 256];
};

static void make_onfi_script(struct script *s, const uint8_t page[256])
{
    static const uint8_t id[8] = {0x2c, 0xdc, 0x90, 0x95, 0x56, 0x2c, 0xdc, 0x90};
    memcpy(s->bytes, id, 8);
    memcpy(s->bytes + 8, id, 8);
    memcpy(s->bytes + 16, "ONFI", 4);
    for (int c = 0; c < 3; c++)
        memcpy(s->bytes + 20 + 256 * c, page, 256);
}

static int identify_with_script(const struct script *s, struct nk_chip *chip)
{
    struct nk_mock_ctrl *mock = malloc(sizeof *mock);
    nk_mock_ctrl_init(mock, true);
    mock->in_data = s->bytes;
    mock->in_len = sizeof s->bytes;
    int err = nk_chip_identify(chip, &mock->ctrl, 0);
    free(mock);
    return err;
}

static void flip(uint8_t *buf, unsigned bit)
{
    buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

/* A preset's parameter pages with one field changed in every copy (CRCs
 * recomputed, so only the parser's own checks can refuse it). */
static void set_field(struct nk_sim_params *p, bool jedec, unsigned offset, const uint8_t *bytes,
                      unsigned len)
{
    uint8_t *area = jedec ? p->jedec_page : p->onfi_page;
    unsigned copy = jedec ? 512 : 256;
    for (unsigned c = 0; c < 3; c++) {
        uint8_t *page = area + c * copy;
        memcpy(page + offset, bytes, len);
        uint16_t crc = nk_onfi_crc16(NK_ONFI_CRC_SEED, page, copy - 2);
        page[copy - 2] = (uint8_t)crc;
        page[copy - 1] = (uint8_t)(crc >> 8);
    }
}

static int parse_with(const char *preset, unsigned offset, const uint8_t *bytes, unsigned len,
                      struct nk_diag *diag)
{
    struct nk_sim_params p;
    assert_int_equal(nk_sim_preset(preset, &p), 0);
    set_field(&p, p.jedec, offset, bytes, len);
    struct nk_chip_info info;
    memset(&info, 0, sizeof info);
    nk_diag_clear(diag);
    return p.jedec ? nk_jedec_parse(p.jedec_page, &info, diag)
                   : nk_onfi_parse(p.onfi_page, NULL, 0, &info, diag);
}

static void test_parameter_pages_refuse_what_the_stack_cannot_address(void **state)
{
    (void)state;
    static const char *const parts[] = {"MT29F2G08ABAEA", "NKSIM-JEDEC-2G"};
    for (unsigned i = 0; i < 2; i++) {
        struct nk_diag diag;
        const char *part = parts[i];
        /* The unchanged page decodes. */
        uint8_t same = 0x23;
        assert_int_equal(parse_with(part, 101, &same, 1, &diag), 0);
        /* 5 column cycles: more than a column address ever needs. */
        uint8_t cycles = 0x51; /* 5 column, 1 row: 6 cycles in all */
        assert_int_equal(parse_with(part, 101, &cycles, 1, &diag), -NK_EINVAL);
        assert_non_null(strstr(diag.text, "column"));
        /* 1 column cycle cannot address a 2 KiB page. */
        cycles = 0x13;
        assert_int_equal(parse_with(part, 101, &cycles, 1, &diag), -NK_EINVAL);
        assert_non_null(strstr(diag.text, "column"));
        /* 1 row cycle cannot address 131072 pages. */
        cycles = 0x21;
        assert_int_equal(parse_with(part, 101, &cycles, 1, &diag), -NK_EINVAL);
        assert_non_null(strstr(diag.text, "row"));
        /* 2^31 blocks per LUN x 4 LUNs: more than 2^32 pages. */
        uint8_t blocks[5] = {0x00, 0x00, 0x00, 0x80, 0x04};
        assert_int_equal(parse_with(part, 96, blocks, 5, &diag), -NK_EINVAL);
        assert_non_null(strstr(diag.text, "pages"));
        /* 2^25 blocks x 64 pages: 2^31 pages of 2 KiB fit no 32-bit row
         * with the part's 3 row cycles. */
        uint8_t many[5] = {0x00, 0x00, 0x00, 0x02, 0x01};
        assert_int_equal(parse_with(part, 96, many, 5, &diag), -NK_EINVAL);
        /* Spare area larger than the page. */
        uint8_t oob[2] = {0x00, 0x10}; /* 4096 */
        assert_int_equal(parse_with(part, 84, oob, 2, &diag), -NK_EINVAL);
        assert_non_null(strstr(diag.text, "spare"));
        /* 0 bits per cell. */
        uint8_t bits = 0;
        assert_int_equal(parse_with(part, 102, &bits, 1, &diag), -NK_EINVAL);
        assert_non_null(strstr(diag.text, "bits per cell"));
    }
}

static void test_identify_refuses_five_column_cycles(void **state)
{
    (void)state;
    /* Through the simulator: a CRC-valid page saying 5 column cycles must
     * stop identification before any page address is built from it. */
    struct nk_sim_params p;
    assert_int_equal(nk_sim_preset("MT29F2G08ABAEA", &p), 0);
    uint8_t cycles = 0x51; /* 5 column, 1 row: 6 cycles in all */
    set_field(&p, false, 101, &cycles, 1);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &p;
    config.seed = 1;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    struct nk_chip chip;
    assert_int_equal(nk_chip_identify(&chip, nk_sim_ctrl(sim), 0), -NK_EINVAL);
    assert_non_null(strstr(chip.diag.text, "column"));
    nk_sim_close(sim);
}

static void test_identify_uses_first_good_copy(void **state)
{
    (void)state;
    uint8_t page[256];
    read_hex_page("onfi/micron-MT29F4G08ABADAWP.hex", page, sizeof page);
    struct script s;
    make_onfi_script(&s, page);
    flip(s.bytes + 20, 700); /* copy 0 bad: copy 1 must be used */
    struct nk_chip chip;
    assert_int_equal(identify_with_script(&s, &chip), 0);
    assert_string_equal(chip.info.model, "MT29F4G08ABADAWP");
    assert_int_equal(chip.info.blocks, 4096);
    assert_int_equal(chip.info.id[0], 0x2c);
    assert_int_equal(chip.info.id_len, 5);
}

static void test_identify_recovers_by_majority_vote(void **state)
{
    (void)state;
    uint8_t page[256];
    read_hex_page("onfi/micron-MT29F4G08ABADAWP.hex", page, sizeof page);
    struct script s;
    make_onfi_script(&s, page);
    flip(s.bytes + 20, 80 * 8 + 3);       /* page size field in copy 0 */
    flip(s.bytes + 20 + 256, 92 * 8);     /* pages per block in copy 1 */
    flip(s.bytes + 20 + 512, 96 * 8 + 1); /* blocks per LUN in copy 2 */
    struct nk_chip chip;
    assert_int_equal(identify_with_script(&s, &chip), 0);
    assert_int_equal(chip.info.page_size, 2048);
    assert_int_equal(chip.info.pages_per_block, 64);
    assert_int_equal(chip.info.blocks, 4096);
}

static void test_identify_fails_when_copies_agree_on_a_flip(void **state)
{
    (void)state;
    uint8_t page[256];
    read_hex_page("onfi/micron-MT29F4G08ABADAWP.hex", page, sizeof page);
    struct script s;
    make_onfi_script(&s, page);
    for (int c = 0; c < 3; c++)
        flip(s.bytes + 20 + 256 * c, 100 * 8); /* the same bit in every copy */
    struct nk_chip chip;
    assert_int_equal(identify_with_script(&s, &chip), -NK_EBADMSG);
    assert_non_null(strstr(chip.diag.text, "majority"));
}

static void test_identify_legacy_part_by_id_table(void **state)
{
    (void)state;
    struct script s;
    memset(&s, 0, sizeof s);
    static const uint8_t id[8] = {0xec, 0xf1, 0x00, 0x95, 0x40, 0xec, 0xf1, 0x00};
    memcpy(s.bytes, id, 8);
    memcpy(s.bytes + 8, id, 8);
    /* 20h answers no "ONFI" (0xA5 filler after the script), 40h no "JEDEC". */
    struct nk_mock_ctrl *mock = malloc(sizeof *mock);
    nk_mock_ctrl_init(mock, true);
    mock->in_data = s.bytes;
    mock->in_len = 16;
    struct nk_chip chip;
    assert_int_equal(nk_chip_identify(&chip, &mock->ctrl, 0), 0);
    assert_string_equal(chip.info.model, "K9F1G08U0A");
    assert_int_equal(chip.info.timing.tR_ns, 25000);
    assert_int_equal(chip.info.timing.tRC_ns, 30);
    assert_int_equal(chip.info.bbm_pages, NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE);
    assert_non_null(strstr(mock->log, "CMD ff+"));
    /* Before the part is known the chip layer uses ONFI mode 0 timings. */
    assert_non_null(strstr(mock->log, "ADDR 20+120|IN 4|"));
    assert_non_null(strstr(mock->log, "ADDR 40+120|IN 5|"));
    free(mock);
}

static void test_generic_device_code_decodes_extended_id(void **state)
{
    (void)state;
    static const uint8_t id[4] = {0x98, 0xda, 0x90, 0x15};
    struct nk_chip_info info;
    assert_int_equal(nk_chip_lookup_id(id, 4, &info), 0);
    assert_int_equal(info.page_size, 2048);
    assert_int_equal(info.oob_size, 64);
    assert_int_equal(info.pages_per_block, 64);
    assert_int_equal(info.blocks, 2048);
    assert_int_equal(info.row_cycles, 3);
    assert_string_equal(info.vendor, "Toshiba");
    assert_int_equal(info.bbm_pages, NK_BBM_FIRST_PAGE | NK_BBM_SECOND_PAGE);

    static const uint8_t small[2] = {0x20, 0x76};
    assert_int_equal(nk_chip_lookup_id(small, 2, &info), 0);
    assert_int_equal(info.page_size, 512);
    assert_int_equal(info.pages_per_block, 32);
    assert_int_equal(info.bbm_offset, 5);
    assert_true(info.features & NK_CHIP_SMALL_PAGE);
    assert_int_equal(info.bbm_pages, NK_BBM_FIRST_PAGE);

    static const uint8_t unknown[4] = {0xec, 0x01, 0x00, 0x00};
    assert_int_equal(nk_chip_lookup_id(unknown, 4, &info), -NK_ENODEV);
}

static void test_unknown_chip_names_its_id(void **state)
{
    (void)state;
    struct script s;
    memset(&s, 0, sizeof s);
    static const uint8_t id[8] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0x12, 0x34, 0x56};
    memcpy(s.bytes, id, 8);
    memcpy(s.bytes + 8, id, 8);
    struct nk_mock_ctrl *mock = malloc(sizeof *mock);
    nk_mock_ctrl_init(mock, true);
    mock->in_data = s.bytes;
    mock->in_len = 16;
    struct nk_chip chip;
    assert_int_equal(nk_chip_identify(&chip, &mock->ctrl, 0), -NK_ENODEV);
    assert_non_null(strstr(chip.diag.text, "12 34 56 78 9a"));
    free(mock);
}

static void test_unstable_id_is_reported(void **state)
{
    (void)state;
    uint8_t bytes[16] = {0xec, 0xf1, 0x00, 0x95, 0x40, 0, 0, 0, 0xec, 0xf0};
    struct nk_mock_ctrl *mock = malloc(sizeof *mock);
    nk_mock_ctrl_init(mock, true);
    mock->in_data = bytes;
    mock->in_len = 16;
    struct nk_chip chip;
    assert_int_equal(nk_chip_identify(&chip, &mock->ctrl, 0), -NK_EIO);
    assert_non_null(strstr(chip.diag.text, "unstable"));
    free(mock);
}

static void test_table_lookup_by_name(void **state)
{
    (void)state;
    assert_non_null(nk_chip_table_find("k9f1g08u0a"));
    assert_non_null(nk_chip_table_find("K9F1208")); /* unique prefix */
    assert_null(nk_chip_table_find("K9F"));         /* ambiguous prefix */
    assert_null(nk_chip_table_find("NOPE"));
    unsigned n = 0;
    while (nk_chip_table_entry(n))
        n++;
    assert_true(n >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16_matches_linux_vectors),
        cmocka_unit_test(test_majority_vote_matches_linux),
        cmocka_unit_test(test_fixture_pages_decode_as_documented),
        cmocka_unit_test(test_parameter_pages_refuse_what_the_stack_cannot_address),
        cmocka_unit_test(test_identify_refuses_five_column_cycles),
        cmocka_unit_test(test_identify_uses_first_good_copy),
        cmocka_unit_test(test_identify_recovers_by_majority_vote),
        cmocka_unit_test(test_identify_fails_when_copies_agree_on_a_flip),
        cmocka_unit_test(test_identify_legacy_part_by_id_table),
        cmocka_unit_test(test_generic_device_code_decodes_extended_id),
        cmocka_unit_test(test_unknown_chip_names_its_id),
        cmocka_unit_test(test_unstable_id_is_reported),
        cmocka_unit_test(test_table_lookup_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
