// SPDX-License-Identifier: GPL-2.0+
/*
 * The v2 (seed) rosebush defects, shown failing.  This file is built in
 * place of lib/test_rosebush.c against the v2 series (series patches 1-2
 * as of commit c9c446e of this repository, without the RCU fix), by
 * tests/seed/run.sh, one case per boot because several of them crash the
 * kernel.  It uses only the v2 API.  The same behaviours are checked
 * against the v3 code by lib/test_rosebush.c (named in each case).
 */
#include <kunit/test.h>
#include <linux/rosebush.h>
#include <linux/slab.h>

static struct rbh *seed_new(struct kunit *test)
{
	/* v2 has no rbh_init(), and its DEFINE_ROSEBUSH() does not build */
	struct rbh *rbh = kzalloc(sizeof(*rbh), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rbh);
	spin_lock_init(&rbh->rbh_resize_lock);
	return rbh;
}

static void *seed_ptr(unsigned long i)
{
	return (void *)((i << 2) | 2);
}

/* Defect 1; v3: rbh_destroy_shapes "never used" */
static void seed_destroy_never_used(struct kunit *test)
{
	struct rbh *rbh = seed_new(test);

	rbh_destroy(rbh);
	kfree(rbh);
}

/* Defect 1; v3: rbh_destroy_shapes "initial table" */
static void seed_destroy_initial_table(struct kunit *test)
{
	struct rbh *rbh = seed_new(test);

	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, 1, seed_ptr(1)), 0);
	rbh_destroy(rbh);
	kfree(rbh);
}

/*
 * Defect 1 (the last shared slot); v3: rbh_destroy_shapes "grown" and
 * "shared top slot split".  Even hashes only, so that the odd buckets stay
 * shared by several slots, the last one among them, as the table grows.
 */
static void seed_destroy_shared_last_slot(struct kunit *test)
{
	struct rbh *rbh = seed_new(test);
	unsigned long i;

	for (i = 0; i < 200; i++)
		KUNIT_ASSERT_EQ(test, rbh_insert(rbh, 4 * i, seed_ptr(i)), 0);
	KUNIT_ASSERT_EQ(test, rbh_insert(rbh, 1, seed_ptr(1)), 0);
	rbh_destroy(rbh);
	kfree(rbh);
}

/* Defect 2; v3: any case that splits a bucket, under PROVE_RCU */
static void seed_split_rcu_balance(struct kunit *test)
{
	struct rbh *rbh = seed_new(test);
	unsigned long i;

	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, rbh_insert(rbh, i, seed_ptr(i)), 0);
	/* rbh_destroy() would crash: see seed_destroy_*; leak it */
}

/* Defect 4; v3: rbh_equal_hash_flood, rbh_insert_iterate_remove */
static void seed_equal_hashes(struct kunit *test)
{
	struct rbh *rbh = seed_new(test);
	unsigned long i;
	int err = 0;

	for (i = 0; i < 41 && !err; i++)
		err = rbh_insert(rbh, 0x5eed, seed_ptr(i));
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "insert %lu of one hash", i);
}

static struct kunit_case seed_cases[] = {
	KUNIT_CASE(seed_destroy_never_used),
	KUNIT_CASE(seed_destroy_initial_table),
	KUNIT_CASE(seed_destroy_shared_last_slot),
	KUNIT_CASE(seed_split_rcu_balance),
	KUNIT_CASE(seed_equal_hashes),
	{}
};

static struct kunit_suite seed_suite = {
	.name = "rosebush_seed",
	.test_cases = seed_cases,
};
kunit_test_suite(seed_suite);

MODULE_DESCRIPTION("The rosebush v2 defects, shown failing");
MODULE_LICENSE("GPL");
