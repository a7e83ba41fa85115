// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush-bench.c: lib/rosebush.c against other RCU hash tables, in
 * userspace, on identical keys, objects and operations.
 *
 *   rosebush	lib/rosebush.c, through tools/testing/radix-tree's harness
 *   rhashtable	the kernel's lib/rhashtable.c, compiled unchanged
 *		(bench-kernel.h), with automatic_shrinking and no size hint, as
 *		most of its users; its deferred resize runs on the harness's
 *		workqueue thread, as it would on a kworker
 *   hlist_bl	a fixed table of bit-locked list heads (<linux/list_bl.h>),
 *		sized like the dcache's: a power of two >= the entries, indexed
 *		by the top bits of the hash
 *   cds_lfht	liburcu's lock-free hash table (urcu/rculfhash.h), created
 *		at a fixed size like hlist_bl's (see bench_lfht_create())
 *
 * Objects come from one pool, 64 bytes each and aligned to a cache line
 * (like a SLAB_HWCACHE_ALIGN cache, on huge pages), and hold their 64-bit key and the
 * linkage of each structure, so comparing a key costs a cache line.  Keys
 * are distinct pseudo-random numbers, and every structure stores an
 * object under hash_64(key, 32), compares keys itself and is read under
 * rcu_read_lock() (urcu-memb) by threads registered with liburcu.
 *
 * For each size, and each of R repeats, each structure in turn is filled
 * from empty, measured, then emptied:
 *
 *   insert		fill the empty structure, until its deferred resizing
 *			is done (small sizes: several fills, each from a new
 *			structure, so that the timed work is >= 10^5 inserts)
 *   lookup-uniform	look up stored keys, uniformly at random
 *   lookup-zipf	stored keys, Zipf-distributed (theta 0.99)
 *   lookup-negative	keys that are not stored
 *   mix-90/10		90% lookups of stored keys, 10% updates: remove an
 *			object and store a new one with the same key
 *   latency-uniform	lookup-uniform's lookups, latency-bound: each key
 *			depends on the result of the lookup before it, the
 *			caller's read of the object's key included, so that
 *			lookups cannot overlap their misses (the other
 *			lookups are throughput-bound: independent, they do)
 *   latency-negative	lookup-negative's, latency-bound
 *   remove		remove every object, until deferred resizing is done
 *
 * and, for rosebush and rhashtable, latency-uniform's chase stopped after
 * each dependent load of a hit (bench_levels_one()): where a latency-bound
 * hit waits.
 *
 * The latency-bound lookups run on 1 thread; the other lookup and mix
 * workloads run on 1 and on 2 threads, splitting the
 * same operations; ns/op is elapsed time x threads / operations, so that
 * it stays the same if the threads scale perfectly.  In the mix each
 * thread updates its own half of the objects only, so that every result
 * can be checked.  Every lookup is checked (the object expected, or none),
 * misses are counted, and any wrong result, failed insert or failed
 * removal makes the program exit with status 1.
 *
 * What the harness changes, against the kernel: kvfree_rcu_mightsleep() is
 * synchronize_rcu() then kvfree(), and RCU is liburcu's.  What this
 * benchmark changes in the harness, to be like a production kernel:
 * kmalloc() places objects as the kernel's slab does, on huge pages
 * (bench-slab.c); spinlocks are 4 bytes, as the kernel's without lock
 * debugging (bench-spinlock.h), not the harness's 40-byte pthread mutexes,
 * so a rosebush bucket has the kernel's layout; and the harness's
 * debugging checks, RCU_LOCKDEP_WARN() and might_sleep(), compile away
 * (RBH_HARNESS_PRODUCTION).  The program prints the machine it runs on,
 * and which sizes exceed its last-level cache.
 *
 * Usage: ./rosebush-bench [-l] [repeats=R] [ops=N] [max=N] [seed=N]
 *			   [csv=FILE] [alloc=slab|slab-4k|glibc]
 *	-l		long mode: sizes up to 10^7 instead of 4 x 10^6
 *	repeats=R	runs of everything, reporting min and median (default 3)
 *	ops=N		operations per lookup or mix measurement (default 2^20)
 *	max=N		skip the sizes above N entries
 *	seed=N		seed of the keys and operations (default 1)
 *	csv=FILE	also write every result to FILE as CSV
 *	alloc=MODE	slab (default): kmalloc() places memory as the
 *			kernel's slab does, on huge pages, and objects come
 *			from one pool (bench-slab.c); slab-4k: the same on
 *			4-KiB pages; glibc: the harness's posix_memalign()
 *			and malloc(), objects from aligned_alloc()
 *
 * or, under callgrind (scripts/bench.sh misses):
 *	   ./rosebush-bench misses=N [ops=N] [warmup=N] [seed=N] [fill=1]
 *	fill every structure with the same N objects, then, for each
 *	structure in turn, look up stored keys uniformly at random, then keys
 *	that are not stored, then run the 90/10 mix: each time @warmup
 *	operations with the counters off, then @ops counted, dumped as
 *	"<structure> <workload> <ops>"; then remove a quarter of the objects,
 *	dumped as "<structure> remove <count>"; see bench_cache_misses().
 *	With fill=1, count each fill and each drain instead (deferred work
 *	included), dumped as "<structure> insert <N>" and "<structure> drain
 *	<N>"; see bench_fills().
 */
#include "rosebush-harness.h"
#include "bench-kernel.h"

#include "lib/rhashtable.c"
#include <linux/rculist_bl.h>
#include <urcu/rculfhash.h>

#include <valgrind/callgrind.h>

#include "bench-slab.h"
#include "bench-machine.h"

#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>

#define BENCH_MAX_THREADS	2
#define BENCH_MAX_REPEATS	15
/* Small sizes are filled and emptied this many times in all, at least */
#define BENCH_MIN_FILL		100000UL
/* Share of updates in the mix, in percent */
#define BENCH_MIX_UPDATES	10
#define BENCH_ZIPF_THETA	0.99

/*
 * rhashtable doubles when it is more than 75% full: at 10^6 and 4 x 10^6
 * it has just doubled (load 0.48, its best case for lookups), at 1.5, 3
 * and 6 x 10^6 it is about to (load 0.72, its worst); 10^7: load 0.60.
 */
static const unsigned long bench_sizes[] = {
	1000, 10000, 100000, 1000000, 1500000, 3000000, 4000000, 6000000,
	10000000,
};

#define BENCH_NR_SIZES		ARRAY_SIZE(bench_sizes)
/* The last sizes run in long mode only */
#define BENCH_DEFAULT_MAX	4000000UL

static struct {
	unsigned int repeats;
	unsigned long ops;
	unsigned long max;
	u64 seed;
	const char *csv;
	/* Misses mode: this many entries; lookups not counted first */
	unsigned long misses;
	unsigned long warmup;
	/* Misses mode: count the fills instead of lookups and removals */
	bool fill;
} opt = {
	.repeats = 3,
	.ops = 1UL << 20,
	.max = BENCH_DEFAULT_MAX,
	.seed = 1,
	.warmup = 1UL << 18,
};

/* 48 bytes, padded to a cache line */
struct bench_obj {
	u64 key;
	struct rhash_head rht;		/* rhashtable */
	struct hlist_bl_node bl;	/* hlist_bl */
	struct cds_lfht_node lfht;	/* cds_lfht */
} __aligned(64);

static_assert(sizeof(struct bench_obj) == 64);

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

enum bench_kind { RUN_FILL, RUN_DRAIN, RUN_LOOKUP, RUN_CHASE, RUN_MIX };

/*
 * What one thread does in one measurement, and what it found; a cache
 * line of its own, which the other thread does not write.
 */
struct bench_thread {
	pthread_t thread;
	void (*run)(struct bench_thread *t);
	enum bench_kind kind;
	/* RUN_FILL, RUN_DRAIN: these objects, in order */
	struct bench_obj **objs;
	unsigned long nr_objs;
	/* RUN_LOOKUP, RUN_MIX */
	const struct bench_op *ops;
	unsigned long nr_ops;
	unsigned long misses;
	unsigned long wrong;
	struct timespec start, end;
} __aligned(64);

struct bench_table {
	const char *name;
	void (*create)(unsigned long entries);
	int (*insert)(struct bench_obj *obj);
	int (*remove)(struct bench_obj *obj);
	/* Runs one bench_thread, with the operations above inlined */
	void (*run)(struct bench_thread *t);
	/* Waits until deferred resizing is done */
	void (*settle)(void);
	/* Memory held by the structure itself, objects excluded */
	unsigned long (*bytes)(void);
	/* The linkage each object holds for it (in struct bench_obj) */
	unsigned int linkage;
	/* Says how much of its memory huge pages back, or NULL */
	void (*huge)(FILE *f);
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

static void __noreturn bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rosebush-bench: FAILED: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	exit(1);
}

static double bench_ns(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

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
	return ((__uint128_t)bench_rand(state) * n) >> 64;
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

/* From one 64-byte aligned pool, as from the kernel module's kmem_cache */
static struct bench_obj *bench_obj_alloc(void)
{
	struct bench_obj *obj = bench_pool_alloc(sizeof(*obj));

	if (!obj)
		bench_die("out of memory for objects\n");
	memset(obj, 0, sizeof(*obj));
	return obj;
}

/* Objects for slots [0, n), allocated in slot order */
static void bench_objs_grow(unsigned long n)
{
	bench_objs = realloc(bench_objs, n * sizeof(*bench_objs));
	bench_live = realloc(bench_live, n * sizeof(*bench_live));
	if (!bench_objs || !bench_live)
		bench_die("out of memory for %lu objects\n", n);
	for (; bench_nr_objs < n; bench_nr_objs++) {
		bench_objs[bench_nr_objs] = bench_obj_alloc();
		bench_objs[bench_nr_objs]->key = bench_key(bench_nr_objs);
	}
}

/* Deferred resizing runs on the harness's system workqueue */
static void bench_flush_workqueue(void)
{
	flush_scheduled_work();
}

/* For the structures that never resize */
static void bench_no_settle(void)
{
}

/* ---- rosebush ---- */

static struct rbh bench_rbh;

static void bench_rbh_create(unsigned long entries)
{
	rbh_init(&bench_rbh);
}

static int bench_rbh_insert(struct bench_obj *obj)
{
	return rbh_insert(&bench_rbh, bench_hash(obj->key), obj);
}

static struct bench_obj *bench_rbh_lookup(u64 key)
{
	u32 hash = bench_hash(key);
	struct bench_obj *obj;
	struct rbh_iter iter;

	rcu_read_lock();
	rbh_for_each_possible(obj, &iter, &bench_rbh, hash)
		if (obj->key == key)
			break;
	rcu_read_unlock();
	return obj;
}

/*
 * Each structure's removal is out of line, so that make bench-misses can
 * tell its instructions from the drain loop's (tests/bench/budget.py).
 */
static __attribute__((__noinline__)) int bench_rbh_remove(struct bench_obj *obj)
{
	return rbh_remove(&bench_rbh, bench_hash(obj->key), obj);
}

static unsigned long bench_rbh_bytes(void)
{
	struct rbh_stats stats;

	rbh_stats(&bench_rbh, &stats);
	return stats.bytes;
}

static void bench_rbh_huge(FILE *f)
{
	struct bench_huge buckets = {}, table = {};
	struct rbh_bucket __rcu **slots;
	unsigned int depth;
	char b[64], t[64];

	bench_slab_huge(&buckets, RBH_BUCKET_SIZE);
	slots = rbh_untag(rcu_access_pointer(bench_rbh.rbh_table), &depth);
	if (slots)
		bench_huge_count(&table, slots, sizeof(*slots) << depth);
	fprintf(f, "# huge pages back rosebush's buckets (the kmalloc-%u slabs): %s; its table: %s\n",
		(unsigned int)RBH_BUCKET_SIZE, bench_huge_str(&buckets, b, sizeof(b)),
		bench_huge_str(&table, t, sizeof(t)));
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

static void bench_rht_create(unsigned long entries)
{
	if (rhashtable_init(&bench_rht, &bench_rht_params))
		bench_die("rhashtable_init()\n");
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

static __attribute__((__noinline__)) int bench_rht_remove(struct bench_obj *obj)
{
	return rhashtable_remove_fast(&bench_rht, &obj->rht, bench_rht_params);
}

/*
 * The bucket tables: the current one and any being rehashed into.  GFP_ATOMIC
 * allocations do not fail here, so none is nested (tbl->nest).
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

static void bench_rht_huge(FILE *f)
{
	struct bench_huge h = {};
	struct bucket_table *tbl;
	char b[64];

	rcu_read_lock();
	for (tbl = rcu_dereference(bench_rht.tbl); tbl;
	     tbl = rcu_dereference(tbl->future_tbl))
		bench_huge_count(&h, tbl, struct_size(tbl, buckets, tbl->size));
	rcu_read_unlock();
	fprintf(f, "# huge pages back rhashtable's table: %s\n",
		bench_huge_str(&h, b, sizeof(b)));
}

static void bench_rht_destroy(void)
{
	rhashtable_destroy(&bench_rht);
}

/* ---- hlist_bl ---- */

static struct hlist_bl_head *bench_bl;
static unsigned int bench_bl_shift;

static void bench_bl_create(unsigned long entries)
{
	unsigned long i;

	bench_bl_shift = max_t(unsigned int, ilog2(roundup_pow_of_two(entries)), 1);
	bench_bl = kvmalloc(sizeof(*bench_bl) << bench_bl_shift, GFP_KERNEL);
	if (!bench_bl)
		bench_die("out of memory for the hlist_bl table\n");
	for (i = 0; i < 1UL << bench_bl_shift; i++)
		INIT_HLIST_BL_HEAD(&bench_bl[i]);
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

static __attribute__((__noinline__)) int bench_bl_remove(struct bench_obj *obj)
{
	struct hlist_bl_head *head = bench_bl_bucket(bench_hash(obj->key));

	hlist_bl_lock(head);
	hlist_bl_del_rcu(&obj->bl);
	hlist_bl_unlock(head);
	return 0;
}

static unsigned long bench_bl_bytes(void)
{
	return sizeof(*bench_bl) << bench_bl_shift;
}

static void bench_bl_huge(FILE *f)
{
	struct bench_huge h = {};
	char b[64];

	bench_huge_count(&h, bench_bl, bench_bl_bytes());
	fprintf(f, "# huge pages back hlist_bl's table: %s\n",
		bench_huge_str(&h, b, sizeof(b)));
}

static void bench_bl_destroy(void)
{
	kvfree(bench_bl);
}

/* ---- cds_lfht ---- */

/*
 * Every allocation of a cds_lfht goes through these, which count the bytes
 * it holds (malloc_usable_size(), so a few bytes more than asked for) in
 * the long that @state points to.
 */
static void bench_lfht_count(void *state, void *p, long sign)
{
	if (p)
		uatomic_add((long *)state, sign * (long)malloc_usable_size(p));
}

static void *bench_lfht_malloc(void *state, size_t size)
{
	void *p = malloc(size);

	bench_lfht_count(state, p, 1);
	return p;
}

static void *bench_lfht_calloc(void *state, size_t nmemb, size_t size)
{
	void *p = calloc(nmemb, size);

	bench_lfht_count(state, p, 1);
	return p;
}

static void *bench_lfht_realloc(void *state, void *ptr, size_t size)
{
	void *p;

	bench_lfht_count(state, ptr, -1);
	p = realloc(ptr, size);
	bench_lfht_count(state, p ?: ptr, 1);
	return p;
}

static void *bench_lfht_aligned_alloc(void *state, size_t align, size_t size)
{
	void *p = aligned_alloc(align, size);

	bench_lfht_count(state, p, 1);
	return p;
}

static void bench_lfht_free(void *state, void *ptr)
{
	bench_lfht_count(state, ptr, -1);
	free(ptr);
}

static struct cds_lfht *bench_lfht;
static long bench_lfht_held;

static const struct cds_lfht_alloc bench_lfht_alloc = {
	.malloc = bench_lfht_malloc,
	.calloc = bench_lfht_calloc,
	.realloc = bench_lfht_realloc,
	.aligned_alloc = bench_lfht_aligned_alloc,
	.free = bench_lfht_free,
	.state = &bench_lfht_held,
};

/*
 * Created at its final size, a power of two >= the entries as hlist_bl,
 * and without CDS_LFHT_AUTO_RESIZE: with liburcu 0.15.2 on this machine,
 * its lazy growth stops for good after the first resize (the resize work
 * item can finish before __cds_lfht_resize_lazy_launch() sets
 * resize_initiated, which then stays set), leaving a table grown from one
 * bucket at two buckets, whatever it holds.
 */
static void bench_lfht_create(unsigned long entries)
{
	bench_lfht = cds_lfht_new_with_flavor_alloc(roundup_pow_of_two(entries),
						    1, 0, 0, &rcu_flavor,
						    &bench_lfht_alloc, NULL);
	if (!bench_lfht)
		bench_die("cds_lfht_new_with_flavor_alloc()\n");
}

static int bench_lfht_match(struct cds_lfht_node *node, const void *key)
{
	return container_of(node, struct bench_obj, lfht)->key ==
	       *(const u64 *)key;
}

/* Updates run under rcu_read_lock() too, against ABA: see rculfhash.h */
static int bench_lfht_insert(struct bench_obj *obj)
{
	rcu_read_lock();
	cds_lfht_add(bench_lfht, bench_hash(obj->key), &obj->lfht);
	rcu_read_unlock();
	return 0;
}

static struct bench_obj *bench_lfht_lookup(u64 key)
{
	struct cds_lfht_node *node;
	struct cds_lfht_iter iter;

	rcu_read_lock();
	cds_lfht_lookup(bench_lfht, bench_hash(key), bench_lfht_match, &key,
			&iter);
	node = cds_lfht_iter_get_node(&iter);
	rcu_read_unlock();
	return node ? container_of(node, struct bench_obj, lfht) : NULL;
}

static __attribute__((__noinline__)) int bench_lfht_remove(struct bench_obj *obj)
{
	int ret;

	rcu_read_lock();
	ret = cds_lfht_del(bench_lfht, &obj->lfht);
	rcu_read_unlock();
	return ret;
}

static unsigned long bench_lfht_bytes(void)
{
	return uatomic_read(&bench_lfht_held);
}

/* Everything it held must have gone back through bench_lfht_alloc. */
static void bench_lfht_destroy(void)
{
	if (cds_lfht_destroy(bench_lfht, NULL))
		bench_die("cds_lfht_destroy()\n");
	if (uatomic_read(&bench_lfht_held))
		bench_die("cds_lfht: %ld bytes not freed through its allocator\n",
			  uatomic_read(&bench_lfht_held));
}

/* ---- the measured loops ---- */

/*
 * Inlined into one function per structure, so that each structure's
 * operations are direct calls, inlined where the compiler wants.  Lookups
 * return an object after rcu_read_unlock(), which real code must not do
 * without a reference: here objects are freed only at the very end.
 */
static __always_inline void
bench_run(struct bench_thread *t, int (*insert)(struct bench_obj *obj),
	  struct bench_obj *(*lookup)(u64 key),
	  int (*remove)(struct bench_obj *obj))
{
	const struct bench_op *op, *end = t->ops + t->nr_ops;
	unsigned long i, misses = 0, wrong = 0;
	struct bench_obj *obj, *old;
	u64 dep;

	switch (t->kind) {
	case RUN_FILL:
		for (i = 0; i < t->nr_objs; i++)
			if (insert(t->objs[i]))
				bench_die("insert of object %lu failed\n", i);
		break;
	case RUN_DRAIN:
		for (i = 0; i < t->nr_objs; i++)
			if (remove(t->objs[i]))
				bench_die("removal of object %lu failed\n", i);
		break;
	case RUN_LOOKUP:
		for (op = t->ops; op < end; op++) {
			obj = lookup(op->key);
			misses += !obj;
			wrong += obj != op->obj;
		}
		break;
	case RUN_CHASE:
		/*
		 * Each key depends on the previous result: on the key read
		 * from the object found (0 when the lookup was right, as the
		 * object's key is the one looked up), or on the NULL of a
		 * miss, so that no lookup starts before the one before it has
		 * ended, the caller's own comparison included.  The compiler
		 * is kept from knowing that the XOR is 0.
		 */
		dep = 0;
		for (op = t->ops; op < end; op++) {
			u64 key = op->key ^ dep;

			obj = lookup(key);
			misses += !obj;
			wrong += obj != op->obj;
			OPTIMIZER_HIDE_VAR(obj);
			dep = obj ? READ_ONCE(obj->key) ^ key : 0;
		}
		break;
	case RUN_MIX:
		for (op = t->ops; op < end; op++) {
			if (!op->obj) {
				obj = lookup(op->key);
				misses += !obj;
				wrong += !obj || obj->key != op->key;
				continue;
			}
			old = bench_live[op->key];
			op->obj->key = old->key;
			if (remove(old) || insert(op->obj))
				bench_die("mix: update of slot %lu failed\n",
					  (unsigned long)op->key);
			bench_live[op->key] = op->obj;
		}
		break;
	}
	t->misses = misses;
	t->wrong = wrong;
}

static void bench_rbh_run(struct bench_thread *t)
{
	bench_run(t, bench_rbh_insert, bench_rbh_lookup, bench_rbh_remove);
}

static void bench_rht_run(struct bench_thread *t)
{
	bench_run(t, bench_rht_insert, bench_rht_lookup, bench_rht_remove);
}

static void bench_bl_run(struct bench_thread *t)
{
	bench_run(t, bench_bl_insert, bench_bl_lookup, bench_bl_remove);
}

static void bench_lfht_run(struct bench_thread *t)
{
	bench_run(t, bench_lfht_insert, bench_lfht_lookup, bench_lfht_remove);
}

static const struct bench_table bench_tables[] = {
	{
		.name = "rosebush",
		.create = bench_rbh_create,
		.insert = bench_rbh_insert,
		.remove = bench_rbh_remove,
		.run = bench_rbh_run,
		.settle = bench_flush_workqueue,
		.bytes = bench_rbh_bytes,
		.linkage = 0,
		.huge = bench_rbh_huge,
		.destroy = bench_rbh_destroy,
	}, {
		.name = "rhashtable",
		.create = bench_rht_create,
		.insert = bench_rht_insert,
		.remove = bench_rht_remove,
		.run = bench_rht_run,
		.settle = bench_flush_workqueue,
		.bytes = bench_rht_bytes,
		.linkage = sizeof(((struct bench_obj *)0)->rht),
		.huge = bench_rht_huge,
		.destroy = bench_rht_destroy,
	}, {
		.name = "hlist_bl",
		.create = bench_bl_create,
		.insert = bench_bl_insert,
		.remove = bench_bl_remove,
		.run = bench_bl_run,
		.settle = bench_no_settle,
		.bytes = bench_bl_bytes,
		.linkage = sizeof(((struct bench_obj *)0)->bl),
		.huge = bench_bl_huge,
		.destroy = bench_bl_destroy,
	}, {
		.name = "cds_lfht",
		.create = bench_lfht_create,
		.insert = bench_lfht_insert,
		.remove = bench_lfht_remove,
		.run = bench_lfht_run,
		.settle = bench_no_settle,
		.bytes = bench_lfht_bytes,
		.linkage = sizeof(((struct bench_obj *)0)->lfht),
		.destroy = bench_lfht_destroy,
	},
};

#define BENCH_NR_TABLES		ARRAY_SIZE(bench_tables)
/* The reference of every ratio */
#define BENCH_ROSEBUSH		0
#define BENCH_RHASHTABLE	1

/* ---- operations ---- */

/*
 * Zipf-distributed ranks in [0, n), as YCSB draws them (Gray et al.,
 * "Quickly generating billion-record synthetic databases", SIGMOD 1994).
 */
struct bench_zipf {
	unsigned long n;
	double zetan, alpha, eta, half_pow_theta;
};

static void bench_zipf_init(struct bench_zipf *z, unsigned long n, double theta)
{
	unsigned long i;

	z->n = n;
	z->zetan = 0;
	for (i = 1; i <= n; i++)
		z->zetan += pow(i, -theta);
	z->half_pow_theta = pow(0.5, theta);
	z->alpha = 1 / (1 - theta);
	z->eta = (1 - pow(2.0 / n, 1 - theta)) /
		 (1 - (1 + z->half_pow_theta) / z->zetan);
}

static unsigned long bench_zipf_next(const struct bench_zipf *z, u64 *rnd)
{
	/* 53 random bits, in [0, 1) */
	double u = (bench_rand(rnd) >> 11) / (double)(1ULL << 53);
	double uz = u * z->zetan;
	unsigned long rank;

	if (uz < 1)
		return 0;
	if (uz < 1 + z->half_pow_theta)
		return 1;
	rank = z->n * pow(z->eta * u - z->eta + 1, z->alpha);
	return min(rank, z->n - 1);
}

enum bench_workload {
	BENCH_INSERT,
	BENCH_REMOVE,
	BENCH_UNIFORM,
	BENCH_ZIPF,
	BENCH_NEGATIVE,
	BENCH_MIX,
	/* The same lookups, latency-bound (RUN_CHASE), on one thread */
	BENCH_UNIFORM_LAT,
	BENCH_NEGATIVE_LAT,
	BENCH_NR_WORKLOADS
};

static const char *const bench_workload_names[] = {
	[BENCH_INSERT] = "insert",
	[BENCH_REMOVE] = "remove",
	[BENCH_UNIFORM] = "lookup-uniform",
	[BENCH_ZIPF] = "lookup-zipf",
	[BENCH_NEGATIVE] = "lookup-negative",
	[BENCH_MIX] = "mix-90/10",
	[BENCH_UNIFORM_LAT] = "latency-uniform",
	[BENCH_NEGATIVE_LAT] = "latency-negative",
};

/* The operations that a workload runs */
static enum bench_workload bench_ops_of(enum bench_workload w)
{
	switch (w) {
	case BENCH_UNIFORM_LAT:
		return BENCH_UNIFORM;
	case BENCH_NEGATIVE_LAT:
		return BENCH_NEGATIVE;
	default:
		return w;
	}
}

static enum bench_kind bench_kind_of(enum bench_workload w)
{
	switch (w) {
	case BENCH_MIX:
		return RUN_MIX;
	case BENCH_UNIFORM_LAT:
	case BENCH_NEGATIVE_LAT:
		return RUN_CHASE;
	default:
		return RUN_LOOKUP;
	}
}

/*
 * Insert, remove and the latency-bound lookups run on one thread, the
 * others on 1 and 2.
 */
static unsigned int bench_max_threads(unsigned int w)
{
	return w == BENCH_INSERT || w == BENCH_REMOVE ||
	       bench_kind_of(w) == RUN_CHASE ? 1 : BENCH_MAX_THREADS;
}

/* Operations of the lookup and mix workloads, for the current size */
static struct bench_op *bench_ops[BENCH_NR_WORKLOADS];

/*
 * The lookups, and the mix.  Mix operations [t x ops / 2, (t + 1) x ops / 2)
 * touch slots [t x n / 2, (t + 1) x n / 2) only, so that each of two
 * threads updates and looks up its own objects, and every update has its
 * own spare object.
 */
/* How much of the objects and the operations huge pages back */
static void bench_ops_huge(FILE *f)
{
	struct bench_huge objs = {}, ops = {};
	char o[64], p[64];
	int w;

	bench_pool_huge(&objs);
	for (w = BENCH_UNIFORM; w <= BENCH_MIX; w++)
		bench_huge_count(&ops, bench_ops[w],
				 opt.ops * sizeof(struct bench_op));
	fprintf(f, "# huge pages back the objects: %s; the operations: %s\n",
		bench_huge_str(&objs, o, sizeof(o)),
		bench_huge_str(&ops, p, sizeof(p)));
}

static void bench_ops_make(unsigned long n)
{
	unsigned long i, slot, spare = 0, lo, span;
	u64 rnd = bench_mix64(opt.seed ^ n);
	struct bench_zipf zipf;
	struct bench_op *op;
	int w;

	/* On huge pages, so that the operations do not dilute the TLB */
	for (w = BENCH_UNIFORM; w <= BENCH_MIX; w++) {
		if (!bench_ops[w])
			bench_ops[w] = bench_huge_alloc(opt.ops *
							sizeof(struct bench_op));
		if (!bench_ops[w])
			bench_die("out of memory for operations\n");
	}
	if (!bench_spares)
		bench_spares = calloc(opt.ops, sizeof(*bench_spares));
	if (!bench_spares)
		bench_die("out of memory for spares\n");
	bench_zipf_init(&zipf, n, BENCH_ZIPF_THETA);
	for (i = 0; i < opt.ops; i++) {
		slot = bench_rand_below(&rnd, n);
		bench_ops[BENCH_UNIFORM][i].key = bench_key(slot);
		bench_ops[BENCH_UNIFORM][i].obj = bench_objs[slot];

		/* Scatter the popular ranks over the slots: 2654435761 is prime */
		slot = bench_zipf_next(&zipf, &rnd) * 2654435761ULL % n;
		bench_ops[BENCH_ZIPF][i].key = bench_key(slot);
		bench_ops[BENCH_ZIPF][i].obj = bench_objs[slot];

		bench_ops[BENCH_NEGATIVE][i].key =
			bench_absent_key(bench_rand_below(&rnd, n));
		bench_ops[BENCH_NEGATIVE][i].obj = NULL;

		op = &bench_ops[BENCH_MIX][i];
		lo = i < opt.ops / 2 ? 0 : n / 2;
		span = i < opt.ops / 2 ? n / 2 : n - n / 2;
		slot = lo + bench_rand_below(&rnd, span);
		if (bench_rand_below(&rnd, 100) < BENCH_MIX_UPDATES) {
			if (spare == bench_nr_spares)
				bench_spares[bench_nr_spares++] =
					bench_obj_alloc();
			op->key = slot;
			op->obj = bench_spares[spare++];
		} else {
			op->key = bench_key(slot);
			op->obj = NULL;
		}
	}
}

/* ---- measurements ---- */

static pthread_barrier_t bench_barrier;

static void *bench_thread_fn(void *arg)
{
	struct bench_thread *t = arg;

	rcu_register_thread();
	pthread_barrier_wait(&bench_barrier);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	t->run(t);
	clock_gettime(CLOCK_MONOTONIC, &t->end);
	rcu_unregister_thread();
	return NULL;
}

/*
 * Run @kind over @ops on @nr_threads threads, each on its share; return
 * ns/op per thread: from the first start to the last end, x threads / ops.
 */
static double bench_threads(const struct bench_table *tbl, enum bench_kind kind,
			    const struct bench_op *ops, unsigned int nr_threads,
			    unsigned long *misses, unsigned long *wrong)
{
	struct bench_thread threads[BENCH_MAX_THREADS] = { };
	struct timespec start, end;
	unsigned int i;

	pthread_barrier_init(&bench_barrier, NULL, nr_threads + 1);
	for (i = 0; i < nr_threads; i++) {
		threads[i].run = tbl->run;
		threads[i].kind = kind;
		threads[i].ops = ops + opt.ops * i / nr_threads;
		threads[i].nr_ops = opt.ops * (i + 1) / nr_threads -
				    opt.ops * i / nr_threads;
		if (pthread_create(&threads[i].thread, NULL, bench_thread_fn,
				   &threads[i]))
			bench_die("pthread_create()\n");
	}
	pthread_barrier_wait(&bench_barrier);
	for (i = 0; i < nr_threads; i++)
		pthread_join(threads[i].thread, NULL);
	pthread_barrier_destroy(&bench_barrier);

	start = threads[0].start;
	end = threads[0].end;
	for (i = 0; i < nr_threads; i++) {
		if (bench_ns(&threads[i].start, &start) > 0)
			start = threads[i].start;
		if (bench_ns(&end, &threads[i].end) > 0)
			end = threads[i].end;
		*misses += threads[i].misses;
		*wrong += threads[i].wrong;
	}
	return bench_ns(&start, &end) * nr_threads / opt.ops;
}

/* Fill or empty the structure from this thread; return the elapsed ns. */
static double bench_fill_drain(const struct bench_table *tbl,
			       enum bench_kind kind, unsigned long n)
{
	struct bench_thread t = {
		.kind = kind,
		.objs = bench_objs,
		.nr_objs = n,
	};
	struct timespec start, end;

	clock_gettime(CLOCK_MONOTONIC, &start);
	tbl->run(&t);
	tbl->settle();
	clock_gettime(CLOCK_MONOTONIC, &end);
	return bench_ns(&start, &end);
}

/* After a mix: store the original objects again, unlinking the spares. */
static void bench_mix_restore(const struct bench_table *tbl, unsigned long n)
{
	unsigned long slot;

	/* The updaters are gone; wait for the structure's own readers too */
	synchronize_rcu();
	for (slot = 0; slot < n; slot++) {
		if (bench_live[slot] == bench_objs[slot])
			continue;
		if (tbl->remove(bench_live[slot]) ||
		    tbl->insert(bench_objs[slot]))
			bench_die("%s: restoring slot %lu failed\n", tbl->name,
				  slot);
	}
	synchronize_rcu();
	tbl->settle();
}

/* Results: ns/op per size, workload, threads, structure and repeat */
static double bench_results[BENCH_NR_SIZES][BENCH_NR_WORKLOADS]
			   [BENCH_MAX_THREADS][BENCH_NR_TABLES]
			   [BENCH_MAX_REPEATS];
static double bench_bytes[BENCH_NR_SIZES][BENCH_NR_TABLES][BENCH_MAX_REPEATS];
static struct rbh_stats bench_rbh_stats[BENCH_NR_SIZES];
/* How long each rbh_stats() took to walk the table */
static double bench_rbh_stats_ns[BENCH_NR_SIZES];
static unsigned long bench_checked, bench_misses, bench_expected_misses;

static void bench_check(const struct bench_table *tbl, enum bench_workload w,
			unsigned long n, unsigned int nr_threads,
			unsigned long misses, unsigned long wrong)
{
	bool negative = bench_ops_of(w) == BENCH_NEGATIVE;

	bench_checked += opt.ops;
	bench_misses += misses;
	if (negative)
		bench_expected_misses += opt.ops;
	if (wrong || (!negative && misses))
		bench_die("%s, %s, %lu entries, threads=%u: %lu wrong results, %lu misses\n",
			  tbl->name, bench_workload_names[w], n, nr_threads,
			  wrong, misses);
}

/*
 * latency-uniform's chase, stopped after each dependent load of a hit, on
 * the same keys in the same order:
 *
 *   LEVEL_RBH_SLOT	rosebush's table slot only
 *   LEVEL_RBH_ENTRY	the table slot, then the first pointer rbh_first()
 *			returns (the bucket's line or lines), not the object
 *   LEVEL_RHT_SLOT	rhashtable's bucket slot only (the first object's
 *			address), not the object
 *   LEVEL_OBJECT	only the objects the hits return, one after another
 *			with no structure at all
 *
 * A full hit (latency-uniform) is rosebush's slot, entry and object, and
 * rhashtable's slot and object (or objects, in a longer chain).  Each key
 * still depends on the load before it: the next key is XORed with a value
 * that is always 0 (a pointer's bit 0; the object's key XOR the key),
 * which the compiler cannot know.
 */
enum bench_level {
	LEVEL_RBH_SLOT,
	LEVEL_RBH_ENTRY,
	LEVEL_RHT_SLOT,
	LEVEL_OBJECT,
	BENCH_NR_LEVELS
};

static const char *const bench_level_names[] = {
	[LEVEL_RBH_SLOT] = "rosebush slot",
	[LEVEL_RBH_ENTRY] = "+ entry",
	[LEVEL_RHT_SLOT] = "rhashtable slot",
	[LEVEL_OBJECT] = "objects alone",
};

static double bench_levels[BENCH_NR_SIZES][BENCH_NR_LEVELS][BENCH_MAX_REPEATS];

static __always_inline unsigned long bench_level_load(enum bench_level level,
						      const struct bench_op *op,
						      u64 key)
{
	struct bucket_table *tbl;
	struct bench_obj *obj;
	unsigned long v;
	void *p;

	switch (level) {
	case LEVEL_RBH_SLOT:
		rcu_read_lock();
		p = rbh_table_bucket(rcu_dereference(bench_rbh.rbh_table),
				     rbh_key(bench_hash(key)));
		rcu_read_unlock();
		/* So that the compiler cannot make the & 1 a branch */
		OPTIMIZER_HIDE_VAR(p);
		return (unsigned long)p & 1;
	case LEVEL_RBH_ENTRY: {
		struct rbh_iter iter;

		rcu_read_lock();
		p = rbh_first(&iter, &bench_rbh, bench_hash(key));
		rcu_read_unlock();
		if (!p)
			bench_die("levels: a stored key not found\n");
		/* So that the compiler cannot make the & 1 a branch */
		OPTIMIZER_HIDE_VAR(p);
		return (unsigned long)p & 1;
	}
	case LEVEL_RHT_SLOT:
		rcu_read_lock();
		tbl = rcu_dereference(bench_rht.tbl);
		p = rht_ptr_rcu(rht_bucket(tbl, rht_key_hashfn(&bench_rht, tbl,
							     &key,
							     bench_rht_params)));
		rcu_read_unlock();
		/* So that the compiler cannot make the & 1 a branch */
		OPTIMIZER_HIDE_VAR(p);
		return (unsigned long)p & 1;
	case LEVEL_OBJECT:
	default:
		obj = (struct bench_obj *)((unsigned long)op->obj ^
					   (key ^ op->key));
		v = READ_ONCE(obj->key) ^ key;
		return v;
	}
}

static __always_inline double bench_level_chase(enum bench_level level,
						const struct bench_op *ops)
{
	const struct bench_op *op, *end = ops + opt.ops;
	struct timespec start, stop;
	u64 dep = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (op = ops; op < end; op++) {
		unsigned long v = bench_level_load(level, op, op->key ^ dep);

		OPTIMIZER_HIDE_VAR(v);
		dep = v;
	}
	clock_gettime(CLOCK_MONOTONIC, &stop);
	if (dep)
		bench_die("levels: %s: the chase broke\n",
			  bench_level_names[level]);
	return bench_ns(&start, &stop) / opt.ops;
}

/* With @table filled, after its own workloads */
static void bench_levels_one(unsigned int size, unsigned int table,
			     unsigned int rep)
{
	const struct bench_op *ops = bench_ops[BENCH_UNIFORM];
	double (*lv)[BENCH_MAX_REPEATS] = bench_levels[size];

	if (table == BENCH_ROSEBUSH) {
		lv[LEVEL_RBH_SLOT][rep] = bench_level_chase(LEVEL_RBH_SLOT, ops);
		lv[LEVEL_RBH_ENTRY][rep] = bench_level_chase(LEVEL_RBH_ENTRY, ops);
		lv[LEVEL_OBJECT][rep] = bench_level_chase(LEVEL_OBJECT, ops);
	} else if (table == BENCH_RHASHTABLE) {
		lv[LEVEL_RHT_SLOT][rep] = bench_level_chase(LEVEL_RHT_SLOT, ops);
	}
}

static void bench_one(unsigned int size, unsigned int table, unsigned int rep)
{
	const struct bench_table *tbl = &bench_tables[table];
	unsigned long n = bench_sizes[size];
	unsigned long rounds = max(1UL, BENCH_MIN_FILL / n);
	unsigned long misses, wrong, r;
	double fill = 0, drain = 0;
	unsigned int w, threads;

	for (r = 0; r < rounds; r++) {
		tbl->create(n);
		fill += bench_fill_drain(tbl, RUN_FILL, n);
		if (r < rounds - 1) {
			drain += bench_fill_drain(tbl, RUN_DRAIN, n);
			tbl->destroy();
		}
	}
	bench_bytes[size][table][rep] = (double)tbl->bytes() / n;
	if (table == BENCH_ROSEBUSH && rep == 0) {
		bench_slab_report(stdout);
		bench_ops_huge(stdout);
	}
	if (rep == 0 && tbl->huge)
		tbl->huge(stdout);
	if (table == BENCH_ROSEBUSH && rep == 0) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		rbh_stats(&bench_rbh, &bench_rbh_stats[size]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		bench_rbh_stats_ns[size] = bench_ns(&t0, &t1);
	}

	for (w = BENCH_UNIFORM; w < BENCH_NR_WORKLOADS; w++) {
		for (threads = 1; threads <= bench_max_threads(w); threads++) {
			if (w == BENCH_MIX)
				memcpy(bench_live, bench_objs,
				       n * sizeof(*bench_live));
			misses = 0;
			wrong = 0;
			bench_results[size][w][threads - 1][table][rep] =
				bench_threads(tbl, bench_kind_of(w),
					      bench_ops[bench_ops_of(w)], threads,
					      &misses, &wrong);
			bench_check(tbl, w, n, threads, misses, wrong);
			if (w == BENCH_MIX)
				bench_mix_restore(tbl, n);
		}
	}

	bench_levels_one(size, table, rep);
	drain += bench_fill_drain(tbl, RUN_DRAIN, n);
	tbl->destroy();
	bench_results[size][BENCH_INSERT][0][table][rep] = fill / (rounds * n);
	bench_results[size][BENCH_REMOVE][0][table][rep] = drain / (rounds * n);
}

/* ---- report ---- */

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Min and median of the repeats of one result */
struct bench_stat {
	double min, median;
};

static struct bench_stat bench_stat(const double *v)
{
	double sorted[BENCH_MAX_REPEATS];
	unsigned int r = opt.repeats;

	memcpy(sorted, v, r * sizeof(*v));
	qsort(sorted, r, sizeof(*sorted), bench_cmp_double);
	return (struct bench_stat){
		.min = sorted[0],
		.median = r & 1 ? sorted[r / 2] :
			  (sorted[r / 2 - 1] + sorted[r / 2]) / 2,
	};
}

static struct bench_stat bench_time(unsigned int size, unsigned int w,
				    unsigned int threads, unsigned int table)
{
	return bench_stat(bench_results[size][w][threads - 1][table]);
}

static void bench_print(unsigned int nr_sizes)
{
	struct bench_stat ref, st;
	unsigned int w, threads, size, i;

	printf("\n# ns/op, min/median of %u runs, and each peer's ratio to rosebush\n"
	       "# (min/median: > 1 means rosebush is faster); 2 threads: elapsed x 2 / ops\n",
	       opt.repeats);
	printf("%-15s %3s %8s | %-13s", "workload", "thr", "entries",
	       bench_tables[BENCH_ROSEBUSH].name);
	for (i = BENCH_ROSEBUSH + 1; i < BENCH_NR_TABLES; i++)
		printf(" | %-23s", bench_tables[i].name);
	printf("\n");
	for (w = 0; w < BENCH_NR_WORKLOADS; w++) {
		for (threads = 1; threads <= bench_max_threads(w); threads++) {
			for (size = 0; size < nr_sizes; size++) {
				ref = bench_time(size, w, threads, BENCH_ROSEBUSH);
				printf("%-15s %3u %8lu | %6.1f/%-6.1f",
				       bench_workload_names[w], threads,
				       bench_sizes[size], ref.min, ref.median);
				for (i = BENCH_ROSEBUSH + 1; i < BENCH_NR_TABLES; i++) {
					st = bench_time(size, w, threads, i);
					printf(" | %6.1f/%-6.1f %4.2f/%4.2f",
					       st.min, st.median, st.min / ref.min,
					       st.median / ref.median);
				}
				printf("\n");
			}
		}
	}

	printf("\n# bytes per entry after the fill: held by the structure (objects excluded)\n"
	       "# / with the linkage each object embeds for it (");
	for (i = 0; i < BENCH_NR_TABLES; i++)
		printf("%s%s %u B", i ? ", " : "", bench_tables[i].name,
		       bench_tables[i].linkage);
	printf(")\n%8s", "entries");
	for (i = 0; i < BENCH_NR_TABLES; i++)
		printf(" %13s", bench_tables[i].name);
	printf("\n");
	for (size = 0; size < nr_sizes; size++) {
		printf("%8lu", bench_sizes[size]);
		for (i = 0; i < BENCH_NR_TABLES; i++) {
			double b = bench_stat(bench_bytes[size][i]).median;

			printf("  %5.1f/%-5.1f", b, b + bench_tables[i].linkage);
		}
		printf("\n");
	}
}

/* Where a latency-bound hit waits: see bench_levels_one() */
static void bench_print_levels(unsigned int nr_sizes)
{
	struct bench_stat st, rbh, rht;
	unsigned int size, l;

	printf("\n# latency-uniform, one dependent load at a time: ns/op, min/median of %u runs,\n"
	       "# of a chase that reads only rosebush's table slot, then the slot and the\n"
	       "# pointer in the bucket, then (latency-uniform) the object too; rhashtable's\n"
	       "# bucket slot, then the object; the objects alone, with no structure\n",
	       opt.repeats);
	printf("%8s | %-13s | %-13s | %-13s | %-15s | %-13s | %-13s\n", "entries",
	       bench_level_names[LEVEL_RBH_SLOT],
	       bench_level_names[LEVEL_RBH_ENTRY], "+ object: hit",
	       bench_level_names[LEVEL_RHT_SLOT], "+ object: hit",
	       bench_level_names[LEVEL_OBJECT]);
	for (size = 0; size < nr_sizes; size++) {
		rbh = bench_time(size, BENCH_UNIFORM_LAT, 1, BENCH_ROSEBUSH);
		rht = bench_time(size, BENCH_UNIFORM_LAT, 1, BENCH_RHASHTABLE);
		printf("%8lu", bench_sizes[size]);
		for (l = LEVEL_RBH_SLOT; l <= LEVEL_RBH_ENTRY; l++) {
			st = bench_stat(bench_levels[size][l]);
			printf(" | %6.1f/%-6.1f", st.min, st.median);
		}
		printf(" | %6.1f/%-6.1f", rbh.min, rbh.median);
		st = bench_stat(bench_levels[size][LEVEL_RHT_SLOT]);
		printf(" | %6.1f/%-8.1f", st.min, st.median);
		printf(" | %6.1f/%-6.1f", rht.min, rht.median);
		st = bench_stat(bench_levels[size][LEVEL_OBJECT]);
		printf(" | %6.1f/%-6.1f\n", st.min, st.median);
	}
}

/* How full rosebush's buckets are, and the occupancy histogram */
static void bench_print_occupancy(unsigned int nr_sizes)
{
	unsigned int size, k;

	printf("\n# rosebush after the fill (rbh_stats): %u entries per bucket;\n"
	       "# spilled: entries outside their home group (a second line to read);\n"
	       "# occupancy: how many buckets hold 0, 1, ... %u entries;\n"
	       "# walk: how long rbh_stats() took to walk it\n",
	       bench_rbh_stats[0].bucket_capacity,
	       bench_rbh_stats[0].bucket_capacity);
	for (size = 0; size < nr_sizes; size++) {
		const struct rbh_stats *s = &bench_rbh_stats[size];
		unsigned long buckets = s->buckets + s->overflow_buckets;

		printf("%8lu entries: %lu buckets (+%lu overflow), %lu slots, %.1f%% full, %.1f%% spilled,",
		       s->entries, s->buckets, s->overflow_buckets,
		       s->table_slots,
		       100.0 * s->entries / (buckets * s->bucket_capacity),
		       100.0 * s->spilled / s->entries);
		printf(" occupancy");
		for (k = 0; k <= s->bucket_capacity; k++)
			printf(" %lu", s->occupancy[k]);
		printf(", walk %.2f ms\n", bench_rbh_stats_ns[size] / 1e6);
	}
}

/* Bytes per entry, the linkage in the objects included */
static struct bench_stat bench_linked(unsigned int size, unsigned int table)
{
	struct bench_stat st = bench_stat(bench_bytes[size][table]);

	st.min += bench_tables[table].linkage;
	st.median += bench_tables[table].linkage;
	return st;
}

static void bench_csv_row(FILE *f, const char *workload, unsigned int threads,
			  unsigned int size, unsigned int table,
			  const char *unit, struct bench_stat st,
			  struct bench_stat ref)
{
	fprintf(f, "%s,%u,%lu,%s,%s,%.2f,%.2f,%.3f,%.3f\n", workload, threads,
		bench_sizes[size], bench_tables[table].name, unit, st.min,
		st.median, st.min / ref.min, st.median / ref.median);
}

/*
 * One row per workload, threads, structure and size, in that order (what
 * rosebush-bench.gp expects), then the memory per entry (threads 0).
 */
static void bench_write_csv(unsigned int nr_sizes)
{
	unsigned int w, threads, size, i, l;
	FILE *f = fopen(opt.csv, "w");

	if (!f)
		bench_die("cannot write %s\n", opt.csv);
	fprintf(f, "workload,threads,entries,structure,unit,min,median,ratio_min,ratio_median\n");
	for (w = 0; w < BENCH_NR_WORKLOADS; w++)
		for (threads = 1; threads <= bench_max_threads(w); threads++)
			for (i = 0; i < BENCH_NR_TABLES; i++)
				for (size = 0; size < nr_sizes; size++)
					bench_csv_row(f, bench_workload_names[w],
						      threads, size, i, "ns/op",
						      bench_time(size, w, threads, i),
						      bench_time(size, w, threads,
								 BENCH_ROSEBUSH));
	for (i = 0; i < BENCH_NR_TABLES; i++)
		for (size = 0; size < nr_sizes; size++)
			bench_csv_row(f, "memory", 0, size, i, "bytes/entry",
				      bench_stat(bench_bytes[size][i]),
				      bench_stat(bench_bytes[size][BENCH_ROSEBUSH]));
	for (i = 0; i < BENCH_NR_TABLES; i++)
		for (size = 0; size < nr_sizes; size++)
			bench_csv_row(f, "memory+linkage", 0, size, i, "bytes/entry",
				      bench_linked(size, i),
				      bench_linked(size, BENCH_ROSEBUSH));
	/* latency-uniform level by level: the structure column names the level */
	for (l = 0; l < BENCH_NR_LEVELS; l++)
		for (size = 0; size < nr_sizes; size++) {
			struct bench_stat st = bench_stat(bench_levels[size][l]);

			fprintf(f, "latency-level,1,%lu,%s,ns/op,%.2f,%.2f,,\n",
				bench_sizes[size], bench_level_names[l], st.min,
				st.median);
		}
	if (fclose(f))
		bench_die("cannot write %s\n", opt.csv);
}

/* ---- cache misses, under callgrind ---- */

/*
 * The operation stream alone: the same loop over the same operations, with
 * a lookup that reads nothing.  What it costs, callgrind counts for every
 * structure too; misses.py subtracts it.
 */
static struct bench_obj *bench_null_lookup(u64 key)
{
	return NULL;
}

static int bench_null_update(struct bench_obj *obj)
{
	return 0;
}

static void bench_null_run(struct bench_thread *t)
{
	bench_run(t, bench_null_update, bench_null_lookup, bench_null_update);
}

static const struct bench_table bench_op_stream = {
	.name = "op-stream",
	.run = bench_null_run,
	.settle = bench_no_settle,
};

/*
 * Run @nr operations from @ops of workload @w (lookups or the mix) on this
 * thread; die on a wrong result.
 */
static void bench_lookups(const struct bench_table *tbl,
			  const struct bench_op *ops, unsigned long nr,
			  enum bench_workload w)
{
	struct bench_thread t = {
		.kind = bench_kind_of(w),
		.ops = ops,
		.nr_ops = nr,
	};

	tbl->run(&t);
	if (tbl == &bench_op_stream)
		return;
	if (t.wrong || (w != BENCH_NEGATIVE && t.misses))
		bench_die("%s, %s: %lu wrong results, %lu misses\n", tbl->name,
			  bench_workload_names[w], t.wrong, t.misses);
}

/*
 * Removals, under callgrind: from the full structure, a quarter of its
 * objects (in the order they were stored, which their random keys spread
 * over the table) with the counters off, then the next quarter counted
 * (opt.ops of them at most), dumped as "<structure> remove <count>"; then every
 * object removed is stored again, uncounted.  The counted removals take
 * the structure from three quarters of its entries towards half (at 10^6
 * entries all the way, at 4 x 10^6 to 55%), where rosebush's buckets
 * become ready to merge and rhashtable's table crosses 30% of its slots:
 * what a removal costs while the structure empties.
 */
static void bench_removals(const struct bench_table *tbl, unsigned long n)
{
	unsigned long warm = n / 4, counted = min(n / 4, opt.ops);
	struct bench_thread t = {
		.kind = RUN_DRAIN,
		.objs = bench_objs,
		.nr_objs = warm,
	};
	char name[64];

	tbl->run(&t);
	tbl->settle();
	t.objs = bench_objs + warm;
	t.nr_objs = counted;
	CALLGRIND_TOGGLE_COLLECT;
	tbl->run(&t);
	CALLGRIND_TOGGLE_COLLECT;
	snprintf(name, sizeof(name), "%s remove %lu", tbl->name, counted);
	CALLGRIND_DUMP_STATS_AT(name);
	tbl->settle();
	t.kind = RUN_FILL;
	t.objs = bench_objs;
	t.nr_objs = warm + counted;
	tbl->run(&t);
	tbl->settle();
}

/*
 * Fills and drains, under callgrind: each structure filled from empty with
 * the same @n objects, then emptied again, each time with its deferred work
 * waited for, as make bench times them, dumped as "<structure> insert <n>"
 * and "<structure> drain <n>".  Every thread collects from the start
 * (scripts/bench.sh), so that the work queue's worker (which grows
 * rhashtable's table, and merges and halves rosebush's) is counted; the
 * instrumentation is on for the fills and drains only.
 */
static void bench_fills(unsigned long n)
{
	static const enum bench_kind kinds[] = { RUN_FILL, RUN_DRAIN };
	char name[64];
	unsigned int i, k;

	for (i = 0; i < BENCH_NR_TABLES; i++) {
		bench_tables[i].create(n);
		for (k = 0; k < ARRAY_SIZE(kinds); k++) {
			CALLGRIND_START_INSTRUMENTATION;
			bench_fill_drain(&bench_tables[i], kinds[k], n);
			snprintf(name, sizeof(name), "%s %s %lu",
				 bench_tables[i].name,
				 kinds[k] == RUN_FILL ? "insert" : "drain", n);
			CALLGRIND_DUMP_STATS_AT(name);
			CALLGRIND_STOP_INSTRUMENTATION;
		}
		bench_tables[i].destroy();
	}
}

/*
 * Every structure holds the same opt.misses objects at once.  For each
 * structure and workload (two of lookups, and the 90/10 mix), callgrind
 * simulates the caches through opt.warmup operations without counting, so
 * that what stays cached between them (a table's top levels, popular
 * buckets) is cached, then counts the next opt.ops on this thread (the
 * work queue's worker is not counted) and dumps the counts, under the name
 * "<structure> <workload> <ops>", for scripts/bench.sh to divide by
 * opt.ops; the mix's updates are undone after it.  The simulation runs
 * from the first warm-up on, and never during the fills, which it would
 * slow down a hundredfold.
 */
static void bench_cache_misses(void)
{
	static const enum bench_workload workloads[] = {
		BENCH_UNIFORM, BENCH_NEGATIVE, BENCH_MIX,
	};
	unsigned long n = opt.misses, total = opt.warmup + opt.ops;
	unsigned int i, k;
	char name[64];

	if (!RUNNING_ON_VALGRIND)
		bench_die("misses=N runs under callgrind: see scripts/bench.sh\n");
	printf("# rosebush-bench: misses=%lu ops=%lu warmup=%lu seed=%llu\n", n,
	       opt.ops, opt.warmup, (unsigned long long)opt.seed);
	opt.ops = total;
	bench_objs_grow(n);
	bench_ops_make(n);
	if (opt.fill) {
		bench_fills(n);
		return;
	}
	for (i = 0; i < BENCH_NR_TABLES; i++) {
		bench_tables[i].create(n);
		bench_fill_drain(&bench_tables[i], RUN_FILL, n);
	}

	CALLGRIND_START_INSTRUMENTATION;
	for (i = 0; i <= BENCH_NR_TABLES; i++) {
		const struct bench_table *tbl = i < BENCH_NR_TABLES ?
						&bench_tables[i] : &bench_op_stream;

		for (k = 0; k < ARRAY_SIZE(workloads); k++) {
			enum bench_workload w = workloads[k];
			const struct bench_op *ops = bench_ops[w];

			if (w == BENCH_MIX)
				memcpy(bench_live, bench_objs,
				       n * sizeof(*bench_live));
			bench_lookups(tbl, ops, opt.warmup, w);
			CALLGRIND_TOGGLE_COLLECT;
			bench_lookups(tbl, ops + opt.warmup, total - opt.warmup, w);
			CALLGRIND_TOGGLE_COLLECT;
			snprintf(name, sizeof(name), "%s %s %lu", tbl->name,
				 bench_workload_names[w], total - opt.warmup);
			CALLGRIND_DUMP_STATS_AT(name);
			if (w == BENCH_MIX && tbl != &bench_op_stream)
				bench_mix_restore(tbl, n);
		}
		bench_removals(tbl, n);
	}
	CALLGRIND_STOP_INSTRUMENTATION;

	for (i = 0; i < BENCH_NR_TABLES; i++) {
		bench_fill_drain(&bench_tables[i], RUN_DRAIN, n);
		bench_tables[i].destroy();
	}
}

/* Objects and rosebush together, against the last-level cache */
static void bench_print_footprint(unsigned int nr_sizes)
{
	unsigned int size;

	printf("\n# objects + rosebush, MiB, against the %lu-MiB last-level cache\n",
	       bench_llc_bytes >> 20);
	for (size = 0; size < nr_sizes; size++) {
		unsigned long n = bench_sizes[size];
		double mib = n * (sizeof(struct bench_obj) +
				  bench_stat(bench_bytes[size][BENCH_ROSEBUSH]).median) /
			     (1 << 20);

		printf("%8lu entries: %8.1f MiB%s\n", n, mib,
		       !bench_llc_bytes ? "" : mib * (1 << 20) > 2.0 * bench_llc_bytes ?
		       ", more than twice the LLC" : mib * (1 << 20) > bench_llc_bytes ?
		       ", more than the LLC" : ", fits in the LLC");
	}
}

/* ---- main ---- */

static void __noreturn bench_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-l] [repeats=R] [ops=N] [max=N] [seed=N] [csv=FILE]\n"
		"          [alloc=slab|slab-4k|glibc]\n"
		"       %s misses=N [ops=N] [warmup=N] [seed=N] [fill=1]   (under callgrind)\n",
		prog, prog);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	unsigned long long val;
	char *eq, *end;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l")) {
			opt.max = ULONG_MAX;
			continue;
		}
		eq = strchr(argv[i], '=');
		if (!eq)
			bench_usage(argv[0]);
		*eq = '\0';
		if (!strcmp(argv[i], "csv")) {
			opt.csv = eq + 1;
			continue;
		}
		if (!strcmp(argv[i], "alloc")) {
			unsigned int m;

			for (m = 0; m < ARRAY_SIZE(bench_alloc_names); m++)
				if (!strcmp(eq + 1, bench_alloc_names[m]))
					break;
			if (m == ARRAY_SIZE(bench_alloc_names))
				bench_usage(argv[0]);
			bench_slab_mode(m);
			continue;
		}
		val = strtoull(eq + 1, &end, 0);
		if (*end || end == eq + 1)
			bench_usage(argv[0]);
		if (!strcmp(argv[i], "repeats") && val &&
		    val <= BENCH_MAX_REPEATS)
			opt.repeats = val;
		else if (!strcmp(argv[i], "ops") && val >= BENCH_MAX_THREADS)
			opt.ops = val;
		else if (!strcmp(argv[i], "max") && val)
			opt.max = val;
		else if (!strcmp(argv[i], "seed"))
			opt.seed = val;
		else if (!strcmp(argv[i], "misses") && val)
			opt.misses = val;
		else if (!strcmp(argv[i], "warmup"))
			opt.warmup = val;
		else if (!strcmp(argv[i], "fill"))
			opt.fill = val;
		else
			bench_usage(argv[0]);
	}
}

/* Every size up to opt.max, opt.repeats times: print the tables */
static void bench_timings(void)
{
	unsigned int size, nr_sizes = 0, rep, i;
	struct timespec t1, t2;
	unsigned long n;

	printf("# rosebush-bench: repeats=%u ops=%lu seed=%llu; %zu-byte objects, hash_64(key, 32)\n",
	       opt.repeats, opt.ops, (unsigned long long)opt.seed,
	       sizeof(struct bench_obj));
	bench_print_machine();
	for (size = 0; size < BENCH_NR_SIZES && bench_sizes[size] <= opt.max;
	     size++) {
		n = bench_sizes[size];
		clock_gettime(CLOCK_MONOTONIC, &t1);
		bench_objs_grow(n);
		bench_ops_make(n);
		/* Interleave the structures, so that drift hits them all */
		for (rep = 0; rep < opt.repeats; rep++)
			for (i = 0; i < BENCH_NR_TABLES; i++)
				bench_one(size, i, rep);
		nr_sizes++;
		clock_gettime(CLOCK_MONOTONIC, &t2);
		printf("# %lu entries: %.1f s\n", n, bench_ns(&t1, &t2) / 1e9);
		fflush(stdout);
	}
	/* bench_check() let nothing else through */
	printf("# checks: %lu lookups and updates, %lu misses (the %lu negative lookups),\n"
	       "# no wrong result\n",
	       bench_checked, bench_misses, bench_expected_misses);

	bench_print(nr_sizes);
	bench_print_footprint(nr_sizes);
	bench_print_levels(nr_sizes);
	bench_print_occupancy(nr_sizes);
	if (opt.csv)
		bench_write_csv(nr_sizes);
}

int main(int argc, char **argv)
{
	struct timespec t0, t2;
	unsigned int i;

	parse_args(argc, argv);
	if (rbh_harness_check_rcu())
		return 2;
	/* As in the kernel, GFP_NOWAIT and GFP_ATOMIC allocations succeed. */
	kmalloc_nowait_fails = 0;
	srandom(opt.seed);
	rcu_register_thread();
	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (opt.misses)
		bench_cache_misses();
	else
		bench_timings();

	bench_pool_free_all();
	free(bench_objs);
	free(bench_live);
	free(bench_spares);
	for (i = 0; i < BENCH_NR_WORKLOADS; i++)
		bench_huge_free(bench_ops[i]);
	destroy_system_workqueue();
	if (rbh_harness_leaks("at exit"))
		bench_die("memory still allocated\n");
	if (rbh_harness_warnings)
		bench_die("%lu WARNs\n", rbh_harness_warnings);
	rcu_unregister_thread();
	clock_gettime(CLOCK_MONOTONIC, &t2);
	printf("# elapsed: %.1f s\n", bench_ns(&t0, &t2) / 1e9);
	return 0;
}
