#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-kunit.sh NAME FRAGMENT...
#
# Build the patched tree with LLVM=1 into $ROSEBUSH_WORK/build/NAME (one
# build directory per configuration, so rebuilds are incremental) with the
# kernel's own kunit.py and the given kunitconfig fragments, then boot it
# in QEMU with the built-in suites enabled and judge the run with
# tests/kunit_check.py.
#
# The verdict does not come from the console.  The console (ttyS0, or
# ttyAMA0 on arm64, kept as build/NAME/test.log) carries every kernel message, and any of them
# (a clocksource switch, a driver's pr_info()) can land between two KTAP
# lines, even between a "KTAP version 1" and its "# Subtest:", where a
# KTAP parser loses its place.  KUnit also keeps each suite's output in
# the suite's own log, which only KUnit writes to, and shows it as
# /sys/kernel/debug/kunit/SUITE/results.  The initramfs's /init
# (qemu/kunit-init.sh) runs after every built-in suite has finished and
# copies those files to ttyS1 (ttyAMA1 on arm64), a serial port that is
# not a console; QEMU writes it to build/NAME/results-raw.ktap.  kunit_check.py parses that
# file for the results and scans every line of test.log for splats.
#
# Environment: KUNIT_FILTER (a kunit.filter_glob, e.g. "rosebush.*" or
# "rosebush.rbh_*"), KUNIT_KERNEL_ARGS (more kernel parameters, e.g.
# "kcsan.skip_watch=500"), KUNIT_SUITES (suites that must have run),
# KUNIT_BUILD_ONLY=1 (configure and build, do not run), KUNIT_ARCH
# (x86_64, i386 for the 32-bit run or arm64: kunit.py --arch,
# qemu/ARCH.py, QEMU for that architecture and Debian's busybox-static of
# it), KUNIT_TIMEOUT (seconds QEMU may run, default 900), KUNIT_LINUX (the
# tree to build, default $ROSEBUSH_WORK/linux: qemu-dcache-ab.sh builds a
# worktree of it at another commit), KUNIT_MAKE_OPTIONS (more make
# variables, space-separated: `make qemu-kunit` profiles fs/dcache.o with
# gcov by GCOV_PROFILE_dcache.o=y, for qemu-dcache's coverage).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
name=$1; shift
linux=${KUNIT_LINUX:-$ROSEBUSH_WORK/linux}
build=$ROSEBUSH_WORK/build/$name

configs=()
for f in "$@"; do
	configs+=(--kunitconfig="$top/$f")
done

export CCACHE_DIR=$ROSEBUSH_WORK/ccache CCACHE_MAXSIZE=5G CCACHE_BASEDIR=$linux
mkdir -p "$build" "$CCACHE_DIR"

cd "$linux"
# Rust is built with clippy (CLIPPY=1); kunit.py prints what the build
# wrote to stderr, so the warnings of whatever was recompiled.
# What QEMU runs for each architecture: qemu/ARCH.py's parameters again,
# the console and the serial port, not a console, that takes the results.
arch=${KUNIT_ARCH:-x86_64}
qemu=("qemu-system-$arch" -accel tcg)
console=ttyS0 results=/dev/ttyS1 image=arch/x86/boot/bzImage
case $arch in
x86_64)
	busybox=$(command -v busybox)
	qemu+=(-bios qboot.rom)
	;;
i386)
	busybox=/opt/busybox-i386/usr/bin/busybox
	;;
arm64)
	busybox=/opt/busybox-arm64/usr/bin/busybox
	# shellcheck disable=SC2054 # -cpu takes a comma-separated list
	qemu=(qemu-system-aarch64 -accel tcg -machine virt
	      -cpu max,pauth-impdef=on)
	console=ttyAMA0 results=/dev/ttyAMA1 image=arch/arm64/boot/Image
	;;
*) echo "qemu-kunit.sh: no KUNIT_ARCH $arch" >&2; exit 1 ;;
esac
# Before a build that may take twenty minutes
if [ -z "${KUNIT_BUILD_ONLY:-}" ]; then
	for t in "$busybox" "$(command -v "${qemu[0]}" || true)"; do
		[ -x "$t" ] && continue
		echo "qemu-kunit.sh: ${t:-${qemu[0]}} is missing (make toolchain)" >&2
		exit 1
	done
fi
opts=(--arch="$arch" --qemu_config="$top/qemu/$arch.py"
      --build_dir="$build" --jobs="$(nproc)"
      --make_options LLVM=1 --make_options "CC=ccache clang"
      --make_options CLIPPY=1)
for o in ${KUNIT_MAKE_OPTIONS:-}; do
	opts+=(--make_options "$o")
done
opts+=("${configs[@]}")
out=$build/kunit-output.log
rc=0
PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py build "${opts[@]}" |
	tee "$out" || rc=$?
if [ "$rc" != 0 ]; then
	echo "$name: the build failed" >&2
	exit $rc
fi
# A compiler or clippy warning in the series' own files fails the run.
if grep -E -B3 -A12 'lib/(test_)?rosebush\.c:[0-9]+:[0-9]+: warning|--> .*(rust/kernel/rosebush|rust/kernel/sync/rcu|samples/rust/rust_rosebush|rust/doctests_kernel_generated)\.rs' "$out" |
	grep -q 'warning'; then
	echo "$name: the build warned about the series' files (see above)" >&2
	rc=1
fi
# A build for qemu-sample or qemu-bench keeps the last boot's logs.
if [ -n "${KUNIT_BUILD_ONLY:-}" ]; then
	exit $rc
fi
rm -f "$build/test.log" "$build/results-raw.ktap"

BUSYBOX=$busybox "$top/scripts/initramfs.sh" "$build" "$build/kunit-initramfs.cpio" "$top/qemu/kunit-init.sh"
# kunit_results= is for /init (qemu/kunit-init.sh), which the kernel
# passes it to as an environment variable.
cmdline="console=$console panic=-1 printk.devkmsg=on kunit.enable=1"
cmdline="$cmdline kunit_results=$results"
if [ -n "${KUNIT_FILTER:-}" ]; then
	cmdline="$cmdline kunit.filter_glob=$KUNIT_FILTER"
fi
if [ -n "${KUNIT_KERNEL_ARGS:-}" ]; then
	cmdline="$cmdline $KUNIT_KERNEL_ARGS"
fi
echo
echo "$name: booting with: $cmdline"
echo "$name: console: $build/test.log; KUnit results: $build/results-raw.ktap"
start=$(date +%s)
qrc=0
# kunit.py's own QEMU parameters (kunit_kernel.py) and qemu/ARCH.py's
# (two vCPUs, TCG), plus the initramfs and the results' serial port.
timeout "${KUNIT_TIMEOUT:-900}" "${qemu[@]}" -nodefaults -m 1024 -smp 2 \
	-nographic -no-reboot \
	-serial stdio -serial "file:$build/results-raw.ktap" \
	-kernel "$build/$image" \
	-initrd "$build/kunit-initramfs.cpio" -append "$cmdline" \
	</dev/null >"$build/test.log" 2>&1 || qrc=$?
echo "$name: QEMU exited with status $qrc after $(($(date +%s) - start)) s"
[ "$qrc" = 0 ] || rc=1

echo
# shellcheck disable=SC2086
python3 "$top/tests/kunit_check.py" --results "$build/results-raw.ktap" \
	"$linux" "$build/test.log" ${KUNIT_SUITES:-} || rc=1
if [ "$rc" != 0 ]; then
	echo "$name: the end of the console ($build/test.log):"
	tail -n 40 "$build/test.log" | sed 's/^/  /'
fi
exit $rc
