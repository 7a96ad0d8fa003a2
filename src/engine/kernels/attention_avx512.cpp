// The AVX-512 attention products (attention_kernels.h): a dot product's 16 lanes in one vector,
// a context row 16 columns at a time. Built only on x86-64; run only where the CPU reports
// AVX-512F.
// GCC 12 warns about the _mm512_undefined_* inside its own intrinsics (its bug 105593), where
// they are inlined: so for the whole file.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>

#include "engine/kernels/attention_kernels.h"
#include "engine/kernels/avx512_lanes.h"

namespace minimt::kernels {
namespace {

// q . key's 16 lanes over dim floats: element d into lane d % 16 in increasing d.
__attribute__((target("avx512f"))) inline __m512 dot_lanes(const float* q, const float* key,
                                                           int dim) {
  __m512 lanes = _mm512_setzero_ps();
  for (int d = 0; d < dim; d += 16) {
    const __mmask16 mask = first_lanes(dim - d);
    lanes = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, q + d),
                            _mm512_maskz_loadu_ps(mask, key + d), lanes);
  }
  return lanes;
}

// q . key: the lanes, then reduce16 (one order for every kernel of this file, so head by head
// and every head at once give the same bits).
__attribute__((target("avx512f"))) inline float dot16(const float* q, const float* key, int dim) {
  return reduce16(dot_lanes(q, key, dim));
}

}  // namespace

__attribute__((target("avx512f"))) void attention_scores_avx512(const float* q, const float* keys,
                                                                int stride, int count, int dim,
                                                                float scale, float* out) {
  for (int j = 0; j < count; ++j) {
    out[j] = dot16(q, keys + static_cast<long>(j) * stride, dim) * scale;
  }
}

// Four 16-column chains side by side (64 columns a pass): four independent FMA chains hide the
// FMA latency; each column's own chain is still in increasing j.
__attribute__((target("avx512f"))) void attention_context_avx512(const float* weights,
                                                                 const float* values, int stride,
                                                                 int count, int dim, float* out) {
  for (int d = 0; d < dim; d += 64) {
    __mmask16 mask[4];
    __m512 sum[4];
    for (int part = 0; part < 4; ++part) {
      mask[part] =
          dim - d - 16 * part <= 0 ? static_cast<__mmask16>(0) : first_lanes(dim - d - 16 * part);
      sum[part] = _mm512_setzero_ps();
    }
    for (int j = 0; j < count; ++j) {
      const __m512 weight = _mm512_set1_ps(weights[j]);
      const float* row = values + static_cast<long>(j) * stride + d;
      for (int part = 0; part < 4; ++part)
        sum[part] =
            _mm512_fmadd_ps(weight, _mm512_maskz_loadu_ps(mask[part], row + 16 * part), sum[part]);
    }
    for (int part = 0; part < 4; ++part)
      _mm512_mask_storeu_ps(out + d + 16 * part, mask[part], sum[part]);
  }
}

namespace {

// The 16 lanes of each of 16 vectors summed as reduce16 sums one (i + i+8, i + i+4, i + i+2,
// i + i+1, lane for lane the same adds), two vectors' halves folded in one shuffle and one
// add at each level: 30 shuffles and 15 adds for 16 sums instead of 64 and 64. Sum v lands in
// lane 4 (v % 4) + v / 4, which the last permute puts back in lane v.
__attribute__((target("avx512f"))) inline __m512 reduce16_many(const __m512 (&v)[16]) {
  __m512 eight[8], four[4], two[2];
  for (int i = 0; i < 8; ++i)  // [v 2i lanes 0-7 + 8-15, v 2i+1 the same]
    eight[i] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44),
                             _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xee));
  for (int i = 0; i < 4; ++i)  // [4 lanes each of v 4i .. 4i+3]: lanes 0-3 + 4-7
    four[i] = _mm512_add_ps(_mm512_shuffle_f32x4(eight[2 * i], eight[2 * i + 1], 0x88),
                            _mm512_shuffle_f32x4(eight[2 * i], eight[2 * i + 1], 0xdd));
  for (int i = 0; i < 2; ++i)  // 128-bit chunk c: two lanes of v 8i+c, two of v 8i+4+c
    two[i] = _mm512_add_ps(_mm512_shuffle_ps(four[2 * i], four[2 * i + 1], 0x44),
                           _mm512_shuffle_ps(four[2 * i], four[2 * i + 1], 0xee));
  const __m512 sums = _mm512_add_ps(_mm512_shuffle_ps(two[0], two[1], 0x88),
                                    _mm512_shuffle_ps(two[0], two[1], 0xdd));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, sums);
}

// dot_lanes for dim = 16 CHUNKS (CHUNKS > 0; the same chain, no masks, unrolled), or any dim.
template <int CHUNKS>
__attribute__((target("avx512f"))) inline __m512 dot_lanes_of(const float* q, const float* key,
                                                              int dim) {
  if constexpr (CHUNKS == 0) {
    return dot_lanes(q, key, dim);
  } else {
    __m512 lanes = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int c = 0; c < CHUNKS; ++c)
      lanes = _mm512_fmadd_ps(_mm512_loadu_ps(q + 16 * c), _mm512_loadu_ps(key + 16 * c), lanes);
    return lanes;
  }
}

// attention_scores_heads_avx512 for dim = 16 CHUNKS (or any dim: CHUNKS = 0). The lanes of 16
// (key, head) pairs in turn, summed together by reduce16_many.
template <int CHUNKS>
__attribute__((target("avx512f"))) void scores_heads(const float* q, const float* keys,
                                                     const float* values, int stride, int count,
                                                     int heads, int dim, float scale, float* out,
                                                     int out_stride) {
  const int width = heads * dim, pairs = count * heads;
  const __m512 scales = _mm512_set1_ps(scale);
  int j = 0, r = 0;  // the next pair's key and head
  for (int first = 0; first < pairs; first += 16) {
    const int group = std::min(16, pairs - first);
    int keys_of[16], heads_of[16];
    __m512 lanes[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {
      lanes[i] = _mm512_setzero_ps();
      if (i >= group) continue;
      const float* key = keys + static_cast<long>(j) * stride;
      if (r == 0) {
        // The cache rows come from memory: ask for the key row two ahead, and for value row j,
        // which context_heads reads next (the hardware alone fetches a sentence's few rows
        // late).
        if (j + 2 < count)
          for (int at = 0; at < width; at += 16) _mm_prefetch(key + 2L * stride + at, _MM_HINT_T0);
        if (values)
          for (int at = 0; at < width; at += 16)
            _mm_prefetch(values + static_cast<long>(j) * stride + at, _MM_HINT_T1);
      }
      lanes[i] = dot_lanes_of<CHUNKS>(q + static_cast<long>(r) * dim,
                                      key + static_cast<long>(r) * dim, dim);
      keys_of[i] = j;
      heads_of[i] = r;
      if (++r == heads) r = 0, ++j;
    }
    alignas(64) float sums[16];
    _mm512_store_ps(sums, _mm512_mul_ps(reduce16_many(lanes), scales));
    for (int i = 0; i < group; ++i)
      out[static_cast<long>(heads_of[i]) * out_stride + keys_of[i]] = sums[i];
  }
}

}  // namespace

// Every head of one query at once, key by key: each key row is read whole, front to back, so a
// sentence's cache streams from memory in order instead of being walked 8 times in slices (a
// head's 64 columns of each row). Each score is the per-head kernel's dot, the same bits.
__attribute__((target("avx512f"))) void attention_scores_heads_avx512(
    const float* q, const float* keys, const float* values, int stride, int count, int heads,
    int dim, float scale, float* out, int out_stride) {
  switch (dim) {  // the usual head widths unrolled
    case 32:
      return scores_heads<2>(q, keys, values, stride, count, heads, dim, scale, out, out_stride);
    case 48:
      return scores_heads<3>(q, keys, values, stride, count, heads, dim, scale, out, out_stride);
    case 64:
      return scores_heads<4>(q, keys, values, stride, count, heads, dim, scale, out, out_stride);
    case 128:
      return scores_heads<8>(q, keys, values, stride, count, heads, dim, scale, out, out_stride);
    default:
      return scores_heads<0>(q, keys, values, stride, count, heads, dim, scale, out, out_stride);
  }
}

namespace {

// VECS 16-column vectors of the context, starting at column `column` (a multiple of 16, each
// vector inside one head, dim a multiple of 16): one chain per column in increasing j, as the
// per-head kernel, with the value rows read VECS * 64 bytes at a time.
template <int VECS>
__attribute__((target("avx512f"))) void context_vectors(const float* weights, int weight_stride,
                                                        const float* values, int stride, int count,
                                                        int dim, int column, float* out) {
  __m512 sum[VECS];
  const float* weight[VECS];
  for (int v = 0; v < VECS; ++v) {
    sum[v] = _mm512_setzero_ps();
    weight[v] = weights + static_cast<long>((column + 16 * v) / dim) * weight_stride;
  }
  for (int j = 0; j < count; ++j) {
    const float* row = values + static_cast<long>(j) * stride + column;
#pragma GCC unroll 16
    for (int v = 0; v < VECS; ++v)
      sum[v] = _mm512_fmadd_ps(_mm512_set1_ps(weight[v][j]), _mm512_loadu_ps(row + 16 * v), sum[v]);
  }
  for (int v = 0; v < VECS; ++v) _mm512_storeu_ps(out + column + 16 * v, sum[v]);
}

}  // namespace

__attribute__((target("avx512f"))) void attention_context_heads_avx512(
    const float* weights, int weight_stride, const float* values, int stride, int count, int heads,
    int dim, float* out) {
  if (dim % 16 != 0) {  // vectors would straddle heads: head by head
    for (int r = 0; r < heads; ++r)
      attention_context_avx512(weights + static_cast<long>(r) * weight_stride,
                               values + static_cast<long>(r) * dim, stride, count, dim,
                               out + static_cast<long>(r) * dim);
    return;
  }
  const int width = heads * dim;
  int column = 0;
  for (; column + 256 <= width; column += 256)
    context_vectors<16>(weights, weight_stride, values, stride, count, dim, column, out);
  if (column + 128 <= width) {
    context_vectors<8>(weights, weight_stride, values, stride, count, dim, column, out);
    column += 128;
  }
  if (column + 64 <= width) {
    context_vectors<4>(weights, weight_stride, values, stride, count, dim, column, out);
    column += 64;
  }
  if (column + 32 <= width) {
    context_vectors<2>(weights, weight_stride, values, stride, count, dim, column, out);
    column += 32;
  }
  if (column < width)
    context_vectors<1>(weights, weight_stride, values, stride, count, dim, column, out);
}

}  // namespace minimt::kernels
