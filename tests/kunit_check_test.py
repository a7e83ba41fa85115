#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of kunit_check.py against recorded QEMU runs.

    kunit_check_test.py LINUX_TREE

tests/kunit_check/ holds, from real runs of `make qemu-kunit` and
`make qemu-kcsan`:
  - kcsan-console-line-inside-ktap-header.log: a KCSAN boot whose
    clocksource messages fell between a nested "KTAP version 1" and its
    "# Subtest:";
  - kunit-console.log and kunit-results.ktap: a clean KASAN/lockdep run
    (188 tests), its console and what qemu/kunit-init.sh copied to ttyS1;
  - kunit-killed-console.log: the console of a run that was killed while
    the rosebush suite ran (timeout 60 s), so that its seventh case never
    ended and /init never ran: 156 tests passed, and the case that was
    running and the 15 after it crashed.
Each case states the verdict and the counts it must give.  Prints
'N passed, N failed' and exits non-zero on any failure.
"""

import io
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import kunit_check  # noqa: E402

SUITES = ['rosebush', 'rust_doctests_kernel']


def read(name):
	with open(os.path.join(here, 'kunit_check', name), errors='backslashreplace') as f:
		return f.readlines()


def main(argv):
	if len(argv) != 2:
		print(__doc__, file=sys.stderr)
		return 2
	linux = argv[1]
	interleaved = read('kcsan-console-line-inside-ktap-header.log')
	console = read('kunit-console.log')
	results = read('kunit-results.ktap')
	killed = read('kunit-killed-console.log')

	def swap(lines, old, new, count=1):
		text = ''.join(lines).replace(old, new, count)
		return text.splitlines(keepends=True)

	def drop(lines, text):
		return [l for l in lines if text not in l]

	# A suite's copy, from its "KTAP version 1" line at column 0 to the
	# next one.
	def without_suite(lines, name):
		docs, cur = [], []
		for l in lines:
			if l.startswith('KTAP version') or l.startswith('# kunit-init:'):
				docs.append(cur)
				cur = []
			cur.append(l)
		docs.append(cur)
		return [l for d in docs if not any('# Subtest: %s\n' % name in l for l in d)
			for l in d]

	splat = ['WARNING: CPU: 1 PID: 1 at lib/rosebush.c:100 rbh_foo+0x1/0x2\n']

	# A line inside the nested header of the parameterised case
	def in_header(lines, line):
		i = next(n for n, l in enumerate(lines)
			 if l.strip() == '# Subtest: rbh_insert_iterate_remove')
		return lines[:i] + [line] + lines[i:]

	crlf = [l.rstrip('\n') + '\r\n' for l in results]
	# (name, console, results or None, passes, passed, crashed[, suites]):
	# passed and crashed are the counts the report must give; suites, those
	# that must run (default: SUITES).
	cases = [
		('console: a message inside a KTAP header', interleaved, None, True, 187, 0),
		('console: a clean run', console, None, True, 188, 0),
		('console: killed mid-suite', killed, None, False, 156, 16),
		('console: a test failed', swap(console, '    ok 3 ', '    not ok 3 '), None,
		 False, 187, 0),
		('console: a splat', console + splat, None, False, 188, 0),
		('results: a clean run', console, results, True, 188, 0),
		('results: the interleaved console', interleaved, results, True, 188, 0),
		('results: killed mid-suite, nothing copied', killed, [], False, 156, 16),
		('results: copy cut off', killed,
		 drop(results, '# kunit-init: end of results'), False, 156, 16),
		('results: a test failed', console, swap(results, '    ok 3 ', '    not ok 3 '),
		 False, 187, 0),
		('results: a suite missing', console,
		 swap(without_suite(results, 'rust_doctests_kernel'), 'results, 2 suites',
		      'results, 1 suites'), False, 61, 0),
		# Only the suite count can tell: the suite left out is not one
		# that must run.
		('results: a suite left out of the copy', console,
		 without_suite(results, 'rust_doctests_kernel'), False, 188, 0, ['rosebush']),
		('results: a splat on the console', console + splat, results, False, 188, 0),
		('results: CRLF line ends (stty failed)', console, crlf, True, 188, 0),
		('results: a suite not ok on the console', swap(console, 'ok 2 rosebush',
		 'not ok 2 rosebush'), results, False, 188, 0),
		('results: a suite on the console, not in the copy', console,
		 swap(without_suite(results, 'rust_doctests_kernel'), 'results, 2 suites',
		      'results, 1 suites'), False, 61, 0, ['rosebush']),
		('results: no start marker', console, drop(results, '# kunit-init: results'),
		 False, 188, 0),
		('console: a stack-trace line inside a KTAP header',
		 in_header(console, ' <TASK>\n'), None, True, 188, 0),
		('console: an indented line the parser chokes on',
		 in_header(console, '    lock(&rbh->lock);\n'), None, False, None, None),
	]
	passed = failed = 0
	for name, con, res, ok, want_passed, want_crashed, *wanted in cases:
		out = io.StringIO()
		problems, root = kunit_check.judge(linux, con, wanted[0] if wanted else SUITES,
						   res, out=out, quiet=True)
		c = root.counts
		why = []
		if (not problems) != ok:
			why.append('problems %r' % problems if problems else 'no problem found')
		if want_passed is not None and c.passed != want_passed:
			why.append('%d passed, expected %d' % (c.passed, want_passed))
		if want_crashed is not None and c.crashed != want_crashed:
			why.append('%d crashed, expected %d' % (c.crashed, want_crashed))
		print('%s %s%s' % ('not ok' if why else 'ok', name, ': ' + '; '.join(why) if why else ''))
		passed += not why
		failed += bool(why)
	print('kunit_check: %d passed, %d failed' % (passed, failed))
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
