#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the console log of `make qemu-dcache` or `make qemu-dcache-kcsan`.

    dcache_check.py LOG QEMU_STATUS [--kcsan]

Fails (exit 1) unless QEMU exited normally, tests/dcache/dcache-stress.c
passed every case and exited 0, the caches were dropped and the tmpfs
unmounted, and the log holds no kernel splat.

With --kcsan, a KCSAN data-race report fails the run only if a rosebush
function (rbh_*, or dhash_* once the dcache calls them) is a frame of
either stack.  The stress drives the whole
VFS, whose lockless readers race plain writes by design, and 6.12 itself
reports some (dont_mount / lookup_fast on d_flags, drop_nlink /
generic_fillattr on i_nlink: tests/dcache/logs/kcsan.log, before any
dcache change); they are listed, as not rosebush's, and not judged.
Every other splat, and a KCSAN report that is not a data race, fails.

Once fs/dcache.c calls rosebush, a race on the dentry itself (d_flags,
d_name) has no rosebush frame; that conversion must judge races with a
frame in fs/dcache.c too, against a reviewed list of the pairs 6.12
already reports, seeded from runs of the kernel without it.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402

WANTED = [
	'dcache: mount exit status 0',
	'dcache: dcache-stress: passed',
	'dcache: exit status 0',
	'dcache: drop_caches exit status 0',
	'dcache: umount exit status 0',
	'dcache: done',
]

_RACE = re.compile(r'BUG: KCSAN: data-race in (.*)$')
# A stack frame: " func+0x12/0x34" (maybe with a module name after it)
_FRAME = re.compile(r'^\s*(\w+)\+0x[0-9a-f]+/0x[0-9a-f]+')
_OURS = re.compile(r'^(__)?(rbh|dhash)_')


def report_frames(msgs, start):
	"""The functions of the stack frames of the report titled at @start."""
	frames = []
	for msg in msgs[start + 1:]:
		# The line of '=' that closes a sanitizer report
		if re.match(r'={66}$', msg.rstrip()):
			break
		m = _FRAME.match(msg)
		if m:
			frames.append(m.group(1))
	return frames


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
			frames = report_frames(msgs, n - 1)
			if frames and not any(_OURS.match(f) for f in frames):
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
