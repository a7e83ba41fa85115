// SPDX-License-Identifier: GPL-2.0
/*
 * dcache-bench.c: the path-lookup workloads of the dcache A/B
 * (scripts/qemu-dcache-ab.sh), run as a static program in QEMU on the
 * kernel without the dcache patches (A) and with them (B).
 *
 *   dcache-bench DIR [sizes=N,...] [depths=D,...] [ops=N] [seed=N]
 *		[rounds=R] [profile=1] [period=NS]
 *
 * For each depth D, on a tmpfs of its own mounted at DIR/tD, a tree grows
 * through each size N: file i lives in leaf directory i / 1000, at the
 * end of a chain of D - 1 directories ("l<leaf>/s/.../s"), so that a path
 * to a file has D components; names are 4 to 24 bytes long, as most
 * names are.  At each size, each workload first runs its operations once
 * untimed (so that every dentry it needs is in the dcache), then again
 * timed:
 *
 *   stat		fstatat() of a file chosen uniformly at random
 *   open		open() and close() of one
 *   negative		fstatat() of a name that does not exist, in a leaf
 *			directory: ENOENT.  tmpfs keeps no negative dentry
 *			(simple_lookup()'s d_delete is always_delete_dentry()),
 *			so each one is allocated, hashed by d_add() and killed
 *			again: a lookup that misses, then an insertion and a
 *			removal of the hash
 *   stat-2t		stat's operations split between two threads
 *   rename		at the largest size only: one thread renames a file
 *			back and forth in a leaf directory while
 *   stat-renaming	another one runs stat's operations; the renames
 *			go on until the lookups are done
 *
 * and prints, per workload, one line
 *
 *   result WORKLOAD n=N depth=D ns=NS ops=OPS
 *
 * where NS is elapsed ns x threads / operations.  With rounds=R, a timed
 * run goes R times over its operations (OPS counts them all): a longer
 * run for a profile, without R times the memory.  After the workloads of a
 * size it prints the slab figures of /proc/slabinfo (bytes of dentries,
 * and of kmalloc-rcl-256 and -512, where a rosebush made with
 * RBH_RECLAIMABLE keeps its buckets):
 *
 *   slab n=N depth=D dentry=BYTES rcl=BYTES
 *
 * Every operation's result is checked (0 for a file, ENOENT for an absent
 * name); a wrong one makes the program exit with status 1.  The tmpfs is
 * unmounted after each depth.
 *
 * With profile=1, each timed workload runs under a sampling profile: one
 * perf event per CPU (software cpu-clock, every NS ns of period=, 20000 by
 * default) records the program counter and the task it interrupted, on
 * every CPU, so that what runs beside the workload (the kworkers, RCU's
 * callbacks, the idle loop) is seen too.  The event is an hrtimer: in a
 * kernel without high-resolution timers (the A/B's kernels: a periodic
 * tick, 250 Hz) it fires at most once a tick, whatever the period, so a
 * sample stands for the events' clock (their CPU time, summed over CPUs)
 * divided by the samples, not for the period.  First the program prints
 * the kernel's _stext from /proc/kallsyms (the reader checks that the
 * kernel is where its System.map says, i.e. booted with nokaslr),
 *
 *   profile-text _stext=ADDR
 *
 * and after a size's result lines, per workload
 *
 *   profile WORKLOAD n=N depth=D ops=OPS period=NS clock=NS bench=S
 *		other=S lost=L throttled=T
 *   ip WORKLOAD n=N depth=D WHO IP COUNT
 *
 * where WHO is "b" for a sample of the threads that run the workload's
 * operations and "o" for one of any other task, IP is hex (0 for any
 * user-space address: only the kernel's are told apart) and COUNT its
 * samples.  bench= and other= count all samples, the ip lines at most
 * MAX_PROFILE_IPS addresses a workload, the most frequent.  stat-renaming
 * and rename share one run: its other tasks are in stat-renaming's, and
 * its clock is split between the two in proportion to their samples.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES	8
#define MAX_DEPTHS	4
#define FILES_PER_LEAF	1000
#define PATH_BYTES	(32 * 8 + 32)

static unsigned long sizes[MAX_SIZES] = { 1000, 10000, 100000, 300000 };
static unsigned int nr_sizes = 4;
static unsigned long depths[MAX_DEPTHS] = { 1, 8, 32 };
static unsigned int nr_depths = 3;
static unsigned long nr_ops = 65536;
static unsigned long rounds = 1;
static uint64_t seed = 1;
static int profiling;
static unsigned long period_ns = 20000;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAILED: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	exit(1);
}

static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e9 + (b->tv_nsec - a->tv_nsec);
}

/* Name of file @i ('f') or of absent name @i ('n'): 4 to 24 bytes */
static int name_of(char *buf, char kind, unsigned long i)
{
	int len = snprintf(buf, 32, "%c%lu", kind, i);
	int want = 4 + mix64(i ^ 0x5a5a) % 21;

	while (len < want)
		buf[len] = 'a' + (i + len) % 26, len++;
	buf[len] = '\0';
	return len;
}

/* The directory part of a path at @depth in leaf @leaf, "/"-terminated */
static int leaf_of(char *buf, unsigned long depth, unsigned long leaf)
{
	int len = 0;
	unsigned long d;

	if (depth == 1)
		return 0;
	len = sprintf(buf, "l%lu/", leaf);
	for (d = 2; d < depth; d++)
		len += sprintf(buf + len, "s/");
	return len;
}

static void path_of(char *buf, unsigned long depth, char kind, unsigned long i)
{
	int len = leaf_of(buf, depth, i / FILES_PER_LEAF);

	name_of(buf + len, kind, i);
}

/* Make leaf @leaf's chain of directories */
static void make_leaf(unsigned long depth, unsigned long leaf)
{
	char path[PATH_BYTES];
	int len = leaf_of(path, depth, leaf), i;

	for (i = 0; i < len; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s\n", path, strerror(errno));
		path[i] = '/';
	}
}

/*
 * The sampling profile (profile=1).  One event per CPU, not per thread:
 * a thread's own event would miss what the dcache defers to other tasks
 * (a kworker's work item, RCU's callbacks freeing dentries).  QEMU's TCG
 * emulates no PMU, hence the software cpu-clock, an hrtimer: a section
 * with interrupts off is sampled where it turns them back on.
 */
#define MAX_CPUS	8
/*
 * Nothing drains a ring while a workload runs, so that the reader takes
 * no time from it: 8 MiB a CPU hold 349525 samples of 24 bytes, 7 s of
 * one CPU at 20 us, 23 minutes at a 250 Hz tick.  Beyond that the kernel
 * counts the lost samples.
 */
#define RING_PAGES	2048
#define IP_SLOTS	(1 << 16)
/* Bounds the console: a workload's paths touch some 10^3 addresses */
#define MAX_PROFILE_IPS	4000

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;
};

static struct ring rings[MAX_CPUS];
static unsigned int nr_rings;

struct ip_count {
	uint64_t ip;
	uint32_t count;
	char who;
};

struct profile {
	struct profile *next;
	const char *name;
	unsigned long n, depth, ops;
	unsigned long clock, bench, other, lost, throttled, distinct;
	struct ip_count *slots;
};

/* The profiles of one size, printed after its result lines */
static struct profile *profiles, **profiles_end = &profiles;

static void profile_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period_ns,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.disabled = 1,
		.exclude_hv = 1,
	};
	long page = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char line[256], addr[32] = "", name[64];
	unsigned int cpu;
	FILE *f;

	/*
	 * Under TCG a sample takes long enough that perf would otherwise
	 * lower its rate behind our back (perf_cpu_time_max_percent).
	 */
	f = fopen("/proc/sys/kernel/perf_cpu_time_max_percent", "w");
	if (!f)
		die("perf_cpu_time_max_percent: %s\n", strerror(errno));
	if (fputs("0\n", f) == EOF || fclose(f))
		die("perf_cpu_time_max_percent: %s\n", strerror(errno));
	if (cpus < 1 || cpus > MAX_CPUS)
		die("%ld CPUs: at most %d\n", cpus, MAX_CPUS);
	for (cpu = 0; cpu < cpus; cpu++) {
		struct ring *r = &rings[nr_rings++];
		void *map;

		r->fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0)
			die("perf_event_open on CPU %u: %s\n", cpu, strerror(errno));
		r->size = (size_t)RING_PAGES * page;
		map = mmap(NULL, r->size + page, PROT_READ | PROT_WRITE, MAP_SHARED,
			   r->fd, 0);
		if (map == MAP_FAILED)
			die("mmap of the perf ring of CPU %u: %s\n", cpu, strerror(errno));
		r->meta = map;
		r->data = (unsigned char *)map + page;
	}
	/* The samples' addresses mean something only if this is System.map's */
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		die("/proc/kallsyms: %s\n", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %*s %63s", addr, name) == 2 &&
		    !strcmp(name, "_stext"))
			break;
		addr[0] = '\0';
	}
	fclose(f);
	if (!addr[0])
		die("no _stext in /proc/kallsyms\n");
	printf("profile-text _stext=%s\n", addr);
	fflush(stdout);
}

static void profile_switch(int on)
{
	unsigned int i;

	for (i = 0; i < nr_rings; i++)
		if ((on && ioctl(rings[i].fd, PERF_EVENT_IOC_RESET, 0)) ||
		    ioctl(rings[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			die("perf ioctl: %s\n", strerror(errno));
}

static struct profile *profile_new(const char *name, unsigned long n,
				   unsigned long depth, unsigned long ops)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p || !(p->slots = calloc(IP_SLOTS, sizeof(*p->slots))))
		die("out of memory for a profile\n");
	p->name = name;
	p->n = n;
	p->depth = depth;
	p->ops = ops;
	*profiles_end = p;
	profiles_end = &p->next;
	return p;
}

static void profile_add(struct profile *p, char who, uint64_t ip)
{
	uint64_t i = mix64(ip ^ who);
	struct ip_count *c;

	for (;; i++) {
		c = &p->slots[i % IP_SLOTS];
		if (!c->count) {
			if (p->distinct == IP_SLOTS / 2)
				die("profile of %s: over %d addresses\n", p->name,
				    IP_SLOTS / 2);
			p->distinct++;
			c->ip = ip;
			c->who = who;
			break;
		}
		if (c->ip == ip && c->who == who)
			break;
	}
	c->count++;
	if (who == 'b')
		p->bench++;
	else
		p->other++;
}

static void ring_copy(const struct ring *r, uint64_t at, void *to, size_t len)
{
	size_t off = at % r->size, first = len < r->size - off ? len : r->size - off;

	memcpy(to, r->data + off, first);
	memcpy((unsigned char *)to + first, r->data, len - first);
}

/*
 * Empty the rings into @p: a sample of this program is the workload's
 * ("b"), or, if its thread is @alt_tid, @alt's; any other task's is "o".
 */
static void profile_drain(struct profile *p, pid_t alt_tid, struct profile *alt)
{
	uint64_t clock_sum = 0;
	pid_t pid = getpid();
	unsigned int i;

	for (i = 0; i < nr_rings; i++) {
		struct ring *r = &rings[i];
		uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = r->meta->data_tail, clock;

		/* The ns this CPU's event ran, since its reset */
		if (read(r->fd, &clock, sizeof(clock)) != sizeof(clock))
			die("perf read: %s\n", strerror(errno));
		clock_sum += clock;
		/*
		 * The kernel records a loss only at its next write to the
		 * ring, which the disabled event never makes: a ring filled
		 * to within a sample's record may have lost some.
		 */
		if (head - tail > r->size - 64)
			p->lost++;
		while (tail < head) {
			union {
				struct perf_event_header h;
				struct {
					struct perf_event_header h;
					uint64_t ip;
					uint32_t pid, tid;
				} sample;
				struct {
					struct perf_event_header h;
					uint64_t id, lost;
				} lost;
			} rec;
			uint64_t ip;

			ring_copy(r, tail, &rec.h, sizeof(rec.h));
			if (rec.h.size < sizeof(rec.h))
				die("perf record of %u bytes\n", rec.h.size);
			ring_copy(r, tail, &rec, rec.h.size < sizeof(rec) ?
				  rec.h.size : sizeof(rec));
			tail += rec.h.size;
			switch (rec.h.type) {
			case PERF_RECORD_SAMPLE:
				/* x86-64: the kernel is the top half */
				ip = (int64_t)rec.sample.ip < 0 ? rec.sample.ip : 0;
				if (rec.sample.pid != (uint32_t)pid)
					profile_add(p, 'o', ip);
				else if (alt && rec.sample.tid == (uint32_t)alt_tid)
					profile_add(alt, 'b', ip);
				else
					profile_add(p, 'b', ip);
				break;
			case PERF_RECORD_LOST:
				p->lost += rec.lost.lost;
				break;
			case PERF_RECORD_THROTTLE:
				p->throttled++;
				break;
			}
		}
		__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	/* Two profiles of one run: a sample of either stands for as much time */
	if (alt) {
		unsigned long all = p->bench + p->other + alt->bench;

		alt->clock = all ? clock_sum * alt->bench / all : 0;
		clock_sum -= alt->clock;
	}
	p->clock += clock_sum;
}

static int by_count(const void *a, const void *b)
{
	const struct ip_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static void profile_print(void)
{
	struct profile *p, *next;
	unsigned long i, k;

	for (p = profiles; p; p = next) {
		next = p->next;
		for (i = k = 0; i < IP_SLOTS; i++)
			if (p->slots[i].count)
				p->slots[k++] = p->slots[i];
		qsort(p->slots, k, sizeof(*p->slots), by_count);
		printf("profile %s n=%lu depth=%lu ops=%lu period=%lu clock=%lu bench=%lu other=%lu lost=%lu throttled=%lu\n",
		       p->name, p->n, p->depth, p->ops, period_ns, p->clock, p->bench,
		       p->other, p->lost, p->throttled);
		for (i = 0; i < k && i < MAX_PROFILE_IPS; i++)
			printf("ip %s n=%lu depth=%lu %c %llx %u\n", p->name, p->n,
			       p->depth, p->slots[i].who,
			       (unsigned long long)p->slots[i].ip, p->slots[i].count);
		fflush(stdout);
		free(p->slots);
		free(p);
	}
	profiles = NULL;
	profiles_end = &profiles;
}

struct op {
	char path[PATH_BYTES];
};

enum workload { W_STAT, W_OPEN, W_NEGATIVE };

struct worker {
	pthread_t thread;
	const struct op *ops;
	unsigned long nr;
	enum workload w;
	pthread_barrier_t *barrier;
	struct timespec start, end;
	/* The renamer: runs until *stop, counts its renames */
	const char *from, *to;
	volatile int *stop;
	unsigned long renames;
	pid_t tid;
};

static void run_ops(const struct op *ops, unsigned long nr, enum workload w)
{
	unsigned long i;
	struct stat st;
	int fd;

	for (i = 0; i < nr; i++) {
		switch (w) {
		case W_STAT:
			if (fstatat(AT_FDCWD, ops[i].path, &st, 0))
				die("stat %s: %s\n", ops[i].path, strerror(errno));
			break;
		case W_OPEN:
			fd = open(ops[i].path, O_RDONLY);
			if (fd < 0)
				die("open %s: %s\n", ops[i].path, strerror(errno));
			close(fd);
			break;
		case W_NEGATIVE:
			if (!fstatat(AT_FDCWD, ops[i].path, &st, 0) ||
			    errno != ENOENT)
				die("stat %s: found, or %s\n", ops[i].path,
				    strerror(errno));
			break;
		}
	}
}

/* A timed run: @ops, @rounds times over */
static void run_rounds(const struct op *ops, unsigned long nr, enum workload w)
{
	unsigned long r;

	for (r = 0; r < rounds; r++)
		run_ops(ops, nr, w);
}

static void *worker_fn(void *arg)
{
	struct worker *t = arg;

	t->tid = gettid();
	pthread_barrier_wait(t->barrier);
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	if (t->from) {
		while (!*t->stop) {
			if (rename(t->from, t->to) || rename(t->to, t->from))
				die("rename %s: %s\n", t->from, strerror(errno));
			t->renames += 2;
		}
	} else {
		run_rounds(t->ops, t->nr, t->w);
	}
	clock_gettime(CLOCK_MONOTONIC, &t->end);
	return NULL;
}

/*
 * The lines of one size, printed after its workloads: a line goes through
 * a pipe, /init's shell, /dev/kmsg and the emulated serial port, which
 * would otherwise run on the other vCPU while the next workload is timed.
 */
static char out_buf[4096];
static size_t out_len;

static void __attribute__((format(printf, 1, 2))) out(const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(out_buf + out_len, sizeof(out_buf) - out_len, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(out_buf) - out_len)
		die("the output of one size is over %zu bytes\n", sizeof(out_buf));
	out_len += len;
}

static void out_flush(void)
{
	fputs(out_buf, stdout);
	fflush(stdout);
	out_len = 0;
	out_buf[0] = '\0';
	profile_print();
}

static void result(const char *w, unsigned long n, unsigned long depth, double ns,
		   unsigned long ops)
{
	out("result %s n=%lu depth=%lu ns=%.0f ops=%lu\n", w, n, depth, ns, ops);
}

/* @ops on @threads threads, each on its share: ns x threads / op */
static void timed(const char *name, unsigned long n, unsigned long depth,
		  const struct op *ops, enum workload w, unsigned int threads)
{
	struct worker t[2] = { };
	pthread_barrier_t barrier;
	struct timespec start, end;
	unsigned int i;

	pthread_barrier_init(&barrier, NULL, threads);
	if (profiling)
		profile_switch(1);
	for (i = 0; i < threads; i++) {
		t[i].ops = ops + nr_ops * i / threads;
		t[i].nr = nr_ops * (i + 1) / threads - nr_ops * i / threads;
		t[i].w = w;
		t[i].barrier = &barrier;
		if (i && pthread_create(&t[i].thread, NULL, worker_fn, &t[i]))
			die("pthread_create\n");
	}
	worker_fn(&t[0]);
	start = t[0].start;
	end = t[0].end;
	for (i = 1; i < threads; i++) {
		pthread_join(t[i].thread, NULL);
		if (ns_between(&t[i].start, &start) > 0)
			start = t[i].start;
		if (ns_between(&end, &t[i].end) > 0)
			end = t[i].end;
	}
	if (profiling) {
		profile_switch(0);
		profile_drain(profile_new(name, n, depth, nr_ops * rounds), 0, NULL);
	}
	pthread_barrier_destroy(&barrier);
	result(name, n, depth, ns_between(&start, &end) * threads / (nr_ops * rounds),
	       nr_ops * rounds);
}

/* Renames in leaf 0 against stat's lookups over the whole tree */
static void renames(const struct op *ops, unsigned long n, unsigned long depth)
{
	char from[PATH_BYTES], to[PATH_BYTES];
	struct worker r = { };
	pthread_barrier_t barrier;
	volatile int stop = 0;
	struct timespec a, b;
	int len = leaf_of(from, depth, 0), fd;

	memcpy(to, from, len);
	strcpy(from + len, "rename-from");
	strcpy(to + len, "rename-to-a-longer-name");
	fd = open(from, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die("create %s: %s\n", from, strerror(errno));
	close(fd);
	pthread_barrier_init(&barrier, NULL, 2);
	r.from = from;
	r.to = to;
	r.stop = &stop;
	r.barrier = &barrier;
	if (profiling)
		profile_switch(1);
	if (pthread_create(&r.thread, NULL, worker_fn, &r))
		die("pthread_create\n");
	pthread_barrier_wait(&barrier);
	clock_gettime(CLOCK_MONOTONIC, &a);
	run_rounds(ops, nr_ops, W_STAT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	stop = 1;
	pthread_join(r.thread, NULL);
	if (profiling)
		profile_switch(0);
	pthread_barrier_destroy(&barrier);
	if (!r.renames)
		die("no rename ran\n");
	if (profiling) {
		/* In this order on the console */
		struct profile *stats = profile_new("stat-renaming", n, depth,
						    nr_ops * rounds);

		profile_drain(stats, r.tid,
			      profile_new("rename", n, depth, r.renames));
	}
	result("stat-renaming", n, depth, ns_between(&a, &b) / (nr_ops * rounds),
	       nr_ops * rounds);
	result("rename", n, depth, ns_between(&r.start, &r.end) / r.renames,
	       r.renames);
	if (unlink(from))
		die("unlink %s: %s\n", from, strerror(errno));
}

/* Bytes of the slab caches named @names, all objects, from /proc/slabinfo */
static unsigned long slab_bytes(const char *const *names)
{
	char line[512], name[64];
	unsigned long active, num, size, bytes = 0;
	FILE *f = fopen("/proc/slabinfo", "r");
	int i;

	if (!f)
		die("/proc/slabinfo: %s\n", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu %lu %lu", name, &active, &num, &size) != 4)
			continue;
		for (i = 0; names[i]; i++)
			if (!strcmp(name, names[i]))
				bytes += num * size;
	}
	fclose(f);
	return bytes;
}

static void slab(unsigned long n, unsigned long depth)
{
	static const char *const dentry[] = { "dentry", NULL };
	static const char *const rcl[] = { "kmalloc-rcl-256", "kmalloc-rcl-512", NULL };

	out("slab n=%lu depth=%lu dentry=%lu rcl=%lu\n", n, depth,
	    slab_bytes(dentry), slab_bytes(rcl));
}

static void one_depth(const char *dir, unsigned long depth, struct op *ops)
{
	char root[PATH_BYTES], path[PATH_BYTES];
	unsigned long made = 0, leaves = 0, s, i, n;
	uint64_t rnd = seed;

	snprintf(root, sizeof(root), "%s/t%lu", dir, depth);
	if (mkdir(root, 0755))
		die("mkdir %s: %s\n", root, strerror(errno));
	/* No inode limit; without CONFIG_TMPFS, "tmpfs" is ramfs and has none */
	if (mount("tmpfs", root, "tmpfs", 0, "nr_inodes=0") &&
	    (errno != EINVAL || mount("tmpfs", root, "tmpfs", 0, NULL)))
		die("mount %s: %s\n", root, strerror(errno));
	if (chdir(root))
		die("chdir %s: %s\n", root, strerror(errno));
	for (s = 0; s < nr_sizes; s++) {
		n = sizes[s];
		for (; made < n; made++) {
			if (made / FILES_PER_LEAF >= leaves)
				make_leaf(depth, leaves++);
			path_of(path, depth, 'f', made);
			if (mknodat(AT_FDCWD, path, S_IFREG | 0644, 0))
				die("mknod %s: %s\n", path, strerror(errno));
		}
		for (i = 0; i < nr_ops; i++)
			path_of(ops[i].path, depth, 'f', mix64(++rnd) % n);
		run_ops(ops, nr_ops, W_STAT);
		timed("stat", n, depth, ops, W_STAT, 1);
		timed("stat-2t", n, depth, ops, W_STAT, 2);
		run_ops(ops, nr_ops, W_OPEN);
		timed("open", n, depth, ops, W_OPEN, 1);
		if (s == nr_sizes - 1)
			renames(ops, n, depth);
		/* Absent names in the leaves that exist */
		for (i = 0; i < nr_ops; i++)
			path_of(ops[i].path, depth, 'n', mix64(++rnd) % n);
		run_ops(ops, nr_ops, W_NEGATIVE);
		timed("negative", n, depth, ops, W_NEGATIVE, 1);
		slab(n, depth);
		out_flush();
	}
	if (chdir(dir))
		die("chdir %s: %s\n", dir, strerror(errno));
	if (umount(root))
		die("umount %s: %s\n", root, strerror(errno));
	if (rmdir(root))
		die("rmdir %s: %s\n", root, strerror(errno));
}

/* "a,b,c" into @v, at most @max numbers >= @min */
static unsigned int parse_list(const char *s, unsigned long *v, unsigned int max,
			       unsigned long min)
{
	unsigned int nr = 0;
	char *end;

	do {
		if (nr == max)
			die("too many values in %s\n", s);
		v[nr] = strtoul(s, &end, 0);
		if (end == s || v[nr] < min || (*end && *end != ','))
			die("bad list %s\n", s);
		nr++;
		s = end + 1;
	} while (*end);
	return nr;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct op *ops;
	unsigned int i;

	if (argc < 2)
		die("usage: dcache-bench DIR [sizes=N,...] [depths=D,...] [ops=N] [seed=N]"
		    " [rounds=R] [profile=1] [period=NS]\n");
	for (i = 2; i < (unsigned int)argc; i++) {
		if (!strncmp(argv[i], "sizes=", 6))
			nr_sizes = parse_list(argv[i] + 6, sizes, MAX_SIZES, 1);
		else if (!strncmp(argv[i], "depths=", 7))
			nr_depths = parse_list(argv[i] + 7, depths, MAX_DEPTHS, 1);
		else if (!strncmp(argv[i], "ops=", 4) && atol(argv[i] + 4) >= 2)
			nr_ops = atol(argv[i] + 4);
		else if (!strncmp(argv[i], "seed=", 5))
			seed = atol(argv[i] + 5);
		else if (!strncmp(argv[i], "rounds=", 7) && atol(argv[i] + 7) >= 1)
			rounds = atol(argv[i] + 7);
		else if (!strcmp(argv[i], "profile=0") || !strcmp(argv[i], "profile=1"))
			profiling = argv[i][8] == '1';
		/* perf's cpu-clock takes no period below 10 us */
		else if (!strncmp(argv[i], "period=", 7) && atol(argv[i] + 7) >= 10000)
			period_ns = atol(argv[i] + 7);
		else
			die("unknown argument %s\n", argv[i]);
	}
	for (i = 0; i < nr_depths; i++)
		if (depths[i] > 32)
			die("depth %lu: at most 32\n", depths[i]);
	for (i = 1; i < nr_sizes; i++)
		if (sizes[i] <= sizes[i - 1])
			die("sizes must grow\n");
	ops = calloc(nr_ops, sizeof(*ops));
	if (!ops)
		die("out of memory for %lu operations\n", nr_ops);
	if (profiling)
		profile_open();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nr_depths; i++)
		one_depth(argv[1], depths[i], ops);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("done in %.1f s\n", ns_between(&t0, &t1) / 1e9);
	free(ops);
	return 0;
}
