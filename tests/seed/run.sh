#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/seed/run.sh [REPO_COMMIT]: show the v2 (seed) defects failing.
#
# A one-off, not part of `make test`: the seed crashes by design.  Run it
# as `scripts/rb tests/seed/run.sh` with the tree ($ROSEBUSH_WORK/linux)
# clean.  It takes series patches 0001-0002 (the v2 port, without the RCU
# fix that was patch 0003) from REPO_COMMIT of this repository (default
# c9c446e, the last commit with the v2 series), applies them to the
# pristine import on a detached HEAD, builds
# tests/seed/test_rosebush_seed.c in place of lib/test_rosebush.c with the
# debug configuration, boots each case on its own (several crash), keeps
# the logs in tests/seed/logs/, and returns the tree to its branch.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
: "${ROSEBUSH_WORK:?}"
linux=$ROSEBUSH_WORK/linux
commit=${1:-c9c446e}
out=$top/tests/seed/logs
patches=$(mktemp -d)
cases="seed_destroy_never_used seed_destroy_initial_table
       seed_destroy_shared_last_slot seed_split_rcu_balance seed_equal_hashes"

cd "$linux"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "seed: the tree has uncommitted changes" >&2
	exit 1
fi
for p in 0001-rosebush-Add-new-data-structure.patch \
	 0002-rosebush-Add-test-suite.patch; do
	git -C "$top" show "$commit:kernel-patches/$p" >"$patches/$p"
done
back=$(git symbolic-ref --short HEAD)
trap 'git am --abort 2>/dev/null || true; git checkout -q -f "$back"; rm -rf "$patches"' EXIT
git checkout -q --detach import
git am -q "$patches"/*.patch
cp "$top/tests/seed/test_rosebush_seed.c" lib/test_rosebush.c

mkdir -p "$out"
for c in $cases; do
	echo "=== $c"
	KUNIT_FILTER="rosebush_seed.$c" KUNIT_SUITES=rosebush_seed \
		"$top/scripts/qemu-kunit.sh" kunit \
		tests/kunit/base.config tests/kunit/rosebush.config \
		tests/kunit/debug.config >/dev/null 2>&1 || true
	cp "$ROSEBUSH_WORK/build/kunit/test.log" "$out/$c.log"
	python3 "$top/tests/logcheck.py" "$out/$c.log" | head -5 || true
	grep -E "^ *(not )?ok [0-9]+ $c" "$out/$c.log" || echo "$c: no result (crashed)"
done
