#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-kunit.sh boots.  The built-in
# KUnit suites have all run by now: kernel_init_freeable() calls
# kunit_run_all_tests() before it starts /init.  Copy every suite's
# /sys/kernel/debug/kunit/SUITE/results to the second serial port
# ($kunit_results from the kernel command line: /dev/ttyS1, or /dev/ttyAMA1
# on arm64), which is not a console: QEMU writes it to a file that holds
# KUnit's own output and nothing else, whatever the kernel printed
# meanwhile.  A first line marks the start, and a last one gives the number
# of suites copied, so that a copy cut short is seen as one.  Closing the
# port waits until it has sent everything; then reboot (QEMU runs with
# -no-reboot, so it exits).
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t debugfs debugfs /sys/kernel/debug
out=${kunit_results:-/dev/ttyS1}
/bin/busybox stty -F "$out" raw -echo
n=0
{
	echo "# kunit-init: results"
	for r in /sys/kernel/debug/kunit/*/results; do
		[ -e "$r" ] || continue
		/bin/busybox cat "$r" && n=$((n + 1))
	done
	echo "# kunit-init: end of results, $n suites"
} >"$out"
echo "kunit-init: copied the results of $n suites to $out" >/dev/kmsg
/bin/busybox reboot -f
