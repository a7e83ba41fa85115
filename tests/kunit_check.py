#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a KUnit run from the raw kernel log, not from kunit.py's summary.

    kunit_check.py [--quiet] [--results RESULTS] LINUX_TREE CONSOLE_LOG SUITE...

Parses KTAP with the kernel's own parser (tools/testing/kunit/
kunit_parser.py), prints the results and a line per suite with its
counts, and fails (exit 1) when:
  - any test failed, crashed or could not be parsed;
  - a SUITE named on the command line did not run, or ran no test;
  - the console log holds a kernel splat (BUG, WARNING, KASAN, KCSAN,
    lockdep, RCU...), in a test or outside one (see logcheck.py).  KCSAN
    data races in particular never fail a KUnit test by themselves.

With --results, the KTAP comes from RESULTS: what qemu/kunit-init.sh
copied from /sys/kernel/debug/kunit/*/results to a serial port that is
not a console.  Each suite's results file holds only what KUnit logged
for that suite, so no other kernel message can be among its lines.  The
copy ends with "# kunit-init: end of results, N suites"; a copy without
that line, or with another count, fails the run (the kernel never reached
/init, or the copy was cut off); the report and its counts then come from
the console, to show which test was running when the kernel stopped.

Without --results, the KTAP comes from CONSOLE_LOG, where other kernel
messages are interleaved with KUnit's at record granularity (see
ktap_from_console()).
"""

import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402

END_OF_RESULTS = re.compile(r'^# kunit-init: end of results, ([0-9]+) suites$')


def ktap_from_console(parser, lines):
	"""The KTAP lines of a console log, with other kernel messages left out.

	A kernel log record is printed whole, so another subsystem's message
	can sit between two of KUnit's lines but never inside one.  KUnit
	indents everything it prints below the top level (by four spaces a
	level), and at the top level, column 0, it prints nothing but KTAP
	lines: version lines, plans, results and "#" diagnostics.  A message
	printed with pr_*() starts at column 0 with its own prefix
	("tsc: ...", "clocksource: ..."), so this keeps every indented line
	and every column-0 line that is KTAP, and leaves out the rest.  That
	follows from the format KUnit prints, not from any one message: the
	only lines that could still mislead the parser are column-0 lines
	that are KTAP themselves.  Lines are taken from the first KTAP
	version line on, with the kernel parser's own prefix rule (the text
	before "KTAP version" is cut from every line, as for timestamps).
	"""
	column0 = (parser.KTAP_START, parser.TAP_START, parser.TEST_PLAN,
		   parser.TEST_RESULT, parser.EXECUTOR_ERROR,
		   re.compile(r'^#( |$)'))
	out = []
	prefix = None
	for line in lines:
		line = line.rstrip('\r\n')
		if prefix is None:
			m = re.search(r'K?TAP version [0-9]+$', line)
			if not m:
				if parser.EXECUTOR_ERROR.search(line):
					out.append(line + '\n')
				continue
			prefix = m.start()
		line = line[prefix:]
		if line[:1].isspace() or any(r.match(line) for r in column0):
			out.append(line + '\n')
	return out


def split_results(lines):
	"""The suites of a kunit-init.sh copy, and whether the copy is whole.

	Returns (suites, problems): suites is a list of KTAP documents, one a
	suite, each as debugfs_print_results() writes it ("KTAP version 1",
	"1..1", the suite, "ok 1 NAME").
	"""
	suites, problems = [], []
	ended = None
	for line in lines:
		line = line.rstrip('\r\n')
		m = END_OF_RESULTS.match(line)
		if m:
			ended = int(m.group(1))
		elif line.startswith('KTAP version'):
			suites.append([line])
		elif line and not suites:
			problems.append('results: a line before any suite: %r' % line)
		elif suites:
			suites[-1].append(line)
	if ended is None:
		problems.append('results: no "# kunit-init: end of results" line: '
				'the kernel did not reach /init, or the copy was cut off')
	elif ended != len(suites):
		problems.append('results: %d suites copied, %d found' % (ended, len(suites)))
	return suites, problems


def merge_suites(suites):
	"""One KTAP document of the suites, numbered 1..N."""
	out = ['KTAP version 1', '1..%d' % len(suites)]
	for i, doc in enumerate(suites, 1):
		body = doc[2:]
		# The suite's own result, the last line: "ok 1 NAME".
		while body and not body[-1].strip():
			body.pop()
		if body:
			body[-1] = re.sub(r'^(ok|not ok) 1 ', r'\g<1> %d ' % i, body[-1])
		out.extend(body)
	return [line + '\n' for line in out]


def judge(linux, console, wanted, results=None, out=sys.stdout, quiet=False):
	"""Judge a run; print the report to out.  Returns (problems, root)."""
	sys.path.insert(0, os.path.join(linux, 'tools/testing/kunit'))
	import kunit_parser
	import kunit_printer

	def parse(ktap):
		# The parser prints as it goes: the kunit.py report.
		kunit_parser.stdout = kunit_printer.Printer(io.StringIO() if quiet else out)
		return kunit_parser.parse_run_tests(ktap)

	problems = []
	if results is not None:
		suites, problems = split_results(results)
		if problems:
			# The counts are the console's then: they show where the
			# kernel stopped.
			print('The KUnit results are incomplete; the console shows:', file=out)
			root = parse(ktap_from_console(kunit_parser, console))
		else:
			root = parse(merge_suites(suites))
	else:
		root = parse(ktap_from_console(kunit_parser, console))
	ok_states = (kunit_parser.TestStatus.SUCCESS, kunit_parser.TestStatus.SKIPPED)

	suites = {t.name: t for t in root.subtests}
	print('%-28s %6s %6s %6s %6s' % ('suite', 'passed', 'failed', 'skip', 'crash'), file=out)
	for name, t in suites.items():
		c = t.counts
		print('%-28s %6d %6d %6d %6d' % (name, c.passed, c.failed, c.skipped, c.crashed),
		      file=out)
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
	for n, line in logcheck.splats(console):
		problems.append('console:%d: kernel splat: %s' % (n, line.strip()))

	c = root.counts
	if c.crashed or c.errors:
		print('crashed: %d, parse errors: %d' % (c.crashed, c.errors), file=out)
	print('kunit: %d passed, %d failed, %d skipped' % (c.passed, c.failed, c.skipped),
	      file=out)
	return problems, root


def main(argv):
	args = argv[1:]
	results_path = None
	quiet = False
	while args and args[0].startswith('--'):
		if args[0] == '--quiet':
			quiet = True
			args = args[1:]
		elif args[0] == '--results' and len(args) > 1:
			results_path = args[1]
			args = args[2:]
		else:
			break
	if len(args) < 2:
		print(__doc__, file=sys.stderr)
		return 2
	linux, log_path, wanted = args[0], args[1], args[2:]
	with open(log_path, errors='backslashreplace') as f:
		console = f.readlines()
	results = None
	if results_path is not None:
		try:
			with open(results_path, errors='backslashreplace') as f:
				results = f.readlines()
		except FileNotFoundError:
			results = []

	problems, _ = judge(linux, console, wanted, results, quiet=quiet)
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
