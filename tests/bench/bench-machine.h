/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-machine.h: the machine a benchmark runs on, for the first lines
 * of its output (rosebush-bench.c, dentry-bench.c): the CPU model, the
 * CPUs online and the caches, and the size of the last-level cache, in
 * bench_llc_bytes, against which a benchmark can say which sizes exceed
 * it.  Include it once, after the harness.
 */
#ifndef _BENCH_MACHINE_H
#define _BENCH_MACHINE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long bench_llc_bytes;

static void bench_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

/* The CPU this runs on and its caches (CPU 0's, from sysfs, else CPUID) */
static void bench_print_machine(void)
{
	char line[256], model[128] = "unknown", path[96], level[16], type[32], size[32];
	unsigned long kib;
	FILE *f = fopen("/proc/cpuinfo", "r");
	int i;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "model name : %127[^\n]", model) == 1)
				break;
		fclose(f);
	}
	printf("# machine: %s, %ld CPUs online; caches:", model,
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		bench_read_line(path, level, sizeof(level));
		if (!level[0])
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		bench_read_line(path, type, sizeof(type));
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		bench_read_line(path, size, sizeof(size));
		printf(" L%s%s %s", level, !strcmp(type, "Data") ? "d" :
		       !strcmp(type, "Instruction") ? "i" : "", size);
		if (strcmp(type, "Instruction") && sscanf(size, "%luK", &kib) == 1)
			bench_llc_bytes = max(bench_llc_bytes, kib << 10);
	}
	/*
	 * Some hypervisors give no cache topology in sysfs.  glibc's sysconf()
	 * reads CPUID then, whose L3 may be the whole socket's, not the part
	 * one core can use: say where the figures came from.
	 */
	if (!i) {
		static const struct { int name; const char *label; } sc[] = {
			{ _SC_LEVEL1_DCACHE_SIZE, "L1d" },
			{ _SC_LEVEL1_ICACHE_SIZE, "L1i" },
			{ _SC_LEVEL2_CACHE_SIZE, "L2" },
			{ _SC_LEVEL3_CACHE_SIZE, "L3" },
		};
		long bytes;

		for (i = 0; i < (int)ARRAY_SIZE(sc); i++) {
			bytes = sysconf(sc[i].name);
			if (bytes <= 0)
				continue;
			printf(" %s %ldK", sc[i].label, bytes >> 10);
			if (sc[i].name != _SC_LEVEL1_ICACHE_SIZE)
				bench_llc_bytes = max(bench_llc_bytes, (unsigned long)bytes);
		}
		printf(" (no sysfs cache topology: CPUID as the VM reports it)");
	}
	printf("\n");
}

#endif /* _BENCH_MACHINE_H */
