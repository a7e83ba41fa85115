/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TEST_MUTEX_TYPES_H
#define _TEST_MUTEX_TYPES_H

#include <pthread.h>

/* A sleeping lock: a pthread mutex, as spinlock_t is one here too. */
struct mutex {
	pthread_mutex_t lock;
};

#define __MUTEX_INITIALIZER(name)	{ .lock = PTHREAD_MUTEX_INITIALIZER }

#endif
