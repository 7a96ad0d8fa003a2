// Packing a Linear weight's rows into a 32-column panel (packed_gemm.h): a transpose, done at
// every model load for every weight, so a vector version (8 x 8 blocks through AVX2 shuffles)
// earns its keep on the start-up. Both write the same floats: packing only moves them.
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>

#include "engine/kernels/packed_kernels.h"

namespace minimt::kernels {
namespace {

constexpr int kPanel = PackedMatrix::kPanel;

// The scalar transpose of columns [first, columns) of inputs [begin, k), zeros past `columns`.
void pack_rest(const float* rows, int columns, int k, int begin, int first, float* out) {
  for (int i = begin; i < k; ++i) {
    float* line = out + static_cast<size_t>(i) * kPanel;
    for (int j = first; j < columns; ++j) line[j] = rows[static_cast<size_t>(j) * k + i];
    for (int j = std::max(first, columns); j < kPanel; ++j) line[j] = 0.0f;
  }
}

}  // namespace

void pack_panel_generic(const float* rows, int columns, int k, float* out) {
  pack_rest(rows, columns, k, 0, 0, out);
}

#if defined(__x86_64__)
// out[i][j] = rows[j][i] for an 8 x 8 block: rows 8 apart by `k`, out lines kPanel apart.
__attribute__((target("avx2"))) static inline void transpose8(const float* rows, int k,
                                                              float* out) {
  __m256 r[8], t[8];
  for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(rows + static_cast<size_t>(j) * k);
  for (int j = 0; j < 8; j += 2) {
    t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
    t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
  }
  for (int j = 0; j < 8; j += 4) {
    r[j] = _mm256_shuffle_ps(t[j], t[j + 2], 0x44);
    r[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], 0xee);
    r[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], 0x44);
    r[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], 0xee);
  }
  // r[q] (q < 4) holds input q of rows 0-3 in its low half and input q + 4 in its high half;
  // r[4 + q] the same of rows 4-7.
  for (int q = 0; q < 4; ++q) {
    const __m256 low = r[q], high = r[4 + q];
    _mm256_storeu_ps(out + static_cast<size_t>(q) * kPanel,
                     _mm256_permute2f128_ps(low, high, 0x20));
    _mm256_storeu_ps(out + static_cast<size_t>(q + 4) * kPanel,
                     _mm256_permute2f128_ps(low, high, 0x31));
  }
}

__attribute__((target("avx2"))) void pack_panel_avx2(const float* rows, int columns, int k,
                                                     float* out) {
  const int full_columns = columns / 8 * 8, full_inputs = k / 8 * 8;
  for (int i = 0; i < full_inputs; i += 8)
    for (int j = 0; j < full_columns; j += 8)
      transpose8(rows + static_cast<size_t>(j) * k + i, k,
                 out + static_cast<size_t>(i) * kPanel + j);
  // Columns past the last whole block of 8 (and the zeros past n), then inputs past the last
  // whole block of 8.
  for (int i = 0; i < full_inputs; ++i) {
    float* line = out + static_cast<size_t>(i) * kPanel;
    for (int j = full_columns; j < columns; ++j) line[j] = rows[static_cast<size_t>(j) * k + i];
    for (int j = columns; j < kPanel; ++j) line[j] = 0.0f;
  }
  pack_rest(rows, columns, k, full_inputs, 0, out);
}
#endif

}  // namespace minimt::kernels
