//! What the panel shows of the world around the camera: the minimap, one greyscale preview per
//! density node, a sample of land points for the biome chart and, under a multi-noise source,
//! the climate points of the region sites around. Computed off the main thread.

use biome_core::WorldGenerator;
use biome_core::multi_noise::ClimatePoint;
use biome_core::{RegionId, Rgb, Surface};

/// Pixels along a side of the minimap.
pub(super) const MINIMAP_SIZE: usize = 160;
/// Pixels along a side of a density-node preview.
pub(super) const PREVIEW_SIZE: usize = 48;
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
    let density = generator.density();
    let mut values = vec![0.0; px.len()];
    let previews = (0..density.node_count())
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
        .collect();

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
        dots,
        sites: site_points(generator, center, span),
        generation,
    }
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
    }
}
