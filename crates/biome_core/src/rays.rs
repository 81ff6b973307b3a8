//! Rays against the ground: where a ray first meets the surface full-detail chunks draw (the
//! triangles of [`tile_height`], over the generator's heights at the tile corners), anywhere,
//! loaded or not and without colliders: line of sight on a server, picking the ground under a
//! cursor, a projectile's landing point.

use crate::chunk::tile_height;
use crate::coords::ChunkLayout;
use crate::generator::WorldGenerator;

/// The longest ray [`WorldGenerator::cast_ray`] follows, in world units: its cost grows with
/// the tiles it crosses (two height samples a tile).
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
    /// How far along the ray, in world units; 0 for a ray that starts below the surface.
    pub distance: f64,
    /// The point on the surface.
    pub position: [f64; 3],
    /// The unit normal of the triangle hit, pointing up.
    pub normal: [f64; 3],
}

impl WorldGenerator {
    /// Where `ray` first meets the ground drawn with `layout` within `max_distance` (at most
    /// [`MAX_RAY_DISTANCE`]), or `None`: the triangles full-detail chunks draw, whose corner
    /// heights are [`WorldGenerator::height_at`] at the tile corners, the same surface as
    /// [`tile_height`] gives. A ray that starts below the surface hits at distance 0.
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
            size: layout.tile_size,
        };
        for span in TileWalk::new(ray.origin, direction, layout.tile_size, limit) {
            let corners = surface.corners(span.tile);
            if let Some(hit) = span.hit(&ray.origin, &direction, corners, layout.tile_size) {
                return Some(hit);
            }
        }
        None
    }
}

/// The generator's heights at tile corners.
struct TileSurface<'a> {
    generator: &'a WorldGenerator,
    size: f64,
}

impl TileSurface<'_> {
    /// `[h00, h10, h01, h11]` of tile `(i, j)`, as [`tile_height`] takes them.
    fn corners(&self, [i, j]: [i64; 2]) -> [f64; 4] {
        let h = |di: i64, dj: i64| {
            let x = (i + di) as f64 * self.size;
            let z = (j + dj) as f64 * self.size;
            self.generator.height_at(x, z)
        };
        [h(0, 0), h(1, 0), h(0, 1), h(1, 1)]
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
        let (u, v) = (
            (x / size - self.tile[0] as f64).clamp(0.0, 1.0),
            (z / size - self.tile[1] as f64).clamp(0.0, 1.0),
        );
        let [h00, h10, h01, h11] = corners;
        // The triangle's slopes along x and z, per world unit.
        let (sx, sz) = if u + v <= 1.0 {
            ((h10 - h00) / size, (h01 - h00) / size)
        } else {
            ((h11 - h01) / size, (h11 - h10) / size)
        };
        let length = (sx * sx + 1.0 + sz * sz).sqrt();
        GroundHit {
            distance: t,
            position: [x, tile_height(corners, u, v), z],
            normal: [-sx / length, 1.0 / length, -sz / length],
        }
    }
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
