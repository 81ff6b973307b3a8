//! The terrain's ECS side: its streamer as a resource, and the two systems that feed it the
//! anchors and apply its answer within the main-thread budget.

use bevy::platform::time::Instant;
use bevy::prelude::*;

use super::precision::{FarAnchorWatch, warn_far_anchor};
use super::{
    BiomeChunk, BiomeRiverWater, BiomeWater, BiomeWorldAnchor, BiomeWorldStats, ChunkDespawned,
    ChunkFade, ChunkFailed, ChunkGround, ChunkReplaced, ChunkSpawned, HorizonView, TerrainKind,
    TerrainMaterial, TerrainMaterials,
};
use crate::BiomeWorldSystems;
use crate::origin::WorldFrame;
use crate::settings::BiomeWorldState;
use crate::stream::{FrameBudget, NodeStreamer, StreamView, anchor_points};

/// Streams the terrain around every [`BiomeWorldAnchor`]: part of [`crate::BiomeWorldPlugin`].
#[derive(Clone, Copy, Debug, Default)]
pub struct BiomeTerrainPlugin;

impl Plugin for BiomeTerrainPlugin {
    fn build(&self, app: &mut App) {
        BiomeWorldStats::DIAGNOSTICS.register(app);
        crate::areas::register(app, crate::areas::GroundHolder::Terrain);
        app.init_resource::<BiomeWorldStats>()
            .init_resource::<TerrainStreamer>()
            .init_resource::<FarAnchorWatch>()
            .init_resource::<super::splat::TerrainSplatMap>()
            .register_type::<super::TerrainSplatting>()
            .register_type::<BiomeWorldStats>()
            .register_type::<TerrainMaterials>()
            .register_type::<BiomeWorldAnchor>()
            .register_type::<BiomeChunk>()
            .register_type::<ChunkGround>()
            .register_type::<ChunkFade>()
            .register_type::<ChunkReplaced>()
            .register_type::<BiomeWater>()
            .register_type::<BiomeRiverWater>()
            .register_type::<ChunkSpawned>()
            .register_type::<ChunkDespawned>()
            .register_type::<ChunkFailed>()
            .register_type::<HorizonView>()
            .add_message::<ChunkSpawned>()
            .add_message::<ChunkDespawned>()
            .add_message::<ChunkFailed>()
            .add_systems(
                Update,
                (
                    stream_terrain.in_set(BiomeWorldSystems::Stream),
                    apply_terrain
                        .in_set(BiomeWorldSystems::Apply)
                        .before(crate::areas::write_area_messages),
                    super::view::match_views_to_horizon.after(BiomeWorldSystems::Settings),
                    super::splat::take_splat_map
                        .after(BiomeWorldSystems::Settings)
                        .before(BiomeWorldSystems::Stream),
                ),
            );
        // With a renderer, terrain gets the material that draws shores and snow per pixel.
        if app.is_plugin_added::<bevy::pbr::PbrPlugin>() {
            super::add_terrain_material(app);
        }
    }

    fn finish(&self, app: &mut App) {
        if app.is_plugin_added::<bevy::pbr::PbrPlugin>()
            && !app.world().contains_resource::<Assets<TerrainMaterial>>()
        {
            warn!(
                "BiomeWorldPlugin was added before the renderer: terrain uses per-vertex colours; \
                 add it after DefaultPlugins for shores and snow lines drawn per pixel"
            );
        }
        if !app.world().contains_resource::<TerrainMaterials>() {
            let world = app.world_mut();
            let assets =
                TerrainMaterials::new(&mut world.resource_mut::<Assets<StandardMaterial>>());
            world.insert_resource(assets);
        }
    }
}

/// The terrain's streamer.
#[derive(Resource, Default)]
pub(crate) struct TerrainStreamer(pub(crate) NodeStreamer<TerrainKind>);

/// Feeds the streamer the anchors and the streaming settings: it forgets entities game code
/// despawned, drops builds no longer wanted and starts wanted ones, most urgent first.
///
/// Like [`apply_terrain`] it runs on the main thread with the world to itself: the plugin's
/// work then happens in one stretch there, with no hand-offs between threads inside a frame.
fn stream_terrain(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<BiomeWorldAnchor>>,
) {
    let started = Instant::now();
    let points = anchor_points(world, anchors);
    // In a floating origin's grid, far anchors are exact.
    if !world.resource::<WorldFrame>().is_floating() {
        warn_far_anchor(&mut world.resource_mut::<FarAnchorWatch>(), &points);
    }
    let state = world.resource::<BiomeWorldState>();
    let view = StreamView {
        anchors: &points,
        lod: state.streaming().lod(state.settings().layout),
        generation: state.generation(),
        changes: state.area_changes(),
        max_tasks: state.streaming().max_tasks,
        start_builds: true,
    };
    world.resource_scope(|world, mut streamer: Mut<TerrainStreamer>| {
        streamer.0.update(world, &view);
    });
    let took = started.elapsed();
    world.resource_mut::<BiomeWorldStats>().stream_time = took;
    world.resource_mut::<FrameBudget>().charge(took);
}

/// Collects finished builds, spawns and despawns within the main-thread budget, makes the
/// planner's swaps and moves fades on; then counts.
pub(crate) fn apply_terrain(world: &mut World) {
    let started = Instant::now();
    let streaming = world.resource::<BiomeWorldState>().streaming().clone();
    let last_frame = world
        .get_resource::<Time<Real>>()
        .map_or(0.0, Time::delta_secs_f64);
    let mut budget = world
        .resource::<FrameBudget>()
        .budget(streaming.apply_budget_ms);
    world.resource_scope(|world, mut streamer: Mut<TerrainStreamer>| {
        let streamer = &mut streamer.0;
        streamer.apply(
            world,
            &mut budget,
            streaming.fade_seconds,
            last_frame as f32,
        );
        let mut stats = world.resource_mut::<BiomeWorldStats>();
        let counts = streamer.counts();
        stats.loaded = counts.shown;
        stats.in_flight = counts.in_flight;
        stats.queued = counts.queued;
        stats.ready = counts.ready;
        stats.retiring = counts.retiring;
        stats.fading = counts.fading;
        stats.failed = counts.failed;
        stats.applied_total = counts.applied_total;
        stats.loaded_per_level.clear();
        let (mut triangles, mut forest_triangles, mut bytes, mut trees) = (0, 0, 0, 0);
        for (key, node) in streamer.shown() {
            let level = usize::from(key.node.level);
            if stats.loaded_per_level.len() <= level {
                stats.loaded_per_level.resize(level + 1, 0);
            }
            stats.loaded_per_level[level] += 1;
            triangles += node.triangles;
            forest_triangles += node.forest_triangles;
            bytes += node.bytes;
            trees += node.trees;
        }
        stats.triangles = triangles;
        stats.forest_triangles = forest_triangles;
        stats.mesh_bytes = bytes;
        stats.trees = trees;
        let mut stats = world.resource_mut::<BiomeWorldStats>();
        stats.apply_time = started.elapsed();
        let times = (stats.stream_time, stats.apply_time);
        let counts = streamer.counts();
        BiomeWorldStats::DIAGNOSTICS.record(world, times, &counts.build_times, counts.shown);
        world.resource_mut::<FrameBudget>().charge(times.1);
    });
}
