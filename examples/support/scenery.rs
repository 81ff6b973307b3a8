//! The sky and sun the world examples share (their cameras see to the horizon with the plugin's
//! `HorizonView`). Used with `#[path = "support/scenery.rs"] mod scenery;`.

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_biome_world::background_async_compute;
use bevy_biome_world::prelude::*;

/// Bevy's default plugins with a 1280 × 720 window titled `title`, and half the cores building
/// chunks (and colliders) at background priority, so a build never takes the frame's core.
pub(crate) fn world_window(title: &str) -> PluginGroupBuilder {
    DefaultPlugins
        .set(WindowPlugin {
            primary_window: Some(Window {
                title: title.to_owned(),
                resolution: WindowResolution::new(1280, 720),
                ..default()
            }),
            ..default()
        })
        .set(TaskPoolPlugin {
            task_pool_options: TaskPoolOptions {
                async_compute: background_async_compute(0.5, 8),
                ..default()
            },
        })
}

/// Sky colour and ambient light, and a sun.
pub(crate) struct ScenePlugin;

impl Plugin for ScenePlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ClearColor(HorizonView::default().fog_color))
            .insert_resource(GlobalAmbientLight {
                color: Color::srgb(0.85, 0.9, 1.0),
                brightness: 900.0,
                ..default()
            })
            .add_systems(Startup, |mut commands: Commands| {
                commands.spawn((
                    DirectionalLight {
                        illuminance: 9_000.0,
                        color: Color::srgb(1.0, 0.96, 0.88),
                        shadow_maps_enabled: true,
                        ..default()
                    },
                    Transform::from_xyz(0.0, 1.0, 0.0)
                        .looking_at(Vec3::new(-0.6, -1.0, -0.35), Vec3::Y),
                ));
            });
    }
}

/// The first point of a spiral around `centre` whose ground is at least `height` above sea
/// level: somewhere to start over land.
pub(crate) fn land_near(biome_world: &BiomeWorld, centre: Vec2, height: f32) -> Vec2 {
    (0..400)
        .map(|k| {
            let angle = k as f32 * 0.7;
            centre + Vec2::new(angle.cos(), angle.sin()) * (k as f32 * 25.0)
        })
        .find(|&p| biome_world.height_at(p) > height)
        .unwrap_or(centre)
}
