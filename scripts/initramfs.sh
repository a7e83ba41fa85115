#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh BUILD OUT INIT KO
#
# Write OUT (a cpio archive, with its list beside it as OUT.list) for the
# kernel in BUILD: busybox-static as /bin/busybox, INIT as /init, and the
# module KO at the root, made by the tree's own usr/gen_init_cpio.  Used by
# qemu-sample.sh and qemu-bench.sh.
set -euo pipefail

build=$1 out=$2 init=$3 ko=$4

cat >"$out.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
dir /bin 0755 0 0
file /bin/busybox $(command -v busybox) 0755 0 0
file /init $init 0755 0 0
file /$(basename "$ko") $ko 0644 0 0
LIST
"$build/usr/gen_init_cpio" "$out.list" >"$out"
