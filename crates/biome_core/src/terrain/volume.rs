//! The world's volume over the height field (3D density: caves, overhangs, arches): its
//! settings, compiled for a seed, and the lattice it is sampled on.
//!
//! 3D noise costs tens of nanoseconds a point and a chunk's band holds about a hundred
//! thousand of its mesh's samples, so the volume is not evaluated at each: like Minecraft's
//! noise cells, it is sampled at the corners of a lattice [`VolumeSettings::spacing`] apart
//! that starts at the world's origin, and read between them by trilinear interpolation. What is
//! interpolated is the volume's difference from the height field (`v - (ground - y)`), so the
//! ground keeps every tile of its detail where the volume only lifts or lowers it, and where the
//! volume is the height field (`Ground`) the lattice gives it exactly. The lattice is the
//! world's, and each corner's value a function of that corner alone, so every chunk, query and
//! thread that reads a point computes it from the same corners with the same arithmetic: the
//! same bits, whatever asked.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked};
use crate::coords::clamp_coordinate;
use crate::density::{DensityField, DensityFunctions, DensityNode, Sites, Space, VolumePoints};
use crate::limits;
use crate::scratch::Scratch;

/// 3D terrain ([`crate::density`]'s volumes) laid over the height field where a mask lets it be.
///
/// The world's solid at `(x, y, z)` is `g + t · L(v - g)`, positive solid: `g = ground - y` is
/// the height field as a volume, `v` is [`VolumeSettings::density`], `L` reads it from the
/// corners of a lattice [`VolumeSettings::spacing`] apart (trilinear interpolation), and `t` is
/// [`VolumeSettings::mask`] at `(x, z)` clamped to 0 to 1. Where `t` is 0, and outside the band
/// from [`VolumeSettings::below`] under the ground to [`VolumeSettings::above`] over it, the
/// world is the height field, exactly: chunks there stay height fields and pay nothing for the
/// volume. A mask that falls to 0 smoothly joins the volume to the height field without a step.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VolumeSettings {
    /// The volume, positive solid: a stack evaluated at `(x, y, z)`, whose `Ground` node is
    /// `ground - y` (see `assets/volumes/caves.ron`).
    pub density: DensityNode,
    /// Where the volume takes over: a height stack, read at `(x, z)` and clamped to 0 to 1.
    pub mask: DensityNode,
    /// How far under the ground the volume may reach (caves), world units.
    pub below: f64,
    /// How far over the ground the volume may reach (overhangs, arches), world units.
    pub above: f64,
    /// How far apart the volume is sampled, world units, on every axis; between samples it is
    /// interpolated. Features narrower than about twice this are smoothed away; halving it
    /// evaluates eight times the corners (at 4, a 64 × 64 chunk of 2-unit tiles evaluates about
    /// a sixth as many as its band holds mesh samples). At half a tile, the finest a layout
    /// accepts, the corners fall on the mesh's samples and none is interpolated.
    pub spacing: f64,
}

impl Default for VolumeSettings {
    /// The height field again: ground everywhere, masked nowhere, within a band of 32 units
    /// under the ground and 16 over it, sampled every 4 units.
    fn default() -> Self {
        Self {
            density: DensityNode::new(crate::density::Ground {}, []),
            mask: DensityNode::constant(0.0),
            below: 32.0,
            above: 16.0,
            spacing: 4.0,
        }
    }
}

impl VolumeSettings {
    /// Checks both stacks (the density as a volume, the mask as a height stack), the band and
    /// the spacing.
    pub(crate) fn check(&self, check: &mut Check, functions: &DensityFunctions) -> Checked {
        self.density
            .check_at(&check.field("density"), functions, Space::Volume)?;
        self.mask
            .check_at(&check.field("mask"), functions, Space::Height)?;
        check.range_in("below", self.below, &limits::VOLUME_BAND, " world units")?;
        check.range_in("above", self.above, &limits::VOLUME_BAND, " world units")?;
        check.range_in(
            "spacing",
            self.spacing,
            &limits::VOLUME_SPACING,
            " world units",
        )
    }
}

/// [`VolumeSettings`] compiled for one seed.
#[derive(Clone, Debug)]
pub(crate) struct VolumeField {
    pub(crate) density: DensityField,
    pub(crate) mask: DensityField,
    pub(crate) below: f64,
    pub(crate) above: f64,
    spacing: f64,
}

/// The ground under lattice columns at `(xs[k], zs[k])`, in world units, or `None` to stop.
pub(crate) type ColumnGrounds<'a> = dyn FnMut(&[f64], &[f64]) -> Option<Scratch> + 'a;

/// Lattice corners evaluated between two calls of a sampling's `go_on` (about 0.05 ms).
const LATTICE_BLOCK: usize = 512;

/// Apart along `y` the samples [`VolumeField::leaves_ground`] takes, world units.
const PROBE_STEP: f64 = 0.5;
/// How far under the ground [`VolumeField::leaves_ground`] looks for a hollow, world units.
const PROBE_UNDER: f64 = 2.0;
/// How far over the ground it looks for rock: the height of a tall tree, world units.
const PROBE_OVER: f64 = 12.0;
/// The side of the squares, in lattice cells, a probe of many points
/// ([`VolumeField::leaves_ground`], [`VolumeField::cave_floors`]) samples one at a time.
const PROBE_GROUP: i64 = 64;

impl VolumeField {
    /// `settings` compiled for world seed `seed` (checked already).
    pub(crate) fn new(settings: &VolumeSettings, seed: i64, functions: &DensityFunctions) -> Self {
        Self {
            density: DensityField::compile(&settings.density, seed, functions).into_volume(),
            mask: DensityField::compile(&settings.mask, seed, functions),
            below: settings.below,
            above: settings.above,
            spacing: settings.spacing,
        }
    }

    /// Whether height `y` lies in the band the volume may change over ground `ground`.
    pub(crate) fn in_band(&self, y: f64, ground: f64) -> bool {
        (ground - self.below..=ground + self.above).contains(&y)
    }

    /// The mask's value clamped to a share from 0 to 1 (NaN gives 0: no volume).
    pub(crate) fn share(mask: f64) -> f64 {
        if mask > 0.0 { mask.min(1.0) } else { 0.0 }
    }

    /// The world's solid in the band where the height field's is `plain` (`ground - y`), the
    /// mask's share is `share` and the volume differs from the height field by `deviation`
    /// ([`LatticeLine::deviation`]).
    pub(crate) fn blend(plain: f64, share: f64, deviation: f64) -> f64 {
        plain + share * deviation
    }

    /// Samples the volume at every corner of the lattice cells the points of `spans` lie in,
    /// reading each corner column's ground with `grounds` (at `(xs[k], zs[k])`, in world units:
    /// the generator's [`crate::generator::WorldGenerator::height_at`], whoever asks, so the
    /// corners are the same everywhere). `go_on` is asked before each block of corners; `None`
    /// where it or `grounds` stops the sampling.
    #[must_use]
    pub(crate) fn sample_lattice(
        &self,
        spans: &[VerticalSpan],
        sites: &dyn Sites,
        grounds: &mut ColumnGrounds<'_>,
        go_on: &mut dyn FnMut() -> bool,
    ) -> Option<LatticeSamples> {
        let spacing = self.spacing;
        let cell = |v: f64| lattice_cell(v, spacing).0;
        // The columns around every span, as a box from `first`.
        let mut first = [i64::MAX; 2];
        let mut last = [i64::MIN; 2];
        for span in spans {
            for (axis, v) in [span.x, span.z].into_iter().enumerate() {
                first[axis] = first[axis].min(cell(v));
                last[axis] = last[axis].max(cell(v) + 1);
            }
        }
        let [width, depth] = if spans.is_empty() {
            [0, 0]
        } else {
            [0, 1].map(|axis| (last[axis] - first[axis] + 1) as usize)
        };
        let mut columns = vec![
            LatticeColumn {
                low: i64::MAX,
                high: i64::MIN,
                start: 0,
            };
            width * depth
        ];
        for span in spans {
            let [cx, cz] = [cell(span.x), cell(span.z)];
            let (low, high) = (cell(span.low), cell(span.high) + 1);
            for (dx, dz) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let n = (cx + dx - first[0]) as usize + width * (cz + dz - first[1]) as usize;
                let column = &mut columns[n];
                column.low = column.low.min(low);
                column.high = column.high.max(high);
            }
        }
        let sampled: Vec<usize> = (0..columns.len())
            .filter(|&n| columns[n].low <= columns[n].high)
            .collect();
        // Corners past the world's coordinate limit read the ground at the limit, as the
        // points near it do.
        let corner = |index: i64| index as f64 * spacing;
        let across = |index: i64| clamp_coordinate(corner(index));
        let xs = Scratch::collect(
            (sampled.iter()).map(|&n| across(first[0] + (n % width.max(1)) as i64)),
        );
        let zs = Scratch::collect(
            (sampled.iter()).map(|&n| across(first[1] + (n / width.max(1)) as i64)),
        );
        let ground = grounds(&xs, &zs)?;
        let mut total = 0;
        for &n in &sampled {
            let column = &mut columns[n];
            column.start = total;
            total += (column.high - column.low + 1) as usize;
        }
        let [mut px, mut py, mut pz, mut pg] = std::array::from_fn(|_| Vec::with_capacity(total));
        for (k, &n) in sampled.iter().enumerate() {
            for layer in columns[n].low..=columns[n].high {
                px.push(xs[k]);
                py.push(corner(layer));
                pz.push(zs[k]);
                pg.push(ground[k]);
            }
        }
        let mut values = vec![0.0; total];
        for start in (0..total).step_by(LATTICE_BLOCK) {
            if !go_on() {
                return None;
            }
            let end = (start + LATTICE_BLOCK).min(total);
            let block = VolumePoints {
                xs: &px[start..end],
                ys: &py[start..end],
                zs: &pz[start..end],
                grounds: &pg[start..end],
            };
            self.density
                .volume_values(block, sites, &mut values[start..end]);
        }
        // What the lattice holds: the volume's difference from the height field.
        for ((value, &y), &ground) in values.iter_mut().zip(&py).zip(&pg) {
            *value -= ground - y;
        }
        Some(LatticeSamples {
            spacing,
            first,
            width,
            columns,
            values,
        })
    }

    /// Whether the ground at every `(xs[k], zs[k])`, `grounds[k]` high, is the height field's
    /// where something standing on it reaches: along the vertical line there, at every whole
    /// [`PROBE_STEP`] from [`PROBE_UNDER`] under the ground to [`PROBE_OVER`] over it
    /// (within the band), the world is solid exactly where the height field is. What stands on
    /// the ground (trees, scattered objects) stands only there, so none floats over a cave mouth
    /// or grows into an overhang; a cave deeper down does not matter to it. `surface` gives the
    /// ground under the lattice's corners, as [`VolumeField::sample_lattice`] asks.
    #[must_use]
    pub(crate) fn leaves_ground(
        &self,
        xs: &[f64],
        zs: &[f64],
        grounds: &[f64],
        sites: &dyn Sites,
        surface: &dyn Fn(&[f64], &[f64]) -> Scratch,
    ) -> Vec<bool> {
        let steps = |reach: f64| (reach / PROBE_STEP).floor() as i64;
        let heights: Vec<f64> = (-steps(self.below.min(PROBE_UNDER))
            ..=steps(self.above.min(PROBE_OVER)))
            .map(|k| k as f64 * PROBE_STEP)
            .collect();
        let mut leaves = vec![true; xs.len()];
        // 0 is always among the heights.
        let reach = [heights[0], heights[heights.len() - 1]];
        self.probe(xs, zs, grounds, reach, sites, surface, &mut |k, line| {
            leaves[k] = heights.iter().all(|&h| {
                let plain = -h;
                (line.solid(plain, grounds[k] + h) > 0.0) == (plain > 0.0)
            });
        });
        leaves
    }
}

/// A probed point's vertical line through a lattice ([`VolumeField::probe`]).
struct ProbedLine<'a> {
    lattice: &'a LatticeSamples,
    line: LatticeLine<'a>,
    /// The mask's share there, above 0.
    share: f64,
}

impl ProbedLine<'_> {
    /// The world's solid at height `y` in the band, where the height field's is `plain`.
    #[must_use]
    fn solid(&self, plain: f64, y: f64) -> f64 {
        let deviation = self.line.deviation(self.lattice.height(y));
        VolumeField::blend(plain, self.share, deviation)
    }
}

impl VolumeField {
    /// Hands `read` the vertical line of every `(xs[k], zs[k])` the mask lets the volume change,
    /// readable from `reach[0]` to `reach[1]` about its ground `grounds[k]` (within the band).
    /// The lattice is sampled one square of [`PROBE_GROUP`] cells at a time: points spread over
    /// a coarse node would otherwise span a lattice of millions of columns. `surface` gives the
    /// ground under the lattice's corners, as [`VolumeField::sample_lattice`] asks.
    #[expect(
        clippy::too_many_arguments,
        reason = "the points, their reach and the world to read, each its own slice or function"
    )]
    fn probe(
        &self,
        xs: &[f64],
        zs: &[f64],
        grounds: &[f64],
        reach: [f64; 2],
        sites: &dyn Sites,
        surface: &dyn Fn(&[f64], &[f64]) -> Scratch,
        read: &mut dyn FnMut(usize, &ProbedLine<'_>),
    ) {
        let mut shares = Scratch::zeroed(xs.len());
        self.mask.values(xs, zs, sites, &mut shares);
        let mut groups: std::collections::BTreeMap<[i64; 2], Vec<usize>> = Default::default();
        for k in (0..xs.len()).filter(|&k| Self::share(shares[k]) > 0.0) {
            let group =
                [xs[k], zs[k]].map(|v| lattice_cell(v, self.spacing).0.div_euclid(PROBE_GROUP));
            groups.entry(group).or_default().push(k);
        }
        for probed in groups.values() {
            let spans: Vec<VerticalSpan> = (probed.iter())
                .map(|&k| VerticalSpan {
                    x: xs[k],
                    z: zs[k],
                    low: grounds[k] + reach[0],
                    high: grounds[k] + reach[1],
                })
                .collect();
            let lattice = self
                .sample_lattice(&spans, sites, &mut |x, z| Some(surface(x, z)), &mut || true)
                .expect("nothing stops a probe");
            for &k in probed {
                let line = ProbedLine {
                    lattice: &lattice,
                    line: lattice.line(xs[k], zs[k]),
                    share: Self::share(shares[k]),
                };
                read(k, &line);
            }
        }
    }

    /// The highest cave floor of the world under each `(xs[k], zs[k])` (ground `grounds[k]`
    /// high) within the band: a floor (open space over solid) under the ground open to the
    /// sky, with at least `headroom` of open space up to its roof; `None` where there is none
    /// (or the mask keeps the volume out). Along a vertical line the volume is linear between
    /// two of the lattice's layers, so each floor is found exactly as
    /// [`crate::generator::WorldGenerator::solid_at`] reads the world. `surface` gives the
    /// ground under the lattice's corners, as [`VolumeField::sample_lattice`] asks.
    #[must_use]
    pub(crate) fn cave_floors(
        &self,
        xs: &[f64],
        zs: &[f64],
        grounds: &[f64],
        headroom: f64,
        sites: &dyn Sites,
        surface: &dyn Fn(&[f64], &[f64]) -> Scratch,
    ) -> Vec<Option<f64>> {
        let mut floors = vec![None; xs.len()];
        let reach = [-self.below, self.above];
        self.probe(xs, zs, grounds, reach, sites, surface, &mut |k, line| {
            let ground = grounds[k];
            floors[k] = self.cave_floor(ground, headroom, &|y| line.solid(ground - y, y));
        });
        floors
    }

    /// [`VolumeField::cave_floors`] on one line over ground `ground`, where the world's solid in
    /// the band is `solid(y)`.
    #[must_use]
    fn cave_floor(&self, ground: f64, headroom: f64, solid: &dyn Fn(f64) -> f64) -> Option<f64> {
        let (top, bottom) = (ground + self.above, ground - self.below);
        // The band's ends and the lattice's layers between them, downwards: the solid is linear
        // between two of them.
        let spacing = self.spacing;
        let layers = (bottom / spacing).floor() as i64 + 1..=(top / spacing).ceil() as i64 - 1;
        let heights = (layers.rev().map(|layer| layer as f64 * spacing)).chain([bottom]);
        // Over the band the world is the height field, open: where the band's top is solid,
        // the ground open to the sky is there.
        let mut upper = (top, solid(top));
        let mut under_ground = upper.1 > 0.0;
        let mut roof: Option<f64> = None;
        let roomy = |roof: Option<f64>, floor: f64| roof.is_some_and(|r| r - floor >= headroom);
        for y in heights {
            let lower = (y, solid(y));
            let ((yu, fu), (yl, fl)) = (upper, lower);
            upper = lower;
            if (fu > 0.0) == (fl > 0.0) {
                continue;
            }
            let crossing = yl + fl * (yu - yl) / (fl - fu);
            if fu > 0.0 {
                roof = Some(crossing);
            } else if !under_ground {
                // The ground open to the sky: what lies under it is underground.
                under_ground = true;
            } else if roomy(roof, crossing) {
                return Some(crossing);
            }
        }
        // Under the band the world is the height field, solid: a hollow open at the band's
        // bottom has its floor there.
        (under_ground && upper.1 <= 0.0 && roomy(roof, bottom)).then_some(bottom)
    }
}

/// The cell of the lattice `spacing` apart that coordinate `v` lies in, and how far across it
/// (0 to 1). Every reader of a point computes both from the point alone.
fn lattice_cell(v: f64, spacing: f64) -> (i64, f64) {
    let scaled = v / spacing;
    let floor = scaled.floor();
    (floor as i64, scaled - floor)
}

/// A vertical run of points a lattice is sampled for: at `(x, z)`, from height `low` to `high`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VerticalSpan {
    pub(crate) x: f64,
    pub(crate) z: f64,
    pub(crate) low: f64,
    pub(crate) high: f64,
}

/// The lattice cells of one column of corners sampled: from `low` to `high` along `y`, their
/// values from `start` in [`LatticeSamples::values`].
#[derive(Clone, Copy, Debug)]
struct LatticeColumn {
    low: i64,
    high: i64,
    start: usize,
}

/// The volume's difference from the height field at the corners of the lattice cells some
/// spans lie in ([`VolumeField::sample_lattice`]), to read anywhere in those spans.
#[derive(Debug)]
pub(crate) struct LatticeSamples {
    spacing: f64,
    /// The first column's cell along x and z.
    first: [i64; 2],
    /// Columns along x (x fastest, then z).
    width: usize,
    columns: Vec<LatticeColumn>,
    values: Vec<f64>,
}

impl LatticeSamples {
    /// The vertical line at `(x, z)`, to read at heights within the spans sampled there.
    ///
    /// # Panics
    /// If no span sampled covers `(x, z)`.
    #[must_use]
    pub(crate) fn line(&self, x: f64, z: f64) -> LatticeLine<'_> {
        let (cx, fx) = lattice_cell(x, self.spacing);
        let (cz, fz) = lattice_cell(z, self.spacing);
        let column = |dx: i64, dz: i64| {
            let (a, b) = (cx + dx - self.first[0], cz + dz - self.first[1]);
            let depth = (self.columns.len() / self.width.max(1)) as i64;
            assert!(
                (0..self.width as i64).contains(&a) && (0..depth).contains(&b),
                "({x}, {z}) lies outside the spans sampled"
            );
            self.columns[a as usize + self.width * b as usize]
        };
        let columns = [column(0, 0), column(1, 0), column(0, 1), column(1, 1)];
        LatticeLine {
            values: &self.values,
            starts: columns.map(|c| c.start as i64 - c.low),
            // The layers all four columns hold.
            low: columns.iter().fold(i64::MIN, |low, c| low.max(c.low)),
            high: columns.iter().fold(i64::MAX, |high, c| high.min(c.high)),
            fractions: [fx, fz],
        }
    }

    /// Where height `y` lies on the lattice, for [`LatticeLine::deviation`]: a height many
    /// lines are read at is placed once.
    #[must_use]
    pub(crate) fn height(&self, y: f64) -> LatticeHeight {
        let (cell, fraction) = lattice_cell(y, self.spacing);
        LatticeHeight { cell, fraction }
    }
}

/// A height placed on a lattice ([`LatticeSamples::height`]): its cell along `y` and how far
/// up it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LatticeHeight {
    cell: i64,
    fraction: f64,
}

/// One vertical line through a [`LatticeSamples`]: the four columns of corners around it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LatticeLine<'a> {
    values: &'a [f64],
    /// Per column, at (x, z), (x + 1, z), (x, z + 1) and (x + 1, z + 1) cells: where layer 0's
    /// value would be in `values` (a layer's value is at this plus the layer).
    starts: [i64; 4],
    /// The layers every column holds.
    low: i64,
    high: i64,
    fractions: [f64; 2],
}

impl LatticeLine<'_> {
    /// The volume's difference from the height field at `height` on this line: the trilinear
    /// interpolation of its cell's eight corners.
    ///
    /// # Panics
    /// If the height lies outside the span sampled there.
    #[inline]
    #[must_use]
    pub(crate) fn deviation(&self, height: LatticeHeight) -> f64 {
        let cy = height.cell;
        assert!(
            self.low <= cy && cy < self.high,
            "a height outside the span sampled"
        );
        let [fx, fz] = self.fractions;
        let v = self.values;
        let at = |column: usize, layer: i64| (self.starts[column] + layer) as usize;
        // The four columns' values at the cell's bottom; each column's top is the next one.
        let [c00, c10, c01, c11] = [0, 1, 2, 3].map(|column| at(column, cy));
        let x0 = lerp(v[c00], v[c10], fx);
        let x1 = lerp(v[c01], v[c11], fx);
        let below = lerp(x0, x1, fz);
        let x0 = lerp(v[c00 + 1], v[c10 + 1], fx);
        let x1 = lerp(v[c01 + 1], v[c11 + 1], fx);
        let above = lerp(x0, x1, fz);
        lerp(below, above, height.fraction)
    }
}

/// `a` to `b` by `t`.
#[inline(always)]
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lattice over a volume whose difference from the height field is linear in every axis
    /// reads it back exactly between corners (trilinear interpolation holds a linear field),
    /// and a corner reads its own sample.
    #[test]
    fn the_lattice_reads_corners_and_holds_a_linear_field() {
        use crate::density::{Add, Ground, Multiply};
        let settings = VolumeSettings {
            // Ground plus a term linear in x alone is not expressible; `Ground` times 2 gives a
            // difference of `ground - y`, linear in y over a flat ground.
            density: DensityNode::new(
                Add {},
                [
                    DensityNode::new(
                        Multiply {},
                        [DensityNode::new(Ground {}, []), DensityNode::constant(2.0)],
                    ),
                    DensityNode::constant(3.0),
                ],
            ),
            ..VolumeSettings::default()
        };
        let field = VolumeField::new(&settings, 7, &DensityFunctions::default());
        let flat = |xs: &[f64], _: &[f64]| Some(Scratch::collect(xs.iter().map(|_| 10.0)));
        let spans = [VerticalSpan {
            x: 5.0,
            z: -3.0,
            low: -6.0,
            high: 9.0,
        }];
        let sites: Vec<[f64; 2]> = Vec::new();
        let lattice = field
            .sample_lattice(&spans, &sites, &mut { flat }, &mut || true)
            .expect("nothing stops it");
        let line = lattice.line(5.0, -3.0);
        // v - (ground - y) = 2 (10 - y) + 3 - (10 - y) = 13 - y.
        for y in [-6.0, -1.5, 0.0, 4.0, 8.75, 9.0] {
            assert_eq!(line.deviation(lattice.height(y)), 13.0 - y, "at {y}");
        }
    }

    /// Sampling stops when asked, and a line outside the spans sampled is refused.
    #[test]
    fn a_sampling_stops_when_asked_and_reads_only_its_spans() {
        let field = VolumeField::new(&VolumeSettings::default(), 7, &DensityFunctions::default());
        let sites: Vec<[f64; 2]> = Vec::new();
        let flat = |xs: &[f64], _: &[f64]| Some(Scratch::zeroed(xs.len()));
        let spans = [VerticalSpan {
            x: 0.0,
            z: 0.0,
            low: -4.0,
            high: 4.0,
        }];
        assert!(
            field
                .sample_lattice(&spans, &sites, &mut { flat }, &mut || false)
                .is_none()
        );
        let lattice = field
            .sample_lattice(&spans, &sites, &mut { flat }, &mut || true)
            .expect("nothing stops it");
        assert_eq!(lattice.line(1.0, 1.0).deviation(lattice.height(2.0)), 0.0);
        let outside = std::panic::catch_unwind(|| lattice.line(100.0, 0.0));
        assert!(outside.is_err());
        let below =
            std::panic::catch_unwind(|| (lattice.line(1.0, 1.0)).deviation(lattice.height(-20.0)));
        assert!(below.is_err());
    }
}
