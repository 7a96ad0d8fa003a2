#include "minimt/engine/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kernels/kernel_table.h"
#include "minimt/engine/ops.h"

namespace minimt {

void multi_head_attention(const float* q, const float* k, const float* v, int tq, int tk, int heads,
                          int head_dim, bool causal, float* context, float* probs,
                          std::vector<float>& scratch, const char* masked_heads,
                          const ScoreOptions& scores, float* record) {
  // minimt's own products in one summation order (attention_kernels.h), not sgemm: their bits
  // do not depend on the CPU or on which core OpenBLAS picks.
  const kernels::AttentionKernels& kernel = kernels::attention_kernels();
  const int width = heads * head_dim;
  // Without scaling the kernel multiplies by exactly 1, which changes no bit.
  const float scale = scores.scaled ? 1.0f / std::sqrt(static_cast<float>(head_dim)) : 1.0f;
  const int64_t block = static_cast<int64_t>(tq) * tk;
  if (!probs && scratch.size() < static_cast<size_t>(tk)) scratch.resize(tk);
  for (int r = 0; r < heads; ++r) {
    const int column = r * head_dim;
    for (int i = 0; i < tq; ++i) {
      float* row = probs ? probs + r * block + static_cast<int64_t>(i) * tk : scratch.data();
      float* out = context + static_cast<int64_t>(i) * width + column;  // [head_dim]
      const bool masked = masked_heads && masked_heads[r];
      const int visible = causal ? i + (tk - tq) + 1 : tk;
      if (!masked || record) {
        kernel.scores(q + static_cast<int64_t>(i) * width + column, k + column, width, visible,
                      head_dim, scale, row);
        if (scores.bias) {  // one order everywhere: (q.k * scale) + bias, key by key
          const int query_position = causal ? i + (tk - tq) : i;
          const float* bias =
              scores.bias + static_cast<int64_t>(r) * scores.span + scores.zero - query_position;
          for (int j = 0; j < visible; ++j) row[j] += bias[j];
        }
        // The causal mask on the scores: later keys get -infinity, so exactly 0 after softmax.
        std::fill(row + visible, row + tk, -std::numeric_limits<float>::infinity());
        // Final here: what the softmax reads (a head mask acts after it).
        if (record)
          std::copy(row, row + visible, record + r * block + static_cast<int64_t>(i) * tk);
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
