// order_highest_first against a full stable sort (value descending, a tie to the lower index) on
// rows with many ties, infinities and k from 1 to the whole row: both of its paths (the one-pass
// scan for a small k, the partial sort for a large one) give the same indices in the same order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "engine/highest_first.h"

namespace {

std::vector<int> by_full_sort(const std::vector<float>& values, int k) {
  std::vector<int> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values[a] > values[b]; });
  order.resize(std::min<size_t>(k, values.size()));
  return order;
}

}  // namespace

TEST_CASE("order_highest_first ranks as a stable sort, a tie to the lower index") {
  std::mt19937 random(7);
  const float inf = std::numeric_limits<float>::infinity();
  for (int count : {1, 2, 7, 16, 100, 1000, 8000}) {
    for (int levels : {3, 50, 1 << 20}) {  // few distinct values: many ties
      std::uniform_int_distribution<int> level(0, levels - 1);
      std::vector<float> values(count);
      for (float& v : values) v = static_cast<float>(level(random)) * 0.25f - 4.0f;
      if (count > 4) values[count / 2] = -inf, values[count / 3] = inf;
      for (int k : {1, 2, 4, 8, count / 16, count / 16 + 1, count / 2, count, count + 3}) {
        if (k < 1) continue;
        std::vector<int> order = {42};  // the caller's, not empty
        minimt::order_highest_first(values.data(), count, k, order);
        INFO("count " << count << ", levels " << levels << ", k " << k);
        CHECK(order == by_full_sort(values, k));
      }
    }
  }
  std::vector<float> values = {1, 3, 2};
  std::vector<int> order;
  minimt::order_highest_first(values.data(), 3, 0, order);
  CHECK(order == std::vector<int>{0, 1, 2});  // k = 0: every index, in order
}
