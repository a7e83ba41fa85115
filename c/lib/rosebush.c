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

/* The bucket format is in <linux/rosebush.h>, for rbh_first(). */
static_assert(sizeof(struct rbh_bucket) == RBH_BUCKET_SIZE);
static_assert(RBH_ENTRIES >= 8 && RBH_ENTRIES <= RBH_MAX_ENTRIES);
static_assert(RBH_GROUPS == 4 || RBH_GROUPS == 8);
static_assert(RBH_HOMES >= 2);
static_assert(sizeof(u32) <= RBH_WHOLE_KEYS);
/* The header ends in its group (exactly at its end, if it fills it) */
static_assert(RBH_HEAD_GROUP * RBH_GROUP_SIZE < sizeof(struct rbh_bucket_head) &&
	      sizeof(struct rbh_bucket_head) <= (RBH_HEAD_GROUP + 1) * RBH_GROUP_SIZE);

/* Bucket flags, written under the bucket lock */
#define RBH_DEAD	1	/* Replaced by a split, a merge or a fold */

/* The bits of a filter word that name the overflow chain */
#define RBH_CHAIN_FILTER	GENMASK(RBH_CHAIN_DEST * RBH_FILTER_BITS + \
					RBH_FILTER_BITS - 1, \
					RBH_CHAIN_DEST * RBH_FILTER_BITS)

/*
 * Merge two buddies when together they hold at most two thirds of a
 * bucket.  A bucket splits only when it is full, so a merge is followed
 * by at least a third of a bucket's worth of inserts before the next split
 * of the merged bucket, and a split by a third of a bucket's worth of
 * removals before its halves merge again.
 */
#define RBH_MERGE_MAX		(2 * RBH_ENTRIES / 3)
/* Buckets a walk of the table or of a chain visits between cond_resched() */
#define RBH_WALK_BATCH		64
/*
 * The table may double while it has at most RBH_SLOTS_PER_BUCKET slots per
 * bucket.  With random keys, the table is as deep as the deepest bucket,
 * and only a handful of buckets are: they take an overflow bucket rather
 * than double it, which halves the table (and its share of the cache) at
 * the cost of a chain for a few buckets.  A full bucket that already has
 * a full chain may double it up to RBH_SLOTS_PER_BUCKET_MAX slots per bucket,
 * so that keys crowded into part of the range split their buckets soon;
 * keys chosen to defeat splitting then go to overflow chains instead of
 * inflating the table.
 */
#define RBH_SLOTS_PER_BUCKET		3
#define RBH_SLOTS_PER_BUCKET_MAX	16
/*
 * The deepest table kvmalloc() can allocate, as it refuses more than
 * INT_MAX bytes: 2^27 slots (1 GiB) on 64-bit, 2^28 on 32-bit.  A full
 * bucket of a table this deep gets an overflow chain, as one does when
 * a deeper table cannot be allocated.
 */
#define RBH_MAX_DEPTH		ilog2(INT_MAX / sizeof(void *))
#define RBH_MIN_TABLE_BYTES	(RBH_SHIFT_MASK + 1)

/*
 * The table word.  rbh->rbh_table holds the address of the table of
 * bucket pointers, which is at least 32 bytes and naturally aligned, with
 * 32 - D in the low five bits, where D is the table's depth, from 1 (the
 * first table) to RBH_MAX_DEPTH: the table has 2^D slots, and a key's
 * slot is the key shifted right by 32 - D.
 * Reading one word gives the table and its size together, and a lookup
 * needs no arithmetic to index it.  rbh_untag() is in <linux/rosebush.h>.
 */
static struct rbh_table *rbh_tag(struct rbh_bucket __rcu **table,
				 unsigned int depth)
{
	return (struct rbh_table *)((unsigned long)table | (32 - depth));
}

/*
 * A rosebush with no table has RBH_NO_TABLE for its table word: this
 * table, whose slots point at one bucket of zeroes, which nobody writes.
 * A lookup that reaches it finds no key but 0, whose entries hold NULL,
 * as reservations do, and so finds nothing, without testing for the
 * table; writers see no table (rbh_table_word(), rbh_untag()).
 */
static const struct rbh_bucket rbh_empty_bucket;
struct rbh_bucket __rcu *const rbh_empty_table[RBH_MIN_TABLE_BYTES / sizeof(void *)]
	__aligned(RBH_MIN_TABLE_BYTES) = {
	[0 ... RBH_MIN_TABLE_BYTES / sizeof(void *) - 1] =
		(struct rbh_bucket __force __rcu *)&rbh_empty_bucket,
};
/* For RBH_INIT(), which initialises a rosebush in a module's storage */
EXPORT_SYMBOL_GPL(rbh_empty_table);

/* Bit @d of @key, counting from the top. */
static unsigned int rbh_bit(u32 key, unsigned int d)
{
	return (key >> (31 - d)) & 1;
}

/* The filter bit of destination @dest that @key selects. */
static __always_inline u32 rbh_filter_bit(u32 key, unsigned int dest)
{
	return BIT(dest * RBH_FILTER_BITS +
		   ((rbh_mix(key) >> 16) & (RBH_FILTER_BITS - 1)));
}

/* Entries in group @g: none before the header ends. */
static __always_inline unsigned int rbh_group_entries(unsigned int g)
{
	if (g < RBH_HEAD_GROUP)
		return 0;
	return g == RBH_HEAD_GROUP ? RBH_HEAD_ENTRIES : RBH_GROUP_MAX;
}

/*
 * A group ends at its cache line's end with its pointers, which that
 * aligns; the keys come before them and the filter before the keys.
 */
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

/*
 * Step to entry *@i of group *@g, or to the first entry of the next group
 * that has one if that is past the end of group *@g.
 * Return: false once there are no more groups.
 */
static __always_inline bool rbh_entry_valid(unsigned int *g, unsigned int *i)
{
	while (*g < RBH_GROUPS && *i >= rbh_group_entries(*g)) {
		(*g)++;
		*i = 0;
	}
	return *g < RBH_GROUPS;
}

/* Every entry of a bucket, group by group. */
#define rbh_for_each_entry(g, i)					\
	for ((g) = RBH_HEAD_GROUP, (i) = 0; rbh_entry_valid(&(g), &(i)); (i)++)

/*
 * Every key a bucket holds has the same top bit, so a key with the other
 * top bit marks a free entry: no lookup that reaches the bucket matches it.
 */
static u32 rbh_free_key(u32 key)
{
	return key ^ BIT(31);
}

static bool rbh_entry_free(struct rbh_bucket *bucket, unsigned int g,
			   unsigned int i, u32 key)
{
	return (rbh_keys(bucket, g)[i] ^ key) & BIT(31);
}

static_assert((sizeof(void *) << RBH_MAX_DEPTH) <= INT_MAX);

/*
 * A grow or a halving copies this many slots of the current table at a
 * time under the resize lock, then lets others have it: see "Resizing in
 * bounded steps" in Documentation/core-api/rosebush.rst.  A power of two,
 * at least 4; the userspace tests make it small.
 */
#ifndef RBH_RESIZE_STEP
#define RBH_RESIZE_STEP		1024UL
#endif
static_assert(!(RBH_RESIZE_STEP & (RBH_RESIZE_STEP - 1)) && RBH_RESIZE_STEP >= 4);

/*
 * No bucket is more than RBH_RANGE_SHIFT levels shallower than the table,
 * so that no bucket's range is wider than RBH_RESIZE_STEP slots, and a
 * split, merge or fold points at most that many: see "Resizing in bounded
 * steps" in Documentation/core-api/rosebush.rst.
 */
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

/*
 * Every allocation goes through these two functions so that the KUnit
 * suite can make them fail.
 */
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

/*
 * Make @bucket an empty bucket of depth @depth for keys like @key.  Only
 * a primary bucket's lock is ever taken: rbh_primary_init() gives it the
 * rosebush's class.
 */
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

/* Make @bucket an empty primary bucket of @rbh: see rbh_bucket_init(). */
static void rbh_primary_init(const struct rbh *rbh, struct rbh_bucket *bucket,
			     unsigned int depth, u32 key)
{
	rbh_bucket_init(bucket, depth, key);
#ifdef CONFIG_LOCKDEP
	lockdep_set_class(&bucket->h.lock, &rbh->rbh_lock_keys->bucket_lock);
#endif
}

/* Buckets allocated before taking the locks that need them. */
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

/*
 * Allocate buckets of @rbh with @gfp until @spares holds @nr.  Called
 * without locks: may sleep.  The table is only the first one.
 */
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
 * The table word, to look at the table: under the RCU read lock or the
 * resize lock.
 */
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

/*
 * Note whether the table has more slots than its buckets could have made
 * it grow to (RBH_SLOTS_PER_BUCKET_MAX per bucket, or half the widest
 * range a bucket may cover if that is less, but no fewer than
 * RBH_SLOTS_PER_BUCKET): then buckets have merged since it grew, and two
 * as deep as it that fit in one may have been left apart (see
 * rbh_looks_at_buddy()).  Called under
 * the resize lock whenever the table's depth or the number of buckets
 * changes; removals and the shrink work read it without locks, as a
 * hint.
 */
static void rbh_note_size(struct rbh *rbh)
{
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

/*
 * Must the shrink work walk the table, for buddies as deep as it that were
 * left apart before it became too large for its buckets?  Nothing
 * may be removed from them again.  Every merge is made by the shrink work
 * (and a doubling, which also makes the table too large, leaves no bucket
 * as deep as it), so the run whose merges make it so walks.  Resets the
 * request.  Takes the resize lock.
 */
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
	/* Pairs with rcu_dereference() in rbh_table_word() and rbh_first() */
	rcu_assign_pointer(rbh->rbh_table, rbh_tag(table, depth));
	rbh_note_size(rbh);
}

/*
 * Point slot @i of the current @table at @bucket, and the slots that a
 * resize filling the next table has already copied from it: the next
 * table says what the current one does when the resize publishes it.
 */
static void rbh_set_slot(struct rbh *rbh, struct rbh_bucket __rcu **table,
			 unsigned long i, struct rbh_bucket *bucket)
{
	struct rbh_bucket __rcu **next = rbh->rbh_future_table;

	unsigned int depth;

	lockdep_assert_held(&rbh->rbh_resize_lock);
	/*
	 * Nothing too shallow for this table, or for the next one once that
	 * has copied the slot: merges make none (rbh_merge_floor()), and a
	 * grow splits them before it copies their slots (rbh_split_shallow()).
	 */
	rbh_table_locked(rbh, &depth);
	WARN_ON_ONCE(bucket->h.depth < rbh_min_depth(depth));
	/* Pairs with rbh_dereference() of the slot in rbh_first() */
	rcu_assign_pointer(table[i], bucket);
	if (!next || i >= rbh->rbh_future_copied)
		return;
	/* Not visible until it is published */
	if (rbh->rbh_future_grows) {
		WARN_ON_ONCE(bucket->h.depth < rbh_min_depth(depth + 1));
		RCU_INIT_POINTER(next[2 * i], bucket);
		RCU_INIT_POINTER(next[2 * i + 1], bucket);
	} else if (!(i & 1)) {
		RCU_INIT_POINTER(next[i / 2], bucket);
	}
}

/*
 * Buckets one less deep than the current table of depth @depth, in the
 * range that starts at slot @first, were made (@n > 0) or merged away:
 * a halving counts those it has copied, which will be as deep as its
 * table.  Ranges of such buckets (four slots at most) are never split
 * between two steps.
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

/*
 * The bucket that holds @key.  The caller holds the RCU read lock or the
 * resize lock.
 */
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
 * Lock the bucket that holds @key, and set *@bucketp to it (or to NULL).
 * A bucket that is not dead holds the same keys as when we found it, or
 * more (a merge), so it is the right one.  Call it as rbh_lock_bucket(),
 * which tells sparse that the lock is held when it returns true.
 * Return: true, with the bucket locked, or false if the rosebush has no
 * table.
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
		/*
		 * The caller reads and writes @key's home group next: fetch
		 * its line while the lock's line comes in.
		 */
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

/*
 * Chain buckets are protected by the lock of the primary bucket.
 */
static struct rbh_bucket *rbh_chain_locked(struct rbh_bucket *primary,
					   struct rbh_bucket *bucket)
{
	return rcu_dereference_protected(bucket->h.chain,
					 lockdep_is_held(&primary->h.lock));
}

/*
 * Store an entry.  Readers load the key, then (with smp_rmb() between)
 * the pointer, so the pointer must be in place before the key is: this
 * release pairs with the smp_rmb() after a matching key in a walk.
 */
static void rbh_set_entry(struct rbh_bucket *bucket, unsigned int g,
			  unsigned int i, u32 key, void *p)
{
	RCU_INIT_POINTER(rbh_slots(bucket, g)[i], p);
	/* Pairs with smp_rmb() after a matching key in a walk */
	smp_store_release(&rbh_keys(bucket, g)[i], key);
	WRITE_ONCE(bucket->h.count, bucket->h.count + 1);
}

/*
 * Free an entry.  The pointer stays, so a reader that matched the key a
 * moment ago returns a removed pointer, which the API allows.  Entries
 * never move, so nothing else need be visible before the key changes.
 */
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

/* The pointer in an entry of @bucket, which is @primary or in its chain. */
static void *rbh_slot(struct rbh_bucket *primary, struct rbh_bucket *bucket,
		      unsigned int g, unsigned int i)
{
	return rcu_dereference_protected(rbh_slots(bucket, g)[i],
					 lockdep_is_held(&primary->h.lock));
}

/*
 * Record in the filter of @key's home group in @primary that an entry
 * with @key is stored in destination @dest.  Set before the entry is, so
 * that it is visible by the time the entry is.
 */
static void rbh_filter_add(struct rbh_bucket *primary, u32 key,
			   unsigned int dest)
{
	u32 *filter = rbh_filter(primary, rbh_home(key));

	WRITE_ONCE(*filter, *filter | rbh_filter_bit(key, dest));
}

/*
 * Recompute the filters of the locked @primary from the entries it and
 * its chain hold, after entries left their destinations.  @ref is any key
 * in its range.  A bit is cleared only when no entry needs it, and each
 * filter is written once, so readers see the old value or the new one.
 */
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
 * The summary of the keys of a chain, in its first bucket @head: bits that
 * are set in the chain's *difference* may differ between its keys, and
 * every key agrees with its reference key in the others.  It lets
 * rbh_first_difference() and rbh_chain_half() answer without reading a
 * chain, however long.  The difference only grows while the chain lives,
 * so after removals it may name bits in which the keys left agree: then
 * a full bucket may split (or the table grow for it) where no split
 * separates anything, and a split copies a chain that it could have
 * handed over.  A copy makes an exact summary.  A chain starts with the
 * key of its first entry, @key, and nothing different.
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

/*
 * The first bit, counting from the top, at which the keys stored in
 * @primary and its chain and @key may not all agree; 32 if they all
 * agree.  The chain's summary stands for its keys.
 */
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

/*
 * Store (@key, @p) in @bucket itself, not its chain: in the home group if
 * it has room, otherwise in the first destination that has, recorded in
 * the home group's filter.  The bucket is locked, or not yet visible.
 * Return: false if the bucket is full.
 */
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

/*
 * Find a free entry in @primary's chain, adding *@spare to the chain (and
 * clearing *@spare) if there is none.
 * Return: The bucket, with the entry in *@group and *@index; NULL if
 * another overflow bucket is needed and there is no spare.
 */
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
	/* Readers may follow the chain as soon as this is done */
	rcu_assign_pointer(primary->h.chain, spare);
	rbh_find_free_any(spare, key, group, index);
	return spare;
}

/*
 * Store (@key, @p) in the bucket @primary (locked) or its chain.  A full
 * bucket is split if that would make room, so when @may_split is set a
 * full bucket whose keys differ at the bit below its prefix is reported
 * rather than chained.  *@spare, if @spare is not NULL, may become an
 * overflow bucket (*@spare is then cleared).
 */
static enum rbh_place rbh_place(struct rbh_bucket *primary, u32 key, void *p,
				bool may_split, struct rbh_bucket **spare)
{
	unsigned int d = primary->h.depth, g;
	struct rbh_bucket *bucket;
	int i;

	lockdep_assert_held(&primary->h.lock);
	if (rbh_place_in_bucket(primary, key, p))
		return RBH_PLACED;
	if (may_split && d < 32 && rbh_first_difference(primary, key) == d)
		return RBH_NEED_SPLIT;

	bucket = rbh_chain_entry(primary, key, spare, &g, &i);
	if (!bucket)
		return RBH_NEED_CHAIN;
	rbh_chain_note(rbh_chain_locked(primary, primary), key);
	rbh_filter_add(primary, key, RBH_CHAIN_DEST);
	rbh_set_entry(bucket, g, i, key, p);
	return RBH_PLACED;
}

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

/*
 * Copy the entries of @bucket, which is @old or in its chain, into
 * @fill[0] or @fill[1] by bit @d of their keys.  @ref is any key in
 * @old's range.
 */
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

/*
 * Start filling @new[0] and @new[1], the halves of a bucket of @rbh of
 * depth @d.
 */
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

/*
 * The half of the locked @old's range (bit @d of its keys) that holds
 * every entry of its chain, as the chain's summary tells, if the chain is
 * longer than one bucket; -1 if it is not, or both halves may hold some.
 * A chain of one overflow bucket is copied, so that the new buckets take
 * in what they can of it.
 */
static int rbh_chain_half(struct rbh_bucket *old, unsigned int d)
{
	struct rbh_bucket *head = rbh_chain_locked(old, old);

	if (!head || !rbh_chain_locked(old, head) ||
	    rbh_bit(head->h.chain_diff, d))
		return -1;
	return rbh_bit(head->h.chain_ref, d);
}

/*
 * The buckets rbh_split() of the locked @old, holding @key's range, needs.
 */
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

/*
 * Put @new[0] and @new[1], the halves of the locked @old which holds
 * @key's range, filled and not yet visible, in its slots.  @old is then
 * dead and unlocked, and goes after a grace period, with its chain if
 * @chain (not if a half took the chain over or the caller frees it).
 * Called with the resize lock held.
 */
static void rbh_split_publish(struct rbh *rbh, struct rbh_bucket *old, u32 key,
			      struct rbh_bucket **new, bool chain)
	__releases(&old->h.lock)
{
	unsigned int depth, d = old->h.depth;
	struct rbh_bucket __rcu **table = rbh_table_locked(rbh, &depth);
	unsigned long first, nr, i;

	/* The first slot of @old's range, and the number of slots in it */
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
 * Split the locked bucket @old, which holds @key's range, into two
 * buckets one bit deeper, each taking half of its slots.  A chain of
 * several buckets whose entries all go to one half is handed to that
 * half's bucket whole, not copied, so that a long chain costs a split no
 * more than a bucket does; one to be divided is copied, all of it under
 * this hold of @old's lock and of the resize lock.  The table must be
 * deeper than @old, and @spares must hold rbh_split_needs()
 * buckets.  @old is then dead and unlocked.
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
		/*
		 * @old's own entries fit in one bucket, so @to has no chain
		 * yet.  Its filters must name the chain's entries, all in
		 * @to's range now: @old's chain bits name them (and no
		 * entry of @to's own, whose bits rbh_fill_add() set).
		 */
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
 * Before a grow copies the step of the current @table, of depth @depth,
 * that starts at slot @i: split the bucket there if it is too shallow for
 * the deeper table (rbh_min_depth()).  Such a bucket covers exactly the
 * RBH_RESIZE_STEP slots of this step, and no other bucket of the step is
 * as shallow.  Called with the resize lock held.
 * Return: false if the step may be copied now; true if the bucket was
 * split (*@needed is 0) or needs *@needed buckets that @spares lacks.
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
	*needed = rbh_split_needs(bucket, key);
	if (spares->nr < *needed) {
		spin_unlock(&bucket->h.lock);
		return true;
	}
	*needed = 0;
	rbh_split(rbh, bucket, key, spares);
	WRITE_ONCE(rbh->rbh_splits, rbh->rbh_splits + 1);
	return true;
}

/*
 * Fill @new, a table of depth @new_depth, from the current table of depth
 * @depth, one step of RBH_RESIZE_STEP slots at a time under the resize
 * lock, then publish it.  Doubling, slots 2i and 2i + 1 of @new both
 * point to the bucket in slot i, once the step has split a bucket too
 * shallow for @new (rbh_split_shallow(), with buckets from @spares);
 * halving, slot i points to the bucket in slot 2i, which no bucket as
 * deep as the current table may stop.  Changes to the current table
 * meanwhile go to the copied part of @new as well (rbh_set_slot()).
 * Called by the shrink work, the only thread that resizes, without the
 * resize lock; may sleep between steps.
 * Return: 0 if @new is the table now; -EAGAIN if the table was not of
 * depth @depth or could not halve, -ENOMEM if a split's buckets could not
 * be allocated (the caller still owns @new).
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

/*
 * Double the table of depth @depth, unless it is deeper already or no
 * bucket is as deep as it any more.  Called by the shrink work, without
 * locks; sleeps.
 * Return: 0 if the table grew or need not, -ENOMEM if the larger table
 * or the buckets of a split it needed could not be allocated.
 */
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

/* Is the overflow bucket that takes the locked @primary's new entries full? */
static bool rbh_chain_full(struct rbh_bucket *primary)
{
	/* New overflow buckets go first: that one takes new entries */
	struct rbh_bucket *bucket = rbh_chain_locked(primary, primary);

	return bucket && bucket->h.count >= RBH_ENTRIES;
}

/*
 * Has the locked @primary filled an overflow bucket?  Its chain is full,
 * or longer than one bucket: the insertion that found the chain full and
 * handed the bucket to the work has added an overflow bucket since.
 */
static bool rbh_chain_overflowed(struct rbh_bucket *primary)
{
	struct rbh_bucket *bucket = rbh_chain_locked(primary, primary);

	return bucket && (bucket->h.count >= RBH_ENTRIES ||
			  rbh_chain_locked(primary, bucket));
}

/*
 * May the table of depth @depth double so that a full bucket can split,
 * whose chain is full if @chain_full (rbh_chain_full())?  Under the
 * resize lock, or a hint without it.
 */
static bool rbh_may_grow(const struct rbh *rbh, unsigned int depth,
			 bool chain_full)
{
	unsigned long buckets = READ_ONCE(rbh->rbh_nr_buckets);
	unsigned long limit = chain_full ? RBH_SLOTS_PER_BUCKET_MAX :
					   RBH_SLOTS_PER_BUCKET;

	return depth < RBH_MAX_DEPTH && (2UL << depth) <= limit * buckets;
}

/*
 * Has an insertion handed the bucket of depth @d that holds @key to the
 * work, which has not taken it yet?  A lockless look at the work's list
 * (rbh_resize_later()): a stale answer costs one more hand-over, or one
 * more entry chained.
 */
static bool rbh_handed_over(const struct rbh *rbh, u32 key, unsigned int d)
{
	unsigned int i, nr;

	/* Pairs with smp_store_release() in rbh_resize_later() */
	nr = smp_load_acquire(&rbh->rbh_split_nr);
	for (i = 0; i < min_t(unsigned int, nr, RBH_SHRINK_KEYS); i++)
		if (!((READ_ONCE(rbh->rbh_split_keys[i]) ^ key) >> (32 - d)))
			return true;
	return false;
}

/*
 * May an insertion of @key into the full, locked @bucket ask for a split?
 * It splits the bucket itself if the table is deeper and the bucket has
 * no chain; otherwise it hands the split to the work, once.  Exact under
 * the resize lock, a hint without it.
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

static void rbh_shrink_worker(struct work_struct *work);

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
	__INIT_WORK_KEY(&rbh->rbh_shrink_work, rbh_shrink_worker, false,
			&rbh->rbh_lock_keys->shrink_work);
#else
	INIT_WORK(&rbh->rbh_shrink_work, rbh_shrink_worker);
#endif
	WRITE_ONCE(rbh->rbh_nr_buckets, 2);
	WRITE_ONCE(rbh->rbh_nr_deep, 2);
	rbh_publish_table(rbh, table, 1);
	return 0;
}

/* What rbh_make_room_locked() did, or asks of its caller */
enum rbh_room {
	RBH_ROOM_PLACED,	/* the entry is stored */
	RBH_ROOM_RETRY,		/* a bucket was split: try the fast path again */
	RBH_ROOM_REFILL,	/* allocate spares, then call again */
	RBH_ROOM_FIRST,		/* allocate the first table, then call again */
	RBH_ROOM_LATER,		/* hand the split to the work, then chain */
};

/*
 * Make room for @key, and store (@key, @p) if it can, with the resize lock
 * held, with memory from @spares.  An insertion splits a full bucket
 * itself only if the table is deeper and the bucket has no chain, so that
 * it copies and allocates no more than a bucket's worth; the work splits
 * any other, doubling the table first if need be, and the entry goes to
 * the bucket's chain meanwhile.  With @chain, a full bucket is not split.
 * Return: RBH_ROOM_REFILL when @spares must hold *@arg buckets;
 * RBH_ROOM_LATER when the work must split the bucket, of depth *@arg.
 */
static enum rbh_room rbh_make_room_locked(struct rbh *rbh, u32 key, void *p,
					  bool chain, struct rbh_spares *spares,
					  unsigned int *arg)
{
	struct rbh_bucket *bucket, *spare;
	unsigned int depth, d, needed;
	enum rbh_place result;

	if (!rbh_table_peek(rbh))
		return rbh_first_table(rbh, spares) ? RBH_ROOM_FIRST :
						      RBH_ROOM_RETRY;

	bucket = rbh_bucket(rbh, key);
	spin_lock(&bucket->h.lock);
	rbh_table_locked(rbh, &depth);
	d = bucket->h.depth;

	spare = spares->nr ? rbh_spare(spares) : NULL;
	result = rbh_place(bucket, key, p, !chain &&
			   rbh_may_split(rbh, bucket, key), &spare);
	if (spare)
		rbh_spare_put(spares, spare);
	if (result != RBH_NEED_SPLIT) {
		spin_unlock(&bucket->h.lock);
		*arg = 1;
		return result == RBH_PLACED ? RBH_ROOM_PLACED : RBH_ROOM_REFILL;
	}
	/* The table must double first, or a chain be copied: the work's */
	if (d == depth ||
	    rcu_access_pointer(bucket->h.chain)) {
		spin_unlock(&bucket->h.lock);
		*arg = d;
		return RBH_ROOM_LATER;
	}
	/* Allocate everything first: an allocation failure changes nothing */
	needed = rbh_split_needs(bucket, key);
	if (spares->nr < needed) {
		spin_unlock(&bucket->h.lock);
		*arg = needed;
		return RBH_ROOM_REFILL;
	}
	rbh_split(rbh, bucket, key, spares);
	WRITE_ONCE(rbh->rbh_splits, rbh->rbh_splits + 1);
	return RBH_ROOM_RETRY;
}

/* Allocate what rbh_make_room_locked() asked for, with @gfp */
static int rbh_room_fill(const struct rbh *rbh, struct rbh_spares *spares,
			 enum rbh_room room, unsigned int arg, gfp_t gfp)
{
	if (room == RBH_ROOM_FIRST)
		return rbh_spares_fill(rbh, spares, 2, 1, gfp);
	return rbh_spares_fill(rbh, spares, arg, 0, gfp);
}

#define RBH_VALID_FLAGS	(RBH_ACCOUNT | RBH_RECLAIMABLE)

/*
 * Hand the work the full bucket of depth @d holding @key, which an
 * insertion does not split (rbh_make_room_locked()).  A bucket is handed
 * over once per batch, and RBH_SHRINK_KEYS buckets at most: the next
 * insertion that finds one of the others full hands it over again.
 */
static void rbh_resize_later(struct rbh *rbh, u32 key, unsigned int d)
{
	unsigned int i, nr;
	bool queue = false;

	spin_lock(&rbh->rbh_shrink_lock);
	nr = rbh->rbh_split_nr;
	for (i = 0; i < nr; i++)
		if (!((rbh->rbh_split_keys[i] ^ key) >> (32 - d)))
			break;
	if (i == nr && nr < RBH_SHRINK_KEYS) {
		/* Insertions read them without the lock: rbh_handed_over() */
		WRITE_ONCE(rbh->rbh_split_keys[nr], key);
		/* Pairs with smp_load_acquire() in rbh_handed_over() */
		smp_store_release(&rbh->rbh_split_nr, nr + 1);
		queue = true;
	}
	spin_unlock(&rbh->rbh_shrink_lock);
	if (queue)
		queue_work(system_unbound_wq, &rbh->rbh_shrink_work);
}

/*
 * The slow path of insertion: allocate what is needed, then take the
 * resize lock and use it.  Called without locks; sleeps.
 * Return: 0 if the caller should retry the fast path, 1 if the entry was
 * stored, or -ENOMEM.
 */
static int rbh_make_room(struct rbh *rbh, u32 key, void *p)
{
	struct rbh_spares spares = { };
	unsigned int arg, later = 0;
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
	/* Once the entry is stored: a failed allocation changes nothing */
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
	result = rbh_place(bucket, key, p, rbh_may_split(rbh, bucket, key),
			   NULL);
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
 * Store @p under @hash.  Pointers are not unique: the same pointer may be
 * stored under the same hash several times, and each copy must be removed
 * on its own.  Lookups find @p as soon as this function returns.
 *
 * Context: Process context.  Takes and releases a bucket lock, and maybe
 * the resize lock and the shrink lock, and may queue the rosebush's work
 * item; may sleep to allocate memory with GFP_KERNEL.  Never waits for a
 * resize: a full bucket that needs a deeper table, or has a chain to
 * copy, takes the entry into its overflow chain, and the work splits it.
 * Return: 0 on success, -EINVAL if @p is NULL, -ENOMEM if memory could not
 * be allocated (nothing is then stored).
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
 * Allocate the memory needed to store a pointer under @hash.  Fill the
 * slot with rbh_use(), which cannot fail, or give it back with
 * rbh_release().  Lookups skip the reserved slot until it is used.
 *
 * Context: Process context.  Takes and releases a bucket lock, and maybe
 * the resize lock and the shrink lock, and may queue the rosebush's work
 * item; may sleep to allocate memory with GFP_KERNEL.  Never waits for a
 * resize: a full bucket that needs a deeper table, or has a chain to
 * copy, takes the entry into its overflow chain, and the work splits it.
 * Return: 0 on success, -ENOMEM if memory could not be allocated (nothing
 * is then reserved).
 */
int rbh_reserve(struct rbh *rbh, u32 hash)
{
	return rbh_add(rbh, hash, NULL);
}
EXPORT_SYMBOL_GPL(rbh_reserve);

/**
 * rbh_reserve_nofail() - Reserve a slot in a rosebush, without failing.
 * @rbh: The rosebush, which has a table: something was stored or
 *	reserved in it since it was initialised or destroyed.
 * @hash: The hash value that will be used.
 *
 * For a caller that cannot fail, once rbh_reserve() has failed: the
 * dcache's d_add(), say, for a dentry that has no slot.  It never doubles
 * the table or splits a bucket.  It finds a free entry in the bucket of
 * @hash or its chain, or adds one overflow bucket to that chain, allocated
 * with __GFP_NOFAIL.  A bucket chained so is handed to the work by a
 * later insertion that finds it full, or folded once removals empty its
 * chain, like any other.  Use the slot as one from rbh_reserve().
 *
 * A rosebush without a table is a caller bug, which WARNs, then
 * allocates a first table (two buckets and the table), retrying until it
 * can.
 *
 * Context: Process context.  Takes and releases a bucket lock and the
 * resize lock; may sleep to allocate one bucket with __GFP_NOFAIL.
 */
void rbh_reserve_nofail(struct rbh *rbh, u32 hash)
{
	struct rbh_spares spares = { };
	u32 key = rbh_key(hash);
	enum rbh_room room;
	unsigned int arg;

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

/* Where an entry is: its bucket (@primary or in its chain), group, index. */
struct rbh_pos {
	struct rbh_bucket *bucket;
	unsigned int group;
	unsigned int index;
};

/* Find the entry (@key, @p) in group @g of @bucket. */
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

/*
 * Find the entry (@key, @p) in the locked bucket @primary or its chain,
 * where its home group's filter says it may be.
 * Return: true, with the entry in *@pos, if it is there.
 */
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

/*
 * Unlink the empty buckets of @primary's chain.  Readers may still be
 * walking them, so they are freed after a grace period.
 */
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
 * Must a removal that leaves a bucket of depth @d with @count entries, in
 * a table of depth @depth, look at the bucket's buddy for a merge?  Of two
 * buddies that together hold at most RBH_MERGE_MAX entries, one holds at
 * most half as many: it is the one that looks, so that a removal from a
 * fuller bucket, as most are, does not read its buddy's slot and header.
 * A merge that a removal from the fuller one made possible waits for the
 * next removal from either, or for the walk after the next halving.
 * Buddies as deep as the table that stay apart, though, keep it from
 * halving at all: once the table is too large for its buckets, the
 * fuller of two such buddies looks too.  The caller holds the RCU read
 * lock.
 */
static bool rbh_looks_at_buddy(const struct rbh *rbh, unsigned int d,
			       unsigned int depth, unsigned int count)
{
	if (count <= RBH_MERGE_MAX / 2)
		return true;
	return count <= RBH_MERGE_MAX && READ_ONCE(rbh->rbh_oversized) &&
	       d == depth;
}

/*
 * The buddy of the locked @bucket, which holds @key, if it might merge
 * with it once it holds @count entries, as far as a look at @bucket
 * alone tells (see rbh_looks_at_buddy()); NULL otherwise.  The caller
 * holds the RCU read lock.
 */
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

/*
 * Might the locked @bucket, which holds @key, merge with its buddy, after
 * a removal from it?  A lockless look at the buddy saves most removals
 * handing their key to the shrink work.  The caller holds the RCU read
 * lock.  Two removals from buddies at once may
 * each miss the other's, so a merge can wait for the next removal from
 * either: merges are for memory, not correctness.
 */
static bool rbh_merge_likely(const struct rbh *rbh, struct rbh_bucket *bucket,
			     u32 key)
{
	unsigned int d = bucket->h.depth;
	struct rbh_bucket *buddy;

	buddy = rbh_buddy(rbh, bucket, key, bucket->h.count);
	if (!buddy)
		return false;
	return READ_ONCE(buddy->h.depth) == d &&
		!rcu_access_pointer(buddy->h.chain) &&
		bucket->h.count + READ_ONCE(buddy->h.count) <= RBH_MERGE_MAX;
}

/*
 * The shallowest a merge may make a bucket of the current table, of depth
 * @depth, or of the deeper one a grow is filling.  Under the resize lock.
 */
static unsigned int rbh_merge_floor(const struct rbh *rbh, unsigned int depth)
{
	lockdep_assert_held(&rbh->rbh_resize_lock);
	if (rbh->rbh_future_table && rbh->rbh_future_grows)
		depth++;
	return rbh_min_depth(depth);
}

/*
 * Merge the bucket holding @key with its buddy, the bucket holding the
 * keys that differ from it only in the last bit of its prefix, if they
 * hold few enough entries and the merged bucket would not be too shallow
 * (rbh_merge_floor()); then try again one level up.  No memory is
 * needed: the lower bucket takes the upper one's entries and slots.
 * Called with the resize lock held.
 */
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
		/* Until the table halves: the walk after it merges them */
		if (d - 1 < rbh_merge_floor(rbh, depth))
			break;
		/* The buddies' ranges, lower first */
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
		 * Both buddies' keys share the top bit, as d >= 2.  Readers
		 * of the lower bucket may find the new entries at once; those
		 * of the upper one's range find them once its slots point
		 * here, and meanwhile still find them in the upper bucket.
		 */
		ref = (u32)(first << (32 - depth));
		rbh_for_each_entry(g, i) {
			if (!rbh_entry_free(hi, g, i, ref))
				rbh_place_in_bucket(lo, rbh_keys(hi, g)[i],
						    rbh_slot(hi, hi, g, i));
		}
		/* Pairs with smp_load_acquire() in rbh_walk_next() */
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
		else if (d + 1 == depth)
			rbh_future_deep_add(rbh, first, -2);
		WRITE_ONCE(rbh->rbh_merges, rbh->rbh_merges + 1);
	}
}

/*
 * Does the locked @primary have a chain although a third of a bucket would
 * hold all its entries?  Entries never move from a chain back into its
 * primary bucket (a reader walking the chain could miss them), so such a
 * bucket is replaced by a new one holding everything, after which it may
 * merge.
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

/*
 * Replace the bucket holding @key and its chain by @new, if they still
 * fit in a third of a bucket.  Called with the resize lock held.
 * Return: @new if it was not used.
 */
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

enum rbh_halve {
	RBH_HALVED,
	RBH_HALVE_NOT_NEEDED,
	RBH_HALVE_NO_MEMORY,
};

/*
 * Halve the table if no bucket is as deep as it.  Slot i of the new table
 * is slot 2i of the old one, which slot 2i + 1 shares, copied in steps by
 * rbh_resize_steps().  The old table goes to kvfree_rcu_mightsleep(),
 * which waits for a grace period only if it cannot allocate the memory to
 * queue it.  Called by the shrink work.
 */
static enum rbh_halve rbh_halve(struct rbh *rbh)
{
	struct rbh_bucket __rcu **new;
	enum rbh_halve result;
	unsigned int depth;

	if (!rbh_untag(rbh_table_peek(rbh), &depth) || depth < 2 ||
	    READ_ONCE(rbh->rbh_nr_deep))
		return RBH_HALVE_NOT_NEEDED;

	new = rbh_alloc_table(depth - 1, GFP_KERNEL | __GFP_NOWARN);
	if (!new)
		return RBH_HALVE_NO_MEMORY;

	/* A halving splits nothing, so it needs no spares */
	result = rbh_resize_steps(rbh, new, depth, depth - 1, NULL) ?
			RBH_HALVE_NOT_NEEDED : RBH_HALVED;
	if (result != RBH_HALVED)
		kvfree(new);
	return result;
}

/* Is the table deeper than any bucket? */
static bool rbh_halve_wanted(const struct rbh *rbh)
{
	unsigned int depth;

	rbh_untag(rbh_table_peek(rbh), &depth);
	return depth > 1 && !READ_ONCE(rbh->rbh_nr_deep);
}

/*
 * After a removal from the bucket of depth @d holding @key, which left it
 * ready to be folded or merged with its buddy: hand the key to the shrink
 * work, which does both in process context, then halves the table if it
 * can.  With @d 0, only the table is ready to halve.  The work is queued
 * only for the first request of a batch.  When more buckets are handed
 * over than the rosebush has room for, the work walks the whole table
 * instead.
 */
static void rbh_shrink_later(struct rbh *rbh, u32 key, unsigned int d)
{
	unsigned int i, nr;
	bool first;

	/*
	 * Once too many buckets were handed over, the work will walk the
	 * whole table, and once a halving was asked for, it will try one:
	 * during a mass removal, removals then need not take the lock, whose
	 * line the work also writes.  What the run that resets the count or
	 * the flag will do cannot miss this removal: it resets them before
	 * it looks at any bucket or at the table's depth, and this removal
	 * changed its bucket before it reads them, each
	 * with a full barrier in between, so either that run sees what this
	 * removal did, or this removal sees them reset and hands its request
	 * over.  A count or flag set again after the reset belongs to a
	 * batch whose first request queued another run.  Pairs with smp_mb()
	 * in rbh_shrink_worker().
	 */
	smp_mb();
	if (d ? READ_ONCE(rbh->rbh_shrink_nr) > RBH_SHRINK_KEYS :
		READ_ONCE(rbh->rbh_shrink_halve))
		return;

	spin_lock(&rbh->rbh_shrink_lock);
	nr = rbh->rbh_shrink_nr;
	first = !nr && !rbh->rbh_shrink_halve;
	if (!d) {
		WRITE_ONCE(rbh->rbh_shrink_halve, true);
	} else if (nr <= RBH_SHRINK_KEYS) {
		/* A bucket emptied by several removals is handed over once */
		for (i = 0; i < nr && i < RBH_SHRINK_KEYS; i++)
			if (!((rbh->rbh_shrink_keys[i] ^ key) >> (32 - d)))
				break;
		if (i == nr) {
			if (nr < RBH_SHRINK_KEYS)
				rbh->rbh_shrink_keys[nr] = key;
			WRITE_ONCE(rbh->rbh_shrink_nr, nr + 1);
		}
	}
	spin_unlock(&rbh->rbh_shrink_lock);
	if (first)
		queue_work(system_unbound_wq, &rbh->rbh_shrink_work);
}

/*
 * After a removal from the bucket of depth @d which holds @key, which
 * leaves it ready to fold (@fold) or merge with its buddy (@merge), or
 * the table ready to halve: hand the key to the shrink work, which does
 * each in process context.  A removal never takes the resize lock.
 */
static void rbh_removed(struct rbh *rbh, u32 key, unsigned int d,
			bool fold, bool merge)
{
	/* Tell lockdep that every removal may take the shrink lock */
	might_lock(&rbh->rbh_shrink_lock);
	if (fold || merge)
		rbh_shrink_later(rbh, key, d);
	else if (rbh_halve_wanted(rbh))
		rbh_shrink_later(rbh, key, 0);
}

/*
 * Fold the bucket holding @key if it has a chain that a single bucket
 * would hold, using *@spare (which may be NULL, and is set to NULL if it
 * is used); then merge it with its buddy if they would fit in one, and
 * so on up.  Called with the resize lock held.
 */
static void rbh_shrink_locked(struct rbh *rbh, u32 key,
			      struct rbh_bucket **spare)
{
	if (*spare)
		*spare = rbh_fold_locked(rbh, key, *spare);
	rbh_merge_locked(rbh, key);
}

/* Does the bucket holding @key have a chain?  The caller holds RCU. */
static bool rbh_has_chain(const struct rbh *rbh, u32 key)
{
	struct rbh_bucket *bucket = rbh_bucket(rbh, key);

	return bucket && rcu_access_pointer(bucket->h.chain);
}

/*
 * Might a walk fold or merge @bucket, of depth @d, the bucket holding @pos
 * in @table of depth @depth?  A look without locks, under the RCU read
 * lock, so that the walk takes the resize lock only where it has work to
 * do.  The locked check decides.
 */
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
	return READ_ONCE(buddy->h.depth) == d &&
		!rcu_access_pointer(buddy->h.chain) &&
		count + READ_ONCE(buddy->h.count) <= RBH_MERGE_MAX;
}

/*
 * Fold and merge wherever possible, visiting every primary bucket in
 * order of key: @pos is the first key of the next one.  The walk looks at
 * each bucket under the RCU read lock only, and takes the resize lock just
 * for a bucket that it may fold or merge, after allocating the new bucket
 * a fold needs.  The table may change meanwhile (inserts split and grow
 * it), so the walk goes by key, not by slot: a bucket it
 * skips or sees twice costs only a merge that waits for the next removal
 * from it.
 */
static void rbh_shrink_walk(struct rbh *rbh)
{
	struct rbh_bucket *spare = NULL, *bucket;
	struct rbh_bucket __rcu **table;
	unsigned int depth, d, n = 0;
	u64 pos = 0;

	rcu_read_lock();
	while (pos < BIT_ULL(32)) {
		if (++n % RBH_WALK_BATCH == 0) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		table = rbh_untag(rbh_table_word(rbh), &depth);
		if (!table)
			break;
		bucket = rcu_dereference(table[rbh_index(pos, depth)]);
		d = READ_ONCE(bucket->h.depth);
		/* A table is never written once replaced, nor a bucket deepened */
		if (WARN_ON_ONCE(d > depth))
			break;
		if (!rbh_walk_wanted(table, depth, bucket, d, pos)) {
			pos = round_up(pos + 1, BIT_ULL(32 - d));
			continue;
		}
		if (!spare && rcu_access_pointer(bucket->h.chain)) {
			rcu_read_unlock();
			spare = rbh_alloc_bucket(GFP_KERNEL | __GFP_NOWARN |
						 rbh->rbh_gfp);
			rcu_read_lock();
		}

		spin_lock(&rbh->rbh_resize_lock);
		rbh_shrink_locked(rbh, (u32)pos, &spare);
		/*
		 * On to the key after the range of the bucket now holding
		 * @pos, which a merge may have widened on either side.
		 */
		table = rbh_table_locked(rbh, &depth);
		bucket = rbh_slot_locked(rbh, table, rbh_index(pos, depth));
		pos = round_up(pos + 1, BIT_ULL(32 - bucket->h.depth));
		spin_unlock(&rbh->rbh_resize_lock);
	}
	rcu_read_unlock();
	kfree(spare);
}

/* What rbh_split_deferred() did, or needs */
enum rbh_deferred {
	RBH_DEFERRED_DONE,	/* the bucket needs no split, or cannot have one */
	RBH_DEFERRED_SPLIT,	/* split at depth *@arg: look at both halves */
	RBH_DEFERRED_GROW,	/* double the table, of depth *@arg, first */
	RBH_DEFERRED_REFILL,	/* allocate *@arg spares first */
};

/*
 * For the work: split the bucket holding @key as the insertion that
 * handed it over (@asked) would have, if it is still full or chained and
 * a split would divide its keys.
 */
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
		 * An insertion asked under the limits of rbh_may_grow(),
		 * the higher one if it found the chain full, which may be a
		 * bucket longer now.  A half or a bucket the walk found keeps
		 * to the lower one, so that keys crowded into one range do
		 * not inflate the table.
		 */
		if (!rbh_may_grow(rbh, depth,
				  asked && rbh_chain_overflowed(bucket)))
			goto unlock;
		*arg = depth;
		ret = RBH_DEFERRED_GROW;
	} else {
		needed = rbh_split_needs(bucket, key);
		if (spares->nr < needed) {
			*arg = needed;
			ret = RBH_DEFERRED_REFILL;
			goto unlock;
		}
		*arg = d;
		/* Which unlocks it */
		rbh_split(rbh, bucket, key, spares);
		WRITE_ONCE(rbh->rbh_splits, rbh->rbh_splits + 1);
		ret = RBH_DEFERRED_SPLIT;
		goto out;
	}
unlock:
	spin_unlock(&bucket->h.lock);
out:
	rcu_read_unlock();
	spin_unlock(&rbh->rbh_resize_lock);
	return ret;
}

/*
 * Each level of a deferred split takes up to three rounds: allocate the
 * spares, double the table, split.
 */
#define RBH_DEFERRED_ROUNDS	(3 * RBH_MAX_DEPTH)

/*
 * For the work: the splits of the buckets holding @keys, which
 * insertions handed over if @asked, or the walk found.  Each bucket is
 * split, and the table doubled as each split needs; then both halves of
 * each split, and theirs, up to 32 halves deep.  A key that still needs a
 * split after RBH_DEFERRED_ROUNDS tries is left to the next insertion
 * that finds its bucket full.  *@grew is set if the table doubled, which
 * no halving may undo in the same run of the work: the bucket that needed
 * it may not have split (its removals, or a failed allocation).
 * Return: 0, or -ENOMEM if an allocation failed: the rest is left to
 * later insertions rather than tried while memory is short.
 */
static int rbh_resize_deferred(struct rbh *rbh, const u32 *keys,
			       unsigned int nr, bool asked, bool *grew)
{
	struct rbh_spares spares = { };
	/* The other halves of the splits made, still to look at */
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
 * For the work, once it has doubled the table: split every chained
 * bucket shallower than the table, doubling the table again if a split
 * needs it (rbh_resize_deferred()).
 * Insertions chained their entries there while the table was too small,
 * and would split it only when they next find it full; after a burst of
 * them, nothing else would.  The walk goes by key, as rbh_shrink_walk()
 * does, and reads a slot and a bucket header per bucket.  *@grew is set
 * if the table doubled again, which may leave buckets the walk passed
 * shallower than the table.
 * Return: 0, or -ENOMEM if an allocation failed.
 */
static int rbh_split_walk(struct rbh *rbh, bool *grew)
{
	struct rbh_bucket __rcu **table;
	struct rbh_bucket *bucket;
	unsigned int depth, d, n = 0;
	u64 pos = 0;
	bool split;
	int err = 0;

	while (!err && pos < BIT_ULL(32)) {
		u32 key = pos;

		if (++n % RBH_WALK_BATCH == 0)
			cond_resched();
		rcu_read_lock();
		table = rbh_untag(rbh_table_word(rbh), &depth);
		if (!table) {
			rcu_read_unlock();
			break;
		}
		bucket = rcu_dereference(table[rbh_index(key, depth)]);
		d = READ_ONCE(bucket->h.depth);
		/* A table is never written once replaced, nor a bucket deepened */
		if (WARN_ON_ONCE(d > depth)) {
			rcu_read_unlock();
			break;
		}
		split = d < depth && rcu_access_pointer(bucket->h.chain);
		rcu_read_unlock();
		/* Which splits both halves, and theirs */
		if (split)
			err = rbh_resize_deferred(rbh, &key, 1, false, grew);
		pos = round_up(pos + 1, BIT_ULL(32 - d));
	}
	return err;
}

/*
 * The work of a rosebush, the only thread that resizes its table.  First
 * the splits and doublings that insertions handed over, and after a
 * doubling the walk for the chains it left (rbh_split_walk()).  Then the
 * shrinking: fold and merge the buckets whose keys removals handed over
 * (or all of them, if too many were), then halve the table as far as it
 * will go.  After halvings, which let merges refused for being too
 * shallow (rbh_merge_floor()) go ahead and make buckets as deep as the
 * table that may merge (rbh_looks_at_buddy()), walk and halve again; walk
 * too once merges have made the table too large for its buckets
 * (rbh_walk_due()).  A split, a fold or a merge holds the resize lock for
 * one bucket, and a grow or a halving for one step at a time
 * (rbh_resize_steps()).  A work item never runs twice at once, so no two
 * resizes do.
 */
static void rbh_shrink_worker(struct work_struct *work)
{
	struct rbh *rbh = container_of(work, struct rbh, rbh_shrink_work);
	u32 keys[RBH_SHRINK_KEYS], split_keys[RBH_SHRINK_KEYS];
	unsigned int i, nr, split_nr;
	struct rbh_bucket *spare;
	bool grew = false, again;
	int err = 0;

	spin_lock(&rbh->rbh_shrink_lock);
	nr = rbh->rbh_shrink_nr;
	memcpy(keys, rbh->rbh_shrink_keys, sizeof(keys));
	WRITE_ONCE(rbh->rbh_shrink_nr, 0);
	WRITE_ONCE(rbh->rbh_shrink_halve, false);
	split_nr = rbh->rbh_split_nr;
	memcpy(split_keys, rbh->rbh_split_keys, sizeof(split_keys));
	WRITE_ONCE(rbh->rbh_split_nr, 0);
	spin_unlock(&rbh->rbh_shrink_lock);
	/* Pairs with smp_mb() in rbh_shrink_later() */
	smp_mb();

	if (split_nr)
		err = rbh_resize_deferred(rbh, split_keys, split_nr, true,
					  &grew);
	/* A walk that doubles the table again walks it again */
	again = grew;
	while (again && !err) {
		again = false;
		err = rbh_split_walk(rbh, &again);
		cond_resched();
	}

	if (nr > RBH_SHRINK_KEYS) {
		rbh_shrink_walk(rbh);
	} else {
		for (i = 0; i < nr; i++) {
			bool chain;

			rcu_read_lock();
			chain = rbh_has_chain(rbh, keys[i]);
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

		/* Not in the run that doubled the table: see rbh_resize_deferred() */
		while (!grew && rbh_halve_wanted(rbh) &&
		       rbh_halve(rbh) == RBH_HALVED) {
			halved = true;
			cond_resched();
		}
		if (!halved && !rbh_walk_due(rbh))
			break;
		rbh_shrink_walk(rbh);
	}
}

/*
 * Does destination @dest of @key's home group in the locked @primary
 * still hold an entry that needs @key's filter bit there?
 */
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

/*
 * Remove the entry at @pos, which holds @key, from the locked @primary or
 * its chain.  Unless the caller will tidy up later (a locked iteration,
 * with rbh_tidy_chain() and rbh_refilter()), unlink an emptied overflow
 * bucket and clear the filter bit the entry needed if no other entry
 * needs it.
 */
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

/*
 * Does a removal from the home group of the locked @primary end there,
 * the table's halving aside?  Not if the bucket must then look at its
 * buddy (rbh_looks_at_buddy()), nor if it has a chain that may fold.  The
 * caller holds the RCU read lock.
 */
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
 * Remove one copy of @p stored under @hash.  Lookups that are already
 * running may still return @p, so free the object it points to only after
 * an RCU grace period (e.g. with kfree_rcu()).  A bucket that the removal
 * leaves nearly empty is merged with its buddy or folded, and the table
 * halved, by the rosebush's shrink work.
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Takes and releases a bucket lock, then maybe the shrink lock, and may
 * queue the shrink work.  Never takes the resize lock, allocates memory
 * or sleeps.
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
	/*
	 * Most removals find their entry in its home group of the primary
	 * bucket, and need do nothing more than clear it.
	 */
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
 * Fill a slot that rbh_reserve() reserved for @hash.  This does not
 * allocate memory, so it does not fail if the slot was reserved.
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Takes and releases a bucket lock.  Does not sleep.
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
 * A bit for each entry of group @g of @bucket that holds @key, compared
 * as rbh_group_match() compares a whole group's.
 */
static __always_inline unsigned int rbh_match(struct rbh_bucket *bucket,
					      unsigned int g, u32 key)
{
	u32 *keys = rbh_keys(bucket, g);
	unsigned int i, match = 0;

	if (g > RBH_HEAD_GROUP) {
		for (i = 0; i < RBH_GROUP_MAX; i++)
			match |= (unsigned int)(READ_ONCE(keys[i]) == key) << i;
	} else if (g == RBH_HEAD_GROUP) {
		for (i = 0; i < RBH_HEAD_ENTRIES; i++)
			match |= (unsigned int)(READ_ONCE(keys[i]) == key) << i;
	}
	return match;
}

/*
 * The first pointer under @key in group @g of @bucket from entry *@index
 * on, which moves *@index past it.
 */
static __always_inline void *rbh_group_next(struct rbh_bucket *bucket,
					    unsigned int g, u32 key,
					    unsigned int *index)
{
	unsigned int i, match;
	void *p;

	match = rbh_match(bucket, g, key) & (~0U << *index);
	for (; match; match &= match - 1) {
		i = __ffs(match);
		/*
		 * Read the pointer after its key.  Pairs with
		 * smp_store_release() in rbh_set_entry().
		 */
		smp_rmb();
		p = rbh_dereference(rbh_slots(bucket, g)[i]);
		if (p) {
			*index = i + 1;
			return p;
		}
	}
	return NULL;
}

/*
 * The first pointer under @key in the groups of @bucket that @dests names
 * (its home group @home's filter bits for @key, shifted down), from step
 * *@step and entry *@index on, which move past it.
 */
static __always_inline void *rbh_dests_next(struct rbh_bucket *bucket,
					    u32 key, unsigned int home,
					    unsigned int dests,
					    unsigned int *step,
					    unsigned int *index)
{
	unsigned int left;
	void *p;

	/* The groups left to walk, each by the lowest bit of its field */
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

/*
 * The steps of a walk of the chain: RBH_STEP_CHAIN + g is group g of an
 * overflow bucket.
 */
#define RBH_STEP_CHAIN		RBH_GROUPS
static_assert(RBH_STEP_CHAIN + RBH_GROUPS < RBH_ITER_DONE);

/*
 * Go on with a walk from where rbh_first() or rbh_iter_lock() left it:
 * the rest of the home group (step 0), the destinations its filter names
 * for the key (steps 1 to RBH_GROUPS - 1, group home ^ step), then the
 * chain if the filter names it (RBH_STEP_CHAIN + g for group g, in each
 * overflow bucket).  The walk runs in registers and writes the iterator
 * back when it returns a pointer.
 */
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
 * What rbh_first() does not do inline, and nothing else calls: continue
 * the walk of @rbhi past the home group of @key (the hash as rbh_key()
 * mixes it), in the bucket @bucket that @key indexes, whose home filter
 * has @dests for @key (shifted down; not 0).  Walks the other groups the
 * filter names, then the bucket's chain if it names that.
 *
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
	/* Past the primary bucket's last group: on to the chain */
	rbhi->index = 0;
	rbhi->step = RBH_STEP_CHAIN + RBH_GROUPS;
	return rbh_walk_on(rbhi);
}
EXPORT_SYMBOL_GPL(__rbh_first_spilled);

/**
 * rbh_next() - Return the next pointer stored under the walk's hash.
 * @rbhi: The iterator, started by rbh_first() or rbh_iter_lock().
 *
 * What rbh_first() promises of a walk holds for the pointers rbh_next()
 * returns too.  In a locked walk (rbh_iter_lock()), the first call returns
 * the first pointer, and the pointers returned are exactly those stored
 * under the hash, and maybe some stored under other hashes.  Once it has
 * returned NULL, or rbh_first() has, the walk is over: do not call it
 * again.
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
 * A rosebush with no table has no bucket to lock: take the resize lock,
 * under which the first table is published.  Call it as
 * rbh_lock_tableless(), which tells sparse about the lock.
 * Return: true, with the resize lock held, if there is still no table;
 * false, without it, if there is one now.
 */
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
 * While the bucket is locked, nothing can be stored under the hash or
 * removed from it except through this iterator, and rbh_next() returns
 * exactly the pointers stored under the hash (and maybe some stored under
 * other hashes).  A rosebush that has no table yet has no bucket to lock:
 * its resize lock is held instead, under which the first table is made,
 * so that nothing can be stored anywhere in it.  Unlock with
 * rbh_iter_unlock().  Until then, call no other rosebush function except
 * rbh_next(), rbh_iter_remove(), rbh_iter_replace() and rbh_iter_use()
 * on this iterator, on this rosebush (they may need the same lock) or on
 * another initialised at the same place (rbh_init(): lockdep would
 * report recursive locking).
 *
 * Context: Process context; may be called with spinlock_t locks held.
 * Takes the RCU read lock and a bucket lock (or the rosebush's resize
 * lock).  Does not sleep.
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

/*
 * Find where the pointer @p that rbh_next() has just returned through the
 * locked iterator is stored.  Return: false, with a warning, if that is
 * not what @p is (a caller bug).
 */
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
 * what rbh_next() just returned through the locked iterator (a caller
 * bug), in which case nothing was removed and @p is still the rosebush's.
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
 * The entry keeps its place and its hash; only its pointer changes, with
 * one rcu_assign_pointer().  A concurrent lookup of the hash therefore
 * finds @p or @new, never neither, which removing @p and inserting @new
 * cannot promise, and nothing is allocated.  Readers that found @p may
 * use it until a grace period has passed.  rbh_next() goes on after the
 * entry, so it does not return @new.
 *
 * Context: Between rbh_iter_lock() and rbh_iter_unlock().  Does not sleep.
 * Return: true if @new replaced @p; false, with a warning, if @new is
 * NULL or @p is not what rbh_next() just returned through the locked
 * iterator (caller bugs), in which case nothing changed.
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
 * Fill a slot that rbh_reserve() reserved for the iterator's hash, as
 * rbh_use() does, under the bucket lock the iterator already holds.  A
 * caller can then reserve (which may sleep), lock, look for an entry it
 * would clash with and store its own only if there is none, in one
 * critical section; it releases the reservation it did not use with
 * rbh_release() after rbh_iter_unlock().  The walk may or may not return
 * @p later on.
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
 * Releases the bucket lock (or the resize lock) and the RCU read lock
 * taken by rbh_iter_lock(); after a removal, may then take the shrink
 * lock and queue the shrink work, as rbh_remove() does.  Does not sleep.
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

/**
 * __rbh_init() - Initialise a rosebush, its locks in the classes given.
 * @rbh: The rosebush.
 * @flags: Any of &enum rbh_flags, or 0.
 * @keys: The lockdep classes of its locks, in static storage.
 *
 * Call rbh_init() or rbh_init_flags() instead, which give each place in
 * the source its own classes.  This is for bindings that make their own
 * keys.
 *
 * Context: Any context.
 */
void __rbh_init(struct rbh *rbh, unsigned int flags,
		struct rbh_lock_keys *keys)
{
	/*
	 * rbh_first() and rbh_remove() find a home group with the header's
	 * accessors (rbh_home_keys()), every other walk with rbh_keys():
	 * both must place the first and the last home group alike.
	 */
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
	spin_lock_init(&rbh->rbh_shrink_lock);
#ifdef CONFIG_LOCKDEP
	lockdep_set_class(&rbh->rbh_resize_lock, &keys->resize_lock);
	lockdep_set_class(&rbh->rbh_shrink_lock, &keys->shrink_lock);
	rbh->rbh_lock_keys = keys;
#endif
}
EXPORT_SYMBOL_GPL(__rbh_init);

/*
 * Make @rbh empty again, as rbh_init_flags() made it: the same flags,
 * the same classes.
 */
static void rbh_reinit(struct rbh *rbh)
{
	struct rbh_lock_keys *keys = NULL;

#ifdef CONFIG_LOCKDEP
	keys = rbh->rbh_lock_keys;
#endif
	__rbh_init(rbh, rbh->rbh_flags, keys);
}

/*
 * Walking the primary buckets of a table of depth @depth: the bucket in
 * slot @i, which the caller's RCU read lock or, if @owned, its ownership
 * of the rosebush protects, a key in its range, and the slot of the next
 * bucket.
 */
static struct rbh_bucket *rbh_walk(struct rbh_bucket __rcu **table,
				   unsigned int depth, unsigned long i,
				   u32 *ref, bool owned)
{
	*ref = (u32)(i << (32 - depth));
	return rcu_dereference_check(table[i], owned);
}

/*
 * The slot after the range of @bucket, read from slot @i.  Call it before
 * looking at what the bucket holds: a merge stores the entries it adds to
 * a bucket before it lowers the bucket's depth, with release, so a walk
 * that sees the lower depth, and so skips the other buddy's slots, sees
 * the entries that buddy had.
 */
static unsigned long rbh_walk_next(struct rbh_bucket *bucket,
				   unsigned int depth, unsigned long i)
{
	/* Pairs with smp_store_release() in rbh_merge_locked() */
	unsigned int d = smp_load_acquire(&bucket->h.depth);

	/*
	 * A merge may have made the bucket larger since slot @i was read:
	 * step to the end of its aligned range, not @i plus its size.
	 */
	return (i | ((1UL << (depth - min(d, depth))) - 1)) + 1;
}

/**
 * rbh_empty() - Is the rosebush empty?
 * @rbh: The rosebush.
 *
 * The answer may be out of date by the time it is returned if the
 * rosebush is being changed.  It takes time proportional to the size of
 * the table.
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
	if (table) {
		for (i = 0; i < (1UL << depth); i = next) {
			primary = rbh_walk(table, depth, i, &ref, false);
			next = rbh_walk_next(primary, depth, i);
			for (bucket = primary; bucket;
			     bucket = rcu_dereference(bucket->h.chain))
				if (READ_ONCE(bucket->h.count))
					empty = false;
			if (!empty)
				break;
		}
	}
	rcu_read_unlock();
	return empty;
}
EXPORT_SYMBOL_GPL(rbh_empty);

/*
 * Count the entries and reservations of one bucket into @stats, and those
 * of a primary bucket (@primary) that are not in their home group.
 */
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
 * If the rosebush is being changed, the snapshot may be inconsistent.  It
 * takes time proportional to the size of the rosebush, all of it under
 * the RCU read lock.
 *
 * Context: Process context.  Takes the RCU read lock.
 */
void rbh_stats(struct rbh *rbh, struct rbh_stats *stats)
{
	struct rbh_bucket __rcu **table;
	struct rbh_bucket *primary, *bucket;
	unsigned int depth, used;
	unsigned long i, next;
	u32 ref;

	memset(stats, 0, sizeof(*stats));
	stats->bucket_capacity = RBH_ENTRIES;
	stats->grows = READ_ONCE(rbh->rbh_grows);
	stats->shrinks = READ_ONCE(rbh->rbh_shrinks);
	stats->splits = READ_ONCE(rbh->rbh_splits);
	stats->merges = READ_ONCE(rbh->rbh_merges);

	rcu_read_lock();
	table = rbh_untag(rbh_table_word(rbh), &depth);
	if (table) {
		stats->table_slots = 1UL << depth;
		stats->bytes = rbh_table_bytes(depth);
		for (i = 0; i < (1UL << depth); i = next) {
			primary = rbh_walk(table, depth, i, &ref, false);
			next = rbh_walk_next(primary, depth, i);
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
	}
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(rbh_stats);

/*
 * Destroying a rosebush that is in use is a caller bug: warn if someone
 * holds one of its locks.
 */
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
	/*
	 * The caller owns the rosebush: no insertion or removal may queue
	 * the work now, and with it done, no resize is running
	 */
	cancel_work_sync(&rbh->rbh_shrink_work);
	WARN_ON_ONCE(rbh->rbh_future_table);
	rbh_check_idle(&rbh->rbh_resize_lock);
	rbh_check_idle(&rbh->rbh_shrink_lock);
	/* The caller owns the rosebush */
	table = rbh_untag(rcu_dereference_protected(rbh->rbh_table, true),
			  &depth);

	for (index = 0; free_fn && index < (1UL << depth);
	     index = rbh_walk_next(primary, depth, index)) {
		primary = rbh_walk(table, depth, index, &ref, true);
		for (bucket = primary; bucket;
		     bucket = rcu_dereference_protected(bucket->h.chain, 1)) {
			rbh_for_each_entry(g, i) {
				void *p = rcu_dereference_protected(rbh_slots(bucket, g)[i], 1);

				if (!rbh_entry_free(bucket, g, i, ref) && p)
					free_fn(p, arg);
			}
		}
		cond_resched();
	}

	for (index = 0; index < (1UL << depth);
	     index = rbh_walk_next(primary, depth, index)) {
		primary = rbh_walk(table, depth, index, &ref, true);
		rbh_check_idle(&primary->h.lock);
		/* The bucket's depth is needed to step to the next one */
		bucket = rcu_dereference_protected(primary->h.chain, 1);
		for (; bucket; bucket = next) {
			next = rcu_dereference_protected(bucket->h.chain, 1);
			kfree(bucket);
		}
		RCU_INIT_POINTER(primary->h.chain, NULL);
	}
	for (index = 0; index < (1UL << depth); ) {
		primary = rcu_dereference_protected(table[index], 1);
		index += 1UL << (depth - primary->h.depth);
		kfree(primary);
	}
	kvfree(table);
	rbh_reinit(rbh);
}

/**
 * rbh_destroy() - Free all memory used by a rosebush.
 * @rbh: The rosebush.
 *
 * The pointers stored in the rosebush are forgotten, not freed: see
 * rbh_free_and_destroy().  The rosebush is left empty and may be used
 * again.  Nobody else may use it during or after the call, and RCU
 * readers must be done with it, for example after synchronize_rcu().
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
 * @free_fn: Called once for every pointer stored (so twice for a pointer
 *	stored twice), with @arg.  Not called for reservations.
 * @arg: Passed to @free_fn.
 *
 * Like rbh_destroy(), but first hands every stored pointer to @free_fn,
 * which is called without locks held and may sleep.
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
