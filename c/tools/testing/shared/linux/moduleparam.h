/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameters, settable from the command line as name=value or
 * module.name=value: see parse_module_params().
 */
#ifndef _TOOLS_SHARED_LINUX_MODULEPARAM_H
#define _TOOLS_SHARED_LINUX_MODULEPARAM_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct kernel_param {
	const char *name;
	void *arg;
	int (*set)(const char *val, void *arg);
	struct kernel_param *next;
};

static struct kernel_param *__module_params;

static inline int param_set_ulong(const char *val, void *arg)
{
	char *end;

	*(unsigned long *)arg = strtoul(val, &end, 0);
	return *end ? -1 : 0;
}

static inline int param_set_uint(const char *val, void *arg)
{
	char *end;

	*(unsigned int *)arg = strtoul(val, &end, 0);
	return *end ? -1 : 0;
}

static inline int param_set_int(const char *val, void *arg)
{
	char *end;

	*(int *)arg = strtol(val, &end, 0);
	return *end ? -1 : 0;
}

static inline int param_set_bool(const char *val, void *arg)
{
	*(bool *)arg = !strcmp(val, "1") || !strcmp(val, "y") ||
		       !strcmp(val, "Y") || !strcmp(val, "true");
	return 0;
}

#undef module_param
#define module_param_named(_name, _value, _type, _perm)		\
	static struct kernel_param __param_##_name = {			\
		.name = #_name, .arg = &(_value), .set = param_set_##_type, \
	};								\
	__attribute__((constructor)) static void __param_reg_##_name(void) \
	{								\
		__param_##_name.next = __module_params;			\
		__module_params = &__param_##_name;			\
	}
#define module_param(name, type, perm)	module_param_named(name, name, type, perm)
#define MODULE_PARM_DESC(name, desc)

/*
 * Set the parameter named by @arg ("name=value" or "module.name=value").
 * Return 0 if it was one, 1 if @arg is not a parameter, -1 if bad.
 */
static inline int parse_module_param(const char *arg)
{
	const char *eq = strchr(arg, '='), *name = arg, *dot;
	struct kernel_param *kp;

	if (!eq)
		return 1;
	dot = memchr(arg, '.', eq - arg);
	if (dot)
		name = dot + 1;
	for (kp = __module_params; kp; kp = kp->next) {
		if (strlen(kp->name) == (size_t)(eq - name) &&
		    !strncmp(kp->name, name, eq - name))
			return kp->set(eq + 1, kp->arg) ? -1 : 0;
	}
	return 1;
}

#endif
