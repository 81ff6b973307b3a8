//! Rivers and lakes, carved into the terrain as a pure function of position and seed.
//!
//! **The rule.** The world is read on a coarse grid of *river nodes* (one per `spacing` cell,
//! jittered), each with the terrain's height there (before rivers) and its moisture. Water runs
//! from a node to the one of its four neighbours it falls to most steeply, judged on the
//! heights averaged over each node's 3 × 3 block, so small bumps do not stop it (along the
//! grid's sides two courses never cross). It stops in the sea (a node below sea level) or in a
//! lake (a node no neighbour lies below). A node is a *spring* when it stands `spring_height`
//! above the sea, its moisture reaches `dry_moisture` (so deserts have none), a per-node draw
//! falls under `springs`, and its course reaches the sea or a lake within `max_length` steps
//! from node to node; courses that would end on a hillside are not rivers. Every node and bend
//! of a course gets the water level of the lowest ground the course crossed so far (the least
//! over every course through it), so water levels never rise downstream: a river's bed and
//! surface descend monotonically from spring to mouth, and where the ground rises in the way
//! the river cuts a gorge through it. A river is as wide as the springs feeding it say (and
//! narrower where the land is dry), meanders between its nodes, and ends in a round lake at
//! its last node (or runs into the sea).
//!
//! **The carve.** Each stretch of river (and each lake) sets, near it, a ceiling on the ground
//! (its channel, then valley walls rising at `valley_slope` out to `valley_width`) and a floor
//! (the channel's bed, then a bank `bank_height` above the water): the terrain is the ground
//! clamped between the lowest ceiling and the highest floor. Inside a channel the floors give
//! way to the ceiling (no bank dams another river), other valleys' walls do not cut its bed,
//! and where channels meet the lowest bed wins. Over the last part of its reach each ceiling
//! and floor gives way to the ground, so the carve is continuous everywhere: chunks and levels
//! of detail join exactly.
//!
//! **Locality.** Whether a river passes a point depends only on springs within `max_length`
//! nodes of it, and their courses on nodes within twice that: a fixed neighbourhood. The nodes
//! and the rivers near them are computed for square tiles of nodes and kept in a cache the
//! world's clones share; the cache only saves work (a tile is the same whoever computes it).
//!
//! **Levels of detail.** Nodes at most two tiles wide carve and draw the rivers; coarser ones,
//! whose vertices lie farther apart than any channel, show the land before them
//! ([`crate::WorldGenerator::draws_rivers_at`]), so no node reads more than a few tiles. A
//! node's vertex grid carves every channel at least one vertex spacing wide each side of its
//! centre line, so none falls between its vertices: a stream narrower than that is drawn that
//! wide (the point queries read the rivers as they are).

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked};
use crate::hash::{hash_cell, unit};
use crate::limits;
use crate::math;
use crate::math::smoothstep;
use crate::terrain::Terrain;

/// Rivers and lakes (off by default, so the tutorial's numbers stay exact). See the module
/// docs for the rule they follow.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RiverSettings {
    /// Whether the world has rivers and lakes.
    pub enabled: bool,
    /// Width of the cells of the river-node grid, world units: the length of a river's
    /// straight stretches between bends of its course.
    pub spacing: f64,
    /// Chance (0 to 1) that a node which may be a spring is one.
    pub springs: f64,
    /// Springs stand at least this high above the sea, world units.
    pub spring_height: f64,
    /// Springs need at least this moisture (0 to 1): deserts and dry steppe have none, and
    /// rivers crossing them narrow.
    pub dry_moisture: f64,
    /// A spring's course must reach the sea or a lake within this many steps from node to node.
    pub max_length: u32,
    /// Width of a river fed by one spring, world units; it grows with the springs upstream
    /// (about as their count to the power 0.4, at most 4 times).
    pub width: f64,
    /// Depth of a river's channel below its water, world units (deeper downstream).
    pub depth: f64,
    /// Radius of a lake fed by one spring, world units (at most twice this).
    pub lake_radius: f64,
    /// How far beyond its banks a river's valley walls reach, world units.
    pub valley_width: f64,
    /// Rise of the valley walls per unit of distance.
    pub valley_slope: f64,
    /// Height of the banks above the water, world units: they hold the river in where it
    /// crosses a slope.
    pub bank_height: f64,
    /// How far a course bends between its nodes, as a share of `spacing` (0 runs straight).
    pub meander: f64,
}

impl Default for RiverSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            spacing: 160.0,
            springs: 0.22,
            spring_height: 6.0,
            dry_moisture: 0.4,
            max_length: 32,
            width: 5.0,
            depth: 1.6,
            lake_radius: 18.0,
            valley_width: 60.0,
            valley_slope: 0.5,
            bank_height: 0.6,
            meander: 0.22,
        }
    }
}

/// Nodes along each side of a tile.
const TILE: i64 = 16;
/// Straight pieces a course is drawn with between two nodes.
const PIECES: usize = 6;
/// Most springs a river's width grows with.
const MAX_WIDTH_FACTOR: f64 = 4.0;
/// Most a river's depth grows downstream.
const MAX_DEPTH_FACTOR: f64 = 4.0;
/// Most a lake's radius grows.
const MAX_LAKE_FACTOR: f64 = 2.0;
/// How much deeper than a river a lake is.
const LAKE_DEPTH: f64 = 2.0;
/// Tiles a cache keeps before it starts again.
const CACHE_TILES: usize = 2048;

/// The salt of each per-node draw.
mod draw {
    use crate::hash::salt;
    pub(super) const X: u64 = salt::RIVER_X;
    pub(super) const Z: u64 = salt::RIVER_Z;
    pub(super) const SPRING: u64 = salt::RIVER_SPRING;
    pub(super) const MEANDER: u64 = salt::RIVER_MEANDER;
}

/// What rivers and lakes are at one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiverPoint {
    /// The surface of the river or lake the point lies in, world units, where its ground is
    /// below that surface (the lowest, where channels meet).
    pub water: Option<f64>,
    /// The water surface of the channel or lake within one half width of the point, world
    /// units (the nearest, where channels meet), whether or not the ground here is below it:
    /// renderers draw water over the points that have one, up to the banks.
    pub surface: Option<f64>,
    /// How much of a river bank the point is, 0 to 1 (1 at the water's edge), for colours.
    pub bank: f64,
}

impl RiverPoint {
    /// No river near.
    pub const DRY: Self = Self {
        water: None,
        surface: None,
        bank: 0.0,
    };
}

/// Every element near a point, summed up: the lowest ceiling and highest floor, how far inside a
/// channel it is, the water over it (density units), the level of the nearest water within one
/// half width of its edge and how far that edge is (negative inside), and how near a water's
/// edge it is (in half widths).
struct Survey {
    /// The lowest channel bed kept from other valleys' walls.
    bed: f64,
    ceiling: f64,
    floor: f64,
    inside: f64,
    water: f64,
    level: f64,
    shore: f64,
    edge: f64,
}

/// A river course as the network holds it: the world points it passes from its spring to its
/// end, with the water level at each (density units), for tests and tools that trace rivers.
#[derive(Clone, Debug, PartialEq)]
pub struct RiverCourse {
    /// `(x, z)` world points from the spring down, every bend included.
    pub points: Vec<[f64; 2]>,
    /// The water level at each point, density units, never rising.
    pub levels: Vec<f64>,
    /// Whether it ends in the sea (else in a lake).
    pub reaches_sea: bool,
}

/// One stretch of river (or a lake, when `a == b`) with what it does to the ground around it.
#[derive(Clone, Copy, Debug)]
struct Element {
    a: [f64; 2],
    b: [f64; 2],
    /// Water levels at `a` and `b`, density units.
    wa: f64,
    wb: f64,
    half_width: f64,
    /// Channel depth, density units.
    depth: f64,
    /// Beyond this distance from its centre line it does nothing.
    reach: f64,
}

impl Element {
    /// The distance from `p` to the centre line, and the water level at the nearest point.
    #[inline]
    fn locate(&self, p: [f64; 2]) -> (f64, f64) {
        let (ex, ez) = (self.b[0] - self.a[0], self.b[1] - self.a[1]);
        let (px, pz) = (p[0] - self.a[0], p[1] - self.a[1]);
        let length = ex * ex + ez * ez;
        let t = if length > 0.0 {
            ((px * ex + pz * ez) / length).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (dx, dz) = (px - t * ex, pz - t * ez);
        (
            (dx * dx + dz * dz).sqrt(),
            self.wa + (self.wb - self.wa) * t,
        )
    }

    fn bounds(&self) -> [f64; 4] {
        [
            self.a[0].min(self.b[0]) - self.reach,
            self.a[1].min(self.b[1]) - self.reach,
            self.a[0].max(self.b[0]) + self.reach,
            self.a[1].max(self.b[1]) + self.reach,
        ]
    }
}

/// [`RiverSettings`] in the units the carve works in (density units for heights), and how far
/// rivers reach.
#[derive(Clone, Copy, Debug)]
struct Params {
    settings: RiverSettings,
    seed: i64,
    /// World units per density unit.
    height_scale: f64,
    spring_height: f64,
    depth: f64,
    bank: f64,
    /// Valley wall rise, density units per world unit.
    slope: f64,
    /// The band at the edge of an element's reach over which its ceiling and floor give way to
    /// the ground.
    fade: f64,
    /// Nodes beyond a tile whose rivers can reach into it.
    margin: i64,
    /// How far from sea level carved terrain and water may lie, density units: the end of
    /// [`limits::HEIGHT`]. Banks and water levels sit above the ground they were traced on,
    /// which may already stand at the limit.
    limit: f64,
}

impl Params {
    fn new(settings: RiverSettings, seed: i64, height_scale: f64) -> Self {
        let depth = settings.depth / height_scale;
        let bank = settings.bank_height / height_scale;
        let widest =
            (0.5 * settings.width * MAX_WIDTH_FACTOR).max(settings.lake_radius * MAX_LAKE_FACTOR);
        // Bends stray sideways up to 32/27 of the meander amplitude (`bends`); the one more
        // node of the margin covers an edge's reach from its node across the next cell.
        let reach = widest + settings.valley_width + 1.2 * settings.meander * settings.spacing;
        Self {
            settings,
            seed,
            height_scale,
            spring_height: settings.spring_height / height_scale,
            depth,
            bank,
            slope: settings.valley_slope / height_scale,
            fade: settings.valley_width / 2.0,
            margin: (reach / settings.spacing).ceil() as i64 + 1,
            limit: {
                // The largest density whose height stays within the limit after rounding.
                let most = *limits::HEIGHT.end();
                let limit = most / height_scale;
                if limit * height_scale > most {
                    limit.next_down()
                } else {
                    limit
                }
            },
        }
    }

    /// Where node `(i, j)` stands.
    fn node(&self, i: i64, j: i64) -> [f64; 2] {
        let s = &self.settings;
        let jitter = |salt| unit(hash_cell(self.seed, i, j, salt)) - 0.5;
        [
            (i as f64 + 0.5 + 0.5 * jitter(draw::X)) * s.spacing,
            (j as f64 + 0.5 + 0.5 * jitter(draw::Z)) * s.spacing,
        ]
    }

    /// Whether node `(i, j)`, whose raw terrain is `height`, stands high enough and draws a
    /// spring: it is one if its moisture reaches `dry_moisture` too.
    fn may_spring(&self, i: i64, j: i64, height: f64) -> bool {
        height >= self.spring_height
            && unit(hash_cell(self.seed, i, j, draw::SPRING)) < self.settings.springs
    }

    /// How much of its width a river or lake keeps at `moisture`: dry land narrows it to 30%
    /// (it carries on to the sea, thinner).
    fn wetness(&self, moisture: f64) -> f64 {
        let dry = self.settings.dry_moisture;
        0.3 + 0.7 * smoothstep(dry - 0.15, dry + 0.05, moisture)
    }

    fn half_width(&self, flow: u32, moisture: f64) -> f64 {
        0.5 * self.settings.width
            * math::pow(f64::from(flow), 0.4).min(MAX_WIDTH_FACTOR)
            * self.wetness(moisture)
    }

    fn lake_radius(&self, inflow: u32, moisture: f64) -> f64 {
        self.settings.lake_radius
            * f64::from(inflow).sqrt().min(MAX_LAKE_FACTOR)
            * self.wetness(moisture)
    }

    fn river_depth(&self, flow: u32) -> f64 {
        self.depth * (0.6 + 0.4 * f64::from(flow).sqrt()).min(MAX_DEPTH_FACTOR)
    }

    fn element(
        &self,
        a: [f64; 2],
        b: [f64; 2],
        wa: f64,
        wb: f64,
        half_width: f64,
        depth: f64,
    ) -> Element {
        Element {
            a,
            b,
            wa,
            wb,
            half_width,
            depth,
            reach: half_width + self.settings.valley_width,
        }
    }

    /// `e` with its channel at least `min_half_width` wide each side of its centre line, as far
    /// as its valley lets it widen (to where its walls begin to give way to the ground, so its
    /// reach and its end stay as they were). A vertex grid carves rivers so: a channel narrower
    /// than the grid's spacing could fall between its vertices and never be drawn.
    fn drawn(&self, e: &Element, min_half_width: f64) -> Element {
        Element {
            half_width: e.half_width.max(min_half_width.min(e.reach - self.fade)),
            ..*e
        }
    }

    /// What `element` does at `d` from its centre line where its water stands at `w` and the
    /// ground at `ground` ([`Shape`]). Over the last `fade` of its reach its ceiling and floor
    /// give way to the ground, so an element ends without a step.
    #[inline]
    fn shape(&self, e: &Element, d: f64, w: f64, ground: f64) -> Shape {
        let hw = e.half_width;
        if d < hw {
            let u = d / hw;
            let bed = w - e.depth * (1.0 - u * u);
            let inside = ((1.0 - u) * 2.0).min(1.0);
            return Shape {
                ceiling: bed,
                floor: bed,
                inside,
                bed,
            };
        }
        let out = d - hw;
        let ceiling = w + self.slope * out;
        // Banks rise to their height over one half width, then fall as the valley walls rise;
        // near the sea they give way (no causeways out to sea).
        let crest = self.bank * (out / hw).min(1.0) - self.slope * (out - hw).max(0.0);
        let near_sea = 1.0 - smoothstep(0.0, 2.0 * e.depth, w);
        let floor = w + crest - near_sea * (self.bank + 1.0) * (out / hw).min(1.0);
        let give = smoothstep(e.reach - self.fade, e.reach, d);
        Shape {
            ceiling: ceiling + (ground - ceiling).max(0.0) * give,
            floor: floor - (floor - ground).max(0.0) * give,
            inside: 0.0,
            bed: f64::INFINITY,
        }
    }
}

/// What one element does to the ground at a point: the most the ground may be (its channel,
/// then its valley walls), the least (its bed, then its banks), how far inside its channel the
/// point is (0 at the edge, 1 in its middle half), and the bed it keeps other rivers' valley
/// walls from cutting (none outside its channel).
struct Shape {
    ceiling: f64,
    floor: f64,
    inside: f64,
    bed: f64,
}

/// The river elements that reach into one tile, binned for lookups.
struct RiverTile {
    elements: Vec<Element>,
    /// The tile's corner and bin width, world units.
    origin: [f64; 2],
    bin: f64,
    /// Element indices per bin, row by row: `bins[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    bins: Vec<u32>,
}

/// The widest rectangle [`crate::WorldGenerator::river_courses`] lists, in river nodes a side (655 km
/// at the default spacing).
pub const MAX_COURSE_NODES: i64 = 4096;

/// Bend points sampled between two yields of the thread.
const BLOCK: usize = 512;

/// Bins along each side of a river tile.
const BINS: usize = 32;

impl RiverTile {
    fn new(elements: Vec<Element>, origin: [f64; 2], size: f64) -> Self {
        let bin = size / BINS as f64;
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); BINS * BINS];
        let cell = |v: f64, o: f64| (((v - o) / bin).floor().max(0.0) as usize).min(BINS - 1);
        for (k, e) in elements.iter().enumerate() {
            let [x0, z0, x1, z1] = e.bounds();
            if x1 < origin[0] || z1 < origin[1] || x0 >= origin[0] + size || z0 >= origin[1] + size
            {
                continue;
            }
            for j in cell(z0, origin[1])..=cell(z1, origin[1]) {
                for i in cell(x0, origin[0])..=cell(x1, origin[0]) {
                    lists[j * BINS + i].push(k as u32);
                }
            }
        }
        let mut starts = Vec::with_capacity(BINS * BINS + 1);
        let mut bins = Vec::new();
        for list in lists {
            starts.push(bins.len() as u32);
            bins.extend(list);
        }
        starts.push(bins.len() as u32);
        Self {
            elements,
            origin,
            bin,
            starts,
            bins,
        }
    }

    fn near(&self, p: [f64; 2]) -> impl Iterator<Item = &Element> {
        let cell = |v: f64, o: f64| (((v - o) / self.bin).floor().max(0.0) as usize).min(BINS - 1);
        let k = cell(p[1], self.origin[1]) * BINS + cell(p[0], self.origin[0]);
        let range = self.starts[k] as usize..self.starts[k + 1] as usize;
        self.bins[range].iter().map(|&i| &self.elements[i as usize])
    }
}

/// A square of nodes assembled from node tiles, with every value the network needs there.
struct Window {
    /// Node index of the first column and row.
    i0: i64,
    j0: i64,
    side: i64,
    height: Vec<f64>,
    spring: Vec<bool>,
    /// Heights averaged over each node's 3 × 3 block (the edge ring keeps its own).
    routing: Vec<f64>,
}

impl Window {
    /// The node at window index `k`.
    fn node(&self, k: usize) -> [i64; 2] {
        [
            self.i0 + k as i64 % self.side,
            self.j0 + k as i64 / self.side,
        ]
    }

    fn index(&self, i: i64, j: i64) -> Option<usize> {
        let (di, dj) = (i - self.i0, j - self.j0);
        ((0..self.side).contains(&di) && (0..self.side).contains(&dj))
            .then(|| (dj * self.side + di) as usize)
    }
}

/// The rivers of a window: each course from its spring (window indices) and how it ends, and
/// per node its water level, the courses leaving it, the courses ending in it (a lake) and,
/// where courses leave, the bends of its edge.
struct Network {
    window: Window,
    courses: Vec<(Vec<usize>, Flow)>,
    level: Vec<f64>,
    flow: Vec<u32>,
    lakes: Vec<u32>,
    bends: HashMap<usize, Bend>,
}

/// The course of one edge: its bends, the ground at the ones between its ends (density units,
/// before rivers) and the water level at each, never rising.
struct Bend {
    to: usize,
    points: [[f64; 2]; PIECES + 1],
    ground: [f64; PIECES - 1],
    levels: [f64; PIECES + 1],
}

/// Where water at a node goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flow {
    /// To the node at this window index.
    Down(usize),
    /// Into the sea: the node is below sea level.
    Sea,
    /// Nowhere lower: a lake.
    Lake,
    /// Past the window's edge (never for nodes a course may reach).
    Unknown,
}

/// The river network of a world: its parameters, and the tiles computed so far.
pub(crate) struct Rivers {
    params: Params,
    /// The raw terrain height of each node of a tile, row by row.
    heights: TileCache<Vec<f64>>,
    /// Whether each node of a tile is a spring: kept apart from the heights since a window
    /// needs springs over only its middle, and moisture costs a rain shadow's reads upwind.
    springs: TileCache<Vec<bool>>,
    tiles: TileCache<RiverTile>,
}

impl fmt::Debug for Rivers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rivers")
            .field("settings", &self.params.settings)
            .finish_non_exhaustive()
    }
}

/// Tiles by key, each made once: threads asking for a tile being made wait for it rather than
/// make it again. When full, the quarter used longest ago goes.
struct TileCache<T> {
    slots: Mutex<TileSlots<T>>,
}

struct TileSlots<T> {
    tiles: HashMap<[i64; 2], (Arc<OnceLock<T>>, u64)>,
    /// Counts lookups: a tile's stamp says when it was last asked for.
    clock: u64,
}

impl<T> TileCache<T> {
    fn new() -> Self {
        Self {
            slots: Mutex::new(TileSlots {
                tiles: HashMap::new(),
                clock: 0,
            }),
        }
    }

    /// The tile of `key`, made with `make` (outside the lock) if no thread has made it.
    fn get(&self, key: [i64; 2], make: impl FnOnce() -> T) -> Tile<T> {
        let slot = {
            let mut slots = self.slots.lock().expect("river tile cache");
            slots.clock += 1;
            let clock = slots.clock;
            if !slots.tiles.contains_key(&key) && slots.tiles.len() >= CACHE_TILES {
                let mut stamps: Vec<u64> = slots.tiles.values().map(|(_, stamp)| *stamp).collect();
                stamps.sort_unstable();
                let oldest = stamps[stamps.len() / 4];
                slots.tiles.retain(|_, (_, stamp)| *stamp > oldest);
            }
            let (slot, stamp) = slots
                .tiles
                .entry(key)
                .or_insert_with(|| (Arc::new(OnceLock::new()), clock));
            *stamp = clock;
            slot.clone()
        };
        slot.get_or_init(make);
        Tile(slot)
    }
}

/// A tile from a [`TileCache`], made.
struct Tile<T>(Arc<OnceLock<T>>);

impl<T> std::ops::Deref for Tile<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0.get().expect("a cache hands out tiles once made")
    }
}

impl Rivers {
    /// The network of `settings` (enabled) for a world of `seed` with `height_scale` world
    /// units per density unit.
    pub(crate) fn new(settings: RiverSettings, seed: i64, height_scale: f64) -> Self {
        Self {
            params: Params::new(settings, seed, height_scale),
            heights: TileCache::new(),
            springs: TileCache::new(),
            tiles: TileCache::new(),
        }
    }

    fn tile_size(&self) -> f64 {
        TILE as f64 * self.params.settings.spacing
    }

    fn tile_of(&self, x: f64, z: f64) -> [i64; 2] {
        let size = self.tile_size();
        [(x / size).floor() as i64, (z / size).floor() as i64]
    }

    /// Node `k` (row by row) of tile `key`.
    fn tile_node(key: [i64; 2], k: usize) -> [i64; 2] {
        let k = k as i64;
        [key[0] * TILE + k % TILE, key[1] * TILE + k / TILE]
    }

    fn height_tile(&self, terrain: &Terrain, key: [i64; 2]) -> Tile<Vec<f64>> {
        self.heights.get(key, || {
            let (xs, zs): (Vec<f64>, Vec<f64>) = (0..(TILE * TILE) as usize)
                .map(|k| {
                    let [i, j] = Self::tile_node(key, k);
                    let [x, z] = self.params.node(i, j);
                    (x, z)
                })
                .unzip();
            let height = terrain.raw_terrain(&xs, &zs);
            // A tile of nodes is a few hundred samples: a thread waiting for the core (a
            // game's frame) gets it between tiles.
            std::thread::yield_now();
            height
        })
    }

    fn spring_tile(&self, terrain: &Terrain, key: [i64; 2]) -> Tile<Vec<bool>> {
        self.springs.get(key, || {
            let p = &self.params;
            let height = self.height_tile(terrain, key);
            // Moisture is read only where the height and the draw already allow a spring.
            let candidates: Vec<([i64; 2], f64, usize)> = (0..height.len())
                .filter_map(|k| {
                    let [i, j] = Self::tile_node(key, k);
                    p.may_spring(i, j, height[k])
                        .then_some(([i, j], height[k], k))
                })
                .collect();
            let (xs, zs): (Vec<f64>, Vec<f64>) = candidates
                .iter()
                .map(|&([i, j], _, _)| {
                    let [x, z] = p.node(i, j);
                    (x, z)
                })
                .unzip();
            let heights: Vec<f64> = candidates.iter().map(|&(_, h, _)| h).collect();
            let mut spring = vec![false; height.len()];
            for (&(_, _, k), m) in candidates.iter().zip(terrain.moisture(&xs, &zs, &heights)) {
                spring[k] = m >= p.settings.dry_moisture;
            }
            std::thread::yield_now();
            spring
        })
    }

    /// Copies the values of the tiles over columns `columns` and rows `rows` into `out`, the
    /// window from `(i0, j0)` `side` nodes a side.
    fn fill<T: Copy>(
        [columns, rows]: &[Range<i64>; 2],
        [i0, j0, side]: [i64; 3],
        out: &mut [T],
        tile: impl Fn([i64; 2]) -> Tile<Vec<T>>,
    ) {
        let tiles = |r: &Range<i64>| r.start.div_euclid(TILE)..=(r.end - 1).div_euclid(TILE);
        for tj in tiles(rows) {
            for ti in tiles(columns) {
                let tile = tile([ti, tj]);
                for (k, &value) in tile.iter().enumerate() {
                    let [i, j] = Self::tile_node([ti, tj], k);
                    if columns.contains(&i) && rows.contains(&j) {
                        out[((j - j0) * side + i - i0) as usize] = value;
                    }
                }
            }
        }
    }

    /// The nodes from `(i0, j0)`, `side` a side, with the springs among those within `springs`
    /// (node ranges: columns, rows).
    fn window(
        &self,
        terrain: &Terrain,
        [i0, j0, side]: [i64; 3],
        springs: &[Range<i64>; 2],
    ) -> Window {
        let n = (side * side) as usize;
        let (mut height, mut spring) = (vec![0.0; n], vec![false; n]);
        let all = [i0..i0 + side, j0..j0 + side];
        Self::fill(&all, [i0, j0, side], &mut height, |key| {
            self.height_tile(terrain, key)
        });
        let springs =
            [0, 1].map(|a| springs[a].start.max(all[a].start)..springs[a].end.min(all[a].end));
        Self::fill(&springs, [i0, j0, side], &mut spring, |key| {
            self.spring_tile(terrain, key)
        });
        let mut routing = height.clone();
        for dj in 1..side - 1 {
            for di in 1..side - 1 {
                let mut sum = 0.0;
                for (oi, oj) in NEIGHBOURS.iter().chain(&[(0, 0)]) {
                    sum += height[((dj + oj) * side + di + oi) as usize];
                }
                routing[(dj * side + di) as usize] = sum / 9.0;
            }
        }
        Window {
            i0,
            j0,
            side,
            height,
            spring,
            routing,
        }
    }

    /// Where water at window node `k` goes.
    fn flow(&self, window: &Window, k: usize) -> Flow {
        if window.height[k] < 0.0 {
            return Flow::Sea;
        }
        let side = window.side;
        let (di, dj) = (k as i64 % side, k as i64 / side);
        if di < 2 || dj < 2 || di >= side - 2 || dj >= side - 2 {
            return Flow::Unknown;
        }
        let (i, j) = (window.i0 + di, window.j0 + dj);
        let here = self.params.node(i, j);
        let mut best: Option<(f64, usize)> = None;
        for (oi, oj) in SIDES {
            let m = ((dj + oj) * side + di + oi) as usize;
            let drop = window.routing[k] - window.routing[m];
            if drop <= 0.0 {
                continue;
            }
            let there = self.params.node(i + oi, j + oj);
            let steepness = drop / math::hypot(there[0] - here[0], there[1] - here[1]);
            if best.is_none_or(|(s, _)| steepness > s) {
                best = Some((steepness, m));
            }
        }
        best.map_or(Flow::Lake, |(_, m)| Flow::Down(m))
    }

    /// The courses of every spring in `window` whose node lies within `springs` (node index
    /// ranges), each as window indices from the spring to its end, and how it ends.
    fn courses(
        &self,
        window: &Window,
        [columns, rows]: &[Range<i64>; 2],
    ) -> Vec<(Vec<usize>, Flow)> {
        let max_length = self.params.settings.max_length as usize;
        let mut out = Vec::new();
        for j in rows.clone() {
            for i in columns.clone() {
                let Some(k) = window.index(i, j).filter(|&k| window.spring[k]) else {
                    continue;
                };
                let mut course = vec![k];
                let end = loop {
                    match self.flow(window, *course.last().expect("a spring")) {
                        Flow::Down(m) if course.len() <= max_length => course.push(m),
                        end => break end,
                    }
                };
                // Windows reach `max_length` nodes past their springs (and a ring more for
                // the routing), so every course ends inside one.
                debug_assert_ne!(end, Flow::Unknown, "a course ran out of its window");
                if matches!(end, Flow::Sea | Flow::Lake) {
                    out.push((course, end));
                }
            }
        }
        out
    }

    /// The network of the courses from the springs in node ranges `springs` (columns, rows) of
    /// `window`: their levels, flows, lakes and bends.
    fn network(&self, terrain: &Terrain, window: Window, springs: &[Range<i64>; 2]) -> Network {
        let courses = self.courses(&window, springs);
        let n = window.height.len();
        let mut flow = vec![0u32; n];
        let mut lakes = vec![0u32; n];
        // Every edge a course takes, with its bends and the ground between them.
        let mut edges: Vec<usize> = Vec::new();
        for (course, end) in &courses {
            for (step, &k) in course.iter().enumerate() {
                if step + 1 < course.len() {
                    if flow[k] == 0 {
                        edges.push(k);
                    }
                    flow[k] += 1;
                } else if *end == Flow::Lake {
                    lakes[k] += 1;
                }
            }
        }
        let mut bends: HashMap<usize, Bend> = HashMap::with_capacity(edges.len());
        let (mut xs, mut zs) = (Vec::new(), Vec::new());
        for &k in &edges {
            let Flow::Down(m) = self.flow(&window, k) else {
                unreachable!("a node a course leaves has a node below it");
            };
            let ([i, j], [mi, mj]) = (window.node(k), window.node(m));
            let points = self.bends(i, j, mi, mj);
            for point in &points[1..PIECES] {
                xs.push(point[0]);
                zs.push(point[1]);
            }
            bends.insert(
                k,
                Bend {
                    to: m,
                    points,
                    ground: [0.0; PIECES - 1],
                    levels: [0.0; PIECES + 1],
                },
            );
        }
        let mut ground = Vec::with_capacity(xs.len());
        for (bx, bz) in xs.chunks(BLOCK).zip(zs.chunks(BLOCK)) {
            ground.extend(terrain.raw_terrain(bx, bz));
            std::thread::yield_now();
        }
        for (k, chunk) in edges.iter().zip(ground.chunks(PIECES - 1)) {
            let bend = bends.get_mut(k).expect("listed above");
            bend.ground.copy_from_slice(chunk);
        }
        // The level of a node is the lowest ground any course crossed on its way there (nodes
        // and the bends between them), so it never rises downstream.
        let mut level = vec![f64::INFINITY; n];
        for (course, _) in &courses {
            let mut lowest = f64::INFINITY;
            for &k in course {
                lowest = lowest.min(window.height[k].max(0.0));
                level[k] = level[k].min(lowest);
                if let Some(bend) = bends.get(&k) {
                    lowest = bend
                        .ground
                        .iter()
                        .fold(lowest, |low, &g| low.min(g.max(0.0)));
                }
            }
        }
        for (&k, bend) in &mut bends {
            // Every course through this edge passes its end too, so the end's level lies at or
            // below every level along it.
            bend.levels[0] = level[k];
            for s in 1..PIECES {
                bend.levels[s] = bend.levels[s - 1].min(bend.ground[s - 1].max(0.0));
            }
            bend.levels[PIECES] = level[bend.to];
        }
        Network {
            window,
            courses,
            level,
            flow,
            lakes,
            bends,
        }
    }

    /// The river elements that reach into tile `key`.
    fn river_tile(&self, terrain: &Terrain, key: [i64; 2]) -> Tile<RiverTile> {
        self.tiles.get(key, || {
            let p = &self.params;
            let length = i64::from(p.settings.max_length);
            // Edges that reach the tile start within `margin` nodes of it; the springs feeding
            // them lie within `max_length` more, and their courses within `max_length` more
            // again (two more for the routing heights around them).
            let (first, last) = (
                [key[0] * TILE - p.margin, key[1] * TILE - p.margin],
                [
                    (key[0] + 1) * TILE + p.margin,
                    (key[1] + 1) * TILE + p.margin,
                ],
            );
            let pad = 2 * length + 2;
            let springs = [
                first[0] - length..last[0] + length,
                first[1] - length..last[1] + length,
            ];
            let window = self.window(
                terrain,
                [first[0] - pad, first[1] - pad, last[0] - first[0] + 2 * pad],
                &springs,
            );
            let network = self.network(terrain, window, &springs);
            let window = &network.window;
            let wanted = |k: usize| {
                let [i, j] = window.node(k);
                (first[0]..last[0]).contains(&i) && (first[1]..last[1]).contains(&j)
            };
            // The nodes with water in this tile, and the moisture that sets their widths.
            let wet: Vec<usize> = (0..window.height.len())
                .filter(|&k| wanted(k) && (network.lakes[k] > 0 || network.bends.contains_key(&k)))
                .collect();
            let (xs, zs): (Vec<f64>, Vec<f64>) = wet
                .iter()
                .map(|&k| {
                    let [i, j] = window.node(k);
                    let [x, z] = p.node(i, j);
                    (x, z)
                })
                .unzip();
            let heights: Vec<f64> = wet.iter().map(|&k| window.height[k]).collect();
            let moisture = terrain.moisture(&xs, &zs, &heights);
            let mut elements = Vec::new();
            for (&k, &moisture) in wet.iter().zip(&moisture) {
                let inflow = network.lakes[k];
                if inflow > 0 {
                    let [i, j] = window.node(k);
                    let centre = p.node(i, j);
                    let radius = p.lake_radius(inflow, moisture);
                    let depth = p.river_depth(inflow) * LAKE_DEPTH;
                    let level = network.level[k];
                    elements.push(p.element(centre, centre, level, level, radius, depth));
                }
                let Some(bend) = network.bends.get(&k) else {
                    continue;
                };
                let flow = network.flow[k];
                let half_width = p.half_width(flow, moisture);
                let depth = p.river_depth(flow);
                for s in 0..PIECES {
                    elements.push(p.element(
                        bend.points[s],
                        bend.points[s + 1],
                        bend.levels[s],
                        bend.levels[s + 1],
                        half_width,
                        depth,
                    ));
                }
            }
            let size = self.tile_size();
            RiverTile::new(elements, [key[0] as f64 * size, key[1] as f64 * size], size)
        })
    }

    /// The course from node `(i, j)` to node `(mi, mj)`: `PIECES + 1` points, bent sideways
    /// by up to `meander` of the spacing with a shape drawn per node. It leaves and reaches the
    /// nodes along the straight line between them, so the courses meeting at a node do not
    /// fold back onto each other.
    fn bends(&self, i: i64, j: i64, mi: i64, mj: i64) -> [[f64; 2]; PIECES + 1] {
        let p = &self.params;
        let (a, b) = (p.node(i, j), p.node(mi, mj));
        let (ex, ez) = (b[0] - a[0], b[1] - a[1]);
        let length = math::hypot(ex, ez);
        let (nx, nz) = (-ez / length, ex / length);
        let h = hash_cell(p.seed, i, j, draw::MEANDER);
        let (r1, r2) = (unit(h) * 2.0 - 1.0, unit(h.rotate_left(32)) * 2.0 - 1.0);
        let amplitude = p.settings.meander * p.settings.spacing;
        std::array::from_fn(|s| {
            let t = s as f64 / PIECES as f64;
            let pi = std::f64::consts::PI;
            let sine = math::sin(pi * t);
            let side = amplitude * sine * sine * (r1 + r2 * math::cos(pi * t));
            [a[0] + ex * t + nx * side, a[1] + ez * t + nz * side]
        })
    }

    /// The river tiles the points `(xs[k], zs[k])` fall in, each fetched once, and visits
    /// every point with its tile.
    fn each_point(
        &self,
        terrain: &Terrain,
        xs: &[f64],
        zs: &[f64],
        mut visit: impl FnMut(usize, &RiverTile),
    ) {
        let mut tiles: Vec<([i64; 2], Tile<RiverTile>)> = Vec::new();
        for k in 0..xs.len() {
            let key = self.tile_of(xs[k], zs[k]);
            let at = match tiles.iter().position(|(t, _)| *t == key) {
                Some(at) => at,
                None => {
                    tiles.push((key, self.river_tile(terrain, key)));
                    tiles.len() - 1
                }
            };
            visit(k, &tiles[at].1);
        }
    }

    /// Carves the rivers into `density`: the terrain at `(xs[k], zs[k])` before rivers, in
    /// density units, every channel at least `min_half_width` wide each side of its centre line
    /// ([`Params::drawn`]; 0 carves the rivers as they are).
    pub(crate) fn carve(
        &self,
        terrain: &Terrain,
        xs: &[f64],
        zs: &[f64],
        min_half_width: f64,
        density: &mut [f64],
    ) {
        self.each_point(terrain, xs, zs, |k, tile| {
            let survey = self.survey(tile, [xs[k], zs[k]], density[k], min_half_width);
            if survey.ceiling < f64::INFINITY {
                // Another river's valley wall does not cut into a channel's bed (where a course
                // bends back past its own lower reach, say); where channels meet, the lowest bed
                // is kept. At a channel's edge its bank (the floor) is as high as its bed...
                let ceiling = if survey.bed < f64::INFINITY {
                    survey.ceiling.max(survey.bed)
                } else {
                    survey.ceiling
                };
                // ... and inside channels the floor gives way to the ceiling: the bed is the
                // channel's, with no bank damming another river.
                let floor = survey.floor + (ceiling - survey.floor) * survey.inside;
                density[k] = density[k]
                    .min(ceiling)
                    .max(floor)
                    .clamp(-self.params.limit, self.params.limit);
            }
        });
    }

    /// What the rivers are at `(xs[k], zs[k])`, where the terrain carved with `min_half_width`
    /// ([`Rivers::carve`]) is `carved[k]` (density units), written to `out`.
    pub(crate) fn points(
        &self,
        terrain: &Terrain,
        xs: &[f64],
        zs: &[f64],
        carved: &[f64],
        min_half_width: f64,
        out: &mut [RiverPoint],
    ) {
        let scale = self.params.height_scale;
        let limit = self.params.limit;
        self.each_point(terrain, xs, zs, |k, tile| {
            let survey = self.survey(tile, [xs[k], zs[k]], carved[k], min_half_width);
            out[k] = RiverPoint {
                water: (survey.water < f64::INFINITY && carved[k] < survey.water)
                    .then_some(survey.water.clamp(-limit, limit) * scale),
                surface: (survey.level < f64::INFINITY)
                    .then_some(survey.level.clamp(-limit, limit) * scale),
                bank: 1.0 - smoothstep(0.0, 1.5, survey.edge),
            };
        });
    }

    /// Every element near `p`, where the ground is `ground`, summed up, channels at least
    /// `min_half_width` wide each side.
    #[inline]
    fn survey(&self, tile: &RiverTile, p: [f64; 2], ground: f64, min_half_width: f64) -> Survey {
        let mut survey = Survey {
            bed: f64::INFINITY,
            ceiling: f64::INFINITY,
            floor: f64::NEG_INFINITY,
            inside: 0.0,
            water: f64::INFINITY,
            level: f64::INFINITY,
            shore: f64::INFINITY,
            edge: f64::INFINITY,
        };
        for e in tile.near(p) {
            let (d, w) = e.locate(p);
            if d >= e.reach {
                continue;
            }
            let drawn;
            let e = if e.half_width < min_half_width {
                drawn = self.params.drawn(e, min_half_width);
                &drawn
            } else {
                e
            };
            let shape = self.params.shape(e, d, w, ground);
            survey.ceiling = survey.ceiling.min(shape.ceiling);
            survey.floor = survey.floor.max(shape.floor);
            survey.inside = survey.inside.max(shape.inside);
            survey.bed = survey.bed.min(shape.bed);
            if d < e.half_width {
                survey.water = survey.water.min(w);
            }
            if d < 2.0 * e.half_width {
                // The nearest water's, not the lowest: along a steep stretch the lowest would be
                // the water downstream, below the channel's bed here.
                let shore = d - e.half_width;
                if shore < survey.shore {
                    survey.shore = shore;
                    survey.level = w;
                }
            }
            survey.edge = survey.edge.min((d - e.half_width).abs() / e.half_width);
        }
        survey
    }

    /// The courses of every spring standing in `[min.x, max.x) × [min.z, max.z)`.
    ///
    /// # Panics
    /// If the rectangle spans more than [`MAX_COURSE_NODES`] river nodes on a side.
    pub(crate) fn courses_in(
        &self,
        terrain: &Terrain,
        min: [f64; 2],
        max: [f64; 2],
    ) -> Vec<RiverCourse> {
        let [[i0, j0], [i1, j1]] = [self.node_at(min[0], min[1]), self.node_at(max[0], max[1])];
        assert!(
            i1 - i0 < MAX_COURSE_NODES && j1 - j0 < MAX_COURSE_NODES,
            "river courses are listed over at most {MAX_COURSE_NODES} nodes a side"
        );
        // Levels come from every course through a node: the springs feeding the rectangle's
        // courses lie within two lengths of it, and their courses within three.
        let length = i64::from(self.params.settings.max_length);
        let pad = 3 * length + 3;
        let side = (i1 - i0).max(j1 - j0) + 1 + 2 * pad;
        let reach = 2 * length;
        let springs = [i0 - reach..i1 + 1 + reach, j0 - reach..j1 + 1 + reach];
        let window = self.window(terrain, [i0 - pad, j0 - pad, side], &springs);
        let network = self.network(terrain, window, &springs);
        let window = &network.window;
        let inside =
            |[x, z]: [f64; 2]| (min[0]..max[0]).contains(&x) && (min[1]..max[1]).contains(&z);
        network
            .courses
            .iter()
            .filter(|(course, _)| {
                let [i, j] = window.node(course[0]);
                inside(self.params.node(i, j))
            })
            .map(|(course, end)| {
                let [i, j] = window.node(course[0]);
                let mut points = vec![self.params.node(i, j)];
                let mut levels = vec![network.level[course[0]]];
                for &k in &course[..course.len() - 1] {
                    let bend = &network.bends[&k];
                    points.extend_from_slice(&bend.points[1..]);
                    levels.extend_from_slice(&bend.levels[1..]);
                }
                RiverCourse {
                    points,
                    levels,
                    reaches_sea: *end == Flow::Sea,
                }
            })
            .collect()
    }

    /// The node index holding world point `(x, z)`'s cell.
    fn node_at(&self, x: f64, z: f64) -> [i64; 2] {
        let s = self.params.settings.spacing;
        [(x / s).floor() as i64, (z / s).floor() as i64]
    }
}

/// The four neighbours water may run to: courses along the grid's sides never cross, where
/// diagonals would (two rivers crossing at different levels without meeting).
const SIDES: [(i64, i64); 4] = [(0, -1), (-1, 0), (1, 0), (0, 1)];

/// The eight neighbours of a node.
const NEIGHBOURS: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

impl RiverSettings {
    /// Whether rivers are carved and drawn on a level-of-detail node `side` world units wide
    /// (a chunk always): one at most two tiles of nodes wide reads a few tiles' networks, where
    /// a wider one's vertices could each need a tile of their own, and its channels are
    /// narrower than its vertex spacing.
    pub(crate) fn drawn_on(&self, side: f64, level: u8) -> bool {
        self.enabled && (level == 0 || side <= 2.0 * TILE as f64 * self.spacing)
    }

    pub(crate) fn check(&self, check: &Check) -> Checked {
        check.range("spacing", self.spacing, &limits::RIVER_SPACING)?;
        check.range("springs", self.springs, &limits::RIVER_SPRINGS)?;
        check.range("spring_height", self.spring_height, &limits::SPRING_HEIGHT)?;
        check.range("dry_moisture", self.dry_moisture, &limits::DRY_MOISTURE)?;
        check.whole("max_length", self.max_length, &limits::RIVER_LENGTH)?;
        check.range("width", self.width, &limits::RIVER_WIDTH)?;
        check.range("depth", self.depth, &limits::RIVER_DEPTH)?;
        check.range("lake_radius", self.lake_radius, &limits::LAKE_RADIUS)?;
        check.range("valley_width", self.valley_width, &limits::VALLEY_WIDTH)?;
        check.range("valley_slope", self.valley_slope, &limits::VALLEY_SLOPE)?;
        check.range("bank_height", self.bank_height, &limits::BANK_HEIGHT)?;
        check.range("meander", self.meander, &limits::MEANDER)?;
        // Rivers and lakes stay near their nodes, so a tile of the network is small.
        if self.width > self.spacing / 8.0 {
            return check.fail(
                "width",
                format!(
                    "must be at most spacing / 8 = {} (got {})",
                    self.spacing / 8.0,
                    self.width
                ),
            );
        }
        if self.lake_radius > self.spacing / 4.0 {
            return check.fail(
                "lake_radius",
                format!(
                    "must be at most spacing / 4 = {} (got {})",
                    self.spacing / 4.0,
                    self.lake_radius
                ),
            );
        }
        if self.valley_width > 4.0 * self.spacing {
            return check.fail(
                "valley_width",
                format!(
                    "must be at most 4 × spacing = {} (got {})",
                    4.0 * self.spacing,
                    self.valley_width
                ),
            );
        }
        Ok(())
    }
}
