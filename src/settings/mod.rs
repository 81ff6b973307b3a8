//! The runtime settings, one resource per concern, and the generator compiled from them
//! ([`BiomeWorldSettingsPlugin`]):
//! [`BiomeWorldSettings`] says what the chunks are (the world, the layout, water and trees: any
//! change rebuilds them), [`BiomeWorldStreaming`] how they are streamed (horizon, levels of
//! detail, hysteresis, tasks, budget: changes apply at once), and [`ChunkMeshOptions`] where
//! their meshes live. [`BiomeWorldState`] holds the last valid pair and the [`WorldGenerator`]
//! built from it; its generation counter moves on with every accepted [`BiomeWorldSettings`]
//! change, so every loaded chunk is rebuilt and no result of older settings is applied. Invalid
//! settings are refused whole.

use std::ops::RangeInclusive;
use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use biome_core::check::Check;
use biome_core::edits::{EditLog, EditSet, EditShape};
use biome_core::{ChunkLayout, MeshStyle, NodeCoord, WorldGenerator, WorldSettings};
use biome_core::{SettingsError, limits};

use crate::stream::{AreaChanges, LodConfig};

mod edits;
mod plugin;

pub use edits::BiomeWorldEdits;
pub use plugin::BiomeWorldSettingsPlugin;

/// What the streamed chunks are: the world they sample, their layout, and what they carry. Insert
/// your own before adding the plugin to start from other values; change it at any time to
/// regenerate every chunk.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeWorldSettings {
    /// The generator's settings: seed, terrain, climate, biome table, regions, surface and trees.
    pub generator: WorldSettings,
    /// Chunk size and look (smooth or flat tiles).
    pub layout: ChunkLayout,
    /// Whether chunks below sea level get a water surface.
    pub water: bool,
    /// Whether trees are spawned (the generator still places them; see `generator.trees`).
    pub trees: bool,
    /// Nodes up to this level carry their trees as entities (0: full-detail chunks only; 1, the
    /// default, also the next level, which puts tree entities within about 400 to 800 units of
    /// an anchor with the default `detail_radius`). Their number depends on the levels' ranges,
    /// not on the horizon.
    pub tree_levels: u8,
    /// Coarser nodes up to this level carry a far forest: one mesh of a thinned subset of their
    /// trees (1 in 4 at levels 2 and 3, 1 in 16 at levels 4 and 5), each a spire of its tree's
    /// size and crown colour. At `tree_levels` or below, no far forests.
    pub far_forest_levels: u8,
    /// Nodes up to this level are meshed with every tile; each level coarser meshes its
    /// interior in blocks twice as wide (2 × 2 tiles, then 4 × 4...) and keeps every vertex of
    /// its edges, so it meets its neighbours exactly
    /// ([`biome_core::ChunkData::coarsen_interior`]; with 64 tiles 2,424 and 824 triangles
    /// instead of 8,192). Levels that draw rivers stay whole (a channel is a tile or two
    /// wide). The default, 5, keeps every level of the 8 km view whole and thins the two
    /// levels a 32 km horizon adds past 8 km, where the haze hides the detail.
    pub full_mesh_levels: u8,
}

impl Default for BiomeWorldSettings {
    fn default() -> Self {
        Self {
            generator: WorldSettings::default(),
            layout: ChunkLayout::default(),
            water: true,
            trees: true,
            tree_levels: 1,
            far_forest_levels: 4,
            full_mesh_levels: 5,
        }
    }
}

impl BiomeWorldSettings {
    /// Checks the generator's settings and the layout with them
    /// ([`ChunkLayout::validate_with`]).
    ///
    /// # Errors
    /// The first value out of range, by field path.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.generator.validate()?;
        self.layout.validate_with(&self.generator)?;
        let check = Check::new();
        check.whole("tree_levels", self.tree_levels, &Self::TREE_LEVELS)?;
        check.whole(
            "far_forest_levels",
            self.far_forest_levels,
            &Self::FAR_FOREST_LEVELS,
        )?;
        check.whole(
            "full_mesh_levels",
            self.full_mesh_levels,
            &Self::FULL_MESH_LEVELS,
        )?;
        // Tree entities on a node cost its area over the tree spacing squared.
        let level_chunks = 4f64.powi(i32::from(self.tree_levels));
        let spots =
            level_chunks * (self.layout.chunk_size() / self.generator.trees.spacing + 2.0).powi(2);
        if self.generator.trees.enabled && spots > limits::MAX_TREE_SPOTS {
            return check.fail(
                "tree_levels",
                format!(
                    "a level-{} node would have about {spots:.0} tree spots, over the {} limit: \
                     lower tree_levels (or raise trees.spacing)",
                    self.tree_levels,
                    limits::MAX_TREE_SPOTS
                ),
            );
        }
        Ok(())
    }

    /// Accepted [`BiomeWorldSettings::tree_levels`].
    pub const TREE_LEVELS: RangeInclusive<u8> = 0..=3;
    /// Accepted [`BiomeWorldSettings::far_forest_levels`].
    pub const FAR_FOREST_LEVELS: RangeInclusive<u8> = 0..=6;
    /// Accepted [`BiomeWorldSettings::full_mesh_levels`]: up to the coarsest level there is.
    pub const FULL_MESH_LEVELS: RangeInclusive<u8> = 0..=NodeCoord::MAX_LEVEL;

    /// Whether nodes of `level` carry tree entities.
    #[must_use]
    pub fn tree_entities_at(&self, level: u8) -> bool {
        self.trees && level <= self.tree_levels
    }

    /// How many tree-grid cells a far forest on a node of `level` keeps one tree of, along each
    /// axis (2 at levels 2 and 3, 4 at levels 4 and 5...); `None` where the node carries tree
    /// entities or no trees.
    #[must_use]
    pub fn far_forest_stride(&self, level: u8) -> Option<u32> {
        (self.trees && level > self.tree_levels && level <= self.far_forest_levels)
            .then(|| 1 << (level / 2))
    }

    /// The blocks of tiles nodes of `level` mesh their interior in, per side
    /// ([`BiomeWorldSettings::full_mesh_levels`], as the layout fits it:
    /// [`ChunkLayout::interior_block`]); 1, every tile, at levels where `generator` (these
    /// settings' world) draws rivers.
    #[must_use]
    pub fn interior_block_at(&self, level: u8, generator: &WorldGenerator) -> u32 {
        if generator.draws_rivers_at(level, &self.layout) {
            return 1;
        }
        // Past 2^16 tiles no layout has a block to fit.
        let levels = level.saturating_sub(self.full_mesh_levels).min(16);
        self.layout.interior_block(1 << levels)
    }

    /// Bytes of terrain mesh (positions, normals, colours and indices) in one chunk.
    #[must_use]
    pub fn chunk_mesh_bytes(&self) -> u64 {
        let tiles = u64::from(self.layout.tiles);
        let vertices = match self.layout.style {
            MeshStyle::Smooth => (tiles + 1) * (tiles + 1),
            MeshStyle::FlatTiles => 4 * tiles * tiles,
        };
        let index_bytes = if vertices <= 1 << 16 { 2 } else { 4 };
        vertices * VERTEX_BYTES + 6 * tiles * tiles * index_bytes
    }
}

/// Position, normal, colour and temperature (a UV pair) of one terrain vertex.
const VERTEX_BYTES: u64 = 12 + 12 + 16 + 8;

/// How terrain streams around the anchors: how far it reaches, where it changes level of detail,
/// and how much work it may take (with [`BiomeWorldStreaming::frame_budget_ms`], the main-thread
/// time every streamed kind shares). Changes apply at once; nodes change level as needed, nothing
/// else is rebuilt.
///
/// Terrain is a quadtree of nodes ([`biome_core::NodeCoord`]): full-detail chunks (level 0)
/// within [`BiomeWorldStreaming::detail_radius`] of an anchor, then nodes of twice the size and
/// tile width out to twice the distance, and so on to the horizon. Every node has the layout's
/// tile count, so the triangle count grows with the number of levels, not the area.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeWorldStreaming {
    /// Terrain reaches this far from every anchor, world units (metres with the default layout).
    pub horizon: f32,
    /// Full-detail chunks are used within this distance of an anchor, world units; each coarser
    /// level within twice the distance of the one before. At [`BiomeWorldStreaming::horizon`] or
    /// beyond, everything is full detail.
    pub detail_radius: f32,
    /// A split into finer nodes holds until the anchor is this share of its distance farther,
    /// and a node past the horizon stays until this share beyond it, so an anchor hovering at a
    /// boundary does not churn.
    pub hysteresis: f32,
    /// Seconds over which a node that replaces others (another level, stitch or settings) is
    /// dithered in over them before they go; 0 swaps at once. Land with nothing on screen yet
    /// appears at once.
    pub fade_seconds: f32,
    /// At most this many nodes are built at once on the async compute pool.
    pub max_tasks: usize,
    /// Main-thread time per frame for turning finished nodes into entities and despawning old
    /// ones, in milliseconds, within [`BiomeWorldStreaming::frame_budget_ms`]; at least one node
    /// moves per frame.
    pub apply_budget_ms: f32,
    /// The plugin's main-thread time per frame, milliseconds: every streamed kind's systems
    /// together (terrain, scatter and colliders, planning and applying). Each kind's own apply
    /// budget caps its share; colliders apply first, then terrain, then scatter, each within what
    /// is left, and each takes one step a frame (a node, a slice of objects) whatever is left,
    /// so 0 moves one step of each kind a frame. When frames are slow anyway (a software
    /// renderer, a debug build) and 5% of the last frame's time is more, every budget grows in
    /// proportion.
    pub frame_budget_ms: f32,
}

impl Default for BiomeWorldStreaming {
    fn default() -> Self {
        Self {
            horizon: 8192.0,
            detail_radius: 256.0,
            hysteresis: 0.25,
            fade_seconds: 0.3,
            max_tasks: default_task_budget(),
            apply_budget_ms: 0.6,
            frame_budget_ms: 1.0,
        }
    }
}

/// Four tasks per core keep the builders busy even when frames are slow (tasks finish between
/// two frames), while out-of-range tasks are still dropped before they start.
fn default_task_budget() -> usize {
    (std::thread::available_parallelism().map_or(2, std::num::NonZero::get) * 4).max(8)
}

impl BiomeWorldStreaming {
    /// Accepted [`BiomeWorldStreaming::horizon`], world units.
    pub const HORIZON: RangeInclusive<f32> = 16.0..=65536.0;
    /// Accepted [`BiomeWorldStreaming::detail_radius`], world units.
    pub const DETAIL_RADIUS: RangeInclusive<f32> = 1.0..=65536.0;
    /// Accepted [`BiomeWorldStreaming::hysteresis`].
    pub const HYSTERESIS: RangeInclusive<f32> = 0.0..=1.0;
    /// Accepted [`BiomeWorldStreaming::fade_seconds`].
    pub const FADE_SECONDS: RangeInclusive<f32> = 0.0..=5.0;
    /// Accepted [`BiomeWorldStreaming::max_tasks`].
    pub const MAX_TASKS: RangeInclusive<usize> = 1..=256;
    /// Accepted [`BiomeWorldStreaming::apply_budget_ms`].
    pub const APPLY_BUDGET_MS: RangeInclusive<f32> = 0.0..=100.0;
    /// Accepted [`BiomeWorldStreaming::frame_budget_ms`].
    pub const FRAME_BUDGET_MS: RangeInclusive<f32> = 0.0..=100.0;
    /// Terrain nodes one anchor may keep (the estimate of [`LodConfig::node_estimate`]): more
    /// would cost the planner and the renderer more than any view needs.
    pub const MAX_NODES: u64 = 16_384;
    /// Terrain mesh memory one anchor may keep loaded, in bytes: 1 GiB, about twenty times the
    /// default view's.
    pub const MESH_MEMORY_LIMIT: u64 = 1 << 30;

    /// Full detail out to `radius` world units, as the first release streamed (a disc of
    /// chunks, no coarser levels).
    #[must_use]
    pub fn full_detail(radius: f32) -> Self {
        Self {
            horizon: radius,
            detail_radius: radius,
            ..default()
        }
    }

    /// About how many terrain nodes one anchor keeps with `layout`: what
    /// [`BiomeWorldStreaming::MAX_NODES`] bounds.
    #[must_use]
    pub fn node_estimate(&self, layout: ChunkLayout) -> u64 {
        self.lod(layout).node_estimate()
    }

    /// The planner's view of these values with `layout`.
    #[must_use]
    pub(crate) fn lod(&self, layout: ChunkLayout) -> LodConfig {
        LodConfig {
            layout,
            detail_radius: f64::from(self.detail_radius),
            horizon: f64::from(self.horizon),
            hysteresis: f64::from(self.hysteresis),
        }
    }

    /// Checks every value against its range, and what the streaming costs with `settings`: the
    /// nodes one anchor keeps must number at most [`BiomeWorldStreaming::MAX_NODES`] and their
    /// terrain meshes fit in [`BiomeWorldStreaming::MESH_MEMORY_LIMIT`]; with levels of detail the
    /// layout's tile count must be even.
    ///
    /// # Errors
    /// The first value out of range, by field path.
    pub fn validate_with(&self, settings: &BiomeWorldSettings) -> Result<(), SettingsError> {
        let check = Check::new();
        let units = " world units";
        check.range_in("horizon", self.horizon, &Self::HORIZON, units)?;
        check.range_in(
            "detail_radius",
            self.detail_radius,
            &Self::DETAIL_RADIUS,
            units,
        )?;
        check.range("hysteresis", self.hysteresis, &Self::HYSTERESIS)?;
        check.range_in("fade_seconds", self.fade_seconds, &Self::FADE_SECONDS, " s")?;
        check.range_in(
            "apply_budget_ms",
            self.apply_budget_ms,
            &Self::APPLY_BUDGET_MS,
            " ms",
        )?;
        check.range_in(
            "frame_budget_ms",
            self.frame_budget_ms,
            &Self::FRAME_BUDGET_MS,
            " ms",
        )?;
        check.whole("max_tasks", self.max_tasks, &Self::MAX_TASKS)?;
        let tiles = settings.layout.tiles;
        if self.lod(settings.layout).top_level() > 0 && tiles % 2 == 1 {
            return check.fail(
                "layout.tiles",
                format!(
                    "must be even with levels of detail: a node's edge follows every other \
                     vertex of a coarser neighbour's (got {tiles})"
                ),
            );
        }
        let nodes = self.lod(settings.layout).node_estimate();
        let advice = "lower horizon, raise detail_radius, or use larger chunks (layout)";
        if nodes > Self::MAX_NODES {
            return check.fail(
                "horizon",
                format!(
                    "about {nodes} terrain nodes around an anchor, over the {} limit: {advice}",
                    Self::MAX_NODES
                ),
            );
        }
        let bytes = nodes * settings.chunk_mesh_bytes();
        if bytes > Self::MESH_MEMORY_LIMIT {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            return check.fail(
                "horizon",
                format!(
                    "about {nodes} nodes of {} × {} tiles around an anchor need about {:.1} GiB \
                     of terrain meshes, over the {:.0} GiB limit: {advice} (or fewer \
                     layout.tiles)",
                    settings.layout.tiles,
                    settings.layout.tiles,
                    gib(bytes),
                    gib(Self::MESH_MEMORY_LIMIT)
                ),
            );
        }
        Ok(())
    }
}

/// Where chunk meshes live once they reach the GPU. Insert your own before adding the plugin;
/// it applies to chunks built after a change.
#[derive(Resource, Reflect, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct ChunkMeshOptions {
    /// Keep chunk meshes readable in the main world after they reach the GPU, for colliders or
    /// navigation meshes, at the cost of a CPU copy of every loaded chunk. Off by default: the
    /// meshes then live in the render world only.
    pub keep_mesh_data: bool,
}

impl ChunkMeshOptions {
    /// The asset usage chunk meshes get.
    #[must_use]
    pub fn usage(self) -> RenderAssetUsages {
        if self.keep_mesh_data {
            RenderAssetUsages::MAIN_WORLD | RenderAssetUsages::RENDER_WORLD
        } else {
            RenderAssetUsages::RENDER_WORLD
        }
    }
}

/// The generator compiled from the last valid [`BiomeWorldSettings`], and the last valid
/// [`BiomeWorldStreaming`], which the streamer and [`crate::BiomeWorld`] use: settings that
/// fail validation never reach them.
#[derive(Resource, Reflect, Clone, Debug)]
#[reflect(Resource, Debug, Clone)]
pub struct BiomeWorldState {
    #[reflect(ignore, clone)]
    generator: Arc<WorldGenerator>,
    settings: BiomeWorldSettings,
    streaming: BiomeWorldStreaming,
    generation: u64,
    error: Option<SettingsError>,
    /// The edits the generator has.
    #[reflect(ignore, clone)]
    edits: EditLog,
    /// Which content of [`BiomeWorldEdits`] those are.
    edits_stamp: u64,
    /// The areas the edits changed since the generation began.
    #[reflect(ignore, clone)]
    changes: Arc<AreaChanges>,
}

/// What [`BiomeWorldState::appended`] found.
enum Appended {
    /// No entry after the generator's.
    Nothing,
    /// The generator's set with the new entries laid over it.
    Edits(EditSet),
}

impl BiomeWorldState {
    pub(crate) fn new(settings: &BiomeWorldSettings, streaming: &BiomeWorldStreaming) -> Self {
        let validated = settings
            .validate()
            .and_then(|()| streaming.validate_with(settings));
        let (settings, streaming, error) = match validated {
            Ok(()) => (settings.clone(), streaming.clone(), None),
            Err(error) => {
                error!("biome world settings refused, using defaults: {error}");
                (
                    BiomeWorldSettings::default(),
                    BiomeWorldStreaming::default(),
                    Some(error),
                )
            }
        };
        Self {
            generator: Arc::new(
                WorldGenerator::new(settings.generator.clone()).expect("validated above"),
            ),
            settings,
            streaming,
            generation: 0,
            error,
            edits: EditLog::new(),
            edits_stamp: 0,
            changes: Arc::default(),
        }
    }

    /// The generator every chunk and query answers from (clone the `Arc` to use it on another
    /// thread).
    #[must_use]
    pub fn generator(&self) -> &Arc<WorldGenerator> {
        &self.generator
    }

    /// The last valid settings (the generator was built from their `generator`).
    #[must_use]
    pub fn settings(&self) -> &BiomeWorldSettings {
        &self.settings
    }

    /// The last valid streaming values.
    #[must_use]
    pub fn streaming(&self) -> &BiomeWorldStreaming {
        &self.streaming
    }

    /// Moves on each time the settings (or the trees' sizes, [`crate::TreeSize`]) change; chunks
    /// and tasks of older generations are replaced, never applied.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Moves the generation on: everything built is built again, and replaced once its
    /// replacement is in.
    pub(crate) fn rebuild(&mut self) {
        self.generation += 1;
        self.changes = Arc::default();
    }

    /// The areas terrain edits changed within the generation: the nodes within reach of each
    /// are built again (see [`AreaChanges::revision_of`]).
    pub(crate) fn area_changes(&self) -> Arc<AreaChanges> {
        self.changes.clone()
    }

    /// Gives the generator `edits`: each edit added, removed or replaced since the last call
    /// changes the area of its bounds, and only the nodes within reach of those are rebuilt.
    /// Edits numbered after all the others extend the generator's set; any other change
    /// compares the whole log and indexes it anew.
    pub(crate) fn take_edits(&mut self, edits: &BiomeWorldEdits) {
        let log = edits.log();
        let grew = edits.grew_from(self.edits_stamp);
        self.edits_stamp = edits.stamp();
        let set = match grew.then(|| self.appended(log)) {
            // The same content under another number: nothing to rebuild.
            Some(Some(Appended::Nothing)) => return,
            Some(Some(Appended::Edits(set))) => set,
            // Not grown from what the generator has, or refused as a whole: compare it all.
            _ => {
                let mut changed = Vec::new();
                for (now, then) in [(log, &self.edits), (&self.edits, log)] {
                    for (sequence, edit) in now.entries() {
                        if then.get(sequence) != Some(edit) {
                            changed.push(edit.bounds());
                        }
                    }
                }
                if changed.is_empty() {
                    return;
                }
                let changes = Arc::make_mut(&mut self.changes);
                for [min, max] in changed {
                    changes.push(min, max);
                }
                self.edits = log.clone();
                log.edit_set()
            }
        };
        let generator = (*self.generator).clone();
        self.generator = Arc::new(generator.with_edits(Arc::new(set)));
    }

    /// The entries of `log` numbered after the edits the generator has, laid over its set and
    /// recorded as changes; `None` if the set refuses them (then nothing changed here).
    fn appended(&mut self, log: &EditLog) -> Option<Appended> {
        let last = self.edits.last_sequence();
        let mut added: Vec<(u64, &EditShape)> = log
            .entries()
            .rev()
            .take_while(|&(sequence, _)| last.is_none_or(|last| sequence > last))
            .collect();
        if added.is_empty() {
            return Some(Appended::Nothing);
        }
        added.reverse();
        let shapes = added.iter().map(|&(_, edit)| edit.clone()).collect();
        let set = self.generator.edits().extended(shapes).ok()?;
        let changes = Arc::make_mut(&mut self.changes);
        for (sequence, edit) in added {
            let [min, max] = edit.bounds();
            changes.push(min, max);
            // `log` took it with the same checks.
            let recorded = self.edits.record(sequence, edit.clone());
            debug_assert!(recorded.is_ok(), "the state's log follows the world's");
        }
        Some(Appended::Edits(set))
    }

    /// Why the latest settings or streaming values were refused, if they were; the world keeps
    /// its last valid state.
    #[must_use]
    pub fn error(&self) -> Option<&SettingsError> {
        self.error.as_ref()
    }

    /// The chunk layout in use.
    #[must_use]
    pub fn layout(&self) -> &ChunkLayout {
        &self.settings.layout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brush(x: f64) -> EditShape {
        EditShape::Brush {
            center: [x, 20.0],
            radius: 9.0,
            falloff: 0.5,
            op: biome_core::edits::BrushOp::Raise(2.0),
        }
    }

    /// As `apply_edits` does it.
    fn take(state: &mut BiomeWorldState, edits: &mut BiomeWorldEdits) {
        state.take_edits(edits);
        edits.mark_taken();
    }

    /// Whatever way the edits change (pushed one by one past the edits a set keeps beside its
    /// index, recorded out of order, removed, replaced, or a copy of the resource that went its
    /// own way put back), the generator ends up with exactly the log's edits, and every change
    /// is recorded.
    #[test]
    fn the_generator_always_holds_the_logs_edits() {
        let mut state = BiomeWorldState::new(
            &BiomeWorldSettings::default(),
            &BiomeWorldStreaming::default(),
        );
        let mut edits = BiomeWorldEdits::default();
        let holds = |state: &BiomeWorldState, edits: &BiomeWorldEdits, what: &str| {
            assert_eq!(
                **state.generator().edits(),
                edits.log().edit_set(),
                "{what}"
            );
            assert_eq!(state.edits, *edits.log(), "{what}");
            for x in [-3.0, 0.0, 40.0, 399.0, 1200.0] {
                let (a, b) = (
                    state.generator().height_at(x, 20.0),
                    state
                        .generator()
                        .as_ref()
                        .clone()
                        .with_edits(Arc::new(edits.log().edit_set()))
                        .height_at(x, 20.0),
                );
                assert_eq!(a.to_bits(), b.to_bits(), "{what} at {x}");
            }
        };
        for k in 0..600 {
            edits.push(brush(f64::from(k) * 2.0)).unwrap();
            take(&mut state, &mut edits);
        }
        holds(&state, &edits, "pushed one by one");
        // The last brush's chunk: its change is the 600th.
        let last = biome_core::NodeCoord::new(0, 9, 0);
        assert_eq!(state.area_changes().revision_of(last, state.layout()), 600);
        // A copy goes its own way while the original grows and is taken.
        let mut copy = edits.clone();
        edits.push(brush(-50.0)).unwrap();
        take(&mut state, &mut edits);
        copy.push(brush(-90.0)).unwrap();
        take(&mut state, &mut copy);
        holds(&state, &copy, "a copy that went its own way");
        copy.record(3, brush(5.0)).unwrap_err();
        copy.remove(3).unwrap();
        take(&mut state, &mut copy);
        holds(&state, &copy, "removed");
        copy.record(3, brush(7.0)).unwrap();
        take(&mut state, &mut copy);
        holds(&state, &copy, "recorded out of order");
        let mut log = EditLog::new();
        log.push(brush(1.0)).unwrap();
        copy.replace(log);
        copy.push(brush(2.0)).unwrap();
        take(&mut state, &mut copy);
        holds(&state, &copy, "replaced");
    }

    /// Levels past `full_mesh_levels` mesh in blocks twice as wide each, as the layout fits
    /// them; levels that draw rivers stay whole.
    #[test]
    fn far_levels_mesh_in_wider_blocks_where_no_river_is_drawn() {
        let settings = BiomeWorldSettings::default();
        let generator = WorldGenerator::new(settings.generator.clone()).unwrap();
        let blocks = (0..=9).map(|level| settings.interior_block_at(level, &generator));
        assert_eq!(blocks.collect::<Vec<_>>(), [1, 1, 1, 1, 1, 1, 2, 4, 8, 16]);
        let six_tiles = BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 6,
                ..default()
            },
            ..default()
        };
        assert_eq!(six_tiles.interior_block_at(8, &generator), 2);
        let mut rivers = BiomeWorldSettings {
            full_mesh_levels: 0,
            ..default()
        };
        rivers.generator.rivers.enabled = true;
        let generator = WorldGenerator::new(rivers.generator.clone()).unwrap();
        let drawn = |level| generator.draws_rivers_at(level, &rivers.layout);
        assert!(drawn(0) && drawn(1) && !drawn(12));
        for level in 0..=12 {
            let block = rivers.interior_block_at(level, &generator);
            assert_eq!(block == 1, drawn(level) || level == 0, "level {level}");
        }
    }

    #[test]
    fn the_view_is_counted_and_its_memory_budgeted() {
        let settings = BiomeWorldSettings::default();
        let streaming = BiomeWorldStreaming::default();
        streaming.validate_with(&settings).unwrap();
        let nodes = streaming.lod(settings.layout).node_estimate();
        assert!(nodes * settings.chunk_mesh_bytes() < BiomeWorldStreaming::MESH_MEMORY_LIMIT / 4);
        // Full detail to 4 km: about 5,800 chunks, 1.2 GiB of meshes.
        let error = BiomeWorldStreaming::full_detail(4096.0)
            .validate_with(&settings)
            .unwrap_err();
        assert_eq!(error.field, "horizon");
        assert!(error.reason.contains("GiB"), "{error}");
        // To 8 km: more nodes than any view needs.
        let error = BiomeWorldStreaming::full_detail(8192.0)
            .validate_with(&settings)
            .unwrap_err();
        assert!(error.reason.contains("nodes"), "{error}");
        // Tiny chunks far out: too many nodes, whatever their size.
        let tiny = BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 1,
                tile_size: 0.0625,
                ..default()
            },
            ..default()
        };
        let error = BiomeWorldStreaming::full_detail(1000.0)
            .validate_with(&tiny)
            .unwrap_err();
        assert_eq!(error.field, "horizon");
        assert!(error.reason.contains("nodes"), "{error}");
    }

    #[test]
    fn streaming_values_are_refused_by_name() {
        let refused = |change: fn(&mut BiomeWorldStreaming)| {
            let mut streaming = BiomeWorldStreaming::default();
            change(&mut streaming);
            streaming
                .validate_with(&BiomeWorldSettings::default())
                .unwrap_err()
                .field
        };
        assert_eq!(refused(|s| s.horizon = 1e6), "horizon");
        assert_eq!(refused(|s| s.detail_radius = f32::NAN), "detail_radius");
        assert_eq!(refused(|s| s.hysteresis = -0.1), "hysteresis");
        assert_eq!(refused(|s| s.fade_seconds = 9.0), "fade_seconds");
        assert_eq!(refused(|s| s.max_tasks = 0), "max_tasks");
        assert_eq!(refused(|s| s.apply_budget_ms = f32::NAN), "apply_budget_ms");
        assert_eq!(refused(|s| s.frame_budget_ms = -1.0), "frame_budget_ms");
        // Odd tile counts suit full detail only.
        let odd = BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 15,
                ..default()
            },
            ..default()
        };
        let error = BiomeWorldStreaming::default()
            .validate_with(&odd)
            .unwrap_err();
        assert_eq!(error.field, "layout.tiles");
        BiomeWorldStreaming::full_detail(500.0)
            .validate_with(&odd)
            .unwrap();
        let refused = |change: fn(&mut BiomeWorldSettings)| {
            let mut settings = BiomeWorldSettings::default();
            change(&mut settings);
            settings.validate().unwrap_err().field
        };
        assert_eq!(refused(|s| s.layout.tile_size = 0.3), "layout.tile_size");
        assert_eq!(refused(|s| s.far_forest_levels = 7), "far_forest_levels");
        assert_eq!(refused(|s| s.full_mesh_levels = 17), "full_mesh_levels");
        // A level-3 node of default chunks holds about 26,000 tree spots.
        assert_eq!(refused(|s| s.tree_levels = 3), "tree_levels");
        assert_eq!(
            refused(|s| {
                s.layout.tiles = 256;
                s.layout.tile_size = 64.0;
            }),
            "trees.spacing"
        );
    }
}
