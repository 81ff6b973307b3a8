//! AVX2 lanes for the batch paths: four `f64` points per instruction.
//!
//! Each step is the scalar code's IEEE operation on four lanes, in the scalar code's order, so
//! the results are bit-identical. Two lookups differ in form only: the corner hash reads
//! [`Simplex::corner_gradients`] (`p[a + p[b]] & 7` precomputed) instead of two permutation
//! reads, and the gradient comes from an in-register table instead of memory.
#![expect(
    unsafe_code,
    reason = "gathers read through raw pointers; every read's bounds are argued at the call"
)]

use std::arch::x86_64::{
    __m128i, __m256d, _CMP_GT_OQ, _CMP_LT_OQ, _mm_add_epi32, _mm_and_si128, _mm_i32gather_epi32,
    _mm_or_si128, _mm_set1_epi32, _mm_slli_epi32, _mm256_add_pd, _mm256_and_pd, _mm256_andnot_pd,
    _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_cmp_pd, _mm256_cvtepi32_pd,
    _mm256_cvttpd_epi32, _mm256_div_pd, _mm256_floor_pd, _mm256_loadu_pd, _mm256_mul_pd,
    _mm256_permutevar8x32_epi32, _mm256_set1_pd, _mm256_setr_epi32, _mm256_setzero_pd,
    _mm256_storeu_pd, _mm256_sub_pd,
};

use super::{FbmParams, fbm_pairs};
use crate::tutorial::{CornerTable, F2, G2, Simplex};

#[inline]
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// Fills `out` for the leading multiple of 4 points and returns how many it filled.
pub(super) fn noise_points(simplex: &Simplex, xs: &[f64], ys: &[f64], out: &mut [f64]) -> usize {
    assert!(available());
    // SAFETY: AVX2 is present (checked above).
    unsafe { noise_points_avx2(&simplex.corner_gradients, xs, ys, out) }
}

/// Fills `out` for the leading whole pairs of vectors and returns how many points it filled.
pub(super) fn fbm_points(
    simplex: &Simplex,
    xs: &[f64],
    ys: &[f64],
    params: FbmParams,
    out: &mut [f64],
) -> usize {
    assert!(available());
    // SAFETY: AVX2 is present (checked above).
    unsafe { fbm_points_avx2(&simplex.corner_gradients, xs, ys, params, out) }
}

#[target_feature(enable = "avx2")]
fn noise_points_avx2(table: &CornerTable, xs: &[f64], ys: &[f64], out: &mut [f64]) -> usize {
    let lanes = xs.len().min(ys.len()).min(out.len()) / 4 * 4;
    for k in (0..lanes).step_by(4) {
        let x = load(&xs[k..k + 4]);
        let y = load(&ys[k..k + 4]);
        store(&mut out[k..k + 4], noise4(table, x, y));
    }
    lanes
}

#[target_feature(enable = "avx2")]
fn fbm_points_avx2(
    table: &CornerTable,
    xs: &[f64],
    ys: &[f64],
    params: FbmParams,
    out: &mut [f64],
) -> usize {
    fbm_pairs!(
        width: 4, noise: noise4,
        splat: _mm256_set1_pd, zero: _mm256_setzero_pd, add: _mm256_add_pd, mul: _mm256_mul_pd, div: _mm256_div_pd,
        table: table, xs: xs, ys: ys, params: params, out: out,
    )
}

#[inline]
#[target_feature(enable = "avx2")]
fn load(lanes: &[f64]) -> __m256d {
    assert!(lanes.len() >= 4);
    // SAFETY: four f64 are in bounds (asserted); loadu has no alignment requirement.
    unsafe { _mm256_loadu_pd(lanes.as_ptr()) }
}

#[inline]
#[target_feature(enable = "avx2")]
fn store(lanes: &mut [f64], value: __m256d) {
    assert!(lanes.len() >= 4);
    // SAFETY: four f64 are in bounds (asserted); storeu has no alignment requirement.
    unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), value) }
}

/// [`Simplex::noise`] on four lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn noise4(table: &CornerTable, x: __m256d, y: __m256d) -> __m256d {
    let one = _mm256_set1_pd(1.0);
    let g2 = _mm256_set1_pd(G2);
    let g2_twice = _mm256_set1_pd(2.0 * G2);

    let s = _mm256_mul_pd(_mm256_add_pd(x, y), _mm256_set1_pd(F2));
    let i = _mm256_floor_pd(_mm256_add_pd(x, s));
    let j = _mm256_floor_pd(_mm256_add_pd(y, s));
    let t = _mm256_mul_pd(_mm256_add_pd(i, j), g2);
    let x0 = _mm256_sub_pd(x, _mm256_sub_pd(i, t));
    let y0 = _mm256_sub_pd(y, _mm256_sub_pd(j, t));

    // x0 > y0 (false for NaN, as in the scalar code): the middle corner is one step right.
    let lower = _mm256_cmp_pd::<_CMP_GT_OQ>(x0, y0);
    let i1 = _mm256_and_pd(lower, one);
    let j1 = _mm256_andnot_pd(lower, one);
    let x1 = _mm256_add_pd(_mm256_sub_pd(x0, i1), g2);
    let y1 = _mm256_add_pd(_mm256_sub_pd(y0, j1), g2);
    let x2 = _mm256_add_pd(_mm256_sub_pd(x0, one), g2_twice);
    let y2 = _mm256_add_pd(_mm256_sub_pd(y0, one), g2_twice);

    let byte = _mm_set1_epi32(255);
    let ii = wrap_256(i);
    let jj = wrap_256(j);
    let ii1 = _mm_and_si128(_mm_add_epi32(ii, _mm256_cvttpd_epi32(i1)), byte);
    let jj1 = _mm_and_si128(_mm_add_epi32(jj, _mm256_cvttpd_epi32(j1)), byte);
    let step = _mm_set1_epi32(1);
    let ii2 = _mm_and_si128(_mm_add_epi32(ii, step), byte);
    let jj2 = _mm_and_si128(_mm_add_epi32(jj, step), byte);

    let n0 = corner4(table, ii, jj, x0, y0);
    let n1 = corner4(table, ii1, jj1, x1, y1);
    let n2 = corner4(table, ii2, jj2, x2, y2);
    _mm256_mul_pd(
        _mm256_set1_pd(70.0),
        _mm256_add_pd(_mm256_add_pd(n0, n1), n2),
    )
}

/// JavaScript's `i & 255` for four integral lanes: `i - 256 * floor(i / 256)` is exact for every
/// integral `f64`, and NaN or infinite lanes become NaN, which converts to `0x80000000` and masks
/// to 0, as `ToInt32` gives.
#[inline]
#[target_feature(enable = "avx2")]
fn wrap_256(i: __m256d) -> __m128i {
    let quotient = _mm256_floor_pd(_mm256_mul_pd(i, _mm256_set1_pd(1.0 / 256.0)));
    let rest = _mm256_sub_pd(i, _mm256_mul_pd(quotient, _mm256_set1_pd(256.0)));
    _mm_and_si128(_mm256_cvttpd_epi32(rest), _mm_set1_epi32(255))
}

/// [`GRAD2`](crate::tutorial::GRAD2)'s x components as integer lanes.
pub(super) const GRAD_X: [i32; 8] = [1, -1, 1, -1, 1, -1, 0, 0];
/// [`GRAD2`](crate::tutorial::GRAD2)'s y components as integer lanes.
pub(super) const GRAD_Y: [i32; 8] = [1, 1, -1, -1, 0, 0, 1, -1];

/// One corner's contribution on four lanes, `(a, b)` being the wrapped corner coordinates.
#[inline]
#[target_feature(enable = "avx2")]
fn corner4(table: &CornerTable, a: __m128i, b: __m128i, x: __m256d, y: __m256d) -> __m256d {
    let index = _mm_or_si128(_mm_slli_epi32::<8>(a), b);
    // SAFETY: every lane of `index` is below 65536 (two bytes), and the table holds 65536 + 4
    // bytes (its type says so), so each 4-byte read at `table + index` is in bounds; the low
    // byte is the entry.
    let hash = unsafe { _mm_i32gather_epi32::<1>(table.as_ptr().cast(), index) };
    let hash = _mm256_castsi128_si256(_mm_and_si128(hash, _mm_set1_epi32(7)));
    let [x_0, x_1, x_2, x_3, x_4, x_5, x_6, x_7] = GRAD_X;
    let [y_0, y_1, y_2, y_3, y_4, y_5, y_6, y_7] = GRAD_Y;
    let grad_x = _mm256_setr_epi32(x_0, x_1, x_2, x_3, x_4, x_5, x_6, x_7);
    let grad_y = _mm256_setr_epi32(y_0, y_1, y_2, y_3, y_4, y_5, y_6, y_7);
    let gx = _mm256_cvtepi32_pd(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
        grad_x, hash,
    )));
    let gy = _mm256_cvtepi32_pd(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
        grad_y, hash,
    )));

    let t = _mm256_sub_pd(
        _mm256_sub_pd(_mm256_set1_pd(0.5), _mm256_mul_pd(x, x)),
        _mm256_mul_pd(y, y),
    );
    let outside = _mm256_cmp_pd::<_CMP_LT_OQ>(t, _mm256_setzero_pd());
    let t = _mm256_mul_pd(t, t);
    let dot = _mm256_add_pd(_mm256_mul_pd(gx, x), _mm256_mul_pd(gy, y));
    let n = _mm256_mul_pd(_mm256_mul_pd(t, t), dot);
    // Beyond the corner's reach the scalar code returns +0.
    _mm256_andnot_pd(outside, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tutorial::GRAD2;

    #[test]
    fn gradient_lanes_match_grad2() {
        for (h, g) in GRAD2.iter().enumerate() {
            assert_eq!(f64::from(GRAD_X[h]).to_bits(), g[0].to_bits());
            assert_eq!(f64::from(GRAD_Y[h]).to_bits(), g[1].to_bits());
        }
    }
}
