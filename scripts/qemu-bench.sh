#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-bench.sh BUILD [MODE...]
#
# Build tests/bench/kernel/rosebush_kbench.c as an out-of-tree module of
# the kernel in $ROSEBUSH_WORK/build/BUILD, then, for each MODE, boot that
# kernel (KUnit disabled) from a busybox-static initramfs whose /init
# (qemu/bench-init.sh) loads the module, and keep what it printed.
#
# MODE is "table" (the timing table, on 2 vCPUs, the default) or
# "resize" (fill and empty one rosebush, on 2 vCPUs; see the module's
# comment).  Extra module parameters come from KBENCH_TABLE_ARGS
# ("sizes=1000,10000 repeats=1") and KBENCH_RESIZE_ARGS (default
# "sizes=1000000,10000000").  Each run's console log goes to
# build/qemu-bench/BUILD-MODE.log and the module's lines to
# build/qemu-bench/BUILD-MODE.txt; a run fails if insmod did, if the
# module did not print "done", or if the log has a kernel splat.
#
# QEMU runs under TCG here, which does not model caches or memory
# latency: only the ratios between structures mean anything.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
name=$1; shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(table)
build=$ROSEBUSH_WORK/build/$name
src=$ROSEBUSH_WORK/build/kbench-src-$name
out=$ROSEBUSH_WORK/build/qemu-bench
ko=$src/rosebush_kbench.ko

for f in "$build/arch/x86/boot/bzImage" "$build/Module.symvers" \
	 "$build/usr/gen_init_cpio"; do
	[ -e "$f" ] || { echo "qemu-bench: no $f: build the $name kernel first" >&2; exit 1; }
done

# Kbuild writes its objects next to the sources: build a copy.
mkdir -p "$src" "$out"
cp "$top"/tests/bench/kernel/Kbuild "$top"/tests/bench/kernel/*.c "$src/"
export CCACHE_DIR=$ROSEBUSH_WORK/ccache
make -s -C "$ROSEBUSH_WORK/linux" O="$build" M="$src" LLVM=1 \
	CC="ccache clang" W=1 modules 2>&1 | tee "$out/$name-build.log"
if grep -q 'warning:' "$out/$name-build.log"; then
	echo "qemu-bench: rosebush_kbench.c has warnings" >&2
	exit 1
fi

"$top/scripts/initramfs.sh" "$build" "$out/initramfs-$name.cpio" \
	"$top/qemu/${KBENCH_INIT:-bench-init.sh}" "$ko"

rc=0
for mode in "${modes[@]}"; do
	case $mode in
	table)	smp=2; args=${KBENCH_TABLE_ARGS:-} ;;
	resize)	smp=2; args=${KBENCH_RESIZE_ARGS:-sizes=1000000,10000000} ;;
	*)	echo "qemu-bench: unknown mode $mode" >&2; exit 2 ;;
	esac
	cmdline="console=ttyS0 kunit.enable=0 panic=-1 printk.devkmsg=on kbench.mode=$mode"
	for a in $args; do
		cmdline="$cmdline kbench.$a"
	done
	log=$out/$name-$mode.log
	echo "qemu-bench: $mode, $smp vCPUs: $cmdline (log: $log)"
	start=$(date +%s)
	qrc=0
	timeout 3600 qemu-system-x86_64 -nodefaults -m 4096 -smp "$smp" \
		-accel tcg -bios qboot.rom -nographic -serial stdio -no-reboot \
		-kernel "$build/arch/x86/boot/bzImage" \
		-initrd "$out/initramfs-$name.cpio" -append "$cmdline" \
		</dev/null >"$log" 2>&1 || qrc=$?
	grep -E 'rosebush_kbench: |kbench: ' "$log" |
		sed 's/^\[ *[0-9.]*\] //' | tee "$out/$name-$mode.txt"
	echo "qemu-bench: $mode took $(($(date +%s) - start)) s"
	if [ "$qrc" != 0 ]; then
		echo "qemu-bench: QEMU exit status $qrc" >&2
		rc=1
	fi
	if ! grep -q 'kbench: insmod exit status 0' "$log" ||
	   ! grep -q 'rosebush_kbench: done' "$log"; then
		echo "qemu-bench: $mode: the module did not finish (see $log)" >&2
		rc=1
	fi
	if ! python3 "$top/tests/logcheck.py" "$log"; then
		echo "qemu-bench: $mode: the kernel log has a splat (see $log)" >&2
		rc=1
	fi
done
exit $rc
