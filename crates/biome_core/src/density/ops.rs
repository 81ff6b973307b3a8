//! The density operations: one type per operation, each with everything about it in one place
//! (its inputs, its fields with their ranges and usual values, the range of values it can give, and
//! how it evaluates), registered once in [`density_ops!`].

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;

use super::custom::{Custom, DensityFunctions};
use super::erosion::Eroded;
use super::field::{Evaluate, Inputs, NoiseTables};
use super::volume::{Fbm3, Ground, Tunnels};
use super::{Bounds, Shape};
use crate::batch::{FbmParams, WarpParams};
use crate::limits;
use crate::scratch::Scratch;
use crate::tutorial::{Simplex, fbm, js_max, js_min, warp_offset};

/// What an operation knows about itself. Adding an operation is one type implementing this and
/// one line in [`density_ops!`].
pub(crate) trait Operation: Copy + Into<DensityOp> {
    /// The names of its inputs in presets, first input first (the one a switched-off node passes
    /// through).
    const INPUTS: &'static [&'static str];

    /// The operation as presets start it: every optional field at its default.
    fn template() -> Self;

    /// Visits every field, in preset order.
    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>));

    /// The values the operation can give when its inputs' values lie in `inputs` (one interval
    /// per input), for settings whose fields are in range (and [`Custom`] nodes whose functions
    /// are in `functions`).
    fn bound(&self, inputs: &[Bounds], functions: &DensityFunctions) -> Bounds;

    /// The operation compiled for one world, its noise tables from `noise`.
    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate>;

    /// Whether it reads the height `y` of its point, so it belongs in a volume only.
    const READS_HEIGHT: bool = false;
}

/// One field of a density operation: its name in presets, and its value with the values it may
/// take. Validation, preset reading and writing, and editors all go through
/// [`DensityOp::fields`], so they cannot disagree.
#[derive(Debug)]
pub struct Field<'a> {
    /// The field's name in presets.
    pub name: &'static str,
    /// Whether a preset must give it (the others take their defaults).
    pub required: bool,
    /// The value, and what it may be.
    pub value: FieldValue<'a>,
}

/// A field's value and the values it may take.
#[derive(Debug)]
pub enum FieldValue<'a> {
    /// A finite number in `range`, usually `typical`.
    Number {
        /// The value.
        value: &'a mut f64,
        /// What validation accepts.
        range: RangeInclusive<f64>,
        /// The values it usually takes, for an editor to pick a fitting control.
        typical: Typical,
    },
    /// A whole number in `range`.
    Whole {
        /// The value.
        value: &'a mut u32,
        /// What validation accepts.
        range: RangeInclusive<u32>,
    },
    /// A seed offset in `range`.
    SeedOffset {
        /// The value.
        value: &'a mut i64,
        /// What validation accepts.
        range: RangeInclusive<i64>,
    },
    /// One of `choices`, by position.
    Choice {
        /// The position of the choice.
        value: &'a mut u32,
        /// What each choice means, by position.
        choices: &'static [&'static str],
    },
    /// An fBm shape.
    Shape(&'a mut Shape),
    /// The name of a registered [`super::DensityFunction`].
    Name(&'a mut super::FunctionName),
}

/// The values a number field usually takes (its range may reach much farther).
#[derive(Clone, Debug, PartialEq)]
pub enum Typical {
    /// No usual span: any value in range.
    Any,
    /// Usually within the span, varied evenly.
    Even(RangeInclusive<f64>),
    /// Usually within the span, varied by factors.
    Factor(RangeInclusive<f64>),
    /// A frequency in 1 / world units: what shows is the feature size `1 / value`.
    Frequency,
}

/// The noise bound of one [`Simplex::noise`] value: each of its three corners adds at most
/// `70 * max over d of (0.5 - d²)⁴ · √2 · d = 70 / 3 · (4/9)⁴`, reached at `d² = 1/18`.
pub(crate) const NOISE_BOUND: f64 = 2.7314;

/// Declares the operations: the [`DensityOp`] enum, one variant per operation type, and its
/// dispatch to [`Operation`].
macro_rules! density_ops {
    ($($(#[$meta:meta])* $name:ident),* $(,)?) => {
        /// What a density node does: one variant per operation. Each operation is its own type
        /// holding its fields; the node's inputs live in [`super::DensityNode::inputs`].
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
        pub enum DensityOp {
            $($(#[$meta])* $name($name),)*
        }

        $(impl From<$name> for DensityOp {
            fn from(op: $name) -> Self {
                DensityOp::$name(op)
            }
        })*

        impl DensityOp {
            /// The operations' names in presets, in declaration order.
            pub const KINDS: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The operation's name in presets, like `Fbm`.
            #[must_use]
            pub fn kind(&self) -> &'static str {
                match self {
                    $(DensityOp::$name(_) => stringify!($name),)*
                }
            }

            /// The names of its inputs in presets, first input first.
            #[must_use]
            pub fn input_names(&self) -> &'static [&'static str] {
                match self {
                    $(DensityOp::$name(_) => <$name as Operation>::INPUTS,)*
                }
            }

            /// Visits every field, in preset order, for editing or checking.
            pub fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
                match self {
                    $(DensityOp::$name(op) => op.fields(visit),)*
                }
            }

            /// The values the operation can give when its inputs' values lie in `inputs`, with
            /// the functions [`Custom`] nodes name (unbounded for one not in `functions`).
            #[must_use]
            pub fn bound(&self, inputs: &[Bounds], functions: &DensityFunctions) -> Bounds {
                match self {
                    $(DensityOp::$name(op) => op.bound(inputs, functions),)*
                }
            }

            /// Whether the operation reads the height `y` of its point, so that it belongs in a
            /// volume ([`super::DensityNode::validate_volume_with`]) and not in a height stack.
            #[must_use]
            pub fn reads_height(&self) -> bool {
                match self {
                    $(DensityOp::$name(_) => <$name as Operation>::READS_HEIGHT,)*
                }
            }

            /// The operation of kind `kind` with its optional fields at their defaults.
            pub(crate) fn template(kind: &str) -> Option<Self> {
                match kind {
                    $(stringify!($name) => Some(<$name as Operation>::template().into()),)*
                    _ => None,
                }
            }

            pub(crate) fn index(&self) -> u32 {
                let kind = self.kind();
                Self::KINDS.iter().position(|k| *k == kind).expect("listed") as u32
            }

            pub(crate) fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
                match self {
                    $(DensityOp::$name(op) => op.compile(noise),)*
                }
            }
        }
    };
}

density_ops! {
    /// Source: one value everywhere.
    Constant,
    /// Source: Simplex fBm, shaped. The tutorial's `simplexNode`.
    Fbm,
    /// Source: Simplex fBm with gullies cut into its slopes.
    Eroded,
    /// Source: 1 at a region site, falling to -1 at `radius`. The tutorial's `cellNode`.
    Cell,
    /// Reads its input at a point pushed along fBm fields. The tutorial's `warpNode`.
    Warp,
    /// Clamps its input. The tutorial's `clampNode`.
    Clamp,
    /// Clamps its input with rounded corners.
    SmoothClamp,
    /// The absolute value of its input.
    Abs,
    /// The sum of its inputs.
    Add,
    /// The product of its inputs.
    Multiply,
    /// Blends its inputs. The tutorial's `mixNode`.
    Mix,
    /// A [`super::DensityFunction`] the game registered, applied to its input.
    Custom,
    /// The smaller of its inputs: where either is hollow, so is this (carving).
    Min,
    /// The larger of its inputs: where either is solid, so is this.
    Max,
    /// Volume source: how far below the ground the point lies, in world units.
    Ground,
    /// Volume source: 3D Simplex fBm, shaped.
    Fbm3,
    /// Volume source: winding tunnels where two 3D noise fields are both near zero.
    Tunnels,
}

pub(super) fn number<'a>(
    name: &'static str,
    value: &'a mut f64,
    range: RangeInclusive<f64>,
    typical: Typical,
) -> Field<'a> {
    Field {
        name,
        required: true,
        value: FieldValue::Number {
            value,
            range,
            typical,
        },
    }
}

pub(super) fn optional(field: Field<'_>) -> Field<'_> {
    Field {
        required: false,
        ..field
    }
}

pub(super) fn whole<'a>(
    name: &'static str,
    value: &'a mut u32,
    range: RangeInclusive<u32>,
) -> Field<'a> {
    Field {
        name,
        required: false,
        value: FieldValue::Whole { value, range },
    }
}

pub(super) fn seed_offset(value: &mut i64) -> Field<'_> {
    Field {
        name: "seed_offset",
        required: false,
        value: FieldValue::SeedOffset {
            value,
            range: limits::SEED_OFFSET,
        },
    }
}

/// An fBm node's shape, optional in presets.
pub(super) fn shape(value: &mut Shape) -> Field<'_> {
    Field {
        name: "shape",
        required: false,
        value: FieldValue::Shape(value),
    }
}

/// A clamp's floor and ceiling: each may go as far as the other, so the floor never passes the
/// ceiling (when the other is out of range itself, the whole node range applies).
fn floor_and_ceiling<'a>(low: &'a mut f64, high: &'a mut f64, visit: &mut dyn FnMut(Field<'_>)) {
    let within = |v: f64| limits::NODE_VALUE.contains(&v);
    let (start, end) = (*limits::NODE_VALUE.start(), *limits::NODE_VALUE.end());
    let ceiling = if within(*high) { *high } else { end };
    let floor = if within(*low) { *low } else { start };
    visit(number("low", low, start..=ceiling, Typical::Any));
    visit(number("high", high, floor..=end, Typical::Any));
}

/// The fields of an fBm source, in preset order: [`Fbm`] and [`super::Eroded`] share them.
pub(super) struct FbmFields<'a> {
    pub(super) seed_offset: &'a mut i64,
    pub(super) scale: &'a mut f64,
    pub(super) octaves: &'a mut u32,
    pub(super) persistence: &'a mut f64,
    pub(super) lacunarity: &'a mut f64,
}

impl FbmFields<'_> {
    /// Visits the fields.
    pub(super) fn visit(self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(seed_offset(self.seed_offset));
        visit(number(
            "scale",
            self.scale,
            limits::SCALE,
            Typical::Frequency,
        ));
        visit(whole("octaves", self.octaves, limits::OCTAVES));
        visit(optional(number(
            "persistence",
            self.persistence,
            limits::PERSISTENCE,
            Typical::Even(limits::PERSISTENCE),
        )));
        visit(optional(number(
            "lacunarity",
            self.lacunarity,
            limits::LACUNARITY,
            Typical::Even(limits::LACUNARITY),
        )));
    }
}

/// One value everywhere.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Constant {
    /// The value.
    pub value: f64,
}

impl Operation for Constant {
    const INPUTS: &'static [&'static str] = &[];

    fn template() -> Self {
        Self { value: 0.0 }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(number(
            "value",
            &mut self.value,
            limits::NODE_VALUE,
            Typical::Any,
        ));
    }

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        Bounds::point(self.value)
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(*self)
    }
}

impl Evaluate for Constant {
    fn value(&self, _: f64, _: f64, _: &Inputs<'_>) -> f64 {
        self.value
    }

    fn values(&self, _: &[f64], _: &[f64], _: &Inputs<'_>, out: &mut [f64]) {
        out.fill(self.value);
    }
}

/// Simplex fBm at `(x * scale, z * scale)`, shaped.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fbm {
    /// Added to the world seed for this node's noise.
    pub seed_offset: i64,
    /// Frequency in 1 / world units: the feature size is about `1 / scale`.
    pub scale: f64,
    /// Layers of noise (1 to 16).
    pub octaves: u32,
    /// Amplitude factor per octave.
    pub persistence: f64,
    /// Frequency factor per octave.
    pub lacunarity: f64,
    /// Normal, ridged or billow.
    pub shape: Shape,
}

impl Operation for Fbm {
    const INPUTS: &'static [&'static str] = &[];

    fn template() -> Self {
        Self {
            seed_offset: 0,
            scale: 0.0,
            octaves: 4,
            persistence: 0.5,
            lacunarity: 2.0,
            shape: Shape::Normal,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        FbmFields {
            seed_offset: &mut self.seed_offset,
            scale: &mut self.scale,
            octaves: &mut self.octaves,
            persistence: &mut self.persistence,
            lacunarity: &mut self.lacunarity,
        }
        .visit(visit);
        visit(shape(&mut self.shape));
    }

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        shaped_fbm_bound(self.shape, NOISE_BOUND)
    }

    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(FbmKernel {
            noise: noise.get(self.seed_offset),
            scale: self.scale,
            params: FbmParams {
                octaves: self.octaves,
                persistence: self.persistence,
                lacunarity: self.lacunarity,
            },
            shape: self.shape,
        })
    }
}

/// The values of fBm over noise within `±noise`, shaped: fBm is a weighted mean of noise
/// values, so it stays within the noise bound.
pub(super) fn shaped_fbm_bound(shape: Shape, noise: f64) -> Bounds {
    match shape {
        Shape::Normal => Bounds::new(-noise, noise),
        // 2 (1 - |v|)² - 1 with |v| up to the bound.
        Shape::Ridged => {
            let beyond = noise - 1.0;
            Bounds::new(-1.0, 2.0 * (beyond * beyond).max(1.0) - 1.0)
        }
        Shape::Billow => Bounds::new(-1.0, 2.0 * noise - 1.0),
    }
}

#[derive(Debug)]
struct FbmKernel {
    noise: Arc<Simplex>,
    scale: f64,
    params: FbmParams,
    shape: Shape,
}

impl Evaluate for FbmKernel {
    fn value(&self, x: f64, z: f64, _: &Inputs<'_>) -> f64 {
        let p = self.params;
        self.shape.apply(fbm(
            &self.noise,
            x * self.scale,
            z * self.scale,
            p.octaves,
            p.persistence,
            p.lacunarity,
        ))
    }

    fn values(&self, xs: &[f64], zs: &[f64], _: &Inputs<'_>, out: &mut [f64]) {
        let sx = Scratch::collect(xs.iter().map(|x| x * self.scale));
        let sz = Scratch::collect(zs.iter().map(|z| z * self.scale));
        self.noise.fbm_points(&sx, &sz, self.params, out);
        if self.shape != Shape::Normal {
            out.iter_mut().for_each(|v| *v = self.shape.apply(*v));
        }
    }
}

/// 1 at a region site, falling to -1 at `radius` from the nearest site and beyond.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Distance (world units) at which the value reaches -1.
    pub radius: f64,
}

impl Operation for Cell {
    const INPUTS: &'static [&'static str] = &[];

    fn template() -> Self {
        Self { radius: 0.0 }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(number(
            "radius",
            &mut self.radius,
            limits::CELL_RADIUS,
            Typical::Factor(1.0..=10_000.0),
        ));
    }

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        Bounds::new(-1.0, 1.0)
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(*self)
    }
}

impl Cell {
    /// The tutorial's cell value: 1 at a site, -1 at `radius` and beyond.
    fn at(self, distance: f64) -> f64 {
        1.0 - 2.0 * js_min(1.0, distance / self.radius)
    }
}

impl Evaluate for Cell {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        self.at(inputs.sites().nearest_distance(x, z))
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        let sites = inputs.sites();
        for ((v, &x), &z) in out.iter_mut().zip(xs).zip(zs) {
            *v = self.at(sites.nearest_distance(x, z));
        }
    }
}

/// Reads `input` at a point pushed by `strength` world units along fBm fields. Level 1 is the
/// tutorial's `warpNode`; level 2 warps the warp like `domainWarp`; level 0 passes through.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Warp {
    /// Added to the world seed for the warp's noise.
    pub seed_offset: i64,
    /// 0, 1 or 2 warps.
    pub levels: u32,
    /// How far points get pushed, in world units.
    pub strength: f64,
    /// Frequency of the warp field in 1 / world units.
    pub scale: f64,
    /// Octaves of the warp field (the tutorial uses 3).
    pub octaves: u32,
}

impl Operation for Warp {
    const INPUTS: &'static [&'static str] = &["input"];

    fn template() -> Self {
        Self {
            seed_offset: 0,
            levels: 1,
            strength: 0.0,
            scale: 0.0,
            octaves: 3,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(seed_offset(&mut self.seed_offset));
        visit(Field {
            name: "levels",
            required: false,
            value: FieldValue::Choice {
                value: &mut self.levels,
                choices: &["None", "Single", "Double"],
            },
        });
        visit(number(
            "strength",
            &mut self.strength,
            limits::WARP_STRENGTH,
            Typical::Even(0.0..=1000.0),
        ));
        visit(number(
            "scale",
            &mut self.scale,
            limits::SCALE,
            Typical::Frequency,
        ));
        visit(whole("octaves", &mut self.octaves, limits::OCTAVES));
    }

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        // The input is read elsewhere: its values, wherever they come from.
        inputs[0]
    }

    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(WarpKernel {
            noise: noise.get(self.seed_offset),
            warp: WarpParams {
                strength: self.strength,
                frequency: self.scale,
                levels: self.levels,
                fbm: FbmParams::octaves(self.octaves),
            },
        })
    }
}

#[derive(Debug)]
struct WarpKernel {
    noise: Arc<Simplex>,
    warp: WarpParams,
}

impl Evaluate for WarpKernel {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        if self.warp.levels == 0 {
            return inputs.value(0, x, z);
        }
        let [qx, qz] = warp_offset(&self.noise, x, z, &self.warp);
        let strength = self.warp.strength;
        inputs.value(0, x + strength * qx, z + strength * qz)
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        if self.warp.levels == 0 {
            return inputs.values(0, xs, zs, out);
        }
        let mut qx = Scratch::zeroed(xs.len());
        let mut qz = Scratch::zeroed(xs.len());
        self.noise
            .warp_offset_points(xs, zs, &self.warp, &mut qx, &mut qz);
        let strength = self.warp.strength;
        for k in 0..xs.len() {
            qx[k] = xs[k] + strength * qx[k];
            qz[k] = zs[k] + strength * qz[k];
        }
        inputs.values(0, &qx, &qz, out);
    }
}

/// A pointwise operation on one input, evaluated by [`Map`].
trait Unary: Copy + fmt::Debug + Send + Sync + 'static {
    fn apply(&self, value: f64) -> f64;
}

/// A pointwise operation on two inputs, evaluated by [`Combine`].
trait Binary: Copy + fmt::Debug + Send + Sync + 'static {
    fn apply(&self, a: f64, b: f64) -> f64;
}

#[derive(Debug)]
struct Map<T>(T);

impl<T: Unary> Evaluate for Map<T> {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        self.0.apply(inputs.value(0, x, z))
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        inputs.values(0, xs, zs, out);
        out.iter_mut().for_each(|v| *v = self.0.apply(*v));
    }
}

#[derive(Debug)]
struct Combine<T>(T);

impl<T: Binary> Evaluate for Combine<T> {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        let a = inputs.value(0, x, z);
        self.0.apply(a, inputs.value(1, x, z))
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        inputs.values(0, xs, zs, out);
        let mut other = Scratch::zeroed(xs.len());
        inputs.values(1, xs, zs, &mut other);
        for (v, &b) in out.iter_mut().zip(other.iter()) {
            *v = self.0.apply(*v, b);
        }
    }
}

/// Clamps `input` to `low..=high`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clamp {
    /// The floor.
    pub low: f64,
    /// The ceiling.
    pub high: f64,
}

impl Operation for Clamp {
    const INPUTS: &'static [&'static str] = &["input"];

    fn template() -> Self {
        Self {
            low: 0.0,
            high: 0.0,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        floor_and_ceiling(&mut self.low, &mut self.high, visit);
    }

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        Bounds::new(self.apply(inputs[0].low), self.apply(inputs[0].high))
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Map(*self))
    }
}

impl Unary for Clamp {
    fn apply(&self, value: f64) -> f64 {
        js_min(self.high, js_max(self.low, value))
    }
}

/// Clamps `input` to `low..=high` with rounded corners `smoothness` wide.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmoothClamp {
    /// The floor.
    pub low: f64,
    /// The ceiling.
    pub high: f64,
    /// Width of the rounding (0 is a hard clamp).
    pub smoothness: f64,
}

impl Operation for SmoothClamp {
    const INPUTS: &'static [&'static str] = &["input"];

    fn template() -> Self {
        Self {
            low: 0.0,
            high: 0.0,
            smoothness: 0.0,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        floor_and_ceiling(&mut self.low, &mut self.high, visit);
        visit(number(
            "smoothness",
            &mut self.smoothness,
            limits::SMOOTHNESS,
            Typical::Any,
        ));
    }

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        // The smooth minimum lies within a quarter of the rounding width below the hard one,
        // and it rises with both arguments.
        let (input, k) = (inputs[0], self.smoothness / 4.0);
        Bounds::new(
            (input.low.min(self.high) - k).max(self.low),
            input.high.min(self.high).max(self.low) + k,
        )
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Map(*self))
    }
}

impl Unary for SmoothClamp {
    fn apply(&self, value: f64) -> f64 {
        let k = self.smoothness;
        -smooth_min(-smooth_min(value, self.high, k), -self.low, k)
    }
}

/// Polynomial smooth minimum (Inigo Quilez): `min(a, b)` with the corner rounded over `k`.
fn smooth_min(a: f64, b: f64, k: f64) -> f64 {
    if k <= 0.0 {
        return a.min(b);
    }
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

/// The absolute value of `input`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Abs {}

impl Operation for Abs {
    const INPUTS: &'static [&'static str] = &["input"];

    fn template() -> Self {
        Self {}
    }

    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {}

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        let Bounds { low, high } = inputs[0];
        if low >= 0.0 {
            inputs[0]
        } else if high <= 0.0 {
            Bounds::new(-high, -low)
        } else {
            Bounds::new(0.0, high.max(-low))
        }
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Map(*self))
    }
}

impl Unary for Abs {
    fn apply(&self, value: f64) -> f64 {
        value.abs()
    }
}

/// `a + b`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Add {}

impl Operation for Add {
    const INPUTS: &'static [&'static str] = &["a", "b"];

    fn template() -> Self {
        Self {}
    }

    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {}

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        let (a, b) = (inputs[0], inputs[1]);
        Bounds::new(a.low + b.low, a.high + b.high)
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Combine(*self))
    }
}

impl Binary for Add {
    fn apply(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

/// `a * b`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multiply {}

impl Operation for Multiply {
    const INPUTS: &'static [&'static str] = &["a", "b"];

    fn template() -> Self {
        Self {}
    }

    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {}

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        let (a, b) = (inputs[0], inputs[1]);
        let products = [
            a.low * b.low,
            a.low * b.high,
            a.high * b.low,
            a.high * b.high,
        ];
        Bounds::new(
            products.iter().copied().fold(f64::INFINITY, f64::min),
            products.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Combine(*self))
    }
}

impl Binary for Multiply {
    fn apply(&self, a: f64, b: f64) -> f64 {
        a * b
    }
}

/// The smaller of `a` and `b` (NaN if either is, as JavaScript's `Math.min`). In a volume, where
/// positive is solid, this carves `b`'s hollows out of `a`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Min {}

impl Operation for Min {
    const INPUTS: &'static [&'static str] = &["a", "b"];

    fn template() -> Self {
        Self {}
    }

    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {}

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        let (a, b) = (inputs[0], inputs[1]);
        Bounds::new(js_min(a.low, b.low), js_min(a.high, b.high))
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Combine(*self))
    }
}

impl Binary for Min {
    fn apply(&self, a: f64, b: f64) -> f64 {
        js_min(a, b)
    }
}

/// The larger of `a` and `b` (NaN if either is, as JavaScript's `Math.max`). In a volume, where
/// positive is solid, this adds `b`'s rock to `a`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Max {}

impl Operation for Max {
    const INPUTS: &'static [&'static str] = &["a", "b"];

    fn template() -> Self {
        Self {}
    }

    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {}

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        let (a, b) = (inputs[0], inputs[1]);
        Bounds::new(js_max(a.low, b.low), js_max(a.high, b.high))
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Combine(*self))
    }
}

impl Binary for Max {
    fn apply(&self, a: f64, b: f64) -> f64 {
        js_max(a, b)
    }
}

/// `a + (b - a) * amount`.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mix {
    /// 0 is all `a`, 1 is all `b`.
    pub amount: f64,
}

impl Operation for Mix {
    const INPUTS: &'static [&'static str] = &["a", "b"];

    fn template() -> Self {
        Self { amount: 0.0 }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(number(
            "amount",
            &mut self.amount,
            limits::MIX_AMOUNT,
            Typical::Even(limits::MIX_AMOUNT),
        ));
    }

    fn bound(&self, inputs: &[Bounds], _: &DensityFunctions) -> Bounds {
        // (1 - t) a + t b rises with both inputs for t in 0..=1.
        let (a, b, t) = (inputs[0], inputs[1], self.amount);
        Bounds::new(
            a.low * (1.0 - t) + b.low * t,
            a.high * (1.0 - t) + b.high * t,
        )
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Combine(*self))
    }
}

impl Binary for Mix {
    fn apply(&self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.amount
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smooth_clamp_meets_hard_clamp_away_from_corners() {
        let clamp = |value, smoothness| {
            SmoothClamp {
                low: -1.0,
                high: 1.0,
                smoothness,
            }
            .apply(value)
        };
        assert_eq!(clamp(0.0, 0.2), 0.0);
        assert_eq!(clamp(5.0, 0.2), 1.0);
        assert_eq!(clamp(-5.0, 0.2), -1.0);
        assert!(clamp(1.0, 0.2) < 1.0);
        assert_eq!(clamp(1.5, 0.0), 1.0);
    }

    /// The noise bound against the densest sampling we can afford: no value comes near it from
    /// above, and sampled values come within a factor of four of it (it is not vacuous).
    #[test]
    fn noise_stays_within_its_bound() {
        let simplex = Simplex::new(3);
        let mut largest: f64 = 0.0;
        for i in 0..400 {
            for j in 0..400 {
                let v = simplex.noise(f64::from(i) * 0.0173, f64::from(j) * 0.0191);
                largest = largest.max(v.abs());
            }
        }
        assert!(
            largest < NOISE_BOUND && largest > NOISE_BOUND / 4.0,
            "{largest}"
        );
    }

    #[test]
    fn every_operation_lists_its_fields_and_inputs() {
        for kind in DensityOp::KINDS {
            let mut op = DensityOp::template(kind).expect("every kind has a template");
            assert_eq!(op.kind(), *kind);
            assert_eq!(DensityOp::KINDS[op.index() as usize], *kind);
            let mut names = Vec::new();
            op.fields(&mut |field| names.push(field.name));
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{kind} repeats a field");
            assert!(
                names
                    .iter()
                    .all(|n| !op.input_names().contains(n) && *n != "enabled"),
                "{kind}"
            );
        }
        assert!(DensityOp::template("Nope").is_none());
    }
}
