// expect: cannot borrow `locked` as mutable more than once at a time
// A value lent by Locked::next_value() is borrowed from the Locked, so it
// cannot be used after remove_current() (which may drop it).
use kernel::rosebush::Rosebush;

pub fn case(rb: &Rosebush<u32>) -> u32 {
    let mut locked = rb.lock(1);
    let v = locked.next_value().unwrap();
    locked.remove_current();
    *v
}
