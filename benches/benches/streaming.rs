//! Headless streaming benchmark: the plugin under `MinimalPlugins` (no renderer) with the default
//! world, in four configurations in the same run: the first release's view (full-detail chunks
//! within 12 chunks, 1.5 km), the level-of-detail default (an 8 km horizon) with and without
//! scatter, and the default with a 32 km horizon.
//!
//! `cargo bench -p biome_benches --bench streaming` (Bevy's default task pools), or with
//! `-- --background` to run the chunk builders at background priority
//! (`bevy_biome_world::background_async_compute`).
//!
//! For each configuration:
//! 1. Fill: from an empty world, frames run back to back until every node in view is built and
//!    applied. Reports the wall time, the terrain entities, triangles and mesh memory, and the
//!    tree entities.
//! 2. Flights at 100, 300 and 1,000 world units per second, frames paced at 60 Hz of real time.
//!    Reports the main-thread time the plugin takes each frame (median, p99, p99.9, max): the
//!    `Update` schedule, which holds the plugin's systems and applies their commands (spawns and
//!    despawns), timed from a system that runs first in it to one that runs first in
//!    `PostUpdate`; and how many frames show land within 2 km of the anchor that no shown node
//!    covers (probes on 16 rings), and the most in a row.
//!
//! It ends with a table and one `RESULT {json}` line per configuration, and the planner's cost
//! for 32 anchors, with full detail to 16 chunks and with the default, their moves spread in
//! time, all in step, or one moving alone (`-- --planner` measures only that). With
//! `--features avian`, also what colliders add when the default view flies at 60 m/s: the
//! terrain alone, with avian's plugins and no collider entity, with colliders around the anchor,
//! and colliders with no terrain drawn (a server: every collider samples its heights), in the
//! same run (`-- --physics` measures only that). Last, terrain edits in the default view
//! (`-- --edits` measures only that): ten pads pushed one at a time near the anchor, then a
//! second of terraforming (a brush stroke every frame), frames paced at 60 Hz: how many frames
//! until each change is on screen, how many nodes it rebuilt, and the main-thread time.
//! The flights start at the origin, where the default view needs fewest nodes; it also prints
//! how many it holds wherever its anchor stands (least, median, most, from the planner alone),
//! and the same with a 32 km horizon, its far nodes' meshes whole and thinned
//! (`-- --view-sizes` prints only those). `-- --caves` runs the default view over the default
//! world and over the `caves` preset's, and prints only those; `-- --far` the default view and
//! the same to a 32 km horizon, and with `--features big_space` the default view again 10^9 units
//! out (x and z), the world in a floating origin's grid. `--single-threaded` runs `Update` and `PostUpdate` on Bevy's
//! single-threaded executor: the plugin's own time, without the multi-threaded executor handing
//! small systems to worker threads, which on a machine of few cores with builders running can
//! wait for a core.

use std::time::{Duration, Instant};

#[cfg(feature = "avian")]
use bevy::diagnostic::DiagnosticsStore;
use bevy::ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};
use bevy::math::DVec3;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_biome_world::biome_core::edits::{BrushOp, EditShape};
use bevy_biome_world::biome_core::{NodeCoord, WorldGenerator};
use bevy_biome_world::prelude::*;
use bevy_biome_world::stream::{ChunkPlanner, LodConfig};
#[cfg(feature = "avian")]
use bevy_biome_world::{
    BiomeColliderStats, BiomeWorldCollider, BiomeWorldPhysicsPlugin,
    avian3d::prelude::PhysicsPlugins,
};
use bevy_biome_world::{BiomeScatterStats, BiomeWorldEdits, background_async_compute};

const FRAME: Duration = Duration::from_nanos(16_666_667);
const FLIGHT_SECONDS: u32 = 20;
/// The land within this distance of the anchor is probed for a shown node every frame of a
/// flight, world units.
const COVERED_WITHIN: f64 = 2000.0;

/// The terrain nodes on screen (not hidden).
fn shown_chunks(app: &mut App) -> Vec<BiomeChunk> {
    let world = app.world_mut();
    world
        .query::<(&BiomeChunk, &Visibility)>()
        .iter(world)
        .filter(|(_, visibility)| **visibility != Visibility::Hidden)
        .map(|(chunk, _)| *chunk)
        .collect()
}

/// Whether `chunk`'s square holds the world point `[x, z]`.
fn holds(chunk: &BiomeChunk, [x, z]: [f64; 2]) -> bool {
    let [ox, oz] = chunk.node.origin(&chunk.layout);
    let size = chunk.node.size(&chunk.layout);
    (ox..ox + size).contains(&x) && (oz..oz + size).contains(&z)
}

/// Whether every probe within [`COVERED_WITHIN`] of `anchor` (`x, z`; 16 rings of 32 and the
/// centre) lies on a shown terrain node.
fn covered(app: &mut App, anchor: [f64; 2]) -> bool {
    let shown = shown_chunks(app);
    let probes = std::iter::once(anchor).chain((1..=16).flat_map(|ring| {
        (0..32).map(move |k| {
            let (r, angle) = (
                COVERED_WITHIN * f64::from(ring) / 16.0,
                std::f64::consts::TAU * f64::from(k) / 32.0,
            );
            [anchor[0] + r * angle.cos(), anchor[1] + r * angle.sin()]
        })
    }));
    probes
        .into_iter()
        .all(|p| shown.iter().any(|chunk| holds(chunk, p)))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Main-thread time of the `Update` schedule in the last frame.
#[derive(Resource, Default)]
struct UpdateTime {
    started: Option<Instant>,
    ms: f64,
}

fn start_update_timer(mut timer: ResMut<UpdateTime>) {
    timer.started = Some(Instant::now());
}

fn stop_update_timer(mut timer: ResMut<UpdateTime>) {
    if let Some(started) = timer.started.take() {
        timer.ms = started.elapsed().as_secs_f64() * 1000.0;
    }
}

/// Median, p99, p99.9 and max of the plugin's time in a flight, milliseconds.
struct Flight {
    median_ms: f64,
    p99_ms: f64,
    p999_ms: f64,
    max_ms: f64,
    /// Frames in which some land within [`COVERED_WITHIN`] of the anchor had no shown node, and
    /// the most of them in a row.
    uncovered_frames: u32,
    uncovered_run: u32,
    built: u64,
    /// p99 of the terrain's streaming and apply systems alone, of the scatter's, and of the rest
    /// of the plugin's time (the `Update` schedule less those four).
    stream_p99_ms: f64,
    apply_p99_ms: f64,
    scatter_stream_p99_ms: f64,
    scatter_apply_p99_ms: f64,
    rest_p99_ms: f64,
    /// Median and p99 of the whole frame (`App::update`, physics steps included).
    frame_median_ms: f64,
    frame_p99_ms: f64,
    /// The collider systems' time per frame, with physics.
    #[cfg(feature = "avian")]
    colliders: Option<ColliderFlight>,
}

/// What the colliders cost in a flight.
#[cfg(feature = "avian")]
struct ColliderFlight {
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    /// Collider builds (the last 256), and their mean and p99 time, milliseconds (off the main
    /// thread).
    builds: usize,
    /// Builds since the start that sampled their heights.
    sampled: u64,
    build_mean_ms: f64,
    build_p99_ms: f64,
    loaded: usize,
}

struct Outcome {
    name: &'static str,
    horizon_m: f32,
    terrain_entities: usize,
    per_level: Vec<usize>,
    triangles: usize,
    tree_entities: usize,
    /// Rocks, bushes and grass alive once filled.
    scatter_objects: usize,
    mesh_mib: f64,
    fill_s: f64,
    flights: Vec<(f32, Flight)>,
}

/// What physics a benchmark app runs.
#[derive(Clone, Copy, PartialEq)]
enum Physics {
    /// None: the terrain alone.
    Off,
    /// Avian's plugins and the physics plugin, no collider entity: avian's own cost.
    #[cfg(feature = "avian")]
    Idle,
    /// Colliders around the anchor, which the terrain streams around too.
    #[cfg(feature = "avian")]
    Colliders,
    /// Colliders around the anchor, no terrain anchor: nothing is drawn.
    #[cfg(feature = "avian")]
    CollidersAlone,
}

/// An app streaming the default world with `streaming`; rocks, bushes and grass too if
/// `scatter`.
/// An app streaming `streaming` over `settings` around an anchor 80 units over world `(at, at)`:
/// far out (`at` other than 0, feature `big_space`) in a floating origin's grid.
fn app_with(
    streaming: BiomeWorldStreaming,
    scatter: bool,
    background: bool,
    physics: Physics,
    settings: BiomeWorldSettings,
    at: f64,
) -> (App, Entity) {
    let mut app = App::new();
    let mut task_pools = TaskPoolOptions::default();
    if background {
        task_pools.async_compute = background_async_compute(0.25, 4);
    }
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: task_pools,
        }),
        AssetPlugin::default(),
    ));
    #[cfg(feature = "big_space")]
    if at == 0.0 {
        app.add_plugins(TransformPlugin);
    } else {
        app.add_plugins(big_space::BigSpaceMinimalPlugins);
    }
    #[cfg(not(feature = "big_space"))]
    {
        assert_eq!(at, 0.0, "far starts need the big_space feature");
        app.add_plugins(TransformPlugin);
    }
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
        .insert_resource(streaming)
        .insert_resource(settings)
        .insert_resource(BiomeScatterSettings {
            enabled: scatter,
            ..default()
        })
        .add_plugins(BiomeWorldPlugin)
        .init_resource::<UpdateTime>()
        .add_systems(
            Update,
            start_update_timer.before(BiomeWorldSystems::Settings),
        )
        .add_systems(
            PostUpdate,
            stop_update_timer.before(TransformSystems::Propagate),
        );
    #[cfg(feature = "avian")]
    if physics != Physics::Off {
        app.add_plugins((PhysicsPlugins::default(), BiomeWorldPhysicsPlugin));
    }
    if single_threaded() {
        for label in [Update.intern(), PostUpdate.intern()] {
            app.edit_schedule(label, |schedule| {
                schedule.set_executor(SingleThreadedExecutor::new());
            });
        }
    }
    app.finish();
    app.cleanup();
    let anchor = app.world_mut().spawn_empty().id();
    #[cfg(feature = "big_space")]
    if at != 0.0 {
        big_space::spawn_far_anchor(app.world_mut(), anchor);
    }
    set_anchor(&mut app, anchor, DVec3::new(at, 80.0, at));
    match physics {
        Physics::Off => {
            app.world_mut().entity_mut(anchor).insert(BiomeWorldAnchor);
        }
        #[cfg(feature = "avian")]
        Physics::Idle => {
            app.world_mut().entity_mut(anchor).insert(BiomeWorldAnchor);
        }
        #[cfg(feature = "avian")]
        Physics::Colliders => {
            app.world_mut()
                .entity_mut(anchor)
                .insert((BiomeWorldAnchor, BiomeWorldCollider));
        }
        #[cfg(feature = "avian")]
        Physics::CollidersAlone => {
            app.world_mut()
                .entity_mut(anchor)
                .insert(BiomeWorldCollider);
        }
    }
    (app, anchor)
}

fn run_until_idle(app: &mut App) {
    let mut idle = 0;
    while idle < 2 {
        app.update();
        let stats = app.world().resource::<BiomeWorldStats>();
        let scatter = app.world().resource::<BiomeScatterStats>();
        idle = if stats.is_idle() && stats.loaded > 0 && scatter.is_idle() {
            idle + 1
        } else {
            0
        };
    }
}

/// Where `anchor` is, in world units.
fn anchor_at(app: &App, anchor: Entity) -> DVec3 {
    #[cfg(feature = "big_space")]
    if let Some(at) = big_space::anchor_at(app, anchor) {
        return at;
    }
    app.world()
        .get::<Transform>(anchor)
        .expect("the anchor exists")
        .translation
        .as_dvec3()
}

/// Puts `anchor` at world position `at`.
fn set_anchor(app: &mut App, anchor: Entity, at: DVec3) {
    #[cfg(feature = "big_space")]
    if big_space::set_anchor(app, anchor, at) {
        return;
    }
    app.world_mut()
        .entity_mut(anchor)
        .insert(Transform::from_translation(at.as_vec3()));
}

/// The far start's floating origin.
#[cfg(feature = "big_space")]
mod big_space {
    use bevy::math::DVec3;
    use bevy::prelude::*;
    use bevy_biome_world::BiomeWorldGrid;
    pub(crate) use bevy_biome_world::big_space::plugin::BigSpaceMinimalPlugins;
    use bevy_biome_world::big_space::prelude::{
        BigSpaceRootBundle, CellCoord, FloatingOrigin, Grid,
    };

    /// Makes `anchor` the floating origin of a new big space, the world's grid.
    pub(crate) fn spawn_far_anchor(world: &mut World, anchor: Entity) {
        let root = world
            .spawn((
                BigSpaceRootBundle {
                    grid: Grid::new(2048.0, 0.0),
                    ..default()
                },
                BiomeWorldGrid,
            ))
            .id();
        world
            .entity_mut(anchor)
            .insert((FloatingOrigin, CellCoord::default(), ChildOf(root)));
    }

    fn grid(app: &App) -> Option<Grid> {
        let world = app.world();
        let mut grids = world.try_query_filtered::<&Grid, With<BiomeWorldGrid>>()?;
        grids.iter(world).next().cloned()
    }

    /// `anchor`'s world position, if it is in the world's grid.
    pub(crate) fn anchor_at(app: &App, anchor: Entity) -> Option<DVec3> {
        let cell = app.world().get::<CellCoord>(anchor)?;
        let transform = app.world().get::<Transform>(anchor)?;
        Some(grid(app)?.grid_position_double(cell, transform))
    }

    /// Puts `anchor` at `at` if it is in the world's grid: its cell and the offset in it.
    pub(crate) fn set_anchor(app: &mut App, anchor: Entity, at: DVec3) -> bool {
        let Some(grid) = grid(app) else {
            return false;
        };
        let (cell, offset) = grid.translation_to_grid(at);
        let mut entity = app.world_mut().entity_mut(anchor);
        if !entity.contains::<CellCoord>() {
            return false;
        }
        entity.insert((cell, Transform::from_translation(offset)));
        true
    }
}

fn fly(app: &mut App, anchor: Entity, speed: f32) -> Flight {
    let mut plugin_ms = Vec::new();
    let (mut stream_ms, mut apply_ms) = (Vec::new(), Vec::new());
    let (mut scatter_stream_ms, mut scatter_apply_ms) = (Vec::new(), Vec::new());
    let mut rest_ms = Vec::new();
    let (mut frame_ms, mut collider_ms) = (Vec::new(), Vec::new());
    let applied_before = app.world().resource::<BiomeWorldStats>().applied_total;
    let start = anchor_at(app, anchor);
    let (mut uncovered_frames, mut uncovered_run, mut run) = (0, 0, 0);
    for frame in 0..FLIGHT_SECONDS * 60 {
        let deadline = Instant::now() + FRAME;
        let x = start.x + f64::from(speed * (frame + 1) as f32 / 60.0);
        set_anchor(app, anchor, DVec3::new(x, start.y, start.z));
        let started = Instant::now();
        app.update();
        frame_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        plugin_ms.push(app.world().resource::<UpdateTime>().ms);
        // Only when terrain is drawn (a collider-only app anchors nothing).
        if app.world().resource::<BiomeWorldStats>().loaded > 0 {
            if covered(app, [x, start.z]) {
                run = 0;
            } else {
                uncovered_frames += 1;
                run += 1;
                uncovered_run = uncovered_run.max(run);
            }
        }
        #[cfg(feature = "avian")]
        if let Some(colliders) = app.world().get_resource::<BiomeColliderStats>() {
            collider_ms.push((colliders.stream_time + colliders.apply_time).as_secs_f64() * 1000.0);
        }
        let stats = app.world().resource::<BiomeWorldStats>();
        let scatter = app.world().resource::<BiomeScatterStats>();
        let ms = |time: Duration| time.as_secs_f64() * 1000.0;
        let (stream, apply) = (ms(stats.stream_time), ms(stats.apply_time));
        let (scatter_stream, scatter_apply) = (ms(scatter.stream_time), ms(scatter.apply_time));
        stream_ms.push(stream);
        apply_ms.push(apply);
        scatter_stream_ms.push(scatter_stream);
        scatter_apply_ms.push(scatter_apply);
        let plugin = plugin_ms.last().expect("pushed above");
        rest_ms.push(plugin - stream - apply - scatter_stream - scatter_apply);
        if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    for times in [
        &mut plugin_ms,
        &mut stream_ms,
        &mut apply_ms,
        &mut scatter_stream_ms,
        &mut scatter_apply_ms,
        &mut rest_ms,
        &mut frame_ms,
        &mut collider_ms,
    ] {
        times.sort_by(f64::total_cmp);
    }
    #[cfg(feature = "avian")]
    let colliders = app
        .world()
        .get_resource::<BiomeColliderStats>()
        .map(|stats| {
            let mut builds: Vec<f64> = app
                .world()
                .resource::<DiagnosticsStore>()
                .get(BiomeColliderStats::BUILD_TIME)
                .into_iter()
                .flat_map(|diagnostic| diagnostic.measurements().map(|m| m.value))
                .collect();
            builds.sort_by(f64::total_cmp);
            ColliderFlight {
                median_ms: percentile(&collider_ms, 0.5),
                p99_ms: percentile(&collider_ms, 0.99),
                max_ms: percentile(&collider_ms, 1.0),
                builds: builds.len(),
                build_mean_ms: builds.iter().sum::<f64>() / builds.len().max(1) as f64,
                build_p99_ms: if builds.is_empty() {
                    0.0
                } else {
                    percentile(&builds, 0.99)
                },
                loaded: stats.loaded,
                sampled: stats.sampled_heights,
            }
        });
    Flight {
        median_ms: percentile(&plugin_ms, 0.5),
        p99_ms: percentile(&plugin_ms, 0.99),
        p999_ms: percentile(&plugin_ms, 0.999),
        max_ms: percentile(&plugin_ms, 1.0),
        uncovered_frames,
        uncovered_run,
        built: app.world().resource::<BiomeWorldStats>().applied_total - applied_before,
        stream_p99_ms: percentile(&stream_ms, 0.99),
        apply_p99_ms: percentile(&apply_ms, 0.99),
        scatter_stream_p99_ms: percentile(&scatter_stream_ms, 0.99),
        scatter_apply_p99_ms: percentile(&scatter_apply_ms, 0.99),
        rest_p99_ms: percentile(&rest_ms, 0.99),
        frame_median_ms: percentile(&frame_ms, 0.5),
        frame_p99_ms: percentile(&frame_ms, 0.99),
        #[cfg(feature = "avian")]
        colliders,
    }
}

/// The default view flown at 60 m/s (a fast runner, a slow car) with each [`Physics`]: what
/// avian and the colliders add to the main thread, and what a collider build costs.
#[cfg(feature = "avian")]
fn print_physics_costs(background: bool) {
    let mut rows = Vec::new();
    for (name, physics) in [
        ("terrain alone", Physics::Off),
        ("with avian, no collider entity", Physics::Idle),
        ("with colliders", Physics::Colliders),
        ("colliders alone, nothing drawn", Physics::CollidersAlone),
    ] {
        // Colliders against the terrain alone, as measured before scatter came.
        let (mut app, anchor) = app_with(
            BiomeWorldStreaming::default(),
            false,
            background,
            physics,
            BiomeWorldSettings::default(),
            0.0,
        );
        if physics != Physics::CollidersAlone {
            run_until_idle(&mut app);
        }
        if matches!(physics, Physics::Colliders | Physics::CollidersAlone) {
            while !app.world().resource::<BiomeColliderStats>().is_idle()
                || app.world().resource::<BiomeColliderStats>().loaded == 0
            {
                app.update();
            }
        }
        rows.push((name, fly(&mut app, anchor, 60.0)));
    }
    println!("at 60 m/s, main thread per frame, median/p99/max ms:");
    for (name, flight) in &rows {
        println!(
            "  {name:<31} plugins {:.3}/{:.3}/{:.3}, whole frame {:.2}/{:.2}",
            flight.median_ms,
            flight.p99_ms,
            flight.max_ms,
            flight.frame_median_ms,
            flight.frame_p99_ms
        );
        if let Some(c) = flight.colliders.as_ref().filter(|c| c.builds > 0) {
            println!(
                "  {:<31} collider systems {:.3}/{:.3}/{:.3}; {} chunks with colliders; {} builds \
                 ({} heights sampled), {:.2} ms each on average, p99 {:.2} ms (off the main \
                 thread)",
                "",
                c.median_ms,
                c.p99_ms,
                c.max_ms,
                c.loaded,
                c.builds,
                c.sampled,
                c.build_mean_ms,
                c.build_p99_ms
            );
        }
    }
    for (name, flight) in &rows {
        let Some(c) = flight.colliders.as_ref().filter(|c| c.builds > 0) else {
            continue;
        };
        println!(
            "RESULT {{\"config\": \"colliders at 60 m/s, {name}\", \"collider_median_ms\": \
             {:.3}, \"collider_p99_ms\": {:.3}, \"collider_max_ms\": {:.3}, \
             \"collider_build_mean_ms\": {:.3}, \"collider_build_p99_ms\": {:.3}, \
             \"plugin_p99_ms\": {:.3}, \"frame_p99_ms\": {:.3}}}",
            c.median_ms,
            c.p99_ms,
            c.max_ms,
            c.build_mean_ms,
            c.build_p99_ms,
            flight.p99_ms,
            flight.frame_p99_ms
        );
    }
}

/// Whether a shown full-detail chunk under `xz` is built for `revision` or a later one.
fn edit_shown(app: &mut App, xz: [f64; 2], revision: u64) -> bool {
    shown_chunks(app)
        .iter()
        .any(|chunk| chunk.node.level == 0 && holds(chunk, xz) && chunk.revision >= revision)
}

/// Pushes `edit` and steps paced frames until the chunk under `xz` shows it and the streamers
/// are idle; returns the frames until it showed, until idle, the nodes rebuilt and the
/// main-thread times.
fn watch_edit(app: &mut App, edit: EditShape, xz: [f64; 2], revision: u64) -> (u32, u32, u64) {
    app.world_mut()
        .resource_mut::<BiomeWorldEdits>()
        .push(edit)
        .expect("a valid edit");
    let applied = app.world().resource::<BiomeWorldStats>().applied_total;
    let mut shown = None;
    for frame in 1..=600 {
        let deadline = Instant::now() + FRAME;
        app.update();
        if shown.is_none() && edit_shown(app, xz, revision) {
            shown = Some(frame);
        }
        let stats = app.world().resource::<BiomeWorldStats>();
        let scatter = app.world().resource::<BiomeScatterStats>();
        if let Some(shown) = shown
            && stats.is_idle()
            && scatter.is_idle()
        {
            return (shown, frame, stats.applied_total - applied);
        }
        if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    panic!("an edit not shown within 10 s");
}

/// Terrain edits in the default view, scatter on: ten pads one at a time near the anchor, then
/// a second of terraforming (a small raising brush every frame along a line).
fn print_edit_costs(background: bool) {
    let (mut app, _) = app_with(
        BiomeWorldStreaming::default(),
        true,
        background,
        Physics::Off,
        BiomeWorldSettings::default(),
        0.0,
    );
    run_until_idle(&mut app);
    let height = |app: &App, [x, z]: [f64; 2]| {
        app.world()
            .resource::<bevy_biome_world::BiomeWorldState>()
            .generator()
            .height_at(x, z)
    };
    let (mut shown, mut idle, mut rebuilt) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..10u32 {
        let center = [f64::from(k) * 37.0 - 150.0, 60.0 - f64::from(k) * 23.0];
        let pad = EditShape::Pad {
            center,
            half_size: [10.0, 8.0],
            height: height(&app, center) + 3.0,
            skirt: 10.0,
        };
        let (s, i, r) = watch_edit(&mut app, pad, center, u64::from(k) + 1);
        shown.push(f64::from(s));
        idle.push(f64::from(i));
        rebuilt.push(r as f64);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "edits: a pad near the anchor is on screen after {:.1} frames (max {:.0}) at 60 Hz, every \
         node and scattered object rebuilt after {:.1} (max {:.0}); {:.1} nodes rebuilt a pad",
        mean(&shown),
        max(&shown),
        mean(&idle),
        max(&idle),
        mean(&rebuilt)
    );

    let strokes = 60u32;
    let (lag, plugin_ms) = terraform(&mut app, strokes, 30.0, 10);
    println!(
        "  terraforming, a brush stroke every frame for {strokes} frames: the last on screen {lag} \
         frames after it; plugin main-thread time {:.2} / {:.2} / {:.2} ms (median / p99 / max)",
        percentile(&plugin_ms, 0.5),
        percentile(&plugin_ms, 0.99),
        percentile(&plugin_ms, 1.0)
    );
    // The same with 10,000 edits in the log already, out of sight 50 km away.
    let far = 10_000u32;
    {
        let mut edits = app.world_mut().resource_mut::<BiomeWorldEdits>();
        for k in 0..far {
            let center = [
                50_000.0 + f64::from(k % 100) * 10.0,
                f64::from(k / 100) * 10.0,
            ];
            let brush = EditShape::Brush {
                center,
                radius: 8.0,
                falloff: 0.5,
                op: BrushOp::Raise(1.0),
            };
            edits.push(brush).expect("a valid edit");
        }
    }
    run_until_idle(&mut app);
    let (lag_many, many_ms) = terraform(&mut app, strokes, 60.0, 10 + strokes + far);
    println!(
        "  the same with {far} edits in the log: the last on screen {lag_many} frames after it; \
         plugin main-thread time {:.2} / {:.2} / {:.2} ms",
        percentile(&many_ms, 0.5),
        percentile(&many_ms, 0.99),
        percentile(&many_ms, 1.0)
    );
    println!(
        "RESULT {{\"config\": \"edits, lod default\", \"pad_shown_frames_mean\": {:.1}, \
         \"pad_shown_frames_max\": {:.0}, \"pad_rebuilt_frames_mean\": {:.1}, \
         \"nodes_rebuilt_per_pad\": {:.1}, \"stroke_lag_frames\": {lag}, \
         \"stroke_p99_ms\": {:.3}, \"stroke_max_ms\": {:.3}, \
         \"stroke_lag_frames_10k\": {lag_many}, \"stroke_p99_ms_10k\": {:.3}, \
         \"stroke_max_ms_10k\": {:.3}}}",
        mean(&shown),
        max(&shown),
        mean(&idle),
        mean(&rebuilt),
        percentile(&plugin_ms, 0.99),
        percentile(&plugin_ms, 1.0),
        percentile(&many_ms, 0.99),
        percentile(&many_ms, 1.0)
    );
}

/// A second of terraforming along the row at `z`: a brush every paced frame, as a player
/// holding the button, after `changes` changes of the edits. Returns the frames until the last
/// stroke showed after it, and the plugin's main-thread time of every frame.
fn terraform(app: &mut App, strokes: u32, z: f64, changes: u32) -> (u32, Vec<f64>) {
    let mut plugin_ms = Vec::new();
    for k in 0..strokes {
        let deadline = Instant::now() + FRAME;
        app.world_mut()
            .resource_mut::<BiomeWorldEdits>()
            .push(EditShape::Brush {
                center: [f64::from(k) * 2.0 - 60.0, z],
                radius: 6.0,
                falloff: 0.5,
                op: BrushOp::Raise(0.5),
            })
            .expect("a valid edit");
        app.update();
        plugin_ms.push(app.world().resource::<UpdateTime>().ms);
        if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    let last = [f64::from(strokes - 1) * 2.0 - 60.0, z];
    let mut lag = 0;
    while !edit_shown(app, last, u64::from(changes + strokes)) {
        let deadline = Instant::now() + FRAME;
        app.update();
        plugin_ms.push(app.world().resource::<UpdateTime>().ms);
        lag += 1;
        assert!(lag < 600, "the last stroke not shown within 10 s");
        if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    plugin_ms.sort_by(f64::total_cmp);
    (lag, plugin_ms)
}

/// Fills and flies `streaming` over `settings` from world `(at, at)`.
fn measure(
    name: &'static str,
    streaming: BiomeWorldStreaming,
    scatter: bool,
    background: bool,
    settings: BiomeWorldSettings,
    at: f64,
) -> Outcome {
    let horizon_m = streaming.horizon;
    let (mut app, anchor) = app_with(streaming, scatter, background, Physics::Off, settings, at);
    // The probes see an empty world as uncovered.
    assert!(!covered(&mut app, [at, at]));
    let started = Instant::now();
    run_until_idle(&mut app);
    let fill_s = started.elapsed().as_secs_f64();
    let stats = app.world().resource::<BiomeWorldStats>().clone();
    let scatter_objects = app
        .world()
        .resource::<BiomeScatterStats>()
        .objects
        .iter()
        .sum();
    let mut flights = Vec::new();
    // A walker's pace at most, a fast car, a fast plane.
    for speed in [100.0, 300.0, 1000.0] {
        flights.push((speed, fly(&mut app, anchor, speed)));
    }
    Outcome {
        name,
        horizon_m,
        terrain_entities: stats.loaded,
        per_level: stats.loaded_per_level.clone(),
        triangles: stats.triangles,
        tree_entities: stats.trees,
        scatter_objects,
        mesh_mib: stats.mesh_bytes as f64 / f64::from(1u32 << 20),
        fill_s,
        flights,
    }
}

/// The planner's cost per update, milliseconds.
struct PlannerCost {
    mean_ms: f64,
    max_ms: f64,
    /// Mean over the updates that built something (an anchor moved far enough to select again).
    busy_mean_ms: f64,
    /// Updates that built something.
    reselections: u32,
}

/// How the benchmark's anchors move.
#[derive(Clone, Copy)]
enum Pattern {
    /// Anchor `k` sets off `k` calls after the first, which spreads their phases as
    /// independent players' are.
    Spread,
    /// All set off together, so all 32 pass the planner's move threshold in the same call.
    InStep,
    /// Only the first moves.
    One,
}

/// The planner's view of `streaming` with the default layout (the plugin's own conversion is
/// crate-private).
fn planner_config(streaming: &BiomeWorldStreaming) -> LodConfig {
    LodConfig {
        layout: BiomeWorldSettings::default().layout,
        detail_radius: f64::from(streaming.detail_radius),
        horizon: f64::from(streaming.horizon),
        hysteresis: f64::from(streaming.hysteresis),
    }
}

/// The planner alone: 32 anchors spread over 20 km with `streaming`, each moving 5 units every
/// call (300 u/s at 60 Hz), with a builder that has every build ready at once and takes every
/// swap, the anchors moving as `pattern` says. Returns the cost per update after the first fill,
/// and the chunks wanted.
fn planner_cost(streaming: &BiomeWorldStreaming, pattern: Pattern) -> (PlannerCost, usize) {
    let config = planner_config(streaming);
    let mut anchors: Vec<[f64; 2]> = (0..32)
        .map(|k| {
            let a = f64::from(k) * 2.4;
            [a.cos() * 10_000.0, a.sin() * 10_000.0]
        })
        .collect();
    let mut planner = ChunkPlanner::default();
    let (mut total, mut most, mut busy_total, mut reselections) = (0.0, 0.0f64, 0.0, 0);
    let rounds = 1032;
    for round in 0..=rounds {
        for (k, a) in anchors.iter_mut().enumerate() {
            let moves = match pattern {
                Pattern::Spread => round >= k,
                Pattern::InStep => true,
                Pattern::One => k == 0,
            };
            if moves {
                a[0] += 5.0;
            }
        }
        let before = planner.wanted().len();
        let t = Instant::now();
        let plan = planner.update(&anchors, &config, 0).clone();
        let busy = !plan.build.is_empty();
        for key in plan.build {
            planner.ready(key);
        }
        planner.take_swaps(false);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if round > 32 {
            total += ms;
            most = most.max(ms);
            if busy || planner.wanted().len() != before {
                reselections += 1;
                busy_total += ms;
            }
        }
    }
    let cost = PlannerCost {
        mean_ms: total / 1000.0,
        max_ms: most,
        busy_mean_ms: busy_total / f64::from(reselections.max(1)),
        reselections,
    };
    (cost, planner.wanted().len())
}

fn print_planner_costs() {
    let chunk = BiomeWorldSettings::default().layout.chunk_size() as f32;
    for (name, streaming) in [
        (
            "full detail to 16 chunks",
            BiomeWorldStreaming::full_detail(16.0 * chunk),
        ),
        (
            "the level-of-detail default",
            BiomeWorldStreaming::default(),
        ),
    ] {
        for (how, pattern) in [
            ("phases spread", Pattern::Spread),
            ("all in step", Pattern::InStep),
            ("one moving", Pattern::One),
        ] {
            let (cost, nodes) = planner_cost(&streaming, pattern);
            println!(
                "planner, 32 anchors at 5 units per update with {name} ({nodes} nodes), {how}: \
                 {:.3} ms per update on average, {:.3} ms at most; {} of 1000 updates built, \
                 {:.3} ms on average for those",
                cost.mean_ms, cost.max_ms, cost.reselections, cost.busy_mean_ms
            );
        }
    }
}

/// How many nodes and triangles the default view holds wherever its one anchor stands, with its
/// 8 km horizon and with 32 km, the latter with every level's mesh whole and with the default
/// `full_mesh_levels` (far nodes' interiors in blocks of 2 × 2 tiles, then 4 × 4).
fn print_view_sizes() {
    let whole = BiomeWorldSettings {
        full_mesh_levels: NodeCoord::MAX_LEVEL,
        ..default()
    };
    for (horizon, settings) in [
        (8192.0, BiomeWorldSettings::default()),
        (32768.0, whole),
        (32768.0, BiomeWorldSettings::default()),
    ] {
        print_view_size(
            &BiomeWorldStreaming {
                horizon,
                ..default()
            },
            &settings,
        );
    }
}

/// How many nodes and triangles `streaming` holds wherever its one anchor stands: a fresh
/// planner's wanted set at anchors on a 64 × 64 lattice over the widest node, so every
/// alignment to the quadtree is sampled.
fn print_view_size(streaming: &BiomeWorldStreaming, settings: &BiomeWorldSettings) {
    /// A view: its nodes and triangles, and where its anchor stands.
    #[derive(Clone, Copy)]
    struct View {
        nodes: usize,
        triangles: usize,
        at: [f64; 2],
    }
    let config = planner_config(streaming);
    let widest = settings.layout.chunk_size() * f64::from(1u32 << config.top_level());
    let generator = WorldGenerator::new(settings.generator.clone()).expect("valid settings");
    let view = |at: [f64; 2]| {
        let mut planner = ChunkPlanner::default();
        planner.update(&[at], &config, 0);
        let triangles = planner
            .wanted()
            .keys()
            .map(|node| {
                settings
                    .layout
                    .node_triangles(settings.interior_block_at(node.level, &generator))
            })
            .sum();
        View {
            nodes: planner.wanted().len(),
            triangles,
            at,
        }
    };
    let mut views: Vec<View> = (0..64 * 64)
        .map(|k| {
            view([
                (f64::from(k % 64) + 0.5) / 64.0 * widest,
                (f64::from(k / 64) + 0.5) / 64.0 * widest,
            ])
        })
        .collect();
    let origin = view([0.0, 0.0]);
    println!("view sizes: {} nodes at the origin", origin.nodes);
    views.sort_by_key(|v| (v.triangles, v.nodes));
    let (least, median, most) = (views[0], views[views.len() / 2], views[views.len() - 1]);
    let most_nodes = views.iter().map(|v| v.nodes).max().unwrap_or(0);
    let m = |v: View| v.triangles as f64 / 1e6;
    println!(
        "view sizes, {:.0} m horizon, full meshes to level {}, anchors over a {widest:.0} m node: {:.2} M triangles ({} nodes) at least, at ({:.0}, {:.0}); median {:.2} M ({}); {:.2} M ({}) at most, at ({:.0}, {:.0}); {most_nodes} nodes at most",
        config.horizon,
        settings.full_mesh_levels,
        m(least),
        least.nodes,
        least.at[0],
        least.at[1],
        m(median),
        median.nodes,
        m(most),
        most.nodes,
        most.at[0],
        most.at[1],
    );
    println!(
        "RESULT {{\"config\": \"view sizes, {:.0} m horizon, full meshes to level {}\", \"triangles_min\": {}, \"triangles_median\": {}, \"triangles_max\": {}, \"nodes_max\": {most_nodes}}}",
        config.horizon,
        settings.full_mesh_levels,
        least.triangles,
        median.triangles,
        most.triangles
    );
}

fn main() {
    let background = std::env::args().any(|arg| arg == "--background");
    if std::env::args().any(|arg| arg == "--planner") {
        // The planner alone, for quick iterations on it.
        print_planner_costs();
        return;
    }
    if std::env::args().any(|arg| arg == "--view-sizes") {
        print_view_sizes();
        return;
    }
    #[cfg(feature = "avian")]
    if std::env::args().any(|arg| arg == "--physics") {
        print_physics_costs(background);
        return;
    }
    if std::env::args().any(|arg| arg == "--edits") {
        print_edit_costs(background);
        return;
    }
    let lod = |name, scatter, settings| {
        measure(
            name,
            BiomeWorldStreaming::default(),
            scatter,
            background,
            settings,
            0.0,
        )
    };
    // The default view, and the same to a 32 km horizon.
    let far = || {
        measure(
            "lod 32 km horizon",
            BiomeWorldStreaming {
                horizon: 32768.0,
                ..default()
            },
            true,
            background,
            BiomeWorldSettings::default(),
            0.0,
        )
    };
    if std::env::args().any(|arg| arg == "--far") {
        let outcomes = [
            lod("lod default", true, BiomeWorldSettings::default()),
            far(),
            // 10^9 units out, in a floating origin's grid.
            #[cfg(feature = "big_space")]
            measure(
                "lod default at 1e9",
                BiomeWorldStreaming::default(),
                true,
                background,
                BiomeWorldSettings::default(),
                1e9,
            ),
        ];
        print_outcomes(&outcomes, background);
        print_results(&outcomes);
        return;
    }
    if std::env::args().any(|arg| arg == "--caves") {
        // The default view over the default world and over the `caves` preset's, whose volume
        // chunks (about 2 in 5 around the origin) are the costliest to build and to show.
        let outcomes = [
            lod("lod default", true, BiomeWorldSettings::default()),
            lod("lod default, caves preset", true, caves_preset()),
        ];
        print_outcomes(&outcomes, background);
        print_results(&outcomes);
        return;
    }
    let chunk = BiomeWorldSettings::default().layout.chunk_size() as f32;
    let outcomes = [
        // The first release kept 12 chunks plus 2 of hysteresis: a twelfth of the horizon
        // ahead, a sixth behind.
        measure(
            "radius-12 full detail",
            BiomeWorldStreaming {
                hysteresis: 1.0 / 6.0,
                ..BiomeWorldStreaming::full_detail(12.0 * chunk)
            },
            true,
            background,
            BiomeWorldSettings::default(),
            0.0,
        ),
        lod("lod default", true, BiomeWorldSettings::default()),
        // The same without rocks, bushes and grass: what they cost the main thread.
        lod("lod, no scatter", false, BiomeWorldSettings::default()),
        far(),
    ];
    print_outcomes(&outcomes, background);
    print_planner_costs();
    print_view_sizes();
    #[cfg(feature = "avian")]
    print_physics_costs(background);
    print_edit_costs(background);
    print_results(&outcomes);
}

/// Whether `--single-threaded` asks for `Update` and `PostUpdate` on one thread.
fn single_threaded() -> bool {
    std::env::args().any(|arg| arg == "--single-threaded")
}

/// The default world with the `caves` preset's generator.
fn caves_preset() -> BiomeWorldSettings {
    BiomeWorldSettings {
        generator: WorldSettings::from_ron(include_str!("../../assets/presets/caves.ron"))
            .expect("the caves preset is valid"),
        ..default()
    }
}

/// The table of `outcomes`, and what each flight cost.
fn print_outcomes(outcomes: &[Outcome], background: bool) {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let executor = if single_threaded() {
        "single-threaded"
    } else {
        "multi-threaded"
    };
    println!(
        "streaming benchmark, {threads} cores, background builders: {background}, \
         Update and PostUpdate {executor}"
    );
    println!(
        "{:<26} {:>9} {:>9} {:>10} {:>7} {:>8} {:>7} {:>16} {:>16}",
        "config",
        "horizon",
        "entities",
        "triangles",
        "trees",
        "mesh",
        "fill",
        "plugin @100 u/s",
        "plugin @300 u/s"
    );
    for o in outcomes {
        let flight = |k: usize| {
            let f = &o.flights[k].1;
            format!("{:.2}/{:.2}/{:.2}", f.median_ms, f.p99_ms, f.max_ms)
        };
        println!(
            "{:<26} {:>7.0} m {:>9} {:>9.2}M {:>7} {:>4.0} MiB {:>5.2} s {:>16} {:>16}",
            o.name,
            o.horizon_m,
            o.terrain_entities,
            o.triangles as f64 / 1e6,
            o.tree_entities,
            o.mesh_mib,
            o.fill_s,
            flight(0),
            flight(1)
        );
    }
    println!("(plugin main-thread time per frame: median/p99/max ms)");
    for o in outcomes {
        println!(
            "{}: entities per level {:?}; {} rocks, bushes and grass tufts",
            o.name, o.per_level, o.scatter_objects
        );
        for (speed, f) in &o.flights {
            println!(
                "  at {speed} u/s: plugin p99.9 {:.2} ms, max {:.2} ms; p99 of the terrain's stream \
                 system {:.2} ms, of its apply system {:.2} ms, of the scatter's {:.2} and {:.2} ms, \
                 of the rest {:.2} ms; the whole frame {:.2} ms median, {:.2} \
                 ms p99; {} nodes built; {} of {} frames with land within {COVERED_WITHIN:.0} m \
                 uncovered ({} in a row at most)",
                f.p999_ms,
                f.max_ms,
                f.stream_p99_ms,
                f.apply_p99_ms,
                f.scatter_stream_p99_ms,
                f.scatter_apply_p99_ms,
                f.rest_p99_ms,
                f.frame_median_ms,
                f.frame_p99_ms,
                f.built,
                f.uncovered_frames,
                FLIGHT_SECONDS * 60,
                f.uncovered_run
            );
        }
    }
}

/// One `RESULT` line per outcome.
fn print_results(outcomes: &[Outcome]) {
    for o in outcomes {
        println!(
            "RESULT {{\"config\": \"{}\", \"horizon_m\": {}, \"triangles\": {}, \
             \"terrain_entities\": {}, \"tree_entities\": {}, \"mesh_mib\": {:.1}, \
             \"fill_s\": {:.3}, \"flight_100_p99_ms\": {:.3}, \"flight_300_p99_ms\": {:.3}, \
             \"flight_300_p999_ms\": {:.3}, \"flight_300_max_ms\": {:.3}, \
             \"flight_1000_uncovered_frames\": {}, \"flight_1000_uncovered_run\": {}}}",
            o.name,
            o.horizon_m,
            o.triangles,
            o.terrain_entities,
            o.tree_entities,
            o.mesh_mib,
            o.fill_s,
            o.flights[0].1.p99_ms,
            o.flights[1].1.p99_ms,
            o.flights[1].1.p999_ms,
            o.flights[1].1.max_ms,
            o.flights[2].1.uncovered_frames,
            o.flights[2].1.uncovered_run
        );
    }
}
