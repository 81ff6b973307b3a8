//! Issue 22, 4: scattering a rectangle works in bounded memory. The largest rectangle
//! [`WorldGenerator::scatter_in_rect`] accepts is measured with a counting allocator (this file
//! holds one test, so nothing else allocates beside it), and one wider is refused, naming the
//! limit, before anything is allocated.
#![expect(
    unsafe_code,
    reason = "a counting allocator forwards every call to the system allocator"
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use biome_core::WorldGenerator;
use biome_core::scatter::{MAX_CELLS, ScatterError, ScatterKind, max_search_cells};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call goes to the system allocator unchanged; the counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        // SAFETY: the caller's contract is `System`'s.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The working memory of the largest accepted search, per candidate cell.
const BYTES_PER_CELL: usize = 400;

#[test]
fn the_largest_scatter_rectangle_works_in_bounded_memory() {
    let generator = WorldGenerator::default();
    let kind = ScatterKind::Grass;
    // The widest square whose search is bounded by the limit, to a metre.
    let cells = |side: f64| max_search_cells(generator.settings(), kind, side, side);
    let (mut low, mut high) = (1.0, 100_000.0);
    while high - low > 1.0 {
        let mid = 0.5 * (low + high);
        if cells(mid) <= MAX_CELLS {
            low = mid;
        } else {
            high = mid;
        }
    }
    // The bound holds for every placement of the square; one a little wider is refused.
    let high = high * 1.01;
    match generator.scatter_in_rect(kind, [0.0, 0.0], [high, high]) {
        Err(ScatterError::TooLarge { cells, limit }) => {
            assert!(
                cells > limit && limit == MAX_CELLS,
                "{cells} cells, limit {limit}"
            );
        }
        other => panic!("{high} m should be refused, got {other:?}"),
    }
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    let objects = generator
        .scatter_in_rect(kind, [0.0, 0.0], [low, low])
        .expect("accepted");
    let took = start.elapsed();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let bound = BYTES_PER_CELL * MAX_CELLS as usize;
    println!(
        "grass over {low:.0} m a side: {} objects in {took:?}, peak {:.1} MiB (bound {:.1} MiB)",
        objects.len(),
        peak as f64 / f64::from(1 << 20),
        bound as f64 / f64::from(1 << 20)
    );
    assert!(!objects.is_empty());
    assert!(peak <= bound, "peak {peak} bytes over {bound}");
}
