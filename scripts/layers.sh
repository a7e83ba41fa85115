#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series patch by patch, as a reviewer takes it in.
#
# layers.sh lines   - print each patch's added and removed lines and the
#                     size of lib/rosebush.c + include/linux/rosebush.h
#                     after it; fail when that size, after the last patch
#                     that changes it, exceeds CORE_LINES_MAX.
# layers.sh bisect  - at every patch that changes what the userspace
#                     harness compiles (lib/rosebush.c, its header, its
#                     test suite, tools/), from the patch that adds the
#                     harness on: build the harness and run its suite.
#                     Fails at the first patch that does not build or
#                     whose suite fails, naming it.
#
# Both read the commits import..rosebush of $ROSEBUSH_WORK/linux, which
# 'make check-tree' has found equal to kernel-patches/.
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
linux=$ROSEBUSH_WORK/linux
core=(lib/rosebush.c include/linux/rosebush.h)
harness=tools/testing/radix-tree/rosebush.c

die() { printf 'rosebush: error: %s\n' "$*" >&2; exit 1; }

commits() { git -C "$linux" rev-list --reverse import..rosebush; }

# size COMMIT: lines of the core files at COMMIT (0 for a missing file).
size() {
	local f n total=0
	for f in "${core[@]}"; do
		n=$(git -C "$linux" show "$1:$f" 2>/dev/null | wc -l) || n=0
		total=$((total + n))
	done
	echo "$total"
}

do_lines() {
	: "${CORE_LINES_MAX:?}"
	local c i=0 last=0 stat
	printf '%-4s %7s %7s %6s  %s\n' '' added removed core subject
	for c in $(commits); do
		i=$((i + 1))
		stat=$(git -C "$linux" show --numstat --format= "$c" |
			awk '$1 != "-" { a += $1; r += $2 } END { print a + 0, r + 0 }')
		if [ -n "$(git -C "$linux" diff --name-only "$c^" "$c" -- "${core[@]}")" ]; then
			last=$(size "$c")
		fi
		printf '%04d %7s %7s %6s  %s\n' "$i" ${stat} "$(size "$c")" \
			"$(git -C "$linux" log -1 --format=%s "$c")"
	done
	echo "lib/rosebush.c + include/linux/rosebush.h: $last lines (at most $CORE_LINES_MAX)"
	[ "$last" -le "$CORE_LINES_MAX" ] ||
		die "the core is $((last - CORE_LINES_MAX)) lines over its limit"
}

do_bisect() {
	local dir=$ROSEBUSH_WORK/layers c i=0 tested=0 subject
	git -C "$linux" worktree prune
	if [ ! -d "$dir/.git" ] && [ ! -f "$dir/.git" ]; then
		rm -rf "$dir"
		git -C "$linux" worktree add -q --detach "$dir" import
	fi
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	export ASAN_OPTIONS=hard_rss_limit_mb=8192
	for c in $(commits); do
		i=$((i + 1))
		git -C "$linux" cat-file -e "$c:$harness" 2>/dev/null || continue
		# The first patch with the harness, then every one that changes
		# what it compiles.
		if [ "$tested" != 0 ] &&
		   [ -z "$(git -C "$linux" diff --name-only "$c^" "$c" -- \
				lib/rosebush.c lib/test_rosebush.c \
				include/linux/rosebush.h tools/)" ]; then
			continue
		fi
		subject=$(git -C "$linux" log -1 --format=%s "$c")
		git -C "$dir" checkout -q --detach -f "$c"
		echo "patch $i: $subject"
		make -s -C "$dir/tools/testing/radix-tree" clean >/dev/null
		make -s -C "$dir/tools/testing/radix-tree" CC=clang rosebush ||
			die "patch $i ($subject): the userspace harness does not build"
		(cd "$dir/tools/testing/radix-tree" && timeout 900 ./rosebush -s) ||
			die "patch $i ($subject): the userspace suite fails"
		tested=$((tested + 1))
	done
	[ "$tested" != 0 ] || die "no patch adds $harness"
	echo "bisect: the userspace suite builds and passes at $tested patches"
}

case "${1:-}" in
lines) do_lines ;;
bisect) do_bisect ;;
*) die "usage: layers.sh lines|bisect" ;;
esac
