//! What grows on the ground, as settings: tree species and how biomes weigh them, the world's
//! tree placement, the layers of scattered objects and their spacing. The biomes name them; the
//! [`crate::trees`] and [`crate::scatter`] consumers place them.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked};
use crate::limits;
use crate::name::ShortName;

/// What grows in a biome.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TreeSpecies {
    /// Tall, narrow evergreen: taiga and forests.
    Conifer,
    /// A conifer under snow: cold forests and snowy slopes.
    SnowyConifer,
    /// Round-crowned deciduous tree.
    Broadleaf,
    /// Slim, pale-trunked deciduous tree.
    Birch,
    /// Low, wide, drooping tree of wetlands.
    SwampTree,
    /// Flat-topped savanna tree.
    Acacia,
    /// Tall bare trunk with a fan of leaves.
    Palm,
    /// Desert column with arms.
    Cactus,
}

impl TreeSpecies {
    /// Every species, in a fixed order (renderers index meshes by it).
    pub const ALL: [TreeSpecies; 8] = [
        TreeSpecies::Conifer,
        TreeSpecies::SnowyConifer,
        TreeSpecies::Broadleaf,
        TreeSpecies::Birch,
        TreeSpecies::SwampTree,
        TreeSpecies::Acacia,
        TreeSpecies::Palm,
        TreeSpecies::Cactus,
    ];

    /// This species' position in [`TreeSpecies::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One species a biome grows, with its share.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeciesWeight {
    /// The species.
    pub species: TreeSpecies,
    /// Its relative share among the biome's species.
    pub weight: f64,
}

/// Tree placement.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeSettings {
    /// Whether chunks carry trees at all.
    pub enabled: bool,
    /// Width of the grid cells that each offer one tree spot, world units.
    pub spacing: f64,
    /// How far a spot strays from its cell's centre (fraction of a cell); trees stay at least
    /// `(1 - jitter) * spacing` apart.
    pub jitter: f64,
    /// Steepest ground (degrees) that carries trees.
    pub max_slope_degrees: f64,
    /// Smallest size factor.
    pub min_scale: f64,
    /// Largest size factor.
    pub max_scale: f64,
    /// 0 spreads trees evenly; 1 gathers them into forests and clearings.
    pub clumping: f64,
}

impl Default for TreeSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            spacing: 7.0,
            jitter: 0.7,
            max_slope_degrees: 35.0,
            min_scale: 0.8,
            max_scale: 1.3,
            clumping: 0.6,
        }
    }
}

impl TreeSettings {
    pub(crate) fn check(&self, check: &Check) -> Checked {
        check.range("spacing", self.spacing, &limits::TREE_SPACING)?;
        check.range("jitter", self.jitter, &limits::TREE_JITTER)?;
        check.range(
            "max_slope_degrees",
            self.max_slope_degrees,
            &limits::MAX_SLOPE,
        )?;
        check_scales(check, self.min_scale, self.max_scale)?;
        check.range("clumping", self.clumping, &limits::CLUMPING)
    }
}

/// A scatter layer's name, as biomes and presets write it ([`ShortName`]).
pub type LayerName = ShortName;

/// Where a layer's objects may stand with respect to water. None stand in water.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WaterRule {
    /// Away from it: above the beach line and off river and lake banks.
    #[default]
    Dry,
    /// By it: on beaches and river and lake banks only (shells, reeds, driftwood).
    Shore,
    /// Anywhere out of it: dry land, beaches and banks.
    Land,
}

/// What a layer's objects stand on.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScatterGround {
    /// The ground open to the sky, where it is the height field's (rocks, bushes, loot).
    #[default]
    Surface,
    /// The highest cave floor under it with [`CAVE_HEADROOM`] of open space over it, where
    /// the world's volume carves caves ([`crate::terrain::VolumeSettings`]): stalagmites, ore,
    /// a cave's loot. None in a world without caves. Water and snow are the surface's and do
    /// not rule here; slope and height do, on the floor the chunks draw (where that floor
    /// fails them the spot holds nothing: a lower floor is not tried).
    CaveFloor,
}

/// The open space over a cave floor that holds an object of a [`ScatterGround::CaveFloor`]
/// layer, world units: a player's height.
pub const CAVE_HEADROOM: f64 = 2.0;

/// One layer of scattered objects: what it is called and where its objects may stand. Each
/// biome says how far apart they are in it ([`crate::Biome::scatter`]); a biome that does not
/// list the layer has none of it. The rules thin the Poisson-disk set after it is drawn (a spot
/// on ground a rule refuses still keeps its neighbours away), so a narrow height band or a
/// shore holds fewer objects than its spacing alone would give.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterLayer {
    /// Its name, which biomes name it by and which seeds its placement: layers added, removed
    /// or reordered leave every other layer's objects where they were.
    pub name: LayerName,
    /// Steepest ground (degrees) that holds its objects.
    #[serde(default = "default_scatter_slope")]
    pub max_slope_degrees: f64,
    /// Lowest ground that holds them, world units (sea level is 0); none: no floor.
    #[serde(default)]
    pub min_height: Option<f64>,
    /// Highest ground that holds them, world units; none: no ceiling.
    #[serde(default)]
    pub max_height: Option<f64>,
    /// Where they stand with respect to water.
    #[serde(default)]
    pub water: WaterRule,
    /// Whether they lie on snow too.
    #[serde(default)]
    pub on_snow: bool,
    /// What they stand on: the surface, or cave floors under it.
    #[serde(default)]
    pub ground: ScatterGround,
    /// Smallest size factor.
    #[serde(default = "default_min_scale")]
    pub min_scale: f64,
    /// Largest size factor.
    #[serde(default = "default_max_scale")]
    pub max_scale: f64,
}

fn default_scatter_slope() -> f64 {
    40.0
}

fn default_min_scale() -> f64 {
    0.7
}

fn default_max_scale() -> f64 {
    1.4
}

impl ScatterLayer {
    /// The built-in rocks' layer name.
    pub const ROCK: &'static str = "rock";
    /// The built-in bushes' layer name.
    pub const BUSH: &'static str = "bush";
    /// The built-in grass tufts' layer name.
    pub const GRASS: &'static str = "grass";

    /// A layer called `name` with the default rules: dry ground open to the sky up to 40
    /// degrees steep, not on snow, sizes 0.7 to 1.4.
    ///
    /// # Errors
    /// Why `name` is not a layer name ([`ShortName::new`]).
    pub fn new(name: &str) -> Result<Self, String> {
        Ok(Self {
            name: LayerName::new(name)?,
            max_slope_degrees: default_scatter_slope(),
            min_height: None,
            max_height: None,
            water: WaterRule::Dry,
            on_snow: false,
            ground: ScatterGround::Surface,
            min_scale: default_min_scale(),
            max_scale: default_max_scale(),
        })
    }

    /// The built-in layers: rocks (on snow too), bushes and grass.
    ///
    /// # Panics
    /// Never: the built-in names are layer names.
    #[must_use]
    pub fn built_in() -> Vec<Self> {
        [Self::ROCK, Self::BUSH, Self::GRASS]
            .into_iter()
            .map(|name| Self {
                on_snow: name == Self::ROCK,
                ..Self::new(name).expect("built-in names are valid")
            })
            .collect()
    }

    fn check(&self, check: &Check) -> Checked {
        if !self.name.is_valid() {
            return check.fail(
                "name",
                format!("{:?} is not a layer name", self.name.as_str()),
            );
        }
        check.range(
            "max_slope_degrees",
            self.max_slope_degrees,
            &limits::MAX_SLOPE,
        )?;
        for (field, height) in [
            ("min_height", self.min_height),
            ("max_height", self.max_height),
        ] {
            if let Some(height) = height {
                check.range(field, height, &limits::SCATTER_HEIGHT)?;
            }
        }
        if let (Some(low), Some(high)) = (self.min_height, self.max_height)
            && low > high
        {
            return check.fail(
                "min_height",
                format!("must not exceed max_height ({low} > {high})"),
            );
        }
        check_scales(check, self.min_scale, self.max_scale)
    }
}

/// One layer a biome scatters, and how far apart.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterSpacing {
    /// The layer, by name ([`ScatterSettings::layers`]).
    pub layer: LayerName,
    /// The least distance between two of its objects, world units.
    pub spacing: f64,
}

impl ScatterSpacing {
    /// `layer`'s objects `spacing` apart.
    ///
    /// # Panics
    /// If `layer` is not a layer name ([`ShortName::new`]).
    #[must_use]
    pub fn new(layer: &str, spacing: f64) -> Self {
        Self {
            layer: LayerName::new(layer).expect("a layer name"),
            spacing,
        }
    }
}

/// Scatter over the whole world: its layers; the biomes say which grow where and how densely.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScatterSettings {
    /// Whether the world scatters anything.
    pub enabled: bool,
    /// The layers, each named once: the built-in rocks, bushes and grass, and any a game adds.
    pub layers: Vec<ScatterLayer>,
}

impl Default for ScatterSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            layers: ScatterLayer::built_in(),
        }
    }
}

impl ScatterSettings {
    /// The position of the layer called `name` in [`ScatterSettings::layers`].
    #[must_use]
    pub fn layer_index(&self, name: &str) -> Option<usize> {
        self.layers.iter().position(|l| l.name.as_str() == name)
    }

    pub(crate) fn check(&self, check: &mut Check) -> Checked {
        if self.layers.len() > limits::MAX_SCATTER_LAYERS {
            return check.fail(
                "layers",
                format!(
                    "at most {} layers (got {})",
                    limits::MAX_SCATTER_LAYERS,
                    self.layers.len()
                ),
            );
        }
        for (k, layer) in self.layers.iter().enumerate() {
            check.nested(&format!("layers[{k}]"), |check| layer.check(check))?;
            if self.layers[..k].iter().any(|l| l.name == layer.name) {
                return check.fail(
                    &format!("layers[{k}].name"),
                    format!("{:?} names an earlier layer too", layer.name),
                );
            }
        }
        Ok(())
    }
}

/// Size factors in [`limits::TREE_SCALE`], the smallest not above the largest.
fn check_scales(check: &Check, min_scale: f64, max_scale: f64) -> Checked {
    check.range("min_scale", min_scale, &limits::TREE_SCALE)?;
    check.range("max_scale", max_scale, &limits::TREE_SCALE)?;
    if min_scale > max_scale {
        return check.fail(
            "min_scale",
            format!("must not exceed max_scale ({min_scale} > {max_scale})"),
        );
    }
    Ok(())
}
