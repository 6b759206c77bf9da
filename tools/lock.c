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
#define NK_LOCK_MAX 16

struct nk_lock_held {
    dev_t dev;
    ino_t ino;
    int fd;
    bool exclusive;
};

static struct nk_lock_held nk_locks[NK_LOCK_MAX];
static unsigned nk_lock_count;
static bool nk_lock_wait;
static bool nk_lock_force;

void nk_tool_lock_set_force(bool force)
{
    nk_lock_force = force;
}

void nk_tool_lock_set_wait(bool wait)
{
    nk_lock_wait = wait;
}

static struct nk_lock_held *nk_lock_find(const struct stat *st)
{
    for (unsigned i = 0; i < nk_lock_count; i++)
        if (nk_locks[i].dev == st->st_dev && nk_locks[i].ino == st->st_ino)
            return &nk_locks[i];
    return NULL;
}

/* flock() that retries on a signal; `how` as flock's. */
static int nk_lock_flock(int fd, int how)
{
    int err;
    do
        err = flock(fd, how);
    while (err && errno == EINTR);
    return err;
}

static int nk_lock_busy(const char *path)
{
    nk_tool_error("%s is in use by another nandkit command: give --wait to wait for it", path);
    return NK_EXIT_IN_USE;
}

int nk_tool_lock(const char *path, bool exclusive)
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
                return nk_tool_error("%s is not writable: %s", path, strerror(e));
            }
            if (!(st.st_mode & 0222) && !nk_lock_force) {
                close(fd);
                return nk_tool_error("%s is read-only (mode %04o): give --force to write it anyway",
                                     path, (unsigned)(st.st_mode & 07777));
            }
        }
        struct nk_lock_held *held = nk_lock_find(&st);
        if (held && (held->exclusive || !exclusive)) {
            close(fd);
            return 0;
        }
        int target = held ? held->fd : fd;
        int how = exclusive ? LOCK_EX : LOCK_SH;
        if (nk_lock_flock(target, how | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK || !nk_lock_wait) {
                int e = errno;
                close(fd);
                if (e == EWOULDBLOCK)
                    return nk_lock_busy(path);
                return nk_tool_error("cannot lock %s: %s", path, strerror(e));
            }
            if (nk_lock_flock(target, how) != 0) {
                int e = errno;
                close(fd);
                return nk_tool_error("cannot lock %s: %s", path, strerror(e));
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
            *held = nk_locks[--nk_lock_count];
            continue;
        }
        if (replaced) {
            close(fd);
            continue;
        }
        if (nk_lock_count == NK_LOCK_MAX) {
            close(fd);
            return nk_tool_error("cannot lock %s: too many files locked", path);
        }
        nk_locks[nk_lock_count++] = (struct nk_lock_held){st.st_dev, st.st_ino, fd, exclusive};
        return 0;
    }
}

bool nk_tool_lock_is_stale(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || nk_lock_find(&st) ||
        nk_lock_count == NK_LOCK_MAX || nk_lock_flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return false;
    }
    nk_locks[nk_lock_count++] = (struct nk_lock_held){st.st_dev, st.st_ino, fd, true};
    return true;
}
