//! A counting allocator for the tests that bound memory. It forwards every call to the system
//! allocator and counts, per thread, the bytes live and their peak, so tests running beside each
//! other do not see each other's allocations (the core builds on the calling thread).
#![expect(
    unsafe_code,
    reason = "a counting allocator forwards every call to the system allocator"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grew(bytes: isize) {
    // A thread being torn down has no counters left: its last frees go uncounted.
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

fn size(bytes: usize) -> isize {
    isize::try_from(bytes).expect("an allocation fits isize")
}

struct Counting;

// SAFETY: every call goes to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(size(layout.size()));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grew(-size(layout.size()));
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Both blocks are live while the old one is copied.
        grew(size(new_size));
        // SAFETY: the caller's contract is `System`'s.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        grew(-size(layout.size()));
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `work` and returns its answer with the most bytes this thread held at once while it
/// ran, beyond what it held before.
pub(crate) fn peak_of<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let answer = work();
    let peak = PEAK.with(Cell::get) - before;
    (answer, usize::try_from(peak).unwrap_or(0))
}
