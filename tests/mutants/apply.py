#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""apply.py SRC DST FUNCTION LINE [REPLACEMENT]

Write SRC to DST with one line changed: the first line of FUNCTION (a
definition whose line starts with a lower-case letter and names it
before "(") whose text, without indentation, is exactly LINE is deleted,
or replaced by REPLACEMENT (indented as it was; "\\n" in it starts a new
line).  Exits non-zero, saying why, if FUNCTION or LINE is not found.
Used by tests/mutants/run.sh and scripts/qemu-mutants.sh.
"""

import re
import sys


def main(argv):
	if len(argv) not in (5, 6):
		print(__doc__, file=sys.stderr)
		return 2
	src, dst, func, line = argv[1:5]
	replacement = argv[5] if len(argv) == 6 else ''
	text = open(src).read().split('\n')
	start = next((i for i, l in enumerate(text)
		      if re.match(r'^[a-z].*\b' + re.escape(func) + r'\(', l)
		      and not l.rstrip().endswith(';')), None)
	if start is None:
		sys.exit(f'no function {func}')
	for i in range(start, len(text)):
		if text[i].strip() == line:
			if replacement:
				indent = text[i][:len(text[i]) - len(text[i].lstrip())]
				text[i] = indent + replacement.replace('\\n', '\n')
			else:
				del text[i]
			break
		if text[i] == '}':
			sys.exit(f'{func} has no line "{line}"')
	open(dst, 'w').write('\n'.join(text))
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
