// SPDX-License-Identifier: GPL-2.0

//! Read-copy update (RCU) read-side critical sections.
//!
//! A [`Guard`] marks a read-side critical section: while it lives, an object that an RCU-protected
//! structure still pointed to when the guard was taken is not freed, even if it is removed from
//! the structure meanwhile. Data structures hand out references whose lifetime is bounded by a
//! borrow of the guard, so the compiler checks that none outlives the critical section.
//!
//! C header: [`include/linux/rcupdate.h`](srctree/include/linux/rcupdate.h)

use core::marker::PhantomData;

/// Proof that the current task is in an RCU read-side critical section.
///
/// Critical sections nest: each guard ends the section it began when it is dropped (or passed to
/// [`Guard::unlock`]). The code between may not sleep.
///
/// A guard is neither [`Send`] nor [`Sync`]: the critical section belongs to the task (and, without
/// `CONFIG_PREEMPT_RCU`, the CPU) that began it.
///
/// # Invariants
///
/// The task that created the guard is in an RCU read-side critical section that the guard began
/// and that lasts until the guard is dropped.
///
/// # Examples
///
/// ```
/// use kernel::sync::rcu;
///
/// let guard = rcu::read_lock();
/// // Read RCU-protected data here, with references that borrow `guard`.
/// guard.unlock();
///
/// // Sections nest, and end when their guards are dropped.
/// let outer = rcu::read_lock();
/// {
///     let _inner = rcu::read_lock();
/// }
/// drop(outer);
/// ```
pub struct Guard {
    // A raw pointer makes the type neither `Send` nor `Sync`.
    _not_send: PhantomData<*mut ()>,
}

impl Guard {
    /// Begins an RCU read-side critical section.
    ///
    /// Equivalent to [`read_lock`].
    #[inline]
    pub fn new() -> Self {
        // SAFETY: `rcu_read_lock()` may be called in any context; the matching
        // `rcu_read_unlock()` is in `Drop`.
        unsafe { bindings::rcu_read_lock() };
        // INVARIANT: the critical section began above and ends when `self` is dropped.
        Self {
            _not_send: PhantomData,
        }
    }

    /// Ends the RCU read-side critical section, like dropping the guard does.
    #[inline]
    pub fn unlock(self) {}
}

impl Default for Guard {
    #[inline]
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Guard {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: by the type invariants, this task is in the critical section this guard began,
        // and, since the guard cannot be sent to another task, this is the task that began it.
        unsafe { bindings::rcu_read_unlock() };
    }
}

/// Begins an RCU read-side critical section, which lasts until the returned guard is dropped.
///
/// # Examples
///
/// ```
/// let guard = kernel::sync::rcu::read_lock();
/// drop(guard);
/// ```
#[inline]
pub fn read_lock() -> Guard {
    Guard::new()
}
