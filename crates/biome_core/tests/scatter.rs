//! Biome-aware scatter: each object in exactly one of any tiling of rectangles, spacing held
//! across their borders, no room left for another where the ground takes one, the biomes'
//! spacings, and the same objects on any thread.
#![expect(
    clippy::disallowed_methods,
    reason = "tests measure the world with the platform's functions; they make none of its values"
)]

use std::collections::{HashMap, HashSet};

use biome_core::scatter::{ScatterKind, Scattered};
use biome_core::{Surface, WorldGenerator, WorldSettings};

fn world(seed: i64) -> WorldGenerator {
    WorldGenerator::new(WorldSettings {
        seed,
        ..WorldSettings::default()
    })
    .expect("default settings are valid")
}

fn key(object: &Scattered) -> [u64; 3] {
    object.position.map(f64::to_bits)
}

/// A 256-unit square cut into 4 × 4 tiles finds the objects of the whole square, each once, and
/// every two of a kind lie at least the larger of their spacings apart, across tile borders
/// too.
#[test]
fn objects_are_placed_once_with_spacing_held_across_borders() {
    let mut counts = [0; 3];
    for (seed, origin) in [
        (5, [0.0, 0.0]),
        (11, [-3000.0, 1700.0]),
        (42, [900.0, -2400.0]),
    ] {
        let world = world(seed);
        for kind in ScatterKind::ALL {
            let min = origin;
            let max = [origin[0] + 256.0, origin[1] + 256.0];
            let whole = world.scatter_in_rect(kind, min, max).unwrap();
            let mut tiled = Vec::new();
            for j in 0..4 {
                for i in 0..4 {
                    let low = [min[0] + 64.0 * f64::from(i), min[1] + 64.0 * f64::from(j)];
                    let high = [low[0] + 64.0, low[1] + 64.0];
                    tiled.extend(world.scatter_in_rect(kind, low, high).unwrap());
                }
            }
            let whole_keys: HashSet<[u64; 3]> = whole.iter().map(key).collect();
            let tiled_keys: HashSet<[u64; 3]> = tiled.iter().map(key).collect();
            assert_eq!(
                tiled_keys.len(),
                tiled.len(),
                "{kind:?}: an object in two tiles"
            );
            assert_eq!(
                whole_keys, tiled_keys,
                "{kind:?}: the tiles miss or add objects"
            );
            for (a, p) in whole.iter().enumerate() {
                for q in &whole[a + 1..] {
                    let (dx, dz) = (p.position[0] - q.position[0], p.position[2] - q.position[2]);
                    let reach = p.spacing.max(q.spacing);
                    assert!(
                        dx * dx + dz * dz >= reach * reach,
                        "{kind:?} at {:?} and {:?}, {reach} apart at least",
                        p.position,
                        q.position
                    );
                }
            }
            counts[kind.index()] += whole.len();
        }
    }
    assert!(
        counts.iter().all(|&c| c > 20),
        "objects per kind: {counts:?}"
    );
}

/// The set leaves no room: the nearest neighbours of objects are close to their spacing (a set
/// with gaps would have them far), and each biome's objects are as far apart as it says. The
/// areas hold biomes whose spacing is wide against the candidate cells (most candidates
/// dropped there) as well as narrow ones.
#[test]
fn each_biome_packs_its_own_spacing() {
    let mut report = Vec::new();
    for (seed, centre) in [(42, [0.0, 0.0]), (11, [-3000.0, 1700.0])] {
        let world = world(seed);
        let biomes = &world.settings().biome_table.biomes;
        for kind in ScatterKind::ALL {
            let (min, max) = (
                [centre[0] - 400.0, centre[1] - 400.0],
                [centre[0] + 400.0, centre[1] + 400.0],
            );
            let all = world.scatter_in_rect(kind, min, max).unwrap();
            let mut by_biome: HashMap<usize, Vec<f64>> = HashMap::new();
            for p in &all {
                // The nearest neighbour of the same biome, away from the square's edge.
                let inner = (p.position[0] - centre[0]).abs() < 350.0
                    && (p.position[2] - centre[1]).abs() < 350.0;
                if !inner {
                    continue;
                }
                let nearest = all
                    .iter()
                    .filter(|q| q.biome == p.biome && q.position != p.position)
                    .map(|q| (p.position[0] - q.position[0]).hypot(p.position[2] - q.position[2]))
                    .fold(f64::INFINITY, f64::min);
                by_biome
                    .entry(p.biome)
                    .or_default()
                    .push(nearest / p.spacing);
            }
            for (biome, mut ratios) in by_biome {
                if ratios.len() < 40 {
                    continue;
                }
                ratios.sort_by(f64::total_cmp);
                let median = ratios[ratios.len() / 2];
                report.push(format!(
                    "{kind:?} in {} (seed {seed}): {} objects, median nearest {median:.2} spacings",
                    biomes[biome].name,
                    ratios.len()
                ));
                assert!(ratios[0] >= 1.0, "{kind:?} closer than its spacing");
                assert!(
                    (1.0..1.5).contains(&median),
                    "{kind:?} in {} leaves gaps: median nearest {median} spacings",
                    biomes[biome].name
                );
            }
        }
    }
    println!("SCATTER: {}", report.join("; "));
    assert!(report.len() >= 6, "too few biomes measured: {report:?}");
}

/// Objects keep to dry, gentle ground; plants keep off snow; a biome without a kind has none.
#[test]
fn objects_stand_where_the_ground_holds_them() {
    let mut settings = WorldSettings {
        seed: 9,
        ..WorldSettings::default()
    };
    settings.rivers.enabled = true;
    let world = WorldGenerator::new(settings).unwrap();
    let max_slope = world
        .settings()
        .scatter
        .max_slope_degrees
        .to_radians()
        .tan();
    let mut count = 0;
    for kind in ScatterKind::ALL {
        for p in world
            .scatter_in_rect(kind, [-600.0, -600.0], [600.0, 600.0])
            .unwrap()
        {
            count += 1;
            let [x, y, z] = p.position;
            let sample = world.sample(x, z);
            assert_eq!(y, sample.height, "{kind:?} stands on the ground");
            assert!(!sample.surface.is_water() && sample.surface != Surface::Beach);
            assert!(
                kind.on_snow() || sample.surface != Surface::Snow,
                "{kind:?} on snow"
            );
            let biome = &world.settings().biome_table.biomes[p.biome];
            let spacing = biome
                .scatter
                .iter()
                .find(|s| s.kind == kind)
                .map(|s| s.spacing);
            assert_eq!(spacing, Some(p.spacing), "{kind:?} in {}", biome.name);
            // Slope as trees and scatter measure it: a metre east and south.
            let east = world.height_at(x + 1.0, z);
            let south = world.height_at(x, z + 1.0);
            let slope = (east - y).hypot(south - y);
            assert!(slope <= max_slope + 1e-9, "{kind:?} on a slope of {slope}");
        }
    }
    assert!(count > 1000, "only {count} objects");
}

#[test]
fn scatter_is_the_same_on_any_thread_and_off_without_biomes() {
    let world = world(123);
    let rect = ([-100.0, 40.0], [60.0, 200.0]);
    let reference: Vec<Vec<Scattered>> = ScatterKind::ALL
        .iter()
        .map(|&kind| world.scatter_in_rect(kind, rect.0, rect.1).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                for (k, &kind) in ScatterKind::ALL.iter().enumerate().rev() {
                    assert_eq!(
                        world.scatter_in_rect(kind, rect.0, rect.1).unwrap(),
                        reference[k]
                    );
                }
            });
        }
    });
    let mut settings = world.settings().clone();
    settings.scatter.enabled = false;
    let off = WorldGenerator::new(settings.clone()).unwrap();
    assert!(
        off.scatter_in_rect(ScatterKind::Rock, rect.0, rect.1)
            .unwrap()
            .is_empty()
    );
    settings.scatter.enabled = true;
    for biome in &mut settings.biome_table.biomes {
        biome.scatter.retain(|s| s.kind != ScatterKind::Grass);
    }
    let bare = WorldGenerator::new(settings).unwrap();
    assert!(
        bare.scatter_in_rect(ScatterKind::Grass, rect.0, rect.1)
            .unwrap()
            .is_empty()
    );
    assert!(
        !bare
            .scatter_in_rect(ScatterKind::Rock, rect.0, rect.1)
            .unwrap()
            .is_empty()
    );
}
