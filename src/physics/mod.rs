//! Physics with [avian3d](https://docs.rs/avian3d) (feature `avian`): static colliders for the
//! ground and the tree trunks of every full-detail chunk near an entity marked
//! [`BiomeWorldCollider`], whatever level of detail is drawn there.
//!
//! Each chunk's ground is a heightfield of its vertex grid ([`biome_core::HeightGrid`]), the
//! same heights and the same triangles as the level-0 mesh and [`crate::BiomeWorld::ground_height_at`],
//! so a body rests where the ground is drawn and queried, seams and corners included. Where the
//! world's volume shapes a chunk (caves, overhangs: `terrain.volume`), its ground is a triangle
//! mesh of the full-detail surface instead, so a body walks into a cave mouth and under an
//! overhang. The
//! chunks stream as a kind of the terrain's streamer, with full detail out to
//! [`BiomeColliderSettings::radius`]: colliders near a collider entity are built off the main
//! thread (each frame their builds start before the terrain's), and inserted within a
//! main-thread budget; those of older settings stay until their replacements are in, so nothing
//! falls through while the world regenerates, and then go. Heights are sampled once per chunk:
//! a chunk drawn at full detail lends its own ([`ChunkGround`]), and where a collider and a
//! terrain build of the same chunk meet, the later one takes the other's density pass.
//!
//! ```no_run
//! use avian3d::prelude::*;
//! use bevy::prelude::*;
//! use bevy_biome_world::{BiomeWorldCollider, BiomeWorldPhysicsPlugin};
//! use bevy_biome_world::prelude::*;
//!
//! App::new()
//!     .add_plugins((
//!         DefaultPlugins,
//!         BiomeWorldPlugin,
//!         PhysicsPlugins::default(),
//!         BiomeWorldPhysicsPlugin,
//!     ))
//!     .add_systems(Startup, |mut commands: Commands| {
//!         // Terrain streams around the anchor; colliders are kept around the ball.
//!         commands.spawn((
//!             BiomeWorldAnchor,
//!             BiomeWorldCollider,
//!             RigidBody::Dynamic,
//!             Collider::sphere(0.5),
//!             Transform::from_xyz(0.0, 80.0, 0.0),
//!         ));
//!     })
//!     .run();
//! ```
//!
//! Other physics engines can build their own shapes from [`ChunkGround`], which every
//! full-detail terrain entity carries with or without this feature.

mod plugin;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use avian3d::parry::shape::SharedShape;
use avian3d::parry::utils::Array2;
use avian3d::prelude::*;
use bevy::diagnostic::DiagnosticPath;
use bevy::math::DVec3;
use bevy::prelude::*;
use biome_core::SettingsError;
use biome_core::check::Check;
use biome_core::{
    ChunkCoord, ChunkError, ChunkLayout, HeightGrid, NodeCoord, Stitch, TreeInstance,
    WorldGenerator,
};

pub use plugin::{BiomeWorldPhysicsPlugin, BiomeWorldPhysicsSystems};

use crate::areas::{self, GroundHolder};
use crate::settings::BiomeWorldState;
use crate::stream::{BuildKey, KindDiagnostics, LodConfig, StreamKind};
use crate::terrain::share::{DensityShare, DensitySlot, DensityUser};
use crate::terrain::{BiomeChunk, ChunkGround, VolumeGround};
use crate::trees::TreeSizes;

/// Colliders are kept around entities with this: the player, rigid bodies that must stand on
/// the world, a camera that collides.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWorldCollider;

/// How far colliders reach and what they cost. Changes apply at once: chunks come and go as the
/// radius needs; a change of `trunks` rebuilds them. Refused settings (see
/// [`BiomeColliderStats::error`]) leave the last valid ones in use, or no colliders where those
/// do not fit the world's layout either.
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Clone, Debug, PartialEq)]
pub struct BiomeColliderSettings {
    /// Chunks within this distance of a [`BiomeWorldCollider`] entity get colliders, world units.
    pub radius: f32,
    /// Colliders stay until their entity is this share of the radius farther (and are built this
    /// half share ahead), so a body hovering at the edge does not churn.
    pub hysteresis: f32,
    /// Whether trees get trunk colliders (a cylinder per trunk, as wide and tall as drawn), when
    /// trees are spawned ([`crate::BiomeWorldSettings::trees`]).
    pub trunks: bool,
    /// At most this many collider builds run at once.
    pub max_tasks: usize,
    /// Main-thread time per frame for inserting and removing colliders, milliseconds, within
    /// [`crate::BiomeWorldStreaming::frame_budget_ms`] (colliders apply first); at least one
    /// chunk's colliders move per frame.
    pub apply_budget_ms: f32,
}

impl Default for BiomeColliderSettings {
    fn default() -> Self {
        Self {
            radius: 96.0,
            hysteresis: 0.5,
            trunks: true,
            max_tasks: 8,
            apply_budget_ms: 0.3,
        }
    }
}

impl BiomeColliderSettings {
    /// Accepted [`BiomeColliderSettings::radius`], world units.
    pub const RADIUS: std::ops::RangeInclusive<f32> = 1.0..=2048.0;
    /// Accepted [`BiomeColliderSettings::hysteresis`].
    pub const HYSTERESIS: std::ops::RangeInclusive<f32> = 0.0..=1.0;
    /// Accepted [`BiomeColliderSettings::max_tasks`].
    pub const MAX_TASKS: std::ops::RangeInclusive<usize> = 1..=64;
    /// Accepted [`BiomeColliderSettings::apply_budget_ms`].
    pub const APPLY_BUDGET_MS: std::ops::RangeInclusive<f32> = 0.0..=100.0;
    /// Collider chunks one entity may keep.
    pub const MAX_CHUNKS: u64 = 4096;

    /// Checks every value against its range, and the chunks one entity keeps with `layout`.
    ///
    /// # Errors
    /// The first value out of range, by field path (`colliders.radius`...).
    pub fn validate_with(&self, layout: &ChunkLayout) -> Result<(), SettingsError> {
        let check = Check::at("colliders");
        check.range_in("radius", self.radius, &Self::RADIUS, " world units")?;
        check.range("hysteresis", self.hysteresis, &Self::HYSTERESIS)?;
        check.range_in(
            "apply_budget_ms",
            self.apply_budget_ms,
            &Self::APPLY_BUDGET_MS,
            " ms",
        )?;
        check.whole("max_tasks", self.max_tasks, &Self::MAX_TASKS)?;
        let chunks = self.lod(*layout).node_estimate();
        if chunks > Self::MAX_CHUNKS {
            return check.fail(
                "radius",
                format!(
                    "about {chunks} collider chunks around an entity, over the {} limit: lower \
                     the radius or use larger chunks",
                    Self::MAX_CHUNKS
                ),
            );
        }
        Ok(())
    }

    /// The planner's view: full detail out to the radius.
    #[must_use]
    pub(crate) fn lod(&self, layout: ChunkLayout) -> LodConfig {
        LodConfig {
            layout,
            detail_radius: f64::from(self.radius),
            horizon: f64::from(self.radius),
            hysteresis: f64::from(self.hysteresis),
        }
    }
}

/// The ground collider of one chunk: a static heightfield.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct TerrainCollider {
    /// The chunk.
    pub chunk: ChunkCoord,
    /// The settings generation its heights come from.
    pub generation: u64,
    /// The revision of its area its heights come from: it moves on when a terrain edit within
    /// reach changes ([`crate::BiomeWorldEdits`]); 0 before any.
    pub revision: u64,
}

/// The trunk colliders of one chunk's trees: one static compound of cylinders, a child of its
/// [`TerrainCollider`].
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct TrunkColliders {
    /// How many trunks.
    pub trunks: usize,
}

/// What the colliders cost, updated every frame.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeColliderStats {
    /// Chunks with colliders in.
    pub loaded: usize,
    /// Collider builds running.
    pub in_flight: usize,
    /// Collider chunks wanted and not started yet.
    pub queued: usize,
    /// Finished builds waiting to be inserted.
    pub ready: usize,
    /// Collider chunks to remove.
    pub retiring: usize,
    /// Trunk colliders in.
    pub trunks: usize,
    /// Builds that took their heights from a drawn full-detail chunk, since the start.
    pub reused_heights: u64,
    /// Builds that took their heights from a terrain build's density pass, since the start.
    pub shared_heights: u64,
    /// Terrain builds that took their density from a collider build's, since the start.
    pub lent_heights: u64,
    /// Builds that sampled their heights, since the start.
    pub sampled_heights: u64,
    /// Collider chunks whose build failed at the current settings (not retried until they
    /// change; the failures are logged).
    pub failed: usize,
    /// Main-thread time of the last frame's streaming system.
    pub stream_time: Duration,
    /// Main-thread time of the last frame's apply system.
    pub apply_time: Duration,
    /// Why the latest [`BiomeColliderSettings`] were refused, if they were (the last valid ones
    /// stay in use, if they fit the layout).
    pub error: Option<String>,
}

impl BiomeColliderStats {
    /// [`DiagnosticsStore`](bevy::diagnostic::DiagnosticsStore) path of
    /// [`BiomeColliderStats::stream_time`], milliseconds.
    pub const STREAM_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/colliders/stream_time");
    /// Diagnostics path of [`BiomeColliderStats::apply_time`], milliseconds.
    pub const APPLY_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/colliders/apply_time");
    /// Diagnostics path of each collider build's time off the main thread, milliseconds (the
    /// last 256 kept).
    pub const BUILD_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/colliders/build_time");
    /// Diagnostics path of [`BiomeColliderStats::loaded`].
    pub const CHUNKS: &DiagnosticPath = &DiagnosticPath::const_new("biome_world/colliders/chunks");

    pub(crate) const DIAGNOSTICS: KindDiagnostics = KindDiagnostics {
        stream_time: Self::STREAM_TIME,
        apply_time: Self::APPLY_TIME,
        build_time: Self::BUILD_TIME,
        shown: Self::CHUNKS,
    };

    /// Whether nothing is under way: every wanted collider is in and nothing waits to go.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0 && self.queued == 0 && self.ready == 0 && self.retiring == 0
    }
}

/// A finished collider build.
pub(crate) struct BuiltColliders {
    ground: Collider,
    /// Where the ground collider goes, in world units: placed relative to the physics origin
    /// when it spawns.
    center: DVec3,
    trunks: Option<BuiltTrunks>,
}

/// The compound of a chunk's trunks.
struct BuiltTrunks {
    collider: Collider,
    /// How many trunks it holds.
    count: usize,
    /// Its place relative to the ground collider's (trunks stand relative to the chunk's origin).
    transform: Transform,
}

/// The collider entities of one chunk: the ground, with its trunks as a child.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkColliders {
    /// The chunk, as a level-0 node.
    node: NodeCoord,
    ground: Entity,
    trunks: usize,
}

/// Colliders as a kind of the streamer. Colliders cannot hide: a chunk's are in from its spawn,
/// and its swap (made in the same frame) removes what it replaces.
#[derive(Default)]
pub(crate) struct ColliderKind {
    /// Whether builds make trunk colliders.
    trunks: bool,
    /// Drawn full-detail chunks, whose heights builds borrow.
    drawn: Option<QueryState<(&'static BiomeChunk, &'static ChunkGround)>>,
    /// Builds that borrowed a drawn chunk's heights, since the start.
    reused: u64,
}

impl StreamKind for ColliderKind {
    type Built = BuiltColliders;
    type Node = ChunkColliders;

    fn build(
        &mut self,
        world: &mut World,
        key: BuildKey,
    ) -> impl FnOnce(&AtomicBool) -> Result<BuiltColliders, ChunkError> + Send + 'static {
        let state = world.resource::<BiomeWorldState>();
        let (generator, layout, generation) = (
            state.generator().clone(),
            state.settings().layout,
            state.generation(),
        );
        // In a volume world a collider is the unstitched full-detail mesh, which a drawn chunk
        // stitched to a coarser node does not hold: only an unstitched one lends its ground.
        let lends = |stitch: Stitch| {
            stitch == Stitch::NONE || generator.settings().terrain.volume.is_none()
        };
        let drawn = self.drawn.get_or_insert_with(|| world.query());
        let source = match drawn.iter(world).find(|(chunk, _)| {
            chunk.generation == generation
                && chunk.revision == key.revision
                && chunk.node == key.node
                && lends(chunk.stitch)
        }) {
            Some((_, ground)) => {
                self.reused += 1;
                GroundSource::Drawn(ground.clone())
            }
            None => GroundSource::Shared(world.resource_mut::<DensityShare>().slot(
                key.node,
                generation,
                key.revision,
            )),
        };
        let trunks = self.trunks.then(|| TreeSizes::in_world(world));
        move |cancel: &AtomicBool| {
            build_colliders(&generator, key.node, &layout, source, trunks, cancel)
        }
    }

    fn spawn(&mut self, world: &mut World, key: BuildKey, built: BuiltColliders) -> ChunkColliders {
        let generation = world.resource::<BiomeWorldState>().generation();
        let ground = world
            .spawn((
                TerrainCollider {
                    chunk: ChunkCoord::new(key.node.x, key.node.z),
                    generation,
                    revision: key.revision,
                },
                RigidBody::Static,
                built.ground,
                world.resource::<PhysicsOrigin>().place(built.center),
            ))
            .id();
        let mut trunks = 0;
        if let Some(built) = built.trunks {
            // A child collider belongs to its parent's static body.
            world.spawn((
                TrunkColliders {
                    trunks: built.count,
                },
                built.collider,
                built.transform,
                ChildOf(ground),
            ));
            trunks = built.count;
        }
        ChunkColliders {
            node: key.node,
            ground,
            trunks,
        }
    }

    fn root(node: &ChunkColliders) -> Entity {
        node.ground
    }

    fn show(&mut self, world: &mut World, key: BuildKey, node: &mut ChunkColliders, _: bool) {
        let layout = world.resource::<BiomeWorldState>().settings().layout;
        // The colliders' generation is the world's and whether trunks are in.
        let generation = key.generation / 2;
        let holder = GroundHolder::Colliders;
        areas::hold(world, holder, key.node, layout, node.ground, generation);
    }

    fn hide(&mut self, world: &mut World, node: &mut ChunkColliders) {
        if let Ok(entity) = world.get_entity_mut(node.ground) {
            entity.despawn();
        }
        areas::release(world, GroundHolder::Colliders, node.node, node.ground);
    }

    fn lost(&mut self, world: &mut World, _key: BuildKey, node: ChunkColliders) {
        areas::release(world, GroundHolder::Colliders, node.node, node.ground);
    }

    fn despawn_part(
        &mut self,
        world: &mut World,
        _key: BuildKey,
        node: &mut ChunkColliders,
    ) -> bool {
        self.hide(world, node);
        true
    }

    fn failed(&mut self, _world: &mut World, key: BuildKey, reason: &str) {
        warn!("the collider of chunk {:?} failed: {reason}", key.node);
    }
}

/// Where a collider build's ground comes from.
enum GroundSource {
    /// A drawn chunk's.
    Drawn(ChunkGround),
    /// A density pass shared with the terrain's build of the chunk, whichever runs it.
    Shared(Arc<DensitySlot>),
}

/// Builds the colliders of chunk `node` from `source`, with trunks of these sizes if `trunks`.
///
/// # Errors
/// The core's, for a refused layout or once `cancel` is set.
fn build_colliders(
    generator: &WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
    source: GroundSource,
    trunks: Option<TreeSizes>,
    cancel: &AtomicBool,
) -> Result<BuiltColliders, ChunkError> {
    let ground = match source {
        GroundSource::Drawn(ground) => ground,
        GroundSource::Shared(slot) => {
            let density = slot.get_or_sample(DensityUser::Colliders, || {
                generator.node_density(node, layout, cancel)
            })?;
            if generator.settings().terrain.volume.is_some() {
                // The chunk's own mesh, where the volume shapes it, and its trees.
                let mut chunk =
                    generator.build_node_from(node, layout, Stitch::NONE, &density, cancel)?;
                ChunkGround {
                    volume: VolumeGround::take(&mut chunk),
                    heights: chunk.heights,
                    trees: if trunks.is_some() {
                        chunk.trees
                    } else {
                        Vec::new()
                    },
                }
            } else {
                let heights = density.heights();
                let trees = if trunks.is_some() {
                    let (min, size) = (heights.origin, layout.chunk_size());
                    generator
                        .trees_in_rect(min, [min[0] + size, min[1] + size])
                        .iter()
                        .map(|tree| tree.relative_to(min))
                        .collect()
                } else {
                    Vec::new()
                };
                ChunkGround {
                    heights,
                    trees,
                    volume: None,
                }
            }
        }
    };
    let center = heightfield_center(&ground.heights);
    // From the collider's centre to the chunk's origin, where vertices and trunks are relative
    // to: small and exact however far out the chunk is.
    let to_origin = (chunk_origin(&ground.heights) - center).as_vec3();
    let trunks = trunks
        .filter(|_| !ground.trees.is_empty())
        .map(|sizes| BuiltTrunks {
            collider: trunk_compound(&ground.trees, &sizes),
            count: ground.trees.len(),
            transform: Transform::from_translation(to_origin),
        });
    let shape = ground
        .volume
        .as_ref()
        .and_then(|volume| trimesh(volume, to_origin))
        .unwrap_or_else(|| heightfield(&ground.heights));
    Ok(BuiltColliders {
        ground: shape,
        center,
        trunks,
    })
}

/// A heightfield of `grid`, centred on the grid (where its entity goes,
/// [`heightfield_center`]). Parry's rows run along z and its columns along x, and it splits
/// every cell along the same diagonal as the meshes. Without parry's internal-edge fix: with it,
/// a ball dropped where four chunks meet sank 4 cm into the ground; without it a body slides
/// over seams as over one seamless field (`tests/physics.rs`).
fn heightfield(grid: &HeightGrid) -> Collider {
    let side = grid.side;
    let heights = Array2::from_fn(side, side, |row, column| grid.get(column, row));
    let size = ((side - 1) as f64 * grid.spacing) as f32;
    Collider::from(SharedShape::heightfield(
        heights,
        Vec3::new(size, 1.0, size),
    ))
}

/// A triangle mesh of a chunk's `volume` surface (relative to the chunk's origin), for an entity
/// `offset` from that origin (where its heightfield would go); `None` for a surface parry refuses
/// (one without triangles).
fn trimesh(volume: &VolumeGround, offset: Vec3) -> Option<Collider> {
    let vertices = volume
        .positions
        .iter()
        .map(|&p| Vec3::from_array(p) + offset)
        .collect();
    let triangles = volume
        .indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    Collider::try_trimesh(vertices, triangles).ok()
}

/// Where the entity of [`heightfield`]`(grid)` goes, in world units.
fn heightfield_center(grid: &HeightGrid) -> DVec3 {
    let half = (grid.side - 1) as f64 * grid.spacing / 2.0;
    chunk_origin(grid) + DVec3::new(half, 0.0, half)
}

/// The world position of `grid`'s first vertex column, at height 0.
fn chunk_origin(grid: &HeightGrid) -> DVec3 {
    DVec3::new(grid.origin[0], 0.0, grid.origin[1])
}

/// The world position of avian's zero. Without a floating origin it is the world's. With one
/// (feature `big_space`, a `BiomeWorldGrid`) physics runs where the renderer does, relative to
/// the floating origin's cell, so bodies near the camera simulate in small coordinates wherever
/// it is: the colliders are placed relative to it, and when the camera moves to another cell,
/// every body and collider at the root of the hierarchy moves with it ([`follow_floating_origin`]).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PhysicsOrigin {
    /// `None` until a floating origin is seen.
    at: Option<DVec3>,
}

impl PhysicsOrigin {
    /// Where a collider at world position `at` goes.
    fn place(self, at: DVec3) -> Transform {
        Transform::from_translation((at - self.at.unwrap_or(DVec3::ZERO)).as_vec3())
    }
}

/// Bodies and colliders at the root of the hierarchy, outside the grid: what simulates in the
/// physics frame.
#[cfg(feature = "big_space")]
type RootBodies = (
    Or<(With<RigidBody>, With<Collider>)>,
    Without<ChildOf>,
    Without<big_space::prelude::CellCoord>,
);

/// Moves the physics origin to the floating origin's cell, after `big_space` propagated the
/// frame's transforms: each body and collider at the root moves by the opposite (its
/// `Transform`, its `Position`, and the `GlobalTransform`s of it and its children, so this
/// frame draws it where it is), which keeps it where it is in the world.
#[cfg(feature = "big_space")]
pub(crate) fn follow_floating_origin(
    grids: Query<&big_space::prelude::Grid, With<crate::BiomeWorldGrid>>,
    mut origin: ResMut<PhysicsOrigin>,
    mut bodies: Query<(Entity, &mut Transform, Option<&mut Position>), RootBodies>,
    children: Query<&Children>,
    mut globals: Query<&mut GlobalTransform>,
) {
    let Some(grid) = grids.iter().next() else {
        return;
    };
    let now = crate::origin::render_origin_of(grid);
    let Some(before) = origin.at.replace(now) else {
        return;
    };
    if now == before {
        return;
    }
    let by = (before - now).as_vec3();
    for (entity, mut transform, position) in &mut bodies {
        transform.translation += by;
        if let Some(mut position) = position {
            position.0 += by;
        }
        for part in std::iter::once(entity).chain(children.iter_descendants(entity)) {
            if let Ok(mut global) = globals.get_mut(part) {
                *global = GlobalTransform::from_translation(by) * *global;
            }
        }
    }
}

/// One compound of a cylinder per trunk, relative to the chunk origin.
fn trunk_compound(trees: &[TreeInstance], sizes: &TreeSizes) -> Collider {
    let shapes = trees
        .iter()
        .map(|tree| {
            let size = sizes.get(tree.species);
            let (radius, height) = (
                size.trunk_radius * tree.scale,
                size.trunk_height * tree.scale,
            );
            let [x, y, z] = tree.position;
            (
                Vec3::new(x, y + height / 2.0, z),
                Quat::IDENTITY,
                Collider::cylinder(radius, height),
            )
        })
        .collect();
    Collider::compound(shapes)
}
