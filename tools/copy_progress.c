/* SPDX-License-Identifier: MIT */
#include "copy_progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

static double tool_progress_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

void tool_copy_progress_begin(struct tool_copy_progress *p, const char *command,
                              enum tool_copy_progress_mode mode, uint64_t total_bytes)
{
    p->command = command;
    p->tty = isatty(STDERR_FILENO) == 1;
    p->forced = mode == TOOL_COPY_PROGRESS_ON;
    p->enabled = p->forced || (mode == TOOL_COPY_PROGRESS_AUTO && p->tty);
    p->shown = false;
    p->total_bytes = total_bytes;
    p->bytes = p->files = 0;
    p->start = p->last = tool_progress_now();
}

static void tool_progress_draw(struct tool_copy_progress *p, double now, bool last)
{
    double mib = (double)p->bytes / (1 << 20);
    fprintf(stderr, "%s%s: %llu %s, %.1f MiB", p->tty ? "\r" : "", p->command,
            (unsigned long long)p->files, tool_plural(p->files, "file", "files"), mib);
    if (p->total_bytes)
        fprintf(stderr, " of %.1f MiB (%.0f%%)", (double)p->total_bytes / (1 << 20),
                100.0 * (double)p->bytes / (double)p->total_bytes);
    fprintf(stderr, ", %.1f s%s", now - p->start, last || !p->tty ? "\n" : "");
    p->shown = true;
}

void tool_copy_progress_add(struct tool_copy_progress *p, uint64_t bytes, uint64_t files)
{
    p->bytes += bytes;
    p->files += files;
    if (!p->enabled)
        return;
    double now = tool_progress_now();
    /* Quick work stays quiet on a terminal; a line per second elsewhere. */
    double wait = p->tty ? 0.25 : 1.0;
    if ((p->tty && now - p->start < 1.0) || now - p->last < wait)
        return;
    p->last = now;
    tool_progress_draw(p, now, false);
}

void tool_copy_progress_end(struct tool_copy_progress *p)
{
    if (p->enabled && (p->shown || p->forced))
        tool_progress_draw(p, tool_progress_now(), true);
}
