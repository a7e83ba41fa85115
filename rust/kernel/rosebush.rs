// SPDX-License-Identifier: GPL-2.0

//! Rosebush, a resizable hash table read under RCU.
//!
//! [`Rosebush`] stores owned values ([`ForeignOwnable`], such as [`KBox`] and
//! [`Arc`](crate::sync::Arc)) under 32-bit hashes the caller computes. Readers walk a hash under
//! an [`rcu::Guard`] without taking any lock; writers lock only the bucket they change.
//! [`Map`] builds a keyed map on top of it for types that implement [`Hash`] and [`Eq`].
//!
//! C header: [`include/linux/rosebush.h`](srctree/include/linux/rosebush.h)
//!
//! Documentation: [`rosebush.rst`](srctree/Documentation/core-api/rosebush.rst)
//!
//! # Values that readers may still be borrowing
//!
//! A reader that found a value keeps a reference to it until its [`rcu::Guard`] is dropped, even
//! if the value is removed meanwhile. So the value is handed back to whoever removes it, and may
//! be dropped, only after an RCU grace period: [`Locked::remove`] and [`Map::remove`] call
//! `synchronize_rcu()` after taking the value out and before returning it. That makes removal
//! sleep, typically for milliseconds; [`Rosebush`]'s own [`Drop`] needs no grace period, since
//! no reader can borrow from it any more.
//!
//! Here a reader on a workqueue borrows values while this task replaces and removes them; under
//! KASAN, a value freed too early is reported as a use after free.
//!
//! ```
//! use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
//! use kernel::{
//!     new_condvar, new_mutex,
//!     rosebush::Map,
//!     sync::{rcu, Arc, CondVar, Mutex},
//!     workqueue,
//! };
//!
//! #[pin_data]
//! struct Shared {
//!     #[pin]
//!     map: Map<u32, [u64; 8]>,
//!     stop: AtomicBool,
//!     seen: AtomicUsize,
//!     torn: AtomicUsize,
//!     // The reader's state: 0 before it starts, 1 running, 2 done.
//!     #[pin]
//!     state: Mutex<u32>,
//!     #[pin]
//!     changed: CondVar,
//! }
//!
//! impl Shared {
//!     fn set_state(&self, state: u32) {
//!         *self.state.lock() = state;
//!         self.changed.notify_all();
//!     }
//!
//!     fn wait_state(&self, state: u32) {
//!         let mut guard = self.state.lock();
//!         while *guard < state {
//!             self.changed.wait(&mut guard);
//!         }
//!     }
//! }
//!
//! let shared = Arc::pin_init(
//!     pin_init!(Shared {
//!         map <- Map::new(),
//!         stop: AtomicBool::new(false),
//!         seen: AtomicUsize::new(0),
//!         torn: AtomicUsize::new(0),
//!         state <- new_mutex!(0),
//!         changed <- new_condvar!(),
//!     }),
//!     GFP_KERNEL,
//! )?;
//! for key in 0..8 {
//!     shared.map.insert(key, [0; 8])?;
//! }
//!
//! let reader = shared.clone();
//! workqueue::system().try_spawn(GFP_KERNEL, move || {
//!     reader.set_state(1);
//!     while !reader.stop.load(Ordering::Acquire) {
//!         let guard = rcu::read_lock();
//!         for key in 0..8 {
//!             if let Some(words) = reader.map.get(&key, &guard) {
//!                 // Hold the borrow for a while. The words of a value stay equal, unless it
//!                 // is freed (which KASAN reports) and reused.
//!                 for _ in 0..100 {
//!                     if words.iter().any(|w| *w != words[0]) {
//!                         reader.torn.fetch_add(1, Ordering::Relaxed);
//!                     }
//!                 }
//!                 reader.seen.fetch_add(1, Ordering::Relaxed);
//!             }
//!         }
//!         drop(guard);
//!         // Without preemption, this loop would keep the grace-period kthread off its CPU.
//!         // SAFETY: called outside any lock and RCU read-side critical section.
//!         unsafe { kernel::bindings::__cond_resched() };
//!     }
//!     reader.set_state(2);
//! })?;
//!
//! // Replace and remove values while the reader borrows them, at least 100 times each.
//! shared.wait_state(1);
//! let mut round = 0u64;
//! while (round < 100 || shared.seen.load(Ordering::Relaxed) < 1000) && round < 100_000 {
//!     round += 1;
//!     for key in 0..8 {
//!         // Replacing a value drops the old one, after a grace period.
//!         shared.map.insert(key, [round; 8])?;
//!     }
//!     shared.map.remove(&((round % 8) as u32));
//! }
//! shared.stop.store(true, Ordering::Release);
//! shared.wait_state(2);
//!
//! assert!(shared.seen.load(Ordering::Relaxed) > 0);
//! assert_eq!(shared.torn.load(Ordering::Relaxed), 0);
//! pr_info!(
//!     "rosebush: a reader borrowed {} values during {} rounds of replacements\n",
//!     shared.seen.load(Ordering::Relaxed),
//!     round
//! );
//! # Ok::<(), Error>(())
//! ```

use crate::{
    bindings,
    ffi::c_void,
    new_mutex,
    prelude::*,
    sync::{rcu, Mutex},
    types::{ForeignOwnable, Opaque},
};
use core::{
    borrow::Borrow,
    hash::{Hash, Hasher},
    marker::PhantomData,
    mem::ManuallyDrop,
    ptr,
    sync::atomic::{AtomicUsize, Ordering},
};

/// A hash table of owned values, each stored under a 32-bit hash.
///
/// Several values may be stored under the same hash, and a walk of a hash may also return values
/// stored under other hashes: callers check that a value is the one they want, as they would
/// after comparing hashes in any hash table.
///
/// Lookups ([`Rosebush::lookup`]) take no lock: they borrow values for as long as an
/// [`rcu::Guard`] lives. Insertions and reservations may sleep to allocate memory. Removal goes
/// through [`Rosebush::lock`], which locks the bucket of one hash; see the [module
/// documentation](self) for why removal waits for a grace period.
///
/// # Invariants
///
/// - `rbh` was initialised by `rbh_init()` and is pinned.
/// - Every pointer stored in `rbh` (reservations aside) was returned by `T::into_foreign` and has
///   not been passed to `T::from_foreign`.
/// - A pointer is passed to `T::from_foreign` only after it was removed from `rbh` and an RCU
///   grace period elapsed, or when no reference to the rosebush remains.
///
/// # Examples
///
/// ```
/// use kernel::{rosebush::Rosebush, sync::rcu};
///
/// let rb = KBox::pin_init(Rosebush::<KBox<u64>>::new(), GFP_KERNEL)?;
/// rb.insert(7, KBox::new(42, GFP_KERNEL)?)?;
/// rb.insert(7, KBox::new(43, GFP_KERNEL)?)?;
/// rb.insert(8, KBox::new(44, GFP_KERNEL)?)?;
///
/// let guard = rcu::read_lock();
/// // The walk of hash 7 may return 44 too: values are checked.
/// let sum: u64 = rb.lookup(7, &guard).copied().filter(|v| *v != 44).sum();
/// assert_eq!(sum, 42 + 43);
/// drop(guard);
///
/// // Take 43 back out: the bucket of hash 7 is locked while its values are examined.
/// let mut locked = rb.lock(7);
/// while let Some(v) = locked.next_value() {
///     if *v == 43 {
///         break;
///     }
/// }
/// let value = locked.remove().expect("43 was stored");
/// assert_eq!(*value, 43);
/// assert_eq!(rb.stats().entries, 2);
/// # Ok::<(), Error>(())
/// ```
#[pin_data(PinnedDrop)]
pub struct Rosebush<T: ForeignOwnable> {
    #[pin]
    rbh: Opaque<bindings::rbh>,
    _values: PhantomData<T>,
}

// SAFETY: moving a `Rosebush` to another task moves the values it owns, which are dropped there:
// that needs `T: Send`. The C structure itself may be used and freed from any task.
unsafe impl<T: ForeignOwnable + Send> Send for Rosebush<T> {}

// SAFETY: through a shared reference, tasks insert values (moving them in: `T: Send`), take them
// out (`T: Send`), and borrow them at the same time as other tasks (`T: Sync`). The C functions
// synchronise concurrent callers with their bucket locks and RCU.
unsafe impl<T: ForeignOwnable + Send + Sync> Sync for Rosebush<T> {}

/// The error of [`Rosebush::insert`], which hands the value back.
pub struct InsertError<T> {
    /// The value that was not stored.
    pub value: T,
    /// Why: `ENOMEM` if memory could not be allocated, `EINVAL` if the value's foreign
    /// representation is a null pointer, which a rosebush cannot store.
    pub error: Error,
}

impl<T> From<InsertError<T>> for Error {
    fn from(err: InsertError<T>) -> Self {
        err.error
    }
}

impl<T: ForeignOwnable> Rosebush<T> {
    /// Creates an empty rosebush, which allocates no memory until the first value is stored.
    pub fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `rbh_init()` initialises every field of the `struct rbh` at `slot`, which
            // is valid for writes and, being in a pinned `Opaque`, will not move.
            rbh <- Opaque::ffi_init(|slot: *mut bindings::rbh| unsafe { bindings::rbh_init(slot) }),
            _values: PhantomData,
        })
    }

    fn as_ptr(&self) -> *mut bindings::rbh {
        self.rbh.get()
    }

    /// Stores `value` under `hash`, allocating memory with `GFP_KERNEL` if needed.
    ///
    /// Lookups that begin after this returns find the value.
    ///
    /// # Errors
    ///
    /// On failure the value is handed back with the error (see [`InsertError`]); nothing is
    /// stored.
    ///
    /// # Context
    ///
    /// Process context; may sleep. Must not be called while this task holds a [`Locked`] of any
    /// rosebush.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::rosebush::Rosebush;
    ///
    /// let rb = KBox::pin_init(Rosebush::<KBox<u64>>::new(), GFP_KERNEL)?;
    /// if let Err(err) = rb.insert(1, KBox::new(10, GFP_KERNEL)?) {
    ///     // The value is ours again: keep it, or let it go.
    ///     pr_warn!("value {} not stored\n", *err.value);
    ///     return Err(err.error);
    /// }
    /// assert_eq!(rb.stats().entries, 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn insert(&self, hash: u32, value: T) -> Result<(), InsertError<T>> {
        let p = value.into_foreign();
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant). Storing `p`
        // keeps the invariant: it comes from `into_foreign`.
        let ret = unsafe { bindings::rbh_insert(self.as_ptr(), hash, p.cast_mut()) };
        if ret == 0 {
            return Ok(());
        }
        // SAFETY: `p` comes from `into_foreign` above and, as `rbh_insert()` failed, was not
        // stored: nobody else has seen it.
        let value = unsafe { T::from_foreign(p) };
        Err(InsertError {
            value,
            error: Error::from_errno(ret),
        })
    }

    /// Allocates a slot under `hash`, to be filled later without failing.
    ///
    /// The slot is filled by [`Reservation::fill`], or released when the [`Reservation`] is
    /// dropped. Lookups skip it until it is filled.
    ///
    /// # Errors
    ///
    /// `ENOMEM` if memory could not be allocated; nothing is then reserved.
    ///
    /// # Context
    ///
    /// Process context; may sleep. Must not be called while this task holds a [`Locked`].
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{rosebush::Rosebush, sync::rcu};
    ///
    /// let rb = KBox::pin_init(Rosebush::<KBox<u32>>::new(), GFP_KERNEL)?;
    /// let slot = rb.reserve(5)?;
    /// // Later, perhaps where allocating would be awkward:
    /// slot.fill(KBox::new(5, GFP_KERNEL)?);
    /// assert_eq!(rb.lookup(5, &rcu::read_lock()).count(), 1);
    ///
    /// // A reservation that is not filled is released.
    /// drop(rb.reserve(6)?);
    /// assert_eq!(rb.stats().reserved, 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn reserve(&self, hash: u32) -> Result<Reservation<'_, T>> {
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant).
        let ret = unsafe { bindings::rbh_reserve(self.as_ptr(), hash) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // INVARIANT: a slot was just reserved under `hash`.
        Ok(Reservation { rb: self, hash })
    }

    /// Walks the values stored under `hash`, for as long as `guard` lives.
    ///
    /// Every value stored under `hash` before the walk began and not removed before it ended is
    /// returned, even while the table is resized. Values stored under other hashes, values
    /// removed during the walk, and a value twice may be returned as well: check that a value is
    /// the one wanted.
    ///
    /// # Context
    ///
    /// Any context that may hold the RCU read lock; does not sleep.
    ///
    /// # Examples
    ///
    /// Values that know their own key, shared with [`Arc`](crate::sync::Arc):
    ///
    /// ```
    /// use kernel::{rosebush::Rosebush, sync::{rcu, Arc}};
    ///
    /// struct Object {
    ///     key: u64,
    ///     name: &'static str,
    /// }
    ///
    /// let rb = KBox::pin_init(Rosebush::<Arc<Object>>::new(), GFP_KERNEL)?;
    /// for (key, name) in [(3, "three"), (35, "thirty-five")] {
    ///     // A poor hash, to make the two share one.
    ///     rb.insert((key % 32) as u32, Arc::new(Object { key, name }, GFP_KERNEL)?)?;
    /// }
    ///
    /// let guard = rcu::read_lock();
    /// let found = rb.lookup(3, &guard).find(|obj| obj.key == 35);
    /// assert_eq!(found.map(|obj| obj.name), Some("thirty-five"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn lookup<'a>(&'a self, hash: u32, guard: &'a rcu::Guard) -> Iter<'a, T> {
        // INVARIANT: the iterator is for this rosebush, which `'a` borrows, and the RCU read
        // lock is held for `'a` by `guard`.
        Iter {
            iter: new_iter(self.as_ptr(), hash),
            _borrows: PhantomData,
            _guard: guard,
        }
    }

    /// Locks the bucket that holds `hash`, to examine its values and remove one.
    ///
    /// While the returned [`Locked`] lives, nothing is stored under `hash` or removed from it by
    /// anybody else, and [`Locked::next_value`] returns exactly the values stored under it (and
    /// maybe some stored under other hashes).
    ///
    /// # Context
    ///
    /// Takes the RCU read lock and a spinlock, which the [`Locked`] holds: until it is dropped,
    /// the task must not sleep or call any other rosebush method (it may need the same lock).
    ///
    /// # Examples
    ///
    /// Removing every odd value stored under a hash, one at a time:
    ///
    /// ```
    /// use kernel::rosebush::Rosebush;
    ///
    /// let rb = KBox::pin_init(Rosebush::<KBox<u32>>::new(), GFP_KERNEL)?;
    /// for v in 0..6 {
    ///     rb.insert(9, KBox::new(v, GFP_KERNEL)?)?;
    /// }
    /// let mut removed = 0;
    /// loop {
    ///     let mut locked = rb.lock(9);
    ///     while let Some(v) = locked.next_value() {
    ///         if *v % 2 == 1 {
    ///             break;
    ///         }
    ///     }
    ///     // `None` once no odd value is left: the bucket is unlocked either way.
    ///     match locked.remove() {
    ///         Some(v) => removed += *v,
    ///         None => break,
    ///     }
    /// }
    /// assert_eq!(removed, 1 + 3 + 5);
    /// assert_eq!(rb.stats().entries, 3);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn lock(&self, hash: u32) -> Locked<'_, T> {
        let mut iter = new_iter(self.as_ptr(), hash);
        // SAFETY: `iter` is a fresh iterator of this initialised rosebush; the lock is released
        // by `Locked`'s `Drop` or `remove`, in this task since `Locked` is not `Send`.
        unsafe { bindings::rbh_iter_lock(&mut iter) };
        // INVARIANT: `iter` is locked just above (the bucket of `hash`, or the resize lock of a
        // rosebush with no table yet).
        Locked {
            _rb: PhantomData,
            iter,
            current: ptr::null_mut(),
        }
    }

    /// Returns `true` if nothing is stored or reserved.
    ///
    /// # Context
    ///
    /// Any context.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::rosebush::Rosebush;
    ///
    /// let rb = KBox::pin_init(Rosebush::<KBox<u8>>::new(), GFP_KERNEL)?;
    /// assert!(rb.is_empty());
    /// let slot = rb.reserve(1)?;
    /// assert!(!rb.is_empty());
    /// drop(slot);
    /// assert!(rb.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant).
        unsafe { bindings::rbh_empty(self.as_ptr()) }
    }

    /// Describes the shape of the rosebush: entries, buckets, memory, resizes.
    ///
    /// If the rosebush is being changed, the snapshot may be inconsistent. It takes time
    /// proportional to the size of the rosebush.
    ///
    /// # Context
    ///
    /// Process context; takes the RCU read lock.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::rosebush::Rosebush;
    ///
    /// let rb = KBox::pin_init(Rosebush::<KBox<u32>>::new(), GFP_KERNEL)?;
    /// for i in 0..1000u32 {
    ///     rb.insert(i.wrapping_mul(0x9e37_79b9), KBox::new(i, GFP_KERNEL)?)?;
    /// }
    /// let stats = rb.stats();
    /// assert_eq!(stats.entries, 1000);
    /// assert!(stats.table_slots.is_power_of_two());
    /// assert_eq!(stats.occupancy.iter().sum::<usize>(), stats.buckets);
    /// assert!(stats.spilled < stats.entries);
    /// pr_info!("{} buckets, {} bytes for 1000 entries\n", stats.buckets, stats.bytes);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn stats(&self) -> Stats {
        let mut raw = bindings::rbh_stats::default();
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant) and `raw` is valid
        // for writes.
        unsafe { bindings::rbh_stats(self.as_ptr(), &mut raw) };
        let capacity = raw.bucket_capacity as usize;
        let mut occupancy = [0usize; MAX_BUCKET_ENTRIES + 1];
        for (n, count) in raw.occupancy.iter().enumerate().take(capacity + 1) {
            occupancy[n] = *count;
        }
        Stats {
            entries: raw.entries,
            reserved: raw.reserved,
            buckets: raw.buckets,
            overflow_buckets: raw.overflow_buckets,
            table_slots: raw.table_slots,
            bytes: raw.bytes,
            bucket_capacity: capacity,
            occupancy,
            spilled: raw.spilled,
            grows: raw.grows,
            shrinks: raw.shrinks,
            splits: raw.splits,
            contention_splits: raw.contention_splits,
            merges: raw.merges,
        }
    }
}

/// An iterator over one hash of a rosebush: `RBH_ITER()`.
fn new_iter(rbh: *mut bindings::rbh, hash: u32) -> bindings::rbh_iter {
    bindings::rbh_iter {
        rbh,
        hash,
        ..Default::default()
    }
}

#[pinned_drop]
impl<T: ForeignOwnable> PinnedDrop for Rosebush<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant), which nobody else
        // uses any more: lookups, reservations and locks all borrow `self`. `free_value::<T>`
        // is called once for each pointer stored, without locks held.
        unsafe {
            bindings::rbh_free_and_destroy(self.as_ptr(), Some(free_value::<T>), ptr::null_mut())
        };
    }
}

/// The `free_fn` of `rbh_free_and_destroy()`: drops one value.
///
/// # Safety
///
/// `p` must have been stored in a rosebush of `T` whose every other user is gone, and be passed
/// here once.
unsafe extern "C" fn free_value<T: ForeignOwnable>(p: *mut c_void, _arg: *mut c_void) {
    // SAFETY: by the type invariants of `Rosebush`, `p` comes from `T::into_foreign` and was not
    // converted back; nobody borrows it, as the rosebush is being destroyed.
    drop(unsafe { T::from_foreign(p) });
}

/// The largest number of entries one bucket holds, on any configuration.
pub const MAX_BUCKET_ENTRIES: usize = bindings::RBH_MAX_ENTRIES as usize;

/// A snapshot of a rosebush's shape, from [`Rosebush::stats`].
#[derive(Clone, Debug)]
pub struct Stats {
    /// Values stored (reserved slots excluded).
    pub entries: usize,
    /// Slots reserved and not yet filled or released.
    pub reserved: usize,
    /// Primary buckets, which the table points at.
    pub buckets: usize,
    /// Buckets chained from a primary bucket that could not be split.
    pub overflow_buckets: usize,
    /// Slots in the top-level table: a power of two, or 0.
    pub table_slots: usize,
    /// Memory held by the rosebush: the table and every bucket.
    pub bytes: usize,
    /// Entries one bucket holds on this configuration.
    pub bucket_capacity: usize,
    /// `occupancy[n]` primary buckets hold `n` entries or reservations, for `n` up to
    /// `bucket_capacity`.
    pub occupancy: [usize; MAX_BUCKET_ENTRIES + 1],
    /// Entries and reservations in primary buckets outside their home group, which a lookup
    /// finds in a second cache line.
    pub spilled: usize,
    /// Times the table doubled.
    pub grows: usize,
    /// Times the table halved.
    pub shrinks: usize,
    /// Buckets split because they were full.
    pub splits: usize,
    /// Buckets split because their lock was contended.
    pub contention_splits: usize,
    /// Pairs of buddy buckets merged into one.
    pub merges: usize,
}

/// A slot reserved by [`Rosebush::reserve`], released when dropped unless filled.
///
/// # Invariants
///
/// A slot is reserved in `rb` under `hash`, and this reservation is the only user of it.
pub struct Reservation<'a, T: ForeignOwnable> {
    rb: &'a Rosebush<T>,
    hash: u32,
}

impl<T: ForeignOwnable> Reservation<'_, T> {
    /// Stores `value` in the reserved slot, which cannot fail.
    ///
    /// A value whose foreign representation is a null pointer cannot be stored: it is dropped
    /// and the slot released. No [`ForeignOwnable`] type of the kernel crate has such values.
    ///
    /// # Context
    ///
    /// Does not sleep (unless `value` is dropped, as above). Must not be called while this task
    /// holds a [`Locked`].
    pub fn fill(self, value: T) {
        let this = ManuallyDrop::new(self);
        let p = value.into_foreign();
        // SAFETY: `this.rb` is an initialised rosebush; by the type invariants a slot is reserved
        // under `this.hash` for this reservation, which is consumed here. Storing `p` keeps the
        // rosebush's invariant: it comes from `into_foreign`.
        let ret = unsafe { bindings::rbh_use(this.rb.as_ptr(), this.hash, p.cast_mut()) };
        if ret != 0 {
            // Only a null `p` is refused: the slot is still reserved.
            // SAFETY: `p` comes from `into_foreign` above and was not stored.
            drop(unsafe { T::from_foreign(p) });
            release(this.rb, this.hash);
        }
    }
}

impl<T: ForeignOwnable> Drop for Reservation<'_, T> {
    fn drop(&mut self) {
        release(self.rb, self.hash);
    }
}

/// Releases a slot reserved under `hash`: `rbh_release()`.
fn release<T: ForeignOwnable>(rb: &Rosebush<T>, hash: u32) {
    // SAFETY: `rb` is an initialised rosebush; a null pointer asks `rbh_remove()` to release one
    // reservation under `hash`, which the caller owns.
    let ret = unsafe { bindings::rbh_remove(rb.as_ptr(), hash, ptr::null_mut()) };
    debug_assert_eq!(ret, 0);
}

/// The values stored under one hash, borrowed under an RCU read lock: [`Rosebush::lookup`].
///
/// # Invariants
///
/// `iter` is an iterator of a rosebush of `T` that `'a` borrows, and the RCU read lock is held
/// for `'a`.
pub struct Iter<'a, T: ForeignOwnable> {
    iter: bindings::rbh_iter,
    _borrows: PhantomData<&'a Rosebush<T>>,
    _guard: &'a rcu::Guard,
}

impl<'a, T: ForeignOwnable> Iterator for Iter<'a, T> {
    type Item = T::Borrowed<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        // SAFETY: by the type invariants the rosebush outlives `self` and the RCU read lock is
        // held.
        let p = unsafe { bindings::rbh_next(&mut self.iter) };
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` was stored in the rosebush while this task held the RCU read lock, so it
        // comes from `T::into_foreign`, and `T::from_foreign` will not be called on it until a
        // grace period after it is removed, which is after the read lock of `'a` ends (type
        // invariants of `Rosebush`). The borrow lasts no longer than `'a`.
        Some(unsafe { T::borrow(p) })
    }
}

/// The bucket of one hash, locked by [`Rosebush::lock`].
///
/// # Invariants
///
/// `iter` is an iterator of the rosebush `'a` borrows, locked with `rbh_iter_lock()` by this
/// task. `current` is null or the pointer `rbh_next()` last returned through `iter`.
pub struct Locked<'a, T: ForeignOwnable> {
    _rb: PhantomData<&'a Rosebush<T>>,
    iter: bindings::rbh_iter,
    current: *mut c_void,
}

impl<T: ForeignOwnable> Locked<'_, T> {
    /// Returns the next value stored under the locked hash (or under another hash in the same
    /// bucket), or `None` at the end.
    pub fn next_value(&mut self) -> Option<T::Borrowed<'_>> {
        // SAFETY: `self.iter` is locked (type invariants).
        let p = unsafe { bindings::rbh_next(&mut self.iter) };
        // INVARIANT: `current` is what `rbh_next()` returned.
        self.current = p;
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` is stored in the rosebush, so it comes from `T::into_foreign` and was not
        // converted back; while the bucket is locked nobody else can remove it, and the borrow
        // ends before `self` is used again.
        Some(unsafe { T::borrow(p) })
    }

    /// Removes the value [`Locked::next_value`] returned last, unlocks the bucket, and hands the
    /// value back once no RCU reader can still be using it.
    ///
    /// Returns `None`, having only unlocked, if `next_value` was not called or returned `None`,
    /// or if the rosebush refused the removal (which would be a bug, and warns): the value then
    /// stays in the rosebush.
    ///
    /// # Context
    ///
    /// Process context: waits for an RCU grace period (`synchronize_rcu()`), after the bucket is
    /// unlocked.
    pub fn remove(self) -> Option<T> {
        let mut this = ManuallyDrop::new(self);
        let p = this.current;
        // SAFETY: `p`, which is not null here, is what `rbh_next()` last returned through the
        // locked `this.iter`.
        let removed = !p.is_null() && unsafe { bindings::rbh_iter_remove(&mut this.iter, p) };
        // SAFETY: `this.iter` is locked by this task (type invariants); `this` is not dropped,
        // so it is unlocked only here.
        unsafe { bindings::rbh_iter_unlock(&mut this.iter) };
        if !removed {
            return None;
        }
        // Readers that found `p` before it was removed may still be using it.
        // SAFETY: called without locks held, in process context.
        unsafe { bindings::synchronize_rcu() };
        // SAFETY: `p` was stored, so it comes from `T::into_foreign`; it is no longer stored, and
        // every RCU reader that could have borrowed it has finished.
        Some(unsafe { T::from_foreign(p) })
    }
}

impl<T: ForeignOwnable> Drop for Locked<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `self.iter` is locked by this task (type invariants).
        unsafe { bindings::rbh_iter_unlock(&mut self.iter) };
    }
}

/// A map from keys to values, on a [`Rosebush`] hashed with SipHash under a random key.
///
/// Each map draws its own SipHash key, so the hashes of its keys cannot be predicted and nobody
/// can make many keys share a hash. Collisions are resolved inside: callers never see hashes.
///
/// Lookups ([`Map::get`]) take no lock and borrow under an [`rcu::Guard`]; insertions and
/// removals are serialised by a mutex of the map, and removal waits for an RCU grace period
/// (see the [module documentation](self)). `K`'s [`Hash`] and [`Eq`] must not sleep: they also
/// run under a bucket's spinlock.
///
/// # Examples
///
/// ```
/// use kernel::{rosebush::Map, sync::rcu};
///
/// let map = KBox::pin_init(Map::<u32, u64>::new(), GFP_KERNEL)?;
/// for i in 0..100 {
///     assert_eq!(map.insert(i, u64::from(i) * 10)?, None);
/// }
/// assert_eq!(map.insert(5, 55)?, Some(50));
/// assert_eq!(map.len(), 100);
///
/// {
///     let guard = rcu::read_lock();
///     assert_eq!(map.get(&5, &guard), Some(&55));
///     assert_eq!(map.get(&100, &guard), None);
/// }
///
/// assert_eq!(map.remove(&7), Some(70));
/// assert_eq!(map.remove(&7), None);
/// assert_eq!(map.len(), 99);
/// # Ok::<(), Error>(())
/// ```
#[pin_data]
pub struct Map<K: 'static, V: 'static> {
    #[pin]
    table: Rosebush<KBox<MapEntry<K, V>>>,
    #[pin]
    writer: Mutex<()>,
    len: AtomicUsize,
    key: bindings::siphash_key_t,
}

struct MapEntry<K, V> {
    key: K,
    value: V,
}

impl<K: Hash + Eq + 'static, V: 'static> Map<K, V> {
    /// Creates an empty map with a random SipHash key.
    pub fn new() -> impl PinInit<Self> {
        let mut key = bindings::siphash_key_t { key: [0; 2] };
        // SAFETY: `key` is valid for writes of its size.
        unsafe {
            bindings::get_random_bytes(ptr::addr_of_mut!(key).cast(), core::mem::size_of_val(&key))
        };
        pin_init!(Self {
            table <- Rosebush::new(),
            writer <- new_mutex!(()),
            len: AtomicUsize::new(0),
            key,
        })
    }

    fn hash<Q: Hash + ?Sized>(&self, key: &Q) -> u32 {
        let mut hasher = SipHasher::new(&self.key);
        key.hash(&mut hasher);
        let h = hasher.finish();
        (h ^ (h >> 32)) as u32
    }

    /// Returns the value of `key`, borrowed for as long as `guard` lives.
    ///
    /// # Context
    ///
    /// Any context that may hold the RCU read lock; does not sleep.
    ///
    /// # Examples
    ///
    /// Keys may be looked up through what they borrow as, like `&str` for `&'static str`:
    ///
    /// ```
    /// use kernel::{rosebush::Map, sync::rcu};
    ///
    /// let map = KBox::pin_init(Map::<&'static str, u32>::new(), GFP_KERNEL)?;
    /// map.insert("one", 1)?;
    /// let guard = rcu::read_lock();
    /// assert_eq!(map.get("one", &guard), Some(&1));
    /// assert_eq!(map.get("two", &guard), None);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn get<'a, Q>(&'a self, key: &Q, guard: &'a rcu::Guard) -> Option<&'a V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.table
            .lookup(self.hash(key), guard)
            .find(|entry| entry.key.borrow() == key)
            .map(|entry| &entry.value)
    }

    /// Sets the value of `key`, returning the value it replaces, if any.
    ///
    /// Lookups find one value or the other while the old one is replaced.
    ///
    /// # Errors
    ///
    /// `ENOMEM` if memory could not be allocated; `key` and `value` are then dropped and the
    /// map is unchanged.
    ///
    /// # Context
    ///
    /// Process context; may sleep (for an RCU grace period if a value is replaced).
    pub fn insert(&self, key: K, value: V) -> Result<Option<V>> {
        let hash = self.hash(&key);
        let entry = KBox::new(MapEntry { key, value }, GFP_KERNEL)?;
        let _writer = self.writer.lock();
        let old = {
            let guard = rcu::read_lock();
            self.table
                .lookup(hash, &guard)
                .find(|e| e.key == entry.key)
                .map(ptr::from_ref)
        };
        self.table.insert(hash, entry)?;
        match old {
            // Only writers remove entries, and this one holds the mutex: `old` is still stored.
            Some(old) => Ok(self
                .take(hash, |e| ptr::eq(e, old))
                .map(|e| KBox::into_inner(e).value)),
            None => {
                self.len.fetch_add(1, Ordering::Relaxed);
                Ok(None)
            }
        }
    }

    /// Removes `key` and returns its value, if it had one.
    ///
    /// # Context
    ///
    /// Process context; may sleep, for an RCU grace period if a value is removed.
    pub fn remove<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let _writer = self.writer.lock();
        let entry = self.take(self.hash(key), |e| e.key.borrow() == key)?;
        self.len.fetch_sub(1, Ordering::Relaxed);
        Some(KBox::into_inner(entry).value)
    }

    /// Removes the first entry under `hash` that `matches`; the caller holds `writer`.
    fn take(
        &self,
        hash: u32,
        matches: impl Fn(&MapEntry<K, V>) -> bool,
    ) -> Option<KBox<MapEntry<K, V>>> {
        let mut locked = self.table.lock(hash);
        while let Some(entry) = locked.next_value() {
            if matches(entry) {
                return locked.remove();
            }
        }
        None
    }

    /// Returns the number of keys in the map.
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Returns `true` if the map holds no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Describes the shape of the underlying rosebush: see [`Rosebush::stats`].
    pub fn stats(&self) -> Stats {
        self.table.stats()
    }
}

/// SipHash-2-4 (the kernel's `siphash()`) over a stream of bytes of any length.
///
/// Bytes are gathered in blocks; each full block is hashed together with the hash of the blocks
/// before it, and [`Hasher::finish`] hashes the last, partial block the same way. Keys of up to
/// `BLOCK` bytes, the common case, cost one `siphash()` call.
struct SipHasher<'a> {
    key: &'a bindings::siphash_key_t,
    /// The hash of the full blocks so far, then the bytes of the current block.
    buf: [u8; SipHasher::BUF],
    len: usize,
}

impl SipHasher<'_> {
    const BLOCK: usize = 56;
    const BUF: usize = 8 + Self::BLOCK;
}

impl<'a> SipHasher<'a> {
    fn new(key: &'a bindings::siphash_key_t) -> Self {
        Self {
            key,
            buf: [0; Self::BUF],
            len: 8,
        }
    }

    fn siphash(&self, len: usize) -> u64 {
        // SAFETY: `self.buf` is valid for reads of `len <= BUF` bytes and `self.key` is a key.
        unsafe { bindings::siphash(self.buf.as_ptr().cast(), len, self.key) }
    }
}

impl Hasher for SipHasher<'_> {
    fn write(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.len == Self::BUF {
                let h = self.siphash(Self::BUF);
                self.buf[..8].copy_from_slice(&h.to_le_bytes());
                self.len = 8;
            }
            let n = bytes.len().min(Self::BUF - self.len);
            self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
            self.len += n;
            bytes = &bytes[n..];
        }
    }

    fn finish(&self) -> u64 {
        self.siphash(self.len)
    }
}
