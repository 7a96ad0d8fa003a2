// The AVX512_BF16 kernel: vdpbf16ps multiplies pairs of bf16 values and adds both products to
// a float lane. A panel's pair of inputs is [32 columns][2] bf16, two 64-byte vectors; each
// activation pair is broadcast as one 32-bit word. Activations are rounded to bf16 once per
// call (vcvtne2ps2bf16, half to even). Built only on x86-64; run only where the CPU reports
// AVX512_BF16 (Bf16Matrix checks before packing).
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/kernels/bf16_kernels.h"

namespace minimt::kernels {
namespace {

constexpr int kPanel = Bf16Matrix::kPanel;
#define MINIMT_BF16 __attribute__((target("avx512f,avx512bw,avx512bf16")))

// Rounds m rows of x [m, k] to bf16 rows of `pairs` words (an odd k padded with a zero).
MINIMT_BF16 const uint32_t* round_rows(const float* x, int m, int k, int ldx, int pairs) {
  thread_local std::vector<uint32_t> words;
  words.resize(static_cast<size_t>(m) * pairs);
  for (int r = 0; r < m; ++r) {
    const float* in = x + static_cast<size_t>(r) * ldx;
    uint32_t* out = words.data() + static_cast<size_t>(r) * pairs;
    for (int i = 0; i < k; i += 32) {
      const int left = std::min(32, k - i);
      const __mmask16 low = left >= 16 ? 0xffff : static_cast<__mmask16>((1u << left) - 1);
      const __mmask16 high = left >= 32   ? 0xffff
                             : left <= 16 ? 0
                                          : static_cast<__mmask16>((1u << (left - 16)) - 1);
      const __m512bh both = _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(high, in + i + 16),
                                                _mm512_maskz_loadu_ps(low, in + i));
      const __mmask32 words_mask = (left + 1) / 2 >= 16 ? 0xffff : (1u << ((left + 1) / 2)) - 1;
      _mm512_mask_storeu_epi32(out + i / 2, static_cast<__mmask16>(words_mask),
                               reinterpret_cast<const __m512i&>(both));
    }
  }
  return words.data();
}

template <int ROWS>
MINIMT_BF16 void rows_kernel(const uint16_t* panel, int pairs, const uint32_t* x, int ldx,
                             const float* bias, int valid, float* y, int ldy) {
  __m512 acc[ROWS][2];
#pragma GCC unroll 12
  for (int r = 0; r < ROWS; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int i = 0; i < pairs; ++i) {
    const uint16_t* w = panel + static_cast<size_t>(i) * 64;
    if (ROWS <= 2)
      for (int line = 0; line < 2; ++line) _mm_prefetch(w + 512 + 32 * line, _MM_HINT_T0);
    const __m512bh w0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(w));
    const __m512bh w1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(w + 32));
#pragma GCC unroll 12
    for (int r = 0; r < ROWS; ++r) {
      const __m512bh a = reinterpret_cast<__m512bh>(
          _mm512_set1_epi32(static_cast<int>(x[static_cast<size_t>(r) * ldx + i])));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], a, w0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], a, w1);
    }
  }
  const __mmask16 mask0 = valid >= 16 ? 0xffff : static_cast<__mmask16>((1u << valid) - 1);
  const __mmask16 mask1 = valid >= 32   ? 0xffff
                          : valid <= 16 ? 0
                                        : static_cast<__mmask16>((1u << (valid - 16)) - 1);
  const __m512 b0 = bias ? _mm512_maskz_loadu_ps(mask0, bias) : _mm512_setzero_ps();
  const __m512 b1 = bias ? _mm512_maskz_loadu_ps(mask1, bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
  for (int r = 0; r < ROWS; ++r) {
    _mm512_mask_storeu_ps(y + static_cast<size_t>(r) * ldy, mask0, _mm512_add_ps(acc[r][0], b0));
    _mm512_mask_storeu_ps(y + static_cast<size_t>(r) * ldy + 16, mask1,
                          _mm512_add_ps(acc[r][1], b1));
  }
}

using RowsKernel = void (*)(const uint16_t*, int, const uint32_t*, int, const float*, int, float*,
                            int);
constexpr int kRowBlock = 12;
constexpr RowsKernel kKernels[kRowBlock + 1] = {
    nullptr,         rows_kernel<1>,  rows_kernel<2>, rows_kernel<3>, rows_kernel<4>,
    rows_kernel<5>,  rows_kernel<6>,  rows_kernel<7>, rows_kernel<8>, rows_kernel<9>,
    rows_kernel<10>, rows_kernel<11>, rows_kernel<12>};

}  // namespace

MINIMT_BF16 void bf16_linear_avx512(const Bf16Matrix* const* weights, const float* const* biases,
                                    int count, const float* x, int m, int ldx, float* const* ys) {
  if (count == 0) return;
  const int pairs = weights[0]->pairs();
  const uint32_t* rows = round_rows(x, m, weights[0]->cols(), ldx, pairs);
  for (int j = 0; j < count; ++j) {
    const Bf16Matrix& weight = *weights[j];
    const float* bias = biases[j];
    float* y = ys[j];
    const int n = weight.rows();
    for (int p = 0; p < weight.panels(); ++p) {
      const int column = p * kPanel;
      const int valid = std::min(kPanel, n - column);
      const float* panel_bias = bias ? bias + column : nullptr;
      for (int r = 0; r < m; r += kRowBlock) {
        const int block = std::min(kRowBlock, m - r);
        kKernels[block](weight.panel(p), pairs, rows + static_cast<size_t>(r) * pairs, pairs,
                        panel_bias, valid, y + static_cast<size_t>(r) * n + column, n);
      }
    }
  }
}

}  // namespace minimt::kernels
