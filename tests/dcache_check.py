#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the console log of `make qemu-dcache` or `make qemu-dcache-kcsan`.

    dcache_check.py LOG QEMU_STATUS [--kcsan]

Fails (exit 1) unless QEMU exited normally, tests/dcache/dcache-stress.c
passed every case and exited 0, the caches were dropped and the tmpfs
unmounted, and the log holds no kernel splat.

With --kcsan, a KCSAN data-race report fails the run only if a rosebush
function (rbh_*) or lib/rosebush.c is in it.  The stress drives the whole
VFS, whose lockless readers race plain writes by design, and 6.12 itself
reports some (dont_mount / lookup_fast on d_flags, drop_nlink /
generic_fillattr on i_nlink: tests/dcache/logs/kcsan.log, before any
dcache change); they are listed, as not rosebush's, and not judged.
Every other splat, and a KCSAN report that is not a data race, fails.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402

WANTED = [
	'dcache: dcache-stress: passed',
	'dcache: exit status 0',
	'dcache: drop_caches exit status 0',
	'dcache: umount exit status 0',
	'dcache: done',
]

_RACE = re.compile(r'BUG: KCSAN: data-race in (.*)$')
_OURS = re.compile(r'\b(__)?rbh_|rosebush')


def report_body(msgs, start):
	"""The lines of the report whose title is at index @start."""
	body = []
	for msg in msgs[start + 1:]:
		if logcheck._DELIMITER.match(msg.rstrip()):
			break
		body.append(msg)
	return body


def check(lines, status, kcsan):
	"""Return (problems, races not judged)."""
	problems = []
	others = []
	if status != 0:
		problems.append('QEMU exit status %d' % status)
	for want in WANTED:
		if not any(want in l for l in lines):
			problems.append('missing: %s' % want)
	msgs = [logcheck.message(l.rstrip('\n')) for l in lines]
	for n, line in logcheck.splats(lines):
		race = _RACE.match(msgs[n - 1])
		if kcsan and race:
			body = report_body(msgs, n - 1)
			if not any(_OURS.search(m) for m in [msgs[n - 1]] + body):
				others.append(race.group(1))
				continue
		problems.append('line %d: kernel splat: %s' % (n, line.strip()))
	return problems, others


def main(argv):
	args = [a for a in argv[1:] if a != '--kcsan']
	if len(args) != 2:
		print(__doc__, file=sys.stderr)
		return 2
	with open(args[0], errors='backslashreplace') as f:
		lines = f.readlines()
	problems, others = check(lines, int(args[1]), '--kcsan' in argv)
	for race in others:
		print('dcache_check: not rosebush\'s, not judged: data-race in %s'
		      % race)
	for p in problems:
		print('dcache_check: %s' % p)
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
