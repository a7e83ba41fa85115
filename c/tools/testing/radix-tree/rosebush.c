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
#include "rosebush-harness.h"

#include "../../../lib/test_rosebush.c"

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
	/* A case that stopped with a spinlock held would poison the next */
	if (rbh_harness_atomic) {
		printf("%s# %s: ended holding %d spinlocks\n", test->indent,
		       test->name, rbh_harness_atomic);
		rbh_harness_atomic = 0;
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
	if (rbh_harness_check_rcu())
		return 2;

	/* As in the kernel, GFP_NOWAIT allocations normally succeed. */
	kmalloc_nowait_fails = 0;
	rcu_register_thread();
	kunit_case_begin_hook = rbh_harness_case_begin;
	kunit_case_end_hook = rbh_harness_case_end;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	failed = kunit_run_suites(&opts, &totals);
	flush_scheduled_work();
	destroy_system_workqueue();
	if (rbh_harness_leaks("at exit"))
		failed = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);

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
