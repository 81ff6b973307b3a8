//! Infinite Voronoi regions: one jittered site per grid cell, seeded by the cell's coordinates,
//! so any point finds its two nearest sites (F1, F2) without generating the whole map.

use serde::{Deserialize, Serialize};

use crate::check::{Check, Checked, SettingsError, number_problem};
use crate::coords::clamp_coordinate;
use crate::density::Sites;
use crate::hash::{hash_cell, salt, unit};
use crate::limits;

/// A region, named by the grid cell that holds its site.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
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

impl RegionPair {
    /// The region a thing placed near a border belongs to, in the proportion the colour blends
    /// them ([`crate::tutorial::blend_weight`] over `blend_width`): the nearest when the draw
    /// `draw` (0 to 1) falls under its share, else the second. Trees and scatter use it.
    #[must_use]
    pub fn pick(&self, draw: f64, blend_width: f64) -> RegionId {
        if draw < crate::tutorial::blend_weight(self.d1, self.d2, blend_width) {
            self.nearest
        } else {
            self.second
        }
    }
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
    /// (named as in [`RegionSettings`]).
    pub fn new(seed: i64, cell_size: f64, jitter: f64) -> Result<Self, SettingsError> {
        for (field, value, range) in [
            ("regions.cell_size", cell_size, limits::CELL_SIZE),
            ("regions.jitter", jitter, limits::JITTER),
        ] {
            if let Some(reason) = number_problem(value, &range, "") {
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
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        let home = self.cell_of(x, z);
        self.nearest_two_around(x, z, home, |dx, dz| {
            self.site(RegionId {
                x: home.x + dx,
                z: home.z + dz,
            })
        })
    }

    /// [`RegionGrid::nearest_two`] for a point inside [`limits::COORDINATE`] in cell `home`,
    /// with the site of cell `home + (dx, dz)` from `site(dx, dz)` (a cache, say), which must
    /// agree with [`RegionGrid::site`]. Inside the world's square the cell indices stay far
    /// from `i64`'s ends.
    fn nearest_two_around(
        &self,
        x: f64,
        z: f64,
        home: RegionId,
        site: impl Fn(i64, i64) -> [f64; 2],
    ) -> RegionPair {
        self.search::<2>(x, z, home, site).pair()
    }

    /// The `N` nearest sites to `(x, z)` (in cell `home`), ring after ring of cells until no
    /// farther ring can hold a nearer one; `site` as for [`RegionGrid::nearest_two_around`].
    fn search<const N: usize>(
        &self,
        x: f64,
        z: f64,
        home: RegionId,
        site: impl Fn(i64, i64) -> [f64; 2],
    ) -> Search<N> {
        let mut search = Search::new(self, x, z, home);
        for ring in 0..=MAX_RING {
            if !search.may_hold_nearer(ring) {
                break;
            }
            search.offer_ring(ring, &site);
        }
        search
    }
}

/// One nearest-sites search: the `N` best `(distance, region)` so far, ordered by distance,
/// then by region. Whatever order sites are offered in, the answer is the exact `N` nearest
/// (`N` is at most 3: within [`MAX_RING`] rings, as the 3 × 3 block's nine sites show).
struct Search<const N: usize> {
    x: f64,
    z: f64,
    home: RegionId,
    /// The point's place in its cell, 0 to 1 on each axis.
    fx: f64,
    fz: f64,
    /// How close to a cell's edge its site can come, as a fraction of the cell.
    low: f64,
    cell_size: f64,
    best: [(f64, RegionId); N],
    /// Squared distances beyond this cannot enter the best `N`: the square root rises with
    /// its argument, and the margin covers rounding, so skipping them changes no answer (ties
    /// still go through `offer`); it saves most square roots.
    reach: f64,
}

impl<const N: usize> Search<N> {
    fn new(grid: &RegionGrid, x: f64, z: f64, home: RegionId) -> Self {
        Self {
            x,
            z,
            home,
            fx: x / grid.cell_size - home.x as f64,
            fz: z / grid.cell_size - home.z as f64,
            low: 0.5 - grid.jitter / 2.0,
            cell_size: grid.cell_size,
            best: [(f64::INFINITY, home); N],
            reach: f64::INFINITY,
        }
    }

    /// Whether a site in ring `ring` could be nearer than the last of the best: none is nearer
    /// than the nearer of the ring's x and z bands.
    fn may_hold_nearer(&self, ring: i64) -> bool {
        if ring == 0 {
            return true;
        }
        let r = ring as f64;
        let band_x = (r + self.low - self.fx).min(r - 1.0 + self.low + self.fx);
        let band_z = (r + self.low - self.fz).min(r - 1.0 + self.low + self.fz);
        band_x.min(band_z) * self.cell_size <= self.best[N - 1].0
    }

    fn offer_site(&mut self, dx: i64, dz: i64, [sx, sz]: [f64; 2]) {
        let (ex, ez) = (self.x - sx, self.z - sz);
        let squared = ex * ex + ez * ez;
        if squared <= self.reach {
            let region = RegionId {
                x: self.home.x + dx,
                z: self.home.z + dz,
            };
            offer(&mut self.best, (squared.sqrt(), region));
            let last = self.best[N - 1].0;
            self.reach = last * last * (1.0 + 1e-12);
        }
    }

    fn offer_ring(&mut self, ring: i64, site: &impl Fn(i64, i64) -> [f64; 2]) {
        for_ring(ring, |dx, dz| self.offer_site(dx, dz, site(dx, dz)));
    }

    fn pair(&self) -> RegionPair {
        RegionPair {
            nearest: self.best[0].1,
            second: self.best[1].1,
            d1: self.best[0].0,
            d2: self.best[1].0,
        }
    }
}

/// Calls `visit(dx, dz)` for every cell offset at Chebyshev distance `ring`.
#[inline]
fn for_ring(ring: i64, mut visit: impl FnMut(i64, i64)) {
    for dz in -ring..=ring {
        let on_edge = dz.abs() == ring;
        let step = if on_edge { 1 } else { 2 * ring.max(1) };
        let mut dx = -ring;
        while dx <= ring {
            visit(dx, dz);
            dx += step;
        }
    }
}

/// Whether `a` comes before `b`: nearer, or as near and the smaller region.
fn before(a: &(f64, RegionId), b: &(f64, RegionId)) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// Keeps the `N` smallest `(distance, region)` pairs, ordered by [`before`].
fn offer<const N: usize>(best: &mut [(f64, RegionId); N], candidate: (f64, RegionId)) {
    let mut at = N;
    while at > 0 && before(&candidate, &best[at - 1]) {
        at -= 1;
    }
    if at < N {
        best.copy_within(at..N - 1, at + 1);
        best[at] = candidate;
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
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        self.search::<2>(x, z).pair()
    }

    /// The `N` nearest sites to `(x, z)`, a point inside [`limits::COORDINATE`].
    fn search<const N: usize>(&self, x: f64, z: f64) -> Search<N> {
        let home = self.grid.cell_of(x, z);
        let (hx, hz) = (
            home.x.wrapping_sub(self.min.x),
            home.z.wrapping_sub(self.min.z),
        );
        let inside = |v: i64, len: i64| (MAX_RING..len - MAX_RING).contains(&v);
        if inside(hx, self.width) && inside(hz, self.height) {
            // Every cell the search can reach is cached: index the sites directly.
            let (width, centre) = (self.width, hz * self.width + hx);
            return self.grid.search(x, z, home, |dx, dz| {
                self.sites[(centre + dz * width + dx) as usize]
            });
        }
        self.grid.search(x, z, home, |dx, dz| {
            self.site(RegionId {
                x: home.x + dx,
                z: home.z + dz,
            })
        })
    }
}

/// Exact [`SiteCache::nearest_two`] lookups for a run of points that lie close together, like
/// the vertices of a chunk in order. Each point near the last one searched in full reuses that
/// search: its third-nearest site bounds how near any other site can come, and while the same
/// two sites stay nearer than that bound (with a margin far beyond rounding) they are the
/// answer, found with two distances instead of a search.
pub(crate) struct NearestTwoRun<'a> {
    cache: &'a SiteCache,
    anchor: Option<Anchor>,
}

/// The last full search of a [`NearestTwoRun`].
#[derive(Clone, Copy)]
struct Anchor {
    x: f64,
    z: f64,
    regions: [RegionId; 2],
    sites: [[f64; 2]; 2],
    /// Distance to the third-nearest site.
    third: f64,
}

impl<'a> NearestTwoRun<'a> {
    pub(crate) fn new(cache: &'a SiteCache) -> Self {
        Self {
            cache,
            anchor: None,
        }
    }

    pub(crate) fn nearest_two(&mut self, x: f64, z: f64) -> RegionPair {
        let (x, z) = (clamp_coordinate(x), clamp_coordinate(z));
        if let Some(anchor) = self.anchor {
            let (mx, mz) = (x - anchor.x, z - anchor.z);
            // Every other site was at least `third` from the anchor.
            let others = (anchor.third - (mx * mx + mz * mz).sqrt()) * (1.0 - 1e-9);
            let candidate = |k: usize| {
                let [sx, sz] = anchor.sites[k];
                let (ex, ez) = (x - sx, z - sz);
                ((ex * ex + ez * ez).sqrt(), anchor.regions[k])
            };
            let (a, b) = (candidate(0), candidate(1));
            let (near, far) = if before(&a, &b) { (a, b) } else { (b, a) };
            if far.0 < others {
                return RegionPair {
                    nearest: near.1,
                    second: far.1,
                    d1: near.0,
                    d2: far.0,
                };
            }
        }
        let search = self.cache.search::<3>(x, z);
        let regions = [search.best[0].1, search.best[1].1];
        self.anchor = Some(Anchor {
            x,
            z,
            regions,
            sites: regions.map(|region| self.cache.site(region)),
            third: search.best[2].0,
        });
        search.pair()
    }
}

impl Sites for SiteCache {
    fn nearest_distance(&self, x: f64, z: f64) -> f64 {
        self.nearest_two(x, z).d1
    }
}

/// Voronoi regions with wobbled, blended borders, as in the tutorial's Lab #4.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegionSettings {
    /// Width of the grid cells that each hold one region site, world units.
    pub cell_size: f64,
    /// How far sites stray from their cell's centre: 0 is a square grid, 1 is anywhere in the cell.
    pub jitter: f64,
    /// How far borders wander, world units.
    pub wobble: f64,
    /// Frequency of the wobble field, 1 / world units.
    pub wobble_scale: f64,
    /// Width over which neighbouring regions blend, world units.
    pub blend_width: f64,
}

impl Default for RegionSettings {
    fn default() -> Self {
        Self {
            cell_size: 320.0,
            jitter: 0.9,
            wobble: 45.0,
            wobble_scale: 0.008,
            blend_width: 30.0,
        }
    }
}

impl RegionSettings {
    pub(crate) fn check(&self, check: &Check) -> Checked {
        check.range("cell_size", self.cell_size, &limits::CELL_SIZE)?;
        check.range("jitter", self.jitter, &limits::JITTER)?;
        check.range("wobble", self.wobble, &limits::WOBBLE)?;
        check.range("wobble_scale", self.wobble_scale, &limits::SCALE)?;
        check.range("blend_width", self.blend_width, &limits::BLEND_WIDTH)
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
            for_ring(ring, |dx, dz| assert!(seen.insert((dx, dz))));
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

    /// Runs of points, near and far apart, in and out of the cached rectangle, against the grid.
    #[test]
    fn runs_answer_like_the_grid() {
        for (seed, jitter, cell) in [(3, 0.9, 64.0), (4, 1.0, 8.0), (5, 0.0, 100.0)] {
            let grid = RegionGrid::new(seed, cell, jitter).unwrap();
            let cache = SiteCache::covering(grid, -300.0, -300.0, 300.0, 300.0, 3);
            let mut run = NearestTwoRun::new(&cache);
            let mut state = seed as u64;
            for k in 0..20_000 {
                state = crate::hash::hash_cell(11, state as i64, k, 0);
                let jump = if k % 97 == 0 { 900.0 } else { 3.0 };
                let x = (k % 200) as f64 * 2.0 - 200.0 + (crate::hash::unit(state) - 0.5) * jump;
                let z = (k / 200) as f64 * 4.0 - 200.0
                    + (crate::hash::unit(state.rotate_left(17)) - 0.5) * jump;
                assert_eq!(
                    run.nearest_two(x, z),
                    grid.nearest_two(x, z),
                    "at ({x}, {z})"
                );
            }
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
