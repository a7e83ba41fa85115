/* SPDX-License-Identifier: GPL-2.0 */
/* The CPUs a test's threads can run on are the machine's. */
#ifndef _TOOLS_SHARED_LINUX_CPUMASK_H
#define _TOOLS_SHARED_LINUX_CPUMASK_H

#include <unistd.h>

#define num_online_cpus()	((unsigned int)sysconf(_SC_NPROCESSORS_ONLN))

#endif /* _TOOLS_SHARED_LINUX_CPUMASK_H */
