// The data of minimt heads --view (head_page.h): the page's script draws the grid from it
// (tests/e2e/test_heads_page.py checks the grid in a browser); the text and JSON Lines tables'
// legend and changed translations (head_report.h).
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minimt/app/run/heads_run.h"
#include "minimt/app/views/head_page.h"
#include "minimt/app/views/head_report.h"

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

namespace {

// A cross head whose masking changes two translations, and a decoder head that changes none.
HeadAnalysis analysis_with_changes() {
  HeadAnalysis a;
  a.sentences = 3;
  a.tokens = 12;
  a.exact_match = 2.0 / 3;
  HeadResult cross;
  cross.kind = AttentionKind::kCross;
  cross.layer = 2;
  cross.head = 1;
  cross.delta_exact_match = -1.0 / 3;
  cross.changed = {{3, "il dit \"oui\"", "il dit"}, {17, "le chat", "le chien"}};
  HeadResult decoder;
  decoder.kind = AttentionKind::kDecoder;
  decoder.delta_exact_match = 0.0;
  a.heads = {cross, decoder};
  return a;
}

}  // namespace

TEST_CASE("head report: the changed translations, in text and in JSON Lines", "[heads][report]") {
  const HeadAnalysis a = analysis_with_changes();
  const std::string text = head_table_text(a);
  CHECK(text.find("\ncross:2:1, 2 sentences\n"
                  "  line 3: il dit \"oui\" \u2192 il dit\n"
                  "  line 17: le chat \u2192 le chien\n") != std::string::npos);
  CHECK(text.find("decoder:0:0") == std::string::npos);  // it changes nothing: not listed

  std::istringstream lines(head_table_jsonl(a));
  std::string line;
  std::getline(lines, line);
  CHECK(json::parse(line)["changed"] ==
        json::array({{{"line", 3}, {"before", "il dit \"oui\""}, {"after", "il dit"}},
                     {{"line", 17}, {"before", "le chat"}, {"after", "le chien"}}}));
  std::getline(lines, line);
  CHECK(json::parse(line)["changed"] == json::array());  // with --translate: always there

  HeadAnalysis unchanged = a;
  for (HeadResult& h : unchanged.heads) h.changed.clear();
  CHECK(head_table_text(unchanged).find(
            "\nno greedy translation changes when any one head is ablated\n") != std::string::npos);
  unchanged.exact_match.reset();  // without --translate: neither the list nor the key
  CHECK(head_table_text(unchanged).find("change when") == std::string::npos);
  CHECK(head_table_text(unchanged).find("changes when") == std::string::npos);
  CHECK(head_table_jsonl(unchanged).find("changed") == std::string::npos);
}

TEST_CASE("head report: the legend after the text table names every column", "[heads][report]") {
  const std::string text = head_table_text(analysis_with_changes());
  const std::string header =
      "type     layer head  d_logp/tok  d_exact  entropy  max   same  prev  "
      "first  eos   agree\n";
  const size_t table = text.find(header);
  REQUIRE(table != std::string::npos);
  const size_t legend = text.find(heads_column_legend());
  REQUIRE(legend != std::string::npos);
  CHECK(legend > table);
  std::istringstream columns(header);
  std::string column;
  for (columns >> column; columns >> column;)  // "type" aside
    if (column != "layer" && column != "head")
      CHECK(text.find("\n  " + column + " ", legend) != std::string::npos);
  CHECK(text.find("decoder position 0", legend) != std::string::npos);
}
