#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""layout-model.py: how many bucket lines a rosebush lookup reads.

A model of the bucket layout of lib/rosebush.c (see "Buckets" in
Documentation/core-api/rosebush.rst), not the code: random 32-bit keys go
into buckets of four groups that split when full, as rbh_insert() does,
each key into its home group if it has room and otherwise into the first
of its destinations (home ^ 1, ^ 2, ^ 3) with room, setting its bit in the
home group's filter.  It prints, for each layout, how full the buckets
are, how many entries are outside their home group, and how many bucket
lines a lookup of a stored key (hit) and of a random key (miss) reads.
Table slots, objects and chains are not modelled: it is the bucket part of
the miss count that `make bench-misses` measures.

    layout-model.py [ENTRIES] [SEED]

Layouts: "whole" is the code (the header's group of 2 entries is never a
home); "weighted" also makes it the home of 2 keys in 17; "flat" is four
whole groups of 5 with the header elsewhere, for comparison.
"""
import random
import sys

MIX = 0x85ebca6b        # rbh_mix()
FILTER_BITS = 8         # per destination: 32 / 4 groups


class Bucket:
    def __init__(self, depth, caps):
        self.depth = depth
        self.groups = [[] for _ in caps]
        # filters[home][dest] = set of filter bits
        self.filters = [[set() for _ in range(len(caps) - 1)] for _ in caps]


def mix(key):
    return (key * MIX) & 0xffffffff


def model(caps, homes, entries, seed):
    """homes: the group each of len(homes) equal shares of the keys goes to"""
    rng = random.Random(seed)
    ngroups = len(caps)

    def home(key):
        return homes[(mix(key) * len(homes)) >> 32]

    def fbit(key):
        return (mix(key) >> 16) & (FILTER_BITS - 1)

    def place(bucket, key):
        h = home(key)
        for s in range(ngroups):
            g = h ^ s
            if len(bucket.groups[g]) < caps[g]:
                bucket.groups[g].append(key)
                if s:
                    bucket.filters[h][s - 1].add(fbit(key))
                return True
        return False

    depth = 1
    table = [Bucket(1, caps), Bucket(1, caps)]
    keys = set()
    while len(keys) < entries:
        key = rng.getrandbits(32)
        if key in keys:
            continue
        keys.add(key)
        while True:
            bucket = table[key >> (32 - depth)]
            if place(bucket, key):
                break
            if bucket.depth == depth:
                table = [b for b in table for _ in (0, 1)]
                depth += 1
            d = bucket.depth
            new = [Bucket(d + 1, caps), Bucket(d + 1, caps)]
            for k in (k for g in bucket.groups for k in g):
                assert place(new[(k >> (31 - d)) & 1], k)
            first = (key >> (32 - d)) << (depth - d)
            n = 1 << (depth - d)
            for i in range(n):
                table[first + i] = new[i >= n // 2]

    buckets = {id(b): b for b in table}.values()
    stored = sum(len(g) for b in buckets for g in b.groups)
    spilled = hit_lines = 0
    for key in keys:
        bucket, h, lines = table[key >> (32 - depth)], home(key), 1
        if key not in bucket.groups[h]:
            spilled += 1
            for s in range(1, ngroups):
                if fbit(key) in bucket.filters[h][s - 1]:
                    lines += 1
                    if key in bucket.groups[h ^ s]:
                        break
        hit_lines += lines
    misses = 100000
    miss_lines = 0
    for _ in range(misses):
        key = rng.getrandbits(32)
        bucket, h = table[key >> (32 - depth)], home(key)
        miss_lines += 1 + sum(fbit(key) in f for f in bucket.filters[h])
    return (len(buckets), stored / (len(buckets) * sum(caps)),
            spilled / entries, hit_lines / entries, miss_lines / misses)


def main():
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    layouts = [
        ("whole", [2, 5, 5, 5], [1, 2, 3]),
        ("weighted", [2, 5, 5, 5], [0] * 2 + [1] * 5 + [2] * 5 + [3] * 5),
        ("flat", [5, 5, 5, 5], [0, 1, 2, 3]),
    ]
    print(f"# {entries} random keys, seed {seed}; bucket lines per lookup")
    print(f"{'layout':10} {'entries':>7} {'buckets':>8} {'full':>6} "
          f"{'spilled':>8} {'hit':>6} {'miss':>6}")
    for name, caps, homes in layouts:
        nb, full, spilled, hit, miss = model(caps, homes, entries, seed)
        print(f"{name:10} {sum(caps):7} {nb:8} {full:6.3f} {spilled:8.3f} "
              f"{hit:6.3f} {miss:6.3f}")


if __name__ == "__main__":
    main()
