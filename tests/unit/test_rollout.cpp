// Attention rollout (rollout.h) on hand-made matrices, against products worked out by hand.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minimt/app/analysis/rollout.h"
#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/base/error.h"

using namespace minimt;
using Catch::Matchers::WithinAbs;
using nlohmann::json;

namespace {

RolloutMatrix matrix(const std::vector<std::vector<double>>& rows) {
  RolloutMatrix m(static_cast<int>(rows.size()),
                  rows.empty() ? 0 : static_cast<int>(rows[0].size()));
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) m.at(i, j) = rows[i][j];
  return m;
}

// `tolerance`: the inputs' rounding (AttentionRecord holds floats).
void check_equal(const RolloutMatrix& got, const std::vector<std::vector<double>>& want,
                 double tolerance = 1e-12) {
  REQUIRE(got.rows == static_cast<int>(want.size()));
  for (int i = 0; i < got.rows; ++i) {
    REQUIRE(got.cols == static_cast<int>(want[i].size()));
    for (int j = 0; j < got.cols; ++j) {
      INFO("row " << i << ", column " << j);
      CHECK_THAT(got.at(i, j), WithinAbs(want[i][j], tolerance));
    }
  }
}

// Layer 0 averages to A1 = [[0.2, 0.8], [0.6, 0.4]], layer 1 to A2 = [[1, 0], [0.5, 0.5]].
const std::vector<std::vector<double>> kA1 = {{0.2, 0.8}, {0.6, 0.4}};
const std::vector<std::vector<double>> kA2 = {{1, 0}, {0.5, 0.5}};
// By hand: A1' = 0.5 A1 + 0.5 I = [[0.6, 0.4], [0.3, 0.7]]; A2' = [[1, 0], [0.25, 0.75]];
// A2' A1' = [[0.6, 0.4], [0.25*0.6 + 0.75*0.3, 0.25*0.4 + 0.75*0.7]] = [[0.6, 0.4], [0.375,
// 0.625]].
const std::vector<std::vector<double>> kRollout = {{0.6, 0.4}, {0.375, 0.625}};
// Cross-attention C = [[1, 0], [0, 1], [0.5, 0.5]] times the rollout, row by row.
const std::vector<std::vector<double>> kCross = {{1, 0}, {0, 1}, {0.5, 0.5}};
const std::vector<std::vector<double>> kCrossRollout = {
    {0.6, 0.4}, {0.375, 0.625}, {0.4875, 0.5125}};

}  // namespace

TEST_CASE("rollout of two hand-made layers equals the product done by hand", "[rollout]") {
  check_equal(attention_rollout({matrix(kA1), matrix(kA2)}, 2), kRollout);
  // One layer: just 0.5 A + 0.5 I.
  check_equal(attention_rollout({matrix(kA1)}, 2), {{0.6, 0.4}, {0.3, 0.7}});
  // No layer: the identity; the order matters (A1' A2' differs).
  check_equal(attention_rollout({}, 2), {{1, 0}, {0, 1}});
  check_equal(attention_rollout({matrix(kA2), matrix(kA1)}, 2), {{0.7, 0.3}, {0.475, 0.525}});
  check_equal(cross_rollout(matrix(kCross), matrix(kRollout)), kCrossRollout);
}

TEST_CASE("rollout averages over the heads masking left, as the page's averages do", "[rollout]") {
  // Half the heads masked (their rows recorded as 0): the two-head average A = [[0.25, 0.25],
  // [0.1, 0.4]] is the live head's [[0.5, 0.5], [0.2, 0.8]] halved; the average over the live
  // head is that, and 0.5 A + 0.5 I = [[0.75, 0.25], [0.1, 0.9]].
  check_equal(attention_rollout({matrix({{0.25, 0.25}, {0.1, 0.4}})}, 2),
              {{0.75, 0.25}, {0.1, 0.9}});
  // Every head of a layer masked: it passes only the residual, the identity; the rollout is the
  // other layer's alone.
  check_equal(attention_rollout({matrix({{0, 0}, {0, 0}}), matrix(kA1)}, 2),
              {{0.6, 0.4}, {0.3, 0.7}});
  // Every cross head masked: the row stays 0 (no source reaches it), the others are rescaled.
  check_equal(cross_rollout(matrix({{0, 0}, {0.25, 0.25}}), matrix(kRollout)),
              {{0, 0}, {0.4875, 0.5125}});
}

TEST_CASE("rollout refuses matrices of the wrong size", "[rollout]") {
  CHECK_THROWS_AS(attention_rollout({matrix(kA1)}, 3), Error);
  CHECK_THROWS_AS(attention_rollout({matrix(kCross)}, 3), Error);
  CHECK_THROWS_AS(cross_rollout(matrix(kA1), matrix(kCross)), Error);
  CHECK(attention_rollout({}, 0).values.empty());
}

TEST_CASE("sentence_rollout averages the heads and reads the last decoder layer", "[rollout]") {
  AttentionRecord r;
  r.encoder_layers = 2;
  r.decoder_layers = 2;
  r.heads = 2;
  r.source_length = 2;
  // [layer][head][S][S]: the head averages are A1 and A2.
  r.encoder_self = {0.4, 0.6, 0.6, 0.4, 0, 1, 0.6, 0.4,  // layer 0: heads 0 and 1
                    1,   0,   1,   0,   1, 0, 0,   1};   // layer 1
  // Step t: [layer][head][S]. Layer 1's heads average to kCross; layer 0 would give another
  // answer (all weight on the second piece).
  r.cross_steps = {{0, 1, 0, 1, 1, 0, 1, 0}, {0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 1, 0, 0, 1}};
  r.decoder_self_steps.resize(3);
  const SentenceRollout rollout = sentence_rollout(r);
  check_equal(rollout.encoder, kRollout, 1e-7);
  check_equal(rollout.cross, kCrossRollout, 1e-7);

  AttentionRecord blank;  // a blank sentence: nothing recorded, nothing to roll out
  const SentenceRollout none = sentence_rollout(blank);
  CHECK(none.encoder.rows == 0);
  CHECK(none.cross.rows == 0);
}

namespace {

// A dump of one sentence (3 source pieces, 2 steps) with only its rollouts.
json rollout_dump(json encoder, json cross) {
  json sentence = {{"source", "a b"},
                   {"translation", "x"},
                   {"source_tokens", {"a", "b", "</s>"}},
                   {"decoder_input_tokens", {"<s>", "x"}},
                   {"output_tokens", {"x", "</s>"}},
                   {"encoder_rollout", std::move(encoder)},
                   {"cross_rollout", std::move(cross)}};
  return {{"format", "minimt-attention"},
          {"version", 1},
          {"selection", {{"types", json::array()}, {"layers", nullptr}, {"heads", {0}}}},
          {"sentences", {sentence}}};
}

const json kEncoder = {{0.5, 0.25, 0.25}, {0, 1, 0}, {0.125, 0.125, 0.75}};
const json kCrossRows = {{0.75, 0.25, 0}, {0, 0, 0}};

}  // namespace

TEST_CASE("dumps keep their rollouts; the reader checks their shape and range", "[rollout]") {
  const AttentionDump dump = parse_attention_dump(rollout_dump(kEncoder, kCrossRows), "d.json");
  const DumpSentence& s = dump.sentences.at(0);
  REQUIRE(s.encoder_rollout.present);
  CHECK(s.encoder_rollout.rows == 3);
  CHECK(s.encoder_rollout.at(2, 2) == 0.75f);
  REQUIRE(s.cross_rollout.present);
  CHECK(s.cross_rollout.rows == 2);
  CHECK(s.cross_rollout.at(0, 1) == 0.25f);

  json older = rollout_dump(kEncoder, kCrossRows);  // dumps without --rollout read as before
  older["sentences"][0].erase("encoder_rollout");
  older["sentences"][0].erase("cross_rollout");
  CHECK_FALSE(parse_attention_dump(older, "d.json").sentences[0].encoder_rollout.present);

  CHECK_THROWS_WITH(parse_attention_dump(rollout_dump({{1, 0, 0}}, kCrossRows), "d.json"),
                    "d.json: sentence 1: encoder_rollout should be a list of 3 rows");
  CHECK_THROWS_WITH(
      parse_attention_dump(rollout_dump(kEncoder, {{1, 0}, {0, 1}}), "d.json"),
      "d.json: sentence 1: cross_rollout[0] should have 3 weights, one per source token");
  CHECK_THROWS_WITH(
      parse_attention_dump(rollout_dump(kEncoder, {{1.5, 0, 0}, {0, 0, 0}}), "d.json"),
      "d.json: sentence 1: cross_rollout[0][0] is not a probability: 1.5");
  CHECK_THROWS_WITH(
      parse_attention_dump(rollout_dump(kEncoder, {{"a", 0, 0}, {0, 0, 0}}), "d.json"),
      "d.json: sentence 1: cross_rollout[0][0] is not a number");
}

TEST_CASE("the page's data holds each rollout, with the type it is drawn under", "[rollout]") {
  std::ostringstream page;
  const ViewSummary summary = write_attention_page(
      parse_attention_dump(rollout_dump(kEncoder, kCrossRows), "d.json"), page);
  CHECK(summary.rollouts == 2);
  CHECK(summary.heatmaps == 0);
  const std::string html = page.str();
  const std::string open = "<script type=\"application/json\" id=\"minimt-data\">";
  const size_t begin = html.find(open) + open.size();
  const json data = json::parse(html.substr(begin, html.find("</script>", begin) - begin));
  const std::vector<std::pair<std::string, std::string>> rollouts = {{"encoder_rollout", "encoder"},
                                                                     {"cross_rollout", "cross"}};
  for (const auto& rollout : rollouts) {
    const std::string& key = rollout.first;
    INFO(key);
    const json& m = data["sentences"][0]["attention"][key];
    CHECK(m["rollout"] == true);
    CHECK(m["layers"] == json({"rollout"}));
    const auto kind = std::find_if(data["kinds"].begin(), data["kinds"].end(),
                                   [&](const json& k) { return k["type"] == key; });
    REQUIRE(kind != data["kinds"].end());
    CHECK((*kind)["of"] == rollout.second);
    CHECK((*kind)["rollout"] == true);
  }
}
