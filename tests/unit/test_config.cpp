// ModelConfig: parsing config.json of format v1, its defaults, one clear error per bad key, and
// hostile files (deep nesting, FIFOs, oversized files); model_file: paths stay in the directory.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "minimt/base/error.h"
#include "minimt/model/config.h"
#include "minimt/model/paths.h"
#include "minimt/model/untrusted_json.h"
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
  std::string message = config_error({{"format_version", 3}});
  CHECK_THAT(message, Catch::Contains("format_version"));
  CHECK_THAT(message, Catch::Contains("3"));
  CHECK_THAT(message, Catch::Contains("2"));
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

// ---------------------------------------------------------------------------- hostile input

TEST_CASE("config: nesting past the limit is refused before parsing, naming the key",
          "[config][hostile]") {
  minimt::test::TempDir dir;
  const std::string path = dir.file("config.json");
  for (int depth : {33, 100000}) {
    json config = small_config();
    config["d_model"] = "@";
    std::string text = config.dump();
    text.replace(text.find("\"@\""), 3, std::string(depth - 1, '[') + std::string(depth - 1, ']'));
    minimt::test::write_file(path, text);
    std::string message = error_of([&] { ModelConfig::load(path); });
    CHECK_THAT(message, Catch::StartsWith(path + ": key 'd_model' nests arrays and objects "
                                                 "more than 32 deep"));
  }
  minimt::test::write_file(path, std::string(5000000, '['));
  CHECK(error_of([&] { ModelConfig::load(path); }) ==
        path + ": nests arrays and objects more than 32 deep (at byte 32)");
}

TEST_CASE("config: an array or object in a message is named, never dumped", "[config][hostile]") {
  // 31 levels (32 with the document) parse; the message must not contain the value.
  json deep = json::array();
  for (int i = 0; i < 30; ++i) deep = json::array({deep});
  std::string message = config_error({{"d_model", deep}});
  CHECK_THAT(message, Catch::EndsWith("key 'd_model' must be an integer, got an array"));
  CHECK_THAT(config_error({{"scale_embeddings", {{"a", 1}}}}),
             Catch::EndsWith("must be true or false, got an object"));
  CHECK_THAT(config_error({{"d_model", 18446744073709551615ull}}),
             Catch::EndsWith("must be between 1 and 65536, got 18446744073709551615"));
  message = config_error({{"activation", std::string(100000, 'x') + "\n"}});
  CHECK(message.size() < 300);
  CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("config: load() refuses a FIFO, a directory and a file over 8 MiB without reading",
          "[config][hostile]") {
  minimt::test::TempDir dir;
  const std::string fifo = dir.file("fifo.json");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto start = std::chrono::steady_clock::now();
  CHECK(error_of([&] { ModelConfig::load(fifo); }) == fifo + ": is not a regular file (a FIFO)");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(error_of([&] { ModelConfig::load(dir.path()); }) ==
        dir.path() + ": is not a regular file (a directory)");
  const std::string big = dir.file("big.json");
  minimt::test::write_file(big, std::string((8 << 20) + 1, ' '));
  CHECK(error_of([&] { ModelConfig::load(big); }) ==
        big + ": is 8388609 bytes, more than the 8388608 bytes (8 MiB) minimt reads");
}

TEST_CASE("untrusted json: the depth scan skips brackets inside strings", "[config][hostile]") {
  std::string nested = std::string(32, '[') + std::string(32, ']');
  CHECK_FALSE(find_too_deep(nested.data(), nested.size()).has_value());
  nested = "[" + nested + "]";
  auto deep = find_too_deep(nested.data(), nested.size());
  REQUIRE(deep.has_value());
  CHECK(deep->offset == 32);
  CHECK(deep->top_key.empty());
  const std::string strings = R"({"k\"[[": "[[[[[[", "key": [[["]]]]]]"]]]})";
  CHECK_FALSE(find_too_deep(strings.data(), strings.size(), 4).has_value());
  deep = find_too_deep(strings.data(), strings.size(), 3);
  REQUIRE(deep.has_value());
  CHECK(deep->top_key == "key");
  const std::string unbalanced = "]]]]" + std::string(40, '[');
  CHECK_FALSE(find_too_deep(unbalanced.data(), unbalanced.size()).has_value());  // parser stops
}

TEST_CASE("untrusted json: printable escapes control characters and cuts long text",
          "[config][hostile]") {
  CHECK(printable("a\nb\x7f") == "a\\x0ab\\x7f");
  CHECK(printable(std::string(100, 'x'), 10) == "xxxxxxxxxx...");
  CHECK(printable(std::string(10, 'x'), 10) == "xxxxxxxxxx");
  // "é" is two bytes: a cut after its first byte keeps the whole character.
  CHECK(printable("aaaaaaaaa\xc3\xa9zz", 10) == "aaaaaaaaa\xc3\xa9...");
  CHECK(describe_json(json::array({json::array({1})})) == "an array");
  CHECK(describe_json(json("a\tb")) == "\"a\\x09b\"");
  CHECK(describe_json(json(2.5)) == "2.5");
}

TEST_CASE("paths: model_file keeps every file inside the model directory", "[paths][hostile]") {
  minimt::test::TempDir outside, dir;
  minimt::test::write_file(outside.file("secret"), "x");
  minimt::test::write_file(dir.file("real.spm"), "x");
  REQUIRE(mkdir(dir.file("sub").c_str(), 0700) == 0);
  minimt::test::write_file(dir.file("sub/w"), "x");
  REQUIRE(symlink("real.spm", dir.file("inside.spm").c_str()) == 0);
  REQUIRE(symlink("sub", dir.file("subdir").c_str()) == 0);
  REQUIRE(symlink(outside.file("secret").c_str(), dir.file("out.spm").c_str()) == 0);
  REQUIRE(symlink(outside.path().c_str(), dir.file("outdir").c_str()) == 0);
  REQUIRE(symlink("/dev/zero", dir.file("zero").c_str()) == 0);
  REQUIRE(mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  const std::string key = "config.json key 'k'";
  CHECK(model_file(dir.path(), "real.spm", key) == dir.file("real.spm"));
  CHECK(model_file(dir.path(), "inside.spm", key) == dir.file("inside.spm"));
  CHECK(model_file(dir.path(), "subdir/w", key) == dir.file("subdir/w"));
  CHECK(model_file(dir.path() + "/", "./real.spm", key) == dir.path() + "/./real.spm");
  CHECK(error_of([&] { model_file(dir.path(), "out.spm", key); }) ==
        dir.file("out.spm") + ": resolves outside the model directory (" + outside.file("secret") +
            ") (named by config.json key 'k')");
  CHECK_THAT(error_of([&] { model_file(dir.path(), "outdir/secret", key); }),
             Catch::Contains("resolves outside the model directory"));
  CHECK(error_of([&] { model_file(dir.path(), "zero", ""); }) ==
        dir.file("zero") + ": resolves outside the model directory (/dev/zero)");
  CHECK(error_of([&] { model_file(dir.path(), "fifo", key); }) ==
        dir.file("fifo") + ": is not a regular file (a FIFO) (named by config.json key 'k')");
  CHECK(error_of([&] { model_file(dir.path(), ".", ""); }) ==
        dir.file(".") + ": is not a regular file (a directory)");
  CHECK(error_of([&] { model_file(dir.path(), "absent", key); }) ==
        dir.file("absent") + ": is missing (named by config.json key 'k')");
}
