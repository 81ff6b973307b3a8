//! Walk on an endless biome world: a character on avian3d physics (feature `avian`).
//!
//! ```text
//! cargo run --example walk --features avian -- [--seed N] [--preset NAME|FILE.ron] [--horizon METRES] [--at X,Z] [--screenshot PATH] [--panel open|closed] [--terraform] [--cave]
//! ```
//!
//! W/A/S/D walk, Shift runs, Space jumps (and swims up in deep water), the mouse looks around
//! (click to capture it, Escape to let go), V switches between third and first person, F1 shows
//! or hides the settings panel. The player stands on the terrain's colliders, bumps into tree
//! trunks, wades slowly through shallow water and swims at the surface of deep water (where the
//! world has water). After a new seed or terrain settings it waits until the new ground under it
//! has its colliders and stands on it.
//!
//! T (or `--terraform`) switches terraforming on and off: a ring on the ground shows the brush
//! where you look; with the mouse captured, hold the left button to raise the ground, the right
//! one to lower it, F to flatten it to the height under the ring where you began; the wheel
//! sizes the ring and Z takes back the last stroke. Strokes are `BiomeWorldEdits` brushes: the
//! nodes and colliders under them are rebuilt within a few frames, and you can stand on them.
//!
//! `--cave` starts on the floor of the nearest hollow under a roof (a cave, or the ground under an
//! arch or overhang) within a few hundred units of the start, looking the way it stays open
//! longest, in first person: try it with `--preset caves`. It also adds a layer of stalagmites,
//! the game's own, on cave floors (`ScatterGround::CaveFloor`). The third-person camera stays on
//! the player's side of the ground, caves and overhangs included (a ray from the eyes back to it).
//!
//! `--screenshot PATH` waits until every chunk in view is built, saves a PNG and exits (with
//! `--terraform`, after raising a mound and flattening a terrace ahead of the player).

use std::f32::consts::FRAC_PI_2;
use std::process::ExitCode;

use avian3d::prelude::*;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::{CursorGrabMode, CursorOptions};
use bevy_biome_world::biome_core::edits::{BrushOp, EditShape};
use bevy_biome_world::biome_core::scatter::{ScatterGround, ScatterLayer, ScatterSpacing};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{BiomeWorldState, ModelLook, ScatterModels};

#[path = "support/scenery.rs"]
mod scenery;
#[path = "support/screenshot.rs"]
mod screenshot;
#[path = "support/world_args.rs"]
mod world_args;
use scenery::{ScenePlugin, land_near, world_window};
use screenshot::ScreenshotPlugin;
use world_args::StartNear;

fn main() -> ExitCode {
    let args = match world_args::parse("walk", &["--terraform", "--cave"]) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let terraforming = args.own("--terraform").is_some();
    let in_cave = args.own("--cave").is_some();
    let mut settings = args.settings;
    if in_cave {
        with_stalagmites(&mut settings.generator);
    }
    let mut app = App::new();
    app.insert_resource(settings)
        .insert_resource(args.streaming)
        .insert_resource(args.start)
        .insert_resource(StartInCave(in_cave))
        .add_plugins(world_window("bevy_biome_world: walk"))
        .add_plugins((
            BiomeWorldPlugin,
            PhysicsPlugins::default(),
            BiomeWorldPhysicsPlugin,
            ScenePlugin,
        ))
        .insert_resource(Walker {
            // The picture of terraforming looks down at the shaped ground.
            pitch: if terraforming && args.screenshot.is_some() {
                -0.3
            } else {
                Walker::default().pitch
            },
            ..default()
        })
        .insert_resource(Terraform {
            on: terraforming,
            demo: args.screenshot.is_some(),
            ..default()
        })
        .add_systems(Startup, (setup, stalagmite_look.run_if(move || in_cave)))
        // Update runs after the fixed steps, on the player's interpolated transform.
        .add_systems(
            Update,
            (
                read_input,
                grab_cursor,
                follow_player,
                (aim_brush, terraform, draw_ring).chain(),
            )
                .chain(),
        )
        .add_systems(FixedUpdate, walk);
    #[cfg(feature = "panel")]
    app.add_plugins(BiomeWorldPanelPlugin {
        open: args.panel_open,
        presets_dir: Some(
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/presets"),
        ),
    });
    if let Some(path) = args.screenshot {
        app.add_plugins(ScreenshotPlugin { path });
    }
    match app.run() {
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(code) => ExitCode::from(code.get()),
    }
}

/// The stalagmites' layer: the game's own, on cave floors.
const STALAGMITE: &str = "stalagmite";

/// Adds stalagmites to `world`: on cave floors, 5 units apart in every biome.
fn with_stalagmites(world: &mut WorldSettings) {
    world.scatter.layers.push(ScatterLayer {
        ground: ScatterGround::CaveFloor,
        // The tallest, 1.5 times the cone, still clears the 2 units of headroom.
        min_scale: 0.6,
        max_scale: 1.5,
        ..ScatterLayer::new(STALAGMITE).expect("a layer name")
    });
    for biome in &mut world.biome_table.biomes {
        biome.scatter.push(ScatterSpacing::new(STALAGMITE, 5.0));
    }
}

/// A stalagmite's look: a stone cone standing on `y = 0`, its foot a little under it so it
/// meets a sloping floor.
fn stalagmite_look(
    mut scatter: ResMut<ScatterModels>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let height = 1.4;
    let cone = Cone::new(0.3, height)
        .mesh()
        .build()
        .translated_by(Vec3::Y * (height / 2.0 - 0.15));
    scatter.set(
        STALAGMITE,
        ModelLook::Mesh {
            mesh: meshes.add(cone),
            material: materials.add(StandardMaterial {
                base_color: Color::srgb(0.62, 0.56, 0.48),
                perceptual_roughness: 0.9,
                ..default()
            }),
        },
    );
}

#[derive(Component)]
struct Player;

/// `--cave`: start on the floor of a hollow under a roof.
#[derive(Resource)]
struct StartInCave(bool);

/// The character's state: what the keys and mouse asked for, and how it moves.
#[derive(Resource)]
struct Walker {
    yaw: f32,
    pitch: f32,
    first_person: bool,
    /// Horizontal direction asked for, in the camera's frame (x right, y forward), and whether
    /// to run.
    wish: Vec2,
    running: bool,
    /// A jump asked for since the last physics step.
    jump: bool,
    /// Space held (swims up).
    rising: bool,
    velocity: Vec3,
    grounded: bool,
    /// The settings generation whose colliders the player stands on: until those under it are
    /// in (at the start, after a new seed or terrain settings), it waits in the air.
    landed: Option<u64>,
}

impl Default for Walker {
    fn default() -> Self {
        Self {
            yaw: 0.6,
            pitch: -0.25,
            first_person: false,
            wish: Vec2::ZERO,
            running: false,
            jump: false,
            rising: false,
            velocity: Vec3::ZERO,
            grounded: false,
            landed: None,
        }
    }
}

const RADIUS: f32 = 0.35;
const LENGTH: f32 = 1.1;
/// From the capsule's centre down to its feet.
const FOOT: f32 = RADIUS + LENGTH / 2.0;
const EYE: f32 = 0.65;
const WALK_SPEED: f32 = 4.5;
const RUN_SPEED: f32 = 9.0;
const JUMP_SPEED: f32 = 6.0;
const GRAVITY: f32 = 18.0;
/// Water deeper than this at the feet is swum in, at the surface.
const SWIM_DEPTH: f32 = 1.3;

fn setup(
    mut commands: Commands,
    biome_world: BiomeWorld,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    start: Res<StartNear>,
    in_cave: Res<StartInCave>,
    mut walker: ResMut<Walker>,
) {
    let cave = in_cave
        .0
        .then(|| cave_near(&biome_world, start.0))
        .flatten();
    let feet = match cave {
        Some(floor) => {
            (walker.yaw, walker.pitch) =
                open_way(&biome_world, floor + Vec3::Y * (FOOT + 0.1 + EYE));
            // A third-person camera has little room in a cave.
            walker.first_person = true;
            info!("starting in the hollow at {floor}");
            floor
        }
        None => {
            if in_cave.0 {
                warn!("no hollow under a roof within {CAVE_SEARCH} units; starting on the land");
            }
            let start = land_near(&biome_world, start.0, 4.0);
            start.extend(biome_world.ground_height_at(start)).xzy()
        }
    };
    commands.spawn((
        Player,
        BiomeWorldAnchor,
        BiomeWorldCollider,
        RigidBody::Kinematic,
        CustomPositionIntegration,
        Collider::capsule(RADIUS, LENGTH),
        TransformInterpolation,
        Mesh3d(meshes.add(Capsule3d::new(RADIUS, LENGTH))),
        MeshMaterial3d(materials.add(Color::srgb(0.85, 0.35, 0.2))),
        Transform::from_translation(feet + Vec3::Y * (FOOT + 0.5)),
    ));
    commands.spawn((
        Camera3d::default(),
        HorizonView::default(),
        // A lamp over the camera: the sun does not reach into caves.
        children![(
            PointLight {
                color: Color::srgb(1.0, 0.8, 0.55),
                intensity: 400_000.0,
                range: 30.0,
                ..default()
            },
            Transform::from_xyz(0.0, 0.3, 0.0),
        )],
    ));
    commands.spawn((
        TerraformHelp,
        Text::new(""),
        TextFont::from_font_size(15.0),
        BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.5)),
        Node {
            position_type: PositionType::Absolute,
            bottom: Val::Px(10.0),
            left: Val::Px(10.0),
            padding: UiRect::all(Val::Px(6.0)),
            ..default()
        },
    ));
}

fn read_input(
    keys: Res<ButtonInput<KeyCode>>,
    motion: Res<AccumulatedMouseMotion>,
    cursor: Single<&CursorOptions>,
    mut walker: ResMut<Walker>,
) {
    if cursor.grab_mode != CursorGrabMode::None {
        walker.yaw -= motion.delta.x * 0.003;
        walker.pitch =
            (walker.pitch - motion.delta.y * 0.003).clamp(-FRAC_PI_2 + 0.05, FRAC_PI_2 - 0.05);
    }
    let axis = |plus: KeyCode, minus: KeyCode| {
        f32::from(u8::from(keys.pressed(plus))) - f32::from(u8::from(keys.pressed(minus)))
    };
    walker.wish = Vec2::new(
        axis(KeyCode::KeyD, KeyCode::KeyA),
        axis(KeyCode::KeyW, KeyCode::KeyS),
    )
    .normalize_or_zero();
    walker.running = keys.pressed(KeyCode::ShiftLeft) || keys.pressed(KeyCode::ShiftRight);
    walker.rising = keys.pressed(KeyCode::Space);
    if keys.just_pressed(KeyCode::Space) {
        walker.jump = true;
    }
    if keys.just_pressed(KeyCode::KeyV) {
        walker.first_person = !walker.first_person;
    }
}

fn grab_cursor(
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    #[cfg(feature = "panel")] egui_input: Option<Res<bevy_egui::input::EguiWantsInput>>,
    mut cursor: Single<&mut CursorOptions>,
) {
    #[cfg(feature = "panel")]
    let over_panel = egui_input.is_some_and(|input| input.wants_any_pointer_input());
    #[cfg(not(feature = "panel"))]
    let over_panel = false;
    if buttons.just_pressed(MouseButton::Left) && !over_panel {
        cursor.visible = false;
        cursor.grab_mode = CursorGrabMode::Locked;
    }
    if keys.just_pressed(KeyCode::Escape) {
        cursor.visible = true;
        cursor.grab_mode = CursorGrabMode::None;
    }
}

/// One physics step of the character: gravity, walking, jumping and swimming, then avian's
/// move-and-slide against the terrain and trunk colliders.
fn walk(
    time: Res<Time>,
    biome_world: BiomeWorld,
    state: Res<BiomeWorldState>,
    move_and_slide: MoveAndSlide,
    mut walker: ResMut<Walker>,
    player: Single<(Entity, &mut Transform, &Collider), With<Player>>,
) {
    let (entity, mut transform, collider) = player.into_inner();
    let dt = time.delta_secs();
    let here = transform.translation;
    if walker.landed != Some(state.generation()) {
        // Wait in the air until the ground under the player is in, colliders included, then
        // stand on it: a new world may have raised the ground above the old one.
        if biome_world.ground_ready_at(here.xz()) {
            walker.landed = Some(state.generation());
            walker.velocity = Vec3::ZERO;
            transform.translation.y = floor_under(&biome_world, here) + FOOT + 0.1;
        }
        return;
    }
    let floor = floor_under(&biome_world, here);
    let feet = here.y - FOOT;
    // Water only where it is drawn: the sea, rivers and lakes.
    let surface = state
        .settings()
        .water
        .then(|| biome_world.water_surface_at(here.xz()))
        .flatten();
    let swimming = surface.is_some_and(|s| floor < s - SWIM_DEPTH && feet < s - SWIM_DEPTH + 0.1);
    let wading = !swimming && surface.is_some_and(|s| feet < s);
    let speed = match (walker.running, swimming || wading) {
        (_, true) => WALK_SPEED * 0.5,
        (true, false) => RUN_SPEED,
        (false, false) => WALK_SPEED,
    };
    let facing = Quat::from_rotation_y(walker.yaw);
    let wish = facing * Vec3::new(walker.wish.x, 0.0, -walker.wish.y) * speed;
    // Quick to start and stop on the ground, slower in the air and in water.
    let grip = if walker.grounded && !wading {
        12.0
    } else {
        3.0
    };
    let blend = 1.0 - (-grip * dt).exp();
    let horizontal = walker.velocity.xz().lerp(wish.xz(), blend);
    let mut vertical = walker.velocity.y;
    if swimming {
        // Float with the head out of the water; Space swims up a little.
        let target = surface.unwrap_or(0.0) - SWIM_DEPTH + if walker.rising { 0.4 } else { 0.0 };
        vertical = (target - feet) * 4.0;
    } else if walker.grounded && walker.jump {
        vertical = JUMP_SPEED;
    } else if walker.grounded {
        // Pressed to the ground so it follows slopes down.
        vertical = -2.0;
    } else {
        vertical -= GRAVITY * dt;
    }
    walker.jump = false;
    walker.velocity = Vec3::new(horizontal.x, vertical, horizontal.y);
    let mut grounded = false;
    let moved = move_and_slide.move_and_slide(
        collider,
        here,
        transform.rotation,
        walker.velocity,
        time.delta(),
        &MoveAndSlideConfig::default(),
        &SpatialQueryFilter::from_excluded_entities([entity]),
        |hit| {
            // Ground is what the character can stand on; trunks and steep rock are walls.
            if hit.normal.y > 0.7 {
                grounded = true;
            }
            MoveAndSlideHitResponse::Accept
        },
    );
    transform.translation = moved.position;
    walker.velocity = moved.projected_velocity;
    walker.grounded = grounded || (swimming && walker.velocity.y.abs() < 1.0);
}

/// The floor under `point`: a cave's in a cave, the top of the ground where the point lies in
/// the rock (a new world may have raised the ground over it).
fn floor_under(biome_world: &BiomeWorld, point: Vec3) -> f32 {
    biome_world.ground_below(point).map_or_else(
        || biome_world.ground_height_at(point.xz()),
        |floor| floor.height,
    )
}

/// How far from the start `--cave` looks for a hollow, world units.
const CAVE_SEARCH: f32 = 400.0;

/// The floor of the hollow under a roof nearest `centre` with room to stand (3 units from floor
/// to roof, and level enough not to slide off), along a square spiral of 4-unit steps:
/// `solid_at` down each line from its top finds rock with air under it, and `ground_below` the
/// floor the player will stand on.
fn cave_near(biome_world: &BiomeWorld, centre: Vec2) -> Option<Vec3> {
    let generator = biome_world.generator();
    let solid =
        |x: f32, y: f32, z: f32| generator.solid_at(f64::from(x), f64::from(y), f64::from(z)) > 0.0;
    let rings = (CAVE_SEARCH / 4.0) as i32;
    let spiral = (0..=rings).flat_map(|r| {
        (-r..=r)
            .flat_map(move |i| (-r..=r).map(move |j| IVec2::new(i, j)))
            .filter(move |step| step.x.abs().max(step.y.abs()) == r)
    });
    spiral
        .map(|step| centre + step.as_vec2() * 4.0)
        .find_map(|p| {
            let top = biome_world.ground_height_at(p);
            // Down from under the top: the first air under rock is a roof's underside.
            let depth = |k: i32| top - 0.5 * k as f32;
            let roof =
                (2..80).find(|&k| !solid(p.x, depth(k), p.y) && solid(p.x, depth(k - 1), p.y))?;
            let floor = biome_world.ground_below(p.extend(depth(roof)).xzy())?;
            (depth(roof) - floor.height >= 3.0 && floor.normal.y > 0.97)
                .then(|| p.extend(floor.height).xzy())
        })
}

/// The heading and pitch from `eye` along which the ground stays open longest (16 headings,
/// level or raised a little, up to 300 units), level where several see out: along a cave, or out
/// of its mouth into the daylight.
fn open_way(biome_world: &BiomeWorld, eye: Vec3) -> (f32, f32) {
    const REACH: f32 = 300.0;
    let views = [0.0, 0.25, 0.5]
        .into_iter()
        .flat_map(|pitch| (0..16).map(move |k| (k as f32 * std::f32::consts::TAU / 16.0, pitch)));
    views
        .map(|(yaw, pitch)| {
            let ahead = Quat::from_euler(EulerRot::YXZ, yaw, pitch, 0.0) * Vec3::NEG_Z;
            let ray = Ray3d::new(eye, Dir3::new(ahead).unwrap_or(Dir3::NEG_Z));
            let free = biome_world
                .cast_ray(ray, REACH)
                .map_or(REACH, |hit| hit.distance);
            ((yaw, pitch), free)
        })
        // The first of the longest: the levellest.
        .fold(((0.0, 0.0), f32::NEG_INFINITY), |best, view| {
            if view.1 > best.1 { view } else { best }
        })
        .0
}

/// The camera behind the player (or at its eyes), never inside the ground: a ray from the eyes
/// back to it stops where the ground (a cave's wall, an overhang) comes between.
fn follow_player(
    walker: Res<Walker>,
    biome_world: BiomeWorld,
    player: Single<(&Transform, &mut Visibility), With<Player>>,
    mut camera: Single<&mut Transform, (With<Camera3d>, Without<Player>)>,
) {
    let (player, mut visibility) = player.into_inner();
    let rotation = Quat::from_euler(EulerRot::YXZ, walker.yaw, walker.pitch, 0.0);
    let eye = player.translation + Vec3::Y * EYE;
    let position = if walker.first_person {
        eye
    } else {
        let back = rotation * Vec3::new(0.0, 0.6, 6.0);
        let ray = Ray3d::new(eye, Dir3::new(back).unwrap_or(Dir3::Y));
        let boom = biome_world
            .cast_ray(ray, back.length())
            .map_or(back.length(), |hit| (hit.distance - 0.4).max(0.2));
        eye + *ray.direction * boom
    };
    *visibility = if walker.first_person {
        Visibility::Hidden
    } else {
        Visibility::Inherited
    };
    camera.translation = position;
    camera.rotation = rotation;
}

/// Terraforming: whether it is on, the brush, where it lands and the strokes made.
#[derive(Resource)]
struct Terraform {
    on: bool,
    /// With `--screenshot`: shape the ground ahead once the player stands, for the picture.
    demo: bool,
    /// Where the demo shaped the ground: the ring stays there for the picture.
    pinned: Option<Vec2>,
    /// Whether the mouse was captured in the frame before.
    captured: bool,
    /// The edits' count after this tool's own last change.
    known: usize,
    radius: f32,
    /// The ground under the centre of the view, within reach.
    aim: Option<Vec3>,
    /// The stroke under way.
    stroke: Option<Stroke>,
    /// The edits of each stroke, the latest last (Z takes it back).
    strokes: Vec<Vec<u64>>,
}

impl Default for Terraform {
    fn default() -> Self {
        Self {
            on: false,
            demo: false,
            pinned: None,
            captured: false,
            known: 0,
            radius: 4.0,
            aim: None,
            stroke: None,
            strokes: Vec::new(),
        }
    }
}

/// A stroke: what it does and the time since it last laid an edit.
struct Stroke {
    tool: Tool,
    since: f32,
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Raise,
    Lower,
    /// To the height under the ring where the stroke began.
    Flatten(f32),
}

/// The help line shown while terraforming.
#[derive(Component)]
struct TerraformHelp;

/// How far the view reaches for the ground to shape.
const REACH: f32 = 60.0;
/// A stroke lays an edit this often, seconds: about ten a second.
const STROKE_STEP: f32 = 0.1;
/// Metres a raise or lower step moves the ground at the ring's centre.
const STROKE_LIFT: f64 = 0.5;

/// The ground point at the centre of the view: where the camera's ray first meets the ground.
fn aim_brush(
    mut terraform: ResMut<Terraform>,
    biome_world: BiomeWorld,
    camera: Single<&Transform, With<Camera3d>>,
) {
    terraform.aim = None;
    if !terraform.on {
        return;
    }
    if let Some(at) = terraform.pinned {
        terraform.aim = Some(at.extend(biome_world.ground_height_at(at)).xzy());
        return;
    }
    let ray = Ray3d::new(camera.translation, camera.forward());
    terraform.aim = biome_world.cast_ray(ray, REACH).map(|hit| hit.point);
}

/// T, the mouse buttons, F, the wheel and Z: strokes become brushes in `BiomeWorldEdits`.
#[expect(clippy::too_many_arguments, reason = "a system's inputs")]
fn terraform(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    scroll: Res<AccumulatedMouseScroll>,
    cursor: Single<&CursorOptions>,
    walker: Res<Walker>,
    player: Single<&Transform, With<Player>>,
    biome_world: BiomeWorld,
    mut terraform: ResMut<Terraform>,
    mut edits: ResMut<BiomeWorldEdits>,
) {
    let terraform: &mut Terraform = &mut terraform;
    // Strokes remember edit numbers, which a change made elsewhere (the panel clearing or
    // loading the edits) may give to other edits: then there is nothing left to undo.
    if edits.log().len() != terraform.known {
        terraform.strokes.clear();
        terraform.stroke = None;
    }
    // The click that captures the mouse does not also shape the ground.
    let captured = cursor.grab_mode != CursorGrabMode::None;
    let aiming = captured && terraform.captured;
    terraform.captured = captured;
    if keys.just_pressed(KeyCode::KeyT) {
        terraform.on = !terraform.on;
    }
    if !terraform.on {
        terraform.stroke = None;
        return;
    }
    if terraform.demo && walker.landed.is_some() {
        terraform.demo = false;
        let forward = Vec2::new(-walker.yaw.sin(), -walker.yaw.cos());
        let ahead = player.translation.xz() + forward * 14.0;
        demo_strokes(
            terraform,
            &mut edits,
            ahead,
            -forward.perp(),
            biome_world.ground_height_at(ahead),
        );
    }
    if aiming {
        let lines = match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 20.0,
        };
        terraform.radius = (terraform.radius * (lines * 0.1).exp()).clamp(1.0, 20.0);
    }
    if keys.just_pressed(KeyCode::KeyZ)
        && let Some(stroke) = terraform.strokes.pop()
    {
        for sequence in stroke {
            edits.remove(sequence);
        }
        terraform.stroke = None;
    }
    terraform.known = edits.log().len();
    let tool = if !aiming {
        None
    } else if buttons.pressed(MouseButton::Left) {
        Some(Tool::Raise)
    } else if buttons.pressed(MouseButton::Right) {
        Some(Tool::Lower)
    } else if keys.pressed(KeyCode::KeyF) {
        let held = terraform.stroke.as_ref().map(|stroke| stroke.tool);
        match (held, terraform.aim) {
            (Some(Tool::Flatten(height)), _) => Some(Tool::Flatten(height)),
            (_, Some(aim)) => Some(Tool::Flatten(aim.y)),
            _ => None,
        }
    } else {
        None
    };
    let Some(tool) = tool else {
        terraform.stroke = None;
        return;
    };
    if terraform
        .stroke
        .as_ref()
        .is_none_or(|stroke| stroke.tool != tool)
    {
        terraform.stroke = Some(Stroke {
            tool,
            since: STROKE_STEP,
        });
        terraform.strokes.push(Vec::new());
    }
    let stroke = terraform.stroke.as_mut().expect("set above");
    stroke.since += time.delta_secs();
    let Some(aim) = terraform.aim else { return };
    if stroke.since < STROKE_STEP {
        return;
    }
    stroke.since = 0.0;
    let op = match tool {
        Tool::Raise => BrushOp::Raise(STROKE_LIFT),
        Tool::Lower => BrushOp::Raise(-STROKE_LIFT),
        Tool::Flatten(height) => BrushOp::Flatten(f64::from(height)),
    };
    lay(terraform, &mut edits, aim.xz(), op);
}

/// Lays one brush at `at` into the current stroke.
fn lay(terraform: &mut Terraform, edits: &mut BiomeWorldEdits, at: Vec2, op: BrushOp) {
    let brush = EditShape::Brush {
        center: [f64::from(at.x), f64::from(at.y)],
        radius: f64::from(terraform.radius),
        falloff: 0.7,
        op,
    };
    match edits.push(brush) {
        Ok(sequence) => {
            terraform
                .strokes
                .last_mut()
                .expect("a stroke is open")
                .push(sequence);
            terraform.known = edits.log().len();
        }
        Err(error) => warn!("no brush there: {error}"),
    }
}

/// For the screenshot: a mound at `at` (ground `height`), the ring pinned on it, and a terrace
/// to its `left`.
fn demo_strokes(
    terraform: &mut Terraform,
    edits: &mut BiomeWorldEdits,
    at: Vec2,
    left: Vec2,
    height: f32,
) {
    terraform.strokes.push(Vec::new());
    terraform.pinned = Some(at);
    terraform.radius = 5.0;
    for _ in 0..10 {
        lay(terraform, edits, at, BrushOp::Raise(STROKE_LIFT));
    }
    terraform.radius = 6.0;
    let terrace = at + left * 12.0;
    lay(
        terraform,
        edits,
        terrace,
        BrushOp::Flatten(f64::from(height) + 2.0),
    );
    terraform.radius = 5.0;
}

/// The brush's ring on the ground, coloured by what a stroke would do, and the help line.
fn draw_ring(
    terraform: Res<Terraform>,
    biome_world: BiomeWorld,
    mut gizmos: Gizmos,
    mut help: Single<&mut Text, With<TerraformHelp>>,
) {
    let text = if terraform.on {
        format!(
            "terraform (T): left raise, right lower, F flatten, wheel size ({:.0} m), Z undo \
             ({} strokes)",
            terraform.radius,
            terraform.strokes.len()
        )
    } else {
        String::new()
    };
    if help.0 != text {
        help.0 = text;
    }
    let Some(aim) = terraform.aim else { return };
    let colour = match terraform.stroke.as_ref().map(|stroke| stroke.tool) {
        None => Color::WHITE,
        Some(Tool::Raise) => Color::srgb(0.3, 1.0, 0.3),
        Some(Tool::Lower) => Color::srgb(1.0, 0.35, 0.25),
        Some(Tool::Flatten(_)) => Color::srgb(0.3, 0.6, 1.0),
    };
    // On the ground all round, so it reads on slopes too.
    let ring = (0..=48).map(|k| {
        let at =
            aim.xz() + Vec2::from_angle(k as f32 / 48.0 * std::f32::consts::TAU) * terraform.radius;
        at.extend(biome_world.ground_height_at(at) + 0.15).xzy()
    });
    gizmos.linestrip(ring, colour);
    gizmos.line(aim, aim + Vec3::Y * 1.5, colour);
}
