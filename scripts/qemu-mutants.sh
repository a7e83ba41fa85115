#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-mutants.sh [NAME...] (`make qemu-mutants`, on the host, not under
# scripts/rb): the kernel-side mutants of tests/mutants/dcache-mutants.txt,
# one at a time: change the line in the patched tree, run `make
# qemu-kunit` for the dcache_hash suite alone, then `make qemu-dcache`,
# and put the file back.  A mutant is "killed" if either fails.  Not part
# of `make test`: each mutant rebuilds the kernel.  Exits non-zero if a
# mutant survives or its line cannot be found.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${ROSEBUSH_CACHE:-$HOME/.cache/rosebush}/work
tree=$work/linux
logs=$work/qemu-mutants
mkdir -p "$logs"

# Put the file back with a new mtime, so that the next build compiles it
# again rather than keeping the mutant's object
restore=
restore_file=
trap '[ -z "$restore" ] || cp "$restore" "$tree/$restore_file"' EXIT

bad=0
printf '%-20s %-8s %s\n' MUTANT RESULT 'FIRST FAILURE'
while IFS='|' read -r name func line replacement; do
	name=$(echo "$name" | xargs)
	func=$(echo "$func" | xargs)
	line=$(echo "$line" | sed 's/^ *//; s/ *$//')
	replacement=$(echo "$replacement" | sed 's/^ *//; s/ *$//')
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
		continue
	fi
	file=${func%%:*}
	func=${func#*:}
	pristine=$logs/pristine-$(echo "$file" | tr / _)
	cp -p "$tree/$file" "$pristine"
	restore=$pristine
	restore_file=$file
	if ! python3 "$top/tests/mutants/apply.py" "$pristine" "$tree/$file" \
		"$func" "$line" "$replacement"
	then
		bad=1
		continue
	fi
	log=$logs/$name.log
	# A mutant may hang the kernel (a rename that retries for ever):
	# the suite takes under a minute in QEMU
	if (cd "$top" && KUNIT_FILTER='dcache_hash.*' KUNIT_TIMEOUT=240 \
		make --no-print-directory qemu-kunit KUNIT_SUITES=dcache_hash) \
		>"$log" 2>&1 &&
	   (cd "$top" && DCACHE_TIMEOUT=240 make --no-print-directory qemu-dcache) \
		>>"$log" 2>&1; then
		result=survived
		first=-
		bad=1
	elif grep -qE '\.[ch]:[0-9]+:[0-9]+: error:' "$log"; then
		result=broken
		first=$(grep -m1 -E '\.[ch]:[0-9]+:[0-9]+: error:' "$log" | cut -c1-90)
		bad=1
	else
		result=killed
		first=$(grep -m1 -E '^FAIL|Expected|kernel splat|lost=[1-9]|FAILED' \
			"$log" | cut -c1-90 || true)
	fi
	printf '%-20s %-8s %s\n' "$name" "$result" "${first:-see $log}"
	cp "$pristine" "$tree/$file"
	restore=
done < <(grep -v '^#' "$top/tests/mutants/dcache-mutants.txt" | grep .)
exit $bad
