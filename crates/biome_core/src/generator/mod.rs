//! The generator: [`WorldSettings`] compiled into a [`WorldGenerator`] that answers, for any world
//! position, height, climate, biome, region, surface and colour. The consumers build on it
//! ([`crate::chunk`], [`crate::trees`], [`crate::scatter`]), adding their own methods to it.
//!
//! Every answer is a pure function of the settings (seed included) and the position, so chunks
//! built alone, in any order, on any thread, agree at their borders. The world spans
//! [`crate::limits::COORDINATE`] (±2^47 world units) on both axes: cell math runs in `i64` and `f64`
//! and never overflows there, and a position beyond is read at the nearest point inside.

mod settings;

pub use settings::{BiomeSource, PresetError, SurfaceSettings, WorldSettings};

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::check::SettingsError;
use crate::coords::clamp_coordinate;
use crate::cover::WaterRule;
use crate::density::{DensityField, Sites};
use crate::edits::{EditSet, NearFor};
use crate::limits;
use crate::math::smoothstep;
use crate::multi_noise::{BiomeBoxIndex, ClimatePoint};
use crate::regions::{NearestTwoRun, RegionGrid, RegionId, RegionPair, SiteCache};
use crate::rivers::{RiverCourse, RiverPoint, Rivers};
use crate::scratch::Scratch;
use crate::seed_offsets;
use crate::terrain::{Terrain, VerticalSpan, VolumeField};
use crate::tutorial::{
    Climate, Simplex, WarpParams, blend_weight, climate_from_noise, fbm, pick_biome, wobble_point,
};

/// What covers the ground at a point, decided from height and cold before the biome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Surface {
    /// Below [`SurfaceSettings::deep_water`].
    DeepWater,
    /// Below sea level (0).
    ShallowWater,
    /// Under a river or lake above sea level.
    River,
    /// From sea level up to [`SurfaceSettings::beach`].
    Beach,
    /// Land showing its biome.
    Land,
    /// Land colder than [`SurfaceSettings::snow_temperature`].
    Snow,
}

impl Surface {
    /// Whether the ground is under water.
    #[must_use]
    pub fn is_water(self) -> bool {
        matches!(
            self,
            Surface::DeepWater | Surface::ShallowWater | Surface::River
        )
    }
}

/// Everything the world says about one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Height in world units; 0 is sea level.
    pub height: f64,
    /// The terrain's value (height before [`crate::terrain::TerrainSettings::height_scale`]): the density
    /// stack's, with rivers carved into it.
    pub density: f64,
    /// The river or lake at the point, if any.
    pub river: RiverPoint,
    /// Temperature and moisture, each 0 to 1, with mountain chill applied.
    pub climate: Climate,
    /// Index into [`crate::BiomeTable::biomes`] of the region the point belongs to.
    pub biome: usize,
    /// Biome of the neighbouring region across the nearest border.
    pub second_biome: usize,
    /// Share of `biome` in the colour: 0.5 on a border, 1 deep inside the region.
    pub blend: f64,
    /// The region the point belongs to (nearest site after the border wobble).
    pub region: RegionId,
    /// The region across the nearest border.
    pub second_region: RegionId,
    /// Water, beach, land or snow.
    pub surface: Surface,
    /// Linear RGBA ground colour.
    pub color: [f32; 4],
    /// Linear RGBA land colour: the two biomes blended across the border, before water, sand
    /// and snow are laid over it (which a terrain shader can do per pixel from the height and
    /// the temperature, with [`SNOW_BAND`]).
    pub land_color: [f32; 4],
    /// How much of the ground an edit's own surface covers (a road's,
    /// [`crate::edits::SurfaceCover`]), already laid into `color` and `land_color`: a shader
    /// laying snow and sand over `land_color` leaves this share uncovered. 0 where none lies.
    pub cover: f64,
}

/// Half the width, in temperature, of the band over which land turns to snow around
/// `surface.snow_temperature`.
pub const SNOW_BAND: f64 = 0.04;

/// Linear RGB colours of the settings, ready for blending.
#[derive(Clone, Debug)]
struct Palette {
    biomes: Vec<[f64; 3]>,
    deep_water: [f64; 3],
    shallow_water: [f64; 3],
    beach: [f64; 3],
    snow: [f64; 3],
}

/// A world: settings compiled once, then sampled anywhere from any thread.
#[derive(Clone, Debug)]
pub struct WorldGenerator {
    settings: WorldSettings,
    /// The land and climate before rivers.
    terrain: Terrain,
    wobble: Simplex,
    pub(crate) forests: Simplex,
    palette: Palette,
    biome_lookup: BiomeLookup,
    /// The river network, shared by clones (its tile cache only saves work).
    rivers: Option<Arc<Rivers>>,
    /// Terrain edits over the procedural height, after the rivers.
    edits: Arc<EditSet>,
}

/// [`BiomeSource`] compiled: how the generator picks a region's biome.
#[derive(Clone, Debug)]
enum BiomeLookup {
    Table,
    MultiNoise {
        /// Continentalness, erosion and weirdness.
        axes: Box<[DensityField; 3]>,
        index: Box<BiomeBoxIndex>,
    },
}

impl Default for WorldGenerator {
    /// The generator of [`WorldSettings::default`].
    fn default() -> Self {
        Self::new(WorldSettings::default()).expect("the default settings are valid")
    }
}

/// What a point needs besides its regions to be finished into a [`Sample`]: the noise values
/// the batch paths compute for many points at once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointNoise {
    pub(crate) density: f64,
    pub(crate) heat: f64,
    pub(crate) wet: f64,
}

/// The points of a grid, row by row: every `(xs[i], zs[j])`, both ascending.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridAxes<'a> {
    pub(crate) xs: &'a [f64],
    pub(crate) zs: &'a [f64],
}

impl WorldGenerator {
    /// Validates `settings` and builds the world's noise tables.
    ///
    /// # Errors
    /// The first setting out of range ([`WorldSettings::validate`]).
    pub fn new(settings: WorldSettings) -> Result<Self, SettingsError> {
        settings.validate()?;
        let seed = settings.seed;
        let surface = &settings.surface;
        let palette = Palette {
            biomes: settings
                .biome_table
                .biomes
                .iter()
                .map(|b| b.color.to_linear())
                .collect(),
            deep_water: surface.deep_water_color.to_linear(),
            shallow_water: surface.shallow_water_color.to_linear(),
            beach: surface.beach_color.to_linear(),
            snow: surface.snow_color.to_linear(),
        };
        let biome_lookup = match &settings.biome_source {
            BiomeSource::Table => BiomeLookup::Table,
            BiomeSource::MultiNoise(source) => BiomeLookup::MultiNoise {
                axes: Box::new(
                    source
                        .axes()
                        .map(|axis| DensityField::compile(axis, seed, &settings.functions)),
                ),
                index: Box::new(BiomeBoxIndex::new(source.boxes.clone())?),
            },
        };
        let rivers = settings.rivers.enabled.then(|| {
            Arc::new(Rivers::new(
                settings.rivers,
                seed + seed_offsets::RIVERS,
                settings.terrain.height_scale,
            ))
        });
        Ok(Self {
            rivers,
            biome_lookup,
            terrain: Terrain::new(
                seed,
                &settings.functions,
                &settings.terrain,
                &settings.climate,
                &settings.regions,
            )?,
            wobble: Simplex::new(seed + seed_offsets::WOBBLE),
            forests: Simplex::new(seed + seed_offsets::FORESTS),
            palette,
            settings,
            edits: Arc::default(),
        })
    }

    /// This world with `edits` laid over its ground (in place of any before): every height,
    /// sample, node, tree and scattered object sees them. Cheap: the noise tables are shared
    /// or copied, nothing is compiled again.
    #[must_use]
    pub fn with_edits(mut self, edits: Arc<EditSet>) -> Self {
        self.edits = edits;
        self
    }

    /// The edits laid over the ground ([`WorldGenerator::with_edits`]).
    #[must_use]
    pub fn edits(&self) -> &Arc<EditSet> {
        &self.edits
    }

    /// The settings this world was built from.
    #[must_use]
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// The compiled density stack (for previews of single nodes).
    #[must_use]
    pub fn density(&self) -> &DensityField {
        &self.terrain.density
    }

    /// The compiled volume over the height field, where the settings have one.
    pub(crate) fn volume(&self) -> Option<&crate::terrain::VolumeField> {
        self.terrain.volume.as_ref()
    }

    /// The compiled density of the world's volume (`terrain.volume.density`, read at `(x, y,
    /// z)`), where it has one: for previews of single nodes.
    #[must_use]
    pub fn volume_density(&self) -> Option<&DensityField> {
        self.volume().map(|volume| &volume.density)
    }

    /// The compiled mask of the world's volume (`terrain.volume.mask`, a height stack), where it
    /// has one: for previews of single nodes.
    #[must_use]
    pub fn volume_mask(&self) -> Option<&DensityField> {
        self.volume().map(|volume| &volume.mask)
    }

    /// The region sites.
    #[must_use]
    pub fn regions(&self) -> &RegionGrid {
        &self.terrain.regions
    }

    /// Height in world units at `(x, z)`; 0 is sea level. Cheaper than [`WorldGenerator::sample`].
    /// Always finite and within [`crate::limits::HEIGHT`].
    #[must_use]
    pub fn height_at(&self, x: f64, z: f64) -> f64 {
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        self.terrain_value(x, z) * self.settings.terrain.height_scale
    }

    /// The world's solid at `(x, y, z)`, positive solid: `ground - y` with the ground at
    /// [`WorldGenerator::height_at`], and the volume laid over it where the world has one
    /// ([`crate::terrain::VolumeSettings`]): what full-detail chunks mesh (but for rivers
    /// narrower than a tile, which chunks widen to their tile). A NaN `y` reads as 0, as NaN
    /// coordinates do.
    ///
    /// # Panics
    /// Never: nothing stops the sampling of a query (the volume is read from its lattice,
    /// [`crate::terrain::VolumeSettings::spacing`]).
    #[must_use]
    pub fn solid_at(&self, x: f64, y: f64, z: f64) -> f64 {
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        let y = if y.is_nan() { 0.0 } else { y };
        let ground = self.height_at(x, z);
        let plain = ground - y;
        let Some(volume) = self.volume() else {
            return plain;
        };
        let sites = &self.terrain.regions;
        let share = VolumeField::share(volume.mask.value(x, z, sites));
        if share == 0.0 || !volume.in_band(y, ground) {
            return plain;
        }
        let span = VerticalSpan {
            x,
            z,
            low: y,
            high: y,
        };
        let surface = |xs: &[f64], zs: &[f64]| Some(self.surface_heights(xs, zs, sites));
        let lattice = volume
            .sample_lattice(&[span], sites, &mut { surface }, &mut || true)
            .expect("nothing stops a query");
        let deviation = lattice.line(x, z).deviation(lattice.height(y));
        VolumeField::blend(plain, share, deviation)
    }

    /// [`WorldGenerator::height_at`] at every `(xs[k], zs[k])` (inside
    /// [`crate::limits::COORDINATE`]), with the batch paths: the same bits.
    #[must_use]
    pub(crate) fn surface_heights(&self, xs: &[f64], zs: &[f64], sites: &dyn Sites) -> Scratch {
        let mut heights = Scratch::zeroed(xs.len());
        self.carved_values(xs, zs, sites, RiverDetail::FIELD, &mut heights);
        self.edit_values(xs, zs, &mut heights);
        let scale = self.settings.terrain.height_scale;
        heights.iter_mut().for_each(|h| *h *= scale);
        heights
    }

    /// The terrain's value at a point inside [`crate::limits::COORDINATE`]: the density stack's,
    /// with the rivers carved in and the edits laid over.
    fn terrain_value(&self, x: f64, z: f64) -> f64 {
        let mut value = [self.terrain.density.value(x, z, &self.terrain.regions)];
        if let Some(rivers) = &self.rivers {
            rivers.carve(&self.terrain, &[x], &[z], 0.0, &mut value);
        }
        self.edit_values(&[x], &[z], &mut value);
        value[0]
    }

    /// Lays the edits over the terrain values `out` at `(xs[k], zs[k])`. A value no edit changes
    /// keeps its bits; a changed one stays within [`limits::HEIGHT`].
    pub(crate) fn edit_values(&self, xs: &[f64], zs: &[f64], out: &mut [f64]) {
        if self.edits.is_empty() || xs.is_empty() {
            return;
        }
        // A batch bins the edits near it once; one point looks them up in the set's index.
        let near = if xs.len() > 1 {
            let Some(near) = self.edits.near_points(xs, zs, NearFor::Heights) else {
                return;
            };
            Some(near)
        } else {
            None
        };
        let scale = self.settings.terrain.height_scale;
        for ((&x, &z), value) in xs.iter().zip(zs).zip(out) {
            let ground = *value * scale;
            let edited = match &near {
                Some(near) => near.height_at(x, z, ground),
                None => self.edits.height_at(x, z, ground),
            };
            self.set_edited(value, ground, edited);
        }
    }

    /// [`WorldGenerator::edit_values`] at the points of a grid, the same bits: every `(xs[i],
    /// zs[j])`, row by row ([`EditSet::on_grid`]).
    pub(crate) fn edit_grid(&self, grid: GridAxes<'_>, out: &mut [f64]) {
        let Some(edits) = self.edits.on_grid(grid.xs, grid.zs) else {
            return;
        };
        let scale = self.settings.terrain.height_scale;
        let mut heights: Vec<f64> = out.iter().map(|value| value * scale).collect();
        edits.lay(&mut heights);
        for (value, edited) in out.iter_mut().zip(heights) {
            self.set_edited(value, *value * scale, edited);
        }
    }

    /// Writes an edited height over the terrain value whose height was `ground`, where it
    /// differs: within [`limits::HEIGHT`].
    fn set_edited(&self, value: &mut f64, ground: f64, edited: f64) {
        if edited != ground {
            let scale = self.settings.terrain.height_scale;
            *value = edited.clamp(*limits::HEIGHT.start(), *limits::HEIGHT.end()) / scale;
        }
    }

    /// The terrain at every `(xs[k], zs[k])` (inside [`crate::limits::COORDINATE`]), written to
    /// `out`: the density stack's values with the batch paths, with the rivers carved in unless
    /// `rivers` omits them, and the edits laid over.
    pub(crate) fn terrain_values(
        &self,
        xs: &[f64],
        zs: &[f64],
        sites: &dyn Sites,
        rivers: RiverDetail,
        out: &mut [f64],
    ) {
        self.carved_values(xs, zs, sites, rivers, out);
        self.edit_values(xs, zs, out);
    }

    /// [`WorldGenerator::terrain_values`] before the edits: a batch read in blocks lays them
    /// over the whole batch at once ([`WorldGenerator::edit_values`]), binning them once.
    pub(crate) fn carved_values(
        &self,
        xs: &[f64],
        zs: &[f64],
        sites: &dyn Sites,
        rivers: RiverDetail,
        out: &mut [f64],
    ) {
        self.terrain.density.values(xs, zs, sites, out);
        if let (Some(network), RiverDetail::Carved { min_half_width }) = (&self.rivers, rivers) {
            network.carve(&self.terrain, xs, zs, min_half_width, out);
        }
    }

    /// What the rivers are at every `(xs[k], zs[k])` whose terrain, read with `rivers`, is
    /// `terrain[k]`; `None` without rivers or where `rivers` omits them (every point
    /// [`RiverPoint::DRY`]).
    pub(crate) fn river_points(
        &self,
        xs: &[f64],
        zs: &[f64],
        terrain: &[f64],
        rivers: RiverDetail,
    ) -> Option<Vec<RiverPoint>> {
        let RiverDetail::Carved { min_half_width } = rivers else {
            return None;
        };
        let network = self.rivers.as_ref()?;
        let mut out = vec![RiverPoint::DRY; xs.len()];
        network.points(&self.terrain, xs, zs, terrain, min_half_width, &mut out);
        Some(out)
    }

    /// [`WorldGenerator::river_points`] at one point.
    fn river_point(&self, x: f64, z: f64, terrain: f64) -> RiverPoint {
        self.river_points(&[x], &[z], &[terrain], RiverDetail::FIELD)
            .map_or(RiverPoint::DRY, |points| points[0])
    }

    /// Every river course whose spring lies in `[min.x, max.x) × [min.z, max.z)`: the points it
    /// passes from its spring to the sea or a lake, and the water level at each (density
    /// units). Empty without rivers. The rectangle is first moved inside
    /// [`crate::limits::COORDINATE`]; the work grows with its area plus the courses' reach.
    ///
    /// # Panics
    /// If the rectangle spans more than [`crate::rivers::MAX_COURSE_NODES`] river nodes on a
    /// side.
    #[must_use]
    pub fn river_courses(&self, min: [f64; 2], max: [f64; 2]) -> Vec<RiverCourse> {
        let Some(rivers) = &self.rivers else {
            return Vec::new();
        };
        let (min, max) = (min.map(clamp_coordinate), max.map(clamp_coordinate));
        rivers.courses_in(&self.terrain, min, max)
    }

    /// The river's or lake's water surface at `(x, z)`, world units, when the ground there lies
    /// under one; `None` elsewhere (the sea's surface is 0).
    #[must_use]
    pub fn river_water_at(&self, x: f64, z: f64) -> Option<f64> {
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        let terrain = self.terrain_value(x, z);
        let point = self.river_point(x, z, terrain);
        point.water
    }

    /// Everything about `(x, z)`; every number in it is finite.
    #[must_use]
    pub fn sample(&self, x: f64, z: f64) -> Sample {
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        let climate_scale = self.settings.climate.scale;
        let regions = &self.settings.regions;
        let density = self.terrain_value(x, z);
        let river = self.river_point(x, z, density);
        let noise = PointNoise {
            density,
            heat: fbm(
                &self.terrain.heat,
                x * climate_scale,
                z * climate_scale,
                3,
                0.5,
                2.0,
            ),
            wet: fbm(
                &self.terrain.wet,
                x * climate_scale,
                z * climate_scale,
                3,
                0.5,
                2.0,
            ) + self.terrain.moisture_shift(x, z, density),
        };
        let [wx, wz] = wobble_point(&self.wobble, x, z, regions.wobble, regions.wobble_scale);
        let pair = self.terrain.regions.nearest_two(wx, wz);
        let biomes = [pair.nearest, pair.second].map(|region| self.region_biome(region));
        self.finish([x, z], noise, pair, biomes, river)
    }

    /// [`WorldGenerator::sample`] at every `(xs[k], zs[k])`, with the batch (SIMD) paths and one cache of
    /// region sites: the same bits, several times faster for maps and minimaps.
    ///
    /// # Panics
    /// If `xs` and `zs` differ in length.
    #[must_use]
    pub fn sample_points(&self, xs: &[f64], zs: &[f64]) -> Vec<Sample> {
        assert_eq!(xs.len(), zs.len(), "xs and zs must have the same length");
        let xs: Vec<f64> = xs.iter().map(|&x| clamp_coordinate(x)).collect();
        let zs: Vec<f64> = zs.iter().map(|&z| clamp_coordinate(z)).collect();
        let cache = self.site_cache_for(&xs, &zs);
        self.samples(&xs, &zs, &cache)
    }

    /// A cache of the region sites that lookups at `(xs[k], zs[k])` (clamped coordinates)
    /// read.
    pub(crate) fn site_cache_for(&self, xs: &[f64], zs: &[f64]) -> SiteCache {
        let bounds = |values: &[f64]| {
            values
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                    (lo.min(v), hi.max(v))
                })
        };
        let ((x0, x1), (z0, z1)) = (bounds(xs), bounds(zs));
        // Wobbled lookups stray by up to a few wobble lengths; the cache falls back beyond it.
        let reach = self.settings.regions.wobble * 3.0;
        SiteCache::covering(
            self.terrain.regions,
            x0 - reach,
            z0 - reach,
            x1 + reach,
            z1 + reach,
            3,
        )
    }

    /// The noise that wobbles region borders.
    pub(crate) fn wobble_noise(&self) -> &Simplex {
        &self.wobble
    }

    /// The biome of `region`: the climate at its site picks it, as in the tutorial's Lab #4.
    #[must_use]
    pub fn region_biome(&self, region: RegionId) -> usize {
        self.region_biome_at(self.terrain.regions.site(region))
    }

    pub(crate) fn region_biome_at(&self, [x, z]: [f64; 2]) -> usize {
        self.biome_with(self.site_climate(x, z), |axes| self.axis_values(axes, x, z))
    }

    /// [`WorldGenerator::region_biome_at`] at every site, with the batch paths: the same bits.
    pub(crate) fn region_biomes_at(&self, sites: &[[f64; 2]]) -> Vec<usize> {
        // The batch paths read points inside the coordinate limit; the sites of the cells at
        // the world's edge may lie past it.
        if !sites
            .iter()
            .flatten()
            .all(|v| limits::COORDINATE.contains(v))
        {
            return sites
                .iter()
                .map(|&site| self.region_biome_at(site))
                .collect();
        }
        let terrain = &self.terrain;
        let xs = Scratch::collect(sites.iter().map(|s| s[0]));
        let zs = Scratch::collect(sites.iter().map(|s| s[1]));
        let field = |field: &DensityField| {
            let mut out = Scratch::zeroed(sites.len());
            field.values(&xs, &zs, &terrain.regions, &mut out);
            out
        };
        let density = field(&terrain.density);
        let heat = terrain.climate_field(&terrain.heat, &xs, &zs);
        let wet = terrain.climate_field(&terrain.wet, &xs, &zs);
        let shifts = terrain.moisture_shifts(&xs, &zs, &density);
        let axes = match &self.biome_lookup {
            BiomeLookup::Table => None,
            BiomeLookup::MultiNoise { axes, .. } => Some(axes.each_ref().map(field)),
        };
        (0..sites.len())
            .map(|k| {
                let climate = climate_from_noise(
                    heat[k],
                    // As `site_climate`: the shift is 0 when the rain shadow is off.
                    wet[k] + shifts.as_ref().map_or(0.0, |s| s[k]),
                    density[k],
                    self.settings.climate.chill,
                );
                self.biome_with(climate, |_| {
                    let axes = axes.as_ref().expect("computed under a multi-noise source");
                    [axes[0][k], axes[1][k], axes[2][k]]
                })
            })
            .collect()
    }

    /// The biome a site of `climate` picks; `axis_values` gives the site's multi-noise axes
    /// (continentalness, erosion, weirdness) from their fields, read only under that source.
    fn biome_with(
        &self,
        climate: Climate,
        axis_values: impl FnOnce(&[DensityField; 3]) -> [f64; 3],
    ) -> usize {
        match &self.biome_lookup {
            BiomeLookup::Table => {
                let table = &self.settings.biome_table;
                pick_biome(
                    climate.temperature,
                    climate.moisture,
                    &table.heat_limits,
                    &table.wet_limits,
                )
            }
            BiomeLookup::MultiNoise { axes, index } => {
                let point = climate_point(climate, axis_values(axes));
                index.boxes()[index.nearest(&point)].biome
            }
        }
    }

    /// The climate a region site at `(x, z)` picks its biome with: the tutorial's
    /// `climate_at`, with the rain shadow added to its moisture.
    fn site_climate(&self, x: f64, z: f64) -> Climate {
        let density = self.terrain.density.value(x, z, &self.terrain.regions);
        let scale = self.settings.climate.scale;
        climate_from_noise(
            fbm(&self.terrain.heat, x * scale, z * scale, 3, 0.5, 2.0),
            fbm(&self.terrain.wet, x * scale, z * scale, 3, 0.5, 2.0)
                + self.terrain.moisture_shift(x, z, density),
            density,
            self.settings.climate.chill,
        )
    }

    /// The multi-noise axes' values at `(x, z)`: continentalness, erosion, weirdness.
    fn axis_values(&self, axes: &[DensityField; 3], x: f64, z: f64) -> [f64; 3] {
        [0, 1, 2].map(|k| axes[k].value(x, z, &self.terrain.regions))
    }

    /// Under a multi-noise [`BiomeSource`], the point of its climate space a region site at
    /// `(x, z)` would be placed with: temperature, moisture, continentalness, erosion and
    /// weirdness ([`crate::multi_noise::AXIS_NAMES`]). `None` under the biome table, which
    /// has only the first two.
    #[must_use]
    pub fn climate_point(&self, x: f64, z: f64) -> Option<ClimatePoint> {
        let BiomeLookup::MultiNoise { axes, .. } = &self.biome_lookup else {
            return None;
        };
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        Some(climate_point(
            self.site_climate(x, z),
            self.axis_values(axes, x, z),
        ))
    }

    /// What the rain shadow ([`crate::climate::RainShadow`]) adds to the moisture at `(x, z)` before it is
    /// clamped to `0..=1`: positive on windward slopes, negative in the lee of higher ground, 0
    /// everywhere when the rain shadow is off.
    #[must_use]
    pub fn rain_shadow(&self, x: f64, z: f64) -> f64 {
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        self.terrain.moisture_shift(
            x,
            z,
            self.terrain.density.value(x, z, &self.terrain.regions),
        )
    }

    /// Turns one point's noise, its two nearest regions and their biomes into a [`Sample`], the
    /// edits' surfaces laid on its colour. Shared by [`WorldGenerator::sample`] and the batch
    /// paths so both give the same bits.
    pub(crate) fn finish(
        &self,
        [x, z]: [f64; 2],
        noise: PointNoise,
        pair: RegionPair,
        [biome, second_biome]: [usize; 2],
        river: RiverPoint,
    ) -> Sample {
        let climate = climate_from_noise(
            noise.heat,
            noise.wet,
            noise.density,
            self.settings.climate.chill,
        );
        let blend = blend_weight(pair.d1, pair.d2, self.settings.regions.blend_width);
        let surface = if river.water.is_some() {
            Surface::River
        } else {
            self.surface(noise.density, climate.temperature)
        };
        let height_scale = self.settings.terrain.height_scale;
        let land = self.river_land(biome, second_biome, blend, river);
        let color = self.color(surface, noise.density, climate.temperature, land, river);
        let land_color = [land[0] as f32, land[1] as f32, land[2] as f32, 1.0];
        let cover = self.edits.cover(x, z);
        Sample {
            height: noise.density * height_scale,
            density: noise.density,
            river,
            climate,
            biome,
            second_biome,
            blend,
            region: pair.nearest,
            second_region: pair.second,
            surface,
            color: cover.map_or(color, |cover| cover.over(color)),
            land_color: cover.map_or(land_color, |cover| cover.over(land_color)),
            cover: cover.map_or(0.0, |cover| cover.weight),
        }
    }

    pub(crate) fn surface(&self, density: f64, temperature: f64) -> Surface {
        let s = &self.settings.surface;
        if density < s.deep_water {
            Surface::DeepWater
        } else if density < 0.0 {
            Surface::ShallowWater
        } else if density < s.beach {
            Surface::Beach
        } else if temperature < s.snow_temperature {
            Surface::Snow
        } else {
            Surface::Land
        }
    }

    /// Ground colour: water by depth, land (`land`) fading into snow over a narrow band of
    /// temperature and into sand near the beach line, so no edge is a stair-step.
    fn color(
        &self,
        surface: Surface,
        density: f64,
        temperature: f64,
        land: [f64; 3],
        river: RiverPoint,
    ) -> [f32; 4] {
        let s = &self.settings.surface;
        let p = &self.palette;
        let rgb = match surface {
            Surface::DeepWater => p.deep_water,
            Surface::ShallowWater => {
                let depth = (density / s.deep_water).clamp(0.0, 1.0);
                lerp3(p.shallow_water, p.deep_water, depth)
            }
            Surface::River => {
                let surface = river.water.unwrap_or(0.0) / self.settings.terrain.height_scale;
                let depth = ((surface - density) / -s.deep_water).clamp(0.0, 1.0);
                lerp3(p.shallow_water, p.deep_water, depth)
            }
            Surface::Beach | Surface::Land | Surface::Snow => {
                let snow = smoothstep(
                    s.snow_temperature + SNOW_BAND,
                    s.snow_temperature - SNOW_BAND,
                    temperature,
                );
                let ground = lerp3(land, p.snow, snow);
                // Sand fades into the land above it, so shores show no stair-steps between vertices.
                let sand = 1.0 - smoothstep(s.beach * 0.5, s.beach * 1.5, density);
                lerp3(ground, p.beach, sand)
            }
        };
        [rgb[0] as f32, rgb[1] as f32, rgb[2] as f32, 1.0]
    }

    /// The land colour of a point `blend` inside `biome`'s region, next to `second_biome`'s.
    fn land(&self, biome: usize, second_biome: usize, blend: f64) -> [f64; 3] {
        let biomes = &self.palette.biomes;
        lerp3(biomes[second_biome], biomes[biome], blend)
    }

    /// [`WorldGenerator::land`] with river beds and banks in sand: what a terrain shader
    /// shows under the river's water and along its edges.
    fn river_land(
        &self,
        biome: usize,
        second_biome: usize,
        blend: f64,
        river: RiverPoint,
    ) -> [f64; 3] {
        let land = self.land(biome, second_biome, blend);
        let sand = if river.water.is_some() {
            0.6
        } else {
            0.35 * river.bank
        };
        lerp3(land, self.palette.beach, sand)
    }

    /// The climate and wobble noise of many points, with the batch paths.
    fn batch_noise(&self, xs: &[f64], zs: &[f64]) -> BatchNoise {
        let heat = self.terrain.climate_field(&self.terrain.heat, xs, zs);
        let wet = self.terrain.climate_field(&self.terrain.wet, xs, zs);
        let [wx, wz] = self.wobbled_points(xs, zs);
        BatchNoise { heat, wet, wx, wz }
    }

    /// The points region lookups read: every `(xs[k], zs[k])` pushed by the border wobble
    /// ([`wobble_point`], with the batch paths).
    pub(crate) fn wobbled_points(&self, xs: &[f64], zs: &[f64]) -> [Scratch; 2] {
        let regions = &self.settings.regions;
        let warp = WarpParams::wobble(regions.wobble, regions.wobble_scale);
        let mut wx = Scratch::zeroed(xs.len());
        let mut wz = Scratch::zeroed(xs.len());
        self.wobble
            .warp_offset_points(xs, zs, &warp, &mut wx, &mut wz);
        for k in 0..xs.len() {
            wx[k] = xs[k] + regions.wobble * wx[k];
            wz[k] = zs[k] + regions.wobble * wz[k];
        }
        [wx, wz]
    }

    /// The temperature ([`Climate::temperature`] of [`WorldGenerator::sample`]) at every
    /// `(xs[k], zs[k])` whose density is `density[k]`, with the batch paths.
    pub(crate) fn temperatures(&self, xs: &[f64], zs: &[f64], density: &[f64]) -> Scratch {
        let mut heat = self.terrain.climate_field(&self.terrain.heat, xs, zs);
        for (h, &d) in heat.iter_mut().zip(density) {
            // Moisture does not shape temperature: 0 stands in for it.
            *h = climate_from_noise(*h, 0.0, d, self.settings.climate.chill).temperature;
        }
        heat
    }

    /// Samples many points with the batch paths, region sites from `cache`; the same bits as
    /// [`WorldGenerator::sample`] at each point (the points must lie in [`crate::limits::COORDINATE`]).
    pub(crate) fn samples(&self, xs: &[f64], zs: &[f64], cache: &SiteCache) -> Vec<Sample> {
        let mut density = Scratch::zeroed(xs.len());
        self.terrain_values(xs, zs, cache, RiverDetail::FIELD, &mut density);
        self.samples_with_density(xs, zs, &density, cache)
    }

    /// [`WorldGenerator::samples`] for points whose density is already known.
    pub(crate) fn samples_with_density(
        &self,
        xs: &[f64],
        zs: &[f64],
        density: &[f64],
        cache: &SiteCache,
    ) -> Vec<Sample> {
        let mut out = Vec::with_capacity(xs.len());
        let shifts = self.terrain.moisture_shifts(xs, zs, density);
        let rivers = self.river_points(xs, zs, density, RiverDetail::FIELD);
        let known = Known {
            density,
            shifts: shifts.as_deref(),
            rivers: rivers.as_deref(),
        };
        self.visit_samples(xs, zs, &known, cache, |_, sample| out.push(sample));
        out
    }

    /// Hands the sample of every point, in order, to `visit` (point index, sample): what
    /// [`WorldGenerator::samples_with_density`] collects, without holding them all at once.
    pub(crate) fn visit_samples(
        &self,
        xs: &[f64],
        zs: &[f64],
        known: &Known<'_>,
        cache: &SiteCache,
        mut visit: impl FnMut(usize, Sample),
    ) {
        let Known {
            density,
            shifts,
            rivers,
        } = *known;
        let batch = self.batch_noise(xs, zs);
        let mut biomes = RegionBiomes::new(cache);
        let mut nearest = NearestTwoRun::new(cache);
        let (mut pairs, mut regions) = (Vec::new(), Vec::new());
        // A block at a time: the regions met in it are resolved together.
        for start in (0..xs.len()).step_by(REGION_BLOCK) {
            let block = start..(start + REGION_BLOCK).min(xs.len());
            pairs.clear();
            pairs.extend(
                block
                    .clone()
                    .map(|k| nearest.nearest_two(batch.wx[k], batch.wz[k])),
            );
            regions.clear();
            regions.extend(pairs.iter().flat_map(|p| [p.nearest, p.second]));
            let found = biomes.resolve(self, &regions, cache);
            for ((k, &pair), found) in block.zip(&pairs).zip(found.chunks(2)) {
                let noise = PointNoise {
                    density: density[k],
                    heat: batch.heat[k],
                    wet: shifts.map_or(batch.wet[k], |shifts| batch.wet[k] + shifts[k]),
                };
                let river = rivers.map_or(RiverPoint::DRY, |r| r[k]);
                let at = [xs[k], zs[k]];
                visit(k, self.finish(at, noise, pair, [found[0], found[1]], river));
            }
        }
    }
}

/// Ground that holds a tree or a scattered object: its terrain (density units) and temperature.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ground {
    pub(crate) density: f64,
    pub(crate) temperature: f64,
}

/// Distance (world units) over which [`WorldGenerator::standing_ground`] measures slope.
const SLOPE_STEP: f64 = 1.0;

impl WorldGenerator {
    /// The ground at every `(xs[k], zs[k])` where something may stand on it: out of the sea,
    /// rivers and lakes, where `water` says with respect to beaches and banks (trees stand on
    /// [`WaterRule::Dry`] ground), no steeper than `max_slope_degrees` (measured a metre east
    /// and south), and where the world's volume leaves the ground as the height field
    /// ([`crate::terrain::VolumeSettings`]); `None` elsewhere. Trees and scattered objects both
    /// stand by it.
    pub(crate) fn standing_ground(
        &self,
        xs: &[f64],
        zs: &[f64],
        max_slope_degrees: f64,
        water: WaterRule,
        cache: &SiteCache,
    ) -> Vec<Option<Ground>> {
        let (mut sx, mut sz) = (
            Vec::with_capacity(3 * xs.len()),
            Vec::with_capacity(3 * xs.len()),
        );
        for (&x, &z) in xs.iter().zip(zs) {
            sx.extend_from_slice(&[x, clamp_coordinate(x + SLOPE_STEP), x]);
            sz.extend_from_slice(&[z, z, clamp_coordinate(z + SLOPE_STEP)]);
        }
        let mut density = Scratch::zeroed(sx.len());
        self.terrain_values(&sx, &sz, cache, RiverDetail::FIELD, &mut density);
        let rivers = self.river_points(&sx, &sz, &density, RiverDetail::FIELD);
        let height_scale = self.settings.terrain.height_scale;
        let max_gradient = crate::math::tan(max_slope_degrees.to_radians());
        let beach = self.settings.surface.beach;
        let mut holds: Vec<bool> = (0..xs.len())
            .map(|k| {
                let here = density[3 * k];
                let gx = (density[3 * k + 1] - here) * height_scale / SLOPE_STEP;
                let gz = (density[3 * k + 2] - here) * height_scale / SLOPE_STEP;
                let river = rivers.as_ref().map_or(RiverPoint::DRY, |r| r[3 * k]);
                // Sea and beach come from height alone.
                let shore = here < beach || river.bank >= 0.5;
                let placed = match water {
                    WaterRule::Dry => !shore,
                    WaterRule::Shore => shore,
                    WaterRule::Land => true,
                };
                let wet = here < 0.0 || river.water.is_some();
                // Steep ground is left bare.
                placed && !wet && (gx * gx + gz * gz).sqrt() <= max_gradient
            })
            .collect();
        let here = Scratch::collect((0..xs.len()).map(|k| density[3 * k]));
        if let Some(volume) = self.volume() {
            let at: Vec<usize> = (0..xs.len()).filter(|&k| holds[k]).collect();
            let pick = |values: &[f64]| Scratch::collect(at.iter().map(|&k| values[k]));
            let grounds = Scratch::collect(at.iter().map(|&k| here[k] * height_scale));
            let surface = |xs: &[f64], zs: &[f64]| self.surface_heights(xs, zs, cache);
            let leaves = volume.leaves_ground(&pick(xs), &pick(zs), &grounds, cache, &surface);
            for (&k, leaves) in at.iter().zip(leaves) {
                holds[k] = leaves;
            }
        }
        let kept = |values: &[f64]| {
            Scratch::collect((0..xs.len()).filter(|&k| holds[k]).map(|k| values[k]))
        };
        let temperature = self.temperatures(&kept(xs), &kept(zs), &kept(&here));
        let mut temperatures = temperature.iter();
        holds
            .iter()
            .enumerate()
            .map(|(k, &holds)| {
                holds.then(|| Ground {
                    density: here[k],
                    temperature: *temperatures.next().expect("one per point that holds"),
                })
            })
            .collect()
    }
}

/// How a read of the terrain carves the rivers in: nodes coarser than rivers are drawn on
/// ([`WorldGenerator::draws_rivers_at`]) read the land before them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RiverDetail {
    /// Carved, every channel at least `min_half_width` wide each side of its centre line: a
    /// vertex grid's spacing, so no channel falls between its vertices.
    Carved {
        min_half_width: f64,
    },
    Omitted,
}

impl RiverDetail {
    /// The rivers as they are: what the point queries read.
    pub(crate) const FIELD: Self = Self::Carved {
        min_half_width: 0.0,
    };
}

/// What a caller of [`WorldGenerator::visit_samples`] knows at its points already.
#[derive(Clone, Copy)]
pub(crate) struct Known<'a> {
    /// The terrain (density units).
    pub(crate) density: &'a [f64],
    /// The rain shadow's moisture shifts ([`WorldGenerator::moisture_shift`]), or `None` for
    /// callers that read no moisture: node builds, whose colours and trees take moisture from
    /// their regions' sites, where it is exact.
    pub(crate) shifts: Option<&'a [f64]>,
    /// The rivers there, or `None` where none is read (no rivers, or a node coarser than they
    /// are drawn on): every point dry.
    pub(crate) rivers: Option<&'a [RiverPoint]>,
}

/// [`WorldGenerator::batch_noise`]'s answers: climate noise and wobbled lookup points.
struct BatchNoise {
    heat: Scratch,
    wet: Scratch,
    wx: Scratch,
    wz: Scratch,
}

/// Points whose regions [`RegionBiomes::resolve`] takes at once: enough to batch the sites
/// they meet, few enough to stay in cache.
const REGION_BLOCK: usize = 512;

/// The biomes of the regions a batch of points touches, each computed once: regions inside the
/// site cache's rectangle sit in a slot per cell (one lookup per point, however many regions a
/// chunk holds), the rare ones outside in a map.
pub(crate) struct RegionBiomes {
    slots: Vec<u16>,
    outside: HashMap<RegionId, u16>,
}

impl RegionBiomes {
    const UNSET: u16 = u16::MAX;
    /// Met in this call, computed at its end.
    const PENDING: u16 = u16::MAX - 1;

    pub(crate) fn new(cache: &SiteCache) -> Self {
        Self {
            slots: vec![Self::UNSET; cache.cells()],
            outside: HashMap::new(),
        }
    }

    /// The biome of each of `regions`; those not met before are computed together, with the
    /// batch paths (a chunk over small, wobbled regions meets thousands, each reading the
    /// rain shadow's steps upwind of its site).
    pub(crate) fn resolve(
        &mut self,
        generator: &WorldGenerator,
        regions: &[RegionId],
        cache: &SiteCache,
    ) -> Vec<usize> {
        let (mut new, mut waiting) = (Vec::new(), Vec::new());
        let mut found = Vec::with_capacity(regions.len());
        for (n, &region) in regions.iter().enumerate() {
            let slot = match cache.index(region) {
                Some(i) => &mut self.slots[i],
                None => self.outside.entry(region).or_insert(Self::UNSET),
            };
            if *slot == Self::UNSET {
                *slot = Self::PENDING;
                new.push(region);
            }
            if *slot == Self::PENDING {
                waiting.push(n);
            }
            found.push(usize::from(*slot));
        }
        if !new.is_empty() {
            let sites: Vec<[f64; 2]> = new.iter().map(|&region| cache.site(region)).collect();
            for (region, biome) in new.into_iter().zip(generator.region_biomes_at(&sites)) {
                // Validation caps the table at (8 + 1)² biomes, far below the sentinels.
                *self.slot(region, cache) = biome as u16;
            }
            for n in waiting {
                found[n] = usize::from(*self.slot(regions[n], cache));
            }
        }
        found
    }

    fn slot(&mut self, region: RegionId, cache: &SiteCache) -> &mut u16 {
        match cache.index(region) {
            Some(i) => &mut self.slots[i],
            None => self
                .outside
                .get_mut(&region)
                .expect("met in this call or before"),
        }
    }
}

/// The point of the multi-noise climate space of a site of `climate` whose other axes read
/// `[continentalness, erosion, weirdness]` ([`crate::multi_noise::AXIS_NAMES`]).
fn climate_point(climate: Climate, [c, e, w]: [f64; 3]) -> ClimatePoint {
    [climate.temperature, climate.moisture, c, e, w]
}

fn lerp3(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_beach_on_flat_sea_level_ground_has_finite_colours() {
        let mut settings = WorldSettings::default();
        settings.surface.beach = 0.0;
        settings.terrain.density = crate::density::DensityNode::constant(0.0);
        let world = WorldGenerator::new(settings).unwrap();
        let sample = world.sample(3.0, 4.0);
        assert_eq!(sample.surface, Surface::Land);
        assert!(
            sample.color.iter().all(|c| c.is_finite()),
            "{:?}",
            sample.color
        );
    }
}
