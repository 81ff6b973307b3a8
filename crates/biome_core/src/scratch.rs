//! Reusable `f64` buffers for the batch paths, pooled per thread: building chunk after chunk
//! allocates no scratch memory once the pool is warm, so the allocator neither trims the heap
//! nor faults the same pages back in on every build.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// Buffers kept per thread.
const POOLED: usize = 24;
/// Buffers larger than this (in values) are freed rather than kept: only huge layouts need
/// them, and a thread should not hold their memory for ever.
const MAX_POOLED_LEN: usize = 1 << 16;

thread_local! {
    static POOL: RefCell<Vec<Vec<f64>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer from this thread's pool, given back when dropped.
pub(crate) struct Scratch(Vec<f64>);

impl Scratch {
    /// `len` zeros.
    pub(crate) fn zeroed(len: usize) -> Self {
        let mut buffer = Self::empty();
        buffer.0.resize(len, 0.0);
        buffer
    }

    /// The values of `values`, in order.
    pub(crate) fn collect(values: impl Iterator<Item = f64>) -> Self {
        let mut buffer = Self::empty();
        buffer.0.extend(values);
        buffer
    }

    fn empty() -> Self {
        let mut buffer = POOL
            .try_with(|pool| pool.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        buffer.clear();
        Self(buffer)
    }
}

impl Deref for Scratch {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        &self.0
    }
}

impl DerefMut for Scratch {
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.0.capacity() > MAX_POOLED_LEN {
            return;
        }
        let buffer = std::mem::take(&mut self.0);
        // During thread teardown the pool may be gone: the buffer is then simply freed.
        let _ = POOL.try_with(|pool| {
            let mut pool = pool.borrow_mut();
            if pool.len() < POOLED {
                pool.push(buffer);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_zeroed_or_filled_and_are_reused() {
        let first = Scratch::collect([1.0, 2.0, 3.0].into_iter());
        let address = first.as_ptr();
        drop(first);
        let again = Scratch::zeroed(2);
        assert_eq!(&*again, &[0.0, 0.0]);
        assert_eq!(again.as_ptr(), address, "the pooled buffer is reused");
        let huge = Scratch::zeroed(MAX_POOLED_LEN + 1);
        drop(huge);
        assert!(POOL.with(|p| p.borrow().iter().all(|b| b.capacity() <= MAX_POOLED_LEN)));
    }
}
