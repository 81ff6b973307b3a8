//! The game's own terrain material: [`OwnTerrainMaterialPlugin`] draws every terrain node with a
//! material of the game's type instead of the plugin's, as each node appears, and again on
//! every node when the material changes; streaming never puts its own back.

use std::marker::PhantomData;

use bevy::prelude::*;

use super::{BiomeChunk, ChunkSpawned, TerrainMaterial};
use crate::BiomeWorldSystems;

/// Draws the terrain with the game's own material `M`, held in [`OwnTerrainMaterial<M>`]: a
/// splatting shader, a stylised look, or an extension of `StandardMaterial`. Terrain meshes carry
/// positions, normals and linear vertex colours (the ground's colour; with the renderer's
/// material in use, the land's colour without water floor, sand and snow, and the temperature
/// in `uv.x`, and in `uv.y` the share an edit's own surface, a road, covers). Far forests keep the plugin's material.
///
/// A node that replaces others fades in with a dither only the plugin's material draws: with
/// your own, set [`crate::BiomeWorldStreaming::fade_seconds`] to 0 (nodes swap in one frame,
/// still watertight), or dither in your shader by [`super::ChunkFade::progress`].
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_biome_world::prelude::*;
/// # use bevy_biome_world::{OwnTerrainMaterial, OwnTerrainMaterialPlugin};
/// App::new()
///     .add_plugins((DefaultPlugins, BiomeWorldPlugin))
///     .add_plugins(OwnTerrainMaterialPlugin::<StandardMaterial>::default())
///     .insert_resource(BiomeWorldStreaming { fade_seconds: 0.0, ..default() })
///     .add_systems(Startup, |mut commands: Commands, mut materials: ResMut<Assets<StandardMaterial>>| {
///         let matte = materials.add(StandardMaterial { perceptual_roughness: 1.0, ..default() });
///         commands.insert_resource(OwnTerrainMaterial(matte));
///     })
///     .run();
/// ```
pub struct OwnTerrainMaterialPlugin<M: Material> {
    material: PhantomData<fn() -> M>,
}

impl<M: Material> Default for OwnTerrainMaterialPlugin<M> {
    fn default() -> Self {
        Self {
            material: PhantomData,
        }
    }
}

impl<M: Material> Plugin for OwnTerrainMaterialPlugin<M> {
    fn build(&self, app: &mut App) {
        app.add_systems(
            Update,
            take_own_material::<M>.after(BiomeWorldSystems::Apply),
        );
    }
}

/// The material every terrain node is drawn with, with [`OwnTerrainMaterialPlugin<M>`] added.
/// Until it is inserted the plugin's own material draws the terrain.
#[derive(Resource, Clone, Debug, PartialEq, Eq)]
pub struct OwnTerrainMaterial<M: Material>(pub Handle<M>);

/// Gives the game's material to each new terrain node, and to every node when it changed.
fn take_own_material<M: Material>(
    material: Option<Res<OwnTerrainMaterial<M>>>,
    mut spawned: MessageReader<ChunkSpawned>,
    chunks: Query<Entity, With<BiomeChunk>>,
    mut commands: Commands,
) {
    let Some(material) = material else {
        spawned.clear();
        return;
    };
    let entities: Vec<Entity> = if material.is_changed() {
        spawned.clear();
        chunks.iter().collect()
    } else {
        spawned.read().map(|message| message.entity).collect()
    };
    for entity in entities {
        // The renderer's terrain material, or the headless one.
        commands
            .entity(entity)
            .try_remove::<(
                MeshMaterial3d<TerrainMaterial>,
                MeshMaterial3d<StandardMaterial>,
            )>()
            .try_insert(MeshMaterial3d(material.0.clone()));
    }
}
