//! The ground physics stands on: a chunk's height grid alone equals the one its build samples,
//! bit for bit, and its surface is the mesh's surface, triangle for triangle; a build on a
//! density sampled alone is the build.

use std::sync::atomic::AtomicBool;

use biome_core::tutorial::SeededRandom;
use biome_core::{ChunkCoord, ChunkLayout, MeshStyle, NodeCoord, Stitch};
use biome_core::{ChunkData, ChunkError, tile_height};
use biome_core::{WorldGenerator, WorldSettings};

fn world(seed: i64) -> WorldGenerator {
    WorldGenerator::new(WorldSettings {
        seed,
        ..WorldSettings::default()
    })
    .expect("default settings are valid")
}

fn layouts() -> [ChunkLayout; 3] {
    [
        ChunkLayout {
            tiles: 16,
            tile_size: 3.0,
            style: MeshStyle::Smooth,
        },
        ChunkLayout {
            tiles: 7,
            tile_size: 2.5,
            style: MeshStyle::FlatTiles,
        },
        ChunkLayout::default(),
    ]
}

fn coords(random: &mut SeededRandom, count: usize) -> Vec<ChunkCoord> {
    (0..count)
        .map(|k| {
            let reach = if k % 4 == 0 { 5.0e4 } else { 60.0 };
            let mut next = || ((random.next_float() * 2.0 - 1.0) * reach) as i32;
            ChunkCoord::new(next().into(), next().into())
        })
        .collect()
}

#[test]
fn a_height_grid_alone_equals_the_chunk_builds_bit_for_bit() {
    let cancel = AtomicBool::new(false);
    let mut random = SeededRandom::new(5);
    for seed in [42, -7] {
        let generator = world(seed);
        for layout in layouts() {
            for coord in coords(&mut random, 6) {
                let built = generator.build_chunk(coord, &layout).expect("valid layout");
                let alone = generator
                    .chunk_heights(coord, &layout, &cancel)
                    .expect("valid layout");
                assert_eq!(alone.side, layout.tiles as usize + 1);
                assert_eq!(alone.origin, built.origin);
                let bits = |h: &[f32]| h.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&alone.heights),
                    bits(&built.heights.heights),
                    "{coord:?} {layout:?}"
                );
                assert_eq!(alone, built.heights);
            }
        }
    }
}

/// The height of the mesh's triangle under `(x, z)`, found by brute force over every triangle.
fn mesh_height(chunk: &ChunkData, x: f64, z: f64) -> Option<f64> {
    let (px, pz) = ((x - chunk.origin[0]) as f32, (z - chunk.origin[1]) as f32);
    chunk.indices.chunks(3).find_map(|t| {
        let [a, b, c] = [0, 1, 2].map(|k| chunk.positions[t[k] as usize]);
        let area = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
        let w1 = ((px - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (pz - a[2])) / area;
        let w2 = ((b[0] - a[0]) * (pz - a[2]) - (px - a[0]) * (b[2] - a[2])) / area;
        let w0 = 1.0 - w1 - w2;
        let inside = [w0, w1, w2].iter().all(|&w| w >= -1e-5);
        inside.then(|| f64::from(w0 * a[1] + w1 * b[1] + w2 * c[1]))
    })
}

#[test]
fn the_grid_surface_is_the_mesh_surface() {
    let mut random = SeededRandom::new(11);
    let generator = world(42);
    for layout in layouts() {
        for coord in coords(&mut random, 4) {
            let chunk = generator.build_chunk(coord, &layout).expect("valid layout");
            let size = layout.chunk_size();
            for _ in 0..300 {
                let (x, z) = (
                    chunk.origin[0] + random.next_float() * size,
                    chunk.origin[1] + random.next_float() * size,
                );
                let grid = chunk.heights.height_at(x, z);
                let mesh = mesh_height(&chunk, x, z).expect("inside the chunk");
                assert!(
                    (grid - mesh).abs() < 1e-3,
                    "{coord:?} {layout:?} at ({x}, {z}): grid {grid}, mesh {mesh}"
                );
            }
        }
    }
}

#[test]
fn grid_surfaces_meet_at_seams_and_corners() {
    let layout = ChunkLayout::default();
    let generator = world(3);
    let cancel = AtomicBool::new(false);
    let grid = |x: i32, z: i32| {
        generator
            .chunk_heights(ChunkCoord::new(x.into(), z.into()), &layout, &cancel)
            .expect("valid layout")
    };
    let (a, b, c) = (grid(4, -2), grid(5, -2), grid(4, -1));
    let size = layout.chunk_size();
    let seam_x = a.origin[0] + size;
    let seam_z = a.origin[1] + size;
    let mut random = SeededRandom::new(2);
    for _ in 0..200 {
        let t = random.next_float() * size;
        let z = a.origin[1] + t;
        assert_eq!(a.height_at(seam_x, z), b.height_at(seam_x, z));
        let x = a.origin[0] + t;
        assert_eq!(a.height_at(x, seam_z), c.height_at(x, seam_z));
    }
    // The corner all four share.
    let d = grid(5, -1);
    let corner = [a, b, c, d].map(|g| g.height_at(seam_x, seam_z));
    assert!(corner.iter().all(|&h| h == corner[0]), "{corner:?}");
}

#[test]
fn tile_height_follows_the_diagonal_from_one_zero_to_zero_one() {
    let corners = [1.0, 2.0, 3.0, 10.0];
    assert_eq!(tile_height(corners, 0.0, 0.0), 1.0);
    assert_eq!(tile_height(corners, 1.0, 0.0), 2.0);
    assert_eq!(tile_height(corners, 0.0, 1.0), 3.0);
    assert_eq!(tile_height(corners, 1.0, 1.0), 10.0);
    // On the diagonal only its two ends count.
    assert_eq!(tile_height(corners, 0.5, 0.5), 2.5);
}

#[test]
fn nodes_of_every_level_carry_their_unstitched_grid() {
    let generator = world(9);
    let layout = ChunkLayout {
        tiles: 8,
        tile_size: 2.0,
        style: MeshStyle::Smooth,
    };
    let stitch = Stitch {
        sides: [true, false, true, false],
        corners: [true, false, false, false],
    };
    let cancel = AtomicBool::new(false);
    for level in [0, 2, 5] {
        let node = NodeCoord::new(level, -3, 1);
        let plain = generator
            .build_node(node, &layout, Stitch::NONE, &cancel)
            .expect("valid node");
        let stitched = generator
            .build_node(node, &layout, stitch, &cancel)
            .expect("valid node");
        assert_eq!(plain.heights, stitched.heights);
        assert_eq!(plain.heights.spacing, node.tile_size(&layout));
        for (k, &h) in plain.heights.heights.iter().enumerate() {
            assert_eq!(h, plain.positions[k][1], "sample {k} at level {level}");
        }
    }
}

#[test]
fn a_build_on_a_density_sampled_alone_is_the_build() {
    let cancel = AtomicBool::new(false);
    let mut random = SeededRandom::new(17);
    let stitches = [
        Stitch::NONE,
        Stitch {
            sides: [true, false, false, true],
            corners: [false, true, false, false],
        },
    ];
    let generator = world(42);
    let mut even = layouts();
    even[1].tiles = 8;
    for layout in even {
        for (k, coord) in coords(&mut random, 6).into_iter().enumerate() {
            let node = NodeCoord::new((k % 3) as u8, coord.x, coord.z);
            let density = generator
                .node_density(node, &layout, &cancel)
                .expect("valid node");
            assert_eq!((density.node(), density.layout()), (node, layout));
            for stitch in stitches {
                let built = generator
                    .build_node(node, &layout, stitch, &cancel)
                    .expect("valid node");
                let from = generator
                    .build_node_from(node, &layout, stitch, &density, &cancel)
                    .expect("the density is this node's");
                assert_eq!(from, built, "{node:?} {layout:?} {stitch:?}");
                assert_eq!(density.heights(), built.heights);
            }
        }
    }
}

#[test]
fn a_build_refuses_the_density_of_another_node_layout_or_height_scale() {
    let cancel = AtomicBool::new(false);
    let generator = world(1);
    let layout = ChunkLayout::default();
    let node = NodeCoord::new(0, 3, 4);
    let density = generator
        .node_density(node, &layout, &cancel)
        .expect("valid node");
    let taller = WorldGenerator::new({
        let mut settings = WorldSettings {
            seed: 1,
            ..WorldSettings::default()
        };
        settings.terrain.height_scale *= 2.0;
        settings
    })
    .expect("valid settings");
    let other_layout = ChunkLayout {
        tile_size: 1.0,
        ..layout
    };
    for (generator, node, layout) in [
        (&generator, NodeCoord::new(0, 3, 5), layout),
        (&generator, NodeCoord::new(1, 3, 4), layout),
        (&generator, node, other_layout),
        (&taller, node, layout),
    ] {
        let refused = generator.build_node_from(node, &layout, Stitch::NONE, &density, &cancel);
        assert!(
            matches!(refused, Err(ChunkError::Density { given, .. }) if given == NodeCoord::new(0, 3, 4)),
            "{node:?} {layout:?}: {refused:?}"
        );
    }
}
