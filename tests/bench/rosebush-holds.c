// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush-holds.c: the longest time lib/rosebush.c holds a spinlock, on
 * the real CPU, while keys crowded into half of the key space fill a
 * rosebush, while HOLDS_EMPTY_HALF keys then go into the empty half (enough
 * to fill a bucket and split it a few times), and while the rosebush is
 * emptied.
 *
 * With every key's top bit clear, the table deepens with the buckets of
 * the full half, while the empty half keeps the buckets it had: without a
 * bound on how shallow a bucket may be, one bucket of depth 1 covers half
 * the table, and the insertion that fills it points every one of those
 * slots at one of its halves, under the resize lock and a bucket lock
 * ("Resizing in bounded steps" in Documentation/core-api/rosebush.rst).
 * A spinlock held is preemption disabled in the kernel, so the longest
 * hold is the longest such section that rosebush causes.
 *
 * Built by scripts/bench.sh (holds) like rosebush-bench.c: the harness
 * without its debugging checks, and the kernel's 4-byte spinlock from
 * bench-spinlock.h, which with BENCH_HOLDS times every outermost hold on
 * every thread (the shrink work runs on the harness's workqueue thread).
 * Timing costs two clock reads per hold, the same before and after a
 * change, so compare runs of one build of this program against two
 * trees, on one machine.
 *
 * A machine shared with others holds a thread up now and then (an
 * interrupt, or the host taking the virtual CPU), which the thread's CPU
 * time counts: each size runs HOLDS_REPEATS times, and the table shows,
 * for each phase, the least of the runs' longest holds, which a section
 * as long as that in every run still shows.
 *
 * Usage: ./rosebush-holds [N...]	(default 10^6 and 10^7 entries)
 */
#include "rosebush-harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The hash whose key (rbh_key()) is @key: GOLDEN_RATIO_32's inverse */
static u32 holds_hash_of_key(u32 key)
{
	u32 inverse = GOLDEN_RATIO_32;
	int i;

	for (i = 0; i < 5; i++)
		inverse *= 2 - GOLDEN_RATIO_32 * inverse;
	return key * inverse;
}

/* A distinct pointer per entry; never dereferenced */
static void *holds_ptr(unsigned long i)
{
	return (void *)((i + 1) << 3);
}

static u32 holds_random(u64 *state)
{
	/* xorshift64* */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (u32)((*state * 0x2545F4914F6CDD1DULL) >> 32);
}

#define HOLDS_EMPTY_HALF	256
#define HOLDS_REPEATS		3

static double holds_us(void)
{
	return bench_hold_max_ns() / 1000.0;
}

static void holds_stats(struct rbh *rbh, const char *what)
{
	struct rbh_stats st;

	rbh_stats(rbh, &st);
	printf("#   %-22s %8lu entries, %7lu+%lu buckets, %7lu table slots, %9lu bytes, %lu grows, %lu splits, %lu merges\n",
	       what, st.entries, st.buckets, st.overflow_buckets,
	       st.table_slots, st.bytes, st.grows, st.splits, st.merges);
}

static void holds_one(unsigned long n, double us[3], bool print)
{
	u32 *hash = malloc((n + HOLDS_EMPTY_HALF) * sizeof(*hash));
	struct rbh rbh;
	unsigned long i;
	u64 state = 0x726f7365;	/* "rose" */

	if (!hash) {
		fprintf(stderr, "no memory for %lu hashes\n", n);
		exit(1);
	}
	rbh_init(&rbh);
	for (i = 0; i < n; i++)
		hash[i] = holds_hash_of_key(holds_random(&state) >> 1);
	for (; i < n + HOLDS_EMPTY_HALF; i++)
		hash[i] = holds_hash_of_key(holds_random(&state) | BIT(31));

	bench_hold_reset();
	for (i = 0; i < n; i++)
		if (rbh_insert(&rbh, hash[i], holds_ptr(i)))
			goto fail;
	flush_scheduled_work();
	us[0] = holds_us();
	if (print)
		holds_stats(&rbh, "crowded into half:");

	bench_hold_reset();
	for (i = n; i < n + HOLDS_EMPTY_HALF; i++)
		if (rbh_insert(&rbh, hash[i], holds_ptr(i)))
			goto fail;
	flush_scheduled_work();
	us[1] = holds_us();
	if (print)
		holds_stats(&rbh, "then the empty half:");

	bench_hold_reset();
	for (i = 0; i < n + HOLDS_EMPTY_HALF; i++)
		if (rbh_remove(&rbh, hash[i], holds_ptr(i)))
			goto fail;
	flush_scheduled_work();
	us[2] = holds_us();
	if (print)
		holds_stats(&rbh, "emptied:");
	rbh_destroy(&rbh);
	free(hash);
	return;
fail:
	fprintf(stderr, "%lu entries: an insertion or removal failed\n", n);
	exit(1);
}

static void holds_size(unsigned long n)
{
	double us[3], least[3];
	int r, i;

	for (r = 0; r < HOLDS_REPEATS; r++) {
		holds_one(n, us, !r);
		for (i = 0; i < 3; i++)
			if (!r || us[i] < least[i])
				least[i] = us[i];
	}
	printf("%10lu  %12.1f  %14.1f  %12.1f\n", n, least[0], least[1],
	       least[2]);
	fflush(stdout);
}

/* The machine: the numbers mean something only beside others from it */
static void holds_print_machine(void)
{
	char line[256], model[128] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %127[^\n]", model) == 1)
			break;
	if (f)
		fclose(f);
	printf("# machine: %s, %ld CPUs online\n", model,
	       sysconf(_SC_NPROCESSORS_ONLN));
}

int main(int argc, char **argv)
{
	static const unsigned long sizes[] = { 1000000, 10000000 };
	int i;

	if (rbh_harness_check_rcu())
		return 2;
	kmalloc_nowait_fails = 0;
	rcu_register_thread();
	printf("# rosebush-holds: keys with the top bit clear; the longest time any spinlock was held,\n"
	       "# in microseconds of the holder's CPU time, the least of %d runs\n", HOLDS_REPEATS);
	holds_print_machine();
	printf("#   entries  fill (us)  %u in the empty half (us)  emptying (us)\n",
	       HOLDS_EMPTY_HALF);
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			holds_size(strtoul(argv[i], NULL, 0));
	} else {
		for (i = 0; i < 2; i++)
			holds_size(sizes[i]);
	}
	destroy_system_workqueue();
	if (rbh_harness_leaks("at exit"))
		return 1;
	if (rbh_harness_warnings) {
		fprintf(stderr, "%lu WARNs\n", rbh_harness_warnings);
		return 1;
	}
	rcu_unregister_thread();
	return 0;
}
