//! Chunks: square pieces of the world turned into mesh data (positions, normals, colours,
//! indices, biomes) and trees, ready for any renderer.
//!
//! A chunk's bytes depend only on the world's settings, its [`ChunkCoord`] and its
//! [`ChunkLayout`]: it can be built alone, on any thread, in any order. Vertices on a shared edge
//! sit at the same world coordinates in both chunks, and normals come from heights that include a
//! one-tile apron, so edges match exactly in height, normal and colour.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::scratch::Scratch;
use crate::trees::TreeInstance;
use crate::world::{SettingsError, SiteCache, WorldGenerator, WorldSettings, limits};

/// A chunk's place on the chunk grid: chunk `(x, z)` covers world
/// `[x * size, (x + 1) * size) × [z * size, (z + 1) * size)`, `size` being
/// [`ChunkLayout::chunk_size`].
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct ChunkCoord {
    /// Column (along world x).
    pub x: i32,
    /// Row (along world z).
    pub z: i32,
}

impl ChunkCoord {
    /// The chunk at column `x`, row `z`.
    #[must_use]
    pub const fn new(x: i32, z: i32) -> Self {
        Self { x, z }
    }

    /// The chunk containing world position `(x, z)`: exactly the one whose span
    /// `[origin, origin + size)` holds it (the division's rounding is corrected against the
    /// exact chunk origins), saturating at the ends of the `i32` grid; NaN is read as 0.
    #[must_use]
    pub fn containing(x: f64, z: f64, layout: &ChunkLayout) -> Self {
        let size = layout.chunk_size();
        let tiles = i64::from(layout.tiles);
        let start = |c: i64| (c * tiles) as f64 * layout.tile_size;
        let (low, high) = (i64::from(i32::MIN), i64::from(i32::MAX));
        let axis = |v: f64| {
            let c = ((v / size).floor() as i64).clamp(low, high);
            let c = if c > low && start(c) > v {
                c - 1
            } else if c < high && start(c + 1) <= v {
                c + 1
            } else {
                c
            };
            c as i32
        };
        Self {
            x: axis(x),
            z: axis(z),
        }
    }

    /// World position `(x, z)` of the chunk's corner with the smallest coordinates; chunk-local
    /// positions are relative to it.
    #[must_use]
    pub fn origin(self, layout: &ChunkLayout) -> [f64; 2] {
        let tiles = i64::from(layout.tiles);
        [
            (i64::from(self.x) * tiles) as f64 * layout.tile_size,
            (i64::from(self.z) * tiles) as f64 * layout.tile_size,
        ]
    }

    /// Squared distance on the chunk grid, for nearest-first ordering. Exact for any two
    /// chunks up to 2^32 chunks apart on each axis together (it saturates at `u64::MAX` beyond,
    /// which keeps the order of every distance that matters for streaming).
    #[must_use]
    pub fn distance_squared(self, other: ChunkCoord) -> u64 {
        let dx = u64::from(self.x.abs_diff(other.x));
        let dz = u64::from(self.z.abs_diff(other.z));
        (dx * dx).saturating_add(dz * dz)
    }
}

/// How chunks look: smooth shading, or one flat colour per tile like the tutorial's maps.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MeshStyle {
    /// Shared vertices, smooth normals, colours blended between vertices.
    #[default]
    Smooth,
    /// Four vertices per tile, a flat normal and the colour sampled at the tile's centre.
    FlatTiles,
}

/// The size and look of chunks.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkLayout {
    /// Tiles along each side (1 to 256).
    pub tiles: u32,
    /// Width of a tile, world units.
    pub tile_size: f64,
    /// Smooth or flat tiles.
    pub style: MeshStyle,
}

impl Default for ChunkLayout {
    /// 64 × 64 tiles of 2 world units: 128-unit chunks.
    fn default() -> Self {
        Self {
            tiles: 64,
            tile_size: 2.0,
            style: MeshStyle::Smooth,
        }
    }
}

impl ChunkLayout {
    /// Accepted tiles per side.
    pub const TILES: std::ops::RangeInclusive<u32> = 1..=256;
    /// Accepted tile widths, in steps of [`ChunkLayout::TILE_STEP`].
    pub const TILE_SIZE: std::ops::RangeInclusive<f64> = 0.0625..=256.0;
    /// Tile widths are whole multiples of this (1/64): then every vertex position, chunk origin
    /// and chunk width is exact in binary, so neighbouring chunks share edge vertices bit for
    /// bit and [`ChunkCoord::containing`] puts every chunk origin in its own chunk, out to the
    /// ends of the `i32` chunk grid (at most 2^47 world units, [`limits::COORDINATE`]).
    pub const TILE_STEP: f64 = 1.0 / 64.0;

    /// Width of a chunk, world units.
    #[must_use]
    pub fn chunk_size(&self) -> f64 {
        f64::from(self.tiles) * self.tile_size
    }

    /// Checks `tiles` and `tile_size` against [`ChunkLayout::TILES`], [`ChunkLayout::TILE_SIZE`]
    /// and [`ChunkLayout::TILE_STEP`].
    ///
    /// # Errors
    /// The field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if !Self::TILES.contains(&self.tiles) {
            return Err(SettingsError {
                field: "layout.tiles".to_owned(),
                reason: format!("must be a whole number from 1 to 256 (got {})", self.tiles),
            });
        }
        let (low, high) = (*Self::TILE_SIZE.start(), *Self::TILE_SIZE.end());
        let steps = self.tile_size / Self::TILE_STEP;
        if !(Self::TILE_SIZE.contains(&self.tile_size) && steps == steps.round()) {
            let nearest = (steps.round() * Self::TILE_STEP).clamp(low, high);
            return Err(SettingsError {
                field: "layout.tile_size".to_owned(),
                reason: format!(
                    "must be a multiple of 1/64 from {low} to {high}, so chunk edges are exact \
                     (got {}; the nearest is {nearest})",
                    self.tile_size
                ),
            });
        }
        Ok(())
    }

    /// [`ChunkLayout::validate`], and the layout's cost with `world`: a chunk may hold at most
    /// [`limits::MAX_TREE_SPOTS`] tree spots (one per tree cell it touches), so wide chunks need
    /// wider tree spacing.
    ///
    /// # Errors
    /// The layout field out of range, or `trees.spacing` too small for chunks this wide.
    pub fn validate_with(&self, world: &WorldSettings) -> Result<(), SettingsError> {
        self.validate()?;
        let trees = &world.trees;
        let spots = (self.chunk_size() / trees.spacing + 2.0).powi(2);
        // NaN spacing fails too.
        let fits = spots <= limits::MAX_TREE_SPOTS;
        if trees.enabled && !fits {
            let least = self.chunk_size() / (limits::MAX_TREE_SPOTS.sqrt() - 2.0);
            return Err(SettingsError {
                field: "trees.spacing".to_owned(),
                reason: format!(
                    "with chunks {} units wide, must be at least {least} so a chunk has at most \
                     {} tree spots (got {})",
                    self.chunk_size(),
                    limits::MAX_TREE_SPOTS,
                    trees.spacing
                ),
            });
        }
        Ok(())
    }
}

/// Why a chunk was not built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    /// The layout is out of range, or too costly with the world's settings
    /// ([`ChunkLayout::validate_with`]).
    #[error("invalid chunk layout: {0}")]
    Layout(#[source] SettingsError),
    /// The build's cancel flag was set.
    #[error("the chunk build was cancelled")]
    Cancelled,
}

/// A built chunk: mesh data relative to [`ChunkData::origin`], and its trees.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkData {
    /// Which chunk.
    pub coord: ChunkCoord,
    /// The layout it was built with.
    pub layout: ChunkLayout,
    /// World `(x, z)` of the chunk's corner; positions are relative to it.
    pub origin: [f64; 2],
    /// Vertex positions `(x, height, z)`, relative to `origin`.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// Linear RGBA vertex colours, blended across region borders.
    pub colors: Vec<[f32; 4]>,
    /// Triangle list, counter-clockwise seen from above.
    pub indices: Vec<u32>,
    /// Biome index ([`crate::world::BiomeTable::biomes`]) per vertex.
    pub biomes: Vec<u16>,
    /// Trees standing on this chunk, positions relative to `origin`.
    pub trees: Vec<TreeInstance>,
    /// Lowest vertex height.
    pub min_height: f32,
    /// Highest vertex height.
    pub max_height: f32,
}

/// Margin of cached region cells around the points a chunk looks up: the ring search reaches at
/// most 3 cells out.
const SITE_MARGIN: i64 = 3;

/// Points of the density grid evaluated between two looks at the cancel flag.
const CANCEL_BLOCK: usize = 4096;

/// Builds chunk `coord` of `generator`'s world ([`WorldGenerator::build_chunk_cancellable`]).
pub(crate) fn build(
    generator: &WorldGenerator,
    coord: ChunkCoord,
    layout: &ChunkLayout,
    cancel: &AtomicBool,
) -> Result<ChunkData, ChunkError> {
    layout
        .validate_with(generator.settings())
        .map_err(ChunkError::Layout)?;
    let cancelled = || {
        if cancel.load(Ordering::Relaxed) {
            Err(ChunkError::Cancelled)
        } else {
            Ok(())
        }
    };
    let tiles = i64::from(layout.tiles);
    let ts = layout.tile_size;
    let first = [i64::from(coord.x) * tiles, i64::from(coord.z) * tiles];
    let origin = coord.origin(layout);
    // Exact: grid indices times a multiple of 1/64, within 2^47.
    let world = |g: i64| g as f64 * ts;

    // Heights on the vertex grid plus a one-tile apron, for normals that match across edges.
    let side = tiles as usize + 3;
    let grid = |offset: usize| (-1..=tiles + 1).map(move |g| world(first[offset] + g));
    let xs = Scratch::collect((-1..=tiles + 1).flat_map(|_| grid(0)));
    let zs = Scratch::collect(grid(1).flat_map(|z| std::iter::repeat_n(z, side)));
    let (min, max) = (origin, [world(first[0] + tiles), world(first[1] + tiles)]);
    let cache = SiteCache::covering(
        *generator.regions(),
        min[0] - ts,
        min[1] - ts,
        max[0] + ts,
        max[1] + ts,
        SITE_MARGIN,
    );
    let mut density = Scratch::zeroed(xs.len());
    for start in (0..xs.len()).step_by(CANCEL_BLOCK) {
        cancelled()?;
        let end = (start + CANCEL_BLOCK).min(xs.len());
        generator.density().values(
            &xs[start..end],
            &zs[start..end],
            &cache,
            &mut density[start..end],
        );
    }
    cancelled()?;
    let height_scale = generator.settings().terrain.height_scale;
    let height = |i: usize, j: usize| density[(j + 1) * side + i + 1] * height_scale;

    let verts = tiles as usize + 1;
    let vertex_index = |i: usize, j: usize| (j + 1) * side + i + 1;
    let vertex_count = match layout.style {
        MeshStyle::Smooth => verts * verts,
        MeshStyle::FlatTiles => 4 * (tiles * tiles) as usize,
    };
    let mut chunk = ChunkData {
        coord,
        layout: *layout,
        origin,
        positions: Vec::with_capacity(vertex_count),
        normals: Vec::with_capacity(vertex_count),
        colors: Vec::with_capacity(vertex_count),
        indices: Vec::with_capacity(6 * (tiles * tiles) as usize),
        biomes: Vec::with_capacity(vertex_count),
        trees: crate::trees::trees_in(generator, min, max, &cache)
            .into_iter()
            .map(|t| t.relative_to(origin))
            .collect(),
        min_height: f32::INFINITY,
        max_height: f32::NEG_INFINITY,
    };
    cancelled()?;
    let normal_at = |i: usize, j: usize| {
        let k = vertex_index(i, j);
        let dx = (density[k - 1] - density[k + 1]) * height_scale;
        let dz = (density[k - side] - density[k + side]) * height_scale;
        normalize([dx, 2.0 * ts, dz])
    };

    match layout.style {
        MeshStyle::Smooth => {
            let picks = || (0..verts).flat_map(|j| (0..verts).map(move |i| vertex_index(i, j)));
            let vx = Scratch::collect(picks().map(|k| xs[k]));
            let vz = Scratch::collect(picks().map(|k| zs[k]));
            let vd = Scratch::collect(picks().map(|k| density[k]));
            generator.visit_samples(&vx, &vz, &vd, &cache, |k, sample| {
                let (i, j) = (k % verts, k / verts);
                chunk.push_vertex(
                    [
                        (i as f64 * ts) as f32,
                        height(i, j) as f32,
                        (j as f64 * ts) as f32,
                    ],
                    normal_at(i, j),
                    &sample,
                );
            });
            let row = verts as u32;
            for j in 0..tiles as u32 {
                for i in 0..tiles as u32 {
                    let v00 = j * row + i;
                    let (v10, v01, v11) = (v00 + 1, v00 + row, v00 + row + 1);
                    chunk
                        .indices
                        .extend_from_slice(&[v00, v01, v10, v10, v01, v11]);
                }
            }
        }
        MeshStyle::FlatTiles => {
            let n = tiles as usize;
            let cx =
                Scratch::collect((0..n * n).map(|k| world(first[0] + (k % n) as i64) + ts / 2.0));
            let cz =
                Scratch::collect((0..n * n).map(|k| world(first[1] + (k / n) as i64) + ts / 2.0));
            let mut centre_density = Scratch::zeroed(cx.len());
            generator
                .density()
                .values(&cx, &cz, &cache, &mut centre_density);
            generator.visit_samples(&cx, &cz, &centre_density, &cache, |k, sample| {
                let (i, j) = (k % n, k / n);
                let corners = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)];
                let p = corners.map(|(a, b)| [a as f64 * ts, height(a, b), b as f64 * ts]);
                // Cross of the diagonals: the tile's average upward normal.
                let d1 = sub(p[3], p[0]);
                let d2 = sub(p[2], p[1]);
                let normal = normalize(cross(d2, d1));
                let base = chunk.positions.len() as u32;
                for corner in p {
                    chunk.push_vertex(corner.map(|v| v as f32), normal, &sample);
                }
                chunk.indices.extend_from_slice(&[
                    base,
                    base + 2,
                    base + 1,
                    base + 1,
                    base + 2,
                    base + 3,
                ]);
            });
        }
    }
    Ok(chunk)
}

impl ChunkData {
    fn push_vertex(&mut self, position: [f32; 3], normal: [f64; 3], sample: &crate::Sample) {
        self.min_height = self.min_height.min(position[1]);
        self.max_height = self.max_height.max(position[1]);
        self.positions.push(position);
        self.normals.push(normal.map(|v| v as f32));
        self.colors.push(sample.color);
        self.biomes.push(sample.biome as u16);
    }

    /// World position of vertex `index` (`origin` plus the relative position, in `f64`).
    ///
    /// # Panics
    /// If `index` is not below the vertex count.
    #[must_use]
    pub fn world_position(&self, index: usize) -> [f64; 3] {
        let p = self.positions[index];
        [
            self.origin[0] + f64::from(p[0]),
            f64::from(p[1]),
            self.origin[1] + f64::from(p[2]),
        ]
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalize(v: [f64; 3]) -> [f64; 3] {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / length)
}
