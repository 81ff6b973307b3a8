//! The ranges the settings accept ([`crate::WorldSettings::validate`]), for sliders and checks that
//! must stay inside them.

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
/// How far a volume's `Ground` node tells the distance below the surface, world units: beyond
/// it gives this, with its sign (a point 100 km down is no deeper to a cave than one at 100 km).
pub const GROUND_REACH: f64 = 100_000.0;
/// How many times faster a 3D noise node varies along `y` than across.
pub const VERTICAL: RangeInclusive<f64> = 0.01..=100.0;
/// The radius of a `Tunnels` node, noise units.
pub const TUNNEL_RADIUS: RangeInclusive<f64> = 0.0..=1.0;
/// How far under and over the ground a world's volume reaches, world units
/// (`terrain.volume.below` and `above`).
pub const VOLUME_BAND: RangeInclusive<f64> = 0.0..=256.0;
/// How far apart a world's volume is sampled, world units (`terrain.volume.spacing`).
pub const VOLUME_SPACING: RangeInclusive<f64> = 0.5..=64.0;
/// Layers of a world's volume band (`terrain.volume.below` plus `above`, over the chunk's
/// [`crate::coords::ChunkLayout::tile_size`]) a chunk may sample, so a fine layout cannot make
/// every line of a chunk cost without bound. A chunk's grid also spans its own relief.
pub const VOLUME_LAYERS: f64 = 512.0;
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
/// The largest preset text [`crate::WorldSettings::from_ron`] reads, in bytes (the default
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
/// Where terrain edits may stand, world units: inside [`COORDINATE`] with room for their reach.
pub const EDIT_COORDINATE: RangeInclusive<f64> = -140_000_000_000_000.0..=140_000_000_000_000.0;
/// Radii, half sizes and widths of terrain edits, world units.
pub const EDIT_RADIUS: RangeInclusive<f64> = 0.5..=5000.0;
/// Heights and raise amounts of terrain edits, world units.
pub const EDIT_HEIGHT: RangeInclusive<f64> = -100_000.0..=100_000.0;
/// Skirts of pads and paths, world units.
pub const EDIT_SKIRT: RangeInclusive<f64> = 0.0..=5000.0;
/// Points of one path.
pub const MAX_PATH_POINTS: usize = 256;
/// Terrain edits in one set.
pub const MAX_EDITS: usize = 100_000;
/// Bytes of one edit file: a hundred thousand brushes take about 5 MB.
pub const MAX_EDIT_FILE_BYTES: u64 = 64 << 20;
/// Index entries (an edit per 64-unit cell its bounds meet) of one edit set: its memory, about
/// 50 bytes an entry at most, stays under 50 MiB.
pub const MAX_EDIT_CELLS: u64 = 1_000_000;
/// Scatter layers in one world: each is a search of its own per chunk.
pub const MAX_SCATTER_LAYERS: usize = 16;
/// Height rules of a scatter layer, world units.
pub const SCATTER_HEIGHT: RangeInclusive<f64> = -100_000.0..=100_000.0;
/// How many times its narrowest spacing a layer's widest may be, over all biomes: a
/// candidate looks this many narrow cells around for conflicts.
pub const SCATTER_SPREAD: f64 = 8.0;
/// Biome-table thresholds.
pub const THRESHOLD: RangeInclusive<f64> = 0.0..=1.0;
/// Thresholds per biome-table axis.
pub const MAX_THRESHOLDS: usize = 8;
/// Biomes in one world: as many as the largest table holds.
pub const MAX_BIOMES: usize = (MAX_THRESHOLDS + 1) * (MAX_THRESHOLDS + 1);
/// Characters in a biome's name. With the other list limits (biomes, species, scatter layers,
/// density nodes, multi-noise boxes) it keeps every valid preset under [`MAX_PRESET_BYTES`].
pub const MAX_NAME_CHARS: usize = 64;
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
