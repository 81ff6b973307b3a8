//! The cells that answer most multi-noise lookups: the climate space the boxes span, cut along
//! each axis at their range ends, and for each cell the few boxes that can fit best somewhere
//! in it. A lookup finds its cell with a count per axis and fits only those boxes; points
//! beyond every box on some axis have no cell.
//!
//! The candidates are exact, not estimated: a box's computed fit (`fit` in the parent module)
//! only rises with each axis's computed distance, which on a cell's interval is lowest in it or
//! at an end and highest at an end, so summing each axis's least (or greatest) squared distance
//! over the cell the same way gives a floor (or a ceiling) that no point of the cell, as
//! computed, goes below (or above). A box whose floor is above the lowest ceiling, or equal to
//! it and listed later, never wins in the cell.

use super::{AXES, AxisRange, BiomeBox, ClimatePoint};

/// At most this many box-cell pairs are weighed when cells are built, so building stays a few
/// milliseconds for any box list: more boxes get fewer, coarser cells.
const BUILD_WORK: usize = 1 << 18;

/// Cells are made finer up to this many: more cost memory and build time for bounds only a
/// little tighter.
const MOST_CELLS: usize = 1 << 13;

/// Cells whose candidates average more than this are no faster than the leaves' search, and
/// are not kept.
const MOST_CANDIDATES: usize = 8;

/// The cells of a box list and each cell's candidates.
#[derive(Clone, Debug)]
pub(super) struct CellGrid {
    /// Per axis, the cells' edges in ascending order: cell `i` spans `edges[i]..=edges[i + 1]`.
    edges: [Vec<f64>; AXES],
    /// Where each cell's candidates start in `candidates`, and where the last ends.
    starts: Vec<u32>,
    /// Each cell's candidate boxes (indices into the box list), in ascending order.
    candidates: Vec<u16>,
}

impl CellGrid {
    /// The cells of `boxes` (1 to [`super::MAX_BOXES`] valid boxes), or `None` where they would
    /// not narrow the search enough to pay.
    pub(super) fn new(boxes: &[BiomeBox]) -> Option<Self> {
        let mut edges: [Vec<f64>; AXES] = std::array::from_fn(|axis| {
            let mut ends: Vec<f64> = boxes
                .iter()
                .flat_map(|b| [b.ranges[axis].min, b.ranges[axis].max])
                .collect();
            ends.sort_by(f64::total_cmp);
            ends.dedup();
            // A box list with one value per axis still has one (empty) cell.
            if ends.len() == 1 {
                ends.push(ends[0]);
            }
            ends
        });
        // Fewer, coarser cells while there are too many to build: halve the axis cut finest.
        let budget = (BUILD_WORK / boxes.len()).max(1);
        while cell_count(&edges) > budget {
            let finest = (0..AXES).max_by_key(|&axis| edges[axis].len()).unwrap_or(0);
            let cut = &mut edges[finest];
            let last = cut[cut.len() - 1];
            let mut k = 0;
            cut.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            if cut[cut.len() - 1] != last {
                cut.push(last);
            }
        }
        // Finer cells while there is room, for tighter bounds: halve every cell on the axis
        // cut least among those the boxes differ on (and that still halve).
        let mut differs: [bool; AXES] = std::array::from_fn(|axis| {
            boxes
                .iter()
                .any(|b| b.ranges[axis] != boxes[0].ranges[axis])
        });
        let room = budget.min(MOST_CELLS);
        while let Some(axis) = (0..AXES)
            .filter(|&axis| differs[axis])
            .min_by_key(|&axis| edges[axis].len())
            && cell_count(&edges) * 2 <= room
        {
            let cut = &edges[axis];
            let mut finer = Vec::with_capacity(cut.len() * 2);
            for pair in cut.windows(2) {
                finer.extend([pair[0], pair[0] + (pair[1] - pair[0]) / 2.0]);
            }
            finer.push(cut[cut.len() - 1]);
            finer.dedup();
            differs[axis] = finer.len() > cut.len();
            edges[axis] = finer;
        }

        // Each box's least and greatest squared distance over each axis's cells, computed as a
        // fit computes them.
        let spans: [Vec<Vec<Span>>; AXES] = std::array::from_fn(|axis| {
            edges[axis]
                .windows(2)
                .map(|cell| {
                    boxes
                        .iter()
                        .map(|b| Span::over(b.ranges[axis], cell[0], cell[1]))
                        .collect()
                })
                .collect()
        });
        let count = cell_count(&edges);
        let mut starts = Vec::with_capacity(count + 1);
        let mut candidates = Vec::new();
        let mut floors = vec![0.0; boxes.len()];
        let mut at = [0; AXES];
        for _ in 0..count {
            starts.push(candidates.len() as u32);
            // The lowest ceiling, the first box with it among equals.
            let mut lowest = (f64::INFINITY, usize::MAX);
            for (i, (b, floor)) in boxes.iter().zip(&mut floors).enumerate() {
                let (mut low, mut high) = (0.0, 0.0);
                for axis in 0..AXES {
                    let span = spans[axis][at[axis]][i];
                    low += span.least;
                    high += span.most;
                }
                let offset = b.offset * b.offset;
                *floor = low + offset;
                let ceiling = high + offset;
                if ceiling < lowest.0 {
                    lowest = (ceiling, i);
                }
            }
            candidates.extend(
                floors
                    .iter()
                    .enumerate()
                    .filter(|&(i, &floor)| floor < lowest.0 || (floor == lowest.0 && i <= lowest.1))
                    .map(|(i, _)| i as u16),
            );
            // The next cell, the last axis fastest (as `cell` numbers them).
            for axis in (0..AXES).rev() {
                at[axis] += 1;
                if at[axis] + 1 < edges[axis].len() {
                    break;
                }
                at[axis] = 0;
            }
        }
        starts.push(candidates.len() as u32);
        (candidates.len() <= count * MOST_CANDIDATES).then_some(Self {
            edges,
            starts,
            candidates,
        })
    }

    /// The candidates of the cell that holds `point`, or `None` if it lies outside every cell
    /// (or has a NaN).
    #[inline]
    pub(super) fn candidates(&self, point: &ClimatePoint) -> Option<&[u16]> {
        let mut cell = 0;
        for (edges, &value) in self.edges.iter().zip(point) {
            let last = edges.len() - 1;
            if !(value >= edges[0] && value <= edges[last]) {
                return None;
            }
            // The cell whose span holds the value: how many inner edges are at or below it.
            let inner = &edges[1..last];
            let k = inner.iter().filter(|&&edge| edge <= value).count();
            cell = cell * last + k;
        }
        let (start, end) = (self.starts[cell], self.starts[cell + 1]);
        Some(&self.candidates[start as usize..end as usize])
    }

    /// How many cells there are.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }
}

/// How many cells `edges` cut the space into.
fn cell_count(edges: &[Vec<f64>; AXES]) -> usize {
    edges.iter().map(|cut| cut.len() - 1).product()
}

/// A box's least and greatest squared distance on one axis over a cell's span.
#[derive(Clone, Copy)]
struct Span {
    least: f64,
    most: f64,
}

impl Span {
    /// The least and greatest of `range`'s squared distance for values from `low` to `high`.
    /// The computed distance falls to the range, is 0 in it and rises past it, so the greatest
    /// is at an end, and the least at an end or 0 where the span meets the range.
    fn over(range: AxisRange, low: f64, high: f64) -> Self {
        let [at_low, at_high] = [low, high].map(|value| {
            let d = range.distance(value);
            d * d
        });
        let meets = range.min <= high && range.max >= low;
        Self {
            least: if meets { 0.0 } else { at_low.min(at_high) },
            most: at_low.max(at_high),
        }
    }
}
