// The derivative of multi_head_attention (attention.h) with respect to its queries, keys and
// values, for many seeds at once: the gradient of every seed's loss with respect to the context
// goes through each head's products as the rows of one matrix product (seeds x positions), not
// seed by seed. Held against finite differences in tests/unit/test_backward_ops.cpp.
#pragma once

#include <cstdint>
#include <vector>

namespace minimt::backward {

// What the forward kept of one multi_head_attention call (one sentence).
struct AttentionTape {
  const float* q = nullptr;        // [tq, H*dk]
  const float* k = nullptr;        // [tk, H*dk]
  const float* v = nullptr;        // [tk, H*dk]
  const float* weights = nullptr;  // [H][tq][tk]: softmax output, 0 where causal or masked
  int tq = 0, tk = 0, heads = 0, head_dim = 0;
  float scale = 1.0f;                  // what q.k was multiplied by (1/sqrt(dk), or 1)
  const char* masked_heads = nullptr;  // one flag per head, or null
  // Where the weights lie when the forward had more queries or keys than these tq and tk (the
  // first ones of a causal attention): row i of head r at weights + r * head_stride + i *
  // row_stride. 0: tq * tk and tk.
  int64_t head_stride = 0;
  int row_stride = 0;
};

// Buffers reused across calls.
struct AttentionBackwardScratch {
  std::vector<float> dweights, transposed, gathered, product;
};

// context_r = A_r V_r, A_r = softmax(scale Q_r K_r^T + bias + mask) (the bias and the mask are
// constants), a masked head's context 0  =>  for `seeds` gradients dcontext [seeds][tq][H*dk]:
//   dA = dC_r V_r^T,  dS = A (dA - rowsum(A dA)),  dQ_r = scale dS K_r,
//   dK_r = scale dS^T Q_r,  dV_r = A_r^T dC_r.
// Writes dq [seeds][tq][H*dk], dk and dv [seeds][tk][H*dk] (a masked head's columns 0).
void attention(const AttentionTape& tape, const float* dcontext, int seeds, float* dq, float* dk,
               float* dv, AttentionBackwardScratch& scratch);

}  // namespace minimt::backward
