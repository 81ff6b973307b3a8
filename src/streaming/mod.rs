//! Streaming: chunks within the view radius of every [`BiomeWorldAnchor`] are built nearest-first
//! on the async compute pool, applied as entities within a main-thread time budget, replaced
//! in place when the settings change, and despawned (their tasks dropped) beyond the radius plus
//! the hysteresis.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy::asset::RenderAssetUsages;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use biome_core::{ChunkCoord, ChunkError, ChunkLayout, TreeInstance};

use crate::chunk::{BiomeChunk, BiomeWater, ChunkAssets, chunk_mesh, mesh_bytes};
use crate::scatter::TreeAssets;
use crate::world::{BiomeWorldState, ChunkMeshOptions};

/// Chunks stream around every entity with this component (usually the camera). Several anchors
/// (split screen, a far-away quest marker) each keep their own circle of chunks loaded.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWorldAnchor;

/// A chunk entity appeared: built for the first time, or rebuilt after a settings change (the
/// old entity's [`ChunkDespawned`] comes first, in the same frame).
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkSpawned {
    /// The chunk.
    pub coord: ChunkCoord,
    /// Its new entity.
    pub entity: Entity,
}

/// A chunk entity went away: out of range, replaced by a rebuild, or retired by a layout change.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkDespawned {
    /// The chunk.
    pub coord: ChunkCoord,
    /// The entity that was despawned.
    pub entity: Entity,
}

/// A chunk build failed (the core refused it or panicked): the chunk stays empty, or keeps its
/// older mesh, until the settings change. The game keeps running; the failure is also logged.
#[derive(Message, Reflect, Clone, Debug, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkFailed {
    /// The chunk.
    pub coord: ChunkCoord,
    /// Why, as the error or the panic said it.
    pub reason: String,
}

/// What the streamer is doing, for panels, benchmarks and tests.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeWorldStats {
    /// Chunk entities alive (current layout).
    pub loaded: usize,
    /// Chunks being built on the async compute pool.
    pub in_flight: usize,
    /// Chunks waiting for a task, nearest first.
    pub queued: usize,
    /// Chunks built and waiting to be applied.
    pub ready: usize,
    /// Chunk entities of an older layout still shown until the new one fills the view.
    pub retiring: usize,
    /// Chunk entities out of range, despawned over the next frames within the budget.
    pub leaving: usize,
    /// Chunks applied since start.
    pub applied_total: u64,
    /// Chunks in range whose build failed at the current settings (see [`ChunkFailed`]).
    pub failed: usize,
    /// Bytes of terrain mesh data per loaded chunk, on average.
    pub mesh_bytes_per_chunk: usize,
    /// Trees spawned per loaded chunk, on average.
    pub trees_per_chunk: f32,
    /// Build times of the latest chunks, milliseconds (newest last, at most 256).
    pub build_times_ms: VecDeque<f32>,
}

impl BiomeWorldStats {
    /// Whether every chunk in view is built and applied at the current settings.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0
            && self.queued == 0
            && self.ready == 0
            && self.retiring == 0
            && self.leaving == 0
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

/// A chunk built off the main thread, ready to become entities.
struct BuiltChunk {
    generation: u64,
    mesh: Mesh,
    trees: Vec<TreeInstance>,
    below_sea: bool,
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
    generation: u64,
    task: Task<BuildOutcome>,
    cancel: Arc<AtomicBool>,
}

impl Drop for BuildTask {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The entity showing a chunk, and the settings generation it was built from.
#[derive(Clone, Copy, Debug)]
struct Shown {
    entity: Entity,
    generation: u64,
}

#[derive(Default)]
struct Slot {
    /// The entity shown now.
    shown: Option<Shown>,
    /// The build under way.
    task: Option<BuildTask>,
    /// A finished build waiting for main-thread budget.
    ready: Option<BuiltChunk>,
    /// The generation whose build failed: not tried again until the settings change.
    failed: Option<u64>,
}

impl Slot {
    fn needs_build(&self, generation: u64) -> bool {
        let shown_current = self.shown.is_some_and(|s| s.generation == generation);
        let building_current = self
            .task
            .as_ref()
            .is_some_and(|t| t.generation == generation);
        let ready_current = self
            .ready
            .as_ref()
            .is_some_and(|b| b.generation == generation);
        let failed_current = self.failed == Some(generation);
        !(shown_current || building_current || ready_current || failed_current)
    }
}

/// The streamer's bookkeeping.
#[derive(Resource, Default)]
pub(crate) struct ChunkStreamer {
    chunks: HashMap<ChunkCoord, Slot>,
    retiring: Vec<(ChunkCoord, Entity)>,
    leaving: VecDeque<(ChunkCoord, Entity)>,
    layout: Option<ChunkLayout>,
    generation: u64,
    anchors: Vec<ChunkCoord>,
    view: (u32, u32),
    queue: VecDeque<ChunkCoord>,
    dirty: bool,
    mesh_bytes: HashMap<ChunkCoord, (usize, usize)>,
}

fn nearest_distance_squared(coord: ChunkCoord, anchors: &[ChunkCoord]) -> u64 {
    anchors
        .iter()
        .map(|a| coord.distance_squared(*a))
        .min()
        .unwrap_or(u64::MAX)
}

/// Decides which chunks should exist, sends the far ones away and starts builds nearest-first.
///
/// Like [`apply_chunks`] it runs on the main thread with the world to itself: the plugin's work
/// then happens in one stretch there, with no hand-offs between threads inside a frame.
pub(crate) fn stream_chunks(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<BiomeWorldAnchor>>,
) {
    let anchor_positions: Vec<Vec3> = anchors
        .iter(world)
        .map(GlobalTransform::translation)
        .collect();
    world.resource_scope(|world, mut streamer: Mut<ChunkStreamer>| {
        let state = world.resource::<BiomeWorldState>();
        let mesh_usage = world.resource::<ChunkMeshOptions>().usage();
        stream(&mut streamer, state, mesh_usage, &anchor_positions);
    });
}

fn stream(
    streamer: &mut ChunkStreamer,
    state: &BiomeWorldState,
    mesh_usage: RenderAssetUsages,
    anchors: &[Vec3],
) {
    let settings = &state.settings;
    let layout = settings.layout;
    if streamer.layout != Some(layout) {
        // Chunks of another layout cover other squares: keep them visible until the new layout
        // fills the view, then let them go.
        for (coord, slot) in streamer.chunks.drain() {
            if let Some(shown) = slot.shown {
                streamer.retiring.push((coord, shown.entity));
            }
        }
        streamer.mesh_bytes.clear();
        streamer.layout = Some(layout);
        streamer.dirty = true;
    }
    if streamer.generation != state.generation {
        // Builds from older settings are dropped, which cancels them.
        for slot in streamer.chunks.values_mut() {
            if slot
                .task
                .as_ref()
                .is_some_and(|t| t.generation != state.generation)
            {
                slot.task = None;
            }
            if slot
                .ready
                .as_ref()
                .is_some_and(|b| b.generation != state.generation)
            {
                slot.ready = None;
            }
        }
        streamer.generation = state.generation;
        streamer.dirty = true;
    }
    let mut here: Vec<ChunkCoord> = anchors
        .iter()
        .map(|p| ChunkCoord::containing(f64::from(p.x), f64::from(p.z), &layout))
        .collect();
    here.sort_unstable();
    here.dedup();
    let view = (
        state.streaming.view_radius,
        state.streaming.despawn_hysteresis,
    );
    if here != streamer.anchors || view != streamer.view {
        streamer.anchors = here;
        streamer.view = view;
        streamer.dirty = true;
    }

    if streamer.dirty {
        streamer.dirty = false;
        let radius = i64::from(view.0);
        let keep = u64::from(view.0 + view.1);
        let anchors = streamer.anchors.clone();
        let generation = streamer.generation;
        let leaving = &mut streamer.leaving;
        streamer.chunks.retain(|&coord, slot| {
            if nearest_distance_squared(coord, &anchors) <= keep * keep {
                return true;
            }
            // Despawned within the apply budget; dropping the slot drops its task, which
            // cancels the build.
            if let Some(shown) = slot.shown {
                leaving.push_back((coord, shown.entity));
            }
            false
        });
        streamer
            .mesh_bytes
            .retain(|coord, _| streamer.chunks.contains_key(coord));
        let mut wanted: Vec<(u64, ChunkCoord)> = Vec::new();
        for anchor in &anchors {
            for dz in -radius..=radius {
                for dx in -radius..=radius {
                    if dx * dx + dz * dz > radius * radius {
                        continue;
                    }
                    let (Ok(x), Ok(z)) = (
                        i32::try_from(i64::from(anchor.x) + dx),
                        i32::try_from(i64::from(anchor.z) + dz),
                    ) else {
                        continue;
                    };
                    let coord = ChunkCoord::new(x, z);
                    if streamer
                        .chunks
                        .get(&coord)
                        .is_none_or(|slot| slot.needs_build(generation))
                    {
                        wanted.push((nearest_distance_squared(coord, &anchors), coord));
                    }
                }
            }
        }
        // Chunks kept in the hysteresis ring are rebuilt too, after everything in view, so no
        // terrain of older settings lingers at the edge.
        for (&coord, slot) in &streamer.chunks {
            let distance = nearest_distance_squared(coord, &anchors);
            if distance > (radius * radius) as u64
                && slot.shown.is_some()
                && slot.needs_build(generation)
            {
                wanted.push((distance, coord));
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        streamer.queue = wanted.into_iter().map(|(_, coord)| coord).collect();
    }

    let mut in_flight = streamer
        .chunks
        .values()
        .filter(|s| s.task.is_some())
        .count();
    let pool = AsyncComputeTaskPool::get();
    while in_flight < state.streaming.max_tasks {
        let Some(coord) = streamer.queue.pop_front() else {
            break;
        };
        let generation = streamer.generation;
        let slot = streamer.chunks.entry(coord).or_default();
        if !slot.needs_build(generation) {
            continue;
        }
        let generator = state.generator.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let task = pool.spawn(async move {
            let started = Instant::now();
            run_build(|| {
                let data = generator.build_chunk_cancellable(coord, &layout, &flag)?;
                let mesh = chunk_mesh(&data, mesh_usage);
                Ok(BuiltChunk {
                    generation,
                    mesh,
                    below_sea: data.min_height < 0.0,
                    trees: data.trees,
                    build_ms: started.elapsed().as_secs_f32() * 1000.0,
                })
            })
        });
        slot.task = Some(BuildTask {
            generation,
            task,
            cancel,
        });
        in_flight += 1;
    }
}

/// Share of the last frame's time the apply step may take when that beats its budget.
const SLOW_FRAME_SHARE: f64 = 0.05;

/// Collects finished builds and turns them into entities nearest-first, and despawns chunks that
/// left, within the main-thread budget. It works on the world directly so that the budget counts
/// the spawning and despawning too; at least one chunk moves each frame.
pub(crate) fn apply_chunks(world: &mut World) {
    world.resource_scope(|world, mut streamer: Mut<ChunkStreamer>| {
        let started = Instant::now();
        let streamer = &mut *streamer;
        let Some(layout) = streamer.layout else {
            return;
        };
        let state = world.resource::<BiomeWorldState>();
        let generation = state.generation;
        // When frames are slow anyway (a software renderer, a debug build), a share of the frame
        // time keeps chunks coming without being noticed.
        let last_frame = world
            .get_resource::<Time<Real>>()
            .map_or(0.0, Time::delta_secs_f64);
        let budget = (f64::from(state.streaming.apply_budget_ms) / 1000.0)
            .max(last_frame * SLOW_FRAME_SHARE);
        let (water, trees) = (state.settings.water, state.settings.trees);

        let mut build_times = Vec::new();
        for (&coord, slot) in &mut streamer.chunks {
            let Some(outcome) = slot.task.as_mut().and_then(|t| check_ready(&mut t.task)) else {
                continue;
            };
            let task_generation = slot.task.take().map_or(0, |t| t.generation);
            // A build from older settings is never applied.
            if task_generation != generation {
                continue;
            }
            match outcome {
                BuildOutcome::Built(built) => {
                    build_times.push(built.build_ms);
                    slot.ready = Some(*built);
                }
                BuildOutcome::Failed(reason) => {
                    error!("biome world chunk {coord:?} failed to build: {reason}");
                    slot.failed = Some(generation);
                    world.write_message(ChunkFailed { coord, reason });
                }
                BuildOutcome::Cancelled => {}
            }
        }

        let mut done = 0;
        let spent = |done: usize| done > 0 && started.elapsed().as_secs_f64() >= budget;
        while !spent(done)
            && let Some((coord, entity)) = streamer.leaving.pop_front()
        {
            despawn_chunk(world, coord, entity);
            done += 1;
        }

        let mut ready: Vec<(u64, ChunkCoord)> = streamer
            .chunks
            .iter()
            .filter(|(_, slot)| slot.ready.is_some())
            .map(|(&coord, _)| (nearest_distance_squared(coord, &streamer.anchors), coord))
            .collect();
        ready.sort_unstable();
        for (_, coord) in ready {
            if spent(done) {
                break;
            }
            let slot = streamer.chunks.get_mut(&coord).expect("listed above");
            let built = slot.ready.take().expect("listed above");
            let tree_count = built.trees.len();
            let bytes = mesh_bytes(&built.mesh);
            let entity = spawn_chunk(world, coord, &layout, built, water, trees);
            let shown = Shown { entity, generation };
            if let Some(old) = slot.shown.replace(shown) {
                despawn_chunk(world, coord, old.entity);
            }
            world.write_message(ChunkSpawned { coord, entity });
            streamer.mesh_bytes.insert(coord, (bytes, tree_count));
            world.resource_mut::<BiomeWorldStats>().applied_total += 1;
            done += 1;
        }

        let in_flight = streamer
            .chunks
            .values()
            .filter(|s| s.task.is_some())
            .count();
        let waiting = streamer
            .chunks
            .values()
            .filter(|s| s.ready.is_some())
            .count();
        if streamer.queue.is_empty() && in_flight == 0 && waiting == 0 {
            // The new layout fills the view: the old one can go.
            while !spent(done)
                && let Some((coord, entity)) = streamer.retiring.pop()
            {
                despawn_chunk(world, coord, entity);
                done += 1;
            }
        }

        let mut stats = world.resource_mut::<BiomeWorldStats>();
        for ms in build_times {
            stats.build_times_ms.push_back(ms);
            if stats.build_times_ms.len() > 256 {
                stats.build_times_ms.pop_front();
            }
        }
        stats.loaded = streamer
            .chunks
            .values()
            .filter(|s| s.shown.is_some())
            .count();
        stats.failed = streamer
            .chunks
            .values()
            .filter(|s| s.failed == Some(generation))
            .count();
        stats.in_flight = in_flight;
        stats.ready = waiting;
        stats.queued = streamer.queue.len();
        stats.retiring = streamer.retiring.len();
        stats.leaving = streamer.leaving.len();
        let chunks = streamer.mesh_bytes.len().max(1);
        stats.mesh_bytes_per_chunk =
            streamer.mesh_bytes.values().map(|(b, _)| b).sum::<usize>() / chunks;
        stats.trees_per_chunk =
            streamer.mesh_bytes.values().map(|(_, t)| *t).sum::<usize>() as f32 / chunks as f32;
    });
}

/// Spawns a built chunk: the terrain entity with its water surface and trees as children.
fn spawn_chunk(
    world: &mut World,
    coord: ChunkCoord,
    layout: &ChunkLayout,
    built: BuiltChunk,
    water: bool,
    trees: bool,
) -> Entity {
    let origin = coord.origin(layout);
    let mesh = world.resource_mut::<Assets<Mesh>>().add(built.mesh);
    let terrain = world.resource::<ChunkAssets>().terrain.clone();
    let entity = world
        .spawn((
            BiomeChunk {
                coord,
                generation: built.generation,
            },
            Mesh3d(mesh),
            MeshMaterial3d(terrain),
            Transform::from_xyz(origin[0] as f32, 0.0, origin[1] as f32),
            Visibility::default(),
        ))
        .id();
    if water && built.below_sea {
        let (quad, material) = world.resource_scope(|world, mut assets: Mut<ChunkAssets>| {
            let quad = assets.water_quad(layout, &mut world.resource_mut::<Assets<Mesh>>());
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
    if trees && !built.trees.is_empty() {
        let tree_assets = world.resource::<TreeAssets>();
        let bundles: Vec<_> = built
            .trees
            .iter()
            .map(|tree| (tree_assets.bundle(tree), ChildOf(entity)))
            .collect();
        world.spawn_batch(bundles);
    }
    entity
}

/// Despawns a chunk entity with its children, and says so.
fn despawn_chunk(world: &mut World, coord: ChunkCoord, entity: Entity) {
    if let Ok(chunk) = world.get_entity_mut(entity) {
        chunk.despawn();
    }
    world.write_message(ChunkDespawned { coord, entity });
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
            generation: 0,
            task: pool.spawn(async { BuildOutcome::Cancelled }),
            cancel: cancel.clone(),
        };
        assert!(!cancel.load(Ordering::Relaxed));
        drop(task);
        assert!(cancel.load(Ordering::Relaxed));
    }
}
