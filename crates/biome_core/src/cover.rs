//! What grows on the ground, as settings: tree species and how biomes weigh them, the world's
//! tree placement, the kinds of scattered objects and their spacing. The biomes name them; the
//! [`crate::trees`] and [`crate::scatter`] consumers place them.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked};
use crate::limits;

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

/// What is scattered.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ScatterKind {
    /// A weathered rock, from pebble heaps to boulders.
    Rock,
    /// A low, round shrub.
    Bush,
    /// A tuft of grass blades.
    Grass,
}

impl ScatterKind {
    /// Every kind, in a fixed order (renderers index meshes by it).
    pub const ALL: [ScatterKind; 3] = [ScatterKind::Rock, ScatterKind::Bush, ScatterKind::Grass];

    /// This kind's position in [`ScatterKind::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether it lies on snow too (rocks do; plants do not).
    #[must_use]
    pub fn on_snow(self) -> bool {
        self == ScatterKind::Rock
    }
}

/// One kind a biome scatters, and how far apart.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterSpacing {
    /// The kind.
    pub kind: ScatterKind,
    /// The least distance between two of them, world units.
    pub spacing: f64,
}

/// Scatter over the whole world; the biomes say what and how densely.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScatterSettings {
    /// Whether the world scatters anything.
    pub enabled: bool,
    /// Steepest ground (degrees) that holds scatter.
    pub max_slope_degrees: f64,
    /// Smallest size factor.
    pub min_scale: f64,
    /// Largest size factor.
    pub max_scale: f64,
}

impl Default for ScatterSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_slope_degrees: 40.0,
            min_scale: 0.7,
            max_scale: 1.4,
        }
    }
}

impl ScatterSettings {
    pub(crate) fn check(&self, check: &Check) -> Checked {
        check.range(
            "max_slope_degrees",
            self.max_slope_degrees,
            &limits::MAX_SLOPE,
        )?;
        check_scales(check, self.min_scale, self.max_scale)
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
