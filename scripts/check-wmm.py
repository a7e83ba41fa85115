#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-wmm.py: check litmus tests under the Linux-kernel memory model.

herd7, the tool tools/memory-model/ is written for, is not packaged by
Debian.  This is a small checker of the same model for the litmus tests
that rosebush needs: it enumerates every candidate execution of a test
(each read's value and the write it reads from, each location's coherence
order) and keeps those that the axioms of tools/memory-model/linux-kernel.cat
allow: coherence, happens-before and propagation, with ppo, prop, hb and pb
defined as there.  It prints Never if no allowed execution satisfies the
test's "exists" clause and Sometimes if one does, as herd7 does, and fails
if that is not the "Result:" the test's header gives.

What it reads is a subset of herd7's C litmus format: WRITE_ONCE(),
READ_ONCE(), smp_store_release(), smp_load_acquire(), rcu_assign_pointer(),
rcu_dereference(), plain loads and stores, smp_mb(), smp_rmb(), smp_wmb(),
rcu_read_lock() and rcu_read_unlock() (which order nothing here: grace
periods are not modelled), "if (COND) STATEMENT;" (a control dependency
of that one statement), and address and data dependencies through
registers.  A dereference of something that is not a location makes the
outcome count as reached.  Not modelled: locks, atomic read-modify-writes,
grace periods, and data races.  Plain accesses are not Marked, as in the
cat file, except where LKMM's race-freedom rules would bound them by a
fence: a plain store followed in its thread by a release store, wmb or mb,
and a plain load preceded by an acquire load, rmb or mb, or whose address
comes from a Marked load, count as Marked.  A test that uses anything else
is refused, not guessed at.

Anchors tie a test to the code it models.  A statement ending in
    // @FILE:FUNCTION TEXT [> FUNCTION2 TEXT2 ...]
stands for the first line of FUNCTION (in FILE, relative to --tree) after
the previous anchor's that contains TEXT; with "> FUNCTION2 TEXT2", TEXT is
the call of FUNCTION2 (in the same file) and TEXT2 the line in it, and so
on.  A TEXT written ^TEXT is searched from the top of its function: a line
that a loop reaches again, after the previous anchor's.  Every anchor of a thread starts in the same function, so that the
order of its lines there is checked.  An access is checked in the strength
the code uses (WRITE_ONCE() or smp_store_release(), say), and the test
fails if that is weaker than what the test says.  A fence (TEXT is then
the fence, e.g. "smp_rmb();") is kept only if the code has it, at the
indentation of its neighbours and not as the body of an "if", "else",
"for" or "while" of its own, between the neighbouring anchored accesses
in its function (at least one of which must be there).  So a test of the
code fails when a barrier is taken out of the code, moved past the access
it orders or into a branch, and an anchor that finds no line fails too.
The sequence counts of <linux/seqlock.h> are read and written by their
primitives: an access anchored to the line of raw_seqcount_begin() is its
count's acquire load; one anchored to read_seqcount_retry(),
write_seqcount_begin() or write_seqcount_end() is its count's read or
write, and a fence whose TEXT is that call is the primitive's own, on the
same line (the rmb before read_seqcount_retry()'s read, the wmb after
write_seqcount_begin()'s write and before write_seqcount_end()'s).

Usage: check-wmm.py [--tree DIR] FILE...
"""

import argparse
import itertools
import re
import sys


class Refused(Exception):
    pass


class Stmt:
    """One statement of a thread: an access, a fence or a branch."""

    def __init__(self, kind, **kw):
        self.kind = kind	# 'R', 'W', 'F', 'if', 'nop'
        self.mark = kw.get('mark')
        self.fence = kw.get('fence')
        self.loc = kw.get('loc')	# ('var', name) or ('reg', name)
        self.reg = kw.get('reg')	# register a read writes
        self.val = kw.get('val')	# ('int', n), ('addr', name), ('reg', r)
        self.cond = kw.get('cond')	# (reg, op, value) for 'if'
        self.body = kw.get('body')	# the statement an 'if' guards
        self.anchor = kw.get('anchor')
        self.text = kw.get('text')
        self.note = None


# ---------------------------------------------------------------- parsing

def parse_value(s, regs):
    s = s.strip()
    if s.startswith('&'):
        s = s[1:].strip()
        return ('addr', s)
    if re.fullmatch(r'-?\d+', s):
        return ('int', int(s))
    if s in regs:
        return ('reg', s)
    if re.fullmatch(r'[A-Za-z_]\w*', s):
        return ('addr', s)
    raise Refused(f'value "{s}"')


def parse_loc(s, params, regs, deref):
    """The location an access to s names (deref: s is written *x)."""
    s = s.strip()
    if deref:
        if not s.startswith('*'):
            raise Refused(f'location "{s}" without *')
        s = s[1:].strip()
    if s in regs:
        return ('reg', s)
    if s in params:
        return ('var', s)
    raise Refused(f'location "{s}"')


FENCES = {'smp_mb': 'mb', 'smp_rmb': 'rmb', 'smp_wmb': 'wmb'}


def parse_stmt(text, params, regs, anchor):
    t = text.strip().rstrip(';').strip()
    m = re.fullmatch(r'(\w+)\(\)', t)
    if m and m.group(1) in FENCES:
        return Stmt('F', fence=FENCES[m.group(1)], anchor=anchor, text=text)
    if m and m.group(1) in ('rcu_read_lock', 'rcu_read_unlock'):
        return Stmt('nop', text=text)
    m = re.fullmatch(r'(WRITE_ONCE|rcu_assign_pointer|smp_store_release)'
                     r'\((.*),(.*)\)', t)
    if m:
        mac = m.group(1)
        mark = {'WRITE_ONCE': 'once', 'rcu_assign_pointer': 'release',
                'smp_store_release': 'release'}[mac]
        loc = parse_loc(m.group(2), params, regs, mac != 'smp_store_release')
        return Stmt('W', mark=mark, loc=loc,
                    val=parse_value(m.group(3), regs), anchor=anchor,
                    text=text)
    m = re.fullmatch(r'(?:(?:int|unsigned|long|\*|\s)+)?(\w+)\s*=\s*'
                     r'(READ_ONCE|rcu_dereference|smp_load_acquire)'
                     r'\((.*)\)', t)
    if m:
        reg, mac = m.group(1), m.group(2)
        regs.add(reg)
        mark = 'acquire' if mac == 'smp_load_acquire' else 'once'
        loc = parse_loc(m.group(3), params, regs, mac != 'smp_load_acquire')
        return Stmt('R', mark=mark, loc=loc, reg=reg, anchor=anchor,
                    text=text)
    m = re.fullmatch(r'(?:(?:int|unsigned|long|\*|\s)+)?(\w+)\s*=\s*(\*.*)', t)
    if m:
        reg = m.group(1)
        regs.add(reg)
        return Stmt('R', mark='plain', reg=reg,
                    loc=parse_loc(m.group(2), params, regs, True),
                    anchor=anchor, text=text)
    m = re.fullmatch(r'(\*\s*\w+)\s*=\s*(.*)', t)
    if m:
        return Stmt('W', mark='plain',
                    loc=parse_loc(m.group(1), params, regs, True),
                    val=parse_value(m.group(2), regs), anchor=anchor,
                    text=text)
    raise Refused(f'statement "{text.strip()}"')


def parse_cond(c, regs):
    c = c.strip()
    m = re.fullmatch(r'!\s*(\w+)', c)
    if m and m.group(1) in regs:
        return (m.group(1), '==', ('int', 0))
    m = re.fullmatch(r'(\w+)\s*(==|!=)\s*(.+)', c)
    if m and m.group(1) in regs:
        return (m.group(1), m.group(2), parse_value(m.group(3), regs))
    if c in regs:
        return (c, '!=', ('int', 0))
    raise Refused(f'condition "{c}"')


def strip_comments(text):
    # (* comments *), but not the (*x) of READ_ONCE(*x)
    return re.sub(r'(?<!\w)\(\*(?=\s).*?\*\)', lambda m: '\n' * m.group(0).count('\n'),
                  text, flags=re.S)


class Test:
    def __init__(self, path):
        self.path = path
        raw = open(path).read()
        m = re.search(r'Result:\s*(\w+)', raw)
        self.expect = m.group(1) if m else None
        lines = strip_comments(raw).split('\n')
        if not lines[0].startswith('C '):
            raise Refused('not a C litmus test')
        self.name = lines[0][2:].strip()
        body = '\n'.join(lines[1:])
        m = re.search(r'\{([^{}]*)\}', body)
        self.init = {}
        for item in m.group(1).split(';'):
            item = re.sub(r'^\s*(?:int|unsigned|long|\*|\s)*', '', item)
            if not item.strip():
                continue
            if item.count('=') != 1:
                raise Refused(f'initial state "{item.strip()}"')
            name, val = item.split('=')
            name = name.strip().lstrip('*').strip()
            val = val.strip()
            self.init[name] = (('int', int(val)) if re.fullmatch(r'-?\d+', val)
                               else ('addr', val.lstrip('&').strip()))
        rest = body[m.end():]
        self.threads = []
        self.locs = set(self.init)
        pos = 0
        for pm in re.finditer(r'P(\d+)\s*\(([^)]*)\)[^\n]*\n\s*\{', rest):
            if int(pm.group(1)) != len(self.threads):
                raise Refused('threads out of order')
            params = set()
            for p in pm.group(2).split(','):
                name = re.sub(r'[^\w]', ' ', p).split()[-1]
                params.add(name)
            self.locs |= params
            end = rest.find('\n}', pm.end())
            if end < 0:
                raise Refused(f'P{pm.group(1)} has no closing brace')
            self.threads.append(self.parse_thread(rest[pm.end():end],
                                                  params))
            pos = end + 2
        tail = re.sub(r'^\s*locations\s*\[[^]]*\]', '', rest[pos:]).strip()
        m = re.fullmatch(r'(~?)exists\s*(.*)', tail, flags=re.S)
        if not m:
            raise Refused('no exists clause')
        self.negated = m.group(1) == '~'
        self.cond = m.group(2).strip()

    def parse_thread(self, text, params):
        regs = set()
        stmts = []
        pending_if = None
        for line in text.split('\n'):
            anchor = None
            m = re.search(r'//\s*@(\S+:.*)$', line)
            if m:
                anchor = m.group(1).strip()
            line = re.sub(r'//.*$', '', line).strip()
            if pending_if and line.startswith('{'):
                raise Refused('an "if" with a block')
            if not line or line in ('{', '}'):
                continue
            if re.fullmatch(r'(?:int|unsigned|long)[\s\w*,]*;', line):
                continue
            m = re.fullmatch(r'if\s*\(([^()]*)\)\s*(.*)', line)
            if m:
                cond = parse_cond(m.group(1), regs)
                if m.group(2).startswith('{'):
                    raise Refused('an "if" with a block')
                if m.group(2):
                    stmts.append(Stmt('if', cond=cond, body=parse_stmt(
                        m.group(2), params, regs, anchor)))
                else:
                    pending_if = cond
                continue
            if line.startswith('{') or line.startswith('else'):
                raise Refused('an "if" with a block or an "else"')
            s = parse_stmt(line, params, regs, anchor)
            if pending_if:
                s = Stmt('if', cond=pending_if, body=s)
                pending_if = None
            stmts.append(s)
        if pending_if:
            raise Refused('if without a statement')
        return stmts


# ---------------------------------------------------------------- anchors

def function_lines(path, func):
    lines = open(path).read().split('\n')
    for i, l in enumerate(lines):
        # The name opens the line when the type is on the line above
        if (re.match(r'^(?:[a-z_].*\b)?' + re.escape(func) + r'\(', l)
                and not l.rstrip().endswith(';')):
            for j in range(i, len(lines)):
                if lines[j] == '}':
                    return [(k + 1, lines[k]) for k in range(i, j + 1)]
    raise Refused(f'{path}: no function {func}()')


def is_comment(line):
    return line.strip().startswith(('*', '/*', '//'))


def indent(line):
    return len(line) - len(line.lstrip('\t'))


READ_MARKS = [(r'smp_load_acquire\(\s*&\s*$', 'acquire'),
              (r'rcu_dereference_protected\(\s*$', 'plain'),
              (r'READ_ONCE\(\s*$', 'once'),
              (r'(?:rbh_dereference|rcu_dereference|rcu_dereference_check|'
               r'rcu_dereference_raw|rcu_access_pointer)\(\s*$', 'once')]
WRITE_MARKS = [(r'smp_store_release\(\s*&\s*$', 'release'),
               (r'rcu_assign_pointer\(\s*$', 'release'),
               (r'(?:WRITE_ONCE|RCU_INIT_POINTER)\(\s*$', 'once')]
STRENGTH = {'plain': 0, 'once': 1, 'acquire': 2, 'release': 2}

# The sequence counts of <linux/seqlock.h>: the count is read with
# smp_load_acquire() when a read section begins, with smp_rmb() and
# READ_ONCE() when it is checked, and written with a plain increment
# beside an smp_wmb().  A fence anchored to a primitive (its TEXT the
# call) is the primitive's own, on its side of the access.
SEQCOUNT = [(r'\b(?:raw_|read_)seqcount_begin\(', 'R', 'acquire', None, None),
            (r'\bread_seqcount_retry\(', 'R', 'once', 'rmb', 'before'),
            (r'\b(?:raw_)?write_seqcount_begin(?:_nested)?\(', 'W', 'plain',
             'wmb', 'after'),
            (r'\b(?:raw_)?write_seqcount_end\(', 'W', 'plain', 'wmb',
             'before')]


def seqcount(text):
    """(kind, mark, fence, side) if text is a call of a seqcount primitive
    and nothing else."""
    for pat, kind, mark, fence, side in SEQCOUNT:
        if re.match(pat, text) and re.fullmatch(r'[\w]+\([^()]*\)', text):
            return kind, mark, fence, side
    return None


def source_mark(kind, line, text):
    seq = seqcount(text)
    if seq:
        if seq[0] != kind:
            raise Refused(f'"{line.strip()}" does not {kind} its count')
        return seq[1]
    i = line.index(text)
    before, after = line[:i], line[i + len(text):]
    for pat, mark in (READ_MARKS if kind == 'R' else WRITE_MARKS):
        if re.search(pat, before):
            return mark
    if kind == 'W' and not re.match(r'\s*=[^=]', after):
        raise Refused(f'cannot tell how "{line.strip()}" writes {text}')
    return 'plain'


def parse_anchor(anchor):
    """'FILE:FUNC TEXT > FUNC2 TEXT2' -> FILE, [(FUNC, TEXT), ...]"""
    path, rest = anchor.split(':', 1)
    hops = []
    for hop in rest.split(' > '):
        func, _, text = hop.strip().partition(' ')
        if not text:
            raise Refused(f'anchor "{anchor}" has no text')
        hops.append((func, text.strip()))
    return path, hops


def in_branch(body, n):
    """Is line n the body of an if/else/for/while of its own?"""
    for m, l in reversed([x for x in body if x[0] < n]):
        if not l.strip() or is_comment(l):
            continue
        return bool(re.match(r'\s*(?:(?:else\s+)?if\b|else\b|for\b|while\b)',
                             l) and not l.rstrip().endswith(('{', ';')))
    return False


def in_for_header(body, n):
    """Is line n (part of) the header of a for loop?"""
    lines = dict(body)
    for m in (n, n - 1, n - 2):
        l = lines.get(m, '')
        if re.match(r'\s*for\s*\(', l):
            # The header ends at the first line that ends in ") {" or ")"
            for k in range(m, n):
                if re.search(r'\)\s*\{?\s*$', lines.get(k, '')):
                    return False
            return True
    return False


def resolve_anchors(test, tree):
    """Give each anchored statement the strength the code has."""
    cache = {}

    def body_of(path, func):
        if (path, func) not in cache:
            cache[(path, func)] = function_lines(f'{tree}/{path}', func)
        return cache[(path, func)]

    for t, stmts in enumerate(test.threads):
        flat = [s.body if s.kind == 'if' else s for s in stmts]
        anchored = [s for s in flat if s.anchor]
        firsts = set()
        for s in anchored:
            s.path, s.hops = parse_anchor(s.anchor)
            firsts.add(s.hops[0][0])
        if len(firsts) > 1:
            raise Refused(f'P{t}: anchors start in {sorted(firsts)}: '
                          'all of a thread\'s must start in one function')
        # Accesses first: each hop after the previous anchor's line in
        # the same call (the same lines of the functions above it)
        cursor = {}
        for s in anchored:
            if s.kind == 'F':
                continue
            prefix = ()
            s.where = []
            for k, (func, text) in enumerate(s.hops):
                body = body_of(s.path, func)
                key = prefix + (func,)
                start = cursor.get(key, 0)
                # A call may be gone through again; "^" marks a line
                # reached again round a loop, searched from the top
                last = k == len(s.hops) - 1
                if text.startswith('^'):
                    text, start, last = text[1:], 0, False
                for n, l in body:
                    if (n > start or (not last and n == start)) and \
                            text in l and not is_comment(l):
                        break
                else:
                    raise Refused(f'{s.path}:{func}() has no line with '
                                  f'"{text}" after line {start}')
                if in_for_header(body, n):
                    raise Refused(f'{s.path}:{n} is in the header of a '
                                  '"for", which runs after its body')
                cursor[key] = n
                s.where.append((func, n, l))
                prefix = key + (n,)
            func, n, l = s.where[-1]
            mark = source_mark(s.kind, l, s.hops[-1][1].lstrip('^'))
            s.note = f'{s.path}:{n}'
            if STRENGTH[mark] < STRENGTH[s.mark] or \
                    (mark in ('acquire', 'release') and mark != s.mark):
                s.note += f' is {mark}: weaker than the test\'s {s.mark}'
                s.weaker = True
            s.mark = mark
        # Then fences, between the neighbouring anchored accesses of the
        # same call of the function they are in
        for k, s in enumerate(anchored):
            if s.kind != 'F':
                continue
            prefix, where = (), []
            for func, text in s.hops[:-1]:
                text = text.lstrip('^')
                body = body_of(s.path, func)
                start = cursor.get(prefix + (func,), 0)
                hits = [n for n, l in body if text in l and not is_comment(l)]
                if not hits:
                    raise Refused(f'{s.path}:{func}() has no line with '
                                  f'"{text}"')
                n = hits[0]
                where.append((func, n))
                prefix = prefix + (func, n)
            func, text = s.hops[-1]
            body = body_of(s.path, func)

            def line_in(a, func=func, prefix=prefix):
                """a's line in func, in the same call as the fence."""
                flat_a = ()
                for f, n, _ in a.where:
                    if flat_a == prefix and f == func:
                        return n
                    flat_a += (f, n)
                return None
            lo = hi = None
            for a in reversed(anchored[:k]):
                if a.kind != 'F' and line_in(a) is not None:
                    lo = line_in(a)
                    break
            for a in anchored[k + 1:]:
                if a.kind != 'F' and line_in(a) is not None:
                    hi = line_in(a)
                    break
            if lo is None and hi is None:
                raise Refused(f'{text} in {func}() has no anchored access '
                              'of its own function beside it')
            lines = dict(body)
            levels = {indent(lines[x]) for x in (lo, hi) if x is not None}
            found = [n for n, l in body
                     if (lo or 0) < n < (hi or 1 << 30) and l.strip() == text
                     and indent(l) in levels and not in_branch(body, n)]
            # or the fence of a seqcount primitive, on the line of the
            # neighbouring access anchored to that same call
            seq = seqcount(text)
            if not found and seq and seq[2] == s.fence:
                side = anchored[:k] if seq[3] == 'after' else anchored[k + 1:]
                near = [a for a in (reversed(side) if seq[3] == 'after'
                                    else side)
                        if a.kind != 'F' and line_in(a) is not None][:1]
                if near and near[0].hops[-1][1] == text and \
                        line_in(near[0]) == (lo if seq[3] == 'after' else hi):
                    found = [line_in(near[0])]
            if found:
                s.note = f'{s.path}:{found[0]}'
            else:
                s.note = (f'{s.path}:{func}() has no {text} here (or only '
                          'in a branch): left out')
                s.kind = 'nop'


# ---------------------------------------------------------------- executions

class Ev:
    def __init__(self, tid, kind, loc=None, val=None, mark='once',
                 fence=None):
        self.tid, self.kind, self.loc, self.val = tid, kind, loc, val
        self.mark, self.fence = mark, fence
        self.addr, self.data, self.ctrl = set(), set(), set()


def run_thread(tid, stmts, guesses):
    """The events of one thread, for one guess of what each read returns.

    Yields (events, registers, fault) for every sequence of read values
    from guesses; a register holds (value, set of the reads it came from),
    and dependencies name events by their index in the thread.  A thread
    that dereferences a value that is not a location stops there, with
    fault set."""
    def go(k, events, regs):
        if k == len(stmts):
            yield events, regs, False
            return
        s = stmts[k]
        if s.kind == 'if':
            reg, op, v = s.cond
            val, src = regs[reg]
            taken = (val == value(v, regs)) == (op == '==')
            if taken:
                yield from go_one(s.body, k, events, regs, src)
            else:
                yield from go(k + 1, events, regs)
            return
        yield from go_one(s, k, events, regs, set())

    def go_one(s, k, events, regs, ctrl):
        if s.kind == 'nop':
            yield from go(k + 1, events, regs)
            return
        if s.kind == 'F':
            e = Ev(tid, 'F', fence=s.fence)
            yield from go(k + 1, events + [e], regs)
            return
        loc, asrc = location(s.loc, regs)
        if loc is None:
            yield events, regs, True
            return
        if s.kind == 'W':
            v = s.val
            e = Ev(tid, 'W', loc, value(v, regs), s.mark)
            e.data = set(regs[v[1]][1]) if v[0] == 'reg' else set()
            e.addr, e.ctrl = set(asrc), set(ctrl)
            yield from go(k + 1, events + [e], regs)
            return
        for g in guesses:
            e = Ev(tid, 'R', loc, g, s.mark)
            e.addr, e.ctrl = set(asrc), set(ctrl)
            r2 = dict(regs)
            r2[s.reg] = (g, {len(events)})
            yield from go(k + 1, events + [e], r2)

    def value(v, regs):
        if v[0] == 'reg':
            return regs[v[1]][0]
        return v

    def location(loc, regs):
        if loc[0] == 'var':
            return loc[1], set()
        val, src = regs[loc[1]]
        if val[0] != 'addr':
            return None, None
        return val[1], src

    yield from go(0, [], {})


def closure(rel, n):
    r = [set(b for a, b in rel if a == i) for i in range(n)]
    for k in range(n):
        for i in range(n):
            if k in r[i]:
                r[i] |= r[k]
    return {(i, j) for i in range(n) for j in r[i]}


def acyclic(rel, n):
    return not any(a == b for a, b in closure(rel, n))


def seq(a, b):
    out = set()
    bm = {}
    for x, y in b:
        bm.setdefault(x, set()).add(y)
    for x, y in a:
        for z in bm.get(y, ()):
            out.add((x, z))
    return out


def opt(rel, n):
    return rel | {(i, i) for i in range(n)}


def marked(ev, po):
    """The events that count as Marked (see the docstring)."""
    out = set()
    for i, e in enumerate(ev):
        if e.kind not in 'RW':
            continue
        if e.mark != 'plain':
            out.add(i)
            continue
        if e.kind == 'W':
            after = [b for a, b in po if a == i]
            if any(ev[b].mark == 'release' or
                   (ev[b].kind == 'F' and ev[b].fence in ('wmb', 'mb'))
                   for b in after):
                out.add(i)
        else:
            before = [a for a, b in po if b == i]
            if any(ev[a].mark == 'acquire' or
                   (ev[a].kind == 'F' and ev[a].fence in ('rmb', 'mb'))
                   for a in before):
                out.add(i)
    # A plain load at an address a Marked load gave
    for i, e in enumerate(ev):
        if e.kind == 'R' and e.addr and e.addr <= out:
            out.add(i)
    return out


def allowed(ev, po, rf, co):
    """Whether an execution satisfies the axioms of linux-kernel.cat."""
    n = len(ev)
    ids = range(n)
    rf_inv = {(r, w) for w, r in rf}
    fr = {(r, w2) for r, w in rf_inv for w1, w2 in co if w1 == w}
    ext = {(a, b) for a in ids for b in ids if ev[a].tid != ev[b].tid}
    intl = {(a, b) for a in ids for b in ids if ev[a].tid == ev[b].tid}
    po_loc = {(a, b) for a, b in po if ev[a].loc is not None and
              ev[a].loc == ev[b].loc}
    if not acyclic(po_loc | rf | co | fr, n):
        return False
    M = {i for i in ids if ev[i].kind in 'RW'}
    R = {i for i in ids if ev[i].kind == 'R'}
    W = {i for i in ids if ev[i].kind == 'W'}
    Mk = marked(ev, po)

    def only(rel, a=None, b=None):
        return {(x, y) for x, y in rel
                if (a is None or x in a) and (b is None or y in b)}

    def fencerel(kind):
        return {(a, b) for a, c in po for c2, b in po
                if c == c2 and ev[c].kind == 'F' and ev[c].fence == kind}
    rmb = only(fencerel('rmb'), R, R)
    wmb = only(fencerel('wmb'), W, W)
    mb = only(fencerel('mb'), M, M)
    acq_po = {(a, b) for a, b in po if ev[a].mark == 'acquire' and b in M}
    po_rel = {(a, b) for a, b in po if a in M and ev[b].mark == 'release'}
    strong = mb
    fence = strong | po_rel | acq_po | wmb | rmb
    addr = {(a, b) for b in ids for a in ev[b].addr}
    data = {(a, b) for b in ids for a in ev[b].data}
    ctrl = {(a, b) for b in ids for a in ev[b].ctrl}
    dep = addr | data
    rfi = rf & intl
    rfe = rf - intl
    overwrite = co | fr
    plain = M - Mk
    to_w = only(dep | ctrl, None, W) | (overwrite & intl) \
        | seq(only(addr, None, plain), wmb)
    to_r = only(addr, None, R) | seq(only(dep, None, Mk), rfi)
    ppo = to_r | to_w | (fence & intl)
    a_cumul = opt(only(rfe, None, Mk), n)
    cumul = only(seq(a_cumul, strong | po_rel) | wmb, Mk, Mk)
    prop = only(seq(seq(opt(only(overwrite & ext, Mk), n),
                        opt(closure(cumul, n), n)),
                    opt(only(rfe, Mk, Mk), n)), Mk, Mk)
    hb = only(ppo | rfe | ((prop - {(i, i) for i in ids}) & intl), Mk, Mk)
    if not acyclic(hb, n):
        return False
    pb = only(seq(seq(prop, strong), opt(closure(hb, n), n)), None, Mk)
    return acyclic(pb, n)


def evaluate(cond, regs, final, nthreads):
    """The exists clause: tid:reg=value, loc=value, /\\, \\/, ~, ()."""
    def atom(m):
        lhs, rhs = m.group(1), m.group(2).strip()
        if ':' in lhs:
            t, r = lhs.split(':')
            if int(t) >= nthreads or r not in regs[int(t)]:
                raise Refused(f'exists clause names {lhs}, which is no '
                              'register the thread set')
            got = regs[int(t)][r][0]
        else:
            if lhs not in final:
                raise Refused(f'exists clause names {lhs}, no location')
            got = final[lhs]
        want = (('int', int(rhs)) if re.fullmatch(r'-?\d+', rhs)
                else ('addr', rhs))
        return ' True ' if got == want else ' False '
    expr = re.sub(r'(\w+(?::\w+)?)\s*=\s*(-?\w+)', atom, cond)
    expr = expr.replace('/\\', ' and ').replace('\\/', ' or ')
    expr = expr.replace('~', ' not ')
    if not re.fullmatch(r'[\sA-Za-z()]*', expr):
        raise Refused(f'exists clause "{cond}"')
    return eval(expr)


def check(test):
    """Return (result, allowed executions, a fault seen)."""
    guesses = {('int', 0)}
    for v in test.init.values():
        guesses.add(v)
    for stmts in test.threads:
        for s in stmts:
            s = s.body if s.kind == 'if' else s
            if s.kind == 'W' and s.val[0] != 'reg':
                guesses.add(s.val)
    guesses |= {('addr', x) for x in test.locs}
    guesses = sorted(guesses)
    per_thread = [list(run_thread(t, stmts, guesses))
                  for t, stmts in enumerate(test.threads)]
    # Every register a thread sets, for the exists clause's check
    names = [{s.reg for s in stmts if s.kind == 'R'} |
             {s.body.reg for s in stmts if s.kind == 'if' and
              s.body.kind == 'R'} for stmts in test.threads]
    locs = set(test.locs)
    executions = 0
    for combo in itertools.product(*per_thread):
        ev = []
        for loc in sorted(locs):
            ev.append(Ev(-1, 'W', loc, test.init.get(loc, ('int', 0))))
        init_of = {e.loc: i for i, e in enumerate(ev)}
        po = set()
        for events, _, _ in combo:
            base = len(ev)
            for e in events:
                c = Ev(e.tid, e.kind, e.loc, e.val, e.mark, e.fence)
                c.addr = {base + x for x in e.addr}
                c.data = {base + x for x in e.data}
                c.ctrl = {base + x for x in e.ctrl}
                ev.append(c)
            for a in range(base, len(ev)):
                for b in range(a + 1, len(ev)):
                    po.add((a, b))
        reads = [i for i, e in enumerate(ev) if e.kind == 'R']
        if any(ev[i].loc not in init_of for i in reads):
            continue
        choices = []
        for r in reads:
            choices.append([w for w, e in enumerate(ev) if e.kind == 'W' and
                            e.loc == ev[r].loc and e.val == ev[r].val])
        writes = {}
        for i, e in enumerate(ev):
            if e.kind == 'W' and e.tid >= 0:
                writes.setdefault(e.loc, []).append(i)
        for rfs in itertools.product(*choices):
            rf = set(zip(rfs, reads))
            for orders in itertools.product(
                    *[itertools.permutations(w) for w in writes.values()]):
                co = set()
                final = {loc: ev[i].val for loc, i in init_of.items()}
                for loc, order in zip(writes, orders):
                    chain = [init_of[loc]] + list(order)
                    for a in range(len(chain)):
                        for b in range(a + 1, len(chain)):
                            co.add((chain[a], chain[b]))
                    final[loc] = ev[chain[-1]].val
                if not allowed(ev, po, rf, co):
                    continue
                executions += 1
                if any(c[2] for c in combo):
                    return 'Sometimes', executions, True
                regs = [dict(c[1]) for c in combo]
                for t, rr in enumerate(regs):
                    for name in names[t]:
                        rr.setdefault(name, None)
                if evaluate(test.cond, regs, final, len(regs)):
                    return 'Sometimes', executions, False
    if not executions:
        raise Refused('no allowed execution at all')
    return 'Never', executions, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tree', default='.')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    bad = 0
    for path in args.files:
        try:
            test = Test(path)
            resolve_anchors(test, args.tree)
            result, n, fault = check(test)
            if test.negated and not fault:
                result = {'Never': 'Sometimes', 'Sometimes': 'Never'}[result]
        except Refused as e:
            print(f'{path}: refused: {e}')
            bad = 1
            continue
        weaker = [s for stmts in test.threads for s in stmts
                  if getattr(s.body if s.kind == 'if' else s, 'weaker',
                             False)]
        ok = result == test.expect and not weaker
        why = ''
        if fault:
            why = ', an allowed execution dereferences a non-pointer'
        if weaker:
            why += ', the code is weaker than the test'
        print(f'{"ok  " if ok else "FAIL"} {test.name}: {result} '
              f'(expected {test.expect}{why})')
        for t, stmts in enumerate(test.threads):
            for s in stmts:
                s = s.body if s.kind == 'if' else s
                if s.note:
                    print(f'       P{t} {s.text.strip():40} {s.note}')
        bad |= not ok
    return bad


if __name__ == '__main__':
    sys.exit(main())
