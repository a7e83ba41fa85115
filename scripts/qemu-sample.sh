#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-sample.sh: boot the qemu-kunit kernel ($ROSEBUSH_WORK/build/kunit,
# which `make qemu-kunit` builds with tests/kunit/sample.config) with KUnit
# disabled and a busybox-static initramfs whose /init (qemu/sample-init.sh)
# loads samples/rust/rust_rosebush.ko, which stores ENTRIES (2000) names,
# then unloads it.  Fails unless the module printed what it should, both
# commands succeeded, and the log has no kernel splat (tests/logcheck.py).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
build=$ROSEBUSH_WORK/build/kunit
out=$ROSEBUSH_WORK/build/sample
# ENTRIES in samples/rust/rust_rosebush.rs
entries=2000
ko=$build/samples/rust/rust_rosebush.ko

for f in "$build/arch/x86/boot/bzImage" "$ko" "$build/usr/gen_init_cpio"; do
	[ -e "$f" ] || { echo "qemu-sample: no $f: run make qemu-kunit" >&2; exit 1; }
done
mkdir -p "$out"
"$top/scripts/initramfs.sh" "$build" "$out/initramfs.cpio" "$top/qemu/sample-init.sh" "$ko"

log=$out/console.log
echo "qemu-sample: booting with rust_rosebush.ko (log: $log)"
rc=0
timeout 900 qemu-system-x86_64 -nodefaults -m 1024 -smp 2 -accel tcg \
	-bios qboot.rom -nographic -serial stdio -no-reboot \
	-kernel "$build/arch/x86/boot/bzImage" -initrd "$out/initramfs.cpio" \
	-append "console=ttyS0 kunit.enable=0 panic=-1 printk.devkmsg=on" \
	</dev/null >"$log" 2>&1 || rc=$?
grep -E 'rust_rosebush|sample:' "$log" | sed 's/^/  /' || true
[ "$rc" = 0 ] || echo "qemu-sample: QEMU exit status $rc" >&2

python3 "$top/tests/sample_check.py" "$log" "$entries" "$rc"
