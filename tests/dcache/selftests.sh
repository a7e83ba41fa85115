#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests.sh OUT: build the kernel's own selftests of path lookup and of
# /proc's dentries (tools/testing/selftests/openat2 and .../proc of the
# patched tree in $ROSEBUSH_WORK/linux) as static programs in
# OUT/selftests/NAME, and write OUT/selftests/list, the names in the order
# to run them, for qemu/dcache-selftests.sh in the initramfs.  Run in the
# build root (scripts/qemu-dcache.sh, under scripts/rb).  Each program is
# compiled directly with clang, as the selftests' lib.mk would
# (-D_GNU_SOURCE, the tree's tools/include/uapi before the build root's
# uapi headers, Debian 13's linux-libc-dev 6.12), without their Makefiles
# or a `make headers_install`; warnings are silenced, not fatal: these are
# upstream files.
#
# Only the tests that pass on this project's kernels (no CONFIG_NET,
# CONFIG_SYSVIPC or CONFIG_USER_NS; QEMU's default CPU, under TCG) are
# listed, the quick ones of /proc first, rename_attack_test (openat2()
# calls against concurrent RENAME_EXCHANGEs: each of its two tests cut
# from 400000 rounds, four minutes under TCG, to 40000) last.  Left out:
#   setns-dcache   unshare(CLONE_NEWNET) and an AF_UNIX socket: needs
#                  CONFIG_NET (fails with status 1)
#   setns-sysvipc  unshare(CLONE_NEWIPC) and shmget(): needs CONFIG_SYSVIPC
#                  (status 1)
#   proc-empty-vm  pkey_alloc() fails with ENOSPC on a CPU without
#                  protection keys (QEMU's default qemu64), which this
#                  version of the test takes for an error (status 1)
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
out=${1:?usage: selftests.sh OUT}/selftests
tree=$ROSEBUSH_WORK/linux
src=$tree/tools/testing/selftests

proc="read self thread-self fd-001-lookup fd-002-posix-eq fd-003-kthread
	proc-self-isnt-kthread proc-2-is-kthread proc-tid0 proc-loadavg-001
	proc-self-map-files-001 proc-self-map-files-002 proc-self-syscall
	proc-self-wchan proc-pid-vm proc-multiple-procfs proc-fsconfig-hidepid
	proc-subset-pid proc-uptime-001 proc-uptime-002"
openat2="openat2_test resolve_test rename_attack_test"

rm -rf "$out"
mkdir -p "$out"
cc() {
	clang -static -O2 -pthread -w -D_GNU_SOURCE= \
		-isystem "$tree/tools/include/uapi" "$@"
}
for t in $proc; do
	cc -o "$out/$t" "$src/proc/$t.c"
	echo "$t" >>"$out/list"
done
# rename_attack_test's 400000 rounds a test take four minutes under TCG
# (KCSAN): a copy with 40000
sed 's/^#define ROUNDS 400000$/#define ROUNDS 40000/' \
	"$src/openat2/rename_attack_test.c" >"$out/rename_attack_test.c"
grep -q '^#define ROUNDS 40000$' "$out/rename_attack_test.c"
for t in $openat2; do
	c=$src/openat2/$t.c
	[ "$t" != rename_attack_test ] || c=$out/$t.c
	cc -I "$src/openat2" -o "$out/$t" "$c" "$src/openat2/helpers.c"
	echo "$t" >>"$out/list"
done
rm "$out/rename_attack_test.c"
