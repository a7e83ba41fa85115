/* SPDX-License-Identifier: GPL-2.0 */
/* udelay() and ndelay() busy-wait, as the kernel's do. */
#ifndef _TOOLS_SHARED_LINUX_DELAY_H
#define _TOOLS_SHARED_LINUX_DELAY_H

#include <time.h>

static inline void ndelay(unsigned long nsecs)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L +
		 (now.tv_nsec - start.tv_nsec) < (long)nsecs);
}

#define udelay(usecs)	ndelay((usecs) * 1000UL)

#endif /* _TOOLS_SHARED_LINUX_DELAY_H */
