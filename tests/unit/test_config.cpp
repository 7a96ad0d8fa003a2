// ModelConfig: parsing config.json of format v1, its defaults, and one clear error per bad key.
#include <catch2/catch.hpp>

#include "minimt/model/config.h"
#include "minimt/base/error.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::error_of;
using minimt::test::json;
using minimt::test::small_config;

namespace {

ModelConfig parse(const json& patch) {
  return ModelConfig::from_json(small_config(patch), "models/x/config.json");
}

// The message of the ModelError that parsing throws; fails the test if it throws anything else.
std::string config_error(const json& patch) {
  try {
    parse(patch);
  } catch (const ModelError& e) {
    CHECK(e.file() == "models/x/config.json");
    return e.what();
  } catch (const std::exception& e) {
    FAIL("not a ModelError: " << e.what());
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("config: a valid config is read with every value", "[config]") {
  ModelConfig c = parse({{"head_dim", 5},
                         {"activation", "gelu"},
                         {"norm_position", "pre"},
                         {"positions", "learned"},
                         {"layer_norm_eps", 1e-6},
                         {"scale_embeddings", false},
                         {"tie_output", false},
                         {"special_tokens", {{"pad", 4}, {"unk", 5}, {"bos", 6}, {"eos", 7}}},
                         {"decoder_start_token", 9}});
  CHECK(c.d_model == 8);
  CHECK(c.num_heads == 2);
  CHECK(c.head_dim == 5);
  CHECK(c.attention_width() == 10);
  CHECK(c.d_ff == 16);
  CHECK(c.encoder_layers == 2);
  CHECK(c.decoder_layers == 2);
  CHECK(c.activation == Activation::kGelu);
  CHECK(c.norm_position == NormPosition::kPre);
  CHECK(c.positions == Positions::kLearned);
  CHECK(c.layer_norm_eps == Approx(1e-6).margin(1e-12));
  CHECK(c.max_positions == 16);
  CHECK_FALSE(c.scale_embeddings);
  CHECK(c.source_vocab_size == 11);
  CHECK(c.target_vocab_size == 13);
  CHECK_FALSE(c.tie_output);
  CHECK(c.special.pad == 4);
  CHECK(c.special.unk == 5);
  CHECK(c.special.bos == 6);
  CHECK(c.special.eos == 7);
  CHECK(c.decoder_start_token == 9);
  CHECK(c.source_tokenizer == "source.spm");
  CHECK(c.target_tokenizer == "target.spm");
  CHECK(c.weights_file == "model.safetensors");
  CHECK(c.inline_weights.is_null());
}

TEST_CASE("config: every enum value is accepted", "[config]") {
  CHECK(parse({{"activation", "relu"}}).activation == Activation::kRelu);
  CHECK(parse({{"activation", "gelu"}}).activation == Activation::kGelu);
  CHECK(parse({{"activation", "silu"}}).activation == Activation::kSilu);
  CHECK(parse({{"norm_position", "post"}}).norm_position == NormPosition::kPost);
  CHECK(parse({{"norm_position", "pre"}}).norm_position == NormPosition::kPre);
  CHECK(parse({{"positions", "sinusoidal"}}).positions == Positions::kSinusoidal);
  CHECK(parse({{"positions", "learned"}}).positions == Positions::kLearned);
  CHECK(std::string(to_string(Activation::kSilu)) == "silu");
  CHECK(std::string(to_string(NormPosition::kPre)) == "pre");
  CHECK(std::string(to_string(Positions::kLearned)) == "learned");
}

TEST_CASE("config: head_dim defaults to d_model / num_heads", "[config]") {
  CHECK(parse({{"d_model", 12}, {"num_heads", 3}}).head_dim == 4);
  CHECK(parse({{"d_model", 12}, {"num_heads", 1}}).head_dim == 12);
  // An explicit head_dim need not divide anything: q/k/v are [H*dk, d_model].
  ModelConfig c = parse({{"d_model", 10}, {"num_heads", 3}, {"head_dim", 7}});
  CHECK(c.head_dim == 7);
  CHECK(c.attention_width() == 21);
}

TEST_CASE("config: decoder_start_token defaults to special_tokens.bos", "[config]") {
  CHECK(parse({}).decoder_start_token == 2);
  CHECK(parse({{"special_tokens", {{"bos", 5}}}}).decoder_start_token == 5);
  CHECK(parse({{"decoder_start_token", 0}}).decoder_start_token == 0);
}

TEST_CASE("config: weights may be a relative path or an inline object", "[config]") {
  ModelConfig file = parse({{"weights", "sub/dir/w.safetensors"}});
  CHECK(file.weights_file == "sub/dir/w.safetensors");
  CHECK(file.inline_weights.is_null());

  json tensors = {{"encoder.embed_tokens.weight", {{"shape", {1, 1}}, {"data", {0.5}}}}};
  ModelConfig inline_config = parse({{"weights", tensors}});
  CHECK(inline_config.inline_weights == tensors);
  CHECK(inline_config.weights_file.empty());
}

TEST_CASE("config: a newer format_version names both versions", "[config]") {
  std::string message = config_error({{"format_version", 2}});
  CHECK_THAT(message, Catch::Contains("format_version"));
  CHECK_THAT(message, Catch::Contains("2"));
  CHECK_THAT(message, Catch::Contains("1"));
  CHECK_THAT(message, Catch::StartsWith("models/x/config.json: "));
}

TEST_CASE("config: each missing required key is named", "[config]") {
  for (const char* key :
       {"format", "format_version", "d_model", "num_heads", "d_ff", "encoder_layers",
        "decoder_layers", "activation", "norm_position", "layer_norm_eps", "max_positions",
        "positions", "scale_embeddings", "source_vocab_size", "target_vocab_size", "tie_output",
        "special_tokens", "tokenizer", "weights"}) {
    INFO("removed key: " << key);
    std::string message = config_error({{key, nullptr}});
    CHECK_THAT(message, Catch::Contains(std::string("'") + key + "'"));
    CHECK_THAT(message, Catch::Contains("missing"));
  }
  for (const char* key : {"pad", "unk", "bos", "eos"}) {
    INFO("removed special token: " << key);
    CHECK_THAT(config_error({{"special_tokens", {{key, nullptr}}}}),
               Catch::Contains(std::string("special_tokens.") + key));
  }
  for (const char* side : {"source", "target"}) {
    INFO("removed tokenizer side: " << side);
    CHECK_THAT(config_error({{"tokenizer", {{side, nullptr}}}}),
               Catch::Contains(std::string("tokenizer.") + side));
  }
}

TEST_CASE("config: each bad value is refused with its key named", "[config]") {
  struct Case {
    json patch;
    std::string key;
  };
  const std::vector<Case> cases = {
      {{{"format", "marian"}}, "format"},
      {{{"format_version", 0}}, "format_version"},
      {{{"format_version", "1"}}, "format_version"},
      {{{"format_version", 1.5}}, "format_version"},
      {{{"d_model", -8}}, "d_model"},
      {{{"d_model", 0}}, "d_model"},
      {{{"d_model", 8.5}}, "d_model"},
      {{{"d_model", "8"}}, "d_model"},
      {{{"num_heads", 0}}, "num_heads"},
      {{{"d_model", 10}, {"num_heads", 3}}, "head_dim"},  // not divisible, no head_dim
      {{{"head_dim", 0}}, "head_dim"},
      {{{"head_dim", -2}}, "head_dim"},
      {{{"d_ff", 0}}, "d_ff"},
      {{{"encoder_layers", 0}}, "encoder_layers"},
      {{{"decoder_layers", -1}}, "decoder_layers"},
      {{{"activation", "tanh"}}, "activation"},
      {{{"activation", 1}}, "activation"},
      {{{"norm_position", "middle"}}, "norm_position"},
      {{{"positions", "rotary"}}, "positions"},
      {{{"layer_norm_eps", 0}}, "layer_norm_eps"},
      {{{"layer_norm_eps", -1e-5}}, "layer_norm_eps"},
      {{{"layer_norm_eps", "small"}}, "layer_norm_eps"},
      {{{"max_positions", 0}}, "max_positions"},
      {{{"scale_embeddings", "yes"}}, "scale_embeddings"},
      {{{"scale_embeddings", 1}}, "scale_embeddings"},
      {{{"source_vocab_size", 0}}, "source_vocab_size"},
      {{{"target_vocab_size", -3}}, "target_vocab_size"},
      {{{"tie_output", "true"}}, "tie_output"},
      {{{"special_tokens", 3}}, "special_tokens"},
      {{{"special_tokens", {{"eos", 11}}}}, "special_tokens.eos"},  // source vocab has 11
      {{{"special_tokens", {{"pad", -1}}}}, "special_tokens.pad"},
      {{{"special_tokens", {{"bos", "2"}}}}, "special_tokens.bos"},
      {{{"decoder_start_token", 13}}, "decoder_start_token"},  // target vocab has 13
      {{{"decoder_start_token", -1}}, "decoder_start_token"},
      {{{"tokenizer", "source.spm"}}, "tokenizer"},
      {{{"tokenizer", {{"source", "../source.spm"}}}}, "tokenizer.source"},
      {{{"tokenizer", {{"target", "/etc/target.spm"}}}}, "tokenizer.target"},
      {{{"tokenizer", {{"target", "a/../../target.spm"}}}}, "tokenizer.target"},
      {{{"tokenizer", {{"source", ""}}}}, "tokenizer.source"},
      {{{"tokenizer", {{"source", 7}}}}, "tokenizer.source"},
      {{{"weights", "../model.safetensors"}}, "weights"},
      {{{"weights", "/tmp/model.safetensors"}}, "weights"},
      {{{"weights", 5}}, "weights"},
      {{{"weights", json::array()}}, "weights"},
  };
  for (const Case& c : cases) {
    INFO("patch: " << c.patch.dump());
    std::string message = config_error(c.patch);
    CHECK_THAT(message, Catch::Contains("'" + c.key + "'"));
    CHECK_THAT(message, Catch::StartsWith("models/x/config.json: "));
  }
}

TEST_CASE("config: an unknown activation lists the allowed ones", "[config]") {
  std::string message = config_error({{"activation", "tanh"}});
  CHECK_THAT(message, Catch::Contains("tanh"));
  CHECK_THAT(message, Catch::Contains("relu"));
  CHECK_THAT(message, Catch::Contains("gelu"));
  CHECK_THAT(message, Catch::Contains("silu"));
}

TEST_CASE("config: a document that is not an object is refused", "[config]") {
  CHECK_THROWS_AS(ModelConfig::from_json(json::array({1, 2}), "c.json"), ModelError);
  CHECK_THROWS_AS(ModelConfig::from_json(json("text"), "c.json"), ModelError);
  CHECK_THAT(error_of([] { ModelConfig::from_json(json(nullptr), "c.json"); }),
             Catch::StartsWith("c.json: "));
}

TEST_CASE("config: load() names the file when it is missing or not JSON", "[config]") {
  minimt::test::TempDir dir;
  const std::string missing = dir.file("absent.json");
  std::string message = error_of([&] { ModelConfig::load(missing); });
  CHECK_THAT(message, Catch::StartsWith(missing + ": "));

  const std::string broken = dir.file("config.json");
  minimt::test::write_file(broken, "{\"format\": \"minimt-transformer\",");
  message = error_of([&] { ModelConfig::load(broken); });
  CHECK_THAT(message, Catch::StartsWith(broken + ": "));
  CHECK_THAT(message, Catch::Contains("JSON"));
  CHECK_THROWS_AS(ModelConfig::load(broken), ModelError);

  minimt::test::write_file(broken, small_config().dump());
  CHECK(ModelConfig::load(broken).d_model == 8);
}
