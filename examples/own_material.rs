//! The terrain in the game's own material: a topographic map look, written as an extension of
//! `StandardMaterial` (`assets/shaders/contours.wgsl`) and given to every terrain node with
//! `OwnTerrainMaterialPlugin`. Streaming never puts the plugin's material back; nodes swap in one
//! frame instead of fading.
//!
//! `cargo run --example own_material -- [--screenshot PATH]`

use bevy::pbr::{ExtendedMaterial, MaterialExtension};
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, ShaderType};
use bevy::shader::ShaderRef;
use bevy_biome_world::prelude::*;
use bevy_biome_world::{OwnTerrainMaterial, OwnTerrainMaterialPlugin};

#[path = "support/scenery.rs"]
mod scenery;
#[path = "support/screenshot.rs"]
mod screenshot;
#[path = "support/screenshot_only.rs"]
mod screenshot_only;
use scenery::{ScenePlugin, land_near, world_window};

/// The map look: contour lines over the ground's colours.
type MapMaterial = ExtendedMaterial<StandardMaterial, Contours>;

#[derive(Asset, AsBindGroup, Reflect, Debug, Clone)]
struct Contours {
    #[uniform(100)]
    uniform: ContoursUniform,
}

/// The layout `contours.wgsl` reads.
#[derive(ShaderType, Reflect, Debug, Clone, Copy)]
struct ContoursUniform {
    line_color: Vec4,
    water_color: Vec4,
    /// Height between contour lines, world units.
    spacing: f32,
    /// Line width, pixels.
    width: f32,
    padding: Vec2,
}

impl MaterialExtension for Contours {
    fn fragment_shader() -> ShaderRef {
        "shaders/contours.wgsl".into()
    }
}

fn main() {
    // Before the window: a wrong command line exits without opening one.
    let screenshot = screenshot_only::screenshot_arg("own_material");
    let mut app = App::new();
    app.add_plugins(world_window("bevy_biome_world: own material"))
        .add_plugins(MaterialPlugin::<MapMaterial>::default())
        .insert_resource(BiomeWorldStreaming {
            horizon: 4096.0,
            // Only the plugin's own material dithers a node in: swap in one frame.
            fade_seconds: 0.0,
            ..default()
        })
        .add_plugins((
            BiomeWorldPlugin,
            OwnTerrainMaterialPlugin::<MapMaterial>::default(),
            ScenePlugin,
        ))
        .add_systems(Startup, setup);
    if let Some(screenshot) = screenshot {
        app.add_plugins(screenshot);
    }
    app.run();
}

fn setup(
    mut commands: Commands,
    mut materials: ResMut<Assets<MapMaterial>>,
    biome_world: BiomeWorld,
) {
    let material = materials.add(MapMaterial {
        base: StandardMaterial {
            perceptual_roughness: 0.95,
            reflectance: 0.2,
            ..default()
        },
        extension: Contours {
            uniform: ContoursUniform {
                line_color: Vec4::new(0.18, 0.11, 0.05, 0.85),
                water_color: LinearRgba::from(Color::srgb(0.25, 0.45, 0.65)).to_vec4(),
                spacing: 10.0,
                width: 1.0,
                padding: Vec2::ZERO,
            },
        },
    });
    commands.insert_resource(OwnTerrainMaterial(material));
    let start = land_near(&biome_world, Vec2::ZERO, 20.0);
    let ground = biome_world.ground_height_at(start);
    commands.spawn((
        Camera3d::default(),
        BiomeWorldAnchor,
        HorizonView::default(),
        Transform::from_xyz(start.x, ground + 260.0, start.y)
            .looking_at(Vec3::new(start.x + 500.0, ground, start.y + 350.0), Vec3::Y),
    ));
}
