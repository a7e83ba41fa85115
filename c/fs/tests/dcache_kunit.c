// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the dentry hash: what each path that hashes or unhashes
 * a dentry leaves behind, checked on the dentries of a pseudo filesystem
 * the suite mounts for itself.  Included by fs/dcache.c, so that the
 * cases can read its static state.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pseudo_fs.h>

#define DCACHE_TEST_MAGIC	0x64636b74	/* "dckt" */

/* Inodes of the test filesystem not yet evicted */
static atomic_t dcache_test_live_inodes = ATOMIC_INIT(0);

static void dcache_test_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	atomic_dec(&dcache_test_live_inodes);
}

static const struct super_operations dcache_test_sops = {
	.statfs		= simple_statfs,
	.evict_inode	= dcache_test_evict_inode,
};

static int dcache_test_init_fs_context(struct fs_context *fc)
{
	struct pseudo_fs_context *ctx = init_pseudo(fc, DCACHE_TEST_MAGIC);

	if (!ctx)
		return -ENOMEM;
	ctx->ops = &dcache_test_sops;
	return 0;
}

static struct file_system_type dcache_test_fs_type = {
	.name			= "dcache_kunit",
	.init_fs_context	= dcache_test_init_fs_context,
	.kill_sb		= kill_anon_super,
};

/* The root inode of a pseudo filesystem is made by init_pseudo() */
static struct vfsmount *dcache_test_mount(struct kunit *test)
{
	struct vfsmount *mnt;

	atomic_set(&dcache_test_live_inodes, 1);
	mnt = kern_mount(&dcache_test_fs_type);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mnt);
	return mnt;
}

/* An internal mount is torn down at once: its superblock is gone on return */
static void dcache_test_unmount(struct kunit *test, struct vfsmount *mnt)
{
	kern_unmount(mnt);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&dcache_test_live_inodes), 0,
			    "inodes left behind by the unmount");
}

static struct inode *dcache_test_inode(struct kunit *test,
				       struct super_block *sb, umode_t mode)
{
	struct inode *inode = new_inode(sb);

	KUNIT_ASSERT_NOT_NULL(test, inode);
	atomic_inc(&dcache_test_live_inodes);
	inode->i_ino = get_next_ino();
	inode->i_mode = mode;
	simple_inode_init_ts(inode);
	return inode;
}

/* Whether @dentry owns an entry of the dentry hash, reserved or stored */
static bool dcache_test_owns(const struct dentry *dentry)
{
	return READ_ONCE(dentry->d_flags) & DCACHE_HASH_SLOT;
}

/*
 * How many times the dentry hash holds @d under @hash, or (@d NULL) any
 * dentry whose name has that hash: exactly, under the bucket lock.
 */
static int dcache_test_stored(unsigned int hash, struct dentry *d)
{
	RBH_ITER(iter, &dentry_hash, hash);
	struct dentry *p;
	int n = 0;

	rbh_iter_lock(&iter);
	while ((p = rbh_next(&iter)) != NULL)
		if (d ? p == d : READ_ONCE(p->d_name.hash) == hash)
			n++;
	rbh_iter_unlock(&iter);
	return n;
}

/* The hash of @name under @parent */
static unsigned int dcache_test_hash(struct dentry *parent, const char *name)
{
	return full_name_hash(parent, name, strlen(name));
}

/* A positive, hashed child of @parent */
static struct dentry *dcache_test_add(struct kunit *test,
				      struct dentry *parent, const char *name)
{
	struct dentry *dentry = d_alloc_name(parent, name);

	KUNIT_ASSERT_NOT_NULL(test, dentry);
	KUNIT_EXPECT_TRUE(test, d_unhashed(dentry));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(dentry));
	d_add(dentry, dcache_test_inode(test, parent->d_sb, S_IFREG | 0644));
	KUNIT_EXPECT_FALSE(test, d_unhashed(dentry));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(dentry));
	return dentry;
}

/* What d_lookup() finds under @parent for @name, with a reference */
static struct dentry *dcache_test_get(struct dentry *parent, const char *name)
{
	struct qstr q = QSTR_INIT(name, strlen(name));

	q.hash = full_name_hash(parent, q.name, q.len);
	return d_lookup(parent, &q);
}

/* The same, its reference dropped: for comparing with a dentry held */
static struct dentry *dcache_test_lookup(struct dentry *parent,
					 const char *name)
{
	struct dentry *found = dcache_test_get(parent, name);

	dput(found);
	return found;
}

static bool dcache_test_roots_empty(struct super_block *sb)
{
	bool empty;

	spin_lock(&sb->s_roots_lock);
	empty = hlist_empty(&sb->s_roots);
	spin_unlock(&sb->s_roots_lock);
	return empty;
}

/* d_obtain_root() hashes a root on s_roots; d_drop() takes it off */
static void dcache_roots_drop(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct super_block *sb = mnt->mnt_sb;
	struct dentry *root;

	root = d_obtain_root(dcache_test_inode(test, sb, S_IFDIR | 0755));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
	KUNIT_EXPECT_TRUE(test, IS_ROOT(root));
	KUNIT_EXPECT_FALSE(test, d_unhashed(root));
	KUNIT_EXPECT_TRUE(test, d_on_roots(root));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(root));
	KUNIT_EXPECT_FALSE(test, dcache_test_roots_empty(sb));

	d_drop(root);
	KUNIT_EXPECT_TRUE(test, d_unhashed(root));
	KUNIT_EXPECT_FALSE(test, d_on_roots(root));
	KUNIT_EXPECT_TRUE(test, dcache_test_roots_empty(sb));
	/* a second drop is a no-op */
	d_drop(root);
	KUNIT_EXPECT_TRUE(test, dcache_test_roots_empty(sb));

	dput(root);
	dcache_test_unmount(test, mnt);
}

/*
 * Unmounting frees the unused roots still on s_roots, and their inodes:
 * shrink_dcache_for_umount() walks the list.
 */
static void dcache_roots_umount(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct super_block *sb = mnt->mnt_sb;
	int i;

	for (i = 0; i < 3; i++) {
		struct dentry *root;

		root = d_obtain_root(dcache_test_inode(test, sb, S_IFDIR | 0755));
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
		KUNIT_EXPECT_TRUE(test, d_on_roots(root));
		dput(root);		/* kept: it is hashed */
	}
	KUNIT_EXPECT_FALSE(test, dcache_test_roots_empty(sb));
	KUNIT_EXPECT_EQ(test, atomic_read(&dcache_test_live_inodes), 4);
	dcache_test_unmount(test, mnt);
}

/* An in-lookup dentry for @name under @parent, as a ->lookup() gets */
static struct dentry *dcache_test_in_lookup(struct kunit *test,
					    struct dentry *parent,
					    const char *name,
					    wait_queue_head_t *wq)
{
	struct qstr q = QSTR_INIT(name, strlen(name));
	struct dentry *dentry;

	q.hash = full_name_hash(parent, q.name, q.len);
	dentry = d_alloc_parallel(parent, &q, wq);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dentry);
	KUNIT_EXPECT_TRUE(test, d_in_lookup(dentry));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(dentry));
	return dentry;
}

/*
 * d_splice_alias() of a directory whose alias is an s_roots member, from
 * a lookup, moves that root into the tree under the looked-up name: off
 * s_roots, hashed, and found by name.
 */
static void dcache_roots_splice(struct kunit *test)
{
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	struct vfsmount *mnt = dcache_test_mount(test);
	struct super_block *sb = mnt->mnt_sb;
	struct dentry *root, *dentry, *alias;
	struct inode *dir;

	dir = dcache_test_inode(test, sb, S_IFDIR | 0755);
	root = d_obtain_root(dir);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
	KUNIT_ASSERT_TRUE(test, d_on_roots(root));

	inode_lock_shared(d_inode(sb->s_root));
	dentry = dcache_test_in_lookup(test, sb->s_root, "dir", &wq);
	alias = d_splice_alias(igrab(dir), dentry);
	d_lookup_done(dentry);
	inode_unlock_shared(d_inode(sb->s_root));
	KUNIT_EXPECT_PTR_EQ(test, alias, root);
	KUNIT_EXPECT_FALSE(test, IS_ROOT(root));
	KUNIT_EXPECT_PTR_EQ(test, root->d_parent, sb->s_root);
	KUNIT_EXPECT_FALSE(test, d_unhashed(root));
	KUNIT_EXPECT_FALSE(test, hlist_unhashed(&root->d_sib));
	KUNIT_EXPECT_TRUE(test, dcache_test_roots_empty(sb));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(sb->s_root, "dir"), root);
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(root));
	/* the dentry that was looked up was left unhashed, its entry taken */
	KUNIT_EXPECT_TRUE(test, d_unhashed(dentry));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(dentry));

	dput(alias);
	dput(dentry);
	dput(root);
	dcache_test_unmount(test, mnt);
}

/*
 * d_splice_alias() of a directory that is connected under another name
 * (a rename done elsewhere, as a network filesystem finds it): the alias
 * moves to the looked-up name (__d_unalias()), stored under its hash and
 * not under the old one, with the entry the lookup reserved.
 */
static void dcache_unalias(struct kunit *test)
{
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	unsigned int old_hash = dcache_test_hash(top, "old");
	unsigned int new_hash = dcache_test_hash(top, "new");
	struct dentry *old, *dentry, *alias;
	struct inode *dir;

	dir = dcache_test_inode(test, mnt->mnt_sb, S_IFDIR | 0755);
	old = d_alloc_name(top, "old");
	KUNIT_ASSERT_NOT_NULL(test, old);
	d_add(old, dir);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(old_hash, old), 1);

	inode_lock_shared(d_inode(top));
	dentry = dcache_test_in_lookup(test, top, "new", &wq);
	alias = d_splice_alias(igrab(dir), dentry);
	d_lookup_done(dentry);
	inode_unlock_shared(d_inode(top));
	KUNIT_EXPECT_PTR_EQ(test, alias, old);
	KUNIT_EXPECT_STREQ(test, (const char *)old->d_name.name, "new");
	KUNIT_EXPECT_FALSE(test, d_unhashed(old));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(old));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "new"), old);
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "old"));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(new_hash, old), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(old_hash, old), 0);
	/* the dentry that was looked up was left unhashed, its entry taken */
	KUNIT_EXPECT_TRUE(test, d_unhashed(dentry));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(dentry));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(new_hash, dentry), 0);

	if (!IS_ERR_OR_NULL(alias))
		dput(alias);
	dput(dentry);
	dput(old);
	dcache_test_unmount(test, mnt);
}

/* In place of d_hash_reserve(): the dentry keeps no entry */
static void dcache_test_no_reserve(struct dentry *dentry)
{
}

/* Give up the entry that d_alloc_parallel() reserved for @dentry */
static void dcache_test_unreserve(struct kunit *test, struct dentry *dentry)
{
	spin_lock(&dentry->d_lock);
	d_hash_put(dentry, dentry->d_name.hash, false);
	spin_unlock(&dentry->d_lock);
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(dentry));
}

/*
 * d_splice_alias() of @inode for @name under @top, the looked-up dentry
 * first made to lose its entry: return what it returned, having checked
 * that the looked-up dentry was left unhashed, negative, owning nothing
 * and stored nowhere.
 */
static struct dentry *dcache_test_splice_lost(struct kunit *test,
					      struct dentry *top,
					      const char *name,
					      struct inode *inode)
{
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	struct dentry *dentry, *alias;

	inode_lock_shared(d_inode(top));
	dentry = dcache_test_in_lookup(test, top, name, &wq);
	dcache_test_unreserve(test, dentry);
	alias = d_splice_alias(igrab(inode), dentry);
	d_lookup_done(dentry);
	inode_unlock_shared(d_inode(top));
	KUNIT_EXPECT_TRUE(test, d_unhashed(dentry));
	KUNIT_EXPECT_TRUE(test, d_is_negative(dentry));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(dentry));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dentry->d_name.hash, NULL), 0);
	dput(dentry);
	if (!IS_ERR_OR_NULL(alias) && alias != ERR_PTR(-ESTALE))
		dput(alias);
	return alias;
}

/* @old, a directory alias, is where it was: its name, its one entry */
static void dcache_test_unmoved(struct kunit *test, struct dentry *old,
				const char *name)
{
	KUNIT_EXPECT_STREQ(test, (const char *)old->d_name.name, name);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(old->d_parent, name), old);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(old->d_name.hash, old), 1);
	KUNIT_EXPECT_EQ(test, d_count(old), 1);
}

/*
 * d_splice_alias() of a directory whose alias it must move, once the
 * looked-up dentry has lost the entry it gives the alias: a state no
 * caller can reach (d_hash_reserve() would warn of it), made here by
 * releasing the entry and stubbing d_hash_reserve() out.  -ESTALE, and
 * each alias where it was: a connected one under the same parent and
 * under another (__d_unalias(), which then takes and drops the rename
 * mutex and that parent's lock), and a root, still on s_roots.
 */
static void dcache_splice_lost_entry(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct super_block *sb = mnt->mnt_sb;
	struct dentry *top = sb->s_root;
	struct dentry *old, *sub, *far, *root;
	struct inode *dir, *fardir, *rdir;

	dir = dcache_test_inode(test, sb, S_IFDIR | 0755);
	old = d_alloc_name(top, "old");
	KUNIT_ASSERT_NOT_NULL(test, old);
	d_add(old, dir);
	sub = d_alloc_name(top, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub);
	d_add(sub, dcache_test_inode(test, sb, S_IFDIR | 0755));
	fardir = dcache_test_inode(test, sb, S_IFDIR | 0755);
	far = d_alloc_name(sub, "far");
	KUNIT_ASSERT_NOT_NULL(test, far);
	d_add(far, fardir);
	rdir = dcache_test_inode(test, sb, S_IFDIR | 0755);
	root = d_obtain_root(rdir);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
	kunit_activate_static_stub(test, d_hash_reserve, dcache_test_no_reserve);

	KUNIT_EXPECT_PTR_EQ(test, dcache_test_splice_lost(test, top, "new", dir),
			    ERR_PTR(-ESTALE));
	dcache_test_unmoved(test, old, "old");

	KUNIT_EXPECT_PTR_EQ(test,
			    dcache_test_splice_lost(test, top, "near", fardir),
			    ERR_PTR(-ESTALE));
	dcache_test_unmoved(test, far, "far");
	KUNIT_EXPECT_TRUE(test, mutex_trylock(&sb->s_vfs_rename_mutex));
	mutex_unlock(&sb->s_vfs_rename_mutex);
	KUNIT_EXPECT_TRUE(test, inode_trylock(d_inode(sub)));
	inode_unlock(d_inode(sub));

	KUNIT_EXPECT_PTR_EQ(test, dcache_test_splice_lost(test, top, "dir", rdir),
			    ERR_PTR(-ESTALE));
	KUNIT_EXPECT_TRUE(test, IS_ROOT(root));
	KUNIT_EXPECT_TRUE(test, d_on_roots(root));
	KUNIT_EXPECT_FALSE(test, d_unhashed(root));
	KUNIT_EXPECT_EQ(test, d_count(root), 1);

	dput(root);
	dput(far);
	dput(sub);
	dput(old);
	dcache_test_unmount(test, mnt);
}

/* Calls of dcache_test_reserve_late() */
static int dcache_test_reserves;

/*
 * In place of d_hash_reserve(): the first call reserves nothing, and puts
 * d_hash_reserve() back for the next.
 */
static void dcache_test_reserve_late(struct dentry *dentry)
{
	if (dcache_test_reserves++ == 0)
		return;
	kunit_deactivate_static_stub(kunit_get_current_test(), d_hash_reserve);
	d_hash_reserve(dentry);
}

/*
 * d_move() of @dentry over @target, a dropped dentry whose entry is not
 * reserved the first time round: __d_move() gives up, unlocks what it
 * locked and is called again.  Then @dentry has @target's name, and is
 * found by it.
 */
static void dcache_test_move_late(struct kunit *test, struct dentry *dentry,
				  struct dentry *target)
{
	struct dentry *parent = target->d_parent;

	d_drop(target);
	KUNIT_ASSERT_FALSE(test, dcache_test_owns(target));
	dcache_test_reserves = 0;
	kunit_activate_static_stub(test, d_hash_reserve,
				   dcache_test_reserve_late);
	d_move(dentry, target);
	KUNIT_EXPECT_EQ(test, dcache_test_reserves, 2);
	KUNIT_EXPECT_PTR_EQ(test, dentry->d_parent, parent);
	KUNIT_EXPECT_FALSE(test, d_unhashed(dentry));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(parent,
			(const char *)target->d_name.name), dentry);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&dentry->d_lock));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&target->d_lock));
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&parent->d_lock));
}

/*
 * __d_move()'s return when the target owns no entry, in each of the four
 * ways it locks the parents: @dentry a root; its parent not an ancestor of
 * the target; the target's parent; and an ancestor further up.  A lock it
 * left held would be taken again by the second call.
 */
static void dcache_move_lost_entry(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct super_block *sb = mnt->mnt_sb;
	struct dentry *top = sb->s_root;
	struct dentry *sub, *a, *b, *root;

	sub = d_alloc_name(top, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub);
	d_add(sub, dcache_test_inode(test, sb, S_IFDIR | 0755));

	root = d_obtain_root(dcache_test_inode(test, sb, S_IFDIR | 0755));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, root);
	KUNIT_ASSERT_FALSE(test, dcache_test_roots_empty(sb));
	b = dcache_test_add(test, top, "b1");
	inode_lock(d_inode(top));
	dcache_test_move_late(test, root, b);
	inode_unlock(d_inode(top));
	KUNIT_EXPECT_TRUE(test, dcache_test_roots_empty(sb));
	dput(b);
	dput(root);

	a = dcache_test_add(test, sub, "a");
	b = dcache_test_add(test, top, "b2");
	lock_rename(sub, top);
	dcache_test_move_late(test, a, b);
	unlock_rename(sub, top);
	dput(b);
	dput(a);

	a = dcache_test_add(test, top, "a");
	b = dcache_test_add(test, top, "b3");
	inode_lock(d_inode(top));
	dcache_test_move_late(test, a, b);
	inode_unlock(d_inode(top));
	dput(b);
	dput(a);

	a = dcache_test_add(test, top, "a");
	b = dcache_test_add(test, sub, "b4");
	lock_rename(top, sub);
	dcache_test_move_late(test, a, b);
	unlock_rename(top, sub);
	dput(b);
	dput(a);

	dput(sub);
	dcache_test_unmount(test, mnt);
}

/* d_move() over a hashed target: the moved dentry alone has the name */
static void dcache_move_hashed(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *a, *b;

	a = dcache_test_add(test, top, "a");
	b = dcache_test_add(test, top, "b");
	inode_lock(d_inode(top));
	d_move(a, b);
	inode_unlock(d_inode(top));

	KUNIT_EXPECT_FALSE(test, d_unhashed(a));
	KUNIT_EXPECT_TRUE(test, d_unhashed(b));
	KUNIT_EXPECT_STREQ(test, (const char *)a->d_name.name, "b");
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(a));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(b));
	/* in the target's entry, and no longer under its old name's hash */
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "b"), a), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "b"), b), 0);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "a"), a), 0);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "b"), a);
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "a"));

	dput(b);
	dput(a);
	dcache_test_unmount(test, mnt);
}

/* d_move() to a target that was never hashed, in another directory */
static void dcache_move_unhashed(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *sub, *a, *b;

	sub = d_alloc_name(top, "sub");
	KUNIT_ASSERT_NOT_NULL(test, sub);
	d_add(sub, dcache_test_inode(test, top->d_sb, S_IFDIR | 0755));
	a = dcache_test_add(test, top, "a");
	b = d_alloc_name(sub, "b");
	KUNIT_ASSERT_NOT_NULL(test, b);

	lock_rename(top, sub);
	d_move(a, b);
	unlock_rename(top, sub);

	KUNIT_EXPECT_FALSE(test, d_unhashed(a));
	KUNIT_EXPECT_TRUE(test, d_unhashed(b));
	KUNIT_EXPECT_PTR_EQ(test, a->d_parent, sub);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(sub, "b"), a);
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "a"));

	dput(b);
	dput(a);
	dput(sub);
	dcache_test_unmount(test, mnt);
}

/*
 * d_exchange() of two hashed dentries, and of a hashed one with a dropped
 * one: both end hashed under each other's names.
 */
static void dcache_exchange(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *a, *b;

	a = dcache_test_add(test, top, "a");
	b = dcache_test_add(test, top, "b");
	inode_lock(d_inode(top));
	d_exchange(a, b);
	KUNIT_EXPECT_FALSE(test, d_unhashed(a));
	KUNIT_EXPECT_FALSE(test, d_unhashed(b));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "b"), a);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "a"), b);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "b"), a), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "a"), b), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "a"), a), 0);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "b"), b), 0);

	d_drop(b);
	d_exchange(a, b);
	inode_unlock(d_inode(top));
	KUNIT_EXPECT_FALSE(test, d_unhashed(a));
	KUNIT_EXPECT_FALSE(test, d_unhashed(b));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "a"), a);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "b"), b);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "a"), a), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "b"), b), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "a"), b), 0);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "b"), a), 0);

	dput(b);
	dput(a);
	dcache_test_unmount(test, mnt);
}

/*
 * d_drop() unhashes, d_rehash() hashes again, and dput() of an unhashed
 * dentry frees it (retain_dentry() reads the flag).
 */
static void dcache_drop_rehash(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *a;

	a = dcache_test_add(test, top, "a");
	d_drop(a);
	KUNIT_EXPECT_TRUE(test, d_unhashed(a));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(a));
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "a"));
	d_rehash(a);
	KUNIT_EXPECT_FALSE(test, d_unhashed(a));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(a));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "a"), a);

	/* kept while hashed */
	dput(a);
	KUNIT_EXPECT_EQ(test, atomic_read(&dcache_test_live_inodes), 2);
	a = dcache_test_get(top, "a");
	KUNIT_ASSERT_NOT_NULL(test, a);
	/* killed at once when not */
	d_drop(a);
	dput(a);
	KUNIT_EXPECT_EQ(test, atomic_read(&dcache_test_live_inodes), 1);
	dcache_test_unmount(test, mnt);
}

#define DCACHE_TEST_EQUAL	200	/* more than a bucket and its chain hold */
#define DCACHE_TEST_HASH	0x5eedU

/* Name @i of dcache_equal_hashes(), in @buf, all under one hash */
static struct qstr dcache_test_equal_name(char *buf, size_t size, int i)
{
	struct qstr q;

	snprintf(buf, size, "e%d", i);
	q = (struct qstr)QSTR_INIT(buf, strlen(buf));
	q.hash = DCACHE_TEST_HASH;
	return q;
}

/* What d_lookup() and __d_lookup_rcu() find for @q under @parent */
static struct dentry *dcache_test_find(struct kunit *test,
				       struct dentry *parent,
				       const struct qstr *q)
{
	struct dentry *found, *rcu_found;
	unsigned int seq;

	found = d_lookup(parent, q);
	dput(found);
	rcu_read_lock();
	rcu_found = __d_lookup_rcu(parent, q, &seq);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, rcu_found, found);
	return found;
}

/*
 * Many names under one hash, as a weak or attacked name hash gives: every
 * one found, through exchanges and renames over each other, and the hash
 * holding each hashed one exactly once, and nothing else, throughout.
 */
static void dcache_equal_hashes(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry **d;
	struct qstr q;
	char buf[16];
	int i;

	d = kunit_kcalloc(test, DCACHE_TEST_EQUAL, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	for (i = 0; i < DCACHE_TEST_EQUAL; i++) {
		q = dcache_test_equal_name(buf, sizeof(buf), i);
		d[i] = d_alloc(top, &q);
		KUNIT_ASSERT_NOT_NULL(test, d[i]);
		d_add(d[i], dcache_test_inode(test, top->d_sb, S_IFREG | 0644));
	}
	for (i = 0; i < DCACHE_TEST_EQUAL; i++) {
		q = dcache_test_equal_name(buf, sizeof(buf), i);
		KUNIT_EXPECT_PTR_EQ(test, dcache_test_find(test, top, &q), d[i]);
	}
	q = dcache_test_equal_name(buf, sizeof(buf), DCACHE_TEST_EQUAL);
	KUNIT_EXPECT_NULL(test, dcache_test_find(test, top, &q));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(DCACHE_TEST_HASH, NULL),
			DCACHE_TEST_EQUAL);
	for (i = 0; i < DCACHE_TEST_EQUAL; i++)
		KUNIT_EXPECT_EQ(test, dcache_test_stored(DCACHE_TEST_HASH, d[i]), 1);

	inode_lock(d_inode(top));
	/* even ones exchanged with the next odd one, the names kept */
	for (i = 0; i + 1 < DCACHE_TEST_EQUAL; i += 2)
		d_exchange(d[i], d[i + 1]);
	for (i = 0; i < DCACHE_TEST_EQUAL; i++) {
		q = dcache_test_equal_name(buf, sizeof(buf), i);
		KUNIT_EXPECT_PTR_EQ(test, dcache_test_find(test, top, &q),
				    d[i ^ 1]);
	}
	KUNIT_EXPECT_EQ(test, dcache_test_stored(DCACHE_TEST_HASH, NULL),
			DCACHE_TEST_EQUAL);
	/* the odd ones (now named for the even) moved over the even ones */
	for (i = 0; i + 1 < DCACHE_TEST_EQUAL; i += 2)
		d_move(d[i + 1], d[i]);
	inode_unlock(d_inode(top));
	for (i = 0; i < DCACHE_TEST_EQUAL; i++) {
		q = dcache_test_equal_name(buf, sizeof(buf), i);
		KUNIT_EXPECT_PTR_EQ(test, dcache_test_find(test, top, &q),
				    i & 1 ? d[i] : NULL);
		KUNIT_EXPECT_EQ(test, d_unhashed(d[i]), !(i & 1));
		KUNIT_EXPECT_EQ(test, dcache_test_stored(DCACHE_TEST_HASH, d[i]),
				i & 1);
	}
	KUNIT_EXPECT_EQ(test, dcache_test_stored(DCACHE_TEST_HASH, NULL),
			DCACHE_TEST_EQUAL / 2);
	for (i = 0; i < DCACHE_TEST_EQUAL; i++)
		dput(d[i]);
	dcache_test_unmount(test, mnt);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(DCACHE_TEST_HASH, NULL), 0);
}

/*
 * d_move() over a target that was dropped (as NFS revalidation drops
 * them), d_move() of a dentry that was dropped (it takes the target's
 * entry, and is marked hashed again where move-hashed.litmus checks), and
 * d_add() of a dropped negative dentry.
 */
static void dcache_move_dropped(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *a, *b, *c, *e, *n;

	a = dcache_test_add(test, top, "a");
	b = dcache_test_add(test, top, "b");
	d_drop(b);
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(b));
	inode_lock(d_inode(top));
	d_move(a, b);
	inode_unlock(d_inode(top));
	KUNIT_EXPECT_FALSE(test, d_unhashed(a));
	KUNIT_EXPECT_TRUE(test, d_unhashed(b));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(a));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(b));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "b"), a);
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "a"));

	c = dcache_test_add(test, top, "c");
	e = dcache_test_add(test, top, "e");
	d_drop(c);
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(c));
	inode_lock(d_inode(top));
	d_move(c, e);
	inode_unlock(d_inode(top));
	KUNIT_EXPECT_FALSE(test, d_unhashed(c));
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(c));
	KUNIT_EXPECT_TRUE(test, d_unhashed(e));
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(e));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "e"), c), 1);
	KUNIT_EXPECT_EQ(test, dcache_test_stored(dcache_test_hash(top, "c"), c), 0);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "e"), c);

	n = d_alloc_name(top, "n");
	KUNIT_ASSERT_NOT_NULL(test, n);
	d_add(n, NULL);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "n"), n);
	d_drop(n);
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "n"));
	d_add(n, NULL);
	KUNIT_EXPECT_FALSE(test, d_unhashed(n));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "n"), n);

	dput(n);
	dput(e);
	dput(c);
	dput(b);
	dput(a);
	dcache_test_unmount(test, mnt);
}

/*
 * d_alloc_nohash() reserves nothing; hashing its dentry anyway reserves
 * then.
 */
static void dcache_nohash(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct qstr q = QSTR_INIT("t", 1);
	struct dentry *t;

	q.hash = full_name_hash(top, q.name, q.len);
	t = d_alloc_nohash(top, &q);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_FALSE(test, dcache_test_owns(t));
	d_add(t, NULL);
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(t));
	KUNIT_EXPECT_FALSE(test, d_unhashed(t));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "t"), t);
	dput(t);
	dcache_test_unmount(test, mnt);
}

/*
 * A dentry that dies without ever being hashed gives back the entry
 * d_alloc() reserved for it: dentry_free() warns of one kept, and the
 * run fails on the warning.  Nothing on tmpfs does this often: its
 * dentries are hashed, or hand their entry over in a rename.
 */
static void dcache_unused(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *u;

	u = d_alloc_name(top, "u");
	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_EXPECT_TRUE(test, dcache_test_owns(u));
	KUNIT_EXPECT_TRUE(test, d_unhashed(u));
	dput(u);		/* unhashed: killed at once */
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, "u"));
	dcache_test_unmount(test, mnt);
}

/*
 * A lookup's in-lookup dentry hashed by d_add() (published before the
 * start_dir_add() window, marked hashed inside it), and a second lookup
 * of the name, which finds it and gives back what it reserved.
 */
static void dcache_parallel_add(struct kunit *test)
{
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	struct dentry *d, *again;

	inode_lock_shared(d_inode(top));
	d = dcache_test_in_lookup(test, top, "p", &wq);
	d_add(d, dcache_test_inode(test, top->d_sb, S_IFREG | 0644));
	d_lookup_done(d);
	KUNIT_EXPECT_FALSE(test, d_in_lookup(d));
	KUNIT_EXPECT_FALSE(test, d_unhashed(d));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(d->d_name.hash, d), 1);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "p"), d);

	again = d_alloc_parallel(top, &d->d_name, &wq);
	KUNIT_EXPECT_PTR_EQ(test, again, d);
	if (!IS_ERR_OR_NULL(again))
		dput(again);
	inode_unlock_shared(d_inode(top));
	KUNIT_EXPECT_EQ(test, dcache_test_stored(d->d_name.hash, d), 1);

	dput(d);
	dcache_test_unmount(test, mnt);
}

/*
 * Names shorter than DNAME_INLINE_LEN live in the dentry: on 64-bit that
 * is 55 bytes since d_hash gave its bytes to d_iname.  Exchanges between
 * such a name and an external one, and between two inline ones
 * (swap_names() swaps d_iname word by word), and a rename over an
 * external name, keep every name whole and findable.
 */
static void dcache_long_names(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct dentry *top = mnt->mnt_sb->s_root;
	char longest[DNAME_INLINE_LEN], external[DNAME_INLINE_LEN + 1];
	struct dentry *a, *b, *c;

	memset(longest, 'i', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	memset(external, 'e', sizeof(external) - 1);
	external[sizeof(external) - 1] = '\0';
	a = dcache_test_add(test, top, longest);
	b = dcache_test_add(test, top, external);
	c = dcache_test_add(test, top, "c");
	KUNIT_EXPECT_FALSE(test, dname_external(a));
	KUNIT_EXPECT_TRUE(test, dname_external(b));
	if (IS_ENABLED(CONFIG_64BIT))
		KUNIT_EXPECT_EQ(test, strlen(longest), 55);

	inode_lock(d_inode(top));
	d_exchange(a, b);
	KUNIT_EXPECT_STREQ(test, (const char *)a->d_name.name, external);
	KUNIT_EXPECT_STREQ(test, (const char *)b->d_name.name, longest);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, external), a);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, longest), b);

	d_exchange(b, c);
	KUNIT_EXPECT_STREQ(test, (const char *)b->d_name.name, "c");
	KUNIT_EXPECT_STREQ(test, (const char *)c->d_name.name, longest);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "c"), b);
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, longest), c);

	d_move(c, a);
	inode_unlock(d_inode(top));
	KUNIT_EXPECT_STREQ(test, (const char *)c->d_name.name, external);
	KUNIT_EXPECT_TRUE(test, d_unhashed(a));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, external), c);
	KUNIT_EXPECT_NULL(test, dcache_test_lookup(top, longest));
	KUNIT_EXPECT_PTR_EQ(test, dcache_test_lookup(top, "c"), b);

	dput(c);
	dput(b);
	dput(a);
	dcache_test_unmount(test, mnt);
}

#ifdef CONFIG_DEBUG_FS
/* The verifier's walk of @sb: what /sys/kernel/debug/dcache/verify counts */
static struct dentry_hash_verify dcache_test_verify(struct super_block *sb)
{
	struct dentry_hash_verify v = { };

	dentry_hash_verify_sb(sb, &v);
	return v;
}

/*
 * The verifier on the suite's own filesystem: clean; with a hashed
 * dentry also stored under another name's hash (a stray there); with one
 * stored twice under its own, and an unhashed one stored (wrong); clean
 * again once they are removed.  A removal that fails leaves its dentry
 * referenced, lest the hash keep a freed one.
 */
static void dcache_verify(struct kunit *test)
{
	struct vfsmount *mnt = dcache_test_mount(test);
	struct super_block *sb = mnt->mnt_sb;
	struct dentry *a = dcache_test_add(test, sb->s_root, "a");
	struct dentry *b = dcache_test_add(test, sb->s_root, "b");
	struct dentry *c = d_alloc_name(sb->s_root, "c");
	unsigned int ha = a->d_name.hash;
	struct dentry_hash_verify v;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NE(test, ha, b->d_name.hash);
	v = dcache_test_verify(sb);
	KUNIT_EXPECT_EQ(test, v.hashed, 2UL);
	KUNIT_EXPECT_EQ(test, v.wrong, 0UL);
	KUNIT_EXPECT_EQ(test, v.strays, 0UL);

	KUNIT_ASSERT_EQ(test, rbh_insert(&dentry_hash, ha, b), 0);
	v = dcache_test_verify(sb);
	KUNIT_EXPECT_EQ(test, v.wrong, 0UL);
	KUNIT_EXPECT_EQ(test, v.strays, 1UL);
	if (rbh_remove(&dentry_hash, ha, b))
		KUNIT_FAIL_AND_ABORT(test, "b stays under a's hash");

	KUNIT_ASSERT_EQ(test, rbh_insert(&dentry_hash, ha, a), 0);
	KUNIT_ASSERT_EQ(test, rbh_insert(&dentry_hash, c->d_name.hash, c), 0);
	v = dcache_test_verify(sb);
	KUNIT_EXPECT_EQ(test, v.hashed, 2UL);
	KUNIT_EXPECT_EQ(test, v.wrong, 2UL);
	KUNIT_EXPECT_EQ(test, v.strays, 0UL);
	if (rbh_remove(&dentry_hash, ha, a) ||
	    rbh_remove(&dentry_hash, c->d_name.hash, c))
		KUNIT_FAIL_AND_ABORT(test, "a stays twice, or c stays");

	v = dcache_test_verify(sb);
	KUNIT_EXPECT_EQ(test, v.hashed, 2UL);
	KUNIT_EXPECT_EQ(test, v.wrong + v.strays, 0UL);
	dput(c);
	dput(b);
	dput(a);
	dcache_test_unmount(test, mnt);
}
#endif

static struct kunit_case dcache_hash_cases[] = {
	KUNIT_CASE(dcache_roots_drop),
	KUNIT_CASE(dcache_roots_umount),
	KUNIT_CASE(dcache_roots_splice),
	KUNIT_CASE(dcache_unalias),
	KUNIT_CASE(dcache_splice_lost_entry),
	KUNIT_CASE(dcache_move_lost_entry),
	KUNIT_CASE(dcache_move_hashed),
	KUNIT_CASE(dcache_move_unhashed),
	KUNIT_CASE(dcache_exchange),
	KUNIT_CASE(dcache_drop_rehash),
	KUNIT_CASE(dcache_move_dropped),
	KUNIT_CASE(dcache_equal_hashes),
	KUNIT_CASE(dcache_nohash),
	KUNIT_CASE(dcache_unused),
	KUNIT_CASE(dcache_parallel_add),
	KUNIT_CASE(dcache_long_names),
#ifdef CONFIG_DEBUG_FS
	KUNIT_CASE(dcache_verify),
#endif
	{}
};

static struct kunit_suite dcache_hash_suite = {
	.name = "dcache_hash",
	.test_cases = dcache_hash_cases,
};

kunit_test_suite(dcache_hash_suite);
