// Helpers shared by the unit tests: small valid configs, the tensor list of format v1 written
// out independently of src/weights.cpp, seeded random weights and Linear products, temporary
// directories, and float comparisons that report where two arrays differ (against each other
// or against a product computed in double).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "minimt/engine/attention_record.h"
#include "minimt/engine/packed_weights.h"
#include "minimt/engine/weights.h"
#include "minimt/model/config.h"
#include "minimt/model/tensor.h"
#include "minimt/model/weight_binding.h"

#ifndef MINIMT_FIXTURES_DIR
#error "MINIMT_FIXTURES_DIR must name tests/fixtures (tests/CMakeLists.txt defines it)"
#endif

namespace minimt::test {

using nlohmann::json;

constexpr float kInf = std::numeric_limits<float>::infinity();

inline std::string fixture_path(const std::string& relative) {
  return std::string(MINIMT_FIXTURES_DIR) + "/" + relative;
}

// A valid, small format-v1 config. `patch` is applied as a JSON merge patch (RFC 7396): its
// keys replace the defaults, and a null value removes the key.
inline json small_config(const json& patch = json::object()) {
  json config = {
      {"format", "minimt-transformer"},
      {"format_version", 1},
      {"d_model", 8},
      {"num_heads", 2},
      {"d_ff", 16},
      {"encoder_layers", 2},
      {"decoder_layers", 2},
      {"activation", "relu"},
      {"norm_position", "post"},
      {"layer_norm_eps", 1e-5},
      {"max_positions", 16},
      {"positions", "sinusoidal"},
      {"scale_embeddings", true},
      {"source_vocab_size", 11},
      {"target_vocab_size", 13},
      {"tie_output", true},
      {"special_tokens", {{"pad", 0}, {"unk", 1}, {"bos", 2}, {"eos", 3}}},
      {"tokenizer", {{"source", "source.spm"}, {"target", "target.spm"}}},
      {"weights", "model.safetensors"},
  };
  if (!patch.is_null()) config.merge_patch(patch);  // json{} is null, not an empty patch
  return config;
}

// Every tensor the format (v1, and v2's keys) lists for `c`, with its shape, in the order of
// the format document. Written from the document, not from src/model/weight_binding.cpp, so
// that the two can disagree.
inline std::vector<std::pair<std::string, Shape>> format_tensors(const ModelConfig& c,
                                                                 bool final_logits_bias) {
  const int64_t d = c.d_model, w = static_cast<int64_t>(c.num_heads) * c.head_dim;
  std::vector<std::pair<std::string, Shape>> names;
  names.push_back({"encoder.embed_tokens.weight", {c.source_vocab_size, d}});
  names.push_back({"decoder.embed_tokens.weight", {c.target_vocab_size, d}});
  if (c.positions == Positions::kLearned) {
    const int64_t rows = c.max_positions + c.position_offset;
    names.push_back({"encoder.embed_positions.weight", {rows, d}});
    names.push_back({"decoder.embed_positions.weight", {rows, d}});
  }
  auto linear = [&](const std::string& p, int64_t out, int64_t in) {
    names.push_back({p + ".weight", {out, in}});
    if (c.biases) names.push_back({p + ".bias", {out}});
  };
  auto attention = [&](const std::string& p) {
    for (const char* proj : {"q_proj", "k_proj", "v_proj"}) linear(p + "." + proj, w, d);
    linear(p + ".out_proj", d, w);
  };
  auto norm = [&](const std::string& p) {
    names.push_back({p + ".weight", {d}});
    if (c.norm == NormKind::kLayerNorm) names.push_back({p + ".bias", {d}});
  };
  auto ffn = [&](const std::string& p) {
    linear(p + ".fc1", c.d_ff, d);
    if (c.feed_forward == FeedForwardKind::kGated) linear(p + ".fc1_linear", c.d_ff, d);
    linear(p + ".fc2", d, c.d_ff);
  };
  if (c.relative_attention.buckets > 0) {
    names.push_back(
        {"encoder.relative_attention_bias.weight", {c.relative_attention.buckets, c.num_heads}});
    names.push_back(
        {"decoder.relative_attention_bias.weight", {c.relative_attention.buckets, c.num_heads}});
  }
  if (c.embedding_norm) {
    norm("encoder.layernorm_embedding");
    norm("decoder.layernorm_embedding");
  }
  for (int i = 0; i < c.encoder_layers; ++i) {
    std::string p = "encoder.layers." + std::to_string(i);
    attention(p + ".self_attn");
    norm(p + ".self_attn_layer_norm");
    ffn(p);
    norm(p + ".final_layer_norm");
  }
  for (int i = 0; i < c.decoder_layers; ++i) {
    std::string p = "decoder.layers." + std::to_string(i);
    attention(p + ".self_attn");
    norm(p + ".self_attn_layer_norm");
    attention(p + ".encoder_attn");
    norm(p + ".encoder_attn_layer_norm");
    ffn(p);
    norm(p + ".final_layer_norm");
  }
  if (c.final_norms) {
    norm("encoder.layer_norm");
    norm("decoder.layer_norm");
  }
  if (!c.tie_output) names.push_back({"lm_head.weight", {c.target_vocab_size, d}});
  if (final_logits_bias) names.push_back({"final_logits_bias", {c.target_vocab_size}});
  return names;
}

// Seeded random values for one tensor, scaled like the PyTorch reference's random models
// (tools/reference/pytorch_reference/random_model.py): attention rows neither uniform nor
// one-hot, logits well separated.
inline std::vector<float> random_values(const ModelConfig& c, const std::string& name,
                                        const Shape& shape, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t count = element_count(shape);
  const float fan_in = shape.size() == 2 ? static_cast<float>(shape[1]) : 1.0f;
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  float mean = 0.0f, std = 0.1f;  // biases
  if (ends_with("embed_tokens.weight")) {
    std = c.scale_embeddings ? 1.0f / std::sqrt(static_cast<float>(c.d_model)) : 1.0f;
  } else if (ends_with("embed_positions.weight")) {
    std = 0.5f;
  } else if (ends_with("relative_attention_bias.weight")) {
    std = 1.0f;
  } else if (name.find("layer_norm") != std::string::npos ||
             name.find("layernorm_embedding") != std::string::npos) {
    mean = ends_with(".weight") ? 1.0f : 0.0f;
  } else if (ends_with("q_proj.weight") || ends_with("k_proj.weight")) {
    std = 1.2f / std::sqrt(fan_in);
  } else if (ends_with("out_proj.weight") || ends_with("fc2.weight") || name == "lm_head.weight") {
    std = 2.0f / std::sqrt(fan_in);
  } else if (ends_with(".weight")) {
    std = 1.0f / std::sqrt(fan_in);
  } else if (name == "final_logits_bias") {
    std = 0.5f;
  }
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = mean + std * normal(rng);
  return values;
}

// The same random weights as an inline "weights" object for config.json.
inline json random_inline_weights(const ModelConfig& c, unsigned seed, bool final_logits_bias) {
  std::mt19937 rng(seed);
  json weights = json::object();
  for (const auto& [name, shape] : format_tensors(c, final_logits_bias))
    weights[name] = {{"shape", shape}, {"data", random_values(c, name, shape, rng)}};
  return weights;
}

// A config, its random weights and the bound views; lives on the heap because the views point
// into the store and the decoder keeps references to the config.
struct TestModel {
  ModelConfig config;
  TensorStore store;
  ModelWeights weights;
  PackedWeights packed;
};

// The Linear kernel the tests run, as minimt would: $MINIMT_KERNELS when set (tools/test.sh runs
// the suite under each), else the fastest this CPU runs.
inline LinearKernel test_kernel() {
  const char* word = std::getenv("MINIMT_KERNELS");
  return choose_linear_kernel(word ? word : "");
}

inline std::unique_ptr<TestModel> random_model(const json& config_json, unsigned seed,
                                               bool final_logits_bias = false) {
  auto model = std::make_unique<TestModel>();
  model->config = ModelConfig::from_json(config_json, "config.json");
  std::mt19937 rng(seed);
  for (const auto& [name, shape] : format_tensors(model->config, final_logits_bias))
    model->store.add_owned(name, shape, random_values(model->config, name, shape, rng));
  model->weights = bind_weights(model->config, model->store, "random.safetensors");
  model->packed = pack_linear_layers(model->weights, test_kernel());
  return model;
}

// `count` seeded values drawn uniformly from [low, high).
inline std::vector<float> uniform_values(std::mt19937& rng, size_t count, float low, float high) {
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
  return values;
}

// An empty attention record of `c`'s shape for a source of source_length tokens.
inline AttentionRecord empty_record(const ModelConfig& c, int source_length) {
  AttentionRecord record;
  record.encoder_layers = c.encoder_layers;
  record.decoder_layers = c.decoder_layers;
  record.heads = c.num_heads;
  record.source_length = source_length;
  return record;
}

// Random token ids in [4, vocab) (no special tokens), ending with eos (3) when with_eos.
inline std::vector<int> random_ids(std::mt19937& rng, int length, int vocab, bool with_eos) {
  std::uniform_int_distribution<int> pick(4, vocab - 1);
  std::vector<int> ids;
  for (int i = 0; i < length - (with_eos ? 1 : 0); ++i) ids.push_back(pick(rng));
  if (with_eos) ids.push_back(3);
  return ids;
}

// A fresh directory under $TMPDIR, removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/minimt-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline json read_json(const std::string& path) {
  return json::parse(read_file(path));
}

// The message of the exception f throws, or "(no exception)".
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

// Largest |a[i] - b[i]| over n values, with the index where it occurs; NaN counts as infinite,
// two equal infinities (the -infinity logits of a forced token) as 0.
struct Difference {
  double largest = 0.0;
  size_t index = 0;
};

inline Difference max_difference(const float* a, const float* b, size_t n) {
  Difference d;
  for (size_t i = 0; i < n; ++i) {
    double diff = a[i] == b[i] ? 0.0 : std::fabs(static_cast<double>(a[i]) - b[i]);
    if (std::isnan(diff)) diff = INFINITY;
    if (diff > d.largest) d = {diff, i};
  }
  return d;
}

// A Linear product y = x w^T + b of seeded normal values: x [m, k], w [n, k], bias [n]; each
// weight drawn goes through weight(v) (to scale it or round it as a file would hold it).
struct Product {
  int m, n, k;
  std::vector<float> x, w, bias;
};

template <typename Weight>
Product random_product(int m, int n, int k, unsigned seed, Weight weight) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Product p{m, n, k, std::vector<float>(static_cast<size_t>(m) * k),
            std::vector<float>(static_cast<size_t>(n) * k), std::vector<float>(n)};
  for (float& v : p.x) v = normal(rng);
  for (float& v : p.w) v = weight(normal(rng));
  for (float& v : p.bias) v = normal(rng);
  return p;
}

// One output of a Product in double: x.w (+ b), and the sums the error bounds are made of.
struct ExactOutput {
  double value = 0.0;      // sum x w, plus b
  double magnitude = 0.0;  // sum |x w|, plus |b|
  double abs_x = 0.0;      // sum |x|
  double abs_w = 0.0;      // sum |w|
};

// Checks y [m, n] against the product in double: |y - exact| <= bound(row, column, exact) for
// every output; names the first three that are not.
template <typename Bound>
void check_against_double(const Product& p, const std::vector<float>& y, bool with_bias,
                          Bound bound) {
  int failures = 0;
  for (int r = 0; r < p.m; ++r)
    for (int j = 0; j < p.n; ++j) {
      ExactOutput exact;
      if (with_bias) exact.value = p.bias[j], exact.magnitude = std::fabs(p.bias[j]);
      for (int i = 0; i < p.k; ++i) {
        const double x = p.x[static_cast<size_t>(r) * p.k + i],
                     w = p.w[static_cast<size_t>(j) * p.k + i];
        exact.value += x * w;
        exact.magnitude += std::fabs(x * w);
        exact.abs_x += std::fabs(x);
        exact.abs_w += std::fabs(w);
      }
      const double got = y[static_cast<size_t>(r) * p.n + j],
                   error = std::fabs(got - exact.value), allowed = bound(r, j, exact);
      if (error > allowed && ++failures <= 3) {
        INFO("row " << r << " column " << j << ": " << got << " vs exact " << exact.value
                    << " (bound " << allowed << ")");
        CHECK(error <= allowed);
      }
    }
  CHECK(failures == 0);
}

// Checks that a and b (n values each) agree within `margin`; names the first worst index.
#define CHECK_ALL_CLOSE(a, b, n, margin)                                                          \
  do {                                                                                            \
    const auto minimt_difference = ::minimt::test::max_difference((a), (b), (n));                 \
    INFO("largest difference " << minimt_difference.largest << " at index "                       \
                               << minimt_difference.index << ": " << (a)[minimt_difference.index] \
                               << " vs " << (b)[minimt_difference.index]);                        \
    CHECK(minimt_difference.largest <= (margin));                                                 \
  } while (0)

}  // namespace minimt::test
