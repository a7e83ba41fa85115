/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for the kernel's <linux/vmalloc.h>, for lib/rhashtable.c in
 * tests/bench.  It also provides the _noprof allocators that the kernel's
 * <linux/slab.h> declares and tools/include/linux/slab.h lacks: they go to
 * the harness's kmalloc(), which counts them like any other allocation.
 */
#ifndef _BENCH_LINUX_VMALLOC_H
#define _BENCH_LINUX_VMALLOC_H

#include <linux/slab.h>

#define kmalloc_noprof(size, gfp)		kmalloc(size, gfp)
#define kvmalloc_node_noprof(size, gfp, node)	kvmalloc(size, gfp)

#endif /* _BENCH_LINUX_VMALLOC_H */
