// The keys format version 2 adds to version 1 (docs/model-format.md, "Format version 2"). Each
// is optional with the value that means what version 1 does, so a v2 file with none of them
// runs exactly as the same file marked version 1.
#include <cmath>

#include "minimt/model/config.h"
#include "model/config_reader.h"

namespace minimt {

const std::vector<std::string> kFormatV2Keys = {"position_offset",
                                                "relative_attention",
                                                "norm",
                                                "final_norms",
                                                "embedding_norm",
                                                "scale_attention_scores",
                                                "biases",
                                                "feed_forward",
                                                "output_scale",
                                                "forced_first_token",
                                                "source_prefix_tokens",
                                                "source_suffix_tokens",
                                                "unknown_pieces",
                                                "generation"};

namespace {

constexpr long long kMaxAffixTokens = 64;

bool boolean_or(const ConfigReader& reader, const char* key, bool fallback) {
  return reader.has(key) ? reader.boolean(key) : fallback;
}

std::vector<int> token_list(const ConfigReader& reader, const char* key, int vocab_size) {
  const auto& value = reader.require(key);
  if (!value.is_array()) reader.fail(key, "must be an array of token ids");
  if (static_cast<long long>(value.size()) > kMaxAffixTokens)
    reader.fail(key, "holds " + std::to_string(value.size()) + " ids; at most " +
                         std::to_string(kMaxAffixTokens) + " are allowed");
  std::vector<int> ids;
  for (size_t i = 0; i < value.size(); ++i)
    ids.push_back(static_cast<int>(reader.integer(
        value[i], std::string(key) + "[" + std::to_string(i) + "]", 0, vocab_size - 1)));
  return ids;
}

void read_relative_attention(const ConfigReader& reader, ModelConfig& c) {
  const auto& value = reader.require("relative_attention");
  if (!value.is_object()) reader.fail("relative_attention", "must be an object");
  for (const auto& [key, unused] : value.items())
    if (key != "buckets" && key != "max_distance")
      reader.fail("relative_attention." + printable(key),
                  "is not a key of relative_attention (buckets, max_distance)");
  for (const char* key : {"buckets", "max_distance"})
    if (!value.contains(key)) reader.fail(std::string("relative_attention.") + key, "is missing");
  // At least 4 buckets: the bidirectional encoder halves them and keeps half of a half exact.
  c.relative_attention.buckets = static_cast<int>(
      reader.integer(value["buckets"], "relative_attention.buckets", 4, kMaxDimension));
  // Distances past the exact buckets are spread on a log scale up to max_distance, which must
  // lie beyond them (log(max_distance / exact) > 0).
  const long long exact = c.relative_attention.buckets / 2;
  c.relative_attention.max_distance = static_cast<int>(reader.integer(
      value["max_distance"], "relative_attention.max_distance", exact + 1, kMaxPositions));
}

void read_keys(const ConfigReader& reader, ModelConfig& c) {
  // fairseq's frequencies divide by d_model / 2 - 1.
  if (c.positions == Positions::kSinusoidalSplit && c.d_model < 4)
    reader.fail("positions",
                "\"sinusoidal_split\" needs d_model >= 4, got " + std::to_string(c.d_model));
  if (reader.has("position_offset"))
    c.position_offset = reader.integer("position_offset", 0, kMaxPositions);
  if (reader.has("relative_attention")) read_relative_attention(reader, c);
  if (reader.has("norm")) c.norm = reader.choice("norm", kNormKindNames);
  c.final_norms = boolean_or(reader, "final_norms", c.norm_position == NormPosition::kPre);
  c.embedding_norm = boolean_or(reader, "embedding_norm", false);
  c.scale_attention_scores = boolean_or(reader, "scale_attention_scores", true);
  c.biases = boolean_or(reader, "biases", true);
  if (reader.has("feed_forward"))
    c.feed_forward = reader.choice("feed_forward", kFeedForwardKindNames);
  if (reader.has("output_scale")) {
    const auto& scale = reader.require("output_scale");
    if (!scale.is_number() || !std::isfinite(scale.get<double>()) || !(scale.get<double>() > 0) ||
        scale.get<double>() > 1e6)
      reader.fail("output_scale",
                  "must be a number above 0 and at most 1e6, got " + describe_json(scale));
    c.output_scale = static_cast<float>(scale.get<double>());
  }
  if (reader.has("forced_first_token"))
    c.forced_first_token = reader.integer("forced_first_token", 0, c.target_vocab_size - 1);
  if (reader.has("source_prefix_tokens"))
    c.source_prefix = token_list(reader, "source_prefix_tokens", c.source_vocab_size);
  c.source_suffix = reader.has("source_suffix_tokens")
                        ? token_list(reader, "source_suffix_tokens", c.source_vocab_size)
                        : std::vector<int>{c.special.eos};
  // At least one piece of text must fit between them.
  const long long affixes = static_cast<long long>(c.source_prefix.size() + c.source_suffix.size());
  if (affixes >= c.max_positions)
    reader.fail("source_prefix_tokens", "and source_suffix_tokens hold " + std::to_string(affixes) +
                                            " ids, leaving no room in " + "max_positions (" +
                                            std::to_string(c.max_positions) + ") for the text");
  if (reader.has("unknown_pieces")) {
    const auto& value = reader.require("unknown_pieces");
    if (!value.is_object()) reader.fail("unknown_pieces", "must be an object");
    for (const auto& [key, unused] : value.items())
      if (key != "source" && key != "target")
        reader.fail("unknown_pieces." + printable(key), "is not a side (source, target)");
    if (value.contains("source"))
      c.source_unknown_pieces =
          static_cast<int>(reader.integer(value["source"], "unknown_pieces.source", 0, kMaxVocab));
    if (value.contains("target"))
      c.target_unknown_pieces =
          static_cast<int>(reader.integer(value["target"], "unknown_pieces.target", 0, kMaxVocab));
  }
  if (reader.has("generation")) read_generation(reader, c);
}

}  // namespace

void read_format_v2(const ConfigReader& reader, ModelConfig& c) {
  if (c.format_version >= 2) return read_keys(reader, c);
  for (const std::string& key : kFormatV2Keys)
    if (reader.has(key)) reader.fail(key, "needs format_version 2 (this file says 1)");
  if (c.activation == Activation::kGeluTanh)
    reader.fail("activation", "\"gelu_tanh\" needs format_version 2 (this file says 1)");
  if (c.positions == Positions::kSinusoidalSplit || c.positions == Positions::kNone)
    reader.fail("positions", std::string("\"") + to_string(c.positions) +
                                 "\" needs format_version 2 (this file says 1)");
  c.final_norms = c.norm_position == NormPosition::kPre;
  c.source_suffix = {c.special.eos};
}

}  // namespace minimt
