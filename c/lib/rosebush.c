// SPDX-License-Identifier: GPL-2.0+
/*
 * Rosebush, a resizing bucket hash table
 * Copyright (c) 2024 Oracle Corporation
 * Author: Matthew Wilcox <willy@infradead.org>
 *
 * See Documentation/core-api/rosebush.rst for the design.
 */

#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/prefetch.h>
#include <linux/rcupdate.h>
#include <linux/rosebush.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

/*
 * Coding conventions in this file:
 *
 * @hash is the caller's hash value; @key is the hash mixed by rbh_key(),
 * whose top bits index the table.
 * @table is the table of bucket pointers, with 2^@depth slots.
 * @d is a bucket's depth: its keys share their top @d bits, and
 * 2^(@depth - @d) slots point at it.
 * @primary is a bucket the table points at; its lock also protects its
 * chain of overflow buckets.  @bucket is any bucket.
 * @ref is any key in a bucket's range: it tells free entries from used.
 * @g is a group of a bucket; @i an entry of it, or a slot of the table.
 * @home is a key's home group.
 * @spares holds memory allocated before taking the locks that use it.
 */

/* The bucket format is in <linux/rosebush.h>, for rbh_first(). */
static_assert(sizeof(struct rbh_bucket) == RBH_BUCKET_SIZE);
static_assert(RBH_ENTRIES >= 8 && RBH_ENTRIES <= RBH_MAX_ENTRIES);
static_assert(RBH_GROUPS == 4 || RBH_GROUPS == 8);
static_assert(RBH_HOMES >= 2);
static_assert(sizeof(u32) <= RBH_WHOLE_KEYS);
static_assert(RBH_HEAD_GROUP * RBH_GROUP_SIZE < sizeof(struct rbh_bucket_head) &&
	      sizeof(struct rbh_bucket_head) <= (RBH_HEAD_GROUP + 1) * RBH_GROUP_SIZE);

/* Bucket flags, written under the bucket lock */
#define RBH_DEAD	1	/* Replaced by a split, a merge or a fold */

/* The bits of a filter word that name the overflow chain */
#define RBH_CHAIN_FILTER	GENMASK(RBH_CHAIN_DEST * RBH_FILTER_BITS + \
					RBH_FILTER_BITS - 1, \
					RBH_CHAIN_DEST * RBH_FILTER_BITS)

/* Buddies merge only into two thirds of a bucket, a third short of a split */
#define RBH_MERGE_MAX		(2 * RBH_ENTRIES / 3)
/* Buckets a walk of the table visits between cond_resched() */
#define RBH_WALK_BATCH		64
/*
 * The table may double while it has at most RBH_SLOTS_PER_BUCKET slots
 * per bucket, or RBH_SLOTS_PER_BUCKET_MAX for a bucket whose chain is
 * full; past that, full buckets take overflow chains.
 */
#define RBH_SLOTS_PER_BUCKET		3
#define RBH_SLOTS_PER_BUCKET_MAX	16
/* kvmalloc() refuses more than INT_MAX bytes */
#define RBH_MAX_DEPTH		ilog2(INT_MAX / sizeof(void *))
#define RBH_MIN_TABLE_BYTES	(RBH_SHIFT_MASK + 1)

/*
 * The table word: the table of 2^D slots (naturally aligned, at least 32
 * bytes) with 32 - D, the shift from key to slot, in its low five bits.
 */
static struct rbh_table *rbh_tag(struct rbh_bucket __rcu **table,
				 unsigned int depth)
{
	return (struct rbh_table *)((unsigned long)table | (32 - depth));
}

/*
 * RBH_NO_TABLE: slots that point at a bucket of zeroes, where a lookup
 * finds only NULL, as in a reservation, and so needs no test for a table.
 * Exported for RBH_INIT(), which initialises a rosebush in a module.
 */
static const struct rbh_bucket rbh_empty_bucket;
struct rbh_bucket __rcu *const rbh_empty_table[RBH_MIN_TABLE_BYTES / sizeof(void *)]
	__aligned(RBH_MIN_TABLE_BYTES) = {
	[0 ... RBH_MIN_TABLE_BYTES / sizeof(void *) - 1] =
		(struct rbh_bucket __force __rcu *)&rbh_empty_bucket,
};
EXPORT_SYMBOL_GPL(rbh_empty_table);

/* Bit @d of @key, counting from the top. */
static unsigned int rbh_bit(u32 key, unsigned int d)
{
	return (key >> (31 - d)) & 1;
}

/* The filter bit of destination @dest that @key selects. */
static __always_inline u32 rbh_filter_bit(u32 key, unsigned int dest)
{
	return BIT(dest * RBH_FILTER_BITS + rbh_filter_shift(key));
}

/* Entries in group @g: none before the header ends. */
static __always_inline unsigned int rbh_group_entries(unsigned int g)
{
	if (g < RBH_HEAD_GROUP)
		return 0;
	return g == RBH_HEAD_GROUP ? RBH_HEAD_ENTRIES : RBH_GROUP_MAX;
}

/* Filter, keys, then pointers, which end the group's cache line */
static __always_inline size_t rbh_slots_offset(unsigned int g)
{
	return (g + 1) * RBH_GROUP_SIZE -
		rbh_group_entries(g) * sizeof(void *);
}

static __always_inline size_t rbh_keys_offset(unsigned int g)
{
	return rbh_slots_offset(g) - rbh_group_entries(g) * sizeof(u32);
}

static __always_inline u32 *rbh_keys(struct rbh_bucket *bucket,
				     unsigned int g)
{
	return (u32 *)(bucket->bytes + rbh_keys_offset(g));
}

static __always_inline void __rcu **rbh_slots(struct rbh_bucket *bucket,
					      unsigned int g)
{
	return (void __rcu **)(bucket->bytes + rbh_slots_offset(g));
}

static __always_inline u32 *rbh_filter(struct rbh_bucket *bucket,
				       unsigned int g)
{
	return (u32 *)(bucket->bytes + rbh_keys_offset(g) - sizeof(u32));
}

/* Move *@g and *@i to the next entry there is; false past the last one */
static __always_inline bool rbh_entry_valid(unsigned int *g, unsigned int *i)
{
	while (*g < RBH_GROUPS && *i >= rbh_group_entries(*g)) {
		(*g)++;
		*i = 0;
	}
	return *g < RBH_GROUPS;
}

#define rbh_for_each_entry(g, i)					\
	for ((g) = RBH_HEAD_GROUP, (i) = 0; rbh_entry_valid(&(g), &(i)); (i)++)

/* A bucket's keys share their top bit: a free entry has the other one */
static u32 rbh_free_key(u32 key)
{
	return key ^ BIT(31);
}

static bool rbh_entry_free(struct rbh_bucket *bucket, unsigned int g,
			   unsigned int i, u32 key)
{
	return (rbh_keys(bucket, g)[i] ^ key) & BIT(31);
}

/*
 * Lookup.  rbh_first(), inline in <linux/rosebush.h>, reads the home group;
 * rbh_next() and __rbh_first_spilled() walk on, under the RCU read lock or
 * a bucket lock, through the groups the home filter names and the chain.
 */

/* rbh_group_match() for any group @g of @bucket, the header's too */
static __always_inline unsigned int rbh_match(struct rbh_bucket *bucket,
					      unsigned int g, u32 key)
{
	u32 *keys = rbh_keys(bucket, g);
	unsigned int i, match = 0;

	if (g > RBH_HEAD_GROUP)
		return rbh_group_match(bucket, g, key);
	if (g == RBH_HEAD_GROUP)
		for (i = 0; i < RBH_HEAD_ENTRIES; i++)
			match |= (unsigned int)(READ_ONCE(keys[i]) == key) << i;
	return match;
}

/* The next pointer under @key in group @g, from and past entry *@index */
static __always_inline void *rbh_group_next(struct rbh_bucket *bucket,
					    unsigned int g, u32 key,
					    unsigned int *index)
{
	unsigned int i, match;
	void *p;

	match = rbh_match(bucket, g, key) & (~0U << *index);
	for (; match; match &= match - 1) {
		i = __ffs(match);
		/* Pairs with smp_store_release() in rbh_set_entry() */
		smp_rmb();
		p = rbh_dereference(rbh_slots(bucket, g)[i]);
		if (p) {
			*index = i + 1;
			return p;
		}
	}
	return NULL;
}

/* rbh_group_next() through the groups @dests names, from step *@step */
static __always_inline void *rbh_dests_next(struct rbh_bucket *bucket,
					    u32 key, unsigned int home,
					    unsigned int dests,
					    unsigned int *step,
					    unsigned int *index)
{
	unsigned int left;
	void *p;

	/*
	 * The groups left to walk, each by the lowest bit of its field: not
	 * the chain's, nor (cleared by -BIT()) those of steps before *@step.
	 */
	left = dests & ~BIT(RBH_CHAIN_DEST * RBH_FILTER_BITS) &
	       -BIT((*step - 1) * RBH_FILTER_BITS);
	for (; left; left &= left - 1, *index = 0) {
		*step = __ffs(left) / RBH_FILTER_BITS + 1;
		p = rbh_group_next(bucket, home ^ *step, key, index);
		if (p)
			return p;
	}
	*step = RBH_GROUPS;
	return NULL;
}

/* Walk step RBH_STEP_CHAIN + g: group g of an overflow bucket */
#define RBH_STEP_CHAIN		RBH_GROUPS
static_assert(RBH_STEP_CHAIN + RBH_GROUPS < RBH_ITER_DONE);

/* Home group (step 0), groups its filter names (home ^ step), then chain */
static noinline void *rbh_walk_on(struct rbh_iter *rbhi)
{
	unsigned int step = rbhi->step, index = rbhi->index, home;
	struct rbh_bucket *bucket = rbhi->bucket;
	u32 key = rbhi->key;
	void *p;

	if (step < RBH_STEP_CHAIN) {
		home = rbh_home(key);
		if (!step) {
			p = rbh_group_next(bucket, home, key, &index);
			if (p)
				goto found;
			rbhi->dests = (READ_ONCE(*rbh_filter(bucket, home)) >>
				       rbh_filter_shift(key)) & RBH_FILTER_LOW;
			step = 1;
			index = 0;
		}
		p = rbh_dests_next(bucket, key, home, rbhi->dests, &step,
				   &index);
		if (p)
			goto found;
		if (!(rbhi->dests & BIT(RBH_CHAIN_DEST * RBH_FILTER_BITS)))
			goto done;
		/* Past the primary bucket's last group: on to the chain */
		step = RBH_STEP_CHAIN + RBH_GROUPS;
	}

	for (;;) {
		for (; step < RBH_STEP_CHAIN + RBH_GROUPS; step++, index = 0) {
			p = rbh_group_next(bucket, step - RBH_STEP_CHAIN, key,
					   &index);
			if (p)
				goto found;
		}
		bucket = rbh_dereference(bucket->h.chain);
		if (!bucket)
			goto done;
		step = RBH_STEP_CHAIN + RBH_HEAD_GROUP;
		index = 0;
	}
found:
	rbhi->bucket = bucket;
	rbhi->step = step;
	rbhi->index = index;
	return p;
done:
	rbhi->step = RBH_ITER_DONE;
	return NULL;
}

/*
 * The rest of rbh_first(): the groups and chain of @bucket that @dests,
 * @key's home filter bits (shifted down; not 0), names.
 * Context: Any context, with the RCU read lock held.  Does not sleep.
 * Return: The first pointer found, or NULL.
 */
void *__rbh_first_spilled(struct rbh_iter *rbhi, struct rbh_bucket *bucket,
			  u32 key, unsigned int dests)
{
	unsigned int step = 1, index = 0;
	void *p;

	rbhi->key = key;
	rbhi->bucket = bucket;
	rbhi->dests = dests;
	p = rbh_dests_next(bucket, key, rbh_home(key), dests, &step, &index);
	if (likely(p)) {
		rbhi->index = index;
		rbhi->step = step;
		return p;
	}
	if (!(dests & BIT(RBH_CHAIN_DEST * RBH_FILTER_BITS))) {
		rbhi->step = RBH_ITER_DONE;
		return NULL;
	}
	rbhi->index = 0;
	rbhi->step = RBH_STEP_CHAIN + RBH_GROUPS;
	return rbh_walk_on(rbhi);
}
EXPORT_SYMBOL_GPL(__rbh_first_spilled);

/**
 * rbh_next() - Return the next pointer stored under the walk's hash.
 * @rbhi: The iterator, started by rbh_first() or rbh_iter_lock().
 *
 * Returns what rbh_first() promises.  Do not call it again once it or
 * rbh_first() has returned NULL.
 *
 * Context: RCU read lock held (any flavour), or the walk was locked with
 * rbh_iter_lock().  Does not sleep.
 * Return: The next pointer, or NULL when there are no more.
 */
void *rbh_next(struct rbh_iter *rbhi)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "iteration without the RCU read lock");
	if (rbhi->step == RBH_ITER_DONE)
		return NULL;
	/* Neither rbh_first() nor rbh_iter_lock() started the walk */
	if (WARN_ON_ONCE(!rbhi->bucket))
		return NULL;
	return rbh_walk_on(rbhi);
}
EXPORT_SYMBOL_GPL(rbh_next);

/*
 * Memory.  Everything a writer needs is allocated before it takes a lock,
 * into a struct rbh_spares, through two functions KUnit can make fail.
 */

static_assert((sizeof(void *) << RBH_MAX_DEPTH) <= INT_MAX);

/*
 * Slots a grow or a halving copies per hold of the resize lock: see
 * "Resizing" in Documentation/core-api/rosebush.rst.  A power of two.
 */
#ifndef RBH_RESIZE_STEP
#define RBH_RESIZE_STEP		1024UL
#endif
static_assert(!(RBH_RESIZE_STEP & (RBH_RESIZE_STEP - 1)) && RBH_RESIZE_STEP >= 4);

/* So that no bucket covers more than RBH_RESIZE_STEP slots of the table */
#define RBH_RANGE_SHIFT		ilog2(RBH_RESIZE_STEP)

/* The shallowest a bucket may be in a table of depth @depth */
static unsigned int rbh_min_depth(unsigned int depth)
{
	return depth > RBH_RANGE_SHIFT ? depth - RBH_RANGE_SHIFT : 1;
}

static size_t rbh_table_bytes(unsigned int depth)
{
	return max(sizeof(void *) << depth, (size_t)RBH_MIN_TABLE_BYTES);
}

/* All allocations go through these two, so that KUnit can make them fail */
VISIBLE_IF_KUNIT struct rbh_bucket *rbh_alloc_bucket(gfp_t gfp)
{
	KUNIT_STATIC_STUB_REDIRECT(rbh_alloc_bucket, gfp);
	return kmalloc(RBH_BUCKET_SIZE, gfp);
}
EXPORT_SYMBOL_IF_KUNIT(rbh_alloc_bucket);

VISIBLE_IF_KUNIT void *rbh_alloc_table(unsigned int depth, gfp_t gfp)
{
	KUNIT_STATIC_STUB_REDIRECT(rbh_alloc_table, depth, gfp);
	return kvmalloc(rbh_table_bytes(depth), gfp);
}
EXPORT_SYMBOL_IF_KUNIT(rbh_alloc_table);

static void rbh_bucket_init(struct rbh_bucket *bucket, unsigned int depth,
			    u32 key)
{
	unsigned int g, i;

	memset(bucket, 0, sizeof(*bucket));
	spin_lock_init(&bucket->h.lock);
	bucket->h.depth = depth;
	rbh_for_each_entry(g, i)
		rbh_keys(bucket, g)[i] = rbh_free_key(key);
}

/* Only a primary bucket's lock is taken: give it @rbh's class */
static void rbh_primary_init(const struct rbh *rbh, struct rbh_bucket *bucket,
			     unsigned int depth, u32 key)
{
	rbh_bucket_init(bucket, depth, key);
#ifdef CONFIG_LOCKDEP
	lockdep_set_class(&bucket->h.lock, &rbh->rbh_lock_keys->bucket_lock);
#endif
}

struct rbh_spares {
	struct rbh_bucket *buckets;	/* linked through h.chain */
	unsigned int nr;
	void *table;
	unsigned int table_depth;
};

static struct rbh_bucket *rbh_spare(struct rbh_spares *spares)
{
	struct rbh_bucket *bucket = spares->buckets;

	spares->buckets = rcu_dereference_raw(bucket->h.chain);
	spares->nr--;
	return bucket;
}

static void rbh_spare_put(struct rbh_spares *spares, struct rbh_bucket *bucket)
{
	RCU_INIT_POINTER(bucket->h.chain, spares->buckets);
	spares->buckets = bucket;
	spares->nr++;
}

/* Fill @spares: @nr buckets with @gfp, a table with GFP_KERNEL.  Sleeps. */
static int rbh_spares_fill(const struct rbh *rbh, struct rbh_spares *spares,
			   unsigned int nr, unsigned int table_depth, gfp_t gfp)
{
	gfp |= rbh->rbh_gfp;
	while (spares->nr < nr) {
		struct rbh_bucket *bucket = rbh_alloc_bucket(gfp);

		if (!bucket)
			return -ENOMEM;
		rbh_spare_put(spares, bucket);
	}
	if (table_depth && spares->table_depth != table_depth) {
		kvfree(spares->table);
		spares->table_depth = 0;
		spares->table = rbh_alloc_table(table_depth, GFP_KERNEL);
		if (!spares->table)
			return -ENOMEM;
		spares->table_depth = table_depth;
	}
	return 0;
}

static void rbh_spares_free(struct rbh_spares *spares)
{
	while (spares->nr)
		kfree(rbh_spare(spares));
	kvfree(spares->table);
}

/*
 * The table.  Written under the resize lock and published with
 * rcu_assign_pointer(); a slot changes under its bucket's lock as well.
 */

/* The table word, under the RCU read lock or the resize lock; NULL if none */
static struct rbh_table *rbh_table_word(const struct rbh *rbh)
{
	/* Pairs with rcu_assign_pointer() in rbh_publish_table() */
	struct rbh_table *tagged = rcu_dereference_check(rbh->rbh_table,
				lockdep_is_held(&rbh->rbh_resize_lock));

	return tagged == (__force struct rbh_table *)RBH_NO_TABLE ? NULL :
								     tagged;
}

/* The table word, for its depth or to test for a table only */
static struct rbh_table *rbh_table_peek(const struct rbh *rbh)
{
	struct rbh_table *tagged = rcu_access_pointer(rbh->rbh_table);

	return tagged == (__force struct rbh_table *)RBH_NO_TABLE ? NULL :
								     tagged;
}

static struct rbh_bucket __rcu **rbh_table_locked(struct rbh *rbh,
						  unsigned int *depth)
{
	return rbh_untag(rcu_dereference_protected(rbh->rbh_table,
				lockdep_is_held(&rbh->rbh_resize_lock)),
			 depth);
}

/* Has merging left the table larger than its buckets could have grown it? */
static void rbh_note_size(struct rbh *rbh)
{
	/* No bucket is wider than a step: small steps lower the threshold */
	unsigned long per_bucket = max(RBH_SLOTS_PER_BUCKET * 1UL,
				       min(RBH_SLOTS_PER_BUCKET_MAX * 1UL,
					   RBH_RESIZE_STEP / 2));
	unsigned int depth;
	bool oversized;

	rbh_table_locked(rbh, &depth);
	oversized = (1UL << depth) > per_bucket * rbh->rbh_nr_buckets;
	if (oversized && !rbh->rbh_oversized)
		WRITE_ONCE(rbh->rbh_walk_due, true);
	WRITE_ONCE(rbh->rbh_oversized, oversized);
}

/* Is a walk due for the buddies rbh_note_size() warns of?  Resets it. */
static bool rbh_walk_due(struct rbh *rbh)
{
	bool due;

	if (!READ_ONCE(rbh->rbh_walk_due))
		return false;
	spin_lock(&rbh->rbh_resize_lock);
	due = rbh->rbh_oversized && rbh->rbh_nr_deep;
	WRITE_ONCE(rbh->rbh_walk_due, false);
	spin_unlock(&rbh->rbh_resize_lock);
	return due;
}

static void rbh_publish_table(struct rbh *rbh,
			      struct rbh_bucket __rcu **table,
			      unsigned int depth)
{
	/* Pairs with the dereferences in rbh_table_word() and rbh_first() */
	rcu_assign_pointer(rbh->rbh_table, rbh_tag(table, depth));
	rbh_note_size(rbh);
}

/* Point slot @i at @bucket, in the next table too if a resize copied it */
static void rbh_set_slot(struct rbh *rbh, struct rbh_bucket __rcu **table,
			 unsigned long i, struct rbh_bucket *bucket)
{
	struct rbh_bucket __rcu **next = rbh->rbh_future_table;
	unsigned int depth;

	lockdep_assert_held(&rbh->rbh_resize_lock);
	/* None too shallow: see rbh_merge_locked(), rbh_split_shallow() */
	rbh_table_locked(rbh, &depth);
	WARN_ON_ONCE(bucket->h.depth < rbh_min_depth(depth));
	/* Pairs with rbh_dereference() of the slot in rbh_table_bucket() */
	rcu_assign_pointer(table[i], bucket);
	if (!next || i >= rbh->rbh_future_copied)
		return;
	/* Not visible until rcu_assign_pointer() in rbh_publish_table() */
	if (rbh->rbh_future_grows) {
		WARN_ON_ONCE(bucket->h.depth < rbh_min_depth(depth + 1));
		RCU_INIT_POINTER(next[2 * i], bucket);
		RCU_INIT_POINTER(next[2 * i + 1], bucket);
	} else if (!(i & 1)) {
		RCU_INIT_POINTER(next[i / 2], bucket);
	}
}

/*
 * Count @n buckets one less deep than the table, split at slot @first by
 * an insertion, for a halving that has copied it.  They are the halves of
 * a bucket two less deep, covering the four old slots from @first; a step
 * copies a multiple of four, so it copied all four or none.  (Merges are
 * the work item's, as resizes are, so none runs during a halving.)
 */
static void rbh_future_deep_add(struct rbh *rbh, unsigned long first, int n)
{
	lockdep_assert_held(&rbh->rbh_resize_lock);
	if (rbh->rbh_future_table && !rbh->rbh_future_grows &&
	    first < rbh->rbh_future_copied)
		rbh->rbh_future_deep += n;
}

static struct rbh_bucket *rbh_slot_locked(struct rbh *rbh,
					  struct rbh_bucket __rcu **table,
					  unsigned long index)
{
	return rcu_dereference_protected(table[index],
			lockdep_is_held(&rbh->rbh_resize_lock));
}

/* The bucket that holds @key, under the RCU read lock or the resize lock */
static struct rbh_bucket *rbh_bucket(const struct rbh *rbh, u32 key)
{
	struct rbh_table *tagged = rbh_table_word(rbh);
	struct rbh_bucket __rcu **table;
	unsigned int depth;

	if (!tagged)
		return NULL;
	table = rbh_untag(tagged, &depth);
	return rcu_dereference_check(table[rbh_index(key, depth)],
			lockdep_is_held(&rbh->rbh_resize_lock));
}

/*
 * Lock the bucket that holds @key: one not dead still holds @key's range.
 * Call it as rbh_lock_bucket(), which tells sparse about the lock.
 * Return: true, with *@bucketp locked; false if there is no table.
 */
static bool __rbh_lock_bucket(struct rbh *rbh, u32 key,
			      struct rbh_bucket **bucketp)
{
	struct rbh_bucket *bucket;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "bucket lookup without the RCU read lock");
	for (;;) {
		bucket = rbh_bucket(rbh, key);
		if (!bucket) {
			*bucketp = NULL;
			return false;
		}
		/* The caller writes the home group next: fetch it too */
		prefetchw(rbh_home_keys(bucket, rbh_home(key)));
		spin_lock(&bucket->h.lock);
		if (!(bucket->h.flags & RBH_DEAD)) {
			*bucketp = bucket;
			/* Held for the caller: see rbh_lock_bucket() */
			__release(&bucket->h.lock);
			return true;
		}
		spin_unlock(&bucket->h.lock);
	}
}

#define rbh_lock_bucket(rbh, key, bucketp)				\
	__cond_lock(&(*(bucketp))->h.lock, __rbh_lock_bucket(rbh, key, bucketp))

/* The lock of the primary bucket protects its chain */
static struct rbh_bucket *rbh_chain_locked(struct rbh_bucket *primary,
					   struct rbh_bucket *bucket)
{
	return rcu_dereference_protected(bucket->h.chain,
					 lockdep_is_held(&primary->h.lock));
}

/*
 * Storing entries, in the home group, elsewhere in the bucket with a bit
 * in the home filter, or in the overflow chain.
 */

/* Store an entry: the pointer, then the key that makes readers use it */
static void rbh_set_entry(struct rbh_bucket *bucket, unsigned int g,
			  unsigned int i, u32 key, void *p)
{
	RCU_INIT_POINTER(rbh_slots(bucket, g)[i], p);
	/* Pairs with smp_rmb() in rbh_first() and rbh_group_next() */
	smp_store_release(&rbh_keys(bucket, g)[i], key);
	WRITE_ONCE(bucket->h.count, bucket->h.count + 1);
}

/* No barrier: a reader that just matched the key may return the pointer */
static void rbh_clear_entry(struct rbh_bucket *bucket, unsigned int g,
			    unsigned int i)
{
	u32 *key = &rbh_keys(bucket, g)[i];

	WRITE_ONCE(*key, rbh_free_key(*key));
	WRITE_ONCE(bucket->h.count, bucket->h.count - 1);
}

/* A free entry of group @g, or -1. */
static int rbh_find_free(struct rbh_bucket *bucket, unsigned int g, u32 key)
{
	unsigned int i;

	for (i = 0; i < rbh_group_entries(g); i++)
		if (rbh_entry_free(bucket, g, i, key))
			return i;
	return -1;
}

/* A free entry of any group of @bucket, in *@group and *@index. */
static bool rbh_find_free_any(struct rbh_bucket *bucket, u32 key,
			      unsigned int *group, int *index)
{
	unsigned int g;

	if (bucket->h.count >= RBH_ENTRIES)
		return false;
	for (g = RBH_HEAD_GROUP; g < RBH_GROUPS; g++) {
		*index = rbh_find_free(bucket, g, key);
		if (*index >= 0) {
			*group = g;
			return true;
		}
	}
	return false;
}

static void *rbh_slot(struct rbh_bucket *primary, struct rbh_bucket *bucket,
		      unsigned int g, unsigned int i)
{
	return rcu_dereference_protected(rbh_slots(bucket, g)[i],
					 lockdep_is_held(&primary->h.lock));
}

/* Call before storing the entry, whose release orders this before it */
static void rbh_filter_add(struct rbh_bucket *primary, u32 key,
			   unsigned int dest)
{
	u32 *filter = rbh_filter(primary, rbh_home(key));

	WRITE_ONCE(*filter, *filter | rbh_filter_bit(key, dest));
}

/* Rebuild the filters of the locked @primary, writing each filter once */
static void rbh_refilter(struct rbh_bucket *primary, u32 ref)
{
	u32 filters[RBH_GROUPS] = { };
	struct rbh_bucket *bucket;
	unsigned int g, i;

	lockdep_assert_held(&primary->h.lock);
	rbh_for_each_entry(g, i) {
		u32 key = rbh_keys(primary, g)[i];
		unsigned int home = rbh_home(key);

		if (!rbh_entry_free(primary, g, i, ref) && home != g)
			filters[home] |= rbh_filter_bit(key, (home ^ g) - 1);
	}
	for (bucket = rbh_chain_locked(primary, primary); bucket;
	     bucket = rbh_chain_locked(primary, bucket)) {
		rbh_for_each_entry(g, i) {
			u32 key = rbh_keys(bucket, g)[i];

			if (!rbh_entry_free(bucket, g, i, ref))
				filters[rbh_home(key)] |=
					rbh_filter_bit(key, RBH_CHAIN_DEST);
		}
	}
	for (g = RBH_HEAD_GROUP; g < RBH_GROUPS; g++)
		if (rbh_group_entries(g) && *rbh_filter(primary, g) != filters[g])
			WRITE_ONCE(*rbh_filter(primary, g), filters[g]);
}

/*
 * The first bucket of a chain summarises its keys: each equals chain_ref
 * in the bits chain_diff does not set.  Removals leave it, so it may
 * overstate the differences, which costs only a needless split or copy.
 */
static void rbh_chain_start(struct rbh_bucket *head, u32 key)
{
	head->h.chain_ref = key;
	head->h.chain_diff = 0;
}

/* @head becomes the first bucket of a chain that @from was first of. */
static void rbh_chain_take_summary(struct rbh_bucket *head,
				   const struct rbh_bucket *from)
{
	head->h.chain_ref = from->h.chain_ref;
	head->h.chain_diff = from->h.chain_diff;
}

/* An entry with @key goes into the chain whose first bucket is @head. */
static void rbh_chain_note(struct rbh_bucket *head, u32 key)
{
	head->h.chain_diff |= head->h.chain_ref ^ key;
}

/* The first bit at which @key and @primary's keys may differ, or 32 */
static unsigned int rbh_first_difference(struct rbh_bucket *primary, u32 key)
{
	struct rbh_bucket *head = rbh_chain_locked(primary, primary);
	unsigned int g, i;
	u32 diff = 0;

	rbh_for_each_entry(g, i)
		if (!rbh_entry_free(primary, g, i, key))
			diff |= rbh_keys(primary, g)[i] ^ key;
	if (head)
		diff |= (head->h.chain_ref ^ key) | head->h.chain_diff;

	return 32 - fls(diff);
}

/* Store in @bucket itself, locked or unseen; false if it is full */
static bool rbh_place_in_bucket(struct rbh_bucket *bucket, u32 key, void *p)
{
	unsigned int home = rbh_home(key), s;
	int i;

	if (bucket->h.count >= RBH_ENTRIES)
		return false;
	for (s = 0; s < RBH_GROUPS; s++) {
		i = rbh_find_free(bucket, home ^ s, key);
		if (i < 0)
			continue;
		if (s)
			rbh_filter_add(bucket, key, s - 1);
		rbh_set_entry(bucket, home ^ s, i, key, p);
		return true;
	}
	return false;
}

enum rbh_place {
	RBH_PLACED,
	RBH_NEED_SPLIT,		/* Full, and a split would make room */
	RBH_NEED_CHAIN,		/* Needs another overflow bucket */
};

/* A free entry in @primary's chain, adding *@sparep (cleared) if none */
static struct rbh_bucket *rbh_chain_entry(struct rbh_bucket *primary, u32 key,
					  struct rbh_bucket **sparep,
					  unsigned int *group, int *index)
{
	struct rbh_bucket *bucket = rbh_chain_locked(primary, primary);
	struct rbh_bucket *spare = sparep ? *sparep : NULL;

	for (; bucket; bucket = rbh_chain_locked(primary, bucket))
		if (rbh_find_free_any(bucket, key, group, index))
			return bucket;
	if (!spare)
		return NULL;

	*sparep = NULL;
	bucket = rbh_chain_locked(primary, primary);
	rbh_bucket_init(spare, primary->h.depth, key);
	if (bucket)
		rbh_chain_take_summary(spare, bucket);
	else
		rbh_chain_start(spare, key);
	RCU_INIT_POINTER(spare->h.chain, bucket);
	/* Pairs with rbh_dereference(bucket->h.chain) in rbh_walk_on() */
	rcu_assign_pointer(primary->h.chain, spare);
	rbh_find_free_any(spare, key, group, index);
	return spare;
}

/* Is locked @primary's first overflow bucket (insertions try it first) full? */
static bool rbh_chain_full(struct rbh_bucket *primary)
{
	struct rbh_bucket *bucket = rbh_chain_locked(primary, primary);

	return bucket && bucket->h.count >= RBH_ENTRIES;
}

/* Is the chain full, or did the insertion that asked add a bucket to it? */
static bool rbh_chain_overflowed(struct rbh_bucket *primary)
{
	struct rbh_bucket *bucket = rbh_chain_locked(primary, primary);

	return bucket && (bucket->h.count >= RBH_ENTRIES ||
			  rbh_chain_locked(primary, bucket));
}

/* May the table double for a full bucket (its chain full if @chain_full)? */
static bool rbh_may_grow(const struct rbh *rbh, unsigned int depth,
			 bool chain_full)
{
	unsigned long buckets = READ_ONCE(rbh->rbh_nr_buckets);
	unsigned long limit = chain_full ? RBH_SLOTS_PER_BUCKET_MAX :
					   RBH_SLOTS_PER_BUCKET;

	return depth < RBH_MAX_DEPTH && (2UL << depth) <= limit * buckets;
}

/* Does one of @keys[0 .. @nr) share its top @d (not 0) bits with @key? */
static bool rbh_keys_cover(const u32 *keys, unsigned int nr, u32 key,
			   unsigned int d)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!((READ_ONCE(keys[i]) ^ key) >> (32 - d)))
			return true;
	return false;
}

/*
 * Handed to the work, not yet taken?  A stale answer costs one more
 * hand-over, or one more entry chained.
 */
static bool rbh_handed_over(const struct rbh *rbh, u32 key, unsigned int d)
{
	/* Pairs with smp_store_release() in rbh_resize_later() */
	return rbh_keys_cover(rbh->rbh_split_keys,
			      smp_load_acquire(&rbh->rbh_split_nr), key, d);
}

/*
 * May an insertion of @key into the full, locked @bucket ask for a split?
 * Not if it is already handed to the work.  A hint.
 */
static bool rbh_may_split(const struct rbh *rbh, struct rbh_bucket *bucket,
			  u32 key)
{
	unsigned int depth, d = bucket->h.depth;

	rbh_untag(rbh_table_peek(rbh), &depth);
	if (d < depth && !rcu_access_pointer(bucket->h.chain))
		return true;
	if (rbh_handed_over(rbh, key, d))
		return false;
	return d < depth || rbh_may_grow(rbh, depth, rbh_chain_full(bucket));
}

/*
 * Store in @primary or its chain, unless a split would do and @rbh (NULL
 * when the entry is to be chained) may split @primary.
 */
static enum rbh_place rbh_place(const struct rbh *rbh,
				struct rbh_bucket *primary, u32 key, void *p,
				struct rbh_bucket **spare)
{
	unsigned int d = primary->h.depth, g;
	struct rbh_bucket *bucket;
	int i;

	lockdep_assert_held(&primary->h.lock);
	if (rbh_place_in_bucket(primary, key, p))
		return RBH_PLACED;
	if (rbh && d < 32 && rbh_may_split(rbh, primary, key) &&
	    rbh_first_difference(primary, key) == d)
		return RBH_NEED_SPLIT;

	bucket = rbh_chain_entry(primary, key, spare, &g, &i);
	if (!bucket)
		return RBH_NEED_CHAIN;
	rbh_chain_note(rbh_chain_locked(primary, primary), key);
	rbh_filter_add(primary, key, RBH_CHAIN_DEST);
	rbh_set_entry(bucket, g, i, key, p);
	return RBH_PLACED;
}

/*
 * Splitting buckets and growing the table, under the resize lock: a split
 * under the bucket's lock too, a grow in steps of RBH_RESIZE_STEP slots.
 */

/* Free a primary bucket and its chain after a grace period. */
static void rbh_retire(struct rbh_bucket *primary)
{
	struct rbh_bucket *bucket = primary, *next;

	do {
		next = rbh_chain_locked(primary, bucket);
		kfree_rcu(bucket, h.rcu);
		bucket = next;
	} while (bucket);
}

/* Count the buckets needed to hold @n entries: at least one. */
static unsigned int rbh_buckets_for(unsigned long n)
{
	return n ? DIV_ROUND_UP(n, RBH_ENTRIES) : 1;
}

/* Filling a new bucket and its chain, not yet visible. */
struct rbh_fill {
	struct rbh_bucket *primary;
	struct rbh_bucket *tail;
};

static void rbh_fill_add(struct rbh_fill *fill, struct rbh_spares *spares,
			 u32 key, void *p)
{
	struct rbh_bucket *tail = fill->tail;
	unsigned int g;
	int i;

	if (rbh_place_in_bucket(fill->primary, key, p))
		return;
	if (tail == fill->primary || tail->h.count == RBH_ENTRIES) {
		struct rbh_bucket *bucket = rbh_spare(spares);

		rbh_bucket_init(bucket, fill->primary->h.depth, key);
		if (tail == fill->primary)
			rbh_chain_start(bucket, key);
		RCU_INIT_POINTER(tail->h.chain, bucket);
		fill->tail = bucket;
		tail = bucket;
	}
	rbh_find_free_any(tail, key, &g, &i);
	rbh_chain_note(rcu_dereference_protected(fill->primary->h.chain, 1),
		       key);
	rbh_filter_add(fill->primary, key, RBH_CHAIN_DEST);
	rbh_set_entry(tail, g, i, key, p);
}

/* Copy the entries of @bucket (@old or its chain) into @fill[bit @d] */
static void rbh_fill_from(struct rbh_fill *fill, struct rbh_spares *spares,
			  struct rbh_bucket *old, struct rbh_bucket *bucket,
			  u32 ref, unsigned int d)
{
	unsigned int g, i;

	rbh_for_each_entry(g, i) {
		u32 key = rbh_keys(bucket, g)[i];

		if (!rbh_entry_free(bucket, g, i, ref))
			rbh_fill_add(&fill[rbh_bit(key, d)], spares, key,
				     rbh_slot(old, bucket, g, i));
	}
}

/* Start filling @new[0] and @new[1], the halves of a bucket of depth @d */
static void rbh_fill_start(const struct rbh *rbh, struct rbh_fill *fill,
			   struct rbh_spares *spares, struct rbh_bucket **new,
			   u32 key, unsigned int d)
{
	unsigned int half;

	for (half = 0; half < 2; half++) {
		new[half] = rbh_spare(spares);
		rbh_primary_init(rbh, new[half], d + 1, key);
		fill[half].primary = new[half];
		fill[half].tail = new[half];
	}
}

/* The half holding all of a chain of several buckets, by its summary; or -1 */
static int rbh_chain_half(struct rbh_bucket *old, unsigned int d)
{
	struct rbh_bucket *head = rbh_chain_locked(old, old);

	if (!head || !rbh_chain_locked(old, head) ||
	    rbh_bit(head->h.chain_diff, d))
		return -1;
	return rbh_bit(head->h.chain_ref, d);
}

/* The spares rbh_split() of the locked @old needs */
static unsigned int rbh_split_needs(struct rbh_bucket *old, u32 key)
{
	unsigned int d = old->h.depth, g, i;
	unsigned long n[2] = { 0, 0 };
	bool chain = rbh_chain_half(old, d) < 0;
	struct rbh_bucket *bucket;

	for (bucket = old; bucket;
	     bucket = chain ? rbh_chain_locked(old, bucket) : NULL) {
		rbh_for_each_entry(g, i)
			if (!rbh_entry_free(bucket, g, i, key))
				n[rbh_bit(rbh_keys(bucket, g)[i], d)]++;
	}
	return rbh_buckets_for(n[0]) + rbh_buckets_for(n[1]);
}

/* Publish @new in @old's slots and retire @old (with its chain if @chain) */
static void rbh_split_publish(struct rbh *rbh, struct rbh_bucket *old, u32 key,
			      struct rbh_bucket **new, bool chain)
	__releases(&old->h.lock)
{
	unsigned int depth, d = old->h.depth;
	struct rbh_bucket __rcu **table = rbh_table_locked(rbh, &depth);
	unsigned long first, nr, i;

	first = rbh_index(key, d) << (depth - d);
	nr = 1UL << (depth - d);
	for (i = 0; i < nr; i++)
		rbh_set_slot(rbh, table, first + i, new[i >= nr / 2]);

	WRITE_ONCE(old->h.flags, old->h.flags | RBH_DEAD);
	/* Freed after a grace period, so unlocking it below is safe */
	if (chain)
		rbh_retire(old);
	else
		kfree_rcu(old, h.rcu);
	spin_unlock(&old->h.lock);

	WRITE_ONCE(rbh->rbh_nr_buckets, rbh->rbh_nr_buckets + 1);
	rbh_note_size(rbh);
	if (d + 1 == depth)
		WRITE_ONCE(rbh->rbh_nr_deep, rbh->rbh_nr_deep + 2);
	else if (d + 2 == depth)
		rbh_future_deep_add(rbh, first, 2);
}

/*
 * Split the locked @old into two buckets one bit deeper, with spares from
 * rbh_split_needs().  A chain of several buckets all in one half goes to
 * it whole; any other is copied.  The table must be deeper than @old.
 * Under the resize lock; unlocks @old.
 */
static void rbh_split(struct rbh *rbh, struct rbh_bucket *old, u32 key,
		      struct rbh_spares *spares)
	__releases(&old->h.lock)
{
	unsigned int d = old->h.depth, g;
	int chain_half = rbh_chain_half(old, d);
	struct rbh_bucket *new[2], *to, *bucket;
	struct rbh_fill fill[2];

	rbh_fill_start(rbh, fill, spares, new, key, d);
	for (bucket = old; bucket;
	     bucket = chain_half < 0 ? rbh_chain_locked(old, bucket) : NULL)
		rbh_fill_from(fill, spares, old, bucket, key, d);
	if (chain_half >= 0) {
		/* @to gets @old's chain, and its filter bits */
		to = new[chain_half];
		RCU_INIT_POINTER(to->h.chain, rbh_chain_locked(old, old));
		for (g = RBH_HEAD_GROUP; g < RBH_GROUPS; g++)
			if (rbh_group_entries(g))
				*rbh_filter(to, g) |= *rbh_filter(old, g) &
					RBH_CHAIN_FILTER;
	}
	rbh_split_publish(rbh, old, key, new, chain_half < 0);
}

/*
 * Split the locked @bucket if @spares hold what it needs; unlocks it
 * either way.  Under the resize lock.
 * Return: 0 if it split, else the spares needed.
 */
static unsigned int rbh_split_spared(struct rbh *rbh, struct rbh_bucket *bucket,
				     u32 key, struct rbh_spares *spares)
	__releases(&bucket->h.lock)
{
	unsigned int needed = rbh_split_needs(bucket, key);

	if (spares->nr < needed) {
		spin_unlock(&bucket->h.lock);
		return needed;
	}
	rbh_split(rbh, bucket, key, spares);
	WRITE_ONCE(rbh->rbh_splits, rbh->rbh_splits + 1);
	return 0;
}

/*
 * Before a grow copies the step at slot @i, split the bucket there if it
 * is too shallow for the deeper table (it then covers the step exactly).
 * Return: true if it split (*@needed is 0) or needs *@needed spares.
 */
static bool rbh_split_shallow(struct rbh *rbh, struct rbh_bucket __rcu **table,
			      unsigned int depth, unsigned long i,
			      struct rbh_spares *spares, unsigned int *needed)
{
	struct rbh_bucket *bucket = rbh_slot_locked(rbh, table, i);
	u32 key = (u32)(i << (32 - depth));

	*needed = 0;
	if (bucket->h.depth >= rbh_min_depth(depth + 1))
		return false;
	spin_lock(&bucket->h.lock);
	*needed = rbh_split_spared(rbh, bucket, key, spares);
	return true;
}

/*
 * Fill @new from the table of depth @depth, RBH_RESIZE_STEP slots per hold
 * of the resize lock, then publish it: new[2i] = new[2i + 1] = old[i] to
 * grow, new[i] = old[2i] to halve.  rbh_set_slot() keeps the copied part
 * current.  Only the work item calls it; may sleep between steps.
 * Return: 0 if @new is the table now, -EAGAIN if it cannot be, -ENOMEM if
 * a split's spares could not be had; on error the caller frees @new.
 */
static int rbh_resize_steps(struct rbh *rbh, struct rbh_bucket __rcu **new,
			    unsigned int depth, unsigned int new_depth,
			    struct rbh_spares *spares)
{
	struct rbh_bucket __rcu **old;
	bool grows = new_depth > depth;
	struct rbh_bucket *bucket;
	unsigned long i = 0, end;
	unsigned int now, needed;
	int err = 0;

	spin_lock(&rbh->rbh_resize_lock);
	old = rbh_table_locked(rbh, &now);
	/* A grow is for a bucket as deep as the table: is there one still? */
	if (!old || now != depth || (grows && !rbh->rbh_nr_deep)) {
		spin_unlock(&rbh->rbh_resize_lock);
		return -EAGAIN;
	}
	rbh->rbh_future_table = new;
	rbh->rbh_future_grows = grows;
	rbh->rbh_future_deep = 0;
	rbh->rbh_future_copied = 0;
	for (;;) {
		/* A bucket as deep as the table stops a halving */
		if (!grows && rbh->rbh_nr_deep) {
			rbh->rbh_future_table = NULL;
			spin_unlock(&rbh->rbh_resize_lock);
			return -EAGAIN;
		}
		/* A split is a step of its own: the copy comes next time */
		if (grows &&
		    rbh_split_shallow(rbh, old, depth, i, spares, &needed)) {
			spin_unlock(&rbh->rbh_resize_lock);
			if (needed)
				err = rbh_spares_fill(rbh, spares, needed, 0,
						      GFP_KERNEL | __GFP_NOWARN);
			if (err) {
				spin_lock(&rbh->rbh_resize_lock);
				rbh->rbh_future_table = NULL;
				spin_unlock(&rbh->rbh_resize_lock);
				return err;
			}
			cond_resched();
			spin_lock(&rbh->rbh_resize_lock);
			continue;
		}
		end = min(i + RBH_RESIZE_STEP, 1UL << depth);
		for (; i < end; i++) {
			bucket = rbh_slot_locked(rbh, old, i);
			if (grows) {
				RCU_INIT_POINTER(new[2 * i], bucket);
				RCU_INIT_POINTER(new[2 * i + 1], bucket);
			} else if (!(i & 1)) {
				RCU_INIT_POINTER(new[i / 2], bucket);
				if (bucket->h.depth == new_depth)
					rbh->rbh_future_deep++;
			}
		}
		rbh->rbh_future_copied = end;
		if (end == 1UL << depth)
			break;
		spin_unlock(&rbh->rbh_resize_lock);
		cond_resched();
		spin_lock(&rbh->rbh_resize_lock);
	}
	rbh->rbh_future_table = NULL;
	WRITE_ONCE(rbh->rbh_nr_deep, grows ? 0 : rbh->rbh_future_deep);
	rbh_publish_table(rbh, new, new_depth);
	if (grows)
		WRITE_ONCE(rbh->rbh_grows, rbh->rbh_grows + 1);
	else
		WRITE_ONCE(rbh->rbh_shrinks, rbh->rbh_shrinks + 1);
	spin_unlock(&rbh->rbh_resize_lock);
	kvfree_rcu_mightsleep(old);
	return 0;
}

/* Double the table of @depth if a bucket is that deep; 0 or -ENOMEM */
static int rbh_grow(struct rbh *rbh, unsigned int depth)
{
	struct rbh_spares spares = { };
	struct rbh_bucket __rcu **new;
	unsigned int now;
	int err = 0;

	/* A hint: rbh_resize_steps() checks again under the resize lock */
	if (rbh_untag(rbh_table_peek(rbh), &now) && now == depth &&
	    READ_ONCE(rbh->rbh_nr_deep)) {
		new = rbh_alloc_table(depth + 1, GFP_KERNEL |
				      __GFP_NOWARN);
		err = new ? rbh_resize_steps(rbh, new, depth, depth + 1,
					     &spares) : -ENOMEM;
		if (err)
			kvfree(new);
		if (err == -EAGAIN)
			err = 0;
	}
	rbh_spares_free(&spares);
	return err;
}

/*
 * Insertion.  The fast path stores into a bucket with room; the slow path
 * allocates, splits or chains, and hands other resizes to the work item.
 */

static void rbh_worker(struct work_struct *work);

/* The first table: two slots and two buckets of depth 1. */
static int rbh_first_table(struct rbh *rbh, struct rbh_spares *spares)
{
	struct rbh_bucket __rcu **table = spares->table;
	unsigned int i;

	if (spares->nr < 2 || spares->table_depth != 1)
		return 1;
	for (i = 0; i < 2; i++) {
		struct rbh_bucket *bucket = rbh_spare(spares);

		rbh_primary_init(rbh, bucket, 1, i ? BIT(31) : 0);
		RCU_INIT_POINTER(table[i], bucket);
	}
	spares->table = NULL;
	spares->table_depth = 0;
#ifdef CONFIG_LOCKDEP
	__INIT_WORK_KEY(&rbh->rbh_work, rbh_worker, false,
			&rbh->rbh_lock_keys->work);
#else
	INIT_WORK(&rbh->rbh_work, rbh_worker);
#endif
	WRITE_ONCE(rbh->rbh_nr_buckets, 2);
	WRITE_ONCE(rbh->rbh_nr_deep, 2);
	rbh_publish_table(rbh, table, 1);
	return 0;
}

/* What rbh_make_room_locked() did, or asks of its caller */
enum rbh_room {
	RBH_ROOM_PLACED,	/* the entry is stored */
	RBH_ROOM_RETRY,		/* a bucket split: try the fast path again */
	RBH_ROOM_REFILL,	/* allocate spares, then call again */
	RBH_ROOM_FIRST,		/* allocate the first table, then call again */
	RBH_ROOM_LATER,		/* hand the split to the work, then chain */
};

/*
 * Store (@key, @p) under the resize lock with @spares, splitting a full
 * bucket only if it is shallower than the table, has no chain and @chain
 * is false; others go to the work and chain the entry meanwhile.
 * Return: what to do next; *@arg is the spares needed or the depth.
 */
static enum rbh_room rbh_make_room_locked(struct rbh *rbh, u32 key, void *p,
					  bool chain, struct rbh_spares *spares,
					  unsigned int *arg)
{
	struct rbh_bucket *bucket, *spare;
	enum rbh_place result;
	unsigned int depth;

	if (!rbh_table_peek(rbh))
		return rbh_first_table(rbh, spares) ? RBH_ROOM_FIRST :
						      RBH_ROOM_RETRY;

	bucket = rbh_bucket(rbh, key);
	spin_lock(&bucket->h.lock);
	rbh_table_locked(rbh, &depth);

	spare = spares->nr ? rbh_spare(spares) : NULL;
	result = rbh_place(chain ? NULL : rbh, bucket, key, p, &spare);
	if (spare)
		rbh_spare_put(spares, spare);
	if (result != RBH_NEED_SPLIT) {
		spin_unlock(&bucket->h.lock);
		*arg = 1;
		return result == RBH_PLACED ? RBH_ROOM_PLACED : RBH_ROOM_REFILL;
	}
	/* The table must double first, or a chain be copied: the work's */
	if (bucket->h.depth == depth ||
	    rcu_access_pointer(bucket->h.chain)) {
		spin_unlock(&bucket->h.lock);
		*arg = bucket->h.depth;
		return RBH_ROOM_LATER;
	}
	/* Allocate everything first: an allocation failure changes nothing */
	*arg = rbh_split_spared(rbh, bucket, key, spares);
	return *arg ? RBH_ROOM_REFILL : RBH_ROOM_RETRY;
}

static int rbh_room_fill(const struct rbh *rbh, struct rbh_spares *spares,
			 enum rbh_room room, unsigned int arg, gfp_t gfp)
{
	if (room == RBH_ROOM_FIRST)
		return rbh_spares_fill(rbh, spares, 2, 1, gfp);
	return rbh_spares_fill(rbh, spares, arg, 0, gfp);
}

/* Hand the work a full bucket to split, once per batch */
static void rbh_resize_later(struct rbh *rbh, u32 key, unsigned int d)
{
	unsigned int nr;
	bool queue = false;

	spin_lock(&rbh->rbh_work_lock);
	nr = rbh->rbh_split_nr;
	/* Insertions may race here from rbh_may_split(): hand it over once */
	if (nr < RBH_WORK_KEYS &&
	    !rbh_keys_cover(rbh->rbh_split_keys, nr, key, d)) {
		WRITE_ONCE(rbh->rbh_split_keys[nr], key);
		/* Pairs with smp_load_acquire() in rbh_handed_over() */
		smp_store_release(&rbh->rbh_split_nr, nr + 1);
		queue = true;
	}
	spin_unlock(&rbh->rbh_work_lock);
	if (queue)
		queue_work(system_unbound_wq, &rbh->rbh_work);
}

/* Insertion's slow path: 0 to retry the fast path, 1 if stored, -ENOMEM */
static int rbh_make_room(struct rbh *rbh, u32 key, void *p)
{
	struct rbh_spares spares = { };
	unsigned int arg = 0, later = 0;
	enum rbh_room room;
	bool chain = false;
	int err = 0;

	for (;;) {
		spin_lock(&rbh->rbh_resize_lock);
		rcu_read_lock();
		room = rbh_make_room_locked(rbh, key, p, chain, &spares, &arg);
		rcu_read_unlock();
		spin_unlock(&rbh->rbh_resize_lock);
		if (room == RBH_ROOM_PLACED || room == RBH_ROOM_RETRY)
			break;
		if (room == RBH_ROOM_LATER) {
			later = arg;
			chain = true;
			continue;
		}
		err = rbh_room_fill(rbh, &spares, room, arg, GFP_KERNEL);
		if (err)
			break;
	}
	rbh_spares_free(&spares);
	if (err)
		return err;
	/* Only once stored: a failed insertion changes nothing */
	if (later)
		rbh_resize_later(rbh, key, later);
	return room == RBH_ROOM_PLACED;
}

/* The fast path of insertion: place @key in its bucket if it has room */
static enum rbh_place rbh_try_place(struct rbh *rbh, u32 key, void *p)
{
	struct rbh_bucket *bucket;
	enum rbh_place result;

	rcu_read_lock();
	if (!rbh_lock_bucket(rbh, key, &bucket)) {
		rcu_read_unlock();
		return RBH_NEED_SPLIT;
	}
	result = rbh_place(rbh, bucket, key, p, NULL);
	spin_unlock(&bucket->h.lock);
	rcu_read_unlock();
	return result;
}

static int rbh_add(struct rbh *rbh, u32 hash, void *p)
{
	u32 key = rbh_key(hash);
	int err;

	might_sleep();
	for (;;) {
		if (rbh_try_place(rbh, key, p) == RBH_PLACED)
			return 0;
		err = rbh_make_room(rbh, key, p);
		if (err)
			return err < 0 ? err : 0;
	}
}

/**
 * rbh_insert() - Store a pointer in a rosebush.
 * @rbh: The rosebush.
 * @hash: The hash value of the object @p points to.
 * @p: The pointer to store, which may not be NULL.
 *
 * Lookups find @p once this returns.  A pointer may be stored many times.
 *
 * Context: Process context.  Takes a bucket lock, maybe the resize and
 * work locks, and may queue the work item.  May sleep to allocate
 * memory (GFP_KERNEL), and waits at most for one step of a resize.
 * Return: 0, -EINVAL if @p is NULL, or -ENOMEM (and nothing is stored).
 */
int rbh_insert(struct rbh *rbh, u32 hash, void *p)
{
	if (!p)
		return -EINVAL;
	return rbh_add(rbh, hash, p);
}
EXPORT_SYMBOL_GPL(rbh_insert);

/**
 * rbh_reserve() - Reserve a slot in a rosebush for later use.
 * @rbh: The rosebush.
 * @hash: The hash value that will be used.
 *
 * Fill the slot with rbh_use(), which cannot fail, or give it back with
 * rbh_release().  Lookups skip it until then.
 *
 * Context: As rbh_insert(): process context; may sleep.
 * Return: 0, or -ENOMEM (and nothing is reserved).
 */
int rbh_reserve(struct rbh *rbh, u32 hash)
{
	return rbh_add(rbh, hash, NULL);
}
EXPORT_SYMBOL_GPL(rbh_reserve);

/**
 * rbh_reserve_nofail() - Reserve a slot in a rosebush, without failing.
 * @rbh: The rosebush, which has a table (something was stored or
 *	reserved since it was initialised or destroyed; else it WARNs).
 * @hash: The hash value that will be used.
 *
 * For callers that cannot fail, once rbh_reserve() has.  It never splits
 * or doubles: a full bucket takes the entry into its chain, growing it
 * with __GFP_NOFAIL if need be.  Use the slot as one from rbh_reserve().
 *
 * Context: Process context.  Takes a bucket lock and the resize lock; may
 * sleep.
 */
void rbh_reserve_nofail(struct rbh *rbh, u32 hash)
{
	struct rbh_spares spares = { };
	u32 key = rbh_key(hash);
	unsigned int arg = 0;
	enum rbh_room room;

	might_sleep();
	WARN_ON_ONCE(!rbh_table_peek(rbh));
	if (rbh_try_place(rbh, key, NULL) == RBH_PLACED)
		return;
	for (;;) {
		spin_lock(&rbh->rbh_resize_lock);
		rcu_read_lock();
		room = rbh_make_room_locked(rbh, key, NULL, true, &spares, &arg);
		rcu_read_unlock();
		spin_unlock(&rbh->rbh_resize_lock);
		if (room == RBH_ROOM_PLACED)
			break;
		/* Without a split, it places the entry or asks for memory */
		if (room == RBH_ROOM_REFILL || room == RBH_ROOM_FIRST)
			WARN_ON_ONCE(rbh_room_fill(rbh, &spares, room, arg,
						   GFP_KERNEL |
						   __GFP_NOFAIL));
		else
			WARN_ON_ONCE(room != RBH_ROOM_RETRY);
		cond_resched();
	}
	rbh_spares_free(&spares);
}
EXPORT_SYMBOL_GPL(rbh_reserve_nofail);

struct rbh_pos {
	struct rbh_bucket *bucket;
	unsigned int group;
	unsigned int index;
};

/*
 * Shrinking, by the work item under the resize lock: merging buddies,
 * folding chains back into their bucket, halving the table.
 */

static bool rbh_find_in_group(struct rbh_bucket *bucket, unsigned int g,
			      u32 key, const void *p, struct rbh_pos *pos)
{
	unsigned int i;

	for (i = 0; i < rbh_group_entries(g); i++) {
		if (rbh_keys(bucket, g)[i] != key ||
		    rcu_access_pointer(rbh_slots(bucket, g)[i]) != p)
			continue;
		pos->bucket = bucket;
		pos->group = g;
		pos->index = i;
		return true;
	}
	return false;
}

/* Find (@key, @p) where @key's home filter says; true with it in *@pos */
static bool rbh_find_entry(struct rbh_bucket *primary, u32 key,
			   const void *p, struct rbh_pos *pos)
{
	unsigned int home = rbh_home(key), s, g;
	u32 filter = *rbh_filter(primary, home);
	struct rbh_bucket *bucket;

	if (rbh_find_in_group(primary, home, key, p, pos))
		return true;
	for (s = 1; s < RBH_GROUPS; s++)
		if ((filter & rbh_filter_bit(key, s - 1)) &&
		    rbh_find_in_group(primary, home ^ s, key, p, pos))
			return true;
	if (!(filter & rbh_filter_bit(key, RBH_CHAIN_DEST)))
		return false;
	for (bucket = rbh_chain_locked(primary, primary); bucket;
	     bucket = rbh_chain_locked(primary, bucket))
		for (g = RBH_HEAD_GROUP; g < RBH_GROUPS; g++)
			if (rbh_find_in_group(bucket, g, key, p, pos))
				return true;
	return false;
}

/* Unlink emptied overflow buckets, freed after a grace period */
static void rbh_tidy_chain(struct rbh_bucket *primary)
{
	struct rbh_bucket *prev = primary, *bucket, *next;

	lockdep_assert_held(&primary->h.lock);
	while ((bucket = rbh_chain_locked(primary, prev))) {
		if (bucket->h.count) {
			prev = bucket;
			continue;
		}
		next = rbh_chain_locked(primary, bucket);
		/* The first bucket keeps the chain's summary */
		if (prev == primary && next)
			rbh_chain_take_summary(next, bucket);
		/* Pairs with rbh_dereference() of h.chain in rbh_walk_on() */
		rcu_assign_pointer(prev->h.chain, next);
		kfree_rcu(bucket, h.rcu);
	}
}

/* Might @bucket (locked) merge with its buddy? */
static bool rbh_may_merge(const struct rbh_bucket *bucket)
{
	return bucket->h.depth >= 2 && bucket->h.count <= RBH_MERGE_MAX &&
		!rcu_access_pointer(bucket->h.chain);
}

/*
 * Must a removal leaving @count entries in a bucket of depth @d look at
 * its buddy?  Of two that may merge, the emptier looks, so removals from
 * fuller ones read no buddy; but once the table is too large, the fuller
 * of two buddies as deep as it looks too, as they keep it from halving.
 */
static bool rbh_looks_at_buddy(const struct rbh *rbh, unsigned int d,
			       unsigned int depth, unsigned int count)
{
	if (count <= RBH_MERGE_MAX / 2)
		return true;
	return count <= RBH_MERGE_MAX && READ_ONCE(rbh->rbh_oversized) &&
	       d == depth;
}

/* @bucket's buddy, if a look at @bucket says they may merge; else NULL */
static struct rbh_bucket *rbh_buddy(const struct rbh *rbh,
				    const struct rbh_bucket *bucket, u32 key,
				    unsigned int count)
{
	unsigned int depth, d = bucket->h.depth;
	struct rbh_bucket __rcu **table;

	if (count > RBH_MERGE_MAX || d < 2 ||
	    rcu_access_pointer(bucket->h.chain))
		return NULL;
	table = rbh_untag(rbh_table_word(rbh), &depth);
	if (d > depth || d - 1 < rbh_min_depth(depth) ||
	    !rbh_looks_at_buddy(rbh, d, depth, count))
		return NULL;
	return rcu_dereference(table[(rbh_index(key, d) ^ 1) << (depth - d)]);
}

/* Would @buddy, of depth @d, fit into one bucket with @count more? */
static bool rbh_buddy_fits(const struct rbh_bucket *buddy, unsigned int d,
			   unsigned int count)
{
	return READ_ONCE(buddy->h.depth) == d &&
		!rcu_access_pointer(buddy->h.chain) &&
		count + READ_ONCE(buddy->h.count) <= RBH_MERGE_MAX;
}

/* Might @bucket merge with its buddy?  Lockless, so a merge may wait */
static bool rbh_merge_likely(const struct rbh *rbh, struct rbh_bucket *bucket,
			     u32 key)
{
	struct rbh_bucket *buddy = rbh_buddy(rbh, bucket, key, bucket->h.count);

	return buddy && rbh_buddy_fits(buddy, bucket->h.depth, bucket->h.count);
}

/* Merge @key's bucket with its buddy while they fit, and so on up */
static void rbh_merge_locked(struct rbh *rbh, u32 key)
{
	unsigned int depth, d, g, i;
	struct rbh_bucket __rcu **table = rbh_table_locked(rbh, &depth);
	struct rbh_bucket *lo, *hi;
	unsigned long first, nr;
	u32 ref;

	if (!table)
		return;
	for (;;) {
		lo = rbh_slot_locked(rbh, table, rbh_index(key, depth));
		d = READ_ONCE(lo->h.depth);
		if (d < 2)
			break;
		/* Too shallow: the walk after the next halving merges them */
		if (d - 1 < rbh_min_depth(depth))
			break;
		/* The buddies' ranges; the lower one's lock is taken first */
		first = (rbh_index(key, d) & ~1UL) << (depth - d);
		nr = 1UL << (depth - d);
		lo = rbh_slot_locked(rbh, table, first);
		hi = rbh_slot_locked(rbh, table, first + nr);
		if (lo == hi)
			break;
		spin_lock(&lo->h.lock);
		spin_lock_nested(&hi->h.lock, SINGLE_DEPTH_NESTING);
		if (lo->h.depth != d || hi->h.depth != d ||
		    !rbh_may_merge(lo) || !rbh_may_merge(hi) ||
		    lo->h.count + hi->h.count > RBH_MERGE_MAX) {
			spin_unlock(&hi->h.lock);
			spin_unlock(&lo->h.lock);
			break;
		}

		/*
		 * @lo's free keys have the other top bit (d >= 2).  Readers of
		 * @hi's range find the entries there until its slots change.
		 */
		ref = (u32)(first << (32 - depth));
		rbh_for_each_entry(g, i) {
			if (!rbh_entry_free(hi, g, i, ref))
				rbh_place_in_bucket(lo, rbh_keys(hi, g)[i],
						    rbh_slot(hi, hi, g, i));
		}
		/* Pairs with smp_load_acquire() in rbh_walk() */
		smp_store_release(&lo->h.depth, d - 1);
		for (i = 0; i < nr; i++)
			rbh_set_slot(rbh, table, first + nr + i, lo);
		WRITE_ONCE(hi->h.flags, hi->h.flags | RBH_DEAD);
		spin_unlock(&hi->h.lock);
		spin_unlock(&lo->h.lock);
		kfree_rcu(hi, h.rcu);

		WRITE_ONCE(rbh->rbh_nr_buckets, rbh->rbh_nr_buckets - 1);
		rbh_note_size(rbh);
		if (d == depth)
			WRITE_ONCE(rbh->rbh_nr_deep, rbh->rbh_nr_deep - 2);
		WRITE_ONCE(rbh->rbh_merges, rbh->rbh_merges + 1);
	}
}

/*
 * Has @primary a chain though two thirds of it would hold all its entries?
 * A fold then copies them all into a new bucket: moving them back into
 * @primary could hide them from a reader already past it, in the chain.
 */
static bool rbh_fold_likely(struct rbh_bucket *primary)
{
	struct rbh_bucket *bucket = primary;
	unsigned int total = 0;

	if (!rcu_access_pointer(primary->h.chain))
		return false;
	for (; bucket; bucket = rbh_chain_locked(primary, bucket)) {
		total += bucket->h.count;
		if (total > RBH_MERGE_MAX)
			return false;
	}
	return true;
}

/* Fold @key's bucket into @new if rbh_fold_likely(); return @new if unused */
static struct rbh_bucket *rbh_fold_locked(struct rbh *rbh, u32 key,
					  struct rbh_bucket *new)
{
	unsigned int depth, d, g, i;
	struct rbh_bucket __rcu **table = rbh_table_locked(rbh, &depth);
	struct rbh_bucket *old, *bucket;
	unsigned long first, nr;
	struct rbh_fill fill;

	old = rbh_slot_locked(rbh, table, rbh_index(key, depth));
	spin_lock(&old->h.lock);
	if (!rbh_fold_likely(old)) {
		spin_unlock(&old->h.lock);
		return new;
	}

	d = old->h.depth;
	rbh_primary_init(rbh, new, d, key);
	fill.primary = new;
	fill.tail = new;
	/* At most RBH_MERGE_MAX entries (rbh_fold_likely()): no spare needed */
	for (bucket = old; bucket; bucket = rbh_chain_locked(old, bucket)) {
		rbh_for_each_entry(g, i)
			if (!rbh_entry_free(bucket, g, i, key))
				rbh_fill_add(&fill, NULL, rbh_keys(bucket, g)[i],
					     rbh_slot(old, bucket, g, i));
	}

	first = rbh_index(key, d) << (depth - d);
	nr = 1UL << (depth - d);
	for (i = 0; i < nr; i++)
		rbh_set_slot(rbh, table, first + i, new);
	WRITE_ONCE(old->h.flags, old->h.flags | RBH_DEAD);
	rbh_retire(old);
	spin_unlock(&old->h.lock);
	return NULL;
}

/* Halve the table if no bucket is as deep as it; true if it did */
static bool rbh_halve(struct rbh *rbh)
{
	struct rbh_bucket __rcu **new;
	unsigned int depth;

	if (!rbh_untag(rbh_table_peek(rbh), &depth) || depth < 2 ||
	    READ_ONCE(rbh->rbh_nr_deep))
		return false;
	new = rbh_alloc_table(depth - 1, GFP_KERNEL | __GFP_NOWARN);
	/* A halving splits nothing, so it needs no spares */
	if (new && !rbh_resize_steps(rbh, new, depth, depth - 1, NULL))
		return true;
	kvfree(new);
	return false;
}

/* Is the table deeper than any bucket? */
static bool rbh_halve_wanted(const struct rbh *rbh)
{
	unsigned int depth;

	rbh_untag(rbh_table_peek(rbh), &depth);
	return depth > 1 && !READ_ONCE(rbh->rbh_nr_deep);
}

/* Hand the work @key's bucket of depth @d, or with @d 0 the table to halve */
static void rbh_shrink_later(struct rbh *rbh, u32 key, unsigned int d)
{
	unsigned int nr;
	bool first;

	/*
	 * Once a walk or a halving is due, skip the lock.  The work resets
	 * the count before it looks at buckets, and this removal changed its
	 * bucket before reading the count, with a full barrier between each
	 * pair: so the work sees the removal, or the removal sees the reset.
	 * The flag needs no such pair: after resetting it, the work tests
	 * rbh_halve_wanted(), which no removal changes.  Pairs with smp_mb()
	 * in rbh_worker().
	 */
	smp_mb();
	if (d ? READ_ONCE(rbh->rbh_shrink_nr) > RBH_WORK_KEYS :
		READ_ONCE(rbh->rbh_shrink_halve))
		return;

	spin_lock(&rbh->rbh_work_lock);
	nr = rbh->rbh_shrink_nr;
	first = !nr && !rbh->rbh_shrink_halve;
	if (!d) {
		WRITE_ONCE(rbh->rbh_shrink_halve, true);
	} else if (nr <= RBH_WORK_KEYS) {
		/* A bucket emptied by several removals is handed over once */
		if (!rbh_keys_cover(rbh->rbh_shrink_keys, nr, key, d)) {
			if (nr < RBH_WORK_KEYS)
				rbh->rbh_shrink_keys[nr] = key;
			WRITE_ONCE(rbh->rbh_shrink_nr, nr + 1);
		}
	}
	spin_unlock(&rbh->rbh_work_lock);
	if (first)
		queue_work(system_unbound_wq, &rbh->rbh_work);
}

/* Hand the work what a removal left to fold, merge or halve */
static void rbh_removed(struct rbh *rbh, u32 key, unsigned int d,
			bool fold, bool merge)
{
	/* Tell lockdep that every removal may take the work lock */
	might_lock(&rbh->rbh_work_lock);
	if (fold || merge)
		rbh_shrink_later(rbh, key, d);
	else if (rbh_halve_wanted(rbh))
		rbh_shrink_later(rbh, key, 0);
}

/* Fold (into *@spare, if any) and merge the bucket holding @key */
static void rbh_shrink_locked(struct rbh *rbh, u32 key,
			      struct rbh_bucket **spare)
{
	if (*spare)
		*spare = rbh_fold_locked(rbh, key, *spare);
	rbh_merge_locked(rbh, key);
}

/*
 * The work item, the only thread that resizes: splits and doublings that
 * insertions hand over, then merges, folds and halvings.
 */

/* Might the walk fold or merge @bucket?  A lockless hint */
static bool rbh_walk_wanted(struct rbh_bucket __rcu **table,
			    unsigned int depth, struct rbh_bucket *bucket,
			    unsigned int d, u32 pos)
{
	struct rbh_bucket *buddy;
	unsigned int count;

	if (rcu_access_pointer(bucket->h.chain))
		return true;
	count = READ_ONCE(bucket->h.count);
	if (d < 2 || d - 1 < rbh_min_depth(depth) || count > RBH_MERGE_MAX)
		return false;
	buddy = rcu_dereference(table[(rbh_index(pos, d) ^ 1) << (depth - d)]);
	return rbh_buddy_fits(buddy, d, count);
}

/* What rbh_split_deferred() did, or needs */
enum rbh_deferred {
	RBH_DEFERRED_DONE,	/* no split is needed, or none can be made */
	RBH_DEFERRED_SPLIT,	/* split at depth *@arg: look at both halves */
	RBH_DEFERRED_GROW,	/* double the table, of depth *@arg, first */
	RBH_DEFERRED_REFILL,	/* allocate *@arg spares first */
};

/* Split @key's bucket for the work if still needed; @asked by an insertion */
static enum rbh_deferred rbh_split_deferred(struct rbh *rbh, u32 key,
					    bool asked,
					    struct rbh_spares *spares,
					    unsigned int *arg)
{
	enum rbh_deferred ret = RBH_DEFERRED_DONE;
	struct rbh_bucket *bucket;
	unsigned int depth, d, needed;

	spin_lock(&rbh->rbh_resize_lock);
	rcu_read_lock();
	bucket = rbh_bucket(rbh, key);
	spin_lock(&bucket->h.lock);
	rbh_table_locked(rbh, &depth);
	d = bucket->h.depth;
	if ((bucket->h.count < RBH_ENTRIES &&
	     !rcu_access_pointer(bucket->h.chain)) ||
	    d == 32 || rbh_first_difference(bucket, key) != d) {
		goto unlock;
	} else if (d == depth) {
		/*
		 * Only a bucket an insertion asked for gets rbh_may_grow()'s
		 * higher limit, so that crowded keys do not inflate the table.
		 */
		if (!rbh_may_grow(rbh, depth,
				  asked && rbh_chain_overflowed(bucket)))
			goto unlock;
		*arg = depth;
		ret = RBH_DEFERRED_GROW;
	} else {
		/* Which unlocks it */
		needed = rbh_split_spared(rbh, bucket, key, spares);
		*arg = needed ? needed : d;
		ret = needed ? RBH_DEFERRED_REFILL : RBH_DEFERRED_SPLIT;
		goto out;
	}
unlock:
	spin_unlock(&bucket->h.lock);
out:
	rcu_read_unlock();
	spin_unlock(&rbh->rbh_resize_lock);
	return ret;
}

/* Rounds per level of a deferred split: spares, a doubling, the split */
#define RBH_DEFERRED_ROUNDS	(3 * RBH_MAX_DEPTH)

/*
 * For the work: split the buckets holding @keys, doubling the table first
 * when needed, then both halves of each split and theirs, for up to
 * RBH_DEFERRED_ROUNDS rounds.  Sets *@grew once rbh_grow() succeeds: the
 * run must not halve the table, as the bucket that asked may not split.
 * Return: 0, or -ENOMEM, leaving the rest to later insertions.
 */
static int rbh_resize_deferred(struct rbh *rbh, const u32 *keys,
			       unsigned int nr, bool asked, bool *grew)
{
	struct rbh_spares spares = { };
	/* Other halves still to look at */
	u32 halves[32], key;
	unsigned int i, n, arg, tries;
	enum rbh_deferred todo;
	bool split;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		key = keys[i];
		n = 0;
		tries = 0;
		split = false;
		for (;;) {
			err = 0;
			todo = RBH_DEFERRED_DONE;
			if (tries++ < RBH_DEFERRED_ROUNDS)
				todo = rbh_split_deferred(rbh, key,
							  asked && !split,
							  &spares, &arg);
			if (todo == RBH_DEFERRED_DONE) {
				if (!n)
					break;
				key = halves[--n];
				tries = 0;
				continue;
			}
			if (todo == RBH_DEFERRED_GROW) {
				err = rbh_grow(rbh, arg);
				if (!err)
					*grew = true;
			}
			/* A split at depth d divides keys at bit 31 - d */
			if (todo == RBH_DEFERRED_SPLIT)
				split = true;
			if (todo == RBH_DEFERRED_SPLIT && n < ARRAY_SIZE(halves))
				halves[n++] = key ^ BIT(31 - arg);
			if (todo == RBH_DEFERRED_REFILL)
				err = rbh_spares_fill(rbh, &spares, arg, 0,
						      GFP_KERNEL | __GFP_NOWARN);
			if (err)
				break;
			cond_resched();
		}
	}
	rbh_spares_free(&spares);
	return err;
}

/*
 * Visit every primary bucket, by key, not by slot, as insertions split
 * buckets meanwhile: a bucket skipped or seen twice delays a merge or a
 * split until the next walk.  With @grew, after a doubling: split every
 * chained bucket shallower than the table, which insertions chained while
 * it was too small, setting *@grew if the table doubles again.  Without:
 * fold and merge wherever possible, taking the resize lock only where
 * rbh_walk_wanted().  Inline, so that no copy tests @grew per bucket.
 * Return: 0, or -ENOMEM if a split's allocation failed.
 */
static __always_inline int rbh_walk_table(struct rbh *rbh, bool *grew)
{
	struct rbh_bucket *spare = NULL, *bucket;
	struct rbh_bucket __rcu **table;
	unsigned int depth, d, n = 0;
	u64 pos = 0;
	int err = 0;
	bool chain;

	rcu_read_lock();
	while (!err && pos < BIT_ULL(32)) {
		u32 key = pos;

		if (++n % RBH_WALK_BATCH == 0) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		table = rbh_untag(rbh_table_word(rbh), &depth);
		if (!table)
			break;
		bucket = rcu_dereference(table[rbh_index(key, depth)]);
		d = READ_ONCE(bucket->h.depth);
		/* No bucket is deeper than its table: buckets never deepen */
		if (WARN_ON_ONCE(d > depth))
			break;
		if (grew ? d == depth || !rcu_access_pointer(bucket->h.chain) :
			   !rbh_walk_wanted(table, depth, bucket, d, key)) {
			pos = round_up(pos + 1, BIT_ULL(32 - d));
			continue;
		}
		chain = rcu_access_pointer(bucket->h.chain);
		rcu_read_unlock();
		if (grew) {
			/* Which splits both halves, and theirs */
			err = rbh_resize_deferred(rbh, &key, 1, false, grew);
			pos = round_up(pos + 1, BIT_ULL(32 - d));
			rcu_read_lock();
			continue;
		}
		if (!spare && chain)
			spare = rbh_alloc_bucket(GFP_KERNEL | __GFP_NOWARN |
						 rbh->rbh_gfp);
		rcu_read_lock();
		spin_lock(&rbh->rbh_resize_lock);
		rbh_shrink_locked(rbh, key, &spare);
		/* Past @pos's bucket, which merges may have widened */
		table = rbh_table_locked(rbh, &depth);
		bucket = rbh_slot_locked(rbh, table, rbh_index(pos, depth));
		pos = round_up(pos + 1, BIT_ULL(32 - bucket->h.depth));
		spin_unlock(&rbh->rbh_resize_lock);
	}
	rcu_read_unlock();
	kfree(spare);
	return err;
}

/*
 * The work item, the only resizer (a work item never runs twice at
 * once): splits and doublings that insertions handed over, a walk after a
 * doubling, folds and merges that removals handed over, then halvings.
 * Halvings lower the range floor, so each run of them is followed by a
 * walk, as rbh_walk_due() may ask too.
 */
static void rbh_worker(struct work_struct *work)
{
	struct rbh *rbh = container_of(work, struct rbh, rbh_work);
	u32 keys[RBH_WORK_KEYS], split_keys[RBH_WORK_KEYS];
	unsigned int i, nr, split_nr;
	struct rbh_bucket *spare, *bucket;
	bool grew = false, again, chain;
	int err = 0;

	spin_lock(&rbh->rbh_work_lock);
	nr = rbh->rbh_shrink_nr;
	memcpy(keys, rbh->rbh_shrink_keys, sizeof(keys));
	WRITE_ONCE(rbh->rbh_shrink_nr, 0);
	WRITE_ONCE(rbh->rbh_shrink_halve, false);
	split_nr = rbh->rbh_split_nr;
	memcpy(split_keys, rbh->rbh_split_keys, sizeof(split_keys));
	WRITE_ONCE(rbh->rbh_split_nr, 0);
	spin_unlock(&rbh->rbh_work_lock);
	/* Pairs with smp_mb() in rbh_shrink_later() */
	smp_mb();

	if (split_nr)
		err = rbh_resize_deferred(rbh, split_keys, split_nr, true,
					  &grew);
	/* A walk that doubles the table again walks it again */
	again = grew;
	while (again && !err) {
		again = false;
		err = rbh_walk_table(rbh, &again);
		cond_resched();
	}

	if (nr > RBH_WORK_KEYS) {
		rbh_walk_table(rbh, NULL);
	} else {
		for (i = 0; i < nr; i++) {
			rcu_read_lock();
			bucket = rbh_bucket(rbh, keys[i]);
			chain = bucket && rcu_access_pointer(bucket->h.chain);
			rcu_read_unlock();
			spare = chain ? rbh_alloc_bucket(GFP_KERNEL |
							 __GFP_NOWARN |
							 rbh->rbh_gfp) : NULL;
			spin_lock(&rbh->rbh_resize_lock);
			rcu_read_lock();
			rbh_shrink_locked(rbh, keys[i], &spare);
			rcu_read_unlock();
			spin_unlock(&rbh->rbh_resize_lock);
			kfree(spare);
			cond_resched();
		}
	}
	for (;;) {
		bool halved = false;

		/* Not after a doubling: see rbh_resize_deferred() */
		while (!grew && rbh_halve_wanted(rbh) && rbh_halve(rbh)) {
			halved = true;
			cond_resched();
		}
		if (!halved && !rbh_walk_due(rbh))
			break;
		rbh_walk_table(rbh, NULL);
	}
}

/*
 * Removal.  A removal takes its bucket's lock only, and hands the merge,
 * fold or halving it makes possible to the work item.
 */

/* Does an entry in @dest of @key's home need @key's filter bit there? */
static bool rbh_dest_needs(struct rbh_bucket *primary, u32 key,
			   unsigned int dest)
{
	unsigned int home = rbh_home(key), g, i;
	u32 bit = rbh_filter_bit(key, dest);
	struct rbh_bucket *bucket;

	if (dest != RBH_CHAIN_DEST) {
		g = home ^ (dest + 1);
		for (i = 0; i < rbh_group_entries(g); i++) {
			u32 k = rbh_keys(primary, g)[i];

			if (!rbh_entry_free(primary, g, i, key) &&
			    rbh_home(k) == home && rbh_filter_bit(k, dest) == bit)
				return true;
		}
		return false;
	}
	for (bucket = rbh_chain_locked(primary, primary); bucket;
	     bucket = rbh_chain_locked(primary, bucket)) {
		rbh_for_each_entry(g, i) {
			u32 k = rbh_keys(bucket, g)[i];

			if (!rbh_entry_free(bucket, g, i, key) &&
			    rbh_home(k) == home && rbh_filter_bit(k, dest) == bit)
				return true;
		}
	}
	return false;
}

/* Free the entry at @pos; with @tidy, drop an emptied bucket, a stale bit */
static void rbh_remove_entry(struct rbh_bucket *primary,
			     const struct rbh_pos *pos, u32 key, bool tidy)
{
	unsigned int home = rbh_home(key), dest;
	u32 *filter;

	rbh_clear_entry(pos->bucket, pos->group, pos->index);
	if (!tidy)
		return;
	if (pos->bucket != primary) {
		if (!pos->bucket->h.count)
			rbh_tidy_chain(primary);
		dest = RBH_CHAIN_DEST;
	} else if (pos->group != home) {
		dest = (pos->group ^ home) - 1;
	} else {
		return;
	}
	if (rbh_dest_needs(primary, key, dest))
		return;
	filter = rbh_filter(primary, home);
	WRITE_ONCE(*filter, *filter & ~rbh_filter_bit(key, dest));
}

/* Does a removal from @primary's home group need no buddy look or fold? */
static bool rbh_remove_ends_home(const struct rbh *rbh,
				 const struct rbh_bucket *primary)
{
	unsigned int count = primary->h.count - 1, depth;

	if (count <= RBH_MERGE_MAX / 2)
		return false;
	if (count <= RBH_MERGE_MAX && READ_ONCE(rbh->rbh_oversized)) {
		rbh_untag(rbh_table_word(rbh), &depth);
		if (rbh_looks_at_buddy(rbh, primary->h.depth, depth, count))
			return false;
	}
	return !rcu_access_pointer(primary->h.chain);
}

/**
 * rbh_remove() - Remove a pointer from a rosebush.
 * @rbh: The rosebush.
 * @hash: The hash value the pointer was stored under.
 * @p: The pointer to remove, or NULL to release a reservation.
 *
 * Remove one copy of @p.  Lookups already running may still return it:
 * free what it points to only after an RCU grace period.
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Takes a bucket lock, then maybe the work lock, and may queue the
 * work item.  Never takes the resize lock, allocates or sleeps.
 * Return: 0 on success, -ENOENT if @p is not stored under @hash.
 */
int rbh_remove(struct rbh *rbh, u32 hash, void *p)
{
	u32 key = rbh_key(hash), *keys;
	struct rbh_bucket *primary, *buddy;
	unsigned int d, home, i;
	struct rbh_pos pos;
	bool fold, merge;

	rcu_read_lock();
	if (!rbh_lock_bucket(rbh, key, &primary)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	/* Most removals clear an entry of the home group and are done */
	home = rbh_home(key);
	keys = rbh_home_keys(primary, home);
	for (i = 0; i < RBH_GROUP_MAX; i++) {
		if (keys[i] != key ||
		    rcu_access_pointer(rbh_home_slots(primary, home)[i]) != p)
			continue;
		if (!rbh_remove_ends_home(rbh, primary))
			break;
		rbh_clear_entry(primary, home, i);
		spin_unlock(&primary->h.lock);
		rcu_read_unlock();
		rbh_removed(rbh, key, 0, false, false);
		return 0;
	}
	/* If the removal will look at the buddy, fetch it meanwhile */
	buddy = rbh_buddy(rbh, primary, key, primary->h.count - 1);
	if (buddy)
		prefetch(&buddy->h.depth);
	if (!rbh_find_entry(primary, key, p, &pos)) {
		spin_unlock(&primary->h.lock);
		rcu_read_unlock();
		return -ENOENT;
	}
	rbh_remove_entry(primary, &pos, key, true);
	fold = rbh_fold_likely(primary);
	merge = rbh_merge_likely(rbh, primary, key);
	d = primary->h.depth;
	spin_unlock(&primary->h.lock);
	rcu_read_unlock();

	rbh_removed(rbh, key, d, fold, merge);
	return 0;
}
EXPORT_SYMBOL_GPL(rbh_remove);

/**
 * rbh_use() - Use a reserved slot in a rosebush.
 * @rbh: The rosebush.
 * @hash: The hash value that was reserved.
 * @p: The pointer to store, which may not be NULL.
 *
 * Fill a slot that rbh_reserve() reserved for @hash.  Allocates nothing.
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Takes a bucket lock.  Does not sleep.
 * Return: 0 on success, -EINVAL if @p is NULL, -ENOENT if no slot was
 * reserved for @hash.
 */
int rbh_use(struct rbh *rbh, u32 hash, void *p)
{
	u32 key = rbh_key(hash);
	struct rbh_bucket *primary;
	struct rbh_pos pos;
	int err = -ENOENT;

	if (!p)
		return -EINVAL;
	rcu_read_lock();
	if (!rbh_lock_bucket(rbh, key, &primary)) {
		rcu_read_unlock();
		return -ENOENT;
	}
	if (rbh_find_entry(primary, key, NULL, &pos)) {
		/* Pairs with rbh_dereference() of the slot in a walk */
		rcu_assign_pointer(rbh_slots(pos.bucket, pos.group)[pos.index], p);
		err = 0;
	}
	spin_unlock(&primary->h.lock);
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_GPL(rbh_use);

/*
 * Locked iteration: one hash's bucket locked, for removing, replacing and
 * filling reservations while walking.
 */

/* With no table, take the resize lock; true if there is still none */
static bool __rbh_lock_tableless(struct rbh *rbh)
{
	spin_lock(&rbh->rbh_resize_lock);
	if (!rbh_table_peek(rbh)) {
		/* Held for the caller: see rbh_lock_tableless() */
		__release(&rbh->rbh_resize_lock);
		return true;
	}
	spin_unlock(&rbh->rbh_resize_lock);
	return false;
}

#define rbh_lock_tableless(rbh)						\
	__cond_lock(&(rbh)->rbh_resize_lock, __rbh_lock_tableless(rbh))

/**
 * rbh_iter_lock() - Lock the bucket holding the iterator's hash.
 * @rbhi: The iterator, from RBH_ITER().
 *
 * Until rbh_iter_unlock(), nothing is stored under the hash or removed
 * except through this iterator, and rbh_next() returns every pointer
 * stored under it (and maybe others).  Meanwhile call nothing on this
 * rosebush, or on one initialised at the same place (lockdep), but
 * rbh_next() and rbh_iter_*() on this iterator.
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Takes the RCU read lock and a bucket lock (or, without a table, the
 * resize lock).  Does not sleep.
 */
void rbh_iter_lock(struct rbh_iter *rbhi)
	__acquires(RCU) __acquires(rbhi)
{
	struct rbh *rbh = rbhi->rbh;

	rcu_read_lock();
	rbhi->key = rbh_key(rbhi->hash);
	rbhi->no_table = false;
	for (;;) {
		if (rbh_lock_bucket(rbh, rbhi->key, &rbhi->locked))
			break;
		if (rbh_lock_tableless(rbh)) {
			rbhi->no_table = true;
			break;
		}
	}
	rbhi->bucket = rbhi->locked;
	rbhi->step = rbhi->locked ? 0 : RBH_ITER_DONE;
	rbhi->index = 0;
	rbhi->removed = false;
}
EXPORT_SYMBOL_GPL(rbh_iter_lock);

/* Find the entry of @p, just returned by the walk; WARN and false if not */
static bool rbh_iter_pos(struct rbh_iter *rbhi, void *p, struct rbh_pos *pos)
{
	void *stored;

	pos->bucket = rbhi->bucket;
	if (WARN_ON_ONCE(!rbhi->locked || !pos->bucket || !rbhi->index ||
			 rbhi->step >= RBH_STEP_CHAIN + RBH_GROUPS))
		return false;
	lockdep_assert_held(&rbhi->locked->h.lock);
	pos->group = rbhi->step >= RBH_STEP_CHAIN ?
		     rbhi->step - RBH_STEP_CHAIN :
		     rbh_home(rbhi->key) ^ rbhi->step;
	pos->index = rbhi->index - 1;
	stored = rcu_access_pointer(rbh_slots(pos->bucket, pos->group)[pos->index]);
	return !WARN_ON_ONCE(rbh_keys(pos->bucket, pos->group)[pos->index] != rbhi->key ||
			     stored != p || !p);
}

/**
 * rbh_iter_remove() - Remove the pointer the iterator just returned.
 * @rbhi: The iterator, locked with rbh_iter_lock().
 * @p: The pointer rbh_next() just returned.
 *
 * Context: Between rbh_iter_lock() and rbh_iter_unlock().  Does not sleep.
 * Return: true if @p was removed; false, with a warning, if @p is not
 * what rbh_next() just returned (a caller bug): nothing is then removed.
 */
bool rbh_iter_remove(struct rbh_iter *rbhi, void *p)
{
	struct rbh_pos pos;

	if (!rbh_iter_pos(rbhi, p, &pos))
		return false;
	/* The iterator may stand in an emptied chain bucket: tidy later */
	rbh_remove_entry(rbhi->locked, &pos, rbhi->key, false);
	rbhi->removed = true;
	return true;
}
EXPORT_SYMBOL_GPL(rbh_iter_remove);

/**
 * rbh_iter_replace() - Replace the pointer the iterator just returned.
 * @rbhi: The iterator, locked with rbh_iter_lock().
 * @p: The pointer rbh_next() just returned.
 * @new: The pointer to store under the same hash in its place; not NULL.
 *
 * A concurrent lookup finds @p or @new, never neither, and nothing is
 * allocated.  The walk goes on after the entry, without returning @new.
 *
 * Context: Between rbh_iter_lock() and rbh_iter_unlock().  Does not sleep.
 * Return: true if @new replaced @p; false, with a warning, if @new is
 * NULL or @p is not what rbh_next() just returned (caller bugs).
 */
bool rbh_iter_replace(struct rbh_iter *rbhi, void *p, void *new)
{
	struct rbh_pos pos;

	if (WARN_ON_ONCE(!new) || !rbh_iter_pos(rbhi, p, &pos))
		return false;
	/* Pairs with rbh_dereference() of the slot in a walk */
	rcu_assign_pointer(rbh_slots(pos.bucket, pos.group)[pos.index], new);
	return true;
}
EXPORT_SYMBOL_GPL(rbh_iter_replace);

/**
 * rbh_iter_use() - Use a slot reserved under the iterator's hash.
 * @rbhi: The iterator, locked with rbh_iter_lock().
 * @p: The pointer to store, which may not be NULL.
 *
 * rbh_use() under the iterator's lock, so that a caller can reserve, lock,
 * look for a clashing entry and store @p only if there is none.  The walk
 * may or may not return @p.
 *
 * Context: Between rbh_iter_lock() and rbh_iter_unlock().  Does not sleep.
 * Return: 0 on success, -EINVAL if @p is NULL, -ENOENT if no slot is
 * reserved for the hash.
 */
int rbh_iter_use(struct rbh_iter *rbhi, void *p)
{
	struct rbh_pos pos;

	if (!p)
		return -EINVAL;
	/* A rosebush with no table has no reservation */
	if (!rbhi->locked)
		return -ENOENT;
	lockdep_assert_held(&rbhi->locked->h.lock);
	if (!rbh_find_entry(rbhi->locked, rbhi->key, NULL, &pos))
		return -ENOENT;
	/* Pairs with rbh_dereference() of the slot in a walk */
	rcu_assign_pointer(rbh_slots(pos.bucket, pos.group)[pos.index], p);
	return 0;
}
EXPORT_SYMBOL_GPL(rbh_iter_use);

/**
 * rbh_iter_unlock() - Unlock the iterator's bucket.
 * @rbhi: The iterator, locked with rbh_iter_lock().
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Drops what rbh_iter_lock() took; after a removal, may then do what
 * rbh_remove() does.  Does not sleep.
 */
void rbh_iter_unlock(struct rbh_iter *rbhi)
	__releases(RCU) __releases(rbhi)
{
	struct rbh_bucket *primary = rbhi->locked;
	bool fold = false, merge = false;
	unsigned int d = 0;

	if (primary) {
		if (rbhi->removed) {
			d = primary->h.depth;
			rbh_tidy_chain(primary);
			rbh_refilter(primary, rbhi->key);
			fold = rbh_fold_likely(primary);
			merge = rbh_merge_likely(rbhi->rbh, primary,
						 rbhi->key);
		}
		spin_unlock(&primary->h.lock);
	} else if (!WARN_ON_ONCE(!rbhi->no_table)) {
		spin_unlock(&rbhi->rbh->rbh_resize_lock);
		rbhi->no_table = false;
	} else {
		/* Not locked (a caller bug): for sparse, nothing to release */
		__release(rbhi);
	}
	rcu_read_unlock();
	rbhi->locked = NULL;
	rbhi->bucket = NULL;
	rbhi->step = RBH_ITER_DONE;
	if (rbhi->removed)
		rbh_removed(rbhi->rbh, rbhi->key, d, fold, merge);
}
EXPORT_SYMBOL_GPL(rbh_iter_unlock);

/* Initialisation, emptiness, statistics and destruction */

#define RBH_VALID_FLAGS	(RBH_ACCOUNT | RBH_RECLAIMABLE)

/**
 * __rbh_init() - Initialise a rosebush, its locks in the classes given.
 * @rbh: The rosebush.
 * @flags: Any of &enum rbh_flags, or 0.
 * @keys: The lockdep classes of its locks, in static storage.
 *
 * For rbh_init() and rbh_init_flags(), and bindings with their own keys.
 *
 * Context: Any context.
 */
void __rbh_init(struct rbh *rbh, unsigned int flags,
		struct rbh_lock_keys *keys)
{
	/* rbh_home_keys() and rbh_keys() must agree on the home groups */
	BUILD_BUG_ON(rbh_keys_offset(RBH_HEAD_GROUP + 1) !=
		     (RBH_HEAD_GROUP + 1) * RBH_GROUP_SIZE + RBH_WHOLE_KEYS);
	BUILD_BUG_ON(rbh_slots_offset(RBH_HEAD_GROUP + 1) !=
		     (RBH_HEAD_GROUP + 1) * RBH_GROUP_SIZE + RBH_WHOLE_SLOTS);
	BUILD_BUG_ON(rbh_keys_offset(RBH_GROUPS - 1) !=
		     (RBH_GROUPS - 1) * RBH_GROUP_SIZE + RBH_WHOLE_KEYS);
	BUILD_BUG_ON(rbh_slots_offset(RBH_GROUPS - 1) !=
		     (RBH_GROUPS - 1) * RBH_GROUP_SIZE + RBH_WHOLE_SLOTS);

	memset(rbh, 0, sizeof(*rbh));
	RCU_INIT_POINTER(rbh->rbh_table, RBH_NO_TABLE);
	WARN_ON_ONCE(flags & ~RBH_VALID_FLAGS);
	rbh->rbh_flags = flags & RBH_VALID_FLAGS;
	if (flags & RBH_ACCOUNT)
		rbh->rbh_gfp |= __GFP_ACCOUNT;
	if (flags & RBH_RECLAIMABLE)
		rbh->rbh_gfp |= __GFP_RECLAIMABLE;
	spin_lock_init(&rbh->rbh_resize_lock);
	spin_lock_init(&rbh->rbh_work_lock);
#ifdef CONFIG_LOCKDEP
	lockdep_set_class(&rbh->rbh_resize_lock, &keys->resize_lock);
	lockdep_set_class(&rbh->rbh_work_lock, &keys->work_lock);
	rbh->rbh_lock_keys = keys;
#endif
}
EXPORT_SYMBOL_GPL(__rbh_init);

/* Make @rbh empty again, with the same flags and lock classes */
static void rbh_reinit(struct rbh *rbh)
{
	struct rbh_lock_keys *keys = NULL;

#ifdef CONFIG_LOCKDEP
	keys = rbh->rbh_lock_keys;
#endif
	__rbh_init(rbh, rbh->rbh_flags, keys);
}

/*
 * Slot @i's bucket, under the RCU read lock; *@ref is the slot's first
 * key, *@next the slot after the bucket's range.  The depth is read before
 * the bucket's count and keys: seeing a merge's lower depth, the walk sees
 * the entries it moved.  (The work's walk of the table needs no acquire:
 * only the work merges.)
 */
static struct rbh_bucket *rbh_walk(struct rbh_bucket __rcu **table,
				   unsigned int depth, unsigned long i,
				   u32 *ref, unsigned long *next)
{
	struct rbh_bucket *bucket = rcu_dereference(table[i]);
	/* Pairs with smp_store_release() in rbh_merge_locked() */
	unsigned int d = smp_load_acquire(&bucket->h.depth);

	*ref = (u32)(i << (32 - depth));
	/* A merge may have widened it: step to the end of its aligned range */
	*next = (i | ((1UL << (depth - min(d, depth))) - 1)) + 1;
	return bucket;
}

/**
 * rbh_empty() - Is the rosebush empty?
 * @rbh: The rosebush.
 *
 * The answer may be stale if @rbh is changing.  Walks the whole table.
 *
 * Context: Any context.  Takes the RCU read lock.
 * Return: true if nothing is stored and nothing is reserved in @rbh.
 */
bool rbh_empty(const struct rbh *rbh)
{
	struct rbh_bucket __rcu **table;
	struct rbh_bucket *primary, *bucket;
	unsigned long i, next;
	unsigned int depth;
	bool empty = true;
	u32 ref;

	rcu_read_lock();
	table = rbh_untag(rbh_table_word(rbh), &depth);
	for (i = 0; table && empty && i < (1UL << depth); i = next) {
		primary = rbh_walk(table, depth, i, &ref, &next);
		for (bucket = primary; bucket;
		     bucket = rcu_dereference(bucket->h.chain))
			if (READ_ONCE(bucket->h.count))
				empty = false;
	}
	rcu_read_unlock();
	return empty;
}
EXPORT_SYMBOL_GPL(rbh_empty);

/* Count @bucket into @stats (spills too if @primary); return entries used */
static unsigned int rbh_stats_bucket(struct rbh_bucket *bucket, u32 ref,
				     bool primary, struct rbh_stats *stats)
{
	unsigned int g, i, used = 0;

	stats->bytes += RBH_BUCKET_SIZE;
	rbh_for_each_entry(g, i) {
		u32 key = READ_ONCE(rbh_keys(bucket, g)[i]);

		if ((key ^ ref) & BIT(31))
			continue;
		used++;
		if (primary && rbh_home(key) != g)
			stats->spilled++;
		if (rcu_access_pointer(rbh_slots(bucket, g)[i]))
			stats->entries++;
		else
			stats->reserved++;
	}
	return used;
}

/**
 * rbh_stats() - Describe the shape of a rosebush.
 * @rbh: The rosebush.
 * @stats: Where to store the description.
 *
 * A snapshot, maybe inconsistent: the walk lets the scheduler and resizes
 * in between batches of buckets, and goes on in the current table.
 *
 * Context: Process context.  May sleep.
 */
void rbh_stats(struct rbh *rbh, struct rbh_stats *stats)
{
	struct rbh_bucket __rcu **table;
	struct rbh_bucket *primary, *bucket;
	unsigned int depth, used;
	unsigned long i, next;
	u64 pos;
	u32 ref;

	memset(stats, 0, sizeof(*stats));
	stats->bucket_capacity = RBH_ENTRIES;
	stats->grows = READ_ONCE(rbh->rbh_grows);
	stats->shrinks = READ_ONCE(rbh->rbh_shrinks);
	stats->splits = READ_ONCE(rbh->rbh_splits);
	stats->merges = READ_ONCE(rbh->rbh_merges);

	might_sleep();
	rcu_read_lock();
	for (pos = 0; pos < BIT_ULL(32); pos = (u64)next << (32 - depth)) {
		if (stats->buckets && !(stats->buckets % RBH_WALK_BATCH)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		table = rbh_untag(rbh_table_word(rbh), &depth);
		if (!table)
			break;
		stats->table_slots = 1UL << depth;
		i = rbh_index(pos, depth);
		primary = rbh_walk(table, depth, i, &ref, &next);
		stats->buckets++;
		stats->widest = max(stats->widest, next - i);
		used = rbh_stats_bucket(primary, ref, true, stats);
		stats->occupancy[min_t(unsigned int, used, RBH_ENTRIES)]++;
		bucket = primary;
		while ((bucket = rcu_dereference(bucket->h.chain))) {
			stats->overflow_buckets++;
			rbh_stats_bucket(bucket, ref, false, stats);
		}
	}
	rcu_read_unlock();
	if (stats->table_slots)
		stats->bytes += rbh_table_bytes(ilog2(stats->table_slots));
}
EXPORT_SYMBOL_GPL(rbh_stats);

/* Destroying a rosebush in use is a caller bug: warn if @lock is held */
static void rbh_check_idle(spinlock_t *lock)
{
	if (WARN_ON_ONCE(!spin_trylock(lock)))
		return;
	spin_unlock(lock);
}

/* Free every bucket and the table; the caller owns the rosebush. */
static void rbh_free_all(struct rbh *rbh,
			 void (*free_fn)(void *ptr, void *arg), void *arg)
{
	struct rbh_bucket __rcu **table;
	struct rbh_bucket *primary, *bucket, *next;
	unsigned int depth, g, i;
	unsigned long index;
	u32 ref;

	if (!rbh_table_peek(rbh))
		return;
	/* Nobody can queue the work now; once it is done, no resize runs */
	cancel_work_sync(&rbh->rbh_work);
	WARN_ON_ONCE(rbh->rbh_future_table);
	rbh_check_idle(&rbh->rbh_resize_lock);
	rbh_check_idle(&rbh->rbh_work_lock);
	/* The caller owns the rosebush */
	table = rbh_untag(rcu_dereference_protected(rbh->rbh_table, true),
			  &depth);

	for (index = 0; index < (1UL << depth); ) {
		primary = rcu_dereference_protected(table[index], 1);
		ref = (u32)(index << (32 - depth));
		rbh_check_idle(&primary->h.lock);
		index += 1UL << (depth - primary->h.depth);
		for (bucket = primary; bucket; bucket = next) {
			next = rcu_dereference_protected(bucket->h.chain, 1);
			rbh_for_each_entry(g, i) {
				void *p = rcu_dereference_protected(rbh_slots(bucket, g)[i], 1);

				if (free_fn && p && !rbh_entry_free(bucket, g, i, ref))
					free_fn(p, arg);
			}
			kfree(bucket);
		}
		cond_resched();
	}
	kvfree(table);
	rbh_reinit(rbh);
}

/**
 * rbh_destroy() - Free all memory used by a rosebush.
 * @rbh: The rosebush, which nobody else, not even an RCU reader, may use.
 *
 * The pointers stored are forgotten, not freed: see rbh_free_and_destroy().
 * The rosebush is left empty and may be used again.
 *
 * Context: Process context.  May sleep.
 */
void rbh_destroy(struct rbh *rbh)
{
	might_sleep();
	rbh_free_all(rbh, NULL, NULL);
}
EXPORT_SYMBOL_GPL(rbh_destroy);

/**
 * rbh_free_and_destroy() - Free all pointers and memory of a rosebush.
 * @rbh: The rosebush.
 * @free_fn: Called, without locks, once for every pointer stored (twice
 *	for one stored twice), with @arg; not for reservations.  May sleep,
 *	but must not use @rbh, whose buckets are being freed.
 * @arg: Passed to @free_fn.
 *
 * rbh_destroy(), handing every stored pointer to @free_fn as it goes.
 *
 * Context: Process context.  May sleep.
 */
void rbh_free_and_destroy(struct rbh *rbh,
			  void (*free_fn)(void *ptr, void *arg), void *arg)
{
	might_sleep();
	rbh_free_all(rbh, free_fn, arg);
}
EXPORT_SYMBOL_GPL(rbh_free_and_destroy);
