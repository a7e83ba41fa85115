// SPDX-License-Identifier: GPL-2.0
/*
 * dcache-holds.c: how long the dcache's locks are held while a tree is
 * removed under renames and lookups (make qemu-dcache-holds), run as a
 * static program in QEMU on kernels A and B of the dcache A/B, built with
 * lock statistics (tests/kunit/holds.config).
 *
 *   dcache-holds DIR [files=N] [dirs=D] [seed=N]
 *
 * On a tmpfs of its own at DIR/t, it makes D directories of N / D files
 * each, and a directory "r" of RENAME_FILES files.  Then it clears the
 * lock statistics (writes 0 to /proc/lock_stat) and, at once:
 *
 *   - removes the D directories and their files (unlink(), rmdir()), as
 *     rm -rf does: d_delete() makes each file's dentry negative under
 *     the inode's ->i_lock, and __dentry_kill() removes its hash entry
 *     under ->d_lock;
 *   - a second thread renames the files of "r" to new names and back
 *     (two rename() calls a pair, counted as one), which moves each
 *     dentry under rename_lock and ->d_locks;
 *   - a third thread stat()s files of the tree, found or (once removed)
 *     not: lookups that wait on rename_lock, and negative dentries
 *     hashed by d_add() and killed again.
 *
 * The renames and lookups go on until the removal is done.  It prints
 *
 *   holds files=N dirs=D rm_ns=NS renames=R lookups=L
 *
 * and then, for each lock class whose name holds one of CLASSES, and for
 * the TOP_CLASSES classes held longest in all, its line of
 * /proc/lock_stat (the class, then contention and hold figures, in
 * microseconds to two decimals):
 *
 *   lock_stat CLASS: CON-BOUNCES CONTENTIONS WAIT-MIN WAIT-MAX WAIT-TOTAL
 *	WAIT-AVG ACQ-BOUNCES ACQUISITIONS HOLD-MIN HOLD-MAX HOLD-TOTAL HOLD-AVG
 *
 * tests/dcache/holds.py reads the consoles.  Every operation's result is
 * checked; a wrong one makes the program exit with status 1, and so does
 * lock debugging turned off (by a lockdep report), which would stop the
 * statistics.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RENAME_FILES	256
#define TOP_CLASSES	12
#define MAX_LINES	4096

/* Lock classes printed whatever their rank */
static const char *const classes[] = {
	"d_lock", "i_lock", "rename_lock", "rbh", "s_inode_list_lock",
};

static unsigned long nr_files = 30000, nr_dirs = 30;
static uint64_t seed = 1;
static int stop;
static unsigned long renames, lookups;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	exit(1);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void *renamer(void *arg)
{
	char from[64], to[64];
	unsigned long i;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		i = renames % RENAME_FILES;
		snprintf(from, sizeof(from), "r/f%lu", i);
		snprintf(to, sizeof(to), "r/moved-to-a-longer-name-%lu", i);
		if (rename(from, to))
			die("rename %s %s: %s\n", from, to, strerror(errno));
		if (rename(to, from))
			die("rename %s %s: %s\n", to, from, strerror(errno));
		renames++;
	}
	return NULL;
}

static void *looker(void *arg)
{
	uint64_t x = seed;
	char path[64];
	struct stat st;
	unsigned long i;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		x = mix64(x + 1);
		i = x % nr_files;
		snprintf(path, sizeof(path), "d%lu/f%lu", i % nr_dirs, i);
		if (stat(path, &st) && errno != ENOENT)
			die("stat %s: %s\n", path, strerror(errno));
		lookups++;
	}
	return NULL;
}

/* Remove directory @name and its files, as rm -rf does */
static void remove_dir(const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = open(name, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		die("open %s: %s\n", name, strerror(errno));
	d = fdopendir(fd);
	if (!d)
		die("fdopendir %s: %s\n", name, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (unlinkat(fd, de->d_name, 0))
			die("unlink %s/%s: %s\n", name, de->d_name, strerror(errno));
	}
	closedir(d);
	if (rmdir(name))
		die("rmdir %s: %s\n", name, strerror(errno));
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write %s: %s\n", path, strerror(errno));
	close(fd);
}

static double hold_total(const char *line)
{
	const char *p = strrchr(line, ':');
	double v[12];

	if (!p || sscanf(p + 1, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			 &v[7], &v[8], &v[9], &v[10], &v[11]) != 12)
		return -1;
	return v[10];
}

/* The class lines of /proc/lock_stat: those of CLASSES, and the top */
static void print_lock_stat(void)
{
	static char *lines[MAX_LINES];
	static double totals[MAX_LINES];
	unsigned int n = 0, i, j, k, top[TOP_CLASSES];
	char buf[512];
	FILE *f;

	f = fopen("/proc/lock_stat", "r");
	if (!f)
		die("/proc/lock_stat: %s\n", strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		double t = hold_total(buf);

		if (!strncmp(buf, "*WARNING*", 9))
			die("/proc/lock_stat: %s", buf);
		if (n == MAX_LINES)
			die("/proc/lock_stat: over %d class lines\n", MAX_LINES);

		if (t < 0)
			continue;
		buf[strcspn(buf, "\n")] = 0;
		lines[n] = strdup(buf);
		totals[n++] = t;
	}
	fclose(f);
	if (!n)
		die("/proc/lock_stat has no class lines\n");
	for (k = 0; k < TOP_CLASSES; k++) {
		top[k] = n;
		for (i = 0; i < n; i++) {
			for (j = 0; j < k && top[j] != i; j++)
				;
			if (j == k && (top[k] == n || totals[i] > totals[top[k]]))
				top[k] = i;
		}
	}
	for (i = 0; i < n; i++) {
		const char *s = lines[i];
		int print = 0;

		for (k = 0; k < TOP_CLASSES; k++)
			print |= top[k] == i;
		for (k = 0; k < sizeof(classes) / sizeof(classes[0]); k++)
			print |= !!strstr(s, classes[k]);
		while (*s == ' ')
			s++;
		if (print)
			printf("lock_stat %s\n", s);
		free(lines[i]);
	}
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t rt, lt;
	char path[64];
	unsigned long i;
	int a, fd;

	if (argc < 2)
		die("usage: dcache-holds DIR [files=N] [dirs=D] [seed=N]\n");
	for (a = 2; a < argc; a++) {
		if (!strncmp(argv[a], "files=", 6))
			nr_files = strtoul(argv[a] + 6, NULL, 0);
		else if (!strncmp(argv[a], "dirs=", 5))
			nr_dirs = strtoul(argv[a] + 5, NULL, 0);
		else if (!strncmp(argv[a], "seed=", 5))
			seed = strtoull(argv[a] + 5, NULL, 0);
		else
			die("unknown argument %s\n", argv[a]);
	}
	if (!nr_dirs || nr_files < nr_dirs)
		die("files=%lu dirs=%lu: at least one file a directory\n",
		    nr_files, nr_dirs);
	if (chdir(argv[1]) || mkdir("t", 0755) ||
	    mount("tmpfs", "t", "tmpfs", 0, "nr_inodes=0") || chdir("t"))
		die("a tmpfs at %s/t: %s\n", argv[1], strerror(errno));
	for (i = 0; i < nr_dirs; i++) {
		snprintf(path, sizeof(path), "d%lu", i);
		if (mkdir(path, 0755))
			die("mkdir %s: %s\n", path, strerror(errno));
	}
	for (i = 0; i < nr_files; i++) {
		snprintf(path, sizeof(path), "d%lu/f%lu", i % nr_dirs, i);
		fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0)
			die("create %s: %s\n", path, strerror(errno));
		close(fd);
	}
	if (mkdir("r", 0755))
		die("mkdir r: %s\n", strerror(errno));
	for (i = 0; i < RENAME_FILES; i++) {
		snprintf(path, sizeof(path), "r/f%lu", i);
		fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
		if (fd < 0)
			die("create %s: %s\n", path, strerror(errno));
		close(fd);
	}

	write_file("/proc/lock_stat", "0");
	if (pthread_create(&rt, NULL, renamer, NULL) ||
	    pthread_create(&lt, NULL, looker, NULL))
		die("pthread_create\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nr_dirs; i++) {
		snprintf(path, sizeof(path), "d%lu", i);
		remove_dir(path);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(rt, NULL);
	pthread_join(lt, NULL);

	printf("holds files=%lu dirs=%lu rm_ns=%.0f renames=%lu lookups=%lu\n",
	       nr_files, nr_dirs,
	       (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec),
	       renames, lookups);
	print_lock_stat();
	return 0;
}
