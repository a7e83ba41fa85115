/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One system workqueue, run by one thread registered with liburcu, so that
 * work items may use RCU.  Work items are run in the order queued.
 */
#ifndef _TOOLS_SHARED_LINUX_WORKQUEUE_H
#define _TOOLS_SHARED_LINUX_WORKQUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>
#include <linux/compiler.h>
#include <linux/workqueue_types.h>

#define INIT_WORK(_work, _func)						\
	do {								\
		(_work)->func = (_func);				\
		(_work)->next = NULL;					\
		(_work)->pending = false;				\
		(_work)->disabled = 0;					\
	} while (0)

static pthread_mutex_t system_wq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t system_wq_queued = PTHREAD_COND_INITIALIZER;
static pthread_cond_t system_wq_idle = PTHREAD_COND_INITIALIZER;
static struct work_struct *system_wq_head, **system_wq_tail = &system_wq_head;
static struct work_struct *system_wq_running;
static pthread_t system_wq_thread;
static bool system_wq_started, system_wq_stop;

static void *system_wq_worker(void *arg)
{
	struct work_struct *work;

	rcu_register_thread();
	pthread_mutex_lock(&system_wq_lock);
	for (;;) {
		while (!system_wq_head && !system_wq_stop)
			pthread_cond_wait(&system_wq_queued, &system_wq_lock);
		work = system_wq_head;
		if (!work)
			break;
		system_wq_head = work->next;
		if (!system_wq_head)
			system_wq_tail = &system_wq_head;
		work->next = NULL;
		WRITE_ONCE(work->pending, false);
		system_wq_running = work;
		pthread_mutex_unlock(&system_wq_lock);

		work->func(work);

		pthread_mutex_lock(&system_wq_lock);
		system_wq_running = NULL;
		pthread_cond_broadcast(&system_wq_idle);
	}
	pthread_mutex_unlock(&system_wq_lock);
	rcu_unregister_thread();
	return NULL;
}

static inline bool schedule_work(struct work_struct *work)
{
	bool queued = false;

	pthread_mutex_lock(&system_wq_lock);
	if (!system_wq_started) {
		if (pthread_create(&system_wq_thread, NULL, system_wq_worker,
				   NULL)) {
			perror("workqueue thread");
			abort();
		}
		system_wq_started = true;
	}
	if (!work->pending && !work->disabled) {
		WRITE_ONCE(work->pending, true);
		work->next = NULL;
		*system_wq_tail = work;
		system_wq_tail = &work->next;
		pthread_cond_signal(&system_wq_queued);
		queued = true;
	}
	pthread_mutex_unlock(&system_wq_lock);
	return queued;
}

#define work_pending(work)	READ_ONCE((work)->pending)

/* The harness has one workqueue: every workqueue_struct stands for it. */
struct workqueue_struct;
#define system_wq		((struct workqueue_struct *)NULL)
#define system_unbound_wq	((struct workqueue_struct *)NULL)

static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *work)
{
	return schedule_work(work);
}

/* Dequeue @work if it is pending, and wait for it if it is running. */
static inline bool cancel_work_sync(struct work_struct *work)
{
	struct work_struct **pp;
	bool was_pending = false;

	pthread_mutex_lock(&system_wq_lock);
	if (work->pending) {
		for (pp = &system_wq_head; *pp != work; pp = &(*pp)->next)
			;
		*pp = work->next;
		if (system_wq_tail == &work->next)
			system_wq_tail = pp;
		work->next = NULL;
		WRITE_ONCE(work->pending, false);
		was_pending = true;
	}
	while (system_wq_running == work)
		pthread_cond_wait(&system_wq_idle, &system_wq_lock);
	pthread_mutex_unlock(&system_wq_lock);
	return was_pending;
}

/*
 * Refuse to queue @work until as many enable_work() calls as
 * disable_work_sync() calls have been made, then cancel it and wait for
 * it.
 */
static inline bool disable_work_sync(struct work_struct *work)
{
	pthread_mutex_lock(&system_wq_lock);
	work->disabled++;
	pthread_mutex_unlock(&system_wq_lock);
	return cancel_work_sync(work);
}

/* Undo one disable_work_sync(); true if @work may be queued again. */
static inline bool enable_work(struct work_struct *work)
{
	bool enabled;

	pthread_mutex_lock(&system_wq_lock);
	if (!work->disabled) {
		fprintf(stderr, "%s() of a work item not disabled\n", __func__);
		abort();
	}
	enabled = !--work->disabled;
	pthread_mutex_unlock(&system_wq_lock);
	return enabled;
}

/* Wait until the workqueue is empty and idle. */
static inline void flush_scheduled_work(void)
{
	pthread_mutex_lock(&system_wq_lock);
	while (system_wq_head || system_wq_running)
		pthread_cond_wait(&system_wq_idle, &system_wq_lock);
	pthread_mutex_unlock(&system_wq_lock);
}

/* Wait until @work is neither pending nor running. */
static inline bool flush_work(struct work_struct *work)
{
	bool waited = false;

	pthread_mutex_lock(&system_wq_lock);
	while (work->pending || system_wq_running == work) {
		pthread_cond_wait(&system_wq_idle, &system_wq_lock);
		waited = true;
	}
	pthread_mutex_unlock(&system_wq_lock);
	return waited;
}

/* Run what is queued, then stop the worker thread. */
static inline void destroy_system_workqueue(void)
{
	bool started;

	pthread_mutex_lock(&system_wq_lock);
	system_wq_stop = true;
	started = system_wq_started;
	pthread_cond_signal(&system_wq_queued);
	pthread_mutex_unlock(&system_wq_lock);
	if (started)
		pthread_join(system_wq_thread, NULL);
}

#endif
