/* SPDX-License-Identifier: MIT */
/*
 * nandkit on a Cortex-M, checked and measured there. Run under
 * qemu-system-arm (mps2-an386: Cortex-M4, mps2-an385: Cortex-M3) with
 * semihosting; ramnand.c stands in for a K9F1G08U0A on the board's bus.
 *
 * Checked, each result on the target (a failure prints "FAIL" and the line
 * and exits 1 through semihosting):
 *   bring-up (identify, bad-block table built on the first boot, found on
 *   the second), format, mkdir, a 300 KiB file and 20 small files written
 *   and read back, rename, unlink, checkpoint remount, power cuts during
 *   writes and during the remount's recovery (the RAM struct dropped, a
 *   scan remount keeps every synced file), a read-only mount, and the
 *   in-band layout over BCH-8 with 8 bitflips injected into every 512-byte
 *   step of every written page.
 * Measured, as "figure" lines (scripts/target-report.sh turns them into
 * the tables of docs/porting.md):
 *   fs RAM (nk_fs_ram_usage), the struct sizes, the device workspace bytes
 *   written, the painted-stack high water of each call, and the
 *   instructions per page read and program for each ECC, counted with QEMU
 *   -icount against a 2 000 000-instruction loop, nandkit's own (the RAM
 *   port's time taken out) and with the port.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nandkit/bbt.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "ramnand.h"
#include "target.h"

#define PSRAM ((void *)0x21000000u)
#define PSRAM_SIZE (16u * 1024u * 1024u)
#define PART_BLOCKS 64u     /* 8 MiB of data */
#define MEASURE_BLOCK 900u  /* scratch block of the per-page figures */
#define MEASURE_PAGES 32u

/* The trapping build hands every buffer over one byte past an aligned
 * address: the headers promise that any alignment works, and an unaligned
 * access the core made on that promise would fault. */
#ifdef TARGET_ALIGNMENT_TRAP
#define MISALIGN 1u
#else
#define MISALIGN 0u
#endif
static struct ramnand rn;
static struct nk_nand nand;
static struct nk_part part;
static struct nk_fs fs;
static struct nk_ecc_engine ecc;
static struct nk_oob_layout oob_layout;
static struct nk_bch bch;
static uint8_t bch_workspace[160u * 1024u];
/* Device and bad-block table: what the device asks for, 4-byte aligned. */
#define WORKSPACE_BYTES                                                                            \
    (NK_NAND_WORKSPACE_SIZE(2048u, 64u) + NK_BBT_WORKSPACE_SIZE(2048u, 64u, 1024u))
static uint32_t workspace[(WORKSPACE_BYTES + MISALIGN + 3u) / 4u];
static uint64_t fs_pool[48u * 1024u / 8u + 1u];
static uint8_t buf[4096], page_data[RAMNAND_PAGE], page_back[RAMNAND_PAGE];
static uint32_t calibration_ticks; /* ticks for 2 000 000 instructions */
static unsigned checks;
static uintptr_t stack_low = UINTPTR_MAX; /* lowest address any measured call reached */

static void put(const char *s)
{
    target_puts(s);
}

static void figure(const char *what, const char *name, uint64_t value)
{
    put("figure ");
    put(what);
    put(" ");
    put(name);
    put(" ");
    target_put_uint(value);
    put("\n");
}

static void put_int(int v)
{
    if (v < 0) {
        put("-");
        target_put_uint((uint64_t)-(int64_t)v);
    } else {
        target_put_uint((uint64_t)v);
    }
}

static _Noreturn void fail(int line, const char *what, int err)
{
    put("FAIL firmware.c:");
    put_int(line);
    put(": ");
    put(what);
    put(" (");
    put_int(err);
    put(")\n  device: ");
    put(nand.diag.text);
    put("\n  fs: ");
    put(fs.diag.text);
    put("\n");
    target_exit(1);
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond))                                                                               \
            fail(__LINE__, #cond, 0);                                                              \
    } while (0)
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        int err_ = (expr);                                                                         \
        checks++;                                                                                  \
        if (err_ < 0)                                                                              \
            fail(__LINE__, #expr, err_);                                                           \
    } while (0)
#define CHECK_ERR(expr, want)                                                                      \
    do {                                                                                           \
        int err_ = (expr);                                                                         \
        checks++;                                                                                  \
        if (err_ != (want))                                                                        \
            fail(__LINE__, #expr " == " #want, err_);                                              \
    } while (0)

/* The deepest stack of each measured call, printed at the end. */
static struct {
    const char *name;
    uintptr_t bytes;
} stack_max[32];

static void stack_record(const char *name, uintptr_t bytes)
{
    unsigned i = 0;
    while (i < 32u && stack_max[i].name && strcmp(stack_max[i].name, name) != 0)
        i++;
    if (i == 32u)
        return;
    stack_max[i].name = name;
    if (bytes > stack_max[i].bytes)
        stack_max[i].bytes = bytes;
}

/* The stack high water of one call, from the caller's stack pointer. */
#define STACK(name, expr)                                                                          \
    ({                                                                                             \
        uintptr_t sp_ = TARGET_SP();                                                               \
        target_stack_paint();                                                                      \
        int r_ = (expr);                                                                           \
        uintptr_t low_ = target_stack_low();                                                       \
        if (low_ < stack_low)                                                                      \
            stack_low = low_;                                                                      \
        stack_record(name, sp_ - low_);                                                            \
        r_;                                                                                        \
    })

static uint8_t pattern(uint32_t file, uint32_t at)
{
    return (uint8_t)(at * 31u + file * 7u + (at >> 9));
}

/* ----- the device ---------------------------------------------------------- */

static void device_open(const struct nk_ecc_engine *engine, const struct nk_oob_layout *layout,
                        bool bbt)
{
    struct nk_nand_config config = {
        .ctrl = &rn.ctrl,
        .ecc = engine,
        .layout = layout,
        .workspace = (uint8_t *)workspace + MISALIGN,
        .workspace_size = sizeof workspace - MISALIGN,
        .bbt = bbt,
    };
    CHECK_OK(STACK("nk_nand_open", nk_nand_open(&nand, &config)));
    CHECK(strcmp(nand.chip.info.model, "K9F1G08U0A") == 0);
    CHECK(nk_nand_blocks(&nand) == 1024u);
    CHECK_OK(nk_part_init(&part, &nand, "data", 0, PART_BLOCKS, 0));
}

/* ----- the file system ----------------------------------------------------- */

static struct nk_fs_config fs_config(enum nk_fs_layout layout, bool read_only)
{
    struct nk_fs_config config;
    memset(&config, 0, sizeof config);
    config.part = &part;
    config.pool = (uint8_t *)fs_pool + MISALIGN;
    config.pool_size = sizeof fs_pool - MISALIGN;
    config.read_only = read_only;
    nk_fs_config_layout(&config, layout);
    return config;
}

static void fs_mount(enum nk_fs_layout layout, bool read_only)
{
    struct nk_fs_config config = fs_config(layout, read_only);
    memset(&fs, 0, sizeof fs);
    CHECK_OK(STACK("nk_fs_mount", nk_fs_mount(&fs, &config)));
    CHECK(nk_fs_damaged(&fs) == 0);
}

static void write_file(const char *path, uint32_t id, uint32_t size)
{
    struct nk_fs_file f;
    CHECK_OK(STACK("nk_fs_file_open",
                   nk_fs_file_open(&fs, &f, path, NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC)));
    for (uint32_t at = 0; at < size;) {
        uint32_t n = size - at < 1000u ? size - at : 1000u;
        for (uint32_t i = 0; i < n; i++)
            buf[i] = pattern(id, at + i);
        int32_t done = STACK("nk_fs_file_write", (int)nk_fs_file_write(&f, buf, n));
        CHECK_ERR(done, (int32_t)n);
        at += n;
    }
    CHECK_OK(STACK("nk_fs_file_close", nk_fs_file_close(&f)));
}

static void check_file(const char *path, uint32_t id, uint32_t size)
{
    struct nk_fs_stat st;
    CHECK_OK(STACK("nk_fs_stat", nk_fs_stat(&fs, path, &st)));
    CHECK(st.type == NK_FS_TYPE_FILE && st.size == size && !st.at_risk);
    struct nk_fs_file f;
    CHECK_OK(nk_fs_file_open(&fs, &f, path, NK_FS_O_RDONLY));
    for (uint32_t at = 0; at <= size;) {
        int32_t n = STACK("nk_fs_file_read", (int)nk_fs_file_read(&f, buf, 777));
        CHECK_OK(n);
        if (n == 0)
            break;
        for (int32_t i = 0; i < n; i++)
            if (buf[i] != pattern(id, at + (uint32_t)i))
                fail(__LINE__, "file data as written", (int)(at + (uint32_t)i));
        at += (uint32_t)n;
        CHECK(at <= size);
        if (at == size)
            CHECK_ERR(nk_fs_file_read(&f, buf, 1), 0);
    }
    CHECK_OK(nk_fs_file_close(&f));
}

static void small_name(char *name, const char *dir, unsigned i)
{
    size_t n = strlen(dir);
    memcpy(name, dir, n);
    memcpy(name + n, "/s00", 5);
    name[n + 2] = (char)('0' + i / 10u);
    name[n + 3] = (char)('0' + i % 10u);
}

#define BIG_SIZE (300u * 1024u)
#define SMALL_FILES 20u

/* The tree every later step expects: /d/big, /d/s02../d/s19 (s00 renamed
 * to /d/renamed, s01 unlinked). */
static void check_tree(void)
{
    char name[16];
    check_file("/d/big", 1000, BIG_SIZE);
    for (unsigned i = 2; i < SMALL_FILES; i++) {
        small_name(name, "/d", i);
        check_file(name, i, 100u + 37u * i);
    }
    check_file("/d/renamed", 0, 100u);
    struct nk_fs_stat st;
    CHECK_ERR(nk_fs_stat(&fs, "/d/s00", &st), -NK_ENOENT);
    CHECK_ERR(nk_fs_stat(&fs, "/d/s01", &st), -NK_ENOENT);
}

static void fs_ram_figures(const char *layout)
{
    size_t now, peak;
    nk_fs_ram_usage(&fs, &now, &peak);
    figure("fs_ram_now", layout, now);
    figure("fs_ram_peak", layout, peak);
}

/* Writes /cutN until the power goes after `cut` programs and erases, drops
 * the file system's RAM, and mounts again by scanning (with `cut_mount`,
 * the first remount loses the power too, after one program or erase of its
 * own recovery). The tree, /synced, and of /cutN a prefix of what was
 * written must be there; leaves the file system mounted. */
static void power_cut(unsigned n, long cut, bool cut_mount)
{
    char name[8] = "/cut0";
    name[4] = (char)('0' + n);
    rn.power_left = cut;
    struct nk_fs_file f;
    int err = nk_fs_file_open(&fs, &f, name, NK_FS_O_WRONLY | NK_FS_O_CREAT);
    for (int i = 0; !err && i < 100; i++) {
        for (unsigned k = 0; k < 1000u; k++)
            buf[k] = pattern(5, (uint32_t)i * 1000u + k);
        int32_t done = nk_fs_file_write(&f, buf, 1000);
        err = done < 0 ? (int)done : 0;
    }
    if (!err)
        err = nk_fs_file_close(&f);
    if (!rn.power_lost || err >= 0)
        fail(__LINE__, "the writes meet the cut after this many programs and erases", (int)cut);
    put("   cut after ");
    target_put_uint((uint64_t)cut);
    put(" programs and erases\n");
    /* The power comes back; whatever the RAM held is gone. */
    memset(&fs, 0, sizeof fs);
    memset(fs_pool, 0, sizeof fs_pool);
    rn.power_lost = false;
    rn.power_left = -1;
    if (cut_mount) {
        rn.power_left = 1;
        struct nk_fs_config config = fs_config(NK_FS_LAYOUT_LINUX, false);
        int cut_err = nk_fs_mount(&fs, &config);
        CHECK(cut_err == 0 || rn.power_lost);
        put(rn.power_lost ? "   the remount lost the power during its recovery\n"
                          : "   the remount wrote nothing before it was done\n");
        rn.power_lost = false;
        rn.power_left = -1;
        memset(&fs, 0, sizeof fs);
        memset(fs_pool, 0, sizeof fs_pool);
    }
    fs_mount(NK_FS_LAYOUT_LINUX, false);
    CHECK(!fs.stats.from_checkpoint); /* the first write erased it: a scan */
    check_tree();
    check_file("/synced", 77, 5000);
    if (n == 0)
        fs_ram_figures("linux-scan");
    /* /cutN may hold what reached the flash before the cut: a prefix of what was written. */
    struct nk_fs_stat st;
    if (nk_fs_stat(&fs, name, &st) == 0) {
        CHECK(st.size <= 100000u);
        CHECK_OK(nk_fs_file_open(&fs, &f, name, NK_FS_O_RDONLY));
        for (uint32_t at = 0; at < st.size; at++) {
            if (at % sizeof buf == 0)
                CHECK_OK(nk_fs_file_read(&f, buf, sizeof buf));
            if (buf[at % sizeof buf] != pattern(5, at))
                fail(__LINE__, "a cut file keeps a prefix of what was written", (int)at);
        }
        CHECK_OK(nk_fs_file_close(&f));
    }
}

static void file_system_linux(void)
{
    put("-- linux layout (Hamming-256, tags in the OOB), 8 MiB partition\n");
    CHECK_OK(nk_fs_layout_device(NK_FS_LAYOUT_LINUX, RAMNAND_PAGE, RAMNAND_OOB, &ecc, &oob_layout));
    device_open(&ecc, &oob_layout, true);
    CHECK(nand.bbt && nand.bbt->info.scanned); /* first boot: built from the markers */
    struct nk_fs_config config = fs_config(NK_FS_LAYOUT_LINUX, false);
    CHECK_OK(STACK("nk_fs_format", nk_fs_format(&config, NK_FS_LAYOUT_LINUX)));
    fs_mount(NK_FS_LAYOUT_LINUX, false);
    CHECK(fs.stats.from_checkpoint); /* format leaves a checkpoint */
    struct nk_fs_stat root;
    CHECK_OK(nk_fs_stat(&fs, "/", &root));
    CHECK(root.type == NK_FS_TYPE_DIR && root.has_header && (root.mode & 07777u) == 0755u);
    struct nk_fs_statfs sfs;
    CHECK_OK(nk_fs_statfs(&fs, &sfs));
    CHECK(!sfs.read_only && sfs.blocks == PART_BLOCKS);

    CHECK_OK(STACK("nk_fs_mkdir", nk_fs_mkdir(&fs, "/d", 0755)));
    write_file("/d/big", 1000, BIG_SIZE);
    char name[16];
    for (unsigned i = 0; i < SMALL_FILES; i++) {
        small_name(name, "/d", i);
        write_file(name, i, 100u + 37u * i);
    }
    CHECK_OK(STACK("nk_fs_rename", nk_fs_rename(&fs, "/d/s00", "/d/renamed")));
    CHECK_OK(STACK("nk_fs_unlink", nk_fs_unlink(&fs, "/d/s01")));
    check_tree();
    fs_ram_figures("linux");
    CHECK_OK(STACK("nk_fs_unmount", nk_fs_unmount(&fs)));

    put("-- checkpoint remount\n");
    fs_mount(NK_FS_LAYOUT_LINUX, false);
    CHECK(fs.stats.from_checkpoint);
    check_tree();

    put("-- power cuts while writing (and during the remount), the RAM struct dropped, scan remounts\n");
    write_file("/synced", 77, 5000);
    CHECK_OK(nk_fs_sync(&fs));
    static const long cuts[] = {0, 1, 2, 3, 5, 8, 13, 21, 34};
    for (unsigned i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        power_cut(i, cuts[i], i % 3u == 2u);
    CHECK_OK(nk_fs_unmount(&fs));

    put("-- read-only mount\n");
    fs_mount(NK_FS_LAYOUT_LINUX, true);
    CHECK_OK(nk_fs_statfs(&fs, &sfs));
    CHECK(sfs.read_only);
    uint32_t programs = rn.programs, erases = rn.erases;
    check_tree();
    CHECK_ERR(nk_fs_mkdir(&fs, "/no", 0755), -NK_EROFS);
    CHECK_ERR(nk_fs_unlink(&fs, "/d/big"), -NK_EROFS);
    CHECK_OK(nk_fs_unmount(&fs));
    CHECK(rn.programs == programs && rn.erases == erases); /* wrote nothing */
    nk_nand_close(&nand);

    put("-- second boot: the bad-block table is found\n");
    device_open(&ecc, &oob_layout, true);
    CHECK(nand.bbt && !nand.bbt->info.scanned);
    fs_mount(NK_FS_LAYOUT_LINUX, true);
    check_tree();
    CHECK_OK(nk_fs_unmount(&fs));
    nk_nand_close(&nand);
    /* Bytes of the workspace the device and its table wrote. */
    const uint8_t *ws = (const uint8_t *)workspace + MISALIGN;
    size_t used = sizeof workspace - MISALIGN;
    while (used && ws[used - 1] == 0xA5)
        used--;
    figure("workspace", "written", used);
    figure("workspace", "declared", sizeof workspace - MISALIGN);
}

static void file_system_inband_bch8(void)
{
    put("-- in-band layout over BCH-8, 8 flips in every 512-byte step\n");
    CHECK_OK(STACK("nk_bch_init",
                   nk_bch_init(&bch, 512, 8, 0, bch_workspace + MISALIGN, sizeof bch_workspace - MISALIGN)));
    nk_ecc_bch_engine_init(&ecc, &bch);
    device_open(&ecc, NULL, true);
    struct nk_fs_config config = fs_config(NK_FS_LAYOUT_INBAND, false);
    CHECK_OK(nk_fs_format(&config, NK_FS_LAYOUT_INBAND));
    fs_mount(NK_FS_LAYOUT_INBAND, false);
    CHECK_OK(nk_fs_mkdir(&fs, "/d", 0755));
    write_file("/d/big", 1000, BIG_SIZE);
    char name[16];
    for (unsigned i = 0; i < SMALL_FILES; i++) {
        small_name(name, "/d", i);
        write_file(name, i, 100u + 37u * i);
    }
    CHECK_OK(nk_fs_rename(&fs, "/d/s00", "/d/renamed"));
    CHECK_OK(nk_fs_unlink(&fs, "/d/s01"));
    fs_ram_figures("inband");
    CHECK_OK(nk_fs_sync(&fs));
    memset(&fs, 0, sizeof fs); /* dropped: the flips must be met by a scan */

    unsigned pages = 0;
    for (uint32_t page = 0; page < PART_BLOCKS * RAMNAND_PAGES_PER_BLOCK; page++) {
        if (!ramnand_page_written(&rn, page))
            continue;
        pages++;
        for (uint32_t step = 0; step < RAMNAND_PAGE / 512u; step++)
            for (unsigned k = 0; k < 8; k++)
                ramnand_flip(&rn, page, step * 512u + (k * 61u + page) % 512u, k);
    }
    CHECK(pages > 150u);
    fs_mount(NK_FS_LAYOUT_INBAND, true);
    CHECK(!fs.stats.from_checkpoint);
    check_tree();
    struct nk_fs_statfs sfs;
    CHECK_OK(nk_fs_statfs(&fs, &sfs));
    CHECK(sfs.reads_corrected > 150u && sfs.reads_failed == 0);
    CHECK_OK(nk_fs_unmount(&fs));
    nk_nand_close(&nand);
    figure("flipped_pages", "inband", pages);
}

/* ----- instructions per page ----------------------------------------------- */

static uint64_t instructions(uint32_t ticks)
{
    return ((uint64_t)ticks * 2000000u + calibration_ticks / 2u) / calibration_ticks;
}

static void per_page(const char *engine, const char *what, uint32_t ticks, uint64_t port)
{
    put("figure instr ");
    put(engine);
    put(" ");
    put(what);
    put(" ");
    target_put_uint(instructions((uint32_t)(ticks - port)) / MEASURE_PAGES);
    put(" ");
    target_put_uint(instructions(ticks) / MEASURE_PAGES);
    put("\n");
}

static void measure_engine(const char *name, const struct nk_ecc_engine *engine, unsigned step,
                           unsigned max_flips, enum nk_oob_mode mode)
{
    device_open(engine, NULL, false);
    CHECK_OK(nk_nand_erase_block(&nand, MEASURE_BLOCK));
    uint32_t first = MEASURE_BLOCK * RAMNAND_PAGES_PER_BLOCK;
    for (uint32_t i = 0; i < RAMNAND_PAGE; i++)
        page_data[i] = pattern(9, i);
    uint64_t port0 = rn.port_ticks;
    uint32_t t0 = target_ticks();
    for (uint32_t p = 0; p < MEASURE_PAGES; p++)
        CHECK_OK(nk_nand_program_page(&nand, first + p, page_data, NULL, mode));
    per_page(name, "program", target_ticks() - t0, rn.port_ticks - port0);
    CHECK_OK(STACK("nk_nand_program_page",
                   nk_nand_program_page(&nand, first + MEASURE_PAGES, page_data, NULL, mode)));
    for (unsigned flips = 0; flips <= max_flips; flips++) {
        if (flips)
            for (uint32_t p = 0; p < MEASURE_PAGES; p++)
                for (uint32_t s = 0; s < RAMNAND_PAGE / step; s++)
                    CHECK(ramnand_flip(&rn, first + p, s * step + (flips * 61u + p) % step,
                                       flips % 8u));
        port0 = rn.port_ticks;
        t0 = target_ticks();
        for (uint32_t p = 0; p < MEASURE_PAGES; p++) {
            int got = nk_nand_read_page(&nand, first + p, page_back, NULL, mode);
            if (got != (int)flips)
                fail(__LINE__, "read returns the flips of a step", got);
        }
        uint32_t ticks = target_ticks() - t0;
        uint64_t port = rn.port_ticks - port0;
        CHECK(memcmp(page_back, page_data, RAMNAND_PAGE) == 0 || mode == NK_OOB_RAW);
        char what[8] = "read-0";
        what[5] = (char)('0' + flips);
        per_page(name, what, ticks, port);
        if (flips == max_flips)
            STACK("nk_nand_read_page", nk_nand_read_page(&nand, first, page_back, NULL, mode));
    }
    nk_nand_close(&nand);
}

static void measure(void)
{
    put("-- instructions per page (QEMU -icount)\n");
    uint32_t t0 = target_ticks();
    target_spin(1000000u);
    calibration_ticks = target_ticks() - t0;
    CHECK(calibration_ticks > 0);
    figure("calibration", "ticks_per_2000000_instructions", calibration_ticks);
    rn.ticks = target_ticks;

    struct nk_ecc_engine engine;
    nk_ecc_none_init(&engine);
    measure_engine("raw", &engine, RAMNAND_PAGE, 0, NK_OOB_RAW);
    CHECK_OK(nk_ecc_hamming_init(&engine, 256, false));
    measure_engine("hamming256", &engine, 256, 1, NK_OOB_AUTO);
    CHECK_OK(nk_ecc_hamming_init(&engine, 512, false));
    measure_engine("hamming512", &engine, 512, 1, NK_OOB_AUTO);
    CHECK_OK(nk_bch_init(&bch, 512, 8, 0, bch_workspace + MISALIGN, sizeof bch_workspace - MISALIGN));
    figure("bch_workspace", "bch8-512", nk_bch_workspace_size(13, 8, 0));
    nk_ecc_bch_engine_init(&engine, &bch);
    measure_engine("bch8", &engine, 512, 8, NK_OOB_AUTO);
    CHECK_OK(nk_bch_init(&bch, 512, 8, NK_BCH_SMALL_TABLES, bch_workspace + MISALIGN, sizeof bch_workspace - MISALIGN));
    figure("bch_workspace", "bch8-512-small", nk_bch_workspace_size(13, 8, NK_BCH_SMALL_TABLES));
    nk_ecc_bch_engine_init(&engine, &bch);
    measure_engine("bch8-small", &engine, 512, 8, NK_OOB_AUTO);
    rn.ticks = NULL;
}

int main(void)
{
    put("nandkit on ");
    put(TARGET_CPU);
#ifdef TARGET_ALIGNMENT_TRAP
    put(" (qemu-system-arm, semihosting; every unaligned access faults)\n");
#else
    put(" (qemu-system-arm, semihosting)\n");
#endif
    figure("sizeof", "struct_nk_fs", sizeof(struct nk_fs));
    figure("sizeof", "struct_nk_nand", sizeof(struct nk_nand));
    figure("sizeof", "struct_nk_part", sizeof(struct nk_part));
    memset(workspace, 0xA5, sizeof workspace);
    ramnand_init(&rn, PSRAM, PSRAM_SIZE);
    CHECK(rn.store_blocks >= PART_BLOCKS + NK_BBT_MAX_BLOCKS + 2u);

    file_system_linux();
    file_system_inband_bch8();
    measure();
    for (unsigned i = 0; i < 32u && stack_max[i].name; i++)
        figure("stack", stack_max[i].name, stack_max[i].bytes);
    figure("stack", "main", target_stack_top() - stack_low);
    put("ok: ");
    target_put_uint(checks);
    put(" checks passed\n");
    return 0;
}
