//! The runtime settings, one resource per concern, and the generator compiled from them:
//! [`BiomeWorldSettings`] says what the chunks are (the world, the layout, water and trees: any
//! change rebuilds them), [`BiomeWorldStreaming`] how they are streamed (radius, hysteresis,
//! tasks, budget: changes apply at once, nothing is rebuilt), and [`ChunkMeshOptions`] where
//! their meshes live. [`BiomeWorldState`] holds the last valid pair and the [`WorldGenerator`]
//! built from it; its generation counter moves on with every accepted [`BiomeWorldSettings`]
//! change, so every loaded chunk is rebuilt and no result of older settings is applied. Invalid
//! settings are refused whole.

use std::ops::RangeInclusive;
use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use biome_core::world::SettingsError;
use biome_core::{ChunkLayout, MeshStyle, WorldGenerator, WorldSettings};

/// What the streamed chunks are: the world they sample, their layout, and what they carry. Insert
/// your own before adding the plugin to start from other values; change it at any time to
/// regenerate every chunk.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeWorldSettings {
    /// The generator's settings: seed, terrain, climate, biome table, regions, surface and trees.
    pub generator: WorldSettings,
    /// Chunk size and look (smooth or flat tiles).
    pub layout: ChunkLayout,
    /// Whether chunks below sea level get a water surface.
    pub water: bool,
    /// Whether trees are spawned (the generator still places them; see `generator.trees`).
    pub trees: bool,
}

impl Default for BiomeWorldSettings {
    fn default() -> Self {
        Self {
            generator: WorldSettings::default(),
            layout: ChunkLayout::default(),
            water: true,
            trees: true,
        }
    }
}

impl BiomeWorldSettings {
    /// Checks the generator's settings and the layout with them
    /// ([`ChunkLayout::validate_with`]).
    ///
    /// # Errors
    /// The first value out of range, by field path.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.generator.validate()?;
        self.layout.validate_with(&self.generator)
    }

    /// Bytes of terrain mesh (positions, normals, colours and indices) in one chunk.
    #[must_use]
    pub fn chunk_mesh_bytes(&self) -> u64 {
        let tiles = u64::from(self.layout.tiles);
        let vertices = match self.layout.style {
            MeshStyle::Smooth => (tiles + 1) * (tiles + 1),
            MeshStyle::FlatTiles => 4 * tiles * tiles,
        };
        let index_bytes = if vertices <= 1 << 16 { 2 } else { 4 };
        vertices * VERTEX_BYTES + 6 * tiles * tiles * index_bytes
    }
}

/// Position, normal and colour of one terrain vertex.
const VERTEX_BYTES: u64 = 12 + 12 + 16;

/// How chunks stream around the anchors. Changes apply at once and rebuild nothing.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeWorldStreaming {
    /// Chunks are kept within this many chunks of an anchor.
    pub view_radius: u32,
    /// Chunks despawn only this many chunks beyond `view_radius`, so an anchor hovering at the
    /// edge does not churn.
    pub despawn_hysteresis: u32,
    /// At most this many chunks are built at once on the async compute pool.
    pub max_tasks: usize,
    /// Main-thread time per frame for turning finished chunks into entities and despawning old
    /// ones, in milliseconds. When frames are slow anyway (a software renderer, a debug build),
    /// up to 5% of the last frame's time is used instead; at least one chunk moves per frame.
    pub apply_budget_ms: f32,
}

impl Default for BiomeWorldStreaming {
    fn default() -> Self {
        Self {
            view_radius: 12,
            despawn_hysteresis: 2,
            max_tasks: default_task_budget(),
            apply_budget_ms: 0.6,
        }
    }
}

/// Four tasks per core keep the builders busy even when frames are slow (tasks finish between
/// two frames), while out-of-range tasks are still dropped before they start.
fn default_task_budget() -> usize {
    (std::thread::available_parallelism().map_or(2, std::num::NonZero::get) * 4).max(8)
}

impl BiomeWorldStreaming {
    /// Accepted [`BiomeWorldStreaming::view_radius`], in chunks.
    pub const VIEW_RADIUS: RangeInclusive<u32> = 1..=64;
    /// Accepted [`BiomeWorldStreaming::despawn_hysteresis`], in chunks.
    pub const DESPAWN_HYSTERESIS: RangeInclusive<u32> = 0..=16;
    /// Accepted [`BiomeWorldStreaming::max_tasks`].
    pub const MAX_TASKS: RangeInclusive<usize> = 1..=256;
    /// Accepted [`BiomeWorldStreaming::apply_budget_ms`].
    pub const APPLY_BUDGET_MS: RangeInclusive<f32> = 0.0..=100.0;
    /// Terrain mesh memory one anchor may keep loaded (chunks out to the view radius plus the
    /// hysteresis), in bytes: 1 GiB, about five times the default view's.
    pub const MESH_MEMORY_LIMIT: u64 = 1 << 30;

    /// Checks every value against its range, and what the streaming costs with `settings`: the
    /// terrain meshes one anchor keeps loaded must fit in
    /// [`BiomeWorldStreaming::MESH_MEMORY_LIMIT`].
    ///
    /// # Errors
    /// The first value out of range, by field path.
    pub fn validate_with(&self, settings: &BiomeWorldSettings) -> Result<(), SettingsError> {
        let fail = |field: &str, reason: String| {
            Err(SettingsError {
                field: field.to_owned(),
                reason,
            })
        };
        let range = |value: &dyn std::fmt::Display,
                     start: &dyn std::fmt::Display,
                     end: &dyn std::fmt::Display,
                     unit: &str| {
            format!("must be from {start} to {end}{unit} (got {value})")
        };
        if !Self::VIEW_RADIUS.contains(&self.view_radius) {
            let (start, end) = Self::VIEW_RADIUS.into_inner();
            return fail(
                "view_radius",
                range(&self.view_radius, &start, &end, " chunks"),
            );
        }
        if !Self::DESPAWN_HYSTERESIS.contains(&self.despawn_hysteresis) {
            let (start, end) = Self::DESPAWN_HYSTERESIS.into_inner();
            return fail(
                "despawn_hysteresis",
                range(&self.despawn_hysteresis, &start, &end, " chunks"),
            );
        }
        if !Self::MAX_TASKS.contains(&self.max_tasks) {
            let (start, end) = Self::MAX_TASKS.into_inner();
            return fail("max_tasks", range(&self.max_tasks, &start, &end, ""));
        }
        if !Self::APPLY_BUDGET_MS.contains(&self.apply_budget_ms) {
            let (start, end) = Self::APPLY_BUDGET_MS.into_inner();
            return fail(
                "apply_budget_ms",
                range(&self.apply_budget_ms, &start, &end, " ms"),
            );
        }
        let bytes = self.chunks_kept() * settings.chunk_mesh_bytes();
        if bytes > Self::MESH_MEMORY_LIMIT {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            return fail(
                "view_radius",
                format!(
                    "{} chunks of {} × {} tiles around an anchor need about {:.1} GiB of terrain \
                     meshes, over the {:.0} GiB limit: lower view_radius (or layout.tiles)",
                    self.chunks_kept(),
                    settings.layout.tiles,
                    settings.layout.tiles,
                    gib(bytes),
                    gib(Self::MESH_MEMORY_LIMIT)
                ),
            );
        }
        Ok(())
    }

    /// Chunks one anchor keeps loaded at most: every chunk within the view radius plus the
    /// hysteresis.
    #[must_use]
    pub fn chunks_kept(&self) -> u64 {
        let keep = i64::from(self.view_radius + self.despawn_hysteresis);
        (-keep..=keep)
            .map(|dz| {
                let reach = keep * keep - dz * dz;
                // Columns dx with dx² <= reach: 2 * floor(sqrt(reach)) + 1.
                let mut half = (reach as f64).sqrt() as i64;
                while half * half > reach {
                    half -= 1;
                }
                while (half + 1) * (half + 1) <= reach {
                    half += 1;
                }
                (2 * half + 1) as u64
            })
            .sum()
    }
}

/// Where chunk meshes live once they reach the GPU. Insert your own before adding the plugin;
/// it applies to chunks built after a change.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct ChunkMeshOptions {
    /// Keep chunk meshes readable in the main world after they reach the GPU, for colliders or
    /// navigation meshes, at the cost of a CPU copy of every loaded chunk. Off by default: the
    /// meshes then live in the render world only.
    pub keep_mesh_data: bool,
}

impl ChunkMeshOptions {
    /// The asset usage chunk meshes get.
    #[must_use]
    pub fn usage(self) -> RenderAssetUsages {
        if self.keep_mesh_data {
            RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD
        } else {
            RenderAssetUsages::RENDER_WORLD
        }
    }
}

/// The generator compiled from the last valid [`BiomeWorldSettings`], and the last valid
/// [`BiomeWorldStreaming`], which the streamer and [`crate::BiomeWorld`] use: settings that
/// fail validation never reach them.
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone)]
pub struct BiomeWorldState {
    /// The generator every chunk and query answers from.
    #[reflect(ignore, clone)]
    pub generator: Arc<WorldGenerator>,
    /// The last valid settings (`generator` was built from `settings.generator`).
    pub settings: BiomeWorldSettings,
    /// The last valid streaming values.
    pub streaming: BiomeWorldStreaming,
    /// Moves on each time the settings change; chunks and tasks of older generations are
    /// replaced, never applied.
    pub generation: u64,
    /// Why the latest settings or streaming values were refused, if they were; the world keeps
    /// its last valid state.
    pub error: Option<SettingsError>,
}

impl BiomeWorldState {
    pub(crate) fn new(settings: &BiomeWorldSettings, streaming: &BiomeWorldStreaming) -> Self {
        let validated = settings
            .validate()
            .and_then(|()| streaming.validate_with(settings));
        let (settings, streaming, error) = match validated {
            Ok(()) => (settings.clone(), streaming.clone(), None),
            Err(error) => {
                error!("biome world settings refused, using defaults: {error}");
                (
                    BiomeWorldSettings::default(),
                    BiomeWorldStreaming::default(),
                    Some(error),
                )
            }
        };
        Self {
            generator: Arc::new(
                WorldGenerator::new(settings.generator.clone()).expect("validated above"),
            ),
            settings,
            streaming,
            generation: 0,
            error,
        }
    }

    /// The chunk layout in use.
    #[must_use]
    pub fn layout(&self) -> &ChunkLayout {
        &self.settings.layout
    }
}

/// Takes valid settings in: rebuilds the generator when its settings changed, moves the
/// generation on when the chunks must be rebuilt, and takes streaming values as they are.
pub(crate) fn apply_settings(
    settings: Res<BiomeWorldSettings>,
    streaming: Res<BiomeWorldStreaming>,
    mut state: ResMut<BiomeWorldState>,
) {
    if !(settings.is_changed() || streaming.is_changed()) {
        return;
    }
    let validated = settings
        .validate()
        .and_then(|()| streaming.validate_with(&settings));
    if let Err(error) = validated {
        if state.error.as_ref() != Some(&error) {
            warn!("biome world settings refused, keeping the current world: {error}");
            state.error = Some(error);
        }
        return;
    }
    state.error = None;
    if *streaming != state.streaming {
        state.streaming = streaming.clone();
    }
    if *settings == state.settings {
        return;
    }
    if state.settings.generator != settings.generator {
        state.generator =
            Arc::new(WorldGenerator::new(settings.generator.clone()).expect("validated above"));
    }
    state.generation += 1;
    state.settings = settings.clone();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_is_counted_and_its_memory_budgeted() {
        let settings = BiomeWorldSettings::default();
        let streaming = BiomeWorldStreaming::default();
        // Radius 12 plus 2 of hysteresis: the lattice points within 14 of the centre.
        assert_eq!(streaming.chunks_kept(), 613);
        streaming.validate_with(&settings).unwrap();
        let big_chunks = BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 256,
                ..default()
            },
            ..default()
        };
        let far = BiomeWorldStreaming {
            view_radius: 64,
            ..default()
        };
        let error = far.validate_with(&big_chunks).unwrap_err();
        assert_eq!(error.field, "view_radius");
        assert!(error.reason.contains("GiB"), "{error}");
        assert!(far.chunks_kept() * big_chunks.chunk_mesh_bytes() > 50 << 30);
    }

    #[test]
    fn streaming_values_are_refused_by_name() {
        let refused = |change: fn(&mut BiomeWorldStreaming)| {
            let mut streaming = BiomeWorldStreaming::default();
            change(&mut streaming);
            streaming
                .validate_with(&BiomeWorldSettings::default())
                .unwrap_err()
                .field
        };
        assert_eq!(refused(|s| s.view_radius = 0), "view_radius");
        assert_eq!(refused(|s| s.despawn_hysteresis = 17), "despawn_hysteresis");
        assert_eq!(refused(|s| s.max_tasks = 0), "max_tasks");
        assert_eq!(refused(|s| s.apply_budget_ms = f32::NAN), "apply_budget_ms");
        let refused = |change: fn(&mut BiomeWorldSettings)| {
            let mut settings = BiomeWorldSettings::default();
            change(&mut settings);
            settings.validate().unwrap_err().field
        };
        assert_eq!(refused(|s| s.layout.tile_size = 0.3), "layout.tile_size");
        assert_eq!(
            refused(|s| {
                s.layout.tiles = 256;
                s.layout.tile_size = 64.0;
            }),
            "trees.spacing"
        );
    }
}
