// A float32 forward pass that keeps what the backward needs (the tape), and the backward of each
// sub-layer, for attribution (attribution.h). It reproduces the engine's forward (encoder.cpp,
// decoder.cpp, layers.cpp, attention.cpp) formula for formula on dense float32 weights, for
// several variants of one sentence at once (the steps of integrated gradients: every variant
// has the same length). Shapes:
//   forward rows  [V][N][w]     V variants, N positions
//   gradients     [V][B][N][w]  B seeds per variant (one per output token), so that every
//                               product of the backward has V*B*N rows
#pragma once

#include <vector>

#include "engine/backward/dense_model.h"
#include "minimt/engine/attention.h"
#include "minimt/engine/attention_backward.h"

namespace minimt::backward {

struct GradShape {
  int variants = 1, seeds = 1, rows = 1;  // V, B, N
  // Forward rows per variant, when the gradients cover only the first N of them (the decoder's
  // seeds t < N: nothing reaches a row after t); 0: N.
  int forward_stride = 0;
  int64_t gradient_rows() const { return static_cast<int64_t>(variants) * seeds * rows; }
  // The forward row that gradient row g differentiates.
  int64_t forward_of(int64_t g) const {
    return g / (static_cast<int64_t>(seeds) * rows) * (forward_stride ? forward_stride : rows) +
           g % rows;
  }
};

struct NormTape {
  std::vector<float> xhat, rstd;  // [V*N, d], [V*N]
};

struct AttentionLayerTape {
  std::vector<float> q, k, v;  // [V*tq, H*dk], [V*tk, H*dk] twice
  std::vector<float> weights;  // [V][H][tq][tk]
  int tq = 0, tk = 0;
  bool self = false;     // keys are the queries' rows (fewer gradient rows means fewer keys too)
  ScoreOptions options;  // the scale, and T5's bias table (owned by the caller)
  const char* masked = nullptr;
};

struct FeedForwardTape {
  std::vector<float> pre, gate, act;  // [V*N, d_ff]: fc1 x, fc1_linear x (gated), act(fc1 x)
};

struct LayerTape {
  NormTape self_norm, cross_norm, ff_norm;
  AttentionLayerTape self_attn, cross_attn;
  FeedForwardTape ff;
};

// Buffers the backward reuses.
struct Scratch {
  std::vector<float> a, b, c, d, e;
  std::vector<float> sum;               // dense_backward's product when it accumulates
  std::vector<float> residual, normed;  // a residual sub-layer's output and normed input
  AttentionBackwardScratch attention;
};

float* room(std::vector<float>& v, size_t count);

// The model's norm over rows x [rows, d], in place, keeping its statistics.
void norm_forward(const Architecture& c, const LayerNormWeights& w, float* x, int64_t rows,
                  NormTape& tape);
// Its backward over gradient rows dx [V*B*N, d], in place.
void norm_backward(const Architecture& c, const LayerNormWeights& w, const NormTape& tape,
                   const GradShape& shape, float* dx);

// out [V*N, d] = fc2(act(fc1 x)) (or gated), x [V*N, d].
void feed_forward_forward(const Architecture& c, const DenseLayer& layer, const float* x,
                          int64_t rows, FeedForwardTape& tape, float* out);
// dx [V*B*N, d] (written) from dout [V*B*N, d].
void feed_forward_backward(const Architecture& c, const DenseLayer& layer,
                           const FeedForwardTape& tape, const GradShape& shape, const float* dout,
                           float* dx, Scratch& z);

// out [V*tq, d] = attention of queries from x [V*tq, d] over keys and values from memory
// [V*tk, d] (memory == x for self-attention), each variant on its own.
void attention_forward(const Architecture& c, const DenseAttention& w, const float* x,
                       const float* memory, int variants, bool causal, AttentionLayerTape& tape,
                       float* out, Scratch& z);
// dx [V*B*N, d] written from dout [V*B*N, d] (N = shape.rows <= tq queries); dmemory [V*B*tk,
// d] accumulated (self-attention: N keys, and dmemory is dx itself).
void attention_backward(const Architecture& c, const DenseAttention& w,
                        const AttentionLayerTape& tape, const GradShape& shape, const float* dout,
                        float* dx, float* dmemory, Scratch& z);

}  // namespace minimt::backward
