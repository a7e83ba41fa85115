/* SPDX-License-Identifier: GPL-2.0 */
/* The benchmark's allocator: see bench-slab.c. */
#ifndef _BENCH_SLAB_H
#define _BENCH_SLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bench_alloc {
	BENCH_ALLOC_SLAB,	/* slab placement, huge pages: the default */
	BENCH_ALLOC_SLAB_4K,	/* slab placement, 4-KiB pages */
	BENCH_ALLOC_GLIBC,	/* the harness's: glibc's placement, 4-KiB pages */
};

static const char *const bench_alloc_names[] = {
	[BENCH_ALLOC_SLAB] = "slab",
	[BENCH_ALLOC_SLAB_4K] = "slab-4k",
	[BENCH_ALLOC_GLIBC] = "glibc",
};

/* Resident 4-KiB pages of some memory, and those on huge pages */
struct bench_huge {
	unsigned long resident;
	unsigned long huge;
	bool ok;		/* the page flags could be read */
};

void bench_slab_mode(enum bench_alloc mode);
void *bench_pool_alloc(size_t size);
void bench_pool_free_all(void);
void *bench_huge_alloc(size_t size);
void bench_huge_free(void *p);
void bench_slab_report(FILE *f);
void bench_huge_count(struct bench_huge *h, const void *addr, size_t len);
void bench_slab_huge(struct bench_huge *h, size_t size);
void bench_pool_huge(struct bench_huge *h);
const char *bench_huge_str(const struct bench_huge *h, char *buf, size_t len);

#endif /* _BENCH_SLAB_H */
