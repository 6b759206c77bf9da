/* SPDX-License-Identifier: MIT */
/*
 * Backing store: the raw image file (page data then OOB, block 0 first, no
 * header) read lazily and written on sync/close or through; the sidecar
 * that keeps erase counts and bad-block state across opens; short and
 * sparse images; read-only images; the errors for missing files and wrong
 * sizes; and a >= 4 GiB part that only allocates the blocks it touches.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_ops.h"

#define PAGE_BYTES 2112u
#define BLOCK_BYTES (64u * PAGE_BYTES)

static char image_path[256];

static int setup(void **state)
{
    (void)state;
    snprintf(image_path, sizeof image_path, "%s/test_sim_store_%d.img", NK_BINARY_DIR,
             (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char sidecar[300];
    unlink(image_path);
    unlink(nk_sim_sidecar_path(image_path, sidecar, sizeof sidecar));
    return 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static struct nk_sim *open_image(const char *preset, bool create, bool read_only,
                                 struct nk_diag *why)
{
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = preset;
    config.image_path = image_path;
    config.create = create;
    config.read_only = read_only;
    config.seed = 5;
    struct nk_sim *sim = NULL;
    struct nk_diag local[1];
    int err = nk_sim_open(&sim, &config, why ? why : local);
    if (err && !why)
        fail_msg("open %s: %s", image_path, local->text);
    return err ? NULL : sim;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static uint8_t *read_whole(const char *path, size_t *len)
{
    return nk_test_read_file(path, len);
}

static void test_image_round_trip_in_raw_format(void **state)
{
    (void)state;
    struct nk_sim *sim = open_image("K9F1G08U0A", true, false, NULL);
    assert_int_equal(file_size(image_path), 0); /* sparse: nothing written yet */
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[PAGE_BYTES], back[PAGE_BYTES];
    nk_test_random(data, sizeof data, 1);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 64 * 2 + 1, 0, data, sizeof data), 0xe0);
    nk_sim_close(sim);
    /* The file holds blocks 0..2: block 2 written, 0..1 erased: 0xFF bytes
     * or, where the file system keeps holes, a hole. */
    size_t len;
    uint8_t *file = read_whole(image_path, &len);
    assert_int_equal(len, 3 * BLOCK_BYTES);
    assert_memory_equal(file + (64 * 2 + 1) * PAGE_BYTES, data, PAGE_BYTES);
    struct stat st;
    assert_int_equal(stat(image_path, &st), 0);
    bool holes = (uint64_t)st.st_blocks * 512u < 2u * BLOCK_BYTES;
    for (size_t i = 0; i < 2 * BLOCK_BYTES; i++)
        if (file[i] != 0xff && !(holes && file[i] == 0))
            fail_msg("byte %zu of the gap is %02x", i, file[i]);
    free(file);
    sim = open_image("K9F1G08U0A", false, false, NULL);
    info = &nk_sim_params(sim)->chip;
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 64 * 2 + 1, 0, back, sizeof back), 0);
    assert_memory_equal(back, data, sizeof data);
    for (uint32_t row = 0; row < 128; row += 7) { /* the gap reads erased */
        assert_int_equal(sim_read(nk_sim_ctrl(sim), info, row, 0, back, sizeof back), 0);
        for (size_t i = 0; i < sizeof back; i++)
            if (back[i] != 0xff)
                fail_msg("row %u byte %zu of the gap reads %02x", row, i, back[i]);
    }
    nk_sim_close(sim);
}

static void test_foreign_image_reads_lazily_and_keeps_page_order(void **state)
{
    (void)state;
    /* Two blocks made elsewhere (no sidecar): page 3 of block 1 programmed. */
    size_t len = 2 * BLOCK_BYTES;
    uint8_t *raw = malloc(len);
    memset(raw, 0xff, len);
    memset(raw + (64 + 3) * PAGE_BYTES, 0x5a, PAGE_BYTES);
    write_file(image_path, raw, len);
    struct nk_sim *sim = open_image("K9F1G08U0A", false, false, NULL);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[PAGE_BYTES];
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 64 + 3, 0, page, sizeof page), 0);
    assert_memory_equal(page, raw + (64 + 3) * PAGE_BYTES, PAGE_BYTES);
    struct nk_sim_memory memory;
    nk_sim_memory_get(sim, &memory);
    assert_int_equal(memory.resident_blocks, 0); /* read straight from the file */
    /* The programmed page counts: page 2 of that block is now out of order. */
    uint8_t zero = 0;
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 64 + 2, 0, &zero, 1), 0xe1);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 64 + 4, 0, &zero, 1), 0xe0);
    nk_sim_close(sim);
    free(raw);
}

static void test_short_image_reads_erased_past_its_end(void **state)
{
    (void)state;
    size_t len = BLOCK_BYTES + 3 * PAGE_BYTES; /* a block and three pages */
    uint8_t *raw = malloc(len);
    memset(raw, 0x00, len);
    write_file(image_path, raw, len);
    free(raw);
    struct nk_sim *sim = open_image("K9F1G08U0A", false, false, NULL);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t page[PAGE_BYTES], ff[PAGE_BYTES];
    memset(ff, 0xff, sizeof ff);
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 64 + 2, 0, page, sizeof page), 0);
    assert_int_equal(page[0], 0x00);
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 64 + 3, 0, page, sizeof page), 0);
    assert_memory_equal(page, ff, sizeof ff);
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 1023 * 64, 0, page, sizeof page), 0);
    assert_memory_equal(page, ff, sizeof ff);
    nk_sim_close(sim);
    assert_int_equal(file_size(image_path), (long)len); /* only reads: unchanged */
}

static void test_erase_inside_the_image_reaches_the_file(void **state)
{
    (void)state;
    size_t len = 2 * BLOCK_BYTES;
    uint8_t *raw = malloc(len);
    memset(raw, 0x00, len);
    write_file(image_path, raw, len);
    struct nk_sim *sim = open_image("K9F1G08U0A", false, false, NULL);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), &nk_sim_params(sim)->chip, 1), 0xe0);
    struct nk_sim_memory memory;
    nk_sim_memory_get(sim, &memory);
    assert_int_equal(memory.resident_blocks, 0); /* an erase needs no block copy */
    struct nk_diag why[1];
    assert_int_equal(nk_sim_sync(sim, why), 0);
    size_t got_len;
    uint8_t *file = read_whole(image_path, &got_len);
    assert_int_equal(got_len, len);
    assert_int_equal(file[0], 0x00);
    for (size_t i = BLOCK_BYTES; i < len; i++)
        if (file[i] != 0xff)
            fail_msg("byte %zu not erased", i);
    free(file);
    free(raw);
    nk_sim_close(sim);
}

static void test_write_through_updates_the_file_at_once(void **state)
{
    (void)state;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "K9F1G08U0A";
    config.image_path = image_path;
    config.create = true;
    config.write_through = true;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    uint8_t data[PAGE_BYTES];
    nk_test_random(data, sizeof data, 4);
    assert_int_equal(
        sim_program(nk_sim_ctrl(sim), &nk_sim_params(sim)->chip, 5, 0, data, sizeof data), 0xe0);
    size_t len;
    uint8_t *file = read_whole(image_path, &len);
    assert_int_equal(len, 6 * PAGE_BYTES);
    assert_memory_equal(file + 5 * PAGE_BYTES, data, PAGE_BYTES);
    free(file);
    nk_sim_close(sim);
}

static void test_sidecar_keeps_wear_and_bad_blocks(void **state)
{
    (void)state;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "K9F1G08U0A";
    config.image_path = image_path;
    config.create = true;
    config.seed = 8;
    const uint32_t bad[] = {17};
    config.factory_bad_list = bad;
    config.factory_bad_list_len = 1;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(sim_erase(nk_sim_ctrl(sim), info, 4), 0xe0);
    assert_int_equal(nk_sim_fail_inject(sim, 9, NK_SIM_FAIL_PROGRAM, true), 0);
    nk_sim_close(sim);
    char sidecar[300];
    assert_true(file_size(nk_sim_sidecar_path(image_path, sidecar, sizeof sidecar)) > 0);

    /* Reopened without naming the chip: the sidecar knows it. */
    memset(&config, 0, sizeof config);
    config.image_path = image_path;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    assert_string_equal(nk_sim_params(sim)->chip.model, "K9F1G08U0A");
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 4, &block), 0);
    assert_int_equal(block.erase_count, 3);
    assert_int_equal(nk_sim_block_get(sim, 9, &block), 0);
    assert_int_equal(block.flags, NK_SIM_BLOCK_FAIL_PROGRAM);
    assert_int_equal(nk_sim_block_get(sim, 17, &block), 0);
    assert_int_equal(block.flags, NK_SIM_BLOCK_FACTORY_BAD);
    /* Still bad: erase fails, marker still there. */
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), &nk_sim_params(sim)->chip, 17), 0xe1);
    uint8_t marker;
    assert_int_equal(nk_sim_page_peek(sim, 17 * 64, 2048, &marker, 1), 0);
    assert_int_not_equal(marker, 0xff);
    nk_sim_close(sim);
}

static void test_full_image_holds_the_factory_markers(void **state)
{
    (void)state;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "K9F1208U0C";
    config.image_path = image_path;
    config.create = true;
    config.full_image = true;
    const uint32_t bad[] = {3};
    config.factory_bad_list = bad;
    config.factory_bad_list_len = 1;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    nk_sim_close(sim);
    size_t len;
    uint8_t *file = read_whole(image_path, &len);
    assert_int_equal(len, 4096u * 32 * 528);
    assert_int_equal(file[(3 * 32) * 528 + 512 + 5], 0x00);
    assert_int_equal(file[(3 * 32 + 1) * 528 + 512 + 5], 0x00);
    assert_int_equal(file[(4 * 32) * 528 + 512 + 5], 0xff);
    assert_int_equal(file[0], 0xff);
    free(file);
}

static void test_read_only_image_refuses_changes(void **state)
{
    (void)state;
    size_t len = BLOCK_BYTES;
    uint8_t *raw = malloc(len);
    memset(raw, 0xff, len);
    write_file(image_path, raw, len);
    free(raw);
    struct nk_sim *sim = open_image("K9F1G08U0A", false, true, NULL);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t zero = 0;
    int status = sim_program(nk_sim_ctrl(sim), info, 0, 0, &zero, 1);
    assert_int_equal(status & (NK_STATUS_FAIL | NK_STATUS_WP_N), NK_STATUS_FAIL);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), info, 0) & NK_STATUS_FAIL, NK_STATUS_FAIL);
    assert_int_equal(nk_sim_page_poke(sim, 0, 0, &zero, 1), -NK_EROFS);
    nk_sim_close(sim);
    char sidecar[300];
    assert_int_equal(file_size(nk_sim_sidecar_path(image_path, sidecar, sizeof sidecar)), -1);
    size_t got_len;
    uint8_t *file = read_whole(image_path, &got_len);
    assert_int_equal(file[0], 0xff);
    free(file);
}

static void test_missing_image_is_a_clear_error(void **state)
{
    (void)state;
    struct nk_diag why[1] = {{""}};
    assert_null(open_image("K9F1G08U0A", false, false, why));
    assert_non_null(strstr(why->text, "no such file"));
    assert_non_null(strstr(why->text, image_path));
}

static void test_image_size_not_a_page_multiple_is_refused(void **state)
{
    (void)state;
    uint8_t raw[PAGE_BYTES + 100];
    memset(raw, 0xff, sizeof raw);
    write_file(image_path, raw, sizeof raw);
    struct nk_diag why[1] = {{""}};
    assert_null(open_image("K9F1G08U0A", false, false, why));
    assert_non_null(strstr(why->text, "not a multiple of the page+OOB size 2112"));
}

static void test_image_larger_than_the_chip_is_refused(void **state)
{
    (void)state;
    struct nk_sim_params params;
    assert_int_equal(nk_sim_params_geometry(&params, 2048, 64, 64, 2, NULL), 0);
    size_t len = 3 * BLOCK_BYTES;
    uint8_t *raw = malloc(len);
    memset(raw, 0xff, len);
    write_file(image_path, raw, len);
    free(raw);
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.params = &params;
    config.image_path = image_path;
    struct nk_sim *sim;
    struct nk_diag why[1];
    assert_int_equal(nk_sim_open(&sim, &config, why), -NK_EINVAL);
    assert_non_null(strstr(why->text, "larger than the chip"));
}

static void test_sidecar_of_another_geometry_is_refused(void **state)
{
    (void)state;
    struct nk_sim *sim = open_image("K9F1G08U0A", true, false, NULL);
    nk_sim_close(sim);
    struct nk_diag why[1] = {{""}};
    assert_null(open_image("K9F2G08U0B", false, false, why));
    assert_non_null(strstr(why->text, "sidecar"));
    /* A damaged sidecar is reported, not trusted. */
    char sidecar[300];
    nk_sim_sidecar_path(image_path, sidecar, sizeof sidecar);
    FILE *f = fopen(sidecar, "r+b");
    assert_non_null(f);
    fseek(f, 100, SEEK_SET);
    fputc(0x55, f);
    fclose(f);
    assert_null(open_image("K9F1G08U0A", false, false, why));
    assert_non_null(strstr(why->text, "corrupt"));
}

static void test_large_part_allocates_only_touched_blocks(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("MT29F32G08ABCDB", 1);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint64_t bytes = (uint64_t)info->page_size * info->pages_per_block * info->blocks;
    assert_true(bytes >= (4ull << 30));
    uint32_t page_bytes = info->page_size + info->oob_size;
    uint8_t *data = malloc(page_bytes), *back = malloc(page_bytes);
    nk_test_random(data, page_bytes, 3);
    /* Blocks on both sides of the 4 GiB boundary of the data area. */
    const uint32_t blocks[] = {0, 700, 1047};
    for (unsigned i = 0; i < 3; i++) {
        uint32_t row = blocks[i] * info->pages_per_block + 7;
        assert_int_equal(sim_program(nk_sim_ctrl(sim), info, row, 0, data, page_bytes), 0xe0);
        assert_int_equal(sim_read(nk_sim_ctrl(sim), info, row, 0, back, page_bytes), 0);
        assert_memory_equal(back, data, page_bytes);
    }
    /* Reads of untouched blocks allocate nothing. */
    assert_int_equal(sim_read(nk_sim_ctrl(sim), info, 500 * 256, 0, back, page_bytes), 0);
    assert_int_equal(sim_erase(nk_sim_ctrl(sim), info, 900), 0xe0);
    struct nk_sim_memory memory;
    nk_sim_memory_get(sim, &memory);
    assert_int_equal(memory.resident_blocks, 3);
    assert_true(memory.resident_bytes < 16u << 20);
    free(data);
    free(back);
    nk_sim_close(sim);
}

static void test_large_image_is_created_without_writing_it(void **state)
{
    (void)state;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "MT29F32G08ABCDB";
    config.image_path = image_path;
    config.create = true;
    config.factory_bad_blocks = 8;
    config.seed = 2;
    struct nk_sim *sim;
    struct nk_diag why[1];
    assert_int_equal(nk_sim_open(&sim, &config, why), 0);
    /* Factory-bad markers read back although nothing is on disk. */
    unsigned bad = 0;
    for (uint32_t b = 0; b < 1048; b++) {
        struct nk_sim_block_state block;
        assert_int_equal(nk_sim_block_get(sim, b, &block), 0);
        if (block.flags & NK_SIM_BLOCK_FACTORY_BAD) {
            uint8_t marker;
            assert_int_equal(nk_sim_page_peek(sim, b * 256, 16384, &marker, 1), 0);
            assert_int_not_equal(marker, 0xff);
            bad++;
        }
    }
    assert_int_equal(bad, 8);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint32_t page_bytes = info->page_size + info->oob_size;
    uint8_t *data = calloc(1, page_bytes);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 0, 0, data, page_bytes), 0xe0);
    assert_int_equal(nk_sim_sync(sim, why), 0);
    nk_sim_close(sim);
    free(data);
    /* One block on disk, not 4.6 GB. */
    assert_int_equal(file_size(image_path), (long)page_bytes * 256);
}

static void test_peek_and_poke_check_their_arguments(void **state)
{
    (void)state;
    struct nk_sim *sim = sim_open_preset("K9F1G08U0A", 1);
    uint8_t buf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8];
    assert_int_equal(nk_sim_page_poke(sim, 3, 2104, buf, 8), 0);
    assert_int_equal(nk_sim_page_peek(sim, 3, 2104, back, 8), 0);
    assert_memory_equal(back, buf, 8);
    assert_int_equal(nk_sim_page_peek(sim, 3, 2105, back, 8), -NK_EINVAL);
    assert_int_equal(nk_sim_page_poke(sim, 65536, 0, buf, 1), -NK_EINVAL);
    struct nk_sim_block_state block;
    assert_int_equal(nk_sim_block_get(sim, 1024, &block), -NK_EINVAL);
    nk_sim_close(sim);
}

static void test_write_through_keeps_memory_bounded(void **state)
{
    (void)state;
    struct nk_sim_config config;
    memset(&config, 0, sizeof config);
    config.preset = "K9F1G08U0A";
    config.image_path = image_path;
    config.create = true;
    config.write_through = true;
    struct nk_sim *sim;
    assert_int_equal(nk_sim_open(&sim, &config, NULL), 0);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[PAGE_BYTES], back[PAGE_BYTES];
    /* Two pages in each of 300 blocks: far more than may stay resident. */
    for (uint32_t b = 0; b < 300; b++) {
        for (uint32_t page = 0; page < 2; page++) {
            nk_test_random(data, sizeof data, b * 2 + page);
            assert_int_equal(
                sim_program(nk_sim_ctrl(sim), info, b * 64 + page, 0, data, sizeof data), 0xe0);
        }
    }
    struct nk_sim_memory memory;
    nk_sim_memory_get(sim, &memory);
    assert_true(memory.resident_blocks <= 64);
    /* Dropped blocks read back from the file, and keep their page order. */
    for (uint32_t b = 0; b < 300; b += 37) {
        nk_test_random(data, sizeof data, b * 2 + 1);
        assert_int_equal(sim_read(nk_sim_ctrl(sim), info, b * 64 + 1, 0, back, sizeof back), 0);
        assert_memory_equal(back, data, sizeof data);
    }
    nk_test_random(data, sizeof data, 99);
    assert_int_not_equal(sim_program(nk_sim_ctrl(sim), info, 0 * 64 + 0, 0, data, sizeof data),
                         0xe0); /* page 0 of block 0 again: out of order, refused */
    assert_int_equal(nk_sim_close(sim), 0);
    /* Grown page by page, the file still ends with a whole block. */
    assert_int_equal(file_size(image_path), 300L * BLOCK_BYTES);
}

static void test_close_reports_a_failed_write(void **state)
{
    (void)state;
    struct nk_sim *sim = open_image("K9F1G08U0A", true, false, NULL);
    assert_non_null(sim);
    const struct nk_chip_info *info = &nk_sim_params(sim)->chip;
    uint8_t data[PAGE_BYTES];
    nk_test_random(data, sizeof data, 7);
    assert_int_equal(sim_program(nk_sim_ctrl(sim), info, 64, 0, data, sizeof data), 0xe0);
    /* The sidecar's temporary name is taken by a directory: it cannot be written. */
    char sidecar[300], tmp[320];
    nk_sim_sidecar_path(image_path, sidecar, sizeof sidecar);
    snprintf(tmp, sizeof tmp, "%s.tmp", sidecar);
    assert_int_equal(mkdir(tmp, 0755), 0);
    struct nk_diag why[1] = {{""}};
    assert_int_equal(nk_sim_sync(sim, why), -NK_EIO);
    assert_non_null(strstr(why->text, ".nksim.tmp"));
    assert_int_equal(nk_sim_close(sim), -NK_EIO);
    rmdir(tmp);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_image_round_trip_in_raw_format),
        T(test_foreign_image_reads_lazily_and_keeps_page_order),
        T(test_short_image_reads_erased_past_its_end),
        T(test_erase_inside_the_image_reaches_the_file),
        T(test_write_through_updates_the_file_at_once),
        T(test_sidecar_keeps_wear_and_bad_blocks),
        T(test_full_image_holds_the_factory_markers),
        T(test_read_only_image_refuses_changes),
        T(test_missing_image_is_a_clear_error),
        T(test_image_size_not_a_page_multiple_is_refused),
        T(test_image_larger_than_the_chip_is_refused),
        T(test_sidecar_of_another_geometry_is_refused),
        T(test_large_part_allocates_only_touched_blocks),
        T(test_large_image_is_created_without_writing_it),
        T(test_peek_and_poke_check_their_arguments),
        T(test_write_through_keeps_memory_bounded),
        T(test_close_reports_a_failed_write),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
