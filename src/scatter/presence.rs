//! What game code hears of scattered objects: [`ScatterSpawned`] when one comes into the world
//! around the anchors, [`ScatterDespawned`] when it goes. Chunks are rebuilt and swapped (new
//! settings, hysteresis), so one object may be held by an old and a new chunk at once, or leave
//! with one chunk and come back with another in the same frame: [`ScatterPresence`] keeps the
//! chunks holding each object and tells game code, at the end of each frame, only what changed
//! over it: at most one message per object per frame, so a reader that reads every frame may
//! read the two kinds in either order.

use std::collections::BTreeMap;

use bevy::math::DVec3;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::cover::LayerName;
use biome_core::scatter::ScatterId;
use smallvec::SmallVec;

/// A scattered object came into the world (or moved, or got a new entity, when settings
/// changed): spawn the game's own entities for it here. Keyed by `(layer, id)`, which stays the
/// same for the same object across chunks, rebuilds and runs.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ScatterSpawned {
    /// Its layer.
    pub layer: LayerName,
    /// Which object of its layer it is.
    pub id: ScatterId,
    /// Where it stands on the ground, world units: `f64`, so it stays exact far from the origin
    /// (`position.as_vec3()` for a `Transform` near it).
    pub position: DVec3,
    /// The biome that placed it (an index into the world's biome list).
    pub biome: usize,
    /// Its size factor, within the layer's scales.
    pub scale: f32,
    /// Its rotation about the vertical axis, radians.
    pub yaw: f32,
    /// The entity showing it, where its layer has a look ([`crate::ScatterModels`]).
    pub entity: Option<Entity>,
}

/// A scattered object left the world (its chunk went out of reach, or settings moved it away):
/// despawn what the game spawned for it.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ScatterDespawned {
    /// Its layer.
    pub layer: LayerName,
    /// Which object of its layer it is.
    pub id: ScatterId,
    /// Where it stood, world units.
    pub position: DVec3,
}

/// What one chunk shows of an object: the parts of [`ScatterSpawned`] besides its key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Shown {
    pub(crate) position: DVec3,
    pub(crate) biome: usize,
    pub(crate) scale: f32,
    pub(crate) yaw: f32,
    pub(crate) entity: Option<Entity>,
}

impl Shown {
    fn spawned(self, layer: LayerName, id: ScatterId) -> ScatterSpawned {
        ScatterSpawned {
            layer,
            id,
            position: self.position,
            biome: self.biome,
            scale: self.scale,
            yaw: self.yaw,
            entity: self.entity,
        }
    }
}

/// A chunk holding an object, by its root entity.
#[derive(Clone, Copy, Debug)]
struct Holder {
    chunk: Entity,
    shown: Shown,
}

/// One object present in the world (or gone this frame, until the flush).
#[derive(Debug)]
struct Present {
    /// The chunks holding it, the newest last: what game code sees. Two while a chunk is
    /// swapped for its rebuild, so they stay inline.
    holders: SmallVec<[Holder; 2]>,
    /// Whether it is in the layer's `changed` list.
    listed: bool,
}

impl Present {
    fn now(&self) -> Option<Shown> {
        self.holders.last().map(|holder| holder.shown)
    }
}

/// An object changed since the last flush, and what game code was told of it before.
#[derive(Debug)]
struct Change {
    id: ScatterId,
    before: Option<Shown>,
}

/// One layer's objects present, by id, and those changed this frame. A chunk holds objects of
/// one layer, so a swap looks its layer up once and each object costs one map operation.
#[derive(Default, Debug)]
pub(crate) struct LayerPresence {
    objects: HashMap<ScatterId, Present>,
    changed: Vec<Change>,
}

impl LayerPresence {
    /// Marks `present` changed, remembering what game code knew of it, once a frame.
    fn change(changed: &mut Vec<Change>, id: ScatterId, present: &mut Present) {
        if !std::mem::replace(&mut present.listed, true) {
            changed.push(Change {
                id,
                before: present.now(),
            });
        }
    }

    /// The chunk rooted at `chunk`, showing object `id` as `shown`, came.
    pub(crate) fn arrive(&mut self, chunk: Entity, id: ScatterId, shown: Shown) {
        let present = self.objects.entry(id).or_insert_with(|| Present {
            holders: SmallVec::new(),
            listed: false,
        });
        Self::change(&mut self.changed, id, present);
        present.holders.push(Holder { chunk, shown });
    }

    /// The chunk rooted at `chunk`, holding object `id`, went.
    pub(crate) fn leave(&mut self, chunk: Entity, id: ScatterId) {
        if let Some(present) = self.objects.get_mut(&id) {
            Self::change(&mut self.changed, id, present);
            present.holders.retain(|holder| holder.chunk != chunk);
        }
    }

    /// Adds the frame's changes to what game code is told, in id order, and forgets the objects
    /// gone.
    fn flush(
        &mut self,
        layer: LayerName,
        came: &mut Vec<ScatterSpawned>,
        went: &mut Vec<ScatterDespawned>,
    ) {
        self.changed.sort_unstable_by_key(|change| change.id);
        for Change { id, before } in self.changed.drain(..) {
            let present = (self.objects.get_mut(&id))
                .expect("a changed object stays in the map until the flush");
            present.listed = false;
            let now = present.now();
            if now.is_none() {
                self.objects.remove(&id);
            }
            match (before, now) {
                (before, Some(now)) if before != Some(now) => came.push(now.spawned(layer, id)),
                (Some(before), None) => went.push(ScatterDespawned {
                    layer,
                    id,
                    position: before.position,
                }),
                _ => {}
            }
        }
    }
}

/// The objects present, by layer and id, and what game code knew of those that changed this
/// frame.
#[derive(Resource, Default, Debug)]
pub(crate) struct ScatterPresence {
    layers: BTreeMap<LayerName, LayerPresence>,
}

impl ScatterPresence {
    /// One layer's objects, to tell of a chunk's coming or going.
    pub(crate) fn layer(&mut self, name: LayerName) -> &mut LayerPresence {
        self.layers.entry(name).or_default()
    }

    /// What to tell game code of the frame's changes, in layer and id order: an object come or
    /// changed, or gone.
    pub(crate) fn flush(&mut self) -> (Vec<ScatterSpawned>, Vec<ScatterDespawned>) {
        let (mut came, mut went) = (Vec::new(), Vec::new());
        for (&name, layer) in &mut self.layers {
            layer.flush(name, &mut came, &mut went);
        }
        self.layers.retain(|_, layer| !layer.objects.is_empty());
        (came, went)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(x: f32, entity: Option<Entity>) -> Shown {
        Shown {
            position: DVec3::new(f64::from(x), 2.0, 5.0),
            biome: 2,
            scale: 1.0,
            yaw: 0.5,
            entity,
        }
    }

    /// An old chunk and its replacement both hold an object: game code hears of it once, again
    /// when the replacement moves it or shows it with another entity, back to the old one's
    /// when the newest holder goes first, and its going once; an object that goes and comes
    /// back within a frame says nothing.
    #[test]
    fn an_object_held_twice_is_told_once_per_change() {
        let mut presence = ScatterPresence::default();
        let [old, new, newest] = [1, 2, 3].map(|k| Entity::from_raw_u32(k).unwrap());
        let layer = LayerName::new("loot").unwrap();
        let id = ScatterId {
            cell: [3, -4],
            slot: 1,
        };
        let chest = shown(1.0, None);
        presence.layer(layer).arrive(old, id, chest);
        assert_eq!(presence.flush(), (vec![chest.spawned(layer, id)], vec![]));
        presence.layer(layer).arrive(new, id, chest);
        presence.layer(layer).leave(old, id);
        assert_eq!(
            presence.flush(),
            (vec![], vec![]),
            "held by the new chunk alone"
        );
        let moved = shown(1.5, None);
        presence.layer(layer).arrive(newest, id, moved);
        assert_eq!(presence.flush(), (vec![moved.spawned(layer, id)], vec![]));
        presence.layer(layer).leave(newest, id);
        assert_eq!(
            presence.flush(),
            (vec![chest.spawned(layer, id)], vec![]),
            "back to the new chunk's"
        );
        let with_entity = shown(1.0, Some(Entity::from_raw_u32(7).unwrap()));
        presence.layer(layer).leave(new, id);
        presence.layer(layer).arrive(newest, id, with_entity);
        assert_eq!(
            presence.flush(),
            (vec![with_entity.spawned(layer, id)], vec![]),
            "the newest entity"
        );
        presence.layer(layer).leave(newest, id);
        presence.layer(layer).arrive(newest, id, with_entity);
        assert_eq!(
            presence.flush(),
            (vec![], vec![]),
            "gone and back in one frame"
        );
        presence.layer(layer).leave(newest, id);
        let (came, went) = presence.flush();
        assert!(came.is_empty());
        assert_eq!(
            went,
            vec![ScatterDespawned {
                layer,
                id,
                position: with_entity.position
            }]
        );
        assert!(presence.layers.is_empty(), "nothing kept of what went");
        presence.layer(layer).leave(newest, id);
        assert_eq!(presence.flush(), (vec![], vec![]), "nothing more to tell");
    }

    /// One frame's messages come in layer and id order, whatever order the chunks came in.
    #[test]
    fn a_frame_is_told_in_layer_and_id_order() {
        let mut presence = ScatterPresence::default();
        let chunk = Entity::from_raw_u32(1).unwrap();
        let [ore, loot] = ["ore", "loot"].map(|name| LayerName::new(name).unwrap());
        let ids = [[2, 0], [-1, 5], [0, 0]].map(|cell| ScatterId { cell, slot: 0 });
        for layer in [ore, loot] {
            for id in ids {
                presence.layer(layer).arrive(chunk, id, shown(1.0, None));
            }
        }
        let (came, _) = presence.flush();
        let order: Vec<(LayerName, ScatterId)> = came.iter().map(|o| (o.layer, o.id)).collect();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(order.len(), 6);
        assert_eq!(order, sorted);
    }
}
