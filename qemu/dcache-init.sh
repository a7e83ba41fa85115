#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-dcache.sh boots: run
# /dcache-stress (tests/dcache/dcache-stress.c) on a tmpfs, drop the
# caches, unmount it, and reboot (QEMU runs with -no-reboot, so it
# exits).  The program's lines go to /dev/kmsg, as whole kernel log
# records (see qemu/sample-init.sh), and so does its exit status.
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
say() {
	echo "dcache: $*" >/dev/kmsg
}
/bin/busybox mkdir -p /mnt
/bin/busybox mount -t tmpfs tmpfs /mnt
say "mount exit status $?"
/bin/busybox mkdir /mnt/stress
# Each line as it comes, so that a hang still shows how far it got
{ /dcache-stress /mnt/stress "${DCACHE_SECONDS:-3}" 2>&1; echo "exit status $?"; } |
	while IFS= read -r line; do
		echo "dcache: $line" >/dev/kmsg
	done
echo 3 >/proc/sys/vm/drop_caches
say "drop_caches exit status $?"
/bin/busybox umount /mnt
say "umount exit status $?"
say "done"
/bin/busybox reboot -f
