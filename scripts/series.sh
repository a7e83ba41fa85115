#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The patch series and the source mirrors, both made from the kernel tree's
# git history.  kernel-patches/ is the source of truth for the series; c/,
# rust/ and samples/ mirror the files it adds, as they stand after the
# last patch.
#
# series.sh export   - write kernel-patches/ and the mirrors from the
#                      commits import..rosebush of $ROSEBUSH_WORK/linux.
# series.sh check    - fail when kernel-patches/ does not git-am onto the
#                      pristine import, when re-exporting what it applies to
#                      gives different patches, when a mirror differs from
#                      the series, or when checkpatch --strict reports an
#                      error.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
linux=$ROSEBUSH_WORK/linux
patches=$top/kernel-patches
tree=$top/scripts/tree.sh
# What the series is posted as.
PREFIX="PATCH v3"

log() { printf 'rosebush: %s\n' "$*" >&2; }
die() { printf 'rosebush: error: %s\n' "$*" >&2; exit 1; }

# mirror_path PATH: where a file the series adds lives in this repository.
mirror_path() {
	case "$1" in
	rust/*|samples/*) echo "$1" ;;
	*) echo "c/$1" ;;
	esac
}

# format HEAD OUTDIR: the series for import..HEAD, as kernel-patches/ holds it.
format() {
	local head=$1 out=$2 n subject blurb
	mkdir -p "$out"
	n=$(git -C "$linux" rev-list --count "import..$head")
	[ "$n" -gt 0 ] || die "no commits between import and $head"
	# --abbrev: the index lines must not depend on how many objects the
	# tree's repository holds (a clone of it abbreviates differently)
	git -C "$linux" format-patch -q --zero-commit --no-signature \
		--abbrev=7 \
		--subject-prefix="$PREFIX" --cover-letter --base=import \
		-o "$out" "import..$head"
	# The cover letter's subject and blurb are written by hand: keep them.
	subject='*** SUBJECT HERE ***'
	blurb='*** BLURB HERE ***'
	from=
	if [ -f "$patches/0000-cover-letter.txt" ]; then
		from=$(python3 "$top/scripts/cover.py" from "$patches/0000-cover-letter.txt")
		subject=$(python3 "$top/scripts/cover.py" subject "$patches/0000-cover-letter.txt")
		blurb=$(python3 "$top/scripts/cover.py" blurb "$patches/0000-cover-letter.txt")
	fi
	FROM=$from SUBJECT=$subject BLURB=$blurb DATE=$(git -C "$linux" log -1 --format=%aD "$head") python3 "$top/scripts/cover.py" fill \
		"$out/0000-cover-letter.patch" > "$out/0000-cover-letter.txt"
	rm "$out/0000-cover-letter.patch"
	(cd "$out" && ls [0-9][0-9][0-9][0-9]-*.patch) > "$out/series"
}

# mirrors HEAD OUTDIR: the files import..HEAD adds, at their mirror paths.
mirrors() {
	local head=$1 out=$2 f
	mkdir -p "$out"
	git -C "$linux" diff --name-only --diff-filter=A import "$head" |
	while read -r f; do
		mkdir -p "$out/$(dirname "$(mirror_path "$f")")"
		git -C "$linux" show "$head:$f" > "$out/$(mirror_path "$f")"
	done
}

# The mirror directories' own README.md files are not generated.
mirror_dirs=(c rust samples)

do_export() {
	[ "$(git -C "$linux" symbolic-ref -q --short HEAD)" = rosebush ] ||
		die "the tree must be on branch rosebush"
	[ -z "$(git -C "$linux" status --porcelain --untracked-files=no)" ] ||
		die "the tree has uncommitted changes: commit them first"
	tmp=""
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	format rosebush "$tmp/patches"
	mirrors rosebush "$tmp/mirror"
	rm -f "$patches"/[0-9][0-9][0-9][0-9]-*.patch "$patches/series" "$patches/0000-cover-letter.txt"
	cp "$tmp/patches"/* "$patches/"
	local d
	for d in "${mirror_dirs[@]}"; do
		find "$top/$d" -type f ! -path "$top/$d/README.md" -delete 2>/dev/null || true
		find "$top/$d" -mindepth 1 -type d -empty -delete 2>/dev/null || true
		if [ -d "$tmp/mirror/$d" ]; then
			mkdir -p "$top/$d"
			cp -r "$tmp/mirror/$d/." "$top/$d/"
		fi
	done
	# The tree now matches the series: record that, so 'make tree' keeps it.
	git -C "$linux" update-ref refs/rosebush/applied rosebush
	git -C "$linux" config rosebush.series "$(bash "$tree" id)"
	log "exported $(wc -l < "$patches/series") patches to kernel-patches/"
	grep -q 'SUBJECT HERE\|BLURB HERE' "$patches/0000-cover-letter.txt" &&
		log "warning: write the subject and blurb of kernel-patches/0000-cover-letter.txt"
	return 0
}

do_check() {
	local head bad=0 p out errors
	tmp=$(mktemp -d)
	trap 'git -C "$linux" worktree remove --force "$tmp/am" 2>/dev/null; rm -rf "$tmp"' EXIT

	head=$(bash "$tree" am-check "$tmp/am")
	echo "series: $(wc -l < "$patches/series") patches apply with git am to $(git -C "$linux" log -1 --format=%s import)"

	format "$head" "$tmp/patches"
	if ! diff -r -I '^base-commit: ' "$tmp/patches" "$patches" > "$tmp/diff"; then
		cat "$tmp/diff" | head -40
		echo "FAIL: kernel-patches/ is not what 'make export' makes of itself"
		bad=1
	fi

	mirrors "$head" "$tmp/mirror"
	for d in "${mirror_dirs[@]}"; do
		mkdir -p "$tmp/mirror/$d"
		if ! diff -r -x README.md "$tmp/mirror/$d" "$top/$d" > "$tmp/diff" 2>&1; then
			head -40 "$tmp/diff"
			echo "FAIL: $d/ has drifted from kernel-patches/ (edit in the tree, then 'make export')"
			bad=1
		fi
	done
	[ "$bad" = 1 ] || echo "mirrors: c/ rust/ samples/ match the series"

	while read -r p; do
		out=$(cd "$linux" && perl scripts/checkpatch.pl --strict "$patches/$p" 2>&1 || true)
		errors=$(printf '%s\n' "$out" | sed -n 's/^total: \([0-9]*\) errors.*/\1/p')
		echo "checkpatch --strict: $p: $(printf '%s\n' "$out" | grep '^total:' || echo 'no result')"
		if [ "${errors:-1}" != 0 ] || printf '%s\n' "$out" | grep -q Traceback; then
			printf '%s\n' "$out"
			bad=1
		fi
	done < "$patches/series"
	if [ "$bad" = 0 ]; then
		echo "check-patches: the series is in sync and checkpatch-clean"
	else
		echo "check-patches: FAILED"
	fi
	return $bad
}

case "${1:-}" in
export) do_export ;;
check) do_check ;;
*) die "usage: series.sh export|check" ;;
esac
