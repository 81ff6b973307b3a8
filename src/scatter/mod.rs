//! The scatter layers ([`biome_core::scatter`]: the built-in rocks, bushes and grass, and a
//! game's own loot, ore, herbs or spawn points) streamed around the anchors: each layer is a kind
//! of the one streamer, with full detail out to its radius ([`BiomeScatterSettings`]). A chunk's
//! objects are placed off the main thread ([`biome_core::WorldGenerator::scatter_in_rect`]), none
//! while terrain builds wait for a task (the ground first), spawned hidden a slice at a time as
//! children of one [`BiomeScatter`] entity per chunk and layer (for layers with a look in
//! [`ScatterModels`]), shown when all are in, and despawned a slice at a time. Game code hears
//! of every object as it comes and goes ([`ScatterSpawned`], [`ScatterDespawned`]). Settings
//! changes rebuild them; the old ones stay until their replacements are in.

mod objects;
mod plugin;
mod presence;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy::diagnostic::DiagnosticPath;
use bevy::math::DVec3;
use bevy::prelude::*;
use biome_core::SettingsError;
use biome_core::check::Check;
use biome_core::cover::LayerName;
use biome_core::scatter::{ScatterInstance, ScatterLayer};
use biome_core::{ChunkCoord, ChunkError, ChunkLayout};

use objects::take_scatter_models;
pub use objects::{BiomeScatterObject, ScatterModels};
pub use plugin::BiomeScatterPlugin;
pub use presence::{ScatterDespawned, ScatterSpawned};
use presence::{ScatterPresence, Shown};

use crate::models::spawn_instances;
use crate::origin::WorldFrame;
use crate::settings::BiomeWorldState;
use crate::stream::{BuildKey, KindDiagnostics, LodConfig, StreamKind};

/// How far one layer's objects reach around every anchor.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct LayerRadius {
    /// The layer, by name.
    pub layer: LayerName,
    /// Chunks within this distance of an anchor carry its objects, world units; 0 spawns none.
    pub radius: f32,
}

/// How far scattered objects reach around every [`crate::BiomeWorldAnchor`], and what they may
/// cost. Changes apply at once: chunks gain or lose objects as the radii say. Refused values
/// (see [`BiomeScatterStats::error`]) leave the last valid ones in use.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeScatterSettings {
    /// Whether objects are streamed at all (the world still places them; see
    /// `WorldSettings::scatter`).
    pub enabled: bool,
    /// The radius of each layer listed; layers not listed take
    /// [`BiomeScatterSettings::default_radius`].
    pub radii: Vec<LayerRadius>,
    /// The radius of layers [`BiomeScatterSettings::radii`] does not list, world units.
    pub default_radius: f32,
    /// Objects stay until their anchor is this share of the radius farther, so an anchor
    /// hovering at the edge does not churn.
    pub hysteresis: f32,
    /// At most this many chunks are placed at once, per layer.
    pub max_tasks: usize,
    /// Main-thread time per frame for spawning and despawning objects, milliseconds, within what
    /// the terrain left of [`crate::BiomeWorldStreaming::frame_budget_ms`]; at least one slice
    /// of a chunk's objects moves per frame, the layers taking turns.
    pub apply_budget_ms: f32,
}

impl Default for BiomeScatterSettings {
    fn default() -> Self {
        let radius = |layer: &str, radius| LayerRadius {
            layer: LayerName::new(layer).expect("built-in names are valid"),
            radius,
        };
        Self {
            enabled: true,
            radii: vec![
                radius(ScatterLayer::ROCK, 192.0),
                radius(ScatterLayer::BUSH, 128.0),
                radius(ScatterLayer::GRASS, 72.0),
            ],
            default_radius: 128.0,
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
    /// The most objects of one layer an anchor may keep about it (estimated from the radius and
    /// the layer's narrowest spacing): each is an entity or a message.
    pub const MAX_OBJECTS: f64 = 60_000.0;

    /// The radius of the layer called `layer`.
    #[must_use]
    pub fn radius(&self, layer: &str) -> f32 {
        self.radii
            .iter()
            .find(|r| r.layer.as_str() == layer)
            .map_or(self.default_radius, |r| r.radius)
    }

    /// Sets the radius of the layer called `layer`, world units.
    ///
    /// # Panics
    /// If `layer` is not a layer name ([`LayerName::new`]).
    pub fn set_radius(&mut self, layer: &str, radius: f32) {
        match self.radii.iter_mut().find(|r| r.layer.as_str() == layer) {
            Some(entry) => entry.radius = radius,
            None => self.radii.push(LayerRadius {
                layer: LayerName::new(layer).expect("a layer name"),
                radius,
            }),
        }
    }

    /// Checks every value against its range, and the objects one anchor keeps in `world`'s
    /// densest biome for each layer (as packed as Poisson-disk sets get, about 0.7 per square of
    /// the spacing) with `layout`'s chunks.
    ///
    /// # Errors
    /// The first value out of range, by field path (`scatter.radii[2].radius`...).
    pub fn validate_with(
        &self,
        settings: &biome_core::WorldSettings,
        layout: &ChunkLayout,
    ) -> Result<(), SettingsError> {
        let check = Check::at("scatter");
        for (k, entry) in self.radii.iter().enumerate() {
            if !entry.layer.is_valid() {
                return check.fail(
                    &format!("radii[{k}].layer"),
                    format!("{:?} is not a layer name", entry.layer.as_str()),
                );
            }
            check.range_in(
                &format!("radii[{k}].radius"),
                entry.radius,
                &Self::RADIUS,
                " world units",
            )?;
        }
        check.range_in(
            "default_radius",
            self.default_radius,
            &Self::RADIUS,
            " world units",
        )?;
        check.range("hysteresis", self.hysteresis, &Self::HYSTERESIS)?;
        check.range_in(
            "apply_budget_ms",
            self.apply_budget_ms,
            &Self::APPLY_BUDGET_MS,
            " ms",
        )?;
        check.whole("max_tasks", self.max_tasks, &Self::MAX_TASKS)?;
        for layer in &settings.scatter.layers {
            let name = layer.name;
            let narrowest = settings
                .biome_table
                .biomes
                .iter()
                .flat_map(|b| &b.scatter)
                .filter(|s| s.layer == name)
                .map(|s| s.spacing)
                .fold(f64::INFINITY, f64::min);
            let radius = self.radius(name.as_str());
            // The chunks kept reach about a chunk past the radius.
            let reach = f64::from(radius) + layout.chunk_size();
            let objects = std::f64::consts::PI * reach * reach / (1.4 * narrowest * narrowest);
            if radius > 0.0 && objects > Self::MAX_OBJECTS {
                let field = self.radii.iter().position(|r| r.layer == name).map_or_else(
                    || "default_radius".to_owned(),
                    |k| format!("radii[{k}].radius"),
                );
                return check.fail(
                    &field,
                    format!(
                        "about {objects:.0} {name} objects around an anchor, over the {} \
                         limit: lower the radius (or widen the spacing)",
                        Self::MAX_OBJECTS
                    ),
                );
            }
        }
        Ok(())
    }

    /// These settings with the radius of every layer that `world` makes too dense around an
    /// anchor ([`BiomeScatterSettings::validate_with`]) set to 0: what streams when nothing
    /// valid is left, so one layer over the limit does not switch the others off.
    #[must_use]
    pub(crate) fn within_limits(
        mut self,
        world: &biome_core::WorldSettings,
        layout: &ChunkLayout,
    ) -> Self {
        for layer in &world.scatter.layers {
            let mut only = world.clone();
            only.scatter.layers = vec![*layer];
            if self.validate_with(&only, layout).is_err() {
                self.set_radius(layer.name.as_str(), 0.0);
            }
        }
        self
    }

    /// The planner's view for the layer called `layer`: full detail out to its radius.
    #[must_use]
    pub(crate) fn lod(&self, layer: &str, layout: ChunkLayout) -> LodConfig {
        let radius = f64::from(self.radius(layer));
        LodConfig {
            layout,
            detail_radius: radius,
            horizon: radius,
            hysteresis: f64::from(self.hysteresis),
        }
    }
}

/// The objects of one layer on one chunk: their parent entity, at the chunk's origin.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct BiomeScatter {
    /// The chunk.
    pub chunk: ChunkCoord,
    /// The layer of its children.
    pub layer: LayerName,
    /// The settings generation they were placed with.
    pub generation: u64,
    /// How many there are.
    pub objects: usize,
}

/// What the scattered objects cost, updated every frame.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeScatterStats {
    /// Chunks carrying objects, per layer (in the order of the world's
    /// `WorldSettings::scatter` layers).
    pub chunks: Vec<usize>,
    /// Objects on the chunks shown, per layer.
    pub objects: Vec<usize>,
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
    /// Diagnostics path of the chunks carrying objects, all layers together.
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

/// One chunk's objects of one layer, placed off the main thread, relative to its origin.
pub(crate) struct Placed(Vec<ScatterInstance>);

/// The objects of one layer on one chunk: their parent entity, the objects still to spawn
/// under it, and whether game code has been told of them.
pub(crate) struct ScatterChunk {
    parent: Entity,
    layer: LayerName,
    /// The chunk's origin, world units.
    origin: DVec3,
    /// Every object of the chunk.
    placed: Vec<ScatterInstance>,
    /// How many of them are not spawned yet (the first ones).
    unspawned: usize,
    /// The objects spawned, to despawn a slice at a time; one per object placed, in order,
    /// where the layer has a look.
    spawned: Vec<Entity>,
    /// Whether [`ScatterSpawned`] went out for its objects (and [`ScatterDespawned`] is owed).
    announced: bool,
}

/// Objects spawn and despawn this many at a time, so a chunk of grass (a thousand tufts) does
/// not hold a frame for a millisecond or more.
const SLICE: usize = 128;

/// One scatter layer as a kind of the streamer: the world's layer called `name`.
pub(crate) struct LayerStream {
    pub(crate) name: LayerName,
}

impl LayerStream {
    /// Counts the chunk's objects present (once), for the frame's messages.
    fn announce(world: &mut World, chunk: &mut ScatterChunk) {
        if std::mem::replace(&mut chunk.announced, true) {
            return;
        }
        let mut presence = world.resource_mut::<ScatterPresence>();
        let layer = presence.layer(chunk.layer);
        for (k, object) in chunk.placed.iter().enumerate() {
            layer.arrive(
                chunk.parent,
                object.id,
                Shown {
                    position: chunk.origin + Vec3::from_array(object.position).as_dvec3(),
                    biome: object.biome,
                    scale: object.scale,
                    yaw: object.yaw,
                    entity: chunk.spawned.get(k).copied(),
                },
            );
        }
    }

    /// Counts the chunk's objects gone (if they were counted present).
    fn withdraw(world: &mut World, chunk: &mut ScatterChunk) {
        if !std::mem::replace(&mut chunk.announced, false) {
            return;
        }
        let mut presence = world.resource_mut::<ScatterPresence>();
        let layer = presence.layer(chunk.layer);
        for object in &chunk.placed {
            layer.leave(chunk.parent, object.id);
        }
    }
}

impl StreamKind for LayerStream {
    type Built = Placed;
    type Node = ScatterChunk;

    fn build(
        &mut self,
        world: &mut World,
        key: BuildKey,
    ) -> impl FnOnce(&AtomicBool) -> Result<Placed, ChunkError> + Send + 'static {
        let state = world.resource::<BiomeWorldState>();
        let (generator, layout) = (state.generator().clone(), state.settings().layout);
        // A layer the world no longer has is refused by the placement (`ScatterError::NoLayer`).
        let layer = (generator.settings().scatter)
            .layer_index(self.name.as_str())
            .unwrap_or(usize::MAX);
        move |_: &AtomicBool| {
            let origin = key.node.origin(&layout);
            let size = key.node.size(&layout);
            let objects = generator
                .scatter_in_rect(layer, origin, [origin[0] + size, origin[1] + size], &layout)?
                .iter()
                .map(|object| object.relative_to(origin))
                .collect();
            Ok(Placed(objects))
        }
    }

    fn spawn(&mut self, world: &mut World, key: BuildKey, built: Placed) -> ScatterChunk {
        let state = world.resource::<BiomeWorldState>();
        let (layout, generation) = (state.settings().layout, state.generation());
        let (layer, objects) = (self.name, built.0);
        let origin = key.node.origin(&layout);
        let place = world
            .resource::<WorldFrame>()
            .place(DVec3::new(origin[0], 0.0, origin[1]));
        let mut parent = world.spawn((
            BiomeScatter {
                chunk: ChunkCoord::new(key.node.x, key.node.z),
                layer,
                generation,
                objects: objects.len(),
            },
            Visibility::Hidden,
        ));
        place.insert(&mut parent);
        let parent = parent.id();
        // Layers without a look are told to game code alone.
        let shown = world
            .get_resource::<ScatterModels>()
            .is_some_and(|models| models.get(layer.as_str()).is_some());
        ScatterChunk {
            parent,
            layer,
            origin: DVec3::new(origin[0], 0.0, origin[1]),
            unspawned: if shown { objects.len() } else { 0 },
            spawned: Vec::with_capacity(if shown { objects.len() } else { 0 }),
            placed: objects,
            announced: false,
        }
    }

    fn spawn_part(&mut self, world: &mut World, chunk: &mut ScatterChunk) -> bool {
        let from = chunk.spawned.len();
        let to = (from + SLICE).min(chunk.unspawned);
        if world.get_entity(chunk.parent).is_ok()
            && let Some(models) = world.get_resource::<ScatterModels>()
        {
            let models = models.clone();
            let instances = chunk.placed[from..to]
                .iter()
                .filter_map(|object| models.instance(chunk.layer, object));
            chunk
                .spawned
                .extend(spawn_instances(world, chunk.parent, instances));
        }
        if chunk.spawned.len() < to {
            // The parent or the look went: nothing more to spawn under it.
            chunk.unspawned = chunk.spawned.len();
        }
        chunk.spawned.len() >= chunk.unspawned
    }

    fn root(chunk: &ScatterChunk) -> Entity {
        chunk.parent
    }

    fn show(&mut self, world: &mut World, _key: BuildKey, chunk: &mut ScatterChunk, _fade: bool) {
        // A root game code despawned is found lost next frame; its objects are not announced.
        if let Ok(mut parent) = world.get_entity_mut(chunk.parent) {
            parent.insert(Visibility::Inherited);
            Self::announce(world, chunk);
        }
    }

    fn hide(&mut self, world: &mut World, chunk: &mut ScatterChunk) {
        if let Ok(mut entity) = world.get_entity_mut(chunk.parent) {
            entity.insert(Visibility::Hidden);
        }
        Self::withdraw(world, chunk);
    }

    fn despawn_part(
        &mut self,
        world: &mut World,
        _key: BuildKey,
        chunk: &mut ScatterChunk,
    ) -> bool {
        Self::withdraw(world, chunk);
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

    fn lost(&mut self, world: &mut World, _key: BuildKey, mut chunk: ScatterChunk) {
        Self::withdraw(world, &mut chunk);
    }

    fn failed(&mut self, _world: &mut World, key: BuildKey, reason: &str) {
        warn!(
            "biome world {} objects of chunk ({}, {}) failed: {reason}",
            self.name, key.node.x, key.node.z
        );
    }
}
