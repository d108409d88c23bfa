//! Locks that outlive a panic. A task that panics while it holds a lock leaves the lock
//! poisoned; every lock of podhost guards data that stays consistent between statements (a
//! cache, a map of moments, a loaded state replaced whole), so the next holder takes the data as
//! the panicking task left it instead of panicking too.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// [`Mutex::lock`], whether or not a holder panicked.
pub trait Locked<T: ?Sized> {
    /// The guard.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// [`RwLock::read`] and [`RwLock::write`], whether or not a holder panicked.
pub trait Shared<T: ?Sized> {
    /// The read guard.
    fn reading(&self) -> RwLockReadGuard<'_, T>;
    /// The write guard.
    fn writing(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> Shared<T> for RwLock<T> {
    fn reading(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(|e| e.into_inner())
    }

    fn writing(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(|e| e.into_inner())
    }
}
