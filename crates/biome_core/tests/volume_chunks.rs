//! Volume chunks (`terrain.volume`): where the mask lets the volume change the ground, a chunk's
//! mesh is made from the volume; elsewhere it stays the height field, bit for bit. The tests
//! weld whole blocks of chunks by world position and look for open edges: a crack between two
//! chunks, or a hole in a cave, is an edge only one triangle uses.

mod counting;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use biome_core::density::DensityNode;
use biome_core::scatter::{CAVE_HEADROOM, ScatterGround, ScatterLayer, ScatterSpacing};
use biome_core::terrain::VolumeSettings;
use biome_core::{ChunkCoord, ChunkData, ChunkLayout, NodeCoord, Stitch};
use biome_core::{WorldGenerator, WorldSettings};

use counting::peak_of;

/// The `caves` preset: the default world with overhangs and tunnels in patches.
fn caves() -> WorldSettings {
    WorldSettings::from_ron(include_str!("../../../assets/presets/caves.ron")).unwrap()
}

/// The preset's mask: patches a few hundred units across, 0 between them.
fn patches() -> DensityNode {
    caves().terrain.volume.unwrap().mask
}

/// The `caves` world with `mask`, or without its volume.
fn settings(mask: Option<DensityNode>) -> WorldSettings {
    let mut settings = caves();
    let volume = settings.terrain.volume.take().unwrap();
    settings.terrain.volume = mask.map(|mask| VolumeSettings { mask, ..volume });
    settings
}

fn world(mask: Option<DensityNode>) -> WorldGenerator {
    WorldGenerator::new(settings(mask)).unwrap()
}

fn chunk(world: &WorldGenerator, x: i64, z: i64, stitch: Stitch) -> ChunkData {
    world
        .build_node(
            NodeCoord::chunk(ChunkCoord { x, z }),
            &ChunkLayout::default(),
            stitch,
            &AtomicBool::new(false),
        )
        .unwrap()
}

/// Vertices welded by their exact world position, and every triangle over them.
struct Welded {
    positions: Vec<[f64; 3]>,
    triangles: Vec<[usize; 3]>,
}

fn weld(chunks: &[ChunkData]) -> Welded {
    let mut ids: HashMap<[u64; 3], usize> = HashMap::new();
    let mut welded = Welded {
        positions: Vec::new(),
        triangles: Vec::new(),
    };
    for chunk in chunks {
        let id: Vec<usize> = (0..chunk.positions.len())
            .map(|v| {
                let p = chunk.world_position(v);
                *ids.entry(p.map(f64::to_bits)).or_insert_with(|| {
                    welded.positions.push(p);
                    welded.positions.len() - 1
                })
            })
            .collect();
        for t in chunk.indices.chunks_exact(3) {
            welded
                .triangles
                .push([id[t[0] as usize], id[t[1] as usize], id[t[2] as usize]]);
        }
    }
    welded
}

/// The edges not run as often one way as the other by the triangles (counter-clockwise seen
/// from outside): a closed surface wound consistently has none, so a crack, a hole or a
/// triangle wound the wrong way shows here.
fn open_edges(welded: &Welded) -> Vec<[usize; 2]> {
    let mut count: HashMap<[usize; 2], i32> = HashMap::new();
    for &[a, b, c] in &welded.triangles {
        // Two vertices can meet where a crossing falls exactly on a sample: an edge of no
        // length opens nothing.
        for (p, q) in [(a, b), (b, c), (c, a)].into_iter().filter(|(p, q)| p != q) {
            *count.entry([p.min(q), p.max(q)]).or_default() += if p < q { 1 } else { -1 };
        }
    }
    let mut open: Vec<[usize; 2]> = (count.into_iter())
        .filter(|&(_, n)| n != 0)
        .map(|(edge, _)| edge)
        .collect();
    open.sort_unstable();
    open
}

/// The vertices of a chunk's height-field grid, which come first in every chunk's mesh.
fn lattice() -> usize {
    (ChunkLayout::default().tiles as usize + 1).pow(2)
}

/// A block of 4 × 4 chunks from chunk `(x0, 0)`, row by row.
struct Block {
    x0: i64,
    chunks: Vec<ChunkData>,
}

impl Block {
    /// Chunk `k`'s coordinates.
    fn coord(&self, k: usize) -> (i64, i64) {
        (self.x0 + k as i64 % 4, k as i64 / 4)
    }

    /// The block's lowest and highest world `(x, z)`.
    fn rect(&self) -> ([f64; 2], [f64; 2]) {
        let size = ChunkLayout::default().chunk_size();
        (
            [(self.x0 as f64) * size, 0.0],
            [((self.x0 + 4) as f64) * size, 4.0 * size],
        )
    }
}

/// The first block of 4 × 4 chunks along x holding volume chunks, height-field chunks, a
/// volume chunk beside a height-field one and two volume chunks side by side.
fn mixed_block(world: &WorldGenerator) -> Block {
    for block in 0..24 {
        let x0 = 4 * block;
        let chunks: Vec<ChunkData> = (0..16)
            .map(|k| chunk(world, x0 + k % 4, k / 4, Stitch::NONE))
            .collect();
        let volume = |i: i64, j: i64| chunks[(j * 4 + i) as usize].volume;
        let pairs: Vec<(bool, bool)> = (0..4)
            .flat_map(|j| (0..3).flat_map(move |i| [((i, j), (i + 1, j)), ((j, i), (j, i + 1))]))
            .map(|((a, b), (c, d))| (volume(a, b), volume(c, d)))
            .collect();
        if pairs.iter().any(|&(a, b)| a != b) && pairs.iter().any(|&(a, b)| a && b) {
            return Block { x0, chunks };
        }
    }
    panic!("no block of mixed chunks within 96 chunks of the origin");
}

/// Chunks of a volume world, welded, have open edges only around the block: every border
/// between two volume chunks and between a volume chunk and a height-field one is closed, and so
/// is every cave inside.
#[test]
fn volume_chunks_join_every_neighbour_exactly() {
    let world = world(Some(patches()));
    let block = mixed_block(&world);
    let made: usize = (block.chunks.iter())
        .filter(|c| c.volume)
        .map(|c| c.positions.len() - lattice())
        .sum();
    assert!(made > 1000, "the volume makes {made} vertices of its own");
    let welded = weld(&block.chunks);
    let (min, max) = block.rect();
    // A vertex of a border column lies within half a tile of the border.
    let half = ChunkLayout::default().tile_size / 2.0;
    let on_rim = |p: [f64; 3]| {
        [(p[0], min[0], max[0]), (p[2], min[1], max[1])]
            .iter()
            .any(|&(v, lo, hi)| (v - lo).abs() <= half || (v - hi).abs() <= half)
    };
    let open = open_edges(&welded);
    let inner: Vec<_> = open
        .iter()
        .filter(|e| e.iter().any(|&v| !on_rim(welded.positions[v])))
        .map(|e| e.map(|v| welded.positions[v]))
        .collect();
    assert!(
        inner.is_empty(),
        "open edges inside the block: {:?}",
        &inner[..inner.len().min(5)]
    );
    assert!(!open.is_empty(), "the block's rim is open");
}

/// A height-field chunk beside a volume chunk is the chunk of a world without a volume, bit for
/// bit, and a world whose mask is 0 everywhere builds every chunk as one without a volume.
#[test]
fn chunks_the_volume_leaves_are_the_height_field() {
    let with = world(Some(patches()));
    let block = mixed_block(&with);
    let without = world(None);
    for (k, built) in block.chunks.iter().enumerate().filter(|(_, c)| !c.volume) {
        let (x, z) = block.coord(k);
        // Trees may stand back from a cave in a neighbouring chunk; the ground is the same.
        let plain = chunk(&without, x, z, Stitch::NONE);
        assert_eq!(
            ChunkData {
                trees: Vec::new(),
                ..built.clone()
            },
            ChunkData {
                trees: Vec::new(),
                ..plain
            }
        );
    }
    let nowhere = world(Some(DensityNode::constant(0.0)));
    for (x, z) in [block.coord(0), block.coord(9), (-7, 11)] {
        assert_eq!(
            chunk(&nowhere, x, z, Stitch::NONE),
            chunk(&without, x, z, Stitch::NONE)
        );
    }
}

/// Along a side stitched to a coarser node a volume chunk's open edges are the height-field
/// chunk's, so it meets the coarse node as that chunk does (`tests/lod.rs`), even where the
/// volume reaches the side.
#[test]
fn a_stitched_volume_chunk_ends_on_the_height_field_edge() {
    let with = world(Some(patches()));
    let without = world(None);
    let block = mixed_block(&with);
    // A volume chunk whose own vertices reach its rim.
    let (k, _) = (block.chunks.iter())
        .enumerate()
        .find(|(_, c)| {
            let welded = weld(std::slice::from_ref(c));
            open_edges(&welded)
                .iter()
                .any(|e| e.iter().any(|&v| v >= lattice()))
        })
        .expect("a volume chunk whose caves or overhangs reach its rim");
    let (x, z) = block.coord(k);
    let all = Stitch {
        sides: [true; 4],
        corners: [true; 4],
    };
    let open = |world: &WorldGenerator| {
        let welded = weld(&[chunk(world, x, z, all)]);
        let mut edges: Vec<[[u64; 3]; 2]> = open_edges(&welded)
            .iter()
            .map(|e| {
                let mut pair = e.map(|v| welded.positions[v].map(f64::to_bits));
                pair.sort_unstable();
                pair
            })
            .collect();
        edges.sort_unstable();
        edges
    };
    let stitched = chunk(&with, x, z, all);
    assert!(stitched.volume, "the stitched chunk is still a volume");
    assert_eq!(open(&with), open(&without));
}

/// A volume chunk is the same bits however it is built: alone, after its neighbours, or from
/// the density sampled for physics.
#[test]
fn volume_chunks_build_the_same_anywhere() {
    let world = world(Some(patches()));
    let block = mixed_block(&world);
    let (k, built) = (block.chunks.iter().enumerate())
        .find(|(_, c)| c.volume)
        .unwrap();
    let (x, z) = block.coord(k);
    let node = NodeCoord::chunk(ChunkCoord { x, z });
    let layout = ChunkLayout::default();
    let cancel = AtomicBool::new(false);
    let density = world.node_density(node, &layout, &cancel).unwrap();
    let again = world
        .build_node_from(node, &layout, Stitch::NONE, &density, &cancel)
        .unwrap();
    assert_eq!(*built, again);
    let fresh = self::world(Some(patches()));
    let alone = fresh
        .build_node(node, &layout, Stitch::NONE, &cancel)
        .unwrap();
    assert_eq!(*built, alone);
}

/// Settings that cannot mesh a volume are refused by path.
#[test]
fn volume_settings_are_checked_by_path() {
    let refused = |change: &dyn Fn(&mut VolumeSettings)| {
        let mut settings = settings(Some(patches()));
        change(settings.terrain.volume.as_mut().unwrap());
        settings.validate().unwrap_err().field
    };
    let under = |field: String, path: &str| {
        assert!(field.starts_with(path), "{field} is not under {path}");
    };
    assert_eq!(refused(&|v| v.below = -1.0), "terrain.volume.below");
    assert_eq!(refused(&|v| v.above = f64::NAN), "terrain.volume.above");
    under(
        refused(&|v| v.mask = DensityNode::new(biome_core::density::Ground {}, [])),
        "terrain.volume.mask",
    );
    under(
        refused(&|v| v.density = DensityNode::constant(1e9)),
        "terrain.volume.density",
    );
    let mut flat = settings(Some(patches()));
    let layout = ChunkLayout {
        style: biome_core::MeshStyle::FlatTiles,
        ..ChunkLayout::default()
    };
    assert_eq!(
        layout.validate_with(&flat).unwrap_err().field,
        "layout.style"
    );
    flat.terrain.volume.as_mut().unwrap().below = 256.0;
    flat.terrain.volume.as_mut().unwrap().above = 256.0;
    let fine = ChunkLayout {
        tile_size: 0.5,
        ..ChunkLayout::default()
    };
    assert_eq!(
        fine.validate_with(&flat).unwrap_err().field,
        "layout.tile_size"
    );
    assert_eq!(refused(&|v| v.spacing = 0.25), "terrain.volume.spacing");
    assert_eq!(refused(&|v| v.spacing = f64::NAN), "terrain.volume.spacing");
    // Finer than half a tile the lattice adds cost and no detail.
    let mut fine_lattice = settings(Some(patches()));
    fine_lattice.terrain.volume.as_mut().unwrap().spacing = 0.5;
    assert_eq!(fine_lattice.validate(), Ok(()));
    assert_eq!(
        ChunkLayout::default()
            .validate_with(&fine_lattice)
            .unwrap_err()
            .field,
        "terrain.volume.spacing"
    );
    let text = settings(Some(patches())).to_ron().unwrap();
    assert_eq!(
        WorldSettings::from_ron(&text).unwrap(),
        settings(Some(patches()))
    );
}

/// The world's volume is read from a lattice `spacing` apart: at its corners the world's solid
/// is the volume's own value (blended by the mask), between them it is interpolated, so a
/// finer spacing follows the volume more closely, and the chunks change with it.
#[test]
fn the_volume_is_exact_at_its_lattice_corners_and_interpolated_between() {
    use biome_core::density::PointHeight;
    let world = world(Some(DensityNode::constant(1.0)));
    let density = world.volume_density().expect("a volume");
    let spacing = world.settings().terrain.volume.as_ref().unwrap().spacing;
    let exact = |x: f64, y: f64, z: f64| {
        let ground = world.height_at(x, z);
        density.volume_value(x, z, PointHeight { y, ground }, world.regions())
    };
    let (mut corners, mut between) = (0, 0);
    for k in 0..400_i32 {
        let (cx, cz) = (f64::from(k % 20 - 10), f64::from(k / 20 - 10));
        let (x, z) = (cx * spacing * 7.0, cz * spacing * 5.0);
        let ground = world.height_at(x, z);
        let y = ((ground - 8.0) / spacing).round() * spacing;
        // At a corner, the mask 1: the volume's value, to rounding.
        let solid = world.solid_at(x, y, z);
        assert!(
            (solid - exact(x, y, z)).abs() < 1e-9,
            "at the corner {x}, {y}, {z}: {solid} against {}",
            exact(x, y, z)
        );
        corners += 1;
        // Halfway between corners the lattice smooths what the volume does finer.
        let half = spacing / 2.0;
        let (mx, my, mz) = (x + half, y + half, z + half);
        between += usize::from((world.solid_at(mx, my, mz) - exact(mx, my, mz)).abs() > 1e-6);
    }
    assert_eq!(corners, 400);
    assert!(
        between > 300,
        "only {between} of 400 points between corners interpolated"
    );

    let mut fine = settings(Some(DensityNode::constant(1.0)));
    fine.terrain.volume.as_mut().unwrap().spacing = 1.0;
    let fine = WorldGenerator::new(fine).unwrap();
    let (coarse, fine) = (
        chunk(&world, 1, -2, Stitch::NONE),
        chunk(&fine, 1, -2, Stitch::NONE),
    );
    assert!(coarse.volume && fine.volume);
    assert_ne!(coarse.positions, fine.positions);
}

/// Every vertex the volume makes lies in a cell of the shifted lattice whose corners
/// [`WorldGenerator::solid_at`] finds on both sides of the surface: the chunks mesh the world
/// the point query reads.
#[test]
fn volume_vertices_lie_on_the_surface_the_query_reads() {
    let world = world(Some(patches()));
    let block = mixed_block(&world);
    let ts = ChunkLayout::default().tile_size;
    let (mut checked, mut on_faces) = (0, 0);
    for chunk in block.chunks.iter().filter(|c| c.volume) {
        for v in lattice()..chunk.positions.len() {
            let p = chunk.world_position(v);
            // Lines stand half a tile before the vertices; layers at whole tiles.
            let cell = [p[0] / ts + 0.5, p[1] / ts, p[2] / ts + 0.5];
            if cell.iter().any(|c| (c - c.round()).abs() < 1e-3) {
                on_faces += 1;
                continue;
            }
            let low = cell.map(f64::floor);
            let solid: Vec<bool> = (0..8)
                .map(|c| {
                    let corner = |axis: usize| low[axis] + f64::from((c >> axis) & 1);
                    let (x, y, z) = (
                        (corner(0) - 0.5) * ts,
                        corner(1) * ts,
                        (corner(2) - 0.5) * ts,
                    );
                    world.solid_at(x, y, z) > 0.0
                })
                .collect();
            assert!(
                solid.contains(&true) && solid.contains(&false),
                "vertex {p:?} lies in a cell the surface does not cross"
            );
            checked += 1;
        }
    }
    assert!(
        checked > 1000 && on_faces * 100 < checked,
        "{checked} checked, {on_faces} on faces"
    );
}

/// No tree stands over a hollow or inside rock the volume makes, and the volume keeps trees
/// off ground it changes: a world with it has fewer.
#[test]
fn trees_stand_on_the_real_surface() {
    let with = world(Some(patches()));
    let without = world(None);
    let (min, max) = mixed_block(&with).rect();
    let trees = with.trees_in_rect(min, max);
    assert!(trees.len() < without.trees_in_rect(min, max).len());
    assert!(!trees.is_empty());
    for tree in &trees {
        let [x, y, z] = tree.position;
        assert!(
            with.solid_at(x, y - 0.5, z) > 0.0,
            "tree at {x}, {z} stands over a hollow"
        );
        for h in 1..8 {
            let above = y + 0.5 * f64::from(h);
            assert!(
                with.solid_at(x, above, z) <= 0.0,
                "tree at {x}, {z} stands in rock"
            );
        }
    }
}

/// Where the volume leaves a tile's four columns alone, a volume chunk draws the height-field
/// chunk's two triangles there, over the same diagonal and wound the same way.
#[test]
fn tiles_the_volume_leaves_are_the_height_fields_triangles() {
    let with = world(Some(patches()));
    let without = world(None);
    let block = mixed_block(&with);
    // A triangle by its vertices, rotated to start at the least (its winding kept).
    let canonical = |t: &[u32]| {
        let first = (0..3).min_by_key(|&i| t[i]).unwrap();
        [t[first], t[(first + 1) % 3], t[(first + 2) % 3]]
    };
    let mut compared = 0;
    for (k, built) in block.chunks.iter().enumerate().filter(|(_, c)| c.volume) {
        let (x, z) = block.coord(k);
        let plain = chunk(&without, x, z, Stitch::NONE);
        let height: std::collections::HashSet<[u32; 3]> =
            plain.indices.chunks_exact(3).map(canonical).collect();
        for t in built.indices.chunks_exact(3) {
            if t.iter().all(|&v| (v as usize) < lattice()) {
                assert!(
                    height.contains(&canonical(t)),
                    "triangle {t:?} of a volume chunk is not the height field's"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 10_000, "only {compared} height-field triangles");
}

/// The block's triangles in world units.
fn triangles(block: &Block) -> Vec<[[f64; 3]; 3]> {
    let welded = weld(&block.chunks);
    (welded.triangles.iter())
        .map(|t| t.map(|v| welded.positions[v]))
        .collect()
}

/// Where the vertical line through `(x, z)` crosses the triangles, top down, each with whether
/// the solid lies under it (a floor) or over it (a roof): by plane equations, a different
/// route from the queries' barycentric weights.
fn crossings(triangles: &[[[f64; 3]; 3]], x: f64, z: f64) -> Vec<(f64, bool)> {
    let mut found: Vec<(f64, bool)> = triangles
        .iter()
        .filter_map(|&[p, q, r]| {
            let side =
                |a: [f64; 3], b: [f64; 3]| (b[0] - a[0]) * (z - a[2]) - (b[2] - a[2]) * (x - a[0]);
            let s = [side(p, q), side(q, r), side(r, p)];
            let inside = s.iter().all(|&v| v >= 0.0) || s.iter().all(|&v| v <= 0.0);
            let u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let w = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
            let n = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            (inside && n[1] != 0.0).then(|| {
                let y = p[1] - (n[0] * (x - p[0]) + n[2] * (z - p[2])) / n[1];
                (y, n[1] > 0.0)
            })
        })
        .collect();
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    found.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9 && a.1 == b.1);
    found
}

/// A few hundred points over the block's volume chunks, two tiles in from their rims (the
/// block's triangles end there), at odd fractions of a tile.
fn points_over_volume(block: &Block) -> Vec<(f64, f64)> {
    let layout = ChunkLayout::default();
    let size = layout.chunk_size();
    let margin = 2.0 * layout.tile_size;
    let mut seed = 0x9e37_79b9_u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut points = Vec::new();
    for (k, chunk) in block.chunks.iter().enumerate().filter(|(_, c)| c.volume) {
        let (cx, cz) = block.coord(k);
        for _ in 0..400 {
            let x = (cx as f64) * size + margin + next() * (size - 2.0 * margin);
            let z = (cz as f64) * size + margin + next() * (size - 2.0 * margin);
            points.push((x, z));
        }
        assert!(chunk.volume);
    }
    points
}

/// `ground_top` and `ground_below` read the surface volume chunks draw: over every crossing of a
/// vertical line with the block's triangles, the floor under a point between two crossings is
/// the lower one where the solid lies under it, and there is none where the point is in rock.
#[test]
fn ground_queries_read_the_drawn_volume() {
    let world = world(Some(patches()));
    let block = mixed_block(&world);
    let triangles = triangles(&block);
    let layout = ChunkLayout::default();
    let (mut layered, mut floors, mut in_rock) = (0, 0, 0);
    for (x, z) in points_over_volume(&block) {
        let found = crossings(&triangles, x, z);
        let &(top, top_is_floor) = found.first().expect("ground under every point");
        assert!(top_is_floor, "the top at {x}, {z} faces down");
        let ground = world.ground_top(x, z, &layout);
        assert!(
            (ground.height - top).abs() < 1e-3 && ground.normal[1] > 0.0,
            "top at {x}, {z}: {} against the mesh's {top}",
            ground.height
        );
        layered += usize::from(found.len() > 1);
        for pair in found.windows(2) {
            let [(upper, _), (lower, lower_is_floor)] = [pair[0], pair[1]];
            if upper - lower < 1e-2 {
                continue;
            }
            let y = (upper + lower) / 2.0;
            let below = world.ground_below(x, y, z, &layout);
            if lower_is_floor {
                let floor = below.unwrap_or_else(|| panic!("no floor under {x}, {y}, {z}"));
                assert!(
                    (floor.height - lower).abs() < 1e-3,
                    "floor under {x}, {y}, {z}: {} against the mesh's {lower}",
                    floor.height
                );
                floors += 1;
            } else {
                assert_eq!(below, None, "{x}, {y}, {z} lies in rock");
                in_rock += 1;
            }
        }
    }
    assert!(
        layered > 20 && floors > 20 && in_rock > 20,
        "{layered} lines cross the surface more than once, {floors} floors under a roof, \
         {in_rock} points in rock"
    );
}

/// `cast_ray` meets the first of the block's triangles a ray crosses (brute force over all of
/// them): overhangs and roofs stop it, cave mouths let it in.
#[test]
fn rays_meet_the_drawn_volume() {
    use biome_core::rays::GroundRay;
    let world = world(Some(patches()));
    let block = mixed_block(&world);
    let triangles = triangles(&block);
    let layout = ChunkLayout::default();
    let first_hit = |origin: [f64; 3], d: [f64; 3]| {
        triangles
            .iter()
            .filter_map(|&[p, q, r]| {
                // Cramer's rule on origin + t·d = p + u·(q − p) + v·(r − p).
                let e1 = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
                let e2 = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
                let b = [origin[0] - p[0], origin[1] - p[1], origin[2] - p[2]];
                let det3 = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| {
                    a[0] * (b[1] * c[2] - b[2] * c[1]) - b[0] * (a[1] * c[2] - a[2] * c[1])
                        + c[0] * (a[1] * b[2] - a[2] * b[1])
                };
                let m = det3(e1, e2, d.map(|c| -c));
                if m == 0.0 {
                    return None;
                }
                let u = det3(b, e2, d.map(|c| -c)) / m;
                let v = det3(e1, b, d.map(|c| -c)) / m;
                let t = det3(e1, e2, b) / m;
                (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t >= 0.0).then_some(t)
            })
            .min_by(f64::total_cmp)
    };
    let (min, max) = block.rect();
    let margin = 2.0 * layout.tile_size;
    let inside_block = |p: [f64; 3]| {
        (min[0] + margin..=max[0] - margin).contains(&p[0])
            && (min[1] + margin..=max[1] - margin).contains(&p[2])
    };
    let (mut compared, mut off_height_field, mut from_rock) = (0, 0, 0);
    for (k, (x, z)) in points_over_volume(&block).into_iter().enumerate() {
        // Toward the point from 6 units over its top, leaning a little or a lot.
        let top = world.ground_top(x, z, &layout).height;
        let lean: f64 = [0.05, 0.6, 1.5][k % 3];
        // Unit headings; 7 against the 3 leans gives every pair.
        let headings = [
            [1.0, 0.0],
            [0.6, 0.8],
            [-0.8, 0.6],
            [-0.6, -0.8],
            [0.8, -0.6],
            [0.0, -1.0],
            [-1.0, 0.0],
        ];
        let [hx, hz] = headings[k % 7];
        let d = [lean * hx, -1.0, lean * hz];
        let length = (d[0] * d[0] + 1.0 + d[2] * d[2]).sqrt();
        let d = d.map(|c| c / length);
        let reach = 6.0 / -d[1];
        let origin = [x - d[0] * reach, top + 6.0, z - d[2] * reach];
        if !inside_block(origin) {
            continue;
        }
        let hit = world.cast_ray(
            GroundRay {
                origin,
                direction: d,
            },
            200.0,
            &layout,
        );
        // A ray that starts in rock hits where it starts.
        let below_origin = crossings(&triangles, origin[0], origin[2])
            .into_iter()
            .find(|&(y, _)| y <= origin[1]);
        let expected = if matches!(below_origin, Some((_, true))) {
            first_hit(origin, d)
        } else {
            from_rock += 1;
            Some(0.0)
        };
        match (hit, expected) {
            (Some(hit), Some(t)) => {
                if !inside_block(hit.position) {
                    continue;
                }
                assert!(
                    (hit.distance - t).abs() < 1e-3,
                    "ray {origin:?} {d:?} hits at {} against the mesh's {t}",
                    hit.distance
                );
                let [hx, hy, hz] = hit.position;
                off_height_field += usize::from((hy - world.height_at(hx, hz)).abs() > 0.5);
                compared += 1;
            }
            (None, None) => {}
            (None, Some(t)) if t > 200.0 => {}
            (hit, t) => panic!("ray {origin:?} {d:?}: {hit:?} against the mesh's {t:?}"),
        }
    }
    assert!(
        compared > 200 && off_height_field > 20,
        "{compared} hits compared, {off_height_field} off the height field, {from_rock} from rock"
    );
}

/// The `caves` world with `mask` (or without its volume) and a layer of ore on cave floors,
/// 8 units apart in every biome.
fn with_ore(mask: Option<DensityNode>) -> (WorldGenerator, usize) {
    let mut settings = settings(mask);
    settings.scatter.layers.push(ScatterLayer {
        ground: ScatterGround::CaveFloor,
        ..ScatterLayer::new("ore").unwrap()
    });
    for biome in &mut settings.biome_table.biomes {
        biome.scatter.push(ScatterSpacing::new("ore", 8.0));
    }
    let layer = settings.scatter.layer_index("ore").unwrap();
    (WorldGenerator::new(settings).unwrap(), layer)
}

/// The highest cave floor under `(x, z)` with [`CAVE_HEADROOM`] of open space over it, by brute
/// force: `solid_at` down the volume's band every `step` units.
fn cave_floor_by_scan(world: &WorldGenerator, x: f64, z: f64, step: f64) -> Option<f64> {
    let volume = world.settings().terrain.volume.as_ref().unwrap();
    let ground = world.height_at(x, z);
    let (top, bottom) = (ground + volume.above, ground - volume.below);
    let steps = ((top - bottom) / step) as usize;
    let (mut under_ground, mut roof) = (world.solid_at(x, top, z) > 0.0, None);
    let mut was_solid = under_ground;
    for k in 1..=steps {
        let y = top - k as f64 * step;
        let solid = world.solid_at(x, y, z) > 0.0;
        match (was_solid, solid) {
            (true, false) => roof = Some(y),
            (false, true) if !under_ground => under_ground = true,
            (false, true) if roof.is_some_and(|roof: f64| roof - y >= CAVE_HEADROOM) => {
                return Some(y);
            }
            _ => {}
        }
        was_solid = solid;
    }
    // Under the band the world is solid: a hollow open at its bottom has its floor there.
    (under_ground && !was_solid && roof.is_some_and(|roof| roof - bottom >= CAVE_HEADROOM))
        .then_some(bottom)
}

/// A layer on cave floors ([`ScatterGround::CaveFloor`]) puts each object on a floor the
/// chunks around it draw, under a roof at least [`CAVE_HEADROOM`] over it and under the ground
/// open to the sky, within half a tile of the cave floor a scan of `solid_at` finds; its objects
/// are the same scattered in parts as whole, and a world without caves has none.
#[test]
fn cave_layers_stand_on_cave_floors() {
    let (with, ore) = with_ore(Some(patches()));
    let layout = ChunkLayout::default();
    let (min, max) = ([-1024.0, -1024.0], [1024.0, 1024.0]);
    let objects = with.scatter_in_rect(ore, min, max, &layout).unwrap();
    assert!(objects.len() > 20, "{} objects", objects.len());
    let size = layout.chunk_size();
    let mut drawn: HashMap<(i64, i64), Vec<[[f64; 3]; 3]>> = HashMap::new();
    for object in &objects {
        let [x, y, z] = object.position;
        let [cx, cz] = [x, z].map(|v| (v / size).floor() as i64);
        // The chunk under the object and its neighbours: a chunk's triangles end at its rim.
        let mut triangles = Vec::new();
        for (i, j) in (-1..=1).flat_map(|dz| (-1..=1).map(move |dx| (cx + dx, cz + dz))) {
            triangles.extend(
                drawn
                    .entry((i, j))
                    .or_insert_with(|| {
                        let chunk = chunk(&with, i, j, Stitch::NONE);
                        (chunk.indices.chunks_exact(3))
                            .map(|t| [0, 1, 2].map(|k| chunk.world_position(t[k] as usize)))
                            .collect()
                    })
                    .iter(),
            );
        }
        let line = crossings(&triangles, x, z);
        let at = (line.iter())
            .position(|&(height, floor)| floor && (height - y).abs() < 1e-6)
            .unwrap_or_else(|| {
                panic!("no drawn floor under the object at {x}, {y}, {z}: {line:?}")
            });
        assert!(
            at >= 2,
            "the object at {x}, {y}, {z} is not under the ground: {line:?}"
        );
        let (roof, floor) = line[at - 1];
        assert!(
            !floor && roof - y >= CAVE_HEADROOM - 1e-9,
            "the object at {x}, {y}, {z} has {} of room: {line:?}",
            roof - y
        );
        let scanned = cave_floor_by_scan(&with, x, z, 0.01)
            .unwrap_or_else(|| panic!("no cave floor in the volume at {x}, {z}"));
        assert!(
            (scanned - y).abs() <= layout.tile_size / 2.0,
            "the object at {x}, {y}, {z}: the volume's floor is at {scanned}"
        );
    }
    let mid = (min[0] + max[0]) / 2.0;
    let mut parts = with
        .scatter_in_rect(ore, min, [mid, max[1]], &layout)
        .unwrap();
    parts.extend(
        with.scatter_in_rect(ore, [mid, min[1]], max, &layout)
            .unwrap(),
    );
    parts.sort_by_key(|object| object.id);
    let mut whole = objects.clone();
    whole.sort_by_key(|object| object.id);
    assert_eq!(parts, whole);
    let (without, ore) = with_ore(None);
    assert!(
        without
            .scatter_in_rect(ore, min, max, &layout)
            .unwrap()
            .is_empty()
    );
}

/// The most a volume chunk's build may hold at once (its lattice, samples, mesher and mesh):
/// twice the 8 MiB measured.
const VOLUME_BUILD_BYTES: usize = 16 << 20;
/// The most a volume chunk's mesh may upload: twice the 0.96 MiB measured.
const VOLUME_MESH_BYTES: usize = 2 << 20;

/// What a volume chunk costs in memory: building 16 chunks of the `caves` world with its volume
/// everywhere, the most bytes held at once stays under [`VOLUME_BUILD_BYTES`], and the mesh a
/// chunk uploads (position, normal, colour and temperature per vertex, as the plugin meshes it,
/// and its indices) under [`VOLUME_MESH_BYTES`]; both printed beside the same chunks as height
/// fields.
#[test]
fn a_volume_chunk_builds_in_bounded_memory() {
    let volume = world(Some(DensityNode::constant(1.0)));
    let plain = world(None);
    // Bytes the plugin uploads for a chunk's mesh (16-bit indices where they fit).
    let mesh_bytes = |chunk: &ChunkData| {
        let index = if chunk.positions.len() <= 1 << 16 {
            2
        } else {
            4
        };
        chunk.positions.len() * (12 + 12 + 16 + 8) + chunk.indices.len() * index
    };
    let (mut peaks, mut meshes) = ([0_usize; 2], [0_usize; 2]);
    let mut triangles = [0_usize; 2];
    for k in 0..16 {
        let coord = ChunkCoord {
            x: k % 4 - 2,
            z: k / 4 - 2,
        };
        for (n, world) in [&volume, &plain].into_iter().enumerate() {
            let (built, peak) = peak_of(|| chunk(world, coord.x, coord.z, Stitch::NONE));
            assert_eq!(built.volume, n == 0);
            peaks[n] = peaks[n].max(peak);
            meshes[n] = meshes[n].max(mesh_bytes(&built));
            triangles[n] = triangles[n].max(built.indices.len() / 3);
        }
    }
    let mib = |bytes: usize| bytes as f64 / f64::from(1 << 20);
    let kib = |bytes: usize| bytes as f64 / f64::from(1 << 10);
    println!(
        "volume chunks: build peak {:.1} MiB, mesh {:.0} KiB, {} triangles at most; \
         height-field chunks: {:.1} MiB, {:.0} KiB, {} triangles",
        mib(peaks[0]),
        kib(meshes[0]),
        triangles[0],
        mib(peaks[1]),
        kib(meshes[1]),
        triangles[1]
    );
    assert!(peaks[0] < VOLUME_BUILD_BYTES, "{:.1} MiB", mib(peaks[0]));
    assert!(meshes[0] < VOLUME_MESH_BYTES, "{:.0} KiB", kib(meshes[0]));
}
