/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for the kernel's <linux/alloc_tag.h>, for lib/rhashtable.c in
 * tests/bench: memory allocation profiling is off, as in a kernel built
 * without CONFIG_MEM_ALLOC_PROFILING.
 */
#ifndef _BENCH_LINUX_ALLOC_TAG_H
#define _BENCH_LINUX_ALLOC_TAG_H

#define alloc_hooks(_do_alloc)			(_do_alloc)
#define alloc_hooks_tag(_tag, _do_alloc)	(_do_alloc)
#define alloc_tag_record(p)			do {} while (0)

#endif /* _BENCH_LINUX_ALLOC_TAG_H */
