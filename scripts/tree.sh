#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh import   - extract linux-source-6.12 into $ROSEBUSH_WORK/linux as a
#                    git repository whose root commit (tag "import") is the
#                    pristine Debian tree.
# tree.sh apply    - make branch "rosebush" = import + kernel-patches/ (git am),
#                    and check it out.  Files the series does not change keep
#                    their mtimes, so the next kernel build is incremental.
#                    Refuses to throw away local work in the tree.
# tree.sh am-check DIR - git am the series onto a scratch worktree of the
#                    import (sparse: only the files the series touches) and
#                    print the resulting commit.  Changes nothing else.
# tree.sh status   - say whether the tree holds work not in kernel-patches/.
# tree.sh id       - print the identity of the series as the tree records it.
#
# Runs with the toolchain (inside the build root unless
# ROSEBUSH_HOST_TOOLCHAIN=1); the Makefile calls it through rb_run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${ROSEBUSH_WORK:?}"
linux=$ROSEBUSH_WORK/linux
patches=$top/kernel-patches
tarball=/usr/src/linux-source-6.12.tar.xz

# Fixed identity and dates: the import commit, and so the series'
# base-commit, are the same on every machine for the same Debian package.
export GIT_AUTHOR_NAME="Debian linux-source" GIT_AUTHOR_EMAIL="debian-kernel@lists.debian.org"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z"

log() { printf 'rosebush: %s\n' "$*" >&2; }
die() { printf 'rosebush: error: %s\n' "$*" >&2; exit 1; }

series_files() {
	[ -f "$patches/series" ] || die "kernel-patches/series is missing"
	grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" | sed "s|^|$patches/|"
}

series_id() {
	# Everything that decides the result of applying the series.
	{ git -C "$linux" rev-parse import; series_files | xargs cat; } | sha1sum | cut -d' ' -f1
}

do_import() {
	if git -C "$linux" rev-parse -q --verify refs/tags/import >/dev/null 2>&1; then
		return
	fi
	[ -f "$tarball" ] || die "$tarball is missing (package linux-source-6.12)"
	local version tmp=$linux.tmp
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	log "importing linux-source-6.12 $version into $linux"
	rm -rf "$tmp" "$linux"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q -b rosebush
	git -C "$tmp" config core.autocrlf false
	git -C "$tmp" config gc.auto 0
	# Debian's tree ignores everything ("/*"): add by force.
	git -C "$tmp" add -A -f
	git -C "$tmp" commit -q -m "Import Debian linux-source-6.12 $version" \
		-m "Pristine contents of /usr/src/linux-source-6.12.tar.xz."
	git -C "$tmp" tag import
	mv "$tmp" "$linux"
}

# am_scratch DIR: git am the series in a sparse worktree at DIR, print HEAD.
am_scratch() {
	local dir=$1 files
	rm -rf "$dir"
	git -C "$linux" worktree prune
	git -C "$linux" worktree add -q --detach --no-checkout "$dir" import
	# Only the paths the series touches need to exist for git am.
	files=$(series_files | xargs cat | sed -n 's|^+++ b/||p; s|^--- a/||p' | sort -u)
	git -C "$dir" sparse-checkout set --no-cone $files 2>/dev/null
	git -C "$dir" checkout -q
	local p
	while read -r p; do
		if ! git -C "$dir" -c user.name=rosebush -c user.email=rosebush@localhost \
			am -q --keep-cr --committer-date-is-author-date "$p" >&2; then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			die "$(basename "$p") does not apply with git am"
		fi
	done < <(series_files)
	git -C "$dir" rev-parse HEAD
}

local_work() {
	# Commits or edits in the tree that kernel-patches/ does not hold.
	local applied
	applied=$(git -C "$linux" rev-parse -q --verify refs/rosebush/applied) || return 1
	[ "$(git -C "$linux" rev-parse HEAD)" != "$applied" ] && return 0
	[ -n "$(git -C "$linux" status --porcelain --untracked-files=no)" ]
}

do_apply() {
	do_import
	local want have head scratch=$ROSEBUSH_WORK/am-scratch
	want=$(series_id)
	have=$(git -C "$linux" config --get rosebush.series || true)
	if [ "$want" = "$have" ]; then
		return
	fi
	if local_work && [ "${FORCE:-0}" != 1 ]; then
		die "the tree $linux holds work that is not in kernel-patches/.
Run 'make export' to turn it into the series, or 'make tree FORCE=1' to discard it."
	fi
	log "applying $(series_files | wc -l) patches"
	head=$(am_scratch "$scratch")
	git -C "$linux" worktree remove --force "$scratch"
	git -C "$linux" reset -q --hard
	git -C "$linux" checkout -q -B rosebush "$head"
	git -C "$linux" update-ref refs/rosebush/applied "$head"
	git -C "$linux" config rosebush.series "$want"
}

case "${1:-}" in
import) do_import ;;
apply) do_apply ;;
am-check) do_import; am_scratch "$2" ;;
id) series_id ;;
status)
	if local_work; then
		die "the tree $linux holds work that is not in kernel-patches/: run 'make export'"
	fi
	;;
*) die "usage: tree.sh import|apply|am-check DIR|status" ;;
esac
