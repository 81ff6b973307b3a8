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

use serde::{Deserialize, Serialize};

use crate::biomes::Rgb;
use crate::check::{Check, Checked, SettingsError};
use crate::limits;
use crate::math::{hypot, smoothstep};

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
                let d = hypot(x - center[0], z - center[1]);
                let weight = 1.0 - smoothstep(radius * (1.0 - falloff), *radius, d);
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
                let out = hypot(out_x, out_z);
                // Full on the pad itself, whatever the skirt (none: a cliff at its edge).
                let weight = if out == 0.0 {
                    1.0
                } else {
                    1.0 - smoothstep(0.0, *skirt, out)
                };
                ground + (height - ground) * weight
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
            Self::Clearing { center, radius } => hypot(x - center[0], z - center[1]) <= *radius,
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
    points
        .windows(2)
        .map(|pair| {
            let ([ax, ay, az], [bx, by, bz]) = (pair[0], pair[1]);
            let (dx, dz) = (bx - ax, bz - az);
            let length2 = dx * dx + dz * dz;
            let t = (((x - ax) * dx + (z - az) * dz) / length2).clamp(0.0, 1.0);
            let (px, pz) = (ax + dx * t, az + dz * t);
            (hypot(x - px, z - pz), ay + (by - ay) * t)
        })
        // The first of equally near segments: the same answer on every machine.
        .reduce(|best, next| if next.0 < best.0 { next } else { best })
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

/// Edits in the order they apply, with a grid index of their footprints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditSet {
    edits: Vec<EditShape>,
    /// The edits (indices, in order) whose bounds meet each cell, keyed by cell.
    cells: std::collections::HashMap<[i64; 2], Vec<u32>>,
}

impl EditSet {
    /// `edits`, applied in this order, once every one is valid and the index they need is
    /// within [`limits::MAX_EDIT_CELLS`].
    ///
    /// # Errors
    /// The first value out of range, by field path (`edits[3].radius`).
    pub fn new(edits: Vec<EditShape>) -> Result<Self, SettingsError> {
        check_edits(&edits)?;
        Ok(Self::indexed(edits))
    }

    /// `edits` (checked already) with their index.
    fn indexed(edits: Vec<EditShape>) -> Self {
        let mut cells: std::collections::HashMap<[i64; 2], Vec<u32>> = Default::default();
        for (k, edit) in edits.iter().enumerate() {
            let [low, high] = cell_span(edit);
            for cz in low[1]..=high[1] {
                for cx in low[0]..=high[0] {
                    cells.entry([cx, cz]).or_default().push(k as u32);
                }
            }
        }
        Self { edits, cells }
    }

    /// The edits, in the order they apply.
    #[must_use]
    pub fn edits(&self) -> &[EditShape] {
        &self.edits
    }

    /// Whether there are no edits.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// About how many bytes the set holds: its edits (with a road's points) and its index (a
    /// map slot per cell of 64 units an edit's bounds meet, and four bytes per edit and cell).
    #[must_use]
    pub fn memory_bytes(&self) -> usize {
        let points = |edit: &EditShape| match edit {
            EditShape::Path { points, .. } => std::mem::size_of_val(points.as_slice()),
            _ => 0,
        };
        let edits = self.edits.capacity() * std::mem::size_of::<EditShape>()
            + self.edits.iter().map(points).sum::<usize>();
        let slot = std::mem::size_of::<([i64; 2], Vec<u32>)>() + 1;
        let index = self.cells.capacity() * slot
            + (self.cells.values())
                .map(|list| list.capacity() * std::mem::size_of::<u32>())
                .sum::<usize>();
        std::mem::size_of::<Self>() + edits + index
    }

    /// The edits, in order, whose bounds hold `(x, z)`.
    fn reaching(&self, x: f64, z: f64) -> impl Iterator<Item = &EditShape> {
        let cell = self.cells.get(&[cell_of(x), cell_of(z)]);
        cell.into_iter().flatten().filter_map(move |&k| {
            let edit = &self.edits[k as usize];
            let [low, high] = edit.bounds();
            // Outside its bounds an edit gives the height back as it was: skipping it is exact.
            (low[0] <= x && x <= high[0] && low[1] <= z && z <= high[1]).then_some(edit)
        })
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
        if self.cells.is_empty() {
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
    /// `[min.x, max.x] × [min.z, max.z]` (which nodes a change of edits rebuilds).
    #[must_use]
    pub fn touches(&self, min: [f64; 2], max: [f64; 2]) -> bool {
        let meets = |edit: &EditShape| {
            let [low, high] = edit.bounds();
            low[0] <= max[0] && high[0] >= min[0] && low[1] <= max[1] && high[1] >= min[1]
        };
        let (first, last) = (
            [cell_of(min[0]), cell_of(min[1])],
            [cell_of(max[0]), cell_of(max[1])],
        );
        let side = |axis: usize| (i128::from(last[axis]) - i128::from(first[axis]) + 1).max(0);
        if side(0) * side(1) > self.edits.len() as i128 {
            return self.edits.iter().any(meets);
        }
        (first[1]..=last[1]).any(|cz| {
            (first[0]..=last[0]).any(|cx| {
                self.cells
                    .get(&[cx, cz])
                    .is_some_and(|edits| edits.iter().any(|&k| meets(&self.edits[k as usize])))
            })
        })
    }
}

/// Every edit valid, and the index they need within [`limits::MAX_EDIT_CELLS`].
fn check_edits(edits: &[EditShape]) -> Checked {
    let mut check = Check::new();
    if edits.len() > limits::MAX_EDITS {
        return check.fail(
            "edits",
            format!("at most {} edits (got {})", limits::MAX_EDITS, edits.len()),
        );
    }
    let mut entries = 0u64;
    for (k, edit) in edits.iter().enumerate() {
        check.nested(&format!("edits[{k}]"), |check| edit.check(check))?;
        entries += index_cells(edit);
        if entries > limits::MAX_EDIT_CELLS {
            return check.fail(
                &format!("edits[{k}]"),
                format!(
                    "the edits so far cover {entries} index cells of {CELL} world units, over the \
                     {} limit: fewer or smaller edits",
                    limits::MAX_EDIT_CELLS
                ),
            );
        }
    }
    Ok(())
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
