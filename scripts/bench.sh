#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: build tests/bench/rosebush-bench.c against the patched tree's
# userspace harness (tools/testing/radix-tree) with -O2 and no sanitizer,
# in $ROSEBUSH_WORK/build/bench, run it, and plot its lookup results with
# gnuplot if it is installed.
#
#   bench.sh [ARGS...]	ARGS go to the program: -l (sizes up to 10^7),
#			repeats=R, ops=N, max=N, seed=N
#
# The table goes to stdout and to build/bench/bench.txt, every result to
# build/bench/bench.csv, the plot to build/bench/bench.png.
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=$ROSEBUSH_WORK/linux
rt=$tree/tools/testing/radix-tree
dir=$ROSEBUSH_WORK/build/bench
gen=$ROSEBUSH_WORK/build/userspace-generated

# What the tools/testing/radix-tree Makefile uses, minus its sanitizers,
# optimised; the kernel's headers come last, for lib/rhashtable.c, and
# tests/bench/include first, for the few that would pull in the kernel.
cflags=(-I"$gen" -I"$tree/tools/testing/shared" -I"$rt"
	-I"$tree/tools/include" -I"$tree/lib" -I"$top/tests/bench/include"
	-iquote "$tree" -idirafter "$tree/include"
	-g -O2 -DNDEBUG -Wall -D_LGPL_SOURCE)

mkdir -p "$dir" "$gen/generated"
# The headers `make` generates in the tree, for the shared objects
printf '#define CONFIG_%sBIT 1\n' "$(getconf LONG_BIT)" \
	>"$gen/generated/bit-length.h"
echo '#define XA_CHUNK_SHIFT 3' >"$gen/generated/map-shift.h"
cp "$tree/tools/testing/shared/autoconf.h" "$gen/generated/autoconf.h"

echo "bench: building $dir/rosebush-bench"
(cd "$dir" &&
 clang -c "${cflags[@]}" "$tree/tools/lib/slab.c" -o slab.o &&
 clang -c "${cflags[@]}" "$tree/tools/lib/vsprintf.c" -o vsprintf.o &&
 clang -c "${cflags[@]}" "$tree/tools/testing/shared/linux.c" -o linux.o &&
 clang "${cflags[@]}" "$top/tests/bench/rosebush-bench.c" slab.o vsprintf.o \
	linux.o -lurcu-cds -lurcu -lpthread -lm -o rosebush-bench)

"$dir/rosebush-bench" csv="$dir/bench.csv" "$@" | tee "$dir/bench.txt"
echo "bench: table in $dir/bench.txt, every result in $dir/bench.csv"

if ! command -v gnuplot >/dev/null; then
	echo 'bench: gnuplot is not installed: no plot (make toolchain installs gnuplot-nox)'
	exit 0
fi
gnuplot -e "csv='$dir/bench.csv'; png='$dir/bench.png'" \
	"$top/tests/bench/rosebush-bench.gp"
echo "bench: lookup ns/op against entries plotted in $dir/bench.png"
