//! The game's own models and kinds in the world: a glTF pine (a trunk and two needle materials)
//! for conifers and snowy conifers, and a glTF boulder for rocks, from `assets/models/` (made by
//! `assets/models/make_models.py`). Once the pine has loaded its size is measured from it
//! (`TreeSize::measure_scene`), so trunk colliders and the far forests' spires match it. A loot
//! layer of the game's own scatters chests over dry land: the world places them, the game
//! hears of each (`ScatterSpawned`) and gives it a `Chest` of its own.
//!
//! `cargo run --example custom_assets -- [--screenshot PATH]`
use std::collections::HashMap;

use bevy::math::DVec3;
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;
use bevy_biome_world::biome_core::TreeSpecies;
use bevy_biome_world::biome_core::scatter::{ScatterId, ScatterLayer, ScatterSpacing};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{
    ModelLook, ScatterDespawned, ScatterModels, ScatterSpawned, TreeModel, TreeModels, TreeSize,
};

#[path = "support/scenery.rs"]
#[expect(
    dead_code,
    reason = "the camera starts over a forest, not the nearest land"
)]
mod scenery;
#[path = "support/screenshot.rs"]
mod screenshot;
#[path = "support/screenshot_only.rs"]
mod screenshot_only;
use scenery::{ScenePlugin, world_window};
use screenshot::ScreenshotRequest;

/// The pine's trunk, which the scene does not say apart from its needles.
const PINE_TRUNK: (f32, f32) = (0.35, 3.0);

/// The pine's scene, until its size is measured.
#[derive(Resource)]
struct PineToMeasure(Handle<WorldAsset>);

/// Marks a loot chest, on the entity the world spawned for it.
#[derive(Component)]
struct Chest;

/// The chests around the camera, by id: the same chest wherever and whenever the world places
/// it, so this is what a save of opened chests would key on.
#[derive(Resource, Default)]
struct Chests(HashMap<ScatterId, DVec3>);

fn main() {
    // Before the window: a wrong command line exits without opening one.
    let screenshot = screenshot_only::screenshot_arg("custom_assets");
    let mut app = App::new();
    app.add_plugins(world_window("bevy_biome_world: custom assets"))
        .insert_resource(BiomeWorldSettings {
            generator: with_loot(WorldSettings::default()),
            ..default()
        })
        .insert_resource(BiomeWorldStreaming {
            horizon: 3000.0,
            ..default()
        })
        .add_plugins((BiomeWorldPlugin, ScenePlugin))
        .init_resource::<Chests>()
        .add_systems(Startup, (own_models, setup))
        .add_systems(
            Update,
            (
                measure_pine.run_if(resource_exists::<PineToMeasure>),
                circle.after(BiomeWorldSystems::Apply),
                keep_chests.after(BiomeWorldSystems::Apply),
            ),
        );
    if let Some(screenshot) = screenshot {
        app.add_plugins(screenshot);
    }
    app.run();
}

/// `settings` with a loot layer: chests at least 25 m apart in every biome, on dry land above
/// 2 m (snow too), never on slopes over 20°.
fn with_loot(mut settings: WorldSettings) -> WorldSettings {
    settings.scatter.layers.push(ScatterLayer {
        max_slope_degrees: 20.0,
        min_height: Some(2.0),
        on_snow: true,
        min_scale: 1.0,
        max_scale: 1.0,
        ..ScatterLayer::new("loot").expect("a layer name")
    });
    for biome in &mut settings.biome_table.biomes {
        biome.scatter.push(ScatterSpacing::new("loot", 25.0));
    }
    settings
}

/// The game's models replace the built-in ones; every tree and rock already spawned takes them.
/// Chests get a look too, so the world spawns an entity for each.
fn own_models(
    mut commands: Commands,
    assets: Res<AssetServer>,
    mut trees: ResMut<TreeModels>,
    mut scatter: ResMut<ScatterModels>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
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
        ScatterLayer::ROCK,
        ModelLook::Scene(assets.load(GltfAssetLabel::Scene(0).from_asset("models/boulder.glb"))),
    );
    // A chest standing on the ground: y = 0 at its base.
    let chest = Cuboid::new(1.6, 1.0, 1.0)
        .mesh()
        .build()
        .translated_by(Vec3::Y * 0.5);
    scatter.set(
        "loot",
        ModelLook::Mesh {
            mesh: meshes.add(chest),
            material: materials.add(StandardMaterial {
                base_color: Color::srgb(0.85, 0.62, 0.12),
                metallic: 0.6,
                perceptual_roughness: 0.4,
                ..default()
            }),
        },
    );
}

/// Marks every chest the world places and keeps them by id as they come and go.
fn keep_chests(
    mut commands: Commands,
    mut spawned: MessageReader<ScatterSpawned>,
    mut despawned: MessageReader<ScatterDespawned>,
    mut chests: ResMut<Chests>,
) {
    for chest in spawned.read().filter(|o| o.layer.as_str() == "loot") {
        if let Some(entity) = chest.entity {
            commands.entity(entity).try_insert(Chest);
        }
        chests.0.insert(chest.id, chest.position);
    }
    for chest in despawned.read().filter(|o| o.layer.as_str() == "loot") {
        chests.0.remove(&chest.id);
    }
    if chests.is_changed() {
        debug!("{} chests around the camera", chests.0.len());
    }
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
