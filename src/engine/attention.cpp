#include "minimt/engine/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kernels/kernel_table.h"
#include "minimt/engine/ops.h"

namespace minimt {

void multi_head_attention(const float* q, const float* k, const float* v, int tq, int tk, int heads,
                          int head_dim, bool causal, float* context, float* probs,
                          std::vector<float>& scratch, const char* masked_heads, float* scores) {
  // minimt's own products in one summation order (attention_kernels.h), not sgemm: their bits
  // do not depend on the CPU or on which core OpenBLAS picks.
  const kernels::AttentionKernels& kernel = kernels::attention_kernels();
  const int width = heads * head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const int64_t block = static_cast<int64_t>(tq) * tk;
  if (!probs && scratch.size() < static_cast<size_t>(tk)) scratch.resize(tk);
  for (int r = 0; r < heads; ++r) {
    const int column = r * head_dim;
    for (int i = 0; i < tq; ++i) {
      float* row = probs ? probs + r * block + static_cast<int64_t>(i) * tk : scratch.data();
      float* out = context + static_cast<int64_t>(i) * width + column;  // [head_dim]
      const bool masked = masked_heads && masked_heads[r];
      const int visible = causal ? i + (tk - tq) + 1 : tk;
      if (!masked || scores) {
        kernel.scores(q + static_cast<int64_t>(i) * width + column, k + column, width, visible,
                      head_dim, scale, row);
        // The causal mask on the scores: later keys get -infinity, so exactly 0 after softmax.
        std::fill(row + visible, row + tk, -std::numeric_limits<float>::infinity());
        // Final here: what the softmax reads (a head mask acts after it).
        if (scores)
          std::copy(row, row + visible, scores + r * block + static_cast<int64_t>(i) * tk);
      }
      if (masked) {
        // Weights times 0: nothing recorded, nothing in this head's slice of the context.
        if (probs) std::fill(row, row + tk, 0.0f);
        std::fill(out, out + head_dim, 0.0f);
        continue;
      }
      ops::softmax(row, tk);
      kernel.context(row, v + column, width, visible, head_dim, out);
    }
  }
}

}  // namespace minimt
