//! Trees: what each species looks like ([`TreeModels`]: by default one low-poly mesh and one
//! material per species, built in code and shared by every tree of that species, so the renderer
//! batches them; a game can give any species its own mesh or glTF scene) and how big it is
//! ([`TreeSize`]), which trunk colliders and far forests follow. Trees are child entities of their
//! terrain node and leave with it. Coarser nodes carry far forests instead: one merged mesh per
//! node of a thinned subset of the same trees, each a three-sided spire as wide and tall as its
//! tree, in its crown's colour.

use std::sync::{Arc, LazyLock};

use bevy::asset::RenderAssetUsages;
use bevy::math::primitives::{Cone, Cuboid, Cylinder, Sphere};
use bevy::mesh::{ConeAnchor, CylinderAnchor, Mesh, MeshBuilder, Meshable, VertexAttributeValues};
use bevy::prelude::*;
use bevy::world_serialization::WorldAsset;
use biome_core::TreeInstance;
use biome_core::TreeSpecies;

use crate::BiomeWorldSystems;
use crate::models::{Instance, ModelLook, ShownLook, relook};
use crate::settings::BiomeWorldState;

/// The trees' models and components: part of [`crate::BiomeWorldPlugin`]. A game's own
/// [`TreeModels`], inserted before the app starts, is kept; one inserted or changed later gives
/// every tree its new look, and new sizes rebuild the world (far forests and trunk colliders
/// follow them).
#[derive(Clone, Copy, Debug, Default)]
pub struct BiomeTreesPlugin;

impl Plugin for BiomeTreesPlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<BiomeTree>()
            .register_type::<BiomeForest>()
            .register_type::<TreeModels>()
            .add_systems(
                Update,
                take_tree_models
                    .in_set(BiomeWorldSystems::Settings)
                    .run_if(resource_changed::<TreeModels>),
            );
    }

    fn finish(&self, app: &mut App) {
        if !app.world().contains_resource::<TreeModels>() {
            let world = app.world_mut();
            let models =
                world.resource_scope(|world, mut materials: Mut<Assets<StandardMaterial>>| {
                    TreeModels::procedural(
                        &mut world.resource_mut::<Assets<Mesh>>(),
                        &mut materials,
                    )
                });
            world.insert_resource(models);
        }
        let sizes = TreeSizes::of(app.world().resource::<TreeModels>());
        app.insert_resource(sizes);
    }
}

/// Gives every tree its species' current look; new sizes go to the builds and rebuild the world.
fn take_tree_models(
    models: Res<TreeModels>,
    mut sizes: ResMut<TreeSizes>,
    mut state: ResMut<BiomeWorldState>,
    trees: Query<(Entity, &BiomeTree, ShownLook)>,
    mut commands: Commands,
) {
    for (entity, tree, shown) in &trees {
        relook(&mut commands, entity, shown, &models.get(tree.0).look);
    }
    let taken = TreeSizes::of(&models);
    if taken != *sizes {
        *sizes = taken;
        state.rebuild();
    }
}

/// Marks the far-forest mesh of a coarse terrain node (a child of its [`crate::BiomeChunk`]).
#[derive(Component, Reflect, Clone, Copy, Debug, Default)]
#[reflect(Component, Default, Debug, Clone)]
pub struct BiomeForest;

/// How big a tree of one species is at scale 1 (world units, metres) and its colour from afar:
/// trunk colliders are its trunk, far forests draw it as a spire of its crown's width and its
/// height.
#[derive(Clone, Copy, Debug, PartialEq, Reflect)]
#[reflect(Debug, Clone, PartialEq)]
pub struct TreeSize {
    /// The trunk's radius, which colliders stand in the way.
    pub trunk_radius: f32,
    /// The trunk's height from the ground.
    pub trunk_height: f32,
    /// How far the crown reaches from the trunk's axis.
    pub crown_radius: f32,
    /// The tree's height from the ground.
    pub height: f32,
    /// The crown's colour, which far forests draw it in.
    pub far_color: Color,
}

impl TreeSize {
    /// The size of `mesh` (standing on `y = 0` with its trunk on the `y` axis) with the given
    /// trunk: its crown radius and height from its positions, its far colour the average vertex
    /// colour of its upper half (white without vertex colours: set `far_color` then). `None`
    /// for a mesh without positions.
    #[must_use]
    pub fn measure(mesh: &Mesh, trunk_radius: f32, trunk_height: f32) -> Option<Self> {
        let points = mesh_points(mesh, Mat4::IDENTITY, None)?;
        Self::of_points(&points, trunk_radius, trunk_height)
    }

    /// The size of a loaded scene (a glTF tree's `Scene0`, standing on `y = 0` with its trunk on
    /// the `y` axis) with the given trunk: its meshes placed by their transforms, the far colour
    /// the average of its upper half's material colours (times vertex colours where they have
    /// them). `None` for a scene without meshes with positions, or whose meshes are not in
    /// `meshes`.
    #[must_use]
    pub fn measure_scene(
        scene: &WorldAsset,
        meshes: &Assets<Mesh>,
        materials: &Assets<StandardMaterial>,
        trunk_radius: f32,
        trunk_height: f32,
    ) -> Option<Self> {
        let world = &scene.world;
        let mut parts =
            world.try_query::<(Entity, &Mesh3d, Option<&MeshMaterial3d<StandardMaterial>>)>()?;
        let mut points = Vec::new();
        for (entity, mesh, material) in parts.iter(world) {
            // The part's place in the scene: its transform and its ancestors'.
            let mut placed = Mat4::IDENTITY;
            let mut at = Some(entity);
            while let Some(here) = at {
                if let Some(transform) = world.get::<Transform>(here) {
                    placed = transform.to_matrix() * placed;
                }
                at = world.get::<ChildOf>(here).map(ChildOf::parent);
            }
            let color = material
                .and_then(|material| materials.get(&material.0))
                .map_or(Vec4::ONE, |material| {
                    material.base_color.to_linear().to_vec4()
                });
            points.extend(mesh_points(meshes.get(&mesh.0)?, placed, Some(color))?);
        }
        Self::of_points(&points, trunk_radius, trunk_height)
    }

    /// The size of a tree made of `points` (position and linear colour).
    fn of_points(points: &[(Vec3, Vec4)], trunk_radius: f32, trunk_height: f32) -> Option<Self> {
        if points.is_empty() {
            return None;
        }
        let crown_radius = points
            .iter()
            .map(|(p, _)| p.x.hypot(p.z))
            .fold(0.0, f32::max);
        let height = points.iter().map(|(p, _)| p.y).fold(0.0, f32::max);
        // The crown's colour: from afar the trunk hardly shows.
        let (sum, count) = points
            .iter()
            .filter(|(p, _)| p.y > height * 0.45)
            .fold((Vec4::ZERO, 0.0), |(sum, count), (_, c)| {
                (sum + *c, count + 1.0)
            });
        Some(Self {
            trunk_radius,
            trunk_height,
            crown_radius,
            height,
            far_color: Color::LinearRgba(LinearRgba::from_vec4(sum / f32::max(count, 1.0))),
        })
    }
}

/// The positions of `mesh` placed by `placed`, each with its vertex colour times `tint` (white
/// where either is missing); `None` without positions.
fn mesh_points(mesh: &Mesh, placed: Mat4, tint: Option<Vec4>) -> Option<Vec<(Vec3, Vec4)>> {
    let Some(VertexAttributeValues::Float32x3(positions)) =
        mesh.attribute(Mesh::ATTRIBUTE_POSITION)
    else {
        return None;
    };
    let colors = match mesh.attribute(Mesh::ATTRIBUTE_COLOR) {
        Some(VertexAttributeValues::Float32x4(colors)) => Some(colors),
        _ => None,
    };
    let tint = tint.unwrap_or(Vec4::ONE);
    Some(
        positions
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let color = colors.map_or(Vec4::ONE, |c| Vec4::from_array(c[k]));
                (placed.transform_point3(Vec3::from_array(*p)), color * tint)
            })
            .collect(),
    )
}

/// One species' model: its look and its size.
#[derive(Clone, Debug, PartialEq, Reflect)]
#[reflect(Debug, Clone, PartialEq)]
pub struct TreeModel {
    /// What every tree of the species shows.
    pub look: ModelLook,
    /// How big it is at scale 1.
    pub size: TreeSize,
}

/// What every tree species looks like and how big it is: the procedural low-poly trees unless a
/// game sets its own. Insert it (or change it) at any time:
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_biome_world::{ModelLook, TreeModel, TreeModels, TreeSize};
/// # use bevy_biome_world::biome_core::TreeSpecies;
/// fn oak_trees(assets: Res<AssetServer>, mut models: ResMut<TreeModels>) {
///     let oak = TreeModel {
///         look: ModelLook::Scene(assets.load(GltfAssetLabel::Scene(0).from_asset("oak.glb"))),
///         size: TreeSize {
///             trunk_radius: 0.3,
///             trunk_height: 2.5,
///             crown_radius: 2.2,
///             height: 6.0,
///             far_color: Color::srgb(0.2, 0.4, 0.15),
///         },
///     };
///     models.set(TreeSpecies::Broadleaf, oak);
/// }
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct TreeModels {
    /// Indexed by [`TreeSpecies::index`].
    species: Vec<TreeModel>,
}

impl TreeModels {
    /// The built-in low-poly trees, their meshes and materials added to `meshes` and
    /// `materials`.
    #[must_use]
    pub fn procedural(meshes: &mut Assets<Mesh>, materials: &mut Assets<StandardMaterial>) -> Self {
        let species = TreeSpecies::ALL
            .iter()
            .map(|&species| {
                let mesh = tree_mesh(species);
                let material = materials.add(StandardMaterial {
                    perceptual_roughness: 0.95,
                    reflectance: 0.2,
                    // Cactus skin has a little sheen; leaves and bark do not.
                    metallic: if species == TreeSpecies::Cactus {
                        0.05
                    } else {
                        0.0
                    },
                    ..default()
                });
                TreeModel {
                    size: procedural_size(species, &mesh),
                    look: ModelLook::Mesh {
                        mesh: meshes.add(mesh),
                        material,
                    },
                }
            })
            .collect();
        Self { species }
    }

    /// The model of `species`.
    #[must_use]
    pub fn get(&self, species: TreeSpecies) -> &TreeModel {
        &self.species[species.index()]
    }

    /// Gives `species` its own model.
    pub fn set(&mut self, species: TreeSpecies, model: TreeModel) {
        self.species[species.index()] = model;
    }

    /// The instance of one tree standing at `tree` on its node.
    pub(crate) fn instance(&self, tree: &TreeInstance) -> Instance<'_, BiomeTree> {
        let look = &self.get(tree.species).look;
        Instance::placed(
            BiomeTree(tree.species),
            tree.position,
            tree.yaw,
            tree.scale,
            look,
        )
    }
}

/// The size of a built-in tree, measured from its mesh.
fn procedural_size(species: TreeSpecies, mesh: &Mesh) -> TreeSize {
    let (trunk_radius, trunk_height) = procedural_trunk(species);
    TreeSize::measure(mesh, trunk_radius, trunk_height).expect("tree meshes have positions")
}

/// Every species' size, as the builds use them (off the main thread): those of the
/// [`TreeModels`] in use, or of the built-in trees in apps without the trees' plugin.
#[derive(Resource, Clone, Debug, PartialEq)]
pub(crate) struct TreeSizes(Arc<[TreeSize]>);

impl TreeSizes {
    fn of(models: &TreeModels) -> Self {
        Self(models.species.iter().map(|model| model.size).collect())
    }

    /// The sizes `world`'s builds use.
    pub(crate) fn in_world(world: &World) -> Self {
        static PROCEDURAL: LazyLock<TreeSizes> = LazyLock::new(|| {
            TreeSizes(
                TreeSpecies::ALL
                    .iter()
                    .map(|&species| procedural_size(species, &tree_mesh(species)))
                    .collect(),
            )
        });
        world.get_resource::<Self>().unwrap_or(&PROCEDURAL).clone()
    }

    /// The size of `species`.
    pub(crate) fn get(&self, species: TreeSpecies) -> &TreeSize {
        &self.0[species.index()]
    }

    /// One mesh of `trees` (positions relative to the node) as spires, `widen` times wider than
    /// their trees (a thinned forest keeps its cover); `None` without trees.
    #[must_use]
    pub(crate) fn forest_mesh(
        &self,
        trees: &[TreeInstance],
        widen: f32,
        usage: RenderAssetUsages,
    ) -> Option<Mesh> {
        if trees.is_empty() {
            return None;
        }
        let mut positions = Vec::with_capacity(trees.len() * 9);
        let mut normals = Vec::with_capacity(trees.len() * 9);
        let mut colors = Vec::with_capacity(trees.len() * 9);
        for tree in trees {
            let size = self.get(tree.species);
            let color = size.far_color.to_linear().to_f32_array();
            let base = Vec3::from_array(tree.position);
            let apex = base + Vec3::Y * size.height * tree.scale;
            let radius = size.crown_radius * tree.scale * widen;
            let corner = |k: f32| {
                let angle = tree.yaw + k * std::f32::consts::TAU / 3.0;
                base + Vec3::new(angle.cos(), 0.0, angle.sin()) * radius
            };
            let corners = [corner(0.0), corner(1.0), corner(2.0)];
            for k in 0..3 {
                let (a, b) = (corners[k], corners[(k + 1) % 3]);
                // Counter-clockwise seen from outside.
                let normal = (apex - a).cross(b - a).normalize_or_zero();
                for p in [a, apex, b] {
                    positions.push(p.to_array());
                    normals.push(normal.to_array());
                    colors.push(color);
                }
            }
        }
        Some(
            Mesh::new(bevy::mesh::PrimitiveTopology::TriangleList, usage)
                .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
                .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
                .with_inserted_attribute(Mesh::ATTRIBUTE_COLOR, colors),
        )
    }
}

/// Marks a tree entity, with its species.
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct BiomeTree(pub TreeSpecies);

const BARK: Color = Color::srgb(0.36, 0.25, 0.16);
const PALE_BARK: Color = Color::srgb(0.86, 0.84, 0.78);
const NEEDLES: Color = Color::srgb(0.13, 0.30, 0.17);
const SNOW: Color = Color::srgb(0.92, 0.95, 0.97);
const LEAVES: Color = Color::srgb(0.22, 0.45, 0.16);
const LIGHT_LEAVES: Color = Color::srgb(0.45, 0.62, 0.22);
const SWAMP_LEAVES: Color = Color::srgb(0.27, 0.36, 0.16);
const DRY_LEAVES: Color = Color::srgb(0.46, 0.50, 0.20);
const FRONDS: Color = Color::srgb(0.30, 0.55, 0.18);
const CACTUS: Color = Color::srgb(0.28, 0.52, 0.26);

/// One part of a tree or a scattered object: a mesh, where it goes and its colour.
pub(crate) fn part(mesh: Mesh, transform: Transform, color: Color) -> Mesh {
    let mut mesh = mesh.transformed_by(transform);
    // Primitive meshes carry UVs and tangents the trees do not need; keep what every part shares.
    mesh.remove_attribute(Mesh::ATTRIBUTE_UV_0);
    let count = mesh.count_vertices();
    let linear = color.to_linear().to_f32_array();
    mesh.insert_attribute(
        Mesh::ATTRIBUTE_COLOR,
        VertexAttributeValues::Float32x4(vec![linear; count]),
    );
    mesh
}

/// The trunk of a built-in `species` at scale 1: radius and height.
fn procedural_trunk(species: TreeSpecies) -> (f32, f32) {
    match species {
        TreeSpecies::Conifer | TreeSpecies::SnowyConifer => (0.22, 2.0),
        TreeSpecies::Broadleaf => (0.25, 2.6),
        TreeSpecies::Birch => (0.14, 3.4),
        TreeSpecies::SwampTree => (0.35, 1.8),
        TreeSpecies::Acacia => (0.16, 3.0),
        TreeSpecies::Palm => (0.16, 5.0),
        TreeSpecies::Cactus => (0.28, 2.6),
    }
}

fn trunk(species: TreeSpecies, color: Color) -> Mesh {
    let (radius, height) = procedural_trunk(species);
    part(
        Cylinder::new(radius, height)
            .mesh()
            .resolution(6)
            .anchor(CylinderAnchor::Bottom)
            .build(),
        Transform::IDENTITY,
        color,
    )
}

fn cone(radius: f32, height: f32, base: f32, color: Color) -> Mesh {
    part(
        Cone { radius, height }
            .mesh()
            .resolution(7)
            .anchor(ConeAnchor::Base)
            .build(),
        Transform::from_xyz(0.0, base, 0.0),
        color,
    )
}

pub(crate) fn blob(radius: f32, center: Vec3, squash: Vec3, color: Color) -> Mesh {
    let sphere = Sphere::new(radius)
        .mesh()
        .ico(1)
        .expect("1 subdivision is in range");
    part(
        sphere,
        Transform::from_translation(center).with_scale(squash),
        color,
    )
}

pub(crate) fn merged(parts: Vec<Mesh>) -> Mesh {
    let mut parts = parts.into_iter();
    let mut mesh = parts.next().expect("a mesh has parts");
    for other in parts {
        mesh.merge(&other).expect("parts share their attributes");
    }
    // Shared by every tree or object on screen; the main world never reads it again.
    mesh.asset_usage = RenderAssetUsages::RENDER_WORLD;
    mesh
}

/// The low-poly mesh of a species, about 1 unit of scale being a tree of ordinary size (metres).
#[must_use]
pub(crate) fn tree_mesh(species: TreeSpecies) -> Mesh {
    match species {
        TreeSpecies::Conifer => merged(vec![
            trunk(species, BARK),
            cone(1.7, 3.2, 1.4, NEEDLES),
            cone(1.3, 2.8, 3.0, NEEDLES),
            cone(0.9, 2.4, 4.6, NEEDLES),
        ]),
        TreeSpecies::SnowyConifer => merged(vec![
            trunk(species, BARK),
            cone(1.7, 3.2, 1.4, NEEDLES),
            cone(1.3, 2.8, 3.0, SNOW),
            cone(0.9, 2.4, 4.6, SNOW),
        ]),
        TreeSpecies::Broadleaf => merged(vec![
            trunk(species, BARK),
            blob(
                1.9,
                Vec3::new(0.0, 3.9, 0.0),
                Vec3::new(1.0, 0.85, 1.0),
                LEAVES,
            ),
            blob(1.2, Vec3::new(0.9, 3.3, 0.4), Vec3::ONE, LEAVES),
        ]),
        TreeSpecies::Birch => merged(vec![
            trunk(species, PALE_BARK),
            blob(
                1.1,
                Vec3::new(0.0, 4.4, 0.0),
                Vec3::new(1.0, 1.6, 1.0),
                LIGHT_LEAVES,
            ),
        ]),
        TreeSpecies::SwampTree => merged(vec![
            trunk(species, BARK),
            blob(
                2.3,
                Vec3::new(0.0, 2.6, 0.0),
                Vec3::new(1.0, 0.45, 1.0),
                SWAMP_LEAVES,
            ),
            cone(1.6, 1.6, 1.2, SWAMP_LEAVES),
        ]),
        TreeSpecies::Acacia => merged(vec![
            trunk(species, BARK),
            part(
                Cylinder::new(2.4, 0.45).mesh().resolution(8).build(),
                Transform::from_xyz(0.0, 3.2, 0.0),
                DRY_LEAVES,
            ),
        ]),
        TreeSpecies::Palm => {
            let mut parts = vec![trunk(species, BARK)];
            for k in 0..5 {
                let yaw = k as f32 * std::f32::consts::TAU / 5.0;
                let frond = Cuboid::new(0.5, 0.08, 2.4).mesh().build();
                let transform = Transform::from_xyz(0.0, 5.0, 0.0)
                    * Transform::from_rotation(
                        Quat::from_rotation_y(yaw) * Quat::from_rotation_x(0.35),
                    )
                    * Transform::from_xyz(0.0, 0.0, 1.1);
                parts.push(part(frond, transform, FRONDS));
            }
            merged(parts)
        }
        TreeSpecies::Cactus => merged(vec![
            trunk(species, CACTUS),
            part(
                Cylinder::new(0.18, 1.0).mesh().resolution(6).build(),
                Transform::from_xyz(0.55, 1.5, 0.0),
                CACTUS,
            ),
            part(
                Cuboid::new(0.5, 0.3, 0.3).mesh().build(),
                Transform::from_xyz(0.3, 1.05, 0.0),
                CACTUS,
            ),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_trees_are_spires_facing_outwards() {
        let far = TreeSizes::in_world(&World::new());
        let trees: Vec<TreeInstance> = TreeSpecies::ALL
            .iter()
            .enumerate()
            .map(|(k, &species)| TreeInstance {
                position: [k as f32 * 10.0, 5.0, 3.0],
                species,
                scale: 1.2,
                yaw: k as f32,
            })
            .collect();
        let mesh = far
            .forest_mesh(&trees, 2.0, RenderAssetUsages::MAIN_WORLD)
            .unwrap();
        assert_eq!(mesh.count_vertices(), trees.len() * 9);
        let Some(VertexAttributeValues::Float32x3(positions)) =
            mesh.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("no positions");
        };
        let Some(VertexAttributeValues::Float32x3(normals)) =
            mesh.attribute(Mesh::ATTRIBUTE_NORMAL)
        else {
            panic!("no normals");
        };
        for (k, tree) in trees.iter().enumerate() {
            let base = Vec3::from_array(tree.position);
            for v in 0..9 {
                let (p, n) = (
                    Vec3::from_array(positions[k * 9 + v]),
                    Vec3::from_array(normals[k * 9 + v]),
                );
                assert!(p.y >= base.y - 1e-4, "on or above the ground");
                let outwards = (p - base).with_y(0.0);
                assert!(n.y > 0.0 && n.dot(outwards) >= -1e-4, "faces out and up");
            }
        }
        assert!(
            far.forest_mesh(&[], 1.0, RenderAssetUsages::MAIN_WORLD)
                .is_none()
        );
    }

    #[test]
    fn scenes_are_measured_with_their_transforms_and_materials() {
        let mut meshes = Assets::<Mesh>::default();
        let mut materials = Assets::<StandardMaterial>::default();
        let red = Color::srgb(0.8, 0.1, 0.1);
        let crown = materials.add(StandardMaterial::from_color(red));
        // A 1 x 2 x 1 box raised 3 units and doubled by its parent: 6 to 10 high, 1.41 wide.
        let mut world = World::new();
        let root = world.spawn(Transform::from_scale(Vec3::splat(2.0))).id();
        world.spawn((
            Mesh3d(meshes.add(Cuboid::new(1.0, 2.0, 1.0))),
            MeshMaterial3d(crown),
            Transform::from_xyz(0.0, 4.0, 0.0),
            ChildOf(root),
        ));
        let scene = WorldAsset::new(world);
        let size = TreeSize::measure_scene(&scene, &meshes, &materials, 0.3, 2.0).unwrap();
        assert!((size.height - 10.0).abs() < 1e-5, "{}", size.height);
        assert!((size.crown_radius - 2f32.sqrt()).abs() < 1e-5);
        assert_eq!((size.trunk_radius, size.trunk_height), (0.3, 2.0));
        let off = size.far_color.to_linear().to_vec4() - red.to_linear().to_vec4();
        assert!(off.abs().max_element() < 1e-6, "{:?}", size.far_color);
        // Nothing to measure: no meshes, or meshes not loaded.
        let empty = WorldAsset::new(World::new());
        assert!(TreeSize::measure_scene(&empty, &meshes, &materials, 0.3, 2.0).is_none());
        let unloaded = Assets::<Mesh>::default();
        assert!(TreeSize::measure_scene(&scene, &unloaded, &materials, 0.3, 2.0).is_none());
    }

    #[test]
    fn every_species_has_a_coloured_mesh_standing_on_the_ground() {
        for species in TreeSpecies::ALL {
            let mesh = tree_mesh(species);
            let count = mesh.count_vertices();
            assert!(count > 10, "{species:?} has {count} vertices");
            assert!(mesh.attribute(Mesh::ATTRIBUTE_COLOR).is_some());
            let Some(VertexAttributeValues::Float32x3(positions)) =
                mesh.attribute(Mesh::ATTRIBUTE_POSITION)
            else {
                panic!("{species:?} has no positions");
            };
            let lowest = positions.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min);
            let highest = positions
                .iter()
                .map(|p| p[1])
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(lowest.abs() < 0.01, "{species:?} starts at {lowest}");
            assert!(highest > 2.0, "{species:?} is only {highest} tall");
        }
    }
}
