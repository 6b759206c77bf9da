/* SPDX-License-Identifier: MIT */
/*
 * A progress line on stderr for commands that copy many files (put,
 * extract): shown when stderr is a terminal and the work passes a second,
 * or always with --progress (then also a last line with the totals). It
 * counts files and bytes where the total may not be known ahead; the
 * page commands' percentage line is in flashio.h.
 */
#ifndef TOOL_COPY_PROGRESS_H
#define TOOL_COPY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

enum tool_copy_progress_mode {
    TOOL_COPY_PROGRESS_AUTO, /* when stderr is a terminal */
    TOOL_COPY_PROGRESS_OFF,  /* --no-progress */
    TOOL_COPY_PROGRESS_ON,   /* --progress: also into a file or pipe */
};

struct tool_copy_progress {
    const char *command;
    bool enabled, forced, tty, shown;
    uint64_t total_bytes; /* 0: not known ahead */
    uint64_t bytes, files;
    double start, last;
};

void tool_copy_progress_begin(struct tool_copy_progress *p, const char *command,
                              enum tool_copy_progress_mode mode, uint64_t total_bytes);

/* Counts `bytes` more data and `files` more files; redraws at most four
 * times a second. */
void tool_copy_progress_add(struct tool_copy_progress *p, uint64_t bytes, uint64_t files);

/* Ends the line (and with --progress prints the totals). */
void tool_copy_progress_end(struct tool_copy_progress *p);

#endif
