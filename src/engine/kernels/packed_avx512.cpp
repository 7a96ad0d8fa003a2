// The AVX-512 packed kernel: a 32-column panel is two 16-float vectors. Built only on x86-64;
// run only where the CPU reports AVX-512F (packed_gemm.cpp checks before packing).
#include <immintrin.h>

#include <algorithm>

#include "engine/kernels/packed_kernels.h"

namespace minimt::kernels {
namespace {

// ROWS rows of x against one 32-column panel. Even and odd k go to separate accumulators
// (4*ROWS vectors in registers): two independent FMA chains per output hide the FMA latency
// when there are few rows.
constexpr int kPrefetchFloats = 512;

template <int ROWS>
__attribute__((target("avx512f"))) void panel_kernel(const float* panel, int k, const float* x,
                                                     int ldx, const float* bias, int valid,
                                                     float* y, int ldy) {
  __m512 even[ROWS][2], odd[ROWS][2];
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r)
    even[r][0] = even[r][1] = odd[r][0] = odd[r][1] = _mm512_setzero_ps();
  int i = 0;
  for (; i + 1 < k; i += 2) {
    const float* w = panel + static_cast<size_t>(i) * 32;
    const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
    const __m512 w2 = _mm512_loadu_ps(w + 32), w3 = _mm512_loadu_ps(w + 48);
    // With few rows the kernel waits on memory: ask for the panel 2 KB ahead.
    if (ROWS <= 2)
      for (int line = 0; line < 4; ++line)
        _mm_prefetch(reinterpret_cast<const char*>(w + kPrefetchFloats + 16 * line), _MM_HINT_T0);
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      const float* row = x + static_cast<size_t>(r) * ldx + i;
      const __m512 a0 = _mm512_set1_ps(row[0]), a1 = _mm512_set1_ps(row[1]);
      even[r][0] = _mm512_fmadd_ps(a0, w0, even[r][0]);
      even[r][1] = _mm512_fmadd_ps(a0, w1, even[r][1]);
      odd[r][0] = _mm512_fmadd_ps(a1, w2, odd[r][0]);
      odd[r][1] = _mm512_fmadd_ps(a1, w3, odd[r][1]);
    }
  }
  if (i < k) {  // odd k: the last one goes to the even accumulators
    const float* w = panel + static_cast<size_t>(i) * 32;
    const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      const __m512 a0 = _mm512_set1_ps(x[static_cast<size_t>(r) * ldx + i]);
      even[r][0] = _mm512_fmadd_ps(a0, w0, even[r][0]);
      even[r][1] = _mm512_fmadd_ps(a0, w1, even[r][1]);
    }
  }
  const __mmask16 mask0 = valid >= 16 ? 0xffff : static_cast<__mmask16>((1u << valid) - 1);
  const __mmask16 mask1 = valid >= 32   ? 0xffff
                          : valid <= 16 ? 0
                                        : static_cast<__mmask16>((1u << (valid - 16)) - 1);
  const __m512 b0 = bias ? _mm512_maskz_loadu_ps(mask0, bias) : _mm512_setzero_ps();
  const __m512 b1 = bias ? _mm512_maskz_loadu_ps(mask1, bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r) {
    float* out = y + static_cast<size_t>(r) * ldy;
    _mm512_mask_storeu_ps(out, mask0, _mm512_add_ps(_mm512_add_ps(even[r][0], odd[r][0]), b0));
    _mm512_mask_storeu_ps(out + 16, mask1, _mm512_add_ps(_mm512_add_ps(even[r][1], odd[r][1]), b1));
  }
}

using PanelKernel = void (*)(const float*, int, const float*, int, const float*, int, float*, int);
constexpr int kRowBlock = 6;  // 24 accumulators + 4 weight vectors fit the 32 registers
constexpr PanelKernel kKernels[kRowBlock + 1] = {nullptr,         panel_kernel<1>, panel_kernel<2>,
                                                 panel_kernel<3>, panel_kernel<4>, panel_kernel<5>,
                                                 panel_kernel<6>};

}  // namespace

void packed_linear_avx512(const PackedMatrix& weight, const float* bias, const float* x, int m,
                          int ldx, float* y) {
  const int n = weight.rows(), k = weight.cols();
  // Panel outer, rows inner: one panel (k*32 floats) stays in cache while every row uses it.
  for (int p = 0; p < weight.panels(); ++p) {
    const int column = p * PackedMatrix::kPanel;
    const int valid = std::min(PackedMatrix::kPanel, n - column);
    const float* panel_bias = bias ? bias + column : nullptr;
    for (int r = 0; r < m; r += kRowBlock) {
      const int rows = std::min(kRowBlock, m - r);
      kKernels[rows](weight.panel(p), k, x + static_cast<size_t>(r) * ldx, ldx, panel_bias, valid,
                     y + static_cast<size_t>(r) * n + column, n);
    }
  }
}

}  // namespace minimt::kernels
