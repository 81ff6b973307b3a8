//! Texture splatting, an option of the terrain material: [`TerrainSplatting`] names up to eight
//! texture layers and which biome's ground each one draws. Every vertex of a smooth node carries
//! its biomes' layer weights, blended across region borders exactly as the land colour is
//! (stitched edges take their coarse neighbour's weights, so seams match); the shader samples the
//! layers by world position, draws steep ground with its own layer projected three ways
//! (triplanar), and lays the beach and snow layers by height and temperature where the flat
//! colours lay sand and snow. Without the resource the terrain keeps its colours.

use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::ecs::system::NonSendMarker;
use bevy::image::{ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::prelude::*;
use bevy::render::render_resource::{
    Extent3d, TextureDimension, TextureFormat, TextureViewDescriptor, TextureViewDimension,
};
use biome_core::{BiomeTable, ChunkData};

use super::material::{SplatUniform, TerrainMaterial};
use super::mesh::{SplatLook, TerrainMaterials};
use crate::settings::BiomeWorldState;

/// The most texture layers a [`TerrainSplatting`] holds: what a vertex carries weights for.
pub const MAX_SPLAT_LAYERS: usize = 8;

/// The terrain drawn with texture layers instead of flat colours (insert it before or after the
/// plugin; remove it for the colours again). [`TerrainSplatting::procedural`] gives a built-in
/// set of detail layers that keeps each biome's colour; a game gives its own images (loaded with
/// the `AssetServer`, all the same size), which the plugin stacks into one array texture once
/// they have loaded. Inserting it, removing it or changing a biome's layer moves the settings
/// generation on, so everything is rebuilt as after a settings change (areas unload and load
/// again): insert it in a `Startup` system to build with it from the first frame. Other changes
/// (images, sizes, tints) redraw the terrain in place. The weights ride in the meshes' tangents
/// and second UVs, so a material of your own ([`crate::OwnTerrainMaterial`]) must not read
/// those while this is inserted.
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone)]
pub struct TerrainSplatting {
    /// The layers, at most [`MAX_SPLAT_LAYERS`]; the fields below name them by index.
    pub layers: Vec<SplatLayer>,
    /// Which layer draws each biome's ground, by biome name; biomes not named take
    /// `default_layer`, and names the biome table lacks are passed over, so one set serves
    /// several tables (the built-in one names the default and the multi-noise biomes).
    pub biomes: Vec<BiomeSplat>,
    /// The layer of biomes `biomes` does not name.
    pub default_layer: usize,
    /// Steep ground's layer, projected three ways so cliffs do not stretch it.
    pub steep: Option<SteepSplat>,
    /// The layer of beaches (over the beach colour where its tint is
    /// [`SplatTint::Ground`]); `None` keeps the flat beach colour.
    pub beach: Option<usize>,
    /// The layer of snow (over the snow colour where its tint is [`SplatTint::Ground`]);
    /// `None` keeps the flat snow colour.
    pub snow: Option<usize>,
}

/// One texture layer of a [`TerrainSplatting`].
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct SplatLayer {
    /// The texture, tiled over the ground (sRGB; converted to `Rgba8UnormSrgb` where it is
    /// not).
    pub image: Handle<Image>,
    /// World units one repeat of the texture covers.
    pub size: f32,
    /// How the texture colours the ground.
    pub tint: SplatTint,
}

/// How a [`SplatLayer`]'s texture colours the ground.
#[derive(Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq, Default)]
pub enum SplatTint {
    /// The texture's own colours.
    #[default]
    Albedo,
    /// The ground's colour (the biomes' blended colour, or the beach or snow colour) shaded by
    /// the texture: a texel of linear 0.5 keeps the colour, darker or lighter shades it.
    Ground,
}

/// A biome's layer ([`TerrainSplatting::biomes`]).
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct BiomeSplat {
    /// The biome's name in the biome table.
    pub biome: String,
    /// Its layer.
    pub layer: usize,
}

/// The layer of steep ground ([`TerrainSplatting::steep`]), fading in from one slope to another.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct SteepSplat {
    /// Its layer.
    pub layer: usize,
    /// Degrees from level where it starts to show.
    pub from_degrees: f32,
    /// Degrees from level where it covers the ground.
    pub to_degrees: f32,
}

/// A [`TerrainSplatting`] the plugin cannot draw, by field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("TerrainSplatting::{field}: {reason}")]
pub struct SplatError {
    /// The field's path (`layers[2].size`).
    pub field: String,
    /// What is wrong with it.
    pub reason: String,
}

impl SplatError {
    fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl TerrainSplatting {
    /// The built-in layers, made in code: detail textures for grass, forest floor, sand, dry
    /// earth, tundra and mud that shade each biome's own colour, rock in its own colours for
    /// steep ground from 35° to 50°, and snow and sand over the snow and beach colours.
    #[must_use]
    pub fn procedural(images: &mut Assets<Image>) -> Self {
        let layer =
            |kind: Procedural, size: f32, tint: SplatTint, images: &mut Assets<Image>| SplatLayer {
                image: images.add(kind.image()),
                size,
                tint,
            };
        let layers = vec![
            layer(Procedural::Grass, 6.0, SplatTint::Ground, images),
            layer(Procedural::ForestFloor, 8.0, SplatTint::Ground, images),
            layer(Procedural::Sand, 10.0, SplatTint::Ground, images),
            layer(Procedural::DryEarth, 9.0, SplatTint::Ground, images),
            layer(Procedural::Tundra, 8.0, SplatTint::Ground, images),
            layer(Procedural::Mud, 10.0, SplatTint::Ground, images),
            layer(Procedural::Rock, 14.0, SplatTint::Albedo, images),
            layer(Procedural::Snow, 12.0, SplatTint::Ground, images),
        ];
        let biome = |biome: &str, layer: usize| BiomeSplat {
            biome: biome.to_owned(),
            layer,
        };
        Self {
            layers,
            biomes: vec![
                biome("Forest", 1),
                biome("Taiga", 1),
                biome("Snowy Forest", 1),
                biome("Rainforest", 1),
                biome("Desert", 2),
                biome("Palm Shore", 2),
                biome("Savanna", 3),
                biome("Badlands", 3),
                biome("Tundra", 4),
                biome("Swamp", 5),
                biome("Mangrove", 5),
            ],
            default_layer: 0,
            steep: Some(SteepSplat {
                layer: 6,
                from_degrees: 35.0,
                to_degrees: 50.0,
            }),
            beach: Some(2),
            snow: Some(7),
        }
    }

    /// Whether the plugin can draw it: one to [`MAX_SPLAT_LAYERS`] layers of a finite, positive
    /// size, every index naming a layer, steep slopes rising within 0° to 90°.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn check(&self) -> Result<(), SplatError> {
        let count = self.layers.len();
        if !(1..=MAX_SPLAT_LAYERS).contains(&count) {
            return Err(SplatError::new(
                "layers",
                format!("1 to {MAX_SPLAT_LAYERS} layers (got {count})"),
            ));
        }
        for (k, layer) in self.layers.iter().enumerate() {
            if !(layer.size.is_finite() && layer.size > 0.0) {
                return Err(SplatError::new(
                    format!("layers[{k}].size"),
                    format!("a positive number of world units (got {})", layer.size),
                ));
            }
        }
        let index = |field: String, layer: usize| {
            if layer < count {
                Ok(())
            } else {
                Err(SplatError::new(
                    field,
                    format!("a layer index below {count} (got {layer})"),
                ))
            }
        };
        index("default_layer".into(), self.default_layer)?;
        for (k, biome) in self.biomes.iter().enumerate() {
            index(format!("biomes[{k}].layer"), biome.layer)?;
        }
        if let Some(steep) = self.steep {
            index("steep.layer".into(), steep.layer)?;
            let (from, to) = (steep.from_degrees, steep.to_degrees);
            if !((0.0..90.0).contains(&from) && from < to && to <= 90.0) {
                return Err(SplatError::new(
                    "steep",
                    format!("0 <= from_degrees < to_degrees <= 90 (got {from} and {to})"),
                ));
            }
        }
        if let Some(beach) = self.beach {
            index("beach".into(), beach)?;
        }
        if let Some(snow) = self.snow {
            index("snow".into(), snow)?;
        }
        Ok(())
    }

    /// Each biome's layer, in the order of `table`'s biomes.
    fn layers_of(&self, table: &BiomeTable) -> SplatMap {
        let layers = (table.biomes.iter())
            .map(|biome| {
                let named = self.biomes.iter().find(|b| b.biome == biome.name);
                named.map_or(self.default_layer, |b| b.layer) as u8
            })
            .collect();
        SplatMap {
            layers,
            default_layer: self.default_layer as u8,
        }
    }
}

/// Each biome's splat layer, by biome index: what a terrain build needs to weigh its vertices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SplatMap {
    layers: Vec<u8>,
    /// The layer of a biome past `layers`.
    default_layer: u8,
}

impl SplatMap {
    /// The layer weights of every vertex of `data`, from its biome blends: they sum to one.
    pub(crate) fn weights(&self, data: &ChunkData) -> Vec<[f32; MAX_SPLAT_LAYERS]> {
        let layer = |biome: u16| {
            usize::from(
                *self
                    .layers
                    .get(usize::from(biome))
                    .unwrap_or(&self.default_layer),
            )
        };
        (data.biome_blends.iter())
            .map(|blend| {
                let mut weights = [0.0; MAX_SPLAT_LAYERS];
                for (biome, weight) in blend.weights() {
                    weights[layer(biome)] += weight;
                }
                weights
            })
            .collect()
    }
}

/// The splat map the builds use: `None` without a valid [`TerrainSplatting`].
#[derive(Resource, Default)]
pub(crate) struct TerrainSplatMap(pub(crate) Option<Arc<SplatMap>>);

/// Takes a new or changed [`TerrainSplatting`] (or new biomes) into the map the builds use, and
/// moves the settings generation on when the map changes (meshes need the weights); an invalid one is refused with a warning naming
/// its field, and the terrain keeps what it had.
pub(crate) fn take_splat_map(
    _main: NonSendMarker,
    splatting: Option<Res<TerrainSplatting>>,
    mut map: ResMut<TerrainSplatMap>,
    mut state: ResMut<BiomeWorldState>,
) {
    let wanted = match &splatting {
        None => None,
        Some(splatting) if !(splatting.is_changed() || state.is_changed()) => return,
        Some(splatting) => match splatting.check() {
            Ok(()) => Some(splatting.layers_of(&state.settings().generator.biome_table)),
            Err(error) => {
                if splatting.is_changed() {
                    warn!("{error}: the terrain keeps its look");
                }
                return;
            }
        },
    };
    if map.0.as_deref() != wanted.as_ref() {
        map.0 = wanted.map(Arc::new);
        state.rebuild();
    }
}

/// Whether the layers of a changed [`TerrainSplatting`] still wait for their images to load.
#[derive(Default)]
pub(crate) struct LayersWaiting(bool);

/// Gives the terrain material the layers of a new or changed [`TerrainSplatting`]: their images
/// stacked into one array texture once they have loaded (the terrain keeps its look until then;
/// the images the material already draws are not stacked again), and takes the layers away when
/// the resource goes.
pub(crate) fn take_splat_layers(
    _main: NonSendMarker,
    splatting: Option<Res<TerrainSplatting>>,
    assets: Res<AssetServer>,
    mut images: ResMut<Assets<Image>>,
    mut terrain: ResMut<TerrainMaterials>,
    mut materials: ResMut<Assets<TerrainMaterial>>,
    mut waiting: Local<LayersWaiting>,
) {
    let Some(splatting) = splatting else {
        if terrain.splat().is_some() {
            terrain.set_splat(None, &mut materials);
        }
        return;
    };
    if splatting.is_changed() {
        // `take_splat_map` says why an invalid one is refused.
        waiting.0 = splatting.check().is_ok();
    }
    if !waiting.0 {
        return;
    }
    let sources: Vec<AssetId<Image>> = splatting.layers.iter().map(|l| l.image.id()).collect();
    let drawn = (terrain.splat())
        .filter(|look| look.sources == sources)
        .map(|look| look.layers.clone());
    let layers = match drawn {
        Some(layers) => layers,
        None => {
            if let Some(k) = (sources.iter()).position(|&id| assets.load_state(id).is_failed()) {
                warn!(
                    "TerrainSplatting::layers[{k}].image did not load: the terrain keeps its look"
                );
                waiting.0 = false;
                return;
            }
            let Some(loaded) = (sources.iter())
                .map(|&id| images.get(id))
                .collect::<Option<Vec<_>>>()
            else {
                return;
            };
            match stack_layers(&loaded) {
                Ok(stacked) => images.add(stacked),
                Err(error) => {
                    warn!("{error}: the terrain keeps its look");
                    waiting.0 = false;
                    return;
                }
            }
        }
    };
    waiting.0 = false;
    let look = SplatLook {
        layers,
        sources,
        uniform: SplatUniform::new(&splatting),
    };
    terrain.set_splat(Some(look), &mut materials);
}

/// The layers' images stacked into one array texture, each with its mipmaps (2 × 2 box
/// filtered), repeating. A single layer is given twice: an array of one would be bound as a
/// plain 2D texture.
///
/// # Errors
/// A layer whose image has another size than the first, or that cannot be converted to
/// `Rgba8UnormSrgb`, by field.
pub(crate) fn stack_layers(images: &[&Image]) -> Result<Image, SplatError> {
    let format = TextureFormat::Rgba8UnormSrgb;
    let first = images
        .first()
        .ok_or_else(|| SplatError::new("layers", "no layers"))?;
    let size = first.size();
    let mut data = Vec::new();
    for (k, image) in images.iter().enumerate() {
        let field = || format!("layers[{k}].image");
        if image.size() != size {
            return Err(SplatError::new(
                field(),
                format!(
                    "{} × {} pixels, not the {} × {} of the first layer",
                    image.width(),
                    image.height(),
                    size.x,
                    size.y
                ),
            ));
        }
        let converted;
        let image = if image.texture_descriptor.format == format {
            *image
        } else {
            converted = image.convert(format).ok_or_else(|| {
                SplatError::new(
                    field(),
                    format!(
                        "{:?} cannot be converted to Rgba8UnormSrgb",
                        image.texture_descriptor.format
                    ),
                )
            })?;
            &converted
        };
        let pixels = image
            .data
            .as_ref()
            .ok_or_else(|| SplatError::new(field(), "its pixels are not on the CPU"))?;
        let texels = (size.x * size.y * 4) as usize;
        data.extend_from_slice(&pixels[..texels]);
        data.extend(mipmaps(&pixels[..texels], size.x, size.y));
    }
    let layers = images.len().max(2) as u32;
    if images.len() == 1 {
        data.extend_from_slice(&data.clone());
    }
    let mut stacked = Image::new_uninit(
        Extent3d {
            width: size.x,
            height: size.y,
            depth_or_array_layers: layers,
        },
        TextureDimension::D2,
        format,
        RenderAssetUsages::RENDER_WORLD,
    );
    stacked.texture_descriptor.mip_level_count = mip_levels(size.x, size.y);
    stacked.data = Some(data);
    stacked.texture_view_descriptor = Some(TextureViewDescriptor {
        dimension: Some(TextureViewDimension::D2Array),
        ..default()
    });
    stacked.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        address_mode_u: ImageAddressMode::Repeat,
        address_mode_v: ImageAddressMode::Repeat,
        mag_filter: ImageFilterMode::Linear,
        min_filter: ImageFilterMode::Linear,
        mipmap_filter: ImageFilterMode::Linear,
        ..default()
    });
    Ok(stacked)
}

/// How many mip levels a `width` × `height` texture has, down to one texel.
fn mip_levels(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// The mip levels below an sRGB RGBA8 image, one after the other, each texel the mean of the
/// four above it in linear light, as the GPU filters them (an odd edge repeats its last texel).
fn mipmaps(pixels: &[u8], width: u32, height: u32) -> Vec<u8> {
    let to_linear: Vec<f32> = (0..=255u8)
        .map(|v| srgb_to_linear(f32::from(v) / 255.0))
        .collect();
    // Colours in linear light, alpha as it is.
    let mut level: Vec<f32> = (pixels.iter().enumerate())
        .map(|(k, &v)| {
            if k % 4 == 3 {
                f32::from(v) / 255.0
            } else {
                to_linear[usize::from(v)]
            }
        })
        .collect();
    let mut out = Vec::new();
    let (mut w, mut h) = (width as usize, height as usize);
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = vec![0.0; nw * nh * 4];
        for y in 0..nh {
            for x in 0..nw {
                for c in 0..4 {
                    let at = |dx: usize, dy: usize| {
                        let (sx, sy) = ((2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1));
                        level[(sy * w + sx) * 4 + c]
                    };
                    next[(y * nw + x) * 4 + c] = (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1)) / 4.0;
                }
            }
        }
        out.extend(next.iter().enumerate().map(|(k, &v)| {
            let encoded = if k % 4 == 3 { v } else { linear_to_srgb(v) };
            (encoded * 255.0).round() as u8
        }));
        (level, w, h) = (next, nw, nh);
    }
    out
}

/// The built-in layers' textures.
#[derive(Clone, Copy, Debug)]
enum Procedural {
    Grass,
    ForestFloor,
    Sand,
    DryEarth,
    Tundra,
    Mud,
    Rock,
    Snow,
}

/// Texels a side of a built-in layer.
const PROCEDURAL_SIDE: u32 = 256;

impl Procedural {
    /// The layer's texture: tiling, linear shades around 0.5 for ground tints, colours for rock.
    fn image(self) -> Image {
        let side = PROCEDURAL_SIDE;
        let mut data = Vec::with_capacity((side * side * 4) as usize);
        for y in 0..side {
            for x in 0..side {
                let (u, v) = (x as f32 / side as f32, y as f32 / side as f32);
                let rgb = self.texel(u, v);
                data.extend(rgb.map(|c| (linear_to_srgb(c.clamp(0.0, 1.0)) * 255.0).round() as u8));
                data.push(255);
            }
        }
        Image::new(
            Extent3d {
                width: side,
                height: side,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            data,
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD,
        )
    }

    /// The linear colour at `(u, v)` of the unit square the texture tiles.
    fn texel(self, u: f32, v: f32) -> [f32; 3] {
        let grey = |shade: f32| [shade; 3];
        match self {
            Self::Grass => {
                // Blades: fine noise stretched along v, over soft patches.
                let blades = fbm(u * 4.0, v, 48, 3, 1) - 0.5;
                let patches = fbm(u, v, 6, 3, 2) - 0.5;
                grey(0.5 + 0.45 * blades + 0.25 * patches)
            }
            Self::ForestFloor => {
                let litter = fbm(u, v, 24, 4, 3) - 0.5;
                let twigs = (fbm(u, v, 64, 2, 4) - 0.5).abs();
                grey(0.5 + 0.5 * litter - 0.4 * (0.12 - twigs).max(0.0) * 4.0)
            }
            Self::Sand => {
                let warp = fbm(u, v, 4, 2, 5);
                let ripples = (std::f32::consts::TAU * (8.0 * v + 1.5 * warp)).sin();
                let grain = fbm(u, v, 128, 1, 6) - 0.5;
                grey(0.5 + 0.08 * ripples + 0.12 * grain)
            }
            Self::DryEarth => {
                let crack = cell_edge(u, v, 8, 7);
                let clods = fbm(u, v, 16, 3, 8) - 0.5;
                grey(0.52 + 0.25 * clods - 0.35 * (1.0 - (crack * 25.0).min(1.0)))
            }
            Self::Tundra => {
                let lumps = fbm(u, v, 12, 4, 9) - 0.5;
                let lichen = (fbm(u, v, 32, 2, 10) - 0.55).max(0.0);
                grey(0.5 + 0.5 * lumps + 0.6 * lichen)
            }
            Self::Mud => {
                let wet = smoothstep(0.45, 0.6, fbm(u, v, 6, 4, 11));
                let grain = fbm(u, v, 64, 2, 12) - 0.5;
                grey(0.55 - 0.18 * wet + 0.15 * grain)
            }
            Self::Rock => {
                let strata = (std::f32::consts::TAU * (6.0 * v + 0.8 * fbm(u, v, 4, 3, 13))).sin();
                let body = fbm(u, v, 16, 5, 14);
                let crack = cell_edge(u, v, 6, 15);
                let shade = (0.55 + 0.6 * (body - 0.5) + 0.08 * strata)
                    * (0.55 + 0.45 * (crack * 12.0).min(1.0));
                [0.26 * shade, 0.24 * shade, 0.21 * shade].map(|c| c * 1.6)
            }
            Self::Snow => {
                let drifts = fbm(u, v, 8, 3, 16) - 0.5;
                let sparkle = (fbm(u, v, 128, 1, 17) - 0.8).max(0.0);
                grey(0.5 + 0.12 * drifts + 0.8 * sparkle)
            }
        }
    }
}

/// The linear value of an sRGB-encoded one in 0 to 1.
fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// sRGB encoding of a linear value in 0 to 1.
fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn smoothstep(low: f32, high: f32, x: f32) -> f32 {
    let t = ((x - low) / (high - low)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A lattice value in 0 to 1, the same at `(x, y)` and `(x + period, y)` etc.
fn lattice(x: i64, y: i64, period: i64, seed: u32) -> f32 {
    let (x, y) = (x.rem_euclid(period) as u32, y.rem_euclid(period) as u32);
    let mut h =
        x.wrapping_mul(0x8da6_b343) ^ y.wrapping_mul(0xd816_3841) ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5bd1_e995);
    h ^= h >> 15;
    (h & 0x00ff_ffff) as f32 / 16_777_215.0
}

/// Value noise over the unit square with `period` lattice cells a side, so it tiles.
fn value_noise(u: f32, v: f32, period: u32, seed: u32) -> f32 {
    let (x, y) = (u * period as f32, v * period as f32);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (ix, iy, p) = (x0 as i64, y0 as i64, i64::from(period));
    let at = |dx: i64, dy: i64| lattice(ix + dx, iy + dy, p, seed);
    let top = at(0, 0) + (at(1, 0) - at(0, 0)) * sx;
    let bottom = at(0, 1) + (at(1, 1) - at(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// `octaves` of [`value_noise`] from `period` cells up, each twice as fine and half as strong;
/// 0 to 1, tiling.
fn fbm(u: f32, v: f32, period: u32, octaves: u32, seed: u32) -> f32 {
    let (mut sum, mut amplitude, mut total) = (0.0, 1.0, 0.0);
    for octave in 0..octaves {
        sum += amplitude * value_noise(u, v, period << octave, seed.wrapping_add(octave * 101));
        total += amplitude;
        amplitude *= 0.5;
    }
    sum / total
}

/// Distance from `(u, v)` to the nearest edge between tiling Voronoi cells (`period` a side),
/// in units of the square.
fn cell_edge(u: f32, v: f32, period: u32, seed: u32) -> f32 {
    let p = period as f32;
    let (x, y) = (u * p, v * p);
    let (cx, cy) = (x.floor() as i64, y.floor() as i64);
    let (mut nearest, mut second) = (f32::INFINITY, f32::INFINITY);
    for dy in -1..=1 {
        for dx in -1..=1 {
            let (gx, gy) = (cx + dx, cy + dy);
            let site_x = gx as f32 + lattice(gx, gy, i64::from(period), seed);
            let site_y = gy as f32 + lattice(gx, gy, i64::from(period), seed ^ 0x9e37);
            let d = ((site_x - x).powi(2) + (site_y - y).powi(2)).sqrt();
            if d < nearest {
                (second, nearest) = (nearest, d);
            } else if d < second {
                second = d;
            }
        }
    }
    (second - nearest) / (2.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use biome_core::{BiomeBlend, WorldSettings};

    #[test]
    fn bad_splatting_is_refused_by_field() {
        let mut images = Assets::<Image>::default();
        let good = TerrainSplatting::procedural(&mut images);
        assert_eq!(good.check(), Ok(()));
        let refused = |change: fn(&mut TerrainSplatting)| {
            let mut splatting = good.clone();
            change(&mut splatting);
            splatting.check().unwrap_err().field
        };
        assert_eq!(refused(|s| s.layers.clear()), "layers");
        assert_eq!(refused(|s| s.layers.push(s.layers[0].clone())), "layers");
        assert_eq!(refused(|s| s.layers[3].size = f32::NAN), "layers[3].size");
        assert_eq!(refused(|s| s.layers[0].size = 0.0), "layers[0].size");
        assert_eq!(refused(|s| s.default_layer = 8), "default_layer");
        assert_eq!(refused(|s| s.biomes[2].layer = 9), "biomes[2].layer");
        assert_eq!(
            refused(|s| s.steep.as_mut().unwrap().layer = 8),
            "steep.layer"
        );
        assert_eq!(
            refused(|s| s.steep.as_mut().unwrap().to_degrees = 20.0),
            "steep"
        );
        assert_eq!(refused(|s| s.beach = Some(8)), "beach");
        assert_eq!(refused(|s| s.snow = Some(8)), "snow");
    }

    #[test]
    fn biomes_take_their_named_layer_or_the_default() {
        let mut images = Assets::<Image>::default();
        let splatting = TerrainSplatting::procedural(&mut images);
        let table = WorldSettings::default().biome_table;
        let map = splatting.layers_of(&table);
        for (biome, layer) in table.biomes.iter().zip(&map.layers) {
            let expected = match biome.name.as_str() {
                "Desert" => 2,
                "Forest" | "Taiga" | "Snowy Forest" | "Rainforest" => 1,
                "Savanna" => 3,
                "Tundra" => 4,
                "Swamp" => 5,
                _ => 0,
            };
            assert_eq!(usize::from(*layer), expected, "{}", biome.name);
        }
    }

    /// Weights follow the blend and sum to one; a biome met twice counts once.
    #[test]
    fn vertex_weights_follow_the_biome_blend() {
        let map = SplatMap {
            layers: vec![0, 3, 3, 5],
            default_layer: 2,
        };
        let mut data = biome_core::WorldGenerator::default()
            .build_chunk(biome_core::ChunkCoord::new(0, 0), &default())
            .unwrap();
        data.biome_blends = vec![
            BiomeBlend::pair(0, 3, 0.75),
            BiomeBlend::pair(1, 2, 0.6),
            BiomeBlend::pair(3, 3, 0.5),
            // A stitched vertex's four biomes; biome 9 is past the map: the default layer.
            BiomeBlend::pair(0, 3, 0.5).midpoint(BiomeBlend::pair(1, 9, 0.5)),
        ];
        let weights = map.weights(&data);
        let expected = [
            [0.75, 0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            [0.25, 0.0, 0.25, 0.25, 0.0, 0.25, 0.0, 0.0],
        ];
        for (got, want) in weights.iter().zip(expected) {
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-6, "{got:?} against {want:?}");
            }
        }
    }

    #[test]
    fn layers_stack_with_their_mipmaps_and_refuse_another_size() {
        let plain = |side: u32, shade: u8| {
            Image::new_fill(
                Extent3d {
                    width: side,
                    height: side,
                    depth_or_array_layers: 1,
                },
                TextureDimension::D2,
                &[shade, shade, shade, 255],
                TextureFormat::Rgba8UnormSrgb,
                RenderAssetUsages::default(),
            )
        };
        let (a, b) = (plain(8, 10), plain(8, 200));
        let stacked = stack_layers(&[&a, &b]).unwrap();
        assert_eq!(stacked.texture_descriptor.size.depth_or_array_layers, 2);
        assert_eq!(stacked.texture_descriptor.mip_level_count, 4);
        // 8², 4², 2² and 1 texels a layer, layer after layer.
        let per_layer = (64 + 16 + 4 + 1) * 4;
        let data = stacked.data.as_ref().unwrap();
        assert_eq!(data.len(), 2 * per_layer);
        assert!(data[..per_layer].chunks(4).all(|t| t == [10, 10, 10, 255]));
        assert!(
            data[per_layer..]
                .chunks(4)
                .all(|t| t == [200, 200, 200, 255])
        );
        // Black and white texels average to linear 0.5, not to sRGB 0.5.
        let mut checks = plain(2, 0);
        checks.data.as_mut().unwrap()[..4].copy_from_slice(&[255, 255, 255, 255]);
        checks.data.as_mut().unwrap()[12..].copy_from_slice(&[255, 255, 255, 255]);
        let mip = &stack_layers(&[&checks]).unwrap().data.unwrap()[16..20];
        assert_eq!(mip, [188, 188, 188, 255]);
        let one = stack_layers(&[&a]).unwrap();
        assert_eq!(one.texture_descriptor.size.depth_or_array_layers, 2);
        let error = stack_layers(&[&a, &plain(16, 0)]).unwrap_err();
        assert_eq!(error.field, "layers[1].image");
    }

    /// The built-in textures tile: their opposite edges continue each other as their insides do.
    #[test]
    fn built_in_textures_tile() {
        for kind in [
            Procedural::Grass,
            Procedural::ForestFloor,
            Procedural::Sand,
            Procedural::DryEarth,
            Procedural::Tundra,
            Procedural::Mud,
            Procedural::Rock,
            Procedural::Snow,
        ] {
            for k in 0..64 {
                let t = k as f32 / 64.0;
                let (a, b) = (kind.texel(0.0, t), kind.texel(1.0, t));
                let (c, d) = (kind.texel(t, 0.0), kind.texel(t, 1.0));
                for (p, q) in a.iter().zip(b).chain(c.iter().zip(d)) {
                    assert!((p - q).abs() < 1e-3, "{kind:?} at {t}: {p} against {q}");
                }
            }
        }
    }
}
