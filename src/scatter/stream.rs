//! Streaming scattered objects around the anchors: for each kind, a [`ChunkPlanner`] at full
//! detail out to that kind's radius says which chunks carry it; their objects are placed off the
//! main thread ([`biome_core::WorldGenerator::scatter_in_rect`]), none while terrain builds wait
//! for a task (the ground first), and spawned within a budget as children of one
//! [`BiomeScatter`] entity per chunk and kind, which leaves with everything on it. Settings
//! changes rebuild them; the old ones stay until their replacements are in.

use std::sync::Arc;

use std::collections::VecDeque;

use bevy::platform::collections::{HashMap, HashSet};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use biome_core::scatter::{ScatterInstance, ScatterKind};
use biome_core::world::SettingsError;
use biome_core::{ChunkCoord, ChunkLayout, WorldGenerator};

use super::objects::ScatterAssets;

/// The kinds of scattered objects.
const KINDS: usize = ScatterKind::ALL.len();
use crate::streaming::{BuildKey, ChunkPlanner, LodConfig};
use crate::world::BiomeWorldState;
use crate::world::check_range;

/// How far scattered objects reach around every [`crate::BiomeWorldAnchor`], and what they may
/// cost. Changes apply at once: chunks gain or lose objects as the radii say. Refused values
/// (see [`BiomeScatterStats::error`]) leave the last valid ones in use.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeScatterSettings {
    /// Whether objects are spawned at all (the world still places them; see
    /// `WorldSettings::scatter`).
    pub enabled: bool,
    /// Chunks within this distance of an anchor carry objects of each kind, world units,
    /// indexed by [`ScatterKind::index`] (rocks, bushes, grass); 0 spawns none of that kind.
    pub radii: [f32; KINDS],
    /// Objects stay until their anchor is this share of the radius farther, so an anchor
    /// hovering at the edge does not churn.
    pub hysteresis: f32,
    /// At most this many chunks are placed at once, per kind.
    pub max_tasks: usize,
    /// Main-thread time per frame for spawning and despawning objects, milliseconds; at least
    /// one chunk's objects move per frame.
    pub apply_budget_ms: f32,
}

impl Default for BiomeScatterSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            radii: [192.0, 128.0, 72.0],
            hysteresis: 0.25,
            max_tasks: 4,
            apply_budget_ms: 0.4,
        }
    }
}

impl BiomeScatterSettings {
    /// Accepted radii, world units.
    pub const RADIUS: std::ops::RangeInclusive<f32> = 0.0..=1024.0;
    /// Accepted [`BiomeScatterSettings::hysteresis`].
    pub const HYSTERESIS: std::ops::RangeInclusive<f32> = 0.0..=1.0;
    /// Accepted [`BiomeScatterSettings::max_tasks`].
    pub const MAX_TASKS: std::ops::RangeInclusive<usize> = 1..=64;
    /// Accepted [`BiomeScatterSettings::apply_budget_ms`].
    pub const APPLY_BUDGET_MS: std::ops::RangeInclusive<f32> = 0.0..=100.0;
    /// The most objects of one kind an anchor may keep about it (estimated from the radius and
    /// the kind's narrowest spacing): each is an entity.
    pub const MAX_OBJECTS: f64 = 60_000.0;

    /// The radius of `kind`.
    #[must_use]
    pub fn radius(&self, kind: ScatterKind) -> f32 {
        self.radii[kind.index()]
    }

    /// Checks every value against its range, and the objects one anchor keeps in `world`'s
    /// densest biome for each kind (as packed as Poisson-disk sets get, about 0.7 per square of
    /// the spacing) with `layout`'s chunks.
    ///
    /// # Errors
    /// The first value out of range, by field path (`scatter.radii[2]`...).
    pub fn validate_with(
        &self,
        world: &biome_core::WorldSettings,
        layout: &ChunkLayout,
    ) -> Result<(), SettingsError> {
        for (k, &radius) in self.radii.iter().enumerate() {
            check_range(&format!("scatter.radii[{k}]"), radius, &Self::RADIUS, "")?;
        }
        check_range("scatter.hysteresis", self.hysteresis, &Self::HYSTERESIS, "")?;
        check_range(
            "scatter.apply_budget_ms",
            self.apply_budget_ms,
            &Self::APPLY_BUDGET_MS,
            "",
        )?;
        check_range("scatter.max_tasks", self.max_tasks, &Self::MAX_TASKS, "")?;
        for kind in ScatterKind::ALL {
            let narrowest = world
                .biome_table
                .biomes
                .iter()
                .flat_map(|b| &b.scatter)
                .filter(|s| s.kind == kind)
                .map(|s| s.spacing)
                .fold(f64::INFINITY, f64::min);
            // The chunks kept reach about a chunk past the radius.
            let reach = f64::from(self.radius(kind)) + layout.chunk_size();
            let objects = std::f64::consts::PI * reach * reach / (1.4 * narrowest * narrowest);
            if self.radius(kind) > 0.0 && objects > Self::MAX_OBJECTS {
                return Err(SettingsError {
                    field: format!("scatter.radii[{}]", kind.index()),
                    reason: format!(
                        "about {objects:.0} {kind:?} objects around an anchor, over the {} \
                         limit: lower the radius (or widen the spacing)",
                        Self::MAX_OBJECTS
                    ),
                });
            }
        }
        Ok(())
    }

    /// The planner's view for `kind`: full detail out to its radius.
    #[must_use]
    pub fn lod(&self, kind: ScatterKind, layout: ChunkLayout) -> LodConfig {
        let radius = f64::from(self.radius(kind));
        LodConfig {
            layout,
            detail_radius: radius,
            horizon: radius,
            hysteresis: f64::from(self.hysteresis),
        }
    }
}

/// The objects of one kind on one chunk: their parent entity, at the chunk's origin.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct BiomeScatter {
    /// The chunk.
    pub chunk: ChunkCoord,
    /// What its children are.
    pub kind: ScatterKind,
    /// The settings generation they were placed with.
    pub generation: u64,
    /// How many there are.
    pub objects: usize,
}

/// What the scattered objects cost, updated every frame.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeScatterStats {
    /// Chunks carrying objects, per kind.
    pub chunks: [usize; KINDS],
    /// Objects alive, per kind.
    pub objects: [usize; KINDS],
    /// Chunks being placed.
    pub in_flight: usize,
    /// Chunks wanted and waiting for a task.
    pub queued: usize,
    /// Chunks placed and waiting to be spawned.
    pub ready: usize,
    /// Chunks of objects to despawn.
    pub retiring: usize,
    /// Placement times of the latest chunks, milliseconds (newest last, at most 256).
    pub build_times_ms: std::collections::VecDeque<f32>,
    /// Main-thread time of the last frame's spawning and despawning, milliseconds.
    pub apply_ms: f32,
    /// Why the latest [`BiomeScatterSettings`] were refused, if they were.
    pub error: Option<String>,
}

impl BiomeScatterStats {
    /// Whether nothing is under way: every wanted chunk carries its objects and nothing waits to
    /// go.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0 && self.queued == 0 && self.ready == 0 && self.retiring == 0
    }
}

/// One chunk's objects of one kind, placed off the main thread.
struct Placed {
    objects: Vec<ScatterInstance>,
    build_ms: f32,
}

/// The planner and builds of one kind.
#[derive(Default)]
struct KindStreamer {
    planner: ChunkPlanner,
    tasks: HashMap<BuildKey, Task<Placed>>,
    ready: HashMap<BuildKey, Placed>,
    /// Chunks whose objects are all in, by their parent entity.
    shown: HashMap<BuildKey, Entity>,
    /// Spawning and despawning under way, a slice of objects at a time.
    work: VecDeque<Work>,
}

/// Objects spawn and despawn [`SLICE`] at a time, so a chunk of grass (a thousand tufts) does
/// not hold a frame for a millisecond or more.
const SLICE: usize = 128;

/// A chunk's objects going in or out over some frames.
enum Work {
    /// Into `parent`, from `next` on; the planner hears of the chunk when all are in.
    Spawn {
        key: BuildKey,
        parent: Entity,
        objects: Vec<ScatterInstance>,
        next: usize,
    },
    /// Out of `parent` (hidden already), which goes last.
    Despawn {
        parent: Entity,
        objects: Vec<Entity>,
    },
}

/// The scatter settings asked for, with what they were checked against.
#[derive(Clone, Debug, PartialEq)]
struct SettingsRequest {
    settings: BiomeScatterSettings,
    generation: u64,
    layout: ChunkLayout,
}

#[derive(Resource, Default)]
pub(crate) struct ScatterStreamer {
    request: Option<SettingsRequest>,
    /// The settings in use: the last valid ones.
    settings: Option<BiomeScatterSettings>,
    kinds: [KindStreamer; KINDS],
}

impl ScatterStreamer {
    /// Checks a new request: valid settings replace those in use; otherwise the ones in use stay
    /// if they are still valid with the world, else the defaults do if they are.
    fn take_request(
        &mut self,
        request: SettingsRequest,
        generator: &WorldGenerator,
        stats: &mut BiomeScatterStats,
    ) {
        if self.request.as_ref() == Some(&request) {
            return;
        }
        let world = generator.settings();
        match request.settings.validate_with(world, &request.layout) {
            Ok(()) => {
                self.settings = Some(request.settings.clone());
                stats.error = None;
            }
            Err(error) => {
                let reason = error.to_string();
                warn!("biome world scatter refused, keeping the last valid: {reason}");
                stats.error = Some(reason);
                let fallback = self.settings.take().unwrap_or_default();
                self.settings = fallback
                    .validate_with(world, &request.layout)
                    .is_ok()
                    .then_some(fallback);
            }
        }
        self.request = Some(request);
    }
}

/// Feeds each kind's planner the anchors, drops placements no longer wanted and starts wanted
/// ones, nearest first.
pub(crate) fn stream_scatter(
    world: &mut World,
    anchors: &mut QueryState<&GlobalTransform, With<crate::BiomeWorldAnchor>>,
) {
    let points = crate::streaming::anchor_points(world, anchors);
    world.resource_scope(|world, mut streamer: Mut<ScatterStreamer>| {
        let state = world.resource::<BiomeWorldState>();
        let (generator, layout, epoch) = (
            Arc::clone(&state.generator),
            state.settings.layout,
            state.generation,
        );
        let request = SettingsRequest {
            settings: world.resource::<BiomeScatterSettings>().clone(),
            generation: epoch,
            layout,
        };
        // The ground comes first: objects start placing once the terrain has nothing waiting.
        let terrain = world.resource::<crate::BiomeWorldStats>();
        let ground_first = terrain.queued > 0;
        let mut stats = world.resource_mut::<BiomeScatterStats>();
        streamer.take_request(request, &generator, &mut stats);
        let settings = streamer.settings.clone();
        let pool = AsyncComputeTaskPool::get();
        for kind in ScatterKind::ALL {
            let streamer = &mut streamer.kinds[kind.index()];
            // Objects of a kind turned off (or refused settings) all go.
            let active = settings
                .as_ref()
                .filter(|s| s.enabled && s.radius(kind) > 0.0);
            let anchors: &[[f64; 2]] = if active.is_some() { &points } else { &[] };
            let lod = active.map_or_else(
                || BiomeScatterSettings::default().lod(kind, layout),
                |s| s.lod(kind, layout),
            );
            // Entities game code despawned are placed again.
            let lost: Vec<BuildKey> = streamer
                .shown
                .iter()
                .filter(|(_, entity)| world.get_entity(**entity).is_err())
                .map(|(&key, _)| key)
                .collect();
            for key in lost {
                streamer.shown.remove(&key);
                streamer.planner.hidden(&key);
            }
            streamer.planner.update(anchors, &lod, epoch);
            let KindStreamer {
                planner,
                tasks,
                ready,
                ..
            } = streamer;
            tasks.retain(|key, _| planner.wants(key));
            ready.retain(|key, _| planner.wants(key));
            let Some(settings) = active.filter(|_| !ground_first) else {
                continue;
            };
            let starts: Vec<BuildKey> = planner
                .plan()
                .build
                .iter()
                .filter(|key| !tasks.contains_key(*key) && !ready.contains_key(*key))
                .take(settings.max_tasks.saturating_sub(tasks.len()))
                .copied()
                .collect();
            for key in starts {
                let generator = Arc::clone(&generator);
                let task = pool.spawn(async move { place(&generator, kind, key, &layout) });
                tasks.insert(key, task);
            }
        }
    });
}

/// The objects of `kind` on the chunk of `key`, relative to its origin.
fn place(
    generator: &WorldGenerator,
    kind: ScatterKind,
    key: BuildKey,
    layout: &ChunkLayout,
) -> Placed {
    let started = Instant::now();
    let origin = key.node.origin(layout);
    let size = key.node.size(layout);
    let objects = generator
        .scatter_in_rect(kind, origin, [origin[0] + size, origin[1] + size])
        .iter()
        .map(|object| object.relative_to(origin))
        .collect();
    Placed {
        objects,
        build_ms: started.elapsed().as_secs_f32() * 1000.0,
    }
}

/// Collects finished placements, hides what the planners retire and shows ready chunks of
/// objects, nearest first, spawning and despawning a slice of objects at a time within the
/// budget (at least one slice a frame).
pub(crate) fn apply_scatter(world: &mut World) {
    world.resource_scope(|world, mut streamer: Mut<ScatterStreamer>| {
        let started = Instant::now();
        let budget = streamer
            .settings
            .as_ref()
            .map_or(0.0, |s| f64::from(s.apply_budget_ms) / 1000.0);
        let state = world.resource::<BiomeWorldState>();
        let (generation, layout) = (state.generation, state.settings.layout);
        let mut done = 0;
        let spent = |done: usize| done > 0 && started.elapsed().as_secs_f64() >= budget;
        let mut build_times = Vec::new();
        let mut counts = (0, 0, 0, 0);
        for kind in ScatterKind::ALL {
            let KindStreamer {
                planner,
                tasks,
                ready,
                shown,
                work,
            } = &mut streamer.kinds[kind.index()];
            tasks.retain(|&key, task| match check_ready(task) {
                Some(placed) => {
                    build_times.push(placed.build_ms);
                    ready.insert(key, placed);
                    false
                }
                None => true,
            });
            // Retired chunks vanish at once (hidden) and leave slice by slice.
            for key in planner.plan().retire.clone() {
                if let Some(parent) = shown.remove(&key) {
                    planner.hidden(&key);
                    if let Ok(mut entity) = world.get_entity_mut(parent) {
                        entity.insert(Visibility::Hidden);
                    }
                    let objects = world
                        .get::<Children>(parent)
                        .map(|children| children.to_vec())
                        .unwrap_or_default();
                    work.push_back(Work::Despawn { parent, objects });
                }
            }
            // Ready chunks start spawning, nearest first: the parent now, the objects after.
            let order: Vec<BuildKey> = planner
                .plan()
                .build
                .iter()
                .filter(|key| ready.contains_key(*key))
                .copied()
                .collect();
            for key in order {
                let placed = ready.remove(&key).expect("listed above");
                let origin = key.node.origin(&layout);
                let parent = world
                    .spawn((
                        BiomeScatter {
                            chunk: ChunkCoord::new(key.node.x, key.node.z),
                            kind,
                            generation,
                            objects: placed.objects.len(),
                        },
                        Transform::from_xyz(origin[0] as f32, 0.0, origin[1] as f32),
                        Visibility::default(),
                    ))
                    .id();
                work.push_back(Work::Spawn {
                    key,
                    parent,
                    objects: placed.objects,
                    next: 0,
                });
            }
            while !spent(done) {
                let Some(job) = work.front_mut() else {
                    break;
                };
                // A chunk no longer wanted before its objects are all in goes whole.
                if let Work::Spawn { key, parent, .. } = job
                    && !planner.wants(key)
                {
                    if let Ok(entity) = world.get_entity_mut(*parent) {
                        entity.despawn();
                    }
                    work.pop_front();
                    done += 1;
                    continue;
                }
                let finished = match job {
                    Work::Spawn {
                        key,
                        parent,
                        objects,
                        next,
                    } => {
                        let end = (*next + SLICE).min(objects.len());
                        if world.get_entity(*parent).is_ok() {
                            let assets = world.resource::<ScatterAssets>();
                            let bundles: Vec<_> = objects[*next..end]
                                .iter()
                                .map(|object| (assets.bundle(object), ChildOf(*parent)))
                                .collect();
                            world.spawn_batch(bundles);
                        }
                        *next = end;
                        let finished = end == objects.len();
                        if finished {
                            shown.insert(*key, *parent);
                            planner.shown(*key);
                        }
                        finished
                    }
                    Work::Despawn { parent, objects } => {
                        let from = objects.len().saturating_sub(SLICE);
                        for object in objects.drain(from..) {
                            if let Ok(entity) = world.get_entity_mut(object) {
                                entity.despawn();
                            }
                        }
                        let finished = objects.is_empty();
                        if finished && let Ok(entity) = world.get_entity_mut(*parent) {
                            entity.despawn();
                        }
                        finished
                    }
                };
                if finished {
                    work.pop_front();
                }
                done += 1;
            }
            let in_hand: HashSet<BuildKey> = tasks.keys().chain(ready.keys()).copied().collect();
            let spawning = work
                .iter()
                .filter(|job| matches!(job, Work::Spawn { .. }))
                .count();
            counts.0 += tasks.len();
            counts.1 += ready.len() + spawning;
            counts.2 += planner
                .plan()
                .build
                .iter()
                .filter(|key| !in_hand.contains(*key) && !shown.contains_key(*key))
                .filter(|key| {
                    !work
                        .iter()
                        .any(|job| matches!(job, Work::Spawn { key: k, .. } if k == *key))
                })
                .count();
            counts.3 += work.len() - spawning;
        }
        let per_kind: Vec<(usize, usize)> = streamer
            .kinds
            .iter()
            .map(|k| {
                let objects = k
                    .shown
                    .values()
                    .filter_map(|&e| world.get::<BiomeScatter>(e))
                    .map(|s| s.objects)
                    .sum();
                (k.shown.len(), objects)
            })
            .collect();
        let mut stats = world.resource_mut::<BiomeScatterStats>();
        for (k, (chunks, objects)) in per_kind.into_iter().enumerate() {
            stats.chunks[k] = chunks;
            stats.objects[k] = objects;
        }
        (stats.in_flight, stats.ready, stats.queued, stats.retiring) = counts;
        for ms in build_times {
            stats.build_times_ms.push_back(ms);
            if stats.build_times_ms.len() > 256 {
                stats.build_times_ms.pop_front();
            }
        }
        stats.apply_ms = started.elapsed().as_secs_f32() * 1000.0;
    });
}
