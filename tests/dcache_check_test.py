#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of dcache_check.py against recorded `make qemu-dcache` logs.

tests/dcache/logs/kunit.log (the KASAN/lockdep kernel) and kcsan.log (the
KCSAN kernel, with 6.12's own data races in the VFS) must pass, the
latter only with --kcsan; each must fail when a case lost a name, when
the program or QEMU failed, when a step is missing, when a splat is
added, and (kcsan) when a race names a rosebush function.
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import dcache_check  # noqa: E402


def main():
	def read(name):
		with open(os.path.join(here, 'dcache/logs', name)) as f:
			return f.readlines()

	kunit = read('kunit.log')
	kcsan = read('kcsan.log')

	def swap(log, old, new):
		return [l.replace(old, new) for l in log]

	def drop(log, text):
		return [l for l in log if text not in l]

	ours = swap(kcsan, ' walk_component+0x30/0x190',
		    ' rbh_next+0x30/0x190')
	# A race's title or CPU line naming rosebush is no frame of it
	named = swap(kcsan, 'Comm: dcache-stress', 'Comm: rosebush')
	cases = [
		('kunit log', kunit, 0, False, True),
		('kcsan log', kcsan, 0, True, True),
		('kcsan log judged as kunit', kcsan, 0, False, False),
		('a lost name', swap(kunit, 'dcache-stress: passed',
				     'dcache-stress: FAILED'), 0, False, False),
		('program failed', swap(kunit, 'dcache: exit status 0',
					'dcache: exit status 1'), 0, False, False),
		('no tmpfs', swap(kunit, 'mount exit status 0', 'mount exit status 255'),
		 0, False, False),
		('QEMU failed', kunit, 124, False, False),
		('no umount', drop(kunit, 'umount exit status'), 0, False, False),
		('lockdep splat', kunit + ['WARNING: possible circular locking dependency detected\n'],
		 0, False, False),
		('KASAN report under kcsan', kcsan + ['BUG: KASAN: slab-use-after-free in foo+0x1/0x2\n'],
		 0, True, False),
		('a race with a rosebush frame', ours, 0, True, False),
		('rosebush named outside the frames', named, 0, True, True),
	]
	bad = 0
	for name, lines, status, kcsan_mode, ok in cases:
		problems, _ = dcache_check.check(lines, status, kcsan_mode)
		if (not problems) != ok:
			print('dcache_check_test: %s: expected %s, got %s' %
			      (name, 'pass' if ok else 'failure', problems or 'pass'))
			bad = 1
	if not bad:
		print('dcache_check_test: %d cases passed' % len(cases))
	return bad


if __name__ == '__main__':
	sys.exit(main())
