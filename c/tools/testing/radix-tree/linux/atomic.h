/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TOOLS_RADIX_TREE_LINUX_ATOMIC_H
#define _TOOLS_RADIX_TREE_LINUX_ATOMIC_H

#include <urcu/uatomic.h>
#include <linux/types.h>	/* atomic_t */

#define ATOMIC_INIT(i)			{ (i) }
#define atomic_read(v)			uatomic_read(&(v)->counter)
#define atomic_set(v, i)		uatomic_set(&(v)->counter, (i))
#define atomic_inc(v)			uatomic_inc(&(v)->counter)
#define atomic_dec(v)			uatomic_dec(&(v)->counter)
#define atomic_add(i, v)		uatomic_add(&(v)->counter, (i))
#define atomic_add_return(i, v)		uatomic_add_return(&(v)->counter, (i))
#define atomic_inc_return(v)		atomic_add_return(1, v)
#define atomic_dec_return(v)		atomic_add_return(-1, v)
#define atomic_dec_and_test(v)		(atomic_dec_return(v) == 0)

#endif
