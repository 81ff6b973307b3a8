//! Rays against the drawn ground (`WorldGenerator::cast_ray`), held to a brute-force march over
//! the same triangles: no earlier crossing is missed, none the march finds is, and the hit lies on
//! the surface with its triangle's normal.

use std::cell::RefCell;
use std::collections::HashMap;

use biome_core::rays::{GroundHit, GroundRay};
use biome_core::{ChunkLayout, WorldGenerator, tile_height};
use proptest::prelude::*;

/// The drawn ground by brute force: the tile's corners from `height_at`, cached, and
/// `tile_height` between them.
struct Ground<'a> {
    world: &'a WorldGenerator,
    size: f64,
    corners: RefCell<HashMap<(i64, i64), f64>>,
}

impl<'a> Ground<'a> {
    fn new(world: &'a WorldGenerator, layout: &ChunkLayout) -> Self {
        Self {
            world,
            size: layout.tile_size,
            corners: RefCell::default(),
        }
    }

    fn corner(&self, i: i64, j: i64) -> f64 {
        *self.corners.borrow_mut().entry((i, j)).or_insert_with(|| {
            self.world
                .height_at(i as f64 * self.size, j as f64 * self.size)
        })
    }

    fn at(&self, x: f64, z: f64) -> f64 {
        let (i, j) = ((x / self.size).floor(), (z / self.size).floor());
        let (u, v) = (x / self.size - i, z / self.size - j);
        let (i, j) = (i as i64, j as i64);
        let corners = [
            self.corner(i, j),
            self.corner(i + 1, j),
            self.corner(i, j + 1),
            self.corner(i + 1, j + 1),
        ];
        tile_height(corners, u, v)
    }
}

fn unit(d: [f64; 3]) -> [f64; 3] {
    let length = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    d.map(|c| c / length)
}

fn point(ray: &GroundRay, t: f64) -> [f64; 3] {
    let d = unit(ray.direction);
    std::array::from_fn(|a| ray.origin[a] + d[a] * t)
}

/// Checks `hit` against a march of `step` along `ray` to `max`.
fn check_against_march(
    ground: &Ground<'_>,
    ray: &GroundRay,
    hit: Option<GroundHit>,
    max: f64,
    step: f64,
) -> Result<(), TestCaseError> {
    let below = |t: f64| {
        let p = point(ray, t);
        p[1] <= ground.at(p[0], p[2])
    };
    let steps = (max / step) as usize;
    let first = (0..=steps).map(|k| k as f64 * step).find(|&t| below(t));
    match (hit, first) {
        (None, None) => {}
        (None, Some(t)) => prop_assert!(false, "the march meets the ground at {t}, the ray not"),
        (Some(hit), first) => {
            if let Some(t) = first {
                prop_assert!(
                    hit.distance <= t + 1e-9,
                    "hit at {} after the march's {t}",
                    hit.distance
                );
            }
            // No earlier crossing missed: the march is above the ground before the hit.
            prop_assert!(first.is_none_or(|t| t + step >= hit.distance - 1e-9));
            let on_ray = point(ray, hit.distance);
            let surface = ground.at(hit.position[0], hit.position[2]);
            for a in [0, 2] {
                prop_assert!((on_ray[a] - hit.position[a]).abs() < 1e-6);
            }
            prop_assert!(
                (hit.position[1] - surface).abs() < 1e-6,
                "{hit:?} off the surface {surface}"
            );
            prop_assert!((on_ray[1] - surface).abs() < 1e-6 || hit.distance == 0.0);
            let n = hit.normal;
            prop_assert!(
                (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-12 && n[1] > 0.0
            );
            // The normal is the triangle's: a small step along the surface stays on its plane.
            let [x, _, z] = hit.position;
            let e = 1e-4;
            let (gx, gz) = (ground.at(x + e, z) - surface, ground.at(x, z + e) - surface);
            let slope = |g: f64, n_axis: f64| (g / e + n_axis / n[1]).abs();
            prop_assert!(
                slope(gx, n[0]) < 1e-3 || slope(gz, n[2]) < 1e-3 || hit.distance == 0.0,
                "normal {n:?} against slopes {} {}",
                gx / e,
                gz / e
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Rays down onto hills and along them from every side: the hit is the march's first
    /// crossing, on the surface.
    #[test]
    fn rays_meet_the_ground_where_a_march_does(
        x in -3000.0..3000.0f64,
        z in -3000.0..3000.0f64,
        above in -5.0..150.0f64,
        dx in -1.0..1.0f64,
        dz in -1.0..1.0f64,
        dip in -0.4..1.4f64,
    ) {
        let world = WorldGenerator::default();
        let layout = ChunkLayout::default();
        let ground = Ground::new(&world, &layout);
        let origin = [x, ground.at(x, z) + above, z];
        prop_assume!(dx * dx + dz * dz > 1e-4);
        let direction = [dx, -dip, dz];
        let ray = GroundRay { origin, direction };
        let max = 400.0;
        let hit = world.cast_ray(ray, max, &layout);
        check_against_march(&ground, &ray, hit, max, 0.01)?;
    }
}

#[test]
fn straight_down_up_and_from_below() {
    let world = WorldGenerator::default();
    let layout = ChunkLayout::default();
    let ground = Ground::new(&world, &layout);
    let (x, z) = (123.4, -56.7);
    let surface = ground.at(x, z);
    let down = GroundRay {
        origin: [x, surface + 500.0, z],
        direction: [0.0, -3.0, 0.0],
    };
    let hit = world
        .cast_ray(down, 1_000.0, &layout)
        .expect("the ground below");
    assert!((hit.distance - 500.0).abs() < 1e-9, "{hit:?}");
    assert_eq!([hit.position[0], hit.position[2]], [x, z]);
    assert!((hit.position[1] - surface).abs() < 1e-9);
    assert!(
        world.cast_ray(down, 499.0, &layout).is_none(),
        "beyond reach"
    );
    let up = GroundRay {
        direction: [0.0, 1.0, 0.0],
        ..down
    };
    assert!(world.cast_ray(up, 1_000.0, &layout).is_none());
    let buried = GroundRay {
        origin: [x, surface - 1.0, z],
        direction: [1.0, 0.0, 0.0],
    };
    assert_eq!(
        world.cast_ray(buried, 10.0, &layout).map(|h| h.distance),
        Some(0.0)
    );
    let nowhere = GroundRay {
        direction: [0.0; 3],
        ..down
    };
    assert!(world.cast_ray(nowhere, 10.0, &layout).is_none());
}
