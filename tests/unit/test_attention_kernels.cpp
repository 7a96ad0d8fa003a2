// The attention products (src/engine/kernels/attention_kernels.h): every instruction set this
// CPU runs gives the generic kernel's bits, and all of them agree with double precision.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "engine/kernels/kernel_table.h"

using namespace minimt;

namespace {

std::vector<float> random_values(std::mt19937& rng, size_t count, float spread) {
  std::uniform_real_distribution<float> uniform(-spread, spread);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
  return values;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("attention kernels: scores and context, every instruction set gives the same bits",
          "[attention][kernels]") {
  const auto sets = kernels::supported_attention_kernels();
  REQUIRE(sets.back().name == std::string("generic"));
  std::mt19937 rng(3);
  // Widths around the lane count and the 64-column context pass; keys up to a long sentence.
  for (int dim : {1, 7, 15, 16, 17, 32, 48, 63, 64, 65, 100, 128}) {
    for (int count : {1, 2, 9, 40, 257}) {
      const int stride = dim * 3 + 5;  // rows of a wider matrix, as heads are slices of it
      const std::vector<float> q = random_values(rng, dim, 2.0f);
      const std::vector<float> keys = random_values(rng, static_cast<size_t>(count) * stride, 2.0f);
      std::vector<float> weights = random_values(rng, count, 1.0f);
      for (float& w : weights) w = std::fabs(w);
      const float scale = 1.0f / std::sqrt(static_cast<float>(dim));
      std::vector<float> generic_scores, generic_context;
      for (const auto& set : sets) {
        INFO(set.name << ", dim " << dim << ", count " << count);
        std::vector<float> scores(count), context(dim);
        set.scores(q.data(), keys.data(), stride, count, dim, scale, scores.data());
        set.context(weights.data(), keys.data(), stride, count, dim, context.data());
        for (int j = 0; j < count; ++j) {
          double dot = 0.0, magnitude = 0.0;
          for (int d = 0; d < dim; ++d) {
            dot += double(q[d]) * keys[size_t(j) * stride + d];
            magnitude += std::fabs(double(q[d]) * keys[size_t(j) * stride + d]);
          }
          // float sums of dim terms: a few ulps of the sum of magnitudes
          CHECK(std::fabs(scores[j] - dot * scale) <= 1e-6 * magnitude * scale + 1e-7);
        }
        for (int d = 0; d < dim; ++d) {
          double sum = 0.0, magnitude = 0.0;
          for (int j = 0; j < count; ++j) {
            sum += double(weights[j]) * keys[size_t(j) * stride + d];
            magnitude += std::fabs(double(weights[j]) * keys[size_t(j) * stride + d]);
          }
          CHECK(std::fabs(context[d] - sum) <= 1e-6 * magnitude * (1 + count / 64.0) + 1e-7);
        }
        if (generic_scores.empty()) {
          generic_scores = scores;
          generic_context = context;
        }
        CHECK(same_bits(scores, generic_scores));
        CHECK(same_bits(context, generic_context));
      }
    }
  }
}

TEST_CASE("attention kernels: a hand-worked dot product and weighted sum", "[attention][kernels]") {
  // q = (1, 2, 3), keys (1, 0, 1) and (0.5, 0.5, 0.5): dots 4 and 3; scale 0.5 -> 2 and 1.5.
  // Weights (0.25, 0.75) over the same rows as values: (0.25 + 0.375, 0.375, 0.25 + 0.375).
  const std::vector<float> q = {1, 2, 3};
  const std::vector<float> rows = {1, 0, 1, 0.5f, 0.5f, 0.5f};
  const std::vector<float> weights = {0.25f, 0.75f};
  for (const auto& set : kernels::supported_attention_kernels()) {
    INFO(set.name);
    float scores[2], context[3];
    set.scores(q.data(), rows.data(), 3, 2, 3, 0.5f, scores);
    CHECK(scores[0] == 2.0f);
    CHECK(scores[1] == 1.5f);
    set.context(weights.data(), rows.data(), 3, 2, 3, context);
    CHECK(context[0] == 0.625f);
    CHECK(context[1] == 0.375f);
    CHECK(context[2] == 0.625f);
  }
}

TEST_CASE("attention kernels: every head at once gives the bits of head by head",
          "[attention][kernels]") {
  std::mt19937 rng(5);
  for (const auto& set : kernels::supported_attention_kernels()) {
    if (!set.scores_heads) continue;
    for (int dim : {7, 16, 32, 48, 64, 100, 128}) {  // every width with a kernel of its own
      for (int heads : {1, 3, 4, 8, 9, 16}) {
        for (int count : {1, 9, 40}) {
          INFO(set.name << ", dim " << dim << ", heads " << heads << ", count " << count);
          const int width = heads * dim, stride = width + 3, out_stride = count + 2;
          const std::vector<float> q = random_values(rng, width, 2.0f);
          const std::vector<float> keys = random_values(rng, size_t(count) * stride, 2.0f);
          std::vector<float> weights = random_values(rng, size_t(heads) * out_stride, 1.0f);
          for (float& w : weights) w = std::fabs(w);
          const float scale = 0.125f;
          std::vector<float> scores(size_t(heads) * out_stride), context(width);
          std::vector<float> expected_scores(scores.size()), expected_context(width);
          set.scores_heads(q.data(), keys.data(), keys.data(), stride, count, heads, dim, scale,
                           scores.data(), out_stride);
          set.context_heads(weights.data(), out_stride, keys.data(), stride, count, heads, dim,
                            context.data());
          for (int r = 0; r < heads; ++r) {
            set.scores(q.data() + r * dim, keys.data() + r * dim, stride, count, dim, scale,
                       expected_scores.data() + r * out_stride);
            set.context(weights.data() + r * out_stride, keys.data() + r * dim, stride, count, dim,
                        expected_context.data() + r * dim);
          }
          CHECK(same_bits(scores, expected_scores));
          CHECK(same_bits(context, expected_context));
        }
      }
    }
  }
}
