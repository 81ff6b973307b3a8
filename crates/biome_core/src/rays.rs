//! Queries against the drawn ground: where a ray first meets the surface full-detail chunks
//! draw, and the floor under a point, anywhere, loaded or not and without colliders (line of
//! sight on a server, picking the ground under a cursor, a projectile's landing point, what a
//! body in a cave stands on). The surface is the chunks' own: the triangles of [`tile_height`]
//! over the generator's heights at the tile corners, and where the world's volume
//! ([`crate::terrain::VolumeSettings`]) changes the ground, the triangles its chunks mesh
//! there, rebuilt over the few columns around the query.

use crate::chunk::tile_height;
use crate::chunk::volume::{GroundTriangle, Heights, ground_patch};
use crate::coords::ChunkLayout;
use crate::generator::WorldGenerator;
use crate::regions::SiteCache;
use crate::scatter::CAVE_HEADROOM;

/// The longest ray [`WorldGenerator::cast_ray`] follows, in world units: its cost grows with
/// the tiles it crosses (two height samples a tile, and the volume's columns around a tile the
/// ray passes within the volume's band).
pub const MAX_RAY_DISTANCE: f64 = 65_536.0;

/// A ray: from `origin` along `direction` (any length but zero; hits are measured along its
/// unit direction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundRay {
    /// Where it starts.
    pub origin: [f64; 3],
    /// Where it goes.
    pub direction: [f64; 3],
}

/// Where a ray meets the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundHit {
    /// How far along the ray, in world units; 0 for a ray that starts inside the ground.
    pub distance: f64,
    /// The point on the surface (the ray's origin for a ray that starts inside a volume's
    /// solid).
    pub position: [f64; 3],
    /// The unit normal of the triangle hit, out of the solid (up for one that starts inside a
    /// volume's solid).
    pub normal: [f64; 3],
}

/// A floor of the drawn ground: a surface with solid under it and open space over it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundFloor {
    /// Its height, world units.
    pub height: f64,
    /// The unit normal of its triangle there, pointing up and out of the solid.
    pub normal: [f64; 3],
}

impl WorldGenerator {
    /// Where `ray` first meets the ground drawn with `layout` within `max_distance` (at most
    /// [`MAX_RAY_DISTANCE`]), or `None`: the triangles full-detail chunks draw, whose corner
    /// heights are [`WorldGenerator::height_at`] at the tile corners, the same surface as
    /// [`tile_height`] gives, and the volume's surface where it changes the ground (overhangs
    /// and cave roofs block the ray; a ray into a cave mouth goes in). A ray that starts inside
    /// the ground hits at distance 0.
    #[must_use]
    pub fn cast_ray(
        &self,
        ray: GroundRay,
        max_distance: f64,
        layout: &ChunkLayout,
    ) -> Option<GroundHit> {
        let [dx, dy, dz] = ray.direction;
        let length = (dx * dx + dy * dy + dz * dz).sqrt();
        if !(length > 0.0 && length.is_finite()) || ray.origin.iter().any(|c| !c.is_finite()) {
            return None;
        }
        let direction = [dx / length, dy / length, dz / length];
        let limit = max_distance.clamp(0.0, MAX_RAY_DISTANCE);
        let surface = TileSurface {
            generator: self,
            layout,
        };
        for span in TileWalk::new(ray.origin, direction, layout.tile_size, limit) {
            let y = |t: f64| ray.origin[1] + direction[1] * t;
            let heights = Heights {
                low: y(span.enter).min(y(span.exit)),
                high: y(span.enter).max(y(span.exit)),
            };
            let hit = match surface.ground(span.tile, heights) {
                TileGround::Height(corners) => {
                    span.hit(&ray.origin, &direction, corners, layout.tile_size)
                }
                TileGround::Volume(triangles) => span.hit_triangles(&ray, &direction, &triangles),
            };
            if hit.is_some() {
                return hit;
            }
        }
        None
    }

    /// The floor under `(x, y, z)` (at `y` or below it) of the ground drawn with `layout`: the
    /// surface a body dropped there lands on, a cave's floor under its roof or the ground over
    /// it; `None` where the point lies inside the ground. Where the world has no volume it is
    /// the height field's surface, [`tile_height`] over the tile corners, whenever `y` is at
    /// or over it.
    #[must_use]
    pub fn ground_below(
        &self,
        x: f64,
        y: f64,
        z: f64,
        layout: &ChunkLayout,
    ) -> Option<GroundFloor> {
        if ![x, y, z].iter().all(|c| c.is_finite()) {
            return None;
        }
        TileSurface {
            generator: self,
            layout,
        }
        .floor_below(x, y, z)
    }

    /// The top of the ground drawn with `layout` at `(x, z)`: the floor open to the sky (an
    /// overhang's top where one reaches over the point), the height a thing stands on when it
    /// is put down from above. The height field's [`tile_height`] where the world has no
    /// volume.
    #[must_use]
    pub fn ground_top(&self, x: f64, z: f64, layout: &ChunkLayout) -> GroundFloor {
        let surface = TileSurface {
            generator: self,
            layout,
        };
        surface
            .floor_below(x, f64::INFINITY, z)
            // The lattice's tiles cover every point; only a point on the seam of two
            // triangles that floating-point splits both ways reads no triangle.
            .unwrap_or_else(|| {
                let tile = surface.tile_of(x, z);
                let corners = surface.corners(tile);
                TileFloor::of(tile, corners, layout.tile_size).at(x, z)
            })
    }
}

impl WorldGenerator {
    /// The drawn cave floor under every `(xs[k], zs[k])` that holds an object of a
    /// [`ScatterGround::CaveFloor`](crate::scatter::ScatterGround) layer, or `None`: the
    /// world's highest floor under the ground open to the sky with [`CAVE_HEADROOM`] of open
    /// space over it, as chunks drawn with `layout` show it and
    /// [`WorldGenerator::ground_below`] reads it. The volume's own floors find where to look;
    /// the drawn triangles there decide, so an object neither floats over the floor a player
    /// sees nor sinks into it: where the drawn floor has less room, or is steeper than
    /// `max_slope_degrees`, the point holds nothing (a lower floor is not tried).
    #[must_use]
    pub(crate) fn cave_ground(
        &self,
        xs: &[f64],
        zs: &[f64],
        max_slope_degrees: f64,
        layout: &ChunkLayout,
        cache: &SiteCache,
    ) -> Vec<Option<f64>> {
        let Some(volume) = self.volume() else {
            return vec![None; xs.len()];
        };
        let grounds = self.surface_heights(xs, zs, cache);
        let corner_grounds = |xs: &[f64], zs: &[f64]| self.surface_heights(xs, zs, cache);
        let floors = volume.cave_floors(xs, zs, &grounds, CAVE_HEADROOM, cache, &corner_grounds);
        let min_normal_y = crate::math::cos(max_slope_degrees.to_radians());
        let surface = TileSurface {
            generator: self,
            layout,
        };
        (floors.iter().zip(xs.iter().zip(zs)).zip(grounds.iter()))
            .map(|((&floor, (&x, &z)), &ground)| {
                // The drawn floor under the middle of the open space the volume has there.
                let middle = floor? + CAVE_HEADROOM / 2.0;
                let top = ground + volume.above;
                let drawn = surface.cave_floor_below(x, middle, z, top, CAVE_HEADROOM)?;
                (drawn.normal[1] >= min_normal_y).then_some(drawn.height)
            })
            .collect()
    }
}

/// How far over a floor its roof is looked for, world units: clear of the floor's own
/// triangles, which meet the vertical line at its height.
const ROOF_LIFT: f64 = 1e-6;

/// The drawn ground over one tile.
enum TileGround {
    /// The height field's two triangles, from their corner heights `[h00, h10, h01, h11]`.
    Height([f64; 4]),
    /// The triangles the volume makes over the tile (and beside it).
    Volume(Vec<GroundTriangle>),
}

/// The generator's ground on `layout`'s tile lattice.
struct TileSurface<'a> {
    generator: &'a WorldGenerator,
    layout: &'a ChunkLayout,
}

impl TileSurface<'_> {
    fn tile_of(&self, x: f64, z: f64) -> [i64; 2] {
        let size = self.layout.tile_size;
        [(x / size).floor() as i64, (z / size).floor() as i64]
    }

    /// `[h00, h10, h01, h11]` of tile `(i, j)`, as [`tile_height`] takes them.
    fn corners(&self, [i, j]: [i64; 2]) -> [f64; 4] {
        let size = self.layout.tile_size;
        let h = |di: i64, dj: i64| {
            let x = (i + di) as f64 * size;
            let z = (j + dj) as f64 * size;
            self.generator.height_at(x, z)
        };
        [h(0, 0), h(1, 0), h(0, 1), h(1, 1)]
    }

    /// The ground over `tile`, as far as `heights` need it.
    fn ground(&self, tile: [i64; 2], heights: Heights) -> TileGround {
        match ground_patch(self.generator, self.layout, tile, heights) {
            Some(triangles) => TileGround::Volume(triangles),
            None => TileGround::Height(self.corners(tile)),
        }
    }

    /// The floor a volume's triangles draw under `(x, y, z)` (finite) with at least `headroom`
    /// of open space up to the first of them over it, that roof no higher than `top`: the floor
    /// and its roof read from the one patch of triangles around the point. `None` where the
    /// tile is the height field's (open to the sky), or there is no such floor.
    fn cave_floor_below(
        &self,
        x: f64,
        y: f64,
        z: f64,
        top: f64,
        headroom: f64,
    ) -> Option<GroundFloor> {
        let TileGround::Volume(triangles) = self.ground(self.tile_of(x, z), Heights::ALL) else {
            return None;
        };
        let floor = floor_under(&triangles, x, y, z)?;
        let roof = (triangles.iter())
            .filter_map(|triangle| vertical_crossing(triangle, x, z))
            .map(|crossing| crossing.height)
            .filter(|&height| height > floor.height + ROOF_LIFT && height <= top)
            .min_by(f64::total_cmp)?;
        (roof - floor.height >= headroom).then_some(floor)
    }

    /// [`WorldGenerator::ground_below`] at a finite `x`, `z` (any `y`).
    fn floor_below(&self, x: f64, y: f64, z: f64) -> Option<GroundFloor> {
        let tile = self.tile_of(x, z);
        match self.ground(tile, Heights::ALL) {
            TileGround::Height(corners) => {
                let floor = TileFloor::of(tile, corners, self.layout.tile_size).at(x, z);
                (floor.height <= y).then_some(floor)
            }
            TileGround::Volume(triangles) => floor_under(&triangles, x, y, z),
        }
    }
}

/// The floor of `triangles` under `(x, y, z)`: the nearest crossing of the vertical line at or
/// under the point, if the solid lies under it; `None` if it is a roof (the point lies inside
/// the solid) or there is none.
fn floor_under(triangles: &[GroundTriangle], x: f64, y: f64, z: f64) -> Option<GroundFloor> {
    let nearest = triangles
        .iter()
        .filter_map(|triangle| vertical_crossing(triangle, x, z))
        .filter(|crossing| crossing.height <= y)
        .max_by(|a, b| a.height.total_cmp(&b.height))?;
    (nearest.normal[1] > 0.0).then_some(nearest)
}

/// Where the vertical line through `(x, z)` crosses `triangle`, with its unit normal; `None`
/// off it, or for a wall (no up or down to it).
fn vertical_crossing(triangle: &GroundTriangle, x: f64, z: f64) -> Option<GroundFloor> {
    let [p, q, r] = *triangle;
    let normal = triangle_normal(triangle)?;
    // Barycentric weights of (x, z) in the triangle seen from above.
    let area = (q[0] - p[0]) * (r[2] - p[2]) - (r[0] - p[0]) * (q[2] - p[2]);
    if area == 0.0 {
        return None;
    }
    let wq = ((x - p[0]) * (r[2] - p[2]) - (r[0] - p[0]) * (z - p[2])) / area;
    let wr = ((q[0] - p[0]) * (z - p[2]) - (x - p[0]) * (q[2] - p[2])) / area;
    let wp = 1.0 - wq - wr;
    // A point on an edge belongs to both triangles; a hair over it keeps seams closed.
    const EDGE: f64 = -1e-12;
    if wp < EDGE || wq < EDGE || wr < EDGE {
        return None;
    }
    Some(GroundFloor {
        height: wp * p[1] + wq * q[1] + wr * r[1],
        normal,
    })
}

/// The unit normal of `triangle` out of the solid (its corners counter-clockwise seen from
/// outside); `None` for a degenerate one.
fn triangle_normal(triangle: &GroundTriangle) -> Option<[f64; 3]> {
    let [p, q, r] = *triangle;
    let u = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
    let v = [r[0] - p[0], r[1] - p[1], r[2] - p[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    (length > 0.0).then(|| n.map(|c| c / length))
}

/// One height-field tile: its corner heights and place.
struct TileFloor {
    tile: [i64; 2],
    corners: [f64; 4],
    size: f64,
}

impl TileFloor {
    fn of(tile: [i64; 2], corners: [f64; 4], size: f64) -> Self {
        Self {
            tile,
            corners,
            size,
        }
    }

    /// The surface at `(x, z)` (clamped into the tile): its height and its triangle's normal.
    fn at(&self, x: f64, z: f64) -> GroundFloor {
        let (u, v) = (
            (x / self.size - self.tile[0] as f64).clamp(0.0, 1.0),
            (z / self.size - self.tile[1] as f64).clamp(0.0, 1.0),
        );
        let [h00, h10, h01, h11] = self.corners;
        // The triangle's slopes along x and z, per world unit.
        let (sx, sz) = if u + v <= 1.0 {
            ((h10 - h00) / self.size, (h01 - h00) / self.size)
        } else {
            ((h11 - h01) / self.size, (h11 - h10) / self.size)
        };
        let length = (sx * sx + 1.0 + sz * sz).sqrt();
        GroundFloor {
            height: tile_height(self.corners, u, v),
            normal: [-sx / length, 1.0 / length, -sz / length],
        }
    }
}

/// The part of a ray over one tile: from `enter` to `exit` along it.
#[derive(Clone, Copy, Debug)]
struct TileSpan {
    tile: [i64; 2],
    enter: f64,
    exit: f64,
}

impl TileSpan {
    /// Where the ray first meets the tile's two triangles within the span.
    fn hit(
        self,
        origin: &[f64; 3],
        direction: &[f64; 3],
        corners: [f64; 4],
        size: f64,
    ) -> Option<GroundHit> {
        let local = |t: f64| {
            let u = (origin[0] + direction[0] * t) / size - self.tile[0] as f64;
            let v = (origin[2] + direction[2] * t) / size - self.tile[1] as f64;
            (u, v)
        };
        // Above the surface is positive; each triangle's surface is a plane, so this is linear
        // in t within a triangle.
        let above = |t: f64| {
            let (u, v) = local(t);
            origin[1] + direction[1] * t
                - tile_height(corners, u.clamp(0.0, 1.0), v.clamp(0.0, 1.0))
        };
        // The ray crosses the diagonal u + v = 1 at most once inside the tile.
        let (u0, v0) = local(self.enter);
        let (u1, v1) = local(self.exit);
        let (s0, s1) = (u0 + v0 - 1.0, u1 + v1 - 1.0);
        let split = if (s0 < 0.0) != (s1 < 0.0) {
            self.enter + (self.exit - self.enter) * s0 / (s0 - s1)
        } else {
            self.exit
        };
        let pieces = [(self.enter, split), (split, self.exit)];
        for (k, &(from, to)) in pieces.iter().enumerate() {
            // The second piece is empty when the ray stays in one triangle.
            if k == 1 && to <= from {
                break;
            }
            let (a, b) = (above(from), above(to));
            if a <= 0.0 {
                return Some(self.hit_at(from, origin, direction, corners, size));
            }
            if b <= 0.0 {
                let t = from + (to - from) * a / (a - b);
                return Some(self.hit_at(t, origin, direction, corners, size));
            }
        }
        None
    }

    fn hit_at(
        self,
        t: f64,
        origin: &[f64; 3],
        direction: &[f64; 3],
        corners: [f64; 4],
        size: f64,
    ) -> GroundHit {
        let x = origin[0] + direction[0] * t;
        let z = origin[2] + direction[2] * t;
        let floor = TileFloor::of(self.tile, corners, size).at(x, z);
        GroundHit {
            distance: t,
            position: [x, floor.height, z],
            normal: floor.normal,
        }
    }

    /// Where the ray first meets `triangles` (the volume's, over this span's tile) within the
    /// span; at its start if the ray starts there inside the solid.
    fn hit_triangles(
        self,
        ray: &GroundRay,
        direction: &[f64; 3],
        triangles: &[GroundTriangle],
    ) -> Option<GroundHit> {
        let [x, y, z] = ray.origin;
        if self.enter == 0.0 && floor_under(triangles, x, y, z).is_none() {
            return Some(GroundHit {
                distance: 0.0,
                position: ray.origin,
                normal: [0.0, 1.0, 0.0],
            });
        }
        let (t, triangle) = triangles
            .iter()
            .filter_map(|triangle| {
                let t = ray_triangle(&ray.origin, direction, triangle)?;
                (self.enter..=self.exit)
                    .contains(&t)
                    .then_some((t, triangle))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))?;
        Some(GroundHit {
            distance: t,
            position: std::array::from_fn(|a| ray.origin[a] + direction[a] * t),
            normal: triangle_normal(triangle).unwrap_or([0.0, 1.0, 0.0]),
        })
    }
}

/// How far along the unit `direction` from `origin` the ray crosses `triangle`, from either
/// side (Möller and Trumbore); `None` if it passes by or runs along it.
fn ray_triangle(origin: &[f64; 3], direction: &[f64; 3], triangle: &GroundTriangle) -> Option<f64> {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let [p, q, r] = *triangle;
    let (e1, e2) = (sub(q, p), sub(r, p));
    let h = cross(*direction, e2);
    let det = dot(e1, h);
    if det == 0.0 {
        return None;
    }
    let s = sub(*origin, p);
    let u = dot(s, h) / det;
    let qv = cross(s, e1);
    let v = dot(*direction, qv) / det;
    // A ray through an edge meets both triangles; a hair over it keeps seams closed.
    const EDGE: f64 = -1e-12;
    if u < EDGE || v < EDGE || u + v > 1.0 - EDGE {
        return None;
    }
    Some(dot(e2, qv) / det)
}

/// The tiles a ray crosses in x and z, in order, each with its span along the ray
/// (Amanatides and Woo's grid walk).
struct TileWalk {
    tile: [i64; 2],
    /// Per axis (x, z): the step between tiles, the distance along the ray to the next tile
    /// border, and the distance between borders.
    step: [i64; 2],
    next: [f64; 2],
    delta: [f64; 2],
    at: f64,
    limit: f64,
}

impl TileWalk {
    fn new(origin: [f64; 3], direction: [f64; 3], size: f64, limit: f64) -> Self {
        let axes = [0, 2];
        let tile = axes.map(|a| (origin[a] / size).floor() as i64);
        let mut step = [0; 2];
        let mut next = [f64::INFINITY; 2];
        let mut delta = [f64::INFINITY; 2];
        for (k, &a) in axes.iter().enumerate() {
            let d = direction[a];
            if d > 0.0 {
                step[k] = 1;
                next[k] = ((tile[k] + 1) as f64 * size - origin[a]) / d;
                delta[k] = size / d;
            } else if d < 0.0 {
                step[k] = -1;
                next[k] = (tile[k] as f64 * size - origin[a]) / d;
                delta[k] = -size / d;
            }
        }
        Self {
            tile,
            step,
            next,
            delta,
            at: 0.0,
            limit,
        }
    }
}

impl Iterator for TileWalk {
    type Item = TileSpan;

    fn next(&mut self) -> Option<TileSpan> {
        if self.at > self.limit {
            return None;
        }
        let k = usize::from(self.next[1] < self.next[0]);
        let exit = self.next[k].min(self.limit);
        let span = TileSpan {
            tile: self.tile,
            enter: self.at,
            exit,
        };
        self.at = if exit >= self.limit {
            f64::INFINITY
        } else {
            self.tile[k] += self.step[k];
            self.next[k] += self.delta[k];
            exit
        };
        Some(span)
    }
}
