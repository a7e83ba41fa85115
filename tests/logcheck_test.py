#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of logcheck.py against recorded kernel logs.

tests/logcheck/clean-*.log must show no splat; every splat-*.log must show
at least one, and its first line must be the line named in
tests/logcheck/expected.txt ("FILE: TEXT", TEXT a substring).  Prints
'N passed, N failed' and exits non-zero on any failure.
"""

import glob
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import logcheck  # noqa: E402


def main():
	expected = {}
	with open(os.path.join(here, 'logcheck/expected.txt')) as f:
		for line in f:
			if line.strip() and not line.startswith('#'):
				name, text = line.split(':', 1)
				expected[name.strip()] = text.strip()
	passed = failed = 0
	logs = sorted(glob.glob(os.path.join(here, 'logcheck/*.log')))
	for path in logs:
		name = os.path.basename(path)
		with open(path, errors='backslashreplace') as f:
			found = logcheck.splats(f.readlines())
		if name.startswith('clean-'):
			ok = not found
			why = 'found %r' % (found[:1],)
		elif name.startswith('splat-'):
			want = expected.get(name)
			ok = bool(found) and want is not None and want in found[0][1]
			why = 'first splat %r, expected %r' % (found[:1], want)
		else:
			ok, why = False, 'name must start with clean- or splat-'
		print('%s %s%s' % ('ok' if ok else 'not ok', name, '' if ok else ': ' + why))
		passed += ok
		failed += not ok
	if not logs:
		failed += 1
	print('logcheck: %d passed, %d failed' % (passed, failed))
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main())
