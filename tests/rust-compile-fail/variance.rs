// expect: one type is more general than the other
// Rosebush<T> must be invariant in T: were it
// covariant, a value inserted through the widened view below could turn a
// local borrow into a 'static one.
use kernel::rosebush::Rosebush;

pub fn case<'a>(rb: &'a Rosebush<for<'b> fn(&'b u8)>) -> &'a Rosebush<fn(&'static u8)> {
    rb
}
