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

static inline bool spin_trylock(spinlock_t *lock)
{
	unsigned int unlocked = 0;

	return __atomic_compare_exchange_n(&lock->locked, &unlocked, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void spin_lock(spinlock_t *lock)
{
	while (!spin_trylock(lock))
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static inline void spin_unlock(spinlock_t *lock)
{
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
