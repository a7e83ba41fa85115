// SPDX-License-Identifier: GPL-2.0

//! Rosebush, a resizable hash table read under RCU.
//!
//! [`Rosebush`] stores values in [`Node`]s under 32-bit hashes the caller computes. Readers
//! walk a hash under an [`rcu::Guard`] without taking any lock; writers lock only the bucket they
//! change. [`Map`] builds a keyed map on top of it for types that implement [`Hash`] and [`Eq`].
//!
//! C header: [`include/linux/rosebush.h`](srctree/include/linux/rosebush.h)
//!
//! Documentation: [`rosebush.rst`](srctree/Documentation/core-api/rosebush.rst)
//!
//! # Values that readers may still be borrowing
//!
//! A reader that found a value keeps a reference to it until its [`rcu::Guard`] is dropped, even
//! if the value is removed meanwhile. So a value that is removed or replaced is not handed back,
//! and the remover does not wait: the rosebush links it into a list of doomed values (through a
//! word that every [`Node`] has for this). Unless a batch is in flight, the remover takes the whole
//! list as the next batch and queues the rosebush's reaper with `queue_rcu_work()`: it runs on
//! `system_unbound_wq` once a grace period that began after the list was taken has ended, drops the
//! batch, and takes what was removed meanwhile as the next one. Many removals thus share one grace
//! period, and no worker sleeps waiting for it.
//!
//! The destructor of a removed value therefore runs in process context, in a kworker, and may
//! sleep; it must not wait for the rosebush's own reaper ([`Rosebush::flush_removed`]).
//! [`Rosebush::flush_removed`] waits until what was removed so far has been dropped. A
//! [`Rosebush`]'s own [`Drop`] waits for the reaper's batch in flight, if any, and drops at once
//! both the values still stored and the doomed ones (no reader can borrow them any more), so it
//! sleeps; after it returns, no code of the rosebush's user runs on its behalf. A rosebush that is
//! leaked instead (`KBox::leak`, a reference cycle) keeps its reaper too: its module must not be
//! unloaded.
//!
//! # Sleeping while a guard lives
//!
//! Sleeping in an RCU read-side critical section is a bug on every kernel, and without preemptible
//! RCU it frees borrowed values: the sleep is a quiescent state, so a grace period can end, and the
//! reaper drop a value, while the guard that borrows it still lives ([`Rosebush::flush_removed`],
//! which waits for that grace period, deadlocks instead under preemptible RCU). The methods that
//! may sleep, [`Rosebush::insert`], [`Rosebush::reserve`], [`Rosebush::flush_removed`],
//! [`Rosebush::stats`], [`Map::insert`], [`Map::stats`] and the destructors, must therefore not be
//! called while this task holds an [`rcu::Guard`] or a [`Locked`], as no other sleeping function of
//! the kernel crate may be (locking a `Mutex`, allocating with `GFP_KERNEL`). The types do not
//! prevent it, for these methods any more than for those: that is a known gap of the kernel crate,
//! which static analysis (klint) is to close. Until then, each of these methods reaches
//! `might_sleep()` before it first sleeps, so that a kernel built with `CONFIG_DEBUG_ATOMIC_SLEEP`
//! reports such a call the first time it is made, whether or not it sleeps then; other kernels
//! report nothing. Removals and replacements never sleep and may be made under a guard.
//!
//! Here the test task borrows values while a writer on a workqueue replaces and removes them.
//! Values are poisoned when dropped, so a value dropped too early is seen (and reported by
//! KASAN as a use after free), and a key that is always stored must always be found, even while
//! its value is replaced.
//!
//! ```
//! use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
//! use kernel::{
//!     new_condvar, new_mutex,
//!     rosebush::{new_map, Map},
//!     sync::{rcu, Arc, CondVar, Mutex},
//!     workqueue,
//! };
//!
//! const POISON: u64 = 0x6b6b_6b6b_6b6b_6b6b;
//!
//! /// Eight equal words, poisoned when dropped.
//! struct Words([u64; 8]);
//!
//! impl Drop for Words {
//!     fn drop(&mut self) {
//!         for w in &mut self.0 {
//!             // SAFETY: `w` is valid for writes; volatile, so that it is not optimised away.
//!             unsafe { core::ptr::write_volatile(w, POISON) };
//!         }
//!     }
//! }
//!
//! #[pin_data]
//! struct Shared {
//!     #[pin]
//!     map: Map<u32, Words>,
//!     seen: AtomicUsize,
//!     rounds: AtomicUsize,
//!     done: AtomicBool,
//!     #[pin]
//!     finished: Mutex<bool>,
//!     #[pin]
//!     changed: CondVar,
//! }
//!
//! let shared = Arc::pin_init(
//!     pin_init!(Shared {
//!         map <- new_map!(),
//!         seen: AtomicUsize::new(0),
//!         rounds: AtomicUsize::new(0),
//!         done: AtomicBool::new(false),
//!         finished <- new_mutex!(false),
//!         changed <- new_condvar!(),
//!     }),
//!     GFP_KERNEL,
//! )?;
//! // Keys 0 to 3 are always stored; 4 to 7 come and go.
//! for key in 0..8 {
//!     shared.map.insert(key, Words([0; 8]))?;
//! }
//!
//! let writer = shared.clone();
//! workqueue::system_unbound().try_spawn(GFP_KERNEL, move || {
//!     let mut round = 0u64;
//!     // At least 100 rounds, and until the reader has looked at 2000 values.
//!     while (round < 100 || writer.seen.load(Ordering::Relaxed) < 2000) && round < 100_000 {
//!         round += 1;
//!         for key in 0..8 {
//!             if writer.map.insert(key, Words([round; 8])).is_err() {
//!                 break;
//!             }
//!         }
//!         writer.map.remove(&(4 + (round % 4) as u32));
//!         writer.rounds.store(round as usize, Ordering::Relaxed);
//!         writer.changed.notify_all();
//!     }
//!     writer.done.store(true, Ordering::Release);
//!     *writer.finished.lock() = true;
//!     writer.changed.notify_all();
//! })?;
//!
//! // This task reads, once in each of the writer's rounds, so that KASAN reports fail the test.
//! let (mut torn, mut missing, mut read_in) = (0, 0, usize::MAX);
//! while !shared.done.load(Ordering::Acquire) {
//!     // Sleep until the writer has begun another round: so it runs on any kernel.
//!     let mut finished = shared.finished.lock();
//!     while !*finished && shared.rounds.load(Ordering::Relaxed) == read_in {
//!         shared.changed.wait(&mut finished);
//!     }
//!     drop(finished);
//!     read_in = shared.rounds.load(Ordering::Relaxed);
//!     let guard = rcu::read_lock();
//!     for key in 0..8 {
//!         match shared.map.get(&key, &guard) {
//!             Some(words) => {
//!                 // Hold the borrow for a while: the words stay equal and unpoisoned.
//!                 for _ in 0..20 {
//!                     // SAFETY: `words` is a valid reference; volatile, to read memory again.
//!                     let w: [u64; 8] = unsafe { core::ptr::read_volatile(&words.0) };
//!                     if w.iter().any(|x| *x != w[0] || *x == POISON) {
//!                         torn += 1;
//!                     }
//!                 }
//!                 shared.seen.fetch_add(1, Ordering::Relaxed);
//!             }
//!             None if key < 4 => missing += 1,
//!             None => {}
//!         }
//!     }
//!     drop(guard);
//! }
//! let mut finished = shared.finished.lock();
//! while !*finished {
//!     shared.changed.wait(&mut finished);
//! }
//! drop(finished);
//!
//! pr_info!(
//!     "rosebush: a reader borrowed {} values during {} rounds of replacements\n",
//!     shared.seen.load(Ordering::Relaxed),
//!     shared.rounds.load(Ordering::Relaxed)
//! );
//! assert!(shared.seen.load(Ordering::Relaxed) > 0);
//! assert_eq!(torn, 0);
//! assert_eq!(missing, 0);
//! # Ok::<(), Error>(())
//! ```

use crate::{
    alloc::{AllocError, Flags},
    bindings,
    ffi::c_void,
    prelude::*,
    sync::rcu,
    types::Opaque,
};
use core::{
    borrow::Borrow,
    cell::UnsafeCell,
    hash::{Hash, Hasher},
    iter::FusedIterator,
    marker::PhantomData,
    mem::ManuallyDrop,
    ops::{Deref, DerefMut},
    ptr::{self, NonNull},
    sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering},
};

/// A heap allocation of a `T` that a rosebush can drop after an RCU grace period without waiting
/// for one: a [`KBox`] with one more word, which links it into its rosebush's list of doomed
/// values once it is removed.
///
/// A [`Rosebush`] stores its values in `Node`s. Until it is stored, a `Node` is an
/// ordinary owned box: it may be changed through [`DerefMut`], unwrapped with
/// [`Node::into_inner`], and dropping it frees it at once.
///
/// # Invariants
///
/// `ptr` comes from [`KBox::into_raw`] of a `KBox<NodeInner<T>>` that this `Node` owns.
///
/// # Examples
///
/// ```
/// use kernel::rosebush::Node;
///
/// let mut b = Node::new([1u32, 2], GFP_KERNEL)?;
/// b[1] = 3;
/// assert_eq!(Node::into_inner(b), [1, 3]);
/// # Ok::<(), Error>(())
/// ```
pub struct Node<T: 'static> {
    ptr: NonNull<NodeInner<T>>,
    _owns: PhantomData<NodeInner<T>>,
}

/// What a [`Node`] points at. The value comes first, so that a pointer to one is a pointer to
/// the other: that is the pointer a rosebush stores.
#[repr(C)]
struct NodeInner<T> {
    value: T,
    /// The next doomed value, once this one is removed: written only by the task that removed it
    /// (before it publishes the box on the rosebush's list), then read only by whoever takes the
    /// list, the reaper or the rosebush's `Drop`.
    next: UnsafeCell<*mut c_void>,
}

// SAFETY: a `Node` owns its `T`, as a `KBox` does.
unsafe impl<T: Send> Send for Node<T> {}

// SAFETY: a shared `Node` gives out only shared references to its `T`.
unsafe impl<T: Sync> Sync for Node<T> {}

impl<T: 'static> Node<T> {
    /// Allocates memory with `flags` and moves `value` into it.
    pub fn new(value: T, flags: Flags) -> Result<Self, AllocError> {
        Self::new_or_give_back(value, flags).map_err(|_| AllocError)
    }

    /// Like [`Node::new`], but hands `value` back if memory cannot be allocated.
    fn new_or_give_back(value: T, flags: Flags) -> Result<Self, T> {
        let Ok(uninit) = KBox::<NodeInner<T>>::new_uninit(flags) else {
            return Err(value);
        };
        let inner = uninit.write(NodeInner {
            value,
            next: UnsafeCell::new(ptr::null_mut()),
        });
        // INVARIANT: the pointer comes from `KBox::into_raw`, and the new `Node` owns it.
        Ok(Self {
            // SAFETY: `KBox::into_raw` never returns null.
            ptr: unsafe { NonNull::new_unchecked(KBox::into_raw(inner)) },
            _owns: PhantomData,
        })
    }

    /// Moves the value out and frees the memory.
    pub fn into_inner(this: Self) -> T {
        let this = ManuallyDrop::new(this);
        // SAFETY: by the type invariants `this.ptr` comes from `KBox::into_raw` and is owned by
        // `this`, which is not dropped.
        KBox::into_inner(unsafe { KBox::from_raw(this.ptr.as_ptr()) }).value
    }

    /// Gives up the box for a rosebush to store: the pointer to the value.
    fn into_raw(this: Self) -> *mut c_void {
        ManuallyDrop::new(this).ptr.as_ptr().cast()
    }

    /// Takes back a box given up by [`Node::into_raw`].
    ///
    /// # Safety
    ///
    /// `p` comes from `Node::<T>::into_raw` and is taken back once; nobody borrows the value
    /// any more.
    unsafe fn from_raw(p: *mut c_void) -> Self {
        // INVARIANT: `p` comes from `into_raw`, so from `KBox::into_raw`, and is owned again.
        Self {
            // SAFETY: `into_raw` never returns null.
            ptr: unsafe { NonNull::new_unchecked(p.cast()) },
            _owns: PhantomData,
        }
    }

    /// Borrows the value of a box given up by [`Node::into_raw`].
    ///
    /// # Safety
    ///
    /// `p` comes from `Node::<T>::into_raw`, and the box is not taken back (nor dropped after
    /// a grace period) until the borrow ends.
    unsafe fn borrow<'a>(p: *mut c_void) -> &'a T {
        // SAFETY: by the safety requirements `p` points to a live `NodeInner<T>` for `'a`.
        unsafe { &(*p.cast::<NodeInner<T>>()).value }
    }

    /// The link of a box given up by [`Node::into_raw`] into a list of doomed values.
    ///
    /// # Safety
    ///
    /// `p` comes from `Node::<T>::into_raw` and has not been taken back.
    unsafe fn next(p: *mut c_void) -> *mut *mut c_void {
        // SAFETY: by the safety requirements `p` points to a live `NodeInner<T>`.
        unsafe { (*p.cast::<NodeInner<T>>()).next.get() }
    }
}

impl<T: 'static> Deref for Node<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: by the type invariants `ptr` points to a live `NodeInner<T>` that `self` owns.
        unsafe { &self.ptr.as_ref().value }
    }
}

impl<T: 'static> DerefMut for Node<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes the access exclusive.
        unsafe { &mut self.ptr.as_mut().value }
    }
}

impl<T: 'static> Drop for Node<T> {
    fn drop(&mut self) {
        // SAFETY: by the type invariants `ptr` comes from `KBox::into_raw` and is owned by `self`.
        drop(unsafe { KBox::from_raw(self.ptr.as_ptr()) });
    }
}

/// A hash table of values, each stored in a [`Node`] under a 32-bit hash.
///
/// Several values may be stored under the same hash, and a walk of a hash may also return values
/// stored under other hashes: callers check that a value is the one they want, as they would
/// after comparing hashes in any hash table.
///
/// Lookups ([`Rosebush::lookup`]) take no lock: they borrow values for as long as an
/// [`rcu::Guard`] lives. Insertions and reservations may sleep to allocate memory. Values are
/// removed or replaced through [`Rosebush::lock`], which locks the bucket of one hash, and are
/// dropped after a grace period (see the [module documentation](self)).
///
/// Dropping a rosebush drops the values it still holds and those removed but not yet dropped,
/// after waiting for its reaper's batch in flight: it sleeps, in process context.
///
/// `Rosebush<T>` is invariant in `T`: values are stored through shared references, so a
/// rosebush of `fn(&'static u8)` must not be usable as one of `for<'a> fn(&'a u8)`, nor the
/// other way round.
///
/// # Invariants
///
/// - `rbh` was initialised by `__rbh_init()` and is pinned.
/// - Every pointer stored in `rbh` (reservations aside) comes from `Node::<T>::into_raw` and
///   belongs to the rosebush: it is taken back only by `rbh_free_and_destroy()` in `Drop`, or,
///   once it is no longer stored, through `doomed`.
/// - `doomed` is null or the first of a list of pointers from `Node::<T>::into_raw`, linked by
///   [`Node::next`] and ending with null, which are no longer stored and belong to the
///   rosebush; each was removed from `rbh` before it was added to the list.
/// - `batch` is such a list, taken from `doomed`, or null. Only the task that set `busy` uses
///   it, and then `reap` once its grace period has ended; `batch` is null while `busy` is clear.
/// - `started` counts the times a task set `busy`, `done` the times it was cleared again (by
///   `reap` after dropping its batch, or at once when there was no list to take), each before
///   the clear: batches run one after the other, so batch `n` is done once `done >= n`.
/// - `reaping` is null, or, while `reap` drops `batch`, points to a live `Cell<bool>` in the frame
///   of that `reap`, which tells whether the rosebush is still live.
/// - `reaper` is an `rcu_work` whose work was initialised with [`reap::<T>`] as its function.
///   It is queued, on `system_unbound_wq`, only by the task that set `busy`, right after it took
///   `batch`, and `busy` stays set until that run of `reap` has dropped the batch.
///
/// # Examples
///
/// ```
/// use kernel::{
///     rosebush::{new_rosebush, Node, Rosebush},
///     sync::rcu,
/// };
///
/// let rb: Pin<KBox<Rosebush<u64>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
/// rb.insert(7, Node::new(42, GFP_KERNEL)?)?;
/// rb.insert(7, Node::new(43, GFP_KERNEL)?)?;
/// rb.insert(8, Node::new(44, GFP_KERNEL)?)?;
///
/// let guard = rcu::read_lock();
/// // The walk of hash 7 may return 44 too: values are checked.
/// let sum: u64 = rb.lookup(7, &guard).copied().filter(|v| *v != 44).sum();
/// assert_eq!(sum, 42 + 43);
///
/// // Take 43 out while `guard` still borrows it: it is dropped after `guard` is.
/// let v43 = rb.lookup(7, &guard).find(|v| **v == 43).expect("43 is stored");
/// let mut locked = rb.lock(7);
/// while let Some(v) = locked.next_value() {
///     if *v == 43 {
///         assert!(locked.remove_current());
///     }
/// }
/// drop(locked);
/// assert_eq!(*v43, 43);
/// drop(guard);
/// assert_eq!(rb.stats().entries, 2);
/// # Ok::<(), Error>(())
/// ```
///
/// A removed value may hold the last reference to the rosebush's owner: the reaper then drops
/// the rosebush while it runs, and must not wait for itself.
///
/// ```
/// use kernel::{
///     new_condvar, new_mutex,
///     rosebush::{new_rosebush, Node, Rosebush},
///     sync::{Arc, CondVar, Mutex},
/// };
///
/// /// Whether the owner has been dropped.
/// #[pin_data]
/// struct Dropped {
///     #[pin]
///     done: Mutex<bool>,
///     #[pin]
///     changed: CondVar,
/// }
///
/// /// Sets `Dropped::done` when the owner is dropped.
/// struct Flag(Arc<Dropped>);
///
/// impl Drop for Flag {
///     fn drop(&mut self) {
///         *self.0.done.lock() = true;
///         self.0.changed.notify_all();
///     }
/// }
///
/// #[pin_data]
/// struct Owner {
///     #[pin]
///     rb: Rosebush<Arc<Owner>>,
///     _flag: Flag,
/// }
///
/// let dropped = Arc::pin_init(
///     pin_init!(Dropped {
///         done <- new_mutex!(false),
///         changed <- new_condvar!(),
///     }),
///     GFP_KERNEL,
/// )?;
/// let flag = Flag(dropped.clone());
/// let owner = Arc::pin_init(
///     pin_init!(Owner {
///         rb <- new_rosebush!(),
///         _flag: flag,
///     }),
///     GFP_KERNEL,
/// )?;
/// owner.rb.insert(1, Node::new(owner.clone(), GFP_KERNEL)?)?;
/// let mut locked = owner.rb.lock(1);
/// while locked.next_value().is_some() {
///     assert!(locked.remove_current());
/// }
/// drop(locked);
/// // Now only the doomed value holds the owner: the reaper drops it, rosebush included.
/// drop(owner);
/// let mut done = dropped.done.lock();
/// while !*done {
///     dropped.changed.wait(&mut done);
/// }
/// # Ok::<(), Error>(())
/// ```
#[pin_data(PinnedDrop)]
pub struct Rosebush<T: Send + 'static> {
    #[pin]
    rbh: Opaque<bindings::rbh>,
    /// Values removed from `rbh` and not yet taken by the reaper.
    doomed: AtomicPtr<c_void>,
    /// Set while a batch is in flight: from when a task takes `doomed` until `reap` has dropped it.
    busy: AtomicBool,
    /// How many batches have begun, and how many are done.
    started: AtomicUsize,
    done: AtomicUsize,
    /// The values the reaper drops after a grace period.
    batch: UnsafeCell<*mut c_void>,
    /// While `reap` drops `batch`: where a `Drop` of the rosebush within it says it has run.
    reaping: AtomicPtr<bool>,
    /// Drops `batch` after a grace period: [`reap`].
    #[pin]
    reaper: Opaque<bindings::rcu_work>,
    // Owns `Node<T>`s; `fn(T) -> T` makes the rosebush invariant in `T`.
    _values: PhantomData<(Node<T>, fn(T) -> T)>,
}

// SAFETY: moving a `Rosebush` to another task moves the values it owns, which are dropped there:
// that needs `T: Send` (which every rosebush requires, as removed values are dropped by its reaper,
// a work item). The C structure itself may be used and freed from any task.
unsafe impl<T: Send> Send for Rosebush<T> {}

// SAFETY: through a shared reference, tasks insert values (moving them in: `T: Send`), remove them
// (to be dropped elsewhere: `T: Send`), and borrow them at the same time as other tasks
// (`T: Sync`). The C functions synchronise concurrent callers with their bucket locks and RCU;
// `batch`, not atomic, is used only by the task that set `busy` (type invariants).
unsafe impl<T: Send + Sync> Sync for Rosebush<T> {}

/// The error of an insertion, which hands the value back.
pub struct InsertError<T> {
    /// The value that was not stored.
    pub value: T,
    /// Why: `ENOMEM` if memory could not be allocated.
    pub error: Error,
}

impl<T> core::fmt::Debug for InsertError<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InsertError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<T> From<InsertError<T>> for Error {
    fn from(err: InsertError<T>) -> Self {
        err.error
    }
}

impl<T: Send + 'static> Rosebush<T> {
    /// Creates an empty rosebush, which allocates no memory until the first value is stored.
    ///
    /// Its locks and its reaper have the lockdep classes `classes`, the reaper's named `name`:
    /// use [`new_rosebush!`], which gives the rosebushes made at each place in the source a set
    /// of their own.
    pub fn new(
        flags: BucketFlags,
        name: &'static crate::str::CStr,
        classes: &'static LockClasses,
    ) -> impl PinInit<Self> {
        pin_init!(Self {
            // SAFETY: `__rbh_init()` initialises every field of the `struct rbh` at `slot`, which
            // is valid for writes and, being in a pinned `Opaque`, will not move. The keys are in
            // static storage (type invariants of `LockClasses`); `flags` holds only flags of
            // `enum rbh_flags`.
            rbh <- Opaque::ffi_init(|slot: *mut bindings::rbh| unsafe {
                bindings::__rbh_init(slot, flags.0, classes.locks.get())
            }),
            doomed: AtomicPtr::new(ptr::null_mut()),
            busy: AtomicBool::new(false),
            started: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            batch: UnsafeCell::new(ptr::null_mut()),
            reaping: AtomicPtr::new(ptr::null_mut()),
            // SAFETY: `init_work_with_key()` initialises the `work_struct` of the `rcu_work` at
            // `slot`, which is pinned, with a key in static storage (type invariants of
            // `LockClasses`); `queue_rcu_work()` sets up the rest. `reap::<T>` may be its
            // function: it is queued only by `start_reaper` of this rosebush, whose `Drop` waits
            // for it.
            reaper <- Opaque::ffi_init(|slot: *mut bindings::rcu_work| unsafe {
                bindings::init_work_with_key(
                    ptr::addr_of_mut!((*slot).work),
                    Some(reap::<T>),
                    false,
                    name.as_char_ptr(),
                    classes.reaper.get(),
                )
            }),
            _values: PhantomData,
        })
    }

    fn as_ptr(&self) -> *mut bindings::rbh {
        self.rbh.get()
    }

    /// Drops the value `p`, which is no longer stored, after a grace period, without waiting.
    ///
    /// # Safety
    ///
    /// `p` was stored in this rosebush and has just been removed from it (or replaced) by the
    /// caller, under its bucket lock: nobody else can hand it here.
    unsafe fn defer_drop(&self, p: *mut c_void) {
        let mut first = self.doomed.load(Ordering::Relaxed);
        loop {
            // SAFETY: `p` comes from `Node::<T>::into_raw` (type invariants) and, until the
            // exchange below publishes it, only this task can reach its link.
            unsafe { *Node::<T>::next(p) = first };
            // INVARIANT: `p` was removed before it is added; the exchange orders the removal and
            // the link before the swap that takes the list. It is sequentially consistent, with
            // the test of `busy` in `start_reaper` after it: see there.
            match self
                .doomed
                .compare_exchange_weak(first, p, Ordering::SeqCst, Ordering::Relaxed)
            {
                Ok(_) => break,
                Err(now) => first = now,
            }
        }
        // SAFETY: `self` is a live rosebush.
        unsafe { Self::start_reaper(self) };
    }

    /// Unless a batch is in flight, takes the doomed values as the next one and queues the reaper
    /// to drop them after a grace period.
    ///
    /// A batch in flight takes the values added meanwhile when it is done: either the task that
    /// added a value sees `busy` clear, or the reaper, clearing `busy`, sees the value. Both pairs
    /// of accesses (the exchange in `defer_drop` and the exchange of `busy` here, the store of
    /// `busy` and the load of `doomed` here) are sequentially consistent, so that the two loads
    /// cannot both miss the two stores.
    ///
    /// # Safety
    ///
    /// `rb` points to a live rosebush. Only its atomics and, once it has set `busy`, `batch` and
    /// `reaper` are reached, without forming a reference to the whole rosebush (which its `Drop`
    /// may hold mutably while `reap` runs; `Rosebush` is `!Unpin`).
    unsafe fn start_reaper(rb: *const Self) {
        // SAFETY: `rb` points to a live rosebush; the atomics may be shared.
        let (busy, doomed) =
            unsafe { (&*ptr::addr_of!((*rb).busy), &*ptr::addr_of!((*rb).doomed)) };
        loop {
            if busy
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                return;
            }
            // SAFETY: as above.
            unsafe { (*ptr::addr_of!((*rb).started)).fetch_add(1, Ordering::SeqCst) };
            let list = doomed.swap(ptr::null_mut(), Ordering::SeqCst);
            if !list.is_null() {
                // SAFETY: this task set `busy`, so only it uses `batch` (type invariants) until the
                // run it queues; `reaper` is an initialised `rcu_work`, not pending while `busy`
                // was clear, so this queues it. Its grace period begins after the swap, so after
                // every value of `list` was removed: no reader that began before the removal of
                // one of them can still run when `reap` drops it.
                unsafe {
                    *UnsafeCell::raw_get(ptr::addr_of!((*rb).batch)) = list;
                    let rwork = Opaque::raw_get(ptr::addr_of!((*rb).reaper));
                    bindings::queue_rcu_work(bindings::system_unbound_wq, rwork);
                }
                return;
            }
            // SAFETY: as above.
            unsafe { (*ptr::addr_of!((*rb).done)).fetch_add(1, Ordering::SeqCst) };
            busy.store(false, Ordering::SeqCst);
            // A value added after the swap by a task that saw `busy` set is left: look again.
            if doomed.load(Ordering::SeqCst).is_null() {
                return;
            }
        }
    }

    /// Waits until every value removed or replaced so far has been dropped.
    ///
    /// # Context
    ///
    /// Process context; sleeps, for up to two grace periods if values are waiting. Must not be
    /// called while this task holds an [`rcu::Guard`] (the grace period could free a value it
    /// borrows, or wait for it forever), by the destructor of one of this rosebush's values (it
    /// would wait for itself), while holding a lock that such a destructor takes, or from a
    /// `WQ_MEM_RECLAIM` worker.
    ///
    /// # Examples
    ///
    /// A value removed while a reader borrows it is dropped only after the reader is done, and one
    /// removed while the reaper waits for that goes with the next batch, which the reaper takes
    /// by itself; `flush_removed()` waits for both:
    ///
    /// ```
    /// use core::sync::atomic::{AtomicU32, Ordering};
    /// use kernel::{
    ///     new_condvar, new_mutex,
    ///     rosebush::{new_rosebush, Node, Rosebush},
    ///     sync::{rcu, Arc, CondVar, Mutex},
    ///     time::Ktime,
    /// };
    ///
    /// #[pin_data]
    /// struct Dropped {
    ///     count: AtomicU32,
    ///     #[pin]
    ///     lock: Mutex<()>,
    ///     #[pin]
    ///     changed: CondVar,
    /// }
    ///
    /// struct Flag(u32, Arc<Dropped>);
    ///
    /// impl Drop for Flag {
    ///     fn drop(&mut self) {
    ///         self.1.count.fetch_add(1, Ordering::Relaxed);
    ///         let _lock = self.1.lock.lock();
    ///         self.1.changed.notify_all();
    ///     }
    /// }
    ///
    /// fn remove(rb: &Rosebush<Flag>, hash: u32) {
    ///     let mut locked = rb.lock(hash);
    ///     while locked.next_value().is_some() {
    ///         assert!(locked.remove_current());
    ///     }
    /// }
    ///
    /// let dropped = Arc::pin_init(
    ///     pin_init!(Dropped {
    ///         count: AtomicU32::new(0),
    ///         lock <- new_mutex!(()),
    ///         changed <- new_condvar!(),
    ///     }),
    ///     GFP_KERNEL,
    /// )?;
    /// let rb: Pin<KBox<Rosebush<Flag>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// for hash in 1..=4 {
    ///     rb.insert(hash, Node::new(Flag(hash, dropped.clone()), GFP_KERNEL)?)?;
    /// }
    ///
    /// let guard = rcu::read_lock();
    /// let flag = rb.lookup(1, &guard).next().expect("stored");
    /// remove(&rb, 1);
    /// // The reaper has taken the first value, but cannot drop it before `guard` is dropped. A
    /// // slower machine only makes this wait shorter, not wrong.
    /// let start = Ktime::ktime_get();
    /// while (Ktime::ktime_get() - start).to_ms() < 50 {
    ///     assert_eq!(dropped.count.load(Ordering::Relaxed), 0);
    /// }
    /// assert_eq!(flag.0, 1);
    /// remove(&rb, 2);
    /// drop(guard);
    /// // Without a flush: the reaper takes the second value once it has dropped the first.
    /// let mut lock = dropped.lock.lock();
    /// while dropped.count.load(Ordering::Relaxed) < 2 {
    ///     dropped.changed.wait(&mut lock);
    /// }
    /// drop(lock);
    ///
    /// let guard = rcu::read_lock();
    /// remove(&rb, 3);
    /// remove(&rb, 4);
    /// drop(guard);
    /// rb.flush_removed();
    /// assert_eq!(dropped.count.load(Ordering::Relaxed), 4);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn flush_removed(&self) {
        // A batch begun after this point takes what is left of the values removed before it, and
        // the batches before it are done before it begins.
        let next = self.started.load(Ordering::SeqCst) + 1;
        loop {
            // Unless one is in flight, begin a batch.
            // SAFETY: `self` is a live rosebush.
            unsafe { Self::start_reaper(self) };
            if self.done.load(Ordering::SeqCst) >= next {
                return;
            }
            // SAFETY: `reaper` is an initialised `rcu_work` (type invariants).
            if !unsafe { bindings::flush_rcu_work(self.reaper.get()) } {
                // A task has begun a batch but not yet queued the reaper.
                // SAFETY: sleeping is allowed here (see # Context).
                unsafe { bindings::msleep(1) };
            }
        }
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
    /// Process context; may sleep. Must not be called while this task holds an [`rcu::Guard`] or
    /// a [`Locked`] (see [Sleeping while a guard lives](self#sleeping-while-a-guard-lives)).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::rosebush::{new_rosebush, Node, Rosebush};
    ///
    /// let rb: Pin<KBox<Rosebush<u64>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// if let Err(err) = rb.insert(1, Node::new(10, GFP_KERNEL)?) {
    ///     // The value is ours again: keep it, or let it go.
    ///     pr_warn!("value {} not stored\n", *err.value);
    ///     return Err(err.error);
    /// }
    /// assert_eq!(rb.stats().entries, 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn insert(&self, hash: u32, value: Node<T>) -> Result<(), InsertError<Node<T>>> {
        let p = Node::into_raw(value);
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant). Storing `p`
        // keeps the invariant: it comes from `Node::into_raw`.
        let ret = unsafe { bindings::rbh_insert(self.as_ptr(), hash, p) };
        if ret == 0 {
            return Ok(());
        }
        Err(InsertError {
            // SAFETY: `p` comes from `into_raw` above and, as `rbh_insert()` failed, was not
            // stored: nobody else has seen it.
            value: unsafe { Node::from_raw(p) },
            error: Error::from_errno(ret),
        })
    }

    /// Allocates a slot under `hash`, to be filled later without failing.
    ///
    /// The slot is filled by [`Reservation::fill`], or under the bucket lock by [`Locked::fill`]
    /// after [`Reservation::lock`], or released when the [`Reservation`] is dropped. Lookups skip
    /// it until it is filled.
    ///
    /// # Errors
    ///
    /// `ENOMEM` if memory could not be allocated; nothing is then reserved.
    ///
    /// # Context
    ///
    /// Process context; may sleep. Must not be called while this task holds an [`rcu::Guard`] or
    /// a [`Locked`].
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::{
    ///     rosebush::{new_rosebush, Node, Rosebush},
    ///     sync::rcu,
    /// };
    ///
    /// let rb: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// let slot = rb.reserve(5)?;
    /// // Later, perhaps where allocating would be awkward:
    /// slot.fill(Node::new(5, GFP_KERNEL)?);
    /// assert_eq!(rb.lookup(5, &rcu::read_lock()).count(), 1);
    ///
    /// // A reservation that is not filled is released.
    /// drop(rb.reserve(6)?);
    /// rb.reserve(6)?.release();
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
    /// the one wanted. A value replaced during the walk ([`Locked::replace_current`]) is returned
    /// as the old value or the new one.
    ///
    /// # Context
    ///
    /// Any context that may hold the RCU read lock; does not sleep.
    ///
    /// # Examples
    ///
    /// Values that know their own key:
    ///
    /// ```
    /// use kernel::{
    ///     rosebush::{new_rosebush, Node, Rosebush},
    ///     sync::rcu,
    /// };
    ///
    /// struct Object {
    ///     key: u64,
    ///     name: &'static str,
    /// }
    ///
    /// let rb: Pin<KBox<Rosebush<Object>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// for (key, name) in [(3, "three"), (35, "thirty-five")] {
    ///     // A poor hash, to make the two share one.
    ///     rb.insert((key % 32) as u32, Node::new(Object { key, name }, GFP_KERNEL)?)?;
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
            started: false,
            ended: false,
            _borrows: PhantomData,
            _guard: guard,
        }
    }

    /// Locks the bucket that holds `hash`, to examine its values and remove or replace some.
    ///
    /// While the returned [`Locked`] lives, nothing is stored under `hash` or removed from it by
    /// anybody else, and [`Locked::next_value`] returns exactly the values stored under it (and
    /// maybe some stored under other hashes). That holds before the first value is stored too.
    ///
    /// # Context
    ///
    /// Process context. Takes the RCU read lock and a spinlock, which the [`Locked`] holds: until
    /// it is dropped, the task must not sleep or call any other rosebush method (it may need the
    /// same lock). Dropping the [`Locked`] does not sleep; if it holds a slot that
    /// [`Reservation::lock`] handed it and that was not filled, it takes the bucket lock again
    /// after unlocking, to release the slot, so it must not be dropped while this task holds
    /// another [`Locked`].
    ///
    /// # Examples
    ///
    /// Removing every odd value stored under a hash, under one lock:
    ///
    /// ```
    /// use kernel::rosebush::{new_rosebush, Node, Rosebush};
    ///
    /// let rb: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// for v in 0..6 {
    ///     rb.insert(9, Node::new(v, GFP_KERNEL)?)?;
    /// }
    /// let mut removed = 0;
    /// let mut locked = rb.lock(9);
    /// while let Some(v) = locked.next_value() {
    ///     if *v % 2 == 1 {
    ///         removed += *v;
    ///         assert!(locked.remove_current());
    ///     }
    /// }
    /// drop(locked);
    /// assert_eq!(removed, 1 + 3 + 5);
    /// assert_eq!(rb.stats().entries, 3);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn lock(&self, hash: u32) -> Locked<'_, T> {
        let mut iter = new_iter(self.as_ptr(), hash);
        // SAFETY: `iter` is a fresh iterator of this initialised rosebush; the lock is released
        // by `Locked`'s `Drop`, in this task since `Locked` is not `Send`. (A `Locked` that is
        // leaked leaves the bucket locked: a deadlock, not unsoundness.)
        unsafe { bindings::rbh_iter_lock(&mut iter) };
        // INVARIANT: `iter` is locked just above (the bucket of `hash`, or the resize lock of a
        // rosebush with no table yet).
        Locked {
            rb: self,
            iter,
            current: ptr::null_mut(),
            reserved: false,
            _not_send: PhantomData,
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
    /// use kernel::rosebush::{new_rosebush, Node, Rosebush};
    ///
    /// let rb: Pin<KBox<Rosebush<u8>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
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
    /// Process context; may sleep (it lets the scheduler in as it walks the table).
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::rosebush::{new_rosebush, Node, Rosebush};
    ///
    /// let rb: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// for i in 0..1000u32 {
    ///     rb.insert(i.wrapping_mul(0x9e37_79b9), Node::new(i, GFP_KERNEL)?)?;
    /// }
    /// let stats = rb.stats();
    /// assert_eq!(stats.entries, 1000);
    /// assert!(stats.table_slots.is_power_of_two());
    /// assert!(stats.widest >= 1 && stats.widest <= stats.table_slots / 2);
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
            widest: raw.widest,
            bytes: raw.bytes,
            bucket_capacity: capacity,
            occupancy,
            spilled: raw.spilled,
            grows: raw.grows,
            shrinks: raw.shrinks,
            splits: raw.splits,
            merges: raw.merges,
        }
    }
}

/// How a rosebush allocates its buckets: C's `enum rbh_flags`, for [`new_rosebush!`] and
/// [`new_map!`]. These are not GFP flags ([`Flags`]): buckets are always allocated with
/// `GFP_KERNEL`, plus what these add.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BucketFlags(u32);

impl BucketFlags {
    /// No flag: buckets are allocated with `GFP_KERNEL`.
    pub const NONE: Self = Self(0);
    /// Charge each bucket to the memory cgroup of the task that allocates it (`__GFP_ACCOUNT`),
    /// for a rosebush whose values are charged too. A [`Map`] then charges its entries as well.
    pub const ACCOUNT: Self = Self(bindings::rbh_flags_RBH_ACCOUNT);
    /// Take buckets from the reclaimable slab caches (`__GFP_RECLAIMABLE`), for a cache whose
    /// values a shrinker frees. A [`Map`]'s entries are not taken from them.
    pub const RECLAIMABLE: Self = Self(bindings::rbh_flags_RBH_RECLAIMABLE);

    /// Returns `true` if every flag of `other` is set in `self`.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl core::ops::BitOr for BucketFlags {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        Self(self.0 | rhs.0)
    }
}

/// The lockdep classes of the locks and of the reaper of the rosebushes made at one place in the
/// source: [`new_rosebush!`] and [`new_map!`] define one for each place they are used.
///
/// Lockdep then tells the rosebushes of different users apart, as it does for C users (see
/// `rbh_init()`): a task may lock a bucket of one while it locks a bucket of another, or drop a
/// rosebush in the reaper of one made elsewhere (a map whose values own maps).
///
/// Classes are per place in the source, not per rosebush or per type: rosebushes that nest (a map
/// whose values own maps) must be made at different places, as C users must initialise them.
///
/// # Invariants
///
/// A `LockClasses` lives in static storage, as lockdep requires of its keys.
pub struct LockClasses {
    locks: Opaque<bindings::rbh_lock_keys>,
    reaper: Opaque<bindings::lock_class_key>,
}

// SAFETY: lockdep's keys are made to be used by many threads at once; this code only hands out
// their addresses.
unsafe impl Sync for LockClasses {}

impl LockClasses {
    /// Returns keys for lockdep to set up, uninitialised as it expects of static keys.
    ///
    /// # Safety
    ///
    /// Only to initialise a `static`: [`new_rosebush!`] and [`new_map!`] call it.
    #[doc(hidden)]
    pub const unsafe fn new_static() -> Self {
        // INVARIANT: the caller puts the value in a `static`.
        Self {
            locks: Opaque::uninit(),
            reaper: Opaque::uninit(),
        }
    }
}

/// Defines the static [`LockClasses`] of one place in the source and returns a reference to it.
#[doc(hidden)]
#[macro_export]
macro_rules! rosebush_lock_classes {
    () => {{
        // SAFETY: the value initialises a `static`.
        static CLASSES: $crate::rosebush::LockClasses =
            unsafe { $crate::rosebush::LockClasses::new_static() };
        &CLASSES
    }};
}

/// Makes an initialiser of an empty [`Rosebush`], optionally with [`BucketFlags`], whose locks and
/// reaper are in lockdep classes of their own ([`LockClasses`]), named after the place in the
/// source.
///
/// # Examples
///
/// Two rosebushes made at different places may be locked one inside the other:
///
/// ```
/// use kernel::rosebush::{new_rosebush, BucketFlags, Node, Rosebush};
///
/// let outer: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
/// let inner: Pin<KBox<Rosebush<u32>>> =
///     KBox::pin_init(new_rosebush!(BucketFlags::ACCOUNT), GFP_KERNEL)?;
/// outer.insert(1, Node::new(1, GFP_KERNEL)?)?;
/// inner.insert(1, Node::new(2, GFP_KERNEL)?)?;
/// let mut a = outer.lock(1);
/// let mut b = inner.lock(1);
/// assert_eq!((a.next_value(), b.next_value()), (Some(&1), Some(&2)));
/// drop(b);
/// drop(a);
/// # Ok::<(), Error>(())
/// ```
#[macro_export]
macro_rules! new_rosebush {
    ($($flags:expr)? $(,)?) => {
        $crate::rosebush::Rosebush::new(
            $crate::rosebush::BucketFlags::NONE $(| $flags)?,
            $crate::optional_name!(),
            $crate::rosebush_lock_classes!(),
        )
    };
}
pub use new_rosebush;

/// Makes an initialiser of an empty [`Map`], optionally with [`BucketFlags`], whose locks are in
/// lockdep classes of their own, as [`new_rosebush!`] does.
#[macro_export]
macro_rules! new_map {
    ($($flags:expr)? $(,)?) => {
        $crate::rosebush::Map::new(
            $crate::rosebush::BucketFlags::NONE $(| $flags)?,
            $crate::optional_name!(),
            $crate::rosebush_lock_classes!(),
        )
    };
}
pub use new_map;

/// An iterator over one hash of a rosebush, as `RBH_ITER()` declares it: `rbh_iter_lock()` starts
/// its walk, or [`Iter`] hands its rosebush and hash to `rbh_first()`.
fn new_iter(rbh: *mut bindings::rbh, hash: u32) -> bindings::rbh_iter {
    bindings::rbh_iter {
        rbh,
        hash,
        ..Default::default()
    }
}

#[pinned_drop]
impl<T: Send + 'static> PinnedDrop for Rosebush<T> {
    /// Drops the values still stored and those removed but not yet dropped.
    ///
    /// # Context
    ///
    /// Process context; sleeps, to wait for the reaper's batch in flight and the one it hands on
    /// (two grace periods and `rcu_barrier()`s at most) and in `rbh_free_and_destroy()`. Must not
    /// run while holding a lock that the destructor of one of the rosebush's values takes. It may
    /// run in the rosebush's own reaper (a value that held the last reference to the rosebush's
    /// owner).
    fn drop(self: Pin<&mut Self>) {
        let reaper = self.reaper.get();
        let reaping = self.reaping.load(Ordering::Relaxed);
        // SAFETY: `current_work()` may be called from any context; `reaper` is a valid pointer.
        if unsafe { bindings::current_work() } == unsafe { ptr::addr_of_mut!((*reaper).work) }
            && !reaping.is_null()
        {
            // The reaper drops a value that owned this rosebush: it cannot wait for itself. No
            // batch is pending, as `reap` holds `busy`; tell it not to touch the rosebush again.
            // The workqueue lets a work item be freed while it runs.
            // SAFETY: `reaping` is not null, so it points to the `Cell` of the `reap` that is
            // dropping the batch, in a frame below this one on this task's stack.
            unsafe { *reaping = false };
        } else {
            // Nothing but the reaper's own run can queue it again: that needs a shared reference
            // to the rosebush, and there is none any more. So once a wait that began after the
            // last run has returned with `busy` clear, the reaper is neither queued nor running.
            loop {
                // SAFETY: `reaper` is an initialised `rcu_work` (type invariants).
                unsafe { bindings::flush_rcu_work(reaper) };
                if !self.busy.load(Ordering::Acquire) {
                    break;
                }
            }
        }
        // SAFETY: the doomed values belong to the rosebush (type invariants) and nobody borrows
        // them: every lookup borrowed the rosebush, and `batch` is null (`busy` is clear, or
        // `reap` took it).
        unsafe { drop_doomed::<T>(self.doomed.swap(ptr::null_mut(), Ordering::Acquire)) };
        // SAFETY: `self.as_ptr()` is an initialised rosebush (type invariant), which nobody else
        // uses any more: lookups, reservations and locks all borrow `self`. `free_value::<T>`
        // is called once for each pointer stored, without locks held.
        unsafe {
            bindings::rbh_free_and_destroy(self.as_ptr(), Some(free_value::<T>), ptr::null_mut())
        };
    }
}

/// The function of a rosebush's `reaper`: drops its batch, whose grace period has ended, then
/// starts the next one.
///
/// # Safety
///
/// `work` is the work of the `reaper` of a live `Rosebush<T>`, queued by `start_reaper`.
unsafe extern "C" fn reap<T: Send + 'static>(work: *mut bindings::work_struct) {
    // SAFETY: by the safety requirements `work` is the `work` of the `rcu_work` in the `reaper`
    // field of a live `Rosebush<T>` (`Opaque` is transparent), whose `Drop` waits for this
    // function, unless this function runs that `Drop` itself. Only the atomics and `batch` are
    // reached, without forming a reference to the whole rosebush (see `start_reaper`).
    let rb = unsafe {
        let rwork = crate::container_of!(work, bindings::rcu_work, work);
        crate::container_of!(rwork, Rosebush<T>, reaper)
    };
    // SAFETY: the task that queued this run set `busy` and `batch`; `busy` is still set, so only
    // this function uses `batch` (type invariants).
    let batch = unsafe {
        ptr::replace(
            UnsafeCell::raw_get(ptr::addr_of!((*rb).batch)),
            ptr::null_mut(),
        )
    };
    let alive = core::cell::Cell::new(true);
    // SAFETY: as above.
    unsafe { (*ptr::addr_of!((*rb).reaping)).store(alive.as_ptr(), Ordering::Relaxed) };
    // SAFETY: each value of the batch was removed before its grace period began, and that grace
    // period has ended, so no reader borrows them any more; they belonged to the rosebush, and
    // this function took them from it.
    unsafe { drop_doomed::<T>(batch) };
    // A value held the last reference to the rosebush's owner, and its `Drop` has run: nothing of
    // the rosebush may be touched again.
    if !alive.get() {
        return;
    }
    // SAFETY: as above; clearing `busy` gives up `batch`, which is null.
    unsafe {
        (*ptr::addr_of!((*rb).reaping)).store(ptr::null_mut(), Ordering::Relaxed);
        (*ptr::addr_of!((*rb).done)).fetch_add(1, Ordering::SeqCst);
        (*ptr::addr_of!((*rb).busy)).store(false, Ordering::SeqCst);
    }
    // SAFETY: the rosebush is live: its `Drop` waits for this function.
    unsafe { Rosebush::<T>::start_reaper(rb) };
}

/// Drops a list of doomed values.
///
/// # Safety
///
/// `p` is null or the first of a list of pointers from `Node::<T>::into_raw`, linked by
/// [`Node::next`], which the caller owns and nobody borrows.
unsafe fn drop_doomed<T: Send + 'static>(mut p: *mut c_void) {
    while !p.is_null() {
        // SAFETY: by the safety requirements `p` comes from `into_raw`, and is taken back once.
        let next = unsafe { *Node::<T>::next(p) };
        // SAFETY: as above.
        drop(unsafe { Node::<T>::from_raw(p) });
        p = next;
    }
}

/// The `free_fn` of `rbh_free_and_destroy()`: drops one value.
///
/// # Safety
///
/// `p` must have been stored in a rosebush of `T` whose every other user is gone, and be passed
/// here once.
unsafe extern "C" fn free_value<T: Send + 'static>(p: *mut c_void, _arg: *mut c_void) {
    // SAFETY: by the type invariants of `Rosebush`, `p` comes from `Node::<T>::into_raw` and
    // belongs to the rosebush, which is being destroyed: nobody borrows it.
    drop(unsafe { Node::<T>::from_raw(p) });
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
    /// The most slots of the table that point at one primary bucket: at most 1024.
    pub widest: usize,
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
    /// Buckets split in two.
    pub splits: usize,
    /// Pairs of buddy buckets merged into one.
    pub merges: usize,
}

/// A slot reserved by [`Rosebush::reserve`], released when dropped unless filled.
///
/// Releasing takes the bucket's lock: a reservation must not be dropped while this task holds a
/// [`Locked`] (of the same bucket, it would deadlock). To fill the slot under the bucket lock,
/// hand the reservation to the lock with [`Reservation::lock`]: the [`Locked`] then releases it,
/// if it was not filled, after unlocking.
///
/// # Invariants
///
/// A slot is reserved in `rb` under `hash`, and this reservation is its only owner.
#[must_use = "the slot is released at once if the `Reservation` is dropped"]
pub struct Reservation<'a, T: Send + 'static> {
    rb: &'a Rosebush<T>,
    hash: u32,
}

impl<'a, T: Send + 'static> Reservation<'a, T> {
    /// Stores `value` in the reserved slot, which cannot fail.
    ///
    /// # Context
    ///
    /// Does not sleep. Must not be called while this task holds a [`Locked`] (use
    /// [`Reservation::lock`] and [`Locked::fill`] then).
    pub fn fill(self, value: Node<T>) {
        let this = ManuallyDrop::new(self);
        let p = Node::into_raw(value);
        // SAFETY: `this.rb` is an initialised rosebush; by the type invariants a slot is reserved
        // under `this.hash` for this reservation, which is consumed here. Storing `p` keeps the
        // rosebush's invariant: it comes from `Node::into_raw`.
        let ret = unsafe { bindings::rbh_use(this.rb.as_ptr(), this.hash, p) };
        // `rbh_use()` refuses a null pointer, which `into_raw` never returns, and a hash with no
        // reservation, which the type invariants rule out.
        if ret != 0 {
            crate::pr_warn!("rosebush: rbh_use() failed: {}\n", ret);
            // SAFETY: `p` comes from `into_raw` above and was not stored.
            drop(unsafe { Node::<T>::from_raw(p) });
        }
    }

    /// Gives the slot back, as dropping the reservation does.
    ///
    /// # Context
    ///
    /// Process context; takes and releases a bucket lock, and maybe the work lock, but does not
    /// sleep or allocate. Must not be called while this task holds a [`Locked`].
    pub fn release(self) {
        drop(self);
    }

    /// Locks the bucket of the reserved hash, as [`Rosebush::lock`] does, and hands it the
    /// reservation: a writer can reserve (which may sleep), lock, check that no value it would
    /// clash with is stored, and store its own with [`Locked::fill`], all in one critical
    /// section.
    ///
    /// If the slot is not filled, dropping the [`Locked`] unlocks the bucket, then releases the
    /// slot: an early return cannot release it under the lock.
    ///
    /// # Context
    ///
    /// As [`Rosebush::lock`].
    ///
    /// # Examples
    ///
    /// Storing a value only if no equal one is stored:
    ///
    /// ```
    /// use kernel::rosebush::{new_rosebush, Node, Rosebush};
    ///
    /// let rb: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// for v in [4, 4, 5] {
    ///     let value = Node::new(v, GFP_KERNEL)?;
    ///     let mut locked = rb.reserve(v)?.lock();
    ///     let mut clash = false;
    ///     while let Some(old) = locked.next_value() {
    ///         clash |= *old == v;
    ///     }
    ///     if !clash {
    ///         assert!(locked.fill(value).is_ok());
    ///     }
    ///     // Unlocks, then releases the slot if it was not filled.
    ///     drop(locked);
    /// }
    /// assert_eq!(rb.stats().entries, 2);
    /// assert_eq!(rb.stats().reserved, 0);
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// A function that returns early holding the lock and the slot neither deadlocks nor leaks
    /// the slot:
    ///
    /// ```
    /// use kernel::rosebush::{new_rosebush, Node, Rosebush};
    ///
    /// fn store_if_even(rb: &Rosebush<u32>, v: u32) -> Result {
    ///     // Allocated first: the lock is a spinlock.
    ///     let value = Node::new(v, GFP_KERNEL)?;
    ///     let mut locked = rb.reserve(v)?.lock();
    ///     if v % 2 == 1 {
    ///         // Unlocks and releases the slot, then drops `value`.
    ///         return Err(EINVAL);
    ///     }
    ///     locked.fill(value).map_err(|_| EINVAL)
    /// }
    ///
    /// let rb: Pin<KBox<Rosebush<u32>>> = KBox::pin_init(new_rosebush!(), GFP_KERNEL)?;
    /// assert_eq!(store_if_even(&rb, 1), Err(EINVAL));
    /// assert_eq!(store_if_even(&rb, 2), Ok(()));
    /// let stats = rb.stats();
    /// assert_eq!((stats.entries, stats.reserved), (1, 0));
    ///
    /// // A `Locked` that holds no reservation hands the value back.
    /// let value = Node::new(3, GFP_KERNEL)?;
    /// let mut locked = rb.lock(3);
    /// let value = locked.fill(value).unwrap_err();
    /// drop(locked);
    /// drop(value);
    /// assert_eq!(rb.stats().entries, 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn lock(self) -> Locked<'a, T> {
        let this = ManuallyDrop::new(self);
        let mut locked = this.rb.lock(this.hash);
        // INVARIANT: the slot `this` owned is reserved under the locked hash, and now belongs
        // to `locked` alone (`this` is not dropped).
        locked.reserved = true;
        locked
    }
}

impl<T: Send + 'static> Drop for Reservation<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `self.rb` is an initialised rosebush and, by the type invariants, a slot is
        // reserved under `self.hash` for this reservation, which ends here: a null pointer asks
        // `rbh_remove()` to release it.
        let ret = unsafe { bindings::rbh_remove(self.rb.as_ptr(), self.hash, ptr::null_mut()) };
        if ret != 0 {
            crate::pr_warn!("rosebush: a reservation was not released: {}\n", ret);
        }
    }
}

/// The values stored under one hash, borrowed under an RCU read lock: [`Rosebush::lookup`].
///
/// # Invariants
///
/// `iter` is an iterator of a rosebush of `T` that `'a` borrows, and the RCU read lock is held
/// for `'a`.
#[must_use = "iterators are lazy: the walk begins with the first `next()`"]
pub struct Iter<'a, T: Send + 'static> {
    iter: bindings::rbh_iter,
    /// Whether `rbh_first()` has started the walk.
    started: bool,
    /// Whether the walk has ended: `rbh_first()` or `rbh_next()` returned null.
    ended: bool,
    _borrows: PhantomData<&'a Rosebush<T>>,
    _guard: &'a rcu::Guard,
}

impl<'a, T: Send + 'static> Iterator for Iter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        if self.ended {
            return None;
        }
        let p = if self.started {
            // SAFETY: by the type invariants the rosebush outlives `self` and the RCU read lock
            // is held; `rbh_first()` has started the walk, which has not ended.
            unsafe { bindings::rbh_next(&mut self.iter) }
        } else {
            self.started = true;
            // `rbh_first()` reads neither field of the iterator: it takes both as arguments.
            let (rbh, hash) = (self.iter.rbh, self.iter.hash);
            // SAFETY: by the type invariants `rbh` is a rosebush that outlives `self`, and the
            // RCU read lock is held.
            unsafe { bindings::rbh_first(&mut self.iter, rbh, hash) }
        };
        if p.is_null() {
            self.ended = true;
            return None;
        }
        // SAFETY: `p` was stored in the rosebush while this task held the RCU read lock, so it
        // comes from `Node::into_raw`, and it is dropped only after a grace period that begins
        // after it is removed, which ends after the read lock of `'a` (type invariants of
        // `Rosebush`). The borrow lasts no longer than `'a`.
        Some(unsafe { Node::<T>::borrow(p) })
    }
}

// Once the walk has ended, `next()` returns `None` for good.
impl<T: Send + 'static> FusedIterator for Iter<'_, T> {}

/// The bucket of one hash, locked by [`Rosebush::lock`]; unlocked when dropped.
///
/// A `Locked` is not [`Send`]: the lock belongs to the task that took it.
///
/// # Invariants
///
/// `iter` is an iterator of `rb`, locked with `rbh_iter_lock()` by this task. `current` is null
/// or the pointer `rbh_next()` last returned through `iter`, still stored. If `reserved`, a slot
/// is reserved under `iter.hash` and this `Locked` is its only owner.
#[must_use = "the bucket is unlocked as soon as the `Locked` is dropped"]
pub struct Locked<'a, T: Send + 'static> {
    rb: &'a Rosebush<T>,
    iter: bindings::rbh_iter,
    current: *mut c_void,
    reserved: bool,
    _not_send: PhantomData<*mut ()>,
}

impl<'a, T: Send + 'static> Locked<'a, T> {
    /// Returns the next value stored under the locked hash (or under another hash in the same
    /// bucket), or `None` at the end.
    pub fn next_value(&mut self) -> Option<&T> {
        // SAFETY: `self.iter` is locked (type invariants).
        let p = unsafe { bindings::rbh_next(&mut self.iter) };
        // INVARIANT: `current` is what `rbh_next()` returned.
        self.current = p;
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` is stored in the rosebush, so it comes from `Node::into_raw`; while the
        // bucket is locked nobody else can remove it, and the borrow ends before `self` is used
        // again.
        Some(unsafe { Node::<T>::borrow(p) })
    }

    /// Removes the value [`Locked::next_value`] returned last; it is dropped after a grace
    /// period. The walk goes on with [`Locked::next_value`].
    ///
    /// Returns `false`, removing nothing, if there is no such value: `next_value` was not called,
    /// returned `None`, or its value was already removed or replaced.
    ///
    /// # Context
    ///
    /// Does not sleep.
    pub fn remove_current(&mut self) -> bool {
        let p = core::mem::replace(&mut self.current, ptr::null_mut());
        // SAFETY: `p`, when not null, is what `rbh_next()` last returned through the locked
        // `self.iter` (type invariants).
        if p.is_null() || !unsafe { bindings::rbh_iter_remove(&mut self.iter, p) } {
            return false;
        }
        // SAFETY: `p` was stored in `self.rb` and was just removed under its bucket lock.
        unsafe { self.rb.defer_drop(p) };
        true
    }

    /// Replaces the value [`Locked::next_value`] returned last with `new`, in place: a lookup
    /// that runs meanwhile finds one or the other, never neither. The old value is dropped after
    /// a grace period, and the walk goes on after the new one.
    ///
    /// # Errors
    ///
    /// Hands `new` back if there is no value to replace (see [`Locked::remove_current`]).
    ///
    /// # Context
    ///
    /// Does not sleep.
    pub fn replace_current(&mut self, new: Node<T>) -> Result<(), Node<T>> {
        let p = core::mem::replace(&mut self.current, ptr::null_mut());
        if p.is_null() {
            return Err(new);
        }
        let q = Node::into_raw(new);
        // SAFETY: `p` is what `rbh_next()` last returned through the locked `self.iter`; storing
        // `q`, which comes from `Node::into_raw`, keeps the rosebush's invariants.
        if !unsafe { bindings::rbh_iter_replace(&mut self.iter, p, q) } {
            // SAFETY: `q` comes from `into_raw` above and was not stored.
            return Err(unsafe { Node::from_raw(q) });
        }
        // SAFETY: `p` was stored in `self.rb` and was just replaced under its bucket lock.
        unsafe { self.rb.defer_drop(p) };
        Ok(())
    }

    /// Stores `value` in the slot reserved under the locked hash, which [`Reservation::lock`]
    /// handed to this `Locked`.
    ///
    /// # Errors
    ///
    /// Hands `value` back if this `Locked` holds no reservation: it was not made by
    /// [`Reservation::lock`], or its slot is already filled. Dropping the value runs its
    /// destructor, under the lock if the `Locked` still lives.
    ///
    /// # Context
    ///
    /// Does not sleep.
    pub fn fill(&mut self, value: Node<T>) -> Result<(), Node<T>> {
        if !self.reserved {
            return Err(value);
        }
        let p = Node::into_raw(value);
        // SAFETY: `self.iter` is locked (type invariants) on the hash its reservation is under;
        // `p` comes from `Node::into_raw`, so storing it keeps the rosebush's invariants.
        let ret = unsafe { bindings::rbh_iter_use(&mut self.iter, p) };
        if ret != 0 {
            // SAFETY: `p` comes from `into_raw` above and was not stored.
            return Err(unsafe { Node::from_raw(p) });
        }
        // INVARIANT: the slot is used; there is no reservation left to release.
        self.reserved = false;
        Ok(())
    }
}

impl<T: Send + 'static> Drop for Locked<'_, T> {
    fn drop(&mut self) {
        let hash = self.iter.hash;
        // SAFETY: `self.iter` is locked by this task (type invariants).
        unsafe { bindings::rbh_iter_unlock(&mut self.iter) };
        if self.reserved {
            // Released after unlocking: releasing takes the bucket lock.
            // INVARIANT: the slot is reserved under `hash` and owned by this `Locked` alone (type
            // invariants), which hands it over here.
            drop(Reservation { rb: self.rb, hash });
        }
    }
}

/// A map from keys to values, on a [`Rosebush`] hashed with SipHash under a random key.
///
/// Each map draws its own SipHash key, so the hashes of its keys cannot be predicted and nobody
/// can make many keys share a hash. Collisions are resolved inside: callers never see hashes.
///
/// Lookups ([`Map::get`]) take no lock and borrow under an [`rcu::Guard`]. Writers lock only the
/// bucket of the key they change, so writers of different keys proceed in parallel, and none
/// waits for a grace period: a value removed or replaced is dropped after one, by the rosebush's
/// reaper, in process context (see the [module documentation](self)). `K`'s [`Hash`]
/// and [`Eq`] must not sleep: they also run under a bucket's spinlock. Dropping a map sleeps, as
/// dropping a [`Rosebush`] does.
///
/// # Invariants
///
/// - Every value of `table` is a `MapEntry` stored under the hash of its key,
///   `self.hash(&entry.key)`.
/// - No two entries of `table` have equal keys (given lawful [`Hash`] and [`Eq`]): an entry is
///   stored only by [`Map::insert`], under the lock of its hash's bucket, after the walk of that
///   hash under the same lock found no entry with an equal key. Nothing unsafe relies on this.
/// - `len` is the number of entries, as of the last insertion or removal to update it: each
///   updates it under the bucket lock of the entry it changes, so it never wraps, but while
///   writers run it is only a snapshot.
///
/// # Examples
///
/// ```
/// use kernel::{
///     rosebush::{new_map, Map},
///     sync::rcu,
/// };
///
/// let map: Pin<KBox<Map<u32, u64>>> = KBox::pin_init(new_map!(), GFP_KERNEL)?;
/// for i in 0..100 {
///     assert!(!map.insert(i, u64::from(i) * 10)?);
/// }
/// // Replacing a value: `true`, and the old value is dropped after a grace period.
/// assert!(map.insert(5, 55)?);
/// assert_eq!(map.len(), 100);
///
/// {
///     let guard = rcu::read_lock();
///     let five = map.get(&5, &guard);
///     assert_eq!(five, Some(&55));
///     assert_eq!(map.get(&100, &guard), None);
///     // Removal does not wait for readers, so it may be called under `guard`, which still
///     // borrows the value.
///     assert!(map.remove(&5));
///     assert_eq!(five, Some(&55));
///     assert_eq!(map.get(&5, &guard), None);
/// }
///
/// assert!(map.remove(&7));
/// assert!(!map.remove(&7));
/// assert_eq!(map.len(), 98);
///
/// // A failed insertion hands the key and the value back.
/// if let Err(err) = map.insert(7, 70) {
///     let (key, value) = err.value;
///     pr_warn!("{key} -> {value} not stored\n");
/// }
/// # Ok::<(), Error>(())
/// ```
#[pin_data]
pub struct Map<K: Send + 'static, V: Send + 'static> {
    #[pin]
    table: Rosebush<MapEntry<K, V>>,
    len: AtomicUsize,
    key: bindings::siphash_key_t,
    /// How entries are allocated: charged if the buckets are.
    entry_flags: Flags,
}

/// A key and its value, as a [`Map`] stores them.
struct MapEntry<K, V> {
    key: K,
    value: V,
}

impl<K: Hash + Eq + Send + 'static, V: Send + 'static> Map<K, V> {
    /// Creates an empty map with a random SipHash key, allocating as `flags` say, whose locks
    /// have the lockdep classes `classes`: use [`new_map!`].
    pub fn new(
        flags: BucketFlags,
        name: &'static crate::str::CStr,
        classes: &'static LockClasses,
    ) -> impl PinInit<Self> {
        let mut key = bindings::siphash_key_t { key: [0; 2] };
        // SAFETY: `key` is valid for writes of its size.
        unsafe {
            bindings::get_random_bytes(ptr::addr_of_mut!(key).cast(), core::mem::size_of_val(&key))
        };
        let entry_flags = if flags.contains(BucketFlags::ACCOUNT) {
            GFP_KERNEL_ACCOUNT
        } else {
            GFP_KERNEL
        };
        pin_init!(Self {
            table <- Rosebush::new(flags, name, classes),
            len: AtomicUsize::new(0),
            key,
            entry_flags,
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
    /// use kernel::{
    ///     rosebush::{new_map, Map},
    ///     sync::rcu,
    /// };
    ///
    /// let map: Pin<KBox<Map<&'static str, u32>>> = KBox::pin_init(new_map!(), GFP_KERNEL)?;
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

    /// Advances `locked` to the entry of `key`; `false` if there is none.
    fn seek<Q>(locked: &mut Locked<'_, MapEntry<K, V>>, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        while let Some(entry) = locked.next_value() {
            if entry.key.borrow() == key {
                return true;
            }
        }
        false
    }

    /// Sets the value of `key`; returns `true` if it replaced a value.
    ///
    /// A value is replaced in place: lookups find the old value or the new one, never neither.
    /// The old value (and its key) is dropped after a grace period.
    ///
    /// # Errors
    ///
    /// `ENOMEM` if memory could not be allocated: the map is unchanged, and `key` and `value`
    /// are handed back (see [`InsertError`]).
    ///
    /// # Context
    ///
    /// Process context; may sleep, to allocate the entry (with `GFP_KERNEL`, or
    /// `GFP_KERNEL_ACCOUNT` in a map made with [`BucketFlags::ACCOUNT`]) and, if the key is not
    /// stored, a bucket. Must not be called while this task holds an [`rcu::Guard`] or a
    /// [`Locked`].
    pub fn insert(&self, key: K, value: V) -> Result<bool, InsertError<(K, V)>> {
        let give_back = |entry: MapEntry<K, V>, error| InsertError {
            value: (entry.key, entry.value),
            error,
        };
        let hash = self.hash(&key);
        let entry = Node::new_or_give_back(MapEntry { key, value }, self.entry_flags)
            .map_err(|entry| give_back(entry, ENOMEM))?;

        // A key that is stored is replaced under its bucket's lock, with nothing to allocate.
        if self
            .table
            .lookup(hash, &rcu::read_lock())
            .any(|e| e.key == entry.key)
        {
            let mut locked = self.table.lock(hash);
            if Self::seek(&mut locked, &entry.key) {
                return match locked.replace_current(entry) {
                    Ok(()) => Ok(true),
                    // Cannot happen: `seek` just returned this entry.
                    Err(entry) => Err(give_back(Node::into_inner(entry), EINVAL)),
                };
            }
        }

        // A new key (or one removed meanwhile): reserve a slot, then check again under the lock.
        // Dropping `locked` unlocks, then releases the slot if it was not filled.
        let mut locked = match self.table.reserve(hash) {
            Ok(slot) => slot.lock(),
            Err(error) => return Err(give_back(Node::into_inner(entry), error)),
        };
        let (result, replaced) = if Self::seek(&mut locked, &entry.key) {
            (locked.replace_current(entry), true)
        } else {
            (locked.fill(entry), false)
        };
        if result.is_ok() && !replaced {
            // Under the lock, so that a removal of the key counts after this.
            self.len.fetch_add(1, Ordering::Relaxed);
        }
        drop(locked);
        match result {
            Ok(()) => Ok(replaced),
            // Cannot happen: `seek` just returned the entry, or the slot is reserved.
            Err(entry) => Err(give_back(Node::into_inner(entry), EINVAL)),
        }
    }

    /// Removes `key`; returns `true` if it was there. Its value is dropped after a grace period.
    ///
    /// Unlike `HashMap::remove`, this does not hand the value back: readers may still borrow it,
    /// even the caller's own [`rcu::Guard`].
    ///
    /// # Context
    ///
    /// Process context; takes a bucket's spinlock (and maybe the work lock) but does not sleep
    /// or allocate, so it may be called under a spinlock or while this task holds an
    /// [`rcu::Guard`] that borrows the value. Must not be called while this task holds a
    /// [`Locked`] of any rosebush.
    pub fn remove<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let mut locked = self.table.lock(self.hash(key));
        if !(Self::seek(&mut locked, key) && locked.remove_current()) {
            return false;
        }
        self.len.fetch_sub(1, Ordering::Relaxed);
        true
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
