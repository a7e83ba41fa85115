#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""budget.py OPS BINARY DIR SIZE...: where each lookup's instructions go.
budget.py --fills BINARY DIR SIZE...: where each insertion of a fill, and
each removal of a drain, goes.

Reads the callgrind dumps that `rosebush-bench misses=SIZE` made with
--dump-instr=yes (DIR/callgrind.SIZE.N, one per structure and workload,
each counting OPS lookups), finds for every instruction executed inside a
structure's lookup function (bench_rbh_lookup() and the like, and what
they call) the chain of functions the compiler inlined there, with
llvm-symbolizer, and puts it in one category by the first rule of RULES
that the chain matches, innermost function first.  It prints, per lookup
and category, the instructions of each structure, and the lookup proper:
everything but the frame and RCU (the benchmark's loop is outside the
lookup function, and counted by none).

The 90/10 mix (dumps "<structure> mix-90/10 <ops>") and, with --fills,
the fills and drains get no categories: a table per structure of the
functions that cost most, by what callgrind saw in each.

A rule matches a frame of the chain by its function's name and, if it
gives one, by the text of the frame's source line; what no rule matches
is "other", printed so that a gap in the rules shows.
"""
import glob
import os
import re
import subprocess
import sys

# The categories, in the order of the table's columns.
CATEGORIES = [
    "frame", "RCU", "hash", "table", "slot", "group", "compare", "hit",
    "filter", "chain", "slow", "caller", "other",
]
# What the columns mean, printed above the table.
MEANINGS = {
    "frame": "the lookup function's prologue and epilogue",
    "RCU": "rcu_read_lock() and rcu_read_unlock() (liburcu)",
    "hash": "the caller's hash_64() and the structure's own mixing of it",
    "table": "loading the table pointer (and its size) from the structure",
    "slot": "indexing the table and loading the slot",
    "group": "rosebush: choosing the home group in the bucket",
    "compare": "rosebush: comparing the keys of the home group",
    "hit": "rosebush: the matching entry's pointer, and the iterator",
    "filter": "rosebush: the home group's filter, on a miss",
    "chain": "following a list (rhashtable, hlist_bl) to its end",
    "slow": "out-of-line walks (__rbh_first_spilled(), rbh_next()), rhashtable's rehash check",
    "caller": "comparing the object's key with the one looked up",
    "other": "given no source line by the compiler (or matched by no rule)",
}

# (function regex, category): an instruction inlined anywhere into one of
# these functions belongs to the category, whatever else it is.
CHAIN_RULES = [
    (r"^rbh_next$|^__rbh_first_spilled$", "slow"),
    (r"^_?urcu_|^rcu_read_(un)?lock", "RCU"),
]

# (function regex, source line regex or None, category), tried on each
# frame of an instruction's inline chain from the innermost out.
RULES = [
    # The caller's hash
    (r"^bench_hash$|^hash_64|^hash_32|^bench_rht_hashfn$", None, "hash"),
    # rosebush: <linux/rosebush.h>
    (r"^rbh_key$", None, "hash"),
    (r"^rbh_table_bucket$", r"~RBH_SHIFT_MASK", "table"),
    (r"^rbh_table_bucket$", None, "slot"),
    (r"^rbh_home$|^rbh_mix$|^rbh_home_keys$", None, "group"),
    (r"^rbh_group_match$", None, "compare"),
    (r"^rbh_filter_mask$|^rbh_home_filter$", None, "filter"),
    (r"^rbh_home_slots$|^__ffs$", None, "hit"),
    (r"^rbh_first$", r"rbh_table\)|!tagged", "table"),
    (r"^rbh_first$", r"likely\(match\)|match = ", "compare"),
    (r"^rbh_first$", r"__ffs|smp_rmb|rbh_home_slots|rbhi->|likely\(p\)|return p", "hit"),
    (r"^rbh_first$", r"filter|return NULL", "filter"),
    (r"^rbh_first$", r"rbh_next|__rbh_first_spilled", "slow"),
    (r"^rbh_first$", r"^\s*[{}]\s*$|^static", "hit"),
    # rhashtable: <linux/rhashtable.h>
    (r"^rht_key_hashfn$|^rht_key_get_hash$|^rht_bucket_index$", None, "hash"),
    (r"^rht_bucket$|^rht_ptr_rcu$|^__rht_ptr$|^rht_ptr$|^rht_bucket_var$", None, "slot"),
    (r"^rhashtable_compare$|memcmp", None, "caller"),
    (r"^rht_obj$", None, "hit"),
    (r"^rht_is_a_nulls$|^is_a_nulls$", None, "chain"),
    (r"^__rhashtable_lookup$", r"ht->tbl", "table"),
    (r"^__rhashtable_lookup$", r"future_tbl|restart", "slow"),
    (r"^__rhashtable_lookup$", r"rht_for_each|->next|nulls|return", "chain"),
    (r"^__rhashtable_lookup$", r"obj_cmpfn|compare", "caller"),
    (r"^__rhashtable_lookup$", r"rht_obj|obj =", "hit"),
    (r"^rhashtable_lookup$|^rhashtable_lookup_fast$", r"rcu_read", "RCU"),
    (r"^rhashtable_lookup$|^rhashtable_lookup_fast$", None, "hit"),
    # hlist_bl: <linux/list_bl.h>, <linux/rculist_bl.h>
    (r"^bench_bl_bucket$", r"bench_bl\[", "slot"),
    (r"^hlist_bl_first_rcu$", None, "slot"),
    # The benchmark's lookup functions themselves
    (r"^bench_\w+_lookup$", r"bench_hash", "hash"),
    (r"^bench_\w+_lookup$", r"->key == key", "caller"),
    (r"^bench_\w+_lookup$", r"rbh_for_each_possible", "hit"),
    (r"^bench_\w+_lookup$", r"for_each|while|next", "chain"),
    (r"^bench_\w+_lookup$", r"rcu_read_(un)?lock", "RCU"),
    (r"^bench_\w+_lookup$", None, "frame"),
]

# A removal's categories, for the same structures removing objects one
# after another (the benchmark's drain loop is outside the removal
# function, and counted by none).
REMOVE_CATEGORIES = [
    "frame", "RCU", "hash", "slot", "lock", "find", "clear", "decide",
    "merge", "shrink", "other", "harness",
]
REMOVE_MEANINGS = {
    "frame": "the removal function's prologue and epilogue, and its returns",
    "RCU": "rcu_read_lock() and rcu_read_unlock() (liburcu)",
    "hash": "reading the object's key and hashing it (the object's line)",
    "slot": "loading the table pointer, indexing it and loading the slot",
    "lock": "taking and releasing the bucket's lock (rosebush: the header's line)",
    "find": "finding the entry: rosebush's home group, rhashtable's chain",
    "clear": "clearing the entry or unlinking the node, and counting it",
    "decide": "rosebush: whether the removal leaves its bucket ready to merge",
    "merge": "rosebush: merging buckets (none: the work item merges)",
    "shrink": "handing a bucket or the table over to shrink (rosebush's rbh_removed())",
    "other": "given no source line by the compiler (or matched by no rule)",
    "harness": "the userspace harness's schedule_work() and queue_work() (a mutex, a condition variable)",
}
REMOVE_CHAIN_RULES = [
    (r"^_?urcu_|^rcu_read_(un)?lock", "RCU"),
    (r"^schedule_work$|^queue_work$|pthread_mutex|pthread_cond", "harness"),
    (r"^rbh_halve_wanted$|^rbh_shrink_later$|^rht_shrink_below_30$", "shrink"),
    (r"^rbh_buddy$|^rbh_fold_likely$|^rbh_merge_likely$|^rbh_remove_ends_home$",
     "decide"),
    (r"^rbh_merge_\w+$|^rbh_place_in_bucket$|^rbh_entry_free$", "merge"),
    (r"^rbh_find_entry$|^rbh_find_in_group$", "find"),
    (r"^rbh_remove_entry$|^rbh_clear_entry$|^rbh_changed$|^__hlist_bl_del$|"
     r"^hlist_bl_del_rcu$", "clear"),
    (r"^bench_spin_|^spin_(un)?lock|^spin_trylock|^bit_spin_|^rht_lock$|"
     r"^rht_unlock$|^hlist_bl_(un)?lock$", "lock"),
    (r"^bench_hash$|^hash_64|^bench_rht_hashfn$|^rht_head_hashfn$|^rbh_key$",
     "hash"),
]
REMOVE_RULES = [
    (r"^rbh_removed$", None, "shrink"),
    (r"^__rbh_lock_bucket$", r"prefetch", "find"),
    (r"^__rbh_lock_bucket$", r"spin_|RBH_DEAD|__release|return true", "lock"),
    (r"^__rbh_lock_bucket$|^rbh_bucket$|^rbh_table_word$|^rbh_index$|^rbh_untag$",
     None, "slot"),
    (r"^rbh_remove$", r"rbh_lock_bucket|spin_unlock", "lock"),
    (r"^rbh_remove$", r"rbh_home|keys\[i\]|for \(i|continue", "find"),
    (r"^rbh_remove$", r"rbh_clear_entry|rbh_changed", "clear"),
    (r"^rbh_remove$", r"ends_home|break;|buddy|fold|merge|d = primary", "decide"),
    (r"^rbh_remove$", r"rbh_removed", "shrink"),
    (r"^rbh_remove$", None, "frame"),
    (r"^rht_bucket_var$|^rht_ptr$|^__rht_ptr$|^rht_bucket$|^rht_dereference", None, "slot"),
    (r"^rht_assign_unlock$", None, "lock"),
    (r"^__rhashtable_remove_fast_one$", r"rht_bucket_var|bkt", "slot"),
    (r"^__rhashtable_remove_fast_one$", r"rht_lock|rht_unlock", "lock"),
    (r"^__rhashtable_remove_fast_one$", r"rht_for_each|he != obj|pprev = &", "find"),
    (r"^__rhashtable_remove_fast_one$", r"obj = rht_deref|err = 1|rcu_assign|nelems", "clear"),
    (r"^__uatomic_dec$|^atomic_dec$", None, "clear"),
    (r"^__rhashtable_remove_fast_one$", r"shrink|schedule_work", "shrink"),
    (r"^__rhashtable_remove_fast_one$|^__?rhashtable_remove_fast$", None, "frame"),
    (r"^bench_bl_bucket$", None, "slot"),
    (r"^bench_bl_remove$", r"bench_bl_bucket", "slot"),
    (r"^bench_\w+_remove$", r"bench_hash", "hash"),
    (r"^bench_\w+_remove$", None, "frame"),
    (r"^bench_\w+_remove$", r"bench_hash|->key", "hash"),
]
# The removal functions (out of line, so that the drain loop is not
# theirs), with what they call.
REMOVALS = {
    "rosebush": "bench_rbh_remove",
    "rhashtable": "bench_rht_remove",
    "hlist_bl": "bench_bl_remove",
}

# The structures, and their lookup functions (with what they call).
LOOKUPS = {
    "rosebush": "bench_rbh_lookup",
    "rhashtable": "bench_rht_lookup",
    "hlist_bl": "bench_bl_lookup",
}
ORDER = ["rosebush", "rhashtable", "hlist_bl"]


def read_dump(path, arcs=None):
    """Return (trigger, {fn: {addr: (Ir, LL)}}, {fn: callees}, {fn: object}):
    each function's self cost in instructions and in last-level data
    misses (reads and writes), the functions it calls, and the object
    (program or shared library) that holds it.  If @arcs is a dict, add
    to it {(caller, callee): [Ir, LL, callee's object]}: the inclusive
    cost of each call arc, what the callee and all it called cost."""
    name, fns, fn, calls, cfn = None, {}, None, {}, None
    objs, ob, where, cob = {}, None, {}, None
    positions, events = ["line"], None
    pos = [0, 0]
    skip_next = False
    names = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("desc: Trigger:"):
                m = re.search(r"Client Request: (.*)$", line)
                if m:
                    name = m.group(1).strip()
                continue
            if line.startswith("positions:"):
                positions = line.split()[1:]
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    objs[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    ob = objs[m.group(2)]
                else:
                    cob = objs[m.group(2)]
                continue
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "fn":
                    fn = names[m.group(2)]
                    fns.setdefault(fn, {})
                    where[fn] = ob
                    cob = None
                else:
                    cfn = names[m.group(2)]
                continue
            if line.startswith("calls="):
                calls.setdefault(fn, set()).add(cfn)
                skip_next = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            for i in range(len(positions)):
                tok = parts[i]
                if tok == "*":
                    pass
                elif tok[0] in "+-":
                    pos[i] += int(tok, 0)
                else:
                    pos[i] = int(tok, 0)
            if fn is None or events is None:
                skip_next = False
                continue
            # Trailing events that are zero may be left out
            vals = [int(v) for v in parts[len(positions):]]
            vals += [0] * (len(events) - len(vals))
            cost = dict(zip(events, vals))
            ll = cost.get("DLmr", 0) + cost.get("DLmw", 0)
            if skip_next:
                # The line after calls=: the call's inclusive cost
                skip_next = False
                if arcs is not None:
                    arc = arcs.setdefault((fn, cfn), [0, 0, cob or ob])
                    arc[0] += cost.get("Ir", 0)
                    arc[1] += ll
                cob = None
                continue
            addr = pos[positions.index("instr")]
            ir0, ll0 = fns[fn].get(addr, (0, 0))
            fns[fn][addr] = (ir0 + cost.get("Ir", 0), ll0 + ll)
    if "instr" not in positions:
        sys.exit(f"budget.py: {path}: not dumped with --dump-instr=yes")
    return name, fns, calls, where


def symbolize(binary, addrs):
    """Return {addr: [(function, file, line), ...]}, innermost first."""
    addrs = sorted(addrs)
    out = subprocess.run(["llvm-symbolizer", f"--obj={binary}"],
                         input="".join(f"0x{a:x}\n" for a in addrs),
                         capture_output=True, text=True, check=True).stdout
    blocks = out.strip("\n").split("\n\n")
    if len(blocks) != len(addrs):
        sys.exit("budget.py: llvm-symbolizer gave "
                 f"{len(blocks)} answers for {len(addrs)} addresses")
    chains = {}
    for addr, block in zip(addrs, blocks):
        lines = block.split("\n")
        chain = []
        for fn, loc in zip(lines[0::2], lines[1::2]):
            path, line = (loc.rsplit(":", 2) + ["0", "0"])[:2]
            chain.append((fn, os.path.normpath(path), int(line or 0)))
        chains[addr] = chain
    return chains


_sources = {}


def source_line(path, line):
    if path not in _sources:
        try:
            with open(path, errors="replace") as f:
                _sources[path] = f.read().split("\n")
        except OSError:
            _sources[path] = []
    text = _sources[path]
    return text[line - 1] if 0 < line <= len(text) else ""


def categorize(chain, chain_rules=CHAIN_RULES, rules=RULES):
    for fre, cat in chain_rules:
        if any(re.search(fre, fn) for fn, _, _ in chain):
            return cat
    for fn, path, line in chain:
        if not line and path:
            # The compiler gave this frame no source line (it merged or
            # moved the instruction): the frame it was inlined into may
            # say what it is for.  (A shared library's function has no
            # path, and goes by its name.)
            continue
        text = source_line(path, line)
        for fre, lre, cat in rules:
            if re.search(fre, fn) and (lre is None or re.search(lre, text)):
                return cat
    return "other"


def is_program(obj, binary):
    """Is @obj, the object callgrind names, the benchmark itself (and not
    a shared library, which may no longer be where it was)?"""
    return os.path.realpath(obj) == os.path.realpath(binary)


def reachable(root, calls, stop=()):
    """The functions whose costs count for a lookup function: itself and
    every function it calls, directly or not (not through those in
    @stop)."""
    seen, todo = {root}, [root]
    while todo:
        for callee in calls.get(todo.pop(), ()):
            if callee not in seen and callee not in stop:
                seen.add(callee)
                todo.append(callee)
    return seen


def named_dumps(d, size, kind):
    """Yield (structure, count, path, read_dump()) for each dump at @size
    entries named "<structure> <kind> <count>"."""
    for path in glob.glob(f"{d}/callgrind.{size}.*"):
        arcs = {}
        dump = read_dump(path, arcs)
        name = dump[0]
        if name and name.split()[1:2] == [kind]:
            yield name.split()[0], int(name.split()[2]), path, dump + (arcs,)


def call_counts(path):
    """Return {fn: calls} of one callgrind dump: how often each function
    was called, from any caller."""
    names, cfn, counts = {}, None, {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                if line.startswith("cfn"):
                    cfn = names[m.group(1)]
                continue
            if line.startswith("calls=") and cfn is not None:
                counts[cfn] = counts.get(cfn, 0) + int(line.split()[0][6:])
    return counts


# The per-function tables: dump kind, what one unit is, the heading.
BY_FUNCTION = {
    "insert": ("insertion", [
        "Where a fill's instructions and last-level data misses go, per insertion (callgrind:",
        "every structure filled from empty, its deferred work waited for and counted, by",
    ]),
    "drain": ("removal", [
        "Where a drain's instructions and last-level data misses go, per removal (callgrind: every",
        "structure emptied after the fill, its deferred work waited for and counted, by",
    ]),
    # The call counts of these dumps include the warm-up's: none printed
    "mix-90/10": ("operation", [
        "Where the 90/10 mix's instructions and last-level data misses go, per operation (callgrind:",
        "the counted operations of the mix above, this thread only, gross of the op stream, by",
    ]),
}


# The work items' functions: the deferred work of a fill or a drain.
WORKERS = {
    "rosebush": "rbh_worker",
    "rhashtable": "rht_deferred_worker",
}
# The harness's stand-ins for the kernel's work queue calls: a mutex and
# a condition variable each, where the kernel tests and sets a bit.
HARNESS = {"schedule_work", "queue_work"}


def deferred(structure, arcs, where, binary):
    """The parts of a fill's or a drain's cost that are not the operations
    themselves, by the inclusive cost of the calls into them: [(label,
    (Ir, LL))] for the work item (on the work queue's thread), the RCU
    callbacks (calls from liburcu's callback thread into the program)
    and, on the benchmark's thread, the harness's work queue calls."""
    def into(match):
        ir = ll = 0
        for (caller, callee), (a, b, ob) in arcs.items():
            if match(caller, callee, ob):
                ir += a
                ll += b
        return ir, ll

    work = WORKERS.get(structure)
    parts = []
    if work:
        parts.append((f"(the work item, {work}())",
                      into(lambda _, callee, __: callee == work)))
    parts.append(("(RCU callbacks)", into(
        lambda caller, _, ob: "liburcu" in (where.get(caller) or "")
        and is_program(ob or "", binary))))
    parts.append(("(the harness's work queue calls)", into(
        lambda caller, callee, _: callee in HARNESS and caller != work
        and caller not in HARNESS)))
    return parts


def by_function(binary, d, sizes, kind, top=12, required=True):
    """Where the instructions and last-level misses of the dumps named
    "<structure> <kind> <count>" go, per unit of @kind, by the function
    callgrind saw them in (what the compiler inlined is its caller's)."""
    unit, heading = BY_FUNCTION[kind]
    print()
    for line in heading:
        print(f"# {line}")
    print("# tests/bench/budget.py): each structure's total, then the functions that cost most,")
    print("# by their own instructions (Ir) and last-level data misses (LL), inlined code counted")
    calls_counted = kind != "mix-90/10"
    print("# in its caller's" + (f", and how often each was called per {unit}"
                                  if calls_counted else "")
          + "; the rest summed; functions that cost nothing left out")
    if kind != "mix-90/10":
        print("# In parentheses, what the calls into each part cost with all they called: the work")
        print("# item on the work queue's thread, liburcu's thread's calls of RCU callbacks, and the")
        print("# harness's schedule_work() and queue_work() (a mutex and a condition variable each,")
        print("# where the kernel tests and sets a bit); the operations themselves are the rest")
    for size in sizes:
        dumps = {structure: (n, fns, call_counts(path), arcs, where)
                 for structure, n, path, (_, fns, _, where, arcs)
                 in named_dumps(d, size, kind)}
        if not dumps:
            if not required:
                continue
            sys.exit(f"budget.py: no {kind} dumps for {size} entries in {d}")
        for structure in ORDER + sorted(set(dumps) - set(ORDER)):
            if structure not in dumps:
                continue
            n, fns, counts, arcs, where = dumps[structure]
            cost = {f: (sum(ir for ir, _ in c.values()),
                        sum(ll for _, ll in c.values())) for f, c in fns.items()}
            ir_all = sum(ir for ir, _ in cost.values())
            ll_all = sum(ll for _, ll in cost.values())
            print(f"{size:>8} {structure:<11} {'total':<34} {ir_all / n:8.1f} {ll_all / n:6.2f}"
                  f" {'calls' if calls_counted else '':>7}")
            if kind != "mix-90/10":
                parts = [(label, part) for label, part
                         in deferred(structure, arcs, where, binary)
                         if part[0] / n >= 0.05]
                if parts:
                    parts.append(("(the operations themselves)",
                                  (ir_all - sum(p[0] for _, p in parts),
                                   ll_all - sum(p[1] for _, p in parts))))
                for label, part in parts:
                    print(f"{'':>8} {'':<11} {label:<34} "
                          f"{part[0] / n:8.1f} {part[1] / n:6.2f}")
            ranked = sorted(((f, c) for f, c in cost.items()
                             if c[0] / n >= 0.05 or c[1] / n >= 0.005),
                            key=lambda kv: -kv[1][0])
            for f, (ir, ll) in ranked[:top]:
                calls = (f"{counts[f] / n:7.3f}" if f in counts and calls_counted
                         else f"{'-':>7}")
                print(f"{'':>8} {'':<11} {f[:34]:<34} {ir / n:8.1f} {ll / n:6.2f} {calls}")
            shown = ranked[:top]
            rest_ir = ir_all - sum(ir for _, (ir, _) in shown)
            rest_ll = ll_all - sum(ll for _, (_, ll) in shown)
            print(f"{'':>8} {'':<11} {'(the rest)':<34} "
                  f"{rest_ir / n:8.1f} {rest_ll / n:6.2f}")


def main():
    detail = None
    if sys.argv[1] == "--fills":
        by_function(sys.argv[2], sys.argv[3], sys.argv[4:], "insert")
        by_function(sys.argv[2], sys.argv[3], sys.argv[4:], "drain")
        return
    if sys.argv[1] == "--detail":
        detail, sys.argv[1:] = sys.argv[2], sys.argv[3:]
    ops, binary, d, sizes = (int(sys.argv[1]), sys.argv[2], sys.argv[3],
                             sys.argv[4:])
    print("\n# Where each lookup's instructions go, per lookup (callgrind, "
          f"{ops} lookups; instructions")
    print("# mapped to categories through the functions the compiler inlined, "
          "by tests/bench/budget.py):")
    for cat in CATEGORIES:
        print(f"#   {cat:<8} {MEANINGS[cat]}")
    print("# proper: the lookup without its frame and RCU")
    head = f"{'workload':<16} {'entries':>8} {'structure':<11}"
    head += "".join(f" {c:>7}" for c in CATEGORIES) + f" {'total':>7} {'proper':>7}"
    print(head)
    misses = []
    for size in sizes:
        rows = {}
        for path in glob.glob(f"{d}/callgrind.{size}.*"):
            name, fns, calls, where = read_dump(path)
            if not name:
                continue
            structure, workload, *_ = name.split()
            if structure not in LOOKUPS or not workload.startswith("lookup"):
                continue
            rows[(workload, structure)] = (fns, calls, where)
        if not rows:
            sys.exit(f"budget.py: no dumps for {size} entries in {d}")
        # The program's own instructions; a shared library's (memcmp()
        # in the C library, say) go by their function's name alone.
        addrs = set()
        for fns, _, where in rows.values():
            for f, costs in fns.items():
                if is_program(where[f], binary):
                    addrs.update(costs)
        chains = symbolize(binary, addrs)
        for workload in sorted({w for w, _ in rows},
                               key=lambda w: (w != "lookup-uniform", w)):
            for structure in ORDER:
                if (workload, structure) not in rows:
                    continue
                fns, calls, where = rows[(workload, structure)]
                root = LOOKUPS[structure]
                if root not in fns:
                    continue
                cats = dict.fromkeys(CATEGORIES, 0)
                lls = dict.fromkeys(CATEGORIES, 0)
                for f in reachable(root, calls):
                    for addr, (ir, ll) in sorted(fns.get(f, {}).items()):
                        chain = chains.get(addr, [(f, "", 0)])
                        cat = categorize(chain)
                        cats[cat] += ir
                        lls[cat] += ll
                        if detail == f"{structure} {workload}":
                            where = " < ".join(
                                f"{fn}:{line}" for fn, _, line in chain)
                            print(f"  {addr:#x} {ir / ops:6.3f} {ll / ops:5.3f} {cat:<8} {where}")
                total = sum(cats.values())
                proper = total - cats["frame"] - cats["RCU"]
                print(f"{workload:<16} {size:>8} {structure:<11}"
                      + "".join(f" {cats[c] / ops:7.1f}" for c in CATEGORIES)
                      + f" {total / ops:7.1f} {proper / ops:7.1f}")
                misses.append((workload, size, structure, lls))
    print("\n# Where each lookup's last-level data misses go, per lookup, by the same categories:")
    print("# the instruction that misses is the first to touch its line (slot: the table slot;")
    print("# group, compare, filter: rosebush's home line; chain: a list's node; caller: the object)")
    cols = [c for c in CATEGORIES if c not in ("frame", "RCU", "hash")]
    print(f"{'workload':<16} {'entries':>8} {'structure':<11}"
          + "".join(f" {c:>7}" for c in cols) + f" {'total':>7}")
    for workload, size, structure, lls in misses:
        print(f"{workload:<16} {size:>8} {structure:<11}"
              + "".join(f" {lls[c] / ops:7.2f}" for c in cols)
              + f" {sum(lls.values()) / ops:7.2f}")
    removals(binary, d, sizes, detail)
    by_function(binary, d, sizes, "mix-90/10")


def removals(binary, d, sizes, detail):
    """The removal budget: instructions and last-level misses per removal
    by category, from the dumps named "<structure> remove <count>"."""
    rows = []
    for size in sizes:
        dumps = {structure: (n, fns, calls, where)
                 for structure, n, _, (_, fns, calls, where, _)
                 in named_dumps(d, size, "remove") if structure in REMOVALS}
        addrs = set()
        for _, fns, _, where in dumps.values():
            for f, costs in fns.items():
                if is_program(where[f], binary):
                    addrs.update(costs)
        chains = symbolize(binary, addrs)
        for structure in ORDER:
            if structure not in dumps:
                continue
            n, fns, calls, where = dumps[structure]
            cats = dict.fromkeys(REMOVE_CATEGORIES, 0)
            lls = dict.fromkeys(REMOVE_CATEGORIES, 0)
            for f in reachable(REMOVALS[structure], calls):
                for addr, (ir, ll) in sorted(fns.get(f, {}).items()):
                    chain = chains.get(addr, [(f, "", 0)])
                    cat = categorize(chain, REMOVE_CHAIN_RULES, REMOVE_RULES)
                    cats[cat] += ir
                    lls[cat] += ll
                    if detail == f"{structure} remove":
                        at = " < ".join(f"{fn}:{line}" for fn, _, line in chain)
                        print(f"  {addr:#x} {ir / n:6.3f} {ll / n:5.3f} {cat:<8} {at}")
            rows.append((size, structure, n, cats, lls))
    if not rows:
        return
    print("\n# Where each removal's instructions go, per removal (callgrind; from the full structure,")
    print("# a quarter of its objects removed uncounted, then the next quarter counted, or as many")
    print("# as the operations if fewer, in the order they were stored; mapped to categories as")
    print("# above, by tests/bench/budget.py; callgrind runs one thread at a time through one")
    print("# simulated cache, so no line is shared with another CPU):")
    for cat in REMOVE_CATEGORIES:
        print(f"#   {cat:<8} {REMOVE_MEANINGS[cat]}")
    print("# proper: the removal without its frame, RCU and the harness")
    cols = REMOVE_CATEGORIES
    print(f"{'entries':>8} {'structure':<11}" + "".join(f" {c:>7}" for c in cols)
          + f" {'total':>7} {'proper':>7}")
    for size, structure, n, cats, _ in rows:
        total = sum(cats.values())
        proper = total - cats["frame"] - cats["RCU"] - cats["harness"]
        print(f"{size:>8} {structure:<11}" + "".join(f" {cats[c] / n:7.1f}" for c in cols)
              + f" {total / n:7.1f} {proper / n:7.1f}")
    print("\n# Where each removal's last-level data misses go, per removal, by the same categories")
    print("# (the instruction that misses is the first to touch its line: hash, the object's key; slot,")
    print("# the table slot; lock, rosebush's header line and rhashtable's slot; find, rosebush's")
    print("# home line and rhashtable's chain)")
    cols = [c for c in REMOVE_CATEGORIES if c not in ("RCU",)]
    print(f"{'entries':>8} {'structure':<11}" + "".join(f" {c:>7}" for c in cols)
          + f" {'total':>7}")
    for size, structure, n, _, lls in rows:
        total = sum(lls.values())
        print(f"{size:>8} {structure:<11}" + "".join(f" {lls[c] / n:7.2f}" for c in cols)
              + f" {total / n:7.2f}")


if __name__ == "__main__":
    main()
