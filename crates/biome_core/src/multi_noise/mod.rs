//! A multi-noise biome source in the style of Minecraft 1.18+: every biome is a box in a climate
//! space of [`AXES`] axes (temperature, moisture, continentalness, erosion, weirdness), a
//! `min..=max` range per axis plus an offset, and a point of that space belongs to the box it
//! fits best: the smallest sum over the axes of the squared distance to the box's range (0
//! inside it), plus the squared offset. Ties go to the box listed first.
//!
//! [`MultiNoise`] is the source as a world setting (`WorldSettings::biome_source`): its three
//! extra axes are density graphs of the world, and its boxes name the biomes they pick.
//! [`BiomeBoxIndex`] answers the lookup from cells of the climate space, cut at the boxes'
//! range ends, each listing the few boxes that can fit best somewhere in it (`grid`). Points
//! outside every cell, and box lists too large for fine cells, go to leaves of boxes grouped by
//! where they lie, each leaf bounded by the union of its ranges and its smallest offset, so a
//! search skips every leaf whose bound already fits worse than the best box found. Cells and
//! bounds are computed with the same operations as a box's fit, so in floating point they
//! never exceed the fit of a box they stand for: the answer is exactly the brute-force scan's
//! ([`BiomeBoxIndex::nearest_by_scan`], tested over random box sets).

mod grid;

use serde::{Deserialize, Serialize};

use crate::biomes::BiomeTable;
use crate::check::{Check, Checked, SettingsError};
use crate::density::{DensityFunctions, DensityNode, Shape, Space};
use crate::limits;
use grid::CellGrid;

/// The climate axes of a [`BiomeBox`], in order.
pub const AXES: usize = 5;

/// The names of the axes, in order, as errors and the panel name them.
pub const AXIS_NAMES: [&str; AXES] = [
    "temperature",
    "moisture",
    "continentalness",
    "erosion",
    "weirdness",
];

/// A point of the climate space: one value per axis, in [`AXIS_NAMES`] order.
pub type ClimatePoint = [f64; AXES];

/// A closed range of one axis.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AxisRange {
    /// The smallest value in the range.
    pub min: f64,
    /// The largest value in the range.
    pub max: f64,
}

impl AxisRange {
    /// The range a box gives an axis it does not care about: every value an axis can take
    /// ([`crate::limits::DENSITY`]), so that axis adds nothing to its fit.
    pub const ANY: Self = Self::new(*limits::DENSITY.start(), *limits::DENSITY.end());

    /// `min..=max`.
    #[must_use]
    pub const fn new(min: f64, max: f64) -> Self {
        Self { min, max }
    }

    /// How far `value` lies outside the range (0 inside, and for NaN).
    #[inline]
    fn distance(self, value: f64) -> f64 {
        // At most one side is positive (`min <= max`); without branches, so a scan over boxes
        // neither mispredicts nor stops the compiler's SIMD.
        positive(self.min - value) + positive(value - self.max)
    }
}

/// `x` if it is above 0, else 0 (NaN too).
#[inline(always)]
fn positive(x: f64) -> f64 {
    if x > 0.0 { x } else { 0.0 }
}

/// One biome's place in the climate space. In presets each range is written under its axis's
/// name as `(min, max)`, like `(biome: 6, temperature: (0.6, 1.0), moisture: (0.0, 0.4))`;
/// axes left out span [`AxisRange::ANY`] (and are left out when written), as is an offset of 0.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "BoxFile", into = "BoxFile")]
pub struct BiomeBox {
    /// The biome it stands for (an index into the world's biome list).
    pub biome: usize,
    /// Its range on each axis, in [`AXIS_NAMES`] order.
    pub ranges: [AxisRange; AXES],
    /// Added (squared) to every fit, so a box with an offset wins only where others fit worse
    /// by more: rarer biomes.
    pub offset: f64,
}

impl BiomeBox {
    /// How well `point` fits the box: the sum of the squared distances to its ranges, plus its
    /// squared offset. 0 is inside a box without offset; smaller fits better.
    #[must_use]
    #[inline]
    pub fn fit(&self, point: &ClimatePoint) -> f64 {
        fit(&self.ranges, self.offset, point)
    }
}

/// The multi-noise biome source as a world setting: three more climate axes, each a density
/// graph of the world (read like the terrain's, from the same seed), and the boxes that place
/// the biome list ([`BiomeTable::biomes`]) in the climate space. A region takes the biome of
/// the box its site's climate point fits best: temperature and moisture as the climate gives
/// them (0 to 1, with mountain chill and the rain shadow), the other three as their graphs do.
///
/// An axis can reuse part of the terrain's stack, so biomes follow the land: the `multi_noise`
/// preset reads continentalness from the same warped fBm that raises its continents.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MultiNoise {
    /// How far inland a point lies.
    pub continentalness: DensityNode,
    /// How worn-down the land is.
    pub erosion: DensityNode,
    /// A free axis for rarer biome variants.
    pub weirdness: DensityNode,
    /// One box per biome placement; a biome may have several. At least one, and at most
    /// [`MAX_BOXES`].
    pub boxes: Vec<BiomeBox>,
}

impl Default for MultiNoise {
    /// The default biome table's biomes as boxes over plain fBm axes.
    fn default() -> Self {
        Self::from_table(&BiomeTable::default())
    }
}

impl MultiNoise {
    /// The source that picks exactly what `table` picks: one box per biome over its row's
    /// temperatures and its column's moistures, each axis's full range on the first and last
    /// rows and columns, [`AxisRange::ANY`] on the other axes (which then add nothing to any
    /// fit), and plain fBm axes to start editing from. A box ends just below the next one's
    /// threshold, as the table counts a value at a threshold into the next row.
    #[must_use]
    pub fn from_table(table: &BiomeTable) -> Self {
        // A band ends just below the next threshold; a band no value falls in (its threshold
        // at 0) gets an empty range.
        let bands = |limits: &[f64]| -> Vec<Option<AxisRange>> {
            let mut edges = vec![0.0];
            edges.extend_from_slice(limits);
            edges.push(1.0);
            edges
                .windows(2)
                .enumerate()
                .map(|(k, pair)| {
                    let last = k + 2 == edges.len();
                    let top = if last { pair[1] } else { pair[1].next_down() };
                    (pair[0] <= top).then(|| AxisRange::new(pair[0], top))
                })
                .collect()
        };
        let (rows, columns) = (bands(&table.heat_limits), bands(&table.wet_limits));
        let mut boxes = Vec::with_capacity(rows.len() * columns.len());
        for (r, &temperature) in rows.iter().enumerate() {
            for (c, &moisture) in columns.iter().enumerate() {
                // The box of a cell the table never picks fits nothing better than an offset
                // beyond any fit a real box gives.
                let picked = temperature.zip(moisture);
                let [temperature, moisture] =
                    picked.map_or([AxisRange::new(0.0, 0.0); 2], |(t, m)| [t, m]);
                boxes.push(BiomeBox {
                    biome: r * columns.len() + c,
                    ranges: [
                        temperature,
                        moisture,
                        AxisRange::ANY,
                        AxisRange::ANY,
                        AxisRange::ANY,
                    ],
                    offset: if picked.is_some() { 0.0 } else { NEVER },
                });
            }
        }
        let axis = |seed_offset| DensityNode::fbm(seed_offset, 0.0006, 3, Shape::Normal);
        Self {
            continentalness: axis(seed_offsets::CONTINENTALNESS),
            erosion: axis(seed_offsets::EROSION),
            weirdness: axis(seed_offsets::WEIRDNESS),
            boxes,
        }
    }

    /// The three axis graphs, in [`AXIS_NAMES`] order after temperature and moisture.
    #[must_use]
    pub fn axes(&self) -> [&DensityNode; 3] {
        [&self.continentalness, &self.erosion, &self.weirdness]
    }
}

/// The offset of a box that never wins: its fit is beyond what any box without an offset
/// gives for climate points within the axes' ranges.
const NEVER: f64 = 1.0e7;

/// The seed offsets [`MultiNoise::from_table`] gives its axes: clear of the terrain's and the
/// world's own fields.
pub mod seed_offsets {
    /// Continentalness.
    pub const CONTINENTALNESS: i64 = 21;
    /// Erosion.
    pub const EROSION: i64 = 22;
    /// Weirdness.
    pub const WEIRDNESS: i64 = 23;
}

/// How a [`BiomeBox`] reads and writes in presets: each axis by name, as `(min, max)`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoxFile {
    biome: usize,
    #[serde(default = "any", skip_serializing_if = "is_any")]
    temperature: (f64, f64),
    #[serde(default = "any", skip_serializing_if = "is_any")]
    moisture: (f64, f64),
    #[serde(default = "any", skip_serializing_if = "is_any")]
    continentalness: (f64, f64),
    #[serde(default = "any", skip_serializing_if = "is_any")]
    erosion: (f64, f64),
    #[serde(default = "any", skip_serializing_if = "is_any")]
    weirdness: (f64, f64),
    #[serde(default, skip_serializing_if = "is_zero")]
    offset: f64,
}

fn is_zero(offset: &f64) -> bool {
    *offset == 0.0
}

fn any() -> (f64, f64) {
    (AxisRange::ANY.min, AxisRange::ANY.max)
}

fn is_any(range: &(f64, f64)) -> bool {
    *range == any()
}

impl From<BoxFile> for BiomeBox {
    fn from(file: BoxFile) -> Self {
        let axes = [
            file.temperature,
            file.moisture,
            file.continentalness,
            file.erosion,
            file.weirdness,
        ];
        Self {
            biome: file.biome,
            ranges: axes.map(|(min, max)| AxisRange::new(min, max)),
            offset: file.offset,
        }
    }
}

impl From<BiomeBox> for BoxFile {
    fn from(b: BiomeBox) -> Self {
        let [temperature, moisture, continentalness, erosion, weirdness] =
            b.ranges.map(|r| (r.min, r.max));
        Self {
            biome: b.biome,
            temperature,
            moisture,
            continentalness,
            erosion,
            weirdness,
            offset: b.offset,
        }
    }
}

/// A fit over `ranges` with `offset`: [`BiomeBox::fit`] for boxes, the lower bound for groups.
#[inline]
fn fit(ranges: &[AxisRange; AXES], offset: f64, point: &ClimatePoint) -> f64 {
    let mut total = 0.0;
    for (range, &value) in ranges.iter().zip(point) {
        let d = range.distance(value);
        total += d * d;
    }
    total + offset * offset
}

/// Splits `order` into groups of at most [`LEAF`] boxes that lie together, appended to
/// `groups`: at each step the cut (boxes sorted by their centre on an axis) whose two parts
/// overlap least on that axis, the most even among equals. Biome tables tile their space, so
/// most cuts fall between whole rows of boxes and the groups' bounds barely overlap: a point
/// then lies within few groups' bounds, and the others are skipped once a box fits.
fn group(boxes: &[BiomeBox], order: &mut [u32], groups: &mut Vec<Vec<u32>>) {
    let count = order.len();
    if count <= LEAF {
        groups.push(order.to_vec());
        return;
    }
    let sort = |order: &mut [u32], axis: usize| {
        order.sort_by(|&a, &b| {
            centre(&boxes[a as usize], axis)
                .total_cmp(&centre(&boxes[b as usize], axis))
                .then(a.cmp(&b))
        });
    };
    let mut best = (f64::INFINITY, usize::MAX, 0, count / 2);
    for axis in 0..AXES {
        sort(order, axis);
        let range = |k: usize| boxes[order[k] as usize].ranges[axis];
        // The highest top of the first k boxes, and the lowest bottom of the rest.
        let mut tops = vec![f64::NEG_INFINITY; count + 1];
        let mut bottoms = vec![f64::INFINITY; count + 1];
        for k in 0..count {
            tops[k + 1] = tops[k].max(range(k).max);
            bottoms[count - 1 - k] = bottoms[count - k].min(range(count - 1 - k).min);
        }
        // Parts of at least a quarter, so groups stay near full.
        let least = (count / 4).max(1);
        for cut in least..=count - least {
            let overlap = (tops[cut] - bottoms[cut]).max(0.0);
            let uneven = cut.abs_diff(count / 2);
            if (overlap, uneven) < (best.0, best.1) {
                best = (overlap, uneven, axis, cut);
            }
        }
    }
    sort(order, best.2);
    let (near, far) = order.split_at_mut(best.3);
    group(boxes, near, groups);
    group(boxes, far, groups);
}

/// A box's centre on `axis`, doubled (only its order matters).
fn centre(b: &BiomeBox, axis: usize) -> f64 {
    b.ranges[axis].min + b.ranges[axis].max
}

/// Up to [`LEAF`] boxes with their indices as the lanes of a [`Leaf`].
fn lanes<'a>(members: impl Iterator<Item = (&'a BiomeBox, u32)>) -> Leaf {
    let mut leaf = Leaf {
        min: [[f64::INFINITY; LEAF]; AXES],
        max: [[f64::INFINITY; LEAF]; AXES],
        offset: [f64::INFINITY; LEAF],
        index: [u32::MAX; LEAF],
    };
    for (lane, (b, index)) in members.enumerate() {
        for (axis, range) in b.ranges.iter().enumerate() {
            leaf.min[axis][lane] = range.min;
            leaf.max[axis][lane] = range.max;
        }
        leaf.offset[lane] = b.offset;
        leaf.index[lane] = index;
    }
    leaf
}

/// Boxes per leaf: one SIMD pass fits them all.
const LEAF: usize = 8;

/// Up to [`LEAF`] boxes side by side, one lane each (each axis's bounds in a row), so their fits
/// are computed together; unused lanes fit infinitely badly and are never chosen.
#[derive(Clone, Debug)]
struct Leaf {
    min: [[f64; LEAF]; AXES],
    max: [[f64; LEAF]; AXES],
    offset: [f64; LEAF],
    /// Each lane's box index (`u32::MAX` for unused lanes).
    index: [u32; LEAF],
}

impl Leaf {
    /// Every lane's fit of `point`, in one pass the compiler runs in SIMD lanes.
    #[inline(always)]
    fn fits(&self, point: &ClimatePoint) -> [f64; LEAF] {
        let mut total = [0.0; LEAF];
        for ((&value, min), max) in point.iter().zip(&self.min).zip(&self.max) {
            for ((t, &low), &high) in total.iter_mut().zip(min).zip(max) {
                let d = positive(low - value) + positive(value - high);
                *t += d * d;
            }
        }
        for (t, &offset) in total.iter_mut().zip(&self.offset) {
            *t += offset * offset;
        }
        total
    }
}

/// The box of `boxes` that `point` fits best, the first listed among equals, by scanning them
/// all (`None` without boxes): what [`BiomeBoxIndex`] answers faster, for boxes that are not
/// indexed (being edited, say).
#[must_use]
pub fn nearest_by_scan(boxes: &[BiomeBox], point: &ClimatePoint) -> Option<usize> {
    let mut best: Option<(f64, usize)> = None;
    for (i, b) in boxes.iter().enumerate() {
        let fit = b.fit(point);
        if best.is_none_or(|(f, _)| fit < f) {
            best = Some((fit, i));
        }
    }
    best.map(|(_, i)| i)
}

/// The boxes of a multi-noise biome source, indexed for exact nearest-box lookups. A lookup
/// finds the cell of the climate space that holds its point and fits only that cell's
/// candidates (see the module docs). Outside the cells, or where there are none, it searches
/// leaves of boxes that lie together, each bounded by the union of its boxes' ranges and their
/// smallest offset: it bounds every leaf at once (the bounds side by side, like a leaf's
/// boxes), searches the best-bounded leaf first and then only leaves whose bound could still
/// beat the best box found.
#[derive(Clone, Debug)]
pub struct BiomeBoxIndex {
    boxes: Vec<BiomeBox>,
    cells: Option<CellGrid>,
    leaves: Vec<Leaf>,
    /// The leaves' bounds as boxes, eight leaves to a [`Leaf`] (its `index` the leaves').
    bounds: Vec<Leaf>,
}

/// The most boxes an index takes: about a dozen for each of the most biomes a world has, few
/// enough that a lookup's pass over the leaves' bounds stays short and that the largest valid
/// preset stays under [`crate::limits::MAX_PRESET_BYTES`] (a box writes about 400 bytes).
pub const MAX_BOXES: usize = 1024;

// Cells list their candidates as `u16`.
const _: () = assert!(MAX_BOXES <= u16::MAX as usize + 1);

/// Checks a box list as [`BiomeBoxIndex::new`] does, without indexing it.
///
/// # Errors
/// As [`BiomeBoxIndex::new`].
pub fn check_boxes(boxes: &[BiomeBox]) -> Result<(), SettingsError> {
    let error = |field: String, reason: String| SettingsError { field, reason };
    if boxes.is_empty() || boxes.len() > MAX_BOXES {
        return Err(error(
            "boxes".to_owned(),
            format!("must hold 1 to {MAX_BOXES} boxes (got {})", boxes.len()),
        ));
    }
    for (i, b) in boxes.iter().enumerate() {
        for (range, name) in b.ranges.iter().zip(AXIS_NAMES) {
            if !(range.min.is_finite() && range.max.is_finite() && range.min <= range.max) {
                return Err(error(
                    format!("boxes[{i}].{name}"),
                    format!(
                        "must be a finite range from min to max (got {} to {})",
                        range.min, range.max
                    ),
                ));
            }
        }
        if !(b.offset.is_finite() && b.offset >= 0.0) {
            return Err(error(
                format!("boxes[{i}].offset"),
                format!("must be finite and at least 0 (got {})", b.offset),
            ));
        }
    }
    Ok(())
}

impl BiomeBoxIndex {
    /// Indexes `boxes`.
    ///
    /// # Errors
    /// If there are no boxes or more than [`MAX_BOXES`], or a box has a range that is not
    /// finite or runs backwards, or an offset that is not finite or is negative; the error
    /// names the box and axis, like `boxes[3].erosion`.
    pub fn new(boxes: Vec<BiomeBox>) -> Result<Self, SettingsError> {
        check_boxes(&boxes)?;
        let mut order: Vec<u32> = (0..boxes.len() as u32).collect();
        let mut groups = Vec::new();
        group(&boxes, &mut order, &mut groups);
        let leaves: Vec<Leaf> = groups
            .iter()
            .map(|members| lanes(members.iter().map(|&i| (&boxes[i as usize], i))))
            .collect();
        // Each leaf's bound as a box: the union of its ranges, its smallest offset.
        let leaf_bounds: Vec<BiomeBox> = groups
            .iter()
            .map(|members| {
                let mut bound = BiomeBox {
                    biome: 0,
                    ranges: [AxisRange::new(f64::INFINITY, f64::NEG_INFINITY); AXES],
                    offset: f64::INFINITY,
                };
                for &i in members {
                    let b = &boxes[i as usize];
                    for (range, of) in bound.ranges.iter_mut().zip(&b.ranges) {
                        range.min = range.min.min(of.min);
                        range.max = range.max.max(of.max);
                    }
                    bound.offset = bound.offset.min(b.offset);
                }
                bound
            })
            .collect();
        let bounds = leaf_bounds
            .chunks(LEAF)
            .enumerate()
            .map(|(k, chunk)| {
                lanes(
                    chunk
                        .iter()
                        .enumerate()
                        .map(|(j, b)| (b, (k * LEAF + j) as u32)),
                )
            })
            .collect();
        Ok(Self {
            cells: CellGrid::new(&boxes),
            boxes,
            leaves,
            bounds,
        })
    }

    /// The boxes, as given.
    #[must_use]
    pub fn boxes(&self) -> &[BiomeBox] {
        &self.boxes
    }

    /// The index (into [`BiomeBoxIndex::boxes`]) of the box `point` fits best, the first
    /// listed among equals: exactly [`BiomeBoxIndex::nearest_by_scan`]'s answer.
    #[must_use]
    pub fn nearest(&self, point: &ClimatePoint) -> usize {
        let Some(candidates) = self
            .cells
            .as_ref()
            .and_then(|cells| cells.candidates(point))
        else {
            return self.search(point);
        };
        // In ascending order, so the first listed wins among equals.
        let mut best = (f64::INFINITY, 0);
        for &i in candidates {
            let fit = self.boxes[usize::from(i)].fit(point);
            if fit < best.0 {
                best = (fit, usize::from(i));
            }
        }
        best.1
    }

    /// [`BiomeBoxIndex::nearest`] by the leaves.
    fn search(&self, point: &ClimatePoint) -> usize {
        // A leaf's bound is a fit over ranges that hold its boxes' and an offset no larger, with
        // the same operations in the same order, so it is never above any of its boxes' fits:
        // a leaf whose bound fits worse than the best box so far holds no better box.
        let mut best = (f64::INFINITY, u32::MAX);
        for (chunk, bounds) in self.leaves.chunks(LEAF).zip(&self.bounds) {
            let bounds = bounds.fits(point);
            // The chunk's best-bounded leaf first, so the others are mostly skipped.
            let first =
                (1..chunk.len()).fold(0, |at, k| if bounds[k] < bounds[at] { k } else { at });
            for k in std::iter::once(first).chain((0..chunk.len()).filter(|&k| k != first)) {
                if bounds[k] > best.0 {
                    continue;
                }
                let leaf = &chunk[k];
                let fits = leaf.fits(point);
                for (&f, &i) in fits.iter().zip(&leaf.index) {
                    if f < best.0 || (f == best.0 && i < best.1) {
                        best = (f, i);
                    }
                }
            }
        }
        best.1 as usize
    }

    /// [`BiomeBoxIndex::nearest`] by scanning every box: the reference the index is held to
    /// (an index always holds a box).
    #[must_use]
    pub fn nearest_by_scan(&self, point: &ClimatePoint) -> usize {
        nearest_by_scan(&self.boxes, point).unwrap_or(0)
    }
}

impl MultiNoise {
    /// Checks the axis graphs (their `Custom` nodes naming `functions`) and the boxes, which
    /// must name biomes of a list of `biomes`.
    pub(crate) fn check(
        &self,
        check: &Check,
        biomes: usize,
        functions: &DensityFunctions,
    ) -> Checked {
        let names = AXIS_NAMES;
        for (axis, name) in self.axes().into_iter().zip(&names[2..]) {
            axis.check_at(&check.field(name), functions, Space::Height)?;
        }
        if let Err(error) = check_boxes(&self.boxes) {
            return check.fail(&error.field, error.reason);
        }
        for (i, b) in self.boxes.iter().enumerate() {
            if b.biome >= biomes {
                return check.fail(
                    &format!("boxes[{i}].biome"),
                    format!(
                        "must name one of the {biomes} biomes, 0 to {} (got {})",
                        biomes - 1,
                        b.biome
                    ),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tutorial::SeededRandom;

    fn random_boxes(count: usize, random: &mut SeededRandom) -> Vec<BiomeBox> {
        (0..count)
            .map(|biome| {
                let ranges = std::array::from_fn(|_| {
                    // Ranges on a coarse grid, as biome tables are written, so boxes touch,
                    // nest and repeat, and ties happen.
                    let a = (random.next_float() * 8.0).floor() / 4.0 - 1.0;
                    let b = (random.next_float() * 8.0).floor() / 4.0 - 1.0;
                    AxisRange::new(a.min(b), a.max(b))
                });
                let offset = if random.next_float() < 0.8 {
                    0.0
                } else {
                    (random.next_float() * 4.0).floor() / 8.0
                };
                BiomeBox {
                    biome,
                    ranges,
                    offset,
                }
            })
            .collect()
    }

    #[test]
    fn the_index_answers_as_the_scan_does() {
        let mut random = SeededRandom::new(3);
        for count in [1, 2, 3, 4, 5, 9, 17, 50, 64, 200] {
            for copies in [1, 3] {
                let mut boxes = random_boxes(count, &mut random);
                // Repeated boxes: the first listed must win.
                boxes = boxes.iter().cycle().take(count * copies).copied().collect();
                let index = BiomeBoxIndex::new(boxes).unwrap();
                for k in 0..4000 {
                    let point: ClimatePoint = std::array::from_fn(|_| match k % 4 {
                        // On the grid the ranges use: exact ties between boxes.
                        0 => (random.next_float() * 12.0).floor() / 4.0 - 1.5,
                        // Beyond every cell, now and then.
                        1 => (random.next_float() - 0.5) * 7.0,
                        _ => (random.next_float() - 0.5) * 3.0,
                    });
                    let expected = index.nearest_by_scan(&point);
                    assert_eq!(
                        index.nearest(&point),
                        expected,
                        "{count} boxes ×{copies} at {point:?}"
                    );
                    assert_eq!(index.search(&point), expected, "leaves, {count} boxes");
                }
            }
        }
    }

    #[test]
    fn cells_narrow_the_search_to_a_few_boxes() {
        // A table's boxes, and 50 boxes tiling three axes with rarer variants on a fourth (the
        // bench's): most cells lie in one box.
        let table = MultiNoise::from_table(&BiomeTable::default()).boxes;
        let band = |k: usize, of: usize| {
            let width = 2.0 / of as f64;
            AxisRange::new(-1.0 + width * k as f64, -1.0 + width * (k + 1) as f64)
        };
        let tiled = (0..50)
            .map(|biome| {
                let mut ranges = [AxisRange::new(-1.0, 1.0); AXES];
                ranges[0] = band(biome % 5, 5);
                ranges[1] = band(biome / 5 % 5, 5);
                ranges[2] = band(biome / 25, 2);
                let rare = biome % 5 == 4;
                if rare {
                    ranges[4] = AxisRange::new(0.5, 1.0);
                }
                BiomeBox {
                    biome,
                    ranges,
                    offset: if rare { 0.1 } else { 0.0 },
                }
            })
            .collect();
        // Most of the table's cells lie in one box; the tiled boxes leave space between rarer
        // variants where a few fit nearly alike.
        for (boxes, table_like, limit) in [(table, true, 1.2), (tiled, false, 4.0)] {
            let index = BiomeBoxIndex::new(boxes).unwrap();
            let cells = index.cells.as_ref().expect("cells pay for these boxes");
            assert!(cells.len() <= 1 << 13, "{} cells", cells.len());
            let mut random = SeededRandom::new(11);
            let mut fitted = 0;
            for _ in 0..10_000 {
                // Within the boxes' span: the table's temperatures and moistures are 0 to 1.
                let point = std::array::from_fn(|_| random.next_float() * 2.0 - 1.0)
                    .map(|v: f64| if table_like { v.abs() } else { v });
                fitted += cells.candidates(&point).expect("inside the cells").len();
            }
            let mean = fitted as f64 / 10_000.0;
            assert!(mean < limit, "{mean} boxes fitted a point");
        }
    }

    #[test]
    fn boxes_a_float_apart_still_index() {
        // Ranges whose ends are neighbouring floats: cells that cannot be halved.
        let (one, next) = (1.0, 1.0_f64.next_up());
        let boxes = vec![
            BiomeBox {
                biome: 0,
                ranges: [AxisRange::new(one, one); AXES],
                offset: 0.0,
            },
            BiomeBox {
                biome: 1,
                ranges: [AxisRange::new(next, next); AXES],
                offset: 0.0,
            },
        ];
        let index = BiomeBoxIndex::new(boxes).unwrap();
        assert_eq!(index.nearest(&[one; AXES]), 0);
        assert_eq!(index.nearest(&[next; AXES]), 1);
    }

    #[test]
    fn a_point_inside_a_box_without_offset_belongs_to_it() {
        let boxes = vec![
            BiomeBox {
                biome: 7,
                ranges: [AxisRange::new(-1.0, 0.0); AXES],
                offset: 0.0,
            },
            BiomeBox {
                biome: 8,
                ranges: [AxisRange::new(0.0, 1.0); AXES],
                offset: 0.0,
            },
            BiomeBox {
                biome: 9,
                ranges: [AxisRange::new(0.2, 0.4); AXES],
                offset: 0.1,
            },
        ];
        let index = BiomeBoxIndex::new(boxes).unwrap();
        assert_eq!(index.nearest(&[-0.5; AXES]), 0);
        assert_eq!(
            index.nearest(&[0.3; AXES]),
            1,
            "the offset keeps box 2 behind"
        );
        // On the shared corner both fit with 0: the first listed wins.
        assert_eq!(index.nearest(&[0.0; AXES]), 0);
        // Far out along one axis, the nearer box wins.
        let mut far = [0.5; AXES];
        far[3] = 5.0;
        assert_eq!(index.nearest(&far), 1);
    }

    #[test]
    fn bad_boxes_are_refused_by_name() {
        let good = BiomeBox {
            biome: 0,
            ranges: [AxisRange::new(0.0, 1.0); AXES],
            offset: 0.0,
        };
        assert_eq!(BiomeBoxIndex::new(Vec::new()).unwrap_err().field, "boxes");
        let mut backwards = good;
        backwards.ranges[3] = AxisRange::new(1.0, 0.0);
        assert_eq!(
            BiomeBoxIndex::new(vec![good, backwards]).unwrap_err().field,
            "boxes[1].erosion"
        );
        let mut nan = good;
        nan.offset = f64::NAN;
        assert_eq!(
            BiomeBoxIndex::new(vec![nan]).unwrap_err().field,
            "boxes[0].offset"
        );
        let mut infinite = good;
        infinite.ranges[0].max = f64::INFINITY;
        assert_eq!(
            BiomeBoxIndex::new(vec![infinite]).unwrap_err().field,
            "boxes[0].temperature"
        );
    }
}
