#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ab_profile.py [--rows N] [--hash SOURCE]... MAP_A MAP_B CONSOLE...: the
dcache A/B's profile.

MAP_A and MAP_B are the System.map of kernels A (the series without its
dcache patches) and B (the whole series); each CONSOLE is the log of one
boot of `scripts/qemu-dcache-ab.sh profile`, named profile-K-I.log with K
"a" or "b", where tests/dcache/dcache-bench.c ran with profile=1 on a
kernel booted with nokaslr.  Its lines

  dcache-ab: profile-text _stext=ADDR
  dcache-ab: profile WORKLOAD n=N depth=D ops=OPS period=NS clock=NS
             bench=S other=S lost=L throttled=T
  dcache-ab: ip WORKLOAD n=N depth=D WHO IP COUNT

give the samples of each address, taken on every CPU while the workload
ran: WHO "b" for the workload's own threads, "o" for any other task
(kworkers, RCU's callbacks, the idle loop).  A sample stands for clock /
(bench + other) ns of a CPU: the period, or a tick where the kernel has
no high-resolution timers.  Each address goes to the text symbol at or
below it in its kernel's System.map (0 is user space); a function's time
per operation is its samples x that / OPS, summed over a kernel's boots.
Per workload and size, two tables, the workload's threads and the other
tasks, give each function's ns per operation on A and on B, B - A, the
standard deviation of B - A were the samples Poisson (sd), and the
samples; the functions with the largest |B - A| first, for the
workload's threads the rest in one row.  Above them, the workload's time
in three parts: the samples at a page's last bytes (see below), those of
the functions that the SOURCE files define (the code that differs
between A and B: fs/dcache.c, lib/rosebush.c), and the rest (code that A
and B share), with the page-edge addresses that took most samples.

Under TCG an interrupt is taken between translation blocks, so a sample
lands at the start of the block that was to run next: a block's time
goes to the block after it, which may begin another function (a callee's
entry, a caller's return address).  Each kernel's heading also gives the
samples at the last 15 bytes of a 4 KiB page: QEMU's x86 translator ends
a block before an instruction that crosses into the next page, which
starts a block of its own spanning two pages, and QEMU's system
emulation never chains a direct jump into such a block, so each pass
through it goes back to QEMU's execution loop to look it up.  A sample
there is mostly that: time of where the code lies, not of what it does.

A boot whose program did not exit with status 0, a kernel that is not
where its System.map puts it, lost or throttled samples are errors.  The
check of where the kernel is catches a boot without nokaslr, not a
System.map of another build: profile-report after a rebuild mis-maps.
"""
import bisect
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402

TEXT = re.compile(r'dcache-ab: profile-text _stext=([0-9a-f]+)')
PROFILE = re.compile(r'dcache-ab: profile (\S+) n=(\d+) depth=(\d+) ops=(\d+) period=(\d+) '
                     r'clock=(\d+) bench=(\d+) other=(\d+) lost=(\d+) throttled=(\d+)')
IP = re.compile(r'dcache-ab: ip (\S+) n=(\d+) depth=(\d+) ([bo]) ([0-9a-f]+) (\d+)')
NAME = re.compile(r'profile-([ab])-(\d+)\.log$')
USER = '[user]'
UNKNOWN = '[unknown]'
UNPRINTED = '[addresses not printed]'
PAGE = 4096
# x86's longest instruction: one starting this close to a page's end may cross it
MAX_INSN = 15
WHO = {'b': "the workload's threads", 'o': 'other tasks'}


class Error(Exception):
    pass


class SymbolMap:
    """The text symbols of a System.map, for the function of an address."""

    def __init__(self, path):
        syms = {}
        self.stext = None
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 3 and len(fields[1]) == 1 and fields[1] in 'TtWw':
                    # Of two names at one address, the first (an alias)
                    syms.setdefault(int(fields[0], 16), fields[2])
                    if fields[2] == '_stext':
                        self.stext = int(fields[0], 16)
        if not syms:
            raise Error(f'{path}: no text symbol')
        self.addrs = sorted(syms)
        self.names = [syms[a] for a in self.addrs]

    def function(self, ip):
        if ip == 0:
            return USER
        i = bisect.bisect_right(self.addrs, ip) - 1
        return self.names[i] if i >= 0 else UNKNOWN


class Profile:
    """One kernel's samples of one workload and size, over its boots."""

    def __init__(self):
        self.ops = 0
        self.clock = 0
        self.total = {'b': 0, 'o': 0}
        # {who: {function: [samples, ns, variance of ns]}}
        self.funcs = {'b': {}, 'o': {}}
        # {who: [samples, ns]} at a page's last MAX_INSN bytes
        self.edge = {'b': [0, 0.0], 'o': [0, 0.0]}
        # {who: {ip: samples}} of those
        self.edge_ips = {'b': {}, 'o': {}}
        # {who: {part: ns}}: see PARTS
        self.parts = {'b': {}, 'o': {}}
        self.measured = []

    def add(self, who, fn, count, weight):
        f = self.funcs[who].setdefault(fn, [0, 0.0, 0.0])
        f[0] += count
        f[1] += count * weight
        f[2] += count * weight * weight

    def weight(self):
        """ns of a CPU a sample stands for, over the boots."""
        return self.clock / max(self.total['b'] + self.total['o'], 1)


def parse(maps, paths, hash_funcs=frozenset()):
    """{kernel: {(workload, n, depth): Profile}}, boots per kernel."""
    profiles = {'a': {}, 'b': {}}
    boots = {'a': 0, 'b': 0}
    for path in paths:
        m = NAME.search(os.path.basename(path))
        if not m:
            raise Error(f'{path}: not a profile-{{a,b}}-N.log')
        k = m.group(1)
        with open(path, errors='replace') as f:
            text = f.read()
        if 'dcache-ab: exit status 0' not in text:
            raise Error(f'{path}: dcache-bench did not exit with status 0')
        boots[k] += 1
        smap = maps[k]
        stext = {int(m.group(1), 16) for m in TEXT.finditer(text)}
        if stext != {smap.stext}:
            raise Error(f'{path}: _stext at {[hex(a) for a in stext] or "no address"}, '
                        f'not at its System.map\'s {hex(smap.stext or 0)} (booted without nokaslr?)')
        # {key: (ns a sample stands for, {who: samples not yet printed})}
        seen = {}
        for m in PROFILE.finditer(text):
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            ops, _, clock, bench, other, lost, throttled = map(int, m.groups()[3:])
            if lost or throttled:
                raise Error(f'{path}: {key[0]} n={key[1]} depth={key[2]}: '
                            f'{lost} samples lost, {throttled} throttled')
            if key in seen:
                raise Error(f'{path}: two profiles of {key}')
            if bench + other and not clock:
                raise Error(f'{path}: {key}: samples, but no clock')
            p = profiles[k].setdefault(key, Profile())
            p.ops += ops
            p.clock += clock
            p.total['b'] += bench
            p.total['o'] += other
            seen[key] = (clock / max(bench + other, 1), {'b': bench, 'o': other})
        for m in IP.finditer(text):
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            if key not in seen:
                raise Error(f'{path}: samples of {key} before its profile line')
            who, count = m.group(4), int(m.group(6))
            weight, left = seen[key]
            ip = int(m.group(5), 16)
            q = profiles[k][key]
            fn = smap.function(ip)
            q.add(who, fn, count, weight)
            if ip and ip % PAGE >= PAGE - MAX_INSN:
                q.edge[who][0] += count
                q.edge[who][1] += count * weight
                q.edge_ips[who][ip] = q.edge_ips[who].get(ip, 0) + count
                part = 'edge'
            else:
                part = 'hash' if fn in hash_funcs else 'shared'
            q.parts[who][part] = q.parts[who].get(part, 0.0) + count * weight
            left[who] -= count
        # What the boot sampled but did not print
        for key, (weight, left) in seen.items():
            for who, count in left.items():
                if count < 0:
                    raise Error(f'{path}: {key}: more samples printed than taken')
                if count:
                    q = profiles[k][key]
                    q.add(who, UNPRINTED, count, weight)
                    q.parts[who]['shared'] = (q.parts[who].get('shared', 0.0)
                                              + count * weight)
        for m in ab.RESULT.finditer(text):
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            if key in profiles[k]:
                profiles[k][key].measured.append(int(m.group(4)))
    for k in 'ab':
        if not boots[k]:
            raise Error(f'no boot of kernel {k.upper()}')
    return profiles, boots


def rows(a, b, who):
    """[(function, A ns/op, B ns/op, sd of B - A, A samples, B samples)]."""
    out = []
    none = [0, 0.0, 0.0]
    for fn in set(a.funcs[who]) | set(b.funcs[who]):
        fa, fb = a.funcs[who].get(fn, none), b.funcs[who].get(fn, none)
        sd = math.sqrt(fa[2] / a.ops ** 2 + fb[2] / b.ops ** 2)
        out.append((fn, fa[1] / a.ops, fb[1] / b.ops, sd, fa[0], fb[0]))
    return out


def table(p, a, b, who, nrows):
    out = rows(a, b, who)
    out.sort(key=lambda r: (-abs(r[2] - r[1]), r[0]))
    shown, rest = (out, []) if nrows is None else (out[:nrows], out[nrows:])
    width = max([len(r[0]) for r in shown] + [30])
    p(f'{"function":{width}} {"A ns/op":>8} {"B ns/op":>8} {"B-A":>7} {"sd":>5} '
      f'{"A smpl":>7} {"B smpl":>7}')

    def row(name, ra, rb, sd, ca, cb):
        p(f'{name:{width}} {ra:>8.1f} {rb:>8.1f} {rb - ra:>+7.1f} {sd:>5.1f} {ca:>7} {cb:>7}')

    def sums(rs, name):
        return (name, sum(r[1] for r in rs), sum(r[2] for r in rs),
                math.sqrt(sum(r[3] ** 2 for r in rs)), sum(r[4] for r in rs),
                sum(r[5] for r in rs))

    row(*sums(out, 'total'))
    for r in shown:
        row(*r)
    if rest:
        row(*sums(rest, f'(the other {len(rest)} functions)'))


# The parts of a workload's time, in the order printed ("hash" is named
# after the SOURCE files)
PARTS = (('edge', f"at a page's last {MAX_INSN} bytes"),
         ('hash', None),
         ('shared', 'elsewhere'))


def functions_of(path):
    """The names of the functions that the C file @path defines."""
    names = set()
    with open(path, errors='replace') as f:
        for line in f:
            m = DEFINITION.match(line)
            if m and not line.rstrip().endswith(';'):
                names.add(m.group(1))
    return names


# A definition's first line: at the margin, a type, the name, "("
DEFINITION = re.compile(r'^(?!#|typedef)(?=[a-z_])[\w \*]*?\b(\w+)\(')


def report(maps, paths, nrows=25, out=sys.stdout, hash_funcs=frozenset(),
           sources=()):
    profiles, boots = parse(maps, paths, hash_funcs)
    names = sorted({os.path.basename(s) for s in sources})
    labels = {part: label or ('in the functions of ' + ', '.join(names)
                              if names else 'in the SOURCE files')
              for part, label in PARTS}
    p = lambda *a: print(*a, file=out)
    keys = sorted(set(profiles['a']) | set(profiles['b']), key=ab.order)
    plural = lambda n: f'{n} boot' + ('s' if n != 1 else '')
    p(f'# dcache A/B profile: {plural(boots["a"])} of A, {plural(boots["b"])} of B; '
      f'per function (System.map), ns per operation')
    p('# = samples x (the events\' clock / samples) / operations; sd: of B - A, were the')
    p('# samples Poisson.')
    p('# "measured" is the result line of the profiled boots (elapsed ns x threads / op),')
    p('# "sampled" the workload\'s samples; other tasks\' ns are of any CPU, idle included.')
    p('# Under TCG a sample lands where the next translation block starts: a block\'s')
    p('# time goes to the block after it, at a function\'s edge to the next function.')
    p(f'# "at a page\'s last {MAX_INSN} bytes": mostly an instruction that crosses into the')
    p('# next page, a translation block of its own that QEMU never chains to: time')
    p('# of where the code lies, not of what it does.')
    for key in keys:
        a, b = profiles['a'].get(key), profiles['b'].get(key)
        if not a or not b:
            raise Error(f'{key}: profiled on one kernel only')
        w, n, depth = key
        for who in 'bo':
            if not a.total[who] and not b.total[who]:
                continue
            p('')
            p(f'## {w}, {n} files at depth {depth}: {WHO[who]}')
            for name, q in (('A', a), ('B', b)):
                line = f'# {name}: {q.ops} ops, {q.total[who]} samples of {q.weight():.0f} ns'
                if who == 'b':
                    sampled = q.total['b'] * q.weight() / q.ops
                    measured = sum(q.measured) / len(q.measured) if q.measured else 0
                    line += f'; sampled {sampled:.0f} ns/op, measured {measured:.0f}'
                edge = q.edge[who]
                line += (f'; at a page\'s last {MAX_INSN} bytes {edge[0]} '
                         f'({edge[1] / q.ops:.0f} ns/op)')
                p(line)
            if who == 'b':
                p('# ns/op, A -> B: ' + '; '.join(
                    f'{labels[part]} {a.parts[who].get(part, 0) / a.ops:.0f} -> '
                    f'{b.parts[who].get(part, 0) / b.ops:.0f}'
                    for part, _ in PARTS))
                for name, q, smap in (('A', a, maps['a']), ('B', b, maps['b'])):
                    top = sorted(q.edge_ips[who].items(), key=lambda kv: -kv[1])[:3]
                    if top:
                        p(f'# {name}\'s page-edge addresses that took most: ' + ', '.join(
                            f'{ip:#x} {smap.function(ip)} {c}' for ip, c in top))
            # The other tasks' functions are few: all of them
            table(p, a, b, who, nrows if who == 'b' else None)


def main(argv):
    args = argv[1:]
    nrows, sources = 25, []
    while args[:1] in (['--rows'], ['--hash']) and len(args) > 1:
        if args[0] == '--rows':
            nrows = int(args[1])
        else:
            sources.append(args[1])
        args = args[2:]
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        hash_funcs = set()
        for path in sources:
            hash_funcs |= functions_of(path)
        maps = {'a': SymbolMap(args[0]), 'b': SymbolMap(args[1])}
        report(maps, args[2:], nrows, hash_funcs=hash_funcs, sources=sources)
    except Error as e:
        print(f'ab_profile.py: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
