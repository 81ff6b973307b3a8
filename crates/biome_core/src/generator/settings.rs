//! [`WorldSettings`]: everything that shapes a world, gathered from the floors below with their
//! defaults and checks, and read and written as RON presets.

use serde::{Deserialize, Serialize};

use crate::biomes::{BiomeTable, Rgb};
use crate::check::{Check, Checked, SettingsError};
use crate::climate::ClimateSettings;
use crate::cover::{ScatterSettings, TreeSettings};
use crate::density::{DensityFunctions, Space};
use crate::limits;
use crate::multi_noise::MultiNoise;
use crate::regions::RegionSettings;
use crate::rivers::RiverSettings;
use crate::terrain::TerrainSettings;

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
    /// The density functions written in code that `Custom` nodes of the density stacks name
    /// (none by default). Code, not data: presets name them but never carry them, so a preset
    /// that uses one loads with [`WorldSettings::from_ron_with`] and the same functions.
    #[serde(skip)]
    #[cfg_attr(feature = "bevy_reflect", reflect(ignore))]
    pub functions: DensityFunctions,
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

impl SurfaceSettings {
    pub(crate) fn check(&self, check: &Check) -> Checked {
        check.range("deep_water", self.deep_water, &limits::DEEP_WATER)?;
        check.range("beach", self.beach, &limits::BEACH)?;
        check.range(
            "snow_temperature",
            self.snow_temperature,
            &limits::SNOW_TEMPERATURE,
        )
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
            functions: DensityFunctions::default(),
        }
    }
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

impl WorldSettings {
    /// Checks every value against [`limits`]: the first bad one is reported with its field path
    /// and allowed range. NaN, infinities, empty or negative sizes, octaves outside 1 to 16,
    /// thresholds out of order and a biome list that does not fill the table are all caught.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let mut check = Check::new();
        check.whole("seed", self.seed, &limits::SEED)?;
        let density =
            self.terrain
                .density
                .check_at("terrain.density", &self.functions, Space::Height)?;
        check.nested("terrain", |check| {
            self.terrain
                .check(check, density.magnitude(), &self.functions)
        })?;
        check.nested("climate", |check| self.climate.check(check))?;
        let table_picks = matches!(self.biome_source, BiomeSource::Table);
        check.nested("biome_table", |check| {
            self.biome_table.check(check, table_picks)
        })?;
        if let BiomeSource::MultiNoise(source) = &self.biome_source {
            check.nested("biome_source", |check| {
                source.check(check, self.biome_table.biomes.len(), &self.functions)
            })?;
        }
        check.nested("regions", |check| self.regions.check(check))?;
        check.nested("rivers", |check| self.rivers.check(check))?;
        check.nested("scatter", |check| self.scatter.check(check))?;
        self.check_scatter_layers_named(&check)?;
        check.nested("surface", |check| self.surface.check(check))?;
        check.nested("trees", |check| self.trees.check(check))
    }

    /// Every layer a biome scatters is one of [`ScatterSettings::layers`].
    fn check_scatter_layers_named(&self, check: &Check) -> Checked {
        let scatter = &self.scatter;
        for (i, biome) in self.biome_table.biomes.iter().enumerate() {
            for (k, entry) in biome.scatter.iter().enumerate() {
                if scatter.layer_index(entry.layer.as_str()).is_none() {
                    let known: Vec<&str> = scatter.layers.iter().map(|l| l.name.as_str()).collect();
                    return check.fail(
                        &format!("biome_table.biomes[{i}].scatter[{k}].layer"),
                        format!(
                            "no scatter layer {:?} in scatter.layers (there are: {})",
                            entry.layer.as_str(),
                            known.join(", ")
                        ),
                    );
                }
            }
        }
        Ok(())
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
    /// [`PresetError::Invalid`] for a value out of range (or a `Custom` node: see
    /// [`WorldSettings::from_ron_with`]).
    pub fn from_ron(text: &str) -> Result<Self, PresetError> {
        Self::from_ron_with(text, &DensityFunctions::default())
    }

    /// [`WorldSettings::from_ron`] for presets whose `Custom` nodes name `functions`, which the
    /// settings keep.
    ///
    /// # Errors
    /// Those of [`WorldSettings::from_ron`], and a function a `Custom` node names that is not
    /// in `functions`.
    pub fn from_ron_with(text: &str, functions: &DensityFunctions) -> Result<Self, PresetError> {
        if text.len() > limits::MAX_PRESET_BYTES {
            return Err(PresetError::TooLarge {
                bytes: text.len() as u64,
                limit: limits::MAX_PRESET_BYTES,
            });
        }
        let mut settings: Self = ron_options().from_str(text).map_err(PresetError::Parse)?;
        settings.functions = functions.clone();
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
        Self::from_ron_file_with(path, &DensityFunctions::default())
    }

    /// [`WorldSettings::from_ron_file`] for presets whose `Custom` nodes name `functions`.
    ///
    /// # Errors
    /// [`PresetError::Io`] for a file that cannot be read, and the errors of
    /// [`WorldSettings::from_ron_with`].
    pub fn from_ron_file_with(
        path: impl AsRef<std::path::Path>,
        functions: &DensityFunctions,
    ) -> Result<Self, PresetError> {
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
        // which `from_ron_with` then refuses.
        let mut text = String::new();
        file.take(limit as u64 + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        Self::from_ron_with(&text, functions)
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
