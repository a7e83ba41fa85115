#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-userspace.sh: build lib/rosebush.c and lib/test_rosebush.c as
# userspace programs (tools/testing/radix-tree, series patches "tools: Add
# support for running rosebush tests in userspace" and "tools: Add a
# rosebush RCU stress test") with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, and run them with liburcu: the KUnit suite,
# then the RCU stress test in its short mode, then every input of the fuzz
# corpus (tests/fuzz/corpus, scripts/fuzz.sh replay).  Each fails on a
# failed check, a sanitizer report, a WARN, or memory left allocated.
#
# Environment: USERSPACE_ARGS (arguments for the suite: -s, seed=N, a
# glob), STRESS_ARGS (for the stress test: -l, ops=N, readers=R,
# writers=W, size=N, seed=N), USERSPACE_TIMEOUT (seconds each program
# may take, default 900).
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A UBSan report is a failure, not a message
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# A runaway allocation loop ends the program, not the machine
export ASAN_OPTIONS=hard_rss_limit_mb=8192
cd "$ROSEBUSH_WORK/linux/tools/testing/radix-tree"
make -s CC=clang rosebush rosebush-stress
# A hang (e.g. synchronize_rcu() inside a read-side section) is a failure
limit=${USERSPACE_TIMEOUT:-900}
run() {
	local rc=0
	timeout "$limit" "$@" || rc=$?
	[ "$rc" != 124 ] || echo "$1: timed out after $limit s" >&2
	return "$rc"
}
# shellcheck disable=SC2086
run ./rosebush ${USERSPACE_ARGS:-}
# shellcheck disable=SC2086
run ./rosebush-stress ${STRESS_ARGS:-}
run "$top/scripts/fuzz.sh" replay
