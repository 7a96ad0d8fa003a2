// The AVX2 int8 kernel, for CPUs without VNNI. vpmaddubsw multiplies unsigned by signed bytes
// and adds pairs into saturating 16-bit lanes; with |qx| and |qw| at most 127, a pair is at most
// 2 * 127 * 127 = 32,258, so it never saturates. The sign trick makes the unsigned side |qx|
// and moves qx's sign onto the weight (vpsignb). vpmaddwd against ones then adds the pairs into
// 32-bit lanes: exact sums, the same as the other int8 kernels. Built only on x86-64.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/kernels/int8_kernels.h"

namespace minimt::kernels {
namespace {

constexpr int kPanel = Int8Matrix::kPanel;
#define MINIMT_AVX2 __attribute__((target("avx2,fma")))

MINIMT_AVX2 inline __m256i lane_mask(int valid) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// ROWS rows against one panel: four 8-column quarters, 4*ROWS accumulators.
template <int ROWS>
MINIMT_AVX2 void rows_kernel(const int8_t* panel, int groups, const uint8_t* x, int stride,
                             const float* row_scales, const float* column_scales, const float* bias,
                             int valid, float* y, int ldy) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc[ROWS][4];
  for (int r = 0; r < ROWS; ++r)
    for (int v = 0; v < 4; ++v) acc[r][v] = _mm256_setzero_si256();
  for (int g = 0; g < groups; ++g) {
    const int8_t* w = panel + static_cast<size_t>(g) * 128;
    __m256i weights[4];
    for (int v = 0; v < 4; ++v)
      weights[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32 * v));
    for (int r = 0; r < ROWS; ++r) {
      int32_t word;
      std::memcpy(&word, x + static_cast<size_t>(r) * stride + 4 * g, sizeof word);
      const __m256i a = _mm256_set1_epi32(word);
      const __m256i magnitude = _mm256_sign_epi8(a, a);
      for (int v = 0; v < 4; ++v) {
        const __m256i pairs = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(weights[v], a));
        acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(pairs, ones));
      }
    }
  }
  for (int v = 0; v < 4; ++v) {
    const __m256i mask = lane_mask(valid - 8 * v);
    const __m256 sw = _mm256_loadu_ps(column_scales + 8 * v);
    const __m256 b = bias ? _mm256_maskload_ps(bias + 8 * v, mask) : _mm256_setzero_ps();
    for (int r = 0; r < ROWS; ++r) {
      const __m256 scale = _mm256_mul_ps(_mm256_set1_ps(row_scales[r]), sw);
      const __m256 out = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[r][v]), scale, b);
      _mm256_maskstore_ps(y + static_cast<size_t>(r) * ldy + 8 * v, mask, out);
    }
  }
}

}  // namespace

MINIMT_AVX2 void int8_linear_avx2(const Int8Matrix& weight, const float* bias,
                                  const QuantizedRows& x, float* y) {
  const int n = weight.rows(), groups = weight.groups();
  for (int p = 0; p < weight.panels(); ++p) {
    const int column = p * kPanel;
    const int valid = std::min(kPanel, n - column);
    const float* panel_bias = bias ? bias + column : nullptr;
    int r = 0;
    for (; r + 2 <= x.m; r += 2)
      rows_kernel<2>(weight.panel(p), groups, x.data + static_cast<size_t>(r) * x.stride, x.stride,
                     x.scales + r, weight.scales() + column, panel_bias, valid,
                     y + static_cast<size_t>(r) * n + column, n);
    if (r < x.m)
      rows_kernel<1>(weight.panel(p), groups, x.data + static_cast<size_t>(r) * x.stride, x.stride,
                     x.scales + r, weight.scales() + column, panel_bias, valid,
                     y + static_cast<size_t>(r) * n + column, n);
  }
}

}  // namespace minimt::kernels
