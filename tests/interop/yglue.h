/* The test side of the OS glue (yglue.c). */
#ifndef YGLUE_H
#define YGLUE_H

void yglue_set_time(unsigned seconds);
int yglue_last_error(void);

#endif
