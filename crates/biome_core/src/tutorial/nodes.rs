//! The tutorial's density nodes as closures: every node is a field `(x, y) -> value`, and every
//! node but the sources takes another node as input, so they chain like the tutorial's Lab #5.
//!
//! For a stack that can be saved, edited in a panel and evaluated in batches, use
//! [`crate::density::DensityNode`]; it gives the same bits.

use super::WarpParams;
use super::{Simplex, fbm, js_max, js_min, nearest_two, warp_offset};

/// Source node: fBm of `simplex` at `(x * scale, y * scale)`. The tutorial's default is 4 octaves.
pub fn simplex_node(simplex: Simplex, scale: f64, octaves: u32) -> impl Fn(f64, f64) -> f64 {
    move |x, y| fbm(&simplex, x * scale, y * scale, octaves, 0.5, 2.0)
}

/// Reads `input` at a point pushed by `strength` (world units) times two 3-octave fBm fields.
pub fn warp_node(
    input: impl Fn(f64, f64) -> f64,
    simplex: Simplex,
    strength: f64,
    scale: f64,
) -> impl Fn(f64, f64) -> f64 {
    let warp = WarpParams::wobble(strength, scale);
    move |x, y| {
        let [qx, qy] = warp_offset(&simplex, x, y, &warp);
        input(x + strength * qx, y + strength * qy)
    }
}

/// Clamps `input` to `low..=high` (JavaScript's `Math.min(high, Math.max(low, v))`).
pub fn clamp_node(
    input: impl Fn(f64, f64) -> f64,
    low: f64,
    high: f64,
) -> impl Fn(f64, f64) -> f64 {
    move |x, y| js_min(high, js_max(low, input(x, y)))
}

/// Source node: 1 at a site, falling to -1 at `radius` from the nearest site and beyond.
pub fn cell_node(sites: Vec<[f64; 2]>, radius: f64) -> impl Fn(f64, f64) -> f64 {
    move |x, y| 1.0 - 2.0 * js_min(1.0, nearest_two(&sites, x, y).d1 / radius)
}

/// Mixes `a` toward `b` by `amount` (0 is all `a`, 1 is all `b`).
pub fn mix_node(
    a: impl Fn(f64, f64) -> f64,
    b: impl Fn(f64, f64) -> f64,
    amount: f64,
) -> impl Fn(f64, f64) -> f64 {
    move |x, y| {
        let va = a(x, y);
        va + (b(x, y) - va) * amount
    }
}
