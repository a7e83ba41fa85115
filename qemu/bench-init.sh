#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-bench.sh boots: load
# rosebush_kbench.ko with the parameters given on the kernel command line
# as "kbench.NAME=VALUE" (kbench.mode=resize, kbench.sizes=1000,10000),
# say how insmod ended, and reboot (QEMU runs with -no-reboot, so it
# exits).  The module prints its results to the kernel log, which goes to
# the serial console as it is printed; this script's own lines go to
# /dev/kmsg, so that they too are whole log records that no other kernel
# message can cut in two (the kernel runs with printk.devkmsg=on).
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
args=$(/bin/busybox tr ' ' '\n' </proc/cmdline | /bin/busybox sed -n 's/^kbench\.//p')
# One line: the parameters, split into words, joined by spaces.
# shellcheck disable=SC2086
echo "kbench: insmod rosebush_kbench.ko" $args >/dev/kmsg
# shellcheck disable=SC2086
/bin/busybox insmod /rosebush_kbench.ko $args
echo "kbench: insmod exit status $?" >/dev/kmsg
/bin/busybox reboot -f
