//! The game's own models in the world: a glTF pine (a trunk and two needle materials) for
//! conifers and snowy conifers, and a glTF boulder for rocks, from `assets/models/` (made by
//! `assets/models/make_models.py`). Once the pine has loaded its size is measured from it
//! (`TreeSize::measure_scene`), so trunk colliders and the far forests' spires match it.
//!
//! `cargo run --example custom_assets -- [--screenshot PATH]`
use std::path::PathBuf;

use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;
use bevy_biome_world::biome_core::TreeSpecies;
use bevy_biome_world::biome_core::scatter::ScatterKind;
use bevy_biome_world::prelude::*;
use bevy_biome_world::{ModelLook, ScatterModels, TreeModel, TreeModels, TreeSize};

#[path = "support/scenery.rs"]
#[expect(
    dead_code,
    reason = "the camera starts over a forest, not the nearest land"
)]
mod scenery;
#[path = "support/screenshot.rs"]
mod screenshot;
use scenery::{ScenePlugin, world_window};
use screenshot::{ScreenshotPlugin, ScreenshotRequest};

/// The pine's trunk, which the scene does not say apart from its needles.
const PINE_TRUNK: (f32, f32) = (0.35, 3.0);

/// The pine's scene, until its size is measured.
#[derive(Resource)]
struct PineToMeasure(Handle<WorldAsset>);

fn main() {
    let mut app = App::new();
    app.add_plugins(world_window("bevy_biome_world: custom assets"))
        .insert_resource(BiomeWorldStreaming {
            horizon: 3000.0,
            ..default()
        })
        .add_plugins((BiomeWorldPlugin, ScenePlugin))
        .add_systems(Startup, (own_models, setup))
        .add_systems(
            Update,
            (
                measure_pine.run_if(resource_exists::<PineToMeasure>),
                circle.after(BiomeWorldSystems::Apply),
            ),
        );
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--screenshot", Some(path)) => {
                app.add_plugins(ScreenshotPlugin {
                    path: PathBuf::from(path),
                });
            }
            _ => {
                eprintln!("usage: custom_assets [--screenshot PATH]");
                std::process::exit(2);
            }
        }
    }
    app.run();
}

/// The game's models replace the built-in ones; every tree and rock already spawned takes them.
fn own_models(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut trees: ResMut<TreeModels>,
    mut scatter: ResMut<ScatterModels>,
) {
    let pine = assets.load(GltfAssetLabel::Scene(0).from_asset("models/pine.glb"));
    for species in [TreeSpecies::Conifer, TreeSpecies::SnowyConifer] {
        let size = trees.get(species).size;
        trees.set(
            species,
            TreeModel {
                look: ModelLook::Scene(pine.clone()),
                size,
            },
        );
    }
    commands.insert_resource(PineToMeasure(pine));
    scatter.set(
        ScatterKind::Rock,
        ModelLook::Scene(assets.load(GltfAssetLabel::Scene(0).from_asset("models/boulder.glb"))),
    );
}

/// Sizes the conifers from the pine once it has loaded (the world rebuilds with the new size).
fn measure_pine(
    mut commands: Commands,
    pine: Res<PineToMeasure>,
    scenes: Res<Assets<WorldAsset>>,
    meshes: Res<Assets<Mesh>>,
    materials: Res<Assets<StandardMaterial>>,
    mut trees: ResMut<TreeModels>,
) {
    let Some(scene) = scenes.get(&pine.0) else {
        return;
    };
    let (radius, height) = PINE_TRUNK;
    // Its meshes arrive with it; until they are in, try again next frame.
    let Some(size) = TreeSize::measure_scene(scene, &meshes, &materials, radius, height) else {
        return;
    };
    info!("the pine measures {size:?}");
    for species in [TreeSpecies::Conifer, TreeSpecies::SnowyConifer] {
        let look = trees.get(species).look.clone();
        trees.set(species, TreeModel { look, size });
    }
    commands.remove_resource::<PineToMeasure>();
}

/// Where the camera circles: a conifer forest.
#[derive(Resource)]
struct Orbit {
    centre: Vec2,
}

fn setup(mut commands: Commands, biome_world: BiomeWorld) {
    let centre = conifer_forest(&biome_world);
    commands.insert_resource(Orbit { centre });
    commands.spawn((
        Camera3d::default(),
        BiomeWorldAnchor,
        HorizonView::default(),
        Transform::from_xyz(centre.x, 200.0, centre.y),
    ));
}

/// The first place along a spiral from the origin with a dense stand of conifers.
fn conifer_forest(biome_world: &BiomeWorld) -> Vec2 {
    let generator = biome_world.generator();
    (0..4000)
        .map(|k| {
            let angle = k as f32 * 0.7;
            Vec2::new(angle.cos(), angle.sin()) * (k as f32 * 8.0)
        })
        .find(|p| {
            let (x, z) = (f64::from(p.x), f64::from(p.y));
            generator
                .trees_in_rect([x - 20.0, z - 20.0], [x + 20.0, z + 20.0])
                .iter()
                .filter(|t| matches!(t.species, TreeSpecies::Conifer | TreeSpecies::SnowyConifer))
                .count()
                >= 12
        })
        .unwrap_or(Vec2::ZERO)
}

/// A slow circle over the forest, looking down into it (still while a screenshot waits).
fn circle(
    time: Res<Time>,
    orbit: Res<Orbit>,
    biome_world: BiomeWorld,
    screenshot: Option<Res<ScreenshotRequest>>,
    mut cameras: Query<&mut Transform, With<Camera3d>>,
) {
    let angle = if screenshot.is_some() {
        0.0
    } else {
        time.elapsed_secs() * 0.05
    };
    let at = orbit.centre + Vec2::from_angle(angle) * 60.0;
    let ground = biome_world.ground_height_at(at).max(0.0);
    let target = orbit
        .centre
        .extend(biome_world.ground_height_at(orbit.centre));
    for mut transform in &mut cameras {
        *transform = Transform::from_xyz(at.x, ground + 32.0, at.y)
            .looking_at(Vec3::new(target.x, target.z + 2.0, target.y), Vec3::Y);
    }
}
