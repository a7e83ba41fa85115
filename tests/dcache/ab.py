#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ab.py CONSOLE...: the table of the dcache A/B (scripts/qemu-dcache-ab.sh).

Each CONSOLE is the log of one boot, named console-K-I.log with K "a" (the
series without its dcache patches) or "b" (the whole series).  The lines
of tests/dcache/dcache-bench.c ("dcache-ab: result WORKLOAD n=N depth=D
ns=NS ops=OPS" and "dcache-ab: slab n=N depth=D dentry=BYTES rcl=BYTES")
are gathered per kernel; for each workload, size and depth the table gives
each kernel's minimum and median ns per operation and the speed of B
relative to A, A's ns / B's ns (above 1: B is faster): from the minima,
from the medians, and per pair of boots (A's boot I, then B's boot I, one
after the other), the median of those and their range.  Then the memory: dentry slab bytes, the buckets
(kmalloc-rcl-256/512, where a RBH_RECLAIMABLE rosebush keeps them), and
kernel A's static table as its boot log gives it.  A boot whose program
did not exit with status 0, or a kernel with no boot, is an error.
"""
import os
import re
import statistics
import sys

RESULT = re.compile(r'dcache-ab: result (\S+) n=(\d+) depth=(\d+) ns=(\d+) ops=(\d+)')
SLAB = re.compile(r'dcache-ab: slab n=(\d+) depth=(\d+) dentry=(\d+) rcl=(\d+)')
TABLE = re.compile(r'Dentry cache hash table entries: (\d+) \(order: \d+, (\d+) bytes')
NAME = re.compile(r'console-([ab])-(\d+)\.log$')
WORKLOADS = ['stat', 'stat-2t', 'open', 'negative', 'stat-renaming', 'rename']


class Error(Exception):
    pass


def parse(paths):
    """{kernel: {(workload, n, depth): [ns...]}}, slabs, A's table bytes."""
    times = {'a': {}, 'b': {}}
    # {kernel: {(workload, n, depth): {boot: ns}}}, for the pairs
    by_boot = {'a': {}, 'b': {}}
    slabs = {'a': {}, 'b': {}}
    table = {'a': set(), 'b': set()}
    boots = {'a': 0, 'b': 0}
    for path in paths:
        m = NAME.search(os.path.basename(path))
        if not m:
            raise Error(f'{path}: not a console-{{a,b}}-N.log')
        k, boot = m.group(1), int(m.group(2))
        with open(path, errors='replace') as f:
            text = f.read()
        if 'dcache-ab: exit status 0' not in text:
            raise Error(f'{path}: dcache-bench did not exit with status 0')
        boots[k] += 1
        for m in RESULT.finditer(text):
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            times[k].setdefault(key, []).append(int(m.group(4)))
            by_boot[k].setdefault(key, {})[boot] = int(m.group(4))
        for m in SLAB.finditer(text):
            key = (int(m.group(1)), int(m.group(2)))
            slabs[k].setdefault(key, []).append((int(m.group(3)), int(m.group(4))))
        for m in TABLE.finditer(text):
            table[k].add((int(m.group(1)), int(m.group(2))))
    for k in 'ab':
        if not boots[k]:
            raise Error(f'no boot of kernel {k.upper()}')
    return times, by_boot, slabs, table, boots


def order(key):
    w, n, depth = key
    return (depth, n, WORKLOADS.index(w) if w in WORKLOADS else len(WORKLOADS), w)


def report(paths, out=sys.stdout):
    times, by_boot, slabs, table, boots = parse(paths)
    keys = sorted(set(times['a']) | set(times['b']), key=order)
    p = lambda *a: print(*a, file=out)
    p(f'# dcache A/B: {boots["a"]} boots of A, {boots["b"]} of B; ns per operation,')
    p('# speed B/A = A ns / B ns (above 1: B is faster)')
    p(f'{"workload":14} {"files":>7} {"depth":>5} {"A min":>8} {"A med":>8} '
      f'{"B min":>8} {"B med":>8} {"B/A min":>8} {"B/A med":>8} {"pairs":>6} '
      f'{"pair range":>12}')
    speeds = {}
    for key in keys:
        a, b = times['a'].get(key), times['b'].get(key)
        if not a or not b:
            raise Error(f'{key}: measured on one kernel only')
        amin, amed = min(a), statistics.median(a)
        bmin, bmed = min(b), statistics.median(b)
        r_min, r_med = amin / bmin, amed / bmed
        pairs = [ns / by_boot['b'][key][i] for i, ns in by_boot['a'][key].items()
                 if i in by_boot['b'][key]]
        if not pairs:
            raise Error(f'{key}: no boot of A has its B')
        r_pair = statistics.median(pairs)
        speeds.setdefault(key[0], []).append(r_pair)
        p(f'{key[0]:14} {key[1]:>7} {key[2]:>5} {amin:>8.0f} {amed:>8.0f} '
          f'{bmin:>8.0f} {bmed:>8.0f} {r_min:>8.3f} {r_med:>8.3f} {r_pair:>6.3f} '
          f'{min(pairs):>5.3f}-{max(pairs):<5.3f}')
    p('# per workload, the geometric mean of the pairs\' medians over sizes and depths:')
    for w in sorted(speeds, key=lambda w: order((w, 0, 0))):
        v = speeds[w]
        p(f'#   {w:14} {statistics.geometric_mean(v):.3f} '
          f'(min {min(v):.3f}, max {max(v):.3f}, {len(v)} cells)')

    p('')
    tables = sorted(table['a'])
    if len(tables) != 1:
        raise Error(f'kernel A: its dentry hash table size is {tables or "not in its log"}')
    if table['b']:
        raise Error('kernel B: it still has a static dentry hash table')
    slots, tbytes = tables[0]
    p(f'# memory, medians over boots: dentry slab and rosebush buckets '
      f'(kmalloc-rcl-256/512) in KiB;')
    p(f'# kernel A\'s static table: {slots} slots, {tbytes >> 10} KiB, '
      f'allocated at boot whatever the dcache holds.')
    p(f'# B hash = B\'s buckets less A\'s kmalloc-rcl (its other users); '
      f'A hash = the static table.')
    p(f'{"files":>7} {"depth":>5} {"A dentry":>9} {"B dentry":>9} '
      f'{"A rcl":>7} {"B rcl":>7} {"A hash":>7} {"B hash":>7}')
    for key in sorted(set(slabs['a']) & set(slabs['b']), key=lambda k: (k[1], k[0])):
        med = lambda k, i: statistics.median(v[i] for v in slabs[k][key]) / 1024
        ad, bd, ar, br = med('a', 0), med('b', 0), med('a', 1), med('b', 1)
        p(f'{key[0]:>7} {key[1]:>5} {ad:>9.0f} {bd:>9.0f} {ar:>7.0f} {br:>7.0f} '
          f'{tbytes / 1024:>7.0f} {max(br - ar, 0):>7.0f}')


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        report(argv[1:])
    except Error as e:
        print(f'ab.py: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
