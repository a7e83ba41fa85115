#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tests/dcache/ab.py, the dcache A/B's table, on made-up consoles."""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402

TABLE = ('[    0.100000] Dentry cache hash table entries: 131072 '
         '(order: 8, 1048576 bytes, linear)\n')


def console(results, slab=(1000, 1, 200000, 0), table=True, status=0):
    lines = [TABLE if table else '']
    for w, n, depth, ns in results:
        lines.append(f'[   10.0] dcache-ab: result {w} n={n} depth={depth} ns={ns} ops=16384\n')
    lines.append('[   11.0] dcache-ab: slab n=%d depth=%d dentry=%d rcl=%d\n' % slab)
    lines.append(f'[   12.0] dcache-ab: exit status {status}\n')
    return ''.join(lines)


class AbTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def run_ab(self, paths):
        out = io.StringIO()
        ab.report(paths, out)
        return out.getvalue()

    def test_ratios_from_min_and_median(self):
        paths = [
            self.write('console-a-1.log', console([('stat', 1000, 1, 1000)])),
            self.write('console-a-2.log', console([('stat', 1000, 1, 1200)])),
            self.write('console-a-3.log', console([('stat', 1000, 1, 1400)])),
            self.write('console-b-1.log', console([('stat', 1000, 1, 800)], table=False,
                                                  slab=(1000, 1, 200000, 8192))),
            self.write('console-b-2.log', console([('stat', 1000, 1, 1000)], table=False,
                                                  slab=(1000, 1, 200000, 8192))),
            self.write('console-b-3.log', console([('stat', 1000, 1, 1500)], table=False,
                                                  slab=(1000, 1, 200000, 8192))),
        ]
        out = self.run_ab(paths)
        row = [line for line in out.splitlines() if line.startswith('stat ')]
        self.assertEqual(len(row), 1)
        # A: min 1000, median 1200; B: min 800, median 1000
        # pairs: 1000/800, 1200/1000, 1400/1500: median 1.2, range 0.933-1.25
        self.assertEqual(row[0].split()[3:],
                         ['1000', '1200', '800', '1000', '1.250', '1.200', '1.200', '0.933-1.250'])
        # Memory: A's table 1024 KiB, B's buckets 8 KiB
        mem = [line for line in out.splitlines() if line.split()[:2] == ['1000', '1']]
        self.assertEqual(mem[0].split()[-2:], ['1024', '8'])

    def test_failed_boot_is_an_error(self):
        paths = [self.write('console-a-1.log', console([('stat', 1000, 1, 1000)], status=1)),
                 self.write('console-b-1.log', console([('stat', 1000, 1, 900)], table=False))]
        with self.assertRaisesRegex(ab.Error, 'did not exit with status 0'):
            self.run_ab(paths)

    def test_one_sided_result_is_an_error(self):
        paths = [self.write('console-a-1.log', console([('stat', 1000, 1, 1000),
                                                        ('open', 1000, 1, 2000)])),
                 self.write('console-b-1.log', console([('stat', 1000, 1, 900)], table=False))]
        with self.assertRaisesRegex(ab.Error, 'one kernel only'):
            self.run_ab(paths)

    def test_kernel_b_with_a_static_table_is_an_error(self):
        paths = [self.write('console-a-1.log', console([('stat', 1000, 1, 1000)])),
                 self.write('console-b-1.log', console([('stat', 1000, 1, 900)]))]
        with self.assertRaisesRegex(ab.Error, 'still has a static'):
            self.run_ab(paths)

    def test_unpaired_boots_are_an_error(self):
        paths = [self.write('console-a-1.log', console([('stat', 1000, 1, 1000)])),
                 self.write('console-b-2.log', console([('stat', 1000, 1, 900)], table=False))]
        with self.assertRaisesRegex(ab.Error, 'no boot of A has its B'):
            self.run_ab(paths)

    def test_missing_kernel_is_an_error(self):
        paths = [self.write('console-a-1.log', console([('stat', 1000, 1, 1000)]))]
        with self.assertRaisesRegex(ab.Error, 'no boot of kernel B'):
            self.run_ab(paths)


if __name__ == '__main__':
    unittest.main()
