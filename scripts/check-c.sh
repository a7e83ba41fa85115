#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-c.sh: compile the series' C files with W=1 and check them with
# sparse (C=2: every file, built or not), in $ROSEBUSH_WORK/build/check, a
# build directory of their own with the KUnit configuration, so that the
# extra flags leave the QEMU kernels' objects alone.  Any warning of
# either in a file of the series fails the check.
#
# The files: lib/rosebush.c, lib/test_rosebush.c and the Rust helpers
# (rust/helpers/helpers.c includes rcu.c, rosebush.c and siphash.c), and
# include/linux/rosebush.h through all of them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
linux=$ROSEBUSH_WORK/linux
build=$ROSEBUSH_WORK/build/check
kunit=$ROSEBUSH_WORK/build/kunit
log=$build/check.log

command -v sparse >/dev/null ||
	{ echo 'check-c: sparse is not installed (make toolchain installs it)' >&2; exit 1; }
[ -f "$kunit/.config" ] ||
	{ echo "check-c: no $kunit/.config: run make qemu-kunit first" >&2; exit 1; }

export CCACHE_DIR=$ROSEBUSH_WORK/ccache CCACHE_MAXSIZE=5G CCACHE_BASEDIR=$linux
mkdir -p "$build"
cp "$kunit/.config" "$build/.config"
make_opts=(-C "$linux" O="$build" LLVM=1 "CC=ccache clang" -j"$(nproc)")

echo "check-c: configuring $build"
make "${make_opts[@]}" olddefconfig >/dev/null
make "${make_opts[@]}" prepare >/dev/null 2>&1 ||
	make "${make_opts[@]}" prepare
echo 'check-c: W=1 and sparse (C=2) on lib/rosebush.c, lib/test_rosebush.c, rust/helpers/helpers.c'
rc=0
make "${make_opts[@]}" W=1 C=2 lib/rosebush.o lib/test_rosebush.o \
	rust/helpers/helpers.o >"$log" 2>&1 || rc=$?
if [ "$rc" != 0 ]; then
	cat "$log" >&2
	echo "check-c: the build failed ($log)" >&2
	exit 1
fi
ours='(lib/(test_)?rosebush\.c|include/linux/rosebush\.h|rust/helpers/(helpers|rcu|rosebush|siphash)\.c)'
# Less one warning: sparse asks whether each Rust helper should be static,
# as it asks of every helper in rust/helpers/: they are called from Rust
# only, through declarations bindgen makes, so C has no prototype of them.
# Sparse reports some warnings at the line of a header that a function of
# ours inlined (a context imbalance at the __release() in rcu_read_unlock()
# names include/linux/rcupdate.h): those name the function, so a warning
# that names one of ours counts too.
funcs="in '(__)?rbh_[a-z_]+'|in 'rust_helper_(rcu_read_(un)?lock|rbh_[a-z_]+|siphash)'"
if grep -E "$ours:[0-9]+(:[0-9]+)?: (warning|error)|: (warning|error): .*($funcs)" "$log" |
	grep -vE "rust/helpers/[a-z]+\.c:.*symbol 'rust_helper_[a-z_]+' was not declared\. Should it be static\?" >&2; then
	echo "check-c: warnings in the series' files (whole log: $log)" >&2
	exit 1
fi
# That the check ran: sparse names every file it checks
checked=$(grep -cE '^ +CHECK +.*(rosebush|helpers)\.c' "$log" || true)
if [ "$checked" -lt 3 ]; then
	cat "$log" >&2
	echo "check-c: sparse checked $checked of the 3 files" >&2
	exit 1
fi
echo "check-c: no warning from W=1 or sparse in the series' files ($checked files checked)"
