//! Seeded, infinite, bit-exact procedural biome worlds, without an engine.
//!
//! `biome_core` implements the recipe of the tutorial "Procedural Biome Generation: Simplex Noise &
//! Domain Warping": Simplex noise → fBm → domain warp → ridged/billow → climate → Whittaker-style
//! biome table → Voronoi regions with wobbled, blended borders → a density stack → trees.
//!
//! - [`tutorial`]: the tutorial's functions one to one, giving the same bits as its JavaScript.
//! - [`batch`]: the same functions over many points at once, SIMD where the CPU has it, same bits.
//! - [`density`]: the density stack as a serializable node graph.
//! - [`world`]: [`WorldSettings`] (with RON presets) and the infinite [`WorldGenerator`],
//!   sampled anywhere.
//! - [`chunk`] and [`trees`]: chunks as mesh data with trees, seamless and deterministic.
//! - [`multi_noise`]: a multi-noise biome source (biomes as boxes in a climate space of five
//!   axes, in the style of Minecraft 1.18+) and its exact nearest-box lookup.
//! - [`rivers`]: rivers and lakes carved into the terrain, their beds never rising downstream.
//! - [`scatter`]: rocks, bushes and grass by Poisson-disk sampling at each biome's spacing.
//!
//! ```
//! use biome_core::chunk::{ChunkCoord, ChunkLayout};
//! use biome_core::world::{WorldGenerator, WorldSettings};
//!
//! let world = WorldGenerator::new(WorldSettings { seed: 7, ..Default::default() }).unwrap();
//! let here = world.sample(120.0, -40.0);
//! println!("{} at {:.1} m", world.settings().biome_table.biomes[here.biome].name, here.height);
//! let chunk = world.build_chunk(ChunkCoord::new(0, 0), &ChunkLayout::default()).unwrap();
//! assert_eq!(chunk.positions.len(), 65 * 65);
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod batch;
pub mod chunk;
pub mod density;
mod hash;
mod math;
pub mod multi_noise;
pub mod rivers;
pub mod scatter;
mod scratch;
pub mod trees;
pub mod tutorial;
pub mod world;

pub use chunk::{
    ChunkCoord, ChunkData, ChunkError, ChunkLayout, HeightGrid, MeshStyle, NodeCoord, NodeDensity,
    Stitch, tile_height,
};
pub use density::{DensityField, DensityNode, DensityOp, Shape};
pub use trees::{Tree, TreeInstance};
pub use world::{Sample, Surface, WorldGenerator, WorldSettings};
