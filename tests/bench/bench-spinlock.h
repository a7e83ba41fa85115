/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-spinlock.h: a spinlock the size of the kernel's, for the benchmark
 * only.  Passed with -include, so that it comes before everything else.
 *
 * The userspace harness's spinlock_t (tools/include/linux/spinlock.h) is a
 * 40-byte pthread mutex, which makes a rosebush bucket header 72 bytes
 * rather than the kernel's 40, and a bucket 15 entries rather than 18, and
 * pushes its keys into the second cache line: a benchmark built with it
 * would measure the harness.  Without lock debugging, the kernel's
 * spinlock_t is a 4-byte queued spinlock, taken with one compare-and-swap
 * and released with one store; this is that fast path, spinning on a plain
 * load when the lock is held (a queued spinlock's slow path is fairer, but
 * contention is not what this benchmark measures).
 *
 * It replaces tools/include/linux/spinlock.h, by defining that header's
 * include guard, and makes lockdep_assert_held() a no-op, as it is in a
 * kernel without CONFIG_LOCKDEP (the harness checks the mutex's owner).
 */
#ifndef _BENCH_SPINLOCK_H
#define _BENCH_SPINLOCK_H

#define __LINUX_SPINLOCK_H_

#include <stdbool.h>

typedef struct {
	unsigned int locked;
} spinlock_t;

_Static_assert(sizeof(spinlock_t) == 4, "the kernel's spinlock_t is 4 bytes");

#define __SPIN_LOCK_UNLOCKED(x)	(spinlock_t){ 0 }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

static inline void spin_lock_init(spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELAXED);
}

static inline bool bench_spin_cas(spinlock_t *lock)
{
	unsigned int unlocked = 0;

	return __atomic_compare_exchange_n(&lock->locked, &unlocked, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

#ifdef BENCH_HOLDS
/*
 * rosebush-holds.c: time each thread's outermost hold of any spinlock
 * (in the kernel, a section with preemption disabled), in the thread's
 * CPU time, and keep the longest of all threads'.  Time spent spinning
 * for a nested lock is left out: here its holder may have been preempted,
 * which it cannot be in the kernel.
 */
#include <time.h>

static __thread unsigned int bench_holds_depth;
static __thread unsigned long long bench_holds_start;
static __thread unsigned long long bench_holds_waited;
static __thread const char *bench_holds_where;
static unsigned long long bench_holds_max;
/* The functions that took and released the longest hold's outer lock */
static const char *bench_holds_max_where, *bench_holds_max_end;

static inline unsigned long long bench_holds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void bench_hold_begin(const char *where)
{
	if (!bench_holds_depth++) {
		bench_holds_start = bench_holds_now();
		bench_holds_waited = 0;
		bench_holds_where = where;
	}
}

/* A spin_lock() inside a hold has to wait: leave the wait out */
static inline unsigned long long bench_hold_wait_begin(void)
{
	return bench_holds_depth ? bench_holds_now() : 0;
}

static inline void bench_hold_wait_end(unsigned long long start)
{
	if (start)
		bench_holds_waited += bench_holds_now() - start;
}

static inline void bench_hold_end(const char *where)
{
	unsigned long long ns, max;

	if (--bench_holds_depth)
		return;
	ns = bench_holds_now() - bench_holds_start - bench_holds_waited;
	max = __atomic_load_n(&bench_holds_max, __ATOMIC_RELAXED);
	while (ns > max) {
		if (__atomic_compare_exchange_n(&bench_holds_max, &max, ns,
						false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			/* Two threads at once may leave the other's */
			__atomic_store_n(&bench_holds_max_where,
					 bench_holds_where, __ATOMIC_RELAXED);
			__atomic_store_n(&bench_holds_max_end, where,
					 __ATOMIC_RELAXED);
			break;
		}
	}
}

static inline unsigned long long bench_hold_max_ns(void)
{
	return __atomic_load_n(&bench_holds_max, __ATOMIC_RELAXED);
}

static inline const char *bench_hold_max_where(void)
{
	return __atomic_load_n(&bench_holds_max_where, __ATOMIC_RELAXED);
}

static inline const char *bench_hold_max_end(void)
{
	return __atomic_load_n(&bench_holds_max_end, __ATOMIC_RELAXED);
}

static inline void bench_hold_reset(void)
{
	__atomic_store_n(&bench_holds_max, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bench_holds_max_where, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&bench_holds_max_end, NULL, __ATOMIC_RELAXED);
}
#else
static inline void bench_hold_begin(const char *where)
{
}

static inline unsigned long long bench_hold_wait_begin(void)
{
	return 0;
}

static inline void bench_hold_wait_end(unsigned long long start)
{
}

static inline void bench_hold_end(const char *where)
{
}
#endif

/* The caller's name, for bench_hold_max_where() and _end() */
#define spin_trylock(lock)	bench_spin_trylock(lock, __func__)
#define spin_lock(lock)		bench_spin_lock(lock, __func__)
#define spin_unlock(lock)	bench_spin_unlock(lock, __func__)

static inline bool bench_spin_trylock(spinlock_t *lock, const char *where)
{
	if (!bench_spin_cas(lock))
		return false;
	bench_hold_begin(where);
	return true;
}

static inline void bench_spin_lock(spinlock_t *lock, const char *where)
{
	unsigned long long wait;

	if (!bench_spin_cas(lock)) {
		wait = bench_hold_wait_begin();
		do {
			while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
				__builtin_ia32_pause();
		} while (!bench_spin_cas(lock));
		bench_hold_wait_end(wait);
	}
	bench_hold_begin(where);
}

static inline void bench_spin_unlock(spinlock_t *lock, const char *where)
{
	bench_hold_end(where);
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

/* Interrupts and bottom halves are a kernel matter. */
#define spin_lock_nested(x, subclass)	spin_lock(x)
#define spin_lock_bh(x)			spin_lock(x)
#define spin_unlock_bh(x)		spin_unlock(x)
#define spin_lock_irq(x)		spin_lock(x)
#define spin_unlock_irq(x)		spin_unlock(x)
#define spin_lock_irqsave(x, f)		((void)(f), spin_lock(x))
#define spin_unlock_irqrestore(x, f)	((void)(f), spin_unlock(x))

#define lockdep_assert_held(l)		do { (void)(l); } while (0)

#endif /* _BENCH_SPINLOCK_H */
