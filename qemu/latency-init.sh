#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that `make qemu-bench-latency` boots: arm the
# preemptoff tracer, run the benchmark module (mode=resize, from the
# kernel command line's kbench.* arguments), then report the longest
# section with preemption disabled, in microseconds, and where it started
# and ended (tracefs's tracing_max_latency and trace).  Lines go to
# /dev/kmsg, as bench-init.sh's do, with the "kbench: " prefix that
# scripts/qemu-bench.sh keeps.
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t tracefs tracefs /sys/kernel/tracing
t=/sys/kernel/tracing
echo preemptoff >$t/current_tracer
echo 0 >$t/tracing_max_latency
echo 1 >$t/tracing_on
args=$(/bin/busybox tr ' ' '\n' </proc/cmdline | /bin/busybox sed -n 's/^kbench\.//p')
echo "kbench: insmod rosebush_kbench.ko" $args >/dev/kmsg
/bin/busybox insmod /rosebush_kbench.ko $args
echo "kbench: insmod exit status $?" >/dev/kmsg
echo 0 >$t/tracing_on
echo "kbench: preemptoff: longest section $(/bin/busybox cat $t/tracing_max_latency) us" >/dev/kmsg
/bin/busybox grep -E 'latency:|started at|ended at|=>' $t/trace | /bin/busybox head -n 24 |
	while read -r line; do
		echo "kbench: preemptoff: $line" >/dev/kmsg
	done
/bin/busybox reboot -f
