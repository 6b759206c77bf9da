/* SPDX-License-Identifier: MIT */
/*
 * What the FUSE layer costs: one workload — write a file of --mib MiB in
 * write() calls of 4 KiB or 1 MiB, fsync, close; then read it back in
 * read() calls of the same size — run through the file system's API and
 * through `nandkit mount`, both on a simulated K9F1G08U0A image file
 * written in place (the Linux layout: software Hamming, tags in the OOB).
 * For each: host wall-clock MB/s (1 MB = 10^6 bytes) and the simulated
 * chip's virtual device time. Through FUSE the device time comes from the
 * daemon's --stats line, less that of a session that only mounts and
 * unmounts (the mount's own reads and the checkpoint it writes).
 *
 * usage: bench_mount [--nandkit PATH] [--mib N] [--dir DIR]
 * (PATH defaults to ../tools/nandkit beside this program; without
 * /dev/fuse only the API's figures are printed.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nandkit/error.h"
#include "nandkit/fs_tools.h"
#include "nandkit/nand.h"
#include "nandkit/part.h"
#include "nandkit/sim.h"

#define NK_CHIP "K9F1G08U0A"
#define NK_FUSE_SUPER_MAGIC 0x65735546

struct nk_phase {
    double seconds;   /* host wall clock */
    double device_ms; /* simulated chip's virtual time */
};

struct nk_run {
    struct nk_phase write, read;
};

static double nk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nk_fill(uint8_t *buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
}

static int nk_sh(const char *format, ...) __attribute__((format(printf, 1, 2)));
static int nk_sh(const char *format, ...)
{
    char cmd[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(cmd, sizeof cmd, format, args);
    va_end(args);
    return system(cmd);
}

/* ----- through the API ------------------------------------------------------------------ */

static uint64_t nk_host_seconds(void *ctx)
{
    (void)ctx;
    return (uint64_t)time(NULL);
}

static void *nk_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void nk_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

/* The image as nandkit mount opens it, mounted read-write through the API. */
struct nk_api {
    struct nk_sim *sim;
    struct nk_sim_params params;
    struct nk_ecc_engine ecc;
    struct nk_oob_layout oob_layout;
    struct nk_nand nand;
    struct nk_part part;
    void *workspace;
    struct nk_fs fs;
    struct nk_fs_config config;
};

static int nk_api_open(struct nk_api *a, const char *image)
{
    memset(a, 0, sizeof *a);
    struct nk_diag why[1] = {{""}};
    if (nk_sim_preset(NK_CHIP, &a->params))
        return -NK_EINVAL;
    struct nk_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.params = &a->params;
    sc.image_path = image;
    sc.seed = 1;
    sc.write_through = true;
    int err = nk_sim_open(&a->sim, &sc, why);
    if (err) {
        fprintf(stderr, "bench_mount: %s\n", why->text);
        return err;
    }
    const struct nk_chip_info *chip = &a->params.chip;
    err = nk_fs_layout_device(NK_FS_LAYOUT_LINUX, chip->page_size, chip->oob_size, &a->ecc,
                              &a->oob_layout);
    size_t ws = nk_nand_workspace_size(chip);
    a->workspace = malloc(ws);
    struct nk_nand_config nc;
    memset(&nc, 0, sizeof nc);
    nc.ctrl = nk_sim_ctrl(a->sim);
    nc.chip = chip;
    nc.ecc = &a->ecc;
    nc.layout = &a->oob_layout;
    nc.workspace = a->workspace;
    nc.workspace_size = ws;
    nc.clock = nk_sim_clock(a->sim);
    if (!err)
        err = nk_nand_open(&a->nand, &nc);
    if (!err)
        err = nk_part_init(&a->part, &a->nand, "fs", 0, 0, 0);
    a->config.part = &a->part;
    a->config.allocator = (struct nk_fs_allocator){.alloc = nk_alloc, .free = nk_free};
    a->config.clock = (struct nk_fs_clock){nk_host_seconds, NULL};
    nk_fs_config_layout(&a->config, NK_FS_LAYOUT_LINUX);
    if (!err)
        err = nk_fs_mount(&a->fs, &a->config);
    if (err)
        fprintf(stderr, "bench_mount: cannot mount %s through the API: %s\n", image,
                nk_strerror(err));
    return err;
}

static void nk_api_close(struct nk_api *a)
{
    nk_fs_unmount(&a->fs);
    struct nk_diag why[1] = {{""}};
    nk_sim_sync(a->sim, why);
    nk_sim_close(a->sim);
    free(a->workspace);
}

static int nk_api_run(const char *image, uint64_t bytes, size_t io, const uint8_t *data,
                      struct nk_run *run)
{
    struct nk_api a;
    int err = nk_api_open(&a, image);
    if (err)
        return err;
    struct nk_fs_file f;
    uint8_t *buf = malloc(io);
    double t = nk_now();
    uint64_t ns = nk_sim_time_ns(a.sim);
    err = nk_fs_file_open(&a.fs, &f, "/bench", NK_FS_O_WRONLY | NK_FS_O_CREAT | NK_FS_O_TRUNC);
    for (uint64_t at = 0; !err && at < bytes; at += io)
        if (nk_fs_file_write(&f, data + at, io) != (int32_t)io)
            err = -NK_EIO;
    if (!err)
        err = nk_fs_file_fsync(&f);
    int closed = nk_fs_file_close(&f);
    run->write.seconds = nk_now() - t;
    run->write.device_ms = (double)(nk_sim_time_ns(a.sim) - ns) / 1e6;
    if (!err)
        err = closed;
    t = nk_now();
    ns = nk_sim_time_ns(a.sim);
    if (!err)
        err = nk_fs_file_open(&a.fs, &f, "/bench", NK_FS_O_RDONLY);
    for (uint64_t at = 0; !err && at < bytes; at += io)
        if (nk_fs_file_read(&f, buf, io) != (int32_t)io || memcmp(buf, data + at, io))
            err = -NK_EIO;
    if (!err)
        nk_fs_file_close(&f);
    run->read.seconds = nk_now() - t;
    run->read.device_ms = (double)(nk_sim_time_ns(a.sim) - ns) / 1e6;
    free(buf);
    nk_api_close(&a);
    if (err)
        fprintf(stderr, "bench_mount: the API run failed: %s\n", nk_strerror(err));
    return err;
}

/* ----- through nandkit mount -------------------------------------------------------------- */

struct nk_daemon {
    pid_t pid;
    char stats_path[PATH_MAX];
};

static int nk_mount_start(const char *nandkit, const char *image, const char *mnt,
                          const char *stats_path, struct nk_daemon *d)
{
    snprintf(d->stats_path, sizeof d->stats_path, "%s", stats_path);
    d->pid = fork();
    if (d->pid < 0)
        return -1;
    if (d->pid == 0) {
        int fd = open(stats_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        execl(nandkit, nandkit, "mount", image, mnt, "--chip", NK_CHIP, "-f", "--stats",
              (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 400; i++) {
        struct statfs sf;
        if (statfs(mnt, &sf) == 0 && sf.f_type == NK_FUSE_SUPER_MAGIC)
            return 0;
        if (waitpid(d->pid, NULL, WNOHANG) == d->pid)
            return -1;
        usleep(10000);
    }
    return -1;
}

/* Unmounts, waits for the daemon and returns its device time in ms (< 0
 * when it failed). */
static double nk_mount_stop(const char *mnt, struct nk_daemon *d)
{
    nk_sh("fusermount3 -u '%s'", mnt);
    int status;
    waitpid(d->pid, &status, 0);
    FILE *f = fopen(d->stats_path, "r");
    double ms = -1;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "device time ");
        if (p)
            ms = strtod(p + strlen("device time "), NULL);
    }
    if (f)
        fclose(f);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

static int nk_fuse_run(const char *nandkit, const char *image, const char *mnt, const char *stats,
                       uint64_t bytes, size_t io, const uint8_t *data, struct nk_run *run)
{
    struct nk_daemon d;
    /* The cost of a session that does nothing: mount (read-only look, then
     * read-write, from the checkpoint) and unmount (checkpoint). A first
     * session leaves the checkpoint that every later one mounts from. */
    if (nk_mount_start(nandkit, image, mnt, stats, &d))
        return -1;
    nk_mount_stop(mnt, &d);
    if (nk_mount_start(nandkit, image, mnt, stats, &d))
        return -1;
    double idle = nk_mount_stop(mnt, &d);
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/bench", mnt);
    uint8_t *buf = malloc(io);
    int err = 0;

    if (nk_mount_start(nandkit, image, mnt, stats, &d))
        return -1;
    double t = nk_now();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (uint64_t at = 0; fd >= 0 && !err && at < bytes; at += io)
        if (write(fd, data + at, io) != (ssize_t)io)
            err = -1;
    if (fd < 0 || fsync(fd) || close(fd))
        err = -1;
    run->write.seconds = nk_now() - t;
    run->write.device_ms = nk_mount_stop(mnt, &d) - idle;

    if (!err && nk_mount_start(nandkit, image, mnt, stats, &d))
        err = -1;
    if (!err) {
        t = nk_now();
        fd = open(path, O_RDONLY);
        for (uint64_t at = 0; fd >= 0 && !err && at < bytes; at += io)
            if (read(fd, buf, io) != (ssize_t)io || memcmp(buf, data + at, io))
                err = -1;
        if (fd < 0 || close(fd))
            err = -1;
        run->read.seconds = nk_now() - t;
        run->read.device_ms = nk_mount_stop(mnt, &d) - idle;
    }
    free(buf);
    if (err)
        fprintf(stderr, "bench_mount: the run through the mount failed (%s)\n", strerror(errno));
    return err;
}

/* ----- report ------------------------------------------------------------------------------ */

static void nk_print(const char *how, size_t io, uint64_t bytes, const struct nk_run *r,
                     const struct nk_run *api)
{
    double mb = (double)bytes / 1e6;
    printf("%-6s %-8s %9.1f %11.1f %9.1f %11.1f", how, io >= (1u << 20) ? "1 MiB" : "4 KiB",
           mb / r->write.seconds, r->write.device_ms, mb / r->read.seconds, r->read.device_ms);
    if (api)
        printf("   %5.2fx %5.2fx", api->write.seconds ? r->write.seconds / api->write.seconds : 0,
               api->read.seconds ? r->read.seconds / api->read.seconds : 0);
    printf("\n");
}

int main(int argc, char **argv)
{
    char nandkit[PATH_MAX] = "";
    const char *dir = NULL;
    uint64_t mib = 16;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nandkit") == 0 && i + 1 < argc) {
            snprintf(nandkit, sizeof nandkit, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
            mib = strtoull(argv[++i], NULL, 0);
            if (mib == 0 || mib > 64) {
                fprintf(stderr, "bench_mount: --mib %s: 1 to 64\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_mount [--nandkit PATH] [--mib N] [--dir DIR]\n");
            return 2;
        }
    }
    if (!nandkit[0]) {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = '\0';
        snprintf(nandkit, sizeof nandkit, "%s/../tools/nandkit", dirname(self));
    }
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof tmpl, "%s/nk-bench-mount-XXXXXX", dir ? dir : "/tmp");
    char *work = mkdtemp(tmpl);
    if (!work) {
        fprintf(stderr, "bench_mount: no work directory: %s\n", strerror(errno));
        return 1;
    }
    char image[PATH_MAX + 32], mnt[PATH_MAX + 32], stats[PATH_MAX + 32];
    snprintf(image, sizeof image, "%s/fs.img", work);
    snprintf(mnt, sizeof mnt, "%s/mnt", work);
    snprintf(stats, sizeof stats, "%s/stats", work);
    mkdir(mnt, 0755);
    bool fuse = access("/dev/fuse", R_OK | W_OK) == 0 && access(nandkit, X_OK) == 0;

    uint64_t bytes = mib << 20;
    uint8_t *data = malloc(bytes);
    nk_fill(data, bytes, 7);
    static const size_t sizes[2] = {4096, 1u << 20};
    printf("FUSE layer cost: a %llu MiB file written (then fsync) and read back on a simulated "
           "%s image\n(Linux layout), through the API and through nandkit mount. MB/s = 10^6 "
           "bytes per second\nof host wall clock; device = the simulated chip's virtual time.\n\n",
           (unsigned long long)mib, NK_CHIP);
    printf("%-6s %-8s %9s %11s %9s %11s   %s\n", "path", "I/O", "write", "device", "read", "device",
           "host time FUSE/API");
    printf("%-6s %-8s %9s %11s %9s %11s   %s\n", "", "", "MB/s", "ms", "MB/s", "ms", "write  read");
    int status = 0;
    for (int s = 0; s < 2 && !status; s++) {
        struct nk_run api, through;
        memset(&api, 0, sizeof api);
        memset(&through, 0, sizeof through);
        unlink(image);
        char empty[2 * PATH_MAX];
        snprintf(empty, sizeof empty, "%s/empty", work);
        mkdir(empty, 0755);
        if (nk_sh("'%s' mkimage '%s' '%s' --chip %s --no-progress >/dev/null 2>&1", nandkit, empty,
                  image, NK_CHIP)) {
            fprintf(stderr, "bench_mount: %s mkimage failed\n", nandkit);
            status = 1;
            break;
        }
        if (nk_api_run(image, bytes, sizes[s], data, &api)) {
            status = 1;
            break;
        }
        nk_print("API", sizes[s], bytes, &api, NULL);
        if (!fuse)
            continue;
        unlink(image);
        nk_sh("'%s' mkimage '%s' '%s' --chip %s --no-progress >/dev/null 2>&1", nandkit, empty,
              image, NK_CHIP);
        if (nk_fuse_run(nandkit, image, mnt, stats, bytes, sizes[s], data, &through)) {
            status = 1;
            break;
        }
        nk_print("FUSE", sizes[s], bytes, &through, &api);
    }
    if (!fuse)
        printf("\n(no /dev/fuse or no %s: the figures through the mount are left out)\n", nandkit);
    nk_sh("fusermount3 -u -z '%s' 2>/dev/null; rm -rf '%s'", mnt, work);
    free(data);
    return status;
}
