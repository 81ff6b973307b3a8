//! Infinite, seeded, procedurally generated worlds for Bevy: climates, biomes, blended regions,
//! water and trees, streamed around the camera on the async compute pool.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_biome_world::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, BiomeWorldPlugin))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         // Chunks stream around every entity with a BiomeWorldAnchor.
//!         let camera = Transform::from_xyz(0.0, 150.0, 0.0).looking_at(Vec3::new(300.0, 0.0, 300.0), Vec3::Y);
//!         commands.spawn((Camera3d::default(), BiomeWorldAnchor, camera));
//!         commands.spawn((DirectionalLight::default(), Transform::default().looking_to(Vec3::new(-0.6, -1.0, -0.4), Vec3::Y)));
//!     })
//!     .run();
//! ```
//!
//! That is `examples/minimal.rs` (`cargo run --example minimal`).
//!
//! A game that starts from its own settings, stands its player on the ground and places content
//! as areas of the world load:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_biome_world::prelude::*;
//!
//! #[derive(Component)]
//! struct Player;
//!
//! fn stand_on_ground(biome_world: BiomeWorld, mut players: Query<&mut Transform, With<Player>>) {
//!     for mut transform in &mut players {
//!         let xz = transform.translation.xz();
//!         transform.translation.y = biome_world.ground_height_at(xz);
//!         let (_, biome) = biome_world.biome_at(xz);
//!         info!("standing in {} (region {:?})", biome.name, biome_world.region_at(xz));
//!     }
//! }
//!
//! fn on_areas(mut unloaded: MessageReader<AreaUnloaded>, mut loaded: MessageReader<AreaLoaded>) {
//!     for area in unloaded.read() {
//!         info!("area {:?} left: despawn what stands on it", area.area);
//!     }
//!     for area in loaded.read() {
//!         info!("area {:?} is in: spawn its loot", area.area);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, BiomeWorldPlugin))
//!     .insert_resource(BiomeWorldSettings {
//!         generator: WorldSettings { seed: 1234, ..default() },
//!         ..default()
//!     })
//!     .insert_resource(BiomeWorldStreaming { horizon: 4096.0, ..default() })
//!     .add_systems(Update, (stand_on_ground, on_areas))
//!     .run();
//! ```
//!
//! Without a window the plugin streams just the same, meshes included (`MinimalPlugins` plus
//! `AssetPlugin` and `TransformPlugin`), which is how its tests run:
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_biome_world::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin, BiomeWorldPlugin))
//!     .insert_resource(BiomeWorldStreaming::full_detail(100.0));
//! app.world_mut().spawn((BiomeWorldAnchor, Transform::default()));
//! app.finish();
//! app.cleanup();
//! for _ in 0..10_000 {
//!     app.update();
//!     let stats = app.world().resource::<BiomeWorldStats>();
//!     if stats.loaded == 4 && stats.is_idle() {
//!         break;
//!     }
//!     std::thread::yield_now();
//! }
//! // The four chunks that meet at the anchor.
//! assert_eq!(app.world().resource::<BiomeWorldStats>().loaded, 4);
//! ```
//!
//! The world itself comes from [`biome_core`] (re-exported), a pure-Rust implementation of the
//! tutorial "Procedural Biome Generation: Simplex Noise & Domain Warping" that gives the same bits
//! as the tutorial's JavaScript. Tune it at run time through [`BiomeWorldSettings`] and
//! [`BiomeWorldStreaming`]; query it from gameplay code with the [`BiomeWorld`] system parameter;
//! place content as [`AreaLoaded`] and [`AreaUnloaded`] say the ground comes and goes, and
//! follow every terrain entity with [`ChunkSpawned`], [`ChunkDespawned`] and [`ChunkFailed`].
//! Every component and resource is `Reflect` and registered, so inspectors and Bevy's remote
//! protocol see them.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod areas;
mod models;
mod origin;
#[cfg(feature = "panel")]
mod panel;
#[cfg(feature = "avian")]
mod physics;
mod query;
mod scatter;
mod settings;
#[cfg(feature = "internals")]
pub mod stream;
#[cfg(not(feature = "internals"))]
#[expect(
    unreachable_pub,
    reason = "the planner is public with the internals feature, for benchmarks"
)]
mod stream;
mod terrain;
mod trees;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;

pub use areas::{AreaLoaded, AreaUnloaded, BiomeAreas, GroundHolder};
#[cfg(feature = "avian")]
pub use avian3d;
#[cfg(feature = "big_space")]
pub use big_space;
pub use biome_core;
pub use models::ModelLook;
#[cfg(feature = "big_space")]
pub use origin::BiomeWorldGrid;
#[cfg(feature = "panel")]
pub use panel::{BiomeWorldPanelPlugin, BiomeWorldPanelSystems};
#[cfg(feature = "avian")]
pub use physics::{
    BiomeColliderSettings, BiomeColliderStats, BiomeWorldCollider, BiomeWorldPhysicsPlugin,
    BiomeWorldPhysicsSystems, TerrainCollider, TrunkColliders,
};
pub use query::{BiomeWorld, FloorHit, GroundRayHit};
pub use scatter::{
    BiomeScatter, BiomeScatterObject, BiomeScatterPlugin, BiomeScatterSettings, BiomeScatterStats,
    LayerRadius, ScatterDespawned, ScatterModels, ScatterSpawned,
};
pub use settings::{
    BiomeWorldEdits, BiomeWorldSettings, BiomeWorldSettingsPlugin, BiomeWorldState,
    BiomeWorldStreaming, ChunkMeshOptions,
};
pub use stream::background_async_compute;
pub use terrain::{
    BiomeChunk, BiomeRiverWater, BiomeSplat, BiomeTerrainPlugin, BiomeWater, BiomeWorldAnchor,
    BiomeWorldStats, ChunkDespawned, ChunkFade, ChunkFailed, ChunkGround, ChunkReplaced,
    ChunkSpawned, FAR_ANCHOR_DISTANCE, HorizonView, MAX_SPLAT_LAYERS, OwnTerrainMaterial,
    OwnTerrainMaterialPlugin, SplatError, SplatLayer, SplatTint, SteepSplat, TerrainMaterial,
    TerrainMaterials, TerrainSplatting, TerrainSurface, VolumeGround,
};
pub use trees::{BiomeForest, BiomeTree, BiomeTreesPlugin, TreeModel, TreeModels, TreeSize};

/// Everything a game usually needs: the plugins, the settings, the components and messages,
/// and what the messages and [`BiomeWorld`]'s queries carry.
pub mod prelude {
    #[cfg(feature = "panel")]
    pub use crate::BiomeWorldPanelPlugin;
    pub use crate::{
        AreaLoaded, AreaUnloaded, BiomeAreas, BiomeChunk, BiomeScatterSettings, BiomeWorld,
        BiomeWorldAnchor, BiomeWorldEdits, BiomeWorldPlugin, BiomeWorldSettings, BiomeWorldStats,
        BiomeWorldStreaming, BiomeWorldSystems, ChunkDespawned, ChunkFailed, ChunkMeshOptions,
        ChunkSpawned, HorizonView, TerrainSplatting,
    };
    #[cfg(feature = "avian")]
    pub use crate::{BiomeColliderSettings, BiomeWorldCollider, BiomeWorldPhysicsPlugin};
    pub use biome_core::edits::{BrushOp, EditShape};
    pub use biome_core::{
        Biome, ChunkCoord, ChunkLayout, MeshStyle, NodeCoord, RegionId, Rgb, Sample, Surface,
        WorldSettings,
    };
}

/// The plugin's systems, in the order they run each `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BiomeWorldSystems {
    /// Rebuilds the generator when [`BiomeWorldSettings`] changed, and takes
    /// [`BiomeWorldStreaming`] in.
    Settings,
    /// Feeds each streamer the anchors, drops builds no longer wanted, starts the ones wanted.
    Stream,
    /// Turns finished builds into entities, shows and retires them, within the budget.
    Apply,
}

/// Streams an endless world around every [`BiomeWorldAnchor`]:
/// `app.add_plugins(BiomeWorldPlugin)`.
///
/// A group of one plugin per concern: [`BiomeWorldSettingsPlugin`] (the settings and the
/// generator), [`BiomeTerrainPlugin`] (the terrain), [`BiomeTreesPlugin`] (the trees' models) and
/// [`BiomeScatterPlugin`] (rocks, bushes and grass). Leave one out with
/// `BiomeWorldPlugin.build().disable::<BiomeScatterPlugin>()`.
///
/// The settings are resources, added with `init_resource` so a game can insert its own first:
/// [`BiomeWorldSettings`] (the world, the chunk layout, water and trees),
/// [`BiomeWorldStreaming`] (radius, tasks, budget), [`BiomeScatterSettings`] (how far rocks,
/// bushes and grass reach) and [`ChunkMeshOptions`] (where meshes live).
#[derive(Clone, Copy, Debug, Default)]
pub struct BiomeWorldPlugin;

impl PluginGroup for BiomeWorldPlugin {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(BiomeWorldSettingsPlugin)
            .add(BiomeTreesPlugin)
            .add(BiomeTerrainPlugin)
            .add(BiomeScatterPlugin)
    }
}
