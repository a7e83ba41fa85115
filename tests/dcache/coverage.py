#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which of fs/dcache.c's hashing functions the dcache stress ran.

    coverage.py FUNCTIONS

FUNCTIONS is what `llvm-cov gcov -n -f` printed for fs/dcache.c, from the
counts that qemu/dcache-init.sh copied out of the guest after the stress
(counted from the start of /init, not from boot).  Prints each function
that the conversion to rosebush changed or added, with the share of its
lines that ran, and fails (exit 1) unless every one of REQUIRED ran: a
function the stress never reached is a path it does not test.  Those in
KUNIT_ONLY are listed and not judged: no filesystem in the guest reaches
them, and fs/tests/dcache_kunit.c calls each one directly.
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
	'__d_alloc', 'd_alloc', 'd_alloc_parallel', '__d_obtain_alias',
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
	if len(argv) != 2:
		print(__doc__, file=sys.stderr)
		return 2
	with open(argv[1], errors='backslashreplace') as f:
		report, problems = check(parse(f))
	for line in report:
		print('coverage: %s' % line)
	for p in problems:
		print('coverage: %s' % p)
	if not problems:
		print('coverage: all %d functions ran' % len(REQUIRED))
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
