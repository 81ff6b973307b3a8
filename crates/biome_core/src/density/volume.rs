//! The operations that read the height of their point, for volumes (3D density: caves,
//! overhangs, arches): [`Ground`], the distance below the world's surface, and two sources of
//! 3D noise, [`Fbm3`] and [`Tunnels`]. Every other operation works in a volume too, passing its
//! point's height on to its inputs; these three are refused in a height stack.
//!
//! In a volume positive is solid. Ground alone is the height field as a volume (solid below the
//! surface); adding a 3D term to it near the surface makes overhangs, and [`super::Min`] with a
//! term negative inside tunnels or chambers carves caves.

use std::sync::Arc;

use super::field::{Evaluate, Inputs, NoiseTables};
use super::ops::{FbmFields, Operation, number, optional, seed_offset, shape, shaped_fbm_bound};
use super::{Bounds, DensityFunctions, Field, Shape, Typical};
use crate::batch::FbmParams;
use crate::limits;
use crate::noise3::{NOISE3_SCALE, Simplex3};
use crate::scratch::Scratch;
use crate::tutorial::{js_max, js_min};

/// A proven bound of one [`Simplex3::noise`] value: each of its four corners adds at most
/// `76 · max over d of (0.5 - d²)⁴ · √2 · d = 76 / 3 · (4/9)⁴`, reached at `d² = 1/18` (the
/// 2D bound's argument, with four corners). Four times what the noise reaches (±0.99), as the
/// 2D bound is three times: validation may refuse a stack that would fit, never accept one
/// that does not.
const NOISE3_PROVEN_BOUND: f64 = 4.0 * NOISE3_SCALE / 3.0 * (256.0 / 6561.0) * (1.0 + 1e-12);

/// Where [`Tunnels`] reads its second field: the first's point moved this far in noise space,
/// so the two fields are independent without a second seed.
const SECOND_FIELD: [f64; 3] = [5.2, 1.3, 9.7];

/// How far below the ground its point lies, in world units: `ground - y`, within
/// ±[`limits::GROUND_REACH`]. Positive (solid) under the surface, negative above it: a volume of
/// this node alone is the height field.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {}

impl Operation for Ground {
    const INPUTS: &'static [&'static str] = &[];
    const READS_HEIGHT: bool = true;

    fn template() -> Self {
        Self {}
    }

    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {}

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        Bounds::new(-limits::GROUND_REACH, limits::GROUND_REACH)
    }

    fn compile(&self, _: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(*self)
    }
}

impl Ground {
    fn depth(ground: f64, y: f64) -> f64 {
        let reach = limits::GROUND_REACH;
        js_min(reach, js_max(-reach, ground - y))
    }
}

impl Evaluate for Ground {
    fn value(&self, _: f64, _: f64, inputs: &Inputs<'_>) -> f64 {
        let height = inputs.height();
        Self::depth(height.ground, height.y)
    }

    fn values(&self, xs: &[f64], _: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        let (ys, grounds) = inputs.heights(xs.len());
        for ((v, &y), &ground) in out.iter_mut().zip(ys.iter()).zip(grounds.iter()) {
            *v = Self::depth(ground, y);
        }
    }
}

/// 3D Simplex fBm ([`Simplex3::fbm`]) at `(x * scale, y * scale * vertical, z * scale)`,
/// shaped.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fbm3 {
    /// Added to the world seed for this node's noise.
    pub seed_offset: i64,
    /// Frequency in 1 / world units: the feature size is about `1 / scale`.
    pub scale: f64,
    /// Layers of noise (1 to 16).
    pub octaves: u32,
    /// Amplitude factor per octave.
    pub persistence: f64,
    /// Frequency factor per octave.
    pub lacunarity: f64,
    /// How many times faster the noise varies along `y` than across: 2 makes features half as
    /// tall as they are wide (flat chambers, ledges).
    pub vertical: f64,
    /// Normal, ridged or billow.
    pub shape: Shape,
}

impl Operation for Fbm3 {
    const INPUTS: &'static [&'static str] = &[];
    const READS_HEIGHT: bool = true;

    fn template() -> Self {
        Self {
            seed_offset: 0,
            scale: 0.0,
            octaves: 4,
            persistence: 0.5,
            lacunarity: 2.0,
            vertical: 1.0,
            shape: Shape::Normal,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        FbmFields {
            seed_offset: &mut self.seed_offset,
            scale: &mut self.scale,
            octaves: &mut self.octaves,
            persistence: &mut self.persistence,
            lacunarity: &mut self.lacunarity,
        }
        .visit(visit);
        visit(vertical(&mut self.vertical));
        visit(shape(&mut self.shape));
    }

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        shaped_fbm_bound(self.shape, NOISE3_PROVEN_BOUND)
    }

    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(Fbm3Kernel {
            noise: noise.get_3d(self.seed_offset),
            scale: Scale3::new(self.scale, self.vertical),
            params: FbmParams {
                octaves: self.octaves,
                persistence: self.persistence,
                lacunarity: self.lacunarity,
            },
            shape: self.shape,
        })
    }
}

fn vertical(value: &mut f64) -> Field<'_> {
    optional(number(
        "vertical",
        value,
        limits::VERTICAL,
        Typical::Factor(0.25..=4.0),
    ))
}

/// A 3D node's frequencies: across, and along `y`.
#[derive(Clone, Copy, Debug)]
struct Scale3 {
    across: f64,
    along_y: f64,
}

impl Scale3 {
    fn new(scale: f64, vertical: f64) -> Self {
        Self {
            across: scale,
            along_y: scale * vertical,
        }
    }

    /// The noise-space point of `(x, y, z)`.
    fn point(self, x: f64, y: f64, z: f64) -> [f64; 3] {
        [x * self.across, y * self.along_y, z * self.across]
    }

    /// The noise-space points of a batch, as [`Scale3::point`] scales each.
    fn points(self, xs: &[f64], ys: &[f64], zs: &[f64]) -> [Scratch; 3] {
        [
            Scratch::collect(xs.iter().map(|x| x * self.across)),
            Scratch::collect(ys.iter().map(|y| y * self.along_y)),
            Scratch::collect(zs.iter().map(|z| z * self.across)),
        ]
    }
}

#[derive(Debug)]
struct Fbm3Kernel {
    noise: Arc<Simplex3>,
    scale: Scale3,
    params: FbmParams,
    shape: Shape,
}

impl Evaluate for Fbm3Kernel {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        let [x, y, z] = self.scale.point(x, inputs.height().y, z);
        self.shape.apply(self.noise.fbm(x, y, z, self.params))
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        let (ys, _) = inputs.heights(xs.len());
        let [sx, sy, sz] = self.scale.points(xs, &ys, zs);
        self.noise.fbm_points(&sx, &sy, &sz, self.params, out);
        if self.shape != Shape::Normal {
            out.iter_mut().for_each(|v| *v = self.shape.apply(*v));
        }
    }
}

/// Winding tunnels, in the spirit of Minecraft's "spaghetti" caves: two independent 3D noise
/// fields are near zero together along curves, and this is `sqrt(a² + b²) - radius`, negative
/// (hollow) within `radius` of those curves in noise units. Carve with [`super::Min`] against
/// the ground, scaled to world units.
#[cfg_attr(feature = "bevy_reflect", derive(bevy_reflect::Reflect))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tunnels {
    /// Added to the world seed for this node's noise.
    pub seed_offset: i64,
    /// Frequency in 1 / world units: tunnels wind over about `1 / scale`.
    pub scale: f64,
    /// How many times faster the noise varies along `y` than across: above 1, tunnels run more
    /// level.
    pub vertical: f64,
    /// How near zero both fields must be, in noise values: the tunnels widen as it grows
    /// (typically 0.05 to 0.15).
    pub radius: f64,
}

impl Operation for Tunnels {
    const INPUTS: &'static [&'static str] = &[];
    const READS_HEIGHT: bool = true;

    fn template() -> Self {
        Self {
            seed_offset: 0,
            scale: 0.0,
            vertical: 1.0,
            radius: 0.0,
        }
    }

    fn fields(&mut self, visit: &mut dyn FnMut(Field<'_>)) {
        visit(seed_offset(&mut self.seed_offset));
        visit(number(
            "scale",
            &mut self.scale,
            limits::SCALE,
            Typical::Frequency,
        ));
        visit(vertical(&mut self.vertical));
        visit(number(
            "radius",
            &mut self.radius,
            limits::TUNNEL_RADIUS,
            Typical::Even(0.02..=0.3),
        ));
    }

    fn bound(&self, _: &[Bounds], _: &DensityFunctions) -> Bounds {
        let length = std::f64::consts::SQRT_2 * NOISE3_PROVEN_BOUND;
        Bounds::new(-self.radius, length - self.radius)
    }

    fn compile(&self, noise: &mut NoiseTables) -> Arc<dyn Evaluate> {
        Arc::new(TunnelsKernel {
            noise: noise.get_3d(self.seed_offset),
            scale: Scale3::new(self.scale, self.vertical),
            radius: self.radius,
        })
    }
}

#[derive(Debug)]
struct TunnelsKernel {
    noise: Arc<Simplex3>,
    scale: Scale3,
    radius: f64,
}

impl TunnelsKernel {
    fn distance(&self, a: f64, b: f64) -> f64 {
        (a * a + b * b).sqrt() - self.radius
    }
}

impl Evaluate for TunnelsKernel {
    fn value(&self, x: f64, z: f64, inputs: &Inputs<'_>) -> f64 {
        let [x, y, z] = self.scale.point(x, inputs.height().y, z);
        let [dx, dy, dz] = SECOND_FIELD;
        let a = self.noise.noise(x, y, z);
        let b = self.noise.noise(x + dx, y + dy, z + dz);
        self.distance(a, b)
    }

    fn values(&self, xs: &[f64], zs: &[f64], inputs: &Inputs<'_>, out: &mut [f64]) {
        let (ys, _) = inputs.heights(xs.len());
        let [mut sx, mut sy, mut sz] = self.scale.points(xs, &ys, zs);
        self.noise.noise_points(&sx, &sy, &sz, out);
        let [dx, dy, dz] = SECOND_FIELD;
        for k in 0..xs.len() {
            sx[k] += dx;
            sy[k] += dy;
            sz[k] += dz;
        }
        let mut second = Scratch::zeroed(xs.len());
        self.noise.noise_points(&sx, &sy, &sz, &mut second);
        for (v, &b) in out.iter_mut().zip(second.iter()) {
            *v = self.distance(*v, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The proven bound is the analytic one (the constant is written as its factors).
    #[test]
    fn the_proven_noise_bound_holds_each_corners_largest_share() {
        let corner = |d2: f64| {
            let t = 0.5 - d2;
            NOISE3_SCALE * t * t * t * t * std::f64::consts::SQRT_2 * d2.sqrt()
        };
        let largest = (1..100_000)
            .map(|k| corner(f64::from(k) * 0.5 / 100_000.0))
            .fold(0.0, f64::max);
        assert!(largest * 4.0 <= NOISE3_PROVEN_BOUND);
        assert!(largest * 4.0 > NOISE3_PROVEN_BOUND * 0.999_999);
    }
}
