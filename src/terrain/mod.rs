//! Terrain: the level-of-detail nodes streamed around every [`BiomeWorldAnchor`], as a
//! `StreamKind` of the one streamer. A build samples the node's density and makes its mesh,
//! water, trees and far forest off the main thread; the node spawns hidden, appears in one frame
//! with every node its edges depend on (fading in over what it replaces, [`ChunkFade`]), and its
//! entity leaves with its children. [`ChunkSpawned`], [`ChunkDespawned`] and [`ChunkFailed`]
//! say so; [`BiomeWorldStats`] counts it all. Cameras with a [`HorizonView`] see it to the
//! horizon.

mod material;
mod mesh;
mod own_material;
mod plugin;
mod precision;
pub(crate) mod share;
mod splat;
mod view;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bevy::diagnostic::DiagnosticPath;
use bevy::math::DVec3;
use bevy::prelude::*;
use biome_core::{ChunkError, ChunkLayout, HeightGrid, NodeCoord, Stitch, TreeInstance};

pub(crate) use material::add_terrain_material;
pub use material::{TerrainMaterial, TerrainSurface};
pub use mesh::TerrainMaterials;
pub(crate) use mesh::{TerrainColors, chunk_mesh, mesh_bytes, river_water_mesh};
pub use own_material::{OwnTerrainMaterial, OwnTerrainMaterialPlugin};
pub use plugin::BiomeTerrainPlugin;
pub(crate) use plugin::apply_terrain;
pub use precision::FAR_ANCHOR_DISTANCE;
pub use splat::{
    BiomeSplat, MAX_SPLAT_LAYERS, SplatError, SplatLayer, SplatTint, SteepSplat, TerrainSplatting,
};
pub use view::HorizonView;

use crate::areas::{self, GroundHolder};
use crate::models::spawn_instances;
use crate::origin::WorldFrame;
use crate::settings::{BiomeWorldState, ChunkMeshOptions};
use crate::stream::{BuildKey, ChunkPlanner, KindDiagnostics, StreamKind};
use crate::trees::{BiomeForest, TreeModels, TreeSizes};
use share::{DensityShare, DensityUser};

/// A streamed terrain node: a chunk (level 0) or a coarser node covering 2^level × 2^level
/// chunks with the same tile count. Its entity carries the terrain mesh; trees and water are
/// children.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct BiomeChunk {
    /// Where the node sits in the quadtree of `layout`'s chunks.
    pub node: NodeCoord,
    /// The layout it was built with.
    pub layout: ChunkLayout,
    /// The sides and corners that follow a coarser neighbour's edge
    /// ([`biome_core::WorldGenerator::build_node`] builds the same mesh from these).
    pub stitch: Stitch,
    /// The settings generation it was built from (see [`crate::BiomeWorldState::generation`]).
    pub generation: u64,
    /// The revision of its area it was built for: it moves on when a terrain edit within reach
    /// of the node changes ([`crate::BiomeWorldEdits`]); 0 before any.
    pub revision: u64,
}

/// The ground of a full-detail terrain entity (level 0), as its build sampled it: the height
/// grid its mesh is made of (before edges follow a coarser neighbour) and its trees. Physics
/// engines build their shapes from it. With parry, the shapes of rapier (and of avian, which
/// feature `avian` re-exports), a heightfield per new chunk is:
///
/// ```
/// # #[cfg(feature = "avian")]
/// # mod with_parry {
/// use bevy::prelude::*;
/// use bevy_biome_world::ChunkGround;
/// use bevy_biome_world::avian3d::parry::{shape::HeightField, utils::Array2};
///
/// fn heightfields(grounds: Query<&ChunkGround, Added<ChunkGround>>) {
///     for ground in &grounds {
///         let grid = &ground.heights;
///         let n = grid.side;
///         // Rows along z, columns along x, centred on the shape's position.
///         let heights = Array2::from_fn(n, n, |row, column| grid.get(column, row));
///         let size = (n - 1) as f32 * grid.spacing as f32;
///         let shape = HeightField::new(heights, Vec3::new(size, 1.0, size));
///         let position = Vec3::new(
///             grid.origin[0] as f32 + size / 2.0,
///             0.0,
///             grid.origin[1] as f32 + size / 2.0,
///         );
///         // Hand `shape` at `position` to the physics world (rapier:
///         // `ColliderBuilder::new(SharedShape::new(shape)).translation(position)`).
///         # let _ = (shape, position);
///     }
/// }
/// # }
/// ```
///
/// Parry splits every tile along the same diagonal as the mesh, so the shape is the drawn
/// ground ([`crate::BiomeWorld::ground_height_at`] agrees with it too).
#[derive(Component, Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct ChunkGround {
    /// Heights on the chunk's vertex grid, world units.
    pub heights: HeightGrid,
    /// The trees standing on it, relative to the chunk's origin.
    pub trees: Vec<TreeInstance>,
    /// The drawn surface where the world's volume shapes the chunk (caves, overhangs: see
    /// [`biome_core::terrain::VolumeSettings`]), which `heights` cannot hold: build a triangle
    /// mesh shape from it instead. `None` where the ground is the height field.
    pub volume: Option<VolumeGround>,
}

/// A chunk's surface as triangles, where the world's volume shapes it ([`ChunkGround::volume`]):
/// the drawn mesh's positions and triangles. Along a side stitched to a coarser node
/// ([`BiomeChunk::stitch`]) its edge follows that node's, as drawn, so it differs there from the
/// chunk's own full-detail surface (which the plugin's colliders take, rebuilding such a chunk
/// unstitched); shapes from neighbouring unstitched chunks join exactly.
#[derive(Reflect, Clone, Debug, Default, PartialEq)]
#[reflect(Default, Debug, Clone, PartialEq)]
pub struct VolumeGround {
    /// Vertex positions relative to the chunk's origin ([`HeightGrid::origin`], height 0).
    pub positions: Vec<[f32; 3]>,
    /// Three indices into `positions` per triangle, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

impl VolumeGround {
    /// `chunk`'s surface where the world's volume shaped it, its positions and triangles taken
    /// out of it; `None` where it is the height field.
    pub(crate) fn take(chunk: &mut biome_core::ChunkData) -> Option<Self> {
        chunk.volume.then(|| Self {
            positions: std::mem::take(&mut chunk.positions),
            indices: std::mem::take(&mut chunk.indices),
        })
    }
}

/// Marks the water surface of a chunk that reaches below sea level.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWater;

/// Marks the water of the rivers and lakes on a terrain node (a child of its [`BiomeChunk`]).
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeRiverWater;

/// A terrain entity fading in over the nodes it replaces, which stay until it is in; removed
/// when the fade ends. Where the renderer draws it, its own material dithers it in.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct ChunkFade {
    /// How far it has faded in, from 0 to 1.
    pub progress: f32,
}

/// A terrain entity replaced by nodes fading in over it: still drawn until their fade ends, then
/// hidden and despawned.
#[derive(Component, Reflect, Clone, Copy, Debug, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone, PartialEq)]
pub struct ChunkReplaced;

/// Terrain streams around every entity with this component (usually the camera). Several
/// anchors (split screen, a far-away quest marker) each get their own view out to the horizon.
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeWorldAnchor;

/// A terrain entity appeared: a node built for the first time, at another level or stitch, or
/// rebuilt after a settings change. The entity it replaces (if any) stays until this one and its
/// neighbours cover its area; its [`ChunkDespawned`] comes then.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkSpawned {
    /// The node: a chunk at level 0, 2^level × 2^level chunks above.
    pub node: NodeCoord,
    /// The layout the node's coordinates are in.
    pub layout: ChunkLayout,
    /// Its entity, which carries a [`BiomeChunk`].
    pub entity: Entity,
}

/// A terrain entity went away: past the horizon, replaced (by another level, stitch, settings or
/// layout), or despawned by game code (the node is then built again if it is still wanted). The
/// entity is the key; `node` and `layout` say which area it covered.
#[derive(Message, Reflect, Clone, Copy, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkDespawned {
    /// The node it showed.
    pub node: NodeCoord,
    /// The layout the node's coordinates are in.
    pub layout: ChunkLayout,
    /// The entity that was despawned.
    pub entity: Entity,
}

/// A node's build failed (the core refused it or panicked): the area keeps what covered it
/// before, if anything, until the settings change. The game keeps running; the failure is also
/// logged.
#[derive(Message, Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ChunkFailed {
    /// The node.
    pub node: NodeCoord,
    /// The layout the node's coordinates are in.
    pub layout: ChunkLayout,
    /// Why, as the error or the panic said it.
    pub reason: String,
}

/// What the streamer is doing, for panels, benchmarks and tests.
#[derive(Resource, Reflect, Clone, Debug, Default)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct BiomeWorldStats {
    /// Terrain nodes shown (fading in or not).
    pub loaded: usize,
    /// Terrain nodes shown per level of detail (index 0: full-detail chunks).
    pub loaded_per_level: Vec<usize>,
    /// Nodes being built on the async compute pool.
    pub in_flight: usize,
    /// Nodes wanted and waiting for a task.
    pub queued: usize,
    /// Nodes built and not shown yet: spawning, or spawned hidden and waiting for the rest of
    /// their swap.
    pub ready: usize,
    /// Terrain entities replaced and not gone yet: drawn under a fade, or hidden and despawning
    /// over the next frames within the budget.
    pub retiring: usize,
    /// Terrain entities fading in over what they replace (see
    /// [`BiomeWorldStreaming::fade_seconds`](crate::BiomeWorldStreaming::fade_seconds)).
    pub fading: usize,
    /// Nodes shown since start.
    pub applied_total: u64,
    /// Wanted nodes whose build failed at the current settings (see [`ChunkFailed`]).
    pub failed: usize,
    /// Terrain triangles alive.
    pub triangles: usize,
    /// Far-forest triangles alive.
    pub forest_triangles: usize,
    /// Bytes of terrain mesh data alive.
    pub mesh_bytes: usize,
    /// Tree entities alive.
    pub trees: usize,
    /// Main-thread time of the last frame's planning and task starts.
    pub stream_time: Duration,
    /// Main-thread time of the last frame's spawning, swaps, fades and despawning.
    pub apply_time: Duration,
}

impl BiomeWorldStats {
    /// [`DiagnosticsStore`](bevy::diagnostic::DiagnosticsStore) path of
    /// [`BiomeWorldStats::stream_time`], milliseconds.
    pub const STREAM_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/terrain/stream_time");
    /// Diagnostics path of [`BiomeWorldStats::apply_time`], milliseconds.
    pub const APPLY_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/terrain/apply_time");
    /// Diagnostics path of each node build's time off the main thread, milliseconds (the last
    /// 256 kept).
    pub const BUILD_TIME: &DiagnosticPath =
        &DiagnosticPath::const_new("biome_world/terrain/build_time");
    /// Diagnostics path of [`BiomeWorldStats::loaded`].
    pub const NODES: &DiagnosticPath = &DiagnosticPath::const_new("biome_world/terrain/nodes");

    pub(crate) const DIAGNOSTICS: KindDiagnostics = KindDiagnostics {
        stream_time: Self::STREAM_TIME,
        apply_time: Self::APPLY_TIME,
        build_time: Self::BUILD_TIME,
        shown: Self::NODES,
    };

    /// Whether every wanted node is built and applied at the current settings, and nothing
    /// waits to go.
    #[must_use]
    pub fn is_idle(&self) -> bool {
        self.in_flight == 0
            && self.queued == 0
            && self.ready == 0
            && self.retiring == 0
            && self.fading == 0
    }
}

/// A node built off the main thread, ready to become entities.
pub(crate) struct BuiltNode {
    mesh: Mesh,
    /// The far forest of a coarse node.
    forest: Option<Mesh>,
    /// A chunk's ground, for physics.
    ground: Option<ChunkGround>,
    trees: Vec<TreeInstance>,
    below_sea: bool,
    /// The water of its rivers and lakes.
    river_water: Option<Mesh>,
}

/// A terrain entity, with what it costs.
pub(crate) struct TerrainNode {
    entity: Entity,
    forest: Option<Entity>,
    /// The node it shows, and the layout that is in.
    node: NodeCoord,
    layout: ChunkLayout,
    pub(crate) triangles: usize,
    pub(crate) forest_triangles: usize,
    pub(crate) bytes: usize,
    pub(crate) trees: usize,
    /// The terrain material it shares with the nodes of its settings (none without a renderer).
    shared: Option<Handle<TerrainMaterial>>,
    /// Its own material while it fades in.
    fading: Option<Handle<TerrainMaterial>>,
}

/// Terrain as a kind of the streamer.
#[derive(Default)]
pub(crate) struct TerrainKind;

impl StreamKind for TerrainKind {
    type Built = BuiltNode;
    type Node = TerrainNode;

    fn build(
        &mut self,
        world: &mut World,
        key: BuildKey,
    ) -> impl FnOnce(&AtomicBool) -> Result<BuiltNode, ChunkError> + Send + 'static {
        let mesh_usage = world.resource::<ChunkMeshOptions>().usage();
        let colors = if world.contains_resource::<Assets<TerrainMaterial>>() {
            TerrainColors::PerPixel
        } else {
            TerrainColors::Final
        };
        let state = world.resource::<BiomeWorldState>();
        let (generator, layout, generation) = (
            state.generator().clone(),
            state.settings().layout,
            state.generation(),
        );
        let stride = state.settings().far_forest_stride(key.node.level);
        let coarse_trees = key.node.level > 0 && state.settings().tree_entities_at(key.node.level);
        let interior_block = state
            .settings()
            .interior_block_at(key.node.level, state.generator());
        let sizes = TreeSizes::in_world(world);
        let splat = world.resource::<splat::TerrainSplatMap>().0.clone();
        // The physics plugin's share, where its colliders and the terrain lend each other
        // densities.
        let slot = world
            .get_resource_mut::<DensityShare>()
            .filter(|_| key.node.level == 0)
            .map(|mut share| share.slot(key.node, generation, key.revision));
        move |cancel: &AtomicBool| {
            let mut data = match slot {
                Some(slot) => {
                    let density = slot.get_or_sample(DensityUser::Terrain, || {
                        generator.node_density(key.node, &layout, cancel)
                    })?;
                    generator.build_node_from(key.node, &layout, key.stitch, &density, cancel)?
                }
                None => generator.build_node(key.node, &layout, key.stitch, cancel)?,
            };
            data.coarsen_interior(interior_block);
            let mesh = chunk_mesh(&data, mesh_usage, colors, splat.as_deref());
            let river_water = river_water_mesh(std::mem::take(&mut data.river_water), mesh_usage);
            // The mesh is made: a volume chunk's ground takes its triangles.
            let volume = VolumeGround::take(&mut data);
            // The node's trees on every `stride`-th grid cell, relative to its origin (standing
            // at full-detail ground heights).
            let node_trees = |stride: u32| -> Vec<TreeInstance> {
                let (min, size) = (data.origin, key.node.size(&layout));
                generator
                    .trees_in_rect_every(min, [min[0] + size, min[1] + size], stride)
                    .iter()
                    .map(|tree| tree.relative_to(min))
                    .collect()
            };
            let forest = stride.and_then(|stride| {
                sizes.forest_mesh(&node_trees(stride), stride as f32, mesh_usage)
            });
            // The core gives chunks their trees; coarser nodes that carry tree entities get
            // theirs here.
            let trees = if coarse_trees {
                node_trees(1)
            } else {
                data.trees
            };
            let ground = (key.node.level == 0).then(|| ChunkGround {
                volume,
                heights: data.heights,
                trees: trees.clone(),
            });
            Ok(BuiltNode {
                mesh,
                forest,
                ground,
                below_sea: data.min_height < 0.0,
                river_water,
                trees,
            })
        }
    }

    fn spawn(&mut self, world: &mut World, key: BuildKey, built: BuiltNode) -> TerrainNode {
        spawn_node(world, key, built)
    }

    fn root(node: &TerrainNode) -> Entity {
        node.entity
    }

    fn show(&mut self, world: &mut World, key: BuildKey, node: &mut TerrainNode, fade: bool) {
        if fade {
            node.fading = node.shared.as_ref().and_then(|shared| {
                let mut materials = world.get_resource_mut::<Assets<TerrainMaterial>>()?;
                TerrainMaterials::fading_material(shared, &mut materials)
            });
            if let Some(material) = &node.fading {
                set_material(world, node, material.clone());
            }
        }
        let mut entity = world.entity_mut(node.entity);
        entity.insert(Visibility::Inherited);
        if fade {
            entity.insert(ChunkFade { progress: 0.0 });
        }
        world.write_message(ChunkSpawned {
            node: key.node,
            layout: node.layout,
            entity: node.entity,
        });
        let (holder, layout, generation) = (GroundHolder::Terrain, node.layout, key.generation);
        areas::hold(world, holder, key.node, layout, node.entity, generation);
    }

    fn fade(&mut self, world: &mut World, node: &mut TerrainNode, progress: f32) {
        if progress < 1.0 {
            if let Some(mut fade) = world.get_mut::<ChunkFade>(node.entity) {
                fade.progress = progress;
            }
            if let (Some(material), Some(mut materials)) = (
                &node.fading,
                world.get_resource_mut::<Assets<TerrainMaterial>>(),
            ) {
                // The shared material's splat layers, which may have changed since the copy.
                let splat = (node.shared.as_ref())
                    .and_then(|shared| materials.get(shared))
                    .map(|shared| {
                        (
                            shared.extension.surface.splat,
                            shared.extension.splat_layers.clone(),
                        )
                    });
                if let Some(mut material) = materials.get_mut(material) {
                    material.extension.surface.fade = progress;
                    if let Some((uniform, layers)) = splat {
                        material.extension.surface.splat = uniform;
                        material.extension.splat_layers = layers;
                    }
                }
            }
            return;
        }
        if let Ok(mut entity) = world.get_entity_mut(node.entity) {
            entity.remove::<ChunkFade>();
        }
        if let (Some(shared), Some(fading)) = (node.shared.clone(), node.fading.clone()) {
            restore_material(world, node, &fading, shared);
        }
        drop_material(world, node.fading.take());
    }

    fn replaced(&mut self, world: &mut World, node: &mut TerrainNode) {
        if let Ok(mut entity) = world.get_entity_mut(node.entity) {
            entity.insert(ChunkReplaced);
        }
    }

    fn hide(&mut self, world: &mut World, node: &mut TerrainNode) {
        if let Ok(mut entity) = world.get_entity_mut(node.entity) {
            entity.insert(Visibility::Hidden);
        }
        areas::release(world, GroundHolder::Terrain, node.node, node.entity);
    }

    fn despawn_part(&mut self, world: &mut World, key: BuildKey, node: &mut TerrainNode) -> bool {
        if let Ok(entity) = world.get_entity_mut(node.entity) {
            entity.despawn();
        }
        drop_material(world, node.fading.take());
        world.write_message(ChunkDespawned {
            node: key.node,
            layout: node.layout,
            entity: node.entity,
        });
        true
    }

    fn lost(&mut self, world: &mut World, key: BuildKey, mut node: TerrainNode) {
        areas::release(world, GroundHolder::Terrain, node.node, node.entity);
        self.despawn_part(world, key, &mut node);
    }

    fn failed(&mut self, world: &mut World, key: BuildKey, reason: &str) {
        error!("biome world node {:?} failed to build: {reason}", key.node);
        let layout = world.resource::<BiomeWorldState>().settings().layout;
        world.write_message(ChunkFailed {
            node: key.node,
            layout,
            reason: reason.to_owned(),
        });
    }

    fn planned(&mut self, world: &mut World, planner: &ChunkPlanner) {
        // A density stays shared while a build holds it or this terrain has still to build its
        // chunk at full detail: a collider's pass waits there for the terrain's build to take it.
        let generation = world.resource::<BiomeWorldState>().generation();
        if let Some(mut share) = world.get_resource_mut::<DensityShare>() {
            share.prune(generation, |node| {
                node.level == 0 && planner.wanted_key(node).is_some_and(|k| planner.wants(&k))
            });
        }
    }
}

/// Gives the terrain entity of `node` and its far forest `material`.
fn set_material(world: &mut World, node: &TerrainNode, material: Handle<TerrainMaterial>) {
    // The terrain and its far forest share the material.
    for entity in std::iter::once(node.entity).chain(node.forest) {
        if let Ok(mut entity) = world.get_entity_mut(entity) {
            entity.insert(MeshMaterial3d(material.clone()));
        }
    }
}

/// Gives `shared` back to the parts of `node` that still carry `fading`: a material the game
/// put on one since ([`OwnTerrainMaterialPlugin`]) stays.
fn restore_material(
    world: &mut World,
    node: &TerrainNode,
    fading: &Handle<TerrainMaterial>,
    shared: Handle<TerrainMaterial>,
) {
    for entity in std::iter::once(node.entity).chain(node.forest) {
        if let Ok(mut entity) = world.get_entity_mut(entity)
            && entity
                .get::<MeshMaterial3d<TerrainMaterial>>()
                .is_some_and(|material| material.0 == *fading)
        {
            entity.insert(MeshMaterial3d(shared.clone()));
        }
    }
}

/// Removes a fading node's own material.
fn drop_material(world: &mut World, material: Option<Handle<TerrainMaterial>>) {
    if let (Some(material), Some(mut materials)) = (
        material,
        world.get_resource_mut::<Assets<TerrainMaterial>>(),
    ) {
        materials.remove(&material);
    }
}

/// Spawns a built node, hidden: the terrain entity with its water surface and trees as children.
fn spawn_node(world: &mut World, key: BuildKey, built: BuiltNode) -> TerrainNode {
    let state = world.resource::<BiomeWorldState>();
    let (layout, generation) = (state.settings().layout, state.generation());
    let (water, trees) = (state.settings().water, state.settings().trees);
    let generator = state.generator().clone();
    let shared = world.resource_scope(|world, mut assets: Mut<TerrainMaterials>| {
        let mut materials = world.get_resource_mut::<Assets<TerrainMaterial>>()?;
        Some(assets.terrain_material(generator.settings(), layout.style, &mut materials))
    });
    let origin = key.node.origin(&layout);
    let bytes = mesh_bytes(&built.mesh);
    let triangles = built.mesh.indices().map_or(0, |i| i.len() / 3);
    let mesh = world.resource_mut::<Assets<Mesh>>().add(built.mesh);
    let forest_triangles = built.forest.as_ref().map_or(0, |m| m.count_vertices() / 3);
    let forest = built
        .forest
        .map(|forest| world.resource_mut::<Assets<Mesh>>().add(forest));
    let place = world
        .resource::<WorldFrame>()
        .place(DVec3::new(origin[0], 0.0, origin[1]));
    let mut terrain = world.spawn((
        BiomeChunk {
            node: key.node,
            layout,
            stitch: key.stitch,
            generation,
            revision: key.revision,
        },
        Mesh3d(mesh),
        Visibility::Hidden,
    ));
    place.insert(&mut terrain);
    if let Some(ground) = built.ground {
        terrain.insert(ground);
    }
    let entity = terrain.id();
    // The forest shares the terrain's material: its vertex colours are final (it has no UVs),
    // and it fades with the node.
    let forest = forest.map(|mesh| {
        world
            .spawn((
                BiomeForest,
                Mesh3d(mesh),
                Transform::IDENTITY,
                ChildOf(entity),
            ))
            .id()
    });
    for part in std::iter::once(entity).chain(forest) {
        let mut part = world.entity_mut(part);
        match &shared {
            Some(material) => part.insert(MeshMaterial3d(material.clone())),
            None => {
                let material = part.world().resource::<TerrainMaterials>().terrain.clone();
                part.insert(MeshMaterial3d(material))
            }
        };
    }
    if water && built.below_sea {
        let (quad, material) = world.resource_scope(|world, mut assets: Mut<TerrainMaterials>| {
            let quad = assets.water_quad(
                key.node.size(&layout) as f32,
                &mut world.resource_mut::<Assets<Mesh>>(),
            );
            (quad, assets.water.clone())
        });
        world.spawn((
            BiomeWater,
            Mesh3d(quad),
            MeshMaterial3d(material),
            Transform::IDENTITY,
            ChildOf(entity),
        ));
    }
    if water && let Some(river) = built.river_water {
        let mesh = world.resource_mut::<Assets<Mesh>>().add(river);
        let material = world.resource::<TerrainMaterials>().water.clone();
        world.spawn((
            BiomeRiverWater,
            Mesh3d(mesh),
            MeshMaterial3d(material),
            Transform::IDENTITY,
            ChildOf(entity),
        ));
    }
    let mut tree_count = 0;
    if trees
        && !built.trees.is_empty()
        && let Some(models) = world.get_resource::<TreeModels>()
    {
        let models = models.clone();
        let instances = built.trees.iter().map(|tree| models.instance(tree));
        tree_count = spawn_instances(world, entity, instances).len();
    }
    TerrainNode {
        entity,
        forest,
        node: key.node,
        layout,
        triangles,
        forest_triangles,
        bytes,
        trees: tree_count,
        shared,
        fading: None,
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::message::MessageCursor;

    use super::*;
    use crate::settings::{BiomeWorldSettings, BiomeWorldStreaming};

    /// A failed build is logged and told as a [`ChunkFailed`] with the node, the layout and the
    /// reason (the streamer reports each failure once and retries it only with new settings:
    /// `stream::tests`).
    #[test]
    fn a_failed_build_is_a_chunk_failed_message() {
        let mut world = World::new();
        world.init_resource::<Messages<ChunkFailed>>();
        let settings = BiomeWorldSettings::default();
        world.insert_resource(BiomeWorldState::new(
            &settings,
            &BiomeWorldStreaming::default(),
        ));
        let key = BuildKey {
            node: NodeCoord::new(2, -3, 5),
            stitch: Stitch::NONE,
            generation: 0,
            revision: 0,
        };
        TerrainKind.failed(&mut world, key, "refused");
        let messages = world.resource::<Messages<ChunkFailed>>();
        let read: Vec<ChunkFailed> = MessageCursor::default().read(messages).cloned().collect();
        assert_eq!(
            read,
            [ChunkFailed {
                node: key.node,
                layout: settings.layout,
                reason: "refused".to_owned(),
            }]
        );
    }
}
