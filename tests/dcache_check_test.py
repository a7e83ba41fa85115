#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of dcache_check.py against recorded `make qemu-dcache` logs.

tests/dcache/logs/kunit.log (the KASAN/lockdep kernel) and kcsan.log (the
KCSAN kernel, with 6.12's own data races in the VFS) must pass, the
latter only with --kcsan; each must fail when a case lost a name, when
the program or QEMU failed, when a step is missing, when a splat is
added, and (kcsan) when a race names a rosebush function.
kcsan-conversion.log (the KCSAN kernel with the dcache on rosebush, when
the conversion still wrote ->d_flags plain) holds a race between the
conversion's DCACHE_HASH_SLOT write and step_into()'s plain read of
->d_flags, which fails as it stands and passes once the write is marked,
and then only while one stack alone is the conversion's and the read
lies within the 4 bytes written.  Those three come from the stress's
first version (the tmpfs cases only) and are judged by its steps alone
(dcache_check.BASE).  kcsan-window.log (the KCSAN kernel, every step,
from before the verifier) must pass judged by its tmpfs steps: in its d_hash_hand / lookup_fast race the value
the reader saw change is another writer's (DCACHE_CANT_MOUNT), not the
conversion's.  kunit-steps.log (the KASAN/lockdep kernel, every
step of qemu/dcache-init.sh) must pass as a whole, and fail when a step
failed or is missing, when a selftest failed or none ran, when the
dentry hash at rest holds a reservation, more entries than there are
dentries, or was not shown, and when its verifier found a dentry not
stored once under its hash, an entry of another name there, more
entries than hashed dentries, or did not run.
"""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import dcache_check  # noqa: E402


def main():
	def read(name):
		with open(os.path.join(here, 'dcache/logs', name)) as f:
			return f.readlines()

	def swap(log, old, new):
		return [l.replace(old, new) for l in log]

	kunit = read('kunit.log')
	kcsan = read('kcsan.log')
	# kernel B: a race of d_hash_hand()'s DCACHE_HASH_SLOT write with
	# step_into()'s plain read of ->d_flags; the write plain, then marked
	plain = read('kcsan-conversion.log')
	bits = swap(plain, 'read-write to 0xffff96c3c1407180',
		    'write (marked) to 0xffff96c3c1407180')

	def drop(log, text):
		return [l for l in log if text not in l]

	ours = swap(kcsan, ' walk_component+0x30/0x190',
		    ' rbh_next+0x30/0x190')
	conv = swap(kcsan, ' walk_component+0x30/0x190',
		    ' d_hash_publish+0x30/0x190')
	# a name that merely starts like one of the conversion's is not one
	near = swap(kcsan, ' walk_component+0x30/0x190',
		    ' d_set_hashed_x+0x30/0x190')
	# A race's title or CPU line naming rosebush is no frame of it
	named = swap(kcsan, 'Comm: dcache-stress', 'Comm: rosebush')
	cases = [
		('kunit log', kunit, 0, False, True),
		('kcsan log', kcsan, 0, True, True),
		('kcsan log judged as kunit', kcsan, 0, False, False),
		('a lost name', swap(kunit, 'dcache-stress: passed',
				     'dcache-stress: FAILED'), 0, False, False),
		('program failed', swap(kunit, 'dcache: exit status 0',
					'dcache: exit status 1'), 0, False, False),
		('no tmpfs', swap(kunit, 'mount exit status 0', 'mount exit status 255'),
		 0, False, False),
		('QEMU failed', kunit, 124, False, False),
		('no umount', drop(kunit, 'umount exit status'), 0, False, False),
		('lockdep splat', kunit + ['WARNING: possible circular locking dependency detected\n'],
		 0, False, False),
		('KASAN report under kcsan', kcsan + ['BUG: KASAN: slab-use-after-free in foo+0x1/0x2\n'],
		 0, True, False),
		('a race with a rosebush frame', ours, 0, True, False),
		('a race with a frame of the conversion', conv, 0, True, False),
		('a frame named like the conversion', near, 0, True, True),
		('the conversion\'s plain write of d_flags', plain, 0, True, False),
		('the conversion\'s marked write of d_flags', bits, 0, True, True),
		('a plain write of ours',
		 swap(bits, 'write (marked) to', 'write to'), 0, True, False),
		('a marked read-write of ours',
		 swap(bits, 'write (marked) to', 'read-write (marked) to'),
		 0, True, False),
		('other bits changed in the reader\'s watch',
		 swap(bits, '0x00a02008 -> 0x00202008', '0x00a02008 -> 0x00a02108'),
		 0, True, True),
		('no value change shown',
		 drop(bits, 'value changed:'), 0, True, True),
		('a marked read of theirs',
		 swap(bits, 'read to 0xffff96c3c1407180', 'read (marked) to 0xffff96c3c1407180'),
		 0, True, False),
		('both stacks the conversion\'s',
		 swap(bits, ' step_into+0xd3/0x580', ' d_hash_put+0xd3/0x580'),
		 0, True, False),
		('a read of more than the word',
		 swap(bits, 'of 4 bytes by task 51', 'of 8 bytes by task 51'),
		 0, True, False),
		('a read of a byte of the word',
		 swap(swap(bits, 'to 0xffff96c3c1407180 of 4 bytes by task 51',
			   'to 0xffff96c3c1407182 of 1 bytes by task 51'),
		      '0x00a02008 -> 0x00202008', '0xa0 -> 0x80'),
		 0, True, True),
		('a read of the byte after the word',
		 swap(bits, 'to 0xffff96c3c1407180 of 4 bytes by task 51',
		      'to 0xffff96c3c1407184 of 1 bytes by task 51'),
		 0, True, False),
		('a read of another word',
		 swap(bits, 'to 0xffff96c3c1407180 of 4 bytes by task 51',
		      'to 0xffff96c3c1407188 of 4 bytes by task 51'),
		 0, True, False),
		('rosebush named outside the frames', named, 0, True, True),
	]
	bad = 0
	# The recorded logs above come from the stress's first version:
	# judge them by its steps alone
	cases = [(n, l, st, k, ok, dcache_check.BASE)
		 for n, l, st, k, ok in cases]
	# A log of every step (the KASAN/lockdep kernel, the whole series)
	full = read('kunit-steps.log')
	cases += [(n, l, 0, False, ok, None) for n, l, ok in [
		('every step', full, True),
		('the failslab run failed',
		 swap(full, 'dcache: failslab exit status 0',
		      'dcache: failslab exit status 1'), False),
		('no handles step', drop(full, 'dcache: handles exit status'),
		 False),
		('a selftest failed',
		 swap(full, 'dcache: selftest resolve_test exit status 0',
		      'dcache: selftest resolve_test exit status 1'), False),
		('no selftest ran', drop(full, 'dcache: selftest '), False),
		('a reservation left at rest',
		 swap(full, 'dcache: dentry_hash: reserved 0',
		      'dcache: dentry_hash: reserved 1'), False),
		('more entries than dentries',
		 [l.replace('dcache: dentry_hash: entries ',
			    'dcache: dentry_hash: entries 1000000') for l in full],
		 False),
		('no dentry hash at rest', drop(full, 'dentry_hash: '), False),
		('a dentry not stored once under its hash',
		 swap(full, 'dcache: dentry_verify: wrong 0',
		      'dcache: dentry_verify: wrong 1'), False),
		('an entry under the hash of another name',
		 swap(full, 'dcache: dentry_verify: strays 0',
		      'dcache: dentry_verify: strays 1'), False),
		('an entry no hashed dentry accounts for',
		 [l.replace('dcache: dentry_verify: entries ',
			    'dcache: dentry_verify: entries 1') for l in full],
		 False),
		('no verifier at rest', drop(full, 'dentry_verify: '), False),
	]]
	# The KCSAN kernel, every step: races whose reader saw another
	# writer's bits change
	window = read('kcsan-window.log')
	cases += [(n, l, 0, True, ok, dcache_check.BASE) for n, l, ok in [
		('every step, KCSAN', window, True),
		('every step, KCSAN, a rosebush frame',
		 swap(window, ' d_hash_hand+0x173/0x1d0', ' rbh_use+0x173/0x1d0'),
		 False),
	]]
	# Every selftest of the list must have run and passed
	listed = ['openat2_test', 'resolve_test', 'rename_attack_test']
	cases += [(n, l, 0, False, ok, None, st) for n, l, st, ok in [
		('the listed selftests ran', full, listed, True),
		('a listed selftest did not run', full, listed + ['nosuch'],
		 False),
		('a listed selftest hung',
		 drop(full, 'dcache: selftest rename_attack_test exit status'),
		 listed, False),
	]]
	cases = [c if len(c) == 7 else c + ((),) for c in cases]
	for name, lines, status, kcsan_mode, ok, wanted, selftests in cases:
		problems, _ = dcache_check.check(lines, status, kcsan_mode,
						 wanted, selftests)
		if (not problems) != ok:
			print('dcache_check_test: %s: expected %s, got %s' %
			      (name, 'pass' if ok else 'failure', problems or 'pass'))
			bad = 1
	if not bad:
		print('dcache_check_test: %d cases passed' % len(cases))
	return bad


if __name__ == '__main__':
	sys.exit(main())
