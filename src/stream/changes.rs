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
    /// The rectangle around each run of [`BLOCK`] changes in `list`: a node far from a run
    /// skips it whole, so a node no change reaches costs a test a run, not one a change.
    blocks: Vec<[[f64; 2]; 2]>,
}

/// Changes a rectangle of [`AreaChanges::blocks`] holds.
const BLOCK: usize = 64;

impl AreaChanges {
    /// Records that `[min, max]` changed at the next revision; returns it.
    pub fn push(&mut self, min: [f64; 2], max: [f64; 2]) -> u64 {
        let revision = self.list.last().map_or(1, |c| c.revision + 1);
        if self.list.len().is_multiple_of(BLOCK) {
            self.blocks.push([min, max]);
        } else if let Some([low, high]) = self.blocks.last_mut() {
            *low = [low[0].min(min[0]), low[1].min(min[1])];
            *high = [high[0].max(max[0]), high[1].max(max[1])];
        }
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
        let reached = [[x - reach, z - reach], [x + size + reach, z + size + reach]];
        (self.blocks.iter().enumerate().rev())
            .filter(|&(_, &block)| overlap(block, reached))
            .find_map(|(b, _)| {
                let run = &self.list[b * BLOCK..self.list.len().min((b + 1) * BLOCK)];
                run.iter().rev().find(|c| overlap([c.min, c.max], reached))
            })
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

    /// Over many changes, in runs near and far, the revision of every node is the latest
    /// change within its reach, as a scan of them all says.
    #[test]
    fn runs_of_changes_give_the_revision_a_scan_gives() {
        let layout = ChunkLayout::default();
        let mut changes = AreaChanges::default();
        let mut all = Vec::new();
        let mut state = 0x853c_49e6_748f_ea9b_u64;
        let mut unit = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for k in 0..1000 {
            // Mostly clustered, some far off, some wide.
            let centre = if k % 7 == 0 {
                [unit() * 20_000.0 - 10_000.0, unit() * 20_000.0 - 10_000.0]
            } else {
                [unit() * 600.0, unit() * 600.0 - 300.0]
            };
            let half = if k % 50 == 0 {
                900.0
            } else {
                1.0 + unit() * 20.0
            };
            let (min, max) = (
                [centre[0] - half, centre[1] - half],
                [centre[0] + half, centre[1] + half],
            );
            all.push((min, max, changes.push(min, max)));
        }
        for level in [0u8, 1, 3, 6] {
            for x in -12..12 {
                for z in -12..12 {
                    let node = NodeCoord::new(level, x, z);
                    let [ox, oz] = node.origin(&layout);
                    let (size, reach) = (node.size(&layout), 2.0 * node.tile_size(&layout) + 1.0);
                    let reached = [
                        [ox - reach, oz - reach],
                        [ox + size + reach, oz + size + reach],
                    ];
                    let scan = all
                        .iter()
                        .rev()
                        .find(|&&(min, max, _)| overlap([min, max], reached))
                        .map_or(0, |&(_, _, revision)| revision);
                    assert_eq!(changes.revision_of(node, &layout), scan, "{node:?}");
                }
            }
        }
    }
}
