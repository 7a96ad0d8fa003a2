// The k highest of a row of scores (logits, log-probabilities), as beam search, sampling and
// teacher forcing's alternatives rank tokens: highest first, a tie to the lower index.
#pragma once

#include <algorithm>
#include <vector>

#include "engine/kernels/kernel_table.h"

namespace minimt {

// Whether index a of `values` ranks before index b: the higher value, a tie to the lower index.
inline bool ranks_before(const float* values, int a, int b) {
  return values[a] > values[b] || (values[a] == values[b] && a < b);
}

// Fills `order` with the indices of the k highest of values[0, count), highest first (ties:
// lower index first); k = 0 fills it with every index, in order. `order` is the caller's,
// reused from row to row. The values must not be NaN (logits and log-probabilities of a model
// that loaded are not): NaN has no rank, and either path may place it anywhere.
inline void order_highest_first(const float* values, int count, int k, std::vector<int>& order) {
  k = std::min(k, count);
  if (k <= 0 || k * 16 > count) {  // every index, or too many kept for the scan to pay
    order.resize(count);
    for (int j = 0; j < count; ++j) order[j] = j;
    if (k <= 0) return;
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [values](int a, int b) { return ranks_before(values, a, b); });
    order.resize(k);
    return;
  }
  // One pass, the k best so far kept in rank order: a later index enters only above the k-th
  // (a tie with it ranks after it), so most of a vocabulary is only compared, 16 at a time.
  order.resize(k);
  for (int j = 0; j < k; ++j) order[j] = j;
  std::sort(order.begin(), order.end(),
            [values](int a, int b) { return ranks_before(values, a, b); });
  float kth = values[order[k - 1]];
  const auto first_above = kernels::row_kernels().first_above;  // 16 comparisons at a time
  for (int j = first_above(values, k, count, kth); j < count;
       j = first_above(values, j + 1, count, kth)) {
    int at = k - 1;  // shift down the ones j ranks before
    while (at > 0 && values[j] > values[order[at - 1]]) {
      order[at] = order[at - 1];
      --at;
    }
    order[at] = j;
    kth = values[order[k - 1]];
  }
}

}  // namespace minimt
