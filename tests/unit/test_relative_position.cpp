// T5's relative-position buckets (relative_position.h) by hand from the formula in
// docs/model-format.md, and attention with a bias and without the 1/sqrt(d_k) scaling
// (ScoreOptions in attention.h) against a double-precision computation.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "minimt/engine/attention.h"
#include "minimt/engine/relative_position.h"

using namespace minimt;

TEST_CASE("relative position: T5's buckets, by hand", "[attention][relative]") {
  // Bidirectional, 32 buckets, max distance 128: 16 per direction, 8 exact; keys after the
  // query add 16. log-spaced: n -> 8 + trunc(log(n / 8) / log(16) * 8).
  const std::vector<std::pair<int, int>> encoder = {
      {0, 0},     {-1, 1},     {-7, 7}, {-8, 8}, {-15, 9}, {-16, 10}, {-32, 12}, {-127, 15},
      {-128, 15}, {-5000, 15}, {1, 17}, {7, 23}, {8, 24},  {16, 26},  {200, 31}};
  for (const auto& [relative, bucket] : encoder) {
    INFO("relative " << relative);
    CHECK(relative_position_bucket(relative, true, 32, 128) == bucket);
  }
  // Unidirectional: 16 exact; keys after the query (masked) in bucket 0;
  // n -> 16 + trunc(log(n / 16) / log(8) * 16).
  const std::vector<std::pair<int, int>> decoder = {{3, 0},     {0, 0},     {-15, 15},
                                                    {-16, 16},  {-32, 21},  {-64, 26},
                                                    {-127, 31}, {-128, 31}, {-1000, 31}};
  for (const auto& [relative, bucket] : decoder) {
    INFO("relative " << relative);
    CHECK(relative_position_bucket(relative, false, 32, 128) == bucket);
  }
  // Small tables (as the tests' T5 fixtures use): 8 buckets, distance 6.
  CHECK(relative_position_bucket(-1, true, 8, 6) == 1);   // exact: 2 buckets
  CHECK(relative_position_bucket(-2, true, 8, 6) == 2);   // 2 + trunc(log(1)/log(3) * 2)
  CHECK(relative_position_bucket(-5, true, 8, 6) == 3);   // 2 + trunc(log(2.5)/log(3) * 2)
  CHECK(relative_position_bucket(-40, true, 8, 6) == 3);  // past the distance: the last
  CHECK(relative_position_bucket(40, true, 8, 6) == 7);
}

TEST_CASE("attention: a relative bias and unscaled scores, by hand", "[attention][relative]") {
  // One head, dk 2, 3 queries and keys; bias table over distances -2..2 (zero at column 2).
  const std::vector<float> q = {1, 0, 0, 1, 1, 1}, k = {1, 2, -1, 0, 0.5f, 0.5f},
                           v = {1, 0, 0, 1, 2, 2};
  const std::vector<float> bias = {-1.0f, 0.5f, 0.0f, 0.25f, 2.0f};  // distance -2..2
  for (bool causal : {false, true}) {
    std::vector<float> context(6), probs(9), scratch;
    ScoreOptions scores{false, bias.data(), 5, 2};
    multi_head_attention({q.data(), k.data(), v.data(), 3, 3, 1, 2, causal}, scores, nullptr,
                         {context.data(), probs.data()}, scratch);
    for (int i = 0; i < 3; ++i) {
      double weights[3], sum = 0;
      for (int j = 0; j < 3; ++j) {
        const double dot = q[2 * i] * k[2 * j] + q[2 * i + 1] * k[2 * j + 1];  // no 1/sqrt(2)
        weights[j] = causal && j > i ? 0.0 : std::exp(dot + bias[2 + j - i]);
        sum += weights[j];
      }
      for (int j = 0; j < 3; ++j) {
        INFO("causal " << causal << " query " << i << " key " << j);
        CHECK(probs[3 * i + j] == Approx(weights[j] / sum).epsilon(1e-6).margin(1e-7));
      }
      for (int d = 0; d < 2; ++d) {
        double expected = 0;
        for (int j = 0; j < 3; ++j) expected += weights[j] / sum * v[2 * j + d];
        CHECK(context[2 * i + d] == Approx(expected).epsilon(1e-5));
      }
    }
  }
}
