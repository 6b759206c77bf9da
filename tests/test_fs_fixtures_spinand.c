/* SPDX-License-Identifier: MIT */
/*
 * The YAFFS2 reference images of fixtures/yaffs2 on SPI-NAND: each image is
 * written page by page onto a simulated SPI-NAND preset (the data area as it
 * is, the free OOB bytes as Linux's auto-placement moves them from the
 * image's layout to the part's: tags land where the part's vendor layout
 * puts them, the on-die ECC covers the rest), its bad blocks marked bad on
 * the part; then test_fs_fixtures.c's own checks run unchanged on the part:
 * mount with and without block summaries, every path, type, object id,
 * size, mode, owner, time, link and file SHA-256 against the manifest, the
 * mount's view of the blocks, a clean structure check.
 *
 * The checks are test_fs_fixtures.c's, included here with its device opener
 * replaced by one that opens the image and copies it onto the preset; its
 * main is renamed and not run. Left out, and named in the output: images
 * whose page size the preset lacks (the 4 KiB one) and mkyaffs2's (its tags
 * from OOB byte 0 need an OOB without marker or ECC bytes; the mount
 * refuses that layout on a part with on-die ECC).
 */
#include "fs_testdev.h"
#include "nandkit/spinand.h"

/* The preset the images are written onto (set by each test). */
static const char *g_preset;

/* Copies every page of `from` (an image device) that is not erased onto
 * `to`, the free OOB bytes through auto-placement; marks `to`'s blocks bad
 * where `from`'s are. Returns 0 or a negative error with the reason in `why`. */
static int copy_onto_part(struct nk_fs_testdev *from, struct nk_fs_testdev *to, bool markers,
                          struct nk_diag *why)
{
    const uint32_t page_size = nk_nand_page_size(&from->nand);
    const uint32_t ppb = nk_nand_pages_per_block(&from->nand);
    const uint32_t free_from = nk_nand_free_oob_bytes(&from->nand);
    const uint32_t free_to = nk_nand_free_oob_bytes(&to->nand);
    uint8_t *data = malloc(page_size), *oob_from = malloc(free_from), *oob_to = malloc(free_to);
    int err = 0;
    for (uint32_t block = 0; !err && block < nk_nand_blocks(&from->nand); block++) {
        if (markers && nk_nand_block_is_bad(&from->nand, block) == 1) {
            err = nk_nand_block_mark_bad(&to->nand, block);
            continue;
        }
        for (uint32_t page = block * ppb; !err && page < (block + 1) * ppb; page++) {
            int r = nk_nand_read_page(&from->nand, page, data, oob_from, NK_OOB_AUTO);
            if (r < 0) {
                nk_format(why->text, sizeof why->text, "image page %u: %d %s", (unsigned)page, r,
                          from->nand.diag.text);
                err = r;
                break;
            }
            bool erased = true;
            for (uint32_t i = 0; erased && i < page_size; i++)
                erased = data[i] == 0xff;
            for (uint32_t i = 0; erased && i < free_from; i++)
                erased = oob_from[i] == 0xff;
            if (erased)
                continue;
            memset(oob_to, 0xff, free_to);
            memcpy(oob_to, oob_from, free_from < free_to ? free_from : free_to);
            err = nk_nand_program_page(&to->nand, page, data, oob_to, NK_OOB_AUTO);
            if (err)
                nk_format(why->text, sizeof why->text, "%s page %u: %d %s", g_preset,
                          (unsigned)page, err, to->nand.diag.text);
        }
    }
    free(data);
    free(oob_from);
    free(oob_to);
    return err;
}

/* In place of nk_fs_testdev_open() in the checks below: the image, copied
 * onto `blocks` blocks of the preset; `d` is the preset's device. */
static int open_image_on_spinand(struct nk_fs_testdev *d, uint32_t page_size, uint32_t oob_size,
                                 uint32_t pages_per_block, uint32_t blocks,
                                 enum nk_fs_layout layout, const char *image_path,
                                 struct nk_diag *why)
{
    struct nk_fs_testdev image;
    int err = nk_fs_testdev_open(&image, page_size, oob_size, pages_per_block, blocks, layout,
                                 image_path, why);
    if (err)
        return err;
    err = nk_fs_testdev_open_preset(d, g_preset, blocks, layout, why);
    if (!err && (nk_nand_page_size(&d->nand) != page_size ||
                 nk_nand_pages_per_block(&d->nand) != pages_per_block)) {
        nk_format(why->text, sizeof why->text, "%s is not %u x %u pages", g_preset,
                  (unsigned)pages_per_block, (unsigned)page_size);
        err = -NK_EINVAL;
    }
    if (!err) {
        struct nk_fs_config config = nk_fs_testdev_config(&image);
        err = copy_onto_part(&image, d, !config.no_bad_block_markers, why);
    }
    nk_fs_testdev_close(&image);
    return err;
}

#define nk_fs_testdev_open open_image_on_spinand
#define main test_fs_fixtures_main
#include "test_fs_fixtures.c"
#undef main
#undef nk_fs_testdev_open

/* Every image whose geometry the preset has, with and without summaries. */
static void every_fixture_on(const char *preset)
{
    g_preset = preset;
    const struct nk_spinand_part *part = nk_spinand_table_find(preset);
    assert_non_null(part);
    char **names = fixture_names();
    unsigned checked = 0;
    for (char **name = names; *name; name++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.img.json", FIXTURE_DIR, *name);
        cJSON *manifest = read_json(path);
        uint32_t page_size = (uint32_t)number(field(manifest, "geometry"), "page_size");
        bool oob_zero =
            strcmp(field(field(manifest, "layout"), "name")->valuestring, "mkyaffs2") == 0;
        cJSON_Delete(manifest);
        if (oob_zero) {
            /* Tags from OOB byte 0 need every OOB byte free; a part with
             * on-die ECC keeps its marker and ECC bytes (the mount refuses
             * the layout, as Linux's spinand would place the tags). */
            printf("  %s: tags at OOB 0, %s's free bytes start later: left out\n", *name, preset);
        } else if (page_size != part->info.page_size) {
            printf("  %s: %u-byte pages, %s has %u: left out\n", *name, (unsigned)page_size, preset,
                   (unsigned)part->info.page_size);
        } else {
            printf("  %s on %s\n", *name, preset);
            check_image(*name, true);
            check_image(*name, false);
            checked++;
        }
        free(*name);
    }
    free(names);
    assert_true(checked >= 3);
    g_preset = NULL;
}

static void test_fixtures_on_gd5f1gq4ub(void **state)
{
    (void)state;
    every_fixture_on("GD5F1GQ4UB");
}

/* Micron's layout: free bytes 2..63 of 128, the second half the part's ECC. */
static void test_fixtures_on_mt29f1g01abafd(void **state)
{
    (void)state;
    every_fixture_on("MT29F1G01ABAFD");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_on_gd5f1gq4ub),
        cmocka_unit_test(test_fixtures_on_mt29f1g01abafd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
