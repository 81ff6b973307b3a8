//! The batch (SIMD) paths must give the scalar tutorial functions' exact bits at every point.

use biome_core::WorldSettings;
use biome_core::batch::{FbmParams, Grid, backend};
use biome_core::density::{DensityField, DensityNode, DensityOp};
use biome_core::tutorial::{SeededRandom, Simplex, domain_warp, fbm, make_sites};

/// Points that stress every branch: small and huge magnitudes, both signs, integers and cell
/// boundaries, signed zeros and non-finite values.
fn points(count: usize, seed: i64) -> (Vec<f64>, Vec<f64>) {
    let mut random = SeededRandom::new(seed);
    let mut xs = Vec::with_capacity(count);
    let mut ys = Vec::with_capacity(count);
    let specials = [
        0.0,
        -0.0,
        0.5,
        -1.0,
        1.0e-9,
        255.0,
        256.0,
        -256.0,
        2_147_483_648.0,
        1.0e7,
        -1.0e7,
        9.1e15,
        1.2e18,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for k in 0..count {
        let magnitude = [1.0, 10.0, 1_000.0, 1.0e6, 1.0e7][k % 5];
        let mut next = || (random.next_float() - 0.5) * 2.0 * magnitude;
        let (mut x, mut y) = (next(), next());
        if k % 7 == 0 {
            x = specials[(k / 7) % specials.len()];
        }
        if k % 11 == 0 {
            y = specials[(k / 11 + 3) % specials.len()];
        }
        if k % 13 == 0 {
            // Exactly on a skewed-cell diagonal.
            y = x;
        }
        xs.push(x);
        ys.push(y);
    }
    (xs, ys)
}

fn assert_same_bits(
    name: &str,
    xs: &[f64],
    ys: &[f64],
    batch: &[f64],
    scalar: impl Fn(f64, f64) -> f64,
) {
    for k in 0..xs.len() {
        let want = scalar(xs[k], ys[k]);
        if batch[k].is_nan() && want.is_nan() {
            // NaN payloads are not part of the result (JavaScript has a single NaN).
            continue;
        }
        assert_eq!(
            batch[k].to_bits(),
            want.to_bits(),
            "{name} differs at ({:e}, {:e}) on the {} path: {} vs {}",
            xs[k],
            ys[k],
            backend(),
            batch[k],
            want
        );
    }
}

#[test]
fn noise_points_equal_scalar_noise() {
    for seed in [1, 42, -7, 2_147_483_647] {
        let simplex = Simplex::new(seed);
        // 4001 points: not a multiple of the lane count, so the scalar tail runs too.
        let (xs, ys) = points(4001, seed);
        let mut out = vec![0.0; xs.len()];
        simplex.noise_points(&xs, &ys, &mut out);
        assert_same_bits("noise", &xs, &ys, &out, |x, y| simplex.noise(x, y));
    }
}

#[test]
fn fbm_points_equal_scalar_fbm() {
    let simplex = Simplex::new(99);
    let (xs, ys) = points(2003, 5);
    let mut out = vec![0.0; xs.len()];
    for params in [
        FbmParams::default(),
        FbmParams::octaves(1),
        FbmParams::octaves(16),
        FbmParams {
            octaves: 6,
            persistence: 0.63,
            lacunarity: 2.7,
        },
    ] {
        simplex.fbm_points(&xs, &ys, params, &mut out);
        assert_same_bits("fbm", &xs, &ys, &out, |x, y| {
            fbm(
                &simplex,
                x,
                y,
                params.octaves,
                params.persistence,
                params.lacunarity,
            )
        });
    }
}

#[test]
fn domain_warp_points_equal_scalar_domain_warp() {
    let simplex = Simplex::new(123_456);
    let (xs, ys) = points(1001, 6);
    let mut out = vec![0.0; xs.len()];
    for levels in 0..=3 {
        for (strength, frequency) in [(4.0, 1.0), (1.0, 0.35), (0.0, 2.0)] {
            simplex.domain_warp_points(&xs, &ys, strength, frequency, levels, &mut out);
            assert_same_bits("domain_warp", &xs, &ys, &out, |x, y| {
                domain_warp(&simplex, x, y, strength, frequency, levels)
            });
        }
    }
}

#[test]
fn fbm_grid_equals_scalar_fbm_at_grid_points() {
    let simplex = Simplex::new(3);
    let grid = Grid {
        x0: -1234.5,
        y0: 77.25,
        step: 0.731,
        width: 131,
        height: 9,
    };
    let mut out = vec![0.0; grid.len()];
    simplex.fbm_grid(&grid, FbmParams::default(), &mut out);
    let mut xs = vec![0.0; grid.len()];
    let mut ys = vec![0.0; grid.len()];
    grid.fill_coordinates(&mut xs, &mut ys);
    assert_same_bits("fbm_grid", &xs, &ys, &out, |x, y| {
        fbm(&simplex, x, y, 4, 0.5, 2.0)
    });
}

#[test]
fn density_values_equal_scalar_value_for_every_node() {
    let sites = make_sites(30, 2000.0, 2000.0, 4);
    let (xs, ys) = points(999, 8);
    let mut out = vec![0.0; xs.len()];
    let eroded = WorldSettings::from_ron(include_str!("../../../assets/presets/eroded.ron"))
        .unwrap()
        .terrain
        .density;
    for stack in [
        DensityNode::tutorial_example(),
        WorldSettings::default().terrain.density,
        eroded,
    ] {
        let field = DensityField::new(&stack, 17).unwrap();
        for id in 0..field.node_count() {
            field.values_of(id, &xs, &ys, &sites, &mut out);
            assert_same_bits("density node", &xs, &ys, &out, |x, y| {
                field.value_of(id, x, y, &sites)
            });
        }
    }
}

#[test]
fn double_warp_stack_equals_scalar() {
    let mut stack = DensityNode::tutorial_example();
    if let Some(DensityOp::Warp(warp)) = stack.node_mut(2).map(|n| &mut n.op) {
        warp.levels = 2;
    } else {
        panic!("node 2 of the tutorial stack is its warp");
    }
    let field = DensityField::new(&stack, 5).unwrap();
    let sites = make_sites(12, 320.0, 240.0, 12);
    let (xs, ys) = points(503, 9);
    let mut out = vec![0.0; xs.len()];
    field.values(&xs, &ys, &sites, &mut out);
    assert_same_bits("double warp", &xs, &ys, &out, |x, y| {
        field.value(x, y, &sites)
    });
}

#[test]
#[should_panic(expected = "same length")]
fn mismatched_lengths_are_refused() {
    let simplex = Simplex::new(1);
    let mut out = vec![0.0; 3];
    simplex.noise_points(&[0.0; 3], &[0.0; 2], &mut out);
}
