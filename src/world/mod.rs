//! The runtime tunables ([`BiomeWorldSettings`]) and the world compiled from them
//! ([`BiomeWorldState`]): when valid settings change the world, the layout or the water and tree
//! switches, the world is rebuilt once and its generation counter moves on, so every loaded chunk
//! is rebuilt and no result of older settings is applied. Invalid settings are refused whole.

use std::ops::RangeInclusive;
use std::sync::Arc;

use bevy::prelude::*;
use biome_core::world::SettingsError;
use biome_core::{ChunkLayout, MeshStyle, World, WorldSettings};

/// Everything a game may tune while it runs. Insert your own before adding the plugin to start
/// from other values; change it at any time to regenerate the world.
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct BiomeWorldSettings {
    /// The world: seed, terrain, climate, biomes, regions, surface and trees.
    pub world: WorldSettings,
    /// Chunk size and look (smooth or flat tiles).
    pub layout: ChunkLayout,
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
    /// Whether chunks below sea level get a water surface.
    pub water: bool,
    /// Whether trees are spawned (the world still places them; see `world.trees`).
    pub trees: bool,
}

impl Default for BiomeWorldSettings {
    fn default() -> Self {
        Self {
            world: WorldSettings::default(),
            layout: ChunkLayout::default(),
            view_radius: 12,
            despawn_hysteresis: 2,
            max_tasks: default_task_budget(),
            apply_budget_ms: 0.6,
            water: true,
            trees: true,
        }
    }
}

/// Four tasks per core keep the builders busy even when frames are slow (tasks finish between
/// two frames), while out-of-range tasks are still dropped before they start.
fn default_task_budget() -> usize {
    (std::thread::available_parallelism().map_or(2, std::num::NonZero::get) * 4).max(8)
}

impl BiomeWorldSettings {
    /// Accepted [`BiomeWorldSettings::view_radius`], in chunks.
    pub const VIEW_RADIUS: RangeInclusive<u32> = 1..=64;
    /// Accepted [`BiomeWorldSettings::despawn_hysteresis`], in chunks.
    pub const DESPAWN_HYSTERESIS: RangeInclusive<u32> = 0..=16;
    /// Accepted [`BiomeWorldSettings::max_tasks`].
    pub const MAX_TASKS: RangeInclusive<usize> = 1..=256;
    /// Accepted [`BiomeWorldSettings::apply_budget_ms`].
    pub const APPLY_BUDGET_MS: RangeInclusive<f32> = 0.0..=100.0;
    /// Terrain mesh memory one anchor may keep loaded (chunks out to the view radius plus the
    /// hysteresis), in bytes: 1 GiB, about five times the default view's.
    pub const MESH_MEMORY_LIMIT: u64 = 1 << 30;

    /// Checks the world settings, the layout with the world ([`ChunkLayout::validate_with`]),
    /// the streaming values, and what they cost together: the terrain meshes one anchor keeps
    /// loaded must fit in [`BiomeWorldSettings::MESH_MEMORY_LIMIT`].
    ///
    /// # Errors
    /// The first value out of range, by field path.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.world.validate()?;
        self.layout.validate_with(&self.world)?;
        let fail = |field: &str, reason: String| {
            Err(SettingsError {
                field: field.to_owned(),
                reason,
            })
        };
        let whole = |range: &RangeInclusive<u32>, unit: &str, value: u32| {
            format!(
                "must be from {} to {} {unit} (got {value})",
                range.start(),
                range.end()
            )
        };
        if !Self::VIEW_RADIUS.contains(&self.view_radius) {
            return fail(
                "view_radius",
                whole(&Self::VIEW_RADIUS, "chunks", self.view_radius),
            );
        }
        if !Self::DESPAWN_HYSTERESIS.contains(&self.despawn_hysteresis) {
            return fail(
                "despawn_hysteresis",
                whole(&Self::DESPAWN_HYSTERESIS, "chunks", self.despawn_hysteresis),
            );
        }
        if !Self::MAX_TASKS.contains(&self.max_tasks) {
            return fail(
                "max_tasks",
                format!(
                    "must be from {} to {} (got {})",
                    Self::MAX_TASKS.start(),
                    Self::MAX_TASKS.end(),
                    self.max_tasks
                ),
            );
        }
        if !Self::APPLY_BUDGET_MS.contains(&self.apply_budget_ms) {
            return fail(
                "apply_budget_ms",
                format!(
                    "must be from {} to {} ms (got {})",
                    Self::APPLY_BUDGET_MS.start(),
                    Self::APPLY_BUDGET_MS.end(),
                    self.apply_budget_ms
                ),
            );
        }
        let bytes = self.mesh_memory();
        if bytes > Self::MESH_MEMORY_LIMIT {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            return fail(
                "view_radius",
                format!(
                    "{} chunks of {} × {} tiles around an anchor need about {:.1} GiB of terrain \
                     meshes, over the {:.0} GiB limit: lower view_radius (or layout.tiles)",
                    self.chunks_kept(),
                    self.layout.tiles,
                    self.layout.tiles,
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

    /// Bytes of terrain mesh (positions, normals, colours and indices) one anchor keeps loaded
    /// at most.
    #[must_use]
    pub fn mesh_memory(&self) -> u64 {
        let tiles = u64::from(self.layout.tiles);
        let vertices = match self.layout.style {
            MeshStyle::Smooth => (tiles + 1) * (tiles + 1),
            MeshStyle::FlatTiles => 4 * tiles * tiles,
        };
        let index_bytes = if vertices <= 1 << 16 { 2 } else { 4 };
        let per_chunk = vertices * VERTEX_BYTES + 6 * tiles * tiles * index_bytes;
        per_chunk * self.chunks_kept()
    }
}

/// Position, normal and colour of one terrain vertex.
const VERTEX_BYTES: u64 = 12 + 12 + 16;

/// The world compiled from the last valid [`BiomeWorldSettings`], which the streamer and
/// [`crate::BiomeWorld`] use: settings that fail validation never reach them.
#[derive(Resource, Clone, Debug)]
pub struct BiomeWorldState {
    /// The world every chunk and query answers from.
    pub world: Arc<World>,
    /// The last valid settings (`world` was built from `settings.world`).
    pub settings: BiomeWorldSettings,
    /// Moves on each time the world, the layout or the water and tree switches change; chunks
    /// and tasks of older generations are replaced, never applied.
    pub generation: u64,
    /// Why the latest settings were refused, if they were; the world keeps its last valid state.
    pub error: Option<SettingsError>,
}

impl BiomeWorldState {
    pub(crate) fn new(settings: &BiomeWorldSettings) -> Self {
        let (settings, error) = match settings.validate() {
            Ok(()) => (settings.clone(), None),
            Err(error) => {
                error!("biome world settings refused, using defaults: {error}");
                (BiomeWorldSettings::default(), Some(error))
            }
        };
        Self {
            world: Arc::new(World::new(settings.world.clone()).expect("validated above")),
            settings,
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

/// Whether going from `old` to `new` rebuilds chunks (as opposed to streaming tunables only).
#[must_use]
pub fn regenerates(old: &BiomeWorldSettings, new: &BiomeWorldSettings) -> bool {
    old.world != new.world
        || old.layout != new.layout
        || old.water != new.water
        || old.trees != new.trees
}

/// Takes valid settings in: rebuilds the world when it changed, and moves the generation on when
/// chunks must be rebuilt.
pub(crate) fn apply_settings(
    settings: Res<BiomeWorldSettings>,
    mut state: ResMut<BiomeWorldState>,
) {
    if !settings.is_changed() {
        return;
    }
    if let Err(error) = settings.validate() {
        if state.error.as_ref() != Some(&error) {
            warn!("biome world settings refused, keeping the current world: {error}");
            state.error = Some(error);
        }
        return;
    }
    state.error = None;
    if *settings == state.settings {
        return;
    }
    if state.settings.world != settings.world {
        state.world = Arc::new(World::new(settings.world.clone()).expect("validated above"));
    }
    if regenerates(&state.settings, &settings) {
        state.generation += 1;
    }
    state.settings = settings.clone();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_is_counted_and_its_memory_budgeted() {
        let settings = BiomeWorldSettings::default();
        // Radius 12 plus 2 of hysteresis: the lattice points within 14 of the centre.
        assert_eq!(settings.chunks_kept(), 613);
        settings.validate().unwrap();
        let huge = BiomeWorldSettings {
            view_radius: 64,
            layout: ChunkLayout {
                tiles: 256,
                ..default()
            },
            ..default()
        };
        let error = huge.validate().unwrap_err();
        assert_eq!(error.field, "view_radius");
        assert!(error.reason.contains("GiB"), "{error}");
        assert!(huge.mesh_memory() > 50 << 30);
    }

    #[test]
    fn streaming_values_are_refused_by_name() {
        let refused = |change: fn(&mut BiomeWorldSettings)| {
            let mut settings = BiomeWorldSettings::default();
            change(&mut settings);
            settings.validate().unwrap_err().field
        };
        assert_eq!(refused(|s| s.view_radius = 0), "view_radius");
        assert_eq!(refused(|s| s.despawn_hysteresis = 17), "despawn_hysteresis");
        assert_eq!(refused(|s| s.max_tasks = 0), "max_tasks");
        assert_eq!(refused(|s| s.apply_budget_ms = f32::NAN), "apply_budget_ms");
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
