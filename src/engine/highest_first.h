// The k highest of a row of scores (logits, log-probabilities), as beam search, sampling and
// teacher forcing's alternatives rank tokens: highest first, a tie to the lower index.
#pragma once

#include <algorithm>
#include <vector>

namespace minimt {

// Fills `order` with 0..count-1 and moves the indices of the k highest values to its front,
// highest first (ties: lower index first); the rest follow in no particular order. k = 0
// leaves the indices in order. `order` is the caller's, reused from row to row.
inline void order_highest_first(const float* values, int count, int k, std::vector<int>& order) {
  order.resize(count);
  for (int j = 0; j < count; ++j) order[j] = j;
  if (k <= 0) return;
  std::partial_sort(order.begin(), order.begin() + std::min(k, count), order.end(),
                    [values](int a, int b) {
                      return values[a] > values[b] || (values[a] == values[b] && a < b);
                    });
}

}  // namespace minimt
