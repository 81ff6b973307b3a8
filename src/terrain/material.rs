//! The terrain material: `StandardMaterial` extended with the ground's surface classes worked
//! out per pixel (`terrain.wgsl`), and a dithered fade for nodes that replace others.

use bevy::asset::{AssetPath, embedded_path};
use bevy::ecs::system::NonSendMarker;
use bevy::pbr::{ExtendedMaterial, MaterialExtension};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, ShaderType};
use bevy::shader::ShaderRef;
use biome_core::generator::SNOW_BAND;
use biome_core::{MeshStyle, WorldSettings};

use crate::origin::WorldFrame;

/// The material of every terrain node when the app renders (`PbrPlugin` is added before
/// [`crate::BiomeWorldPlugin`]).
pub type TerrainMaterial = ExtendedMaterial<StandardMaterial, TerrainSurface>;

/// What the terrain shader needs beyond `StandardMaterial`: the surface settings in world
/// units, how far a node has faded in, and the texture layers of [`crate::TerrainSplatting`].
#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, Default)]
pub struct TerrainSurface {
    /// The values, in one uniform.
    #[uniform(100)]
    pub(crate) surface: TerrainSurfaceUniform,
    /// The splat layers stacked in one array texture; `None` without splatting.
    #[texture(101, dimension = "2d_array")]
    #[sampler(102)]
    pub(crate) splat_layers: Option<Handle<Image>>,
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
    /// The world position drawn at the rendering origin (not zero under a floating origin), x
    /// and z modulo [`SPLAT_PERIOD`]: what the shader adds to a pixel's position for its height
    /// and its textures' coordinates.
    pub(crate) render_origin: Vec4,
    /// What the splat layers draw; `layers` 0 without splatting.
    pub(crate) splat: SplatUniform,
}

/// The splat layers' part of [`TerrainSurfaceUniform`].
#[derive(ShaderType, Reflect, Debug, Clone, Copy, PartialEq)]
pub(crate) struct SplatUniform {
    /// Repeats per world unit of each layer (layers 0 to 3, then 4 to 7).
    pub(crate) repeats: [Vec4; 2],
    /// 1 where the layer shades the ground's colour ([`crate::SplatTint::Ground`]), else 0.
    pub(crate) ground_tints: [Vec4; 2],
    /// How many layers there are; 0 draws the flat colours.
    pub(crate) layers: u32,
    /// The layers of steep ground, snow and beaches; -1 for none.
    pub(crate) steep_layer: i32,
    pub(crate) snow_layer: i32,
    pub(crate) beach_layer: i32,
    /// `1 - cos` of the slopes where the steep layer starts and where it covers the ground.
    pub(crate) steep_from: f32,
    pub(crate) steep_to: f32,
    /// Keeps the uniform a multiple of 16 bytes.
    pub(crate) padding: Vec2,
}

impl Default for SplatUniform {
    fn default() -> Self {
        Self {
            repeats: [Vec4::ZERO; 2],
            ground_tints: [Vec4::ZERO; 2],
            layers: 0,
            steep_layer: -1,
            snow_layer: -1,
            beach_layer: -1,
            steep_from: 0.0,
            steep_to: 0.0,
            padding: Vec2::ZERO,
        }
    }
}

impl SplatUniform {
    /// What `splatting` (checked) draws.
    pub(crate) fn new(splatting: &crate::TerrainSplatting) -> Self {
        let mut repeats = [0.0; 8];
        let mut tints = [0.0; 8];
        for (k, layer) in splatting.layers.iter().enumerate() {
            repeats[k] = 1.0 / layer.size;
            tints[k] = if layer.tint == crate::SplatTint::Ground {
                1.0
            } else {
                0.0
            };
        }
        let four = |values: [f32; 8]| {
            [
                Vec4::from_slice(&values[..4]),
                Vec4::from_slice(&values[4..]),
            ]
        };
        let index = |layer: Option<usize>| layer.map_or(-1, |l| l as i32);
        let slope = |degrees: f32| 1.0 - degrees.to_radians().cos();
        Self {
            repeats: four(repeats),
            ground_tints: four(tints),
            layers: splatting.layers.len() as u32,
            steep_layer: index(splatting.steep.map(|s| s.layer)),
            snow_layer: index(splatting.snow),
            beach_layer: index(splatting.beach),
            steep_from: splatting.steep.map_or(0.0, |s| slope(s.from_degrees)),
            steep_to: splatting.steep.map_or(0.0, |s| slope(s.to_degrees)),
            padding: Vec2::ZERO,
        }
    }
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
            render_origin: Vec4::ZERO,
            splat: SplatUniform::default(),
        }
    }
}

impl MaterialExtension for TerrainSurface {
    fn vertex_shader() -> ShaderRef {
        terrain_shader()
    }

    fn fragment_shader() -> ShaderRef {
        terrain_shader()
    }
}

fn terrain_shader() -> ShaderRef {
    ShaderRef::Path(
        AssetPath::from_path_buf(embedded_path!("terrain.wgsl")).with_source("embedded"),
    )
}

/// Registers the shader and the material: called by the plugin when the app renders.
pub(crate) fn add_terrain_material(app: &mut App) {
    bevy::asset::embedded_asset!(app, "terrain.wgsl");
    // After the frame's floating origin is read, before the materials' changes go out.
    let follow = follow_render_origin
        .after(TransformSystems::Propagate)
        .before(bevy::asset::AssetEventSystems);
    #[cfg(feature = "big_space")]
    let follow = follow.after(crate::origin::read_world_grid);
    app.add_plugins(MaterialPlugin::<TerrainMaterial>::default())
        .add_systems(
            Update,
            super::splat::take_splat_layers.after(crate::BiomeWorldSystems::Settings),
        )
        .add_systems(PostUpdate, follow);
}

/// World units within which the shader's texture coordinates are kept: splat layers whose size
/// divides it tile seamlessly as a floating origin moves (sizes in powers of two up to 16 km).
pub(crate) const SPLAT_PERIOD: f64 = 16_384.0;

/// [`TerrainSurfaceUniform::render_origin`] for `frame`.
pub(crate) fn shader_origin(frame: &WorldFrame) -> Vec4 {
    let origin = frame.render_origin();
    let wrap = |v: f64| v.rem_euclid(SPLAT_PERIOD) as f32;
    Vec4::new(wrap(origin.x), origin.y as f32, wrap(origin.z), 0.0)
}

/// Tells every terrain material where the rendering origin is, when it moved or the material is
/// new (only those that differ are touched, so nothing is uploaded again otherwise).
fn follow_render_origin(
    _main: NonSendMarker,
    frame: Res<WorldFrame>,
    mut materials: ResMut<Assets<TerrainMaterial>>,
) {
    let origin = shader_origin(&frame);
    let stale: Vec<AssetId<TerrainMaterial>> = materials
        .iter()
        .filter(|(_, material)| material.extension.surface.render_origin != origin)
        .map(|(id, _)| id)
        .collect();
    for id in stale {
        if let Some(mut material) = materials.get_mut(id) {
            material.extension.surface.render_origin = origin;
        }
    }
}
