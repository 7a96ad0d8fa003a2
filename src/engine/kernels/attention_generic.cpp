// The portable attention products: plain C++ in the order of attention_kernels.h. std::fma
// rounds once, as a vector FMA does, so these give the vector kernels' bits.
#include <cmath>

#include "engine/kernels/attention_kernels.h"
#include "engine/kernels/fma_clones.h"
#include "engine/kernels/row_kernels.h"

namespace minimt::kernels {

MINIMT_FMA_CLONES void attention_scores_generic(const float* q, const float* keys, int stride,
                                                int count, int dim, float scale, float* out) {
  const int padded = (dim + kDotLanes - 1) / kDotLanes * kDotLanes;
  for (int j = 0; j < count; ++j) {
    const float* key = keys + static_cast<long>(j) * stride;
    float lanes[kDotLanes] = {};
    for (int d = 0; d < padded; ++d) {
      const bool inside = d < dim;
      lanes[d % kDotLanes] =
          std::fma(inside ? q[d] : 0.0f, inside ? key[d] : 0.0f, lanes[d % kDotLanes]);
    }
    out[j] = reduce_lanes(lanes, kDotLanes) * scale;
  }
}

MINIMT_FMA_CLONES void attention_context_generic(const float* weights, const float* values,
                                                 int stride, int count, int dim, float* out) {
  for (int d = 0; d < dim; ++d) {
    float sum = 0.0f;
    for (int j = 0; j < count; ++j)
      sum = std::fma(weights[j], values[static_cast<long>(j) * stride + d], sum);
    out[d] = sum;
  }
}

}  // namespace minimt::kernels
