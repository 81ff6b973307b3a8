//! Surface nets (`biome_core::surface_nets`): a closed surface is watertight and faces out, and
//! a volume meshed as neighbouring grids gives the very triangles of one grid over them all.

use std::collections::{BTreeMap, BTreeSet};

use biome_core::density::{
    Add, DensityField, DensityFunctions, DensityNode, Fbm3, Ground, Min, Multiply, PointHeight,
    Shape, Tunnels,
};
use biome_core::surface_nets::{
    OwnedEdges, SampledVolume, SurfaceNetsError, VolumeMesh, mesh_volume,
};

/// Samples `density` on the lattice of `step` from `origin` (in steps), `size` samples a side.
fn sample(
    origin: [i64; 3],
    size: [usize; 3],
    step: f64,
    density: &dyn Fn([f64; 3]) -> f64,
) -> Vec<f64> {
    let mut values = Vec::with_capacity(size.iter().product());
    for j in 0..size[1] {
        for k in 0..size[2] {
            for i in 0..size[0] {
                let at = [i, j, k].map(|n| n as i64);
                let p: [f64; 3] = std::array::from_fn(|a| (origin[a] + at[a]) as f64 * step);
                values.push(density(p));
            }
        }
    }
    values
}

/// The mesh of a whole grid: every edge between its first and last samples.
fn mesh_all(origin: [i64; 3], size: [usize; 3], step: f64, values: &[f64]) -> VolumeMesh {
    let volume = SampledVolume {
        origin,
        step,
        size,
        values,
    };
    let owned = OwnedEdges {
        from: [1; 3],
        to: size.map(|n| n - 1),
    };
    mesh_volume(&volume, owned).expect("a valid grid")
}

/// Every triangle as its three positions' bits, rotated to start at the smallest (so the same
/// triangle compares equal whichever vertex a mesh lists first, and keeps its winding).
fn triangles(mesh: &VolumeMesh) -> BTreeSet<[[u64; 3]; 3]> {
    mesh.indices
        .chunks(3)
        .map(|t| {
            let p: [[u64; 3]; 3] =
                std::array::from_fn(|c| mesh.positions[t[c] as usize].map(f64::to_bits));
            let first = (0..3).min_by_key(|&c| p[c]).unwrap();
            std::array::from_fn(|c| p[(first + c) % 3])
        })
        .collect()
}

fn sphere(p: [f64; 3]) -> f64 {
    let [x, y, z] = [p[0] - 0.3, p[1] + 0.2, p[2] - 0.1];
    5.0 - (x * x + y * y + z * z).sqrt()
}

#[test]
fn a_sphere_is_closed_faces_out_and_holds_its_volume() {
    let (origin, size, step) = ([-8, -8, -8], [17, 17, 17], 1.0);
    let values = sample(origin, size, step, &sphere);
    let mesh = mesh_all(origin, size, step, &values);
    assert!(
        mesh.indices.len() > 300,
        "{} triangles",
        mesh.indices.len() / 3
    );
    // Watertight and consistently wound: every directed edge once, its reverse once.
    let mut edges: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for t in mesh.indices.chunks(3) {
        for c in 0..3 {
            *edges.entry((t[c], t[(c + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &count) in &edges {
        assert_eq!(count, 1, "edge {a}-{b} used {count} times");
        assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin");
    }
    // The enclosed volume (divergence theorem) is the sphere's, within a few percent.
    let p = |v: u32| mesh.positions[v as usize];
    let volume: f64 = mesh
        .indices
        .chunks(3)
        .map(|t| {
            let [a, b, c] = [p(t[0]), p(t[1]), p(t[2])];
            let cross = [
                b[1] * c[2] - b[2] * c[1],
                b[2] * c[0] - b[0] * c[2],
                b[0] * c[1] - b[1] * c[0],
            ];
            (a[0] * cross[0] + a[1] * cross[1] + a[2] * cross[2]) / 6.0
        })
        .sum();
    let want = 4.0 / 3.0 * std::f64::consts::PI * 125.0;
    assert!(
        (volume / want - 1.0).abs() < 0.05,
        "volume {volume}, sphere {want}"
    );
    // Normals point away from the centre and lie on the surface within a cell.
    for (position, normal) in mesh.positions.iter().zip(&mesh.normals) {
        let out = [position[0] - 0.3, position[1] + 0.2, position[2] - 0.1];
        let dot: f64 = (0..3).map(|a| out[a] * normal[a]).sum();
        assert!(dot > 0.0, "normal {normal:?} at {position:?}");
        assert!(
            sphere(*position).abs() < step,
            "{position:?} is off the surface"
        );
    }
}

/// Caves under a surface, the kind of volume chunks will mesh.
fn caves() -> DensityField {
    let fbm3 = DensityNode::new(
        Fbm3 {
            seed_offset: 1,
            scale: 0.08,
            octaves: 3,
            persistence: 0.5,
            lacunarity: 2.0,
            vertical: 1.0,
            shape: Shape::Normal,
        },
        [],
    );
    let surface = DensityNode::new(
        Add {},
        [
            DensityNode::new(Ground {}, []),
            DensityNode::new(Multiply {}, [fbm3, DensityNode::constant(6.0)]),
        ],
    );
    let tunnels = DensityNode::new(
        Tunnels {
            seed_offset: 3,
            scale: 0.05,
            vertical: 1.5,
            radius: 0.15,
        },
        [],
    );
    let walls = DensityNode::new(Multiply {}, [tunnels, DensityNode::constant(20.0)]);
    let root = DensityNode::new(Min {}, [surface, walls]);
    DensityField::volume(&root, 7, &DensityFunctions::default()).unwrap()
}

#[test]
fn neighbouring_grids_give_the_triangles_of_one_grid_over_both() {
    let field = caves();
    let sites: Vec<[f64; 2]> = Vec::new();
    let density = |p: [f64; 3]| {
        let ground = 2.0 + 0.1 * p[0] - 0.05 * p[2];
        field.volume_value(p[0], p[2], PointHeight { y: p[1], ground }, &sites)
    };
    let step = 0.5;
    // One grid of 2 x 2 chunks of 16 cells (apron included), and each chunk alone with its own
    // apron of one sample below: chunk (cx, cz) owns the edges starting in its 16 x 16 columns.
    let chunk = 16;
    let base = [-20, -30, 11];
    let whole_size = [2 * chunk + 2, 44, 2 * chunk + 2];
    let whole_values = sample(base, whole_size, step, &density);
    let whole = mesh_all(base, whole_size, step, &whole_values);
    let mut pieces = BTreeSet::new();
    let mut count = 0;
    for cx in 0..2 {
        for cz in 0..2 {
            let origin = [
                base[0] + (cx * chunk) as i64,
                base[1],
                base[2] + (cz * chunk) as i64,
            ];
            let size = [chunk + 2, whole_size[1], chunk + 2];
            let values = sample(origin, size, step, &density);
            let mesh = mesh_all(origin, size, step, &values);
            count += mesh.indices.len() / 3;
            pieces.extend(triangles(&mesh));
        }
    }
    let whole_triangles = triangles(&whole);
    assert!(
        whole_triangles.len() > 1_000,
        "{} triangles",
        whole_triangles.len()
    );
    assert_eq!(
        count,
        whole.indices.len() / 3,
        "every triangle made by one chunk"
    );
    assert_eq!(pieces, whole_triangles);
}

#[test]
fn grids_that_cannot_be_meshed_are_refused() {
    let values = vec![1.0; 8];
    let volume = SampledVolume {
        origin: [0; 3],
        step: 1.0,
        size: [2, 2, 3],
        values: &values,
    };
    let owned = OwnedEdges {
        from: [1; 3],
        to: [1; 3],
    };
    assert!(matches!(
        mesh_volume(&volume, owned),
        Err(SurfaceNetsError::Shape { values: 8, .. })
    ));
    let volume = SampledVolume {
        size: [2, 2, 2],
        ..volume
    };
    let beyond = OwnedEdges {
        from: [0; 3],
        to: [1; 3],
    };
    assert!(matches!(
        mesh_volume(&volume, beyond),
        Err(SurfaceNetsError::Owned { .. })
    ));
    assert_eq!(mesh_volume(&volume, owned), Ok(VolumeMesh::default()));
}
