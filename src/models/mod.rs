//! What a streamed object looks like: a [`ModelLook`] (a mesh and material, or a glTF scene)
//! per tree species and scatter kind, and how instances of it are spawned and given a new look
//! when a game swaps it. Trees and scatter hold their looks in their own resources
//! ([`crate::TreeModels`], [`crate::ScatterModels`]); this module only puts looks on entities.

use bevy::prelude::*;
use bevy::world_serialization::{WorldAsset, WorldAssetRoot, WorldInstance};

/// What one tree species or scatter kind looks like: every instance shares it, so the renderer
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

/// Gives `entity` the look `look`, dropping what its previous look spawned.
pub(crate) fn relook(commands: &mut Commands, entity: Entity, look: &ModelLook) {
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
