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

use super::{CANCEL_BLOCK, ChunkData, ChunkError, densities};
use crate::coords::{Stitch, clamp_coordinate};
use crate::density::VolumePoints;
use crate::generator::{GridAxes, RiverDetail, WorldGenerator};
use crate::regions::SiteCache;
use crate::scratch::Scratch;
use crate::surface_nets::{MergedColumns, OwnedEdges, SampledVolume, mesh_volume_merged};
use crate::terrain::VolumeField;

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
    let Some(volume) = generator.volume() else {
        return Ok(());
    };
    let layout = chunk.layout;
    let tiles = i64::from(layout.tiles);
    let ts = layout.tile_size;
    let first = [
        i64::from(chunk.node.x) * tiles,
        i64::from(chunk.node.z) * tiles,
    ];
    // Sample lines (vertical rows of samples) a = 0..=tiles + 1 per axis, half a tile before
    // each vertex of the grid and after the last: the column of cells from line a to a + 1
    // stands over vertex a.
    let lines = (tiles + 2) as usize;
    let line =
        |offset: usize, a: usize| clamp_coordinate(((first[offset] + a as i64) as f64 - 0.5) * ts);
    let xs = Scratch::collect((0..lines).flat_map(|_| (0..lines).map(|a| line(0, a))));
    let zs = Scratch::collect((0..lines).flat_map(|b| std::iter::repeat_n(line(1, b), lines)));
    let mut shares = Scratch::zeroed(xs.len());
    volume.mask.values(&xs, &zs, cache, &mut shares);
    shares.iter_mut().for_each(|t| *t = VolumeField::share(*t));
    if shares.iter().all(|&t| t == 0.0) {
        return Ok(());
    }
    let rows = Scratch::collect((0..lines).map(|b| line(1, b)));
    let axes = GridAxes {
        xs: &xs[..lines],
        zs: &rows,
    };
    let height_scale = generator.settings().terrain.height_scale;
    let mut grounds = densities(generator, &xs, &zs, cache, rivers, Some(axes), cancel)?;
    grounds.iter_mut().for_each(|g| *g *= height_scale);

    // Whole steps of `ts` from below the lowest band to above the highest, with a whole layer
    // strictly outside the bands each way, so every crossing lies on an edge the grid owns (it
    // owns the edges from layer 1 up).
    let (low, high) = grounds
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &g| {
            (lo.min(g), hi.max(g))
        });
    let bottom = ((low - volume.below) / ts).floor() as i64 - 2;
    let top = ((high + volume.above) / ts).ceil() as i64 + 1;
    let layers = (top - bottom + 1) as usize;
    let y = |j: usize| (bottom + j as i64) as f64 * ts;
    // Sample (a, j, b) at a + lines · (b + lines · j): line n = a + lines · b, layer j.
    let area = lines * lines;
    let mut values = Vec::with_capacity(area * layers);
    for j in 0..layers {
        values.extend(grounds.iter().map(|&ground| ground - y(j)));
    }

    // The volume where it may differ: lines with a share, heights in their band.
    // Each point's place in `values`, and its line's share.
    let band = ((volume.below + volume.above) / ts) as usize + 3;
    let shared = shares.iter().filter(|&&t| t > 0.0).count();
    let mut at: Vec<(usize, f64)> = Vec::with_capacity(shared * band);
    let [mut px, mut py, mut pz, mut pg] =
        std::array::from_fn(|_| Vec::with_capacity(shared * band));
    for (n, (&share, &ground)) in shares.iter().zip(grounds.iter()).enumerate() {
        if share == 0.0 {
            continue;
        }
        // The band's layers, a layer wider each way before the exact test.
        let layer = |h: f64| (h / ts).floor() as i64 - bottom;
        let from = (layer(ground - volume.below) - 1).max(0) as usize;
        let to = ((layer(ground + volume.above) + 2).max(0) as usize).min(layers);
        for j in (from..to).filter(|&j| volume.in_band(y(j), ground)) {
            at.push((n + area * j, share));
            px.push(xs[n]);
            py.push(y(j));
            pz.push(zs[n]);
            pg.push(ground);
        }
    }
    let mut solid = vec![0.0; at.len()];
    for start in (0..at.len()).step_by(CANCEL_BLOCK) {
        if cancel.load(Ordering::Relaxed) {
            return Err(ChunkError::Cancelled);
        }
        std::thread::yield_now();
        let end = (start + CANCEL_BLOCK).min(at.len());
        let block = VolumePoints {
            xs: &px[start..end],
            ys: &py[start..end],
            zs: &pz[start..end],
            grounds: &pg[start..end],
        };
        volume
            .density
            .volume_values(block, cache, &mut solid[start..end]);
    }
    for (&(k, share), &v) in at.iter().zip(&solid) {
        values[k] = VolumeField::blend(values[k], share, v);
    }

    // A line is plain where every sample has the height field's sign.
    let mut plain = vec![true; area];
    for (j, layer) in values.chunks_exact(area).enumerate() {
        for ((plain, &value), &ground) in plain.iter_mut().zip(layer).zip(grounds.iter()) {
            *plain &= (value > 0.0) == (ground - y(j) > 0.0);
        }
    }
    let verts = lines - 1;
    let last = verts - 1;
    let stitched = |a: usize, b: usize| {
        let corners = [(0, 0), (last, 0), (0, last), (last, last)];
        let corner =
            (corners.iter().zip(stitch.corners)).any(|(&c, flagged)| flagged && c == (a, b));
        let s = stitch.sides;
        corner || (s[0] && a == 0) || (s[1] && a == last) || (s[2] && b == 0) || (s[3] && b == last)
    };
    let merged: Vec<Option<u32>> = (0..verts * verts)
        .map(|n| {
            let (a, b) = (n % verts, n / verts);
            let column_plain = [(a, b), (a + 1, b), (a, b + 1), (a + 1, b + 1)]
                .iter()
                .all(|&(i, k)| plain[i + lines * k]);
            (column_plain || stitched(a, b)).then_some(n as u32)
        })
        .collect();
    if merged.iter().all(Option::is_some) {
        return Ok(());
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
    let mesh = mesh_volume_merged(
        &sampled,
        owned,
        MergedColumns {
            vertices: &merged,
            first: chunk.positions.len() as u32,
        },
    )
    .expect("the chunk's grid has the sizes and columns it meshes");

    let origin = chunk.origin;
    let round = |v: f64| (v * POSITION_STEPS).round() / POSITION_STEPS;
    for ((position, normal), cell) in mesh.positions.iter().zip(&mesh.normals).zip(&mesh.cells) {
        // The grid's positions are whole steps from line 0's, half a tile before the vertices.
        let world = [position[0] + ts / 2.0, position[1], position[2] + ts / 2.0];
        let relative = [
            (round(world[0]) - origin[0]) as f32,
            round(world[1]) as f32,
            (round(world[2]) - origin[1]) as f32,
        ];
        chunk.min_height = chunk.min_height.min(relative[1]);
        chunk.max_height = chunk.max_height.max(relative[1]);
        chunk.positions.push(relative);
        chunk.normals.push(normal.map(|v| v as f32));
        // The cell's own column's vertex lends it its ground's colour and biomes.
        let from = cell[2] * verts + cell[0];
        chunk.colors.push(chunk.colors[from]);
        chunk.land_colors.push(chunk.land_colors[from]);
        chunk.temperatures.push(chunk.temperatures[from]);
        chunk.covers.push(chunk.covers[from]);
        chunk.biomes.push(chunk.biomes[from]);
        chunk.biome_blends.push(chunk.biome_blends[from]);
    }
    chunk.indices = mesh.indices;
    chunk.volume = true;
    Ok(())
}
