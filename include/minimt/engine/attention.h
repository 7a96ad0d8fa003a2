// Multi-head scaled dot-product attention over already projected queries, keys and values.
#pragma once

#include <vector>

#include "minimt/engine/weights.h"

namespace minimt {

// What format v2 changes in the scores. scaled: divide the products by sqrt(dk) (T5 does not).
// bias: a relative-position bias (T5), table [H][span] with distance 0 (key position = query
// position) at column `zero`: head r's score of query position p and key position j gains
// table[r * span + zero + j - p]. Query i sits at position i, or i + (tk - tq) when causal;
// key j at position j.
struct ScoreOptions {
  bool scaled = true;
  const float* bias = nullptr;
  int span = 0;
  int zero = 0;
};

// For each head r (columns r*dk .. (r+1)*dk-1 of q, k and v, whose rows are H*dk wide):
//   A_r = softmax(Q_r K_r^T / sqrt(dk) + B_r + M),  context[:, r*dk ..] = A_r V_r
// (without the 1/sqrt(dk) and with the bias B_r as `scores` says; B_r = 0 by default)
// (the products by minimt's attention kernels, in one summation order on every CPU).
// q: [tq, H*dk], k and v: [tk, H*dk], context: [tq, H*dk].
// causal: query i (of the last tq positions of tk) reads keys j <= i + (tk - tq); the weights
// of later keys are exactly 0. probs, if not null, receives A as [H][tq][tk].
// scratch holds a row of scores when probs is null. masked_heads, if not null, holds one flag per
// head: a flagged head's weights are multiplied by 0 (head_mask.h), so its A_r is recorded as 0
// and its slice of context is 0.
// record, if not null, receives the softmax's input (the scores, bias included) as [H][tq][tk],
// only the entries the causal mask keeps (j < tk - tq + i + 1 when causal; the others are left
// as they were), masked heads included: a head mask acts after the softmax.
void multi_head_attention(const float* q, const float* k, const float* v, int tq, int tk, int heads,
                          int head_dim, bool causal, float* context, float* probs,
                          std::vector<float>& scratch, const char* masked_heads = nullptr,
                          const ScoreOptions& scores = {}, float* record = nullptr);

}  // namespace minimt
