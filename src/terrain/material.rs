//! The terrain material: `StandardMaterial` extended with the ground's surface classes worked
//! out per pixel (`terrain.wgsl`), and a dithered fade for nodes that replace others.

use bevy::asset::{AssetPath, embedded_path};
use bevy::pbr::{ExtendedMaterial, MaterialExtension};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, ShaderType};
use bevy::shader::ShaderRef;
use biome_core::generator::SNOW_BAND;
use biome_core::{MeshStyle, WorldSettings};

/// The material of every terrain node when the app renders (`PbrPlugin` is added before
/// [`crate::BiomeWorldPlugin`]).
pub type TerrainMaterial = ExtendedMaterial<StandardMaterial, TerrainSurface>;

/// What the terrain shader needs beyond `StandardMaterial`: the surface settings in world
/// units, and how far a node has faded in.
#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, Default)]
pub struct TerrainSurface {
    /// The values, in one uniform.
    #[uniform(100)]
    pub(crate) surface: TerrainSurfaceUniform,
}

/// [`TerrainSurface`]'s uniform; the layout `terrain.wgsl` reads.
#[derive(ShaderType, Reflect, Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct TerrainSurfaceUniform {
    /// Linear colour of the deep sea floor.
    pub(crate) deep_water_color: Vec4,
    /// Linear colour of the shallow sea floor.
    pub(crate) shallow_water_color: Vec4,
    /// Linear colour of beaches.
    pub(crate) beach_color: Vec4,
    /// Linear colour of snow.
    pub(crate) snow_color: Vec4,
    /// World height below which water is deep.
    pub(crate) deep_water_height: f32,
    /// World height up to which land is beach.
    pub(crate) beach_height: f32,
    /// Temperature below which land is snow.
    pub(crate) snow_temperature: f32,
    /// Half the width of the band over which land turns to snow.
    pub(crate) snow_band: f32,
    /// 1 when vertex colours are final (flat tiles), 0 to work the surface out per pixel.
    pub(crate) vertex_colors_final: u32,
    /// 1 when fully shown; below, the node is dithered in over what it replaces.
    pub(crate) fade: f32,
    /// Keeps the uniform a multiple of 16 bytes.
    pub(crate) padding: Vec2,
}

impl TerrainSurfaceUniform {
    /// The surface of `settings` for meshes of `style`, fully shown.
    #[must_use]
    pub(crate) fn new(settings: &WorldSettings, style: MeshStyle) -> Self {
        let s = &settings.surface;
        let color = |rgb: [f64; 3]| Vec4::new(rgb[0] as f32, rgb[1] as f32, rgb[2] as f32, 1.0);
        let scale = settings.terrain.height_scale;
        Self {
            deep_water_color: color(s.deep_water_color.to_linear()),
            shallow_water_color: color(s.shallow_water_color.to_linear()),
            beach_color: color(s.beach_color.to_linear()),
            snow_color: color(s.snow_color.to_linear()),
            deep_water_height: (s.deep_water * scale) as f32,
            beach_height: (s.beach * scale) as f32,
            snow_temperature: s.snow_temperature as f32,
            snow_band: SNOW_BAND as f32,
            vertex_colors_final: u32::from(style == MeshStyle::FlatTiles),
            fade: 1.0,
            padding: Vec2::ZERO,
        }
    }
}

impl MaterialExtension for TerrainSurface {
    fn fragment_shader() -> ShaderRef {
        ShaderRef::Path(
            AssetPath::from_path_buf(embedded_path!("terrain.wgsl")).with_source("embedded"),
        )
    }
}

/// Registers the shader and the material: called by the plugin when the app renders.
pub(crate) fn add_terrain_material(app: &mut App) {
    bevy::asset::embedded_asset!(app, "terrain.wgsl");
    app.add_plugins(MaterialPlugin::<TerrainMaterial>::default());
}
