//! [`WorldSettings`]: everything that shapes a world, with defaults, validation and RON presets.

use std::fmt;
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};

use crate::density::{DensityNode, FieldValue, Shape};
use crate::multi_noise::{MultiNoise, check_boxes};
use crate::rivers::RiverSettings;
use crate::scatter::{ScatterKind, ScatterSettings, ScatterSpacing};
use crate::tutorial::BIOMES;

/// The ranges [`WorldSettings::validate`] accepts, for sliders that must stay inside them.
pub mod limits {
    use std::ops::RangeInclusive;

    /// World seeds: JavaScript's safe integers, so the tutorial's arithmetic stays exact.
    pub const SEED: RangeInclusive<i64> = -9_007_199_254_740_991..=9_007_199_254_740_991;
    /// Seed offsets of density nodes.
    pub const SEED_OFFSET: RangeInclusive<i64> = -1_000_000..=1_000_000;
    /// Frequencies (1 / world units) of noise fields.
    pub const SCALE: RangeInclusive<f64> = 1e-6..=10.0;
    /// Octaves of any fBm.
    pub const OCTAVES: RangeInclusive<u32> = 1..=16;
    /// fBm persistence.
    pub const PERSISTENCE: RangeInclusive<f64> = 0.05..=1.0;
    /// fBm lacunarity.
    pub const LACUNARITY: RangeInclusive<f64> = 1.0..=4.0;
    /// Warp levels.
    pub const WARP_LEVELS: RangeInclusive<u32> = 0..=2;
    /// Warp strength, world units.
    pub const WARP_STRENGTH: RangeInclusive<f64> = 0.0..=10_000.0;
    /// Values of constants, clamp bounds and similar node values.
    pub const NODE_VALUE: RangeInclusive<f64> = -100.0..=100.0;
    /// Mix amounts.
    pub const MIX_AMOUNT: RangeInclusive<f64> = 0.0..=1.0;
    /// Smooth-clamp rounding width.
    pub const SMOOTHNESS: RangeInclusive<f64> = 0.0..=10.0;
    /// Cell node radius, world units.
    pub const CELL_RADIUS: RangeInclusive<f64> = 0.01..=100_000.0;
    /// Depth of an erosion node's coarsest gullies, density units.
    pub const GULLY_DEPTH: RangeInclusive<f64> = 0.0..=10.0;
    /// How many times finer than its mountains an erosion node's coarsest gullies are.
    pub const GULLY_SCALE: RangeInclusive<f64> = 1.0..=64.0;
    /// Layers of gullies of an erosion node.
    pub const GULLY_OCTAVES: RangeInclusive<u32> = 1..=8;
    /// The slope at which an erosion node's gullies are half their depth.
    pub const FLAT_SLOPE: RangeInclusive<f64> = 0.001..=100.0;
    /// Nodes in one density stack.
    pub const MAX_NODES: usize = 64;
    /// What every node of a density stack may give, wherever it is sampled: validation bounds
    /// each node's values from its inputs' (interval arithmetic), so a stack whose values could
    /// leave this range is refused even when each of its fields is in range.
    pub const DENSITY: RangeInclusive<f64> = -1.0e6..=1.0e6;
    /// Terrain heights in world units (density times height scale): `f32` holds them to within
    /// a sixteenth of a unit.
    pub const HEIGHT: RangeInclusive<f64> = -1.0e6..=1.0e6;
    /// World coordinates: every field is defined on `[-2^47, 2^47]` on both axes, where chunk
    /// vertex positions (multiples of 1/64) are exact in `f64`. Points beyond are read at the
    /// nearest point inside, and NaN is read as 0, so every answer is finite.
    pub const COORDINATE: RangeInclusive<f64> = -140_737_488_355_328.0..=140_737_488_355_328.0;
    /// The largest preset text [`super::WorldSettings::from_ron`] reads, in bytes (the default
    /// preset is about 6 KB).
    pub const MAX_PRESET_BYTES: usize = 1 << 20;
    /// Metres per density unit.
    pub const HEIGHT_SCALE: RangeInclusive<f64> = 0.01..=10_000.0;
    /// Climate frequency, 1 / world units.
    pub const CLIMATE_SCALE: RangeInclusive<f64> = 1e-6..=1.0;
    /// Mountain chill: temperature lost per density unit above sea level.
    pub const CHILL: RangeInclusive<f64> = 0.0..=4.0;
    /// Rain shadow strength: moisture per density unit of ground above or below the ground
    /// upwind.
    pub const RAIN_SHADOW_STRENGTH: RangeInclusive<f64> = 0.0..=4.0;
    /// The wind's direction, degrees.
    pub const WIND_DEGREES: RangeInclusive<f64> = -360.0..=360.0;
    /// How far upwind a rain shadow reads the ground, world units.
    pub const RAIN_SHADOW_REACH: RangeInclusive<f64> = 1.0..=100_000.0;
    /// Upwind points a rain shadow reads.
    pub const RAIN_SHADOW_STEPS: RangeInclusive<u32> = 1..=32;
    /// River node spacing, world units.
    pub const RIVER_SPACING: RangeInclusive<f64> = 16.0..=4096.0;
    /// Chance that a node which may be a spring is one.
    pub const RIVER_SPRINGS: RangeInclusive<f64> = 0.0..=1.0;
    /// Height of springs above the sea, world units.
    pub const SPRING_HEIGHT: RangeInclusive<f64> = 0.0..=10_000.0;
    /// Moisture springs need.
    pub const DRY_MOISTURE: RangeInclusive<f64> = 0.0..=1.0;
    /// Nodes a spring's course may run.
    pub const RIVER_LENGTH: RangeInclusive<u32> = 1..=64;
    /// Width of a one-spring river, world units (at most an eighth of the node spacing).
    pub const RIVER_WIDTH: RangeInclusive<f64> = 0.5..=200.0;
    /// Depth of river channels, world units.
    pub const RIVER_DEPTH: RangeInclusive<f64> = 0.05..=100.0;
    /// Radius of a one-spring lake, world units (at most a quarter of the node spacing).
    pub const LAKE_RADIUS: RangeInclusive<f64> = 1.0..=1000.0;
    /// Reach of valley walls beyond the banks, world units.
    pub const VALLEY_WIDTH: RangeInclusive<f64> = 1.0..=2000.0;
    /// Rise of valley walls per unit of distance.
    pub const VALLEY_SLOPE: RangeInclusive<f64> = 0.05..=10.0;
    /// Height of river banks, world units.
    pub const BANK_HEIGHT: RangeInclusive<f64> = 0.0..=50.0;
    /// How far courses bend between nodes, as a share of the spacing.
    pub const MEANDER: RangeInclusive<f64> = 0.0..=0.45;
    /// Scatter spacing, world units.
    pub const SCATTER_SPACING: RangeInclusive<f64> = 0.5..=1000.0;
    /// How many times its narrowest spacing a kind's widest may be, over all biomes: a
    /// candidate looks this many narrow cells around for conflicts.
    pub const SCATTER_SPREAD: f64 = 8.0;
    /// Biome-table thresholds.
    pub const THRESHOLD: RangeInclusive<f64> = 0.0..=1.0;
    /// Thresholds per biome-table axis.
    pub const MAX_THRESHOLDS: usize = 8;
    /// Biomes in one world: as many as the largest table holds.
    pub const MAX_BIOMES: usize = (MAX_THRESHOLDS + 1) * (MAX_THRESHOLDS + 1);
    /// Trees per candidate spot in a biome.
    pub const TREE_DENSITY: RangeInclusive<f64> = 0.0..=1.0;
    /// Species weights.
    pub const SPECIES_WEIGHT: RangeInclusive<f64> = 0.0..=1000.0;
    /// Region cell size, world units.
    pub const CELL_SIZE: RangeInclusive<f64> = 8.0..=100_000.0;
    /// Site jitter, as a fraction of a cell.
    pub const JITTER: RangeInclusive<f64> = 0.0..=1.0;
    /// Border wobble, world units.
    pub const WOBBLE: RangeInclusive<f64> = 0.0..=10_000.0;
    /// Border blend width, world units.
    pub const BLEND_WIDTH: RangeInclusive<f64> = 0.0..=10_000.0;
    /// Deep-water threshold (density units, below sea level at 0).
    pub const DEEP_WATER: RangeInclusive<f64> = -10.0..=-0.0001;
    /// Beach threshold (density units, at or above sea level at 0).
    pub const BEACH: RangeInclusive<f64> = 0.0..=10.0;
    /// Temperature under which land is snow.
    pub const SNOW_TEMPERATURE: RangeInclusive<f64> = 0.0..=1.0;
    /// Tree spots one chunk may hold (tree cells it touches): bounds a chunk's tree work and the
    /// entities spawned for it. Checked with the chunk layout
    /// ([`crate::ChunkLayout::validate_with`]).
    pub const MAX_TREE_SPOTS: f64 = 16_384.0;
    /// Tree grid spacing, world units.
    pub const TREE_SPACING: RangeInclusive<f64> = 1.0..=1_000.0;
    /// Tree jitter: at most this, so trees keep `(1 - jitter) * spacing` apart.
    pub const TREE_JITTER: RangeInclusive<f64> = 0.0..=0.95;
    /// Steepest slope that carries trees, degrees.
    pub const MAX_SLOPE: RangeInclusive<f64> = 0.0..=90.0;
    /// Tree size factors.
    pub const TREE_SCALE: RangeInclusive<f64> = 0.05..=20.0;
    /// How strongly trees gather into forests.
    pub const CLUMPING: RangeInclusive<f64> = 0.0..=1.0;
}

/// An sRGB colour with 8 bits per channel, as artists write them.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The colour in linear RGB, 0 to 1 per channel, for blending and vertex colours.
    #[must_use]
    pub fn to_linear(self) -> [f64; 3] {
        fn channel(c: u8) -> f64 {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                crate::math::pow((c + 0.055) / 1.055, 2.4)
            }
        }
        [channel(self.0), channel(self.1), channel(self.2)]
    }

    /// The nearest 8-bit sRGB colour to a linear RGB colour (channels clamped to 0 to 1): for
    /// drawing [`crate::Sample::color`] into pictures.
    #[must_use]
    pub fn from_linear(linear: [f32; 3]) -> Self {
        let channel = |c: f32| {
            let c = c.clamp(0.0, 1.0);
            let s = if c <= 0.003_130_8 {
                c * 12.92
            } else {
                1.055 * crate::math::powf(c, 1.0 / 2.4) - 0.055
            };
            (s * 255.0).round() as u8
        };
        Rgb(channel(linear[0]), channel(linear[1]), channel(linear[2]))
    }
}

/// What grows in a biome.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TreeSpecies {
    /// Tall, narrow evergreen: taiga and forests.
    Conifer,
    /// A conifer under snow: cold forests and snowy slopes.
    SnowyConifer,
    /// Round-crowned deciduous tree.
    Broadleaf,
    /// Slim, pale-trunked deciduous tree.
    Birch,
    /// Low, wide, drooping tree of wetlands.
    SwampTree,
    /// Flat-topped savanna tree.
    Acacia,
    /// Tall bare trunk with a fan of leaves.
    Palm,
    /// Desert column with arms.
    Cactus,
}

impl TreeSpecies {
    /// Every species, in a fixed order (renderers index meshes by it).
    pub const ALL: [TreeSpecies; 8] = [
        TreeSpecies::Conifer,
        TreeSpecies::SnowyConifer,
        TreeSpecies::Broadleaf,
        TreeSpecies::Birch,
        TreeSpecies::SwampTree,
        TreeSpecies::Acacia,
        TreeSpecies::Palm,
        TreeSpecies::Cactus,
    ];

    /// This species' position in [`TreeSpecies::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One species a biome grows, with its share.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeciesWeight {
    /// The species.
    pub species: TreeSpecies,
    /// Its relative share among the biome's species.
    pub weight: f64,
}

/// One biome: a cell of the biome table.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Biome {
    /// Name shown in the panel and to game code.
    pub name: String,
    /// Ground colour (sRGB).
    pub color: Rgb,
    /// Chance (0 to 1) that a tree spot in this biome carries a tree.
    pub tree_density: f64,
    /// The species that grow here and their shares.
    pub trees: Vec<SpeciesWeight>,
    /// The rocks, bushes and grass scattered here, each kind at most once, with its spacing
    /// ([`crate::scatter`]); none when left out.
    #[serde(default)]
    pub scatter: Vec<ScatterSpacing>,
}

/// The height field.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TerrainSettings {
    /// The density stack whose value is the height; 0 is sea level.
    pub density: DensityNode,
    /// Metres (world units) per density unit.
    pub height_scale: f64,
}

/// Temperature and moisture, as in the tutorial's Lab #3.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClimateSettings {
    /// Frequency of the climate fields in 1 / world units (climate zones are about
    /// `1 / scale` across).
    pub scale: f64,
    /// Temperature lost per density unit above sea level: snowy peaks.
    pub chill: f64,
    /// Drier lee sides behind mountains and wetter windward slopes; off by default.
    pub rain_shadow: RainShadow,
}

/// A prevailing wind that drops its rain on the slopes it climbs and reaches the far side of
/// mountains dry ([`RainShadow::shift`] says by how much). The upwind ground is read at `steps`
/// points spread over `reach`, so the moisture of a point depends on a fixed stretch of terrain
/// only and stays seamless.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RainShadow {
    /// Moisture per density unit: of height above the ground upwind (wetter), and of upwind
    /// ground above the point (drier); 0 switches the rain shadow off.
    pub strength: f64,
    /// The direction the wind blows toward, in degrees: 0 is +x, 90 is +z.
    pub wind_degrees: f64,
    /// How far upwind the wind remembers mountains, in world units.
    pub reach: f64,
    /// Upwind points read, spread evenly over `reach`.
    pub steps: u32,
}

impl Default for RainShadow {
    fn default() -> Self {
        Self {
            strength: 0.0,
            wind_degrees: 0.0,
            reach: 3000.0,
            steps: 8,
        }
    }
}

impl RainShadow {
    /// The unit vector the wind blows along, `(x, z)`.
    #[must_use]
    pub fn wind(&self) -> [f64; 2] {
        let angle = self.wind_degrees.to_radians();
        [crate::math::cos(angle), crate::math::sin(angle)]
    }

    /// How far back each point read upwind lies, `(x, z)`, nearest first: a point's upwind
    /// ground is read at the point less each of these.
    pub(crate) fn upwind_offsets(&self) -> impl Iterator<Item = [f64; 2]> {
        let [wx, wz] = self.wind();
        let step = self.reach / f64::from(self.steps);
        (1..=self.steps).map(move |k| {
            let back = step * f64::from(k);
            [wx * back, wz * back]
        })
    }

    /// The change to moisture at a point of density `here`, from the densities `upwind` of the
    /// ground at each step upwind, nearest first (sea counts as level ground at 0), with
    /// weights falling linearly with distance (the nearest 1, the farthest `1 / steps`). Air
    /// climbing to the point rains on it: wetter by how far the point stands above the
    /// weighted mean of the ground upwind. Air that crossed higher ground arrives dry: drier by
    /// the largest weighted height of upwind ground above the point, so a range shadows its
    /// lee, less so farther away, and sea beyond it does not lift the shadow.
    #[must_use]
    pub fn shift(&self, here: f64, upwind: impl IntoIterator<Item = f64>) -> f64 {
        let here = here.max(0.0);
        let steps = f64::from(self.steps);
        let (mut total, mut weights, mut shade) = (0.0, 0.0, 0.0f64);
        for (k, ground) in upwind.into_iter().enumerate() {
            let (weight, ground) = (1.0 - k as f64 / steps, ground.max(0.0));
            total += weight * ground;
            weights += weight;
            shade = shade.max(weight * (ground - here));
        }
        if weights == 0.0 {
            return 0.0;
        }
        let climb = (here - total / weights).max(0.0);
        self.strength * (climb - shade)
    }
}

/// Whittaker-style biome table: temperature picks the row, moisture the column.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BiomeTable {
    /// Temperature thresholds between rows, ascending.
    pub heat_limits: Vec<f64>,
    /// Moisture thresholds between columns, ascending.
    pub wet_limits: Vec<f64>,
    /// `(heat_limits.len() + 1) * (wet_limits.len() + 1)` biomes, row by row, cold to hot, each
    /// row dry to wet.
    pub biomes: Vec<Biome>,
}

/// How a region's biome is picked from the climate at its site.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[expect(
    clippy::large_enum_variant,
    reason = "settings are built and cloned rarely; a box would cost reflection and presets a layer"
)]
pub enum BiomeSource {
    /// The biome table's thresholds: temperature picks the row, moisture the column (the
    /// tutorial's Lab #3).
    #[default]
    Table,
    /// The biome box the site's climate point fits best, over five climate axes.
    MultiNoise(MultiNoise),
}

/// Voronoi regions with wobbled, blended borders, as in the tutorial's Lab #4.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegionSettings {
    /// Width of the grid cells that each hold one region site, world units.
    pub cell_size: f64,
    /// How far sites stray from their cell's centre: 0 is a square grid, 1 is anywhere in the cell.
    pub jitter: f64,
    /// How far borders wander, world units.
    pub wobble: f64,
    /// Frequency of the wobble field, 1 / world units.
    pub wobble_scale: f64,
    /// Width over which neighbouring regions blend, world units.
    pub blend_width: f64,
}

/// Water, beaches and snow: decided from height (and cold) before the biome.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SurfaceSettings {
    /// Density below which water is deep (sea level is 0).
    pub deep_water: f64,
    /// Density from sea level up to which land is beach.
    pub beach: f64,
    /// Temperature below which land is snow.
    pub snow_temperature: f64,
    /// Colour of the deep sea floor.
    pub deep_water_color: Rgb,
    /// Colour of shallow sea floor.
    pub shallow_water_color: Rgb,
    /// Colour of beaches.
    pub beach_color: Rgb,
    /// Colour of snow.
    pub snow_color: Rgb,
}

/// Tree placement.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeSettings {
    /// Whether chunks carry trees at all.
    pub enabled: bool,
    /// Width of the grid cells that each offer one tree spot, world units.
    pub spacing: f64,
    /// How far a spot strays from its cell's centre (fraction of a cell); trees stay at least
    /// `(1 - jitter) * spacing` apart.
    pub jitter: f64,
    /// Steepest ground (degrees) that carries trees.
    pub max_slope_degrees: f64,
    /// Smallest size factor.
    pub min_scale: f64,
    /// Largest size factor.
    pub max_scale: f64,
    /// 0 spreads trees evenly; 1 gathers them into forests and clearings.
    pub clumping: f64,
}

/// Everything that shapes a world. Two worlds with equal settings are identical.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorldSettings {
    /// The world seed. Every layer is seeded from it.
    pub seed: i64,
    /// The height field.
    pub terrain: TerrainSettings,
    /// Temperature and moisture.
    pub climate: ClimateSettings,
    /// The biomes, and the table that picks them by temperature and moisture.
    #[serde(alias = "biomes")]
    pub biome_table: BiomeTable,
    /// What picks a region's biome: the table (the default) or a multi-noise source.
    pub biome_source: BiomeSource,
    /// Regions and their borders.
    pub regions: RegionSettings,
    /// Rivers and lakes (off by default).
    pub rivers: RiverSettings,
    /// Rocks, bushes and grass (the biomes say what and how far apart).
    pub scatter: ScatterSettings,
    /// Water, beaches and snow.
    pub surface: SurfaceSettings,
    /// Trees.
    pub trees: TreeSettings,
}

impl Default for TerrainSettings {
    /// Continents with warped coasts and ridged mountain ranges that rise from the land.
    fn default() -> Self {
        use crate::density::{Add, Clamp, Multiply, SmoothClamp, Warp};
        let constant = DensityNode::constant;
        let continents = DensityNode::new(
            Warp {
                seed_offset: 10,
                levels: 1,
                strength: 260.0,
                scale: 0.0009,
                octaves: 3,
            },
            [DensityNode::fbm(0, 0.0005, 7, Shape::Normal)],
        );
        let ranges = DensityNode::new(
            Clamp {
                low: 0.0,
                high: 1.0,
            },
            [DensityNode::fbm(11, 0.0016, 5, Shape::Ridged)],
        );
        // A coarse copy of the continent noise keeps mountain ranges on land.
        let inland = DensityNode::new(
            SmoothClamp {
                low: 0.0,
                high: 1.0,
                smoothness: 0.3,
            },
            [DensityNode::new(
                Multiply {},
                [DensityNode::fbm(0, 0.0005, 3, Shape::Normal), constant(4.0)],
            )],
        );
        let land = DensityNode::new(Multiply {}, [continents, constant(1.6)]);
        let mountains = DensityNode::new(
            Multiply {},
            [
                DensityNode::new(Multiply {}, [ranges, constant(0.6)]),
                inland,
            ],
        );
        Self {
            density: DensityNode::new(
                SmoothClamp {
                    low: -0.45,
                    high: 1.4,
                    smoothness: 0.2,
                },
                [DensityNode::new(Add {}, [land, mountains])],
            ),
            height_scale: 110.0,
        }
    }
}

impl Default for ClimateSettings {
    fn default() -> Self {
        Self {
            scale: 0.0006,
            chill: 0.35,
            rain_shadow: RainShadow::default(),
        }
    }
}

impl Default for BiomeTable {
    /// The tutorial's 3 × 3 table with its limits (0.4 and 0.6 on both axes).
    fn default() -> Self {
        use TreeSpecies::{
            Acacia, Birch, Broadleaf, Cactus, Conifer, Palm, SnowyConifer, SwampTree,
        };
        let biome =
            |name: &str, color: Rgb, tree_density: f64, trees: &[(TreeSpecies, f64)]| Biome {
                name: name.to_owned(),
                color,
                tree_density,
                trees: trees
                    .iter()
                    .map(|&(species, weight)| SpeciesWeight { species, weight })
                    .collect(),
                scatter: Vec::new(),
            };
        let mut biomes = vec![
            biome(BIOMES[0], Rgb(146, 154, 126), 0.02, &[(SnowyConifer, 1.0)]),
            biome(
                BIOMES[1],
                Rgb(82, 110, 74),
                0.6,
                &[(Conifer, 4.0), (Birch, 1.0)],
            ),
            biome(BIOMES[2], Rgb(168, 186, 176), 0.5, &[(SnowyConifer, 1.0)]),
            biome(
                BIOMES[3],
                Rgb(146, 178, 84),
                0.05,
                &[(Broadleaf, 2.0), (Birch, 1.0)],
            ),
            biome(
                BIOMES[4],
                Rgb(66, 122, 52),
                0.7,
                &[(Broadleaf, 3.0), (Birch, 1.0), (Conifer, 1.0)],
            ),
            biome(BIOMES[5], Rgb(72, 92, 56), 0.4, &[(SwampTree, 1.0)]),
            biome(BIOMES[6], Rgb(222, 200, 136), 0.02, &[(Cactus, 1.0)]),
            biome(BIOMES[7], Rgb(184, 172, 90), 0.08, &[(Acacia, 1.0)]),
            biome(
                BIOMES[8],
                Rgb(40, 110, 46),
                0.8,
                &[(Broadleaf, 3.0), (Palm, 1.0)],
            ),
        ];
        // Rocks, bushes and grass, each spacing in world units.
        let scatter: [&[(ScatterKind, f64)]; 9] = [
            &[(ScatterKind::Rock, 7.0), (ScatterKind::Grass, 4.0)],
            &[
                (ScatterKind::Rock, 12.0),
                (ScatterKind::Bush, 6.0),
                (ScatterKind::Grass, 4.0),
            ],
            &[(ScatterKind::Rock, 12.0), (ScatterKind::Bush, 9.0)],
            &[
                (ScatterKind::Rock, 24.0),
                (ScatterKind::Bush, 14.0),
                (ScatterKind::Grass, 2.5),
            ],
            &[
                (ScatterKind::Rock, 16.0),
                (ScatterKind::Bush, 4.5),
                (ScatterKind::Grass, 3.5),
            ],
            &[(ScatterKind::Bush, 5.0), (ScatterKind::Grass, 2.5)],
            &[(ScatterKind::Rock, 9.0), (ScatterKind::Bush, 20.0)],
            &[
                (ScatterKind::Rock, 20.0),
                (ScatterKind::Bush, 10.0),
                (ScatterKind::Grass, 2.8),
            ],
            &[
                (ScatterKind::Rock, 18.0),
                (ScatterKind::Bush, 3.5),
                (ScatterKind::Grass, 4.0),
            ],
        ];
        for (biome, list) in biomes.iter_mut().zip(scatter) {
            biome.scatter = list
                .iter()
                .map(|&(kind, spacing)| ScatterSpacing { kind, spacing })
                .collect();
        }
        Self {
            heat_limits: vec![0.4, 0.6],
            wet_limits: vec![0.4, 0.6],
            biomes,
        }
    }
}

impl Default for RegionSettings {
    fn default() -> Self {
        Self {
            cell_size: 320.0,
            jitter: 0.9,
            wobble: 45.0,
            wobble_scale: 0.008,
            blend_width: 30.0,
        }
    }
}

impl Default for SurfaceSettings {
    fn default() -> Self {
        Self {
            deep_water: -0.15,
            beach: 0.012,
            snow_temperature: 0.1,
            deep_water_color: Rgb(28, 52, 92),
            shallow_water_color: Rgb(62, 110, 138),
            beach_color: Rgb(226, 212, 160),
            snow_color: Rgb(240, 244, 248),
        }
    }
}

impl Default for TreeSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            spacing: 7.0,
            jitter: 0.7,
            max_slope_degrees: 35.0,
            min_scale: 0.8,
            max_scale: 1.3,
            clumping: 0.6,
        }
    }
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            seed: 42,
            terrain: TerrainSettings::default(),
            climate: ClimateSettings::default(),
            biome_table: BiomeTable::default(),
            biome_source: BiomeSource::default(),
            regions: RegionSettings::default(),
            rivers: RiverSettings::default(),
            scatter: ScatterSettings::default(),
            surface: SurfaceSettings::default(),
            trees: TreeSettings::default(),
        }
    }
}

/// A setting outside the range it must lie in: which field, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[error("{field}: {reason}")]
pub struct SettingsError {
    /// The field's path, like `regions.cell_size` or `terrain.density.a.input.octaves`.
    pub field: String,
    /// What the field must be, and what it was.
    pub reason: String,
}

/// Why a preset could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    /// The text is not a valid RON `WorldSettings`.
    #[error("not a valid preset: {0}")]
    Parse(#[source] ron::error::SpannedError),
    /// It parsed, but a value is out of range.
    #[error("invalid setting {0}")]
    Invalid(#[source] SettingsError),
    /// The text is longer than [`limits::MAX_PRESET_BYTES`].
    #[error("a preset is at most {limit} bytes; this one has {bytes}")]
    TooLarge {
        /// The text's length.
        bytes: u64,
        /// [`limits::MAX_PRESET_BYTES`].
        limit: usize,
    },
    /// The preset file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Why `value` is not a finite number in `range`, if it is not.
pub(crate) fn number_problem(value: f64, range: &RangeInclusive<f64>) -> Option<String> {
    (!(value.is_finite() && range.contains(&value))).then(|| {
        format!(
            "must be a number from {} to {} (got {value})",
            range.start(),
            range.end()
        )
    })
}

/// Why `value` is not a whole number in `range`, if it is not.
fn whole_problem<T: PartialOrd + fmt::Display>(
    value: T,
    range: &RangeInclusive<T>,
) -> Option<String> {
    (!range.contains(&value)).then(|| {
        format!(
            "must be a whole number from {} to {} (got {value})",
            range.start(),
            range.end()
        )
    })
}

/// Checks one field of a density operation against what it may be.
pub(crate) fn check_field(field: String, value: &FieldValue<'_>) -> Result<(), SettingsError> {
    let problem = match value {
        FieldValue::Number { value, range, .. } => number_problem(**value, range),
        FieldValue::Whole { value, range } => whole_problem(**value, range),
        FieldValue::SeedOffset { value, range } => whole_problem(**value, range),
        FieldValue::Choice { value, choices } => (**value as usize >= choices.len()).then(|| {
            format!(
                "must be a whole number from 0 to {} ({}) (got {value})",
                choices.len() - 1,
                choices.join(", ")
            )
        }),
        FieldValue::Shape(_) => None,
    };
    match problem {
        Some(reason) => Err(SettingsError { field, reason }),
        None => Ok(()),
    }
}

/// Collects the first error while walking the settings.
struct Check {
    path: Vec<String>,
}

type Checked = Result<(), SettingsError>;

impl Check {
    fn field(&self, name: &str) -> String {
        let mut path = self.path.join(".");
        if !name.is_empty() {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(name);
        }
        path
    }

    fn fail(&self, name: &str, reason: String) -> Checked {
        Err(SettingsError {
            field: self.field(name),
            reason,
        })
    }

    fn range(&self, name: &str, value: f64, range: &RangeInclusive<f64>) -> Checked {
        number_problem(value, range).map_or(Ok(()), |reason| self.fail(name, reason))
    }

    fn int_range<T: PartialOrd + fmt::Display>(
        &self,
        name: &str,
        value: T,
        range: &RangeInclusive<T>,
    ) -> Checked {
        whole_problem(value, range).map_or(Ok(()), |reason| self.fail(name, reason))
    }

    fn nested(&mut self, name: &str, inner: impl FnOnce(&mut Self) -> Checked) -> Checked {
        self.path.push(name.to_owned());
        let result = inner(self);
        self.path.pop();
        result
    }

    fn ascending(&self, name: &str, values: &[f64]) -> Checked {
        if values.len() > limits::MAX_THRESHOLDS {
            return self.fail(
                name,
                format!(
                    "must hold at most {} thresholds (got {})",
                    limits::MAX_THRESHOLDS,
                    values.len()
                ),
            );
        }
        for (i, &value) in values.iter().enumerate() {
            self.range(&format!("{name}[{i}]"), value, &limits::THRESHOLD)?;
            if i > 0 && value <= values[i - 1] {
                return self.fail(
                    &format!("{name}[{i}]"),
                    format!("thresholds must rise: {value} follows {}", values[i - 1]),
                );
            }
        }
        Ok(())
    }
}

impl WorldSettings {
    /// Checks every value against [`limits`]: the first bad one is reported with its field path
    /// and allowed range. NaN, infinities, empty or negative sizes, octaves outside 1 to 16,
    /// thresholds out of order and a biome list that does not fill the table are all caught.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let mut check = Check { path: Vec::new() };
        check.int_range("seed", self.seed, &limits::SEED)?;
        let density = self.terrain.density.check_at("terrain.density")?;
        check.nested("terrain", |check| {
            let scale = self.terrain.height_scale;
            check.range("height_scale", scale, &limits::HEIGHT_SCALE)?;
            let reach = density.magnitude() * scale;
            let most = *limits::HEIGHT.end();
            if reach > most {
                return check.fail(
                    "height_scale",
                    format!(
                        "the density stack reaches ±{:e}, so heights would reach ±{reach:e} \
                         world units; keep them within ±{most:e} (height_scale at most {:e})",
                        density.magnitude(),
                        most / density.magnitude()
                    ),
                );
            }
            Ok(())
        })?;
        check.nested("climate", |check| {
            check.range("scale", self.climate.scale, &limits::CLIMATE_SCALE)?;
            check.range("chill", self.climate.chill, &limits::CHILL)?;
            check.nested("rain_shadow", |check| {
                let shadow = &self.climate.rain_shadow;
                check.range("strength", shadow.strength, &limits::RAIN_SHADOW_STRENGTH)?;
                check.range("wind_degrees", shadow.wind_degrees, &limits::WIND_DEGREES)?;
                check.range("reach", shadow.reach, &limits::RAIN_SHADOW_REACH)?;
                check.int_range("steps", shadow.steps, &limits::RAIN_SHADOW_STEPS)
            })
        })?;
        let table_picks = matches!(self.biome_source, BiomeSource::Table);
        check.nested("biome_table", |check| {
            self.biome_table.check(check, table_picks)
        })?;
        if let BiomeSource::MultiNoise(source) = &self.biome_source {
            check.nested("biome_source", |check| {
                source.check(check, self.biome_table.biomes.len())
            })?;
        }
        check.nested("regions", |check| {
            let r = &self.regions;
            check.range("cell_size", r.cell_size, &limits::CELL_SIZE)?;
            check.range("jitter", r.jitter, &limits::JITTER)?;
            check.range("wobble", r.wobble, &limits::WOBBLE)?;
            check.range("wobble_scale", r.wobble_scale, &limits::SCALE)?;
            check.range("blend_width", r.blend_width, &limits::BLEND_WIDTH)
        })?;
        check.nested("rivers", |check| self.rivers.check(check))?;
        check.nested("scatter", |check| {
            let s = &self.scatter;
            check.range("max_slope_degrees", s.max_slope_degrees, &limits::MAX_SLOPE)?;
            check.range("min_scale", s.min_scale, &limits::TREE_SCALE)?;
            check.range("max_scale", s.max_scale, &limits::TREE_SCALE)?;
            if s.min_scale > s.max_scale {
                return check.fail(
                    "min_scale",
                    format!(
                        "must not exceed max_scale ({} > {})",
                        s.min_scale, s.max_scale
                    ),
                );
            }
            Ok(())
        })?;
        check.nested("surface", |check| {
            let s = &self.surface;
            check.range("deep_water", s.deep_water, &limits::DEEP_WATER)?;
            check.range("beach", s.beach, &limits::BEACH)?;
            check.range(
                "snow_temperature",
                s.snow_temperature,
                &limits::SNOW_TEMPERATURE,
            )
        })?;
        check.nested("trees", |check| {
            let t = &self.trees;
            check.range("spacing", t.spacing, &limits::TREE_SPACING)?;
            check.range("jitter", t.jitter, &limits::TREE_JITTER)?;
            check.range("max_slope_degrees", t.max_slope_degrees, &limits::MAX_SLOPE)?;
            check.range("min_scale", t.min_scale, &limits::TREE_SCALE)?;
            check.range("max_scale", t.max_scale, &limits::TREE_SCALE)?;
            if t.min_scale > t.max_scale {
                return check.fail(
                    "min_scale",
                    format!(
                        "must not exceed max_scale ({} > {})",
                        t.min_scale, t.max_scale
                    ),
                );
            }
            check.range("clumping", t.clumping, &limits::CLUMPING)
        })
    }

    /// A fresh world seed from some entropy (the time, say): positive and below 2^31, so it
    /// reads well and every port of the tutorial takes it.
    #[must_use]
    pub fn seed_from_entropy(entropy: u64) -> i64 {
        (crate::hash::mix(entropy.wrapping_add(0x9e37_79b9_7f4a_7c15)) % (1 << 31)) as i64
    }

    /// Reads settings from RON and validates them. Fields left out take their defaults.
    ///
    /// # Errors
    /// [`PresetError::TooLarge`] for text over [`limits::MAX_PRESET_BYTES`],
    /// [`PresetError::Parse`] for text that is not a `WorldSettings` (unknown fields included),
    /// [`PresetError::Invalid`] for a value out of range.
    pub fn from_ron(text: &str) -> Result<Self, PresetError> {
        if text.len() > limits::MAX_PRESET_BYTES {
            return Err(PresetError::TooLarge {
                bytes: text.len() as u64,
                limit: limits::MAX_PRESET_BYTES,
            });
        }
        let settings: Self = ron_options().from_str(text).map_err(PresetError::Parse)?;
        settings.validate().map_err(PresetError::Invalid)?;
        Ok(settings)
    }

    /// Reads and validates a preset file ([`WorldSettings::from_ron`]); a file over
    /// [`limits::MAX_PRESET_BYTES`] is refused before it is read whole.
    ///
    /// # Errors
    /// [`PresetError::Io`] for a file that cannot be read, and the errors of
    /// [`WorldSettings::from_ron`].
    pub fn from_ron_file(path: impl AsRef<std::path::Path>) -> Result<Self, PresetError> {
        use std::io::Read;
        let path = path.as_ref();
        let io = |source| PresetError::Io {
            path: path.to_owned(),
            source,
        };
        let limit = limits::MAX_PRESET_BYTES;
        let file = std::fs::File::open(path).map_err(io)?;
        let bytes = file.metadata().map_err(io)?.len();
        if bytes > limit as u64 {
            return Err(PresetError::TooLarge { bytes, limit });
        }
        // The file may grow between the size check and the read: read one byte past the limit,
        // which `from_ron` then refuses.
        let mut text = String::new();
        file.take(limit as u64 + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        Self::from_ron(&text)
    }

    /// The settings as pretty RON, the preset format under `assets/presets/`. Only valid
    /// settings are written, so every preset written loads again.
    ///
    /// # Errors
    /// The first setting out of range ([`WorldSettings::validate`]).
    ///
    /// # Panics
    /// Never: valid settings always serialize.
    pub fn to_ron(&self) -> Result<String, SettingsError> {
        self.validate()?;
        let config = ron::ser::PrettyConfig::new()
            .depth_limit(12)
            .indentor("  ".to_owned());
        Ok(ron_options()
            .to_string_pretty(self, config)
            .expect("valid settings always serialize"))
    }
}

/// RON's settings for presets: deep enough for the deepest density stack validation accepts
/// ([`limits::MAX_NODES`] nodes in a chain; RON counts a few levels per node), and no deeper, so a
/// hostile preset cannot exhaust the stack.
fn ron_options() -> ron::Options {
    ron::Options::default().with_recursion_limit(4 * limits::MAX_NODES + 32)
}

impl BiomeTable {
    /// The number of biomes the thresholds call for.
    #[must_use]
    pub fn expected_len(&self) -> usize {
        (self.heat_limits.len() + 1) * (self.wet_limits.len() + 1)
    }

    /// `table_picks`: whether the table picks biomes (else a multi-noise source does, and the
    /// list may hold any number of biomes up to [`limits::MAX_BIOMES`]).
    fn check(&self, check: &mut Check, table_picks: bool) -> Checked {
        check.ascending("heat_limits", &self.heat_limits)?;
        check.ascending("wet_limits", &self.wet_limits)?;
        if !table_picks && !(1..=limits::MAX_BIOMES).contains(&self.biomes.len()) {
            return check.fail(
                "biomes",
                format!(
                    "must list 1 to {} biomes (got {})",
                    limits::MAX_BIOMES,
                    self.biomes.len()
                ),
            );
        }
        if table_picks && self.biomes.len() != self.expected_len() {
            return check.fail(
                "biomes",
                format!(
                    "must list {} biomes for {} temperature and {} moisture thresholds (got {})",
                    self.expected_len(),
                    self.heat_limits.len(),
                    self.wet_limits.len(),
                    self.biomes.len()
                ),
            );
        }
        for (i, biome) in self.biomes.iter().enumerate() {
            check.nested(&format!("biomes[{i}]"), |check| {
                if biome.name.trim().is_empty() {
                    return check.fail("name", "must not be empty".to_owned());
                }
                check.range("tree_density", biome.tree_density, &limits::TREE_DENSITY)?;
                for (k, entry) in biome.trees.iter().enumerate() {
                    check.range(
                        &format!("trees[{k}].weight"),
                        entry.weight,
                        &limits::SPECIES_WEIGHT,
                    )?;
                }
                for (k, entry) in biome.scatter.iter().enumerate() {
                    check.range(
                        &format!("scatter[{k}].spacing"),
                        entry.spacing,
                        &limits::SCATTER_SPACING,
                    )?;
                    if biome.scatter[..k].iter().any(|e| e.kind == entry.kind) {
                        return check.fail(
                            &format!("scatter[{k}].kind"),
                            format!("lists {:?} a second time", entry.kind),
                        );
                    }
                }
                Ok(())
            })?;
        }
        // A kind's widest spacing stays within a few of its narrowest.
        for kind in ScatterKind::ALL {
            let spacings = self.biomes.iter().enumerate().flat_map(|(i, b)| {
                b.scatter
                    .iter()
                    .enumerate()
                    .filter(move |(_, s)| s.kind == kind)
                    .map(move |(k, s)| (i, k, s.spacing))
            });
            let narrowest = spacings
                .clone()
                .map(|(.., s)| s)
                .fold(f64::INFINITY, f64::min);
            if let Some((i, k, widest)) = spacings.max_by(|a, b| a.2.total_cmp(&b.2))
                && widest > narrowest * limits::SCATTER_SPREAD
            {
                return check.fail(
                    &format!("biomes[{i}].scatter[{k}].spacing"),
                    format!(
                        "{kind:?} spacing must be at most {} times its narrowest, {narrowest} \
                         (got {widest})",
                        limits::SCATTER_SPREAD
                    ),
                );
            }
        }
        Ok(())
    }
}

impl MultiNoise {
    /// Checks the axis graphs and the boxes, which must name biomes of a list of `biomes`.
    fn check(&self, check: &mut Check, biomes: usize) -> Checked {
        let names = crate::multi_noise::AXIS_NAMES;
        for (axis, name) in self.axes().into_iter().zip(&names[2..]) {
            axis.check_at(&check.field(name))?;
        }
        if let Err(error) = check_boxes(&self.boxes) {
            return check.fail(&error.field, error.reason);
        }
        for (i, b) in self.boxes.iter().enumerate() {
            if b.biome >= biomes {
                return check.fail(
                    &format!("boxes[{i}].biome"),
                    format!(
                        "must name one of the {biomes} biomes, 0 to {} (got {})",
                        biomes - 1,
                        b.biome
                    ),
                );
            }
        }
        Ok(())
    }
}

impl RiverSettings {
    fn check(&self, check: &mut Check) -> Checked {
        check.range("spacing", self.spacing, &limits::RIVER_SPACING)?;
        check.range("springs", self.springs, &limits::RIVER_SPRINGS)?;
        check.range("spring_height", self.spring_height, &limits::SPRING_HEIGHT)?;
        check.range("dry_moisture", self.dry_moisture, &limits::DRY_MOISTURE)?;
        check.int_range("max_length", self.max_length, &limits::RIVER_LENGTH)?;
        check.range("width", self.width, &limits::RIVER_WIDTH)?;
        check.range("depth", self.depth, &limits::RIVER_DEPTH)?;
        check.range("lake_radius", self.lake_radius, &limits::LAKE_RADIUS)?;
        check.range("valley_width", self.valley_width, &limits::VALLEY_WIDTH)?;
        check.range("valley_slope", self.valley_slope, &limits::VALLEY_SLOPE)?;
        check.range("bank_height", self.bank_height, &limits::BANK_HEIGHT)?;
        check.range("meander", self.meander, &limits::MEANDER)?;
        // Rivers and lakes stay near their nodes, so a tile of the network is small.
        if self.width > self.spacing / 8.0 {
            return check.fail(
                "width",
                format!(
                    "must be at most spacing / 8 = {} (got {})",
                    self.spacing / 8.0,
                    self.width
                ),
            );
        }
        if self.lake_radius > self.spacing / 4.0 {
            return check.fail(
                "lake_radius",
                format!(
                    "must be at most spacing / 4 = {} (got {})",
                    self.spacing / 4.0,
                    self.lake_radius
                ),
            );
        }
        if self.valley_width > 4.0 * self.spacing {
            return check.fail(
                "valley_width",
                format!(
                    "must be at most 4 × spacing = {} (got {})",
                    4.0 * self.spacing,
                    self.valley_width
                ),
            );
        }
        Ok(())
    }
}
