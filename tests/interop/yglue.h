/* The test side of the OS glue (yglue.c). */
#ifndef YGLUE_H
#define YGLUE_H

void yglue_set_time(unsigned seconds);
int yglue_last_error(void);
/* The high-water mark of YAFFS2's allocations starts again from now. */
void yglue_malloc_reset_peak(void);

#endif
