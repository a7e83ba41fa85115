#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a KUnit run: its results, and every line of the kernel's console.

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
copy starts with "# kunit-init: results" and ends with "# kunit-init: end
of results, N suites"; a copy without them, or with another count, fails
the run (the kernel never reached /init, or the copy was cut off); the
report and its counts then come from the console, to show which test was
running when the kernel stopped.  The suites' own results lines on the
console ("ok N NAME" at column 0, whole log records) are checked against
the copy too: a suite that ran without a results file (debugfs could not
make one) or failed fails the run.

Without --results, the KTAP comes from CONSOLE_LOG, where other kernel
messages are interleaved with KUnit's at record granularity (see
ktap_from_console(): a best effort, not a guarantee).
"""

import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402

START_OF_RESULTS = '# kunit-init: results'
END_OF_RESULTS = re.compile(r'^# kunit-init: end of results, ([0-9]+) suites$')
# A suite's result, at the top level: a whole log record on the console
SUITE_RESULT = re.compile(r'^(ok|not ok) [0-9]+ (\S+)$')
KUNIT_INDENT = '    '



def ktap_from_console(parser, lines):
	"""The KTAP lines of a console log, other kernel messages left out.

	A best effort, for when there are no results from debugfs (the kernel
	died first): what the report then shows, not what the verdict rests
	on.  A kernel log record is printed whole, so another subsystem's
	message can sit between two of KUnit's lines but never inside one.
	KUnit indents everything it prints below the top level by four
	spaces a level, and at the top level, column 0, it prints nothing but
	KTAP: version lines, plans, results and "#" diagnostics.  So this
	keeps the lines indented by four spaces or more and the column-0
	lines that are KTAP, and leaves out the rest: pr_*() messages, which
	start at column 0 with their own prefix ("tsc: ..."), and most of a
	stack trace or lockdep report, indented by one or two.  A foreign
	line indented by four or more, or one that is KTAP itself, can still
	mislead the parser.  Lines are taken from the first KTAP version
	line on, with the kernel parser's own prefix rule (the text before
	"KTAP version" is cut from every line, as for timestamps).
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
		if line.startswith(KUNIT_INDENT) or any(r.match(line) for r in column0):
			out.append(line + '\n')
	return out


def console_suites(lines):
	"""{name: ok} of the suites' own results on the console.

	Each is a whole log record at column 0 (kunit_print_suite_end()), so
	no interleaving can hide one; the prefix rule is ktap_from_console()'s.
	"""
	suites = {}
	prefix = None
	for line in lines:
		line = line.rstrip('\r\n')
		if prefix is None:
			m = re.search(r'K?TAP version [0-9]+$', line)
			if m:
				prefix = m.start()
			continue
		m = SUITE_RESULT.match(line[prefix:])
		if m:
			suites[m.group(2)] = m.group(1) == 'ok'
	return suites


def split_results(lines):
	"""The suites of a kunit-init.sh copy, and whether the copy is whole.

	Returns (suites, problems): suites is a list of KTAP documents, one a
	suite, each as debugfs_print_results() writes it ("KTAP version 1",
	"1..1", the suite, "ok 1 NAME").
	"""
	suites, problems = [], []
	started, ended = False, None
	for line in lines:
		line = line.rstrip('\r\n')
		m = END_OF_RESULTS.match(line)
		if line == START_OF_RESULTS:
			started = True
		elif not started:
			continue
		elif m:
			ended = int(m.group(1))
		elif line.startswith('KTAP version'):
			suites.append([line])
		elif line and not suites:
			problems.append('results: a line before any suite: %r' % line)
		elif suites:
			suites[-1].append(line)
	if not started:
		problems.append('results: no "%s" line: the kernel did not reach /init'
				% START_OF_RESULTS)
	elif ended is None:
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

	problems = []

	def parse(ktap):
		# The parser prints as it goes: the kunit.py report.
		kunit_parser.stdout = kunit_printer.Printer(io.StringIO() if quiet else out)
		try:
			return kunit_parser.parse_run_tests(ktap)
		except Exception as e:  # the parser's own errors: a failed run
			problems.append('the KTAP parser failed: %r' % e)
			return kunit_parser.parse_run_tests([])

	if results is not None:
		suites, copy_problems = split_results(results)
		problems.extend(copy_problems)
		if copy_problems:
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
	if results is not None:
		for name, ok in console_suites(console).items():
			if name not in suites:
				problems.append('suite %s ran (console) but is not in the results' % name)
			if not ok:
				problems.append('suite %s: not ok on the console' % name)
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
		elif args[0] == '--results' and len(args) > 2:
			results_path = args[1]
			args = args[2:]
		else:
			print(__doc__, file=sys.stderr)
			return 2
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
