//! Volumes (3D density): graphs of `(x, y, z)` built from the same nodes as height stacks plus
//! the ones that read the height (`Ground`, `Fbm3`, `Tunnels`). Heights reach every node through
//! the 2D ones, one point and a batch give the same bits in any order, each node stays within
//! its validated bound, and a height stack refuses the 3D nodes by path.

use biome_core::density::{
    Abs, Add, Bounds, Clamp, DensityField, DensityFunctions, DensityNode, Fbm3, Ground, Max, Min,
    Mix, Multiply, PointHeight, Shape, Tunnels, VolumePoints, Warp,
};
use biome_core::noise3::{NOISE3_BOUND, Simplex3};
use biome_core::tutorial::SeededRandom;
use biome_core::{DensityOp, WorldSettings};
use proptest::prelude::*;

const SEED: i64 = 2024;
/// No region sites: no node here reads them.
const NO_SITES: Vec<[f64; 2]> = Vec::new();

fn constant(value: f64) -> DensityNode {
    DensityNode::constant(value)
}

fn ground() -> DensityNode {
    DensityNode::new(Ground {}, [])
}

fn fbm3(seed_offset: i64, scale: f64, vertical: f64, shape: Shape) -> DensityNode {
    DensityNode::new(
        Fbm3 {
            seed_offset,
            scale,
            octaves: 3,
            persistence: 0.5,
            lacunarity: 2.0,
            vertical,
            shape,
        },
        [],
    )
}

fn tunnels() -> DensityNode {
    DensityNode::new(
        Tunnels {
            seed_offset: 3,
            scale: 0.02,
            vertical: 2.0,
            radius: 0.08,
        },
        [],
    )
}

/// Caves under a hilly surface: the ground with overhangs from 3D fBm near the surface, tunnels
/// carved below, chambers where ridged noise runs high, and a 2D warp over a 3D node (so the
/// heights pass through a 2D node's batch path).
fn caves() -> DensityNode {
    let surface = DensityNode::new(
        Add {},
        [
            ground(),
            DensityNode::new(
                Multiply {},
                [fbm3(1, 0.03, 1.0, Shape::Normal), constant(12.0)],
            ),
        ],
    );
    let tunnel_walls = DensityNode::new(Multiply {}, [tunnels(), constant(40.0)]);
    let chambers = DensityNode::new(
        Multiply {},
        [
            DensityNode::new(Add {}, [fbm3(5, 0.015, 2.0, Shape::Ridged), constant(-0.7)]),
            constant(-30.0),
        ],
    );
    let warped = DensityNode::new(
        Warp {
            seed_offset: 9,
            levels: 1,
            strength: 20.0,
            scale: 0.01,
            octaves: 2,
        },
        [chambers],
    );
    let hollows = DensityNode::new(Max {}, [tunnel_walls, warped]);
    let under = DensityNode::new(
        Clamp {
            low: -50.0,
            high: 50.0,
        },
        [DensityNode::new(Min {}, [surface, hollows])],
    );
    let rough = DensityNode::new(Abs {}, [fbm3(7, 0.1, 1.0, Shape::Billow)]);
    DensityNode::new(Mix { amount: 0.1 }, [under, rough])
}

/// Points around a surface at height 40, at every scale from centimetres to 10^6 units out.
fn points(count: usize, seed: i64) -> (Vec<[f64; 3]>, Vec<f64>) {
    let mut random = SeededRandom::new(seed);
    let mut points = Vec::with_capacity(count);
    let mut grounds = Vec::with_capacity(count);
    for k in 0..count {
        let reach = [1.0, 100.0, 1.0e4, 1.0e6][k % 4];
        let mut coordinate = || (random.next_float() - 0.5) * reach;
        let (x, z) = (coordinate(), coordinate());
        let y = 40.0 + (random.next_float() - 0.5) * 200.0;
        points.push([x, y, z]);
        grounds.push(40.0 + (random.next_float() - 0.5) * 20.0);
    }
    (points, grounds)
}

fn volume_values(field: &DensityField, points: &[[f64; 3]], grounds: &[f64]) -> Vec<f64> {
    let xs: Vec<f64> = points.iter().map(|p| p[0]).collect();
    let ys: Vec<f64> = points.iter().map(|p| p[1]).collect();
    let zs: Vec<f64> = points.iter().map(|p| p[2]).collect();
    let mut out = vec![f64::NAN; points.len()];
    let points = VolumePoints {
        xs: &xs,
        ys: &ys,
        zs: &zs,
        grounds,
    };
    field.volume_values(points, &NO_SITES, &mut out);
    out
}

fn compile(root: &DensityNode) -> DensityField {
    DensityField::volume(root, SEED, &DensityFunctions::default()).expect("a valid volume")
}

#[test]
fn ground_alone_is_the_height_field_as_a_volume() {
    let field = compile(&ground());
    let at =
        |y: f64, ground: f64| field.volume_value(3.0, -4.0, PointHeight { y, ground }, &NO_SITES);
    assert_eq!(at(10.0, 25.5), 15.5);
    assert_eq!(at(30.0, 25.5), -4.5);
    assert_eq!(at(-1.0e9, 0.0), 100_000.0, "deep below: the reach");
    assert_eq!(at(1.0e9, 0.0), -100_000.0, "far above");
}

#[test]
fn heights_reach_3d_nodes_through_2d_ones() {
    let noise = Simplex3::new(SEED + 1);
    let field = compile(&DensityNode::new(
        Multiply {},
        [fbm3(1, 0.03, 2.0, Shape::Normal), constant(2.0)],
    ));
    let params = biome_core::tutorial::FbmParams::octaves(3);
    for (x, y, z) in [(1.5, 2.5, -3.5), (100.0, -7.0, 12.25)] {
        let value = field.volume_value(x, z, PointHeight { y, ground: 0.0 }, &NO_SITES);
        let want = noise.fbm(x * 0.03, y * (0.03 * 2.0), z * 0.03, params) * 2.0;
        assert_eq!(value.to_bits(), want.to_bits(), "at {x}, {y}, {z}");
    }
}

/// 2D nodes read in a volume give what they give in a height stack, whatever the heights: a
/// warped fBm clamped, one point at a time and in a batch.
#[test]
fn a_height_stack_read_as_a_volume_ignores_the_heights() {
    let warp = Warp {
        seed_offset: 9,
        levels: 2,
        strength: 30.0,
        scale: 0.01,
        octaves: 3,
    };
    let hills = DensityNode::fbm(2, 0.02, 4, Shape::Ridged);
    let stack = DensityNode::new(
        Clamp {
            low: -0.5,
            high: 0.8,
        },
        [DensityNode::new(warp, [hills])],
    );
    let flat = DensityField::new(&stack, SEED).unwrap();
    let deep = compile(&stack);
    let (points, grounds) = points(257, 5);
    let batch = volume_values(&deep, &points, &grounds);
    let xs: Vec<f64> = points.iter().map(|p| p[0]).collect();
    let zs: Vec<f64> = points.iter().map(|p| p[2]).collect();
    let mut want = vec![0.0; xs.len()];
    flat.values(&xs, &zs, &NO_SITES, &mut want);
    for (k, (&[x, y, z], &ground)) in points.iter().zip(&grounds).enumerate() {
        let one = deep.volume_value(x, z, PointHeight { y, ground }, &NO_SITES);
        assert_eq!(one.to_bits(), want[k].to_bits(), "at {x}, {y}, {z}");
        assert_eq!(
            batch[k].to_bits(),
            want[k].to_bits(),
            "batch at {x}, {y}, {z}"
        );
    }
}

#[test]
#[should_panic(expected = "a volume is read at (x, y, z)")]
fn a_volume_is_not_read_as_a_height_stack() {
    let _ = compile(&ground()).value(0.0, 0.0, &NO_SITES);
}

#[test]
fn one_point_and_a_batch_give_the_same_bits() {
    let field = compile(&caves());
    let (points, grounds) = points(1_001, 7);
    let batch = volume_values(&field, &points, &grounds);
    for (k, (&[x, y, z], &ground)) in points.iter().zip(&grounds).enumerate() {
        let one = field.volume_value(x, z, PointHeight { y, ground }, &NO_SITES);
        assert_eq!(one.to_bits(), batch[k].to_bits(), "at {x}, {y}, {z}");
    }
}

#[test]
fn every_node_stays_within_its_bound() {
    let root = caves();
    let field = compile(&root);
    let (points, grounds) = points(4_000, 11);
    let xs: Vec<f64> = points.iter().map(|p| p[0]).collect();
    let ys: Vec<f64> = points.iter().map(|p| p[1]).collect();
    let zs: Vec<f64> = points.iter().map(|p| p[2]).collect();
    let batch = VolumePoints {
        xs: &xs,
        ys: &ys,
        zs: &zs,
        grounds: &grounds,
    };
    let mut out = vec![0.0; points.len()];
    for (id, entry) in root.walk().iter().enumerate() {
        let bound: Bounds = entry
            .node
            .validate_volume_with(&DensityFunctions::default())
            .unwrap();
        field.volume_values_of(id, batch, &NO_SITES, &mut out);
        // Bounds are interval arithmetic without directed rounding: an ulp out is within.
        let slack = 1e-12 * bound.magnitude().max(1.0);
        let within = Bounds::new(bound.low - slack, bound.high + slack);
        // What the noise reaches, tighter than what validation can prove.
        let reached = match entry.node.op {
            DensityOp::Fbm3(fbm) if fbm.shape == Shape::Normal => {
                Bounds::new(-NOISE3_BOUND, NOISE3_BOUND)
            }
            DensityOp::Tunnels(t) => {
                Bounds::new(-t.radius, 2.0_f64.sqrt() * NOISE3_BOUND - t.radius)
            }
            _ => within,
        };
        for &value in &out {
            assert!(
                within.contains(value) && reached.contains(value),
                "{} ({}) gave {value}, outside {bound:?} or {reached:?}",
                entry.path,
                entry.node.op.kind()
            );
        }
    }
}

#[test]
fn tunnels_hollow_some_of_the_rock_and_not_most() {
    let field = compile(&tunnels());
    let (points, _) = points(20_000, 3);
    let hollow = points
        .iter()
        .filter(|&&[x, y, z]| {
            field.volume_value(x, z, PointHeight { y, ground: 0.0 }, &NO_SITES) < 0.0
        })
        .count();
    let share = hollow as f64 / points.len() as f64;
    assert!((0.002..0.2).contains(&share), "hollow share {share}");
}

#[test]
fn a_height_stack_refuses_the_3d_nodes_by_path() {
    for node in [ground(), fbm3(0, 0.01, 1.0, Shape::Normal), tunnels()] {
        let kind = node.op.kind();
        let stack = DensityNode::new(Add {}, [constant(1.0), node]);
        let error = stack.validate().unwrap_err();
        assert_eq!(error.field, "b", "{kind}");
        assert!(error.reason.contains("volume"), "{kind}: {}", error.reason);
        let mut world = WorldSettings::default();
        world.terrain.density = stack.clone();
        let error = world.validate().unwrap_err();
        assert_eq!(error.field, "terrain.density.b", "{kind}");
        assert!(
            stack
                .validate_volume_with(&DensityFunctions::default())
                .is_ok()
        );
    }
}

#[test]
fn volume_fields_are_refused_by_path() {
    let mut wide = tunnels();
    if let DensityOp::Tunnels(t) = &mut wide.op {
        t.radius = 2.0;
    }
    let stack = DensityNode::new(Min {}, [ground(), wide]);
    let error = stack
        .validate_volume_with(&DensityFunctions::default())
        .unwrap_err();
    assert_eq!(error.field, "b.radius");
    // Ground's reach times 100 leaves the density limit.
    let deep = DensityNode::new(Multiply {}, [ground(), constant(100.0)]);
    let error = deep
        .validate_volume_with(&DensityFunctions::default())
        .unwrap_err();
    assert_eq!(error.field, "");
}

#[test]
fn a_volume_reads_and_writes_as_a_preset() {
    let root = caves();
    let text = ron::to_string(&root).unwrap();
    let back: DensityNode = ron::from_str(&text).unwrap();
    assert_eq!(back, root, "{text}");
    // The example docs/world.md shows and the preview draws.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/volumes/caves.ron"
    );
    let example = std::fs::read_to_string(path).unwrap();
    let read: DensityNode = ron::from_str(&example).unwrap();
    assert!(
        read.validate_volume_with(&DensityFunctions::default())
            .is_ok()
    );
    assert_eq!(read.node_count(), 14);
}

/// Locked: a change here changes every volume.
#[test]
fn a_seeded_volume_keeps_its_bits() {
    let field = compile(&caves());
    let values: Vec<u64> = [(12.5, 30.0, -7.25, 41.0), (-300.0, 55.5, 1_000.0, 38.0)]
        .iter()
        .map(|&(x, y, z, ground)| {
            field
                .volume_value(x, z, PointHeight { y, ground }, &NO_SITES)
                .to_bits()
        })
        .collect();
    // 11.270379003901988, -19.453333555985875
    assert_eq!(values, [0x4026_8a6f_1de6_9175, 0xc033_740d_aafd_2383]);
}

proptest! {
    /// A point's value does not depend on the batch it comes in, where in it, or with what
    /// neighbours: any chunk of a volume builds alone and meets its neighbours exactly.
    #[test]
    fn a_points_value_is_the_same_in_any_batch(
        x in -1.0e5..1.0e5f64,
        y in -200.0..200.0f64,
        z in -1.0e5..1.0e5f64,
        ground in -50.0..50.0f64,
        before in 0usize..40,
        seed in 0i64..1_000,
    ) {
        let field = compile(&caves());
        let (mut points, mut grounds) = points(before, seed);
        points.push([x, y, z]);
        grounds.push(ground);
        let batch = volume_values(&field, &points, &grounds);
        let one = field.volume_value(x, z, PointHeight { y, ground }, &NO_SITES);
        prop_assert_eq!(batch[before].to_bits(), one.to_bits());
    }
}
