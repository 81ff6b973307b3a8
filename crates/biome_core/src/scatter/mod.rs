//! Biome-aware scatter: the layers of [`ScatterSettings::layers`] (the built-in rocks, bushes
//! and grass tufts, and a game's own: loot, ore, herbs, spawn points), each with its own spacing
//! per biome ([`crate::Biome::scatter`]), placed by Poisson-disk sampling that is a pure function
//! of position, seed and the layer's name.
//!
//! **The rule.** For each layer, the world is covered by a grid of cells a little narrower than
//! the layer's smallest spacing, each offering two candidate spots at places drawn from the cell's
//! coordinates, each with a drawn priority. A candidate takes the biome of its region (near a
//! border, of either region in the colour's proportion, as trees do) and that biome's spacing for
//! the layer (none: no candidate; where that spacing is wide against the cells, a draw keeps
//! only about sixteen candidates per square of it). Two candidates *conflict* when they lie
//! closer than the larger
//! of their spacings. A candidate is placed when no conflicting candidate of higher priority is
//! placed: the greedy Poisson-disk set in random order, which keeps every placed pair at least
//! their spacing apart and leaves no candidate out that would fit. Whether a candidate is placed
//! depends only on the chain of higher-priority candidates around it, so every rectangle (a
//! chunk, a tile, the whole map) finds the same objects, each in exactly one of them. Placed
//! objects then stand on the terrain (for a layer of the caves, [`ScatterGround::CaveFloor`],
//! on the highest cave floor under them), or are left out where the layer's rules say
//! ([`ScatterLayer`]: slope, height, water, snow). Each object has an id ([`ScatterId`]: its
//! cell and slot) that no other object of its layer shares, the same wherever and whenever it
//! is placed with the same settings.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::coords::{ChunkLayout, clamp_coordinate};
use crate::generator::{RegionBiomes, Surface, WorldGenerator, WorldSettings};
use crate::hash::{hash_cell, mix, salt, unit};
use crate::limits;
use crate::regions::{NearestTwoRun, RegionId, SiteCache};
use crate::scratch::Scratch;
use crate::seed_offsets;
use crate::tutorial::wobble_point;

pub use crate::cover::{
    CAVE_HEADROOM, LayerName, ScatterGround, ScatterLayer, ScatterSettings, ScatterSpacing,
    WaterRule,
};

/// A scattered object in world space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scattered {
    /// Where it stands `(x, height, z)`, world units.
    pub position: [f64; 3],
    /// Its layer: an index into [`ScatterSettings::layers`].
    pub layer: usize,
    /// Which object of its layer it is.
    pub id: ScatterId,
    /// The biome it was placed by (an index into the biome list).
    pub biome: usize,
    /// That biome's spacing for the layer: no other of its layer lies nearer.
    pub spacing: f64,
    /// Size factor.
    pub scale: f32,
    /// Rotation about the vertical axis, radians.
    pub yaw: f32,
}

/// A scattered object relative to a chunk origin, for renderers.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScatterInstance {
    /// Where it stands `(x, height, z)` relative to the chunk origin.
    pub position: [f32; 3],
    /// Its layer: an index into [`ScatterSettings::layers`].
    pub layer: usize,
    /// Which object of its layer it is.
    pub id: ScatterId,
    /// The biome it was placed by (an index into the biome list).
    pub biome: usize,
    /// Size factor.
    pub scale: f32,
    /// Rotation about the vertical axis, radians.
    pub yaw: f32,
}

impl Scattered {
    /// The object relative to a chunk origin.
    #[must_use]
    pub fn relative_to(&self, origin: [f64; 2]) -> ScatterInstance {
        ScatterInstance {
            position: [
                (self.position[0] - origin[0]) as f32,
                self.position[1] as f32,
                (self.position[2] - origin[1]) as f32,
            ],
            layer: self.layer,
            id: self.id,
            biome: self.biome,
            scale: self.scale,
            yaw: self.yaw,
        }
    }
}

/// Which object of its layer a scattered object is: its candidate cell and slot there. Two
/// objects of one layer never share it, and the same settings give an object the same id
/// wherever and whenever it is placed (a chunk, a neighbour's search, another machine), so a
/// game can key its state on it (a chest opened, an ore vein mined). Settings that change the
/// layer's narrowest spacing renumber its objects.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ScatterId {
    /// The candidate cell's column and row.
    pub cell: [i64; 2],
    /// The candidate's slot in it.
    pub slot: u8,
}

/// Candidate spots per cell.
const SLOTS: usize = 2;
/// The most candidate cells one rectangle's search may cover (with its margins): about 1 km a
/// side for the default grass, and a bounded working memory (`tests/bounds.rs` measures it).
pub const MAX_CELLS: u64 = 1 << 20;

/// Why [`WorldGenerator::scatter_in_rect`] placed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScatterError {
    /// The rectangle's search would cover more than [`MAX_CELLS`] candidate cells: scatter it
    /// in smaller parts (the parts' objects are exactly the whole's).
    #[error(
        "a scatter search covers at most {limit} candidate cells, and this rectangle needs \
         {cells}: scatter it in smaller parts"
    )]
    TooLarge {
        /// The cells this rectangle needs.
        cells: u64,
        /// [`MAX_CELLS`].
        limit: u64,
    },
    /// There is no layer at this index in [`ScatterSettings::layers`].
    #[error("there is no scatter layer {layer} (the settings have {layers})")]
    NoLayer {
        /// The index asked for.
        layer: usize,
        /// How many layers there are.
        layers: usize,
    },
}

/// The window of candidates computed in batches reaches this many conflict distances (the
/// widest spacing) beyond a rectangle: chains of priorities rarely leave it, and the few
/// candidates beyond are computed one at a time.
const MARGIN: i64 = 4;

/// Candidates looked up between two yields of the thread (see [`scatter_in`]).
const BLOCK: usize = 1024;

/// A candidate: its cell's column and row, and its slot in the cell.
type Key = (i64, i64, usize);

/// One candidate spot.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    p: [f64; 2],
    /// Its order among candidates: higher comes first; cell and slot break ties.
    priority: (u64, i64, i64, usize),
    /// Its biome's spacing for the layer; 0 where the biome has none (no candidate).
    radius: f64,
    biome: usize,
    /// Draws for size and rotation.
    shape: u64,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    Placed,
    Left,
}

/// The cell's candidate hash for `slot`.
fn draw(seed: i64, cx: i64, cz: i64, slot: usize) -> u64 {
    hash_cell(seed, cx, cz, salt::SCATTER + slot as u64)
}

/// The candidates of one layer around a rectangle: a window of cells computed in batches, and
/// the rare ones beyond it that a chain of priorities reaches, one at a time.
struct Candidates<'a> {
    generator: &'a WorldGenerator,
    seed: i64,
    cell: f64,
    /// The layer's spacing per biome (0: none).
    spacing: Vec<f64>,
    /// The largest spacing of the layer anywhere.
    widest: f64,
    /// Per window cell, the largest spacing among the candidates in the square of cells around
    /// it that holds every candidate within `widest` of it.
    widest_near: Vec<f64>,
    /// That square's half width, in cells.
    reach: i64,
    /// The window's first cell, its width and height in cells.
    first: [i64; 2],
    size: [i64; 2],
    /// Cells whose scan out to `widest_near` finds every conflict (far enough inside the window).
    core: [i64; 4],
    slots: Vec<Candidate>,
    beyond: HashMap<Key, Candidate>,
}

/// The candidate cells of one layer: their size and how far conflicts reach.
struct SearchGrid {
    /// Each biome's spacing for the layer; 0 where it has none.
    spacing: Vec<f64>,
    widest: f64,
    /// The cell side: the narrowest spacing's diagonal, so two candidates in one cell always
    /// conflict.
    cell: f64,
    /// The widest spacing, in cells (rounded up, and one more).
    reach: i64,
}

impl SearchGrid {
    /// `None` where nothing of `layer` is scattered.
    fn new(settings: &WorldSettings, layer: usize) -> Option<Self> {
        let name = settings.scatter.layers.get(layer)?.name;
        let spacing: Vec<f64> = settings
            .biome_table
            .biomes
            .iter()
            .map(|b| {
                b.scatter
                    .iter()
                    .filter(|s| s.layer == name)
                    .map(|s| s.spacing)
                    .fold(0.0, f64::max)
            })
            .collect();
        let narrowest = spacing
            .iter()
            .copied()
            .filter(|&s| s > 0.0)
            .fold(f64::INFINITY, f64::min);
        if !settings.scatter.enabled || narrowest == f64::INFINITY {
            return None;
        }
        let widest = spacing.iter().copied().fold(0.0, f64::max);
        let cell = narrowest / std::f64::consts::SQRT_2;
        let reach = (widest / cell).ceil() as i64 + 1;
        Some(Self {
            spacing,
            widest,
            cell,
            reach,
        })
    }
}

/// The most candidate cells a search of `layer` over any `width × depth` rectangle covers with
/// `settings` (0 where nothing of it is scattered, or there is no such layer): what [`MAX_CELLS`] bounds, for checking a
/// layout's chunks before scattering them.
#[must_use]
pub fn max_search_cells(settings: &WorldSettings, layer: usize, width: f64, depth: f64) -> u64 {
    let Some(grid) = SearchGrid::new(settings, layer) else {
        return 0;
    };
    // A side's cells, however the rectangle sits on the grid, with the margins.
    let side = |length: f64| (length / grid.cell).floor() + 2.0 + (2 * MARGIN * grid.reach) as f64;
    let cells = side(width.max(0.0)) * side(depth.max(0.0));
    if cells >= u64::MAX as f64 {
        u64::MAX
    } else {
        cells as u64
    }
}

impl<'a> Candidates<'a> {
    fn new(
        generator: &'a WorldGenerator,
        layer: usize,
        min: [f64; 2],
        max: [f64; 2],
    ) -> Result<Option<Self>, ScatterError> {
        let settings = generator.settings();
        let Some(SearchGrid {
            spacing,
            widest,
            cell,
            reach,
        }) = SearchGrid::new(settings, layer)
        else {
            return Ok(None);
        };
        let index = |v: f64| (v / cell).floor() as i64;
        let (low, high) = (
            [index(min[0]), index(min[1])],
            [index(max[0]), index(max[1])],
        );
        let first = [low[0] - MARGIN * reach, low[1] - MARGIN * reach];
        let size = [
            high[0] - low[0] + 1 + 2 * MARGIN * reach,
            high[1] - low[1] + 1 + 2 * MARGIN * reach,
        ];
        let cells = (size[0].max(0) as u64).saturating_mul(size[1].max(0) as u64);
        if cells > MAX_CELLS {
            return Err(ScatterError::TooLarge {
                cells,
                limit: MAX_CELLS,
            });
        }
        // Seeded by the layer's name, not its place in the list.
        let seed = settings
            .seed
            .wrapping_add(seed_offsets::SCATTER)
            .wrapping_add(settings.scatter.layers[layer].name.stable_hash() as i64);
        let mut candidates = Self {
            generator,
            seed,
            cell,
            spacing,
            widest,
            widest_near: Vec::new(),
            reach,
            first,
            size,
            core: [
                first[0] + reach,
                first[1] + reach,
                first[0] + size[0] - reach,
                first[1] + size[1] - reach,
            ],
            slots: Vec::new(),
            beyond: HashMap::new(),
        };
        candidates.fill();
        Ok(Some(candidates))
    }

    /// Computes every candidate of the window, with the batch paths for the region lookups.
    fn fill(&mut self) {
        let [w, h] = self.size;
        let count = (w * h) as usize * SLOTS;
        let mut spots = Vec::with_capacity(count);
        for dz in 0..h {
            for dx in 0..w {
                for slot in 0..SLOTS {
                    spots.push(self.spot(self.first[0] + dx, self.first[1] + dz, slot));
                }
            }
        }
        let [x0, z0] = [
            self.first[0] as f64 * self.cell,
            self.first[1] as f64 * self.cell,
        ];
        let [x1, z1] = [
            (self.first[0] + w) as f64 * self.cell,
            (self.first[1] + h) as f64 * self.cell,
        ];
        let generator = self.generator;
        let cache = SiteCache::covering(*generator.regions(), x0, z0, x1, z1, 3);
        // Looked up where the world reads positions (candidates past its edge get no biome).
        let mut regions = RegionBiomes::new(&cache);
        let mut nearest = NearestTwoRun::new(&cache);
        let blend_width = generator.settings().regions.blend_width;
        for block in spots.chunks_mut(BLOCK) {
            let [wx, wz] = generator.wobbled_points(
                &Scratch::collect(block.iter().map(|c| clamp_coordinate(c.p[0]))),
                &Scratch::collect(block.iter().map(|c| clamp_coordinate(c.p[1]))),
            );
            let picked: Vec<RegionId> = block
                .iter()
                .zip(wx.iter().zip(wz.iter()))
                .map(|(spot, (&x, &z))| {
                    let pair = nearest.nearest_two(x, z);
                    pair.pick(unit(mix(spot.shape ^ 3)), blend_width)
                })
                .collect();
            for (spot, biome) in block
                .iter_mut()
                .zip(regions.resolve(generator, &picked, &cache))
            {
                spot.biome = biome;
                spot.radius = self.radius_at(spot);
            }
            std::thread::yield_now();
        }
        // The largest spacing per cell, then over squares `reach` cells out (rows, then columns).
        let (w, h) = (w as usize, h as usize);
        let per_cell: Vec<f64> = spots
            .chunks(SLOTS)
            .map(|slots| slots.iter().map(|c| c.radius).fold(0.0, f64::max))
            .collect();
        let reach = self.reach as usize;
        let square =
            |values: &[f64], at: &dyn Fn(usize, usize) -> usize, len: usize, lines: usize| {
                let mut out = vec![0.0; values.len()];
                for line in 0..lines {
                    for k in 0..len {
                        let (low, high) = (k.saturating_sub(reach), (k + reach).min(len - 1));
                        out[at(line, k)] = (low..=high)
                            .map(|m| values[at(line, m)])
                            .fold(0.0, f64::max);
                    }
                }
                out
            };
        let rows = square(&per_cell, &|row, k| row * w + k, w, h);
        self.widest_near = square(&rows, &|column, k| k * w + column, h, w);
        self.slots = spots;
    }

    /// The layer's spacing in `spot`'s biome; 0 (no candidate) past the world's edge, where the
    /// world reads every position at the edge and cells would no longer keep candidates apart.
    ///
    /// Where the spacing is wide against the cells, most candidates are dropped by a draw of
    /// their own: a few dozen within each one's reach still pack the set as tightly (tested),
    /// and the search does not wade through hundreds.
    fn radius_at(&self, spot: &Candidate) -> f64 {
        let inside = spot.p.iter().all(|v| limits::COORDINATE.contains(v));
        let radius = if inside {
            self.spacing[spot.biome]
        } else {
            0.0
        };
        // About sixteen candidates per square of the spacing (two per cell of `cell` wide).
        let keep = 8.0 * self.cell * self.cell / (radius * radius);
        if radius > 0.0 && unit(mix(spot.shape ^ 5)) < keep {
            radius
        } else {
            0.0
        }
    }

    /// Candidate `slot` of cell `(cx, cz)`, without its biome.
    fn spot(&self, cx: i64, cz: i64, slot: usize) -> Candidate {
        let h = draw(self.seed, cx, cz, slot);
        let (u, v) = (unit(h), unit(mix(h ^ 1)));
        Candidate {
            p: [(cx as f64 + u) * self.cell, (cz as f64 + v) * self.cell],
            priority: (mix(h ^ 2), cx, cz, slot),
            radius: 0.0,
            biome: 0,
            shape: h,
            state: State::Open,
        }
    }

    /// A candidate beyond the window, computed alone.
    fn lone(&self, cx: i64, cz: i64, slot: usize) -> Candidate {
        let mut spot = self.spot(cx, cz, slot);
        let generator = self.generator;
        let regions = &generator.settings().regions;
        let [wx, wz] = wobble_point(
            generator.wobble_noise(),
            clamp_coordinate(spot.p[0]),
            clamp_coordinate(spot.p[1]),
            regions.wobble,
            regions.wobble_scale,
        );
        let pair = generator.regions().nearest_two(wx, wz);
        let region = pair.pick(unit(mix(spot.shape ^ 3)), regions.blend_width);
        spot.biome = generator.region_biome(region);
        spot.radius = self.radius_at(&spot);
        spot
    }

    fn slot_index(&self, cx: i64, cz: i64, slot: usize) -> Option<usize> {
        let (dx, dz) = (cx - self.first[0], cz - self.first[1]);
        ((0..self.size[0]).contains(&dx) && (0..self.size[1]).contains(&dz))
            .then(|| ((dz * self.size[0] + dx) as usize) * SLOTS + slot)
    }

    fn get(&mut self, key: Key) -> Candidate {
        match self.slot_index(key.0, key.1, key.2) {
            Some(i) => self.slots[i],
            None => {
                if let Some(found) = self.beyond.get(&key) {
                    return *found;
                }
                let made = self.lone(key.0, key.1, key.2);
                self.beyond.insert(key, made);
                made
            }
        }
    }

    fn set_state(&mut self, key: Key, state: State) {
        match self.slot_index(key.0, key.1, key.2) {
            Some(i) => self.slots[i].state = state,
            None => {
                if let Some(found) = self.beyond.get_mut(&key) {
                    found.state = state;
                }
            }
        }
    }

    /// The candidates that conflict with `key`'s and come before it.
    fn blockers(&mut self, key: Key) -> Vec<Key> {
        let mut out = Vec::new();
        let me = self.get(key);
        let (cx, cz) = (key.0, key.1);
        let inside = (self.core[0]..self.core[2]).contains(&cx)
            && (self.core[1]..self.core[3]).contains(&cz);
        // Inside the core every candidate near enough to conflict is in the window, its spacing
        // at most the square's largest.
        let scan = if inside {
            let (dx, dz) = (cx - self.first[0], cz - self.first[1]);
            me.radius
                .max(self.widest_near[(dz * self.size[0] + dx) as usize])
        } else {
            self.widest
        };
        let rings = (scan / self.cell).ceil() as i64;
        let conflicts = |them: &Candidate| {
            let (dx, dz) = (them.p[0] - me.p[0], them.p[1] - me.p[1]);
            let reach = me.radius.max(them.radius);
            them.radius > 0.0 && them.priority > me.priority && dx * dx + dz * dz < reach * reach
        };
        let (dx, dz) = (cx - self.first[0], cz - self.first[1]);
        let in_window = |d: i64, len: i64| d - rings >= 0 && d + rings < len;
        if in_window(dx, self.size[0]) && in_window(dz, self.size[1]) {
            // Every cell scanned is in the window: read the slots in place.
            for oz in -rings..=rings {
                let row = ((dz + oz) * self.size[0] + dx - rings) as usize * SLOTS;
                let cells = &self.slots[row..row + (2 * rings + 1) as usize * SLOTS];
                for (k, them) in cells.iter().enumerate() {
                    if conflicts(them) {
                        out.push((cx - rings + (k / SLOTS) as i64, cz + oz, k % SLOTS));
                    }
                }
            }
            return out;
        }
        for oz in -rings..=rings {
            for ox in -rings..=rings {
                for slot in 0..SLOTS {
                    let other = (cx + ox, cz + oz, slot);
                    if conflicts(&self.get(other)) {
                        out.push(other);
                    }
                }
            }
        }
        out
    }

    /// Whether candidate `key` is placed: no conflicting candidate before it is. Resolved with a
    /// stack of its own (chains of priorities can be long), each candidate once, and a
    /// candidate's blockers looked into only while none of them is known to be placed.
    fn placed(&mut self, key: Key) -> bool {
        // Each entry: a candidate, and its blockers not known to be left out.
        let mut stack: Vec<(Key, Vec<Key>)> = Vec::new();
        if self.get(key).state == State::Open {
            stack.push((key, self.blockers(key)));
        }
        while let Some((top, blockers)) = stack.last_mut() {
            let top = *top;
            let mut states: Vec<(Key, Candidate)> =
                blockers.iter().map(|&b| (b, self.get(b))).collect();
            states.retain(|(_, c)| c.state != State::Left);
            *blockers = states.iter().map(|&(b, _)| b).collect();
            if states.iter().any(|(_, c)| c.state == State::Placed) {
                self.set_state(top, State::Left);
                stack.pop();
                continue;
            }
            // The open blocker first in order: the likeliest placed, with the fewest above it.
            match states.iter().max_by_key(|(_, c)| c.priority) {
                Some(&(next, _)) => {
                    let list = self.blockers(next);
                    stack.push((next, list));
                }
                None => {
                    self.set_state(top, State::Placed);
                    stack.pop();
                }
            }
        }
        self.get(key).state == State::Placed
    }
}

/// Every object of `layer` in `[min.x, max.x) × [min.z, max.z)` of `world`, ordered by cell row,
/// column and slot ([`WorldGenerator::scatter_in_rect`]).
pub(crate) fn scatter_in(
    generator: &WorldGenerator,
    layer: usize,
    min: [f64; 2],
    max: [f64; 2],
    layout: &ChunkLayout,
) -> Result<Vec<Scattered>, ScatterError> {
    let Some(mut candidates) = Candidates::new(generator, layer, min, max)? else {
        return Ok(Vec::new());
    };
    let cell = candidates.cell;
    let index = |v: f64| (v / cell).floor() as i64;
    let mut chosen = Vec::new();
    for cz in index(min[1])..=index(max[1]) {
        // A row of cells is a fraction of a millisecond: a thread waiting for the core (a
        // game's frame) gets it between rows.
        std::thread::yield_now();
        for cx in index(min[0])..=index(max[0]) {
            for slot in 0..SLOTS {
                let key = (cx, cz, slot);
                let c = candidates.get(key);
                let inside =
                    (min[0]..max[0]).contains(&c.p[0]) && (min[1]..max[1]).contains(&c.p[1]);
                if c.radius > 0.0 && inside && candidates.placed(key) {
                    chosen.push((key, c));
                }
            }
        }
    }
    Ok(stand(generator, layer, &chosen, layout))
}

/// The placed candidates standing on the ground the layer stands on (the surface or cave
/// floors), without those on ground the layer's rules leave bare or an edit clears.
fn stand(
    generator: &WorldGenerator,
    layer: usize,
    chosen: &[(Key, Candidate)],
    layout: &ChunkLayout,
) -> Vec<Scattered> {
    let settings = generator.settings();
    let rules = &settings.scatter.layers[layer];
    let xs = Scratch::collect(chosen.iter().map(|(_, c)| c.p[0]));
    let zs = Scratch::collect(chosen.iter().map(|(_, c)| c.p[1]));
    let cache = generator.site_cache_for(&xs, &zs);
    let heights: Vec<Option<f64>> = match rules.ground {
        ScatterGround::Surface => {
            let ground =
                generator.standing_ground(&xs, &zs, rules.max_slope_degrees, rules.water, &cache);
            let height_scale = settings.terrain.height_scale;
            ground
                .into_iter()
                .map(|ground| {
                    let ground = ground?;
                    let snow =
                        generator.surface(ground.density, ground.temperature) == Surface::Snow;
                    (!snow || rules.on_snow).then_some(ground.density * height_scale)
                })
                .collect()
        }
        ScatterGround::CaveFloor => {
            generator.cave_ground(&xs, &zs, rules.max_slope_degrees, layout, &cache)
        }
    };
    let edits = generator
        .edits()
        .near_points(&xs, &zs, crate::edits::NearFor::Clearing);
    chosen
        .iter()
        .zip(heights)
        .filter_map(|(&((cx, cz, slot), c), height)| {
            let height = height?;
            let low = rules.min_height.is_some_and(|min| height < min);
            let high = rules.max_height.is_some_and(|max| height > max);
            let cleared = edits
                .as_ref()
                .is_some_and(|edits| edits.clears(c.p[0], c.p[1]));
            if low || high || cleared {
                return None;
            }
            let shape = mix(c.shape ^ 4);
            Some(Scattered {
                position: [c.p[0], height, c.p[1]],
                layer,
                id: ScatterId {
                    cell: [cx, cz],
                    slot: slot as u8,
                },
                biome: c.biome,
                spacing: c.radius,
                scale: (rules.min_scale + (rules.max_scale - rules.min_scale) * unit(shape)) as f32,
                yaw: (unit(shape.rotate_left(32)) * std::f64::consts::TAU) as f32,
            })
        })
        .collect()
}

impl WorldGenerator {
    /// Every object of layer `layer` (an index into [`ScatterSettings::layers`]; see
    /// [`ScatterSettings::layer_index`]) scattered in `[min.x, max.x) × [min.z, max.z)`
    /// ([`crate::scatter`]), ordered by candidate cell row, column and slot. Objects on the
    /// surface stand at [`WorldGenerator::height_at`]; objects of a
    /// [`ScatterGround::CaveFloor`] layer stand on the cave floors chunks drawn with `layout`
    /// show (the drawn surface of a cave depends on its tiles). The rectangle is first moved
    /// inside [`limits::COORDINATE`]; the work grows with its area over the layer's narrowest
    /// spacing squared, plus a margin of a few of its widest spacings.
    ///
    /// # Errors
    /// [`ScatterError::TooLarge`] if that search would cover more than [`MAX_CELLS`] candidate
    /// cells (a rectangle about a kilometre wide for the default grass);
    /// [`ScatterError::NoLayer`] if there is no layer `layer`.
    pub fn scatter_in_rect(
        &self,
        layer: usize,
        min: [f64; 2],
        max: [f64; 2],
        layout: &ChunkLayout,
    ) -> Result<Vec<Scattered>, ScatterError> {
        let layers = self.settings().scatter.layers.len();
        if layer >= layers {
            return Err(ScatterError::NoLayer { layer, layers });
        }
        let (min, max) = (min.map(clamp_coordinate), max.map(clamp_coordinate));
        scatter_in(self, layer, min, max, layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The placement rule against its definition run by brute force: over a wide window, every
    /// candidate in priority order, placed when no placed one conflicts. Away from the window's
    /// edges (where the brute force lacks the candidates beyond) the two agree on every
    /// candidate.
    #[test]
    fn placement_is_the_greedy_set_in_priority_order() {
        let world = WorldGenerator::default();
        for kind in 0..world.settings().scatter.layers.len() {
            let (low, high) = ([-240.0, -240.0], [300.0, 300.0]);
            let brute = Candidates::new(&world, kind, low, high)
                .expect("small enough")
                .expect("the default scatters");
            let mut order: Vec<&Candidate> =
                brute.slots.iter().filter(|c| c.radius > 0.0).collect();
            order.sort_by_key(|c| std::cmp::Reverse(c.priority));
            let mut placed: Vec<&Candidate> = Vec::new();
            let mut greedy = HashSet::new();
            for c in order {
                let free = placed.iter().all(|q| {
                    let (dx, dz) = (c.p[0] - q.p[0], c.p[1] - q.p[1]);
                    let reach = c.radius.max(q.radius);
                    dx * dx + dz * dz >= reach * reach
                });
                if free {
                    placed.push(c);
                    greedy.insert(c.priority);
                }
            }
            let (min, max) = ([0.0, 0.0], [60.0, 60.0]);
            let mut rule = Candidates::new(&world, kind, min, max).unwrap().unwrap();
            let cell = rule.cell;
            let index = |v: f64| (v / cell).floor() as i64;
            let mut checked = 0;
            for cz in index(min[1])..=index(max[1]) {
                for cx in index(min[0])..=index(max[0]) {
                    for slot in 0..SLOTS {
                        let c = rule.get((cx, cz, slot));
                        if c.radius == 0.0 {
                            continue;
                        }
                        let placed = rule.placed((cx, cz, slot));
                        assert_eq!(
                            placed,
                            greedy.contains(&c.priority),
                            "{kind:?} at {:?}",
                            c.p
                        );
                        checked += usize::from(placed);
                    }
                }
            }
            assert!(checked > 10, "{kind:?}: {checked} placed");
        }
    }
}
