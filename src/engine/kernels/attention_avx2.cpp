// The AVX2+FMA attention products (attention_kernels.h): a dot product's 16 lanes in two
// vectors (lanes 0-7 and 8-15), a context row 8 columns at a time. Built only on x86-64; run
// only where the CPU reports AVX2 and FMA.
#include <immintrin.h>

#include "engine/kernels/attention_kernels.h"

namespace minimt::kernels {
namespace {

// A mask for _mm256_maskload_ps: the first `count` of 8 lanes (none when count <= 0).
__attribute__((target("avx2"))) inline __m256i first_lanes(int count) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), index);
}

// reduce_lanes() over 16 lanes held as low (0-7) and high (8-15): i + i+8, then i + i+4,
// i + i+2, i + i+1.
__attribute__((target("avx2"))) inline float reduce16(__m256 low, __m256 high) {
  __m256 eight = _mm256_add_ps(low, high);
  __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
  __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  __m128 one = _mm_add_ss(two, _mm_shuffle_ps(two, two, 1));
  return _mm_cvtss_f32(one);
}

}  // namespace

__attribute__((target("avx2,fma"))) void attention_scores_avx2(const float* q, const float* keys,
                                                               int stride, int count, int dim,
                                                               float scale, float* out) {
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<long>(j) * stride;
    __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
    for (int d = 0; d < dim; d += 16) {
      const __m256i mask_low = first_lanes(dim - d), mask_high = first_lanes(dim - d - 8);
      low = _mm256_fmadd_ps(_mm256_maskload_ps(q + d, mask_low),
                            _mm256_maskload_ps(key + d, mask_low), low);
      high = _mm256_fmadd_ps(_mm256_maskload_ps(q + d + 8, mask_high),
                             _mm256_maskload_ps(key + d + 8, mask_high), high);
    }
    out[j] = reduce16(low, high) * scale;
  }
}

// Four 8-column chains side by side (32 columns a pass), as in the AVX-512 kernel.
__attribute__((target("avx2,fma"))) void attention_context_avx2(const float* weights,
                                                                const float* values, int stride,
                                                                int count, int dim, float* out) {
  for (int d = 0; d < dim; d += 32) {
    __m256i mask[4];
    __m256 sum[4];
    for (int part = 0; part < 4; ++part) {
      mask[part] = first_lanes(dim - d - 8 * part);
      sum[part] = _mm256_setzero_ps();
    }
    for (int j = 0; j < count; ++j) {
      const __m256 weight = _mm256_set1_ps(weights[j]);
      const float* row = values + static_cast<long>(j) * stride + d;
      for (int part = 0; part < 4; ++part)
        sum[part] =
            _mm256_fmadd_ps(weight, _mm256_maskload_ps(row + 8 * part, mask[part]), sum[part]);
    }
    for (int part = 0; part < 4; ++part)
      _mm256_maskstore_ps(out + d + 8 * part, mask[part], sum[part]);
  }
}

}  // namespace minimt::kernels
