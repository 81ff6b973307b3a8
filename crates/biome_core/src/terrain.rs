//! The terrain floor: the height field (a density stack scaled to world units) with the climate
//! over it, before rivers carve it. [`crate::rivers`] is built on it, and the generator on both.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked, SettingsError};
use crate::climate::ClimateSettings;
use crate::coords::clamp_coordinate;
use crate::density::{DensityField, DensityFunctions, DensityNode, Shape, Space};
use crate::limits;
use crate::regions::{RegionGrid, RegionSettings};
use crate::scratch::Scratch;
use crate::seed_offsets;
use crate::tutorial::{FbmParams, Simplex, climate_from_noise};

/// The height field.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TerrainSettings {
    /// The density stack whose value is the height; 0 is sea level.
    pub density: DensityNode,
    /// Metres (world units) per density unit.
    pub height_scale: f64,
    /// Caves, overhangs and arches where a mask lets them be; none (`None`, the default)
    /// leaves the height field alone everywhere.
    pub volume: Option<VolumeSettings>,
}

/// 3D terrain ([`crate::density`]'s volumes) laid over the height field where a mask lets it be.
///
/// The world's solid at `(x, y, z)` is `g + t · (v - g)`, positive solid: `g = ground - y` is the
/// height field as a volume, `v` is [`VolumeSettings::density`] there, and `t` is
/// [`VolumeSettings::mask`] at `(x, z)` clamped to 0 to 1. Where `t` is 0, and outside the band
/// from [`VolumeSettings::below`] under the ground to [`VolumeSettings::above`] over it, the
/// world is the height field, exactly: chunks there stay height fields and pay nothing for the
/// volume. A mask that falls to 0 smoothly joins the volume to the height field without a step.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VolumeSettings {
    /// The volume, positive solid: a stack evaluated at `(x, y, z)`, whose `Ground` node is
    /// `ground - y` (see `assets/volumes/caves.ron`).
    pub density: DensityNode,
    /// Where the volume takes over: a height stack, read at `(x, z)` and clamped to 0 to 1.
    pub mask: DensityNode,
    /// How far under the ground the volume may reach (caves), world units.
    pub below: f64,
    /// How far over the ground the volume may reach (overhangs, arches), world units.
    pub above: f64,
}

impl Default for VolumeSettings {
    /// The height field again: ground everywhere, masked nowhere, within a band of 32 units
    /// under the ground and 16 over it.
    fn default() -> Self {
        Self {
            density: DensityNode::new(crate::density::Ground {}, []),
            mask: DensityNode::constant(0.0),
            below: 32.0,
            above: 16.0,
        }
    }
}

impl VolumeSettings {
    /// Checks both stacks (the density as a volume, the mask as a height stack) and the band.
    pub(crate) fn check(&self, check: &mut Check, functions: &DensityFunctions) -> Checked {
        self.density
            .check_at(&check.field("density"), functions, Space::Volume)?;
        self.mask
            .check_at(&check.field("mask"), functions, Space::Height)?;
        check.range_in("below", self.below, &limits::VOLUME_BAND, " world units")?;
        check.range_in("above", self.above, &limits::VOLUME_BAND, " world units")
    }
}

impl Default for TerrainSettings {
    /// Continents with warped coasts and ridged mountain ranges that rise from the land.
    fn default() -> Self {
        use crate::density::{Add, Clamp, Multiply, SmoothClamp, Warp};
        let constant = DensityNode::constant;
        let continents = DensityNode::new(
            Warp {
                seed_offset: 10,
                levels: 1,
                strength: 260.0,
                scale: 0.0009,
                octaves: 3,
            },
            [DensityNode::fbm(0, 0.0005, 7, Shape::Normal)],
        );
        let ranges = DensityNode::new(
            Clamp {
                low: 0.0,
                high: 1.0,
            },
            [DensityNode::fbm(11, 0.0016, 5, Shape::Ridged)],
        );
        // A coarse copy of the continent noise keeps mountain ranges on land.
        let inland = DensityNode::new(
            SmoothClamp {
                low: 0.0,
                high: 1.0,
                smoothness: 0.3,
            },
            [DensityNode::new(
                Multiply {},
                [DensityNode::fbm(0, 0.0005, 3, Shape::Normal), constant(4.0)],
            )],
        );
        let land = DensityNode::new(Multiply {}, [continents, constant(1.6)]);
        let mountains = DensityNode::new(
            Multiply {},
            [
                DensityNode::new(Multiply {}, [ranges, constant(0.6)]),
                inland,
            ],
        );
        Self {
            density: DensityNode::new(
                SmoothClamp {
                    low: -0.45,
                    high: 1.4,
                    smoothness: 0.2,
                },
                [DensityNode::new(Add {}, [land, mountains])],
            ),
            height_scale: 110.0,
            volume: None,
        }
    }
}

impl TerrainSettings {
    /// Checks the height scale against the density stack's reach (`magnitude`, the largest
    /// value it can give): heights must stay within [`limits::HEIGHT`].
    pub(crate) fn check(
        &self,
        check: &mut Check,
        magnitude: f64,
        functions: &DensityFunctions,
    ) -> Checked {
        let scale = self.height_scale;
        check.range("height_scale", scale, &limits::HEIGHT_SCALE)?;
        if let Some(volume) = &self.volume {
            check.nested("volume", |check| volume.check(check, functions))?;
        }
        let reach = magnitude * scale;
        let most = *limits::HEIGHT.end();
        if reach > most {
            return check.fail(
                "height_scale",
                format!(
                    "the density stack reaches ±{magnitude:e}, so heights would reach ±{reach:e} \
                     world units; keep them within ±{most:e} (height_scale at most {:e})",
                    most / magnitude
                ),
            );
        }
        Ok(())
    }
}

/// The land before rivers, compiled: the density stack over the region sites (its cell nodes
/// read them), and the climate fields over it. Rivers are traced on it; the generator carves
/// them in.
#[derive(Clone, Debug)]
pub(crate) struct Terrain {
    pub(crate) density: DensityField,
    /// The volume over the height field, where the settings have one.
    pub(crate) volume: Option<VolumeField>,
    pub(crate) regions: RegionGrid,
    pub(crate) heat: Simplex,
    pub(crate) wet: Simplex,
    pub(crate) climate: ClimateSettings,
}

/// [`VolumeSettings`] compiled for one seed.
#[derive(Clone, Debug)]
pub(crate) struct VolumeField {
    pub(crate) density: DensityField,
    pub(crate) mask: DensityField,
    pub(crate) below: f64,
    pub(crate) above: f64,
}

impl VolumeField {
    /// Whether height `y` lies in the band the volume may change over ground `ground`.
    pub(crate) fn in_band(&self, y: f64, ground: f64) -> bool {
        (ground - self.below..=ground + self.above).contains(&y)
    }

    /// The mask's value clamped to a share from 0 to 1 (NaN gives 0: no volume).
    pub(crate) fn share(mask: f64) -> f64 {
        if mask > 0.0 { mask.min(1.0) } else { 0.0 }
    }

    /// The world's solid in the band where the height field's is `plain` (`ground - y`), the
    /// mask's share is `share` and the volume's value is `volume`.
    pub(crate) fn blend(plain: f64, share: f64, volume: f64) -> f64 {
        plain + share * (volume - plain)
    }

    /// Whether the ground at every `(xs[k], zs[k])`, `grounds[k]` high, is the height field's
    /// where something standing on it reaches: along the vertical line there, at every whole
    /// [`PROBE_STEP`] from [`PROBE_UNDER`] under the ground to [`PROBE_OVER`] over it
    /// (within the band), the world is solid exactly where the height field is. What stands on
    /// the ground (trees, scattered objects) stands only there, so none floats over a cave mouth
    /// or grows into an overhang; a cave deeper down does not matter to it.
    pub(crate) fn leaves_ground(
        &self,
        xs: &[f64],
        zs: &[f64],
        grounds: &[f64],
        sites: &dyn crate::density::Sites,
    ) -> Vec<bool> {
        let mut shares = Scratch::zeroed(xs.len());
        self.mask.values(xs, zs, sites, &mut shares);
        let steps = |reach: f64| (reach / PROBE_STEP).floor() as i64;
        let heights: Vec<f64> = (-steps(self.below.min(PROBE_UNDER))
            ..=steps(self.above.min(PROBE_OVER)))
            .map(|k| k as f64 * PROBE_STEP)
            .collect();
        let probed: Vec<usize> = (0..xs.len())
            .filter(|&k| Self::share(shares[k]) > 0.0)
            .collect();
        let mut leaves = vec![true; xs.len()];
        if probed.is_empty() {
            return leaves;
        }
        let mut points = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        for &k in &probed {
            for &h in &heights {
                let point = [xs[k], grounds[k] + h, zs[k], grounds[k]];
                for (list, value) in points.iter_mut().zip(point) {
                    list.push(value);
                }
            }
        }
        let mut volume = vec![0.0; points[0].len()];
        let [px, py, pz, pg] = &points;
        self.density.volume_values(
            crate::density::VolumePoints {
                xs: px,
                ys: py,
                zs: pz,
                grounds: pg,
            },
            sites,
            &mut volume,
        );
        for (&k, values) in probed.iter().zip(volume.chunks(heights.len().max(1))) {
            let share = Self::share(shares[k]);
            leaves[k] = (heights.iter().zip(values)).all(|(&h, &v)| {
                let plain = -h;
                (Self::blend(plain, share, v) > 0.0) == (plain > 0.0)
            });
        }
        leaves
    }
}

/// Apart along `y` the samples [`VolumeField::leaves_ground`] takes, world units.
const PROBE_STEP: f64 = 0.5;
/// How far under the ground [`VolumeField::leaves_ground`] looks for a hollow, world units.
const PROBE_UNDER: f64 = 2.0;
/// How far over the ground it looks for rock: the height of a tall tree, world units.
const PROBE_OVER: f64 = 12.0;

impl Terrain {
    /// The terrain of `seed` with these settings (checked already).
    ///
    /// # Errors
    /// The region grid's, for regions out of range.
    pub(crate) fn new(
        seed: i64,
        functions: &DensityFunctions,
        terrain: &TerrainSettings,
        climate: &ClimateSettings,
        regions: &RegionSettings,
    ) -> Result<Self, SettingsError> {
        Ok(Self {
            density: DensityField::compile(&terrain.density, seed, functions),
            volume: terrain.volume.as_ref().map(|volume| VolumeField {
                density: DensityField::compile(&volume.density, seed, functions).into_volume(),
                mask: DensityField::compile(&volume.mask, seed, functions),
                below: volume.below,
                above: volume.above,
            }),
            regions: RegionGrid::new(
                seed + seed_offsets::SITES,
                regions.cell_size,
                regions.jitter,
            )?,
            heat: Simplex::new(seed + seed_offsets::HEAT),
            wet: Simplex::new(seed + seed_offsets::WET),
            climate: *climate,
        })
    }

    /// The moisture at `(xs[k], zs[k])` (moved inside [`limits::COORDINATE`]) where the raw
    /// terrain (density units, before rivers) is `density[k]`, with the rain shadow and without
    /// the chill: what decides where rivers spring and how wide they run.
    pub(crate) fn moisture(&self, xs: &[f64], zs: &[f64], density: &[f64]) -> Vec<f64> {
        let xs = Scratch::collect(xs.iter().map(|&x| clamp_coordinate(x)));
        let zs = Scratch::collect(zs.iter().map(|&z| clamp_coordinate(z)));
        let mut wet = self.climate_field(&self.wet, &xs, &zs);
        if let Some(shifts) = self.moisture_shifts(&xs, &zs, density) {
            for (w, s) in wet.iter_mut().zip(shifts.iter()) {
                *w += s;
            }
        }
        wet.iter()
            .zip(density)
            .map(|(&w, &d)| climate_from_noise(0.0, w, d, 0.0).moisture)
            .collect()
    }

    /// The density stack's values at `(xs[k], zs[k])` (moved inside [`limits::COORDINATE`]),
    /// before rivers carve them.
    pub(crate) fn raw_terrain(&self, xs: &[f64], zs: &[f64]) -> Vec<f64> {
        let xs: Vec<f64> = xs.iter().map(|&x| clamp_coordinate(x)).collect();
        let zs: Vec<f64> = zs.iter().map(|&z| clamp_coordinate(z)).collect();
        let mut density = vec![0.0; xs.len()];
        self.density.values(&xs, &zs, &self.regions, &mut density);
        density
    }

    /// What the rain shadow adds to the moisture at a point of density `density`:
    /// 0 when it is off, so worlds without it keep their bits.
    pub(crate) fn moisture_shift(&self, x: f64, z: f64, density: f64) -> f64 {
        let shadow = &self.climate.rain_shadow;
        if shadow.strength == 0.0 {
            return 0.0;
        }
        let upwind = shadow.upwind_offsets().map(|[dx, dz]| {
            let (ux, uz) = (clamp_coordinate(x - dx), clamp_coordinate(z - dz));
            self.density.value(ux, uz, &self.regions)
        });
        shadow.shift(density, upwind)
    }

    /// [`Terrain::moisture_shift`] at every point, with the batch paths (the same bits),
    /// or `None` when the rain shadow is off.
    pub(crate) fn moisture_shifts(
        &self,
        xs: &[f64],
        zs: &[f64],
        density: &[f64],
    ) -> Option<Scratch> {
        let shadow = &self.climate.rain_shadow;
        if shadow.strength == 0.0 {
            return None;
        }
        // Row k holds every point's ground k + 1 steps upwind.
        let n = xs.len();
        let mut upwind = Scratch::zeroed(n * shadow.steps as usize);
        for (row, [dx, dz]) in upwind.chunks_mut(n.max(1)).zip(shadow.upwind_offsets()) {
            let ux = Scratch::collect(xs.iter().map(|&x| clamp_coordinate(x - dx)));
            let uz = Scratch::collect(zs.iter().map(|&z| clamp_coordinate(z - dz)));
            self.density.values(&ux, &uz, &self.regions, row);
        }
        let shifts = (0..n).map(|i| {
            shadow.shift(
                density[i],
                (0..shadow.steps as usize).map(|k| upwind[k * n + i]),
            )
        });
        Some(Scratch::collect(shifts))
    }

    /// One climate field (the tutorial's 3-octave fBm of `noise` at the climate scale) at every
    /// `(xs[k], zs[k])`, with the batch paths.
    pub(crate) fn climate_field(&self, noise: &Simplex, xs: &[f64], zs: &[f64]) -> Scratch {
        let scale = self.climate.scale;
        let ax = Scratch::collect(xs.iter().map(|x| x * scale));
        let az = Scratch::collect(zs.iter().map(|z| z * scale));
        let mut out = Scratch::zeroed(xs.len());
        noise.fbm_points(&ax, &az, FbmParams::octaves(3), &mut out);
        out
    }
}
