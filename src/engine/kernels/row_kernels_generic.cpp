// The portable row kernels: plain C++ in the lane order of row_kernels.h, so they give the
// vector kernels' bits wherever the multiply-adds round alike.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kernels/row_kernels.h"

namespace minimt::kernels {

float row_max_generic(const float* row, int length) {
  float peak = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < length; ++i) peak = std::max(peak, row[i]);
  return peak;
}

int argmax_generic(const float* row, int length) {
  int best = 0;
  for (int i = 1; i < length; ++i)
    if (row[i] > row[best]) best = i;
  return best;
}

int first_above_generic(const float* row, int from, int length, float threshold) {
  for (int i = from; i < length; ++i)
    if (row[i] > threshold) return i;
  return length;
}

float log_sum_exp_generic(const float* row, int length, float peak) {
  float lanes[kExpLanes] = {};
  for (int i = 0; i < length; ++i) lanes[i % kExpLanes] += exp_lane(row[i] - peak);
  return peak + std::log(reduce_lanes(lanes, kExpLanes));
}

void layer_norm_row_generic(float* row, int dim, const float* weight, const float* bias,
                            float eps) {
  float lanes[kNormLanes] = {};
  for (int i = 0; i < dim; ++i) lanes[i % kNormLanes] += row[i];
  const float mean = reduce_lanes(lanes, kNormLanes) / static_cast<float>(dim);
  std::fill(lanes, lanes + kNormLanes, 0.0f);
  for (int i = 0; i < dim; ++i) {
    const float centred = row[i] - mean;
    lanes[i % kNormLanes] += centred * centred;
  }
  // Biased variance, as PyTorch's LayerNorm.
  const float variance = reduce_lanes(lanes, kNormLanes) / static_cast<float>(dim);
  const float inverse = 1.0f / std::sqrt(variance + eps);
  for (int i = 0; i < dim; ++i) row[i] = (row[i] - mean) * inverse * weight[i] + bias[i];
}

void rms_norm_row_generic(float* row, int dim, const float* weight, float eps) {
  float lanes[kNormLanes] = {};
  for (int i = 0; i < dim; ++i) lanes[i % kNormLanes] += row[i] * row[i];
  // The mean square in float32, as T5LayerNorm computes its variance.
  const float mean_square = reduce_lanes(lanes, kNormLanes) / static_cast<float>(dim);
  const float inverse = 1.0f / std::sqrt(mean_square + eps);
  for (int i = 0; i < dim; ++i) row[i] = (row[i] * inverse) * weight[i];
}

}  // namespace minimt::kernels
