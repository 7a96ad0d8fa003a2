// The AVX2+FMA packed kernel, for x86 CPUs without AVX-512 (most laptops, many servers). It
// reads the same 32-column panels as the AVX-512 kernel, one 16-column half at a time (two
// 8-float vectors), because AVX2 has 16 vector registers, not 32. Built only on x86-64; run only
// where the CPU reports AVX2 and FMA (packed_gemm.cpp checks before packing).
#include <immintrin.h>

#include <algorithm>

#include "engine/kernels/packed_kernels.h"

namespace minimt::kernels {
namespace {

constexpr int kPanel = PackedMatrix::kPanel;
constexpr int kHalf = 16;

// Lane i of the mask is all ones when i < valid: only the columns that exist are read or written.
__attribute__((target("avx2,fma"))) inline __m256i lane_mask(int valid) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), lanes);
}

// ROWS rows of x against 16 columns of one panel (`half` points at the panel's first or second
// 16 columns; rows of the panel are kPanel floats apart). Even and odd k go to separate
// accumulators, 4*ROWS vectors, as in the AVX-512 kernel: the same summation order.
template <int ROWS>
__attribute__((target("avx2,fma"))) void half_kernel(const float* half, int k, const float* x,
                                                     int ldx, const float* bias, int valid,
                                                     float* y, int ldy) {
  __m256 even[ROWS][2], odd[ROWS][2];
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r)
    even[r][0] = even[r][1] = odd[r][0] = odd[r][1] = _mm256_setzero_ps();
  int i = 0;
  for (; i + 1 < k; i += 2) {
    const float* w = half + static_cast<size_t>(i) * kPanel;
    const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
    const __m256 w2 = _mm256_loadu_ps(w + kPanel), w3 = _mm256_loadu_ps(w + kPanel + 8);
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      const float* row = x + static_cast<size_t>(r) * ldx + i;
      const __m256 a0 = _mm256_broadcast_ss(row), a1 = _mm256_broadcast_ss(row + 1);
      even[r][0] = _mm256_fmadd_ps(a0, w0, even[r][0]);
      even[r][1] = _mm256_fmadd_ps(a0, w1, even[r][1]);
      odd[r][0] = _mm256_fmadd_ps(a1, w2, odd[r][0]);
      odd[r][1] = _mm256_fmadd_ps(a1, w3, odd[r][1]);
    }
  }
  if (i < k) {  // odd k: the last one goes to the even accumulators
    const float* w = half + static_cast<size_t>(i) * kPanel;
    const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      const __m256 a0 = _mm256_broadcast_ss(x + static_cast<size_t>(r) * ldx + i);
      even[r][0] = _mm256_fmadd_ps(a0, w0, even[r][0]);
      even[r][1] = _mm256_fmadd_ps(a0, w1, even[r][1]);
    }
  }
  float* const out0 = y;
  if (valid == kHalf) {  // the usual case: plain loads and stores
    const __m256 b0 = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    const __m256 b1 = bias ? _mm256_loadu_ps(bias + 8) : _mm256_setzero_ps();
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      float* out = out0 + static_cast<size_t>(r) * ldy;
      _mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(even[r][0], odd[r][0]), b0));
      _mm256_storeu_ps(out + 8, _mm256_add_ps(_mm256_add_ps(even[r][1], odd[r][1]), b1));
    }
    return;
  }
  // The last columns of the matrix: masked moves (slow on some CPUs, so only here).
  const __m256i mask0 = lane_mask(valid), mask1 = lane_mask(valid - 8);
  const __m256 b0 = bias ? _mm256_maskload_ps(bias, mask0) : _mm256_setzero_ps();
  const __m256 b1 = bias ? _mm256_maskload_ps(bias + 8, mask1) : _mm256_setzero_ps();
#pragma GCC unroll 8
  for (int r = 0; r < ROWS; ++r) {
    float* out = out0 + static_cast<size_t>(r) * ldy;
    _mm256_maskstore_ps(out, mask0, _mm256_add_ps(_mm256_add_ps(even[r][0], odd[r][0]), b0));
    _mm256_maskstore_ps(out + 8, mask1, _mm256_add_ps(_mm256_add_ps(even[r][1], odd[r][1]), b1));
  }
}

using HalfKernel = void (*)(const float*, int, const float*, int, const float*, int, float*, int);
constexpr int kRowBlock = 3;  // 12 accumulators + 4 weight vectors: the 16 registers
constexpr HalfKernel kKernels[kRowBlock + 1] = {nullptr, half_kernel<1>, half_kernel<2>,
                                                half_kernel<3>};

}  // namespace

void packed_linear_avx2(const PackedMatrix& weight, const float* bias, const float* x, int m,
                        int ldx, float* y) {
  const int n = weight.rows(), k = weight.cols();
  for (int p = 0; p < weight.panels(); ++p) {
    for (int h = 0; h < kPanel / kHalf; ++h) {
      const int column = p * kPanel + h * kHalf;
      const int valid = std::min(kHalf, n - column);
      if (valid <= 0) break;
      const float* half = weight.panel(p) + h * kHalf;
      const float* half_bias = bias ? bias + column : nullptr;
      for (int r = 0; r < m; r += kRowBlock) {
        const int rows = std::min(kRowBlock, m - r);
        kKernels[rows](half, k, x + static_cast<size_t>(r) * ldx, ldx, half_bias, valid,
                       y + static_cast<size_t>(r) * n + column, n);
      }
    }
  }
}

}  // namespace minimt::kernels
