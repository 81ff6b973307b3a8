//! The settings' ECS side: the resources, the state built from them, and the system that takes
//! valid settings in.

use std::sync::Arc;

use bevy::ecs::system::NonSendMarker;
use bevy::prelude::*;
use biome_core::WorldGenerator;

use super::{
    BiomeWorldEdits, BiomeWorldSettings, BiomeWorldState, BiomeWorldStreaming, ChunkMeshOptions,
};
use crate::BiomeWorldSystems;
use crate::origin::WorldFrame;
use crate::stream::FrameBudget;

/// The world's settings and the generator built from them ([`BiomeWorldState`]), and the order
/// of the plugin's systems ([`BiomeWorldSystems`]): the first part of
/// [`crate::BiomeWorldPlugin`], which the others build on.
#[derive(Clone, Copy, Debug, Default)]
pub struct BiomeWorldSettingsPlugin;

impl Plugin for BiomeWorldSettingsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<BiomeWorldSettings>()
            .init_resource::<BiomeWorldStreaming>()
            .init_resource::<ChunkMeshOptions>()
            .register_type::<BiomeWorldSettings>()
            .register_type::<BiomeWorldStreaming>()
            .register_type::<ChunkMeshOptions>()
            .register_type::<BiomeWorldState>()
            .configure_sets(
                Update,
                (
                    BiomeWorldSystems::Settings,
                    BiomeWorldSystems::Stream,
                    BiomeWorldSystems::Apply,
                )
                    .chain(),
            )
            .init_resource::<BiomeWorldEdits>()
            .register_type::<BiomeWorldEdits>()
            .init_resource::<FrameBudget>()
            .init_resource::<WorldFrame>()
            .add_systems(
                Update,
                (
                    #[cfg(feature = "big_space")]
                    crate::origin::read_world_grid,
                    rebuild_in_a_new_frame,
                    apply_settings,
                    apply_edits,
                    begin_frame_budget,
                )
                    .chain()
                    .in_set(BiomeWorldSystems::Settings),
            );
        // Again once big_space has propagated the frame: what is drawn and queried from then
        // until the next `Update` (the render origin, `BiomeWorld::world_position`) follows a
        // floating origin that moved to another cell this frame.
        #[cfg(feature = "big_space")]
        app.register_type::<crate::BiomeWorldGrid>().add_systems(
            PostUpdate,
            crate::origin::read_world_grid.after(TransformSystems::Propagate),
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
        let streaming = app.world().resource::<BiomeWorldStreaming>().clone();
        app.insert_resource(BiomeWorldState::new(&settings, &streaming));
    }
}

/// Takes valid settings in: rebuilds the generator when its settings changed, moves the
/// generation on when the chunks must be rebuilt, and takes streaming values as they are.
fn apply_settings(
    _main: NonSendMarker,
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
        let generator = WorldGenerator::new(settings.generator.clone()).expect("validated above");
        let edits = state.generator.edits().clone();
        state.generator = Arc::new(generator.with_edits(edits));
    }
    state.rebuild();
    state.settings = settings.clone();
}

/// Builds everything again when the world moved to another frame (another `big_space` grid):
/// what was spawned sits in the old one.
fn rebuild_in_a_new_frame(
    _main: NonSendMarker,
    frame: Res<WorldFrame>,
    mut state: ResMut<BiomeWorldState>,
) {
    if frame.is_changed() && !frame.is_added() {
        state.rebuild();
    }
}

/// Gives the generator the edits when they changed: only the nodes within reach of what changed
/// are rebuilt.
fn apply_edits(
    _main: NonSendMarker,
    mut edits: ResMut<BiomeWorldEdits>,
    mut state: ResMut<BiomeWorldState>,
) {
    if edits.is_changed() {
        state.take_edits(&edits);
        // Bookkeeping, not a change of the edits.
        edits.bypass_change_detection().mark_taken();
    }
}

/// Starts the frame's main-thread budget, which the streamed kinds' systems share.
fn begin_frame_budget(
    _main: NonSendMarker,
    mut budget: ResMut<FrameBudget>,
    state: Res<BiomeWorldState>,
    time: Option<Res<Time<Real>>>,
) {
    let last_frame = time.map_or(0.0, |time| time.delta_secs_f64());
    budget.begin(state.streaming().frame_budget_ms, last_frame);
}
