#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-sample.sh boots: load the Rust
# rosebush sample, unload it, and reboot (QEMU runs with -no-reboot, so it
# exits).  The kernel log goes to the serial console as it is printed.
# This script's own lines go to /dev/kmsg, not to the console: a line
# written to the console can be cut in two by a kernel message printed
# meanwhile, a kernel log record cannot (the kernel runs with
# printk.devkmsg=on, so none is rate-limited away).
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
say() {
	echo "sample: $*" >/dev/kmsg
}
say "insmod rust_rosebush.ko"
/bin/busybox insmod /rust_rosebush.ko
say "insmod exit status $?"
say "loaded: $(/bin/busybox grep rust_rosebush /proc/modules)"
/bin/busybox rmmod rust_rosebush
say "rmmod exit status $?"
say "rust_rosebush in /proc/modules after rmmod: $(/bin/busybox grep -c rust_rosebush /proc/modules)"
say "done"
/bin/busybox reboot -f
