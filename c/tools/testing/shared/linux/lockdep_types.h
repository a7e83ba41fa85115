/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_LOCKDEP_TYPES_H
#define _LINUX_LOCKDEP_TYPES_H
#include <linux/lockdep.h>
#endif
