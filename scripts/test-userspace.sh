#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-userspace.sh: build lib/rosebush.c and lib/test_rosebush.c as
# userspace programs (tools/testing/radix-tree, series patches "tools: Add
# support for running rosebush tests in userspace" and "tools: Add a
# rosebush RCU stress test") with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, and run them with liburcu: the KUnit suite,
# then the RCU stress test in its short mode.  Either fails on a failed
# check, a WARN, or memory left allocated.
#
# Environment: USERSPACE_ARGS (arguments for the suite: -s, seed=N, a
# glob), STRESS_ARGS (for the stress test: -l, ops=N, readers=R,
# writers=W, size=N, seed=N).
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
cd "$ROSEBUSH_WORK/linux/tools/testing/radix-tree"
make -s CC=clang rosebush rosebush-stress
# shellcheck disable=SC2086
./rosebush ${USERSPACE_ARGS:-}
# shellcheck disable=SC2086
./rosebush-stress ${STRESS_ARGS:-}
