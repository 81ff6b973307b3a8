//! 3D Simplex noise and fBm (`biome_core::noise3`): against a plain textbook version written here
//! (Gustavson's branches, table gradients, `% 12`), bounded, continuous across simplex faces, and
//! locked to seeded values.

use biome_core::noise3::{F3, G3, GRAD3, NOISE3_BOUND, Simplex3};
use biome_core::tutorial::{FbmParams, SeededRandom, Simplex};

/// Gustavson's 3D Simplex noise as "Simplex noise demystified" writes it, on the tutorial's
/// permutation for `seed`, with a corner radius of `sqrt(0.5)` and a scale of 76.
struct Textbook {
    perm: [usize; 512],
}

impl Textbook {
    fn new(seed: i64) -> Self {
        let permutation = Simplex::new(seed).permutation().to_vec();
        Self {
            perm: std::array::from_fn(|i| usize::from(permutation[i & 255])),
        }
    }

    /// The point's offsets from the four corners of its simplex.
    fn corner_offsets(x: f64, y: f64, z: f64) -> [[f64; 3]; 4] {
        let s = (x + y + z) * F3;
        let (i, j, k) = ((x + s).floor(), (y + s).floor(), (z + s).floor());
        let t = (i + j + k) * G3;
        let (x0, y0, z0) = (x - (i - t), y - (j - t), z - (k - t));
        let [i1, j1, k1, i2, j2, k2] = Self::steps(x0, y0, z0).map(f64::from);
        [
            [x0, y0, z0],
            [x0 - i1 + G3, y0 - j1 + G3, z0 - k1 + G3],
            [x0 - i2 + 2.0 * G3, y0 - j2 + 2.0 * G3, z0 - k2 + 2.0 * G3],
            [
                x0 - 1.0 + 3.0 * G3,
                y0 - 1.0 + 3.0 * G3,
                z0 - 1.0 + 3.0 * G3,
            ],
        ]
    }

    /// Gustavson's branches: the steps to the second and third corners.
    fn steps(x0: f64, y0: f64, z0: f64) -> [u8; 6] {
        if x0 >= y0 {
            if y0 >= z0 {
                [1, 0, 0, 1, 1, 0]
            } else if x0 >= z0 {
                [1, 0, 0, 1, 0, 1]
            } else {
                [0, 0, 1, 1, 0, 1]
            }
        } else if y0 < z0 {
            [0, 0, 1, 0, 1, 1]
        } else if x0 < z0 {
            [0, 1, 0, 0, 1, 1]
        } else {
            [0, 1, 0, 1, 1, 0]
        }
    }

    fn noise(&self, x: f64, y: f64, z: f64) -> f64 {
        let s = (x + y + z) * F3;
        let i = (x + s).floor();
        let j = (y + s).floor();
        let k = (z + s).floor();
        let t = (i + j + k) * G3;
        let (x0, y0, z0) = (x - (i - t), y - (j - t), z - (k - t));
        let [i1, j1, k1, i2, j2, k2] = Self::steps(x0, y0, z0);
        let (ii, jj, kk) = (
            (i as i64 & 255) as usize,
            (j as i64 & 255) as usize,
            (k as i64 & 255) as usize,
        );
        let p = &self.perm;
        let u = usize::from;
        let gi0 = p[ii + p[jj + p[kk]]] % 12;
        let gi1 = p[ii + u(i1) + p[jj + u(j1) + p[kk + u(k1)]]] % 12;
        let gi2 = p[ii + u(i2) + p[jj + u(j2) + p[kk + u(k2)]]] % 12;
        let gi3 = p[ii + 1 + p[jj + 1 + p[kk + 1]]] % 12;
        let corner = |gi: usize, x: f64, y: f64, z: f64| {
            let mut t = 0.5 - x * x - y * y - z * z;
            if t < 0.0 {
                0.0
            } else {
                t *= t;
                let g = GRAD3[gi];
                t * t * (g[0] * x + g[1] * y + g[2] * z)
            }
        };
        let n0 = corner(gi0, x0, y0, z0);
        let (i1, j1, k1) = (f64::from(i1), f64::from(j1), f64::from(k1));
        let (i2, j2, k2) = (f64::from(i2), f64::from(j2), f64::from(k2));
        let n1 = corner(gi1, x0 - i1 + G3, y0 - j1 + G3, z0 - k1 + G3);
        let n2 = corner(
            gi2,
            x0 - i2 + 2.0 * G3,
            y0 - j2 + 2.0 * G3,
            z0 - k2 + 2.0 * G3,
        );
        let n3 = corner(
            gi3,
            x0 - 1.0 + 3.0 * G3,
            y0 - 1.0 + 3.0 * G3,
            z0 - 1.0 + 3.0 * G3,
        );
        76.0 * (n0 + n1 + n2 + n3)
    }
}

/// `count` points spread over scales from 0.01 to 10^7, on every side of the origin.
fn points(seed: i64, count: usize) -> [Vec<f64>; 3] {
    let mut random = SeededRandom::new(seed);
    let scale = |k: usize| [0.01, 1.0, 100.0, 1.0e4, 1.0e7][k % 5];
    std::array::from_fn(|axis| {
        (0..count)
            .map(|k| (random.next_float() - 0.5) * scale(k + axis))
            .collect()
    })
}

#[test]
fn the_noise_is_the_textbook_version_bit_for_bit_alone_and_in_batches() {
    for seed in [0, 1, 42, -7, 123_456_789] {
        let simplex = Simplex3::new(seed);
        let textbook = Textbook::new(seed);
        let [xs, ys, zs] = points(seed + 1, 2001);
        let mut batch = vec![f64::NAN; xs.len()];
        simplex.noise_points(&xs, &ys, &zs, &mut batch);
        for k in 0..xs.len() {
            let want = textbook.noise(xs[k], ys[k], zs[k]).to_bits();
            let at = (xs[k], ys[k], zs[k]);
            assert_eq!(
                simplex.noise(at.0, at.1, at.2).to_bits(),
                want,
                "seed {seed} at {at:?}"
            );
            assert_eq!(batch[k].to_bits(), want, "seed {seed}, batch, at {at:?}");
        }
    }
}

#[test]
fn the_permutation_is_the_tutorials_for_the_seed() {
    for seed in [0, 42, -3] {
        assert_eq!(
            Simplex3::new(seed).permutation().as_slice(),
            Simplex::new(seed).permutation()
        );
    }
    assert_ne!(
        Simplex3::new(1).noise(0.3, 0.4, 0.5),
        Simplex3::new(2).noise(0.3, 0.4, 0.5)
    );
}

#[test]
fn the_noise_stays_within_its_bound_and_nearly_reaches_it() {
    let mut largest: f64 = 0.0;
    for seed in 0..4 {
        let simplex = Simplex3::new(seed);
        let mut random = SeededRandom::new(seed + 100);
        for _ in 0..100_000 {
            let mut coordinate = || random.next_float() * 64.0 - 32.0;
            let (x, y, z) = (coordinate(), coordinate(), coordinate());
            let value = simplex.noise(x, y, z);
            assert!(value.abs() <= NOISE3_BOUND, "{value} at {x}, {y}, {z}");
            largest = largest.max(value.abs());
        }
    }
    // The bound is tight: a scale too small for the field would leave it far from ±1.
    assert!(largest > 0.9, "largest {largest}");
}

/// The largest the noise can be for any permutation: at each point, every corner's gradient the
/// one that adds most. Climbed to from the largest of many samples of one skewed cube, it stays
/// within the documented bound, which the scale keeps below 1.
#[test]
fn no_permutation_takes_the_noise_past_its_bound() {
    let worst = |x: f64, y: f64, z: f64| {
        // The corners are the textbook's; each takes the gradient that adds most.
        Textbook::corner_offsets(x, y, z)
            .iter()
            .map(|&[x, y, z]| {
                let t = 0.5 - x * x - y * y - z * z;
                let best = GRAD3
                    .iter()
                    .map(|g| g[0] * x + g[1] * y + g[2] * z)
                    .fold(f64::MIN, f64::max);
                if t < 0.0 { 0.0 } else { t * t * t * t * best }
            })
            .sum::<f64>()
            * 76.0
    };
    let mut random = SeededRandom::new(1);
    let mut samples: Vec<(f64, [f64; 3])> = (0..20_000)
        .map(|_| {
            let p = [
                random.next_float(),
                random.next_float(),
                random.next_float(),
            ];
            (worst(p[0], p[1], p[2]), p)
        })
        .collect();
    samples.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut largest: f64 = 0.0;
    for &(mut value, mut p) in samples.iter().take(20) {
        let mut step = 0.01;
        while step > 1.0e-9 {
            let mut moved = false;
            for axis in 0..3 {
                for sign in [1.0, -1.0] {
                    let mut q = p;
                    q[axis] += sign * step;
                    let v = worst(q[0], q[1], q[2]);
                    if v > value {
                        (value, p, moved) = (v, q, true);
                    }
                }
            }
            if !moved {
                step /= 2.0;
            }
        }
        largest = largest.max(value);
    }
    println!("the largest any permutation gives: {largest}");
    assert!(largest <= NOISE3_BOUND && largest > 0.98, "{largest}");
}

/// Where two tetrahedra of a skewed cube meet (`x0 == y0` in the cube's skewed coordinates), the
/// noise is the same from both sides. Gustavson's radius of `sqrt(0.6)` jumps there by up to
/// about 0.015; `sqrt(0.5)` by rounding alone.
#[test]
fn the_noise_is_continuous_across_simplex_faces() {
    let simplex = Simplex3::new(9);
    let mut random = SeededRandom::new(10);
    let mut largest: f64 = 0.0;
    for _ in 0..20_000 {
        let a = random.next_float() * 30.0;
        let b = (random.next_float() * 30.0).floor() + a.fract();
        let c = random.next_float() * 30.0;
        let s = (a + b + c) * G3;
        let (x, y, z) = (a - s, b - s, c - s);
        let e = 1.0e-11;
        let jump = simplex.noise(x + e, y - e, z) - simplex.noise(x - e, y + e, z);
        largest = largest.max(jump.abs());
    }
    assert!(largest < 1.0e-8, "jump {largest}");
}

#[test]
fn fbm_is_the_sum_of_its_octaves_alone_and_in_batches() {
    let simplex = Simplex3::new(42);
    let params = FbmParams {
        octaves: 5,
        persistence: 0.5,
        lacunarity: 2.0,
    };
    let [xs, ys, zs] = points(3, 999);
    let mut batch = vec![f64::NAN; xs.len()];
    simplex.fbm_points(&xs, &ys, &zs, params, &mut batch);
    for k in 0..xs.len() {
        let (x, y, z) = (xs[k], ys[k], zs[k]);
        let (mut total, mut amplitude, mut frequency, mut max) = (0.0, 1.0, 1.0, 0.0);
        for octave in 0..5 {
            let o = f64::from(octave * 2);
            let at = |c: f64| (c + o) * frequency;
            total += simplex.noise(at(x), at(y), at(z)) * amplitude;
            max += amplitude;
            amplitude *= 0.5;
            frequency *= 2.0;
        }
        let want = (total / max).to_bits();
        assert_eq!(
            simplex.fbm(x, y, z, params).to_bits(),
            want,
            "at {x}, {y}, {z}"
        );
        assert_eq!(batch[k].to_bits(), want, "batch at {x}, {y}, {z}");
        assert!(batch[k].abs() <= NOISE3_BOUND);
    }
}

/// Seeded values locked to their bits: a change here changes every 3D world.
#[test]
fn seeded_values_keep_their_bits() {
    let simplex = Simplex3::new(42);
    let noise = [
        simplex.noise(0.5, 0.25, 0.125),
        simplex.noise(0.3, -1.7, 2.9),
        simplex.noise(-123.25, 45.5, 0.125),
        simplex.noise(1.0e6 + 0.5, -3.0e5, 7.25),
    ];
    let fbm = [
        simplex.fbm(0.3, -1.7, 2.9, FbmParams::default()),
        simplex.fbm(-12.3, 4.1, 88.7, FbmParams::octaves(6)),
    ];
    let bits = |values: &[f64]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    // -0.19020487840283556, -0.11968637066666554, 0.13089922070503862, 0.22849157520173
    let want_noise = [
        0xbfc8_58a2_2a23_d1a6,
        0xbfbe_a3c4_17ca_4ea0,
        0x3fc0_c14e_4000_00e2,
        0x3fcd_3f36_4173_9407,
    ];
    assert_eq!(bits(&noise), want_noise, "{noise:?}");
    // -0.19904145315555424, 0.23566471901653202
    let want_fbm = [0xbfc9_7a30_b9ec_fb61, 0x3fce_2a42_f27f_9ed2];
    assert_eq!(bits(&fbm), want_fbm, "{fbm:?}");
}
