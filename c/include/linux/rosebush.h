// SPDX-License-Identifier: GPL-2.0+
/* See lib/rosebush.c */

#ifndef _LINUX_ROSEBUSH_H
#define _LINUX_ROSEBUSH_H

#include <linux/spinlock.h>

/*
 * Embed this struct in your struct, don't allocate it separately.
 * None of this is for customers to use; treat it as opaque.
 * In particular, taking the rbh_resize_lock will prevent only rbh_table
 * from being reallocated; buckets can still be grown and split without
 * the lock.  But you will get incomprehensible lockdep warnings!
 */
struct rbh {
	spinlock_t	rbh_resize_lock;
	unsigned long	rbh_table;	/* A tagged pointer */
};

#define DEFINE_ROSEBUSH(name)	struct rbh name = \
	{ .rbh_resize_lock = __SPIN_LOCK_UNLOCKED(name.lock), }

int rbh_insert(struct rbh *rbh, u32 hash, void *p);
int rbh_reserve(struct rbh *rbh, u32 hash);
int rbh_use(struct rbh *rbh, u32 hash, void *p);
int rbh_remove(struct rbh *rbh, u32 hash, void *p);
void rbh_destroy(struct rbh *rbh);

/**
 * rbh_release - Release a reserved slot in a rosebush.
 * @rbh: The rosebush.
 * @hash: The hash value that was reserved.
 *
 * If you decide that you do not need to use a reserved slot, call this
 * function to release the slot.
 *
 * Return: 0 on success, -ENOENT if no reserved slot was found.
 */

static inline int rbh_release(struct rbh *rbh, u32 hash)
{
	return rbh_remove(rbh, hash, NULL);
}

struct rbh_iter {
	struct rbh *rbh;
	struct rbh_bucket *bucket;
	u32 hash;
	unsigned int index;
};

#define RBH_ITER(name, _rbh, _hash)					\
	struct rbh_iter name = { .rbh = _rbh, .hash = _hash, }

void *rbh_next(struct rbh_iter *rbhi);

void rbh_iter_remove(struct rbh_iter *rbhi, void *p);
void rbh_iter_lock(struct rbh_iter *rbhi);
void rbh_iter_unlock(struct rbh_iter *rbhi);

#endif
