// Pieces shared by the encoder and decoder layers: embeddings, residual sub-layers, feed-forward.
#pragma once

#include <cstddef>
#include <vector>

#include "minimt/engine/architecture.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/weights.h"

namespace minimt {

// out[count, d] = E[ids[i]] * (sqrt(d) if scaled) + P[positions[i]].
// position_table is the [max_positions, d] table (learned, or sinusoidal precomputed), or null
// to compute sinusoidal positions on the fly.
void embed(const Architecture& config, const float* token_table, const float* position_table,
           const int* ids, const int* positions, int count, float* out);

// Scratch buffers one layer stack reuses across calls, so steady-state decoding allocates
// nothing (vectors only grow).
struct LayerScratch {
  std::vector<float> normed, q, k, v, context, sublayer_out, hidden, scores;
};

// One residual sub-layer over x [rows, d]:
//   post-norm: x = LN(x + f(x));  pre-norm: x = x + f(LN(x)).
// f(input, output) reads input [rows, d] and writes output [rows, d].
template <typename Sublayer>
void residual(const Architecture& config, const LayerNormWeights& norm, float* x, int rows,
              LayerScratch& scratch, Sublayer&& sublayer) {
  const int d = config.d_model;
  const size_t count = static_cast<size_t>(rows) * d;
  if (scratch.sublayer_out.size() < count) scratch.sublayer_out.resize(count);
  if (config.norm_position == NormPosition::kPre) {
    if (scratch.normed.size() < count) scratch.normed.resize(count);
    std::copy(x, x + count, scratch.normed.begin());
    ops::layer_norm(norm, scratch.normed.data(), rows, d, config.layer_norm_eps);
    sublayer(scratch.normed.data(), scratch.sublayer_out.data());
    ops::add_in_place(x, scratch.sublayer_out.data(), count);
  } else {
    sublayer(static_cast<const float*>(x), scratch.sublayer_out.data());
    ops::add_in_place(x, scratch.sublayer_out.data(), count);
    ops::layer_norm(norm, x, rows, d, config.layer_norm_eps);
  }
}

// out[rows, d] = fc2(act(fc1(x))); hidden grows to [rows, d_ff].
void feed_forward(const Architecture& config, const Linear& fc1, const Linear& fc2, const float* x,
                  int rows, std::vector<float>& hidden, float* out);

// Makes sure v holds at least count floats.
inline float* reserve(std::vector<float>& v, size_t count) {
  if (v.size() < count) v.resize(count);
  return v.data();
}

}  // namespace minimt
