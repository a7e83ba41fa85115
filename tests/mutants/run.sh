#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [NAME...]: delete, one at a time, each line that
# tests/mutants/mutants.txt names from a copy of the patched tree's
# lib/rosebush.c (or the file FUNCTION names, as FILE:FUNCTION), and run
# scripts/check-wmm.sh, then scripts/test-userspace.sh, on the copy.  A
# mutant is "killed" if either fails.  MUTANTS_WMM=0 runs only
# test-userspace: for a mutant that check-wmm kills because it deletes an
# anchored line, whether its own test kills it too.  Prints a table; exits non-zero if a
# mutant not marked "survives:" survives, or if one marked so is killed
# (then the mark is out of date), or if a line cannot be found.
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=$ROSEBUSH_WORK/mutants
tree=$ROSEBUSH_WORK/linux

rm -rf "$scratch"
mkdir -p "$scratch/work/linux/Documentation" "$scratch/work/linux/fs" \
	"$scratch/pristine"
for d in lib include tools; do
	cp -a "$tree/$d" "$scratch/work/linux/"
done
cp -a "$tree/Documentation/litmus-tests" "$scratch/work/linux/Documentation/"
# check-wmm's tests of the dentry hash read fs/dcache.c
cp -a "$tree/fs/dcache.c" "$scratch/work/linux/fs/"
find "$scratch/work/linux/tools" -name '*.o' -delete
cp -a "$scratch/work/linux/lib" "$scratch/work/linux/include" "$scratch/pristine/"

# The copy as it is must pass what every mutant must fail, or a kill
# would mean nothing
if ! { ROSEBUSH_WORK=$scratch/work "$top/scripts/check-wmm.sh" &&
       ROSEBUSH_WORK=$scratch/work USERSPACE_TIMEOUT=120 \
       "$top/scripts/test-userspace.sh"; } >"$scratch/unmutated.log" 2>&1; then
	echo "mutants: the tree fails without a mutant: see $scratch/unmutated.log" >&2
	exit 1
fi

bad=0
printf '%-24s %-8s %s\n' MUTANT RESULT 'FIRST FAILURE'
while IFS='|' read -r name func line replacement; do
	name=$(echo "$name" | xargs)
	func=$(echo "$func" | xargs)
	line=$(echo "$line" | sed 's/^ *//; s/ *$//')
	replacement=$(echo "$replacement" | sed 's/^ *//; s/ *$//')
	survives=$(awk -v n="$name" '
		/^# survives:/ { s = 1; next }
		/^#/ { next }
		{ split($0, f, "|"); gsub(/ /, "", f[1]);
		  if (f[1] == n) { print s; exit } ; s = 0 }' \
		"$top/tests/mutants/mutants.txt")
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
		continue
	fi
	file=lib/rosebush.c
	case $func in
	*:*) file=${func%%:*}; func=${func#*:} ;;
	esac
	if ! python3 "$top/tests/mutants/apply.py" "$scratch/pristine/$file" \
		"$scratch/work/linux/$file" "$func" "$line" "$replacement"
	then
		bad=1
		continue
	fi
	log=$scratch/$name.log
	if { [ "${MUTANTS_WMM:-1}" = 0 ] ||
	     ROSEBUSH_WORK=$scratch/work "$top/scripts/check-wmm.sh" >"$log" 2>&1; } &&
		ROSEBUSH_WORK=$scratch/work USERSPACE_TIMEOUT=120 \
		"$top/scripts/test-userspace.sh" >>"$log" 2>&1; then
		result=survived
		first=-
		[ "$survives" = 1 ] || bad=1
	elif grep -qE '\.[ch]:[0-9]+:[0-9]+: error:' "$log"; then
		# A mutant that does not compile shows nothing about the tests
		result=broken
		first=$(grep -m1 -E '\.[ch]:[0-9]+:[0-9]+: error:' "$log" | cut -c1-90)
		bad=1
	else
		result=killed
		first=$(grep -m1 -E '^FAIL |refused:|^ *not ok|ERROR|FAILED|WARNING|error:|timed out|rosebush-fuzz:|still allocated|violation|assertion failed' \
			"$log" | cut -c1-90 || true)
		[ "$survives" != 1 ] || bad=1
	fi
	printf '%-24s %-8s %s\n' "$name" "$result" "${first:-see $log}"
	cp "$scratch/pristine/$file" "$scratch/work/linux/$file"
done < <(grep -v '^#' "$top/tests/mutants/mutants.txt" | grep .)
exit $bad
