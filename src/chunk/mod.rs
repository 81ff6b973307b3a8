//! Chunk rendering: `biome_core` chunk data turned into a Bevy mesh (positions, normals, vertex
//! colours), the shared terrain and water materials, and the water surface at sea level.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::{ChunkData, ChunkLayout, NodeCoord, Stitch};

/// A streamed terrain node: a chunk (level 0) or a coarser node covering 2^level × 2^level
/// chunks with the same tile count. Its entity carries the terrain mesh; trees and water are
/// children.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct BiomeChunk {
    /// Where the node sits in the quadtree of `layout`'s chunks.
    pub node: NodeCoord,
    /// The layout it was built with.
    pub layout: ChunkLayout,
    /// The sides and corners that follow a coarser neighbour's edge
    /// ([`biome_core::WorldGenerator::build_node`] builds the same mesh from these).
    pub stitch: Stitch,
    /// The settings generation it was built from (see [`crate::BiomeWorldState::generation`]).
    pub generation: u64,
}

/// Marks the water surface of a chunk that reaches below sea level.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWater;

/// Materials shared by every terrain node, and the water quads of the node widths in use.
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone)]
pub struct ChunkAssets {
    /// Terrain: white, so vertex colours show as they are.
    pub terrain: Handle<StandardMaterial>,
    /// Translucent water.
    pub water: Handle<StandardMaterial>,
    /// Water quads by width (one per level of detail in use).
    #[reflect(ignore, clone)]
    water_quads: HashMap<u64, Handle<Mesh>>,
}

impl ChunkAssets {
    pub(crate) fn new(materials: &mut Assets<StandardMaterial>) -> Self {
        Self {
            terrain: materials.add(StandardMaterial {
                perceptual_roughness: 0.92,
                reflectance: 0.25,
                ..default()
            }),
            water: materials.add(StandardMaterial {
                base_color: Color::srgba(0.16, 0.38, 0.56, 0.72),
                alpha_mode: AlphaMode::Blend,
                perceptual_roughness: 0.08,
                reflectance: 0.6,
                ..default()
            }),
            water_quads: HashMap::default(),
        }
    }

    /// The water quad `size` wide at sea level, shared by every node of that width.
    pub(crate) fn water_quad(&mut self, size: f32, meshes: &mut Assets<Mesh>) -> Handle<Mesh> {
        let key = u64::from(size.to_bits());
        if let Some(handle) = self.water_quads.get(&key) {
            return handle.clone();
        }
        let mesh = Mesh::new(
            PrimitiveTopology::TriangleList,
            RenderAssetUsages::RENDER_WORLD,
        )
        .with_inserted_attribute(
            Mesh::ATTRIBUTE_POSITION,
            vec![
                [0.0, 0.0, 0.0],
                [size, 0.0, 0.0],
                [0.0, 0.0, size],
                [size, 0.0, size],
            ],
        )
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, vec![[0.0, 1.0, 0.0]; 4])
        .with_inserted_attribute(
            Mesh::ATTRIBUTE_UV_0,
            vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        )
        .with_inserted_indices(Indices::U16(vec![0, 2, 1, 1, 2, 3]));
        let handle = meshes.add(mesh);
        self.water_quads.insert(key, handle.clone());
        handle
    }
}

/// The terrain mesh of a chunk: positions relative to the chunk origin, normals, linear vertex
/// colours, and 16-bit indices when they fit.
#[must_use]
pub fn chunk_mesh(data: &ChunkData, usage: RenderAssetUsages) -> Mesh {
    let indices = if data.positions.len() <= usize::from(u16::MAX) + 1 {
        Indices::U16(data.indices.iter().map(|&i| i as u16).collect())
    } else {
        Indices::U32(data.indices.clone())
    };
    Mesh::new(PrimitiveTopology::TriangleList, usage)
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, data.positions.clone())
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, data.normals.clone())
        .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, data.colors.clone())
        .with_inserted_indices(indices)
}

/// Bytes a mesh holds in vertex attributes and indices: what a loaded chunk costs on the GPU.
#[must_use]
pub fn mesh_bytes(mesh: &Mesh) -> usize {
    let attributes: usize = mesh
        .attributes()
        .map(|(_, values)| values.get_bytes().len())
        .sum();
    let indices = match mesh.indices() {
        Some(Indices::U16(i)) => i.len() * 2,
        Some(Indices::U32(i)) => i.len() * 4,
        None => 0,
    };
    attributes + indices
}
