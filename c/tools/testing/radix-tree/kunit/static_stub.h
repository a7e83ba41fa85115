/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <kunit/static_stub.h>.  As in the kernel, a stub applies only
 * in the thread running the test that activated it: other threads (work
 * items, kthreads) call the real function.
 */
#ifndef _TOOLS_KUNIT_STATIC_STUB_H
#define _TOOLS_KUNIT_STATIC_STUB_H

#if !IS_ENABLED(CONFIG_KUNIT)

/* As in the kernel, the stubs cost nothing without KUnit. */
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) do {} while (0)

#else

#include <kunit/test.h>

static inline void *__kunit_static_stub_lookup(struct kunit *test,
					       void *real_fn)
{
	unsigned int i;

	for (i = 0; i < KUNIT_MAX_STUBS; i++)
		if (test->stubs[i].real_fn == real_fn)
			return test->stubs[i].replacement;
	return NULL;
}

#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...)		\
	do {								\
		typeof(&real_fn_name) __replacement;			\
		struct kunit *__test = kunit_get_current_test();	\
									\
		if (likely(!__test))					\
			break;						\
		__replacement = __kunit_static_stub_lookup(__test,	\
					(void *)&real_fn_name);		\
		if (unlikely(__replacement))				\
			return __replacement(args);			\
	} while (0)

static inline void __kunit_activate_static_stub(struct kunit *test,
						void *real_fn_addr,
						void *replacement_addr)
{
	unsigned int i, free = KUNIT_MAX_STUBS;

	KUNIT_ASSERT_NOT_NULL_MSG(test, real_fn_addr,
				  "Tried to activate a stub for function NULL");
	for (i = 0; i < KUNIT_MAX_STUBS; i++) {
		if (test->stubs[i].real_fn == real_fn_addr) {
			if (replacement_addr)
				test->stubs[i].replacement = replacement_addr;
			else
				test->stubs[i].real_fn = NULL;
			return;
		}
		if (!test->stubs[i].real_fn && free == KUNIT_MAX_STUBS)
			free = i;
	}
	/* As in the kernel, deactivating a stub twice is a test bug */
	KUNIT_ASSERT_NOT_NULL_MSG(test, replacement_addr,
				  "Tried to deactivate a nonexistent stub.");
	KUNIT_ASSERT_LT_MSG(test, free, KUNIT_MAX_STUBS,
			    "too many static stubs");
	test->stubs[free].real_fn = real_fn_addr;
	test->stubs[free].replacement = replacement_addr;
}

#define kunit_activate_static_stub(test, real_fn_addr, replacement_addr) \
	do {								\
		typeof(&(real_fn_addr)) __check = (replacement_addr);	\
		__kunit_activate_static_stub(test, (void *)(real_fn_addr), \
					     (void *)__check);		\
	} while (0)

static inline void kunit_deactivate_static_stub(struct kunit *test,
						void *real_fn_addr)
{
	__kunit_activate_static_stub(test, real_fn_addr, NULL);
}

#endif /* IS_ENABLED(CONFIG_KUNIT) */

#endif /* _TOOLS_KUNIT_STATIC_STUB_H */
