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

// What one call reads: H heads of dk columns each (head r in columns r*dk .. (r+1)*dk-1).
// causal: query i (of the last tq positions of tk) reads keys j <= i + (tk - tq).
struct AttentionInputs {
  const float* q = nullptr;  // [tq, H*dk]
  const float* k = nullptr;  // [tk, H*dk]
  const float* v = nullptr;  // [tk, H*dk]
  int tq = 0, tk = 0, heads = 0, head_dim = 0;
  bool causal = false;
};

// What one call writes: the context always, the weights and the scores only where not null.
// scores: the softmax's input (bias included) of the entries the causal mask keeps (j < tk - tq
// + i + 1 when causal; the others are left as they were), masked heads included.
struct AttentionOutputs {
  float* context = nullptr;  // [tq, H*dk]
  float* weights = nullptr;  // [H][tq][tk]; the weights of keys the causal mask hides are 0
  float* scores = nullptr;   // [H][tq][tk]
};

// For each head r:
//   A_r = softmax(Q_r K_r^T / sqrt(dk) + B_r + M),  context[:, r*dk ..] = A_r V_r
// (without the 1/sqrt(dk) and with the bias B_r as `options` says; B_r = 0 by default)
// (the products by minimt's attention kernels, in one summation order on every CPU).
// masked_heads, if not null, holds one flag per head: a flagged head's weights are multiplied
// by 0 (head_mask.h), so its A_r is 0 and its slice of context is 0. scratch holds a row of
// scores when out.weights is null.
void multi_head_attention(const AttentionInputs& in, const ScoreOptions& options,
                          const char* masked_heads, const AttentionOutputs& out,
                          std::vector<float>& scratch);

}  // namespace minimt
