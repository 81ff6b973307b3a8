//! `--screenshot PATH` for the examples: keep the camera off until every chunk in view is built
//! and carries its rocks, bushes and grass (rendering a half-built world only slows a software
//! renderer down), then save one frame and exit. Shared by the examples with `#[path = "support/screenshot.rs"] mod screenshot;`.

use std::path::PathBuf;

use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy_biome_world::BiomeScatterStats;
use bevy_biome_world::prelude::*;

/// Saves `path` once the world around the anchors is built.
pub(crate) struct ScreenshotPlugin {
    pub(crate) path: PathBuf,
}

/// The screenshot waiting to be taken: examples that move their camera hold still while it is.
#[derive(Resource)]
pub(crate) struct ScreenshotRequest {
    path: PathBuf,
    settled_frames: u32,
}

impl Plugin for ScreenshotPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ScreenshotRequest {
            path: self.path.clone(),
            settled_frames: 0,
        })
        // Frame rate does not matter when waiting for a picture: apply chunks in bigger bites.
        .add_systems(PreStartup, |mut streaming: ResMut<BiomeWorldStreaming>| {
            streaming.apply_budget_ms = 50.0;
            streaming.frame_budget_ms = 60.0;
        })
        .add_systems(PostStartup, |mut cameras: Query<&mut Camera>| {
            cameras
                .iter_mut()
                .for_each(|mut camera| camera.is_active = false);
        })
        .add_systems(Update, take_when_ready.after(BiomeWorldSystems::Apply));
    }
}

fn take_when_ready(
    mut commands: Commands,
    stats: Res<BiomeWorldStats>,
    scatter: Res<BiomeScatterStats>,
    mut request: ResMut<ScreenshotRequest>,
    mut cameras: Query<&mut Camera>,
) {
    if !stats.is_idle() || stats.loaded == 0 || !scatter.is_idle() {
        request.settled_frames = 0;
        return;
    }
    cameras
        .iter_mut()
        .for_each(|mut camera| camera.is_active = true);
    request.settled_frames += 1;
    // A few frames for the last meshes to reach the GPU.
    if request.settled_frames != 8 {
        return;
    }
    let path = request.path.clone();
    info!(
        "every chunk in view is built ({} chunks); saving {}",
        stats.loaded,
        path.display()
    );
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            save_to_disk(path.clone())(captured);
            exit.write(AppExit::Success);
        },
    );
}
