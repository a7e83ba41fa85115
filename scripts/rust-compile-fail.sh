#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rust-compile-fail.sh: the kernel's doctests cannot say `compile_fail`, so
# each tests/rust-compile-fail/NAME.rs is built here as an out-of-tree
# module against the qemu-kunit build ($ROSEBUSH_WORK/build/kunit), and must
# fail with the message its first line names ("// expect: MESSAGE"), or
# build if that line says "compiles".  Fails if any case does otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
build=$ROSEBUSH_WORK/build/kunit
scratch=$ROSEBUSH_WORK/build/rust-compile-fail
[ -e "$build/rust/libkernel.rmeta" ] || {
	echo "rust-compile-fail: no $build/rust/libkernel.rmeta: run make qemu-kunit" >&2
	exit 1
}

bad=0
for src in "$top"/tests/rust-compile-fail/*.rs; do
	name=$(basename "$src" .rs)
	expect=$(sed -n '1s|^// expect: ||p' "$src")
	[ -n "$expect" ] || { echo "rust-compile-fail: $name: no '// expect:' line" >&2; exit 1; }
	dir=$scratch/$name
	rm -rf "$dir"
	mkdir -p "$dir"
	mod=${name//-/_}
	echo "obj-m := rbcf_$mod.o" >"$dir/Makefile"
	{
		echo '// SPDX-License-Identifier: GPL-2.0'
		echo "//! tests/rust-compile-fail/$name.rs as a module."
		# Inner attributes of the case go first.
		grep '^#!\[' "$src" || true
		echo 'use kernel::prelude::*;'
		echo "module! { type: M, name: \"rbcf_$mod\", license: \"GPL\", }"
		echo 'struct M;'
		echo 'impl kernel::Module for M {'
		echo '    fn init(_module: &'"'"'static ThisModule) -> Result<Self> { Ok(M) }'
		echo '}'
		echo 'mod case {'
		grep -v '^#!\[' "$src"
		echo '}'
	} >"$dir/rbcf_$mod.rs"
	rc=0
	make -s -C "$ROSEBUSH_WORK/linux" O="$build" M="$dir" ARCH=x86_64 LLVM=1 \
		modules >"$dir/build.log" 2>&1 || rc=$?
	if [ "$expect" = compiles ]; then
		if [ "$rc" = 0 ]; then
			result=ok
		else
			result="FAILED: does not compile"
		fi
	elif [ "$rc" = 0 ]; then
		result="FAILED: compiles"
	elif grep -qF -- "$expect" "$dir/build.log"; then
		result=ok
	else
		result="FAILED: fails without \"$expect\""
	fi
	printf 'rust-compile-fail: %-30s %s\n' "$name" "$result"
	if [ "$result" != ok ]; then
		bad=1
		sed 's/^/    /' "$dir/build.log" | head -40
	fi
done
[ "$bad" = 0 ] || exit 1
echo 'rust-compile-fail: every case did what it should'
