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
 * cache", 8 bytes, 0, 13, ...) sizes it at boot for machines of 1, 4, 24
 * and 256 GiB and 1 TiB, all of their memory the kernel's (2^17 to 2^25
 * slots, 1 to 256 MiB), whatever the dcache then holds; B's rosebush
 * grows with the dcache, as fs/dcache.c makes it.
 * The kernel puts A's table in the direct map (memblock, mapped with
 * 1-GiB pages) on one node, and interleaves it over the nodes (vmalloc)
 * on several; here it is a 2-MiB-aligned mapping on transparent huge
 * pages, on the one node this machine has.
 *
 * Each kernel has its own dentries, 192 bytes each: A's are 6.12's struct
 * dentry up to d_iname, at 6.12's offsets on x86-64 without debugging
 * (d_hash at 8, d_name at 32, d_iname[40] at 56); B's are the series'
 * (no d_hash: d_name at 16, d_iname[56] at 40, DCACHE_HASHED in
 * d_flags).  They are carved from 4-KiB "slab pages" of a huge-page pool,
 * 21 to a page, as the dentry cache places them (every dentry starts a
 * cache line, as 192 is a multiple of 64).  The dcache is a tree of
 * directories eight levels deep under a root, whose levels grow by the
 * same factor (2.2 at 10^3 dentries, 7.4 at 10^7, so that the upper
 * levels are few and stay cached), N dentries in all (10^3 to 10^7;
 * max=N to stop sooner); a name is 4 to 24 bytes, held in d_iname, and
 * its hash is salted by its parent's address, as full_name_hash() salts
 * it.  A lookup is __d_lookup_rcu(): the parent's d_flags
 * (DCACHE_OP_COMPARE), then each candidate's d_seq, d_parent, whether it
 * is hashed (A: d_hash.pprev; B: DCACHE_HASHED), hash_len and name,
 * compared a word at a time by dentry_string_cmp().  Workloads, on each
 * size, each configuration in turn, repeats=R times (min and median),
 * each after a warm-up of an eighth of its lookups:
 *
 *   hit	names that exist, uniformly at random from the whole dcache,
 *		independent (they overlap their cache misses)
 *   hot	the same from a hot set: every k-th dentry, 1% of the dcache
 *		and at least 1000 (all of it at 10^3, a tenth at 10^4)
 *   walk	path walks: the eight components of the path of a random
 *		name of the last level, each looked up under the dentry the
 *		one before found, by a hash salted by its address, as
 *		link_path_walk() does, so that each waits for the last; the
 *		names come in order from a precomputed array, as from a path
 *		string; the time is per component
 *   miss	names that are not in the dcache, under random directories:
 *		the hash step of a lookup that then goes to the filesystem
 *		(or of one that finds a negative dentry of another name)
 *
 * then the memory per dentry, the dentry's share of its slab page
 * included: A's dentry and table against B's buckets and table with the
 * series' 192-byte dentry, which gives ->d_hash's bytes to the inline
 * name, and with a 176-byte dentry without them (23 to a page); and where
 * each breaks even with A.  A dcache that would take more than half of a
 * machine's memory is not measured on it ("-").  Every lookup is
 * checked; a wrong result makes the program exit with status 1.
 * csv=FILE writes every ratio for tests/bench/dentry-bench.gp.
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
/* A name buffer: the name, then zeroes that a word-at-a-time compare reads */
#define DB_NAME_BUF	32
#define DB_SLAB_PAGE	4096
#define DB_DEPTH	8
/* The d_flags a lookup tests: 6.12's, and the series' (patch 9) */
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

enum db_workload { DB_HIT, DB_HOT, DB_WALK, DB_MISS, DB_NR_WORKLOADS };

static const char *const db_workload_names[] = {
	"hit", "hot", "walk", "miss",
};

/* Bytes of a dentry's slab page: 21 of 192 bytes, 23 of 176, to 4 KiB */
#define DB_SLAB_SHARE(size)	((double)DB_SLAB_PAGE / (DB_SLAB_PAGE / (size)))

static struct {
	unsigned int repeats;
	unsigned long ops;
	unsigned long max;
	u64 seed;
	const char *csv;
} opt = {
	.repeats = 5,
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

/* Kernel A's dentry: 6.12's, up to d_iname */
struct db_dentry_a {
	unsigned int d_flags;
	unsigned int d_seq;
	struct hlist_bl_node d_hash;
	struct db_dentry_a *d_parent;
	union db_hash_len d_name;
	const unsigned char *name;
	void *d_inode;
	unsigned char d_iname[40];
	unsigned char rest[192 - 96];
};

/* Kernel B's dentry: the series', without d_hash */
struct db_dentry_b {
	unsigned int d_flags;
	unsigned int d_seq;
	struct db_dentry_b *d_parent;
	union db_hash_len d_name;
	const unsigned char *name;
	void *d_inode;
	unsigned char d_iname[56];
	unsigned char rest[192 - 96];
};

static_assert(sizeof(struct db_dentry_a) == 192);
static_assert(offsetof(struct db_dentry_a, d_iname) == 56);
static_assert(sizeof(struct db_dentry_b) == 192);
static_assert(offsetof(struct db_dentry_b, d_iname) == 40);

/* A name: its bytes and its unsalted hash */
struct db_name {
	u64 hash;
	u32 len;
	unsigned char name[DB_NAME_BUF];
} __aligned(8);

/* An independent lookup: 64 bytes, read in sequence */
struct db_op {
	const void *parent;
	union db_hash_len key;
	const void *expect;			/* NULL: not stored */
	unsigned char name[DB_NAME_BUF];
} __aligned(64);

/* ns per lookup [size][config][workload][repeat]; bytes [size][config][repeat] */
static double db_ns[DB_NR_SIZES][DB_NR_CONFIGS][DB_NR_WORKLOADS][DB_MAX_REPEATS];
static double db_bytes[DB_NR_SIZES][DB_NR_CONFIGS][DB_MAX_REPEATS];

/* The dcache: both kernels' dentries (index 0: the roots), and names */
static struct db_dentry_a db_root_a;
static struct db_dentry_b db_root_b;
static struct db_dentry_a **db_a;
static struct db_dentry_b **db_b;
static struct db_name *db_names;
static unsigned long db_nr;
/* Level d holds dentries [db_level_first[d], db_level_first[d + 1]) */
static unsigned long db_level_first[DB_DEPTH + 2];
/* The independent lookups of one size, [workload][kernel] */
static struct db_op *db_ops[DB_NR_WORKLOADS][2];
/* The walks: each component's name, and the dentry it must find */
static struct db_name *db_walk_names;
static unsigned long *db_walk_ids;

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

	memset(n->name + len, 0, DB_NAME_BUF - len);
	while (len < want) {
		n->name[len] = 'a' + (i + len) % 26;
		len++;
	}
	n->len = len;
	n->hash = db_mix64((opt.seed << 48) ^ ((u64)absent << 47) ^ i);
}

/*
 * Slab-like placement: whole dentries per 4-KiB page (an order-0 slab),
 * pages from the huge-page pool, a slab cache per kernel
 */
static void *db_slab_alloc(int b)
{
	static char *page[2];
	static size_t used[2];
	const size_t size = 192;

	if (!page[b] || used[b] + size > DB_SLAB_PAGE) {
		page[b] = bench_pool_alloc(DB_SLAB_PAGE);
		if (!page[b])
			db_die("out of memory for dentries\n");
		used[b] = 0;
	}
	used[b] += size;
	return page[b] + used[b] - size;
}

/* The parent of dentry @i of level @d: spread evenly over level d - 1 */
static unsigned long db_parent_of(unsigned long i, unsigned int d)
{
	unsigned long first = db_level_first[d], n = db_level_first[d + 1] - first;
	unsigned long pfirst = db_level_first[d - 1];
	unsigned long pn = db_level_first[d] - pfirst;

	return pfirst + (i - first) * pn / n;
}

static const void *db_dentry(int b, unsigned long i)
{
	if (b)
		return i ? (void *)db_b[i - 1] : (void *)&db_root_b;
	return i ? (void *)db_a[i - 1] : (void *)&db_root_a;
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

	db_a = realloc(db_a, n * sizeof(*db_a));
	db_b = realloc(db_b, n * sizeof(*db_b));
	db_names = realloc(db_names, (n + 1) * sizeof(*db_names));
	if (!db_a || !db_b || !db_names)
		db_die("out of memory for %lu dentries\n", n);
	db_root_a.d_flags = DCACHE_HASHED;
	db_root_b.d_flags = DCACHE_HASHED;
	/* One kernel's dentries, then the other's: a slab cache each */
	for (i = db_nr + 1; i <= n; i++)
		db_a[i - 1] = db_slab_alloc(0);
	for (i = db_nr + 1; i <= n; i++)
		db_b[i - 1] = db_slab_alloc(1);
	for (d = 1; d <= DB_DEPTH; d++)
		for (i = db_level_first[d]; i < db_level_first[d + 1]; i++) {
			struct db_dentry_a *a = db_a[i - 1];
			struct db_dentry_b *b = db_b[i - 1];
			struct db_name *nm = &db_names[i];
			unsigned long parent = db_parent_of(i, d);

			db_name_make(i, false, nm);
			memset(a, 0, sizeof(*a));
			a->d_parent = (void *)db_dentry(0, parent);
			a->d_name.len = nm->len;
			a->d_name.hash = db_salted(nm->hash, a->d_parent);
			memcpy(a->d_iname, nm->name, DB_NAME_BUF);
			a->name = a->d_iname;
			memset(b, 0, sizeof(*b));
			b->d_flags = DCACHE_HASHED;
			b->d_parent = (void *)db_dentry(1, parent);
			b->d_name.len = nm->len;
			b->d_name.hash = db_salted(nm->hash, b->d_parent);
			memcpy(b->d_iname, nm->name, DB_NAME_BUF);
			b->name = b->d_iname;
		}
	db_nr = n;
}

/* Parent and expected dentry of an op are kernel @b's */
static void db_op_make(struct db_op *op, int b, unsigned long parent,
		       const struct db_name *nm, long expect)
{
	memset(op, 0, sizeof(*op));
	op->parent = db_dentry(b, parent);
	op->key.len = nm->len;
	op->key.hash = db_salted(nm->hash, op->parent);
	memcpy(op->name, nm->name, DB_NAME_BUF);
	op->expect = expect < 0 ? NULL : db_dentry(b, expect);
}

static unsigned long db_parent_index(unsigned long i)
{
	unsigned int d;

	for (d = 1; i >= db_level_first[d + 1]; d++)
		;
	return db_parent_of(i, d);
}

/* The lookups of a dcache of @n dentries */
static void db_ops_make(unsigned long n)
{
	unsigned long i, j, walks = opt.ops / DB_DEPTH, id[DB_DEPTH];
	unsigned long hot = max(min(1000UL, n), n / 100);
	u64 rnd = opt.seed;
	struct db_name absent;
	unsigned int k;
	int w, b;

	for (w = 0; w < DB_NR_WORKLOADS; w++)
		for (b = 0; b < 2 && w != DB_WALK; b++) {
			if (!db_ops[w][b])
				db_ops[w][b] = bench_huge_alloc(opt.ops * sizeof(struct db_op));
			if (!db_ops[w][b])
				db_die("out of memory for operations\n");
		}
	if (!db_walk_names)
		db_walk_names = bench_huge_alloc(walks * DB_DEPTH * sizeof(*db_walk_names));
	if (!db_walk_ids)
		db_walk_ids = bench_huge_alloc(walks * DB_DEPTH * sizeof(*db_walk_ids));
	if (!db_walk_names || !db_walk_ids)
		db_die("out of memory for walks\n");
	for (i = 0; i < opt.ops; i++) {
		unsigned long hit = 1 + db_mix64(++rnd) % n;
		/* The hot set: dentries whose index is a multiple of n / hot */
		unsigned long warm = 1 + db_mix64(++rnd) % hot * (n / hot);
		/* Names not stored, under directories (levels 0 to 7) */
		unsigned long dir = db_mix64(++rnd) % db_level_first[DB_DEPTH];

		db_name_make(i, true, &absent);
		for (b = 0; b < 2; b++) {
			db_op_make(&db_ops[DB_HIT][b][i], b, db_parent_index(hit),
				   &db_names[hit], hit);
			db_op_make(&db_ops[DB_HOT][b][i], b, db_parent_index(warm),
				   &db_names[warm], warm);
			db_op_make(&db_ops[DB_MISS][b][i], b, dir, &absent, -1);
		}
	}
	for (i = 0; i < walks; i++) {
		/* A leaf's ancestors, from the root down */
		id[DB_DEPTH - 1] = db_level_first[DB_DEPTH] +
			db_mix64(++rnd) % (n + 1 - db_level_first[DB_DEPTH]);
		for (k = DB_DEPTH - 1; k > 0; k--)
			id[k - 1] = db_parent_of(id[k], k + 1);
		for (k = 0; k < DB_DEPTH; k++) {
			j = i * DB_DEPTH + k;
			db_walk_names[j] = db_names[id[k]];
			db_walk_ids[j] = id[k];
		}
	}
}

/* ---- the lookups, as 6.12's and the series' __d_lookup_rcu() ---- */

/* fs/dcache.c's, with CONFIG_DCACHE_WORD_ACCESS (x86-64) */
static __always_inline int db_string_cmp(const unsigned char *cs,
					 const unsigned char *ct,
					 unsigned int tcount)
{
	unsigned long a, b, mask;

	for (;;) {
		memcpy(&a, cs, sizeof(a));
		memcpy(&b, ct, sizeof(b));
		if (tcount < sizeof(unsigned long))
			break;
		if (unlikely(a != b))
			return 1;
		cs += sizeof(unsigned long);
		ct += sizeof(unsigned long);
		tcount -= sizeof(unsigned long);
		if (!tcount)
			return 0;
	}
	mask = ~(~0UL << (tcount * 8));
	return unlikely(!!((a ^ b) & mask));
}

/* raw_seqcount_begin(): the count, then smp_rmb() (a compiler barrier) */
#define db_seq_begin(d)	({ unsigned int __s = READ_ONCE((d)->d_seq); barrier(); __s & ~1U; })

static __always_inline const void *
db_lookup_a(const void *parent_, u64 hash_len, const unsigned char *name)
{
	const struct db_dentry_a *parent = parent_;
	struct hlist_bl_head *b = &db_bl[(u32)hash_len >> (32 - db_bl_shift)];
	struct hlist_bl_node *node;
	struct db_dentry_a *d;

	if (unlikely(READ_ONCE(parent->d_flags) & DCACHE_OP_COMPARE))
		return NULL;
	hlist_bl_for_each_entry_rcu(d, node, b, d_hash) {
		(void)db_seq_begin(d);
		if (d->d_parent != parent)
			continue;
		/* d_unhashed() */
		if (!READ_ONCE(d->d_hash.pprev))
			continue;
		if (d->d_name.hash_len != hash_len)
			continue;
		if (db_string_cmp(READ_ONCE(d->name), name, hash_len >> 32))
			continue;
		return d;
	}
	return NULL;
}

static __always_inline const void *
db_lookup_b(const void *parent_, u64 hash_len, const unsigned char *name)
{
	const struct db_dentry_b *parent = parent_;
	struct db_dentry_b *d;
	struct rbh_iter iter;

	if (unlikely(READ_ONCE(parent->d_flags) & DCACHE_OP_COMPARE))
		return NULL;
	rbh_for_each_possible(d, &iter, &db_rbh, (u32)hash_len) {
		(void)db_seq_begin(d);
		if (d->d_parent != parent)
			continue;
		/* d_unhashed(): the series' DCACHE_HASHED */
		if (!(READ_ONCE(d->d_flags) & DCACHE_HASHED))
			continue;
		if (d->d_name.hash_len != hash_len)
			continue;
		if (db_string_cmp(READ_ONCE(d->name), name, hash_len >> 32))
			continue;
		return d;
	}
	return NULL;
}

typedef const void *(db_lookup_fn)(const void *parent, u64 hash_len,
				   const unsigned char *name);

/* Independent lookups [first, end); returns the wrong results */
static __always_inline unsigned long db_run(db_lookup_fn lookup,
					    const struct db_op *ops,
					    unsigned long first,
					    unsigned long end)
{
	unsigned long i, wrong = 0;

	rcu_read_lock();
	for (i = first; i < end; i++)
		wrong += lookup(ops[i].parent, ops[i].key.hash_len,
				ops[i].name) != ops[i].expect;
	rcu_read_unlock();
	return wrong;
}

/*
 * Path walks [first, end): each component is looked up under the dentry
 * the one before found, by its name's hash salted by that dentry's
 * address, so that where it loads depends on the lookup before.  A wrong
 * result is counted, and its walk goes on from the dentry expected.
 */
static __always_inline unsigned long db_walk(db_lookup_fn lookup, int b,
					     unsigned long first,
					     unsigned long end)
{
	const struct db_name *nm = &db_walk_names[first * DB_DEPTH];
	const unsigned long *id = &db_walk_ids[first * DB_DEPTH];
	unsigned long i, wrong = 0;
	const void *parent, *d;
	unsigned int k;

	rcu_read_lock();
	for (i = first; i < end; i++) {
		parent = db_dentry(b, 0);
		for (k = 0; k < DB_DEPTH; k++, nm++, id++) {
			d = lookup(parent, (u64)nm->len << 32 |
				   db_salted(nm->hash, parent), nm->name);
			if (unlikely(d != db_dentry(b, *id))) {
				wrong++;
				d = db_dentry(b, *id);
			}
			parent = d;
		}
	}
	rcu_read_unlock();
	return wrong;
}

/* The loops of each kernel, the lookup inlined */
static noinline unsigned long db_run_a(const struct db_op *ops,
				       unsigned long first, unsigned long end)
{
	return db_run(db_lookup_a, ops, first, end);
}

static noinline unsigned long db_run_b(const struct db_op *ops,
				       unsigned long first, unsigned long end)
{
	return db_run(db_lookup_b, ops, first, end);
}

static noinline unsigned long db_walk_a(unsigned long first, unsigned long end)
{
	return db_walk(db_lookup_a, 0, first, end);
}

static noinline unsigned long db_walk_b(unsigned long first, unsigned long end)
{
	return db_walk(db_lookup_b, 1, first, end);
}

/*
 * ns per lookup (per component for walks), after an untimed warm-up of
 * the first eighth of the lookups
 */
static double db_time(int b, enum db_workload w)
{
	unsigned long n = w == DB_WALK ? opt.ops / DB_DEPTH : opt.ops;
	unsigned long warm = n / 8, wrong;
	struct timespec start, end;

	wrong = w == DB_WALK ? (b ? db_walk_b(0, warm) : db_walk_a(0, warm)) :
		(b ? db_run_b(db_ops[w][1], 0, warm) :
		     db_run_a(db_ops[w][0], 0, warm));
	clock_gettime(CLOCK_MONOTONIC, &start);
	wrong += w == DB_WALK ? (b ? db_walk_b(warm, n) : db_walk_a(warm, n)) :
		 (b ? db_run_b(db_ops[w][1], warm, n) :
		      db_run_a(db_ops[w][0], warm, n));
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (wrong)
		db_die("%s, %s: %lu wrong lookups\n", b ? "rosebush" : "hlist_bl",
		       db_workload_names[w], wrong);
	return db_elapsed(&start, &end) /
	       ((n - warm) * (w == DB_WALK ? DB_DEPTH : 1));
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

/* Would a dcache of @n dentries take more than half of machine @c? */
static bool db_too_big(unsigned long n, unsigned int c)
{
	return c < DB_NR_MACHINES &&
	       n * DB_SLAB_SHARE(192) > (double)((u64)db_machine_gib[c] << 30) / 2;
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
			struct db_dentry_a *d = db_a[i];
			struct hlist_bl_head *b = &db_bl[d->d_name.hash >>
							 (32 - db_bl_shift)];

			hlist_bl_lock(b);
			hlist_bl_add_head_rcu(&d->d_hash, b);
			hlist_bl_unlock(b);
		}
		return;
	}
	/* As fs/dcache.c's dentry_hash (the gfp flags mean nothing here) */
	rbh_init_flags(&db_rbh, RBH_ACCOUNT | RBH_RECLAIMABLE);
	for (i = 0; i < db_nr; i++) {
		err = rbh_insert(&db_rbh, db_b[i]->d_name.hash, db_b[i]);
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
			db_a[i]->d_hash.pprev = NULL;
		kvfree(db_bl);
		db_bl = NULL;
		return;
	}
	rbh_destroy(&db_rbh);
	flush_scheduled_work();
}

/* How much of each structure's memory huge pages back, once per size */
static void db_huge_report(unsigned int c)
{
	struct bench_huge h = {};
	char buf[64];

	if (c == DB_ROSEBUSH) {
		bench_slab_huge(&h, RBH_BUCKET_SIZE);
		printf("#   huge pages back the rosebush's bucket slabs: %s\n",
		       bench_huge_str(&h, buf, sizeof(buf)));
		h = (struct bench_huge){};
		bench_pool_huge(&h);
		printf("#   and the dentries of both kernels: %s\n",
		       bench_huge_str(&h, buf, sizeof(buf)));
		return;
	}
	bench_huge_count(&h, db_bl, db_hash_bytes(c));
	printf("#   huge pages back the %s machine's hlist_bl table: %s\n",
	       db_machine_names[c], bench_huge_str(&h, buf, sizeof(buf)));
}

static void db_one(unsigned int size, unsigned int c, unsigned int rep)
{
	unsigned int w;

	if (db_too_big(db_sizes[size], c))
		return;
	db_fill(c);
	if (rep == 0)
		db_huge_report(c);
	for (w = 0; w < DB_NR_WORKLOADS; w++)
		db_ns[size][c][w][rep] = db_time(c == DB_ROSEBUSH, w);
	db_bytes[size][c][rep] = db_hash_bytes(c);
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
	double min[DB_NR_CONFIGS], med[DB_NR_CONFIGS], a, b, d192, d176;
	unsigned int size, c, w;
	FILE *csv = NULL;

	if (opt.csv) {
		csv = fopen(opt.csv, "w");
		if (!csv)
			db_die("cannot write %s\n", opt.csv);
		fprintf(csv, "workload,dentries,machine,hlist_bl_ns,rosebush_ns,speedup\n");
	}
	printf("\n# ns per lookup (walk: per component), min / median of %u runs; B's speedup\n"
	       "# = A ns / B ns, from the medians (above 1: rosebush is faster than hlist_bl\n"
	       "# with its table sized for that machine); '-': a dcache larger than half the machine\n",
	       opt.repeats);
	printf("%-8s %8s  %13s", "workload", "dentries", "B: rosebush");
	for (c = 0; c < DB_NR_MACHINES; c++)
		printf("  %4s: %13s %5s", db_machine_names[c], "A: hlist_bl", "B/A");
	printf("\n");
	for (w = 0; w < DB_NR_WORKLOADS; w++) {
		for (size = 0; size < nr_sizes; size++) {
			db_stat(db_ns[size][DB_ROSEBUSH][w], &min[DB_ROSEBUSH],
				&med[DB_ROSEBUSH]);
			printf("%-8s %8lu  %5.1f / %5.1f", db_workload_names[w],
			       db_sizes[size], min[DB_ROSEBUSH], med[DB_ROSEBUSH]);
			for (c = 0; c < DB_NR_MACHINES; c++) {
				if (db_too_big(db_sizes[size], c)) {
					printf("        %13s %5s", "-", "-");
					continue;
				}
				db_stat(db_ns[size][c][w], &min[c], &med[c]);
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

	d192 = DB_SLAB_SHARE(192);
	d176 = DB_SLAB_SHARE(176);
	printf("\n# memory per dentry in bytes, its share of a slab page included (%.1f bytes for\n"
	       "# 192-byte dentries, %.1f for 176), medians of %u fills: A, 6.12's dentry and\n"
	       "# table; B192, the series' 192-byte dentry, which gives ->d_hash's bytes to the\n"
	       "# inline name, and the rosebush's buckets and table; B176, a 176-byte dentry\n"
	       "# without them and the same rosebush; then A - B192 and A - B176 (positive:\n"
	       "# B saves) for each machine\n", d192, d176, opt.repeats);
	printf("%8s %7s %7s", "dentries", "B192", "B176");
	for (c = 0; c < DB_NR_MACHINES; c++)
		printf("  %4s: %8s %8s %8s", db_machine_names[c], "A", "A-B192", "A-B176");
	printf("\n");
	for (size = 0; size < nr_sizes; size++) {
		db_stat(db_bytes[size][DB_ROSEBUSH], &min[0], &b);
		b /= db_sizes[size];
		printf("%8lu %7.1f %7.1f", db_sizes[size], d192 + b, d176 + b);
		for (c = 0; c < DB_NR_MACHINES; c++) {
			a = d192 + (double)(sizeof(struct hlist_bl_head) <<
					    db_dcache_shift(db_machine_gib[c])) /
				   db_sizes[size];
			printf("        %8.1f %8.1f %8.1f", a, a - d192 - b,
			       a - d176 - b);
		}
		printf("\n");
	}
	/* B's bytes per dentry at the largest size, for the break-even */
	db_stat(db_bytes[nr_sizes - 1][DB_ROSEBUSH], &min[0], &b);
	b /= db_sizes[nr_sizes - 1];
	printf("\n# break-even, from the rosebush's %.1f bytes per dentry at %lu dentries:"
	       " with A's table of T\n# bytes, B192 uses less memory below T / %.1f dentries,"
	       " B176 below T / (%.1f - %.1f)\n", b, db_sizes[nr_sizes - 1], b, b,
	       d192 - d176);
	for (c = 0; c < DB_NR_MACHINES; c++) {
		double t = (double)(sizeof(struct hlist_bl_head) <<
				    db_dcache_shift(db_machine_gib[c]));

		printf("# %4s: table %6.1f MiB; B192 uses less below %9.0f dentries,"
		       " B176 below %9.0f\n", db_machine_names[c], t / (1 << 20),
		       t / b, b > d192 - d176 ? t / (b - (d192 - d176)) : INFINITY);
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
		else if (!strcmp(argv[i], "ops") && val >= 8 * DB_DEPTH &&
			 val <= 1UL << 26)
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
	unsigned long n;

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
	for (size = 0; size < DB_NR_SIZES && db_sizes[size] <= opt.max; size++)
		n = db_sizes[size];
	printf("# memory at %lu dentries, at most: %.0f MiB of dentries for the two kernels,"
	       " %.0f of names and\n# operations, 256 for the largest table\n",
	       n, 2.0 * n * DB_SLAB_SHARE(192) / (1 << 20),
	       ((double)n * (sizeof(struct db_name) + 16) +
		opt.ops * (6 * sizeof(struct db_op) + sizeof(struct db_name) +
			   sizeof(unsigned long))) / (1 << 20));
	for (size = 0; size < DB_NR_SIZES && db_sizes[size] <= opt.max; size++) {
		db_dcache_make(db_sizes[size]);
		db_ops_make(db_sizes[size]);
		printf("# %lu dentries:\n", db_sizes[size]);
		/* Interleaved, so that drift hits every configuration */
		for (rep = 0; rep < opt.repeats; rep++)
			for (c = 0; c < DB_NR_CONFIGS; c++)
				db_one(size, c, rep);
		nr_sizes++;
		fflush(stdout);
	}
	db_print(nr_sizes);

	free(db_a);
	free(db_b);
	free(db_names);
	for (w = 0; w < DB_NR_WORKLOADS; w++) {
		bench_huge_free(db_ops[w][0]);
		bench_huge_free(db_ops[w][1]);
	}
	bench_huge_free(db_walk_names);
	bench_huge_free(db_walk_ids);
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
