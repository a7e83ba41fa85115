// expect: compiles
// The harness itself: this uses the API as intended and must build, so
// that the other cases fail for their own reason and not the harness's.
use kernel::{rosebush::Rosebush, sync::rcu};

pub fn case(rb: &Rosebush<fn(&'static u8)>) -> usize {
    let guard = rcu::read_lock();
    let n = rb.lookup(1, &guard).count();
    let locked = rb.lock(1);
    drop(locked);
    n
}
