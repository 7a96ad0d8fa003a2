// The data of minimt heads --view (head_page.h): the page's script draws the grid from it
// (tests/e2e/test_heads_page.py checks the grid in a browser).
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "minimt/app/head_page.h"

using namespace minimt;
using nlohmann::json;

TEST_CASE("head page data: the heads in rank order with their numbers, the pruning curve",
          "[heads][page]") {
  HeadAnalysis a;
  a.sentences = 2;
  a.tokens = 10;
  a.log_prob_per_token = -0.5;
  HeadResult cross;
  cross.kind = AttentionKind::kCross;
  cross.layer = 1;
  cross.head = 2;
  cross.delta_log_prob = -0.25;
  cross.pattern.entropy = 1.5;
  cross.pattern.eos = 0.125;
  cross.pattern.alignment_agreement = 0.75;
  HeadResult encoder;
  encoder.kind = AttentionKind::kEncoder;
  encoder.delta_log_prob = -INFINITY;  // JSON has no infinity: printf's spelling of it instead
  encoder.pattern.same = NAN;
  encoder.pattern.previous = -NAN;
  a.heads = {cross, encoder};
  a.prune = {{0, "", -0.5, std::nullopt}, {1, "cross:1:2", -0.75, 0.5}};

  const json data = head_page_data(a);
  CHECK(data["sentences"] == 2);
  CHECK(data["tokens"] == 10);
  CHECK(data["log_prob_per_token"] == -0.5);
  CHECK_FALSE(data.contains("exact_match"));  // not measured (no --translate)
  CHECK(data["ranked"][0] == json({{"type", "cross"},
                                   {"layer", 1},
                                   {"head", 2},
                                   {"delta_log_prob", -0.25},
                                   {"entropy", 1.5},
                                   {"max_weight", 0.0},
                                   {"first", 0.0},
                                   {"eos", 0.125},
                                   {"alignment_agreement", 0.75}}));
  CHECK(data["ranked"][1]["type"] == "encoder");
  CHECK(data["ranked"][1]["delta_log_prob"] == "-inf");
  CHECK(data["ranked"][1]["same"] == "nan");
  CHECK(data["ranked"][1]["previous"] == "-nan");
  CHECK(data["prune"] == json::array({{{"removed", 0}, {"head", ""}, {"log_prob_per_token", -0.5}},
                                      {{"removed", 1},
                                       {"head", "cross:1:2"},
                                       {"log_prob_per_token", -0.75},
                                       {"exact_match", 0.5}}}));
}
