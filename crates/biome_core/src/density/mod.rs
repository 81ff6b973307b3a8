//! The density stack: a serializable graph of field nodes in the spirit of the tutorial's Lab #5
//! and Hytale's density nodes.
//!
//! [`DensityNode`] is the graph as data (serde, RON presets, the panel edits it); every node can
//! be switched off like the lab's checkboxes. [`DensityField`] is the graph compiled for one world
//! seed: its noise tables built once, evaluated one point at a time ([`DensityField::value`]) or
//! over many points with the SIMD batch paths ([`DensityField::values`]), with identical bits.
//! The tutorial's example stack, [`DensityNode::tutorial_example`], reproduces the tutorial's
//! numbers exactly.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::batch::FbmParams;
use crate::tutorial::{Simplex, billow, fbm, js_max, js_min, nearest_two, ridged};

/// How an fBm node shapes its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

fn enabled_default() -> bool {
    true
}
fn is_true(value: &bool) -> bool {
    *value
}
fn octaves_default() -> u32 {
    4
}
fn warp_octaves_default() -> u32 {
    3
}
fn persistence_default() -> f64 {
    0.5
}
fn lacunarity_default() -> f64 {
    2.0
}
fn levels_default() -> u32 {
    1
}

/// One node of the density stack. Every node is a field `(x, z) -> value`; sources make values,
/// the others reshape or combine their inputs. A node with `enabled: false` passes its first
/// input through unchanged, and a switched-off source gives 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum DensityNode {
    /// Source: one value everywhere.
    Constant {
        /// The value.
        value: f64,
        /// Whether the node takes part; a switched-off source gives 0.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// Source: Simplex fBm at `(x * scale, z * scale)`, shaped. The tutorial's `simplexNode`.
    Fbm {
        /// Added to the world seed for this node's noise.
        #[serde(default)]
        seed_offset: i64,
        /// Frequency in 1 / world units: the feature size is about `1 / scale`.
        scale: f64,
        /// Layers of noise (1 to 16).
        #[serde(default = "octaves_default")]
        octaves: u32,
        /// Amplitude factor per octave.
        #[serde(default = "persistence_default")]
        persistence: f64,
        /// Frequency factor per octave.
        #[serde(default = "lacunarity_default")]
        lacunarity: f64,
        /// Normal, ridged or billow.
        #[serde(default)]
        shape: Shape,
        /// Whether the node takes part; a switched-off source gives 0.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// Source: 1 at a region site, falling to -1 at `radius` from the nearest site. The tutorial's
    /// `cellNode`.
    Cell {
        /// Distance (world units) at which the value reaches -1.
        radius: f64,
        /// Whether the node takes part; a switched-off source gives 0.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// Reads `input` at a point pushed by `strength` world units along fBm fields. Level 1 is the
    /// tutorial's `warpNode`; level 2 warps the warp like `domainWarp`; level 0 passes through.
    Warp {
        /// The field that is read at the pushed point.
        input: Box<DensityNode>,
        /// Added to the world seed for the warp's noise.
        #[serde(default)]
        seed_offset: i64,
        /// 0, 1 or 2 warps.
        #[serde(default = "levels_default")]
        levels: u32,
        /// How far points get pushed, in world units.
        strength: f64,
        /// Frequency of the warp field in 1 / world units.
        scale: f64,
        /// Octaves of the warp field (the tutorial uses 3).
        #[serde(default = "warp_octaves_default")]
        octaves: u32,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// Clamps `input` to `low..=high`. The tutorial's `clampNode`.
    Clamp {
        /// The field to clamp.
        input: Box<DensityNode>,
        /// The floor.
        low: f64,
        /// The ceiling.
        high: f64,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// Clamps `input` to `low..=high` with rounded corners `smoothness` wide.
    SmoothClamp {
        /// The field to clamp.
        input: Box<DensityNode>,
        /// The floor.
        low: f64,
        /// The ceiling.
        high: f64,
        /// Width of the rounding (0 is a hard clamp).
        smoothness: f64,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// The absolute value of `input`.
    Abs {
        /// The field to fold.
        input: Box<DensityNode>,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// `a + b`.
    Add {
        /// First field (passed through when the node is off).
        a: Box<DensityNode>,
        /// Second field.
        b: Box<DensityNode>,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// `a * b`.
    Multiply {
        /// First field (passed through when the node is off).
        a: Box<DensityNode>,
        /// Second field.
        b: Box<DensityNode>,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
    /// `a + (b - a) * amount`. The tutorial's `mixNode`.
    Mix {
        /// First field (passed through when the node is off).
        a: Box<DensityNode>,
        /// Second field.
        b: Box<DensityNode>,
        /// 0 is all `a`, 1 is all `b`.
        amount: f64,
        /// Whether the node takes part.
        #[serde(default = "enabled_default", skip_serializing_if = "is_true")]
        enabled: bool,
    },
}

impl DensityNode {
    /// A plain fBm source with the tutorial's octave defaults.
    #[must_use]
    pub fn fbm(seed_offset: i64, scale: f64, octaves: u32, shape: Shape) -> Self {
        DensityNode::Fbm {
            seed_offset,
            scale,
            octaves,
            persistence: 0.5,
            lacunarity: 2.0,
            shape,
            enabled: true,
        }
    }

    /// The tutorial's example stack, for a world seed `seed`:
    /// `mixNode(clampNode(warpNode(simplexNode(new Simplex(seed), 0.012), new Simplex(seed + 4),
    /// 25, 0.006), -0.3, 0.55), cellNode(sites, 90), 0.35)`.
    #[must_use]
    pub fn tutorial_example() -> Self {
        DensityNode::Mix {
            a: Box::new(DensityNode::Clamp {
                input: Box::new(DensityNode::Warp {
                    input: Box::new(DensityNode::fbm(0, 0.012, 4, Shape::Normal)),
                    seed_offset: 4,
                    levels: 1,
                    strength: 25.0,
                    scale: 0.006,
                    octaves: 3,
                    enabled: true,
                }),
                low: -0.3,
                high: 0.55,
                enabled: true,
            }),
            b: Box::new(DensityNode::Cell {
                radius: 90.0,
                enabled: true,
            }),
            amount: 0.35,
            enabled: true,
        }
    }

    /// The node's name as the panel shows it.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            DensityNode::Constant { .. } => "Constant",
            DensityNode::Fbm { .. } => "Simplex fBm",
            DensityNode::Cell { .. } => "Cell",
            DensityNode::Warp { .. } => "Warp",
            DensityNode::Clamp { .. } => "Clamp",
            DensityNode::SmoothClamp { .. } => "Smooth clamp",
            DensityNode::Abs { .. } => "Abs",
            DensityNode::Add { .. } => "Add",
            DensityNode::Multiply { .. } => "Multiply",
            DensityNode::Mix { .. } => "Mix",
        }
    }

    /// Whether the node takes part in the stack.
    #[must_use]
    pub fn enabled(&self) -> bool {
        *self.enabled_flag()
    }

    /// Switches the node on or off.
    pub fn set_enabled(&mut self, enabled: bool) {
        *self.enabled_flag_mut() = enabled;
    }

    fn enabled_flag(&self) -> &bool {
        match self {
            DensityNode::Constant { enabled, .. }
            | DensityNode::Fbm { enabled, .. }
            | DensityNode::Cell { enabled, .. }
            | DensityNode::Warp { enabled, .. }
            | DensityNode::Clamp { enabled, .. }
            | DensityNode::SmoothClamp { enabled, .. }
            | DensityNode::Abs { enabled, .. }
            | DensityNode::Add { enabled, .. }
            | DensityNode::Multiply { enabled, .. }
            | DensityNode::Mix { enabled, .. } => enabled,
        }
    }

    fn enabled_flag_mut(&mut self) -> &mut bool {
        match self {
            DensityNode::Constant { enabled, .. }
            | DensityNode::Fbm { enabled, .. }
            | DensityNode::Cell { enabled, .. }
            | DensityNode::Warp { enabled, .. }
            | DensityNode::Clamp { enabled, .. }
            | DensityNode::SmoothClamp { enabled, .. }
            | DensityNode::Abs { enabled, .. }
            | DensityNode::Add { enabled, .. }
            | DensityNode::Multiply { enabled, .. }
            | DensityNode::Mix { enabled, .. } => enabled,
        }
    }

    /// The node's inputs with the names they have in presets, first input first.
    #[must_use]
    pub fn inputs(&self) -> Vec<(&'static str, &DensityNode)> {
        match self {
            DensityNode::Constant { .. } | DensityNode::Fbm { .. } | DensityNode::Cell { .. } => {
                Vec::new()
            }
            DensityNode::Warp { input, .. }
            | DensityNode::Clamp { input, .. }
            | DensityNode::SmoothClamp { input, .. }
            | DensityNode::Abs { input, .. } => vec![("input", input)],
            DensityNode::Add { a, b, .. }
            | DensityNode::Multiply { a, b, .. }
            | DensityNode::Mix { a, b, .. } => vec![("a", a), ("b", b)],
        }
    }

    /// The node's inputs, mutably, first input first.
    pub fn inputs_mut(&mut self) -> Vec<&mut DensityNode> {
        match self {
            DensityNode::Constant { .. } | DensityNode::Fbm { .. } | DensityNode::Cell { .. } => {
                Vec::new()
            }
            DensityNode::Warp { input, .. }
            | DensityNode::Clamp { input, .. }
            | DensityNode::SmoothClamp { input, .. }
            | DensityNode::Abs { input, .. } => vec![input],
            DensityNode::Add { a, b, .. }
            | DensityNode::Multiply { a, b, .. }
            | DensityNode::Mix { a, b, .. } => vec![a, b],
        }
    }

    /// Every node of the graph in pre-order (a node before its inputs), with its depth and its
    /// path from the root (like `a.input`). A node's position here is its id in
    /// [`DensityField::values_of`].
    #[must_use]
    pub fn walk(&self) -> Vec<NodeEntry<'_>> {
        fn visit<'a>(
            node: &'a DensityNode,
            depth: usize,
            path: String,
            out: &mut Vec<NodeEntry<'a>>,
        ) {
            let inputs = node.inputs();
            out.push(NodeEntry {
                node,
                depth,
                path: path.clone(),
            });
            for (name, input) in inputs {
                let child = if path.is_empty() {
                    name.to_owned()
                } else {
                    format!("{path}.{name}")
                };
                visit(input, depth + 1, child, out);
            }
        }
        let mut out = Vec::new();
        visit(self, 0, String::new(), &mut out);
        out
    }

    /// The node with pre-order id `id` (see [`DensityNode::walk`]), mutably.
    pub fn node_mut(&mut self, id: usize) -> Option<&mut DensityNode> {
        fn find<'a>(
            node: &'a mut DensityNode,
            id: usize,
            next: &mut usize,
        ) -> Option<&'a mut DensityNode> {
            if *next == id {
                return Some(node);
            }
            *next += 1;
            node.inputs_mut()
                .into_iter()
                .find_map(|input| find(input, id, next))
        }
        find(self, id, &mut 0)
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

/// Where the [`DensityNode::Cell`] node finds its sites.
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

/// A compiled node.
#[derive(Clone, Debug)]
enum Op {
    Constant(f64),
    Fbm {
        noise: Arc<Simplex>,
        scale: f64,
        params: FbmParams,
        shape: Shape,
    },
    Cell {
        radius: f64,
    },
    Warp {
        input: usize,
        noise: Arc<Simplex>,
        levels: u32,
        strength: f64,
        scale: f64,
        params: FbmParams,
    },
    Clamp {
        input: usize,
        low: f64,
        high: f64,
    },
    SmoothClamp {
        input: usize,
        low: f64,
        high: f64,
        smoothness: f64,
    },
    Abs {
        input: usize,
    },
    Add {
        a: usize,
        b: usize,
    },
    Multiply {
        a: usize,
        b: usize,
    },
    Mix {
        a: usize,
        b: usize,
        amount: f64,
    },
    /// A switched-off node that passes its first input through.
    Pass {
        input: usize,
    },
}

/// A [`DensityNode`] graph compiled for one world seed, ready to evaluate.
#[derive(Clone, Debug)]
pub struct DensityField {
    /// Nodes in pre-order: the root is 0.
    ops: Vec<Op>,
}

impl DensityField {
    /// Compiles `root` for world seed `seed`, building each distinct noise table once.
    #[must_use]
    pub fn new(root: &DensityNode, seed: i64) -> Self {
        let mut field = Self { ops: Vec::new() };
        let mut tables = HashMap::new();
        field.compile(root, seed, &mut tables);
        field
    }

    fn compile(
        &mut self,
        node: &DensityNode,
        seed: i64,
        tables: &mut HashMap<i64, Arc<Simplex>>,
    ) -> usize {
        let id = self.ops.len();
        self.ops.push(Op::Constant(0.0));
        let inputs: Vec<usize> = node
            .inputs()
            .into_iter()
            .map(|(_, input)| self.compile(input, seed, tables))
            .collect();
        let mut noise = |offset: i64| {
            tables
                .entry(seed + offset)
                .or_insert_with(|| Arc::new(Simplex::new(seed + offset)))
                .clone()
        };
        self.ops[id] = if !node.enabled() {
            match inputs.first() {
                Some(&input) => Op::Pass { input },
                None => Op::Constant(0.0),
            }
        } else {
            match *node {
                DensityNode::Constant { value, .. } => Op::Constant(value),
                DensityNode::Fbm {
                    seed_offset,
                    scale,
                    octaves,
                    persistence,
                    lacunarity,
                    shape,
                    ..
                } => Op::Fbm {
                    noise: noise(seed_offset),
                    scale,
                    params: FbmParams {
                        octaves,
                        persistence,
                        lacunarity,
                    },
                    shape,
                },
                DensityNode::Cell { radius, .. } => Op::Cell { radius },
                DensityNode::Warp {
                    seed_offset,
                    levels,
                    strength,
                    scale,
                    octaves,
                    ..
                } => Op::Warp {
                    input: inputs[0],
                    noise: noise(seed_offset),
                    levels,
                    strength,
                    scale,
                    params: FbmParams::octaves(octaves),
                },
                DensityNode::Clamp { low, high, .. } => Op::Clamp {
                    input: inputs[0],
                    low,
                    high,
                },
                DensityNode::SmoothClamp {
                    low,
                    high,
                    smoothness,
                    ..
                } => Op::SmoothClamp {
                    input: inputs[0],
                    low,
                    high,
                    smoothness,
                },
                DensityNode::Abs { .. } => Op::Abs { input: inputs[0] },
                DensityNode::Add { .. } => Op::Add {
                    a: inputs[0],
                    b: inputs[1],
                },
                DensityNode::Multiply { .. } => Op::Multiply {
                    a: inputs[0],
                    b: inputs[1],
                },
                DensityNode::Mix { amount, .. } => Op::Mix {
                    a: inputs[0],
                    b: inputs[1],
                    amount,
                },
            }
        };
        id
    }

    /// The number of nodes (the ids of [`DensityField::values_of`] run below it).
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.ops.len()
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
        match self.ops[id] {
            Op::Constant(value) => value,
            Op::Fbm {
                ref noise,
                scale,
                params,
                shape,
            } => shape.apply(fbm(
                noise,
                x * scale,
                z * scale,
                params.octaves,
                params.persistence,
                params.lacunarity,
            )),
            Op::Cell { radius } => cell_value(sites.nearest_distance(x, z), radius),
            Op::Warp {
                input,
                ref noise,
                levels,
                strength,
                scale,
                params,
            } => {
                let field = |x: f64, z: f64| {
                    fbm(
                        noise,
                        x,
                        z,
                        params.octaves,
                        params.persistence,
                        params.lacunarity,
                    )
                };
                if levels == 0 {
                    return self.value_of(input, x, z, sites);
                }
                let mut qx = field(x * scale, z * scale);
                let mut qz = field(x * scale + 5.2, z * scale + 1.3);
                if levels >= 2 {
                    let px = (x + strength * qx) * scale;
                    let pz = (z + strength * qz) * scale;
                    qx = field(px + 1.7, pz + 9.2);
                    qz = field(px + 8.3, pz + 2.8);
                }
                self.value_of(input, x + strength * qx, z + strength * qz, sites)
            }
            Op::Clamp { input, low, high } => {
                js_min(high, js_max(low, self.value_of(input, x, z, sites)))
            }
            Op::SmoothClamp {
                input,
                low,
                high,
                smoothness,
            } => smooth_clamp(self.value_of(input, x, z, sites), low, high, smoothness),
            Op::Abs { input } => self.value_of(input, x, z, sites).abs(),
            Op::Add { a, b } => self.value_of(a, x, z, sites) + self.value_of(b, x, z, sites),
            Op::Multiply { a, b } => self.value_of(a, x, z, sites) * self.value_of(b, x, z, sites),
            Op::Mix { a, b, amount } => {
                let va = self.value_of(a, x, z, sites);
                va + (self.value_of(b, x, z, sites) - va) * amount
            }
            Op::Pass { input } => self.value_of(input, x, z, sites),
        }
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
        match self.ops[id] {
            Op::Constant(value) => out.fill(value),
            Op::Fbm {
                ref noise,
                scale,
                params,
                shape,
            } => {
                let sx: Vec<f64> = xs.iter().map(|x| x * scale).collect();
                let sz: Vec<f64> = zs.iter().map(|z| z * scale).collect();
                noise.fbm_points(&sx, &sz, params, out);
                if shape != Shape::Normal {
                    out.iter_mut().for_each(|v| *v = shape.apply(*v));
                }
            }
            Op::Cell { radius } => {
                for ((v, &x), &z) in out.iter_mut().zip(xs).zip(zs) {
                    *v = cell_value(sites.nearest_distance(x, z), radius);
                }
            }
            Op::Warp {
                input,
                ref noise,
                levels,
                strength,
                scale,
                params,
            } => {
                if levels == 0 {
                    return self.values_of(input, xs, zs, sites, out);
                }
                let n = xs.len();
                let mut ax: Vec<f64> = xs.iter().map(|x| x * scale).collect();
                let mut az: Vec<f64> = zs.iter().map(|z| z * scale).collect();
                let mut qx = vec![0.0; n];
                let mut qz = vec![0.0; n];
                noise.fbm_points(&ax, &az, params, &mut qx);
                for k in 0..n {
                    ax[k] = xs[k] * scale + 5.2;
                    az[k] = zs[k] * scale + 1.3;
                }
                noise.fbm_points(&ax, &az, params, &mut qz);
                if levels >= 2 {
                    let mut bx = vec![0.0; n];
                    let mut bz = vec![0.0; n];
                    for k in 0..n {
                        let px = (xs[k] + strength * qx[k]) * scale;
                        let pz = (zs[k] + strength * qz[k]) * scale;
                        ax[k] = px + 1.7;
                        az[k] = pz + 9.2;
                        bx[k] = px + 8.3;
                        bz[k] = pz + 2.8;
                    }
                    noise.fbm_points(&ax, &az, params, &mut qx);
                    noise.fbm_points(&bx, &bz, params, &mut qz);
                }
                for k in 0..n {
                    ax[k] = xs[k] + strength * qx[k];
                    az[k] = zs[k] + strength * qz[k];
                }
                self.values_of(input, &ax, &az, sites, out);
            }
            Op::Clamp { input, low, high } => {
                self.values_of(input, xs, zs, sites, out);
                out.iter_mut()
                    .for_each(|v| *v = js_min(high, js_max(low, *v)));
            }
            Op::SmoothClamp {
                input,
                low,
                high,
                smoothness,
            } => {
                self.values_of(input, xs, zs, sites, out);
                out.iter_mut()
                    .for_each(|v| *v = smooth_clamp(*v, low, high, smoothness));
            }
            Op::Abs { input } => {
                self.values_of(input, xs, zs, sites, out);
                out.iter_mut().for_each(|v| *v = v.abs());
            }
            Op::Add { a, b } => self.combine(a, b, xs, zs, sites, out, |va, vb| va + vb),
            Op::Multiply { a, b } => self.combine(a, b, xs, zs, sites, out, |va, vb| va * vb),
            Op::Mix { a, b, amount } => {
                self.combine(a, b, xs, zs, sites, out, |va, vb| va + (vb - va) * amount);
            }
            Op::Pass { input } => self.values_of(input, xs, zs, sites, out),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn combine(
        &self,
        a: usize,
        b: usize,
        xs: &[f64],
        zs: &[f64],
        sites: &dyn Sites,
        out: &mut [f64],
        op: impl Fn(f64, f64) -> f64,
    ) {
        self.values_of(a, xs, zs, sites, out);
        let mut other = vec![0.0; xs.len()];
        self.values_of(b, xs, zs, sites, &mut other);
        for (v, w) in out.iter_mut().zip(other) {
            *v = op(*v, w);
        }
    }
}

/// The tutorial's cell value: 1 at a site, -1 at `radius` and beyond.
fn cell_value(distance: f64, radius: f64) -> f64 {
    1.0 - 2.0 * js_min(1.0, distance / radius)
}

/// Polynomial smooth minimum (Inigo Quilez): `min(a, b)` with the corner rounded over `k`.
fn smooth_min(a: f64, b: f64, k: f64) -> f64 {
    if k <= 0.0 {
        return a.min(b);
    }
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

/// `value` clamped to `low..=high` with both corners rounded over `smoothness`.
fn smooth_clamp(value: f64, low: f64, high: f64, smoothness: f64) -> f64 {
    -smooth_min(-smooth_min(value, high, smoothness), -low, smoothness)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smooth_clamp_meets_hard_clamp_away_from_corners() {
        assert_eq!(smooth_clamp(0.0, -1.0, 1.0, 0.2), 0.0);
        assert_eq!(smooth_clamp(5.0, -1.0, 1.0, 0.2), 1.0);
        assert_eq!(smooth_clamp(-5.0, -1.0, 1.0, 0.2), -1.0);
        assert!(smooth_clamp(1.0, -1.0, 1.0, 0.2) < 1.0);
        assert_eq!(smooth_clamp(1.5, -1.0, 1.0, 0.0), 1.0);
    }

    #[test]
    fn walk_lists_nodes_in_pre_order_with_paths() {
        let stack = DensityNode::tutorial_example();
        let entries = stack.walk();
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["", "a", "a.input", "a.input.input", "b"]);
        assert_eq!(entries[3].node.kind(), "Simplex fBm");
        assert_eq!(entries[3].depth, 3);
    }

    #[test]
    fn node_mut_finds_every_node_by_pre_order_id() {
        let mut stack = DensityNode::tutorial_example();
        for id in 0..5 {
            let kind = stack.walk()[id].node.kind();
            assert_eq!(stack.node_mut(id).map(|n| n.kind()), Some(kind));
        }
        assert!(stack.node_mut(5).is_none());
    }

    #[test]
    fn switched_off_nodes_pass_through_and_sources_give_zero() {
        let sites = vec![[0.0, 0.0]];
        let mut stack = DensityNode::tutorial_example();
        stack.node_mut(0).unwrap().set_enabled(false);
        let whole = DensityField::new(&stack, 7);
        let first = DensityField::new(&DensityNode::tutorial_example(), 7);
        // Mix off: the clamp (node 1) alone.
        assert_eq!(
            whole.value(3.0, 4.0, &sites),
            first.value_of(1, 3.0, 4.0, &sites)
        );
        stack.node_mut(3).unwrap().set_enabled(false);
        let flat = DensityField::new(&stack, 7);
        assert_eq!(flat.value(3.0, 4.0, &sites), 0.0);
    }
}
