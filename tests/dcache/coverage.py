#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which of fs/dcache.c's hashing functions and paths the dcache stress ran.

    coverage.py FUNCTIONS LINES

FUNCTIONS is what `llvm-cov gcov -n -f` printed for fs/dcache.c, from the
counts that qemu/dcache-init.sh copied out of the guest after the stress
(counted from the start of /init, not from boot).  Prints each function
that the conversion to rosebush changed or added, with the share of its
lines that ran, and fails (exit 1) unless every one of REQUIRED ran: a
function the stress never reached is a path it does not test.  Those in
KUNIT_ONLY are listed and not judged: no filesystem in the guest reaches
them, and fs/tests/dcache_kunit.c calls each one directly.

LINES is what `llvm-cov gcov -t` printed (each line of fs/dcache.c with
its count): each of PATHS, a line that only a given step reaches, must
have run, or the step did not test what it is there for.
"""

import re
import sys

# Every function of fs/dcache.c that hashes, unhashes, moves or looks up
# a dentry in the dentry hash, or owns a reservation in it.
REQUIRED = [
	# the representation: d_unhashed()'s flag, s_roots, the entries
	'd_set_hashed', 'd_clear_hashed', 'd_on_roots', 'd_set_slot',
	'd_clear_slot', 'd_hash_put',
	'd_hash_reserve', 'd_hash_publish',
	# unhashing and freeing
	'___d_drop', '__d_drop', 'd_drop', '__dentry_kill', 'dentry_free',
	'shrink_dcache_for_umount',
	# allocation, which reserves
	'__d_alloc', '__d_alloc_child', 'd_alloc', 'd_alloc_nohash',
	'd_alloc_parallel', '__d_obtain_alias',
	# lookups
	'__d_lookup_rcu', '__d_lookup_rcu_op_compare', '__d_lookup',
	# hashing
	'__d_rehash', 'd_rehash', '__d_add', 'd_add',
	# moves
	'd_hash_replace', 'd_hash_hand', 'd_hash_move', '__d_move', 'd_move', 'd_exchange',
	'd_splice_alias',
]
KUNIT_ONLY = {
	'd_roots_add': 'only d_obtain_root() puts a dentry on s_roots: nfs, '
		       'ceph, nilfs2 snapshots',
	'd_roots_del': 'the same',
	'__d_unalias': 'a directory found connected under another name: '
		       'a network filesystem\'s rename done elsewhere',
}

# (what it shows, [(the line that starts the function, a text in it, the
# line with that text or one after it)]): one of the lines must have run
PATHS = [
	('a reservation failed (the failslab step)', [
		('static struct dentry *__d_alloc_child(',
		 'rbh_reserve(&dentry_hash', 1),
		('struct dentry *d_alloc_parallel(', 'rbh_reserve(&dentry_hash', 1),
	]),
	('a dentry allocation failed after its reservation (failslab)', [
		('static struct dentry *__d_alloc_child(',
		 'rbh_release(&dentry_hash', 0),
		('struct dentry *d_alloc_parallel(', 'rbh_release(&dentry_hash', 0),
	]),
	('a detached alias was made (file handles)', [
		('static struct dentry *__d_obtain_alias(', 'res = new;', 0),
	]),
	('a detached directory was spliced into place (file handles)', [
		('struct dentry *d_splice_alias(',
		 'bool moved = __d_move(new, dentry, false);', 0),
	]),
	('a lookup compared names with d_compare (vfat)', [
		('static noinline struct dentry *__d_lookup_rcu_op_compare(',
		 'if (parent->d_op->d_compare(dentry,', 0),
	]),
]

_LINE = re.compile(r'^\s*([0-9]+|#####|-|=====):\s*([0-9]+):(.*)$')


def parse_lines(lines):
	"""[(count, source text)] of fs/dcache.c, in order; count None if the
	line holds no code.  (The headers it includes follow, each with its
	own "Source:" line: left out.)"""
	out = []
	ours = False
	for line in lines:
		m = _LINE.match(line.rstrip('\n'))
		if not m:
			continue
		if m.group(2) == '0':
			if m.group(3).startswith('Source:'):
				ours = m.group(3).endswith('fs/dcache.c')
			continue
		if not ours:
			continue
		c = m.group(1)
		out.append((int(c) if c.isdigit() else (None if c == '-' else 0),
			    m.group(3)))
	return out


def find(source, start, text, offset):
	"""The count of the line of @text (+ @offset) after the line @start."""
	for i, (_, line) in enumerate(source):
		if line.startswith(start):
			for j in range(i, len(source)):
				if text in source[j][1]:
					k = j + offset
					return source[k][0] if k < len(source) else None
			return None
	return None


def check_paths(source):
	"""Return (report lines, problems)."""
	report, problems = [], []
	if not source:
		return report, ['no line counts: no gcov data from the guest?']
	for what, places in PATHS:
		counts = [find(source, *p) for p in places]
		if all(c is None for c in counts):
			problems.append('%s: no such line in fs/dcache.c' % what)
			continue
		ran = sum(c or 0 for c in counts)
		report.append('%-60s %6d times' % (what, ran))
		if not ran:
			problems.append('never: %s' % what)
	return report, problems


_FUNC = re.compile(r"^Function '([^']+)'$")
_LINES = re.compile(r'^Lines executed:([0-9.]+)% of (\d+)$')


def parse(lines):
	"""{function: (percent of lines executed, lines)}"""
	out = {}
	func = None
	for line in lines:
		line = line.strip()
		m = _FUNC.match(line)
		if m:
			func = m.group(1)
			continue
		m = _LINES.match(line)
		if m and func:
			out[func] = (float(m.group(1)), int(m.group(2)))
		func = None
	return out


def check(funcs):
	"""Return (report lines, problems)."""
	report, problems = [], []
	if not funcs:
		return report, ['no function counts: no gcov data from the guest?']
	for name in REQUIRED + sorted(KUNIT_ONLY):
		if name not in funcs:
			problems.append('%s: not in the counts' % name)
			continue
		pct, n = funcs[name]
		note = ''
		if name in KUNIT_ONLY:
			note = '  (not judged: %s)' % KUNIT_ONLY[name]
		report.append('%-28s %6.2f%% of %3d lines%s' % (name, pct, n, note))
		if name in REQUIRED and pct == 0:
			problems.append('%s never ran' % name)
	return report, problems


def main(argv):
	if len(argv) != 3:
		print(__doc__, file=sys.stderr)
		return 2
	with open(argv[1], errors='backslashreplace') as f:
		report, problems = check(parse(f))
	with open(argv[2], errors='backslashreplace') as f:
		more, problems2 = check_paths(parse_lines(f))
	report += more
	problems += problems2
	for line in report:
		print('coverage: %s' % line)
	for p in problems:
		print('coverage: %s' % p)
	if not problems:
		print('coverage: all %d functions and %d paths ran' %
		      (len(REQUIRED), len(PATHS)))
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
