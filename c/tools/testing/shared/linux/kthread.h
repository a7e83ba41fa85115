/* SPDX-License-Identifier: GPL-2.0 */
/* kthreads are pthreads registered with liburcu. */
#ifndef _TOOLS_SHARED_LINUX_KTHREAD_H
#define _TOOLS_SHARED_LINUX_KTHREAD_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/sched.h>

static void *__kthread_fn(void *arg)
{
	struct task_struct *task = arg;

	__current_kthread = task;
	rcu_register_thread();
	task->result = task->threadfn(task->data);
	rcu_unregister_thread();
	return NULL;
}

static inline __attribute__((format(printf, 3, 4))) struct task_struct *
kthread_run(int (*threadfn)(void *data), void *data, const char *namefmt, ...)
{
	struct task_struct *task = calloc(1, sizeof(*task));
	va_list args;

	if (!task)
		return ERR_PTR(-ENOMEM);
	task->threadfn = threadfn;
	task->data = data;
	va_start(args, namefmt);
	vsnprintf(task->comm, sizeof(task->comm), namefmt, args);
	va_end(args);
	if (pthread_create(&task->thread, NULL, __kthread_fn, task)) {
		free(task);
		return ERR_PTR(-EAGAIN);
	}
	return task;
}

static inline bool kthread_should_stop(void)
{
	struct task_struct *task = current_kthread();

	return task && READ_ONCE(task->should_stop);
}

/* Tell @task to stop, wait for it to return, and return its result. */
static inline int kthread_stop(struct task_struct *task)
{
	int result;

	WRITE_ONCE(task->should_stop, true);
	pthread_join(task->thread, NULL);
	result = task->result;
	free(task);
	return result;
}

#endif
