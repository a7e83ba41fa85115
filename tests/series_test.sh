#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of `series.sh check`: it passes on this checkout and fails on
# copies of it with a drifted mirror, with a patch that no longer applies,
# and with a patch that is not what `make export` would write.  Prints
# 'N passed, N failed'.  Runs with the toolchain (scripts/rb).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

copy() {
	rm -rf "$tmp/repo"
	mkdir -p "$tmp/repo"
	(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$tmp/repo")
}

# expect 0|1 NAME: run the check on $tmp/repo, want success (0) or failure (1).
expect() {
	local want=$1 name=$2 rc=0
	bash "$tmp/repo/scripts/series.sh" check > "$tmp/out" 2>&1 || rc=1
	if [ "$rc" = "$want" ]; then
		echo "ok $name"
		passed=$((passed + 1))
	else
		echo "not ok $name"
		sed 's/^/# /' "$tmp/out" | tail -20
		failed=$((failed + 1))
	fi
}

copy
expect 0 "the committed series is in sync"

copy
first=$(find "$tmp/repo/c" -name '*.c' | sort | head -n1)
echo '/* drift */' >> "$first"
expect 1 "a mirror edited by hand is reported"

copy
p=$(sed -n 1p "$tmp/repo/kernel-patches/series")
# Change a context line: the hunk no longer matches the pristine tree.
awk '!done && hunk && /^ / { print " this line is not in the kernel"; done = 1; next }
     /^@@/ { hunk = 1 } { print }' "$tmp/repo/kernel-patches/$p" > "$tmp/p" &&
	mv "$tmp/p" "$tmp/repo/kernel-patches/$p"
expect 1 "a patch that does not git am is reported"

copy
p=$(sed -n 1p "$tmp/repo/kernel-patches/series")
sed -i 's/^Subject: \[PATCH v3 /Subject: [PATCH /' "$tmp/repo/kernel-patches/$p"
expect 1 "a patch not in exported form is reported"

echo "series: $passed passed, $failed failed"
[ "$failed" = 0 ]
