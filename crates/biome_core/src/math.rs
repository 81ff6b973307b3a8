//! Transcendental functions for the world's values: [libm](https://docs.rs/libm)'s pure-Rust
//! implementations, the same code on every platform and compiler, so a seed gives the same bits
//! everywhere. The platform's own `sin`, `powf` and the like come from its C library and may
//! differ in the last bit between platforms, which would part the worlds of two players sharing
//! a seed (and break lockstep multiplayer). `clippy.toml` refuses the standard methods in this
//! crate; square roots, rounding and arithmetic are exact IEEE operations already.

/// `x` to the power `y`.
#[inline]
#[must_use]
pub(crate) fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// The sine of `x` radians.
#[inline]
#[must_use]
pub(crate) fn sin(x: f64) -> f64 {
    libm::sin(x)
}

/// The cosine of `x` radians.
#[inline]
#[must_use]
pub(crate) fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// The tangent of `x` radians.
#[inline]
#[must_use]
pub(crate) fn tan(x: f64) -> f64 {
    libm::tan(x)
}

/// `sqrt(x² + y²)` without overflow or underflow on the way.
#[inline]
#[must_use]
pub(crate) fn hypot(x: f64, y: f64) -> f64 {
    libm::hypot(x, y)
}

/// `x` to the power `y` in `f32`.
#[inline]
#[must_use]
pub(crate) fn powf(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

/// 0 at `edge0`, 1 at `edge1`, smooth between (either order); a step where the edges meet.
pub(crate) fn smoothstep(edge0: f64, edge1: f64, x: f64) -> f64 {
    if edge0 == edge1 {
        return if x < edge0 { 0.0 } else { 1.0 };
    }
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoothstep_with_meeting_edges_is_a_step() {
        assert_eq!(smoothstep(0.0, 0.0, 0.0), 1.0);
        assert_eq!(smoothstep(0.0, 0.0, -1e-9), 0.0);
        assert_eq!(smoothstep(0.0, 1.0, 0.5), 0.5);
        assert_eq!(smoothstep(1.0, 0.0, 0.25), 0.843_75);
    }
}
