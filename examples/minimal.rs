//! The smallest game with an endless world: the plugin, a camera that streams chunks around it
//! and sees them to the horizon, and a sun. `cargo run --example minimal`
use bevy::prelude::*;
use bevy_biome_world::prelude::*;

fn main() {
    App::new()
        .insert_resource(ClearColor(HorizonView::default().fog_color))
        .add_plugins((DefaultPlugins, BiomeWorldPlugin))
        .add_systems(Startup, |mut commands: Commands| {
            // Chunks stream around every entity with a BiomeWorldAnchor; a HorizonView sees them
            // to the horizon, through a haze that hides where they end.
            let camera = Transform::from_xyz(0.0, 150.0, 0.0)
                .looking_at(Vec3::new(300.0, 0.0, 300.0), Vec3::Y);
            commands.spawn((
                Camera3d::default(),
                BiomeWorldAnchor,
                HorizonView::default(),
                camera,
            ));
            commands.spawn((
                DirectionalLight::default(),
                Transform::default().looking_to(Vec3::new(-0.6, -1.0, -0.4), Vec3::Y),
            ));
        })
        .run();
}
