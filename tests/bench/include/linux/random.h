/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for the kernel's <linux/random.h>, for lib/rhashtable.c in
 * tests/bench, which draws each bucket table's hash seed from it.
 */
#ifndef _BENCH_LINUX_RANDOM_H
#define _BENCH_LINUX_RANDOM_H

#include <stdlib.h>
#include <linux/types.h>

/* random() is thread-safe in glibc, and good enough for a seed. */
static inline u32 get_random_u32(void)
{
	return ((u32)random() << 16) ^ (u32)random();
}

#endif /* _BENCH_LINUX_RANDOM_H */
