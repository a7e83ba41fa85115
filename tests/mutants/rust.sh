#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rust.sh [NAME...]: apply, one at a time, each mutant that
# tests/mutants/rust-mutants.txt describes to the patched tree, run the
# check it names (the qemu-kunit run, or scripts/rust-compile-fail.sh after
# a build), and put the file back.  A mutant is "killed" if the check
# fails.  Prints a table; exits non-zero if a mutant survives or a line
# cannot be found.  Each kunit mutant costs a kernel build and a boot
# (about 4 minutes).
set -euo pipefail

: "${ROSEBUSH_WORK:?}"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tree=$ROSEBUSH_WORK/linux
log=$ROSEBUSH_WORK/build/rust-mutants
mkdir -p "$log"
configs=(tests/kunit/base.config tests/kunit/rosebush.config tests/kunit/sample.config
	tests/kunit/debug.config)

restore=
cleanup() {
	if [ -n "$restore" ]; then
		cp "$restore.orig" "$restore"
		rm -f "$restore.orig"
	fi
}
trap cleanup EXIT

bad=0
results=()
while IFS='|' read -r name check file line replacement; do
	name=$(echo "$name" | xargs)
	check=$(echo "$check" | xargs)
	file=$(echo "$file" | xargs)
	line=$(echo "$line" | sed 's/^ *//; s/ *$//')
	replacement=$(echo "$replacement" | sed 's/^ *//; s/ *$//')
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
		continue
	fi
	cp "$tree/$file" "$tree/$file.orig"
	restore=$tree/$file
	if ! python3 - "$tree/$file" "$line" "$replacement" <<'PY'
import sys
path, line, replacement = sys.argv[1:]
text = open(path).read().split('\n')
for i, l in enumerate(text):
    if l.strip() == line:
        if replacement:
            text[i] = l[:len(l) - len(l.lstrip())] + replacement
        else:
            del text[i]
        break
else:
    sys.exit(f'{path} has no line "{line}"')
open(path, 'w').write('\n'.join(text))
PY
	then
		bad=1
		results+=("$(printf '%-20s %s' "$name" 'NO SUCH LINE')")
		cleanup
		restore=
		continue
	fi
	rc=0
	case $check in
	kunit)
		KUNIT_SUITES="rosebush rust_doctests_kernel" \
			"$top/scripts/qemu-kunit.sh" kunit "${configs[@]}" \
			>"$log/$name.log" 2>&1 || rc=$?
		;;
	compile-fail)
		{ KUNIT_BUILD_ONLY=1 "$top/scripts/qemu-kunit.sh" kunit "${configs[@]}" &&
			"$top/scripts/rust-compile-fail.sh"; } >"$log/$name.log" 2>&1 || rc=$?
		;;
	*)
		echo "rust.sh: $name: unknown check $check" >&2
		exit 1
		;;
	esac
	cleanup
	restore=
	if [ "$rc" = 0 ]; then
		bad=1
		results+=("$(printf '%-20s %s' "$name" SURVIVED)")
	else
		why=$(grep -E '^ *not ok|FAILED|error\[|Error' "$log/$name.log" | head -3 | tr -s ' ' | tr '\n' ';')
		results+=("$(printf '%-20s %-8s %s' "$name" killed "$why")")
	fi
done < <(grep -v '^#' "$top/tests/mutants/rust-mutants.txt" | grep -v '^ *$')

printf '%-20s %-8s %s\n' MUTANT RESULT 'FIRST FAILURES'
printf '%s\n' "${results[@]}"
exit "$bad"
