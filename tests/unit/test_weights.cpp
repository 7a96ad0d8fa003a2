// bind_weights: every tensor format v1 lists must be present with its shape, and nothing else;
// read_inline_tensors: the inline "weights" object of config.json.
#include <catch2/catch.hpp>

#include "minimt/base/error.h"
#include "minimt/engine/weights.h"
#include "minimt/model/weight_binding.h"
#include "test_support.h"

using namespace minimt;
using minimt::test::format_tensors;
using minimt::test::json;
using minimt::test::small_config;

namespace {

// The configs whose tensor lists differ: learned positions, pre-norm final norms, lm_head.
const json kFullConfig = {{"positions", "learned"}, {"norm_position", "pre"}, {"tie_output", false},
                          {"head_dim", 3},          {"d_model", 8},           {"num_heads", 2},
                          {"encoder_layers", 2},    {"decoder_layers", 1}};

TensorStore store_with(const std::vector<std::pair<std::string, Shape>>& tensors) {
  TensorStore store;
  for (const auto& [name, shape] : tensors)
    store.add_owned(name, shape, std::vector<float>(static_cast<size_t>(element_count(shape))));
  return store;
}

std::string bind_error(const ModelConfig& config, const TensorStore& store) {
  try {
    bind_weights(config, store, "dir/model.safetensors");
  } catch (const ModelError& e) {
    CHECK(e.file() == "dir/model.safetensors");
    return e.what();
  } catch (const std::exception& e) {
    FAIL("not a ModelError: " << e.what());
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("weights: a complete set binds, and views point at the named tensors", "[weights]") {
  for (const json& patch : {json::object(), kFullConfig}) {
    ModelConfig config = ModelConfig::from_json(small_config(patch), "config.json");
    for (bool bias : {false, true}) {
      INFO("config patch " << patch.dump() << ", final_logits_bias " << bias);
      auto tensors = format_tensors(config, bias);
      TensorStore store = store_with(tensors);
      ModelWeights w = bind_weights(config, store, "model.safetensors");
      long long parameters = 0;
      for (const auto& [name, shape] : tensors) parameters += element_count(shape);
      CHECK(w.parameter_count == parameters);
      CHECK(w.source_embeddings == store.find("encoder.embed_tokens.weight")->data);
      CHECK(w.target_embeddings == store.find("decoder.embed_tokens.weight")->data);
      CHECK(w.encoder_layers.size() == static_cast<size_t>(config.encoder_layers));
      CHECK(w.decoder_layers.size() == static_cast<size_t>(config.decoder_layers));
      const auto& last = w.decoder_layers.back();
      std::string p = "decoder.layers." + std::to_string(config.decoder_layers - 1);
      CHECK(last.cross_attn.k.weight == store.find(p + ".encoder_attn.k_proj.weight")->data);
      CHECK(last.cross_attn.out.bias == store.find(p + ".encoder_attn.out_proj.bias")->data);
      CHECK(last.self_attn.q.out == config.attention_width());
      CHECK(last.self_attn.q.in == config.d_model);
      CHECK(last.self_attn.out.out == config.d_model);
      CHECK(last.self_attn.out.in == config.attention_width());
      CHECK(last.fc1.out == config.d_ff);
      CHECK(last.fc2.in == config.d_ff);
      CHECK(w.encoder_layers[0].final_norm.weight ==
            store.find("encoder.layers.0.final_layer_norm.weight")->data);
      if (config.positions == Positions::kLearned) {
        CHECK(w.source_positions == store.find("encoder.embed_positions.weight")->data);
        CHECK(w.target_positions == store.find("decoder.embed_positions.weight")->data);
      } else {
        CHECK(w.source_positions == nullptr);
        CHECK(w.target_positions == nullptr);
      }
      if (config.norm_position == NormPosition::kPre)
        CHECK(w.decoder_final_norm.bias == store.find("decoder.layer_norm.bias")->data);
    }
  }
}

TEST_CASE("weights: each missing tensor is named", "[weights]") {
  ModelConfig config = ModelConfig::from_json(small_config(kFullConfig), "config.json");
  auto tensors = format_tensors(config, false);
  for (size_t skip = 0; skip < tensors.size(); ++skip) {
    INFO("without " << tensors[skip].first);
    auto rest = tensors;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(skip));
    std::string message = bind_error(config, store_with(rest));
    CHECK_THAT(message, Catch::Contains("'" + tensors[skip].first + "'"));
    CHECK_THAT(message, Catch::Contains("missing"));
  }
}

TEST_CASE("weights: each tensor of the wrong shape is named with both shapes", "[weights]") {
  ModelConfig config = ModelConfig::from_json(small_config(kFullConfig), "config.json");
  auto tensors = format_tensors(config, true);
  for (size_t bad = 0; bad < tensors.size(); ++bad) {
    auto changed = tensors;
    Shape& shape = changed[bad].second;
    const Shape expected = shape;
    shape.back() += 1;  // one column (or element) too many
    INFO(changed[bad].first << " given " << shape_to_string(shape));
    std::string message = bind_error(config, store_with(changed));
    CHECK_THAT(message, Catch::Contains("'" + tensors[bad].first + "'"));
    CHECK_THAT(message, Catch::Contains(shape_to_string(shape)));
    CHECK_THAT(message, Catch::Contains(shape_to_string(expected)));
  }
  // A transposed matrix and an extra dimension are wrong shapes too.
  auto transposed = tensors;
  for (auto& [name, shape] : transposed)
    if (name == "encoder.layers.1.fc1.weight") shape = {shape[1], shape[0]};
  CHECK_THAT(bind_error(config, store_with(transposed)),
             Catch::Contains("'encoder.layers.1.fc1.weight' has shape [8, 16], expected [16, 8]"));
  auto extra_dim = tensors;
  for (auto& [name, shape] : extra_dim)
    if (name == "final_logits_bias") shape = {1, shape[0]};
  CHECK_THAT(bind_error(config, store_with(extra_dim)), Catch::Contains("'final_logits_bias'"));
}

TEST_CASE("weights: a tensor the format does not list for this config is named", "[weights]") {
  // Post-norm, sinusoidal, tied, 2 + 2 layers.
  ModelConfig config = ModelConfig::from_json(small_config(), "config.json");
  const int64_t d = config.d_model;
  const std::vector<std::pair<std::string, Shape>> extras = {
      {"encoder.layers.0.self_attn.rotary.weight", {d}},
      {"encoder.layers.2.fc1.bias", {config.d_ff}},                   // a third encoder layer
      {"decoder.layers.2.fc1.bias", {config.d_ff}},                   // a third decoder layer
      {"encoder.layer_norm.weight", {d}},                             // pre-norm only
      {"decoder.layer_norm.bias", {d}},                               // pre-norm only
      {"lm_head.weight", {config.target_vocab_size, d}},              // untied only
      {"encoder.embed_positions.weight", {config.max_positions, d}},  // learned only
      {"decoder.embed_positions.weight", {config.max_positions, d}},
      {"lm_head.bias", {config.target_vocab_size}},
      {"model.encoder.embed_tokens.weight", {config.source_vocab_size, d}},
  };
  for (const auto& extra : extras) {
    INFO("extra " << extra.first);
    auto tensors = format_tensors(config, true);
    tensors.push_back(extra);
    std::string message = bind_error(config, store_with(tensors));
    CHECK_THAT(message, Catch::Contains("'" + extra.first + "'"));
  }
}

TEST_CASE("weights: final_logits_bias is optional", "[weights]") {
  ModelConfig config = ModelConfig::from_json(small_config(), "config.json");
  auto without = format_tensors(config, false);
  auto with = format_tensors(config, true);
  TensorStore a = store_with(without), b = store_with(with);
  CHECK(bind_weights(config, b, "m").parameter_count ==
        bind_weights(config, a, "m").parameter_count + config.target_vocab_size);
}

TEST_CASE("weights: inline tensors are read with shapes and values", "[weights]") {
  json tensors = {{"a", {{"shape", {2, 2}}, {"data", {1, -2.5, 3e-3, 4}}}},
                  {"b", {{"shape", {3}}, {"data", {0, 1, 2}}}},
                  {"scalar", {{"shape", json::array()}, {"data", {7}}}}};
  TensorStore store;
  read_inline_tensors(tensors, "m/config.json", store);
  REQUIRE(store.all().size() == 3);
  const TensorView* a = store.find("a");
  CHECK(a->shape == Shape{2, 2});
  CHECK(std::vector<float>(a->data, a->data + 4) == std::vector<float>{1.0f, -2.5f, 3e-3f, 4.0f});
  CHECK(store.find("b")->data[2] == 2.0f);
  CHECK(store.find("scalar")->data[0] == 7.0f);
}

TEST_CASE("weights: each bad inline tensor names the file and the tensor", "[weights]") {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"shape", {2}}, {"data", {1, 2, 3}}}, "3 values"},
      {{{"shape", {2, 2}}, {"data", {1, 2, 3}}}, "needs 4"},
      {{{"shape", {2}}, {"data", {1, "two"}}}, "not a number"},
      {{{"shape", {2}}, {"data", {1, nullptr}}}, "not a number"},
      {{{"shape", 2}, {"data", {1, 2}}}, "shape"},
      {{{"shape", {-2}}, {"data", json::array()}}, "shape"},
      {{{"shape", {1.5}}, {"data", {1}}}, "shape"},
      {{{"data", {1, 2}}}, "shape"},
      {{{"shape", {2}}}, "data"},
      {{{"shape", {2}}, {"data", "1 2"}}, "data"},
      {json::array({1, 2}), "object"},
  };
  for (const auto& [tensor, detail] : cases) {
    INFO(tensor.dump());
    TensorStore store;
    std::string message = minimt::test::error_of([&] {
      read_inline_tensors(json{{"x.weight", tensor}}, "m/config.json", store);
    });
    CHECK_THAT(message, Catch::StartsWith("m/config.json: "));
    CHECK_THAT(message, Catch::Contains("'x.weight'"));
    CHECK_THAT(message, Catch::Contains(detail));
  }
}

TEST_CASE("weights: inline values past the float range are refused as infinities",
          "[weights][hostile]") {
  const std::vector<std::pair<json, std::string>> cases = {
      {json::array({1, 1e39}), "has +inf at element 1 (1e+39); weights must be finite floats"},
      {json::array({-1e300, 1}), "has -inf at element 0 (-1e+300); weights must be finite floats"},
  };
  for (const auto& [data, expected] : cases) {
    TensorStore store;
    std::string message = minimt::test::error_of([&] {
      read_inline_tensors(json{{"x.weight", {{"shape", {2}}, {"data", data}}}}, "m/config.json",
                          store);
    });
    CHECK(message == "m/config.json: inline tensor 'x.weight' " + expected);
  }
  TensorStore store;
  CHECK_NOTHROW(read_inline_tensors(
      json{{"x.weight", {{"shape", {2}}, {"data", {3.4e38, -3.4e38}}}}}, "m/config.json", store));
}

TEST_CASE("weights: format v2's tensors are each required, shaped and named", "[weights]") {
  // T5's shapes (relative bias, RMS norms, no biases, gated) and mBART's (learned positions
  // from 2, embedding norms), each against the format document's list.
  const std::vector<json> patches = {
      {{"format_version", 2},
       {"positions", "none"},
       {"relative_attention", {{"buckets", 8}, {"max_distance", 5}}},
       {"norm", "rms_norm"},
       {"norm_position", "pre"},
       {"biases", false},
       {"feed_forward", "gated"},
       {"tie_output", false}},
      {{"format_version", 2},
       {"positions", "learned"},
       {"position_offset", 2},
       {"embedding_norm", true},
       {"norm_position", "pre"}},
  };
  for (const json& patch : patches) {
    ModelConfig config = ModelConfig::from_json(small_config(patch), "config.json");
    auto tensors = format_tensors(config, false);
    INFO(patch.dump());
    CHECK_NOTHROW(bind_weights(config, store_with(tensors), "m.safetensors"));
    for (size_t skip = 0; skip < tensors.size(); ++skip) {
      auto rest = tensors;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(skip));
      CHECK_THAT(bind_error(config, store_with(rest)),
                 Catch::Contains("'" + tensors[skip].first + "' is missing"));
      auto changed = tensors;
      changed[skip].second.back() += 1;
      CHECK_THAT(bind_error(config, store_with(changed)),
                 Catch::Contains("'" + tensors[skip].first + "' has shape"));
    }
    // A v1 tensor this config drops (a norm's or a Linear's bias) is named as not part of v2.
    auto extra = tensors;
    extra.push_back({"encoder.layers.0.fc1.bias", {config.d_ff}});
    if (config.biases) extra.back() = {"encoder.layers.0.fc1_linear.weight", {config.d_ff, 8}};
    CHECK_THAT(bind_error(config, store_with(extra)),
               Catch::Contains("is not part of format v2 for this config"));
  }
}
