#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-sample.sh boots: load the Rust
# rosebush sample with entries=N, N from "sample_entries=N" on the kernel
# command line, unload it, and reboot (QEMU runs with -no-reboot, so it
# exits).  The kernel log goes to the serial console as it is printed.
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
entries=$(/bin/busybox sed -n 's/.*sample_entries=\([0-9]*\).*/\1/p' /proc/cmdline)
echo "sample: insmod rust_rosebush.ko entries=$entries"
/bin/busybox insmod /rust_rosebush.ko "entries=$entries"
echo "sample: insmod exit status $?"
/bin/busybox grep rust_rosebush /proc/modules
/bin/busybox rmmod rust_rosebush
echo "sample: rmmod exit status $?"
/bin/busybox grep -c rust_rosebush /proc/modules
echo "sample: done"
/bin/busybox reboot -f
