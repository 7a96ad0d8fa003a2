#include "minimt/engine/layers.h"

#include <cmath>

namespace minimt {

void embed(const Architecture& config, const float* token_table, const float* position_table,
           const int* ids, const int* positions, int count, float* out) {
  const int d = config.d_model;
  const float scale = config.scale_embeddings ? std::sqrt(static_cast<float>(d)) : 1.0f;
  for (int i = 0; i < count; ++i) {
    const float* token = token_table + static_cast<int64_t>(ids[i]) * d;
    float* row = out + static_cast<int64_t>(i) * d;
    for (int j = 0; j < d; ++j) row[j] = token[j] * scale;
    if (position_table)
      ops::add_in_place(row, position_table + static_cast<int64_t>(positions[i]) * d, d);
    else
      ops::add_sinusoidal_position(positions[i], d, row);
  }
}

void feed_forward(const Architecture& config, const Linear& fc1, const Linear& fc2, const float* x,
                  int rows, std::vector<float>& hidden, float* out) {
  float* inner = reserve(hidden, static_cast<size_t>(rows) * fc1.out);  // [rows, d_ff]
  ops::linear(fc1, x, rows, inner);
  ops::activate(config.activation, inner, static_cast<int64_t>(rows) * fc1.out);
  ops::linear(fc2, inner, rows, out);  // [rows, d_model]
}

}  // namespace minimt
