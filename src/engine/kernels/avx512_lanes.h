// Two pieces every AVX-512 kernel file uses the same way: the mask of a vector's first lanes
// (a row's last, partial block) and the one order in which 16 lanes are summed. Included only
// by files built for x86-64; the functions run only where the CPU reports AVX-512F.
#pragma once

#include <immintrin.h>

namespace minimt::kernels {

// The first `count` of 16 lanes: none for count <= 0, all for count >= 16.
__attribute__((target("avx512f"))) inline __mmask16 first_lanes(int count) {
  if (count <= 0) return 0;
  return count >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << count) - 1);
}

// reduce_lanes() (row_kernels.h) over 16 lanes, in registers: i + i+8, then i + i+4, i + i+2,
// i + i+1. The attention dot products and the row kernels' sums end with it.
__attribute__((target("avx512f"))) inline float reduce16(__m512 lanes) {
  const __m256 upper = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lanes), 1));
  const __m256 eight = _mm256_add_ps(_mm512_castps512_ps256(lanes), upper);
  const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
  const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  return _mm_cvtss_f32(_mm_add_ss(two, _mm_shuffle_ps(two, two, 1)));
}

}  // namespace minimt::kernels
