// SPDX-License-Identifier: GPL-2.0+
/*
 * dentry-bench.c: the dentry hash of kernel A (6.12: a table of
 * bit-locked list heads) and of kernel B (the series: a rosebush), in
 * userspace on the real CPU, across the machines that size A's table and
 * the dcaches that fill it.  QEMU's TCG, where scripts/qemu-dcache-ab.sh
 * runs kernels A and B, models no cache; this program times the hash
 * step of a lookup alone, with objects shaped and placed like dentries
 * and the dcache's own compare.
 *
 * A's table is sized as mm/mm_init.c's alloc_large_system_hash("Dentry
 * cache", 8 bytes, 0, 13, ...) sizes it at boot, for machines of 1, 4,
 * 24 and 256 GiB and 1 TiB (2^17 to 2^25 slots, 1 to 256 MiB), whatever
 * the dcache then holds; B's rosebush grows with the dcache.  Both hold
 * the same dentries: 6.12's struct dentry up to d_iname, at 6.12's
 * offsets on x86-64 without debugging, 192 bytes, carved from 4-KiB
 * "slab pages" of a huge-page pool, 21 to a page, as the dentry cache
 * places them (192 is a multiple of 64, but dentries are not aligned to
 * cache lines).  A links them through ->d_hash; B stores pointers.
 *
 * The dcache is a tree of directories eight levels deep under a root,
 * whose levels grow by the same factor, so that it holds N dentries in
 * all (10^3 to 10^7; max=N to stop sooner); a name is 4 to 24 bytes,
 * held in d_iname (one of more than 8 bytes reaches the second cache
 * line of a dentry), and its hash is salted by its parent's address, as
 * full_name_hash() salts it.  A lookup is __d_lookup_rcu(): the parent's
 * d_flags (DCACHE_OP_COMPARE), then each candidate's d_seq, d_parent,
 * DCACHE_HASHED (B), hash_len and name.  Workloads, on each size, each
 * configuration in turn, repeats=R times (min and median):
 *
 *   hit	names that exist, uniformly at random from the whole dcache,
 *		independent (they overlap their cache misses)
 *   hot	the same from a hot set of 1% of the dcache (at least 1000
 *		names, at most all): what stays cached between lookups
 *   walk	path walks: the eight components of the path of a random
 *		name of the last level, each looked up under the dentry the
 *		one before found, by a hash salted by its address, as
 *		link_path_walk() does, so that each waits for the last; the
 *		time is per component
 *   negative	names that do not exist, under random directories
 *
 * then the memory each configuration's hash holds per dentry: A's table,
 * and the 16 bytes of ->d_hash in every dentry, against B's buckets and
 * table (rbh_stats()), and where they break even.  Every lookup is
 * checked; a wrong result makes the program exit with status 1.
 * csv=FILE writes every speed ratio for tests/bench/dentry-bench.gp.
 *
 * Usage: ./dentry-bench [repeats=R] [ops=N] [max=N] [seed=N] [csv=FILE]
 */
#include "rosebush-harness.h"
#include "bench-kernel.h"

#include <linux/rculist_bl.h>

#include "bench-slab.h"
#include "bench-machine.h"

#include <math.h>
#include <pthread.h>

#define DB_MAX_REPEATS	15
#define DB_NAME_MAX	24
#define DB_SLAB_PAGE	4096
#define DB_DEPTH	8
/* The d_flags a lookup tests: 6.12's, and the series' (patch 14) */
#define DCACHE_OP_COMPARE	BIT(1)
#define DCACHE_HASHED		BIT(13)

static const unsigned long db_sizes[] = {
	1000, 10000, 100000, 1000000, 10000000,
};

#define DB_NR_SIZES	ARRAY_SIZE(db_sizes)

/* The machines that size A's table, in GiB */
static const unsigned int db_machine_gib[] = { 1, 4, 24, 256, 1024 };
static const char *const db_machine_names[] = {
	"1G", "4G", "24G", "256G", "1T",
};

#define DB_NR_MACHINES	ARRAY_SIZE(db_machine_gib)
/* Configurations: A on each machine, then B */
#define DB_ROSEBUSH	DB_NR_MACHINES
#define DB_NR_CONFIGS	(DB_NR_MACHINES + 1)

enum db_workload { DB_HIT, DB_HOT, DB_WALK, DB_NEGATIVE, DB_NR_WORKLOADS };

static const char *const db_workload_names[] = {
	"hit", "hot", "walk", "negative",
};

static struct {
	unsigned int repeats;
	unsigned long ops;
	unsigned long max;
	u64 seed;
	const char *csv;
} opt = {
	.repeats = 3,
	.ops = 1UL << 20,
	.max = 10000000,
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

/* A name as the walker holds it: its bytes and its unsalted hash */
struct db_name {
	u64 hash;
	u32 len;
	unsigned char name[DB_NAME_MAX + 1];
} __aligned(8);

/* An independent lookup: 64 bytes, read in sequence */
struct db_op {
	struct db_dentry *parent;
	union db_hash_len key;
	struct db_dentry *expect;		/* NULL: not stored */
	unsigned char name[DB_NAME_MAX + 1];
} __aligned(64);

/* ns per lookup [size][config][workload][repeat]; bytes [size][config] */
static double db_ns[DB_NR_SIZES][DB_NR_CONFIGS][DB_NR_WORKLOADS][DB_MAX_REPEATS];
static unsigned long db_bytes[DB_NR_SIZES][DB_NR_CONFIGS];

/* The dcache: dentries by level, and their names */
static struct db_dentry db_root;
static struct db_dentry **db_dentries;
static struct db_name *db_names;
static unsigned long db_nr;
static unsigned long db_level_first[DB_DEPTH + 2];	/* level d: [first[d], first[d + 1]) */
/* The lookups of one size */
static struct db_op *db_ops[DB_NR_WORKLOADS];
static unsigned long *db_walks;		/* leaf indices */

static struct hlist_bl_head *db_bl;
static unsigned int db_bl_shift;
static struct rbh db_rbh;

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

/* A name's hash salted by its parent's address, as full_name_hash() */
static __always_inline u32 db_salted(u64 hash, const void *parent)
{
	return (u32)db_mix64(hash ^ (unsigned long)parent);
}

/* Name @i (absent ones have @absent set): 4 to 24 bytes, and its hash */
static void db_name_make(unsigned long i, bool absent, struct db_name *n)
{
	int len = snprintf((char *)n->name, DB_NAME_MAX + 1, "%c%lu",
			   absent ? 'n' : 'f', i);
	int want = 4 + db_mix64(i ^ 0x5a5a) % (DB_NAME_MAX - 3);

	while (len < want) {
		n->name[len] = 'a' + (i + len) % 26;
		len++;
	}
	n->name[len] = '\0';
	n->len = len;
	n->hash = db_mix64((opt.seed << 48) ^ ((u64)absent << 47) ^ i);
}

/*
 * Slab-like placement: whole dentries per 4-KiB page (an order-0 slab),
 * pages from the huge-page pool
 */
static struct db_dentry *db_slab_alloc(void)
{
	static char *page;
	static size_t used;

	if (!page || used + sizeof(struct db_dentry) > DB_SLAB_PAGE) {
		page = bench_pool_alloc(DB_SLAB_PAGE);
		if (!page)
			db_die("out of memory for dentries\n");
		used = 0;
	}
	used += sizeof(struct db_dentry);
	return (struct db_dentry *)(page + used - sizeof(struct db_dentry));
}

/* The parent of dentry @i of level @d: spread evenly over level d - 1 */
static unsigned long db_parent_of(unsigned long i, unsigned int d)
{
	unsigned long first = db_level_first[d], n = db_level_first[d + 1] - first;
	unsigned long pfirst = db_level_first[d - 1];
	unsigned long pn = db_level_first[d] - pfirst;

	return pfirst + (i - first) * pn / n;
}

static struct db_dentry *db_dentry_at(unsigned long i)
{
	return i == 0 ? &db_root : db_dentries[i - 1];
}

/*
 * The dcache of @n dentries (index 0 is the root, 1 to @n the dentries):
 * levels 1 to DB_DEPTH, level d holding about f^d, for the f that makes
 * them @n in all.
 */
static void db_dcache_make(unsigned long n)
{
	double lo = 1.0, hi = 100.0, f, sum, p;
	unsigned long i, total = 0;
	unsigned int d;

	/* f such that f + f^2 + ... + f^8 = n */
	while (hi - lo > 1e-9) {
		f = (lo + hi) / 2;
		for (sum = 0, p = 1, d = 1; d <= DB_DEPTH; d++)
			sum += p *= f;
		if (sum < n)
			lo = f;
		else
			hi = f;
	}
	db_level_first[0] = 0;
	db_level_first[1] = 1;
	for (p = 1, d = 1; d < DB_DEPTH; d++) {
		unsigned long size = fmax(1.0, round(p *= lo));

		total += size;
		db_level_first[d + 1] = db_level_first[d] + size;
	}
	if (total >= n)
		db_die("a dcache of %lu dentries has no last level\n", n);
	db_level_first[DB_DEPTH + 1] = n + 1;

	db_dentries = realloc(db_dentries, n * sizeof(*db_dentries));
	db_names = realloc(db_names, (n + 1) * sizeof(*db_names));
	if (!db_dentries || !db_names)
		db_die("out of memory for %lu dentries\n", n);
	db_root.d_flags = DCACHE_HASHED;
	for (i = db_nr + 1; i <= n; i++)
		db_dentries[i - 1] = db_slab_alloc();
	for (d = 1; d <= DB_DEPTH; d++)
		for (i = db_level_first[d]; i < db_level_first[d + 1]; i++) {
			struct db_dentry *de = db_dentries[i - 1];
			struct db_name *nm = &db_names[i];

			db_name_make(i, false, nm);
			memset(de, 0, sizeof(*de));
			de->d_flags = DCACHE_HASHED;
			de->d_parent = db_dentry_at(db_parent_of(i, d));
			de->d_name.len = nm->len;
			de->d_name.hash = db_salted(nm->hash, de->d_parent);
			memcpy(de->d_iname, nm->name, nm->len + 1);
			de->name = de->d_iname;
		}
	db_nr = n;
}

static void db_op_make(struct db_op *op, struct db_dentry *parent,
		       const struct db_name *nm, struct db_dentry *expect)
{
	memset(op, 0, sizeof(*op));
	op->parent = parent;
	op->key.len = nm->len;
	op->key.hash = db_salted(nm->hash, parent);
	memcpy(op->name, nm->name, nm->len + 1);
	op->expect = expect;
}

/* The lookups of a dcache of @n dentries */
static void db_ops_make(unsigned long n)
{
	unsigned long i, j, hot = n / 100 < 1000 ? min(1000UL, n) : n / 100;
	u64 rnd = opt.seed;
	struct db_name absent;
	int w;

	for (w = 0; w < DB_NR_WORKLOADS; w++) {
		if (!db_ops[w] && w != DB_WALK)
			db_ops[w] = bench_huge_alloc(opt.ops * sizeof(struct db_op));
		if (!db_ops[w] && w != DB_WALK)
			db_die("out of memory for operations\n");
	}
	if (!db_walks)
		db_walks = bench_huge_alloc(opt.ops * sizeof(*db_walks));
	if (!db_walks)
		db_die("out of memory for walks\n");
	for (i = 0; i < opt.ops; i++) {
		j = 1 + db_mix64(++rnd) % n;
		db_op_make(&db_ops[DB_HIT][i], db_dentry_at(j)->d_parent,
			   &db_names[j], db_dentry_at(j));
		/* The hot set: dentries whose index is a multiple of n / hot */
		j = 1 + db_mix64(++rnd) % hot * (n / hot);
		db_op_make(&db_ops[DB_HOT][i], db_dentry_at(j)->d_parent,
			   &db_names[j], db_dentry_at(j));
		/* Absent names under directories (levels 0 to 7) */
		j = db_mix64(++rnd) % db_level_first[DB_DEPTH];
		db_name_make(i, true, &absent);
		db_op_make(&db_ops[DB_NEGATIVE][i], db_dentry_at(j), &absent,
			   NULL);
		db_walks[i] = db_level_first[DB_DEPTH] +
			      db_mix64(++rnd) % (n + 1 - db_level_first[DB_DEPTH]);
	}
}

/* ---- the lookups, as fs/dcache.c's __d_lookup_rcu() ---- */

static __always_inline bool db_match(unsigned int flags_hashed,
				     const struct db_dentry *d, u64 hash_len,
				     const unsigned char *name,
				     const struct db_dentry *parent)
{
	if (d->d_parent != parent)
		return false;
	if (!(flags_hashed & DCACHE_HASHED))
		return false;
	if (d->d_name.hash_len != hash_len)
		return false;
	return !memcmp(READ_ONCE(d->name), name, hash_len >> 32);
}

static __always_inline struct db_dentry *
db_bl_lookup(const struct db_dentry *parent, u64 hash_len,
	     const unsigned char *name)
{
	u32 hash = (u32)hash_len;
	struct hlist_bl_head *b = &db_bl[hash >> (32 - db_bl_shift)];
	struct hlist_bl_node *node;
	struct db_dentry *d;

	if (READ_ONCE(parent->d_flags) & DCACHE_OP_COMPARE)
		return NULL;
	hlist_bl_for_each_entry_rcu(d, node, b, d_hash) {
		/* 6.12 reads d_seq and d_parent; d_unhashed() is d_hash's */
		(void)READ_ONCE(d->d_seq);
		if (db_match(DCACHE_HASHED, d, hash_len, name, parent))
			return d;
	}
	return NULL;
}

static __always_inline struct db_dentry *
db_rbh_lookup(const struct db_dentry *parent, u64 hash_len,
	      const unsigned char *name)
{
	struct rbh_iter iter;
	struct db_dentry *d;

	if (READ_ONCE(parent->d_flags) & DCACHE_OP_COMPARE)
		return NULL;
	rbh_for_each_possible(d, &iter, &db_rbh, (u32)hash_len) {
		(void)READ_ONCE(d->d_seq);
		if (db_match(READ_ONCE(d->d_flags), d, hash_len, name, parent))
			return d;
	}
	return NULL;
}

static __always_inline struct db_dentry *
db_lookup(bool rosebush, const struct db_dentry *parent, u64 hash_len,
	  const unsigned char *name)
{
	return rosebush ? db_rbh_lookup(parent, hash_len, name) :
			  db_bl_lookup(parent, hash_len, name);
}

/* Independent lookups; returns the wrong results */
static __always_inline unsigned long db_run(bool rosebush,
					    const struct db_op *ops)
{
	unsigned long i, wrong = 0;

	rcu_read_lock();
	for (i = 0; i < opt.ops; i++)
		wrong += db_lookup(rosebush, ops[i].parent, ops[i].key.hash_len,
				   ops[i].name) != ops[i].expect;
	rcu_read_unlock();
	return wrong;
}

/*
 * Path walks: each component is looked up under the dentry the one
 * before found, by its name's hash salted by that dentry's address, so
 * that where it loads depends on the lookup before.  A wrong result is
 * counted, and its walk goes on from the dentry expected.
 */
static __always_inline unsigned long db_walk(bool rosebush)
{
	unsigned long i, id[DB_DEPTH], wrong = 0;
	const struct db_name *nm;
	struct db_dentry *parent, *d;
	unsigned int k;

	rcu_read_lock();
	for (i = 0; i < opt.ops / DB_DEPTH; i++) {
		/* The leaf's ancestors, by arithmetic on the levels */
		id[DB_DEPTH - 1] = db_walks[i];
		for (k = DB_DEPTH - 1; k > 0; k--)
			id[k - 1] = db_parent_of(id[k], k + 1);
		parent = &db_root;
		for (k = 0; k < DB_DEPTH; k++) {
			nm = &db_names[id[k]];
			d = db_lookup(rosebush, parent,
				      (u64)nm->len << 32 | db_salted(nm->hash, parent),
				      nm->name);
			if (unlikely(d != db_dentry_at(id[k]))) {
				wrong++;
				d = db_dentry_at(id[k]);
			}
			parent = d;
		}
	}
	rcu_read_unlock();
	return wrong;
}

/* ns per lookup (per component for walks) */
static double db_time(bool rosebush, enum db_workload w)
{
	struct timespec start, end;
	unsigned long wrong, n = opt.ops;

	clock_gettime(CLOCK_MONOTONIC, &start);
	if (w == DB_WALK) {
		wrong = db_walk(rosebush);
		n = opt.ops / DB_DEPTH * DB_DEPTH;
	} else {
		wrong = db_run(rosebush, db_ops[w]);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (wrong)
		db_die("%s, %s: %lu wrong lookups\n",
		       rosebush ? "rosebush" : "hlist_bl", db_workload_names[w],
		       wrong);
	return db_elapsed(&start, &end) / n;
}

/* ---- filling, measuring, emptying ---- */

/*
 * The depth of the table mm/mm_init.c's alloc_large_system_hash("Dentry
 * cache", 8 bytes, 0, 13, ...) gives a machine of @gib GiB, all of it
 * the kernel's (nr_kernel_pages and nr_all_pages)
 */
static unsigned int db_dcache_shift(unsigned int gib)
{
	unsigned long long pages = (unsigned long long)gib << (30 - 12);
	unsigned long long entries = pages, adapt, max;
	int scale = 13;

	/* 64-bit: one more bit of scale for each 4x beyond 64 GiB */
	for (adapt = (64ULL << 30) >> 12; adapt < entries; adapt <<= 2)
		scale++;
	entries >>= scale - 12;
	entries = roundup_pow_of_two(entries);
	/* At most 1/16 of memory */
	max = min((pages << 12 >> 4) / sizeof(struct hlist_bl_head), 0x80000000ULL);
	return ilog2(min(entries, max));
}

static void db_fill(unsigned int c)
{
	unsigned long i;
	int err;

	if (c != DB_ROSEBUSH) {
		db_bl_shift = db_dcache_shift(db_machine_gib[c]);
		db_bl = kvmalloc(sizeof(*db_bl) << db_bl_shift, GFP_KERNEL);
		if (!db_bl)
			db_die("out of memory for the hlist_bl table\n");
		for (i = 0; i < 1UL << db_bl_shift; i++)
			INIT_HLIST_BL_HEAD(&db_bl[i]);
		for (i = 0; i < db_nr; i++) {
			struct db_dentry *d = db_dentries[i];
			struct hlist_bl_head *b = &db_bl[d->d_name.hash >>
							 (32 - db_bl_shift)];

			hlist_bl_lock(b);
			hlist_bl_add_head_rcu(&d->d_hash, b);
			hlist_bl_unlock(b);
		}
		return;
	}
	rbh_init(&db_rbh);
	for (i = 0; i < db_nr; i++) {
		err = rbh_insert(&db_rbh, db_dentries[i]->d_name.hash,
				 db_dentries[i]);
		if (err)
			db_die("rbh_insert: %d\n", err);
	}
	flush_scheduled_work();
}

static unsigned long db_hash_bytes(unsigned int c)
{
	struct rbh_stats stats;

	if (c != DB_ROSEBUSH)
		return sizeof(*db_bl) << db_bl_shift;
	rbh_stats(&db_rbh, &stats);
	return stats.bytes;
}

static void db_empty(unsigned int c)
{
	unsigned long i;

	if (c != DB_ROSEBUSH) {
		for (i = 0; i < db_nr; i++)
			db_dentries[i]->d_hash.pprev = NULL;
		kvfree(db_bl);
		db_bl = NULL;
		return;
	}
	rbh_destroy(&db_rbh);
	flush_scheduled_work();
}

static void db_one(unsigned int size, unsigned int c, unsigned int rep)
{
	struct bench_huge h = {};
	unsigned int w;
	char buf[64];

	db_fill(c);
	/* Whether the table is on huge pages, as in the kernel */
	if (rep == 0 && c != DB_ROSEBUSH && size == 0) {
		bench_huge_count(&h, db_bl, db_hash_bytes(c));
		printf("# huge pages back the %s machine's hlist_bl table: %s\n",
		       db_machine_names[c], bench_huge_str(&h, buf, sizeof(buf)));
	}
	for (w = 0; w < DB_NR_WORKLOADS; w++)
		db_ns[size][c][w][rep] = db_time(c == DB_ROSEBUSH, w);
	db_bytes[size][c] = db_hash_bytes(c);
	db_empty(c);
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
	double min[DB_NR_CONFIGS], med[DB_NR_CONFIGS], a, b;
	FILE *csv = NULL;

	if (opt.csv) {
		csv = fopen(opt.csv, "w");
		if (!csv)
			db_die("cannot write %s\n", opt.csv);
		fprintf(csv, "workload,dentries,machine,hlist_bl_ns,rosebush_ns,b_over_a\n");
	}
	printf("\n# ns per lookup (walk: per component), min / median of %u runs;"
	       " B/A = hlist_bl ns / rosebush ns,\n# from the medians (above 1:"
	       " rosebush is faster), for hlist_bl's table sized for each machine\n",
	       opt.repeats);
	printf("%-8s %8s  %13s", "workload", "dentries", "rosebush");
	for (c = 0; c < DB_NR_MACHINES; c++)
		printf("  %4s: %13s %5s", db_machine_names[c], "hlist_bl", "B/A");
	printf("\n");
	for (w = 0; w < DB_NR_WORKLOADS; w++) {
		for (size = 0; size < nr_sizes; size++) {
			for (c = 0; c < DB_NR_CONFIGS; c++)
				db_stat(db_ns[size][c][w], &min[c], &med[c]);
			printf("%-8s %8lu  %5.1f / %5.1f", db_workload_names[w],
			       db_sizes[size], min[DB_ROSEBUSH], med[DB_ROSEBUSH]);
			for (c = 0; c < DB_NR_MACHINES; c++) {
				printf("        %5.1f / %5.1f %5.2f", min[c], med[c],
				       med[c] / med[DB_ROSEBUSH]);
				if (csv)
					fprintf(csv, "%s,%lu,%s,%.2f,%.2f,%.4f\n",
						db_workload_names[w], db_sizes[size],
						db_machine_names[c], med[c],
						med[DB_ROSEBUSH],
						med[c] / med[DB_ROSEBUSH]);
			}
			printf("\n");
		}
	}
	if (csv && fclose(csv))
		db_die("cannot write %s\n", opt.csv);

	printf("\n# the hash's memory per dentry, in bytes: A's table and the 16 bytes of ->d_hash\n"
	       "# in every dentry, against B's buckets and table (B192: the series' 192-byte\n"
	       "# dentry, which gives ->d_hash's bytes to the inline name; B176: a dentry of\n"
	       "# 176 bytes without them); B192 - A: what B192 costs more (negative: saves)\n");
	printf("%8s %7s %7s", "dentries", "B192", "B176");
	for (c = 0; c < DB_NR_MACHINES; c++)
		printf("  %4s: %6s %8s", db_machine_names[c], "A", "B192 - A");
	printf("\n");
	for (size = 0; size < nr_sizes; size++) {
		b = (double)db_bytes[size][DB_ROSEBUSH] / db_sizes[size];
		printf("%8lu %7.1f %7.1f", db_sizes[size], b + 16, b);
		for (c = 0; c < DB_NR_MACHINES; c++) {
			a = (double)db_bytes[size][c] / db_sizes[size] + 16;
			printf("        %6.1f %8.1f", a, b + 16 - a);
		}
		printf("\n");
	}
	/* B's bytes per dentry at the largest size, for the break-even */
	b = (double)db_bytes[nr_sizes - 1][DB_ROSEBUSH] / db_sizes[nr_sizes - 1];
	printf("\n# break-even, from B's %.1f bytes of buckets and table per dentry at %lu:"
	       " A's table T is smaller\n# than B192's buckets above T / %.1f dentries, and"
	       " than B176's above T / (%.1f - 16)\n", b, db_sizes[nr_sizes - 1], b, b);
	for (c = 0; c < DB_NR_MACHINES; c++) {
		double t = (double)(sizeof(struct hlist_bl_head) <<
				    db_dcache_shift(db_machine_gib[c]));

		printf("# %4s: table %7.1f MiB; B192 uses less memory below %9.0f dentries,"
		       " B176 below %9.0f\n", db_machine_names[c], t / (1 << 20),
		       t / b, b > 16 ? t / (b - 16) : INFINITY);
	}
}

static void __noreturn db_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [repeats=R] [ops=N] [max=N] [seed=N] [csv=FILE]\n",
		prog);
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
		if (!strcmp(argv[i], "csv")) {
			opt.csv = eq + 1;
			continue;
		}
		val = strtoull(eq + 1, &end, 0);
		if (*end || end == eq + 1)
			db_usage(argv[0]);
		if (!strcmp(argv[i], "repeats") && val && val <= DB_MAX_REPEATS)
			opt.repeats = val;
		else if (!strcmp(argv[i], "ops") && val >= 2 * DB_DEPTH)
			opt.ops = val;
		else if (!strcmp(argv[i], "max") && val >= db_sizes[0])
			opt.max = val;
		else if (!strcmp(argv[i], "seed"))
			opt.seed = val;
		else
			db_usage(argv[0]);
	}
}

int main(int argc, char **argv)
{
	unsigned int size, nr_sizes = 0, rep, c, w;
	struct timespec t0, t1;

	db_parse_args(argc, argv);
	if (rbh_harness_check_rcu())
		return 2;
	kmalloc_nowait_fails = 0;
	rcu_register_thread();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("# dentry-bench: repeats=%u ops=%lu seed=%llu; hlist_bl's table for",
	       opt.repeats, opt.ops, (unsigned long long)opt.seed);
	for (c = 0; c < DB_NR_MACHINES; c++)
		printf(" %s: 2^%u slots%s", db_machine_names[c],
		       db_dcache_shift(db_machine_gib[c]),
		       c < DB_NR_MACHINES - 1 ? "," : "\n");
	bench_print_machine();
	for (size = 0; size < DB_NR_SIZES && db_sizes[size] <= opt.max; size++) {
		db_dcache_make(db_sizes[size]);
		db_ops_make(db_sizes[size]);
		/* Interleaved, so that drift hits every configuration */
		for (rep = 0; rep < opt.repeats; rep++)
			for (c = 0; c < DB_NR_CONFIGS; c++)
				db_one(size, c, rep);
		nr_sizes++;
		printf("# %lu dentries done\n", db_sizes[size]);
		fflush(stdout);
	}
	db_print(nr_sizes);

	free(db_dentries);
	free(db_names);
	for (w = 0; w < DB_NR_WORKLOADS; w++)
		bench_huge_free(db_ops[w]);
	bench_huge_free(db_walks);
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
