//! AVX-512 lanes for the batch paths: eight `f64` points per instruction.
//!
//! The same operations as the scalar code, in the same order, as in the AVX2 path (see there for
//! how the lookups differ in form only); masks replace blends.
#![expect(
    unsafe_code,
    reason = "loads, stores and gathers go through raw pointers; every access's bounds are argued at the call"
)]

use std::arch::x86_64::{
    __m256i, __m512d, _CMP_GT_OQ, _CMP_LT_OQ, _MM_FROUND_NO_EXC, _MM_FROUND_TO_NEG_INF,
    _mm256_add_epi32, _mm256_and_si256, _mm256_i32gather_epi32, _mm256_mask_add_epi32,
    _mm256_or_si256, _mm256_set1_epi32, _mm256_slli_epi32, _mm512_add_pd, _mm512_and_si512,
    _mm512_cmp_pd_mask, _mm512_cvtepi64_epi32, _mm512_cvtepu32_epi64, _mm512_cvttpd_epi64,
    _mm512_div_pd, _mm512_loadu_pd, _mm512_mask_sub_pd, _mm512_maskz_mul_pd, _mm512_mul_pd,
    _mm512_permutexvar_pd, _mm512_roundscale_pd, _mm512_set1_epi64, _mm512_set1_pd, _mm512_setr_pd,
    _mm512_setzero_pd, _mm512_storeu_pd, _mm512_sub_pd,
};

use super::avx2::{GRAD_X, GRAD_Y};
use super::{FbmParams, fbm_pairs};
use crate::tutorial::{CornerTable, F2, G2, Simplex};

/// `roundscale` immediate for `floor`: round toward negative infinity, no exceptions.
const FLOOR: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

#[inline]
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx2")
}

/// Fills `out` for the leading multiple of 8 points and returns how many it filled.
pub(super) fn noise_points(simplex: &Simplex, xs: &[f64], ys: &[f64], out: &mut [f64]) -> usize {
    assert!(available());
    // SAFETY: AVX-512 F, DQ and VL and AVX2 are present (checked above).
    unsafe { noise_points_avx512(&simplex.corner_gradients, xs, ys, out) }
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
    // SAFETY: AVX-512 F, DQ and VL and AVX2 are present (checked above).
    unsafe { fbm_points_avx512(&simplex.corner_gradients, xs, ys, params, out) }
}

#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn noise_points_avx512(table: &CornerTable, xs: &[f64], ys: &[f64], out: &mut [f64]) -> usize {
    let lanes = xs.len().min(ys.len()).min(out.len()) / 8 * 8;
    for k in (0..lanes).step_by(8) {
        let x = load(&xs[k..k + 8]);
        let y = load(&ys[k..k + 8]);
        store(&mut out[k..k + 8], noise8(table, x, y));
    }
    lanes
}

#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn fbm_points_avx512(
    table: &CornerTable,
    xs: &[f64],
    ys: &[f64],
    params: FbmParams,
    out: &mut [f64],
) -> usize {
    fbm_pairs!(
        width: 8, noise: noise8,
        splat: _mm512_set1_pd, zero: _mm512_setzero_pd, add: _mm512_add_pd, mul: _mm512_mul_pd, div: _mm512_div_pd,
        table: table, xs: xs, ys: ys, params: params, out: out,
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn load(lanes: &[f64]) -> __m512d {
    assert!(lanes.len() >= 8);
    // SAFETY: eight f64 are in bounds (asserted); loadu has no alignment requirement.
    unsafe { _mm512_loadu_pd(lanes.as_ptr()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn store(lanes: &mut [f64], value: __m512d) {
    assert!(lanes.len() >= 8);
    // SAFETY: eight f64 are in bounds (asserted); storeu has no alignment requirement.
    unsafe { _mm512_storeu_pd(lanes.as_mut_ptr(), value) }
}

/// [`Simplex::noise`] on eight lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn noise8(table: &CornerTable, x: __m512d, y: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let g2 = _mm512_set1_pd(G2);
    let g2_twice = _mm512_set1_pd(2.0 * G2);

    let s = _mm512_mul_pd(_mm512_add_pd(x, y), _mm512_set1_pd(F2));
    let i = _mm512_roundscale_pd::<FLOOR>(_mm512_add_pd(x, s));
    let j = _mm512_roundscale_pd::<FLOOR>(_mm512_add_pd(y, s));
    let t = _mm512_mul_pd(_mm512_add_pd(i, j), g2);
    let x0 = _mm512_sub_pd(x, _mm512_sub_pd(i, t));
    let y0 = _mm512_sub_pd(y, _mm512_sub_pd(j, t));

    // x0 > y0 (false for NaN, as in the scalar code): the middle corner is one step right.
    let lower = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(x0, y0);
    // Subtracting the scalar code's 0 leaves a lane as it is (even -0), so only the lanes that
    // step subtract.
    let x1 = _mm512_add_pd(_mm512_mask_sub_pd(x0, lower, x0, one), g2);
    let y1 = _mm512_add_pd(_mm512_mask_sub_pd(y0, !lower, y0, one), g2);
    let x2 = _mm512_add_pd(_mm512_sub_pd(x0, one), g2_twice);
    let y2 = _mm512_add_pd(_mm512_sub_pd(y0, one), g2_twice);

    let byte = _mm256_set1_epi32(255);
    let ii = wrap_256(i);
    let jj = wrap_256(j);
    let step = _mm256_set1_epi32(1);
    // The middle corner adds 1 to i in the `lower` lanes and to j in the others.
    let ii1 = _mm256_and_si256(_mm256_mask_add_epi32(ii, lower, ii, step), byte);
    let jj1 = _mm256_and_si256(_mm256_mask_add_epi32(jj, !lower, jj, step), byte);
    let ii2 = _mm256_and_si256(_mm256_add_epi32(ii, step), byte);
    let jj2 = _mm256_and_si256(_mm256_add_epi32(jj, step), byte);

    let n0 = corner8(table, ii, jj, x0, y0);
    let n1 = corner8(table, ii1, jj1, x1, y1);
    let n2 = corner8(table, ii2, jj2, x2, y2);
    _mm512_mul_pd(
        _mm512_set1_pd(70.0),
        _mm512_add_pd(_mm512_add_pd(n0, n1), n2),
    )
}

/// JavaScript's `i & 255` for eight integral lanes: below 2^63 the conversion to `i64` is exact
/// and its low byte is `i` modulo 256 (every `f64` from 2^60 up is a multiple of 256, as the
/// scalar code says); at and beyond 2^63, and for NaN, the conversion gives `i64::MIN`, whose
/// low byte is 0, the scalar answer there too.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn wrap_256(i: __m512d) -> __m256i {
    let whole = _mm512_cvttpd_epi64(i);
    _mm512_cvtepi64_epi32(_mm512_and_si512(whole, _mm512_set1_epi64(255)))
}

/// One corner's contribution on eight lanes, `(a, b)` being the wrapped corner coordinates.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn corner8(table: &CornerTable, a: __m256i, b: __m256i, x: __m512d, y: __m512d) -> __m512d {
    let index = _mm256_or_si256(_mm256_slli_epi32::<8>(a), b);
    // SAFETY: every lane of `index` is below 65536 (two bytes), and the table holds 65536 + 4
    // bytes (its type says so), so each 4-byte read at `table + index` is in bounds; the low
    // byte is the entry.
    let hash = unsafe { _mm256_i32gather_epi32::<1>(table.as_ptr().cast(), index) };
    let hash = _mm512_cvtepu32_epi64(_mm256_and_si256(hash, _mm256_set1_epi32(7)));
    let gx = _mm512_permutexvar_pd(hash, gradients(GRAD_X));
    let gy = _mm512_permutexvar_pd(hash, gradients(GRAD_Y));

    let t = _mm512_sub_pd(
        _mm512_sub_pd(_mm512_set1_pd(0.5), _mm512_mul_pd(x, x)),
        _mm512_mul_pd(y, y),
    );
    let outside = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(t, _mm512_setzero_pd());
    let t = _mm512_mul_pd(t, t);
    let dot = _mm512_add_pd(_mm512_mul_pd(gx, x), _mm512_mul_pd(gy, y));
    // Beyond the corner's reach the scalar code returns +0.
    _mm512_maskz_mul_pd(!outside, _mm512_mul_pd(t, t), dot)
}

/// One gradient table (x or y parts, exact small integers) as eight `f64` lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
fn gradients(table: [i32; 8]) -> __m512d {
    let [a, b, c, d, e, f, g, h] = table.map(f64::from);
    _mm512_setr_pd(a, b, c, d, e, f, g, h)
}
