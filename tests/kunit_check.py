#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a KUnit run from the raw kernel log, not from kunit.py's summary.

    kunit_check.py LINUX_TREE TEST_LOG SUITE...

Parses the KTAP in TEST_LOG with the kernel's own parser
(tools/testing/kunit/kunit_parser.py), prints a line per suite with its
counts, and fails (exit 1) when:
  - any test failed, crashed or could not be parsed;
  - a SUITE named on the command line did not run, or ran no test;
  - the log holds a kernel splat (BUG, WARNING, KASAN, KCSAN, lockdep,
    RCU...), in a test or outside one (see logcheck.py).  KCSAN data races
    in particular never fail a KUnit test by themselves.
"""

import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402


def main(argv):
	if len(argv) < 3:
		print(__doc__, file=sys.stderr)
		return 2
	linux, log_path, wanted = argv[1], argv[2], argv[3:]
	sys.path.insert(0, os.path.join(linux, 'tools/testing/kunit'))
	import kunit_parser
	import kunit_printer

	with open(log_path, errors='backslashreplace') as f:
		lines = f.readlines()

	# The parser prints its own report; kunit.py already showed it.
	kunit_parser.stdout = kunit_printer.Printer(io.StringIO())
	root = kunit_parser.parse_run_tests(lines)
	ok_states = (kunit_parser.TestStatus.SUCCESS, kunit_parser.TestStatus.SKIPPED)

	problems = []
	suites = {t.name: t for t in root.subtests}
	print('%-28s %6s %6s %6s %6s' % ('suite', 'passed', 'failed', 'skip', 'crash'))
	for name, t in suites.items():
		c = t.counts
		print('%-28s %6d %6d %6d %6d' % (name, c.passed, c.failed, c.skipped, c.crashed))
		if t.status not in ok_states:
			problems.append('suite %s: %s' % (name, t.status.name))
	for name in wanted:
		t = suites.get(name)
		if t is None:
			problems.append('suite %s did not run' % name)
		elif t.counts.passed == 0:
			problems.append('suite %s passed no test' % name)
	if root.status not in ok_states:
		problems.append('run: %s' % root.status.name)
	for n, line in logcheck.splats(lines):
		problems.append('%s:%d: kernel splat: %s' % (log_path, n, line.strip()))

	c = root.counts
	if c.crashed or c.errors:
		print('crashed: %d, parse errors: %d' % (c.crashed, c.errors))
	print('kunit: %d passed, %d failed, %d skipped' % (c.passed, c.failed, c.skipped))
	for p in problems:
		print('FAIL: ' + p)
	if problems:
		print('rosebush: the KUnit run FAILED (%d problem%s)' %
		      (len(problems), '' if len(problems) == 1 else 's'))
		return 1
	print('rosebush: the KUnit run passed and the kernel log is clean')
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
