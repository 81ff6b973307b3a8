//! [`ChunkPlanner`]: which level-of-detail nodes should exist around the anchors, and in which
//! groups built nodes may replace shown ones, as a plain type the streaming systems feed and
//! obey, tested without an `App`.
//!
//! The nodes form a quadtree over the world. Roots are the coarsest nodes within the horizon of
//! an anchor; a node is split while an anchor is nearer to it than its level's split distance
//! (twice the distance of the level below, starting from the detail radius), and stays split
//! until the anchor is a hysteresis share farther. Splits then spread until neighbouring leaves
//! differ by at most one level (2:1 balance), and each leaf notes which sides and corners meet
//! a coarser leaf, so its edges can follow the coarse ones. The leaves are the wanted nodes.
//!
//! Leaves are wanted a little past the horizon (half the hysteresis share), so the land ahead
//! of a moving anchor is built before it comes into view.
//!
//! What is on screen changes only by [`Swap`]s, so that it stays watertight in every frame: a
//! node's stitched edge assumes what lies beside it, so a node is shown together with every
//! node its edges depend on, and together with them the shown nodes they cover and the shown
//! nodes whose edges would no longer meet theirs go. A swap waits until all of its builds are
//! ready; swaps are as small as the edges allow (usually a node and its few neighbours), so
//! replacements keep coming while the anchor moves. Between nodes of different settings the
//! seams are the change itself, and nodes of another layout lie under the tiling until the
//! wanted nodes over them are all shown.
//!
//! A shown node that is no longer wanted and that no wanted node overlaps (the anchor moved
//! away) stays while it is within the horizon plus the hysteresis share, so an anchor hovering
//! at the horizon does not churn either; nodes of older settings go at once there.

use bevy::platform::collections::{HashMap, HashSet};
use bevy::platform::time::Instant;

use std::sync::Arc;

use biome_core::{ChunkCoord, ChunkLayout, NodeCoord, Stitch};

use super::changes::{AreaChanges, same};

/// An axis-aligned rectangle of the world, `[min, max)` on both axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeRect {
    /// The corner with the smallest coordinates.
    pub min: [f64; 2],
    /// The corner with the largest coordinates (outside the rectangle).
    pub max: [f64; 2],
}

impl NodeRect {
    /// The area node `node` covers with `layout`.
    #[must_use]
    pub fn of(node: NodeCoord, layout: &ChunkLayout) -> Self {
        let min = node.origin(layout);
        let size = node.size(layout);
        Self {
            min,
            max: [min[0] + size, min[1] + size],
        }
    }

    /// Distance from `point` to the rectangle (0 inside).
    #[must_use]
    pub fn distance(&self, point: [f64; 2]) -> f64 {
        let dx = (self.min[0] - point[0])
            .max(point[0] - self.max[0])
            .max(0.0);
        let dz = (self.min[1] - point[1])
            .max(point[1] - self.max[1])
            .max(0.0);
        // Not `hypot`: its care for overflow costs more than the rest of the planner.
        (dx * dx + dz * dz).sqrt()
    }

    /// Distance from `point` to the rectangle's farthest corner.
    #[must_use]
    pub fn farthest(&self, point: [f64; 2]) -> f64 {
        let dx = (point[0] - self.min[0])
            .abs()
            .max((point[0] - self.max[0]).abs());
        let dz = (point[1] - self.min[1])
            .abs()
            .max((point[1] - self.max[1]).abs());
        (dx * dx + dz * dz).sqrt()
    }

    /// Whether the two rectangles share area.
    #[must_use]
    pub fn overlaps(&self, other: &NodeRect) -> bool {
        self.min[0] < other.max[0]
            && other.min[0] < self.max[0]
            && self.min[1] < other.max[1]
            && other.min[1] < self.max[1]
    }

    /// Whether `point` lies inside.
    #[must_use]
    pub fn contains(&self, point: [f64; 2]) -> bool {
        (self.min[0]..self.max[0]).contains(&point[0])
            && (self.min[1]..self.max[1]).contains(&point[1])
    }
}

/// How far the planner reaches, and where it changes level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodConfig {
    /// The chunk layout: level-0 nodes are its chunks.
    pub layout: ChunkLayout,
    /// Chunks (level 0) are used within this distance of an anchor, world units; each coarser
    /// level within twice the distance of the one before.
    pub detail_radius: f64,
    /// Nothing is wanted farther than this from every anchor, world units.
    pub horizon: f64,
    /// A split holds until the anchor is this share of its split distance farther, so an anchor
    /// hovering at a level boundary does not churn.
    pub hysteresis: f64,
}

impl LodConfig {
    /// The coarsest level used: the first whose range reaches the horizon.
    #[must_use]
    pub fn top_level(&self) -> u8 {
        let mut level = 0;
        while level < NodeCoord::MAX_LEVEL
            && self.detail_radius * f64::from(1u32 << level) < self.horizon
        {
            level += 1;
        }
        level
    }

    /// About how many nodes one anchor wants at most, from the level ranges alone (an upper
    /// bound the tests check against the planner, for validation before planning anything).
    #[must_use]
    pub fn node_estimate(&self) -> u64 {
        let top = self.top_level();
        let size = self.layout.chunk_size();
        (0..=top)
            .map(|level| {
                let s = size * f64::from(1u32 << level);
                // Leaves of this level lie within their parent's reach (held by the hysteresis),
                // plus the parent's width and one node for the 2:1 balance.
                let reach = if level == top {
                    self.keep_distance()
                } else {
                    self.split_distance(level + 1) * (1.0 + self.hysteresis)
                };
                let outer = reach + 3.0 * s;
                // Nodes wholly within their own split distance are split, not leaves.
                let inner = if level == 0 {
                    0.0
                } else {
                    (self.split_distance(level) - s * std::f64::consts::SQRT_2).max(0.0)
                };
                let area = std::f64::consts::PI * (outer * outer - inner * inner);
                (area / (s * s)).ceil().min(u64::MAX as f64 / 64.0) as u64
            })
            .sum()
    }

    /// Nodes are wanted within this distance of an anchor: the horizon and half the
    /// hysteresis share more, so an anchor moving on finds the land ahead of it built.
    fn reach(&self) -> f64 {
        self.horizon * (1.0 + self.hysteresis / 2.0)
    }

    /// Shown nodes no wanted node overlaps stay within this distance of an anchor.
    fn keep_distance(&self) -> f64 {
        self.horizon * (1.0 + self.hysteresis)
    }

    /// The distances the selection compares with: reach, keep, and each level's split and held
    /// distances.
    fn thresholds(&self) -> Vec<f64> {
        let splits = (1..=self.top_level()).flat_map(|level| {
            let split = self.split_distance(level);
            [split, split * (1.0 + self.hysteresis)]
        });
        [self.reach(), self.keep_distance()]
            .into_iter()
            .chain(splits)
            .collect()
    }

    /// Distance within which a node of `level` (at least 1) is split.
    fn split_distance(&self, level: u8) -> f64 {
        self.detail_radius * f64::from(1u32 << (level - 1))
    }
}

/// A build the planner asks for: a node with its stitch, for one generation of the settings (the
/// generation moves on whenever the world or the layout changes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BuildKey {
    /// The node.
    pub node: NodeCoord,
    /// The sides and corners that follow a coarser neighbour.
    pub stitch: Stitch,
    /// The settings generation it is built for.
    pub generation: u64,
    /// The revision of its area it is built for ([`AreaChanges::revision_of`]): 0 until a
    /// change (a terrain edit) reaches it.
    pub revision: u64,
}

/// What the planner wants built.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Builds wanted and not shown yet, most urgent first. Builds under way for any other key
    /// can be cancelled.
    pub build: Vec<BuildKey>,
}

/// A change of what is shown, made in one frame: `show` appears and `retire` goes (once
/// `show` has faded in, when it fades), so that every shown edge still meets what is shown
/// beside it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Swap {
    /// Ready builds to show, most urgent first.
    pub show: Vec<BuildKey>,
    /// Shown nodes that go.
    pub retire: Vec<BuildKey>,
    /// Whether `show` covers something on screen (it then fades in over it, and `retire` goes
    /// when the fade ends).
    pub replaces: bool,
}

/// The planner. Feed it the anchors each frame with [`ChunkPlanner::update`], tell it which
/// builds are ready to show ([`ChunkPlanner::ready`]), take the [`Swap`]s it allows
/// ([`ChunkPlanner::take_swaps`]), and tell it when their fades end ([`ChunkPlanner::faded`])
/// and what left the screen without it ([`ChunkPlanner::hidden`]).
///
/// Work follows change: when some anchors move, only the roots near where they were and where
/// they are now are selected again, and the plan looks again only at what changed (the builds
/// still missing, and the shown nodes under roots whose selection or screen changed).
#[derive(Clone, Debug, Default)]
pub struct ChunkPlanner {
    config: Option<LodConfig>,
    generation: u64,
    /// The areas changed within the generation: a node's builds are keyed by its revision.
    changes: Arc<AreaChanges>,
    /// Whether `changes` changed since the last selection.
    changes_due: bool,
    /// The anchors as the selection saw them; each moves on only when its anchor moved past
    /// the threshold, so the selection is a function of these.
    anchors: Vec<[f64; 2]>,
    /// The roots.
    roots: HashSet<NodeCoord>,
    /// Nodes split into their children.
    split: HashSet<NodeCoord>,
    /// The leaves: nodes wanted, with their stitch.
    wanted: HashMap<NodeCoord, Stitch>,
    /// Wanted builds not shown yet.
    missing: HashSet<BuildKey>,
    /// What is on screen, with the area it covers.
    shown: HashMap<BuildKey, NodeRect>,
    /// The same, indexed by node and by root.
    screen: ShownIndex,
    /// Roots whose shown nodes must be judged again for retirement: the selection or the screen
    /// changed over them.
    unsettled: HashSet<NodeCoord>,
    /// Shown nodes judged ready to retire alone: no wanted node overlaps them.
    retirable: HashSet<BuildKey>,
    /// Wanted builds ready to show.
    ready: HashSet<BuildKey>,
    /// Shown nodes still fading in over what they replace: no swap takes them until they are in.
    locked: HashSet<BuildKey>,
    /// Whether the screen, the ready builds or the selection changed since the last swaps.
    swaps_due: bool,
    /// The answer, made again only when the selection or the screen changed.
    plan: Plan,
    stale: bool,
    selection: Selection,
    cost: SelectionCost,
}

/// What selecting has cost so far, to choose the cheaper way when anchors move. Either way
/// selects the same nodes from the same moves (a test holds them equal), so timing only decides
/// the work, never the result.
#[derive(Clone, Copy, Debug, Default)]
struct SelectionCost {
    /// Selecting everything, and the plan after it.
    whole: Average,
    /// Selecting near the moves, and the plan after it, per move.
    near: Average,
    /// Selections since the way not chosen was last tried.
    since_other: u32,
}

impl SelectionCost {
    /// The way not chosen is tried again after this many selections, so a cost measured once
    /// in odd circumstances does not decide for good.
    const RETRY: u32 = 64;

    /// Whether to select everything for `moves` moves.
    fn whole_for(&mut self, moves: usize) -> bool {
        let whole = match (self.whole.ms, self.near.ms) {
            (Some(whole), Some(near)) => whole <= near * moves as f64,
            // Try each way once.
            (None, _) => true,
            (Some(_), None) => false,
        };
        self.since_other += 1;
        if self.since_other >= Self::RETRY {
            self.since_other = 0;
            return !whole;
        }
        whole
    }
}

/// A moving average of milliseconds, none before the first sample.
#[derive(Clone, Copy, Debug, Default)]
struct Average {
    ms: Option<f64>,
}

impl Average {
    fn record(&mut self, ms: f64) {
        self.ms = Some(self.ms.map_or(ms, |average| 0.8 * average + 0.2 * ms));
    }
}

/// Anchors selected again per update, unless farther than [`FORCED_MOVE`] thresholds.
const MOVES_PER_UPDATE: usize = 4;

/// An anchor this many move thresholds from where the selection saw it is always taken: the lag
/// stays within the margin past the horizon (two thresholds at full detail) and within the
/// finest hysteresis gap (four).
const FORCED_MOVE: f64 = 1.5;

/// An anchor's move, from where the selection last saw it.
#[derive(Clone, Copy, Debug)]
struct Move {
    from: [f64; 2],
    to: [f64; 2],
}

/// How the planner selects again when anchors move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Selection {
    /// Near the moves, or everything when that has cost less so far.
    #[default]
    Auto,
    /// Always everything (for the same moves): the tests' oracle.
    #[cfg_attr(not(test), expect(dead_code, reason = "the tests' oracle"))]
    Whole,
    /// Always near the moves, for the tests to compare with the oracle.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "compared with the oracle in tests")
    )]
    Near,
}

impl ChunkPlanner {
    /// Selects the wanted nodes for `anchors` (world `(x, z)`) under `config` and `generation`, and
    /// says what to build and what to retire. Cheap when nothing moved: an anchor counts as
    /// moved once it is a quarter of the finest hysteresis gap from where the selection last saw
    /// it (16 units by default: well inside the gap and the margin past the horizon), and then
    /// only the roots where its move can change a choice are selected again (a few moves per
    /// update). A new config, generation or anchor count selects everything again.
    pub fn update(&mut self, anchors: &[[f64; 2]], config: &LodConfig, generation: u64) -> &Plan {
        if self.config != Some(*config)
            || self.generation != generation
            || anchors.len() != self.anchors.len()
            || std::mem::take(&mut self.changes_due)
        {
            if self.config.is_some_and(|old| old.layout != config.layout) {
                // Nodes of another layout cover other squares: no root or split carries over.
                self.roots.clear();
                self.split.clear();
            }
            self.config = Some(*config);
            self.generation = generation;
            self.anchors = anchors.to_vec();
            self.select_all();
        } else {
            let taken = self.moves_to_take(anchors, config);
            if !taken.is_empty() {
                let moves: Vec<Move> = taken
                    .iter()
                    .map(|&k| Move {
                        from: self.anchors[k],
                        to: anchors[k],
                    })
                    .collect();
                for &k in &taken {
                    self.anchors[k] = anchors[k];
                }
                let whole = match self.selection {
                    Selection::Auto => self.cost.whole_for(moves.len()),
                    Selection::Whole => true,
                    Selection::Near => false,
                };
                let started = Instant::now();
                if whole {
                    self.select_all();
                } else {
                    self.select_near(&moves);
                }
                self.plan();
                let ms = elapsed_ms(started);
                if whole {
                    self.cost.whole.record(ms);
                } else {
                    self.cost.near.record(ms / moves.len() as f64);
                }
            }
        }
        // Builds the selection no longer wants are not shown.
        let missing = &self.missing;
        self.ready.retain(|key| missing.contains(key));
        self.plan()
    }

    /// The anchors (indices) whose moves to take in now.
    ///
    /// An anchor has moved once it is more than the threshold from where the selection last saw
    /// it. The farthest are taken first, and only a few per update, so anchors moving in step
    /// spread their selections over a few updates (and are out of step after); one
    /// [`FORCED_MOVE`] thresholds away is always taken.
    fn moves_to_take(&self, anchors: &[[f64; 2]], config: &LodConfig) -> Vec<usize> {
        // A quarter of the finest hysteresis gap, and of the margin past the horizon at full
        // detail.
        let threshold = config.detail_radius.min(config.horizon) * config.hysteresis / 4.0;
        let mut moved: Vec<(f64, usize)> = anchors
            .iter()
            .zip(&self.anchors)
            .map(|(now, seen)| {
                let (dx, dz) = (now[0] - seen[0], now[1] - seen[1]);
                (dx * dx + dz * dz).sqrt()
            })
            .enumerate()
            .filter(|&(_, distance)| distance > threshold)
            .map(|(k, distance)| (distance, k))
            .collect();
        moved.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        moved
            .iter()
            .enumerate()
            .filter(|&(rank, &(distance, _))| {
                rank < MOVES_PER_UPDATE || distance > FORCED_MOVE * threshold
            })
            .map(|(_, &(_, k))| k)
            .collect()
    }

    /// Takes in the areas changed within the generation (before [`ChunkPlanner::update`]): the
    /// nodes within reach of a new change are wanted at its revision, and their shown builds
    /// are replaced (together with their neighbours of older revisions, so edges still meet).
    pub fn changed(&mut self, changes: &Arc<AreaChanges>) {
        if !same(&self.changes, changes) {
            self.changes = changes.clone();
            self.changes_due = true;
        }
    }

    /// The build wanted for `node`, if it is wanted.
    #[must_use]
    pub fn wanted_key(&self, node: NodeCoord) -> Option<BuildKey> {
        self.wanted.get(&node).map(|&stitch| self.key(node, stitch))
    }

    /// Records that a build of `key` is ready to show (ignored unless the plan still wants it).
    pub fn ready(&mut self, key: BuildKey) {
        if self.missing.contains(&key) && self.ready.insert(key) {
            self.swaps_due = true;
        }
    }

    /// Records that the build of `key` is no longer ready (it was lost before it was shown).
    pub fn not_ready(&mut self, key: &BuildKey) {
        self.ready.remove(key);
    }

    /// Records that `key` has faded in: swaps may now replace it, and what lies under it may go.
    pub fn faded(&mut self, key: &BuildKey) {
        if self.locked.remove(key)
            && let Some(rect) = self.shown.get(key).copied()
        {
            self.unsettle(key, &rect);
            self.stale = true;
            self.swaps_due = true;
        }
    }

    /// Records that `key` left the screen without a swap (despawned by someone else: if it is
    /// still wanted, the next plan builds it again).
    pub fn hidden(&mut self, key: &BuildKey) {
        if let Some(rect) = self.shown.remove(key) {
            self.screen.remove(key, &rect);
            self.retirable.remove(key);
            self.locked.remove(key);
            if self.is_current(key) {
                self.missing.insert(*key);
            }
            self.unsettle(key, &rect);
            self.stale = true;
            self.swaps_due = true;
        }
    }

    /// The swaps that can be made now, which the planner counts as made: the ready builds in
    /// groups that keep every shown edge meeting its neighbours', with the shown nodes they
    /// replace, most urgent first; then the shown nodes that go alone. With `fade`, the shown
    /// nodes of a swap that replaces something stay out of later swaps until
    /// [`ChunkPlanner::faded`].
    ///
    /// A swap is what a ready build needs with it: the shown nodes it overlaps, and the shown
    /// nodes of these settings whose edges would not meet its own, go; the wanted nodes over
    /// what goes come; and so on until every edge meets. It can be made once all of its builds
    /// are ready and none of its shown nodes is fading in.
    pub fn take_swaps(&mut self, fade: bool) -> Vec<Swap> {
        self.plan();
        if !self.swaps_due || self.config.is_none() {
            return Vec::new();
        }
        self.swaps_due = false;
        let mut needs = SwapNeeds::default();
        let mut taken = HashSet::new();
        let mut swaps = Vec::new();
        let seeds: Vec<BuildKey> = self
            .plan
            .build
            .iter()
            .filter(|key| self.ready.contains(*key))
            .copied()
            .collect();
        for seed in seeds {
            if taken.contains(&seed) || !needs.can_go(self, seed) {
                continue;
            }
            let mut members = HashSet::new();
            let mut stack = vec![seed];
            while let Some(key) = stack.pop() {
                if members.insert(key) {
                    stack.extend(needs.of(self, key).iter().copied());
                }
            }
            if members.iter().any(|key| taken.contains(key)) {
                // It shares nodes with a swap of this round: look again next round.
                self.swaps_due = true;
                continue;
            }
            let (mut show, mut retire): (Vec<BuildKey>, Vec<BuildKey>) = members
                .iter()
                .partition(|key| !self.shown.contains_key(*key));
            show.sort_by_key(|key| self.plan.build.iter().position(|k| k == key));
            retire.sort_by_key(|key| (key.node.level, key.node.x, key.node.z));
            taken.extend(members);
            swaps.push(Swap {
                show,
                retire,
                replaces: false,
            });
        }
        let alone: Vec<BuildKey> = self
            .retirable
            .iter()
            .filter(|key| !taken.contains(*key))
            .copied()
            .collect();
        swaps.extend(alone.into_iter().map(|key| Swap {
            show: Vec::new(),
            retire: vec![key],
            replaces: false,
        }));
        let retry = self.swaps_due;
        for swap in &mut swaps {
            swap.replaces = !swap.show.is_empty()
                && (!swap.retire.is_empty()
                    || swap
                        .show
                        .iter()
                        .any(|key| self.screen.covers(&self.rect(key.node), &self.shown)));
            for key in &swap.retire {
                self.hidden(key);
            }
            for &key in &swap.show {
                self.show(key);
                if fade && swap.replaces {
                    self.locked.insert(key);
                }
            }
        }
        // What these swaps changed unblocks nothing that waits: only a swap that met one of
        // them is worth another look.
        self.swaps_due = retry;
        swaps
    }

    /// What `key` needs in its swap (see [`SwapNeeds`]).
    fn needed_with(&self, key: BuildKey) -> Vec<BuildKey> {
        if let Some(rect) = self.shown.get(&key) {
            let mut needed = Vec::new();
            let root = self.screen.root_of(&key, rect);
            self.visit_wanted(rect, root, |wanted| {
                if !self.shown.contains_key(&wanted) {
                    needed.push(wanted);
                }
                true
            });
            return needed;
        }
        let mut needed = self.screen.overlapping(key.node);
        for side in 0..4 {
            needed.extend(
                self.screen
                    .touching(key.node, side)
                    .into_iter()
                    .filter(|other| {
                        other.generation == self.generation
                            && !self.is_current(other)
                            && (!edges_meet(key, side, *other)
                                || other.revision != self.revision_of(other.node))
                    }),
            );
        }
        needed
    }

    /// Whether `key` holds its swap back: a build not ready, or a shown node still fading in.
    fn waits(&self, key: &BuildKey) -> bool {
        if self.shown.contains_key(key) {
            self.locked.contains(key)
        } else {
            !self.ready.contains(key)
        }
    }

    /// Records that `key` is on screen.
    fn show(&mut self, key: BuildKey) {
        if let Some(config) = &self.config {
            let rect = NodeRect::of(key.node, &config.layout);
            match self.shown.insert(key, rect) {
                None => self.screen.insert(key, &rect),
                // Shown again under another layout: index it where it now sits.
                Some(old) if old != rect => {
                    self.screen.remove(&key, &old);
                    self.screen.insert(key, &rect);
                }
                Some(_) => {}
            }
            self.missing.remove(&key);
            self.ready.remove(&key);
            self.unsettle(&key, &rect);
            self.stale = true;
        }
    }

    /// The plan for the last anchors and config, made again if the screen changed since.
    pub fn plan(&mut self) -> &Plan {
        if self.stale && self.config.is_some() {
            self.plan = self.make_plan();
            self.stale = false;
        }
        &self.plan
    }

    /// The keys [`Plan::build`] lists that `ready` holds, in its order (most urgent first): the
    /// finished builds to apply next.
    pub fn ready_in_order<V>(&mut self, ready: &HashMap<BuildKey, V>) -> Vec<BuildKey> {
        self.plan()
            .build
            .iter()
            .filter(|key| ready.contains_key(*key))
            .copied()
            .collect()
    }

    /// Whether `key` is wanted and not shown yet: a build of it is worth finishing.
    #[must_use]
    pub fn wants(&self, key: &BuildKey) -> bool {
        self.missing.contains(key)
    }

    /// The wanted nodes and their stitches.
    #[cfg(any(test, feature = "internals"))]
    #[must_use]
    pub fn wanted(&self) -> &HashMap<NodeCoord, Stitch> {
        &self.wanted
    }

    /// What is on screen.
    #[cfg(test)]
    fn shown_nodes(&self) -> &HashMap<BuildKey, NodeRect> {
        &self.shown
    }

    /// Whether the last plan asked for nothing: every wanted node is shown and faded in, and
    /// what else is shown lies in the hysteresis ring beyond the horizon.
    #[cfg(test)]
    fn is_settled(&self) -> bool {
        !self.stale
            && self.plan.build.is_empty()
            && self.retirable.is_empty()
            && self.locked.is_empty()
    }

    fn is_current(&self, key: &BuildKey) -> bool {
        key.generation == self.generation
            && self.wanted.get(&key.node) == Some(&key.stitch)
            && key.revision == self.revision_of(key.node)
    }

    /// The revision `node`'s builds are for.
    fn revision_of(&self, node: NodeCoord) -> u64 {
        self.changes.revision_of(node, &self.config().layout)
    }

    fn config(&self) -> &LodConfig {
        self.config.as_ref().expect("selected after a config")
    }

    fn rect(&self, node: NodeCoord) -> NodeRect {
        NodeRect::of(node, &self.config().layout)
    }

    /// Distance from the nearest of `anchors` to `node`.
    fn distance(&self, node: NodeCoord, anchors: &[[f64; 2]]) -> f64 {
        let rect = self.rect(node);
        anchors
            .iter()
            .map(|&a| rect.distance(a))
            .fold(f64::INFINITY, f64::min)
    }

    /// The roots whose squares meet the square of half-width `radius` around `point`.
    fn roots_around(
        &self,
        point: [f64; 2],
        radius: f64,
    ) -> impl Iterator<Item = NodeCoord> + use<> {
        let config = self.config();
        let top = config.top_level();
        let [x, z] = point;
        let low = ChunkCoord::containing(x - radius, z - radius, &config.layout);
        let high = ChunkCoord::containing(x + radius, z + radius, &config.layout);
        let (a, b) = (NodeCoord::holding(low, top), NodeCoord::holding(high, top));
        (a.z..=b.z).flat_map(move |nz| (a.x..=b.x).map(move |nx| NodeCoord::new(top, nx, nz)))
    }

    /// Selects every root again, and judges every shown node again.
    fn select_all(&mut self) {
        let config = *self.config();
        let top = config.top_level();
        if self.screen.layout != Some(config.layout) || self.screen.top != top {
            self.screen = ShownIndex::new(config.layout, top, &self.shown);
        }
        let old_roots = std::mem::take(&mut self.roots);
        let old_split = std::mem::take(&mut self.split);
        self.wanted.clear();
        self.missing.clear();
        self.retirable.clear();
        let anchors = self.anchors.clone();
        self.reselect(None, &anchors, &old_roots, &old_split, &HashMap::new());
        self.unsettled = self.screen.by_root.keys().copied().collect();
        self.stale = true;
    }

    /// The anchors that can make roots or splits where `moves` change something.
    fn involved(&self, moves: &[Move]) -> Vec<[f64; 2]> {
        self.anchors
            .iter()
            .copied()
            .filter(|&a| moves.iter().any(|step| self.involves(step, a)))
            .collect()
    }

    /// Whether `anchor` can make roots or splits where `step` changes something: within the keep
    /// distance of the area [`ChunkPlanner::select_near`] takes for it (the keep distance and two
    /// roots around either end).
    fn involves(&self, step: &Move, anchor: [f64; 2]) -> bool {
        let config = self.config();
        let root_size = NodeCoord::new(config.top_level(), 0, 0).size(&config.layout);
        let radius = 2.0 * config.keep_distance() + 3.0 * root_size;
        [step.from, step.to]
            .iter()
            .any(|p| (anchor[0] - p[0]).abs().max((anchor[1] - p[1]).abs()) < radius)
    }

    /// Selects again the roots where `moves` can change something.
    fn select_near(&mut self, moves: &[Move]) {
        let config = *self.config();
        let top = config.top_level();
        let keep = config.keep_distance();
        // Every choice compares a distance to the nearest anchor with one of these. A root on
        // the same side of each, at every point, before and after every move, keeps its choices.
        let thresholds = config.thresholds();
        let mut area = HashSet::new();
        for step in moves {
            for root in [step.from, step.to]
                .into_iter()
                .flat_map(|p| self.roots_around(p, keep))
            {
                let rect = self.rect(root);
                let sides = |p: [f64; 2]| (rect.distance(p), rect.farthest(p));
                let (from, to) = (sides(step.from), sides(step.to));
                let crosses = thresholds.iter().any(|&t| {
                    let inside = from.1 < t && to.1 < t;
                    let outside = from.0 >= t && to.0 >= t;
                    !inside && !outside
                });
                if crosses {
                    area.insert(root);
                }
            }
        }
        if top > 0 {
            // A change of splits forces splits up to a root's width away for the 2:1 balance
            // (one node of each finer level at most), and changes stitches a node further.
            let changed: Vec<NodeCoord> = area.iter().copied().collect();
            area.extend(changed.into_iter().flat_map(|root| {
                (-2..=2).flat_map(move |dz| (-2..=2).map(move |dx| offset(root, dx, dz)))
            }));
        }
        let anchors = self.involved(moves);
        let (mut old_roots, mut old_split, mut old_wanted) =
            (HashSet::new(), HashSet::new(), HashMap::new());
        let mut stack = Vec::new();
        for &root in &area {
            if self.roots.remove(&root) {
                old_roots.insert(root);
                stack.push(root);
            }
            while let Some(node) = stack.pop() {
                if self.split.remove(&node) {
                    old_split.insert(node);
                    stack.extend(node.children());
                } else if let Some(stitch) = self.wanted.remove(&node) {
                    old_wanted.insert(node, stitch);
                }
            }
        }
        self.reselect(Some(&area), &anchors, &old_roots, &old_split, &old_wanted);
        self.unsettled.extend(
            area.iter()
                .filter(|root| self.screen.by_root.contains_key(*root)),
        );
        self.stale = true;
    }

    /// Makes the roots, splits and leaves of `area` (everywhere if `None`; emptied of them
    /// before) for `anchors` (all those that reach it), with `old_roots` and `old_split` splits for
    /// the hysteresis, and brings the missing builds up to date against `old_wanted`.
    fn reselect(
        &mut self,
        area: Option<&HashSet<NodeCoord>>,
        anchors: &[[f64; 2]],
        old_roots: &HashSet<NodeCoord>,
        old_split: &HashSet<NodeCoord>,
        old_wanted: &HashMap<NodeCoord, Stitch>,
    ) {
        let config = *self.config();
        // Roots: the coarsest nodes within the horizon of an anchor, kept out to the hysteresis
        // share beyond it (stitches next to them then hold too).
        let keep = config.keep_distance();
        let is_root = |node, distance| {
            distance < config.reach() || (distance < keep && old_roots.contains(&node))
        };
        let mut roots: HashMap<NodeCoord, f64> = HashMap::new();
        if let Some(area) = area {
            for &node in area {
                let distance = self.distance(node, anchors);
                if is_root(node, distance) {
                    roots.insert(node, distance);
                }
            }
        } else {
            for &anchor in anchors {
                for node in self.roots_around(anchor, keep) {
                    let distance = self.rect(node).distance(anchor);
                    if is_root(node, distance) {
                        let nearest = roots.entry(node).or_insert(distance);
                        *nearest = nearest.min(distance);
                    }
                }
            }
        }
        let mut split = Vec::new();
        for &root in roots.keys() {
            self.split_down(root, anchors, old_split, &mut split);
        }
        self.split.extend(split.iter().copied());
        // The splits next to the area can force splits in it.
        let border: HashSet<NodeCoord> = match area {
            Some(area) if !self.split.is_empty() => area
                .iter()
                .flat_map(|&root| neighbours(root))
                .filter(|root| !area.contains(root) && self.split.contains(root))
                .collect(),
            _ => HashSet::new(),
        };
        let mut stack: Vec<NodeCoord> = border.into_iter().collect();
        while let Some(node) = stack.pop() {
            split.push(node);
            stack.extend(
                node.children()
                    .into_iter()
                    .filter(|n| self.split.contains(n)),
            );
        }
        self.roots.extend(roots.keys().copied());
        self.balance(split);
        let leaves = self.collect_leaves(&roots, anchors);
        for (node, stitch) in old_wanted {
            if leaves.get(node) != Some(stitch) {
                self.missing.remove(&self.key(*node, *stitch));
            }
        }
        for (&node, &stitch) in &leaves {
            let key = self.key(node, stitch);
            if old_wanted.get(&node) != Some(&stitch) && !self.shown.contains_key(&key) {
                self.missing.insert(key);
            }
        }
        self.wanted.extend(leaves);
    }

    fn key(&self, node: NodeCoord, stitch: Stitch) -> BuildKey {
        BuildKey {
            node,
            stitch,
            generation: self.generation,
            revision: self.revision_of(node),
        }
    }

    /// Splits `node` (and so on down) while one of `anchors` is near enough; only the anchors
    /// near the node can split its children.
    fn split_down(
        &self,
        node: NodeCoord,
        anchors: &[[f64; 2]],
        old_split: &HashSet<NodeCoord>,
        split: &mut Vec<NodeCoord>,
    ) {
        if node.level == 0 {
            return;
        }
        let config = self.config();
        let reach = config.split_distance(node.level);
        let held = reach * (1.0 + config.hysteresis);
        let rect = self.rect(node);
        let near: Vec<[f64; 2]> = anchors
            .iter()
            .copied()
            .filter(|&a| rect.distance(a) < held)
            .collect();
        let limit = if old_split.contains(&node) {
            held
        } else {
            reach
        };
        if !near.iter().any(|&a| rect.distance(a) < limit) {
            return;
        }
        split.push(node);
        for child in node.children() {
            self.split_down(child, &near, old_split, split);
        }
    }

    /// Whether `node` is in the tree: a root, or a child of a split node.
    fn in_tree(&self, node: NodeCoord) -> bool {
        if node.level == self.config().top_level() {
            self.roots.contains(&node)
        } else {
            node.level < self.config().top_level() && self.split.contains(&node.parent())
        }
    }

    /// Splits nodes until neighbouring leaves differ by at most one level: every same-level
    /// neighbour of a split node in `work` (and of those it splits) must be in the tree.
    fn balance(&mut self, mut work: Vec<NodeCoord>) {
        let top = self.config().top_level();
        while let Some(node) = work.pop() {
            if node.level >= top {
                continue;
            }
            for neighbour in neighbours(node) {
                if !self.in_tree(neighbour) {
                    self.split_up_to(neighbour.parent(), &mut work);
                }
            }
        }
    }

    /// Splits `node` and every ancestor it needs to be in the tree, if it lies under a root.
    fn split_up_to(&mut self, node: NodeCoord, work: &mut Vec<NodeCoord>) -> bool {
        if self.split.contains(&node) {
            return true;
        }
        let top = self.config().top_level();
        let reachable = if node.level == top {
            self.roots.contains(&node)
        } else {
            node.level < top && self.split_up_to(node.parent(), work)
        };
        if reachable {
            self.split.insert(node);
            work.push(node);
        }
        reachable
    }

    /// The leaves under `roots` within reach of `anchors`, with their stitches.
    fn collect_leaves(
        &self,
        roots: &HashMap<NodeCoord, f64>,
        anchors: &[[f64; 2]],
    ) -> HashMap<NodeCoord, Stitch> {
        let reach = self.config().reach();
        let top = self.config().top_level();
        let mut leaves = Vec::new();
        let mut stack = Vec::new();
        for (&root, &distance) in roots {
            if !self.split.contains(&root) {
                if distance < reach {
                    leaves.push(root);
                }
                continue;
            }
            // Below a root only the anchors within reach of it matter.
            let rect = self.rect(root);
            let near: Vec<[f64; 2]> = anchors
                .iter()
                .copied()
                .filter(|&a| rect.distance(a) < reach)
                .collect();
            stack.push(root);
            while let Some(node) = stack.pop() {
                if self.split.contains(&node) {
                    stack.extend(node.children());
                } else if self.distance(node, &near) < reach {
                    leaves.push(node);
                }
            }
        }
        // A side or corner is stitched where the neighbour's area belongs to a coarser leaf of
        // the tree (wanted or not: a stitch must not change when a leaf crosses the horizon).
        let coarser = |neighbour: NodeCoord| {
            neighbour.level < top && !self.in_tree(neighbour) && self.in_tree(neighbour.parent())
        };
        leaves
            .into_iter()
            .map(|node| {
                let [west, east, north, south, nw, ne, sw, se] =
                    offsets().map(|[dx, dz]| coarser(offset(node, dx, dz)));
                let stitch = Stitch {
                    sides: [west, east, north, south],
                    corners: [nw, ne, sw, se],
                };
                (node, stitch)
            })
            .collect()
    }

    /// Notes that what covers the area of `key` changed: the shown nodes under its root must be
    /// judged again (nodes the index keeps loose are judged on every plan).
    fn unsettle(&mut self, key: &BuildKey, rect: &NodeRect) {
        if let Some(root) = self.screen.root_of(key, rect) {
            self.unsettled.insert(root);
        }
    }

    /// Whether shown `key` can go alone, outside a swap: it is not wanted, not fading in, and
    /// lies beyond the keep distance of every anchor or is of older settings. A node of the
    /// current layout must also have no wanted node over it (those replace it in a swap); one of
    /// another layout, which lies under the tiling, goes once the wanted nodes over it are all
    /// shown and in, or when none is wanted there and it is old or far.
    fn retires(&self, key: &BuildKey, rect: &NodeRect) -> bool {
        if self.is_current(key) || self.locked.contains(key) {
            return false;
        }
        let mut overlapped = false;
        let root = self.screen.root_of(key, rect);
        let aligned = self.screen.is_aligned(key, rect);
        let covered = self.visit_wanted(rect, root, |key| {
            overlapped = true;
            !aligned && self.shown.contains_key(&key) && !self.locked.contains(&key)
        });
        let keep = self.config().keep_distance();
        let gone = key.generation != self.generation
            || self.anchors.iter().all(|&a| rect.distance(a) >= keep);
        if aligned {
            !overlapped && gone
        } else {
            covered && (overlapped || gone)
        }
    }

    fn make_plan(&mut self) -> Plan {
        let anchors = &self.anchors;
        // Land with nothing on screen comes first (the edge ahead of a moving anchor), with the
        // builds its swap needs, then replacements of what is shown; nearest first within each.
        let mut build: Vec<(bool, f64, u8, BuildKey)> = self
            .missing
            .iter()
            .map(|&key| {
                let rect = self.rect(key.node);
                let distance = self.distance(key.node, anchors);
                (
                    self.screen.covers(&rect, &self.shown),
                    distance,
                    key.node.level,
                    key,
                )
            })
            .collect();
        if !self.shown.is_empty() {
            let mut needs = SwapNeeds::default();
            let mut urgent = HashSet::new();
            let mut stack: Vec<BuildKey> = build
                .iter()
                .filter(|(covered, ..)| !covered)
                .map(|&(.., key)| key)
                .collect();
            while let Some(key) = stack.pop() {
                if urgent.insert(key) {
                    stack.extend_from_slice(needs.of(self, key));
                }
            }
            for (covered, .., key) in &mut build {
                *covered &= !urgent.contains(key);
            }
        }
        build.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then_with(|| (a.3.node.x, a.3.node.z).cmp(&(b.3.node.x, b.3.node.z)))
        });
        let unsettled = std::mem::take(&mut self.unsettled);
        let judged: Vec<(BuildKey, bool)> = unsettled
            .iter()
            .filter_map(|root| self.screen.by_root.get(root))
            .flatten()
            .chain(&self.screen.loose)
            .filter_map(|key| {
                self.shown
                    .get(key)
                    .map(|rect| (*key, self.retires(key, rect)))
            })
            .collect();
        for (key, retires) in judged {
            if retires {
                self.retirable.insert(key);
            } else {
                self.retirable.remove(&key);
            }
        }
        self.swaps_due = true;
        Plan {
            build: build.into_iter().map(|(_, _, _, key)| key).collect(),
        }
    }

    /// Calls `each` with every wanted node overlapping `rect` (walking down from the roots over
    /// it, or from `root` alone when the rectangle lies under it) until it returns false;
    /// returns whether it never did.
    fn visit_wanted(
        &self,
        rect: &NodeRect,
        root: Option<NodeCoord>,
        mut each: impl FnMut(BuildKey) -> bool,
    ) -> bool {
        let config = self.config();
        let top = NodeCoord::new(config.top_level(), 0, 0);
        let size = top.size(&config.layout);
        // Node columns over `rect`, widened by one against rounding.
        let span = |min: f64, max: f64| {
            let first = (min / size).floor() - 1.0;
            let last = (max / size).ceil();
            (first as i64)..=(last as i64)
        };
        let mut stack = Vec::new();
        if let Some(root) = root {
            stack.extend(self.roots.contains(&root).then_some(root));
        } else {
            for z in span(rect.min[1], rect.max[1]) {
                for x in span(rect.min[0], rect.max[0]) {
                    let root = NodeCoord::new(top.level, x, z);
                    if self.roots.contains(&root) {
                        stack.push(root);
                    }
                }
            }
        }
        while let Some(node) = stack.pop() {
            if !self.rect(node).overlaps(rect) {
                continue;
            }
            if self.split.contains(&node) {
                stack.extend(node.children());
            } else if let Some(&stitch) = self.wanted.get(&node)
                && !each(self.key(node, stitch))
            {
                return false;
            }
        }
        true
    }
}

/// The shown nodes by where they sit in the current layout's quadtree: by node, to ask what
/// covers a point with one lookup per level, and by root, to judge a root's nodes again.
#[derive(Clone, Debug, Default)]
struct ShownIndex {
    layout: Option<ChunkLayout>,
    /// The current top level.
    top: u8,
    /// Nodes of the current layout, by node (several keys when stitches or generations differ).
    aligned: HashMap<NodeCoord, Vec<BuildKey>>,
    /// Bit `k` set when a level-`k` node is in `aligned`.
    levels: u32,
    /// How many nodes of `aligned` lie under each node below the top level, to walk down to them.
    below: HashMap<NodeCoord, u32>,
    /// Nodes of the current layout at or below the top level, by the root they lie under.
    by_root: HashMap<NodeCoord, Vec<BuildKey>>,
    /// The other nodes: above the top level (after a change of levels), or of another layout
    /// (after a layout change, until they go), judged on every plan.
    loose: Vec<BuildKey>,
}

impl ShownIndex {
    fn new(layout: ChunkLayout, top: u8, shown: &HashMap<BuildKey, NodeRect>) -> Self {
        let mut index = Self {
            layout: Some(layout),
            top,
            ..Self::default()
        };
        for (&key, rect) in shown {
            index.insert(key, rect);
        }
        index
    }

    fn is_aligned(&self, key: &BuildKey, rect: &NodeRect) -> bool {
        self.layout
            .is_some_and(|layout| NodeRect::of(key.node, &layout) == *rect)
    }

    /// The root `key` lies under, if the index keeps it by root.
    fn root_of(&self, key: &BuildKey, rect: &NodeRect) -> Option<NodeCoord> {
        let node = key.node;
        (self.is_aligned(key, rect) && node.level <= self.top).then(|| {
            let shift = self.top - node.level;
            NodeCoord::new(self.top, node.x >> shift, node.z >> shift)
        })
    }

    fn insert(&mut self, key: BuildKey, rect: &NodeRect) {
        if self.is_aligned(&key, rect) {
            self.aligned.entry(key.node).or_default().push(key);
            self.levels |= 1 << key.node.level;
            for above in self.ancestors_below_top(key.node) {
                *self.below.entry(above).or_default() += 1;
            }
        }
        match self.root_of(&key, rect) {
            Some(root) => self.by_root.entry(root).or_default().push(key),
            None => self.loose.push(key),
        }
    }

    fn remove(&mut self, key: &BuildKey, rect: &NodeRect) {
        let take = |map: &mut HashMap<NodeCoord, Vec<BuildKey>>, at: NodeCoord| {
            if let Some(keys) = map.get_mut(&at) {
                keys.retain(|k| k != key);
                if keys.is_empty() {
                    map.remove(&at);
                }
            }
        };
        if self.is_aligned(key, rect) {
            take(&mut self.aligned, key.node);
            for above in self.ancestors_below_top(key.node) {
                if let Some(count) = self.below.get_mut(&above) {
                    *count -= 1;
                    if *count == 0 {
                        self.below.remove(&above);
                    }
                }
            }
        }
        match self.root_of(key, rect) {
            Some(root) => take(&mut self.by_root, root),
            None => self.loose.retain(|k| k != key),
        }
    }

    /// The ancestors of `node` up to the top level.
    fn ancestors_below_top(&self, node: NodeCoord) -> impl Iterator<Item = NodeCoord> + use<> {
        let top = self.top;
        std::iter::successors(Some(node), move |n| (n.level < top).then(|| n.parent())).skip(1)
    }

    /// The shown nodes of the current layout that share area with `node`: itself (of another
    /// stitch or settings), its ancestors and its descendants.
    fn overlapping(&self, node: NodeCoord) -> Vec<BuildKey> {
        let mut found = Vec::new();
        let mut levels = self.levels >> node.level;
        let mut level = node.level;
        while levels != 0 {
            if levels & 1 == 1 {
                let shift = level - node.level;
                let at = NodeCoord::new(level, node.x >> shift, node.z >> shift);
                found.extend(self.aligned.get(&at).into_iter().flatten());
            }
            levels >>= 1;
            level += 1;
        }
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.level == 0 || !self.below.contains_key(&n) {
                continue;
            }
            for child in n.children() {
                found.extend(self.aligned.get(&child).into_iter().flatten());
                stack.push(child);
            }
        }
        found
    }

    /// The shown nodes of the current layout that touch `node` along its side `side` (in
    /// [`Stitch`] order): one as coarse as it or coarser, or the finer ones along the side.
    fn touching(&self, node: NodeCoord, side: usize) -> Vec<BuildKey> {
        let [dx, dz] = offsets()[side];
        let beside = offset(node, dx, dz);
        let mut found = Vec::new();
        let mut levels = self.levels >> node.level;
        let mut level = node.level;
        while levels != 0 {
            if levels & 1 == 1 {
                let shift = level - node.level;
                let (x, z) = (beside.x >> shift, beside.z >> shift);
                if (x, z) == (node.x >> shift, node.z >> shift) {
                    // This far up the cell holds `node` itself.
                    break;
                }
                let at = NodeCoord::new(level, x, z);
                found.extend(self.aligned.get(&at).into_iter().flatten());
            }
            levels >>= 1;
            level += 1;
        }
        // The children of a cell along the side that faces `node`.
        let facing = [[1, 3], [0, 2], [2, 3], [0, 1]][side];
        let mut stack = vec![beside];
        while let Some(n) = stack.pop() {
            if n.level == 0 || !self.below.contains_key(&n) {
                continue;
            }
            let children = n.children();
            for child in facing.map(|k| children[k]) {
                found.extend(self.aligned.get(&child).into_iter().flatten());
                stack.push(child);
            }
        }
        found
    }

    /// Whether some shown node holds `point`.
    fn holds(&self, point: [f64; 2], shown: &HashMap<BuildKey, NodeRect>) -> bool {
        if let Some(layout) = &self.layout {
            let chunk = ChunkCoord::containing(point[0], point[1], layout);
            let mut levels = self.levels;
            while levels != 0 {
                let level = levels.trailing_zeros() as u8;
                levels &= levels - 1;
                let node = NodeCoord::holding(chunk, level);
                if self.aligned.get(&node).is_some_and(|keys| {
                    keys.iter()
                        .any(|k| shown.get(k).is_some_and(|r| r.contains(point)))
                }) {
                    return true;
                }
            }
        }
        self.loose
            .iter()
            .any(|k| shown.get(k).is_some_and(|r| r.contains(point)))
    }

    /// Whether the centre and the four corners (just inside) of `rect` are all on screen.
    fn covers(&self, rect: &NodeRect, shown: &HashMap<BuildKey, NodeRect>) -> bool {
        let inset = (rect.max[0] - rect.min[0]) * 1e-3;
        let (low, high) = (
            [rect.min[0] + inset, rect.min[1] + inset],
            [rect.max[0] - inset, rect.max[1] - inset],
        );
        let centre = [(low[0] + high[0]) / 2.0, (low[1] + high[1]) / 2.0];
        [centre, low, high, [low[0], high[1]], [high[0], low[1]]]
            .iter()
            .all(|&p| self.holds(p, shown))
    }
}

/// What the swaps of one round need, found as the round asks: for a wanted build not shown
/// yet, the shown nodes it overlaps and the shown nodes of these settings whose edges would not
/// meet its own (only a node whose level or stitch is no longer wanted can be one: wanted nodes
/// meet each other exactly, and nodes of other settings are another world anyway); for a shown
/// node that goes, the wanted nodes over it. A swap is what a ready build needs, what that needs,
/// and so on; it can go once none of it waits (a build not ready, a node still fading in).
#[derive(Default)]
struct SwapNeeds {
    needs: HashMap<BuildKey, Vec<BuildKey>>,
    /// Whether each node looked at can go now: nothing it needs, however indirectly, waits.
    verdicts: HashMap<BuildKey, bool>,
}

impl SwapNeeds {
    /// What `key` needs in its swap.
    fn of(&mut self, planner: &ChunkPlanner, key: BuildKey) -> &[BuildKey] {
        self.needs
            .entry(key)
            .or_insert_with(|| planner.needed_with(key))
    }

    /// Whether the swap of `seed` can go now. Classifies everything its swap holds, so later
    /// seeds that share part of it look no further than that part.
    fn can_go(&mut self, planner: &ChunkPlanner, seed: BuildKey) -> bool {
        if let Some(&verdict) = self.verdicts.get(&seed) {
            return verdict;
        }
        let mut seen = vec![seed];
        let mut looked = HashSet::from([seed]);
        let mut k = 0;
        while k < seen.len() {
            let key = seen[k];
            k += 1;
            if self.verdicts.contains_key(&key) {
                continue;
            }
            for &other in &self.of(planner, key).to_vec() {
                if looked.insert(other) {
                    seen.push(other);
                }
            }
        }
        // What waits, or needs something judged unable to go, cannot go, nor what needs that.
        let mut needed_by: HashMap<BuildKey, Vec<BuildKey>> = HashMap::new();
        let mut stuck = Vec::new();
        for &key in &seen {
            if let Some(&verdict) = self.verdicts.get(&key) {
                if !verdict {
                    stuck.push(key);
                }
                continue;
            }
            if planner.waits(&key) {
                stuck.push(key);
            }
            for &other in &self.needs[&key] {
                needed_by.entry(other).or_default().push(key);
            }
        }
        let mut cannot: HashSet<BuildKey> = stuck.iter().copied().collect();
        while let Some(key) = stuck.pop() {
            for &other in needed_by.get(&key).into_iter().flatten() {
                if cannot.insert(other) {
                    stuck.push(other);
                }
            }
        }
        for key in seen {
            self.verdicts.entry(key).or_insert(!cannot.contains(&key));
        }
        self.verdicts[&seed]
    }
}

/// Whether the edge of `a` on `side` meets the edge of `b` touching it there with no crack: the
/// same level and neither stitched there, or one level apart with the finer one stitched to the
/// coarser and the coarser not stitched there. (Corner stitches only change normals.)
fn edges_meet(a: BuildKey, side: usize, b: BuildKey) -> bool {
    let (at_a, at_b) = (a.stitch.sides[side], b.stitch.sides[side ^ 1]);
    match i32::from(b.node.level) - i32::from(a.node.level) {
        0 => !at_a && !at_b,
        1 => at_a && !at_b,
        -1 => at_b && !at_a,
        _ => false,
    }
}

fn elapsed_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

/// The unit offsets to a node's neighbours: the four sides `-x, +x, -z, +z`, then the corners
/// `(-x, -z), (+x, -z), (-x, +z), (+x, +z)`, the orders of [`Stitch`].
fn offsets() -> [[i64; 2]; 8] {
    [
        [-1, 0],
        [1, 0],
        [0, -1],
        [0, 1],
        [-1, -1],
        [1, -1],
        [-1, 1],
        [1, 1],
    ]
}

fn offset(node: NodeCoord, dx: i64, dz: i64) -> NodeCoord {
    NodeCoord::new(
        node.level,
        node.x.saturating_add(dx),
        node.z.saturating_add(dz),
    )
}

/// The eight same-level neighbours of `node`.
fn neighbours(node: NodeCoord) -> [NodeCoord; 8] {
    offsets().map(|[dx, dz]| offset(node, dx, dz))
}

#[cfg(test)]
mod tests {
    use super::*;
    use biome_core::MeshStyle;

    /// A small deterministic generator, so failures replay.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn unit(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }

        fn range(&mut self, low: f64, high: f64) -> f64 {
            low + (high - low) * self.unit()
        }
    }

    /// 32-unit chunks, full detail within 64 units, a 1.5 km horizon: six levels.
    fn config() -> LodConfig {
        LodConfig {
            layout: ChunkLayout {
                tiles: 8,
                tile_size: 4.0,
                style: MeshStyle::Smooth,
            },
            detail_radius: 64.0,
            horizon: 1500.0,
            hysteresis: 0.25,
        }
    }

    /// Marks `count` builds of the plan ready (in its order) and takes the swaps; every fade
    /// ends at once. Returns the swaps.
    fn step(planner: &mut ChunkPlanner, count: usize) -> Vec<Swap> {
        let build = planner.plan().build.clone();
        for key in build.into_iter().take(count) {
            planner.ready(key);
        }
        let swaps = planner.take_swaps(true);
        for key in swaps.iter().flat_map(|swap| &swap.show) {
            planner.faded(key);
        }
        swaps
    }

    /// A builder that finishes everything asked: every build ready at once, every swap taken,
    /// until the planner is settled. Returns how many nodes it showed.
    fn settle(planner: &mut ChunkPlanner, anchors: &[[f64; 2]], config: &LodConfig) -> usize {
        let mut built = 0;
        for _ in 0..8 {
            planner.update(anchors, config, 0);
            let swaps = step(planner, usize::MAX);
            if planner.is_settled() && swaps.is_empty() {
                return built;
            }
            built += swaps.iter().map(|swap| swap.show.len()).sum::<usize>();
        }
        panic!("not settled after 8 rounds");
    }

    /// What is shown is one watertight surface: no two nodes of the current layout share area,
    /// and every two of the same settings that touch along a side meet with no crack. Each side
    /// is probed at the middle of its halves: what holds a probe touches the side, and a node
    /// of two levels finer along a half would hold the probe.
    fn check_watertight(planner: &ChunkPlanner, context: &str) {
        let layout = planner.config().layout;
        let mut by_node: HashMap<NodeCoord, Vec<BuildKey>> = HashMap::new();
        let mut levels = 0u32;
        for (key, rect) in &planner.shown {
            if planner.screen.is_aligned(key, rect) {
                by_node.entry(key.node).or_default().push(*key);
                levels |= 1 << key.node.level;
            }
        }
        let holder = |p: [f64; 2]| {
            let chunk = ChunkCoord::containing(p[0], p[1], &layout);
            (0..=NodeCoord::MAX_LEVEL)
                .filter(|level| levels & (1 << level) != 0)
                .filter_map(|level| by_node.get(&NodeCoord::holding(chunk, level)))
                .flatten()
                .copied()
                .collect::<Vec<BuildKey>>()
        };
        for (node, keys) in &by_node {
            assert_eq!(keys.len(), 1, "{context}: {keys:?} all shown");
            let a = keys[0];
            let rect = NodeRect::of(*node, &layout);
            let size = rect.max[0] - rect.min[0];
            let mid = [rect.min[0] + size / 2.0, rect.min[1] + size / 2.0];
            let inside = holder(mid);
            assert_eq!(inside.len(), 1, "{context}: {inside:?} share area");
            let eps = size * 1e-3;
            for side in 0..4 {
                for quarter in [0.25, 0.75] {
                    let along = |min: f64| min + size * quarter;
                    let p = match side {
                        0 => [rect.min[0] - eps, along(rect.min[1])],
                        1 => [rect.max[0] + eps, along(rect.min[1])],
                        2 => [along(rect.min[0]), rect.min[1] - eps],
                        _ => [along(rect.min[0]), rect.max[1] + eps],
                    };
                    for b in holder(p) {
                        if b.generation == a.generation {
                            assert!(
                                edges_meet(a, side, b),
                                "{context}: {a:?} and {b:?} meet with a crack"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The shown nodes holding `point`.
    fn holders(planner: &ChunkPlanner, point: [f64; 2]) -> usize {
        planner
            .shown_nodes()
            .values()
            .filter(|rect| rect.contains(point))
            .count()
    }

    fn random_point_near(rng: &mut Rng, anchors: &[[f64; 2]], radius: f64) -> [f64; 2] {
        let a = anchors[(rng.next() % anchors.len() as u64) as usize];
        let (angle, r) = (
            rng.range(0.0, std::f64::consts::TAU),
            radius * rng.unit().sqrt(),
        );
        [a[0] + r * angle.cos(), a[1] + r * angle.sin()]
    }

    fn within(anchors: &[[f64; 2]], point: [f64; 2], radius: f64) -> bool {
        anchors
            .iter()
            .any(|a| (a[0] - point[0]).hypot(a[1] - point[1]) < radius)
    }

    /// Every wanted leaf: its neighbours across each side and corner differ by at most one level,
    /// and the stitch flags exactly the coarser ones.
    fn check_balance_and_stitches(planner: &ChunkPlanner, config: &LodConfig) {
        let leaves: Vec<(NodeCoord, NodeRect)> = planner
            .wanted()
            .keys()
            .map(|&n| (n, NodeRect::of(n, &config.layout)))
            .collect();
        let leaf_at = |p: [f64; 2]| leaves.iter().find(|(_, r)| r.contains(p)).map(|(n, _)| *n);
        for (&node, &stitch) in planner.wanted() {
            let rect = NodeRect::of(node, &config.layout);
            let (mid, eps) = (
                [
                    (rect.min[0] + rect.max[0]) / 2.0,
                    (rect.min[1] + rect.max[1]) / 2.0,
                ],
                0.25,
            );
            let probes = offsets().map(|[dx, dz]| {
                let at = |d: i64, m: f64, lo: f64, hi: f64| match d {
                    -1 => lo - eps,
                    1 => hi + eps,
                    _ => m,
                };
                [
                    at(dx, mid[0], rect.min[0], rect.max[0]),
                    at(dz, mid[1], rect.min[1], rect.max[1]),
                ]
            });
            let flags = [stitch.sides, stitch.corners].concat();
            for (probe, flagged) in probes.into_iter().zip(flags) {
                let neighbour = leaf_at(probe);
                if let Some(n) = neighbour {
                    assert!(
                        n.level.abs_diff(node.level) <= 1,
                        "{node:?} meets {n:?}: more than one level apart"
                    );
                }
                // Past the horizon a side may follow a coarse leaf that is not wanted.
                let coarser = neighbour.is_some_and(|n| n.level == node.level + 1);
                assert!(
                    flagged == coarser || (flagged && neighbour.is_none()),
                    "{node:?} stitch towards {probe:?}"
                );
            }
        }
    }

    /// The incremental books against brute force: the missing builds are the wanted nodes not
    /// shown, and the plan retires exactly the shown nodes that can go.
    fn check_books(planner: &ChunkPlanner) {
        let missing: HashSet<BuildKey> = planner
            .wanted
            .iter()
            .map(|(&node, &stitch)| planner.key(node, stitch))
            .filter(|key| !planner.shown.contains_key(key))
            .collect();
        assert_eq!(planner.missing, missing, "missing builds");
        assert!(planner.ready.is_subset(&planner.missing), "ready builds");
        let retire: HashSet<BuildKey> = planner
            .shown
            .iter()
            .filter(|(key, rect)| planner.retires(key, rect))
            .map(|(key, _)| *key)
            .collect();
        assert_eq!(planner.retirable, retire, "retirements");
    }

    /// The differences between two planners' selections, if any.
    fn selection_differences(a: &ChunkPlanner, b: &ChunkPlanner) -> Option<String> {
        let wanted: Vec<_> = a
            .wanted
            .iter()
            .filter(|(node, stitch)| b.wanted.get(*node) != Some(*stitch))
            .collect();
        let split: Vec<_> = a.split.symmetric_difference(&b.split).collect();
        let roots: Vec<_> = a.roots.symmetric_difference(&b.roots).collect();
        let same = wanted.is_empty()
            && a.wanted.len() == b.wanted.len()
            && split.is_empty()
            && roots.is_empty()
            && a.anchors == b.anchors;
        (!same).then(|| format!("wanted {wanted:?}, splits {split:?}, roots {roots:?}"))
    }

    #[test]
    fn selecting_near_moved_anchors_agrees_with_selecting_everything() {
        let mut rng = Rng(0x51a7_e5ee_d00d_0001);
        let disc = LodConfig {
            detail_radius: 320.0,
            horizon: 320.0,
            ..config()
        };
        let wide = LodConfig {
            detail_radius: 96.0,
            hysteresis: 0.5,
            ..config()
        };
        for scenario in 0..60 {
            let mut config = [config(), disc, wide][scenario % 3];
            let mut generation = 0;
            let mut planners =
                [Selection::Near, Selection::Whole, Selection::Auto].map(|selection| {
                    ChunkPlanner {
                        selection,
                        ..ChunkPlanner::default()
                    }
                });
            // Anchors close enough for their areas to overlap, each moving on its own; up to 8,
            // so the moves per update are capped.
            let count = 1 + (rng.next() % 8) as usize;
            let mut anchors: Vec<[f64; 2]> = (0..count)
                .map(|_| [rng.range(-3000.0, 3000.0), rng.range(-3000.0, 3000.0)])
                .collect();
            for step in 0..40 {
                let plans: Vec<Plan> = planners
                    .iter_mut()
                    .map(|planner| planner.update(&anchors, &config, generation).clone())
                    .collect();
                let context = format!("scenario {scenario} step {step}");
                for (planner, plan) in planners.iter().zip(&plans).skip(1) {
                    if let Some(odd) = selection_differences(&planners[0], planner) {
                        panic!("{context}: {:?} differs: {odd}", planner.selection);
                    }
                    assert_eq!(plan.build, plans[0].build, "{context}: builds");
                }
                for planner in &planners {
                    check_books(planner);
                }
                // Some builds land, every retirement is taken, and now and then game code
                // despawns a node.
                let plan = &plans[0];
                let landed = if step % 7 == 6 {
                    plan.build.len()
                } else {
                    (rng.next() % 40) as usize
                };
                let lost = rng
                    .next()
                    .is_multiple_of(5)
                    .then(|| {
                        planners[0]
                            .shown
                            .keys()
                            .copied()
                            .min_by_key(|k| (k.node, k.generation))
                    })
                    .flatten();
                for (k, planner) in planners.iter_mut().enumerate() {
                    for key in plan.build.iter().take(landed) {
                        planner.ready(*key);
                    }
                    let swaps = planner.take_swaps(true);
                    if k == 0 {
                        check_watertight(planner, &context);
                    }
                    // Half the fades end before the next update.
                    for key in swaps.iter().flat_map(|swap| &swap.show) {
                        if (key.node.x + key.node.z) % 2 == 0 || step % 7 == 6 {
                            planner.faded(key);
                        }
                    }
                    if let Some(key) = &lost {
                        planner.hidden(key);
                    }
                }
                for a in &mut anchors {
                    let hop = [0.0, 10.0, 40.0, 300.0, 2500.0][(rng.next() % 5) as usize];
                    a[0] += rng.range(-hop, hop);
                    a[1] += rng.range(-hop, hop);
                }
                // Now and then the settings, the config or the anchor count change.
                match rng.next() % 12 {
                    0 => generation += 1,
                    1 => config.hysteresis = rng.range(0.1, 0.6),
                    2 if anchors.len() > 1 => {
                        anchors.pop();
                    }
                    3 => anchors.push([rng.range(-3000.0, 3000.0), rng.range(-3000.0, 3000.0)]),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn the_levels_reach_the_horizon() {
        let config = config();
        assert_eq!(config.top_level(), 5);
        let full = LodConfig {
            detail_radius: 2000.0,
            ..config
        };
        assert_eq!(full.top_level(), 0);
    }

    /// Far from the origin the planner wants the nodes it wants near it, shifted by whole
    /// roots, with the same stitches: at 10^6, 10^9, 6 × 10^10 and 10^12 units (past the end of
    /// the `i32` chunk grid this layout had), in `f64` like every distance it compares.
    #[test]
    fn far_out_the_view_is_the_view_near_the_origin_shifted() {
        let config = config();
        let top = config.top_level();
        let root = NodeCoord::new(top, 0, 0).size(&config.layout);
        let mut rng = Rng(0xfa2_0ff5e7);
        for far in [1e6, 1e9, 6e10, 1e12] {
            // Whole roots along each axis: every level's nodes shift by whole nodes.
            let roots = (far / root).round();
            let shift = roots * root;
            for _ in 0..8 {
                let near = [rng.range(-3000.0, 3000.0), rng.range(-3000.0, 3000.0)];
                let away = [near[0] + shift, near[1] - shift];
                let (mut a, mut b) = (ChunkPlanner::default(), ChunkPlanner::default());
                settle(&mut a, &[near], &config);
                settle(&mut b, &[away], &config);
                let moved: HashMap<NodeCoord, Stitch> = a
                    .wanted()
                    .iter()
                    .map(|(node, &stitch)| {
                        let steps = roots as i64 * (1i64 << (top - node.level));
                        (
                            NodeCoord::new(node.level, node.x + steps, node.z - steps),
                            stitch,
                        )
                    })
                    .collect();
                assert_eq!(&moved, b.wanted(), "{far}: {near:?} and {away:?}");
                assert!(!moved.is_empty());
            }
        }
    }

    #[test]
    fn once_settled_every_point_within_the_horizon_is_covered_exactly_once() {
        let config = config();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for scenario in 0..150 {
            let mut planner = ChunkPlanner::default();
            let count = 1 + (rng.next() % 4) as usize;
            let mut anchors: Vec<[f64; 2]> = (0..count)
                .map(|_| [rng.range(-4000.0, 4000.0), rng.range(-4000.0, 4000.0)])
                .collect();
            for step in 0..4 {
                settle(&mut planner, &anchors, &config);
                for _ in 0..200 {
                    let p = random_point_near(&mut rng, &anchors, config.horizon);
                    if within(&anchors, p, config.horizon) {
                        assert_eq!(
                            holders(&planner, p),
                            1,
                            "scenario {scenario} step {step}: {p:?} near {anchors:?}"
                        );
                    }
                }
                check_balance_and_stitches(&planner, &config);
                // Then a short hop, a long one, or a teleport.
                let reach = [50.0, 600.0, 1e5][(rng.next() % 3) as usize];
                for a in &mut anchors {
                    *a = [
                        a[0] + rng.range(-reach, reach),
                        a[1] + rng.range(-reach, reach),
                    ];
                }
            }
        }
    }

    #[test]
    fn nothing_is_left_uncovered_while_builds_arrive_in_any_order() {
        let config = config();
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..60 {
            let mut planner = ChunkPlanner::default();
            let mut anchors = vec![[rng.range(-3000.0, 3000.0), rng.range(-3000.0, 3000.0)]];
            settle(&mut planner, &anchors, &config);
            for _ in 0..3 {
                anchors[0][0] += rng.range(-400.0, 400.0);
                anchors[0][1] += rng.range(-400.0, 400.0);
                let probes: Vec<[f64; 2]> = (0..150)
                    .map(|_| random_point_near(&mut rng, &anchors, config.horizon))
                    .filter(|&p| within(&anchors, p, config.horizon))
                    .collect();
                // Builds land a few at a time, in a shuffled order; swaps are taken at once.
                for round in 0..400 {
                    let plan = planner.update(&anchors, &config, 0).clone();
                    if planner.is_settled() && plan.build.is_empty() {
                        break;
                    }
                    assert!(round < 399, "not settled");
                    let covered: Vec<bool> =
                        probes.iter().map(|&p| holders(&planner, p) > 0).collect();
                    let mut build = plan.build;
                    for k in (1..build.len()).rev() {
                        build.swap(k, (rng.next() % (k as u64 + 1)) as usize);
                    }
                    for key in build.into_iter().take(1 + (rng.next() % 5) as usize) {
                        planner.ready(key);
                    }
                    planner.take_swaps(false);
                    check_watertight(&planner, "builds in any order");
                    for (&p, was) in probes.iter().zip(covered) {
                        assert!(!was || holders(&planner, p) > 0, "{p:?} lost its cover");
                    }
                }
            }
        }
    }

    #[test]
    fn an_anchor_hovering_at_a_level_boundary_does_not_churn() {
        let config = config();
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        // Less than the hysteresis gap of the finest split.
        let hop = 0.5 * config.hysteresis * config.detail_radius;
        for _ in 0..100 {
            let mut planner = ChunkPlanner::default();
            let a = [rng.range(-5000.0, 5000.0), rng.range(-5000.0, 5000.0)];
            let angle = rng.range(0.0, std::f64::consts::TAU);
            let b = [a[0] + hop * angle.cos(), a[1] + hop * angle.sin()];
            settle(&mut planner, &[a], &config);
            settle(&mut planner, &[b], &config);
            settle(&mut planner, &[a], &config);
            for _ in 0..10 {
                assert_eq!(settle(&mut planner, &[b], &config), 0);
                assert_eq!(settle(&mut planner, &[a], &config), 0);
            }
        }
    }

    #[test]
    fn the_node_estimate_bounds_what_is_planned() {
        let mut rng = Rng(99);
        for _ in 0..40 {
            let config = LodConfig {
                layout: ChunkLayout {
                    tiles: 8,
                    tile_size: [1.0, 4.0, 16.0][(rng.next() % 3) as usize],
                    style: MeshStyle::Smooth,
                },
                detail_radius: rng.range(10.0, 600.0),
                horizon: rng.range(500.0, 6000.0),
                hysteresis: rng.range(0.0, 1.0),
            };
            let estimate = config.node_estimate();
            let mut planner = ChunkPlanner::default();
            let mut most = 0;
            for _ in 0..5 {
                let anchor = [rng.range(-1e5, 1e5), rng.range(-1e5, 1e5)];
                settle(&mut planner, &[anchor], &config);
                most = most.max(planner.wanted().len() as u64);
            }
            assert!(
                most <= estimate,
                "{most} nodes, estimated {estimate}: {config:?}"
            );
            assert!(
                estimate <= 8 * most.max(4),
                "{most} nodes, estimated {estimate}: {config:?}"
            );
        }
    }

    #[test]
    fn work_per_move_is_bounded() {
        let config = config();
        let mut planner = ChunkPlanner::default();
        let mut anchor = [100.0, -70.0];
        let first = settle(&mut planner, &[anchor], &config);
        assert_eq!(first, planner.wanted().len());
        assert!(first < 400, "{first} nodes for one anchor");
        let (mut most, mut total) = (0, 0);
        // Fly east a chunk at a time.
        for _ in 0..256 {
            anchor[0] += 32.0;
            let built = settle(&mut planner, &[anchor], &config);
            most = most.max(built);
            total += built;
        }
        eprintln!(
            "{first} nodes; a one-chunk move builds {} on average, {most} at most",
            total / 256
        );
        assert!(most <= 100, "a one-chunk move built {most} nodes");
        assert!(
            total / 256 <= 30,
            "one-chunk moves built {total} nodes in all"
        );
    }

    #[test]
    fn nodes_of_older_settings_and_layouts_go_once_the_new_ones_cover_them() {
        let config = config();
        let mut planner = ChunkPlanner::default();
        let anchors = [[0.0, 0.0]];
        settle(&mut planner, &anchors, &config);
        let old: Vec<BuildKey> = planner.shown_nodes().keys().copied().collect();
        let other = LodConfig {
            layout: ChunkLayout {
                tiles: 6,
                ..config.layout
            },
            ..config
        };
        let plan = planner.update(&anchors, &other, 1).clone();
        assert!(
            planner.take_swaps(false).is_empty(),
            "nothing goes before its cover is shown"
        );
        assert_eq!(plan.build.len(), planner.wanted().len());
        for key in plan.build {
            planner.ready(key);
        }
        // The new nodes come over the old layout's, which lie under them until they are all in.
        let shown = planner.take_swaps(false);
        assert!(shown.iter().all(|swap| swap.retire.is_empty()));
        assert!(shown.iter().filter(|swap| swap.replaces).count() > shown.len() / 2);
        planner.update(&anchors, &other, 1);
        let mut retired: Vec<BuildKey> = planner
            .take_swaps(false)
            .into_iter()
            .flat_map(|swap| {
                assert!(swap.show.is_empty());
                swap.retire
            })
            .collect();
        retired.sort_by_key(|k| (k.node, k.generation));
        let mut expected = old;
        expected.sort_by_key(|k| (k.node, k.generation));
        assert_eq!(retired, expected);
    }

    /// Flying with builds that land late and out of order, and fades that take several
    /// updates: what is shown stays one watertight surface, swaps stay small, and every node
    /// replaced goes in the swap that replaces it.
    #[test]
    fn what_is_shown_stays_watertight_while_flying() {
        let config = config();
        let mut rng = Rng(0x0bad_5eed_f1a7_0001);
        for scenario in 0..12 {
            let mut planner = ChunkPlanner::default();
            let mut anchor = [rng.range(-3000.0, 3000.0), rng.range(-3000.0, 3000.0)];
            settle(&mut planner, &[anchor], &config);
            let speed = [5.0, 17.0, 60.0][scenario % 3];
            let heading = rng.range(0.0, std::f64::consts::TAU);
            let mut fading: Vec<(BuildKey, u32)> = Vec::new();
            let mut largest = 0;
            for frame in 0..400 {
                anchor[0] += speed * heading.cos();
                anchor[1] += speed * heading.sin();
                let plan = planner.update(&[anchor], &config, 0).clone();
                // A few builds land each frame, nearest first with some out of order.
                let mut build = plan.build;
                let landed = (rng.next() % 4) as usize;
                for k in 0..landed.min(build.len()) {
                    let pick = (k + (rng.next() % 3) as usize).min(build.len() - 1);
                    build.swap(k, pick);
                    planner.ready(build[k]);
                }
                for swap in planner.take_swaps(true) {
                    largest = largest.max(swap.show.len());
                    // Nothing shown is left overlapping what the swap shows.
                    for key in &swap.show {
                        let rect = NodeRect::of(key.node, &config.layout);
                        let under = planner
                            .shown
                            .iter()
                            .filter(|(other, r)| *other != key && r.overlaps(&rect))
                            .count();
                        assert_eq!(under, 0, "frame {frame}: {key:?} shown over others");
                        fading.push((*key, frame + 18));
                    }
                }
                check_watertight(&planner, &format!("scenario {scenario} frame {frame}"));
                fading.retain(|(key, until)| {
                    let done = *until <= frame;
                    if done {
                        planner.faded(key);
                    }
                    !done
                });
            }
            assert!(largest <= 24, "a swap showed {largest} nodes");
            eprintln!("at {speed} units a frame the largest swap showed {largest} nodes");
        }
    }

    #[test]
    fn far_apart_anchors_and_many_anchors_are_cheap() {
        let config = config();
        let mut planner = ChunkPlanner::default();
        // Far apart, but on the chunk grid (32-unit chunks end at 2^31 × 32 ≈ 6.9e10).
        let anchors = [[-6.0e10, 6.0e10], [6.0e10, -6.0e10], [0.0, 0.0]];
        settle(&mut planner, &anchors, &config);
        let per_anchor = planner.wanted().len() / 3;
        for a in anchors {
            assert_eq!(holders(&planner, a), 1);
        }
        // 32 anchors with full detail out to 16 chunks: a disc of chunks each, out to the
        // horizon and the prefetch margin (18 chunks).
        let layout = config.layout;
        let disc = LodConfig {
            detail_radius: 16.0 * layout.chunk_size(),
            horizon: 16.0 * layout.chunk_size(),
            ..config
        };
        assert_eq!(disc.top_level(), 0);
        let mut rng = Rng(7);
        let anchors: Vec<[f64; 2]> = (0..32)
            .map(|_| [rng.range(-1e6, 1e6), rng.range(-1e6, 1e6)])
            .collect();
        let mut planner = ChunkPlanner::default();
        settle(&mut planner, &anchors, &disc);
        let chunks_per_anchor = planner.wanted().len() / 32;
        assert!(
            (1000..=1150).contains(&chunks_per_anchor),
            "{chunks_per_anchor} chunks, {per_anchor} nodes"
        );
    }

    /// Flying with a builder that keeps up (a few builds ready per update, in the plan's
    /// order), the land within the horizon stays covered: new land at the edge is never held
    /// back by the swaps it needs.
    #[test]
    fn the_edge_ahead_stays_covered_while_flying() {
        let config = LodConfig {
            layout: ChunkLayout {
                tiles: 16,
                tile_size: 4.0,
                style: MeshStyle::Smooth,
            },
            detail_radius: 64.0,
            horizon: 1024.0,
            hysteresis: 0.25,
        };
        let mut planner = ChunkPlanner::default();
        let mut anchor = [250_000.0, -40_000.0];
        settle(&mut planner, &[anchor], &config);
        let mut fading: Vec<(BuildKey, u32)> = Vec::new();
        let mut worst = 0usize;
        for frame in 0..900u32 {
            anchor[0] += 5.0;
            anchor[1] += 2.0 * (f64::from(frame) * 0.01).cos();
            planner.update(&[anchor], &config, 0);
            for swap in step_fading(&mut planner, 3) {
                for key in swap.show {
                    fading.push((key, frame + 18));
                }
            }
            fading.retain(|(key, until)| {
                let done = *until <= frame;
                if done {
                    planner.faded(key);
                }
                !done
            });
            let uncovered = (0..64)
                .map(|k| {
                    let angle = f64::from(k) * std::f64::consts::TAU / 64.0;
                    let r = 0.97 * config.horizon;
                    [anchor[0] + r * angle.cos(), anchor[1] + r * angle.sin()]
                })
                .filter(|&p| holders(&planner, p) == 0)
                .count();
            if uncovered > 0 {
                eprintln!(
                    "frame {frame}: {uncovered} uncovered; {} missing, {} ready, {} locked",
                    planner.missing.len(),
                    planner.ready.len(),
                    planner.locked.len()
                );
            }
            worst = worst.max(uncovered);
        }
        assert_eq!(worst, 0);
    }

    /// Marks `count` builds of the plan ready (in its order) and takes the swaps, leaving the
    /// fades to the caller.
    fn step_fading(planner: &mut ChunkPlanner, count: usize) -> Vec<Swap> {
        let build: Vec<BuildKey> = planner
            .plan()
            .build
            .clone()
            .into_iter()
            .filter(|k| !planner.ready.contains(k))
            .take(count)
            .collect();
        for key in build {
            planner.ready(key);
        }
        planner.take_swaps(true)
    }
}
