//! Chunks: square pieces of the world turned into mesh data (positions, normals, colours,
//! indices, biomes) and trees, ready for any renderer.
//!
//! A chunk's bytes depend only on the world's settings, its [`ChunkCoord`] and its
//! [`ChunkLayout`]: it can be built alone, on any thread, in any order. Vertices on a shared edge
//! sit at the same world coordinates in both chunks, and normals come from heights that include a
//! one-tile apron, so edges match exactly in height, normal and colour.

pub(crate) mod volume;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::check::SettingsError;
use crate::coords::{ChunkCoord, ChunkLayout, MeshStyle, NodeCoord, Stitch, clamp_coordinate};
use crate::generator::{GridAxes, Known, RiverDetail, WorldGenerator, WorldSettings};
use crate::limits;
use crate::regions::SiteCache;
use crate::rivers::RiverPoint;
use crate::scratch::Scratch;
use crate::trees::TreeInstance;

impl WorldGenerator {
    /// Builds chunk `coord`: its mesh data and trees ([`crate::chunk`]).
    ///
    /// # Errors
    /// [`ChunkError::Layout`] if [`ChunkLayout::validate_with`] refuses `layout` for this world.
    pub fn build_chunk(
        &self,
        coord: ChunkCoord,
        layout: &ChunkLayout,
    ) -> Result<ChunkData, ChunkError> {
        self.build_chunk_cancellable(coord, layout, &AtomicBool::new(false))
    }

    /// [`WorldGenerator::build_chunk`] that stops early, within a few milliseconds, once
    /// `cancel` is set (from another thread, say, when the chunk is no longer wanted).
    ///
    /// The cancellable builds sample in blocks of a few hundred points, looking at `cancel` and
    /// yielding the thread ([`std::thread::yield_now`]) between blocks, so a build on a
    /// background thread lets a waiting thread (a game's frame) have its core within about
    /// 0.1 ms even when every core is busy.
    ///
    /// # Errors
    /// [`ChunkError::Layout`] for a refused layout, [`ChunkError::Cancelled`] once `cancel` is
    /// set.
    pub fn build_chunk_cancellable(
        &self,
        coord: ChunkCoord,
        layout: &ChunkLayout,
        cancel: &AtomicBool,
    ) -> Result<ChunkData, ChunkError> {
        build(
            self,
            NodeCoord::chunk(coord),
            layout,
            Stitch::NONE,
            None,
            cancel,
        )
    }

    /// Whether nodes of `level` built with `layout` carve and draw the rivers
    /// ([`crate::rivers`]): chunks, and nodes at most 32 river nodes wide (5,120 units at the
    /// default spacing: levels 0 to 5 of the default layout). Coarser nodes show the land before
    /// rivers: their vertices lie farther apart than the widest channel, and each could need a
    /// river network of its own. A node of the last level with rivers follows a coarser
    /// neighbour's bare edge where it is stitched to one, so the surfaces still meet exactly.
    /// A node's vertex grid carves every channel at least one vertex spacing wide each side of
    /// its centre line, so none falls between its vertices (as far as its valley lets it
    /// widen). [`WorldGenerator::height_at`] and the other point queries always include the
    /// rivers, as they are.
    #[must_use]
    pub fn draws_rivers_at(&self, level: u8, layout: &ChunkLayout) -> bool {
        let side = layout.chunk_size() * (1u64 << level.min(63)) as f64;
        self.settings().rivers.drawn_on(side, level)
    }

    /// The heights of chunk `coord`'s vertex grid, bit for bit those of
    /// [`WorldGenerator::build_chunk`]'s [`ChunkData::heights`], for a fraction of the work (no
    /// normals, colours or trees): the ground for physics where no chunk is drawn. Stops early
    /// once `cancel` is set.
    ///
    /// # Errors
    /// [`ChunkError::Layout`] for a refused layout, [`ChunkError::Cancelled`] once `cancel` is
    /// set.
    pub fn chunk_heights(
        &self,
        coord: ChunkCoord,
        layout: &ChunkLayout,
        cancel: &AtomicBool,
    ) -> Result<HeightGrid, ChunkError> {
        Ok(density(self, NodeCoord::chunk(coord), layout, cancel)?.heights())
    }

    /// The density of `node`'s vertex grid, as [`WorldGenerator::build_node`] samples it first:
    /// the ground for physics ([`NodeDensity::heights`]), and a head start for
    /// [`WorldGenerator::build_node_from`]. Stops early once `cancel` is set.
    ///
    /// # Errors
    /// [`ChunkError::Layout`] for a refused layout, [`ChunkError::Level`] beyond
    /// [`NodeCoord::MAX_LEVEL`], [`ChunkError::Reach`] past the world's end,
    /// [`ChunkError::Cancelled`].
    pub fn node_density(
        &self,
        node: NodeCoord,
        layout: &ChunkLayout,
        cancel: &AtomicBool,
    ) -> Result<NodeDensity, ChunkError> {
        density(self, node, layout, cancel)
    }

    /// Builds level-of-detail `node` with `layout`'s tile count (tiles `2^level` times wider),
    /// sampled from the same fields as chunks; with the same guarantees, its bytes depend only
    /// on the settings, the node, the layout and `stitch`. Along the sides `stitch` names, the
    /// edge follows the coarser neighbour's: every other vertex is one of its vertices (with
    /// its normal), and those between lie on its edge, so the surfaces meet with no crack and
    /// no line in the shading. A coarser node carries no trees. Stops early once `cancel` is set.
    ///
    /// # Errors
    /// [`ChunkError::Layout`] for a refused layout (or an odd tile count with a stitch),
    /// [`ChunkError::Level`] beyond [`NodeCoord::MAX_LEVEL`], [`ChunkError::Reach`] past the
    /// world's end, [`ChunkError::Cancelled`].
    pub fn build_node(
        &self,
        node: NodeCoord,
        layout: &ChunkLayout,
        stitch: Stitch,
        cancel: &AtomicBool,
    ) -> Result<ChunkData, ChunkError> {
        build(self, node, layout, stitch, None, cancel)
    }

    /// [`WorldGenerator::build_node`] on `density` from [`WorldGenerator::node_density`] (of this
    /// world, `node` and `layout`): only the apron around the grid is sampled, and the bytes are
    /// the same.
    ///
    /// # Errors
    /// Those of [`WorldGenerator::build_node`], and [`ChunkError::Density`] when `density` was
    /// sampled for another node, layout or height scale.
    pub fn build_node_from(
        &self,
        node: NodeCoord,
        layout: &ChunkLayout,
        stitch: Stitch,
        density: &NodeDensity,
        cancel: &AtomicBool,
    ) -> Result<ChunkData, ChunkError> {
        build(self, node, layout, stitch, Some(density), cancel)
    }
}

impl ChunkLayout {
    /// [`ChunkLayout::validate`], and the layout's cost with `settings`: a chunk may hold at most
    /// [`limits::MAX_TREE_SPOTS`] tree spots (one per tree cell it touches), so wide chunks need
    /// wider tree spacing; with a terrain volume the style must be smooth and a chunk may sample
    /// at most [`limits::VOLUME_LAYERS`] layers of its band, over a lattice no finer than half a
    /// tile.
    ///
    /// # Errors
    /// The layout field out of range, `trees.spacing` too small for chunks this wide, or with a
    /// terrain volume `layout.style` not smooth, `layout.tile_size` too fine for its band or
    /// `terrain.volume.spacing` finer than half a tile.
    pub fn validate_with(&self, settings: &WorldSettings) -> Result<(), SettingsError> {
        self.validate()?;
        if let Some(volume) = &settings.terrain.volume {
            if self.style != MeshStyle::Smooth {
                return Err(SettingsError {
                    field: "layout.style".to_owned(),
                    reason: "must be Smooth with a terrain volume: flat tiles cannot show caves \
                             or overhangs"
                        .to_owned(),
                });
            }
            let layers = (volume.below + volume.above) / self.tile_size;
            if layers > limits::VOLUME_LAYERS {
                return Err(SettingsError {
                    field: "layout.tile_size".to_owned(),
                    reason: format!(
                        "must be at least {} with a terrain volume {} units deep, so a chunk \
                         samples at most {} layers of it (got {})",
                        (volume.below + volume.above) / limits::VOLUME_LAYERS,
                        volume.below + volume.above,
                        limits::VOLUME_LAYERS,
                        self.tile_size
                    ),
                });
            }
            // Finer than half a tile the lattice adds cost and no detail the mesh can show.
            if volume.spacing.is_nan() || volume.spacing < self.tile_size / 2.0 {
                return Err(SettingsError {
                    field: "terrain.volume.spacing".to_owned(),
                    reason: format!(
                        "must be at least half the layout's tile size, {} (got {})",
                        self.tile_size / 2.0,
                        volume.spacing
                    ),
                });
            }
        }
        let trees = &settings.trees;
        let across = self.chunk_size() / trees.spacing + 2.0;
        let spots = across * across;
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
    /// The node's level is above [`NodeCoord::MAX_LEVEL`].
    #[error("node level {0} is above the coarsest, {max}", max = NodeCoord::MAX_LEVEL)]
    Level(u8),
    /// The node reaches past the generator's reach, ±2^47 world units
    /// ([`crate::limits::COORDINATE`], [`ChunkLayout::chunk_reach`]).
    #[error("node {0:?} reaches past the world's end, 2^47 units from the origin")]
    Reach(NodeCoord),
    /// [`WorldGenerator::build_node_from`] got the density of another node, layout or height
    /// scale.
    #[error(
        "the density given for node {node:?} was sampled for {given:?}, another layout or another height scale"
    )]
    Density {
        /// The node the density was sampled for.
        given: NodeCoord,
        /// The node to build.
        node: NodeCoord,
    },
    /// The node's objects could not be scattered ([`crate::WorldGenerator::scatter_in_rect`]).
    #[error("the node's objects were not scattered: {0}")]
    Scatter(#[from] crate::scatter::ScatterError),
}

/// A built chunk or coarser node: mesh data relative to [`ChunkData::origin`], and its trees.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkData {
    /// Which node (a chunk is a node of level 0).
    pub node: NodeCoord,
    /// The chunk layout it was built with (a coarser node's tiles are `2^level` times wider).
    pub layout: ChunkLayout,
    /// World `(x, z)` of the chunk's corner; positions are relative to it.
    pub origin: [f64; 2],
    /// Vertex positions `(x, height, z)`, relative to `origin`.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// Linear RGBA vertex colours, blended across region borders.
    pub colors: Vec<[f32; 4]>,
    /// Linear RGBA land colours per vertex, before water, sand and snow ([`crate::Sample::land_color`]).
    pub land_colors: Vec<[f32; 4]>,
    /// Temperature per vertex, 0 to 1, with mountain chill (snow lies below
    /// `surface.snow_temperature`).
    pub temperatures: Vec<f32>,
    /// Share of the ground an edit's own surface covers per vertex, 0 to 1
    /// ([`crate::Sample::cover`]): what a shader leaves bare of snow and sand.
    pub covers: Vec<f32>,
    /// Triangle list, counter-clockwise seen from above.
    pub indices: Vec<u32>,
    /// Biome index ([`crate::BiomeTable::biomes`]) per vertex.
    pub biomes: Vec<u16>,
    /// The biomes blended at each vertex and their shares, as the land colour blends them:
    /// what a shader needs to blend a texture per biome the same way.
    pub biome_blends: Vec<BiomeBlend>,
    /// Trees standing on this chunk, positions relative to `origin` (none on coarser nodes).
    pub trees: Vec<TreeInstance>,
    /// The water of rivers and lakes over the node ([`crate::rivers`]), empty where none runs.
    pub river_water: WaterMesh,
    /// The heights of the vertex grid as sampled, before edges follow a coarser neighbour: the
    /// ground physics stands on ([`WorldGenerator::chunk_heights`] gives the same alone).
    pub heights: HeightGrid,
    /// Lowest vertex height.
    pub min_height: f32,
    /// Highest vertex height.
    pub max_height: f32,
    /// Whether the world's volume ([`crate::terrain::VolumeSettings`]) shapes the mesh: caves,
    /// overhangs or arches that [`ChunkData::heights`] does not hold. Its first vertices are
    /// still the height field's grid, and the volume's follow them.
    pub volume: bool,
}

/// A water surface as a triangle list: positions relative to the node's origin, counter-clockwise
/// seen from above.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaterMesh {
    /// Vertex positions `(x, height, z)`.
    pub positions: Vec<[f32; 3]>,
    /// Triangle list.
    pub indices: Vec<u32>,
}

impl WaterMesh {
    /// Whether it holds no water.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Adds triangle `corners` (positions, each with its grid vertex), sharing the vertices
    /// added already: `index[vertex]` is a grid vertex's place in the mesh, `u32::MAX` before.
    fn triangle(&mut self, corners: [([f32; 3], usize); 3], index: &mut [u32]) {
        for (position, vertex) in corners {
            if index[vertex] == u32::MAX {
                index[vertex] = self.positions.len() as u32;
                self.positions.push(position);
            }
            self.indices.push(index[vertex]);
        }
    }
}

/// Heights on a node's vertex grid: what physics engines build a heightfield from. Meshes split
/// every tile along the diagonal from `(i + 1, j)` to `(i, j + 1)`, and so do
/// [`HeightGrid::height_at`], [`tile_height`] and parry's heightfields.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeightGrid {
    /// World `(x, z)` of sample `(0, 0)`.
    pub origin: [f64; 2],
    /// Distance between neighbouring samples, world units.
    pub spacing: f64,
    /// Samples along each side: the tile count plus one.
    pub side: usize,
    /// `side × side` heights, row by row: sample `(i, j)` (`i` along x, `j` along z) at
    /// `j * side + i`.
    pub heights: Vec<f32>,
}

impl HeightGrid {
    /// Height of sample `(i, j)`.
    ///
    /// # Panics
    /// If `i` or `j` is not below [`HeightGrid::side`], or the grid holds fewer heights than
    /// `side²`.
    #[must_use]
    pub fn get(&self, i: usize, j: usize) -> f32 {
        assert!(
            i < self.side && j < self.side,
            "sample ({i}, {j}) is off the grid"
        );
        self.heights[j * self.side + i]
    }

    /// Height of the triangulated surface at world `(x, z)`, the point first moved onto the grid
    /// (a NaN coordinate reads the grid's first row or column, as the world reads NaN as 0).
    ///
    /// # Panics
    /// If the grid has fewer than 2 samples a side (as [`HeightGrid::default`]) or fewer heights
    /// than `side²`; every grid the core builds has at least 2 (a chunk's tile count plus one).
    #[must_use]
    pub fn height_at(&self, x: f64, z: f64) -> f64 {
        assert!(
            self.side >= 2 && self.heights.len() >= self.side * self.side,
            "a height grid needs at least 2 × 2 samples (got side {} with {} heights)",
            self.side,
            self.heights.len()
        );
        let last = (self.side - 2) as f64;
        let local = |p: f64, o: f64| {
            let t = (p - o) / self.spacing;
            let t = if t.is_nan() {
                0.0
            } else {
                t.clamp(0.0, last + 1.0)
            };
            let cell = t.floor().min(last);
            (cell as usize, t - cell)
        };
        let ((i, u), (j, v)) = (local(x, self.origin[0]), local(z, self.origin[1]));
        let h = |a: usize, b: usize| f64::from(self.get(a, b));
        tile_height([h(i, j), h(i + 1, j), h(i, j + 1), h(i + 1, j + 1)], u, v)
    }
}

/// Height at `(u, v)` (each 0 to 1, `u` along x) in a tile with corner heights
/// `[h00, h10, h01, h11]` (`h10` one step along x), split along the diagonal from `(1, 0)` to
/// `(0, 1)` as meshes and heightfields split it.
#[must_use]
pub fn tile_height(corners: [f64; 4], u: f64, v: f64) -> f64 {
    let [h00, h10, h01, h11] = corners;
    if u + v <= 1.0 {
        h00 + (h10 - h00) * u + (h01 - h00) * v
    } else {
        h11 + (h01 - h11) * (1.0 - u) + (h10 - h11) * (1.0 - v)
    }
}

/// The world density on a node's vertex grid, before `terrain.height_scale`: the first and
/// largest part of a node build, and all that physics needs. [`WorldGenerator::node_density`]
/// samples it alone, [`NodeDensity::heights`] turns it into the ground, and
/// [`WorldGenerator::build_node_from`] builds the node on it without sampling it again, so a
/// collider and a mesh of the same node pay for the density once.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeDensity {
    node: NodeCoord,
    layout: ChunkLayout,
    height_scale: f64,
    /// `(tiles + 1)²` values, row by row as [`HeightGrid::heights`].
    values: Vec<f64>,
}

impl NodeDensity {
    /// The node it was sampled for.
    #[must_use]
    pub fn node(&self) -> NodeCoord {
        self.node
    }

    /// The layout it was sampled with.
    #[must_use]
    pub fn layout(&self) -> ChunkLayout {
        self.layout
    }

    /// The heights of the grid, bit for bit a build's [`ChunkData::heights`].
    #[must_use]
    pub fn heights(&self) -> HeightGrid {
        let side = self.layout.tiles as usize + 1;
        HeightGrid {
            origin: self.node.origin(&self.layout),
            spacing: self.node.tile_size(&self.layout),
            side,
            heights: self
                .values
                .iter()
                .map(|&d| (d * self.height_scale) as f32)
                .collect(),
        }
    }
}

/// Margin of cached region cells around the points a chunk looks up: the ring search reaches at
/// most 3 cells out.
const SITE_MARGIN: i64 = 3;

/// Points of the density grid evaluated between two looks at the cancel flag (about 0.06 ms of
/// work on a default world).
const CANCEL_BLOCK: usize = 512;

/// Builds `node` of `generator`'s world ([`WorldGenerator::build_node`]), on `given` where the
/// vertex grid's density was sampled already ([`WorldGenerator::build_node_from`]).
pub(crate) fn build(
    generator: &WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
    stitch: Stitch,
    given: Option<&NodeDensity>,
    cancel: &AtomicBool,
) -> Result<ChunkData, ChunkError> {
    check_node(generator, node, layout)?;
    if let Some(given) = given
        && (given.node != node
            || given.layout != *layout
            || given.height_scale != generator.settings().terrain.height_scale)
    {
        return Err(ChunkError::Density {
            given: given.node,
            node,
        });
    }
    if !stitch.is_none() && layout.tiles % 2 == 1 {
        return Err(ChunkError::Layout(SettingsError {
            field: "layout.tiles".to_owned(),
            reason: format!(
                "must be even for nodes stitched to coarser ones (got {})",
                layout.tiles
            ),
        }));
    }
    let cancelled = || {
        if cancel.load(Ordering::Relaxed) {
            Err(ChunkError::Cancelled)
        } else {
            Ok(())
        }
    };
    let tiles = i64::from(layout.tiles);
    let ts = node.tile_size(layout);
    // The first vertex's index on this level's grid (tiles `ts` apart).
    let first = [node.x * tiles, node.z * tiles];
    let origin = node.origin(layout);
    // Exact: grid indices times a multiple of 1/64, within 2^47.
    let world = |g: i64| clamp_coordinate(g as f64 * ts);

    // Heights on the vertex grid plus an apron, for normals that match across edges: one tile,
    // or two where an edge follows a coarser neighbour's (its normals use the coarse spacing).
    let apron: i64 = if stitch.is_none() { 1 } else { 2 };
    let side = (tiles + 2 * apron + 1) as usize;
    let reach = apron as usize;
    let grid = |offset: usize| (-apron..=tiles + apron).map(move |g| world(first[offset] + g));
    let xs = Scratch::collect((-apron..=tiles + apron).flat_map(|_| grid(0)));
    let zs = Scratch::collect(grid(1).flat_map(|z| std::iter::repeat_n(z, side)));
    let rows = Scratch::collect(grid(1));
    let axes = GridAxes {
        xs: &xs[..side],
        zs: &rows,
    };
    let (min, max) = (origin, [world(first[0] + tiles), world(first[1] + tiles)]);
    let margin = ts * apron as f64;
    let cache = SiteCache::covering(
        *generator.regions(),
        min[0] - margin,
        min[1] - margin,
        max[0] + margin,
        max[1] + margin,
        SITE_MARGIN,
    );
    let vertex_index = |i: usize, j: usize| (j + reach) * side + i + reach;
    let verts = tiles as usize + 1;
    let rivers = river_detail(generator, node.level, layout);
    let density = match given {
        None => densities(generator, &xs, &zs, &cache, rivers, Some(axes), cancel)?,
        Some(given) => {
            // Only the apron is left to sample.
            let on_grid = |k: usize| {
                (reach..reach + verts).contains(&(k % side))
                    && (reach..reach + verts).contains(&(k / side))
            };
            let apron: Vec<usize> = (0..xs.len()).filter(|&k| !on_grid(k)).collect();
            let ax = Scratch::collect(apron.iter().map(|&k| xs[k]));
            let az = Scratch::collect(apron.iter().map(|&k| zs[k]));
            let sampled = densities(generator, &ax, &az, &cache, rivers, None, cancel)?;
            let mut density = Scratch::zeroed(xs.len());
            for (&k, &d) in apron.iter().zip(sampled.iter()) {
                density[k] = d;
            }
            for (n, &d) in given.values.iter().enumerate() {
                density[vertex_index(n % verts, n / verts)] = d;
            }
            density
        }
    };
    let edges = StitchedEdges::new(stitch, verts);
    // A coarser neighbour carves the rivers at its own spacing (or, past the last level with
    // rivers, not at all): where this node's vertices are its vertices, they and the heights
    // their normals read (two steps out) are read as it reads them.
    let coarser = river_detail(generator, node.level + 1, layout);
    let coarse_field = if rivers != coarser && !stitch.is_none() {
        let mut read: Vec<usize> = (0..verts)
            .flat_map(|j| (0..verts).map(move |i| (i, j)))
            .filter(|&(i, j)| edges.coarse(i, j))
            .flat_map(|(i, j)| {
                let k = vertex_index(i, j);
                [k, k - 2, k + 2, k - 2 * side, k + 2 * side]
            })
            .collect();
        read.sort_unstable();
        read.dedup();
        let rx = Scratch::collect(read.iter().map(|&k| xs[k]));
        let rz = Scratch::collect(read.iter().map(|&k| zs[k]));
        let sampled = densities(generator, &rx, &rz, &cache, coarser, None, cancel)?;
        let mut field = Scratch::collect(density.iter().copied());
        for (&k, &d) in read.iter().zip(sampled.iter()) {
            field[k] = d;
        }
        Some(field)
    } else {
        None
    };
    // The heights around vertex `(i, j)`: the coarse neighbour's where it is one of its vertices.
    let field = |i: usize, j: usize| match &coarse_field {
        Some(coarse) if edges.coarse(i, j) => coarse,
        _ => &density,
    };
    let vertex_density = |i: usize, j: usize| field(i, j)[vertex_index(i, j)];
    cancelled()?;
    let height_scale = generator.settings().terrain.height_scale;
    let height = |i: usize, j: usize| vertex_density(i, j) * height_scale;

    let heights = HeightGrid {
        origin,
        spacing: ts,
        side: verts,
        heights: (0..verts)
            .flat_map(|j| (0..verts).map(move |i| (i, j)))
            .map(|(i, j)| height(i, j) as f32)
            .collect(),
    };
    let vertex_count = match layout.style {
        MeshStyle::Smooth => verts * verts,
        MeshStyle::FlatTiles => 4 * (tiles * tiles) as usize,
    };
    let trees = if node.level == 0 {
        crate::trees::trees_in(generator, min, max, &cache, 1)
            .into_iter()
            .map(|t| t.relative_to(origin))
            .collect()
    } else {
        Vec::new()
    };
    let mut chunk = ChunkData {
        node,
        layout: *layout,
        origin,
        positions: Vec::with_capacity(vertex_count),
        normals: Vec::with_capacity(vertex_count),
        colors: Vec::with_capacity(vertex_count),
        land_colors: Vec::with_capacity(vertex_count),
        temperatures: Vec::with_capacity(vertex_count),
        covers: Vec::with_capacity(vertex_count),
        indices: Vec::with_capacity(6 * (tiles * tiles) as usize),
        biomes: Vec::with_capacity(vertex_count),
        biome_blends: Vec::with_capacity(vertex_count),
        trees,
        river_water: WaterMesh::default(),
        heights,
        min_height: f32::INFINITY,
        max_height: f32::NEG_INFINITY,
        volume: false,
    };
    cancelled()?;
    // Central differences `step` grid points either way: one for the node's own spacing, two for
    // a coarser neighbour's.
    let normal_with = |i: usize, j: usize, step: usize| {
        let (k, density) = (vertex_index(i, j), field(i, j));
        let dx = (density[k - step] - density[k + step]) * height_scale;
        let dz = (density[k - step * side] - density[k + step * side]) * height_scale;
        normalize([dx, 2.0 * ts * step as f64, dz])
    };
    let normal_at = |i: usize, j: usize| normal_with(i, j, if edges.coarse(i, j) { 2 } else { 1 });

    match layout.style {
        MeshStyle::Smooth => {
            let grid = || (0..verts).flat_map(|j| (0..verts).map(move |i| (i, j)));
            let vx = Scratch::collect(grid().map(|(i, j)| xs[vertex_index(i, j)]));
            let vz = Scratch::collect(grid().map(|(i, j)| zs[vertex_index(i, j)]));
            let vd = Scratch::collect(grid().map(|(i, j)| vertex_density(i, j)));
            let mut river_points = generator
                .river_points(&vx, &vz, &vd, rivers)
                .unwrap_or_else(|| vec![RiverPoint::DRY; vx.len()]);
            if coarse_field.is_some() {
                let at: Vec<usize> = (grid().enumerate())
                    .filter(|&(_, (i, j))| edges.coarse(i, j))
                    .map(|(k, _)| k)
                    .collect();
                let pick = |values: &[f64]| Scratch::collect(at.iter().map(|&k| values[k]));
                let coarse = generator
                    .river_points(&pick(&vx), &pick(&vz), &pick(&vd), coarser)
                    .unwrap_or_else(|| vec![RiverPoint::DRY; at.len()]);
                for (&k, point) in at.iter().zip(coarse) {
                    river_points[k] = point;
                }
            }
            let known = Known {
                density: &vd,
                shifts: None,
                rivers: Some(&river_points),
            };
            generator.visit_samples(&vx, &vz, &known, &cache, |k, sample| {
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
            edges.snap(&mut chunk, verts);
            edges.snap_rivers(&mut river_points, verts);
            chunk.river_water = river_water(&river_points, verts, ts);
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
            if node.level == 0 {
                volume::carve(generator, &mut chunk, stitch, &cache, rivers, cancel)?;
            }
        }
        MeshStyle::FlatTiles => {
            let n = tiles as usize;
            let cx =
                Scratch::collect((0..n * n).map(|k| world(first[0] + (k % n) as i64) + ts / 2.0));
            let cz =
                Scratch::collect((0..n * n).map(|k| world(first[1] + (k / n) as i64) + ts / 2.0));
            let mut centre_density = Scratch::zeroed(cx.len());
            generator.terrain_values(&cx, &cz, &cache, rivers, &mut centre_density);
            let rivers = generator.river_points(&cx, &cz, &centre_density, rivers);
            let known = Known {
                density: &centre_density,
                shifts: None,
                rivers: rivers.as_deref(),
            };
            // A corner on a stitched edge takes the coarse edge's height there.
            let corner_height = |a: usize, b: usize| edges.height(a, b, &height);
            let mut water = WaterMesh::default();
            generator.visit_samples(&cx, &cz, &known, &cache, |k, sample| {
                let (i, j) = (k % n, k / n);
                let corners = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)];
                // A tile whose centre lies under a river carries a flat square of its water.
                if let Some(level) = sample.river.water {
                    let base = water.positions.len() as u32;
                    for (a, b) in corners {
                        water.positions.push([
                            (a as f64 * ts) as f32,
                            level as f32,
                            (b as f64 * ts) as f32,
                        ]);
                    }
                    water.indices.extend(QUAD.map(|corner| base + corner));
                }
                let p = corners.map(|(a, b)| [a as f64 * ts, corner_height(a, b), b as f64 * ts]);
                // Cross of the diagonals: the tile's average upward normal.
                let d1 = sub(p[3], p[0]);
                let d2 = sub(p[2], p[1]);
                let normal = normalize(cross(d2, d1));
                let base = chunk.positions.len() as u32;
                for corner in p {
                    chunk.push_vertex(corner.map(|v| v as f32), normal, &sample);
                }
                chunk.indices.extend(QUAD.map(|corner| base + corner));
            });
            chunk.river_water = water;
        }
    }
    Ok(chunk)
}

/// How nodes of `level` read the rivers ([`WorldGenerator::draws_rivers_at`]): channels at
/// least one vertex spacing wide each side, so none falls between vertices.
fn river_detail(generator: &WorldGenerator, level: u8, layout: &ChunkLayout) -> RiverDetail {
    if generator.draws_rivers_at(level, layout) {
        RiverDetail::Carved {
            min_half_width: layout.tile_size * (1u64 << level.min(63)) as f64,
        }
    } else {
        RiverDetail::Omitted
    }
}

/// Whether `generator`'s world builds `node` with `layout` at all.
fn check_node(
    generator: &WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
) -> Result<(), ChunkError> {
    layout
        .validate_with(generator.settings())
        .map_err(ChunkError::Layout)?;
    if node.level > NodeCoord::MAX_LEVEL {
        return Err(ChunkError::Level(node.level));
    }
    // In whole chunks, before any position is computed from them.
    let (high, span) = (layout.chunk_reach(), 1i64 << node.level);
    let within = |c: i64| c >= -((high + 1) >> node.level) && c <= (high + 1 - span) >> node.level;
    if !(within(node.x) && within(node.z)) {
        return Err(ChunkError::Reach(node));
    }
    Ok(())
}

/// The density at every point of `xs` and `zs`, a block at a time, stopping once `cancel` is set;
/// `grid` gives their axes where they are a grid, which lays the edits faster.
/// The thread is yielded between blocks: on a machine with few cores, a thread waiting for the
/// core (a game's frame) then waits one block rather than a scheduler slice (a millisecond or
/// more), and a yield with nothing waiting costs under a microsecond.
fn densities(
    generator: &WorldGenerator,
    xs: &[f64],
    zs: &[f64],
    cache: &SiteCache,
    rivers: RiverDetail,
    grid: Option<GridAxes<'_>>,
    cancel: &AtomicBool,
) -> Result<Scratch, ChunkError> {
    let mut density = Scratch::zeroed(xs.len());
    for start in (0..xs.len()).step_by(CANCEL_BLOCK) {
        if cancel.load(Ordering::Relaxed) {
            return Err(ChunkError::Cancelled);
        }
        std::thread::yield_now();
        let end = (start + CANCEL_BLOCK).min(xs.len());
        generator.carved_values(
            &xs[start..end],
            &zs[start..end],
            cache,
            rivers,
            &mut density[start..end],
        );
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(ChunkError::Cancelled);
    }
    match grid {
        Some(grid) => generator.edit_grid(grid, &mut density),
        None => generator.edit_values(xs, zs, &mut density),
    }
    Ok(density)
}

/// The density of `node`'s vertex grid alone ([`WorldGenerator::node_density`]): the same
/// values [`build`] samples, from the same points.
pub(crate) fn density(
    generator: &WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
    cancel: &AtomicBool,
) -> Result<NodeDensity, ChunkError> {
    check_node(generator, node, layout)?;
    let tiles = i64::from(layout.tiles);
    let ts = node.tile_size(layout);
    let first = [node.x * tiles, node.z * tiles];
    let world = |g: i64| clamp_coordinate(g as f64 * ts);
    let side = tiles as usize + 1;
    let xs = Scratch::collect((0..=tiles).flat_map(|_| (0..=tiles).map(|g| world(first[0] + g))));
    let zs =
        Scratch::collect((0..=tiles).flat_map(|g| std::iter::repeat_n(world(first[1] + g), side)));
    let rows = Scratch::collect((0..=tiles).map(|g| world(first[1] + g)));
    let axes = GridAxes {
        xs: &xs[..side],
        zs: &rows,
    };
    let origin = node.origin(layout);
    let far = [world(first[0] + tiles), world(first[1] + tiles)];
    let cache = SiteCache::covering(
        *generator.regions(),
        origin[0],
        origin[1],
        far[0],
        far[1],
        SITE_MARGIN,
    );
    let rivers = river_detail(generator, node.level, layout);
    let density = densities(generator, &xs, &zs, &cache, rivers, Some(axes), cancel)?;
    Ok(NodeDensity {
        node,
        layout: *layout,
        height_scale: generator.settings().terrain.height_scale,
        values: density.to_vec(),
    })
}

/// The vertices of a node that follow coarser neighbours' edges. With an even tile count, a
/// node's corners and every other vertex along an edge are vertices of the coarse neighbour too
/// (they take its normals, computed at its spacing); the ones between lie on the coarse edge
/// segment (they take the midpoint of its two vertices, in height, normal and colour).
struct StitchedEdges {
    stitch: Stitch,
    last: usize,
}

impl StitchedEdges {
    fn new(stitch: Stitch, verts: usize) -> Self {
        Self {
            stitch,
            last: verts - 1,
        }
    }

    /// The stitched sides vertex `(i, j)` lies on.
    fn sides(&self, i: usize, j: usize) -> [bool; 4] {
        let s = self.stitch.sides;
        [
            s[0] && i == 0,
            s[1] && i == self.last,
            s[2] && j == 0,
            s[3] && j == self.last,
        ]
    }

    /// Whether vertex `(i, j)` is a coarse neighbour's vertex (its normal uses the coarse
    /// spacing): an even vertex on a stitched side, or a corner touching a coarser node.
    fn coarse(&self, i: usize, j: usize) -> bool {
        let corner = [
            (0, 0),
            (self.last, 0),
            (0, self.last),
            (self.last, self.last),
        ]
        .iter()
        .zip(self.stitch.corners)
        .any(|(&c, flagged)| flagged && c == (i, j));
        corner || (self.sides(i, j).iter().any(|&s| s) && (i + j).is_multiple_of(2))
    }

    /// Height of vertex `(a, b)` as the stitched edges have it.
    fn height(&self, a: usize, b: usize, height: &impl Fn(usize, usize) -> f64) -> f64 {
        match self.between(a, b) {
            Some([(i0, j0), (i1, j1)]) => {
                let ends = [height(i0, j0) as f32, height(i1, j1) as f32];
                f64::from(midpoint(ends[0], ends[1]))
            }
            None => height(a, b),
        }
    }

    /// For a vertex between two coarse vertices on a stitched side, those two vertices.
    fn between(&self, i: usize, j: usize) -> Option<[(usize, usize); 2]> {
        let [west, east, north, south] = self.sides(i, j);
        if (west || east) && j % 2 == 1 {
            Some([(i, j - 1), (i, j + 1)])
        } else if (north || south) && i % 2 == 1 {
            Some([(i - 1, j), (i + 1, j)])
        } else {
            None
        }
    }

    /// Every vertex between two coarse vertices on a stitched side, with those two, as
    /// `[vertex, a, b]` indices into a `verts × verts` grid (none without stitched sides).
    fn in_between(&self, verts: usize) -> impl Iterator<Item = [usize; 3]> + '_ {
        let rows = if self.stitch.sides.contains(&true) {
            verts
        } else {
            0
        };
        let index = move |(i, j): (usize, usize)| j * verts + i;
        (0..rows)
            .flat_map(move |j| (0..verts).map(move |i| (i, j)))
            .filter_map(move |vertex| {
                let [a, b] = self.between(vertex.0, vertex.1)?;
                Some([index(vertex), index(a), index(b)])
            })
    }

    /// Puts every in-between vertex's river water on its coarse edge: the midpoint of the two
    /// coarse vertices' surfaces (none unless both have one), under water if either is.
    fn snap_rivers(&self, rivers: &mut [RiverPoint], verts: usize) {
        for [k, a, b] in self.in_between(verts) {
            let (a, b) = (rivers[a], rivers[b]);
            rivers[k].surface = a
                .surface
                .zip(b.surface)
                .map(|(a, b)| f64::from(midpoint(a as f32, b as f32)));
            rivers[k].water = match (a.water, b.water) {
                (Some(a), Some(b)) => Some(f64::from(midpoint(a as f32, b as f32))),
                (a, b) => a.or(b),
            };
        }
    }

    /// Moves every in-between vertex of a smooth mesh onto its coarse edge.
    fn snap(&self, chunk: &mut ChunkData, verts: usize) {
        for [k, a, b] in self.in_between(verts) {
            let y = midpoint(chunk.positions[a][1], chunk.positions[b][1]);
            chunk.positions[k][1] = y;
            chunk.min_height = chunk.min_height.min(y);
            chunk.max_height = chunk.max_height.max(y);
            let n = [0, 1, 2].map(|c| f64::from(chunk.normals[a][c] + chunk.normals[b][c]));
            chunk.normals[k] = normalize(n).map(|v| v as f32);
            chunk.colors[k] =
                [0, 1, 2, 3].map(|c| midpoint(chunk.colors[a][c], chunk.colors[b][c]));
            chunk.land_colors[k] =
                [0, 1, 2, 3].map(|c| midpoint(chunk.land_colors[a][c], chunk.land_colors[b][c]));
            chunk.temperatures[k] = midpoint(chunk.temperatures[a], chunk.temperatures[b]);
            chunk.covers[k] = midpoint(chunk.covers[a], chunk.covers[b]);
            chunk.biomes[k] = chunk.biomes[a];
            chunk.biome_blends[k] = chunk.biome_blends[a].midpoint(chunk.biome_blends[b]);
        }
    }
}

/// The biomes blended at a vertex and their shares: a sample's two ([`crate::Sample::biome`]
/// and `second_biome`, as its land colour blends them), or up to four at a vertex halfway along
/// a coarser neighbour's edge ([`BiomeBlend::midpoint`]). Unused slots have a share of 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BiomeBlend {
    /// Indices into [`crate::BiomeTable::biomes`], each at most once among the shares above 0.
    pub biomes: [u16; 4],
    /// Each biome's share; they sum to one.
    pub shares: [f32; 4],
}

impl BiomeBlend {
    /// `first` with `share` and `second` with the rest (the same biome twice is that biome
    /// alone).
    #[must_use]
    pub fn pair(first: u16, second: u16, share: f32) -> Self {
        if first == second {
            Self {
                biomes: [first; 4],
                shares: [1.0, 0.0, 0.0, 0.0],
            }
        } else {
            Self {
                biomes: [first, second, second, second],
                shares: [share, 1.0 - share, 0.0, 0.0],
            }
        }
    }

    /// The biomes with a share above 0, and their shares.
    pub fn weights(self) -> impl Iterator<Item = (u16, f32)> {
        (self.biomes.into_iter().zip(self.shares)).filter(|&(_, share)| share > 0.0)
    }

    /// The blend halfway between `self` and `other`, as a vertex halfway along a coarse edge
    /// shows it: each biome's share the mean of its shares at the two. Exact wherever the two
    /// hold at most four biomes between them (two samples always do); otherwise the four
    /// largest shares, scaled to sum to one.
    #[must_use]
    pub fn midpoint(self, other: Self) -> Self {
        let mut merged: [(u16, f32); 8] = [(0, 0.0); 8];
        let mut count = 0;
        for (biome, share) in self.weights().chain(other.weights()) {
            let half = f64::from(share) * 0.5;
            match merged[..count].iter_mut().find(|(b, _)| *b == biome) {
                Some((_, total)) => *total = (f64::from(*total) + half) as f32,
                None => {
                    merged[count] = (biome, half as f32);
                    count += 1;
                }
            }
        }
        let mut merged = &mut merged[..count];
        if merged.len() > 4 {
            // Largest first; equal shares by biome, so the result does not depend on the order.
            merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            merged = &mut merged[..4];
            let total: f32 = merged.iter().map(|(_, share)| share).sum();
            merged.iter_mut().for_each(|(_, share)| *share /= total);
        }
        let mut blend = Self {
            biomes: [merged[0].0; 4],
            shares: [0.0; 4],
        };
        for (slot, &(biome, share)) in merged.iter().enumerate() {
            blend.biomes[slot] = biome;
            blend.shares[slot] = share;
        }
        blend
    }
}

/// A flat tile's two triangles over its corners pushed in `corners` order (as the smooth grid
/// winds its tiles).
const QUAD: [u32; 6] = [0, 2, 1, 1, 2, 3];

/// [`ChunkData::coarsen_interior`]'s triangles over a `(tiles + 1)²` vertex grid, in blocks of
/// `block` × `block` tiles (`block` at least 2 and dividing `tiles`), wound as the full grid's.
fn coarse_interior_indices(tiles: u32, block: u32) -> Vec<u32> {
    let row = tiles + 1;
    let v = |i: u32, j: u32| j * row + i;
    let blocks = tiles / block;
    let mut indices = Vec::with_capacity(3 * (tiles as usize).pow(2));
    for bj in 0..blocks {
        for bi in 0..blocks {
            let (i, j) = (block * bi, block * bj);
            // The node's sides this block lies on: -x, +z, +x, -z, the order its rim is walked.
            let sides = [bi == 0, bj + 1 == blocks, bi + 1 == blocks, bj == 0];
            if !sides.contains(&true) {
                let (a, b, c, d) = (
                    v(i, j),
                    v(i + block, j),
                    v(i, j + block),
                    v(i + block, j + block),
                );
                indices.extend_from_slice(&[a, c, b, b, c, d]);
                continue;
            }
            // The rim from the corner at (i, j), with every vertex of the sides that are the
            // node's, so the node's edge keeps them all.
            let mut rim = Vec::with_capacity(4 * block as usize);
            for (k, &side) in sides.iter().enumerate() {
                // From the side's first corner, every vertex along a side of the node's.
                for d in 0..if side { block } else { 1 } {
                    rim.push(match k {
                        0 => v(i, j + d),
                        1 => v(i + d, j + block),
                        2 => v(i + block, j + block - d),
                        _ => v(i + block - d, j),
                    });
                }
            }
            let centre = v(i + block / 2, j + block / 2);
            for k in 0..rim.len() {
                indices.extend_from_slice(&[centre, rim[k], rim[(k + 1) % rim.len()]]);
            }
        }
    }
    indices
}

/// The `f32` nearest the exact midpoint of `a` and `b`.
fn midpoint(a: f32, b: f32) -> f32 {
    ((f64::from(a) + f64::from(b)) * 0.5) as f32
}

impl ChunkData {
    fn push_vertex(&mut self, position: [f32; 3], normal: [f64; 3], sample: &crate::Sample) {
        self.min_height = self.min_height.min(position[1]);
        self.max_height = self.max_height.max(position[1]);
        self.positions.push(position);
        self.normals.push(normal.map(|v| v as f32));
        self.colors.push(sample.color);
        self.land_colors.push(sample.land_color);
        self.temperatures.push(sample.climate.temperature as f32);
        self.covers.push(sample.cover as f32);
        self.biomes.push(sample.biome as u16);
        self.biome_blends.push(BiomeBlend::pair(
            sample.biome as u16,
            sample.second_biome as u16,
            sample.blend as f32,
        ));
    }

    /// Triangulates a smooth height-field node's interior in blocks of `block` × `block` tiles
    /// ([`ChunkLayout::interior_block`]: a power of two that divides the tile count), keeping
    /// every vertex of its edges and so every seam with its neighbours, stitched or not: two
    /// triangles a block inside, and along the edges a fan from each block's centre through the
    /// edge's vertices ([`ChunkLayout::node_triangles`]: with 64 tiles 2,424 triangles in blocks
    /// of 2, 824 in blocks of 4, instead of 8,192). For far nodes, whose detail the distance
    /// hides. The vertices stay as they are (what neighbours and queries read of the grid);
    /// only [`ChunkData::indices`] changes. Flat tiles and volume chunks are left whole.
    pub fn coarsen_interior(&mut self, block: u32) {
        let block = self.layout.interior_block(block);
        if block > 1 && !self.volume {
            self.indices = coarse_interior_indices(self.layout.tiles, block);
        }
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

/// The river water over a smooth node's vertex grid (`verts` a side, `ts` apart): every triangle
/// of the terrain's split whose corners all have a water surface near and at least one lies
/// under it, at the surface's height. Where a channel's edge crosses a triangle, its dry corner
/// holds the water up to the bank, which rises above it.
fn river_water(rivers: &[RiverPoint], verts: usize, ts: f64) -> WaterMesh {
    let mut mesh = WaterMesh::default();
    if rivers.iter().all(|r| r.water.is_none()) {
        return mesh;
    }
    let mut index = vec![u32::MAX; rivers.len()];
    let corner = |k: usize| {
        let level = rivers[k].surface?;
        let (i, j) = (k % verts, k / verts);
        Some((
            [(i as f64 * ts) as f32, level as f32, (j as f64 * ts) as f32],
            k,
        ))
    };
    for j in 0..verts - 1 {
        for i in 0..verts - 1 {
            let v00 = j * verts + i;
            let (v10, v01, v11) = (v00 + 1, v00 + verts, v00 + verts + 1);
            for triangle in [[v00, v01, v10], [v10, v01, v11]] {
                if !triangle.iter().any(|&k| rivers[k].water.is_some()) {
                    continue;
                }
                if let (Some(a), Some(b), Some(c)) = (
                    corner(triangle[0]),
                    corner(triangle[1]),
                    corner(triangle[2]),
                ) {
                    mesh.triangle([a, b, c], &mut index);
                }
            }
        }
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::BiomeBlend;

    /// Whether `blend` holds these shares by biome (within float rounding), largest first.
    fn holds(blend: BiomeBlend, want: &[(u16, f32)]) -> bool {
        let mut shares: Vec<_> = blend.weights().collect();
        shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        shares.len() == want.len()
            && (shares.iter().zip(want)).all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-6)
    }

    /// Halfway between two blends, each biome's share is the mean of its shares: exact for up
    /// to four biomes, the four largest scaled to one beyond.
    #[test]
    fn blend_midpoints_average_the_shares() {
        let pair = BiomeBlend::pair;
        assert!(holds(
            pair(1, 2, 0.7).midpoint(pair(2, 1, 0.6)),
            &[(1, 0.55), (2, 0.45)]
        ));
        assert!(holds(
            pair(4, 4, 0.5).midpoint(pair(4, 4, 0.9)),
            &[(4, 1.0)]
        ));
        assert!(holds(
            pair(3, 3, 0.5).midpoint(pair(5, 3, 0.5)),
            &[(3, 0.75), (5, 0.25)]
        ));
        let four = pair(1, 2, 0.8).midpoint(pair(3, 4, 0.5));
        assert!(holds(four, &[(1, 0.4), (3, 0.25), (4, 0.25), (2, 0.1)]));
        // Five biomes: the smallest goes, the rest scaled to one.
        let five = four.midpoint(pair(5, 5, 0.5));
        assert!(holds(
            five,
            &[(5, 0.5), (1, 0.2), (3, 0.125), (4, 0.125)].map(|(b, s)| (b, s / 0.95))
        ));
    }
}
