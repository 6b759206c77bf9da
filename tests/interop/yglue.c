/*
 * The OS glue YAFFS2 Direct asks of its host (direct/yaffs_osglue.h): one
 * process, one thread, so the lock is a counter that catches a nested lock;
 * time is a counter the tests can set, so two runs write the same bytes;
 * memory is the C library's, counted; a YAFFS2 BUG() stops the program.
 * Written for nandkit's interoperability tests; nothing here is YAFFS2's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "yportenv.h"
#include "yaffs_osglue.h"
#include "yaffs_trace.h"

#include "yglue.h"

unsigned int yaffs_trace_mask;

static int lock_depth;
static u32 now = 1700000000u;
static int last_error;
static unsigned long long bytes_now, bytes_peak;

void yaffsfs_Lock(void)
{
    if (lock_depth++ != 0) {
        fprintf(stderr, "yglue: YAFFS2 took its lock twice\n");
        abort();
    }
}

void yaffsfs_Unlock(void)
{
    if (--lock_depth != 0) {
        fprintf(stderr, "yglue: YAFFS2 released a lock it did not hold\n");
        abort();
    }
}

u32 yaffsfs_CurrentTime(void)
{
    return now;
}

void yglue_set_time(unsigned seconds)
{
    now = seconds;
}

void yaffsfs_SetError(int err)
{
    last_error = err;
}

int yaffsfs_GetLastError(void)
{
    return last_error;
}

int yglue_last_error(void)
{
    return last_error < 0 ? -last_error : last_error;
}

/* Each block carries its size in front, so that free() can count it. */
void *yaffsfs_malloc(size_t size)
{
    unsigned long long *p = malloc(size + sizeof *p);
    if (!p)
        return NULL;
    *p = size;
    bytes_now += size;
    if (bytes_now > bytes_peak)
        bytes_peak = bytes_now;
    return p + 1;
}

void yaffsfs_free(void *ptr)
{
    if (!ptr)
        return;
    unsigned long long *p = (unsigned long long *)ptr - 1;
    bytes_now -= *p;
    free(p);
}

void yaffsfs_get_malloc_values(unsigned *current, unsigned *high_water)
{
    if (current)
        *current = (unsigned)bytes_now;
    if (high_water)
        *high_water = (unsigned)bytes_peak;
}

void yglue_malloc_reset_peak(void)
{
    bytes_peak = bytes_now;
}

int yaffsfs_CheckMemRegion(const void *addr, size_t size, int write_request)
{
    (void)size;
    (void)write_request;
    return addr ? 0 : -1;
}

void yaffsfs_OSInitialisation(void)
{
}

void yaffs_bug_fn(const char *file_name, int line_no)
{
    fprintf(stderr, "yglue: YAFFS2 BUG() at %s:%d\n", file_name, line_no);
    abort();
}
