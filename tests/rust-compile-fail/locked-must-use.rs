// expect: unused `Locked` that must be used
// A lock guard that is dropped at once locks nothing: Locked is #[must_use].
#![deny(unused_must_use)]
use kernel::rosebush::Rosebush;

pub fn case(rb: &Rosebush<u32>) {
    rb.lock(1);
}
