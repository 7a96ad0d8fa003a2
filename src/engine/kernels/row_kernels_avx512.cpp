// The AVX-512 row kernels (row_kernels.h): log_sum_exp in four 16-float accumulators,
// layer_norm in two. Built only on x86-64; run only where the CPU reports AVX-512F.
// GCC 12 warns about the _mm512_undefined_* inside its own intrinsics (its bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cmath>
#include <limits>

#include "engine/kernels/avx512_lanes.h"
#include "engine/kernels/row_kernels.h"

namespace minimt::kernels {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// exp_lane() on 16 lanes; lanes below kExpFloor (and -infinity) give 0.
__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
  const __mmask16 live = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpFloor), _CMP_GE_OQ);
  x = _mm512_max_ps(x, _mm512_set1_ps(kExpFloor));
  const __m512 magic = _mm512_set1_ps(kRoundMagic);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(kLog2e), magic), magic);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2High), x);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2Low), r);
  __m512 y = _mm512_set1_ps(kExpPoly[0]);
  for (int i = 1; i < 6; ++i) y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(kExpPoly[i]));
  y = _mm512_add_ps(_mm512_fmadd_ps(y, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  const __m512i bits =
      _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_maskz_mul_ps(live, y, _mm512_castsi512_ps(bits));
}

// Lanes [16 * part, 16 * part + 16) of a block of kExpLanes at `at`, -infinity past `length`.
__attribute__((target("avx512f"))) inline __m512 load_padded(const float* row, int at, int length,
                                                             float pad) {
  const int left = length - at;
  if (left >= 16) return _mm512_loadu_ps(row + at);
  return _mm512_mask_loadu_ps(_mm512_set1_ps(pad), first_lanes(left), row + at);
}

// reduce_lanes() of 16 * count lanes held in count vectors (count 2 or 4), in registers: the
// halvings across vectors are vector adds, then reduce16 inside the last.
__attribute__((target("avx512f"))) inline float reduce_vectors(__m512* v, int count) {
  for (int half = count / 2; half >= 1; half /= 2)
    for (int i = 0; i < half; ++i) v[i] = _mm512_add_ps(v[i], v[i + half]);
  return reduce16(v[0]);
}

}  // namespace

__attribute__((target("avx512f"))) float row_max_avx512(const float* row, int length) {
  __m512 peak[4];
  for (auto& p : peak) p = _mm512_set1_ps(kMinusInf);
  for (int i = 0; i < length; i += 64)
    for (int part = 0; part < 4; ++part)
      peak[part] = _mm512_max_ps(peak[part], load_padded(row, i + 16 * part, length, kMinusInf));
  return _mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(peak[0], peak[1]), _mm512_max_ps(peak[2], peak[3])));
}

// Two passes over the row (in L1: a vocabulary of 8,000 is 32 KB): the largest value, then the
// first block holding it. max(x, peak) keeps peak where x is NaN, so NaN is never the largest.
__attribute__((target("avx512f"))) int argmax_avx512(const float* row, int length) {
  // Nothing compares greater than a NaN first value (and an empty row has index 0 too).
  if (length <= 0 || std::isnan(row[0])) return 0;
  __m512 peak = _mm512_set1_ps(kMinusInf);
  for (int i = 0; i < length; i += 16)
    peak = _mm512_max_ps(load_padded(row, i, length, kMinusInf), peak);
  const __m512 largest = _mm512_set1_ps(_mm512_reduce_max_ps(peak));
  for (int i = 0; i < length; i += 16) {
    // Padding lanes are masked off: a row of -infinity must not find them.
    const __mmask16 lanes = first_lanes(length - i);
    const __mmask16 equal =
        _mm512_mask_cmp_ps_mask(lanes, _mm512_maskz_loadu_ps(lanes, row + i), largest, _CMP_EQ_OQ);
    if (equal) return i + __builtin_ctz(equal);
  }
  return 0;  // not reached: row[0] is not NaN, so some value equals the largest
}

// 16 comparisons at a time (a top-k scan's threshold is above most of a vocabulary).
__attribute__((target("avx512f"))) int first_above_avx512(const float* row, int from, int length,
                                                          float threshold) {
  const __m512 bar = _mm512_set1_ps(threshold);
  for (int i = from; i < length; i += 16) {
    const __mmask16 lanes = first_lanes(length - i);
    const __mmask16 above =
        _mm512_mask_cmp_ps_mask(lanes, _mm512_maskz_loadu_ps(lanes, row + i), bar, _CMP_GT_OQ);
    if (above) return i + __builtin_ctz(above);
  }
  return length;
}

__attribute__((target("avx512f"))) float log_sum_exp_avx512(const float* row, int length,
                                                            float peak) {
  static_assert(kExpLanes == 64, "four 16-float accumulators");
  __m512 sum[4];
  for (auto& s : sum) s = _mm512_setzero_ps();
  const __m512 top = _mm512_set1_ps(peak);
  for (int i = 0; i < length; i += 64)
    for (int part = 0; part < 4; ++part) {
      const __m512 x = load_padded(row, i + 16 * part, length, kMinusInf);
      sum[part] = _mm512_add_ps(sum[part], exp16(_mm512_sub_ps(x, top)));
    }
  return peak + std::log(reduce_vectors(sum, 4));
}

__attribute__((target("avx512f"))) void layer_norm_row_avx512(float* row, int dim,
                                                              const float* weight,
                                                              const float* bias, float eps) {
  static_assert(kNormLanes == 32, "two 16-float accumulators");
  __m512 sum[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int i = 0; i < dim; i += 32)
    for (int part = 0; part < 2; ++part)
      sum[part] = _mm512_add_ps(sum[part], load_padded(row, i + 16 * part, dim, 0.0f));
  const float mean = reduce_vectors(sum, 2) / static_cast<float>(dim);
  const __m512 centre = _mm512_set1_ps(mean);
  sum[0] = sum[1] = _mm512_setzero_ps();
  for (int i = 0; i < dim; i += 32)
    for (int part = 0; part < 2; ++part) {
      // Padding with the mean makes the padded lanes' deviation exactly 0.
      const __m512 centred = _mm512_sub_ps(load_padded(row, i + 16 * part, dim, mean), centre);
      sum[part] = _mm512_add_ps(sum[part], _mm512_mul_ps(centred, centred));
    }
  const float variance = reduce_vectors(sum, 2) / static_cast<float>(dim);
  const float scale = 1.0f / std::sqrt(variance + eps);
  const __m512 inverse = _mm512_set1_ps(scale);
  int i = 0;
  for (; i + 16 <= dim; i += 16) {
    const __m512 scaled = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(row + i), centre), inverse);
    _mm512_storeu_ps(row + i, _mm512_add_ps(_mm512_mul_ps(scaled, _mm512_loadu_ps(weight + i)),
                                            _mm512_loadu_ps(bias + i)));
  }
  for (; i < dim; ++i) row[i] = (row[i] - mean) * scale * weight[i] + bias[i];
}

__attribute__((target("avx512f"))) void rms_norm_row_avx512(float* row, int dim,
                                                            const float* weight, float eps) {
  static_assert(kNormLanes == 32, "two 16-float accumulators");
  __m512 sum[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int i = 0; i < dim; i += 32)
    for (int part = 0; part < 2; ++part) {
      const __m512 x = load_padded(row, i + 16 * part, dim, 0.0f);
      sum[part] = _mm512_add_ps(sum[part], _mm512_mul_ps(x, x));  // two roundings, as generic
    }
  const float mean_square = reduce_vectors(sum, 2) / static_cast<float>(dim);
  const float scale = 1.0f / std::sqrt(mean_square + eps);
  const __m512 inverse = _mm512_set1_ps(scale);
  int i = 0;
  for (; i + 16 <= dim; i += 16)
    _mm512_storeu_ps(row + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(row + i), inverse),
                                            _mm512_loadu_ps(weight + i)));
  for (; i < dim; ++i) row[i] = (row[i] * scale) * weight[i];
}

}  // namespace minimt::kernels
