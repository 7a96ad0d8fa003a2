// The sub-layers of tape.h: norm, feed-forward and attention, forward with a tape and backward.
#include <algorithm>
#include <cmath>

#include "engine/backward/tape.h"
#include "minimt/engine/backward_ops.h"
#include "minimt/engine/ops.h"

namespace minimt::backward {

float* room(std::vector<float>& v, size_t count) {
  if (v.size() < count) v.resize(count);
  return v.data();
}

void norm_forward(const Architecture& c, const LayerNormWeights& w, float* x, int64_t rows,
                  NormTape& tape) {
  const int d = c.d_model;
  tape.xhat.resize(static_cast<size_t>(rows) * d);
  tape.rstd.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * d;
    float* xhat = tape.xhat.data() + r * d;
    norm_statistics(c.norm, row, d, c.layer_norm_eps, xhat, &tape.rstd[r]);
    for (int i = 0; i < d; ++i) row[i] = xhat[i] * w.weight[i] + (w.bias ? w.bias[i] : 0.0f);
  }
}

void norm_backward(const Architecture& c, const LayerNormWeights& w, const NormTape& tape,
                   const GradShape& shape, float* dx) {
  const int d = c.d_model;
  for (int64_t g = 0; g < shape.gradient_rows(); ++g) {
    const int64_t f = shape.forward_of(g);
    norm(c.norm, tape.xhat.data() + f * d, tape.rstd[f], w.weight, d, dx + g * d, dx + g * d);
  }
}

void feed_forward_forward(const Architecture& c, const DenseLayer& layer, const float* x,
                          int64_t rows, FeedForwardTape& tape, float* out) {
  const int64_t count = rows * layer.fc1.out;
  tape.pre.resize(count);
  tape.act.resize(count);
  dense_forward(layer.fc1, x, rows, tape.pre.data());  // [V*N, d_ff]
  std::copy(tape.pre.begin(), tape.pre.end(), tape.act.begin());
  ops::activate(c.activation, tape.act.data(), count);
  const float* hidden = tape.act.data();
  std::vector<float> product;  // act(fc1 x) * fc1_linear x
  if (c.feed_forward == FeedForwardKind::kGated) {
    tape.gate.resize(count);
    dense_forward(layer.fc1_linear, x, rows, tape.gate.data());
    product = tape.act;
    ops::multiply_in_place(product.data(), tape.gate.data(), count);
    hidden = product.data();
  }
  dense_forward(layer.fc2, hidden, rows, out);  // [V*N, d]
}

void feed_forward_backward(const Architecture& c, const DenseLayer& layer,
                           const FeedForwardTape& tape, const GradShape& shape, const float* dout,
                           float* dx, Scratch& z) {
  const int f = layer.fc1.out;
  const int64_t rows = shape.gradient_rows();
  float* dh = room(z.a, static_cast<size_t>(rows) * f);  // [V*B*N, d_ff]
  dense_backward(layer.fc2, dout, rows, dh, false, z.sum);
  const bool gated = c.feed_forward == FeedForwardKind::kGated;
  float* dgate = gated ? room(z.b, static_cast<size_t>(rows) * f) : nullptr;
  for (int64_t g = 0; g < rows; ++g) {
    const int64_t at = shape.forward_of(g) * f;
    float* row = dh + g * f;
    if (gated) {  // h = act(pre) * gate
      for (int i = 0; i < f; ++i) {
        dgate[g * f + i] = row[i] * tape.act[at + i];
        row[i] *= tape.gate[at + i];
      }
    }
    activation(c.activation, tape.pre.data() + at, row, f, row);
  }
  dense_backward(layer.fc1, dh, rows, dx, false, z.sum);
  if (gated) dense_backward(layer.fc1_linear, dgate, rows, dx, true, z.sum);
}

void attention_forward(const Architecture& c, const DenseAttention& w, const float* x,
                       const float* memory, int variants, bool causal, AttentionLayerTape& tape,
                       float* out, Scratch& z) {
  const int width = c.attention_width(), heads = c.num_heads, tq = tape.tq, tk = tape.tk;
  const int64_t queries = static_cast<int64_t>(variants) * tq;
  const int64_t keys = static_cast<int64_t>(variants) * tk;
  tape.q.resize(queries * width);
  tape.k.resize(keys * width);
  tape.v.resize(keys * width);
  tape.weights.resize(static_cast<size_t>(variants) * heads * tq * tk);
  dense_forward(w.q, x, queries, tape.q.data());    // [V*tq, H*dk]
  dense_forward(w.k, memory, keys, tape.k.data());  // [V*tk, H*dk]
  dense_forward(w.v, memory, keys, tape.v.data());
  float* context = room(z.a, static_cast<size_t>(queries) * width);
  for (int b = 0; b < variants; ++b) {
    const AttentionInputs in{tape.q.data() + static_cast<int64_t>(b) * tq * width,
                             tape.k.data() + static_cast<int64_t>(b) * tk * width,
                             tape.v.data() + static_cast<int64_t>(b) * tk * width,
                             tq,
                             tk,
                             heads,
                             c.head_dim,
                             causal};
    const AttentionOutputs outputs{context + static_cast<int64_t>(b) * tq * width,
                                   tape.weights.data() + static_cast<int64_t>(b) * heads * tq * tk,
                                   nullptr};
    multi_head_attention(in, tape.options, tape.masked, outputs, z.e);
  }
  dense_forward(w.out, context, queries, out);  // [V*tq, d]
}

void attention_backward(const Architecture& c, const DenseAttention& w,
                        const AttentionLayerTape& tape, const GradShape& shape, const float* dout,
                        float* dx, float* dmemory, Scratch& z) {
  const int width = c.attention_width(), heads = c.num_heads;
  const int variants = shape.variants, seeds = shape.seeds;
  const int tq = shape.rows, tk = tape.self ? shape.rows : tape.tk;
  const int64_t queries = static_cast<int64_t>(variants) * seeds * tq;
  const int64_t keys = static_cast<int64_t>(variants) * seeds * tk;
  float* dcontext = room(z.a, static_cast<size_t>(queries) * width);  // [V*B*tq, H*dk]
  dense_backward(w.out, dout, queries, dcontext, false, z.sum);
  float* dq = room(z.b, static_cast<size_t>(queries) * width);
  float* dk = room(z.c, static_cast<size_t>(keys) * width);  // [V*B*tk, H*dk]
  float* dv = room(z.d, static_cast<size_t>(keys) * width);
  const float scale = tape.options.scaled ? 1.0f / std::sqrt(static_cast<float>(c.head_dim)) : 1.0f;
  for (int b = 0; b < variants; ++b) {
    AttentionTape t;
    t.q = tape.q.data() + static_cast<int64_t>(b) * tape.tq * width;
    t.k = tape.k.data() + static_cast<int64_t>(b) * tape.tk * width;
    t.v = tape.v.data() + static_cast<int64_t>(b) * tape.tk * width;
    t.weights = tape.weights.data() + static_cast<int64_t>(b) * heads * tape.tq * tape.tk;
    t.tq = tq, t.tk = tk, t.heads = heads, t.head_dim = c.head_dim;
    t.head_stride = static_cast<int64_t>(tape.tq) * tape.tk;
    t.row_stride = tape.tk;
    t.scale = scale;
    t.masked_heads = tape.masked;
    const int64_t q_at = static_cast<int64_t>(b) * seeds * tq * width;
    const int64_t k_at = static_cast<int64_t>(b) * seeds * tk * width;
    attention(t, dcontext + q_at, seeds, dq + q_at, dk + k_at, dv + k_at, z.attention);
  }
  dense_backward(w.q, dq, queries, dx, false, z.sum);
  dense_backward(w.k, dk, keys, dmemory, true, z.sum);
  dense_backward(w.v, dv, keys, dmemory, true, z.sum);
}

}  // namespace minimt::backward
