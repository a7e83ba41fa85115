/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TOOLS_SHARED_LINUX_WORKQUEUE_TYPES_H
#define _TOOLS_SHARED_LINUX_WORKQUEUE_TYPES_H

#include <stdbool.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
	/* private: under the workqueue's lock */
	struct work_struct *next;
	bool pending;
	unsigned int disabled;
};

#endif
