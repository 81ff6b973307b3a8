//! The tutorial's functions, one to one, under their Rust names.
//!
//! Everything here is `f64` and follows the tutorial's JavaScript operation by operation, so it
//! gives the same bits as the JavaScript (and as its C# and C++ built with `-ffp-contract=off`).
//! The golden test in `tests/golden.rs` checks that against vectors the JavaScript produced.
//!
//! # Seeds
//! Seeds follow the JavaScript arithmetic: a seed is an integer of type `i64` and nothing wraps
//! at `i32::MAX`, so `seed + 1` of `2147483647` is `2147483648` (the C# and C++ listings take an
//! `int` and would overflow there). Seeds are exact for magnitudes up to 2^53, JavaScript's safe
//! integers.
//!
//! # Fast paths
//! [`Simplex::noise_points`], [`Simplex::fbm_points`] and [`Simplex::domain_warp_points`] in
//! [`crate::batch`] compute the same functions over many points at once with SIMD lanes and give
//! identical bits.

mod nodes;

pub use nodes::{cell_node, clamp_node, mix_node, simplex_node, warp_node};
use rand_core::{RngCore, SeedableRng};

/// The modulus of the Lehmer generator (2^31 - 1, a prime).
const MODULUS: i64 = 2_147_483_647;
/// The multiplier of the Lehmer generator (MINSTD).
const MULTIPLIER: i64 = 16_807;

/// The tutorial's `SeededRandom`: a Lehmer (MINSTD) generator, same seed, same sequence.
///
/// It also implements [`rand_core::RngCore`] and [`rand_core::SeedableRng`], so the rand
/// ecosystem can draw from it. Those draws advance the same sequence (two steps per `u32`), so
/// mix them with [`SeededRandom::next`] only if you do not need the tutorial's numbers after.
/// Its quality is MINSTD's: fine for worlds, not for secrets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeededRandom {
    state: i64,
}

impl SeededRandom {
    /// Starts the sequence for `seed`. Seeds of 0 or below are moved into range exactly like the
    /// tutorial does (`seed % 2147483647`, then `+ 2147483646` if that is not positive).
    #[must_use]
    pub fn new(seed: i64) -> Self {
        let mut state = seed % MODULUS;
        if state <= 0 {
            state += MODULUS - 1;
        }
        Self { state }
    }

    /// The next integer of the sequence, in `1..=2147483646`. Seeds congruent to -2147483646
    /// modulo 2147483647 leave the generator at 0 for ever, exactly as the tutorial's does.
    #[expect(
        clippy::should_implement_trait,
        reason = "the tutorial's name; this is no `Iterator`"
    )]
    pub fn next(&mut self) -> i64 {
        self.state = self.state * MULTIPLIER % MODULUS;
        self.state
    }

    /// The next float of the sequence, in `0.0..1.0` (but see [`SeededRandom::next`] on the
    /// degenerate seeds, which give a constant, slightly negative value, as in the tutorial).
    pub fn next_float(&mut self) -> f64 {
        (self.next() - 1) as f64 / (MODULUS - 1) as f64
    }
}

impl RngCore for SeededRandom {
    fn next_u32(&mut self) -> u32 {
        // Each step yields 31 bits; the top 16 of two steps make one well-spread u32.
        let high = (self.next() >> 15) as u32 & 0xffff;
        let low = (self.next() >> 15) as u32 & 0xffff;
        high << 16 | low
    }

    fn next_u64(&mut self) -> u64 {
        u64::from(self.next_u32()) << 32 | u64::from(self.next_u32())
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(4) {
            let bytes = self.next_u32().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

impl SeedableRng for SeededRandom {
    type Seed = [u8; 8];

    /// The seed's bytes are a little-endian `i64` passed to [`SeededRandom::new`].
    fn from_seed(seed: Self::Seed) -> Self {
        Self::new(i64::from_le_bytes(seed))
    }

    /// `seed_from_u64(42)` gives the tutorial's sequence for seed 42.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state as i64)
    }
}

/// The octave parameters of [`fbm`]. The default is the tutorial's: 4 octaves, persistence 0.5,
/// lacunarity 2.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FbmParams {
    /// Layers of noise, each finer than the last.
    pub octaves: u32,
    /// Amplitude factor from one octave to the next.
    pub persistence: f64,
    /// Frequency factor from one octave to the next.
    pub lacunarity: f64,
}

impl Default for FbmParams {
    fn default() -> Self {
        Self {
            octaves: 4,
            persistence: 0.5,
            lacunarity: 2.0,
        }
    }
}

impl FbmParams {
    /// `octaves` octaves with the tutorial's persistence (0.5) and lacunarity (2).
    #[must_use]
    pub fn octaves(octaves: u32) -> Self {
        Self {
            octaves,
            ..Self::default()
        }
    }
}

/// The parameters of a domain warp ([`warp_offset`]): how far points are
/// pushed, the frequency of the push fields, how many warps (0, 1 or 2; more behave as 2), and
/// the push fields' octaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarpParams {
    /// How far points get pushed.
    pub strength: f64,
    /// Frequency of the push fields.
    pub frequency: f64,
    /// 0, 1 or 2 warps.
    pub levels: u32,
    /// Octaves of the push fields.
    pub fbm: FbmParams,
}

impl WarpParams {
    /// One warp over two 3-octave fields: the tutorial's `warpNode` and its border wobble.
    #[must_use]
    pub fn wobble(strength: f64, frequency: f64) -> Self {
        Self {
            strength,
            frequency,
            levels: 1,
            fbm: FbmParams::octaves(3),
        }
    }
}

/// Skew factor for 2D: `0.5 * (sqrt(3) - 1)`, written as its exact `f64`.
pub const F2: f64 = 0.366_025_403_784_438_6;
/// Unskew factor for 2D: `(3 - sqrt(3)) / 6`, written as its exact `f64`.
pub const G2: f64 = 0.211_324_865_405_187_13;
/// The 8 gradient directions: 4 diagonals and 4 axes.
pub const GRAD2: [[f64; 2]; 8] = [
    [1.0, 1.0],
    [-1.0, 1.0],
    [1.0, -1.0],
    [-1.0, -1.0],
    [1.0, 0.0],
    [-1.0, 0.0],
    [0.0, 1.0],
    [0.0, -1.0],
];

/// Words in [`Simplex`]'s corner table: 256 × 256 one-byte entries, four to a word, and one
/// word more so that a 4-byte SIMD gather at the last entry stays inside.
pub(crate) const CORNER_TABLE_WORDS: usize = 256 * 256 / 4 + 1;

/// [`Simplex`]'s corner table: entry `a << 8 | b` is byte `a << 8 | b` of the table in memory
/// (little-endian words). Its length is in the type, so a gather's bounds are too.
pub(crate) type CornerTable = [u32; CORNER_TABLE_WORDS];

/// The tutorial's 2D Simplex noise with a seeded, shuffled permutation table.
#[derive(Clone)]
pub struct Simplex {
    /// The permutation, doubled so `p[a + p[b]]` never runs off the end.
    p: [u8; 512],
    /// `p[a + p[b]] & 7` for every `a, b` in `0..256`: one lookup per corner, in words that
    /// SIMD lanes gather (there is no byte gather).
    pub(crate) corner_gradients: Box<CornerTable>,
}

impl std::fmt::Debug for Simplex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simplex")
            .field("permutation", &&self.p[..256])
            .finish_non_exhaustive()
    }
}

impl Simplex {
    /// Builds the permutation table for `seed` with the tutorial's Fisher–Yates shuffle.
    #[must_use]
    pub fn new(seed: i64) -> Self {
        let mut random = SeededRandom::new(seed);
        let mut permutation: [u8; 256] = std::array::from_fn(|i| i as u8);
        for i in (1..256usize).rev() {
            let j = (random.next_float() * (i + 1) as f64).floor() as usize;
            permutation.swap(i, j);
        }
        let p: [u8; 512] = std::array::from_fn(|i| permutation[i & 255]);
        let mut corner_gradients = Box::new([0u32; CORNER_TABLE_WORDS]);
        for a in 0..256 {
            for b in 0..256 {
                let entry = u32::from(p[a + usize::from(p[b])] & 7);
                corner_gradients[(a << 6) | (b >> 2)] |= entry << ((b & 3) * 8);
            }
        }
        Self {
            p,
            corner_gradients,
        }
    }

    /// The shuffled permutation of `0..256` (the first half of the doubled table).
    #[must_use]
    pub fn permutation(&self) -> &[u8] {
        &self.p[..256]
    }

    /// 2D Simplex noise at `(x, y)`, roughly in `-1..1`.
    #[must_use]
    pub fn noise(&self, x: f64, y: f64) -> f64 {
        let [c0, c1, c2] = self.corners([x], [y]);
        70.0 * (corner(c0.hash[0], c0.x[0], c0.y[0])
            + corner(c1.hash[0], c1.x[0], c1.y[0])
            + corner(c2.hash[0], c2.x[0], c2.y[0]))
    }

    /// [`Simplex::noise`] at `(x, y)` with its analytic gradient: `value` is bit for bit
    /// `noise(x, y)`, and `gradient` its partial derivatives in `x` and `y`, from the same three
    /// corners rather than extra samples (the noise is C¹, so the gradient is continuous).
    #[must_use]
    pub fn noise_with_gradient(&self, x: f64, y: f64) -> NoiseGradient {
        self.noise_with_gradient_lanes([x], [y]).point(0)
    }

    /// [`Simplex::noise_with_gradient`] on `N` points side by side.
    #[inline(always)]
    pub(crate) fn noise_with_gradient_lanes<const N: usize>(
        &self,
        x: Lanes<N>,
        y: Lanes<N>,
    ) -> GradientLanes<N> {
        let corners = self.corners(x, y);
        let mut parts = [GradientLanes::<N>::ZERO; 3];
        for (part, c) in parts.iter_mut().zip(&corners) {
            for l in 0..N {
                let (x, y) = (c.x[l], c.y[l]);
                let t = 0.5 - x * x - y * y;
                let t2 = t * t;
                let g = gradient::<N>(c.hash[l]);
                let dot = g[0] * x + g[1] * y;
                // d/dx of t⁴·dot = 4t³·(−2x)·dot + t⁴·g_x: the offsets move one for one with (x, y).
                let slope = -8.0 * t2 * t * dot;
                let inside = t >= 0.0 || t.is_nan();
                part.value[l] = if inside { t2 * t2 * dot } else { 0.0 };
                part.dx[l] = if inside {
                    slope * x + t2 * t2 * g[0]
                } else {
                    0.0
                };
                part.dy[l] = if inside {
                    slope * y + t2 * t2 * g[1]
                } else {
                    0.0
                };
            }
        }
        // Summed in `noise`'s order, so the value keeps its bits.
        let [a, b, c] = parts;
        let mut sum = GradientLanes::<N>::ZERO;
        for l in 0..N {
            sum.value[l] = 70.0 * (a.value[l] + b.value[l] + c.value[l]);
            sum.dx[l] = 70.0 * (a.dx[l] + b.dx[l] + c.dx[l]);
            sum.dy[l] = 70.0 * (a.dy[l] + b.dy[l] + c.dy[l]);
        }
        sum
    }

    /// The three corners of the simplex holding each `(x, y)`: their gradient hashes and the
    /// point's offsets from them.
    #[inline(always)]
    fn corners<const N: usize>(&self, x: Lanes<N>, y: Lanes<N>) -> [Corners<N>; 3] {
        let mut corners = [Corners::<N>::ZERO; 3];
        for l in 0..N {
            let (x, y) = (x[l], y[l]);
            let s = (x + y) * F2;
            let i = (x + s).floor();
            let j = (y + s).floor();
            let t = (i + j) * G2;
            let x0 = x - (i - t);
            let y0 = y - (j - t);

            let (i1, j1): (usize, usize) = if x0 > y0 { (1, 0) } else { (0, 1) };
            // One point keeps the scalar code's cast; lanes take the form that vectorizes (Rust's
            // saturating casts do not). The two agree (`wrap_256_lanes` says how).
            let wrap = if N == 1 { wrap_256 } else { wrap_256_lanes };
            let ii = wrap(i);
            let jj = wrap(j);
            corners[0].set(l, self.hash::<N>(ii, jj), x0, y0);
            corners[1].set(
                l,
                self.hash::<N>(ii + i1, jj + j1),
                x0 - i1 as f64 + G2,
                y0 - j1 as f64 + G2,
            );
            corners[2].set(
                l,
                self.hash::<N>(ii + 1, jj + 1),
                x0 - 1.0 + 2.0 * G2,
                y0 - 1.0 + 2.0 * G2,
            );
        }
        corners
    }
}

impl Simplex {
    /// The tutorial's corner hash `p[a + p[b]] & 7`, for `a` and `b` below 257 (the doubled
    /// table makes 256 read as 0). One point reads the 512-byte permutation as the tutorial
    /// does; lanes read the packed table, one 32-bit gather per corner (there is no byte
    /// gather). The two agree (a test checks every corner).
    #[inline(always)]
    fn hash<const N: usize>(&self, a: usize, b: usize) -> u32 {
        if N == 1 {
            let p = &self.p;
            // Both indices are below 511, so the masks change nothing but the bounds checks.
            u32::from(p[(a + usize::from(p[b & 511])) & 511] & 7)
        } else {
            // The masks bound the word index below the table's length, so no bounds are checked.
            let entry = (a & 255) << 8 | (b & 255);
            (self.corner_gradients[entry >> 2] >> ((entry & 3) * 8)) & 7
        }
    }
}

/// `N` points side by side, one per lane: the form the batch paths run, whose loops over lanes
/// the compiler turns into SIMD. One point is `N = 1`, so a point alone and a point in a batch go
/// through the same operations and give the same bits.
pub(crate) type Lanes<const N: usize> = [f64; N];

/// [`NoiseGradient`]s on `N` lanes.
#[derive(Clone, Copy)]
pub(crate) struct GradientLanes<const N: usize> {
    pub(crate) value: Lanes<N>,
    pub(crate) dx: Lanes<N>,
    pub(crate) dy: Lanes<N>,
}

impl<const N: usize> GradientLanes<N> {
    const ZERO: Self = Self {
        value: [0.0; N],
        dx: [0.0; N],
        dy: [0.0; N],
    };

    fn point(&self, l: usize) -> NoiseGradient {
        NoiseGradient {
            value: self.value[l],
            gradient: [self.dx[l], self.dy[l]],
        }
    }
}

/// A noise value with its gradient ([`Simplex::noise_with_gradient`], [`fbm_with_gradient`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseGradient {
    /// The noise itself.
    pub value: f64,
    /// Its partial derivatives along x and y.
    pub gradient: [f64; 2],
}

/// One simplex corner seen from each of `N` sample points.
#[derive(Clone, Copy)]
struct Corners<const N: usize> {
    /// The permutation hash that picks the corner's gradient.
    hash: [u32; N],
    /// The points' offsets from the corner.
    x: Lanes<N>,
    y: Lanes<N>,
}

impl<const N: usize> Corners<N> {
    const ZERO: Self = Self {
        hash: [0; N],
        x: [0.0; N],
        y: [0.0; N],
    };

    #[inline(always)]
    fn set(&mut self, l: usize, hash: u32, x: f64, y: f64) {
        self.hash[l] = hash;
        self.x[l] = x;
        self.y[l] = y;
    }
}

/// JavaScript's `i & 255` for an integral `f64`: `ToInt32` wraps modulo 2^32, so this is `i`
/// modulo 256, and 0 for NaN and the infinities. At 2^60 and above every `f64` is a multiple of
/// 256, so the answer there is 0 as well.
#[inline]
pub(crate) fn wrap_256(i: f64) -> usize {
    const EVERY_F64_IS_A_MULTIPLE_OF_256: f64 = 1_152_921_504_606_846_976.0; // 2^60
    if i.abs() < EVERY_F64_IS_A_MULTIPLE_OF_256 {
        (i as i64 & 255) as usize
    } else {
        0
    }
}

/// [`wrap_256`] in arithmetic that SIMD lanes vectorize, the same answer for every integral or
/// infinite `i` (and some byte for NaN, where the noise is NaN whatever the corner): `i` less
/// 256 times the floor of `i / 256` is `i` modulo 256 exactly (every step is exact: a power of
/// two scales, and the difference is a small integer), and adding 2^52 puts that integer in
/// the low bits. At and beyond 2^60 every `f64` is a multiple of 256 and the answer is 0, as
/// there; for the infinities the difference is NaN, whose low byte is 0.
#[inline(always)]
pub(crate) fn wrap_256_lanes(i: f64) -> usize {
    const LOW_BITS: f64 = 4_503_599_627_370_496.0; // 2^52
    let low = i - 256.0 * (i * (1.0 / 256.0)).floor();
    ((low + LOW_BITS).to_bits() & 255) as usize
}

/// `GRAD2[hash & 7]`: one point reads the table, lanes take selects, which vectorize where a
/// table read would be two gathers. The same values (a test checks every hash).
#[inline(always)]
fn gradient<const N: usize>(hash: u32) -> [f64; 2] {
    let h = hash & 7;
    if N == 1 {
        return GRAD2[h as usize];
    }
    let sign = |bit: u32| if h & bit == 0 { 1.0 } else { -1.0 };
    if h < 4 {
        [sign(1), sign(2)]
    } else if h < 6 {
        [sign(1), 0.0]
    } else {
        [0.0, sign(1)]
    }
}

/// One corner's contribution: `(0.5 - d²)^4 * dot(gradient, offset)`, or 0 beyond `sqrt(0.5)`.
#[inline]
fn corner(hash: u32, x: f64, y: f64) -> f64 {
    let mut t = 0.5 - x * x - y * y;
    if t < 0.0 {
        return 0.0;
    }
    t *= t;
    let g = gradient::<1>(hash);
    t * t * (g[0] * x + g[1] * y)
}

/// Fractal Brownian motion: `octaves` layers of noise, each `lacunarity` times the frequency and
/// `persistence` times the amplitude of the one before, divided back into `-1..1`.
///
/// The tutorial's defaults are `octaves = 4`, `persistence = 0.5`, `lacunarity = 2.0`
/// ([`FbmParams::default`]).
#[must_use]
pub fn fbm(
    simplex: &Simplex,
    x: f64,
    y: f64,
    octaves: u32,
    persistence: f64,
    lacunarity: f64,
) -> f64 {
    let mut total = 0.0;
    let mut walk = Octaves::new([x], [y], octaves, persistence, lacunarity);
    for at in &mut walk {
        total += simplex.noise(at.x[0], at.y[0]) * at.amplitude;
    }
    total / walk.max_value
}

/// [`fbm`] with its analytic gradient: `value` is bit for bit `fbm(..)`, and each octave adds
/// its noise gradient times its amplitude and frequency (the chain rule).
#[must_use]
pub fn fbm_with_gradient(
    simplex: &Simplex,
    x: f64,
    y: f64,
    octaves: u32,
    persistence: f64,
    lacunarity: f64,
) -> NoiseGradient {
    let params = FbmParams {
        octaves,
        persistence,
        lacunarity,
    };
    fbm_with_gradient_lanes(simplex, [x], [y], params).point(0)
}

/// [`fbm_with_gradient`] on `N` points side by side.
#[inline(always)]
pub(crate) fn fbm_with_gradient_lanes<const N: usize>(
    simplex: &Simplex,
    x: Lanes<N>,
    y: Lanes<N>,
    params: FbmParams,
) -> GradientLanes<N> {
    let mut total = GradientLanes::<N>::ZERO;
    let mut walk = Octaves::new(x, y, params.octaves, params.persistence, params.lacunarity);
    for at in &mut walk {
        let octave = simplex.noise_with_gradient_lanes(at.x, at.y);
        for l in 0..N {
            total.value[l] += octave.value[l] * at.amplitude;
            total.dx[l] += octave.dx[l] * at.amplitude * at.frequency;
            total.dy[l] += octave.dy[l] * at.amplitude * at.frequency;
        }
    }
    let max_value = walk.max_value;
    for l in 0..N {
        total.value[l] /= max_value;
        total.dx[l] /= max_value;
        total.dy[l] /= max_value;
    }
    total
}

/// Where and how strongly one fBm octave samples, for `N` points.
#[derive(Clone, Copy)]
struct Octave<const N: usize> {
    /// The octave's sample points (offset and scaled).
    x: Lanes<N>,
    y: Lanes<N>,
    amplitude: f64,
    frequency: f64,
}

/// fBm's octaves in order, summing their amplitudes as it goes. An iterator rather than a
/// visiting function, so each octave's work stays in its caller's body (and in its SIMD lanes).
struct Octaves<const N: usize> {
    x: Lanes<N>,
    y: Lanes<N>,
    next: u32,
    octaves: u32,
    persistence: f64,
    lacunarity: f64,
    frequency: f64,
    amplitude: f64,
    /// The sum of the amplitudes of the octaves given so far.
    max_value: f64,
}

impl<const N: usize> Octaves<N> {
    #[inline(always)]
    fn new(x: Lanes<N>, y: Lanes<N>, octaves: u32, persistence: f64, lacunarity: f64) -> Self {
        Self {
            x,
            y,
            next: 0,
            octaves,
            persistence,
            lacunarity,
            frequency: 1.0,
            amplitude: 1.0,
            max_value: 0.0,
        }
    }
}

impl<const N: usize> Iterator for Octaves<N> {
    type Item = Octave<N>;

    #[inline(always)]
    fn next(&mut self) -> Option<Octave<N>> {
        if self.next == self.octaves {
            return None;
        }
        let offset = f64::from(self.next * 2);
        let (frequency, amplitude) = (self.frequency, self.amplitude);
        self.next += 1;
        self.max_value += amplitude;
        self.amplitude *= self.persistence;
        self.frequency *= self.lacunarity;
        let mut octave = Octave {
            x: self.x,
            y: self.y,
            amplitude,
            frequency,
        };
        for l in 0..N {
            octave.x[l] = (octave.x[l] + offset) * frequency;
            octave.y[l] = (octave.y[l] + offset) * frequency;
        }
        Some(octave)
    }
}

/// [`fbm`] with the tutorial's default parameters (4 octaves, persistence 0.5, lacunarity 2).
#[must_use]
pub fn fbm4(simplex: &Simplex, x: f64, y: f64) -> f64 {
    fbm(simplex, x, y, 4, 0.5, 2.0)
}

/// Inigo Quilez's domain warp: `fbm(p)` for `levels` 0, `fbm(p + strength * q)` for 1, and
/// `fbm(p + strength * r)` with `r` sampled at the already-pushed point for 2.
///
/// The tutorial's defaults are `strength = 4`, `frequency = 1`, `levels = 1`; levels above 2
/// behave as 2, like the tutorial's `levels >= 2`.
#[must_use]
pub fn domain_warp(
    simplex: &Simplex,
    x: f64,
    y: f64,
    strength: f64,
    frequency: f64,
    levels: u32,
) -> f64 {
    let warp = WarpParams {
        strength,
        frequency,
        levels,
        fbm: FbmParams::default(),
    };
    let [qx, qy] = warp_offset(simplex, x, y, &warp);
    fbm4(simplex, x + strength * qx, y + strength * qy)
}

/// Where a domain warp's second push field reads, relative to the first: the tutorial's shift,
/// which makes the two fields unrelated.
pub(crate) const SECOND_FIELD: [f64; 2] = [5.2, 1.3];
/// Where level 2 reads its two push fields, relative to the level-1 point.
pub(crate) const LEVEL_TWO_FIELDS: [[f64; 2]; 2] = [[1.7, 9.2], [8.3, 2.8]];

/// The push `q` of a domain warp at `(x, y)`: the pushed point is `(x, y) + strength * q`.
/// `q` is 0 for level 0; for level 1 it is two fBm fields read at `(x, y) * frequency` (the
/// second shifted by `(5.2, 1.3)`); level 2 reads two more at the level-1 point. This one piece
/// serves [`domain_warp`], [`warp_node`], [`cell_blend`]'s border wobble and the density stack's
/// warp; [`Simplex::warp_offset_points`] is its batch twin.
#[must_use]
pub fn warp_offset(simplex: &Simplex, x: f64, y: f64, warp: &WarpParams) -> [f64; 2] {
    let field = |x: f64, y: f64| {
        let p = warp.fbm;
        fbm(simplex, x, y, p.octaves, p.persistence, p.lacunarity)
    };
    let mut q = [0.0, 0.0];
    if warp.levels >= 1 {
        q = [
            field(x * warp.frequency, y * warp.frequency),
            field(
                x * warp.frequency + SECOND_FIELD[0],
                y * warp.frequency + SECOND_FIELD[1],
            ),
        ];
    }
    if warp.levels >= 2 {
        let px = (x + warp.strength * q[0]) * warp.frequency;
        let py = (y + warp.strength * q[1]) * warp.frequency;
        let [a, b] = LEVEL_TWO_FIELDS;
        q = [field(px + a[0], py + a[1]), field(px + b[0], py + b[1])];
    }
    q
}

/// Folds noise at zero and flips it: sharp ridges where the noise crosses 0.
#[must_use]
pub fn ridged(value: f64) -> f64 {
    let r = 1.0 - value.abs();
    r * r * 2.0 - 1.0
}

/// Folds noise at zero: soft round bumps with sharp creases between them.
#[must_use]
pub fn billow(value: f64) -> f64 {
    value.abs() * 2.0 - 1.0
}

/// JavaScript's `Math.max`: NaN wins, and `+0` is greater than `-0`.
#[inline]
#[must_use]
pub(crate) fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// JavaScript's `Math.min`: NaN wins, and `-0` is less than `+0`.
#[inline]
#[must_use]
pub(crate) fn js_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// Clamps to `0..=1` with JavaScript's `Math.min(1, Math.max(0, value))`.
#[must_use]
pub fn clamp01(value: f64) -> f64 {
    js_min(1.0, js_max(0.0, value))
}

/// Temperature and moisture at one point, each in `0..=1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Climate {
    /// 0 is frozen, 1 is scorching.
    pub temperature: f64,
    /// 0 is bone dry, 1 is soaked.
    pub moisture: f64,
}

/// The tutorial's climate: two 3-octave fBm fields, with temperature dropping by
/// `height * chill` above sea level (`height > 0`). The tutorial's default `chill` is 0.5.
#[must_use]
pub fn climate_at(
    heat_noise: &Simplex,
    wet_noise: &Simplex,
    x: f64,
    y: f64,
    height: f64,
    chill: f64,
) -> Climate {
    climate_from_noise(
        fbm(heat_noise, x, y, 3, 0.5, 2.0),
        fbm(wet_noise, x, y, 3, 0.5, 2.0),
        height,
        chill,
    )
}

/// [`climate_at`] from its two fBm values, for callers that computed them in a batch.
#[must_use]
pub fn climate_from_noise(heat: f64, wet: f64, height: f64, chill: f64) -> Climate {
    let mut temperature = 0.5 + heat;
    if height > 0.0 {
        temperature -= height * chill;
    }
    let moisture = 0.5 + wet;
    Climate {
        temperature: clamp01(temperature),
        moisture: clamp01(moisture),
    }
}

/// The tutorial's 3 × 3 biome table, row by row from cold to hot, each row from dry to wet.
pub const BIOMES: [&str; 9] = [
    "Tundra",
    "Taiga",
    "Snowy Forest",
    "Plains",
    "Forest",
    "Swamp",
    "Desert",
    "Savanna",
    "Rainforest",
];

/// Counts the thresholds each value reaches: temperature picks the row, moisture the column.
/// The tutorial's default limits are `[0.4, 0.6]` for both.
#[must_use]
pub fn pick_biome(
    temperature: f64,
    moisture: f64,
    heat_limits: &[f64],
    wet_limits: &[f64],
) -> usize {
    let row = heat_limits
        .iter()
        .take_while(|&&limit| temperature >= limit)
        .count();
    let col = wet_limits
        .iter()
        .take_while(|&&limit| moisture >= limit)
        .count();
    row * (wet_limits.len() + 1) + col
}

/// `count` seeded sites scattered over `width × height`, as `[x, y]`.
#[must_use]
pub fn make_sites(count: usize, width: f64, height: f64, seed: i64) -> Vec<[f64; 2]> {
    let mut random = SeededRandom::new(seed);
    (0..count)
        .map(|_| {
            let x = random.next_float() * width;
            let y = random.next_float() * height;
            [x, y]
        })
        .collect()
}

/// The nearest and second-nearest sites to a point, with their distances (F1 and F2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearestTwo {
    /// Index of the nearest site.
    pub nearest: usize,
    /// Index of the second-nearest site.
    pub second: usize,
    /// Distance to the nearest site (F1).
    pub d1: f64,
    /// Distance to the second-nearest site (F2).
    pub d2: f64,
}

/// Brute-force search for the two sites nearest to `(x, y)`; ties keep the lower index.
#[must_use]
pub fn nearest_two(sites: &[[f64; 2]], x: f64, y: f64) -> NearestTwo {
    let mut found = NearestTwo {
        nearest: 0,
        second: 0,
        d1: f64::INFINITY,
        d2: f64::INFINITY,
    };
    for (i, site) in sites.iter().enumerate() {
        let dx = x - site[0];
        let dy = y - site[1];
        let d = (dx * dx + dy * dy).sqrt();
        if d < found.d1 {
            found.second = found.nearest;
            found.d2 = found.d1;
            found.nearest = i;
            found.d1 = d;
        } else if d < found.d2 {
            found.second = i;
            found.d2 = d;
        }
    }
    found
}

/// Which two cells a point blends between, and how much of the nearest one it takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellBlend {
    /// Index of the nearest site (after the wobble).
    pub nearest: usize,
    /// Index of the second-nearest site.
    pub second: usize,
    /// Share of `nearest` in `0.5..=1`: 0.5 on the border, 1 deep inside the cell.
    pub weight: f64,
}

/// The border blend from F1 and F2: a smoothstep over `blend_width`, from 0.5 on the border to 1.
#[must_use]
pub fn blend_weight(d1: f64, d2: f64, blend_width: f64) -> f64 {
    let t = if blend_width > 0.0 {
        js_min(1.0, (d2 - d1) / blend_width)
    } else {
        1.0
    };
    0.5 + 0.5 * t * t * (3.0 - 2.0 * t)
}

/// The tutorial's wobbled, blended cell lookup: the point is pushed by `wobble` times a 3-octave
/// fBm (sampled at `frequency`; the tutorial's default is 0.02) before the nearest two sites are
/// found, and the weight comes from [`blend_weight`].
#[must_use]
pub fn cell_blend(
    sites: &[[f64; 2]],
    simplex: &Simplex,
    x: f64,
    y: f64,
    wobble: f64,
    blend_width: f64,
    frequency: f64,
) -> CellBlend {
    let [wx, wy] = wobble_point(simplex, x, y, wobble, frequency);
    let found = nearest_two(sites, wx, wy);
    CellBlend {
        nearest: found.nearest,
        second: found.second,
        weight: blend_weight(found.d1, found.d2, blend_width),
    }
}

/// The lookup point of [`cell_blend`]: `(x, y)` pushed by `wobble` times two 3-octave fBm fields
/// (a level-1 [`warp_offset`]).
#[must_use]
pub fn wobble_point(simplex: &Simplex, x: f64, y: f64, wobble: f64, frequency: f64) -> [f64; 2] {
    let [qx, qy] = warp_offset(simplex, x, y, &WarpParams::wobble(wobble, frequency));
    [x + wobble * qx, y + wobble * qy]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes' wrap agrees with the scalar one on every kind of whole `f64`: both signs, ±0,
    /// around 2^52 (where whole numbers stop being every number), 2^60 and 2^63, and beyond.
    #[test]
    fn the_lanes_wrap_is_the_scalar_wrap() {
        let mut values = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
        ];
        for exponent in 0..1024 {
            let power = libm::scalbn(1.0, exponent);
            for offset in [
                -257.0, -256.0, -255.0, -3.0, -1.0, 0.0, 1.0, 2.0, 129.0, 255.0, 256.0,
            ] {
                let v = power + offset;
                values.extend([
                    v.floor(),
                    -v.floor(),
                    (power * 1.37).floor(),
                    -(power * 0.61).floor(),
                ]);
            }
        }
        let mut random = SeededRandom::new(12);
        values.extend((0..10_000).map(|_| ((random.next_float() - 0.5) * 1.0e6).floor()));
        for v in values {
            assert_eq!(wrap_256_lanes(v), wrap_256(v), "{v:e}");
        }
    }

    /// The packed corner table and the gradient selects are the tutorial's `p[a + p[b]]` and
    /// `GRAD2` lookups, for every corner the noise can ask for.
    #[test]
    fn corner_hashes_and_gradients_are_the_tutorials_lookups() {
        for seed in [0, 42, -7] {
            let simplex = Simplex::new(seed);
            let p = &simplex.p;
            for a in 0..257 {
                for b in 0..257 {
                    let want = p[a + usize::from(p[b])] & 7;
                    assert_eq!(
                        simplex.hash::<1>(a, b),
                        u32::from(want),
                        "seed {seed}, ({a}, {b})"
                    );
                    assert_eq!(
                        simplex.hash::<8>(a, b),
                        u32::from(want),
                        "seed {seed}, ({a}, {b})"
                    );
                }
            }
        }
        for h in 0..16u32 {
            let [gx, gy] = gradient::<8>(h);
            let [wx, wy] = GRAD2[(h & 7) as usize];
            assert_eq!(
                (gx.to_bits(), gy.to_bits()),
                (wx.to_bits(), wy.to_bits()),
                "{h}"
            );
        }
    }

    #[test]
    fn skew_constants_are_the_formulas() {
        assert_eq!(F2.to_bits(), (0.5 * (3f64.sqrt() - 1.0)).to_bits());
        assert_eq!(G2.to_bits(), ((3.0 - 3f64.sqrt()) / 6.0).to_bits());
    }

    #[test]
    fn seeds_do_not_wrap_at_i32_max() {
        let mut above = SeededRandom::new(2_147_483_648);
        // 2147483648 % 2147483647 = 1: the same sequence as seed 1, as in JavaScript.
        let mut one = SeededRandom::new(1);
        assert_eq!(above.next(), one.next());
        assert_ne!(
            Simplex::new(2_147_483_647).permutation(),
            Simplex::new(-1).permutation()
        );
    }

    #[test]
    fn non_positive_seeds_are_moved_into_range() {
        assert_eq!(SeededRandom::new(0).state, 2_147_483_646);
        assert_eq!(SeededRandom::new(-5).state, 2_147_483_641);
    }

    #[test]
    fn wrap_256_matches_javascript_to_int32() {
        assert_eq!(wrap_256(-1.0), 255);
        assert_eq!(wrap_256(256.0), 0);
        assert_eq!(wrap_256(-257.0), 255);
        assert_eq!(wrap_256(4_294_967_297.0), 1);
        assert_eq!(wrap_256(f64::NAN), 0);
        assert_eq!(wrap_256(f64::INFINITY), 0);
        assert_eq!(wrap_256(1e300), 0);
    }

    #[test]
    fn js_min_max_order_signed_zeros() {
        assert!(js_max(0.0, -0.0).is_sign_positive());
        assert!(js_max(-0.0, 0.0).is_sign_positive());
        assert!(js_min(0.0, -0.0).is_sign_negative());
        assert!(clamp01(f64::NAN).is_nan());
        assert_eq!(clamp01(-3.0), 0.0);
        assert_eq!(clamp01(3.0), 1.0);
    }

    #[test]
    fn rand_core_draws_leave_the_tutorial_sequence_reproducible() {
        let mut a = SeededRandom::seed_from_u64(42);
        let mut b = SeededRandom::new(42);
        assert_eq!(a.next_float().to_bits(), b.next_float().to_bits());
        let mut bytes = [0u8; 7];
        a.fill_bytes(&mut bytes);
        assert_ne!(bytes, [0; 7]);
        assert_ne!(a.next_u64(), a.next_u64());
    }

    #[test]
    fn pick_biome_counts_reached_limits() {
        let limits = [0.4, 0.6];
        assert_eq!(pick_biome(0.0, 0.0, &limits, &limits), 0);
        assert_eq!(pick_biome(0.4, 0.6, &limits, &limits), 5);
        assert_eq!(pick_biome(1.0, 1.0, &limits, &limits), 8);
        assert_eq!(BIOMES[pick_biome(0.7, 0.1, &limits, &limits)], "Desert");
    }

    /// Points spread over small and large coordinates, cell corners included.
    fn probe_points() -> Vec<[f64; 2]> {
        let mut random = SeededRandom::new(7);
        let mut points: Vec<[f64; 2]> = (0..4000)
            .map(|k| {
                let scale = [1.0, 10.0, 1000.0, 1.0e6][k % 4];
                [
                    (random.next_float() - 0.5) * scale,
                    (random.next_float() - 0.5) * scale,
                ]
            })
            .collect();
        points.extend([[0.0, 0.0], [-0.0, 0.0], [1.0, 1.0], [-3.0, 2.0]]);
        points
    }

    #[test]
    fn noise_with_gradient_keeps_the_value_bits_and_matches_finite_differences() {
        let simplex = Simplex::new(42);
        let h = 1e-6;
        for [x, y] in probe_points() {
            let sample = simplex.noise_with_gradient(x, y);
            assert_eq!(
                sample.value.to_bits(),
                simplex.noise(x, y).to_bits(),
                "at ({x}, {y})"
            );
            let dx = (simplex.noise(x + h, y) - simplex.noise(x - h, y)) / (2.0 * h);
            let dy = (simplex.noise(x, y + h) - simplex.noise(x, y - h)) / (2.0 * h);
            // Rounding of x ± h at 1e6 limits the differences to about 1e-4.
            let tolerance = if x.abs().max(y.abs()) > 1000.0 {
                1e-3
            } else {
                1e-6
            };
            assert!(
                (sample.gradient[0] - dx).abs() < tolerance
                    && (sample.gradient[1] - dy).abs() < tolerance,
                "at ({x}, {y}): {:?} against ({dx}, {dy})",
                sample.gradient
            );
        }
    }

    #[test]
    fn fbm_with_gradient_keeps_the_value_bits_and_matches_finite_differences() {
        let simplex = Simplex::new(-5);
        let h = 1e-7;
        let mut largest = 0.0f64;
        for [x, y] in probe_points().into_iter().filter(|p| p[0].abs() < 100.0) {
            for (octaves, persistence, lacunarity) in [(1, 0.5, 2.0), (4, 0.5, 2.0), (6, 0.6, 2.2)]
            {
                let fbm_at = |x, y| fbm(&simplex, x, y, octaves, persistence, lacunarity);
                let sample = fbm_with_gradient(&simplex, x, y, octaves, persistence, lacunarity);
                assert_eq!(sample.value.to_bits(), fbm_at(x, y).to_bits());
                let dx = (fbm_at(x + h, y) - fbm_at(x - h, y)) / (2.0 * h);
                let dy = (fbm_at(x, y + h) - fbm_at(x, y - h)) / (2.0 * h);
                largest = largest.max(sample.gradient[0].abs());
                assert!(
                    (sample.gradient[0] - dx).abs() < 1e-5
                        && (sample.gradient[1] - dy).abs() < 1e-5,
                    "at ({x}, {y}), {octaves} octaves: {:?} against ({dx}, {dy})",
                    sample.gradient
                );
            }
        }
        // A gradient of zeros would pass nowhere near here.
        assert!(largest > 1.0, "largest |d/dx| {largest}");
    }
}
