#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-dcache-ab.sh [build|run|report|profile|profile-report]: the dcache
# A/B (`make qemu-dcache-ab`, `make qemu-dcache-ab-profile`).
#
# Kernel A is the series without its dcache patches (the commits before
# the first kernel-patches/*-dcache-* patch, a worktree of the tree in
# $ROSEBUSH_WORK/linux-a), kernel B the whole series; both are built with
# the benchmark configuration (KUNIT_BENCH_CONFIGS: no lockdep, no KASAN)
# into build/ab-a and build/ab-b, one after the other, never at once.
# Then they boot in turn, A B A B ..., AB_RUNS (3) times each, every boot
# running tests/dcache/dcache-bench.c from qemu/dcache-ab-init.sh on a
# fresh tmpfs: stat() and open() storms over trees of 10^3 .. 3 x 10^5
# files at depths 1, 8 and 32, negative lookups, two threads, renames
# under lookups, and the slab figures.  tests/dcache/ab.py reads the
# consoles and prints B/A, min and median, to ab.txt.
#
#   build	the worktree and the two kernels only
#   run		build, then boot (the default)
#   report	ab.py on the consoles of the last run
#   profile	build, then boot A and B once each (AB_RUNS) with nokaslr,
#		dcache-bench sampling where each CPU is while a workload
#		runs (profile=1); tests/dcache/ab_profile.py maps the
#		addresses to functions with each kernel's System.map and
#		prints ns per operation per function, A against B, to
#		ab-profile.txt.  The consoles are profile-K-I.log, apart
#		from the run's.
#   profile-report	ab_profile.py on the consoles of the last profile
#   holds	build kernels A and B with lock statistics (holds.config) into
#		build/holds-a and build/holds-b, then boot them in turn,
#		AB_RUNS (9) times each, with
#		tests/dcache/dcache-holds.c, which removes a tree while
#		other threads rename and look up, and reads /proc/lock_stat;
#		tests/dcache/holds.py prints the dcache's locks, A against
#		B, to holds.txt (HOLDS_ARGS: arguments of dcache-holds)
#   holds-report	holds.py on the consoles of the last holds run
#   holds-build	the worktree and the two kernels of holds only
#
# Environment: AB_RUNS (boots of each kernel), AB_ARGS (arguments of
# dcache-bench, e.g. "sizes=1000,10000 depths=1 ops=4096" for a quick
# look; for profile, "sizes=100000 depths=8 rounds=128" by default, and
# profile=1 always), AB_TIMEOUT (seconds one boot may take, default 1800).
# QEMU's TCG models no cache: what this measures is the instructions and
# locks of each path, not its cache misses (make bench-dentry does).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
linux=$ROSEBUSH_WORK/linux
linux_a=$ROSEBUSH_WORK/linux-a
out=$ROSEBUSH_WORK/build/dcache-ab
what=${1:-run}
# The kernels' build directories: build/$kind-a and build/$kind-b
kind=ab
prog=dcache-bench
args_name=AB_ARGS
case $what in
holds*)
	kind=holds
	prog=dcache-holds
	args_name=HOLDS_ARGS
	out=$ROSEBUSH_WORK/build/dcache-holds
	runs=${AB_RUNS:-9}
	ab_args=${HOLDS_ARGS:-} ;;
profile*)
	runs=${AB_RUNS:-1}
	# One cell, each workload a minute or so: the A/B's kernels have
	# no high-resolution timers, so a CPU gives a sample a tick (4 ms)
	ab_args="${AB_ARGS:-sizes=100000 depths=8 rounds=128} profile=1" ;;
*)
	runs=${AB_RUNS:-3}
	ab_args=${AB_ARGS:-} ;;
esac
# On the kernel command line, where the words are joined by ':'
case $ab_args in
*[!A-Za-z0-9=,\ ]*)
	echo "qemu-dcache-ab: $args_name may hold only letters, digits, '=', ',' and spaces" >&2
	exit 1 ;;
esac

# The series' commit before its first dcache patch: the tree's branch is
# "import" plus one commit per patch, in series order.
commit_a() {
	local n
	n=$(grep -v '^[[:space:]]*\(#\|$\)' "$top/kernel-patches/series" |
		grep -n -- '-dcache-' | head -n 1 | cut -d: -f1)
	[ -n "$n" ] || { echo "qemu-dcache-ab: no dcache patch in the series" >&2; exit 1; }
	git -C "$linux" rev-list --reverse import..rosebush | sed -n "$((n - 1))p"
}

build() {
	local a common
	: "${AB_CONFIGS:?the configuration fragments (make qemu-dcache-ab sets them)}"
	a=$(commit_a)
	# A worktree of this tree (not of one imported before it), else anew
	common=$(git -C "$linux_a" rev-parse --path-format=absolute \
		--git-common-dir 2>/dev/null || true)
	if [ "$common" = "$(git -C "$linux" rev-parse --path-format=absolute --git-common-dir)" ]; then
		# Only the files that differ change, so the build is incremental
		git -C "$linux_a" checkout -q --detach "$a"
	else
		rm -rf "$linux_a"
		git -C "$linux" worktree prune
		git -C "$linux" worktree add -q --detach "$linux_a" "$a"
	fi
	echo "qemu-dcache-ab: kernel A is $(git -C "$linux_a" log -1 --format='%h %s')"
	echo "qemu-dcache-ab: kernel B is $(git -C "$linux" log -1 --format='%h %s')"
	# shellcheck disable=SC2086 # a list of fragments
	KUNIT_BUILD_ONLY=1 KUNIT_LINUX=$linux_a \
		"$top/scripts/qemu-kunit.sh" "$kind-a" $AB_CONFIGS
	# shellcheck disable=SC2086
	KUNIT_BUILD_ONLY=1 "$top/scripts/qemu-kunit.sh" "$kind-b" $AB_CONFIGS
}

# boot K I [LOG-NAME [KERNEL-ARGUMENTS]]: boot I of kernel K, its console
# in LOG-NAME-K-I.log (console-K-I.log)
boot() {
	local k=$1 i=$2 build=$ROSEBUSH_WORK/build/$kind-$1 rc=0
	local log=$out/${3:-console}-$k-$i.log extra=${4:+ $4}

	INITRAMFS_FILES="$out/$prog:/dcache-bench" \
		"$top/scripts/initramfs.sh" "$build" "$out/initramfs-$k.cpio" \
		"$top/qemu/dcache-ab-init.sh"
	echo "qemu-dcache-ab: run $i of kernel ${k^^} (log: $log)"
	timeout "${AB_TIMEOUT:-1800}" qemu-system-x86_64 -nodefaults -m 1024 -smp 2 \
		-accel tcg -bios qboot.rom -nographic -serial stdio -no-reboot \
		-kernel "$build/arch/x86/boot/bzImage" -initrd "$out/initramfs-$k.cpio" \
		-append "console=ttyS0 kunit.enable=0 panic=-1 printk.devkmsg=on slab_nomerge$extra AB_ARGS=${ab_args// /:}" \
		</dev/null >"$log" 2>&1 || rc=$?
	if [ "$rc" != 0 ] || ! grep -q 'dcache-ab: exit status 0' "$log"; then
		echo "qemu-dcache-ab: run $i of kernel ${k^^} failed (QEMU status $rc):" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
}

header() {
	echo "# host: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(nproc) CPUs; QEMU $(qemu-system-x86_64 --version | head -n 1 | sed 's/.*version //')," \
		"TCG, -smp 2 -m 1024; $args_name=$ab_args; load average before the boots: $load"
	echo "# A: $(git -C "$linux_a" log -1 --format='%h %s')"
	echo "# B: $(git -C "$linux" log -1 --format='%h %s')"
}

report() {
	{
		header
		python3 "$top/tests/dcache/ab.py" "$out"/console-*.log
	} | tee "$out/ab.txt"
	echo "qemu-dcache-ab: the table is in $out/ab.txt"
}

holds_report() {
	{
		header
		python3 "$top/tests/dcache/holds.py" "$out"/console-*.log
	} | tee "$out/holds.txt"
	echo "qemu-dcache-ab: the table is in $out/holds.txt"
}

# The header as the boots began: the tree may have moved on since
profile_report() {
	{
		cat "$out/profile-header.txt"
		# The code that differs between A and B
		python3 "$top/tests/dcache/ab_profile.py" \
			--hash "$linux_a/fs/dcache.c" --hash "$linux/fs/dcache.c" \
			--hash "$linux/lib/rosebush.c" \
			--hash "$linux/include/linux/rosebush.h" \
			"$ROSEBUSH_WORK/build/ab-a/System.map" \
			"$ROSEBUSH_WORK/build/ab-b/System.map" "$out"/profile-*.log
	} | tee "$out/ab-profile.txt"
	echo "qemu-dcache-ab: the profile is in $out/ab-profile.txt"
}

# Build the kernels and the program; note the load; drop the consoles
# named $1-*.log of the last boots
prepare() {
	build
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	mkdir -p "$out"
	rm -f "$out/$1"-*.log
	clang -static -O2 -Wall -Wextra -Werror -pthread \
		-o "$out/$prog" "$top/tests/dcache/$prog.c"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
case $what in
build) build ;;
run)
	prepare console
	for i in $(seq 1 "$runs"); do
		boot a "$i"
		boot b "$i"
	done
	report
	;;
report) report ;;
profile)
	prepare profile
	{
		header
		echo "# made by make qemu-dcache-ab-profile: kernels booted with nokaslr," \
			"each address mapped with its kernel's System.map"
	} >"$out/profile-header.txt"
	# The samples' addresses are System.map's only where KASLR is off
	for i in $(seq 1 "$runs"); do
		boot a "$i" profile nokaslr
		boot b "$i" profile nokaslr
	done
	profile_report
	;;
profile-report) profile_report ;;
holds)
	prepare console
	for i in $(seq 1 "$runs"); do
		boot a "$i"
		boot b "$i"
	done
	holds_report
	;;
holds-report) holds_report ;;
holds-build) build ;;
*) echo "usage: qemu-dcache-ab.sh [build|run|report|profile|profile-report|holds|holds-report|holds-build]" >&2; exit 1 ;;
esac
