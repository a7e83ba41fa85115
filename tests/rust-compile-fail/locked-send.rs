// expect: cannot be sent between threads safely
// A bucket lock belongs to the task that took it: Locked is not Send.
use kernel::rosebush::{Locked, Rosebush};

fn assert_send<T: Send>(_: &T) {}

pub fn case(rb: &Rosebush<u32>) {
    let locked: Locked<'_, u32> = rb.lock(1);
    assert_send(&locked);
}
