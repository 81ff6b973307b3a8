//! Where things are: chunks on the chunk grid ([`ChunkCoord`]), the quadtree of level-of-detail
//! nodes over it ([`NodeCoord`]), which sides of a node follow a coarser neighbour ([`Stitch`]),
//! and the size and look of chunks ([`ChunkLayout`]). World coordinates span
//! [`limits::COORDINATE`].

use serde::{Deserialize, Serialize};

use crate::check::SettingsError;
use crate::limits;

/// A world coordinate moved into [`limits::COORDINATE`]: points beyond are read at the nearest
/// point inside, and NaN is read as 0, so no position can make an answer overflow or turn NaN.
#[inline]
#[must_use]
pub(crate) fn clamp_coordinate(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(*limits::COORDINATE.start(), *limits::COORDINATE.end())
    }
}

/// A chunk's place on the chunk grid: chunk `(x, z)` covers world
/// `[x * size, (x + 1) * size) × [z * size, (z + 1) * size)`, `size` being
/// [`ChunkLayout::chunk_size`].
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct ChunkCoord {
    /// Column (along world x).
    pub x: i64,
    /// Row (along world z).
    pub z: i64,
}

impl ChunkCoord {
    /// The chunk at column `x`, row `z`.
    #[must_use]
    pub const fn new(x: i64, z: i64) -> Self {
        Self { x, z }
    }

    /// The chunk containing world position `(x, z)`: exactly the one whose span
    /// `[origin, origin + size)` holds it (the division's rounding is corrected against the
    /// exact chunk origins), saturating at the ends of the generator's reach
    /// ([`ChunkLayout::chunk_reach`]); NaN is read as 0.
    #[must_use]
    pub fn containing(x: f64, z: f64, layout: &ChunkLayout) -> Self {
        let size = layout.chunk_size();
        let tiles = i64::from(layout.tiles);
        let start = |c: i64| (c * tiles) as f64 * layout.tile_size;
        let high = layout.chunk_reach();
        let low = -high - 1;
        let axis = |v: f64| {
            let c = ((v / size).floor() as i64).clamp(low, high);
            if c > low && start(c) > v {
                c - 1
            } else if c < high && start(c + 1) <= v {
                c + 1
            } else {
                c
            }
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
        // In f64: exact within the reach (at most 2^51 tiles from 0), and no overflow past it.
        let tiles = f64::from(layout.tiles);
        [
            self.x as f64 * tiles * layout.tile_size,
            self.z as f64 * tiles * layout.tile_size,
        ]
    }

    /// Squared distance on the chunk grid, for nearest-first ordering. Exact for any two
    /// chunks up to 2^32 chunks apart on each axis together (it saturates at `u64::MAX` beyond,
    /// which keeps the order of every distance that matters for streaming).
    #[must_use]
    pub fn distance_squared(self, other: ChunkCoord) -> u64 {
        let dx = self.x.abs_diff(other.x);
        let dz = self.z.abs_diff(other.z);
        dx.saturating_mul(dx).saturating_add(dz.saturating_mul(dz))
    }
}

/// A node of the level-of-detail quadtree. Level 0 is a chunk; a node of level `k` covers
/// `2^k × 2^k` chunks with the same tile count, its tiles `2^k` times wider, and its four
/// children are the level `k - 1` nodes inside it. Node `(k, x, z)` covers chunks
/// `x * 2^k .. (x + 1) * 2^k` along x (and the same along z).
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeCoord {
    /// 0 for a chunk, one more per doubling.
    pub level: u8,
    /// Column at this level.
    pub x: i64,
    /// Row at this level.
    pub z: i64,
}

impl NodeCoord {
    /// The coarsest level: a node then covers 2^16 chunks a side.
    pub const MAX_LEVEL: u8 = 16;

    /// The node of `level` at column `x`, row `z`.
    #[must_use]
    pub const fn new(level: u8, x: i64, z: i64) -> Self {
        Self { level, x, z }
    }

    /// The level-0 node of a chunk.
    #[must_use]
    pub const fn chunk(coord: ChunkCoord) -> Self {
        Self::new(0, coord.x, coord.z)
    }

    /// The node of `level` that holds chunk `coord`.
    ///
    /// # Panics
    /// If `level` is above [`NodeCoord::MAX_LEVEL`].
    #[must_use]
    pub fn holding(coord: ChunkCoord, level: u8) -> Self {
        assert!(
            level <= Self::MAX_LEVEL,
            "level {level} is above the coarsest"
        );
        // Arithmetic shifts floor, so negative columns land in the right node.
        Self::new(level, coord.x >> level, coord.z >> level)
    }

    /// The node one level coarser that holds this one.
    ///
    /// # Panics
    /// If this node is at [`NodeCoord::MAX_LEVEL`].
    #[must_use]
    pub fn parent(self) -> Self {
        assert!(
            self.level < Self::MAX_LEVEL,
            "the coarsest node has no parent"
        );
        Self::new(self.level + 1, self.x >> 1, self.z >> 1)
    }

    /// The four nodes one level finer inside this one, in the order
    /// `(-x, -z), (+x, -z), (-x, +z), (+x, +z)`.
    ///
    /// # Panics
    /// If this node is a chunk (level 0), or lies past the chunks `i64` coordinates address, so
    /// that its children's coordinates would overflow (every node holding a chunk within the
    /// generator's reach, [`ChunkLayout::chunk_reach`], has addressable children, as every node
    /// the plugin's planner makes does).
    #[must_use]
    pub fn children(self) -> [Self; 4] {
        assert!(self.level > 0, "a chunk has no children");
        let twice = |v: i64| {
            v.checked_mul(2)
                .filter(|v| *v < i64::MAX)
                .unwrap_or_else(|| panic!("{self:?} lies past the addressable chunks"))
        };
        let (x, z, level) = (twice(self.x), twice(self.z), self.level - 1);
        [
            Self::new(level, x, z),
            Self::new(level, x + 1, z),
            Self::new(level, x, z + 1),
            Self::new(level, x + 1, z + 1),
        ]
    }

    /// Whether `other` lies inside this node (or is it).
    #[must_use]
    pub fn contains(self, other: NodeCoord) -> bool {
        other.level <= self.level && {
            let shift = self.level - other.level;
            other.x >> shift == self.x && other.z >> shift == self.z
        }
    }

    /// The node's first chunk along each axis (saturating past `i64`'s range).
    #[must_use]
    pub fn first_chunk(self) -> [i64; 2] {
        let step = 1i64 << self.level.min(62);
        [self.x.saturating_mul(step), self.z.saturating_mul(step)]
    }

    /// Width of a tile of this node, world units: the layout's, `2^level` times over.
    #[must_use]
    pub fn tile_size(self, layout: &ChunkLayout) -> f64 {
        layout.tile_size * f64::from(1u32 << self.level)
    }

    /// Width of the node, world units.
    #[must_use]
    pub fn size(self, layout: &ChunkLayout) -> f64 {
        layout.chunk_size() * f64::from(1u32 << self.level)
    }

    /// World `(x, z)` of the node's corner with the smallest coordinates.
    #[must_use]
    pub fn origin(self, layout: &ChunkLayout) -> [f64; 2] {
        self.first_chunk()
            .map(|c| ChunkCoord::new(c, 0).origin(layout)[0])
    }
}

/// Which sides and corners of a node touch a node one level coarser. Along those sides the
/// node's edge follows the coarse edge ([`crate::WorldGenerator::build_node`]), so the two meet with
/// no crack.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stitch {
    /// Sides in the order `-x, +x, -z, +z`.
    pub sides: [bool; 4],
    /// Corners in the order `(-x, -z), (+x, -z), (-x, +z), (+x, +z)`, where only a diagonal
    /// neighbour is coarser.
    pub corners: [bool; 4],
}

// One write per key: the streaming planner hashes nodes and stitches in its inner loops, and the
// derived impls write each field (and each array's length) on their own.
impl std::hash::Hash for NodeCoord {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The low halves packed whole, so nodes within `i32` never collide; the high halves,
        // beyond sign extension, folded in.
        let low = u64::from(self.x as u32) << 32 | u64::from(self.z as u32);
        let (hx, hz) = (self.x >> 31, self.z >> 31);
        let far = if (hx == 0 || hx == -1) && (hz == 0 || hz == -1) {
            0
        } else {
            (hx.cast_unsigned() ^ hz.cast_unsigned().rotate_left(29))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        };
        state.write_u64(low ^ far ^ u64::from(self.level).rotate_right(5));
    }
}

impl std::hash::Hash for Stitch {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let bits = self
            .sides
            .iter()
            .chain(&self.corners)
            .fold(0u8, |bits, &flag| bits << 1 | u8::from(flag));
        state.write_u8(bits);
    }
}

impl Stitch {
    /// No coarser neighbour.
    pub const NONE: Self = Self {
        sides: [false; 4],
        corners: [false; 4],
    };

    /// Whether the node meets no coarser neighbour.
    #[must_use]
    pub fn is_none(self) -> bool {
        self == Self::NONE
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
    /// generator's reach (2^47 world units, [`limits::COORDINATE`]).
    pub const TILE_STEP: f64 = 1.0 / 64.0;

    /// Width of a chunk, world units.
    #[must_use]
    pub fn chunk_size(&self) -> f64 {
        f64::from(self.tiles) * self.tile_size
    }

    /// The farthest chunk column or row from 0 on the positive side whose chunk lies within the
    /// generator's reach ([`limits::COORDINATE`], ±2^47 units); on the negative side one more
    /// (chunks start at their smaller corner). 2^40 - 1 for the default 128-unit chunks, about
    /// 1.4 × 10^14 units; 2^31 - 1 for the widest accepted chunks.
    #[must_use]
    pub fn chunk_reach(&self) -> i64 {
        (*limits::COORDINATE.end() / self.chunk_size()).floor() as i64 - 1
    }

    /// The blocks [`crate::ChunkData::coarsen_interior`] meshes a node's interior in when asked
    /// for `block` × `block` tiles: the largest power of two up to `block` that divides the tile
    /// count, in smooth layouts; 1 (the mesh stays whole) in flat tiles.
    #[must_use]
    pub fn interior_block(&self, block: u32) -> u32 {
        if self.style != MeshStyle::Smooth || block < 2 {
            return 1;
        }
        let mut fit = 1u32 << block.ilog2();
        while !self.tiles.is_multiple_of(fit) {
            fit /= 2;
        }
        fit
    }

    /// Triangles in one node's height-field mesh with its interior in blocks of `block` tiles
    /// ([`crate::ChunkData::coarsen_interior`]; 1: two a tile).
    #[must_use]
    pub fn node_triangles(&self, block: u32) -> usize {
        let tiles = self.tiles as usize;
        let block = self.interior_block(block) as usize;
        if block == 1 || tiles == 0 {
            return 2 * tiles * tiles;
        }
        // Inner blocks take two; along a side a fan of the rim's 4 corners and the side's
        // `block - 1` vertices between, at a corner of the node the two sides'.
        match tiles / block {
            1 => 4 * block,
            blocks => {
                let inner = blocks - 2;
                2 * inner * inner + 4 * inner * (3 + block) + 4 * (2 + 2 * block)
            }
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::hash::{Hash, Hasher};

    /// The one word a node's hash writes.
    struct Written(u64);

    impl Hasher for Written {
        fn finish(&self) -> u64 {
            self.0
        }

        fn write(&mut self, _: &[u8]) {
            unreachable!("nodes hash as one u64");
        }

        fn write_u64(&mut self, word: u64) {
            self.0 = word;
        }
    }

    fn word(node: NodeCoord) -> u64 {
        let mut hasher = Written(0);
        node.hash(&mut hasher);
        hasher.finish()
    }

    /// Nodes around the origin (and a node and its mirror image) write distinct words, as the
    /// planner's hash maps want; far out too.
    #[test]
    fn nodes_hash_apart() {
        for base in [0, 1 << 40] {
            let words: HashSet<u64> = (-300..300)
                .flat_map(|x| (-300..300).map(move |z| word(NodeCoord::new(0, base + x, z))))
                .collect();
            assert_eq!(words.len(), 600 * 600, "around {base}");
        }
        assert_ne!(
            word(NodeCoord::new(0, 0, 0)),
            word(NodeCoord::new(0, -1, -1))
        );
        assert_ne!(word(NodeCoord::new(2, 5, 7)), word(NodeCoord::new(3, 5, 7)));
    }
}
