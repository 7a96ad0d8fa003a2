// The backward of multi_head_attention (attention_backward.h) against central finite differences
// of the forward: causal self-attention with T5's relative-position bias and unscaled scores,
// cross-attention with tq != tk and d_k != d_model / h, a masked head, two seeds at once.
#include <catch2/catch.hpp>
#include <random>

#include "minimt/engine/attention.h"
#include "minimt/engine/attention_backward.h"
#include "test_support.h"

using namespace minimt;

namespace {

std::vector<float> draw(std::mt19937& rng, size_t count) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = normal(rng);
  return v;
}

struct Case {
  const char* name;
  int tq, tk, heads, head_dim;
  bool causal, scaled, bias;
  std::vector<char> masked;  // empty: none
};

void check_case(const Case& k, unsigned seed) {
  std::mt19937 rng(seed);
  const int width = k.heads * k.head_dim, seeds = 2;
  std::vector<float> q = draw(rng, k.tq * width), key = draw(rng, k.tk * width);
  std::vector<float> v = draw(rng, k.tk * width), c = draw(rng, seeds * k.tq * width);
  const int span = 2 * k.tk - 1;
  std::vector<float> table = draw(rng, k.heads * span);
  ScoreOptions options{k.scaled};
  if (k.bias) options = ScoreOptions{k.scaled, table.data(), span, k.tk - 1};
  const char* masked = k.masked.empty() ? nullptr : k.masked.data();
  std::vector<float> context(k.tq * width), weights(k.heads * k.tq * k.tk), scratch;
  const auto forward = [&] {
    const AttentionInputs in{q.data(), key.data(), v.data(),   k.tq,
                             k.tk,     k.heads,    k.head_dim, k.causal};
    multi_head_attention(in, options, masked, {context.data(), weights.data(), nullptr}, scratch);
  };
  forward();
  backward::AttentionTape tape{q.data(),
                               key.data(),
                               v.data(),
                               weights.data(),
                               k.tq,
                               k.tk,
                               k.heads,
                               k.head_dim,
                               k.scaled ? 1.0f / std::sqrt(static_cast<float>(k.head_dim)) : 1.0f,
                               masked};
  std::vector<float> dq(seeds * k.tq * width), dk(seeds * k.tk * width), dv(dk.size());
  backward::AttentionBackwardScratch z;
  backward::attention(tape, c.data(), seeds, dq.data(), dk.data(), dv.data(), z);
  for (int s = 0; s < seeds; ++s) {
    const auto loss = [&] {
      forward();
      double sum = 0.0;
      for (int i = 0; i < k.tq * width; ++i)
        sum += static_cast<double>(c[s * k.tq * width + i]) * context[i];
      return sum;
    };
    for (auto [x, gradient, name] : {std::tuple{&q, dq.data() + s * k.tq * width, "q"},
                                     std::tuple{&key, dk.data() + s * k.tk * width, "k"},
                                     std::tuple{&v, dv.data() + s * k.tk * width, "v"}}) {
      for (size_t i = 0; i < x->size(); ++i) {
        const float keep = (*x)[i], h = 1e-3f;
        (*x)[i] = keep + h;
        const double up = loss();
        (*x)[i] = keep - h;
        const double down = loss();
        (*x)[i] = keep;
        INFO(k.name << ": seed " << s << ", d" << name << "[" << i << "]");
        CHECK(gradient[i] == Approx((up - down) / (2.0 * h)).margin(2e-3).epsilon(1e-2));
      }
    }
  }
}

}  // namespace

TEST_CASE("backward: attention against finite differences", "[backward]") {
  const std::vector<Case> cases = {
      {"encoder self-attention, scaled", 4, 4, 2, 3, false, true, false, {}},
      {"causal self-attention, T5 bias, unscaled", 4, 4, 2, 3, true, false, true, {}},
      {"cross-attention tq 3 tk 5, d_k 5 of 3 heads, head 1 masked",
       3,
       5,
       3,
       5,
       false,
       true,
       false,
       {0, 1, 0}},
      {"causal with a masked head and the bias", 5, 5, 2, 2, true, true, true, {1, 0}},
  };
  unsigned seed = 10;
  for (const Case& k : cases) check_case(k, seed++);
}
