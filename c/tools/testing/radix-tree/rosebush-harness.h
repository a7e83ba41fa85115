/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * rosebush-harness.h: what the userspace rosebush programs share.  It
 * builds lib/rosebush.c, unchanged, against the stubs of
 * tools/testing/shared, and provides the checks every program makes:
 * WARNs are counted, lockdep_assert_held() checks that the calling thread
 * owns the lock, might_sleep() that it is neither in an RCU read-side
 * critical section nor holding a spinlock (mutex_lock() and allocations
 * that may block check it too), and rbh_harness_leaks() reports memory
 * still allocated.
 *
 * Include it once, first; define CONFIG_KUNIT before it to build the
 * KUnit hooks of lib/rosebush.c too.  A benchmark defines
 * RBH_HARNESS_PRODUCTION, which compiles might_sleep() and
 * RCU_LOCKDEP_WARN() away, as a kernel without DEBUG_ATOMIC_SLEEP and
 * PROVE_RCU does, and keeps the exported functions out of line, as
 * calls through exported symbols are.
 */
#ifndef _ROSEBUSH_HARNESS_H
#define _ROSEBUSH_HARNESS_H

#define CONFIG_PHYS_ADDR_T_64BIT 1

#include <assert.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * cond_resched() yields in the tests, so that the threads waiting for a
 * lock that a resize dropped between two steps get it; it may sleep.
 * rbh_harness_atomic counts the spinlocks this thread holds (see
 * might_sleep() below).
 */
#ifndef RBH_HARNESS_PRODUCTION
static __thread int rbh_harness_atomic;
#define cond_resched()	({ might_sleep(); sched_yield(); })
#endif

/* Before urcu.h, whose synchronize_rcu() must win over the empty one */
#include <linux/kernel.h>
#include <urcu.h>
#include <urcu/uatomic.h>
#include <asm/bug.h>
#include <linux/slab.h>
#include <linux/stringify.h>

/* Count every WARN, so that the program or the case that triggers one fails. */
static unsigned long rbh_harness_warnings;
#undef __WARN_printf
#define __WARN_printf(arg...)						\
	do {								\
		uatomic_inc(&rbh_harness_warnings);			\
		fprintf(stderr, arg);					\
	} while (0)

/*
 * lockdep_assert_held(): glibc records which thread owns a locked mutex,
 * so check that it is this one.  A program that brings its own spinlock_t
 * (a benchmark) brings its own lockdep_assert_held() too.
 */
#ifndef lockdep_assert_held
static __thread pid_t rbh_harness_tid;

static inline bool rbh_harness_mutex_held(pthread_mutex_t *lock)
{
	if (!rbh_harness_tid)
		rbh_harness_tid = syscall(SYS_gettid);
	return READ_ONCE(lock->__data.__owner) == rbh_harness_tid;
}
/*
 * spinlock_t is a pthread mutex here, and a struct mutex starts with one
 * (shared/linux/mutex_types.h), so either may be checked.
 */
#define lockdep_assert_held(l)						\
	WARN_ON_ONCE(!rbh_harness_mutex_held((pthread_mutex_t *)(void *)(l)))
#endif

/* Sleeping in an RCU read-side critical section or under a spinlock is a bug. */
#ifdef RBH_HARNESS_PRODUCTION
#define might_sleep()		do { } while (0)
#else
#define might_sleep()		WARN_ON_ONCE(rcu_read_ongoing() || rbh_harness_atomic)
#endif

#define module_init(x)
#define module_exit(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_LICENSE(x)
#define MODULE_IMPORT_NS(x)

/* Everything lib/rosebush.c and lib/test_rosebush.c include */
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#ifdef RBH_HARNESS_PRODUCTION
/*
 * The kernel's __ffs() is one instruction (tzcnt or bsf on x86, rbit and
 * clz on arm64); the tools' generic one is a dozen, which would make a
 * benchmark of rbh_next() measure them.
 */
#define __ffs(word)	((unsigned int)__builtin_ctzl(word))
#endif
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/prefetch.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rosebush.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#endif

#ifndef RBH_HARNESS_PRODUCTION
/*
 * Atomic context, for might_sleep(): spinlock_t is a pthread mutex here,
 * so count the ones this thread holds, as the kernel's preempt count
 * does; and let what may sleep in the kernel say so.  Only lib/rosebush.c
 * and the test cases see these; the shims above keep the plain calls.
 */
#undef spin_lock
#define spin_lock(l)		(pthread_mutex_lock(l), rbh_harness_atomic++)
#undef spin_lock_nested
#define spin_lock_nested(l, subclass)	((void)(subclass), spin_lock(l))
#undef spin_trylock
#define spin_trylock(l)							\
	(pthread_mutex_trylock(l) ? false : (rbh_harness_atomic++, true))
#undef spin_unlock
#define spin_unlock(l)		(rbh_harness_atomic--, pthread_mutex_unlock(l))
#define mutex_lock(m)		({ might_sleep(); mutex_lock(m); })
#undef kvfree_rcu_mightsleep
#define kvfree_rcu_mightsleep(ptr)					\
	do {								\
		might_sleep();						\
		synchronize_rcu();					\
		kvfree(ptr);						\
	} while (0)
/* An allocation that may block may sleep */
static inline gfp_t rbh_harness_gfp(gfp_t gfp)
{
	if (gfpflags_allow_blocking(gfp))
		might_sleep();
	return gfp;
}

#define kmalloc(size, gfp)	kmalloc(size, rbh_harness_gfp(gfp))
#define kvmalloc(size, gfp)	kvmalloc(size, rbh_harness_gfp(gfp))
#endif

/* <assert.h> defines it too: the kernel's takes one argument or two */
#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#ifndef __static_assert
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)
#endif

/* The tools' noinline is empty; the kernel's is not */
#undef noinline
#define noinline	__attribute__((__noinline__))

#ifdef RBH_HARNESS_PRODUCTION
#undef RCU_LOCKDEP_WARN
#define RCU_LOCKDEP_WARN(c, s)	do { } while (0 && (c))
/*
 * Callers in the kernel reach these through exported symbols, which they
 * cannot inline; neither may a benchmark that includes lib/rosebush.c.
 */
#define rbh_harness_noinline	noinline
extern rbh_harness_noinline typeof(rbh_insert) rbh_insert;
extern rbh_harness_noinline typeof(rbh_reserve) rbh_reserve;
extern rbh_harness_noinline typeof(rbh_use) rbh_use;
extern rbh_harness_noinline typeof(rbh_remove) rbh_remove;
extern rbh_harness_noinline typeof(rbh_next) rbh_next;
extern rbh_harness_noinline typeof(__rbh_first_spilled) __rbh_first_spilled;
extern rbh_harness_noinline typeof(rbh_iter_lock) rbh_iter_lock;
extern rbh_harness_noinline typeof(rbh_iter_remove) rbh_iter_remove;
extern rbh_harness_noinline typeof(rbh_iter_replace) rbh_iter_replace;
extern rbh_harness_noinline typeof(rbh_iter_use) rbh_iter_use;
extern rbh_harness_noinline typeof(rbh_iter_unlock) rbh_iter_unlock;
#endif

#ifdef RBH_HARNESS_PRODUCTION
/*
 * The kernel's kfree_rcu() and kvfree_rcu_mightsleep() put the pointer in
 * a per-CPU array and free a whole array after one grace period, waiting
 * only when memory is short.  The harness's own versions give each object
 * a malloc()ed rcu_head and a call_rcu() of its own (which may wake
 * liburcu's thread), and kvfree_rcu_mightsleep() waits for a grace period:
 * a benchmark of removals would measure those.  Here there is one array,
 * under a lock, as the harness has more threads than the kernel has CPUs.
 */
struct rbh_harness_rcu_batch {
	struct rcu_head head;
	unsigned int nr;
	void *ptr[254];
};

static pthread_mutex_t rbh_harness_rcu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rbh_harness_rcu_batch *rbh_harness_rcu_batch;

static void rbh_harness_rcu_batch_free(struct rcu_head *head)
{
	struct rbh_harness_rcu_batch *b =
		caa_container_of(head, struct rbh_harness_rcu_batch, head);
	unsigned int i;

	for (i = 0; i < b->nr; i++)
		kvfree(b->ptr[i]);
	free(b);
}

/* Queue the array being filled, if any, for freeing after a grace period. */
static inline void rbh_harness_rcu_flush(void)
{
	struct rbh_harness_rcu_batch *b;

	pthread_mutex_lock(&rbh_harness_rcu_lock);
	b = rbh_harness_rcu_batch;
	rbh_harness_rcu_batch = NULL;
	pthread_mutex_unlock(&rbh_harness_rcu_lock);
	if (b)
		call_rcu(&b->head, rbh_harness_rcu_batch_free);
}

static inline void rbh_harness_kvfree_rcu(void *ptr)
{
	struct rbh_harness_rcu_batch *b, *full = NULL;

	if (!ptr)
		return;
	pthread_mutex_lock(&rbh_harness_rcu_lock);
	b = rbh_harness_rcu_batch;
	if (!b) {
		b = malloc(sizeof(*b));
		if (!b)
			abort();
		b->nr = 0;
		rbh_harness_rcu_batch = b;
	}
	b->ptr[b->nr++] = ptr;
	if (b->nr == ARRAY_SIZE(b->ptr)) {
		full = b;
		rbh_harness_rcu_batch = NULL;
	}
	pthread_mutex_unlock(&rbh_harness_rcu_lock);
	if (full)
		call_rcu(&full->head, rbh_harness_rcu_batch_free);
}

#undef kfree_rcu
#define kfree_rcu(ptr, rhf)		rbh_harness_kvfree_rcu(ptr)
#undef kvfree_rcu_mightsleep
#define kvfree_rcu_mightsleep(ptr)	rbh_harness_kvfree_rcu(ptr)
#else
static inline void rbh_harness_rcu_flush(void)
{
}
#endif

/* Wait until what kfree_rcu() was given before is freed */
static inline void kvfree_rcu_barrier(void)
{
	rbh_harness_rcu_flush();
	rcu_barrier();
}

/*
 * Resizes copy the table a few slots at a time here, dropping the resize
 * lock between steps, so that the tests' writers change the table in
 * the middle of nearly every resize; a benchmark keeps the kernel's step.
 */
#if !defined(RBH_HARNESS_PRODUCTION) && !defined(RBH_RESIZE_STEP)
#define RBH_RESIZE_STEP		4UL
#endif

#include "../../../lib/rosebush.c"

extern int nr_allocated;	/* kmem_cache objects: tools/testing/shared/linux.c */

/* Fail if the tools' empty synchronize_rcu() won over liburcu's. */
static inline int rbh_harness_check_rcu(void)
{
	if (!strcmp(__stringify(synchronize_rcu()), "()")) {
		fprintf(stderr, "synchronize_rcu() is a no-op\n");
		return 2;
	}
	return 0;
}

/*
 * Let work items and RCU callbacks run, then report what is still
 * allocated.  Return: true if anything is.
 */
static inline bool rbh_harness_leaks(const char *when)
{
	flush_scheduled_work();
	rbh_harness_rcu_flush();
	rcu_barrier();
	if (!uatomic_read(&kmalloc_nr_allocated) &&
	    !uatomic_read(&nr_allocated))
		return false;
	printf("# still allocated %s: %d kmalloc(), %d kmem_cache\n", when,
	       uatomic_read(&kmalloc_nr_allocated), uatomic_read(&nr_allocated));
	return true;
}

/*
 * The hash whose key is @key: lib/rosebush.c mixes a hash into a key by
 * multiplying it by GOLDEN_RATIO_32, so multiplying by the inverse lets a
 * program aim entries at one part of the table.
 */
static inline u32 rbh_harness_hash_of_key(u32 key)
{
	u32 inverse = GOLDEN_RATIO_32;
	int i;

	/* Newton's iteration doubles the number of correct low bits */
	for (i = 0; i < 5; i++)
		inverse *= 2 - GOLDEN_RATIO_32 * inverse;
	return key * inverse;
}

#endif /* _ROSEBUSH_HARNESS_H */
