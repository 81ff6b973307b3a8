//! Biome-aware scatter: each object in exactly one of any tiling of rectangles, spacing held
//! across their borders, no room left for another where the ground takes one, the biomes'
//! spacings, the same objects on any thread, and a game's own layers: their rules, their ids,
//! and their independence from the other layers.
#![expect(
    clippy::disallowed_methods,
    reason = "tests measure the world with the platform's functions; they make none of its values"
)]

use std::collections::{HashMap, HashSet};

use biome_core::cover::LayerName;
use biome_core::scatter::{ScatterId, ScatterLayer, ScatterSpacing, Scattered, WaterRule};
use biome_core::{ChunkLayout, Surface, WorldGenerator, WorldSettings};

/// The chunks' layout, which only layers on cave floors read (none here).
fn layout() -> ChunkLayout {
    ChunkLayout::default()
}

fn world(seed: i64) -> WorldGenerator {
    WorldGenerator::new(WorldSettings {
        seed,
        ..WorldSettings::default()
    })
    .expect("default settings are valid")
}

/// Every layer's index, with its name for messages.
fn layers(world: &WorldGenerator) -> Vec<(usize, LayerName)> {
    world
        .settings()
        .scatter
        .layers
        .iter()
        .map(|l| l.name)
        .enumerate()
        .collect()
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
        for (index, kind) in layers(&world) {
            let min = origin;
            let max = [origin[0] + 256.0, origin[1] + 256.0];
            let whole = world.scatter_in_rect(index, min, max, &layout()).unwrap();
            let mut tiled = Vec::new();
            for j in 0..4 {
                for i in 0..4 {
                    let low = [min[0] + 64.0 * f64::from(i), min[1] + 64.0 * f64::from(j)];
                    let high = [low[0] + 64.0, low[1] + 64.0];
                    tiled.extend(world.scatter_in_rect(index, low, high, &layout()).unwrap());
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
            let ids: HashSet<ScatterId> = tiled.iter().map(|o| o.id).collect();
            assert_eq!(ids.len(), tiled.len(), "{kind:?}: two objects share an id");
            let whole_ids: HashSet<ScatterId> = whole.iter().map(|o| o.id).collect();
            assert_eq!(
                whole_ids, ids,
                "{kind:?}: the tiles number objects otherwise"
            );
            counts[index] += whole.len();
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
        for (index, kind) in layers(&world) {
            let (min, max) = (
                [centre[0] - 400.0, centre[1] - 400.0],
                [centre[0] + 400.0, centre[1] + 400.0],
            );
            let all = world.scatter_in_rect(index, min, max, &layout()).unwrap();
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
    let mut count = 0;
    for (index, kind) in layers(&world) {
        let rules = world.settings().scatter.layers[index];
        let max_slope = rules.max_slope_degrees.to_radians().tan();
        for p in world
            .scatter_in_rect(index, [-600.0, -600.0], [600.0, 600.0], &layout())
            .unwrap()
        {
            count += 1;
            let [x, y, z] = p.position;
            let sample = world.sample(x, z);
            assert_eq!(y, sample.height, "{kind:?} stands on the ground");
            assert!(!sample.surface.is_water() && sample.surface != Surface::Beach);
            assert!(
                rules.on_snow || sample.surface != Surface::Snow,
                "{kind:?} on snow"
            );
            let biome = &world.settings().biome_table.biomes[p.biome];
            let spacing = biome
                .scatter
                .iter()
                .find(|s| s.layer == kind)
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
    let count = world.settings().scatter.layers.len();
    let reference: Vec<Vec<Scattered>> = (0..count)
        .map(|layer| {
            world
                .scatter_in_rect(layer, rect.0, rect.1, &layout())
                .unwrap()
        })
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                for layer in (0..count).rev() {
                    assert_eq!(
                        world
                            .scatter_in_rect(layer, rect.0, rect.1, &layout())
                            .unwrap(),
                        reference[layer]
                    );
                }
            });
        }
    });
    let mut settings = world.settings().clone();
    settings.scatter.enabled = false;
    let off = WorldGenerator::new(settings.clone()).unwrap();
    assert!(
        off.scatter_in_rect(0, rect.0, rect.1, &layout())
            .unwrap()
            .is_empty()
    );
    settings.scatter.enabled = true;
    for biome in &mut settings.biome_table.biomes {
        biome
            .scatter
            .retain(|s| s.layer.as_str() != ScatterLayer::GRASS);
    }
    let bare = WorldGenerator::new(settings).unwrap();
    assert!(
        bare.scatter_in_rect(2, rect.0, rect.1, &layout())
            .unwrap()
            .is_empty()
    );
    assert!(
        !bare
            .scatter_in_rect(0, rect.0, rect.1, &layout())
            .unwrap()
            .is_empty()
    );
}

/// A game's loot layer: chests 60 units apart on land between 5 and 40 units high, with an
/// ore layer on the shore. Each keeps to its rules, tiles seamlessly with stable ids, and
/// adding, removing or reordering layers moves no object of any other layer.
#[test]
fn a_games_own_layers_keep_their_rules_and_leave_the_others_alone() {
    let mut base = WorldSettings {
        seed: 17,
        ..WorldSettings::default()
    };
    base.rivers.enabled = true;
    let mut settings = base.clone();
    let loot = ScatterLayer {
        min_height: Some(5.0),
        max_height: Some(40.0),
        water: WaterRule::Land,
        on_snow: true,
        min_scale: 1.0,
        max_scale: 1.0,
        ..ScatterLayer::new("loot").unwrap()
    };
    let shells = ScatterLayer {
        water: WaterRule::Shore,
        ..ScatterLayer::new("shells").unwrap()
    };
    // First in the list, so the built-in layers move down.
    settings.scatter.layers.splice(0..0, [loot, shells]);
    for biome in &mut settings.biome_table.biomes {
        biome.scatter.push(ScatterSpacing::new("loot", 60.0));
        biome.scatter.push(ScatterSpacing::new("shells", 3.0));
    }
    let world = WorldGenerator::new(settings.clone()).expect("valid layers");
    let (min, max) = ([-800.0, -800.0], [800.0, 800.0]);
    let chests = world.scatter_in_rect(0, min, max, &layout()).unwrap();
    assert!(chests.len() > 50, "only {} chests", chests.len());
    for chest in &chests {
        let [x, y, z] = chest.position;
        assert!((5.0..=40.0).contains(&y), "a chest at height {y}");
        assert!(!world.sample(x, z).surface.is_water());
        assert_eq!((chest.layer, chest.scale), (0, 1.0));
    }
    let mut tiled = Vec::new();
    for j in 0..4 {
        for i in 0..4 {
            let low = [min[0] + 400.0 * f64::from(i), min[1] + 400.0 * f64::from(j)];
            tiled.extend(
                world
                    .scatter_in_rect(0, low, [low[0] + 400.0, low[1] + 400.0], &layout())
                    .unwrap(),
            );
        }
    }
    let by_id = |objects: &[Scattered]| -> HashMap<ScatterId, [u64; 3]> {
        objects.iter().map(|o| (o.id, key(o))).collect()
    };
    assert_eq!(by_id(&tiled), by_id(&chests), "tiles find other chests");
    assert_eq!(by_id(&tiled).len(), chests.len());

    let shore = world.scatter_in_rect(1, min, max, &layout()).unwrap();
    assert!(shore.len() > 20, "only {} shells", shore.len());
    for shell in &shore {
        let sample = world.sample(shell.position[0], shell.position[2]);
        assert!(!sample.surface.is_water(), "a shell in the water");
        let beach = world.settings().surface.beach;
        assert!(
            sample.density < beach || sample.river.bank >= 0.5,
            "a shell inland: {sample:?}"
        );
    }

    // The built-in layers, now at 2, 3, 4, are where the default world has them.
    let plain = WorldGenerator::new(base).unwrap();
    for layer in 0..3 {
        let keys = |world: &WorldGenerator, layer| -> Vec<[u64; 3]> {
            let objects = world
                .scatter_in_rect(layer, min, [0.0, 0.0], &layout())
                .unwrap();
            objects.iter().map(key).collect()
        };
        let (now, before) = (keys(&world, layer + 2), keys(&plain, layer));
        assert!(now.len() > 100 && now == before, "layer {layer} moved");
    }
    // Reordered, the chests stay where they were, with their ids.
    settings.scatter.layers.swap(0, 4);
    let reordered = WorldGenerator::new(settings).unwrap();
    assert_eq!(
        by_id(&reordered.scatter_in_rect(4, min, max, &layout()).unwrap()),
        by_id(&chests)
    );
}

/// Layers are checked by field: names unique and known to every biome that lists them, height
/// rules in order, and at most so many layers.
#[test]
fn layers_are_validated_by_field() {
    let refused = |change: &dyn Fn(&mut WorldSettings)| {
        let mut settings = WorldSettings::default();
        change(&mut settings);
        settings.validate().expect_err("refused").field
    };
    assert_eq!(
        refused(&|s| s.biome_table.biomes[3]
            .scatter
            .push(ScatterSpacing::new("gold", 30.0))),
        "biome_table.biomes[3].scatter[3].layer"
    );
    assert_eq!(
        refused(&|s| s.scatter.layers.push(ScatterLayer::new("bush").unwrap())),
        "scatter.layers[3].name"
    );
    assert_eq!(
        refused(&|s| {
            s.scatter.layers[1].min_height = Some(50.0);
            s.scatter.layers[1].max_height = Some(10.0);
        }),
        "scatter.layers[1].min_height"
    );
    assert_eq!(
        refused(&|s| s.scatter.layers[2].max_height = Some(f64::NAN)),
        "scatter.layers[2].max_height"
    );
    assert_eq!(
        refused(&|s| {
            for k in 0..20 {
                s.scatter
                    .layers
                    .push(ScatterLayer::new(&format!("extra_{k}")).unwrap());
            }
        }),
        "scatter.layers"
    );
    let world = WorldGenerator::default();
    assert!(
        world
            .scatter_in_rect(3, [0.0, 0.0], [10.0, 10.0], &layout())
            .is_err()
    );
}
