//! The erosion node: it only cuts below its fBm, by at most its depths, it is continuous
//! (no seams between its gully cells), its gullies follow the slope and it leaves flat ground
//! alone.
#![expect(
    clippy::disallowed_methods,
    reason = "tests measure the world with the platform's functions; they make none of its values"
)]

use biome_core::density::{DensityField, DensityNode, Eroded};
use biome_core::tutorial::{SeededRandom, Simplex, fbm};

const SEED: i64 = 31;

fn eroded(depth: f64, flat: f64) -> Eroded {
    Eroded {
        seed_offset: 0,
        scale: 0.01,
        octaves: 3,
        persistence: 0.5,
        lacunarity: 2.0,
        depth,
        gully_scale: 4.0,
        gully_octaves: 4,
        flat,
    }
}

fn field(op: Eroded) -> DensityField {
    DensityField::new(&DensityNode::new(op, []), SEED).expect("valid")
}

fn no_sites() -> Vec<[f64; 2]> {
    Vec::new()
}

#[test]
fn gullies_cut_below_the_fbm_by_at_most_their_depths() {
    let op = eroded(0.2, 0.5);
    let (eroded, simplex, sites) = (field(op), Simplex::new(SEED), no_sites());
    // 0.2 + 0.1 + 0.05 + 0.025: each layer cuts at most half as deep as the last.
    let deepest = 0.375;
    let mut random = SeededRandom::new(5);
    let (mut cut_somewhere, mut largest_cut) = (0, 0.0f64);
    for k in 0..20_000 {
        let reach = [100.0, 1.0e4, 1.0e7][k % 3];
        let x = (random.next_float() - 0.5) * reach;
        let z = (random.next_float() - 0.5) * reach;
        let plain = fbm(&simplex, x * op.scale, z * op.scale, 3, 0.5, 2.0);
        let carved = eroded.value(x, z, &sites);
        let cut = plain - carved;
        assert!(
            (0.0..=deepest).contains(&cut),
            "cut {cut} at ({x}, {z}): fBm {plain}, eroded {carved}"
        );
        cut_somewhere += usize::from(cut > 1e-3);
        largest_cut = largest_cut.max(cut);
    }
    // Not vacuous: most points are cut, some deeply.
    assert!(cut_somewhere > 15_000, "{cut_somewhere}");
    assert!(largest_cut > 0.15, "{largest_cut}");
}

/// Along lines through many gully cells, the largest step between neighbouring samples shrinks
/// with the spacing, as a continuous field's does; a jump anywhere (at a cell border, a ridge
/// or a valley line) would keep it large.
#[test]
fn the_field_is_continuous_across_its_cells() {
    let eroded = field(eroded(0.3, 0.2));
    let sites = no_sites();
    let largest_step = |start: [f64; 2], direction: [f64; 2], length: f64, samples: usize| {
        let spacing = length / samples as f64;
        let (xs, zs): (Vec<f64>, Vec<f64>) = (0..=samples)
            .map(|k| {
                let t = k as f64 * spacing;
                (start[0] + direction[0] * t, start[1] + direction[1] * t)
            })
            .unzip();
        let mut values = vec![0.0; xs.len()];
        eroded.values(&xs, &zs, &sites, &mut values);
        values
            .windows(2)
            .map(|pair| (pair[1] - pair[0]).abs())
            .fold(0.0, f64::max)
    };
    for (start, direction) in [
        ([3.0, -40.0], [1.0, 0.0]),
        ([-250.0, 17.5], [0.6, 0.8]),
        ([1.0e6 + 0.25, -2.0e6], [-0.28, 0.96]),
    ] {
        // 120 world units cross about five of the coarsest cells and forty of the finest.
        let coarse = largest_step(start, direction, 120.0, 12_000);
        let fine = largest_step(start, direction, 120.0, 120_000);
        assert!(coarse > 0.0, "{start:?}");
        assert!(
            fine < coarse * 0.4,
            "a step of {fine} at spacing 0.001 against {coarse} at 0.01 from {start:?}"
        );
    }
}

/// Gullies run down the slope: along the slope the cut changes slowly, while across it the
/// gullies rise and fall. (One layer, which follows the mountains' slope; finer layers follow
/// the walls of the coarser gullies, which is how they branch.)
#[test]
fn gullies_run_down_the_slope() {
    let op = Eroded {
        gully_octaves: 1,
        ..eroded(0.2, 0.05)
    };
    let (eroded, simplex, sites) = (field(op), Simplex::new(SEED), no_sites());
    let cut = |x: f64, z: f64| {
        fbm(&simplex, x * op.scale, z * op.scale, 3, 0.5, 2.0) - eroded.value(x, z, &sites)
    };
    let mut random = SeededRandom::new(9);
    let (mut along, mut across) = (0.0, 0.0);
    for _ in 0..4_000 {
        let (x, z) = (
            (random.next_float() - 0.5) * 5_000.0,
            (random.next_float() - 0.5) * 5_000.0,
        );
        let slope = biome_core::tutorial::fbm_with_gradient(
            &simplex,
            x * op.scale,
            z * op.scale,
            3,
            0.5,
            2.0,
        )
        .gradient;
        let length = slope[0].hypot(slope[1]);
        if length < 0.5 {
            continue;
        }
        let down = [slope[0] / length, slope[1] / length];
        // An eighth of a gully cell (25 world units).
        let h = 3.0;
        let here = cut(x, z);
        along += (cut(x + down[0] * h, z + down[1] * h) - here).abs();
        across += (cut(x - down[1] * h, z + down[0] * h) - here).abs();
    }
    assert!(across > 1.5 * along, "across {across}, along {along}");
}

/// With a flat threshold far above every slope, the gullies barely cut: flat ground stays
/// smooth.
#[test]
fn flat_ground_is_left_smooth() {
    let steep_only = eroded(0.2, 100.0);
    let (field, simplex, sites) = (field(steep_only), Simplex::new(SEED), no_sites());
    let mut random = SeededRandom::new(2);
    for _ in 0..2_000 {
        let (x, z) = (
            (random.next_float() - 0.5) * 1.0e4,
            (random.next_float() - 0.5) * 1.0e4,
        );
        let plain = fbm(&simplex, x * 0.01, z * 0.01, 3, 0.5, 2.0);
        let cut = plain - field.value(x, z, &sites);
        assert!(cut < 0.01, "{cut} at ({x}, {z})");
    }
}
