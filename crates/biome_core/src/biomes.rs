//! The biomes: what each is (name, colour, trees, scatter) and the Whittaker-style table that
//! picks them by temperature and moisture, with the tutorial's biomes as the default.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked};
use crate::cover::{ScatterLayer, ScatterSpacing, SpeciesWeight, TreeSpecies};
use crate::limits;
use crate::tutorial::BIOMES;

/// An sRGB colour with 8 bits per channel, as artists write them.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The colour in linear RGB, 0 to 1 per channel, for blending and vertex colours.
    #[must_use]
    pub fn to_linear(self) -> [f64; 3] {
        fn channel(c: u8) -> f64 {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                crate::math::pow((c + 0.055) / 1.055, 2.4)
            }
        }
        [channel(self.0), channel(self.1), channel(self.2)]
    }

    /// The nearest 8-bit sRGB colour to a linear RGB colour (channels clamped to 0 to 1): for
    /// drawing [`crate::Sample::color`] into pictures.
    #[must_use]
    pub fn from_linear(linear: [f32; 3]) -> Self {
        let channel = |c: f32| {
            let c = c.clamp(0.0, 1.0);
            let s = if c <= 0.003_130_8 {
                c * 12.92
            } else {
                1.055 * crate::math::powf(c, 1.0 / 2.4) - 0.055
            };
            (s * 255.0).round() as u8
        };
        Rgb(channel(linear[0]), channel(linear[1]), channel(linear[2]))
    }
}

/// One biome: a cell of the biome table.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Biome {
    /// Name shown in the panel and to game code.
    pub name: String,
    /// Ground colour (sRGB).
    pub color: Rgb,
    /// Chance (0 to 1) that a tree spot in this biome carries a tree.
    pub tree_density: f64,
    /// The species that grow here and their shares.
    pub trees: Vec<SpeciesWeight>,
    /// The scatter layers ([`crate::cover::ScatterSettings::layers`]) that grow here, each at
    /// most once, with its spacing ([`crate::scatter`]); a layer left out has none here.
    #[serde(default)]
    pub scatter: Vec<ScatterSpacing>,
}

/// Whittaker-style biome table: temperature picks the row, moisture the column.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BiomeTable {
    /// Temperature thresholds between rows, ascending.
    pub heat_limits: Vec<f64>,
    /// Moisture thresholds between columns, ascending.
    pub wet_limits: Vec<f64>,
    /// `(heat_limits.len() + 1) * (wet_limits.len() + 1)` biomes, row by row, cold to hot, each
    /// row dry to wet.
    pub biomes: Vec<Biome>,
}

impl Default for BiomeTable {
    /// The tutorial's 3 × 3 table with its limits (0.4 and 0.6 on both axes).
    fn default() -> Self {
        use TreeSpecies::{
            Acacia, Birch, Broadleaf, Cactus, Conifer, Palm, SnowyConifer, SwampTree,
        };
        let biome =
            |name: &str, color: Rgb, tree_density: f64, trees: &[(TreeSpecies, f64)]| Biome {
                name: name.to_owned(),
                color,
                tree_density,
                trees: trees
                    .iter()
                    .map(|&(species, weight)| SpeciesWeight { species, weight })
                    .collect(),
                scatter: Vec::new(),
            };
        let mut biomes = vec![
            biome(BIOMES[0], Rgb(146, 154, 126), 0.02, &[(SnowyConifer, 1.0)]),
            biome(
                BIOMES[1],
                Rgb(82, 110, 74),
                0.6,
                &[(Conifer, 4.0), (Birch, 1.0)],
            ),
            biome(BIOMES[2], Rgb(168, 186, 176), 0.5, &[(SnowyConifer, 1.0)]),
            biome(
                BIOMES[3],
                Rgb(146, 178, 84),
                0.05,
                &[(Broadleaf, 2.0), (Birch, 1.0)],
            ),
            biome(
                BIOMES[4],
                Rgb(66, 122, 52),
                0.7,
                &[(Broadleaf, 3.0), (Birch, 1.0), (Conifer, 1.0)],
            ),
            biome(BIOMES[5], Rgb(72, 92, 56), 0.4, &[(SwampTree, 1.0)]),
            biome(BIOMES[6], Rgb(222, 200, 136), 0.02, &[(Cactus, 1.0)]),
            biome(BIOMES[7], Rgb(184, 172, 90), 0.08, &[(Acacia, 1.0)]),
            biome(
                BIOMES[8],
                Rgb(40, 110, 46),
                0.8,
                &[(Broadleaf, 3.0), (Palm, 1.0)],
            ),
        ];
        // Rocks, bushes and grass, each spacing in world units.
        let scatter: [&[(&str, f64)]; 9] = [
            &[(ScatterLayer::ROCK, 7.0), (ScatterLayer::GRASS, 4.0)],
            &[
                (ScatterLayer::ROCK, 12.0),
                (ScatterLayer::BUSH, 6.0),
                (ScatterLayer::GRASS, 4.0),
            ],
            &[(ScatterLayer::ROCK, 12.0), (ScatterLayer::BUSH, 9.0)],
            &[
                (ScatterLayer::ROCK, 24.0),
                (ScatterLayer::BUSH, 14.0),
                (ScatterLayer::GRASS, 2.5),
            ],
            &[
                (ScatterLayer::ROCK, 16.0),
                (ScatterLayer::BUSH, 4.5),
                (ScatterLayer::GRASS, 3.5),
            ],
            &[(ScatterLayer::BUSH, 5.0), (ScatterLayer::GRASS, 2.5)],
            &[(ScatterLayer::ROCK, 9.0), (ScatterLayer::BUSH, 20.0)],
            &[
                (ScatterLayer::ROCK, 20.0),
                (ScatterLayer::BUSH, 10.0),
                (ScatterLayer::GRASS, 2.8),
            ],
            &[
                (ScatterLayer::ROCK, 18.0),
                (ScatterLayer::BUSH, 3.5),
                (ScatterLayer::GRASS, 4.0),
            ],
        ];
        for (biome, list) in biomes.iter_mut().zip(scatter) {
            biome.scatter = list
                .iter()
                .map(|&(layer, spacing)| ScatterSpacing::new(layer, spacing))
                .collect();
        }
        Self {
            heat_limits: vec![0.4, 0.6],
            wet_limits: vec![0.4, 0.6],
            biomes,
        }
    }
}

impl BiomeTable {
    /// The number of biomes the thresholds call for.
    #[must_use]
    pub fn expected_len(&self) -> usize {
        (self.heat_limits.len() + 1) * (self.wet_limits.len() + 1)
    }

    /// `table_picks`: whether the table picks biomes (else a multi-noise source does, and the
    /// list may hold any number of biomes up to [`limits::MAX_BIOMES`]).
    pub(crate) fn check(&self, check: &mut Check, table_picks: bool) -> Checked {
        ascending(check, "heat_limits", &self.heat_limits)?;
        ascending(check, "wet_limits", &self.wet_limits)?;
        if !table_picks && !(1..=limits::MAX_BIOMES).contains(&self.biomes.len()) {
            return check.fail(
                "biomes",
                format!(
                    "must list 1 to {} biomes (got {})",
                    limits::MAX_BIOMES,
                    self.biomes.len()
                ),
            );
        }
        if table_picks && self.biomes.len() != self.expected_len() {
            return check.fail(
                "biomes",
                format!(
                    "must list {} biomes for {} temperature and {} moisture thresholds (got {})",
                    self.expected_len(),
                    self.heat_limits.len(),
                    self.wet_limits.len(),
                    self.biomes.len()
                ),
            );
        }
        for (i, biome) in self.biomes.iter().enumerate() {
            check.nested(&format!("biomes[{i}]"), |check| {
                if biome.name.trim().is_empty() {
                    return check.fail("name", "must not be empty".to_owned());
                }
                let chars = biome.name.chars().count();
                if chars > limits::MAX_NAME_CHARS {
                    return check.fail(
                        "name",
                        format!(
                            "must be at most {} characters (got {chars})",
                            limits::MAX_NAME_CHARS
                        ),
                    );
                }
                check.range("tree_density", biome.tree_density, &limits::TREE_DENSITY)?;
                for (k, entry) in biome.trees.iter().enumerate() {
                    check.range(
                        &format!("trees[{k}].weight"),
                        entry.weight,
                        &limits::SPECIES_WEIGHT,
                    )?;
                    listed_once(
                        check,
                        &format!("trees[{k}].species"),
                        &biome.trees,
                        k,
                        |e| e.species,
                    )?;
                }
                // Each layer at most once: a longer list names one twice or an unknown one.
                if biome.scatter.len() > limits::MAX_SCATTER_LAYERS {
                    return check.fail(
                        "scatter",
                        format!(
                            "at most {} layers (got {})",
                            limits::MAX_SCATTER_LAYERS,
                            biome.scatter.len()
                        ),
                    );
                }
                for (k, entry) in biome.scatter.iter().enumerate() {
                    if !entry.layer.is_valid() {
                        return check.fail(
                            &format!("scatter[{k}].layer"),
                            format!("{:?} is not a layer name", entry.layer.as_str()),
                        );
                    }
                    check.range(
                        &format!("scatter[{k}].spacing"),
                        entry.spacing,
                        &limits::SCATTER_SPACING,
                    )?;
                    listed_once(
                        check,
                        &format!("scatter[{k}].layer"),
                        &biome.scatter,
                        k,
                        |e| e.layer,
                    )?;
                }
                Ok(())
            })?;
        }
        // A layer's widest spacing stays within a few of its narrowest.
        let mut layers: Vec<_> = self
            .biomes
            .iter()
            .flat_map(|b| b.scatter.iter().map(|s| s.layer))
            .collect();
        layers.sort_unstable();
        layers.dedup();
        for layer in layers {
            let spacings = self.biomes.iter().enumerate().flat_map(|(i, b)| {
                b.scatter
                    .iter()
                    .enumerate()
                    .filter(move |(_, s)| s.layer == layer)
                    .map(move |(k, s)| (i, k, s.spacing))
            });
            let narrowest = spacings
                .clone()
                .map(|(.., s)| s)
                .fold(f64::INFINITY, f64::min);
            if let Some((i, k, widest)) = spacings.max_by(|a, b| a.2.total_cmp(&b.2))
                && widest > narrowest * limits::SCATTER_SPREAD
            {
                return check.fail(
                    &format!("biomes[{i}].scatter[{k}].spacing"),
                    format!(
                        "{layer} spacing must be at most {} times its narrowest, {narrowest} \
                         (got {widest})",
                        limits::SCATTER_SPREAD
                    ),
                );
            }
        }
        Ok(())
    }
}

/// Entry `k` of `list` names a `key` no earlier entry names.
fn listed_once<T, K: PartialEq + std::fmt::Debug>(
    check: &Check,
    field: &str,
    list: &[T],
    k: usize,
    key: impl Fn(&T) -> K,
) -> Checked {
    let here = key(&list[k]);
    if list[..k].iter().any(|e| key(e) == here) {
        return check.fail(field, format!("lists {here:?} a second time"));
    }
    Ok(())
}

/// Thresholds in [`limits::THRESHOLD`], at most [`limits::MAX_THRESHOLDS`], each above the last.
fn ascending(check: &Check, name: &str, values: &[f64]) -> Checked {
    if values.len() > limits::MAX_THRESHOLDS {
        return check.fail(
            name,
            format!(
                "must hold at most {} thresholds (got {})",
                limits::MAX_THRESHOLDS,
                values.len()
            ),
        );
    }
    for (i, &value) in values.iter().enumerate() {
        check.range(&format!("{name}[{i}]"), value, &limits::THRESHOLD)?;
        if i > 0 && value <= values[i - 1] {
            return check.fail(
                &format!("{name}[{i}]"),
                format!("thresholds must rise: {value} follows {}", values[i - 1]),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_bytes_survive_the_trip_through_linear() {
        for v in 0..=255u8 {
            let linear = Rgb(v, 255 - v, v / 2).to_linear().map(|c| c as f32);
            assert_eq!(Rgb::from_linear(linear), Rgb(v, 255 - v, v / 2));
        }
        assert_eq!(Rgb::from_linear([-1.0, 2.0, f32::NAN]).0, 0);
    }
}
