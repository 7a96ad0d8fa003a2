#include "minimt/engine/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/kernels/kernel_table.h"
#include "minimt/engine/ops.h"

namespace minimt {

void multi_head_attention(const AttentionInputs& in, const ScoreOptions& options,
                          const char* masked_heads, const AttentionOutputs& out,
                          std::vector<float>& scratch) {
  // minimt's own products in one summation order (attention_kernels.h), not sgemm: their bits
  // do not depend on the CPU or on which core OpenBLAS picks.
  const kernels::AttentionKernels& kernel = kernels::attention_kernels();
  const int tq = in.tq, tk = in.tk, head_dim = in.head_dim, width = in.heads * head_dim;
  // Without scaling the kernel multiplies by exactly 1, which changes no bit.
  const float scale = options.scaled ? 1.0f / std::sqrt(static_cast<float>(head_dim)) : 1.0f;
  const int64_t block = static_cast<int64_t>(tq) * tk;
  if (kernel.scores_heads && !masked_heads && !options.bias && !out.weights && !out.scores) {
    // Translation's case: every head of a query at once, the same products and softmax as
    // below, the keys and values read row by row (attention_kernels.h).
    if (scratch.size() < static_cast<size_t>(in.heads) * tk) scratch.resize(in.heads * tk);
    for (int i = 0; i < tq; ++i) {
      const int visible = in.causal ? i + (tk - tq) + 1 : tk;
      kernel.scores_heads(in.q + static_cast<int64_t>(i) * width, in.k, in.v, width, visible,
                          in.heads, head_dim, scale, scratch.data(), tk);
      for (int r = 0; r < in.heads; ++r) {
        float* row = scratch.data() + static_cast<int64_t>(r) * tk;
        std::fill(row + visible, row + tk, -std::numeric_limits<float>::infinity());
        ops::softmax(row, tk);
      }
      kernel.context_heads(scratch.data(), tk, in.v, width, visible, in.heads, head_dim,
                           out.context + static_cast<int64_t>(i) * width);
    }
    return;
  }
  if (!out.weights && scratch.size() < static_cast<size_t>(tk)) scratch.resize(tk);
  for (int r = 0; r < in.heads; ++r) {
    const int column = r * head_dim;
    for (int i = 0; i < tq; ++i) {
      const int64_t at = r * block + static_cast<int64_t>(i) * tk;  // row i of head r, [tk]
      float* row = out.weights ? out.weights + at : scratch.data();
      float* context = out.context + static_cast<int64_t>(i) * width + column;  // [head_dim]
      const bool masked = masked_heads && masked_heads[r];
      const int visible = in.causal ? i + (tk - tq) + 1 : tk;
      if (!masked || out.scores) {
        kernel.scores(in.q + static_cast<int64_t>(i) * width + column, in.k + column, width,
                      visible, head_dim, scale, row);
        if (options.bias) {  // one order everywhere: (q.k * scale) + bias, key by key
          const int query_position = in.causal ? i + (tk - tq) : i;
          const float* bias =
              options.bias + static_cast<int64_t>(r) * options.span + options.zero - query_position;
          for (int j = 0; j < visible; ++j) row[j] += bias[j];
        }
        // The causal mask on the scores: later keys get -infinity, so exactly 0 after softmax.
        std::fill(row + visible, row + tk, -std::numeric_limits<float>::infinity());
        // Final here: what the softmax reads (a head mask acts after it).
        if (out.scores) std::copy(row, row + visible, out.scores + at);
      }
      if (masked) {
        // Weights times 0: nothing in this head's slice of the context.
        if (out.weights) std::fill(row, row + tk, 0.0f);
        std::fill(context, context + head_dim, 0.0f);
        continue;
      }
      ops::softmax(row, tk);
      kernel.context(row, in.v + column, width, visible, head_dim, context);
    }
  }
}

}  // namespace minimt
