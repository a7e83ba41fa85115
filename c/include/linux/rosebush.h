/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Rosebush, a resizing, scalable, cache-aware, RCU-optimised hash table.
 * See Documentation/core-api/rosebush.rst for how to use it.
 */

#ifndef _LINUX_ROSEBUSH_H
#define _LINUX_ROSEBUSH_H

#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/gfp_types.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/lockdep_types.h>
#include <linux/mutex_types.h>
#include <linux/rcupdate.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/workqueue_types.h>

struct rbh_bucket;
/*
 * What struct rbh points to: a table of bucket pointers, tagged with its
 * depth (rbh_untag()).  Never dereferenced as it is, so never defined.
 */
struct rbh_table;

/* Removals that struct rbh remembers for its shrink work */
#define RBH_SHRINK_KEYS		6

/**
 * struct rbh_lock_keys - The lockdep classes of a rosebush's locks.
 * @resize_lock: rbh_resize_lock.
 * @shrink_lock: rbh_shrink_lock.
 * @bucket_lock: Every bucket lock.
 * @shrink_work: The shrink work, as flush_work() and the worker see it.
 *
 * rbh_init() gives each place that initialises rosebushes its own, so
 * that lockdep does not join the lock orders of unrelated users into
 * false cycles.  It must be static storage, as lockdep requires of keys
 * it has not registered.
 */
struct rbh_lock_keys {
	struct lock_class_key resize_lock;
	struct lock_class_key shrink_lock;
	struct lock_class_key bucket_lock;
	struct lock_class_key shrink_work;
};

/**
 * struct rbh - A rosebush.
 *
 * Embed it in a larger structure and initialise it with rbh_init(), or
 * define it with DEFINE_ROSEBUSH().  An initialised rosebush holds no
 * memory until the first rbh_insert() or rbh_reserve(); release what it
 * holds with rbh_destroy() or rbh_free_and_destroy().  A rosebush filled
 * with zeroes is not initialised: even a lookup in it is a bug.
 *
 * None of the fields may be used outside lib/rosebush.c.
 */
struct rbh {
	/* private: */
	/* Serialises changes to the table: grow, shrink, split, merge. */
	spinlock_t rbh_resize_lock;
	/* Tagged pointer to the table: see rbh_tag() and rbh_untag() */
	struct rbh_table __rcu *rbh_table;
	/* Under rbh_resize_lock: primary buckets, and those at full depth */
	unsigned int rbh_nr_buckets;
	unsigned int rbh_nr_deep;
	/*
	 * Written under rbh_resize_lock, read without it: the table is too
	 * large for its buckets, and it has become so since the shrink work
	 * last walked it
	 */
	bool rbh_oversized;
	bool rbh_walk_due;
	/*
	 * Under rbh_resize_lock, while a resize fills the next table in
	 * steps: the table, the slots of the current table it has copied,
	 * (halving) its buckets at its full depth, and whether it is larger.
	 */
	struct rbh_bucket __rcu **rbh_future_table;
	unsigned long rbh_future_copied;
	unsigned int rbh_future_deep;
	bool rbh_future_grows;
	/* From rbh_init_flags(), and what they add to a bucket's gfp flags */
	unsigned int rbh_flags;
	gfp_t rbh_gfp;
	/* Statistics, under rbh_resize_lock */
	unsigned long rbh_grows;
	unsigned long rbh_shrinks;
	unsigned long rbh_splits;
	unsigned long rbh_merges;
	/*
	 * The only resizer: grows and splits that insertions hand over,
	 * folds, merges and halvings that removals hand over, in process
	 * context; a work item never runs twice at once
	 */
	struct work_struct rbh_shrink_work;
	/*
	 * Keys of buckets that removals left ready to fold or merge, for
	 * the shrink work; rbh_shrink_nr > RBH_SHRINK_KEYS: too many, walk
	 * the table.  rbh_shrink_halve: a removal found the table ready to
	 * halve.  Written under rbh_shrink_lock; removals read the count
	 * and the flag without it.
	 */
	spinlock_t rbh_shrink_lock;
	bool rbh_shrink_halve;
	unsigned int rbh_shrink_nr;
	u32 rbh_shrink_keys[RBH_SHRINK_KEYS];
	/*
	 * Keys of full buckets that insertions did not split (the table
	 * must double first, or a chain be copied), for the shrink work to
	 * split.  Written under rbh_shrink_lock; insertions read them
	 * without it.
	 */
	unsigned int rbh_split_nr;
	u32 rbh_split_keys[RBH_SHRINK_KEYS];
#ifdef CONFIG_LOCKDEP
	/* The classes of the bucket locks and the shrink work */
	struct rbh_lock_keys *rbh_lock_keys;
#endif
};

/*
 * The table word of a rosebush that has no table: the shared table of
 * rbh_empty_table, 2 slots deep (a shift of 31), whose slots point at a
 * bucket that holds nothing, so that a lookup needs no test for it.
 */
extern struct rbh_bucket __rcu *const rbh_empty_table[];
#define RBH_NO_TABLE	((struct rbh_table __force __rcu *)		\
			 ((char *)rbh_empty_table + 31))

#ifdef CONFIG_LOCKDEP
/*
 * A compound literal outside a function is static storage: each rosebush
 * defined with DEFINE_ROSEBUSH() has bucket locks of its own class.  Its
 * other locks are static, and lockdep keys them by their addresses.
 */
#define RBH_LOCK_KEYS_INIT	.rbh_lock_keys = &(struct rbh_lock_keys){},
#else
#define RBH_LOCK_KEYS_INIT
#endif

/**
 * RBH_INIT() - Initialiser for a rosebush.
 * @name: The name of the struct rbh being initialised.
 *
 * For a rosebush in static storage only, as for any static lock
 * initialiser; use rbh_init() for any other.
 */
#define RBH_INIT(name) {						\
	.rbh_table = RBH_NO_TABLE,					\
	.rbh_resize_lock = __SPIN_LOCK_UNLOCKED(name.rbh_resize_lock),	\
	.rbh_shrink_lock = __SPIN_LOCK_UNLOCKED(name.rbh_shrink_lock),	\
	RBH_LOCK_KEYS_INIT						\
}

/**
 * DEFINE_ROSEBUSH() - Define a rosebush.
 * @name: A string that names the rosebush.
 *
 * For file scope definitions of rosebushes only: inside a function, its
 * lockdep key would not be static storage (and does not build with
 * lockdep).  It declares and initialises an empty rosebush with the
 * chosen name, as rbh_init() would, except that the rosebush has lockdep
 * classes of its own.
 */
#define DEFINE_ROSEBUSH(name)	struct rbh name = RBH_INIT(name)

/**
 * enum rbh_flags - How a rosebush allocates its buckets.
 * @RBH_ACCOUNT: Charge each bucket to the memory cgroup of the task that
 *	allocates it (__GFP_ACCOUNT), for a rosebush whose entries are.
 * @RBH_RECLAIMABLE: Take buckets from the reclaimable slab caches
 *	(__GFP_RECLAIMABLE), for a cache whose entries a shrinker frees.
 *
 * The table, one allocation shared by every entry, is never charged.
 */
enum rbh_flags {
	RBH_ACCOUNT		= BIT(0),
	RBH_RECLAIMABLE		= BIT(1),
};

void __rbh_init(struct rbh *rbh, unsigned int flags,
		struct rbh_lock_keys *keys);

/**
 * rbh_init_flags() - Initialise a rosebush that allocates as asked.
 * @rbh: The rosebush.
 * @flags: Any of &enum rbh_flags, or 0.
 *
 * Initialise a rosebush embedded in another structure, or one in static
 * storage that needs @flags.  It holds no memory until the first
 * rbh_insert() or rbh_reserve().
 *
 * The locks of every rosebush initialised at one place in the source
 * belong to one set of lockdep classes, and those of rosebushes
 * initialised at different places to different sets, as with
 * spin_lock_init().  A user whose rosebushes nest must initialise them at
 * different places.
 *
 * Context: Any context.  An unknown flag is a bug: it WARNs and is
 * ignored.
 */
#define rbh_init_flags(rbh, flags)					\
do {									\
	static struct rbh_lock_keys __rbh_keys;				\
									\
	__rbh_init((rbh), (flags), &__rbh_keys);			\
} while (0)

/**
 * rbh_init() - Initialise a rosebush.
 * @rbh: The rosebush.
 *
 * rbh_init_flags() with no flags: a rosebush defined with
 * DEFINE_ROSEBUSH() is already initialised so.
 *
 * Context: Any context.
 */
#define rbh_init(rbh)	rbh_init_flags(rbh, 0)

bool rbh_empty(const struct rbh *rbh);
int __must_check rbh_insert(struct rbh *rbh, u32 hash, void *p);
int __must_check rbh_reserve(struct rbh *rbh, u32 hash);
void rbh_reserve_nofail(struct rbh *rbh, u32 hash);
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
 * Context: As rbh_remove(): process context, may be called with
 * spinlock_t locks held.  Takes and releases a bucket lock, then maybe
 * the shrink lock, and may queue the shrink work.  Does not sleep.
 * Return: 0 on success, -ENOENT if no slot was reserved for @hash.
 */
static inline int rbh_release(struct rbh *rbh, u32 hash)
{
	return rbh_remove(rbh, hash, NULL);
}

/**
 * struct rbh_iter - A walk of the pointers stored under one hash.
 * @rbh: The rosebush being walked, for a locked walk.
 * @hash: The hash value being looked up, for a locked walk.
 *
 * A walk under the RCU read lock starts with rbh_first(), which sets
 * the iterator up: declare it without an initialiser.  A locked walk
 * (rbh_iter_lock()) starts from RBH_ITER().
 */
struct rbh_iter {
	struct rbh *rbh;
	u32 hash;
	/* private: */
	u32 key;
	u32 dests;		/* The home filter's bits for the key */
	u8 index;		/* Next entry of the group being walked */
	u8 step;		/* That group (and destination) */
	bool removed;
	bool no_table;		/* rbh_iter_lock() holds the resize lock */
	struct rbh_bucket *bucket;
	struct rbh_bucket *locked;
};

/**
 * RBH_ITER() - Declare an iterator for a locked walk of a hash.
 * @name: The name of the iterator.
 * @_rbh: The rosebush to look in.
 * @_hash: The hash value to look up.
 */
#define RBH_ITER(name, _rbh, _hash)					\
	struct rbh_iter name = { .rbh = _rbh, .hash = _hash, }

void rbh_iter_lock(struct rbh_iter *rbhi) __acquires(RCU) __acquires(rbhi);
bool rbh_iter_remove(struct rbh_iter *rbhi, void *p);
bool rbh_iter_replace(struct rbh_iter *rbhi, void *p, void *new);
int rbh_iter_use(struct rbh_iter *rbhi, void *p);
void rbh_iter_unlock(struct rbh_iter *rbhi) __releases(RCU) __releases(rbhi);

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
 * @widest: The most slots of the table that point at one primary bucket:
 *	at most 1024 (see "Resizing in bounded steps" in
 *	Documentation/core-api/rosebush.rst).
 * @bytes: Memory held by the rosebush: the table and every bucket.
 * @bucket_capacity: Entries one bucket holds on this configuration.
 * @occupancy: @occupancy[n] is the number of primary buckets holding
 *	n entries or reservations, for n up to @bucket_capacity.
 * @spilled: Entries and reservations in primary buckets that are not in
 *	their home group, so that finding them reads a second cache line
 *	(see "Buckets" in Documentation/core-api/rosebush.rst).
 * @grows: Times the table doubled.
 * @shrinks: Times the table halved.
 * @splits: Buckets split because they were full.
 * @merges: Pairs of buddy buckets merged into one.
 */
struct rbh_stats {
	unsigned long entries;
	unsigned long reserved;
	unsigned long buckets;
	unsigned long overflow_buckets;
	unsigned long table_slots;
	unsigned long widest;
	unsigned long bytes;
	unsigned int bucket_capacity;
	unsigned long occupancy[RBH_MAX_ENTRIES + 1];
	unsigned long spilled;
	unsigned long grows;
	unsigned long shrinks;
	unsigned long splits;
	unsigned long merges;
};

void rbh_stats(struct rbh *rbh, struct rbh_stats *stats);

/*
 * Private: the bucket format, which rbh_first() reads inline so that a
 * lookup costs no call.  Nothing else outside lib/rosebush.c may use it.
 * See "Buckets" in Documentation/core-api/rosebush.rst.
 *
 * A bucket is 256 bytes: a header, then entries in *groups*, each of which
 * has a 64-byte cache line to itself (the header's line holds a shorter
 * group).  A group is a filter word, the keys and the pointers, so that a
 * lookup finds its key and its pointer in one line: that of its key's
 * *home* group.  An entry whose home group is full goes to another group
 * of the bucket, or to the bucket's overflow chain, and its home group's
 * filter records which one.  The number of entries depends on the size of
 * spinlock_t, which lock debugging makes much larger.
 */
struct rbh_bucket_head {
	/* Serialises changes to this bucket and its chain */
	spinlock_t lock;
	u8 depth;		/* The bucket holds keys with this many top bits */
	u8 flags;
	u8 count;		/* Entries in use (stored or reserved) */
	struct rbh_bucket __rcu *chain;	/* Overflow buckets */
	union {
		/*
		 * The first bucket of a chain, under the primary's lock:
		 * every key stored in the chain equals chain_ref in the
		 * bits that chain_diff does not set.
		 */
		struct {
			u32 chain_ref;
			u32 chain_diff;
		};
		/* Dead: freed after a grace period */
		struct rcu_head rcu;
	};
};

#define RBH_BUCKET_SIZE	(sizeof(struct rbh_bucket_head) > 128 ? 512 : 256)
#define RBH_GROUP_SIZE	64
#define RBH_GROUPS	(RBH_BUCKET_SIZE / RBH_GROUP_SIZE)
#define RBH_ENTRY_SIZE	(sizeof(u32) + sizeof(void *))
/* Entries in a whole group: 5 on 64-bit, 7 on 32-bit */
#define RBH_GROUP_MAX	((RBH_GROUP_SIZE - sizeof(u32)) / RBH_ENTRY_SIZE)
/* The group in which the header ends, and what is left of it */
#define RBH_HEAD_GROUP	((sizeof(struct rbh_bucket_head) - 1) / RBH_GROUP_SIZE)
#define RBH_HEAD_ROOM	((RBH_HEAD_GROUP + 1) * RBH_GROUP_SIZE -	\
			 sizeof(struct rbh_bucket_head))
#define RBH_HEAD_ENTRIES (sizeof(u32) + RBH_ENTRY_SIZE > RBH_HEAD_ROOM ? 0 : \
			  (RBH_HEAD_ROOM - sizeof(u32)) / RBH_ENTRY_SIZE)
/* The whole groups, after the header's: the homes */
#define RBH_HOMES	(RBH_GROUPS - 1 - RBH_HEAD_GROUP)
#define RBH_ENTRIES	(RBH_HEAD_ENTRIES + RBH_HOMES * RBH_GROUP_MAX)

/*
 * A whole group ends its cache line with its pointers, which that aligns;
 * the keys come before them and the filter before the keys.  The header's
 * group is laid out in the same way in what the header leaves.
 */
#define RBH_WHOLE_KEYS	(RBH_GROUP_SIZE - RBH_GROUP_MAX * RBH_ENTRY_SIZE)
#define RBH_WHOLE_SLOTS	(RBH_GROUP_SIZE - RBH_GROUP_MAX * sizeof(void *))

struct rbh_bucket {
	union {
		struct rbh_bucket_head h;
		u8 bytes[RBH_BUCKET_SIZE];
	};
};

/*
 * Each group's filter has RBH_GROUPS fields of RBH_FILTER_BITS bits, one
 * for each *destination* of entries whose home it is: destination s - 1
 * is the group whose number is the home's XOR s (for s from 1 to
 * RBH_GROUPS - 1), and destination RBH_CHAIN_DEST the overflow chain.  An
 * entry stored in a destination sets the bit of that field its key
 * selects, so a lookup looks in a destination only if its bit is set
 * there, and most lookups that find nothing in the home group stop.
 */
#define RBH_FILTER_BITS	(32 / RBH_GROUPS)
#define RBH_CHAIN_DEST	(RBH_GROUPS - 1)
/* The lowest bit of every field */
#define RBH_FILTER_LOW	(RBH_GROUPS == 4 ? 0x01010101U : 0x11111111U)

/*
 * The table word keeps in its low bits the shift that turns a key into a
 * slot of the table: 32 less the table's depth, from 31 (the first table,
 * two slots) down to 5 (2^27 slots, the deepest on 64-bit) or 4 (2^28, on
 * 32-bit); tables are at least 32 bytes, so the five bits are free.
 */
#define RBH_SHIFT_MASK	31UL
/* rbhi->step once an iteration has ended */
#define RBH_ITER_DONE	U8_MAX

/*
 * Readers may hold any flavour of the RCU read lock: rcu_read_lock(),
 * rcu_read_lock_bh(), rcu_read_lock_sched() or anything that disables
 * preemption, as one grace period waits for them all.
 */
#define rbh_dereference(p)	rcu_dereference_check(p, rcu_read_lock_any_held())

/*
 * The table of a table word and its depth, for writers: NULL and 0 for
 * none, whether the word is RBH_NO_TABLE or NULL (rbh_table_peek() of a
 * rosebush without a table).  Readers index the table with
 * rbh_table_bucket(), which needs no test for RBH_NO_TABLE.
 */
static __always_inline struct rbh_bucket __rcu **
rbh_untag(const struct rbh_table *tagged, unsigned int *depth)
{
	unsigned long word = (unsigned long)tagged;

	if (!tagged || tagged == (__force struct rbh_table *)RBH_NO_TABLE) {
		*depth = 0;
		return NULL;
	}
	*depth = 32 - (word & RBH_SHIFT_MASK);
	return (struct rbh_bucket __rcu **)(word & ~RBH_SHIFT_MASK);
}

/*
 * Buckets store keys, not the caller's hashes: multiplying by an odd
 * constant is a bijection, so equal keys mean equal hashes, and it spreads
 * hashes whose information is all in their low bits over the top bits,
 * which index the table.
 */
static __always_inline u32 rbh_key(u32 hash)
{
	return hash * GOLDEN_RATIO_32;
}

/* The slot of a table of depth @depth that @key indexes. */
static __always_inline unsigned long rbh_index(u32 key, unsigned int depth)
{
	return key >> (32 - depth);
}

/*
 * The keys in a bucket share their top bits, which chose the bucket; the
 * home group and the filter bits come from the top bits of another odd
 * multiple of the key, which depend on all of its bits.
 */
static __always_inline u32 rbh_mix(u32 key)
{
	return key * 0x85ebca6bU;
}

/* The home group of @key: each whole group is the home of a third. */
static __always_inline unsigned int rbh_home(u32 key)
{
	return RBH_HEAD_GROUP + 1 + (((u64)rbh_mix(key) * RBH_HOMES) >> 32);
}

/* Which bit of each destination's field of a filter @key selects */
static __always_inline unsigned int rbh_filter_shift(u32 key)
{
	return (rbh_mix(key) >> 16) & (RBH_FILTER_BITS - 1);
}

/* The filter bits @key selects, one in each destination's field. */
static __always_inline u32 rbh_filter_mask(u32 key)
{
	return RBH_FILTER_LOW << rbh_filter_shift(key);
}

static __always_inline u32 *rbh_home_keys(struct rbh_bucket *bucket,
					  unsigned int g)
{
	return (u32 *)(bucket->bytes + g * RBH_GROUP_SIZE + RBH_WHOLE_KEYS);
}

static __always_inline void __rcu **rbh_home_slots(struct rbh_bucket *bucket,
						   unsigned int g)
{
	return (void __rcu **)(bucket->bytes + g * RBH_GROUP_SIZE +
			       RBH_WHOLE_SLOTS);
}

static __always_inline u32 *rbh_home_filter(struct rbh_bucket *bucket,
					    unsigned int g)
{
	return rbh_home_keys(bucket, g) - 1;
}

void *rbh_next(struct rbh_iter *rbhi);
/* Private: what rbh_first() does not do inline */
void *__rbh_first_spilled(struct rbh_iter *rbhi, struct rbh_bucket *bucket,
			  u32 key, unsigned int dests);

/* The bucket that @key indexes in the table @tagged. */
static __always_inline struct rbh_bucket *
rbh_table_bucket(const struct rbh_table *tagged, u32 key)
{
	unsigned long word = (unsigned long)tagged;
	struct rbh_bucket __rcu **table;

	table = (struct rbh_bucket __rcu **)(word & ~RBH_SHIFT_MASK);
	return rbh_dereference(table[key >> (word & RBH_SHIFT_MASK)]);
}

/*
 * A bit for each entry of whole group @g of @bucket that holds @key.  The
 * keys are compared without a branch that depends on which one matches,
 * in a loop the compiler unrolls, so that a hit anywhere in the group
 * costs what a miss does.
 */
static __always_inline unsigned int rbh_group_match(struct rbh_bucket *bucket,
						    unsigned int g, u32 key)
{
	u32 *keys = rbh_home_keys(bucket, g);
	unsigned int i, match = 0;

	for (i = 0; i < RBH_GROUP_MAX; i++)
		match |= (unsigned int)(READ_ONCE(keys[i]) == key) << i;
	return match;
}

/**
 * rbh_first() - Start a walk of the pointers stored under a hash.
 * @rbhi: The iterator, which need not be initialised.
 * @rbh: The rosebush.
 * @hash: The hash value to look up.
 *
 * Return the first of the pointers stored under @hash, and make @rbhi
 * ready for rbh_next() to return the others.  Every pointer that was
 * stored under the hash before the walk began and not removed before it
 * ends is returned, even if the table changes shape in the meantime.
 * Pointers stored under other hashes, pointers removed during the walk,
 * and a pointer twice may be returned as well: check that the object
 * matches.  rbh_for_each_possible() is the loop to write.
 *
 * Most walks read one cache line of one bucket and end there, hit or
 * miss.  That part is inline, as rhashtable_lookup() is, and writes the
 * iterator only when it has found an entry or must look further; the
 * rest is out of line.  Only rbh_next() may use the iterator afterwards,
 * and only until one of the two has returned NULL: a miss may leave the
 * iterator as it found it, unwritten.  rbh_iter_remove() and its kin are
 * for locked walks (rbh_iter_lock()).
 *
 * Context: Any context, with the RCU read lock held (rcu_read_lock(),
 * rcu_read_lock_bh() or rcu_read_lock_sched()).  Does not sleep.
 * Return: The first pointer, or NULL if there is none.
 */
static __always_inline void *rbh_first(struct rbh_iter *rbhi,
				       const struct rbh *rbh, u32 hash)
{
	unsigned int g, i, match, dests;
	u32 key = rbh_key(hash);
	struct rbh_table *tagged;
	struct rbh_bucket *bucket;
	void *p;

	/* Pairs with rcu_assign_pointer() in rbh_publish_table() */
	tagged = rbh_dereference(rbh->rbh_table);
	bucket = rbh_table_bucket(tagged, key);
	g = rbh_home(key);
	match = rbh_group_match(bucket, g, key);
	if (likely(match)) {
		i = __ffs(match);
		/*
		 * Read the pointer after its key.  Pairs with
		 * smp_store_release() in rbh_set_entry().
		 */
		smp_rmb();
		p = rbh_dereference(rbh_home_slots(bucket, g)[i]);
		rbhi->key = key;
		rbhi->bucket = bucket;
		rbhi->index = i + 1;
		rbhi->step = 0;
		if (likely(p))
			return p;
		/* A reservation: go on from the next entry */
		return rbh_next(rbhi);
	}
	/*
	 * Entries never move within a bucket (a split, merge or fold
	 * copies them and leaves this bucket as it was), so the filter may
	 * be read at any time after the walk began: an entry stored before
	 * then set its bit before it was stored, and the bit stays set
	 * while the entry is stored here.
	 */
	dests = (READ_ONCE(*rbh_home_filter(bucket, g)) >>
		 rbh_filter_shift(key)) & RBH_FILTER_LOW;
	if (likely(!dests))
		return NULL;
	return __rbh_first_spilled(rbhi, bucket, key, dests);
}

/**
 * rbh_for_each_possible() - Walk the pointers stored under a hash.
 * @p: The pointer to use as a loop cursor.
 * @rbhi: The &struct rbh_iter to use as the walk's state.
 * @rbh: The rosebush.
 * @hash: The hash value to look up.
 *
 * The loop of rbh_first() and rbh_next(), as hash_for_each_possible_rcu()
 * is for a hashtable: the body must check that @p is the object it looks
 * for, and may break out of the loop at any time.
 *
 * Context: Any context, with the RCU read lock held.  Does not sleep.
 */
#define rbh_for_each_possible(p, rbhi, rbh, hash)			\
	for (p = rbh_first(rbhi, rbh, hash); p; p = rbh_next(rbhi))

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Every allocation the rosebush makes goes through one of these
 * functions, which the KUnit suite redirects (kunit/static_stub.h) to
 * inject allocation failures.  Not for any other use.
 */
struct rbh_bucket *rbh_alloc_bucket(gfp_t gfp);
void *rbh_alloc_table(unsigned int depth, gfp_t gfp);
#endif

#endif /* _LINUX_ROSEBUSH_H */
