#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the console log of `make qemu-sample`.

    sample_check.py LOG ENTRIES QEMU_STATUS

Fails (exit 1) unless QEMU exited normally, rust_rosebush.ko was loaded
with ENTRIES entries and printed what it must for that many (every entry
found, no absent name found, a tenth of the values replaced, half the
entries removed, the rosebush's own count agreeing), insmod and rmmod
succeeded, the module is gone, and the log holds no kernel splat.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402


def expected(n):
	left = n - (n + 1) // 2
	return [
		'rust_rosebush: inserted %d entries, map holds %d' % (n, n),
		'rust_rosebush: looked up %d of %d entries, 0 of %d absent names' % (n, n, n),
		'rust_rosebush: replaced %d values, removed %d entries, map holds %d'
		% ((n + 9) // 10, (n + 1) // 2, left),
		'rust_rosebush: rosebush: %d entries, ' % left,
		'sample: insmod exit status 0',
		'rust_rosebush: unloading: freeing %d entries' % left,
		'sample: rmmod exit status 0',
		'sample: done',
	]


def check(lines, n, status):
	problems = []
	if status != 0:
		problems.append('QEMU exit status %d' % status)
	pos = 0
	for want in expected(n):
		for i in range(pos, len(lines)):
			if want in lines[i]:
				pos = i + 1
				break
		else:
			problems.append('missing (in order): %s' % want)
	if not any('sample: rust_rosebush in /proc/modules after rmmod: 0' in l
		   for l in lines):
		problems.append('rust_rosebush still in /proc/modules after rmmod')
	for n_line, line in logcheck.splats(lines):
		problems.append('line %d: kernel splat: %s' % (n_line, line.strip()))
	return problems


def main(argv):
	if len(argv) != 4:
		print(__doc__, file=sys.stderr)
		return 2
	with open(argv[1], errors='backslashreplace') as f:
		lines = f.readlines()
	problems = check(lines, int(argv[2]), int(argv[3]))
	for p in problems:
		print('FAIL: ' + p)
	if problems:
		print('qemu-sample: FAILED (%d problems)' % len(problems))
		return 1
	print('qemu-sample: the sample did what it should, the kernel log is clean')
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
