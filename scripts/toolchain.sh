#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Create (or refresh) the Debian 13 "trixie" build root that holds the
# toolchain the kernel's Rust support needs: clang/LLVM 19, rustc 1.85,
# bindgen 0.71, plus linux-source-6.12, QEMU and busybox.
#
# Idempotent: every step leaves a stamp and is redone only when missing
# or when the package list changed.  Safe to rerun after an interruption
# (a half-made debootstrap is removed and started again).
#
# With ROSEBUSH_HOST_TOOLCHAIN=1 nothing is created: the host's own tools
# are checked instead.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# Keep this list in one place: run-in-root.sh and the README refer to it.
PACKAGES=(
	# kernel build with LLVM and Rust
	make bc flex bison libelf-dev libssl-dev cpio kmod xz-utils
	clang llvm lld rustc rust-src rustfmt rust-clippy bindgen libclang-dev
	python3 perl git ccache
	# scripts/checkpatch.pl's SPDX check (scripts/spdxcheck.py)
	python3-ply python3-git
	# the kernel source itself
	linux-source-6.12
	# booting it (qemu-system-arm for make qemu-kunit-arm64)
	qemu-system-x86 qemu-system-arm busybox-static
	# the userspace rosebush tests (tools/testing/radix-tree), with clang's
	# sanitizer runtimes
	liburcu-dev libclang-rt-19-dev
	# make bench's plot, and make bench-misses's cache simulator
	gnuplot-nox valgrind
	# make check-c: sparse on the series' C files
	sparse
)

print_versions() {
	rb_run sh -c '
		set -e
		clang --version | head -n1
		ld.lld --version | head -n1
		rustc --version
		bindgen --version
		qemu-system-x86_64 --version | head -n1
		qemu-system-aarch64 --version | head -n1
		busybox | head -n1
		dpkg-query -W -f="linux-source-6.12 \${Version}\n" linux-source-6.12
	'
}

if [ "$ROSEBUSH_HOST_TOOLCHAIN" = 1 ]; then
	missing=
	for t in clang ld.lld rustc bindgen qemu-system-x86_64 python3; do
		command -v "$t" >/dev/null || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		rb_die "ROSEBUSH_HOST_TOOLCHAIN=1 but the host lacks:$missing"
	fi
	[ -f "$ROSEBUSH_SRC_TARBALL" ] ||
		rb_die "ROSEBUSH_HOST_TOOLCHAIN=1 but $ROSEBUSH_SRC_TARBALL is missing (apt install linux-source-6.12)"
	print_versions
	exit 0
fi

[ "$(id -u)" = 0 ] || rb_die "creating the Debian 13 build root needs root (debootstrap, chroot).
Run as root, or set ROSEBUSH_HOST_TOOLCHAIN=1 on a Debian 13 host that has the toolchain."

mkdir -p "$ROSEBUSH_CACHE"
exec 9>"$ROSEBUSH_CACHE/.toolchain.lock"
flock 9

if ! command -v debootstrap >/dev/null; then
	rb_log "installing debootstrap on the host"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

if [ ! -e "$ROSEBUSH_ROOT/.stamp-debootstrap" ]; then
	if [ -e "$ROSEBUSH_ROOT" ]; then
		rb_log "removing an unfinished build root"
		rm -rf --one-file-system "$ROSEBUSH_ROOT"
	fi
	rb_log "debootstrap trixie into $ROSEBUSH_ROOT"
	mkdir -p "$ROSEBUSH_CACHE"
	if ! debootstrap --variant=minbase trixie "$ROSEBUSH_ROOT" "$ROSEBUSH_MIRROR" \
		> "$ROSEBUSH_CACHE/debootstrap.log" 2>&1; then
		tail -n 20 "$ROSEBUSH_CACHE/debootstrap.log" >&2
		rb_die "debootstrap failed (full log: $ROSEBUSH_CACHE/debootstrap.log)"
	fi
	touch "$ROSEBUSH_ROOT/.stamp-debootstrap"
fi

want=$(printf '%s\n' "${PACKAGES[@]}" | sha1sum | cut -d' ' -f1)
if [ "$(cat "$ROSEBUSH_ROOT/.stamp-packages" 2>/dev/null)" != "$want" ]; then
	rb_log "installing ${#PACKAGES[@]} packages into the build root"
	cp /etc/resolv.conf "$ROSEBUSH_ROOT/etc/resolv.conf"
	cat > "$ROSEBUSH_ROOT/etc/apt/apt.conf.d/90rosebush" <<'APT'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Retries "3";
APT
	rb_run sh -c 'apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null &&
		apt-get clean' sh "${PACKAGES[@]}"
	echo "$want" > "$ROSEBUSH_ROOT/.stamp-packages"
	installed=1
fi

# busybox for the initramfs of kernels of other architectures (make
# qemu-kunit-i386, make qemu-kunit-arm64): Debian's busybox-static of
# each, unpacked into /opt/busybox-ARCH, as it cannot be installed beside
# the host's.
FOREIGN_ARCHES=(i386 arm64)
want=$(printf '%s\n' "${FOREIGN_ARCHES[@]}" | sha1sum | cut -d' ' -f1)
if [ "$(cat "$ROSEBUSH_ROOT/.stamp-foreign" 2>/dev/null)" != "$want" ]; then
	rb_log "fetching busybox-static for ${FOREIGN_ARCHES[*]}"
	cp /etc/resolv.conf "$ROSEBUSH_ROOT/etc/resolv.conf"
	rb_run sh -c 'set -e
		for a in "$@"; do dpkg --add-architecture "$a"; done
		apt-get update -qq
		mkdir -p /tmp/foreign && cd /tmp/foreign
		for a in "$@"; do
			rm -f ./*.deb
			apt-get download -qq "busybox-static:$a" 2>/dev/null
			rm -rf "/opt/busybox-$a"
			mkdir -p "/opt/busybox-$a"
			dpkg-deb -x ./busybox-static_*.deb "/opt/busybox-$a"
			rm -f ./*.deb
			test -x "/opt/busybox-$a/usr/bin/busybox"
		done' sh "${FOREIGN_ARCHES[@]}"
	echo "$want" > "$ROSEBUSH_ROOT/.stamp-foreign"
	installed=1
fi

# Targets that merely need the toolchain set QUIET=1: print the versions
# only when asked for (make toolchain) or when something was installed.
if [ "${QUIET:-0}" != 1 ] || [ -n "${installed:-}" ]; then
	print_versions
fi
