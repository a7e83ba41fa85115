#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge the console log of `make qemu-dcache` or `make qemu-dcache-kcsan`.

    dcache_check.py LOG QEMU_STATUS [--kcsan] [--selftests LIST]

Fails (exit 1) unless QEMU exited normally, every step of
qemu/dcache-init.sh passed (tests/dcache/dcache-stress.c's cases, the
failslab run, ext4 with file handles, unmounts during walks, vfat, each
selftest), the caches were dropped and the tmpfs unmounted, the dentry
hash at rest holds no reservation and no more entries than there are
dentries, its verifier found each hashed dentry stored once under its
hash, nothing else there, and an entry for each, and the log holds no
kernel splat.  With --selftests, each
selftest named in LIST (tests/dcache/selftests.sh's list) must have run
and passed.

With --kcsan, a KCSAN data-race report fails the run only if a rosebush
function (rbh_*) or a function of the dcache's conversion to it
(d_hash_*, d_set_hashed, d_clear_hashed, d_roots_*, d_on_roots) is a
frame of either stack, unless it is a marked 4-byte write by the
conversion against a plain read within that word by 6.12 alone
(marked_write_plain_read(): the conversion writes ->d_flags with
WRITE_ONCE(), and step_into(), lookup_fast() and the like read it plain
for its type bits, as they do against 6.12's own writers).
The stress drives the whole
VFS, whose lockless readers race plain writes by design, and 6.12 itself
reports some (dont_mount / lookup_fast on d_flags, drop_nlink /
generic_fillattr on i_nlink: tests/dcache/logs/kcsan.log, before any
dcache change); they are listed, as not rosebush's, and not judged.
Every other splat, and a KCSAN report that is not a data race, fails.

A race on the dentry itself (d_flags, d_name) between two functions 6.12
already had has neither; judging those needs a reviewed list of the
pairs 6.12 reports, seeded from runs of the kernel without the
conversion (not done yet).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import logcheck  # noqa: E402

# What every log must have: the tmpfs cases (the first version of the
# stress had only these, and the recorded logs of tests/dcache/logs/
# with it)
BASE = [
	'dcache: mount exit status 0',
	'dcache: dcache-stress: passed',
	'dcache: exit status 0',
	'dcache: drop_caches exit status 0',
	'dcache: umount exit status 0',
	'dcache: done',
]
# ... and the steps added after them, with the dentry hash at rest
STEPS = [
	'failslab', 'mke2fs', 'ext4 mount', 'handles', 'ext4 umount',
	'umount walks', 'mkdosfs', 'vfat mount', 'vfat', 'vfat umount',
	'selftests',
]
WANTED = BASE + ['dcache: %s exit status 0' % s for s in STEPS]

_STATUS = re.compile(r'dcache: (.*) exit status (\d+)$')
_SELFTEST = re.compile(r'dcache: selftest (\S+) exit status (\d+)$')
_HASH = re.compile(r'dcache: dentry_hash: (\w+) (\d+)$')
_DSTATE = re.compile(r'dcache: dentry-state: (\d+)\s')
_VERIFY = re.compile(r'dcache: dentry_verify: (\w+) (\d+)$')

_RACE = re.compile(r'BUG: KCSAN: data-race in (.*)$')
# A stack frame: " func+0x12/0x34" (maybe with a module name after it)
_FRAME = re.compile(r'^\s*(\w+)\+0x[0-9a-f]+/0x[0-9a-f]+')
_OURS = re.compile(r'^(__)?(rbh_|dhash_|d_hash_|d_roots_|d_on_roots$|'
		   r'd_set_hashed$|d_clear_hashed$)')

_RBH = re.compile(r'^(__)?rbh_')

# The line that starts each of a KCSAN report's two stacks
_ACCESS = re.compile(r'^(read|write|read-write)( \(marked\))? to 0x([0-9a-f]+) '
		     r'of (\d+) bytes by ')
def report_lines(msgs, start):
	"""The messages of the report titled at @start, up to its closing line."""
	out = []
	for msg in msgs[start + 1:]:
		# The line of '=' that closes a sanitizer report
		if re.match(r'={66}$', msg.rstrip()):
			break
		out.append(msg)
	return out


def report_frames(msgs, start):
	"""The functions of the stack frames of the report titled at @start."""
	return [m.group(1) for m in map(_FRAME.match, report_lines(msgs, start))
		if m]


def report_stacks(msgs, start):
	"""[(kind, marked, address, size, [functions])] for each stack of the
	report."""
	stacks = []
	for msg in report_lines(msgs, start):
		a = _ACCESS.match(msg)
		if a:
			stacks.append((a.group(1), bool(a.group(2)),
				       int(a.group(3), 16), int(a.group(4)), []))
			continue
		m = _FRAME.match(msg)
		if m and stacks:
			stacks[-1][4].append(m.group(1))
	return stacks


def marked_write_plain_read(msgs, start):
	"""
	Whether the report is a marked 4-byte write by a function of the
	conversion (not rosebush's) against a plain read within that word
	whose stack is 6.12's alone: the conversion's WRITE_ONCE() of ->d_flags against a
	6.12 reader of ->d_flags that reads it plain, the race 6.12 has with
	every ->d_flags writer (dont_mount() / step_into()).

	Every marked 4-byte write in the conversion's functions is one of
	its ->d_flags helpers (d_set_hashed(), d_clear_hashed(),
	d_set_slot(), d_clear_slot()): the conversion adds no other
	WRITE_ONCE() to fs/dcache.c, and rosebush's writes are rbh_* frames.

	The "value changed" line does not say what the write changed: it is
	the plain reader's view across its whole watch, which other writers
	of the word change too (tests/dcache/logs/kcsan-window.log: a
	d_hash_hand() write, and dont_mount()'s DCACHE_CANT_MOUNT the only
	bit seen to change), so it is not judged.
	"""
	stacks = report_stacks(msgs, start)
	if len(stacks) != 2:
		return False
	ours = [any(_OURS.match(f) for f in st[4]) for st in stacks]
	if ours.count(True) != 1:
		return False
	mine, theirs = stacks if ours[0] else stacks[::-1]
	# the write is the conversion's own, not rosebush's
	if mine[0] != 'write' or not mine[1] or mine[3] != 4 or \
	   not mine[4] or _RBH.match(mine[4][0]):
		return False
	if theirs[0] != 'read' or theirs[1]:
		return False
	# the compiler may read only the byte that holds the bits it tests
	offset = theirs[2] - mine[2]
	return offset >= 0 and offset + theirs[3] <= 4


def at_rest(msgs):
	"""Problems with the dentry hash at rest: reservations left over, or
	more entries than dentries (each entry is a hashed dentry's)."""
	stats, dentries = {}, None
	for msg in msgs:
		m = _HASH.search(msg)
		if m:
			stats[m.group(1)] = int(m.group(2))
		m = _DSTATE.search(msg)
		if m:
			dentries = int(m.group(1))
	if 'reserved' not in stats or 'entries' not in stats or dentries is None:
		return ['missing: the dentry hash at rest (dentry_hash, dentry-state)']
	problems = []
	if stats['reserved']:
		problems.append('at rest, %d reservations of the dentry hash are left'
				% stats['reserved'])
	if stats['entries'] + stats['reserved'] > dentries:
		problems.append('at rest, the dentry hash has %d entries and %d '
				'reservations for %d dentries' %
				(stats['entries'], stats['reserved'], dentries))
	return problems + verified(msgs)


def verified(msgs):
	"""Problems the verifier (/sys/kernel/debug/dcache/verify) found at
	rest: a hashed dentry not stored once under its hash, another name's
	dentry stored under it, or entries that no hashed dentry reached from
	a root accounts for."""
	v = {}
	for msg in msgs:
		m = _VERIFY.search(msg)
		if m:
			v[m.group(1)] = int(m.group(2))
	if set(v) != {'hashed', 'entries', 'wrong', 'strays'}:
		return ['missing: the verifier\'s walk of the dentry hash at rest']
	problems = []
	if v['wrong']:
		problems.append('at rest, %d hashed dentries are not stored once '
				'under their hash' % v['wrong'])
	if v['strays']:
		problems.append('at rest, %d entries are stored under the hash of '
				'another name' % v['strays'])
	if v['hashed'] != v['entries']:
		problems.append('at rest, %d hashed dentries for %d entries' %
				(v['hashed'], v['entries']))
	return problems


def check(lines, status, kcsan, wanted=None, selftests=()):
	"""Return (problems, races not judged).  @wanted: the lines that must
	be there (default WANTED, the whole of qemu/dcache-init.sh; BASE for a
	log of its first version, which checks neither the new steps nor the
	dentry hash at rest).  @selftests: names that must have passed."""
	problems = []
	others = []
	full = wanted is None
	if status != 0:
		problems.append('QEMU exit status %d' % status)
	for want in WANTED if full else wanted:
		if not any(want in l for l in lines):
			problems.append('missing: %s' % want)
	msgs = [logcheck.message(l.rstrip('\n')) for l in lines]
	# Any step that failed, the selftests one by one among them
	for msg in msgs:
		m = _STATUS.search(msg)
		if m and m.group(2) != '0':
			problems.append('failed: %s' % m.group(0))
	if full:
		ran = [m.group(1) for m in map(_SELFTEST.search, msgs) if m]
		if not ran:
			problems.append('missing: the selftests\' results')
		for name in selftests:
			if name not in ran:
				problems.append('missing: selftest %s' % name)
		problems += at_rest(msgs)
	for n, line in logcheck.splats(lines):
		race = _RACE.match(msgs[n - 1])
		if kcsan and race:
			frames = report_frames(msgs, n - 1)
			if frames and not any(_OURS.match(f) for f in frames):
				others.append(race.group(1))
				continue
			if marked_write_plain_read(msgs, n - 1):
				others.append(race.group(1) +
					      ' (a marked write against a plain read)')
				continue
		problems.append('line %d: kernel splat: %s' % (n, line.strip()))
	return problems, others


def main(argv):
	args = [a for a in argv[1:] if a != '--kcsan']
	selftests = []
	if '--selftests' in args:
		i = args.index('--selftests')
		if i + 1 >= len(args):
			print(__doc__, file=sys.stderr)
			return 2
		with open(args[i + 1]) as f:
			selftests = f.read().split()
		del args[i:i + 2]
	if len(args) != 2:
		print(__doc__, file=sys.stderr)
		return 2
	with open(args[0], errors='backslashreplace') as f:
		lines = f.readlines()
	problems, others = check(lines, int(args[1]), '--kcsan' in argv,
				 selftests=selftests)
	for race in others:
		print('dcache_check: not rosebush\'s, not judged: data-race in %s'
		      % race)
	for p in problems:
		print('dcache_check: %s' % p)
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
