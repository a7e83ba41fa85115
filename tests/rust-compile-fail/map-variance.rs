// expect: one type is more general than the other
// Map<K, V> must be invariant in V, as Rosebush<T> is in T.
use kernel::rosebush::Map;

pub fn case<'a>(map: &'a Map<u32, for<'b> fn(&'b u8)>) -> &'a Map<u32, fn(&'static u8)> {
    map
}
