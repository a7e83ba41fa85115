#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-dcache-ab.sh boots on kernel A
# and on kernel B: run /dcache-bench (tests/dcache/dcache-bench.c) in
# /mnt, where it mounts a tmpfs of its own for each depth, with the
# arguments of AB_ARGS (from the kernel command line, words joined by
# ':'), and reboot (QEMU runs with -no-reboot, so it exits).  Every line
# goes to /dev/kmsg as a whole kernel log record (see qemu/sample-init.sh),
# prefixed "dcache-ab: ", and so does the program's exit status.
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mkdir -p /mnt
args=$(echo "${AB_ARGS:-}" | /bin/busybox tr ':' ' ')
echo "dcache-ab: dcache-bench /mnt $args" >/dev/kmsg
# shellcheck disable=SC2086 # the arguments, split into words
{ /dcache-bench /mnt $args 2>&1; echo "exit status $?"; } |
	while IFS= read -r line; do
		echo "dcache-ab: $line" >/dev/kmsg
	done
/bin/busybox reboot -f
