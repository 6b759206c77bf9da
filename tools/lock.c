/* SPDX-License-Identifier: MIT */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

/* The files this process holds locked; a command opens a handful at most
 * (the image, its temporary copy). */
#define TOOL_LOCK_MAX 16

struct tool_lock_held {
    dev_t dev;
    ino_t ino;
    int fd;
    bool exclusive;
};

static struct tool_lock_held tool_locks[TOOL_LOCK_MAX];
static unsigned tool_lock_count;
static bool tool_lock_wait;
static bool tool_lock_force;

void tool_lock_set_force(bool force)
{
    tool_lock_force = force;
}

void tool_lock_set_wait(bool wait)
{
    tool_lock_wait = wait;
}

static struct tool_lock_held *tool_lock_find(const struct stat *st)
{
    for (unsigned i = 0; i < tool_lock_count; i++)
        if (tool_locks[i].dev == st->st_dev && tool_locks[i].ino == st->st_ino)
            return &tool_locks[i];
    return NULL;
}

/* flock() that retries on a signal; `how` as flock's. */
static int tool_lock_flock(int fd, int how)
{
    int err;
    do
        err = flock(fd, how);
    while (err && errno == EINTR);
    return err;
}

static int tool_lock_busy(const char *path)
{
    tool_error("%s is in use by another nandkit command: give --wait to wait for it", path);
    return TOOL_EXIT_IN_USE;
}

int tool_lock(const char *path, bool exclusive)
{
    if (!path)
        return 0;
    for (;;) {
        /* O_NONBLOCK: a FIFO named as the image must not hang the open. */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return 0; /* nothing to lock yet, or the open that follows says why */
        struct stat st, now;
        if (fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))) {
            close(fd);
            return 0;
        }
        if (exclusive && S_ISREG(st.st_mode)) {
            if (access(path, W_OK) != 0) {
                int e = errno;
                close(fd);
                return tool_error("%s is not writable: %s", path, strerror(e));
            }
            if (!(st.st_mode & 0222) && !tool_lock_force) {
                close(fd);
                return tool_error("%s is read-only (mode %04o): give --force to write it anyway",
                                  path, (unsigned)(st.st_mode & 07777));
            }
        }
        struct tool_lock_held *held = tool_lock_find(&st);
        if (held && (held->exclusive || !exclusive)) {
            close(fd);
            return 0;
        }
        int target = held ? held->fd : fd;
        int how = exclusive ? LOCK_EX : LOCK_SH;
        if (tool_lock_flock(target, how | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK || !tool_lock_wait) {
                int e = errno;
                close(fd);
                if (e == EWOULDBLOCK)
                    return tool_lock_busy(path);
                return tool_error("cannot lock %s: %s", path, strerror(e));
            }
            if (tool_lock_flock(target, how) != 0) {
                int e = errno;
                close(fd);
                return tool_error("cannot lock %s: %s", path, strerror(e));
            }
        }
        /* The command that held the lock may have renamed a new image over
         * the path (flock() drops a shared lock before it takes the
         * exclusive one): then this lock is on a file no one reads any more. */
        bool replaced = stat(path, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino;
        if (held) {
            close(fd);
            held->exclusive = true;
            if (!replaced)
                return 0;
            flock(held->fd, LOCK_UN);
            close(held->fd);
            *held = tool_locks[--tool_lock_count];
            continue;
        }
        if (replaced) {
            close(fd);
            continue;
        }
        if (tool_lock_count == TOOL_LOCK_MAX) {
            close(fd);
            return tool_error("cannot lock %s: too many files locked", path);
        }
        tool_locks[tool_lock_count++] =
            (struct tool_lock_held){st.st_dev, st.st_ino, fd, exclusive};
        return 0;
    }
}

bool tool_lock_is_stale(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || tool_lock_find(&st) ||
        tool_lock_count == TOOL_LOCK_MAX || tool_lock_flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return false;
    }
    tool_locks[tool_lock_count++] = (struct tool_lock_held){st.st_dev, st.st_ino, fd, true};
    return true;
}
