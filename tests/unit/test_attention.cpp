// multi_head_attention: worked examples by hand, then random inputs against plain loops, with
// head_dim unrelated to any d_model and the causal offset of a run of queries at the end.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "minimt/engine/attention.h"
#include "test_support.h"

using namespace minimt;

namespace {

// Plain loops: for head r, A = softmax(Q_r K_r^T / sqrt(dk)) with query i seeing keys
// j <= i + (tk - tq) when causal, context = A V_r. probs [H][tq][tk].
void naive_attention(const std::vector<float>& q, const std::vector<float>& k,
                     const std::vector<float>& v, int tq, int tk, int heads, int dk, bool causal,
                     std::vector<float>& context, std::vector<float>& probs) {
  const int width = heads * dk;
  context.assign(static_cast<size_t>(tq) * width, 0.0f);
  probs.assign(static_cast<size_t>(heads) * tq * tk, 0.0f);
  for (int r = 0; r < heads; ++r)
    for (int i = 0; i < tq; ++i) {
      const int visible = causal ? i + (tk - tq) + 1 : tk;
      std::vector<double> score(tk);
      double peak = -INFINITY;
      for (int j = 0; j < visible; ++j) {
        double dot = 0.0;
        for (int e = 0; e < dk; ++e)
          dot += static_cast<double>(q[i * width + r * dk + e]) * k[j * width + r * dk + e];
        score[j] = dot / std::sqrt(static_cast<double>(dk));
        peak = std::max(peak, score[j]);
      }
      double sum = 0.0;
      for (int j = 0; j < visible; ++j) sum += std::exp(score[j] - peak);
      for (int j = 0; j < visible; ++j) {
        const double p = std::exp(score[j] - peak) / sum;
        probs[(static_cast<size_t>(r) * tq + i) * tk + j] = static_cast<float>(p);
        for (int e = 0; e < dk; ++e)
          context[i * width + r * dk + e] += static_cast<float>(p * v[j * width + r * dk + e]);
      }
    }
}

std::vector<float> random_values(std::mt19937& rng, size_t count) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(count);
  for (float& x : values) x = normal(rng);
  return values;
}

}  // namespace

TEST_CASE("attention: one head worked by hand", "[attention]") {
  // head_dim 4, so scores are q.k / 2. q = [2, 0, 0, 0] and keys whose first entries are
  // 0, 1, 2 give scores 0, 1, 2; softmax = [1, e, e^2] / (1 + e + e^2)
  // = [0.09003057, 0.24472847, 0.66524096]. Values are the first three unit vectors, so the
  // context is the weights themselves.
  std::vector<float> q = {2, 0, 0, 0};
  std::vector<float> k = {0, 5, 5, 5, 1, -3, 0, 0, 2, 0, 0, 9};  // only column 0 meets q
  std::vector<float> v = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  std::vector<float> context(4), probs(3), scratch;
  multi_head_attention({q.data(), k.data(), v.data(), 1, 3, 1, 4, false}, {}, nullptr,
                       {context.data(), probs.data()}, scratch);
  CHECK(probs[0] == Approx(0.09003057).margin(1e-7));
  CHECK(probs[1] == Approx(0.24472847).margin(1e-7));
  CHECK(probs[2] == Approx(0.66524096).margin(1e-7));
  CHECK(context[0] == Approx(0.09003057).margin(1e-7));
  CHECK(context[1] == Approx(0.24472847).margin(1e-7));
  CHECK(context[2] == Approx(0.66524096).margin(1e-7));
  CHECK(context[3] == 0.0f);

  // One query at the end of a causal run of 3 keys sees all of them (offset tk - tq = 2).
  std::vector<float> causal_probs(3);
  multi_head_attention({q.data(), k.data(), v.data(), 1, 3, 1, 4, true}, {}, nullptr,
                       {context.data(), causal_probs.data()}, scratch);
  CHECK(causal_probs == probs);
}

TEST_CASE("attention: two heads with head_dim 3 read their own columns", "[attention]") {
  // Width H*dk = 6 (as for a d_model of 4 with head_dim 3). Head 0 has identical keys, so its
  // weights are uniform and its context the mean of its values; head 1's query is zero, so it
  // is uniform too, whatever its keys. Then head 1 gets a query that picks key 1 strongly.
  const int heads = 2, dk = 3, tk = 2;
  std::vector<float> q = {1, 2, 3, 0, 0, 0};
  std::vector<float> k = {1, 1, 1, 4,  -2, 7,   // key 0: head 0 | head 1
                          1, 1, 1, -5, 3,  0};  // key 1
  std::vector<float> v = {2, 4, 6, 1, 0, 0,     // value 0
                          0, 0, 2, 0, 1, 0};    // value 1
  std::vector<float> context(6), probs(heads * tk), scratch;
  multi_head_attention({q.data(), k.data(), v.data(), 1, tk, heads, dk, false}, {}, nullptr,
                       {context.data(), probs.data()}, scratch);
  CHECK(probs == std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f});
  CHECK(context == std::vector<float>{1, 2, 4, 0.5f, 0.5f, 0});

  // Head 1 query [0, sqrt(3) * ln(3) / 3, 0]: scores (k.q)/sqrt(3) = [-2, 3] * ln(3) / 3, so
  // weights are 3^(-2/3) : 3^(3/3) -> [1/(1 + 3^(5/3)), 3^(5/3)/(1 + 3^(5/3))].
  q[4] = static_cast<float>(std::sqrt(3.0) * std::log(3.0) / 3.0);
  multi_head_attention({q.data(), k.data(), v.data(), 1, tk, heads, dk, false}, {}, nullptr,
                       {context.data(), probs.data()}, scratch);
  const double ratio = std::pow(3.0, 5.0 / 3.0);
  CHECK(probs[2] == Approx(1.0 / (1.0 + ratio)).margin(1e-6));
  CHECK(probs[3] == Approx(ratio / (1.0 + ratio)).margin(1e-6));
  CHECK(context[3] == Approx(1.0 / (1.0 + ratio)).margin(1e-6));
  CHECK(context[4] == Approx(ratio / (1.0 + ratio)).margin(1e-6));
  CHECK(context[0] == 1.0f);  // head 0 untouched by head 1's query
}

TEST_CASE("attention: the causal mask gives exact zeros past the diagonal", "[attention][mask]") {
  std::mt19937 rng(3);
  const int heads = 3, dk = 2, t = 5, width = heads * dk;
  auto q = random_values(rng, t * width), k = random_values(rng, t * width),
       v = random_values(rng, t * width);
  std::vector<float> context(t * width), probs(heads * t * t, -1.0f), scratch;
  multi_head_attention({q.data(), k.data(), v.data(), t, t, heads, dk, true}, {}, nullptr,
                       {context.data(), probs.data()}, scratch);
  for (int r = 0; r < heads; ++r)
    for (int i = 0; i < t; ++i) {
      double sum = 0.0;
      for (int j = 0; j < t; ++j) {
        const float p = probs[(r * t + i) * t + j];
        if (j > i) {
          INFO("head " << r << " query " << i << " key " << j);
          CHECK(p == 0.0f);
        }
        sum += p;
      }
      CHECK(sum == Approx(1.0).margin(1e-6));
    }
  // Query 0 sees only key 0: weight exactly 1, context exactly value 0.
  for (int r = 0; r < heads; ++r) CHECK(probs[r * t * t] == 1.0f);
  for (int e = 0; e < width; ++e) CHECK(context[e] == Approx(v[e]).margin(1e-7));
}

TEST_CASE("attention: random inputs match plain loops, with and without the causal offset",
          "[attention][mask]") {
  std::mt19937 rng(5);
  struct Case {
    int tq, tk, heads, dk;
    bool causal;
  };
  for (Case c : {Case{4, 4, 2, 3, false}, Case{4, 4, 2, 3, true}, Case{2, 6, 3, 5, true},
                 Case{1, 7, 4, 1, true}, Case{3, 9, 1, 8, false}, Case{6, 6, 2, 7, true}}) {
    INFO("tq " << c.tq << " tk " << c.tk << " heads " << c.heads << " head_dim " << c.dk
               << " causal " << c.causal);
    const int width = c.heads * c.dk;
    auto q = random_values(rng, c.tq * width), k = random_values(rng, c.tk * width),
         v = random_values(rng, c.tk * width);
    std::vector<float> expected_context, expected_probs;
    naive_attention(q, k, v, c.tq, c.tk, c.heads, c.dk, c.causal, expected_context, expected_probs);
    std::vector<float> context(c.tq * width), probs(c.heads * c.tq * c.tk), scratch;
    multi_head_attention({q.data(), k.data(), v.data(), c.tq, c.tk, c.heads, c.dk, c.causal}, {},
                         nullptr, {context.data(), probs.data()}, scratch);
    CHECK_ALL_CLOSE(probs.data(), expected_probs.data(), probs.size(), 1e-6);
    CHECK_ALL_CLOSE(context.data(), expected_context.data(), context.size(), 1e-5);
    if (c.causal)  // masked weights exactly zero: query i sees keys j <= i + tk - tq
      for (int r = 0; r < c.heads; ++r)
        for (int i = 0; i < c.tq; ++i)
          for (int j = i + c.tk - c.tq + 1; j < c.tk; ++j)
            CHECK(probs[(r * c.tq + i) * c.tk + j] == 0.0f);

    // Without a probs buffer (scratch instead) the context is the same.
    std::vector<float> plain(c.tq * width);
    multi_head_attention({q.data(), k.data(), v.data(), c.tq, c.tk, c.heads, c.dk, c.causal}, {},
                         nullptr, {plain.data()}, scratch);
    CHECK_ALL_CLOSE(plain.data(), context.data(), plain.size(), 1e-6);
  }
}
