// SPDX-License-Identifier: GPL-2.0+
/*
 * dentry-bench.c: the cache side of the dcache A/B, in userspace.  QEMU's
 * TCG, where scripts/qemu-dcache-ab.sh runs kernels A and B, models no
 * cache; this program times the dentry hash lookup alone on the real CPU,
 * with objects shaped and placed like dentries and the dcache's own
 * compare, in three configurations:
 *
 *   hlist_bl	kernel A, 6.12: a static table of bit-locked list heads,
 *		sized as alloc_large_system_hash() sizes the dcache's for
 *		this machine's memory (slots=N to choose), chained through
 *		->d_hash in 192-byte dentries
 *   rosebush	kernel B, the series: the same 192-byte dentries, whose
 *		->d_hash is unused, in a rosebush
 *   rosebush-176
 *		kernel B without ->d_hash: 176-byte dentries, whose header
 *		moves up by 16 bytes (the design's D7)
 *   rosebush-56
 *		kernel B without ->d_hash, which d_iname takes: 192-byte
 *		dentries whose header moves up by 16 bytes and whose inline
 *		names grow from 40 bytes to 56
 *
 * A dentry has 6.12's fields, at 6.12's offsets on x86-64 without
 * debugging, up to d_iname; the rest is padding.  Dentries are carved from
 * 4-KiB "slab pages" of a huge-page pool, as many whole ones per page as
 * fit (21 of 192 bytes, 23 of 176), not aligned to cache lines, as the
 * dentry cache's are not (but 192 is a multiple of 64).  A lookup is __d_lookup_rcu(): the parent's
 * d_flags (DCACHE_OP_COMPARE), then each candidate's d_seq, d_parent,
 * (B) DCACHE_HASHED, hash_len and name; names are 4 to 24 bytes, held in
 * d_iname, so that one of more than 8 bytes reaches the second cache
 * line of a 6.12 dentry.  Files are 1000 per parent directory.
 *
 * Workloads, on each size (1000 to 3 x 10^6 files; max=N), each
 * configuration in turn, repeats=R times (min and median):
 *
 *   hit		names that exist, uniformly at random, independent
 *   hit-2t		the same split between two threads
 *   hit-chase		latency-bound: the hash each lookup loads by, and the
 *			parent it compares, depend on the result of the one
 *			before
 *   negative		names that do not exist (a lookup that finds
 *			nothing; the dcache would then go to the filesystem)
 *
 * then the memory each configuration's hash holds: the static table, or
 * the rosebush's buckets and table (rbh_stats()), per file.  Every lookup
 * is checked; a wrong result makes the program exit with status 1.
 *
 * Usage: ./dentry-bench [repeats=R] [ops=N] [max=N] [slots=N] [seed=N]
 */
#include "rosebush-harness.h"
#include "bench-kernel.h"

#include <linux/rculist_bl.h>

#include "bench-slab.h"
#include "bench-machine.h"

#include <pthread.h>

#define DB_MAX_REPEATS	15
#define DB_FILES_PER_DIR	1000
#define DB_NAME_MAX	24
#define DB_SLAB_PAGE	4096
/* The d_flags a lookup tests: 6.12's, and the series' (patch 12) */
#define DCACHE_OP_COMPARE	BIT(1)
#define DCACHE_HASHED		BIT(13)

static const unsigned long db_sizes[] = {
	1000, 10000, 100000, 300000, 1000000, 3000000,
};

#define DB_NR_SIZES	ARRAY_SIZE(db_sizes)

static struct {
	unsigned int repeats;
	unsigned long ops;
	unsigned long max;
	unsigned long slots;
	u64 seed;
} opt = {
	.repeats = 5,
	.ops = 1UL << 20,
	.max = 3000000,
	.seed = 1,
};

union db_hash_len {
	struct {
		u32 hash;
		u32 len;
	};
	u64 hash_len;
};

/* 6.12's struct dentry up to d_iname, on x86-64 without debugging */
struct db_dentry {
	unsigned int d_flags;
	unsigned int d_seq;
	struct hlist_bl_node d_hash;
	struct db_dentry *d_parent;
	union db_hash_len d_name;
	const unsigned char *name;
	void *d_inode;
	unsigned char d_iname[40];
	unsigned char rest[192 - 96];
};

static_assert(sizeof(struct db_dentry) == 192);
static_assert(offsetof(struct db_dentry, d_iname) == 56);

/*
 * The same without d_hash: the header of rosebush-176 (d_iname[40], then
 * 6.12's other 96 bytes) and of rosebush-56 (d_iname[56]), whose objects
 * are 176 and 192 bytes (db_layout_size[])
 */
struct db_dentry_nohash {
	unsigned int d_flags;
	unsigned int d_seq;
	struct db_dentry_nohash *d_parent;
	union db_hash_len d_name;
	const unsigned char *name;
	void *d_inode;
	unsigned char d_iname[40];
};

static_assert(offsetof(struct db_dentry_nohash, d_iname) == 40);

/* One lookup: 64 bytes, read in sequence */
struct db_op {
	void *parent;
	union db_hash_len key;
	void *expect;			/* NULL: not stored */
	unsigned char name[DB_NAME_MAX + 1];
} __aligned(64);

enum db_config {
	DB_HLIST_BL, DB_ROSEBUSH, DB_ROSEBUSH176, DB_ROSEBUSH56, DB_NR_CONFIGS
};

static const char *const db_config_names[] = {
	"hlist_bl", "rosebush", "rosebush-176", "rosebush-56",
};

/* The objects: 6.12's dentry, and the two without d_hash */
enum db_layout { DB_612, DB_176, DB_56, DB_NR_LAYOUTS };

static const unsigned int db_layout_size[] = { 192, 176, 192 };
static const enum db_layout db_config_layout[] = {
	DB_612, DB_612, DB_176, DB_56,
};

enum db_workload { DB_HIT, DB_HIT_2T, DB_CHASE, DB_NEGATIVE, DB_NR_WORKLOADS };

static const char *const db_workload_names[] = {
	"hit", "hit-2t", "hit-chase", "negative",
};

static double db_ns[DB_NR_SIZES][DB_NR_CONFIGS][DB_NR_WORKLOADS][DB_MAX_REPEATS];
static unsigned long db_bytes[DB_NR_SIZES][DB_NR_CONFIGS];

/* Files [0, n) of each layout, and their parents */
static void **db_files[DB_NR_LAYOUTS];
static void *db_parents[DB_NR_LAYOUTS];
static unsigned long db_nr_files;
/* [layout][0: hits, 1: absent names] */
static struct db_op *db_ops[DB_NR_LAYOUTS][2];

static struct hlist_bl_head *db_bl;
static unsigned int db_bl_shift;
static struct rbh db_rbh;
static pthread_barrier_t db_barrier;

static void __noreturn db_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("dentry-bench: FAILED: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	exit(1);
}

static double db_elapsed(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

static u64 db_mix64(u64 x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * File @i, or absent name @i (@absent): its name, 4 to 24 bytes, and its
 * hash, which like full_name_hash() depends on the parent.
 */
static union db_hash_len db_name(unsigned long i, bool absent, unsigned char *buf)
{
	union db_hash_len hl;
	int len = snprintf((char *)buf, DB_NAME_MAX + 1, "%c%lu",
			   absent ? 'n' : 'f', i);
	int want = 4 + db_mix64(i ^ 0x5a5a) % (DB_NAME_MAX - 3);

	while (len < want) {
		buf[len] = 'a' + (i + len) % 26;
		len++;
	}
	buf[len] = '\0';
	hl.len = len;
	hl.hash = db_mix64((opt.seed << 48) ^ ((u64)absent << 47) ^
			   ((i / DB_FILES_PER_DIR) << 24) ^ i);
	return hl;
}

/*
 * Slab-like placement: whole objects per 4-KiB page (an order-0 slab),
 * pages from the pool, a slab cache per layout
 */
static void *db_slab_alloc(enum db_layout layout)
{
	static char *page[DB_NR_LAYOUTS];
	static size_t used[DB_NR_LAYOUTS];
	size_t size = db_layout_size[layout];

	if (!page[layout] || used[layout] + size > DB_SLAB_PAGE) {
		page[layout] = bench_pool_alloc(DB_SLAB_PAGE);
		if (!page[layout])
			db_die("out of memory for dentries\n");
		used[layout] = 0;
	}
	used[layout] += size;
	return page[layout] + used[layout] - size;
}

/* Dentry @i of @layout, with its parent, name and hash */
static void *db_dentry_make(enum db_layout layout, unsigned long i)
{
	void *p = db_slab_alloc(layout);
	unsigned long dir = i / DB_FILES_PER_DIR;

	memset(p, 0, db_layout_size[layout]);
	if (layout == DB_612) {
		struct db_dentry *d = p;

		d->d_flags = DCACHE_HASHED;
		d->d_parent = (struct db_dentry *)db_parents[layout] + dir;
		d->d_name = db_name(i, false, d->d_iname);
		d->name = d->d_iname;
	} else {
		struct db_dentry_nohash *d = p;

		d->d_flags = DCACHE_HASHED;
		d->d_parent = (void *)((char *)db_parents[layout] +
				       dir * db_layout_size[layout]);
		d->d_name = db_name(i, false, d->d_iname);
		d->name = d->d_iname;
	}
	return p;
}

static u32 db_dentry_hash(enum db_layout layout, const void *p)
{
	return layout == DB_612 ? ((const struct db_dentry *)p)->d_name.hash :
				  ((const struct db_dentry_nohash *)p)->d_name.hash;
}

static void db_files_grow(unsigned long n)
{
	unsigned long i;
	int l;

	for (l = 0; l < DB_NR_LAYOUTS; l++) {
		/* Parents: few and hot, allocated once for the largest size */
		if (!db_parents[l]) {
			db_parents[l] = calloc(opt.max / DB_FILES_PER_DIR + 1,
					       db_layout_size[l]);
			if (!db_parents[l])
				db_die("out of memory for parents\n");
		}
		db_files[l] = realloc(db_files[l], n * sizeof(*db_files[l]));
		if (!db_files[l])
			db_die("out of memory for %lu files\n", n);
		/* One layout's dentries, then the next's: a slab cache each */
		for (i = db_nr_files; i < n; i++)
			db_files[l][i] = db_dentry_make(l, i);
	}
	db_nr_files = n;
}

/* The lookups of one size: [layout][hits/absent] */
static void db_ops_make(unsigned long n)
{
	u64 rnd = opt.seed;
	unsigned long i, f;
	int l, a;

	for (l = 0; l < DB_NR_LAYOUTS; l++) {
		for (a = 0; a < 2; a++) {
			struct db_op *ops = db_ops[l][a];

			if (!ops) {
				ops = aligned_alloc(64, opt.ops * sizeof(*ops));
				if (!ops)
					db_die("out of memory for operations\n");
				db_ops[l][a] = ops;
			}
			/* The same files and names in every layout */
			rnd = opt.seed + a;
			for (i = 0; i < opt.ops; i++) {
				f = db_mix64(++rnd) % n;
				memset(&ops[i], 0, sizeof(ops[i]));
				ops[i].key = db_name(f, a, ops[i].name);
				ops[i].parent = (char *)db_parents[l] +
						f / DB_FILES_PER_DIR * db_layout_size[l];
				ops[i].expect = a ? NULL : db_files[l][f];
			}
		}
	}
}

/* ---- the lookups, as fs/dcache.c's __d_lookup_rcu() ---- */

static __always_inline bool db_match(unsigned int flags_hashed,
				     const void *d_parent, u64 d_hash_len,
				     const unsigned char *d_name,
				     const struct db_op *op, const void *parent)
{
	if (d_parent != parent)
		return false;
	if (!(flags_hashed & DCACHE_HASHED))
		return false;
	if (d_hash_len != op->key.hash_len)
		return false;
	return !memcmp(d_name, op->name, op->key.len);
}

/*
 * @parent and @hash are @op's, except in the chase, where the previous
 * result is folded into both (and is 0 when it was right), so that the
 * addresses this lookup loads depend on it.
 */
static __always_inline void *db_bl_lookup(const struct db_op *op, const void *parent,
					  u32 hash)
{
	struct hlist_bl_head *b = &db_bl[hash >> (32 - db_bl_shift)];
	struct hlist_bl_node *node;
	struct db_dentry *d;

	if (READ_ONCE(((const struct db_dentry *)op->parent)->d_flags) & DCACHE_OP_COMPARE)
		return NULL;
	hlist_bl_for_each_entry_rcu(d, node, b, d_hash) {
		/* 6.12 reads d_seq and d_parent; d_unhashed() is d_hash's */
		(void)READ_ONCE(d->d_seq);
		if (db_match(DCACHE_HASHED, d->d_parent, d->d_name.hash_len,
			     READ_ONCE(d->name), op, parent))
			return d;
	}
	return NULL;
}

#define DB_RBH_LOOKUP(fn, type)						\
static __always_inline void *fn(const struct db_op *op, const void *parent, \
				 u32 hash)					\
{									\
	struct rbh_iter iter;						\
	type *d;							\
									\
	if (READ_ONCE(((const type *)op->parent)->d_flags) &		\
	    DCACHE_OP_COMPARE)						\
		return NULL;						\
	rbh_for_each_possible(d, &iter, &db_rbh, hash) {		\
		(void)READ_ONCE(d->d_seq);				\
		if (db_match(READ_ONCE(d->d_flags), d->d_parent,	\
			     d->d_name.hash_len, READ_ONCE(d->name),	\
			     op, parent))				\
			return d;					\
	}								\
	return NULL;							\
}

DB_RBH_LOOKUP(db_rbh_lookup, struct db_dentry)
DB_RBH_LOOKUP(db_rbh_nohash_lookup, struct db_dentry_nohash)

static __always_inline void *db_lookup(enum db_config c, const struct db_op *op,
				       unsigned long dep)
{
	const void *parent = (const void *)((unsigned long)op->parent ^ dep);
	u32 hash = op->key.hash ^ (u32)dep;

	switch (c) {
	case DB_HLIST_BL:
		return db_bl_lookup(op, parent, hash);
	case DB_ROSEBUSH:
		return db_rbh_lookup(op, parent, hash);
	default:
		return db_rbh_nohash_lookup(op, parent, hash);
	}
}

/* Independent lookups; returns the wrong results */
static __always_inline unsigned long db_run(enum db_config c,
					    const struct db_op *ops,
					    unsigned long nr)
{
	unsigned long i, wrong = 0;

	rcu_read_lock();
	for (i = 0; i < nr; i++)
		wrong += db_lookup(c, &ops[i], 0) != ops[i].expect;
	rcu_read_unlock();
	return wrong;
}

/*
 * Dependent lookups: where each one loads, its table slot or bucket head
 * first, depends on the result of the one before, which is compared with
 * the expected one, so that lookups cannot overlap their misses.  A
 * wrong result breaks the chain: every later lookup then looks up
 * another hash and finds nothing.
 */
static __always_inline unsigned long db_chase(enum db_config c,
					      const struct db_op *ops,
					      unsigned long nr)
{
	unsigned long i, dep = 0;
	void *d;

	rcu_read_lock();
	for (i = 0; i < nr; i++) {
		d = db_lookup(c, &ops[i], dep);
		dep = (unsigned long)d ^ (unsigned long)ops[i].expect;
		OPTIMIZER_HIDE_VAR(dep);
	}
	rcu_read_unlock();
	return dep != 0;
}

struct db_thread {
	pthread_t thread;
	enum db_config c;
	const struct db_op *ops;
	unsigned long nr, wrong;
	bool chase;
	struct timespec start, end;
} __aligned(64);

static void *db_thread_fn(void *arg)
{
	struct db_thread *t = arg;

	rcu_register_thread();
	pthread_barrier_wait(&db_barrier);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	switch (t->c) {
	case DB_HLIST_BL:
		t->wrong = t->chase ? db_chase(DB_HLIST_BL, t->ops, t->nr) :
				      db_run(DB_HLIST_BL, t->ops, t->nr);
		break;
	case DB_ROSEBUSH:
		t->wrong = t->chase ? db_chase(DB_ROSEBUSH, t->ops, t->nr) :
				      db_run(DB_ROSEBUSH, t->ops, t->nr);
		break;
	default:
		/* rosebush-176 and rosebush-56: the same header */
		t->wrong = t->chase ? db_chase(DB_ROSEBUSH176, t->ops, t->nr) :
				      db_run(DB_ROSEBUSH176, t->ops, t->nr);
		break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t->end);
	rcu_unregister_thread();
	return NULL;
}

/* ns x threads / op */
static double db_time(enum db_config c, const struct db_op *ops,
		      unsigned int threads, bool chase)
{
	struct db_thread t[2] = { };
	struct timespec start, end;
	unsigned int i;

	pthread_barrier_init(&db_barrier, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		t[i].c = c;
		t[i].chase = chase;
		t[i].ops = ops + opt.ops * i / threads;
		t[i].nr = opt.ops * (i + 1) / threads - opt.ops * i / threads;
		if (pthread_create(&t[i].thread, NULL, db_thread_fn, &t[i]))
			db_die("pthread_create()\n");
	}
	pthread_barrier_wait(&db_barrier);
	for (i = 0; i < threads; i++)
		pthread_join(t[i].thread, NULL);
	pthread_barrier_destroy(&db_barrier);
	start = t[0].start;
	end = t[0].end;
	for (i = 0; i < threads; i++) {
		if (t[i].wrong)
			db_die("%s: %lu wrong lookups\n", db_config_names[c], t[i].wrong);
		if (db_elapsed(&t[i].start, &start) > 0)
			start = t[i].start;
		if (db_elapsed(&end, &t[i].end) > 0)
			end = t[i].end;
	}
	return db_elapsed(&start, &end) * threads / opt.ops;
}

/* ---- filling, measuring, emptying ---- */

/* As alloc_large_system_hash("Dentry cache", ..., scale 13) on this machine */
/*
 * As mm/mm_init.c's alloc_large_system_hash("Dentry cache", 8 bytes, 0,
 * 13, ...) sizes the table, with this machine's pages for the kernel's
 * nr_kernel_pages and nr_all_pages (a few more than the kernel counts)
 */
static unsigned int db_dcache_shift(void)
{
	unsigned long long pages = sysconf(_SC_PHYS_PAGES), entries, max;
	unsigned long long adapt;
	int scale = 13;

	if (opt.slots)
		return ilog2(opt.slots);
	entries = round_up(pages, (1UL << 20) / 4096);
	for (adapt = (64ULL << 30) >> 12; adapt < entries; adapt <<= 2)
		scale++;
	entries >>= scale - 12;
	entries = roundup_pow_of_two(entries);
	max = min((pages << 12 >> 4) / sizeof(struct hlist_bl_head), 0x80000000ULL);
	return ilog2(min(entries, max));
}

static void db_fill(enum db_config c, unsigned long n)
{
	unsigned long i;
	int err;

	switch (c) {
	case DB_HLIST_BL:
		db_bl_shift = db_dcache_shift();
		db_bl = kvmalloc(sizeof(*db_bl) << db_bl_shift, GFP_KERNEL);
		if (!db_bl)
			db_die("out of memory for the hlist_bl table\n");
		for (i = 0; i < 1UL << db_bl_shift; i++)
			INIT_HLIST_BL_HEAD(&db_bl[i]);
		for (i = 0; i < n; i++) {
			struct db_dentry *d = db_files[DB_612][i];
			struct hlist_bl_head *b = &db_bl[d->d_name.hash >>
							 (32 - db_bl_shift)];

			hlist_bl_lock(b);
			hlist_bl_add_head_rcu(&d->d_hash, b);
			hlist_bl_unlock(b);
		}
		return;
	default:
		rbh_init(&db_rbh);
		for (i = 0; i < n; i++) {
			enum db_layout l = db_config_layout[c];
			void *d = db_files[l][i];

			err = rbh_insert(&db_rbh, db_dentry_hash(l, d), d);
			if (err)
				db_die("rbh_insert: %d\n", err);
		}
		flush_scheduled_work();
		return;
	}
}

static unsigned long db_hash_bytes(enum db_config c)
{
	struct rbh_stats stats;

	if (c == DB_HLIST_BL)
		return sizeof(*db_bl) << db_bl_shift;
	rbh_stats(&db_rbh, &stats);
	return stats.bytes;
}

static void db_empty(enum db_config c, unsigned long n)
{
	unsigned long i;

	if (c == DB_HLIST_BL) {
		for (i = 0; i < n; i++)
			((struct db_dentry *)db_files[DB_612][i])->d_hash.pprev = NULL;
		kvfree(db_bl);
		db_bl = NULL;
		return;
	}
	rbh_destroy(&db_rbh);
	flush_scheduled_work();
}

static void db_one(unsigned int size, enum db_config c, unsigned int rep)
{
	unsigned long n = db_sizes[size];
	enum db_layout l = db_config_layout[c];
	double (*ns)[DB_MAX_REPEATS] = db_ns[size][c];

	db_fill(c, n);
	/* Whether the table and the dentries are on huge pages, as in the kernel */
	if (rep == 0 && c == DB_HLIST_BL)
		bench_slab_report(stdout);
	ns[DB_HIT][rep] = db_time(c, db_ops[l][0], 1, false);
	ns[DB_HIT_2T][rep] = db_time(c, db_ops[l][0], 2, false);
	ns[DB_CHASE][rep] = db_time(c, db_ops[l][0], 1, true);
	ns[DB_NEGATIVE][rep] = db_time(c, db_ops[l][1], 1, false);
	db_bytes[size][c] = db_hash_bytes(c);
	db_empty(c, n);
}

static int db_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void db_stat(const double *v, double *min, double *median)
{
	double s[DB_MAX_REPEATS];

	memcpy(s, v, opt.repeats * sizeof(*s));
	qsort(s, opt.repeats, sizeof(*s), db_cmp_double);
	*min = s[0];
	*median = opt.repeats & 1 ? s[opt.repeats / 2] :
		  (s[opt.repeats / 2 - 1] + s[opt.repeats / 2]) / 2;
}

static void db_print(unsigned int nr_sizes)
{
	unsigned int size, c, w;
	double min[DB_NR_CONFIGS], med[DB_NR_CONFIGS];

	printf("\n# ns per lookup, min / median of %u; speed against hlist_bl"
	       " (hlist_bl ns / this ns: above 1 is faster), from the medians\n",
	       opt.repeats);
	printf("%-10s %8s  %15s", "workload", "files", db_config_names[0]);
	for (c = 1; c < DB_NR_CONFIGS; c++)
		printf("  %15s %6s", db_config_names[c], "speed");
	printf("\n");
	for (w = 0; w < DB_NR_WORKLOADS; w++) {
		for (size = 0; size < nr_sizes; size++) {
			for (c = 0; c < DB_NR_CONFIGS; c++)
				db_stat(db_ns[size][c][w], &min[c], &med[c]);
			printf("%-10s %8lu  %6.1f / %6.1f", db_workload_names[w],
			       db_sizes[size], min[0], med[0]);
			for (c = 1; c < DB_NR_CONFIGS; c++)
				printf("  %6.1f / %6.1f %6.3f", min[c], med[c],
				       med[0] / med[c]);
			printf("\n");
		}
	}
	printf("\n# the hash's memory, bytes per file (the objects apart: 192, 192, 176, 192 bytes)\n");
	printf("%8s", "files");
	for (c = 0; c < DB_NR_CONFIGS; c++)
		printf(" %13s", db_config_names[c]);
	printf("\n");
	for (size = 0; size < nr_sizes; size++) {
		printf("%8lu", db_sizes[size]);
		for (c = 0; c < DB_NR_CONFIGS; c++)
			printf(" %13.1f", (double)db_bytes[size][c] / db_sizes[size]);
		printf("\n");
	}
}

static void __noreturn db_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [repeats=R] [ops=N] [max=N] [slots=N] [seed=N]\n", prog);
	exit(2);
}

static void db_parse_args(int argc, char **argv)
{
	unsigned long long val;
	char *eq, *end;
	int i;

	for (i = 1; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (!eq)
			db_usage(argv[0]);
		*eq = '\0';
		val = strtoull(eq + 1, &end, 0);
		if (*end || end == eq + 1)
			db_usage(argv[0]);
		if (!strcmp(argv[i], "repeats") && val && val <= DB_MAX_REPEATS)
			opt.repeats = val;
		else if (!strcmp(argv[i], "ops") && val >= 2)
			opt.ops = val;
		else if (!strcmp(argv[i], "max") && val >= db_sizes[0])
			opt.max = val;
		else if (!strcmp(argv[i], "slots") && val && is_power_of_2(val))
			opt.slots = val;
		else if (!strcmp(argv[i], "seed"))
			opt.seed = val;
		else
			db_usage(argv[0]);
	}
}

int main(int argc, char **argv)
{
	unsigned int size, nr_sizes = 0, rep, c;
	struct timespec t0, t1;

	db_parse_args(argc, argv);
	if (rbh_harness_check_rcu())
		return 2;
	kmalloc_nowait_fails = 0;
	rcu_register_thread();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("# dentry-bench: repeats=%u ops=%lu seed=%llu; hlist_bl table of %lu slots\n",
	       opt.repeats, opt.ops, (unsigned long long)opt.seed, 1UL << db_dcache_shift());
	bench_print_machine();
	for (size = 0; size < DB_NR_SIZES && db_sizes[size] <= opt.max; size++) {
		db_files_grow(db_sizes[size]);
		db_ops_make(db_sizes[size]);
		/* Interleaved, so that drift hits every configuration */
		for (rep = 0; rep < opt.repeats; rep++)
			for (c = 0; c < DB_NR_CONFIGS; c++)
				db_one(size, c, rep);
		nr_sizes++;
		printf("# %lu files done\n", db_sizes[size]);
		fflush(stdout);
	}
	db_print(nr_sizes);

	for (c = 0; c < DB_NR_LAYOUTS; c++) {
		free(db_files[c]);
		free(db_parents[c]);
		free(db_ops[c][0]);
		free(db_ops[c][1]);
	}
	bench_pool_free_all();
	destroy_system_workqueue();
	if (rbh_harness_leaks("at exit"))
		db_die("memory still allocated\n");
	if (rbh_harness_warnings)
		db_die("%lu WARNs\n", rbh_harness_warnings);
	rcu_unregister_thread();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# elapsed: %.1f s\n", db_elapsed(&t0, &t1) / 1e9);
	return 0;
}
