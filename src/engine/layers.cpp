#include "minimt/engine/layers.h"

#include <cmath>

namespace minimt {

void embed(const Architecture& config, const float* token_table, const float* position_table,
           const int* ids, const int* positions, int count, float* out) {
  const int d = config.d_model;
  const float scale = config.scale_embeddings ? std::sqrt(static_cast<float>(d)) : 1.0f;
  // fairseq's table gives pad tokens its zero row (M2M100's create_position_ids_from_input_ids).
  const int zero_row_token =
      config.positions == Positions::kSinusoidalSplit ? config.special.pad : -1;
  for (int i = 0; i < count; ++i) {
    const float* token = token_table + static_cast<int64_t>(ids[i]) * d;
    float* row = out + static_cast<int64_t>(i) * d;
    for (int j = 0; j < d; ++j) row[j] = token[j] * scale;
    const int position = positions[i] + config.position_offset;
    if (config.positions == Positions::kNone || ids[i] == zero_row_token) continue;
    if (position_table)
      ops::add_in_place(row, position_table + static_cast<int64_t>(position) * d, d);
    else if (config.positions == Positions::kSinusoidalSplit)
      ops::add_sinusoidal_split_position(position, d, row);
    else
      ops::add_sinusoidal_position(position, d, row);
  }
}

void normalize(const Architecture& config, const LayerNormWeights& norm, float* x, int rows) {
  if (config.norm == NormKind::kRmsNorm)
    ops::rms_norm(norm, x, rows, config.d_model, config.layer_norm_eps);
  else
    ops::layer_norm(norm, x, rows, config.d_model, config.layer_norm_eps);
}

void feed_forward(const Architecture& config, const Linear& fc1, const Linear& fc1_linear,
                  const Linear& fc2, const float* x, int rows, LayerScratch& scratch, float* out) {
  const int64_t count = static_cast<int64_t>(rows) * fc1.out;
  float* inner = reserve(scratch.hidden, static_cast<size_t>(count));  // [rows, d_ff]
  if (config.feed_forward == FeedForwardKind::kGated) {
    // T5 v1.1's gated feed-forward: act(fc1 x) * fc1_linear x, element by element; the two
    // products of x in one call (x quantized or rounded once).
    float* linear = reserve(scratch.gate, static_cast<size_t>(count));  // [rows, d_ff]
    const Linear* layers[] = {&fc1, &fc1_linear};
    float* products[] = {inner, linear};
    ops::linear_many(layers, 2, x, rows, products);
    ops::activate(config.activation, inner, count);
    ops::multiply_in_place(inner, linear, count);
  } else {
    ops::linear(fc1, x, rows, inner);
    ops::activate(config.activation, inner, count);
  }
  ops::linear(fc2, inner, rows, out);  // [rows, d_model]
}

}  // namespace minimt
