//! Headless tests of the terrain streaming, end to end: `MinimalPlugins` + `AssetPlugin` +
//! `TransformPlugin` + the plugin, stepped frame by frame with bounded loops, watching what is
//! shown. The streamer's own rules (failures, cancellation, budget, lost entities) have unit
//! tests with a fake kind (`src/stream`).

mod common;

use std::collections::{HashMap, HashSet};

use bevy::diagnostic::DiagnosticsStore;
use bevy::ecs::message::MessageCursor;
use bevy::ecs::system::RunSystemOnce;
use bevy::mesh::{Indices, VertexAttributeValues};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy_biome_world::biome_core::{
    ChunkCoord, ChunkLayout, MeshStyle, NodeCoord, WorldGenerator, WorldSettings,
};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{BiomeTree, BiomeWorldState, ChunkFade, ChunkGround, ChunkReplaced};

/// The square of the world a node covers, `[min, max)` on both axes.
#[derive(Clone, Copy, Debug)]
struct NodeRect {
    min: [f64; 2],
    max: [f64; 2],
}

impl NodeRect {
    fn of(node: NodeCoord, layout: &ChunkLayout) -> Self {
        let min = node.origin(layout);
        let size = node.size(layout);
        Self {
            min,
            max: [min[0] + size, min[1] + size],
        }
    }

    fn distance(&self, [x, z]: [f64; 2]) -> f64 {
        let dx = (self.min[0] - x).max(x - self.max[0]).max(0.0);
        let dz = (self.min[1] - z).max(z - self.max[1]).max(0.0);
        dx.hypot(dz)
    }

    fn overlaps(&self, other: &NodeRect) -> bool {
        (0..2).all(|a| self.min[a] < other.max[a] && other.min[a] < self.max[a])
    }

    fn contains(&self, [x, z]: [f64; 2]) -> bool {
        (self.min[0]..self.max[0]).contains(&x) && (self.min[1]..self.max[1]).contains(&z)
    }
}

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

/// Full detail within three 64-unit chunks: the first release's disc of chunks.
fn streaming() -> BiomeWorldStreaming {
    BiomeWorldStreaming {
        hysteresis: 0.5,
        ..BiomeWorldStreaming::full_detail(3.0 * 64.0)
    }
}

/// Levels of detail: chunks within 64 units, four levels out to a 1 km horizon.
fn lod_streaming() -> BiomeWorldStreaming {
    BiomeWorldStreaming {
        horizon: 1024.0,
        detail_radius: 64.0,
        hysteresis: 0.25,
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
        Self::with(settings, streaming())
    }

    fn with(settings: BiomeWorldSettings, streaming: BiomeWorldStreaming) -> Self {
        Self::build(settings, streaming, false)
    }

    /// With `paced`, frames advance the clock by 1/60 s and builds have one thread, as on a
    /// two-core machine running at 60 Hz.
    fn build(settings: BiomeWorldSettings, streaming: BiomeWorldStreaming, paced: bool) -> Self {
        let mut app = App::new();
        let mut task_pools = TaskPoolOptions::default();
        if paced {
            task_pools.async_compute.min_threads = 1;
            task_pools.async_compute.max_threads = 1;
            app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_nanos(
                16_666_667,
            )));
        }
        // Terrain alone: scattered objects have their own tests (`tests/scatter.rs`).
        app.add_plugins((
            MinimalPlugins.set(TaskPoolPlugin {
                task_pool_options: task_pools,
            }),
            AssetPlugin::default(),
            TransformPlugin,
        ))
        .insert_resource(settings)
        .insert_resource(streaming)
        .insert_resource(BiomeScatterSettings {
            enabled: false,
            ..default()
        })
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
        let current = world.resource::<BiomeWorldState>().generation();
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

    /// Steps until `done` holds; returns the frames it took.
    fn run_until(&mut self, done: impl FnMut(&mut Self) -> bool) -> u64 {
        common::step_until(self, "condition", Self::step, done)
    }

    /// Steps until the streamer has been idle for two frames in a row.
    fn run_until_idle(&mut self) -> u64 {
        common::step_until_idle(self, "idle terrain", Self::step, |h| {
            h.stats().is_idle() && h.stats().loaded > 0
        })
    }

    /// Whether the streamer is idle with every terrain entity built from the current settings.
    fn is_current(&mut self) -> bool {
        let generation = self.state().generation();
        let world = self.app.world_mut();
        let current = world
            .query::<&BiomeChunk>()
            .iter(world)
            .all(|c| c.generation == generation);
        current && self.stats().is_idle()
    }

    /// Steps until idle with every node built from the current settings.
    fn run_until_current(&mut self) {
        self.run_until(Self::is_current);
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

    /// Every terrain entity, by node.
    fn nodes(&mut self) -> HashMap<NodeCoord, (Entity, BiomeChunk)> {
        let world = self.app.world_mut();
        world
            .query::<(Entity, &BiomeChunk)>()
            .iter(world)
            .map(|(e, c)| (c.node, (e, *c)))
            .collect()
    }

    /// How many terrain entities there are (old and new versions of a node count twice).
    fn terrain_entities(&mut self) -> usize {
        let world = self.app.world_mut();
        world.query::<&BiomeChunk>().iter(world).count()
    }

    /// The full-detail chunks shown.
    fn chunks(&mut self) -> HashMap<ChunkCoord, (Entity, BiomeChunk)> {
        self.nodes()
            .into_iter()
            .filter(|(node, _)| node.level == 0)
            .map(|(node, value)| (ChunkCoord::new(node.x, node.z), value))
            .collect()
    }

    fn state(&self) -> &BiomeWorldState {
        self.app.world().resource::<BiomeWorldState>()
    }

    /// Terrain entities whose area holds world point `(x, z)`.
    fn holders(&mut self, x: f64, z: f64) -> usize {
        let world = self.app.world_mut();
        world
            .query::<&BiomeChunk>()
            .iter(world)
            .filter(|c| NodeRect::of(c.node, &c.layout).contains([x, z]))
            .count()
    }

    /// Chunks within `radius` of `center` (by their nearest point), as the planner counts.
    fn disc(&self, center: Vec3, radius: f64) -> HashSet<ChunkCoord> {
        let layout = *self.state().layout();
        let (x, z) = (f64::from(center.x), f64::from(center.z));
        let c = ChunkCoord::containing(x, z, &layout);
        let r = (radius / layout.chunk_size()).ceil() as i64 + 2;
        let mut set = HashSet::new();
        for dz in -r..=r {
            for dx in -r..=r {
                let coord = ChunkCoord::new(c.x + dx, c.z + dz);
                if NodeRect::of(NodeCoord::chunk(coord), &layout).distance([x, z]) < radius {
                    set.insert(coord);
                }
            }
        }
        set
    }

    /// The chunks a full-detail view wants around `center`: the horizon and half the
    /// hysteresis share more.
    fn wanted(&self, center: Vec3) -> HashSet<ChunkCoord> {
        let streaming = self.app.world().resource::<BiomeWorldStreaming>();
        let reach = f64::from(streaming.horizon) * (1.0 + f64::from(streaming.hysteresis) / 2.0);
        self.disc(center, reach)
    }

    /// The chunks a full-detail view keeps around `center` at most.
    fn kept(&self, center: Vec3) -> HashSet<ChunkCoord> {
        let streaming = self.app.world().resource::<BiomeWorldStreaming>();
        let keep = f64::from(streaming.horizon) * (1.0 + f64::from(streaming.hysteresis));
        self.disc(center, keep)
    }
}

#[test]
fn chunks_appear_within_the_radius_and_only_there() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let loaded: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(loaded, h.wanted(Vec3::new(10.0, 0.0, 10.0)));
    assert_eq!(h.stats().loaded, loaded.len());
    assert_eq!(h.nodes().len(), loaded.len(), "full detail: chunks only");
}

#[test]
fn with_no_frame_budget_terrain_moves_one_node_a_frame_and_raising_it_lets_the_backlog_through() {
    let mut h = Harness::with(
        settings(),
        BiomeWorldStreaming {
            apply_budget_ms: 100.0,
            frame_budget_ms: 0.0,
            ..streaming()
        },
    );
    let entities = |h: &mut Harness| -> HashSet<Entity> {
        let world = h.app.world_mut();
        world
            .query_filtered::<Entity, With<BiomeChunk>>()
            .iter(world)
            .collect()
    };
    let mut before = entities(&mut h);
    // However many builds wait, no frame spawns or despawns more than one node. Frames are
    // slowed so builds pile up.
    common::step_until(
        &mut h,
        "builds waiting",
        |h| {
            std::thread::sleep(Duration::from_millis(20));
            h.step();
        },
        |h| {
            let after = entities(h);
            let moved = after.symmetric_difference(&before).count();
            assert!(
                moved <= 1,
                "{moved} nodes moved in one frame with no frame budget"
            );
            before = after;
            h.stats().ready > 1
        },
    );
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldStreaming>()
        .frame_budget_ms = 100.0;
    h.step();
    let moved = entities(&mut h).symmetric_difference(&before).count();
    assert!(moved > 1, "{moved}");
}

#[test]
fn chunks_are_requested_nearest_first() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let center = ChunkCoord::new(0, 0);
    let order: Vec<u64> = h
        .spawned_log
        .iter()
        .map(|(_, m)| ChunkCoord::new(m.node.x, m.node.z).distance_squared(center))
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
    let nodes: Vec<NodeCoord> = h.spawned_log.iter().map(|(_, m)| m.node).collect();
    let unique: HashSet<NodeCoord> = nodes.iter().copied().collect();
    assert_eq!(nodes.len(), unique.len(), "a chunk was announced twice");
    assert_eq!(unique.len(), h.wanted(Vec3::new(10.0, 0.0, 10.0)).len());
    assert!(h.despawned_log.is_empty());
    let shown = h.nodes();
    for (_, message) in &h.spawned_log {
        assert_eq!(shown[&message.node].0, message.entity);
        assert_eq!(message.layout, settings().layout);
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
    assert!(after.is_superset(&h.wanted(target)));
    assert!(
        after.is_subset(&h.kept(target)),
        "only the hysteresis ring stays"
    );
    let gone: HashSet<ChunkCoord> = h
        .despawned_log
        .iter()
        .map(|(_, m)| ChunkCoord::new(m.node.x, m.node.z))
        .collect();
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
        new <= 9,
        "only the newly entered column is built ({new} chunks)"
    );
}

#[test]
fn chunk_count_stays_bounded_on_a_long_flight() {
    let mut h = Harness::new(settings());
    let s = streaming();
    // Chunks within the kept distance of a path segment: a generous bound on what may be alive.
    let keep = f64::from(s.horizon * (1.0 + s.hysteresis)) / 64.0;
    let bound = ((2.0 * keep + 4.0) * (2.0 * keep + 4.0)) as usize;
    let mut most = 0;
    for k in 0..1500 {
        let t = k as f32;
        h.move_anchor(Vec3::new(t * 6.0, 50.0, (t * 0.01).sin() * 300.0));
        h.step();
        most = most.max(h.terrain_entities());
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
    assert_eq!(chunks, h.wanted(far));
    // Nothing near the origin was built after the jump.
    let home = h.kept(Vec3::new(10.0, 0.0, 10.0));
    for (frame, message) in &h.spawned_log {
        let coord = ChunkCoord::new(message.node.x, message.node.z);
        if *frame > teleport_frame + 1 {
            assert!(
                !home.contains(&coord),
                "stale chunk {coord:?} built after the teleport"
            );
        }
    }
    let world = WorldGenerator::new(h.state().generator().settings().clone()).unwrap();
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

fn indices(mesh: &Mesh) -> Vec<u32> {
    match mesh.indices() {
        Some(Indices::U16(i)) => i.iter().map(|&v| u32::from(v)).collect(),
        Some(Indices::U32(i)) => i.clone(),
        None => panic!("no indices"),
    }
}

fn positions(mesh: &Mesh) -> Vec<[f32; 3]> {
    match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.clone(),
        other => panic!("unexpected positions {other:?}"),
    }
}

#[test]
fn node_meshes_equal_the_core_build_at_every_level() {
    let settings = BiomeWorldSettings {
        full_mesh_levels: 2,
        ..settings()
    };
    let mut h = Harness::with(settings.clone(), lod_streaming());
    h.run_until_idle();
    let world = h.state().generator().clone();
    let layout = *h.state().layout();
    let mut nodes: Vec<(NodeCoord, (Entity, BiomeChunk))> = h.nodes().into_iter().collect();
    nodes.sort_by_key(|(node, _)| *node);
    let levels: HashSet<u8> = nodes.iter().map(|(n, _)| n.level).collect();
    assert!(levels.len() >= 4, "levels {levels:?}");
    assert!(levels.iter().any(|&level| level > 3), "levels {levels:?}");
    let cancel = AtomicBool::new(false);
    // A few nodes of each level, stitched or not.
    let mut coarse = 0;
    for (node, (entity, chunk)) in nodes.iter().step_by(7) {
        let mesh = mesh_of(&mut h, *entity);
        let data = world
            .build_node(*node, &layout, chunk.stitch, &cancel)
            .unwrap();
        assert_eq!(positions(&mesh), data.positions);
        match mesh.attribute(Mesh::ATTRIBUTE_NORMAL) {
            Some(VertexAttributeValues::Float32x3(n)) => assert_eq!(n, &data.normals),
            other => panic!("unexpected normals {other:?}"),
        }
        match mesh.attribute(Mesh::ATTRIBUTE_COLOR) {
            Some(VertexAttributeValues::Float32x4(c)) => assert_eq!(c, &data.colors),
            other => panic!("unexpected colours {other:?}"),
        }
        // Levels past `full_mesh_levels` in blocks of 2 and 4 tiles.
        let mut data = data;
        let block = settings.interior_block_at(node.level, &world);
        coarse += usize::from(block > 1);
        data.coarsen_interior(block);
        assert_eq!(indices(&mesh), data.indices, "{node:?}");
        let origin = node.origin(&layout);
        let transform = h.app.world().get::<Transform>(*entity).unwrap();
        assert_eq!(
            transform.translation,
            Vec3::new(origin[0] as f32, 0.0, origin[1] as f32)
        );
        let tree_count = h
            .app
            .world()
            .get::<Children>(*entity)
            .map_or(0, |children| {
                children
                    .iter()
                    .filter(|&c| h.app.world().get::<BiomeTree>(c).is_some())
                    .count()
            });
        // Chunks carry the core's trees; level-1 nodes (`tree_levels`) all trees on them.
        let expected = match node.level {
            0 => data.trees.len(),
            1 => {
                let size = node.size(&layout);
                world
                    .trees_in_rect(origin, [origin[0] + size, origin[1] + size])
                    .len()
            }
            _ => 0,
        };
        assert_eq!(tree_count, expected, "{node:?}");
    }
    assert!(coarse > 0, "no coarse interior compared");
}

#[test]
fn settings_change_regenerates_everything_without_blank_frames() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let view = h.wanted(Vec3::new(10.0, 0.0, 10.0));
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 777;
    let changed_at = h.frame;
    h.run_until(|h| {
        // Every chunk in view keeps an entity throughout: old meshes stay until replaced.
        let shown: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
        assert!(view.is_subset(&shown), "a chunk in view went blank");
        h.stats().is_idle()
            && h.nodes()
                .values()
                .all(|(_, c)| c.generation == h.state().generation())
    });
    let generation = h.state().generation();
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
    h.run_until_current();
    // Every chunk entity ever spawned was built from the settings current when it appeared.
    for (built, current) in &h.spawned_generations {
        assert_eq!(
            built, current,
            "a chunk built from old settings was applied"
        );
    }
    assert_eq!(h.state().generation(), 2);
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
    h.run_until(|h| h.stats().is_idle() && h.state().generation() == 1);
    let world = h.app.world_mut();
    for entity in old {
        assert!(world.get_entity(entity).is_err(), "old-layout chunk kept");
    }
    let loaded: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(loaded, h.wanted(Vec3::new(10.0, 0.0, 10.0)));
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
    assert_eq!(state.generation(), 0);
    assert_eq!(
        state.error().map(|e| e.field.as_str()),
        Some("regions.cell_size")
    );
    assert!(h.stats().is_idle());
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
            // A ray down onto the mesh, and one slanting across it, meet its triangles.
            let down = Ray3d::new(Vec3::new(xz.x, height + 40.0, xz.y), Dir3::NEG_Y);
            let hit = world.cast_ray(down, 100.0).expect("the ground below");
            assert!(
                (hit.point.y - height).abs() < 1e-3,
                "ray down at {xz}: {hit:?}"
            );
            assert!((hit.distance - 40.0).abs() < 1e-3 && hit.normal.y > 0.0);
            let slant = Ray3d::new(
                Vec3::new(xz.x - 6.0, height + 5.0, xz.y + 2.0),
                Dir3::new(Vec3::new(1.0, -0.8, -0.3)).unwrap(),
            );
            let hit = world.cast_ray(slant, 50.0).expect("the ground ahead");
            let ground = world.ground_height_at(hit.point.xz());
            assert!(
                (hit.point.y - ground).abs() < 1e-3,
                "slanting ray: {hit:?} over {ground}"
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
fn a_settings_change_after_moving_leaves_no_older_terrain() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    // One chunk east: the westmost column stays loaded in the hysteresis ring.
    let east = Vec3::new(10.0 + 64.0, 50.0, 10.0);
    h.move_anchor(east);
    h.run_until_idle();
    assert!(
        h.chunks().len() > h.wanted(east).len(),
        "the hysteresis ring holds chunks"
    );
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 99;
    h.run_until_current();
    let loaded: HashSet<ChunkCoord> = h.chunks().keys().copied().collect();
    assert_eq!(loaded, h.wanted(east), "the ring of older terrain went");
    assert_eq!(h.state().generation(), 1);
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
    h.run_until_current();
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
    assert_eq!(h.state().generator().settings().seed, 4321);
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

/// Points the view must cover around `center`: the centre, and rings out to just inside the
/// horizon.
fn probes(center: Vec3, horizon: f64) -> Vec<[f64; 2]> {
    let mut points = vec![[f64::from(center.x), f64::from(center.z)]];
    for ring in [0.1, 0.3, 0.6, 0.97] {
        for k in 0..16 {
            let angle = f64::from(k) * std::f64::consts::TAU / 16.0 + ring;
            let r = ring * horizon;
            points.push([
                f64::from(center.x) + r * angle.cos(),
                f64::from(center.z) + r * angle.sin(),
            ]);
        }
    }
    points
}

/// A long flight over levels of detail at 300 u/s (frames paced at 60 Hz), with teleports and
/// settings changes: once the view has filled, every probe within the horizon is covered by a
/// terrain entity in every frame, the entity count stays bounded, and nothing built from older
/// settings is applied.
#[test]
fn a_long_flight_over_levels_of_detail_never_shows_a_hole() {
    let streaming = lod_streaming();
    let mut h = Harness::build(settings(), streaming.clone(), true);
    h.run_until_idle();
    let horizon = f64::from(streaming.horizon);
    let estimate = streaming.node_estimate(settings().layout) as usize;
    let (mut most, mut checked) = (0, 0);
    let mut position = Vec3::new(10.0, 50.0, 10.0);
    for k in 0..720u32 {
        match k {
            180 | 540 => {
                // A teleport: the new view fills from nothing first.
                position += Vec3::new(250_000.0, 0.0, -40_000.0);
                h.move_anchor(position);
                h.run_until_idle();
            }
            300 => {
                h.app
                    .world_mut()
                    .resource_mut::<BiomeWorldSettings>()
                    .generator
                    .seed = 31;
            }
            420 => {
                h.app
                    .world_mut()
                    .resource_mut::<BiomeWorldSettings>()
                    .layout
                    .tiles = 8;
            }
            _ => {}
        }
        let deadline = std::time::Instant::now() + Duration::from_nanos(16_666_667);
        position += Vec3::new(5.0, 0.0, 2.0 * (f32::from(k as u16) * 0.01).cos());
        h.move_anchor(position);
        h.step();
        for p in probes(position, horizon) {
            assert!(
                h.holders(p[0], p[1]) >= 1,
                "frame {k}: {p:?} uncovered, anchor at {position}: {:?}",
                h.stats()
            );
            checked += 1;
        }
        most = most.max(h.terrain_entities());
        if let Some(rest) = deadline.checked_duration_since(std::time::Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    assert!(checked > 40_000);
    assert!(
        most <= 2 * estimate,
        "{most} terrain entities, estimate {estimate}"
    );
    for (built, current) in &h.spawned_generations {
        assert_eq!(built, current, "a node built from old settings was applied");
    }
    assert_eq!(h.state().generation(), 2);
    h.run_until_current();
    let levels = &h.stats().loaded_per_level;
    assert!(
        levels.len() >= 4 && levels.iter().all(|&n| n > 0),
        "{levels:?}"
    );
}

#[test]
fn a_node_game_code_despawns_is_built_again() {
    let mut h = Harness::with(settings(), lod_streaming());
    h.run_until_idle();
    let nodes = h.nodes();
    let (entity, chunk) = nodes[&NodeCoord::new(0, 0, 0)];
    h.app.world_mut().entity_mut(entity).despawn();
    h.run_until_idle();
    let again = h.nodes()[&NodeCoord::new(0, 0, 0)];
    assert_ne!(again.0, entity);
    assert_eq!(again.1, chunk);
    assert!(
        h.despawned_log.iter().any(|(_, m)| m.entity == entity),
        "its despawn is announced"
    );
}

/// Terrain of an older layout is retired by coverage and distance even while the anchor keeps
/// moving, not only once the streamer is idle.
#[test]
fn older_layouts_go_while_the_anchor_moves() {
    let mut h = Harness::with(settings(), lod_streaming());
    h.run_until_idle();
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .layout
        .tiles = 8;
    let mut position = Vec3::new(10.0, 50.0, 10.0);
    let mut gone_at = None;
    for k in 0..3000 {
        position.x += 3.0;
        h.move_anchor(position);
        h.step();
        std::thread::yield_now();
        let old = h
            .nodes()
            .values()
            .filter(|(_, c)| c.layout.tiles == 16)
            .count();
        if old == 0 {
            gone_at = Some(k);
            break;
        }
    }
    assert!(gone_at.is_some(), "old-layout terrain kept while moving");
}

/// A node that replaces others fades in for `fade_seconds` before they go; new land needs no
/// fade.
#[test]
fn replacements_fade_in_before_what_they_replace_goes() {
    let streaming = BiomeWorldStreaming {
        fade_seconds: 0.25,
        ..lod_streaming()
    };
    let mut h = Harness::with(settings(), streaming);
    h.run_until_idle();
    assert!(
        h.despawned_log.is_empty(),
        "the first fill replaces nothing"
    );
    let before = h.spawned_log.len();
    h.app
        .world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 5;
    let (mut first_spawn, mut first_despawn, mut fading_seen) = (None, None, 0);
    h.run_until(|h| {
        if first_spawn.is_none() && h.spawned_log.len() > before {
            first_spawn = Some(std::time::Instant::now());
        }
        if first_despawn.is_none() && !h.despawned_log.is_empty() {
            first_despawn = Some(std::time::Instant::now());
        }
        fading_seen = fading_seen.max(h.stats().fading);
        h.is_current()
    });
    let (spawned, despawned) = (first_spawn.unwrap(), first_despawn.unwrap());
    assert!(fading_seen > 0, "replacements fade");
    assert!(
        despawned.duration_since(spawned).as_secs_f32() >= 0.2,
        "old terrain went {:?} after its replacement came",
        despawned.duration_since(spawned)
    );
}

/// The four edges of a terrain mesh as polylines in world units: for each side (`-x, +x, -z,
/// +z`), the vertices on it that a triangle uses as `(position along the side, height)`, in
/// order.
fn mesh_edges(mesh: &Mesh, rect: &NodeRect) -> [Vec<(f64, f64)>; 4] {
    let size = rect.max[0] - rect.min[0];
    let mut edges: [Vec<(f64, f64)>; 4] = Default::default();
    let used: HashSet<u32> = indices(mesh).into_iter().collect();
    let drawn = positions(mesh)
        .into_iter()
        .enumerate()
        .filter(|&(k, _)| used.contains(&(k as u32)))
        .map(|(_, p)| p);
    for p in drawn {
        let (x, y, z) = (f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
        let (wx, wz) = (rect.min[0] + x, rect.min[1] + z);
        for (side, on, along) in [
            (0, x == 0.0, wz),
            (1, x == size, wz),
            (2, z == 0.0, wx),
            (3, z == size, wx),
        ] {
            if on {
                edges[side].push((along, y));
            }
        }
    }
    for edge in &mut edges {
        edge.sort_by(|a, b| a.0.total_cmp(&b.0));
        edge.dedup_by(|a, b| a.0 == b.0);
    }
    edges
}

/// Height of polyline `edge` at `along`, if it reaches there.
fn edge_height(edge: &[(f64, f64)], along: f64) -> Option<f64> {
    let k = edge.partition_point(|&(a, _)| a < along);
    let &(a1, h1) = edge.get(k)?;
    if a1 == along {
        return Some(h1);
    }
    let &(a0, h0) = edge.get(k.checked_sub(1)?)?;
    Some(h0 + (h1 - h0) * (along - a0) / (a1 - a0))
}

/// A shown terrain node, as the test sees it.
#[derive(Clone)]
struct Seen {
    chunk: BiomeChunk,
    rect: NodeRect,
    fading: bool,
    replaced: bool,
}

/// What the player would see, frame by frame: the visible terrain entities and their meshes'
/// edges (read once per entity).
#[derive(Default)]
struct Screen {
    edges: HashMap<Entity, [Vec<(f64, f64)>; 4]>,
    /// When each replaced entity was first seen replaced, in frames.
    replaced_since: HashMap<Entity, u64>,
    swaps_seen: usize,
    edges_checked: usize,
}

impl Screen {
    fn visible(&mut self, h: &mut Harness) -> Vec<(Entity, Seen)> {
        let world = h.app.world_mut();
        let seen: Vec<(Entity, Seen, Handle<Mesh>)> = world
            .query::<(
                Entity,
                &BiomeChunk,
                &Visibility,
                &Mesh3d,
                Has<ChunkFade>,
                Has<ChunkReplaced>,
            )>()
            .iter(world)
            .filter(|(_, _, visibility, ..)| **visibility != Visibility::Hidden)
            .map(|(entity, chunk, _, mesh, fading, replaced)| {
                let seen = Seen {
                    chunk: *chunk,
                    rect: NodeRect::of(chunk.node, &chunk.layout),
                    fading,
                    replaced,
                };
                (entity, seen, mesh.0.clone())
            })
            .collect();
        let meshes = world.resource::<Assets<Mesh>>();
        seen.into_iter()
            .map(|(entity, seen, mesh)| {
                self.edges.entry(entity).or_insert_with(|| {
                    mesh_edges(meshes.get(&mesh).expect("mesh kept"), &seen.rect)
                });
                (entity, seen)
            })
            .collect()
    }

    /// Checks one frame: each of the two surfaces blended during fades (what was shown before
    /// them, and what is shown after) covers no point twice and has no crack wider than 1 mm
    /// between nodes of the same settings; and no replaced node outlives one fade.
    fn check(&mut self, h: &mut Harness, frame: u64, fade_frames: u64) -> Vec<(Entity, Seen)> {
        let visible = self.visible(h);
        for (entity, seen) in &visible {
            if seen.replaced {
                let since = *self.replaced_since.entry(*entity).or_insert(frame);
                assert!(
                    frame - since <= fade_frames + 1,
                    "frame {frame}: {:?} replaced since frame {since}",
                    seen.chunk.node
                );
            }
        }
        self.swaps_seen += visible.iter().filter(|(_, s)| s.fading).count();
        for layer in [|s: &Seen| !s.fading, |s: &Seen| !s.replaced] {
            let nodes: Vec<&(Entity, Seen)> = visible.iter().filter(|(_, s)| layer(s)).collect();
            for (k, (ea, a)) in nodes.iter().enumerate() {
                for (eb, b) in &nodes[k + 1..] {
                    assert!(
                        !a.rect.overlaps(&b.rect),
                        "frame {frame}: {:?} and {:?} both shown",
                        a.chunk,
                        b.chunk
                    );
                    if a.chunk.generation == b.chunk.generation {
                        self.check_seam(frame, (*ea, a), (*eb, b));
                    }
                }
            }
        }
        visible
    }

    /// Where `a` and `b` touch along a side, every vertex of each edge lies on the other's
    /// edge within 1 mm.
    fn check_seam(&mut self, frame: u64, (ea, a): (Entity, &Seen), (eb, b): (Entity, &Seen)) {
        let (ra, rb) = (&a.rect, &b.rect);
        let along_x = ra.min[0] < rb.max[0] && rb.min[0] < ra.max[0];
        let along_z = ra.min[1] < rb.max[1] && rb.min[1] < ra.max[1];
        let side = if along_z && ra.max[0] == rb.min[0] {
            1
        } else if along_z && ra.min[0] == rb.max[0] {
            0
        } else if along_x && ra.max[1] == rb.min[1] {
            3
        } else if along_x && ra.min[1] == rb.max[1] {
            2
        } else {
            return;
        };
        let (edge_a, edge_b) = (&self.edges[&ea][side], &self.edges[&eb][side ^ 1]);
        for (from, to) in [(edge_a, edge_b), (edge_b, edge_a)] {
            for &(along, height) in from {
                if let Some(other) = edge_height(to, along) {
                    let gap = (other - height).abs();
                    assert!(
                        gap <= 1e-3,
                        "frame {frame}: a {gap:.3} m crack between {:?} and {:?} at {along}",
                        a.chunk,
                        b.chunk
                    );
                    self.edges_checked += 1;
                }
            }
        }
    }
}

/// A flight at `speed` units a second over the default layout and levels of detail to a 2 km
/// horizon, meshes whole up to `full_mesh_levels`, with one build thread and frames paced at
/// 60 Hz as on a two-core machine, watching the visible meshes every frame; the land is covered
/// out to `covered_within` (probes to 97% of it) in every frame.
fn watch_flight(speed: f32, seconds: u32, covered_within: f64, full_mesh_levels: u8, seed: u64) {
    let streaming = BiomeWorldStreaming {
        horizon: 2048.0,
        ..default()
    };
    let fade_frames = (streaming.fade_seconds * 60.0).ceil() as u64;
    let settings = BiomeWorldSettings {
        full_mesh_levels,
        ..default()
    };
    let mut h = Harness::build(settings, streaming, true);
    h.run_until_idle();
    let mut screen = Screen::default();
    let mut position = Vec3::new(10.0, 50.0, 10.0);
    // Each flight heads its own way.
    let heading = common::Rng(seed).range(0.0, std::f64::consts::TAU) as f32;
    let step = Vec3::new(heading.cos(), 0.0, heading.sin()) * speed / 60.0;
    let frame = Duration::from_nanos(16_666_667);
    for k in 0..u64::from(seconds) * 60 {
        let deadline = std::time::Instant::now() + frame;
        position += step;
        h.move_anchor(position);
        h.step();
        let visible = screen.check(&mut h, k, fade_frames);
        for p in probes(position, covered_within) {
            assert!(
                visible
                    .iter()
                    .any(|(_, s)| !s.replaced && s.rect.contains(p)),
                "frame {k}: {p:?} uncovered"
            );
        }
        if let Some(rest) = deadline.checked_duration_since(std::time::Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    eprintln!(
        "{speed} u/s: {} node-frames fading, {} seam vertices checked",
        screen.swaps_seen, screen.edges_checked
    );
    assert!(screen.swaps_seen > 100, "the flight changed what is shown");
    assert!(screen.edges_checked > 100_000);
}

/// Flying at 300 u/s, every frame shows one watertight surface (no crack over 1 mm, no node
/// over another but a replacement fading in over what it replaces, for one fade at most), and
/// the land is covered out to the horizon; levels 2 and 3 mesh their interiors in blocks of 2
/// and 4 tiles, so their seams with whole meshes are watched too.
#[test]
fn every_frame_of_a_flight_at_300_units_a_second_is_watertight() {
    watch_flight(300.0, 12, 2048.0, 1, 0x5eed_0300);
}

/// At 1,000 u/s too, with the land within a kilometre always covered.
#[test]
fn every_frame_of_a_flight_at_1000_units_a_second_is_watertight() {
    watch_flight(1000.0, 12, 1024.0, 5, 0x5eed_1000);
}

/// The streamer's timings and counts reach Bevy's `DiagnosticsStore`, beside the stats.
#[test]
fn timings_reach_bevys_diagnostics() {
    let mut h = Harness::new(settings());
    h.run_until_idle();
    let stats = h.stats().clone();
    let store = h.app.world().resource::<DiagnosticsStore>();
    let builds: Vec<f64> = store
        .get(BiomeWorldStats::BUILD_TIME)
        .expect("registered")
        .measurements()
        .map(|m| m.value)
        .collect();
    assert_eq!(builds.len(), stats.applied_total.min(256) as usize);
    assert!(
        builds.iter().all(|&ms| ms > 0.0 && ms < 60_000.0),
        "{builds:?}"
    );
    let latest = |path| store.get_measurement(path).expect("measured").value;
    assert_eq!(latest(BiomeWorldStats::NODES), stats.loaded as f64);
    assert_eq!(
        latest(BiomeWorldStats::APPLY_TIME),
        stats.apply_time.as_secs_f64() * 1000.0
    );
    assert!(latest(BiomeWorldStats::STREAM_TIME) > 0.0);
}

/// Game content anchored through the area messages, as a game would write it: one camp per
/// area, spawned on [`AreaLoaded`] and despawned on [`AreaUnloaded`].
#[derive(Component)]
struct AreaCamp(ChunkCoord);

#[derive(Resource, Default)]
struct CampLog {
    live: HashMap<ChunkCoord, Entity>,
    spawned: HashMap<ChunkCoord, usize>,
}

fn camps_follow_areas(
    mut commands: Commands,
    mut unloaded: MessageReader<AreaUnloaded>,
    mut loaded: MessageReader<AreaLoaded>,
    mut log: ResMut<CampLog>,
) {
    for message in unloaded.read() {
        let camp = log.live.remove(&message.area);
        commands
            .entity(camp.expect("an area unloads only once loaded"))
            .despawn();
    }
    for message in loaded.read() {
        let camp = commands.spawn(AreaCamp(message.area)).id();
        let before = log.live.insert(message.area, camp);
        assert!(before.is_none(), "{:?} loaded twice", message.area);
        *log.spawned.entry(message.area).or_default() += 1;
    }
}

/// Circling a chunk at 60 Hz with one build thread, its neighbours change level and its own
/// terrain is rebuilt with new stitches, but the content anchored to its area is spawned once
/// and never recreated; in every frame the camps are exactly the areas with full-detail ground
/// on screen.
#[test]
fn content_anchored_to_areas_is_spawned_once_while_levels_and_stitches_change() {
    let mut h = Harness::build(settings(), lod_streaming(), true);
    h.app
        .init_resource::<CampLog>()
        .add_systems(Update, camps_follow_areas.after(BiomeWorldSystems::Apply));
    let centre = Vec2::new(32.0, 32.0);
    h.move_anchor(Vec3::new(centre.x + 44.0, 50.0, centre.y));
    h.run_until_idle();
    let before = h.spawned_log.len();
    let frame = Duration::from_nanos(16_666_667);
    for k in 0..480u16 {
        let deadline = std::time::Instant::now() + frame;
        let angle = f32::from(k) / 240.0 * std::f32::consts::TAU;
        let at = centre + Vec2::from_angle(angle) * 44.0;
        h.move_anchor(Vec3::new(at.x, 50.0, at.y));
        h.step();
        let drawn: HashSet<ChunkCoord> = {
            let world = h.app.world_mut();
            world
                .query::<(&BiomeChunk, &Visibility)>()
                .iter(world)
                .filter(|(c, v)| c.node.level == 0 && **v != Visibility::Hidden)
                .map(|(c, _)| ChunkCoord::new(c.node.x, c.node.z))
                .collect()
        };
        let camps: HashSet<ChunkCoord> = {
            let world = h.app.world_mut();
            world
                .query::<&AreaCamp>()
                .iter(world)
                .map(|c| c.0)
                .collect()
        };
        let areas: HashSet<ChunkCoord> = h.app.world().resource::<BiomeAreas>().loaded().collect();
        assert_eq!(
            camps, drawn,
            "frame {k}: camps against full-detail ground shown"
        );
        assert_eq!(
            areas, drawn,
            "frame {k}: areas against full-detail ground shown"
        );
        if let Some(rest) = deadline.checked_duration_since(std::time::Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    let rebuilt = |node: NodeCoord, h: &Harness, since: usize| {
        h.spawned_log[since..]
            .iter()
            .filter(|(_, m)| m.node == node)
            .count()
    };
    let log = h.app.world().resource::<CampLog>();
    let middle = ChunkCoord::new(0, 0);
    let under_middle = rebuilt(NodeCoord::chunk(middle), &h, before);
    assert!(
        under_middle >= 2,
        "the middle chunk's terrain was rebuilt {under_middle} times: the flight must change it"
    );
    assert_eq!(log.spawned[&middle], 1, "the middle chunk's camp");
    // Around it, areas come and go with full detail, less often than their terrain is rebuilt
    // (since the start: 60 camps against 133 full-detail terrain spawns in one run).
    let (level_0, camps) = log.spawned.keys().fold((0, 0), |(terrain, camps), &area| {
        (
            terrain + rebuilt(NodeCoord::chunk(area), &h, 0),
            camps + log.spawned[&area],
        )
    });
    eprintln!("{level_0} full-detail terrain spawns, {camps} camps spawned");
    assert!(
        camps < level_0,
        "{camps} camps for {level_0} terrain spawns"
    );
}

/// Whether a build of `node` reads the ground within `[min, max]`: its square and two of its
/// tiles and a unit around it (normals, stitched edges, the slope under trees).
fn reaches(node: NodeCoord, layout: &ChunkLayout, [min, max]: [[f64; 2]; 2]) -> bool {
    let rect = NodeRect::of(node, layout);
    let reach = 2.0 * node.tile_size(layout) + 1.0;
    (0..2).all(|a| rect.min[a] - reach <= max[a] && rect.max[a] + reach >= min[a])
}

/// The height of the vertex of `entity`'s mesh at world `(x, z)`, if it has one there.
fn vertex_height(h: &mut Harness, entity: Entity, x: f64, z: f64) -> Option<f32> {
    let chunk = *h.app.world().get::<BiomeChunk>(entity)?;
    let origin = chunk.node.origin(&chunk.layout);
    let (lx, lz) = ((x - origin[0]) as f32, (z - origin[1]) as f32);
    positions(&mesh_of(h, entity))
        .into_iter()
        .find(|p| p[0] == lx && p[2] == lz)
        .map(|p| p[1])
}

/// A pad and a road pushed while the world is shown, with one build thread and frames paced at
/// 60 Hz: every frame stays watertight and covered while the nodes within the edits' reach, at
/// `levels` levels or more, are rebuilt, and only those; the edits are on screen within a
/// second, and the queries and the meshes agree on the pad's height.
fn watch_edits(settings: BiomeWorldSettings, streaming: BiomeWorldStreaming, levels: usize) {
    let fade_frames = (streaming.fade_seconds * 60.0).ceil() as u64;
    let layout = settings.layout;
    let mut h = Harness::build(settings, streaming.clone(), true);
    h.run_until_idle();
    let before = h.nodes();
    // A pad by the anchor and a road out where the levels are coarse.
    let pad = EditShape::Pad {
        center: [40.0, 24.0],
        half_size: [12.0, 8.0],
        height: 30.0,
        skirt: 10.0,
    };
    let reach = f64::from(streaming.detail_radius) / 64.0;
    let road = EditShape::Path {
        points: [
            [150.0, 20.0, -60.0],
            [260.0, 25.0, 40.0],
            [420.0, 10.0, 90.0],
        ]
        .map(|[x, y, z]| [x * reach, y, z * reach])
        .to_vec(),
        width: 8.0,
        skirt: 10.0,
        surface: None,
    };
    let expected: HashSet<NodeCoord> = before
        .keys()
        .copied()
        .filter(|&node| {
            [&pad, &road]
                .iter()
                .any(|e| reaches(node, &layout, e.bounds()))
        })
        .collect();
    let under: HashSet<u8> = expected.iter().map(|n| n.level).collect();
    assert!(
        under.len() >= levels,
        "the edits lie under several levels: {expected:?}"
    );
    assert!(
        expected.len() * 3 < before.len(),
        "{} of {}",
        expected.len(),
        before.len()
    );

    let mut edits = h.app.world_mut().resource_mut::<BiomeWorldEdits>();
    edits.push(pad).unwrap();
    edits.push(road).unwrap();
    let spawned_before = h.spawned_log.len();
    let anchor = Vec3::new(10.0, 50.0, 10.0);
    let mut screen = Screen::default();
    let mut shown_after = None;
    let frame = Duration::from_nanos(16_666_667);
    for k in 0..1200 {
        let deadline = std::time::Instant::now() + frame;
        h.step();
        let visible = screen.check(&mut h, k, fade_frames);
        for p in probes(anchor, 0.97 * f64::from(streaming.horizon)) {
            assert!(
                visible
                    .iter()
                    .any(|(_, s)| !s.replaced && s.rect.contains(p)),
                "frame {k}: {p:?} uncovered"
            );
        }
        let shown = expected.iter().all(|node| {
            visible
                .iter()
                .any(|(_, s)| s.chunk.node == *node && s.chunk.revision > 0)
        });
        if shown && shown_after.is_none() {
            shown_after = Some(k + 1);
        }
        if shown && h.stats().is_idle() {
            break;
        }
        if let Some(rest) = deadline.checked_duration_since(std::time::Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    let frames = shown_after.expect("the pad is shown");
    eprintln!(
        "{} tiles of {}: a pad and a road over {} of {} nodes on screen after {frames} frames at \
         60 Hz, one build thread",
        layout.tiles,
        layout.tile_size,
        expected.len(),
        before.len()
    );
    assert!(frames <= 60, "{frames} frames");

    // Only the nodes within reach were built again, once each; the others kept their entity.
    let rebuilt: Vec<NodeCoord> = h.spawned_log[spawned_before..]
        .iter()
        .map(|(_, m)| m.node)
        .collect();
    assert_eq!(rebuilt.len(), expected.len(), "{rebuilt:?}");
    assert_eq!(rebuilt.iter().copied().collect::<HashSet<_>>(), expected);
    let after = h.nodes();
    for (node, (entity, chunk)) in &before {
        if !expected.contains(node) {
            assert_eq!(after[node].0, *entity, "{node:?} was rebuilt");
            assert_eq!(after[node].1.revision, chunk.revision);
        }
    }

    // The pad's top, in the queries and on the full-detail mesh.
    let (top, ground) = h
        .app
        .world_mut()
        .run_system_once(|world: BiomeWorld| {
            (
                world.height_at(Vec2::new(40.0, 24.0)),
                world.ground_height_at(Vec2::new(37.0, 22.0)),
            )
        })
        .unwrap();
    assert_eq!((top, ground), (30.0, 30.0));
    let (entity, _) = after[&NodeCoord::new(0, 0, 0)];
    assert_eq!(vertex_height(&mut h, entity, 40.0, 24.0), Some(30.0));
}

#[test]
fn an_edit_rebuilds_only_the_nodes_it_reaches_and_never_opens_a_hole() {
    watch_edits(settings(), lod_streaming(), 3);
}

/// The same over the default layout and a 2 km horizon.
#[test]
fn an_edit_over_default_chunks_is_on_screen_within_a_few_frames() {
    let streaming = BiomeWorldStreaming {
        horizon: 2048.0,
        ..default()
    };
    watch_edits(BiomeWorldSettings::default(), streaming, 2);
}

/// Two worlds given the same edit log, one all at once and one an entry at a time in another
/// order over many frames with a duplicate, build the same nodes bit for bit: those the core
/// builds with the log's edits.
#[test]
fn peers_given_one_log_in_any_order_build_the_same_nodes() {
    let edits = [
        EditShape::Pad {
            center: [70.0, 60.0],
            half_size: [10.0, 10.0],
            height: 12.0,
            skirt: 12.0,
        },
        EditShape::Path {
            points: vec![[-60.0, 5.0, -30.0], [20.0, 8.0, 10.0], [150.0, 2.0, 90.0]],
            width: 6.0,
            skirt: 8.0,
            surface: None,
        },
        EditShape::Brush {
            center: [10.0, 140.0],
            radius: 30.0,
            falloff: 0.5,
            op: BrushOp::Raise(-15.0),
        },
    ];
    let mut host = Harness::new(settings());
    let mut peer = Harness::new(settings());
    for edit in &edits {
        host.app
            .world_mut()
            .resource_mut::<BiomeWorldEdits>()
            .push(edit.clone())
            .unwrap();
    }
    let record = |h: &mut Harness, sequence: u64| {
        h.app
            .world_mut()
            .resource_mut::<BiomeWorldEdits>()
            .record(sequence, edits[sequence as usize - 1].clone())
            .unwrap()
    };
    host.run_until_idle();
    record(&mut peer, 3);
    for _ in 0..5 {
        peer.step();
    }
    record(&mut peer, 1);
    peer.step();
    assert_eq!(
        record(&mut peer, 3),
        bevy_biome_world::biome_core::edits::Recorded::Duplicate
    );
    for _ in 0..3 {
        peer.step();
    }
    record(&mut peer, 2);
    peer.run_until_idle();

    let log = host.app.world().resource::<BiomeWorldEdits>().log().clone();
    assert_eq!(peer.app.world().resource::<BiomeWorldEdits>().log(), &log);
    let layout = settings().layout;
    let core = WorldGenerator::new(settings().generator)
        .unwrap()
        .with_edits(std::sync::Arc::new(log.edit_set()));
    let (host_nodes, peer_nodes) = (host.chunks(), peer.chunks());
    assert_eq!(
        host_nodes.keys().collect::<HashSet<_>>(),
        peer_nodes.keys().collect::<HashSet<_>>()
    );
    let mut edited = 0;
    for (coord, (entity, _)) in &host_nodes {
        let built = core.build_chunk(*coord, &layout).unwrap().positions;
        let plain = WorldGenerator::new(settings().generator)
            .unwrap()
            .build_chunk(*coord, &layout)
            .unwrap()
            .positions;
        edited += usize::from(built != plain);
        assert_eq!(positions(&mesh_of(&mut host, *entity)), built, "{coord:?}");
        let peers = positions(&mesh_of(&mut peer, peer_nodes[coord].0));
        assert_eq!(peers, built, "{coord:?}");
        let grounds = |h: &Harness, e: Entity| h.app.world().get::<ChunkGround>(e).cloned();
        assert_eq!(
            grounds(&host, *entity),
            grounds(&peer, peer_nodes[coord].0),
            "{coord:?}"
        );
    }
    assert!(edited >= 6, "{edited} chunks changed by the edits");
}
