/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TEST_MUTEX_H
#define _TEST_MUTEX_H

#include <linux/mutex_types.h>

#define DEFINE_MUTEX(name)	struct mutex name = __MUTEX_INITIALIZER(name)

static inline void mutex_init(struct mutex *m)
{
	pthread_mutex_init(&m->lock, NULL);
}

static inline void mutex_destroy(struct mutex *m)
{
	pthread_mutex_destroy(&m->lock);
}

static inline void mutex_lock(struct mutex *m)
{
	pthread_mutex_lock(&m->lock);
}

static inline int mutex_trylock(struct mutex *m)
{
	return pthread_mutex_trylock(&m->lock) == 0;
}

static inline void mutex_unlock(struct mutex *m)
{
	pthread_mutex_unlock(&m->lock);
}

#endif
