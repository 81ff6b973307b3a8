//! Issue 22, 4: scattering a rectangle works in bounded memory. The largest rectangle
//! [`WorldGenerator::scatter_in_rect`] accepts is measured with a counting allocator, and one
//! wider is refused, naming the limit, before anything is allocated.

mod counting;

use std::time::Instant;

use biome_core::scatter::{MAX_CELLS, ScatterError, ScatterLayer, max_search_cells};
use biome_core::{ChunkLayout, WorldGenerator};

use counting::peak_of;

/// The working memory of the largest accepted search, per candidate cell.
const BYTES_PER_CELL: usize = 400;

#[test]
fn the_largest_scatter_rectangle_works_in_bounded_memory() {
    let generator = WorldGenerator::default();
    let kind = generator
        .settings()
        .scatter
        .layer_index(ScatterLayer::GRASS)
        .unwrap();
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
    match generator.scatter_in_rect(kind, [0.0, 0.0], [high, high], &ChunkLayout::default()) {
        Err(ScatterError::TooLarge { cells, limit }) => {
            assert!(
                cells > limit && limit == MAX_CELLS,
                "{cells} cells, limit {limit}"
            );
        }
        other => panic!("{high} m should be refused, got {other:?}"),
    }
    let start = Instant::now();
    let (objects, peak) = peak_of(|| {
        generator
            .scatter_in_rect(kind, [0.0, 0.0], [low, low], &ChunkLayout::default())
            .expect("accepted")
    });
    let took = start.elapsed();
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
