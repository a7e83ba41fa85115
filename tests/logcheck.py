#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find kernel splats in a console log.

KUnit's summary only reports test results: a lockdep report, an RCU
warning or a KASAN report printed while the tests pass (or outside any
test) leaves it green.  This module finds those reports so that the run
fails.  Usable as a library (splats()) or as a command:

    logcheck.py LOG...     exit 1 and print the reports if any LOG has one
"""

import re
import sys

# A console line: optional "[    1.234567]" timestamp, optional "[ T1]"
# or "[ C0]" caller id, then the message.  Anchoring the markers at the
# start of the message keeps test names such as "bug_on_foo" from
# matching.
_PREFIX = re.compile(r'^\s*(\[\s*\d+\.\d+\]\s*)?(\[\s*[CT]\d+\]\s*)?')

# Messages that only ever start a report of something going wrong.
_MARKERS = [
	r'BUG:',				# KASAN, sleeping in atomic, NULL deref, soft lockup...
	r'WARNING:',				# WARN*(), suspicious RCU usage, lockdep
	r'kernel BUG at',
	r'Oops:',
	r'general protection fault',
	r'Kernel panic',
	r'UBSAN:',
	r'KCSAN:',
	r'INFO: (possible|trying to register|task .* blocked|rcu)',
	r'rcu: INFO:',
	r'DEBUG_LOCKS_WARN_ON',
	r'(possible|inconsistent) (circular|recursive|irq) lock',
	r'watchdog: BUG',
	r'Call Trace:',
]
_SPLAT = re.compile('|'.join('(?:%s)' % m for m in _MARKERS))


def message(line):
	"""Return the console line without its timestamp and caller id."""
	return _PREFIX.sub('', line, count=1)


def splats(lines):
	"""Return (line number, line) for every line that starts a splat."""
	found = []
	for n, line in enumerate(lines, 1):
		if _SPLAT.match(message(line.rstrip('\n'))):
			found.append((n, line.rstrip('\n')))
	return found


def main(argv):
	bad = 0
	for path in argv[1:]:
		with open(path, errors='backslashreplace') as f:
			lines = f.readlines()
		for n, line in splats(lines):
			print('%s:%d: %s' % (path, n, line))
			bad = 1
	return bad


if __name__ == '__main__':
	sys.exit(main(sys.argv))
