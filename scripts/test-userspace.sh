#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-userspace.sh: build lib/rosebush.c and lib/test_rosebush.c as a
# userspace program (tools/testing/radix-tree, series patch "tools: Add
# support for running rosebush tests in userspace") with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer, and run the KUnit suite
# with liburcu.  It fails if a case fails, a WARN fires, or memory is left
# allocated.  Extra arguments go to the program (e.g. -s, seed=N, a glob).
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
cd "$ROSEBUSH_WORK/linux/tools/testing/radix-tree"
make -s CC=clang rosebush
./rosebush "$@"
