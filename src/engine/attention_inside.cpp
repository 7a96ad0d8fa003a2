#include "minimt/engine/attention_inside.h"

#include <algorithm>
#include <cmath>

#include "minimt/engine/ops.h"

namespace minimt {

void InsideRecord::add_query(const RecordExtras& extras, int visible) {
  Query query;
  query.visible = visible;
  if (extras.scores) query.scores.resize(static_cast<size_t>(layers) * heads * visible);
  if (extras.vectors) query.vector.resize(static_cast<size_t>(layers) * width());
  if (extras.norms) query.head_norms.resize(static_cast<size_t>(layers) * heads);
  queries.push_back(std::move(query));
}

void InsideRecord::add_keys(const RecordExtras& extras, int count) {
  for (int j = 0; j < count; ++j) {
    Key key;
    if (extras.vectors) {
      key.key.resize(static_cast<size_t>(layers) * width());
      key.value.resize(key.key.size());
    }
    if (extras.norms) key.value_norms.resize(static_cast<size_t>(layers) * heads);
    keys.push_back(std::move(key));
  }
}

void head_output_norms(const Linear& out, const float* x, int count, int heads, int head_dim,
                       float* norms, std::vector<float>& scratch) {
  const int width = heads * head_dim, d = out.out;
  Linear no_bias = out;
  no_bias.bias = nullptr;
  const size_t in_size = static_cast<size_t>(count) * width;
  scratch.resize(in_size + static_cast<size_t>(count) * d);
  float* one_head = scratch.data();     // [count, H*dk]: head h's columns, the others 0
  float* through = one_head + in_size;  // [count, d_model]
  for (int h = 0; h < heads; ++h) {
    std::fill(one_head, one_head + in_size, 0.0f);
    for (int r = 0; r < count; ++r) {
      const size_t at = static_cast<size_t>(r) * width + h * head_dim;
      std::copy(x + at, x + at + head_dim, one_head + at);
    }
    ops::linear(no_bias, one_head, count, through);
    for (int r = 0; r < count; ++r) {
      // Squares of floats are exact in double: fused or not, the same sum on every CPU.
      double sum = 0.0;
      for (int e = 0; e < d; ++e) {
        const double y = through[static_cast<size_t>(r) * d + e];
        sum += y * y;
      }
      norms[static_cast<size_t>(r) * heads + h] = static_cast<float>(std::sqrt(sum));
    }
  }
}

}  // namespace minimt
