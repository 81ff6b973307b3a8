//! Golden vectors from the tutorial's JavaScript (`shared/reference/gen_golden.js`): every field
//! of every sample, compared by exact IEEE-754 bit pattern. No tolerance anywhere.
//!
//! Every `tests/data/golden_*.json` is checked, so another set made with
//! `node gen_golden.js NAME SEEDS > golden_NAME.json` joins by being copied in.

use biome_core::batch::FbmParams;
use biome_core::density::{DensityField, DensityNode};
use biome_core::tutorial::{
    SeededRandom, Simplex, billow, cell_blend, climate_at, domain_warp, fbm, make_sites,
    nearest_two, pick_biome, ridged,
};
use serde_json::Value;

fn golden_sets() -> Vec<(String, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut sets: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("tests/data exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("golden_") && name.ends_with(".json")
        })
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable golden file");
            (
                path.display().to_string(),
                serde_json::from_str(&text).expect("valid JSON"),
            )
        })
        .collect();
    sets.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!sets.is_empty(), "no golden_*.json in {}", dir.display());
    sets
}

fn bits(value: &Value) -> u64 {
    u64::from_str_radix(value["bits"].as_str().expect("bits is a hex string"), 16)
        .expect("hex bits")
}

fn float(value: &Value) -> f64 {
    f64::from_bits(bits(value))
}

fn int(value: &Value) -> i64 {
    value.as_i64().expect("an integer")
}

#[track_caller]
fn same(name: &str, context: &str, got: f64, want: &Value) {
    assert_eq!(
        got.to_bits(),
        bits(want),
        "{name} at {context}: got {got:e} ({:016x}), want {} ({:016x})",
        got.to_bits(),
        want["value"],
        bits(want)
    );
}

struct Case {
    seed: i64,
    value: Value,
}

fn cases() -> Vec<(String, Case)> {
    golden_sets()
        .into_iter()
        .flat_map(|(file, set)| {
            set["cases"]
                .as_array()
                .expect("cases")
                .iter()
                .map(|case| {
                    (
                        file.clone(),
                        Case {
                            seed: int(&case["seed"]),
                            value: case.clone(),
                        },
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn permutation_and_random_floats() {
    for (file, case) in cases() {
        let simplex = Simplex::new(case.seed);
        let want: Vec<u8> = case.value["permutation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| u8::try_from(int(v)).unwrap())
            .collect();
        assert_eq!(
            simplex.permutation(),
            &want[..],
            "{file} seed {}",
            case.seed
        );
        let mut random = SeededRandom::new(case.seed);
        for (i, want) in case.value["random_floats"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            same(
                "nextFloat",
                &format!("{file} seed {} draw {i}", case.seed),
                random.next_float(),
                want,
            );
        }
    }
}

#[test]
fn sites() {
    for (file, case) in cases() {
        let sites = make_sites(45, 320.0, 240.0, case.seed + 3);
        let want = case.value["sites_45_320x240_seed_plus_3"]
            .as_array()
            .unwrap();
        assert_eq!(sites.len(), want.len());
        for (i, (site, want)) in sites.iter().zip(want).enumerate() {
            let context = format!("{file} seed {} site {i}", case.seed);
            same("site.x", &context, site[0], &want[0]);
            same("site.y", &context, site[1], &want[1]);
        }
    }
}

/// Every sample field through the scalar tutorial functions.
#[test]
fn samples_scalar() {
    for (file, case) in cases() {
        let seed = case.seed;
        let s = Simplex::new(seed);
        let heat = Simplex::new(seed + 1);
        let wet = Simplex::new(seed + 2);
        let sites = make_sites(45, 320.0, 240.0, seed + 3);
        let cell_sites = make_sites(12, 320.0, 240.0, seed + 7);
        let stack = DensityField::new(&DensityNode::tutorial_example(), seed).unwrap();
        let limits = [0.4, 0.6];
        for sample in case.value["samples"].as_array().unwrap() {
            let (x, y) = (float(&sample["x"]), float(&sample["y"]));
            let at = format!("{file} seed {seed} ({x}, {y})");
            let h = fbm(&s, x * 0.01, y * 0.01, 5, 0.5, 2.0);
            let c = climate_at(&heat, &wet, x * 0.004, y * 0.004, h, 0.6);
            same("noise", &at, s.noise(x, y), &sample["noise"]);
            same(
                "noise_scaled",
                &at,
                s.noise(x * 0.01, y * 0.01),
                &sample["noise_scaled"],
            );
            same(
                "fbm4",
                &at,
                fbm(&s, x * 0.05, y * 0.05, 4, 0.5, 2.0),
                &sample["fbm4"],
            );
            same("fbm5", &at, h, &sample["fbm5"]);
            same(
                "fbm8_p06_l19",
                &at,
                fbm(&s, x * 0.02, y * 0.02, 8, 0.6, 1.9),
                &sample["fbm8_p06_l19"],
            );
            same(
                "warp0",
                &at,
                domain_warp(&s, x * 0.03, y * 0.03, 4.0, 1.0, 0),
                &sample["warp0"],
            );
            same(
                "warp1",
                &at,
                domain_warp(&s, x * 0.03, y * 0.03, 1.0, 0.35, 1),
                &sample["warp1"],
            );
            same(
                "warp2",
                &at,
                domain_warp(&s, x * 0.03, y * 0.03, 4.0, 1.0, 2),
                &sample["warp2"],
            );
            let f = fbm(&s, x * 0.03, y * 0.03, 4, 0.5, 2.0);
            same("ridged", &at, ridged(f), &sample["ridged"]);
            same("billow", &at, billow(f), &sample["billow"]);
            same("temperature", &at, c.temperature, &sample["temperature"]);
            same("moisture", &at, c.moisture, &sample["moisture"]);
            assert_eq!(
                pick_biome(c.temperature, c.moisture, &limits, &limits) as i64,
                int(&sample["biome"]),
                "biome at {at}"
            );
            let nt = nearest_two(&sites, x, y);
            assert_eq!(
                nt.nearest as i64,
                int(&sample["nearest"]),
                "nearest at {at}"
            );
            assert_eq!(nt.second as i64, int(&sample["second"]), "second at {at}");
            same("d1", &at, nt.d1, &sample["d1"]);
            same("d2", &at, nt.d2, &sample["d2"]);
            let cb = cell_blend(&sites, &s, x, y, 14.0, 10.0, 0.02);
            assert_eq!(
                cb.nearest as i64,
                int(&sample["blend_nearest"]),
                "blend_nearest at {at}"
            );
            assert_eq!(
                cb.second as i64,
                int(&sample["blend_second"]),
                "blend_second at {at}"
            );
            same("blend_weight", &at, cb.weight, &sample["blend_weight"]);
            same(
                "density_stack",
                &at,
                stack.value(x + 160.0, y + 120.0, &cell_sites),
                &sample["density_stack"],
            );
        }
    }
}

/// The closures of `tutorial::nodes`, chained as the tutorial does, give the same stack.
#[test]
fn density_stack_closures() {
    use biome_core::tutorial::{cell_node, clamp_node, mix_node, simplex_node, warp_node};
    for (file, case) in cases() {
        let seed = case.seed;
        let terrain = simplex_node(Simplex::new(seed), 0.012, 4);
        let terrain = warp_node(terrain, Simplex::new(seed + 4), 25.0, 0.006);
        let terrain = clamp_node(terrain, -0.3, 0.55);
        let terrain = mix_node(
            terrain,
            cell_node(make_sites(12, 320.0, 240.0, seed + 7), 90.0),
            0.35,
        );
        for sample in case.value["samples"].as_array().unwrap() {
            let (x, y) = (float(&sample["x"]), float(&sample["y"]));
            same(
                "density_stack",
                &format!("{file} seed {seed} ({x}, {y})"),
                terrain(x + 160.0, y + 120.0),
                &sample["density_stack"],
            );
        }
    }
}

/// The same fields through the batch (SIMD) paths, all points of a case in one call.
#[test]
fn samples_batch() {
    for (file, case) in cases() {
        let seed = case.seed;
        let s = Simplex::new(seed);
        let samples = case.value["samples"].as_array().unwrap();
        let xs: Vec<f64> = samples.iter().map(|v| float(&v["x"])).collect();
        let ys: Vec<f64> = samples.iter().map(|v| float(&v["y"])).collect();
        let scaled = |factor: f64| -> (Vec<f64>, Vec<f64>) {
            (
                xs.iter().map(|x| x * factor).collect(),
                ys.iter().map(|y| y * factor).collect(),
            )
        };
        let mut out = vec![0.0; xs.len()];
        let check = |name: &str, out: &[f64]| {
            for (k, sample) in samples.iter().enumerate() {
                same(
                    name,
                    &format!("{file} seed {seed} sample {k} (batch)"),
                    out[k],
                    &sample[name],
                );
            }
        };
        s.noise_points(&xs, &ys, &mut out);
        check("noise", &out);
        let (x01, y01) = scaled(0.01);
        s.noise_points(&x01, &y01, &mut out);
        check("noise_scaled", &out);
        s.fbm_points(&x01, &y01, FbmParams::octaves(5), &mut out);
        check("fbm5", &out);
        let (x05, y05) = scaled(0.05);
        s.fbm_points(&x05, &y05, FbmParams::default(), &mut out);
        check("fbm4", &out);
        let (x02, y02) = scaled(0.02);
        let params = FbmParams {
            octaves: 8,
            persistence: 0.6,
            lacunarity: 1.9,
        };
        s.fbm_points(&x02, &y02, params, &mut out);
        check("fbm8_p06_l19", &out);
        let (x03, y03) = scaled(0.03);
        s.domain_warp_points(&x03, &y03, 4.0, 1.0, 0, &mut out);
        check("warp0", &out);
        s.domain_warp_points(&x03, &y03, 1.0, 0.35, 1, &mut out);
        check("warp1", &out);
        s.domain_warp_points(&x03, &y03, 4.0, 1.0, 2, &mut out);
        check("warp2", &out);

        let stack = DensityField::new(&DensityNode::tutorial_example(), seed).unwrap();
        let cell_sites = make_sites(12, 320.0, 240.0, seed + 7);
        let sx: Vec<f64> = xs.iter().map(|x| x + 160.0).collect();
        let sy: Vec<f64> = ys.iter().map(|y| y + 120.0).collect();
        stack.values(&sx, &sy, &cell_sites, &mut out);
        check("density_stack", &out);
    }
}
