//! The plugin registers its components, resources and settings with Bevy's type registry, so
//! inspectors and the remote protocol can find and edit them.

use std::any::TypeId;

use bevy::prelude::*;
use bevy::reflect::{GetPath, TypeRegistry};
use bevy_biome_world::biome_core::density::{DensityNode, DensityOp, Fbm};
use bevy_biome_world::biome_core::regions::RegionSettings;
use bevy_biome_world::biome_core::{Biome, TreeSpecies};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{BiomeTree, BiomeWater, BiomeWorldState, TerrainMaterials, TreeModels};

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), BiomeWorldPlugin));
    app.finish();
    app.cleanup();
    app
}

fn registered<T: 'static>(registry: &TypeRegistry) -> bool {
    registry.get(TypeId::of::<T>()).is_some()
}

#[test]
fn the_registry_knows_every_component_resource_and_setting() {
    let app = app();
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let resource = |id: TypeId| registry.get_type_data::<ReflectResource>(id).is_some();
    let component = |id: TypeId| registry.get_type_data::<ReflectComponent>(id).is_some();
    for id in [
        TypeId::of::<BiomeWorldSettings>(),
        TypeId::of::<BiomeWorldStreaming>(),
        TypeId::of::<ChunkMeshOptions>(),
        TypeId::of::<BiomeWorldState>(),
        TypeId::of::<BiomeWorldStats>(),
        TypeId::of::<TerrainMaterials>(),
        TypeId::of::<TreeModels>(),
    ] {
        assert!(
            resource(id),
            "{:?} is not a reflected resource",
            registry.get(id)
        );
    }
    for id in [
        TypeId::of::<BiomeWorldAnchor>(),
        TypeId::of::<BiomeChunk>(),
        TypeId::of::<BiomeWater>(),
        TypeId::of::<BiomeTree>(),
    ] {
        assert!(
            component(id),
            "{:?} is not a reflected component",
            registry.get(id)
        );
    }
    // The settings' parts come with them, down to the density stack.
    assert!(registered::<WorldSettings>(&registry));
    assert!(registered::<RegionSettings>(&registry));
    assert!(registered::<Biome>(&registry));
    assert!(registered::<TreeSpecies>(&registry));
    assert!(registered::<DensityNode>(&registry));
    assert!(registered::<DensityOp>(&registry));
    assert!(registered::<Fbm>(&registry));
    assert!(registered::<ChunkLayout>(&registry));
    assert!(registered::<ChunkSpawned>(&registry));
}

/// What an inspector does: edit a field by its reflected path, and the world regenerates.
#[test]
fn settings_edit_through_reflection() {
    let mut app = app();
    {
        let mut settings = app.world_mut().resource_mut::<BiomeWorldSettings>();
        *settings
            .path_mut::<i64>("generator.seed")
            .expect("a reflected path") = 99;
        *settings
            .path_mut::<f64>("generator.regions.jitter")
            .expect("a reflected path") = 0.5;
        let node = settings
            .path_mut::<DensityNode>("generator.terrain.density")
            .expect("the density stack is reflected");
        node.enabled = false;
    }
    app.update();
    let state = app.world().resource::<BiomeWorldState>();
    assert_eq!(state.generation(), 1);
    assert_eq!(state.generator().settings().seed, 99);
    assert_eq!(state.generator().settings().regions.jitter, 0.5);
    assert!(!state.generator().settings().terrain.density.enabled);
}
