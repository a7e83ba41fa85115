/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A userspace KUnit: enough of <kunit/test.h> to run a suite written for
 * the kernel, unchanged, in tools/testing/radix-tree.
 *
 * As in the kernel, a failed KUNIT_EXPECT_*() marks the case failed and the
 * case goes on; a failed KUNIT_ASSERT_*() ends the case (with longjmp(),
 * where the kernel ends the case's kthread), after which the deferred
 * actions of the case run.  Results are printed in KTAP.  kunit_run_suites()
 * returns non-zero if any case failed.
 *
 * Everything is in this header: it is meant to be included by exactly one
 * file, the one that also #includes the code under test and its suite.
 */
#ifndef _TOOLS_KUNIT_TEST_H
#define _TOOLS_KUNIT_TEST_H

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/types.h>

#define KUNIT_PARAM_DESC_SIZE	128
#define KUNIT_MAX_SUITES	8
#define KUNIT_MAX_STUBS		16

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

enum kunit_speed {
	KUNIT_SPEED_UNSET,
	KUNIT_SPEED_VERY_SLOW,
	KUNIT_SPEED_SLOW,
	KUNIT_SPEED_NORMAL,
};

struct kunit_attributes {
	enum kunit_speed speed;
};

struct kunit;
typedef void (kunit_action_t)(void *);

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
	struct kunit_attributes attr;
};

#define KUNIT_CASE(test_name)						\
	{ .run_case = test_name, .name = #test_name }
#define KUNIT_CASE_ATTR(test_name, attributes)				\
	{ .run_case = test_name, .name = #test_name, .attr = attributes }
#define KUNIT_CASE_SLOW(test_name)					\
	{ .run_case = test_name, .name = #test_name,			\
	  .attr.speed = KUNIT_SPEED_SLOW }
#define KUNIT_CASE_PARAM(test_name, gen_params)				\
	{ .run_case = test_name, .name = #test_name,			\
	  .generate_params = gen_params }
#define KUNIT_CASE_PARAM_ATTR(test_name, gen_params, attributes)	\
	{ .run_case = test_name, .name = #test_name,			\
	  .generate_params = gen_params, .attr = attributes }

struct kunit_suite {
	const char *name;
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

/* A deferred action: run when the case ends, last added first. */
struct kunit_action_entry {
	kunit_action_t *action;
	void *ctx;
	struct kunit_action_entry *next;
};

/* A static stub redirected for this test, in this thread only. */
struct kunit_static_stub {
	void *real_fn;
	void *replacement;
};

struct kunit {
	void *priv;
	const char *name;		/* the case's name */
	const void *param_value;
	int param_index;
	enum kunit_status status;
	char status_comment[256];
	/* private: */
	struct kunit_action_entry *actions;
	struct kunit_static_stub stubs[KUNIT_MAX_STUBS];
	pthread_t thread;		/* the thread running the case */
	const char *indent;
	jmp_buf abort;
};

/* The test this thread runs, as the kernel's current->kunit_test. */
static __thread struct kunit *kunit_current_test_ptr;

static inline struct kunit *kunit_get_current_test(void)
{
	return kunit_current_test_ptr;
}

/* Messages */

#define kunit_printk(lvl, test, fmt, ...)				\
	printf("%s# %s: " fmt, (test)->indent, (test)->name, ##__VA_ARGS__)
#define kunit_info(test, fmt, ...)	kunit_printk(INFO, test, fmt, ##__VA_ARGS__)
#define kunit_warn(test, fmt, ...)	kunit_printk(WARN, test, fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...)	kunit_printk(ERR, test, fmt, ##__VA_ARGS__)
#define kunit_log(lvl, test, fmt, ...)	kunit_printk(lvl, test, fmt, ##__VA_ARGS__)

/* Failures */

enum kunit_assert_type {
	KUNIT_ASSERTION,
	KUNIT_EXPECTATION,
};

static inline void __kunit_fail_begin(struct kunit *test, const char *file,
				      int line, enum kunit_assert_type type)
{
	if (!test) {
		fprintf(stderr, "KUnit check failed outside a test at %s:%d\n",
			file, line);
		abort();
	}
	if (!pthread_equal(pthread_self(), test->thread)) {
		/* The kernel would end the wrong kthread: catch it here. */
		fprintf(stderr, "%s# %s: KUnit check failed in a thread other than the test's at %s:%d\n",
			test->indent, test->name, file, line);
		abort();
	}
	test->status = KUNIT_FAILURE;
	printf("%s# %s: %s FAILED at %s:%d\n", test->indent, test->name,
	       type == KUNIT_ASSERTION ? "ASSERTION" : "EXPECTATION",
	       file, line);
}

/* The message of a _MSG check, or nothing for fmt == NULL. */
static inline void __kunit_fail_msg(struct kunit *test, const char *fmt, ...)
{
	va_list args;

	if (!fmt)
		return;
	printf("%s", test->indent);
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	if (!*fmt || fmt[strlen(fmt) - 1] != '\n')
		printf("\n");
}

static inline void __kunit_fail_end(struct kunit *test,
				    enum kunit_assert_type type)
{
	fflush(stdout);
	if (type == KUNIT_ASSERTION)
		longjmp(test->abort, 1);
}

#define KUNIT_FAILED_CHECK(test, type, fmt, ...)			\
	do {								\
		__kunit_fail_msg(test, fmt, ##__VA_ARGS__);		\
		__kunit_fail_end(test, type);				\
	} while (0)

#define KUNIT_FAIL_ASSERTION(test, type, fmt, ...)			\
	do {								\
		__kunit_fail_begin(test, __FILE__, __LINE__, type);	\
		KUNIT_FAILED_CHECK(test, type, fmt, ##__VA_ARGS__);	\
	} while (0)

#define KUNIT_FAIL(test, fmt, ...)					\
	KUNIT_FAIL_ASSERTION(test, KUNIT_EXPECTATION, fmt, ##__VA_ARGS__)
#define KUNIT_FAIL_AND_ABORT(test, fmt, ...)				\
	KUNIT_FAIL_ASSERTION(test, KUNIT_ASSERTION, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_FAILURE(test, fmt, ...)				\
	KUNIT_FAIL_AND_ABORT(test, fmt, ##__VA_ARGS__)

#define KUNIT_UNARY_ASSERTION(test, type, condition, expected_true, fmt, ...) \
	do {								\
		if (likely(!!(condition) == !!(expected_true)))		\
			break;						\
		__kunit_fail_begin(test, __FILE__, __LINE__, type);	\
		printf("%sExpected %s to be %s, but is not\n",		\
		       (test)->indent, #condition,			\
		       (expected_true) ? "true" : "false");		\
		KUNIT_FAILED_CHECK(test, type, fmt, ##__VA_ARGS__);	\
	} while (0)

#define KUNIT_BINARY_INT_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const typeof(left) __left = (left);			\
		const typeof(right) __right = (right);			\
									\
		if (likely(__left op __right))				\
			break;						\
		__kunit_fail_begin(test, __FILE__, __LINE__, type);	\
		printf("%sExpected %s %s %s, but\n", (test)->indent,	\
		       #left, #op, #right);				\
		printf("%s    %s == %lld (%#llx)\n", (test)->indent,	\
		       #left, (long long)__left,			\
		       (unsigned long long)__left);			\
		printf("%s    %s == %lld (%#llx)\n", (test)->indent,	\
		       #right, (long long)__right,			\
		       (unsigned long long)__right);			\
		KUNIT_FAILED_CHECK(test, type, fmt, ##__VA_ARGS__);	\
	} while (0)

#define KUNIT_BINARY_PTR_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const void *__left = (left);				\
		const void *__right = (right);				\
									\
		if (likely(__left op __right))				\
			break;						\
		__kunit_fail_begin(test, __FILE__, __LINE__, type);	\
		printf("%sExpected %s %s %s, but\n", (test)->indent,	\
		       #left, #op, #right);				\
		printf("%s    %s == %p\n", (test)->indent, #left, __left); \
		printf("%s    %s == %p\n", (test)->indent, #right, __right); \
		KUNIT_FAILED_CHECK(test, type, fmt, ##__VA_ARGS__);	\
	} while (0)

#define KUNIT_BINARY_STR_ASSERTION(test, type, left, op, right, fmt, ...) \
	do {								\
		const char *__left = (left);				\
		const char *__right = (right);				\
									\
		if (likely(strcmp(__left, __right) op 0))		\
			break;						\
		__kunit_fail_begin(test, __FILE__, __LINE__, type);	\
		printf("%sExpected %s %s %s, but\n", (test)->indent,	\
		       #left, #op, #right);				\
		printf("%s    %s == \"%s\"\n", (test)->indent, #left, __left); \
		printf("%s    %s == \"%s\"\n", (test)->indent, #right, __right); \
		KUNIT_FAILED_CHECK(test, type, fmt, ##__VA_ARGS__);	\
	} while (0)

#define KUNIT_PTR_NOT_ERR_OR_NULL_ASSERTION(test, type, ptr, fmt, ...)	\
	do {								\
		const void *__ptr = (ptr);				\
									\
		if (likely(!IS_ERR_OR_NULL(__ptr)))			\
			break;						\
		__kunit_fail_begin(test, __FILE__, __LINE__, type);	\
		printf("%sExpected %s is not error or NULL, but is %p\n", \
		       (test)->indent, #ptr, __ptr);			\
		KUNIT_FAILED_CHECK(test, type, fmt, ##__VA_ARGS__);	\
	} while (0)

/* Expectations: the case goes on after a failure. */
#define KUNIT_EXPECT_TRUE(test, c)	KUNIT_EXPECT_TRUE_MSG(test, c, NULL)
#define KUNIT_EXPECT_TRUE_MSG(test, c, fmt, ...)			\
	KUNIT_UNARY_ASSERTION(test, KUNIT_EXPECTATION, c, true, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE(test, c)	KUNIT_EXPECT_FALSE_MSG(test, c, NULL)
#define KUNIT_EXPECT_FALSE_MSG(test, c, fmt, ...)			\
	KUNIT_UNARY_ASSERTION(test, KUNIT_EXPECTATION, c, false, fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_EQ(test, l, r)	KUNIT_EXPECT_EQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NE(test, l, r)	KUNIT_EXPECT_NE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LT(test, l, r)	KUNIT_EXPECT_LT_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_LT_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, <, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE(test, l, r)	KUNIT_EXPECT_LE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_LE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT(test, l, r)	KUNIT_EXPECT_GT_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_GT_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, >, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE(test, l, r)	KUNIT_EXPECT_GE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_GE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, >=, r, fmt, ##__VA_ARGS__)

#define KUNIT_EXPECT_PTR_EQ(test, l, r)	KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_NE(test, l, r)	KUNIT_EXPECT_PTR_NE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_PTR_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NULL(test, p)	KUNIT_EXPECT_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, p, ==, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL(test, p)	KUNIT_EXPECT_NOT_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_NOT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, p, !=, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_ERR_OR_NULL(test, p)				\
	KUNIT_EXPECT_NOT_ERR_OR_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_NOT_ERR_OR_NULL_MSG(test, p, fmt, ...)		\
	KUNIT_PTR_NOT_ERR_OR_NULL_ASSERTION(test, KUNIT_EXPECTATION, p, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ(test, l, r)	KUNIT_EXPECT_STREQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_STREQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STRNEQ(test, l, r)	KUNIT_EXPECT_STRNEQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_STRNEQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)

/* Assertions: a failure ends the case. */
#define KUNIT_ASSERT_TRUE(test, c)	KUNIT_ASSERT_TRUE_MSG(test, c, NULL)
#define KUNIT_ASSERT_TRUE_MSG(test, c, fmt, ...)			\
	KUNIT_UNARY_ASSERTION(test, KUNIT_ASSERTION, c, true, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE(test, c)	KUNIT_ASSERT_FALSE_MSG(test, c, NULL)
#define KUNIT_ASSERT_FALSE_MSG(test, c, fmt, ...)			\
	KUNIT_UNARY_ASSERTION(test, KUNIT_ASSERTION, c, false, fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_EQ(test, l, r)	KUNIT_ASSERT_EQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NE(test, l, r)	KUNIT_ASSERT_NE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LT(test, l, r)	KUNIT_ASSERT_LT_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_LT_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, <, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE(test, l, r)	KUNIT_ASSERT_LE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_LE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GT(test, l, r)	KUNIT_ASSERT_GT_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_GT_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, >, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE(test, l, r)	KUNIT_ASSERT_GE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_GE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, >=, r, fmt, ##__VA_ARGS__)

#define KUNIT_ASSERT_PTR_EQ(test, l, r)	KUNIT_ASSERT_PTR_EQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_PTR_EQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_NE(test, l, r)	KUNIT_ASSERT_PTR_NE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_PTR_NE_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NULL(test, p)	KUNIT_ASSERT_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, p, ==, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL(test, p)	KUNIT_ASSERT_NOT_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_NOT_NULL_MSG(test, p, fmt, ...)			\
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, p, !=, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p)				\
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, p, fmt, ...)		\
	KUNIT_PTR_NOT_ERR_OR_NULL_ASSERTION(test, KUNIT_ASSERTION, p, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_STREQ(test, l, r)	KUNIT_ASSERT_STREQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_STREQ_MSG(test, l, r, fmt, ...)			\
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)

/* Skipping */

static inline void kunit_mark_skipped(struct kunit *test, const char *fmt, ...)
{
	va_list args;

	test->status = KUNIT_SKIPPED;
	va_start(args, fmt);
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, args);
	va_end(args);
}

#define kunit_skip(test, fmt, ...)					\
	do {								\
		kunit_mark_skipped(test, fmt, ##__VA_ARGS__);		\
		longjmp((test)->abort, 2);				\
	} while (0)

/* Deferred actions and managed memory */

static inline int kunit_add_action(struct kunit *test, kunit_action_t *action,
				   void *ctx)
{
	/* Bookkeeping of the harness: not counted as a kernel allocation */
	struct kunit_action_entry *entry = malloc(sizeof(*entry));

	if (!entry)
		return -ENOMEM;
	entry->action = action;
	entry->ctx = ctx;
	entry->next = test->actions;
	test->actions = entry;
	return 0;
}

static inline int kunit_add_action_or_reset(struct kunit *test,
					    kunit_action_t *action, void *ctx)
{
	int err = kunit_add_action(test, action, ctx);

	if (err)
		action(ctx);
	return err;
}

/* Unlink the most recently added matching action; NULL if there is none */
static inline struct kunit_action_entry *
__kunit_find_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	struct kunit_action_entry **pp, *entry;

	for (pp = &test->actions; (entry = *pp); pp = &entry->next) {
		if (entry->action == action && entry->ctx == ctx) {
			*pp = entry->next;
			return entry;
		}
	}
	return NULL;
}

static inline void kunit_remove_action(struct kunit *test,
				       kunit_action_t *action, void *ctx)
{
	free(__kunit_find_action(test, action, ctx));
}

static inline void kunit_release_action(struct kunit *test,
					kunit_action_t *action, void *ctx)
{
	struct kunit_action_entry *entry = __kunit_find_action(test, action,
								  ctx);

	if (!entry)
		return;
	free(entry);
	action(ctx);
}

#define KUNIT_DEFINE_ACTION_WRAPPER(wrapper, orig, arg_type)		\
	static void wrapper(void *in)					\
	{								\
		arg_type arg = (arg_type)in;				\
		orig(arg);						\
	}

static void kunit_kfree_action(void *p)
{
	kfree(p);
}

static inline void *kunit_kmalloc_array(struct kunit *test, size_t n,
					size_t size, gfp_t gfp)
{
	size_t bytes;
	void *p;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	p = kmalloc(bytes, gfp);
	if (p && kunit_add_action_or_reset(test, kunit_kfree_action, p))
		return NULL;
	return p;
}

static inline void *kunit_kmalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	return kunit_kmalloc(test, size, gfp | __GFP_ZERO);
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size,
				  gfp_t gfp)
{
	return kunit_kmalloc_array(test, n, size, gfp | __GFP_ZERO);
}

static inline void kunit_kfree(struct kunit *test, const void *p)
{
	if (p)
		kunit_release_action(test, kunit_kfree_action, (void *)p);
}

/* Run the deferred actions of a case, last added first. */
static inline void __kunit_cleanup(struct kunit *test)
{
	struct kunit_action_entry *entry;

	while ((entry = test->actions)) {
		test->actions = entry->next;
		entry->action(entry->ctx);
		free(entry);
	}
}

/* Parameterised cases */

#define KUNIT_ARRAY_PARAM(name, array, get_desc)			\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof((array)[0]) *__next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
		void (*__get_desc)(typeof(__next), char *) = get_desc;	\
		if (__next - (array) < ARRAY_SIZE((array))) {		\
			if (__get_desc)					\
				__get_desc(__next, desc);		\
			return __next;					\
		}							\
		return NULL;						\
	}

#define KUNIT_ARRAY_PARAM_DESC(name, array, desc_member)		\
	static const void *name##_gen_params(const void *prev, char *desc) \
	{								\
		typeof((array)[0]) *__next = prev ?			\
			((typeof(__next))prev) + 1 : (array);		\
		if (__next - (array) < ARRAY_SIZE((array))) {		\
			snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s",	\
				 __next->desc_member);			\
			return __next;					\
		}							\
		return NULL;						\
	}

/* Suites */

static struct kunit_suite *kunit_suites[KUNIT_MAX_SUITES];
static unsigned int kunit_nr_suites;

#define kunit_test_suites(...)						\
	static struct kunit_suite *__kunit_suites_list[] = { __VA_ARGS__ }; \
	__attribute__((constructor)) static void __kunit_register(void)	\
	{								\
		unsigned int __i;					\
		for (__i = 0; __i < ARRAY_SIZE(__kunit_suites_list); __i++) \
			kunit_suites[kunit_nr_suites++] =		\
				__kunit_suites_list[__i];		\
	}
#define kunit_test_suite(suite)		kunit_test_suites(&suite)
#define kunit_test_init_section_suites(...) kunit_test_suites(__VA_ARGS__)

/*
 * Hooks of the program that runs the suites, called in the test's thread
 * after each case and its deferred actions: return non-zero (and say why)
 * to fail the case, e.g. because it leaked memory.
 */
static int (*kunit_case_begin_hook)(struct kunit *test);
static int (*kunit_case_end_hook)(struct kunit *test);

struct kunit_run_opts {
	const char *filter;	/* fnmatch() pattern for case names */
	bool skip_slow;
};

struct kunit_totals {
	unsigned int pass, fail, skip;
};

static inline double __kunit_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void __kunit_print_result(const char *indent,
					enum kunit_status status,
					unsigned int nr, const char *name,
					const char *comment)
{
	printf("%s%s %u %s", indent,
	       status == KUNIT_FAILURE ? "not ok" : "ok", nr, name);
	if (status == KUNIT_SKIPPED)
		printf(" # SKIP %s", comment);
	printf("\n");
	fflush(stdout);
}

/* Run one case (or one parameter of a case) in this thread. */
static inline enum kunit_status
__kunit_run_one(struct kunit_suite *suite, struct kunit_case *test_case,
		const void *param, int index, const char *indent,
		char *comment)
{
	struct kunit test = {
		.name = test_case->name,
		.param_value = param,
		.param_index = index,
		.status = KUNIT_SUCCESS,
		.thread = pthread_self(),
		.indent = indent,
	};
	volatile bool inited = false;

	kunit_current_test_ptr = &test;
	if (kunit_case_begin_hook)
		kunit_case_begin_hook(&test);
	if (!setjmp(test.abort)) {
		if (suite->init && suite->init(&test))
			KUNIT_FAIL_AND_ABORT(&test, "suite init failed");
		inited = true;
		test_case->run_case(&test);
	}
	if (inited && suite->exit)
		suite->exit(&test);
	__kunit_cleanup(&test);
	kunit_current_test_ptr = NULL;
	if (kunit_case_end_hook && kunit_case_end_hook(&test))
		test.status = KUNIT_FAILURE;
	strcpy(comment, test.status_comment);
	return test.status;
}

static inline enum kunit_status
__kunit_run_case(struct kunit_suite *suite, struct kunit_case *test_case,
		 char *comment)
{
	char desc[KUNIT_PARAM_DESC_SIZE];
	enum kunit_status status, worst = KUNIT_SKIPPED;
	const void *param;
	unsigned int nr = 0;

	if (!test_case->generate_params)
		return __kunit_run_one(suite, test_case, NULL, 0, "    ",
				       comment);

	printf("    KTAP version 1\n    # Subtest: %s\n", test_case->name);
	desc[0] = '\0';
	for (param = test_case->generate_params(NULL, desc); param;
	     param = test_case->generate_params(param, desc)) {
		nr++;
		if (!desc[0])
			snprintf(desc, sizeof(desc), "param-%u", nr - 1);
		status = __kunit_run_one(suite, test_case, param, nr - 1,
					 "        ", comment);
		__kunit_print_result("        ", status, nr, desc, comment);
		if (status == KUNIT_FAILURE)
			worst = KUNIT_FAILURE;
		else if (status == KUNIT_SUCCESS && worst == KUNIT_SKIPPED)
			worst = KUNIT_SUCCESS;
		desc[0] = '\0';
	}
	printf("    1..%u\n", nr);
	strcpy(comment, nr ? "" : "no parameters");
	return worst;
}

static inline int kunit_run_suites(const struct kunit_run_opts *opts,
				   struct kunit_totals *totals)
{
	unsigned int s, nr, nr_cases;
	struct kunit_case *test_case;
	enum kunit_status status;
	char comment[256];
	double start;
	bool suite_failed, failed = false;

	printf("KTAP version 1\n1..%u\n", kunit_nr_suites);
	for (s = 0; s < kunit_nr_suites; s++) {
		struct kunit_suite *suite = kunit_suites[s];

		nr_cases = 0;
		for (test_case = suite->test_cases; test_case->run_case;
		     test_case++)
			nr_cases++;
		printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n",
		       suite->name, nr_cases);
		suite_failed = false;
		if (suite->suite_init && suite->suite_init(suite)) {
			printf("    # %s: suite_init failed\n", suite->name);
			suite_failed = true;
			nr_cases = 0;
		}
		nr = 0;
		for (test_case = suite->test_cases;
		     nr_cases && test_case->run_case; test_case++) {
			nr++;
			comment[0] = '\0';
			if (opts->filter &&
			    fnmatch(opts->filter, test_case->name, 0)) {
				status = KUNIT_SKIPPED;
				strcpy(comment, "filtered out");
			} else if (opts->skip_slow &&
				   test_case->attr.speed == KUNIT_SPEED_SLOW) {
				status = KUNIT_SKIPPED;
				strcpy(comment, "slow");
			} else {
				start = __kunit_now();
				status = __kunit_run_case(suite, test_case,
							  comment);
				printf("    # %s: %.3f s\n", test_case->name,
				       __kunit_now() - start);
			}
			__kunit_print_result("    ", status, nr,
					     test_case->name, comment);
			if (status == KUNIT_FAILURE) {
				totals->fail++;
				suite_failed = true;
			} else if (status == KUNIT_SKIPPED) {
				totals->skip++;
			} else {
				totals->pass++;
			}
		}
		if (suite->suite_exit)
			suite->suite_exit(suite);
		printf("# %s: pass:%u fail:%u skip:%u total:%u\n", suite->name,
		       totals->pass, totals->fail, totals->skip, nr);
		__kunit_print_result("", suite_failed ? KUNIT_FAILURE :
				     KUNIT_SUCCESS, s + 1, suite->name, "");
		failed |= suite_failed;
	}
	return failed;
}

#endif /* _TOOLS_KUNIT_TEST_H */
