// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit tests for the rosebush hash table (lib/rosebush.c).
 *
 * The tests use only the API in <linux/rosebush.h>, plus the two
 * allocation hooks it declares for this suite, rbh_alloc_bucket() and
 * rbh_alloc_table(), which they redirect (kunit/static_stub.h) to make
 * chosen allocations fail.  Most stored pointers are fake values made by
 * rbh_test_ptr(): the rosebush never dereferences what it stores.  Every
 * case creates its own rosebush and destroys it before it returns.
 *
 * With nobody changing it, a rosebush is checked more strictly than the
 * iteration guarantee requires: rbh_next() must return exactly the
 * pointers stored under the hash, each as often as it is stored.  The
 * concurrent cases rely on the guarantee alone.
 *
 * The cases that use random numbers print their seed.  Boot with
 * test_rosebush.seed=N (or load the module with seed=N) to change it.
 */

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/rosebush.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>

/* The hash shared by the entries of the equal-hash tests. */
#define RBH_TEST_FLOOD		0x5eed0f1dU
/* A walk returning more pointers than this is taken to be endless. */
#define RBH_TEST_WALK_LIMIT	(4UL * 1024 * 1024)
/* Length of the occupancy histogram printed by rbh_test_print_stats(). */
#define RBH_TEST_HIST_LEN	400

/*
 * The widest range of table slots one bucket may cover: RBH_RESIZE_STEP
 * of lib/rosebush.c, which the userspace build makes small.
 */
#ifdef RBH_RESIZE_STEP
#define RBH_TEST_WIDEST		RBH_RESIZE_STEP
#else
#define RBH_TEST_WIDEST		1024UL
#endif

static unsigned long rbh_test_seed = 0x726f7365;	/* "rose" */
module_param_named(seed, rbh_test_seed, ulong, 0444);
MODULE_PARM_DESC(seed, "Seed for the cases that use random numbers");

/*
 * Test values.  rbh_test_ptr(id) is the pointer stored for entry @id:
 * never NULL, and never dereferenced by the rosebush.
 */
static void *rbh_test_ptr(unsigned long id)
{
	return (void *)((id << 2) | 2);
}

/* Decode a pointer made by rbh_test_ptr(); false if it is not one. */
static bool rbh_test_ptr_id(const void *p, unsigned long *id)
{
	unsigned long v = (unsigned long)p;

	*id = v >> 2;
	return (v & 3) == 2;
}

/*
 * The hash whose key is @key.  The design mixes a hash into a key by
 * multiplying it by GOLDEN_RATIO_32, so multiplying by the inverse lets a
 * test aim entries at one part of the table.  Only the shape the test
 * reaches depends on this, not what it checks.
 */
static u32 rbh_test_hash_of_key(u32 key)
{
	u32 inverse = GOLDEN_RATIO_32;
	int i;

	/* Newton's iteration doubles the number of correct low bits. */
	for (i = 0; i < 5; i++)
		inverse *= 2 - GOLDEN_RATIO_32 * inverse;
	return key * inverse;
}

KUNIT_DEFINE_ACTION_WRAPPER(rbh_test_destroy_action, rbh_destroy, struct rbh *);

/*
 * A new rosebush, initialised with rbh_init().  If the case stops early (a
 * failed KUNIT_ASSERT), KUnit destroys it.
 */
static struct rbh *rbh_test_new(struct kunit *test)
{
	struct rbh *rbh = kunit_kzalloc(test, sizeof(*rbh), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, rbh);
	rbh_init(rbh);
	err = kunit_add_action_or_reset(test, rbh_test_destroy_action, rbh);
	KUNIT_ASSERT_EQ(test, err, 0);
	return rbh;
}

/* Destroy a rosebush made by rbh_test_new(), as every case does. */
static void rbh_test_destroy(struct kunit *test, struct rbh *rbh)
{
	kunit_release_action(test, rbh_test_destroy_action, rbh);
	kunit_kfree(test, rbh);
}

/* struct rbh_stats is large, so the tests keep it off the stack. */
static struct rbh_stats *rbh_test_stats_alloc(struct kunit *test)
{
	struct rbh_stats *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	return st;
}

/* Whether @rbh has a table of its own, rather than RBH_NO_TABLE */
static bool rbh_test_has_table(struct rbh *rbh)
{
	return rcu_access_pointer(rbh->rbh_table) !=
	       (__force struct rbh_table *)RBH_NO_TABLE;
}

/*
 * Wait for the work item that insertions and removals queue, so that
 * what it grows, splits, folds, merges and halves shows in a snapshot.
 * A rosebush sets the work up with its first table.
 */
static void rbh_test_settle(struct rbh *rbh)
{
	if (rbh_test_has_table(rbh))
		flush_work(&rbh->rbh_work);
}

/*
 * Keep the work item from running on its own, so that a case sees what
 * removals do before it runs, and can run it in its own thread (where
 * its allocation stubs apply) with rbh_test_work_here(), which must
 * follow.  The rosebush sets the work up with its first table.
 */
static void rbh_test_work_off(struct kunit *test, struct rbh *rbh)
{
	KUNIT_ASSERT_TRUE(test, rbh_test_has_table(rbh));
	disable_work_sync(&rbh->rbh_work);
}

/*
 * Run the work item in this thread, then let it be queued again.  What
 * removals handed it while it could not be queued is done now, so none
 * of it is left waiting for a work item that nobody will queue.
 */
static void rbh_test_work_here(struct kunit *test, struct rbh *rbh)
{
	rbh->rbh_work.func(&rbh->rbh_work);
	enable_work(&rbh->rbh_work);
	KUNIT_EXPECT_EQ(test, rbh->rbh_shrink_nr, 0U);
	KUNIT_EXPECT_FALSE(test, rbh->rbh_shrink_halve);
}

/* The buckets as deep as the table, counted from its slots */
static unsigned long rbh_test_deep(struct rbh *rbh)
{
	struct rbh_bucket __rcu **table;
	unsigned long i, n = 0;
	unsigned int depth;

	rcu_read_lock();
	table = rbh_untag(rcu_dereference(rbh->rbh_table), &depth);
	for (i = 0; table && i < (1UL << depth); i++)
		if (rcu_dereference(table[i])->h.depth == depth)
			n++;
	rcu_read_unlock();
	return n;
}

/*
 * Take a snapshot of @rbh, once its work item is done, and check what
 * every snapshot of a rosebush nobody is changing satisfies.
 */
static void rbh_test_stats(struct kunit *test, struct rbh *rbh,
			   struct rbh_stats *st)
{
	unsigned long buckets = 0, used = 0;
	unsigned int n;

	rbh_test_settle(rbh);
	rbh_stats(rbh, st);
	KUNIT_EXPECT_GT(test, st->bucket_capacity, 0U);
	KUNIT_EXPECT_LE(test, st->bucket_capacity, RBH_MAX_ENTRIES);
	for (n = 0; n <= st->bucket_capacity && n <= RBH_MAX_ENTRIES; n++) {
		buckets += st->occupancy[n];
		used += n * st->occupancy[n];
	}
	KUNIT_EXPECT_EQ_MSG(test, buckets, st->buckets,
			    "the occupancy histogram does not add up");
	/* The counts that decide on growing and halving match the table */
	KUNIT_EXPECT_EQ(test, (unsigned long)READ_ONCE(rbh->rbh_nr_buckets),
			st->buckets);
	KUNIT_EXPECT_EQ(test, (unsigned long)READ_ONCE(rbh->rbh_nr_deep),
			rbh_test_deep(rbh));
	/* Primary buckets hold everything that is not in a chain. */
	KUNIT_EXPECT_LE(test, used, st->entries + st->reserved);
	if (!st->overflow_buckets)
		KUNIT_EXPECT_EQ(test, used, st->entries + st->reserved);
	if (!st->table_slots) {
		KUNIT_EXPECT_EQ(test, st->buckets, 0UL);
		KUNIT_EXPECT_EQ(test, st->bytes, 0UL);
		KUNIT_EXPECT_EQ(test, st->entries + st->reserved, 0UL);
		return;
	}
	/* Every bucket, and the table (at least 32 bytes), each once */
	KUNIT_EXPECT_EQ(test, st->bytes, (st->buckets + st->overflow_buckets) *
			RBH_BUCKET_SIZE + max_t(unsigned long, RBH_SHIFT_MASK + 1,
						st->table_slots * sizeof(void *)));
	KUNIT_EXPECT_TRUE_MSG(test, is_power_of_2(st->table_slots),
			      "%lu table slots", st->table_slots);
	KUNIT_EXPECT_GE(test, st->table_slots, 2UL);
	KUNIT_EXPECT_GE(test, st->buckets, 2UL);
	KUNIT_EXPECT_LE(test, st->buckets, st->table_slots);
	KUNIT_EXPECT_GE(test, st->widest, 1UL);
	KUNIT_EXPECT_LE(test, st->widest, st->table_slots / 2);
	KUNIT_EXPECT_LE(test, st->widest, RBH_TEST_WIDEST);
	KUNIT_EXPECT_GT(test, st->bytes, 0UL);
}

/* The bucket capacity, which rbh_stats() reports even when empty. */
static unsigned int rbh_test_capacity(struct kunit *test, struct rbh *rbh,
				      struct rbh_stats *st)
{
	rbh_test_stats(test, rbh, st);
	KUNIT_ASSERT_GT(test, st->bucket_capacity, 0U);
	return st->bucket_capacity;
}

/* How often the shape of the rosebush has changed. */
static unsigned long rbh_test_resizes(const struct rbh_stats *st)
{
	return st->grows + st->shrinks + st->splits + st->merges;
}

static void rbh_test_print_stats(struct kunit *test, const char *what,
				 const struct rbh_stats *st)
{
	unsigned long used = 0, mean = 0, per_entry = 0;
	char hist[RBH_TEST_HIST_LEN];
	unsigned int n, len = 0;

	for (n = 0; n <= st->bucket_capacity && n <= RBH_MAX_ENTRIES; n++) {
		used += n * st->occupancy[n];
		len += scnprintf(hist + len, sizeof(hist) - len, " %lu",
				 st->occupancy[n]);
	}
	if (st->buckets && st->bucket_capacity)
		mean = 100 * used / (st->buckets * st->bucket_capacity);
	if (st->entries)
		per_entry = 100 * st->bytes / st->entries;
	kunit_info(test,
		   "%s: %lu entries, %lu reserved, %lu+%lu buckets, %lu table slots, %lu bytes, %lu.%02lu bytes/entry\n",
		   what, st->entries, st->reserved, st->buckets,
		   st->overflow_buckets, st->table_slots, st->bytes,
		   per_entry / 100, per_entry % 100);
	kunit_info(test, "%s: mean occupancy %lu%%, occupancy[0..%u]:%s\n",
		   what, mean, st->bucket_capacity, hist);
	kunit_info(test,
		   "%s: %lu grows, %lu shrinks, %lu splits, %lu merges\n",
		   what, st->grows, st->shrinks, st->splits, st->merges);
}

/*
 * Walk @hash under the RCU read lock.  Return how often @p came back, and
 * in @total how many pointers did.
 */
static unsigned long rbh_test_count(struct rbh *rbh, u32 hash, const void *p,
				    unsigned long *total)
{
	unsigned long n = 0, all = 0;
	struct rbh_iter iter;
	void *q;

	rcu_read_lock();
	for (q = rbh_first(&iter, rbh, hash); q && all < RBH_TEST_WALK_LIMIT;
	     q = rbh_next(&iter)) {
		all++;
		if (q == p)
			n++;
	}
	rcu_read_unlock();
	if (total)
		*total = all;
	return n;
}

/* The first pointer a walk of @hash returns with the iterator locked */
static void *rbh_test_locked_first(struct rbh *rbh, u32 hash)
{
	RBH_ITER(iter, rbh, hash);
	void *p;

	rbh_iter_lock(&iter);
	p = rbh_next(&iter);
	rbh_iter_unlock(&iter);
	return p;
}

/* The hash patterns of the parameterised tests. */
enum rbh_test_pattern {
	RBH_TEST_SEQUENTIAL,	/* hash = i */
	RBH_TEST_RANDOM,	/* prandom, seeded with rbh_test_seed */
	RBH_TEST_LOW_BITS,	/* hash = i << 12: the low 12 bits are equal */
	RBH_TEST_ONE_HASH,	/* hash = RBH_TEST_FLOOD for all */
};

static const char *const rbh_test_pattern_names[] = {
	[RBH_TEST_SEQUENTIAL] = "sequential",
	[RBH_TEST_RANDOM] = "random",
	[RBH_TEST_LOW_BITS] = "equal low bits",
	[RBH_TEST_ONE_HASH] = "all equal",
};

static u32 rbh_test_pattern_hash(enum rbh_test_pattern pattern,
				 unsigned long i, struct rnd_state *rnd)
{
	switch (pattern) {
	case RBH_TEST_SEQUENTIAL:
		return i;
	case RBH_TEST_RANDOM:
		return prandom_u32_state(rnd);
	case RBH_TEST_LOW_BITS:
		return (u32)(i << 12);
	case RBH_TEST_ONE_HASH:
		break;
	}
	return RBH_TEST_FLOOD;
}

/*
 * A set of test entries and which of them should be in the rosebush.
 * Entry @i is the pointer rbh_test_ptr(@i) stored under @hash[@i].
 */
struct rbh_test_set {
	struct rbh *rbh;
	u32 *hash;
	unsigned long *present;	/* bitmap: entry i is stored */
	u32 *seen;		/* rbh_test_check_set(): the walk that saw i */
	unsigned long max;	/* entries 0 .. max - 1 */
	unsigned long nr;	/* entries stored */
};

static struct rbh_test_set *rbh_test_set_new(struct kunit *test,
					     struct rbh *rbh,
					     unsigned long entries)
{
	struct rbh_test_set *set = kunit_kzalloc(test, sizeof(*set),
						 GFP_KERNEL);
	unsigned long size = max(entries, 1UL);

	KUNIT_ASSERT_NOT_NULL(test, set);
	set->hash = kunit_kcalloc(test, size, sizeof(*set->hash), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->hash);
	set->seen = kunit_kcalloc(test, size, sizeof(*set->seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->seen);
	set->present = kunit_kcalloc(test, BITS_TO_LONGS(size),
				     sizeof(unsigned long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->present);
	set->rbh = rbh;
	set->max = entries;
	return set;
}

static void rbh_test_set_fill(struct rbh_test_set *set,
			      enum rbh_test_pattern pattern)
{
	struct rnd_state rnd;
	unsigned long i;

	prandom_seed_state(&rnd, rbh_test_seed);
	for (i = 0; i < set->max; i++)
		set->hash[i] = rbh_test_pattern_hash(pattern, i, &rnd);
}

static int rbh_test_set_insert(struct rbh_test_set *set, unsigned long i)
{
	int err = rbh_insert(set->rbh, set->hash[i], rbh_test_ptr(i));

	if (!err) {
		__set_bit(i, set->present);
		set->nr++;
	}
	return err;
}

/* Fill a reservation made under the hash of entry @i with entry @i. */
static int rbh_test_set_use(struct rbh_test_set *set, unsigned long i)
{
	int err = rbh_use(set->rbh, set->hash[i], rbh_test_ptr(i));

	if (!err) {
		__set_bit(i, set->present);
		set->nr++;
	}
	return err;
}

static int rbh_test_set_remove(struct rbh_test_set *set, unsigned long i)
{
	int err = rbh_remove(set->rbh, set->hash[i], rbh_test_ptr(i));

	if (!err) {
		__clear_bit(i, set->present);
		set->nr--;
	}
	return err;
}

/* Insert entries @first .. @end - 1; stop at the first failure. */
static bool rbh_test_set_add(struct kunit *test, struct rbh_test_set *set,
			     unsigned long first, unsigned long end)
{
	unsigned long i;
	int err;

	for (i = first; i < end; i++) {
		err = rbh_test_set_insert(set, i);
		if (err) {
			KUNIT_FAIL(test, "rbh_insert(%#x, %p) of entry %lu: %d",
				   set->hash[i], rbh_test_ptr(i), i, err);
			return false;
		}
		cond_resched();
	}
	return true;
}

/* Remove the stored entries among @first .. @end - 1. */
static bool rbh_test_set_del(struct kunit *test, struct rbh_test_set *set,
			     unsigned long first, unsigned long end)
{
	unsigned long i;
	int err;

	for (i = first; i < end; i++) {
		if (!test_bit(i, set->present))
			continue;
		err = rbh_test_set_remove(set, i);
		if (err) {
			KUNIT_FAIL(test, "rbh_remove(%#x, %p) of entry %lu: %d",
				   set->hash[i], rbh_test_ptr(i), i, err);
			return false;
		}
		cond_resched();
	}
	return true;
}

/*
 * Check by iteration that the rosebush holds exactly the set's stored
 * entries: each hash is walked once, and must return each entry stored
 * under it once, and nothing else.
 */
static bool rbh_test_check_set(struct kunit *test, struct rbh_test_set *set)
{
	unsigned long i, id, missing = 0, extra = 0, twice = 0;
	unsigned long missing_id = 0, twice_id = 0;
	void *p, *extra_p = NULL;
	u32 walk = 0, extra_hash = 0;

	memset(set->seen, 0, max(set->max, 1UL) * sizeof(*set->seen));
	for (i = 0; i < set->max; i++) {
		unsigned long returned = 0;
		struct rbh_iter iter;

		if (!test_bit(i, set->present) || set->seen[i])
			continue;
		walk++;
		rcu_read_lock();
		for (p = rbh_first(&iter, set->rbh, set->hash[i]);
		     p && returned++ < RBH_TEST_WALK_LIMIT;
		     p = rbh_next(&iter)) {
			if (!rbh_test_ptr_id(p, &id) || id >= set->max ||
			    !test_bit(id, set->present) ||
			    set->hash[id] != set->hash[i]) {
				if (!extra++) {
					extra_p = p;
					extra_hash = set->hash[i];
				}
				continue;
			}
			if (set->seen[id] == walk && !twice++)
				twice_id = id;
			set->seen[id] = walk;
		}
		rcu_read_unlock();
		cond_resched();
	}
	for (i = 0; i < set->max; i++) {
		if (test_bit(i, set->present) && !set->seen[i] && !missing++)
			missing_id = i;
	}
	KUNIT_EXPECT_EQ_MSG(test, missing, 0UL,
			    "stored entries not returned; the first: %lu, hash %#x, %p",
			    missing_id, set->hash[missing_id],
			    rbh_test_ptr(missing_id));
	KUNIT_EXPECT_EQ_MSG(test, twice, 0UL,
			    "entries returned twice; the first: %lu, hash %#x",
			    twice_id, set->hash[twice_id]);
	KUNIT_EXPECT_EQ_MSG(test, extra, 0UL,
			    "pointers not stored under the hash returned; the first: %p for hash %#x",
			    extra_p, extra_hash);
	return !missing && !twice && !extra;
}

/* Check the entry and reservation counts of rbh_stats(). */
static void rbh_test_check_counts(struct kunit *test, struct rbh *rbh,
				  struct rbh_stats *st, unsigned long entries,
				  unsigned long reserved)
{
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->entries, entries);
	KUNIT_EXPECT_EQ(test, st->reserved, reserved);
}

/*
 * Walk @hash with the iterator locked, removing every @every'th entry it
 * returns with rbh_iter_remove().  Return how many were removed.
 */
static unsigned long rbh_test_set_iter_remove(struct kunit *test,
					      struct rbh_test_set *set,
					      u32 hash, unsigned int every)
{
	RBH_ITER(iter, set->rbh, hash);
	unsigned long id, returned = 0, removed = 0, bad = 0;
	void *p;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL && bad < RBH_TEST_WALK_LIMIT) {
		/* Nobody else can change these entries: each comes once. */
		if (!rbh_test_ptr_id(p, &id) || id >= set->max ||
		    !test_bit(id, set->present) || set->hash[id] != hash) {
			bad++;
			continue;
		}
		if (returned++ % every)
			continue;
		KUNIT_EXPECT_TRUE(test, rbh_iter_remove(&iter, p));
		__clear_bit(id, set->present);
		set->nr--;
		removed++;
	}
	rbh_iter_unlock(&iter);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0UL,
			    "a locked walk of hash %#x returned %lu unexpected pointers",
			    hash, bad);
	return removed;
}

/* Parameters of rbh_insert_iterate_remove(). */
struct rbh_test_param {
	enum rbh_test_pattern pattern;
	unsigned int cap_mul;	/* entries: cap_mul * bucket capacity + nr */
	unsigned long nr;
	const char *size;
};

static const struct rbh_test_param rbh_test_params[] = {
	{ RBH_TEST_SEQUENTIAL, 0, 0, "0" },
	{ RBH_TEST_SEQUENTIAL, 0, 1, "1" },
	{ RBH_TEST_SEQUENTIAL, 1, 0, "CAP" },
	{ RBH_TEST_SEQUENTIAL, 2, 1, "2*CAP+1" },
	{ RBH_TEST_SEQUENTIAL, 0, 10000, "10000" },
	{ RBH_TEST_SEQUENTIAL, 0, 100000, "100000" },
	{ RBH_TEST_RANDOM, 0, 0, "0" },
	{ RBH_TEST_RANDOM, 0, 1, "1" },
	{ RBH_TEST_RANDOM, 1, 0, "CAP" },
	{ RBH_TEST_RANDOM, 2, 1, "2*CAP+1" },
	{ RBH_TEST_RANDOM, 0, 10000, "10000" },
	{ RBH_TEST_RANDOM, 0, 100000, "100000" },
	{ RBH_TEST_LOW_BITS, 0, 0, "0" },
	{ RBH_TEST_LOW_BITS, 0, 1, "1" },
	{ RBH_TEST_LOW_BITS, 1, 0, "CAP" },
	{ RBH_TEST_LOW_BITS, 2, 1, "2*CAP+1" },
	{ RBH_TEST_LOW_BITS, 0, 10000, "10000" },
	{ RBH_TEST_LOW_BITS, 0, 100000, "100000" },
	{ RBH_TEST_ONE_HASH, 0, 0, "0" },
	{ RBH_TEST_ONE_HASH, 0, 1, "1" },
	{ RBH_TEST_ONE_HASH, 1, 0, "CAP" },
	{ RBH_TEST_ONE_HASH, 2, 1, "2*CAP+1" },
	{ RBH_TEST_ONE_HASH, 0, 10000, "10000" },
	{ RBH_TEST_ONE_HASH, 0, 100000, "100000" },
};

static void rbh_test_param_desc(const struct rbh_test_param *param,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s entries, %s hashes",
		 param->size, rbh_test_pattern_names[param->pattern]);
}

KUNIT_ARRAY_PARAM(rbh_test_sizes, rbh_test_params, rbh_test_param_desc);

/*
 * Insert entries with one pattern of hashes, find every one of them by
 * iteration, check the counts, remove them all and find none.
 */
static void rbh_insert_iterate_remove(struct kunit *test)
{
	const struct rbh_test_param *param = test->param_value;
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	unsigned long n, removed;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, st);
	n = param->cap_mul * cap + param->nr;
	kunit_info(test, "%lu entries, bucket capacity %u, seed %lu\n", n, cap,
		   rbh_test_seed);
	set = rbh_test_set_new(test, rbh, n);
	rbh_test_set_fill(set, param->pattern);

	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	KUNIT_EXPECT_EQ(test, rbh_empty(rbh), n == 0);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, n, 0);
	if (param->pattern == RBH_TEST_ONE_HASH && n > cap)
		KUNIT_EXPECT_GT(test, st->overflow_buckets, 0UL);

	if (param->pattern == RBH_TEST_ONE_HASH) {
		/* One locked walk, not n walks of a chain n entries long */
		removed = rbh_test_set_iter_remove(test, set, RBH_TEST_FLOOD, 1);
		KUNIT_EXPECT_EQ(test, removed, n);
	} else {
		rbh_test_set_del(test, set, 0, n);
	}
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_check_counts(test, rbh, st, 0, 0);
	KUNIT_EXPECT_EQ(test, st->overflow_buckets, 0UL);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, set->hash[0], NULL, &removed),
			0UL);
	KUNIT_EXPECT_EQ(test, removed, 0UL);
out:
	rbh_test_destroy(test, rbh);
}

/* A rosebush in static storage, which nothing ever stores in */
static DEFINE_ROSEBUSH(rbh_test_static);

/* Hashes that walk an empty rosebush: 0 is the only one whose key is 0 */
static const u32 rbh_test_empty_hashes[] = { 0, 1, RBH_TEST_FLOOD, U32_MAX };

/* Walks of each of rbh_test_empty_hashes[] in @rbh find nothing. */
static void rbh_test_walks_empty(struct kunit *test, struct rbh *rbh,
				 const char *what)
{
	unsigned long total;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rbh_test_empty_hashes); i++) {
		rbh_test_count(rbh, rbh_test_empty_hashes[i], NULL, &total);
		KUNIT_EXPECT_EQ_MSG(test, total, 0UL, "%s: hash %#x", what,
				    rbh_test_empty_hashes[i]);
	}
}

/*
 * A rosebush that was never used is empty, holds no memory, returns
 * nothing, and refuses removals and uses without allocating anything;
 * so is one in static storage, and one destroyed after use.  Their
 * lookups go through the table that every rosebush without one shares
 * (RBH_NO_TABLE), whose only key is 0.
 */
static void rbh_never_used_is_empty(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	int err;

	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->table_slots, 0UL);
	KUNIT_EXPECT_EQ(test, st->bytes, 0UL);
	rbh_test_walks_empty(test, rbh, "never used");
	rbh_test_walks_empty(test, &rbh_test_static, "static");
	KUNIT_EXPECT_TRUE(test, rbh_empty(&rbh_test_static));
	KUNIT_EXPECT_PTR_EQ(test, rbh_test_locked_first(rbh, 1), NULL);

	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, 1, rbh_test_ptr(1)), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, 1, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_use(rbh, 1, rbh_test_ptr(1)), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_insert(rbh, 1, NULL), -EINVAL);
	/* Which of the two errors wins is not specified. */
	err = rbh_use(rbh, 1, NULL);
	KUNIT_EXPECT_TRUE_MSG(test, err == -EINVAL || err == -ENOENT,
			      "rbh_use(NULL) returned %d", err);

	/* None of the failed calls allocated anything. */
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->table_slots, 0UL);
	KUNIT_EXPECT_EQ(test, st->bytes, 0UL);

	/* A rosebush destroyed after use has no table again */
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, 0, rbh_test_ptr(1)), 0);
	rbh_destroy(rbh);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_walks_empty(test, rbh, "destroyed");
	rbh_test_destroy(test, rbh);
}

/* rbh_empty() follows entries and reservations as they come and go. */
static void rbh_empty_tracks_contents(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	unsigned long i, total;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, st);
	set = rbh_test_set_new(test, rbh, 3 * cap);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));

	KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, 0), 0);
	KUNIT_EXPECT_FALSE(test, rbh_empty(rbh));
	KUNIT_EXPECT_EQ(test, rbh_test_set_remove(set, 0), 0);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));

	/* A reservation counts. */
	KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, 5), 0);
	KUNIT_EXPECT_FALSE(test, rbh_empty(rbh));
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, 5), 0);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));

	/* So do entries in a grown table, until the last one goes. */
	if (!rbh_test_set_add(test, set, 0, set->max))
		goto out;
	KUNIT_EXPECT_FALSE(test, rbh_empty(rbh));
	if (!rbh_test_set_del(test, set, 0, set->max - 1))
		goto out;
	KUNIT_EXPECT_FALSE(test, rbh_empty(rbh));
	rbh_test_set_del(test, set, set->max - 1, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	for (i = 0; i < set->max; i++) {
		rbh_test_count(rbh, set->hash[i], NULL, &total);
		KUNIT_EXPECT_EQ_MSG(test, total, 0UL, "hash %#x", set->hash[i]);
	}
	rbh_test_check_counts(test, rbh, st, 0, 0);
out:
	rbh_test_destroy(test, rbh);
}

/*
 * rbh_use() fills a reservation, which iteration then finds;
 * rbh_release() and rbh_remove(hash, NULL) give one back; each refuses
 * with -ENOENT when there is no reservation for the hash, and NULL
 * pointers are -EINVAL.
 */
static void rbh_reserve_use_release(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	void *p = rbh_test_ptr(1), *q = rbh_test_ptr(2);
	const u32 hash = 42;
	unsigned long total;

	KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, hash), 0);
	KUNIT_EXPECT_FALSE(test, rbh_empty(rbh));
	rbh_test_check_counts(test, rbh, st, 0, 1);
	rbh_test_count(rbh, hash, NULL, &total);
	KUNIT_EXPECT_EQ(test, total, 0UL);

	/* Neither a NULL pointer nor another hash consumes it. */
	KUNIT_EXPECT_EQ(test, rbh_insert(rbh, hash, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rbh_use(rbh, hash, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rbh_use(rbh, hash + 1, p), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, hash + 1), -ENOENT);
	rbh_test_check_counts(test, rbh, st, 0, 1);

	KUNIT_EXPECT_EQ(test, rbh_use(rbh, hash, p), 0);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, hash, p, &total), 1UL);
	KUNIT_EXPECT_EQ(test, total, 1UL);
	rbh_test_check_counts(test, rbh, st, 1, 0);

	/* The reservation is used up; the stored entry is not one. */
	KUNIT_EXPECT_EQ(test, rbh_use(rbh, hash, q), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, hash), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, hash, p, &total), 1UL);
	KUNIT_EXPECT_EQ(test, total, 1UL);

	KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, hash), 0);
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, hash), 0);
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, hash), -ENOENT);

	KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, hash), 0);
	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, NULL), 0);
	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, NULL), -ENOENT);
	rbh_test_check_counts(test, rbh, st, 1, 0);

	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, q), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, p), 0);
	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, p), -ENOENT);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * rbh_next() never returns a reservation (which would end the walk
 * early), whether it sits between entries of the same hash, fills an
 * overflow chain, or is spread over buckets that split.
 */
static void rbh_next_skips_reservations(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	unsigned long i, reserved = 0;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, st);
	/* Entries 0-2 are inserted, the rest fill reservations. */
	set = rbh_test_set_new(test, rbh, 2 * cap + 7);
	for (i = 0; i < set->max; i++)
		set->hash[i] = RBH_TEST_FLOOD;

	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, RBH_TEST_FLOOD), 0);
		KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i), 0);
	}
	KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, RBH_TEST_FLOOD), 0);
	reserved = 4;
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, 3, reserved);

	/* Enough reservations to need an overflow chain. */
	for (i = 7; i < set->max; i++) {
		KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, RBH_TEST_FLOOD), 0);
		reserved++;
	}
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, 3, reserved);

	for (i = 3; i < set->max; i++)
		KUNIT_EXPECT_EQ_MSG(test, rbh_test_set_use(set, i), 0,
				    "rbh_use() %lu", i);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, set->nr, 0);

	/* Reservations under many hashes make buckets split. */
	for (i = 0; i < 4 * cap; i++)
		KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, i), 0);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, set->nr, 4 * cap);
	for (i = 0; i < 4 * cap; i++)
		KUNIT_EXPECT_EQ(test, rbh_release(rbh, i), 0);
	rbh_test_check_counts(test, rbh, st, set->nr, 0);

	rbh_test_set_del(test, set, 0, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * rbh_iter_remove() under rbh_iter_lock() removes exactly the entries it
 * is given, the walk still returns every entry once, and the entries left
 * behind are found afterwards.
 */
static void rbh_iter_remove_while_locked(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	unsigned long i, n, removed;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, st);
	/* n entries under one hash (more than a bucket), then 2 * cap others */
	n = 2 * cap + 5;
	set = rbh_test_set_new(test, rbh, n + 2 * cap);
	for (i = 0; i < set->max; i++)
		set->hash[i] = i < n ? RBH_TEST_FLOOD : i;
	if (!rbh_test_set_add(test, set, 0, set->max))
		goto out;

	removed = rbh_test_set_iter_remove(test, set, RBH_TEST_FLOOD, 3);
	KUNIT_EXPECT_EQ(test, removed, (n + 2) / 3);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, set->nr, 0);

	/* A hash with one entry, and a hash with none. */
	KUNIT_EXPECT_EQ(test, rbh_test_set_iter_remove(test, set, n, 1), 1UL);
	KUNIT_EXPECT_EQ(test, rbh_test_set_iter_remove(test, set,
						       RBH_TEST_FLOOD ^ 1, 1),
			0UL);
	rbh_test_check_set(test, set);

	removed = rbh_test_set_iter_remove(test, set, RBH_TEST_FLOOD, 1);
	KUNIT_EXPECT_EQ(test, removed, n - (n + 2) / 3);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, set->nr, 0);
	KUNIT_EXPECT_EQ(test, set->nr, 2UL * cap - 1);

	rbh_test_set_del(test, set, 0, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
out:
	rbh_test_destroy(test, rbh);
}

/*
 * A pointer stored many times under one hash is returned that many times
 * and removed one copy at a time; stored under another hash as well, it
 * is returned there once.
 */
static void rbh_same_pointer_many_times(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	void *p = rbh_test_ptr(1);
	unsigned long i, n, total;
	int err = 0;

	n = 3 * rbh_test_capacity(test, rbh, st);
	for (i = 0; i < n && !err; i++)
		err = rbh_insert(rbh, 1, p);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "inserting copy %lu", i - 1);
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, 2, p), 0);

	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, 1, p, &total), n);
	KUNIT_EXPECT_EQ(test, total, n);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, 2, p, &total), 1UL);
	KUNIT_EXPECT_EQ(test, total, 1UL);
	rbh_test_check_counts(test, rbh, st, n + 1, 0);

	for (i = 0; i < n && !err; i++)
		err = rbh_remove(rbh, 1, p);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "removing copy %lu", i - 1);
	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, 1, p), -ENOENT);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, 1, p, &total), 0UL);
	KUNIT_EXPECT_EQ(test, total, 0UL);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, 2, p, &total), 1UL);

	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, 2, p), 0);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/* Entries rbh_spilled_entries() puts in an overflow chain */
#define RBH_TEST_CHAINED	3

/*
 * Check that each of @n keys not @gone is found exactly once, with its
 * pointer, and that nothing else is returned for it.
 */
static void rbh_test_check_keys(struct kunit *test, struct rbh *rbh,
				const u32 *keys, const bool *gone,
				unsigned int n, const char *after)
{
	unsigned long total;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (gone[i])
			continue;
		KUNIT_EXPECT_EQ_MSG(test, rbh_test_count(rbh, rbh_test_hash_of_key(keys[i]),
							 rbh_test_ptr(i), &total), 1UL,
				    "entry %u, key %#x, %s", i, keys[i], after);
		KUNIT_EXPECT_EQ_MSG(test, total, 1UL, "entry %u, key %#x, %s",
				    i, keys[i], after);
	}
}

/* Remove entry @i of rbh_spilled_entries() through a locked iteration. */
static void rbh_test_iter_remove_one(struct kunit *test, struct rbh *rbh,
				     u32 key, unsigned int i)
{
	RBH_ITER(iter, rbh, rbh_test_hash_of_key(key));
	unsigned int found = 0;
	void *p;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL) {
		if (p != rbh_test_ptr(i))
			continue;
		KUNIT_EXPECT_TRUE(test, rbh_iter_remove(&iter, p));
		found++;
	}
	rbh_iter_unlock(&iter);
	KUNIT_EXPECT_EQ_MSG(test, found, 1U, "locked removal of entry %u", i);
}

/* The filter of @key's home group in the bucket that holds @key. */
static u32 rbh_test_home_filter(struct rbh *rbh, u32 key)
{
	struct rbh_bucket *bucket;
	u32 filter;

	rcu_read_lock();
	bucket = rbh_table_bucket(rcu_dereference(rbh->rbh_table), key);
	filter = READ_ONCE(*rbh_home_filter(bucket, rbh_home(key)));
	rcu_read_unlock();
	return filter;
}

/*
 * Entries whose home group is full.  A lookup reads the group its key
 * chooses and, only if that group's filter names them, another group of
 * the bucket or its overflow chain.  Fill one bucket with keys that share
 * their home group and their filter bits, so that every other group and
 * the chain hold entries under the same bit, then remove the entries
 * outside the home group, newest first, with rbh_remove(); put them back
 * and remove them again through locked iterations (which recompute the
 * filters when they unlock).  After each removal the others must still be
 * found, as a bit must stay set while any entry needs it, and once they
 * are all gone the home group's filter must be clear.  This looks at the
 * bucket format (rbh_home(), rbh_filter_shift(), rbh_home_filter()).
 */
static void rbh_spilled_entries(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned int cap = rbh_test_capacity(test, rbh, st);
	unsigned int i, round, n = cap + RBH_TEST_CHAINED;
	u32 keys[RBH_MAX_ENTRIES + RBH_TEST_CHAINED], k, chain_field;
	bool gone[ARRAY_SIZE(keys)] = { };
	char after[40];

	KUNIT_ASSERT_LE(test, n, ARRAY_SIZE(keys));
	/*
	 * Top two bits clear: all in the first bucket of the two-slot
	 * table, which a split at its second bit would not divide, so the
	 * last entries go to a chain.
	 */
	for (k = 0x1000, i = 0; i < n && k < BIT(30); k += 0x1000) {
		if (i && (rbh_home(k) != rbh_home(keys[0]) ||
			  rbh_filter_shift(k) != rbh_filter_shift(keys[0])))
			continue;
		keys[i++] = k;
	}
	KUNIT_ASSERT_EQ(test, i, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_hash_of_key(keys[i]),
						 rbh_test_ptr(i)), 0);
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->table_slots, 2UL);
	KUNIT_EXPECT_EQ(test, st->overflow_buckets, 1UL);
	/* The home group holds RBH_GROUP_MAX; the rest of the bucket spilled */
	KUNIT_EXPECT_EQ(test, st->spilled, (unsigned long)(cap - RBH_GROUP_MAX));
	chain_field = GENMASK(RBH_FILTER_BITS - 1, 0) <<
		      (RBH_CHAIN_DEST * RBH_FILTER_BITS);
	KUNIT_EXPECT_NE(test, rbh_test_home_filter(rbh, keys[0]) & chain_field, 0U);
	rbh_test_check_keys(test, rbh, keys, gone, n, "after the inserts");

	for (round = 0; round < 2; round++) {
		for (i = n; i-- > RBH_GROUP_MAX; ) {
			if (round)
				rbh_test_iter_remove_one(test, rbh, keys[i], i);
			else
				KUNIT_EXPECT_EQ(test, rbh_remove(rbh, rbh_test_hash_of_key(keys[i]),
								 rbh_test_ptr(i)), 0);
			gone[i] = true;
			snprintf(after, sizeof(after), "round %u, after removing %u",
				 round, i);
			rbh_test_check_keys(test, rbh, keys, gone, n, after);
		}
		rbh_test_stats(test, rbh, st);
		KUNIT_EXPECT_EQ(test, st->spilled, 0UL);
		KUNIT_EXPECT_EQ(test, st->overflow_buckets, 0UL);
		KUNIT_EXPECT_EQ_MSG(test, rbh_test_home_filter(rbh, keys[0]), 0U,
				    "round %u: a filter bit outlived its entries",
				    round);
		if (round)
			break;
		/* Back in the same groups and chain, for the locked removals */
		for (i = RBH_GROUP_MAX; i < n; i++) {
			KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_hash_of_key(keys[i]),
							 rbh_test_ptr(i)), 0);
			gone[i] = false;
		}
		rbh_test_check_keys(test, rbh, keys, gone, n, "after the reinserts");
	}
	for (i = 0; i < RBH_GROUP_MAX; i++)
		KUNIT_EXPECT_EQ(test, rbh_remove(rbh, rbh_test_hash_of_key(keys[i]),
						 rbh_test_ptr(i)), 0);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * Flood one hash with cap_mul * capacity + nr entries, among eight
 * entries under other hashes: four whose keys share the flood's bucket at
 * every depth and four in the other half of the table.
 */
static void rbh_test_flood(struct kunit *test, unsigned int cap_mul,
			   unsigned long nr, bool locked_removal)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	u32 key = RBH_TEST_FLOOD * GOLDEN_RATIO_32;
	struct rbh_test_set *set;
	unsigned long i, n;
	int err = 0;

	n = cap_mul * rbh_test_capacity(test, rbh, st) + nr;
	kunit_info(test, "%lu entries under hash %#x\n", n, RBH_TEST_FLOOD);
	set = rbh_test_set_new(test, rbh, n + 8);
	for (i = 0; i < n; i++)
		set->hash[i] = RBH_TEST_FLOOD;
	for (i = 0; i < 4; i++) {
		set->hash[n + i] = rbh_test_hash_of_key(key ^ (i + 1));
		set->hash[n + 4 + i] = rbh_test_hash_of_key(key ^ BIT(31) ^ i);
	}

	/* Some other entries before the flood, the rest after it */
	if (!rbh_test_set_add(test, set, n, n + 2) ||
	    !rbh_test_set_add(test, set, 0, n) ||
	    !rbh_test_set_add(test, set, n + 2, n + 8))
		goto out;
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, n + 8, 0);
	rbh_test_print_stats(test, "equal hashes", st);
	KUNIT_EXPECT_GT(test, st->overflow_buckets, 0UL);
	KUNIT_EXPECT_LE(test, st->table_slots, 8UL);
	KUNIT_EXPECT_LE(test, st->bytes, 64 * st->entries + 4096);

	/* The others go first: the flood must still be found whole. */
	if (!rbh_test_set_del(test, set, n, n + 8))
		goto out;
	rbh_test_check_set(test, set);
	if (locked_removal) {
		KUNIT_EXPECT_EQ(test, rbh_test_set_iter_remove(test, set,
							       RBH_TEST_FLOOD, 1),
				n);
	} else {
		for (i = n; i-- > 0; ) {
			err = rbh_test_set_remove(set, i);
			if (err)
				break;
		}
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "removing entry %lu", i);
	}
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_check_counts(test, rbh, st, 0, 0);
	KUNIT_EXPECT_EQ(test, st->overflow_buckets, 0UL);
out:
	rbh_test_destroy(test, rbh);
}

/*
 * Any number of entries may share a hash: they are all stored and found,
 * in memory proportional to their number and without growing the table,
 * and they neither hide nor join the entries of other hashes.
 */
static void rbh_equal_hash_flood(struct kunit *test)
{
	rbh_test_flood(test, 10, 0, false);
	rbh_test_flood(test, 0, 10000, true);
}

/*
 * Entries never move from an overflow chain back into its bucket, so once
 * a bucket and its chain hold little, they are replaced by one bucket:
 * the chain does not outlive the entries that needed it.
 */
static void rbh_chain_folds_back(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	unsigned long n, keep;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, st);
	n = 3 * cap;
	keep = cap / 3;
	set = rbh_test_set_new(test, rbh, n);
	rbh_test_set_fill(set, RBH_TEST_ONE_HASH);
	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	rbh_test_check_counts(test, rbh, st, n, 0);
	KUNIT_EXPECT_GE(test, st->overflow_buckets, 2UL);

	/*
	 * The oldest entries are in the bucket, the newest in the chain:
	 * keep the newest.
	 */
	if (!rbh_test_set_del(test, set, 0, n - keep))
		goto out;
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, keep, 0);
	rbh_test_print_stats(test, "folded", st);
	KUNIT_EXPECT_EQ(test, st->overflow_buckets, 0UL);
	KUNIT_EXPECT_EQ(test, st->buckets, 2UL);
out:
	rbh_test_destroy(test, rbh);
}

/*
 * A bucket and its chain fold whichever entry the removal that lets them
 * fit takes: here one in its home group of a bucket that stays fuller
 * than a merge needs.  With one hash, the oldest entries fill the bucket,
 * the first RBH_GROUP_MAX of them in the home group, and the newest are
 * in the chain: some of each stay, the middle go first, then the oldest.
 */
static void rbh_chain_folds_after_home_removal(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned long n, merge_max, kept, chained;
	struct rbh_test_set *set;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, st);
	n = 3 * cap;
	/* RBH_MERGE_MAX: what a bucket and its chain fold at */
	merge_max = 2 * cap / 3;
	/* More in the bucket than a bucket that may merge holds */
	kept = merge_max / 2 + 2;
	chained = merge_max + 1 - kept;
	set = rbh_test_set_new(test, rbh, n);
	rbh_test_set_fill(set, RBH_TEST_ONE_HASH);
	if (!rbh_test_set_add(test, set, 0, n) ||
	    !rbh_test_set_del(test, set, kept, n - chained))
		goto out;
	rbh_test_check_counts(test, rbh, st, merge_max + 1, 0);
	KUNIT_EXPECT_GE(test, st->overflow_buckets, 1UL);

	/* The removal that lets them fit, from the home group */
	if (!rbh_test_set_del(test, set, 0, 1))
		goto out;
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, st, merge_max, 0);
	rbh_test_print_stats(test, "folded", st);
	KUNIT_EXPECT_EQ(test, st->overflow_buckets, 0UL);
out:
	rbh_test_destroy(test, rbh);
}

/*
 * Lookups may run under any flavour of the RCU read lock, as rbh_first()'s
 * Context says: one grace period waits for them all.  Under PROVE_RCU, a
 * walk under rcu_read_lock_bh() alone, through spilled entries and an
 * overflow chain, must not be reported as suspicious RCU usage (a report
 * in the kernel log fails the run).
 */
static void rbh_readers_of_any_flavour(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	u32 one = rbh_test_hash_of_key(0x12345678);
	unsigned long i, id, found = 0, n = 200, same = 3 * RBH_MAX_ENTRIES;
	void *p;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, i * 0x9e3779b9U,
						 rbh_test_ptr(i)), 0);
	for (i = 0; i < same; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, one, rbh_test_ptr(n + i)),
				0);

	rcu_read_lock_bh();
	for (i = 0; i < n; i++) {
		struct rbh_iter iter;

		rbh_for_each_possible(p, &iter, rbh, i * 0x9e3779b9U)
			found += p == rbh_test_ptr(i);
	}
	{
		struct rbh_iter iter;

		rbh_for_each_possible(p, &iter, rbh, one)
			found += rbh_test_ptr_id(p, &id) && id >= n;
	}
	rcu_read_unlock_bh();
	KUNIT_EXPECT_EQ(test, found, n + same);
	rbh_test_destroy(test, rbh);
	if (!IS_ENABLED(CONFIG_PROVE_RCU))
		kunit_skip(test, "without PROVE_RCU nothing checks the walk's RCU usage");
}

/* What rbh_free_and_destroy() passes to rbh_test_free_fn(). */
struct rbh_test_obj {
	u32 hash;
	unsigned int stored;	/* times stored in the rosebush */
	unsigned int freed;	/* times passed to rbh_test_free_fn() */
};

struct rbh_test_objs {
	struct rbh_test_obj *obj;
	unsigned long nr;
	unsigned long calls;	/* calls of rbh_test_free_fn() */
	unsigned long nulls;	/* of them, with a NULL pointer */
	unsigned long strays;	/* of them, with a pointer not in obj[] */
};

static void rbh_test_free_fn(void *ptr, void *arg)
{
	struct rbh_test_objs *objs = arg;
	struct rbh_test_obj *obj = ptr;

	objs->calls++;
	if (!obj)
		objs->nulls++;
	else if (obj < objs->obj || obj >= objs->obj + objs->nr)
		objs->strays++;
	else
		obj->freed++;
}

/* The shapes rbh_destroy() and rbh_free_and_destroy() are tested at. */
struct rbh_test_shape {
	const char *name;
	enum rbh_test_pattern pattern;
	unsigned int cap_mul;	/* entries: cap_mul * bucket capacity + nr */
	unsigned long nr;
	unsigned int copies;	/* more copies of the first entry */
	unsigned int reserve;	/* reservations left in place */
	bool shared_split;	/* then split a bucket shared by two slots */
	bool remove_all;	/* then remove everything again */
};

static const struct rbh_test_shape rbh_test_shapes[] = {
	{ .name = "never used" },
	{ .name = "initial table", .nr = 1 },
	{ .name = "reservation only", .reserve = 1 },
	{ .name = "grown", .pattern = RBH_TEST_RANDOM, .nr = 2000 },
	{ .name = "shared top slot split", .pattern = RBH_TEST_RANDOM,
	  .shared_split = true },
	{ .name = "overflow chain", .pattern = RBH_TEST_ONE_HASH,
	  .cap_mul = 5 },
	{ .name = "copies and reservations", .nr = 100, .copies = 5,
	  .reserve = 10 },
	{ .name = "emptied", .pattern = RBH_TEST_RANDOM, .nr = 2000,
	  .remove_all = true },
};

KUNIT_ARRAY_PARAM_DESC(rbh_test_shapes, rbh_test_shapes, name);

static void rbh_test_obj_insert(struct kunit *test, struct rbh *rbh,
				struct rbh_test_objs *objs, unsigned long i,
				u32 hash)
{
	struct rbh_test_obj *obj = &objs->obj[i];

	obj->hash = hash;
	KUNIT_ASSERT_EQ_MSG(test, rbh_insert(rbh, hash, obj), 0,
			    "object %lu, hash %#x", i, hash);
	obj->stored++;
}

/*
 * Insert random objects from @i on until the table has doubled twice, so
 * that most buckets are shared by several slots, then objects whose keys
 * are in the top quarter of the table until one of those buckets splits
 * without the table growing.
 */
static void rbh_test_split_shared(struct kunit *test, struct rbh *rbh,
				  struct rbh_test_objs *objs, unsigned long i,
				  struct rbh_stats *st)
{
	unsigned long splits, grows;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, rbh_test_seed);
	rbh_test_stats(test, rbh, st);
	for (; st->grows < 2 && i < objs->nr; i++) {
		rbh_test_obj_insert(test, rbh, objs, i, prandom_u32_state(&rnd));
		rbh_test_stats(test, rbh, st);
	}
	KUNIT_ASSERT_GE(test, st->grows, 2UL);

	for (; i < objs->nr; i++) {
		splits = st->splits;
		grows = st->grows;
		rbh_test_obj_insert(test, rbh, objs, i,
				    rbh_test_hash_of_key(0xc0000000U |
							 (prandom_u32_state(&rnd) >> 2)));
		rbh_test_stats(test, rbh, st);
		if (st->splits > splits && st->grows == grows)
			return;
	}
	KUNIT_FAIL(test, "no bucket shared by several slots split");
}

/* Give @rbh the shape @shape, storing objects from @objs. */
static void rbh_test_build(struct kunit *test, struct rbh *rbh,
			   const struct rbh_test_shape *shape,
			   struct rbh_test_objs *objs, struct rbh_stats *st)
{
	unsigned int cap = rbh_test_capacity(test, rbh, st);
	unsigned long i, n = shape->cap_mul * cap + shape->nr;
	struct rnd_state rnd;

	objs->nr = n + 1 + (shape->shared_split ? 64 * cap + 4096 : 0);
	objs->obj = kunit_kcalloc(test, objs->nr, sizeof(*objs->obj),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs->obj);

	prandom_seed_state(&rnd, rbh_test_seed);
	for (i = 0; i < n; i++)
		rbh_test_obj_insert(test, rbh, objs, i,
				    rbh_test_pattern_hash(shape->pattern, i,
							  &rnd));
	for (i = 0; i < shape->copies; i++)
		rbh_test_obj_insert(test, rbh, objs, 0, objs->obj[0].hash);
	for (i = 0; i < shape->reserve; i++)
		KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, 3 * i + 1), 0);
	if (shape->shared_split)
		rbh_test_split_shared(test, rbh, objs, n, st);
	/* The shape once the work has made the splits handed to it */
	rbh_test_settle(rbh);
	if (!shape->remove_all)
		return;

	for (i = 0; i < objs->nr; i++) {
		while (objs->obj[i].stored) {
			KUNIT_ASSERT_EQ(test, rbh_remove(rbh, objs->obj[i].hash,
							 &objs->obj[i]), 0);
			objs->obj[i].stored--;
		}
	}
	for (i = 0; i < shape->reserve; i++)
		KUNIT_ASSERT_EQ(test, rbh_release(rbh, 3 * i + 1), 0);
}

static unsigned long rbh_test_objs_stored(const struct rbh_test_objs *objs)
{
	unsigned long i, stored = 0;

	for (i = 0; i < objs->nr; i++)
		stored += objs->obj[i].stored;
	return stored;
}

/*
 * rbh_destroy() releases a rosebush of every shape: KASAN (and kmemleak,
 * if enabled) report what it gets wrong.
 */
static void rbh_destroy_shapes(struct kunit *test)
{
	const struct rbh_test_shape *shape = test->param_value;
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_objs objs = { };

	rbh_test_build(test, rbh, shape, &objs, st);
	rbh_test_check_counts(test, rbh, st, rbh_test_objs_stored(&objs),
			      shape->remove_all ? 0 : shape->reserve);
	rbh_test_print_stats(test, shape->name, st);
	if (shape->pattern == RBH_TEST_ONE_HASH)
		KUNIT_EXPECT_GT(test, st->overflow_buckets, 0UL);
	if (shape->nr > 1000)
		KUNIT_EXPECT_GT(test, st->grows, 0UL);
	KUNIT_EXPECT_EQ(test, rbh_empty(rbh),
			!st->entries && !st->reserved);
	rbh_test_destroy(test, rbh);
}

/*
 * rbh_free_and_destroy() passes each stored pointer to the callback once
 * per time it is stored, and never passes a reservation.
 */
static void rbh_free_and_destroy_shapes(struct kunit *test)
{
	const struct rbh_test_shape *shape = test->param_value;
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_objs objs = { };
	unsigned long i, stored, wrong = 0, wrong_id = 0;

	rbh_test_build(test, rbh, shape, &objs, st);
	stored = rbh_test_objs_stored(&objs);

	kunit_remove_action(test, rbh_test_destroy_action, rbh);
	rbh_free_and_destroy(rbh, rbh_test_free_fn, &objs);
	kunit_kfree(test, rbh);

	KUNIT_EXPECT_EQ(test, objs.calls, stored);
	KUNIT_EXPECT_EQ(test, objs.nulls, 0UL);
	KUNIT_EXPECT_EQ(test, objs.strays, 0UL);
	for (i = 0; i < objs.nr; i++) {
		if (objs.obj[i].freed != objs.obj[i].stored && !wrong++)
			wrong_id = i;
	}
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0UL,
			    "objects freed the wrong number of times; the first: %lu, stored %u times, freed %u times",
			    wrong_id, objs.obj[wrong_id].stored,
			    objs.obj[wrong_id].freed);
}

/*
 * Allocation failure injection.  While a site is armed, its hook calls
 * the stub below instead, which fails call number fail_at (counting from
 * 1), or every call if fail_at is 0, and lets the others through.
 */
enum rbh_test_site {
	RBH_TEST_BUCKET,	/* rbh_alloc_bucket() */
	RBH_TEST_TABLE,		/* rbh_alloc_table() */
	RBH_TEST_NR_SITES
};

static const char *const rbh_test_site_names[] = {
	[RBH_TEST_BUCKET] = "rbh_alloc_bucket()",
	[RBH_TEST_TABLE] = "rbh_alloc_table()",
};

struct rbh_test_fault {
	unsigned int calls;	/* calls since the site was armed */
	unsigned int fail_at;
	unsigned int failed;	/* calls made to fail */
	unsigned int warned;	/* of those, calls without __GFP_NOWARN */
	gfp_t gfp_all;		/* the flags every call passed */
	gfp_t gfp_any;		/* the flags some call passed */
	bool armed;
};

/* Kept in test->priv by the cases that inject failures. */
struct rbh_test_faults {
	struct rbh_test_fault site[RBH_TEST_NR_SITES];
};

static struct rbh_bucket *rbh_test_alloc_bucket_stub(gfp_t gfp);
static void *rbh_test_alloc_table_stub(unsigned int depth, gfp_t gfp);

static void rbh_test_faults_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct rbh_test_faults),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, test->priv);
}

static void rbh_test_activate(struct kunit *test, enum rbh_test_site site)
{
	if (site == RBH_TEST_BUCKET)
		kunit_activate_static_stub(test, rbh_alloc_bucket,
					   rbh_test_alloc_bucket_stub);
	else
		kunit_activate_static_stub(test, rbh_alloc_table,
					   rbh_test_alloc_table_stub);
}

static void rbh_test_deactivate(struct kunit *test, enum rbh_test_site site)
{
	if (site == RBH_TEST_BUCKET)
		kunit_deactivate_static_stub(test, rbh_alloc_bucket);
	else
		kunit_deactivate_static_stub(test, rbh_alloc_table);
}

static struct rbh_test_fault *rbh_test_fault_arm(struct kunit *test,
						 enum rbh_test_site site,
						 unsigned int fail_at)
{
	struct rbh_test_faults *faults = test->priv;
	struct rbh_test_fault *f = &faults->site[site];

	f->calls = 0;
	f->failed = 0;
	f->warned = 0;
	f->gfp_all = (__force gfp_t)~0U;
	f->gfp_any = 0;
	f->fail_at = fail_at;
	rbh_test_activate(test, site);
	f->armed = true;
	return f;
}

static void rbh_test_fault_disarm(struct kunit *test)
{
	struct rbh_test_faults *faults = test->priv;
	unsigned int site;

	for (site = 0; site < RBH_TEST_NR_SITES; site++) {
		if (faults->site[site].armed)
			rbh_test_deactivate(test, site);
		faults->site[site].armed = false;
	}
}

/* Count a call to an armed hook; true if it must fail. */
static bool rbh_test_fault_hit(struct rbh_test_fault *f, gfp_t gfp)
{
	f->calls++;
	f->gfp_all &= gfp;
	f->gfp_any |= gfp;
	/* As the allocator never fails these */
	if (gfp & __GFP_NOFAIL)
		return false;
	if (f->fail_at && f->calls != f->fail_at)
		return false;
	f->failed++;
	if (!(gfp & __GFP_NOWARN))
		f->warned++;
	return true;
}

/*
 * A call that is let through goes to the real function, so the stub must
 * be lifted for it and put back afterwards.  Putting it back allocates
 * with GFP_KERNEL, so after a call that may not sleep the site stays
 * disarmed.
 */
static void rbh_test_fault_pass(struct kunit *test, enum rbh_test_site site,
				gfp_t gfp)
{
	struct rbh_test_faults *faults = test->priv;

	if (gfpflags_allow_blocking(gfp))
		rbh_test_activate(test, site);
	else
		faults->site[site].armed = false;
}

static struct rbh_bucket *rbh_test_alloc_bucket_stub(gfp_t gfp)
{
	struct kunit *test = kunit_get_current_test();
	struct rbh_test_faults *faults = test->priv;
	struct rbh_bucket *bucket;

	if (rbh_test_fault_hit(&faults->site[RBH_TEST_BUCKET], gfp))
		return NULL;
	rbh_test_deactivate(test, RBH_TEST_BUCKET);
	bucket = rbh_alloc_bucket(gfp);
	rbh_test_fault_pass(test, RBH_TEST_BUCKET, gfp);
	return bucket;
}

static void *rbh_test_alloc_table_stub(unsigned int depth, gfp_t gfp)
{
	struct kunit *test = kunit_get_current_test();
	struct rbh_test_faults *faults = test->priv;
	void *table;

	if (rbh_test_fault_hit(&faults->site[RBH_TEST_TABLE], gfp))
		return NULL;
	rbh_test_deactivate(test, RBH_TEST_TABLE);
	table = rbh_alloc_table(depth, gfp);
	rbh_test_fault_pass(test, RBH_TEST_TABLE, gfp);
	return table;
}

/*
 * A failed call leaves the rosebush as it was.  The one change allowed is
 * a table that doubled before a later allocation failed: every key still
 * leads to the same bucket.
 */
static void rbh_test_check_unchanged(struct kunit *test,
				     const struct rbh_stats *before,
				     const struct rbh_stats *after)
{
	size_t hist = (min_t(unsigned int, before->bucket_capacity,
			     RBH_MAX_ENTRIES) + 1) * sizeof(before->occupancy[0]);

	KUNIT_EXPECT_EQ(test, after->entries, before->entries);
	KUNIT_EXPECT_EQ(test, after->reserved, before->reserved);
	KUNIT_EXPECT_EQ(test, after->buckets, before->buckets);
	KUNIT_EXPECT_EQ(test, after->overflow_buckets,
			before->overflow_buckets);
	KUNIT_EXPECT_EQ(test, after->splits, before->splits);
	KUNIT_EXPECT_EQ(test, after->merges, before->merges);
	KUNIT_EXPECT_EQ(test, after->shrinks, before->shrinks);
	KUNIT_EXPECT_EQ_MSG(test,
			    memcmp(after->occupancy, before->occupancy, hist),
			    0, "the occupancy histogram changed");
	if (after->grows == before->grows) {
		KUNIT_EXPECT_EQ(test, after->table_slots, before->table_slots);
		KUNIT_EXPECT_EQ(test, after->bytes, before->bytes);
	}
}

/*
 * Insert set entries from @first on, with a site armed, until an
 * allocation fails.  Check that the insertion failed with -ENOMEM and
 * changed nothing, and return the entry; set->max if none failed.
 */
static unsigned long rbh_test_insert_until_enomem(struct kunit *test,
						  struct rbh_test_set *set,
						  unsigned long first,
						  struct rbh_test_fault *f,
						  struct rbh_stats *before,
						  struct rbh_stats *after)
{
	unsigned int failed;
	unsigned long i;
	int err;

	for (i = first; i < set->max; i++) {
		failed = f->failed;
		rbh_test_stats(test, set->rbh, before);
		err = rbh_test_set_insert(set, i);
		if (f->failed == failed) {
			if (!err)
				continue;
			KUNIT_FAIL(test, "rbh_insert() of entry %lu: %d", i, err);
			return set->max;
		}
		KUNIT_EXPECT_EQ_MSG(test, err, -ENOMEM,
				    "rbh_insert() of entry %lu after a failed allocation",
				    i);
		if (err != -ENOMEM)
			return set->max;
		rbh_test_stats(test, set->rbh, after);
		rbh_test_check_unchanged(test, before, after);
		rbh_test_check_set(test, set);
		return i;
	}
	return set->max;
}

static int rbh_test_first_call(struct rbh *rbh, bool reserve)
{
	if (reserve)
		return rbh_reserve(rbh, 1);
	return rbh_insert(rbh, 1, rbh_test_ptr(1));
}

/*
 * Make allocation @n from @site fail in the first rbh_insert() (or
 * rbh_reserve()) into a new rosebush.  Return false if that call made
 * fewer than @n allocations from @site, and so succeeded.
 */
static bool rbh_test_fail_first_call(struct kunit *test, bool reserve,
				     enum rbh_test_site site, unsigned int n,
				     struct rbh_stats *st)
{
	const char *call = reserve ? "rbh_reserve()" : "rbh_insert()";
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_test_fault *f;
	unsigned long total;
	int err;

	f = rbh_test_fault_arm(test, site, n);
	err = rbh_test_first_call(rbh, reserve);
	rbh_test_fault_disarm(test);
	if (!f->failed) {
		KUNIT_EXPECT_EQ(test, err, 0);
		KUNIT_EXPECT_GT_MSG(test, n, 1U, "the first %s called no %s",
				    call, rbh_test_site_names[site]);
		rbh_test_destroy(test, rbh);
		return false;
	}

	KUNIT_EXPECT_EQ_MSG(test, err, -ENOMEM, "%s with call %u of %s failing",
			    call, n, rbh_test_site_names[site]);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->table_slots, 0UL);
	KUNIT_EXPECT_EQ(test, st->bytes, 0UL);
	rbh_test_count(rbh, 1, NULL, &total);
	KUNIT_EXPECT_EQ(test, total, 0UL);

	/* With the allocator working again, the same call succeeds. */
	KUNIT_EXPECT_EQ(test, rbh_test_first_call(rbh, reserve), 0);
	rbh_test_check_counts(test, rbh, st, !reserve, reserve);
	rbh_test_destroy(test, rbh);
	return true;
}

/*
 * The first rbh_insert() or rbh_reserve() allocates a table and two
 * buckets: whichever of those allocations fails, the call returns
 * -ENOMEM and the rosebush stays empty, holding no memory.
 */
static void rbh_alloc_fail_first_insert(struct kunit *test)
{
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned int site, n;
	int reserve;

	rbh_test_faults_init(test);
	for (reserve = 0; reserve < 2; reserve++) {
		for (site = 0; site < RBH_TEST_NR_SITES; site++) {
			for (n = 1; n <= 8; n++) {
				if (!rbh_test_fail_first_call(test, reserve,
							      site, n, st))
					break;
			}
		}
	}
}

/*
 * An insertion that needs the table to double stores its entry in an
 * overflow chain and hands the doubling to the work.  When the work
 * cannot allocate the new table (here the work runs in the case's thread,
 * where the allocation fails), the insertions still succeed, the
 * allocator does not warn, and the table keeps its size.  Once the
 * allocator works again, the table doubles again.  Tables of every depth
 * fail, so this is also a rosebush at RBH_MAX_DEPTH.
 */
static void rbh_alloc_fail_grow(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	struct rbh_test_fault *f;
	unsigned long i = 0, n;
	unsigned int event, cap;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	set = rbh_test_set_new(test, rbh, 1024 * cap);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i++), 0);

	for (event = 0; event < 3; event++) {
		rbh_test_stats(test, rbh, before);
		rbh_test_work_off(test, rbh);
		/* Twice the entries the table's buckets could hold */
		n = min(set->max, i + 2 * before->table_slots * cap);
		for (; i < n; i++)
			KUNIT_ASSERT_EQ_MSG(test, rbh_test_set_insert(set, i), 0,
					    "entry %lu, no table to grow into", i);
		f = rbh_test_fault_arm(test, RBH_TEST_TABLE, 0);
		rbh_test_work_here(test, rbh);
		rbh_test_fault_disarm(test);
		rbh_test_stats(test, rbh, after);
		kunit_info(test, "event %u: %lu table slots, %lu entries\n",
			   event, after->table_slots, after->entries);
		KUNIT_ASSERT_GT_MSG(test, f->failed, 0U,
				    "no insertion needed a bigger table");
		KUNIT_EXPECT_EQ(test, f->warned, 0U);
		KUNIT_EXPECT_EQ(test, after->grows, before->grows);
		KUNIT_EXPECT_EQ(test, after->table_slots, before->table_slots);
		KUNIT_EXPECT_GT(test, after->overflow_buckets,
				before->overflow_buckets);
		rbh_test_check_set(test, set);

		/*
		 * The allocator works again: the table doubles again, once
		 * an insertion asks (the work runs here, so that what it
		 * does not depend on when a worker runs)
		 */
		do {
			KUNIT_ASSERT_LT(test, i, set->max);
			rbh_test_work_off(test, rbh);
			KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i++), 0);
			rbh_test_work_here(test, rbh);
			rbh_test_stats(test, rbh, before);
		} while (before->grows == after->grows);
	}
	rbh_test_check_set(test, set);
	rbh_test_set_del(test, set, 0, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * The first insertion allocates a table before it takes the resize lock.
 * If another insertion publishes a first table meanwhile, the one it
 * allocated must be freed (v2 leaked what a lost race had allocated).
 * The allocation hook makes that other insertion from inside the first
 * one's allocation; the userspace build reports what stays allocated.
 */
static struct rbh *rbh_test_racer;
static bool rbh_test_racer_ran;

/* Deactivates itself: it runs once */
static void *rbh_test_race_table_stub(unsigned int depth, gfp_t gfp)
{
	struct kunit *test = kunit_get_current_test();

	kunit_deactivate_static_stub(test, rbh_alloc_table);
	rbh_test_racer_ran = true;
	KUNIT_EXPECT_EQ(test, rbh_insert(rbh_test_racer, 2, rbh_test_ptr(2)),
			0);
	return rbh_alloc_table(depth, gfp);
}

static void rbh_alloc_lost_race(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);

	rbh_test_racer = rbh;
	rbh_test_racer_ran = false;
	kunit_activate_static_stub(test, rbh_alloc_table,
				   rbh_test_race_table_stub);
	KUNIT_EXPECT_EQ(test, rbh_insert(rbh, 1, rbh_test_ptr(1)), 0);
	KUNIT_ASSERT_TRUE(test, rbh_test_racer_ran);
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->entries, 2UL);
	KUNIT_EXPECT_EQ(test, st->table_slots, 2UL);
	rbh_test_destroy(test, rbh);
}

/*
 * A split whose bucket has a chain of one key, several buckets long,
 * hands the chain to the new bucket that takes that key: it allocates
 * the two new buckets only, however long the chain, and the chain's
 * entries are all still found (the grows that keep splitting such a
 * bucket, see rbh_crowded_keys(), would otherwise copy it each time).
 * The bucket holds one other key, so that it splits once full, and the
 * flood goes on into its chain; the work, run in the case's thread to
 * count its allocations, doubles the table and splits it.
 */
static void rbh_split_hands_over_chain(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long total, n, i;
	struct rbh_test_fault *f;
	unsigned int cap;
	u32 other;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 4 * cap;
	/* Differs from the flood's key at the bit below its bucket's prefix */
	other = rbh_test_hash_of_key(rbh_key(RBH_TEST_FLOOD) ^ BIT(30));
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, other, rbh_test_ptr(n)), 0);
	rbh_test_work_off(test, rbh);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, RBH_TEST_FLOOD,
						 rbh_test_ptr(i)), 0);
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_GE(test, before->overflow_buckets, 2UL);

	f = rbh_test_fault_arm(test, RBH_TEST_BUCKET, UINT_MAX);
	rbh_test_work_here(test, rbh);
	rbh_test_fault_disarm(test);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ(test, after->splits, before->splits + 1);
	KUNIT_EXPECT_EQ_MSG(test, f->calls, 2U,
			    "bucket allocations to split a bucket with a chain of %lu",
			    before->overflow_buckets);
	KUNIT_EXPECT_EQ(test, after->overflow_buckets,
			before->overflow_buckets);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, RBH_TEST_FLOOD,
						     rbh_test_ptr(i), &total),
				1UL);
	KUNIT_EXPECT_EQ(test, total, n);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, other, rbh_test_ptr(n),
					     &total), 1UL);
	KUNIT_EXPECT_EQ(test, total, 1UL);
	rbh_test_destroy(test, rbh);
}

/*
 * Chains that a split must divide.  While the table cannot grow, entries
 * whose keys have the top bit clear and differ below it fill bucket 0 of
 * a table of two slots and go on into its overflow chain; the split at
 * the next bit, once the table may grow, divides the chain between the
 * halves.
 */
static u32 rbh_test_chain_key(unsigned long i)
{
	return (u32)(i * GOLDEN_RATIO_32) & ~BIT(31);
}

static u32 rbh_test_chain_hash(unsigned long i)
{
	return rbh_test_hash_of_key(rbh_test_chain_key(i));
}

/*
 * Fill bucket 0 with entries 0 to @n - 1 (see above), with the work off,
 * so that it cannot grow the table: rbh_test_work_here() must follow.
 */
static void rbh_test_dividing_chain(struct kunit *test, struct rbh *rbh,
				    unsigned long n, struct rbh_stats *st)
{
	unsigned long i;

	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(0),
					 rbh_test_ptr(0)), 0);
	rbh_test_work_off(test, rbh);
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(i),
						 rbh_test_ptr(i)), 0);
	KUNIT_EXPECT_GT(test, READ_ONCE(rbh->rbh_split_nr), 0U);
	rbh_test_stats(test, rbh, st);
	KUNIT_ASSERT_EQ(test, st->table_slots, 2UL);
	KUNIT_ASSERT_GT(test, st->overflow_buckets, 32UL);
}

/* Each of entries 0 to @n - 1 is found once under its own pointer. */
static void rbh_test_check_chain(struct kunit *test, struct rbh *rbh,
				 unsigned long n)
{
	unsigned long i, found;

	for (i = 0; i < n; i++) {
		found = rbh_test_count(rbh, rbh_test_chain_hash(i),
				       rbh_test_ptr(i), NULL);
		KUNIT_EXPECT_EQ_MSG(test, found, 1UL, "entry %lu", i);
	}
}

/*
 * The work, which an insertion into the full bucket 0 handed its split
 * to, doubles the table and divides the long chain between the halves,
 * and every entry is still found once.
 */
static void rbh_split_long_chain(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long n = 40 * rbh_test_capacity(test, rbh, before);

	rbh_test_dividing_chain(test, rbh, n, before);
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(n),
					 rbh_test_ptr(n)), 0);
	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT(test, after->splits, before->splits);
	KUNIT_EXPECT_LT(test, after->overflow_buckets,
			before->overflow_buckets);
	rbh_test_check_chain(test, rbh, n + 1);
	rbh_test_destroy(test, rbh);
}

/* Entries of rbh_split_chain_summary(): keys with the top two bits clear */
static u32 rbh_test_low_hash(unsigned long i)
{
	return rbh_test_hash_of_key(rbh_test_chain_key(i) & ~BIT(30));
}

/* ... and keys in the same bucket of depth 1, with bit 1 set */
static u32 rbh_test_odd_hash(unsigned long i)
{
	return rbh_test_hash_of_key(rbh_test_chain_key(i) | BIT(30));
}

/*
 * The summary of a chain's keys lives in its first bucket: when removals
 * empty that bucket and it is unlinked, the next one takes the summary
 * over.  Here the primary bucket holds a key with bit 1 set, so that the
 * split it asks for divides keys at bit 1; the chain's keys have it
 * clear, but for one that goes into a free entry of the second bucket,
 * which only the first bucket's summary notes.  Without the summary it
 * takes over, the split would hand the whole chain to the half of the
 * keys with bit 1 clear, and that entry would be lost.
 */
static void rbh_split_chain_summary(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long cap = rbh_test_capacity(test, rbh, before);
	unsigned long n = 5 * cap - 1, i, odd = n, found;

	rbh_test_faults_init(test);
	/* The first table, then no work to make a deeper one */
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_odd_hash(odd + 1),
					 rbh_test_ptr(odd + 1)), 0);
	rbh_test_work_off(test, rbh);
	/* The primary bucket, then 4 overflow buckets, the newest first */
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_low_hash(i),
						 rbh_test_ptr(i)), 0);
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_EQ(test, before->overflow_buckets, 4UL);
	KUNIT_ASSERT_EQ(test, before->table_slots, 2UL);
	KUNIT_ASSERT_EQ(test, READ_ONCE(rbh->rbh_split_nr), 1U);

	/* A free entry in the second bucket, for a key with bit 1 set */
	KUNIT_ASSERT_EQ(test, rbh_remove(rbh, rbh_test_low_hash(n - cap - 1),
					 rbh_test_ptr(n - cap - 1)), 0);
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_odd_hash(odd),
					 rbh_test_ptr(odd)), 0);
	rbh_test_stats(test, rbh, after);
	KUNIT_ASSERT_EQ(test, after->overflow_buckets, 4UL);

	/* Empty the first bucket */
	for (i = n - cap; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_remove(rbh, rbh_test_low_hash(i),
						 rbh_test_ptr(i)), 0);
	rbh_test_stats(test, rbh, after);
	KUNIT_ASSERT_EQ(test, after->overflow_buckets, 3UL);

	/* The work doubles the table and splits the bucket: the chain divides */
	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT(test, after->splits, before->splits);
	for (i = 0; i < n - cap - 1; i++) {
		found = rbh_test_count(rbh, rbh_test_low_hash(i),
				       rbh_test_ptr(i), NULL);
		KUNIT_EXPECT_EQ_MSG(test, found, 1UL, "entry %lu", i);
	}
	for (i = odd; i <= odd + 1; i++) {
		found = rbh_test_count(rbh, rbh_test_odd_hash(i),
				       rbh_test_ptr(i), NULL);
		KUNIT_EXPECT_EQ_MSG(test, found, 1UL, "entry %lu", i);
	}
	rbh_test_destroy(test, rbh);
}

/*
 * A new first bucket of a chain takes the old one's summary over: here
 * an entry whose key differs at bit 1 goes into the chain while the
 * table cannot grow, and then so many whose keys agree there that the
 * chain gets a new first bucket.  With only its own keys in the
 * summary, the split would hand the chain to one half and lose the odd
 * entry.
 */
static void rbh_split_chain_summary_prepend(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long cap = rbh_test_capacity(test, rbh, before);
	unsigned long i, odd = 4 * cap, trigger = odd + 1, found;

	rbh_test_faults_init(test);
	for (i = 0; i < cap + 1; i++) {
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_low_hash(i),
						 rbh_test_ptr(i)), 0);
		/* The first table, then no work to make a deeper one */
		if (!i)
			rbh_test_work_off(test, rbh);
	}
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_odd_hash(odd),
					 rbh_test_ptr(odd)), 0);
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_EQ(test, before->overflow_buckets, 1UL);
	for (i = cap + 1; i < odd; i++) {
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_low_hash(i),
						 rbh_test_ptr(i)), 0);
		rbh_test_stats(test, rbh, after);
		if (after->overflow_buckets == 2)
			break;
	}
	KUNIT_ASSERT_EQ(test, after->overflow_buckets, 2UL);
	KUNIT_ASSERT_EQ(test, after->table_slots, 2UL);

	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_odd_hash(trigger),
					 rbh_test_ptr(trigger)), 0);
	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT(test, after->splits, before->splits);
	found = rbh_test_count(rbh, rbh_test_odd_hash(odd), rbh_test_ptr(odd),
			       NULL);
	KUNIT_EXPECT_EQ(test, found, 1UL);
	rbh_test_destroy(test, rbh);
}

/*
 * Splitting a bucket shared by two slots allocates two buckets: if either
 * allocation fails, the insertion fails with -ENOMEM and changes nothing.
 */
static void rbh_alloc_fail_split(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned int cap, fail_at, attempt;
	struct rbh_test_set *set;
	struct rbh_test_fault *f;
	unsigned long i = 0;
	bool shared;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	set = rbh_test_set_new(test, rbh, 128 * cap + 256);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);

	/* Double the table twice, so that most buckets are shared. */
	do {
		KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i++), 0);
		rbh_test_stats(test, rbh, before);
	} while (before->grows < 2 && i < set->max / 2);
	KUNIT_ASSERT_GE(test, before->grows, 2UL);

	for (fail_at = 1; fail_at <= 2; fail_at++) {
		shared = false;
		for (attempt = 0; attempt < 16 && !shared; attempt++) {
			f = rbh_test_fault_arm(test, RBH_TEST_BUCKET, fail_at);
			i = rbh_test_insert_until_enomem(test, set, i, f,
							 before, after);
			rbh_test_fault_disarm(test);
			KUNIT_ASSERT_LT_MSG(test, i, set->max,
					    "no insertion allocated a bucket");

			rbh_test_stats(test, rbh, before);
			KUNIT_EXPECT_EQ(test, rbh_test_set_insert(set, i++), 0);
			rbh_test_stats(test, rbh, after);
			shared = after->splits > before->splits &&
				 after->grows == before->grows;
		}
		KUNIT_EXPECT_TRUE_MSG(test, shared,
				      "no split of a shared bucket failed with allocation %u failing",
				      fail_at);
	}
	rbh_test_check_set(test, set);
	rbh_test_set_del(test, set, 0, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * Entries under one hash that do not fit in their bucket go to an overflow
 * chain, one allocated bucket at a time: each of those allocations can
 * fail without changing anything.
 */
static void rbh_alloc_fail_overflow(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	u32 key = RBH_TEST_FLOOD * GOLDEN_RATIO_32;
	struct rbh_test_set *set;
	struct rbh_test_fault *f;
	unsigned long i, j, n;
	unsigned int cap;
	int err = 0;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 3 * cap + 4;
	/* n entries under one hash, then four whose keys share its bucket */
	set = rbh_test_set_new(test, rbh, n + 4);
	for (i = 0; i < n; i++)
		set->hash[i] = RBH_TEST_FLOOD;
	for (i = 0; i < 4; i++)
		set->hash[n + i] = rbh_test_hash_of_key(key ^ (i + 1));
	if (!rbh_test_set_add(test, set, 0, cap))
		goto out;

	/* The bucket is full: the next entry needs the first chain bucket. */
	f = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
	i = rbh_test_insert_until_enomem(test, set, cap, f, before, after);
	rbh_test_fault_disarm(test);
	KUNIT_EXPECT_EQ(test, i, (unsigned long)cap);
	KUNIT_ASSERT_LT(test, i, n);
	KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i), 0);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ(test, after->overflow_buckets, 1UL);

	/* When that one is full, the chain needs a second bucket. */
	f = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
	j = rbh_test_insert_until_enomem(test, set, i + 1, f, before, after);
	rbh_test_fault_disarm(test);
	KUNIT_EXPECT_LE(test, j, i + cap);
	KUNIT_ASSERT_LT(test, j, n);
	KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, j), 0);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ(test, after->overflow_buckets, 2UL);
	if (!rbh_test_set_add(test, set, j + 1, n))
		goto out;

	/*
	 * Other keys in the full bucket make room by moving entries into the
	 * chain, which may need another bucket: if it cannot be allocated,
	 * nothing moves.
	 */
	for (i = n; i < set->max; i++) {
		f = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
		j = rbh_test_insert_until_enomem(test, set, i, f, before,
						 after);
		rbh_test_fault_disarm(test);
		if (j == set->max)
			break;
		err = rbh_test_set_insert(set, j);
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "entry %lu", j);
		if (err)
			break;
		i = j;
	}
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, before, set->max, 0);

	for (i = set->max; i-- > 0; ) {
		err = rbh_test_set_remove(set, i);
		if (err)
			break;
	}
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "removing entry %lu", i);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_check_counts(test, rbh, after, 0, 0);
	KUNIT_EXPECT_EQ(test, after->overflow_buckets, 0UL);
out:
	rbh_test_destroy(test, rbh);
}

/*
 * The work item keeps the old table when the smaller one cannot be
 * allocated: everything keeps working, and the work queued by a later
 * removal halves the table once the allocator works again.  The work runs
 * in the case's own thread, where the allocation stub applies.
 */
static void rbh_alloc_fail_shrink(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long n, keep, more, shrinks;
	struct rbh_test_set *set;
	struct rbh_test_fault *f;
	unsigned int cap;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 32 * cap;
	keep = cap / 2 + 1;
	more = 2 * cap;
	set = rbh_test_set_new(test, rbh, n + more);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_GE(test, before->table_slots, 8UL);

	rbh_test_work_off(test, rbh);
	if (!rbh_test_set_del(test, set, keep, n))
		goto out;
	f = rbh_test_fault_arm(test, RBH_TEST_TABLE, 0);
	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT_MSG(test, f->failed, 0U,
			    "the work item did not try to halve the table");
	KUNIT_EXPECT_EQ(test, after->shrinks, before->shrinks);
	KUNIT_EXPECT_EQ(test, after->table_slots, before->table_slots);
	KUNIT_EXPECT_GT(test, after->merges, before->merges);
	KUNIT_EXPECT_EQ(test, after->entries, keep);
	rbh_test_check_set(test, set);

	/* With the halving pending, insertion and removal still work. */
	rbh_test_work_off(test, rbh);
	if (!rbh_test_set_add(test, set, n, n + more))
		goto out;
	rbh_test_check_set(test, set);
	if (!rbh_test_set_del(test, set, n, n + more))
		goto out;
	rbh_test_work_here(test, rbh);
	shrinks = READ_ONCE(rbh->rbh_shrinks);
	KUNIT_EXPECT_EQ(test, shrinks, before->shrinks);
	rbh_test_fault_disarm(test);

	rbh_test_stats(test, rbh, before);
	if (!rbh_test_set_del(test, set, 0, 1))
		goto out;
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT_MSG(test, after->shrinks, before->shrinks,
			    "the first removal after the failures did not get the table halved");
	KUNIT_EXPECT_LT(test, after->table_slots, before->table_slots);
	rbh_test_check_set(test, set);

	rbh_test_set_del(test, set, 0, keep);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_stats(test, rbh, after);
	rbh_test_print_stats(test, "emptied", after);
out:
	rbh_test_fault_disarm(test);
	rbh_test_destroy(test, rbh);
}

/*
 * The primary buckets of @rbh shallower than its table that have a chain:
 * an insertion into one of them that finds it full hands it to the work.
 */
static unsigned long rbh_test_shallow_chains(struct rbh *rbh)
{
	struct rbh_bucket __rcu **table;
	struct rbh_bucket *bucket;
	unsigned long i, n = 0;
	unsigned int depth;

	rcu_read_lock();
	table = rbh_untag(rcu_dereference(rbh->rbh_table), &depth);
	for (i = 0; table && i < BIT(depth);
	     i += BIT(depth - bucket->h.depth)) {
		bucket = rcu_dereference(table[i]);
		if (bucket->h.depth < depth && rcu_access_pointer(bucket->h.chain))
			n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * Insertions leave the doublings of the table they need to the work, and
 * chains take the entries meanwhile.  No insertion but the first
 * allocates a table.  The work doubles the table and splits the bucket
 * handed over, and then every chained bucket the doubling left shallower
 * than the table, whether or not it was handed over; and it does not
 * halve the table it doubled.
 *
 * The dividing chain fills bucket 0 of the first table and hands it
 * over, once.  That request is dropped, as when the work's list is full;
 * the doubling asked for by bucket 1, done by the work as queued in its
 * own thread, splits the chain too.
 */
static void rbh_grow_deferred(struct kunit *test)
{
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	struct rbh_test_fault *ft;
	unsigned long i, n, cap;
	struct rbh *rbh;

	rbh = rbh_test_new(test);
	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 40 * cap;
	/* The first table is no doubling: an insertion makes it */
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(0),
					 rbh_test_ptr(0)), 0);
	rbh_test_work_off(test, rbh);

	ft = rbh_test_fault_arm(test, RBH_TEST_TABLE, UINT_MAX);
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(i),
						 rbh_test_ptr(i)), 0);
	KUNIT_EXPECT_EQ_MSG(test, ft->calls, 0U,
			    "an insertion allocated a table");
	rbh_test_stats(test, rbh, before);
	KUNIT_EXPECT_EQ(test, before->table_slots, 2UL);
	KUNIT_EXPECT_EQ(test, before->grows, 0UL);
	KUNIT_EXPECT_GT(test, before->overflow_buckets, 16UL);
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(rbh->rbh_split_nr), 1U,
			    "bucket 0 not handed over once");
	spin_lock(&rbh->rbh_work_lock);
	WRITE_ONCE(rbh->rbh_split_nr, 0);
	spin_unlock(&rbh->rbh_work_lock);

	/* Bucket 1 full: the work doubles the table and splits it */
	enable_work(&rbh->rbh_work);
	for (i = 0; i <= cap; i++) {
		u32 key = rbh_test_chain_key(n + i) | BIT(31);

		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_hash_of_key(key),
						 rbh_test_ptr(n + i)), 0);
	}
	rbh_test_fault_disarm(test);
	KUNIT_EXPECT_EQ(test, ft->calls, 0U);
	/* Which waits for the work */
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT_MSG(test, after->grows, before->grows,
			    "the work did not double the table");
	KUNIT_EXPECT_GT(test, after->splits, before->splits);
	KUNIT_EXPECT_EQ_MSG(test, after->shrinks, before->shrinks,
			    "the work halved the table it doubled");
	KUNIT_EXPECT_LT_MSG(test, after->overflow_buckets,
			    before->overflow_buckets,
			    "the work left bucket 0's chain");
	KUNIT_EXPECT_EQ_MSG(test, rbh_test_shallow_chains(rbh), 0UL,
			    "chained buckets shallower than the table");
	rbh_test_print_stats(test, "after the work", after);
	rbh_test_check_chain(test, rbh, n);
	rbh_test_destroy(test, rbh);
}

/*
 * The work splits a long chain that insertions handed over.  The dividing
 * chain fills bucket 0 and asks for a doubling, which the work makes; the
 * split fails for want of buckets, and the work stops there rather than
 * try again while memory is short, so the chain stays, in a bucket now
 * shallower than the table, until the next insertion into it hands it
 * over again: an insertion copies no chain itself.
 */
static void rbh_grow_deferred_long_chain(struct kunit *test)
{
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	struct rbh_test_fault *fb;
	unsigned long i, n, cap;
	struct rbh *rbh;

	rbh_test_faults_init(test);
	rbh = rbh_test_new(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 40 * cap;
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(0),
					 rbh_test_ptr(0)), 0);
	rbh_test_work_off(test, rbh);
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(i),
						 rbh_test_ptr(i)), 0);
	KUNIT_ASSERT_EQ(test, READ_ONCE(rbh->rbh_split_nr), 1U);
	rbh_test_stats(test, rbh, before);

	fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
	rbh_test_work_here(test, rbh);
	rbh_test_fault_disarm(test);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ_MSG(test, fb->failed, 1U,
			    "the work went on allocating after a failure");
	KUNIT_ASSERT_EQ(test, after->table_slots, 2 * before->table_slots);
	KUNIT_ASSERT_EQ(test, after->overflow_buckets,
			before->overflow_buckets);

	rbh_test_work_off(test, rbh);
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(n),
					 rbh_test_ptr(n)), 0);
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(rbh->rbh_split_nr), 1U,
			    "the insertion did not hand its split over");
	rbh_test_stats(test, rbh, before);
	KUNIT_EXPECT_EQ_MSG(test, before->splits, after->splits,
			    "the insertion copied the chain itself");
	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT(test, after->splits, before->splits);
	KUNIT_EXPECT_LT(test, after->overflow_buckets,
			before->overflow_buckets);
	KUNIT_EXPECT_EQ(test, after->shrinks, before->shrinks);
	KUNIT_EXPECT_EQ(test, rbh_test_shallow_chains(rbh), 0UL);
	rbh_test_check_chain(test, rbh, n + 1);
	rbh_test_destroy(test, rbh);
}

/*
 * The work splits both halves of a chain it divides, not only the half of
 * the key it was given.  Bucket 0 of a two-slot table takes a chain of
 * three buckets' worth, which a failed allocation keeps from splitting
 * when the work doubles the table.  Entries under "10" then fill a bucket
 * of the second half, and the work doubles the table again for it; its
 * walk after the doubling splits bucket 0, whose halves are each too full
 * for one bucket, and each must split again, into buckets as deep as the
 * table, without another doubling (and so without another walk).
 */
static void rbh_grow_deferred_both_halves(struct kunit *test)
{
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	struct rbh_test_fault *fb;
	unsigned long i, n, cap;
	struct rbh *rbh;
	u32 key;

	rbh_test_faults_init(test);
	rbh = rbh_test_new(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 3 * cap;
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(0),
					 rbh_test_ptr(0)), 0);
	rbh_test_work_off(test, rbh);
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(i),
						 rbh_test_ptr(i)), 0);
	KUNIT_ASSERT_EQ(test, READ_ONCE(rbh->rbh_split_nr), 1U);
	fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
	rbh_test_work_here(test, rbh);
	rbh_test_fault_disarm(test);
	KUNIT_ASSERT_EQ(test, fb->failed, 1U);
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_EQ(test, before->table_slots, 4UL);
	KUNIT_ASSERT_EQ(test, rbh_test_shallow_chains(rbh), 1UL);

	/*
	 * Keys under "1" fill bucket 1, which splits itself; then keys
	 * under "10" fill its lower half, which asks for a doubling
	 */
	rbh_test_work_off(test, rbh);
	for (i = 0; i < 4 * cap && !READ_ONCE(rbh->rbh_split_nr); i++) {
		key = BIT(31) | (u32)(i * GOLDEN_RATIO_32) >> (i < cap ? 1 : 2);
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_hash_of_key(key),
						 rbh_test_ptr(n + i)), 0);
	}
	KUNIT_ASSERT_EQ(test, READ_ONCE(rbh->rbh_split_nr), 1U);
	rbh_test_stats(test, rbh, before);
	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ_MSG(test, after->grows, before->grows + 1,
			    "the work did not double the table once");
	KUNIT_EXPECT_EQ_MSG(test, rbh_test_shallow_chains(rbh), 0UL,
			    "the other half of bucket 0 kept its chain");
	KUNIT_EXPECT_EQ(test, after->overflow_buckets, 0UL);
	rbh_test_check_chain(test, rbh, n);
	rbh_test_destroy(test, rbh);
}

/*
 * A run of the work that doubled the table for a bucket does not halve
 * it, even when the bucket could not be split (its buckets could not be
 * allocated): otherwise the next insertion into it asks again, and every
 * run doubles and halves the table.
 */
static void rbh_grow_deferred_keeps_growth(struct kunit *test)
{
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	struct rbh_test_fault *fb;
	unsigned long i, cap;
	struct rbh *rbh;

	rbh = rbh_test_new(test);
	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(0),
					 rbh_test_ptr(0)), 0);
	rbh_test_work_off(test, rbh);
	/* Bucket 0 full and chained: it asks for a doubling */
	for (i = 1; i <= cap; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, rbh_test_chain_hash(i),
						 rbh_test_ptr(i)), 0);
	KUNIT_ASSERT_EQ(test, READ_ONCE(rbh->rbh_split_nr), 1U);
	rbh_test_stats(test, rbh, before);

	fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
	rbh_test_work_here(test, rbh);
	rbh_test_fault_disarm(test);
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GT(test, fb->failed, 0U);
	KUNIT_EXPECT_GT(test, after->grows, before->grows);
	KUNIT_EXPECT_EQ(test, after->splits, before->splits);
	KUNIT_EXPECT_EQ_MSG(test, after->shrinks, before->shrinks,
			    "the work halved the table it doubled");
	KUNIT_EXPECT_EQ(test, after->table_slots, 2 * before->table_slots);
	rbh_test_check_chain(test, rbh, cap + 1);
	rbh_test_destroy(test, rbh);
}

/*
 * Remove entries @first .. @end - 1 of @set, each with @lock held, as
 * rbh_remove()'s Context allows for a caller's spinlock.
 */
static bool rbh_test_set_del_locked(struct kunit *test,
				    struct rbh_test_set *set,
				    unsigned long first, unsigned long end,
				    spinlock_t *lock)
{
	unsigned long i;
	int err;

	for (i = first; i < end; i++) {
		if (!test_bit(i, set->present))
			continue;
		spin_lock(lock);
		err = rbh_test_set_remove(set, i);
		spin_unlock(lock);
		if (err) {
			KUNIT_FAIL(test, "rbh_remove(%#x, %p) of entry %lu: %d",
				   set->hash[i], rbh_test_ptr(i), i, err);
			return false;
		}
		cond_resched();
	}
	return true;
}

/* Floods of one hash each in rbh_remove_defers_shrinking() */
#define RBH_TEST_FLOODS		8

/*
 * Removals never take the resize lock and never allocate: with the
 * resize lock held around each one, as a grow would hold it (a removal
 * that took it would deadlock), and the work item kept from running,
 * they fold, merge and halve nothing themselves, and the work item
 * does it all when the case runs it.
 * The allocation stubs count calls and let them through, so that a
 * removal that folded or halved by itself would show in the shape as
 * well as in the count.  The floods leave
 * more buckets to fold than struct rbh can list, so the work must walk
 * the table and fold them all.
 */
static void rbh_remove_defers_shrinking(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test), *chained = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long n, keep, merges, shrinks, i, flood;
	struct rbh_test_fault *fb, *ft;
	struct rbh_test_set *set, *same;
	unsigned int cap;
	bool ok = true;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 32 * cap;
	keep = cap / 2 + 1;
	flood = 2 * cap;
	set = rbh_test_set_new(test, rbh, n);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	same = rbh_test_set_new(test, chained, RBH_TEST_FLOODS * flood);
	rbh_test_set_fill(same, RBH_TEST_ONE_HASH);
	/*
	 * Flood j: one key, whose top bits are j.  Added in turns, so that
	 * buckets split until each flood has one of its own (a bucket full
	 * of one key takes the next key into its chain unless the two first
	 * differ at the bucket's depth).
	 */
	for (i = 0; i < RBH_TEST_FLOODS * flood; i++)
		same->hash[i] = rbh_test_hash_of_key((u32)(i % RBH_TEST_FLOODS) << 29);
	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	/* Each split made before the next insertion, as the case counts on */
	for (i = 0; i < RBH_TEST_FLOODS * flood; i++) {
		if (!rbh_test_set_add(test, same, i, i + 1))
			goto out;
		rbh_test_settle(chained);
	}
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_GE(test, before->table_slots, 8UL);
	rbh_test_stats(test, chained, after);
	KUNIT_ASSERT_GE(test, after->overflow_buckets,
			(unsigned long)RBH_TEST_FLOODS);

	rbh_test_work_off(test, rbh);
	rbh_test_work_off(test, chained);
	fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, UINT_MAX);
	ft = rbh_test_fault_arm(test, RBH_TEST_TABLE, UINT_MAX);
	/* The oldest entries of each flood are in its bucket: keep the newest */
	ok = rbh_test_set_del_locked(test, set, keep, n,
				     &rbh->rbh_resize_lock) &&
	     rbh_test_set_del_locked(test, same, 0,
				     RBH_TEST_FLOODS * (flood - cap / 3),
				     &chained->rbh_resize_lock);
	rbh_test_fault_disarm(test);
	if (!ok)
		goto out;
	KUNIT_EXPECT_EQ_MSG(test, fb->calls + ft->calls, 0U,
			    "removals allocated %u buckets and %u tables",
			    fb->calls, ft->calls);
	merges = READ_ONCE(rbh->rbh_merges);
	shrinks = READ_ONCE(rbh->rbh_shrinks);
	KUNIT_EXPECT_EQ_MSG(test, merges, before->merges,
			    "removals merged buckets themselves");
	KUNIT_EXPECT_EQ_MSG(test, shrinks, before->shrinks,
			    "removals halved the table themselves");
	rbh_stats(chained, after);
	KUNIT_EXPECT_GE_MSG(test, after->overflow_buckets,
			    (unsigned long)RBH_TEST_FLOODS,
			    "removals folded chains themselves");

	rbh_test_work_here(test, rbh);
	rbh_test_work_here(test, chained);
	rbh_test_stats(test, rbh, after);
	rbh_test_print_stats(test, "after the work item", after);
	KUNIT_EXPECT_GT(test, after->merges, before->merges);
	KUNIT_EXPECT_GT(test, after->shrinks, before->shrinks);
	KUNIT_EXPECT_LT(test, after->table_slots, before->table_slots);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, chained, after,
			      RBH_TEST_FLOODS * (cap / 3), 0);
	rbh_test_print_stats(test, "floods after the work item", after);
	KUNIT_EXPECT_EQ_MSG(test, after->overflow_buckets, 0UL,
			    "the work item did not fold every chain");
	rbh_test_check_set(test, same);
out:
	rbh_test_destroy(test, chained);
	rbh_test_destroy(test, rbh);
}

/*
 * Entry @i of part @part of the key space cut in 2^@bits parts, and its
 * pointer, in the merge cases below (@i below 64).
 */
static u32 rbh_test_part_hash(unsigned int bits, unsigned int part,
			      unsigned int i)
{
	return rbh_test_hash_of_key((u32)part << (32 - bits) |
				    ((i + 1) * 0x01234567U &
				     (BIT(32 - bits) - 1)));
}

static void *rbh_test_part_ptr(unsigned int part, unsigned int i)
{
	return rbh_test_ptr(part * 64 + i);
}

/* Give part @part entries up to @to, or take them down to it */
static bool rbh_test_part_set(struct kunit *test, struct rbh *rbh,
			      unsigned int bits, unsigned int part,
			      unsigned int *n, unsigned int to)
{
	int err = 0;

	for (; *n < to && !err; ++*n)
		err = rbh_insert(rbh, rbh_test_part_hash(bits, part, *n),
				 rbh_test_part_ptr(part, *n));
	while (*n > to && !err) {
		--*n;
		err = rbh_remove(rbh, rbh_test_part_hash(bits, part, *n),
				 rbh_test_part_ptr(part, *n));
	}
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "part %u of %u, entry %u", part,
			    1U << bits, *n);
	return !err;
}

/*
 * Once parts 0 and 1 of the key space cut in 2^@bits parts are left, with
 * @n[0] and @n[1] entries that fit in one bucket: are they merged, the
 * table halved down to two slots, and every entry still found?
 */
static void rbh_test_parts_merged(struct kunit *test, struct rbh *rbh,
				  struct rbh_stats *st, unsigned int bits,
				  const unsigned int *n)
{
	unsigned int part, i;

	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, st->entries, (unsigned long)(n[0] + n[1]));
	KUNIT_EXPECT_EQ_MSG(test, st->table_slots, 2UL,
			    "buckets of %u and %u entries did not merge",
			    n[0], n[1]);
	for (part = 0; part < 2; part++)
		for (i = 0; i < n[part]; i++)
			KUNIT_EXPECT_EQ(test,
					rbh_test_count(rbh,
						       rbh_test_part_hash(bits, part, i),
						       rbh_test_part_ptr(part, i), NULL),
					1UL);
}

/*
 * Give each of 256 parts of the key space a full bucket of its own, of
 * depth 8 (two parts overflow a bucket), in turns, so that the table
 * grows with the buckets.  *@cap is a bucket's capacity; *@a and *@b
 * fill RBH_MERGE_MAX together, *@a the larger.
 * Return: the parts' counts of entries, for rbh_test_part_set().
 */
static unsigned int *rbh_test_parts_fill(struct kunit *test, struct rbh *rbh,
					 struct rbh_stats *st, unsigned int *cap,
					 unsigned int *a, unsigned int *b)
{
	unsigned int p, i, *n;

	n = kunit_kcalloc(test, 256, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	*cap = rbh_test_capacity(test, rbh, st);
	*a = 2 * *cap / 3 / 2 + 1;
	*b = 2 * *cap / 3 - *a;
	for (i = 1; i < *cap; i++)
		for (p = 0; p < 256; p++)
			KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 8, p,
								  &n[p], i));
	rbh_test_stats(test, rbh, st);
	KUNIT_ASSERT_EQ(test, st->table_slots, 256UL);
	return n;
}

/*
 * Two buddies as deep as the table merge once they fit in one bucket,
 * even when the removal that makes them fit is from the fuller of the
 * two, which does not look at its buddy: otherwise, if nothing more is
 * removed from either, the table would never halve, however few entries
 * are left.  256 parts of the key space fill a bucket each; parts 0 and
 * 1 end with a and b entries, a + b = RBH_MERGE_MAX (two thirds of a
 * bucket), the last removal taking part 0 from a + 1 to a, and the
 * other parts go.
 */
static void rbh_merge_from_fuller_buddy(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned int cap, a, b, p, *n;

	n = rbh_test_parts_fill(test, rbh, st, &cap, &a, &b);

	for (p = 2; p < 256; p++)
		KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 8, p, &n[p],
							  0));
	KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 8, 0, &n[0], a + 1) &&
				rbh_test_part_set(test, rbh, 8, 1, &n[1], b));
	rbh_test_stats(test, rbh, st);
	KUNIT_ASSERT_EQ_MSG(test, st->table_slots, 256UL,
			    "%u and %u entries merged", a + 1, b);

	KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 8, 0, &n[0], a));
	rbh_test_parts_merged(test, rbh, st, 8, n);
	rbh_test_destroy(test, rbh);
}

/*
 * Two buddies as deep as the table that fit in one bucket before the
 * table is too large for its buckets merge once it is: the removals that
 * make it so are from other buckets, one at a time, each merge done by
 * the work item before the next removal, so that no run of it walks
 * the table for having been handed too many buckets.
 */
static void rbh_merge_once_oversized(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned int cap, a, b, p, *n;

	n = rbh_test_parts_fill(test, rbh, st, &cap, &a, &b);
	/*
	 * The last removal from the two is from the fuller, which looks at
	 * nothing: the table is not too large yet.
	 */
	KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 8, 1, &n[1], b) &&
				rbh_test_part_set(test, rbh, 8, 0, &n[0], a));
	rbh_test_stats(test, rbh, st);
	KUNIT_ASSERT_EQ_MSG(test, st->merges, 0UL, "%u and %u entries merged",
			    a, b);

	for (p = 2; p < 256; p++) {
		while (n[p]) {
			KUNIT_ASSERT_TRUE(test,
					  rbh_test_part_set(test, rbh, 8, p, &n[p],
							    n[p] - 1));
			rbh_test_settle(rbh);
		}
	}
	rbh_test_parts_merged(test, rbh, st, 8, n);
	rbh_test_destroy(test, rbh);
}

/*
 * Two buckets of depth 2 left as above, below a table of depth 3, which
 * is not too large for its buckets: once the table halves and they are
 * as deep as it, the work item merges them and halves the table again.
 * Eighths 4 to 7 make the table 8 slots deep, then go.
 */
static void rbh_merge_after_halving(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned int cap, a, b, e, n[8] = { };

	cap = rbh_test_capacity(test, rbh, st);
	a = 2 * cap / 3 / 2 + 1;
	b = 2 * cap / 3 - a;
	/* Quarters 0 and 1 (eighths 0 to 3) and eighths 4 to 7, full */
	KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 2, 0, &n[0], cap - 1) &&
				rbh_test_part_set(test, rbh, 2, 1, &n[1], cap - 1));
	for (e = 4; e < 8; e++)
		KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 3, e, &n[e],
							  cap - 1));
	rbh_test_stats(test, rbh, st);
	KUNIT_ASSERT_EQ(test, st->table_slots, 8UL);
	KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 2, 0, &n[0], a + 1) &&
				rbh_test_part_set(test, rbh, 2, 1, &n[1], b));

	KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 2, 0, &n[0], a));
	for (e = 4; e < 8; e++)
		KUNIT_ASSERT_TRUE(test, rbh_test_part_set(test, rbh, 3, e, &n[e],
							  0));
	rbh_test_parts_merged(test, rbh, st, 2, n);
	rbh_test_destroy(test, rbh);
}

/* Insert and remove @p under @hash 1000 times: the shape must not churn. */
static void rbh_test_toggle(struct kunit *test, struct rbh *rbh, u32 hash,
			    void *p, struct rbh_stats *st)
{
	unsigned long i, resizes, errors = 0;

	rbh_test_stats(test, rbh, st);
	resizes = rbh_test_resizes(st);
	for (i = 0; i < 1000; i++) {
		if (rbh_insert(rbh, hash, p) || rbh_remove(rbh, hash, p))
			errors++;
		cond_resched();
	}
	rbh_test_stats(test, rbh, st);
	KUNIT_EXPECT_EQ(test, errors, 0UL);
	KUNIT_EXPECT_LE_MSG(test, rbh_test_resizes(st) - resizes, 4UL,
			    "1000 insert/remove pairs under hash %#x", hash);
	kunit_info(test, "1000 insert/remove pairs: %lu resizes\n",
		   rbh_test_resizes(st) - resizes);
}

/*
 * Just past a split, and just past a merge, inserting and removing one
 * entry again and again changes the shape of the rosebush a bounded
 * number of times, not every time.
 */
static void rbh_resize_hysteresis(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	struct rbh_test_set *set;
	unsigned long i, j;
	unsigned int cap;
	bool merged = false;
	void *toggle;

	cap = rbh_test_capacity(test, rbh, before);
	set = rbh_test_set_new(test, rbh, 32 * cap);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	toggle = rbh_test_ptr(set->max);
	if (!rbh_test_set_add(test, set, 0, 8 * cap))
		goto out;

	for (i = 8 * cap; i < set->max; i++) {
		rbh_test_stats(test, rbh, before);
		KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i), 0);
		rbh_test_stats(test, rbh, after);
		if (after->splits > before->splits)
			break;
	}
	KUNIT_ASSERT_LT_MSG(test, i, set->max, "no insertion split a bucket");
	rbh_test_toggle(test, rbh, set->hash[i], toggle, after);

	for (j = i + 1; !merged && j-- > 0; ) {
		rbh_test_stats(test, rbh, before);
		KUNIT_ASSERT_EQ(test, rbh_test_set_remove(set, j), 0);
		rbh_test_stats(test, rbh, after);
		merged = after->merges > before->merges;
	}
	KUNIT_ASSERT_TRUE_MSG(test, merged, "no removal merged two buckets");
	rbh_test_toggle(test, rbh, set->hash[j], toggle, after);

	rbh_test_check_set(test, set);
	rbh_test_set_del(test, set, 0, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
out:
	rbh_test_destroy(test, rbh);
}

/*
 * Model-based test: random operations on a small hash space (so that
 * hashes repeat and pointers are stored several times), each checked
 * against a plain array of (hash, pointer) records, where a NULL pointer
 * is a reservation.
 */
#define RBH_TEST_MODEL_RECS	512
#define RBH_TEST_MODEL_STEPS	100000UL
#define RBH_TEST_MODEL_PHASE	10000UL	/* steps of filling, then draining */
#define RBH_TEST_MODEL_CHECK	4096UL	/* steps between full checks */

struct rbh_test_rec {
	u32 hash;
	void *p;
};

struct rbh_test_model {
	struct kunit *test;
	struct rbh *rbh;
	struct rbh_stats *st;
	struct rnd_state rnd;
	struct rbh_test_rec *rec;
	unsigned int nr;		/* records in use */
	unsigned int nr_reserved;	/* of them, reservations */
	void **walk;			/* what the last walk returned */
	void **gone;			/* what it removed */
	unsigned int walk_max;
	unsigned long next_id;		/* for rbh_test_ptr() */
	unsigned long step;
};

/* Report a mismatch and evaluate to false, to stop at the first one. */
#define rbh_test_model_fail(m, fmt, ...)				\
({									\
	struct rbh_test_model *__m = (m);				\
									\
	KUNIT_FAIL(__m->test, "step %lu (seed %lu): " fmt,		\
		   __m->step, rbh_test_seed, ##__VA_ARGS__);		\
	false;								\
})

enum rbh_test_op {
	RBH_OP_INSERT,
	RBH_OP_INSERT_AGAIN,	/* a stored pointer, under its hash */
	RBH_OP_INSERT_NULL,
	RBH_OP_RESERVE,
	RBH_OP_USE,
	RBH_OP_USE_NULL,
	RBH_OP_RELEASE,
	RBH_OP_REMOVE,
	RBH_OP_REMOVE_ABSENT,
	RBH_OP_ITER_REMOVE,
	RBH_OP_LOOKUP,
	RBH_NR_OPS
};

/* Relative frequencies of the operations while filling and draining */
static const u8 rbh_test_op_weight[2][RBH_NR_OPS] = {
	{ 30, 5, 1, 10, 10, 1, 4, 15, 3, 2, 19 },
	{ 10, 2, 1, 4, 10, 1, 8, 30, 3, 8, 23 },
};

static u32 rbh_test_rand(struct rbh_test_model *m, u32 below)
{
	return prandom_u32_state(&m->rnd) % below;
}

/* Half the hashes come from 32 values, a quarter from stored records. */
static u32 rbh_test_model_hash(struct rbh_test_model *m)
{
	switch (rbh_test_rand(m, 4)) {
	case 0:
	case 1:
		return rbh_test_rand(m, 32);
	case 2:
		return rbh_test_rand(m, 4096);
	default:
		if (!m->nr)
			return rbh_test_rand(m, 32);
		return m->rec[rbh_test_rand(m, m->nr)].hash;
	}
}

static void rbh_test_model_add(struct rbh_test_model *m, u32 hash, void *p)
{
	m->rec[m->nr].hash = hash;
	m->rec[m->nr].p = p;
	m->nr++;
	if (!p)
		m->nr_reserved++;
}

static void rbh_test_model_del(struct rbh_test_model *m, unsigned int k)
{
	if (!m->rec[k].p)
		m->nr_reserved--;
	m->rec[k] = m->rec[--m->nr];
}

/* A record with @hash and @p (NULL: a reservation), or -1. */
static int rbh_test_model_find(struct rbh_test_model *m, u32 hash,
			       const void *p)
{
	unsigned int k;

	for (k = 0; k < m->nr; k++) {
		if (m->rec[k].hash == hash && m->rec[k].p == p)
			return k;
	}
	return -1;
}

/* A random entry (or reservation) record, or -1 if there is none. */
static int rbh_test_model_pick(struct rbh_test_model *m, bool reservation)
{
	unsigned int i, k, start;
	bool reserved;

	if (!m->nr)
		return -1;
	start = rbh_test_rand(m, m->nr);
	for (i = 0; i < m->nr; i++) {
		k = (start + i) % m->nr;
		reserved = !m->rec[k].p;
		if (reserved == reservation)
			return k;
	}
	return -1;
}

/*
 * Compare the @n pointers of m->walk, returned by a walk of @hash, with
 * the records: the same pointers, each as many times.
 */
static bool rbh_test_model_compare(struct rbh_test_model *m, u32 hash,
				   unsigned int n, const char *what)
{
	unsigned int i, j, expected = 0, in_walk, in_model;
	void *p;

	for (j = 0; j < m->nr; j++) {
		if (m->rec[j].hash == hash && m->rec[j].p)
			expected++;
	}
	if (n != expected)
		return rbh_test_model_fail(m,
					   "%s of hash %#x returned %u pointers, the model has %u",
					   what, hash, n, expected);
	for (i = 0; i < n; i++) {
		p = m->walk[i];
		in_walk = 0;
		in_model = 0;
		for (j = 0; j < n; j++)
			in_walk += m->walk[j] == p;
		for (j = 0; j < m->nr; j++)
			in_model += m->rec[j].hash == hash && m->rec[j].p == p;
		if (in_walk != in_model)
			return rbh_test_model_fail(m,
						   "%s of hash %#x returned %p %u times, the model has it %u times",
						   what, hash, p, in_walk,
						   in_model);
	}
	return true;
}

/* Walk @hash under RCU and compare with the records. */
static bool rbh_test_model_check_hash(struct rbh_test_model *m, u32 hash)
{
	struct rbh_iter iter;
	unsigned int n = 0;
	void *p;

	rcu_read_lock();
	for (p = rbh_first(&iter, m->rbh, hash); p && n < m->walk_max;
	     p = rbh_next(&iter))
		m->walk[n++] = p;
	rcu_read_unlock();
	return rbh_test_model_compare(m, hash, n, "walk");
}

/* Every hash in the records, and the counts of rbh_stats(). */
static bool rbh_test_model_check_all(struct rbh_test_model *m)
{
	unsigned int j, k;

	for (k = 0; k < m->nr; k++) {
		for (j = 0; j < k; j++) {
			if (m->rec[j].hash == m->rec[k].hash)
				break;
		}
		if (j == k && !rbh_test_model_check_hash(m, m->rec[k].hash))
			return false;
	}
	rbh_test_stats(m->test, m->rbh, m->st);
	if (m->st->entries != m->nr - m->nr_reserved ||
	    m->st->reserved != m->nr_reserved)
		return rbh_test_model_fail(m,
					   "rbh_stats(): %lu entries, %lu reserved; the model has %u, %u",
					   m->st->entries, m->st->reserved,
					   m->nr - m->nr_reserved,
					   m->nr_reserved);
	return true;
}

static bool rbh_test_model_remove(struct rbh_test_model *m)
{
	int k = rbh_test_model_pick(m, false);
	u32 hash;
	void *p;
	int err;

	if (k < 0)
		return rbh_test_model_check_hash(m, rbh_test_model_hash(m));
	hash = m->rec[k].hash;
	p = m->rec[k].p;
	err = rbh_remove(m->rbh, hash, p);
	if (err)
		return rbh_test_model_fail(m, "rbh_remove(%#x, %p): %d",
					   hash, p, err);
	rbh_test_model_del(m, k);
	return rbh_test_model_check_hash(m, hash);
}

static bool rbh_test_model_insert(struct rbh_test_model *m, bool again)
{
	int k = again ? rbh_test_model_pick(m, false) : -1;
	u32 hash;
	void *p;
	int err;

	if (m->nr == RBH_TEST_MODEL_RECS)
		return rbh_test_model_remove(m);
	if (k >= 0) {
		hash = m->rec[k].hash;
		p = m->rec[k].p;
	} else {
		hash = rbh_test_model_hash(m);
		p = rbh_test_ptr(m->next_id++);
	}
	err = rbh_insert(m->rbh, hash, p);
	if (err)
		return rbh_test_model_fail(m, "rbh_insert(%#x, %p): %d",
					   hash, p, err);
	rbh_test_model_add(m, hash, p);
	return rbh_test_model_check_hash(m, hash);
}

static bool rbh_test_model_insert_null(struct rbh_test_model *m)
{
	u32 hash = rbh_test_model_hash(m);
	int err = rbh_insert(m->rbh, hash, NULL);

	if (err != -EINVAL)
		return rbh_test_model_fail(m, "rbh_insert(%#x, NULL): %d",
					   hash, err);
	return rbh_test_model_check_hash(m, hash);
}

static bool rbh_test_model_reserve(struct rbh_test_model *m)
{
	u32 hash = rbh_test_model_hash(m);
	int err;

	if (m->nr == RBH_TEST_MODEL_RECS)
		return rbh_test_model_remove(m);
	err = rbh_reserve(m->rbh, hash);
	if (err)
		return rbh_test_model_fail(m, "rbh_reserve(%#x): %d", hash,
					   err);
	rbh_test_model_add(m, hash, NULL);
	return rbh_test_model_check_hash(m, hash);
}

/* Mostly the hash of a reservation; sometimes any hash. */
static u32 rbh_test_model_reserved_hash(struct rbh_test_model *m)
{
	int k = rbh_test_rand(m, 4) ? rbh_test_model_pick(m, true) : -1;

	return k >= 0 ? m->rec[k].hash : rbh_test_model_hash(m);
}

static bool rbh_test_model_use(struct rbh_test_model *m)
{
	u32 hash = rbh_test_model_reserved_hash(m);
	int k = rbh_test_model_find(m, hash, NULL);
	void *p = rbh_test_ptr(m->next_id++);
	int err = rbh_use(m->rbh, hash, p);

	if (err != (k >= 0 ? 0 : -ENOENT))
		return rbh_test_model_fail(m,
					   "rbh_use(%#x, %p): %d, with%s a reservation",
					   hash, p, err, k >= 0 ? "" : "out");
	if (k >= 0) {
		m->rec[k].p = p;
		m->nr_reserved--;
	}
	return rbh_test_model_check_hash(m, hash);
}

static bool rbh_test_model_use_null(struct rbh_test_model *m)
{
	int k = rbh_test_model_pick(m, true);
	int err;

	if (k < 0)
		return rbh_test_model_check_hash(m, rbh_test_model_hash(m));
	err = rbh_use(m->rbh, m->rec[k].hash, NULL);
	if (err != -EINVAL)
		return rbh_test_model_fail(m, "rbh_use(%#x, NULL): %d",
					   m->rec[k].hash, err);
	return rbh_test_model_check_hash(m, m->rec[k].hash);
}

static bool rbh_test_model_release(struct rbh_test_model *m)
{
	u32 hash = rbh_test_model_reserved_hash(m);
	int k = rbh_test_model_find(m, hash, NULL);
	bool by_remove = rbh_test_rand(m, 2);
	int err;

	if (by_remove)
		err = rbh_remove(m->rbh, hash, NULL);
	else
		err = rbh_release(m->rbh, hash);
	if (err != (k >= 0 ? 0 : -ENOENT))
		return rbh_test_model_fail(m, "%s(%#x): %d, with%s a reservation",
					   by_remove ? "rbh_remove" : "rbh_release",
					   hash, err, k >= 0 ? "" : "out");
	if (k >= 0)
		rbh_test_model_del(m, k);
	return rbh_test_model_check_hash(m, hash);
}

/* A pointer never stored, or a stored one under another hash. */
static bool rbh_test_model_remove_absent(struct rbh_test_model *m)
{
	int k = rbh_test_model_pick(m, false);
	u32 hash;
	void *p;
	int err;

	if (k >= 0 && rbh_test_rand(m, 2)) {
		hash = m->rec[k].hash ^ (1 + rbh_test_rand(m, 7));
		p = m->rec[k].p;
	} else {
		hash = rbh_test_model_hash(m);
		p = rbh_test_ptr(m->next_id++);
	}
	k = rbh_test_model_find(m, hash, p);
	err = rbh_remove(m->rbh, hash, p);
	if (err != (k >= 0 ? 0 : -ENOENT))
		return rbh_test_model_fail(m, "rbh_remove(%#x, %p): %d", hash,
					   p, err);
	if (k >= 0)
		rbh_test_model_del(m, k);
	return rbh_test_model_check_hash(m, hash);
}

/*
 * Walk @hash with the iterator locked, removing about half of what it
 * returns.  The walk must return what the records held before.
 */
static bool rbh_test_model_locked_walk(struct rbh_test_model *m, u32 hash)
{
	RBH_ITER(iter, m->rbh, hash);
	unsigned int n = 0, gone = 0, i;
	void *p;
	int k;

	rbh_iter_lock(&iter);
	while (n < m->walk_max && (p = rbh_next(&iter)) != NULL) {
		m->walk[n++] = p;
		if (rbh_test_rand(m, 2)) {
			KUNIT_EXPECT_TRUE(m->test, rbh_iter_remove(&iter, p));
			m->gone[gone++] = p;
		}
	}
	rbh_iter_unlock(&iter);

	if (!rbh_test_model_compare(m, hash, n, "locked walk"))
		return false;
	for (i = 0; i < gone; i++) {
		k = rbh_test_model_find(m, hash, m->gone[i]);
		if (k < 0)
			return rbh_test_model_fail(m, "%p removed twice",
						   m->gone[i]);
		rbh_test_model_del(m, k);
	}
	return rbh_test_model_check_hash(m, hash);
}

static bool rbh_test_model_iter_remove(struct rbh_test_model *m)
{
	int k = rbh_test_model_pick(m, false);

	return rbh_test_model_locked_walk(m, k >= 0 ? m->rec[k].hash :
					  rbh_test_model_hash(m));
}

static bool rbh_test_model_step(struct rbh_test_model *m, enum rbh_test_op op)
{
	switch (op) {
	case RBH_OP_INSERT:
		return rbh_test_model_insert(m, false);
	case RBH_OP_INSERT_AGAIN:
		return rbh_test_model_insert(m, true);
	case RBH_OP_INSERT_NULL:
		return rbh_test_model_insert_null(m);
	case RBH_OP_RESERVE:
		return rbh_test_model_reserve(m);
	case RBH_OP_USE:
		return rbh_test_model_use(m);
	case RBH_OP_USE_NULL:
		return rbh_test_model_use_null(m);
	case RBH_OP_RELEASE:
		return rbh_test_model_release(m);
	case RBH_OP_REMOVE:
		return rbh_test_model_remove(m);
	case RBH_OP_REMOVE_ABSENT:
		return rbh_test_model_remove_absent(m);
	case RBH_OP_ITER_REMOVE:
		return rbh_test_model_iter_remove(m);
	case RBH_OP_LOOKUP:
	case RBH_NR_OPS:
		break;
	}
	return rbh_test_model_check_hash(m, rbh_test_model_hash(m));
}

static enum rbh_test_op rbh_test_model_op(struct rbh_test_model *m)
{
	const u8 *weight = rbh_test_op_weight[(m->step /
					       RBH_TEST_MODEL_PHASE) & 1];
	unsigned int op, total = 0, r;

	for (op = 0; op < RBH_NR_OPS; op++)
		total += weight[op];
	r = rbh_test_rand(m, total);
	for (op = 0; r >= weight[op]; op++)
		r -= weight[op];
	return op;
}

/* Empty the rosebush through the model, checking as it goes. */
static bool rbh_test_model_drain(struct rbh_test_model *m)
{
	bool ok = true;
	int err;

	while (ok && m->nr) {
		if (m->rec[m->nr - 1].p) {
			ok = rbh_test_model_remove(m);
			continue;
		}
		err = rbh_release(m->rbh, m->rec[m->nr - 1].hash);
		if (err)
			ok = rbh_test_model_fail(m, "rbh_release(%#x): %d",
						 m->rec[m->nr - 1].hash, err);
		else
			rbh_test_model_del(m, m->nr - 1);
	}
	return ok;
}

/*
 * 100000 random operations (insert, reserve, use, release, remove,
 * removal under the iterator's lock, lookups and calls that must fail),
 * filling and draining the rosebush in turn, each checked against the
 * model.  The first mismatch stops the test with its step number.
 */
static void rbh_random_ops_match_model(struct kunit *test)
{
	struct rbh_test_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->test = test;
	m->walk_max = RBH_TEST_MODEL_RECS + 1;
	m->rec = kunit_kcalloc(test, RBH_TEST_MODEL_RECS, sizeof(*m->rec),
			       GFP_KERNEL);
	m->walk = kunit_kcalloc(test, m->walk_max, sizeof(void *), GFP_KERNEL);
	m->gone = kunit_kcalloc(test, m->walk_max, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m->rec);
	KUNIT_ASSERT_NOT_NULL(test, m->walk);
	KUNIT_ASSERT_NOT_NULL(test, m->gone);
	m->st = rbh_test_stats_alloc(test);
	m->rbh = rbh_test_new(test);
	prandom_seed_state(&m->rnd, rbh_test_seed);
	kunit_info(test, "seed %lu\n", rbh_test_seed);

	for (m->step = 0; ok && m->step < RBH_TEST_MODEL_STEPS; m->step++) {
		ok = rbh_test_model_step(m, rbh_test_model_op(m));
		if (ok && rbh_empty(m->rbh) != !m->nr)
			ok = rbh_test_model_fail(m, "rbh_empty() is %d with %u records",
						 rbh_empty(m->rbh), m->nr);
		if (ok && !((m->step + 1) % RBH_TEST_MODEL_CHECK))
			ok = rbh_test_model_check_all(m);
		cond_resched();
	}
	if (ok)
		ok = rbh_test_model_check_all(m);
	if (ok)
		ok = rbh_test_model_drain(m);
	if (ok)
		KUNIT_EXPECT_TRUE(test, rbh_empty(m->rbh));

	rbh_test_stats(test, m->rbh, m->st);
	rbh_test_print_stats(test, "after the random operations", m->st);
	if (ok) {
		/* The operations reached every way of changing shape. */
		KUNIT_EXPECT_GT(test, m->st->grows, 0UL);
		KUNIT_EXPECT_GT(test, m->st->splits, 0UL);
		KUNIT_EXPECT_GT(test, m->st->merges, 0UL);
		KUNIT_EXPECT_GT(test, m->st->shrinks, 0UL);
	}
	rbh_test_destroy(test, m->rbh);
}

/*
 * Concurrency.  Threads report through struct rbh_test_thread and never
 * call KUnit themselves; the test thread checks once they have stopped.
 */
#define RBH_TEST_THREADS	2
#define RBH_TEST_STABLE		256	/* entries nobody removes */
#define RBH_TEST_ROUNDS		6	/* insert-all, remove-all rounds */
#define RBH_TEST_BATCH		1024	/* entries per writer per round */
#define RBH_TEST_MOVING		2048	/* entries the test thread changes */
#define RBH_TEST_RESERVED	32	/* its reservations per round */
#define RBH_TEST_WRITER_ID(t)	(((unsigned long)(t) + 1) << 20)

struct rbh_test_conc;

struct rbh_test_thread {
	struct rbh_test_conc *conc;
	struct task_struct *task;
	unsigned int id;
	unsigned long ops;	/* writers: calls made */
	unsigned long errors;	/* writers: calls that failed */
	int first_error;
	unsigned long passes;	/* readers: walks over the stable entries */
	unsigned long overlaps;	/* readers: passes during which writes ended */
	unsigned long held;	/* readers: walks of one hash held across a halving */
	unsigned long misses;	/* readers: stable entries not returned */
	unsigned long bad;	/* readers: pointers never stored */
	bool pauser;		/* readers: stops a walk when conc->pause is set */
};

struct rbh_test_conc {
	struct rbh *rbh;
	struct rbh_test_set *stable;	/* entries 0 .. nr_stable - 1 */
	unsigned long nr_stable;
	unsigned int cap;
	atomic_t writes;		/* calls the writers have made */
	int pause;			/* the pauser should stop a walk */
	int paused;			/* it has stopped one */
	atomic_t writers;		/* writers still working */
	struct completion writers_done;
	struct completion readers_ready;
	struct rbh_test_thread thread[RBH_TEST_THREADS];
};

/* A kunit action, so that a failed assertion cannot leave threads running */
static void rbh_test_stop_threads(void *data)
{
	struct rbh_test_conc *conc = data;
	unsigned int i;

	for (i = 0; i < RBH_TEST_THREADS; i++) {
		if (conc->thread[i].task)
			kthread_stop(conc->thread[i].task);
		conc->thread[i].task = NULL;
	}
}

static void rbh_test_start_thread(struct kunit *test,
				  struct rbh_test_conc *conc, unsigned int i,
				  int (*fn)(void *data), const char *name)
{
	struct rbh_test_thread *t = &conc->thread[i];
	struct task_struct *task;

	t->conc = conc;
	t->id = i;
	task = kthread_run(fn, t, "%s/%u", name, i);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(task), "kthread_run(): %ld",
			       PTR_ERR(task));
	t->task = task;
}

/* A thread that finished its work waits here, so kthread_stop() is safe. */
static void rbh_test_wait_for_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

/* The longest a walk stops, or the test thread waits for it to, in us */
#define RBH_TEST_PAUSE_US	1000000U

/*
 * Stop a walk in its RCU read-side critical section, with its iterator
 * past one entry, until the table has been halved (for a second at
 * most); the walk then goes on in the buckets it had reached.
 */
static void rbh_test_pause(struct rbh_test_thread *t)
{
	struct rbh_test_conc *conc = t->conc;
	unsigned long shrinks = READ_ONCE(conc->rbh->rbh_shrinks);
	unsigned int us;

	WRITE_ONCE(conc->paused, 1);
	for (us = 0; us < RBH_TEST_PAUSE_US &&
	     READ_ONCE(conc->rbh->rbh_shrinks) == shrinks; us++)
		udelay(1);
	if (READ_ONCE(conc->rbh->rbh_shrinks) != shrinks)
		WRITE_ONCE(t->held, t->held + 1);
	WRITE_ONCE(conc->pause, 0);
	WRITE_ONCE(conc->paused, 0);
}

/*
 * Walk the hash of every stable entry once, under RCU.  Return how many
 * stable entries were not returned; count pointers that were never stored
 * in @t->bad.  A pauser, when asked, stops a walk after its first
 * pointer.
 */
static unsigned long rbh_test_walk_stable(struct rbh_test_thread *t)
{
	struct rbh_test_conc *conc = t->conc;
	struct rbh_test_set *stable = conc->stable;
	unsigned long i, id, returned, misses = 0;
	bool found;
	void *p;

	for (i = 0; i < conc->nr_stable; i++) {
		struct rbh_iter iter;

		found = false;
		returned = 0;
		rcu_read_lock();
		for (p = rbh_first(&iter, conc->rbh, stable->hash[i]);
		     p && returned++ < RBH_TEST_WALK_LIMIT;
		     p = rbh_next(&iter)) {
			if (p == rbh_test_ptr(i))
				found = true;
			else if (!rbh_test_ptr_id(p, &id))
				WRITE_ONCE(t->bad, t->bad + 1);
			if (returned == 1 && t->pauser &&
			    READ_ONCE(conc->pause))
				rbh_test_pause(t);
		}
		rcu_read_unlock();
		if (!found)
			misses++;
		cond_resched();
	}
	return misses;
}

/*
 * One pass of rbh_test_walk_stable(), counted in @t->overlaps if writers
 * made calls meanwhile: a concurrent case whose readers never overlapped
 * its writers would test nothing.
 */
static void rbh_test_pass(struct rbh_test_thread *t)
{
	struct rbh_test_conc *conc = t->conc;
	int writes = atomic_read(&conc->writes);
	unsigned long misses = rbh_test_walk_stable(t);

	WRITE_ONCE(t->misses, t->misses + misses);
	if (atomic_read(&conc->writes) != writes)
		WRITE_ONCE(t->overlaps, t->overlaps + 1);
	WRITE_ONCE(t->passes, t->passes + 1);
}

static void rbh_test_thread_result(struct rbh_test_thread *t, int err)
{
	atomic_inc(&t->conc->writes);
	t->ops++;
	if (err && !t->errors++)
		t->first_error = err;
}

/*
 * Writer @t's hash for entry @i of @round.  In odd rounds the first
 * 3 * capacity entries share the hash of a stable entry, giving its
 * bucket an overflow chain and setting and clearing the filter bits that
 * readers of the stable entry test, while they walk.
 */
static u32 rbh_test_writer_hash(struct rbh_test_thread *t,
				struct rnd_state *rnd, unsigned int round,
				unsigned int i)
{
	struct rbh_test_conc *conc = t->conc;
	u32 hash = prandom_u32_state(rnd);

	if ((round & 1) && i < 3 * conc->cap)
		hash = conc->stable->hash[(round * 7 + t->id * 13) %
					  conc->nr_stable];
	return hash;
}

/*
 * Insert a batch of entries, then remove them all, several times: the
 * table grows, buckets split, then merge, and the table shrinks.
 */
static int rbh_test_writer(void *data)
{
	struct rbh_test_thread *t = data;
	struct rbh_test_conc *conc = t->conc;
	unsigned long id = RBH_TEST_WRITER_ID(t->id);
	struct rnd_state rnd, replay;
	unsigned int round, i;
	u32 hash;

	prandom_seed_state(&rnd, rbh_test_seed + t->id + 1);
	for (round = 0; round < RBH_TEST_ROUNDS; round++) {
		if (kthread_should_stop())
			break;
		replay = rnd;
		for (i = 0; i < RBH_TEST_BATCH; i++) {
			hash = rbh_test_writer_hash(t, &rnd, round, i);
			rbh_test_thread_result(t, rbh_insert(conc->rbh, hash,
							     rbh_test_ptr(id + i)));
			cond_resched();
		}
		for (i = 0; i < RBH_TEST_BATCH; i++) {
			hash = rbh_test_writer_hash(t, &replay, round, i);
			rbh_test_thread_result(t, rbh_remove(conc->rbh, hash,
							     rbh_test_ptr(id + i)));
			cond_resched();
		}
	}
	if (atomic_dec_and_test(&conc->writers))
		complete(&conc->writers_done);
	rbh_test_wait_for_stop();
	return 0;
}

/* Walk the stable entries again and again until told to stop. */
static int rbh_test_reader(void *data)
{
	struct rbh_test_thread *t = data;
	struct rbh_test_conc *conc = t->conc;

	while (!kthread_should_stop()) {
		rbh_test_pass(t);
		if (t->passes == 1)
			complete(&conc->readers_ready);
	}
	return 0;
}

static struct rbh_test_conc *rbh_test_conc_new(struct kunit *test,
					       struct rbh_stats *st,
					       unsigned long nr_stable,
					       unsigned long max)
{
	struct rbh_test_conc *conc = kunit_kzalloc(test, sizeof(*conc),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, conc);
	conc->rbh = rbh_test_new(test);
	conc->cap = rbh_test_capacity(test, conc->rbh, st);
	conc->nr_stable = nr_stable;
	conc->stable = rbh_test_set_new(test, conc->rbh, max);
	rbh_test_set_fill(conc->stable, RBH_TEST_RANDOM);
	atomic_set(&conc->writers, RBH_TEST_THREADS);
	init_completion(&conc->writers_done);
	init_completion(&conc->readers_ready);
	return conc;
}

/*
 * The iteration guarantee: while two writers make the table grow and
 * shrink and buckets split, merge and overflow, every walk of a stable
 * entry's hash returns that entry.  Afterwards exactly the stable entries
 * are left.
 */
static void rbh_iterate_while_resizing(struct kunit *test)
{
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_test_thread walker = { };
	struct rbh_test_conc *conc;
	struct rbh_test_thread *t;
	unsigned int i;
	int err;

	conc = rbh_test_conc_new(test, st, RBH_TEST_STABLE, RBH_TEST_STABLE);
	walker.conc = conc;
	kunit_info(test, "seed %lu\n", rbh_test_seed);
	if (!rbh_test_set_add(test, conc->stable, 0, RBH_TEST_STABLE))
		goto out;

	err = kunit_add_action_or_reset(test, rbh_test_stop_threads, conc);
	KUNIT_ASSERT_EQ(test, err, 0);
	for (i = 0; i < RBH_TEST_THREADS; i++)
		rbh_test_start_thread(test, conc, i, rbh_test_writer,
				      "rbh_writer");
	do {
		rbh_test_pass(&walker);
	} while (!completion_done(&conc->writers_done));
	kunit_release_action(test, rbh_test_stop_threads, conc);

	KUNIT_EXPECT_EQ_MSG(test, walker.misses, 0UL,
			    "stable entries missed in %lu walks of %lu entries",
			    walker.passes, conc->nr_stable);
	KUNIT_EXPECT_EQ(test, walker.bad, 0UL);
	KUNIT_EXPECT_GT_MSG(test, walker.overlaps, 0UL,
			    "no walk overlapped the writers' calls");
	kunit_info(test, "%lu walks of %lu entries, %lu during writes\n",
		   walker.passes, conc->nr_stable, walker.overlaps);
	for (i = 0; i < RBH_TEST_THREADS; i++) {
		t = &conc->thread[i];
		KUNIT_EXPECT_EQ_MSG(test, t->errors, 0UL,
				    "writer %u: %lu calls failed, the first with %d",
				    i, t->errors, t->first_error);
		KUNIT_EXPECT_EQ(test, t->ops, 2UL * RBH_TEST_ROUNDS *
				RBH_TEST_BATCH);
	}

	rbh_test_check_set(test, conc->stable);
	rbh_test_check_counts(test, conc->rbh, st, RBH_TEST_STABLE, 0);
	rbh_test_print_stats(test, "after the writers", st);
	KUNIT_EXPECT_GT(test, st->grows, 0UL);
	KUNIT_EXPECT_GT(test, st->splits, 0UL);
	KUNIT_EXPECT_GT(test, st->merges, 0UL);
	KUNIT_EXPECT_GT(test, st->shrinks, 0UL);
out:
	rbh_test_destroy(test, conc->rbh);
}

/*
 * One round of the test thread's changes: insert the moving entries,
 * reserve slots under stable hashes, remove two thirds of the moving
 * entries, and use (or release) the reservations.  Return the number of
 * calls that failed.
 */
static unsigned long rbh_test_write_round(struct rbh_test_conc *conc,
					  unsigned int round)
{
	struct rbh_test_set *set = conc->stable;
	unsigned long i, errors = 0;
	const unsigned long first = RBH_TEST_STABLE;
	const unsigned long res = first + RBH_TEST_MOVING;

	for (i = first; i < res; i++) {
		if (test_bit(i, set->present))
			continue;
		if (rbh_test_set_insert(set, i))
			errors++;
		atomic_inc(&conc->writes);
		cond_resched();
	}
	for (i = res; i < set->max; i++) {
		if (rbh_reserve(set->rbh, set->hash[i]))
			errors++;
		atomic_inc(&conc->writes);
	}
	for (i = first; i < res; i++) {
		if (!((i + round) % 3 && test_bit(i, set->present)))
			continue;
		if (rbh_test_set_remove(set, i))
			errors++;
		atomic_inc(&conc->writes);
		cond_resched();
	}
	for (i = res; i < set->max; i++) {
		if (!test_bit(i, set->present)) {
			if (rbh_test_set_use(set, i))
				errors++;
		} else if (rbh_release(set->rbh, set->hash[i]) ||
			   rbh_test_set_remove(set, i)) {
			errors++;
		}
		atomic_inc(&conc->writes);
	}
	return errors;
}

/* Has every reader thread walked while writes were made? */
static bool rbh_test_readers_overlapped(struct rbh_test_conc *conc)
{
	unsigned int i;

	for (i = 0; i < RBH_TEST_THREADS; i++)
		if (!READ_ONCE(conc->thread[i].overlaps))
			return false;
	return true;
}

/*
 * Check what the reader threads saw: every stable entry on every walk,
 * nothing never stored, and at least one walk during the writes each.
 */
static void rbh_test_check_readers(struct kunit *test,
				   struct rbh_test_conc *conc)
{
	struct rbh_test_thread *t;
	unsigned int i;

	for (i = 0; i < RBH_TEST_THREADS; i++) {
		t = &conc->thread[i];
		KUNIT_EXPECT_EQ_MSG(test, t->misses, 0UL,
				    "reader %u missed stable entries in %lu passes",
				    i, t->passes);
		KUNIT_EXPECT_EQ(test, t->bad, 0UL);
		KUNIT_EXPECT_GT_MSG(test, t->overlaps, 0UL,
				    "reader %u never walked during the writes",
				    i);
		kunit_info(test, "reader %u: %lu passes, %lu during writes\n",
			   i, t->passes, t->overlaps);
	}
}

/* Rounds a case may add until every reader has overlapped the writes */
#define RBH_TEST_MAX_ROUNDS	64

/*
 * RCU readers in two threads keep finding the stable entries while the
 * test thread inserts, removes, reserves, uses and releases around them;
 * at the end the rosebush holds exactly what the test thread left.  The
 * test thread goes on past four rounds until each reader has walked
 * during its writes.
 */
static void rbh_rcu_readers_while_writing(struct kunit *test)
{
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	const unsigned long res = RBH_TEST_STABLE + RBH_TEST_MOVING;
	unsigned long i, errors = 0;
	struct rbh_test_conc *conc;
	unsigned int round;
	int err;

	conc = rbh_test_conc_new(test, st, RBH_TEST_STABLE,
				 res + RBH_TEST_RESERVED);
	/* The reservations are made under the stable entries' hashes. */
	for (i = res; i < conc->stable->max; i++)
		conc->stable->hash[i] = conc->stable->hash[i - res];
	kunit_info(test, "seed %lu\n", rbh_test_seed);
	if (!rbh_test_set_add(test, conc->stable, 0, RBH_TEST_STABLE))
		goto out;

	err = kunit_add_action_or_reset(test, rbh_test_stop_threads, conc);
	KUNIT_ASSERT_EQ(test, err, 0);
	for (i = 0; i < RBH_TEST_THREADS; i++)
		rbh_test_start_thread(test, conc, i, rbh_test_reader,
				      "rbh_reader");
	for (i = 0; i < RBH_TEST_THREADS; i++)
		wait_for_completion(&conc->readers_ready);
	for (round = 0; round < 4 || (round < RBH_TEST_MAX_ROUNDS &&
				      !rbh_test_readers_overlapped(conc));
	     round++)
		errors += rbh_test_write_round(conc, round);
	kunit_release_action(test, rbh_test_stop_threads, conc);

	KUNIT_EXPECT_EQ(test, errors, 0UL);
	rbh_test_check_readers(test, conc);
	kunit_info(test, "%u rounds of writes\n", round);
	rbh_test_check_set(test, conc->stable);
	rbh_test_check_counts(test, conc->rbh, st, conc->stable->nr, 0);
out:
	rbh_test_destroy(test, conc->rbh);
}

/*
 * Remove the entries of @set stored under @hash whose number is @first or
 * more, walking @hash with the iterator locked.  Return how many pointers
 * the walk returned that it should not have, plus the removals that
 * failed.
 */
static unsigned long rbh_test_iter_remove_from(struct rbh_test_set *set,
					       u32 hash, unsigned long first)
{
	RBH_ITER(iter, set->rbh, hash);
	unsigned long id, returned = 0, errors = 0;
	void *p;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL &&
	       returned++ < RBH_TEST_WALK_LIMIT) {
		if (!rbh_test_ptr_id(p, &id) || id >= set->max ||
		    !test_bit(id, set->present) || set->hash[id] != hash) {
			errors++;
			continue;
		}
		if (id < first)
			continue;
		if (!rbh_iter_remove(&iter, p)) {
			errors++;
			continue;
		}
		__clear_bit(id, set->present);
		set->nr--;
	}
	rbh_iter_unlock(&iter);
	return errors;
}

/* Entries the test thread adds and removes in each cycle */
#define RBH_TEST_SHRINK_MOVING	4096
#define RBH_TEST_SHRINK_CYCLES	8

/*
 * Is a moving entry of rbh_readers_while_shrinking() stored under a
 * stable entry's hash?
 */
static bool rbh_test_shares_hash(unsigned long i)
{
	return !(i % 8);
}

/*
 * Ask the pauser (reader 0) to stop a walk, wait for it to (for a second
 * at most), and run the work item meanwhile.  Return how many times it
 * halved the table.
 */
static unsigned long rbh_test_shrink_paused(struct kunit *test,
					    struct rbh_test_conc *conc)
{
	unsigned long shrinks = READ_ONCE(conc->rbh->rbh_shrinks);
	unsigned int us;

	WRITE_ONCE(conc->pause, 1);
	for (us = 0; us < RBH_TEST_PAUSE_US && !READ_ONCE(conc->paused); us += 10) {
		udelay(10);
		cond_resched();
	}
	rbh_test_work_here(test, conc->rbh);
	WRITE_ONCE(conc->pause, 0);
	return READ_ONCE(conc->rbh->rbh_shrinks) - shrinks;
}

/* Have the readers overlapped the writes, and one walk a halving? */
static bool rbh_test_shrink_overlapped(struct rbh_test_conc *conc)
{
	return rbh_test_readers_overlapped(conc) &&
	       READ_ONCE(conc->thread[0].held);
}

/*
 * The work item halves the table while RCU readers walk, one of them
 * stopped in the middle of a walk, and locked iteration removes entries
 * from the hashes they walk.  The stable entries go in pairs under one
 * hash.  In each cycle the test thread inserts the moving entries, an
 * eighth of them under the stable entries' hashes, so that the table
 * grows; removes them all by locked iteration of their hashes; then asks
 * reader 0 to stop in a walk of a stable hash after the first of its two
 * pointers, and runs the work item, which halves the table.  The walk
 * then goes on, and must return the second.  Cycles go on until that has
 * happened and each reader has walked during the writes.
 */
static void rbh_readers_while_shrinking(struct kunit *test)
{
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	const unsigned long end = RBH_TEST_STABLE + RBH_TEST_SHRINK_MOVING;
	unsigned long i, errors = 0, halvings = 0;
	struct rbh_test_conc *conc;
	struct rbh_test_set *set;
	unsigned int cycle;
	int err;

	conc = rbh_test_conc_new(test, st, RBH_TEST_STABLE, end);
	set = conc->stable;
	/* Stable entries in pairs, so that each walk returns two pointers */
	for (i = 1; i < RBH_TEST_STABLE; i += 2)
		set->hash[i] = set->hash[i - 1];
	for (i = RBH_TEST_STABLE; i < end; i++)
		if (rbh_test_shares_hash(i))
			set->hash[i] = set->hash[i % RBH_TEST_STABLE];
	kunit_info(test, "seed %lu\n", rbh_test_seed);
	if (!rbh_test_set_add(test, set, 0, RBH_TEST_STABLE))
		goto out;

	err = kunit_add_action_or_reset(test, rbh_test_stop_threads, conc);
	KUNIT_ASSERT_EQ(test, err, 0);
	conc->thread[0].pauser = true;
	for (i = 0; i < RBH_TEST_THREADS; i++)
		rbh_test_start_thread(test, conc, i, rbh_test_reader,
				      "rbh_reader");
	for (i = 0; i < RBH_TEST_THREADS; i++)
		wait_for_completion(&conc->readers_ready);
	for (cycle = 0; cycle < RBH_TEST_SHRINK_CYCLES &&
	     !rbh_test_shrink_overlapped(conc); cycle++) {
		for (i = RBH_TEST_STABLE; i < end; i++) {
			if (test_bit(i, set->present))
				continue;
			errors += rbh_test_set_insert(set, i) != 0;
			atomic_inc(&conc->writes);
			cond_resched();
		}
		rbh_test_work_off(test, conc->rbh);
		for (i = RBH_TEST_STABLE; i < end; i++) {
			if (!test_bit(i, set->present))
				continue;
			errors += rbh_test_iter_remove_from(set, set->hash[i],
							    RBH_TEST_STABLE);
			atomic_inc(&conc->writes);
			cond_resched();
		}
		halvings += rbh_test_shrink_paused(test, conc);
	}
	kunit_release_action(test, rbh_test_stop_threads, conc);

	KUNIT_EXPECT_EQ(test, errors, 0UL);
	KUNIT_EXPECT_EQ_MSG(test, set->nr, RBH_TEST_STABLE,
			    "locked walks left moving entries behind");
	KUNIT_EXPECT_GT_MSG(test, halvings, 0UL,
			    "the work item never halved the table");
	KUNIT_EXPECT_GT_MSG(test, conc->thread[0].held, 0UL,
			    "no walk was held across a halving");
	kunit_info(test, "%u cycles, %lu halvings, %lu walks held across one\n",
		   cycle, halvings, conc->thread[0].held);
	rbh_test_check_readers(test, conc);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, conc->rbh, st, set->nr, 0);
out:
	rbh_test_destroy(test, conc->rbh);
}

/* The spinlock rbh_atomic_callers() holds around its calls */
static DEFINE_SPINLOCK(rbh_test_outer_lock);

/*
 * Replace entry @i of @set by @to under its hash, with the iterator
 * locked; @from is what it holds now.  Return the calls that failed.
 */
static unsigned long rbh_test_iter_swap(struct rbh_test_set *set,
					unsigned long i, void *from, void *to)
{
	RBH_ITER(iter, set->rbh, set->hash[i]);
	unsigned long errors = 1;
	void *p;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL) {
		if (p == from) {
			errors = !rbh_iter_replace(&iter, p, to);
			break;
		}
	}
	rbh_iter_unlock(&iter);
	return errors;
}

/*
 * Use the reservation under entry @i's hash for it, with the iterator
 * locked.  Return the calls that failed.
 */
static unsigned long rbh_test_iter_use(struct rbh_test_set *set,
				       unsigned long i)
{
	RBH_ITER(iter, set->rbh, set->hash[i]);
	int err;

	rbh_iter_lock(&iter);
	err = rbh_iter_use(&iter, rbh_test_ptr(i));
	rbh_iter_unlock(&iter);
	if (err)
		return 1;
	__set_bit(i, set->present);
	set->nr++;
	return 0;
}

/*
 * rbh_use(), rbh_release(), rbh_remove(), and rbh_iter_lock() with all
 * that may follow it, may be called under a spinlock, as their Context:
 * says (and the dcache needs).  Call each so: with DEBUG_ATOMIC_SLEEP (in
 * userspace, the harness's might_sleep()), any of them that may sleep
 * fails the case.  The work item is kept from running meanwhile, so
 * that the removals must hand every merge to it, with the resize lock
 * free; it runs afterwards, merges and halves the table.
 */
static void rbh_atomic_callers(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long i, n, keep, end, merges, errors = 0;
	struct rbh_test_set *set;
	unsigned int cap;

	cap = rbh_test_capacity(test, rbh, before);
	n = 32 * cap;
	keep = cap / 2 + 1;
	end = n + 3 * cap;
	set = rbh_test_set_new(test, rbh, end + keep);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	for (i = n; i < end; i++)
		errors += rbh_reserve(rbh, set->hash[i]) != 0;
	rbh_test_stats(test, rbh, before);
	KUNIT_ASSERT_GE(test, before->table_slots, 8UL);
	rbh_test_work_off(test, rbh);

	/* A third of the reservations used, a third by locked iteration */
	spin_lock(&rbh_test_outer_lock);
	for (i = n; i < n + cap; i++)
		errors += rbh_test_set_use(set, i) != 0;
	for (; i < n + 2 * cap; i++)
		errors += rbh_test_iter_use(set, i);
	for (; i < end; i++)
		errors += rbh_release(rbh, set->hash[i]) != 0;
	/* The entries kept are replaced, then put back, in place */
	for (i = 0; i < keep; i++)
		errors += rbh_test_iter_swap(set, i, rbh_test_ptr(i),
					     rbh_test_ptr(end + i));
	for (i = 0; i < keep; i++)
		errors += rbh_test_iter_swap(set, i, rbh_test_ptr(end + i),
					     rbh_test_ptr(i));
	spin_unlock(&rbh_test_outer_lock);

	/* Remove all but @keep, every other one by locked iteration */
	for (i = keep; i < end; i++) {
		if (!test_bit(i, set->present))
			continue;
		spin_lock(&rbh_test_outer_lock);
		if (i & 1)
			errors += rbh_test_set_remove(set, i) != 0;
		else
			errors += rbh_test_iter_remove_from(set, set->hash[i],
							    keep);
		spin_unlock(&rbh_test_outer_lock);
		cond_resched();
	}
	merges = READ_ONCE(rbh->rbh_merges);
	KUNIT_EXPECT_EQ(test, errors, 0UL);
	KUNIT_EXPECT_EQ(test, set->nr, keep);
	KUNIT_EXPECT_EQ_MSG(test, merges, before->merges,
			    "a removal merged buckets itself, under a spinlock");
	KUNIT_EXPECT_EQ(test, READ_ONCE(rbh->rbh_shrinks), before->shrinks);

	rbh_test_work_here(test, rbh);
	rbh_test_stats(test, rbh, after);
	rbh_test_print_stats(test, "after the removals", after);
	KUNIT_EXPECT_GT(test, after->merges, merges);
	KUNIT_EXPECT_GT(test, after->shrinks, before->shrinks);
	KUNIT_EXPECT_LT(test, after->table_slots, before->table_slots);
	rbh_test_check_set(test, set);
	rbh_test_check_counts(test, rbh, after, keep, 0);
out:
	rbh_test_destroy(test, rbh);
}

#define RBH_TEST_MILLION	1000000UL
#define RBH_TEST_KEEP		1000UL

/* A second thread, to insert while the case holds a hash locked */
struct rbh_test_contender {
	struct rbh *rbh;
	u32 hash;
	void *p;
	struct completion go;
	struct completion done;
	int inserting;		/* set just before rbh_insert() */
	int stop;
	int err;
	struct task_struct *task;
};

/* Insert, then remove, one entry each time the case says go. */
static int rbh_test_contender_fn(void *data)
{
	struct rbh_test_contender *c = data;

	for (;;) {
		wait_for_completion(&c->go);
		if (READ_ONCE(c->stop))
			break;
		WRITE_ONCE(c->inserting, 1);
		c->err = rbh_insert(c->rbh, c->hash, c->p);
		if (!c->err)
			c->err = rbh_remove(c->rbh, c->hash, c->p);
		complete(&c->done);
	}
	rbh_test_wait_for_stop();
	return 0;
}

/* A kunit action, so that a failed assertion cannot leave it running */
static void rbh_test_contender_stop(void *data)
{
	struct rbh_test_contender *c = data;

	WRITE_ONCE(c->stop, 1);
	complete(&c->go);
	kthread_stop(c->task);
}

/* Start a contender that inserts and removes @p under @hash in @rbh. */
static struct rbh_test_contender *
rbh_test_contender_start(struct kunit *test, struct rbh *rbh, u32 hash,
			 void *p)
{
	struct rbh_test_contender *c;
	int err;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->rbh = rbh;
	c->hash = hash;
	c->p = p;
	init_completion(&c->go);
	init_completion(&c->done);
	c->task = kthread_run(rbh_test_contender_fn, c, "rbh_contender");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->task), "kthread_run(): %ld",
			       PTR_ERR(c->task));
	err = kunit_add_action_or_reset(test, rbh_test_contender_stop, c);
	KUNIT_ASSERT_EQ(test, err, 0);
	return c;
}

/* RBH_SLOTS_PER_BUCKET in lib/rosebush.c */
#define RBH_TEST_SLOTS_PER_BUCKET	3

/*
 * rbh_iter_lock() keeps its hash to itself on a rosebush that has no
 * table yet, as its documentation promises: another thread's insertion
 * under the hash waits until rbh_iter_unlock().  (Before, the iterator
 * locked nothing and walked nothing, so its caller saw no entry, but
 * the insertion went through while it believed the hash locked.)
 */
static void rbh_iter_lock_before_first_insert(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_test_contender *c;
	u32 hash = rbh_test_hash_of_key(0x20000000);
	bool done_while_locked, started;
	unsigned int us;

	if (num_online_cpus() < 2)
		kunit_skip(test, "an insertion that waits needs two CPUs");
	c = rbh_test_contender_start(test, rbh, hash, rbh_test_ptr(1));

	{
		RBH_ITER(iter, rbh, hash);

		rbh_iter_lock(&iter);
		WRITE_ONCE(c->inserting, 0);
		complete(&c->go);
		for (us = 0; us < 10000 && !READ_ONCE(c->inserting); us++)
			udelay(1);
		started = READ_ONCE(c->inserting);
		/* Ample time for an insertion that is not held up to finish */
		for (us = 0; started && us < 100000 &&
		     !completion_done(&c->done); us += 10)
			udelay(10);
		done_while_locked = completion_done(&c->done);
		rbh_iter_unlock(&iter);
	}
	wait_for_completion(&c->done);
	KUNIT_EXPECT_EQ(test, c->err, 0);
	KUNIT_EXPECT_FALSE_MSG(test, done_while_locked,
			       "an insertion under the locked hash went through");

	kunit_release_action(test, rbh_test_contender_stop, c);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
	if (!started)
		kunit_skip(test, "the inserting thread did not start within 10 ms");
}

/*
 * The shape of a rosebush holding 10^6 sequential hashes: every entry
 * counted, the occupancy histogram adds up.
 */
static void rbh_stats_million_sequential(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned long i, missing = 0;
	int err = 0;

	for (i = 0; i < RBH_TEST_MILLION && !err; i++) {
		err = rbh_insert(rbh, i, rbh_test_ptr(i));
		cond_resched();
	}
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "inserting entry %lu", i - 1);
	rbh_test_check_counts(test, rbh, st, i - !!err, 0);
	rbh_test_print_stats(test, "10^6 sequential hashes", st);
	KUNIT_EXPECT_EQ(test, st->entries, RBH_TEST_MILLION);

	for (i = 0; i < RBH_TEST_MILLION; i += 997) {
		if (rbh_test_count(rbh, i, rbh_test_ptr(i), NULL) != 1)
			missing++;
	}
	KUNIT_EXPECT_EQ(test, missing, 0UL);
	rbh_test_destroy(test, rbh);
}

/*
 * After 10^6 random entries, all but 1000 of them removed, the rosebush
 * holds at most twice the memory of one that only ever held those 1000.
 * Also prints the shape of the full rosebush.
 */
static void rbh_shrink_after_million(struct kunit *test)
{
	struct rbh *big = rbh_test_new(test);
	struct rbh *fresh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	struct rbh_stats *fst = rbh_test_stats_alloc(test);
	unsigned long i, errors = 0, missing = 0;
	struct rnd_state rnd;
	int err = 0;
	u32 hash;

	/* The hashes are regenerated from the seed, not stored. */
	kunit_info(test, "seed %lu\n", rbh_test_seed);
	prandom_seed_state(&rnd, rbh_test_seed);
	for (i = 0; i < RBH_TEST_MILLION && !err; i++) {
		err = rbh_insert(big, prandom_u32_state(&rnd), rbh_test_ptr(i));
		cond_resched();
	}
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "inserting entry %lu", i - 1);
	rbh_test_check_counts(test, big, st, RBH_TEST_MILLION, 0);
	rbh_test_print_stats(test, "10^6 random hashes", st);
	/*
	 * The few deepest buckets take an overflow bucket rather than
	 * double the table, which keeps its size near that of the rest.
	 */
	KUNIT_EXPECT_LE(test, st->table_slots,
			RBH_TEST_SLOTS_PER_BUCKET * st->buckets);
	KUNIT_EXPECT_LE(test, st->overflow_buckets, st->buckets / 100);

	prandom_seed_state(&rnd, rbh_test_seed);
	for (i = 0; i < RBH_TEST_MILLION; i++) {
		hash = prandom_u32_state(&rnd);
		if (i < RBH_TEST_KEEP)
			err = rbh_insert(fresh, hash, rbh_test_ptr(i));
		else
			err = rbh_remove(big, hash, rbh_test_ptr(i));
		if (err)
			errors++;
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, errors, 0UL);

	prandom_seed_state(&rnd, rbh_test_seed);
	for (i = 0; i < RBH_TEST_KEEP; i++) {
		hash = prandom_u32_state(&rnd);
		if (rbh_test_count(big, hash, rbh_test_ptr(i), NULL) != 1)
			missing++;
	}
	KUNIT_EXPECT_EQ(test, missing, 0UL);

	/* Measure what is left once the work item has run. */
	rbh_test_check_counts(test, big, st, RBH_TEST_KEEP, 0);
	rbh_test_check_counts(test, fresh, fst, RBH_TEST_KEEP, 0);
	rbh_test_print_stats(test, "1000 left of 10^6", st);
	rbh_test_print_stats(test, "1000 only", fst);
	KUNIT_EXPECT_LE_MSG(test, st->bytes, 2 * fst->bytes,
			    "%lu bytes after shrinking, %lu bytes fresh",
			    st->bytes, fst->bytes);
	rbh_test_destroy(test, fresh);
	rbh_test_destroy(test, big);
}

/*
 * Resizing in bounded steps.
 */

/* Entries whose keys are below RBH_TEST_HOT are being removed */
#define RBH_TEST_HOT		BIT(30)

/* Deactivates itself: the next bucket allocation after it fails */
static void *rbh_test_grow_then_fail_stub(unsigned int depth, gfp_t gfp)
{
	struct kunit *test = kunit_get_current_test();

	kunit_deactivate_static_stub(test, rbh_alloc_table);
	rbh_test_racer_ran = true;
	rbh_test_fault_arm(test, RBH_TEST_BUCKET, 1);
	return rbh_alloc_table(depth, gfp);
}

/*
 * Keys crowded into half of the key space deepen the table while the
 * other half stays empty.  No bucket may cover more than RBH_TEST_WIDEST
 * slots (or the insertion that filled a bucket covering the empty half
 * would point half the table at new buckets, under spinlocks): the empty
 * half gets buckets too.  Emptying a quarter of the key space, and the
 * work item's walk that follows, must not merge buckets wider either.
 * A grow that needs such buckets but cannot allocate them is given up, as
 * when its table cannot be allocated: the insertion that wanted it goes
 * to a chain, without a warning.
 */
static void rbh_crowded_keys(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned int cap, depth;
	struct rbh_test_fault *f;
	struct rbh_test_set *set;
	unsigned long i, n, grows;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 4 * RBH_TEST_WIDEST * cap;
	set = rbh_test_set_new(test, rbh, 2 * n);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	for (i = 0; i < set->max; i++) {
		u32 key = set->hash[i] >> 1;	/* top bit clear */

		set->hash[i] = rbh_test_hash_of_key(key);
		KUNIT_ASSERT_EQ(test, rbh_key(set->hash[i]), key);
	}
	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	rbh_test_stats(test, rbh, before);
	rbh_test_print_stats(test, "crowded", before);
	KUNIT_ASSERT_GE_MSG(test, before->table_slots, 4 * RBH_TEST_WIDEST,
			    "the table is too small for a bucket to be too wide");
	KUNIT_EXPECT_LE(test, before->widest, RBH_TEST_WIDEST);

	for (i = 0; i < n; i++) {
		if (rbh_key(set->hash[i]) >= RBH_TEST_HOT)
			KUNIT_ASSERT_EQ(test, rbh_test_set_remove(set, i), 0);
	}
	rbh_test_stats(test, rbh, after);
	rbh_test_print_stats(test, "a quarter emptied", after);
	KUNIT_ASSERT_EQ_MSG(test, after->table_slots, before->table_slots,
			    "the table halved: merges cannot widen a bucket");
	KUNIT_EXPECT_GT(test, after->merges, before->merges);
	KUNIT_EXPECT_LE(test, after->widest, RBH_TEST_WIDEST);
	rbh_test_check_set(test, set);

	/*
	 * The next grow must split buckets, and cannot allocate them: aim
	 * the rest of the entries at the bucket of the table's first slot
	 * until it needs the table to double (its chain full, if need be).
	 */
	depth = ilog2(after->table_slots);
	for (i = n; i < set->max; i++)
		set->hash[i] = rbh_test_hash_of_key(rbh_key(set->hash[i]) >>
						     depth);
	grows = READ_ONCE(rbh->rbh_grows);
	rbh_test_racer_ran = false;
	kunit_activate_static_stub(test, rbh_alloc_table,
				   rbh_test_grow_then_fail_stub);
	/* The work runs here, where the stub applies, until it grows */
	for (i = n; !rbh_test_racer_ran;) {
		rbh_test_work_off(test, rbh);
		while (!READ_ONCE(rbh->rbh_split_nr)) {
			KUNIT_ASSERT_LT(test, i, set->max);
			KUNIT_ASSERT_EQ_MSG(test, rbh_test_set_insert(set, i), 0,
					    "entry %lu, no buckets for a grow's splits",
					    i);
			i++;
		}
		rbh_test_work_here(test, rbh);
	}
	f = &((struct rbh_test_faults *)test->priv)->site[RBH_TEST_BUCKET];
	rbh_test_fault_disarm(test);
	KUNIT_EXPECT_EQ(test, f->failed, 1U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(rbh->rbh_grows), grows);
	rbh_test_stats(test, rbh, before);
	KUNIT_EXPECT_EQ(test, before->table_slots, after->table_slots);
	KUNIT_EXPECT_LE(test, before->widest, RBH_TEST_WIDEST);
	rbh_test_check_set(test, set);

	/* With memory, the table doubles, still without a wide bucket */
	while (READ_ONCE(rbh->rbh_grows) == grows) {
		KUNIT_ASSERT_LT(test, i, set->max);
		KUNIT_ASSERT_EQ(test, rbh_test_set_insert(set, i++), 0);
		rbh_test_settle(rbh);
	}
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_GE(test, after->table_slots, 2 * before->table_slots);
	KUNIT_EXPECT_LE(test, after->widest, RBH_TEST_WIDEST);
	rbh_test_check_set(test, set);
	rbh_test_set_del(test, set, 0, set->max);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
out:
	rbh_test_destroy(test, rbh);
}

/*
 * Replacing and filling entries under the iterator's lock.
 */

/* rbh_iter_replace_in_place: the pointer that replaces rbh_test_ptr(id) */
#define RBH_TEST_NEW_ID		BIT(24)

/*
 * rbh_iter_replace() gives entries new pointers in place: under a hash
 * with more entries than a bucket holds (so that some are in an overflow
 * chain), every entry rbh_next() returns is replaced, the walk does not
 * come back to the new pointers, the count of entries does not change,
 * lookups find every new pointer and no old one, and the entries of
 * other hashes keep theirs.
 */
static void rbh_iter_replace_in_place(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	unsigned long i, n, id, replaced = 0, came_back = 0;
	unsigned int cap;
	void *p, *q;

	cap = rbh_test_capacity(test, rbh, st);
	n = 2 * cap + 5;
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, RBH_TEST_FLOOD,
						 rbh_test_ptr(i)), 0);
	for (i = 0; i < 2 * cap; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, i, rbh_test_ptr(n + i)), 0);

	{
		RBH_ITER(iter, rbh, RBH_TEST_FLOOD);

		rbh_iter_lock(&iter);
		while ((p = rbh_next(&iter)) != NULL &&
		       replaced + came_back < RBH_TEST_WALK_LIMIT) {
			if (!rbh_test_ptr_id(p, &id) || id >= RBH_TEST_NEW_ID) {
				came_back++;
				continue;
			}
			q = rbh_test_ptr(RBH_TEST_NEW_ID + id);
			KUNIT_EXPECT_TRUE(test, rbh_iter_replace(&iter, p, q));
			replaced++;
		}
		rbh_iter_unlock(&iter);
	}
	KUNIT_EXPECT_EQ(test, replaced, n);
	KUNIT_EXPECT_EQ(test, came_back, 0UL);
	rbh_test_check_counts(test, rbh, st, n + 2 * cap, 0);

	for (i = 0; i < n; i++) {
		p = rbh_test_ptr(i);
		q = rbh_test_ptr(RBH_TEST_NEW_ID + i);
		KUNIT_EXPECT_EQ_MSG(test, rbh_test_count(rbh, RBH_TEST_FLOOD, p, NULL),
				    0UL, "old pointer %lu", i);
		KUNIT_EXPECT_EQ_MSG(test, rbh_test_count(rbh, RBH_TEST_FLOOD, q, NULL),
				    1UL, "new pointer %lu", i);
	}
	for (i = 0; i < 2 * cap; i++) {
		p = rbh_test_ptr(n + i);
		KUNIT_EXPECT_EQ_MSG(test, rbh_test_count(rbh, i, p, NULL), 1UL,
				    "hash %lu", i);
	}

	for (i = 0; i < n; i++) {
		q = rbh_test_ptr(RBH_TEST_NEW_ID + i);
		KUNIT_EXPECT_EQ(test, rbh_remove(rbh, RBH_TEST_FLOOD, q), 0);
	}
	for (i = 0; i < 2 * cap; i++)
		KUNIT_EXPECT_EQ(test, rbh_remove(rbh, i, rbh_test_ptr(n + i)), 0);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * rbh_iter_use() fills a reservation under the iterator's lock: once,
 * among other entries of the hash, and not without a reservation, on a
 * rosebush with no table, or with a NULL pointer.
 */
static void rbh_iter_use_while_locked(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *st = rbh_test_stats_alloc(test);
	void *p = rbh_test_ptr(100), *q = rbh_test_ptr(101);
	const u32 hash = 42;
	unsigned long i, total;

	{
		RBH_ITER(iter, rbh, hash);

		rbh_iter_lock(&iter);
		KUNIT_EXPECT_EQ(test, rbh_iter_use(&iter, p), -ENOENT);
		rbh_iter_unlock(&iter);
	}
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, hash, rbh_test_ptr(i)), 0);
	KUNIT_ASSERT_EQ(test, rbh_reserve(rbh, hash), 0);
	rbh_test_check_counts(test, rbh, st, 3, 1);

	{
		RBH_ITER(iter, rbh, hash);

		rbh_iter_lock(&iter);
		KUNIT_EXPECT_EQ(test, rbh_iter_use(&iter, NULL), -EINVAL);
		KUNIT_EXPECT_EQ(test, rbh_iter_use(&iter, p), 0);
		KUNIT_EXPECT_EQ(test, rbh_iter_use(&iter, q), -ENOENT);
		rbh_iter_unlock(&iter);
	}
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, hash, p, &total), 1UL);
	KUNIT_EXPECT_EQ(test, rbh_test_count(rbh, hash, q, NULL), 0UL);
	KUNIT_EXPECT_EQ(test, total, 4UL);
	rbh_test_check_counts(test, rbh, st, 4, 0);
	KUNIT_EXPECT_EQ(test, rbh_release(rbh, hash), -ENOENT);

	KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, p), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, rbh_remove(rbh, hash, rbh_test_ptr(i)), 0);
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_destroy(test, rbh);
}

/*
 * What a large cache needs: lockdep classes per user, buckets charged to
 * a memory cgroup and reclaimable, and reservations that cannot fail.
 */

/* rbh_test_new(), initialised again with rbh_init_flags(@flags) */
static struct rbh *rbh_test_new_flags(struct kunit *test, unsigned int flags)
{
	struct rbh *rbh = rbh_test_new(test);

	rbh_init_flags(rbh, flags);
	return rbh;
}

/*
 * Rosebushes initialised at different places have locks of different
 * lockdep classes (rbh_init()), so that unrelated users' lock orders do
 * not join into false cycles.  Here @a's bucket lock is taken under the
 * case's own lock, which is taken under @b's, and @a's under @b's.  Were
 * every bucket lock of one class, lockdep would report a cycle and a
 * recursive lock, and turn itself off.
 */
static void rbh_lock_classes(struct kunit *test)
{
	static DEFINE_SPINLOCK(middle);
	struct rbh *a = rbh_test_new(test);
	struct rbh *b;
	int err;

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "needs lockdep");
	KUNIT_ASSERT_TRUE_MSG(test, debug_locks, "lockdep was already off");
	/* rbh_test_new()'s rbh_init() is the other place */
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	rbh_init(b);
	err = kunit_add_action_or_reset(test, rbh_test_destroy_action, b);
	KUNIT_ASSERT_EQ(test, err, 0);
	/* Both keep their classes once destroyed, to be used again */
	KUNIT_ASSERT_EQ(test, rbh_insert(a, 1, rbh_test_ptr(1)), 0);
	KUNIT_ASSERT_EQ(test, rbh_insert(b, 1, rbh_test_ptr(1)), 0);
	rbh_destroy(a);
	rbh_destroy(b);
	KUNIT_ASSERT_EQ(test, rbh_insert(a, 1, rbh_test_ptr(1)), 0);
	KUNIT_ASSERT_EQ(test, rbh_insert(a, 2, rbh_test_ptr(2)), 0);
	KUNIT_ASSERT_EQ(test, rbh_insert(b, 1, rbh_test_ptr(1)), 0);

	spin_lock(&middle);
	KUNIT_EXPECT_EQ(test, rbh_remove(a, 1, rbh_test_ptr(1)), 0);
	spin_unlock(&middle);
	{
		RBH_ITER(iter, b, 1);

		rbh_iter_lock(&iter);
		spin_lock(&middle);
		spin_unlock(&middle);
		KUNIT_EXPECT_EQ(test, rbh_remove(a, 2, rbh_test_ptr(2)), 0);
		rbh_iter_unlock(&iter);
	}
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks, "lockdep found a cycle");
}

/*
 * Make the work item walk the whole table, as when removals hand it
 * more buckets than struct rbh can list, and run it here.
 */
static void rbh_test_walk(struct kunit *test, struct rbh *rbh)
{
	rbh_test_work_off(test, rbh);
	spin_lock(&rbh->rbh_work_lock);
	rbh->rbh_shrink_nr = RBH_WORK_KEYS + 1;
	spin_unlock(&rbh->rbh_work_lock);
	rbh_test_work_here(test, rbh);
}

/* Every bucket was allocated with @want, no table with any of it */
static void rbh_test_check_gfp(struct kunit *test, struct rbh_test_fault *fb,
			       struct rbh_test_fault *ft, gfp_t want)
{
	KUNIT_EXPECT_EQ(test, fb->failed, 0U);
	KUNIT_EXPECT_TRUE_MSG(test, (fb->gfp_all & want) == want,
			      "some bucket allocated with only %#x",
			      (__force unsigned int)fb->gfp_all);
	KUNIT_EXPECT_FALSE_MSG(test, ft->gfp_any & want,
			       "tables allocated with %#x",
			       (__force unsigned int)ft->gfp_any);
}

/*
 * A rosebush made with RBH_ACCOUNT | RBH_RECLAIMABLE allocates every
 * bucket with __GFP_ACCOUNT | __GFP_RECLAIMABLE: for insertions, splits
 * and chains, and in the work item, both for the keys removals handed
 * it and in a walk of the whole table (run here, where the stub sees
 * them), also once destroyed and used again.  Its table is neither.
 */
static void rbh_bucket_gfp(struct kunit *test)
{
	const gfp_t want = __GFP_ACCOUNT | __GFP_RECLAIMABLE;
	struct rbh_test_fault *fb, *ft;
	unsigned int i, n, calls;
	struct rbh *rbh;

	rbh = rbh_test_new_flags(test, RBH_ACCOUNT | RBH_RECLAIMABLE);
	rbh_test_faults_init(test);
	fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, UINT_MAX);
	ft = rbh_test_fault_arm(test, RBH_TEST_TABLE, UINT_MAX);

	/* Three buckets' worth under one hash: a chain */
	n = 3 * RBH_MAX_ENTRIES;
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, RBH_TEST_FLOOD,
						 rbh_test_ptr(i)), 0);
	KUNIT_EXPECT_GT(test, fb->calls, 2U);
	KUNIT_EXPECT_GT(test, ft->calls, 0U);
	rbh_test_work_off(test, rbh);
	/*
	 * Few enough to fold, the last two, in the chain: the removals hand
	 * the key over
	 */
	for (i = 0; i < n - 2; i++)
		KUNIT_ASSERT_EQ(test, rbh_remove(rbh, RBH_TEST_FLOOD,
						 rbh_test_ptr(i)), 0);
	calls = fb->calls;
	rbh_test_work_here(test, rbh);
	KUNIT_EXPECT_GT_MSG(test, fb->calls, calls,
			    "the work item made no fold");
	rbh_test_check_gfp(test, fb, ft, want);

	/* Destroyed and used again, it keeps its flags */
	rbh_test_fault_disarm(test);
	rbh_destroy(rbh);
	fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, UINT_MAX);
	ft = rbh_test_fault_arm(test, RBH_TEST_TABLE, UINT_MAX);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, RBH_TEST_FLOOD,
						 rbh_test_ptr(i)), 0);
	KUNIT_EXPECT_GT(test, ft->calls, 0U);
	calls = fb->calls;
	rbh_test_walk(test, rbh);
	KUNIT_EXPECT_GT_MSG(test, fb->calls, calls,
			    "the walk made no fold");
	rbh_test_check_gfp(test, fb, ft, want);

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, rbh_remove(rbh, RBH_TEST_FLOOD,
						 rbh_test_ptr(i)), 0);
	rbh_test_fault_disarm(test);
	rbh_test_destroy(test, rbh);
}

/*
 * A caller that cannot fail falls back to rbh_reserve_nofail() when
 * rbh_reserve() cannot allocate.  With every other allocation failing,
 * it must still reserve: in a chain, from one __GFP_NOFAIL bucket at a
 * time, without doubling the table or splitting a bucket.  Each fallback
 * runs with only the first allocation failing, so that one made without
 * __GFP_NOFAIL is seen without the case waiting for it forever.  The
 * slots are then used and found, and the chains go when emptied.
 */
static void rbh_reserve_nofail_chains(struct kunit *test)
{
	struct rbh *rbh = rbh_test_new(test);
	struct rbh_stats *before = rbh_test_stats_alloc(test);
	struct rbh_stats *after = rbh_test_stats_alloc(test);
	unsigned long i, n, end, fallbacks = 0;
	struct rbh_test_fault *fb, *ft;
	struct rbh_test_set *set;
	unsigned int cap;

	rbh_test_faults_init(test);
	cap = rbh_test_capacity(test, rbh, before);
	n = 2 * cap;
	end = n + 4 * cap;
	set = rbh_test_set_new(test, rbh, end);
	rbh_test_set_fill(set, RBH_TEST_RANDOM);
	if (!rbh_test_set_add(test, set, 0, n))
		goto out;
	rbh_test_stats(test, rbh, before);
	rbh_test_work_off(test, rbh);

	for (i = n; i < end; i++) {
		rbh_test_fault_arm(test, RBH_TEST_BUCKET, 0);
		rbh_test_fault_arm(test, RBH_TEST_TABLE, 0);
		if (!rbh_reserve(rbh, set->hash[i]))
			continue;
		fallbacks++;
		fb = rbh_test_fault_arm(test, RBH_TEST_BUCKET, 1);
		ft = rbh_test_fault_arm(test, RBH_TEST_TABLE, 1);
		rbh_reserve_nofail(rbh, set->hash[i]);
		KUNIT_EXPECT_EQ_MSG(test, fb->failed, 0U,
				    "entry %lu: a bucket without __GFP_NOFAIL", i);
		KUNIT_EXPECT_LE(test, fb->calls, 1U);
		KUNIT_EXPECT_EQ_MSG(test, ft->calls, 0U,
				    "entry %lu: a table allocated", i);
	}
	rbh_test_fault_disarm(test);
	KUNIT_EXPECT_GT_MSG(test, fallbacks, 0UL,
			    "rbh_reserve() never failed: nothing was tested");
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ(test, after->reserved, end - n);
	KUNIT_EXPECT_GT(test, after->overflow_buckets,
			before->overflow_buckets);
	KUNIT_EXPECT_EQ(test, rbh_test_resizes(after),
			rbh_test_resizes(before));

	for (i = n; i < end; i++)
		KUNIT_EXPECT_EQ(test, rbh_test_set_use(set, i), 0);
	rbh_test_check_set(test, set);
	rbh_test_work_here(test, rbh);
	if (!rbh_test_set_del(test, set, 0, end))
		goto out;
	KUNIT_EXPECT_TRUE(test, rbh_empty(rbh));
	rbh_test_stats(test, rbh, after);
	KUNIT_EXPECT_EQ(test, after->overflow_buckets, 0UL);
out:
	rbh_test_fault_disarm(test);
	rbh_test_destroy(test, rbh);
}

static struct kunit_case rosebush_cases[] = {
	KUNIT_CASE(rbh_never_used_is_empty),
	KUNIT_CASE(rbh_empty_tracks_contents),
	KUNIT_CASE(rbh_reserve_use_release),
	KUNIT_CASE(rbh_next_skips_reservations),
	KUNIT_CASE(rbh_iter_remove_while_locked),
	KUNIT_CASE(rbh_same_pointer_many_times),
	KUNIT_CASE(rbh_spilled_entries),
	KUNIT_CASE_PARAM(rbh_insert_iterate_remove, rbh_test_sizes_gen_params),
	KUNIT_CASE(rbh_equal_hash_flood),
	KUNIT_CASE(rbh_readers_of_any_flavour),
	KUNIT_CASE_PARAM(rbh_destroy_shapes, rbh_test_shapes_gen_params),
	KUNIT_CASE_PARAM(rbh_free_and_destroy_shapes,
			 rbh_test_shapes_gen_params),
	KUNIT_CASE(rbh_alloc_fail_first_insert),
	KUNIT_CASE(rbh_alloc_fail_grow),
	KUNIT_CASE(rbh_alloc_lost_race),
	KUNIT_CASE(rbh_split_hands_over_chain),
	KUNIT_CASE(rbh_split_long_chain),
	KUNIT_CASE(rbh_split_chain_summary),
	KUNIT_CASE(rbh_split_chain_summary_prepend),
	KUNIT_CASE(rbh_alloc_fail_split),
	KUNIT_CASE(rbh_alloc_fail_overflow),
	KUNIT_CASE(rbh_grow_deferred),
	KUNIT_CASE(rbh_grow_deferred_long_chain),
	KUNIT_CASE(rbh_grow_deferred_both_halves),
	KUNIT_CASE(rbh_atomic_callers),
	KUNIT_CASE(rbh_iter_lock_before_first_insert),
	KUNIT_CASE_SLOW(rbh_random_ops_match_model),
	KUNIT_CASE_SLOW(rbh_iterate_while_resizing),
	KUNIT_CASE_SLOW(rbh_rcu_readers_while_writing),
	KUNIT_CASE_SLOW(rbh_stats_million_sequential),
	{}
};

static struct kunit_suite rosebush_suite = {
	.name = "rosebush",
	.test_cases = rosebush_cases,
};

static struct kunit_case rosebush_shrink_cases[] = {
	KUNIT_CASE(rbh_chain_folds_back),
	KUNIT_CASE(rbh_chain_folds_after_home_removal),
	KUNIT_CASE(rbh_alloc_fail_shrink),
	KUNIT_CASE(rbh_remove_defers_shrinking),
	KUNIT_CASE(rbh_merge_from_fuller_buddy),
	KUNIT_CASE(rbh_merge_after_halving),
	KUNIT_CASE(rbh_merge_once_oversized),
	KUNIT_CASE(rbh_resize_hysteresis),
	KUNIT_CASE(rbh_grow_deferred_keeps_growth),
	KUNIT_CASE_SLOW(rbh_readers_while_shrinking),
	KUNIT_CASE_SLOW(rbh_shrink_after_million),
	{}
};

static struct kunit_suite rosebush_shrink_suite = {
	.name = "rosebush_shrink",
	.test_cases = rosebush_shrink_cases,
};

static struct kunit_case rosebush_steps_cases[] = {
	KUNIT_CASE(rbh_crowded_keys),
	{}
};

static struct kunit_suite rosebush_steps_suite = {
	.name = "rosebush_steps",
	.test_cases = rosebush_steps_cases,
};

static struct kunit_case rosebush_iter_cases[] = {
	KUNIT_CASE(rbh_iter_replace_in_place),
	KUNIT_CASE(rbh_iter_use_while_locked),
	{}
};

static struct kunit_suite rosebush_iter_suite = {
	.name = "rosebush_iter",
	.test_cases = rosebush_iter_cases,
};

static struct kunit_case rosebush_caches_cases[] = {
	KUNIT_CASE(rbh_lock_classes),
	KUNIT_CASE(rbh_bucket_gfp),
	KUNIT_CASE(rbh_reserve_nofail_chains),
	{}
};

static struct kunit_suite rosebush_caches_suite = {
	.name = "rosebush_caches",
	.test_cases = rosebush_caches_cases,
};

kunit_test_suites(&rosebush_suite, &rosebush_shrink_suite,
		  &rosebush_steps_suite, &rosebush_iter_suite,
		  &rosebush_caches_suite);

MODULE_DESCRIPTION("KUnit tests for the rosebush hash table");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
