/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * Rosebush, a resizing, scalable, cache-aware, RCU-optimised hash table.
 * See Documentation/core-api/rosebush.rst.
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
#include <linux/rcupdate.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/workqueue_types.h>

struct rbh_bucket;
/* Opaque: a bucket table tagged with 32 - depth, its shift from key to slot */
struct rbh_table;

/* Buckets of each kind that struct rbh keeps for its work item */
#define RBH_WORK_KEYS		6

/**
 * struct rbh_lock_keys - Lockdep classes: a static set per rbh_init() site.
 * @resize_lock: rbh_resize_lock.
 * @work_lock: rbh_work_lock.
 * @bucket_lock: Every bucket lock.
 * @work: The work item.
 */
struct rbh_lock_keys {
	struct lock_class_key resize_lock;
	struct lock_class_key work_lock;
	struct lock_class_key bucket_lock;
	struct lock_class_key work;
};

/**
 * struct rbh - A rosebush.
 *
 * Initialise with rbh_init() or DEFINE_ROSEBUSH() (zeroes are not enough);
 * free with rbh_destroy() or rbh_free_and_destroy().
 */
struct rbh {
	/* private: */
	spinlock_t rbh_resize_lock;	/* Serialises table changes */
	struct rbh_table __rcu *rbh_table;	/* See rbh_untag() */
	/* Written under rbh_resize_lock: primary, full-depth bucket counts */
	unsigned int rbh_nr_buckets;
	unsigned int rbh_nr_deep;
	/* Written under rbh_resize_lock: see rbh_note_size() */
	bool rbh_oversized;
	bool rbh_walk_due;
	/* Under rbh_resize_lock, while a resize fills the next table */
	struct rbh_bucket __rcu **rbh_future_table;
	unsigned long rbh_future_copied;
	unsigned int rbh_future_deep;
	bool rbh_future_grows;
	/* From rbh_init_flags(), and the gfp flags they add for buckets */
	unsigned int rbh_flags;
	gfp_t rbh_gfp;
	/* Statistics, written under rbh_resize_lock */
	unsigned long rbh_grows;
	unsigned long rbh_shrinks;
	unsigned long rbh_splits;
	unsigned long rbh_merges;
	/* Resizes the table; splits, folds and merges what is handed over */
	struct work_struct rbh_work;
	/*
	 * Written under rbh_work_lock, read without: buckets to fold or merge
	 * (more than RBH_WORK_KEYS: walk the table), and a halving request
	 */
	spinlock_t rbh_work_lock;
	bool rbh_shrink_halve;
	unsigned int rbh_shrink_nr;
	u32 rbh_shrink_keys[RBH_WORK_KEYS];
	/* Under rbh_work_lock: buckets to split, read by rbh_handed_over() */
	unsigned int rbh_split_nr;
	u32 rbh_split_keys[RBH_WORK_KEYS];
#ifdef CONFIG_LOCKDEP
	struct rbh_lock_keys *rbh_lock_keys;
#endif
};

/* No table: a shared table whose slots point at an empty bucket */
extern struct rbh_bucket __rcu *const rbh_empty_table[];
#define RBH_NO_TABLE	((struct rbh_table __force __rcu *)		\
			 ((char *)rbh_empty_table + 31))

#ifdef CONFIG_LOCKDEP
/* At file scope, static: each DEFINE_ROSEBUSH() gets classes of its own */
#define RBH_LOCK_KEYS_INIT	.rbh_lock_keys = &(struct rbh_lock_keys){},
#else
#define RBH_LOCK_KEYS_INIT
#endif

/**
 * RBH_INIT() - Initialiser for a rosebush in static storage.
 * @name: The name of the struct rbh being initialised.
 */
#define RBH_INIT(name) {						\
	.rbh_table = RBH_NO_TABLE,					\
	.rbh_resize_lock = __SPIN_LOCK_UNLOCKED(name.rbh_resize_lock),	\
	.rbh_work_lock = __SPIN_LOCK_UNLOCKED(name.rbh_work_lock),	\
	RBH_LOCK_KEYS_INIT						\
}

/**
 * DEFINE_ROSEBUSH() - Define a rosebush, at file scope only.
 * @name: The name of the rosebush.
 */
#define DEFINE_ROSEBUSH(name)	struct rbh name = RBH_INIT(name)

/**
 * enum rbh_flags - How a rosebush allocates its buckets.
 * @RBH_ACCOUNT: Charge buckets, not the table, to the memory cgroup of the
 *	allocating task (__GFP_ACCOUNT).
 * @RBH_RECLAIMABLE: Allocate buckets from reclaimable slab caches
 *	(__GFP_RECLAIMABLE), for a cache whose entries a shrinker frees.
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
 * Rosebushes initialised at one place share lockdep classes, as with
 * spin_lock_init(): initialise rosebushes that nest at different places.
 *
 * Context: Any context.  An unknown flag WARNs and is ignored.
 */
#define rbh_init_flags(rbh, flags)					\
do {									\
	static struct rbh_lock_keys __rbh_keys;				\
									\
	__rbh_init((rbh), (flags), &__rbh_keys);			\
} while (0)

/**
 * rbh_init() - Initialise a rosebush, with no flags.
 * @rbh: The rosebush.
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
 * rbh_release() - Release an unused slot reserved with rbh_reserve().
 * @rbh: The rosebush.
 * @hash: The hash value that was reserved.
 *
 * Context: As rbh_remove(): process context; may be called with spinlock_t
 * locks held.  Takes a bucket lock, maybe the work lock.  Does not sleep.
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
 * rbh_first() sets it up; declare one for rbh_iter_lock() with RBH_ITER().
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

/* The most entries a bucket holds, on any configuration */
#define RBH_MAX_ENTRIES	32

/**
 * struct rbh_stats - A snapshot of a rosebush's shape.
 * @entries: Pointers stored (reserved slots excluded).
 * @reserved: Slots reserved and not yet used or released.
 * @buckets: Primary buckets (those the table points at).
 * @overflow_buckets: Buckets chained from a primary bucket (see "Equal
 *	hashes and chosen hashes" in Documentation/core-api/rosebush.rst).
 * @table_slots: Slots in the table (a power of two, or 0).
 * @widest: The most table slots that point at one primary bucket (see
 *	"Resizing" in Documentation/core-api/rosebush.rst).
 * @bytes: Memory held: the table and every bucket.
 * @bucket_capacity: Entries one bucket holds.
 * @occupancy: [n] counts primary buckets holding n entries or reservations.
 * @spilled: Entries and reservations of primary buckets outside their home
 *	group (see "Buckets" in Documentation/core-api/rosebush.rst).
 * @grows: Times the table doubled.
 * @shrinks: Times the table halved.
 * @splits: Buckets split in two.
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
 * Private: the bucket format, for rbh_first().  See "Buckets" in
 * Documentation/core-api/rosebush.rst.
 */
struct rbh_bucket_head {
	spinlock_t lock;	/* Serialises this bucket and its chain */
	u8 depth;		/* Its keys share this many top bits */
	u8 flags;
	u8 count;		/* Entries in use (stored or reserved) */
	struct rbh_bucket __rcu *chain;	/* Overflow buckets */
	union {
		/* First of a chain, under primary's lock: rbh_chain_start() */
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
/* Entries in a whole group */
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

/* Offsets of a whole group's keys and pointers, which end its line */
#define RBH_WHOLE_KEYS	(RBH_GROUP_SIZE - RBH_GROUP_MAX * RBH_ENTRY_SIZE)
#define RBH_WHOLE_SLOTS	(RBH_GROUP_SIZE - RBH_GROUP_MAX * sizeof(void *))

struct rbh_bucket {
	union {
		struct rbh_bucket_head h;
		u8 bytes[RBH_BUCKET_SIZE];
	};
};

/*
 * A home group's filter has a field of RBH_FILTER_BITS bits per destination:
 * destination d is group home ^ (d + 1), and RBH_CHAIN_DEST the chain.
 */
#define RBH_FILTER_BITS	(32 / RBH_GROUPS)
#define RBH_CHAIN_DEST	(RBH_GROUPS - 1)
/* The lowest bit of every field */
#define RBH_FILTER_LOW	(RBH_GROUPS == 4 ? 0x01010101U : 0x11111111U)

/* The table word's low bits: 32 less the table's depth, a key's shift */
#define RBH_SHIFT_MASK	31UL
/* rbhi->step once a walk has ended */
#define RBH_ITER_DONE	U8_MAX

/* Readers may hold any flavour of the RCU read lock */
#define rbh_dereference(p)	rcu_dereference_check(p, rcu_read_lock_any_held())

/* For writers: the table and depth of @tagged; NULL and 0 for none */
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

/* The key stored for @hash: a bijection, spreading it to the top bits */
static __always_inline u32 rbh_key(u32 hash)
{
	return hash * GOLDEN_RATIO_32;
}

/* The slot of a table of depth @depth that @key indexes */
static __always_inline unsigned long rbh_index(u32 key, unsigned int depth)
{
	return key >> (32 - depth);
}

/* An odd multiple of @key, whose upper half picks its home and filter bit */
static __always_inline u32 rbh_mix(u32 key)
{
	return key * 0x85ebca6bU;
}

/* The home group of @key: one of the RBH_HOMES whole groups, evenly */
static __always_inline unsigned int rbh_home(u32 key)
{
	return RBH_HEAD_GROUP + 1 + (((u64)rbh_mix(key) * RBH_HOMES) >> 32);
}

/* The bit @key selects in each destination's field of a filter */
static __always_inline unsigned int rbh_filter_shift(u32 key)
{
	return (rbh_mix(key) >> 16) & (RBH_FILTER_BITS - 1);
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

/* The bucket that @key indexes in the table @tagged */
static __always_inline struct rbh_bucket *
rbh_table_bucket(const struct rbh_table *tagged, u32 key)
{
	unsigned long word = (unsigned long)tagged;
	struct rbh_bucket __rcu **table;

	table = (struct rbh_bucket __rcu **)(word & ~RBH_SHIFT_MASK);
	return rbh_dereference(table[key >> (word & RBH_SHIFT_MASK)]);
}

/* A bit for each entry of whole group @g of @bucket that holds @key */
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
 * With rbh_next(), returns every pointer stored under @hash before the walk
 * began and not removed before it ends, even across resizes, and maybe others
 * (stored under other hashes, removed, or twice): check the object matches.
 * Only rbh_next() may use @rbhi afterwards, until either returns NULL.
 *
 * Context: Any context, under any flavour of RCU read lock.  Does not sleep.
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
		/* Pairs with smp_store_release() in rbh_set_entry() */
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
	 * No barrier: rbh_filter_add() sets a bit before its entry, which never
	 * moves, and rbh_remove_entry() and rbh_refilter() clear a bit only when
	 * no entry needs it.  See "Publishing entries" in rosebush.rst.
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
 * The body must check that @p is the object sought (see rbh_first()).
 *
 * Context: Any context, under any flavour of RCU read lock.  Does not sleep.
 */
#define rbh_for_each_possible(p, rbhi, rbh, hash)			\
	for (p = rbh_first(rbhi, rbh, hash); p; p = rbh_next(rbhi))

#if IS_ENABLED(CONFIG_KUNIT)
/* All allocations go through these, for the KUnit suite to make fail */
struct rbh_bucket *rbh_alloc_bucket(gfp_t gfp);
void *rbh_alloc_table(unsigned int depth, gfp_t gfp);
#endif

#endif /* _LINUX_ROSEBUSH_H */
