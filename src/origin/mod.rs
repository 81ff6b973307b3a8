//! Where the world's positions go in the ECS. The generator and the planners work in `f64` world
//! units; entities carry `f32` transforms, which step by 8 mm at 100 km from the origin and by
//! 64 units at 10^9. Without a floating origin a world position is a transform
//! ([`crate::FAR_ANCHOR_DISTANCE`] warns where that shows). With the `big_space` feature and a
//! [`BiomeWorldGrid`], the world is that grid: what the plugin spawns sits in its 64-bit cells,
//! and anchors are read back through the floating origin, so both stay exact however far out.
//!
//! [`WorldFrame`] is the one place that knows which: streamers read anchors and place what they
//! spawn through it, and the terrain material learns from it where the rendering origin is.

#[cfg(feature = "big_space")]
use bevy::ecs::system::NonSendMarker;
use bevy::math::DVec3;
use bevy::prelude::*;

#[cfg(feature = "big_space")]
use big_space::prelude::{CellCoord, Grid};

/// Marks the `big_space` [`Grid`] the world lives in (feature `big_space`): usually the
/// `BigSpace` root, whose grid coordinates are then world units. Terrain, trees, water and
/// scattered objects are spawned as its children in its cells; anchors anywhere in the same
/// big space (the floating-origin camera, a player) are read through the floating origin.
///
/// ```no_run
/// use bevy::math::DVec3;
/// use bevy::prelude::*;
/// use bevy_biome_world::prelude::*;
/// use bevy_biome_world::BiomeWorldGrid;
/// use bevy_biome_world::big_space::prelude::*;
///
/// fn setup(mut commands: Commands) {
///     commands.spawn_big_space(Grid::new(2048.0, 0.0), |root| {
///         root.insert(BiomeWorldGrid);
///         let (cell, offset) = root.grid().translation_to_grid(DVec3::new(1e9, 120.0, 1e9));
///         root.spawn_spatial((
///             Camera3d::default(),
///             Transform::from_translation(offset),
///             cell,
///             FloatingOrigin,
///             BiomeWorldAnchor,
///         ));
///     });
/// }
/// ```
///
/// The grid is read each frame; putting the marker on another grid rebuilds the world in it.
/// Pick a cell edge that is a power of two (2,048 units is a good one): node origins then fall
/// on exact cell offsets, and splat textures whose size divides 16,384 units stay seamless as
/// the floating origin moves between cells.
#[cfg(feature = "big_space")]
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWorldGrid;

/// How world positions map to entities this frame: plain transforms, or a `big_space` grid and
/// where its floating origin is.
#[derive(Resource, Clone, Debug, Default)]
pub(crate) struct WorldFrame {
    #[cfg(feature = "big_space")]
    grid: Option<GridFrame>,
}

/// The world's grid as it was read this frame.
#[cfg(feature = "big_space")]
#[derive(Clone, Debug)]
struct GridFrame {
    entity: Entity,
    /// Its cell size and floating origin.
    grid: Grid,
}

/// Where an entity goes: its transform, and with a grid, the grid and the cell it is relative to.
#[derive(Clone, Copy, Debug)]
#[must_use]
pub(crate) struct Placement {
    transform: Transform,
    #[cfg(feature = "big_space")]
    cell: Option<(Entity, CellCoord)>,
}

impl Placement {
    /// Gives `entity` its place: the transform, and with a grid its cell, as the grid's child.
    pub(crate) fn insert(self, entity: &mut EntityWorldMut) {
        entity.insert(self.transform);
        #[cfg(feature = "big_space")]
        if let Some((grid, cell)) = self.cell {
            entity.insert((cell, ChildOf(grid)));
        }
    }
}

impl WorldFrame {
    /// The world position of what is drawn at `global` (a `GlobalTransform`'s translation).
    /// Without a grid that is the translation; with one it is exact to `f32` steps of the
    /// distance from the floating origin, however far the floating origin is from the world's.
    #[must_use]
    pub(crate) fn world_of(&self, global: Vec3) -> DVec3 {
        #[cfg(feature = "big_space")]
        if let Some(frame) = &self.grid {
            let origin = frame.grid.local_floating_origin();
            let from_render = origin.grid_transform().inverse();
            return from_render.transform_point3(global.as_dvec3())
                + origin.cell().as_dvec3(&frame.grid);
        }
        global.as_dvec3()
    }

    /// Where world position `at` is drawn: the inverse of [`WorldFrame::world_of`], for what
    /// is drawn without an entity (the panel's gizmos).
    #[cfg(any(feature = "panel", all(test, feature = "big_space")))]
    #[must_use]
    pub(crate) fn render_of(&self, at: DVec3) -> Vec3 {
        #[cfg(feature = "big_space")]
        if let Some(frame) = &self.grid {
            let origin = frame.grid.local_floating_origin();
            let local = at - origin.cell().as_dvec3(&frame.grid);
            return origin.grid_transform().transform_point3(local).as_vec3();
        }
        at.as_vec3()
    }

    /// The world position drawn at the rendering origin: zero without a grid.
    #[must_use]
    pub(crate) fn render_origin(&self) -> DVec3 {
        #[cfg(feature = "big_space")]
        if let Some(frame) = &self.grid {
            return render_origin_of(&frame.grid);
        }
        DVec3::ZERO
    }

    /// Where an entity at world position `at` goes.
    pub(crate) fn place(&self, at: DVec3) -> Placement {
        #[cfg(feature = "big_space")]
        if let Some(frame) = &self.grid {
            let (cell, offset) = frame.grid.translation_to_grid(at);
            return Placement {
                transform: Transform::from_translation(offset),
                cell: Some((frame.entity, cell)),
            };
        }
        Placement {
            transform: Transform::from_translation(at.as_vec3()),
            #[cfg(feature = "big_space")]
            cell: None,
        }
    }

    /// Whether positions are exact far out: with a grid.
    #[must_use]
    pub(crate) fn is_floating(&self) -> bool {
        #[cfg(feature = "big_space")]
        return self.grid.is_some();
        #[cfg(not(feature = "big_space"))]
        false
    }
}

/// The world position drawn at the rendering origin under `grid` (the world's).
#[cfg(feature = "big_space")]
#[must_use]
pub(crate) fn render_origin_of(grid: &Grid) -> DVec3 {
    let origin = grid.local_floating_origin();
    origin.grid_transform().inverse().translation + origin.cell().as_dvec3(grid)
}

/// Reads the world's grid and its floating origin (as `big_space` left them after the last
/// frame's propagation, which the anchors' `GlobalTransform`s are also from). The frame is
/// marked changed only when the world moves to another grid (or out of one): what was spawned
/// is then in the wrong place, and the settings' system builds everything again.
#[cfg(feature = "big_space")]
pub(crate) fn read_world_grid(
    _main: NonSendMarker,
    grids: Query<(Entity, &Grid), With<BiomeWorldGrid>>,
    mut frame: ResMut<WorldFrame>,
) {
    let mut marked = grids.iter();
    let found = marked.next().map(|(entity, grid)| GridFrame {
        entity,
        grid: grid.clone(),
    });
    if marked.next().is_some() {
        warn_once!("more than one BiomeWorldGrid: the world lives in the first one found");
    }
    let moved = frame.grid.as_ref().map(|g| g.entity) != found.as_ref().map(|g| g.entity);
    frame.bypass_change_detection().grid = found;
    if moved {
        frame.set_changed();
    }
}

#[cfg(all(test, feature = "big_space"))]
mod tests {
    use super::*;
    use big_space::prelude::LocalFloatingOrigin;

    fn frame_at(origin_cell: CellCoord, edge: f32) -> WorldFrame {
        let mut grid = Grid::new(edge, 0.0);
        // As `big_space`'s propagation sets it for a floating origin at its cell's centre.
        let origin = LocalFloatingOrigin::new(origin_cell, Vec3::ZERO, bevy::math::DQuat::IDENTITY);
        grid_origin(&mut grid, origin);
        WorldFrame {
            grid: Some(GridFrame {
                entity: Entity::PLACEHOLDER,
                grid,
            }),
        }
    }

    /// `Grid` keeps its floating origin private; `big_space`'s reflection sets it.
    fn grid_origin(grid: &mut Grid, origin: LocalFloatingOrigin) {
        use bevy::reflect::structs::{GetField, Struct};
        let field = grid
            .field_mut("local_floating_origin")
            .expect("Grid reflects its floating origin");
        field.apply(&origin);
        assert_eq!(
            grid.get_field::<LocalFloatingOrigin>("local_floating_origin"),
            Some(&origin)
        );
    }

    /// Node origins 2^30 units out land in cells with offsets exact to the unit, and read back
    /// through the floating origin as the same world positions, bit for bit.
    #[test]
    fn far_positions_go_to_cells_and_come_back_exact() {
        let far = f64::from(1u32 << 30);
        let frame = frame_at(CellCoord::new(1 << 19, 0, -(1 << 19)), 2048.0);
        assert_eq!(frame.render_origin(), DVec3::new(far, 0.0, -far));
        for at in [
            DVec3::new(far + 128.0, 31.25, -far - 384.0),
            DVec3::new(far - 4096.0, -7.5, -far + 1920.0),
        ] {
            let placed = frame.place(at);
            let (grid, cell) = placed.cell.expect("in the grid");
            assert_eq!(grid, Entity::PLACEHOLDER);
            let offset = placed.transform.translation;
            assert!(
                offset.abs().max_element() <= 1024.0,
                "{offset} within its cell"
            );
            let drawn = offset
                + ((cell.x - (1 << 19)) as f32 * 2048.0) * Vec3::X
                + ((cell.z + (1 << 19)) as f32 * 2048.0) * Vec3::Z
                + (cell.y as f32 * 2048.0) * Vec3::Y;
            assert_eq!(frame.world_of(drawn), at);
            assert_eq!(frame.render_of(at), drawn);
        }
    }

    /// Without a grid, world positions are transforms, as `f32` has them.
    #[test]
    fn without_a_grid_positions_are_transforms() {
        let frame = WorldFrame::default();
        let placed = frame.place(DVec3::new(1e9 + 3.0, 2.0, -5.5));
        assert_eq!(placed.cell, None);
        assert_eq!(placed.transform.translation, Vec3::new(1e9, 2.0, -5.5));
        assert_eq!(
            frame.world_of(Vec3::new(1.5, 0.0, 2.0)),
            DVec3::new(1.5, 0.0, 2.0)
        );
        assert!(!frame.is_floating());
    }
}
