#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the initramfs /init (qemu/dcache-init.sh) once /proc, /sys
# and a tmpfs at /mnt are mounted: defines run_selftests, which runs the
# kernel's selftests that tests/dcache/selftests.sh built into
# /selftests (their names, in order, in /selftests/list).  Each runs as
# root in a fresh directory /mnt/selftests/NAME, with stdin from
# /dev/null, for at most SELFTEST_TIMEOUT (600) seconds when busybox has
# timeout; its lines go to /dev/kmsg as "dcache: selftest NAME: LINE" as
# they come, then exactly one line "dcache: selftest NAME exit status N"
# (0 passed, 4 kselftest's skip, 143 killed by timeout).  The tests want
# /dev/null and /dev/zero, made here when missing, and a /tmp that is a
# mount point (resolve_test makes it private), mounted here as a tmpfs
# unless it is one already and unmounted afterwards.  Returns 0 if every
# test exited with 0 (and /tmp, if mounted here, unmounted), 1 if not
# (or if there is no list).

run_selftests() {
	local name dir status line timeout mounted_tmp='' failed=0 n
	if [ ! -r /selftests/list ]; then
		echo "dcache: selftests: no /selftests/list" >/dev/kmsg
		return 1
	fi
	[ -e /dev/null ] || /bin/busybox mknod -m 0666 /dev/null c 1 3
	[ -e /dev/zero ] || /bin/busybox mknod -m 0666 /dev/zero c 1 5
	/bin/busybox mkdir -p /tmp /mnt/selftests
	# (busybox-static has no mountpoint)
	if ! /bin/busybox grep -q '^[^ ]* /tmp ' /proc/mounts; then
		/bin/busybox mount -t tmpfs tmpfs /tmp && mounted_tmp=1
	fi
	timeout=
	if /bin/busybox --list | /bin/busybox grep -qx timeout; then
		timeout="/bin/busybox timeout ${SELFTEST_TIMEOUT:-600}"
	fi
	while IFS= read -r name; do
		[ -n "$name" ] || continue
		dir=/mnt/selftests/$name
		/bin/busybox rm -rf "$dir"
		/bin/busybox mkdir -p "$dir"
		# The cd in the test's own shell, after timeout has forked
		# its watcher, which outlives the test by up to a second and
		# so must not hold a directory on /mnt; the status through a
		# file, as the loop that copies the lines to /dev/kmsg runs
		# in a subshell of its own
		# shellcheck disable=SC2016,SC2086 # $1 and $2 are sh -c's; $timeout is a command and its arguments
		{
			$timeout /bin/busybox sh -c 'cd "$1" && exec "$2"' sh \
				"$dir" "/selftests/$name" </dev/null 2>&1
			echo "$?" >"$dir.status"
		} |
			while IFS= read -r line || [ -n "$line" ]; do
				echo "dcache: selftest $name: $line" >/dev/kmsg
			done
		status=
		read -r status <"$dir.status" || true
		echo "dcache: selftest $name exit status ${status:-unknown}" >/dev/kmsg
		[ "$status" = 0 ] || failed=1
	done </selftests/list
	# rename_attack_test kills its child without waiting for it: the
	# child may still hold a directory of /tmp for a moment
	if [ -n "$mounted_tmp" ]; then
		n=0
		while [ $n -lt 5 ]; do
			n=$((n + 1))
			/bin/busybox umount /tmp && break
			/bin/busybox sleep 1
		done
		! /bin/busybox grep -q '^[^ ]* /tmp ' /proc/mounts || failed=1
	fi
	return $failed
}
