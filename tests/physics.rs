//! Physics (feature `avian`): `MinimalPlugins` + avian's plugins + the plugins, fixed 60 Hz steps,
//! bounded loops. Bodies wait as static bodies until the colliders around them are in.

mod common;

use std::collections::HashMap;
use std::time::Duration;

use avian3d::prelude::*;
use bevy::ecs::system::RunSystemOnce;
use bevy::math::DVec3;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

use bevy_biome_world::BiomeWorldState;
use bevy_biome_world::biome_core::{
    ChunkCoord, ChunkLayout, TreeSpecies, WorldGenerator, WorldSettings,
};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{
    BiomeColliderSettings, BiomeColliderStats, BiomeWorldCollider, BiomeWorldPhysicsPlugin,
    GroundHolder, TerrainCollider, TreeModels, TrunkColliders,
};
use common::Rng;

const STEP: f64 = 1.0 / 60.0;

fn app(colliders: BiomeColliderSettings, streaming: BiomeWorldStreaming) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        BiomeWorldPlugin,
        PhysicsPlugins::default(),
        BiomeWorldPhysicsPlugin,
    ))
    .insert_resource(colliders)
    .insert_resource(streaming)
    // Colliders and terrain alone: scattered objects have their own tests.
    .insert_resource(BiomeScatterSettings {
        enabled: false,
        ..default()
    })
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        STEP,
    )))
    .insert_resource(Time::<Fixed>::from_seconds(STEP));
    app.finish();
    app.cleanup();
    app
}

/// Terrain that stays out of the way: full detail within a chunk of each terrain anchor.
fn little_terrain() -> BiomeWorldStreaming {
    BiomeWorldStreaming::full_detail(64.0)
}

fn stats(app: &App) -> &BiomeColliderStats {
    app.world().resource::<BiomeColliderStats>()
}

fn generator(app: &App) -> WorldGenerator {
    app.world()
        .resource::<BiomeWorldState>()
        .generator()
        .as_ref()
        .clone()
}

fn chunk_size(app: &App) -> f64 {
    app.world()
        .resource::<BiomeWorldState>()
        .settings()
        .layout
        .chunk_size()
}

/// Steps until the colliders are idle two frames running.
fn settle(app: &mut App) {
    common::step_until_idle(app, "idle colliders", App::update, |app| {
        stats(app).is_idle() && stats(app).loaded > 0
    });
}

/// Turns the waiting static bodies dynamic.
fn release(app: &mut App, bodies: &[Entity]) {
    for &body in bodies {
        app.world_mut().entity_mut(body).insert(RigidBody::Dynamic);
    }
}

/// `ground_height_at`, the surface a body must rest on.
fn ground(app: &mut App, x: f32, z: f32) -> f32 {
    app.world_mut()
        .run_system_once(move |world: BiomeWorld| world.ground_height_at(Vec2::new(x, z)))
        .expect("runs")
}

/// Distance from `p` to the closest point of triangle `abc` (Ericson, Real-Time Collision
/// Detection, 5.1.5).
fn triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return p.distance(a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return p.distance(b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return p.distance(a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return p.distance(c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return p.distance(a + ac * (d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return p.distance(b + (c - b) * w);
    }
    let denominator = 1.0 / (va + vb + vc);
    p.distance(a + ab * (vb * denominator) + ac * (vc * denominator))
}

/// The surface `ground_height_at` describes (the mesh's triangles, from the generator's heights
/// at the grid points), its heights cached by grid point.
struct Surface {
    generator: WorldGenerator,
    tile: f64,
    heights: HashMap<(i64, i64), f64>,
}

impl Surface {
    fn new(app: &App) -> Self {
        let state = app.world().resource::<BiomeWorldState>();
        Self {
            generator: state.generator().as_ref().clone(),
            tile: state.settings().layout.tile_size,
            heights: HashMap::new(),
        }
    }

    fn vertex(&mut self, i: i64, j: i64) -> DVec3 {
        let (x, z) = (i as f64 * self.tile, j as f64 * self.tile);
        let generator = &self.generator;
        let y = *self
            .heights
            .entry((i, j))
            .or_insert_with(|| generator.height_at(x, z));
        DVec3::new(x, y, z)
    }

    /// Distance from `p` to the surface, over the tiles around it (enough for anything closer
    /// than a tile).
    fn distance(&mut self, p: DVec3) -> f64 {
        let (ci, cj) = (
            (p.x / self.tile).floor() as i64,
            (p.z / self.tile).floor() as i64,
        );
        let mut best = f64::INFINITY;
        for j in cj - 1..=cj + 1 {
            for i in ci - 1..=ci + 1 {
                let (a, b, c, d) = (
                    self.vertex(i, j),
                    self.vertex(i + 1, j),
                    self.vertex(i, j + 1),
                    self.vertex(i + 1, j + 1),
                );
                // The mesh's split: (i, j), (i + 1, j), (i, j + 1) and (i + 1, j),
                // (i + 1, j + 1), (i, j + 1).
                best = best
                    .min(triangle_distance(p, a, b, c))
                    .min(triangle_distance(p, b, d, c));
            }
        }
        best
    }

    /// How far an upright capsule's surface is from the ground (negative inside it): the
    /// distance from its axis, sampled every 5 cm, less its radius.
    fn capsule_gap(&mut self, centre: DVec3, radius: f32, length: f32) -> f64 {
        let samples = (length / 0.05).ceil() as i32;
        (0..=samples)
            .map(|k| {
                let along = -length / 2.0 + length * k as f32 / samples as f32;
                self.distance(centre + DVec3::Y * f64::from(along))
            })
            .fold(f64::INFINITY, f64::min)
            - f64::from(radius)
    }
}

/// `count` points within `radius` of `(cx, cz)`, at least 2 units apart: a third on chunk seams
/// along x, a third along z, and some on chunk corners.
fn points_near(
    rng: &mut Rng,
    chunk: f64,
    cx: f64,
    cz: f64,
    radius: f64,
    count: usize,
) -> Vec<[f64; 2]> {
    let mut points: Vec<[f64; 2]> = Vec::new();
    let mut k = 0;
    while points.len() < count {
        let (mut x, mut z) = (
            cx + rng.range(-radius, radius),
            cz + rng.range(-radius, radius),
        );
        let snap = |v: f64| (v / chunk).round() * chunk;
        match k % 6 {
            0 | 1 => x = snap(x),
            2 | 3 => z = snap(z),
            4 => (x, z) = (snap(x), snap(z)),
            _ => {}
        }
        k += 1;
        if points.iter().all(|p| (p[0] - x).hypot(p[1] - z) >= 2.0) {
            points.push([x, z]);
        }
    }
    points
}

/// Where a ray straight down from high above `(x, z)` meets a collider.
fn ray_height(app: &mut App, x: f32, z: f32) -> Option<f32> {
    app.world_mut()
        .run_system_once(move |query: SpatialQuery| {
            query
                .cast_ray(
                    Vec3::new(x, 2000.0, z),
                    Dir3::NEG_Y,
                    4000.0,
                    true,
                    &SpatialQueryFilter::default(),
                )
                .map(|hit| 2000.0 - hit.distance)
        })
        .expect("runs")
}

/// Rays down at 300 points within 60 units of `(cx, cz)` meet a collider where
/// `ground_height_at` says the ground is, within a millimetre.
fn assert_rays_meet_the_ground(app: &mut App, rng: &mut Rng, chunk: f64, cx: f64, cz: f64) {
    let mut worst = 0.0f32;
    for [x, z] in points_near(rng, chunk, cx, cz, 60.0, 300) {
        let (x, z) = (x as f32, z as f32);
        let hit = ray_height(app, x, z).expect("a collider under every point near the anchor");
        let expected = ground(app, x, z);
        worst = worst.max((hit - expected).abs());
    }
    assert!(
        worst < 1e-3,
        "colliders and ground_height_at differ by {worst} m"
    );
}

/// The first chunk with a dozen trees along a line, as world `(x, z)` of its corner.
fn forest(generator: &WorldGenerator, chunk: f64) -> [f64; 2] {
    (0..200)
        .map(|k| [f64::from(k) * chunk, -200.0])
        .find(|&[x, z]| {
            generator
                .trees_in_rect([x, z], [x + chunk, z + chunk])
                .len()
                >= 12
        })
        .expect("a forest within 25 km")
}

/// Trunk compounds alive and the trunks they hold.
fn trunks(app: &mut App) -> (usize, usize) {
    let world = app.world_mut();
    let compounds: Vec<usize> = world
        .query::<&TrunkColliders>()
        .iter(world)
        .map(|t| t.trunks)
        .collect();
    (compounds.len(), compounds.iter().sum())
}

fn terrain_colliders(app: &mut App) -> Vec<TerrainCollider> {
    let world = app.world_mut();
    world
        .query::<&TerrainCollider>()
        .iter(world)
        .copied()
        .collect()
}

/// A ball of `radius` waiting at `at` as a static body until the colliders are in.
fn spawn_ball(app: &mut App, at: Vec3, radius: f32) -> Entity {
    app.world_mut()
        .spawn((
            BiomeWorldCollider,
            RigidBody::Static,
            Collider::sphere(radius),
            // Grippy enough to hold on the steepest slopes the world has.
            Friction::new(2.0).with_combine_rule(CoefficientCombine::Max),
            Restitution::ZERO,
            LockedAxes::ROTATION_LOCKED,
            Transform::from_translation(at),
        ))
        .id()
}

#[test]
fn two_hundred_balls_come_to_rest_on_the_ground_seams_and_corners_included() {
    let mut app = app(
        BiomeColliderSettings {
            radius: 16.0,
            ..default()
        },
        little_terrain(),
    );
    let mut surface = Surface::new(&app);
    let chunk = chunk_size(&app);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let radius = 0.3;
    let mut balls = Vec::new();
    for [x, z] in points_near(&mut rng, chunk, 40.0, -30.0, 600.0, 200) {
        let (x, z) = (x as f32, z as f32);
        let y = ground(&mut app, x, z) + radius + 1.0;
        balls.push(spawn_ball(&mut app, Vec3::new(x, y, z), radius));
    }
    settle(&mut app);
    release(&mut app, &balls);
    for _ in 0..900 {
        app.update();
    }
    let mut worst = 0.0f64;
    let mut moving = Vec::new();
    for &ball in &balls {
        let p = app.world().get::<Transform>(ball).unwrap().translation;
        let speed = app.world().get::<LinearVelocity>(ball).unwrap().length();
        let gap = surface.distance(p.as_dvec3()) - f64::from(radius);
        worst = worst.max(gap.abs());
        assert!(
            gap.abs() < 0.01,
            "ball at {p} rests {gap:+.4} m off the ground (speed {speed:.3} m/s)"
        );
        if speed >= 0.05 {
            let sx = ground(&mut app, p.x + 0.5, p.z) - ground(&mut app, p.x - 0.5, p.z);
            let sz = ground(&mut app, p.x, p.z + 0.5) - ground(&mut app, p.x, p.z - 0.5);
            moving.push(format!(
                "{p} at {speed:.3} m/s, slope {:.0}°",
                sx.hypot(sz).atan().to_degrees()
            ));
        }
    }
    assert!(
        moving.is_empty(),
        "{} still moving: {moving:#?}",
        moving.len()
    );
    eprintln!("200 balls at rest; the worst is {worst:.4} m off the ground");
}

/// What a capsule pushed along a line met.
#[derive(Debug)]
struct Slide {
    travelled: f32,
    seams: u32,
    /// The closest to and the farthest from the ground it came (negative: inside).
    lowest: f64,
    highest: f64,
}

const CAPSULE_RADIUS: f32 = 0.4;
const CAPSULE_LENGTH: f32 = 1.0;

/// Pushes `capsule` at walking pace along `direction` from `start` for 2 km (each step sets its
/// horizontal velocity; gravity and the ground do the rest), checking it never sticks.
fn slide(
    app: &mut App,
    capsule: Entity,
    start: Vec2,
    direction: Vec2,
    surface: &mut Surface,
) -> Slide {
    let speed = 3.0;
    let chunk = 128.0;
    let mut slide = Slide {
        travelled: 0.0,
        seams: 0,
        lowest: f64::INFINITY,
        highest: f64::NEG_INFINITY,
    };
    let (mut last_chunk, mut second_ago) = (None, 0.0f32);
    for frame in 1..=60_000u32 {
        {
            let mut velocity = app.world_mut().get_mut::<LinearVelocity>(capsule).unwrap();
            velocity.x = direction.x * speed;
            velocity.z = direction.y * speed;
        }
        app.update();
        let p = app.world().get::<Transform>(capsule).unwrap().translation;
        slide.travelled = (p.xz() - start).dot(direction);
        let gap = surface.capsule_gap(p.as_dvec3(), CAPSULE_RADIUS, CAPSULE_LENGTH);
        slide.lowest = slide.lowest.min(gap);
        slide.highest = slide.highest.max(gap);
        let cell = ((p.x / chunk).floor() as i32, (p.z / chunk).floor() as i32);
        if last_chunk.is_some_and(|c| c != cell) {
            slide.seams += 1;
        }
        last_chunk = Some(cell);
        if frame % 60 == 0 {
            assert!(
                slide.travelled - second_ago > 0.5 * speed,
                "frame {frame}: stuck at {p} ({} m in the last second)",
                slide.travelled - second_ago
            );
            second_ago = slide.travelled;
        }
        if slide.travelled >= 2000.0 {
            break;
        }
    }
    slide
}

fn spawn_capsule(app: &mut App, at: Vec3) -> Entity {
    app.world_mut()
        .spawn((
            BiomeWorldCollider,
            RigidBody::Static,
            Collider::capsule(CAPSULE_RADIUS, CAPSULE_LENGTH),
            Friction::ZERO.with_combine_rule(CoefficientCombine::Min),
            Restitution::ZERO.with_combine_rule(CoefficientCombine::Min),
            LockedAxes::ROTATION_LOCKED,
            Transform::from_translation(at),
        ))
        .id()
}

#[test]
fn a_capsule_pushed_two_kilometres_slides_over_seams_as_over_one_seamless_field() {
    let direction = Vec2::new(1.0, 0.3).normalize();
    let start = Vec2::new(5.0, 37.0);
    let foot = CAPSULE_RADIUS + CAPSULE_LENGTH / 2.0;

    // Over the streamed chunk colliders.
    let mut app = app(BiomeColliderSettings::default(), little_terrain());
    let mut surface = Surface::new(&app);
    let y = ground(&mut app, start.x, start.y) + foot + 0.02;
    let capsule = spawn_capsule(&mut app, start.extend(y).xzy());
    settle(&mut app);
    release(&mut app, &[capsule]);
    let streamed = slide(&mut app, capsule, start, direction, &mut surface);

    // Over one heightfield of the same heights along the whole path: the reference. On a
    // surface of flat tiles a body at walking pace leaves the ground by a centimetre or two at
    // convex tile edges; seams must add nothing to that.
    let tile = surface.tile;
    let end = start + direction * 2000.0;
    let (low, high) = (start.min(end) - 12.0, start.max(end) + 12.0);
    let (i0, j0) = (
        (f64::from(low.x) / tile).floor() as i64,
        (f64::from(low.y) / tile).floor() as i64,
    );
    let (i1, j1) = (
        (f64::from(high.x) / tile).ceil() as i64,
        (f64::from(high.y) / tile).ceil() as i64,
    );
    let (columns, rows) = ((i1 - i0 + 1) as usize, (j1 - j0 + 1) as usize);
    let grid: Vec<f32> = (0..rows)
        .flat_map(|r| (0..columns).map(move |c| (r, c)))
        .map(|(r, c)| surface.vertex(i0 + c as i64, j0 + r as i64).y as f32)
        .collect();
    let heights =
        bevy_biome_world::avian3d::parry::utils::Array2::from_fn(rows, columns, |r, c| {
            grid[r * columns + c]
        });
    let size = Vec3::new(
        ((columns - 1) as f64 * tile) as f32,
        1.0,
        ((rows - 1) as f64 * tile) as f32,
    );
    let field = Collider::from(
        bevy_biome_world::avian3d::parry::shape::SharedShape::heightfield(heights, size),
    );
    let mut reference = App::new();
    reference
        .add_plugins((MinimalPlugins, TransformPlugin, PhysicsPlugins::default()))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )))
        .insert_resource(Time::<Fixed>::from_seconds(STEP));
    reference.finish();
    reference.cleanup();
    reference.world_mut().spawn((
        RigidBody::Static,
        field,
        Transform::from_xyz(
            (i0 as f64 * tile) as f32 + size.x / 2.0,
            0.0,
            (j0 as f64 * tile) as f32 + size.z / 2.0,
        ),
    ));
    let capsule = spawn_capsule(&mut reference, start.extend(y).xzy());
    reference.update();
    release(&mut reference, &[capsule]);
    let seamless = slide(&mut reference, capsule, start, direction, &mut surface);

    eprintln!("2 km over chunk colliders: {streamed:?}\n2 km over one heightfield: {seamless:?}");
    assert!(
        streamed.travelled >= 2000.0 && streamed.seams >= 15,
        "{streamed:?}"
    );
    assert!(streamed.lowest > -0.02, "into the ground: {streamed:?}");
    assert!(
        streamed.highest < seamless.highest + 0.01,
        "seams threw it higher than the seamless field did: {streamed:?} against {seamless:?}"
    );
}

#[test]
fn an_anchor_flying_at_sixty_metres_a_second_always_has_a_collider_below() {
    // Terrain streams around the same entity, so its builds compete with the colliders'.
    let mut app = app(
        BiomeColliderSettings::default(),
        BiomeWorldStreaming {
            horizon: 1024.0,
            detail_radius: 128.0,
            ..default()
        },
    );
    let flyer = app
        .world_mut()
        .spawn((
            BiomeWorldCollider,
            BiomeWorldAnchor,
            Transform::from_xyz(0.0, 200.0, 0.0),
        ))
        .id();
    settle(&mut app);
    let chunk = chunk_size(&app);
    let direction = Vec3::new(0.8, 0.0, 0.6);
    // A minute of flight. Between two frames the builds started get the time they need (frames
    // of no time pass until none runs), so what is tested is the plan (how far ahead colliders
    // are built and in what order), not this machine's speed; the benchmark measures that.
    for frame in 1..=3600u32 {
        app.world_mut()
            .get_mut::<Transform>(flyer)
            .unwrap()
            .translation += direction * (60.0 * STEP as f32);
        app.update();
        let p = app.world().get::<Transform>(flyer).unwrap().translation;
        let below = ChunkCoord::new(
            (f64::from(p.x) / chunk).floor() as i64,
            (f64::from(p.z) / chunk).floor() as i64,
        );
        let generation = app.world().resource::<BiomeWorldState>().generation();
        let covered = terrain_colliders(&mut app)
            .iter()
            .any(|c| c.chunk == below && c.generation == generation);
        assert!(
            covered,
            "frame {frame}: no collider under {p} (chunk {below:?})"
        );
        catch_up(&mut app);
    }
}

/// Updates that take no time until no collider build runs or waits to be inserted.
fn catch_up(app: &mut App) {
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    common::step_until(app, "collider builds done", App::update, |app| {
        let busy = stats(app);
        busy.in_flight == 0 && busy.ready == 0
    });
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        STEP,
    )));
}

#[test]
fn colliders_agree_with_the_ground_leave_with_their_entity_and_follow_settings() {
    let mut app = app(BiomeColliderSettings::default(), little_terrain());
    let chunk = chunk_size(&app);
    // Somewhere with trees: the first chunk along a line with a dozen.
    let generator = generator(&app);
    let home = forest(&generator, chunk);
    let anchor = app
        .world_mut()
        .spawn((
            BiomeWorldCollider,
            Transform::from_xyz(home[0] as f32, 0.0, home[1] as f32),
        ))
        .id();
    settle(&mut app);
    let mut rng = Rng(77);
    let check_heights = |app: &mut App, rng: &mut Rng, cx: f64, cz: f64| {
        assert_rays_meet_the_ground(app, rng, chunk, cx, cz);
    };
    // Trunks are tested by the ray too: a ray down through a tree stops at its trunk's top.
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .trunks = false;
    settle(&mut app);
    check_heights(&mut app, &mut rng, home[0], home[1]);
    let loaded = stats(&app).loaded;
    assert!(loaded >= 4, "{loaded} collider chunks");

    // Trunks: one per tree on the collider chunks.
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .trunks = true;
    settle(&mut app);
    let trees: usize = terrain_colliders(&mut app)
        .iter()
        .map(|c| {
            let min = [(c.chunk.x as f64) * chunk, (c.chunk.z as f64) * chunk];
            generator
                .trees_in_rect(min, [min[0] + chunk, min[1] + chunk])
                .len()
        })
        .sum();
    assert!(trees > 0);
    assert_eq!(trunks(&mut app).1, trees);

    // Far away: the old colliders go.
    app.world_mut()
        .get_mut::<Transform>(anchor)
        .unwrap()
        .translation = Vec3::new(home[0] as f32 + 5000.0, 0.0, -200.0);
    settle(&mut app);
    let near_old = terrain_colliders(&mut app)
        .iter()
        .filter(|c| ((c.chunk.x as f64) * chunk - home[0]).abs() < 1000.0)
        .count();
    assert_eq!(near_old, 0);
    assert_eq!(terrain_colliders(&mut app).len(), loaded);

    // Another world: every collider is rebuilt from it, none stays.
    app.world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator = WorldSettings {
        seed: 9,
        ..default()
    };
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .trunks = false;
    settle(&mut app);
    let generation = app.world().resource::<BiomeWorldState>().generation();
    assert!(generation > 0);
    assert!(
        terrain_colliders(&mut app)
            .iter()
            .all(|c| c.generation == generation)
    );
    check_heights(&mut app, &mut rng, home[0] + 5000.0, -200.0);

    // The entity leaves: so do the colliders.
    app.world_mut()
        .entity_mut(anchor)
        .remove::<BiomeWorldCollider>();
    common::step_until(&mut app, "colliders gone", App::update, |app| {
        terrain_colliders(app).is_empty()
    });
}

#[test]
fn drawn_chunks_lend_their_heights_to_colliders() {
    let mut app = app(
        BiomeColliderSettings::default(),
        BiomeWorldStreaming::full_detail(256.0),
    );
    let entity = app
        .world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(-40.0, 50.0, 90.0)))
        .id();
    common::step_until_idle(&mut app, "idle terrain", App::update, |app| {
        let terrain = app.world().resource::<BiomeWorldStats>();
        terrain.is_idle() && terrain.loaded > 0
    });
    app.world_mut()
        .entity_mut(entity)
        .insert(BiomeWorldCollider);
    settle(&mut app);
    let stats = stats(&app);
    assert_eq!(stats.sampled_heights, 0, "{stats:?}");
    assert_eq!(stats.reused_heights, stats.loaded as u64, "{stats:?}");
}

#[test]
fn refused_collider_settings_name_their_field_and_keep_the_last_valid() {
    let mut app = app(BiomeColliderSettings::default(), little_terrain());
    app.world_mut()
        .spawn((BiomeWorldCollider, Transform::default()));
    settle(&mut app);
    let loaded = stats(&app).loaded;
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .radius = f32::NAN;
    app.update();
    let error = stats(&app).error.clone().expect("refused");
    assert!(error.contains("colliders.radius"), "{error}");
    settle(&mut app);
    assert_eq!(stats(&app).loaded, loaded);

    // The valid settings back: the error goes.
    *app.world_mut().resource_mut::<BiomeColliderSettings>() = BiomeColliderSettings::default();
    app.update();
    assert_eq!(stats(&app).error, None);

    // A layout of chunks so small that the radius would need too many: checked again, refused,
    // and as the settings in use do not fit either, no colliders until some do.
    let layout = ChunkLayout {
        tiles: 8,
        tile_size: 0.5,
        ..default()
    };
    assert!(
        BiomeColliderSettings::default()
            .validate_with(&layout)
            .is_err()
    );
    app.world_mut().resource_mut::<BiomeWorldSettings>().layout = layout;
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<BiomeWorldState>().settings().layout,
        layout,
        "the world takes the layout"
    );
    let error = stats(&app).error.clone().expect("refused with this layout");
    assert!(error.contains("colliders.radius"), "{error}");
    assert!(terrain_colliders(&mut app).is_empty());
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .radius = 8.0;
    settle(&mut app);
    assert_eq!(stats(&app).error, None);
    let generation = app.world().resource::<BiomeWorldState>().generation();
    let colliders = terrain_colliders(&mut app);
    assert!(!colliders.is_empty());
    assert!(colliders.iter().all(|c| c.generation == generation));
}

#[test]
fn colliders_follow_radius_layout_trunk_and_tree_changes_and_come_back_when_lost() {
    let mut app = app(BiomeColliderSettings::default(), little_terrain());
    let chunk = chunk_size(&app);
    let home = forest(&generator(&app), chunk);
    let at = Vec3::new(home[0] as f32 + 10.0, 0.0, home[1] as f32 + 10.0);
    app.world_mut()
        .spawn((BiomeWorldCollider, Transform::from_translation(at)));
    settle(&mut app);
    let loaded = stats(&app).loaded;
    assert!(trunks(&mut app).0 > 0, "a forest has trunks");

    // Game code despawns a ground collider: it is built again.
    let (victim, lost) = {
        let world = app.world_mut();
        let (entity, collider) = world
            .query::<(Entity, &TerrainCollider)>()
            .iter(world)
            .next()
            .map(|(entity, collider)| (entity, *collider))
            .expect("colliders");
        (entity, collider)
    };
    app.world_mut().entity_mut(victim).despawn();
    settle(&mut app);
    assert_eq!(stats(&app).loaded, loaded);
    assert!(terrain_colliders(&mut app).contains(&lost));

    // Every collider chunk lies within the radius and its hysteresis, whatever the radius.
    let within = |app: &mut App| {
        let settings = app.world().resource::<BiomeColliderSettings>().clone();
        let keep = f64::from(settings.radius) * (1.0 + f64::from(settings.hysteresis));
        let (x, z) = (f64::from(at.x), f64::from(at.z));
        terrain_colliders(app).iter().all(|c| {
            // The chunk's point nearest the anchor.
            let (x0, z0) = ((c.chunk.x as f64) * chunk, (c.chunk.z as f64) * chunk);
            let (nx, nz) = (x.clamp(x0, x0 + chunk), z.clamp(z0, z0 + chunk));
            (x - nx).hypot(z - nz) <= keep
        })
    };
    assert!(within(&mut app));
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .radius = 250.0;
    settle(&mut app);
    let wide = stats(&app).loaded;
    assert!(
        wide > 2 * loaded,
        "{wide} chunks at radius 250, {loaded} at 96"
    );
    assert!(within(&mut app));
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .radius = 96.0;
    settle(&mut app);
    assert!(within(&mut app));
    assert!(stats(&app).loaded < wide);

    // Trunks off leaves no trunk behind; on again, one per tree.
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .trunks = false;
    settle(&mut app);
    assert_eq!(trunks(&mut app), (0, 0));
    assert_eq!(stats(&app).trunks, 0);
    app.world_mut()
        .resource_mut::<BiomeColliderSettings>()
        .trunks = true;
    settle(&mut app);
    let with_trunks = trunks(&mut app);
    assert!(with_trunks.0 > 0);
    assert_eq!(stats(&app).trunks, with_trunks.1);

    // Trees not spawned: no trunks stand where no tree is drawn.
    app.world_mut().resource_mut::<BiomeWorldSettings>().trees = false;
    settle(&mut app);
    assert_eq!(trunks(&mut app), (0, 0));
    app.world_mut().resource_mut::<BiomeWorldSettings>().trees = true;
    settle(&mut app);
    assert_eq!(trunks(&mut app), with_trunks);

    // Another layout: all colliders rebuilt in its chunks, meeting the ground.
    app.world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .layout
        .tile_size = 1.0;
    settle(&mut app);
    let state = app.world().resource::<BiomeWorldState>();
    let (generation, chunk) = (state.generation(), state.settings().layout.chunk_size());
    assert!(
        terrain_colliders(&mut app)
            .iter()
            .all(|c| c.generation == generation)
    );
    assert_rays_meet_the_ground(
        &mut app,
        &mut Rng(5),
        chunk,
        f64::from(at.x),
        f64::from(at.z),
    );
}

#[test]
fn colliders_and_terrain_starting_together_sample_each_chunk_once() {
    let mut app = app(
        BiomeColliderSettings::default(),
        BiomeWorldStreaming::full_detail(256.0),
    );
    app.world_mut().spawn((
        BiomeWorldAnchor,
        BiomeWorldCollider,
        Transform::from_xyz(-40.0, 50.0, 90.0),
    ));
    common::step_until_idle(&mut app, "idle terrain and colliders", App::update, |app| {
        let terrain = app.world().resource::<BiomeWorldStats>();
        terrain.is_idle() && terrain.loaded > 0 && stats(app).is_idle()
    });
    let stats = stats(&app);
    // Each collider took its heights from a drawn chunk, from the terrain build's density, or
    // sampled them; and the terrain took every density a collider sampled.
    assert_eq!(
        stats.reused_heights + stats.shared_heights + stats.sampled_heights,
        stats.loaded as u64,
        "{stats:?}"
    );
    assert!(
        stats.sampled_heights + stats.shared_heights > 0,
        "{stats:?}"
    );
    assert_eq!(stats.lent_heights, stats.sampled_heights, "{stats:?}");
}

fn ground_ready(app: &mut App, x: f32, z: f32) -> bool {
    app.world_mut()
        .run_system_once(move |world: BiomeWorld| world.ground_ready_at(Vec2::new(x, z)))
        .expect("runs")
}

fn area_held_by(app: &mut App, x: f32, z: f32) -> (bool, bool) {
    let layout = app.world().resource::<BiomeWorldState>().settings().layout;
    let area = ChunkCoord::containing(f64::from(x), f64::from(z), &layout);
    let areas = app.world().resource::<BiomeAreas>();
    (
        areas.holds(area, GroundHolder::Terrain),
        areas.holds(area, GroundHolder::Colliders),
    )
}

/// With physics on, ground is ready where it is drawn at full detail and its colliders are in,
/// from the current settings; an area is loaded where either is.
#[test]
fn ground_is_ready_where_it_is_drawn_and_its_colliders_are_in() {
    let mut app = app(
        BiomeColliderSettings {
            radius: 32.0,
            ..default()
        },
        little_terrain(),
    );
    let (near, far) = (Vec2::new(10.0, 10.0), Vec2::new(3000.0, 10.0));
    app.world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(near.x, 50.0, near.y)));
    let body = app
        .world_mut()
        .spawn((BiomeWorldCollider, Transform::from_xyz(far.x, 50.0, far.y)))
        .id();
    let idle = |app: &mut App| {
        let terrain = app.world().resource::<BiomeWorldStats>();
        terrain.is_idle() && terrain.loaded > 0 && stats(app).is_idle() && stats(app).loaded > 0
    };
    common::step_until_idle(&mut app, "idle terrain and colliders", App::update, idle);
    assert_eq!(area_held_by(&mut app, near.x, near.y), (true, false));
    assert!(
        !ground_ready(&mut app, near.x, near.y),
        "drawn, no colliders"
    );
    assert_eq!(area_held_by(&mut app, far.x, far.y), (false, true));
    assert!(
        !ground_ready(&mut app, far.x, far.y),
        "colliders, not drawn"
    );

    app.world_mut()
        .get_mut::<Transform>(body)
        .unwrap()
        .translation = near.extend(50.0).xzy();
    common::step_until_idle(&mut app, "colliders moved", App::update, idle);
    assert_eq!(area_held_by(&mut app, near.x, near.y), (true, true));
    assert!(ground_ready(&mut app, near.x, near.y));
    assert_eq!(area_held_by(&mut app, far.x, far.y), (false, false));

    // New settings: not ready until both are rebuilt from them.
    app.world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator
        .seed = 77;
    app.update();
    assert!(
        !ground_ready(&mut app, near.x, near.y),
        "ground of older settings"
    );
    common::step_until(&mut app, "ready again", App::update, |app| {
        ground_ready(app, near.x, near.y)
    });
}

#[test]
fn trunk_colliders_are_as_tall_as_the_tree_models_say_and_follow_them() {
    let mut app = app(BiomeColliderSettings::default(), little_terrain());
    let chunk = chunk_size(&app);
    let generator = generator(&app);
    let home = forest(&generator, chunk);
    app.world_mut().spawn((
        BiomeWorldCollider,
        Transform::from_xyz(home[0] as f32, 0.0, home[1] as f32),
    ));
    settle(&mut app);
    let trees = generator.trees_in_rect(home, [home[0] + chunk, home[1] + chunk]);
    // How far above its foot a ray straight down a tree's axis stops, against its trunk's height.
    let worst_top = |app: &mut App| -> f32 {
        let models = app.world().resource::<TreeModels>().clone();
        trees
            .iter()
            .map(|tree| {
                let [x, y, z] = tree.position.map(|v| v as f32);
                let top = ray_height(app, x, z).expect("a trunk under the ray") - y;
                (top - models.get(tree.species).size.trunk_height * tree.scale).abs()
            })
            .fold(0.0, f32::max)
    };
    assert!(worst_top(&mut app) < 1e-3);

    let mut models = app.world_mut().resource_mut::<TreeModels>();
    for species in TreeSpecies::ALL {
        let mut model = models.get(species).clone();
        model.size.trunk_height = 9.0;
        models.set(species, model);
    }
    app.update();
    let generation = app.world().resource::<BiomeWorldState>().generation();
    common::step_until(&mut app, "colliders rebuilt", App::update, |app| {
        let colliders = terrain_colliders(app);
        !colliders.is_empty() && colliders.iter().all(|c| c.generation == generation)
    });
    settle(&mut app);
    assert!(worst_top(&mut app) < 1e-3);
}

/// A pad pushed under a collider anchor rebuilds the colliders of the chunks within its reach,
/// and only those, and rays down meet the pad where `ground_height_at` says.
#[test]
fn an_edit_rebuilds_the_colliders_it_reaches_and_rays_meet_it() {
    let mut app = app(BiomeColliderSettings::default(), little_terrain());
    let chunk = chunk_size(&app);
    let tile = app
        .world()
        .resource::<BiomeWorldState>()
        .settings()
        .layout
        .tile_size;
    app.world_mut()
        .spawn((BiomeWorldCollider, Transform::from_xyz(10.0, 0.0, 10.0)));
    settle(&mut app);
    let colliders = |app: &mut App| -> HashMap<ChunkCoord, (Entity, TerrainCollider)> {
        let world = app.world_mut();
        world
            .query::<(Entity, &TerrainCollider)>()
            .iter(world)
            .map(|(entity, collider)| (collider.chunk, (entity, *collider)))
            .collect()
    };
    let before = colliders(&mut app);
    let pad = EditShape::Pad {
        center: [20.0, 30.0],
        half_size: [6.0, 6.0],
        height: 40.0,
        skirt: 6.0,
    };
    let [min, max] = pad.bounds();
    let reach = 2.0 * tile + 1.0;
    let expected: Vec<ChunkCoord> = before
        .keys()
        .copied()
        .filter(|c| {
            let low = [(c.x as f64) * chunk - reach, (c.z as f64) * chunk - reach];
            let high = [low[0] + chunk + 2.0 * reach, low[1] + chunk + 2.0 * reach];
            (0..2).all(|a| low[a] <= max[a] && high[a] >= min[a])
        })
        .collect();
    assert!(!expected.is_empty() && expected.len() < before.len());
    app.world_mut()
        .resource_mut::<BiomeWorldEdits>()
        .push(pad)
        .unwrap();
    settle(&mut app);
    let after = colliders(&mut app);
    assert_eq!(after.len(), before.len());
    for (coord, (entity, collider)) in &before {
        let (now, revised) = after[coord];
        if expected.contains(coord) {
            assert_ne!(now, *entity, "{coord:?} kept its old collider");
            assert_eq!(revised.revision, 1);
        } else {
            assert_eq!(
                (now, revised),
                (*entity, *collider),
                "{coord:?} was rebuilt"
            );
        }
    }
    assert_eq!(ground(&mut app, 20.0, 30.0), 40.0);
    let hit = ray_height(&mut app, 20.0, 30.0).expect("a collider under the pad");
    assert!((hit - 40.0).abs() < 1e-3, "{hit}");
    assert_rays_meet_the_ground(&mut app, &mut Rng(5), chunk, 20.0, 30.0);
}

/// In the `caves` world a ball dropped over a cave mouth falls into it, under the height field:
/// where the volume shapes a chunk, its collider is a triangle mesh of what the chunk draws,
/// not the heightfield.
#[test]
fn a_ball_falls_into_a_cave_mouth() {
    let caves = WorldSettings::from_ron(include_str!("../assets/presets/caves.ron")).unwrap();
    let world = WorldGenerator::new(caves.clone()).unwrap();
    // Hollow from 3 units over the height field to 3 units under it over a 3 × 3 square: a
    // mouth open to the sky and wider than the mesh's 2-unit lattice.
    let hollow = |x: f64, z: f64| {
        world.height_at(x, z) > 4.0
            && (0..=2).all(|i| {
                (0..=2).all(|j| {
                    let (px, pz) = (x - 1.5 + 1.5 * f64::from(i), z - 1.5 + 1.5 * f64::from(j));
                    let under = world.height_at(px, pz);
                    (-6..=6).all(|d| world.solid_at(px, under - 0.5 * f64::from(d), pz) <= 0.0)
                })
            })
    };
    let mouth = (0..400)
        .flat_map(|j| (0..400).map(move |i| [i, j].map(|k| 10.0 * f64::from(k) - 2000.0)))
        .map(|[x, z]| (x, z))
        .find(|&(x, z)| hollow(x, z))
        .expect("a cave mouth within 2 km of the origin");
    let mut app = app(
        BiomeColliderSettings {
            radius: 16.0,
            ..default()
        },
        little_terrain(),
    );
    app.world_mut()
        .resource_mut::<BiomeWorldSettings>()
        .generator = caves;
    let radius = 0.4;
    let (x, z) = (mouth.0 as f32, mouth.1 as f32);
    let drop = world.height_at(mouth.0, mouth.1) as f32;
    let ball = app
        .world_mut()
        .spawn((
            BiomeWorldCollider,
            RigidBody::Static,
            Collider::sphere(radius),
            Transform::from_xyz(x, drop + 2.0, z),
        ))
        .id();
    settle(&mut app);
    release(&mut app, &[ball]);
    // Four seconds: it drops through the mouth and rolls on along the cave, under the height
    // field (which a heightfield collider would hold it over) and over the volume band's foot
    // (never through the world).
    // All the way, `ground_below` finds the floor under the ball's centre, the cave's where
    // it is in one, and the ball rests on it (its centre a radius over it, or more on a slope).
    let (mut lowest, mut deepest, mut closest) = (f32::INFINITY, f32::INFINITY, f32::INFINITY);
    for frame in 0..240 {
        app.update();
        let p = app.world().get::<Transform>(ball).unwrap().translation;
        let over = world.height_at(f64::from(p.x), f64::from(p.z)) as f32;
        lowest = lowest.min(p.y);
        deepest = deepest.min(p.y - over);
        let floor = app
            .world_mut()
            .run_system_once(move |world: BiomeWorld| world.ground_below(p))
            .expect("runs")
            .unwrap_or_else(|| panic!("no floor under the ball at {p} (frame {frame})"));
        closest = closest.min(p.y - floor.height);
    }
    assert!(
        deepest < -1.0 && lowest > drop - 32.0,
        "the ball dropped over the mouth at ({x}, {z}) from {drop} came at most {deepest} under \
         the height field, and {lowest} at its lowest"
    );
    assert!(
        (radius - 0.05..radius + 0.05).contains(&closest),
        "the ball's centre came {closest} over the floor under it (radius {radius})"
    );
    eprintln!(
        "the ball dropped over the mouth at ({x}, {z}) from {drop} came {deepest} under the \
         height field"
    );
}

/// Physics 2^30 and 2^40 units out (about 10^9 and 10^12) under `big_space`'s floating origin (features `avian` and
/// `big_space`): avian simulates relative to the floating origin's cell, so bodies there rest
/// and slide as at the origin, and keep doing so when the camera moves to another cell.
#[cfg(feature = "big_space")]
mod far {
    use bevy::math::DVec2;
    use bevy_biome_world::BiomeWorldGrid;
    use bevy_biome_world::big_space::plugin::BigSpaceMinimalPlugins;
    use bevy_biome_world::big_space::prelude::{
        BigSpaceRootBundle, CellCoord, FloatingOrigin, Grid,
    };

    use super::*;

    const FAR: f64 = (1u64 << 30) as f64;
    const FARTHER: f64 = (1u64 << 40) as f64;
    const CELL: f64 = 2048.0;

    /// The floating origin, which follows the body marked so.
    #[derive(Component)]
    struct Eye;

    #[derive(Component)]
    struct Followed;

    /// [`app`] under a floating origin: the world in a `BiomeWorldGrid` of 2,048-unit cells, the
    /// eye its floating origin at world `(offset + 1000, 0, offset)`, 24 units short of its
    /// cell's edge.
    fn far_app(offset: f64) -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AssetPlugin::default(),
            BigSpaceMinimalPlugins,
            BiomeWorldPlugin,
            PhysicsPlugins::default(),
            BiomeWorldPhysicsPlugin,
        ))
        .insert_resource(BiomeColliderSettings {
            radius: 16.0,
            ..default()
        })
        .insert_resource(little_terrain())
        .insert_resource(BiomeScatterSettings {
            enabled: false,
            ..default()
        })
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            STEP,
        )))
        .insert_resource(Time::<Fixed>::from_seconds(STEP))
        .add_systems(Update, follow.after(BiomeWorldSystems::Settings));
        app.finish();
        app.cleanup();
        let grid = Grid::new(CELL as f32, 0.0);
        let (cell, at) = grid.translation_to_grid(DVec3::new(offset + 1000.0, 0.0, offset));
        let world = app.world_mut();
        let root = world
            .spawn((BigSpaceRootBundle { grid, ..default() }, BiomeWorldGrid))
            .id();
        world.spawn((
            Eye,
            FloatingOrigin,
            BiomeWorldAnchor,
            cell,
            Transform::from_translation(at),
            ChildOf(root),
        ));
        // big_space's first propagation, which places the physics origin at the eye's cell.
        app.update();
        app
    }

    /// Keeps the eye on the followed body, as a camera following a player.
    fn follow(
        biome_world: BiomeWorld,
        followed: Query<&GlobalTransform, With<Followed>>,
        grid: Single<&Grid, With<BiomeWorldGrid>>,
        mut eye: Single<(&mut CellCoord, &mut Transform), With<Eye>>,
    ) {
        if let Some(body) = followed.iter().next() {
            let (cell, at) = grid.translation_to_grid(biome_world.world_position(body));
            *eye.0 = cell;
            eye.1.translation = at;
        }
    }

    /// The world position of the physics frame's origin: the eye's cell.
    fn physics_origin(app: &mut App) -> DVec3 {
        let world = app.world_mut();
        let cell = *world
            .query_filtered::<&CellCoord, With<Eye>>()
            .single(world)
            .unwrap();
        DVec3::new(cell.x as f64, cell.y as f64, cell.z as f64) * CELL
    }

    fn ground_at(app: &mut App, xz: DVec2) -> f64 {
        app.world_mut()
            .run_system_once(move |world: BiomeWorld| world.ground_height_at(xz))
            .expect("runs")
            .into()
    }

    /// What the run saw: the worst rest of a ball, and a capsule pushed across a cell's edge.
    #[derive(Debug)]
    struct FarRun {
        worst_rest: f64,
        capsule_lowest: f64,
        /// The longest step it made in a frame, in the world.
        longest_step: f64,
        travelled: f64,
        cells_crossed: f64,
    }

    /// Thirty balls dropped near the eye come to rest; then a capsule is pushed 60 units east
    /// at 10 m/s from 10 units short of the cell's edge, the eye following it into the next
    /// cell, which moves the physics origin by 2,048 units under it.
    fn run(offset: f64) -> FarRun {
        let mut app = far_app(offset);
        let origin = physics_origin(&mut app);
        assert_eq!(origin, DVec3::new(offset, 0.0, offset));
        let mut surface = Surface::new(&app);
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let radius = 0.3;
        let mut balls = Vec::new();
        // Cell offsets are whole chunks, so the seams are where they are at the origin.
        for [x, z] in points_near(&mut rng, chunk_size(&app), 1000.0, 0.0, 24.0, 30) {
            let local = DVec2::new(x, z);
            let y = ground_at(&mut app, local + origin.xz()) + f64::from(radius) + 1.0;
            let at = Vec3::new(local.x as f32, y as f32, local.y as f32);
            balls.push(spawn_ball(&mut app, at, radius));
        }
        settle(&mut app);
        release(&mut app, &balls);
        for _ in 0..900 {
            app.update();
        }
        let mut worst_rest = 0.0f64;
        for &ball in &balls {
            let p = app.world().get::<Transform>(ball).unwrap().translation;
            let speed = app.world().get::<LinearVelocity>(ball).unwrap().length();
            let gap = surface.distance(p.as_dvec3() + origin) - f64::from(radius);
            assert!(
                gap.abs() < 0.01 && speed < 0.05,
                "{offset}: ball at {p} rests {gap:+.4} m off the ground at {speed:.3} m/s"
            );
            worst_rest = worst_rest.max(gap.abs());
        }
        for ball in balls {
            app.world_mut().despawn(ball);
        }

        let foot = f64::from(CAPSULE_RADIUS + CAPSULE_LENGTH / 2.0);
        let start = DVec2::new(1014.0, 5.0);
        let y = ground_at(&mut app, start + origin.xz()) + foot + 0.02;
        let capsule = spawn_capsule(&mut app, start.extend(y).xzy().as_vec3());
        app.world_mut().entity_mut(capsule).insert(Followed);
        settle(&mut app);
        release(&mut app, &[capsule]);
        let mut lowest = f64::INFINITY;
        let (mut travelled, mut longest_step) = (0.0, 0.0f64);
        let mut last = start.extend(y).xzy() + origin;
        for _ in 0..360 {
            app.world_mut()
                .get_mut::<LinearVelocity>(capsule)
                .unwrap()
                .x = 10.0;
            app.update();
            let frame_origin = physics_origin(&mut app);
            let p = app.world().get::<Transform>(capsule).unwrap().translation;
            let at = p.as_dvec3() + frame_origin;
            let gap = surface.capsule_gap(at, CAPSULE_RADIUS, CAPSULE_LENGTH);
            lowest = lowest.min(gap);
            longest_step = longest_step.max(at.distance(last));
            last = at;
            travelled = at.x - (start.x + origin.x);
        }
        FarRun {
            worst_rest,
            capsule_lowest: lowest,
            longest_step,
            travelled,
            cells_crossed: (physics_origin(&mut app).x - origin.x) / CELL,
        }
    }

    #[test]
    fn far_out_bodies_rest_and_slide_as_at_the_origin_across_cells() {
        let near = run(0.0);
        let far = run(FAR);
        let farther = run(FARTHER);
        eprintln!("at the origin: {near:?}\n2^30 units out: {far:?}\n2^40 units out: {farther:?}");
        for (name, seen) in [("origin", &near), ("2^30", &far), ("2^40", &farther)] {
            assert_eq!(
                seen.cells_crossed, 1.0,
                "{name}: the eye moved one cell east"
            );
            assert!(
                seen.travelled > 50.0,
                "{name}: the capsule went {} m",
                seen.travelled
            );
            assert!(
                seen.capsule_lowest > -0.02,
                "{name}: into the ground: {seen:?}"
            );
            // 10 m/s is 0.17 m a frame: a body the origin's move left behind would jump by
            // up to a cell.
            assert!(seen.longest_step < 0.5, "{name}: a jump: {seen:?}");
        }
        for seen in [&far, &farther] {
            assert!(
                seen.worst_rest <= near.worst_rest.max(0.002) + 0.002,
                "far out the balls rest worse than at the origin: {seen:?} against {near:?}"
            );
        }
    }
}
