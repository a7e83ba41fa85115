#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-wmm.sh: the weak-memory check (scripts/check-wmm.py).
#  1. The kernel's own litmus tests that the checker reads, each of which
#     must come out as herd7 says in its header: the checker is checked.
#  2. The controls in tests/wmm/.
#  3. The series' Documentation/litmus-tests/rosebush/, with their
#     anchors resolved in the tree: rosebush's barriers as the code has
#     them.  ROSEBUSH_WORK may name a copy of the tree (tests/mutants/).
#  4. The series' Documentation/litmus-tests/dcache/: the dentry hash's
#     orderings, as fs/dcache.c has them.
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$ROSEBUSH_WORK/linux
checker=$top/scripts/check-wmm.py

# Every test of tools/memory-model/litmus-tests without locks, atomics or
# plain-access dependencies (which the checker refuses).
lkmm=(
	CoRR+poonceonce+Once CoRW+poonceonce+Once CoWR+poonceonce+Once
	CoWW+poonceonce
	IRIW+fencembonceonces+OnceOnce IRIW+poonceonces+OnceOnce
	ISA2+poonceonces ISA2+pooncerelease+poacquirerelease+poacquireonce
	LB+fencembonceonce+ctrlonceonce LB+poacquireonce+pooncerelease
	LB+poonceonces
	MP+fencewmbonceonce+fencermbonceonce MP+onceassign+derefonce
	MP+poonceonces MP+pooncerelease+poacquireonce
	R+fencembonceonces R+poonceonces
	S+fencewmbonceonce+poacquireonce S+poonceonces
	SB+fencembonceonces SB+poonceonces SB+rfionceonce-poonceonces
	WRC+poonceonces+Once WRC+pooncerelease+fencermbonceonce+Once
	Z6.0+pooncerelease+poacquirerelease+fencembonceonce
)

status=0
echo "check-wmm: the kernel's litmus tests (tools/memory-model/litmus-tests)"
files=()
for t in "${lkmm[@]}"; do
	files+=("$tree/tools/memory-model/litmus-tests/$t.litmus")
done
python3 "$checker" "${files[@]}" | grep -v '^       ' || status=1

echo "check-wmm: controls (tests/wmm)"
python3 "$checker" "$top"/tests/wmm/*.litmus || status=1

echo "check-wmm: rosebush (Documentation/litmus-tests/rosebush)"
shopt -s nullglob
ours=("$tree"/Documentation/litmus-tests/rosebush/*.litmus)
if [ ${#ours[@]} -eq 0 ]; then
	echo "check-wmm: no litmus tests in $tree/Documentation/litmus-tests/rosebush" >&2
	exit 1
fi
python3 "$checker" --tree "$tree" "${ours[@]}" || status=1

echo "check-wmm: the dentry hash (Documentation/litmus-tests/dcache)"
dcache=("$tree"/Documentation/litmus-tests/dcache/*.litmus)
if [ ${#dcache[@]} -eq 0 ]; then
	echo "check-wmm: no litmus tests in $tree/Documentation/litmus-tests/dcache" >&2
	exit 1
fi
python3 "$checker" --tree "$tree" "${dcache[@]}" || status=1

if [ $status -ne 0 ]; then
	echo "check-wmm: FAILED" >&2
else
	echo "check-wmm: passed (${#lkmm[@]} kernel tests, $(ls "$top"/tests/wmm/*.litmus | wc -l) controls, ${#ours[@]} rosebush tests, ${#dcache[@]} dcache tests)"
fi
exit $status
