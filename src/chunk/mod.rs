//! Terrain rendering: `biome_core` node data turned into a Bevy mesh (positions, normals, vertex
//! colours, temperatures), the terrain material that lays water floor, sand and snow over the
//! land per pixel ([`TerrainMaterial`]), the water material, and the water quads at sea level.

mod material;

pub(crate) use material::add_terrain_material;
pub use material::{TerrainMaterial, TerrainSurface, TerrainSurfaceUniform};

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::chunk::WaterMesh;
use biome_core::{
    ChunkData, ChunkLayout, HeightGrid, MeshStyle, NodeCoord, Stitch, TreeInstance, WorldSettings,
};

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

/// The ground of a full-detail terrain entity (level 0), as its build sampled it: the height
/// grid its mesh is made of (before edges follow a coarser neighbour) and its trees. Physics
/// engines build their shapes from it. With parry, the shapes of rapier (and of avian, which
/// feature `avian` re-exports), a heightfield per new chunk is:
///
/// ```
/// # #[cfg(feature = "avian")]
/// # mod with_parry {
/// use bevy::prelude::*;
/// use bevy_biome_world::ChunkGround;
/// use bevy_biome_world::avian3d::parry::{shape::HeightField, utils::Array2};
///
/// fn heightfields(grounds: Query<&ChunkGround, Added<ChunkGround>>) {
///     for ground in &grounds {
///         let grid = &ground.heights;
///         let n = grid.side;
///         // Rows along z, columns along x, centred on the shape's position.
///         let heights = Array2::from_fn(n, n, |row, column| grid.get(column, row));
///         let size = (n - 1) as f32 * grid.spacing as f32;
///         let shape = HeightField::new(heights, Vec3::new(size, 1.0, size));
///         let position = Vec3::new(
///             grid.origin[0] as f32 + size / 2.0,
///             0.0,
///             grid.origin[1] as f32 + size / 2.0,
///         );
///         // Hand `shape` at `position` to the physics world (rapier:
///         // `ColliderBuilder::new(SharedShape::new(shape)).translation(position)`).
///         # let _ = (shape, position);
///     }
/// }
/// # }
/// ```
///
/// Parry splits every tile along the same diagonal as the mesh, so the shape is the drawn
/// ground ([`crate::BiomeWorld::ground_height_at`] agrees with it too).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct ChunkGround {
    /// Heights on the chunk's vertex grid, world units.
    pub heights: HeightGrid,
    /// The trees standing on it, relative to the chunk's origin.
    pub trees: Vec<TreeInstance>,
}

/// Marks the water surface of a chunk that reaches below sea level.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWater;

/// Marks the water of the rivers and lakes on a terrain node (a child of its [`BiomeChunk`]).
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeRiverWater;

/// Materials shared by every terrain node, and the water quads of the node widths in use.
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone)]
pub struct ChunkAssets {
    /// Terrain without a renderer's [`TerrainMaterial`] (headless apps): white, so vertex
    /// colours show as they are.
    pub terrain: Handle<StandardMaterial>,
    /// Translucent water.
    pub water: Handle<StandardMaterial>,
    /// Water quads by width (one per level of detail in use).
    #[reflect(ignore, clone)]
    water_quads: HashMap<u64, Handle<Mesh>>,
    /// The terrain material of the latest surface settings, with them.
    #[reflect(ignore, clone)]
    surface: Option<(TerrainSurfaceUniform, Handle<TerrainMaterial>)>,
}

impl ChunkAssets {
    pub(crate) fn new(materials: &mut Assets<StandardMaterial>) -> Self {
        Self {
            terrain: materials.add(Self::terrain_base()),
            water: materials.add(StandardMaterial {
                base_color: Color::srgba(0.16, 0.38, 0.56, 0.72),
                alpha_mode: AlphaMode::Blend,
                perceptual_roughness: 0.08,
                reflectance: 0.6,
                ..default()
            }),
            water_quads: HashMap::default(),
            surface: None,
        }
    }

    /// The terrain's `StandardMaterial` base, shared by both terrain materials.
    fn terrain_base() -> StandardMaterial {
        StandardMaterial {
            perceptual_roughness: 0.92,
            reflectance: 0.25,
            ..default()
        }
    }

    /// The terrain material for `settings` and `style`, shared by every node built from them.
    pub(crate) fn terrain_material(
        &mut self,
        settings: &WorldSettings,
        style: MeshStyle,
        materials: &mut Assets<TerrainMaterial>,
    ) -> Handle<TerrainMaterial> {
        let uniform = TerrainSurfaceUniform::new(settings, style);
        if let Some((cached, handle)) = &self.surface
            && *cached == uniform
        {
            return handle.clone();
        }
        let handle = materials.add(TerrainMaterial {
            base: Self::terrain_base(),
            extension: TerrainSurface { surface: uniform },
        });
        self.surface = Some((uniform, handle.clone()));
        handle
    }

    /// A material of its own for a node fading in over what it replaces: like `shared`, not yet
    /// shown, drawn a little in front so it wins where both are.
    pub(crate) fn fading_material(
        shared: &Handle<TerrainMaterial>,
        materials: &mut Assets<TerrainMaterial>,
    ) -> Option<Handle<TerrainMaterial>> {
        let mut material = materials.get(shared)?.clone();
        material.extension.surface.fade = 0.0;
        material.base.depth_bias = FADING_DEPTH_BIAS;
        Some(materials.add(material))
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

/// Constant depth bias of a node fading in, so it wins over the node it replaces where the two
/// surfaces nearly meet.
const FADING_DEPTH_BIAS: f32 = 64.0;

/// What a terrain mesh carries for its material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TerrainColors {
    /// Final ground colours per vertex ([`ChunkData::colors`]), for `StandardMaterial`.
    Final,
    /// Land colours per vertex ([`ChunkData::land_colors`]) with temperatures in `uv.x`, for
    /// [`TerrainMaterial`] to lay water floor, sand and snow over per pixel. Flat tiles keep
    /// their final colours.
    PerPixel,
}

/// The terrain mesh of a node: positions relative to its origin, normals, linear vertex colours
/// as `colors` says, and 16-bit indices when they fit.
#[must_use]
pub fn chunk_mesh(data: &ChunkData, usage: RenderAssetUsages, colors: TerrainColors) -> Mesh {
    let indices = if data.positions.len() <= usize::from(u16::MAX) + 1 {
        Indices::U16(data.indices.iter().map(|&i| i as u16).collect())
    } else {
        Indices::U32(data.indices.clone())
    };
    let mesh = Mesh::new(PrimitiveTopology::TriangleList, usage)
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, data.positions.clone())
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, data.normals.clone())
        .with_inserted_indices(indices);
    if colors == TerrainColors::PerPixel && data.layout.style == MeshStyle::Smooth {
        let temperatures: Vec<[f32; 2]> = data.temperatures.iter().map(|&t| [t, 0.0]).collect();
        mesh.with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, data.land_colors.clone())
            .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, temperatures)
    } else {
        mesh.with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, data.colors.clone())
    }
}

/// The mesh of a node's river and lake water ([`ChunkData::river_water`]), with upward normals
/// (rivers fall gently); `None` where the node has none.
#[must_use]
pub fn river_water_mesh(water: WaterMesh, usage: RenderAssetUsages) -> Option<Mesh> {
    if water.is_empty() {
        return None;
    }
    let indices = if water.positions.len() <= usize::from(u16::MAX) + 1 {
        Indices::U16(water.indices.iter().map(|&i| i as u16).collect())
    } else {
        Indices::U32(water.indices)
    };
    let normals = vec![[0.0f32, 1.0, 0.0]; water.positions.len()];
    Some(
        Mesh::new(PrimitiveTopology::TriangleList, usage)
            .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, water.positions)
            .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
            .with_inserted_indices(indices),
    )
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
