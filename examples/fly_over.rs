//! Fly over an endless biome world.
//!
//! ```text
//! cargo run --example fly_over -- [--seed N] [--preset NAME|FILE.ron] [--horizon METRES] [--at X,Z] [--screenshot PATH] [--panel open|closed] [--splatting] [--altitude METRES]
//! ```
//!
//! The terrain reaches the horizon (8 km unless `--horizon` says otherwise) in levels of detail,
//! and the fog follows the horizon, also when the panel changes it. The flight starts over the
//! land nearest the origin, or nearest `--at X,Z`, `--altitude` metres over the ground (55 unless
//! given; `--horizon 32768 --altitude 1500` shows a 32 km horizon).
//!
//! The camera glides over the terrain on its own. W/A/S/D (Space up, Shift down, Ctrl faster) and
//! the mouse with the right button held take over; Tab gives control back to the autopilot. F1
//! shows or hides the settings panel. X (or `--splatting`) draws the ground with the built-in
//! texture layers ([`TerrainSplatting::procedural`]) instead of flat colours. `--screenshot PATH`
//! waits until every chunk in view is built, saves a PNG of the window and exits.
//!
//! Built with `--features big_space` the world lives in a floating origin's grid, and a flight
//! far out (`--at 1e9,1e9`) draws as one near the origin.

use std::f32::consts::FRAC_PI_2;
use std::process::ExitCode;

use bevy::input::mouse::AccumulatedMouseMotion;
use bevy::math::DVec3;
use bevy::prelude::*;
use bevy_biome_world::prelude::*;

#[path = "support/camera_place.rs"]
mod camera_place;
#[path = "support/scenery.rs"]
mod scenery;
#[path = "support/screenshot.rs"]
mod screenshot;
#[path = "support/world_args.rs"]
mod world_args;
use camera_place::{CameraPlace, spawn_camera, with_floating_origin};
use scenery::{ScenePlugin, land_near, world_window};
use screenshot::{ScreenshotPlugin, ScreenshotRequest};
use world_args::StartNear;

fn main() -> ExitCode {
    let args = match world_args::parse("fly_over", &["--splatting", "--altitude METRES"]) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let splatting = args.own("--splatting").is_some();
    let mut flight = Flight::default();
    match args.own("--altitude").map(str::parse::<f32>) {
        None => {}
        Some(Ok(metres)) if metres.is_finite() && metres >= 0.0 => flight.clearance = metres,
        Some(_) => {
            eprintln!("--altitude takes metres over the ground, 0 or more");
            return ExitCode::from(2);
        }
    }

    let mut app = App::new();
    app.insert_resource(args.settings)
        .insert_resource(args.streaming)
        .insert_resource(args.start);
    with_floating_origin(&mut app, world_window("bevy_biome_world: fly over"));
    app.add_plugins((BiomeWorldPlugin, ScenePlugin))
        .insert_resource(flight)
        .insert_resource(SplattingAtStart(splatting))
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (toggle_control, autopilot, free_flight)
                .chain()
                .after(BiomeWorldSystems::Apply),
        )
        .add_systems(Update, toggle_splatting);
    #[cfg(feature = "panel")]
    app.add_plugins(BiomeWorldPanelPlugin {
        open: args.panel_open,
        // The repository's presets, wherever the binary runs from.
        presets_dir: Some(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/presets"),
        ),
    });
    #[cfg(not(feature = "panel"))]
    if args.panel_open && std::env::args().any(|a| a == "--panel") {
        eprintln!("this build has no panel (feature `panel` is off)");
    }
    if let Some(path) = args.screenshot {
        app.add_plugins(ScreenshotPlugin { path });
    }
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Control {
    Autopilot,
    Free,
}

#[derive(Resource)]
struct Flight {
    control: Control,
    heading: f32,
    yaw: f32,
    pitch: f32,
    altitude: Option<f32>,
    /// Height over the highest ground ahead the autopilot keeps.
    clearance: f32,
    /// Where the camera is, in world units: exact far from the origin, where the camera's own
    /// transform is relative to its cell (with `big_space`).
    position: DVec3,
}

impl Default for Flight {
    fn default() -> Self {
        Self {
            control: Control::Autopilot,
            heading: 0.6,
            yaw: 0.6,
            pitch: -0.32,
            altitude: None,
            clearance: CLEARANCE,
            position: DVec3::ZERO,
        }
    }
}

/// Cruising height above the highest ground ahead unless `--altitude` says, and speed, for the
/// autopilot.
const CLEARANCE: f32 = 55.0;
const CRUISE_SPEED: f32 = 45.0;

/// Whether the ground starts with texture layers (`--splatting`).
#[derive(Resource)]
struct SplattingAtStart(bool);

/// X switches the built-in texture layers on and off.
fn toggle_splatting(
    keys: Res<ButtonInput<KeyCode>>,
    splatting: Option<Res<TerrainSplatting>>,
    mut images: ResMut<Assets<Image>>,
    mut commands: Commands,
) {
    if !keys.just_pressed(KeyCode::KeyX) {
        return;
    }
    match splatting {
        Some(_) => commands.remove_resource::<TerrainSplatting>(),
        None => commands.insert_resource(TerrainSplatting::procedural(&mut images)),
    }
}

fn setup(
    mut commands: Commands,
    biome_world: BiomeWorld,
    start: Res<StartNear>,
    splatting: Res<SplattingAtStart>,
    mut flight: ResMut<Flight>,
    mut images: ResMut<Assets<Image>>,
) {
    // Before the first builds, so they carry the layers' weights.
    if splatting.0 {
        commands.insert_resource(TerrainSplatting::procedural(&mut images));
    }
    // Start over land, above the beach.
    let start = land_near(&biome_world, start.0, 8.0);
    let ground = biome_world.height_at(start).max(0.0);
    let height = ground + flight.clearance + 20.0;
    flight.position = DVec3::new(f64::from(start.x), f64::from(height), f64::from(start.y));
    spawn_camera(
        &mut commands,
        flight.position,
        Transform::from_rotation(Quat::from_euler(
            EulerRot::YXZ,
            flight.yaw,
            flight.pitch,
            0.0,
        )),
        (
            Camera3d::default(),
            BiomeWorldAnchor,
            HorizonView::default(),
        ),
    );
}

fn toggle_control(
    keys: Res<ButtonInput<KeyCode>>,
    mut flight: ResMut<Flight>,
    camera: Single<&Transform, With<Camera3d>>,
) {
    let steering = [KeyCode::KeyW, KeyCode::KeyA, KeyCode::KeyS, KeyCode::KeyD];
    if flight.control == Control::Autopilot && keys.any_just_pressed(steering) {
        let (yaw, pitch, _) = camera.rotation.to_euler(EulerRot::YXZ);
        flight.yaw = yaw;
        flight.pitch = pitch;
        flight.control = Control::Free;
    } else if flight.control == Control::Free && keys.just_pressed(KeyCode::Tab) {
        let (yaw, _, _) = camera.rotation.to_euler(EulerRot::YXZ);
        flight.heading = yaw;
        flight.altitude = Some(flight.position.y as f32);
        flight.control = Control::Autopilot;
    }
}

/// Glides forward, turning slowly, holding a height above the highest ground ahead.
fn autopilot(
    time: Res<Time>,
    biome_world: BiomeWorld,
    screenshot: Option<Res<ScreenshotRequest>>,
    mut flight: ResMut<Flight>,
    mut camera: CameraPlace,
) {
    if flight.control != Control::Autopilot || screenshot.is_some() {
        return;
    }
    let dt = time.delta_secs();
    let t = time.elapsed_secs();
    flight.heading += (t * 0.05).sin() * 0.12 * dt;
    let forward = Vec2::new(-flight.heading.sin(), -flight.heading.cos()).as_dvec2();
    let here = flight.position.xz() + forward * f64::from(CRUISE_SPEED * dt);
    let highest = [0.0, 40.0, 90.0, 160.0, 240.0]
        .iter()
        .map(|&ahead| biome_world.height_at(here + forward * ahead))
        .fold(0.0_f32, f32::max);
    let target = highest + flight.clearance;
    let altitude = flight.altitude.unwrap_or(flight.position.y as f32);
    let altitude = altitude + (target - altitude) * (1.0 - (-dt * 0.8).exp());
    flight.altitude = Some(altitude);
    flight.position = DVec3::new(here.x, f64::from(altitude), here.y);
    camera.set(flight.position);
    camera.transform().rotation =
        Quat::from_euler(EulerRot::YXZ, flight.heading, flight.pitch, 0.0);
}

#[cfg_attr(
    feature = "panel",
    expect(
        clippy::too_many_arguments,
        reason = "a system: one parameter per input and resource it reads"
    )
)]
fn free_flight(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    #[cfg(feature = "panel")] egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    biome_world: BiomeWorld,
    mut flight: ResMut<Flight>,
    mut camera: CameraPlace,
) {
    if flight.control != Control::Free {
        return;
    }
    #[cfg(feature = "panel")]
    let over_panel = egui_input.is_some_and(|input| input.wants_any_pointer_input());
    #[cfg(not(feature = "panel"))]
    let over_panel = false;
    if buttons.pressed(MouseButton::Right) && !over_panel {
        flight.yaw -= motion.delta.x * 0.003;
        flight.pitch =
            (flight.pitch - motion.delta.y * 0.003).clamp(-FRAC_PI_2 + 0.05, FRAC_PI_2 - 0.05);
    }
    let rotation = Quat::from_euler(EulerRot::YXZ, flight.yaw, flight.pitch, 0.0);
    camera.transform().rotation = rotation;
    let mut direction = Vec3::ZERO;
    let forward = rotation * Vec3::NEG_Z;
    let right = rotation * Vec3::X;
    for (key, step) in [
        (KeyCode::KeyW, forward),
        (KeyCode::KeyS, -forward),
        (KeyCode::KeyD, right),
        (KeyCode::KeyA, -right),
        (KeyCode::Space, Vec3::Y),
        (KeyCode::ShiftLeft, -Vec3::Y),
    ] {
        if keys.pressed(key) {
            direction += step;
        }
    }
    let speed = if keys.pressed(KeyCode::ControlLeft) {
        400.0
    } else {
        90.0
    };
    let mut position =
        flight.position + (direction.normalize_or_zero() * speed * time.delta_secs()).as_dvec3();
    // Never below the ground.
    let ground = biome_world.ground_height_at(position.xz()).max(0.0) + 2.0;
    position.y = position.y.max(f64::from(ground));
    flight.position = position;
    camera.set(position);
}
