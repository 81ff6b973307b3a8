//! Gameplay queries: [`BiomeWorld`] answers height, biome, region and full samples for any world
//! position from the same core the chunks come from, so its answers agree with the meshes.

use bevy::ecs::system::SystemParam;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use biome_core::rays::GroundRay;
use biome_core::{Biome, RegionId};
use biome_core::{ChunkCoord, ChunkLayout, Sample, WorldGenerator};

use crate::areas::BiomeAreas;
use crate::origin::WorldFrame;
use crate::settings::BiomeWorldState;

/// Where a ray meets the ground ([`BiomeWorld::cast_ray`]).
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct GroundRayHit {
    /// How far along the ray.
    pub distance: f32,
    /// The point on the ground.
    pub point: Vec3,
    /// The ground's normal there, pointing out of it.
    pub normal: Dir3,
}

/// The floor under a point ([`BiomeWorld::ground_below`]).
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
pub struct FloorHit {
    /// The floor's height.
    pub height: f32,
    /// Its normal there, pointing up out of the ground.
    pub normal: Dir3,
}

/// Ask the world about any position:
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_biome_world::prelude::*;
/// fn drop_to_ground(biome_world: BiomeWorld, mut crates: Query<&mut Transform, With<Name>>) {
///     for mut transform in &mut crates {
///         let ground = biome_world.ground_height_at(transform.translation.xz());
///         transform.translation.y = ground;
///     }
/// }
/// ```
///
/// Positions are world units, as `Vec2` / `Vec3` or, where `f32` is too coarse (it steps by
/// 8 mm at 100 km from the origin), as `DVec2` / `DVec3`: far out under a floating origin, read
/// an entity's with [`BiomeWorld::world_position`].
#[derive(SystemParam)]
pub struct BiomeWorld<'w> {
    state: Res<'w, BiomeWorldState>,
    areas: Option<Res<'w, BiomeAreas>>,
    frame: Res<'w, WorldFrame>,
}

impl BiomeWorld<'_> {
    /// The generator the chunks are built from.
    #[must_use]
    pub fn generator(&self) -> &WorldGenerator {
        self.state.generator()
    }

    /// The chunk layout in use.
    #[must_use]
    pub fn layout(&self) -> &ChunkLayout {
        self.state.layout()
    }

    /// The world position of what is drawn at `global` (an entity's `GlobalTransform`): its
    /// translation, or with a floating origin (feature `big_space`, a `BiomeWorldGrid`) the
    /// position in the world's grid, exact however far out. The queries below take world
    /// positions: `biome_world.height_at(biome_world.world_position(global).xz())`.
    #[must_use]
    pub fn world_position(&self, global: &GlobalTransform) -> DVec3 {
        self.frame.world_of(global.translation())
    }

    /// Height of the terrain field at `xz` (world x and z), 0 being sea level.
    #[must_use]
    pub fn height_at(&self, xz: impl Into<DVec2>) -> f32 {
        let xz = xz.into();
        self.state.generator().height_at(xz.x, xz.y) as f32
    }

    /// Height of the chunk mesh's surface at `xz`: the triangle under the point, interpolated
    /// from the same vertex heights the mesh has. Use it to stand things on the ground. Where
    /// the world's volume makes caves and overhangs it is the top of the ground, open to the
    /// sky (an overhang's top where one reaches over `xz`); [`BiomeWorld::ground_below`] finds
    /// the floor under a point in a cave.
    #[must_use]
    pub fn ground_height_at(&self, xz: impl Into<DVec2>) -> f32 {
        let xz = xz.into();
        let ground = self
            .state
            .generator()
            .ground_top(xz.x, xz.y, self.state.layout());
        ground.height as f32
    }

    /// The floor under `point` (at its height or below it) of the surface the chunks draw: what
    /// a body dropped there lands on, a cave's floor under its roof or the ground over the cave;
    /// `None` where the point lies inside the ground. Answered from the generator, loaded or not.
    #[must_use]
    pub fn ground_below(&self, point: impl Into<DVec3>) -> Option<FloorHit> {
        let point = point.into();
        let floor =
            self.state
                .generator()
                .ground_below(point.x, point.y, point.z, self.state.layout())?;
        let normal = Vec3::from_array(floor.normal.map(|c| c as f32));
        Some(FloorHit {
            height: floor.height as f32,
            normal: Dir3::new(normal).unwrap_or(Dir3::Y),
        })
    }

    /// Where `ray` first meets the ground within `max_distance` (at most
    /// [`MAX_RAY_DISTANCE`](biome_core::rays::MAX_RAY_DISTANCE)): the surface
    /// [`BiomeWorld::ground_height_at`] gives, and the caves and overhangs of the world's volume
    /// where it has one (a ray into a cave mouth goes in), loaded or not and without colliders,
    /// so a server can check a line of sight and a game can pick the ground under the cursor. A
    /// ray that starts inside the ground hits at distance 0.
    #[must_use]
    pub fn cast_ray(&self, ray: Ray3d, max_distance: f32) -> Option<GroundRayHit> {
        let ray = GroundRay {
            origin: ray.origin.to_array().map(f64::from),
            direction: ray.direction.to_array().map(f64::from),
        };
        let layout = self.state.layout();
        let hit = self
            .state
            .generator()
            .cast_ray(ray, f64::from(max_distance), layout)?;
        let vector = |v: [f64; 3]| Vec3::from_array(v.map(|c| c as f32));
        Some(GroundRayHit {
            distance: hit.distance as f32,
            point: vector(hit.position),
            normal: Dir3::new(vector(hit.normal)).unwrap_or(Dir3::Y),
        })
    }

    /// The water surface over `xz`: a river's or lake's where the point lies under one, sea
    /// level (0) where the ground lies below it, `None` on dry ground.
    #[must_use]
    pub fn water_surface_at(&self, xz: impl Into<DVec2>) -> Option<f32> {
        let generator = &self.state.generator();
        let DVec2 { x, y: z } = xz.into();
        generator
            .river_water_at(x, z)
            .map(|w| w as f32)
            .or_else(|| (generator.height_at(x, z) < 0.0).then_some(0.0))
    }

    /// Everything the world says about `xz`.
    #[must_use]
    pub fn sample_at(&self, xz: impl Into<DVec2>) -> Sample {
        let xz = xz.into();
        self.state.generator().sample(xz.x, xz.y)
    }

    /// The biome at `xz`, with its index in the biome table.
    #[must_use]
    pub fn biome_at(&self, xz: impl Into<DVec2>) -> (usize, &Biome) {
        let index = self.sample_at(xz).biome;
        (
            index,
            &self.state.generator().settings().biome_table.biomes[index],
        )
    }

    /// The region `xz` belongs to (the nearest site after the border wobble).
    #[must_use]
    pub fn region_at(&self, xz: impl Into<DVec2>) -> RegionId {
        self.sample_at(xz).region
    }

    /// The chunk containing `xz`.
    #[must_use]
    pub fn chunk_at(&self, xz: impl Into<DVec2>) -> ChunkCoord {
        let xz = xz.into();
        ChunkCoord::containing(xz.x, xz.y, self.state.layout())
    }

    /// Whether the ground at `xz` is in, from the current settings: drawn at full detail where
    /// the app streams terrain, and with its colliders in where it streams them
    /// (`BiomeWorldPhysicsPlugin`), so a body dropped there lands on what
    /// [`BiomeWorld::ground_height_at`] says. Its area's [`AreaLoaded`](crate::AreaLoaded)
    /// comes with the first of these.
    #[must_use]
    pub fn ground_ready_at(&self, xz: impl Into<DVec2>) -> bool {
        self.areas
            .as_ref()
            .is_some_and(|areas| areas.is_ready(self.chunk_at(xz), self.state.generation()))
    }
}
