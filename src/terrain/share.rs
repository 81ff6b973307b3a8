//! One density pass per full-detail chunk, settings generation and revision, whichever builds
//! want it:
//! the terrain's mesh and the physics plugin's collider of a chunk share the density of its
//! vertex grid ([`NodeDensity`]), the bulk of both builds, when they run at the same time or
//! the collider's came first. The physics plugin adds the share; without it terrain builds
//! sample alone, as they always did.
#![cfg_attr(
    all(not(feature = "avian"), not(test)),
    expect(
        dead_code,
        reason = "only the physics plugin (feature avian) shares densities with the terrain"
    )
)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::{ChunkError, NodeCoord, NodeDensity};

/// Who asks for a density, for the counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DensityUser {
    Terrain,
    Colliders,
}

/// How many density passes the share ran and saved, by who asked.
#[derive(Debug, Default)]
pub(crate) struct DensityCounts {
    sampled: [AtomicU64; 2],
    taken: [AtomicU64; 2],
}

impl DensityCounts {
    /// Passes `user` ran.
    pub(crate) fn sampled(&self, user: DensityUser) -> u64 {
        self.sampled[user as usize].load(Ordering::Relaxed)
    }

    /// Passes `user` found done by another build.
    pub(crate) fn taken(&self, user: DensityUser) -> u64 {
        self.taken[user as usize].load(Ordering::Relaxed)
    }
}

/// The density of one node at one generation, sampled by the first build that gets there; a
/// build arriving meanwhile waits for it rather than sampling again.
#[derive(Debug, Default)]
pub(crate) struct DensitySlot {
    density: Mutex<Option<Arc<NodeDensity>>>,
    counts: Arc<DensityCounts>,
}

impl DensitySlot {
    /// The density, from `sample` unless another build has it already. A failed or cancelled
    /// `sample` leaves the slot empty for the next build.
    ///
    /// # Errors
    /// `sample`'s.
    pub(crate) fn get_or_sample(
        &self,
        user: DensityUser,
        sample: impl FnOnce() -> Result<NodeDensity, ChunkError>,
    ) -> Result<Arc<NodeDensity>, ChunkError> {
        // Held while sampling: the other build waits for this pass instead of repeating it.
        let mut density = self.density.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(density) = &*density {
            self.counts.taken[user as usize].fetch_add(1, Ordering::Relaxed);
            return Ok(density.clone());
        }
        let sampled = Arc::new(sample()?);
        self.counts.sampled[user as usize].fetch_add(1, Ordering::Relaxed);
        *density = Some(sampled.clone());
        Ok(sampled)
    }
}

/// The slots of the current generation's full-detail chunks that a build holds or the terrain
/// has still to build, each for one revision of its chunk (terrain edits move it on).
#[derive(Resource, Debug, Default)]
pub(crate) struct DensityShare {
    generation: u64,
    slots: HashMap<NodeCoord, RevisedSlot>,
    counts: Arc<DensityCounts>,
}

/// A chunk's slot and the revision of the chunk it holds the density of.
#[derive(Debug)]
struct RevisedSlot {
    revision: u64,
    slot: Arc<DensitySlot>,
}

impl DensityShare {
    /// The slot of `node` at `generation` and `revision`; the slots of older generations go,
    /// and a node's slot of another revision is replaced.
    pub(crate) fn slot(
        &mut self,
        node: NodeCoord,
        generation: u64,
        revision: u64,
    ) -> Arc<DensitySlot> {
        self.renew(generation);
        let counts = &self.counts;
        let fresh = || RevisedSlot {
            revision,
            slot: Arc::new(DensitySlot {
                density: Mutex::default(),
                counts: counts.clone(),
            }),
        };
        let entry = self.slots.entry(node).or_insert_with(fresh);
        if entry.revision != revision {
            *entry = fresh();
        }
        entry.slot.clone()
    }

    /// Drops the slots no build holds, keeping those of the nodes `needed` says.
    pub(crate) fn prune(&mut self, generation: u64, needed: impl Fn(NodeCoord) -> bool) {
        self.renew(generation);
        self.slots
            .retain(|&node, entry| Arc::strong_count(&entry.slot) > 1 || needed(node));
    }

    /// The counts since the start.
    pub(crate) fn counts(&self) -> &DensityCounts {
        &self.counts
    }

    fn renew(&mut self, generation: u64) {
        if generation != self.generation {
            self.slots.clear();
            self.generation = generation;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use biome_core::{ChunkLayout, NodeCoord};
    use biome_core::{WorldGenerator, WorldSettings};

    use super::*;

    #[test]
    fn two_builds_of_one_node_sample_its_density_once() {
        let generator = WorldGenerator::new(WorldSettings::default()).expect("valid");
        let layout = ChunkLayout::default();
        let node = NodeCoord::new(0, 2, -1);
        let mut share = DensityShare::default();
        let (a, b) = (share.slot(node, 3, 0), share.slot(node, 3, 0));
        let cancel = AtomicBool::new(false);
        let sample = || generator.node_density(node, &layout, &cancel);
        let (first, second) = std::thread::scope(|scope| {
            let first = scope.spawn(|| a.get_or_sample(DensityUser::Colliders, sample));
            let second = scope.spawn(|| b.get_or_sample(DensityUser::Terrain, sample));
            (
                first.join().expect("no panic"),
                second.join().expect("no panic"),
            )
        });
        let (first, second) = (first.expect("sampled"), second.expect("sampled"));
        assert!(Arc::ptr_eq(&first, &second));
        let counts = share.counts();
        let sampled = counts.sampled(DensityUser::Colliders) + counts.sampled(DensityUser::Terrain);
        let taken = counts.taken(DensityUser::Colliders) + counts.taken(DensityUser::Terrain);
        assert_eq!((sampled, taken), (1, 1));
        // A new revision of the chunk, and a new generation, start with an empty slot.
        let revised = share.slot(node, 3, 1);
        assert!(!Arc::ptr_eq(&revised, &a));
        assert!(Arc::ptr_eq(&revised, &share.slot(node, 3, 1)));
        let fresh = share.slot(node, 4, 1);
        assert!(!Arc::ptr_eq(&fresh, &revised));
    }

    #[test]
    fn a_cancelled_pass_leaves_the_slot_to_the_next_build() {
        let slot = DensitySlot::default();
        let refused = slot.get_or_sample(DensityUser::Terrain, || Err(ChunkError::Cancelled));
        assert!(matches!(refused, Err(ChunkError::Cancelled)));
        let generator = WorldGenerator::new(WorldSettings::default()).expect("valid");
        let node = NodeCoord::new(0, 0, 0);
        let cancel = AtomicBool::new(false);
        let density = slot
            .get_or_sample(DensityUser::Colliders, || {
                generator.node_density(node, &ChunkLayout::default(), &cancel)
            })
            .expect("sampled");
        assert_eq!(density.node(), node);
        assert_eq!(slot.counts.sampled(DensityUser::Colliders), 1);
    }

    #[test]
    fn slots_stay_while_held_or_needed() {
        let mut share = DensityShare::default();
        let (held, needed, idle) = (
            NodeCoord::new(0, 0, 0),
            NodeCoord::new(0, 1, 0),
            NodeCoord::new(0, 2, 0),
        );
        let task = share.slot(held, 1, 0);
        share.slot(needed, 1, 0);
        share.slot(idle, 1, 0);
        share.prune(1, |node| node == needed);
        let kept = |share: &DensityShare| {
            let mut nodes: Vec<NodeCoord> = share.slots.keys().copied().collect();
            nodes.sort_by_key(|node| node.x);
            nodes
        };
        assert_eq!(kept(&share), [held, needed]);
        drop(task);
        share.prune(1, |_| false);
        assert!(kept(&share).is_empty());
    }
}
