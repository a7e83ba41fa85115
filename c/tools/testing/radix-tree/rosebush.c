// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush.c: run the rosebush KUnit suite (lib/test_rosebush.c) against
 * lib/rosebush.c in userspace, with liburcu for RCU and pthreads for
 * kthreads and the workqueue.
 *
 * Usage: ./rosebush [-s] [seed=N] [CASE-GLOB]
 *	-s		skip the cases marked KUNIT_CASE_SLOW
 *	seed=N		the suite's module parameter (test_rosebush.seed=N)
 *	CASE-GLOB	run only the cases whose name matches, e.g. 'rbh_alloc_*'
 *
 * A case fails, besides its own checks, if it triggers a WARN or leaves
 * kmalloc()ed memory behind once RCU callbacks and work items have run;
 * the program fails if any case does or if anything allocated is still
 * live at exit.  The exit status is 0 only if everything passed.
 */
#define CONFIG_KUNIT 1
#define CONFIG_PHYS_ADDR_T_64BIT 1

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Before urcu.h, whose synchronize_rcu() must win over the empty one */
#include <linux/kernel.h>
#include <urcu.h>
#include <urcu/uatomic.h>
#include <asm/bug.h>
#include <linux/slab.h>
#include <linux/stringify.h>

/* Count every WARN, so that the case which triggers one fails. */
static unsigned long rbh_harness_warnings;
#undef __WARN_printf
#define __WARN_printf(arg...)						\
	do {								\
		uatomic_inc(&rbh_harness_warnings);			\
		fprintf(stderr, arg);					\
	} while (0)

/*
 * lockdep_assert_held(): glibc records which thread owns a locked mutex,
 * so check that it is this one.
 */
static __thread pid_t rbh_harness_tid;

static inline bool rbh_harness_mutex_held(pthread_mutex_t *lock)
{
	if (!rbh_harness_tid)
		rbh_harness_tid = syscall(SYS_gettid);
	return READ_ONCE(lock->__data.__owner) == rbh_harness_tid;
}
#define lockdep_assert_held(l)	WARN_ON_ONCE(!rbh_harness_mutex_held(l))

/* Sleeping in an RCU read-side critical section is a bug. */
#define might_sleep()		WARN_ON_ONCE(rcu_read_ongoing())

#define module_init(x)
#define module_exit(x)
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_LICENSE(x)
#define MODULE_IMPORT_NS(x)

/* Everything lib/rosebush.c and lib/test_rosebush.c include */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/rosebush.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/workqueue.h>

/* <assert.h> defines it too: the kernel's takes one argument or two */
#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#ifndef __static_assert
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)
#endif

#include "../../../lib/rosebush.c"
#include "../../../lib/test_rosebush.c"

extern int nr_allocated;	/* kmem_cache objects: tools/testing/shared/linux.c */

static struct {
	int kmalloc;
	int kmem_cache;
	unsigned long warnings;
} rbh_harness_before;

static int rbh_harness_case_begin(struct kunit *test)
{
	rbh_harness_before.kmalloc = uatomic_read(&kmalloc_nr_allocated);
	rbh_harness_before.kmem_cache = uatomic_read(&nr_allocated);
	rbh_harness_before.warnings = uatomic_read(&rbh_harness_warnings);
	return 0;
}

/* Let deferred frees happen, then check that the case freed everything. */
static int rbh_harness_case_end(struct kunit *test)
{
	int kmalloc, kmem_cache, err = 0;
	unsigned long warnings;

	flush_scheduled_work();
	rcu_barrier();
	kmalloc = uatomic_read(&kmalloc_nr_allocated) -
		  rbh_harness_before.kmalloc;
	kmem_cache = uatomic_read(&nr_allocated) -
		     rbh_harness_before.kmem_cache;
	warnings = uatomic_read(&rbh_harness_warnings) -
		   rbh_harness_before.warnings;
	if (kmalloc || kmem_cache) {
		printf("%s# %s: leaked %d kmalloc() and %d kmem_cache allocations\n",
		       test->indent, test->name, kmalloc, kmem_cache);
		err = 1;
	}
	if (warnings) {
		printf("%s# %s: %lu WARNs\n", test->indent, test->name,
		       warnings);
		err = 1;
	}
	return err;
}

int main(int argc, char **argv)
{
	struct kunit_run_opts opts = { };
	struct kunit_totals totals = { };
	struct timespec t0, t1;
	int i, failed;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s")) {
			opts.skip_slow = true;
			continue;
		}
		switch (parse_module_param(argv[i])) {
		case 0:
			continue;
		case -1:
			fprintf(stderr, "bad parameter: %s\n", argv[i]);
			return 2;
		}
		if (argv[i][0] == '-' || opts.filter) {
			fprintf(stderr, "usage: %s [-s] [seed=N] [CASE-GLOB]\n",
				argv[0]);
			return 2;
		}
		opts.filter = argv[i];
	}

	/* The tools' <linux/kernel.h> has an empty one: it must not win */
	if (!strcmp(__stringify(synchronize_rcu()), "()")) {
		fprintf(stderr, "synchronize_rcu() is a no-op\n");
		return 2;
	}

	/* As in the kernel, GFP_NOWAIT allocations normally succeed. */
	kmalloc_nowait_fails = 0;
	rcu_register_thread();
	kunit_case_begin_hook = rbh_harness_case_begin;
	kunit_case_end_hook = rbh_harness_case_end;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	failed = kunit_run_suites(&opts, &totals);
	flush_scheduled_work();
	destroy_system_workqueue();
	rcu_barrier();
	clock_gettime(CLOCK_MONOTONIC, &t1);

	if (kmalloc_nr_allocated || nr_allocated) {
		printf("# still allocated at exit: %d kmalloc(), %d kmem_cache\n",
		       kmalloc_nr_allocated, nr_allocated);
		failed = 1;
	}
	if (rbh_harness_warnings) {
		printf("# %lu WARNs\n", rbh_harness_warnings);
		failed = 1;
	}
	printf("# Totals: pass:%u fail:%u skip:%u total:%u\n", totals.pass,
	       totals.fail, totals.skip,
	       totals.pass + totals.fail + totals.skip);
	printf("# %s in %.2f s\n", failed ? "FAILED" : "passed",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	rcu_unregister_thread();
	return failed ? 1 : 0;
}
