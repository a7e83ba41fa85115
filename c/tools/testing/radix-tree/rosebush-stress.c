// SPDX-License-Identifier: GPL-2.0+
/*
 * rosebush-stress.c: a multi-threaded RCU stress test of lib/rosebush.c.
 *
 * Reader threads walk hashes under rcu_read_lock() (and a few with
 * rbh_iter_lock()) while writer threads insert, remove, reserve, use,
 * release and remove through locked iterators, growing the rosebush to
 * tens of thousands of entries and shrinking it back again, so that
 * buckets split, merge and fold and the table grows and halves under the
 * readers.  Bursts of entries under one hash, or under keys that differ
 * only in their low bits, make overflow chains.
 *
 * Stable entries are stored before the threads start and never removed:
 * every walk of a stable entry's hash must return it (the iteration
 * guarantee of Documentation/core-api/rosebush.rst).  Writers swap a
 * stable entry's object for its twin with rbh_iter_replace(), so a walk
 * must return the one or the other, never neither.  Each writer owns the
 * "moving" entries it stores, so it knows what is stored and checks that
 * its own lookups, removals and locked iterations find them.  Every
 * pointer returned to anybody is dereferenced and must be one of the
 * test's objects; removed objects are freed only after an RCU grace
 * period, so AddressSanitizer reports a pointer returned after that.
 *
 * At the end, single-threaded, exactly the stable entries and the writers'
 * stored entries must be found, and nothing may remain allocated once the
 * rosebush is destroyed and RCU callbacks have run.
 *
 * Usage: ./rosebush-stress [-l] [-q] [readers=R] [writers=W] [ops=N]
 *			    [size=N] [seed=N]
 *	-l		long mode (soak): 100 times the default operations
 *	-q		print only the summary
 *	readers=R	reader threads (default 2)
 *	writers=W	writer threads (default 2)
 *	ops=N		operations per writer (default 250000)
 *	size=N		entries stored by all writers at the peak of a cycle
 *			(default 30000)
 *	seed=N		seed for the threads' random numbers (default 1)
 *
 * The run is bounded by the writers' operation counts; readers stop when
 * the writers are done.  The exit status is 0 only if there was no
 * violation, no WARN and no leak.
 */
#include "rosebush-harness.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>

#define STRESS_MAGIC		0x5eb05e11u
#define STRESS_POISON		0xdeadbeefu

/* Stable entries: singletons, and a few hashes with several each */
#define NR_STABLE		1024
#define NR_HOT			4
#define HOT_STABLE(k)		((k) + 2)
#define MAX_GROUP		8
/* Reservations a writer holds at once */
#define MAX_PENDING		8
/* Entries one locked iteration may remove */
#define MAX_ITER_REMOVE		16
/* Objects a writer frees after one synchronize_rcu() */
#define FREE_BATCH		256
/* Keys of a cluster differ in their low CLUSTER_BITS bits only */
#define CLUSTER_BITS		6
#define MAX_REPORTS		20
/* The contended range of keys */
#define CONTENDED_PREFIX	0x5a000000u
#define CONTENDED_BITS		22

struct stress_obj {
	u32 magic;		/* STRESS_MAGIC until freed */
	u32 hash;		/* the hash it is stored under */
	int owner;		/* writer, or -1 for a stable entry */
	unsigned int index;	/* in its group or its writer's array */
	/* Used by the owner only */
	bool stored;
	unsigned int seen;	/* by the final check */
	struct rcu_head rcu;
};

struct stable_group {
	u32 hash;
	unsigned int nr;
	struct stress_obj *objs[MAX_GROUP];
	/* Stored in place of objs[i] while swapped[i], by rbh_iter_replace() */
	struct stress_obj *twins[MAX_GROUP];
	bool swapped[MAX_GROUP];	/* under the bucket lock */
};

enum stress_op {
	OP_INSERT,
	OP_REMOVE,
	OP_RESERVE,
	OP_USE,
	OP_RELEASE,
	OP_ITER_REMOVE,		/* locked iterations that removed something */
	OP_ITER_REMOVED,	/* entries they removed */
	OP_LOOKUP,
	OP_REPLACE,		/* stable entries swapped for their twins */
	OP_BURST,		/* bursts of inserts under one hash */
	OP_CLUSTER,		/* bursts under keys that differ in low bits */
	OP_CYCLE,		/* grow-and-shrink cycles completed */
	NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"insert", "remove", "reserve", "use", "release", "iter_remove",
	"iter_removed", "lookup", "replace", "burst", "cluster", "cycles",
};

struct writer {
	pthread_t thread;
	int id;
	u64 rnd;
	struct stress_obj **stored;
	unsigned int nr, cap;
	u32 pending[MAX_PENDING];
	unsigned int nr_pending;
	bool sync_free;		/* synchronize_rcu() batches, not call_rcu() */
	struct stress_obj *batch[FREE_BATCH];
	unsigned int nr_batch;
	unsigned long ops[NR_OPS];
	unsigned long peak;
};

struct reader {
	pthread_t thread;
	int id;
	u64 rnd;
	unsigned long walks, stable_walks, locked_walks, returned;
	unsigned long other_hash, dups;
	unsigned long stats_calls;
};

static struct {
	unsigned int readers, writers;
	unsigned long ops, size;
	u64 seed;
	bool quiet;
} opt = { 2, 2, 250000, 30000, 1, false };

static DEFINE_ROSEBUSH(bush);
static struct stable_group groups[NR_STABLE + NR_HOT];
static unsigned long nr_stable_entries;
static u32 hot_hash[NR_HOT];
static struct writer *writers;
static struct reader *readers;

static unsigned long violations;
static unsigned long shrinking;
static unsigned long writers_running;
static unsigned long live_entries, peak_entries;
static unsigned long max_slots, max_buckets, max_overflow;
static pthread_barrier_t start_barrier;

static u64 rnd_next(u64 *s)
{
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static u32 rnd_below(u64 *s, u32 n)
{
	return (u32)((rnd_next(s) >> 32) * (u64)n >> 32);
}

static u64 rnd_seed(u64 seed, unsigned int stream)
{
	u64 z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ? z : 1;
}

/*
 * A hash in a small range of keys, which writers insert into while
 * readers hold its buckets' locks, so that the buckets are contended.
 */
static u32 contended_hash(u64 *rnd)
{
	return rbh_harness_hash_of_key(CONTENDED_PREFIX |
				       rnd_below(rnd, 1u << CONTENDED_BITS));
}

static __printf(1, 2) void violation(const char *fmt, ...)
{
	va_list ap;

	if (uatomic_add_return(&violations, 1) > MAX_REPORTS)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "VIOLATION: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/*
 * Is @p one of the test's objects?  Reading it makes a pointer to freed
 * memory visible to AddressSanitizer.
 */
static bool obj_valid(const char *who, int id, u32 hash,
		      const struct stress_obj *p)
{
	int owner;

	if ((uintptr_t)p & (__alignof__(struct stress_obj) - 1)) {
		violation("%s %d: walk of hash %#x returned misaligned %p\n",
			  who, id, hash, p);
		return false;
	}
	owner = READ_ONCE(p->owner);
	if (READ_ONCE(p->magic) != STRESS_MAGIC || owner < -1 ||
	    owner >= (int)opt.writers) {
		violation("%s %d: walk of hash %#x returned %p, not an object (magic %#x owner %d)\n",
			  who, id, hash, p, READ_ONCE(p->magic), owner);
		return false;
	}
	return true;
}

static struct stress_obj *obj_alloc(int owner, u32 hash)
{
	struct stress_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj) {
		perror("kzalloc");
		abort();
	}
	obj->magic = STRESS_MAGIC;
	obj->hash = hash;
	obj->owner = owner;
	return obj;
}

static void obj_free(struct stress_obj *obj)
{
	obj->magic = STRESS_POISON;
	kfree(obj);
}

static void obj_free_rcu(struct rcu_head *head)
{
	obj_free(container_of(head, struct stress_obj, rcu));
}

/* Free @obj once no reader can be looking at it. */
static void writer_free(struct writer *w, struct stress_obj *obj)
{
	unsigned int i;

	if (!w->sync_free) {
		call_rcu(&obj->rcu, obj_free_rcu);
		return;
	}
	w->batch[w->nr_batch++] = obj;
	if (w->nr_batch < FREE_BATCH)
		return;
	synchronize_rcu();
	for (i = 0; i < w->nr_batch; i++)
		obj_free(w->batch[i]);
	w->nr_batch = 0;
}

static void writer_flush(struct writer *w)
{
	unsigned int i;

	if (!w->nr_batch)
		return;
	synchronize_rcu();
	for (i = 0; i < w->nr_batch; i++)
		obj_free(w->batch[i]);
	w->nr_batch = 0;
}

static void count_peak(unsigned long *peak, unsigned long n)
{
	unsigned long old = uatomic_read(peak);

	while (n > old) {
		unsigned long prev = uatomic_cmpxchg(peak, old, n);

		if (prev == old)
			break;
		old = prev;
	}
}

static void writer_track(struct writer *w, struct stress_obj *obj)
{
	if (w->nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->stored = realloc(w->stored, w->cap * sizeof(*w->stored));
		if (!w->stored) {
			perror("realloc");
			abort();
		}
	}
	obj->index = w->nr;
	obj->stored = true;
	w->stored[w->nr++] = obj;
	if (w->nr > w->peak)
		w->peak = w->nr;
	count_peak(&peak_entries, uatomic_add_return(&live_entries, 1));
}

/* Also for entries a locked iteration removed, already marked as such */

static void writer_untrack(struct writer *w, struct stress_obj *obj)
{
	struct stress_obj *last = w->stored[--w->nr];

	last->index = obj->index;
	w->stored[obj->index] = last;
	obj->stored = false;
	uatomic_dec(&live_entries);
}

static u32 writer_hash(struct writer *w)
{
	unsigned int r = rnd_below(&w->rnd, 100);

	if (r < 4)
		return hot_hash[rnd_below(&w->rnd, NR_HOT)];
	if (r < 8)
		return groups[rnd_below(&w->rnd, NR_STABLE)].hash;
	if (r < 12)
		return contended_hash(&w->rnd);
	return (u32)rnd_next(&w->rnd);
}

static void writer_insert(struct writer *w, u32 hash)
{
	struct stress_obj *obj = obj_alloc(w->id, hash);
	int err = rbh_insert(&bush, hash, obj);

	w->ops[OP_INSERT]++;
	if (err) {
		violation("writer %d: rbh_insert(%#x) returned %d\n", w->id,
			  hash, err);
		obj_free(obj);
		return;
	}
	writer_track(w, obj);
}

static void writer_remove(struct writer *w)
{
	struct stress_obj *obj = w->stored[rnd_below(&w->rnd, w->nr)];
	int err = rbh_remove(&bush, obj->hash, obj);

	w->ops[OP_REMOVE]++;
	if (err) {
		violation("writer %d: rbh_remove(%#x, %p) of a stored entry returned %d\n",
			  w->id, obj->hash, obj, err);
		return;
	}
	writer_untrack(w, obj);
	writer_free(w, obj);
}

static void writer_reserve(struct writer *w)
{
	u32 hash = writer_hash(w);
	int err = rbh_reserve(&bush, hash);

	w->ops[OP_RESERVE]++;
	if (err) {
		violation("writer %d: rbh_reserve(%#x) returned %d\n", w->id,
			  hash, err);
		return;
	}
	w->pending[w->nr_pending++] = hash;
}

/* Use or release one of our reservations. */
static void writer_resolve(struct writer *w, bool use)
{
	unsigned int i = rnd_below(&w->rnd, w->nr_pending);
	u32 hash = w->pending[i];
	struct stress_obj *obj;
	int err;

	w->pending[i] = w->pending[--w->nr_pending];
	if (!use) {
		w->ops[OP_RELEASE]++;
		err = rbh_release(&bush, hash);
		if (err)
			violation("writer %d: rbh_release(%#x) of a reserved slot returned %d\n",
				  w->id, hash, err);
		return;
	}
	w->ops[OP_USE]++;
	obj = obj_alloc(w->id, hash);
	err = rbh_use(&bush, hash, obj);
	if (err) {
		violation("writer %d: rbh_use(%#x) of a reserved slot returned %d\n",
			  w->id, hash, err);
		obj_free(obj);
		return;
	}
	writer_track(w, obj);
}

/*
 * Remove one of our entries, and maybe others of ours under the same
 * hash, through a locked iterator, which must find it.
 */
static void writer_iter_remove(struct writer *w)
{
	struct stress_obj *obj = w->stored[rnd_below(&w->rnd, w->nr)];
	struct stress_obj *removed[MAX_ITER_REMOVE], *p;
	RBH_ITER(iter, &bush, obj->hash);
	unsigned int i, nr = 0;
	bool found = false, more = rnd_below(&w->rnd, 4) == 0;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL) {
		if (!obj_valid("writer", w->id, obj->hash, p))
			break;
		if (p == obj)
			found = true;
		if (p->owner != w->id || p->hash != obj->hash || !p->stored ||
		    nr == MAX_ITER_REMOVE || (p != obj && !more))
			continue;
		if (!rbh_iter_remove(&iter, p))
			violation("writer %d: rbh_iter_remove(%p) refused\n",
				  w->id, p);
		p->stored = false;
		removed[nr++] = p;
	}
	rbh_iter_unlock(&iter);

	if (!found)
		violation("writer %d: locked iteration of %#x missed stored %p\n",
			  w->id, obj->hash, obj);
	w->ops[OP_ITER_REMOVE]++;
	w->ops[OP_ITER_REMOVED] += nr;
	for (i = 0; i < nr; i++) {
		writer_untrack(w, removed[i]);
		writer_free(w, removed[i]);
	}
}

/* The stored one of a stable entry and its twin */
static struct stress_obj *stable_stored(const struct stable_group *group,
					unsigned int i)
{
	return group->swapped[i] ? group->twins[i] : group->objs[i];
}

/*
 * Swap each stable entry of a random group for its twin, in place, with
 * the bucket locked: readers must find the one or the other.
 */
static void writer_replace(struct writer *w)
{
	struct stable_group *group =
		&groups[rnd_below(&w->rnd, NR_STABLE + NR_HOT)];
	RBH_ITER(iter, &bush, group->hash);
	struct stress_obj *p, *q;
	unsigned int nr = 0;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL) {
		if (!obj_valid("writer", w->id, group->hash, p))
			break;
		if (p->owner != -1 || p->hash != group->hash)
			continue;
		if (p->index >= group->nr || p != stable_stored(group, p->index)) {
			violation("writer %d: locked iteration of %#x returned stable %p, not the one stored\n",
				  w->id, group->hash, p);
			continue;
		}
		q = group->swapped[p->index] ? group->objs[p->index] :
					       group->twins[p->index];
		if (!rbh_iter_replace(&iter, p, q))
			violation("writer %d: rbh_iter_replace(%p) refused\n",
				  w->id, p);
		else
			group->swapped[p->index] = !group->swapped[p->index];
		nr++;
	}
	rbh_iter_unlock(&iter);
	if (nr != group->nr)
		violation("writer %d: locked iteration of %#x found %u of %u stable entries\n",
			  w->id, group->hash, nr, group->nr);
	w->ops[OP_REPLACE]++;
}

/* Nobody else removes our entries: a lookup must find one. */
static void writer_lookup(struct writer *w)
{
	struct stress_obj *obj = w->stored[rnd_below(&w->rnd, w->nr)];
	struct rbh_iter iter;
	struct stress_obj *p;
	bool found = false;

	w->ops[OP_LOOKUP]++;
	rcu_read_lock();
	rbh_for_each_possible(p, &iter, &bush, obj->hash) {
		if (!obj_valid("writer", w->id, obj->hash, p))
			break;
		if (p == obj)
			found = true;
	}
	rcu_read_unlock();
	if (!found)
		violation("writer %d: lookup of %#x missed stored %p\n", w->id,
			  obj->hash, obj);
}

/* Many entries under one hash, or under keys differing in low bits only. */
static void writer_burst(struct writer *w, bool cluster)
{
	unsigned int i, n = 20 + rnd_below(&w->rnd, 50);
	u32 hash = rnd_below(&w->rnd, 2) ? hot_hash[rnd_below(&w->rnd, NR_HOT)]
					 : (u32)rnd_next(&w->rnd);
	u32 base = (u32)rnd_next(&w->rnd) & ~((1u << CLUSTER_BITS) - 1);

	w->ops[cluster ? OP_CLUSTER : OP_BURST]++;
	for (i = 0; i < n; i++) {
		if (cluster)
			hash = rbh_harness_hash_of_key(base |
				rnd_below(&w->rnd, 1u << CLUSTER_BITS));
		writer_insert(w, hash);
	}
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	unsigned long low = opt.size / 256 + 8 * opt.writers;
	unsigned long done = 0, live;
	bool growing;
	unsigned int r;

	rcu_register_thread();
	pthread_barrier_wait(&start_barrier);

	while (done < opt.ops) {
		/* All writers grow the rosebush together, then shrink it */
		live = uatomic_read(&live_entries);
		if (!uatomic_read(&shrinking) && live >= opt.size)
			uatomic_cmpxchg(&shrinking, 0, 1);
		else if (uatomic_read(&shrinking) && live <= low &&
			 uatomic_cmpxchg(&shrinking, 1, 0) == 1)
			w->ops[OP_CYCLE]++;
		growing = !uatomic_read(&shrinking);
		r = rnd_below(&w->rnd, 1000);
		if (growing && r < 2) {
			writer_burst(w, r == 1);
			done += 20;
			continue;
		}
		done++;
		r %= 100;
		if (!w->nr) {
			/* Nothing of ours to remove or look up */
			if (growing)
				writer_insert(w, writer_hash(w));
			else
				r = 100 + (r & 1);
		} else if (growing) {
			if (r < 45)
				writer_insert(w, writer_hash(w));
			else if (r < 55)
				r = 100;	/* reserve */
			else if (r < 65)
				r = 101;	/* use or release */
			else if (r < 80)
				writer_remove(w);
			else if (r < 90)
				writer_iter_remove(w);
			else if (r < 97)
				writer_lookup(w);
			else
				writer_replace(w);
		} else {
			if (r < 8)
				writer_insert(w, writer_hash(w));
			else if (r < 13)
				r = 100;
			else if (r < 18)
				r = 101;
			else if (r < 60)
				writer_remove(w);
			else if (r < 85)
				writer_iter_remove(w);
			else if (r < 97)
				writer_lookup(w);
			else
				writer_replace(w);
		}
		if (r == 100 && w->nr_pending == MAX_PENDING)
			r = 101;
		if (r == 101 && !w->nr_pending)
			r = 100;
		if (r == 100)
			writer_reserve(w);
		else if (r == 101)
			writer_resolve(w, rnd_below(&w->rnd, 10) < 7);
	}
	while (w->nr_pending)
		writer_resolve(w, rnd_below(&w->rnd, 2));
	writer_flush(w);

	uatomic_dec(&writers_running);
	rcu_unregister_thread();
	return NULL;
}

/*
 * Walk @hash, under the RCU read lock or, if @locked, the bucket lock; if
 * @group is not NULL, every stable entry in it must be seen, and only once
 * when the bucket is locked.
 */
static void reader_walk(struct reader *rd, u32 hash,
			const struct stable_group *group, bool locked)
{
	unsigned int seen[MAX_GROUP] = { };
	RBH_ITER(iter, &bush, hash);
	struct stress_obj *p;
	unsigned int i, dawdle = 0;

	if (locked || rnd_below(&rd->rnd, 8) == 0)
		dawdle = rnd_below(&rd->rnd, 200);

	rd->walks++;
	if (locked) {
		rd->locked_walks++;
		rbh_iter_lock(&iter);
		p = rbh_next(&iter);
	} else {
		rcu_read_lock();
		p = rbh_first(&iter, &bush, hash);
	}
	for (; p; p = rbh_next(&iter)) {
		rd->returned++;
		if (!obj_valid("reader", rd->id, hash, p))
			break;
		if (READ_ONCE(p->hash) != hash) {
			rd->other_hash++;
		} else if (group && p->owner == -1) {
			if (p->index >= group->nr ||
			    (group->objs[p->index] != p &&
			     group->twins[p->index] != p))
				violation("reader %d: stable %p returned for %#x is not in its group\n",
					  rd->id, p, hash);
			else if (seen[p->index]++ && locked)
				violation("reader %d: locked walk of %#x returned stable %p twice\n",
					  rd->id, hash, p);
			else if (seen[p->index] > 1)
				rd->dups++;
		}
		for (i = 0; i < dawdle; i++)
			caa_cpu_relax();
	}
	if (locked)
		rbh_iter_unlock(&iter);
	else
		rcu_read_unlock();

	if (!group)
		return;
	rd->stable_walks++;
	for (i = 0; i < group->nr; i++)
		if (!seen[i])
			violation("reader %d: walk of %#x missed stable entry %p (%u of %u) and its twin\n",
				  rd->id, hash, group->objs[i], i, group->nr);
}

static void reader_stats(struct reader *rd)
{
	struct rbh_stats stats;

	rd->stats_calls++;
	rbh_stats(&bush, &stats);
	count_peak(&max_slots, stats.table_slots);
	count_peak(&max_buckets, stats.buckets);
	count_peak(&max_overflow, stats.overflow_buckets);
	if (rbh_empty(&bush))
		violation("reader %d: rbh_empty() with stable entries stored\n",
			  rd->id);
}

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct stable_group *group;
	unsigned int r;
	bool locked;

	rcu_register_thread();
	pthread_barrier_wait(&start_barrier);

	while (uatomic_read(&writers_running)) {
		r = rnd_below(&rd->rnd, 1024);
		locked = (r & 15) == 15;
		if (r == 0) {
			reader_stats(rd);
		} else if (r < 640) {
			group = &groups[rnd_below(&rd->rnd, NR_STABLE)];
			reader_walk(rd, group->hash, group, locked);
		} else if (r < 768) {
			group = &groups[NR_STABLE + rnd_below(&rd->rnd, NR_HOT)];
			reader_walk(rd, group->hash, group, locked);
		} else if (r < 896) {
			reader_walk(rd, contended_hash(&rd->rnd), NULL, r & 1);
		} else {
			reader_walk(rd, (u32)rnd_next(&rd->rnd), NULL, locked);
		}
	}

	rcu_unregister_thread();
	return NULL;
}

static void setup_stable(u64 *rnd)
{
	unsigned int g, i;

	for (g = 0; g < NR_STABLE + NR_HOT; g++) {
		struct stable_group *group = &groups[g];

		if (g < NR_STABLE) {
			group->hash = (u32)rnd_next(rnd);
			group->nr = 1;
		} else {
			hot_hash[g - NR_STABLE] = (u32)rnd_next(rnd);
			group->hash = hot_hash[g - NR_STABLE];
			group->nr = HOT_STABLE(g - NR_STABLE);
		}
		for (i = 0; i < group->nr; i++) {
			struct stress_obj *obj = obj_alloc(-1, group->hash);

			obj->index = i;
			group->objs[i] = obj;
			group->twins[i] = obj_alloc(-1, group->hash);
			group->twins[i]->index = i;
			nr_stable_entries++;
			if (rbh_insert(&bush, group->hash, obj))
				violation("setup: rbh_insert(%#x) failed\n",
					  group->hash);
		}
	}
}

struct final_entry {
	u32 hash;
	struct stress_obj *obj;
};

static int final_cmp(const void *a, const void *b)
{
	const struct final_entry *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (uintptr_t)x->obj < (uintptr_t)y->obj ? -1 :
	       (uintptr_t)x->obj > (uintptr_t)y->obj;
}

/*
 * Single-threaded: exactly the stable entries and the writers' stored
 * entries must be present, each once.
 * Return: the number of entries expected.
 */
static unsigned long final_check(void)
{
	struct final_entry *all;
	unsigned long n = 0, total = 0, i, j;
	unsigned int g, k, w;
	struct rbh_stats stats;

	for (g = 0; g < NR_STABLE + NR_HOT; g++)
		total += groups[g].nr;
	for (w = 0; w < opt.writers; w++)
		total += writers[w].nr;
	all = calloc(total, sizeof(*all));
	if (!all) {
		perror("calloc");
		abort();
	}
	for (g = 0; g < NR_STABLE + NR_HOT; g++)
		for (k = 0; k < groups[g].nr; k++)
			all[n++] = (struct final_entry){ groups[g].hash,
						stable_stored(&groups[g], k) };
	for (w = 0; w < opt.writers; w++)
		for (k = 0; k < writers[w].nr; k++)
			all[n++] = (struct final_entry){
				writers[w].stored[k]->hash,
				writers[w].stored[k] };
	qsort(all, n, sizeof(*all), final_cmp);

	rcu_read_lock();
	for (i = 0; i < n; i = j) {
		unsigned long same = 0;
		struct rbh_iter iter;
		struct stress_obj *p;

		for (j = i; j < n && all[j].hash == all[i].hash; j++)
			all[j].obj->seen = 0;
		rbh_for_each_possible(p, &iter, &bush, all[i].hash) {
			if (!obj_valid("final", 0, all[i].hash, p))
				break;
			if (p->hash != all[i].hash)
				continue;
			same++;
			p->seen++;
		}
		for (j = i; j < n && all[j].hash == all[i].hash; j++)
			if (all[j].obj->seen != 1)
				violation("final: %p under %#x (owner %d) found %u times\n",
					  all[j].obj, all[i].hash,
					  all[j].obj->owner, all[j].obj->seen);
		if (same != j - i)
			violation("final: %lu entries returned under %#x, %lu stored\n",
				  same, all[i].hash, j - i);
	}
	rcu_read_unlock();
	free(all);

	rbh_stats(&bush, &stats);
	if (stats.entries != n || stats.reserved)
		violation("final: rbh_stats() counts %lu entries and %lu reservations, expected %lu and 0\n",
			  stats.entries, stats.reserved, n);
	return n;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-l] [-q] [readers=R] [writers=W] [ops=N] [size=N] [seed=N]\n",
		prog);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	bool long_mode = false, ops_set = false;
	unsigned long long val;
	char *eq, *end;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-l")) {
			long_mode = true;
			continue;
		}
		if (!strcmp(argv[i], "-q")) {
			opt.quiet = true;
			continue;
		}
		eq = strchr(argv[i], '=');
		if (!eq)
			usage(argv[0]);
		val = strtoull(eq + 1, &end, 0);
		if (*end || end == eq + 1)
			usage(argv[0]);
		*eq = '\0';
		if (!strcmp(argv[i], "readers")) {
			opt.readers = val;
		} else if (!strcmp(argv[i], "writers") && val) {
			opt.writers = val;
		} else if (!strcmp(argv[i], "ops")) {
			opt.ops = val;
			ops_set = true;
		} else if (!strcmp(argv[i], "size") && val) {
			opt.size = val;
		} else if (!strcmp(argv[i], "seed")) {
			opt.seed = val;
		} else {
			*eq = '=';
			usage(argv[0]);
		}
	}
	if (long_mode && !ops_set)
		opt.ops *= 100;
}

int main(int argc, char **argv)
{
	unsigned long totals[NR_OPS] = { };
	unsigned long walks = 0, stable_walks = 0, locked_walks = 0;
	unsigned long returned = 0;
	unsigned long other_hash = 0, dups = 0, stats_calls = 0, expected;
	struct timespec t0, t1, t2;
	struct rbh_stats stats;
	unsigned int i, k;
	bool failed = false;
	u64 rnd;

	parse_args(argc, argv);
	if (rbh_harness_check_rcu())
		return 2;
	/* As in the kernel, GFP_NOWAIT allocations normally succeed. */
	kmalloc_nowait_fails = 0;
	for (i = 0; i < 1000; i++) {
		u32 key = (u32)rnd_seed(i, 0);

		assert(rbh_key(rbh_harness_hash_of_key(key)) == key);
	}

	printf("# rosebush-stress: readers=%u writers=%u ops=%lu size=%lu seed=%" PRIu64 "\n",
	       opt.readers, opt.writers, opt.ops, opt.size, opt.seed);
	fflush(stdout);
	rcu_register_thread();
	rnd = rnd_seed(opt.seed, 0);
	setup_stable(&rnd);

	writers = calloc(opt.writers, sizeof(*writers));
	readers = calloc(opt.readers, sizeof(*readers));
	if (!writers || (opt.readers && !readers)) {
		perror("calloc");
		return 2;
	}
	pthread_barrier_init(&start_barrier, NULL,
			     opt.readers + opt.writers + 1);
	writers_running = opt.writers;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < opt.writers; i++) {
		writers[i].id = i;
		writers[i].rnd = rnd_seed(opt.seed, 1 + i);
		writers[i].sync_free = i & 1;
		if (pthread_create(&writers[i].thread, NULL, writer_fn,
				   &writers[i]))
			abort();
	}
	for (i = 0; i < opt.readers; i++) {
		readers[i].id = i;
		readers[i].rnd = rnd_seed(opt.seed, 1 + opt.writers + i);
		if (pthread_create(&readers[i].thread, NULL, reader_fn,
				   &readers[i]))
			abort();
	}
	pthread_barrier_wait(&start_barrier);
	for (i = 0; i < opt.writers; i++)
		pthread_join(writers[i].thread, NULL);
	for (i = 0; i < opt.readers; i++)
		pthread_join(readers[i].thread, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* Let the work item finish before counting. */
	flush_scheduled_work();
	rbh_stats(&bush, &stats);
	expected = final_check();

	for (i = 0; i < opt.writers; i++) {
		for (k = 0; k < NR_OPS; k++)
			totals[k] += writers[i].ops[k];
		if (!opt.quiet)
			printf("# writer %u: ops %lu, peak %lu entries, %u stored at the end\n",
			       i, writers[i].ops[OP_INSERT] +
			       writers[i].ops[OP_REMOVE] +
			       writers[i].ops[OP_RESERVE] +
			       writers[i].ops[OP_USE] +
			       writers[i].ops[OP_RELEASE] +
			       writers[i].ops[OP_ITER_REMOVE] +
			       writers[i].ops[OP_LOOKUP] +
			       writers[i].ops[OP_REPLACE],
			       writers[i].peak, writers[i].nr);
	}
	for (i = 0; i < opt.readers; i++) {
		walks += readers[i].walks;
		stable_walks += readers[i].stable_walks;
		locked_walks += readers[i].locked_walks;
		returned += readers[i].returned;
		other_hash += readers[i].other_hash;
		dups += readers[i].dups;
		stats_calls += readers[i].stats_calls;
	}

	printf("# ops:");
	for (k = 0; k < NR_OPS; k++)
		printf(" %s=%lu", op_names[k], totals[k]);
	printf("\n# walks=%lu stable_walks=%lu locked_walks=%lu returned=%lu other_hash=%lu dups=%lu stats_calls=%lu\n",
	       walks, stable_walks, locked_walks, returned, other_hash, dups,
	       stats_calls);
	printf("# peak: entries=%lu table_slots=%lu buckets=%lu overflow_buckets=%lu\n",
	       peak_entries + nr_stable_entries,
	       max_slots, max_buckets, max_overflow);
	printf("# end: entries=%lu (expected %lu) buckets=%lu overflow_buckets=%lu table_slots=%lu bytes=%lu capacity=%u\n",
	       stats.entries, expected, stats.buckets, stats.overflow_buckets,
	       stats.table_slots, stats.bytes, stats.bucket_capacity);
	printf("# rbh_stats: grows=%lu splits=%lu merges=%lu shrinks=%lu\n",
	       stats.grows, stats.splits, stats.merges, stats.shrinks);
	if (!stats.grows || !stats.splits || !stats.merges || !stats.shrinks)
		printf("# NOTE: not every kind of resize happened: raise ops= or size=\n");

	/* Remove the writers' entries: the rosebush should shrink back */
	for (i = 0; i < opt.writers; i++) {
		while (writers[i].nr) {
			struct stress_obj *obj = writers[i].stored[0];

			if (rbh_remove(&bush, obj->hash, obj))
				violation("drain: rbh_remove(%#x, %p) failed\n",
					  obj->hash, obj);
			writer_untrack(&writers[i], obj);
			obj_free(obj);
		}
	}
	flush_scheduled_work();
	rbh_stats(&bush, &stats);
	printf("# drained to the %lu stable entries: entries=%lu buckets=%lu overflow_buckets=%lu table_slots=%lu bytes=%lu\n",
	       nr_stable_entries, stats.entries, stats.buckets,
	       stats.overflow_buckets, stats.table_slots, stats.bytes);
	printf("# rbh_stats: grows=%lu splits=%lu merges=%lu shrinks=%lu\n",
	       stats.grows, stats.splits, stats.merges, stats.shrinks);

	rbh_destroy(&bush);
	for (i = 0; i < NR_STABLE + NR_HOT; i++)
		for (k = 0; k < groups[i].nr; k++) {
			obj_free(groups[i].objs[k]);
			obj_free(groups[i].twins[k]);
		}
	for (i = 0; i < opt.writers; i++) {
		for (k = 0; k < writers[i].nr; k++)
			obj_free(writers[i].stored[k]);
		free(writers[i].stored);
	}
	free(writers);
	free(readers);
	pthread_barrier_destroy(&start_barrier);

	destroy_system_workqueue();
	if (rbh_harness_leaks("at exit"))
		failed = true;
	if (violations) {
		printf("# %lu violations\n", violations);
		failed = true;
	}
	if (rbh_harness_warnings) {
		printf("# %lu WARNs\n", rbh_harness_warnings);
		failed = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &t2);
	printf("# %s in %.2f s (threads %.2f s)\n", failed ? "FAILED" : "passed",
	       (t2.tv_sec - t0.tv_sec) + (t2.tv_nsec - t0.tv_nsec) / 1e9,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	rcu_unregister_thread();
	return failed ? 1 : 0;
}
