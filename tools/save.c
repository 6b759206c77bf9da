/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE, copy_file_range() */
#include "save.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsimage.h"
#include "lock.h"
#include "nandkit/sim.h"
#include "tool.h"

static char *tool_save_concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

/* Copies [from, to) of `in` to the same offsets of `out`. */
static int tool_save_copy_range(int in, int out, off_t from, off_t to)
{
    static char buf[1 << 16];
    while (from < to) {
        size_t want = (size_t)(to - from) < sizeof buf ? (size_t)(to - from) : sizeof buf;
        off_t in_off = from, out_off = from;
        ssize_t n = copy_file_range(in, &in_off, out, &out_off, want, 0);
        if (n < 0 &&
            (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
            n = pread(in, buf, want, from);
            if (n > 0 && pwrite(out, buf, (size_t)n, from) != n)
                return -1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* the source shrank */
            return -1;
        }
        from += n;
    }
    return 0;
}

/* Copies `in` (of `size` bytes) into `out`, leaving its holes holes. */
static int tool_save_copy_sparse(int in, int out, off_t size)
{
    off_t pos = 0;
    while (pos < size) {
        off_t data = lseek(in, pos, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break;    /* only a hole is left */
        if (data < 0) /* no hole support: copy everything */
            return tool_save_copy_range(in, out, pos, size);
        off_t hole = lseek(in, data, SEEK_HOLE);
        if (hole < 0 || hole > size)
            hole = size;
        if (tool_save_copy_range(in, out, data, hole))
            return -1;
        pos = hole;
    }
    return ftruncate(out, size);
}

/* One line for a copy of the image that failed with `err`: a full disk
 * says so in words. */
static int tool_save_copy_failed(const char *target, int err)
{
    if (err == ENOSPC || err == EDQUOT)
        return tool_error("cannot write %s: no space left on the host disk beside it (%s)", target,
                          strerror(err));
    return tool_error("cannot write %s: its temporary copy failed: %s", target, strerror(err));
}

/* Copies the file `from` to the new file `to` (created here). */
static int tool_save_copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return tool_error("cannot read %s: %s", from, strerror(errno));
    struct stat st;
    if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
        close(in);
        return tool_error("cannot copy %s: not a regular file", from);
    }
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
    if (out < 0) {
        int e = errno;
        close(in);
        return tool_error("cannot create %s: %s", to, strerror(e));
    }
    int status = 0;
    if (tool_save_copy_sparse(in, out, st.st_size))
        status = tool_error("cannot copy %s to %s: %s", from, to, strerror(errno));
    if (close(out) && !status)
        status = tool_error("cannot write %s: %s", to, strerror(errno));
    close(in);
    return status;
}

/* Removes TARGET.nktmp-XXXXXX files (and their sidecars) that no process
 * holds locked: what a command killed while saving leaves. Called with
 * TARGET locked exclusively, so no command is making one meanwhile. */
static void tool_save_remove_stale(const char *target)
{
    char *dir_copy = strdup(target), *base_copy = strdup(target);
    const char *dir_name = dir_copy ? dirname(dir_copy) : NULL;
    DIR *dir = dir_name && base_copy ? opendir(dir_name) : NULL;
    if (dir) {
        const char *base = basename(base_copy);
        char prefix[NAME_MAX + 16];
        snprintf(prefix, sizeof prefix, "%s.nktmp-", base);
        size_t prefix_len = strlen(prefix);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            size_t len = strlen(e->d_name);
            if (strncmp(e->d_name, prefix, prefix_len) != 0 || len < prefix_len + 6)
                continue;
            char *path = tool_path_dup(dir_name, e->d_name);
            if (path && len > prefix_len + 6) {
                /* The sidecar of a temporary image that is gone. */
                const char *rest = e->d_name + prefix_len + 6;
                struct stat st;
                path[strlen(path) - strlen(rest)] = '\0';
                bool orphan = (strcmp(rest, ".nksim") == 0 || strcmp(rest, ".nksim.tmp") == 0) &&
                              lstat(path, &st) != 0 && errno == ENOENT;
                free(path);
                path = orphan ? tool_path_dup(dir_name, e->d_name) : NULL;
                if (path)
                    unlink(path);
            } else if (path && tool_lock_is_stale(path)) {
                char sidecar[4096], sidecar_tmp[4096 + 8];
                if (nk_sim_sidecar_path(path, sidecar, sizeof sidecar)) {
                    snprintf(sidecar_tmp, sizeof sidecar_tmp, "%s.tmp", sidecar);
                    unlink(sidecar_tmp);
                    unlink(sidecar);
                }
                unlink(path);
            }
            free(path);
        }
        closedir(dir);
    }
    free(dir_copy);
    free(base_copy);
}

int tool_save_begin(struct tool_save *save, const char *target, bool copy)
{
    memset(save, 0, sizeof *save);
    if (tool_is_special_file(target))
        return tool_fail("%s is not a regular file: an image is written to a file, or to "
                         "/dev/mtdN through its own backend",
                         target);
    /* A symlink to the image: the image it names is replaced, beside it. */
    struct stat link;
    char *real = lstat(target, &link) == 0 && S_ISLNK(link.st_mode) ? realpath(target, NULL) : NULL;
    save->name = strdup(target);
    save->target = real ? real : strdup(target);
    save->tmp = save->target ? tool_save_concat(save->target, ".nktmp-XXXXXX") : NULL;
    if (!save->name || !save->target || !save->tmp) {
        tool_save_abort(save);
        return tool_error("out of memory");
    }
    int status = tool_lock(target, true);
    if (status) {
        tool_save_abort(save);
        return status;
    }
    struct stat st;
    bool exists = stat(save->target, &st) == 0;
    if (exists)
        tool_save_remove_stale(save->target);
    int fd = mkostemp(save->tmp, O_CLOEXEC);
    if (fd < 0) {
        status =
            tool_error("cannot write %s: no temporary file beside it: %s", target, strerror(errno));
        free(save->tmp);
        save->tmp = NULL;
        tool_save_abort(save);
        return status;
    }
    /* Locked at once, so that no other command takes it for a stale one. */
    tool_lock(save->tmp, true);
    mode_t mask = umask(0);
    umask(mask);
    save->mode = 0666 & ~mask;
    if (copy && exists) {
        /* The same permissions and (when allowed) owner as the file it
         * replaces; the mode is set at the commit, so that the copy stays
         * writable while the command works on it. */
        save->mode = st.st_mode & 07777;
        if (fchmod(fd, 0600) || (fchown(fd, st.st_uid, st.st_gid) && errno != EPERM))
            status = tool_error("cannot set the mode of %s: %s", save->tmp, strerror(errno));
        int in = status ? -1 : open(save->target, O_RDONLY | O_CLOEXEC);
        if (!status && in < 0)
            status = tool_error("cannot read %s: %s", target, strerror(errno));
        if (!status && tool_save_copy_sparse(in, fd, st.st_size))
            status = tool_save_copy_failed(target, errno);
        if (in >= 0)
            close(in);
    } else if (fchmod(fd, 0600)) {
        status = tool_error("cannot set the mode of %s: %s", save->tmp, strerror(errno));
    }
    if (close(fd) && !status)
        status = tool_save_copy_failed(target, errno);
    char from[4096], to[4096];
    if (!status && copy && nk_sim_sidecar_path(save->target, from, sizeof from) &&
        nk_sim_sidecar_path(save->tmp, to, sizeof to) && access(from, F_OK) == 0) {
        save->sidecar = true;
        status = tool_save_copy_file(from, to);
    }
    if (status)
        tool_save_abort(save);
    return status;
}

static int tool_save_fsync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int err = fsync(fd);
    if (close(fd))
        err = -1;
    return err;
}

int tool_save_commit(struct tool_save *save)
{
    char from[4096], to[4096];
    bool sidecar = nk_sim_sidecar_path(save->tmp, from, sizeof from) &&
                   nk_sim_sidecar_path(save->target, to, sizeof to) && access(from, F_OK) == 0;
    int status = 0;
    if (chmod(save->tmp, save->mode))
        status = tool_error("cannot set the mode of %s: %s", save->tmp, strerror(errno));
    else if (tool_save_fsync_path(save->tmp, O_RDONLY) ||
             (sidecar && tool_save_fsync_path(from, O_RDONLY)))
        status = tool_save_copy_failed(save->name, errno);
    else if (rename(save->tmp, save->target))
        status = tool_error("cannot save %s: renaming %s over it failed: %s", save->name, save->tmp,
                            strerror(errno));
    else if (sidecar && rename(from, to))
        status = tool_error("%s is written, but its sidecar is not: cannot rename %s to %s: %s",
                            save->name, from, to, strerror(errno));
    if (!status) {
        /* The renames themselves last only once the directory is on disk. */
        char *copy = strdup(save->target);
        if (copy) {
            tool_save_fsync_path(dirname(copy), O_RDONLY | O_DIRECTORY);
            free(copy);
        }
        free(save->tmp);
        save->tmp = NULL;
    }
    tool_save_abort(save);
    return status;
}

void tool_save_abort(struct tool_save *save)
{
    if (save->tmp) {
        char sidecar[4096], tmp_sidecar[4096 + 8];
        unlink(save->tmp);
        if (nk_sim_sidecar_path(save->tmp, sidecar, sizeof sidecar)) {
            unlink(sidecar);
            snprintf(tmp_sidecar, sizeof tmp_sidecar, "%s.tmp", sidecar);
            unlink(tmp_sidecar);
        }
    }
    free(save->tmp);
    free(save->target);
    free(save->name);
    memset(save, 0, sizeof *save);
}

bool tool_is_special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* A device or FIFO named as the output is written in place: renaming a
 * temporary file over /dev/null would replace the device itself. */
static int tool_save_write_in_place(const char *label, const char *path, const void *data,
                                    size_t len)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return tool_error("cannot write %s'%s': %s", label, path, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n;
        left -= (size_t)n;
    }
    int saved = errno;
    close(fd);
    if (left)
        return tool_error("cannot write %s'%s': %s", label, path, strerror(saved));
    return 0;
}

int tool_write_file(const char *label, const char *path, const void *data, size_t len)
{
    if (tool_is_special_file(path))
        return tool_save_write_in_place(label, path, data, len);
    char *tmp = tool_save_concat(path, ".nktmp-XXXXXX");
    if (!tmp)
        return tool_error("cannot write %s'%s': out of memory", label, path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int status = tool_error("cannot write %s'%s': %s", label, path, strerror(errno));
        free(tmp);
        return status;
    }
    mode_t mask = umask(0);
    umask(mask);
    const char *p = data;
    size_t left = len;
    bool ok = fchmod(fd, 0666 & ~mask) == 0;
    while (ok && left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n;
        left -= (size_t)n;
    }
    ok = ok && !left && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    int status = ok ? 0 : tool_error("cannot write %s'%s': %s", label, path, strerror(errno));
    if (!ok)
        unlink(tmp);
    free(tmp);
    return status;
}
