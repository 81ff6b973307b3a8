//! The infinite world: chunks agree with samples and with each other, build the same anywhere,
//! place trees exactly once, and keep their bytes from release to release.
#![expect(
    clippy::disallowed_methods,
    reason = "tests measure the world with the platform's functions; they make none of its values"
)]

use std::collections::{HashMap, HashSet};

use biome_core::density::{Cell, DensityNode};
use biome_core::seed_offsets;
use biome_core::tutorial::{SeededRandom, Simplex, wobble_point};
use biome_core::{ChunkCoord, ChunkData, ChunkLayout, MeshStyle, NodeCoord};
use biome_core::{WorldGenerator, WorldSettings};

fn world(seed: i64) -> WorldGenerator {
    WorldGenerator::new(WorldSettings {
        seed,
        ..WorldSettings::default()
    })
    .expect("default settings are valid")
}

/// The `eroded` preset's world: its erosion node carves every mountainside, so seams and
/// determinism are checked with gullies as well as without.
fn eroded(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/eroded.ron");
    let mut settings = WorldSettings::from_ron(text).expect("the eroded preset is valid");
    settings.seed = seed;
    WorldGenerator::new(settings).expect("the eroded preset is valid")
}

/// The `windward` preset's world: its rain shadow reads the ground upwind of every region site.
fn windward(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/windward.ron");
    let mut settings = WorldSettings::from_ron(text).expect("the windward preset is valid");
    settings.seed = seed;
    WorldGenerator::new(settings).expect("the windward preset is valid")
}

/// The `multi_noise` preset's world: region biomes from five climate axes and fourteen boxes.
fn multi_noise(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/multi_noise.ron");
    let mut settings = WorldSettings::from_ron(text).expect("the multi_noise preset is valid");
    settings.seed = seed;
    WorldGenerator::new(settings).expect("the multi_noise preset is valid")
}

/// The `rivers` preset's world: rivers and lakes carved into the default world's land.
fn rivers(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/rivers.ron");
    let mut settings = WorldSettings::from_ron(text).expect("the rivers preset is valid");
    settings.seed = seed;
    WorldGenerator::new(settings).expect("the rivers preset is valid")
}

fn small_layout(style: MeshStyle) -> ChunkLayout {
    ChunkLayout {
        tiles: 16,
        tile_size: 3.0,
        style,
    }
}

/// Random chunk coordinates, near the origin and out at ±10,000,000 world units.
fn coords(count: usize, seed: i64, layout: &ChunkLayout) -> Vec<ChunkCoord> {
    let mut random = SeededRandom::new(seed);
    let far = (1.0e7 / layout.chunk_size()) as i32 - 2;
    (0..count)
        .map(|k| {
            let reach = if k % 3 == 0 { far } else { 200 };
            let mut next = || ((random.next_float() * 2.0 - 1.0) * f64::from(reach)) as i32;
            ChunkCoord::new(next().into(), next().into())
        })
        .collect()
}

#[test]
fn chunk_vertices_equal_world_samples() {
    let world = world(42);
    let layout = ChunkLayout::default();
    for coord in [
        ChunkCoord::new(0, 0),
        ChunkCoord::new(-3, 7),
        ChunkCoord::new(60_000, -70_000),
    ] {
        let chunk = world.build_chunk(coord, &layout).unwrap();
        assert_eq!(chunk.positions.len(), 65 * 65);
        assert_eq!(chunk.indices.len(), 64 * 64 * 6);
        for k in (0..chunk.positions.len()).step_by(37) {
            let [x, _, z] = chunk.world_position(k);
            let sample = world.sample(x, z);
            assert_eq!(
                chunk.positions[k][1], sample.height as f32,
                "height at ({x}, {z})"
            );
            assert_eq!(chunk.colors[k], sample.color, "colour at ({x}, {z})");
            assert_eq!(
                usize::from(chunk.biomes[k]),
                sample.biome,
                "biome at ({x}, {z})"
            );
        }
    }
}

fn assert_edges_match(a: &ChunkData, b: &ChunkData, along_x: bool) {
    let verts = a.layout.tiles as usize + 1;
    for t in 0..verts {
        // `a`'s far edge against `b`'s near edge.
        let (ka, kb) = if along_x {
            (t * verts + verts - 1, t * verts)
        } else {
            ((verts - 1) * verts + t, t)
        };
        assert_eq!(
            a.world_position(ka),
            b.world_position(kb),
            "edge position {:?}/{:?}",
            a.node,
            b.node
        );
        assert_eq!(
            a.normals[ka], b.normals[kb],
            "edge normal {:?}/{:?}",
            a.node, b.node
        );
        assert_eq!(
            a.colors[ka], b.colors[kb],
            "edge colour {:?}/{:?}",
            a.node, b.node
        );
    }
}

#[test]
fn neighbouring_chunks_share_identical_edges() {
    let layout = small_layout(MeshStyle::Smooth);
    for world in [world(7), eroded(7), windward(7), multi_noise(7), rivers(7)] {
        for coord in coords(60, 3, &layout) {
            let here = world.build_chunk(coord, &layout).unwrap();
            let east = world
                .build_chunk(ChunkCoord::new(coord.x + 1, coord.z), &layout)
                .unwrap();
            let south = world
                .build_chunk(ChunkCoord::new(coord.x, coord.z + 1), &layout)
                .unwrap();
            assert_edges_match(&here, &east, true);
            assert_edges_match(&here, &south, false);
        }
    }
}

#[test]
fn flat_tiles_share_edge_heights() {
    let world = world(11);
    let layout = small_layout(MeshStyle::FlatTiles);
    let a = world.build_chunk(ChunkCoord::new(2, 2), &layout).unwrap();
    let b = world.build_chunk(ChunkCoord::new(3, 2), &layout).unwrap();
    let tiles = layout.tiles as usize;
    assert_eq!(a.positions.len(), tiles * tiles * 4);
    for j in 0..tiles {
        // East corners of `a`'s last tile in row j against west corners of `b`'s first.
        let last = (j * tiles + tiles - 1) * 4;
        let first = j * tiles * 4;
        assert_eq!(a.world_position(last + 1), b.world_position(first));
        assert_eq!(a.world_position(last + 3), b.world_position(first + 2));
    }
}

#[test]
fn chunks_build_the_same_on_any_thread_in_any_order() {
    for world in [
        world(123),
        eroded(123),
        windward(123),
        multi_noise(123),
        rivers(123),
    ] {
        builds_the_same_on_any_thread_in_any_order(&world);
    }
}

fn builds_the_same_on_any_thread_in_any_order(world: &WorldGenerator) {
    let layout = small_layout(MeshStyle::Smooth);
    let list = coords(24, 9, &layout);
    let reference: HashMap<ChunkCoord, ChunkData> = list
        .iter()
        .map(|&c| (c, world.build_chunk(c, &layout).unwrap()))
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (list, reference) = (&list, &reference);
            scope.spawn(move || {
                for k in 0..list.len() {
                    let coord = list[(k * 7 + t * 5) % list.len()];
                    assert_eq!(
                        &world.build_chunk(coord, &layout).unwrap(),
                        &reference[&coord],
                        "chunk {coord:?}"
                    );
                }
            });
        }
    });
    // A second world from equal settings builds equal bytes.
    let again = WorldGenerator::new(world.settings().clone()).unwrap();
    assert_eq!(
        again.build_chunk(list[0], &layout).unwrap(),
        reference[&list[0]]
    );
}

/// FNV-1a over a chunk's bytes.
fn chunk_hash(chunk: &ChunkData) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for p in &chunk.positions {
        p.iter().for_each(|v| eat(&v.to_le_bytes()));
    }
    for n in &chunk.normals {
        n.iter().for_each(|v| eat(&v.to_le_bytes()));
    }
    for c in &chunk.colors {
        c.iter().for_each(|v| eat(&v.to_le_bytes()));
    }
    chunk.indices.iter().for_each(|i| eat(&i.to_le_bytes()));
    chunk.biomes.iter().for_each(|b| eat(&b.to_le_bytes()));
    for t in &chunk.trees {
        t.position.iter().for_each(|v| eat(&v.to_le_bytes()));
        eat(&[t.species.index() as u8]);
        eat(&t.scale.to_le_bytes());
        eat(&t.yaw.to_le_bytes());
    }
    hash
}

#[test]
fn seeded_output_is_stable() {
    let world = world(42);
    let layout = ChunkLayout::default();
    let got: Vec<u64> = [
        ChunkCoord::new(0, 0),
        ChunkCoord::new(5, -3),
        ChunkCoord::new(-40, 12),
    ]
    .iter()
    .map(|&c| chunk_hash(&world.build_chunk(c, &layout).unwrap()))
    .collect();
    let expected: [u64; 3] = [
        8_445_482_325_632_193_402,
        6_995_543_846_231_143_570,
        13_271_417_070_622_701_084,
    ];
    assert_eq!(
        got, expected,
        "seeded chunk bytes changed: update the expected hash if the change was intended"
    );
}

#[test]
fn eroded_output_is_stable() {
    let world = eroded(42);
    let layout = ChunkLayout::default();
    let got: Vec<u64> = [ChunkCoord::new(0, 0), ChunkCoord::new(-7, 9)]
        .iter()
        .map(|&c| chunk_hash(&world.build_chunk(c, &layout).unwrap()))
        .collect();
    let expected: [u64; 2] = [3_805_641_812_536_357_976, 5_777_609_061_527_984_205];
    assert_eq!(
        got, expected,
        "eroded chunk bytes changed: update the expected hash if the change was intended"
    );
}

/// The extensions' worlds, locked the same way: the rain shadow's wind (`cos`, `sin`), the
/// multi-noise source, and rivers (widths by `pow`, meanders by `sin` and `cos`, steepness by
/// `hypot`), whose water mesh is hashed too.
#[test]
fn extension_output_is_stable() {
    let layout = ChunkLayout::default();
    let mut got = Vec::new();
    for (world, chunk) in [
        (windward(42), ChunkCoord::new(3, -2)),
        (multi_noise(42), ChunkCoord::new(-5, 4)),
        (rivers(42), RIVER_CHUNK),
    ] {
        let data = world.build_chunk(chunk, &layout).unwrap();
        let mut hash = chunk_hash(&data);
        for p in &data.river_water.positions {
            for v in p {
                hash = (hash ^ u64::from(v.to_bits())).wrapping_mul(0x0100_0000_01b3);
            }
        }
        got.push(hash);
    }
    let river = rivers(42).build_chunk(RIVER_CHUNK, &layout).unwrap();
    assert!(!river.river_water.is_empty(), "the rivers chunk has water");
    let expected: [u64; 3] = [
        12_702_149_222_447_761_919,
        17_127_080_516_266_883_454,
        17_456_935_999_796_933_155,
    ];
    assert_eq!(
        got, expected,
        "extension chunk bytes changed: update the expected hash if the change was intended"
    );
}

/// A chunk of the `rivers` preset at seed 42 that a river crosses.
const RIVER_CHUNK: ChunkCoord = ChunkCoord::new(-2, -2);

#[test]
fn trees_are_placed_once_with_spacing_held_across_borders() {
    let world = world(5);
    let layout = ChunkLayout::default();
    let settings = world.settings().trees;
    let min_spacing = (1.0 - settings.jitter) * settings.spacing;
    let mut total = 0;
    for (cx, cz) in [(0, 0), (-7, 3), (25, 40), (-30, -12)] {
        let mut from_chunks = Vec::new();
        for dz in 0..3 {
            for dx in 0..3 {
                let chunk = world
                    .build_chunk(ChunkCoord::new(cx + dx, cz + dz), &layout)
                    .unwrap();
                from_chunks.extend(chunk.trees.iter().map(|t| (chunk.node, key(t))));
            }
        }
        // The same rectangle in one piece: each tree must sit in the chunk that contains it.
        let min = ChunkCoord::new(cx, cz).origin(&layout);
        let max = ChunkCoord::new(cx + 3, cz + 3).origin(&layout);
        let whole = world.trees_in_rect(min, max);
        let mut expected: Vec<_> = whole
            .iter()
            .map(|t| {
                let coord = ChunkCoord::containing(t.position[0], t.position[2], &layout);
                (
                    NodeCoord::chunk(coord),
                    key(&t.relative_to(coord.origin(&layout))),
                )
            })
            .collect();
        let unique: HashSet<_> = from_chunks.iter().collect();
        assert_eq!(unique.len(), from_chunks.len(), "a tree appears twice");
        from_chunks.sort_unstable();
        expected.sort_unstable();
        assert_eq!(
            from_chunks, expected,
            "chunks lost or invented trees at their borders"
        );
        total += whole.len();
        for (i, p) in whole.iter().enumerate() {
            for q in &whole[i + 1..] {
                let d = ((p.position[0] - q.position[0]).powi(2)
                    + (p.position[2] - q.position[2]).powi(2))
                .sqrt();
                assert!(
                    d >= min_spacing,
                    "trees {p:?} and {q:?} are {d} apart, below {min_spacing}"
                );
            }
        }
    }
    assert!(
        total > 200,
        "the default world grows trees: {total} in these blocks"
    );
}

fn key(tree: &biome_core::TreeInstance) -> ([u32; 3], usize, u32, u32) {
    (
        tree.position.map(f32::to_bits),
        tree.species.index(),
        tree.scale.to_bits(),
        tree.yaw.to_bits(),
    )
}

#[test]
fn trees_stand_on_dry_gentle_ground() {
    let world = world(9);
    let settings = world.settings().trees;
    let trees = world.trees_in_rect([-600.0, -600.0], [600.0, 600.0]);
    assert!(!trees.is_empty());
    for tree in trees {
        let [x, y, z] = tree.position;
        let sample = world.sample(x, z);
        assert_eq!(sample.height, y);
        assert!(!sample.surface.is_water() && sample.surface != biome_core::Surface::Beach);
        let slope = ((world.height_at(x + 1.0, z) - y).powi(2)
            + (world.height_at(x, z + 1.0) - y).powi(2))
        .sqrt();
        assert!(slope.atan().to_degrees() <= settings.max_slope_degrees);
        assert!((settings.min_scale as f32..=settings.max_scale as f32).contains(&tree.scale));
    }
}

#[test]
fn regions_are_the_nearest_wobbled_sites_by_brute_force() {
    let world = world(31);
    let regions = world.settings().regions;
    let wobble = Simplex::new(31 + seed_offsets::WOBBLE);
    let grid = world.regions();
    let mut random = SeededRandom::new(77);
    for k in 0..3000 {
        let reach = if k % 2 == 0 { 5_000.0 } else { 9.9e6 };
        let x = (random.next_float() * 2.0 - 1.0) * reach;
        let z = (random.next_float() * 2.0 - 1.0) * reach;
        let sample = world.sample(x, z);
        let [wx, wz] = wobble_point(&wobble, x, z, regions.wobble, regions.wobble_scale);
        let home = grid.cell_of(wx, wz);
        let mut all = Vec::new();
        for cz in home.z - 6..=home.z + 6 {
            for cx in home.x - 6..=home.x + 6 {
                let region = biome_core::RegionId { x: cx, z: cz };
                let [sx, sz] = grid.site(region);
                all.push((((wx - sx).powi(2) + (wz - sz).powi(2)).sqrt(), region));
            }
        }
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        assert_eq!(
            (sample.region, sample.second_region),
            (all[0].1, all[1].1),
            "at ({x}, {z})"
        );
        assert_eq!(sample.biome, world.region_biome(sample.region));
    }
}

#[test]
fn far_forests_are_a_thinned_subset_of_the_trees() {
    let world = world(9);
    let (min, max) = ([-1000.0, -700.0], [900.0, 1100.0]);
    let all = world.trees_in_rect(min, max);
    assert_eq!(world.trees_in_rect_every(min, max, 1), all);
    let spacing = world.settings().trees.spacing;
    for stride in [2u32, 3, 4] {
        let few = world.trees_in_rect_every(min, max, stride);
        for tree in &few {
            assert!(
                all.contains(tree),
                "stride {stride}: {tree:?} is not a tree"
            );
            // Each kept tree is in a cell on the stride's grid.
            let cell = |v: f64| (v / spacing).floor() as i64;
            assert_eq!(cell(tree.position[0]).rem_euclid(i64::from(stride)), 0);
            assert_eq!(cell(tree.position[2]).rem_euclid(i64::from(stride)), 0);
        }
        let share = few.len() as f64 * f64::from(stride * stride) / all.len() as f64;
        assert!(
            (0.7..1.3).contains(&share),
            "stride {stride}: {} of {} trees",
            few.len(),
            all.len()
        );
    }
}

/// The rain shadow points the way the wind blows. On lone conical mountains (a `Cell` stack,
/// sites 10 km apart), the slope facing the wind is wetter than the climate noise and the slope
/// at the same height on the far side drier; a sample's moisture is the noise's plus the
/// shift, the batch path gives the same bits, and with the shadow off nothing moves.
#[test]
fn windward_slopes_are_wetter_and_lee_sides_drier() {
    let mut settings = windward(42).settings().clone();
    settings.terrain.density = DensityNode::new(Cell { radius: 2000.0 }, []);
    settings.regions.cell_size = 10_000.0;
    settings.regions.jitter = 0.5;
    let windy = WorldGenerator::new(settings.clone()).unwrap();
    settings.climate.rain_shadow.strength = 0.0;
    let calm = WorldGenerator::new(settings).unwrap();
    let [wx, wz] = windy.settings().climate.rain_shadow.wind();
    let mut random = SeededRandom::new(8);
    let (mut xs, mut zs) = (Vec::new(), Vec::new());
    for _ in 0..40 {
        let (x, z) = (
            (random.next_float() - 0.5) * 1.0e6,
            (random.next_float() - 0.5) * 1.0e6,
        );
        let [sx, sz] = windy.regions().site(windy.sample(x, z).region);
        let (windward, lee) = (
            [sx - 600.0 * wx, sz - 600.0 * wz],
            [sx + 600.0 * wx, sz + 600.0 * wz],
        );
        assert_eq!(
            windy.height_at(windward[0], windward[1]),
            windy.height_at(lee[0], lee[1])
        );
        let (wet, dry) = (
            windy.rain_shadow(windward[0], windward[1]),
            windy.rain_shadow(lee[0], lee[1]),
        );
        assert!(
            wet > 0.05 && dry < -0.05,
            "site ({sx}, {sz}): windward {wet}, lee {dry}"
        );
        xs.extend([windward[0], lee[0], x]);
        zs.extend([windward[1], lee[1], z]);
    }
    let batch = windy.sample_points(&xs, &zs);
    for (k, (&x, &z)) in xs.iter().zip(&zs).enumerate() {
        let sample = windy.sample(x, z);
        assert_eq!(
            batch[k].climate.moisture.to_bits(),
            sample.climate.moisture.to_bits()
        );
        let noise = calm.sample(x, z).climate.moisture;
        let (shifted, shift) = (sample.climate.moisture, windy.rain_shadow(x, z));
        // Where neither is clamped, the moisture moved by exactly the shift.
        if noise > 0.0 && noise < 1.0 && shifted > 0.0 && shifted < 1.0 {
            assert!(
                (shifted - noise - shift).abs() < 1e-12,
                "{shifted} {noise} {shift}"
            );
        }
        assert_eq!(calm.rain_shadow(x, z), 0.0);
    }
}
