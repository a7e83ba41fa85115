#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find kernel splats in a console log.

KUnit's summary only reports test results: a lockdep report, an RCU
warning, a KASAN or a KCSAN report printed while the tests pass (or outside
any test) leaves it green.  This module finds those reports so that the run
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
	r'BUG:',				# KASAN, KCSAN, sleeping in atomic, NULL deref...
	r'WARNING:',				# WARN*(), suspicious RCU usage, lockdep
	r'kernel BUG at',
	r'Oops:',
	r'general protection fault',
	r'Kernel panic',
	r'UBSAN:',
	r'KCSAN:',				# "BUG: KCSAN: data-race in f / g" is BUG:
	r'INFO: (possible|trying to register|task .* blocked|rcu)',
	r'rcu: INFO:',
	r'DEBUG_LOCKS_WARN_ON',
	r'(possible|inconsistent) (circular|recursive|irq) lock',
	r'watchdog: BUG',
	r'Call Trace:',
	# arm64: a kernel fault, its die(), and its backtrace
	r'Unable to handle kernel',
	r'Internal error:',
	r'Call trace:',
]
_SPLAT = re.compile('|'.join('(?:%s)' % m for m in _MARKERS))

# The line that opens and closes a KASAN, KCSAN, KFENCE or KMSAN report
# (lockdep's lines of '=' are as wide as its title instead).
_DELIMITER = re.compile(r'={66}$')


def message(line):
	"""Return the console line without its timestamp and caller id."""
	return _PREFIX.sub('', line, count=1)


def splats(lines):
	"""Return (line number, line) for every line that starts a splat.

	That is every line starting with a marker, and the opening delimiter
	of a sanitizer report whose title is not one: a report whose
	"BUG: KCSAN: ..." line was lost ("** N printk messages dropped **") or
	garbled still fails the run.  A delimiter followed by its title is not
	reported (the title is), nor is the delimiter that closes a report.
	"""
	lines = [line.rstrip('\n') for line in lines]
	msgs = [message(line) for line in lines]
	found = []
	in_report = False
	for i, msg in enumerate(msgs):
		if _SPLAT.match(msg):
			found.append((i + 1, lines[i]))
		elif _DELIMITER.match(msg.rstrip()):
			title = next((m for m in msgs[i + 1:] if m.strip()), '')
			if _SPLAT.match(title):
				in_report = True	# the title is reported
			elif in_report:
				in_report = False	# the closing delimiter
			else:
				found.append((i + 1, lines[i]))
				in_report = True
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
