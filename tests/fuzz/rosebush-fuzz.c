// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush-fuzz.c: a libFuzzer target for lib/rosebush.c.
 *
 * The input is decoded into a sequence of operations on one rosebush:
 * inserts (single, floods under one hash, runs of hashes), inserts of a
 * pointer already stored, removals (of stored pointers, of pointers that
 * are not stored, of whole ranges of the stored entries), reservations
 * and their use or release, lookups under the RCU read lock, locked
 * iterations that remove some of what they find, statistics, allocation
 * failures injected at chosen allocations, flushing the shrink worker,
 * and destroying the rosebush and using it again.  Every step is checked
 * against a reference model: what rosebush stores under each hash, with
 * copies, and what is reserved.
 *
 * Hashes come from a few families so that the interesting shapes happen
 * in short inputs: small hashes, keys (see rbh_key()) that share all but
 * a few bits and so fill one bucket, full 32-bit hashes, and hashes
 * already used, which make floods of equal hashes and overflow chains.
 *
 * At the end of each input the rosebush is emptied and destroyed, RCU
 * callbacks and work items run, and nothing may remain allocated.  Any
 * disagreement with the model, any WARN and any leak abort the program,
 * which libFuzzer reports with the input that caused it.
 *
 * It is built by scripts/fuzz.sh against the patched tree's userspace
 * harness (tools/testing/radix-tree/rosebush-harness.h), with
 * -Wl,--wrap=kmalloc so that it can make allocations fail, and
 * --wrap=urcu_memb_call_rcu,--wrap=urcu_memb_barrier to run RCU
 * callbacks itself.
 */
#include "rosebush-harness.h"

#include <stdarg.h>
#include <stdint.h>

/* Objects one input may create; pointers into this arena are ours. */
#define FUZZ_MAX_OBJS		(1 << 16)
#define FUZZ_HASH_HEADS		4096
#define FUZZ_MAX_RESERVED	256
#define FUZZ_OBJ_MAGIC		0xf0220b1eu

struct fuzz_obj {
	u32 magic;
	u32 hash;
	unsigned int stored;	/* copies stored in the rosebush */
	unsigned int seen;	/* copies returned by the current walk */
	unsigned int freed;	/* calls of the free_fn of rbh_free_and_destroy() */
	struct fuzz_obj *next;	/* in fuzz_heads[], while stored */
};

struct fuzz_reserved {
	u32 hash;
	unsigned int nr;
};

static struct fuzz_obj fuzz_arena[FUZZ_MAX_OBJS];
static unsigned int fuzz_nr_objs;
static struct fuzz_obj *fuzz_heads[FUZZ_HASH_HEADS];
static unsigned long fuzz_nr_stored;
static struct fuzz_reserved fuzz_reserved[FUZZ_MAX_RESERVED];
static unsigned int fuzz_nr_reserved_hashes;
static unsigned long fuzz_nr_reserved;

static struct rbh fuzz_rbh;
static unsigned long fuzz_op_index;
static const char *fuzz_op_name = "start";

/* The input being decoded */
static const u8 *fuzz_data;
static size_t fuzz_left;

static __attribute__((noreturn, format(printf, 1, 2)))
void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rosebush-fuzz: operation %lu (%s): ", fuzz_op_index,
		fuzz_op_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define FUZZ_CHECK(cond, fmt, ...)					\
	do {								\
		if (!(cond))						\
			fuzz_fail("%s: " fmt, #cond, ##__VA_ARGS__);	\
	} while (0)

static u8 fuzz_u8(void)
{
	if (!fuzz_left)
		return 0;
	fuzz_left--;
	return *fuzz_data++;
}

static u16 fuzz_u16(void)
{
	return fuzz_u8() | (u16)fuzz_u8() << 8;
}

static u32 fuzz_u32(void)
{
	return fuzz_u16() | (u32)fuzz_u16() << 16;
}

/*
 * Allocation failures: while fuzz_fail_skip >= 0, let that many more
 * allocations succeed, then fail the next fuzz_fail_count.
 */
static int fuzz_fail_skip = -1;
static unsigned int fuzz_fail_count;
static unsigned long fuzz_failed_allocs;

void *__real_kmalloc(size_t size, gfp_t gfp);
void *__wrap_kmalloc(size_t size, gfp_t gfp);

void *__wrap_kmalloc(size_t size, gfp_t gfp)
{
	if (fuzz_fail_skip > 0) {
		fuzz_fail_skip--;
	} else if (fuzz_fail_skip == 0 && fuzz_fail_count) {
		if (!--fuzz_fail_count)
			fuzz_fail_skip = -1;
		fuzz_failed_allocs++;
		return NULL;
	}
	return __real_kmalloc(size, gfp);
}


/*
 * RCU callbacks: liburcu's call_rcu() thread and rcu_barrier() cost
 * milliseconds per input, so callbacks are queued here instead and run
 * after a synchronize_rcu() at the end of each input, when rosebush calls
 * rcu_barrier(), and by the flush operation.
 */
static pthread_mutex_t fuzz_rcu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_head **fuzz_rcu_queue;
static size_t fuzz_rcu_queued, fuzz_rcu_size;

void __wrap_urcu_memb_call_rcu(struct rcu_head *head,
			       void (*func)(struct rcu_head *head));
void __wrap_urcu_memb_barrier(void);

void __wrap_urcu_memb_call_rcu(struct rcu_head *head,
			       void (*func)(struct rcu_head *head))
{
	head->func = func;
	pthread_mutex_lock(&fuzz_rcu_lock);
	if (fuzz_rcu_queued == fuzz_rcu_size) {
		fuzz_rcu_size = fuzz_rcu_size ? 2 * fuzz_rcu_size : 64;
		fuzz_rcu_queue = realloc(fuzz_rcu_queue,
					 fuzz_rcu_size * sizeof(*fuzz_rcu_queue));
		if (!fuzz_rcu_queue)
			abort();
	}
	fuzz_rcu_queue[fuzz_rcu_queued++] = head;
	pthread_mutex_unlock(&fuzz_rcu_lock);
}

/* Wait for a grace period, then run the callbacks queued before it. */
void __wrap_urcu_memb_barrier(void)
{
	struct rcu_head **queue;
	size_t i, n;

	for (;;) {
		synchronize_rcu();
		pthread_mutex_lock(&fuzz_rcu_lock);
		queue = fuzz_rcu_queue;
		n = fuzz_rcu_queued;
		fuzz_rcu_queue = NULL;
		fuzz_rcu_queued = fuzz_rcu_size = 0;
		pthread_mutex_unlock(&fuzz_rcu_lock);
		if (!n)
			return;
		for (i = 0; i < n; i++)
			queue[i]->func(queue[i]);
		free(queue);
	}
}

static struct fuzz_obj *fuzz_pick_obj(void)
{
	unsigned int i, n;

	if (!fuzz_nr_objs)
		return NULL;
	n = fuzz_u16() % fuzz_nr_objs;
	/* The next object that is stored, if any */
	for (i = 0; i < fuzz_nr_objs; i++) {
		struct fuzz_obj *obj = &fuzz_arena[(n + i) % fuzz_nr_objs];

		if (obj->stored)
			return obj;
	}
	return NULL;
}

static u32 fuzz_hash(void)
{
	u8 sel = fuzz_u8();
	struct fuzz_obj *obj;

	switch (sel & 3) {
	case 0:		/* small hashes: few distinct, spread by rbh_key() */
		return fuzz_u8();
	case 1:		/* keys that differ only in one byte */
		return rbh_harness_hash_of_key(0x5a5a5a5au ^
					((u32)fuzz_u8() << ((sel >> 2) & 31)));
	case 2:
		return fuzz_u32();
	default:	/* a hash already stored */
		obj = fuzz_pick_obj();
		return obj ? obj->hash : sel;
	}
}

static struct fuzz_obj **fuzz_head(u32 hash)
{
	return &fuzz_heads[hash_32(hash, 12)];
}

static struct fuzz_obj *fuzz_new_obj(u32 hash)
{
	struct fuzz_obj *obj;

	if (fuzz_nr_objs == FUZZ_MAX_OBJS)
		return NULL;
	obj = &fuzz_arena[fuzz_nr_objs++];
	memset(obj, 0, sizeof(*obj));
	obj->magic = FUZZ_OBJ_MAGIC;
	obj->hash = hash;
	return obj;
}

/* A pointer rosebush returned must be one of ours, and stored. */
static struct fuzz_obj *fuzz_check_ptr(void *p)
{
	struct fuzz_obj *obj = p;

	FUZZ_CHECK(obj >= fuzz_arena && obj < fuzz_arena + fuzz_nr_objs &&
		   (uintptr_t)obj % sizeof(*obj) ==
		   (uintptr_t)fuzz_arena % sizeof(*obj),
		   "%p is not an object of this input", p);
	FUZZ_CHECK(obj->magic == FUZZ_OBJ_MAGIC && obj->stored,
		   "object %td (hash %#x) is not stored", obj - fuzz_arena,
		   obj->hash);
	return obj;
}

static void fuzz_model_store(struct fuzz_obj *obj)
{
	if (!obj->stored++) {
		struct fuzz_obj **head = fuzz_head(obj->hash);

		obj->next = *head;
		*head = obj;
	}
	fuzz_nr_stored++;
}

static void fuzz_model_remove(struct fuzz_obj *obj)
{
	if (!--obj->stored) {
		struct fuzz_obj **pp = fuzz_head(obj->hash);

		while (*pp != obj)
			pp = &(*pp)->next;
		*pp = obj->next;
	}
	fuzz_nr_stored--;
}

static struct fuzz_reserved *fuzz_find_reserved(u32 hash)
{
	unsigned int i;

	for (i = 0; i < fuzz_nr_reserved_hashes; i++)
		if (fuzz_reserved[i].hash == hash && fuzz_reserved[i].nr)
			return &fuzz_reserved[i];
	return NULL;
}

static bool fuzz_model_reserve(u32 hash)
{
	struct fuzz_reserved *r = fuzz_find_reserved(hash);
	unsigned int i;

	if (!r) {
		for (i = 0; i < fuzz_nr_reserved_hashes; i++)
			if (!fuzz_reserved[i].nr)
				break;
		if (i == FUZZ_MAX_RESERVED)
			return false;
		if (i == fuzz_nr_reserved_hashes)
			fuzz_nr_reserved_hashes++;
		r = &fuzz_reserved[i];
		r->hash = hash;
	}
	r->nr++;
	fuzz_nr_reserved++;
	return true;
}

static void fuzz_model_unreserve(struct fuzz_reserved *r)
{
	r->nr--;
	fuzz_nr_reserved--;
}

/* Insert @obj (again). */
static void fuzz_insert(struct fuzz_obj *obj)
{
	unsigned long failed = fuzz_failed_allocs;
	int err = rbh_insert(&fuzz_rbh, obj->hash, obj);

	/* -ENOMEM only if an allocation failed */
	if (err == -ENOMEM && fuzz_failed_allocs != failed)
		return;
	FUZZ_CHECK(!err, "rbh_insert(%#x) returned %d", obj->hash, err);
	fuzz_model_store(obj);
}

static void fuzz_insert_new(u32 hash)
{
	struct fuzz_obj *obj = fuzz_new_obj(hash);

	if (obj)
		fuzz_insert(obj);
}

static void fuzz_remove(struct fuzz_obj *obj)
{
	int err = rbh_remove(&fuzz_rbh, obj->hash, obj);

	FUZZ_CHECK(!err, "rbh_remove(%#x, object %td) returned %d", obj->hash,
		   obj - fuzz_arena, err);
	fuzz_model_remove(obj);
}

/* Check what a walk of @hash returned against the model, and reset it. */
static void fuzz_check_seen(u32 hash)
{
	struct fuzz_obj *obj;

	for (obj = *fuzz_head(hash); obj; obj = obj->next) {
		if (obj->hash != hash)
			continue;
		FUZZ_CHECK(obj->seen == obj->stored,
			   "hash %#x: object %td stored %u times, returned %u times",
			   hash, obj - fuzz_arena, obj->stored, obj->seen);
		obj->seen = 0;
	}
}

/* Walk @hash; the walk must return each stored copy exactly once. */
static void fuzz_lookup(u32 hash)
{
	struct rbh_iter iter;
	unsigned long n = 0;
	void *p;

	rcu_read_lock();
	rbh_for_each_possible(p, &iter, &fuzz_rbh, hash) {
		struct fuzz_obj *obj = fuzz_check_ptr(p);

		FUZZ_CHECK(++n <= fuzz_nr_stored, "the walk does not end");
		if (obj->hash == hash)
			obj->seen++;
	}
	rcu_read_unlock();
	fuzz_check_seen(hash);
}

/* Lock @hash's bucket, walk it, and remove what @mask selects. */
static void fuzz_iter_remove(u32 hash, u8 mask)
{
	RBH_ITER(iter, &fuzz_rbh, hash);
	unsigned long n = 0, limit = fuzz_nr_stored;
	unsigned int i = 0;
	void *p;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter))) {
		struct fuzz_obj *obj = fuzz_check_ptr(p);

		FUZZ_CHECK(++n <= limit, "the walk does not end");
		if (obj->hash != hash)
			continue;
		if (mask & BIT(i++ & 7)) {
			FUZZ_CHECK(rbh_iter_remove(&iter, p),
				   "rbh_iter_remove(%p) refused", p);
			fuzz_model_remove(obj);
		} else {
			obj->seen++;
		}
	}
	rbh_iter_unlock(&iter);
	/* Those not removed were returned exactly once */
	fuzz_check_seen(hash);
}

static void fuzz_check_stats(void)
{
	struct rbh_stats stats;
	unsigned long buckets = 0, slots = 0;
	unsigned int i;

	/*
	 * The work item changes the shape: a snapshot taken meanwhile may
	 * count an entry being merged twice
	 */
	if (rcu_access_pointer(fuzz_rbh.rbh_table))
		flush_work(&fuzz_rbh.rbh_work);
	rbh_stats(&fuzz_rbh, &stats);
	FUZZ_CHECK(stats.entries == fuzz_nr_stored, "%lu entries, model %lu",
		   stats.entries, fuzz_nr_stored);
	FUZZ_CHECK(stats.reserved == fuzz_nr_reserved,
		   "%lu reserved, model %lu", stats.reserved, fuzz_nr_reserved);
	FUZZ_CHECK(stats.bucket_capacity && stats.bucket_capacity <= RBH_MAX_ENTRIES,
		   "capacity %u", stats.bucket_capacity);
	for (i = 0; i <= stats.bucket_capacity; i++) {
		buckets += stats.occupancy[i];
		slots += i * stats.occupancy[i];
	}
	FUZZ_CHECK(buckets == stats.buckets, "occupancy sums to %lu of %lu buckets",
		   buckets, stats.buckets);
	FUZZ_CHECK(slots <= stats.entries + stats.reserved,
		   "%lu slots in primary buckets", slots);
	FUZZ_CHECK(!stats.table_slots ||
		   !(stats.table_slots & (stats.table_slots - 1)),
		   "%lu table slots", stats.table_slots);
	FUZZ_CHECK(stats.buckets <= stats.table_slots, "%lu buckets, %lu slots",
		   stats.buckets, stats.table_slots);
	FUZZ_CHECK(stats.bytes >= stats.table_slots * sizeof(void *) +
		   (stats.buckets + stats.overflow_buckets) * 256 ||
		   !stats.table_slots, "%lu bytes", stats.bytes);
	FUZZ_CHECK(rbh_empty(&fuzz_rbh) == !(fuzz_nr_stored + fuzz_nr_reserved),
		   "rbh_empty() with %lu entries, %lu reserved", fuzz_nr_stored,
		   fuzz_nr_reserved);
}

static void fuzz_free_fn(void *p, void *arg)
{
	struct fuzz_obj *obj = fuzz_check_ptr(p);

	FUZZ_CHECK(arg == &fuzz_rbh, "free_fn got %p", arg);
	FUZZ_CHECK(++obj->freed <= obj->stored,
		   "object %td stored %u times, freed %u times",
		   obj - fuzz_arena, obj->stored, obj->freed);
}

/* rbh_free_and_destroy(): each stored copy is handed back exactly once. */
static void fuzz_free_and_destroy(void)
{
	unsigned int i;

	rbh_free_and_destroy(&fuzz_rbh, fuzz_free_fn, &fuzz_rbh);
	for (i = 0; i < fuzz_nr_objs; i++) {
		struct fuzz_obj *obj = &fuzz_arena[i];

		FUZZ_CHECK(obj->freed == obj->stored,
			   "object %u stored %u times, freed %u times", i,
			   obj->stored, obj->freed);
		obj->stored = obj->freed = 0;
	}
	memset(fuzz_heads, 0, sizeof(fuzz_heads));
	fuzz_nr_stored = 0;
	memset(fuzz_reserved, 0, sizeof(fuzz_reserved));
	fuzz_nr_reserved_hashes = 0;
	fuzz_nr_reserved = 0;
	FUZZ_CHECK(rbh_empty(&fuzz_rbh), "not empty after destroy");
}

enum fuzz_op {
	FUZZ_INSERT,
	FUZZ_INSERT_FLOOD,	/* up to 64 new objects under one hash */
	FUZZ_INSERT_RUN,	/* up to 1024 objects under hash, hash + step, ... */
	FUZZ_INSERT_AGAIN,	/* a stored pointer, under its hash again */
	FUZZ_REMOVE,
	FUZZ_REMOVE_ABSENT,	/* a pointer not stored under the hash */
	FUZZ_REMOVE_SOME,	/* every n-th stored copy */
	FUZZ_RESERVE,
	FUZZ_USE,
	FUZZ_RELEASE,
	FUZZ_LOOKUP,
	FUZZ_ITER_REMOVE,
	FUZZ_STATS,
	FUZZ_FAIL_ALLOCS,	/* fail some of the next allocations */
	FUZZ_NOWAIT,		/* make GFP_NOWAIT allocations fail, or not */
	FUZZ_FLUSH,		/* run the shrink worker and RCU callbacks */
	FUZZ_DESTROY,		/* rbh_free_and_destroy(), then go on */
	FUZZ_NR_OPS
};

static const char *const fuzz_op_names[FUZZ_NR_OPS] = {
	"insert", "insert_flood", "insert_run", "insert_again", "remove",
	"remove_absent", "remove_some", "reserve", "use", "release", "lookup",
	"iter_remove", "stats", "fail_allocs", "nowait", "flush", "destroy",
};

static void fuzz_one_op(void)
{
	enum fuzz_op op = fuzz_u8() % FUZZ_NR_OPS;
	struct fuzz_reserved *r;
	struct fuzz_obj *obj;
	unsigned int i, n;
	u32 hash, step;
	int err;

	fuzz_op_name = fuzz_op_names[op];
	switch (op) {
	case FUZZ_INSERT:
		fuzz_insert_new(fuzz_hash());
		break;
	case FUZZ_INSERT_FLOOD:
		hash = fuzz_hash();
		n = 1 + fuzz_u8() % 64;
		for (i = 0; i < n; i++)
			fuzz_insert_new(hash);
		break;
	case FUZZ_INSERT_RUN:
		hash = fuzz_hash();
		step = fuzz_u8() & 1 ? 1 : fuzz_u32() | 1;
		n = 1 + fuzz_u16() % 1024;
		for (i = 0; i < n; i++)
			fuzz_insert_new(hash + i * step);
		break;
	case FUZZ_INSERT_AGAIN:
		obj = fuzz_pick_obj();
		if (obj)
			fuzz_insert(obj);
		break;
	case FUZZ_REMOVE:
		obj = fuzz_pick_obj();
		if (obj)
			fuzz_remove(obj);
		break;
	case FUZZ_REMOVE_ABSENT:
		hash = fuzz_hash();
		obj = fuzz_pick_obj();
		/* A stored object under another hash, or a new one */
		if (!obj || obj->hash == hash)
			obj = fuzz_new_obj(hash ^ 1);
		if (!obj)
			break;
		err = rbh_remove(&fuzz_rbh, hash, obj);
		FUZZ_CHECK(err == -ENOENT, "rbh_remove(%#x, object %td) returned %d",
			   hash, obj - fuzz_arena, err);
		break;
	case FUZZ_REMOVE_SOME:
		n = 1 + fuzz_u8() % 8;
		step = fuzz_u8() % n;
		for (i = 0; i < fuzz_nr_objs; i++) {
			obj = &fuzz_arena[i];
			while (obj->stored && i % n == step)
				fuzz_remove(obj);
		}
		break;
	case FUZZ_RESERVE:
		hash = fuzz_hash();
		if (fuzz_nr_reserved_hashes == FUZZ_MAX_RESERVED &&
		    !fuzz_find_reserved(hash))
			break;
		n = fuzz_failed_allocs;
		err = rbh_reserve(&fuzz_rbh, hash);
		if (err == -ENOMEM && fuzz_failed_allocs != n)
			break;
		FUZZ_CHECK(!err, "rbh_reserve(%#x) returned %d", hash, err);
		FUZZ_CHECK(fuzz_model_reserve(hash), "model full");
		break;
	case FUZZ_USE:
		hash = fuzz_hash();
		r = fuzz_find_reserved(hash);
		if (!r && fuzz_nr_reserved_hashes && fuzz_u8() & 1) {
			hash = fuzz_reserved[fuzz_u8() %
					     fuzz_nr_reserved_hashes].hash;
			r = fuzz_find_reserved(hash);
		}
		obj = fuzz_new_obj(hash);
		if (!obj)
			break;
		err = rbh_use(&fuzz_rbh, hash, obj);
		if (!r) {
			FUZZ_CHECK(err == -ENOENT, "rbh_use(%#x) unreserved returned %d",
				   hash, err);
			break;
		}
		FUZZ_CHECK(!err, "rbh_use(%#x) returned %d", hash, err);
		fuzz_model_unreserve(r);
		fuzz_model_store(obj);
		break;
	case FUZZ_RELEASE:
		hash = fuzz_hash();
		r = fuzz_find_reserved(hash);
		err = rbh_release(&fuzz_rbh, hash);
		if (!r) {
			FUZZ_CHECK(err == -ENOENT, "rbh_release(%#x) unreserved returned %d",
				   hash, err);
			break;
		}
		FUZZ_CHECK(!err, "rbh_release(%#x) returned %d", hash, err);
		fuzz_model_unreserve(r);
		break;
	case FUZZ_LOOKUP:
		fuzz_lookup(fuzz_hash());
		break;
	case FUZZ_ITER_REMOVE:
		hash = fuzz_hash();
		fuzz_iter_remove(hash, fuzz_u8());
		break;
	case FUZZ_STATS:
		fuzz_check_stats();
		break;
	case FUZZ_FAIL_ALLOCS:
		fuzz_fail_skip = fuzz_u8() % 8;
		fuzz_fail_count = 1 + fuzz_u8() % 4;
		break;
	case FUZZ_NOWAIT:
		kmalloc_nowait_fails = fuzz_u8() & 1;
		break;
	case FUZZ_FLUSH:
		flush_scheduled_work();
		rcu_barrier();
		break;
	case FUZZ_DESTROY:
		fuzz_free_and_destroy();
		break;
	case FUZZ_NR_OPS:
		break;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	rcu_register_thread();
	if (rbh_harness_check_rcu())
		exit(2);
	/* The functions scripts/fuzz.sh wraps must be those called */
	if (strcmp(__stringify(call_rcu), "urcu_memb_call_rcu") ||
	    strcmp(__stringify(rcu_barrier), "urcu_memb_barrier")) {
		fprintf(stderr, "liburcu's flavour changed: fix the wrappers\n");
		exit(2);
	}
	rbh_init(&fuzz_rbh);
	return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	unsigned int i;

	fuzz_data = data;
	fuzz_left = size;
	fuzz_op_index = 0;
	fuzz_nr_objs = 0;
	fuzz_fail_skip = -1;
	fuzz_fail_count = 0;
	/* As the rosebush program: GFP_NOWAIT succeeds unless told otherwise */
	kmalloc_nowait_fails = 0;

	while (fuzz_left) {
		fuzz_one_op();
		fuzz_op_index++;
	}

	/* Check, empty and destroy: every second input, one at a time */
	fuzz_op_name = "end";
	fuzz_fail_skip = -1;
	fuzz_check_stats();
	if (size & 1) {
		fuzz_free_and_destroy();
	} else {
		for (i = 0; i < fuzz_nr_objs; i++)
			while (fuzz_arena[i].stored)
				fuzz_remove(&fuzz_arena[i]);
		for (i = 0; i < fuzz_nr_reserved_hashes; i++)
			while (fuzz_reserved[i].nr) {
				FUZZ_CHECK(!rbh_release(&fuzz_rbh, fuzz_reserved[i].hash),
					   "release %#x", fuzz_reserved[i].hash);
				fuzz_model_unreserve(&fuzz_reserved[i]);
			}
		fuzz_nr_reserved_hashes = 0;
		fuzz_check_stats();
		rbh_destroy(&fuzz_rbh);
	}
	FUZZ_CHECK(!rbh_harness_leaks("after rbh_destroy()"), "leak");
	FUZZ_CHECK(!uatomic_read(&rbh_harness_warnings), "WARN");
	return 0;
}
