//! Areas: the world's full-detail chunks whose ground is in, told at a granularity that level of
//! detail, stitches and fades do not change. A shown full-detail terrain node and a chunk's
//! colliders each hold their area while they are in; [`AreaLoaded`] comes when the first holder
//! arrives and [`AreaUnloaded`] when the last one goes, so game content spawned on the one and
//! despawned on the other lives as long as the ground under it, once. [`BiomeAreas`] says which
//! areas are in, and [`crate::BiomeWorld::ground_ready_at`] whether everything the app streams
//! there (the drawn ground, and the colliders where physics is on) is.

use bevy::ecs::system::NonSendMarker;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use biome_core::{ChunkCoord, ChunkLayout, NodeCoord};

use crate::BiomeWorldSystems;

/// An area's ground arrived: a full-detail chunk is drawn there, or its colliders are in. Until
/// its [`AreaUnloaded`], terrain that replaces terrain over it (a new stitch, a fade) sends no
/// new message. Settings that regenerate the world reload each area as its new ground arrives:
/// [`AreaUnloaded`] with the old layout and [`AreaLoaded`] with the new, in the same frame.
/// Within a frame, every [`AreaUnloaded`] is written before every [`AreaLoaded`] (in
/// [`BiomeWorldSystems::Apply`]): read the unloaded ones first.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct AreaLoaded {
    /// The full-detail chunk the area is.
    pub area: ChunkCoord,
    /// The layout its coordinates are in ([`ChunkCoord::origin`], [`ChunkLayout::chunk_size`]).
    pub layout: ChunkLayout,
}

/// An area's ground went: no full-detail terrain is drawn there and no colliders are in (the
/// view moved on and coarser terrain took its place, or the colliders' entities moved away), or
/// its ground is regenerating (an [`AreaLoaded`] follows in the same frame).
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct AreaUnloaded {
    /// The full-detail chunk the area is.
    pub area: ChunkCoord,
    /// The layout its coordinates are in.
    pub layout: ChunkLayout,
}

/// What holds an area's ground.
#[derive(Reflect, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[reflect(Debug, Clone, PartialEq)]
pub enum GroundHolder {
    /// A full-detail terrain node, drawn ([`crate::BiomeTerrainPlugin`]).
    Terrain,
    /// A chunk's colliders (`BiomeWorldPhysicsPlugin`, feature `avian`).
    Colliders,
}

impl GroundHolder {
    const ALL: [Self; 2] = [Self::Terrain, Self::Colliders];
}

/// One entity holding an area's ground.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
struct Hold {
    holder: GroundHolder,
    entity: Entity,
    /// The settings generation its ground was built from.
    generation: u64,
}

/// Which ground an area has: the layout its coordinates are in and the newest settings
/// generation of its holders.
#[derive(Reflect, Clone, Copy, Debug, PartialEq)]
struct Ground {
    layout: ChunkLayout,
    generation: u64,
}

/// A loaded area.
#[derive(Reflect, Clone, Debug)]
struct Area {
    ground: Ground,
    holds: Vec<Hold>,
}

/// The areas whose ground is in, kept by the terrain and the colliders as their entities come
/// and go; read it in any system.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeAreas {
    areas: HashMap<ChunkCoord, Area>,
    /// The areas changed since the messages were last written, with the ground they had then.
    changed: HashMap<ChunkCoord, Option<Ground>>,
    /// The holders this app streams, by [`GroundHolder::ALL`]'s order.
    streamed: [bool; 2],
}

impl BiomeAreas {
    /// Whether `area`'s ground is in.
    #[must_use]
    pub fn is_loaded(&self, area: ChunkCoord) -> bool {
        self.areas.contains_key(&area)
    }

    /// The areas whose ground is in, in no particular order.
    pub fn loaded(&self) -> impl Iterator<Item = ChunkCoord> + '_ {
        self.areas.keys().copied()
    }

    /// How many areas are in.
    #[must_use]
    pub fn len(&self) -> usize {
        self.areas.len()
    }

    /// Whether no area is in.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.areas.is_empty()
    }

    /// Whether `holder` holds `area`'s ground (of any settings generation).
    #[must_use]
    pub fn holds(&self, area: ChunkCoord, holder: GroundHolder) -> bool {
        self.areas
            .get(&area)
            .is_some_and(|a| a.holds.iter().any(|h| h.holder == holder))
    }

    /// Whether every holder this app streams holds `area`'s ground from settings `generation`.
    pub(crate) fn is_ready(&self, area: ChunkCoord, generation: u64) -> bool {
        let Some(area) = self.areas.get(&area) else {
            return false;
        };
        let mut holders = GroundHolder::ALL
            .into_iter()
            .zip(self.streamed)
            .filter_map(|(holder, streamed)| streamed.then_some(holder))
            .peekable();
        holders.peek().is_some()
            && holders.all(|holder| {
                area.holds
                    .iter()
                    .any(|h| h.holder == holder && h.generation == generation)
            })
    }

    /// Notes `area` as changed, keeping the ground it had before its first change since the
    /// last messages.
    fn touch(&mut self, area: ChunkCoord) {
        let ground = self.areas.get(&area).map(|a| a.ground);
        self.changed.entry(area).or_insert(ground);
    }

    /// `hold` holds `area` (of `layout`) from now.
    fn hold(&mut self, area: ChunkCoord, layout: ChunkLayout, hold: Hold) {
        self.touch(area);
        let ground = Ground {
            layout,
            generation: hold.generation,
        };
        let entry = self.areas.entry(area).or_insert_with(|| Area {
            ground,
            holds: Vec::new(),
        });
        // Newer ground than the area had: the game places its content again.
        if hold.generation > entry.ground.generation {
            entry.ground = ground;
        }
        if !entry.holds.contains(&hold) {
            entry.holds.push(hold);
        }
    }

    /// `entity` of `holder` no longer holds `area` (nothing changes if it did not).
    fn release(&mut self, area: ChunkCoord, holder: GroundHolder, entity: Entity) {
        let Some(entry) = self.areas.get_mut(&area) else {
            return;
        };
        entry
            .holds
            .retain(|h| h.holder != holder || h.entity != entity);
        if entry.holds.is_empty() {
            self.touch(area);
            self.areas.remove(&area);
        }
    }

    /// What changed since the last call, as messages ordered by area: an area that went, or
    /// whose ground is newer, is unloaded; one that came, or whose ground is newer, is loaded.
    /// An area that went and came back with the same ground says nothing.
    fn take_changes(&mut self) -> (Vec<AreaUnloaded>, Vec<AreaLoaded>) {
        let mut changed: Vec<(ChunkCoord, Option<Ground>)> = self.changed.drain().collect();
        changed.sort_unstable_by_key(|(area, _)| *area);
        let (mut unloaded, mut loaded) = (Vec::new(), Vec::new());
        for (area, before) in changed {
            let now = self.areas.get(&area).map(|a| a.ground);
            if before == now {
                continue;
            }
            if let Some(Ground { layout, .. }) = before {
                unloaded.push(AreaUnloaded { area, layout });
            }
            if let Some(Ground { layout, .. }) = now {
                loaded.push(AreaLoaded { area, layout });
            }
        }
        (unloaded, loaded)
    }
}

/// Adds the areas, their messages and `holder` to `app`: each plugin whose entities hold areas
/// calls it.
pub(crate) fn register(app: &mut App, holder: GroundHolder) {
    if !app.world().contains_resource::<BiomeAreas>() {
        app.init_resource::<BiomeAreas>()
            .register_type::<BiomeAreas>()
            .register_type::<AreaLoaded>()
            .register_type::<AreaUnloaded>()
            .add_message::<AreaLoaded>()
            .add_message::<AreaUnloaded>()
            .add_systems(Update, write_area_messages.in_set(BiomeWorldSystems::Apply));
    }
    let index = GroundHolder::ALL.iter().position(|&h| h == holder);
    let mut areas = app.world_mut().resource_mut::<BiomeAreas>();
    areas.streamed[index.expect("every holder is listed")] = true;
}

/// Writes the frame's area messages once every holder has come and gone for the frame (the
/// terrain's apply runs before it): all [`AreaUnloaded`] before all [`AreaLoaded`].
pub(crate) fn write_area_messages(
    _main: NonSendMarker,
    mut areas: ResMut<BiomeAreas>,
    mut unloaded: MessageWriter<AreaUnloaded>,
    mut loaded: MessageWriter<AreaLoaded>,
) {
    if areas.changed.is_empty() {
        return;
    }
    let (gone, came) = areas.take_changes();
    unloaded.write_batch(gone);
    loaded.write_batch(came);
}

/// The area a node holds: a full-detail node its chunk, coarser ones none.
fn area_of(node: NodeCoord) -> Option<ChunkCoord> {
    (node.level == 0).then(|| ChunkCoord::new(node.x, node.z))
}

/// `entity` of `holder` is in with the ground of `node` (of `layout`, settings `generation`).
pub(crate) fn hold(
    world: &mut World,
    holder: GroundHolder,
    node: NodeCoord,
    layout: ChunkLayout,
    entity: Entity,
    generation: u64,
) {
    let hold = Hold {
        holder,
        entity,
        generation,
    };
    if let Some(area) = area_of(node)
        && let Some(mut areas) = world.get_resource_mut::<BiomeAreas>()
    {
        areas.hold(area, layout, hold);
    }
}

/// `entity` of `holder`, with the ground of `node`, is no longer in.
pub(crate) fn release(world: &mut World, holder: GroundHolder, node: NodeCoord, entity: Entity) {
    if let Some(area) = area_of(node)
        && let Some(mut areas) = world.get_resource_mut::<BiomeAreas>()
    {
        areas.release(area, holder, entity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: ChunkCoord = ChunkCoord::new(3, 0);

    fn hold(holder: GroundHolder, entity: u32, generation: u64) -> Hold {
        Hold {
            holder,
            entity: Entity::from_raw_u32(entity).expect("a valid index"),
            generation,
        }
    }

    fn loaded(layout: ChunkLayout) -> AreaLoaded {
        AreaLoaded { area: AREA, layout }
    }

    fn unloaded(layout: ChunkLayout) -> AreaUnloaded {
        AreaUnloaded { area: AREA, layout }
    }

    fn release(areas: &mut BiomeAreas, hold: Hold) {
        areas.release(AREA, hold.holder, hold.entity);
    }

    /// An area loads with its first holder and unloads with its last: swaps between holders (a
    /// new stitch fading in over the old, colliders beside the drawn ground) say nothing, nor
    /// does ground that goes and comes back within a frame.
    #[test]
    fn an_area_loads_with_its_first_holder_and_unloads_with_its_last() {
        use GroundHolder::{Colliders, Terrain};
        let layout = ChunkLayout::default();
        let mut areas = BiomeAreas::default();
        let (first, second, colliders) = (
            hold(Terrain, 1, 0),
            hold(Terrain, 2, 0),
            hold(Colliders, 9, 0),
        );
        areas.hold(AREA, layout, first);
        assert_eq!(areas.take_changes(), (vec![], vec![loaded(layout)]));
        areas.hold(AREA, layout, second);
        areas.hold(AREA, layout, colliders);
        release(&mut areas, first);
        release(&mut areas, second);
        // Releasing what never held it changes nothing.
        release(&mut areas, hold(Terrain, 7, 0));
        areas.release(ChunkCoord::new(4, 0), Terrain, colliders.entity);
        assert_eq!(areas.take_changes(), (vec![], vec![]));
        assert!(areas.is_loaded(AREA) && areas.holds(AREA, Colliders));
        assert!(!areas.holds(AREA, Terrain));
        release(&mut areas, colliders);
        areas.hold(AREA, layout, second);
        assert_eq!(
            areas.take_changes(),
            (vec![], vec![]),
            "back within the frame"
        );
        release(&mut areas, second);
        assert_eq!(areas.take_changes(), (vec![unloaded(layout)], vec![]));
        assert!(areas.is_empty());
    }

    /// Ground of newer settings reloads the area once (content goes and comes back on the new
    /// ground); older holders leaving after that say nothing.
    #[test]
    fn newer_ground_reloads_an_area_once() {
        use GroundHolder::Terrain;
        let old = ChunkLayout::default();
        let new = ChunkLayout { tiles: 32, ..old };
        let mut areas = BiomeAreas::default();
        let (before, late, after) = (
            hold(Terrain, 1, 4),
            hold(Terrain, 3, 4),
            hold(Terrain, 2, 5),
        );
        areas.hold(AREA, old, before);
        areas.take_changes();
        areas.hold(AREA, new, after);
        assert_eq!(
            areas.take_changes(),
            (vec![unloaded(old)], vec![loaded(new)])
        );
        // An old build arriving late adds a holder and nothing else.
        areas.hold(AREA, old, late);
        release(&mut areas, before);
        release(&mut areas, late);
        assert_eq!(areas.take_changes(), (vec![], vec![]));
        release(&mut areas, after);
        assert_eq!(areas.take_changes(), (vec![unloaded(new)], vec![]));
    }

    /// Ready means every streamed holder holds the area at the current generation.
    #[test]
    fn ground_is_ready_where_every_streamed_holder_holds_it_at_the_current_settings() {
        use GroundHolder::{Colliders, Terrain};
        let layout = ChunkLayout::default();
        let mut areas = BiomeAreas::default();
        let (terrain, colliders) = (hold(Terrain, 1, 2), hold(Colliders, 5, 2));
        areas.hold(AREA, layout, terrain);
        assert!(!areas.is_ready(AREA, 2), "nothing streamed");
        areas.streamed = [true, false];
        assert!(areas.is_ready(AREA, 2));
        assert!(!areas.is_ready(AREA, 3), "ground of older settings");
        assert!(!areas.is_ready(ChunkCoord::new(1, 0), 2));
        areas.streamed = [true, true];
        assert!(!areas.is_ready(AREA, 2), "colliders not in");
        areas.hold(AREA, layout, colliders);
        assert!(areas.is_ready(AREA, 2));
        areas.streamed = [false, true];
        release(&mut areas, terrain);
        assert!(areas.is_ready(AREA, 2), "a server without terrain");
    }
}
