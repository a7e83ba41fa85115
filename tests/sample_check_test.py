#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of sample_check.py against a recorded `make qemu-sample` log.

tests/sample/console-2000.log (entries=2000) must pass; the same log must
fail when a line the module prints is missing, when a count is wrong,
when the entries asked for differ, when QEMU failed, when rmmod left the
module loaded, and when a kernel splat is added.
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import sample_check  # noqa: E402


def main():
	with open(os.path.join(here, 'sample/console-2000.log')) as f:
		good = f.readlines()

	def drop(text):
		return [l for l in good if text not in l]

	def swap(old, new):
		return [l.replace(old, new) for l in good]

	cases = [
		('recorded log', good, 2000, 0, True),
		('no lookup line', drop('looked up'), 2000, 0, False),
		('an absent name found', swap('0 of 2000 absent', '1 of 2000 absent'), 2000, 0, False),
		('a removal lost', swap('removed 1000 entries', 'removed 999 entries'), 2000, 0, False),
		('other entries', good, 1000, 0, False),
		('QEMU failed', good, 2000, 124, False),
		('module left loaded', swap('after rmmod: 0', 'after rmmod: 1'), 2000, 0, False),
		('rmmod failed', swap('rmmod exit status 0', 'rmmod exit status 1'), 2000, 0, False),
		('KASAN report', good + ['BUG: KASAN: slab-use-after-free in foo+0x1/0x2\n'],
		 2000, 0, False),
	]
	passed = failed = 0
	for name, lines, entries, status, ok in cases:
		problems = sample_check.check(lines, entries, status)
		if (not problems) == ok:
			passed += 1
		else:
			failed += 1
			print('FAIL: %s: %s' % (name, problems or 'no problem found'))
	print('sample_check: %d passed, %d failed' % (passed, failed))
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main())
