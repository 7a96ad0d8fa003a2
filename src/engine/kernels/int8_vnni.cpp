// The AVX-512 VNNI int8 kernel: vpdpbusd multiplies 4 unsigned activation bytes by 4 signed
// weight bytes and adds the 4 products to a 32-bit lane, 64 products per instruction. A panel's
// group of 4 inputs is [32 columns][4] bytes, two 64-byte vectors; several rows are multiplied
// by two panels at once (the last of an odd count alone), one row by one panel at a time.
// Activations arrive as q + 128 (unsigned), so the sums carry 128 * sum_i qw[c][i] extra: the
// accumulators start at minus that; int32 arithmetic wraps, so the result is exact. Built only on
// x86-64; run only where the CPU reports AVX512-VNNI, AVX512-BW and AVX512-VL (int8_gemm.cpp checks
// before packing). GCC 12 warns about the _mm512_undefined_* inside its own intrinsics (its bug
// 105593), where they are inlined: so for the whole file.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "engine/kernels/avx512_lanes.h"
#include "engine/kernels/int8_kernels.h"

namespace minimt::kernels {
namespace {

constexpr int kPanel = Int8Matrix::kPanel;
#define MINIMT_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// acc += the 4-byte dot products of a (unsigned) and w (signed), in place. Written in asm
// because GCC 12 copies the accumulator around the intrinsic (two moves per product).
MINIMT_VNNI inline void dot_add(__m512i& acc, __m512i a, __m512i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
}

MINIMT_VNNI inline __m512i broadcast4(const uint8_t* bytes) {
  int32_t word;
  std::memcpy(&word, bytes, sizeof word);
  return _mm512_set1_epi32(word);
}

struct Dequantize {
  const float* row_scales;  // sx, one per row
  __m512 column_scale[2];   // sw
  __m512i start[2];         // -128 * sum_i qw[c][i]: the accumulators' first value
  __m512 bias[2];
  __mmask16 mask[2];

  MINIMT_VNNI Dequantize(const Int8Matrix& weight, int p, const float* all_bias, int valid,
                         const float* scales) {
    row_scales = scales;
    const int column = p * kPanel;
    mask[0] = first_lanes(valid);
    mask[1] = first_lanes(valid - 16);
    for (int h = 0; h < 2; ++h) {
      column_scale[h] = _mm512_loadu_ps(weight.scales() + column + 16 * h);
      start[h] = _mm512_sub_epi32(
          _mm512_setzero_si512(),
          _mm512_slli_epi32(_mm512_loadu_si512(weight.sums() + column + 16 * h), 7));
      bias[h] = all_bias ? _mm512_maskz_loadu_ps(mask[h], all_bias + column + 16 * h)
                         : _mm512_setzero_ps();
    }
  }

  // y = fma(float(sum - offset), sx * sw, bias), the generic kernel's arithmetic; `sum` began
  // at start[h] = -offset, and int32 sums wrap, so it holds sum - offset exactly.
  MINIMT_VNNI void store(__m512i sum, int h, int r, float* out) const {
    const __m512 total = _mm512_cvtepi32_ps(sum);
    const __m512 scale = _mm512_mul_ps(_mm512_set1_ps(row_scales[r]), column_scale[h]);
    _mm512_mask_storeu_ps(out + 16 * h, mask[h], _mm512_fmadd_ps(total, scale, bias[h]));
  }
};

// One row: memory-bound, so two chains of accumulators (even and odd groups) and a prefetch of
// the panel ahead. Integer sums are exact, so the split does not change the result.
MINIMT_VNNI void one_row(const int8_t* panel, int groups, const uint8_t* x, const Dequantize& d,
                         int r, float* y) {
  __m512i even0 = d.start[0], even1 = d.start[1], odd0 = _mm512_setzero_si512(), odd1 = odd0;
  int g = 0;
  for (; g + 1 < groups; g += 2) {
    const int8_t* w = panel + static_cast<size_t>(g) * 128;
    for (int line = 0; line < 4; ++line) _mm_prefetch(w + 1024 + 64 * line, _MM_HINT_T0);
    const __m512i a0 = broadcast4(x + 4 * g), a1 = broadcast4(x + 4 * g + 4);
    dot_add(even0, a0, _mm512_loadu_si512(w));
    dot_add(even1, a0, _mm512_loadu_si512(w + 64));
    dot_add(odd0, a1, _mm512_loadu_si512(w + 128));
    dot_add(odd1, a1, _mm512_loadu_si512(w + 192));
  }
  if (g < groups) {
    const int8_t* w = panel + static_cast<size_t>(g) * 128;
    const __m512i a0 = broadcast4(x + 4 * g);
    dot_add(even0, a0, _mm512_loadu_si512(w));
    dot_add(even1, a0, _mm512_loadu_si512(w + 64));
  }
  d.store(_mm512_add_epi32(even0, odd0), 0, r, y);
  d.store(_mm512_add_epi32(even1, odd1), 1, r, y);
}

// ROWS rows against PANELS adjacent panels (32 or 64 columns): 2*PANELS weight vectors loaded
// once per group and 2*PANELS*ROWS accumulators. Two panels halve the broadcasts per product (a
// group costs 4 weight loads and ROWS broadcasts for 4*ROWS products; one panel of 12 rows, 2 and
// 12 for 24): that took a base-sized step's products from 76% to 79% of the peak (medians of 6,
// Zen 4). `ahead`, when not null, is where this call prefetches into L2, `lines` 64-byte lines a
// group: the panels that follow, which memory then delivers while these are multiplied. Few rows
// are bound by the weights: they also ask for their own panels' groups 8 ahead into L1.
template <int ROWS, int PANELS>
MINIMT_VNNI void rows_kernel(const int8_t* panel, int groups, const uint8_t* x, int stride,
                             const Dequantize* d, int r0, float* y, int ldy, const int8_t* ahead,
                             int lines) {
  constexpr int kVectors = 2 * PANELS;
  const size_t panel_bytes = static_cast<size_t>(groups) * 128;
  __m512i acc[ROWS][kVectors];
#pragma GCC unroll 12
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) acc[r][v] = d[v / 2].start[v % 2];
  for (int g = 0; g < groups; ++g) {
    const int8_t* w = panel + static_cast<size_t>(g) * 128;
    if (ahead)
      for (int line = 0; line < lines; ++line)
        _mm_prefetch(ahead + (static_cast<size_t>(g) * lines + line) * 64, _MM_HINT_T1);
    if (ROWS <= (PANELS == 1 ? 4 : 3))
      for (int part = 0; part < kVectors; ++part)
        _mm_prefetch(w + (part / 2) * panel_bytes + 1024 + 64 * (part % 2), _MM_HINT_T0);
    __m512i weights[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
      weights[v] = _mm512_loadu_si512(w + (v / 2) * panel_bytes + 64 * (v % 2));
#pragma GCC unroll 12
    for (int r = 0; r < ROWS; ++r) {
      const __m512i a = broadcast4(x + static_cast<size_t>(r) * stride + 4 * g);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) dot_add(acc[r][v], a, weights[v]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
      d[v / 2].store(acc[r][v], v % 2, r0 + r, y + static_cast<size_t>(r) * ldy + (v / 2) * kPanel);
}

using RowsKernel = void (*)(const int8_t*, int, const uint8_t*, int, const Dequantize*, int, float*,
                            int, const int8_t*, int);
constexpr int kRowBlock = 12;  // one panel: 24 accumulators + 2 weights + a broadcast of 32
constexpr RowsKernel kKernels[kRowBlock + 1] = {
    nullptr,           rows_kernel<1, 1>, rows_kernel<2, 1>,  rows_kernel<3, 1>,
    rows_kernel<4, 1>, rows_kernel<5, 1>, rows_kernel<6, 1>,  rows_kernel<7, 1>,
    rows_kernel<8, 1>, rows_kernel<9, 1>, rows_kernel<10, 1>, rows_kernel<11, 1>,
    rows_kernel<12, 1>};
constexpr int kPairRowBlock = 6;  // two panels: 24 accumulators + 4 weights + a broadcast
constexpr RowsKernel kPairKernels[kPairRowBlock + 1] = {
    nullptr,           rows_kernel<1, 2>, rows_kernel<2, 2>, rows_kernel<3, 2>,
    rows_kernel<4, 2>, rows_kernel<5, 2>, rows_kernel<6, 2>};

}  // namespace

MINIMT_VNNI void int8_linear_vnni(const Int8Matrix& weight, const float* bias,
                                  const QuantizedRows& x, float* y) {
  const int n = weight.rows(), groups = weight.groups(), panels = weight.panels();
  // Several rows: two panels at a time, the last one alone when their count is odd.
  const int paired = x.m > 1 ? panels / 2 * 2 : 0;
  for (int p = 0; p < paired; p += 2) {
    const int column = p * kPanel;
    const Dequantize d[2] = {
        Dequantize(weight, p, bias, std::min(kPanel, n - column), x.scales),
        Dequantize(weight, p + 1, bias, std::min(kPanel, n - column - kPanel), x.scales)};
    // The panels that follow (up to two, 2 lines a group each) are prefetched by the first
    // blocks, each taking an equal share of the lines.
    const int following = std::min(2, panels - p - 2);
    const int blocks = (x.m + kPairRowBlock - 1) / kPairRowBlock;
    const int total = 2 * following;
    const int sharing = blocks >= 4 && total == 4 ? 4 : blocks >= 2 && total >= 2 ? 2 : 1;
    const int lines = total / sharing;
    const int8_t* next = following > 0 ? weight.panel(p + 2) : nullptr;
    for (int r = 0, block = 0; r < x.m; r += kPairRowBlock, ++block) {
      const int rows = std::min(kPairRowBlock, x.m - r);
      const int8_t* ahead = next && block < sharing
                                ? next + static_cast<size_t>(block) * groups * 64 * lines
                                : nullptr;
      kPairKernels[rows](weight.panel(p), groups, x.data + static_cast<size_t>(r) * x.stride,
                         x.stride, d, r, y + static_cast<size_t>(r) * n + column, n, ahead, lines);
    }
  }
  for (int p = paired; p < panels; ++p) {
    const int column = p * kPanel;
    const Dequantize d(weight, p, bias, std::min(kPanel, n - column), x.scales);
    if (x.m == 1) {
      one_row(weight.panel(p), groups, x.data, d, 0, y + column);
      continue;
    }
    // Several rows reach here only for the last panel of an odd count, which the pair before it
    // prefetched: nothing follows to ask for.
    for (int r = 0; r < x.m; r += kRowBlock) {
      const int rows = std::min(kRowBlock, x.m - r);
      kKernels[rows](weight.panel(p), groups, x.data + static_cast<size_t>(r) * x.stride, x.stride,
                     &d, r, y + static_cast<size_t>(r) * n + column, n, nullptr, 0);
    }
  }
}

MINIMT_VNNI float quantize_row_avx512(const float* x, int k, int stride, bool offset, uint8_t* q) {
  // The largest magnitude, in four chains (a max is exact in any order).
  __m512 max_abs[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                       _mm512_setzero_ps()};
  int i = 0;
  for (; i + 64 <= k; i += 64)
    for (int v = 0; v < 4; ++v)
      max_abs[v] = _mm512_max_ps(max_abs[v], _mm512_abs_ps(_mm512_loadu_ps(x + i + 16 * v)));
  for (; i < k; i += 16)
    max_abs[0] =
        _mm512_max_ps(max_abs[0], _mm512_abs_ps(_mm512_maskz_loadu_ps(first_lanes(k - i), x + i)));
  const float largest = _mm512_reduce_max_ps(
      _mm512_max_ps(_mm512_max_ps(max_abs[0], max_abs[1]), _mm512_max_ps(max_abs[2], max_abs[3])));
  const uint8_t zero = offset ? 128 : 0;
  if (largest == 0.0f) {
    std::memset(q, zero, stride);
    return 0.0f;
  }
  // The scalar quantize_row_int8's operations: v * (127 / max), rounded half to even (the
  // default rounding of vcvtps2dq), clamped to [-127, 127]; offset adds 128 (mod 256: the same
  // as flipping the top bit of the int8).
  const __m512 inverse = _mm512_set1_ps(127.0f / largest);
  // 64 at a time: the saturating packs clamp to [-128, 127] (a NaN's or an overflow's
  // INT_MIN to -128), the max then to -127; the packs interleave 128-bit lanes, the permute
  // puts the 16 four-byte pieces back in order.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i low8 = _mm512_set1_epi8(-127), flip8 = _mm512_set1_epi8(offset ? -128 : 0);
  i = 0;
  for (; i + 64 <= k; i += 64) {
    __m512i v[4];
    for (int part = 0; part < 4; ++part)
      v[part] = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + i + 16 * part), inverse));
    const __m512i bytes =
        _mm512_packs_epi16(_mm512_packs_epi32(v[0], v[1]), _mm512_packs_epi32(v[2], v[3]));
    const __m512i clamped = _mm512_max_epi8(_mm512_permutexvar_epi32(order, bytes), low8);
    _mm512_storeu_si512(q + i, _mm512_xor_si512(clamped, flip8));
  }
  const __m512i low = _mm512_set1_epi32(-127), high = _mm512_set1_epi32(127);
  const __m512i shift = _mm512_set1_epi32(offset ? 128 : 0);
  for (; i < k; i += 16) {
    const __mmask16 mask = first_lanes(k - i);
    __m512i v = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), inverse));
    v = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(v, low), high), shift);
    // Narrowed in a register and stored whole where 16 bytes remain: vpmovdb to memory under a
    // mask is microcoded on Zen 4, several times slower.
    const __m128i bytes = _mm512_cvtepi32_epi8(v);
    if (k - i >= 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), bytes);
    else
      _mm_mask_storeu_epi8(q + i, mask, bytes);
  }
  std::memset(q + k, zero, stride - k);
  return largest / 127.0f;
}

}  // namespace minimt::kernels
