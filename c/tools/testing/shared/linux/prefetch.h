/* SPDX-License-Identifier: GPL-2.0 */
/* prefetch() and prefetchw() hint the CPU, as the kernel's do. */
#ifndef _TOOLS_SHARED_LINUX_PREFETCH_H
#define _TOOLS_SHARED_LINUX_PREFETCH_H

#define prefetch(x)	__builtin_prefetch(x)
#define prefetchw(x)	__builtin_prefetch(x, 1)

#endif /* _TOOLS_SHARED_LINUX_PREFETCH_H */
