/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Rosebush, a resizing, scalable, cache-aware, RCU-optimised hash table.
 * See Documentation/core-api/rosebush.rst for how to use it.
 */

#ifndef _LINUX_ROSEBUSH_H
#define _LINUX_ROSEBUSH_H

#include <linux/compiler.h>
#include <linux/gfp_types.h>
#include <linux/rcupdate.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/workqueue_types.h>

struct rbh_bucket;

/**
 * struct rbh - A rosebush.
 *
 * Embed it in a larger structure and initialise it with rbh_init(), or
 * define it with DEFINE_ROSEBUSH().  An initialised rosebush holds no
 * memory until the first rbh_insert() or rbh_reserve(); release what it
 * holds with rbh_destroy() or rbh_free_and_destroy().
 *
 * None of the fields may be used outside lib/rosebush.c.
 */
struct rbh {
	/* private: */
	/* Serialises changes to the table: grow, shrink, split, merge. */
	spinlock_t rbh_resize_lock;
	/* Tagged pointer to the table: see rbh_tagged_table() */
	unsigned long rbh_table;
	/* Under rbh_resize_lock: primary buckets, and those at full depth */
	unsigned int rbh_nr_buckets;
	unsigned int rbh_nr_deep;
	/* Statistics, under rbh_resize_lock */
	unsigned long rbh_grows;
	unsigned long rbh_shrinks;
	unsigned long rbh_splits;
	unsigned long rbh_contention_splits;
	unsigned long rbh_merges;
	/* Halves a table too large to allocate without sleeping */
	struct work_struct rbh_shrink_work;
	/* The table replaced by a halving that could not sleep */
	void *rbh_retired;
	struct rcu_head rbh_rcu;
};

/**
 * RBH_INIT() - Initialiser for a rosebush.
 * @name: The name of the struct rbh being initialised.
 */
#define RBH_INIT(name) {						\
	.rbh_resize_lock = __SPIN_LOCK_UNLOCKED(name.rbh_resize_lock),	\
}

/**
 * DEFINE_ROSEBUSH() - Define a rosebush.
 * @name: A string that names the rosebush.
 *
 * This is intended for file scope definitions of rosebushes.  It
 * declares and initialises an empty rosebush with the chosen name.  It
 * is equivalent to calling rbh_init() on the rosebush.
 */
#define DEFINE_ROSEBUSH(name)	struct rbh name = RBH_INIT(name)

void rbh_init(struct rbh *rbh);
bool rbh_empty(const struct rbh *rbh);
int __must_check rbh_insert(struct rbh *rbh, u32 hash, void *p);
int __must_check rbh_reserve(struct rbh *rbh, u32 hash);
int rbh_use(struct rbh *rbh, u32 hash, void *p);
int rbh_remove(struct rbh *rbh, u32 hash, void *p);
void rbh_destroy(struct rbh *rbh);
void rbh_free_and_destroy(struct rbh *rbh,
			  void (*free_fn)(void *ptr, void *arg), void *arg);

/**
 * rbh_release() - Release a reserved slot in a rosebush.
 * @rbh: The rosebush.
 * @hash: The hash value that was reserved.
 *
 * If you decide that you do not need a slot you reserved with
 * rbh_reserve(), call this function to release it.
 *
 * Context: Process context.  Takes and releases a bucket lock and may
 * take the rosebush's resize lock.  Does not sleep.
 * Return: 0 on success, -ENOENT if no slot was reserved for @hash.
 */
static inline int rbh_release(struct rbh *rbh, u32 hash)
{
	return rbh_remove(rbh, hash, NULL);
}

/**
 * struct rbh_iter - An iterator over the pointers stored under one hash.
 * @rbh: The rosebush being iterated.
 * @hash: The hash value being looked up.
 *
 * Declare and initialise it with RBH_ITER().
 */
struct rbh_iter {
	struct rbh *rbh;
	u32 hash;
	/* private: */
	u32 key;
	struct rbh_bucket *bucket;
	struct rbh_bucket *locked;
	unsigned int index;
	bool in_chain;
	bool removed;
};

/**
 * RBH_ITER() - Declare an iterator over the pointers stored under a hash.
 * @name: The name of the iterator.
 * @_rbh: The rosebush to look in.
 * @_hash: The hash value to look up.
 */
#define RBH_ITER(name, _rbh, _hash)					\
	struct rbh_iter name = { .rbh = _rbh, .hash = _hash, }

void *rbh_next(struct rbh_iter *rbhi);
void rbh_iter_lock(struct rbh_iter *rbhi);
void rbh_iter_remove(struct rbh_iter *rbhi, void *p);
void rbh_iter_unlock(struct rbh_iter *rbhi);

/* The largest number of entries any bucket holds, on any configuration. */
#define RBH_MAX_ENTRIES	32

/**
 * struct rbh_stats - A snapshot of a rosebush's shape.
 * @entries: Pointers stored (reserved slots excluded).
 * @reserved: Slots reserved by rbh_reserve() and not yet used or released.
 * @buckets: Primary buckets (those the table points at).
 * @overflow_buckets: Buckets chained from a primary bucket that could not
 *	be split (see "Equal hashes" in Documentation/core-api/rosebush.rst).
 * @table_slots: Slots in the top-level table (a power of two, or 0).
 * @bytes: Memory held by the rosebush: the table and every bucket.
 * @bucket_capacity: Entries one bucket holds on this configuration.
 * @occupancy: @occupancy[n] is the number of primary buckets holding
 *	n entries or reservations, for n up to @bucket_capacity.
 * @grows: Times the table doubled.
 * @shrinks: Times the table halved.
 * @splits: Buckets split because they were full.
 * @contention_splits: Buckets split because their lock was contended.
 * @merges: Pairs of buddy buckets merged into one.
 */
struct rbh_stats {
	unsigned long entries;
	unsigned long reserved;
	unsigned long buckets;
	unsigned long overflow_buckets;
	unsigned long table_slots;
	unsigned long bytes;
	unsigned int bucket_capacity;
	unsigned long occupancy[RBH_MAX_ENTRIES + 1];
	unsigned long grows;
	unsigned long shrinks;
	unsigned long splits;
	unsigned long contention_splits;
	unsigned long merges;
};

void rbh_stats(struct rbh *rbh, struct rbh_stats *stats);

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Every allocation the rosebush makes goes through one of these two
 * functions, which the KUnit suite redirects (kunit/static_stub.h) to
 * inject allocation failures.  Not for any other use.
 */
struct rbh_bucket *rbh_alloc_bucket(gfp_t gfp);
void *rbh_alloc_table(unsigned int depth, gfp_t gfp);
#endif

#endif /* _LINUX_ROSEBUSH_H */
