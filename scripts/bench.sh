#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: build tests/bench/rosebush-bench.c against the patched tree's
# userspace harness (tools/testing/radix-tree) with -O2 and no sanitizer,
# in $ROSEBUSH_WORK/build/userspace-bench, and run it.
#
#   bench.sh [ARGS...]	time every structure, and plot the lookups with
#			gnuplot; ARGS go to the program: -l (sizes up to
#			10^7), repeats=R, ops=N, max=N, seed=N
#   bench.sh misses [ll=BYTES] [fill] [SIZES...]
#			count cache misses per lookup under callgrind's
#			cache simulation, at each size (default 10^6 and
#			4 x 10^6 entries), with a last level of BYTES
#			(default 32 MiB: ll=1048576 counts what misses a
#			1 MiB L2 instead); with fill, per insertion of a
#			fill from empty instead (default 3 x 10^6 entries)
#   bench.sh dentry [ARGS...]
#			the dentry hash alone, as kernel A (hlist_bl) and B
#			(rosebush) look it up, on dentry-shaped objects
#			(tests/bench/dentry-bench.c); ARGS go to it
#   bench.sh build	build every benchmark, run none (make test's check)
#   bench.sh holds [N...]
#			the longest spinlock hold while keys crowded into
#			half of the key space fill, grow into and empty a
#			rosebush (tests/bench/rosebush-holds.c; default 10^6
#			and 10^7 entries)
#
# In $ROSEBUSH_WORK/build/userspace-bench, timings: the table goes to
# stdout and to bench.txt, every result to bench.csv, the plot to
# bench.png; misses: the table goes to stdout and to misses.txt (or, with
# ll=BYTES, to misses-KIBk.txt; with fill, to fills.txt).
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=$ROSEBUSH_WORK/linux
rt=$tree/tools/testing/radix-tree
dir=$ROSEBUSH_WORK/build/userspace-bench
gen=$ROSEBUSH_WORK/build/userspace-generated

# What the tools/testing/radix-tree Makefile uses, minus its sanitizers,
# optimised, and with the harness's debugging checks (RCU_LOCKDEP_WARN(),
# might_sleep()) compiled away as in a production kernel
# (RBH_HARNESS_PRODUCTION); the kernel's headers come last, for
# lib/rhashtable.c, and tests/bench/include first, for the few that would
# pull in the kernel.
cflags=(-I"$gen" -I"$tree/tools/testing/shared" -I"$rt"
	-I"$tree/tools/include" -I"$tree/lib" -I"$top/tests/bench/include"
	-iquote "$tree" -idirafter "$tree/include"
	-g -O2 -DNDEBUG -DRBH_HARNESS_PRODUCTION -Wall -D_LGPL_SOURCE)

build() {
	mkdir -p "$dir" "$gen/generated"
	# The headers `make` generates in the tree, for the shared objects
	printf '#define CONFIG_%sBIT 1\n' "$(getconf LONG_BIT)" \
		>"$gen/generated/bit-length.h"
	echo '#define XA_CHUNK_SHIFT 3' >"$gen/generated/map-shift.h"
	cp "$tree/tools/testing/shared/autoconf.h" "$gen/generated/autoconf.h"

	echo "bench: building $dir/rosebush-bench"
	# The kernel's 4-byte spinlock, not the harness's pthread mutex; the
	# kernel's slab placement and huge pages, not glibc's malloc()
	(cd "$dir" &&
	 clang -c "${cflags[@]}" "$top/tests/bench/bench-slab.c" -o slab.o &&
	 clang -c "${cflags[@]}" "$tree/tools/lib/vsprintf.c" -o vsprintf.o &&
	 clang -c "${cflags[@]}" "$tree/tools/testing/shared/linux.c" -o linux.o &&
	 clang "${cflags[@]}" -include "$top/tests/bench/bench-spinlock.h" \
		"$top/tests/bench/rosebush-bench.c" slab.o vsprintf.o \
		linux.o -lurcu-cds -lurcu -lpthread -lm -o rosebush-bench)
}

timings() {
	"$dir/rosebush-bench" csv="$dir/bench.csv" "$@" | tee "$dir/bench.txt"
	echo "bench: table in $dir/bench.txt, every result in $dir/bench.csv"

	if ! command -v gnuplot >/dev/null; then
		echo 'bench: gnuplot is not installed: no plot (make toolchain installs gnuplot-nox)'
		return
	fi
	gnuplot -e "csv='$dir/bench.csv'; png='$dir/bench.png'" \
		"$top/tests/bench/rosebush-bench.gp"
	echo "bench: lookup ns/op against entries plotted in $dir/bench.png"
}

# The simulated caches: a 32 KiB 8-way L1 and a 32 MiB 16-way last level,
# the sizes of this machine's (AMD EPYC) L1d and L3, so that the counts are
# the same on every machine; ll=1048576 makes the last level its L2.
ll=33554432
cachesim() {
	echo --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL="$ll",16,64
}
ops=$((1 << 19))
warmup=$((1 << 18))

misses() {
	local sizes n pids=() rc=0 fill=0

	case "${1:-}" in ll=*) ll=${1#ll=}; shift ;; esac
	case "${1:-}" in fill) fill=1; shift ;; esac
	out=misses.txt
	[ "$ll" = 33554432 ] || out=misses-$((ll >> 10))k.txt
	[ "$fill" = 0 ] || out=fills.txt
	sizes=("$@")
	[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 4000000)
	[ "$fill" = 0 ] || [ $# -gt 0 ] || sizes=(3000000)
	command -v valgrind >/dev/null ||
		{ echo 'bench: valgrind is not installed (make toolchain installs it)' >&2; exit 1; }
	rm -f "$dir"/callgrind.*
	# One callgrind per size, side by side: each is one thread.
	for n in "${sizes[@]}"; do
		valgrind --tool=callgrind --instr-atstart=no \
			--collect-atstart=$([ "$fill" = 1 ] && echo yes || echo no) \
			$(cachesim) --dump-instr=yes \
			--callgrind-out-file="$dir/callgrind.$n" \
			"$dir/rosebush-bench" misses="$n" ops=$ops warmup=$warmup fill=$fill \
			>"$dir/misses-$n.log" 2>&1 &
		pids+=($!)
	done
	for n in "${!pids[@]}"; do
		wait "${pids[$n]}" || { rc=$?; cat "$dir/misses-${sizes[$n]}.log" >&2; }
	done
	[ "$rc" = 0 ] || { echo "bench: callgrind failed" >&2; exit 1; }
	{
		echo "# simulated last level: $((ll >> 10)) KiB"
		if [ "$fill" = 1 ]; then
			python3 "$top/tests/bench/budget.py" --fills "$dir/rosebush-bench" \
				"$dir" "${sizes[@]}"
		else
			python3 "$top/tests/bench/misses.py" "$ops" "$dir" "${sizes[@]}"
			python3 "$top/tests/bench/budget.py" "$ops" "$dir/rosebush-bench" \
				"$dir" "${sizes[@]}"
		fi
	} | tee "$dir/$out"
}

build_holds() {
	echo "bench: building $dir/rosebush-holds"
	(cd "$dir" &&
	 clang "${cflags[@]}" -DBENCH_HOLDS \
		-include "$top/tests/bench/bench-spinlock.h" \
		"$top/tests/bench/rosebush-holds.c" slab.o vsprintf.o linux.o \
		-lurcu -lpthread -o rosebush-holds)
}

holds() {
	build_holds
	"$dir/rosebush-holds" "$@" | tee "$dir/holds.txt"
}

build_dentry() {
	echo "bench: building $dir/dentry-bench"
	(cd "$dir" &&
	 clang "${cflags[@]}" -include "$top/tests/bench/bench-spinlock.h" \
		"$top/tests/bench/dentry-bench.c" slab.o vsprintf.o linux.o \
		-lurcu -lpthread -lm -o dentry-bench)
}

dentry() {
	build_dentry
	"$dir/dentry-bench" csv="$dir/dentry.csv" "$@" | tee "$dir/dentry.txt"
	echo "bench: table in $dir/dentry.txt, every ratio in $dir/dentry.csv"
	if ! command -v gnuplot >/dev/null; then
		echo 'bench: gnuplot is not installed: no plot (make toolchain installs gnuplot-nox)'
		return
	fi
	gnuplot -e "csv='$dir/dentry.csv'; png='$dir/dentry.png'" \
		"$top/tests/bench/dentry-bench.gp"
	echo "bench: B/A against dentries plotted in $dir/dentry.png"
}

build
if [ "${1:-}" = build ]; then
	# What make test checks: every benchmark still builds from the tree
	build_dentry
	build_holds
	echo "bench: every benchmark builds"
elif [ "${1:-}" = dentry ]; then
	shift
	dentry "$@"
elif [ "${1:-}" = holds ]; then
	shift
	holds "$@"
elif [ "${1:-}" = misses ]; then
	shift
	misses "$@"
else
	timings "$@"
fi
