#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tests/dcache/holds.py, the lock holds of the A/B, on made-up consoles."""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import holds  # noqa: E402


def line(name, acq, hmax, total):
    return (f'[   10.0] dcache-ab: lock_stat {name}: 0 0 0.00 0.00 0.00 0.00 '
            f'5 {acq} 0.10 {hmax:.2f} {total:.2f} {total / acq:.2f}\n')


def console(lines, status=0, holds_line=True):
    text = ''
    if holds_line:
        text += ('[    9.0] dcache-ab: holds files=3000 dirs=3 rm_ns=2000000 '
                 'renames=10 lookups=20\n')
    text += ''.join(lines)
    return text + f'[   12.0] dcache-ab: exit status {status}\n'


class HoldsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_table(self):
        a = self.write('console-a-1.log', console([line('&dentry->d_lock', 100, 2.0, 50.0),
                                                   line('&zone->lock', 10, 1.0, 5.0)]))
        # The median of three boots of B: 75 of 60, 75 and 90
        b = [self.write(f'console-b-{i}.log',
                        console([line('&dentry->d_lock', 100, 5.0, t),
                                 line('&zone->lock', 10, 1.0, 5.0),
                                 line('&rbh->rbh_lock_keys->bucket_lock', 40, 1.0, 8.0)] +
                                # Among the longest held in one boot only: left out
                                [line('&rq->__lock', 5, 1.0, 2.0)] * (i == 1)))
             for i, t in enumerate((90.0, 60.0, 75.0))]
        out = io.StringIO()
        holds.table(*holds.gather([a] + b), out)
        rows = {r.split()[0]: r.split() for r in out.getvalue().splitlines()
                if not r.startswith('#') and not r.startswith('class')}
        self.assertEqual(rows['&dentry->d_lock'][-2:], ['1.50', '1.50'])
        # Medians: B's total is 75 of 60, 75 and 90
        self.assertEqual(rows['&dentry->d_lock'][8], '75.00')
        # A class only B has: no ratio
        self.assertEqual(rows['&rbh->rbh_lock_keys->bucket_lock'][-2:], ['-', '-'])
        self.assertNotIn('&rq->__lock', rows)
        # The dcache's classes first
        body = [r for r in out.getvalue().splitlines() if not r.startswith(('#', 'class'))]
        self.assertTrue(body[-1].startswith('&zone->lock'))
        self.assertIn('removal B/A: 1.00', out.getvalue())

    def test_no_boot_of_a_kernel(self):
        b = self.write('console-b-1.log', console([line('&x', 1, 1.0, 1.0)]))
        with self.assertRaises(holds.Error):
            holds.gather([b])

    def test_failed_boot(self):
        a = self.write('a', console([line('&dentry->d_lock', 1, 1.0, 1.0)], status=1))
        with self.assertRaises(holds.Error):
            holds.parse(a)

    def test_lockdep_report(self):
        text = console([line('&x', 1, 1.0, 1.0)])
        a = self.write('console-a-1.log', text.replace(
            'dcache-ab: holds', 'WARNING: possible circular locking dependency\n[ 9.0] dcache-ab: holds'))
        with self.assertRaises(holds.Error):
            holds.parse(a)

    def test_missing_lines(self):
        with self.assertRaises(holds.Error):
            holds.parse(self.write('a', console([])))
        with self.assertRaises(holds.Error):
            holds.parse(self.write('b', console([line('&x', 1, 1.0, 1.0)], holds_line=False)))


if __name__ == '__main__':
    unittest.main()
