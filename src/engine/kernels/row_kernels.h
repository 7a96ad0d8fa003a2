// The row kernels behind ops::log_sum_exp and ops::layer_norm, one per instruction set. All of
// them compute in the same order, lane for lane, so they give the same bits:
//   log_sum_exp: the values in blocks of kExpLanes, value i in lane i % kExpLanes (the last
//     block padded with -infinity, which adds exactly 0); exp by exp_lane() below; the lanes
//     summed by reduce_lanes(); peak + logf(sum).
//   layer_norm: sum and then squared deviations in kNormLanes lanes the same way (padding adds
//     exactly 0), reduced by reduce_lanes(); then (x - mean) * inverse * weight + bias.
//   argmax: the lowest index of the row's largest value, NaN never largest unless it is first
//     (then 0): the result of `if (row[i] > row[best]) best = i` from best = 0, an exact index,
//     so every way of finding it agrees.
//   first_above: the lowest index i in [from, length) with row[i] > threshold (NaN is above
//     nothing), or length: an exact index, as argmax.
//   rms_norm (T5's norm, format v2): squares in kNormLanes lanes the same way (padding adds
//     exactly 0), reduced by reduce_lanes(), divided by dim; then (x * inverse) * weight.
// The x86 ones are built only on x86-64 (see CMakeLists.txt).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace minimt::kernels {

constexpr int kExpLanes = 64;   // 4 AVX-512 or 8 AVX2 accumulators: room for the add latency
constexpr int kNormLanes = 32;  // 2 AVX-512 or 4 AVX2 accumulators

// exp(x) for x <= 0 (Cephes expf: x = n ln2 + r, |r| <= ln2/2, a degree-5 polynomial for
// e^r, then 2^n from the exponent bits); below kExpFloor it is 0, as -infinity's is.
constexpr float kExpFloor = -87.33654f;  // ln of the least normal float
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
constexpr float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
constexpr float kExpPoly[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                               4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

// One multiply-add rounded once, as the vector kernels' FMA does, so the generic kernels give
// their bits on every CPU (where the target has no FMA instruction, std::fma is a library call:
// slower, still exact).
inline float fused(float a, float b, float c) {
  return std::fma(a, b, c);
}

// The scalar twin of the vector exp in row_kernels_avx512.cpp and row_kernels_avx2.cpp.
inline float exp_lane(float x) {
  if (!(x >= kExpFloor)) return 0.0f;  // -infinity, underflow (and NaN) add nothing
  const float t = fused(x, kLog2e, kRoundMagic);
  const float n = t - kRoundMagic;
  float r = fused(n, -kLn2High, x);
  r = fused(n, -kLn2Low, r);
  float y = kExpPoly[0];
  for (int i = 1; i < 6; ++i) y = fused(y, r, kExpPoly[i]);
  y = fused(y, r * r, r) + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

// Sums `count` (a power of two) lanes pairwise: lane i + lane i + count/2, halving each time.
inline float reduce_lanes(float* lanes, int count) {
  for (int half = count / 2; half >= 1; half /= 2)
    for (int i = 0; i < half; ++i) lanes[i] += lanes[i + half];
  return lanes[0];
}

// log(sum(exp(row - peak))) + peak for a finite peak = max(row).
float log_sum_exp_generic(const float* row, int length, float peak);
void layer_norm_row_generic(float* row, int dim, const float* weight, const float* bias, float eps);
float row_max_generic(const float* row, int length);
void rms_norm_row_generic(float* row, int dim, const float* weight, float eps);
int argmax_generic(const float* row, int length);
int first_above_generic(const float* row, int from, int length, float threshold);
#if defined(__x86_64__)
float log_sum_exp_avx2(const float* row, int length, float peak);
void layer_norm_row_avx2(float* row, int dim, const float* weight, const float* bias, float eps);
float row_max_avx2(const float* row, int length);
void rms_norm_row_avx2(float* row, int dim, const float* weight, float eps);
float log_sum_exp_avx512(const float* row, int length, float peak);
void layer_norm_row_avx512(float* row, int dim, const float* weight, const float* bias, float eps);
float row_max_avx512(const float* row, int length);
void rms_norm_row_avx512(float* row, int dim, const float* weight, float eps);
int argmax_avx512(const float* row, int length);
int first_above_avx512(const float* row, int from, int length, float threshold);
#endif

}  // namespace minimt::kernels

namespace minimt::kernels {

// One instruction set's row kernels.
struct RowKernels {
  const char* name;
  float (*row_max)(const float* row, int length);
  float (*log_sum_exp)(const float* row, int length, float peak);
  void (*layer_norm_row)(float* row, int dim, const float* weight, const float* bias, float eps);
  void (*rms_norm_row)(float* row, int dim, const float* weight, float eps);
  int (*argmax)(const float* row, int length);
  int (*first_above)(const float* row, int from, int length, float threshold);
};

// Chosen in the kernel registry (kernel_table.h).

}  // namespace minimt::kernels
