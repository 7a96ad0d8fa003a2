// The AVX2+FMA row kernels (row_kernels.h): log_sum_exp in eight 8-float accumulators,
// layer_norm in four. Built only on x86-64; run only where the CPU reports AVX2 and FMA.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kernels/row_kernels.h"

namespace minimt::kernels {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

// exp_lane() on 8 lanes; lanes below kExpFloor (and -infinity) give 0.
__attribute__((target("avx2,fma"))) inline __m256 exp8(__m256 x) {
  const __m256 live = _mm256_cmp_ps(x, _mm256_set1_ps(kExpFloor), _CMP_GE_OQ);
  x = _mm256_max_ps(x, _mm256_set1_ps(kExpFloor));
  const __m256 magic = _mm256_set1_ps(kRoundMagic);
  const __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(kLog2e), magic), magic);
  __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-kLn2High), x);
  r = _mm256_fmadd_ps(n, _mm256_set1_ps(-kLn2Low), r);
  __m256 y = _mm256_set1_ps(kExpPoly[0]);
  for (int i = 1; i < 6; ++i) y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(kExpPoly[i]));
  y = _mm256_add_ps(_mm256_fmadd_ps(y, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_and_ps(live, _mm256_mul_ps(y, _mm256_castsi256_ps(bits)));
}

// The 8 floats at row + at; past `length`, `pad`.
__attribute__((target("avx2,fma"))) inline __m256 load_padded(const float* row, int at, int length,
                                                              float pad) {
  const int left = length - at;
  if (left >= 8) return _mm256_loadu_ps(row + at);
  alignas(32) float tail[8];
  for (int i = 0; i < 8; ++i) tail[i] = i < left ? row[at + i] : pad;
  return _mm256_load_ps(tail);
}

}  // namespace

__attribute__((target("avx2,fma"))) float row_max_avx2(const float* row, int length) {
  __m256 peak[4];
  for (auto& p : peak) p = _mm256_set1_ps(kMinusInf);
  for (int i = 0; i < length; i += 32)
    for (int part = 0; part < 4; ++part)
      peak[part] = _mm256_max_ps(peak[part], load_padded(row, i + 8 * part, length, kMinusInf));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes,
                  _mm256_max_ps(_mm256_max_ps(peak[0], peak[1]), _mm256_max_ps(peak[2], peak[3])));
  return *std::max_element(lanes, lanes + 8);
}

__attribute__((target("avx2,fma"))) float log_sum_exp_avx2(const float* row, int length,
                                                           float peak) {
  static_assert(kExpLanes == 64, "eight 8-float accumulators");
  __m256 sum[8];
  for (auto& s : sum) s = _mm256_setzero_ps();
  const __m256 top = _mm256_set1_ps(peak);
  for (int i = 0; i < length; i += 64)
    for (int part = 0; part < 8; ++part) {
      const __m256 x = load_padded(row, i + 8 * part, length, kMinusInf);
      sum[part] = _mm256_add_ps(sum[part], exp8(_mm256_sub_ps(x, top)));
    }
  alignas(32) float lanes[kExpLanes];
  for (int part = 0; part < 8; ++part) _mm256_store_ps(lanes + 8 * part, sum[part]);
  return peak + std::log(reduce_lanes(lanes, kExpLanes));
}

__attribute__((target("avx2,fma"))) void layer_norm_row_avx2(float* row, int dim,
                                                             const float* weight, const float* bias,
                                                             float eps) {
  static_assert(kNormLanes == 32, "four 8-float accumulators");
  alignas(32) float lanes[kNormLanes];
  __m256 sum[4];
  for (auto& s : sum) s = _mm256_setzero_ps();
  for (int i = 0; i < dim; i += 32)
    for (int part = 0; part < 4; ++part)
      sum[part] = _mm256_add_ps(sum[part], load_padded(row, i + 8 * part, dim, 0.0f));
  for (int part = 0; part < 4; ++part) _mm256_store_ps(lanes + 8 * part, sum[part]);
  const float mean = reduce_lanes(lanes, kNormLanes) / static_cast<float>(dim);
  const __m256 centre = _mm256_set1_ps(mean);
  for (auto& s : sum) s = _mm256_setzero_ps();
  for (int i = 0; i < dim; i += 32)
    for (int part = 0; part < 4; ++part) {
      // Padding with the mean makes the padded lanes' deviation exactly 0.
      const __m256 centred = _mm256_sub_ps(load_padded(row, i + 8 * part, dim, mean), centre);
      sum[part] = _mm256_add_ps(sum[part], _mm256_mul_ps(centred, centred));
    }
  for (int part = 0; part < 4; ++part) _mm256_store_ps(lanes + 8 * part, sum[part]);
  const float variance = reduce_lanes(lanes, kNormLanes) / static_cast<float>(dim);
  const float scale = 1.0f / std::sqrt(variance + eps);
  const __m256 inverse = _mm256_set1_ps(scale);
  int i = 0;
  for (; i + 8 <= dim; i += 8) {
    const __m256 scaled = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(row + i), centre), inverse);
    _mm256_storeu_ps(row + i, _mm256_add_ps(_mm256_mul_ps(scaled, _mm256_loadu_ps(weight + i)),
                                            _mm256_loadu_ps(bias + i)));
  }
  for (; i < dim; ++i) row[i] = (row[i] - mean) * scale * weight[i] + bias[i];
}

__attribute__((target("avx2,fma"))) void rms_norm_row_avx2(float* row, int dim, const float* weight,
                                                           float eps) {
  static_assert(kNormLanes == 32, "four 8-float accumulators");
  alignas(32) float lanes[kNormLanes];
  __m256 sum[4];
  for (auto& s : sum) s = _mm256_setzero_ps();
  for (int i = 0; i < dim; i += 32)
    for (int part = 0; part < 4; ++part) {
      const __m256 x = load_padded(row, i + 8 * part, dim, 0.0f);
      sum[part] = _mm256_add_ps(sum[part], _mm256_mul_ps(x, x));  // two roundings, as generic
    }
  for (int part = 0; part < 4; ++part) _mm256_store_ps(lanes + 8 * part, sum[part]);
  const float mean_square = reduce_lanes(lanes, kNormLanes) / static_cast<float>(dim);
  const float scale = 1.0f / std::sqrt(mean_square + eps);
  const __m256 inverse = _mm256_set1_ps(scale);
  int i = 0;
  for (; i + 8 <= dim; i += 8)
    _mm256_storeu_ps(row + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(row + i), inverse),
                                            _mm256_loadu_ps(weight + i)));
  for (; i < dim; ++i) row[i] = (row[i] * scale) * weight[i];
}

}  // namespace minimt::kernels
