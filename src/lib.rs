//! Infinite, seeded, procedurally generated worlds for Bevy: climates, biomes, blended regions,
//! water and trees, streamed around the camera on the async compute pool.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_biome_world::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, BiomeWorldPlugin::default()))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         commands.spawn((Camera3d::default(), BiomeWorldAnchor, Transform::from_xyz(0.0, 150.0, 0.0)));
//!     })
//!     .run();
//! ```
//!
//! A game that starts from its own settings, stands its player on the ground and follows chunks:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_biome_world::prelude::*;
//!
//! #[derive(Component)]
//! struct Player;
//!
//! fn stand_on_ground(world: BiomeWorld, mut players: Query<&mut Transform, With<Player>>) {
//!     for mut transform in &mut players {
//!         let xz = transform.translation.xz();
//!         transform.translation.y = world.ground_height_at(xz);
//!         let (_, biome) = world.biome_at(xz);
//!         info!("standing in {} (region {:?})", biome.name, world.region_at(xz));
//!     }
//! }
//!
//! fn on_chunks(mut spawned: MessageReader<ChunkSpawned>, mut despawned: MessageReader<ChunkDespawned>) {
//!     for chunk in spawned.read() {
//!         info!("chunk {:?} is entity {:?}", chunk.coord, chunk.entity);
//!     }
//!     for chunk in despawned.read() {
//!         info!("chunk {:?} left", chunk.coord);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, BiomeWorldPlugin::default()))
//!     .insert_resource(BiomeWorldSettings {
//!         world: WorldSettings { seed: 1234, ..default() },
//!         view_radius: 10,
//!         ..default()
//!     })
//!     .add_systems(Update, (stand_on_ground, on_chunks))
//!     .run();
//! ```
//!
//! The world itself comes from [`biome_core`] (re-exported), a pure-Rust implementation of the
//! tutorial "Procedural Biome Generation: Simplex Noise & Domain Warping" that gives the same bits
//! as the tutorial's JavaScript. Tune it at run time through [`BiomeWorldSettings`]; query it from
//! gameplay code with the [`BiomeWorld`] system parameter; react to [`ChunkSpawned`] and
//! [`ChunkDespawned`].
//!
//! Without a renderer (`MinimalPlugins` plus `AssetPlugin`), the plugin still streams chunks,
//! meshes included, which is how its tests run.

pub mod chunk;
#[cfg(feature = "panel")]
pub mod panel;
pub mod query;
pub mod scatter;
pub mod streaming;
pub mod tasks;
pub mod world;

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;

pub use biome_core;
pub use chunk::{BiomeChunk, BiomeWater, ChunkAssets};
#[cfg(feature = "panel")]
pub use panel::BiomeWorldPanelPlugin;
pub use query::BiomeWorld;
pub use scatter::{BiomeTree, TreeAssets};
pub use streaming::{BiomeWorldAnchor, BiomeWorldStats, ChunkDespawned, ChunkFailed, ChunkSpawned};
pub use tasks::background_async_compute;
pub use world::{BiomeWorldSettings, BiomeWorldState};

/// Everything a game usually needs.
pub mod prelude {
    #[cfg(feature = "panel")]
    pub use crate::BiomeWorldPanelPlugin;
    pub use crate::{
        BiomeChunk, BiomeWorld, BiomeWorldAnchor, BiomeWorldPlugin, BiomeWorldSettings,
        BiomeWorldStats, BiomeWorldSystems, ChunkDespawned, ChunkFailed, ChunkSpawned,
    };
    pub use biome_core::{ChunkCoord, ChunkLayout, MeshStyle, WorldSettings};
}

/// The plugin's systems, in the order they run each `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BiomeWorldSystems {
    /// The settings panel (feature `panel`): applies its edits, refreshes its pictures, draws
    /// gizmos; its window is drawn in `bevy_egui`'s `EguiPrimaryContextPass`, in this set too.
    Panel,
    /// Rebuilds the world when [`BiomeWorldSettings`] changed.
    Settings,
    /// Decides which chunks should exist, despawns far ones, starts builds.
    Stream,
    /// Turns finished builds into entities.
    Apply,
}

/// Streams an endless world around every [`BiomeWorldAnchor`].
///
/// Build-time options are fields here; runtime tunables live in the [`BiomeWorldSettings`]
/// resource, added with `init_resource` so a game can insert its own first.
#[derive(Clone, Debug, Default)]
pub struct BiomeWorldPlugin {
    /// Keep chunk meshes readable in the main world after they reach the GPU, for colliders or
    /// navigation meshes, at the cost of a CPU copy of every loaded chunk. Off by default: the
    /// meshes then live in the render world only.
    pub keep_mesh_data: bool,
}

impl Plugin for BiomeWorldPlugin {
    fn build(&self, app: &mut App) {
        let mesh_usage = if self.keep_mesh_data {
            RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD
        } else {
            RenderAssetUsages::RENDER_WORLD
        };
        app.insert_resource(streaming::StreamingOptions { mesh_usage })
            .init_resource::<BiomeWorldSettings>()
            .init_resource::<BiomeWorldStats>()
            .init_resource::<streaming::ChunkStreamer>()
            .add_message::<ChunkSpawned>()
            .add_message::<ChunkDespawned>()
            .add_message::<ChunkFailed>()
            .configure_sets(
                Update,
                (
                    BiomeWorldSystems::Panel,
                    BiomeWorldSystems::Settings,
                    BiomeWorldSystems::Stream,
                    BiomeWorldSystems::Apply,
                )
                    .chain(),
            )
            .add_systems(
                Update,
                (
                    world::apply_settings.in_set(BiomeWorldSystems::Settings),
                    streaming::stream_chunks.in_set(BiomeWorldSystems::Stream),
                    streaming::apply_chunks.in_set(BiomeWorldSystems::Apply),
                ),
            );
    }

    fn finish(&self, app: &mut App) {
        // Headless apps (MinimalPlugins + AssetPlugin) have no renderer to register these.
        if !app.world().contains_resource::<Assets<Mesh>>() {
            app.init_asset::<Mesh>();
        }
        if !app.world().contains_resource::<Assets<StandardMaterial>>() {
            app.init_asset::<StandardMaterial>();
        }
        let settings = app.world().resource::<BiomeWorldSettings>().clone();
        app.insert_resource(BiomeWorldState::new(&settings));
        let world = app.world_mut();
        let (chunk_assets, tree_assets) =
            world.resource_scope(|world, mut materials: Mut<Assets<StandardMaterial>>| {
                let mut meshes = world.resource_mut::<Assets<Mesh>>();
                (
                    ChunkAssets::new(&mut materials),
                    TreeAssets::new(&mut meshes, &mut materials),
                )
            });
        world.insert_resource(chunk_assets);
        world.insert_resource(tree_assets);
    }
}
