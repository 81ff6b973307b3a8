//! 3D Simplex noise and fBm, for the tutorial's last extension ("switch to 3D Simplex noise, treat
//! positive density as rock, and you get overhangs, arches and caves").
//!
//! The tutorial gives no 3D code, so this is Gustavson's 3D Simplex noise ("Simplex noise
//! demystified", 2005) on the tutorial's seeded permutation: the same Fisher–Yates shuffle as
//! [`Simplex::new`](crate::tutorial::Simplex::new), the 12 cube-edge gradients, and a corner
//! radius of `sqrt(0.5)` rather than Gustavson's `sqrt(0.6)`, whose corners reach past their
//! simplex and leave small jumps in the field (a test steps across simplex faces).
//!
//! It is written once, over `N` points side by side: one point is `N = 1`, and the batch
//! functions run the same operations two SIMD vectors at a time, so a point alone and a point in
//! a batch give the same bits. `tests/noise3.rs` holds both to a plain textbook version and
//! locks seeded values, so a change to the bits is a deliberate one.

use crate::batch::{Backend, LaneWork, on_backend};
use crate::tutorial::{FbmParams, Lanes, SeededRandom, wrap_256_lanes};

/// Skew factor for 3D: `1 / 3`.
pub const F3: f64 = 1.0 / 3.0;
/// Unskew factor for 3D: `1 / 6`.
pub const G3: f64 = 1.0 / 6.0;
/// What a corner's contribution is multiplied by. The largest sum of four corners found over
/// every point and every choice of gradients is 0.013007 (climbing from the largest of many
/// samples; `tests/noise3.rs` climbs again), so the noise stays within ±0.9886.
pub const NOISE3_SCALE: f64 = 76.0;
/// The largest magnitude [`Simplex3::noise`] takes, as found by climbing. Validation of 3D
/// density nodes uses a looser bound it can prove, four times each corner's largest share.
pub const NOISE3_BOUND: f64 = 0.99;

/// The 12 gradient directions: the midpoints of a cube's edges. Entry `h` is
/// `(±1, ±1, 0)` for `h < 4`, `(±1, 0, ±1)` below 8 and `(0, ±1, ±1)` below 12, the first
/// nonzero axis negative when bit 0 is set and the second when bit 1 is.
pub const GRAD3: [[f64; 3]; 12] = [
    [1.0, 1.0, 0.0],
    [-1.0, 1.0, 0.0],
    [1.0, -1.0, 0.0],
    [-1.0, -1.0, 0.0],
    [1.0, 0.0, 1.0],
    [-1.0, 0.0, 1.0],
    [1.0, 0.0, -1.0],
    [-1.0, 0.0, -1.0],
    [0.0, 1.0, 1.0],
    [0.0, -1.0, 1.0],
    [0.0, 1.0, -1.0],
    [0.0, -1.0, -1.0],
];

/// Seeded 3D Simplex noise: the tutorial's permutation for the seed, read as Gustavson's
/// `perm[i + perm[j + perm[k]]] % 12`.
#[derive(Clone)]
pub struct Simplex3 {
    /// The permutation, doubled so `p[a + p[b]]` never runs off the end, in words (a lane reads
    /// a word; there is no byte gather).
    p: Box<[u32; 512]>,
    /// `p[i] % 12`, the gradient index of the corner whose hash chain ends at `i`.
    p12: Box<[u32; 512]>,
}

impl std::fmt::Debug for Simplex3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simplex3")
            .field("permutation", &&self.p[..256])
            .finish_non_exhaustive()
    }
}

impl Simplex3 {
    /// The permutation of [`Simplex::new`](crate::tutorial::Simplex::new) for `seed` (the
    /// tutorial's Fisher–Yates shuffle).
    #[must_use]
    pub fn new(seed: i64) -> Self {
        let mut random = SeededRandom::new(seed);
        let mut permutation: [u32; 256] = std::array::from_fn(|i| i as u32);
        for i in (1..256usize).rev() {
            let j = (random.next_float() * (i + 1) as f64).floor() as usize;
            permutation.swap(i, j);
        }
        Self {
            p: Box::new(std::array::from_fn(|i| permutation[i & 255])),
            p12: Box::new(std::array::from_fn(|i| permutation[i & 255] % 12)),
        }
    }

    /// The shuffled permutation of `0..256`, the same as
    /// [`Simplex::permutation`](crate::tutorial::Simplex::permutation) for the seed.
    #[must_use]
    pub fn permutation(&self) -> [u8; 256] {
        std::array::from_fn(|i| self.p[i] as u8)
    }

    /// 3D Simplex noise at `(x, y, z)`, within ±[`NOISE3_BOUND`] (NaN for a NaN coordinate).
    #[must_use]
    pub fn noise(&self, x: f64, y: f64, z: f64) -> f64 {
        self.noise_lanes([x], [y], [z])[0]
    }

    /// Fractal Brownian motion over [`Simplex3::noise`]: `params.octaves` layers, each
    /// `lacunarity` times the frequency and `persistence` times the amplitude of the one
    /// before, divided back by the sum of the amplitudes. As in the tutorial's 2D
    /// [`fbm`](crate::tutorial::fbm),
    /// octave `i` is first shifted by `2i` on every axis, so the octaves do not share an origin.
    #[must_use]
    pub fn fbm(&self, x: f64, y: f64, z: f64, params: FbmParams) -> f64 {
        self.fbm_lanes([x], [y], [z], params)[0]
    }

    /// [`Simplex3::noise`] at every `(xs[k], ys[k], zs[k])`, written to `out[k]`: the same bits,
    /// SIMD where the CPU has it.
    ///
    /// # Panics
    /// If the four slices differ in length.
    pub fn noise_points(&self, xs: &[f64], ys: &[f64], zs: &[f64], out: &mut [f64]) {
        self.noise_points_on(Backend::detect(), xs, ys, zs, out);
    }

    /// [`Simplex3::fbm`] at every `(xs[k], ys[k], zs[k])`, written to `out[k]`: the same bits,
    /// SIMD where the CPU has it.
    ///
    /// # Panics
    /// If the four slices differ in length.
    pub fn fbm_points(
        &self,
        xs: &[f64],
        ys: &[f64],
        zs: &[f64],
        params: FbmParams,
        out: &mut [f64],
    ) {
        self.fbm_points_on(Backend::detect(), xs, ys, zs, params, out);
    }

    /// [`Simplex3::noise_points`] on a chosen backend, to compare them; the same bits on each.
    ///
    /// # Panics
    /// If the slices differ in length, or `backend` is not in [`Backend::available`].
    fn noise_points_on(
        &self,
        backend: Backend,
        xs: &[f64],
        ys: &[f64],
        zs: &[f64],
        out: &mut [f64],
    ) {
        let points = Points3::new(xs, ys, zs, out);
        on_backend(
            backend,
            &mut Blocks3 {
                simplex: self,
                field: Field3::Noise,
                points,
            },
        );
    }

    /// [`Simplex3::fbm_points`] on a chosen backend, to compare them; the same bits on each.
    ///
    /// # Panics
    /// If the slices differ in length, or `backend` is not in [`Backend::available`].
    fn fbm_points_on(
        &self,
        backend: Backend,
        xs: &[f64],
        ys: &[f64],
        zs: &[f64],
        params: FbmParams,
        out: &mut [f64],
    ) {
        let points = Points3::new(xs, ys, zs, out);
        on_backend(
            backend,
            &mut Blocks3 {
                simplex: self,
                field: Field3::Fbm(params),
                points,
            },
        );
    }

    /// [`Simplex3::noise`] on `N` points side by side.
    #[inline(always)]
    fn noise_lanes<const N: usize>(&self, x: Lanes<N>, y: Lanes<N>, z: Lanes<N>) -> Lanes<N> {
        let mut sum = [0.0; N];
        for l in 0..N {
            let (x, y, z) = (x[l], y[l], z[l]);
            let s = (x + y + z) * F3;
            let i = (x + s).floor();
            let j = (y + s).floor();
            let k = (z + s).floor();
            let t = (i + j + k) * G3;
            let x0 = x - (i - t);
            let y0 = y - (j - t);
            let z0 = z - (k - t);
            // Which of the six tetrahedra in the skewed cube holds the point: the second corner
            // steps along the largest offset, the third along the two largest.
            let i1 = x0 >= y0 && x0 >= z0;
            let j1 = y0 > x0 && y0 >= z0;
            let k1 = z0 > x0 && z0 > y0;
            let i2 = x0 >= y0 || x0 >= z0;
            let j2 = y0 > x0 || y0 >= z0;
            let k2 = z0 > x0 || z0 > y0;
            let (ii, jj, kk) = (wrap_256_lanes(i), wrap_256_lanes(j), wrap_256_lanes(k));
            let step = |b: bool| usize::from(b);
            let unit = |b: bool| if b { 1.0 } else { 0.0 };
            let n0 = self.corner(ii, jj, kk, x0, y0, z0);
            let n1 = self.corner(
                ii + step(i1),
                jj + step(j1),
                kk + step(k1),
                x0 - unit(i1) + G3,
                y0 - unit(j1) + G3,
                z0 - unit(k1) + G3,
            );
            let n2 = self.corner(
                ii + step(i2),
                jj + step(j2),
                kk + step(k2),
                x0 - unit(i2) + 2.0 * G3,
                y0 - unit(j2) + 2.0 * G3,
                z0 - unit(k2) + 2.0 * G3,
            );
            let n3 = self.corner(
                ii + 1,
                jj + 1,
                kk + 1,
                x0 - 1.0 + 3.0 * G3,
                y0 - 1.0 + 3.0 * G3,
                z0 - 1.0 + 3.0 * G3,
            );
            sum[l] = NOISE3_SCALE * (n0 + n1 + n2 + n3);
        }
        sum
    }

    /// One corner's contribution: `(0.5 - d²)^4 * dot(gradient, offset)`, or 0 beyond
    /// `sqrt(0.5)`. `i`, `j` and `k` are below 257.
    #[inline(always)]
    fn corner(&self, i: usize, j: usize, k: usize, x: f64, y: f64, z: f64) -> f64 {
        // The masks change nothing (every index is below 512) but the bounds checks.
        let inner = self.p[k & 511] as usize;
        let middle = self.p[(j + inner) & 511] as usize;
        let g = gradient(self.p12[(i + middle) & 511]);
        let t = 0.5 - x * x - y * y - z * z;
        let t2 = t * t;
        let value = t2 * t2 * (g[0] * x + g[1] * y + g[2] * z);
        // Outside the corner's reach the bits are cleared, giving +0 as a select would: the
        // batch paths run about a fifth faster with the mask.
        let inside = u64::from(t >= 0.0 || t.is_nan()).wrapping_neg();
        f64::from_bits(value.to_bits() & inside)
    }

    /// [`Simplex3::fbm`] on `N` points side by side.
    #[inline(always)]
    fn fbm_lanes<const N: usize>(
        &self,
        x: Lanes<N>,
        y: Lanes<N>,
        z: Lanes<N>,
        params: FbmParams,
    ) -> Lanes<N> {
        let mut total = [0.0; N];
        let mut max_value = 0.0;
        let mut frequency = 1.0;
        let mut amplitude = 1.0;
        for octave in 0..params.octaves {
            let offset = f64::from(octave * 2);
            let at = |c: Lanes<N>| c.map(|c| (c + offset) * frequency);
            let noise = self.noise_lanes(at(x), at(y), at(z));
            for l in 0..N {
                total[l] += noise[l] * amplitude;
            }
            max_value += amplitude;
            amplitude *= params.persistence;
            frequency *= params.lacunarity;
        }
        total.map(|t| t / max_value)
    }
}

/// `GRAD3[h]` as selects, which vectorize where a table read would be three gathers (a test
/// checks every entry).
#[inline(always)]
fn gradient(h: u32) -> [f64; 3] {
    let first = if h & 1 == 0 { 1.0 } else { -1.0 };
    let second = if h & 2 == 0 { 1.0 } else { -1.0 };
    if h < 4 {
        [first, second, 0.0]
    } else if h < 8 {
        [first, 0.0, second]
    } else {
        [0.0, first, second]
    }
}

/// The points of a batch and where their values go.
struct Points3<'a> {
    xs: &'a [f64],
    ys: &'a [f64],
    zs: &'a [f64],
    out: &'a mut [f64],
}

impl<'a> Points3<'a> {
    fn new(xs: &'a [f64], ys: &'a [f64], zs: &'a [f64], out: &'a mut [f64]) -> Self {
        assert_eq!(xs.len(), ys.len(), "xs and ys must have the same length");
        assert_eq!(xs.len(), zs.len(), "xs and zs must have the same length");
        assert_eq!(xs.len(), out.len(), "out must have one slot per point");
        Self { xs, ys, zs, out }
    }
}

/// Which field a batch fills.
#[derive(Clone, Copy)]
enum Field3 {
    Noise,
    Fbm(FbmParams),
}

/// A batch of 3D noise as [`LaneWork`]: blocks of `L` points, the last padded with zeros whose
/// lanes are dropped.
struct Blocks3<'a> {
    simplex: &'a Simplex3,
    field: Field3,
    points: Points3<'a>,
}

impl LaneWork for Blocks3<'_> {
    #[inline(always)]
    fn run<const L: usize>(&mut self) {
        let Points3 { xs, ys, zs, out } = &mut self.points;
        let blocks = xs.chunks(L).zip(ys.chunks(L)).zip(zs.chunks(L));
        for (((xs, ys), zs), out) in blocks.zip(out.chunks_mut(L)) {
            let lanes = |c: &[f64]| {
                let mut lanes = [0.0; L];
                lanes[..c.len()].copy_from_slice(c);
                lanes
            };
            let (x, y, z) = (lanes(xs), lanes(ys), lanes(zs));
            let values = match self.field {
                Field3::Noise => self.simplex.noise_lanes(x, y, z),
                Field3::Fbm(params) => self.simplex.fbm_lanes(x, y, z, params),
            };
            out.copy_from_slice(&values[..out.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every backend this CPU runs, not only the fastest, against one point at a time, over
    /// batches whose last block is partial.
    #[test]
    fn every_available_backend_gives_the_bits_of_one_point() {
        let simplex = Simplex3::new(2024);
        let mut random = SeededRandom::new(5);
        let count = 1003;
        let scale = |k: usize| [0.01, 1.0, 100.0, 1.0e5, 1.0e7][k % 5];
        let mut coordinate = |k: usize| (random.next_float() - 0.5) * scale(k);
        let xs: Vec<f64> = (0..count).map(&mut coordinate).collect();
        let ys: Vec<f64> = (0..count).map(|k| coordinate(k + 1)).collect();
        let zs: Vec<f64> = (0..count).map(|k| coordinate(k + 2)).collect();
        let params = FbmParams {
            octaves: 5,
            persistence: 0.55,
            lacunarity: 2.1,
        };
        for backend in Backend::available() {
            let mut out = vec![f64::NAN; count];
            simplex.noise_points_on(backend, &xs, &ys, &zs, &mut out);
            for k in 0..count {
                let want = simplex.noise(xs[k], ys[k], zs[k]);
                assert_eq!(out[k].to_bits(), want.to_bits(), "{backend:?} noise at {k}");
            }
            simplex.fbm_points_on(backend, &xs, &ys, &zs, params, &mut out);
            for k in 0..count {
                let want = simplex.fbm(xs[k], ys[k], zs[k], params);
                assert_eq!(out[k].to_bits(), want.to_bits(), "{backend:?} fbm at {k}");
            }
        }
    }

    #[test]
    fn the_gradient_selects_are_the_table() {
        for (h, g) in GRAD3.iter().enumerate() {
            assert_eq!(gradient(h as u32), *g, "gradient {h}");
        }
    }
}
