#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The hand-written part of the cover letter, kept across re-exports.

    cover.py subject FILE   print the subject after "[PATCH vN 0/M] "
    cover.py blurb FILE     print the blurb (between headers and shortlog)
    cover.py from FILE      print the From: header (with continuation lines)
    cover.py fill FILE      print FILE (format-patch's cover letter) with
                            $SUBJECT and $BLURB put in place of its
                            "*** SUBJECT HERE ***" and "*** BLURB HERE ***",
                            dated $DATE and, if $FROM is set, with that
                            From: header
"""

import os
import re
import sys

# The shortlog starts with "Author Name (N):".
SHORTLOG = re.compile(r'^\S.* \(\d+\):$')


def split(text):
	"""Return (header lines, body lines) of a mail."""
	lines = text.split('\n')
	i = lines.index('')
	return lines[:i], lines[i + 1:]


def header(text, name):
	"""Return header NAME with its continuation lines, as in the file."""
	head, _ = split(text)
	s, on = [], False
	for line in head:
		if line.startswith(name + ':'):
			s.append(line)
			on = True
		elif on and line[:1] in (' ', '\t'):
			s.append(line)
		else:
			on = False
	return '\n'.join(s)


def subject(text):
	lines = header(text, 'Subject').split('\n')
	s = ' '.join(line.strip() for line in lines)[len('Subject:'):].strip()
	return re.sub(r'^\[[^]]*\]\s*', '', s)


def blurb(text):
	_, body = split(text)
	end = next(i for i, line in enumerate(body) if SHORTLOG.match(line))
	while end > 0 and body[end - 1] == '':
		end -= 1
	return '\n'.join(body[:end])


def main(argv):
	verb, path = argv[1], argv[2]
	with open(path) as f:
		text = f.read()
	if verb == 'subject':
		print(subject(text))
	elif verb == 'from':
		print(header(text, 'From'))
	elif verb == 'blurb':
		print(blurb(text))
	elif verb == 'fill':
		text = text.replace('*** SUBJECT HERE ***', os.environ['SUBJECT'])
		text = text.replace('*** BLURB HERE ***', os.environ['BLURB'])
		# format-patch dates the cover letter "now"; date it like the
		# last patch instead, so that exporting twice gives the same bytes.
		text = re.sub(r'^Date: .*$', 'Date: ' + os.environ['DATE'], text,
			      count=1, flags=re.M)
		# ... and signed by the same sender whoever runs the export.
		if os.environ.get('FROM'):
			text = text.replace(header(text, 'From'), os.environ['FROM'], 1)
		sys.stdout.write(text.rstrip('\n') + '\n')
	else:
		return 2
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
