/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tasks are pthreads.  current_kthread() is the kthread running this code,
 * or NULL in a thread that kthread_run() did not start.
 */
#ifndef _TOOLS_SHARED_LINUX_SCHED_H
#define _TOOLS_SHARED_LINUX_SCHED_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <unistd.h>
#include <linux/kernel.h>

struct task_struct {
	pthread_t thread;
	int (*threadfn)(void *data);
	void *data;
	bool should_stop;
	int result;
	char comm[16];
};

static __thread struct task_struct *__current_kthread;

static inline struct task_struct *current_kthread(void)
{
	return __current_kthread;
}

#define TASK_RUNNING		0x00000000
#define TASK_INTERRUPTIBLE	0x00000001
#define TASK_UNINTERRUPTIBLE	0x00000002

#define set_current_state(state)	do { (void)(state); } while (0)
#define __set_current_state(state)	do { (void)(state); } while (0)

/*
 * Nothing wakes a task up: a task that sleeps in a loop polls instead,
 * without hogging a CPU.
 */
#undef schedule
static inline void schedule(void)
{
	usleep(100);
}

#endif
