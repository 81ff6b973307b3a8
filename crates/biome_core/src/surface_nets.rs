//! Meshing a volume (3D density, positive solid) by surface nets: one vertex in every grid cell
//! the surface passes through, at the mean of the points where the cell's edges cross it, and
//! one quad across every grid edge that changes sign, joining the vertices of the four cells
//! around it.
//!
//! Why surface nets: against marching cubes it needs no case tables and has no ambiguous cases
//! to resolve the same way on both sides of a chunk border, gives about half the triangles for
//! the same grid, and its vertices are smooth without a decimation pass; against dual
//! contouring it needs no gradients at the crossings and no least-squares solve per cell (its
//! corners come out rounded, which suits rock). Chunks join exactly because everything is a pure
//! function of the samples: a cell's vertex and normal come from its eight corners alone, and a
//! grid meshes the quads of the edges it owns ([`OwnedEdges`]: it holds one sample more on each
//! side), so a border quad is made by exactly one chunk and its vertices are the same bits in
//! both (`tests/surface_nets.rs` splits grids and compares).

/// Samples of a volume on a regular grid: sample `(i, j, k)` is the density at
/// `(origin + (i, j, k)) * step`, stored with `i` (x) fastest, then `k` (z), then `j` (y).
/// The origin is in whole steps, so every grid over the same world lattice computes a position
/// from the same integers, whatever its own origin.
#[derive(Clone, Copy, Debug)]
pub struct SampledVolume<'a> {
    /// Sample `(0, 0, 0)`'s place on the world lattice, in steps.
    pub origin: [i64; 3],
    /// The distance between neighbouring samples on every axis.
    pub step: f64,
    /// Samples along x, y and z (at least 2 each).
    pub size: [usize; 3],
    /// The densities, `size[0] * size[1] * size[2]` of them.
    pub values: &'a [f64],
}

/// Which edges a grid meshes: the quads of edges whose low sample lies in `owned` (in samples,
/// per axis, x y z) are made; the others belong to a neighbour. An edge's quad needs the cells
/// on both sides of it and the sample past it, so a grid holds one sample more on each side of
/// the samples it owns: it owns from 1 to `size - 1`, and its neighbour's first owned sample
/// is its own `size - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnedEdges {
    /// The first sample, per axis, whose edges are meshed.
    pub from: [usize; 3],
    /// One past the last, per axis.
    pub to: [usize; 3],
}

/// A triangle mesh of a volume's surface: positions, outward unit normals (from solid to
/// hollow), and counter-clockwise triangles seen from outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VolumeMesh {
    /// Vertex positions.
    pub positions: Vec<[f64; 3]>,
    /// Unit normals, pointing out of the solid.
    pub normals: Vec<[f64; 3]>,
    /// The grid cell (its low corner's sample, x y z) each vertex lies in.
    pub cells: Vec<[usize; 3]>,
    /// Three vertex indices per triangle.
    pub indices: Vec<u32>,
}

/// Columns of cells (the cells sharing an x and a z) that each take one vertex given from
/// outside ([`mesh_volume_merged`]): where a volume is a height field, the height field's
/// vertex.
#[derive(Clone, Copy, Debug)]
pub struct MergedColumns<'a> {
    /// Per column of cells, `i + (size[0] - 1) * k`, the vertex every cell of the column takes,
    /// or `None` for a column meshed as usual.
    pub vertices: &'a [Option<u32>],
    /// The index the first vertex the mesher makes takes: the given vertices come before it.
    pub first: u32,
}

/// Why a volume cannot be meshed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SurfaceNetsError {
    /// The grid's sizes and its values disagree, or an axis has fewer than 2 samples.
    #[error(
        "a grid of {size:?} samples needs at least 2 on every axis and that many values (got {values})"
    )]
    Shape {
        /// The grid's samples per axis.
        size: [usize; 3],
        /// How many values it holds.
        values: usize,
    },
    /// The merged columns are not one per column of cells.
    #[error("{given} merged columns given for a grid of {columns} columns of cells")]
    Columns {
        /// How many were given.
        given: usize,
        /// The grid's columns of cells.
        columns: usize,
    },
    /// The owned edges reach outside the grid's cells (an edge needs the cells on both sides).
    #[error("owned edges {owned:?} must lie within 1..size-1 on every axis of {size:?}")]
    Owned {
        /// The owned edges.
        owned: OwnedEdges,
        /// The grid's samples per axis.
        size: [usize; 3],
    },
}

/// The twelve edges of a cell, as pairs of its corners (corner `c` is at offset `(c & 1,
/// c >> 1 & 1, c >> 2 & 1)` in x, y, z).
const CELL_EDGES: [[usize; 2]; 12] = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
    [0, 2],
    [1, 3],
    [4, 6],
    [5, 7],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
];

impl SampledVolume<'_> {
    fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.size[0] * (k + self.size[2] * j)
    }

    fn corner_values(&self, i: usize, j: usize, k: usize) -> [f64; 8] {
        std::array::from_fn(|c| {
            self.values[self.index(i + (c & 1), j + (c >> 1 & 1), k + (c >> 2 & 1))]
        })
    }

    /// The vertex and normal of cell `(i, j, k)` (its low corner), if the surface crosses it.
    fn cell_vertex(&self, i: usize, j: usize, k: usize) -> Option<([f64; 3], [f64; 3])> {
        let v = self.corner_values(i, j, k);
        let solid = v.map(|d| d > 0.0);
        if solid.iter().all(|&s| s == solid[0]) {
            return None;
        }
        let mut sum = [0.0; 3];
        let mut crossings = 0.0;
        for [a, b] in CELL_EDGES {
            if solid[a] == solid[b] {
                continue;
            }
            let t = v[a] / (v[a] - v[b]);
            for (axis, total) in sum.iter_mut().enumerate() {
                let from = f64::from(((a >> axis) & 1) as u8);
                let to = f64::from(((b >> axis) & 1) as u8);
                *total += from + t * (to - from);
            }
            crossings += 1.0;
        }
        let local = sum.map(|s| s / crossings);
        let position = std::array::from_fn(|axis| {
            let cell = self.origin[axis] + [i, j, k][axis] as i64;
            (cell as f64 + local[axis]) * self.step
        });
        Some((position, outward_normal(&v, local)))
    }
}

/// The unit normal out of the solid at `local` (0..1 per axis) in a cell with corner values `v`:
/// minus the gradient of the trilinear interpolation of `v` there.
fn outward_normal(v: &[f64; 8], local: [f64; 3]) -> [f64; 3] {
    let [x, y, z] = local;
    let lerp = |a: f64, b: f64, t: f64| a + (b - a) * t;
    // Along x: the difference across each of the four x edges, weighted by y and z.
    let dx = lerp(
        lerp(v[1] - v[0], v[3] - v[2], y),
        lerp(v[5] - v[4], v[7] - v[6], y),
        z,
    );
    let dy = lerp(
        lerp(v[2] - v[0], v[3] - v[1], x),
        lerp(v[6] - v[4], v[7] - v[5], x),
        z,
    );
    let dz = lerp(
        lerp(v[4] - v[0], v[5] - v[1], x),
        lerp(v[6] - v[2], v[7] - v[3], x),
        y,
    );
    let length = (dx * dx + dy * dy + dz * dz).sqrt();
    if length > 0.0 {
        [-dx / length, -dy / length, -dz / length]
    } else {
        [0.0, 1.0, 0.0]
    }
}

/// Meshes the surface of `volume` where positive turns to zero or below, over the edges `owned`.
///
/// # Errors
/// A grid whose values do not match its sizes, or owned edges without cells on both sides.
pub fn mesh_volume(
    volume: &SampledVolume<'_>,
    owned: OwnedEdges,
) -> Result<VolumeMesh, SurfaceNetsError> {
    let columns = vec![None; (volume.size[0].max(1) - 1) * (volume.size[2].max(1) - 1)];
    mesh_volume_merged(
        volume,
        owned,
        MergedColumns {
            vertices: &columns,
            first: 0,
        },
    )
}

/// [`mesh_volume`] with the cells of `merged` columns taking their given vertex: a quad
/// around a vertical edge between four merged columns is the two triangles a height field
/// makes of that tile (split from `(i + 1, k)` to `(i, k + 1)`), quads around other edges of
/// merged columns fold away, and every triangle left with a repeated vertex is dropped.
/// Merging is a function of the samples alone, so grids that merge the columns they share
/// alike still join exactly; vertices meeting at a merged one close up, so a closed surface
/// stays closed. The mesh's positions, normals and cells are those of the vertices it makes,
/// numbered from `merged.first`.
///
/// # Errors
/// A grid whose values do not match its sizes, owned edges without cells on both sides, or
/// merged columns that are not one per column of cells.
///
/// # Panics
/// If `merged.first` plus the vertices made passes `u32::MAX`; otherwise never (every cell
/// around an edge the surface crosses holds a vertex: it contains the edge).
pub fn mesh_volume_merged(
    volume: &SampledVolume<'_>,
    owned: OwnedEdges,
    merged: MergedColumns<'_>,
) -> Result<VolumeMesh, SurfaceNetsError> {
    let size = volume.size;
    let samples = size
        .iter()
        .try_fold(1_usize, |product, &n| product.checked_mul(n));
    if size.iter().any(|&n| n < 2) || samples != Some(volume.values.len()) {
        return Err(SurfaceNetsError::Shape {
            size,
            values: volume.values.len(),
        });
    }
    if (0..3).any(|a| owned.from[a] < 1 || owned.to[a] > size[a] - 1 || owned.from[a] > owned.to[a])
    {
        return Err(SurfaceNetsError::Owned { owned, size });
    }
    let cells = [size[0] - 1, size[1] - 1, size[2] - 1];
    if merged.vertices.len() != cells[0] * cells[2] {
        return Err(SurfaceNetsError::Columns {
            given: merged.vertices.len(),
            columns: cells[0] * cells[2],
        });
    }
    let cell_index = |i: usize, j: usize, k: usize| i + cells[0] * (k + cells[2] * j);
    let mut mesh = VolumeMesh::default();
    // The vertex of every cell a quad may use (those touching an owned edge), made once.
    let mut vertex_of = vec![u32::MAX; cells.iter().product()];
    let mut vertex = |mesh: &mut VolumeMesh, [i, j, k]: [usize; 3]| -> (u32, bool) {
        if let Some(given) = merged.vertices[i + cells[0] * k] {
            return (given, true);
        }
        let slot = &mut vertex_of[cell_index(i, j, k)];
        if *slot == u32::MAX {
            let (position, normal) = volume
                .cell_vertex(i, j, k)
                .expect("a cell around an edge the surface crosses is crossed");
            *slot = u32::try_from(mesh.positions.len())
                .ok()
                .and_then(|made| merged.first.checked_add(made))
                .expect("vertex indices fit in u32");
            mesh.positions.push(position);
            mesh.normals.push(normal);
            mesh.cells.push([i, j, k]);
        }
        (*slot, false)
    };
    // Which samples are solid, a byte each: the sweep below compares whole rows of them and
    // stops only at samples with an edge the surface crosses.
    let solid: Vec<bool> = volume.values.iter().map(|&v| v > 0.0).collect();
    let (along_z, along_y) = (size[0], size[0] * size[2]);
    for j in owned.from[1]..owned.to[1] {
        for k in owned.from[2]..owned.to[2] {
            let row = volume.index(owned.from[0], j, k)..volume.index(owned.to[0], j, k);
            let next = |step: usize| &solid[row.start + step..row.end + step];
            // Bit `axis` set where the edge along that axis changes sign.
            let crossed = (solid[row.clone()].iter().zip(next(1)).zip(next(along_y)))
                .zip(next(along_z))
                .map(|(((&here, &x), &y), &z)| {
                    u8::from(here != x) | u8::from(here != y) << 1 | u8::from(here != z) << 2
                });
            for (i, crossed) in (owned.from[0]..).zip(crossed) {
                if crossed == 0 {
                    continue;
                }
                let here = solid[volume.index(i, j, k)];
                // The edges from this sample along +x, +y and +z, each with the four cells
                // around it (the cells whose low corners are below the edge on the other axes).
                for axis in (0..3).filter(|&axis| crossed >> axis & 1 == 1) {
                    let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
                    let corner = |du: usize, dw: usize| {
                        let mut c = [i, j, k];
                        c[u] -= du;
                        c[w] -= dw;
                        c
                    };
                    let around = [corner(1, 1), corner(0, 1), corner(0, 0), corner(1, 0)];
                    let corners = around.map(|cell| vertex(&mut mesh, cell));
                    let quad = corners.map(|(index, _)| index);
                    // Around a vertical edge the corners run (i-1, k-1), (i-1, k), (i, k),
                    // (i, k-1): the height field's diagonal joins the second and fourth. A quad
                    // with given vertices takes it too, so the split needs no given position.
                    let split = if corners.iter().any(|&(_, given)| given) {
                        Split::SecondFourth
                    } else {
                        Split::Shorter
                    };
                    push_quad(&mut mesh, quad, here, split, merged.first);
                }
            }
        }
    }
    Ok(mesh)
}

/// Which diagonal a quad is split along.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Split {
    /// The shorter, a choice of the positions alone.
    Shorter,
    /// The one from the second corner to the fourth (in the quad's own order, whichever way it
    /// faces).
    SecondFourth,
}

/// Two triangles of `quad` (its corners in turn around the edge, counter-clockwise seen from
/// the edge's far end), facing out of the solid: toward the far end when the near one is solid.
/// Triangles with a repeated vertex (where merged columns fold a quad) are left out. The
/// positions of vertices from `first` on are the mesh's own.
fn push_quad(mesh: &mut VolumeMesh, quad: [u32; 4], near_solid: bool, split: Split, first: u32) {
    let [a, b, c, d] = if near_solid {
        quad
    } else {
        [quad[0], quad[3], quad[2], quad[1]]
    };
    let shorter_ac = || {
        let p = |v: u32| mesh.positions[(v - first) as usize];
        let distance2 = |m: [f64; 3], n: [f64; 3]| {
            (0..3)
                .map(|axis| (m[axis] - n[axis]) * (m[axis] - n[axis]))
                .sum::<f64>()
        };
        distance2(p(a), p(c)) <= distance2(p(b), p(d))
    };
    let triangles = if split == Split::Shorter && shorter_ac() {
        [[a, b, c], [a, c, d]]
    } else {
        [[a, b, d], [b, c, d]]
    };
    for triangle in triangles {
        let [p, q, r] = triangle;
        if p != q && q != r && p != r {
            mesh.indices.extend(triangle);
        }
    }
}
