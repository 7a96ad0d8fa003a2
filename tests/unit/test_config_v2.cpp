// ModelConfig: the keys of format version 2 (docs/model-format.md, "Format version 2"): their
// defaults (version 1's meaning), every value read, one clear error per bad key, and a version-1
// file that uses one of them refused.
#include <catch2/catch.hpp>

#include "minimt/base/error.h"
#include "minimt/model/config.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::json;
using minimt::test::small_config;

namespace {

ModelConfig parse_v2(const json& patch) {
  json config = small_config({{"format_version", 2}});
  config.merge_patch(patch);
  return ModelConfig::from_json(config, "models/x/config.json");
}

std::string error_of(const json& config) {
  try {
    ModelConfig::from_json(config, "models/x/config.json");
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no exception)";
}

std::string v2_error(const json& patch) {
  json config = small_config({{"format_version", 2}});
  config.merge_patch(patch);
  return error_of(config);
}

}  // namespace

TEST_CASE("config v2: without v2 keys a version-2 file means what version 1 does", "[config]") {
  for (const char* norm_position : {"post", "pre"}) {
    const ModelConfig v1 =
        ModelConfig::from_json(small_config({{"norm_position", norm_position}}), "c.json");
    const ModelConfig v2 = parse_v2({{"norm_position", norm_position}});
    CHECK(v1.format_version == 1);
    CHECK(v2.format_version == 2);
    for (const ModelConfig* c : {&v1, &v2}) {
      CHECK(c->final_norms == (std::string(norm_position) == "pre"));
      CHECK(c->position_offset == 0);
      CHECK(c->relative_attention.buckets == 0);
      CHECK(c->norm == NormKind::kLayerNorm);
      CHECK_FALSE(c->embedding_norm);
      CHECK(c->scale_attention_scores);
      CHECK(c->biases);
      CHECK(c->feed_forward == FeedForwardKind::kStandard);
      CHECK(c->output_scale == 1.0f);
      CHECK(c->forced_first_token == -1);
      CHECK(c->source_prefix.empty());
      CHECK(c->source_suffix == std::vector<int>{3});  // small_config's eos
      CHECK(c->source_unknown_pieces == 0);
      CHECK(c->target_unknown_pieces == 0);
    }
  }
}

TEST_CASE("config v2: every key is read", "[config]") {
  const ModelConfig c = parse_v2({{"positions", "none"},
                                  {"position_offset", 2},
                                  {"relative_attention", {{"buckets", 8}, {"max_distance", 20}}},
                                  {"norm", "rms_norm"},
                                  {"norm_position", "pre"},
                                  {"final_norms", false},
                                  {"embedding_norm", true},
                                  {"scale_attention_scores", false},
                                  {"biases", false},
                                  {"activation", "gelu_tanh"},
                                  {"feed_forward", "gated"},
                                  {"output_scale", 0.125},
                                  {"forced_first_token", 12},
                                  {"source_prefix_tokens", {10, 9}},
                                  {"source_suffix_tokens", json::array()},
                                  {"unknown_pieces", {{"source", 3}, {"target", 4}}}});
  CHECK(c.positions == Positions::kNone);
  CHECK(c.position_offset == 2);
  CHECK(c.relative_attention.buckets == 8);
  CHECK(c.relative_attention.max_distance == 20);
  CHECK(c.norm == NormKind::kRmsNorm);
  CHECK_FALSE(c.final_norms);
  CHECK(c.embedding_norm);
  CHECK_FALSE(c.scale_attention_scores);
  CHECK_FALSE(c.biases);
  CHECK(c.activation == Activation::kGeluTanh);
  CHECK(c.feed_forward == FeedForwardKind::kGated);
  CHECK(c.output_scale == 0.125f);
  CHECK(c.forced_first_token == 12);
  CHECK(c.source_prefix == std::vector<int>{10, 9});
  CHECK(c.source_suffix.empty());
  CHECK(c.source_unknown_pieces == 3);
  CHECK(c.target_unknown_pieces == 4);
  CHECK(parse_v2({{"positions", "sinusoidal_split"}}).positions == Positions::kSinusoidalSplit);
}

TEST_CASE("config v2: a bad value is named", "[config]") {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"position_offset", -1}}, "key 'position_offset' must be between 0"},
      {{{"relative_attention", 32}}, "key 'relative_attention' must be an object"},
      {{{"relative_attention", {{"buckets", 2}, {"max_distance", 20}}}},
       "key 'relative_attention.buckets' must be between 4"},
      {{{"relative_attention", {{"buckets", 32}, {"max_distance", 16}}}},
       "key 'relative_attention.max_distance' must be between 17"},
      {{{"relative_attention", {{"buckets", 32}}}},
       "key 'relative_attention.max_distance' is missing"},
      {{{"relative_attention", {{"buckets", 32}, {"max_distance", 64}, {"bidirectional", true}}}},
       "key 'relative_attention.bidirectional' is not a key"},
      {{{"norm", "batch_norm"}}, "key 'norm' must be one of \"layer_norm\", \"rms_norm\""},
      {{{"final_norms", 1}}, "key 'final_norms' must be true or false"},
      {{{"embedding_norm", "yes"}}, "key 'embedding_norm' must be true or false"},
      {{{"scale_attention_scores", nullptr}}, "(no exception)"},  // null removes the key
      {{{"biases", 0}}, "key 'biases' must be true or false"},
      {{{"feed_forward", "swiglu"}}, "key 'feed_forward' must be one of"},
      {{{"output_scale", 0}}, "key 'output_scale' must be a number above 0"},
      {{{"output_scale", "small"}}, "key 'output_scale' must be a number above 0"},
      {{{"forced_first_token", 13}}, "key 'forced_first_token' must be between 0 and 12"},
      {{{"source_prefix_tokens", 4}}, "key 'source_prefix_tokens' must be an array"},
      {{{"source_prefix_tokens", {4, 11}}},
       "key 'source_prefix_tokens[1]' must be between 0 and 10"},
      {{{"source_suffix_tokens", {-1}}}, "key 'source_suffix_tokens[0]' must be between 0 and 10"},
      {{{"source_prefix_tokens", std::vector<int>(70, 1)}}, "at most 64 are allowed"},
      {{{"source_prefix_tokens", std::vector<int>(15, 1)}},
       "leaving no room in max_positions (16)"},
      {{{"unknown_pieces", {{"source", -2}}}}, "key 'unknown_pieces.source' must be between 0"},
      {{{"unknown_pieces", {{"both", 2}}}}, "key 'unknown_pieces.both' is not a side"},
      {{{"positions", "sinusoidal_split"}, {"d_model", 2}, {"num_heads", 1}},
       "\"sinusoidal_split\" needs d_model >= 4"},
  };
  for (const auto& [patch, message] : cases) {
    INFO(patch.dump());
    const std::string error = v2_error(patch);
    CHECK_THAT(error, Catch::Contains(message));
    if (message != "(no exception)") CHECK_THAT(error, Catch::Contains("models/x/config.json"));
  }
}

TEST_CASE("config v2: version 1 refuses the v2 keys and values; 3 is too new", "[config]") {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"final_norms", true}}, "key 'final_norms' needs format_version 2 (this file says 1)"},
      {{{"forced_first_token", 2}}, "key 'forced_first_token' needs format_version 2"},
      {{{"unknown_pieces", {{"source", 1}}}}, "key 'unknown_pieces' needs format_version 2"},
      {{{"activation", "gelu_tanh"}}, "key 'activation' \"gelu_tanh\" needs format_version 2"},
      {{{"positions", "none"}}, "key 'positions' \"none\" needs format_version 2"},
      {{{"positions", "sinusoidal_split"}}, "\"sinusoidal_split\" needs format_version 2"},
      {{{"format_version", 3}}, "key 'format_version' is 3, newer than this minimt supports (2)"},
      {{{"format_version", 0}}, "key 'format_version' must be 1 or 2, got 0"},
  };
  for (const auto& [patch, message] : cases) {
    INFO(patch.dump());
    CHECK_THAT(error_of(small_config(patch)), Catch::Contains(message));
  }
}
