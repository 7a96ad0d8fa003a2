#include "minimt/engine/relative_position.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace minimt {

int relative_position_bucket(int relative, bool bidirectional, int buckets, int max_distance) {
  int bucket = 0;
  int distance = 0;
  if (bidirectional) {
    buckets /= 2;
    if (relative > 0) bucket += buckets;
    distance = std::abs(relative);
  } else {
    distance = relative < 0 ? -relative : 0;
  }
  const int exact = buckets / 2;
  if (distance < exact) return bucket + distance;
  // In float32 step by step, as the PyTorch code does on float tensors: log(d / exact) /
  // log(max_distance / exact) (the second a Python float) * (buckets - exact), truncated.
  const float ratio = std::log(static_cast<float>(distance) / static_cast<float>(exact));
  const auto span = static_cast<float>(std::log(static_cast<double>(max_distance) / exact));
  const float scaled = ratio / span * static_cast<float>(buckets - exact);
  const int large = exact + static_cast<int>(scaled);
  return bucket + std::min(large, buckets - 1);
}

ScoreOptions relative_bias_table(const Architecture& config, const float* weight,
                                 bool bidirectional, int longest, std::vector<float>& table) {
  const int heads = config.num_heads, span = 2 * longest - 1;
  table.resize(static_cast<size_t>(heads) * span);  // [H][span]
  for (int column = 0; column < span; ++column) {
    const int bucket = relative_position_bucket(column - (longest - 1), bidirectional,
                                                config.relative_attention.buckets,
                                                config.relative_attention.max_distance);
    for (int h = 0; h < heads; ++h)
      table[static_cast<size_t>(h) * span + column] =
          weight[static_cast<size_t>(bucket) * heads + h];
  }
  return ScoreOptions{config.scale_attention_scores, table.data(), span, longest - 1};
}

}  // namespace minimt
