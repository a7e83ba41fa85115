// SPDX-License-Identifier: GPL-2.0

//! Rust rosebush sample: a [`Map`] from names to values.
//!
//! On load it stores `entries` names (`insmod rust_rosebush.ko entries=N`, 1000 by default),
//! looks each of them up under RCU along with as many names it never stored, replaces some
//! values, removes every other name, and prints what it found and the shape of the rosebush. The
//! rest is freed on unload.

use core::fmt::{self, Write};
use kernel::{bindings, c_str, ffi::c_uint, prelude::*, rosebush::Map, sync::rcu};

module! {
    type: RustRosebush,
    name: "rust_rosebush",
    author: "Rosebush developers",
    description: "Rust rosebush sample",
    license: "GPL",
}

/// The `entries` module parameter.
///
/// The `module!` macro of this kernel has no parameters, so the parameter is declared as C's
/// `module_param(entries, uint, 0)` does: a `struct kernel_param` in the `__param` section, which
/// the module loader finds and parses before `init` runs.
static mut ENTRIES: c_uint = 1000;

/// A `struct kernel_param` for the `__param` section.
#[repr(transparent)]
struct Param(bindings::kernel_param);

// SAFETY: the parameter is only written by the module loader, before `init` runs and before any
// other code of the module can read it; it has no sysfs file (`perm` is 0).
unsafe impl Sync for Param {}

#[link_section = "__param"]
#[used]
static ENTRIES_PARAM: Param = Param(bindings::kernel_param {
    // A built-in module's parameters are named after it.
    #[cfg(MODULE)]
    name: c_str!("entries").as_char_ptr(),
    #[cfg(not(MODULE))]
    name: c_str!("rust_rosebush.entries").as_char_ptr(),
    // Used only for the parameter's lock, which is global when this is null.
    mod_: core::ptr::null_mut(),
    ops: core::ptr::addr_of!(bindings::param_ops_uint),
    perm: 0,
    level: -1,
    flags: 0,
    __bindgen_anon_1: bindings::kernel_param__bindgen_ty_1 {
        arg: core::ptr::addr_of_mut!(ENTRIES).cast(),
    },
});

fn entries() -> u32 {
    // SAFETY: `ENTRIES` is written only by the module loader, before `init` (see `Param`).
    unsafe { core::ptr::addr_of!(ENTRIES).read() }
}

/// A name of up to 24 bytes, made without allocating so that it can be made under RCU.
#[derive(PartialEq, Eq, Hash)]
struct Name {
    len: usize,
    bytes: [u8; 24],
}

impl Name {
    fn new(kind: &str, i: u32) -> Self {
        let mut name = Name {
            len: 0,
            bytes: [0; 24],
        };
        // Cannot fail: "absent-4294967295" fits.
        let _ = write!(name, "{kind}-{i}");
        name
    }
}

impl Write for Name {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

struct RustRosebush {
    map: Pin<KBox<Map<Name, u64>>>,
}

impl kernel::Module for RustRosebush {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let n = entries();
        let map = KBox::pin_init(Map::new(), GFP_KERNEL)?;

        for i in 0..n {
            map.insert(Name::new("entry", i), u64::from(i) * 3)?;
        }
        pr_info!("inserted {} entries, map holds {}\n", n, map.len());

        let (mut found, mut absent_found) = (0, 0);
        {
            let guard = rcu::read_lock();
            for i in 0..n {
                if map.get(&Name::new("entry", i), &guard) == Some(&(u64::from(i) * 3)) {
                    found += 1;
                }
                if map.get(&Name::new("absent", i), &guard).is_some() {
                    absent_found += 1;
                }
            }
        }
        pr_info!("looked up {found} of {n} entries, {absent_found} of {n} absent names\n");

        let mut replaced = 0;
        for i in (0..n).step_by(10) {
            if map.insert(Name::new("entry", i), u64::from(i) * 5)? == Some(u64::from(i) * 3) {
                replaced += 1;
            }
        }
        let mut removed = 0;
        for i in (0..n).step_by(2) {
            if map.remove(&Name::new("entry", i)).is_some() {
                removed += 1;
            }
        }
        pr_info!(
            "replaced {replaced} values, removed {removed} entries, map holds {}\n",
            map.len()
        );

        let stats = map.stats();
        pr_info!(
            "rosebush: {} entries, {} + {} buckets, {} table slots, {} bytes ({} per entry)\n",
            stats.entries,
            stats.buckets,
            stats.overflow_buckets,
            stats.table_slots,
            stats.bytes,
            stats.bytes / stats.entries.max(1)
        );
        pr_info!(
            "rosebush: {} grows, {} shrinks, {} splits, {} merges\n",
            stats.grows,
            stats.shrinks,
            stats.splits,
            stats.merges
        );
        Ok(RustRosebush { map })
    }
}

impl Drop for RustRosebush {
    fn drop(&mut self) {
        pr_info!("unloading: freeing {} entries\n", self.map.len());
    }
}
