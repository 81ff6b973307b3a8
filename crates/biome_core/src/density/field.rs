//! [`DensityField`]: a validated [`DensityNode`] graph compiled for one world seed.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::{Bounds, DensityFunctions, DensityNode, Sites};
use crate::check::SettingsError;
use crate::noise3::Simplex3;
use crate::tutorial::Simplex;

/// A compiled operation: its value at one point, or at many with the batch paths (the same
/// bits), reading its inputs through [`Inputs`].
pub(crate) trait Evaluate: Send + Sync + fmt::Debug {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64;
    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]);
}

/// What an evaluating node sees: its inputs, by position, the region sites, and in a volume the
/// heights its points stand at.
pub(crate) struct Inputs<'a> {
    field: &'a DensityField,
    ids: &'a [usize],
    sites: &'a dyn Sites,
    heights: Heights<'a>,
}

impl Inputs<'_> {
    /// Input `k`'s value at `(x, z)` (at the same height, in a volume).
    pub(crate) fn value(&self, k: usize, x: f64, z: f64) -> f64 {
        self.field
            .evaluate(self.ids[k], x, z, self.sites, self.heights)
    }

    /// Input `k`'s values at every `(xs[i], zs[i])` (at the same heights, in a volume).
    pub(crate) fn values(&self, k: usize, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.field
            .evaluate_many(self.ids[k], xs, zs, self.sites, self.heights, out);
    }

    pub(crate) fn sites(&self) -> &dyn Sites {
        self.sites
    }

    /// The height of the point being evaluated and the ground's there; both 0 in a height stack.
    pub(crate) fn height(&self) -> PointHeight {
        match self.heights {
            Heights::One(height) => height,
            Heights::Plane => PointHeight::default(),
            Heights::Many(_) => unreachable!("one point is evaluated with one height"),
        }
    }

    /// The heights of the `len` points being evaluated and the ground's there; all 0 in a
    /// height stack.
    ///
    /// # Panics
    /// If the batch holds another number of heights: every operation evaluates its inputs at
    /// its own points, in order, so a batch's heights stay aligned with its points.
    pub(crate) fn heights(&self, len: usize) -> (Cow<'_, [f64]>, Cow<'_, [f64]>) {
        match self.heights {
            Heights::Many(many) => {
                assert_eq!(many.ys.len(), len, "one height per point of the batch");
                (Cow::Borrowed(many.ys), Cow::Borrowed(many.grounds))
            }
            Heights::Plane => (Cow::Owned(vec![0.0; len]), Cow::Owned(vec![0.0; len])),
            Heights::One(_) => unreachable!("a batch is evaluated with a height per point"),
        }
    }
}

/// Where a volume is evaluated vertically: the point's height `y`, and the height of the ground
/// (the world's surface) under it.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct PointHeight {
    /// The point's height.
    pub y: f64,
    /// The surface height at the point's `(x, z)`, as the caller gives it: a `Warp` moves the
    /// point its input reads across, not the ground under it.
    pub ground: f64,
}

/// The points of a volume batch ([`DensityField::volume_values`]): the `k`-th point is
/// `(xs[k], ys[k], zs[k])`, with the ground at `grounds[k]` under it.
#[derive(Clone, Copy, Debug)]
pub struct VolumePoints<'a> {
    /// X of every point.
    pub xs: &'a [f64],
    /// Heights of every point.
    pub ys: &'a [f64],
    /// Z of every point.
    pub zs: &'a [f64],
    /// The surface height under every point.
    pub grounds: &'a [f64],
}

/// The heights a graph is evaluated at: none in a height stack, the same point's or each batch
/// point's in a volume (nodes pass them on to their inputs unchanged).
#[derive(Clone, Copy)]
enum Heights<'a> {
    Plane,
    One(PointHeight),
    Many(ManyHeights<'a>),
}

#[derive(Clone, Copy)]
struct ManyHeights<'a> {
    ys: &'a [f64],
    grounds: &'a [f64],
}

/// What an operation compiles with: the noise tables of one compile (one per distinct seed),
/// the density functions [`super::Custom`] nodes name, and the bounds of the inputs of the node
/// being compiled.
pub(crate) struct NoiseTables {
    seed: i64,
    tables: HashMap<i64, Arc<Simplex>>,
    volume_tables: HashMap<i64, Arc<Simplex3>>,
    functions: DensityFunctions,
    inputs: Vec<Bounds>,
}

impl NoiseTables {
    /// No tables yet, for world seed `seed`.
    pub(crate) fn for_seed(seed: i64, functions: DensityFunctions) -> Self {
        Self {
            seed,
            tables: HashMap::new(),
            volume_tables: HashMap::new(),
            functions,
            inputs: Vec::new(),
        }
    }

    /// The table for the world seed plus `offset` (wrapping, so no offset can overflow; within
    /// the validated ranges nothing wraps).
    pub(crate) fn get(&mut self, offset: i64) -> Arc<Simplex> {
        let seed = self.seed.wrapping_add(offset);
        self.tables
            .entry(seed)
            .or_insert_with(|| Arc::new(Simplex::new(seed)))
            .clone()
    }

    /// The 3D table for the world seed plus `offset`, as [`NoiseTables::get`].
    pub(crate) fn get_3d(&mut self, offset: i64) -> Arc<Simplex3> {
        let seed = self.seed.wrapping_add(offset);
        self.volume_tables
            .entry(seed)
            .or_insert_with(|| Arc::new(Simplex3::new(seed)))
            .clone()
    }

    /// The world seed.
    pub(crate) fn seed(&self) -> i64 {
        self.seed
    }

    /// The functions the stack may name.
    pub(crate) fn functions(&self) -> &DensityFunctions {
        &self.functions
    }

    /// The values the first input of the node being compiled can give.
    pub(crate) fn input_bound(&self) -> Bounds {
        self.inputs.first().copied().unwrap_or(Bounds::point(0.0))
    }
}

/// A switched-off node with an input: its first input, unchanged.
#[derive(Debug)]
struct Pass;

impl Evaluate for Pass {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        inputs.value(0, x, z)
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        inputs.values(0, xs, zs, out);
    }
}

#[derive(Clone, Debug)]
struct Compiled {
    kernel: Arc<dyn Evaluate>,
    inputs: Vec<usize>,
}

/// A [`DensityNode`] graph compiled for one world seed, ready to evaluate at one point
/// ([`DensityField::value`]) or many ([`DensityField::values`], SIMD, the same bits).
#[derive(Clone, Debug)]
pub struct DensityField {
    /// Nodes in pre-order: the root is 0.
    nodes: Vec<Compiled>,
    /// Whether it was compiled as a volume, whose nodes may read heights a height stack has not.
    volume: bool,
}

impl DensityField {
    /// Validates `root` ([`DensityNode::validate`]) and compiles it for world seed `seed`,
    /// building each distinct noise table once.
    ///
    /// # Errors
    /// The first invalid node or field, by its path from the root.
    pub fn new(root: &DensityNode, seed: i64) -> Result<Self, SettingsError> {
        Self::with_functions(root, seed, &DensityFunctions::default())
    }

    /// [`DensityField::new`] for a graph whose [`super::Custom`] nodes name `functions`.
    ///
    /// # Errors
    /// The first invalid node or field, by its path from the root.
    pub fn with_functions(
        root: &DensityNode,
        seed: i64,
        functions: &DensityFunctions,
    ) -> Result<Self, SettingsError> {
        root.validate_with(functions)?;
        Ok(Self::compile(root, seed, functions))
    }

    /// Validates `root` as a volume ([`DensityNode::validate_volume_with`]) and compiles it for
    /// world seed `seed`, to evaluate with [`DensityField::volume_value`] and
    /// [`DensityField::volume_values`].
    ///
    /// # Errors
    /// The first invalid node or field, by its path from the root.
    pub fn volume(
        root: &DensityNode,
        seed: i64,
        functions: &DensityFunctions,
    ) -> Result<Self, SettingsError> {
        root.validate_volume_with(functions)?;
        Ok(Self::compile(root, seed, functions).into_volume())
    }

    /// A graph compiled by [`DensityField::compile`] after volume validation, as a volume.
    pub(crate) fn into_volume(self) -> Self {
        Self {
            volume: true,
            ..self
        }
    }

    /// Compiles a graph that passed validation with `functions` (so its depth is bounded and
    /// every function it names is there).
    pub(crate) fn compile(root: &DensityNode, seed: i64, functions: &DensityFunctions) -> Self {
        fn add(
            field: &mut DensityField,
            node: &DensityNode,
            noise: &mut NoiseTables,
            bounds: &[Bounds],
        ) -> usize {
            let id = field.nodes.len();
            field.nodes.push(Compiled {
                kernel: Arc::new(Pass),
                inputs: Vec::new(),
            });
            let inputs: Vec<usize> = node
                .inputs
                .iter()
                .map(|input| add(field, input, noise, bounds))
                .collect();
            noise.inputs = inputs.iter().map(|&input| bounds[input]).collect();
            let kernel = match (node.enabled, inputs.is_empty()) {
                (true, _) => node.op.compile(noise),
                (false, false) => Arc::new(Pass),
                (false, true) => Arc::new(super::Constant { value: 0.0 }),
            };
            field.nodes[id] = Compiled { kernel, inputs };
            id
        }
        // Pre-order, as `DensityNode::walk` numbers them.
        let bounds = root.node_bounds(functions);
        let mut field = Self {
            nodes: Vec::new(),
            volume: false,
        };
        let mut noise = NoiseTables::for_seed(seed, functions.clone());
        add(&mut field, root, &mut noise, &bounds);
        field
    }

    /// The number of nodes (the ids of [`DensityField::values_of`] run below it).
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The stack's value at `(x, z)`.
    ///
    /// # Panics
    /// If the field is a volume ([`DensityField::volume`]).
    #[must_use]
    pub fn value(&self, x: f64, z: f64, sites: &dyn Sites) -> f64 {
        self.value_of(0, x, z, sites)
    }

    /// The value of node `id` (pre-order, see [`DensityNode::walk`]) at `(x, z)`.
    ///
    /// # Panics
    /// If `id` is not below [`DensityField::node_count`], or the field is a volume
    /// ([`DensityField::volume`]: read it with [`DensityField::volume_value_of`]).
    #[must_use]
    pub fn value_of(&self, id: usize, x: f64, z: f64, sites: &dyn Sites) -> f64 {
        assert!(
            !self.volume,
            "a volume is read at (x, y, z): volume_value_of"
        );
        self.evaluate(id, x, z, sites, Heights::Plane)
    }

    /// The stack's value at every `(xs[k], zs[k])`, with the SIMD batch paths; the same bits as
    /// [`DensityField::value`].
    ///
    /// # Panics
    /// If the three slices differ in length, or the field is a volume.
    pub fn values(&self, xs: &[f64], zs: &[f64], sites: &dyn Sites, out: &mut [f64]) {
        self.values_of(0, xs, zs, sites, out);
    }

    /// Node `id`'s value at every `(xs[k], zs[k])`; the same bits as [`DensityField::value_of`].
    ///
    /// # Panics
    /// If the three slices differ in length, `id` is not below [`DensityField::node_count`], or
    /// the field is a volume (read it with [`DensityField::volume_values_of`]).
    pub fn values_of(&self, id: usize, xs: &[f64], zs: &[f64], sites: &dyn Sites, out: &mut [f64]) {
        assert!(
            !self.volume,
            "a volume is read at (x, y, z): volume_values_of"
        );
        self.evaluate_many(id, xs, zs, sites, Heights::Plane, out);
    }

    /// A volume's value at `(x, height.y, z)`, where the ground is at `height.ground`: positive
    /// is solid. For a graph compiled with [`DensityField::volume`] (a height stack read so
    /// ignores the heights). Coordinates and heights are taken as given, finite and within
    /// [`crate::limits::COORDINATE`] as the generator keeps them; NaN gives NaN.
    #[must_use]
    pub fn volume_value(&self, x: f64, z: f64, height: PointHeight, sites: &dyn Sites) -> f64 {
        self.volume_value_of(0, x, z, height, sites)
    }

    /// Node `id`'s value in a volume at `(x, height.y, z)`.
    ///
    /// # Panics
    /// If `id` is not below [`DensityField::node_count`].
    #[must_use]
    pub fn volume_value_of(
        &self,
        id: usize,
        x: f64,
        z: f64,
        height: PointHeight,
        sites: &dyn Sites,
    ) -> f64 {
        self.evaluate(id, x, z, sites, Heights::One(height))
    }

    /// A volume's value at every point of `points`, with the SIMD batch paths; the same bits as
    /// [`DensityField::volume_value`].
    ///
    /// # Panics
    /// If the slices of `points` and `out` differ in length.
    pub fn volume_values(&self, points: VolumePoints<'_>, sites: &dyn Sites, out: &mut [f64]) {
        self.volume_values_of(0, points, sites, out);
    }

    /// Node `id`'s values in a volume at every point of `points`.
    ///
    /// # Panics
    /// If the slices of `points` and `out` differ in length, or `id` is not below
    /// [`DensityField::node_count`].
    pub fn volume_values_of(
        &self,
        id: usize,
        points: VolumePoints<'_>,
        sites: &dyn Sites,
        out: &mut [f64],
    ) {
        let VolumePoints {
            xs,
            ys,
            zs,
            grounds,
        } = points;
        assert_eq!(xs.len(), ys.len(), "xs and ys must have the same length");
        assert_eq!(
            xs.len(),
            grounds.len(),
            "grounds must have one height per point"
        );
        let heights = Heights::Many(ManyHeights { ys, grounds });
        self.evaluate_many(id, xs, zs, sites, heights, out);
    }

    fn evaluate(&self, id: usize, x: f64, z: f64, sites: &dyn Sites, heights: Heights<'_>) -> f64 {
        let node = &self.nodes[id];
        node.kernel.value(x, z, &self.inputs(node, sites, heights))
    }

    fn evaluate_many(
        &self,
        id: usize,
        xs: &[f64],
        zs: &[f64],
        sites: &dyn Sites,
        heights: Heights<'_>,
        out: &mut [f64],
    ) {
        assert_eq!(xs.len(), zs.len(), "xs and zs must have the same length");
        assert_eq!(xs.len(), out.len(), "out must have one slot per point");
        let node = &self.nodes[id];
        node.kernel
            .values(xs, zs, &self.inputs(node, sites, heights), out);
    }

    fn inputs<'a>(
        &'a self,
        node: &'a Compiled,
        sites: &'a dyn Sites,
        heights: Heights<'a>,
    ) -> Inputs<'a> {
        Inputs {
            field: self,
            ids: &node.inputs,
            sites,
            heights,
        }
    }
}
