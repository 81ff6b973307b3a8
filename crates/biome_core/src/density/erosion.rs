//! The erosion node, [`Eroded`] (its docs say how it carves), and its kernel: in the spirit of
//! the per-point "erosion filter" technique, with no simulation and no neighbours, so each value
//! is a function of its point alone and chunks and levels of detail join exactly. One lane
//! implementation serves a point alone and SIMD batches.

use std::sync::Arc;

use super::field::{Evaluate, Inputs, NoiseTables};
use super::ops::{FbmFields, Field, NOISE_BOUND, Operation, Typical, number, optional, whole};
use super::{Bounds, DensityFunctions};
use crate::batch::{FbmParams, LaneKernel, kernel_points};
use crate::limits;
use crate::tutorial::{Lanes, Simplex, fbm_with_gradient_lanes};

/// Simplex fBm at `(x * scale, z * scale)` with gullies cut into its slopes, from the fBm's
/// analytic gradient: `gully_octaves` layers of grooves, each twice as fine and half as deep as
/// the last, running down the slope at the point and read from a grid of cells whose phases
/// differ (so grooves join and fork where cells meet). Each layer's own slope joins the slope
/// the next one follows, so finer gullies run down the walls of coarser ones and branch; on
/// gentle ground (slopes below `flat`) they fade. The value never rises above the fBm's and
/// never falls more than the layers' depths below it. Each value depends on its point alone.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eroded {
    /// Added to the world seed for this node's noise.
    pub seed_offset: i64,
    /// Frequency in 1 / world units: the mountains are about `1 / scale` across.
    pub scale: f64,
    /// Layers of the mountains' fBm (1 to 16).
    pub octaves: u32,
    /// The fBm's amplitude factor per octave.
    pub persistence: f64,
    /// The fBm's frequency factor per octave.
    pub lacunarity: f64,
    /// How deep the coarsest gullies cut, in the node's value units (the fBm spans about -1..1);
    /// each finer layer cuts half as deep.
    pub depth: f64,
    /// How many times finer than the mountains the coarsest gullies are.
    pub gully_scale: f64,
    /// Layers of gullies (1 to 8).
    pub gully_octaves: u32,
    /// The slope (value per `1 / scale` world units) at which gullies are half their depth:
    /// flatter ground is carved less.
    pub flat: f64,
}

impl Operation for Eroded {
    const INPUTS: &'static [&'static str] = &[];

    fn template() -> Self {
        Self {
            seed_offset: 0,
            scale: 0.0,
            octaves: 6,
            persistence: 0.5,
            lacunarity: 2.0,
            depth: 0.15,
            gully_scale: 6.0,
            gully_octaves: 4,
            flat: 0.5,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        FbmFields {
            seed_offset: &mut self.seed_offset,
            scale: &mut self.scale,
            octaves: &mut self.octaves,
            persistence: &mut self.persistence,
            lacunarity: &mut self.lacunarity,
        }
        .visit(visit);
        visit(optional(number(
            "depth",
            &mut self.depth,
            limits::GULLY_DEPTH,
            Typical::Even(0.0..=0.5),
        )));
        visit(optional(number(
            "gully_scale",
            &mut self.gully_scale,
            limits::GULLY_SCALE,
            Typical::Factor(limits::GULLY_SCALE),
        )));
        visit(whole(
            "gully_octaves",
            &mut self.gully_octaves,
            limits::GULLY_OCTAVES,
        ));
        visit(optional(number(
            "flat",
            &mut self.flat,
            limits::FLAT_SLOPE,
            Typical::Factor(0.01..=10.0),
        )));
    }

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        // The fBm stays within the noise bound, and the layers cut at most their depths below it.
        let mut cut = 0.0;
        let mut depth = self.depth;
        for _ in 0..self.gully_octaves {
            cut += depth;
            depth *= 0.5;
        }
        Bounds::new(-NOISE_BOUND - cut, NOISE_BOUND)
    }

    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
        let noise = noise.get(self.seed_offset);
        let permutation = noise.permutation();
        let seed = u32::from_le_bytes([
            permutation[0],
            permutation[1],
            permutation[2],
            permutation[3],
        ]);
        Arc::new(ErodedKernel {
            noise,
            seed,
            op: *self,
        })
    }
}

#[derive(Debug)]
struct ErodedKernel {
    noise: Arc<Simplex>,
    /// Seeds the gully cells' phases (from the node's noise table, so the seed offset moves them).
    seed: u32,
    op: Eroded,
}

impl Evaluate for ErodedKernel {
    fn value(&self, x: f64, z: f64, _: &Inputs<'_>) -> f64 {
        self.lanes([x], [z])[0]
    }

    fn values(&self, xs: &[f64], zs: &[f64], _: &Inputs<'_>, out: &mut [f64]) {
        kernel_points(self, xs, zs, out);
    }
}

impl LaneKernel for ErodedKernel {
    #[inline(always)]
    fn lanes<const N: usize>(&self, x: Lanes<N>, z: Lanes<N>) -> Lanes<N> {
        let op = &self.op;
        let (mut px, mut pz) = (x, z);
        for l in 0..N {
            px[l] *= op.scale;
            pz[l] *= op.scale;
        }
        let params = FbmParams {
            octaves: op.octaves,
            persistence: op.persistence,
            lacunarity: op.lacunarity,
        };
        let mountains = fbm_with_gradient_lanes(&self.noise, px, pz, params);
        // The slope each layer follows: the mountains', then with each layer's gullies added.
        let (mut sx, mut sz) = (mountains.dx, mountains.dy);
        let mut height = mountains.value;
        let flat_squared = op.flat * op.flat;
        let mut depth = op.depth;
        let mut frequency = op.gully_scale;
        for layer in 0..op.gully_octaves {
            // As fBm does, each layer reads its own part of the plane.
            let offset = f64::from(layer * 2);
            for l in 0..N {
                let steepness = sx[l] * sx[l] + sz[l] * sz[l];
                // Across the slope: a unit vector on steep ground, shorter on gentle ground (so
                // gullies widen as they fade), 0 on flat ground; one root and one division.
                let inverse = 1.0 / (steepness + flat_squared).sqrt();
                let across = [-sz[l] * inverse, sx[l] * inverse];
                let fade = steepness * inverse * inverse;
                let stripes = self.stripes(
                    (px[l] + offset) * frequency,
                    (pz[l] + offset) * frequency,
                    across,
                );
                let cut = depth * fade * 0.5;
                height[l] += cut * (stripes.value - 1.0);
                sx[l] += cut * frequency * stripes.dx;
                sz[l] += cut * frequency * stripes.dz;
            }
            depth *= 0.5;
            frequency *= 2.0;
        }
        height
    }
}

/// One layer of stripes at a point: its value in `-1..=1` and its gradient in cell units, with
/// the stripes' direction held fixed.
struct Stripes {
    value: f64,
    dx: f64,
    dz: f64,
}

impl ErodedKernel {
    /// The stripes at `(x, z)` in cell units, rising and falling once per cell along `across`.
    /// The four cells whose centres surround the point each give their own stripes (their own
    /// phase), blended with smoothstep weights that sum to 1 and fall to 0 with zero slope at
    /// the next centre, so the layer is C¹ wherever its direction is.
    #[inline(always)]
    fn stripes(&self, x: f64, z: f64, across: [f64; 2]) -> Stripes {
        let (x, z) = (x - 0.5, z - 0.5);
        let (cx, cz) = (x.floor(), z.floor());
        let (fx, fz) = (x - cx, z - cz);
        let (wx, dwx) = (fx * fx * (3.0 - 2.0 * fx), 6.0 * fx * (1.0 - fx));
        let (wz, dwz) = (fz * fz * (3.0 - 2.0 * fz), 6.0 * fz * (1.0 - fz));
        // Per cell column and row: the weight, its slope, and the coordinate's part of the hash.
        let (kx, dkx) = ([1.0 - wx, wx], [-dwx, dwx]);
        let (kz, dkz) = ([1.0 - wz, wz], [-dwz, dwz]);
        let hx = [cx, cx + 1.0].map(|c| cell_bits(c).wrapping_mul(0x85EB_CA6B));
        let hz = [cz, cz + 1.0].map(|c| cell_bits(c).wrapping_mul(0xC2B2_AE35));
        let along = fx * across[0] + fz * across[1];

        let mut stripes = Stripes {
            value: 0.0,
            dx: 0.0,
            dz: 0.0,
        };
        // The waves' slope along `across`, weighted; it turns into x and z parts once.
        let mut turn = 0.0;
        for b in 0..2 {
            for a in 0..2 {
                let phase = self.phase(hx[a] ^ hz[b]);
                let offset = a as f64 * across[0] + b as f64 * across[1];
                let (wave, slope) = wave(along - offset + phase);
                let weight = kx[a] * kz[b];
                stripes.value += weight * wave;
                stripes.dx += dkx[a] * kz[b] * wave;
                stripes.dz += kx[a] * dkz[b] * wave;
                turn += weight * slope;
            }
        }
        stripes.dx += turn * across[0];
        stripes.dz += turn * across[1];
        stripes
    }

    /// A cell's stripe phase in `0..1` from the hash parts of its column and row, with the
    /// node's seed: integer arithmetic only, so SIMD lanes compute it without table lookups.
    #[inline(always)]
    fn phase(&self, cell: u32) -> f64 {
        // A multiply-xorshift finish, so neighbouring cells get unrelated phases.
        let mut h = self.seed ^ cell;
        h ^= h >> 16;
        h = h.wrapping_mul(0x7FEB_352D);
        h ^= h >> 15;
        f64::from(h >> 8) / 16_777_216.0
    }
}

/// A whole cell coordinate folded to 32 bits: both halves of its `f64` bits take part, so the
/// pattern never repeats in the world. Adding 0 turns -0 into 0, so the cell at 0 has one set
/// of bits. Bits rather than a cast, because SIMD lanes do not vectorize Rust's saturating casts.
#[inline(always)]
fn cell_bits(c: f64) -> u32 {
    let bits = (c + 0.0).to_bits();
    (bits as u32) ^ ((bits >> 32) as u32).wrapping_mul(0x9E37_79B9)
}

/// A period-1 wave like `cos(2πu)`, cheaper and C¹: `1 - 32 (v (1 - v))²` for the fraction `v`
/// of `u`, 1 at whole `u` and -1 halfway, with its slope.
#[inline(always)]
fn wave(u: f64) -> (f64, f64) {
    let v = u - u.floor();
    let q = v * (1.0 - v);
    (1.0 - 32.0 * q * q, -64.0 * q * (1.0 - 2.0 * v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{Backend, kernel_points_with};
    use crate::tutorial::SeededRandom;

    /// Every backend this CPU runs, not only the fastest, against one point at a time: far and
    /// near points, cell borders, signed zeros and non-finite coordinates.
    #[test]
    fn every_available_backend_gives_the_bits_of_one_point() {
        let mut noise = NoiseTables::for_seed(77, DensityFunctions::default());
        let kernel = ErodedKernel {
            noise: noise.get(3),
            seed: 0x1234_5678,
            op: Eroded {
                scale: 0.013,
                ..Eroded::template()
            },
        };
        let mut random = SeededRandom::new(4);
        let specials = [
            0.0,
            -0.0,
            0.5,
            -38.461_538_461_538_46,
            1.0e15,
            f64::NAN,
            f64::INFINITY,
        ];
        let (xs, zs): (Vec<f64>, Vec<f64>) = (0..1001)
            .map(|k| {
                let reach = [10.0, 1.0e4, 1.0e9][k % 3];
                let x = if k % 17 == 0 {
                    specials[k / 17 % specials.len()]
                } else {
                    (random.next_float() - 0.5) * reach
                };
                (x, (random.next_float() - 0.5) * reach)
            })
            .unzip();
        for backend in Backend::available() {
            let mut out = vec![0.0; xs.len()];
            kernel_points_with(backend, &kernel, &xs, &zs, &mut out);
            for k in 0..xs.len() {
                let want = kernel.lanes([xs[k]], [zs[k]])[0];
                assert!(
                    out[k].to_bits() == want.to_bits() || (out[k].is_nan() && want.is_nan()),
                    "{backend:?} at ({}, {}): {} against {want}",
                    xs[k],
                    zs[k],
                    out[k]
                );
            }
        }
    }
}
