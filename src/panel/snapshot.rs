//! What the panel shows of the world around the camera: the minimap, one greyscale preview per
//! density node (of the height stack, and of the volume's mask), a vertical slice through the
//! camera per node of the volume, a sample of land points for the biome chart and, under a
//! multi-noise source, the climate points of the region sites around. Computed off the main
//! thread.

use biome_core::WorldGenerator;
use biome_core::density::{DensityField, VolumePoints};
use biome_core::multi_noise::ClimatePoint;
use biome_core::{RegionId, Rgb, Surface};

/// Pixels along a side of the minimap.
pub(super) const MINIMAP_SIZE: usize = 160;
/// Pixels along a side of a density-node preview.
pub(super) const PREVIEW_SIZE: usize = 48;
/// World units across a volume node's slice.
const SLICE_SPAN: f64 = 192.0;
/// Land points per side of the biome chart's sampling grid.
const DOT_GRID: usize = 24;

/// The panel's pictures of the world around one point.
#[derive(Clone, Debug)]
pub(super) struct Snapshot {
    /// World `(x, z)` at the centre.
    pub(super) center: [f64; 2],
    /// World units across the minimap.
    pub(super) span: f64,
    /// The minimap, RGBA, row by row from the smallest z.
    pub(super) minimap: Vec<u8>,
    /// One RGBA greyscale preview per density node, in pre-order.
    pub(super) previews: Vec<Vec<u8>>,
    /// Per node of the world's volume (none without one), in pre-order: a vertical slice along
    /// x through the centre, [`SLICE_SPAN`] across and the volume's band around the ground
    /// high, rock brown and hollows blue, the height field's surface a green line.
    pub(super) volume_previews: Vec<Vec<u8>>,
    /// Per node of the volume's mask, in pre-order, as `previews`.
    pub(super) mask_previews: Vec<Vec<u8>>,
    /// Land points: temperature, moisture and biome, for the biome chart.
    pub(super) dots: Vec<(f32, f32, usize)>,
    /// Under a multi-noise source, the region sites around: their climate points and biomes,
    /// nearest the centre first.
    pub(super) sites: Vec<(ClimatePoint, usize)>,
    /// The settings generation it was computed for.
    pub(super) generation: u64,
}

fn grid(center: [f64; 2], span: f64, side: usize) -> (Vec<f64>, Vec<f64>) {
    let step = span / side as f64;
    let start = [
        center[0] - span / 2.0 + step / 2.0,
        center[1] - span / 2.0 + step / 2.0,
    ];
    let mut xs = Vec::with_capacity(side * side);
    let mut zs = Vec::with_capacity(side * side);
    for j in 0..side {
        for i in 0..side {
            xs.push(start[0] + i as f64 * step);
            zs.push(start[1] + j as f64 * step);
        }
    }
    (xs, zs)
}

/// Computes the snapshot of `generator`'s world around `center`, the minimap `span` world units across.
#[must_use]
pub(super) fn compute(
    generator: &WorldGenerator,
    center: [f64; 2],
    span: f64,
    generation: u64,
) -> Snapshot {
    let (xs, zs) = grid(center, span, MINIMAP_SIZE);
    let samples = generator.sample_points(&xs, &zs);
    let mut minimap = Vec::with_capacity(samples.len() * 4);
    for (k, s) in samples.iter().enumerate() {
        let (i, j) = (k % MINIMAP_SIZE, k / MINIMAP_SIZE);
        let east = &samples[j * MINIMAP_SIZE + (i + 1).min(MINIMAP_SIZE - 1)];
        let south = &samples[(j + 1).min(MINIMAP_SIZE - 1) * MINIMAP_SIZE + i];
        let border = east.region != s.region || south.region != s.region;
        let shade = if border && !s.surface.is_water() {
            0.7
        } else {
            1.0
        };
        let Rgb(r, g, b) =
            Rgb::from_linear([s.color[0] * shade, s.color[1] * shade, s.color[2] * shade]);
        minimap.extend_from_slice(&[r, g, b, 255]);
    }

    let (px, pz) = grid(center, span / 2.0, PREVIEW_SIZE);
    let top_views = |density: &DensityField| -> Vec<Vec<u8>> {
        let mut values = vec![0.0; px.len()];
        (0..density.node_count())
            .map(|id| {
                density.values_of(id, &px, &pz, generator.regions(), &mut values);
                values
                    .iter()
                    .flat_map(|&v| {
                        let g = (((v + 1.0) / 2.0).clamp(0.0, 1.0) * 255.0).round() as u8;
                        [g, g, g, 255]
                    })
                    .collect()
            })
            .collect()
    };
    let previews = top_views(generator.density());
    let mask_previews = generator.volume_mask().map_or_else(Vec::new, top_views);

    let (dx, dz) = grid(center, span, DOT_GRID);
    let dots = generator
        .sample_points(&dx, &dz)
        .iter()
        .filter(|s| matches!(s.surface, Surface::Land | Surface::Snow | Surface::Beach))
        .map(|s| {
            (
                s.climate.temperature as f32,
                s.climate.moisture as f32,
                s.biome,
            )
        })
        .collect();

    Snapshot {
        center,
        span,
        minimap,
        previews,
        volume_previews: volume_slices(generator, center),
        mask_previews,
        dots,
        sites: site_points(generator, center, span),
        generation,
    }
}

/// The slices of [`Snapshot::volume_previews`]: [`PREVIEW_SIZE`] columns along x through
/// `center`, rows from the volume's band over the highest ground down to its foot under the
/// lowest.
fn volume_slices(generator: &WorldGenerator, center: [f64; 2]) -> Vec<Vec<u8>> {
    let (Some(density), Some(volume)) = (
        generator.volume_density(),
        generator.settings().terrain.volume.as_ref(),
    ) else {
        return Vec::new();
    };
    let side = PREVIEW_SIZE;
    let step = SLICE_SPAN / side as f64;
    let column_x: Vec<f64> = (0..side)
        .map(|i| center[0] - SLICE_SPAN / 2.0 + (i as f64 + 0.5) * step)
        .collect();
    let grounds: Vec<f64> = column_x
        .iter()
        .map(|&x| generator.height_at(x, center[1]))
        .collect();
    let (low, high) = grounds
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &g| {
            (lo.min(g), hi.max(g))
        });
    let (top, bottom) = (high + volume.above, low - volume.below);
    let rise = (top - bottom) / side as f64;
    // Row j (0 at the top) is the height at its pixel's centre.
    let row_y = |j: usize| top - (j as f64 + 0.5) * rise;
    let xs: Vec<f64> = (0..side * side).map(|k| column_x[k % side]).collect();
    let ys: Vec<f64> = (0..side * side).map(|k| row_y(k / side)).collect();
    let zs = vec![center[1]; side * side];
    let under: Vec<f64> = (0..side * side).map(|k| grounds[k % side]).collect();
    let points = VolumePoints {
        xs: &xs,
        ys: &ys,
        zs: &zs,
        grounds: &under,
    };
    let mut values = vec![0.0; xs.len()];
    (0..density.node_count())
        .map(|id| {
            density.volume_values_of(id, points, generator.regions(), &mut values);
            values
                .iter()
                .enumerate()
                .flat_map(|(k, &v)| {
                    let (i, j) = (k % side, k / side);
                    // The height field's surface: the row it passes through.
                    if (row_y(j) - grounds[i]).abs() <= rise / 2.0 {
                        return [90, 200, 90, 255];
                    }
                    // Deeper into rock or air, stronger colour.
                    let strength = 0.45 + 0.55 * v.abs() / (v.abs() + 4.0);
                    let tint = if v > 0.0 {
                        [200.0, 150.0, 100.0]
                    } else {
                        [70.0, 100.0, 160.0]
                    };
                    let [r, g, b] = tint.map(|c: f64| (c * strength).round() as u8);
                    [r, g, b, 255]
                })
                .collect()
        })
        .collect()
}

/// The climate points and biomes of the region sites within `span / 2` of `center` (on each
/// axis), nearest first; none under the biome table.
fn site_points(
    generator: &WorldGenerator,
    center: [f64; 2],
    span: f64,
) -> Vec<(ClimatePoint, usize)> {
    let grid = generator.regions();
    let low = grid.cell_of(center[0] - span / 2.0, center[1] - span / 2.0);
    let high = grid.cell_of(center[0] + span / 2.0, center[1] + span / 2.0);
    let mut sites = Vec::new();
    for z in low.z..=high.z {
        for x in low.x..=high.x {
            let region = RegionId { x, z };
            let [sx, sz] = grid.site(region);
            let Some(point) = generator.climate_point(sx, sz) else {
                return Vec::new();
            };
            let distance = (sx - center[0]).hypot(sz - center[1]);
            sites.push((distance, point, generator.region_biome(region)));
        }
    }
    sites.sort_by(|a, b| a.0.total_cmp(&b.0));
    sites
        .into_iter()
        .map(|(_, point, biome)| (point, biome))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use biome_core::WorldSettings;

    #[test]
    fn snapshot_has_every_picture() {
        let generator = WorldGenerator::new(WorldSettings::default()).unwrap();
        let snapshot = compute(&generator, [100.0, -50.0], 2000.0, 3);
        assert_eq!(snapshot.minimap.len(), MINIMAP_SIZE * MINIMAP_SIZE * 4);
        assert_eq!(snapshot.previews.len(), generator.density().node_count());
        assert!(
            snapshot
                .previews
                .iter()
                .all(|p| p.len() == PREVIEW_SIZE * PREVIEW_SIZE * 4)
        );
        assert!(
            snapshot
                .dots
                .iter()
                .all(|&(t, m, b)| (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&m) && b < 9)
        );
        assert!(snapshot.volume_previews.is_empty() && snapshot.mask_previews.is_empty());
    }

    /// With the `caves` preset, every node of its volume has a slice and every node of its mask
    /// a top view; the volume's slice through a cave shows rock, hollows under the ground and
    /// rock over it, where the height field alone would be hollow.
    #[test]
    fn volume_nodes_have_slices() {
        let caves =
            WorldSettings::from_ron(include_str!("../../assets/presets/caves.ron")).unwrap();
        let generator = WorldGenerator::new(caves).unwrap();
        // Inside the cave `walk --cave` finds from (-1092, -192).
        let snapshot = compute(&generator, [-1092.0, -192.0], 2000.0, 1);
        let density = generator.volume_density().unwrap();
        assert_eq!(snapshot.volume_previews.len(), density.node_count());
        assert_eq!(
            snapshot.mask_previews.len(),
            generator.volume_mask().unwrap().node_count()
        );
        let pixels = |preview: &Vec<u8>| -> Vec<[u8; 4]> {
            preview
                .chunks_exact(4)
                .map(|p| [p[0], p[1], p[2], p[3]])
                .collect()
        };
        let root = pixels(&snapshot.volume_previews[0]);
        assert_eq!(root.len(), PREVIEW_SIZE * PREVIEW_SIZE);
        let ground_rows: Vec<usize> = (0..PREVIEW_SIZE)
            .map(|i| {
                (0..PREVIEW_SIZE)
                    .find(|&j| root[j * PREVIEW_SIZE + i] == [90, 200, 90, 255])
                    .expect("every column marks the ground")
            })
            .collect();
        let rock = |p: [u8; 4]| p[0] > p[2];
        let air = |p: [u8; 4]| p[2] > p[0] && p[1] < 150;
        let (mut hollow_under, mut rock_over) = (0, 0);
        for (i, &ground) in ground_rows.iter().enumerate() {
            for j in 0..PREVIEW_SIZE {
                let p = root[j * PREVIEW_SIZE + i];
                hollow_under += usize::from(j > ground && air(p));
                rock_over += usize::from(j < ground && rock(p));
            }
        }
        assert!(
            hollow_under > 20 && rock_over > 10,
            "{hollow_under} hollow pixels under the ground, {rock_over} of rock over it"
        );
    }
}
