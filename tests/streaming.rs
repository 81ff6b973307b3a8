//! Headless tests of the plugin: `MinimalPlugins` + `AssetPlugin` + `TransformPlugin` + the plugin,
//! stepped frame by frame with bounded loops.

use std::collections::{HashMap, HashSet};

use bevy::ecs::message::MessageCursor;
use bevy::ecs::system::RunSystemOnce;
use bevy::mesh::{Indices, VertexAttributeValues};
use bevy::prelude::*;
use bevy_biome_world::biome_core::{
    ChunkCoord, ChunkLayout, MeshStyle, WorldGenerator, WorldSettings,
};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{BiomeTree, BiomeWorldState};

/// Small chunks keep each test to a few hundred builds.
fn settings() -> BiomeWorldSettings {
    BiomeWorldSettings {
        layout: ChunkLayout {
            tiles: 16,
            tile_size: 4.0,
            style: MeshStyle::Smooth,
        },
        ..default()
    }
}

/// A small radius, with that.
fn streaming() -> BiomeWorldStreaming {
    BiomeWorldStreaming {
        view_radius: 3,
        despawn_hysteresis: 1,
        ..default()
    }
}

struct Harness {
    app: App,
    anchor: Entity,
    spawned: MessageCursor<ChunkSpawned>,
    despawned: MessageCursor<ChunkDespawned>,
    /// Every message so far, with the frame it was read in.
    spawned_log: Vec<(u64, ChunkSpawned)>,
    /// For each spawn: the generation the chunk was built from, and the current one then.
    spawned_generations: Vec<(u64, u64)>,
    despawned_log: Vec<(u64, ChunkDespawned)>,
    frame: u64,
}

impl Harness {
    fn new(settings: BiomeWorldSettings) -> Self {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin))
            .insert_resource(settings)
            .insert_resource(streaming())
            .add_plugins(BiomeWorldPlugin);
        app.finish();
        app.cleanup();
        let anchor = app
            .world_mut()
            .spawn((BiomeWorldAnchor, Transform::from_xyz(10.0, 50.0, 10.0)))
            .id();
        Self {
            app,
            anchor,
            spawned: MessageCursor::default(),
            despawned: MessageCursor::default(),
            spawned_log: Vec::new(),
            spawned_generations: Vec::new(),
            despawned_log: Vec::new(),
            frame: 0,
        }
    }

    fn step(&mut self) {
        self.app.update();
        self.frame += 1;
        let world = self.app.world();
        let frame = self.frame;
        let spawned = world.resource::<Messages<ChunkSpawned>>();
        let current = world.resource::<BiomeWorldState>().generation;
        for message in self.spawned.read(spawned) {
            self.spawned_log.push((frame, *message));
            let built = world
                .get::<BiomeChunk>(message.entity)
                .map_or(u64::MAX, |c| c.generation);
            self.spawned_generations.push((built, current));
        }
        let despawned = world.resource::<Messages<ChunkDespawned>>();
        self.despawned_log
            .extend(self.despawned.read(despawned).map(|m| (frame, *m)));
    }

    /// Steps until `done` holds, at most `limit` frames; returns the frames it took.
    fn run_until(&mut self, limit: u64, mut done: impl FnMut(&mut Self) -> bool) -> u64 {
        for frame in 1..=limit {
            self.step();
            if done(self) {
                return frame;
            }
            // Builds run on the async compute pool; give its threads the core between frames.
            std::thread::yield_now();
        }
        panic!("condition not reached within {limit} frames");
    }

    /// Steps until the streamer has been idle for two frames in a row: an anchor moved this frame
    /// is seen by the streamer only after transforms propagate at the end of the frame.
    fn run_until_idle(&mut self) -> u64 {
        let mut idle_frames = 0;
        self.run_until(200_000, |h| {
            idle_frames = if h.stats().is_idle() && h.stats().loaded > 0 {
                idle_frames + 1
            } else {
                0
            };
            idle_frames >= 2
        })
    }

    fn stats(&self) -> &BiomeWorldStats {
        self.app.world().resource::<BiomeWorldStats>()
    }

    fn move_anchor(&mut self, to: Vec3) {
        self.app
            .world_mut()
            .get_mut::<Transform>(self.anchor)
            .unwrap()
            .translation = to;
    }

    fn chunks(&mut self) -> HashMap<ChunkCoord, (Entity, BiomeChunk)> {
        let world = self.app.world_mut();
        world
            .query::<(Entity, &BiomeChunk)>()
            .iter(world)
            .map(|(e, c)| (c.coord, (e, *c)))
            .collect()
    }

    fn state(&self) -> &BiomeWorldState {
        self.app.world().resource::<BiomeWorldState>()
    }

    fn circle(&self, center: Vec3) -> HashSet<ChunkCoord> {
        let settings = self.app.world().resource::<BiomeWorldSettings>();
        let c = ChunkCoord::containing(f64::from(center.x), f64::from(center.z), &settings.layout);
        let r = self
            .app
            .world()
            .resource::<BiomeWorldStreaming>()
            .view_radius as i32;
        let mut set = HashSet::new();
        for dz in -r..=r {
            for dx in -r..=r {
                if dx * dx + dz * dz <= r * r {
                    set.insert(ChunkCoord::new(c.x + dx, c.z + dz));
                }
            }
        }
        set
    }
}

#[test]
fn chunks_appear_within_the_radius_and_only_there() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let loaded: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(loaded, h.circle(Vec3::new(10.0, 0.0, 10.0)));
    assert_eq!(h.stats().loaded, loaded.len());
}

#[test]
fn chunks_are_requested_nearest_first() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let center = ChunkCoord::new(0, 0);
    let order: Vec<u64> = h
        .spawned_log
        .iter()
        .map(|(_, m)| m.coord.distance_squared(center))
        .collect();
    // With a budget of several tasks at once, a later chunk may land a little before a nearer one,
    // but the first chunk is the anchor's own and the far ring comes last.
    assert_eq!(order[0], 0);
    let half = order.len() / 2;
    let early = order[..half].iter().sum::<u64>() as f64 / half as f64;
    let late = order[half..].iter().sum::<u64>() as f64 / (order.len() - half) as f64;
    assert!(
        early < late,
        "mean squared distance {early} early vs {late} late"
    );
}

#[test]
fn each_chunk_is_announced_once() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let coords: Vec<ChunkCoord> = h.spawned_log.iter().map(|(_, m)| m.coord).collect();
    let unique: HashSet<ChunkCoord> = coords.iter().copied().collect();
    assert_eq!(coords.len(), unique.len(), "a chunk was announced twice");
    assert_eq!(unique, h.circle(Vec3::new(10.0, 0.0, 10.0)));
    assert!(h.despawned_log.is_empty());
    let chunks = h.chunks();
    for (_, message) in &h.spawned_log {
        assert_eq!(chunks[&message.coord].0, message.entity);
    }
}

#[test]
fn moving_the_anchor_despawns_the_old_ring_and_spawns_the_new() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let before: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    let target = Vec3::new(10.0 + 64.0 * 10.0, 50.0, 10.0);
    h.move_anchor(target);
    h.run_until_idle();
    let after: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(after, h.circle(target));
    let gone: HashSet<ChunkCoord> = h.despawned_log.iter().map(|(_, m)| m.coord).collect();
    assert_eq!(
        gone,
        &before - &after,
        "every chunk out of range, and only those, despawned"
    );
    // Despawned entities are gone, trees and all.
    let world = h.app.world_mut();
    for (_, message) in &h.despawned_log {
        assert!(world.get_entity(message.entity).is_err());
    }
    let trees = world.query::<&ChildOf>().iter(world).count();
    let tree_entities = world.query::<&BiomeTree>().iter(world).count();
    assert!(tree_entities <= trees);
}

#[test]
fn hovering_at_a_border_does_not_churn() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let spawned_before = h.spawned_log.len();
    // Cross a chunk border back and forth: hysteresis keeps the far ring.
    for k in 0..40 {
        let x = if k % 2 == 0 { 66.0 } else { 62.0 };
        h.move_anchor(Vec3::new(x, 50.0, 10.0));
        h.step();
    }
    h.run_until_idle();
    assert!(
        h.despawned_log.is_empty(),
        "no chunk despawns within the hysteresis"
    );
    let new = h.spawned_log.len() - spawned_before;
    assert!(
        new <= 7,
        "only the newly entered column is built ({new} chunks)"
    );
}

#[test]
fn chunk_count_stays_bounded_on_a_long_flight() {
    let mut h = Harness::new(settings());
    let s = streaming();
    let keep = i64::from(s.view_radius + s.despawn_hysteresis);
    // Chunks within radius + hysteresis of a path segment: a generous bound on what may be alive.
    let bound = ((2 * keep + 2) * (2 * keep + 2)) as usize;
    let mut most = 0;
    for k in 0..1500 {
        let t = k as f32;
        h.move_anchor(Vec3::new(t * 6.0, 50.0, (t * 0.01).sin() * 300.0));
        h.step();
        most = most.max(h.chunks().len());
        assert!(h.stats().in_flight <= s.max_tasks);
    }
    assert!(most <= bound, "{most} chunks alive, bound {bound}");
    assert!(h.spawned_log.len() > 100, "the flight streamed new chunks");
}

#[test]
fn a_teleport_of_a_million_units_works() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let far = Vec3::new(1_000_000.0, 80.0, -1_000_000.0);
    let teleport_frame = h.frame;
    h.move_anchor(far);
    h.run_until_idle();
    let chunks: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(chunks, h.circle(far));
    // Nothing near the origin was built after the jump.
    let home = h.circle(Vec3::new(10.0, 0.0, 10.0));
    for (frame, message) in &h.spawned_log {
        if *frame > teleport_frame + 1 {
            assert!(
                !home.contains(&message.coord),
                "stale chunk {:?} built after the teleport",
                message.coord
            );
        }
    }
    let world = WorldGenerator::new(h.state().generator.settings().clone()).unwrap();
    let y = world.height_at(1_000_000.0, -1_000_000.0);
    assert!(y.is_finite());
}

fn mesh_of(h: &mut Harness, entity: Entity) -> Mesh {
    let handle = h.app.world().get::<Mesh3d>(entity).unwrap().0.clone();
    h.app
        .world()
        .resource::<Assets<Mesh>>()
        .get(&handle)
        .unwrap()
        .clone()
}

fn positions(mesh: &Mesh) -> Vec<[f32; 3]> {
    match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.clone(),
        other => panic!("unexpected positions {other:?}"),
    }
}

#[test]
fn chunk_meshes_equal_the_core_build() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let world = h.state().generator.clone();
    let layout = *h.state().layout();
    let chunks = h.chunks();
    for coord in [
        ChunkCoord::new(0, 0),
        ChunkCoord::new(-2, 1),
        ChunkCoord::new(3, 0),
    ] {
        let (entity, _) = chunks[&coord];
        let mesh = mesh_of(&mut h, entity);
        let data = world.build_chunk(coord, &layout).unwrap();
        assert_eq!(positions(&mesh), data.positions);
        match mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
            Some(VertexAttributeValues::Float32x3(n)) => assert_eq!(n, &data.normals),
            other => panic!("unexpected normals {other:?}"),
        }
        match mesh.attribute(Mesh::ATTRIBUTE_COLOR) {
            Some(VertexAttributeValues::Float32x4(c)) => assert_eq!(c, &data.colors),
            other => panic!("unexpected colours {other:?}"),
        }
        let indices: Vec<u32> = match mesh.indices() {
            Some(Indices::U16(i)) => i.iter().map(|&v| u32::from(v)).collect(),
            Some(Indices::U32(i)) => i.clone(),
            None => panic!("no indices"),
        };
        assert_eq!(indices, data.indices);
        let origin = coord.origin(&layout);
        let transform = h.app.world().get::<Transform>(entity).unwrap();
        assert_eq!(
            transform.translation,
            Vec3::new(origin[0] as f32, 0.0, origin[1] as f32)
        );
        let tree_count = h.app.world().get::<Children>(entity).map_or(0, |children| {
            children
                .iter()
                .filter(|&c| h.app.world().get::<BiomeTree>(c).is_some())
                .count()
        });
        assert_eq!(tree_count, data.trees.len());
    }
}

#[test]
fn settings_change_regenerates_everything_without_blank_frames() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let view = h.circle(Vec3::new(10.0, 0.0, 10.0));
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 777;
    let changed_at = h.frame;
    h.run_until(200_000, |h| {
        // Every chunk in view keeps an entity throughout: old meshes stay until replaced.
        let shown: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
        assert!(view.is_subset(&shown), "a chunk in view went blank");
        h.stats().is_idle()
            && h.chunks()
                .values()
                .all(|(_, c)| c.generation == h.state().generation)
    });
    let generation = h.state().generation;
    assert_eq!(generation, 1);
    let world = WorldGenerator::new(WorldSettings {
        seed: 777,
        ..h.app
            .world()
            .resource::<BiomeWorldSettings>()
            .generator
            .clone()
    })
    .unwrap();
    let layout = *h.state().layout();
    let chunks = h.chunks();
    let (entity, chunk) = chunks[&ChunkCoord::new(1, 1)];
    assert_eq!(chunk.generation, generation);
    assert_eq!(
        positions(&mesh_of(&mut h, entity)),
        world
            .build_chunk(ChunkCoord::new(1, 1), &layout)
            .unwrap()
            .positions
    );
    let rebuilt: Vec<_> = h
        .spawned_log
        .iter()
        .filter(|(f, _)| *f > changed_at)
        .collect();
    assert_eq!(
        rebuilt.len(),
        view.len(),
        "every chunk rebuilt exactly once"
    );
}

#[test]
fn results_from_old_settings_are_never_applied() {
    let mut h = Harness::new(settings());
    h.step();
    h.step();
    // Change the seed while the first builds are in flight, twice in a row.
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 1;
    h.step();
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 2;
    h.step();
    h.run_until(200_000, |h| {
        h.stats().is_idle()
            && h.chunks()
                .values()
                .all(|(_, c)| c.generation == h.state().generation)
    });
    // Every chunk entity ever spawned was built from the settings current when it appeared.
    for (built, current) in &h.spawned_generations {
        assert_eq!(
            built, current,
            "a chunk built from old settings was applied"
        );
    }
    assert_eq!(h.state().generation, 2);
    let fresh = WorldGenerator::new(WorldSettings {
        seed: 2,
        ..WorldSettings::default()
    })
    .unwrap();
    let layout = *h.state().layout();
    let chunks = h.chunks();
    for (coord, (entity, _)) in chunks.iter().take(5) {
        assert_eq!(
            positions(&mesh_of(&mut h, *entity)),
            fresh.build_chunk(*coord, &layout).unwrap().positions
        );
    }
}

#[test]
fn a_layout_change_replaces_chunks_once_the_view_is_filled() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let old: HashSet<Entity> = h.chunks().values().map(|(e, _)| *e).collect();
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .layout
        .tiles = 8;
    h.run_until(200_000, |h| {
        h.stats().is_idle() && h.state().generation == 1
    });
    let world = h.app.world_mut();
    for entity in old {
        assert!(world.get_entity(entity).is_err(), "old-layout chunk kept");
    }
    let loaded: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(loaded, h.circle(Vec3::new(10.0, 0.0, 10.0)));
}

#[test]
fn invalid_settings_keep_the_world_and_report_the_field() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .regions
        .cell_size = -1.0;
    h.step();
    let state = h.state();
    assert_eq!(state.generation, 0);
    assert_eq!(
        state.error.as_ref().map(|e| e.field.as_str()),
        Some("regions.cell_size")
    );
    assert!(h.stats().is_idle());
}

/// A build the core refuses (here a layout that skipped validation, as a bug elsewhere might
/// leave it) is reported once per chunk, not retried, and the game keeps running; valid settings
/// bring the chunks back.
#[test]
fn failed_builds_are_reported_once_and_not_retried() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let mut failures = MessageCursor::<ChunkFailed>::default();
    {
        let mut state = h.app.world_mut().resource_mut::<BiomeWorldState>();
        state.settings.layout.tile_size = 0.3;
        state.generation += 1;
    }
    let wanted = h.circle(Vec3::new(10.0, 0.0, 10.0)).len();
    h.run_until(20_000, |h| {
        h.stats().failed == wanted && h.stats().in_flight == 0
    });
    let read = |h: &Harness, cursor: &mut MessageCursor<ChunkFailed>| {
        let messages = h.app.world().resource::<Messages<ChunkFailed>>();
        cursor.read(messages).cloned().collect::<Vec<_>>()
    };
    let first = read(&h, &mut failures);
    assert_eq!(first.len(), wanted);
    assert!(
        first[0].reason.contains("layout.tile_size"),
        "{:?}",
        first[0]
    );
    for _ in 0..50 {
        h.step();
    }
    assert!(
        read(&h, &mut failures).is_empty(),
        "failed builds were retried"
    );
    assert_eq!(h.stats().in_flight, 0);
    assert_eq!(h.stats().failed, wanted);

    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 77;
    h.run_until_idle();
    assert_eq!(h.stats().failed, 0);
    let loaded: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(loaded, h.circle(Vec3::new(10.0, 0.0, 10.0)));
}

#[test]
fn queries_agree_with_mesh_heights() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let chunks = h.chunks();
    let layout = *h.state().layout();
    let (entity, _) = chunks[&ChunkCoord::new(-1, 2)];
    let mesh = mesh_of(&mut h, entity);
    let vertices = positions(&mesh);
    let origin = ChunkCoord::new(-1, 2).origin(&layout);
    let verts = layout.tiles as usize + 1;
    let probes: Vec<(Vec2, f32)> = (0..verts * verts)
        .step_by(7)
        .map(|k| {
            let p = vertices[k];
            (
                Vec2::new(origin[0] as f32 + p[0], origin[1] as f32 + p[2]),
                p[1],
            )
        })
        .collect();
    // Points inside tiles: the mesh surface interpolated from its own vertices.
    let tile = layout.tile_size as f32;
    let inside: Vec<(Vec2, f32)> = [(0.25f32, 0.5f32), (0.8, 0.7), (0.1, 0.05)]
        .iter()
        .map(|&(u, v)| {
            let (i, j) = (3usize, 5usize);
            let h = |a: usize, b: usize| vertices[b * verts + a][1];
            let height = if u + v <= 1.0 {
                h(i, j) + (h(i + 1, j) - h(i, j)) * u + (h(i, j + 1) - h(i, j)) * v
            } else {
                h(i + 1, j + 1)
                    + (h(i, j + 1) - h(i + 1, j + 1)) * (1.0 - u)
                    + (h(i + 1, j) - h(i + 1, j + 1)) * (1.0 - v)
            };
            (
                Vec2::new(
                    origin[0] as f32 + (i as f32 + u) * tile,
                    origin[1] as f32 + (j as f32 + v) * tile,
                ),
                height,
            )
        })
        .collect();
    let checks = h.app.world_mut().run_system_once(move |world: BiomeWorld| {
        for &(xz, height) in &probes {
            assert_eq!(world.height_at(xz), height, "vertex height at {xz}");
            assert_eq!(world.ground_height_at(xz), height, "ground at vertex {xz}");
        }
        assert_eq!(world.chunk_at(inside[0].0), ChunkCoord::new(-1, 2));
        for &(xz, height) in &inside {
            assert!(
                (world.ground_height_at(xz) - height).abs() < 1e-3,
                "ground inside a tile at {xz}"
            );
        }
        let sample = world.sample_at(probes[0].0);
        assert_eq!(world.biome_at(probes[0].0).0, sample.biome);
        assert_eq!(world.region_at(probes[0].0), sample.region);
        probes.len() + inside.len()
    });
    assert!(checks.unwrap() > 10);
}

#[test]
fn a_settings_change_after_moving_rebuilds_the_hysteresis_ring_too() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    // One chunk east: the westmost column stays loaded in the hysteresis ring.
    let east = Vec3::new(10.0 + 64.0, 50.0, 10.0);
    h.move_anchor(east);
    h.run_until_idle();
    let loaded = h.chunks().len();
    assert!(
        loaded > h.circle(east).len(),
        "the hysteresis ring holds chunks"
    );
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 99;
    h.run_until(200_000, |h| {
        h.stats().is_idle()
            && h.chunks()
                .values()
                .all(|(_, c)| c.generation == h.state().generation)
    });
    assert_eq!(h.chunks().len(), loaded);
    assert_eq!(h.state().generation, 1);
}

#[test]
fn switching_trees_and_water_off_rebuilds_without_them() {
    let mut s = settings();
    // A low sea so the view has water.
    s.generator.terrain.density =
        bevy_biome_world::biome_core::DensityNode::fbm(0, 0.01, 3, Default::default());
    let mut h = Harness::new(s);
    h.run_until_idle();
    let count = |h: &mut Harness| {
        let world = h.app.world_mut();
        let trees = world.query::<&BiomeTree>().iter(world).count();
        let water = world
            .query::<&bevy_biome_world::BiomeWater>()
            .iter(world)
            .count();
        (trees, water)
    };
    let (trees, water) = count(&mut h);
    assert!(
        trees > 0 && water > 0,
        "{trees} trees, {water} water surfaces"
    );
    {
        let mut settings = h.app.world_mut().resource_mut::<BiomeWorldSettings>();
        settings.trees = false;
        settings.water = false;
    }
    h.run_until(200_000, |h| {
        h.stats().is_idle()
            && h.chunks()
                .values()
                .all(|(_, c)| c.generation == h.state().generation)
    });
    assert_eq!(count(&mut h), (0, 0));
}

#[test]
fn settings_changed_at_startup_are_taken() {
    let mut h = Harness::new(settings());
    h.app
        .add_systems(Startup, |mut settings: ResMut<BiomeWorldSettings>| {
            settings.generator.seed = 4321;
        });
    h.run_until_idle();
    assert_eq!(h.state().generator.settings().seed, 4321);
    let layout = *h.state().layout();
    let fresh = WorldGenerator::new(WorldSettings {
        seed: 4321,
        ..WorldSettings::default()
    })
    .unwrap();
    let chunks = h.chunks();
    let (entity, _) = chunks[&ChunkCoord::new(0, 0)];
    assert_eq!(
        positions(&mesh_of(&mut h, entity)),
        fresh
            .build_chunk(ChunkCoord::new(0, 0), &layout)
            .unwrap()
            .positions
    );
}
