# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts in this directory: paths and the one way to run a
# command with the toolchain (inside the Debian 13 build root, or on the
# host with ROSEBUSH_HOST_TOOLCHAIN=1).

: "${ROSEBUSH_CACHE:=$HOME/.cache/rosebush}"
: "${ROSEBUSH_HOST_TOOLCHAIN:=0}"
: "${ROSEBUSH_MIRROR:=http://deb.debian.org/debian}"
ROSEBUSH_ROOT=$ROSEBUSH_CACHE/root
ROSEBUSH_WORK=$ROSEBUSH_CACHE/work
if [ "$ROSEBUSH_HOST_TOOLCHAIN" = 1 ]; then
	ROSEBUSH_SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
else
	ROSEBUSH_SRC_TARBALL=$ROSEBUSH_ROOT/usr/src/linux-source-6.12.tar.xz
fi
export ROSEBUSH_CACHE ROSEBUSH_HOST_TOOLCHAIN ROSEBUSH_ROOT ROSEBUSH_WORK

rb_log() { printf 'rosebush: %s\n' "$*" >&2; }
rb_die() { printf 'rosebush: error: %s\n' "$*" >&2; exit 1; }

# rb_run CMD [ARGS...]: run CMD with the toolchain.  In the build root the
# project checkout and $ROSEBUSH_WORK are bind-mounted at the same paths
# they have on the host, so every path means the same inside and out.  The
# mounts live in a private mount namespace and vanish with the command:
# nothing is left mounted after an interruption.
rb_run() {
	if [ "$ROSEBUSH_HOST_TOOLCHAIN" = 1 ]; then
		"$@"
		return
	fi
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	mkdir -p "$ROSEBUSH_WORK"
	unshare --mount --propagation private -- \
		env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		ROSEBUSH_CACHE="$ROSEBUSH_CACHE" ROSEBUSH_WORK="$ROSEBUSH_WORK" \
		ROSEBUSH_HOST_TOOLCHAIN=0 CI="${CI:-}" FORCE="${FORCE:-}" \
		KUNIT_FILTER="${KUNIT_FILTER:-}" KUNIT_KERNEL_ARGS="${KUNIT_KERNEL_ARGS:-}" \
		KUNIT_SUITES="${KUNIT_SUITES:-}" \
		USERSPACE_ARGS="${USERSPACE_ARGS:-}" STRESS_ARGS="${STRESS_ARGS:-}" \
		USERSPACE_TIMEOUT="${USERSPACE_TIMEOUT:-}" CORE_LINES_MAX="${CORE_LINES_MAX:-}" \
		KUNIT_BUILD_ONLY="${KUNIT_BUILD_ONLY:-}" \
		KBENCH_TABLE_ARGS="${KBENCH_TABLE_ARGS:-}" \
		KBENCH_RESIZE_ARGS="${KBENCH_RESIZE_ARGS:-}" \
		KBENCH_INIT="${KBENCH_INIT:-}" KUNIT_ARCH="${KUNIT_ARCH:-}" \
		KUNIT_TIMEOUT="${KUNIT_TIMEOUT:-}" KUNIT_MAKE_OPTIONS="${KUNIT_MAKE_OPTIONS:-}" \
		MUTANTS_WMM="${MUTANTS_WMM:-}" \
		AB_CONFIGS="${AB_CONFIGS:-}" AB_RUNS="${AB_RUNS:-}" \
		AB_ARGS="${AB_ARGS:-}" AB_TIMEOUT="${AB_TIMEOUT:-}" \
		RB_ROOT="$ROSEBUSH_ROOT" RB_TOP="$top" \
		/bin/sh -c '
		set -e
		r=$RB_ROOT
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys"
		mount --rbind /dev "$r/dev"
		mkdir -p "$r$RB_TOP" "$r$ROSEBUSH_WORK"
		mount --bind "$RB_TOP" "$r$RB_TOP"
		mount --bind "$ROSEBUSH_WORK" "$r$ROSEBUSH_WORK"
		cwd=$(pwd)
		case "$cwd" in
		"$RB_TOP"*|"$ROSEBUSH_WORK"*) ;;
		*) cwd=/ ;;
		esac
		exec chroot "$r" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
		' rb_run "$@"
}
