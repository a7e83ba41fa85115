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
 *   dcache-stress DIR [SECONDS]
 *
 * DIR is an empty directory on the filesystem under test (tmpfs in the
 * initramfs).  Prints one line per case and "dcache-stress: passed" or
 * "dcache-stress: FAILED"; exits 0 only when every case passed.
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define READERS	2

static atomic_bool stop;
static int seconds = 3;

struct counts {
	atomic_ulong ops;	/* writer operations */
	atomic_ulong lookups;
	atomic_ulong lost;	/* ENOENT where the name must resolve */
	atomic_ulong errors;	/* any other failure */
};

static void fail(struct counts *c, const char *what, const char *name)
{
	/* Say what went wrong the first few times only */
	if (atomic_fetch_add(&c->errors, 1) < 5)
		printf("dcache-stress: %s %s: %s\n", what, name,
		       strerror(errno));
}

static void must(struct counts *c, int ret, const char *what,
		 const char *name)
{
	if (ret < 0)
		fail(c, what, name);
}

static void touch(struct counts *c, const char *name)
{
	int fd = open(name, O_CREAT | O_WRONLY, 0600);

	if (fd < 0) {
		fail(c, "create", name);
		return;
	}
	close(fd);
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

	while (!atomic_load(&stop))
		for (int i = 0; i < 2 && r->names[i]; i++) {
			if (++n % 16)
				lookup_must(r->c, r->names[i]);
			else
				mkdir_must_fail(r->c, r->names[i]);
		}
	return NULL;
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
		if (name0 && pthread_create(&readers[i].thread, NULL,
					    reader_fn, &readers[i])) {
			printf("dcache-stress: pthread_create failed\n");
			exit(2);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	do {
		for (i = 0; i < 64; i++) {
			writer(&c);
			atomic_fetch_add(&c.ops, 1);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	atomic_store(&stop, true);
	for (i = 0; name0 && i < READERS; i++)
		pthread_join(readers[i].thread, NULL);
	printf("dcache-stress: %s: ops=%lu lookups=%lu lost=%lu errors=%lu\n",
	       what, atomic_load(&c.ops), atomic_load(&c.lookups),
	       atomic_load(&c.lost), atomic_load(&c.errors));
	return atomic_load(&c.lost) || atomic_load(&c.errors) ||
		!atomic_load(&c.ops) || (name0 && !atomic_load(&c.lookups));
}

/* A rename over an existing target: the target never goes missing. */
static void replace_writer(struct counts *c)
{
	touch(c, "replace/s");
	must(c, rename("replace/s", "replace/t"), "rename", "replace/s");
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
	touch(c, "exchange/n");
	must(c, rename("exchange/n", n % 64 ? "exchange/a" : "exchange/b"),
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

	touch(c, "whiteout/s");
	if (renameat2(AT_FDCWD, "whiteout/s", AT_FDCWD, "whiteout/t",
		      RENAME_WHITEOUT) < 0) {
		fail(c, "rename whiteout", "whiteout/s");
		return;
	}
	if (lstat("whiteout/s", &st) < 0) {
		fail(c, "lstat whiteout", "whiteout/s");
	} else if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(0, 0)) {
		errno = EINVAL;
		fail(c, "not a whiteout", "whiteout/s");
	}
	must(c, unlink("whiteout/s"), "unlink", "whiteout/s");
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
	must(c, unlink("unlink/u"), "unlink", "unlink/u");
	if (stat("unlink/u", &st) == 0 || errno != ENOENT)
		fail(c, "stat after unlink", "unlink/u");
	if (fstat(fd, &st) < 0 || st.st_nlink != 0)
		fail(c, "fstat after unlink", "unlink/u");
	must(c, write(fd, "x", 1), "write after unlink", "unlink/u");
	close(fd);
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
	if (stat(name, &st) == 0 || errno != ENOENT) {
		errno = EEXIST;
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
	if (err) {
		perror("dcache-stress: mkdir");
		return -1;
	}
	for (const char *const *p = (const char *const[]){ "replace/t",
			"exchange/a", "exchange/b", "xdirs/x/d/f",
			"xdirs/y/e/f", "whiteout/t", "unlink/kept", NULL };
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

int main(int argc, char **argv)
{
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: dcache-stress DIR [SECONDS]\n");
		return 2;
	}
	if (argc == 3)
		seconds = atoi(argv[2]);
	if (chdir(argv[1]) < 0 || setup() < 0) {
		perror("dcache-stress: setup");
		return 2;
	}
	failed |= run("rename over a target", replace_writer,
		      "replace/t", NULL);
	failed |= run("RENAME_EXCHANGE", exchange_writer,
		      "exchange/a", "exchange/b");
	failed |= run("RENAME_EXCHANGE of directories", exchange_dirs_writer,
		      "xdirs/x/d/f", "xdirs/y/e/f");
	failed |= run("RENAME_WHITEOUT", whiteout_writer, "whiteout/t", NULL);
	failed |= run("unlink of open files", unlink_open_writer,
		      "unlink/kept", NULL);
	failed |= run("/proc/<pid> churn", proc_writer, NULL, NULL);
	printf("dcache-stress: %s\n", failed ? "FAILED" : "passed");
	return failed;
}
