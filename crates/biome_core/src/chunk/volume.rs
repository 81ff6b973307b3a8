//! Chunks where the world's volume ([`crate::terrain::VolumeSettings`]) changes the ground:
//! their height-field mesh is remade by surface nets ([`crate::surface_nets`]) over the volume,
//! sampled on the chunk's tile lattice shifted by half a tile, so every cell's column stands
//! over one vertex of the height field.
//!
//! A column whose samples all agree in sign with the height field (solid under the ground,
//! hollow over it) takes the height field's vertex for every cell in it
//! ([`crate::surface_nets::mesh_volume_merged`]), so the surface there is the height field's,
//! tile for tile; only the columns the volume changes get vertices of their own. That is how a
//! volume chunk joins a height-field neighbour exactly: the columns on a shared border are the
//! neighbour's columns too, which all keep the height field's signs (or it would be a volume
//! chunk), so both take the height field's vertices there. Two volume chunks mesh the columns they share from the same samples, and
//! along a side stitched to a coarser node the columns take the stitched height-field vertices
//! whatever the volume, so the edge follows the coarse one.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{ChunkData, ChunkError, SITE_MARGIN, densities, river_detail};
use crate::coords::{ChunkLayout, Stitch, clamp_coordinate};
use crate::generator::{GridAxes, RiverDetail, WorldGenerator};
use crate::regions::SiteCache;
use crate::scratch::Scratch;
use crate::surface_nets::{MergedColumns, OwnedEdges, SampledVolume, mesh_volume_merged};
use crate::terrain::{LatticeLine, VerticalSpan, VolumeField};

/// Vertex positions the volume makes are rounded to this many steps per world unit, so a
/// vertex two chunks share is the same `f32` relative to either chunk's origin (exact below
/// 2^14 units from it).
const POSITION_STEPS: f64 = 1024.0;

/// Remakes level-0 `chunk` (smooth, its vertices the height field's grid) where the world's
/// volume changes its ground; leaves it as it is where it does not. `stitch` is the chunk's,
/// `cache` covers it and half a tile around, and `rivers` is how its heights were carved.
pub(super) fn carve(
    generator: &WorldGenerator,
    chunk: &mut ChunkData,
    stitch: Stitch,
    cache: &SiteCache,
    rivers: RiverDetail,
    cancel: &AtomicBool,
) -> Result<(), ChunkError> {
    let layout = chunk.layout;
    let tiles = i64::from(layout.tiles);
    let window = ColumnWindow {
        first: [chunk.node.x * tiles, chunk.node.z * tiles],
        verts: layout.tiles as usize + 1,
        tile_size: layout.tile_size,
    };
    let last = window.verts - 1;
    // Along a side stitched to a coarser node (and at a flagged corner) the columns keep the
    // stitched height-field vertices whatever the volume, so the edge follows the coarse one.
    let stitched = |a: usize, b: usize| {
        let corners = [(0, 0), (last, 0), (0, last), (last, last)];
        let corner =
            (corners.iter().zip(stitch.corners)).any(|(&c, flagged)| flagged && c == (a, b));
        let s = stitch.sides;
        corner || (s[0] && a == 0) || (s[1] && a == last) || (s[2] && b == 0) || (s[3] && b == last)
    };
    let carving = Carving {
        generator,
        cache,
        rivers,
        cancel,
    };
    let Some(carved) = carving.carve(window, &stitched, Heights::ALL)? else {
        return Ok(());
    };
    let origin = chunk.origin;
    for ((world, normal), &from) in carved
        .positions
        .iter()
        .zip(&carved.normals)
        .zip(&carved.columns)
    {
        let relative = [
            (world[0] - origin[0]) as f32,
            world[1] as f32,
            (world[2] - origin[1]) as f32,
        ];
        chunk.min_height = chunk.min_height.min(relative[1]);
        chunk.max_height = chunk.max_height.max(relative[1]);
        chunk.positions.push(relative);
        chunk.normals.push(normal.map(|v| v as f32));
        // The cell's own column's vertex lends it its ground's colour and biomes.
        chunk.colors.push(chunk.colors[from]);
        chunk.land_colors.push(chunk.land_colors[from]);
        chunk.temperatures.push(chunk.temperatures[from]);
        chunk.covers.push(chunk.covers[from]);
        chunk.biomes.push(chunk.biomes[from]);
        chunk.biome_blends.push(chunk.biome_blends[from]);
    }
    chunk.indices = carved.indices;
    chunk.volume = true;
    Ok(())
}

/// A square of columns of the full-detail tile lattice: `verts` along each axis from vertex
/// `first` (in tiles), the columns of cells standing over those vertices.
#[derive(Clone, Copy, Debug)]
struct ColumnWindow {
    first: [i64; 2],
    verts: usize,
    tile_size: f64,
}

/// The heights a carving is asked about: a window whose bands all lie outside them is left
/// to the height field without sampling the volume.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Heights {
    pub(crate) low: f64,
    pub(crate) high: f64,
}

impl Heights {
    pub(crate) const ALL: Self = Self {
        low: f64::NEG_INFINITY,
        high: f64::INFINITY,
    };
}

/// What the volume makes of a window ([`Carving::carve`]).
struct CarvedColumns {
    /// The vertices the volume makes, in world units, rounded to [`POSITION_STEPS`].
    positions: Vec<[f64; 3]>,
    /// Their unit normals, out of the solid.
    normals: Vec<[f64; 3]>,
    /// The column (`a + verts · b`) each of them stands in.
    columns: Vec<usize>,
    /// Three vertex indices per triangle: below `verts²` the lattice's own vertex of that
    /// column, from there on `positions` in order.
    indices: Vec<u32>,
}

/// What a carving reads the world with: the generator, a site cache over the window and half
/// a tile around, how the rivers are carved, and the flag that cancels it.
struct Carving<'a> {
    generator: &'a WorldGenerator,
    cache: &'a SiteCache,
    rivers: RiverDetail,
    cancel: &'a AtomicBool,
}

impl Carving<'_> {
    /// Samples the volume over `window` and meshes it by surface nets, the columns `keep`
    /// says (and those whose samples all keep the height field's sign) taking the lattice's
    /// vertex; `None` where that leaves the window the height field's, or where no band
    /// reaches `heights`.
    fn carve(
        &self,
        window: ColumnWindow,
        keep: &dyn Fn(usize, usize) -> bool,
        heights: Heights,
    ) -> Result<Option<CarvedColumns>, ChunkError> {
        let Self {
            generator,
            cache,
            rivers,
            cancel,
        } = *self;
        let Some(volume) = generator.volume() else {
            return Ok(None);
        };
        let ColumnWindow {
            first,
            verts,
            tile_size: ts,
        } = window;
        // Sample lines (vertical rows of samples) a = 0..=verts per axis, half a tile before
        // each vertex of the lattice and after the last: the column of cells from line a to
        // a + 1 stands over vertex a.
        let lines = verts + 1;
        let line = |offset: usize, a: usize| {
            clamp_coordinate(((first[offset] + a as i64) as f64 - 0.5) * ts)
        };
        let xs = Scratch::collect((0..lines).flat_map(|_| (0..lines).map(|a| line(0, a))));
        let zs = Scratch::collect((0..lines).flat_map(|b| std::iter::repeat_n(line(1, b), lines)));
        let mut shares = Scratch::zeroed(xs.len());
        volume.mask.values(&xs, &zs, cache, &mut shares);
        shares.iter_mut().for_each(|t| *t = VolumeField::share(*t));
        if shares.iter().all(|&t| t == 0.0) {
            return Ok(None);
        }
        let rows = Scratch::collect((0..lines).map(|b| line(1, b)));
        let axes = GridAxes {
            xs: &xs[..lines],
            zs: &rows,
        };
        let height_scale = generator.settings().terrain.height_scale;
        let mut grounds = densities(generator, &xs, &zs, cache, rivers, Some(axes), cancel)?;
        grounds.iter_mut().for_each(|g| *g *= height_scale);

        // Whole steps of `ts` from below the lowest band to above the highest, with a whole
        // layer strictly outside the bands each way, so every crossing lies on an edge the
        // grid owns (it owns the edges from layer 1 up).
        let (low, high) = grounds
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &g| {
                (lo.min(g), hi.max(g))
            });
        let bottom = ((low - volume.below) / ts).floor() as i64 - 2;
        let top = ((high + volume.above) / ts).ceil() as i64 + 1;
        // The surface stays within the grid's cells.
        if (top as f64) * ts < heights.low || (bottom as f64) * ts > heights.high {
            return Ok(None);
        }
        let layers = (top - bottom + 1) as usize;
        let y = |j: usize| (bottom + j as i64) as f64 * ts;
        // Sample (a, j, b) at a + lines · (b + lines · j): line n = a + lines · b, layer j.
        let area = lines * lines;
        let mut values = Vec::with_capacity(area * layers);
        for j in 0..layers {
            values.extend(grounds.iter().map(|&ground| ground - y(j)));
        }

        // The volume where it may differ: lines with a share, the layers in their band (whole
        // layers, a layer wider each way before the exact test).
        let bands: Vec<std::ops::Range<usize>> = (shares.iter().zip(grounds.iter()))
            .map(|(&share, &ground)| {
                if share == 0.0 {
                    return 0..0;
                }
                let layer = |h: f64| (h / ts).floor() as i64 - bottom;
                let mut from = (layer(ground - volume.below) - 1).max(0) as usize;
                let mut to = ((layer(ground + volume.above) + 2).max(0) as usize).min(layers);
                while from < to && !volume.in_band(y(from), ground) {
                    from += 1;
                }
                while to > from && !volume.in_band(y(to - 1), ground) {
                    to -= 1;
                }
                from..to
            })
            .collect();
        let spans: Vec<VerticalSpan> = (bands.iter().enumerate())
            .filter(|(_, band)| !band.is_empty())
            .map(|(n, band)| VerticalSpan {
                x: xs[n],
                z: zs[n],
                low: y(band.start),
                high: y(band.end - 1),
            })
            .collect();
        // The corners' ground as every query reads it (a thousand or so columns).
        let surface = |xs: &[f64], zs: &[f64]| {
            (!cancel.load(Ordering::Relaxed)).then(|| generator.surface_heights(xs, zs, cache))
        };
        let go_on = || {
            std::thread::yield_now();
            !cancel.load(Ordering::Relaxed)
        };
        let lattice = volume
            .sample_lattice(&spans, cache, &mut { surface }, &mut { go_on })
            .ok_or(ChunkError::Cancelled)?;

        // Every line of a layer reads the lattice at the same height. A line is plain where
        // every sample has the height field's sign: outside its band every sample is the
        // height field's.
        let lattice_lines: Vec<Option<LatticeLine<'_>>> = (bands.iter().enumerate())
            .map(|(n, band)| (!band.is_empty()).then(|| lattice.line(xs[n], zs[n])))
            .collect();
        let mut plain = vec![true; area];
        for (j, layer) in values.chunks_exact_mut(area).enumerate() {
            let height = lattice.height(y(j));
            for (n, value) in layer.iter_mut().enumerate() {
                let (true, Some(line)) = (bands[n].contains(&j), &lattice_lines[n]) else {
                    continue;
                };
                let height_field = *value;
                *value = VolumeField::blend(height_field, shares[n], line.deviation(height));
                plain[n] &= (*value > 0.0) == (height_field > 0.0);
            }
        }
        let merged: Vec<Option<u32>> = (0..verts * verts)
            .map(|n| {
                let (a, b) = (n % verts, n / verts);
                let column_plain = [(a, b), (a + 1, b), (a, b + 1), (a + 1, b + 1)]
                    .iter()
                    .all(|&(i, k)| plain[i + lines * k]);
                (column_plain || keep(a, b)).then_some(n as u32)
            })
            .collect();
        if merged.iter().all(Option::is_some) {
            return Ok(None);
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(ChunkError::Cancelled);
        }

        let sampled = SampledVolume {
            origin: [first[0] - 1, bottom, first[1] - 1],
            step: ts,
            size: [lines, layers, lines],
            values: &values,
        };
        let owned = OwnedEdges {
            from: [1, 1, 1],
            to: [lines - 1, layers - 1, lines - 1],
        };
        let first_made = u32::try_from(merged.len()).expect("a window's columns fit in u32");
        let mesh = mesh_volume_merged(
            &sampled,
            owned,
            MergedColumns {
                vertices: &merged,
                first: first_made,
            },
        )
        .expect("the window's grid has the sizes and columns it meshes");

        let round = |v: f64| (v * POSITION_STEPS).round() / POSITION_STEPS;
        Ok(Some(CarvedColumns {
            // The grid's positions are whole steps from line 0's, half a tile before the
            // vertices.
            positions: mesh
                .positions
                .iter()
                .map(|p| [round(p[0] + ts / 2.0), round(p[1]), round(p[2] + ts / 2.0)])
                .collect(),
            normals: mesh.normals,
            columns: mesh
                .cells
                .iter()
                .map(|cell| cell[2] * verts + cell[0])
                .collect(),
            indices: mesh.indices,
        }))
    }
}

/// A triangle of the drawn ground, its corners in world units, wound counter-clockwise seen
/// from outside the solid.
pub(crate) type GroundTriangle = [[f64; 3]; 3];

/// The triangles of the full-detail ground that may lie over tile `tile` of `layout`'s
/// lattice (the tile's own, and the cells' walls beside it), exactly as a level-0 chunk draws
/// them unstitched; `None` where the volume leaves the ground there to the height field or
/// has no band within `heights`.
pub(crate) fn ground_patch(
    generator: &WorldGenerator,
    layout: &ChunkLayout,
    tile: [i64; 2],
    heights: Heights,
) -> Option<Vec<GroundTriangle>> {
    generator.volume()?;
    let ts = layout.tile_size;
    // The quads over a tile join the columns over its corners and one more each way (a wall
    // between two columns reaches half a tile into each).
    let window = ColumnWindow {
        first: [tile[0] - 1, tile[1] - 1],
        verts: 4,
        tile_size: ts,
    };
    let world = |g: i64| clamp_coordinate(g as f64 * ts);
    let (low, high) = (window.first, [tile[0] + 3, tile[1] + 3]);
    let cache = SiteCache::covering(
        *generator.regions(),
        world(low[0]) - ts,
        world(low[1]) - ts,
        world(high[0]),
        world(high[1]),
        SITE_MARGIN,
    );
    let cancel = AtomicBool::new(false);
    let carving = Carving {
        generator,
        cache: &cache,
        rivers: river_detail(generator, 0, layout),
        cancel: &cancel,
    };
    let carved = carving
        .carve(window, &|_, _| false, heights)
        .expect("nothing cancels a query")?;
    // The lattice's own vertices, as the chunk's grid has them.
    let verts = window.verts;
    let corner = |n: usize| world(window.first[0] + (n % verts) as i64);
    let row = |n: usize| world(window.first[1] + (n / verts) as i64);
    let xs = Scratch::collect((0..verts * verts).map(corner));
    let zs = Scratch::collect((0..verts * verts).map(row));
    let density = densities(generator, &xs, &zs, &cache, carving.rivers, None, &cancel)
        .expect("nothing cancels a query");
    let scale = generator.settings().terrain.height_scale;
    let position = |v: u32| {
        let v = v as usize;
        match v.checked_sub(verts * verts) {
            Some(made) => carved.positions[made],
            None => [xs[v], density[v] * scale, zs[v]],
        }
    };
    let over = |t: &GroundTriangle, axis: usize, offset: usize| {
        let (lo, hi) = t
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p[axis]), hi.max(p[axis]))
            });
        lo <= world(tile[offset] + 1) && hi >= world(tile[offset])
    };
    Some(
        carved
            .indices
            .chunks_exact(3)
            .map(|t| [position(t[0]), position(t[1]), position(t[2])])
            .filter(|t| over(t, 0, 0) && over(t, 2, 1))
            .collect(),
    )
}
