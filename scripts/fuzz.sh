#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh: the fuzz target (tests/fuzz/rosebush-fuzz.c) and the coverage
# report, built with clang against the patched tree's userspace harness
# (tools/testing/radix-tree), each configuration in its own directory
# under $ROSEBUSH_WORK/build/ so that none disturbs the objects that
# `make test-userspace` builds in the tree.
#
#   fuzz.sh replay	run every input of tests/fuzz/corpus once (ASan, UBSan)
#   fuzz.sh fuzz SECS	fuzz for SECS seconds from that corpus; new inputs go
#			to build/fuzz/corpus, crashes to build/fuzz/artifacts
#   fuzz.sh coverage	line and branch coverage of lib/rosebush.c from the
#			suite, the stress test and the corpus; HTML report in
#			build/coverage/html
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=$ROSEBUSH_WORK/linux
rt=$tree/tools/testing/radix-tree
corpus=$top/tests/fuzz/corpus

# A UBSan report is a failure, not a message
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:hard_rss_limit_mb=8192

# What the tools/testing/radix-tree Makefile uses, minus its sanitizers
gen=$ROSEBUSH_WORK/build/userspace-generated
base_cflags=(-I"$gen" -I"$tree/tools/testing/shared" -I"$rt"
	     -I"$tree/tools/include" -I"$tree/lib" -g -O1 -Wall -D_LGPL_SOURCE)

# The fuzz target injects allocation failures and runs RCU callbacks itself
wraps=-Wl,--wrap=kmalloc,--wrap=urcu_memb_call_rcu,--wrap=urcu_memb_barrier

# build DIR 'EXTRA CFLAGS' 'EXTRA LDFLAGS' PROGRAM:SOURCE:CFLAGS...
# Compile the harness's shared objects and each program into DIR.
build() {
	local dir=$1 cflags=$2 ldflags=$3 prog name src pflags
	shift 3
	mkdir -p "$dir" "$gen/generated"
	# The headers `make` generates in the tree, for any shared object
	printf '#define CONFIG_%sBIT 1\n' "$(getconf LONG_BIT)" \
		>"$gen/generated/bit-length.h"
	echo '#define XA_CHUNK_SHIFT 3' >"$gen/generated/map-shift.h"
	cp "$tree/tools/testing/shared/autoconf.h" \
		"$gen/generated/autoconf.h"
	# shellcheck disable=SC2086
	(cd "$dir" &&
	 clang -c "${base_cflags[@]}" $cflags "$tree/tools/lib/slab.c" -o slab.o &&
	 clang -c "${base_cflags[@]}" $cflags "$tree/tools/lib/vsprintf.c" \
		-o vsprintf.o &&
	 clang -c "${base_cflags[@]}" $cflags "$tree/tools/testing/shared/linux.c" \
		-o linux.o)
	for prog in "$@"; do
		IFS=: read -r name src pflags <<<"$prog"
		# shellcheck disable=SC2086
		clang "${base_cflags[@]}" $cflags $pflags "$src" \
			"$dir/slab.o" "$dir/vsprintf.o" "$dir/linux.o" $ldflags -lpthread -lurcu \
			-o "$dir/$name"
	done
}

fuzz_build() {
	local dir=$ROSEBUSH_WORK/build/fuzz
	build "$dir" '-fsanitize=address,undefined' \
		"-fsanitize=fuzzer,address,undefined $wraps" \
		"rosebush-fuzz:$top/tests/fuzz/rosebush-fuzz.c:-fsanitize=fuzzer"
	echo "$dir/rosebush-fuzz"
}

replay() {
	local fuzzer n log=$ROSEBUSH_WORK/build/fuzz/replay.log
	fuzzer=$(fuzz_build)
	n=$(find "$corpus" -type f | wc -l)
	# One run of each file; libFuzzer stops at the first failure
	if ! find "$corpus" -type f -print0 | sort -z |
		xargs -0 "$fuzzer" -runs=1 -timeout=120 >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "fuzz: replay of tests/fuzz/corpus FAILED (log: $log)" >&2
		return 1
	fi
	echo "fuzz: replayed the $n inputs of tests/fuzz/corpus, no failure"
}

fuzz() {
	local secs=$1 fuzzer dir=$ROSEBUSH_WORK/build/fuzz
	fuzzer=$(fuzz_build)
	mkdir -p "$dir/corpus" "$dir/artifacts"
	echo "fuzz: $secs s from tests/fuzz/corpus; new inputs in $dir/corpus"
	"$fuzzer" -max_total_time="$secs" -print_final_stats=1 -max_len=4096 \
		-artifact_prefix="$dir/artifacts/" -print_pcs=0 \
		"$dir/corpus" "$corpus"
}

coverage() {
	local dir=$ROSEBUSH_WORK/build/coverage flags
	flags='-fprofile-instr-generate -fcoverage-mapping'
	rm -rf "$dir"
	build "$dir" "$flags" "$flags $wraps" \
		"rosebush-fuzz:$top/tests/fuzz/rosebush-fuzz.c:-fsanitize=fuzzer"
	build "$dir/suite" "$flags" "$flags" \
		"rosebush:$rt/rosebush.c:" "rosebush-stress:$rt/rosebush-stress.c:"
	(cd "$dir" &&
	 LLVM_PROFILE_FILE=$dir/suite.profraw ./suite/rosebush >suite.log &&
	 LLVM_PROFILE_FILE=$dir/stress.profraw ./suite/rosebush-stress -q \
		>stress.log &&
	 find "$corpus" -type f -print0 | sort -z |
	 LLVM_PROFILE_FILE=$dir/fuzz-%p.profraw xargs -0 ./rosebush-fuzz -runs=1 \
		>fuzz.log 2>&1) || {
		echo 'coverage: a program failed; logs in '"$dir" >&2
		return 1
	}
	llvm-profdata merge -o "$dir/all.profdata" "$dir"/*.profraw
	local cov=("$dir/rosebush-fuzz" -object "$dir/suite/rosebush"
		   -object "$dir/suite/rosebush-stress"
		   -instr-profile="$dir/all.profdata")
	llvm-cov show "${cov[@]}" -format=html -show-branches=count \
		-output-dir="$dir/html" "$tree/lib/rosebush.c"
	llvm-cov export "${cov[@]}" "$tree/lib/rosebush.c" >"$dir/coverage.json"
	# Each program has its own copy of lib/rosebush.c's static functions,
	# and llvm-cov's branch summary counts a branch as taken only if one
	# copy took it.  Count it if any program did, as it does for lines.
	python3 - "$dir/coverage.json" "$tree/lib/rosebush.c" <<'EOF'
import json, sys
from collections import defaultdict
data = json.load(open(sys.argv[1]))["data"][0]
lines = data["files"][0]["summary"]["lines"]
taken = defaultdict(lambda: [False, False])
for fn in data["functions"]:
    for b in fn["branches"]:
        if fn["filenames"][b[6]] == sys.argv[2]:
            side = taken[tuple(b[:4])]
            side[0] |= b[4] > 0
            side[1] |= b[5] > 0
count = 2 * len(taken)
covered = sum(t + f for t, f in taken.values())
print(f"coverage: lib/rosebush.c lines {lines['covered']}/{lines['count']} "
      f"({lines['percent']:.1f}%), branches {covered}/{count} "
      f"({100 * covered / count:.1f}%) (targets: 95% and 85%)")
missed = sorted(set(k[0] for k, v in taken.items() if not all(v)))
print("coverage: branches taken one way only, at lines:",
      " ".join(map(str, missed)))
EOF
	# Lines never run, from the text report
	llvm-cov show "${cov[@]}" "$tree/lib/rosebush.c" -use-color=false |
		awk -F'|' '$2 ~ /^ *0$/ { printf "%s%s", sep, $1 + 0; sep = " " }
			   END { print "" }' |
		sed 's/^/coverage: lines never run: /'
	echo "coverage: HTML report in $dir/html/index.html"
}

case "${1:-}" in
replay) replay ;;
fuzz) fuzz "${2:?seconds}" ;;
coverage) coverage ;;
*) echo "usage: $0 replay|fuzz SECONDS|coverage" >&2; exit 2 ;;
esac
