//! Rivers and lakes: their beds descend from spring to sea or lake, they rise only where the
//! land is moist, the carve is continuous, chunks join exactly (water included), and nothing
//! grows in them.
#![expect(
    clippy::disallowed_methods,
    reason = "tests measure the world with the platform's functions; they make none of its values"
)]

use std::collections::HashMap;

use biome_core::{ChunkCoord, ChunkLayout, MeshStyle};
use biome_core::{Surface, WorldGenerator, WorldSettings};

fn rivers(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/rivers.ron");
    let mut settings = WorldSettings::from_ron(text).expect("the rivers preset is valid");
    settings.seed = seed;
    WorldGenerator::new(settings).expect("the rivers preset is valid")
}

/// How far a bed may rise along its course, world units: a hundredth of a metre.
const TOLERANCE: f64 = 0.01;

/// The statistic the rivers are held to. Every course whose spring lies in a 12.8 km square is
/// traced from its spring along its centre line, its bed (the terrain the chunks are built
/// from) read every metre: it counts as descending when no reading lies more than
/// [`TOLERANCE`] above the lowest before it, and it must end at sea level or in a lake.
#[test]
fn river_beds_descend_to_the_sea_or_a_lake() {
    let mut courses = 0u32;
    let mut descending = 0u32;
    let (mut to_sea, mut to_lakes) = (0, 0);
    let mut worst: f64 = 0.0;
    let mut length = 0.0;
    for seed in [42, 7] {
        let world = rivers(seed);
        let scale = world.settings().terrain.height_scale;
        for course in world.river_courses([-6400.0, -6400.0], [6400.0, 6400.0]) {
            courses += 1;
            // The water level never rises, by construction.
            assert!(
                course.levels.windows(2).all(|w| w[1] <= w[0]),
                "{:?}",
                course.levels
            );
            let mut lowest = f64::INFINITY;
            let mut rise: f64 = 0.0;
            for pair in course.points.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let span = (b[0] - a[0]).hypot(b[1] - a[1]);
                length += span;
                let steps = span.ceil().max(1.0) as usize;
                for s in 0..steps {
                    let t = s as f64 / steps as f64;
                    let bed = world.height_at(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t);
                    rise = rise.max(bed - lowest);
                    lowest = lowest.min(bed);
                }
            }
            let end = *course.points.last().expect("a course has points");
            if course.reaches_sea {
                assert_eq!(
                    *course.levels.last().unwrap(),
                    0.0,
                    "a river meets the sea at 0"
                );
                to_sea += 1;
            } else {
                let lake = world.river_water_at(end[0], end[1]);
                let level = course.levels.last().unwrap() * scale;
                assert!(
                    lake.is_some_and(|w| (w - level).abs() < 1e-6),
                    "a course ends in its lake: {lake:?} against {level} at {end:?}"
                );
                to_lakes += 1;
            }
            worst = worst.max(rise);
            if rise <= TOLERANCE {
                descending += 1;
            }
        }
    }
    let share = f64::from(descending) / f64::from(courses);
    println!(
        "RIVERS: {courses} courses ({:.0} km), {descending} descending within {TOLERANCE} m \
         ({:.2}%), {to_sea} to the sea, {to_lakes} to lakes, largest rise {worst:.4} m",
        length / 1000.0,
        share * 100.0
    );
    assert!(courses > 200, "only {courses} courses");
    assert!(
        to_sea > 20 && to_lakes > 20,
        "{to_sea} to the sea, {to_lakes} to lakes"
    );
    assert!(share >= 0.99, "{share}");
}

#[test]
fn springs_rise_only_on_moist_land_and_rivers_shun_deserts() {
    // Land under rivers and lakes: by biome (deserts against the rest) and by moisture (dry
    // land, below `dry_moisture`, against the rest).
    let (mut land, mut wet) = ([0u32; 4], [0u32; 4]);
    for seed in [42, 7] {
        let world = rivers(seed);
        let dry = world.settings().rivers.dry_moisture;
        let courses = world.river_courses([-4000.0, -4000.0], [4000.0, 4000.0]);
        assert!(courses.len() > 50);
        for course in &courses {
            let [x, z] = course.points[0];
            let moisture = world.sample(x, z).climate.moisture;
            assert!(
                moisture >= dry,
                "a spring at {x}, {z} with moisture {moisture}"
            );
        }
        let desert = world
            .settings()
            .biome_table
            .biomes
            .iter()
            .position(|b| b.name == "Desert")
            .unwrap();
        for j in 0..400 {
            let zs = vec![-4000.0 + f64::from(j) * 20.0; 400];
            let xs: Vec<f64> = (0..400).map(|i| -4000.0 + f64::from(i) * 20.0).collect();
            for sample in world.sample_points(&xs, &zs) {
                if sample.density < 0.0 {
                    continue;
                }
                let river = u32::from(sample.surface == Surface::River);
                for k in [
                    usize::from(sample.biome == desert),
                    2 + usize::from(sample.climate.moisture < dry),
                ] {
                    land[k] += 1;
                    wet[k] += river;
                }
            }
        }
    }
    let share = |k: usize| f64::from(wet[k]) / f64::from(land[k].max(1));
    println!(
        "RIVERS: water over {:.2}% of desert land against {:.2}% elsewhere, {:.2}% of dry land \
         against {:.2}% of moist ({}, {}, {} and {} samples)",
        share(1) * 100.0,
        share(0) * 100.0,
        share(3) * 100.0,
        share(2) * 100.0,
        land[1],
        land[0],
        land[3],
        land[2]
    );
    assert!(
        land[1] > 5000 && land[3] > 5000,
        "the areas hold deserts and dry land"
    );
    assert!(share(0) > 0.002, "rivers run elsewhere");
    assert!(share(1) < share(0) / 2.0, "deserts hold fewer rivers");
    assert!(share(3) < share(2) / 4.0, "dry land holds few rivers");
}

/// The carve is continuous: along lines across many rivers, the largest step between
/// neighbouring readings shrinks with their spacing (a jump would not).
#[test]
fn the_carve_is_continuous() {
    let world = rivers(42);
    let courses = world.river_courses([-2000.0, -2000.0], [2000.0, 2000.0]);
    let mut largest = [0.0f64; 2];
    for course in courses.iter().take(60) {
        // Across the river a third of the way down its course.
        let k = course.points.len() / 3;
        let (a, b) = (course.points[k], course.points[k + 1]);
        let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
        let length = dx.hypot(dz);
        let (nx, nz) = (-dz / length, dx / length);
        for (slot, step) in [0.5, 0.05].into_iter().enumerate() {
            let mut last = None;
            let count = (160.0 / step) as i32;
            for s in -count / 2..count / 2 {
                let t = f64::from(s) * step;
                let h = world.height_at(a[0] + nx * t, a[1] + nz * t);
                if let Some(last) = last {
                    largest[slot] = largest[slot].max(f64::abs(h - last));
                }
                last = Some(h);
            }
        }
    }
    println!(
        "RIVERS: largest step {:.4} m at 0.5 m, {:.4} m at 0.05 m",
        largest[0], largest[1]
    );
    assert!(largest[0] > 0.0);
    assert!(largest[1] < largest[0] / 4.0, "{largest:?}");
}

/// Neighbouring chunks agree on their river water where they meet, and trees keep out of it.
#[test]
fn chunks_share_their_river_water_and_trees_keep_dry() {
    let world = rivers(42);
    let layout = ChunkLayout {
        tiles: 32,
        tile_size: 2.0,
        style: MeshStyle::Smooth,
    };
    // Chunks along the first courses found.
    let courses = world.river_courses([-1500.0, -1500.0], [1500.0, 1500.0]);
    let mut checked = 0;
    for course in courses.iter().take(25) {
        let [x, z] = course.points[course.points.len() / 2];
        let coord = ChunkCoord::containing(x, z, &layout);
        let here = world.build_chunk(coord, &layout).unwrap();
        let east = world
            .build_chunk(ChunkCoord::new(coord.x + 1, coord.z), &layout)
            .unwrap();
        // Water vertices on the shared edge, by world position.
        let edge = |chunk: &biome_core::ChunkData, x: f64| -> HashMap<[u64; 2], u32> {
            chunk
                .river_water
                .positions
                .iter()
                .filter(|p| chunk.origin[0] + f64::from(p[0]) == x)
                .map(|p| {
                    (
                        [x.to_bits(), (chunk.origin[1] + f64::from(p[2])).to_bits()],
                        p[1].to_bits(),
                    )
                })
                .collect()
        };
        let x = here.origin[0] + layout.chunk_size();
        let (a, b) = (edge(&here, x), edge(&east, x));
        for (key, level) in &a {
            if let Some(other) = b.get(key) {
                assert_eq!(level, other, "water level on the edge at {key:?}");
            }
        }
        checked += usize::from(!here.river_water.is_empty());
        for tree in &here.trees {
            let (tx, tz) = (
                here.origin[0] + f64::from(tree.position[0]),
                here.origin[1] + f64::from(tree.position[2]),
            );
            assert!(
                world.river_water_at(tx, tz).is_none(),
                "a tree in a river at {tx}, {tz}"
            );
        }
    }
    assert!(checked > 10, "only {checked} chunks had river water");
}

/// Value stability of rivers under a rain shadow: the courses, their levels and the water and
/// ground beside them over a 6 km square, folded into one FNV-1a digest of their bits. Moisture
/// decides where springs rise and how wide rivers run, and it is read only where it matters: a
/// change to which nodes are read must not change a bit.
#[test]
fn rivers_under_a_rain_shadow_keep_their_bits() {
    let mut settings = WorldSettings::from_ron(
        "(climate:(rain_shadow:(strength:2.0,steps:8)),\
          rivers:(enabled:true,max_length:64,springs:0.7,spring_height:2.0,width:18.0))",
    )
    .expect("valid");
    settings.seed = 42;
    let world = WorldGenerator::new(settings).expect("valid");
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bits: u64| {
        for byte in bits.to_le_bytes() {
            digest = (digest ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let (mut points, mut wet) = (0, 0);
    let courses = world.river_courses([-3000.0, -3000.0], [3000.0, 3000.0]);
    for course in &courses {
        for (&[x, z], level) in course.points.iter().zip(&course.levels) {
            points += 1;
            for v in [x, z, *level] {
                mix(v.to_bits());
            }
            for d in [-6.0, 0.0, 7.0] {
                if let Some(water) = world.river_water_at(x + d, z - d) {
                    wet += 1;
                    mix(water.to_bits());
                }
                mix(world.height_at(x + d, z - d).to_bits());
            }
        }
    }
    assert_eq!(
        (courses.len(), points, wet, digest),
        (252, 3936, 8069, 0xe140_dbd8_45bf_780a),
        "rivers under a rain shadow changed"
    );
}

/// How much of the rivers the queries call water the meshes of `level` draw: every metre along
/// the centre lines of the courses rising in a 3 km square where [`WorldGenerator::river_water_at`]
/// has water, the node of `level` holding the point (unstitched) is built, and the point counts
/// as drawn when a water triangle of the node covers it above the terrain triangle under it
/// (both interpolated as the GPU does). Returns (wet points, drawn points).
fn drawn_share(world: &WorldGenerator, layout: &ChunkLayout, level: u8) -> (u32, u32) {
    use biome_core::{NodeCoord, Stitch};
    use std::collections::HashSet;
    use std::sync::atomic::AtomicBool;

    struct Drawn {
        origin: [f64; 2],
        heights: Vec<f32>,
        water: HashMap<[i64; 2], f32>,
        triangles: HashSet<[[i64; 2]; 3]>,
    }
    let ts = layout.tile_size * f64::from(1u32 << level);
    let side = f64::from(layout.tiles) * ts;
    let verts = layout.tiles as usize + 1;
    let mut nodes: HashMap<[i64; 2], Drawn> = HashMap::new();
    let (mut wet, mut drawn) = (0, 0);
    for course in world.river_courses([-1500.0, -1500.0], [1500.0, 1500.0]) {
        for pair in course.points.windows(2) {
            let [a, b] = [pair[0], pair[1]];
            let steps = ((b[0] - a[0]).hypot(b[1] - a[1])).ceil().max(1.0) as u32;
            for s in 0..steps {
                let t = f64::from(s) / f64::from(steps);
                let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
                if world.river_water_at(p[0], p[1]).is_none() {
                    continue;
                }
                wet += 1;
                let key = [(p[0] / side).floor() as i64, (p[1] / side).floor() as i64];
                let node = nodes.entry(key).or_insert_with(|| {
                    let chunk = world
                        .build_node(
                            NodeCoord::new(level, key[0], key[1]),
                            layout,
                            Stitch::NONE,
                            &AtomicBool::new(false),
                        )
                        .expect("builds");
                    let grid = |q: &[f32; 3]| {
                        [
                            (f64::from(q[0]) / ts).round() as i64,
                            (f64::from(q[2]) / ts).round() as i64,
                        ]
                    };
                    let mut triangles = HashSet::new();
                    for t in chunk.river_water.indices.chunks(3) {
                        let mut corners =
                            [0, 1, 2].map(|c| grid(&chunk.river_water.positions[t[c] as usize]));
                        corners.sort_unstable();
                        triangles.insert(corners);
                    }
                    Drawn {
                        origin: chunk.origin,
                        heights: chunk.positions.iter().map(|q| q[1]).collect(),
                        water: chunk
                            .river_water
                            .positions
                            .iter()
                            .map(|q| (grid(q), q[1]))
                            .collect(),
                        triangles,
                    }
                });
                let (u, v) = ((p[0] - node.origin[0]) / ts, (p[1] - node.origin[1]) / ts);
                let (i, j) = (
                    (u.floor() as i64).min(verts as i64 - 2),
                    (v.floor() as i64).min(verts as i64 - 2),
                );
                let (fx, fz) = (u - i as f64, v - j as f64);
                // The terrain's split: (i, j), (i, j + 1), (i + 1, j) below the diagonal.
                let (corners, weights) = if fx + fz <= 1.0 {
                    ([[i, j], [i, j + 1], [i + 1, j]], [1.0 - fx - fz, fz, fx])
                } else {
                    (
                        [[i + 1, j + 1], [i, j + 1], [i + 1, j]],
                        [fx + fz - 1.0, 1.0 - fx, 1.0 - fz],
                    )
                };
                let mut key = corners;
                key.sort_unstable();
                if !node.triangles.contains(&key) {
                    continue;
                }
                let at = |value: &dyn Fn([i64; 2]) -> f32| -> f64 {
                    corners
                        .iter()
                        .zip(weights)
                        .map(|(&c, w)| f64::from(value(c)) * w)
                        .sum()
                };
                let ground = at(&|[i, j]| node.heights[j as usize * verts + i as usize]);
                let water = at(&|c| node.water[&c]);
                drawn += u32::from(water > ground);
            }
        }
    }
    (wet, drawn)
}

/// Where the queries call a river water, the meshes draw its water, however narrow the river:
/// a node's vertex grid carves every channel at least one vertex spacing wide each side, so
/// none falls between its vertices (before, 3.3% of these points were dry at full detail and
/// all of them from level 3 on). What is left at full detail lies in steep cascades, where a
/// course passes within a few metres of its own reach far above.
#[test]
fn rivers_the_queries_call_water_are_drawn_at_every_level_with_rivers() {
    let world = rivers(42);
    let layout = ChunkLayout::default();
    let last = (0..=16u8)
        .take_while(|&level| world.draws_rivers_at(level, &layout))
        .last()
        .expect("chunks draw rivers");
    assert_eq!(last, 5, "the default layout draws rivers to level 5");
    for level in 0..=last {
        let (wet, drawn) = drawn_share(&world, &layout, level);
        let missing = f64::from(wet - drawn) / f64::from(wet);
        eprintln!(
            "level {level}: {drawn} of {wet} wet centre-line points drawn ({:.2}% missing)",
            100.0 * missing
        );
        assert!(wet > 5000, "only {wet} wet points");
        // Level 5 widens channels only as far as their valleys let them, short of its 64 m
        // spacing: about half its rivers show.
        let most = match level {
            0 => 0.005,
            1..=4 => 0.05,
            _ => 0.6,
        };
        assert!(
            missing <= most,
            "level {level}: {:.2}% of the water is not drawn",
            100.0 * missing
        );
    }
}
