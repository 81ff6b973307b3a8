//! Terrain edits (issue 24, step 1): the index finds exactly what applying every edit in order
//! finds, nothing changes outside an edit's bounds, edits are continuous where their skirts and
//! falloffs say, pads and paths hold their heights, and bad edits are refused by field.

use std::sync::Arc;

use biome_core::edits::{BrushOp, EditFileError, EditLog, EditSet, EditShape};
use biome_core::{ChunkCoord, ChunkLayout, Rgb, Surface, WorldGenerator, WorldSettings, limits};

/// The ground before edits: anything smooth will do (a bumpy bowl).
fn ground(x: f64, z: f64) -> f64 {
    let wave = |v: f64| {
        let t = (v * 0.01).rem_euclid(2.0) - 1.0;
        t * t * (3.0 - 2.0 * t.abs())
    };
    10.0 + 8.0 * wave(x) * wave(z * 1.3) + (x * x + z * z) * 1e-5
}

/// A small deterministic generator of numbers in `[0, 1)` (splitmix64).
struct Draws(u64);

impl Draws {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn within(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.next()
    }
}

/// Random edits of every shape over a 2 km square.
fn random_edits(draws: &mut Draws, count: usize) -> Vec<EditShape> {
    (0..count)
        .map(|k| {
            let center = [draws.within(-1000.0, 1000.0), draws.within(-1000.0, 1000.0)];
            match k % 4 {
                0 => EditShape::Brush {
                    center,
                    radius: draws.within(2.0, 80.0),
                    falloff: draws.next(),
                    op: BrushOp::Raise(draws.within(-20.0, 20.0)),
                },
                1 => EditShape::Brush {
                    center,
                    radius: draws.within(2.0, 80.0),
                    falloff: draws.next(),
                    op: BrushOp::Flatten(draws.within(-5.0, 40.0)),
                },
                2 => EditShape::Pad {
                    center,
                    half_size: [draws.within(1.0, 40.0), draws.within(1.0, 40.0)],
                    height: draws.within(0.0, 30.0),
                    skirt: draws.within(0.0, 30.0),
                },
                _ => EditShape::Path {
                    points: (0..4)
                        .map(|_| {
                            [
                                center[0] + draws.within(-150.0, 150.0),
                                draws.within(0.0, 30.0),
                                center[1] + draws.within(-150.0, 150.0),
                            ]
                        })
                        .collect(),
                    width: draws.within(2.0, 12.0),
                    skirt: draws.within(0.0, 20.0),
                    surface: (k % 8 == 7).then_some(Rgb(150, 120, 90)),
                },
            }
        })
        .collect()
}

/// The set's indexed answer is, bit for bit, every edit applied in order (the brute-force
/// oracle), and outside every edit's bounds the ground is untouched.
#[test]
fn the_index_gives_every_edit_in_order() {
    let mut draws = Draws(7);
    let edits = random_edits(&mut draws, 400);
    let set = EditSet::new(edits.clone()).expect("valid edits");
    let mut changed = 0;
    for _ in 0..20_000 {
        let (x, z) = (draws.within(-1200.0, 1200.0), draws.within(-1200.0, 1200.0));
        let before = ground(x, z);
        let brute = edits.iter().fold(before, |h, edit| edit.apply(x, z, h));
        let indexed = set.height_at(x, z, before);
        assert_eq!(indexed.to_bits(), brute.to_bits(), "at ({x}, {z})");
        assert!(indexed.is_finite());
        let inside = edits.iter().any(|edit| {
            let [low, high] = edit.bounds();
            (low[0]..=high[0]).contains(&x) && (low[1]..=high[1]).contains(&z)
        });
        if !inside {
            assert_eq!(
                indexed.to_bits(),
                before.to_bits(),
                "changed outside at ({x}, {z})"
            );
        }
        changed += usize::from(indexed != before);
    }
    assert!(changed > 2000, "only {changed} points changed");
    // Its memory holds the edits and at least an entry a cell for each.
    let least = 400 * (std::mem::size_of::<EditShape>() + std::mem::size_of::<u32>());
    assert!(set.memory_bytes() > least, "{} bytes", set.memory_bytes());
    assert!(EditSet::default().memory_bytes() < least / 100);
    // A rectangle no edit touches keeps every height; touched ones are found.
    let (mut untouched, mut touched) = (0, 0);
    for _ in 0..400 {
        let min = [draws.within(-1300.0, 1300.0), draws.within(-1300.0, 1300.0)];
        let max = [min[0] + 20.0, min[1] + 20.0];
        if set.touches(min, max) {
            touched += 1;
            continue;
        }
        untouched += 1;
        for k in 0..25 {
            let (x, z) = (
                min[0] + f64::from(k % 5) * 5.0,
                min[1] + f64::from(k / 5) * 5.0,
            );
            assert_eq!(set.height_at(x, z, ground(x, z)), ground(x, z));
        }
    }
    assert!(
        untouched > 10 && touched > 10,
        "{untouched} untouched, {touched} touched"
    );
}

/// Edits with a skirt or falloff are continuous: two points a millimetre apart differ by no
/// more than the steepest slope the edit can make times that millimetre.
#[test]
fn edits_with_skirts_are_continuous() {
    let edits = vec![
        EditShape::Brush {
            center: [0.0, 0.0],
            radius: 40.0,
            falloff: 0.5,
            op: BrushOp::Raise(12.0),
        },
        EditShape::Pad {
            center: [30.0, 0.0],
            half_size: [10.0, 6.0],
            height: 25.0,
            skirt: 8.0,
        },
        EditShape::Path {
            points: vec![[-60.0, 5.0, -60.0], [0.0, 15.0, 10.0], [60.0, 5.0, 40.0]],
            width: 6.0,
            skirt: 10.0,
            surface: None,
        },
    ];
    let set = EditSet::new(edits).unwrap();
    let step = 1e-3;
    let mut worst: f64 = 0.0;
    for i in -1000..1000 {
        for j in (-1000..1000).step_by(7) {
            let (x, z) = (f64::from(i) * 0.1, f64::from(j) * 0.1);
            let here = set.height_at(x, z, ground(x, z));
            let east = set.height_at(x + step, z, ground(x + step, z));
            worst = worst.max((east - here).abs() / step);
        }
    }
    // The steepest: a 25-unit pad over an 8-unit skirt (smoothstep's slope is 1.5 / width).
    assert!(
        worst < 25.0 * 1.5 / 8.0 * 1.5,
        "a slope of {worst} per unit: a seam"
    );
}

/// A pad is flat at its height on its rectangle; a path follows its grade along its centre line;
/// a flatten brush reaches its height at its centre; later edits apply over earlier ones.
#[test]
fn pads_and_paths_hold_their_heights() {
    let pad = EditShape::Pad {
        center: [100.0, -50.0],
        half_size: [12.0, 8.0],
        height: 33.0,
        skirt: 5.0,
    };
    for (x, z) in [(100.0, -50.0), (88.0, -42.0), (111.9, -57.9)] {
        assert_eq!(pad.apply(x, z, ground(x, z)), 33.0);
    }
    let cliff = EditShape::Pad {
        center: [100.0, -50.0],
        half_size: [12.0, 8.0],
        height: 33.0,
        skirt: 0.0,
    };
    assert_eq!(
        cliff.apply(100.0, -50.0, 0.0),
        33.0,
        "a pad without a skirt is still a pad"
    );
    assert_eq!(cliff.apply(112.5, -50.0, 1.0), 1.0);
    let road = EditShape::Path {
        points: vec![[0.0, 10.0, 0.0], [100.0, 20.0, 0.0]],
        width: 4.0,
        skirt: 3.0,
        surface: None,
    };
    for k in 0..=10 {
        let x = f64::from(k) * 10.0;
        let h = road.apply(x, 1.5, ground(x, 1.5));
        assert!((h - (10.0 + x / 10.0)).abs() < 1e-12, "{h} at {x}");
    }
    let flatten = EditShape::Brush {
        center: [0.0, 0.0],
        radius: 10.0,
        falloff: 0.3,
        op: BrushOp::Flatten(-4.0),
    };
    assert_eq!(flatten.apply(0.0, 0.0, 50.0), -4.0);
    let raise = EditShape::Brush {
        center: [0.0, 0.0],
        radius: 10.0,
        falloff: 0.3,
        op: BrushOp::Raise(6.0),
    };
    let set = EditSet::new(vec![flatten.clone(), raise.clone()]).unwrap();
    assert_eq!(set.height_at(0.0, 0.0, 50.0), 2.0, "flattened, then raised");
    let other = EditSet::new(vec![raise, flatten]).unwrap();
    assert_eq!(
        other.height_at(0.0, 0.0, 50.0),
        -4.0,
        "raised, then flattened"
    );
}

/// NaN, infinite or huge values, edits beyond the world's coordinates, degenerate paths and
/// too many edits are refused, each naming its field.
#[test]
fn bad_edits_are_refused_by_field() {
    let brush = |radius: f64, center: [f64; 2]| EditShape::Brush {
        center,
        radius,
        falloff: 0.5,
        op: BrushOp::Raise(1.0),
    };
    let field = |edits: Vec<EditShape>| EditSet::new(edits).expect_err("refused").field;
    assert_eq!(
        field(vec![brush(1.0, [0.0; 2]), brush(f64::NAN, [0.0; 2])]),
        "edits[1].radius"
    );
    assert_eq!(field(vec![brush(1e9, [0.0; 2])]), "edits[0].radius");
    assert_eq!(
        field(vec![brush(1.0, [f64::INFINITY, 0.0])]),
        "edits[0].center[0]"
    );
    assert_eq!(field(vec![brush(1.0, [0.0, 1e15])]), "edits[0].center[1]");
    let path = |points: Vec<[f64; 3]>| EditShape::Path {
        points,
        width: 4.0,
        skirt: 1.0,
        surface: None,
    };
    assert_eq!(field(vec![path(vec![[0.0; 3]])]), "edits[0].points");
    assert_eq!(
        field(vec![path(vec![[0.0, 1.0, 0.0], [0.0, 5.0, 0.0]])]),
        "edits[0].points[1]"
    );
    assert_eq!(
        field(vec![path(vec![[0.0; 3], [1.0, f64::NAN, 1.0]])]),
        "edits[0].points[1][1]"
    );
    let pad = EditShape::Pad {
        center: [0.0; 2],
        half_size: [4.0, -1.0],
        height: 1.0,
        skirt: 1.0,
    };
    assert_eq!(field(vec![pad]), "edits[0].half_size[1]");
    let many = vec![brush(1.0, [0.0; 2]); limits::MAX_EDITS + 1];
    assert_eq!(field(many), "edits");
    // Wide edits are refused once their index would pass its bound.
    let wide = vec![brush(5000.0, [0.0; 2]); 200];
    assert!(field(wide).starts_with("edits["));
}

/// Everything reads the edited ground: heights, samples, chunk vertices and height grids agree
/// on a pad's height; away from the edits every height keeps its bits; a trench dug below sea
/// level is water; trees and scattered objects stand on the edited ground and none on a pad,
/// a road or a clearing.
#[test]
fn the_world_sees_its_edits() {
    let layout = ChunkLayout::default();
    let plain = WorldGenerator::default();
    // Trees and grass of the plain world near the origin pick where to clear.
    let (min, max) = ([-600.0, -600.0], [600.0, 600.0]);
    let trees = plain.trees_in_rect(min, max);
    assert!(trees.len() > 50, "{} trees", trees.len());
    let [tx, _, tz] = trees[0].position;
    let grass = plain.settings().scatter.layer_index("grass").unwrap();
    let tufts = plain
        .scatter_in_rect(grass, [-300.0; 2], [300.0; 2], &ChunkLayout::default())
        .unwrap();
    let [px, _, pz] = tufts[tufts.len() / 2].position;
    // Dry land for a trench.
    let (dx, dz) = (0..400)
        .map(|k| {
            (
                f64::from(k % 20) * 55.0 - 500.0,
                f64::from(k / 20) * 55.0 - 500.0,
            )
        })
        .find(|&(x, z)| (8.0..60.0).contains(&plain.height_at(x, z)))
        .expect("dry land near the origin");
    let edited = edited_over(
        &plain,
        vec![
            EditShape::Clearing {
                center: [tx, tz],
                radius: 30.0,
            },
            EditShape::Pad {
                center: [px, pz],
                half_size: [20.0, 12.0],
                height: 70.0,
                skirt: 15.0,
            },
            EditShape::Brush {
                center: [dx, dz],
                radius: 12.0,
                falloff: 0.5,
                op: BrushOp::Flatten(-6.0),
            },
        ],
    );
    // Heights and samples.
    assert_eq!(edited.height_at(px, pz), 70.0);
    assert_eq!(edited.sample(px + 19.0, pz - 11.0).height, 70.0);
    assert_eq!(edited.height_at(dx, dz), -6.0);
    assert!(
        edited.sample(dx, dz).surface.is_water(),
        "a trench below the sea fills"
    );
    for (x, z) in [(tx + 300.0, tz), (px, pz + 200.0), (5000.0, -3000.0)] {
        assert_eq!(
            edited.height_at(x, z).to_bits(),
            plain.height_at(x, z).to_bits()
        );
    }
    // The chunk under the pad: every vertex on it is at its height, every vertex is the
    // generator's height there, and the physics grid agrees.
    let coord = ChunkCoord::containing(px, pz, &layout);
    let chunk = edited.build_chunk(coord, &layout).unwrap();
    let mut on_pad = 0;
    for k in 0..chunk.positions.len() {
        let [x, y, z] = chunk.world_position(k);
        assert_eq!(
            y as f32,
            edited.height_at(x, z) as f32,
            "vertex at ({x}, {z})"
        );
        if (x - px).abs() <= 20.0 && (z - pz).abs() <= 12.0 {
            assert_eq!(y, 70.0);
            on_pad += 1;
        }
    }
    assert!(on_pad > 20, "{on_pad} vertices on the pad");
    let grid = edited
        .chunk_heights(coord, &layout, &std::sync::atomic::AtomicBool::new(false))
        .unwrap();
    assert_eq!(grid.height_at(px, pz), 70.0);
    // Trees: none on the pad or in the clearing, all on the edited ground; away from every
    // edit's bounds (by more than the metre over which the slope is measured) as before.
    let after = edited.trees_in_rect(min, max);
    let cleared = |p: [f64; 3]| {
        (p[0] - tx) * (p[0] - tx) + (p[2] - tz) * (p[2] - tz) <= 900.0
            || ((p[0] - px).abs() <= 20.0 && (p[2] - pz).abs() <= 12.0)
    };
    assert!(after.iter().all(|t| !cleared(t.position)));
    assert!(after.len() < trees.len());
    for tree in &after {
        let [x, y, z] = tree.position;
        assert_eq!(y, edited.height_at(x, z));
    }
    let reached = |p: &[f64; 3]| {
        edited.edits().edits().any(|edit| {
            let [low, high] = edit.bounds();
            (low[0] - 1.0..=high[0]).contains(&p[0]) && (low[1] - 1.0..=high[1]).contains(&p[2])
        })
    };
    let away = |list: &[biome_core::Tree]| -> Vec<biome_core::Tree> {
        list.iter()
            .filter(|t| !reached(&t.position))
            .cloned()
            .collect()
    };
    assert!(
        away(&trees) == away(&after),
        "trees away from the edits moved"
    );
    // Grass: the same, around the pad.
    let (gmin, gmax) = ([px - 60.0, pz - 60.0], [px + 60.0, pz + 60.0]);
    let before = plain
        .scatter_in_rect(grass, gmin, gmax, &ChunkLayout::default())
        .unwrap();
    let now = edited
        .scatter_in_rect(grass, gmin, gmax, &ChunkLayout::default())
        .unwrap();
    assert!(
        before.iter().any(|o| cleared(o.position)),
        "grass on the pad's site"
    );
    assert!(now.iter().all(|o| !cleared(o.position)));
    for o in &now {
        assert_eq!(
            o.position[1],
            edited.height_at(o.position[0], o.position[2])
        );
    }
}

/// A road with a surface colours the ground across its width, over snow and sand too (its cover
/// says how much, for a shader laying those per pixel), in samples and in the chunk's vertices
/// alike, fades out just past it, and leaves every colour beyond it as it was.
#[test]
fn a_road_lays_its_surface_colour() {
    let layout = ChunkLayout::default();
    let plain = WorldGenerator::default();
    let dirt = Rgb(128, 104, 78);
    let edited = edited_over(
        &plain,
        vec![EditShape::Path {
            points: vec![[-40.0, 30.0, 20.0], [90.0, 30.0, 20.0]],
            width: 6.0,
            skirt: 4.0,
            surface: Some(dirt),
        }],
    );
    let linear = dirt.to_linear();
    let close = |c: [f32; 4]| (0..3).all(|k| (f64::from(c[k]) - linear[k]).abs() < 1e-6);
    for z in [20.0, 22.9] {
        let on = edited.sample(10.0, z);
        assert!(close(on.color) && close(on.land_color), "{on:?}");
        assert_eq!(on.cover, 1.0);
    }
    let edge = edited.sample(10.0, 23.5);
    assert!(!close(edge.color) && edge.color != plain.sample(10.0, 23.5).color);
    assert!(
        edge.cover > 0.0 && edge.cover < 1.0,
        "fades at the edge: {}",
        edge.cover
    );
    for z in [27.5, 30.0, -5.0] {
        assert_eq!(edited.sample(10.0, z), plain.sample(10.0, z));
    }
    // Two roads crossing: the one laid last shows where both are whole, and the ground keeps
    // only what both leave.
    let red = Rgb(200, 40, 40);
    let crossed = edited_over(
        &plain,
        vec![
            EditShape::Path {
                points: vec![[-40.0, 30.0, 20.0], [90.0, 30.0, 20.0]],
                width: 6.0,
                skirt: 4.0,
                surface: Some(dirt),
            },
            EditShape::Path {
                points: vec![[10.0, 30.0, -40.0], [10.0, 30.0, 90.0]],
                width: 6.0,
                skirt: 4.0,
                surface: Some(red),
            },
        ],
    );
    let at = crossed.sample(10.0, 20.0);
    let top = red.to_linear();
    assert!(
        (0..3).all(|k| (f64::from(at.color[k]) - top[k]).abs() < 1e-6),
        "{at:?}"
    );
    let both = crossed.sample(13.5, 23.5);
    let (one, other) = (
        edited.sample(13.5, 23.5).cover,
        crossed.sample(13.5, -5.0).cover,
    );
    assert!((both.cover - (1.0 - (1.0 - one) * (1.0 - other))).abs() < 1e-12);
    let coord = ChunkCoord::containing(10.0, 20.0, &layout);
    let chunk = edited.build_chunk(coord, &layout).unwrap();
    let mut on_road = 0;
    for k in 0..chunk.positions.len() {
        let [x, _, z] = chunk.world_position(k);
        let sample = edited.sample(x, z);
        assert_eq!(chunk.colors[k], sample.color, "({x}, {z})");
        assert_eq!(chunk.covers[k], sample.cover as f32, "({x}, {z})");
        if (-40.0..=90.0).contains(&x) && (z - 20.0).abs() <= 3.0 {
            assert!(close(chunk.colors[k]), "({x}, {z})");
            on_road += 1;
        }
    }
    assert!(on_road > 50, "{on_road} vertices on the road");
}

/// A pad over a river stops its water there; a trench cut into the channel below its water keeps
/// it: the water a node draws follows the edited ground.
#[test]
fn river_water_follows_the_edited_ground() {
    let text = include_str!("../../../assets/presets/rivers.ron");
    let plain = WorldGenerator::new(WorldSettings::from_ron(text).unwrap()).unwrap();
    let (x, z, water) = plain
        .river_courses([-3000.0, -3000.0], [3000.0, 3000.0])
        .iter()
        .flat_map(|course| course.points.iter())
        .find_map(|&[x, z]| plain.river_water_at(x, z).map(|w| (x, z, w)))
        .expect("a river near the origin");
    let pad = EditShape::Pad {
        center: [x, z],
        half_size: [15.0, 15.0],
        height: water + 4.0,
        skirt: 10.0,
    };
    let dug = EditShape::Brush {
        center: [x, z],
        radius: 3.0,
        falloff: 0.5,
        op: BrushOp::Raise(-2.0),
    };
    let filled = edited_over(&plain, vec![pad]);
    assert_eq!(filled.river_water_at(x, z), None);
    assert_ne!(filled.sample(x, z).surface, Surface::River);
    let deeper = edited_over(&plain, vec![dug]);
    assert!(deeper.height_at(x, z) < plain.height_at(x, z));
    assert!(deeper.river_water_at(x, z).is_some());
}

/// `plain`'s world with `edits`.
fn edited_over(plain: &WorldGenerator, edits: Vec<EditShape>) -> WorldGenerator {
    plain
        .clone()
        .with_edits(Arc::new(EditSet::new(edits).unwrap()))
}

/// A log of every shape, numbered 1 up.
fn sample_log(count: usize) -> EditLog {
    let mut log = EditLog::new();
    let mut draws = Draws(11);
    let mut edits = random_edits(&mut draws, count);
    edits.push(EditShape::Clearing {
        center: [3.0, -4.0],
        radius: 25.0,
    });
    for edit in edits {
        log.push(edit).unwrap();
    }
    log
}

/// A fresh file path in the temporary directory.
fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("biome_edits_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Saved and loaded, a log is the same log; every cut, every damaged byte and every wrong
/// header is a clear error, never another log; the bytes of format version 1 stay as they are.
#[test]
fn edit_files_round_trip_and_refuse_damage() {
    let log = sample_log(120);
    let bytes = log.to_bytes();
    assert_eq!(EditLog::from_bytes(&bytes).unwrap(), log);
    let path = temp_path("round_trip.edits");
    log.save(&path).unwrap();
    assert_eq!(EditLog::load(&path).unwrap(), log);

    let small = sample_log(7).to_bytes();
    for cut in 0..small.len() {
        let error = EditLog::from_bytes(&small[..cut]).unwrap_err();
        assert!(
            matches!(
                error,
                EditFileError::Truncated { .. } | EditFileError::NotAnEditFile
            ),
            "cut at {cut}: {error}"
        );
    }
    for at in 0..small.len() {
        let mut damaged = small.clone();
        damaged[at] ^= 0x10;
        assert!(EditLog::from_bytes(&damaged).is_err(), "byte {at} flipped");
    }
    let mut newer = small.clone();
    newer[8..12].copy_from_slice(&2u32.to_le_bytes());
    assert!(matches!(
        EditLog::from_bytes(&newer),
        Err(EditFileError::Version { found: 2 })
    ));
    let mut longer = small.clone();
    longer.push(0);
    assert!(matches!(
        EditLog::from_bytes(&longer),
        Err(EditFileError::Trailing { extra: 1 })
    ));
    let huge = vec![0u8; usize::try_from(limits::MAX_EDIT_FILE_BYTES).unwrap() + 1];
    assert!(matches!(
        EditLog::from_bytes(&huge),
        Err(EditFileError::TooLarge { .. })
    ));
    // Version 1, locked: a release that changes these bytes can no longer read old saves.
    let one = {
        let mut log = EditLog::new();
        log.record(
            7,
            EditShape::Pad {
                center: [1.0, 2.0],
                half_size: [3.0, 4.0],
                height: 5.0,
                skirt: 6.0,
            },
        )
        .unwrap();
        log
    };
    let hex: String = one.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        concat!(
            "42494f4d45444954",                 // BIOMEDIT
            "01000000",                         // version 1
            "0100000000000000",                 // one entry
            "0700000000000000",                 // number 7
            "02",                               // a pad
            "000000000000f03f0000000000000040", // x z
            "00000000000008400000000000001040", // half sizes
            "00000000000014400000000000001840", // height, skirt
            "ea6cfb1abd7536f0",                 // check
        )
    );
}

/// A save that cannot finish leaves the file before it whole; a load that fails returns an
/// error and nothing else.
#[test]
fn a_failed_save_keeps_the_previous_file() {
    let path = temp_path("kept.edits");
    let before = sample_log(5);
    before.save(&path).unwrap();
    // The file the save writes first cannot be made: a directory stands in its place.
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    std::fs::create_dir_all(&partial).unwrap();
    let error = sample_log(50).save(&path).unwrap_err();
    assert!(
        matches!(
            error,
            EditFileError::Io {
                action: "write",
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(EditLog::load(&path).unwrap(), before);
    std::fs::remove_dir(&partial).unwrap();
    let missing = EditLog::load(&temp_path("missing.edits")).unwrap_err();
    assert!(matches!(missing, EditFileError::Io { action: "read", .. }));
}

/// Two peers given the same entries in different orders, some twice, build bit-identical nodes
/// and height grids.
#[test]
fn peers_with_the_same_entries_build_the_same_world() {
    let host = sample_log(60);
    let mut peer = EditLog::new();
    let entries: Vec<(u64, EditShape)> = host.entries().map(|(k, e)| (k, e.clone())).collect();
    for (k, edit) in entries.iter().rev().chain(entries.iter().step_by(3)) {
        peer.record(*k, edit.clone()).unwrap();
    }
    let plain = WorldGenerator::default();
    let worlds = [&host, &peer].map(|log| plain.clone().with_edits(Arc::new(log.edit_set())));
    let layout = ChunkLayout::default();
    for node in [
        biome_core::NodeCoord::new(0, 0, 0),
        biome_core::NodeCoord::new(0, -3, 2),
        biome_core::NodeCoord::new(3, -1, 0),
    ] {
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let [a, b] = worlds.each_ref().map(|world| {
            world
                .build_node(node, &layout, biome_core::Stitch::NONE, &cancel)
                .unwrap()
        });
        assert_eq!(a, b);
        let [a, b] = worlds.each_ref().map(|world| {
            world
                .node_density(node, &layout, &cancel)
                .unwrap()
                .heights()
        });
        assert_eq!(a, b);
    }
}
