// expect: `guard` does not live long enough
// A value found by a lookup is lent for the life of the RCU guard.
use kernel::{rosebush::Rosebush, sync::rcu};

pub fn case(rb: &Rosebush<u32>) -> u32 {
    let v;
    {
        let guard = rcu::read_lock();
        v = rb.lookup(1, &guard).next().unwrap();
    }
    *v
}
