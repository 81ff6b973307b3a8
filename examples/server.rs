//! A headless game server on the world (feature `avian`): no window and no terrain meshes, only
//! the colliders around several moving players, with physics. Each player walks its own way;
//! where the ground under a player is ready it drops a crate, which rests on the colliders and
//! goes when its area unloads. Once a second it prints what the tick cost.
//!
//! ```text
//! cargo run --example server --features avian --release -- [--players N] [--speed U] [--seconds S] [--seed N]
//! ```
//!
//! `--seconds 0` runs until stopped. The plugin's main-thread time is the colliders' streaming
//! and apply systems (`BiomeColliderStats`); the tick is the whole `Update`, physics excluded.

use std::process::ExitCode;
use std::time::Duration;

use avian3d::prelude::*;
use bevy::app::ScheduleRunnerPlugin;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy_biome_world::prelude::*;
use bevy_biome_world::{BiomeColliderStats, BiomeScatterPlugin, BiomeTerrainPlugin};

/// The command line.
#[derive(Resource, Clone, Copy)]
struct ServerArgs {
    players: u32,
    /// Walking speed, world units a second.
    speed: f32,
    /// How long to run; 0: until stopped.
    seconds: f32,
}

/// A connected player, walking along `heading` from where it joined.
#[derive(Component)]
struct Player {
    heading: Vec2,
    /// Whether it has dropped a crate where it stands now.
    dropped_in: Option<ChunkCoord>,
}

/// A crate a player dropped, in the area it fell in.
#[derive(Component)]
struct Crate(ChunkCoord);

/// Timings over the current second.
#[derive(Resource, Default)]
struct TickLog {
    started: Option<Instant>,
    /// Each tick's `Update`, and the plugin's share of it.
    ticks: Vec<Duration>,
    plugin: Vec<Duration>,
    since: f32,
}

fn main() -> ExitCode {
    let mut args = ServerArgs {
        players: 4,
        speed: 20.0,
        seconds: 20.0,
    };
    let mut settings = BiomeWorldSettings::default();
    let usage = "usage: server [--players N] [--speed U] [--seconds S] [--seed N]";
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let value = words.next();
        let parsed = match (flag.as_str(), value.as_deref()) {
            ("--players", Some(v)) => v.parse().map(|n| args.players = n).is_ok(),
            ("--speed", Some(v)) => v.parse().map(|s| args.speed = s).is_ok(),
            ("--seconds", Some(v)) => v.parse().map(|s| args.seconds = s).is_ok(),
            ("--seed", Some(v)) => v.parse().map(|s| settings.generator.seed = s).is_ok(),
            _ => false,
        };
        if !parsed {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    }
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 60.0,
            ))),
            AssetPlugin::default(),
            TransformPlugin,
            bevy::log::LogPlugin::default(),
            // The world without what only a screen needs: terrain meshes and scattered objects.
            BiomeWorldPlugin
                .build()
                .disable::<BiomeTerrainPlugin>()
                .disable::<BiomeScatterPlugin>(),
            PhysicsPlugins::default(),
            BiomeWorldPhysicsPlugin,
        ))
        .insert_resource(settings)
        .insert_resource(args)
        .init_resource::<TickLog>()
        .add_systems(Startup, join)
        .add_systems(First, start_tick)
        .add_systems(
            Update,
            (walk, drop_crates, clear_unloaded_areas).after(BiomeWorldSystems::Apply),
        )
        .add_systems(Last, (end_tick, report, stop_after).chain())
        .run();
    ExitCode::SUCCESS
}

/// The players join spread over the world, each heading its own way.
fn join(mut commands: Commands, args: Res<ServerArgs>) {
    for k in 0..args.players {
        let angle = k as f32 * 2.399_963; // the golden angle
        let heading = Vec2::from_angle(angle);
        let start = heading * 300.0 * k as f32;
        commands.spawn((
            Player {
                heading,
                dropped_in: None,
            },
            BiomeWorldCollider,
            Transform::from_xyz(start.x, 0.0, start.y),
        ));
    }
}

/// Players walk over the ground (the server moves them; clients would send input).
fn walk(
    time: Res<Time>,
    args: Res<ServerArgs>,
    biome_world: BiomeWorld,
    mut players: Query<(&Player, &mut Transform)>,
) {
    for (player, mut transform) in &mut players {
        let xz = transform.translation.xz() + player.heading * args.speed * time.delta_secs();
        transform.translation = Vec3::new(xz.x, biome_world.ground_height_at(xz) + 1.8, xz.y);
    }
}

/// A crate dropped from above each player once the ground there is ready, one per area.
fn drop_crates(
    mut commands: Commands,
    biome_world: BiomeWorld,
    mut players: Query<(&mut Player, &Transform)>,
) {
    for (mut player, transform) in &mut players {
        let xz = transform.translation.xz();
        let area = biome_world.chunk_at(xz);
        if player.dropped_in == Some(area) || !biome_world.ground_ready_at(xz) {
            continue;
        }
        player.dropped_in = Some(area);
        commands.spawn((
            Crate(area),
            RigidBody::Dynamic,
            Collider::cuboid(1.0, 1.0, 1.0),
            Transform::from_xyz(xz.x, biome_world.ground_height_at(xz) + 6.0, xz.y),
        ));
    }
}

/// Crates go with the ground under them.
fn clear_unloaded_areas(
    mut commands: Commands,
    mut unloaded: MessageReader<AreaUnloaded>,
    crates: Query<(Entity, &Crate)>,
) {
    let gone: Vec<ChunkCoord> = unloaded.read().map(|message| message.area).collect();
    for (entity, dropped) in &crates {
        if gone.contains(&dropped.0) {
            commands.entity(entity).despawn();
        }
    }
}

fn start_tick(mut log: ResMut<TickLog>) {
    log.started = Some(Instant::now());
}

fn end_tick(mut log: ResMut<TickLog>, colliders: Res<BiomeColliderStats>) {
    if let Some(started) = log.started.take() {
        log.ticks.push(started.elapsed());
        log.plugin
            .push(colliders.stream_time + colliders.apply_time);
    }
}

/// Once a second: the tick's cost, the areas and colliders in, and how the crates rest.
fn report(
    time: Res<Time>,
    args: Res<ServerArgs>,
    mut log: ResMut<TickLog>,
    colliders: Res<BiomeColliderStats>,
    areas: Res<BiomeAreas>,
    biome_world: BiomeWorld,
    crates: Query<(&Transform, &LinearVelocity), With<Crate>>,
) {
    log.since += time.delta_secs();
    if log.since < 1.0 {
        return;
    }
    log.since = 0.0;
    let (mut resting, mut worst) = (0, 0.0_f32);
    for (transform, velocity) in &crates {
        if velocity.length() < 0.05 {
            let ground = biome_world.ground_height_at(transform.translation.xz());
            // A resting crate's centre is half its side above the ground, or more on a slope.
            worst = worst.max(ground + 0.5 - transform.translation.y);
            resting += 1;
        }
    }
    let (ticks, plugin) = (percentiles(&mut log.ticks), percentiles(&mut log.plugin));
    info!(
        "t {:>4.0} s | {} players | {} areas, {} collider chunks ({} building) | tick mean {:.2} ms, \
         p99 {:.2} ms | plugin mean {:.3} ms, p99 {:.3} ms | {resting} crates at rest, deepest \
         {:.1} cm below the ground",
        time.elapsed_secs(),
        args.players,
        areas.len(),
        colliders.loaded,
        colliders.in_flight,
        ticks.0,
        ticks.1,
        plugin.0,
        plugin.1,
        worst.max(0.0) * 100.0,
    );
}

fn stop_after(time: Res<Time>, args: Res<ServerArgs>, mut exit: MessageWriter<AppExit>) {
    if args.seconds > 0.0 && time.elapsed_secs() >= args.seconds {
        exit.write(AppExit::Success);
    }
}

/// Mean and 99th percentile of `times` in milliseconds, emptying it.
fn percentiles(times: &mut Vec<Duration>) -> (f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0);
    }
    times.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = times.iter().map(|&d| ms(d)).sum::<f64>() / times.len() as f64;
    let p99 = ms(times[(times.len() * 99 / 100).min(times.len() - 1)]);
    times.clear();
    (mean, p99)
}
