//! Where a world example's camera is, in world units (`f64`). With the `big_space` feature the
//! world lives in a `big_space` grid marked `BiomeWorldGrid` and the camera is its floating origin,
//! so a flight 10^9 units out draws as it does at the origin; without it the camera's transform
//! is its world position. Used with `#[path = "support/camera_place.rs"] mod camera_place;`.

use bevy::app::PluginGroupBuilder;
use bevy::ecs::system::SystemParam;
use bevy::math::DVec3;
use bevy::prelude::*;
#[cfg(feature = "big_space")]
use bevy_biome_world::BiomeWorldGrid;
#[cfg(feature = "big_space")]
use bevy_biome_world::big_space::prelude::{
    BigSpaceCommands, BigSpaceDefaultPlugins, CellCoord, FloatingOrigin, Grid,
};

/// The grid's cells: a power of two, as `BiomeWorldGrid` advises.
#[cfg(feature = "big_space")]
const CELL: f32 = 2048.0;

/// `plugins` (the window's), and with `big_space` its plugins in place of Bevy's transform
/// propagation.
pub(crate) fn with_floating_origin(app: &mut App, plugins: PluginGroupBuilder) {
    #[cfg(feature = "big_space")]
    app.add_plugins((plugins.disable::<TransformPlugin>(), BigSpaceDefaultPlugins));
    #[cfg(not(feature = "big_space"))]
    app.add_plugins(plugins);
}

/// Spawns the camera (`camera`, with its rotation in `transform`) at world position `at`: in a
/// new big space, as its floating origin, with `big_space`.
pub(crate) fn spawn_camera(
    commands: &mut Commands,
    at: DVec3,
    transform: Transform,
    camera: impl Bundle,
) {
    #[cfg(feature = "big_space")]
    commands.spawn_big_space(Grid::new(CELL, 0.0), |root| {
        root.insert((BiomeWorldGrid, Visibility::default()));
        let (cell, offset) = root.grid().translation_to_grid(at);
        root.spawn_spatial((
            camera,
            transform.with_translation(offset),
            cell,
            FloatingOrigin,
        ));
    });
    #[cfg(not(feature = "big_space"))]
    commands.spawn((camera, transform.with_translation(at.as_vec3())));
}

/// The camera's place: its transform, and with `big_space` its cell in the world's grid.
#[derive(SystemParam)]
pub(crate) struct CameraPlace<'w, 's> {
    #[cfg(feature = "big_space")]
    camera: Single<'w, 's, (&'static mut Transform, &'static mut CellCoord), With<Camera3d>>,
    #[cfg(feature = "big_space")]
    grid: Single<'w, 's, &'static Grid, With<BiomeWorldGrid>>,
    #[cfg(not(feature = "big_space"))]
    camera: Single<'w, 's, &'static mut Transform, With<Camera3d>>,
}

impl CameraPlace<'_, '_> {
    /// The camera's transform: its rotation is the view's (its translation is relative to its
    /// cell with `big_space`: use [`CameraPlace::set`] to move it).
    pub(crate) fn transform(&mut self) -> Mut<'_, Transform> {
        #[cfg(feature = "big_space")]
        return self.camera.0.reborrow();
        #[cfg(not(feature = "big_space"))]
        self.camera.reborrow()
    }

    /// Puts the camera at world position `at`.
    pub(crate) fn set(&mut self, at: DVec3) {
        #[cfg(feature = "big_space")]
        {
            let (cell, offset) = self.grid.translation_to_grid(at);
            let (transform, coord) = &mut *self.camera;
            transform.translation = offset;
            if **coord != cell {
                **coord = cell;
            }
        }
        #[cfg(not(feature = "big_space"))]
        {
            self.camera.translation = at.as_vec3();
        }
    }
}
