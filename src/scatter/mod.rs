//! Rocks, bushes and grass ([`biome_core::scatter`]) streamed around the anchors: each
//! [`ScatterKind`] is a layer of the one streamer, with full detail out to that kind's radius
//! ([`BiomeScatterSettings`]). A chunk's objects are placed off the main thread
//! ([`biome_core::WorldGenerator::scatter_in_rect`]), none while terrain builds wait for a task
//! (the ground first), spawned hidden a slice at a time as children of one [`BiomeScatter`]
//! entity per chunk and kind, shown when all are in, and despawned a slice at a time. Settings
//! changes rebuild them; the old ones stay until their replacements are in.

mod objects;
mod plugin;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy::diagnostic::DiagnosticPath;
use bevy::prelude::*;
use biome_core::SettingsError;
use biome_core::check::Check;
use biome_core::scatter::{ScatterInstance, ScatterKind};
use biome_core::{ChunkCoord, ChunkError, ChunkLayout};

use objects::take_scatter_models;
pub use objects::{BiomeScatterObject, ScatterModels};
pub use plugin::BiomeScatterPlugin;

use crate::models::spawn_instances;
use crate::settings::BiomeWorldState;
use crate::stream::{BuildKey, KindDiagnostics, LodConfig, StreamKind};

/// The kinds of scattered objects.
const KINDS: usize = ScatterKind::ALL.len();

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
        settings: &biome_core::WorldSettings,
        layout: &ChunkLayout,
    ) -> Result<(), SettingsError> {
        let check = Check::at("scatter");
        for (k, &radius) in self.radii.iter().enumerate() {
            check.range_in(
                &format!("radii[{k}]"),
                radius,
                &Self::RADIUS,
                " world units",
            )?;
        }
        check.range("hysteresis", self.hysteresis, &Self::HYSTERESIS)?;
        check.range_in(
            "apply_budget_ms",
            self.apply_budget_ms,
            &Self::APPLY_BUDGET_MS,
            " ms",
        )?;
        check.whole("max_tasks", self.max_tasks, &Self::MAX_TASKS)?;
        for kind in ScatterKind::ALL {
            let narrowest = settings
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
                return check.fail(
                    &format!("radii[{}]", kind.index()),
                    format!(
                        "about {objects:.0} {kind:?} objects around an anchor, over the {} \
                         limit: lower the radius (or widen the spacing)",
                        Self::MAX_OBJECTS
                    ),
                );
            }
        }
        Ok(())
    }

    /// The planner's view for `kind`: full detail out to its radius.
    #[must_use]
    pub(crate) fn lod(&self, kind: ScatterKind, layout: ChunkLayout) -> LodConfig {
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
    /// Chunks whose placement failed at the current settings (not retried until they change;
    /// the failures are logged).
    pub failed: usize,
    /// Main-thread time of the last frame's planning and task starts.
    pub stream_time: Duration,
    /// Main-thread time of the last frame's spawning and despawning.
    pub apply_time: Duration,
    /// Why the latest [`BiomeScatterSettings`] were refused, if they were.
    pub error: Option<String>,
}

impl BiomeScatterStats {
    /// [`DiagnosticsStore`](bevy::diagnostic::DiagnosticsStore) path of
    /// [`BiomeScatterStats::stream_time`], milliseconds.
    pub const STREAM_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/scatter/stream_time");
    /// Diagnostics path of [`BiomeScatterStats::apply_time`], milliseconds.
    pub const APPLY_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/scatter/apply_time");
    /// Diagnostics path of each chunk placement's time off the main thread, milliseconds (the
    /// last 256 kept).
    pub const BUILD_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/scatter/build_time");
    /// Diagnostics path of the chunks carrying objects, all kinds together.
    pub const CHUNKS: &DiagnosticPath = &DiagnosticPath::const_new("biome_world/scatter/chunks");

    pub(crate) const DIAGNOSTICS: KindDiagnostics = KindDiagnostics {
        stream_time: Self::STREAM_TIME,
        apply_time: Self::APPLY_TIME,
        build_time: Self::BUILD_TIME,
        shown: Self::CHUNKS,
    };

    /// Whether nothing is under way: every wanted chunk carries its objects and nothing waits to
    /// go.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0 && self.queued == 0 && self.ready == 0 && self.retiring == 0
    }
}

/// One chunk's objects of one kind, placed off the main thread, relative to its origin.
pub(crate) struct Placed(Vec<ScatterInstance>);

/// The objects of one kind on one chunk: their parent entity, and the objects still to spawn
/// under it.
pub(crate) struct ScatterChunk {
    parent: Entity,
    /// The objects not spawned yet.
    objects: Vec<ScatterInstance>,
    /// The objects spawned, to despawn a slice at a time.
    spawned: Vec<Entity>,
}

/// Objects spawn and despawn this many at a time, so a chunk of grass (a thousand tufts) does
/// not hold a frame for a millisecond or more.
const SLICE: usize = 128;

/// One kind of scattered objects as a kind of the streamer.
pub(crate) struct ScatterLayer {
    kind: ScatterKind,
}

impl StreamKind for ScatterLayer {
    type Built = Placed;
    type Node = ScatterChunk;

    fn build(
        &mut self,
        world: &mut World,
        key: BuildKey,
    ) -> impl FnOnce(&AtomicBool) -> Result<Placed, ChunkError> + Send + 'static {
        let state = world.resource::<BiomeWorldState>();
        let (generator, layout, kind) = (
            state.generator().clone(),
            state.settings().layout,
            self.kind,
        );
        move |_: &AtomicBool| {
            let origin = key.node.origin(&layout);
            let size = key.node.size(&layout);
            let objects = generator
                .scatter_in_rect(kind, origin, [origin[0] + size, origin[1] + size])?
                .iter()
                .map(|object| object.relative_to(origin))
                .collect();
            Ok(Placed(objects))
        }
    }

    fn spawn(&mut self, world: &mut World, key: BuildKey, built: Placed) -> ScatterChunk {
        let state = world.resource::<BiomeWorldState>();
        let (layout, generation) = (state.settings().layout, state.generation());
        let origin = key.node.origin(&layout);
        let parent = world
            .spawn((
                BiomeScatter {
                    chunk: ChunkCoord::new(key.node.x, key.node.z),
                    kind: self.kind,
                    generation,
                    objects: built.0.len(),
                },
                Transform::from_xyz(origin[0] as f32, 0.0, origin[1] as f32),
                Visibility::Hidden,
            ))
            .id();
        ScatterChunk {
            parent,
            spawned: Vec::with_capacity(built.0.len()),
            objects: built.0,
        }
    }

    fn spawn_part(&mut self, world: &mut World, chunk: &mut ScatterChunk) -> bool {
        let from = chunk.objects.len().saturating_sub(SLICE);
        let slice = chunk.objects.split_off(from);
        if world.get_entity(chunk.parent).is_ok()
            && let Some(models) = world.get_resource::<ScatterModels>()
        {
            let models = models.clone();
            let instances = slice.iter().map(|object| models.instance(object));
            chunk
                .spawned
                .extend(spawn_instances(world, chunk.parent, instances));
        }
        chunk.objects.is_empty()
    }

    fn root(chunk: &ScatterChunk) -> Entity {
        chunk.parent
    }

    fn show(&mut self, world: &mut World, _key: BuildKey, chunk: &mut ScatterChunk, _fade: bool) {
        world.entity_mut(chunk.parent).insert(Visibility::Inherited);
    }

    fn hide(&mut self, world: &mut World, chunk: &mut ScatterChunk) {
        if let Ok(mut entity) = world.get_entity_mut(chunk.parent) {
            entity.insert(Visibility::Hidden);
        }
    }

    fn despawn_part(
        &mut self,
        world: &mut World,
        _key: BuildKey,
        chunk: &mut ScatterChunk,
    ) -> bool {
        let from = chunk.spawned.len().saturating_sub(SLICE);
        for object in chunk.spawned.drain(from..) {
            if let Ok(entity) = world.get_entity_mut(object) {
                entity.despawn();
            }
        }
        let done = chunk.spawned.is_empty();
        if done && let Ok(entity) = world.get_entity_mut(chunk.parent) {
            entity.despawn();
        }
        done
    }

    fn failed(&mut self, _world: &mut World, key: BuildKey, reason: &str) {
        warn!(
            "biome world {:?} objects of chunk ({}, {}) failed: {reason}",
            self.kind, key.node.x, key.node.z
        );
    }
}
