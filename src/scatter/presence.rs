//! What game code hears of scattered objects: [`ScatterSpawned`] when one comes into the world
//! around the anchors, [`ScatterDespawned`] when it goes. Chunks are rebuilt and swapped (new
//! settings, hysteresis), so one object may be held by an old and a new chunk at once, or leave
//! with one chunk and come back with another in the same frame: [`ScatterPresence`] keeps the
//! chunks holding each object and tells game code, at the end of each frame, only what changed
//! over it: at most one message per object per frame, so a reader that reads every frame may
//! read the two kinds in either order.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::cover::LayerName;
use biome_core::scatter::ScatterId;

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
    /// Where it stands on the ground, world space.
    pub position: Vec3,
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
    /// Where it stood, world space.
    pub position: Vec3,
}

/// One object present in the world: the chunks holding it (by root entity) and their object,
/// the newest last; the newest is what game code sees.
#[derive(Clone, Debug)]
struct Present {
    holders: Vec<(Entity, ScatterSpawned)>,
}

impl Present {
    fn now(&self) -> Option<ScatterSpawned> {
        self.holders.last().map(|&(_, object)| object)
    }
}

/// An object's key: its layer and id.
type Key = (LayerName, ScatterId);

/// The objects present, by layer and id, and what game code knew of those that changed this
/// frame.
#[derive(Resource, Default, Debug)]
pub(crate) struct ScatterPresence {
    present: HashMap<Key, Present>,
    /// For each object touched since the last [`ScatterPresence::flush`], what game code was
    /// told before (none: it was not present).
    known_before: HashMap<Key, Option<ScatterSpawned>>,
}

impl ScatterPresence {
    /// What game code knows of `key` now, remembered the first time it is touched in a frame.
    fn touch(&mut self, key: Key) {
        let now = self.present.get(&key).and_then(Present::now);
        self.known_before.entry(key).or_insert(now);
    }

    /// The chunk rooted at `holder`, holding `object`, came.
    pub(crate) fn arrive(&mut self, holder: Entity, object: ScatterSpawned) {
        let key = (object.layer, object.id);
        self.touch(key);
        let entry = self.present.entry(key).or_insert(Present {
            holders: Vec::with_capacity(1),
        });
        entry.holders.push((holder, object));
    }

    /// The chunk rooted at `holder`, holding object `id` of `layer`, went.
    pub(crate) fn leave(&mut self, holder: Entity, layer: LayerName, id: ScatterId) {
        let key = (layer, id);
        self.touch(key);
        if let Some(entry) = self.present.get_mut(&key) {
            entry.holders.retain(|&(h, _)| h != holder);
            if entry.holders.is_empty() {
                self.present.remove(&key);
            }
        }
    }

    /// What to tell game code of the frame's changes, in layer and id order: an object come or
    /// changed, or gone.
    pub(crate) fn flush(&mut self) -> (Vec<ScatterSpawned>, Vec<ScatterDespawned>) {
        let mut touched: Vec<(Key, Option<ScatterSpawned>)> = self.known_before.drain().collect();
        touched.sort_unstable_by_key(|(key, _)| *key);
        let (mut came, mut went) = (Vec::new(), Vec::new());
        for (key, before) in touched {
            match (before, self.present.get(&key).and_then(Present::now)) {
                (before, Some(now)) if before != Some(now) => came.push(now),
                (Some(before), None) => went.push(ScatterDespawned {
                    layer: key.0,
                    id: key.1,
                    position: before.position,
                }),
                _ => {}
            }
        }
        (came, went)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(x: f32, entity: Option<Entity>) -> ScatterSpawned {
        ScatterSpawned {
            layer: LayerName::new("loot").unwrap(),
            id: ScatterId {
                cell: [3, -4],
                slot: 1,
            },
            position: Vec3::new(x, 2.0, 5.0),
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
        let chest = object(1.0, None);
        let (layer, id) = (chest.layer, chest.id);
        presence.arrive(old, chest);
        assert_eq!(presence.flush(), (vec![chest], vec![]));
        presence.arrive(new, chest);
        presence.leave(old, layer, id);
        assert_eq!(
            presence.flush(),
            (vec![], vec![]),
            "held by the new chunk alone"
        );
        let moved = object(1.5, None);
        presence.arrive(newest, moved);
        assert_eq!(presence.flush(), (vec![moved], vec![]));
        presence.leave(newest, layer, id);
        assert_eq!(
            presence.flush(),
            (vec![chest], vec![]),
            "back to the new chunk's"
        );
        let shown = object(1.0, Some(Entity::from_raw_u32(7).unwrap()));
        presence.leave(new, layer, id);
        presence.arrive(newest, shown);
        assert_eq!(presence.flush(), (vec![shown], vec![]), "the newest entity");
        presence.leave(newest, layer, id);
        presence.arrive(newest, shown);
        assert_eq!(
            presence.flush(),
            (vec![], vec![]),
            "gone and back in one frame"
        );
        presence.leave(newest, layer, id);
        let (came, went) = presence.flush();
        assert!(came.is_empty());
        assert_eq!(
            went,
            vec![ScatterDespawned {
                layer,
                id,
                position: shown.position
            }]
        );
        assert!(presence.present.is_empty());
        presence.leave(newest, layer, id);
        assert_eq!(presence.flush(), (vec![], vec![]), "nothing more to tell");
    }
}
