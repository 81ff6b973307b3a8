//! Level-of-detail nodes: a level-0 node is the chunk, nodes of one level share their edges
//! exactly, and a node stitched to a coarser neighbour meets it with no crack (its vertices on
//! the shared edge are the coarse ones or lie on the coarse segments) and no shading line (the
//! shared vertices carry the coarse normals and colours).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use biome_core::edits::{BrushOp, EditLog, EditSet, EditShape};

use biome_core::{ChunkCoord, ChunkData, ChunkLayout, MeshStyle, NodeCoord, Stitch};
use biome_core::{Rgb, WorldGenerator, WorldSettings, limits};
use proptest::prelude::*;

fn generator(seed: i64) -> WorldGenerator {
    WorldGenerator::new(WorldSettings {
        seed,
        ..WorldSettings::default()
    })
    .unwrap()
}

/// The `eroded` preset's world, whose gullies are the finest detail a node can miss or join
/// badly.
fn eroded(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/eroded.ron");
    let mut settings = WorldSettings::from_ron(text).unwrap();
    settings.seed = seed;
    WorldGenerator::new(settings).unwrap()
}

/// The `rivers` preset's world: channels, banks and lakes carved into the land, the narrowest
/// features a coarse node's edge must follow exactly.
fn rivers(seed: i64) -> WorldGenerator {
    let text = include_str!("../../../assets/presets/rivers.ron");
    let mut settings = WorldSettings::from_ron(text).unwrap();
    settings.seed = seed;
    WorldGenerator::new(settings).unwrap()
}

/// `generator`'s world with edits across the edge between `node` and its neighbour across
/// `side` (and so across the coarse neighbour's edge too): a pad on the edge, a raising brush on
/// a corner and a road crossing it, sized to the node so coarse levels carry them too.
fn edited_across(
    generator: WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
    side: usize,
) -> WorldGenerator {
    let size = node.size(layout);
    let [x0, z0] = node.origin(layout);
    let (_, [dx, dz]) = SIDES[side];
    // The middle of the shared edge, and its first corner.
    let edge_mid = [
        x0 + size * (0.5 + 0.5 * (dx as f64)),
        z0 + size * (0.5 + 0.5 * (dz as f64)),
    ];
    let corner = [
        x0 + size * (dx.max(0) as f64),
        z0 + size * (dz.max(0) as f64),
    ];
    // At least 2 units: the smallest nodes (two one-unit tiles) still get edits of valid size.
    let reach = (size * 0.3).clamp(2.0, 4000.0);
    let edits = vec![
        EditShape::Pad {
            center: edge_mid,
            half_size: [reach * 0.4, reach * 0.3],
            height: 40.0,
            skirt: reach * 0.5,
        },
        EditShape::Brush {
            center: corner,
            radius: reach,
            falloff: 0.6,
            op: BrushOp::Raise(-25.0),
        },
        EditShape::Path {
            points: vec![
                [
                    edge_mid[0] - size * (dx as f64) * 0.4 - reach,
                    5.0,
                    edge_mid[1] - reach,
                ],
                [edge_mid[0], 12.0, edge_mid[1] + size * (dz as f64) * 0.1],
                [
                    edge_mid[0] + size * (dx as f64) * 0.4 + reach,
                    20.0,
                    edge_mid[1] + reach,
                ],
            ],
            width: (reach * 0.1).max(1.0),
            skirt: reach * 0.2,
            surface: None,
        },
    ];
    generator.with_edits(Arc::new(EditSet::new(edits).unwrap()))
}

fn layout(tiles: u32) -> ChunkLayout {
    ChunkLayout {
        tiles,
        tile_size: 2.0,
        style: MeshStyle::Smooth,
    }
}

fn build(
    generator: &WorldGenerator,
    node: NodeCoord,
    layout: &ChunkLayout,
    stitch: Stitch,
) -> ChunkData {
    generator
        .build_node(node, layout, stitch, &AtomicBool::new(false))
        .unwrap()
}

/// The world position of every vertex, by its exact `(x, z)` bits.
fn by_position(node: &ChunkData) -> HashMap<(u64, u64), usize> {
    (0..node.positions.len())
        .map(|k| {
            let [x, _, z] = node.world_position(k);
            ((x.to_bits(), z.to_bits()), k)
        })
        .collect()
}

/// A side of a node: `(index in Stitch::sides, unit step to the neighbour across it)`.
const SIDES: [(usize, [i64; 2]); 4] = [(0, [-1, 0]), (1, [1, 0]), (2, [0, -1]), (3, [0, 1])];

/// The vertex indices along `side` of a node with `verts` vertices a row.
fn edge(side: usize, verts: usize) -> Vec<usize> {
    let last = verts - 1;
    (0..verts)
        .map(|t| match side {
            0 => t * verts,
            1 => t * verts + last,
            2 => t,
            _ => last * verts + t,
        })
        .collect()
}

/// The coarse node across `side` of `fine`, when `fine` lies at that side of its parent (only
/// then can a balanced quadtree put a coarser node there).
fn coarse_neighbour(fine: NodeCoord, side: usize) -> Option<NodeCoord> {
    let (_, [dx, dz]) = SIDES[side];
    let at_parent_side = match side {
        0 => fine.x % 2 == 0,
        1 => fine.x % 2 != 0,
        2 => fine.z % 2 == 0,
        _ => fine.z % 2 != 0,
    };
    if !at_parent_side {
        return None;
    }
    let neighbour = NodeCoord::new(fine.level, fine.x.checked_add(dx)?, fine.z.checked_add(dz)?);
    Some(neighbour.parent())
}

/// Checks that `fine`, stitched along `side`, meets `coarse` exactly there.
fn assert_watertight(fine: &ChunkData, coarse: &ChunkData, side: usize) {
    let verts = fine.layout.tiles as usize + 1;
    let coarse_at = by_position(coarse);
    let along = edge(side, verts);
    for (t, &k) in along.iter().enumerate() {
        let [x, y, z] = fine.world_position(k);
        if let Some(&c) = coarse_at.get(&(x.to_bits(), z.to_bits())) {
            // A coarse vertex: the same height, normal and colour, bit for bit.
            assert_eq!(
                y.to_bits(),
                coarse.world_position(c)[1].to_bits(),
                "height at {t}"
            );
            assert_eq!(fine.normals[k], coarse.normals[c], "normal at {t}");
            assert_eq!(fine.colors[k], coarse.colors[c], "colour at {t}");
            assert_eq!(fine.land_colors[k], coarse.land_colors[c], "land at {t}");
            assert_eq!(
                fine.temperatures[k], coarse.temperatures[c],
                "temperature at {t}"
            );
            assert_eq!(fine.covers[k], coarse.covers[c], "cover at {t}");
            assert_eq!(
                fine.biome_blends[k], coarse.biome_blends[c],
                "biomes at {t}"
            );
            continue;
        }
        // Between two coarse vertices: on their segment.
        assert!(
            t % 2 == 1,
            "vertex {t} of the edge is neither coarse nor between"
        );
        let [a, b] = [along[t - 1], along[t + 1]].map(|n| {
            let [x, _, z] = fine.world_position(n);
            coarse_at[&(x.to_bits(), z.to_bits())]
        });
        let (pa, pb) = (coarse.world_position(a), coarse.world_position(b));
        assert_eq!(x, (pa[0] + pb[0]) / 2.0);
        assert_eq!(z, (pa[2] + pb[2]) / 2.0);
        let mid = ((pa[1] + pb[1]) / 2.0) as f32;
        assert_eq!(y as f32, mid, "height between coarse vertices at {t}");
        for c in 0..4 {
            let want =
                ((f64::from(coarse.colors[a][c]) + f64::from(coarse.colors[b][c])) / 2.0) as f32;
            assert_eq!(fine.colors[k][c], want, "colour between at {t}");
            let land = ((f64::from(coarse.land_colors[a][c]) + f64::from(coarse.land_colors[b][c]))
                / 2.0) as f32;
            assert_eq!(fine.land_colors[k][c], land, "land between at {t}");
        }
        // Each biome's share the mean of its shares at the two coarse vertices, which is what
        // the coarse triangle blends there.
        let share = |blend: biome_core::BiomeBlend, biome: u16| -> f32 {
            blend
                .weights()
                .filter(|&(b, _)| b == biome)
                .map(|(_, s)| s)
                .sum()
        };
        let (ba, bb, bk) = (
            coarse.biome_blends[a],
            coarse.biome_blends[b],
            fine.biome_blends[k],
        );
        for (biome, _) in ba.weights().chain(bb.weights()).chain(bk.weights()) {
            let want = (share(ba, biome) + share(bb, biome)) / 2.0;
            assert!(
                (share(bk, biome) - want).abs() < 1e-6,
                "biome {biome} between at {t}"
            );
        }
        let cover = ((f64::from(coarse.covers[a]) + f64::from(coarse.covers[b])) / 2.0) as f32;
        assert_eq!(fine.covers[k], cover, "cover between at {t}");
        let temperature =
            ((f64::from(coarse.temperatures[a]) + f64::from(coarse.temperatures[b])) / 2.0) as f32;
        assert_eq!(
            fine.temperatures[k], temperature,
            "temperature between at {t}"
        );
        let sum: Vec<f32> = (0..3)
            .map(|c| coarse.normals[a][c] + coarse.normals[b][c])
            .collect();
        let length = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        for (got, want) in fine.normals[k].iter().zip(&sum) {
            assert!((got - want / length).abs() < 1e-6, "normal between at {t}");
        }
    }
}

#[test]
fn a_level_zero_node_is_the_chunk() {
    let generator = generator(42);
    let layout = ChunkLayout::default();
    for coord in [ChunkCoord::new(0, 0), ChunkCoord::new(-7, 3)] {
        let node = build(&generator, NodeCoord::chunk(coord), &layout, Stitch::NONE);
        assert_eq!(node, generator.build_chunk(coord, &layout).unwrap());
    }
}

#[test]
fn node_coordinates_nest() {
    let chunk = ChunkCoord::new(-5, 12);
    let node = NodeCoord::holding(chunk, 3);
    assert_eq!(node, NodeCoord::new(3, -1, 1));
    assert!(node.contains(NodeCoord::chunk(chunk)));
    assert!(!node.contains(NodeCoord::chunk(ChunkCoord::new(3, 12))));
    for child in node.children() {
        assert_eq!(child.parent(), node);
        assert!(node.contains(child));
    }
    let layout = ChunkLayout::default();
    assert_eq!(node.origin(&layout), [-1024.0, 1024.0]);
    assert_eq!(node.size(&layout), 1024.0);
    assert_eq!(node.tile_size(&layout), 16.0);
    let high = layout.chunk_reach();
    let low = -high - 1;
    let top = NodeCoord::holding(ChunkCoord::new(low, high), NodeCoord::MAX_LEVEL);
    assert!(top.contains(NodeCoord::chunk(ChunkCoord::new(low, high))));
}

#[test]
fn coarse_nodes_carry_no_trees_and_keep_the_vertex_count() {
    let generator = generator(5);
    let layout = ChunkLayout::default();
    let node = build(&generator, NodeCoord::new(4, 1, -2), &layout, Stitch::NONE);
    assert!(node.trees.is_empty());
    assert_eq!(node.positions.len(), 65 * 65);
    assert_eq!(node.positions[65 * 65 - 1][0], 64.0 * 32.0);
}

/// The directed edges of `indices`' triangles, and how often each occurs.
fn directed_edges(indices: &[u32]) -> HashMap<(u32, u32), u32> {
    let mut edges = HashMap::new();
    for t in indices.chunks_exact(3) {
        for k in 0..3 {
            *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    edges
}

/// Twice the signed area of triangle `t` seen from above (in `x, z`).
fn signed_area(node: &ChunkData, t: &[u32]) -> f64 {
    let [a, b, c] = [t[0], t[1], t[2]].map(|k| node.world_position(k as usize));
    (b[0] - a[0]) * (c[2] - a[2]) - (b[2] - a[2]) * (c[0] - a[0])
}

/// A far node's coarse interior keeps the full mesh's rim edge for edge (so it meets every
/// neighbour, stitched or not, as the full mesh does), is closed inside (every inner edge
/// shared by two triangles, opposite ways), covers the node once with the full mesh's winding,
/// and has the triangles `ChunkLayout::node_triangles` says.
#[test]
fn a_coarse_interior_keeps_the_rim_and_covers_the_node_once() {
    let generator = generator(21);
    let stitches = [
        Stitch::NONE,
        Stitch {
            sides: [true, false, true, false],
            corners: [false, false, false, true],
        },
        Stitch {
            sides: [false, true, false, true],
            ..Stitch::NONE
        },
    ];
    for tiles in [2, 4, 6, 12, 16, 64] {
        let layout = layout(tiles);
        for (n, &stitch) in stitches.iter().enumerate() {
            let node = NodeCoord::new(3, 5 - 3 * n as i64, 2 * n as i64 - 7);
            let full = build(&generator, node, &layout, stitch);
            assert_eq!(full.indices.len() / 3, layout.node_triangles(1));
            let full_edges = directed_edges(&full.indices);
            assert!(signed_area(&full, &full.indices[..3]) < 0.0);
            for block in [2, 4, 8] {
                let mut coarse = full.clone();
                coarse.coarsen_interior(block);
                let fit = layout.interior_block(block);
                let context = format!("{tiles} tiles in blocks of {block} ({fit}), {stitch:?}");
                assert!(fit <= block && tiles % fit == 0 && fit.is_power_of_two());
                assert_eq!(coarse.positions, full.positions, "{context}");
                assert_eq!(
                    coarse.indices.len() / 3,
                    layout.node_triangles(block),
                    "{context}"
                );
                let edges = directed_edges(&coarse.indices);
                let rim = |edges: &HashMap<(u32, u32), u32>| {
                    let mut rim: Vec<(u32, u32)> = edges
                        .keys()
                        .filter(|&&(a, b)| !edges.contains_key(&(b, a)))
                        .copied()
                        .collect();
                    rim.sort_unstable();
                    rim
                };
                assert_eq!(rim(&edges), rim(&full_edges), "{context}: the rim");
                assert_eq!(rim(&edges).len(), 4 * tiles as usize, "{context}");
                assert!(edges.values().all(|&count| count == 1), "{context}");
                let size = node.size(&layout);
                let area: f64 = coarse
                    .indices
                    .chunks_exact(3)
                    .map(|t| {
                        let a = signed_area(&coarse, t);
                        assert!(a < 0.0, "{context}: a triangle wound the other way");
                        -a / 2.0
                    })
                    .sum();
                assert!(
                    (area - size * size).abs() <= size * size * 1e-12,
                    "{context}: {area} over a node of {}",
                    size * size
                );
            }
        }
    }
    let layout = ChunkLayout::default();
    assert_eq!(
        [1, 2, 4, 8].map(|block| layout.node_triangles(block)),
        [8192, 2424, 824, 408]
    );
    // What stays whole: flat tiles, odd tile counts, blocks under 2, and volume chunks.
    let flat = ChunkLayout {
        style: MeshStyle::FlatTiles,
        ..layout
    };
    assert_eq!(flat.node_triangles(4), 8192);
    let node = NodeCoord::new(2, 1, 1);
    for (layout, block) in [(flat, 4), (self::layout(7), 2), (self::layout(8), 1)] {
        let full = build(&generator, node, &layout, Stitch::NONE);
        let mut same = full.clone();
        same.coarsen_interior(block);
        assert_eq!(
            same.indices, full.indices,
            "{layout:?} in blocks of {block}"
        );
        assert_eq!(layout.interior_block(block), 1);
    }
    let mut volume = build(&generator, node, &self::layout(8), Stitch::NONE);
    volume.volume = true;
    let full = volume.indices.clone();
    volume.coarsen_interior(2);
    assert_eq!(volume.indices, full, "a volume chunk");
}

#[test]
fn odd_tile_counts_cannot_be_stitched() {
    let generator = generator(1);
    let stitch = Stitch {
        sides: [true, false, false, false],
        ..Stitch::NONE
    };
    let error = generator
        .build_node(
            NodeCoord::new(1, 0, 0),
            &layout(7),
            stitch,
            &AtomicBool::new(false),
        )
        .unwrap_err();
    assert!(error.to_string().contains("layout.tiles"), "{error}");
}

#[test]
fn a_flagged_corner_takes_the_diagonal_coarse_normal() {
    let generator = generator(9);
    let layout = layout(16);
    // Fine node (2, 3, 3): its (+x, +z) corner touches coarse node (3, 2, 2) diagonally.
    let fine_node = NodeCoord::new(2, 3, 3);
    let stitch = Stitch {
        corners: [false, false, false, true],
        ..Stitch::NONE
    };
    let fine = build(&generator, fine_node, &layout, stitch);
    let coarse = build(&generator, NodeCoord::new(3, 2, 2), &layout, Stitch::NONE);
    let last = 16 * 17 + 16;
    let [x, _, z] = fine.world_position(last);
    let c = by_position(&coarse)[&(x.to_bits(), z.to_bits())];
    assert_eq!(fine.normals[last], coarse.normals[c]);
    // Without the flag the corner has the fine spacing's normal.
    let plain = build(&generator, fine_node, &layout, Stitch::NONE);
    assert_ne!(plain.normals[last], coarse.normals[c]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 80, ..ProptestConfig::default() })]

    /// Random nodes at levels 0 to 8, near and far, in the default world, the eroded one, the
    /// one with rivers (carved to the level their width allows, bare beyond) and the default
    /// one with a pad, a brush and a road across the edge in question: stitched
    /// along a side to their coarser neighbour, they meet it exactly; unstitched, they share
    /// their edges with same-level neighbours bit for bit.
    #[test]
    fn nodes_meet_their_neighbours_without_cracks(
        level in 0u8..=8,
        x in prop_oneof![-40i64..40, -1_000_000i64..1_000_000],
        z in prop_oneof![-40i64..40, -1_000_000i64..1_000_000],
        side in 0usize..4,
        tiles in prop_oneof![Just(64u32), (1u32..=20).prop_map(|h| h * 2)],
        seed in -100i64..100,
        world in 0u8..4,
    ) {
        let layout = layout(tiles);
        let fine_node = NodeCoord::new(level, x, z);
        let generator = match world {
            0 => generator(seed),
            1 => eroded(seed),
            2 => rivers(seed),
            _ => edited_across(generator(seed), fine_node, &layout, side),
        };
        if let Some(coarse_node) = coarse_neighbour(fine_node, side) {
            let mut stitch = Stitch::NONE;
            stitch.sides[side] = true;
            let fine = build(&generator, fine_node, &layout, stitch);
            let coarse = build(&generator, coarse_node, &layout, Stitch::NONE);
            assert_watertight(&fine, &coarse, side);
        }
        let (_, [dx, dz]) = SIDES[side];
        let here = build(&generator, fine_node, &layout, Stitch::NONE);
        let there = build(&generator, NodeCoord::new(level, x + dx, z + dz), &layout, Stitch::NONE);
        let verts = tiles as usize + 1;
        let opposite = side ^ 1;
        for (&a, &b) in edge(side, verts).iter().zip(&edge(opposite, verts)) {
            prop_assert_eq!(here.world_position(a), there.world_position(b));
            prop_assert_eq!(here.normals[a], there.normals[b]);
            prop_assert_eq!(here.colors[a], there.colors[b]);
        }
    }
}

/// The last level with rivers carves them and the next shows the land before them: where a
/// river's valley crosses the edge between the two, the finer node follows the coarser one's
/// bare edge, so they still meet exactly.
#[test]
fn the_last_level_with_rivers_meets_the_first_without_them_exactly() {
    let generator = rivers(42);
    let layout = layout(64);
    let level = (0..NodeCoord::MAX_LEVEL)
        .find(|&l| !generator.draws_rivers_at(l + 1, &layout))
        .expect("coarse levels omit the rivers");
    assert!(level > 0 && generator.draws_rivers_at(level, &layout));
    let verts = 65;
    let mut crossed = 0;
    for x in (-6..6).map(|x| 2 * x) {
        // Side 0 (west) of an even column meets the coarser node across it.
        let fine_node = NodeCoord::new(level, x, 1);
        let coarse_node = coarse_neighbour(fine_node, 0).expect("an even column");
        let coarse = build(&generator, coarse_node, &layout, Stitch::NONE);
        let carved = build(&generator, fine_node, &layout, Stitch::NONE);
        let along = edge(0, verts);
        let coarse_at = by_position(&coarse);
        // Whether a river's valley crosses here: the carved edge leaves the bare one.
        let differs = along.iter().any(|&k| {
            let [x, y, z] = carved.world_position(k);
            coarse_at
                .get(&(x.to_bits(), z.to_bits()))
                .is_some_and(|&c| coarse.world_position(c)[1] != y)
        });
        if differs {
            crossed += 1;
            let mut stitch = Stitch::NONE;
            stitch.sides[0] = true;
            let fine = build(&generator, fine_node, &layout, stitch);
            assert_watertight(&fine, &coarse, 0);
        }
    }
    assert!(crossed >= 3, "only {crossed} edges crossed by rivers");
}

/// Nodes build the same bytes on other threads.
#[test]
fn nodes_build_the_same_anywhere() {
    let generator = generator(77);
    let layout = layout(32);
    let stitch = Stitch {
        sides: [false, true, true, false],
        corners: [true, false, false, false],
    };
    let nodes = [
        NodeCoord::new(3, -2, 5),
        NodeCoord::new(6, 1, 1),
        NodeCoord::new(0, 9, -9),
    ];
    let generator = &generator;
    let here: Vec<ChunkData> = nodes
        .iter()
        .map(|&n| build(generator, n, &layout, stitch))
        .collect();
    let there: Vec<ChunkData> = std::thread::scope(|scope| {
        nodes
            .iter()
            .rev()
            .map(|&n| scope.spawn(move || build(generator, n, &layout, stitch)))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    assert_eq!(here, there);
}

/// One random edit as shares of a node's size: its shape, centre, a size share, falloff, a
/// height, and a path's points (centre-relative shares and heights).
type RawEdit = (u8, [f64; 2], f64, f64, f64, Vec<(f64, f64, f64)>);

fn raw_edit() -> impl Strategy<Value = RawEdit> {
    (
        0u8..5,
        [-0.5f64..1.5, -0.5f64..1.5],
        0.0f64..1.0,
        0.0f64..=1.0,
        -300.0f64..600.0,
        prop::collection::vec((-0.5f64..1.5, -100.0f64..400.0, -0.5f64..1.5), 2..6),
    )
}

/// `raw` placed over the node at `origin` of `size`: from half a unit to half the node across.
fn place(raw: &RawEdit, origin: [f64; 2], size: f64) -> EditShape {
    let (shape, [u, v], share, falloff, height, points) = raw;
    let center = [origin[0] + u * size, origin[1] + v * size];
    let extent = (share * size * 0.5).clamp(0.5, 5000.0);
    match shape {
        0 => EditShape::Brush {
            center,
            radius: extent,
            falloff: *falloff,
            op: BrushOp::Raise(height - 100.0),
        },
        1 => EditShape::Brush {
            center,
            radius: extent,
            falloff: *falloff,
            op: BrushOp::Flatten(*height),
        },
        2 => EditShape::Pad {
            center,
            half_size: [extent, (extent * falloff).max(0.5)],
            height: *height,
            skirt: extent * (1.0 - falloff),
        },
        3 => EditShape::Path {
            points: points
                .iter()
                .map(|&(a, y, b)| [origin[0] + a * size, y, origin[1] + b * size])
                .collect(),
            width: (extent * 0.2).max(0.5),
            skirt: extent * falloff,
            surface: (*falloff > 0.5).then_some(Rgb(140, 110, 80)),
        },
        _ => EditShape::Clearing {
            center,
            radius: extent,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Random edit sets over a random node at levels 0 to 6 (every shape, from half a unit to
    /// half the node across, heights far above and below the ground, steep roads): the node
    /// shares its edges with its same-level neighbour bit for bit and meets its coarser
    /// neighbour exactly, every vertex is finite and within the world's height range, the same
    /// edits recorded into a log last first build the same node, and it builds in bounded time.
    #[test]
    fn random_edit_sets_keep_nodes_seamless_finite_and_deterministic(
        level in 0u8..=6,
        x in -6i64..6,
        z in -6i64..6,
        side in 0usize..4,
        seed in -50i64..50,
        raw in prop::collection::vec(raw_edit(), 1..40),
    ) {
        let layout = layout(16);
        let node = NodeCoord::new(level, x, z);
        let (origin, size) = (node.origin(&layout), node.size(&layout));
        let edits: Vec<EditShape> = raw.iter().map(|r| place(r, origin, size)).collect();
        let edited = generator(seed).with_edits(Arc::new(EditSet::new(edits.clone()).unwrap()));

        let started = std::time::Instant::now();
        let here = build(&edited, node, &layout, Stitch::NONE);
        let took = started.elapsed();
        prop_assert!(took < std::time::Duration::from_secs(2), "{took:?}");
        for k in 0..here.positions.len() {
            let p = here.world_position(k);
            prop_assert!(p.iter().all(|v| v.is_finite()), "{p:?}");
            prop_assert!(limits::HEIGHT.contains(&p[1]), "{p:?}");
        }

        let (_, [dx, dz]) = SIDES[side];
        let there = build(&edited, NodeCoord::new(level, x + dx, z + dz), &layout, Stitch::NONE);
        for (&a, &b) in edge(side, 17).iter().zip(&edge(side ^ 1, 17)) {
            prop_assert_eq!(here.world_position(a), there.world_position(b));
            prop_assert_eq!(here.normals[a], there.normals[b]);
            prop_assert_eq!(here.colors[a], there.colors[b]);
        }
        if let Some(coarse_node) = coarse_neighbour(node, side) {
            let mut stitch = Stitch::NONE;
            stitch.sides[side] = true;
            let fine = build(&edited, node, &layout, stitch);
            let coarse = build(&edited, coarse_node, &layout, Stitch::NONE);
            assert_watertight(&fine, &coarse, side);
        }

        let mut log = EditLog::new();
        for (k, edit) in edits.iter().enumerate().rev() {
            log.record(k as u64 + 1, edit.clone()).unwrap();
        }
        let replayed = generator(seed).with_edits(Arc::new(log.edit_set()));
        let again = build(&replayed, node, &layout, Stitch::NONE);
        prop_assert_eq!(&again.positions, &here.positions);
        prop_assert_eq!(&again.normals, &here.normals);
        prop_assert_eq!(&again.colors, &here.colors);
    }
}
