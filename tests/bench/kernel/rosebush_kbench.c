// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush_kbench.c: lib/rosebush.c against other RCU hash tables, in the
 * kernel; the module counterpart of tests/bench/rosebush-bench.c.
 *
 * This is a benchmark, not a pass/fail test: it prints numbers for people
 * to read.  It fails to load (with a negative errno, after saying why and
 * freeing everything) only if a parameter is nonsense, memory runs out or
 * one of its checks finds a wrong result.  On success it prints "done" and
 * stays loaded, doing nothing, until it is removed.
 *
 * mode=table (the default) measures, at module init, on the init task
 * alone, each of
 *
 *   rosebush	lib/rosebush.c
 *   rhashtable	lib/rhashtable.c, with automatic_shrinking and no size hint,
 *		as most of its users; its deferred resize runs on system_wq
 *   hlist_bl	a fixed table of bit-locked list heads (<linux/list_bl.h>),
 *		sized like the dcache's: a power of two >= the entries,
 *		indexed by the top bits of the hash
 *
 * on identical keys, objects and operations.  Each object comes on its own
 * from a SLAB_HWCACHE_ALIGN cache of 64-byte objects, and holds its 64-bit
 * key and the linkage of each structure, so that comparing a key costs a
 * cache line.  Keys are distinct pseudo-random numbers, every structure
 * stores an object under hash_64(key, 32) and compares keys itself, and
 * every lookup takes and releases rcu_read_lock().
 *
 * For each size, and each of R repeats, each structure in turn is filled
 * from empty, measured, then emptied:
 *
 *   insert		fill the empty structure, until its deferred resizing
 *			is done (small sizes: several fills, each from a new
 *			structure, so that the timed work is >= 10^5 inserts)
 *   lookup-uniform	look up stored keys, uniformly at random
 *   lookup-negative	keys that are not stored
 *   mix-90/10		90% lookups of stored keys, 10% updates: remove an
 *			object and store a new one with the same key
 *   remove		remove every object, until deferred resizing is done
 *
 * Every lookup is checked (the object expected, or none), and so is every
 * insertion and removal.  The timed loops yield the CPU, off the clock,
 * when the scheduler asks (the guests this runs in are slow, and a
 * kworker bound to this CPU may be waiting to resize a table).
 *
 * mode=resize fills one rosebush with each size in turn, then empties it,
 * waiting for the work item, and prints how long each took and how many
 * times the table grew and halved.  It is run in a kernel with the
 * preemptoff tracer (make qemu-bench-latency), whose init reports the
 * longest section with preemption disabled: with the table copied in one
 * go under the resize lock, a grow or a halving of a large table.
 *
 * The numbers are meant to be compared with each other: under QEMU TCG,
 * which does not model caches, only the ratios mean anything.
 *
 * Usage: insmod rosebush_kbench.ko [mode=table] [sizes=N,N,...]
 *		[repeats=R] [ops=N] [seed=N]
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/* <linux/bit_spinlock.h>, under <linux/list_bl.h>, needs cpu_relax() */
#include <linux/processor.h>
#include <linux/hash.h>
#include <linux/list_bl.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rculist_bl.h>
#include <linux/rhashtable.h>
#include <linux/rosebush.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#define BENCH_MAX_SIZES		8
#define BENCH_MAX_ENTRIES	4000000UL
/* mode=resize stores nothing else: 10^7 objects fit in the guest */
#define BENCH_MAX_RESIZE_ENTRIES 10000000UL
#define BENCH_MAX_REPEATS	15
#define BENCH_MAX_OPS		(16UL << 20)
/* Small sizes are filled and emptied this many times in all, at least */
#define BENCH_MIN_FILL		100000UL
/* Share of updates in the mix, in percent */
#define BENCH_MIX_UPDATES	10
/* Loops look at need_resched() every this many operations */
#define BENCH_RESCHED_OPS	1024

static struct {
	char *mode;
	unsigned long sizes[BENCH_MAX_SIZES];
	unsigned int nr_sizes;
	unsigned int repeats;
	unsigned long ops;
	u64 seed;
} opt = {
	.mode = "table",
	.sizes = { 1000, 10000, 100000, 1000000 },
	.nr_sizes = 4,
	.repeats = 3,
	.ops = 1UL << 20,
	.seed = 1,
};

module_param_named(mode, opt.mode, charp, 0444);
MODULE_PARM_DESC(mode, "\"table\" (default): compare the structures; \"resize\": fill and empty a rosebush");
module_param_array_named(sizes, opt.sizes, ulong, &opt.nr_sizes, 0444);
MODULE_PARM_DESC(sizes, "table: entries of each measurement, up to 8 sizes of at most 4000000 (default 1000,10000,100000,1000000)");
module_param_named(repeats, opt.repeats, uint, 0444);
MODULE_PARM_DESC(repeats, "table: runs of everything, reporting min and median (default 3, at most 15)");
module_param_named(ops, opt.ops, ulong, 0444);
MODULE_PARM_DESC(ops, "table: operations per lookup or mix measurement (default 2^20)");
module_param_named(seed, opt.seed, ullong, 0444);
MODULE_PARM_DESC(seed, "seed of the keys and operations (default 1)");

static bool bench_resize_mode;

/* 32 bytes, padded to a cache line */
struct bench_obj {
	u64 key;
	struct rhash_head rht;		/* rhashtable */
	struct hlist_bl_node bl;	/* hlist_bl */
} __aligned(64);

static_assert(sizeof(struct bench_obj) == 64);

static struct kmem_cache *bench_cache;

/*
 * One operation, 16 bytes, read in sequence.  A lookup looks up @key
 * and expects @obj (NULL for a key that is not stored; in the mix, where
 * objects change, any object with the key).  A mix update (non-NULL @obj)
 * replaces the object of slot @key with @obj.
 */
struct bench_op {
	u64 key;
	struct bench_obj *obj;
};

enum bench_kind { RUN_FILL, RUN_DRAIN, RUN_LOOKUP, RUN_MIX };

/*
 * The time of a measurement, in segments: the timed loops stop the clock
 * while they yield the CPU.
 */
struct bench_clock {
	u64 start;
	u64 elapsed;
};

/* What the init task does in one measurement, and what it found */
struct bench_job {
	enum bench_kind kind;
	/* RUN_FILL, RUN_DRAIN: these objects, in order */
	struct bench_obj **objs;
	unsigned long nr_objs;
	/* RUN_LOOKUP, RUN_MIX */
	const struct bench_op *ops;
	unsigned long nr_ops;
	unsigned long misses;
	unsigned long wrong;
	/* A failed insertion or removal, and the object or op it failed on */
	int err;
	unsigned long failed;
	struct bench_clock clock;
};

struct bench_table {
	const char *name;
	int (*create)(unsigned long entries);
	int (*insert)(struct bench_obj *obj);
	int (*remove)(struct bench_obj *obj);
	/* Runs one bench_job, with the operations above inlined */
	void (*run)(struct bench_job *j);
	/* Waits until deferred resizing is done */
	void (*settle)(void);
	/* Memory held by the structure itself, objects excluded */
	unsigned long (*bytes)(void);
	void (*destroy)(void);
};

/* The objects of every size so far: slot i holds key bench_key(i) */
static struct bench_obj **bench_objs;
static unsigned long bench_nr_objs;
/* During a mix: the object stored for each slot */
static struct bench_obj **bench_live;
/* Objects that mix updates store, one per update (at most one per op) */
static struct bench_obj **bench_spares;
static unsigned long bench_nr_spares;

/* splitmix64's finaliser: a bijection, so distinct inputs make distinct keys */
static u64 bench_mix64(u64 x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static u64 bench_rand(u64 *state)
{
	*state += 0x9e3779b97f4a7c15ULL;
	return bench_mix64(*state);
}

/* Uniform in [0, n) */
static unsigned long bench_rand_below(u64 *state, unsigned long n)
{
	return mul_u64_u64_shr(bench_rand(state), n, 64);
}

/* Stored keys are mixed even numbers, keys never stored mixed odd ones. */
static u64 bench_key(unsigned long slot)
{
	return bench_mix64((opt.seed << 40) + 2 * (u64)slot);
}

static u64 bench_absent_key(unsigned long i)
{
	return bench_mix64((opt.seed << 40) + 2 * (u64)i + 1);
}

/* The one hash function of every structure */
static inline u32 bench_hash(u64 key)
{
	return hash_64(key, 32);
}

/* Untimed loops: let others run every now and then. */
static void bench_resched(unsigned long i)
{
	if (!(i % BENCH_RESCHED_OPS))
		cond_resched();
}

static struct bench_obj *bench_obj_alloc(void)
{
	return kmem_cache_zalloc(bench_cache, GFP_KERNEL);
}

/* Objects for slots [0, n), allocated in slot order */
static int bench_objs_grow(unsigned long n)
{
	struct bench_obj *obj;

	for (; bench_nr_objs < n; bench_nr_objs++) {
		obj = bench_obj_alloc();
		if (!obj) {
			pr_err("out of memory for %lu objects\n", n);
			return -ENOMEM;
		}
		obj->key = bench_key(bench_nr_objs);
		bench_objs[bench_nr_objs] = obj;
		bench_resched(bench_nr_objs);
	}
	return 0;
}

/* ---- rosebush ---- */

static struct rbh bench_rbh;

static int bench_rbh_create(unsigned long entries)
{
	rbh_init(&bench_rbh);
	return 0;
}

static int bench_rbh_insert(struct bench_obj *obj)
{
	return rbh_insert(&bench_rbh, bench_hash(obj->key), obj);
}

static struct bench_obj *bench_rbh_lookup(u64 key)
{
	struct bench_obj *obj;
	struct rbh_iter iter;

	rcu_read_lock();
	rbh_for_each_possible(obj, &iter, &bench_rbh, bench_hash(key))
		if (obj->key == key)
			break;
	rcu_read_unlock();
	return obj;
}

static int bench_rbh_remove(struct bench_obj *obj)
{
	return rbh_remove(&bench_rbh, bench_hash(obj->key), obj);
}

/*
 * A removal may leave the halving of a large table to a work item on
 * system_wq.  The API offers no way to wait for it, so this flushes the
 * (private) work item itself.  rbh_init() leaves it uninitialised, and
 * flush_work() would WARN: it is only called once something was stored.
 */
static void bench_rbh_settle(void)
{
	flush_work(&bench_rbh.rbh_work);
}

static unsigned long bench_rbh_bytes(void)
{
	struct rbh_stats stats;

	rbh_stats(&bench_rbh, &stats);
	return stats.bytes;
}

static void bench_rbh_destroy(void)
{
	rbh_destroy(&bench_rbh);
}

/* ---- rhashtable ---- */

static struct rhashtable bench_rht;

/* The table's random seed only permutes the buckets: one XOR */
static u32 bench_rht_hashfn(const void *data, u32 len, u32 seed)
{
	return bench_hash(*(const u64 *)data) ^ seed;
}

static const struct rhashtable_params bench_rht_params = {
	.key_len = sizeof(u64),
	.key_offset = offsetof(struct bench_obj, key),
	.head_offset = offsetof(struct bench_obj, rht),
	.hashfn = bench_rht_hashfn,
	.automatic_shrinking = true,
};

static int bench_rht_create(unsigned long entries)
{
	return rhashtable_init(&bench_rht, &bench_rht_params);
}

static int bench_rht_insert(struct bench_obj *obj)
{
	return rhashtable_insert_fast(&bench_rht, &obj->rht, bench_rht_params);
}

/* rhashtable_lookup_fast() takes rcu_read_lock() itself */
static struct bench_obj *bench_rht_lookup(u64 key)
{
	return rhashtable_lookup_fast(&bench_rht, &key, bench_rht_params);
}

static int bench_rht_remove(struct bench_obj *obj)
{
	return rhashtable_remove_fast(&bench_rht, &obj->rht, bench_rht_params);
}

/*
 * Its deferred resize runs on system_wq, and rhashtable has no call to
 * wait for it: flush its work item, a member of struct rhashtable.
 */
static void bench_rht_settle(void)
{
	flush_work(&bench_rht.run_work);
}

/*
 * The bucket tables: the current one and any being rehashed into.  Nested
 * tables (tbl->nest), from a failed atomic allocation, are not counted.
 */
static unsigned long bench_rht_bytes(void)
{
	struct bucket_table *tbl;
	unsigned long bytes = 0;

	rcu_read_lock();
	for (tbl = rcu_dereference(bench_rht.tbl); tbl;
	     tbl = rcu_dereference(tbl->future_tbl))
		bytes += struct_size(tbl, buckets, tbl->size);
	rcu_read_unlock();
	return bytes;
}

static void bench_rht_destroy(void)
{
	rhashtable_destroy(&bench_rht);
}

/* ---- hlist_bl ---- */

static struct hlist_bl_head *bench_bl;
static unsigned int bench_bl_shift;

static int bench_bl_create(unsigned long entries)
{
	unsigned long i;

	bench_bl_shift = max_t(unsigned int,
			       ilog2(roundup_pow_of_two(entries)), 1);
	bench_bl = kvmalloc_array(1UL << bench_bl_shift, sizeof(*bench_bl),
				  GFP_KERNEL);
	if (!bench_bl)
		return -ENOMEM;
	for (i = 0; i < 1UL << bench_bl_shift; i++)
		INIT_HLIST_BL_HEAD(&bench_bl[i]);
	return 0;
}

static struct hlist_bl_head *bench_bl_bucket(u32 hash)
{
	return &bench_bl[hash >> (32 - bench_bl_shift)];
}

static int bench_bl_insert(struct bench_obj *obj)
{
	struct hlist_bl_head *head = bench_bl_bucket(bench_hash(obj->key));

	hlist_bl_lock(head);
	hlist_bl_add_head_rcu(&obj->bl, head);
	hlist_bl_unlock(head);
	return 0;
}

static struct bench_obj *bench_bl_lookup(u64 key)
{
	struct hlist_bl_head *head = bench_bl_bucket(bench_hash(key));
	struct hlist_bl_node *pos;
	struct bench_obj *obj;

	rcu_read_lock();
	hlist_bl_for_each_entry_rcu(obj, pos, head, bl)
		if (obj->key == key)
			goto found;
	obj = NULL;
found:
	rcu_read_unlock();
	return obj;
}

static int bench_bl_remove(struct bench_obj *obj)
{
	struct hlist_bl_head *head = bench_bl_bucket(bench_hash(obj->key));

	hlist_bl_lock(head);
	hlist_bl_del_rcu(&obj->bl);
	hlist_bl_unlock(head);
	return 0;
}

/* It never resizes */
static void bench_bl_settle(void)
{
}

static unsigned long bench_bl_bytes(void)
{
	return sizeof(*bench_bl) << bench_bl_shift;
}

static void bench_bl_destroy(void)
{
	kvfree(bench_bl);
	bench_bl = NULL;
}

/* ---- the measured loops ---- */

static void bench_clock_start(struct bench_clock *c)
{
	c->elapsed = 0;
	c->start = ktime_get_ns();
}

static void bench_clock_stop(struct bench_clock *c)
{
	c->elapsed += ktime_get_ns() - c->start;
}

/*
 * Called before operation @i of a timed loop: every BENCH_RESCHED_OPS
 * operations, yield the CPU if the scheduler asks, off the clock.  That
 * keeps the soft lockup detector quiet, and lets a kworker bound to this
 * CPU (rhashtable's resize) run, as it would run beside a real user.
 */
static __always_inline void bench_clock_resched(struct bench_clock *c,
						unsigned long i)
{
	if (unlikely(!(i % BENCH_RESCHED_OPS) && need_resched())) {
		bench_clock_stop(c);
		cond_resched();
		c->start = ktime_get_ns();
	}
}

/*
 * Inlined into one function per structure, so that each structure's
 * operations are direct calls, inlined where the compiler wants.  Lookups
 * return an object after rcu_read_unlock(), which real code must not do
 * without a reference: here objects are freed only at the very end.
 */
static __always_inline void
bench_run(struct bench_job *j, int (*insert)(struct bench_obj *obj),
	  struct bench_obj *(*lookup)(u64 key),
	  int (*remove)(struct bench_obj *obj))
{
	unsigned long i, misses = 0, wrong = 0;
	struct bench_obj *obj, *old;
	const struct bench_op *op;
	int err = 0;

	switch (j->kind) {
	case RUN_FILL:
		for (i = 0; i < j->nr_objs; i++) {
			bench_clock_resched(&j->clock, i);
			err = insert(j->objs[i]);
			if (err)
				break;
		}
		break;
	case RUN_DRAIN:
		for (i = 0; i < j->nr_objs; i++) {
			bench_clock_resched(&j->clock, i);
			err = remove(j->objs[i]);
			if (err)
				break;
		}
		break;
	case RUN_LOOKUP:
		for (i = 0; i < j->nr_ops; i++) {
			bench_clock_resched(&j->clock, i);
			op = &j->ops[i];
			obj = lookup(op->key);
			misses += !obj;
			wrong += obj != op->obj;
		}
		break;
	case RUN_MIX:
		for (i = 0; i < j->nr_ops; i++) {
			bench_clock_resched(&j->clock, i);
			op = &j->ops[i];
			if (!op->obj) {
				obj = lookup(op->key);
				misses += !obj;
				wrong += !obj || obj->key != op->key;
				continue;
			}
			old = bench_live[op->key];
			op->obj->key = old->key;
			err = remove(old);
			if (!err)
				err = insert(op->obj);
			if (err)
				break;
			bench_live[op->key] = op->obj;
		}
		break;
	}
	j->misses = misses;
	j->wrong = wrong;
	j->err = err;
	j->failed = i;
}

static void bench_rbh_run(struct bench_job *j)
{
	bench_run(j, bench_rbh_insert, bench_rbh_lookup, bench_rbh_remove);
}

static void bench_rht_run(struct bench_job *j)
{
	bench_run(j, bench_rht_insert, bench_rht_lookup, bench_rht_remove);
}

static void bench_bl_run(struct bench_job *j)
{
	bench_run(j, bench_bl_insert, bench_bl_lookup, bench_bl_remove);
}

static const struct bench_table bench_tables[] = {
	{
		.name = "rosebush",
		.create = bench_rbh_create,
		.insert = bench_rbh_insert,
		.remove = bench_rbh_remove,
		.run = bench_rbh_run,
		.settle = bench_rbh_settle,
		.bytes = bench_rbh_bytes,
		.destroy = bench_rbh_destroy,
	}, {
		.name = "rhashtable",
		.create = bench_rht_create,
		.insert = bench_rht_insert,
		.remove = bench_rht_remove,
		.run = bench_rht_run,
		.settle = bench_rht_settle,
		.bytes = bench_rht_bytes,
		.destroy = bench_rht_destroy,
	}, {
		.name = "hlist_bl",
		.create = bench_bl_create,
		.insert = bench_bl_insert,
		.remove = bench_bl_remove,
		.run = bench_bl_run,
		.settle = bench_bl_settle,
		.bytes = bench_bl_bytes,
		.destroy = bench_bl_destroy,
	},
};

#define BENCH_NR_TABLES		ARRAY_SIZE(bench_tables)
/* The reference of every ratio */
#define BENCH_ROSEBUSH		0

/* ---- operations ---- */

enum bench_workload {
	BENCH_INSERT,
	BENCH_REMOVE,
	BENCH_UNIFORM,
	BENCH_NEGATIVE,
	BENCH_MIX,
	BENCH_NR_WORKLOADS
};

static const char *const bench_workload_names[] = {
	[BENCH_INSERT] = "insert",
	[BENCH_REMOVE] = "remove",
	[BENCH_UNIFORM] = "lookup-uniform",
	[BENCH_NEGATIVE] = "lookup-negative",
	[BENCH_MIX] = "mix-90/10",
};

/* Operations of the lookup and mix workloads, for the current size */
static struct bench_op *bench_ops[BENCH_NR_WORKLOADS];

/* The lookups, and the mix, whose every update has its own spare object. */
static int bench_ops_make(unsigned long n)
{
	unsigned long i, slot, spare = 0;
	u64 rnd = bench_mix64(opt.seed ^ n);
	struct bench_obj *obj;
	struct bench_op *op;

	for (i = 0; i < opt.ops; i++) {
		slot = bench_rand_below(&rnd, n);
		bench_ops[BENCH_UNIFORM][i].key = bench_key(slot);
		bench_ops[BENCH_UNIFORM][i].obj = bench_objs[slot];

		bench_ops[BENCH_NEGATIVE][i].key =
			bench_absent_key(bench_rand_below(&rnd, n));
		bench_ops[BENCH_NEGATIVE][i].obj = NULL;

		op = &bench_ops[BENCH_MIX][i];
		slot = bench_rand_below(&rnd, n);
		if (bench_rand_below(&rnd, 100) < BENCH_MIX_UPDATES) {
			if (spare == bench_nr_spares) {
				obj = bench_obj_alloc();
				if (!obj) {
					pr_err("out of memory for spare objects\n");
					return -ENOMEM;
				}
				bench_spares[bench_nr_spares++] = obj;
			}
			op->key = slot;
			op->obj = bench_spares[spare++];
		} else {
			op->key = bench_key(slot);
			op->obj = NULL;
		}
		bench_resched(i);
	}
	return 0;
}

/* ---- measurements ---- */

/* Results, per size, workload, structure and repeat: picoseconds per op */
static u64 bench_results[BENCH_MAX_SIZES][BENCH_NR_WORKLOADS]
			[BENCH_NR_TABLES][BENCH_MAX_REPEATS];
/* Hundredths of a byte per entry */
static u64 bench_bytes[BENCH_MAX_SIZES][BENCH_NR_TABLES][BENCH_MAX_REPEATS];
static struct rbh_stats bench_rbh_stats[BENCH_MAX_SIZES];
static unsigned long bench_checked, bench_misses, bench_expected_misses;

static u64 bench_ps_per_op(u64 ns, unsigned long nr_ops)
{
	return div64_u64(ns * 1000, nr_ops);
}

/*
 * Fill or empty the structure with the first @n objects; add the elapsed
 * ns, deferred resizing included, to *@ns.
 */
static int bench_fill_drain(const struct bench_table *tbl,
			    enum bench_kind kind, unsigned long n, u64 *ns)
{
	struct bench_job j = {
		.kind = kind,
		.objs = bench_objs,
		.nr_objs = n,
	};

	bench_clock_start(&j.clock);
	tbl->run(&j);
	if (j.err) {
		pr_err("%s: %s of object %lu failed: %d\n", tbl->name,
		       kind == RUN_FILL ? "insertion" : "removal", j.failed,
		       j.err);
		return j.err;
	}
	tbl->settle();
	bench_clock_stop(&j.clock);
	*ns += j.clock.elapsed;
	cond_resched();
	return 0;
}

/* Count what a lookup or mix measurement found, and fail on anything wrong. */
static int bench_check(const struct bench_table *tbl, enum bench_workload w,
		       unsigned long n, const struct bench_job *j)
{
	if (j->err) {
		pr_err("%s, %s, %lu entries: update %lu failed: %d\n",
		       tbl->name, bench_workload_names[w], n, j->failed,
		       j->err);
		return j->err;
	}
	bench_checked += j->nr_ops;
	bench_misses += j->misses;
	if (w == BENCH_NEGATIVE)
		bench_expected_misses += j->nr_ops;
	if (j->wrong || (w != BENCH_NEGATIVE && j->misses)) {
		pr_err("%s, %s, %lu entries: %lu wrong results, %lu misses\n",
		       tbl->name, bench_workload_names[w], n, j->wrong,
		       j->misses);
		return -EIO;
	}
	return 0;
}

/* Run lookup or mix workload @w on @n entries; store ps/op in *@result. */
static int bench_measure(const struct bench_table *tbl, enum bench_workload w,
			 unsigned long n, u64 *result)
{
	struct bench_job j = {
		.kind = w == BENCH_MIX ? RUN_MIX : RUN_LOOKUP,
		.ops = bench_ops[w],
		.nr_ops = opt.ops,
	};
	int err;

	if (w == BENCH_MIX)
		memcpy(bench_live, bench_objs, n * sizeof(*bench_live));
	bench_clock_start(&j.clock);
	tbl->run(&j);
	bench_clock_stop(&j.clock);
	err = bench_check(tbl, w, n, &j);
	*result = bench_ps_per_op(j.clock.elapsed, opt.ops);
	cond_resched();
	return err;
}

/* After a mix: store the original objects again, unlinking the spares. */
static int bench_mix_restore(const struct bench_table *tbl, unsigned long n)
{
	unsigned long slot;
	int err;

	/* Wait for the structure's own readers too */
	synchronize_rcu();
	for (slot = 0; slot < n; slot++) {
		bench_resched(slot);
		if (bench_live[slot] == bench_objs[slot])
			continue;
		err = tbl->remove(bench_live[slot]);
		if (!err)
			err = tbl->insert(bench_objs[slot]);
		if (err) {
			pr_err("%s: restoring slot %lu failed: %d\n",
			       tbl->name, slot, err);
			return err;
		}
	}
	synchronize_rcu();
	tbl->settle();
	return 0;
}

static int bench_one(unsigned int size, unsigned int table, unsigned int rep)
{
	const struct bench_table *tbl = &bench_tables[table];
	unsigned long n = opt.sizes[size];
	unsigned long rounds = max(1UL, BENCH_MIN_FILL / n);
	u64 fill = 0, drain = 0;
	unsigned int w;
	unsigned long r;
	int err;

	for (r = 0; ; r++) {
		err = tbl->create(n);
		if (err) {
			pr_err("%s: cannot create it for %lu entries: %d\n",
			       tbl->name, n, err);
			return err;
		}
		err = bench_fill_drain(tbl, RUN_FILL, n, &fill);
		if (err || r == rounds - 1)
			break;
		err = bench_fill_drain(tbl, RUN_DRAIN, n, &drain);
		if (err)
			break;
		tbl->destroy();
	}
	if (err)
		goto out;

	bench_bytes[size][table][rep] = div64_u64(tbl->bytes() * 100ULL + n / 2,
						  n);
	if (table == BENCH_ROSEBUSH && rep == 0)
		rbh_stats(&bench_rbh, &bench_rbh_stats[size]);

	for (w = BENCH_UNIFORM; w <= BENCH_MIX; w++) {
		err = bench_measure(tbl, w, n,
				    &bench_results[size][w][table][rep]);
		if (!err && w == BENCH_MIX)
			err = bench_mix_restore(tbl, n);
		if (err)
			goto out;
	}

	err = bench_fill_drain(tbl, RUN_DRAIN, n, &drain);
	if (err)
		goto out;
	bench_results[size][BENCH_INSERT][table][rep] =
		bench_ps_per_op(fill, rounds * n);
	bench_results[size][BENCH_REMOVE][table][rep] =
		bench_ps_per_op(drain, rounds * n);
out:
	tbl->destroy();
	return err;
}

/* ---- report ---- */

/* One line of output, built piece by piece, then printed with pr_info() */
struct bench_line {
	char buf[512];
	size_t len;
};

static __printf(2, 3)
void bench_line_add(struct bench_line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	l->len += vscnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
}

/*
 * Append @v, a number of tenths (@decimals 1) or hundredths (2), as a
 * decimal in a field of @width (negative: left-justified).  There is no
 * floating point in the kernel.
 */
static void bench_line_fixed(struct bench_line *l, int width, u64 v,
			     int decimals)
{
	u32 rem = do_div(v, decimals == 1 ? 10 : 100);
	char num[24];

	snprintf(num, sizeof(num), "%llu.%0*u", v, decimals, rem);
	bench_line_add(l, "%*s", width, num);
}

/* @num / @den, rounded to @decimals decimals; "-" if @den is 0 */
static void bench_line_quotient(struct bench_line *l, int width, u64 num,
				u64 den, int decimals)
{
	u64 scale = decimals == 1 ? 10 : 100;

	if (!den)
		bench_line_add(l, "%*s", width, "-");
	else
		bench_line_fixed(l, width,
				 div64_u64(num * scale + den / 2, den),
				 decimals);
}

/* @ns as seconds, with one decimal */
static void bench_line_seconds(struct bench_line *l, u64 ns)
{
	bench_line_quotient(l, 0, ns, NSEC_PER_SEC, 1);
	bench_line_add(l, " s");
}

static void bench_line_print(struct bench_line *l)
{
	pr_info("%s\n", l->buf);
	l->len = 0;
	l->buf[0] = '\0';
}

static int bench_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/* Min and median of the repeats of one result */
struct bench_stat {
	u64 min, median;
};

static struct bench_stat bench_stat(const u64 *v)
{
	u64 sorted[BENCH_MAX_REPEATS];
	unsigned int r = opt.repeats;

	memcpy(sorted, v, r * sizeof(*v));
	sort(sorted, r, sizeof(*sorted), bench_cmp_u64, NULL);
	return (struct bench_stat){
		.min = sorted[0],
		.median = r & 1 ? sorted[r / 2] :
			  (sorted[r / 2 - 1] + sorted[r / 2]) / 2,
	};
}

/* ps/op of one result */
static struct bench_stat bench_time(unsigned int size, unsigned int w,
				    unsigned int table)
{
	return bench_stat(bench_results[size][w][table]);
}

/* "min/median" of ns/op, as "%6.1f/%-6.1f" would print them */
static void bench_line_time(struct bench_line *l, struct bench_stat st)
{
	bench_line_quotient(l, 6, st.min, 1000, 1);
	bench_line_add(l, "/");
	bench_line_quotient(l, -6, st.median, 1000, 1);
}

/* A peer's ratio to rosebush, min/median, as "%4.2f/%4.2f" */
static void bench_line_ratios(struct bench_line *l, struct bench_stat st,
			      struct bench_stat ref)
{
	bench_line_quotient(l, 4, st.min, ref.min, 2);
	bench_line_add(l, "/");
	bench_line_quotient(l, 4, st.median, ref.median, 2);
}

static void bench_print(void)
{
	struct bench_line l = { };
	struct bench_stat ref, st;
	unsigned int w, size, i;

	pr_info("# ns/op, min/median of %u runs, and each peer's ratio to rosebush\n",
		opt.repeats);
	pr_info("# (min/median: > 1 means rosebush is faster); one thread, the init task\n");
	bench_line_add(&l, "%-15s %3s %8s | %-13s", "workload", "thr",
		       "entries", bench_tables[BENCH_ROSEBUSH].name);
	for (i = BENCH_ROSEBUSH + 1; i < BENCH_NR_TABLES; i++)
		bench_line_add(&l, " | %-23s", bench_tables[i].name);
	bench_line_print(&l);
	for (w = 0; w < BENCH_NR_WORKLOADS; w++) {
		for (size = 0; size < opt.nr_sizes; size++) {
			ref = bench_time(size, w, BENCH_ROSEBUSH);
			bench_line_add(&l, "%-15s %3u %8lu | ",
				       bench_workload_names[w], 1,
				       opt.sizes[size]);
			bench_line_time(&l, ref);
			for (i = BENCH_ROSEBUSH + 1; i < BENCH_NR_TABLES; i++) {
				st = bench_time(size, w, i);
				bench_line_add(&l, " | ");
				bench_line_time(&l, st);
				bench_line_add(&l, " ");
				bench_line_ratios(&l, st, ref);
			}
			bench_line_print(&l);
		}
	}

	pr_info("# bytes per entry held by each structure (objects excluded), after the fill\n");
	bench_line_add(&l, "%8s", "entries");
	for (i = 0; i < BENCH_NR_TABLES; i++)
		bench_line_add(&l, " %11s", bench_tables[i].name);
	bench_line_print(&l);
	for (size = 0; size < opt.nr_sizes; size++) {
		bench_line_add(&l, "%8lu", opt.sizes[size]);
		for (i = 0; i < BENCH_NR_TABLES; i++) {
			bench_line_add(&l, " ");
			bench_line_fixed(&l, 11,
					 bench_stat(bench_bytes[size][i]).median,
					 2);
		}
		bench_line_print(&l);
	}
}

/* How full rosebush's buckets are, and the occupancy histogram */
static void bench_print_occupancy(void)
{
	struct bench_line l = { };
	unsigned int size, k;

	pr_info("# rosebush after the fill (rbh_stats): %u entries per bucket;\n",
		bench_rbh_stats[0].bucket_capacity);
	pr_info("# spilled: entries outside their home group (a second line to read);\n");
	pr_info("# occupancy: how many buckets hold 0, 1, ... %u entries\n",
		bench_rbh_stats[0].bucket_capacity);
	for (size = 0; size < opt.nr_sizes; size++) {
		const struct rbh_stats *s = &bench_rbh_stats[size];
		u64 slots = (u64)(s->buckets + s->overflow_buckets) *
			    s->bucket_capacity;

		bench_line_add(&l, "%8lu entries: %lu buckets (+%lu overflow), %lu slots, ",
			       s->entries, s->buckets, s->overflow_buckets,
			       s->table_slots);
		bench_line_quotient(&l, 0, (u64)s->entries * 100, slots, 1);
		bench_line_add(&l, "%% full, ");
		bench_line_quotient(&l, 0, (u64)s->spilled * 100,
				    max_t(u64, s->entries, 1), 1);
		bench_line_add(&l, "%% spilled, occupancy");
		for (k = 0; k <= s->bucket_capacity; k++)
			bench_line_add(&l, " %lu", s->occupancy[k]);
		bench_line_print(&l);
	}
}

/* ---- table mode ---- */

static void bench_table_free(void)
{
	unsigned long k;
	int w;

	for (k = 0; k < bench_nr_objs; k++) {
		kmem_cache_free(bench_cache, bench_objs[k]);
		bench_resched(k);
	}
	for (k = 0; k < bench_nr_spares; k++)
		kmem_cache_free(bench_cache, bench_spares[k]);
	kvfree(bench_objs);
	kvfree(bench_live);
	kvfree(bench_spares);
	for (w = 0; w < BENCH_NR_WORKLOADS; w++)
		kvfree(bench_ops[w]);
}

/* The arrays, large enough for every size */
static int bench_table_alloc(void)
{
	unsigned long max_n = 0;
	unsigned int size;
	int w;

	for (size = 0; size < opt.nr_sizes; size++)
		max_n = max(max_n, opt.sizes[size]);
	bench_objs = kvcalloc(max_n, sizeof(*bench_objs), GFP_KERNEL);
	bench_live = kvcalloc(max_n, sizeof(*bench_live), GFP_KERNEL);
	bench_spares = kvcalloc(opt.ops, sizeof(*bench_spares), GFP_KERNEL);
	if (!bench_objs || !bench_live || !bench_spares)
		goto nomem;
	for (w = BENCH_UNIFORM; w <= BENCH_MIX; w++) {
		bench_ops[w] = kvcalloc(opt.ops, sizeof(struct bench_op),
					GFP_KERNEL);
		if (!bench_ops[w])
			goto nomem;
	}
	return 0;
nomem:
	pr_err("out of memory for the arrays of %lu objects and %lu operations\n",
	       max_n, opt.ops);
	return -ENOMEM;
}

static int bench_table_mode(void)
{
	struct bench_line l = { };
	unsigned int size, rep, i;
	u64 t0, t1;
	int err;

	t0 = ktime_get_ns();
	pr_info("# table: repeats=%u ops=%lu seed=%llu; %zu-byte objects, hash_64(key, 32)\n",
		opt.repeats, opt.ops, opt.seed, sizeof(struct bench_obj));
	err = bench_table_alloc();
	if (err)
		goto out;
	for (size = 0; size < opt.nr_sizes; size++) {
		t1 = ktime_get_ns();
		err = bench_objs_grow(opt.sizes[size]);
		if (!err)
			err = bench_ops_make(opt.sizes[size]);
		/* Interleave the structures, so that drift hits them all */
		for (rep = 0; rep < opt.repeats && !err; rep++)
			for (i = 0; i < BENCH_NR_TABLES && !err; i++)
				err = bench_one(size, i, rep);
		if (err)
			goto out;
		bench_line_add(&l, "# %lu entries: ", opt.sizes[size]);
		bench_line_seconds(&l, ktime_get_ns() - t1);
		bench_line_print(&l);
	}
	/* bench_check() let nothing else through */
	pr_info("# checks: %lu lookups and updates, %lu misses (the %lu negative lookups),\n",
		bench_checked, bench_misses, bench_expected_misses);
	pr_info("# no wrong result\n");

	bench_print();
	bench_print_occupancy();
	bench_line_add(&l, "# elapsed: ");
	bench_line_seconds(&l, ktime_get_ns() - t0);
	bench_line_print(&l);
out:
	bench_table_free();
	return err;
}

/* ---- resize ---- */

/* Fill a rosebush with @n entries, then empty it: grows, then halvings */
static int bench_resize_one(unsigned long n)
{
	struct rbh_stats stats;
	unsigned long i;
	u64 t0, t1, t2;
	int err = 0;

	err = bench_objs_grow(n);
	if (err)
		return err;
	rbh_init(&bench_rbh);
	t0 = ktime_get_ns();
	for (i = 0; i < n && !err; i++) {
		err = bench_rbh_insert(bench_objs[i]);
		bench_resched(i);
	}
	t1 = ktime_get_ns();
	rbh_stats(&bench_rbh, &stats);
	pr_info("resize: %lu entries: inserted in %llu ms, %lu table slots, %lu grows\n",
		n, (t1 - t0) / NSEC_PER_MSEC, stats.table_slots, stats.grows);
	for (i = 0; i < n && !err; i++) {
		err = bench_rbh_remove(bench_objs[i]);
		bench_resched(i);
	}
	bench_rbh_settle();
	t2 = ktime_get_ns();
	rbh_stats(&bench_rbh, &stats);
	pr_info("resize: %lu entries: removed in %llu ms, %lu table slots, %lu halvings\n",
		n, (t2 - t1) / NSEC_PER_MSEC, stats.table_slots, stats.shrinks);
	if (err)
		pr_err("resize: %lu entries: error %d\n", n, err);
	bench_rbh_destroy();
	return err;
}

static int bench_resize(void)
{
	unsigned long max_n = 0;
	unsigned int size;
	int err = 0;

	for (size = 0; size < opt.nr_sizes; size++)
		max_n = max(max_n, opt.sizes[size]);
	bench_objs = kvcalloc(max_n, sizeof(*bench_objs), GFP_KERNEL);
	if (!bench_objs) {
		pr_err("out of memory for %lu objects\n", max_n);
		return -ENOMEM;
	}
	for (size = 0; size < opt.nr_sizes && !err; size++)
		err = bench_resize_one(opt.sizes[size]);
	while (bench_nr_objs)
		kmem_cache_free(bench_cache, bench_objs[--bench_nr_objs]);
	kvfree(bench_objs);
	bench_objs = NULL;
	return err;
}

/* ---- module ---- */

static int bench_check_params(void)
{
	unsigned int size;

	unsigned long max = BENCH_MAX_ENTRIES;

	if (!strcmp(opt.mode, "resize")) {
		bench_resize_mode = true;
		max = BENCH_MAX_RESIZE_ENTRIES;
	} else if (strcmp(opt.mode, "table")) {
		pr_err("mode=%s: \"table\" or \"resize\" only\n",
		       opt.mode);
		return -EINVAL;
	}
	for (size = 0; size < opt.nr_sizes; size++) {
		if (!opt.sizes[size] || opt.sizes[size] > max) {
			pr_err("sizes: %lu is not between 1 and %lu\n",
			       opt.sizes[size], max);
			return -EINVAL;
		}
	}
	if (!opt.repeats || opt.repeats > BENCH_MAX_REPEATS) {
		pr_err("repeats=%u: 1 to %u only\n", opt.repeats,
		       BENCH_MAX_REPEATS);
		return -EINVAL;
	}
	if (!opt.ops || opt.ops > BENCH_MAX_OPS) {
		pr_err("ops=%lu: 1 to %lu only\n", opt.ops, BENCH_MAX_OPS);
		return -EINVAL;
	}
	return 0;
}

static int __init bench_init(void)
{
	int err = bench_check_params();

	if (err)
		return err;
	pr_info("# runs under QEMU TCG, which does not model caches: only the ratios are meaningful\n");
	bench_cache = kmem_cache_create("rosebush_kbench",
					sizeof(struct bench_obj),
					__alignof__(struct bench_obj),
					SLAB_HWCACHE_ALIGN, NULL);
	if (!bench_cache) {
		pr_err("cannot create the object cache\n");
		return -ENOMEM;
	}
	if (bench_resize_mode)
		err = bench_resize();
	else
		err = bench_table_mode();
	kmem_cache_destroy(bench_cache);
	if (!err)
		pr_info("done\n");
	return err;
}

/* Everything was freed at init: nothing to do */
static void __exit bench_exit(void)
{
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("Rosebush against rhashtable and hlist_bl");
MODULE_LICENSE("GPL");
