// SPDX-License-Identifier: GPL-2.0
/*
 * bench-slab.c: kmalloc() and kfree() for make bench, in place of
 * tools/lib/slab.c, placing memory as the kernel does.
 *
 * The harness's kmalloc() takes a power-of-two size from
 * posix_memalign(size, size), and glibc puts two such 256-byte blocks at
 * least 512 bytes apart, so that every rosebush bucket's first line falls
 * in the same eighth of the cache's sets.  The kernel's kmalloc-256 packs
 * its objects at a 256-byte stride, and its direct map is mapped with huge
 * pages, where a user-space heap pays a 4-KiB page walk per random access.
 * So here:
 *
 *  - a size up to 4 KiB is rounded up to a power of two (at least 8, as
 *    the smallest kmalloc cache) and taken from that size's cache, which
 *    carves 2-MiB slabs into objects at a stride of the size, the first
 *    object of each slab holding the slab's header; freed objects go on
 *    the cache's LIFO free list, as on a SLUB freelist;
 *  - a larger size (a table) gets a mapping of its own, its object at a
 *    page boundary, 4 KiB after a 2-MiB aligned header;
 *  - every mapping is 2-MiB aligned and madvise(MADV_HUGEPAGE)d, so that
 *    transparent huge pages back it where the kernel allows it
 *    (/sys/kernel/mm/transparent_hugepage/enabled "madvise" or
 *    "always"); bench_slab_report() says how much of it they back, and
 *    bench_huge_count() how much of one structure's memory.
 *
 * bench_slab_mode() selects, before the first allocation, what to compare
 * this with: the same placement on 4-KiB pages (MADV_NOHUGEPAGE), or the
 * harness's own glibc allocations (tools/lib/slab.c's, and objects from
 * aligned_alloc(64)).
 *
 * kfree() finds the header at the 2-MiB boundary below the pointer.  The
 * harness's count of live allocations (kmalloc_nr_allocated) is kept, for
 * its leak check.  Slabs are never given back: as the kernel keeps
 * partial slabs, a later structure of the same size reuses them.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <urcu/uatomic.h>
#include <linux/slab.h>
#include <linux/gfp.h>

#include "bench-slab.h"

int kmalloc_nr_allocated;
int kmalloc_verbose;
int kmalloc_nowait_fails = 1;

#define SLAB_SIZE		(2UL << 20)
#define SLAB_MAGIC		0x51ab51abU
#define LARGE_MAGIC		0x1a26e51aU
#define LARGE_OFFSET		4096UL
#define MIN_SHIFT		3
#define MAX_SHIFT		12
/* Slabs are mapped this many at a time */
#define SLABS_PER_CHUNK		32

struct bench_slab_hdr {
	unsigned int magic;
	unsigned int size;
	size_t map_len;		/* large allocations: the whole mapping */
};

struct bench_slab_cache {
	pthread_mutex_t lock;
	void *free;		/* LIFO list, linked through the objects */
	char *next, *end;	/* the unused rest of the newest slab */
};

static enum bench_alloc alloc_mode = BENCH_ALLOC_SLAB;

void bench_slab_mode(enum bench_alloc mode)
{
	alloc_mode = mode;
}

static struct bench_slab_cache caches[MAX_SHIFT + 1] = {
	[0 ... MAX_SHIFT] = { .lock = PTHREAD_MUTEX_INITIALIZER },
};

static pthread_mutex_t chunk_lock = PTHREAD_MUTEX_INITIALIZER;
static char *chunk_next, *chunk_end;
static unsigned long mapped;	/* bytes mapped, for the report */

/*
 * A 2-MiB aligned mapping of @len bytes (a multiple of 2 MiB), or NULL,
 * on huge pages if @huge.
 */
static void *bench_map_huge(size_t len, bool huge)
{
	size_t over = len + SLAB_SIZE;
	char *p = mmap(NULL, over, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t start, end;
	size_t off;

	if (p == MAP_FAILED)
		return NULL;
	start = ((uintptr_t)p + SLAB_SIZE - 1) & ~(SLAB_SIZE - 1);
	end = start + len;
	if (start != (uintptr_t)p)
		munmap(p, start - (uintptr_t)p);
	if ((uintptr_t)p + over != end)
		munmap((void *)end, (uintptr_t)p + over - end);
	/* Not fatal: without THP the bench runs on 4-KiB pages, and says so */
	madvise((void *)start, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	/*
	 * The kernel's slab and kvmalloc() have every page of their memory
	 * when they hand it out, so fault it in now, not on first use (for
	 * rosebush, often under a spinlock: see rosebush-holds.c).
	 */
	for (off = 0; off < len; off += 4096)
		((volatile char *)start)[off] = 0;
	uatomic_add(&mapped, len);
	return (void *)start;
}

/* The same, on huge pages if the allocation mode says so */
static void *bench_map(size_t len)
{
	return bench_map_huge(len, alloc_mode == BENCH_ALLOC_SLAB);
}

/* Every chunk of slabs, for bench_slab_huge() */
static char *chunk_maps[4096];
static unsigned int nr_chunk_maps;

static char *bench_new_slab(void)
{
	char *slab = NULL;

	pthread_mutex_lock(&chunk_lock);
	if (chunk_next == chunk_end &&
	    nr_chunk_maps < sizeof(chunk_maps) / sizeof(chunk_maps[0])) {
		chunk_next = bench_map(SLABS_PER_CHUNK * SLAB_SIZE);
		chunk_end = chunk_next ? chunk_next + SLABS_PER_CHUNK * SLAB_SIZE : NULL;
		if (chunk_next)
			chunk_maps[nr_chunk_maps++] = chunk_next;
	}
	if (chunk_next) {
		slab = chunk_next;
		chunk_next += SLAB_SIZE;
	}
	pthread_mutex_unlock(&chunk_lock);
	return slab;
}

static void *bench_slab_alloc(unsigned int shift)
{
	struct bench_slab_cache *c = &caches[shift];
	size_t size = 1UL << shift;
	struct bench_slab_hdr *hdr;
	void *p;

	pthread_mutex_lock(&c->lock);
	p = c->free;
	if (p) {
		c->free = *(void **)p;
	} else {
		if (c->next == c->end) {
			char *slab = bench_new_slab();

			if (!slab) {
				pthread_mutex_unlock(&c->lock);
				return NULL;
			}
			hdr = (struct bench_slab_hdr *)slab;
			hdr->magic = SLAB_MAGIC;
			hdr->size = size;
			/* The header takes the first object, or 16 bytes of it */
			c->next = slab + (size < sizeof(*hdr) ?
					  sizeof(*hdr) : size);
			c->end = slab + SLAB_SIZE;
		}
		p = c->next;
		c->next += size;
	}
	pthread_mutex_unlock(&c->lock);
	return p;
}

static void *bench_large_alloc(size_t size, bool huge)
{
	size_t len = (size + LARGE_OFFSET + SLAB_SIZE - 1) & ~(SLAB_SIZE - 1);
	struct bench_slab_hdr *hdr = bench_map_huge(len, huge);

	if (!hdr)
		return NULL;
	hdr->magic = LARGE_MAGIC;
	hdr->size = 0;
	hdr->map_len = len;
	return (char *)hdr + LARGE_OFFSET;
}

/*
 * Memory of the benchmark's own (its operations), on huge pages whatever
 * the allocation mode, zeroed; bench_huge_free() frees it.
 */
void *bench_huge_alloc(size_t size)
{
	return bench_large_alloc(size, true);
}

void bench_huge_free(void *p)
{
	struct bench_slab_hdr *hdr = (void *)((char *)p - LARGE_OFFSET);

	if (!p)
		return;
	uatomic_sub(&mapped, hdr->map_len);
	munmap(hdr, hdr->map_len);
}

void *kmalloc(size_t size, gfp_t gfp)
{
	unsigned int shift = MIN_SHIFT;
	void *ret;

	if (!(gfp & __GFP_DIRECT_RECLAIM) && kmalloc_nowait_fails)
		return NULL;
	if (alloc_mode == BENCH_ALLOC_GLIBC) {
		/* tools/lib/slab.c's */
		if (size >= 2 * sizeof(void *) && !(size & (size - 1))) {
			if (posix_memalign(&ret, size < 4096 ? size : 4096, size))
				ret = NULL;
		} else {
			ret = malloc(size);
		}
	} else if (size <= 1UL << MAX_SHIFT) {
		while ((1UL << shift) < size)
			shift++;
		ret = bench_slab_alloc(shift);
	} else {
		ret = bench_large_alloc(size, alloc_mode == BENCH_ALLOC_SLAB);
	}
	if (!ret)
		return NULL;
	uatomic_inc(&kmalloc_nr_allocated);
	if (gfp & __GFP_ZERO)
		memset(ret, 0, size);
	return ret;
}

void kfree(void *p)
{
	struct bench_slab_hdr *hdr;
	struct bench_slab_cache *c;
	unsigned int shift;

	if (!p)
		return;
	uatomic_dec(&kmalloc_nr_allocated);
	if (alloc_mode == BENCH_ALLOC_GLIBC) {
		free(p);
		return;
	}
	hdr = (void *)((uintptr_t)p & ~(SLAB_SIZE - 1));
	if (hdr->magic == LARGE_MAGIC && (char *)p == (char *)hdr + LARGE_OFFSET) {
		uatomic_sub(&mapped, hdr->map_len);
		munmap(hdr, hdr->map_len);
		return;
	}
	if (hdr->magic != SLAB_MAGIC) {
		fprintf(stderr, "bench-slab: kfree(%p): not allocated here\n", p);
		abort();
	}
	shift = __builtin_ctz(hdr->size);
	c = &caches[shift];
	pthread_mutex_lock(&c->lock);
	*(void **)p = c->free;
	c->free = p;
	pthread_mutex_unlock(&c->lock);
}

/*
 * A pool of 64-byte aligned objects, as a SLAB_HWCACHE_ALIGN kmem_cache
 * gives them, handed out in order from huge-page mappings and never freed
 * one by one: bench_pool_free_all() unmaps them.
 */
static char *pool_next, *pool_end;
static void *pool_maps[4096];
static unsigned int pool_nr_maps;
#define POOL_CHUNK		(64UL << 20)

static void **glibc_objs;
static size_t glibc_nr_objs, glibc_max_objs;

void *bench_pool_alloc(size_t size)
{
	void *p;

	size = (size + 63) & ~63UL;
	if (alloc_mode == BENCH_ALLOC_GLIBC) {
		if (glibc_nr_objs == glibc_max_objs) {
			glibc_max_objs = glibc_max_objs * 2 ?: 1024;
			glibc_objs = realloc(glibc_objs, glibc_max_objs * sizeof(*glibc_objs));
			if (!glibc_objs)
				return NULL;
		}
		p = aligned_alloc(64, size);
		if (p)
			glibc_objs[glibc_nr_objs++] = p;
		return p;
	}
	if (pool_next + size > pool_end) {
		if (pool_nr_maps == sizeof(pool_maps) / sizeof(pool_maps[0]))
			return NULL;
		pool_next = bench_map(POOL_CHUNK);
		if (!pool_next)
			return NULL;
		pool_maps[pool_nr_maps++] = pool_next;
		pool_end = pool_next + POOL_CHUNK;
	}
	p = pool_next;
	pool_next += size;
	return p;
}

void bench_pool_free_all(void)
{
	while (glibc_nr_objs)
		free(glibc_objs[--glibc_nr_objs]);
	free(glibc_objs);
	glibc_objs = NULL;
	glibc_max_objs = 0;
	while (pool_nr_maps) {
		munmap(pool_maps[--pool_nr_maps], POOL_CHUNK);
		uatomic_sub(&mapped, POOL_CHUNK);
	}
	pool_next = pool_end = NULL;
}

/*
 * Count into @h the 4-KiB pages of [@addr, @addr + @len) that are
 * resident and, of those, the ones a transparent huge page backs, from
 * /proc/self/pagemap (bit 63: present; bits 0-54: the page frame) and
 * /proc/kpageflags (bit 22: KPF_THP).  Both need CAP_SYS_ADMIN for the
 * frames: without it, h->ok stays false.
 */
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN		((1ULL << 55) - 1)
#define KPF_THP		22

void bench_huge_count(struct bench_huge *h, const void *addr, size_t len)
{
	static int pagemap = -1, kpageflags = -1;
	uintptr_t page = (uintptr_t)addr & ~4095UL;
	uint64_t entry, flags;

	if (pagemap < 0)
		pagemap = open("/proc/self/pagemap", O_RDONLY);
	if (kpageflags < 0)
		kpageflags = open("/proc/kpageflags", O_RDONLY);
	if (pagemap < 0 || kpageflags < 0)
		return;
	for (; page < (uintptr_t)addr + len; page += 4096) {
		if (pread(pagemap, &entry, sizeof(entry),
			  page / 4096 * sizeof(entry)) != sizeof(entry))
			return;
		if (!(entry & PM_PRESENT))
			continue;
		/* A frame of 0 means that the frames are hidden from us */
		if (!(entry & PM_PFN))
			return;
		if (pread(kpageflags, &flags, sizeof(flags),
			  (entry & PM_PFN) * sizeof(flags)) != sizeof(flags))
			return;
		h->ok = true;
		h->resident++;
		h->huge += (flags >> KPF_THP) & 1;
	}
}

/* The same for every slab of the kmalloc cache of @size bytes */
void bench_slab_huge(struct bench_huge *h, size_t size)
{
	unsigned int i, j;

	for (i = 0; i < nr_chunk_maps; i++)
		for (j = 0; j < SLABS_PER_CHUNK; j++) {
			char *slab = chunk_maps[i] + j * SLAB_SIZE;
			struct bench_slab_hdr *hdr = (void *)slab;

			if (hdr->magic == SLAB_MAGIC && hdr->size == size)
				bench_huge_count(h, slab, SLAB_SIZE);
		}
}

/* The same for the pool of objects */
void bench_pool_huge(struct bench_huge *h)
{
	unsigned int i;

	for (i = 0; i < pool_nr_maps; i++)
		bench_huge_count(h, pool_maps[i], POOL_CHUNK);
}

/* "N% of M MiB", or why not, for a report line */
const char *bench_huge_str(const struct bench_huge *h, char *buf, size_t len)
{
	if (!h->ok)
		snprintf(buf, len, "unknown (no /proc/kpageflags)");
	else if (h->resident < 256)
		snprintf(buf, len, "%.0f%% of %lu KiB",
			 h->resident ? 100.0 * h->huge / h->resident : 0.0,
			 h->resident * 4);
	else
		snprintf(buf, len, "%.0f%% of %.1f MiB",
			 100.0 * h->huge / h->resident,
			 h->resident * 4096.0 / (1 << 20));
	return buf;
}

/* How much of what is mapped here is backed by huge pages, in /proc/self */
void bench_slab_report(FILE *f)
{
	char line[256], thp[128] = "unknown";
	unsigned long anon_huge = 0, rss = 0;
	FILE *s = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (s) {
		if (fgets(thp, sizeof(thp), s))
			thp[strcspn(thp, "\n")] = '\0';
		fclose(s);
	}
	s = fopen("/proc/self/smaps_rollup", "r");
	if (s) {
		while (fgets(line, sizeof(line), s)) {
			sscanf(line, "AnonHugePages: %lu kB", &anon_huge);
			sscanf(line, "Rss: %lu kB", &rss);
		}
		fclose(s);
	}
	fprintf(f, "# memory (alloc=%s, THP %s): %lu MiB mapped, %lu of %lu MiB resident in huge pages\n",
		bench_alloc_names[alloc_mode], thp, uatomic_read(&mapped) >> 20,
		anon_huge >> 10, rss >> 10);
}
