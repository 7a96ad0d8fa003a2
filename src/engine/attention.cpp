#include "minimt/engine/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "minimt/engine/ops.h"

namespace minimt {

void multi_head_attention(const float* q, const float* k, const float* v, int tq, int tk, int heads,
                          int head_dim, bool causal, float* context, float* probs,
                          std::vector<float>& scratch, const char* masked_heads) {
  const int width = heads * head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const int64_t block = static_cast<int64_t>(tq) * tk;
  if (!probs && scratch.size() < static_cast<size_t>(block)) scratch.resize(block);
  for (int r = 0; r < heads; ++r) {
    float* scores = probs ? probs + r * block : scratch.data();  // [tq, tk]
    const int column = r * head_dim;
    if (masked_heads && masked_heads[r]) {
      // Weights times 0: nothing recorded, nothing in this head's slice of the context.
      if (probs) std::fill(scores, scores + block, 0.0f);
      for (int i = 0; i < tq; ++i) {
        float* slice = context + static_cast<int64_t>(i) * width + column;
        std::fill(slice, slice + head_dim, 0.0f);
      }
      continue;
    }
    ops::gemm(tq, tk, head_dim, scale, q + column, width, k + column, width, true, 0.0f, scores,
              tk);
    for (int i = 0; i < tq; ++i) {
      float* row = scores + static_cast<int64_t>(i) * tk;
      int visible = causal ? i + (tk - tq) + 1 : tk;
      for (int j = visible; j < tk; ++j) row[j] = -std::numeric_limits<float>::infinity();
      ops::softmax(row, tk);
    }
    // [tq, tk] x [tk, dk] -> this head's columns of context
    ops::gemm(tq, head_dim, tk, 1.0f, scores, tk, v + column, width, false, 0.0f, context + column,
              width);
  }
}

}  // namespace minimt
