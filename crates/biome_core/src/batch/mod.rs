//! Batch fast paths: the tutorial's noise, fBm and domain warp over many points at once.
//!
//! These fill caller-owned slices, allocate nothing, and run eight points per instruction on CPUs
//! with AVX-512, four with AVX2 (detected at run time; every other CPU takes the scalar path).
//! Every function here
//! gives the same bits as the scalar tutorial function it names, point for point (a NaN result is
//! NaN on both paths, its payload aside, as JavaScript knows a single NaN): the SIMD lanes
//! do the same IEEE operations in the same order, with no fused multiply-add. The tests in
//! `tests/batch.rs` hold both paths to that over many points.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

/// The fBm loop of a SIMD path, written once for every lane width: two vectors per step (their
/// noise chains are independent, so the CPU overlaps them), the same operations in the same order
/// as [`fbm`]. Points past the last whole pair of vectors are left to the scalar path; the loop
/// returns how many it filled. It expands inside a `#[target_feature]` function of the path,
/// with the path's `load`, `store` and noise helper in scope.
#[cfg(target_arch = "x86_64")]
macro_rules! fbm_pairs {
    (
        width: $width:expr, noise: $noise:ident,
        splat: $splat:ident, zero: $zero:ident, add: $add:ident, mul: $mul:ident, div: $div:ident,
        table: $table:expr, xs: $xs:expr, ys: $ys:expr, params: $params:expr, out: $out:expr $(,)?
    ) => {{
        const W: usize = $width;
        let (table, xs, ys, params, out) = ($table, $xs, $ys, $params, $out);
        let filled = xs.len().min(ys.len()).min(out.len()) / (2 * W) * (2 * W);
        let mut max_value = 0.0;
        let mut amplitude = 1.0;
        for _ in 0..params.octaves {
            max_value += amplitude;
            amplitude *= params.persistence;
        }
        let max_value = $splat(max_value);
        for k in (0..filled).step_by(2 * W) {
            let (xa, ya) = (load(&xs[k..k + W]), load(&ys[k..k + W]));
            let (xb, yb) = (load(&xs[k + W..k + 2 * W]), load(&ys[k + W..k + 2 * W]));
            let mut total_a = $zero();
            let mut total_b = $zero();
            let mut frequency = 1.0;
            let mut amplitude = 1.0;
            for i in 0..params.octaves {
                let offset = $splat(f64::from(i * 2));
                let f = $splat(frequency);
                let a = $splat(amplitude);
                let na = $noise(table, $mul($add(xa, offset), f), $mul($add(ya, offset), f));
                let nb = $noise(table, $mul($add(xb, offset), f), $mul($add(yb, offset), f));
                total_a = $add(total_a, $mul(na, a));
                total_b = $add(total_b, $mul(nb, a));
                amplitude *= params.persistence;
                frequency *= params.lacunarity;
            }
            store(&mut out[k..k + W], $div(total_a, max_value));
            store(&mut out[k + W..k + 2 * W], $div(total_b, max_value));
        }
        filled
    }};
}
#[cfg(target_arch = "x86_64")]
use fbm_pairs;

pub use crate::tutorial::{FbmParams, WarpParams};

#[cfg_attr(
    not(feature = "internals"),
    expect(
        unreachable_pub,
        reason = "public with the internals feature, for benchmarks"
    )
)]
mod backend;
use crate::tutorial::{LEVEL_TWO_FIELDS, Lanes, SECOND_FIELD, Simplex, fbm};
#[cfg(feature = "internals")]
pub use backend::Backend;
#[cfg(not(feature = "internals"))]
pub(crate) use backend::Backend;

/// A regular grid of sample points: point `(i, j)` is `(x0 + i * step, y0 + j * step)`, stored
/// row by row (`j * width + i`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// X of the first column.
    pub x0: f64,
    /// Y of the first row.
    pub y0: f64,
    /// Distance between neighbouring points, in both directions.
    pub step: f64,
    /// Points per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

impl Grid {
    /// The number of points.
    #[must_use]
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// Whether the grid has no points.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the grid's coordinates into `xs` and `ys`, row by row.
    ///
    /// # Panics
    /// If either slice's length is not [`Grid::len`].
    pub fn fill_coordinates(&self, xs: &mut [f64], ys: &mut [f64]) {
        assert_eq!(
            xs.len(),
            self.len(),
            "xs must hold one value per grid point"
        );
        assert_eq!(
            ys.len(),
            self.len(),
            "ys must hold one value per grid point"
        );
        for j in 0..self.height {
            let y = self.y0 + j as f64 * self.step;
            for i in 0..self.width {
                xs[j * self.width + i] = self.x0 + i as f64 * self.step;
                ys[j * self.width + i] = y;
            }
        }
    }
}

impl Backend {
    /// Fills the leading points `backend` handles; returns how many.
    fn noise_points(self, simplex: &Simplex, xs: &[f64], ys: &[f64], out: &mut [f64]) -> usize {
        match self {
            Backend::Scalar => 0,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => avx2::noise_points(simplex, xs, ys, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => avx512::noise_points(simplex, xs, ys, out),
            #[cfg(not(target_arch = "x86_64"))]
            _ => 0,
        }
    }

    /// Fills the leading points `backend` handles; returns how many.
    fn fbm_points(
        self,
        simplex: &Simplex,
        xs: &[f64],
        ys: &[f64],
        params: FbmParams,
        out: &mut [f64],
    ) -> usize {
        match self {
            Backend::Scalar => 0,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => avx2::fbm_points(simplex, xs, ys, params, out),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => avx512::fbm_points(simplex, xs, ys, params, out),
            #[cfg(not(target_arch = "x86_64"))]
            _ => 0,
        }
    }
}

/// A field written once in lane form ([`Lanes`]): its value at one point is `lanes::<1>`, and
/// [`kernel_points`] runs it two of the CPU's widest vectors at a time (`docs/simd.md`). Both
/// run the same operations in the same order, so they give the same bits.
pub(crate) trait LaneKernel {
    /// The field at `N` points.
    fn lanes<const N: usize>(&self, x: Lanes<N>, z: Lanes<N>) -> Lanes<N>;
}

/// `kernel` at every `(xs[k], zs[k])`, written to `out[k]`.
///
/// # Panics
/// If the three slices differ in length.
pub(crate) fn kernel_points<K: LaneKernel>(kernel: &K, xs: &[f64], zs: &[f64], out: &mut [f64]) {
    kernel_points_with(Backend::detect(), kernel, xs, zs, out);
}

/// [`kernel_points`] on a chosen backend, to compare them; the same bits on every one.
///
/// # Panics
/// If the slices differ in length, or `backend` is not in [`Backend::available`].
pub(crate) fn kernel_points_with<K: LaneKernel>(
    backend: Backend,
    kernel: &K,
    xs: &[f64],
    zs: &[f64],
    out: &mut [f64],
) {
    check_lengths(xs, zs, out);
    on_backend(
        backend,
        &mut KernelBlocks {
            kernel,
            xs,
            zs,
            out,
        },
    );
}

/// Work whose lane loops (plain Rust over fixed arrays, like [`LaneKernel`]s) [`on_backend`]
/// compiles for a backend's SIMD. `run` must be `#[inline(always)]`, so that it is compiled
/// inside the backend's function (a closure would not be, and would run scalar).
pub(crate) trait LaneWork {
    /// Does the work `L` lanes at a time: as many as two of the backend's vectors hold, so
    /// each step runs two independent chains the CPU overlaps.
    fn run<const L: usize>(&mut self);
}

/// Runs `work` compiled for `backend`'s instructions.
///
/// # Panics
/// If `backend` is not in [`Backend::available`].
pub(crate) fn on_backend<W: LaneWork>(backend: Backend, work: &mut W) {
    assert!(
        Backend::available().contains(&backend),
        "{backend:?} is not available on this CPU"
    );
    match backend {
        #[cfg(target_arch = "x86_64")]
        #[expect(
            unsafe_code,
            reason = "a target_feature function is called once its features are known to be there"
        )]
        // SAFETY: AVX-512 F, DQ and VL and AVX2 are available (asserted above).
        Backend::Avx512 => unsafe { on_avx512(work) },
        #[cfg(target_arch = "x86_64")]
        #[expect(
            unsafe_code,
            reason = "a target_feature function is called once its features are known to be there"
        )]
        // SAFETY: AVX2 is available (asserted above).
        Backend::Avx2 => unsafe { on_avx2(work) },
        // Two SSE2 vectors, the baseline of every x86-64 CPU.
        _ => work.run::<4>(),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn on_avx512<W: LaneWork>(work: &mut W) {
    work.run::<16>();
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn on_avx2<W: LaneWork>(work: &mut W) {
    work.run::<8>();
}

/// A [`LaneKernel`] over points, as [`LaneWork`].
struct KernelBlocks<'a, K> {
    kernel: &'a K,
    xs: &'a [f64],
    zs: &'a [f64],
    out: &'a mut [f64],
}

impl<K: LaneKernel> LaneWork for KernelBlocks<'_, K> {
    #[inline(always)]
    fn run<const L: usize>(&mut self) {
        kernel_blocks::<K, L>(self.kernel, self.xs, self.zs, self.out);
    }
}

/// The blocks of [`kernel_points`]; the last is padded with zeros, whose lanes are dropped.
#[inline(always)]
fn kernel_blocks<K: LaneKernel, const L: usize>(
    kernel: &K,
    xs: &[f64],
    zs: &[f64],
    out: &mut [f64],
) {
    for ((xs, zs), out) in xs.chunks(L).zip(zs.chunks(L)).zip(out.chunks_mut(L)) {
        let mut x = [0.0; L];
        let mut z = [0.0; L];
        x[..xs.len()].copy_from_slice(xs);
        z[..zs.len()].copy_from_slice(zs);
        let values = kernel.lanes(x, z);
        out.copy_from_slice(&values[..out.len()]);
    }
}

/// The name of the instruction set the batch functions use on this CPU: `"avx512"`, `"avx2"` or
/// `"scalar"`.
#[must_use]
pub fn backend() -> &'static str {
    Backend::detect().name()
}

/// How many points a block of [`Simplex::domain_warp_points`] keeps on the stack.
const BLOCK: usize = 64;

fn check_lengths(xs: &[f64], ys: &[f64], out: &[f64]) {
    assert_eq!(xs.len(), ys.len(), "xs and ys must have the same length");
    assert_eq!(xs.len(), out.len(), "out must have one slot per point");
}

impl Simplex {
    /// [`Simplex::noise`] at every `(xs[k], ys[k])`, written to `out[k]`.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn noise_points(&self, xs: &[f64], ys: &[f64], out: &mut [f64]) {
        check_lengths(xs, ys, out);
        let done = Backend::detect().noise_points(self, xs, ys, out);
        for k in done..xs.len() {
            out[k] = self.noise(xs[k], ys[k]);
        }
    }

    /// [`fbm`] with `params` at every `(xs[k], ys[k])`, written to `out[k]`.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn fbm_points(&self, xs: &[f64], ys: &[f64], params: FbmParams, out: &mut [f64]) {
        check_lengths(xs, ys, out);
        self.fbm_points_unchecked(xs, ys, params, out);
    }

    fn fbm_points_unchecked(&self, xs: &[f64], ys: &[f64], params: FbmParams, out: &mut [f64]) {
        self.fbm_points_with(Backend::detect(), xs, ys, params, out);
    }

    /// [`Simplex::fbm_points`] on a chosen backend, to compare them; the same bits on every one.
    ///
    /// # Panics
    /// If the slices differ in length, or `backend` is not in [`Backend::available`].
    pub(crate) fn fbm_points_with(
        &self,
        backend: Backend,
        xs: &[f64],
        ys: &[f64],
        params: FbmParams,
        out: &mut [f64],
    ) {
        check_lengths(xs, ys, out);
        let done = backend.fbm_points(self, xs, ys, params, out);
        for k in done..xs.len() {
            out[k] = fbm(
                self,
                xs[k],
                ys[k],
                params.octaves,
                params.persistence,
                params.lacunarity,
            );
        }
    }

    /// [`fbm`] with `params` over a [`Grid`], row by row.
    ///
    /// # Panics
    /// If `out`'s length is not [`Grid::len`].
    pub fn fbm_grid(&self, grid: &Grid, params: FbmParams, out: &mut [f64]) {
        assert_eq!(
            out.len(),
            grid.len(),
            "out must hold one value per grid point"
        );
        let mut xs = [0.0; BLOCK];
        let mut ys = [0.0; BLOCK];
        for j in 0..grid.height {
            let y = grid.y0 + j as f64 * grid.step;
            let row = &mut out[j * grid.width..(j + 1) * grid.width];
            for (block, chunk) in row.chunks_mut(BLOCK).enumerate() {
                for (k, x) in xs[..chunk.len()].iter_mut().enumerate() {
                    *x = grid.x0 + (block * BLOCK + k) as f64 * grid.step;
                }
                ys[..chunk.len()].fill(y);
                self.fbm_points_unchecked(&xs[..chunk.len()], &ys[..chunk.len()], params, chunk);
            }
        }
    }

    /// [`crate::tutorial::domain_warp`] at every `(xs[k], ys[k])`, written to `out[k]`.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn domain_warp_points(
        &self,
        xs: &[f64],
        ys: &[f64],
        strength: f64,
        frequency: f64,
        levels: u32,
        out: &mut [f64],
    ) {
        check_lengths(xs, ys, out);
        let warp = WarpParams {
            strength,
            frequency,
            levels,
            fbm: FbmParams::default(),
        };
        let mut qx = [0.0; BLOCK];
        let mut qy = [0.0; BLOCK];
        for start in (0..xs.len()).step_by(BLOCK) {
            let n = BLOCK.min(xs.len() - start);
            let (bx, by) = (&xs[start..start + n], &ys[start..start + n]);
            let (qx, qy) = (&mut qx[..n], &mut qy[..n]);
            self.warp_offset_points(bx, by, &warp, qx, qy);
            for k in 0..n {
                qx[k] = bx[k] + strength * qx[k];
                qy[k] = by[k] + strength * qy[k];
            }
            self.fbm_points_unchecked(qx, qy, warp.fbm, &mut out[start..start + n]);
        }
    }

    /// [`crate::tutorial::warp_offset`] at every `(xs[k], ys[k])`, written to `(qx[k], qy[k])`;
    /// the same bits.
    ///
    /// # Panics
    /// If the four slices differ in length.
    pub fn warp_offset_points(
        &self,
        xs: &[f64],
        ys: &[f64],
        warp: &WarpParams,
        qx: &mut [f64],
        qy: &mut [f64],
    ) {
        check_lengths(xs, ys, qx);
        check_lengths(xs, ys, qy);
        let f = warp.frequency;
        let mut ax = [0.0; BLOCK];
        let mut ay = [0.0; BLOCK];
        let mut rx = [0.0; BLOCK];
        for start in (0..xs.len()).step_by(BLOCK) {
            let n = BLOCK.min(xs.len() - start);
            let (bx, by) = (&xs[start..start + n], &ys[start..start + n]);
            let (qx, qy) = (&mut qx[start..start + n], &mut qy[start..start + n]);
            let (ax, ay, rx) = (&mut ax[..n], &mut ay[..n], &mut rx[..n]);
            if warp.levels == 0 {
                qx.fill(0.0);
                qy.fill(0.0);
                continue;
            }
            for k in 0..n {
                ax[k] = bx[k] * f;
                ay[k] = by[k] * f;
            }
            self.fbm_points_unchecked(ax, ay, warp.fbm, qx);
            for k in 0..n {
                ax[k] = bx[k] * f + SECOND_FIELD[0];
                ay[k] = by[k] * f + SECOND_FIELD[1];
            }
            self.fbm_points_unchecked(ax, ay, warp.fbm, qy);
            if warp.levels >= 2 {
                // The level-1 point, then both fields read there; q is read before it is written.
                for k in 0..n {
                    let px = (bx[k] + warp.strength * qx[k]) * f;
                    let py = (by[k] + warp.strength * qy[k]) * f;
                    let [a, b] = LEVEL_TWO_FIELDS;
                    ax[k] = px + a[0];
                    ay[k] = py + a[1];
                    qx[k] = px + b[0];
                    qy[k] = py + b[1];
                }
                self.fbm_points_unchecked(ax, ay, warp.fbm, rx);
                ax.copy_from_slice(qx);
                ay.copy_from_slice(qy);
                self.fbm_points_unchecked(ax, ay, warp.fbm, qy);
                qx.copy_from_slice(rx);
            }
        }
    }
}

/// [`Simplex::fbm_points`] on a chosen backend, for benchmarks that compare them (feature
/// `internals`, no semver promise); the same bits on every one.
///
/// # Panics
/// If the slices differ in length, or `backend` is not in [`Backend::available`].
#[cfg(feature = "internals")]
pub fn fbm_points_on(
    backend: Backend,
    simplex: &Simplex,
    xs: &[f64],
    ys: &[f64],
    params: FbmParams,
    out: &mut [f64],
) {
    simplex.fbm_points_with(backend, xs, ys, params, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tutorial::SeededRandom;

    /// Every backend this CPU runs, not only the fastest, against the scalar functions.
    #[test]
    fn every_available_backend_gives_scalar_bits() {
        let simplex = Simplex::new(2024);
        let mut random = SeededRandom::new(5);
        let count = 1003;
        let scale = |k: usize| [0.01, 1.0, 100.0, 1.0e5, 1.0e7][k % 5];
        let xs: Vec<f64> = (0..count)
            .map(|k| (random.next_float() - 0.5) * scale(k))
            .collect();
        let ys: Vec<f64> = (0..count)
            .map(|k| (random.next_float() - 0.5) * scale(k + 2))
            .collect();
        let params = FbmParams {
            octaves: 5,
            persistence: 0.55,
            lacunarity: 2.1,
        };
        for backend in Backend::available() {
            let mut out = vec![f64::NAN; count];
            let done = backend.noise_points(&simplex, &xs, &ys, &mut out);
            for k in 0..done {
                assert_eq!(
                    out[k].to_bits(),
                    simplex.noise(xs[k], ys[k]).to_bits(),
                    "{backend:?} noise at {k}"
                );
            }
            let mut out = vec![f64::NAN; count];
            simplex.fbm_points_with(backend, &xs, &ys, params, &mut out);
            for k in 0..count {
                let want = fbm(
                    &simplex,
                    xs[k],
                    ys[k],
                    params.octaves,
                    params.persistence,
                    params.lacunarity,
                );
                assert_eq!(out[k].to_bits(), want.to_bits(), "{backend:?} fbm at {k}");
            }
        }
    }
}
