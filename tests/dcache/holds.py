#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""holds.py CONSOLE...: the lock holds of the dcache A/B.

Each CONSOLE is the log of one boot, named console-K-I.log with K "a"
(kernel A, the series without its dcache patches) or "b" (kernel B, the
whole series), both built with lock statistics, running
tests/dcache/dcache-holds.c (make qemu-dcache-holds).  From its lines
"dcache-ab: holds files=N dirs=D rm_ns=NS renames=R lookups=L" and
"dcache-ab: lock_stat CLASS: ..." (a line of /proc/lock_stat), the table
gives, for each of the dcache's lock classes and each other class that
every boot printed, each kernel's
acquisitions and its longest, mean and total hold in microseconds, each
the median over the kernel's boots, and B's mean and total hold over A's.
The dcache's own classes come first, then the others by B's total.  A
boot whose program did not exit with status 0, one without the lines, or
a kernel with no boot, is an error.
"""
import os
import re
import statistics
import sys

NAME = re.compile(r'console-([ab])-(\d+)\.log$')
HOLDS = re.compile(r'dcache-ab: holds files=(\d+) dirs=(\d+) rm_ns=(\d+) '
                   r'renames=(\d+) lookups=(\d+)')
LOCK_STAT = re.compile(r'dcache-ab: lock_stat (.+):\s+([-\d. ]+?)\s*$', re.M)
# The dcache's classes: its dentries', inodes' and rename locks, the hash
DCACHE = re.compile(r'^&dentry->d_lock|->i_lock_key|^rename_lock|^&rbh->')


class Error(Exception):
    pass


def parse(path):
    """(holds figures, {class: (acquisitions, max, mean, total)})"""
    with open(path, errors='replace') as f:
        text = f.read()
    if 'dcache-ab: exit status 0' not in text:
        raise Error(f'{path}: dcache-holds did not exit with status 0')
    # A lockdep report turns lock debugging, and so the statistics, off
    for bad in ('WARNING:', 'BUG:'):
        if bad in text:
            raise Error(f'{path}: the kernel reported "{bad}"')
    m = HOLDS.search(text)
    if not m:
        raise Error(f'{path}: no "holds" line')
    figures = dict(zip(('files', 'dirs', 'rm_ns', 'renames', 'lookups'),
                       (int(g) for g in m.groups())))
    classes = {}
    for m in LOCK_STAT.finditer(text):
        v = m.group(2).split()
        if len(v) != 12:
            raise Error(f'{path}: lock_stat line of {m.group(1)} has {len(v)} figures')
        acq, hmax, htotal, havg = int(v[7]), float(v[9]), float(v[10]), float(v[11])
        name = m.group(1).strip()
        if name in classes:
            raise Error(f'{path}: two lock_stat lines of {name}')
        classes[name] = (acq, hmax, havg, htotal)
    if not classes:
        raise Error(f'{path}: no lock_stat lines')
    return figures, classes


def ratio(b, a):
    return f'{b / a:.2f}' if a else '-'


def merge(boots, names):
    """The median, over a kernel's boots, of each figure of each class."""
    figures = {k: statistics.median(f[k] for f, _ in boots) for k in boots[0][0]}
    classes = {}
    for n in names:
        # Over the boots that held the lock at all
        rows = [c[n] for _, c in boots if n in c] or [(0, 0.0, 0.0, 0.0)]
        classes[n] = tuple(statistics.median(r[i] for r in rows) for i in range(4))
    return figures, classes


def table(a, b, out):
    # The dcache's classes, and the others that every boot printed among
    # the longest held: not one that only some boots did
    every = [set(c) for _, c in a + b]
    names = {n for n in set().union(*every) if DCACHE.search(n)}
    names |= set.intersection(*every)
    fa, ca = merge(a, names)
    fb, cb = merge(b, names)
    out.write(f'# tree of {fa["files"]:.0f} files in {fa["dirs"]:.0f} directories removed '
              'while a thread renames and one looks up; medians of '
              f'{len(a)} boots of A and {len(b)} of B\n')
    out.write('# kernel  removal ms  renames  lookups\n')
    for k, f in (('A', fa), ('B', fb)):
        out.write(f'# {k}       {f["rm_ns"] / 1e6:10.1f} {f["renames"]:8.0f} {f["lookups"]:8.0f}\n')
    out.write(f'# removal B/A: {ratio(fb["rm_ns"], fa["rm_ns"])}\n')
    out.write('# holds in us (TCG); per kernel: acquisitions, longest, mean, total\n')
    own = sorted(n for n in names if DCACHE.search(n))
    rest = sorted(names - set(own), key=lambda n: -cb.get(n, (0, 0, 0, 0))[3])
    out.write(f'{"class":40s} {"A acq":>9s} {"A max":>9s} {"A mean":>7s} {"A total":>11s} '
              f'{"B acq":>9s} {"B max":>9s} {"B mean":>7s} {"B total":>11s} '
              f'{"mean B/A":>8s} {"total B/A":>9s}\n')
    for n in own + rest:
        ra = ca.get(n, (0, 0.0, 0.0, 0.0))
        rb = cb.get(n, (0, 0.0, 0.0, 0.0))
        out.write(f'{n[:40]:40s} {ra[0]:9.0f} {ra[1]:9.2f} {ra[2]:7.2f} {ra[3]:11.2f} '
                  f'{rb[0]:9.0f} {rb[1]:9.2f} {rb[2]:7.2f} {rb[3]:11.2f} '
                  f'{ratio(rb[2], ra[2]):>8s} {ratio(rb[3], ra[3]):>9s}\n')


def gather(paths):
    boots = {'a': [], 'b': []}
    for path in paths:
        m = NAME.search(os.path.basename(path))
        if not m:
            raise Error(f'{path}: not a console-{{a,b}}-N.log')
        boots[m.group(1)].append(parse(path))
    for k in boots:
        if not boots[k]:
            raise Error(f'no boot of kernel {k.upper()}')
    return boots['a'], boots['b']


def main(argv):
    if len(argv) < 3:
        print('usage: holds.py CONSOLE...', file=sys.stderr)
        return 2
    try:
        table(*gather(argv[1:]), sys.stdout)
    except Error as e:
        print(f'holds.py: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
