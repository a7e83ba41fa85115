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
# KUNIT_ARGS="rosebush.*"), KUNIT_SUITES (suites that must have run).
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
rc=0
# shellcheck disable=SC2086
PYTHONUNBUFFERED=1 python3 tools/testing/kunit/kunit.py run \
	--arch=x86_64 --qemu_config="$top/qemu/x86_64.py" \
	--build_dir="$build" --jobs="$(nproc)" --timeout=900 \
	--make_options LLVM=1 --make_options "CC=ccache clang" \
	"${configs[@]}" ${KUNIT_ARGS:-} || rc=$?

echo
# shellcheck disable=SC2086
python3 "$top/tests/kunit_check.py" "$linux" "$build/test.log" ${KUNIT_SUITES:-} || rc=1
exit $rc
