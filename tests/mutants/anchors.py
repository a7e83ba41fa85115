#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""anchors.py TREE: does every mutant still apply to the patched TREE?

A mutant whose line the code does not have is not run, and so not
killed: make mutants and make qemu-mutants stop at it, make mutants-rust
reports it, but none of them runs in make test.  This reads
tests/mutants/mutants.txt and dcache-mutants.txt (NAME | [FILE:]FUNCTION
| LINE [| REPLACEMENT], applied by apply.py) and rust-mutants.txt (NAME |
CHECK | FILE | LINE [| REPLACEMENT], the first line of FILE equal to LINE)
and exits non-zero, naming each, if a line is not where its mutant looks.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def entries(name):
    """Yield the fields of each mutant of tests/mutants/@name."""
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            if line.startswith('#') or not line.strip():
                continue
            yield [field.strip() for field in line.rstrip('\n').split('|')]


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tree, bad, n = argv[1], [], 0
    for name in ('mutants.txt', 'dcache-mutants.txt'):
        for fields in entries(name):
            mutant, func, line = fields[:3]
            path = 'lib/rosebush.c'
            if ':' in func:
                path, func = func.split(':', 1)
            n += 1
            r = subprocess.run([sys.executable, os.path.join(HERE, 'apply.py'),
                                os.path.join(tree, path), os.devnull, func, line],
                               capture_output=True, text=True)
            if r.returncode:
                bad.append(f'{name}: {mutant}: {r.stderr.strip()}')
    for fields in entries('rust-mutants.txt'):
        mutant, _, path, line = fields[:4]
        n += 1
        with open(os.path.join(tree, path)) as f:
            if not any(l.strip() == line for l in f):
                bad.append(f'rust-mutants.txt: {mutant}: {path} has no line "{line}"')
    for b in bad:
        print(f'anchors: {b}', file=sys.stderr)
    if bad:
        return 1
    print(f'anchors: all {n} mutants apply')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
