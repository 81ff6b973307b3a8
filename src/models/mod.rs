//! What a streamed object looks like: a [`ModelLook`] (a mesh and material, or a glTF scene)
//! per tree species and scatter layer, and how instances of it are spawned and given a new look
//! when a game swaps it. Trees and scatter hold their looks in their own resources
//! ([`crate::TreeModels`], [`crate::ScatterModels`]); this module only puts looks on entities.

use bevy::prelude::*;
use bevy::world_serialization::{WorldAsset, WorldAssetRoot, WorldInstance};

/// What one tree species or scatter layer looks like: every instance shares it, so the renderer
/// batches them.
///
/// A glTF file's first scene is `ModelLook::Scene(asset_server.load(GltfAssetLabel::Scene(0)
/// .from_asset("trees/oak.glb")))`; its root stands where the tree's foot is, `+Y` up, one
/// unit one metre at scale 1.
#[derive(Clone, Debug, PartialEq, Reflect)]
#[reflect(Debug, Clone, PartialEq)]
pub enum ModelLook {
    /// One mesh drawn with one material.
    Mesh {
        /// The mesh, standing on `y = 0` at the instance's position.
        mesh: Handle<Mesh>,
        /// Its material.
        material: Handle<StandardMaterial>,
    },
    /// A scene (a glTF model with any number of meshes and materials), spawned as children of
    /// each instance's entity.
    Scene(Handle<WorldAsset>),
}

/// One instance to spawn: its marker, where it stands relative to its parent, and its look.
pub(crate) struct Instance<'a, M> {
    pub(crate) marker: M,
    pub(crate) transform: Transform,
    pub(crate) look: &'a ModelLook,
}

impl<'a, M> Instance<'a, M> {
    /// `marker` standing at `position` (relative to its parent), turned `yaw` about the vertical
    /// and scaled `scale`, looking like `look`.
    pub(crate) fn placed(
        marker: M,
        position: [f32; 3],
        yaw: f32,
        scale: f32,
        look: &'a ModelLook,
    ) -> Self {
        Self {
            marker,
            transform: Transform {
                translation: Vec3::from_array(position),
                rotation: Quat::from_rotation_y(yaw),
                scale: Vec3::splat(scale),
            },
            look,
        }
    }
}

/// What an entity shows now: its mesh and material, or its scene.
pub(crate) type ShownLook = (
    Option<&'static Mesh3d>,
    Option<&'static MeshMaterial3d<StandardMaterial>>,
    Option<&'static WorldAssetRoot>,
);

/// Spawns `instances` as children of `parent`, in one batch per kind of look; returns their
/// entities.
pub(crate) fn spawn_instances<'a, M: Component>(
    world: &mut World,
    parent: Entity,
    instances: impl IntoIterator<Item = Instance<'a, M>>,
) -> Vec<Entity> {
    let mut meshes = Vec::new();
    let mut scenes = Vec::new();
    for Instance {
        marker,
        transform,
        look,
    } in instances
    {
        match look {
            ModelLook::Mesh { mesh, material } => meshes.push((
                marker,
                Mesh3d(mesh.clone()),
                MeshMaterial3d(material.clone()),
                transform,
                ChildOf(parent),
            )),
            ModelLook::Scene(scene) => scenes.push((
                marker,
                WorldAssetRoot(scene.clone()),
                transform,
                ChildOf(parent),
            )),
        }
    }
    let mut spawned: Vec<Entity> = world.spawn_batch(meshes).collect();
    spawned.extend(world.spawn_batch(scenes));
    spawned
}

/// Gives `entity`, which shows `shown`, the look `look`, dropping what its previous look spawned;
/// nothing when it shows `look` already (a scene given again would be spawned again).
pub(crate) fn relook(
    commands: &mut Commands,
    entity: Entity,
    (mesh, material, scene): <ShownLook as bevy::ecs::query::QueryData>::Item<'_, '_>,
    look: &ModelLook,
) {
    let unchanged = match look {
        ModelLook::Mesh {
            mesh: want_mesh,
            material: want_material,
        } => {
            scene.is_none()
                && mesh.is_some_and(|m| m.0 == *want_mesh)
                && material.is_some_and(|m| m.0 == *want_material)
        }
        ModelLook::Scene(want) => mesh.is_none() && scene.is_some_and(|s| s.0 == *want),
    };
    if unchanged {
        return;
    }
    let mut entity = commands.entity(entity);
    match look {
        ModelLook::Mesh { mesh, material } => {
            // A scene's entities are the instance's only children.
            entity
                .despawn_related::<Children>()
                .remove::<(WorldAssetRoot, WorldInstance)>()
                .insert((Mesh3d(mesh.clone()), MeshMaterial3d(material.clone())));
        }
        ModelLook::Scene(scene) => {
            entity
                .remove::<(Mesh3d, MeshMaterial3d<StandardMaterial>)>()
                .insert(WorldAssetRoot(scene.clone()));
        }
    }
}
