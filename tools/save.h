/* SPDX-License-Identifier: MIT */
/*
 * Replacing a user's image file without ever leaving half a result under its
 * name: the work goes to a temporary file in the same directory (a copy of
 * the old image and its sidecar, holes kept), which is made durable and then
 * renamed over the target. A kill or a full disk leaves the old image as it
 * was, plus at most a stray temporary file named TARGET.nktmp-XXXXXX.
 */
#ifndef TOOL_SAVE_H
#define TOOL_SAVE_H

#include <stdbool.h>
#include <stddef.h>

struct tool_save {
    char *name;    /* the user's path, for messages */
    char *target;  /* the file it names (a symlink resolved) */
    char *tmp;     /* the temporary image beside it */
    bool sidecar;  /* a TMP.nksim was made (copied from TARGET.nksim) */
    unsigned mode; /* the permission bits the image gets at the commit */
};

/* Creates the temporary file beside `target` (a symlink is followed: the
 * file it names is replaced, the link stays): a sparse copy of `target`
 * when `copy` (and of TARGET.nksim when there is one), else empty. The
 * target is locked exclusively first (tools/lock.h), and temporary files
 * of an earlier command that was killed (no process holds their lock) are
 * removed. The temporary file stays writable by its owner until the
 * commit gives it the target's mode. Returns 0, or prints one line naming
 * the file and returns exit status 1. */
int tool_save_begin(struct tool_save *save, const char *target, bool copy);

/* Makes the temporary file and its sidecar durable and renames them over
 * the target and TARGET.nksim (image first). Returns 0 or, after one line
 * naming the file, exit status 1 (the temporary files are removed). */
int tool_save_commit(struct tool_save *save);

/* Removes the temporary files (after a failure) and frees. */
void tool_save_abort(struct tool_save *save);

/* Writes `len` bytes as the whole of `path` the same way: a temporary file
 * beside it, fsync, rename. Returns 0, or prints one line "cannot write
 * LABEL'PATH': reason" (`label` e.g. "--svg ", or "") and returns exit
 * status 1 (the old file, if any, is left as it was). */
int tool_write_file(const char *label, const char *path, const void *data, size_t len);

/* True when `path` exists and is neither a regular file nor a directory (a
 * device, FIFO or socket): such outputs are written in place, never
 * replaced by a rename. */
bool tool_is_special_file(const char *path);

#endif
