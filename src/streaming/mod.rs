//! Streaming: the [`ChunkPlanner`] says which level-of-detail nodes should exist around every
//! [`BiomeWorldAnchor`]; these systems feed it the anchors, build what it asks for on the async
//! compute pool (most urgent first; a build it no longer wants is dropped, which cancels it),
//! turn finished builds into entities within a main-thread time budget, and despawn what it
//! retires once the nodes replacing it are shown.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy::asset::RenderAssetUsages;
use bevy::platform::collections::{HashMap, HashSet};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use biome_core::{ChunkError, ChunkLayout, NodeCoord, TreeInstance};

use crate::chunk::{
    BiomeChunk, BiomeRiverWater, BiomeWater, ChunkAssets, ChunkGround, TerrainColors,
    TerrainMaterial, chunk_mesh, mesh_bytes, river_water_mesh,
};
use crate::scatter::{BiomeForest, FarTrees, TreeAssets};
use crate::world::{BiomeWorldState, ChunkMeshOptions};

pub mod planner;
pub(crate) mod share;

use share::{DensityShare, DensityUser};

pub use planner::{BuildKey, ChunkPlanner, LodConfig, NodeRect, Plan};

/// Terrain streams around every entity with this component (usually the camera). Several
/// anchors (split screen, a far-away quest marker) each get their own view out to the horizon.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWorldAnchor;

/// A terrain entity appeared: a node built for the first time, at another level or stitch, or
/// rebuilt after a settings change. The entity it replaces (if any) stays until this one and its
/// neighbours cover its area; its [`ChunkDespawned`] comes then.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkSpawned {
    /// The node: a chunk at level 0, 2^level × 2^level chunks above.
    pub node: NodeCoord,
    /// The layout the node's coordinates are in.
    pub layout: ChunkLayout,
    /// Its entity, which carries a [`BiomeChunk`].
    pub entity: Entity,
}

/// A terrain entity went away: past the horizon, replaced (by another level, stitch, settings or
/// layout), or despawned by game code (the node is then built again if it is still wanted). The
/// entity is the key; `node` and `layout` say which area it covered.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkDespawned {
    /// The node it showed.
    pub node: NodeCoord,
    /// The layout the node's coordinates are in.
    pub layout: ChunkLayout,
    /// The entity that was despawned.
    pub entity: Entity,
}

/// A node's build failed (the core refused it or panicked): the area keeps what covered it
/// before, if anything, until the settings change. The game keeps running; the failure is also
/// logged.
#[derive(Message, Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkFailed {
    /// The node.
    pub node: NodeCoord,
    /// The layout the node's coordinates are in.
    pub layout: ChunkLayout,
    /// Why, as the error or the panic said it.
    pub reason: String,
}

/// What the streamer is doing, for panels, benchmarks and tests.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeWorldStats {
    /// Terrain entities alive.
    pub loaded: usize,
    /// Terrain entities alive per level of detail (index 0: full-detail chunks).
    pub loaded_per_level: Vec<usize>,
    /// Nodes being built on the async compute pool.
    pub in_flight: usize,
    /// Nodes wanted and waiting for a task.
    pub queued: usize,
    /// Nodes built and waiting to be applied.
    pub ready: usize,
    /// Terrain entities no longer wanted whose area is covered: despawned over the next frames
    /// within the budget.
    pub retiring: usize,
    /// Terrain entities fading in over what they replace (see
    /// [`BiomeWorldStreaming::fade_seconds`](crate::BiomeWorldStreaming::fade_seconds)).
    pub fading: usize,
    /// Nodes applied since start.
    pub applied_total: u64,
    /// Wanted nodes whose build failed at the current settings (see [`ChunkFailed`]).
    pub failed: usize,
    /// Terrain triangles alive.
    pub triangles: usize,
    /// Far-forest triangles alive.
    pub forest_triangles: usize,
    /// Bytes of terrain mesh data alive.
    pub mesh_bytes: usize,
    /// Tree entities alive.
    pub trees: usize,
    /// Build times of the latest nodes, milliseconds (newest last, at most 256).
    pub build_times_ms: VecDeque<f32>,
    /// Main-thread time of the last frame's planning and task start, milliseconds.
    pub stream_ms: f32,
    /// Main-thread time of the last frame's spawning, despawning and fades, milliseconds.
    pub apply_ms: f32,
}

impl BiomeWorldStats {
    /// Whether every wanted node is built and applied at the current settings, and nothing
    /// waits to go.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0
            && self.queued == 0
            && self.ready == 0
            && self.retiring == 0
            && self.fading == 0
    }

    /// Mean of [`BiomeWorldStats::build_times_ms`].
    #[must_use]
    pub fn mean_build_ms(&self) -> f32 {
        if self.build_times_ms.is_empty() {
            return 0.0;
        }
        self.build_times_ms.iter().sum::<f32>() / self.build_times_ms.len() as f32
    }

    /// 99th percentile of [`BiomeWorldStats::build_times_ms`].
    #[must_use]
    pub fn p99_build_ms(&self) -> f32 {
        let mut sorted: Vec<f32> = self.build_times_ms.iter().copied().collect();
        if sorted.is_empty() {
            return 0.0;
        }
        sorted.sort_by(f32::total_cmp);
        sorted[((sorted.len() - 1) as f32 * 0.99).round() as usize]
    }
}

/// A node built off the main thread, ready to become entities.
struct BuiltChunk {
    mesh: Mesh,
    /// The far forest of a coarse node.
    forest: Option<Mesh>,
    /// A chunk's ground, for physics.
    ground: Option<ChunkGround>,
    trees: Vec<TreeInstance>,
    below_sea: bool,
    /// The water of its rivers and lakes.
    river_water: Option<Mesh>,
    build_ms: f32,
}

/// How a build task ended.
enum BuildOutcome {
    Built(Box<BuiltChunk>),
    Failed(String),
    Cancelled,
}

/// Runs one build, turning a refusal or a panic into [`BuildOutcome::Failed`] so it never
/// reaches the main thread through `check_ready`.
fn run_build(build: impl FnOnce() -> Result<BuiltChunk, ChunkError>) -> BuildOutcome {
    match std::panic::catch_unwind(AssertUnwindSafe(build)) {
        Ok(Ok(built)) => BuildOutcome::Built(Box::new(built)),
        Ok(Err(ChunkError::Cancelled)) => BuildOutcome::Cancelled,
        Ok(Err(error)) => BuildOutcome::Failed(error.to_string()),
        Err(panic) => BuildOutcome::Failed(
            panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the build panicked".to_owned()),
        ),
    }
}

/// A build on the async compute pool. Dropping it cancels the build, even one already running:
/// the core looks at the flag between blocks of points.
struct BuildTask {
    task: Task<BuildOutcome>,
    cancel: Arc<AtomicBool>,
}

impl Drop for BuildTask {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// A terrain entity on screen, with what it costs.
#[derive(Clone, Copy, Debug)]
struct ShownNode {
    entity: Entity,
    forest: Option<Entity>,
    forest_triangles: usize,
    layout: ChunkLayout,
    triangles: usize,
    bytes: usize,
    trees: usize,
}

/// A terrain entity fading in: the planner hears of it once it is fully shown, so what it
/// replaces stays until then.
struct Fading {
    elapsed: f32,
    /// Its own material, whose fade moves on each frame (none without a renderer).
    material: Option<Handle<TerrainMaterial>>,
    /// The shared material it takes when done.
    shared: Option<Handle<TerrainMaterial>>,
}

/// The streamer's bookkeeping: the planner's answer, and the builds and entities that carry it
/// out, all keyed by [`BuildKey`].
#[derive(Resource, Default)]
pub(crate) struct ChunkStreamer {
    planner: ChunkPlanner,
    tasks: HashMap<BuildKey, BuildTask>,
    ready: HashMap<BuildKey, BuiltChunk>,
    /// Every terrain entity, fading or not.
    shown: HashMap<BuildKey, ShownNode>,
    far_trees: Arc<FarTrees>,
    fading: HashMap<BuildKey, Fading>,
    /// Builds that failed: not tried again until the settings change.
    failed: HashSet<BuildKey>,
}

/// Whether `key` is being built, waits to be applied, is on screen (perhaps fading in) or failed:
/// nothing more to start for it.
fn in_hand(
    key: &BuildKey,
    tasks: &HashMap<BuildKey, BuildTask>,
    ready: &HashMap<BuildKey, BuiltChunk>,
    shown: &HashMap<BuildKey, ShownNode>,
    failed: &HashSet<BuildKey>,
) -> bool {
    tasks.contains_key(key)
        || ready.contains_key(key)
        || shown.contains_key(key)
        || failed.contains(key)
}

/// Where `anchors` stand on the ground plane, `[x, z]`, as planners take them.
pub(crate) fn anchor_points<F: bevy::ecs::query::QueryFilter>(
    world: &World,
    anchors: &mut QueryState<&GlobalTransform, F>,
) -> Vec<[f64; 2]> {
    anchors
        .iter(world)
        .map(|transform| {
            let p = transform.translation();
            [f64::from(p.x), f64::from(p.z)]
        })
        .collect()
}

/// Feeds the planner, forgets entities game code despawned, drops builds no longer wanted and
/// starts wanted ones, most urgent first.
///
/// Like [`apply_chunks`] it runs on the main thread with the world to itself: the plugin's work
/// then happens in one stretch there, with no hand-offs between threads inside a frame.
pub(crate) fn stream_chunks(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<BiomeWorldAnchor>>,
) {
    let started = Instant::now();
    let points = anchor_points(world, anchors);
    world.resource_scope(|world, mut streamer: Mut<ChunkStreamer>| {
        let streamer = &mut *streamer;
        let lost: Vec<BuildKey> = streamer
            .shown
            .iter()
            .filter(|(_, shown)| world.get_entity(shown.entity).is_err())
            .map(|(&key, _)| key)
            .collect();
        for key in lost {
            let shown = streamer.shown.remove(&key).expect("listed above");
            streamer.planner.hidden(&key);
            streamer.fading.remove(&key);
            world.write_message(ChunkDespawned {
                node: key.node,
                layout: shown.layout,
                entity: shown.entity,
            });
        }
        let mesh_usage = world.resource::<ChunkMeshOptions>().usage();
        let colors = if world.contains_resource::<Assets<TerrainMaterial>>() {
            TerrainColors::PerPixel
        } else {
            TerrainColors::Final
        };
        // The physics plugin's share, where its colliders and the terrain lend each other
        // densities; out of the world while the state is borrowed.
        let mut share = world.remove_resource::<DensityShare>();
        let state = world.resource::<BiomeWorldState>();
        stream(streamer, state, mesh_usage, colors, &points, share.as_mut());
        if let Some(share) = share {
            world.insert_resource(share);
        }
        // A node still fading in that is no longer wanted goes at once: nothing relied on it.
        let unwanted: Vec<BuildKey> = streamer
            .fading
            .keys()
            .filter(|key| !streamer.planner.wants(key))
            .copied()
            .collect();
        for key in unwanted {
            let fading = streamer.fading.remove(&key).expect("listed above");
            if let Some(node) = streamer.shown.remove(&key) {
                despawn_chunk(world, key.node, &node);
            }
            drop_material(world, fading.material.as_ref());
        }
    });
    world.resource_mut::<BiomeWorldStats>().stream_ms = started.elapsed().as_secs_f32() * 1000.0;
}

/// Removes a fading node's own material.
fn drop_material(world: &mut World, material: Option<&Handle<TerrainMaterial>>) {
    if let (Some(material), Some(mut materials)) = (
        material,
        world.get_resource_mut::<Assets<TerrainMaterial>>(),
    ) {
        materials.remove(material);
    }
}

fn stream(
    streamer: &mut ChunkStreamer,
    state: &BiomeWorldState,
    mesh_usage: RenderAssetUsages,
    colors: TerrainColors,
    anchors: &[[f64; 2]],
    mut share: Option<&mut DensityShare>,
) {
    let layout = state.settings.layout;
    let epoch = state.generation;
    let ChunkStreamer {
        planner,
        tasks,
        ready,
        shown,
        failed,
        far_trees,
        ..
    } = streamer;
    failed.retain(|key| key.epoch == epoch);
    planner.update(anchors, &state.streaming.lod(layout), epoch);
    tasks.retain(|key, _| planner.wants(key));
    ready.retain(|key, _| planner.wants(key));
    // A density stays shared while a build holds it or this terrain has still to build its chunk
    // at full detail: a collider's pass waits there for the terrain's build to take it.
    if let Some(share) = share.as_deref_mut() {
        share.prune(epoch, |node| {
            node.level == 0
                && planner.wanted().get(&node).is_some_and(|&stitch| {
                    planner.wants(&BuildKey {
                        node,
                        stitch,
                        epoch,
                    })
                })
        });
    }
    let plan = planner.plan();

    let pool = AsyncComputeTaskPool::get();
    for &key in &plan.build {
        if tasks.len() >= state.streaming.max_tasks {
            break;
        }
        if in_hand(&key, tasks, ready, shown, failed) {
            continue;
        }
        let generator = state.generator.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let stride = state.settings.far_forest_stride(key.node.level);
        let coarse_trees = key.node.level > 0 && state.settings.tree_entities_at(key.node.level);
        let far_trees = far_trees.clone();
        let slot = share
            .as_deref_mut()
            .filter(|_| key.node.level == 0)
            .map(|share| share.slot(key.node, epoch));
        let task = pool.spawn(async move {
            let started = Instant::now();
            run_build(|| {
                let mut data = match slot {
                    Some(slot) => {
                        let density = slot.get_or_sample(DensityUser::Terrain, || {
                            generator.node_density(key.node, &layout, &flag)
                        })?;
                        generator.build_node_from(key.node, &layout, key.stitch, &density, &flag)?
                    }
                    None => generator.build_node(key.node, &layout, key.stitch, &flag)?,
                };
                let mesh = chunk_mesh(&data, mesh_usage, colors);
                let river_water =
                    river_water_mesh(std::mem::take(&mut data.river_water), mesh_usage);
                // The node's trees on every `stride`-th grid cell, relative to its origin
                // (standing at full-detail ground heights).
                let node_trees = |stride: u32| -> Vec<TreeInstance> {
                    let (min, size) = (data.origin, key.node.size(&layout));
                    generator
                        .trees_in_rect_every(min, [min[0] + size, min[1] + size], stride)
                        .iter()
                        .map(|tree| tree.relative_to(min))
                        .collect()
                };
                let forest = stride.and_then(|stride| {
                    far_trees.forest_mesh(&node_trees(stride), stride as f32, mesh_usage)
                });
                // The core gives chunks their trees; coarser nodes that carry tree entities get
                // theirs here.
                let trees = if coarse_trees {
                    node_trees(1)
                } else {
                    data.trees
                };
                let ground = (key.node.level == 0).then(|| ChunkGround {
                    heights: data.heights,
                    trees: trees.clone(),
                });
                Ok(BuiltChunk {
                    mesh,
                    forest,
                    ground,
                    below_sea: data.min_height < 0.0,
                    river_water,
                    trees,
                    build_ms: started.elapsed().as_secs_f32() * 1000.0,
                })
            })
        });
        tasks.insert(key, BuildTask { task, cancel });
    }
}

/// Share of the last frame's time the apply step may take when that beats its budget.
const SLOW_FRAME_SHARE: f64 = 0.05;

/// Collects finished builds, despawns what the planner retires, and turns ready builds into
/// entities most urgent first, within the main-thread budget. It works on the world directly so
/// that the budget counts the spawning and despawning too; at least one node moves each frame.
pub(crate) fn apply_chunks(world: &mut World) {
    world.resource_scope(|world, mut streamer: Mut<ChunkStreamer>| {
        let started = Instant::now();
        let streamer = &mut *streamer;
        let state = world.resource::<BiomeWorldState>();
        let (layout, epoch) = (state.settings.layout, state.generation);
        // When frames are slow anyway (a software renderer, a debug build), a share of the frame
        // time keeps nodes coming without being noticed.
        let last_frame = world
            .get_resource::<Time<Real>>()
            .map_or(0.0, Time::delta_secs_f64);
        let budget = (f64::from(state.streaming.apply_budget_ms) / 1000.0)
            .max(last_frame * SLOW_FRAME_SHARE);
        let (water, trees) = (state.settings.water, state.settings.trees);
        let fade_seconds = state.streaming.fade_seconds;
        let generator = state.generator.clone();

        let mut build_times = Vec::new();
        let mut failures = Vec::new();
        let ChunkStreamer {
            planner,
            tasks,
            ready,
            shown,
            fading,
            failed,
            ..
        } = streamer;
        tasks.retain(|&key, task| {
            let Some(outcome) = check_ready(&mut task.task) else {
                return true;
            };
            match outcome {
                BuildOutcome::Built(built) => {
                    build_times.push(built.build_ms);
                    ready.insert(key, *built);
                }
                BuildOutcome::Failed(reason) => {
                    error!("biome world node {:?} failed to build: {reason}", key.node);
                    failed.insert(key);
                    failures.push(ChunkFailed {
                        node: key.node,
                        layout,
                        reason,
                    });
                }
                BuildOutcome::Cancelled => {}
            }
            false
        });
        world.write_message_batch(failures);

        let mut done = 0;
        let spent = |done: usize| done > 0 && started.elapsed().as_secs_f64() >= budget;
        let retire = planner.plan().retire.clone();
        for key in retire {
            if spent(done) {
                break;
            }
            if let Some(node) = shown.remove(&key) {
                planner.hidden(&key);
                despawn_chunk(world, key.node, &node);
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
            let shared = world.resource_scope(|world, mut assets: Mut<ChunkAssets>| {
                let mut materials = world.get_resource_mut::<Assets<TerrainMaterial>>()?;
                Some(assets.terrain_material(generator.settings(), layout.style, &mut materials))
            });
            // A node that replaces something fades in over it; new land appears at once.
            let fades = fade_seconds > 0.0 && planner.is_covered(key.node);
            let material = match (&shared, fades) {
                (Some(shared), true) => {
                    world.resource_scope(|_, mut materials: Mut<Assets<TerrainMaterial>>| {
                        ChunkAssets::fading_material(shared, &mut materials)
                    })
                }
                _ => None,
            };
            let look = match (&material, &shared) {
                (Some(own), _) | (None, Some(own)) => TerrainLook::Surface(own.clone()),
                (None, None) => TerrainLook::Standard,
            };
            let node = spawn_chunk(world, key, &layout, epoch, built, look, water, trees);
            world.write_message(ChunkSpawned {
                node: key.node,
                layout,
                entity: node.entity,
            });
            if fades {
                fading.insert(
                    key,
                    Fading {
                        elapsed: 0.0,
                        material,
                        shared,
                    },
                );
            } else {
                planner.shown(key);
            }
            shown.insert(key, node);
            world.resource_mut::<BiomeWorldStats>().applied_total += 1;
            done += 1;
        }

        // Fades move on with real time; a finished one hands its node to the planner, which can
        // then retire what it replaced.
        let finished: Vec<BuildKey> = fading
            .iter_mut()
            .filter_map(|(&key, fade)| {
                fade.elapsed += last_frame as f32;
                let progress = (fade.elapsed / fade_seconds.max(f32::EPSILON)).min(1.0);
                if let (Some(material), Some(mut materials)) = (
                    &fade.material,
                    world.get_resource_mut::<Assets<TerrainMaterial>>(),
                ) && let Some(mut material) = materials.get_mut(material)
                {
                    material.extension.surface.fade = progress;
                }
                (progress >= 1.0).then_some(key)
            })
            .collect();
        for key in finished {
            let fade = fading.remove(&key).expect("listed above");
            if let (Some(shared), Some(node)) = (fade.shared, shown.get(&key)) {
                // The terrain and its far forest share the material.
                for entity in std::iter::once(node.entity).chain(node.forest) {
                    if let Ok(mut entity) = world.get_entity_mut(entity) {
                        entity.insert(MeshMaterial3d(shared.clone()));
                    }
                }
            }
            drop_material(world, fade.material.as_ref());
            planner.shown(key);
        }

        let queued = planner
            .plan()
            .build
            .iter()
            .filter(|&key| !in_hand(key, tasks, ready, shown, failed))
            .count();
        let retiring = planner
            .plan()
            .retire
            .iter()
            .filter(|&key| shown.contains_key(key))
            .count();
        let mut stats = world.resource_mut::<BiomeWorldStats>();
        for ms in build_times {
            stats.build_times_ms.push_back(ms);
            if stats.build_times_ms.len() > 256 {
                stats.build_times_ms.pop_front();
            }
        }
        stats.loaded = shown.len();
        stats.loaded_per_level.clear();
        for key in shown.keys() {
            let level = usize::from(key.node.level);
            if stats.loaded_per_level.len() <= level {
                stats.loaded_per_level.resize(level + 1, 0);
            }
            stats.loaded_per_level[level] += 1;
        }
        stats.failed = failed.len();
        stats.in_flight = tasks.len();
        stats.ready = ready.len();
        stats.queued = queued;
        stats.retiring = retiring;
        stats.fading = fading.len();
        stats.triangles = shown.values().map(|n| n.triangles).sum();
        stats.forest_triangles = shown.values().map(|n| n.forest_triangles).sum();
        stats.mesh_bytes = shown.values().map(|n| n.bytes).sum();
        stats.trees = shown.values().map(|n| n.trees).sum();
        stats.apply_ms = started.elapsed().as_secs_f32() * 1000.0;
    });
}

/// The material a terrain entity gets.
enum TerrainLook {
    /// [`ChunkAssets::terrain`], without a renderer.
    Standard,
    /// A [`TerrainMaterial`].
    Surface(Handle<TerrainMaterial>),
}

/// Spawns a built node: the terrain entity with its water surface and trees as children.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site, which has each of these at hand"
)]
fn spawn_chunk(
    world: &mut World,
    key: BuildKey,
    layout: &ChunkLayout,
    generation: u64,
    built: BuiltChunk,
    look: TerrainLook,
    water: bool,
    trees: bool,
) -> ShownNode {
    let origin = key.node.origin(layout);
    let bytes = mesh_bytes(&built.mesh);
    let triangles = built.mesh.indices().map_or(0, |i| i.len() / 3);
    let mesh = world.resource_mut::<Assets<Mesh>>().add(built.mesh);
    let forest_triangles = built.forest.as_ref().map_or(0, |m| m.count_vertices() / 3);
    let forest = built
        .forest
        .map(|forest| world.resource_mut::<Assets<Mesh>>().add(forest));
    let mut terrain = world.spawn((
        BiomeChunk {
            node: key.node,
            layout: *layout,
            stitch: key.stitch,
            generation,
        },
        Mesh3d(mesh),
        Transform::from_xyz(origin[0] as f32, 0.0, origin[1] as f32),
        Visibility::default(),
    ));
    if let Some(ground) = built.ground {
        terrain.insert(ground);
    }
    let entity = terrain.id();
    // The forest shares the terrain's material: its vertex colours are final (it has no UVs),
    // and it fades with the node.
    let forest = forest.map(|mesh| {
        world
            .spawn((
                BiomeForest,
                Mesh3d(mesh),
                Transform::IDENTITY,
                ChildOf(entity),
            ))
            .id()
    });
    for part in std::iter::once(entity).chain(forest) {
        let mut part = world.entity_mut(part);
        match &look {
            TerrainLook::Surface(material) => part.insert(MeshMaterial3d(material.clone())),
            TerrainLook::Standard => {
                let material = part.world().resource::<ChunkAssets>().terrain.clone();
                part.insert(MeshMaterial3d(material))
            }
        };
    }
    if water && built.below_sea {
        let (quad, material) = world.resource_scope(|world, mut assets: Mut<ChunkAssets>| {
            let quad = assets.water_quad(
                key.node.size(layout) as f32,
                &mut world.resource_mut::<Assets<Mesh>>(),
            );
            (quad, assets.water.clone())
        });
        world.spawn((
            BiomeWater,
            Mesh3d(quad),
            MeshMaterial3d(material),
            Transform::IDENTITY,
            ChildOf(entity),
        ));
    }
    if water && let Some(river) = built.river_water {
        let mesh = world.resource_mut::<Assets<Mesh>>().add(river);
        let material = world.resource::<ChunkAssets>().water.clone();
        world.spawn((
            BiomeRiverWater,
            Mesh3d(mesh),
            MeshMaterial3d(material),
            Transform::IDENTITY,
            ChildOf(entity),
        ));
    }
    let mut tree_count = 0;
    if trees && !built.trees.is_empty() {
        let tree_assets = world.resource::<TreeAssets>();
        let bundles: Vec<_> = built
            .trees
            .iter()
            .map(|tree| (tree_assets.bundle(tree), ChildOf(entity)))
            .collect();
        tree_count = bundles.len();
        world.spawn_batch(bundles);
    }
    ShownNode {
        entity,
        forest,
        forest_triangles,
        layout: *layout,
        triangles,
        bytes,
        trees: tree_count,
    }
}

/// Despawns a terrain entity with its children, and says so.
fn despawn_chunk(world: &mut World, node: NodeCoord, shown: &ShownNode) {
    if let Ok(entity) = world.get_entity_mut(shown.entity) {
        entity.despawn();
    }
    world.write_message(ChunkDespawned {
        node,
        layout: shown.layout,
        entity: shown.entity,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::tasks::TaskPool;

    #[test]
    fn a_panicking_or_refused_build_becomes_a_failure() {
        let outcome = run_build(|| panic!("boom in chunk"));
        assert!(matches!(outcome, BuildOutcome::Failed(reason) if reason == "boom in chunk"));
        let outcome = run_build(|| panic!("{} in chunk", 42));
        assert!(matches!(outcome, BuildOutcome::Failed(reason) if reason == "42 in chunk"));
        let outcome = run_build(|| Err(ChunkError::Cancelled));
        assert!(matches!(outcome, BuildOutcome::Cancelled));
    }

    #[test]
    fn dropping_a_build_task_cancels_its_build() {
        let pool = AsyncComputeTaskPool::get_or_init(TaskPool::default);
        let cancel = Arc::new(AtomicBool::new(false));
        let task = BuildTask {
            task: pool.spawn(async { BuildOutcome::Cancelled }),
            cancel: cancel.clone(),
        };
        assert!(!cancel.load(Ordering::Relaxed));
        drop(task);
        assert!(cancel.load(Ordering::Relaxed));
    }
}
