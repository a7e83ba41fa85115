#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-kunit.sh NAME FRAGMENT...
#
# Build the patched tree with LLVM=1 into $ROSEBUSH_WORK/build/NAME (one
# build directory per configuration, so rebuilds are incremental) and run
# KUnit in QEMU through the kernel's own kunit.py, with the given
# kunitconfig fragments.  Then judge the raw kernel log with
# tests/kunit_check.py: kunit.py's summary alone misses splats.
#
# Environment: KUNIT_ARGS (extra kunit.py arguments, e.g. a filter glob:
# KUNIT_ARGS="rosebush.*"), KUNIT_SUITES (suites that must have run),
# KUNIT_BUILD_ONLY=1 (configure and build, do not run).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
name=$1; shift
linux=$ROSEBUSH_WORK/linux
build=$ROSEBUSH_WORK/build/$name

configs=()
for f in "$@"; do
	configs+=(--kunitconfig="$top/$f")
done

export CCACHE_DIR=$ROSEBUSH_WORK/ccache CCACHE_MAXSIZE=5G CCACHE_BASEDIR=$linux
mkdir -p "$build" "$CCACHE_DIR"

cd "$linux"
# Rust is built with clippy (CLIPPY=1); kunit.py prints what the build
# wrote to stderr, so the warnings of whatever was recompiled.
opts=(--arch=x86_64 --qemu_config="$top/qemu/x86_64.py"
      --build_dir="$build" --jobs="$(nproc)"
      --make_options LLVM=1 --make_options "CC=ccache clang"
      --make_options CLIPPY=1 "${configs[@]}")
out=$build/kunit-output.log
rc=0
if [ -n "${KUNIT_BUILD_ONLY:-}" ]; then
	PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py build "${opts[@]}" |
		tee "$out" || rc=$?
else
	# shellcheck disable=SC2086
	PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py run "${opts[@]}" \
		--timeout=900 ${KUNIT_ARGS:-} | tee "$out" || rc=$?
fi
# A compiler or clippy warning in the series' own files fails the run.
if grep -E -B3 -A12 'lib/(test_)?rosebush\.c:[0-9]+:[0-9]+: warning|--> .*(rust/kernel/rosebush|rust/kernel/sync/rcu|samples/rust/rust_rosebush|rust/doctests_kernel_generated)\.rs' "$out" |
	grep -q 'warning'; then
	echo "$name: the build warned about the series' files (see above)" >&2
	rc=1
fi
if [ -n "${KUNIT_BUILD_ONLY:-}" ]; then
	exit $rc
fi

echo
# shellcheck disable=SC2086
python3 "$top/tests/kunit_check.py" "$linux" "$build/test.log" ${KUNIT_SUITES:-} || rc=1
exit $rc
