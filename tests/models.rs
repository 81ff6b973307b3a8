//! Headless tests of a game's own looks: tree and scatter models inserted before the plugin are
//! kept, looks swapped later reach every instance (meshes and glTF-style scenes), new tree sizes
//! rebuild the world so far forests take them, and the game's own terrain material draws every
//! terrain node shown, frame by frame, while levels of detail change under a moving anchor.

#[expect(dead_code, reason = "the model tests need no random numbers")]
mod common;

use bevy::mesh::VertexAttributeValues;
use bevy::prelude::*;
use bevy::world_serialization::{WorldAsset, WorldAssetRoot};
use bevy_biome_world::biome_core::scatter::ScatterLayer;
use bevy_biome_world::biome_core::{ChunkLayout, MeshStyle, TreeSpecies};
use bevy_biome_world::prelude::*;
use bevy_biome_world::{
    BiomeForest, BiomeScatterObject, BiomeScatterStats, BiomeTree, BiomeWorldState, ModelLook,
    OwnTerrainMaterial, OwnTerrainMaterialPlugin, ScatterModels, TreeModel, TreeModels, TreeSize,
};

const FAR_GREEN: Color = Color::srgb(0.1, 0.8, 0.2);
const FAR_RED: Color = Color::srgb(0.9, 0.1, 0.1);

fn size(far_color: Color) -> TreeSize {
    TreeSize {
        trunk_radius: 0.4,
        trunk_height: 3.0,
        crown_radius: 2.5,
        height: 7.0,
        far_color,
    }
}

/// Small chunks, trees as entities on chunks and far forests from level 2 to the 1 km horizon.
fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), TransformPlugin))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .init_asset::<WorldAsset>()
        .insert_resource(BiomeWorldSettings {
            layout: ChunkLayout {
                tiles: 16,
                tile_size: 4.0,
                style: MeshStyle::Smooth,
            },
            ..default()
        })
        .insert_resource(BiomeWorldStreaming {
            horizon: 1024.0,
            detail_radius: 96.0,
            ..default()
        })
        .insert_resource(BiomeScatterSettings::default());
    app
}

fn settle(app: &mut App) {
    common::step_until_idle(app, "idle world", App::update, |app| {
        app.world().resource::<BiomeWorldStats>().is_idle()
            && app.world().resource::<BiomeScatterStats>().is_idle()
    });
}

/// What one tree shows.
#[derive(Debug, PartialEq)]
struct TreeLook {
    mesh: Option<Handle<Mesh>>,
    scene: Option<Handle<WorldAsset>>,
}

fn tree_looks(app: &mut App) -> Vec<TreeLook> {
    let mut query = app
        .world_mut()
        .query_filtered::<(Option<&Mesh3d>, Option<&WorldAssetRoot>), With<BiomeTree>>();
    query
        .iter(app.world())
        .map(|(mesh, scene)| TreeLook {
            mesh: mesh.map(|m| m.0.clone()),
            scene: scene.map(|s| s.0.clone()),
        })
        .collect()
}

/// Every far-forest vertex colour.
fn forest_colors(app: &mut App) -> Vec<[f32; 4]> {
    let mut query = app
        .world_mut()
        .query_filtered::<&Mesh3d, With<BiomeForest>>();
    let world = app.world();
    let meshes = world.resource::<Assets<Mesh>>();
    query
        .iter(world)
        .flat_map(|mesh| {
            let Some(VertexAttributeValues::Float32x4(colors)) = meshes
                .get(&mesh.0)
                .expect("forest meshes stay in the main world here")
                .attribute(Mesh::ATTRIBUTE_COLOR)
            else {
                panic!("forests have vertex colours");
            };
            colors.clone()
        })
        .collect()
}

fn linear(color: Color) -> [f32; 4] {
    color.to_linear().to_f32_array()
}

#[test]
fn a_games_tree_models_are_kept_their_looks_swapped_and_their_sizes_followed() {
    let mut app = app();
    let world = app.world_mut();
    let mesh = world
        .resource_mut::<Assets<Mesh>>()
        .add(Cuboid::new(1.0, 4.0, 1.0));
    let material = world
        .resource_mut::<Assets<StandardMaterial>>()
        .add(StandardMaterial::default());
    let look = ModelLook::Mesh {
        mesh: mesh.clone(),
        material,
    };
    let mut models = world.resource_scope(|world, mut materials: Mut<Assets<StandardMaterial>>| {
        TreeModels::procedural(&mut world.resource_mut::<Assets<Mesh>>(), &mut materials)
    });
    for species in TreeSpecies::ALL {
        models.set(
            species,
            TreeModel {
                look: look.clone(),
                size: size(FAR_GREEN),
            },
        );
    }
    app.insert_resource(models).add_plugins(BiomeWorldPlugin);
    app.finish();
    app.cleanup();
    app.world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(0.0, 60.0, 0.0)));
    settle(&mut app);

    // Kept: every tree shows the game's mesh, every far forest its colour.
    let looks = tree_looks(&mut app);
    assert!(looks.len() > 50, "{} trees", looks.len());
    let game_mesh = TreeLook {
        mesh: Some(mesh.clone()),
        scene: None,
    };
    assert!(looks.iter().all(|look| *look == game_mesh));
    let colors = forest_colors(&mut app);
    assert!(!colors.is_empty(), "no far forests");
    assert!(colors.iter().all(|c| *c == linear(FAR_GREEN)));

    // A scene for every species, same sizes: every tree takes it, nothing is rebuilt.
    let generation = app.world().resource::<BiomeWorldState>().generation();
    let scene = app
        .world_mut()
        .resource_mut::<Assets<WorldAsset>>()
        .add(WorldAsset::new(World::new()));
    let mut models = app.world_mut().resource_mut::<TreeModels>();
    for species in TreeSpecies::ALL {
        let size = models.get(species).size;
        models.set(
            species,
            TreeModel {
                look: ModelLook::Scene(scene.clone()),
                size,
            },
        );
    }
    app.update();
    let looks = tree_looks(&mut app);
    assert!(looks.len() > 50);
    let game_scene = TreeLook {
        mesh: None,
        scene: Some(scene.clone()),
    };
    assert!(
        looks.iter().all(|look| *look == game_scene),
        "every tree shows the scene alone"
    );
    assert_eq!(
        app.world().resource::<BiomeWorldState>().generation(),
        generation
    );

    // New sizes rebuild the world: far forests in the new colour, trees still the scene.
    let mut models = app.world_mut().resource_mut::<TreeModels>();
    for species in TreeSpecies::ALL {
        let look = models.get(species).look.clone();
        models.set(
            species,
            TreeModel {
                look,
                size: size(FAR_RED),
            },
        );
    }
    app.update();
    assert_eq!(
        app.world().resource::<BiomeWorldState>().generation(),
        generation + 1
    );
    common::step_until(
        &mut app,
        "far forests in the new colour",
        App::update,
        |app| {
            let colors = forest_colors(app);
            !colors.is_empty() && colors.iter().all(|c| *c == linear(FAR_RED))
        },
    );
    settle(&mut app);
    let looks = tree_looks(&mut app);
    assert!(looks.len() > 50);
    assert!(looks.iter().all(|look| *look == game_scene));
}

#[test]
fn a_scatter_layers_look_swapped_at_run_time_reaches_its_objects_alone() {
    let mut app = app();
    app.add_plugins(BiomeWorldPlugin);
    app.finish();
    app.cleanup();
    app.world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(0.0, 60.0, 0.0)));
    settle(&mut app);
    let procedural = app.world().resource::<ScatterModels>().clone();
    let rock = app
        .world_mut()
        .resource_mut::<Assets<Mesh>>()
        .add(Sphere::new(0.5));
    let material = procedural.get(ScatterLayer::ROCK).unwrap().clone();
    let ModelLook::Mesh { material, .. } = material else {
        panic!("built-in rocks are meshes");
    };
    app.world_mut().resource_mut::<ScatterModels>().set(
        ScatterLayer::ROCK,
        ModelLook::Mesh {
            mesh: rock.clone(),
            material,
        },
    );
    app.update();
    let mut query = app.world_mut().query::<(&BiomeScatterObject, &Mesh3d)>();
    let (mut rocks, mut others) = (0, 0);
    for (object, mesh) in query.iter(app.world()) {
        let want = match object.layer.as_str() {
            ScatterLayer::ROCK => {
                rocks += 1;
                rock.clone()
            }
            layer => {
                others += 1;
                match procedural.get(layer) {
                    Some(ModelLook::Mesh { mesh, .. }) => mesh.clone(),
                    _ => unreachable!("built-in objects are meshes"),
                }
            }
        };
        assert_eq!(mesh.0, want, "{:?}", object.layer);
    }
    assert!(rocks > 0 && others > 0, "rocks {rocks} and others {others}");
}

#[test]
fn the_games_terrain_material_draws_every_node_shown_in_every_frame() {
    let mut app = app();
    app.insert_resource(BiomeScatterSettings {
        enabled: false,
        ..default()
    })
    .add_plugins((
        BiomeWorldPlugin,
        OwnTerrainMaterialPlugin::<StandardMaterial>::default(),
    ));
    app.finish();
    app.cleanup();
    let anchor = app
        .world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(0.0, 60.0, 0.0)))
        .id();
    let mut materials = app.world_mut().resource_mut::<Assets<StandardMaterial>>();
    let first = materials.add(StandardMaterial::from_color(Color::srgb(0.9, 0.2, 0.2)));
    let second = materials.add(StandardMaterial::from_color(Color::srgb(0.2, 0.2, 0.9)));
    app.insert_resource(OwnTerrainMaterial(first.clone()));

    // Every node shown carries exactly the game's material, at the end of every frame.
    let shown_with = |app: &mut App| -> Vec<Option<Handle<StandardMaterial>>> {
        let mut query = app
            .world_mut()
            .query_filtered::<(&Visibility, Option<&MeshMaterial3d<StandardMaterial>>), With<BiomeChunk>>();
        query
            .iter(app.world())
            .filter(|(visibility, _)| **visibility != Visibility::Hidden)
            .map(|(_, material)| material.map(|m| m.0.clone()))
            .collect()
    };
    settle(&mut app);
    for step in 0..240 {
        // Flying at 300 units a second at 60 Hz: levels and stitches change under the anchor.
        app.world_mut()
            .get_mut::<Transform>(anchor)
            .unwrap()
            .translation
            .x = step as f32 * 5.0;
        app.update();
        let shown = shown_with(&mut app);
        assert!(!shown.is_empty());
        for material in &shown {
            assert_eq!(material.as_ref(), Some(&first), "frame {step}");
        }
    }

    // A new material reaches every node at once.
    app.insert_resource(OwnTerrainMaterial(second.clone()));
    app.update();
    let shown = shown_with(&mut app);
    assert!(shown.iter().all(|m| m.as_ref() == Some(&second)));
}

/// A vertex's splat layer weights, at its world `(x, z)` (as bits).
struct VertexWeights {
    at: [u32; 2],
    weights: [f32; 8],
}

/// The splat layer weights of every vertex of each shown terrain node; `None` where the mesh
/// carries none. Layers 0 to 3 ride in the tangent, 4 and 5 in the second UVs, 6 in the
/// colour's alpha; layer 7 is what they leave.
fn shown_splat_weights(app: &mut App) -> Vec<Option<Vec<VertexWeights>>> {
    let mut query = app
        .world_mut()
        .query::<(&Visibility, &Transform, &Mesh3d, &BiomeChunk)>();
    let meshes = app.world().resource::<Assets<Mesh>>();
    query
        .iter(app.world())
        .filter(|(visibility, ..)| **visibility != Visibility::Hidden)
        .map(|(_, transform, mesh, _)| {
            let mesh = meshes.get(&mesh.0).expect("a shown node's mesh is loaded");
            let (
                Some(VertexAttributeValues::Float32x3(positions)),
                Some(VertexAttributeValues::Float32x4(low)),
                Some(VertexAttributeValues::Float32x2(middle)),
                Some(VertexAttributeValues::Float32x4(colors)),
            ) = (
                mesh.attribute(Mesh::ATTRIBUTE_POSITION),
                mesh.attribute(Mesh::ATTRIBUTE_TANGENT),
                mesh.attribute(Mesh::ATTRIBUTE_UV_1),
                mesh.attribute(Mesh::ATTRIBUTE_COLOR),
            )
            else {
                return None;
            };
            let vertices = positions.iter().zip(low).zip(middle).zip(colors);
            let weights = vertices
                .map(|(((p, low), middle), color)| {
                    let world = transform.translation + Vec3::from_array(*p);
                    let carried = [
                        low[0], low[1], low[2], low[3], middle[0], middle[1], color[3],
                    ];
                    let mut all = [0.0; 8];
                    all[..7].copy_from_slice(&carried);
                    all[7] = 1.0 - carried.iter().sum::<f32>();
                    VertexWeights {
                        at: [world.x.to_bits(), world.z.to_bits()],
                        weights: all,
                    }
                })
                .collect();
            Some(weights)
        })
        .collect()
}

/// With texture layers, every shown node carries its vertices' layer weights, which sum to one,
/// blend two layers across region borders, and agree wherever two nodes share a vertex (at
/// every level, stitched or not); without them, nodes are rebuilt bare, and a refused set
/// changes nothing.
#[test]
fn splat_weights_reach_every_shown_node_and_agree_where_nodes_meet() {
    let mut app = app();
    app.init_asset::<Image>()
        .insert_resource(BiomeScatterSettings {
            enabled: false,
            ..default()
        })
        .add_plugins(BiomeWorldPlugin);
    app.finish();
    app.cleanup();
    app.world_mut()
        .spawn((BiomeWorldAnchor, Transform::from_xyz(300.0, 60.0, -200.0)));
    settle(&mut app);
    assert!(shown_splat_weights(&mut app).iter().all(Option::is_none));

    let mut images = app.world_mut().resource_mut::<Assets<Image>>();
    let splatting = TerrainSplatting::procedural(&mut images);
    app.insert_resource(splatting.clone());
    settle(&mut app);
    let shown = shown_splat_weights(&mut app);
    assert!(shown.len() > 20, "{} nodes shown", shown.len());
    let mut at = std::collections::HashMap::new();
    let (mut blended, mut layers_seen, mut shared) = (0, [false; 8], 0);
    for weights in shown {
        let weights = weights.expect("every shown node carries splat weights");
        for VertexWeights {
            at: position,
            weights: w,
        } in weights
        {
            assert!(w.iter().all(|&v| v >= -1e-5), "{w:?}");
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{w:?}");
            blended += usize::from(w.iter().all(|&v| v < 0.99));
            for (seen, &v) in layers_seen.iter_mut().zip(&w) {
                *seen |= v > 0.5;
            }
            if let Some(before) = at.insert(position, w) {
                shared += 1;
                for (a, b) in before.iter().zip(&w) {
                    assert!((a - b).abs() < 1e-5, "{before:?} against {w:?}");
                }
            }
        }
    }
    assert!(shared > 1000, "{shared} vertices shared by two nodes");
    assert!(blended > 100, "{blended} vertices between two layers");
    assert!(
        layers_seen.iter().filter(|&&seen| seen).count() >= 2,
        "layers {layers_seen:?}"
    );

    // A refused set keeps the nodes as they are.
    let generation = app.world().resource::<BiomeWorldState>().generation();
    let mut refused = splatting;
    refused.default_layer = 8;
    app.insert_resource(refused);
    app.update();
    assert_eq!(
        app.world().resource::<BiomeWorldState>().generation(),
        generation
    );

    app.world_mut().remove_resource::<TerrainSplatting>();
    settle(&mut app);
    assert!(shown_splat_weights(&mut app).iter().all(Option::is_none));
}
