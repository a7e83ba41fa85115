#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""misses.py OPS DIR SIZE...: the cache misses per lookup of each structure.

Reads the dumps that `rosebush-bench misses=SIZE` made under callgrind
(DIR/callgrind.SIZE.N, one per structure and workload, each counting OPS
lookups), and prints, per lookup: instructions, L1 data misses, and
last-level data misses (reads and writes), with each peer's ratio of
last-level misses to rosebush's.
"""
import glob
import re
import sys

REFERENCE = "rosebush"
ORDER = [REFERENCE, "rhashtable", "hlist_bl", "cds_lfht"]


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
    print("\n# Per lookup, counted by callgrind's cache simulation over "
          f"{ops} lookups after a warm-up:")
    print("# Ir instructions, D1 L1 data misses, LL last-level data misses "
          "(the memory accesses);")
    print("# ratio: the peer's LL misses / rosebush's (> 1: rosebush "
          "misses less)")
    print(f"{'workload':<16} {'entries':>8} {'structure':<11} {'Ir':>7} "
          f"{'D1':>6} {'LL':>6} {'ratio':>6}")
    for size in sizes:
        rows = {}
        for path in glob.glob(f"{d}/callgrind.{size}.*"):
            name, ev = read_dump(path)
            if not name:
                continue
            structure, workload = name.split()
            rows[(workload, structure)] = ev
        if not rows:
            sys.exit(f"misses.py: no dumps for {size} entries in {d}")
        for workload in sorted({w for w, _ in rows}, key=lambda w: (w != "lookup-uniform", w)):
            ref = rows.get((workload, REFERENCE))
            ref_ll = (ref["DLmr"] + ref["DLmw"]) / ops if ref else None
            for structure in ORDER:
                ev = rows.get((workload, structure))
                if ev is None:
                    continue
                ll = (ev["DLmr"] + ev["DLmw"]) / ops
                d1 = (ev["D1mr"] + ev["D1mw"]) / ops
                ratio = f"{ll / ref_ll:6.2f}" if ref_ll else "     -"
                print(f"{workload:<16} {size:>8} {structure:<11} "
                      f"{ev['Ir'] / ops:7.1f} {d1:6.2f} {ll:6.2f} {ratio}")


if __name__ == "__main__":
    main()
