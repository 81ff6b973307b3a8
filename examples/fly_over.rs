//! Fly over an endless biome world.
//!
//! ```text
//! cargo run --example fly_over -- [--seed N] [--preset NAME|FILE.ron] [--horizon METRES] [--screenshot PATH] [--panel open|closed]
//! ```
//!
//! The terrain reaches the horizon (8 km unless `--horizon` says otherwise) in levels of detail,
//! and the fog follows the horizon, also when the panel changes it.
//!
//! The camera glides over the terrain on its own. W/A/S/D (Space up, Shift down, Ctrl faster) and
//! the mouse with the right button held take over; Tab gives control back to the autopilot. F1
//! shows or hides the settings panel. `--screenshot PATH` waits until every chunk in view is
//! built, saves a PNG of the window and exits.

use std::f32::consts::FRAC_PI_2;
use std::path::PathBuf;
use std::process::ExitCode;

use bevy::input::mouse::AccumulatedMouseMotion;
use bevy::prelude::*;
use bevy::window::WindowResolution;
use bevy_biome_world::background_async_compute;
use bevy_biome_world::prelude::*;

#[path = "support/screenshot.rs"]
mod screenshot;
use screenshot::{ScreenshotPlugin, ScreenshotRequest};

struct Args {
    seed: Option<i64>,
    preset: Option<String>,
    horizon: Option<f32>,
    screenshot: Option<PathBuf>,
    panel_open: bool,
}

const USAGE: &str = "usage: fly_over [--seed N] [--preset NAME|FILE.ron] [--horizon METRES] \
                     [--screenshot PATH] [--panel open|closed]";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seed: None,
        preset: None,
        horizon: None,
        screenshot: None,
        panel_open: true,
    };
    let mut words = std::env::args().skip(1);
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--seed" => args.seed = Some(value()?.parse().map_err(|e| format!("--seed: {e}"))?),
            "--preset" => args.preset = Some(value()?),
            "--horizon" => {
                args.horizon = Some(value()?.parse().map_err(|e| format!("--horizon: {e}"))?);
            }
            "--screenshot" => args.screenshot = Some(PathBuf::from(value()?)),
            "--panel" => {
                args.panel_open = match value()?.as_str() {
                    "open" => true,
                    "closed" => false,
                    other => return Err(format!("--panel takes open or closed, not {other}")),
                }
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    Ok(args)
}

/// A preset by name from `assets/presets/`, or a path to a RON file.
fn load_preset(name: &str) -> Result<WorldSettings, String> {
    let path = if name.ends_with(".ron") {
        PathBuf::from(name)
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("assets/presets")
            .join(format!("{name}.ron"))
    };
    WorldSettings::from_ron_file(&path).map_err(|e| format!("preset {}: {e}", path.display()))
}

const SKY: Color = Color::srgb(0.62, 0.76, 0.90);

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let mut settings = BiomeWorldSettings::default();
    let mut streaming = BiomeWorldStreaming::default();
    if let Some(horizon) = args.horizon {
        streaming.horizon = horizon;
        if let Err(error) = streaming.validate_with(&settings) {
            eprintln!("--horizon: {error}");
            return ExitCode::from(2);
        }
    }
    if let Some(name) = &args.preset {
        match load_preset(name) {
            Ok(generator) => settings.generator = generator,
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(seed) = args.seed {
        settings.generator.seed = seed;
    }

    let mut app = App::new();
    app.insert_resource(ClearColor(SKY))
        .insert_resource(GlobalAmbientLight {
            color: Color::srgb(0.85, 0.9, 1.0),
            brightness: 900.0,
            ..default()
        })
        .insert_resource(settings)
        .insert_resource(streaming)
        .add_plugins(
            DefaultPlugins
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "bevy_biome_world: fly over".to_owned(),
                        resolution: WindowResolution::new(1280, 720),
                        ..default()
                    }),
                    ..default()
                })
                .set(TaskPoolPlugin {
                    task_pool_options: TaskPoolOptions {
                        // Terrain is this app's main work: half the cores build chunks, at
                        // background priority so a build never takes the frame's core.
                        async_compute: background_async_compute(0.5, 8),
                        ..default()
                    },
                }),
        )
        .add_plugins(BiomeWorldPlugin)
        .insert_resource(Flight::default())
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (toggle_control, autopilot, free_flight, match_fog_to_horizon)
                .chain()
                .after(BiomeWorldSystems::Apply),
        );
    #[cfg(feature = "panel")]
    app.add_plugins(BiomeWorldPanelPlugin {
        open: args.panel_open,
        // The repository's presets, wherever the binary runs from.
        presets_dir: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/presets")),
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
}

impl Default for Flight {
    fn default() -> Self {
        Self {
            control: Control::Autopilot,
            heading: 0.6,
            yaw: 0.6,
            pitch: -0.32,
            altitude: None,
        }
    }
}

/// Cruising height above the highest ground ahead, and speed, for the autopilot.
const CLEARANCE: f32 = 55.0;
const CRUISE_SPEED: f32 = 45.0;

fn setup(mut commands: Commands, biome_world: BiomeWorld, streaming: Res<BiomeWorldStreaming>) {
    // Start over land: the first point of a spiral around the origin that is above the beach.
    let mut start = Vec2::ZERO;
    for k in 0..400 {
        let angle = k as f32 * 0.7;
        let p = Vec2::new(angle.cos(), angle.sin()) * (k as f32 * 25.0);
        if biome_world.height_at(p) > 8.0 {
            start = p;
            break;
        }
    }
    let ground = biome_world.height_at(start).max(0.0);
    let flight = Flight::default();
    commands.spawn((
        Camera3d::default(),
        BiomeWorldAnchor,
        Projection::Perspective(PerspectiveProjection {
            far: streaming.horizon * 1.2,
            ..default()
        }),
        Transform::from_xyz(start.x, ground + CLEARANCE + 20.0, start.y).with_rotation(
            Quat::from_euler(EulerRot::YXZ, flight.yaw, flight.pitch, 0.0),
        ),
        horizon_fog(streaming.horizon),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            color: Color::srgb(1.0, 0.96, 0.88),
            ..default()
        },
        Transform::from_xyz(0.0, 1.0, 0.0).looking_at(Vec3::new(-0.6, -1.0, -0.35), Vec3::Y),
    ));
}

/// Haze that thickens with distance and hides the land just before the horizon, so the world
/// has no visible edge.
fn horizon_fog(horizon: f32) -> DistanceFog {
    DistanceFog {
        color: SKY,
        falloff: FogFalloff::Linear {
            start: horizon * 0.15,
            end: horizon * 0.97,
        },
        ..default()
    }
}

/// Keeps the fog and the far plane at the horizon when the panel moves it.
fn match_fog_to_horizon(
    streaming: Res<BiomeWorldStreaming>,
    camera: Single<(&mut DistanceFog, &mut Projection), With<Camera3d>>,
) {
    if !streaming.is_changed() {
        return;
    }
    let (mut fog, mut projection) = camera.into_inner();
    *fog = horizon_fog(streaming.horizon);
    if let Projection::Perspective(perspective) = &mut *projection {
        perspective.far = streaming.horizon * 1.2;
    }
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
        flight.altitude = Some(camera.translation.y);
        flight.control = Control::Autopilot;
    }
}

/// Glides forward, turning slowly, holding a height above the highest ground ahead.
fn autopilot(
    time: Res<Time>,
    biome_world: BiomeWorld,
    screenshot: Option<Res<ScreenshotRequest>>,
    mut flight: ResMut<Flight>,
    mut camera: Single<&mut Transform, With<Camera3d>>,
) {
    if flight.control != Control::Autopilot || screenshot.is_some() {
        return;
    }
    let dt = time.delta_secs();
    let t = time.elapsed_secs();
    flight.heading += (t * 0.05).sin() * 0.12 * dt;
    let forward = Vec2::new(-flight.heading.sin(), -flight.heading.cos());
    let here = camera.translation.xz() + forward * CRUISE_SPEED * dt;
    let highest = [0.0, 40.0, 90.0, 160.0, 240.0]
        .iter()
        .map(|&ahead| biome_world.height_at(here + forward * ahead))
        .fold(0.0_f32, f32::max);
    let target = highest + CLEARANCE;
    let altitude = flight.altitude.unwrap_or(camera.translation.y);
    let altitude = altitude + (target - altitude) * (1.0 - (-dt * 0.8).exp());
    flight.altitude = Some(altitude);
    camera.translation = Vec3::new(here.x, altitude, here.y);
    camera.rotation = Quat::from_euler(EulerRot::YXZ, flight.heading, flight.pitch, 0.0);
}

#[expect(
    clippy::too_many_arguments,
    reason = "a system: one parameter per input and resource it reads"
)]
fn free_flight(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    #[cfg(feature = "panel")] egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    biome_world: BiomeWorld,
    mut flight: ResMut<Flight>,
    mut camera: Single<&mut Transform, With<Camera3d>>,
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
    camera.rotation = Quat::from_euler(EulerRot::YXZ, flight.yaw, flight.pitch, 0.0);
    let mut direction = Vec3::ZERO;
    let forward = camera.forward().as_vec3();
    let right = camera.right().as_vec3();
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
    camera.translation += direction.normalize_or_zero() * speed * time.delta_secs();
    // Never below the ground.
    let ground = biome_world
        .ground_height_at(camera.translation.xz())
        .max(0.0)
        + 2.0;
    camera.translation.y = camera.translation.y.max(ground);
}
