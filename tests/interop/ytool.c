/*
 * nk_yaffs2: YAFFS2 Direct, built from the YAFFS2 sources handed to CMake,
 * over a nandkit image (ydrv.c), for the interoperability tests
 * (tests/interop/interop.py).
 *
 *   nk_yaffs2 walk  IMAGE OUTDIR [options]   mount, list every object as one JSON
 *                                            line on stdout, copy file bytes to OUTDIR
 *   nk_yaffs2 apply IMAGE SCRIPT [options]   mount, run SCRIPT's operations, unmount
 *
 * options: --geometry PAGE,OOB,PAGES_PER_BLOCK,BLOCKS (required)
 *          --layout linux|mkyaffs2|inband   --checkpoint on|off (default on)
 *          --cut N [--cut-data BYTES] [--cut-oob all|none|tags]: power is lost in
 *          the N-th program or erase (exit status 3, the image as the cut left it)
 *
 * SCRIPT, one operation a line (paths inside the file system, no spaces):
 *   put HOSTFILE PATH MODE | trunc PATH SIZE | rm PATH | rmdir PATH | mkdir PATH MODE |
 *   mv FROM TO | ln EXISTING NEW | symlink TARGET PATH | chmod PATH MODE | remount |
 *   gc ROUNDS | sync | setxattr PATH NAME HEXVALUE (- for empty) | rmxattr PATH NAME
 * An operation that fails prints "op LINE failed: ..." and the run goes on (exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "yportenv.h"
#include "yaffs_guts.h"
#include "yaffsfs.h"

#include "ydrv.h"
#include "yglue.h"

#define MNT "/y"

static struct ydrv drv;
static struct yaffs_dev dev;

static void usage(void)
{
    fprintf(stderr, "usage: nk_yaffs2 walk|apply IMAGE OUT|SCRIPT --geometry P,O,N,B "
                    "[--layout L] [--checkpoint on|off] [--cut N [--cut-data B] "
                    "[--cut-oob all|none|tags]]\n");
    exit(2);
}

static const char *full(const char *path, char *buf, size_t size)
{
    if (snprintf(buf, size, "%s%s", MNT, strcmp(path, "/") == 0 ? "" : path) >= (int)size) {
        fprintf(stderr, "nk_yaffs2: path too long: %s\n", path);
        exit(2);
    }
    return buf;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7F)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int mkdirs(const char *path)
{
    char buf[8400];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(buf, 0755);
            *p = '/';
        }
    }
    return 0;
}

static int failures;

/* `,"xattrs":{"NAME":"HEX",...}` of the object at YAFFS2 path `y`, when it has any. */
static void print_xattrs(const char *y)
{
    static char names[16384];
    static unsigned char value[16384];
    int len = yaffs_llistxattr(y, names, sizeof names);
    if (len < 0) {
        printf(",\"xattr_errno\":%d", yglue_last_error());
        return;
    }
    if (len == 0)
        return;
    printf(",\"xattrs\":{");
    for (int at = 0; at < len; at += (int)strlen(names + at) + 1) {
        int n = yaffs_lgetxattr(y, names + at, value, sizeof value);
        printf("%s", at ? "," : "");
        json_str(stdout, names + at);
        if (n < 0) {
            printf(":null");
            continue;
        }
        printf(":\"");
        for (int i = 0; i < n; i++)
            printf("%02x", value[i]);
        printf("\"");
    }
    printf("}");
}

/* Lists `path` (inside the file system) and everything below it. */
static void walk(const char *path, const char *out)
{
    char y[4096];
    yaffs_DIR *dir = yaffs_opendir(full(path, y, sizeof y));
    if (!dir) {
        printf("{\"error\":\"opendir\",\"path\":");
        json_str(stdout, path);
        printf(",\"errno\":%d}\n", yglue_last_error());
        failures++;
        return;
    }
    struct yaffs_dirent *e;
    char (*names)[260] = malloc(1024 * sizeof *names);
    if (!names)
        abort();
    int n = 0;
    while ((e = yaffs_readdir(dir)) != NULL && n < 1024)
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    yaffs_closedir(dir);
    for (int i = 0; i < n; i++) {
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") == 0 ? "" : path, names[i]);
        struct yaffs_stat st;
        if (yaffs_lstat(full(child, y, sizeof y), &st) != 0) {
            printf("{\"error\":\"lstat\",\"path\":");
            json_str(stdout, child);
            printf(",\"errno\":%d}\n", yglue_last_error());
            failures++;
            continue;
        }
        const char *type = "special";
        switch (st.st_mode & S_IFMT) {
        case S_IFREG: type = "file"; break;
        case S_IFDIR: type = "dir"; break;
        case S_IFLNK: type = "symlink"; break;
        }
        printf("{\"path\":");
        json_str(stdout, child);
        printf(",\"type\":\"%s\",\"mode\":\"%o\",\"size\":%lld,\"nlink\":%d,\"ino\":%d,"
               "\"uid\":%d,\"gid\":%d",
               type, st.st_mode & 07777, (long long)st.st_size, st.st_nlink, st.st_ino,
               st.st_uid, st.st_gid);
        if ((st.st_mode & S_IFMT) == S_IFLNK) {
            char target[512];
            memset(target, 0, sizeof target);
            if (yaffs_readlink(y, target, sizeof target - 1) != 0)
                printf(",\"readlink_errno\":%d", yglue_last_error());
            printf(",\"target\":");
            json_str(stdout, target);
        }
        if ((st.st_mode & S_IFMT) != S_IFLNK)
            print_xattrs(y);
        if ((st.st_mode & S_IFMT) == S_IFREG) {
            char host[8400];
            snprintf(host, sizeof host, "%s/data%s", out, child);
            mkdirs(host);
            int fd = yaffs_open(y, O_RDONLY, 0);
            if (fd < 0) {
                printf(",\"read_errno\":%d", yglue_last_error());
            } else {
                FILE *f = fopen(host, "wb");
                static char buf[65536];
                long long total = 0;
                int r;
                while ((r = yaffs_read(fd, buf, sizeof buf)) > 0) {
                    fwrite(buf, 1, (size_t)r, f);
                    total += r;
                }
                if (r < 0)
                    printf(",\"read_errno\":%d", yglue_last_error());
                fclose(f);
                yaffs_close(fd);
                printf(",\"read\":%lld", total);
            }
        }
        printf("}\n");
        if ((st.st_mode & S_IFMT) == S_IFDIR)
            walk(child, out);
    }
    free(names);
}

static int do_mount(void)
{
    char y[64];
    if (yaffs_mount(full("/", y, sizeof y)) != 0) {
        fprintf(stderr, "nk_yaffs2: yaffs_mount failed: %d\n", yglue_last_error());
        return -1;
    }
    return 0;
}

static int do_unmount(void)
{
    char y[64];
    if (yaffs_unmount(full("/", y, sizeof y)) != 0) {
        fprintf(stderr, "nk_yaffs2: yaffs_unmount failed: %d\n", yglue_last_error());
        return -1;
    }
    return 0;
}

static int put(const char *host, const char *path, unsigned mode)
{
    FILE *f = fopen(host, "rb");
    if (!f)
        return -ENOENT;
    char y[4096];
    int fd = yaffs_open(full(path, y, sizeof y), O_CREAT | O_TRUNC | O_WRONLY, mode);
    if (fd < 0) {
        fclose(f);
        return -yglue_last_error();
    }
    static char buf[65536];
    size_t n;
    int err = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (yaffs_write(fd, buf, (unsigned)n) != (int)n) {
            err = -yglue_last_error();
            break;
        }
    fclose(f);
    if (yaffs_close(fd) != 0 && !err)
        err = -yglue_last_error();
    return err;
}

static int apply_line(char *line)
{
    char *argv[5] = {0};
    int argc = 0;
    for (char *tok = strtok(line, " \t\n"); tok && argc < 5; tok = strtok(NULL, " \t\n"))
        argv[argc++] = tok;
    if (argc == 0 || argv[0][0] == '#')
        return 0;
    char a[4096], b[4096];
    const char *op = argv[0];
    int r;
#define NEED(n) do { if (argc != (n) + 1) return -EINVAL; } while (0)
    if (!strcmp(op, "put")) {
        NEED(3);
        return put(argv[1], argv[2], (unsigned)strtoul(argv[3], NULL, 8));
    } else if (!strcmp(op, "trunc")) {
        NEED(2);
        r = yaffs_truncate(full(argv[1], a, sizeof a), strtoll(argv[2], NULL, 0));
    } else if (!strcmp(op, "rm")) {
        NEED(1);
        r = yaffs_unlink(full(argv[1], a, sizeof a));
    } else if (!strcmp(op, "rmdir")) {
        NEED(1);
        r = yaffs_rmdir(full(argv[1], a, sizeof a));
    } else if (!strcmp(op, "mkdir")) {
        NEED(2);
        r = yaffs_mkdir(full(argv[1], a, sizeof a), (mode_t)strtoul(argv[2], NULL, 8));
    } else if (!strcmp(op, "mv")) {
        NEED(2);
        r = yaffs_rename(full(argv[1], a, sizeof a), full(argv[2], b, sizeof b));
    } else if (!strcmp(op, "ln")) {
        NEED(2);
        r = yaffs_link(full(argv[1], a, sizeof a), full(argv[2], b, sizeof b));
    } else if (!strcmp(op, "symlink")) {
        NEED(2);
        r = yaffs_symlink(argv[1], full(argv[2], b, sizeof b));
    } else if (!strcmp(op, "chmod")) {
        NEED(2);
        r = yaffs_chmod(full(argv[1], a, sizeof a), (mode_t)strtoul(argv[2], NULL, 8));
    } else if (!strcmp(op, "remount")) {
        NEED(0);
        r = do_unmount() || do_mount() ? -1 : 0;
        return r ? -EIO : 0;
    } else if (!strcmp(op, "gc")) {
        NEED(1);
        long rounds = strtol(argv[1], NULL, 0);
        for (long i = 0; i < rounds; i++)
            yaffs_do_background_gc(full("/", a, sizeof a), 2);
        return 0;
    } else if (!strcmp(op, "setxattr")) {
        NEED(3);
        unsigned char value[4096];
        size_t n = strlen(argv[3]) / 2;
        if (n > sizeof value)
            return -EINVAL;
        for (size_t i = 0; i < n; i++)
            sscanf(argv[3] + 2 * i, "%2hhx", &value[i]);
        if (!strcmp(argv[3], "-"))
            n = 0;
        r = yaffs_lsetxattr(full(argv[1], a, sizeof a), argv[2], value, (int)n, 0);
    } else if (!strcmp(op, "rmxattr")) {
        NEED(2);
        r = yaffs_lremovexattr(full(argv[1], a, sizeof a), argv[2]);
    } else if (!strcmp(op, "sync")) {
        NEED(0);
        r = yaffs_sync(full("/", a, sizeof a));
    } else {
        return -EINVAL;
    }
    return r == 0 ? 0 : -yglue_last_error();
}

int main(int argc, char **argv)
{
    if (argc < 4)
        usage();
    const char *cmd = argv[1], *image = argv[2], *arg = argv[3];
    unsigned page = 0, oob = 0, ppb = 0, blocks = 0;
    enum ydrv_layout layout = YDRV_LINUX;
    int checkpoint = 1;
    unsigned long long cut = 0;
    unsigned cut_data = 0;
    enum ydrv_cut_oob cut_oob = YDRV_CUT_OOB_ALL;
    for (int i = 4; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        i++;
        if (!strcmp(o, "--geometry")) {
            if (sscanf(v, "%u,%u,%u,%u", &page, &oob, &ppb, &blocks) != 4)
                usage();
        } else if (!strcmp(o, "--layout")) {
            layout = !strcmp(v, "linux") ? YDRV_LINUX : !strcmp(v, "mkyaffs2") ? YDRV_MKYAFFS2
                     : !strcmp(v, "inband")                                 ? YDRV_INBAND
                                                                             : (usage(), YDRV_LINUX);
        } else if (!strcmp(o, "--checkpoint")) {
            checkpoint = !strcmp(v, "on");
        } else if (!strcmp(o, "--cut")) {
            cut = strtoull(v, NULL, 0);
        } else if (!strcmp(o, "--cut-data")) {
            cut_data = (unsigned)strtoul(v, NULL, 0);
        } else if (!strcmp(o, "--cut-oob")) {
            cut_oob = !strcmp(v, "none") ? YDRV_CUT_OOB_NONE
                      : !strcmp(v, "tags") ? YDRV_CUT_OOB_TAGS
                                           : YDRV_CUT_OOB_ALL;
        } else {
            usage();
        }
    }
    if (!page || !ppb || !blocks)
        usage();
    int err = ydrv_open(&drv, image, layout, page, oob, ppb, blocks);
    if (err) {
        fprintf(stderr, "nk_yaffs2: %s: %s\n", image, strerror(-err));
        return 1;
    }
    ydrv_install(&drv, &dev, MNT, checkpoint);
    yaffs_add_device(&dev);
    if (do_mount() != 0)
        return 1;
    if (!strcmp(cmd, "walk")) {
        mkdir(arg, 0755);
        struct yaffs_stat st;
        char y[64];
        if (yaffs_lstat(full("/", y, sizeof y), &st) == 0)
            printf("{\"path\":\"/\",\"type\":\"dir\",\"mode\":\"%o\",\"nlink\":%d,\"ino\":%d}\n",
                   st.st_mode & 07777, st.st_nlink, st.st_ino);
        walk("/", arg);
        /* A read-only look: the flash is not written back. */
        return failures ? 1 : 0;
    }
    if (strcmp(cmd, "apply") != 0)
        usage();
    FILE *script = fopen(arg, "r");
    if (!script) {
        fprintf(stderr, "nk_yaffs2: %s: %s\n", arg, strerror(errno));
        return 1;
    }
    drv.cut_at = cut;
    drv.cut_data = cut_data;
    drv.cut_oob = cut_oob;
    char line[8192];
    int lineno = 0;
    while (fgets(line, sizeof line, script)) {
        lineno++;
        char copy[8192];
        snprintf(copy, sizeof copy, "%s", line);
        copy[strcspn(copy, "\n")] = 0;
        drv.running = copy;
        int r = apply_line(line);
        drv.running = NULL;
        if (r != 0) {
            printf("op %d failed: %s: %s\n", lineno, copy, strerror(-r));
            failures++;
        }
    }
    fclose(script);
    if (do_unmount() != 0)
        failures++;
    err = ydrv_save(&drv);
    printf("ops %llu programs %llu erases %llu\n", (unsigned long long)drv.ops,
           (unsigned long long)drv.programs, (unsigned long long)drv.erases);
    ydrv_close(&drv);
    return err ? 1 : failures ? 1 : 0;
}
