//! Terrain edits: changes a player or a level designer makes to the ground, laid over the
//! procedural height in order as part of the world's definition (issue 24). Each edit is a pure
//! function of position (a footprint weight from 0 to 1, with a smooth falloff) and of the
//! height before it, so heights with edits stay a pure function of the position: any node
//! builds alone and joins its neighbours. An [`EditSet`] keeps the edits in a grid index, so a
//! point pays only for the edits whose footprint reaches it. These are the primitives and their
//! index; [`crate::WorldGenerator::with_edits`] lays a set over a world, and then every height,
//! sample, node, tree and scattered object sees it.
//!
//! - [`EditShape::Brush`]: a disc that raises (or, negative, lowers) the ground, or flattens it
//!   to a height, full strength inside and fading over its falloff;
//! - [`EditShape::Pad`]: a flat rectangle at a height (a building site, a camp) with a sloped
//!   skirt down (or up) to the ground around it;
//! - [`EditShape::Path`]: a road along a polyline of points with heights, cut and filled to the
//!   grade between them across its width, with a skirt on each side, and its own surface colour
//!   if it has one;
//! - [`EditShape::Clearing`]: a disc where nothing grows and nothing is scattered, the height
//!   untouched.
//!
//! Pads clear their rectangle and paths their width the same way ([`EditSet::clears`]).

mod file;
mod log;

pub use file::EditFileError;
pub use log::{EditLog, EditLogError, Recorded};

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::biomes::Rgb;
use crate::check::{Check, Checked, SettingsError};
use crate::limits;
use crate::math::smoothstep;

/// What a brush does to the ground under it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum BrushOp {
    /// Adds this many world units at full strength (negative lowers).
    Raise(f64),
    /// Moves the ground to this height (world units) at full strength.
    Flatten(f64),
}

/// One edit's footprint and what it does there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EditShape {
    /// A disc around `center` (world `x, z`) of `radius`; its outer `falloff` share fades out.
    Brush {
        /// World `(x, z)`.
        center: [f64; 2],
        /// World units.
        radius: f64,
        /// The share of the radius (0 to 1) over which the brush fades out.
        falloff: f64,
        /// What it does.
        op: BrushOp,
    },
    /// A flat rectangle at `height`, `half_size` either way of `center`, and a skirt of `skirt`
    /// world units around it over which the ground blends back.
    Pad {
        /// World `(x, z)`.
        center: [f64; 2],
        /// Half its width along `x` and `z`, world units.
        half_size: [f64; 2],
        /// World units.
        height: f64,
        /// World units.
        skirt: f64,
    },
    /// A road through `points` (world `x, height, z`), graded straight between them, `width`
    /// wide, with a skirt of `skirt` world units each side.
    Path {
        /// At least two, no two in a row at the same `(x, z)`.
        points: Vec<[f64; 3]>,
        /// World units.
        width: f64,
        /// World units.
        skirt: f64,
        /// The road's own colour across its width (fading out over a unit, or its skirt if
        /// narrower), over the ground's; `None` keeps the ground's.
        #[serde(default)]
        surface: Option<Rgb>,
    },
    /// A disc around `center` (world `x, z`) of `radius` with no trees and no scattered objects.
    Clearing {
        /// World `(x, z)`.
        center: [f64; 2],
        /// World units.
        radius: f64,
    },
}

impl EditShape {
    /// The world `(x, z)` box outside which the edit changes nothing: `[min, max]`.
    #[must_use]
    pub fn bounds(&self) -> [[f64; 2]; 2] {
        match self {
            Self::Brush { center, radius, .. } | Self::Clearing { center, radius } => [
                [center[0] - radius, center[1] - radius],
                [center[0] + radius, center[1] + radius],
            ],
            Self::Pad {
                center,
                half_size,
                skirt,
                ..
            } => [
                [
                    center[0] - half_size[0] - skirt,
                    center[1] - half_size[1] - skirt,
                ],
                [
                    center[0] + half_size[0] + skirt,
                    center[1] + half_size[1] + skirt,
                ],
            ],
            Self::Path {
                points,
                width,
                skirt,
                ..
            } => {
                let reach = width / 2.0 + skirt;
                let mut low = [f64::INFINITY; 2];
                let mut high = [f64::NEG_INFINITY; 2];
                for p in points {
                    low = [low[0].min(p[0] - reach), low[1].min(p[2] - reach)];
                    high = [high[0].max(p[0] + reach), high[1].max(p[2] + reach)];
                }
                [low, high]
            }
        }
    }

    /// The height this edit sets at `(x, z)` whatever the ground was, where it sets one: on a
    /// pad, and within a flattening brush's full-strength disc. [`EditShape::apply`] gives
    /// exactly this there, so the edits before it need not be applied.
    #[must_use]
    pub fn overrides(&self, x: f64, z: f64) -> Option<f64> {
        match self {
            Self::Brush {
                center,
                radius,
                falloff,
                op: BrushOp::Flatten(height),
            } => {
                let (dx, dz) = (x - center[0], z - center[1]);
                let squared = dx * dx + dz * dz;
                let inner = radius * (1.0 - falloff);
                // As `apply` decides it, test for test.
                (squared < radius * radius && squared <= inner * inner).then_some(*height)
            }
            Self::Pad {
                center,
                half_size,
                height,
                ..
            } => {
                let out_x = ((x - center[0]).abs() - half_size[0]).max(0.0);
                let out_z = ((z - center[1]).abs() - half_size[1]).max(0.0);
                (out_x == 0.0 && out_z == 0.0).then_some(*height)
            }
            _ => None,
        }
    }

    /// The height at `(x, z)` after this edit, where it was `ground` before.
    #[must_use]
    pub fn apply(&self, x: f64, z: f64, ground: f64) -> f64 {
        match self {
            Self::Brush {
                center,
                radius,
                falloff,
                op,
            } => {
                let (dx, dz) = (x - center[0], z - center[1]);
                let squared = dx * dx + dz * dz;
                // Most points a brush's bounds hold lie beyond its reach (its disc's corners),
                // or well inside it: neither needs the root.
                if squared >= radius * radius {
                    return ground;
                }
                let inner = radius * (1.0 - falloff);
                if squared <= inner * inner {
                    // Full strength: flattened ground is exactly at its height.
                    return match *op {
                        BrushOp::Raise(amount) => ground + amount,
                        BrushOp::Flatten(height) => height,
                    };
                }
                let weight = 1.0 - smoothstep(inner, *radius, squared.sqrt());
                match *op {
                    BrushOp::Raise(amount) => ground + amount * weight,
                    BrushOp::Flatten(height) => ground + (height - ground) * weight,
                }
            }
            Self::Pad {
                center,
                half_size,
                height,
                skirt,
            } => {
                let out_x = ((x - center[0]).abs() - half_size[0]).max(0.0);
                let out_z = ((z - center[1]).abs() - half_size[1]).max(0.0);
                // Exactly at its height on the pad itself, whatever the skirt (none: a cliff at
                // its edge).
                if out_x == 0.0 && out_z == 0.0 {
                    return *height;
                }
                let out = (out_x * out_x + out_z * out_z).sqrt();
                if out >= *skirt {
                    return ground;
                }
                ground + (height - ground) * (1.0 - smoothstep(0.0, *skirt, out))
            }
            Self::Path {
                points,
                width,
                skirt,
                ..
            } => {
                let Some((distance, grade)) = nearest_on_path(points, x, z) else {
                    return ground;
                };
                let half = width / 2.0;
                let weight = 1.0 - smoothstep(half, half + skirt, distance);
                // Beyond its reach the ground keeps its bits (a -0.0 included), as where a
                // batch skips the road.
                if weight == 0.0 {
                    return ground;
                }
                ground + (grade - ground) * weight
            }
            Self::Clearing { .. } => ground,
        }
    }

    /// The edit's own surface colour at `(x, z)` and how much of it lies there (over 0, up to
    /// 1): a path with a `surface`, across its width and fading out just beyond it.
    #[must_use]
    pub fn surface_at(&self, x: f64, z: f64) -> Option<(Rgb, f64)> {
        let Self::Path {
            points,
            width,
            skirt,
            surface: Some(colour),
        } = self
        else {
            return None;
        };
        let (distance, _) = nearest_on_path(points, x, z)?;
        let half = width / 2.0;
        let weight = 1.0 - smoothstep(half, half + skirt.min(1.0), distance);
        (weight > 0.0).then_some((*colour, weight))
    }

    /// Whether nothing grows or is scattered at `(x, z)`: on a pad's rectangle, within a path's
    /// width, inside a clearing.
    #[must_use]
    pub fn clears(&self, x: f64, z: f64) -> bool {
        match self {
            Self::Brush { .. } => false,
            Self::Pad {
                center, half_size, ..
            } => (x - center[0]).abs() <= half_size[0] && (z - center[1]).abs() <= half_size[1],
            Self::Path { points, width, .. } => {
                nearest_on_path(points, x, z).is_some_and(|(distance, _)| distance <= width / 2.0)
            }
            Self::Clearing { center, radius } => {
                let (dx, dz) = (x - center[0], z - center[1]);
                dx * dx + dz * dz <= radius * radius
            }
        }
    }

    fn check(&self, check: &Check) -> Checked {
        let coordinate = |check: &Check, field: &str, v: f64| {
            check.range_in(field, v, &limits::EDIT_COORDINATE, " world units")
        };
        match self {
            Self::Brush {
                center,
                radius,
                falloff,
                op,
            } => {
                coordinate(check, "center[0]", center[0])?;
                coordinate(check, "center[1]", center[1])?;
                check.range_in("radius", *radius, &limits::EDIT_RADIUS, " world units")?;
                check.range("falloff", *falloff, &(0.0..=1.0))?;
                match op {
                    BrushOp::Raise(amount) => {
                        check.range_in("op", *amount, &limits::EDIT_HEIGHT, " world units")
                    }
                    BrushOp::Flatten(height) => {
                        check.range_in("op", *height, &limits::EDIT_HEIGHT, " world units")
                    }
                }
            }
            Self::Pad {
                center,
                half_size,
                height,
                skirt,
            } => {
                coordinate(check, "center[0]", center[0])?;
                coordinate(check, "center[1]", center[1])?;
                for (k, half) in half_size.iter().enumerate() {
                    let field = format!("half_size[{k}]");
                    check.range_in(&field, *half, &limits::EDIT_RADIUS, " world units")?;
                }
                check.range_in("height", *height, &limits::EDIT_HEIGHT, " world units")?;
                check.range_in("skirt", *skirt, &limits::EDIT_SKIRT, " world units")
            }
            Self::Path {
                points,
                width,
                skirt,
                ..
            } => {
                if !(2..=limits::MAX_PATH_POINTS).contains(&points.len()) {
                    return check.fail(
                        "points",
                        format!(
                            "must hold 2 to {} points (got {})",
                            limits::MAX_PATH_POINTS,
                            points.len()
                        ),
                    );
                }
                for (k, p) in points.iter().enumerate() {
                    coordinate(check, &format!("points[{k}][0]"), p[0])?;
                    let field = format!("points[{k}][1]");
                    check.range_in(&field, p[1], &limits::EDIT_HEIGHT, " world units")?;
                    coordinate(check, &format!("points[{k}][2]"), p[2])?;
                    if k > 0 && points[k - 1][0] == p[0] && points[k - 1][2] == p[2] {
                        return check.fail(
                            &format!("points[{k}]"),
                            "must not stand where the point before it does".to_owned(),
                        );
                    }
                }
                check.range_in("width", *width, &limits::EDIT_RADIUS, " world units")?;
                check.range_in("skirt", *skirt, &limits::EDIT_SKIRT, " world units")
            }
            Self::Clearing { center, radius } => {
                coordinate(check, "center[0]", center[0])?;
                coordinate(check, "center[1]", center[1])?;
                check.range_in("radius", *radius, &limits::EDIT_RADIUS, " world units")
            }
        }
    }
}

/// The distance from `(x, z)` to the nearest point of the polyline `points`, and the grade
/// (height between its two ends) there; `None` for fewer than two points.
fn nearest_on_path(points: &[[f64; 3]], x: f64, z: f64) -> Option<(f64, f64)> {
    let (squared, grade) = points
        .windows(2)
        .map(|pair| {
            let ([ax, ay, az], [bx, by, bz]) = (pair[0], pair[1]);
            let (dx, dz) = (bx - ax, bz - az);
            let length2 = dx * dx + dz * dz;
            let t = (((x - ax) * dx + (z - az) * dz) / length2).clamp(0.0, 1.0);
            let (ex, ez) = (x - (ax + dx * t), z - (az + dz * t));
            (ex * ex + ez * ez, ay + (by - ay) * t)
        })
        // The first of equally near segments: the same answer on every machine.
        .reduce(|best, next| if next.0 < best.0 { next } else { best })?;
    Some((squared.sqrt(), grade))
}

/// Side of a cell of the [`EditSet`]'s index, world units.
const CELL: f64 = 64.0;

/// The edits' own surfaces over a point ([`EditSet::cover`]), as one colour laid over the
/// ground's: snow, sand and water floor do not cover it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceCover {
    /// Linear RGB.
    pub color: [f64; 3],
    /// How much of the ground it covers, over 0 and up to 1.
    pub weight: f64,
}

impl SurfaceCover {
    /// `ground` (linear RGBA) with this cover laid over it; alpha kept.
    #[must_use]
    pub fn over(self, ground: [f32; 4]) -> [f32; 4] {
        let mix = |c: usize| {
            (f64::from(ground[c]) + (self.color[c] - f64::from(ground[c])) * self.weight) as f32
        };
        [mix(0), mix(1), mix(2), ground[3]]
    }
}

/// Edits in the order they apply, with a grid index of their footprints. Cloning one is cheap:
/// the index is shared.
#[derive(Clone, Debug, Default)]
pub struct EditSet {
    /// The edits indexed in cells, shared by the sets that extend it.
    indexed: Arc<Indexed>,
    /// Edits after those ([`EditSet::extended`]), each found by its bounds alone, until there
    /// are more than [`TAIL`] and the whole set is indexed again.
    tail: Vec<EditShape>,
    /// Each tail edit's [`EditShape::bounds`].
    tail_bounds: Vec<[[f64; 2]; 2]>,
    /// Index cells the tail's edits would take ([`limits::MAX_EDIT_CELLS`]).
    tail_entries: u64,
    /// Whether any edit lays its own surface ([`EditShape::surface_at`]).
    surfaced: bool,
}

/// The indexed part of an [`EditSet`].
#[derive(Debug, Default)]
struct Indexed {
    edits: Vec<EditShape>,
    /// Each edit's [`EditShape::bounds`], worked out once.
    bounds: Vec<[[f64; 2]; 2]>,
    /// The edits (indices, in order) whose bounds meet each cell, keyed by cell.
    cells: HashMap<[i64; 2], Vec<u32>>,
    /// Index entries in `cells`, all lists together.
    entries: u64,
    /// What its vectors and map hold, in bytes ([`EditSet::memory_bytes`]).
    bytes: usize,
}

/// An edit's bytes in a set, and its bounds', beside a road's points ([`points_bytes`]).
const EDIT_BYTES: usize = std::mem::size_of::<EditShape>() + std::mem::size_of::<[[f64; 2]; 2]>();

/// The bytes a road's points take beside its edit.
fn points_bytes(edit: &EditShape) -> usize {
    match edit {
        EditShape::Path { points, .. } => std::mem::size_of_val(points.as_slice()),
        _ => 0,
    }
}

/// Edits an [`EditSet`] holds beside its index before it indexes them all again: a few hundred
/// bounds tests a point at most, against rebuilding the index for each edit a player makes.
const TAIL: usize = 256;

impl PartialEq for EditSet {
    /// The same edits in the same order, however they are indexed.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.edits().eq(other.edits())
    }
}

fn is_surfaced(edit: &EditShape) -> bool {
    matches!(
        edit,
        EditShape::Path {
            surface: Some(_),
            ..
        }
    )
}

impl EditSet {
    /// `edits`, applied in this order, once every one is valid and the index they need is
    /// within [`limits::MAX_EDIT_CELLS`].
    ///
    /// # Errors
    /// The first value out of range, by field path (`edits[3].radius`).
    pub fn new(edits: Vec<EditShape>) -> Result<Self, SettingsError> {
        check_edits(&edits, 0, 0)?;
        Ok(Self::indexed(edits))
    }

    /// `edits` (checked already) with their index.
    fn indexed(edits: Vec<EditShape>) -> Self {
        let mut cells: HashMap<[i64; 2], Vec<u32>> = HashMap::default();
        let bounds: Vec<_> = edits.iter().map(EditShape::bounds).collect();
        let mut entries = 0;
        for (k, edit) in edits.iter().enumerate() {
            let [low, high] = cell_span(edit);
            for cz in low[1]..=high[1] {
                for cx in low[0]..=high[0] {
                    cells.entry([cx, cz]).or_default().push(k as u32);
                    entries += 1;
                }
            }
        }
        let surfaced = edits.iter().any(is_surfaced);
        // A map slot per cell (its key, list and control byte), four bytes per entry.
        let slot = std::mem::size_of::<([i64; 2], Vec<u32>)>() + 1;
        let index = cells.capacity() * slot
            + (cells.values())
                .map(|list| list.capacity() * std::mem::size_of::<u32>())
                .sum::<usize>();
        let bytes =
            edits.capacity() * EDIT_BYTES + edits.iter().map(points_bytes).sum::<usize>() + index;
        Self {
            indexed: Arc::new(Indexed {
                edits,
                bounds,
                cells,
                entries,
                bytes,
            }),
            tail: Vec::new(),
            tail_bounds: Vec::new(),
            tail_entries: 0,
            surfaced,
        }
    }

    /// This set with `more` applied after its edits, once every one is valid (numbered after
    /// this set's in the field path) and the totals within the limits. The index is shared, not
    /// rebuilt, until more than a few hundred edits wait beside it: what a change of a large
    /// set costs stays small. The same heights, bit for bit, as [`EditSet::new`] of all of them.
    ///
    /// # Errors
    /// The first value out of range, by field path (`edits[10003].radius`), or a limit passed.
    pub fn extended(&self, more: Vec<EditShape>) -> Result<Self, SettingsError> {
        let entries = self.indexed.entries + self.tail_entries;
        let added = check_edits(&more, self.len(), entries)?;
        if self.tail.len() + more.len() > TAIL {
            return Ok(Self::indexed(self.edits().cloned().chain(more).collect()));
        }
        let mut set = self.clone();
        set.surfaced |= more.iter().any(is_surfaced);
        set.tail_entries += added;
        set.tail_bounds.extend(more.iter().map(EditShape::bounds));
        set.tail.extend(more);
        Ok(set)
    }

    /// The edits, in the order they apply.
    pub fn edits(&self) -> impl Iterator<Item = &EditShape> {
        self.indexed.edits.iter().chain(&self.tail)
    }

    /// How many edits the set holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.indexed.edits.len() + self.tail.len()
    }

    /// Whether there are no edits.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Edit `k` in order.
    fn edit(&self, k: u32) -> &EditShape {
        let (k, n) = (k as usize, self.indexed.edits.len());
        if k < n {
            &self.indexed.edits[k]
        } else {
            &self.tail[k - n]
        }
    }

    /// The bounds of edit `k` in order.
    fn bound(&self, k: u32) -> [[f64; 2]; 2] {
        let (k, n) = (k as usize, self.indexed.edits.len());
        if k < n {
            self.indexed.bounds[k]
        } else {
            self.tail_bounds[k - n]
        }
    }

    /// The numbers of the tail's edits, after the indexed ones.
    fn tail_numbers(&self) -> std::ops::Range<u32> {
        let n = self.indexed.edits.len() as u32;
        n..n + self.tail.len() as u32
    }

    /// About how many bytes the set holds: its edits (with a road's points and their bounds)
    /// and its index (a map slot per cell of 64 units an edit's bounds meet, and four bytes per
    /// edit and cell).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        // The index's share is counted once, when it is built: a tool may ask every frame.
        std::mem::size_of::<Self>()
            + std::mem::size_of::<Indexed>()
            + self.indexed.bytes
            + self.tail.capacity() * EDIT_BYTES
            + self.tail.iter().map(points_bytes).sum::<usize>()
    }

    /// The edits, in order, whose bounds hold `(x, z)`.
    fn reaching(&self, x: f64, z: f64) -> impl Iterator<Item = &EditShape> {
        let cell = self.indexed.cells.get(&[cell_of(x), cell_of(z)]);
        cell.into_iter()
            .flatten()
            .copied()
            .chain(self.tail_numbers())
            .filter_map(move |k| self.holding(k, x, z))
    }

    /// Edit `k` if its bounds hold `(x, z)` ([`holds`]).
    fn holding(&self, k: u32, x: f64, z: f64) -> Option<&EditShape> {
        holds(self.bound(k), x, z).then(|| self.edit(k))
    }

    /// [`EditSet::near`] the box around the points `(xs[k], zs[k])`.
    pub(crate) fn near_points(
        &self,
        xs: &[f64],
        zs: &[f64],
        purpose: NearFor,
    ) -> Option<EditsNear<'_>> {
        if self.is_empty() || xs.is_empty() {
            return None;
        }
        let span = |values: &[f64]| {
            values
                .iter()
                .fold([f64::INFINITY, f64::NEG_INFINITY], |[lo, hi], &v| {
                    [lo.min(v), hi.max(v)]
                })
        };
        let ([x0, x1], [z0, z1]) = (span(xs), span(zs));
        self.near([x0, z0], [x1, z1], purpose)
    }

    /// The edits that may reach `[min.x, max.x] × [min.z, max.z]` for `purpose`, binned over it
    /// in square cells (at most [`NEAR_BINS`] along its longer side; a brush or clearing only
    /// in the cells its disc meets), so a batch of points there pays only for the edits near
    /// each point; `None` where none reaches it.
    pub(crate) fn near(
        &self,
        min: [f64; 2],
        max: [f64; 2],
        purpose: NearFor,
    ) -> Option<EditsNear<'_>> {
        let found = self.meeting(min, max, purpose);
        if found.is_empty() {
            return None;
        }
        let sides = [max[0] - min[0], max[1] - min[1]];
        let cell = (sides[0].max(sides[1]) / NEAR_BINS as f64).max(f64::MIN_POSITIVE);
        let bins = sides.map(|side| ((side / cell).ceil() as usize).clamp(1, NEAR_BINS));
        let mut near = EditsNear {
            edits: found.iter().map(|&k| self.edit(k)).collect(),
            bounds: found.iter().map(|&k| self.bound(k)).collect(),
            min,
            cell,
            bins,
            starts: vec![0; bins[0] * bins[1] + 1],
            items: Vec::new(),
        };
        // Rounding may put a point a few ulps outside the cell it is binned in: discs meet
        // cells grown by more than that.
        let scale = [min[0], min[1], max[0], max[1]]
            .into_iter()
            .fold(0.0, |m: f64, v| m.max(v.abs()));
        let margin = cell * 1e-6 + scale * 1e-12;
        let mut pairs = Vec::new();
        // A cell lies within this of its centre.
        let half_diagonal = cell * 0.7072;
        for (k, (&[low, high], edit)) in near.bounds.iter().zip(&near.edits).enumerate() {
            let (first, last) = (near.bin(low), near.bin(high));
            let k = k as u32;
            for bz in first[1]..=last[1] {
                for bx in first[0]..=last[0] {
                    let meets = match edit {
                        EditShape::Brush { center, radius, .. }
                        | EditShape::Clearing { center, radius } => {
                            near.cell_meets_disc([bx, bz], *center, radius + margin)
                        }
                        // A road only in the cells within its reach: cells on the box's edge
                        // (which points a few ulps outside it may reach) are all kept.
                        EditShape::Path {
                            points,
                            width,
                            skirt,
                            ..
                        } if bx > 0 && bz > 0 && bx + 1 < bins[0] && bz + 1 < bins[1] => {
                            let centre =
                                [0, 1].map(|axis| min[axis] + ([bx, bz][axis] as f64 + 0.5) * cell);
                            let reach = width / 2.0 + skirt + half_diagonal + margin;
                            nearest_on_path(points, centre[0], centre[1])
                                .is_some_and(|(distance, _)| distance <= reach)
                        }
                        _ => true,
                    };
                    if meets {
                        pairs.push((bz * bins[0] + bx, k));
                    }
                }
            }
        }
        // Counted, then filled: each cell's edits in one run of `items`, in order.
        for &(b, _) in &pairs {
            near.starts[b + 1] += 1;
        }
        for b in 0..bins[0] * bins[1] {
            near.starts[b + 1] += near.starts[b];
        }
        let mut next = near.starts.clone();
        near.items = vec![0; pairs.len()];
        for (b, k) in pairs {
            near.items[next[b] as usize] = k;
            next[b] += 1;
        }
        Some(near)
    }

    /// The edits that may change heights at the points `(xs[i], zs[j])` of a grid (`xs` and
    /// `zs` ascending), to lay over them with [`GridEdits::lay`]; `None` where none reaches it.
    pub(crate) fn on_grid<'a>(&'a self, xs: &'a [f64], zs: &'a [f64]) -> Option<GridEdits<'a>> {
        let (&x0, &x1, &z0, &z1) = (xs.first()?, xs.last()?, zs.first()?, zs.last()?);
        let found = self.meeting([x0, z0], [x1, z1], NearFor::Heights);
        (!found.is_empty()).then_some(GridEdits {
            set: self,
            xs,
            zs,
            found,
        })
    }

    /// The edits for `purpose` whose bounds meet `[min.x, max.x] × [min.z, max.z]`, in the
    /// order they apply, each once.
    fn meeting(&self, min: [f64; 2], max: [f64; 2], purpose: NearFor) -> Vec<u32> {
        let mut found = Vec::new();
        self.visit_meeting(min, max, |k| {
            found.push(k);
            false
        });
        found.sort_unstable();
        found.dedup();
        found.retain(|&k| purpose.wants(self.edit(k)));
        found
    }

    /// The height at `(x, z)` with every edit applied in order over `ground`.
    #[must_use]
    pub fn height_at(&self, x: f64, z: f64, ground: f64) -> f64 {
        self.reaching(x, z)
            .fold(ground, |height, edit| edit.apply(x, z, height))
    }

    /// The edits' own surfaces over `(x, z)` ([`EditShape::surface_at`]), laid on in order
    /// into one cover; `None` where none lies, so the ground keeps its bits.
    #[must_use]
    pub fn cover(&self, x: f64, z: f64) -> Option<SurfaceCover> {
        if !self.surfaced {
            return None;
        }
        self.reaching(x, z)
            .filter_map(|edit| edit.surface_at(x, z))
            .fold(None, |below: Option<SurfaceCover>, (rgb, weight)| {
                let top = rgb.to_linear();
                Some(match below {
                    None => SurfaceCover { color: top, weight },
                    // Laying `top` at `weight` over `below` in one cover: what shows of the
                    // ground is what both leave, and the colour is their shares' mean.
                    Some(below) => {
                        let total = below.weight + (1.0 - below.weight) * weight;
                        let color = [0, 1, 2].map(|c| {
                            (below.color[c] * below.weight * (1.0 - weight) + top[c] * weight)
                                / total
                        });
                        SurfaceCover {
                            color,
                            weight: total,
                        }
                    }
                })
            })
    }

    /// Whether an edit clears `(x, z)` of trees and scattered objects ([`EditShape::clears`]).
    #[must_use]
    pub fn clears(&self, x: f64, z: f64) -> bool {
        self.reaching(x, z).any(|edit| edit.clears(x, z))
    }

    /// Whether any edit may change a height, or clear the ground, in
    /// `[min.x, max.x] × [min.z, max.z]`.
    #[must_use]
    pub fn touches(&self, min: [f64; 2], max: [f64; 2]) -> bool {
        self.visit_meeting(min, max, |_| true)
    }

    /// Calls `visit` with each edit whose bounds meet `[min.x, max.x] × [min.z, max.z]`
    /// (perhaps more than once, in no set order) until it returns `true`; whether it did.
    fn visit_meeting(
        &self,
        min: [f64; 2],
        max: [f64; 2],
        mut visit: impl FnMut(u32) -> bool,
    ) -> bool {
        let mut meets = |k: u32| overlap(self.bound(k), [min, max]) && visit(k);
        if self.tail_numbers().any(&mut meets) {
            return true;
        }
        let indexed = &self.indexed;
        let (first, last) = (
            [cell_of(min[0]), cell_of(min[1])],
            [cell_of(max[0]), cell_of(max[1])],
        );
        let side = |axis: usize| (i128::from(last[axis]) - i128::from(first[axis]) + 1).max(0);
        if side(0) * side(1) > indexed.edits.len() as i128 {
            return (0..indexed.edits.len() as u32).any(meets);
        }
        (first[1]..=last[1]).any(|cz| {
            (first[0]..=last[0]).any(|cx| {
                indexed
                    .cells
                    .get(&[cx, cz])
                    .is_some_and(|edits| edits.iter().any(|&k| meets(k)))
            })
        })
    }
}

/// What a batch asks of the edits near it ([`EditSet::near`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NearFor {
    /// Heights: every edit but clearings.
    Heights,
    /// Whether the ground is cleared: every edit but brushes.
    Clearing,
}

impl NearFor {
    fn wants(self, edit: &EditShape) -> bool {
        match self {
            Self::Heights => !matches!(edit, EditShape::Clearing { .. }),
            Self::Clearing => !matches!(edit, EditShape::Brush { .. }),
        }
    }
}

/// The edits of an [`EditSet`] that reach a grid of points ([`EditSet::on_grid`]).
#[derive(Debug)]
pub(crate) struct GridEdits<'a> {
    set: &'a EditSet,
    xs: &'a [f64],
    zs: &'a [f64],
    /// The edits' numbers, in the order they apply.
    found: Vec<u32>,
}

impl GridEdits<'_> {
    /// Lays the edits over `heights`, the ground at the grid's points (row `j` after `j` rows of
    /// `xs.len()`), as [`EditSet::height_at`] would at each, the same bits: each edit in order
    /// over the rows and columns its bounds hold, where a point's fold would take it
    /// ([`holds`]), found by bisection on the grid's axes.
    pub(crate) fn lay(&self, heights: &mut [f64]) {
        let (xs, zs) = (self.xs, self.zs);
        debug_assert_eq!(heights.len(), xs.len() * zs.len());
        let within = |axis: &[f64], low: f64, high: f64| {
            axis.partition_point(|&v| v < low)..axis.partition_point(|&v| v <= high)
        };
        for &k in &self.found {
            let (edit, [low, high]) = (self.set.edit(k), self.set.bound(k));
            let columns = within(xs, low[0], high[0]);
            for j in within(zs, low[1], high[1]) {
                let z = zs[j];
                let row = &mut heights[j * xs.len()..(j + 1) * xs.len()];
                for i in columns.clone() {
                    row[i] = edit.apply(xs[i], z, row[i]);
                }
            }
        }
    }
}

/// Bins along the longer side of the box [`EditSet::near`] covers.
const NEAR_BINS: usize = 32;

/// The edits of an [`EditSet`] near a box ([`EditSet::near`]), binned over it.
#[derive(Debug)]
pub(crate) struct EditsNear<'a> {
    /// The edits near the box, in order, and their bounds: what `items` number.
    edits: Vec<&'a EditShape>,
    bounds: Vec<[[f64; 2]; 2]>,
    min: [f64; 2],
    /// A bin's side.
    cell: f64,
    /// Bins along x and z.
    bins: [usize; 2],
    /// Where each bin's run of `items` starts; one more for the end.
    starts: Vec<u32>,
    /// Indices into `edits`, bin by bin, each run in the order the edits apply.
    items: Vec<u32>,
}

impl EditsNear<'_> {
    /// The bin holding `p`, clamped to the box: a point and the bounds holding it always share
    /// one, since the division and floor never reorder values.
    fn bin(&self, p: [f64; 2]) -> [usize; 2] {
        [0, 1].map(|axis| {
            let b = ((p[axis] - self.min[axis]) / self.cell).floor();
            b.clamp(0.0, (self.bins[axis] - 1) as f64) as usize
        })
    }

    /// Whether the disc around `centre` meets cell `[bx, bz]`, the cells on the box's edges
    /// reaching on without end.
    fn cell_meets_disc(&self, [bx, bz]: [usize; 2], centre: [f64; 2], radius: f64) -> bool {
        let gap = |axis: usize, b: usize| {
            let low = if b == 0 {
                f64::NEG_INFINITY
            } else {
                self.min[axis] + b as f64 * self.cell
            };
            let high = if b + 1 == self.bins[axis] {
                f64::INFINITY
            } else {
                self.min[axis] + (b + 1) as f64 * self.cell
            };
            (low - centre[axis]).max(centre[axis] - high).max(0.0)
        };
        let (gx, gz) = (gap(0, bx), gap(1, bz));
        gx * gx + gz * gz <= radius * radius
    }

    /// Near edit `k` if its bounds hold `(x, z)` ([`EditSet::holding`]).
    fn holding(&self, k: u32, x: f64, z: f64) -> Option<&EditShape> {
        holds(self.bounds[k as usize], x, z).then(|| self.edits[k as usize])
    }

    /// The edits of the bin holding `(x, z)`, a point of the box, in order.
    fn run(&self, x: f64, z: f64) -> &[u32] {
        let [bx, bz] = self.bin([x, z]);
        let b = bz * self.bins[0] + bx;
        &self.items[self.starts[b] as usize..self.starts[b + 1] as usize]
    }

    /// The edits, in order, whose bounds hold `(x, z)`, a point of the box.
    fn reaching(&self, x: f64, z: f64) -> impl Iterator<Item = &EditShape> {
        (self.run(x, z).iter()).filter_map(move |&k| self.holding(k, x, z))
    }

    /// [`EditSet::height_at`], the same bits, at a point of the box: from the last edit that
    /// sets the height there whatever was below ([`EditShape::overrides`]), the ones before it
    /// skipped.
    pub(crate) fn height_at(&self, x: f64, z: f64, ground: f64) -> f64 {
        let run = self.run(x, z);
        let (start, from) = run
            .iter()
            .enumerate()
            .rev()
            .find_map(|(k, &edit)| {
                let height = self.holding(edit, x, z)?.overrides(x, z)?;
                Some((k + 1, height))
            })
            .unwrap_or((0, ground));
        run[start..]
            .iter()
            .filter_map(|&k| self.holding(k, x, z))
            .fold(from, |height, edit| edit.apply(x, z, height))
    }

    /// [`EditSet::clears`] at a point of the box.
    pub(crate) fn clears(&self, x: f64, z: f64) -> bool {
        self.reaching(x, z).any(|edit| edit.clears(x, z))
    }
}

/// Whether the rectangle `[low, high]` (its edges included) holds `(x, z)`. Outside its bounds
/// an edit gives the height back as it was, so skipping it there is exact.
fn holds([low, high]: [[f64; 2]; 2], x: f64, z: f64) -> bool {
    low[0] <= x && x <= high[0] && low[1] <= z && z <= high[1]
}

/// Whether two rectangles `[low, high]` (corners included) meet.
#[must_use]
pub fn overlap(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> bool {
    a[0][0] <= b[1][0] && a[1][0] >= b[0][0] && a[0][1] <= b[1][1] && a[1][1] >= b[0][1]
}

/// Every edit valid (numbered from `first` in the field path), and the index they need, after
/// the `before` entries taken already, within [`limits::MAX_EDIT_CELLS`]; the entries they add.
fn check_edits(edits: &[EditShape], first: usize, before: u64) -> Result<u64, SettingsError> {
    let mut check = Check::new();
    let total = first + edits.len();
    if total > limits::MAX_EDITS {
        check.fail(
            "edits",
            format!("at most {} edits (got {total})", limits::MAX_EDITS),
        )?;
    }
    let mut entries = before;
    for (k, edit) in edits.iter().enumerate() {
        let field = format!("edits[{}]", first + k);
        check.nested(&field, |check| edit.check(check))?;
        entries += index_cells(edit);
        if entries > limits::MAX_EDIT_CELLS {
            check.fail(
                &field,
                format!(
                    "the edits so far cover {entries} index cells of {CELL} world units, over the \
                     {} limit: fewer or smaller edits",
                    limits::MAX_EDIT_CELLS
                ),
            )?;
        }
    }
    Ok(entries - before)
}

fn cell_of(v: f64) -> i64 {
    (v / CELL).floor() as i64
}

/// The index entries a (checked) edit takes: the cells its bounds meet.
fn index_cells(edit: &EditShape) -> u64 {
    let [low, high] = cell_span(edit);
    (high[0] - low[0] + 1) as u64 * (high[1] - low[1] + 1) as u64
}

/// The first and last index cells an edit's bounds meet.
fn cell_span(edit: &EditShape) -> [[i64; 2]; 2] {
    let [low, high] = edit.bounds();
    [
        [cell_of(low[0]), cell_of(low[1])],
        [cell_of(high[0]), cell_of(high[1])],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set extended edit by edit, past the edits it keeps beside its index and back, gives
    /// every point the bits of one built from all of them at once, finds the same edits near a
    /// box, and names a bad edit by its place among all.
    #[test]
    fn an_extended_set_is_the_set_of_all_its_edits() {
        let edit = |k: u32| {
            let at = [
                f64::from(k % 37) * 7.0 - 120.0,
                f64::from(k / 37) * 9.0 - 80.0,
            ];
            match k % 3 {
                0 => EditShape::Brush {
                    center: at,
                    radius: 12.0,
                    falloff: 0.6,
                    op: BrushOp::Raise(1.0),
                },
                1 => EditShape::Pad {
                    center: at,
                    half_size: [4.0, 6.0],
                    height: f64::from(k % 11),
                    skirt: 5.0,
                },
                _ => EditShape::Clearing {
                    center: at,
                    radius: 6.0,
                },
            }
        };
        let all: Vec<EditShape> = (0..700).map(edit).collect();
        let whole = EditSet::new(all.clone()).unwrap();
        let mut grown = EditSet::new(all[..100].to_vec()).unwrap();
        for chunk in all[100..].chunks(30) {
            grown = grown.extended(chunk.to_vec()).unwrap();
            assert!(grown.tail.len() <= TAIL);
        }
        assert_eq!(grown, whole);
        assert!(
            !grown.tail.is_empty(),
            "the last edits wait beside the index"
        );
        let ground = |x: f64, z: f64| x * 0.01 - z * 0.02;
        for k in 0..4000 {
            let (x, z) = (
                f64::from(k % 80) * 3.1 - 130.0,
                f64::from(k / 80) * 3.7 - 90.0,
            );
            let (a, b) = (
                grown.height_at(x, z, ground(x, z)),
                whole.height_at(x, z, ground(x, z)),
            );
            assert_eq!(a.to_bits(), b.to_bits(), "({x}, {z})");
            assert_eq!(grown.clears(x, z), whole.clears(x, z));
        }
        let (min, max) = ([-100.0, -60.0], [40.0, 90.0]);
        let (a, b) = (
            grown.near(min, max, NearFor::Heights).unwrap(),
            whole.near(min, max, NearFor::Heights).unwrap(),
        );
        assert_eq!((a.starts, a.items), (b.starts, b.items));
        let bad = EditShape::Clearing {
            center: [0.0, 0.0],
            radius: f64::NAN,
        };
        let error = grown.extended(vec![edit(1), bad]).unwrap_err();
        assert_eq!(error.field, "edits[701].radius");
    }

    /// Draws from `[low, high)`, seeded.
    fn uniform(mut state: u64) -> impl FnMut(f64, f64) -> f64 {
        move |low: f64, high: f64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            low + (high - low) * ((state >> 11) as f64 / (1u64 << 53) as f64)
        }
    }

    /// 300 edits of every shape within 200 units of the origin.
    fn mixed_edits(within: &mut impl FnMut(f64, f64) -> f64) -> Vec<EditShape> {
        (0..300)
            .map(|k| {
                let center = [within(-200.0, 200.0), within(-200.0, 200.0)];
                match k % 5 {
                    0 => EditShape::Clearing {
                        center,
                        radius: within(1.0, 30.0),
                    },
                    1 => EditShape::Brush {
                        center,
                        radius: within(1.0, 40.0),
                        falloff: 0.5,
                        op: BrushOp::Flatten(within(0.0, 9.0)),
                    },
                    2 => EditShape::Brush {
                        center,
                        radius: within(1.0, 40.0),
                        falloff: 0.5,
                        op: BrushOp::Raise(within(-5.0, 5.0)),
                    },
                    3 => EditShape::Pad {
                        center,
                        half_size: [within(1.0, 20.0), within(1.0, 20.0)],
                        height: within(0.0, 20.0),
                        skirt: within(0.0, 10.0),
                    },
                    _ => EditShape::Path {
                        points: vec![
                            [center[0], within(0.0, 9.0), center[1]],
                            [center[0] + within(-60.0, 60.0), 3.0, center[1] + 20.0],
                        ],
                        width: 4.0,
                        skirt: 3.0,
                        surface: None,
                    },
                }
            })
            .collect()
    }

    /// Laid on a grid, the edits give every grid point the bits of [`EditSet::height_at`],
    /// the points on bounds' edges and rims included.
    #[test]
    fn edits_laid_on_a_grid_give_every_point_the_same_bits() {
        let mut within = uniform(0x2545_f491_4f6c_dd1d);
        let edits = mixed_edits(&mut within);
        let set = EditSet::new(edits).unwrap();
        let ground = |x: f64, z: f64| (x * 0.05).rem_euclid(3.0) * 2.0 + z * 0.01;
        let mut changed = 0;
        for k in 0..40 {
            let min = [within(-260.0, 200.0), within(-260.0, 200.0)];
            let step = within(0.25, 4.0);
            let count = 8 + (k * 7) % 60;
            // A regular grid, or one whose lines also run along the edits' bounds.
            let axis = |origin: f64, edge: usize| {
                let mut values: Vec<f64> = (0..count).map(|g| origin + g as f64 * step).collect();
                if k % 2 == 1 {
                    let last = values[count - 1];
                    values.extend(
                        (set.indexed.bounds.iter())
                            .flat_map(|bound| [bound[0][edge], bound[1][edge]])
                            .filter(|v| (origin..=last).contains(v)),
                    );
                    values.sort_by(f64::total_cmp);
                }
                values
            };
            let (xs, zs) = (axis(min[0], 0), axis(min[1], 1));
            let mut heights: Vec<f64> = (zs.iter())
                .flat_map(|&z| xs.iter().map(move |&x| ground(x, z)))
                .collect();
            if let Some(edits) = set.on_grid(&xs, &zs) {
                edits.lay(&mut heights);
            }
            for (j, &z) in zs.iter().enumerate() {
                for (i, &x) in xs.iter().enumerate() {
                    let expected = set.height_at(x, z, ground(x, z));
                    let laid = heights[j * xs.len() + i];
                    assert_eq!(laid.to_bits(), expected.to_bits(), "at ({x}, {z})");
                    changed += usize::from(expected != ground(x, z));
                }
            }
        }
        assert!(
            changed > 1000,
            "the grids meet the edits ({changed} points changed)"
        );
    }

    /// Binned over any box, the edits near it give every point of it (its corners, its edges,
    /// edits' own bounds) the bits of all the edits applied one by one, and clear the same
    /// ground.
    #[test]
    fn edits_near_a_box_give_every_point_the_same_bits() {
        let mut within = uniform(0x9e37_79b9_7f4a_7c15);
        let edits = mixed_edits(&mut within);
        let set = EditSet::new(edits.clone()).unwrap();
        let ground = |x: f64, z: f64| (x * 0.05).rem_euclid(3.0) * 2.0 + z * 0.01;
        let (mut changed, mut cleared) = (0, 0);
        for k in 0..60 {
            let min = [within(-260.0, 200.0), within(-260.0, 200.0)];
            let side = within(0.5, 120.0);
            // Rows of points too: a box with no height.
            let tall = if k % 5 == 0 {
                0.0
            } else {
                side * within(0.1, 3.0)
            };
            let max = [min[0] + side, min[1] + tall];
            let heights = set.near(min, max, NearFor::Heights);
            let clearing = set.near(min, max, NearFor::Clearing);
            if heights.is_none() && clearing.is_none() {
                assert!(!set.touches(min, max));
                continue;
            }
            let inside =
                |[x, z]: [f64; 2]| (min[0]..=max[0]).contains(&x) && (min[1]..=max[1]).contains(&z);
            let bound_edges = set
                .indexed
                .bounds
                .iter()
                .flat_map(|[low, high]| [low[0], high[0]]);
            let xs: Vec<f64> = [min[0], max[0]]
                .into_iter()
                .chain((0..40).map(|_| within(min[0], max[0])))
                .chain(bound_edges.filter(|x| (min[0]..=max[0]).contains(x)))
                .collect();
            let grid = xs
                .iter()
                .flat_map(|&x| [min[1], max[1], within(min[1], max[1])].map(|z| [x, z]));
            // The edges of every disc and the corners of every pad.
            let rims = edits.iter().flat_map(|edit| match edit {
                EditShape::Brush { center, radius, .. }
                | EditShape::Clearing { center, radius } => [
                    [*radius, 0.0],
                    [0.0, -*radius],
                    [-radius * 0.6, radius * 0.8],
                ]
                .map(|[dx, dz]| [center[0] + dx, center[1] + dz]),
                EditShape::Pad {
                    center, half_size, ..
                } => [
                    [center[0] + half_size[0], center[1] + half_size[1]],
                    [center[0] - half_size[0], center[1]],
                    [center[0], center[1] - half_size[1]],
                ],
                EditShape::Path {
                    points,
                    width,
                    skirt,
                    ..
                } => {
                    // Its ends, and just inside its reach across its middle.
                    let (a, b) = (points[0], points[1]);
                    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
                    let across = (width / 2.0 + skirt) * 0.999 / (dx * dx + dz * dz).sqrt();
                    let mid = [(a[0] + b[0]) / 2.0, (a[2] + b[2]) / 2.0];
                    [
                        [a[0], a[2]],
                        [b[0], b[2]],
                        [mid[0] - dz * across, mid[1] + dx * across],
                    ]
                }
            });
            for [x, z] in grid.chain(rims.filter(|&p| inside(p))) {
                let before = ground(x, z);
                let brute = edits.iter().fold(before, |h, edit| edit.apply(x, z, h));
                let binned = heights
                    .as_ref()
                    .map_or(before, |near| near.height_at(x, z, before));
                assert_eq!(
                    binned.to_bits(),
                    brute.to_bits(),
                    "({x}, {z}) in {min:?}..{max:?}"
                );
                changed += usize::from(binned != before);
                let clears = edits.iter().any(|edit| edit.clears(x, z));
                let near_clears = clearing.as_ref().is_some_and(|near| near.clears(x, z));
                assert_eq!(near_clears, clears, "({x}, {z})");
                cleared += usize::from(clears);
            }
        }
        assert!(changed > 500, "only {changed} points changed");
        assert!(cleared > 100, "only {cleared} points cleared");
    }
}
