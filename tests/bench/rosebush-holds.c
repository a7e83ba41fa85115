// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush-holds.c: the longest time lib/rosebush.c holds a spinlock, on
 * the real CPU, while keys crowded into half of the key space fill a
 * rosebush, while HOLDS_EMPTY_HALF keys then go into the empty half (enough
 * to fill a bucket and split it a few times), while HOLDS_CROWD keys
 * crowded into one slot's range split the long overflow chains they made,
 * and while the rosebush is emptied.
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
 * The crowd: n / 10 keys (at most HOLDS_CROWD_MAX) in the full half that
 * share the top D bits, D being the table's depth then, and differ below.
 * Their bucket splits until the table may not grow any more (16 slots per
 * bucket), and the rest go to overflow chains that a split at the next
 * bit would divide.  After n more keys in
 * the full half, which let the table grow once more, HOLDS_CROWD more keys
 * of the crowd split those buckets: without steps, each split copies its
 * whole chain under the bucket lock and the resize lock.  Only these
 * HOLDS_CROWD insertions are timed.
 *
 * Built by scripts/bench.sh (holds) like rosebush-bench.c: the harness
 * without its debugging checks, and the kernel's 4-byte spinlock from
 * bench-spinlock.h, which with BENCH_HOLDS times every outermost hold on
 * every thread (the work item runs on the harness's workqueue thread).
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
#define HOLDS_CROWD		256
/*
 * Without steps, each insertion into the crowd's full buckets read their
 * whole chains: more would take the tree before them hours at 10^7
 */
#define HOLDS_CROWD_MAX		100000UL
#define HOLDS_REPEATS		3
#define HOLDS_PHASES		4

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

/* Insert entries @from to @to - 1 of @hash; false if one failed */
static bool holds_insert(struct rbh *rbh, const u32 *hash, unsigned long from,
			 unsigned long to)
{
	unsigned long i;

	for (i = from; i < to; i++)
		if (rbh_insert(rbh, hash[i], holds_ptr(i)))
			return false;
	return true;
}

static void holds_one(unsigned long n, double us[HOLDS_PHASES],
		      const char *where[HOLDS_PHASES][2], bool print)
{
	unsigned long crowd = min(n / 10, HOLDS_CROWD_MAX), i, j, total;
	u64 state = 0x726f7365;	/* "rose" */
	struct rbh_stats st;
	unsigned int depth;
	u32 *hash, prefix;
	struct rbh rbh;

	total = n + HOLDS_EMPTY_HALF + crowd + n + HOLDS_CROWD;
	hash = malloc(total * sizeof(*hash));
	if (!hash) {
		fprintf(stderr, "no memory for %lu hashes\n", total);
		exit(1);
	}
	rbh_init(&rbh);
	for (i = 0; i < n; i++)
		hash[i] = rbh_harness_hash_of_key(holds_random(&state) >> 1);
	for (; i < n + HOLDS_EMPTY_HALF; i++)
		hash[i] = rbh_harness_hash_of_key(holds_random(&state) | BIT(31));

	bench_hold_reset();
	if (!holds_insert(&rbh, hash, 0, n))
		goto fail;
	flush_scheduled_work();
	us[0] = holds_us();
	where[0][0] = bench_hold_max_where();
	where[0][1] = bench_hold_max_end();
	if (print)
		holds_stats(&rbh, "crowded into half:");

	bench_hold_reset();
	if (!holds_insert(&rbh, hash, n, n + HOLDS_EMPTY_HALF))
		goto fail;
	flush_scheduled_work();
	us[1] = holds_us();
	where[1][0] = bench_hold_max_where();
	where[1][1] = bench_hold_max_end();
	if (print)
		holds_stats(&rbh, "then the empty half:");

	/*
	 * The crowd shares the top @depth bits of a key in the full half,
	 * whose buckets are as deep as the table: in the empty half, the
	 * crowd's keys, equal in the bits below its buckets' prefixes, would
	 * go to a chain without asking for a split.
	 */
	rbh_stats(&rbh, &st);
	depth = ilog2(st.table_slots);
	prefix = (holds_random(&state) >> 1) & ~(U32_MAX >> depth);
	j = n + HOLDS_EMPTY_HALF;
	for (i = 0; i < crowd; i++)
		hash[j + i] = rbh_harness_hash_of_key(prefix |
				(holds_random(&state) & (U32_MAX >> depth)));
	j += crowd;
	for (i = 0; i < n; i++)
		hash[j + i] = rbh_harness_hash_of_key(holds_random(&state) >> 1);
	j += n;
	for (i = 0; i < HOLDS_CROWD; i++)
		hash[j + i] = rbh_harness_hash_of_key(prefix |
				(holds_random(&state) & (U32_MAX >> depth)));
	if (!holds_insert(&rbh, hash, n + HOLDS_EMPTY_HALF, j))
		goto fail;
	flush_scheduled_work();
	if (print)
		holds_stats(&rbh, "a crowd, then as many:");
	bench_hold_reset();
	if (!holds_insert(&rbh, hash, j, total))
		goto fail;
	flush_scheduled_work();
	us[2] = holds_us();
	where[2][0] = bench_hold_max_where();
	where[2][1] = bench_hold_max_end();
	if (print)
		holds_stats(&rbh, "then more of the crowd:");

	bench_hold_reset();
	for (i = 0; i < total; i++)
		if (rbh_remove(&rbh, hash[i], holds_ptr(i)))
			goto fail;
	flush_scheduled_work();
	us[3] = holds_us();
	where[3][0] = bench_hold_max_where();
	where[3][1] = bench_hold_max_end();
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
	double us[HOLDS_PHASES], least[HOLDS_PHASES];
	const char *where[HOLDS_PHASES][2], *least_where[HOLDS_PHASES][2];
	int r, i, e;

	for (r = 0; r < HOLDS_REPEATS; r++) {
		holds_one(n, us, where, !r);
		for (i = 0; i < HOLDS_PHASES; i++) {
			if (!r || us[i] < least[i]) {
				least[i] = us[i];
				for (e = 0; e < 2; e++)
					least_where[i][e] = where[i][e] ?: "-";
			}
		}
	}
	printf("# %lu entries: each phase's longest hold was taken in / released in:", n);
	for (i = 0; i < HOLDS_PHASES; i++)
		printf("%s %s / %s", i ? "," : "", least_where[i][0],
		       least_where[i][1]);
	printf("\n");
	printf("%10lu  %12.1f  %14.1f  %14.1f  %12.1f\n", n, least[0],
	       least[1], least[2], least[3]);
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
	printf("#   entries  fill (us)  %u in the empty half (us)  %u more of a crowd (us)  emptying (us)\n",
	       HOLDS_EMPTY_HALF, HOLDS_CROWD);
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
