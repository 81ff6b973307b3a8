//! Headless tests of the scattered objects: rocks, bushes and grass stream around the anchor out
//! to each layer's radius, stand where the core places them, share one mesh per layer, follow the
//! anchor, and go when switched off; a game's own layer is told to game code as messages, each
//! object once, with ids that survive rebuilds.

#[expect(dead_code, reason = "the scatter tests need no random numbers")]
mod common;

use std::collections::HashSet;

use bevy::ecs::message::Messages;
use bevy::math::DVec3;
use bevy::prelude::*;
use bevy_biome_world::biome_core::cover::LayerName;
use bevy_biome_world::biome_core::density::DensityNode;
use bevy_biome_world::biome_core::scatter::{
    ScatterGround, ScatterId, ScatterLayer, ScatterSpacing,
};
use bevy_biome_world::biome_core::{ChunkCoord, ChunkLayout, MeshStyle};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{
    BiomeScatter, BiomeScatterObject, BiomeScatterStats, BiomeWorldState, ScatterDespawned,
    ScatterModels, ScatterSpawned,
};

fn app(scatter: BiomeScatterSettings) -> (App, Entity) {
    app_with(scatter, WorldSettings::default())
}

fn app_with(scatter: BiomeScatterSettings, generator: WorldSettings) -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin))
        .insert_resource(BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 16,
                tile_size: 4.0,
                style: MeshStyle::Smooth,
            },
            generator,
            ..default()
        })
        .insert_resource(BiomeWorldStreaming::full_detail(128.0))
        .insert_resource(scatter)
        .add_plugins(BiomeWorldPlugin);
    app.finish();
    app.cleanup();
    let at = forest(&app);
    let anchor = app
        .world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(at.x, 60.0, at.y)))
        .id();
    (app, anchor)
}

/// A spot of forest land (where every built-in layer grows), searched outward from the origin.
fn forest(app: &App) -> Vec2 {
    let generator = &app.world().resource::<BiomeWorldState>().generator();
    let biomes = &generator.settings().biome_table.biomes;
    for ring in 0..40 {
        for step in 0..8 * ring.max(1) {
            let angle = step as f32 / (8 * ring.max(1)) as f32 * std::f32::consts::TAU;
            let at = Vec2::from_angle(angle) * ring as f32 * 150.0;
            let sample = generator.sample(f64::from(at.x), f64::from(at.y));
            if biomes[sample.biome].name == "Forest" && sample.height > 10.0 {
                return at;
            }
        }
    }
    panic!("no forest within 6 km");
}

/// Steps until the scatter is idle with every wanted chunk in.
fn settle(app: &mut App) {
    common::step_until_idle(app, "idle scatter", App::update, |app| {
        let stats = app.world().resource::<BiomeScatterStats>();
        stats.is_idle() && stats.chunks.iter().sum::<usize>() > 0
    });
}

/// Every object entity: its chunk's parent component, and its world position.
fn objects(app: &mut App) -> Vec<(BiomeScatter, LayerName, Vec3)> {
    let mut query = app
        .world_mut()
        .query::<(&BiomeScatterObject, &Transform, &ChildOf)>();
    let world = app.world();
    query
        .iter(world)
        .map(|(object, transform, parent)| {
            let scatter = *world.get::<BiomeScatter>(parent.parent()).unwrap();
            let chunk = world.get::<Transform>(parent.parent()).unwrap().translation;
            (scatter, object.layer, chunk + transform.translation)
        })
        .collect()
}

#[test]
fn objects_stream_around_the_anchor_where_the_core_places_them() {
    let settings = BiomeScatterSettings::default();
    let (mut app, anchor) = app(settings.clone());
    let start = app
        .world()
        .get::<Transform>(anchor)
        .unwrap()
        .translation
        .xz();
    settle(&mut app);
    let found = objects(&mut app);
    let layout = *app.world().resource::<BiomeWorldState>().layout();
    let generator = app
        .world()
        .resource::<BiomeWorldState>()
        .generator()
        .clone();
    let layers = &generator.settings().scatter;
    let mut per_kind = [0usize; 3];
    let mut chunks: HashSet<(ChunkCoord, LayerName)> = HashSet::new();
    for (scatter, kind, position) in &found {
        assert_eq!(scatter.layer, *kind);
        per_kind[layers.layer_index(kind.as_str()).unwrap()] += 1;
        chunks.insert((scatter.chunk, *kind));
        // Chunks carry a kind only within its radius of the anchor (plus the hysteresis).
        let origin = scatter.chunk.origin(&layout);
        let centre = Vec2::new(
            (origin[0] + layout.chunk_size() / 2.0) as f32,
            (origin[1] + layout.chunk_size() / 2.0) as f32,
        );
        let reach = settings.radius(kind.as_str()) * (1.0 + settings.hysteresis) + 64.0;
        assert!(centre.distance(start) <= reach, "{kind:?} too far");
        assert!(position.is_finite());
    }
    assert!(
        per_kind.iter().all(|&n| n > 0),
        "objects per kind: {per_kind:?}"
    );
    // Each chunk holds exactly the core's objects of its rectangle.
    for &(chunk, kind) in &chunks {
        let origin = chunk.origin(&layout);
        let size = layout.chunk_size();
        let expected: HashSet<[u32; 3]> = generator
            .scatter_in_rect(
                layers.layer_index(kind.as_str()).unwrap(),
                origin,
                [origin[0] + size, origin[1] + size],
                &layout,
            )
            .unwrap()
            .iter()
            .map(|o| {
                let p = o.relative_to(origin).position;
                [
                    (origin[0] as f32 + p[0]).to_bits(),
                    p[1].to_bits(),
                    (origin[1] as f32 + p[2]).to_bits(),
                ]
            })
            .collect();
        let got: HashSet<[u32; 3]> = found
            .iter()
            .filter(|(s, k, _)| s.chunk == chunk && *k == kind)
            .map(|(_, _, p)| p.to_array().map(f32::to_bits))
            .collect();
        assert_eq!(got, expected, "{kind:?} on {chunk:?}");
    }
    // One mesh and one material per layer, shared by every object of it.
    let mut query = app.world_mut().query::<(
        &BiomeScatterObject,
        &Mesh3d,
        &MeshMaterial3d<StandardMaterial>,
    )>();
    let mut handles: Vec<HashSet<AssetId<Mesh>>> = vec![HashSet::new(); 3];
    for (object, mesh, material) in query.iter(app.world()) {
        handles[layers.layer_index(object.layer.as_str()).unwrap()].insert(mesh.id());
        assert!(material.id() != AssetId::default());
    }
    assert!(handles.iter().all(|h| h.len() == 1), "{handles:?}");
    let stats = app.world().resource::<BiomeScatterStats>().clone();
    assert_eq!(stats.objects.iter().sum::<usize>(), found.len());

    // The anchor moves a kilometre: the old objects go, new ones come.
    app.world_mut()
        .entity_mut(anchor)
        .insert(Transform::from_xyz(700.0, 60.0, 200.0));
    settle(&mut app);
    let moved = objects(&mut app);
    assert!(!moved.is_empty());
    for (scatter, kind, _) in &moved {
        let origin = scatter.chunk.origin(&layout);
        let reach = f64::from(settings.radius(kind.as_str())) * 1.25 + 64.0;
        assert!(
            (origin[0] + 32.0 - 700.0).abs() <= reach,
            "{kind:?} left behind"
        );
    }
}

#[test]
fn layers_switch_off_by_radius_and_all_go_when_disabled() {
    let mut settings = BiomeScatterSettings::default();
    settings.set_radius(ScatterLayer::GRASS, 0.0);
    let (mut app, _) = app(settings.clone());
    settle(&mut app);
    let found = objects(&mut app);
    assert!(!found.is_empty());
    assert!(
        found
            .iter()
            .all(|(_, kind, _)| kind.as_str() != ScatterLayer::GRASS)
    );

    app.world_mut()
        .resource_mut::<BiomeScatterSettings>()
        .enabled = false;
    // Hidden at once, despawned a slice at a time.
    common::step_until(&mut app, "objects gone", App::update, |app| {
        let stats = app.world().resource::<BiomeScatterStats>();
        stats.objects.iter().sum::<usize>() == 0 && stats.is_idle()
    });
    assert!(
        objects(&mut app).is_empty(),
        "objects left after switching off"
    );

    // Refused settings keep the last valid ones and say why.
    app.world_mut()
        .resource_mut::<BiomeScatterSettings>()
        .set_radius(ScatterLayer::ROCK, 5000.0);
    app.update();
    let error = app.world().resource::<BiomeScatterStats>().error.clone();
    assert!(error.is_some_and(|e| e.contains("scatter.radii[0].radius")));
}

/// Every layout the scatter settings accept scatters its chunks within the core's limit
/// (`scatter::MAX_CELLS` candidate cells a search), so no valid world asks the core for a
/// rectangle it refuses: the limit on objects around an anchor is the stricter.
#[test]
fn accepted_layouts_scatter_within_the_cores_limit() {
    use bevy_biome_world::biome_core::scatter::{MAX_CELLS, max_search_cells};
    let settings = WorldSettings::default();
    let scatter = BiomeScatterSettings::default();
    let mut accepted = 0;
    for tiles in [8, 16, 32, 64, 128, 256] {
        for tile_size in [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0] {
            let layout = ChunkLayout {
                tiles,
                tile_size,
                style: MeshStyle::Smooth,
            };
            if layout.validate().is_err() || scatter.validate_with(&settings, &layout).is_err() {
                continue;
            }
            accepted += 1;
            let side = layout.chunk_size();
            for kind in 0..settings.scatter.layers.len() {
                let cells = max_search_cells(&settings, kind, side, side);
                assert!(
                    cells <= MAX_CELLS,
                    "{layout:?}: {kind:?} needs {cells} cells"
                );
            }
        }
    }
    assert!(accepted > 10, "{accepted} layouts accepted");
}

/// Every message of type `M` written since the last call.
fn drain<M: Message>(app: &mut App) -> Vec<M> {
    app.world_mut()
        .resource_mut::<Messages<M>>()
        .drain()
        .collect()
}

/// `generator` with a game's `layer` added, `spacing` apart in every biome.
fn with_layer(mut generator: WorldSettings, layer: ScatterLayer, spacing: f64) -> WorldSettings {
    let name = layer.name;
    generator.scatter.layers.push(layer);
    for biome in &mut generator.biome_table.biomes {
        biome
            .scatter
            .push(ScatterSpacing::new(name.as_str(), spacing));
    }
    generator
}

/// The core's objects of the layer called `name` on every chunk of it the app holds, placed for
/// `layout`: by id, at the world position game code is told.
fn core_objects(
    app: &mut App,
    name: &str,
    layout: &ChunkLayout,
) -> std::collections::HashMap<ScatterId, DVec3> {
    let generator = app
        .world()
        .resource::<BiomeWorldState>()
        .generator()
        .clone();
    let layer = generator.settings().scatter.layer_index(name).unwrap();
    let chunk_layout = *app.world().resource::<BiomeWorldState>().layout();
    let size = chunk_layout.chunk_size();
    let mut query = app.world_mut().query::<&BiomeScatter>();
    let mut objects = std::collections::HashMap::new();
    for scatter in query.iter(app.world()).filter(|s| s.layer.as_str() == name) {
        let origin = scatter.chunk.origin(&chunk_layout);
        for object in generator
            .scatter_in_rect(layer, origin, [origin[0] + size, origin[1] + size], layout)
            .unwrap()
        {
            let p = object.relative_to(origin).position;
            let at = DVec3::new(origin[0], 0.0, origin[1]) + Vec3::from_array(p).as_dvec3();
            objects.insert(object.id, at);
        }
    }
    objects
}

/// A game's loot layer (no look: messages only) streams like the built-in ones: game code hears
/// of exactly the core's chests within reach, each once, none spawned as entities; a rebuild of
/// the world that leaves the chests where they are tells nothing new; moving away tells each
/// chest's going once.
#[test]
fn a_games_loot_layer_is_told_to_game_code_once_per_chest() {
    let loot = ScatterLayer::new("loot").unwrap();
    let generator = with_layer(WorldSettings::default(), loot, 24.0);
    let mut scatter = BiomeScatterSettings::default();
    scatter.set_radius("loot", 160.0);
    let (mut app, anchor) = app_with(scatter, generator);
    let mut present: std::collections::HashMap<ScatterId, DVec3> = Default::default();
    let tell = |app: &mut App, present: &mut std::collections::HashMap<ScatterId, DVec3>| {
        for spawned in drain::<ScatterSpawned>(app) {
            if spawned.layer.as_str() == "loot" {
                assert!(
                    spawned.entity.is_none(),
                    "a layer without a look spawns nothing"
                );
                let before = present.insert(spawned.id, spawned.position);
                assert!(before.is_none(), "chest {:?} told twice", spawned.id);
            }
        }
        for gone in drain::<ScatterDespawned>(app) {
            if gone.layer.as_str() == "loot" {
                assert_eq!(present.remove(&gone.id), Some(gone.position), "{gone:?}");
            }
        }
    };
    common::step_until_idle(&mut app, "chests in", App::update, |app| {
        tell(app, &mut present);
        let stats = app.world().resource::<BiomeScatterStats>();
        stats.is_idle() && stats.objects.get(3).is_some_and(|&n| n > 0)
    });
    tell(&mut app, &mut present);
    // Exactly the core's chests on the chunks carrying the layer.
    let layout = *app.world().resource::<BiomeWorldState>().layout();
    let expected = core_objects(&mut app, "loot", &layout);
    assert!(present.len() > 20, "only {} chests", present.len());
    assert_eq!(present, expected);
    assert!(
        objects(&mut app)
            .iter()
            .all(|(_, layer, _)| layer.as_str() != "loot"),
        "chests spawned as entities"
    );
    assert_eq!(
        app.world().resource::<BiomeScatterStats>().objects[3],
        present.len()
    );

    // The trees change: every chunk is rebuilt, and the chests, where they were, say nothing.
    app.world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .trees
        .spacing += 1.0;
    let generation = app.world().resource::<BiomeWorldState>().generation();
    common::step_until_idle(&mut app, "rebuilt", App::update, |app| {
        let told = drain::<ScatterSpawned>(app).into_iter().map(|o| o.layer);
        let gone = drain::<ScatterDespawned>(app).into_iter().map(|o| o.layer);
        let loot = told
            .chain(gone)
            .filter(|layer| layer.as_str() == "loot")
            .count();
        assert_eq!(loot, 0, "a rebuild told of chests that did not change");
        let rebuilt = app
            .world_mut()
            .query::<&BiomeScatter>()
            .iter(app.world())
            .all(|s| s.generation > generation);
        rebuilt && app.world().resource::<BiomeScatterStats>().is_idle()
    });

    // Away: every chest goes, each told once.
    app.world_mut()
        .entity_mut(anchor)
        .insert(Transform::from_xyz(5000.0, 60.0, 5000.0));
    let before: HashSet<ScatterId> = present.keys().copied().collect();
    common::step_until_idle(&mut app, "chests gone", App::update, |app| {
        tell(app, &mut present);
        app.world().resource::<BiomeScatterStats>().is_idle()
            && present.keys().all(|id| !before.contains(id))
    });
}

/// Layers edited while the game runs: a loot layer inserted before the built-in ones leaves
/// their objects in place (no rock, bush or grass goes, not for a frame), a look given to it
/// later puts an entity on every chest, and a layer too dense for its radius is refused alone
/// while the others keep streaming.
#[test]
fn layers_change_at_run_time_without_disturbing_the_others() {
    let (mut app, _) = app(BiomeScatterSettings::default());
    settle(&mut app);
    drain::<ScatterSpawned>(&mut app);
    drain::<ScatterDespawned>(&mut app);
    let built_in = |layer: &LayerName| layer.as_str() != "loot";

    {
        let mut settings = app.world_mut().resource_mut::<BiomeWorldSettings>();
        let world = &mut settings.generator;
        world
            .scatter
            .layers
            .insert(0, ScatterLayer::new("loot").unwrap());
        for biome in &mut world.biome_table.biomes {
            biome.scatter.push(ScatterSpacing::new("loot", 24.0));
        }
    }
    let mut chests = 0;
    common::step_until_idle(&mut app, "loot in", App::update, |app| {
        let gone = drain::<ScatterDespawned>(app);
        assert!(
            gone.iter().all(|o| !built_in(&o.layer)),
            "built-in objects went: {:?}",
            gone.first()
        );
        chests += drain::<ScatterSpawned>(app)
            .iter()
            .filter(|o| o.layer.as_str() == "loot")
            .count();
        let stats = app.world().resource::<BiomeScatterStats>();
        assert!(
            stats.objects.iter().skip(1).all(|&n| n > 0),
            "{:?}",
            stats.objects
        );
        stats.is_idle() && stats.objects[0] > 0
    });
    assert!(chests > 20, "{chests} chests");

    // A look for the loot: every chest gets an entity, told again with it.
    let procedural = app.world().resource::<ScatterModels>().clone();
    let look = procedural.get(ScatterLayer::ROCK).unwrap().clone();
    app.world_mut()
        .resource_mut::<ScatterModels>()
        .set("loot", look);
    let mut with_entities = 0;
    common::step_until_idle(&mut app, "chests shown", App::update, |app| {
        with_entities += drain::<ScatterSpawned>(app)
            .iter()
            .filter(|o| o.layer.as_str() == "loot" && o.entity.is_some())
            .count();
        app.world().resource::<BiomeScatterStats>().is_idle()
    });
    let shown = objects(&mut app)
        .iter()
        .filter(|(_, layer, _)| layer.as_str() == "loot")
        .count();
    let stats = app.world().resource::<BiomeScatterStats>().clone();
    assert_eq!(shown, stats.objects[0], "a chest without its entity");
    assert!(
        with_entities >= shown && shown > 20,
        "{with_entities} told, {shown} shown"
    );

    // Far too dense for the default radius: refused by its radius, the rest streams on.
    {
        let mut settings = app.world_mut().resource_mut::<BiomeWorldSettings>();
        for biome in &mut settings.generator.biome_table.biomes {
            for entry in &mut biome.scatter {
                if entry.layer.as_str() == "loot" {
                    entry.spacing = 0.5;
                }
            }
        }
    }
    common::step_until_idle(&mut app, "dense loot refused", App::update, |app| {
        app.world().resource::<BiomeScatterStats>().is_idle()
    });
    let stats = app.world().resource::<BiomeScatterStats>().clone();
    assert!(
        stats
            .error
            .as_ref()
            .is_some_and(|e| e.contains("scatter.default_radius")),
        "{:?}",
        stats.error
    );
    assert_eq!(stats.objects[0], 0, "the dense layer streams nothing");
    assert!(
        stats.objects.iter().skip(1).all(|&n| n > 0),
        "{:?}",
        stats.objects
    );
}

/// A game's layer on cave floors streams the core's objects as placed for the plugin's own
/// layout (16 tiles of 4 units here): the floor a cave's objects stand on is the one its chunks
/// draw, which depends on the tiles, and a default layout would place them elsewhere.
#[test]
fn a_cave_layer_streams_the_objects_on_the_floors_its_chunks_draw() {
    let mut generator =
        WorldSettings::from_ron(include_str!("../assets/presets/caves.ron")).unwrap();
    if let Some(volume) = generator.terrain.volume.as_mut() {
        volume.mask = DensityNode::constant(1.0);
    }
    let ore = ScatterLayer {
        ground: ScatterGround::CaveFloor,
        ..ScatterLayer::new("ore").unwrap()
    };
    let generator = with_layer(generator, ore, 6.0);
    let mut scatter = BiomeScatterSettings::default();
    scatter.set_radius("ore", 160.0);
    let (mut app, _) = app_with(scatter, generator);
    let mut told: std::collections::HashMap<ScatterId, DVec3> = Default::default();
    common::step_until_idle(&mut app, "ore in", App::update, |app| {
        for spawned in drain::<ScatterSpawned>(app) {
            if spawned.layer.as_str() == "ore" {
                told.insert(spawned.id, spawned.position);
            }
        }
        let stats = app.world().resource::<BiomeScatterStats>();
        stats.is_idle() && stats.objects.get(3).is_some_and(|&n| n > 0)
    });
    let layout = *app.world().resource::<BiomeWorldState>().layout();
    let expected = core_objects(&mut app, "ore", &layout);
    let elsewhere = core_objects(&mut app, "ore", &ChunkLayout::default());
    let moved = (expected.iter())
        .filter(|&(id, at)| elsewhere.get(id) != Some(at))
        .count();
    assert!(told.len() > 20, "only {} objects", told.len());
    assert_eq!(told, expected);
    assert!(moved > 0, "the default layout places the same objects");
}
