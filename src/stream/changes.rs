//! Areas of the world whose content changed within one settings generation (terrain edits), and
//! the revision each node of a layout is built for: the latest change within its reach. The
//! planner keys builds by it, so a change rebuilds the nodes over it, at every level, and no
//! others.

use std::sync::Arc;

use biome_core::edits::overlap;
use biome_core::{ChunkLayout, NodeCoord};

/// One area whose content changed, world `[min, max]` on both axes, at `revision`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AreaChange {
    /// The corner with the smallest coordinates.
    min: [f64; 2],
    /// The corner with the largest coordinates.
    max: [f64; 2],
    /// Counts up from 1 with each change.
    revision: u64,
}

/// The changes since the settings generation began, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AreaChanges {
    list: Vec<AreaChange>,
}

impl AreaChanges {
    /// Records that `[min, max]` changed at the next revision; returns it.
    pub fn push(&mut self, min: [f64; 2], max: [f64; 2]) -> u64 {
        let revision = self.list.last().map_or(1, |c| c.revision + 1);
        self.list.push(AreaChange { min, max, revision });
        revision
    }

    /// The revision `node` of `layout` is built for: the latest change within its reach, 0
    /// when none is. A node's build reads the ground up to two of its tiles past its edges
    /// (normals, and a stitched edge's coarse normals) and a unit past them (the slope under
    /// trees and scattered objects), so that is its reach.
    #[must_use]
    pub fn revision_of(&self, node: NodeCoord, layout: &ChunkLayout) -> u64 {
        if self.list.is_empty() {
            return 0;
        }
        let [x, z] = node.origin(layout);
        let size = node.size(layout);
        let reach = 2.0 * node.tile_size(layout) + 1.0;
        let (low, high) = ([x - reach, z - reach], [x + size + reach, z + size + reach]);
        self.list
            .iter()
            .rev()
            .find(|c| overlap([c.min, c.max], [low, high]))
            .map_or(0, |c| c.revision)
    }
}

/// Whether two shared lists are the same one (a planner that saw `a` has seen `b`).
pub(crate) fn same(a: &Arc<AreaChanges>, b: &Arc<AreaChanges>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_revises_the_nodes_within_reach_at_every_level() {
        let layout = ChunkLayout::default();
        let size = layout.chunk_size();
        let mut changes = AreaChanges::default();
        assert_eq!(changes.revision_of(NodeCoord::new(0, 0, 0), &layout), 0);
        // A pad in the middle of chunk (2, 3).
        let centre = [2.5 * size, 3.5 * size];
        let first = changes.push(
            [centre[0] - 5.0, centre[1] - 5.0],
            [centre[0] + 5.0, centre[1] + 5.0],
        );
        assert_eq!(first, 1);
        assert_eq!(changes.revision_of(NodeCoord::new(0, 2, 3), &layout), 1);
        for (x, z) in [(1, 3), (3, 3), (2, 2), (2, 4)] {
            assert_eq!(
                changes.revision_of(NodeCoord::new(0, x, z), &layout),
                0,
                "({x}, {z})"
            );
        }
        // Every coarser node holding it.
        for level in 1..=8 {
            let node = NodeCoord::holding(biome_core::ChunkCoord::new(2, 3), level);
            assert_eq!(changes.revision_of(node, &layout), 1, "level {level}");
        }
        // One unit from the chunk's edge reaches the neighbour; the latest change wins.
        let edge = 3.0 * size - 0.5;
        assert_eq!(changes.push([edge, centre[1]], [edge, centre[1]]), 2);
        assert_eq!(changes.revision_of(NodeCoord::new(0, 3, 3), &layout), 2);
        assert_eq!(changes.revision_of(NodeCoord::new(0, 2, 3), &layout), 2);
        assert_eq!(changes.revision_of(NodeCoord::new(0, 4, 3), &layout), 0);
    }
}
