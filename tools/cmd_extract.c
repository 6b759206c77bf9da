/* SPDX-License-Identifier: MIT */
/* nandkit extract: a YAFFS2 image's tree into a host directory. */
#define _GNU_SOURCE /* O_NOFOLLOW, *at() */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "copy_progress.h"
#include "fsimage.h"
#include "nandkit/error.h"
#include "tool.h"

/* Names or one value: at most a header chunk's bytes (16 KiB pages). */
#define TOOL_EXTRACT_XATTR_BYTES 16384

static void tool_extract_help(FILE *out)
{
    fprintf(out,
            "usage: nandkit extract IMAGE DEST_DIR [--geometry P,O,N[,B] | --chip NAME]\n"
            "                       [--layout L]\n\n"
            "Mounts the YAFFS2 file system in IMAGE read-only and recreates its tree under\n"
            "DEST_DIR (created if missing; existing entries are not overwritten): files,\n"
            "directories, symlinks (verbatim targets), hard links as hard links, and\n"
            "lost+found, FIFOs, and device nodes when run as root (otherwise, and for\n"
            "sockets, a warning). Permission bits (setuid, setgid, sticky included) and\n"
            "modification times are kept; owners too when run as root. Extended attributes\n"
            "of files and directories are set too (one the host refuses, e.g. security.*\n"
            "without privilege, is a warning). Nothing already in\n"
            "DEST_DIR is followed when it is a symbolic link: entries are created relative to\n"
            "their directory, never through a link this extraction did not create, as tar\n"
            "does by default. A file with a chunk that fails its ECC is still extracted whole,\n"
            "the unreadable bytes as zeros, and named on stderr with how many bytes could not\n"
            "be read.\n\n"
            "Options:\n" TOOL_IMAGE_HELP_READ
            "  --progress              a progress line on stderr (files, bytes), also when it\n"
            "                          is not a terminal (default: on a terminal, after a\n"
            "                          second)\n"
            "  --no-progress           no progress line\n");
}

struct tool_link_seen {
    uint32_t ino;
    char *rel_path; /* first name, relative to DEST_DIR */
};

struct tool_extract {
    struct nk_fs *fs;
    int status;
    int dest_fd;                  /* DEST_DIR */
    struct tool_link_seen *links; /* files with hard links: first name */
    size_t link_count, link_cap;
    uint8_t *buf;
    unsigned incomplete; /* files not read fully */
    struct tool_copy_progress progress;
};

/* Every entry is made relative to the file descriptor of its directory,
 * which this extraction created or opened without following a link: an
 * existing symlink in DEST_DIR is never followed (O_NOFOLLOW, O_EXCL,
 * *at() calls, fchmod/fchown/futimens on the descriptor), as tar does. */

static void tool_extract_warn(struct tool_extract *x, const char *what, const char *path, int err)
{
    fprintf(stderr, "nandkit: %s %s: %s\n", what, path, err < 0 ? nk_strerror(err) : strerror(err));
    x->status = 1;
}

static void tool_extract_times_of(const struct nk_fs_stat *st, struct timespec times[2])
{
    times[0].tv_sec = (time_t)st->atime;
    times[0].tv_nsec = 0;
    times[1].tv_sec = (time_t)st->mtime;
    times[1].tv_nsec = 0;
}

/* The extended attributes of `path` onto what `fd` is open on (before its
 * mode: user.* attributes need write permission). One the host refuses
 * (ENOTSUP: its file system has none; EPERM: security.* or trusted.* without
 * the privilege) is a warning, as a foreign owner is. */
static void tool_extract_xattrs_fd(struct tool_extract *x, const char *path, int fd,
                                   const char *host)
{
    static char names[TOOL_EXTRACT_XATTR_BYTES];
    static uint8_t value[TOOL_EXTRACT_XATTR_BYTES];
    int len = nk_fs_listxattr(x->fs, path, names, sizeof names);
    if (len < 0) {
        tool_extract_warn(x, "cannot read the extended attributes of", path, len);
        return;
    }
    for (int at = 0; at < len; at += (int)strlen(names + at) + 1) {
        const char *name = names + at;
        int n = nk_fs_getxattr(x->fs, path, name, value, sizeof value);
        if (n < 0) {
            tool_extract_warn(x, "cannot read an extended attribute of", path, n);
            continue;
        }
        if (fsetxattr(fd, name, value, (size_t)n, 0) == 0)
            continue;
        if (errno == ENOTSUP || errno == EPERM)
            fprintf(stderr, "nandkit: warning: cannot set extended attribute %s of %s: %s\n",
                    name, host, strerror(errno));
        else
            tool_extract_warn(x, "cannot set an extended attribute of", host, errno);
    }
}

/* Owner, mode and times of what `fd` is open on. */
static void tool_extract_attrs_fd(struct tool_extract *x, int fd, const char *host,
                                  const struct nk_fs_stat *st)
{
    if (geteuid() == 0 && fchown(fd, st->uid, st->gid) != 0)
        fprintf(stderr, "nandkit: warning: cannot set the owner of %s\n", host);
    if (fchmod(fd, st->mode & 07777u) != 0)
        tool_extract_warn(x, "cannot set the mode of", host, errno);
    struct timespec times[2];
    tool_extract_times_of(st, times);
    futimens(fd, times);
}

/* Owner, mode (not for symlinks) and times of `name` in `dir_fd`, never
 * through a link. */
static void tool_extract_attrs_at(struct tool_extract *x, int dir_fd, const char *name,
                                  const char *host, const struct nk_fs_stat *st, bool symlink)
{
    if (geteuid() == 0 && fchownat(dir_fd, name, st->uid, st->gid, AT_SYMLINK_NOFOLLOW) != 0)
        fprintf(stderr, "nandkit: warning: cannot set the owner of %s\n", host);
    if (!symlink && fchmodat(dir_fd, name, st->mode & 07777u, AT_SYMLINK_NOFOLLOW) != 0)
        tool_extract_warn(x, "cannot set the mode of", host, errno);
    struct timespec times[2];
    tool_extract_times_of(st, times);
    utimensat(dir_fd, name, times, AT_SYMLINK_NOFOLLOW);
}

static const char *tool_extract_linked(struct tool_extract *x, uint32_t ino)
{
    for (size_t i = 0; i < x->link_count; i++) {
        if (x->links[i].ino == ino)
            return x->links[i].rel_path;
    }
    return NULL;
}

static void tool_extract_remember(struct tool_extract *x, uint32_t ino, const char *path)
{
    if (x->link_count == x->link_cap) {
        size_t cap = x->link_cap ? 2 * x->link_cap : 16;
        struct tool_link_seen *grown = realloc(x->links, cap * sizeof *grown);
        if (!grown)
            return;
        x->links = grown;
        x->link_cap = cap;
    }
    x->links[x->link_count].ino = ino;
    x->links[x->link_count].rel_path = strdup(path + 1); /* image paths start with '/' */
    x->link_count++;
}

static void tool_extract_file(struct tool_extract *x, const char *path, int dir_fd,
                              const char *name, const char *host, const struct nk_fs_stat *st)
{
    if (st->nlink > 1) {
        const char *first = tool_extract_linked(x, st->ino);
        if (first) {
            if (linkat(x->dest_fd, first, dir_fd, name, 0) != 0)
                tool_extract_warn(x, "cannot link", host, errno);
            return;
        }
    }
    if (st->at_risk) {
        tool_at_risk(path);
        x->status = 1;
    }
    struct nk_fs_file file;
    int err = nk_fs_file_open(x->fs, &file, path, NK_FS_O_RDONLY);
    if (err) {
        tool_extract_warn(x, "cannot open", path, err);
        return;
    }
    int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        tool_extract_warn(x, "cannot create", host, errno);
        nk_fs_file_close(&file);
        return;
    }
    /* Read on past a chunk that fails its ECC: its bytes become zeros, and
     * the file is reported as not read fully instead of left short. */
    uint64_t offset = 0, unreadable = 0, first_bad = 0;
    bool write_failed = false;
    while (offset < st->size && !write_failed) {
        size_t want = st->size - offset < 65536 ? (size_t)(st->size - offset) : 65536;
        int32_t n = nk_fs_file_pread(&file, x->buf, want, offset);
        if (n == 0)
            break;
        if (n < 0) {
            /* Find the unreadable part in 512-byte steps. */
            want = want < 512 ? want : 512;
            n = nk_fs_file_pread(&file, x->buf, want, offset);
            if (n < 0) {
                if (!unreadable)
                    first_bad = offset;
                unreadable += want;
                memset(x->buf, 0, want);
                n = (int32_t)want;
            }
        }
        if (write(fd, x->buf, (size_t)n) != n) {
            tool_extract_warn(x, "cannot write", host, errno);
            write_failed = true;
        }
        offset += (uint64_t)n;
        tool_copy_progress_add(&x->progress, (uint64_t)n, 0);
    }
    tool_copy_progress_add(&x->progress, 0, 1);
    if (unreadable) {
        fprintf(stderr,
                "nandkit: %s: %llu of %llu bytes unreadable (uncorrectable ECC), the first at "
                "byte %llu; written as zeros\n",
                path, (unsigned long long)unreadable, (unsigned long long)st->size,
                (unsigned long long)first_bad);
        x->status = 1;
        x->incomplete++;
    }
    nk_fs_file_close(&file);
    tool_extract_xattrs_fd(x, path, fd, host);
    tool_extract_attrs_fd(x, fd, host, st);
    if (close(fd) != 0)
        tool_extract_warn(x, "cannot write", host, errno);
    if (st->nlink > 1)
        tool_extract_remember(x, st->ino, path);
}

/* Linux's device number encoding as YAFFS2 stores rdev (old_encode_dev
 * for small numbers, new_encode_dev beyond). */
static dev_t tool_extract_rdev(uint32_t rdev)
{
    return makedev((rdev & 0xfff00u) >> 8, (rdev & 0xffu) | ((rdev >> 12) & 0xfff00u));
}

static void tool_extract_special(struct tool_extract *x, const char *path, int dir_fd,
                                 const char *name, const char *host, const struct nk_fs_stat *st)
{
    uint32_t format = st->mode & NK_FS_S_IFMT;
    int made;
    if (format == NK_FS_S_IFIFO) {
        made = mkfifoat(dir_fd, name, 0600);
    } else if ((format == NK_FS_S_IFCHR || format == NK_FS_S_IFBLK) && geteuid() == 0) {
        made = mknodat(dir_fd, name, (mode_t)(format | 0600u), tool_extract_rdev(st->rdev));
    } else {
        fprintf(stderr, "nandkit: warning: %s is a %s (mode 0%o): skipped\n", path,
                format == NK_FS_S_IFSOCK ? "socket" : "device node (root only)", st->mode);
        return;
    }
    if (made != 0) {
        tool_extract_warn(x, "cannot create", host, errno);
        return;
    }
    tool_extract_attrs_at(x, dir_fd, name, host, st, false);
}

static int tool_extract_compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void tool_extract_dir(struct tool_extract *x, const char *path, int dir_fd, const char *host,
                             unsigned depth);

static void tool_extract_entry(struct tool_extract *x, const char *path, int dir_fd,
                               const char *name, const char *host, unsigned depth)
{
    struct nk_fs_stat st;
    int err = nk_fs_lstat(x->fs, path, &st);
    if (err) {
        tool_extract_warn(x, "cannot stat", path, err);
        return;
    }
    switch (st.type) {
    case NK_FS_TYPE_DIR: {
        if (mkdirat(dir_fd, name, 0700) != 0 && errno != EEXIST) {
            tool_extract_warn(x, "cannot create", host, errno);
            return;
        }
        /* An existing directory is used; a symlink in its place is not followed. */
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            tool_extract_warn(x, "cannot create", host,
                              errno == ELOOP ? ENOTDIR : errno); /* a link is not a directory */
            return;
        }
        tool_extract_dir(x, path, fd, host, depth + 1);
        /* Mode and times last: a read-only directory must still take its
         * children, and adding them would change its mtime. */
        tool_extract_xattrs_fd(x, path, fd, host);
        tool_extract_attrs_fd(x, fd, host, &st);
        close(fd);
        break;
    }
    case NK_FS_TYPE_SYMLINK: {
        char target[NK_FS_ALIAS_MAX + 1];
        err = nk_fs_readlink(x->fs, path, target, sizeof target);
        if (err < 0) {
            tool_extract_warn(x, "cannot read link", path, err);
            return;
        }
        if (symlinkat(target, dir_fd, name) != 0) {
            tool_extract_warn(x, "cannot create", host, errno);
            return;
        }
        tool_extract_attrs_at(x, dir_fd, name, host, &st, true);
        break;
    }
    case NK_FS_TYPE_FILE:
    case NK_FS_TYPE_HARDLINK:
        tool_extract_file(x, path, dir_fd, name, host, &st);
        break;
    default:
        tool_extract_special(x, path, dir_fd, name, host, &st);
        break;
    }
}

/* Deeper trees only come from corrupted images; stop before the stack does. */
#define TOOL_EXTRACT_MAX_DEPTH 256

static void tool_extract_dir(struct tool_extract *x, const char *path, int dir_fd, const char *host,
                             unsigned depth)
{
    if (depth > TOOL_EXTRACT_MAX_DEPTH) {
        fprintf(stderr, "nandkit: %s: more than %d directory levels, not extracted\n", path,
                TOOL_EXTRACT_MAX_DEPTH);
        x->status = 1;
        return;
    }
    struct nk_fs_dir dir;
    int err = nk_fs_dir_open(x->fs, &dir, path);
    if (err) {
        tool_extract_warn(x, "cannot list", path, err);
        return;
    }
    size_t count = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    struct nk_fs_dirent entry;
    while (names && (err = nk_fs_dir_read(&dir, &entry)) != 0) {
        if (err < 0) {
            tool_extract_warn(x, "unreadable entry in", path, err);
            continue;
        }
        if (count == cap) {
            cap *= 2;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[count] = strdup(entry.name);
        if (names[count])
            count++;
    }
    nk_fs_dir_close(&dir);
    if (!names) {
        tool_extract_warn(x, "out of memory listing", path, ENOMEM);
        return;
    }
    qsort(names, count, sizeof *names, tool_extract_compare);
    for (size_t i = 0; i < count; i++) {
        /* Whole paths, however long: they name entries in messages only. */
        char *child = tool_path_dup(path, names[i]);
        char *host_child = tool_path_dup(host, names[i]);
        if (child && host_child)
            tool_extract_entry(x, child, dir_fd, names[i], host_child, depth);
        else
            tool_extract_warn(x, "out of memory extracting", path, ENOMEM);
        free(child);
        free(host_child);
        free(names[i]);
    }
    free(names);
}

static int tool_extract_run(int argc, char **argv)
{
    enum { OPT_PROGRESS = TOOL_OPT_FIRST_FREE, OPT_NO_PROGRESS };
    static const struct option options[] = {TOOL_IMAGE_LONG_OPTIONS,
                                            {"progress", no_argument, NULL, OPT_PROGRESS},
                                            {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
                                            {NULL, 0, NULL, 0}};
    struct tool_image_opts opts;
    tool_image_opts_init(&opts);
    opts.reads_only = true;
    enum tool_copy_progress_mode progress = TOOL_COPY_PROGRESS_AUTO;
    int opt;
    optind = 1;
    while ((opt = tool_getopt(argc, argv, "", options, &opts, "extract")) > 0)
        progress = opt == OPT_PROGRESS ? TOOL_COPY_PROGRESS_ON : TOOL_COPY_PROGRESS_OFF;
    if (opt < 0)
        return -opt;
    if (argc - optind != 2)
        return tool_fail("extract needs IMAGE and DEST_DIR (see nandkit extract --help)");
    opts.path = argv[optind];
    const char *dest = argv[optind + 1];

    struct tool_fs t;
    int status = tool_fs_open(&t, &opts, NULL, NULL);
    if (status)
        return status;
    if (mkdir(dest, 0755) != 0 && errno != EEXIST) {
        tool_fs_close(&t);
        return tool_fail("cannot create %s: %s", dest, strerror(errno));
    }
    /* DEST_DIR itself is the user's choice and may be a link to a directory. */
    int dest_fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dest_fd < 0) {
        tool_fs_close(&t);
        return tool_fail("DEST_DIR %s: %s", dest,
                         errno == ENOTDIR ? "not a directory" : strerror(errno));
    }
    struct tool_extract x = {.fs = &t.fs, .dest_fd = dest_fd, .buf = malloc(65536)};
    tool_copy_progress_begin(&x.progress, "extract", progress, 0);
    if (x.buf)
        tool_extract_dir(&x, "/", dest_fd, dest, 0);
    else
        x.status = tool_error("out of memory");
    tool_copy_progress_end(&x.progress);
    if (x.incomplete)
        fprintf(stderr, "nandkit: %u file(s) could not be read fully (see above)\n", x.incomplete);
    if (tool_fs_damage(&t) && !x.status)
        x.status = 1;
    close(dest_fd);
    for (size_t i = 0; i < x.link_count; i++)
        free(x.links[i].rel_path);
    free(x.links);
    free(x.buf);
    tool_fs_close(&t);
    return x.status;
}

const struct tool_command tool_cmd_extract = {
    .name = "extract",
    .summary = "copy a YAFFS2 image's tree into a host directory",
    .run = tool_extract_run,
    .help = tool_extract_help,
};
