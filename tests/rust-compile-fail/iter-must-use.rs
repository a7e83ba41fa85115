// expect: unused `kernel::rosebush::Iter` that must be used
// A walk that is never stepped looks nothing up: Iter is #[must_use].
#![deny(unused_must_use)]
use kernel::{rosebush::Rosebush, sync::rcu};

pub fn case(rb: &Rosebush<u32>) {
    let guard = rcu::read_lock();
    rb.lookup(1, &guard);
}
