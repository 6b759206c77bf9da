/* SPDX-License-Identifier: MIT */
/*
 * Figures of the writable file system on the simulated K9F1G08U0A geometry
 * (2048+64 bytes, 64 pages per block, 1024 blocks, its timing on the
 * virtual clock): programs and reads per small file, sequential write
 * amplification and rate, random-overwrite write amplification at 50 %
 * and 75 % fill, RAM, and mount time after a clean unmount. Printed for
 * docs/fs-design.md; the assertions hold the properties the design claims
 * (counts, never host timing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_testdev.h"
#include "testutil.h"

struct fig {
    struct nk_fs_testdev t;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static void fig_open(struct fig *f, uint32_t blocks)
{
    struct nk_diag why[1] = {{""}};
    if (nk_fs_testdev_open(&f->t, 2048, 64, 64, blocks, NK_FS_LAYOUT_LINUX, NULL, why))
        fail_msg("device: %s", why->text);
    f->config = nk_fs_testdev_config(&f->t);
    f->config.read_only = false;
    assert_int_equal(nk_fs_format(&f->config, NK_FS_LAYOUT_LINUX), 0);
    assert_int_equal(nk_fs_mount(&f->fs, &f->config), 0);
}

struct snap {
    uint64_t programs, reads, erases, ns;
};

static struct snap snap(struct fig *f)
{
    struct nk_sim_counters c;
    nk_sim_counters(f->t.sim, &c);
    struct snap s = {c.ops[NK_SIM_OP_PROGRAM] + c.ops[NK_SIM_OP_CACHE_PROGRAM],
                     c.ops[NK_SIM_OP_READ], c.ops[NK_SIM_OP_ERASE], nk_sim_time_ns(f->t.sim)};
    return s;
}

static void test_figures(void **state)
{
    (void)state;
    struct fig *f = calloc(1, sizeof *f);
    fig_open(f, 1024);
    struct nk_fs *fs = &f->fs;
    uint8_t *buf = malloc(128 * 1024);
    for (size_t i = 0; i < 128 * 1024; i++)
        buf[i] = (uint8_t)(i * 13 + (i >> 10));

    /* 1000 files of 1 KiB in one directory. */
    assert_int_equal(nk_fs_mkdir(fs, "/small", 0755), 0);
    struct snap a = snap(f);
    for (int i = 0; i < 1000; i++) {
        char path[32];
        snprintf(path, sizeof path, "/small/f%04d", i);
        struct nk_fs_file h;
        assert_int_equal(nk_fs_file_open(fs, &h, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
        assert_int_equal(nk_fs_file_write(&h, buf, 1024), 1024);
        assert_int_equal(nk_fs_file_close(&h), 0);
    }
    struct snap b = snap(f);
    double prog_per_file = (double)(b.programs - a.programs) / 1000.0;
    double reads_per_file = (double)(b.reads - a.reads) / 1000.0;
    double us_per_file = (double)(b.ns - a.ns) / 1000.0 / 1000.0;
    printf("  1000 files of 1 KiB: %.2f programs, %.2f page reads, %.0f us per file (%.0f kB/s "
           "of payload)\n",
           prog_per_file, reads_per_file, us_per_file, 1024.0 / us_per_file * 1000.0);
    assert_true(prog_per_file <= 2.1); /* a header and a data chunk (+ summaries) */

    /* A 16 MiB file written sequentially, for each write size. */
    static const uint32_t sizes[] = {512, 2048, 16384, 131072};
    for (unsigned k = 0; k < 4; k++) {
        char path[32];
        snprintf(path, sizeof path, "/big%u", (unsigned)sizes[k]);
        struct nk_fs_file h;
        a = snap(f);
        assert_int_equal(nk_fs_file_open(fs, &h, path, NK_FS_O_WRONLY | NK_FS_O_CREAT), 0);
        for (uint32_t done = 0; done < 16u << 20; done += sizes[k])
            assert_int_equal(nk_fs_file_write(&h, buf, sizes[k]), (int32_t)sizes[k]);
        assert_int_equal(nk_fs_file_close(&h), 0);
        b = snap(f);
        double secs = (double)(b.ns - a.ns) / 1e9;
        printf("  16 MiB sequential, write() of %6u B: %llu programs for 8192 data chunks, "
               "%llu erases, %.0f kB/s\n",
               (unsigned)sizes[k], (unsigned long long)(b.programs - a.programs),
               (unsigned long long)(b.erases - a.erases), 16384.0 * 1.024 / secs);
        assert_true(b.programs - a.programs <= 8192 + 8192 / 63 + 8);
        /* Read it back, timed. */
        a = snap(f);
        assert_int_equal(nk_fs_file_open(fs, &h, path, NK_FS_O_RDONLY), 0);
        uint32_t done = 0;
        int32_t n;
        while ((n = nk_fs_file_read(&h, buf, sizes[k])) > 0)
            done += (uint32_t)n;
        assert_int_equal(done, 16u << 20);
        assert_int_equal(nk_fs_file_close(&h), 0);
        b = snap(f);
        secs = (double)(b.ns - a.ns) / 1e9;
        printf("  16 MiB sequential, read() of %6u B: %llu page reads, %.0f kB/s\n",
               (unsigned)sizes[k], (unsigned long long)(b.reads - a.reads), 16384.0 * 1.024 / secs);
        if (k < 3)
            assert_int_equal(nk_fs_unlink(fs, path), 0);
    }
    size_t ram_now, ram_peak;
    nk_fs_ram_usage(fs, &ram_now, &ram_peak);
    printf("  RAM with 1000 small files and a 16 MiB file: %zu B held (peak %zu B)\n", ram_now,
           ram_peak);

    /* Mount after a clean unmount. */
    assert_int_equal(nk_fs_unmount(fs), 0);
    a = snap(f);
    assert_int_equal(nk_fs_mount(fs, &f->config), 0);
    b = snap(f);
    nk_fs_ram_usage(fs, &ram_now, &ram_peak);
    printf("  mount of that: %.1f ms (%llu page reads), RAM %zu B (peak %zu B)\n",
           (double)(b.ns - a.ns) / 1e6, (unsigned long long)(b.reads - a.reads), ram_now, ram_peak);
    assert_int_equal(nk_fs_unmount(fs), 0);
    nk_fs_testdev_close(&f->t);

    /* Random aligned 4 KiB overwrites of a file filling 50 / 75 / 88 % of
     * the space (a 128-block partition keeps the run short). */
    static const unsigned fills[] = {50, 75, 88};
    for (unsigned k = 0; k < 3; k++) {
        memset(f, 0, sizeof *f);
        fig_open(f, 128);
        struct nk_fs_statfs st;
        assert_int_equal(nk_fs_statfs(fs, &st), 0);
        uint64_t size = st.bytes_avail * fills[k] / 100 / 4096 * 4096;
        struct nk_fs_file h;
        assert_int_equal(nk_fs_file_open(fs, &h, "/r", NK_FS_O_RDWR | NK_FS_O_CREAT), 0);
        for (uint64_t done = 0; done < size; done += 4096)
            assert_int_equal(nk_fs_file_write(&h, buf, 4096), 4096);
        assert_int_equal(nk_fs_file_fsync(&h), 0);
        a = snap(f);
        uint64_t rng = 12345, writes = 4 * size / 4096;
        for (uint64_t i = 0; i < writes; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t at = ((rng >> 33) % (size / 4096)) * 4096;
            assert_int_equal(nk_fs_file_pwrite(&h, buf + (i % 64) * 16, 4096, at), 4096);
        }
        assert_int_equal(nk_fs_file_close(&h), 0);
        b = snap(f);
        double wa = (double)(b.programs - a.programs) / (double)(writes * 2);
        double secs = (double)(b.ns - a.ns) / 1e9;
        printf("  random 4 KiB overwrites at %u %% fill: write amplification %.2f, %.0f kB/s, "
               "%llu erases\n",
               fills[k], wa, (double)writes * 4.096 / secs,
               (unsigned long long)(b.erases - a.erases));
        assert_true(wa >= 1.0);
        assert_int_equal(nk_fs_unmount(fs), 0);
        nk_fs_testdev_close(&f->t);
    }
    /* Skewed workloads against greedy: tests/test_fs_gc.c. */
    free(buf);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
