/* SPDX-License-Identifier: GPL-2.0 */
/* The benchmark's allocator: see bench-slab.c. */
#ifndef _BENCH_SLAB_H
#define _BENCH_SLAB_H

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

void bench_slab_mode(enum bench_alloc mode);
void *bench_pool_alloc(size_t size);
void bench_pool_free_all(void);
void bench_slab_report(FILE *f);

#endif /* _BENCH_SLAB_H */
