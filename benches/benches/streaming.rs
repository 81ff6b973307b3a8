//! Headless streaming benchmark: the plugin under `MinimalPlugins` (no renderer), the default
//! world at view radius 12.
//!
//! `cargo bench -p biome_benches --bench streaming` (Bevy's default task pools), or with
//! `-- --background` to run the chunk builders at background priority
//! (`bevy_biome_world::background_async_compute`).
//!
//! 1. Fill: from an empty world, frames run back to back until every chunk in view is built and
//!    applied. Reports the wall time, chunks built per second and memory per loaded chunk.
//! 2. Flight: an anchor flies at 100 world units per second, frames paced at 60 Hz of real time.
//!    Reports the main-thread time the plugin takes each frame (median, p99, max): the `Update`
//!    schedule, which holds the plugin's systems and applies their commands (spawns and
//!    despawns), timed from a system that runs first in it to one that runs first in
//!    `PostUpdate`. The whole `App::update`, which adds Bevy's own per-frame work, is shown
//!    beside it, and so is an empty app's for reference.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_biome_world::background_async_compute;
use bevy_biome_world::prelude::*;

const FRAME: Duration = Duration::from_nanos(16_666_667);
const SPEED: f32 = 100.0;
const FLIGHT_SECONDS: u32 = 30;

/// Resident memory of this process, bytes (Linux), if it can be read.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
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

fn summary(name: &str, times: &mut [f64]) {
    times.sort_by(f64::total_cmp);
    println!(
        "  {name}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        percentile(times, 0.5),
        percentile(times, 0.99),
        percentile(times, 1.0)
    );
}

/// An app with only the plugins the benchmark's app has besides the world, for the baseline.
fn empty_frame_ms() -> Vec<f64> {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin));
    app.finish();
    app.cleanup();
    (0..600)
        .map(|_| {
            let deadline = Instant::now() + FRAME;
            let t = Instant::now();
            app.update();
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
                std::thread::sleep(rest);
            }
            ms
        })
        .collect()
}

fn main() {
    let mut app = App::new();
    // `-- --background` runs the chunk builders at background priority (see
    // `background_async_compute`); by default the pool is Bevy's own.
    let background = std::env::args().any(|arg| arg == "--background");
    let mut task_pools = TaskPoolOptions::default();
    if background {
        task_pools.async_compute = background_async_compute(0.25, 4);
    }
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: task_pools,
        }),
        AssetPlugin::default(),
        TransformPlugin,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(FRAME))
    .insert_resource(BiomeWorldStreaming {
        view_radius: 12,
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
    app.finish();
    app.cleanup();
    let anchor = app
        .world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(0.0, 80.0, 0.0)))
        .id();
    let threads = bevy::tasks::AsyncComputeTaskPool::get().thread_num();
    let memory_before = resident_bytes();

    // Fill from empty.
    let started = Instant::now();
    let mut frames = 0u32;
    let mut idle = 0;
    let mut fill_frame_ms = Vec::new();
    let mut fill_plugin_ms = Vec::new();
    while idle < 2 {
        let t = Instant::now();
        app.update();
        fill_frame_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        fill_plugin_ms.push(app.world().resource::<UpdateTime>().ms);
        frames += 1;
        let stats = app.world().resource::<BiomeWorldStats>();
        idle = if stats.is_idle() && stats.loaded > 0 {
            idle + 1
        } else {
            0
        };
        std::thread::yield_now();
    }
    let fill = started.elapsed();
    let stats = app.world().resource::<BiomeWorldStats>().clone();
    let memory_after = resident_bytes();

    println!(
        "bevy_biome_world streaming benchmark (headless, release, view radius 12, {threads} async compute thread(s){})",
        if background {
            " at background priority"
        } else {
            ""
        }
    );
    println!();
    println!(
        "fill from empty: {} chunks in {:.2} s ({frames} frames)",
        stats.loaded,
        fill.as_secs_f64()
    );
    println!(
        "  chunks built per second: {:.0}",
        stats.applied_total as f64 / fill.as_secs_f64()
    );
    println!(
        "  chunk build time: mean {:.2} ms, p99 {:.2} ms (on the compute pool)",
        stats.mean_build_ms(),
        stats.p99_build_ms()
    );
    println!("  main thread per frame while filling (frames back to back):");
    summary("plugin (Update schedule)", &mut fill_plugin_ms);
    summary("whole App::update", &mut fill_frame_ms);
    println!(
        "  per loaded chunk: terrain mesh {:.1} KiB, {:.1} trees",
        stats.mesh_bytes_per_chunk as f64 / 1024.0,
        stats.trees_per_chunk
    );
    if let (Some(before), Some(after)) = (memory_before, memory_after) {
        println!(
            "  resident memory per loaded chunk: {:.1} KiB (process grew {:.1} MiB)",
            after.saturating_sub(before) as f64 / 1024.0 / stats.loaded as f64,
            after.saturating_sub(before) as f64 / 1024.0 / 1024.0
        );
    }

    // Fly, paced at 60 Hz.
    let mut frame_ms = Vec::new();
    let mut plugin_ms = Vec::new();
    let applied_before = stats.applied_total;
    let flight_started = Instant::now();
    let mut most_loaded = 0;
    for frame in 0..FLIGHT_SECONDS * 60 {
        let deadline = Instant::now() + FRAME;
        let x = SPEED * (frame + 1) as f32 / 60.0;
        app.world_mut()
            .get_mut::<Transform>(anchor)
            .expect("the anchor exists")
            .translation
            .x = x;
        let t = Instant::now();
        app.update();
        frame_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        plugin_ms.push(app.world().resource::<UpdateTime>().ms);
        most_loaded = most_loaded.max(app.world().resource::<BiomeWorldStats>().loaded);
        if let Some(rest) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(rest);
        }
    }
    let flight = flight_started.elapsed();
    let stats = app.world().resource::<BiomeWorldStats>();
    println!();
    println!(
        "flight at {SPEED} units/s for {FLIGHT_SECONDS} s ({} frames at 60 Hz): {} chunks built, at most {most_loaded} loaded",
        frame_ms.len(),
        stats.applied_total - applied_before
    );
    println!("  main thread per frame:");
    summary("plugin (Update schedule)", &mut plugin_ms);
    summary("whole App::update", &mut frame_ms);
    summary(
        "empty app's App::update, for reference",
        &mut empty_frame_ms(),
    );
    println!("  (flight wall time {:.1} s)", flight.as_secs_f64());
}
