//! The scatter's ECS side: one streamer per layer, the settings they take (the last valid ones),
//! and the two systems that feed them and apply their answer within one shared budget.

use bevy::platform::time::Instant;
use bevy::prelude::*;
use biome_core::cover::LayerName;
use biome_core::{ChunkLayout, WorldGenerator};

use super::{
    BiomeScatter, BiomeScatterObject, BiomeScatterSettings, BiomeScatterStats, LayerRadius,
    LayerStream, ScatterDespawned, ScatterModels, ScatterPresence, ScatterSpawned,
    take_scatter_models,
};
use crate::BiomeWorldSystems;
use crate::settings::BiomeWorldState;
use crate::stream::{FrameBudget, NodeStreamer, StreamView, anchor_points};
use crate::terrain::{BiomeWorldAnchor, BiomeWorldStats};

/// Streams every scatter layer (rocks, bushes, grass and a game's own) around every
/// [`BiomeWorldAnchor`], tuned by [`BiomeScatterSettings`], and tells game code of each object
/// as it comes and goes ([`ScatterSpawned`], [`ScatterDespawned`]): part of
/// [`crate::BiomeWorldPlugin`]. A game's own [`ScatterModels`], inserted before the app starts,
/// is kept (and one inserted or changed later gives every object its layer's new look).
#[derive(Clone, Copy, Debug, Default)]
pub struct BiomeScatterPlugin;

impl Plugin for BiomeScatterPlugin {
    fn build(&self, app: &mut App) {
        BiomeScatterStats::DIAGNOSTICS.register(app);
        app.init_resource::<BiomeScatterSettings>()
            .init_resource::<BiomeScatterStats>()
            .init_resource::<ScatterStreamers>()
            .init_resource::<ScatterPresence>()
            .add_message::<ScatterSpawned>()
            .add_message::<ScatterDespawned>()
            .register_type::<BiomeScatterSettings>()
            .register_type::<LayerRadius>()
            .register_type::<ScatterSpawned>()
            .register_type::<ScatterDespawned>()
            .register_type::<BiomeScatterStats>()
            .register_type::<BiomeScatter>()
            .register_type::<BiomeScatterObject>()
            .register_type::<ScatterModels>()
            .add_systems(
                Update,
                (
                    stream_scatter.in_set(BiomeWorldSystems::Stream),
                    // Within what terrain left of the frame's budget: holes in the ground show
                    // more than a late rock.
                    apply_scatter
                        .in_set(BiomeWorldSystems::Apply)
                        .after(crate::terrain::apply_terrain),
                    take_scatter_models
                        .in_set(BiomeWorldSystems::Settings)
                        .run_if(resource_changed::<ScatterModels>),
                ),
            );
    }

    fn finish(&self, app: &mut App) {
        if app.world().contains_resource::<ScatterModels>() {
            return;
        }
        let world = app.world_mut();
        let models = world.resource_scope(|world, mut materials: Mut<Assets<StandardMaterial>>| {
            ScatterModels::procedural(&mut world.resource_mut::<Assets<Mesh>>(), &mut materials)
        });
        world.insert_resource(models);
    }
}

/// The scatter settings asked for, with what they were checked against.
#[derive(Clone, Debug, PartialEq)]
struct SettingsRequest {
    settings: BiomeScatterSettings,
    generation: u64,
    layout: ChunkLayout,
}

/// A streamer per layer, by name, so layers added, removed or reordered leave the others'
/// chunks alone (a layer gone streams nothing, so its objects go, and its streamer goes once
/// they have), and the settings they use.
#[derive(Resource, Default)]
pub(crate) struct ScatterStreamers {
    request: Option<SettingsRequest>,
    /// The settings in use: the last valid ones.
    settings: Option<BiomeScatterSettings>,
    layers: Vec<NodeStreamer<LayerStream>>,
    /// The layer that applies first this frame: they take turns, so the frame's one step that
    /// needs no time left goes to each in turn.
    first_layer: usize,
}

impl ScatterStreamers {
    /// Checks a new request: valid settings replace those in use; otherwise the ones in use stay
    /// if they are still valid with the world, else the defaults do if they are.
    fn take_request(
        &mut self,
        request: SettingsRequest,
        generator: &WorldGenerator,
        stats: &mut BiomeScatterStats,
    ) {
        if self.request.as_ref() == Some(&request) {
            return;
        }
        let world_settings = generator.settings();
        match request
            .settings
            .validate_with(world_settings, &request.layout)
        {
            Ok(()) => {
                self.settings = Some(request.settings.clone());
                stats.error = None;
            }
            Err(error) => {
                let reason = error.to_string();
                warn!("biome world scatter refused, keeping the last valid: {reason}");
                stats.error = Some(reason);
                // The last valid settings if the world still takes them, else the defaults with
                // the layers it cannot take switched off (one dense layer does not take the
                // others down).
                let fallback = self.settings.take().unwrap_or_default();
                self.settings = Some(
                    if fallback
                        .validate_with(world_settings, &request.layout)
                        .is_ok()
                    {
                        fallback
                    } else {
                        BiomeScatterSettings::default()
                            .within_limits(world_settings, &request.layout)
                    },
                );
            }
        }
        self.request = Some(request);
    }
}

/// Feeds each layer's streamer the anchors (none for a layer switched off or gone, so its
/// objects go): placements start once the terrain has no build waiting for a task.
fn stream_scatter(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<BiomeWorldAnchor>>,
) {
    let started = Instant::now();
    let points = anchor_points(world, anchors);
    let state = world.resource::<BiomeWorldState>();
    let (generator, layout, generation, changes) = (
        state.generator().clone(),
        state.settings().layout,
        state.generation(),
        state.area_changes(),
    );
    let names: Vec<_> = state
        .generator()
        .settings()
        .scatter
        .layers
        .iter()
        .map(|l| l.name)
        .collect();
    let request = SettingsRequest {
        settings: world.resource::<BiomeScatterSettings>().clone(),
        generation,
        layout,
    };
    // The ground comes first.
    let ground_first = world.resource::<BiomeWorldStats>().queued > 0;
    world.resource_scope(|world, mut streamers: Mut<ScatterStreamers>| {
        streamers.take_request(
            request,
            &generator,
            &mut world.resource_mut::<BiomeScatterStats>(),
        );
        let settings = streamers.settings.clone();
        for name in &names {
            if !streamers.layers.iter().any(|s| s.kind().name == *name) {
                let streamer = NodeStreamer::new(LayerStream { name: *name });
                streamers.layers.push(streamer);
            }
        }
        // The streamers of layers gone, once their objects have.
        streamers.layers.retain(|streamer| {
            let counts = streamer.counts();
            let empty = counts.shown + counts.in_flight + counts.ready + counts.retiring == 0;
            names.contains(&streamer.kind().name) || !empty
        });
        for streamer in &mut streamers.layers {
            // Objects of a layer turned off or gone (or refused settings) all go.
            let layer = streamer.kind().name;
            let name = layer.as_str();
            let active = settings
                .as_ref()
                .filter(|s| s.enabled && names.contains(&layer) && s.radius(name) > 0.0);
            let view = StreamView {
                anchors: if active.is_some() { &points } else { &[] },
                lod: active.map_or_else(
                    || BiomeScatterSettings::default().lod(name, layout),
                    |s| s.lod(name, layout),
                ),
                generation,
                changes: changes.clone(),
                max_tasks: active.map_or(0, |s| s.max_tasks),
                start_builds: active.is_some() && !ground_first,
            };
            streamer.update(world, &view);
        }
    });
    let took = started.elapsed();
    world.resource_mut::<BiomeScatterStats>().stream_time = took;
    world.resource_mut::<FrameBudget>().charge(took);
}

/// Collects placements, spawns and despawns objects a slice at a time within the budget (at
/// least one slice a frame), makes the swaps; then tells game code what came and went, and
/// counts.
fn apply_scatter(world: &mut World) {
    let started = Instant::now();
    world.resource_scope(|world, mut streamers: Mut<ScatterStreamers>| {
        let own = streamers
            .settings
            .as_ref()
            .map_or(0.0, |s| s.apply_budget_ms);
        let mut budget = world.resource::<FrameBudget>().budget(own);
        let count = streamers.layers.len();
        let first = streamers.first_layer % count.max(1);
        for k in 0..count {
            streamers.layers[(first + k) % count].apply(world, &mut budget, 0.0, 0.0);
        }
        streamers.first_layer = (first + 1) % count.max(1);
        let (came, went) = world.resource_mut::<ScatterPresence>().flush();
        world.write_message_batch(came);
        world.write_message_batch(went);
        let names: Vec<LayerName> = world
            .resource::<BiomeWorldState>()
            .generator()
            .settings()
            .scatter
            .layers
            .iter()
            .map(|layer| layer.name)
            .collect();
        let mut stats = world.resource_mut::<BiomeScatterStats>();
        let layers = &streamers.layers;
        let of = |name: &LayerName| layers.iter().find(|s| s.kind().name == *name);
        stats.chunks = names
            .iter()
            .map(|name| of(name).map_or(0, |layer| layer.counts().shown))
            .collect();
        stats.objects = names
            .iter()
            .map(|name| {
                of(name).map_or(0, |layer| {
                    layer.shown().map(|(_, chunk)| chunk.placed.len()).sum()
                })
            })
            .collect();
        let sum = |count: fn(&crate::stream::StreamCounts) -> usize| {
            layers.iter().map(|layer| count(layer.counts())).sum()
        };
        stats.in_flight = sum(|c| c.in_flight);
        stats.queued = sum(|c| c.queued);
        stats.ready = sum(|c| c.ready);
        stats.retiring = sum(|c| c.retiring);
        stats.failed = sum(|c| c.failed);
        stats.apply_time = started.elapsed();
        let times = (stats.stream_time, stats.apply_time);
        let chunks = stats.chunks.iter().sum();
        let builds = layers.iter().flat_map(|layer| &layer.counts().build_times);
        BiomeScatterStats::DIAGNOSTICS.record(world, times, builds, chunks);
        world.resource_mut::<FrameBudget>().charge(times.1);
    });
}
