#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""misses.py OPS DIR SIZE...: the cache misses per operation of each structure.

Reads the dumps that `rosebush-bench misses=SIZE` made under callgrind
(DIR/callgrind.SIZE.N, one per structure and workload, each counting OPS
operations, or as many as its name gives), and prints, per operation
(a lookup, an operation of the mix, a removal): instructions, L1 data misses, and
last-level data misses (reads and writes), each net of what the
benchmark's own loop over its operations costs (the "op-stream" dumps: the
same loop with a lookup that reads nothing), then the op stream's own
counts, with each peer's ratio of net last-level misses to rosebush's.
"""
import glob
import re
import sys

REFERENCE = "rosebush"
ORDER = [REFERENCE, "rhashtable", "hlist_bl", "cds_lfht"]
BASELINE = "op-stream"


def read_dump(path):
    """Return (trigger name, {event: count}) of one callgrind dump."""
    events, totals, name = None, None, None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("summary:", "totals:")):
                totals = [int(x) for x in line.split()[1:]]
            elif line.startswith("desc: Trigger:"):
                m = re.search(r"Client Request: (.*)$", line.strip())
                if m:
                    name = m.group(1)
    if events is None or totals is None:
        sys.exit(f"misses.py: {path}: no events or totals")
    return name, dict(zip(events, totals + [0] * (len(events) - len(totals))))


def main():
    ops, d, sizes = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    print("\n# Per operation, counted by callgrind's cache simulation over "
          f"{ops} operations after a warm-up,")
    print(f"# net of the benchmark's loop over its operations ({BASELINE}, "
          "given last, gross):")
    print("# Ir instructions, D1 L1 data misses, LL last-level data misses "
          "(the memory accesses);")
    print("# ratio: the peer's net LL misses / rosebush's (> 1: rosebush "
          "misses less)")
    print(f"{'workload':<16} {'entries':>8} {'structure':<11} {'Ir':>7} "
          f"{'D1':>6} {'LL':>6} {'ratio':>6}")

    def per_op(ev):
        n = ev.get("ops", ops)
        return (ev["Ir"] / n, (ev["D1mr"] + ev["D1mw"]) / n,
                (ev["DLmr"] + ev["DLmw"]) / n)

    for size in sizes:
        rows = {}
        for path in glob.glob(f"{d}/callgrind.{size}.*"):
            name, ev = read_dump(path)
            if not name:
                continue
            # "<structure> <workload> [<operations, if not OPS>]"
            structure, workload, *count = name.split()
            if count:
                ev["ops"] = int(count[0])
            rows[(workload, structure)] = ev
        if not rows:
            sys.exit(f"misses.py: no dumps for {size} entries in {d}")
        for workload in sorted({w for w, _ in rows}, key=lambda w: (w != "lookup-uniform", w)):
            base = rows.get((workload, BASELINE))
            if base is None:
                sys.exit(f"misses.py: no {BASELINE} dump for {workload}, {size} entries")
            b_ir, b_d1, b_ll = per_op(base)
            ref = rows.get((workload, REFERENCE))
            ref_ll = per_op(ref)[2] - b_ll if ref else None
            for structure in ORDER:
                ev = rows.get((workload, structure))
                if ev is None:
                    continue
                ir, d1, ll = per_op(ev)
                ir, d1, ll = ir - b_ir, d1 - b_d1, ll - b_ll
                ratio = f"{ll / ref_ll:6.2f}" if ref_ll and ref_ll > 0 else "     -"
                print(f"{workload:<16} {size:>8} {structure:<11} "
                      f"{ir:7.1f} {d1:6.2f} {ll:6.2f} {ratio}")
            print(f"{workload:<16} {size:>8} {BASELINE:<11} "
                  f"{b_ir:7.1f} {b_d1:6.2f} {b_ll:6.2f}      -")

if __name__ == "__main__":
    main()
