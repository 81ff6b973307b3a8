//! One streamer for everything that streams around anchors: terrain nodes, scattered objects and
//! colliders are each a `StreamKind` run by the same `NodeStreamer`. The streamer owns the
//! kind's [`ChunkPlanner`], its builds on the async compute pool (cancelled when dropped, run
//! under `catch_unwind`, so a panicking build of any kind is a reported failure), the books of
//! built, spawning, ready, shown, fading, leaving and failed nodes, the main-thread budget and
//! the counts. A kind says how a node is built, spawned (hidden, and in parts if it has many
//! entities), shown, faded, hidden and despawned. What is shown changes only by the planner's
//! swaps, so every frame shows one watertight surface; the kinds' plugins feed the streamer the
//! anchors and settings each frame and copy its counts into their stats.

mod changes;
pub mod planner;
mod tasks;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy::diagnostic::{
    Diagnostic, DiagnosticMeasurement, DiagnosticPath, DiagnosticsStore, RegisterDiagnostic,
};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use biome_core::ChunkError;

use crate::origin::WorldFrame;

pub use changes::AreaChanges;
pub use planner::{BuildKey, ChunkPlanner, LodConfig};
pub use tasks::background_async_compute;
use tasks::{BuildOutcome, BuildTask};

/// One kind of streamed content: how a node of it is built off the main thread and how it
/// becomes, shows and stops being entities.
pub(crate) trait StreamKind: Send + Sync + 'static {
    /// A finished build.
    type Built: Send + 'static;
    /// What the streamer keeps of a spawned node: its root entity, and what the kind needs to
    /// show, fade, hide and despawn it.
    type Node: Send + Sync + 'static;

    /// The build of `key`, to run on the async compute pool: it should stop with
    /// [`ChunkError::Cancelled`] once its flag is set. `world` gives what it needs now.
    fn build(
        &mut self,
        world: &mut World,
        key: BuildKey,
    ) -> impl FnOnce(&AtomicBool) -> Result<Self::Built, ChunkError> + Send + 'static;

    /// Spawns `built`, hidden until [`StreamKind::show`] (kinds whose entities cannot hide, such
    /// as colliders, spawn them as they are: a swap shows them in the same frame).
    fn spawn(&mut self, world: &mut World, key: BuildKey, built: Self::Built) -> Self::Node;

    /// Spawns one more part of `node` (at most a slice of its entities); returns whether all are
    /// in. Kinds that spawn a node whole in [`StreamKind::spawn`] keep this default.
    fn spawn_part(&mut self, _world: &mut World, _node: &mut Self::Node) -> bool {
        true
    }

    /// The node's root entity: game code despawning it drops the node.
    fn root(node: &Self::Node) -> Entity;

    /// Makes `node` visible; `fade` when it fades in over what it replaces.
    fn show(&mut self, world: &mut World, key: BuildKey, node: &mut Self::Node, fade: bool);

    /// Moves a fade on to `progress` (from 0 to 1; 1 when it ends).
    fn fade(&mut self, _world: &mut World, _node: &mut Self::Node, _progress: f32) {}

    /// `node` is replaced by nodes fading in over it: it stays visible until their fade ends.
    fn replaced(&mut self, _world: &mut World, _node: &mut Self::Node) {}

    /// Takes `node` off the screen at once; its entities go later, a part at a time.
    fn hide(&mut self, world: &mut World, node: &mut Self::Node);

    /// Despawns one more part of hidden `node` (it showed `key`); returns whether all is gone.
    fn despawn_part(&mut self, world: &mut World, key: BuildKey, node: &mut Self::Node) -> bool;

    /// Game code despawned the root of shown `node`.
    fn lost(&mut self, _world: &mut World, _key: BuildKey, _node: Self::Node) {}

    /// The build of `key` failed (refused or panicked) for `reason`: report it.
    fn failed(&mut self, world: &mut World, key: BuildKey, reason: &str);

    /// The planner has planned for this frame (a kind that shares work between builds prunes it
    /// here).
    fn planned(&mut self, _world: &mut World, _planner: &ChunkPlanner) {}
}

/// What a kind streams this frame.
#[derive(Clone, Debug)]
pub(crate) struct StreamView<'a> {
    /// Where the anchors stand, world `(x, z)`.
    pub(crate) anchors: &'a [[f64; 2]],
    /// How far the planner reaches and where it changes level.
    pub(crate) lod: LodConfig,
    /// The settings generation builds are made for.
    pub(crate) generation: u64,
    /// The areas changed within the generation (terrain edits).
    pub(crate) changes: Arc<AreaChanges>,
    /// At most this many builds at once.
    pub(crate) max_tasks: usize,
    /// Whether new builds may start this frame.
    pub(crate) start_builds: bool,
}

/// Share of the last frame's time the plugin may take when that beats its budget: when frames
/// are slow anyway (a software renderer, a debug build), it keeps nodes coming unnoticed.
const SLOW_FRAME_SHARE: f64 = 0.05;

/// The plugin's main-thread time in the current frame, shared by every streamed kind: each
/// kind's systems charge what they took, and each kind's apply step gets at most what is left of
/// the frame (and at most its own budget). Kinds apply in order (colliders, terrain, scatter), so
/// the last ones are squeezed first.
#[derive(Resource, Debug)]
pub(crate) struct FrameBudget {
    limit: Duration,
    /// How much every budget grows this frame because frames are slow anyway.
    scale: f64,
    used: Duration,
}

impl Default for FrameBudget {
    fn default() -> Self {
        Self {
            limit: Duration::MAX,
            scale: 1.0,
            used: Duration::ZERO,
        }
    }
}

impl FrameBudget {
    /// Starts a frame of `limit_ms` milliseconds, after one that took `last_frame` seconds: when
    /// [`SLOW_FRAME_SHARE`] of that is more, every budget grows in proportion.
    pub(crate) fn begin(&mut self, limit_ms: f32, last_frame: f64) {
        let limit = f64::from(limit_ms) / 1000.0;
        self.scale = if limit > 0.0 {
            (last_frame * SLOW_FRAME_SHARE / limit).max(1.0)
        } else {
            1.0
        };
        self.limit = Duration::from_secs_f64(limit * self.scale);
        self.used = Duration::ZERO;
    }

    /// A kind's system took `time`.
    pub(crate) fn charge(&mut self, time: Duration) {
        self.used += time;
    }

    /// The budget of a kind whose own is `own_ms` milliseconds: that, grown like the frame's,
    /// within what is left of the frame.
    #[must_use]
    pub(crate) fn budget(&self, own_ms: f32) -> Budget {
        let own = Duration::from_secs_f64(f64::from(own_ms) / 1000.0 * self.scale);
        Budget::new(own.min(self.limit.saturating_sub(self.used)))
    }
}

/// Main-thread time for one frame's spawning and despawning, shared by the streamers that draw
/// on it. A step starts only when it is expected to end within the limit; the frame's first
/// needs no time left, so work moves even when a step costs more.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    started: Instant,
    limit: Duration,
    steps: usize,
}

impl Budget {
    /// `limit` from now.
    pub(crate) fn new(limit: Duration) -> Self {
        Self {
            started: Instant::now(),
            limit,
            steps: 0,
        }
    }

    /// Whether a step expected to take `expected` ends within the limit.
    fn fits(&self, expected: Duration) -> bool {
        self.started.elapsed() + expected <= self.limit
    }

    /// Whether no step was taken yet: the next one needs no time left.
    fn first(&self) -> bool {
        self.steps == 0
    }

    fn step(&mut self) {
        self.steps += 1;
    }
}

/// What one kind of step takes, learnt as steps run: a smoothed mean and mean deviation, as TCP
/// learns its round trips, so a step is expected to take their mean plus twice the deviation.
#[derive(Clone, Copy, Debug, Default)]
struct StepCost {
    mean: f64,
    deviation: f64,
    learnt: bool,
}

impl StepCost {
    fn expected(&self) -> Duration {
        Duration::from_secs_f64(self.mean + 2.0 * self.deviation)
    }

    fn record(&mut self, took: Duration) {
        let took = took.as_secs_f64();
        if !self.learnt {
            (self.mean, self.deviation, self.learnt) = (took, took / 2.0, true);
            return;
        }
        // A step far slower than the rest (its thread preempted, say) counts as four times the
        // mean, so one outlier cannot hold the kind to a step a frame for long.
        let took = took.min(4.0 * self.mean);
        self.deviation += ((took - self.mean).abs() - self.deviation) / 4.0;
        self.mean += (took - self.mean) / 8.0;
    }
}

/// What a streamer is doing, for the kinds' stats and diagnostics.
#[derive(Clone, Debug, Default)]
pub(crate) struct StreamCounts {
    /// Nodes on screen, fading in or not.
    pub(crate) shown: usize,
    /// Builds running.
    pub(crate) in_flight: usize,
    /// Builds wanted and not started.
    pub(crate) queued: usize,
    /// Nodes built and not shown yet: waiting to spawn, spawning, or spawned and waiting for
    /// the rest of their swap.
    pub(crate) ready: usize,
    /// Nodes replaced and not gone yet: shown under a fade, or hidden and despawning.
    pub(crate) retiring: usize,
    /// Nodes fading in.
    pub(crate) fading: usize,
    /// Wanted builds that failed at the current settings (not retried until they change).
    pub(crate) failed: usize,
    /// Nodes shown since the start.
    pub(crate) applied_total: u64,
    /// How long the builds that ended this frame took.
    pub(crate) build_times: Vec<Duration>,
}

/// Where `anchors` stand on the ground plane, `[x, z]` in world units (through the
/// [`WorldFrame`]), as planners take them.
pub(crate) fn anchor_points<F: bevy::ecs::query::QueryFilter>(
    world: &World,
    anchors: &mut QueryState<&GlobalTransform, F>,
) -> Vec<[f64; 2]> {
    let frame = world.resource::<WorldFrame>();
    anchors
        .iter(world)
        .map(|transform| {
            let p = frame.world_of(transform.translation());
            [p.x, p.z]
        })
        .collect()
}

/// Where one streamed kind's figures go in Bevy's [`DiagnosticsStore`], so games read them with
/// Bevy's own tools (`LogDiagnosticsPlugin`, a diagnostics overlay): its systems' main-thread
/// times and each build's time off the main thread, in milliseconds, and how many nodes it shows.
pub(crate) struct KindDiagnostics {
    pub(crate) stream_time: &'static DiagnosticPath,
    pub(crate) apply_time: &'static DiagnosticPath,
    pub(crate) build_time: &'static DiagnosticPath,
    pub(crate) shown: &'static DiagnosticPath,
}

/// Build times kept in the store's history, for percentiles.
const BUILD_TIMES_KEPT: usize = 256;

impl KindDiagnostics {
    /// Registers the diagnostics (and the store, if the app has none yet).
    pub(crate) fn register(&self, app: &mut App) {
        app.register_diagnostic(Diagnostic::new(self.stream_time.clone()).with_suffix("ms"))
            .register_diagnostic(Diagnostic::new(self.apply_time.clone()).with_suffix("ms"))
            .register_diagnostic(
                Diagnostic::new(self.build_time.clone())
                    .with_suffix("ms")
                    .with_max_history_length(BUILD_TIMES_KEPT),
            )
            .register_diagnostic(Diagnostic::new(self.shown.clone()).with_smoothing_factor(0.0));
    }

    /// Records a frame: the systems' times, the builds that ended, and the nodes shown.
    pub(crate) fn record<'a>(
        &self,
        world: &mut World,
        (stream_time, apply_time): (Duration, Duration),
        builds: impl IntoIterator<Item = &'a Duration>,
        shown: usize,
    ) {
        let Some(mut store) = world.get_resource_mut::<DiagnosticsStore>() else {
            return;
        };
        let time = Instant::now();
        let mut add = |path: &DiagnosticPath, value: f64| {
            if let Some(diagnostic) = store.get_mut(path).filter(|d| d.is_enabled) {
                diagnostic.add_measurement(DiagnosticMeasurement { time, value });
            }
        };
        add(self.stream_time, stream_time.as_secs_f64() * 1000.0);
        add(self.apply_time, apply_time.as_secs_f64() * 1000.0);
        for build in builds {
            add(self.build_time, build.as_secs_f64() * 1000.0);
        }
        add(self.shown, shown as f64);
    }
}

/// A swap fading in: its shown nodes, and the nodes they replace, which go when it ends.
struct Fade<N> {
    elapsed: f32,
    show: Vec<BuildKey>,
    leaving: Vec<(BuildKey, N)>,
}

/// Streams one [`StreamKind`] around the anchors: call [`NodeStreamer::update`] and then
/// [`NodeStreamer::apply`] once a frame.
pub(crate) struct NodeStreamer<K: StreamKind> {
    kind: K,
    planner: ChunkPlanner,
    tasks: HashMap<BuildKey, BuildTask<K::Built>>,
    /// Finished builds, not spawned yet.
    built: HashMap<BuildKey, K::Built>,
    /// Nodes whose parts are still spawning, oldest first.
    spawning: VecDeque<(BuildKey, K::Node)>,
    /// Nodes spawned whole and hidden, ready for a swap.
    ready: HashMap<BuildKey, K::Node>,
    shown: HashMap<BuildKey, K::Node>,
    fades: Vec<Fade<K::Node>>,
    /// Hidden nodes despawning, oldest first.
    leaving: VecDeque<(BuildKey, K::Node)>,
    /// Builds that failed at their generation: not started again.
    failed: HashSet<BuildKey>,
    /// What a spawn step and a despawn step take, to keep within the budget.
    spawn_cost: StepCost,
    despawn_cost: StepCost,
    counts: StreamCounts,
}

impl<K: StreamKind + Default> Default for NodeStreamer<K> {
    fn default() -> Self {
        Self::new(K::default())
    }
}

impl<K: StreamKind> NodeStreamer<K> {
    pub(crate) fn new(kind: K) -> Self {
        Self {
            kind,
            planner: ChunkPlanner::default(),
            tasks: HashMap::default(),
            built: HashMap::default(),
            spawning: VecDeque::new(),
            ready: HashMap::default(),
            shown: HashMap::default(),
            fades: Vec::new(),
            leaving: VecDeque::new(),
            failed: HashSet::default(),
            spawn_cost: StepCost::default(),
            despawn_cost: StepCost::default(),
            counts: StreamCounts::default(),
        }
    }

    /// The kind: what it streams (a scatter layer's name, the colliders' counts).
    pub(crate) fn kind(&self) -> &K {
        &self.kind
    }

    #[cfg_attr(
        not(feature = "avian"),
        expect(dead_code, reason = "the colliders' kind takes settings")
    )]
    pub(crate) fn kind_mut(&mut self) -> &mut K {
        &mut self.kind
    }

    #[cfg(test)]
    fn planner(&self) -> &ChunkPlanner {
        &self.planner
    }

    /// The nodes on screen, fading in or not.
    pub(crate) fn shown(&self) -> impl Iterator<Item = (&BuildKey, &K::Node)> {
        self.shown.iter()
    }

    /// What the streamer did in the last [`NodeStreamer::apply`].
    pub(crate) fn counts(&self) -> &StreamCounts {
        &self.counts
    }

    /// Forgets nodes whose root game code despawned (a wanted one is built again), plans for
    /// `view`, drops the builds and spawned nodes no longer wanted (a dropped build is
    /// cancelled), and starts wanted builds, most urgent first.
    pub(crate) fn update(&mut self, world: &mut World, view: &StreamView) {
        let lost: Vec<BuildKey> = self
            .shown
            .iter()
            .filter(|(_, node)| world.get_entity(K::root(node)).is_err())
            .map(|(&key, _)| key)
            .collect();
        for key in lost {
            let node = self.shown.remove(&key).expect("listed above");
            self.planner.hidden(&key);
            self.kind.lost(world, key, node);
        }
        let planner = &mut self.planner;
        self.ready.retain(|key, node| {
            let alive = world.get_entity(K::root(node)).is_ok();
            if !alive {
                planner.not_ready(key);
            }
            alive
        });
        self.failed.retain(|key| key.generation == view.generation);
        self.planner.changed(&view.changes);
        self.planner
            .update(view.anchors, &view.lod, view.generation);
        let planner = &self.planner;
        self.tasks.retain(|key, _| planner.wants(key));
        self.built.retain(|key, _| planner.wants(key));
        let unwanted: Vec<BuildKey> = self
            .ready
            .keys()
            .filter(|key| !planner.wants(key))
            .copied()
            .collect();
        for key in unwanted {
            let node = self.ready.remove(&key).expect("listed above");
            self.leaving.push_back((key, node));
        }
        self.kind.planned(world, &self.planner);
        if !view.start_builds {
            return;
        }
        let build = self.planner.plan().build.clone();
        let starts: Vec<BuildKey> = build
            .iter()
            .filter(|key| !self.in_hand(key))
            .take(view.max_tasks.saturating_sub(self.tasks.len()))
            .copied()
            .collect();
        for key in starts {
            let build = self.kind.build(world, key);
            self.tasks.insert(key, BuildTask::spawn(build));
        }
    }

    /// Whether `key` is being built, spawned, ready, shown or failed: nothing to start for it.
    fn in_hand(&self, key: &BuildKey) -> bool {
        self.tasks.contains_key(key)
            || self.built.contains_key(key)
            || self.ready.contains_key(key)
            || self.shown.contains_key(key)
            || self.failed.contains(key)
            || self.spawning.iter().any(|(k, _)| k == key)
    }

    /// Collects finished builds; despawns what left the screen and spawns what was built (most
    /// urgent first) within `budget`; moves the fades on by `delta` seconds; and makes the
    /// planner's swaps (fading in over `fade_seconds` what replaces something).
    pub(crate) fn apply(
        &mut self,
        world: &mut World,
        budget: &mut Budget,
        fade_seconds: f32,
        delta: f32,
    ) {
        self.counts.build_times.clear();
        let mut failures = Vec::new();
        let (built, times) = (&mut self.built, &mut self.counts.build_times);
        self.tasks.retain(|&key, task| {
            let Some(finished) = task.poll() else {
                return true;
            };
            match finished.outcome {
                BuildOutcome::Built(node) => {
                    times.push(finished.took);
                    built.insert(key, node);
                }
                BuildOutcome::Failed(reason) => failures.push((key, reason)),
                BuildOutcome::Cancelled => {}
            }
            false
        });
        for (key, reason) in failures {
            self.failed.insert(key);
            self.kind.failed(world, key, &reason);
        }

        // The frame's first step goes to a spawn while one waits: land on screen comes before
        // freeing hidden nodes.
        let spawn_waits = !self.spawning.is_empty() || !self.built.is_empty();
        while budget.fits(self.despawn_cost.expected()) || (budget.first() && !spawn_waits) {
            let Some((key, node)) = self.leaving.front_mut() else {
                break;
            };
            let started = Instant::now();
            if self.kind.despawn_part(world, *key, node) {
                self.leaving.pop_front();
            }
            self.despawn_cost.record(started.elapsed());
            budget.step();
        }
        self.spawn(world, budget);
        // Fades that end free their nodes for this frame's swaps.
        self.move_fades(world, fade_seconds, delta);

        let fade = fade_seconds > 0.0;
        for swap in self.planner.take_swaps(fade) {
            let fades = fade && swap.replaces;
            let mut replaced = Vec::new();
            for key in swap.retire {
                let Some(mut node) = self.shown.remove(&key) else {
                    continue;
                };
                if fades {
                    self.kind.replaced(world, &mut node);
                    replaced.push((key, node));
                } else {
                    self.kind.hide(world, &mut node);
                    self.leaving.push_back((key, node));
                }
            }
            for &key in &swap.show {
                let Some(mut node) = self.ready.remove(&key) else {
                    continue;
                };
                self.kind.show(world, key, &mut node, fades);
                self.shown.insert(key, node);
                self.counts.applied_total += 1;
            }
            if fades {
                self.fades.push(Fade {
                    elapsed: 0.0,
                    show: swap.show,
                    leaving: replaced,
                });
            }
        }
        self.count();
    }

    /// Spawns within `budget`: first the parts of the nodes under way (oldest first), then the
    /// builds most urgent first, each with its first part. A node all in is ready for the
    /// planner's swaps; one no longer wanted goes.
    fn spawn(&mut self, world: &mut World, budget: &mut Budget) {
        let planner = &self.planner;
        let (kept, unwanted): (VecDeque<_>, VecDeque<_>) = std::mem::take(&mut self.spawning)
            .into_iter()
            .partition(|(key, _)| planner.wants(key));
        self.spawning = kept;
        self.leaving.extend(unwanted);
        let mut order = self.planner.ready_in_order(&self.built).into_iter();
        while budget.fits(self.spawn_cost.expected()) || budget.first() {
            let started = Instant::now();
            let (key, mut node) = match self.spawning.pop_front() {
                Some(under_way) => under_way,
                None => {
                    let Some(key) = order.next() else {
                        break;
                    };
                    let built = self.built.remove(&key).expect("listed above");
                    (key, self.kind.spawn(world, key, built))
                }
            };
            let done = self.kind.spawn_part(world, &mut node);
            self.spawn_cost.record(started.elapsed());
            budget.step();
            if done {
                self.planner.ready(key);
                self.ready.insert(key, node);
            } else {
                self.spawning.push_front((key, node));
            }
        }
    }

    /// Moves every fade on by `delta` seconds; a finished one hides what it replaced and frees
    /// its nodes for later swaps.
    fn move_fades(&mut self, world: &mut World, fade_seconds: f32, delta: f32) {
        let mut k = 0;
        while k < self.fades.len() {
            let fade = &mut self.fades[k];
            fade.elapsed += delta;
            let progress = (fade.elapsed / fade_seconds.max(f32::EPSILON)).min(1.0);
            for key in &fade.show {
                if let Some(node) = self.shown.get_mut(key) {
                    self.kind.fade(world, node, progress);
                }
            }
            if progress < 1.0 {
                k += 1;
                continue;
            }
            let fade = self.fades.swap_remove(k);
            for key in &fade.show {
                self.planner.faded(key);
            }
            for (key, mut node) in fade.leaving {
                self.kind.hide(world, &mut node);
                self.leaving.push_back((key, node));
            }
        }
    }

    fn count(&mut self) {
        let build = self.planner.plan().build.clone();
        let queued = build.iter().filter(|key| !self.in_hand(key)).count();
        let counts = &mut self.counts;
        counts.queued = queued;
        counts.shown = self.shown.len();
        counts.in_flight = self.tasks.len();
        counts.ready = self.built.len() + self.spawning.len() + self.ready.len();
        counts.fading = self.fades.iter().map(|fade| fade.show.len()).sum();
        counts.retiring =
            self.leaving.len() + self.fades.iter().map(|f| f.leaving.len()).sum::<usize>();
        counts.failed = self.failed.len();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::sync::{Arc, Mutex, PoisonError};

    use bevy::tasks::{AsyncComputeTaskPool, TaskPool};
    use biome_core::{ChunkLayout, MeshStyle, NodeCoord};

    use super::*;

    /// What a fake build of a node does.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Behaviour {
        Build,
        Panic,
        Refuse,
        /// Runs until cancelled.
        Hang,
    }

    #[derive(Component)]
    struct FakeNode(BuildKey);

    /// A kind whose builds do what `behaviour` says for their node, and whose spawns take
    /// `spawn_time`.
    #[derive(Default)]
    struct FakeKind {
        behaviour: Arc<Mutex<HashMap<NodeCoord, Behaviour>>>,
        /// Nodes whose hanging build started, and whose hanging build saw its cancellation.
        started: Arc<Mutex<Vec<NodeCoord>>>,
        cancelled: Arc<Mutex<Vec<NodeCoord>>>,
        builds: usize,
        failures: Vec<(BuildKey, String)>,
        spawn_time: Duration,
    }

    impl StreamKind for FakeKind {
        type Built = NodeCoord;
        type Node = Entity;

        fn build(
            &mut self,
            _world: &mut World,
            key: BuildKey,
        ) -> impl FnOnce(&AtomicBool) -> Result<NodeCoord, ChunkError> + Send + 'static {
            self.builds += 1;
            let behaviour = self
                .behaviour
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&key.node)
                .copied()
                .unwrap_or(Behaviour::Build);
            let (started, cancelled) = (self.started.clone(), self.cancelled.clone());
            move |cancel: &AtomicBool| match behaviour {
                Behaviour::Build => Ok(key.node),
                Behaviour::Panic => panic!("node {:?} panicked", key.node),
                Behaviour::Refuse => Err(ChunkError::Level(99)),
                Behaviour::Hang => {
                    started
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(key.node);
                    while !cancel.load(Ordering::Relaxed) {
                        std::thread::yield_now();
                    }
                    cancelled
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(key.node);
                    Err(ChunkError::Cancelled)
                }
            }
        }

        fn spawn(&mut self, world: &mut World, key: BuildKey, _built: NodeCoord) -> Entity {
            let started = Instant::now();
            while started.elapsed() < self.spawn_time {
                std::hint::spin_loop();
            }
            world.spawn((FakeNode(key), Visibility::Hidden)).id()
        }

        fn root(node: &Entity) -> Entity {
            *node
        }

        fn show(&mut self, world: &mut World, _key: BuildKey, node: &mut Entity, _fade: bool) {
            world.entity_mut(*node).insert(Visibility::Inherited);
        }

        fn hide(&mut self, world: &mut World, node: &mut Entity) {
            if let Ok(mut entity) = world.get_entity_mut(*node) {
                entity.insert(Visibility::Hidden);
            }
        }

        fn despawn_part(&mut self, world: &mut World, _key: BuildKey, node: &mut Entity) -> bool {
            if let Ok(entity) = world.get_entity_mut(*node) {
                entity.despawn();
            }
            true
        }

        fn failed(&mut self, _world: &mut World, key: BuildKey, reason: &str) {
            self.failures.push((key, reason.to_owned()));
        }
    }

    /// 32-unit chunks at full detail within 40 units: a dozen chunks around the origin.
    fn lod() -> LodConfig {
        LodConfig {
            layout: ChunkLayout {
                tiles: 8,
                tile_size: 4.0,
                style: MeshStyle::Smooth,
            },
            detail_radius: 40.0,
            horizon: 40.0,
            hysteresis: 0.25,
        }
    }

    struct Rig {
        world: World,
        streamer: NodeStreamer<FakeKind>,
        anchor: [f64; 2],
        generation: u64,
    }

    impl Rig {
        fn new(kind: FakeKind) -> Self {
            AsyncComputeTaskPool::get_or_init(TaskPool::default);
            Self {
                world: World::new(),
                streamer: NodeStreamer::new(kind),
                anchor: [1.0, 1.0],
                generation: 0,
            }
        }

        fn frame(&mut self, budget: Duration) {
            let anchors = [self.anchor];
            let view = StreamView {
                anchors: &anchors,
                lod: lod(),
                generation: self.generation,
                changes: Arc::default(),
                max_tasks: 4,
                start_builds: true,
            };
            self.streamer.update(&mut self.world, &view);
            self.streamer
                .apply(&mut self.world, &mut Budget::new(budget), 0.0, 1.0 / 60.0);
        }

        /// Frames until nothing is under way, for at most 20 s: bounded by time rather than
        /// frames, since a panicking build's hook may print a backtrace for longer than
        /// thousands of empty frames take.
        fn settle(&mut self) {
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while std::time::Instant::now() < deadline {
                self.frame(Duration::from_millis(4));
                let c = self.streamer.counts();
                if c.in_flight == 0 && c.queued == 0 && c.ready == 0 && c.retiring == 0 {
                    return;
                }
                std::thread::yield_now();
            }
            panic!("not settled: {:?}", self.streamer.counts());
        }

        fn visible(&mut self) -> Vec<NodeCoord> {
            let mut nodes: Vec<NodeCoord> = self
                .world
                .query::<(&FakeNode, &Visibility)>()
                .iter(&self.world)
                .filter(|(_, v)| **v != Visibility::Hidden)
                .map(|(node, _)| node.0.node)
                .collect();
            nodes.sort_by_key(|n| (n.x, n.z));
            nodes
        }
    }

    #[test]
    fn panicking_and_refused_builds_are_reported_once_and_retried_only_with_new_settings() {
        let kind = FakeKind::default();
        let (panics, refuses) = (NodeCoord::new(0, 0, 0), NodeCoord::new(0, -1, 0));
        {
            let mut behaviour = kind.behaviour.lock().unwrap();
            behaviour.insert(panics, Behaviour::Panic);
            behaviour.insert(refuses, Behaviour::Refuse);
        }
        let mut rig = Rig::new(kind);
        rig.settle();
        let wanted = rig.streamer.planner().wanted().len();
        let failures = &rig.streamer.kind().failures;
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(
            failures
                .iter()
                .any(|(key, reason)| key.node == panics && reason.contains("panicked"))
        );
        assert!(failures.iter().any(|(key, _)| key.node == refuses));
        assert_eq!(rig.streamer.counts().failed, 2);
        let builds = rig.streamer.kind().builds;
        assert_eq!(builds, wanted);
        // The other chunks are shown; the failed ones are not tried again.
        assert_eq!(rig.visible().len(), wanted - 2);
        for _ in 0..50 {
            rig.frame(Duration::from_millis(4));
        }
        assert_eq!(rig.streamer.kind().builds, builds);
        assert_eq!(rig.streamer.kind().failures.len(), 2);
        // New settings: every chunk is built again, the two failed ones included.
        rig.streamer
            .kind
            .behaviour
            .lock()
            .unwrap()
            .insert(panics, Behaviour::Build);
        rig.generation = 1;
        rig.settle();
        assert_eq!(rig.streamer.kind().builds, builds + wanted);
        assert_eq!(rig.streamer.counts().failed, 1);
        assert_eq!(rig.visible().len(), wanted - 1);
    }

    #[test]
    fn nodes_game_code_despawns_are_built_again() {
        let mut rig = Rig::new(FakeKind::default());
        rig.settle();
        let before = rig.visible();
        let wanted = rig.streamer.planner().wanted().len();
        assert_eq!(before.len(), wanted);
        let victim = rig
            .world
            .query::<(Entity, &FakeNode)>()
            .iter(&rig.world)
            .find(|(_, node)| node.0.node == NodeCoord::new(0, 0, 0))
            .map(|(entity, _)| entity)
            .expect("shown");
        rig.world.despawn(victim);
        rig.settle();
        assert_eq!(rig.visible(), before);
        assert_eq!(rig.streamer.kind().builds, wanted + 1);
    }

    #[test]
    fn builds_no_longer_wanted_are_cancelled() {
        let kind = FakeKind::default();
        let hanging = NodeCoord::new(0, 0, 0);
        kind.behaviour
            .lock()
            .unwrap()
            .insert(hanging, Behaviour::Hang);
        let (started, cancelled) = (kind.started.clone(), kind.cancelled.clone());
        let mut rig = Rig::new(kind);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !started.lock().unwrap().contains(&hanging) {
            assert!(std::time::Instant::now() < deadline, "never started");
            rig.frame(Duration::from_millis(4));
            std::thread::yield_now();
        }
        assert!(
            rig.streamer.counts().in_flight >= 1,
            "the hanging build runs"
        );
        // Far away: the hanging chunk is no longer wanted, and its build stops.
        rig.anchor = [10_000.0, 0.0];
        rig.settle();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !cancelled.lock().unwrap().contains(&hanging) {
            assert!(std::time::Instant::now() < deadline, "never cancelled");
            std::thread::yield_now();
        }
        assert!(rig.visible().iter().all(|node| node.x > 100));
    }

    /// Fills the view with spawns taking `spawn_time` each, within 1 ms budgets; returns the
    /// most spawned in one frame after the first `skipped` frames.
    fn most_spawned_a_frame(spawn_time: Duration, skipped: usize) -> usize {
        let mut rig = Rig::new(FakeKind {
            spawn_time,
            ..FakeKind::default()
        });
        let spawned =
            |rig: &Rig| rig.streamer.counts().applied_total as usize + rig.streamer.ready.len();
        let mut most = 0;
        for frame in 0..2_000 {
            let before = spawned(&rig);
            rig.frame(Duration::from_millis(1));
            if frame >= skipped {
                most = most.max(spawned(&rig) - before);
            }
            let wanted = rig.streamer.planner().wanted().len();
            if wanted > 0 && rig.streamer.counts().applied_total as usize == wanted {
                break;
            }
            std::thread::yield_now();
        }
        assert_eq!(
            rig.streamer.counts().applied_total as usize,
            rig.streamer.planner().wanted().len()
        );
        most
    }

    #[test]
    fn spawning_keeps_to_the_budget() {
        // One 3 ms spawn overruns a 1 ms budget: one a frame.
        assert_eq!(most_spawned_a_frame(Duration::from_millis(3), 0), 1);
    }

    #[test]
    fn a_spawn_starts_only_when_its_learnt_cost_still_fits() {
        // Two 0.6 ms spawns would take 1.2 ms of a 1 ms budget: once the cost is learnt (after
        // the first frame), one a frame (slower spawns on a busy machine only make fewer fit).
        assert_eq!(most_spawned_a_frame(Duration::from_micros(600), 1), 1);
    }

    #[test]
    fn step_costs_are_learnt() {
        let ms = |cost: &StepCost| cost.expected().as_secs_f64() * 1000.0;
        let mut cost = StepCost::default();
        assert_eq!(cost.expected(), Duration::ZERO);
        // The first step is expected to vary by half of itself.
        cost.record(Duration::from_millis(1));
        assert!((ms(&cost) - 2.0).abs() < 1e-6, "{}", ms(&cost));
        for _ in 0..100 {
            cost.record(Duration::from_millis(1));
        }
        assert!((ms(&cost) - 1.0).abs() < 1e-6, "{}", ms(&cost));
        // One step a hundred times dearer raises the expectation, as if four times, and it
        // settles back.
        cost.record(Duration::from_millis(100));
        assert!((2.0..4.0).contains(&ms(&cost)), "{}", ms(&cost));
        for _ in 0..30 {
            cost.record(Duration::from_millis(1));
        }
        assert!(ms(&cost) < 1.1, "{}", ms(&cost));
        // Steps that really grow are learnt.
        for _ in 0..20 {
            cost.record(Duration::from_millis(10));
        }
        assert!(ms(&cost) > 9.0, "{}", ms(&cost));
    }

    #[test]
    fn kinds_share_what_is_left_of_the_frame() {
        let micros = |budget: Budget| (budget.limit.as_secs_f64() * 1e6).round();
        let mut frame = FrameBudget::default();
        frame.begin(1.0, 1.0 / 60.0);
        assert_eq!(micros(frame.budget(0.6)), 600.0);
        frame.charge(Duration::from_micros(700));
        assert_eq!(micros(frame.budget(0.6)), 300.0);
        frame.charge(Duration::from_millis(1));
        assert_eq!(micros(frame.budget(0.6)), 0.0);
        // A new frame starts afresh; after a 100 ms frame, 5% of it: every budget five times.
        frame.begin(1.0, 0.1);
        assert_eq!(micros(frame.budget(100.0)), 5_000.0);
        assert_eq!(micros(frame.budget(0.4)), 2_000.0);
        // No frame budget: each kind takes only its one step.
        frame.begin(0.0, 0.1);
        assert_eq!(micros(frame.budget(100.0)), 0.0);
    }
}
