//! Trees, placed per world position: one candidate spot per cell of a jittered grid seeded by the
//! cell's coordinates, kept or dropped by the biome, the surface, the slope and a forest-clumping
//! field. A tree belongs to exactly the chunk that contains it, so chunks never duplicate or lose
//! one at a border, and spots in neighbouring cells stay `(1 - jitter) * spacing` apart.

use serde::{Deserialize, Serialize};

use crate::coords::clamp_coordinate;
use crate::cover::{SpeciesWeight, TreeSpecies, WaterRule};
use crate::generator::{Ground, RegionBiomes, Surface, WorldGenerator};
use crate::hash::{hash_cell, salt, unit};
use crate::math::smoothstep;
use crate::regions::{NearestTwoRun, RegionId, SiteCache};
use crate::scratch::Scratch;
use crate::seed_offsets;
use crate::tutorial::fbm;

/// A tree in world space.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Base of the trunk `(x, height, z)`, world units.
    pub position: [f64; 3],
    /// What grows here.
    pub species: TreeSpecies,
    /// Size factor (1 is the species' usual size).
    pub scale: f32,
    /// Rotation about the vertical axis, radians.
    pub yaw: f32,
}

/// A tree on a chunk, positioned relative to the chunk's origin.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreeInstance {
    /// Base of the trunk `(x, height, z)` relative to [`crate::chunk::ChunkData::origin`].
    pub position: [f32; 3],
    /// What grows here.
    pub species: TreeSpecies,
    /// Size factor (1 is the species' usual size).
    pub scale: f32,
    /// Rotation about the vertical axis, radians.
    pub yaw: f32,
}

impl Tree {
    /// The tree relative to a chunk origin.
    #[must_use]
    pub fn relative_to(&self, origin: [f64; 2]) -> TreeInstance {
        TreeInstance {
            position: [
                (self.position[0] - origin[0]) as f32,
                self.position[1] as f32,
                (self.position[2] - origin[1]) as f32,
            ],
            species: self.species,
            scale: self.scale,
            yaw: self.yaw,
        }
    }
}

/// Frequency of the forest-clumping field, 1 / world units: forests a few hundred units across.
const FOREST_SCALE: f64 = 0.006;

/// Every tree standing in `[min.x, max.x) × [min.z, max.z)` of `generator`'s world whose grid
/// cell is on every `stride`-th column and row ([`WorldGenerator::trees_in_rect_every`]; 1 for
/// all of them), region sites from `cache`.
pub(crate) fn trees_in(
    generator: &WorldGenerator,
    min: [f64; 2],
    max: [f64; 2],
    cache: &SiteCache,
    stride: u32,
) -> Vec<Tree> {
    let settings = generator.settings();
    let trees = &settings.trees;
    if !trees.enabled {
        return Vec::new();
    }
    let seed = settings.seed + seed_offsets::TREES;
    let biomes = &settings.biome_table.biomes;
    let densest = biomes.iter().map(|b| b.tree_density).fold(0.0, f64::max);
    // The clumping field scales a biome's density by at most 1 + clumping.
    let keep_limit = densest * (1.0 + trees.clumping);
    if keep_limit <= 0.0 {
        return Vec::new();
    }

    // Spots stay inside their cells, so only cells overlapping the rectangle can contribute.
    // The cheap draws come first: most spots are dropped before any terrain is sampled.
    let cell = |v: f64| (v / trees.spacing).floor() as i64;
    let stride = i64::from(stride.max(1));
    // The cells of the stride's grid from `low` to `high`.
    let cells = |low: i64, high: i64| {
        let first = low + (stride - low.rem_euclid(stride)) % stride;
        (first..=high).step_by(stride as usize)
    };
    let edits = generator
        .edits()
        .near(min, max, crate::edits::NearFor::Clearing);
    let mut spots = Vec::new();
    for cz in cells(cell(min[1]), cell(max[1])) {
        for cx in cells(cell(min[0]), cell(max[0])) {
            let keep = unit(hash_cell(seed, cx, cz, salt::TREE_KEEP));
            if keep >= keep_limit {
                continue;
            }
            let offset = |salt| (unit(hash_cell(seed, cx, cz, salt)) - 0.5) * trees.jitter;
            let x = (cx as f64 + 0.5 + offset(salt::TREE_X)) * trees.spacing;
            let z = (cz as f64 + 0.5 + offset(salt::TREE_Z)) * trees.spacing;
            if !((min[0]..max[0]).contains(&x) && (min[1]..max[1]).contains(&z))
                || edits.as_ref().is_some_and(|edits| edits.clears(x, z))
            {
                continue;
            }
            let forest = fbm(
                &generator.forests,
                x * FOREST_SCALE,
                z * FOREST_SCALE,
                2,
                0.5,
                2.0,
            );
            let clump = 1.0 - trees.clumping + trees.clumping * 2.0 * smoothstep(-0.3, 0.3, forest);
            if keep < densest * clump {
                spots.push(Spot {
                    cx,
                    cz,
                    x,
                    z,
                    keep,
                    clump,
                });
            }
        }
    }

    // The biome comes from the wobbled spot alone: spots their biome would leave bare go
    // before any terrain is sampled. Near a border, trees come from either region in the
    // colour's proportion.
    let [wx, wz] = generator.wobbled_points(
        &Scratch::collect(spots.iter().map(|s| s.x)),
        &Scratch::collect(spots.iter().map(|s| s.z)),
    );
    let blend_width = settings.regions.blend_width;
    let mut nearest = NearestTwoRun::new(cache);
    let (draws, regions): (Vec<u64>, Vec<RegionId>) = spots
        .iter()
        .enumerate()
        .map(|(k, spot)| {
            let pair = nearest.nearest_two(wx[k], wz[k]);
            let draw = hash_cell(seed, spot.cx, spot.cz, salt::TREE_SPECIES);
            (draw, pair.pick(unit(draw), blend_width))
        })
        .unzip();
    let regions = RegionBiomes::new(cache).resolve(generator, &regions, cache);
    let mut chosen = Vec::with_capacity(spots.len());
    for ((spot, draw), region) in spots.iter().zip(draws).zip(regions) {
        let biome = &biomes[region];
        if spot.keep < biome.tree_density * spot.clump {
            chosen.push((spot, biome, draw));
        }
    }

    let ground = generator.standing_ground(
        &Scratch::collect(chosen.iter().map(|(s, ..)| s.x)),
        &Scratch::collect(chosen.iter().map(|(s, ..)| s.z)),
        trees.max_slope_degrees,
        WaterRule::Dry,
        cache,
    );
    let height_scale = settings.terrain.height_scale;
    let mut out = Vec::new();
    for (&(spot, biome, draw), ground) in chosen.iter().zip(ground) {
        let Some(Ground {
            density: here,
            temperature,
        }) = ground
        else {
            continue;
        };
        let Some(species) = pick_species(&biome.trees, unit(draw.rotate_left(32))) else {
            continue;
        };
        let species = match (generator.surface(here, temperature), species) {
            (Surface::Snow, TreeSpecies::Conifer | TreeSpecies::SnowyConifer) => {
                TreeSpecies::SnowyConifer
            }
            (Surface::Snow, _) => continue,
            (_, species) => species,
        };
        let shape = hash_cell(seed, spot.cx, spot.cz, salt::TREE_SHAPE);
        out.push(Tree {
            position: [spot.x, here * height_scale, spot.z],
            species,
            scale: (trees.min_scale + (trees.max_scale - trees.min_scale) * unit(shape)) as f32,
            yaw: (unit(shape.rotate_left(32)) * std::f64::consts::TAU) as f32,
        });
    }
    out
}

/// A tree spot that passed the cheap draws.
struct Spot {
    cx: i64,
    cz: i64,
    x: f64,
    z: f64,
    keep: f64,
    clump: f64,
}

/// Picks a species by weight with a draw in `0..1`; `None` if no species has weight.
fn pick_species(choices: &[SpeciesWeight], draw: f64) -> Option<TreeSpecies> {
    let total: f64 = choices.iter().map(|c| c.weight).sum();
    if total <= 0.0 {
        return None;
    }
    let mut left = draw * total;
    for choice in choices {
        if left < choice.weight {
            return Some(choice.species);
        }
        left -= choice.weight;
    }
    choices
        .iter()
        .rev()
        .find(|c| c.weight > 0.0)
        .map(|c| c.species)
}

impl WorldGenerator {
    /// Every tree standing in `[min.x, max.x) × [min.z, max.z)`, ordered by grid row then column
    /// ([`crate::trees`]). The rectangle is first moved inside [`crate::limits::COORDINATE`]; the work
    /// grows with its area over the tree spacing squared.
    #[must_use]
    pub fn trees_in_rect(&self, min: [f64; 2], max: [f64; 2]) -> Vec<Tree> {
        let (min, max) = (min.map(clamp_coordinate), max.map(clamp_coordinate));
        let cache = SiteCache::covering(*self.regions(), min[0], min[1], max[0], max[1], 3);
        trees_in(self, min, max, &cache, 1)
    }

    /// The trees of [`WorldGenerator::trees_in_rect`] whose tree-grid cell lies on every
    /// `stride`-th column and row (a subset: 1 in `stride²` spots), for far forests drawn with
    /// fewer, wider trees. The work grows with the area over `(stride × spacing)²`.
    #[must_use]
    pub fn trees_in_rect_every(&self, min: [f64; 2], max: [f64; 2], stride: u32) -> Vec<Tree> {
        let (min, max) = (min.map(clamp_coordinate), max.map(clamp_coordinate));
        let cache = SiteCache::covering(*self.regions(), min[0], min[1], max[0], max[1], 3);
        trees_in(self, min, max, &cache, stride)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn species_follow_their_weights() {
        let choices = [
            SpeciesWeight {
                species: TreeSpecies::Palm,
                weight: 1.0,
            },
            SpeciesWeight {
                species: TreeSpecies::Cactus,
                weight: 0.0,
            },
            SpeciesWeight {
                species: TreeSpecies::Birch,
                weight: 3.0,
            },
        ];
        assert_eq!(pick_species(&choices, 0.0), Some(TreeSpecies::Palm));
        assert_eq!(pick_species(&choices, 0.24), Some(TreeSpecies::Palm));
        assert_eq!(pick_species(&choices, 0.26), Some(TreeSpecies::Birch));
        assert_eq!(pick_species(&choices, 0.999_999), Some(TreeSpecies::Birch));
        assert_eq!(pick_species(&choices[1..2], 0.5), None);
    }
}
