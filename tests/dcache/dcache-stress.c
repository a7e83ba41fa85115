// SPDX-License-Identifier: GPL-2.0
/*
 * dcache-stress: the dcache's hashing paths under concurrent lookups, as
 * a static program for the QEMU initramfs (scripts/qemu-dcache.sh).
 *
 * Each case runs writers that rename, exchange, whiteout, unlink or fork
 * against readers that look the names up (by stat(), and by mkdir(),
 * which must fail with EEXIST), for SECONDS seconds, and counts every
 * lookup that found nothing where a name must always resolve: a
 * rename that replaces its target, or an exchange, never leaves a moment
 * when the name is missing, so any ENOENT there is an entry the dcache
 * lost (a renamed dentry hashed in the wrong place, a drop that removed
 * the wrong entry).  Any other unexpected error fails the case too.
 *
 *   dcache-stress [--failslab] DIR [SECONDS]
 *   dcache-stress --handles DIR [SECONDS]
 *   dcache-stress --umount DIR [SECONDS]
 *
 * DIR is an empty directory on the filesystem under test (tmpfs in the
 * initramfs).  Prints one line per case and "dcache-stress: passed" or
 * "dcache-stress: FAILED"; exits 0 only when every case passed.
 *
 * --failslab runs the same cases with this process's slab allocations
 * failing (the caller sets up /sys/kernel/debug/failslab; the program
 * sets /proc/thread-self/make-it-fail in each thread while a case runs,
 * not while it starts threads): ENOMEM (and tmpfs's
 * ENOSPC) is then an allowed answer, counted, and at least one must have
 * been injected, but a lost name is still a failure.  /proc/<pid> churn
 * is left out: procfs answers ENOENT when it cannot allocate an inode.
 *
 * --handles needs a filesystem with file handles (ext4): it opens
 * directories and files by handle after dropping the caches, which gives
 * detached dentries, against path lookups of the same names, which
 * splice them back (d_splice_alias()); both must find the same inode.
 *
 * --umount mounts a tmpfs on DIR, fills it, and unmounts it while
 * lookups walk it, over and over.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READERS	2

static atomic_bool stop;
static int seconds = 3;
/* --failslab: ENOMEM is an allowed answer */
static bool failslab;
static atomic_ulong injected;

struct counts {
	atomic_ulong ops;	/* writer operations */
	atomic_ulong lookups;
	atomic_ulong lost;	/* ENOENT where the name must resolve */
	atomic_ulong errors;	/* any other failure */
	atomic_ulong enomem;	/* ENOMEM, with --failslab */
};

static void fail(struct counts *c, const char *what, const char *name)
{
	/* tmpfs answers ENOSPC when it cannot allocate an inode */
	if (failslab && (errno == ENOMEM || errno == ENOSPC)) {
		atomic_fetch_add(&c->enomem, 1);
		return;
	}
	/* Say what went wrong the first few times only */
	if (atomic_fetch_add(&c->errors, 1) < 5)
		printf("dcache-stress: %s %s: %s\n", what, name,
		       strerror(errno));
}

/* Returns whether the call succeeded. */
static bool must(struct counts *c, int ret, const char *what,
		 const char *name)
{
	if (ret < 0)
		fail(c, what, name);
	return ret >= 0;
}

static bool touch(struct counts *c, const char *name)
{
	int fd = open(name, O_CREAT | O_WRONLY, 0600);

	if (fd < 0) {
		fail(c, "create", name);
		return false;
	}
	close(fd);
	return true;
}

/* A cleanup that must happen: with --failslab, try again on ENOMEM. */
static void must_unlink(struct counts *c, const char *name)
{
	while (unlink(name) < 0) {
		fail(c, "unlink", name);
		if (errno != ENOMEM || !failslab)
			return;
	}
}

/* A lookup of @name, which must resolve. */
static void lookup_must(struct counts *c, const char *name)
{
	struct stat st;

	atomic_fetch_add(&c->lookups, 1);
	if (stat(name, &st) == 0)
		return;
	if (errno == ENOENT) {
		if (atomic_fetch_add(&c->lost, 1) < 5)
			printf("dcache-stress: lost %s\n", name);
		return;
	}
	fail(c, "stat", name);
}

/*
 * With --failslab, fail this thread's slab allocations from now on, or
 * stop.  Per thread, and off while threads are made: a clone() whose
 * stack allocation fails warns (warn_alloc()), which is not the dcache's.
 * The file is opened once, while injection is off (under it, procfs may
 * answer ENOENT for an inode it cannot allocate), and kept: writing it
 * allocates nothing.
 */
static __thread int make_it_fail_fd = -1;

static void make_it_fail(bool on)
{
	if (!failslab)
		return;
	if (make_it_fail_fd < 0) {
		make_it_fail_fd = open("/proc/thread-self/make-it-fail",
				       O_WRONLY | O_CLOEXEC);
		if (make_it_fail_fd < 0) {
			perror("dcache-stress: make-it-fail");
			exit(2);
		}
	}
	if (write(make_it_fail_fd, on ? "1" : "0", 1) != 1) {
		perror("dcache-stress: make-it-fail");
		exit(2);
	}
}

struct reader {
	pthread_t thread;
	struct counts *c;
	const char *names[2];
};

/*
 * A second way in, through d_lookup() rather than the RCU walk: mkdir()
 * of a name that must exist fails with EEXIST.  Were the entry lost, it
 * would make a directory (counted, and removed).
 */
static void mkdir_must_fail(struct counts *c, const char *name)
{
	atomic_fetch_add(&c->lookups, 1);
	if (mkdir(name, 0700) < 0) {
		if (errno != EEXIST)
			fail(c, "mkdir", name);
		return;
	}
	if (atomic_fetch_add(&c->lost, 1) < 5)
		printf("dcache-stress: lost %s (mkdir made it)\n", name);
	rmdir(name);
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	unsigned long n = 0;

	make_it_fail(true);
	while (!atomic_load(&stop))
		for (int i = 0; i < 2 && r->names[i]; i++) {
			if (++n % 16)
				lookup_must(r->c, r->names[i]);
			else
				mkdir_must_fail(r->c, r->names[i]);
		}
	if (make_it_fail_fd >= 0)
		close(make_it_fail_fd);
	return NULL;
}

/* With --failslab, the clone() may fail: try again */
static void start_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	int err;

	while ((err = pthread_create(thread, NULL, fn, arg)))
		if (!failslab || (err != EAGAIN && err != ENOMEM)) {
			printf("dcache-stress: pthread_create: %s\n",
			       strerror(err));
			exit(2);
		}
}

/* Run @writer in this thread against READERS readers of @names. */
static int run(const char *what, void (*writer)(struct counts *),
	       const char *name0, const char *name1)
{
	struct reader readers[READERS];
	struct counts c = { 0 };
	struct timespec end, now;
	int i;

	atomic_store(&stop, false);
	for (i = 0; i < READERS; i++) {
		readers[i].c = &c;
		readers[i].names[0] = name0;
		readers[i].names[1] = name1;
		if (name0)
			start_thread(&readers[i].thread, reader_fn, &readers[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	make_it_fail(true);
	do {
		for (i = 0; i < 64; i++) {
			writer(&c);
			atomic_fetch_add(&c.ops, 1);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	make_it_fail(false);
	atomic_store(&stop, true);
	for (i = 0; name0 && i < READERS; i++)
		pthread_join(readers[i].thread, NULL);
	printf("dcache-stress: %s: ops=%lu lookups=%lu lost=%lu errors=%lu",
	       what, atomic_load(&c.ops), atomic_load(&c.lookups),
	       atomic_load(&c.lost), atomic_load(&c.errors));
	if (failslab)
		printf(" enomem=%lu", atomic_load(&c.enomem));
	printf("\n");
	atomic_fetch_add(&injected, atomic_load(&c.enomem));
	return atomic_load(&c.lost) || atomic_load(&c.errors) ||
		!atomic_load(&c.ops) || (name0 && !atomic_load(&c.lookups));
}

/* A rename over an existing target: the target never goes missing. */
static void replace_writer(struct counts *c)
{
	if (touch(c, "replace/s"))
		must(c, rename("replace/s", "replace/t"), "rename",
		     "replace/s");
}

/*
 * Two names swapped: both always resolve.  Now and then a fresh file
 * replaces one of them, so that the dentries the exchanges moved are
 * freed: an entry left behind under a name's old hash would then be read
 * after it was freed (KASAN).
 */
static void exchange_writer(struct counts *c)
{
	static unsigned long n;

	must(c, renameat2(AT_FDCWD, "exchange/a", AT_FDCWD, "exchange/b",
			  RENAME_EXCHANGE), "exchange", "exchange/a");
	if (++n % 32)
		return;
	if (touch(c, "exchange/n"))
		must(c, rename("exchange/n",
			       n % 64 ? "exchange/a" : "exchange/b"),
		     "rename", "exchange/n");
}

/*
 * Two directories under different parents swapped, as above.  (Not
 * replaced now and then: a walk that reached the old directory before
 * it went would rightly find its file gone.)
 */
static void exchange_dirs_writer(struct counts *c)
{
	must(c, renameat2(AT_FDCWD, "xdirs/x/d", AT_FDCWD, "xdirs/y/e",
			  RENAME_EXCHANGE), "exchange", "xdirs/x/d");
}

/*
 * A rename that leaves a whiteout (a 0:0 character device) where its
 * source was: the target never goes missing, and the source is the
 * whiteout.
 */
static void whiteout_writer(struct counts *c)
{
	struct stat st;

	if (!touch(c, "whiteout/s"))
		return;
	if (renameat2(AT_FDCWD, "whiteout/s", AT_FDCWD, "whiteout/t",
		      RENAME_WHITEOUT) < 0) {
		fail(c, "rename whiteout", "whiteout/s");
		must_unlink(c, "whiteout/s");
		return;
	}
	if (lstat("whiteout/s", &st) < 0) {
		fail(c, "lstat whiteout", "whiteout/s");
	} else if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(0, 0)) {
		errno = EINVAL;
		fail(c, "not a whiteout", "whiteout/s");
	}
	must_unlink(c, "whiteout/s");
}

/*
 * Files unlinked while open, their names looked up meanwhile: the name
 * resolves or is gone, and an open file keeps working.  The readers here
 * look up a name that is never unlinked, in the same directory.
 */
static void unlink_open_writer(struct counts *c)
{
	struct stat st;
	int fd;

	fd = open("unlink/u", O_CREAT | O_RDWR, 0600);
	if (fd < 0) {
		fail(c, "create", "unlink/u");
		return;
	}
	must_unlink(c, "unlink/u");
	if (stat("unlink/u", &st) == 0) {
		errno = EEXIST;
		fail(c, "stat after unlink", "unlink/u");
	} else if (errno != ENOENT) {
		fail(c, "stat after unlink", "unlink/u");
	}
	if (fstat(fd, &st) < 0) {
		fail(c, "fstat after unlink", "unlink/u");
	} else if (st.st_nlink != 0) {
		errno = EINVAL;
		fail(c, "fstat after unlink", "unlink/u");
	}
	must(c, write(fd, "x", 1), "write after unlink", "unlink/u");
	close(fd);
}

/*
 * A sliding window of NAMES_LIVE names, each created and, NAMES_LIVE
 * creations later, unlinked: the dentry hash grows, and its buckets
 * split and merge, under the writer's own allocations (with --failslab,
 * its reservations fail now and then).  The readers look up a name that
 * stays.
 */
#define NAMES_LIVE	2048

static void names_writer(struct counts *c)
{
	static unsigned long n;
	char name[32];

	snprintf(name, sizeof(name), "names/n%lu", n);
	if (!touch(c, name))
		return;
	if (++n > NAMES_LIVE) {
		snprintf(name, sizeof(name), "names/n%lu", n - 1 - NAMES_LIVE);
		must_unlink(c, name);
	}
}

/*
 * /proc/<pid> of a child that is alive resolves; once it is reaped, it
 * goes.  No readers: the writer checks both itself.
 */
static void proc_writer(struct counts *c)
{
	char name[32];
	struct stat st;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		fail(c, "fork", "");
		return;
	}
	if (!pid) {
		pause();
		_exit(0);
	}
	snprintf(name, sizeof(name), "/proc/%d/status", pid);
	lookup_must(c, name);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		fail(c, "waitpid", name);
	if (stat(name, &st) == 0) {
		errno = EEXIST;
		fail(c, "stat of a reaped child", name);
	} else if (errno != ENOENT) {
		fail(c, "stat of a reaped child", name);
	}
}

static int setup(void)
{
	int err = 0;

	err |= mkdir("replace", 0700);
	err |= mkdir("exchange", 0700);
	err |= mkdir("xdirs", 0700);
	err |= mkdir("xdirs/x", 0700);
	err |= mkdir("xdirs/y", 0700);
	err |= mkdir("xdirs/x/d", 0700);
	err |= mkdir("xdirs/y/e", 0700);
	err |= mkdir("whiteout", 0700);
	err |= mkdir("unlink", 0700);
	err |= mkdir("names", 0700);
	if (err) {
		perror("dcache-stress: mkdir");
		return -1;
	}
	for (const char *const *p = (const char *const[]){ "replace/t",
			"exchange/a", "exchange/b", "xdirs/x/d/f",
			"xdirs/y/e/f", "whiteout/t", "unlink/kept",
			"names/kept", NULL };
	     *p; p++) {
		int fd = open(*p, O_CREAT | O_WRONLY, 0600);

		if (fd < 0) {
			perror(*p);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* Has SECONDS passed since @start? */
static bool expired(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec > seconds ||
	       (now.tv_sec - start->tv_sec == seconds &&
		now.tv_nsec >= start->tv_nsec);
}

static int drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, "2", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * --handles (ext4): directories three deep and files, opened by handle
 * after the dentries and inodes are dropped.  A directory so opened gets
 * a detached alias (d_obtain_alias(): IS_ROOT, DCACHE_DISCONNECTED, not
 * hashed), which open_by_handle_at() reconnects (reconnect_path()): it
 * looks each name up in the parent, and the filesystem's lookup splices
 * the detached alias in place of the new dentry (d_splice_alias() ->
 * __d_move()), unless a reader's lookup got there first.  A file's alias
 * stays detached, and a lookup by name makes a second, hashed, dentry
 * for it.  Both ways must find the same inode, and a directory opened by
 * handle must have its whole path back.
 */
#define HANDLE_DIRS	8
#define EXT4_SUPER_MAGIC	0xef53
#define HANDLE_NAMES	(HANDLE_DIRS * 4)

struct named {
	char path[48];
	ino_t ino;
	struct file_handle *fh;
	bool dir;
};

static struct named names[HANDLE_NAMES];
static const char *top;

static void *handle_reader_fn(void *arg)
{
	struct counts *c = arg;
	unsigned int i = 0;
	struct stat st;

	while (!atomic_load(&stop)) {
		struct named *n = &names[i++ % HANDLE_NAMES];

		atomic_fetch_add(&c->lookups, 1);
		if (stat(n->path, &st) < 0) {
			if (errno == ENOENT &&
			    atomic_fetch_add(&c->lost, 1) < 5)
				printf("dcache-stress: lost %s\n", n->path);
			if (errno != ENOENT)
				fail(c, "stat", n->path);
		} else if (st.st_ino != n->ino) {
			errno = ESTALE;
			fail(c, "stat found another inode", n->path);
		}
	}
	return NULL;
}

static void open_by_handle(struct counts *c, int mount_fd, struct named *n)
{
	char link[32], path[256], want[256];
	struct stat st;
	ssize_t len;
	int fd;

	fd = open_by_handle_at(mount_fd, n->fh, O_RDONLY);
	if (fd < 0) {
		fail(c, "open_by_handle_at", n->path);
		return;
	}
	if (fstat(fd, &st) < 0) {
		fail(c, "fstat", n->path);
	} else if (st.st_ino != n->ino) {
		errno = ESTALE;
		fail(c, "handle opened another inode", n->path);
	}
	if (n->dir) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		snprintf(want, sizeof(want), "%s/%s", top, n->path);
		len = readlink(link, path, sizeof(path) - 1);
		if (len >= 0)
			path[len] = 0;
		if (len < 0) {
			fail(c, "readlink", link);
		} else if (strcmp(path, want)) {
			errno = ESTALE;
			if (atomic_fetch_add(&c->errors, 1) < 5)
				printf("dcache-stress: %s opened by handle is %s\n",
				       want, path);
		}
	}
	close(fd);
}

static int handles(void)
{
	pthread_t readers[READERS];
	struct counts c = { 0 };
	struct timespec start;
	unsigned int i, r = 0;
	int mount_id, mount_fd;
	struct statfs sfs;
	struct stat st;

	for (i = 0; i < HANDLE_NAMES; i++) {
		struct named *n = &names[i];
		unsigned int d = i / 4;

		snprintf(n->path, sizeof(n->path), "d%u%s", d,
			 (const char *const[]){ "", "/s", "/s/t", "/s/t/f" }[i % 4]);
		n->dir = i % 4 != 3;
		if (n->dir ? mkdir(n->path, 0700) < 0 : !touch(&c, n->path)) {
			perror(n->path);
			return 1;
		}
		n->fh = malloc(sizeof(*n->fh) + MAX_HANDLE_SZ);
		if (!n->fh) {
			perror("dcache-stress: malloc");
			return 1;
		}
		n->fh->handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(AT_FDCWD, n->path, n->fh, &mount_id,
				      0) < 0 || stat(n->path, &st) < 0) {
			perror(n->path);
			return 1;
		}
		n->ino = st.st_ino;
	}
	mount_fd = open(".", O_RDONLY | O_DIRECTORY);
	if (mount_fd < 0) {
		perror("dcache-stress: open .");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		/* With no dentry of ours left, then opened by handle first */
		if (drop_caches() < 0) {
			fail(&c, "drop_caches", "");
			break;
		}
		atomic_store(&stop, false);
		for (i = 0; i < READERS; i++)
			start_thread(&readers[i], handle_reader_fn, &c);
		/* Deepest first, so that a reconnection has most to do */
		for (i = 0; i < HANDLE_NAMES; i++) {
			unsigned int k = (i + r) % HANDLE_NAMES;

			open_by_handle(&c, mount_fd,
				       &names[(k / 4) * 4 + 3 - k % 4]);
			atomic_fetch_add(&c.ops, 1);
		}
		atomic_store(&stop, true);
		for (i = 0; i < READERS; i++)
			pthread_join(readers[i], NULL);
		r++;
	} while (r < 2 || !expired(&start));
	close(mount_fd);
	if (statfs(".", &sfs) < 0)
		sfs.f_type = 0;
	printf("dcache-stress: file handles on fs 0x%lx: rounds=%u ops=%lu lookups=%lu lost=%lu errors=%lu\n",
	       (unsigned long)sfs.f_type, r, atomic_load(&c.ops),
	       atomic_load(&c.lookups), atomic_load(&c.lost),
	       atomic_load(&c.errors));
	if (sfs.f_type != EXT4_SUPER_MAGIC) {
		printf("dcache-stress: --handles wants ext4\n");
		return 1;
	}
	return atomic_load(&c.lost) || atomic_load(&c.errors);
}

/*
 * --umount: a tmpfs on DIR with a tree in it, walked by the readers,
 * unmounted under them (in turn plainly, retried while busy, and lazily
 * with MNT_DETACH; a plain one busy 1000 times is made lazy too), which
 * drops every dentry of it from the hash while lookups may be reading
 * them.  A reader finds the name or, once the tmpfs is gone, ENOENT;
 * after umount2() returns, the tree must be gone from DIR.
 */
#define UMOUNT_FILES	32

static const char *umount_name(char *buf, size_t size, unsigned int i)
{
	snprintf(buf, size, "%s/a/b/c/f%u", top, i % UMOUNT_FILES);
	return buf;
}

static void *umount_reader_fn(void *arg)
{
	struct counts *c = arg;
	unsigned int i = 0;
	struct stat st;
	char name[64];

	while (!atomic_load(&stop)) {
		atomic_fetch_add(&c->lookups, 1);
		if (stat(umount_name(name, sizeof(name), i++), &st) < 0 &&
		    errno != ENOENT)
			fail(c, "stat", name);
	}
	return NULL;
}

static int umount_walks(void)
{
	unsigned int i, rounds = 0, busy = 0;
	pthread_t readers[READERS];
	unsigned long base;
	struct counts c = { 0 };
	struct timespec start;
	char name[64];
	struct stat st;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (mount("tmpfs", top, "tmpfs", 0, "size=4m") < 0) {
			fail(&c, "mount", top);
			break;
		}
		snprintf(name, sizeof(name), "%s/a", top);
		must(&c, mkdir(name, 0700), "mkdir", name);
		snprintf(name, sizeof(name), "%s/a/b", top);
		must(&c, mkdir(name, 0700), "mkdir", name);
		snprintf(name, sizeof(name), "%s/a/b/c", top);
		must(&c, mkdir(name, 0700), "mkdir", name);
		for (i = 0; i < UMOUNT_FILES; i++)
			touch(&c, umount_name(name, sizeof(name), i));
		atomic_store(&stop, false);
		base = atomic_load(&c.lookups);
		for (i = 0; i < READERS; i++)
			start_thread(&readers[i], umount_reader_fn, &c);
		/* Let the readers get going */
		while (atomic_load(&c.lookups) < base + 64)
			sched_yield();
		if (rounds % 2) {
			must(&c, umount2(top, MNT_DETACH), "umount2", top);
		} else {
			/* Busy while a reader holds the mount: lazily, at last */
			for (i = 0; umount2(top, i < 1000 ? 0 : MNT_DETACH) < 0;
			     i++) {
				if (errno != EBUSY || i >= 1000) {
					fail(&c, "umount2", top);
					break;
				}
				busy++;
			}
		}
		atomic_fetch_add(&c.ops, 1);
		snprintf(name, sizeof(name), "%s/a", top);
		if (stat(name, &st) == 0 || errno != ENOENT) {
			errno = EEXIST;
			fail(&c, "stat after umount", name);
		}
		atomic_store(&stop, true);
		for (i = 0; i < READERS; i++)
			pthread_join(readers[i], NULL);
		rounds++;
	} while ((rounds < 4 || !expired(&start)) && !atomic_load(&c.errors));
	printf("dcache-stress: umount during walks: ops=%lu busy=%u lookups=%lu errors=%lu\n",
	       atomic_load(&c.ops), busy, atomic_load(&c.lookups),
	       atomic_load(&c.errors));
	return !!atomic_load(&c.errors);
}

int main(int argc, char **argv)
{
	const char *mode = "";
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strncmp(argv[1], "--", 2)) {
		mode = argv[1];
		argc--;
		argv++;
	}
	if (argc < 2 || argc > 3 ||
	    (*mode && strcmp(mode, "--failslab") && strcmp(mode, "--handles") &&
	     strcmp(mode, "--umount"))) {
		fprintf(stderr, "usage: dcache-stress [--failslab|--handles|--umount] DIR [SECONDS]\n");
		return 2;
	}
	if (argc == 3)
		seconds = atoi(argv[2]);
	top = argv[1];
	if (!strcmp(mode, "--umount")) {
		failed = umount_walks();
		goto out;
	}
	if (chdir(top) < 0) {
		perror("dcache-stress: chdir");
		return 2;
	}
	if (!strcmp(mode, "--handles")) {
		failed = handles();
		goto out;
	}
	if (setup() < 0) {
		perror("dcache-stress: setup");
		return 2;
	}
	/* Each case turns failslab on for its threads once they run */
	failslab = !strcmp(mode, "--failslab");
	failed |= run("rename over a target", replace_writer,
		      "replace/t", NULL);
	failed |= run("RENAME_EXCHANGE", exchange_writer,
		      "exchange/a", "exchange/b");
	failed |= run("RENAME_EXCHANGE of directories", exchange_dirs_writer,
		      "xdirs/x/d/f", "xdirs/y/e/f");
	failed |= run("RENAME_WHITEOUT", whiteout_writer, "whiteout/t", NULL);
	failed |= run("unlink of open files", unlink_open_writer,
		      "unlink/kept", NULL);
	failed |= run("many names", names_writer, "names/kept", NULL);
	/* procfs answers ENOENT when it cannot allocate an inode */
	if (!failslab)
		failed |= run("/proc/<pid> churn", proc_writer, NULL, NULL);
	if (failslab && !atomic_load(&injected)) {
		printf("dcache-stress: failslab injected no failure\n");
		failed = 1;
	}
out:
	printf("dcache-stress: %s\n", failed ? "FAILED" : "passed");
	return failed;
}
