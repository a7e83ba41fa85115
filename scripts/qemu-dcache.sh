#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-dcache.sh BUILD: boot the kernel that `make qemu-kunit` (BUILD
# kunit: KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP) or `make
# qemu-kcsan` (BUILD kcsan) built in $ROSEBUSH_WORK/build/BUILD, with KUnit
# disabled and a busybox-static initramfs whose /init
# (qemu/dcache-init.sh) runs tests/dcache/dcache-stress.c, built here as a
# static program, on a tmpfs: renames, exchanges and whiteouts against
# concurrent lookups, unlinks of open files and /proc/<pid> churn, for
# DCACHE_SECONDS (3) seconds each, QEMU for at most DCACHE_TIMEOUT (900)
# seconds.  Fails unless the program passed, the
# caches dropped, the tmpfs unmounted, and the log has no kernel splat:
# tests/dcache_check.py, which on the KCSAN kernel judges only the data
# races that involve rosebush (the VFS has its own).  qemu/dcache-init.sh
# goes on with the same cases under failslab, file handles on ext4,
# unmounts during walks, vfat and the kernel's openat2 and proc selftests
# (tests/dcache/selftests.sh), and shows the dentry hash at rest; on the
# kunit kernel, built with fs/dcache.c under gcov, the counts come out on
# the second serial port and tests/dcache/coverage.py judges them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
name=${1:?usage: qemu-dcache.sh kunit|kcsan}
build=$ROSEBUSH_WORK/build/$name
out=$ROSEBUSH_WORK/build/dcache-$name
seconds=${DCACHE_SECONDS:-3}

for f in "$build/arch/x86/boot/bzImage" "$build/usr/gen_init_cpio"; do
	[ -e "$f" ] || { echo "qemu-dcache: no $f: build the $name kernel first" >&2; exit 1; }
done
mkdir -p "$out"
clang -static -O2 -Wall -Wextra -Werror -pthread \
	-o "$out/dcache-stress" "$top/tests/dcache/dcache-stress.c"
# The kernel's own openat2 and proc selftests, as static programs too
"$top/tests/dcache/selftests.sh" "$out"
files="$out/dcache-stress:/dcache-stress"
files="$files $top/qemu/dcache-selftests.sh:/dcache-selftests.sh"
files="$files $out/selftests/list:/selftests/list"
while read -r t; do
	files="$files $out/selftests/$t:/selftests/$t"
done <"$out/selftests/list"
INITRAMFS_FILES="$files" \
	"$top/scripts/initramfs.sh" "$build" "$out/initramfs.cpio" \
	"$top/qemu/dcache-init.sh"

log=$out/console.log
echo "qemu-dcache: booting the $name kernel (log: $log)"
rm -f "$out/ttyS1.txt"
rc=0
timeout "${DCACHE_TIMEOUT:-900}" qemu-system-x86_64 -nodefaults -m 1024 -smp 2 -accel tcg \
	-bios qboot.rom -nographic -serial stdio -serial "file:$out/ttyS1.txt" \
	-no-reboot \
	-kernel "$build/arch/x86/boot/bzImage" -initrd "$out/initramfs.cpio" \
	-append "console=ttyS0 kunit.enable=0 panic=-1 printk.devkmsg=on DCACHE_SECONDS=$seconds" \
	</dev/null >"$log" 2>&1 || rc=$?
grep -E 'dcache: ' "$log" | sed 's/^.*dcache: /  /' || true

kcsan=
[ "$name" != kcsan ] || kcsan=--kcsan
failed=
if ! python3 "$top/tests/dcache_check.py" "$log" "$rc" $kcsan \
	--selftests "$out/selftests/list"; then
	failed=1
fi
# The kernel that `make qemu-kunit` built profiles fs/dcache.c: which of
# its functions and paths the stress ran (tests/dcache/coverage.py).  The
# KCSAN kernel does not.
if [ "$name" = kunit ] && [ ! -e "$build/fs/dcache.gcno" ]; then
	echo "qemu-dcache: no $build/fs/dcache.gcno: build with make qemu-kunit" >&2
	failed=1
elif [ "$name" = kunit ]; then
	rm -rf "$out/gcov"
	mkdir "$out/gcov"
	cp "$build/fs/dcache.gcno" "$out/gcov/"
	sed -n '/^gcov-begin/,/^gcov-end/p' "$out/ttyS1.txt" | tr -d '\r' |
		grep -v '^gcov-' | base64 -d >"$out/gcov/dcache.gcda" || true
	# From the build directory, where the source's path (../../linux/...)
	# resolves; -t: the annotated source on standard output, no files
	(cd "$build" && llvm-cov gcov -n -f -o "$out/gcov" dcache.c) \
		>"$out/gcov/functions.txt" 2>&1 || true
	(cd "$build" && llvm-cov gcov -t -o "$out/gcov" dcache.c) \
		>"$out/gcov/lines.txt" 2>/dev/null || true
	if ! python3 "$top/tests/dcache/coverage.py" "$out/gcov/functions.txt" \
		"$out/gcov/lines.txt"; then
		failed=1
	fi
else
	echo "qemu-dcache: coverage not measured on the $name kernel"
fi
if [ -n "$failed" ]; then
	echo "qemu-dcache: FAILED" >&2
	exit 1
fi
echo "qemu-dcache: the stress passed on the $name kernel (tests/dcache_check.py)"
