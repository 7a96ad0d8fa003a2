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

void record_inside(const RecordExtras& extras, const AttentionCall& call, InsideRecord& inside,
                   std::vector<float>& scratch) {
  const int heads = inside.heads, width = inside.width(), l = call.layer;
  const size_t row_at = static_cast<size_t>(l) * width, head_at = static_cast<size_t>(l) * heads;
  std::vector<float> norms;
  if (extras.norms)
    norms.resize(static_cast<size_t>(std::max(call.query_count, call.new_keys)) * heads);
  if (extras.norms && call.query_count > 0)
    head_output_norms(*call.out, call.context, call.query_count, heads, inside.head_dim,
                      norms.data(), scratch);
  for (int i = 0; i < call.query_count; ++i) {
    InsideRecord::Query& query = inside.queries.at(call.first_query + i);
    const float* row = call.queries + static_cast<size_t>(i) * width;
    if (extras.vectors) std::copy(row, row + width, query.vector.begin() + row_at);
    if (extras.norms)
      std::copy(norms.begin() + static_cast<size_t>(i) * heads,
                norms.begin() + static_cast<size_t>(i + 1) * heads,
                query.head_norms.begin() + head_at);
    if (extras.scores)
      for (int h = 0; h < heads; ++h) {
        const float* from =
            call.scores + (static_cast<size_t>(h) * call.query_count + i) * call.key_count;
        std::copy(from, from + query.visible,
                  query.scores.begin() + (head_at + h) * static_cast<size_t>(query.visible));
      }
  }
  if (call.new_keys == 0) return;
  if (extras.norms)
    head_output_norms(*call.out, call.values, call.new_keys, heads, inside.head_dim, norms.data(),
                      scratch);
  for (int j = 0; j < call.new_keys; ++j) {
    InsideRecord::Key& key = inside.keys.at(call.first_key + j);
    const size_t at = static_cast<size_t>(j) * width;
    if (extras.vectors) {
      std::copy(call.keys + at, call.keys + at + width, key.key.begin() + row_at);
      std::copy(call.values + at, call.values + at + width, key.value.begin() + row_at);
    }
    if (extras.norms)
      std::copy(norms.begin() + static_cast<size_t>(j) * heads,
                norms.begin() + static_cast<size_t>(j + 1) * heads,
                key.value_norms.begin() + head_at);
  }
}

}  // namespace minimt
