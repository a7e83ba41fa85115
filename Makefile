# SPDX-License-Identifier: GPL-2.0
#
# Rosebush: build, boot and test the patch series against Debian's
# linux-source-6.12.  `make help` lists the targets.
#
# Everything that needs the toolchain runs inside a Debian 13 build root
# in $(ROSEBUSH_CACHE) (made on demand, needs root), or on the host with
# ROSEBUSH_HOST_TOOLCHAIN=1.  Nothing outside the cache and this checkout
# is written, except that debootstrap is apt-installed on the host when
# missing.

ROSEBUSH_CACHE ?= $(HOME)/.cache/rosebush
ROSEBUSH_HOST_TOOLCHAIN ?= 0
export ROSEBUSH_CACHE ROSEBUSH_HOST_TOOLCHAIN

RB := scripts/rb

ifneq ($(KUNIT_ARGS),)
$(error KUNIT_ARGS is gone: use KUNIT_FILTER='rosebush.*' (and KUNIT_SUITES=rosebush) or KUNIT_KERNEL_ARGS='...')
endif
WORK := $(ROSEBUSH_CACHE)/work

# The KUnit configuration: fragments merged by kunit.py (tests/kunit/).
KUNIT_CONFIGS := tests/kunit/base.config tests/kunit/rosebush.config \
		 tests/kunit/sample.config tests/kunit/dcache.config \
		 tests/kunit/debug.config
# The file `make qemu-kunit` builds with gcov, whose counts qemu-dcache
# reads: the dcache, to show that each of its functions that the
# conversion to rosebush changed ran (tests/dcache/coverage.py).
KUNIT_GCOV := GCOV_PROFILE_dcache.o=y
# Suites that must run and pass for `make qemu-kunit` to pass.
KUNIT_SUITES := rosebush rosebush_shrink rosebush_steps rosebush_iter rosebush_caches rust_doctests_kernel dcache_hash
# The 32-bit configuration (C only: no Rust on i386 in 6.12).
KUNIT_I386_CONFIGS := tests/kunit/i386.config tests/kunit/rosebush.config
# The arm64 configuration: qemu-kunit's, Rust included, without the sample.
KUNIT_ARM64_CONFIGS := tests/kunit/base.config tests/kunit/rosebush.config \
		       tests/kunit/debug.config
# The KCSAN configuration: the same suites under the concurrency sanitizer.
# KCSAN excludes KASAN, so kcsan.config takes the place of debug.config.
# It is also the preemptible build (preempt.config: PREEMPT without
# PREEMPT_DYNAMIC), with the sample built, so that the Rust code is built
# where cond_resched() has no out-of-line function.
KUNIT_KCSAN_CONFIGS := tests/kunit/base.config tests/kunit/rosebush.config \
		       tests/kunit/sample.config tests/kunit/dcache.config \
		       tests/kunit/kcsan.config tests/kunit/preempt.config
# Suites that must run and pass for `make qemu-kcsan` to pass (Rust stays
# on under KCSAN in 6.12: see kcsan.config).
KUNIT_KCSAN_SUITES := rosebush rosebush_shrink rosebush_steps rosebush_iter rosebush_caches rust_doctests_kernel dcache_hash
# The benchmark kernel: the KUnit configuration with bench.config instead
# of debug.config (no lockdep, no KASAN), in its own build directory; KUnit
# stays off at boot.
KUNIT_BENCH_CONFIGS := tests/kunit/base.config tests/kunit/rosebush.config \
		       tests/kunit/sample.config tests/kunit/bench.config

.PHONY: help toolchain toolchain-quiet tree export check-patches check-tree check-c check-wmm qemu-kunit-i386 qemu-kunit-arm64 qemu-kunit \
	qemu-kcsan qemu-sample qemu-dcache qemu-dcache-kcsan qemu-mutants qemu-bench-smoke test-userspace check-bench fuzz coverage bench bench-misses bench-dentry bench-holds \
	qemu-bench qemu-bench-latency qemu-dcache-ab qemu-dcache-ab-profile qemu-dcache-holds mutants mutants-rust test \
	test-tools clean distclean

help:
	@echo 'Rosebush targets (cache: $(ROSEBUSH_CACHE)):'
	@echo '  qemu-kunit     build the patched 6.12 tree (LLVM=1, Rust, debug config) and'
	@echo '                 run KUnit in QEMU: the rosebush suite and the Rust doctests'
	@echo '  qemu-kcsan     the same suites built with KCSAN (data-race detector) instead'
	@echo '                 of KASAN and lockdep, in their own build directory'
	@echo '  qemu-sample    boot the qemu-kunit kernel with KUnit off and load, then'
	@echo '                 unload, the Rust sample rust_rosebush.ko, after building'
	@echo '                 tests/rust-compile-fail/ (code that must not compile)'
	@echo '  qemu-dcache    boot the qemu-kunit kernel with KUnit off and run the dcache'
	@echo '                 stress (tests/dcache/: renames, exchanges, whiteouts against'
	@echo '                 lookups, unlinks of open files, /proc churn) on a tmpfs, the'
	@echo '                 same under failslab, file handles on ext4, unmounts during'
	@echo '                 walks, vfat, the openat2 and proc selftests; then checks the'
	@echo '                 dentry hash at rest and fs/dcache.c coverage (gcov)'
	@echo '  qemu-dcache-kcsan the same on the qemu-kcsan kernel'
	@echo '  test-userspace the rosebush suite and an RCU stress test built as userspace'
	@echo '                 programs (liburcu, ASan, UBSan) from tools/testing/radix-tree'
	@echo '  check-bench    build every userspace benchmark from the tree, run none'
	@echo '  fuzz           run the libFuzzer target (tests/fuzz) for FUZZ_SECONDS (60)'
	@echo '  coverage       line and branch coverage of lib/rosebush.c from the userspace'
	@echo '                 suite, the stress test and the fuzz corpus (llvm-cov, HTML)'
	@echo '  bench          rosebush against rhashtable, hlist_bl and liburcu'"'"'s cds_lfht'
	@echo '                 in userspace (-O2): ns/op table, CSV and plot (BENCH_ARGS=-l)'
	@echo '  bench-misses   the same lookups under callgrind'"'"'s cache simulation: misses'
	@echo '                 per lookup at 10^6 and 4x10^6 entries (MISSES_SIZES; a first'
	@echo '                 word ll=1048576 makes the last level a 1 MiB L2)'
	@echo '  bench-dentry   the dentry hash alone, 6.12'"'"'s hlist_bl table against the'
	@echo '                 rosebush, on dentry-shaped objects (DENTRY_ARGS=max=100000)'
	@echo '  bench-holds    the longest spinlock hold while keys crowded into half the key'
	@echo '                 space fill, grow into and empty a rosebush (HOLDS_SIZES)'
	@echo '  qemu-bench     build a non-debug kernel and, in QEMU, the in-kernel benchmark'
	@echo '                 (rosebush, rhashtable, hlist_bl)'
	@echo '  qemu-bench-latency the longest section with preemption off while a rosebush'
	@echo '                 of 10^6 and 10^7 entries grows and halves (preemptoff tracer)'
	@echo '  qemu-dcache-ab the dcache A/B: kernels A (the series without its dcache'
	@echo '                 patches) and B (all of it), non-debug, booted in turn AB_RUNS (3)'
	@echo '                 times each: stat/open/negative/rename storms over trees of 10^3'
	@echo '                 to 3x10^5 files at depths 1, 8, 32 (AB_ARGS); B/A table'
	@echo '  qemu-dcache-ab-profile the same kernels booted once each with nokaslr,'
	@echo '                 the workloads sampled (perf cpu-clock, every CPU) at 10^5 files,'
	@echo '                 depth 8 (AB_ARGS): ns per operation per function, A against B'
	@echo '  qemu-dcache-holds kernels A and B with lock statistics, booted AB_RUNS (9) times each:'
	@echo '                 a tree removed while threads rename and look up (HOLDS_ARGS);'
	@echo '                 acquisitions and holds of the dcache'"'"'s locks, A against B'
	@echo '  qemu-bench-smoke the same module, small and short, in the qemu-kunit kernel'
	@echo '                 (KASAN, lockdep): its checks, not its numbers'
	@echo '  mutants        delete, one at a time, lines of the fixes of the v2 defects'
	@echo '                 (tests/mutants/mutants.txt): check-wmm or test-userspace must'
	@echo '                 fail on each'
	@echo '  qemu-mutants   mutants of the dcache conversion (tests/mutants/dcache-mutants.txt):'
	@echo '                 a kernel build each; the dcache_hash suite or qemu-dcache must fail'
	@echo '  mutants-rust   mutants of rust/kernel/rosebush.rs (tests/mutants/rust-mutants.txt,'
	@echo '                 MUTANTS="NAME..." for some): qemu-kunit or rust-compile-fail must'
	@echo '                 fail on each; about 4 minutes a mutant'
	@echo '  test           every test: tool self-tests, series checks, check-wmm,'
	@echo '                 test-userspace, check-layers, qemu-kunit, check-c, qemu-sample,'
	@echo '                 qemu-dcache, qemu-bench-smoke, qemu-kcsan,'
	@echo '                 qemu-dcache-kcsan, qemu-kunit-i386'
	@echo '  check-wmm      rosebush'"'"'s barriers under the Linux-kernel memory model:'
	@echo '                 Documentation/litmus-tests/rosebush/, anchored in the code,'
	@echo '                 by scripts/check-wmm.py (checked against the kernel'"'"'s own tests)'
	@echo '  qemu-kunit-i386 the rosebush suite on 32-bit x86 (C only, lockdep, no KASAN)'
	@echo '                 in qemu-system-i386, from kunit.py --arch=i386'
	@echo '  qemu-kunit-arm64 the rosebush suite and the Rust doctests on arm64'
	@echo '                 (KASAN, lockdep) in qemu-system-aarch64 under TCG, which does'
	@echo '                 not reorder memory: portability, not ordering.  Not in'
	@echo '                 `make test` (about 25 minutes from an empty cache)'
	@echo '  check-c        W=1 and sparse (C=2) on the series'"'"' C files, in a build'
	@echo '                 directory of their own (needs qemu-kunit'"'"'s .config)'
	@echo '  check-layers   lines per patch, the core'"'"'s size against CORE_LINES_MAX, and'
	@echo '                 the userspace suite built and run at every patch that changes it'
	@echo '  check-patches  the series git-ams onto the pristine tree, matches the c/'
	@echo '                 rust/ samples/ mirrors, and has no checkpatch --strict error'
	@echo '  export         write kernel-patches/ and the mirrors from the tree'"'"'s commits'
	@echo '  tree           extract linux-source-6.12 into the cache and apply the series'
	@echo '  toolchain      create or refresh the Debian 13 build root; print versions'
	@echo '  test-tools     self-tests of the log checker and series scripts'
	@echo '  clean          remove build outputs (kernel build directories)'
	@echo '  distclean      remove the whole cache: build root, tree, builds, ccache'
	@echo 'Variables: ROSEBUSH_CACHE=DIR, ROSEBUSH_HOST_TOOLCHAIN=1 (use the host'"'"'s'
	@echo '  Debian 13 toolchain), KUNIT_FILTER="rosebush.*" (a kunit.filter_glob),'
	@echo '  KUNIT_KERNEL_ARGS="kcsan.skip_watch=500" (more kernel parameters),'
	@echo '  FORCE=1 (let `make tree` discard work in the tree that is not exported)'

toolchain:
	@scripts/toolchain.sh

# Other targets need the build root, but not the version banner.
toolchain-quiet:
	@QUIET=1 scripts/toolchain.sh

tree: toolchain-quiet
	@$(RB) scripts/tree.sh apply

export: toolchain-quiet
	@$(RB) scripts/series.sh export

check-patches: toolchain-quiet
	@$(RB) scripts/series.sh check

# `make test` tests the series in kernel-patches/, not unexported edits.
check-tree: tree
	@$(RB) scripts/tree.sh status
	@$(RB) sh -c 'python3 tests/mutants/anchors.py "$$ROSEBUSH_WORK/linux"'

qemu-kunit: tree
	@KUNIT_SUITES="$(KUNIT_SUITES)" KUNIT_MAKE_OPTIONS="$(KUNIT_GCOV)" \
		$(RB) scripts/qemu-kunit.sh kunit $(KUNIT_CONFIGS)

check-c: tree
	@$(RB) scripts/check-c.sh

check-wmm: tree
	@$(RB) scripts/check-wmm.sh

qemu-kunit-i386: tree
	@KUNIT_ARCH=i386 KUNIT_SUITES="rosebush rosebush_shrink rosebush_steps rosebush_iter rosebush_caches" $(RB) scripts/qemu-kunit.sh i386 $(KUNIT_I386_CONFIGS)

# Not in `make test`: it would take CI past its 90 minutes (README).
qemu-kunit-arm64: tree
	@KUNIT_ARCH=arm64 KUNIT_SUITES="$(KUNIT_SUITES)" \
		KUNIT_TIMEOUT="$(or $(KUNIT_TIMEOUT),1800)" \
		$(RB) scripts/qemu-kunit.sh arm64 $(KUNIT_ARM64_CONFIGS)

qemu-kcsan: tree
	@KUNIT_SUITES="$(KUNIT_KCSAN_SUITES)" $(RB) scripts/qemu-kunit.sh kcsan $(KUNIT_KCSAN_CONFIGS)

qemu-sample: tree
	@KUNIT_BUILD_ONLY=1 KUNIT_MAKE_OPTIONS="$(KUNIT_GCOV)" \
		$(RB) scripts/qemu-kunit.sh kunit $(KUNIT_CONFIGS)
	@$(RB) scripts/rust-compile-fail.sh
	@$(RB) scripts/qemu-sample.sh

qemu-dcache: tree
	@KUNIT_BUILD_ONLY=1 KUNIT_MAKE_OPTIONS="$(KUNIT_GCOV)" \
		$(RB) scripts/qemu-kunit.sh kunit $(KUNIT_CONFIGS)
	@$(RB) scripts/qemu-dcache.sh kunit

qemu-dcache-kcsan: tree
	@KUNIT_BUILD_ONLY=1 $(RB) scripts/qemu-kunit.sh kcsan $(KUNIT_KCSAN_CONFIGS)
	@$(RB) scripts/qemu-dcache.sh kcsan

mutants-rust: tree
	@$(RB) tests/mutants/rust.sh $(MUTANTS)

test-userspace: tree
	@USERSPACE_ARGS="$(USERSPACE_ARGS)" STRESS_ARGS="$(STRESS_ARGS)" \
		$(RB) scripts/test-userspace.sh

FUZZ_SECONDS ?= 60
fuzz: tree
	@$(RB) scripts/fuzz.sh fuzz $(FUZZ_SECONDS)

coverage: tree
	@$(RB) scripts/fuzz.sh coverage

bench: tree
	@$(RB) scripts/bench.sh $(BENCH_ARGS)

check-bench: tree
	@$(RB) scripts/bench.sh build

bench-misses: tree
	@$(RB) scripts/bench.sh misses $(MISSES_SIZES)

bench-dentry: tree
	@$(RB) scripts/bench.sh dentry $(DENTRY_ARGS)

bench-holds: tree
	@$(RB) scripts/bench.sh holds $(HOLDS_SIZES)

qemu-bench: tree
	@KUNIT_BUILD_ONLY=1 $(RB) scripts/qemu-kunit.sh bench $(KUNIT_BENCH_CONFIGS)
	@KBENCH_TABLE_ARGS="$(KBENCH_TABLE_ARGS)" \
		$(RB) scripts/qemu-bench.sh bench $(QEMU_BENCH_MODES)

# The dcache A/B: kernel A (the series without its dcache patches) and B
# (all of it), both with the benchmark configuration, booted in turn
# (scripts/qemu-dcache-ab.sh; AB_RUNS, AB_ARGS).
KUNIT_AB_CONFIGS := $(KUNIT_BENCH_CONFIGS) tests/kunit/dcache-ab.config
qemu-dcache-ab: tree
	@AB_CONFIGS="$(KUNIT_AB_CONFIGS)" $(RB) scripts/qemu-dcache-ab.sh run

# How long the dcache's locks are held while a tree is removed under
# renames and lookups, kernel A against B, with lock statistics
# (scripts/qemu-dcache-ab.sh holds; HOLDS_ARGS).
KUNIT_HOLDS_CONFIGS := $(KUNIT_AB_CONFIGS) tests/kunit/holds.config
qemu-dcache-holds: tree
	@AB_CONFIGS="$(KUNIT_HOLDS_CONFIGS)" HOLDS_ARGS="$(HOLDS_ARGS)" \
		$(RB) scripts/qemu-dcache-ab.sh holds

# Where the guest's time goes in the A/B's workloads, per kernel function
# (scripts/qemu-dcache-ab.sh profile; AB_RUNS, AB_ARGS).
qemu-dcache-ab-profile: tree
	@AB_CONFIGS="$(KUNIT_AB_CONFIGS)" $(RB) scripts/qemu-dcache-ab.sh profile

# The longest section with preemption off while a rosebush of 10^6, then
# 10^7, entries grows and halves: the benchmark kernel with the
# preemptoff tracer (latency.config), in its own build directory.
KUNIT_LATENCY_CONFIGS := $(KUNIT_BENCH_CONFIGS) tests/kunit/latency.config
qemu-bench-latency: tree
	@KUNIT_BUILD_ONLY=1 $(RB) scripts/qemu-kunit.sh latency $(KUNIT_LATENCY_CONFIGS)
	@KBENCH_INIT=latency-init.sh KBENCH_RESIZE_ARGS="$(KBENCH_RESIZE_ARGS)" \
		$(RB) scripts/qemu-bench.sh latency resize

# The timing table with small sizes and few operations.
qemu-bench-smoke: tree
	@KUNIT_BUILD_ONLY=1 KUNIT_MAKE_OPTIONS="$(KUNIT_GCOV)" \
		$(RB) scripts/qemu-kunit.sh kunit $(KUNIT_CONFIGS)
	@KBENCH_TABLE_ARGS="sizes=1000,10000 repeats=1 ops=16384" \
		$(RB) scripts/qemu-bench.sh kunit

# The series patch by patch: lines per patch and the core's size, and the
# userspace suite at every patch that changes what it compiles
# (scripts/layers.sh).  The core's target is rhashtable's size, 2684 lines
# (rhashtable.c, rhashtable.h, rhashtable-types.h); CORE_LINES_MAX is where
# it stands, so that it can only shrink.
CORE_LINES_MAX ?= 3281
check-layers: tree
	@CORE_LINES_MAX=$(CORE_LINES_MAX) $(RB) scripts/layers.sh lines
	@$(RB) scripts/layers.sh bisect

mutants: tree
	@$(RB) tests/mutants/run.sh

# The kernel-side mutants of the dcache conversion: a kernel build each.
qemu-mutants: tree
	@scripts/qemu-mutants.sh

# kunit_check_test.py uses the tree's KTAP parser (tools/testing/kunit).
test-tools: tree
	@python3 tests/logcheck_test.py
	@$(RB) sh -c 'python3 tests/kunit_check_test.py "$$ROSEBUSH_WORK/linux"'
	@python3 tests/sample_check_test.py
	@python3 tests/dcache_check_test.py
	@python3 tests/dcache/ab_test.py
	@python3 tests/dcache/ab_profile_test.py
	@python3 tests/dcache/holds_test.py
	@python3 tests/dcache/coverage_test.py
	@$(RB) tests/series_test.sh

test: test-tools check-patches check-tree
	@$(MAKE) --no-print-directory check-wmm
	@$(MAKE) --no-print-directory test-userspace
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory check-bench
	@$(MAKE) --no-print-directory qemu-kunit
	@$(MAKE) --no-print-directory check-c
	@$(MAKE) --no-print-directory qemu-sample
	@$(MAKE) --no-print-directory qemu-dcache
	@$(MAKE) --no-print-directory qemu-bench-smoke
	@$(MAKE) --no-print-directory qemu-kcsan
	@$(MAKE) --no-print-directory qemu-dcache-kcsan
	@$(MAKE) --no-print-directory qemu-kunit-i386
	@echo 'rosebush: make test passed'

clean:
	@test -n "$(ROSEBUSH_CACHE)" || { echo 'ROSEBUSH_CACHE is empty' >&2; exit 1; }
	rm -rf $(WORK)/build $(WORK)/am-scratch

distclean:
	@test -n "$(ROSEBUSH_CACHE)" || { echo 'ROSEBUSH_CACHE is empty' >&2; exit 1; }
	rm -rf --one-file-system $(ROSEBUSH_CACHE)
