// ops::log_sum_exp, ops::layer_norm and ops::rms_norm (the row kernels of
// src/engine/kernels/row_kernels.h) against double-precision references, and every
// instruction set this CPU runs against the others.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "engine/kernels/kernel_table.h"
#include "minimt/engine/ops.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::kInf;

namespace {

// A row of `length` values spread over [-50, 50], every 13th -infinity (a masked token).
std::vector<float> logit_row(std::mt19937& rng, int length) {
  std::vector<float> row = minimt::test::uniform_values(rng, length, -50.0f, 50.0f);
  for (int i = 5; i < length; i += 13) row[i] = -kInf;
  return row;
}

double reference_log_sum_exp(const std::vector<float>& row) {
  double peak = -kInf;
  for (float v : row) peak = std::max(peak, static_cast<double>(v));
  double sum = 0.0;
  for (float v : row) sum += std::exp(v - peak);
  return peak + std::log(sum);
}

// The bound the tests hold log_sum_exp to: one float ulp of the result (its last rounding,
// peak + log(sum)) plus 1e-6 (the exp polynomial, about 2 ulp a term, and the float sums).
double log_sum_exp_bound(double reference) {
  return std::nextafter(static_cast<float>(std::fabs(reference)), kInf) -
         static_cast<float>(std::fabs(reference)) + 1e-6;
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("ops: log_sum_exp against double precision (8,000 values, spread 100, -inf)",
          "[ops][row_kernels]") {
  std::mt19937 rng(7);
  double worst = 0.0;
  for (int length : {1, 2, 15, 63, 64, 65, 129, 8000, 8001, 32000}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> row = logit_row(rng, length);
      if (length == 1) row[0] = 3.25f;
      const double expected = reference_log_sum_exp(row);
      const float got = ops::log_sum_exp(row.data(), length);
      INFO("length " << length << ", trial " << trial);
      CHECK(std::fabs(got - expected) <= log_sum_exp_bound(expected));
      worst = std::max(worst, std::fabs(got - expected));
    }
  }
  WARN("log_sum_exp: largest error " << worst);
  // One value: exp(0) is exactly 1 and log(1) exactly 0.
  const float one = 3.25f;
  CHECK(ops::log_sum_exp(&one, 1) == 3.25f);
}

TEST_CASE("ops: log_sum_exp of rows near the peak and far below it", "[ops][row_kernels]") {
  // 8,000 equal values: log(8000) above them.
  std::vector<float> equal(8000, -2.0f);
  CHECK(ops::log_sum_exp(equal.data(), 8000) == Approx(-2.0 + std::log(8000.0)).margin(1e-6));
  // Values 100 below the peak add less than a float ulp of 1: the result is the peak.
  std::vector<float> far(8000, -100.0f);
  far[4321] = 0.0f;
  CHECK(ops::log_sum_exp(far.data(), 8000) == Approx(8000 * std::exp(-100.0)).margin(1e-9));
  // Empty and all -infinity rows: log 0.
  std::vector<float> masked(100, -kInf);
  CHECK(ops::log_sum_exp(masked.data(), 100) == -kInf);
  CHECK(ops::log_sum_exp(masked.data(), 0) == -kInf);
}

TEST_CASE("row kernels: every instruction set gives the same bits", "[ops][row_kernels]") {
  const auto sets = kernels::supported_row_kernels();
  REQUIRE(sets.back().name == std::string("generic"));
  std::mt19937 rng(11);
  for (int length : {1, 31, 64, 100, 8000, 8003}) {
    std::vector<float> row = logit_row(rng, length);
    const float peak = sets.back().row_max(row.data(), length);
    for (const auto& set : sets) {
      INFO(set.name << ", length " << length);
      CHECK(same_bits(set.row_max(row.data(), length), peak));
      const float got = set.log_sum_exp(row.data(), length, peak);
      CHECK(same_bits(got, sets.front().log_sum_exp(row.data(), length, peak)));
      CHECK(std::fabs(got - reference_log_sum_exp(row)) <=
            log_sum_exp_bound(reference_log_sum_exp(row)));
    }
  }
}

TEST_CASE("ops: layer_norm against double precision; every set gives the same bits",
          "[ops][row_kernels]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-3.0f, 5.0f);
  const auto sets = kernels::supported_row_kernels();
  for (int dim : {1, 4, 7, 16, 33, 512, 1000}) {
    std::vector<float> row(dim), weight(dim), bias(dim);
    for (int i = 0; i < dim; ++i) {
      row[i] = uniform(rng);
      weight[i] = uniform(rng);
      bias[i] = uniform(rng);
    }
    double mean = 0.0, variance = 0.0;
    for (float v : row) mean += v;
    mean /= dim;
    for (float v : row) variance += (v - mean) * (v - mean);
    variance /= dim;
    std::vector<float> first;
    for (const auto& set : sets) {
      std::vector<float> out = row;
      set.layer_norm_row(out.data(), dim, weight.data(), bias.data(), 1e-5f);
      INFO(set.name << ", dim " << dim);
      for (int i = 0; i < dim; ++i) {
        const double expected = (row[i] - mean) / std::sqrt(variance + 1e-5) * weight[i] + bias[i];
        CHECK(out[i] == Approx(expected).margin(1e-5).epsilon(1e-5));
      }
      if (first.empty()) first = out;
      CHECK(std::memcmp(out.data(), first.data(), dim * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("ops: rms_norm against double precision; every set gives the same bits",
          "[ops][row_kernels]") {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> uniform(-3.0f, 5.0f);
  const auto sets = kernels::supported_row_kernels();
  for (int dim : {1, 4, 7, 16, 33, 512, 1000}) {
    std::vector<float> row(dim), weight(dim);
    for (int i = 0; i < dim; ++i) {
      row[i] = uniform(rng);
      weight[i] = uniform(rng);
    }
    double mean_square = 0.0;  // T5LayerNorm: no mean subtracted
    for (float v : row) mean_square += static_cast<double>(v) * v;
    mean_square /= dim;
    std::vector<float> first;
    for (const auto& set : sets) {
      std::vector<float> out = row;
      set.rms_norm_row(out.data(), dim, weight.data(), 1e-6f);
      INFO(set.name << ", dim " << dim);
      for (int i = 0; i < dim; ++i) {
        const double expected = row[i] / std::sqrt(mean_square + 1e-6) * weight[i];
        CHECK(out[i] == Approx(expected).margin(1e-5).epsilon(1e-5));
      }
      if (first.empty()) first = out;
      CHECK(std::memcmp(out.data(), first.data(), dim * sizeof(float)) == 0);
    }
  }
  // By hand: [3, 4] has mean square 12.5; eps 0 and weight [1, 2] give [3, 8] / sqrt(12.5).
  std::vector<float> pair{3.0f, 4.0f}, weight{1.0f, 2.0f};
  ops::rms_norm(LayerNormWeights{weight.data(), nullptr}, pair.data(), 1, 2, 0.0f);
  CHECK(pair[0] == Approx(3.0 / std::sqrt(12.5)).epsilon(1e-6));
  CHECK(pair[1] == Approx(8.0 / std::sqrt(12.5)).epsilon(1e-6));
}

// A row of few distinct values (so the largest repeats), -infinity and both zeros among them.
std::vector<float> few_values_row(std::mt19937& rng, int length) {
  const float values[] = {1.5f, -2.0f, 0.0f, -0.0f, -kInf, 7.0f};
  std::uniform_int_distribution<int> pick(0, 5);
  std::vector<float> row(length);
  for (float& v : row) v = values[pick(rng)];
  return row;
}

// The search's arg-max, written the obvious way: the first index of the largest value.
int first_largest(const std::vector<float>& row) {
  int best = 0;
  for (size_t i = 1; i < row.size(); ++i)
    if (row[i] > row[best]) best = static_cast<int>(i);
  return best;
}

TEST_CASE("row kernels: every set's argmax is the first index of the largest value",
          "[ops][row_kernels]") {
  const auto sets = kernels::supported_row_kernels();
  std::mt19937 rng(17);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int rows = 0;
  for (int length : {1, 2, 15, 16, 17, 31, 33, 64, 65, 1200, 8000, 8003}) {
    for (int trial = 0; trial < 40; ++trial) {
      // Ties, with a NaN somewhere, a NaN first, all -infinity, +infinity last.
      std::vector<float> row = few_values_row(rng, length);
      if (trial % 4 == 1) row[rng() % length] = nan;
      if (trial % 4 == 2) row[0] = nan;
      if (trial % 8 == 3) std::fill(row.begin(), row.end(), -kInf);
      if (trial % 8 == 7) row[length - 1] = kInf;
      const int expected = first_largest(row);
      for (const auto& set : sets) {
        INFO(set.name << ", length " << length << ", trial " << trial);
        CHECK(set.argmax(row.data(), length) == expected);
      }
      ++rows;
    }
  }
  CHECK(rows == 480);
  // By hand: the first of two equal largest values; NaN first wins; NaN elsewhere never does.
  const std::vector<float> tie = {1, 3, 2, 3}, nan_first = {nan, 5, 9}, nan_inside = {1, nan, 0};
  for (const auto& set : sets) {
    INFO(set.name);
    CHECK(set.argmax(tie.data(), 4) == 1);
    CHECK(set.argmax(nan_first.data(), 3) == 0);
    CHECK(set.argmax(nan_inside.data(), 3) == 0);
  }
}

TEST_CASE("row kernels: every set's first_above is the first index past the threshold",
          "[ops][row_kernels]") {
  const auto sets = kernels::supported_row_kernels();
  std::mt19937 rng(23);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int searches = 0;
  for (int length : {1, 15, 16, 17, 40, 1200}) {
    std::vector<float> row = few_values_row(rng, length);
    if (length > 3) row[length / 2] = nan;
    for (float threshold : {-kInf, -2.0f, 0.0f, 1.5f, 7.0f, kInf, nan}) {
      for (int from = 0; from <= length; from += std::max(1, length / 7)) {
        int expected = from;  // the obvious loop
        while (expected < length && !(row[expected] > threshold)) ++expected;
        for (const auto& set : sets) {
          INFO(set.name << ", length " << length << ", threshold " << threshold << ", from "
                        << from);
          CHECK(set.first_above(row.data(), from, length, threshold) == expected);
        }
        ++searches;
      }
    }
  }
  CHECK(searches > 200);
  // By hand: -0 is not above 0; the first of two above; nothing above +infinity or NaN.
  const std::vector<float> row = {-0.0f, 0.0f, 3.0f, 5.0f};
  for (const auto& set : sets) {
    INFO(set.name);
    CHECK(set.first_above(row.data(), 0, 4, 0.0f) == 2);
    CHECK(set.first_above(row.data(), 3, 4, 0.0f) == 3);
    CHECK(set.first_above(row.data(), 0, 4, kInf) == 4);
    CHECK(set.first_above(row.data(), 0, 4, nan) == 4);
    CHECK(set.first_above(row.data(), 4, 4, -kInf) == 4);
  }
}
