//! The physics plugin's ECS side: the collider streamer, the settings it takes (the last valid
//! ones), and the two systems that feed it and apply its answer.

use bevy::platform::time::Instant;
use bevy::prelude::*;
use biome_core::ChunkLayout;

use super::{
    BiomeColliderSettings, BiomeColliderStats, BiomeWorldCollider, ColliderKind, PhysicsOrigin,
    TerrainCollider, TrunkColliders,
};
use crate::BiomeWorldSystems;
use crate::settings::BiomeWorldState;
use crate::stream::{FrameBudget, NodeStreamer, StreamView, anchor_points};
use crate::terrain::share::{DensityShare, DensityUser};

/// Colliders for the terrain and trees around every [`BiomeWorldCollider`] entity, tuned by
/// [`BiomeColliderSettings`]. Add it with avian's `PhysicsPlugins` and [`crate::BiomeWorldPlugin`].
#[derive(Clone, Copy, Debug, Default)]
pub struct BiomeWorldPhysicsPlugin;

impl Plugin for BiomeWorldPhysicsPlugin {
    fn build(&self, app: &mut App) {
        BiomeColliderStats::DIAGNOSTICS.register(app);
        crate::areas::register(app, crate::areas::GroundHolder::Colliders);
        app.init_resource::<BiomeColliderSettings>()
            .init_resource::<BiomeColliderStats>()
            .init_resource::<ColliderStreamer>()
            .init_resource::<DensityShare>()
            .register_type::<BiomeColliderSettings>()
            .register_type::<BiomeColliderStats>()
            .register_type::<BiomeWorldCollider>()
            .register_type::<TerrainCollider>()
            .register_type::<TrunkColliders>()
            .configure_sets(
                Update,
                (
                    BiomeWorldPhysicsSystems::Stream,
                    BiomeWorldPhysicsSystems::Apply,
                )
                    .chain()
                    .after(BiomeWorldSystems::Settings)
                    .before(BiomeWorldSystems::Stream),
            )
            .add_systems(
                Update,
                (
                    stream_colliders.in_set(BiomeWorldPhysicsSystems::Stream),
                    apply_colliders.in_set(BiomeWorldPhysicsSystems::Apply),
                ),
            );
        app.init_resource::<PhysicsOrigin>();
        #[cfg(feature = "big_space")]
        {
            // Once the frame's transforms are propagated, before anything reads them.
            let follow = || {
                super::follow_floating_origin
                    .after(TransformSystems::Propagate)
                    .before(bevy::camera::visibility::VisibilitySystems::CheckVisibility)
            };
            app.add_systems(PostStartup, follow())
                .add_systems(PostUpdate, follow());
        }
    }
}

/// The physics plugin's systems, in the order they run each `Update`: after
/// [`BiomeWorldSystems::Settings`] and before the terrain's streaming, so colliders come first.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BiomeWorldPhysicsSystems {
    /// Feeds the collider streamer the collider entities, starts and drops collider builds.
    Stream,
    /// Inserts finished colliders within the budget and removes those no longer wanted.
    Apply,
}

/// The collider settings asked for, with the layout they were checked against.
#[derive(Clone, Debug, PartialEq)]
struct SettingsRequest {
    settings: BiomeColliderSettings,
    layout: ChunkLayout,
}

/// The collider streamer, and the settings it uses.
#[derive(Resource, Default)]
struct ColliderStreamer {
    /// The latest request, checked once.
    request: Option<SettingsRequest>,
    /// The settings in use: the last valid for the layout, if any.
    settings: Option<BiomeColliderSettings>,
    streamer: NodeStreamer<ColliderKind>,
}

impl ColliderStreamer {
    /// Checks a new request (or the old one against a new layout): valid settings replace those
    /// in use; otherwise the ones in use stay if they still fit the layout.
    fn take_request(&mut self, request: SettingsRequest, stats: &mut BiomeColliderStats) {
        if self.request.as_ref() == Some(&request) {
            return;
        }
        match request.settings.validate_with(&request.layout) {
            Ok(()) => {
                self.settings = Some(request.settings.clone());
                stats.error = None;
            }
            Err(error) => {
                let reason = error.to_string();
                warn!("biome world colliders refused, keeping the last valid: {reason}");
                stats.error = Some(reason);
                // The default until something valid comes, if it fits.
                let fallback = self.settings.take().unwrap_or_default();
                self.settings = fallback
                    .validate_with(&request.layout)
                    .is_ok()
                    .then_some(fallback);
            }
        }
        self.request = Some(request);
    }
}

/// Whether trunks get colliders: asked for, and trees spawned.
fn with_trunks(state: &BiomeWorldState, settings: &BiomeColliderSettings) -> bool {
    settings.trunks && state.settings().trees
}

/// Feeds the streamer the collider entities (none while no settings fit, so every collider
/// goes) and the colliders' generation: the world's, and whether trunks are in.
fn stream_colliders(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<BiomeWorldCollider>>,
) {
    let started = Instant::now();
    let points = anchor_points(world, anchors);
    world.resource_scope(|world, mut colliders: Mut<ColliderStreamer>| {
        let state = world.resource::<BiomeWorldState>();
        let layout = state.settings().layout;
        let request = SettingsRequest {
            settings: world.resource::<BiomeColliderSettings>().clone(),
            layout,
        };
        colliders.take_request(request, &mut world.resource_mut::<BiomeColliderStats>());
        let state = world.resource::<BiomeWorldState>();
        let settings = colliders.settings.clone();
        let trunks = settings.as_ref().is_some_and(|s| with_trunks(state, s));
        let view = StreamView {
            anchors: if settings.is_some() { &points } else { &[] },
            lod: settings.clone().unwrap_or_default().lod(layout),
            generation: state.generation() * 2 + u64::from(trunks),
            changes: state.area_changes(),
            max_tasks: settings.as_ref().map_or(0, |s| s.max_tasks),
            start_builds: settings.is_some(),
        };
        colliders.streamer.kind_mut().trunks = trunks;
        colliders.streamer.update(world, &view);
    });
    let took = started.elapsed();
    world.resource_mut::<BiomeColliderStats>().stream_time = took;
    world.resource_mut::<FrameBudget>().charge(took);
}

/// Collects finished builds, inserts and removes colliders within the budget; then counts.
fn apply_colliders(world: &mut World) {
    let started = Instant::now();
    world.resource_scope(|world, mut colliders: Mut<ColliderStreamer>| {
        let own = colliders
            .settings
            .as_ref()
            .map_or(0.0, |s| s.apply_budget_ms);
        let mut budget = world.resource::<FrameBudget>().budget(own);
        let streamer = &mut colliders.streamer;
        streamer.apply(world, &mut budget, 0.0, 0.0);
        let counts = streamer.counts().clone();
        let trunks = streamer.shown().map(|(_, node)| node.trunks).sum();
        let reused = streamer.kind().reused;
        let share = world.resource::<DensityShare>().counts();
        let (sampled, shared, lent) = (
            share.sampled(DensityUser::Colliders),
            share.taken(DensityUser::Colliders),
            share.taken(DensityUser::Terrain),
        );
        let mut stats = world.resource_mut::<BiomeColliderStats>();
        stats.sampled_heights = sampled;
        stats.shared_heights = shared;
        stats.lent_heights = lent;
        stats.reused_heights = reused;
        stats.loaded = counts.shown;
        stats.in_flight = counts.in_flight;
        stats.queued = counts.queued;
        stats.ready = counts.ready;
        stats.retiring = counts.retiring;
        stats.failed = counts.failed;
        stats.trunks = trunks;
        stats.apply_time = started.elapsed();
        let times = (stats.stream_time, stats.apply_time);
        BiomeColliderStats::DIAGNOSTICS.record(world, times, &counts.build_times, counts.shown);
        world.resource_mut::<FrameBudget>().charge(times.1);
    });
}
