//! The density stack: a serializable graph of field nodes in the spirit of the tutorial's Lab #5
//! and Hytale's density nodes.
//!
//! A [`DensityNode`] is a switch, one operation ([`DensityOp`]: one type per operation, such as
//! [`Fbm`] or [`Mix`]) and the nodes it reads. The graph is data (serde, RON presets, the panel
//! edits it); every node can be switched off like the lab's checkboxes. [`DensityField`] is the
//! graph validated and compiled for one world seed: its noise tables built once, evaluated one
//! point at a time ([`DensityField::value`]) or over many points with the SIMD batch paths
//! ([`DensityField::values`]), with identical bits. The tutorial's example stack,
//! [`DensityNode::tutorial_example`], reproduces the tutorial's numbers exactly.
//!
//! The same graph can be a volume, a field of `(x, y, z)` whose positive values are solid (3D
//! density for caves, overhangs and arches): every node passes its point's height on to its
//! inputs, and [`Ground`], [`Fbm3`] and [`Tunnels`] read it. [`DensityField::volume`] compiles
//! one, [`DensityField::volume_value`] and [`DensityField::volume_values`] evaluate it.
//!
//! Validation ([`DensityNode::validate`]) bounds what a graph can produce: every operation knows
//! the interval its values lie in given its inputs' intervals, so an accepted graph never leaves
//! [`limits::DENSITY`]. Walking, validating, comparing, cloning
//! and dropping a graph use no recursion, so a graph of any depth built in code is refused
//! cleanly rather than overflowing the stack.

mod custom;
mod erosion;
mod field;
mod format;
mod ops;
mod volume;

pub use custom::{Custom, DensityFunction, DensityFunctions, FunctionName};
pub use erosion::Eroded;
pub use field::{DensityField, PointHeight, VolumePoints};
pub use ops::{
    Abs, Add, Cell, Clamp, Constant, DensityOp, Fbm, Field, FieldValue, Max, Min, Mix, Multiply,
    SmoothClamp, Typical, Warp,
};
pub use volume::{Fbm3, Ground, Tunnels};

use crate::check::{SettingsError, number_problem, whole_problem};
use crate::limits;
use crate::tutorial::{billow, nearest_two, ridged};

/// How an fBm node shapes its value.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Shape {
    /// Plain fBm: rolling land.
    #[default]
    Normal,
    /// [`ridged`] fBm: sharp mountain ranges.
    Ridged,
    /// [`billow`] fBm: dunes and clouds.
    Billow,
}

impl Shape {
    /// Every shape, in panel order.
    pub const ALL: [Shape; 3] = [Shape::Normal, Shape::Ridged, Shape::Billow];

    /// Applies the shape to an fBm value.
    #[must_use]
    pub fn apply(self, value: f64) -> f64 {
        match self {
            Shape::Normal => value,
            Shape::Ridged => ridged(value),
            Shape::Billow => billow(value),
        }
    }
}

/// What a graph is evaluated over: a height stack gives a value per `(x, z)`, a volume one per
/// `(x, y, z)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    Height,
    Volume,
}

/// A closed range of values, `low..=high`: what a node can give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// The smallest value.
    pub low: f64,
    /// The largest value.
    pub high: f64,
}

impl Bounds {
    /// `low..=high`.
    #[must_use]
    pub const fn new(low: f64, high: f64) -> Self {
        Self { low, high }
    }

    /// The single value `value`.
    #[must_use]
    pub const fn point(value: f64) -> Self {
        Self::new(value, value)
    }

    /// The largest magnitude in the range (NaN if either end is).
    #[must_use]
    pub fn magnitude(self) -> f64 {
        if self.low.is_nan() || self.high.is_nan() {
            f64::NAN
        } else {
            self.low.abs().max(self.high.abs())
        }
    }

    /// Whether `value` lies in the range.
    #[must_use]
    pub fn contains(self, value: f64) -> bool {
        (self.low..=self.high).contains(&value)
    }
}

/// One node of the density stack: a field `(x, z) -> value`. Sources make values, the others
/// reshape or combine their inputs. A switched-off node passes its first input through
/// unchanged, and a switched-off source gives 0.
///
/// In presets a node is written as its operation with its inputs and fields, like
/// `Clamp(input: Fbm(scale: 0.01), low: -0.3, high: 0.55)`, plus `enabled: false` when off.
#[cfg_attr(
    feature = "bevy_reflect",
    derive(bevy_reflect::Reflect),
    reflect(no_field_bounds)
)]
#[derive(Debug)]
pub struct DensityNode {
    /// Whether the node takes part in the stack.
    pub enabled: bool,
    /// What it does.
    pub op: DensityOp,
    /// The nodes it reads, one per name in [`DensityOp::input_names`].
    pub inputs: Vec<DensityNode>,
}

impl DensityNode {
    /// A switched-on node doing `op` on `inputs`.
    ///
    /// # Panics
    /// If `inputs` does not hold one node per [`DensityOp::input_names`].
    #[must_use]
    pub fn new(op: impl Into<DensityOp>, inputs: impl IntoIterator<Item = DensityNode>) -> Self {
        let op = op.into();
        let inputs: Vec<DensityNode> = inputs.into_iter().collect();
        assert_eq!(
            inputs.len(),
            op.input_names().len(),
            "{} takes {} inputs",
            op.kind(),
            op.input_names().len()
        );
        Self {
            enabled: true,
            op,
            inputs,
        }
    }

    /// A plain fBm source with the tutorial's persistence and lacunarity.
    #[must_use]
    pub fn fbm(seed_offset: i64, scale: f64, octaves: u32, shape: Shape) -> Self {
        Self::new(
            Fbm {
                seed_offset,
                scale,
                octaves,
                persistence: 0.5,
                lacunarity: 2.0,
                shape,
            },
            [],
        )
    }

    /// A constant source.
    #[must_use]
    pub fn constant(value: f64) -> Self {
        Self::new(Constant { value }, [])
    }

    /// The tutorial's example stack, for a world seed `seed`:
    /// `mixNode(clampNode(warpNode(simplexNode(new Simplex(seed), 0.012), new Simplex(seed + 4),
    /// 25, 0.006), -0.3, 0.55), cellNode(sites, 90), 0.35)`.
    #[must_use]
    pub fn tutorial_example() -> Self {
        let warp = Warp {
            seed_offset: 4,
            levels: 1,
            strength: 25.0,
            scale: 0.006,
            octaves: 3,
        };
        let continents = Self::new(warp, [Self::fbm(0, 0.012, 4, Shape::Normal)]);
        let clamped = Self::new(
            Clamp {
                low: -0.3,
                high: 0.55,
            },
            [continents],
        );
        let cells = Self::new(Cell { radius: 90.0 }, []);
        Self::new(Mix { amount: 0.35 }, [clamped, cells])
    }

    /// Every node of the graph in pre-order (a node before its inputs), with its depth and its
    /// path from the root (like `a.input`). A node's position here is its id in
    /// [`DensityField::values_of`].
    #[must_use]
    pub fn walk(&self) -> Vec<NodeEntry<'_>> {
        let mut out = Vec::new();
        let mut stack = vec![NodeEntry {
            node: self,
            depth: 0,
            path: String::new(),
        }];
        while let Some(entry) = stack.pop() {
            let names = entry.node.op.input_names();
            for (k, input) in entry.node.inputs.iter().enumerate().rev() {
                let name = names
                    .get(k)
                    .map_or_else(|| format!("inputs[{k}]"), |n| (*n).to_owned());
                stack.push(NodeEntry {
                    node: input,
                    depth: entry.depth + 1,
                    path: join(&entry.path, &name),
                });
            }
            out.push(entry);
        }
        out
    }

    /// The number of nodes in the graph.
    #[must_use]
    pub fn node_count(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            count += 1;
            stack.extend(&node.inputs);
        }
        count
    }

    /// The node with pre-order id `id` (see [`DensityNode::walk`]), mutably.
    pub fn node_mut(&mut self, id: usize) -> Option<&mut DensityNode> {
        let mut stack = vec![self];
        let mut next = 0;
        while let Some(node) = stack.pop() {
            if next == id {
                return Some(node);
            }
            next += 1;
            stack.extend(node.inputs.iter_mut().rev());
        }
        None
    }

    /// Checks the graph: at most [`limits::MAX_NODES`] nodes, one input per input name, every
    /// field in its range, and every node's values within [`limits::DENSITY`] whatever the
    /// position. Returns the values the root can give. Errors name the field by its path from
    /// the root, like `a.input.octaves`. A graph with [`Custom`] nodes needs
    /// [`DensityNode::validate_with`] and the functions they name.
    ///
    /// # Errors
    /// The first node or field that breaks a rule.
    pub fn validate(&self) -> Result<Bounds, SettingsError> {
        self.check_at("", &DensityFunctions::default(), Space::Height)
    }

    /// [`DensityNode::validate`] for a graph whose [`Custom`] nodes name `functions`.
    ///
    /// # Errors
    /// The first node or field that breaks a rule, or a function that is not registered.
    pub fn validate_with(&self, functions: &DensityFunctions) -> Result<Bounds, SettingsError> {
        self.check_at("", functions, Space::Height)
    }

    /// [`DensityNode::validate_with`] for a volume: a graph of `(x, y, z)` whose positive values
    /// are solid, which may use the nodes that read the height ([`DensityOp::reads_height`]:
    /// [`Ground`], [`Fbm3`], [`Tunnels`]). The same rules otherwise.
    ///
    /// # Errors
    /// The first node or field that breaks a rule, or a function that is not registered.
    pub fn validate_volume_with(
        &self,
        functions: &DensityFunctions,
    ) -> Result<Bounds, SettingsError> {
        self.check_at("", functions, Space::Volume)
    }

    /// [`DensityNode::validate_with`] or [`DensityNode::validate_volume_with`] with paths under
    /// `prefix` (like `terrain.density`).
    pub(crate) fn check_at(
        &self,
        prefix: &str,
        functions: &DensityFunctions,
        space: Space,
    ) -> Result<Bounds, SettingsError> {
        let error = |path: &str, reason: String| SettingsError {
            field: join(prefix, path),
            reason,
        };
        // Counted before anything else walks the graph, so a huge one is refused cheaply.
        let count = self.node_count();
        if count > limits::MAX_NODES {
            return Err(error(
                "",
                format!(
                    "must have at most {} nodes (got {count})",
                    limits::MAX_NODES
                ),
            ));
        }
        let entries = self.walk();
        for entry in &entries {
            let node = entry.node;
            let names = node.op.input_names();
            if node.inputs.len() != names.len() {
                return Err(error(
                    &entry.path,
                    format!(
                        "{} takes {} inputs ({}), not {}",
                        node.op.kind(),
                        names.len(),
                        names.join(", "),
                        node.inputs.len()
                    ),
                ));
            }
            if space == Space::Height && node.op.reads_height() {
                return Err(error(
                    &entry.path,
                    format!(
                        "{} reads the height, so it belongs in a volume (3D density), not in a \
                         height stack",
                        node.op.kind()
                    ),
                ));
            }
            let mut op = node.op;
            let mut result = Ok(());
            op.fields(&mut |field| {
                if result.is_ok() {
                    result =
                        check_field(join(prefix, &join(&entry.path, field.name)), &field.value);
                }
            });
            result?;
            if let (true, DensityOp::Custom(custom)) = (node.enabled, node.op) {
                custom
                    .function(functions)
                    .map_err(|reason| error(&join(&entry.path, "name"), reason))?;
            }
        }
        let limit = *limits::DENSITY.end();
        let bounds = bounds_of(&entries, functions, |k, bound| {
            let entry = &entries[k];
            let kind = entry.node.op.kind();
            let reason = if bound.low > bound.high {
                format!(
                    "this {kind} node gives the bound {:e} to {:e}, whose low end is above its \
                     high end",
                    bound.low, bound.high
                )
            } else if bound.magnitude() <= limit {
                return Ok(());
            } else {
                // A NaN bound fails too.
                format!(
                    "this {kind} node can reach {:e}; every node must stay within ±{limit:e} \
                     (lower a constant or a multiplier below it)",
                    bound.magnitude()
                )
            };
            Err(error(&entry.path, reason))
        })?;
        Ok(bounds[0])
    }

    /// The values each node can give, by pre-order id, for a graph that passed validation.
    pub(crate) fn node_bounds(&self, functions: &DensityFunctions) -> Vec<Bounds> {
        let unchecked: Result<Vec<Bounds>, ()> = bounds_of(&self.walk(), functions, |_, _| Ok(()));
        unchecked.unwrap_or_default()
    }
}

/// The bound of every node of `entries` (pre-order), each passed to `check` with its id as it is
/// found (inputs before their node).
fn bounds_of<E>(
    entries: &[NodeEntry<'_>],
    functions: &DensityFunctions,
    mut check: impl FnMut(usize, Bounds) -> Result<(), E>,
) -> Result<Vec<Bounds>, E> {
    // Inputs come after their node in pre-order: going backwards, a node's inputs are the
    // last intervals found, its first input on top.
    let mut stack: Vec<Bounds> = Vec::with_capacity(entries.len());
    let mut all = vec![Bounds::point(0.0); entries.len()];
    for (k, entry) in entries.iter().enumerate().rev() {
        let node = entry.node;
        let mut inputs = stack.split_off(stack.len() - node.inputs.len());
        inputs.reverse();
        let bound = match (node.enabled, inputs.first()) {
            (true, _) => node.op.bound(&inputs, functions),
            (false, Some(&first)) => first,
            (false, None) => Bounds::point(0.0),
        };
        check(k, bound)?;
        stack.push(bound);
        all[k] = bound;
    }
    Ok(all)
}

fn join(path: &str, name: &str) -> String {
    match (path.is_empty(), name.is_empty()) {
        (true, _) => name.to_owned(),
        (false, true) => path.to_owned(),
        (false, false) => format!("{path}.{name}"),
    }
}

// Comparing, cloning and dropping walk the graph with a stack of their own, so a graph of any
// depth (built in code; presets are depth-limited) cannot overflow the thread's stack.

impl PartialEq for DensityNode {
    fn eq(&self, other: &Self) -> bool {
        let mut stack = vec![(self, other)];
        while let Some((a, b)) = stack.pop() {
            if a.enabled != b.enabled || a.op != b.op || a.inputs.len() != b.inputs.len() {
                return false;
            }
            stack.extend(a.inputs.iter().zip(&b.inputs));
        }
        true
    }
}

impl Clone for DensityNode {
    fn clone(&self) -> Self {
        let mut order = Vec::new();
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            order.push(node);
            stack.extend(node.inputs.iter().rev());
        }
        // Backwards through pre-order, a node's clones inputs are the last ones made.
        let mut made: Vec<DensityNode> = Vec::with_capacity(order.len());
        for node in order.into_iter().rev() {
            let mut inputs = made.split_off(made.len() - node.inputs.len());
            inputs.reverse();
            made.push(DensityNode {
                enabled: node.enabled,
                op: node.op,
                inputs,
            });
        }
        made.pop().expect("the root's clone")
    }
}

impl Drop for DensityNode {
    fn drop(&mut self) {
        if self.inputs.iter().all(|input| input.inputs.is_empty()) {
            return;
        }
        let mut stack = std::mem::take(&mut self.inputs);
        while let Some(mut node) = stack.pop() {
            stack.append(&mut node.inputs);
        }
    }
}

/// One node in [`DensityNode::walk`]'s list.
#[derive(Clone, Debug)]
pub struct NodeEntry<'a> {
    /// The node.
    pub node: &'a DensityNode,
    /// 0 for the root, 1 for its inputs, and so on.
    pub depth: usize,
    /// The node's place in a preset, like `a.input` (empty for the root).
    pub path: String,
}

/// Where the [`Cell`] operation finds its sites.
pub trait Sites {
    /// Distance from `(x, z)` to the nearest site (F1).
    fn nearest_distance(&self, x: f64, z: f64) -> f64;
}

impl Sites for [[f64; 2]] {
    fn nearest_distance(&self, x: f64, z: f64) -> f64 {
        nearest_two(self, x, z).d1
    }
}

impl Sites for Vec<[f64; 2]> {
    fn nearest_distance(&self, x: f64, z: f64) -> f64 {
        nearest_two(self, x, z).d1
    }
}

/// Checks one field of a density operation against what it may be.
fn check_field(field: String, value: &FieldValue<'_>) -> Result<(), SettingsError> {
    let problem = match value {
        FieldValue::Number { value, range, .. } => number_problem(**value, range, ""),
        FieldValue::Whole { value, range } => whole_problem(**value, range, ""),
        FieldValue::SeedOffset { value, range } => whole_problem(**value, range, ""),
        FieldValue::Choice { value, choices } => (**value as usize >= choices.len()).then(|| {
            format!(
                "must be a whole number from 0 to {} ({}) (got {value})",
                choices.len() - 1,
                choices.join(", ")
            )
        }),
        FieldValue::Shape(_) => None,
        FieldValue::Name(name) => FunctionName::new(name.as_str()).err(),
    };
    match problem {
        Some(reason) => Err(SettingsError { field, reason }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_lists_nodes_in_pre_order_with_paths() {
        let stack = DensityNode::tutorial_example();
        let entries = stack.walk();
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["", "a", "a.input", "a.input.input", "b"]);
        assert_eq!(entries[3].node.op.kind(), "Fbm");
        assert_eq!(entries[3].depth, 3);
        assert_eq!(stack.node_count(), 5);
    }

    #[test]
    fn node_mut_finds_every_node_by_pre_order_id() {
        let mut stack = DensityNode::tutorial_example();
        for id in 0..5 {
            let kind = stack.walk()[id].node.op.kind();
            assert_eq!(stack.node_mut(id).map(|n| n.op.kind()), Some(kind));
        }
        assert!(stack.node_mut(5).is_none());
    }

    #[test]
    fn switched_off_nodes_pass_through_and_sources_give_zero() {
        let sites = vec![[0.0, 0.0]];
        let mut stack = DensityNode::tutorial_example();
        stack.node_mut(0).unwrap().enabled = false;
        let whole = DensityField::new(&stack, 7).unwrap();
        let first = DensityField::new(&DensityNode::tutorial_example(), 7).unwrap();
        // Mix off: the clamp (node 1) alone.
        assert_eq!(
            whole.value(3.0, 4.0, &sites),
            first.value_of(1, 3.0, 4.0, &sites)
        );
        stack.node_mut(3).unwrap().enabled = false;
        let flat = DensityField::new(&stack, 7).unwrap();
        assert_eq!(flat.value(3.0, 4.0, &sites), 0.0);
    }

    /// 100,000 nested nodes: counted, refused, compared, cloned and dropped without recursion.
    #[test]
    fn deep_graphs_are_refused_without_overflowing_the_stack() {
        let mut deep = DensityNode::constant(0.25);
        for _ in 0..100_000 {
            deep = DensityNode::new(Abs {}, [deep]);
        }
        assert_eq!(deep.node_count(), 100_001);
        let error = deep.validate().unwrap_err();
        assert!(error.reason.contains("at most 64 nodes"), "{error}");
        let copy = deep.clone();
        assert!(copy == deep);
        let mut other = deep.clone();
        other.node_mut(99_999).unwrap().enabled = false;
        assert!(other != deep);
        drop((deep, copy, other));
    }

    #[test]
    fn bounds_follow_the_graph() {
        let c = DensityNode::constant;
        let bound = |node: DensityNode| node.validate().unwrap();
        assert_eq!(bound(c(2.0)), Bounds::point(2.0));
        let product = DensityNode::new(Multiply {}, [c(-3.0), c(2.0)]);
        assert_eq!(bound(product), Bounds::point(-6.0));
        let abs = DensityNode::new(Abs {}, [DensityNode::fbm(0, 0.1, 4, Shape::Normal)]);
        assert_eq!(bound(abs).low, 0.0);
        let mut off = DensityNode::new(Add {}, [c(1.0), c(5.0)]);
        off.enabled = false;
        assert_eq!(bound(off), Bounds::point(1.0));
        // Each constant is in range, their product is not.
        let mut big = c(100.0);
        for _ in 0..3 {
            big = DensityNode::new(Multiply {}, [big, c(100.0)]);
        }
        let error = big.validate().unwrap_err();
        assert_eq!(error.field, "", "{error}");
        assert!(error.reason.contains("1e8"), "{error}");
    }

    #[test]
    fn wrong_input_counts_are_refused_by_path() {
        let mut stack = DensityNode::tutorial_example();
        stack.node_mut(1).unwrap().inputs.clear();
        let error = stack.validate().unwrap_err();
        assert_eq!(error.field, "a");
        assert!(error.reason.contains("takes 1 inputs"), "{error}");
    }
}
