/* SPDX-License-Identifier: MIT */
/*
 * Keeping two nandkit commands off one image at the same time: a command
 * that writes an image file or /dev/mtdN holds an exclusive flock() on it
 * for as long as it runs, a command that only reads holds a shared one.
 * The lock lives on the file itself (and so covers its sidecar, which only
 * a command holding the image's lock reads or writes); it is released when
 * the process ends, a kill included, so nothing is ever left locked.
 */
#ifndef TOOL_LOCK_H
#define TOOL_LOCK_H

#include <stdbool.h>

/* With `wait`, a locked image is waited for instead of refused (--wait). */
void tool_lock_set_wait(bool wait);

/* With `force`, an image whose mode has no write bit is written anyway
 * (--force); root is otherwise refused like anyone else. */
void tool_lock_set_force(bool force);

/* Locks the file at `path` (shared, or exclusive when `exclusive`) until
 * the process ends; a lock this process already holds on the same file is
 * kept (or made exclusive). A path that does not exist yet locks nothing.
 * When another command holds a conflicting lock: waits with --wait, else
 * prints one line naming `path` and returns exit status 1. Returns 0 when
 * locked. An exclusive lock is for writing: a file this process may not
 * write ("IMAGE is not writable: REASON"), or one whose mode has no write
 * bit without --force, is refused here, before anything is written (exit
 * status 1). An image replaced by a rename while waiting is locked anew, so
 * the lock is always on the file the path names. */
int tool_lock(const char *path, bool exclusive);

/* Whether the file at `path` is locked by no process (a stale temporary
 * file of a killed command): takes an exclusive lock on it without waiting,
 * held until the process ends. */
bool tool_lock_is_stale(const char *path);

#endif
