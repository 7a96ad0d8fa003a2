// What attention's weights come from (attention_inside.h): the scores multi_head_attention hands
// out, masked heads included, and the norms of a head's output through W_O, worked by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "minimt/engine/attention.h"
#include "minimt/engine/attention_inside.h"

using namespace minimt;

TEST_CASE("attention scores: the softmax's input, the mask's entries untouched, masked heads too",
          "[attention][inside]") {
  // Two heads of head_dim 4 (scores are q.k / 2). Head 0: q = [2, 0, 0, 0] against keys whose
  // first entries are 0, 1, 2: scores 0, 1, 2. Head 1: q = [0, 0, 0, 4] against last entries
  // 1, -1, 0.5: scores 2, -2, 1.
  std::vector<float> q = {2, 0, 0, 0, 0, 0, 0, 4};
  std::vector<float> k = {0, 0, 0, 0, 0, 0, 0, 1,  1, 0, 0, 0, 0, 0, 0, -1,
                          2, 0, 0, 0, 0, 0, 0, 0.5f};
  std::vector<float> v(24, 1.0f), context(8), probs(6), scratch;
  std::vector<float> scores(6, 99.0f);  // [H][tq 1][tk 3]
  multi_head_attention({q.data(), k.data(), v.data(), 1, 3, 2, 4, false}, {}, nullptr,
                       {context.data(), probs.data(), scores.data()}, scratch);
  CHECK(scores == std::vector<float>{0, 1, 2, 2, -2, 1});

  // Causal, the query first of a run of 3: it sees key 0 only; the other entries stay as they
  // were. Head 1 masked: its scores are still recorded, its weights and context are 0.
  const char masked[] = {0, 1};
  std::fill(scores.begin(), scores.end(), 99.0f);
  std::vector<float> queries(24, 0.0f), run_scores(18, 99.0f), run_probs(18), run_context(24);
  std::copy(q.begin(), q.end(), queries.begin());  // query 0 of 3
  multi_head_attention({queries.data(), k.data(), v.data(), 3, 3, 2, 4, true}, {}, masked,
                       {run_context.data(), run_probs.data(), run_scores.data()}, scratch);
  CHECK(run_scores[0] == 0.0f);  // head 0, query 0, key 0
  CHECK(run_scores[1] == 99.0f);
  CHECK(run_scores[2] == 99.0f);
  CHECK(run_scores[9] == 2.0f);  // head 1, query 0, key 0: 4 * 1 / 2
  CHECK(run_scores[10] == 99.0f);
  CHECK(run_probs[9] == 0.0f);
  CHECK(run_context[4] == 0.0f);
  CHECK(run_context[0] == 1.0f);  // head 0 reads the one value row it sees
}

TEST_CASE("head_output_norms: ||x^h W_O^h|| per row and head, the bias left out",
          "[attention][inside]") {
  // W_O [d_model 2, H*dk 4] (2 heads of 2): head 0 multiplies columns 0-1, head 1 columns 2-3.
  const std::vector<float> weight = {1, 2, 3, 4, 0, 1, 0, 2};
  const std::vector<float> bias = {5, 5};
  Linear out;
  out.weight = weight.data();
  out.bias = bias.data();
  out.out = 2;
  out.in = 4;
  // Row 0 = [1, 1, 2, 0]: head 0 gives [1 + 2, 0 + 1] = [3, 1], norm sqrt(10); head 1 gives
  // [2 * 3, 0] = [6, 0], norm 6. Row 1 = [0, 0, 0, -1]: head 0 nothing, head 1 [-4, -2].
  const std::vector<float> x = {1, 1, 2, 0, 0, 0, 0, -1};
  std::vector<float> norms(4), scratch;
  head_output_norms(out, x.data(), 2, 2, 2, norms.data(), scratch);
  CHECK(norms[0] == Approx(std::sqrt(10.0)).epsilon(1e-7));
  CHECK(norms[1] == Approx(6.0).epsilon(1e-7));
  CHECK(norms[2] == 0.0f);
  CHECK(norms[3] == Approx(std::sqrt(20.0)).epsilon(1e-7));
}
