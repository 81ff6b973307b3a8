//! Physics with [avian3d](https://docs.rs/avian3d) (feature `avian`): static colliders for the
//! ground and the tree trunks of every full-detail chunk near an entity marked
//! [`BiomeWorldCollider`], whatever level of detail is drawn there.
//!
//! Each chunk's ground is a heightfield of its vertex grid ([`biome_core::HeightGrid`]), the
//! same heights and the same triangles as the level-0 mesh and [`crate::BiomeWorld::ground_height_at`],
//! so a body rests where the ground is drawn and queried, seams and corners included. The
//! chunks come from the same [`ChunkPlanner`] as the terrain, with full detail out to
//! [`BiomeWorldColliders::radius`]: colliders near a collider entity are built first (their
//! systems run before the terrain's and take the pool first), off the main thread, and inserted
//! within a main-thread budget; those of older settings stay until their replacements are in,
//! so nothing falls through while the world regenerates, and then go. A chunk that is drawn at
//! full detail already lends its heights ([`ChunkGround`]); elsewhere the build samples the
//! heights alone.
//!
//! ```no_run
//! use avian3d::prelude::*;
//! use bevy::prelude::*;
//! use bevy_biome_world::physics::{BiomeWorldCollider, BiomeWorldPhysicsPlugin};
//! use bevy_biome_world::prelude::*;
//!
//! App::new()
//!     .add_plugins((
//!         DefaultPlugins,
//!         BiomeWorldPlugin,
//!         PhysicsPlugins::default(),
//!         BiomeWorldPhysicsPlugin,
//!     ))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         // Terrain streams around the anchor; colliders are kept around the ball.
//!         commands.spawn((
//!             BiomeWorldAnchor,
//!             BiomeWorldCollider,
//!             RigidBody::Dynamic,
//!             Collider::sphere(0.5),
//!             Transform::from_xyz(0.0, 80.0, 0.0),
//!         ));
//!     })
//!     .run();
//! ```
//!
//! Other physics engines can build their own shapes from [`ChunkGround`], which every
//! full-detail terrain entity carries with or without this feature.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use avian3d::parry::shape::SharedShape;
use avian3d::parry::utils::Array2;
use avian3d::prelude::*;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use biome_core::world::SettingsError;
use biome_core::{ChunkCoord, ChunkLayout, HeightGrid, NodeCoord, TreeInstance, WorldGenerator};

use crate::chunk::ChunkGround;
use crate::scatter::{TrunkSize, trunk_size};
use crate::streaming::{BuildKey, ChunkPlanner, LodConfig};
use crate::{BiomeChunk, BiomeWorldState, BiomeWorldSystems};

/// Colliders for the terrain and trees around every [`BiomeWorldCollider`] entity, tuned by
/// [`BiomeWorldColliders`]. Add it with avian's `PhysicsPlugins` and [`crate::BiomeWorldPlugin`].
pub struct BiomeWorldPhysicsPlugin;

impl Plugin for BiomeWorldPhysicsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<BiomeWorldColliders>()
            .init_resource::<BiomeColliderStats>()
            .init_resource::<ColliderStreamer>()
            .register_type::<BiomeWorldColliders>()
            .register_type::<BiomeColliderStats>()
            .register_type::<BiomeWorldCollider>()
            .register_type::<TerrainCollider>()
            .register_type::<TrunkColliders>()
            .configure_sets(
                Update,
                (
                    BiomeWorldPhysicsSystems::Stream,
                    BiomeWorldPhysicsSystems::Apply,
                )
                    .chain()
                    .after(BiomeWorldSystems::Settings)
                    .before(BiomeWorldSystems::Stream),
            )
            .add_systems(
                Update,
                (
                    stream_colliders.in_set(BiomeWorldPhysicsSystems::Stream),
                    apply_colliders.in_set(BiomeWorldPhysicsSystems::Apply),
                ),
            );
    }
}

/// The physics plugin's systems, in the order they run each `Update`: after
/// [`BiomeWorldSystems::Settings`] and before the terrain's streaming, so colliders come first.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BiomeWorldPhysicsSystems {
    /// Feeds the collider planner the collider entities, starts and drops collider builds.
    Stream,
    /// Inserts finished colliders within the budget and removes those no longer wanted.
    Apply,
}

/// Colliders are kept around entities with this: the player, rigid bodies that must stand on
/// the world, a camera that collides.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWorldCollider;

/// How far colliders reach and what they cost. Changes apply at once: chunks come and go as the
/// radius needs; a change of `trunks` rebuilds them.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeWorldColliders {
    /// Chunks within this distance of a [`BiomeWorldCollider`] entity get colliders, world units.
    pub radius: f32,
    /// Colliders stay until their entity is this share of the radius farther (and are built this
    /// half share ahead), so a body hovering at the edge does not churn.
    pub hysteresis: f32,
    /// Whether trees get trunk colliders (a cylinder per trunk, as wide and tall as drawn).
    pub trunks: bool,
    /// At most this many collider builds run at once.
    pub max_tasks: usize,
    /// Main-thread time per frame for inserting and removing colliders, milliseconds; at least
    /// one chunk's colliders move per frame.
    pub apply_budget_ms: f32,
}

impl Default for BiomeWorldColliders {
    fn default() -> Self {
        Self {
            radius: 96.0,
            hysteresis: 0.5,
            trunks: true,
            max_tasks: 8,
            apply_budget_ms: 0.3,
        }
    }
}

impl BiomeWorldColliders {
    /// Accepted [`BiomeWorldColliders::radius`], world units.
    pub const RADIUS: std::ops::RangeInclusive<f32> = 1.0..=2048.0;
    /// Accepted [`BiomeWorldColliders::hysteresis`].
    pub const HYSTERESIS: std::ops::RangeInclusive<f32> = 0.0..=1.0;
    /// Accepted [`BiomeWorldColliders::max_tasks`].
    pub const MAX_TASKS: std::ops::RangeInclusive<usize> = 1..=64;
    /// Accepted [`BiomeWorldColliders::apply_budget_ms`].
    pub const APPLY_BUDGET_MS: std::ops::RangeInclusive<f32> = 0.0..=100.0;
    /// Collider chunks one entity may keep.
    pub const MAX_CHUNKS: u64 = 4096;

    /// Checks every value against its range, and the chunks one entity keeps with `layout`.
    ///
    /// # Errors
    /// The first value out of range, by field path (`colliders.radius`...).
    pub fn validate_with(&self, layout: &ChunkLayout) -> Result<(), SettingsError> {
        let fail = |field: &str, reason: String| {
            Err(SettingsError {
                field: format!("colliders.{field}"),
                reason,
            })
        };
        for (field, value, accepted) in [
            ("radius", self.radius, Self::RADIUS),
            ("hysteresis", self.hysteresis, Self::HYSTERESIS),
            (
                "apply_budget_ms",
                self.apply_budget_ms,
                Self::APPLY_BUDGET_MS,
            ),
        ] {
            if !accepted.contains(&value) {
                let (start, end) = accepted.into_inner();
                return fail(
                    field,
                    format!("must be from {start} to {end} (got {value})"),
                );
            }
        }
        if !Self::MAX_TASKS.contains(&self.max_tasks) {
            let (start, end) = Self::MAX_TASKS.into_inner();
            return fail(
                "max_tasks",
                format!("must be from {start} to {end} (got {})", self.max_tasks),
            );
        }
        let chunks = self.lod(*layout).node_estimate();
        if chunks > Self::MAX_CHUNKS {
            return fail(
                "radius",
                format!(
                    "about {chunks} collider chunks around an entity, over the {} limit: lower \
                     the radius or use larger chunks",
                    Self::MAX_CHUNKS
                ),
            );
        }
        Ok(())
    }

    /// The planner's view: full detail out to the radius.
    #[must_use]
    pub fn lod(&self, layout: ChunkLayout) -> LodConfig {
        LodConfig {
            layout,
            detail_radius: f64::from(self.radius),
            horizon: f64::from(self.radius),
            hysteresis: f64::from(self.hysteresis),
        }
    }
}

/// The ground collider of one chunk: a static heightfield.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct TerrainCollider {
    /// The chunk.
    pub chunk: ChunkCoord,
    /// The settings generation its heights come from.
    pub generation: u64,
}

/// The trunk colliders of one chunk's trees: one static compound of cylinders, a child of its
/// [`TerrainCollider`].
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct TrunkColliders {
    /// How many trunks.
    pub trunks: usize,
}

/// What the colliders cost, updated every frame.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeColliderStats {
    /// Chunks with colliders in.
    pub loaded: usize,
    /// Collider builds running.
    pub in_flight: usize,
    /// Collider chunks wanted and not started yet.
    pub queued: usize,
    /// Finished builds waiting to be inserted.
    pub ready: usize,
    /// Collider chunks to remove.
    pub retiring: usize,
    /// Trunk colliders in.
    pub trunks: usize,
    /// Builds that took their heights from a drawn full-detail chunk, since the start.
    pub reused_heights: u64,
    /// Builds that sampled their heights, since the start.
    pub sampled_heights: u64,
    /// How long the last builds took, milliseconds (the last 256).
    pub build_times_ms: std::collections::VecDeque<f32>,
    /// Main-thread time of the last frame's streaming system, milliseconds.
    pub stream_ms: f32,
    /// Main-thread time of the last frame's apply system, milliseconds.
    pub apply_ms: f32,
    /// Why the latest [`BiomeWorldColliders`] were refused, if they were (the last valid ones
    /// stay in use).
    pub error: Option<String>,
}

impl BiomeColliderStats {
    /// Whether nothing is under way: every wanted collider is in and nothing waits to go.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0 && self.queued == 0 && self.ready == 0 && self.retiring == 0
    }
}

/// A finished collider build.
struct BuiltColliders {
    ground: Collider,
    /// Where the ground collider goes.
    transform: Transform,
    /// The trunks' compound and how many trunks it holds.
    trunks: Option<(Collider, usize)>,
    build_ms: f32,
}

struct ColliderTask {
    task: Task<Option<BuiltColliders>>,
    cancel: Arc<AtomicBool>,
}

impl Drop for ColliderTask {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The collider entities of one chunk: the ground, with its trunks as a child.
#[derive(Clone, Copy, Debug)]
struct ChunkColliders {
    ground: Entity,
    trunks: usize,
}

#[derive(Resource, Default)]
struct ColliderStreamer {
    /// The last valid settings.
    settings: Option<BiomeWorldColliders>,
    planner: ChunkPlanner,
    tasks: HashMap<BuildKey, ColliderTask>,
    ready: HashMap<BuildKey, BuiltColliders>,
    shown: HashMap<BuildKey, ChunkColliders>,
}

/// The settings epoch of collider builds: the world's generation, and whether trunks are on.
fn epoch(state: &BiomeWorldState, settings: &BiomeWorldColliders) -> u64 {
    state.generation * 2 + u64::from(settings.trunks)
}

fn stream_colliders(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<BiomeWorldCollider>>,
    grounds: &mut QueryState<(&BiomeChunk, &ChunkGround)>,
) {
    let started = Instant::now();
    let points: Vec<[f64; 2]> = anchors
        .iter(world)
        .map(|transform| {
            let p = transform.translation();
            [f64::from(p.x), f64::from(p.z)]
        })
        .collect();
    world.resource_scope(|world, mut streamer: Mut<ColliderStreamer>| {
        let streamer = &mut *streamer;
        let state = world.resource::<BiomeWorldState>();
        let layout = state.settings.layout;
        // Take valid settings in; keep the last valid ones otherwise.
        let requested = world.resource::<BiomeWorldColliders>();
        if streamer.settings.as_ref() != Some(requested) {
            match requested.validate_with(&layout) {
                Ok(()) => {
                    streamer.settings = Some(requested.clone());
                    world.resource_mut::<BiomeColliderStats>().error = None;
                }
                Err(error) => {
                    let mut stats = world.resource_mut::<BiomeColliderStats>();
                    let reason = error.to_string();
                    if stats.error.as_ref() != Some(&reason) {
                        warn!("biome world colliders refused, keeping the last valid: {reason}");
                        stats.error = Some(reason);
                    }
                    if streamer.settings.is_none() {
                        streamer.settings = Some(BiomeWorldColliders::default());
                    }
                }
            }
        }
        let state = world.resource::<BiomeWorldState>();
        let settings = streamer.settings.clone().expect("set above");
        let epoch = epoch(state, &settings);
        let ColliderStreamer {
            planner,
            tasks,
            ready,
            shown,
            ..
        } = streamer;
        // Entities game code despawned are built again.
        let lost: Vec<BuildKey> = shown
            .iter()
            .filter(|(_, colliders)| world.get_entity(colliders.ground).is_err())
            .map(|(&key, _)| key)
            .collect();
        for key in lost {
            shown.remove(&key);
            planner.hidden(&key);
        }
        planner.update(&points, &settings.lod(layout), epoch);
        tasks.retain(|key, _| planner.wants(key));
        ready.retain(|key, _| planner.wants(key));
        let starts: Vec<BuildKey> = planner
            .plan()
            .build
            .iter()
            .filter(|key| !tasks.contains_key(*key) && !ready.contains_key(*key))
            .take(settings.max_tasks.saturating_sub(tasks.len()))
            .copied()
            .collect();
        if starts.is_empty() {
            return;
        }
        // Heights of drawn full-detail chunks of these settings, looked up once per frame that
        // starts builds.
        let state = world.resource::<BiomeWorldState>();
        let generation = state.generation;
        let generator = state.generator.clone();
        let wanted: HashSet<NodeCoord> = starts.iter().map(|key| key.node).collect();
        let drawn: HashMap<NodeCoord, ChunkGround> = grounds
            .iter(world)
            .filter(|(chunk, _)| chunk.generation == generation && wanted.contains(&chunk.node))
            .map(|(chunk, ground)| (chunk.node, ground.clone()))
            .collect();
        let (mut reused, mut sampled) = (0, 0);
        let pool = AsyncComputeTaskPool::get();
        for key in starts {
            let ground = drawn.get(&key.node).cloned();
            if ground.is_some() {
                reused += 1;
            } else {
                sampled += 1;
            }
            let generator = generator.clone();
            let cancel = Arc::new(AtomicBool::new(false));
            let flag = cancel.clone();
            let trunks = settings.trunks;
            let task = pool.spawn(async move {
                build_colliders(&generator, key.node, &layout, ground, trunks, &flag)
            });
            tasks.insert(key, ColliderTask { task, cancel });
        }
        let mut stats = world.resource_mut::<BiomeColliderStats>();
        stats.reused_heights += reused;
        stats.sampled_heights += sampled;
    });
    world.resource_mut::<BiomeColliderStats>().stream_ms = started.elapsed().as_secs_f32() * 1000.0;
}

/// Builds the colliders of chunk `node` from `ground` (a drawn chunk's) or from heights and
/// trees sampled here. `None` if cancelled or refused.
fn build_colliders(
    generator: &WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
    ground: Option<ChunkGround>,
    trunks: bool,
    cancel: &AtomicBool,
) -> Option<BuiltColliders> {
    let started = Instant::now();
    let coord = ChunkCoord::new(node.x, node.z);
    let ground = match ground {
        Some(ground) => ground,
        None => {
            let heights = generator.chunk_heights(coord, layout, cancel).ok()?;
            let trees = if trunks {
                let (min, size) = (heights.origin, layout.chunk_size());
                generator
                    .trees_in_rect(min, [min[0] + size, min[1] + size])
                    .iter()
                    .map(|tree| tree.relative_to(min))
                    .collect()
            } else {
                Vec::new()
            };
            ChunkGround { heights, trees }
        }
    };
    let trunks = (trunks && !ground.trees.is_empty())
        .then(|| (trunk_compound(&ground.trees), ground.trees.len()));
    Some(BuiltColliders {
        ground: heightfield(&ground.heights),
        transform: heightfield_transform(&ground.heights),
        trunks,
        build_ms: started.elapsed().as_secs_f32() * 1000.0,
    })
}

/// A heightfield of `grid`, centred on the grid (where its entity goes,
/// [`heightfield_transform`]). Parry's rows run along z and its columns along x, and it splits
/// every cell along the same diagonal as the meshes. Without parry's internal-edge fix: with it,
/// a ball dropped where four chunks meet sank 4 cm into the ground; without it a body slides
/// over seams as over one seamless field (`tests/physics.rs`).
fn heightfield(grid: &HeightGrid) -> Collider {
    let side = grid.side;
    let heights = Array2::from_fn(side, side, |row, column| grid.get(column, row));
    let size = ((side - 1) as f64 * grid.spacing) as f32;
    Collider::from(SharedShape::heightfield(
        heights,
        Vec3::new(size, 1.0, size),
    ))
}

/// Where the entity of [`heightfield`]`(grid)` goes.
fn heightfield_transform(grid: &HeightGrid) -> Transform {
    let half = (grid.side - 1) as f64 * grid.spacing / 2.0;
    Transform::from_xyz(
        (grid.origin[0] + half) as f32,
        0.0,
        (grid.origin[1] + half) as f32,
    )
}

/// One compound of a cylinder per trunk, relative to the chunk origin.
fn trunk_compound(trees: &[TreeInstance]) -> Collider {
    let shapes = trees
        .iter()
        .map(|tree| {
            let TrunkSize { radius, height } = trunk_size(tree.species);
            let (radius, height) = (radius * tree.scale, height * tree.scale);
            let [x, y, z] = tree.position;
            (
                Vec3::new(x, y + height / 2.0, z),
                Quat::IDENTITY,
                Collider::cylinder(radius, height),
            )
        })
        .collect();
    Collider::compound(shapes)
}

fn apply_colliders(world: &mut World) {
    world.resource_scope(|world, mut streamer: Mut<ColliderStreamer>| {
        let started = Instant::now();
        let streamer = &mut *streamer;
        let Some(settings) = streamer.settings.clone() else {
            return;
        };
        let budget = f64::from(settings.apply_budget_ms) / 1000.0;
        let state = world.resource::<BiomeWorldState>();
        let (layout, generation) = (state.settings.layout, state.generation);
        let ColliderStreamer {
            planner,
            tasks,
            ready,
            shown,
            ..
        } = streamer;
        let mut build_times = Vec::new();
        tasks.retain(|&key, task| {
            let Some(outcome) = check_ready(&mut task.task) else {
                return true;
            };
            if let Some(built) = outcome {
                build_times.push(built.build_ms);
                ready.insert(key, built);
            }
            false
        });
        let mut done = 0;
        let spent = |done: usize| done > 0 && started.elapsed().as_secs_f64() >= budget;
        for key in planner.plan().retire.clone() {
            if spent(done) {
                break;
            }
            if let Some(colliders) = shown.remove(&key) {
                planner.hidden(&key);
                if let Ok(entity) = world.get_entity_mut(colliders.ground) {
                    entity.despawn();
                }
                done += 1;
            }
        }
        let order: Vec<BuildKey> = planner
            .plan()
            .build
            .iter()
            .filter(|key| ready.contains_key(*key))
            .copied()
            .collect();
        for key in order {
            if spent(done) {
                break;
            }
            let built = ready.remove(&key).expect("listed above");
            let half = (layout.chunk_size() / 2.0) as f32;
            let ground = world
                .spawn((
                    TerrainCollider {
                        chunk: ChunkCoord::new(key.node.x, key.node.z),
                        generation,
                    },
                    RigidBody::Static,
                    built.ground,
                    built.transform,
                ))
                .id();
            let mut trunks = 0;
            if let Some((compound, count)) = built.trunks {
                // A child collider belongs to its parent's static body.
                world.spawn((
                    TrunkColliders { trunks: count },
                    compound,
                    Transform::from_xyz(-half, 0.0, -half),
                    ChildOf(ground),
                ));
                trunks = count;
            }
            shown.insert(key, ChunkColliders { ground, trunks });
            planner.shown(key);
            done += 1;
        }
        let queued = planner
            .plan()
            .build
            .iter()
            .filter(|key| !tasks.contains_key(*key) && !ready.contains_key(*key))
            .count();
        let in_flight = tasks.len();
        let waiting = ready.len();
        let retiring = planner
            .plan()
            .retire
            .iter()
            .filter(|key| shown.contains_key(*key))
            .count();
        let loaded = shown.len();
        let trunks = shown.values().map(|c| c.trunks).sum();
        let mut stats = world.resource_mut::<BiomeColliderStats>();
        for ms in build_times {
            stats.build_times_ms.push_back(ms);
            if stats.build_times_ms.len() > 256 {
                stats.build_times_ms.pop_front();
            }
        }
        stats.loaded = loaded;
        stats.in_flight = in_flight;
        stats.queued = queued;
        stats.ready = waiting;
        stats.retiring = retiring;
        stats.trunks = trunks;
        stats.apply_ms = started.elapsed().as_secs_f32() * 1000.0;
    });
}
