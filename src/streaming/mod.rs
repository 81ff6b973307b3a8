//! Streaming: chunks within the view radius of every [`BiomeWorldAnchor`] are built nearest-first
//! on the async compute pool, applied as entities within a main-thread time budget, replaced
//! in place when the settings change, and despawned (their tasks dropped) beyond the radius plus
//! the hysteresis.

use std::collections::{HashMap, VecDeque};

use bevy::asset::RenderAssetUsages;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use biome_core::{ChunkCoord, ChunkLayout, TreeInstance};

use crate::chunk::{BiomeChunk, BiomeWater, ChunkAssets, chunk_mesh, mesh_bytes};
use crate::scatter::TreeAssets;
use crate::world::BiomeWorldState;

/// Chunks stream around every entity with this component (usually the camera). Several anchors
/// (split screen, a far-away quest marker) each keep their own circle of chunks loaded.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct BiomeWorldAnchor;

/// A chunk entity appeared: built for the first time, or rebuilt after a settings change (the
/// old entity's [`ChunkDespawned`] comes first, in the same frame).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSpawned {
    /// The chunk.
    pub coord: ChunkCoord,
    /// Its new entity.
    pub entity: Entity,
}

/// A chunk entity went away: out of range, replaced by a rebuild, or retired by a layout change.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkDespawned {
    /// The chunk.
    pub coord: ChunkCoord,
    /// The entity that was despawned.
    pub entity: Entity,
}

/// What the streamer is doing, for panels, benchmarks and tests.
#[derive(Resource, Clone, Debug, Default)]
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
    /// Chunks applied since start.
    pub applied_total: u64,
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
        self.in_flight == 0 && self.queued == 0 && self.ready == 0 && self.retiring == 0
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

#[derive(Default)]
struct Slot {
    /// The entity shown now, and the generation it was built from.
    shown: Option<(Entity, u64)>,
    /// The build under way, and its generation.
    task: Option<(u64, Task<BuiltChunk>)>,
    /// A finished build waiting for main-thread budget.
    ready: Option<BuiltChunk>,
}

impl Slot {
    fn needs_build(&self, generation: u64) -> bool {
        let shown_current = self.shown.is_some_and(|(_, g)| g == generation);
        let building_current = self.task.as_ref().is_some_and(|(g, _)| *g == generation);
        let ready_current = self
            .ready
            .as_ref()
            .is_some_and(|b| b.generation == generation);
        !(shown_current || building_current || ready_current)
    }
}

/// Build-time choices of [`crate::BiomeWorldPlugin`] that the streamer needs.
#[derive(Resource, Clone, Copy, Debug)]
pub(crate) struct StreamingOptions {
    /// Where chunk meshes live once uploaded.
    pub(crate) mesh_usage: RenderAssetUsages,
}

/// The streamer's bookkeeping.
#[derive(Resource, Default)]
pub(crate) struct ChunkStreamer {
    chunks: HashMap<ChunkCoord, Slot>,
    retiring: Vec<(ChunkCoord, Entity)>,
    layout: Option<ChunkLayout>,
    generation: u64,
    anchors: Vec<ChunkCoord>,
    view: (u32, u32),
    queue: VecDeque<ChunkCoord>,
    dirty: bool,
    mesh_bytes: HashMap<ChunkCoord, (usize, usize)>,
}

fn nearest_distance_squared(coord: ChunkCoord, anchors: &[ChunkCoord]) -> i64 {
    anchors
        .iter()
        .map(|a| coord.distance_squared(*a))
        .min()
        .unwrap_or(i64::MAX)
}

/// Decides which chunks should exist, despawns the far ones and starts builds nearest-first.
pub(crate) fn stream_chunks(
    mut commands: Commands,
    state: Res<BiomeWorldState>,
    anchors: Query<&GlobalTransform, With<BiomeWorldAnchor>>,
    options: Res<StreamingOptions>,
    mut streamer: ResMut<ChunkStreamer>,
    mut despawned: MessageWriter<ChunkDespawned>,
) {
    let streamer = &mut *streamer;
    let settings = &state.settings;
    let layout = settings.layout;
    let mesh_usage = options.mesh_usage;
    if streamer.layout != Some(layout) {
        // Chunks of another layout cover other squares: keep them visible until the new layout
        // fills the view, then let them go.
        for (coord, slot) in streamer.chunks.drain() {
            if let Some((entity, _)) = slot.shown {
                streamer.retiring.push((coord, entity));
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
                .is_some_and(|(g, _)| *g != state.generation)
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
        .map(|t| {
            let p = t.translation();
            ChunkCoord::containing(f64::from(p.x), f64::from(p.z), &layout)
        })
        .collect();
    here.sort_unstable();
    here.dedup();
    let view = (settings.view_radius, settings.despawn_hysteresis);
    if here != streamer.anchors || view != streamer.view {
        streamer.anchors = here;
        streamer.view = view;
        streamer.dirty = true;
    }

    if streamer.dirty {
        streamer.dirty = false;
        let radius = i64::from(view.0);
        let keep = radius + i64::from(view.1);
        let anchors = streamer.anchors.clone();
        let generation = streamer.generation;
        streamer.chunks.retain(|&coord, slot| {
            if nearest_distance_squared(coord, &anchors) <= keep * keep {
                return true;
            }
            if let Some((entity, _)) = slot.shown {
                commands.entity(entity).despawn();
                despawned.write(ChunkDespawned { coord, entity });
            }
            // Dropping the slot drops its task, which cancels the build.
            false
        });
        streamer
            .mesh_bytes
            .retain(|coord, _| streamer.chunks.contains_key(coord));
        let mut wanted: Vec<(i64, ChunkCoord)> = Vec::new();
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
            if distance > radius * radius && slot.shown.is_some() && slot.needs_build(generation) {
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
    while in_flight < settings.max_tasks {
        let Some(coord) = streamer.queue.pop_front() else {
            break;
        };
        let generation = streamer.generation;
        let slot = streamer.chunks.entry(coord).or_default();
        if !slot.needs_build(generation) {
            continue;
        }
        let world = state.world.clone();
        let task = pool.spawn(async move {
            let started = Instant::now();
            let data = world.build_chunk(coord, &layout);
            let mesh = chunk_mesh(&data, mesh_usage);
            BuiltChunk {
                generation,
                mesh,
                below_sea: data.min_height < 0.0,
                trees: data.trees,
                build_ms: started.elapsed().as_secs_f32() * 1000.0,
            }
        });
        slot.task = Some((generation, task));
        in_flight += 1;
    }
}

/// Collects finished builds and turns them into entities, nearest first, within the budget.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_chunks(
    mut commands: Commands,
    state: Res<BiomeWorldState>,
    mut streamer: ResMut<ChunkStreamer>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut chunk_assets: ResMut<ChunkAssets>,
    tree_assets: Res<TreeAssets>,
    mut spawned: MessageWriter<ChunkSpawned>,
    mut despawned: MessageWriter<ChunkDespawned>,
    mut stats: ResMut<BiomeWorldStats>,
) {
    let started = Instant::now();
    let settings = &state.settings;
    let streamer = &mut *streamer;
    let Some(layout) = streamer.layout else {
        return;
    };
    for slot in streamer.chunks.values_mut() {
        if let Some((_, task)) = &mut slot.task
            && let Some(built) = check_ready(task)
        {
            slot.task = None;
            // A build from older settings is never applied.
            if built.generation == state.generation {
                stats.build_times_ms.push_back(built.build_ms);
                if stats.build_times_ms.len() > 256 {
                    stats.build_times_ms.pop_front();
                }
                slot.ready = Some(built);
            }
        }
    }

    let mut ready: Vec<(i64, ChunkCoord)> = streamer
        .chunks
        .iter()
        .filter(|(_, slot)| slot.ready.is_some())
        .map(|(&coord, _)| (nearest_distance_squared(coord, &streamer.anchors), coord))
        .collect();
    ready.sort_unstable();
    let budget = f64::from(settings.apply_budget_ms) / 1000.0;
    for (applied, (_, coord)) in ready.into_iter().enumerate() {
        if applied > 0 && started.elapsed().as_secs_f64() >= budget {
            break;
        }
        let slot = streamer.chunks.get_mut(&coord).expect("listed above");
        let built = slot.ready.take().expect("listed above");
        let origin = coord.origin(&layout);
        let bytes = mesh_bytes(&built.mesh);
        let entity = commands
            .spawn((
                BiomeChunk {
                    coord,
                    generation: built.generation,
                },
                Mesh3d(meshes.add(built.mesh)),
                MeshMaterial3d(chunk_assets.terrain.clone()),
                Transform::from_xyz(origin[0] as f32, 0.0, origin[1] as f32),
                Visibility::default(),
            ))
            .id();
        if settings.water && built.below_sea {
            let quad = chunk_assets.water_quad(&layout, &mut meshes);
            commands.spawn((
                BiomeWater,
                Mesh3d(quad),
                MeshMaterial3d(chunk_assets.water.clone()),
                Transform::IDENTITY,
                ChildOf(entity),
            ));
        }
        if settings.trees && !built.trees.is_empty() {
            let trees: Vec<_> = built
                .trees
                .iter()
                .map(|tree| (tree_assets.bundle(tree), ChildOf(entity)))
                .collect();
            commands.spawn_batch(trees);
        }
        if let Some((old, _)) = slot.shown.replace((entity, built.generation)) {
            commands.entity(old).despawn();
            despawned.write(ChunkDespawned { coord, entity: old });
        }
        spawned.write(ChunkSpawned { coord, entity });
        streamer
            .mesh_bytes
            .insert(coord, (bytes, built.trees.len()));
        stats.applied_total += 1;
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
        for (coord, entity) in streamer.retiring.drain(..) {
            commands.entity(entity).despawn();
            despawned.write(ChunkDespawned { coord, entity });
        }
    }

    stats.loaded = streamer
        .chunks
        .values()
        .filter(|s| s.shown.is_some())
        .count();
    stats.in_flight = in_flight;
    stats.ready = waiting;
    stats.queued = streamer.queue.len();
    stats.retiring = streamer.retiring.len();
    let chunks = streamer.mesh_bytes.len().max(1);
    stats.mesh_bytes_per_chunk =
        streamer.mesh_bytes.values().map(|(b, _)| b).sum::<usize>() / chunks;
    stats.trees_per_chunk =
        streamer.mesh_bytes.values().map(|(_, t)| *t).sum::<usize>() as f32 / chunks as f32;
}
