#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of coverage.py: counts in which every function it requires
ran pass; one that never ran, one missing from the counts, or no counts
at all fail; a function only the KUnit suite reaches is not judged.  Line
counts in which each of its paths ran pass; a path that never ran, no
counts, or counts of another file only fail."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage  # noqa: E402


def gcov(funcs):
	"""What `llvm-cov gcov -n -f` prints for @funcs {name: percent}."""
	out = []
	for name, pct in funcs.items():
		out += ["Function '%s'\n" % name,
			'Lines executed:%.2f%% of 10\n' % pct, '\n']
	return out + ["File 'fs/dcache.c'\n", 'Lines executed:50.00% of 3000\n']


def gcov_lines(count, zero=(), source='../../linux/fs/dcache.c'):
	"""What `llvm-cov gcov -t` prints for the lines of coverage.PATHS,
	each run @count times but those of the paths named in @zero."""
	out = ['        -:    0:Source:%s\n' % source]
	n = 1
	for what, places in coverage.PATHS:
		c = 0 if what in zero else count
		for start, text, offset in places:
			out.append('%9d:%5d:%s\n' % (c, n, start))
			out.append('%9d:%5d:\t%s\n' % (c, n + 1, text))
			n += 2
			if offset:
				out.append('%9s:%5d:\t\treturn NULL;\n' %
					   (c or '#####', n))
				n += 1
	return out


def main():
	ran = {f: 80.0 for f in coverage.REQUIRED}
	ran.update({f: 0.0 for f in coverage.KUNIT_ONLY})
	ran['dput'] = 0.0
	never = dict(ran, __d_move=0.0)
	missing = {f: p for f, p in ran.items() if f != 'd_exchange'}
	cases = [
		('every required function ran', gcov(ran), True),
		('__d_move never ran', gcov(never), False),
		('d_exchange not in the counts', gcov(missing), False),
		('no counts', [], False),
		('a KUnit-only function ran too',
		 gcov(dict(ran, __d_unalias=50.0)), True),
	]
	failed = coverage.PATHS[0][0]
	paths = [
		('every path ran', gcov_lines(3), True),
		('no reservation failed', gcov_lines(3, [failed]), False),
		('no line counts', [], False),
		('the lines counted in a header only',
		 gcov_lines(3, source='../../linux/include/linux/dcache.h'),
		 False),
	]
	bad = 0
	runs = [(coverage.check_paths, coverage.parse_lines, c) for c in paths]
	runs += [(coverage.check, coverage.parse, c) for c in cases]
	for judge, parse, (name, lines, ok) in runs:
		_, problems = judge(parse(lines))
		if (not problems) != ok:
			print('coverage_test: %s: expected %s, got %s' %
			      (name, 'pass' if ok else 'failure', problems or 'pass'))
			bad = 1
	if not bad:
		print('coverage_test: %d cases passed' % (len(cases) + len(paths)))
	return bad


if __name__ == '__main__':
	sys.exit(main())
