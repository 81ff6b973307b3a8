//! Seeded, infinite, bit-exact procedural biome worlds, without an engine.
//!
//! `biome_core` implements the recipe of the tutorial "Procedural Biome Generation: Simplex Noise &
//! Domain Warping": Simplex noise → fBm → domain warp → ridged/billow → climate → Whittaker-style
//! biome table → Voronoi regions with wobbled, blended borders → a density stack → trees.
//!
//! The modules stack in floors, each built only on the floors before it:
//!
//! 1. **Base**: [`limits`] (the ranges settings accept), [`check`] (the field-path checks every
//!    setting goes through, the plugin's included), [`name`] (the short names presets look
//!    density functions and scatter layers up by), [`coords`] (chunks, level-of-detail nodes,
//!    stitches, layouts), and private hashing, scratch buffers and deterministic math.
//! 2. **Noise**: [`tutorial`], the tutorial's functions one to one, giving the same bits as its
//!    JavaScript; [`batch`], the same over many points at once, SIMD where the CPU has it;
//!    [`noise3`], 3D Simplex noise and fBm on the tutorial's permutation, for 3D density.
//! 3. **Fields**: [`density`] (the density stack as a serializable node graph), [`regions`]
//!    (Voronoi regions), [`climate`], [`cover`] (what grows: tree species, scatter layers),
//!    [`biomes`] (the biome table), [`multi_noise`] (a multi-noise biome source in the style
//!    of Minecraft 1.18+, and its exact nearest-box lookup) and [`edits`] (terrain edits over
//!    the procedural height: brushes, pads, roads with their own colour, clearings).
//! 4. **Terrain**: [`terrain`], the height field with the climate over it.
//! 5. **Rivers**: [`rivers`], carved into the terrain, their beds never rising downstream.
//! 6. **Generator**: [`generator`], [`WorldSettings`] (with RON presets) compiled into the
//!    infinite [`WorldGenerator`], sampled anywhere.
//! 7. **Consumers**: [`chunk`] (chunks and coarser nodes as mesh data, seamless and
//!    deterministic), [`trees`] and [`scatter`] (layers of objects, rocks, bushes, grass and a
//!    game's own, by Poisson-disk sampling at each biome's spacing), [`rays`] (where a ray meets
//!    the drawn ground, loaded or not), and [`surface_nets`]
//!    (meshes of volumes, 3D density, that join exactly across grids).
//!
//! ```
//! use biome_core::{ChunkCoord, ChunkLayout, WorldGenerator, WorldSettings};
//!
//! let generator = WorldGenerator::new(WorldSettings { seed: 7, ..Default::default() }).unwrap();
//! let here = generator.sample(120.0, -40.0);
//! let name = &generator.settings().biome_table.biomes[here.biome].name;
//! println!("{name} at {:.1} m", here.height);
//! let chunk = generator.build_chunk(ChunkCoord::new(0, 0), &ChunkLayout::default()).unwrap();
//! assert_eq!(chunk.positions.len(), 65 * 65);
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]

// The floors, each importing only the ones above it here (`tests/floors.rs` holds them to it).
// Base: limits, the check vocabulary, hashing, scratch buffers, deterministic math, coordinates.
pub mod check;
pub mod coords;
mod hash;
pub mod limits;
mod math;
pub mod name;
mod scratch;
pub mod seed_offsets;
// Noise: the tutorial's functions, and the same over many points at once.
pub mod batch;
pub mod noise3;
pub mod tutorial;
// Fields: the density stack, regions, climate, what grows, biomes, the multi-noise source, edits.
pub mod biomes;
pub mod climate;
pub mod cover;
pub mod density;
pub mod edits;
pub mod multi_noise;
pub mod regions;
// Terrain: heights and the climate over them, before rivers.
pub mod terrain;
// Rivers and lakes, carved into the terrain.
pub mod rivers;
// The generator: settings gathered, compiled, sampled anywhere.
pub mod generator;
// Consumers: chunks, trees and scattered objects built from the generator.
pub mod chunk;
pub mod rays;
pub mod scatter;
pub mod surface_nets;
pub mod trees;

pub use biomes::{Biome, BiomeTable, Rgb};
pub use check::SettingsError;
pub use chunk::{BiomeBlend, ChunkData, ChunkError, HeightGrid, NodeDensity, tile_height};
pub use coords::{ChunkCoord, ChunkLayout, MeshStyle, NodeCoord, Stitch};
pub use cover::{ScatterLayer, TreeSpecies};
pub use density::{DensityField, DensityNode, DensityOp, Shape};
pub use generator::{PresetError, Sample, Surface, WorldGenerator, WorldSettings};
pub use regions::RegionId;
pub use trees::{Tree, TreeInstance};
