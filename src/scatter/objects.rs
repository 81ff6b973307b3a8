//! What scattered objects look like: one [`ModelLook`] per scatter layer that has one (by
//! default the built-in rocks, bushes and grass as low-poly meshes and materials built in code),
//! shared by every object of that layer, so the renderer batches them. A layer without a look
//! spawns no entities: game code hears of its objects alone ([`super::ScatterSpawned`]).

use bevy::ecs::system::NonSendMarker;
use bevy::math::primitives::Cuboid;
use bevy::mesh::{Mesh, Meshable};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use biome_core::cover::LayerName;
use biome_core::scatter::{ScatterId, ScatterInstance, ScatterLayer};

use crate::models::{Instance, ModelLook, ShownLook, relook};
use crate::settings::BiomeWorldState;
use crate::trees::{blob, merged, part};

/// Marks a scattered object, with its layer and id (a child of its [`super::BiomeScatter`]).
#[derive(Component, Reflect, Clone, Copy, Debug, PartialEq, Eq)]
#[reflect(Component, Debug, Clone, PartialEq)]
pub struct BiomeScatterObject {
    /// Its layer.
    pub layer: LayerName,
    /// Which object of its layer it is.
    pub id: ScatterId,
}

/// What each scatter layer looks like: the procedural low-poly rocks, bushes and grass unless a
/// game sets its own ([`ScatterModels::set`]), and nothing for a game's layers until it gives
/// them a look; insert or change it at any time, and every object takes its layer's new look (a
/// layer given its first look or losing it rebuilds the world, to spawn or drop its entities).
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Debug, Clone, PartialEq)]
pub struct ScatterModels {
    looks: HashMap<LayerName, ModelLook>,
}

impl ScatterModels {
    /// The built-in low-poly objects for the built-in layers, their meshes and materials added
    /// to `meshes` and `materials`.
    #[must_use]
    pub fn procedural(meshes: &mut Assets<Mesh>, materials: &mut Assets<StandardMaterial>) -> Self {
        let looks = [BuiltIn::Rock, BuiltIn::Bush, BuiltIn::Grass]
            .into_iter()
            .map(|kind| {
                let mut material = StandardMaterial {
                    perceptual_roughness: if kind == BuiltIn::Rock { 0.85 } else { 0.95 },
                    reflectance: 0.2,
                    ..default()
                };
                if kind == BuiltIn::Grass {
                    // Blades are seen from both sides.
                    material.double_sided = true;
                    material.cull_mode = None;
                }
                let look = ModelLook::Mesh {
                    mesh: meshes.add(kind.mesh()),
                    material: materials.add(material),
                };
                (kind.name(), look)
            })
            .collect();
        Self { looks }
    }

    /// The look of the layer called `layer`, if it has one.
    #[must_use]
    pub fn get(&self, layer: &str) -> Option<&ModelLook> {
        LayerName::new(layer)
            .ok()
            .and_then(|name| self.looks.get(&name))
    }

    /// Gives the layer called `layer` its own look (standing on `y = 0` at scale 1, as the
    /// built-in objects do); its objects are entities from then on.
    ///
    /// # Panics
    /// If `layer` is not a layer name ([`LayerName::new`]).
    pub fn set(&mut self, layer: &str, look: ModelLook) {
        let name = LayerName::new(layer).expect("a layer name");
        self.looks.insert(name, look);
    }

    /// Takes the look of the layer called `layer` away: its objects are told to game code
    /// alone ([`super::ScatterSpawned`]), with no entities. Returns the look it had.
    pub fn remove(&mut self, layer: &str) -> Option<ModelLook> {
        let name = LayerName::new(layer).ok()?;
        self.looks.remove(&name)
    }

    /// The instance of one object of `layer` standing at `object` on its node, if the layer
    /// has a look.
    pub(crate) fn instance(
        &self,
        layer: LayerName,
        object: &ScatterInstance,
    ) -> Option<Instance<'_, BiomeScatterObject>> {
        let look = self.looks.get(&layer)?;
        let marker = BiomeScatterObject {
            layer,
            id: object.id,
        };
        Some(Instance::placed(
            marker,
            object.position,
            object.yaw,
            object.scale,
            look,
        ))
    }
}

/// Gives every scattered object its layer's current look; when a layer gains or loses its look
/// (and with it its entities), the world is built again, the old chunks staying until their
/// replacements are in.
pub(crate) fn take_scatter_models(
    _main: NonSendMarker,
    models: Res<ScatterModels>,
    objects: Query<(Entity, &BiomeScatterObject, ShownLook)>,
    mut state: ResMut<BiomeWorldState>,
    mut with_looks: Local<Option<HashSet<LayerName>>>,
    mut commands: Commands,
) {
    let now: HashSet<LayerName> = models.looks.keys().copied().collect();
    if with_looks.as_ref().is_some_and(|before| *before != now) {
        state.rebuild();
    }
    *with_looks = Some(now);
    for (entity, object, shown) in &objects {
        if let Some(look) = models.looks.get(&object.layer) {
            relook(&mut commands, entity, shown, look);
        }
    }
}

/// The built-in layers' procedural objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BuiltIn {
    Rock,
    Bush,
    Grass,
}

impl BuiltIn {
    fn name(self) -> LayerName {
        let name = match self {
            Self::Rock => ScatterLayer::ROCK,
            Self::Bush => ScatterLayer::BUSH,
            Self::Grass => ScatterLayer::GRASS,
        };
        LayerName::new(name).expect("built-in names are layer names")
    }
}

const STONE: Color = Color::srgb(0.50, 0.49, 0.46);
const DARK_STONE: Color = Color::srgb(0.38, 0.37, 0.35);
const SHRUB: Color = Color::srgb(0.20, 0.38, 0.14);
const LIGHT_SHRUB: Color = Color::srgb(0.30, 0.46, 0.18);
const BLADES: Color = Color::srgb(0.42, 0.58, 0.20);
const DRY_BLADES: Color = Color::srgb(0.62, 0.64, 0.30);

impl BuiltIn {
    /// The low-poly mesh at scale 1, standing on `y = 0` (rocks and bushes sink a little into
    /// the ground, so they sit on slopes and on ground drawn between its vertices).
    fn mesh(self) -> Mesh {
        match self {
            Self::Rock => merged(vec![
                blob(
                    0.55,
                    Vec3::new(0.0, 0.12, 0.0),
                    Vec3::new(1.0, 0.62, 0.82),
                    STONE,
                ),
                blob(
                    0.3,
                    Vec3::new(0.5, 0.02, 0.25),
                    Vec3::new(1.0, 0.7, 0.9),
                    DARK_STONE,
                ),
            ]),
            Self::Bush => merged(vec![
                blob(
                    0.6,
                    Vec3::new(0.0, 0.35, 0.0),
                    Vec3::new(1.0, 0.75, 1.0),
                    SHRUB,
                ),
                blob(0.42, Vec3::new(0.45, 0.3, 0.2), Vec3::ONE, LIGHT_SHRUB),
                blob(0.38, Vec3::new(-0.35, 0.25, -0.3), Vec3::ONE, SHRUB),
            ]),
            Self::Grass => {
                let mut blades = Vec::new();
                for k in 0..7 {
                    let yaw = k as f32 * std::f32::consts::TAU / 7.0;
                    let lean = 0.25 + 0.1 * (k % 3) as f32;
                    let height = 0.45 + 0.08 * (k % 4) as f32;
                    let blade = Cuboid::new(0.09, height, 0.015).mesh().build();
                    let transform = Transform::from_rotation(
                        Quat::from_rotation_y(yaw) * Quat::from_rotation_x(lean),
                    ) * Transform::from_xyz(0.0, height / 2.0 - 0.05, 0.0);
                    let color = if k % 3 == 0 { DRY_BLADES } else { BLADES };
                    blades.push(part(blade, transform, color));
                }
                merged(blades)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bevy::mesh::VertexAttributeValues;

    #[test]
    fn every_kind_has_a_coloured_mesh_on_the_ground() {
        for kind in [BuiltIn::Rock, BuiltIn::Bush, BuiltIn::Grass] {
            let mesh = kind.mesh();
            assert!(mesh.count_vertices() > 10, "{kind:?}");
            assert!(mesh.attribute(Mesh::ATTRIBUTE_COLOR).is_some());
            let Some(VertexAttributeValues::Float32x3(positions)) =
                mesh.attribute(Mesh::ATTRIBUTE_POSITION)
            else {
                panic!("{kind:?} has no positions");
            };
            let lowest = positions.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min);
            let highest = positions
                .iter()
                .map(|p| p[1])
                .fold(f32::NEG_INFINITY, f32::max);
            // A little below the ground (it sits on slopes), mostly above it.
            assert!(
                (-0.25..0.0).contains(&lowest),
                "{kind:?} starts at {lowest}"
            );
            assert!(highest > 0.3, "{kind:?} is only {highest} tall");
        }
    }
}
