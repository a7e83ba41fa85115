#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tests/dcache/ab_profile.py, the dcache A/B's profile, on a
made-up System.map and made-up consoles."""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab_profile  # noqa: E402

# Text (T, t, W) and data (D) symbols, not in address order, an alias at
# _stext's address
MAP = '''\
ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81000100 t d_lookup
ffffffff81000200 T d_alloc
ffffffff81000180 D some_data
ffffffff81000300 W d_free
ffffffff81000400 T _etext
'''


def console(workloads, stext='ffffffff81000000', status=0):
    """workloads: [(name, ops, clock, ns, {who: {ip: count}}, unprinted)]"""
    lines = [f'[    1.0] dcache-ab: profile-text _stext={stext}\n']
    for name, ops, clock, ns, samples, unprinted in workloads:
        lines.append(f'[   10.0] dcache-ab: result {name} n=1000 depth=8 ns={ns} ops={ops}\n')
    for name, ops, clock, ns, samples, unprinted in workloads:
        b = sum(samples.get('b', {}).values()) + unprinted
        o = sum(samples.get('o', {}).values())
        lines.append(f'[   11.0] dcache-ab: profile {name} n=1000 depth=8 ops={ops} '
                     f'period=20000 clock={clock} bench={b} other={o} lost=0 throttled=0\n')
        for who, ips in samples.items():
            for ip, count in ips.items():
                lines.append(f'[   11.0] dcache-ab: ip {name} n=1000 depth=8 {who} '
                             f'{ip:x} {count}\n')
    lines.append(f'[   12.0] dcache-ab: exit status {status}\n')
    return ''.join(lines)


class AbProfileTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        path = self.write('System.map', MAP)
        self.maps = {'a': ab_profile.SymbolMap(path), 'b': ab_profile.SymbolMap(path)}

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def run_profile(self, paths):
        out = io.StringIO()
        ab_profile.report(self.maps, paths, 25, out)
        return out.getvalue()

    def rows(self, out, title):
        """{function: [fields]} of the table under the heading @title."""
        lines = out.splitlines()
        i = lines.index(title)
        table = {}
        for line in lines[i + 1:]:
            if not line:
                break
            if line.startswith('#') or line.startswith('function '):
                continue
            name, fields = line.rsplit(None, 6)[0], line.rsplit(None, 6)[1:]
            table[name] = fields
        return table

    def test_addresses_map_to_the_text_symbol_below(self):
        m = self.maps['a']
        self.assertEqual(m.stext, 0xffffffff81000000)
        self.assertEqual(m.function(0xffffffff81000000), '_stext')
        self.assertEqual(m.function(0xffffffff810000ff), '_stext')
        self.assertEqual(m.function(0xffffffff81000100), 'd_lookup')
        # Past the data symbol at 0x180: still d_lookup's
        self.assertEqual(m.function(0xffffffff810001ff), 'd_lookup')
        self.assertEqual(m.function(0xffffffff81000234), 'd_alloc')
        self.assertEqual(m.function(0xffffffff81000310), 'd_free')
        self.assertEqual(m.function(0xffffffff80ffffff), ab_profile.UNKNOWN)
        self.assertEqual(m.function(0), ab_profile.USER)

    def test_ns_per_op_from_samples_clock_and_ops(self):
        # A: 1000 ops, 40 samples over 4 ms of clock (100 us each):
        # d_lookup 30 samples (two addresses) = 3 ms / 1000 = 3000 ns/op,
        # user 10 = 1000 ns/op.  B: 2000 ops, 50 samples over 10 ms
        # (200 us each): d_lookup 20 = 2000 ns/op, d_alloc 20 = 2000,
        # 10 not printed = 1000; other tasks: d_free 50 over B's clock.
        a = console([('negative', 1000, 4000000, 4100,
                      {'b': {0xffffffff81000110: 20, 0xffffffff81000150: 10, 0: 10}}, 0)])
        b = console([('negative', 2000, 20000000, 5200,
                      {'b': {0xffffffff81000120: 20, 0xffffffff81000200: 20},
                       'o': {0xffffffff81000300: 50}}, 10)])
        out = self.run_profile([self.write('profile-a-1.log', a),
                                self.write('profile-b-1.log', b)])
        t = self.rows(out, "## negative, 1000 files at depth 8: the workload's threads")
        # function: A ns/op, B ns/op, B-A, sd, A samples, B samples
        self.assertEqual(t['total'][:3], ['4000.0', '5000.0', '+1000.0'])
        self.assertEqual(t['d_lookup'], ['3000.0', '2000.0', '-1000.0', '707.1', '30', '20'])
        self.assertEqual(t['d_alloc'], ['0.0', '2000.0', '+2000.0', '447.2', '0', '20'])
        self.assertEqual(t[ab_profile.USER][:3], ['1000.0', '0.0', '-1000.0'])
        self.assertEqual(t[ab_profile.UNPRINTED][:3], ['0.0', '1000.0', '+1000.0'])
        # B-A sorted by its size: d_alloc first
        names = [n for n in t if n != 'total']
        self.assertEqual(names[0], 'd_alloc')
        self.assertIn('sampled 4000 ns/op, measured 4100', out)
        self.assertIn('sampled 5000 ns/op, measured 5200', out)
        o = self.rows(out, '## negative, 1000 files at depth 8: other tasks')
        self.assertEqual(o['d_free'][:3], ['0.0', '5000.0', '+5000.0'])

    def test_boots_of_one_kernel_add_up(self):
        # Two boots of A with different clocks a sample: 10 x 100 us and
        # 10 x 300 us over 2000 ops = 2000 ns/op
        a1 = console([('open', 1000, 1000000, 1000, {'b': {0xffffffff81000110: 10}}, 0)])
        a2 = console([('open', 1000, 3000000, 3000, {'b': {0xffffffff81000110: 10}}, 0)])
        b = console([('open', 1000, 1000000, 1000, {'b': {0xffffffff81000110: 10}}, 0)])
        out = self.run_profile([self.write('profile-a-1.log', a1),
                                self.write('profile-a-2.log', a2),
                                self.write('profile-b-1.log', b)])
        t = self.rows(out, "## open, 1000 files at depth 8: the workload's threads")
        self.assertEqual(t['d_lookup'][:3], ['2000.0', '1000.0', '-1000.0'])
        self.assertIn('2 boots of A, 1 boot of B', out)

    def test_samples_at_a_page_end_are_counted(self):
        # 0xff1 is the first address from which a 15-byte instruction
        # may cross into the next page; 10 samples of 100 us over 1000 ops
        a = console([('stat', 1000, 1000000, 1000, {'b': {0xffffffff81000ff0: 5,
                                                          0xffffffff81000ff1: 3,
                                                          0xffffffff81001fff: 2}}, 0)])
        b = console([('stat', 1000, 1000000, 1000, {'b': {0: 10}}, 0)])
        out = self.run_profile([self.write('profile-a-1.log', a),
                                self.write('profile-b-1.log', b)])
        self.assertIn("# A: 1000 ops, 10 samples of 100000 ns; sampled 1000 ns/op, "
                      "measured 1000; at a page's last 15 bytes 5 (500 ns/op)", out)
        self.assertIn("at a page's last 15 bytes 0 (0 ns/op)", out)

    def test_time_splits_into_page_edge_hash_and_shared_code(self):
        # 10 samples of 100 us over 1000 ops: d_lookup (a function of the
        # source file) 4 = 400 ns/op, 2 of them at a page's end = 200,
        # d_alloc (elsewhere) 3 = 300, user space 1 = 100, not printed
        # 2 = 200 (elsewhere)
        source = self.write('dcache.c', 'static struct dentry *\n'
                            'd_lookup(const char *name)\n{\n}\n'
                            'void d_free(struct dentry *);\n')
        self.assertEqual(ab_profile.functions_of(source), {'d_lookup'})
        a = console([('stat', 1000, 1000000, 1000,
                      {'b': {0xffffffff81000110: 2, 0xffffffff81000ffa: 0,
                             0xffffffff81000200: 3, 0: 1}}, 2)])
        a = a.replace('ip stat n=1000 depth=8 b ffffffff81000ffa 0',
                      'ip stat n=1000 depth=8 b ffffffff81000ffa 2')
        a = a.replace('bench=8', 'bench=10')
        b = console([('stat', 1000, 1000000, 1000, {'b': {0: 10}}, 0)])
        out = io.StringIO()
        maps = {'a': self.maps['a'], 'b': self.maps['b']}
        # d_lookup's page-edge address: map it to d_lookup
        maps['a'].addrs.append(0xffffffff81000f00)
        maps['a'].names.append('d_lookup')
        ab_profile.report(maps, [self.write('profile-a-1.log', a),
                                 self.write('profile-b-1.log', b)], 25, out,
                          hash_funcs={'d_lookup'}, sources=[source])
        self.assertIn('# ns/op, A -> B: at a page\'s last 15 bytes 200 -> 0; in the '
                      'functions of dcache.c 200 -> 0; elsewhere 600 -> 1000', out.getvalue())
        self.assertIn("# A's page-edge addresses that took most: 0xffffffff81000ffa "
                      "d_lookup 2", out.getvalue())

    def test_kernel_not_at_its_system_map_is_an_error(self):
        a = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)],
                    stext='ffffffff9a000000')
        b = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        with self.assertRaisesRegex(ab_profile.Error, 'nokaslr'):
            self.run_profile([self.write('profile-a-1.log', a),
                              self.write('profile-b-1.log', b)])

    def test_lost_samples_are_an_error(self):
        a = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        a = a.replace('lost=0', 'lost=3')
        b = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        with self.assertRaisesRegex(ab_profile.Error, '3 samples lost'):
            self.run_profile([self.write('profile-a-1.log', a),
                              self.write('profile-b-1.log', b)])

    def test_samples_without_clock_are_an_error(self):
        a = console([('rename', 1000, 0, 1000, {'b': {0: 1}}, 0)])
        b = console([('rename', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        with self.assertRaisesRegex(ab_profile.Error, 'no clock'):
            self.run_profile([self.write('profile-a-1.log', a),
                              self.write('profile-b-1.log', b)])

    def test_failed_boot_is_an_error(self):
        a = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)], status=1)
        b = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        with self.assertRaisesRegex(ab_profile.Error, 'did not exit with status 0'):
            self.run_profile([self.write('profile-a-1.log', a),
                              self.write('profile-b-1.log', b)])

    def test_one_sided_profile_is_an_error(self):
        a = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0),
                     ('open', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        b = console([('stat', 1000, 1000000, 1000, {'b': {0: 1}}, 0)])
        with self.assertRaisesRegex(ab_profile.Error, 'one kernel only'):
            self.run_profile([self.write('profile-a-1.log', a),
                              self.write('profile-b-1.log', b)])


if __name__ == '__main__':
    unittest.main()
