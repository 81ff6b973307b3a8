//! Game logic on top of the world: every region gets a camp at its site, with villagers that
//! depend on the region's biome, spawned as the ground of its area arrives (`AreaLoaded`) and
//! gone when it leaves (`AreaUnloaded`), once however often the terrain under it changes level
//! or stitch; a label shows the biome and region under the camera (`BiomeWorld`). Each camp
//! levels a pad for itself and grades a road to its neighbours' camps (`BiomeWorldEdits`):
//! numbered by region, so the world is the same whichever areas load first.
//!
//! `cargo run --example gameplay -- [--screenshot PATH]` (F1 opens the settings panel; a new
//! seed moves every camp).

use std::sync::Arc;

use bevy::prelude::*;
use bevy_biome_world::BiomeWorldState;
use bevy_biome_world::biome_core::edits::{EditLog, EditSet};
use bevy_biome_world::biome_core::{RegionId, Rgb, WorldGenerator};
use bevy_biome_world::prelude::*;

#[path = "support/screenshot.rs"]
mod screenshot;
#[path = "support/screenshot_only.rs"]
mod screenshot_only;
use screenshot::ScreenshotRequest;

/// A region's camp, at its site.
#[derive(Component, Debug)]
struct Camp {
    region: RegionId,
    biome: usize,
}

/// The area a camp stands in: it goes when the area unloads.
#[derive(Component, Debug)]
struct CampArea(ChunkCoord);

/// The ground before the camps' edits, which their pads and roads are levelled by (so a camp's
/// edits do not depend on which were made first), for the settings generation it was made in.
#[derive(Resource)]
struct PlainGround {
    generation: u64,
    world: WorldGenerator,
}

/// The on-screen label.
#[derive(Component)]
struct HereLabel;

/// Meshes and materials shared by every camp, so Bevy batches them.
#[derive(Resource)]
struct CampAssets {
    pole: Handle<Mesh>,
    flag: Handle<Mesh>,
    villager: Handle<Mesh>,
    wood: Handle<StandardMaterial>,
    /// One flag and villager colour per biome, by index in the biome table.
    colours: Vec<Handle<StandardMaterial>>,
}

fn main() {
    // Before the window: a wrong command line exits without opening one.
    let screenshot = screenshot_only::screenshot_arg("gameplay");
    let mut app = App::new();
    app.insert_resource(ClearColor(HorizonView::default().fog_color))
        // A short horizon: the camp life is near, and the haze hides the land's edge.
        .insert_resource(BiomeWorldStreaming {
            horizon: 1600.0,
            ..default()
        })
        .add_plugins((DefaultPlugins, BiomeWorldPlugin))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (
                fly,
                (colour_camps, despawn_camps, plain_ground, spawn_camps).chain(),
                show_here,
            )
                .after(BiomeWorldSystems::Apply),
        );
    #[cfg(feature = "panel")]
    app.add_plugins(BiomeWorldPanelPlugin {
        open: false,
        ..default()
    });
    if let Some(screenshot) = screenshot {
        app.add_plugins(screenshot);
    }
    app.run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.spawn((
        Camera3d::default(),
        BiomeWorldAnchor,
        Transform::from_xyz(0.0, 120.0, 0.0),
        HorizonView::default(),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            ..default()
        },
        Transform::default().looking_to(Vec3::new(-0.6, -1.0, -0.4), Vec3::Y),
    ));
    commands.spawn((
        HereLabel,
        Text::new("…"),
        TextFont::from_font_size(18.0),
        TextColor(Color::WHITE),
        BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.55)),
        Node {
            position_type: PositionType::Absolute,
            top: Val::Px(12.0),
            right: Val::Px(12.0),
            padding: UiRect::all(Val::Px(8.0)),
            ..default()
        },
    ));
    commands.insert_resource(CampAssets {
        pole: meshes.add(Cylinder::new(0.3, 12.0)),
        flag: meshes.add(Cuboid::new(4.0, 2.5, 0.2)),
        villager: meshes.add(Capsule3d::new(0.6, 1.6)),
        wood: materials.add(Color::srgb(0.45, 0.32, 0.2)),
        colours: Vec::new(),
    });
}

/// One material per biome, in the biome's colour, remade when the biome table changes.
fn colour_camps(
    settings: Res<BiomeWorldSettings>,
    mut assets: ResMut<CampAssets>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let biomes = &settings.generator.biome_table.biomes;
    if !settings.is_changed() && assets.colours.len() == biomes.len() {
        return;
    }
    assets.colours = biomes
        .iter()
        .map(|b| materials.add(Color::srgb_u8(b.color.0, b.color.1, b.color.2)))
        .collect();
}

/// Villagers per camp, by biome: many in lush biomes, few in harsh ones.
fn villagers(biome_name: &str) -> usize {
    match biome_name {
        "Desert" | "Tundra" => 1,
        "Plains" | "Savanna" | "Taiga" => 3,
        _ => 2,
    }
}

/// Camps leave with their area (an area that reloads with new settings gets new camps after).
fn despawn_camps(
    mut commands: Commands,
    mut unloaded: MessageReader<AreaUnloaded>,
    camps: Query<(Entity, &CampArea)>,
) {
    let gone: Vec<ChunkCoord> = unloaded.read().map(|message| message.area).collect();
    for (camp, area) in &camps {
        if gone.contains(&area.0) {
            commands.entity(camp).despawn();
        }
    }
}

/// Follows the settings: new settings move every camp, so the old camps' edits go.
fn plain_ground(
    mut commands: Commands,
    state: Res<BiomeWorldState>,
    plain: Option<Res<PlainGround>>,
    mut edits: ResMut<BiomeWorldEdits>,
) {
    if plain.is_some_and(|plain| plain.generation == state.generation()) {
        return;
    }
    if !edits.log().is_empty() {
        edits.replace(EditLog::new());
    }
    let world = (**state.generator()).clone();
    commands.insert_resource(PlainGround {
        generation: state.generation(),
        world: world.with_edits(Arc::new(EditSet::default())),
    });
}

/// The log number of a camp's edit of `kind`: the roads' (0 and 1) before the pads' (2), so a
/// road ends level with the pad it reaches; each region's numbers are its own.
fn sequence(kind: u64, region: RegionId) -> u64 {
    let zigzag = |v: i64| ((v << 1) ^ (v >> 63)).cast_unsigned() & 0x7fff_ffff;
    kind << 62 | zigzag(region.x) << 31 | zigzag(region.z)
}

/// A flat pad under the camp at `site`, and a road to the camps of the regions east and south
/// of `region`, graded along the ground between (never below the water's edge).
fn level_camp(
    edits: &mut BiomeWorldEdits,
    plain: &WorldGenerator,
    region: RegionId,
    site: [f64; 2],
) {
    let height = |[x, z]: [f64; 2]| plain.height_at(x, z);
    let grid = plain.regions();
    for (kind, [dx, dz]) in [(0, [1, 0]), (1, [0, 1])] {
        let other = grid.site(RegionId {
            x: region.x + dx,
            z: region.z + dz,
        });
        if height(other) < 0.0 {
            continue;
        }
        let points = (0..=8)
            .map(|k| {
                let t = f64::from(k) / 8.0;
                let at = [
                    site[0] + (other[0] - site[0]) * t,
                    site[1] + (other[1] - site[1]) * t,
                ];
                [at[0], height(at).max(1.0), at[1]]
            })
            .collect();
        let road = EditShape::Path {
            points,
            width: 5.0,
            skirt: 6.0,
            surface: Some(Rgb(128, 104, 78)),
        };
        // Numbered by region: the same entry comes again when the area reloads.
        if let Err(error) = edits.record(sequence(kind, region), road) {
            warn!("no road from camp {region:?}: {error}");
        }
    }
    let pad = EditShape::Pad {
        center: site,
        half_size: [10.0, 10.0],
        height: height(site),
        skirt: 12.0,
    };
    if let Err(error) = edits.record(sequence(2, region), pad) {
        warn!("no pad under camp {region:?}: {error}");
    }
}

/// A camp at every region site inside each area whose ground arrives, on its own pad.
fn spawn_camps(
    mut commands: Commands,
    mut loaded: MessageReader<AreaLoaded>,
    biome_world: BiomeWorld,
    assets: Res<CampAssets>,
    plain: Option<Res<PlainGround>>,
    mut edits: ResMut<BiomeWorldEdits>,
) {
    let Some(plain) = plain else { return };
    let generator = biome_world.generator();
    let grid = generator.regions();
    for area in loaded.read() {
        let origin = area.area.origin(&area.layout);
        let size = area.layout.chunk_size();
        let first = grid.cell_of(origin[0], origin[1]);
        let last = grid.cell_of(origin[0] + size, origin[1] + size);
        for cz in first.z..=last.z {
            for cx in first.x..=last.x {
                let region = RegionId { x: cx, z: cz };
                let [x, z] = grid.site(region);
                let inside = (origin[0]..origin[0] + size).contains(&x)
                    && (origin[1]..origin[1] + size).contains(&z);
                let ground = plain.world.height_at(x, z);
                if !inside || ground < 0.0 {
                    continue;
                }
                level_camp(&mut edits, &plain.world, region, [x, z]);
                let ground = ground as f32;
                let biome = generator.region_biome(region);
                let colour = assets.colours.get(biome).cloned().unwrap_or_default();
                let mut camp = commands.spawn((
                    Camp { region, biome },
                    CampArea(area.area),
                    Transform::from_xyz(x as f32, ground, z as f32),
                    Visibility::default(),
                ));
                camp.with_children(|camp| {
                    camp.spawn((
                        Mesh3d(assets.pole.clone()),
                        MeshMaterial3d(assets.wood.clone()),
                        Transform::from_xyz(0.0, 6.0, 0.0),
                    ));
                    camp.spawn((
                        Mesh3d(assets.flag.clone()),
                        MeshMaterial3d(colour.clone()),
                        Transform::from_xyz(2.2, 10.5, 0.0),
                    ));
                    let name = &generator.settings().biome_table.biomes[biome].name;
                    for k in 0..villagers(name) {
                        let angle = k as f32 * 2.1 + (cx ^ cz) as f32;
                        // On the pad: flat ground at the camp's height.
                        let offset = Vec2::from_angle(angle) * 5.0;
                        camp.spawn((
                            Mesh3d(assets.villager.clone()),
                            MeshMaterial3d(colour.clone()),
                            Transform::from_xyz(offset.x, 1.4, offset.y),
                        ));
                    }
                });
            }
        }
    }
}

/// The biome and region under the camera, and the nearest camp in sight.
fn show_here(
    biome_world: BiomeWorld,
    camera: Single<&Transform, With<Camera3d>>,
    camps: Query<(&Camp, &GlobalTransform)>,
    mut label: Single<&mut Text, With<HereLabel>>,
) {
    let xz = camera.translation.xz();
    let sample = biome_world.sample_at(xz);
    let biomes = &biome_world.generator().settings().biome_table.biomes;
    let nearest = camps
        .iter()
        .map(|(camp, at)| (camp, at.translation().xz().distance(xz)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let camp = nearest.map_or_else(String::new, |(camp, distance)| {
        format!(
            "\nnearest camp: region ({}, {}), {}, {distance:.0} u away",
            camp.region.x, camp.region.z, biomes[camp.biome].name
        )
    });
    label.0 = format!(
        "{} ({:?}), region ({}, {}), ground {:.0} u{camp}",
        biomes[sample.biome].name, sample.surface, sample.region.x, sample.region.z, sample.height
    );
}

/// A slow glide over the land, holding a height above the ground ahead. While a screenshot
/// waits, the camera looks at the camp nearest the origin instead.
fn fly(
    time: Res<Time>,
    biome_world: BiomeWorld,
    screenshot: Option<Res<ScreenshotRequest>>,
    camps: Query<&GlobalTransform, With<Camp>>,
    mut camera: Single<&mut Transform, With<Camera3d>>,
) {
    if screenshot.is_some() {
        let nearest = camps
            .iter()
            .map(GlobalTransform::translation)
            .min_by(|a, b| a.xz().length().total_cmp(&b.xz().length()));
        if let Some(camp) = nearest {
            let from = camp.xz() + Vec2::new(-60.0, 60.0);
            let height = biome_world.height_at(from).max(camp.y) + 70.0;
            **camera = Transform::from_xyz(from.x, height, from.y)
                .looking_at(camp + Vec3::Y * 6.0, Vec3::Y);
        }
        return;
    }
    let t = time.elapsed_secs();
    let heading = 0.6 + t * 0.03;
    let forward = Vec2::new(heading.sin(), heading.cos());
    let here = camera.translation.xz() + forward * 30.0 * time.delta_secs();
    let ground = [0.0, 40.0, 90.0]
        .map(|ahead| biome_world.height_at(here + forward * ahead))
        .into_iter()
        .fold(0.0_f32, f32::max);
    let altitude = camera.translation.y + (ground + 45.0 - camera.translation.y) * 0.02;
    camera.translation = Vec3::new(here.x, altitude, here.y);
    camera.rotation = Quat::from_euler(EulerRot::YXZ, heading + std::f32::consts::PI, -0.35, 0.0);
}
