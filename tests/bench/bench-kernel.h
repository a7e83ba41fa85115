/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-kernel.h: what lib/rhashtable.c, <linux/rhashtable.h> and
 * <linux/list_bl.h> need beyond the rosebush harness
 * (tools/testing/radix-tree/rosebush-harness.h) and the stubs of
 * tools/testing/shared.  Include it right after the harness.
 *
 * Those kernel headers themselves come from the kernel's include/
 * directory, searched after every other one (-idirafter), so that they
 * never replace a header of tools/; tests/bench/include stands in for the
 * three that would drag in the rest of the kernel (and comes before the
 * system's headers, which have a <linux/random.h> of their own).
 *
 * Locking is the part that matters for speed: bit spinlocks are real
 * atomic bit operations, lockdep annotations and interrupt masking
 * compile to nothing (as without CONFIG_LOCKDEP; masking interrupts
 * locally costs next to nothing), and preempt_disable() is a per-thread
 * counter, as the kernel's is per CPU.  The rhashtable's deferred resize
 * runs on the harness's workqueue thread, as it would on a kworker.
 */
#ifndef _BENCH_KERNEL_H
#define _BENCH_KERNEL_H

#include <pthread.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <urcu/uatomic.h>

/* Bit spinlocks only spin on SMP, which is what we measure. */
#define CONFIG_SMP 1

/*
 * tools/testing/shared counts preemption in one global atomic, which
 * would make every bit spinlock bounce a shared cache line between the
 * threads.  The kernel's count (kept by Debian's PREEMPT_DYNAMIC kernels)
 * is per CPU and not atomic: a per-thread count costs the same.
 */
static __thread int bench_preempt_count;
#undef preempt_disable
#undef preempt_enable
#define preempt_disable()	do { bench_preempt_count++; barrier(); } while (0)
#define preempt_enable()	do { barrier(); bench_preempt_count--; } while (0)

#define ____cacheline_aligned_in_smp	__aligned(64)

/* Fully ordered, as the kernel's */
#define cmpxchg(ptr, old, new)	uatomic_cmpxchg(ptr, old, new)

#define cpu_relax()		__builtin_ia32_pause()

/* The bit lock operations of <linux/bit_spinlock.h>, as on x86 */
static inline bool test_and_set_bit_lock(long nr, unsigned long *addr)
{
	unsigned long mask = BIT_MASK(nr);

	return __atomic_fetch_or(addr + BIT_WORD(nr), mask,
				 __ATOMIC_ACQUIRE) & mask;
}

static inline void clear_bit_unlock(long nr, unsigned long *addr)
{
	__atomic_fetch_and(addr + BIT_WORD(nr), ~BIT_MASK(nr),
			   __ATOMIC_RELEASE);
}

/* Only the lock holder writes the word: a plain release store will do. */
static inline void __clear_bit_unlock(long nr, unsigned long *addr)
{
	unsigned long *word = addr + BIT_WORD(nr);

	__atomic_store_n(word, __atomic_load_n(word, __ATOMIC_RELAXED) &
			 ~BIT_MASK(nr), __ATOMIC_RELEASE);
}

/*
 * struct rhashtable's mutex, and rosebush's resize mutex: the tree's
 * userspace shim (tools/testing/shared/linux/mutex.h, a pthread mutex)
 */
#include <linux/mutex.h>

/* Lockdep is off, and interrupts are a kernel matter. */
struct lockdep_map { };

static inline void lockdep_init_map(struct lockdep_map *map, const char *name,
				    struct lock_class_key *key, int subclass)
{
}

static inline void lock_map_acquire(struct lockdep_map *map)
{
}

static inline void lock_map_release(struct lockdep_map *map)
{
}

static inline void lock_acquire_exclusive(struct lockdep_map *map,
					  unsigned int subclass, int trylock,
					  struct lockdep_map *nest,
					  unsigned long ip)
{
}

#define local_irq_save(flags)		((flags) = 0)
#define local_irq_restore(flags)	((void)(flags))
#define _THIS_IP_			0UL

/*
 * rcu_head_after_call_rcu() tells whether call_rcu() was called on an
 * rcu_head that rcu_head_init() prepared: liburcu's call_rcu() sets the
 * callback, as the kernel's does.
 */
static inline void rcu_head_init(struct rcu_head *rhp)
{
	rhp->func = (void (*)(struct rcu_head *))~0UL;
}

static inline bool rcu_head_after_call_rcu(struct rcu_head *rhp,
					   void (*f)(struct rcu_head *))
{
	return READ_ONCE(rhp->func) == f;
}

#endif /* _BENCH_KERNEL_H */
