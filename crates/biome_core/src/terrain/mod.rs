//! The terrain floor: the height field (a density stack scaled to world units) with the climate
//! over it, before rivers carve it. [`crate::rivers`] is built on it, and the generator on both.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked, SettingsError};
use crate::climate::ClimateSettings;
use crate::coords::clamp_coordinate;
use crate::density::{DensityField, DensityFunctions, DensityNode, Shape};
use crate::limits;
use crate::regions::{RegionGrid, RegionSettings};
use crate::scratch::Scratch;
use crate::seed_offsets;
use crate::tutorial::{FbmParams, Simplex, climate_from_noise};

mod volume;

pub use volume::VolumeSettings;
pub(crate) use volume::{LatticeLine, VerticalSpan, VolumeField};

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
            volume: (terrain.volume.as_ref())
                .map(|volume| VolumeField::new(volume, seed, functions)),
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
