#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh BUILD OUT INIT [KO]
#
# Write OUT (a cpio archive, with its list beside it as OUT.list) for the
# kernel in BUILD: busybox-static as /bin/busybox, INIT as /init, and the
# module KO, if given, at the root, made by the tree's own
# usr/gen_init_cpio (BUSYBOX names another busybox, one of the
# kernel's architecture).  /dev holds the console, /dev/kmsg (an init's own
# lines go there, so that they are whole kernel log records that no other
# record can split) and the second serial port, not a console, to which
# qemu/kunit-init.sh copies the KUnit results: /dev/ttyS1, or on arm64
# /dev/ttyAMA1.  INITRAMFS_FILES adds more: a space-separated list of
# SRC:DEST (DEST absolute, its directory made if need be: one level).  Used by
# qemu-kunit.sh, qemu-sample.sh, qemu-bench.sh and qemu-dcache.sh.
set -euo pipefail

build=$1 out=$2 init=$3 ko=${4:-}

{
	cat <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
nod /dev/kmsg 0644 0 0 c 1 11
nod /dev/ttyS1 0600 0 0 c 4 65
nod /dev/ttyAMA1 0600 0 0 c 204 65
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /bin 0755 0 0
file /bin/busybox ${BUSYBOX:-$(command -v busybox)} 0755 0 0
file /init $init 0755 0 0
LIST
	[ -z "$ko" ] || echo "file /$(basename "$ko") $ko 0644 0 0"
	# Each DEST's directory once, before the files in it
	declare -A dirs=([/]=1 [/dev]=1 [/proc]=1 [/sys]=1 [/bin]=1)
	for f in ${INITRAMFS_FILES:-}; do
		d=$(dirname "${f#*:}")
		[ -n "${dirs[$d]:-}" ] || echo "dir $d 0755 0 0"
		dirs[$d]=1
		echo "file ${f#*:} ${f%%:*} 0755 0 0"
	done
} >"$out.list"
"$build/usr/gen_init_cpio" "$out.list" >"$out"
