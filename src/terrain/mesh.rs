//! Terrain meshes and materials: `biome_core` node data turned into a Bevy mesh (positions,
//! normals, vertex colours, temperatures), the materials every node shares, and the water quads
//! at sea level.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::chunk::WaterMesh;
use biome_core::{ChunkData, MeshStyle, WorldSettings};

use super::material::{SplatUniform, TerrainMaterial, TerrainSurface, TerrainSurfaceUniform};
use super::splat::SplatMap;

/// Materials shared by every terrain node, and the water quads of the node widths in use.
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone)]
pub struct TerrainMaterials {
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
    /// The splat layers the terrain material draws ([`crate::TerrainSplatting`]).
    #[reflect(ignore, clone)]
    splat: Option<SplatLook>,
}

/// The splat layers as the material draws them: their stacked texture, the images it was
/// stacked from, and their uniform.
#[derive(Clone, Debug)]
pub(crate) struct SplatLook {
    pub(crate) layers: Handle<Image>,
    pub(crate) sources: Vec<AssetId<Image>>,
    pub(crate) uniform: SplatUniform,
}

impl TerrainMaterials {
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
            splat: None,
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
        let mut extension = TerrainSurface {
            surface: uniform,
            splat_layers: None,
        };
        self.splat_onto(&mut extension);
        let handle = materials.add(TerrainMaterial {
            base: Self::terrain_base(),
            extension,
        });
        self.surface = Some((uniform, handle.clone()));
        handle
    }

    /// Draws the terrain with `look`'s splat layers (`None`: its flat colours): the shared
    /// material changes in place, so every node shows it in the next frame without a rebuild.
    pub(crate) fn set_splat(
        &mut self,
        look: Option<SplatLook>,
        materials: &mut Assets<TerrainMaterial>,
    ) {
        self.splat = look;
        if let Some((_, handle)) = &self.surface
            && let Some(mut material) = materials.get_mut(handle)
        {
            self.splat_onto(&mut material.extension);
        }
    }

    /// The splat layers the material draws, if any.
    pub(crate) fn splat(&self) -> Option<&SplatLook> {
        self.splat.as_ref()
    }

    fn splat_onto(&self, extension: &mut TerrainSurface) {
        extension.surface.splat = self
            .splat
            .as_ref()
            .map_or_else(SplatUniform::default, |look| look.uniform);
        extension.splat_layers = self.splat.as_ref().map(|look| look.layers.clone());
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
pub(crate) enum TerrainColors {
    /// Final ground colours per vertex ([`ChunkData::colors`]), for `StandardMaterial`.
    Final,
    /// Land colours per vertex ([`ChunkData::land_colors`]) with temperatures in `uv.x` and
    /// edits' surface covers in `uv.y`, for [`TerrainMaterial`] to lay water floor, sand and
    /// snow over per pixel, except where a cover lies. Flat tiles keep
    /// their final colours.
    PerPixel,
}

/// The terrain mesh of a node: positions relative to its origin, normals, linear vertex colours
/// as `colors` says, and 16-bit indices when they fit. With a splat map, a smooth mesh also
/// carries each vertex's layer weights: layers 0 to 3 in its tangents, 4 and 5 in its second
/// UVs, 6 in its colours' alpha (7 is what they leave), which `terrain.wgsl` reads back.
#[must_use]
pub(crate) fn chunk_mesh(
    data: &ChunkData,
    usage: RenderAssetUsages,
    colors: TerrainColors,
    splat: Option<&SplatMap>,
) -> Mesh {
    let indices = if data.positions.len() <= usize::from(u16::MAX) + 1 {
        Indices::U16(data.indices.iter().map(|&i| i as u16).collect())
    } else {
        Indices::U32(data.indices.clone())
    };
    let mesh = Mesh::new(PrimitiveTopology::TriangleList, usage)
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, data.positions.clone())
        .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, data.normals.clone())
        .with_inserted_indices(indices);
    let smooth = data.layout.style == MeshStyle::Smooth;
    let (mesh, mut vertex_colors) = if colors == TerrainColors::PerPixel && smooth {
        let climate: Vec<[f32; 2]> = data
            .temperatures
            .iter()
            .zip(&data.covers)
            .map(|(&temperature, &cover)| [temperature, cover])
            .collect();
        let mesh = mesh.with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, climate);
        (mesh, data.land_colors.clone())
    } else {
        (mesh, data.colors.clone())
    };
    let mesh = match splat.filter(|_| smooth) {
        Some(map) => {
            let weights = map.weights(data);
            for (color, w) in vertex_colors.iter_mut().zip(&weights) {
                color[3] = w[6];
            }
            mesh.with_inserted_attribute(
                Mesh::ATTRIBUTE_TANGENT,
                weights
                    .iter()
                    .map(|w| [w[0], w[1], w[2], w[3]])
                    .collect::<Vec<_>>(),
            )
            .with_inserted_attribute(
                Mesh::ATTRIBUTE_UV_1,
                weights.iter().map(|w| [w[4], w[5]]).collect::<Vec<_>>(),
            )
        }
        None => mesh,
    };
    mesh.with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, vertex_colors)
}

/// The mesh of a node's river and lake water ([`ChunkData::river_water`]), with upward normals
/// (rivers fall gently); `None` where the node has none.
#[must_use]
pub(crate) fn river_water_mesh(water: WaterMesh, usage: RenderAssetUsages) -> Option<Mesh> {
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
pub(crate) fn mesh_bytes(mesh: &Mesh) -> usize {
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
