/* SPDX-License-Identifier: MIT */
/*
 * Guest-side checks of the Linux MTD backend, run inside the QEMU harness
 * against the real kernel's nandsim (tests/qemu/run-harness.sh).
 *
 *   nk_mtd_guest ecc DEV hamming|bchT   ECC agreement both ways
 *   nk_mtd_guest bbt DEV LIST           BBT agreement (LIST = the kernel's bad blocks)
 *   nk_mtd_guest time DEV               page/block timing through the device API
 *   nk_mtd_guest fs DEV LIST            the kernel's view of a file system nandkit
 *                                       built (LIST = the kernel's bad blocks)
 *
 * Every check prints one "PASS name: detail" or "FAIL name: detail" line;
 * the exit status is the number of failures (capped at 100). The kernel's
 * verdicts are taken straight from its ioctls (MEMREAD's ecc_stats,
 * ECCGETSTATS, MEMGETBADBLOCK) on a descriptor of their own, never through
 * the backend under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <mtd/mtd-user.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "fs/fs_codec.h"
#include "nandkit/bbt.h"
#include "nandkit/ecc.h"
#include "nandkit/error.h"
#include "nandkit/fs.h"
#include "nandkit/mtd.h"
#include "nandkit/nand.h"

static unsigned nk_failures;

static void nk_report(bool ok, const char *name, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void nk_report(bool ok, const char *name, const char *format, ...)
{
    va_list args;
    printf("%s %s: ", ok ? "PASS" : "FAIL", name);
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
    if (!ok)
        nk_failures++;
}

/* ----- pseudo-random data (regular patterns can hide ECC mistakes) ------- */

static uint64_t nk_rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dull;
}

static void nk_fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(nk_rng_next(&state) >> 56);
}

/* ----- a nandkit device over the backend ----------------------------------- */

struct nk_guest_dev {
    struct nk_mtd *mtd;
    struct nk_nand nand;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout layout;
    struct nk_bch bch;
    void *bch_workspace;
    void *workspace;
};

/* Opens `path` in `mode`. `scheme` chooses nandkit's own engine with its
 * default Linux layout ("hamming", "bchT"); NULL takes the backend's
 * choice (the kernel's engine or its software twin, the kernel's layout). */
static int nk_dev_open(struct nk_guest_dev *dev, const char *path, enum nk_mtd_mode mode,
                       const char *scheme, bool legacy_io)
{
    memset(dev, 0, sizeof *dev);
    struct nk_mtd_config config = {.path = path, .mode = mode, .legacy_io = legacy_io};
    struct nk_diag why[1] = {{""}};
    int err = nk_mtd_open(&dev->mtd, &config, why);
    if (err) {
        fprintf(stderr, "nk_mtd_open %s: %s\n", path, why->text);
        return err;
    }
    const struct nk_chip_info *info = nk_mtd_chip_info(dev->mtd);
    if (!scheme) {
        err = nk_mtd_ecc_engine(dev->mtd, &dev->ecc, &dev->layout, why);
    } else if (strcmp(scheme, "hamming") == 0) {
        err = nk_ecc_hamming_init(&dev->ecc, 256, false);
    } else {
        unsigned t = (unsigned)strtoul(scheme + 3, NULL, 10);
        size_t size = nk_bch_workspace_size(13, t, 0);
        dev->bch_workspace = malloc(size);
        err = nk_bch_init(&dev->bch, 512, t, 0, dev->bch_workspace, size);
        if (!err)
            nk_ecc_bch_engine_init(&dev->ecc, &dev->bch);
    }
    if (!err && scheme)
        err = nk_oob_layout_default(&dev->layout, info->page_size, info->oob_size, &dev->ecc);
    if (err) {
        fprintf(stderr, "engine for %s: %s\n", scheme ? scheme : "backend", nk_strerror(err));
        return err;
    }
    size_t size = nk_nand_workspace_size(info);
    dev->workspace = malloc(size);
    struct nk_nand_config nand_config = {
        .ctrl = nk_mtd_ctrl(dev->mtd),
        .chip = info,
        .skip_reset = true,
        .ecc = &dev->ecc,
        .layout = &dev->layout,
        .workspace = dev->workspace,
        .workspace_size = size,
        .clock = nk_mtd_clock(dev->mtd),
    };
    err = nk_nand_open(&dev->nand, &nand_config);
    if (err)
        fprintf(stderr, "nk_nand_open: %s\n", dev->nand.diag.text);
    return err;
}

static void nk_dev_close(struct nk_guest_dev *dev)
{
    nk_nand_close(&dev->nand);
    nk_mtd_close(dev->mtd);
    free(dev->workspace);
    free(dev->bch_workspace);
}

/* ----- the kernel's own verdict ------------------------------------------------- */

struct nk_kernel_read {
    int error; /* errno of MEMREAD (0, EUCLEAN, EBADMSG) */
    struct mtd_read_req_ecc_stats stats;
    uint32_t corrected_delta; /* ECCGETSTATS after - before */
    uint32_t failed_delta;
};

static int nk_kernel_read(int fd, const struct mtd_info_user *info, uint32_t page, uint8_t *data,
                          uint8_t *oob, uint32_t ooblen, int mode, struct nk_kernel_read *out)
{
    struct mtd_ecc_stats before, after;
    memset(out, 0, sizeof *out);
    if (ioctl(fd, ECCGETSTATS, &before) != 0)
        return -errno;
    struct mtd_read_req req;
    memset(&req, 0, sizeof req);
    req.start = (uint64_t)page * info->writesize;
    req.len = data ? info->writesize : 0;
    req.ooblen = oob ? ooblen : 0;
    req.usr_data = (uint64_t)(uintptr_t)data;
    req.usr_oob = (uint64_t)(uintptr_t)oob;
    req.mode = (uint8_t)mode;
    if (ioctl(fd, MEMREAD, &req) != 0) {
        out->error = errno;
        if (errno != EUCLEAN && errno != EBADMSG)
            return -errno;
    }
    if (ioctl(fd, ECCGETSTATS, &after) != 0)
        return -errno;
    out->stats = req.ecc_stats;
    out->corrected_delta = after.corrected - before.corrected;
    out->failed_delta = after.failed - before.failed;
    return 0;
}

static int nk_kernel_write(int fd, const struct mtd_info_user *info, uint32_t page,
                           const uint8_t *data, const uint8_t *oob, uint32_t ooblen, int mode)
{
    struct mtd_write_req req;
    memset(&req, 0, sizeof req);
    req.start = (uint64_t)page * info->writesize;
    req.len = data ? info->writesize : 0;
    req.ooblen = oob ? ooblen : 0;
    req.usr_data = (uint64_t)(uintptr_t)data;
    req.usr_oob = (uint64_t)(uintptr_t)oob;
    req.mode = (uint8_t)mode;
    return ioctl(fd, MEMWRITE, &req) == 0 ? 0 : -errno;
}

static int nk_kernel_erase(int fd, const struct mtd_info_user *info, uint32_t block)
{
    struct erase_info_user64 erase = {.start = (uint64_t)block * info->erasesize,
                                      .length = info->erasesize};
    return ioctl(fd, MEMERASE64, &erase) == 0 ? 0 : -errno;
}

static const char *nk_errno_name(int error)
{
    return error == 0 ? "ok" : error == EUCLEAN ? "EUCLEAN" : error == EBADMSG ? "EBADMSG" : "?";
}

/* A device-layer read result as text, in the caller's buffer. */
struct nk_result_text {
    char text[16];
};

static struct nk_result_text nk_result_name(int result)
{
    struct nk_result_text out;
    if (result == -NK_EBADMSG)
        snprintf(out.text, sizeof out.text, "-EBADMSG");
    else
        snprintf(out.text, sizeof out.text, "%d", result);
    return out;
}

/* ----- check 2: ECC agreement ---------------------------------------------------- */

static bool nk_layout_equal(const struct nk_oob_layout *a, const struct nk_oob_layout *b)
{
    /* Compare byte maps: regions may be split differently. */
    uint8_t map_a[1024], map_b[1024];
    memset(map_a, 0, sizeof map_a);
    memset(map_b, 0, sizeof map_b);
    for (unsigned i = 0; i < a->ecc_count; i++)
        memset(map_a + a->ecc[i].offset, 1, a->ecc[i].length);
    for (unsigned i = 0; i < a->free_count; i++)
        memset(map_a + a->free[i].offset, 2, a->free[i].length);
    for (unsigned i = 0; i < b->ecc_count; i++)
        memset(map_b + b->ecc[i].offset, 1, b->ecc[i].length);
    for (unsigned i = 0; i < b->free_count; i++)
        memset(map_b + b->free[i].offset, 2, b->free[i].length);
    return memcmp(map_a, map_b, sizeof map_a) == 0;
}

static void nk_layout_text(const struct nk_oob_layout *layout, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "ecc");
    for (unsigned i = 0; i < layout->ecc_count && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, " %u-%u", layout->ecc[i].offset,
                              layout->ecc[i].offset + layout->ecc[i].length - 1);
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, " free");
    for (unsigned i = 0; i < layout->free_count && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, " %u-%u", layout->free[i].offset,
                              layout->free[i].offset + layout->free[i].length - 1);
}

/* Flips bit `bit` of byte `byte` in `buf`. */
static void nk_flip(uint8_t *buf, uint32_t byte, unsigned bit)
{
    buf[byte] ^= (uint8_t)(1u << bit);
}

/* One corrupted page: how to damage the raw image of a good page, and what
 * nandkit and the kernel must then agree on. */
struct nk_damage {
    const char *what;
    unsigned flips_data[16][2]; /* {byte, bit} pairs in the data area */
    unsigned data_count;
    unsigned flips_oob[4][2]; /* {byte, bit} in the OOB (ECC bytes) */
    unsigned oob_count;
    int expect;          /* 0 corrected, 1 uncorrectable */
    unsigned expect_max; /* kernel's max_bitflips when corrected */
};

static int nk_ecc_check(const char *path, const char *scheme)
{
    char name[64];
    bool hamming = strcmp(scheme, "hamming") == 0;
    unsigned t = hamming ? 1 : (unsigned)strtoul(scheme + 3, NULL, 10);
    unsigned step = hamming ? 256 : 512;

    struct nk_guest_dev raw, kern;
    if (nk_dev_open(&raw, path, NK_MTD_MODE_RAW, scheme, false) ||
        nk_dev_open(&kern, path, NK_MTD_MODE_KERNEL_ECC, NULL, false)) {
        nk_report(false, "ecc-open", "%s: cannot open %s", scheme, path);
        return 1;
    }
    int fd = open(path, O_RDWR);
    struct mtd_info_user info;
    if (fd < 0 || ioctl(fd, MEMGETINFO, &info) != 0) {
        nk_report(false, "ecc-open", "%s: %s", path, strerror(errno));
        return 1;
    }
    const uint32_t page_size = info.writesize, oob_size = info.oobsize;
    const uint32_t ppb = info.erasesize / info.writesize;

    /* The kernel's engine and layout as the backend sees them. */
    const struct nk_mtd_ecc_info *kecc = nk_mtd_ecc_info(raw.mtd);
    char text_k[160], text_n[160];
    nk_layout_text(&kecc->layout, text_k, sizeof text_k);
    nk_layout_text(&raw.layout, text_n, sizeof text_n);
    snprintf(name, sizeof name, "%s-layout", scheme);
    nk_report(kecc->strength == t && kecc->step_size == step &&
                  kecc->bytes_per_step == raw.ecc.bytes_per_step &&
                  nk_layout_equal(&kecc->layout, &raw.layout),
              name, "kernel %u bit/%u B, %u B/step, %s (%s); nandkit %s %u B/step, %s",
              kecc->strength, kecc->step_size, kecc->bytes_per_step, text_k,
              kecc->layout_from_kernel ? "ECCGETLAYOUT" : "default", raw.ecc.name,
              raw.ecc.bytes_per_step, text_n);

    const uint32_t pages = 4;
    const uint32_t block_a = 20, block_b = 21, block_c = 22, block_d = 23;
    uint8_t *data = malloc((size_t)page_size * pages);
    uint8_t *tags = malloc((size_t)oob_size * pages);
    uint8_t *buf = malloc(page_size);
    uint8_t *oob = malloc(oob_size);
    uint8_t *image = malloc((size_t)page_size + oob_size);
    uint8_t *dam = malloc((size_t)page_size + oob_size);
    unsigned free_bytes = nk_nand_free_oob_bytes(&raw.nand);
    uint64_t seed = hamming ? 100 : 200 + t;
    for (uint32_t p = 0; p < pages; p++) {
        nk_fill_random(data + (size_t)p * page_size, page_size, seed + p);
        nk_fill_random(tags + (size_t)p * oob_size, free_bytes, seed + 50 + p);
    }

    /* (a) nandkit writes with its own ECC; the kernel reads clean. */
    int err = nk_nand_erase_block(&raw.nand, block_a);
    for (uint32_t p = 0; p < pages && !err; p++)
        err = nk_nand_program_page(&raw.nand, block_a * ppb + p, data + (size_t)p * page_size,
                                   tags + (size_t)p * oob_size, NK_OOB_AUTO);
    snprintf(name, sizeof name, "%s-nandkit-writes", scheme);
    nk_report(err == 0, name, "erase + %u pages programmed raw with nandkit's ECC: %s", pages,
              nk_strerror(err));
    unsigned clean = 0, same = 0, tags_same = 0, stats_zero = 0;
    for (uint32_t p = 0; p < pages; p++) {
        struct nk_kernel_read kr;
        uint8_t *auto_oob = oob;
        if (nk_kernel_read(fd, &info, block_a * ppb + p, buf, auto_oob, free_bytes,
                           MTD_OPS_AUTO_OOB, &kr) == 0) {
            clean += kr.error == 0;
            stats_zero += kr.stats.corrected_bitflips == 0 && kr.stats.uncorrectable_errors == 0 &&
                          kr.corrected_delta == 0 && kr.failed_delta == 0;
            same += memcmp(buf, data + (size_t)p * page_size, page_size) == 0;
            tags_same += memcmp(auto_oob, tags + (size_t)p * oob_size, free_bytes) == 0;
        }
    }
    snprintf(name, sizeof name, "%s-kernel-reads-nandkit", scheme);
    nk_report(clean == pages && same == pages && stats_zero == pages && tags_same == pages, name,
              "%u/%u pages: MEMREAD ok %u, 0 corrected/0 failed %u, data identical %u, "
              "free OOB bytes (auto-placement, %u B) identical %u",
              pages, pages, clean, stats_zero, same, free_bytes, tags_same);

    /* (b) damaged copies of page 0, written raw; both sides judge them. */
    err = nk_nand_read_page(&raw.nand, block_a * ppb, image, image + page_size, NK_OOB_RAW);
    struct nk_damage damages[4];
    memset(damages, 0, sizeof damages);
    unsigned ecc_first = kecc->layout.ecc[0].offset;
    if (hamming) {
        damages[0] = (struct nk_damage){.what = "1 bit in step 0",
                                        .data_count = 1,
                                        .flips_data = {{37, 5}},
                                        .expect = 0,
                                        .expect_max = 1};
        damages[1] = (struct nk_damage){
            .what = "1 bit in every step",
            .data_count = 8,
            .flips_data =
                {{3, 0}, {300, 1}, {600, 2}, {900, 3}, {1100, 4}, {1400, 5}, {1600, 6}, {2000, 7}},
            .expect = 0,
            .expect_max = 1};
        damages[2] = (struct nk_damage){.what = "2 bits in step 3",
                                        .data_count = 2,
                                        .flips_data = {{800, 1}, {900, 6}},
                                        .expect = 1};
        damages[3] = (struct nk_damage){.what = "1 bit in an ECC byte",
                                        .oob_count = 1,
                                        .flips_oob = {{ecc_first + 4, 2}},
                                        .expect = 0,
                                        .expect_max = 1};
    } else {
        damages[0] = (struct nk_damage){
            .what = "t bits in step 0", .data_count = t, .expect = 0, .expect_max = t};
        for (unsigned i = 0; i < t; i++) {
            damages[0].flips_data[i][0] = 11 + 61 * i;
            damages[0].flips_data[i][1] = i % 8;
        }
        damages[1] =
            (struct nk_damage){.what = "t+1 bits in step 1", .data_count = t + 1, .expect = 1};
        for (unsigned i = 0; i < t + 1; i++) {
            damages[1].flips_data[i][0] = 512 + 7 + 43 * i;
            damages[1].flips_data[i][1] = (3 * i) % 8;
        }
        damages[2] = (struct nk_damage){.what = "1 bit in every step",
                                        .data_count = 4,
                                        .flips_data = {{100, 0}, {700, 3}, {1300, 5}, {1900, 7}},
                                        .expect = 0,
                                        .expect_max = 1};
        damages[3] =
            (struct nk_damage){.what = "2 bits in step 2's ECC bytes",
                               .oob_count = 2,
                               .flips_oob = {{ecc_first + 2 * raw.ecc.bytes_per_step, 1},
                                             {ecc_first + 2 * raw.ecc.bytes_per_step + 1, 6}},
                               .expect = 0,
                               .expect_max = 2};
    }
    if (!err)
        err = nk_nand_erase_block(&raw.nand, block_b);
    for (unsigned d = 0; d < 4 && !err; d++) {
        memcpy(dam, image, (size_t)page_size + oob_size);
        for (unsigned i = 0; i < damages[d].data_count; i++)
            nk_flip(dam, damages[d].flips_data[i][0], damages[d].flips_data[i][1]);
        for (unsigned i = 0; i < damages[d].oob_count; i++)
            nk_flip(dam + page_size, damages[d].flips_oob[i][0], damages[d].flips_oob[i][1]);
        err = nk_nand_program_page(&raw.nand, block_b * ppb + d, dam, dam + page_size, NK_OOB_RAW);
    }
    for (unsigned d = 0; d < 4 && !err; d++) {
        uint32_t page = block_b * ppb + d;
        struct nk_kernel_read kr;
        int kerr = nk_kernel_read(fd, &info, page, buf, NULL, 0, MTD_OPS_PLACE_OOB, &kr);
        bool kernel_ok = kerr == 0 && memcmp(buf, data, page_size) == 0;
        int nandkit = nk_nand_read_page(&raw.nand, page, dam, NULL, NK_OOB_PLACE);
        unsigned nandkit_flips = nk_nand_last_bitflips(&raw.nand);
        bool nandkit_ok = memcmp(dam, data, page_size) == 0;
        int via_port = nk_nand_read_page(&kern.nand, page, dam, NULL, NK_OOB_PLACE);
        struct nk_mtd_read_stats port_stats;
        nk_mtd_last_read_stats(kern.mtd, &port_stats);
        bool pass;
        char detail[400];
        if (damages[d].expect == 0) {
            unsigned threshold = kecc->bitflip_threshold;
            /* On-die reporting: "rewrite recommended" counts as the threshold. */
            int want_port = damages[d].expect_max >= threshold ? (int)threshold : 0;
            pass = kernel_ok && kr.error == EUCLEAN && kr.stats.uncorrectable_errors == 0 &&
                   kr.stats.max_bitflips == damages[d].expect_max && kr.corrected_delta > 0 &&
                   kr.failed_delta == 0 && nandkit == (int)damages[d].expect_max && nandkit_ok &&
                   nandkit_flips == damages[d].expect_max && via_port == want_port &&
                   port_stats.max_bitflips == damages[d].expect_max &&
                   memcmp(dam, data, page_size) == 0;
        } else {
            pass = kerr == 0 && kr.error == EBADMSG && kr.stats.uncorrectable_errors > 0 &&
                   kr.failed_delta > 0 && nandkit == -NK_EBADMSG && via_port == -NK_EBADMSG;
        }
        snprintf(detail, sizeof detail,
                 "%s: kernel %s corrected %u max %u failed %u (ECCGETSTATS +%u/+%u)%s; "
                 "nandkit %s (%u bitflips)%s; backend kernel-ECC read %s",
                 damages[d].what, nk_errno_name(kr.error), kr.stats.corrected_bitflips,
                 kr.stats.max_bitflips, kr.stats.uncorrectable_errors, kr.corrected_delta,
                 kr.failed_delta,
                 damages[d].expect == 0 ? (kernel_ok ? ", data restored" : ", DATA WRONG") : "",
                 nk_result_name(nandkit).text, nandkit_flips,
                 damages[d].expect == 0 ? (nandkit_ok ? ", data restored" : ", DATA WRONG") : "",
                 nk_result_name(via_port).text);
        snprintf(name, sizeof name, "%s-flip-%u", scheme, d);
        nk_report(pass, name, "%s", detail);
    }
    if (err)
        nk_report(false, "ecc-damage-setup", "%s: %s", scheme, nk_strerror(err));

    /* The pread()+ECCGETSTATS path sees the same outcomes. */
    {
        struct nk_guest_dev legacy;
        if (nk_dev_open(&legacy, path, NK_MTD_MODE_KERNEL_ECC, NULL, true) == 0) {
            int good = nk_nand_read_page(&legacy.nand, block_a * ppb, buf, NULL, NK_OOB_PLACE);
            bool good_same = memcmp(buf, data, page_size) == 0;
            int bad = nk_nand_read_page(&legacy.nand, block_b * ppb + (hamming ? 2 : 1), buf, NULL,
                                        NK_OOB_PLACE);
            int fixed = nk_nand_read_page(&legacy.nand, block_b * ppb, buf, NULL, NK_OOB_PLACE);
            bool fixed_same = memcmp(buf, data, page_size) == 0;
            int want_fixed =
                (hamming ? 1 : t) >= kecc->bitflip_threshold ? (int)kecc->bitflip_threshold : 0;
            snprintf(name, sizeof name, "%s-legacy-io", scheme);
            nk_report(nk_mtd_uses_legacy_io(legacy.mtd) && good == 0 && good_same &&
                          bad == -NK_EBADMSG && fixed == want_fixed && fixed_same,
                      name,
                      "pread+MEMREADOOB64+ECCGETSTATS: clean page %s, uncorrectable page %s, "
                      "corrected page %s%s",
                      nk_result_name(good).text, nk_result_name(bad).text,
                      nk_result_name(fixed).text,
                      fixed_same ? " (data restored)" : " (DATA WRONG)");
            nk_dev_close(&legacy);
        }
    }

    /* (c) the kernel writes with its ECC; nandkit reads raw and checks with
     * its own engine: no corrections, same data and free bytes. */
    err = nk_kernel_erase(fd, &info, block_c);
    for (uint32_t p = 0; p < pages && !err; p++)
        err = nk_kernel_write(fd, &info, block_c * ppb + p, data + (size_t)p * page_size,
                              tags + (size_t)p * oob_size, free_bytes, MTD_OPS_AUTO_OOB);
    unsigned zero = 0;
    same = 0;
    tags_same = 0;
    for (uint32_t p = 0; p < pages && !err; p++) {
        int r = nk_nand_read_page(&raw.nand, block_c * ppb + p, buf, oob, NK_OOB_AUTO);
        zero += r == 0 && nk_nand_last_bitflips(&raw.nand) == 0;
        same += memcmp(buf, data + (size_t)p * page_size, page_size) == 0;
        tags_same += memcmp(oob, tags + (size_t)p * oob_size, free_bytes) == 0;
    }
    /* An erased page of the same block: both see 0xFF, nandkit no flips. */
    int erased =
        err ? err : nk_nand_read_page(&raw.nand, block_c * ppb + pages, buf, NULL, NK_OOB_PLACE);
    bool all_ff = true;
    for (uint32_t i = 0; i < page_size; i++)
        all_ff &= buf[i] == 0xff;
    snprintf(name, sizeof name, "%s-nandkit-reads-kernel", scheme);
    nk_report(!err && zero == pages && same == pages && tags_same == pages && erased == 0 && all_ff,
              name,
              "kernel MEMWRITE (auto OOB) of %u pages: nandkit raw read with %s: 0 corrections "
              "%u, data identical %u, free bytes identical %u; erased page %s%s",
              pages, raw.ecc.name, zero, same, tags_same, nk_result_name(erased).text,
              all_ff ? " all 0xFF" : " NOT 0xFF");

    /* (d) nandkit writes through the kernel's ECC (the backend's kernel
     * mode); nandkit's raw device verifies the kernel's code. */
    err = nk_nand_erase_block(&kern.nand, block_d);
    for (uint32_t p = 0; p < pages && !err; p++)
        err = nk_nand_program_page(&kern.nand, block_d * ppb + p, data + (size_t)p * page_size,
                                   tags + (size_t)p * oob_size, NK_OOB_AUTO);
    zero = 0;
    same = 0;
    tags_same = 0;
    unsigned back = 0;
    for (uint32_t p = 0; p < pages && !err; p++) {
        int r = nk_nand_read_page(&raw.nand, block_d * ppb + p, buf, oob, NK_OOB_AUTO);
        zero += r == 0 && nk_nand_last_bitflips(&raw.nand) == 0;
        same += memcmp(buf, data + (size_t)p * page_size, page_size) == 0;
        tags_same += memcmp(oob, tags + (size_t)p * oob_size, free_bytes) == 0;
        r = nk_nand_read_page(&kern.nand, block_d * ppb + p, buf, oob, NK_OOB_AUTO);
        back += r == 0 && memcmp(buf, data + (size_t)p * page_size, page_size) == 0 &&
                memcmp(oob, tags + (size_t)p * oob_size, free_bytes) == 0;
    }
    snprintf(name, sizeof name, "%s-backend-kernel-mode", scheme);
    nk_report(!err && zero == pages && same == pages && tags_same == pages && back == pages, name,
              "%u pages written through the backend with the kernel's ECC: nandkit raw check "
              "0 corrections %u, data %u, free bytes %u; read back through the backend %u (%s)",
              pages, zero, same, tags_same, back, nk_strerror(err));

    free(data);
    free(tags);
    free(buf);
    free(oob);
    free(image);
    free(dam);
    close(fd);
    nk_dev_close(&raw);
    nk_dev_close(&kern);
    return 0;
}

/* ----- check 3: BBT agreement --------------------------------------------------- */

static void nk_list_text(const uint8_t *set, uint32_t blocks, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t b = 0; b < blocks && n + 12 < size; b++) {
        if (set[b])
            n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? "," : "", b);
    }
    if (!n)
        snprintf(buf, size, "none");
}

static int nk_bbt_check(const char *path, const char *list)
{
    struct nk_guest_dev raw;
    if (nk_dev_open(&raw, path, NK_MTD_MODE_RAW, NULL, false)) {
        nk_report(false, "bbt-open", "cannot open %s", path);
        return 1;
    }
    uint32_t blocks = nk_nand_blocks(&raw.nand);
    uint8_t *expected = calloc(blocks, 1), *kernel = calloc(blocks, 1);
    uint8_t *table = calloc(blocks, 1), *scan = calloc(blocks, 1);
    for (const char *p = list; *p;) {
        char *end;
        unsigned long b = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (b < blocks)
            expected[b] = 1;
        p = *end ? end + 1 : end;
    }
    /* The kernel's view. It also reports its table blocks (reserved) bad. */
    uint32_t reserved_from = blocks - NK_BBT_MAX_BLOCKS;
    unsigned kernel_table_area = 0;
    int err = 0;
    for (uint32_t b = 0; b < blocks && err >= 0; b++) {
        err = nk_mtd_block_is_bad(raw.mtd, b);
        if (err > 0 && b < reserved_from)
            kernel[b] = 1;
        else if (err > 0)
            kernel_table_area++;
    }
    char text_e[200], text_k[200], text_t[200], text_s[200];
    nk_list_text(expected, blocks, text_e, sizeof text_e);
    nk_list_text(kernel, blocks, text_k, sizeof text_k);
    nk_report(err >= 0 && memcmp(expected, kernel, blocks) == 0, "bbt-kernel-view",
              "MEMGETBADBLOCK: %s (nandsim badblocks=%s), plus %u of the %u table blocks", text_k,
              text_e, kernel_table_area, NK_BBT_MAX_BLOCKS);

    /* The kernel refuses to erase a block it knows bad: the port turns its
     * -EIO into status FAIL, so the marker survives nandkit's mistakes. */
    uint32_t first_bad = 0;
    while (first_bad < blocks && !kernel[first_bad])
        first_bad++;
    if (first_bad < blocks) {
        int erase = nk_nand_erase_block(&raw.nand, first_bad);
        int still = nk_mtd_block_is_bad(raw.mtd, first_bad);
        nk_report(erase == -NK_EIO && still == 1, "bbt-erase-bad-refused",
                  "erase of bad block %u through the backend: %s; still bad: %s", first_bad,
                  nk_strerror(erase), still == 1 ? "yes" : "NO");
    }

    /* nandkit reads the kernel-written table, changing nothing. */
    struct nk_bbt bbt;
    struct nk_bbt_config config = {.dry_run = true};
    config.memory_size = nk_bbt_memory_size(&raw.nand);
    config.memory = malloc(config.memory_size);
    struct nk_nand_stats before, after;
    nk_nand_stats_get(&raw.nand, &before);
    err = nk_bbt_attach(&raw.nand, &bbt, &config);
    nk_nand_stats_get(&raw.nand, &after);
    unsigned reserved = 0;
    for (uint32_t b = 0; b < blocks && !err; b++) {
        int state = nk_bbt_block_state(&bbt, b);
        table[b] = state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD;
        reserved += state == NK_BBT_RESERVED;
    }
    nk_list_text(table, blocks, text_t, sizeof text_t);
    nk_report(
        !err && !bbt.info.scanned && bbt.info.main_block >= 0 && bbt.info.mirror_block >= 0 &&
            memcmp(table, kernel, blocks) == 0 && after.page_programs == before.page_programs &&
            after.block_erases == before.block_erases,
        "bbt-read-kernel-table",
        "nandkit found main \"Bbt0\" in block %d v%u, mirror \"1tbB\" in block %d v%u; "
        "bad %s (worn %u, factory %u), %u reserved; wrote nothing (%s)",
        bbt.info.main_block, bbt.info.main_version, bbt.info.mirror_block, bbt.info.mirror_version,
        text_t, bbt.info.worn, bbt.info.factory_bad, reserved, nk_strerror(err));
    nk_bbt_detach(&raw.nand);

    /* nandkit's own factory-marker scan (dry run) agrees. */
    config.force_scan = true;
    err = nk_bbt_attach(&raw.nand, &bbt, &config);
    for (uint32_t b = 0; b < blocks && !err; b++) {
        int state = nk_bbt_block_state(&bbt, b);
        scan[b] = state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD;
    }
    nk_list_text(scan, blocks, text_s, sizeof text_s);
    nk_report(!err && bbt.info.scanned && memcmp(scan, kernel, blocks) == 0, "bbt-factory-scan",
              "marker scan of %u blocks (dry run): bad %s (%s)", blocks, text_s, nk_strerror(err));
    nk_bbt_detach(&raw.nand);

    /* Through the kernel-ECC port the same table reads the same. */
    struct nk_guest_dev kern;
    if (nk_dev_open(&kern, path, NK_MTD_MODE_KERNEL_ECC, NULL, false) == 0) {
        config.force_scan = false;
        err = nk_bbt_attach(&kern.nand, &bbt, &config);
        memset(scan, 0, blocks);
        for (uint32_t b = 0; b < blocks && !err; b++) {
            int state = nk_bbt_block_state(&bbt, b);
            scan[b] = state == NK_BBT_WORN || state == NK_BBT_FACTORY_BAD;
        }
        nk_list_text(scan, blocks, text_s, sizeof text_s);
        nk_report(!err && !bbt.info.scanned && memcmp(scan, kernel, blocks) == 0,
                  "bbt-read-kernel-ecc-mode", "through the kernel's ECC: table v%u, bad %s (%s)",
                  bbt.info.main_version, text_s, nk_strerror(err));
        nk_bbt_detach(&kern.nand);
        nk_dev_close(&kern);
    }
    free(config.memory);
    free(expected);
    free(kernel);
    free(table);
    free(scan);
    nk_dev_close(&raw);
    return 0;
}

/* ----- page timing (wall clock) ------------------------------------------------ */

static double nk_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int nk_time_check(const char *path)
{
    const uint32_t first_block = 100, block_count = 8;
    for (int m = 0; m < 2; m++) {
        enum nk_mtd_mode mode = m ? NK_MTD_MODE_RAW : NK_MTD_MODE_KERNEL_ECC;
        struct nk_guest_dev dev;
        if (nk_dev_open(&dev, path, mode, NULL, false)) {
            nk_report(false, "time-open", "%s", path);
            return 1;
        }
        uint32_t ppb = nk_nand_pages_per_block(&dev.nand), page_size = nk_nand_page_size(&dev.nand);
        uint8_t *data = malloc(page_size);
        nk_fill_random(data, page_size, 7);
        int err = 0;
        double t0 = nk_now_us();
        for (uint32_t b = 0; b < block_count && !err; b++)
            err = nk_nand_erase_block(&dev.nand, first_block + b);
        double t1 = nk_now_us();
        for (uint32_t p = 0; p < block_count * ppb && !err; p++)
            err = nk_nand_program_page(&dev.nand, first_block * ppb + p, data, NULL, NK_OOB_PLACE);
        double t2 = nk_now_us();
        for (uint32_t p = 0; p < block_count * ppb && !err; p++)
            err = nk_nand_read_page(&dev.nand, first_block * ppb + p, data, NULL, NK_OOB_PLACE);
        double t3 = nk_now_us();
        uint32_t pages = block_count * ppb;
        nk_report(err == 0, m ? "time-raw-nandkit-ecc" : "time-kernel-ecc",
                  "%s, %s: page read %.1f us, page program %.1f us, block erase %.1f us "
                  "(wall time, %u pages, %u blocks)",
                  path, dev.ecc.name, (t3 - t2) / pages, (t2 - t1) / pages, (t1 - t0) / block_count,
                  pages, block_count);
        free(data);
        nk_dev_close(&dev);
    }
    return 0;
}

/* ----- check 4: the kernel's view of a nandkit file system ------------------------------- */

/* After `nandkit mkimage TREE DEV`: every block the kernel calls good starts
 * with YAFFS2 tags at OOB 2.. (the first free bytes, read through the
 * kernel's own auto-placement), with sequence numbers 0x1000, 0x1001, ... in
 * block order and no gap at the bad blocks; every written page reads through
 * the kernel's ECC with no correction and no failure; the free OOB bytes
 * past the 28 of the tags are erased. */
static int nk_fs_check_kernel(const char *path, const char *list)
{
    int fd = open(path, O_RDONLY);
    struct mtd_info_user info;
    if (fd < 0 || ioctl(fd, MEMGETINFO, &info) != 0) {
        nk_report(false, "fs-kernel-view", "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    uint32_t blocks = (uint32_t)(info.size / info.erasesize);
    uint32_t ppb = info.erasesize / info.writesize;
    uint8_t *data = malloc(info.writesize);
    uint8_t oob[256];
    uint32_t expect_seq = NK_FS_SEQ_LOWEST, in_use = 0, pages = 0, corrected = 0, failed = 0;
    uint32_t bad_seen = 0, problems = 0, tail_dirty = 0;
    char bad_text[128] = "", first_problem[160] = "";
    bool ended = false; /* an erased block was met: no file-system block may follow */
    for (uint32_t b = 0; b < blocks; b++) {
        loff_t offset = (loff_t)b * info.erasesize;
        int bad = ioctl(fd, MEMGETBADBLOCK, &offset);
        if (bad) {
            bad_seen++;
            size_t n = strlen(bad_text);
            snprintf(bad_text + n, sizeof bad_text - n, "%s%u", n ? "," : "", b);
            continue;
        }
        for (uint32_t p = 0; p < ppb; p++) {
            struct nk_kernel_read r;
            memset(oob, 0xff, sizeof oob);
            if (nk_kernel_read(fd, &info, b * ppb + p, data, oob, 38, MTD_OPS_AUTO_OOB, &r) != 0) {
                problems++;
                break;
            }
            struct nk_fs_tags tags;
            int status = nk_fs_tags_decode(oob, true, &tags);
            if (status == NK_FS_TAGS_UNWRITTEN) {
                if (p == 0)
                    ended = true;
                break;
            }
            pages++;
            corrected += r.corrected_delta;
            failed += r.failed_delta;
            for (unsigned i = 28; i < 38; i++)
                tail_dirty += oob[i] != 0xff;
            bool ok = status == NK_FS_TAGS_CLEAN && !ended &&
                      tags.seq == (p == 0 ? expect_seq : expect_seq - 1) && r.error == 0;
            if (!ok && !first_problem[0])
                snprintf(first_problem, sizeof first_problem,
                         "block %u page %u: tags status %d seq 0x%x (expected 0x%x), read %s", b, p,
                         status, tags.seq, p == 0 ? expect_seq : expect_seq - 1,
                         nk_errno_name(r.error));
            problems += !ok;
            if (p == 0) {
                expect_seq++;
                in_use++;
            }
        }
    }
    bool bad_ok = strcmp(bad_text, list) == 0 ||
                  (strncmp(bad_text, list, strlen(list)) == 0 && bad_text[strlen(list)] == ',');
    nk_report(in_use > 0 && problems == 0 && corrected == 0 && failed == 0 && tail_dirty == 0 &&
                  bad_ok,
              "fs-kernel-view",
              "%u blocks in use, sequence 0x1000..0x%x in block order past bad blocks %s; %u "
              "pages read through the kernel's ECC: %u corrected, %u failed; tags at OOB 2..29 "
              "%s, OOB 30..39 %s%s%s",
              in_use, expect_seq - 1, bad_text, pages, corrected, failed,
              problems ? "NOT all valid" : "all valid", tail_dirty ? "written" : "erased",
              first_problem[0] ? "; first problem: " : "", first_problem);
    free(data);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "ecc") == 0)
        nk_ecc_check(argv[2], argv[3]);
    else if (argc >= 4 && strcmp(argv[1], "bbt") == 0)
        nk_bbt_check(argv[2], argv[3]);
    else if (argc >= 3 && strcmp(argv[1], "time") == 0)
        nk_time_check(argv[2]);
    else if (argc >= 4 && strcmp(argv[1], "fs") == 0)
        nk_fs_check_kernel(argv[2], argv[3]);
    else {
        fprintf(stderr, "usage: nk_mtd_guest ecc DEV hamming|bchT | bbt DEV LIST | time DEV | "
                        "fs DEV LIST\n");
        return 2;
    }
    return nk_failures > 100 ? 100 : (int)nk_failures;
}
