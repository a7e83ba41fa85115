/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TOOLS_SHARED_LINUX_COMPLETION_H
#define _TOOLS_SHARED_LINUX_COMPLETION_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <linux/compiler.h>

struct completion {
	unsigned int done;
	pthread_mutex_t lock;
	pthread_cond_t wait;
};

static inline void init_completion(struct completion *x)
{
	x->done = 0;
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->wait, NULL);
}

static inline void reinit_completion(struct completion *x)
{
	WRITE_ONCE(x->done, 0);
}

static inline void complete(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	if (x->done != UINT_MAX)
		WRITE_ONCE(x->done, x->done + 1);
	pthread_cond_broadcast(&x->wait);
	pthread_mutex_unlock(&x->lock);
}

static inline void complete_all(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	WRITE_ONCE(x->done, UINT_MAX);
	pthread_cond_broadcast(&x->wait);
	pthread_mutex_unlock(&x->lock);
}

static inline void wait_for_completion(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	while (!x->done)
		pthread_cond_wait(&x->wait, &x->lock);
	if (x->done != UINT_MAX)
		WRITE_ONCE(x->done, x->done - 1);
	pthread_mutex_unlock(&x->lock);
}

static inline bool completion_done(struct completion *x)
{
	return READ_ONCE(x->done) != 0;
}

#endif
