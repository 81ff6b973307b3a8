//! Infinite Voronoi regions: one jittered site per grid cell, seeded by the cell's coordinates,
//! so any point finds its two nearest sites (F1, F2) without generating the whole map.

use serde::{Deserialize, Serialize};

use super::{SettingsError, clamp_coordinate, limits, number_problem};
use crate::density::Sites;
use crate::hash::{hash_cell, salt, unit};

/// A region, named by the grid cell that holds its site.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct RegionId {
    /// Cell column.
    pub x: i64,
    /// Cell row.
    pub z: i64,
}

/// The two regions nearest to a point, with the distances to their sites.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionPair {
    /// The nearest region.
    pub nearest: RegionId,
    /// The second-nearest region.
    pub second: RegionId,
    /// Distance to the nearest site (F1).
    pub d1: f64,
    /// Distance to the second-nearest site (F2).
    pub d2: f64,
}

/// The region sites of one world: cell `(x, z)` covers
/// `[x * cell_size, (x + 1) * cell_size) × [z * cell_size, (z + 1) * cell_size)` and holds one
/// site, pushed from the cell's centre by up to `jitter / 2` of a cell on each axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionGrid {
    seed: i64,
    cell_size: f64,
    jitter: f64,
}

/// Rings searched at most: with `jitter <= 1`, F2 of the 3 × 3 block is below `3 * cell_size`,
/// and every site in ring 4 or beyond is farther than that.
const MAX_RING: i64 = 3;

impl RegionGrid {
    /// The grid for `seed`, with cells `cell_size` wide and sites jittered by `jitter`.
    ///
    /// # Errors
    /// A `cell_size` outside [`limits::CELL_SIZE`] or a `jitter` outside [`limits::JITTER`]
    /// (named as in [`super::RegionSettings`]).
    pub fn new(seed: i64, cell_size: f64, jitter: f64) -> Result<Self, SettingsError> {
        for (field, value, range) in [
            ("regions.cell_size", cell_size, limits::CELL_SIZE),
            ("regions.jitter", jitter, limits::JITTER),
        ] {
            if let Some(reason) = number_problem(value, &range) {
                return Err(SettingsError {
                    field: field.to_owned(),
                    reason,
                });
            }
        }
        Ok(Self {
            seed,
            cell_size,
            jitter,
        })
    }

    /// Width of a cell, in world units.
    #[must_use]
    pub fn cell_size(&self) -> f64 {
        self.cell_size
    }

    /// The cell containing `(x, z)`.
    #[must_use]
    pub fn cell_of(&self, x: f64, z: f64) -> RegionId {
        RegionId {
            x: (x / self.cell_size).floor() as i64,
            z: (z / self.cell_size).floor() as i64,
        }
    }

    /// The site of `region`, in world units.
    #[must_use]
    pub fn site(&self, region: RegionId) -> [f64; 2] {
        let u = unit(hash_cell(self.seed, region.x, region.z, salt::SITE_X));
        let v = unit(hash_cell(self.seed, region.x, region.z, salt::SITE_Z));
        [
            (region.x as f64 + 0.5 + (u - 0.5) * self.jitter) * self.cell_size,
            (region.z as f64 + 0.5 + (v - 0.5) * self.jitter) * self.cell_size,
        ]
    }

    /// The two regions whose sites are nearest to `(x, z)`: exact, searching ring after ring of
    /// cells until no farther ring can hold a nearer site. Ties go to the smaller `(x, z)`.
    /// A point outside [`limits::COORDINATE`] (or NaN) is read where the world reads it.
    #[must_use]
    pub fn nearest_two(&self, x: f64, z: f64) -> RegionPair {
        self.nearest_two_with(x, z, |region| self.site(region))
    }

    /// [`RegionGrid::nearest_two`] with sites from `site` (a cache, say), which must agree with
    /// [`RegionGrid::site`].
    pub(crate) fn nearest_two_with(
        &self,
        x: f64,
        z: f64,
        site: impl Fn(RegionId) -> [f64; 2],
    ) -> RegionPair {
        // Inside the world's square the cell indices stay far from i64's ends.
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        let home = self.cell_of(x, z);
        let fx = x / self.cell_size - home.x as f64;
        let fz = z / self.cell_size - home.z as f64;
        let low = 0.5 - self.jitter / 2.0;
        let mut best = [(f64::INFINITY, home), (f64::INFINITY, home)];
        for ring in 0..=MAX_RING {
            if ring > 0 {
                // No site in this ring is nearer than the nearer of its x and z bands.
                let r = ring as f64;
                let band_x = (r + low - fx).min(r - 1.0 + low + fx);
                let band_z = (r + low - fz).min(r - 1.0 + low + fz);
                if band_x.min(band_z) * self.cell_size > best[1].0 {
                    break;
                }
            }
            for_ring(home, ring, |region| {
                let [sx, sz] = site(region);
                let (dx, dz) = (x - sx, z - sz);
                offer(&mut best, ((dx * dx + dz * dz).sqrt(), region));
            });
        }
        RegionPair {
            nearest: best[0].1,
            second: best[1].1,
            d1: best[0].0,
            d2: best[1].0,
        }
    }
}

/// Calls `visit` for every cell at Chebyshev distance `ring` from `home`.
fn for_ring(home: RegionId, ring: i64, mut visit: impl FnMut(RegionId)) {
    for dz in -ring..=ring {
        let on_edge = dz.abs() == ring;
        let step = if on_edge { 1 } else { 2 * ring.max(1) };
        let mut dx = -ring;
        while dx <= ring {
            visit(RegionId {
                x: home.x + dx,
                z: home.z + dz,
            });
            dx += step;
        }
    }
}

/// Keeps the two smallest `(distance, region)` pairs, ordered by distance, then by region.
fn offer(best: &mut [(f64, RegionId); 2], candidate: (f64, RegionId)) {
    let less = |a: &(f64, RegionId), b: &(f64, RegionId)| a.0 < b.0 || (a.0 == b.0 && a.1 < b.1);
    if less(&candidate, &best[0]) {
        best[1] = best[0];
        best[0] = candidate;
    } else if less(&candidate, &best[1]) {
        best[1] = candidate;
    }
}

impl Sites for RegionGrid {
    fn nearest_distance(&self, x: f64, z: f64) -> f64 {
        self.nearest_two(x, z).d1
    }
}

/// The sites of a rectangle of cells, computed once, for the many lookups of one chunk. Cells
/// outside the rectangle fall back to [`RegionGrid::site`], so answers never depend on the cache.
#[derive(Clone, Debug)]
pub(crate) struct SiteCache {
    grid: RegionGrid,
    min: RegionId,
    width: i64,
    height: i64,
    sites: Vec<[f64; 2]>,
}

impl SiteCache {
    /// Caches every cell touching `[x0, x1] × [z0, z1]` grown by `margin` cells; an area too
    /// large (or not finite) is left to the fallback.
    pub(crate) fn covering(
        grid: RegionGrid,
        x0: f64,
        z0: f64,
        x1: f64,
        z1: f64,
        margin: i64,
    ) -> Self {
        // Enough for the largest chunk over the smallest regions (256 tiles of 256 units, 8-unit
        // cells, with margins): about 2 MiB of sites.
        const MAX_CELLS: i64 = 1 << 17;
        let [x0, z0, x1, z1] = [x0, z0, x1, z1].map(clamp_coordinate);
        let a = grid.cell_of(x0, z0);
        let b = grid.cell_of(x1, z1);
        let min = RegionId {
            x: a.x - margin,
            z: a.z - margin,
        };
        let finite = [x0, z0, x1, z1].iter().all(|v| v.is_finite());
        let mut width = b.x.saturating_sub(a.x).saturating_add(2 * margin + 1);
        let mut height = b.z.saturating_sub(a.z).saturating_add(2 * margin + 1);
        if !finite || width <= 0 || height <= 0 || width.saturating_mul(height) > MAX_CELLS {
            (width, height) = (0, 0);
        }
        let mut sites = Vec::with_capacity((width * height) as usize);
        for z in 0..height {
            for x in 0..width {
                sites.push(grid.site(RegionId {
                    x: min.x + x,
                    z: min.z + z,
                }));
            }
        }
        Self {
            grid,
            min,
            width,
            height,
            sites,
        }
    }

    pub(crate) fn site(&self, region: RegionId) -> [f64; 2] {
        match self.index(region) {
            Some(i) => self.sites[i],
            None => self.grid.site(region),
        }
    }

    /// The number of cells cached.
    pub(crate) fn cells(&self) -> usize {
        self.sites.len()
    }

    /// Where `region`'s site sits in the cache, if it is cached.
    #[inline]
    pub(crate) fn index(&self, region: RegionId) -> Option<usize> {
        let x = region.x.wrapping_sub(self.min.x);
        let z = region.z.wrapping_sub(self.min.z);
        ((0..self.width).contains(&x) && (0..self.height).contains(&z))
            .then(|| (z * self.width + x) as usize)
    }

    pub(crate) fn nearest_two(&self, x: f64, z: f64) -> RegionPair {
        self.grid.nearest_two_with(x, z, |region| self.site(region))
    }
}

impl Sites for SiteCache {
    fn nearest_distance(&self, x: f64, z: f64) -> f64 {
        self.nearest_two(x, z).d1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(grid: &RegionGrid, x: f64, z: f64, reach: i64) -> RegionPair {
        let home = grid.cell_of(x, z);
        let mut best = [(f64::INFINITY, home), (f64::INFINITY, home)];
        for cz in home.z - reach..=home.z + reach {
            for cx in home.x - reach..=home.x + reach {
                let region = RegionId { x: cx, z: cz };
                let [sx, sz] = grid.site(region);
                let (dx, dz) = (x - sx, z - sz);
                offer(&mut best, ((dx * dx + dz * dz).sqrt(), region));
            }
        }
        RegionPair {
            nearest: best[0].1,
            second: best[1].1,
            d1: best[0].0,
            d2: best[1].0,
        }
    }

    #[test]
    fn rings_visit_each_cell_once() {
        let mut seen = std::collections::HashSet::new();
        for ring in 0..=3 {
            for_ring(RegionId { x: 5, z: -2 }, ring, |r| assert!(seen.insert(r)));
        }
        assert_eq!(seen.len(), 49);
    }

    #[test]
    fn nearest_two_equals_brute_force_for_every_jitter() {
        for (seed, jitter) in [(1, 0.0), (2, 0.5), (3, 0.9), (4, 1.0)] {
            let grid = RegionGrid::new(seed, 37.5, jitter).unwrap();
            let mut state = seed as u64;
            for _ in 0..4000 {
                state = crate::hash::hash_cell(7, state as i64, 0, 0);
                let x = (crate::hash::unit(state) - 0.5) * 4000.0;
                let z = (crate::hash::unit(state.rotate_left(29)) - 0.5) * 4000.0;
                assert_eq!(
                    grid.nearest_two(x, z),
                    brute_force(&grid, x, z, 6),
                    "at ({x}, {z})"
                );
            }
        }
    }

    #[test]
    fn sites_stay_inside_their_cells() {
        let grid = RegionGrid::new(11, 100.0, 1.0).unwrap();
        for x in -20..20 {
            for z in -20..20 {
                let region = RegionId { x, z };
                let [sx, sz] = grid.site(region);
                assert_eq!(grid.cell_of(sx, sz), region);
            }
        }
    }

    #[test]
    fn far_coordinates_are_exact_too() {
        let grid = RegionGrid::new(5, 256.0, 1.0).unwrap();
        for &(x, z) in &[
            (1.0e7, -1.0e7),
            (-9_999_999.5, 9_999_123.25),
            (4.0e6, 3.0e6),
        ] {
            assert_eq!(grid.nearest_two(x, z), brute_force(&grid, x, z, 6));
        }
    }

    #[test]
    fn cache_answers_like_the_grid_inside_and_outside() {
        let grid = RegionGrid::new(8, 64.0, 0.8).unwrap();
        let cache = SiteCache::covering(grid, 0.0, 0.0, 128.0, 128.0, 1);
        for &(x, z) in &[(10.0, 10.0), (127.0, 3.0), (-500.0, 900.0)] {
            assert_eq!(cache.nearest_two(x, z), grid.nearest_two(x, z));
        }
    }

    #[test]
    fn far_and_non_finite_points_are_read_inside_the_world() {
        let grid = RegionGrid::new(1, 8.0, 1.0).unwrap();
        let edge = *limits::COORDINATE.end();
        assert_eq!(grid.nearest_two(f64::NAN, 0.0), grid.nearest_two(0.0, 0.0));
        assert_eq!(
            grid.nearest_two(f64::INFINITY, 1e300),
            grid.nearest_two(edge, edge)
        );
        assert_eq!(grid.nearest_two(-3e21, 5.0), grid.nearest_two(-edge, 5.0));
        assert!(grid.nearest_two(edge, -edge).d2.is_finite());
        let cache = SiteCache::covering(grid, -1e300, -1e300, 1e300, 1e300, 3);
        assert_eq!(cache.nearest_two(1e300, 2.0), grid.nearest_two(edge, 2.0));
    }

    #[test]
    fn bad_grids_are_refused_by_field() {
        assert_eq!(
            RegionGrid::new(1, 0.0, 0.5).unwrap_err().field,
            "regions.cell_size"
        );
        assert_eq!(
            RegionGrid::new(1, 64.0, f64::NAN).unwrap_err().field,
            "regions.jitter"
        );
    }
}
