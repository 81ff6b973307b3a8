//! [`DensityField`]: a validated [`DensityNode`] graph compiled for one world seed.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::{Bounds, DensityFunctions, DensityNode, Sites};
use crate::check::SettingsError;
use crate::tutorial::Simplex;

/// A compiled operation: its value at one point, or at many with the batch paths (the same
/// bits), reading its inputs through [`Inputs`].
pub(crate) trait Evaluate: Send + Sync + fmt::Debug {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64;
    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]);
}

/// What an evaluating node sees: its inputs, by position, and the region sites.
pub(crate) struct Inputs<'a> {
    field: &'a DensityField,
    ids: &'a [usize],
    sites: &'a dyn Sites,
}

impl Inputs<'_> {
    /// Input `k`'s value at `(x, z)`.
    pub(crate) fn value(&self, k: usize, x: f64, z: f64) -> f64 {
        self.field.value_of(self.ids[k], x, z, self.sites)
    }

    /// Input `k`'s values at every `(xs[i], zs[i])`.
    pub(crate) fn values(&self, k: usize, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        self.field.values_of(self.ids[k], xs, zs, self.sites, out);
    }

    pub(crate) fn sites(&self) -> &dyn Sites {
        self.sites
    }
}

/// What an operation compiles with: the noise tables of one compile (one per distinct seed),
/// the density functions [`super::Custom`] nodes name, and the bounds of the inputs of the node
/// being compiled.
pub(crate) struct NoiseTables {
    seed: i64,
    tables: HashMap<i64, Arc<Simplex>>,
    functions: DensityFunctions,
    inputs: Vec<Bounds>,
}

impl NoiseTables {
    /// No tables yet, for world seed `seed`.
    pub(crate) fn for_seed(seed: i64, functions: DensityFunctions) -> Self {
        Self {
            seed,
            tables: HashMap::new(),
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
        let mut field = Self { nodes: Vec::new() };
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
    #[must_use]
    pub fn value(&self, x: f64, z: f64, sites: &dyn Sites) -> f64 {
        self.value_of(0, x, z, sites)
    }

    /// The value of node `id` (pre-order, see [`DensityNode::walk`]) at `(x, z)`.
    ///
    /// # Panics
    /// If `id` is not below [`DensityField::node_count`].
    #[must_use]
    pub fn value_of(&self, id: usize, x: f64, z: f64, sites: &dyn Sites) -> f64 {
        let node = &self.nodes[id];
        node.kernel.value(x, z, &self.inputs(node, sites))
    }

    /// The stack's value at every `(xs[k], zs[k])`, with the SIMD batch paths; the same bits as
    /// [`DensityField::value`].
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn values(&self, xs: &[f64], zs: &[f64], sites: &dyn Sites, out: &mut [f64]) {
        self.values_of(0, xs, zs, sites, out);
    }

    /// Node `id`'s value at every `(xs[k], zs[k])`; the same bits as [`DensityField::value_of`].
    ///
    /// # Panics
    /// If the three slices differ in length, or `id` is not below [`DensityField::node_count`].
    pub fn values_of(&self, id: usize, xs: &[f64], zs: &[f64], sites: &dyn Sites, out: &mut [f64]) {
        assert_eq!(xs.len(), zs.len(), "xs and zs must have the same length");
        assert_eq!(xs.len(), out.len(), "out must have one slot per point");
        let node = &self.nodes[id];
        node.kernel.values(xs, zs, &self.inputs(node, sites), out);
    }

    fn inputs<'a>(&'a self, node: &'a Compiled, sites: &'a dyn Sites) -> Inputs<'a> {
        Inputs {
            field: self,
            ids: &node.inputs,
            sites,
        }
    }
}
