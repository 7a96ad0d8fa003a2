// The request of translate and score (app/run/request.h): what check_request refuses and how it
// names the field, what plan_request derives from a request on the hand model, and run_request
// over lines in memory and in a file, with a sink that keeps what it is given.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minimt/app/run/request.h"
#include "minimt/app/run/request_options.h"
#include "minimt/app/run/request_plan.h"
#include "minimt/app/run/request_run.h"
#include "test_support.h"

using minimt::test::fixture_path;
using nlohmann::json;
using namespace minimt;

namespace {

// The message check_request throws for `request`, and the field it names ("" if none).
std::pair<std::string, std::string> refusal(const Request& request,
                                            FieldSpelling spelling = FieldSpelling::kOption) {
  try {
    check_request(request, spelling);
  } catch (const RequestError& e) {
    return {e.what(), e.field()};
  }
  return {"", ""};
}

std::shared_ptr<const Model> hand_model() {
  static const std::shared_ptr<const Model> model = Model::load(fixture_path("hand-model"));
  return model;
}

// Keeps every notice and record; stops the run after `stop_after` records (-1: never).
struct KeepingSink : RecordSink {
  std::vector<LineNotice> notices;
  std::vector<std::string> records;
  std::vector<long long> batches;  // the count given after each batch
  int stop_after = -1;
  void notice(const LineNotice& notice) override { notices.push_back(notice); }
  bool write(const std::string& record) override {
    records.push_back(record);
    return stop_after < 0 || static_cast<int>(records.size()) < stop_after;
  }
  bool batch_written(long long written) override {
    batches.push_back(written);
    return true;
  }
};

RunSummary run_lines(const Request& request, std::vector<std::string> lines, KeepingSink& sink,
                     const AttentionSinks& attention = {}) {
  MemoryLines source(std::move(lines));
  return run_request(hand_model(), plan_request(request, *hand_model()), source, sink, attention);
}

}  // namespace

TEST_CASE("check_request: the default request passes, bad values name their field", "[request]") {
  CHECK(refusal(Request()).first.empty());
  Request request;
  request.search.beam_size = 0;
  CHECK(refusal(request) ==
        std::make_pair(std::string("--beam-size: 0 is not in [1, 256]"), std::string("beam_size")));
  CHECK(refusal(request, FieldSpelling::kJson).first == "beam_size: 0 is not in [1, 256]");
  request = Request();
  request.search.top_p = 0.0f;
  CHECK(refusal(request).second == "top_p");
  request = Request();
  request.record.dump_types = {"cross", "self"};
  CHECK(refusal(request) ==
        std::make_pair(std::string("--dump-types: 'self' is not encoder, decoder or cross"),
                       std::string("dump_types")));
  request = Request();
  request.record.align_rule = "nearest";
  CHECK(refusal(request).second == "align_rule");
  CHECK_THAT(refusal(request).first, Catch::Contains("grow-diag-final"));
  request = Request();
  request.compute_type = "int4";
  CHECK(refusal(request).second == "compute_type");
  request = Request();
  request.record.dump_heads = {-1};
  CHECK(refusal(request).second == "dump_heads");
}

TEST_CASE("check_request: combinations that cannot run, in the option's or the JSON's words",
          "[request]") {
  Request request;
  request.search.beam_size = 2;
  request.search.n_best = 3;
  CHECK(refusal(request).first ==
        "--n-best 3 is more than --beam-size 2: a beam holds at most its size");
  CHECK(refusal(request, FieldSpelling::kJson).first ==
        "n_best 3 is more than beam_size 2: a beam holds at most its size");
  CHECK(refusal(request).second == "n_best");
  request = Request();
  request.search.sample = true;
  request.search.beam_size = 4;
  CHECK(refusal(request).first ==
        "--sample draws one hypothesis; it cannot be combined with --beam-size 4");
  request = Request();
  request.record.rollout = true;
  CHECK(refusal(request).first == "--rollout adds to --dump-attention or --view: give one of them");
  request.record.view = true;
  CHECK(refusal(request).first.empty());
  request = Request();
  request.record.dump_norms = true;
  CHECK(refusal(request).first ==
        "--dump-norms adds to --dump-attention or --view: give one of them");
  request.record.dump_norms = false;
  request.record.logit_lens = 3;
  CHECK(refusal(request, FieldSpelling::kJson).first ==
        "logit_lens adds to dump_attention or view: give one of them");
  request.record.dump_attention = true;
  CHECK(refusal(request).first.empty());
  request.record.logit_lens = 1001;
  CHECK(refusal(request).first == "--logit-lens: 1001 is not in [0, 1000]");
  request = Request();
  request.batch_size = 4096;
  request.search.beam_size = 32;  // 131072 hypotheses
  CHECK(refusal(request).second == "batch_size");
  request = Request();
  request.threads = 1024;
  request.batch_size = 65536;
  CHECK(refusal(request).first ==
        "--threads 1024 times --batch-size 65536 is more than 65536 lines at once");
  request.threads = 1;
  CHECK(refusal(request).first.empty());  // exactly the limit
}

TEST_CASE("request options: check_request reads each row's range, items and problem", "[request]") {
  int ranged = 0;
  for (const RequestOption& option : request_options()) {
    INFO(option.name);
    Request request;
    REQUIRE(option.get);
    if (option.range && option.type == OptionType::kInteger) {
      option.set(request, static_cast<long long>(option.range->low) - 1);
    } else if (option.range && option.type == OptionType::kNumber) {
      const float low = static_cast<float>(option.range->low);
      option.set(request, static_cast<double>(std::nextafter(low, -1e30f)));
    } else if (option.range && option.type == OptionType::kIntegerList) {
      option.set(request, std::vector<long long>{static_cast<long long>(option.range->low) - 1});
    } else if (option.problem && option.type == OptionType::kText) {
      option.set(request, std::string("nonsense"));
    } else if (option.problem && option.type == OptionType::kTextList) {
      option.set(request, std::vector<std::string>{"nonsense"});
    } else {
      continue;
    }
    ++ranged;
    const auto [message, field] = refusal(request);
    CHECK(field == option.name);
    CHECK(message.rfind(field_name(option.name, FieldSpelling::kOption) + ": ", 0) == 0);
  }
  CHECK(ranged >= 15);
  Request request;
  request.record.dump_heads = {-1};
  CHECK(refusal(request, FieldSpelling::kJson).first ==
        "dump_heads: '-1' is not a head number (heads are numbered from 0)");
  request = Request();
  request.search.max_length = 2000000;  // integers whole, not 1.04858e+06
  CHECK(refusal(request).first == "--max-length: 2000000 is not in [0, 1048576]");
}

TEST_CASE("request options: help spelled for each front end, defaults from Request", "[request]") {
  const RequestOption* n_best = find_request_option("n_best", kForTranslate);
  REQUIRE(n_best);
  CHECK(option_help(*n_best, FieldSpelling::kOption).find("(K <= --beam-size)") !=
        std::string::npos);
  CHECK(option_help(*n_best, FieldSpelling::kJson).find("(K <= beam_size)") != std::string::npos);
  CHECK(find_request_option("mask_heads", kForScore) ==
        find_request_option("ablate_heads", kForScore));
  CHECK(find_request_option("threads", kForTranslate) == nullptr);  // the command line's only
  CHECK(find_request_option("n_best", kForScore) == nullptr);
  for (const RequestOption& option : request_options()) {
    INFO(option.name);
    if (option.name == "beam_size") CHECK(option.shown_default == "1");
    if (option.name == "temperature") CHECK(option.shown_default == "1");
    if (option.name == "align_rule") CHECK(option.shown_default == "union");
    CHECK(!option.help.empty());
    CHECK(option.example.empty() == ((option.uses & kNotServed) != 0));
  }
}

TEST_CASE("plan_request: what the translator records follows what the request reads", "[request]") {
  const Model& model = *hand_model();  // 1 decoder layer, 2 heads
  Request request;
  RequestPlan plan = plan_request(request, model);
  CHECK_FALSE(plan.batch.translate.record_attention);
  CHECK(plan.batch.translate.alternatives == 0);
  CHECK(plan.batch.translate.record_cross_only == -1);
  CHECK(plan.batch.translate.columns == LineColumns::kSource);
  CHECK_FALSE(plan.batch.translate.keep_n_best);
  CHECK(plan.batch.threads >= 1);  // 0: one per core

  // The alignment alone reads one layer's cross attention: only that is recorded.
  request.record.align = true;
  plan = plan_request(request, model);
  CHECK(plan.batch.translate.record_attention);
  CHECK(plan.batch.translate.record_cross_only == 0);  // layer -1 of 1
  // A dump needs every layer, and the page's alternatives (5) at each position.
  request.record.dump_attention = true;
  plan = plan_request(request, model);
  CHECK(plan.batch.translate.record_cross_only == -1);
  CHECK(plan.batch.translate.alternatives == 5);
  request.record.alternatives = 7;
  // Text output has nowhere to put them: refused, naming the format that has.
  CHECK_THROWS_WITH(plan_request(request, model),
                    Catch::Contains("--alternatives lists tokens in JSON Lines output only") &&
                        Catch::Contains("add --format jsonl"));
  request.format = OutputFormat::kJsonl;
  CHECK(plan_request(request, model).batch.translate.alternatives == 7);

  request = Request();
  request.search.beam_size = 3;
  request.search.n_best = 2;
  request.record.align = true;
  plan = plan_request(request, model);
  CHECK(plan.batch.translate.n_best == 2);
  CHECK(plan.batch.translate.keep_n_best);
  CHECK(plan.batch.translate.record_n_best);  // each hypothesis gets its own alignment

  request = Request();
  request.kind = RequestKind::kScore;
  CHECK(plan_request(request, model).batch.translate.columns == LineColumns::kSourceAndTarget);
  request = Request();
  request.search.prefix_column = true;
  CHECK(plan_request(request, model).batch.translate.columns == LineColumns::kSourceAndPrefix);
}

TEST_CASE("plan_request: seeds, head masks and selections against the model", "[request]") {
  const Model& model = *hand_model();
  Request request;
  request.search.sample = true;
  request.search.seed = 42;
  CHECK(plan_request(request, model).batch.translate.seed == 42);
  request.search.seed.reset();
  const RequestPlan drawn = plan_request(request, model);
  CHECK(drawn.request.search.seed.has_value());
  CHECK(drawn.batch.translate.seed == *drawn.request.search.seed);
  CHECK_FALSE(request.search.seed.has_value());  // the caller's request is left as it was

  request = Request();
  request.record.mask_heads = "cross:-1:1";
  request.record.dump_attention = true;
  RequestPlan plan = plan_request(request, model);
  REQUIRE(plan.batch.translate.head_mask);
  CHECK(plan.batch.translate.head_mask->count() == 1);
  CHECK(plan.batch.translate.head_mask->masked(AttentionKind::kCross, 0, 1));
  CHECK(plan.selection.masked_heads == "cross:0:1");  // the dump says which, from the end resolved

  request.record.mask_heads = "cross:0:2";  // 2 heads: no head 2
  try {
    plan_request(request, model);
    FAIL("a head the model lacks was accepted");
  } catch (const RequestError& e) {
    CHECK(e.field() == "mask_heads");
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("--ablate-heads: 'cross:0:2'"));
  }

  // Layers and heads of the dump and the alignment are the model's business: Error, naming them.
  request = Request();
  request.record.dump_attention = true;
  request.record.dump_heads = {2};
  CHECK_THROWS_WITH(plan_request(request, model), Catch::Contains("head 2 does not exist"));
  request = Request();
  request.record.align = true;
  request.record.align_layer = 1;
  CHECK_THROWS_WITH(plan_request(request, model),
                    Catch::Contains("decoder layer 1 does not exist"));
}

TEST_CASE("run_request: one record per line, in input order, whatever the threads", "[request]") {
  Request request;
  request.format = OutputFormat::kJsonl;
  request.threads = 2;
  request.batch_size = 1;
  std::vector<std::string> lines = {"a b", "\xff", "b a c", "", "c"};
  KeepingSink sink;
  const RunSummary summary = run_lines(request, lines, sink);
  CHECK(summary.written == 5);
  CHECK(summary.failures == 1);
  REQUIRE(sink.records.size() == 5);
  REQUIRE(sink.notices.size() == 5);
  for (size_t i = 0; i < lines.size(); ++i) {
    const json record = json::parse(sink.records[i]);
    CHECK(record["line"] == i + 1);
    CHECK(sink.notices[i].line == static_cast<long long>(i + 1));
    CHECK(sink.records[i].back() == '\n');
  }
  CHECK(json::parse(sink.records[1])["error"] == "invalid UTF-8 at byte 0");
  CHECK(sink.notices[1].error == "invalid UTF-8 at byte 0");
  CHECK(json::parse(sink.records[3])["translation"] == "");  // a blank line: not searched
  CHECK(sink.batches == std::vector<long long>{1, 2, 3, 4, 5});

  // fail_fast ends after the failed line; a sink that says no ends at once.
  request.fail_fast = true;
  KeepingSink failing;
  CHECK(run_lines(request, lines, failing).written == 2);
  CHECK(failing.records.size() == 2);
  KeepingSink refusing;
  refusing.stop_after = 1;
  request.fail_fast = false;
  CHECK(run_lines(request, lines, refusing).written == 0);
  CHECK(refusing.records.size() == 1);
}

TEST_CASE("run_request: text records, scores, n-best lists and alignments as asked", "[request]") {
  Request request;
  request.kind = RequestKind::kScore;
  request.record.align = true;
  KeepingSink sink;
  run_lines(request, {"a b\ta", "no tab"}, sink);
  REQUIRE(sink.records.size() == 2);
  // A score, a tab and the alignment; the failed line has no score and no links.
  CHECK(sink.records[0].find('\t') != std::string::npos);
  CHECK(std::stod(sink.records[0]) < 0.0);  // a log-probability
  CHECK(sink.records[1] == "\t\n");
  CHECK(sink.notices[1].error == "expected source<TAB>target, but the line has no tab");

  request = Request();
  request.search.beam_size = 3;
  request.search.n_best = 2;
  request.format = OutputFormat::kJsonl;
  KeepingSink beams;
  run_lines(request, {"a b"}, beams);
  const json record = json::parse(beams.records.at(0));
  REQUIRE(record["n_best"].size() == 2);
  CHECK(record["n_best"][0]["translation"] == record["translation"]);
  CHECK(record["n_best"][0]["score"].get<double>() >= record["n_best"][1]["score"].get<double>());
  CHECK_FALSE(record.contains("alternatives"));  // none asked for
}

TEST_CASE("run_request: the dump streams every line, the page comes at the end", "[request]") {
  Request request;
  request.record.dump_attention = true;
  request.record.view = true;
  request.record.dump_types = {"cross"};
  std::ostringstream dump, page;
  KeepingSink sink;
  const RunSummary summary = run_lines(request, {"a b", "\xff", "c"}, sink, {&dump, &page});
  const json document = json::parse(dump.str());
  CHECK(document["format"] == "minimt-attention");
  CHECK(document["selection"]["types"] == json::array({"cross"}));
  REQUIRE(document["sentences"].size() == 3);
  CHECK(document["sentences"][1]["error"] == "invalid UTF-8 at byte 0");
  CHECK(document["sentences"][0].contains("cross_attention"));
  CHECK_FALSE(document["sentences"][0].contains("encoder_self_attention"));
  // The record asks for no alternatives: the 5 the page keeps stay out of it.
  CHECK(sink.records.at(0).find('\t') == std::string::npos);
  CHECK(page.str().rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(summary.page.sentences == 3);
  // The cross attention's 1 layer x 2 heads for each translated sentence; the failed has none.
  CHECK(summary.page.heatmaps == 4);

  // Asked for and not given a place to go: refused before anything runs.
  MemoryLines lines({"a"});
  CHECK_THROWS_AS(run_request(hand_model(), plan_request(request, *hand_model()), lines, sink, {}),
                  Error);
}
