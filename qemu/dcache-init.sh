#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the initramfs that scripts/qemu-dcache.sh boots.  On a tmpfs
# at /mnt it runs /dcache-stress (tests/dcache/dcache-stress.c): the
# renames, exchanges, whiteouts, unlinks and /proc churn, then the same
# with failslab failing its slab allocations; then file handles on an
# ext4 image after dropping the caches, a tmpfs unmounted during walks, a
# vfat image (lookups through d_compare), and the kernel's openat2 and
# proc selftests (qemu/dcache-selftests.sh).  Then it drops the caches,
# unmounts the tmpfs, prints the dentry hash's shape at rest
# (/sys/kernel/debug/dcache/hash) and /proc/sys/fs/dentry-state, copies
# fs/dcache.c's gcov counts, if the kernel has them, to the second serial
# port in base64, and reboots (QEMU runs with -no-reboot, so it exits).
# Every line goes to /dev/kmsg, as whole kernel log records (see
# qemu/sample-init.sh), and so does each step's exit status.
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb mount -t debugfs debugfs /sys/kernel/debug
# The initramfs has no devtmpfs: the nodes the steps below need
$bb mknod -m 0666 /dev/null c 1 3
$bb mknod -m 0666 /dev/zero c 1 5
$bb mknod /dev/loop-control c 10 237
$bb mknod /dev/loop0 b 7 0
$bb mknod /dev/loop1 b 7 1
say() {
	echo "dcache: $*" >/dev/kmsg
}
# Each line as it comes, so that a hang still shows how far it got
log() {
	while IFS= read -r line || [ -n "$line" ]; do
		echo "dcache: $line" >/dev/kmsg
	done
}
# step NAME COMMAND...: run it, its lines and "NAME exit status N" logged
step() {
	name=$1
	shift
	{ "$@" 2>&1; echo "$name exit status $?"; } | log
}
# The gcov counts from here on, not the boot's
[ ! -e /sys/kernel/debug/gcov/reset ] || echo 1 >/sys/kernel/debug/gcov/reset
seconds=${DCACHE_SECONDS:-3}

$bb mkdir -p /mnt
$bb mount -t tmpfs tmpfs /mnt
say "mount exit status $?"
$bb mkdir /mnt/stress
{ /dcache-stress /mnt/stress "$seconds" 2>&1; echo "exit status $?"; } | log

# Slab allocations fail at random for the program alone (task-filter and
# its /proc/self/make-it-fail), those that may sleep too.
failslab() {
	f=/sys/kernel/debug/failslab
	echo 0 >$f/verbose && echo N >$f/ignore-gfp-wait &&
		echo Y >$f/task-filter && echo -1 >$f/times &&
		echo 1 >$f/interval && echo 10 >$f/probability || return
	$bb mkdir /mnt/failslab
	/dcache-stress --failslab /mnt/failslab "$seconds"
	st=$?
	echo 0 >$f/probability || return
	return $st
}
step failslab failslab

$bb dd if=/dev/zero of=/mnt/ext4.img bs=1M seek=16 count=0 2>/dev/null
step mke2fs $bb mke2fs -F /mnt/ext4.img
$bb mkdir /ext4
step "ext4 mount" $bb mount -t ext4 -o loop /mnt/ext4.img /ext4
step handles /dcache-stress --handles /ext4 "$seconds"
step "ext4 umount" $bb umount /ext4

$bb mkdir /mnt/umount
step "umount walks" /dcache-stress --umount /mnt/umount "$seconds"

# vfat matches names without regard to case: its d_hash and d_compare
$bb dd if=/dev/zero of=/mnt/vfat.img bs=1M seek=40 count=0 2>/dev/null
step mkdosfs $bb mkdosfs /mnt/vfat.img
$bb mkdir /vfat
step "vfat mount" $bb mount -t vfat -o loop /mnt/vfat.img /vfat
vfat() {
	$bb mkdir /vfat/Dir && echo x >/vfat/Dir/File &&
		$bb stat -c %s /vfat/DIR/file && $bb stat -c %s /vfat/dir/FILE &&
		$bb mv /vfat/dir/file /vfat/DIR/Other &&
		$bb stat -c %s /vfat/Dir/OTHER && ! $bb stat /vfat/Dir/File &&
		$bb mv /vfat/DIR /vfat/Renamed && $bb stat -c %s /vfat/renamed/other
}
step vfat vfat
step "vfat umount" $bb umount /vfat

# shellcheck source=qemu/dcache-selftests.sh
. /dcache-selftests.sh
step selftests run_selftests

echo 3 >/proc/sys/vm/drop_caches
# shellcheck disable=SC2320 # the echo's status is the write's
say "drop_caches exit status $?"
$bb umount /mnt
say "umount exit status $?"
# At rest: nothing is being looked up, so no reservation is left.  The
# work item the drop queued may be merging buckets, which rbh_stats()
# may then count twice: read until two reads agree.
echo 3 >/proc/sys/vm/drop_caches
h=/sys/kernel/debug/dcache/hash
old=
n=0
while [ $n -lt 10 ]; do
	n=$((n + 1))
	$bb sleep 1
	new=$($bb cat $h)
	[ "$new" != "$old" ] || break
	old=$new
done
echo "$new" | $bb sed 's/^/dentry_hash: /' | log
# Each hashed dentry stored once under its name's hash, and nothing else
$bb cat /sys/kernel/debug/dcache/verify | $bb sed 's/^/dentry_verify: /' | log
echo "dentry-state: $($bb cat /proc/sys/fs/dentry-state)" | log
g=$($bb find /sys/kernel/debug/gcov -name dcache.gcda 2>/dev/null)
if [ -n "$g" ]; then
	echo gcov-begin >/dev/ttyS1
	$bb base64 "$g" >/dev/ttyS1
	st=$?
	echo gcov-end >/dev/ttyS1
	say "gcov exit status $st"
fi
say "done"
$bb reboot -f
