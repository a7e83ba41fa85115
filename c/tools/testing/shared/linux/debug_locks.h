/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_DEBUG_LOCKS_H
#define _LINUX_DEBUG_LOCKS_H
/* There is no lockdep here to turn itself off. */
#define debug_locks	1
#endif
